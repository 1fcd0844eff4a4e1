/* Paths of values: a C subset of one variable name with postfix member,
 * arrow and index operators and prefix dereference and address-of
 * operators, with parentheses (specs/eval-paths.md). */
#ifndef AMDDWARF_DEBUG_PATH_H
#define AMDDWARF_DEBUG_PATH_H

#include <stddef.h>
#include <stdint.h>

enum {
  AMDDWARF_DEBUG_PATH_MAX_OPS = 32,
  AMDDWARF_DEBUG_NAME_SIZE = 128,
  /* A spelled path: the name and every operator with its parentheses. */
  AMDDWARF_DEBUG_PATH_TEXT_SIZE =
      AMDDWARF_DEBUG_NAME_SIZE + AMDDWARF_DEBUG_PATH_MAX_OPS * (AMDDWARF_DEBUG_NAME_SIZE + 8),
};

typedef enum amddwarf_debug_path_op_kind {
  AMDDWARF_DEBUG_PATH_MEMBER,  /* .NAME */
  AMDDWARF_DEBUG_PATH_ARROW,   /* ->NAME */
  AMDDWARF_DEBUG_PATH_INDEX,   /* [INDEX] */
  AMDDWARF_DEBUG_PATH_DEREF,   /* *OPERAND */
  AMDDWARF_DEBUG_PATH_ADDRESS, /* &OPERAND */
} amddwarf_debug_path_op_kind;

typedef struct amddwarf_debug_path_op {
  amddwarf_debug_path_op_kind kind;
  char name[AMDDWARF_DEBUG_NAME_SIZE]; /* MEMBER, ARROW */
  int64_t index;                       /* INDEX */
} amddwarf_debug_path_op;

/* A parsed path: the variable, then its operators in the order they apply
   ("*p.x" is p, .x, *; "(*p).x" is p, *, .x). */
typedef struct amddwarf_debug_path {
  char name[AMDDWARF_DEBUG_NAME_SIZE];
  amddwarf_debug_path_op ops[AMDDWARF_DEBUG_PATH_MAX_OPS];
  size_t count;
} amddwarf_debug_path;

/* Parses TEXT into *PATH. Returns 0, or -1 with MESSAGE (SIZE bytes) saying
   what was expected at which column (1-based) and *OFFSET the byte offset
   of that column in TEXT. */
int amddwarf__debug_path_parse(const char *text, amddwarf_debug_path *path, char *message,
                              size_t size, size_t *offset);

/* Appends operator KIND (NAME for members, INDEX for indexes) to PATH.
   Returns 0, or -1 when PATH has AMDDWARF_DEBUG_PATH_MAX_OPS operators. */
int amddwarf__debug_path_push(amddwarf_debug_path *path, amddwarf_debug_path_op_kind kind,
                             const char *name, int64_t index);

/* Writes the C spelling of the operators up to (not including) op END onto
   the variable name into BUF (SIZE bytes), parenthesized only where C needs
   it ("(*p).x"). The spelling parses back to the same operators. */
void amddwarf__debug_path_spell(const amddwarf_debug_path *path, size_t end, char *buf,
                               size_t size);

#endif
