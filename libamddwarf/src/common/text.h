/* The library's one text builder, for its renderers (value text,
 * explanations, location, expression and type spellings, printf messages)
 * and writers (saved snapshots and stops). Two modes:
 *
 * - growable (amddwarf__text_init): a NUL-terminated text on the heap.
 *   Appending never fails the caller: a failed allocation, or growth past
 *   the text's limit (AMDDWARF_TEXT_MAX unless the caller sets max), marks
 *   the text truncated and later appends are dropped, so a caller checks
 *   once at the end (amddwarf__text_status).
 * - fixed (amddwarf__text_init_fixed): the caller's buffer, with snprintf's
 *   contract, for the API functions that take (buf, size). The buffer holds
 *   as much of the text as fits, always NUL-terminated when SIZE > 0, and
 *   len counts the length the whole text needs, so a caller can size a
 *   second call. */
#ifndef AMDDWARF_COMMON_TEXT_H
#define AMDDWARF_COMMON_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <amddwarf/allocator.h>
#include <amddwarf/status.h>

enum { AMDDWARF_TEXT_MAX = 16u << 20 };

/* The value of the hexadecimal digit CH (either case), or -1: the one
   reading of a hex digit, for the snapshot's byte strings, the expression
   assembler and %-escapes of code-object URIs. */
static inline int amddwarf__hex_digit(char ch)
{
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

typedef struct amddwarf_text {
  const amddwarf_allocator *allocator; /* NULL: malloc */
  char *data;                          /* NULL until something is appended */
  size_t len, cap;
  size_t max;                          /* longest text; 0: AMDDWARF_TEXT_MAX */
  int failed;                          /* an append was dropped or cut */
  int fixed;                           /* DATA is the caller's, CAP bytes */
} amddwarf_text;

/* An empty text using ALLOCATOR (may be NULL). */
void amddwarf__text_init(amddwarf_text *t, const amddwarf_allocator *allocator);
/* An empty text written into BUF of SIZE bytes (BUF may be NULL when SIZE
   is 0: only the length is counted). */
void amddwarf__text_init_fixed(amddwarf_text *t, char *buf, size_t size);
void amddwarf__text_printf(amddwarf_text *t, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void amddwarf__text_vprintf(amddwarf_text *t, const char *format, va_list ap);
/* Every append: N bytes of S, or N copies of CH when S is NULL. */
void amddwarf__text_write(amddwarf_text *t, const char *s, char ch, size_t n);

/* Inline when the bytes fit, as they nearly always do: the printf renderer
   appends a few characters at a time. */
static inline void amddwarf__text_append(amddwarf_text *t, const char *s, size_t n)
{
  if (!t->failed && t->len < t->cap && n < t->cap - t->len) {
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return;
  }
  amddwarf__text_write(t, s, 0, n);
}

static inline void amddwarf__text_puts(amddwarf_text *t, const char *s)
{
  amddwarf__text_append(t, s, strlen(s));
}

/* N copies of CH (padding). */
static inline void amddwarf__text_fill(amddwarf_text *t, char ch, size_t n)
{
  if (!t->failed && t->len < t->cap && n < t->cap - t->len) {
    memset(t->data + t->len, ch, n);
    t->len += n;
    t->data[t->len] = '\0';
    return;
  }
  amddwarf__text_write(t, NULL, ch, n);
}
/* V in decimal, as "%llu" and "%lld" print it, without printf: values are
   printed by the lane (a table of 64 lanes, a frame's locals). */
void amddwarf__text_uint(amddwarf_text *t, uint64_t v);
void amddwarf__text_int(amddwarf_text *t, int64_t v);
/* Empties T, keeping its buffer. */
void amddwarf__text_reset(amddwarf_text *t);
/* The text ("" when empty); valid until the next change of T. */
const char *amddwarf__text_str(const amddwarf_text *t);
/* AMDDWARF_OK; or, when an append was dropped, E_NO_MEMORY (growable) or
   E_NO_SPACE (fixed: the buffer holds a cut text). */
amddwarf_status amddwarf__text_status(const amddwarf_text *t);
/* Frees a growable text's buffer; a fixed text is left as it is. */
void amddwarf__text_free(amddwarf_text *t);
/* A growable text only. Hands the text over: *OUT (allocated with T's allocator, exactly *LENGTH
   + 1 bytes with the NUL) and *LENGTH; T is left empty. E_NO_MEMORY (and
   nothing handed over, T freed) when an append was dropped or the buffer
   cannot be trimmed. */
amddwarf_status amddwarf__text_take(amddwarf_text *t, char **out, size_t *length);

/* The Levenshtein distance (fewest single-byte insertions, deletions and
   substitutions) of A, its first A_LENGTH bytes, and the string B; LIMIT + 1
   when it is above LIMIT, or when either is longer than
   AMDDWARF_EDIT_DISTANCE_MAX bytes. The one measure of "the nearest name"
   for suggestions (function names, snapshot members). */
enum { AMDDWARF_EDIT_DISTANCE_MAX = 256 };
size_t amddwarf__edit_distance(const char *a, size_t a_length, const char *b, size_t limit);

#endif
