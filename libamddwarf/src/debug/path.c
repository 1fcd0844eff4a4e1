/* Parser of value paths (path.h):
 *
 *   expr    := unary
 *   unary   := '*' unary | '&' unary | postfix
 *   postfix := primary { '.' NAME | '->' NAME | '[' INTEGER ']' }
 *   primary := NAME | '(' unary ')'
 *
 * exactly one NAME is a variable; spaces are allowed between tokens.
 * Operators are appended in the order they apply, so evaluation is a walk
 * from the variable outwards. */
#include "debug/path.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *text;
  const char *at;
  amddwarf_debug_path *path;
  char *message;
  size_t message_size;
  int depth;
} parser;

enum { MAX_NESTING = 32 };

static int fail(parser *p, const char *expected)
{
  if (*p->at == '\0')
    snprintf(p->message, p->message_size, "expected %s at the end", expected);
  else
    snprintf(p->message, p->message_size, "expected %s at column %d, found '%c'", expected,
             (int)(p->at - p->text) + 1, *p->at);
  return -1;
}

static void skip_spaces(parser *p)
{
  while (*p->at == ' ' || *p->at == '\t')
    ++p->at;
}

/* An identifier into OUT (OUT_SIZE bytes, NUL-terminated). */
static int parse_name(parser *p, char *out, size_t out_size, const char *what)
{
  size_t n = 0;
  skip_spaces(p);
  if (!isalpha((unsigned char)*p->at) && *p->at != '_')
    return fail(p, what);
  while (isalnum((unsigned char)p->at[n]) || p->at[n] == '_')
    ++n;
  if (n >= out_size) {
    snprintf(p->message, p->message_size, "name at column %d is longer than %zu characters",
             (int)(p->at - p->text) + 1, out_size - 1);
    return -1;
  }
  memcpy(out, p->at, n);
  out[n] = '\0';
  p->at += n;
  return 0;
}

static amddwarf_debug_path_op *add_op(parser *p, amddwarf_debug_path_op_kind kind)
{
  if (amddwarf__debug_path_push(p->path, kind, NULL, 0) != 0) {
    snprintf(p->message, p->message_size, "more than %d operators",
             AMDDWARF_DEBUG_PATH_MAX_OPS);
    return NULL;
  }
  return &p->path->ops[p->path->count - 1];
}

static int parse_index(parser *p, amddwarf_debug_path_op *op)
{
  char *end = NULL;
  const char *digits;
  skip_spaces(p);
  digits = p->at + (*p->at == '-');
  if (!isdigit((unsigned char)*digits))
    return fail(p, "an integer index");
  errno = 0;
  op->index = strtoll(p->at, &end, 0);
  if (errno == ERANGE) {
    snprintf(p->message, p->message_size, "index at column %d does not fit 64 bits",
             (int)(p->at - p->text) + 1);
    return -1;
  }
  p->at = end;
  skip_spaces(p);
  if (*p->at != ']')
    return fail(p, "']'");
  ++p->at;
  return 0;
}

static int parse_unary(parser *p);

static int parse_primary(parser *p)
{
  skip_spaces(p);
  if (*p->at == '(') {
    ++p->at;
    if (parse_unary(p) != 0)
      return -1;
    skip_spaces(p);
    if (*p->at != ')')
      return fail(p, "')'");
    ++p->at;
    return 0;
  }
  return parse_name(p, p->path->name, sizeof p->path->name, "a variable name");
}

static int parse_postfix(parser *p)
{
  if (parse_primary(p) != 0)
    return -1;
  for (;;) {
    amddwarf_debug_path_op *op;
    skip_spaces(p);
    if (*p->at == '.' || (p->at[0] == '-' && p->at[1] == '>')) {
      amddwarf_debug_path_op_kind kind =
          *p->at == '.' ? AMDDWARF_DEBUG_PATH_MEMBER : AMDDWARF_DEBUG_PATH_ARROW;
      p->at += kind == AMDDWARF_DEBUG_PATH_MEMBER ? 1 : 2;
      if ((op = add_op(p, kind)) == NULL ||
          parse_name(p, op->name, sizeof op->name, "a member name") != 0)
        return -1;
    } else if (*p->at == '[') {
      ++p->at;
      if ((op = add_op(p, AMDDWARF_DEBUG_PATH_INDEX)) == NULL || parse_index(p, op) != 0)
        return -1;
    } else {
      return 0;
    }
  }
}

