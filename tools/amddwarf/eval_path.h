/* The source-variable expressions of `amddwarf eval`: a C subset of one
 * variable name with postfix member, arrow and index operators and prefix
 * dereference and address-of operators, with parentheses (specs/eval-paths.md). */
#ifndef AMDDWARF_EVAL_PATH_H
#define AMDDWARF_EVAL_PATH_H

#include <stddef.h>
#include <stdint.h>

enum { EVAL_PATH_MAX_OPS = 32, EVAL_NAME_SIZE = 128 };

typedef enum eval_op_kind {
  EVAL_OP_MEMBER,  /* .NAME */
  EVAL_OP_ARROW,   /* ->NAME */
  EVAL_OP_INDEX,   /* [INDEX] */
  EVAL_OP_DEREF,   /* *OPERAND */
  EVAL_OP_ADDRESS, /* &OPERAND */
} eval_op_kind;

typedef struct eval_op {
  eval_op_kind kind;
  char name[EVAL_NAME_SIZE]; /* MEMBER, ARROW */
  int64_t index;             /* INDEX */
} eval_op;

/* A parsed expression: the variable, then its operators in the order they
   apply ("*p.x" is p, .x, *; "(*p).x" is p, *, .x). */
typedef struct eval_path {
  char name[EVAL_NAME_SIZE];
  eval_op ops[EVAL_PATH_MAX_OPS];
  size_t count;
} eval_path;

/* Parses TEXT into *PATH. Returns 0, or -1 with MESSAGE (SIZE bytes) saying
   what was expected at which column (1-based). */
int eval_path_parse(const char *text, eval_path *path, char *message, size_t size);

/* Writes the C spelling of the operators up to (not including) op END onto
   the variable name, fully parenthesized only where C needs it
   ("(*p).x"): used to name the part of an expression an error is about. */
void eval_path_spell(const eval_path *path, size_t end, char *buf, size_t size);

#endif
