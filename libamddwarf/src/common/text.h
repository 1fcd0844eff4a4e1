/* A growable NUL-terminated text, for the library's renderers (value text,
 * explanations, location spellings) and writers (saved snapshots).
 * Appending never fails the caller: a failed allocation, or growth past the
 * text's limit (AMDDWARF_TEXT_MAX unless the caller sets max), marks the text
 * truncated and later appends are dropped, so a caller checks once at the
 * end (amddwarf__text_status). */
#ifndef AMDDWARF_COMMON_TEXT_H
#define AMDDWARF_COMMON_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <amddwarf/allocator.h>
#include <amddwarf/status.h>

enum { AMDDWARF_TEXT_MAX = 16u << 20 };

typedef struct amddwarf_text {
  const amddwarf_allocator *allocator; /* NULL: malloc */
  char *data;                          /* NULL until something is appended */
  size_t len, cap;
  size_t max;                          /* longest text; 0: AMDDWARF_TEXT_MAX */
  int failed;                          /* an append was dropped */
} amddwarf_text;

/* An empty text using ALLOCATOR (may be NULL). */
void amddwarf__text_init(amddwarf_text *t, const amddwarf_allocator *allocator);
void amddwarf__text_printf(amddwarf_text *t, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void amddwarf__text_vprintf(amddwarf_text *t, const char *format, va_list ap);
void amddwarf__text_append(amddwarf_text *t, const char *s, size_t n);
/* Empties T, keeping its buffer. */
void amddwarf__text_reset(amddwarf_text *t);
/* The text ("" when empty); valid until the next change of T. */
const char *amddwarf__text_str(const amddwarf_text *t);
/* AMDDWARF_OK, or E_NO_MEMORY when an append was dropped. */
amddwarf_status amddwarf__text_status(const amddwarf_text *t);
void amddwarf__text_free(amddwarf_text *t);
/* Hands the text over: *OUT (allocated with T's allocator, exactly *LENGTH
   + 1 bytes with the NUL) and *LENGTH; T is left empty. E_NO_MEMORY (and
   nothing handed over, T freed) when an append was dropped or the buffer
   cannot be trimmed. */
amddwarf_status amddwarf__text_take(amddwarf_text *t, char **out, size_t *length);

#endif