static int parse_unary(parser *p)
{
  skip_spaces(p);
  if (*p->at == '*' || *p->at == '&') {
    amddwarf_debug_path_op_kind kind =
        *p->at == '*' ? AMDDWARF_DEBUG_PATH_DEREF : AMDDWARF_DEBUG_PATH_ADDRESS;
    ++p->at;
    if (++p->depth > MAX_NESTING) {
      snprintf(p->message, p->message_size, "more than %d nested operators", MAX_NESTING);
      return -1;
    }
    if (parse_unary(p) != 0)
      return -1;
    --p->depth;
    return add_op(p, kind) != NULL ? 0 : -1;
  }
  if (*p->at == '(') {
    if (++p->depth > MAX_NESTING) {
      snprintf(p->message, p->message_size, "more than %d nested parentheses", MAX_NESTING);
      return -1;
    }
    int rc = parse_postfix(p);
    --p->depth;
    return rc;
  }
  return parse_postfix(p);
}

int amddwarf__debug_path_parse(const char *text, amddwarf_debug_path *path, char *message,
                              size_t size, size_t *offset)
{
  parser p = {text, text, path, message, size, 0};
  int rc = 0;
  /* Operators are zeroed as they are added (amddwarf__debug_path_push). */
  memset(path->name, 0, sizeof path->name);
  path->count = 0;
  if (parse_unary(&p) != 0)
    rc = -1;
  else if (skip_spaces(&p), *p.at != '\0')
    rc = fail(&p, "'.', '->', '[' or the end");
  *offset = (size_t)(p.at - p.text);
  return rc;
}

int amddwarf__debug_path_push(amddwarf_debug_path *path, amddwarf_debug_path_op_kind kind,
                             const char *name, int64_t index)
{
  amddwarf_debug_path_op *op;
  if (path->count >= AMDDWARF_DEBUG_PATH_MAX_OPS)
    return -1;
  op = &path->ops[path->count++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->index = index;
  if (name != NULL)
    snprintf(op->name, sizeof op->name, "%s", name);
  return 0;
}

void amddwarf__debug_path_spell(const amddwarf_debug_path *path, size_t end, char *buf,
                               size_t size)
{
  char tmp[AMDDWARF_DEBUG_PATH_TEXT_SIZE];
  int prefix_last = 0; /* the spelling so far ends in a prefix operator */
  const char *nul = memchr(path->name, '\0', sizeof path->name);
  size_t n = nul != NULL ? (size_t)(nul - path->name) : sizeof path->name;
  if (size == 0)
    return;
  /* The name is copied, not printed: every new value spells its path. */
  n = n < size ? n : size - 1;
  memcpy(buf, path->name, n);
  buf[n] = '\0';
  for (size_t i = 0; i < end && i < path->count; ++i) {
    const amddwarf_debug_path_op *op = &path->ops[i];
    if (op->kind == AMDDWARF_DEBUG_PATH_DEREF || op->kind == AMDDWARF_DEBUG_PATH_ADDRESS) {
      snprintf(tmp, sizeof tmp, "%c%s", op->kind == AMDDWARF_DEBUG_PATH_DEREF ? '*' : '&', buf);
      prefix_last = 1;
    } else {
      char suffix[AMDDWARF_DEBUG_NAME_SIZE + 32];
      if (op->kind == AMDDWARF_DEBUG_PATH_INDEX)
        snprintf(suffix, sizeof suffix, "[%lld]", (long long)op->index);
      else
        snprintf(suffix, sizeof suffix, "%s%s",
                 op->kind == AMDDWARF_DEBUG_PATH_MEMBER ? "." : "->", op->name);
      /* Postfix operators bind tighter than prefix ones. */
      snprintf(tmp, sizeof tmp, prefix_last ? "(%s)%s" : "%s%s", buf, suffix);
      prefix_last = 0;
    }
    snprintf(buf, size, "%s", tmp);
  }
}
