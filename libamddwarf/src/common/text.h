/* A growable NUL-terminated text, for the library's renderers (value text,
 * explanations, location spellings). Appending never fails the caller: a
 * failed allocation, or growth past AMDDWARF_TEXT_MAX bytes, marks the text
 * truncated and later appends are dropped, so a caller checks once at the
 * end (amddwarf_text_status). */
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
  int failed;                          /* an append was dropped */
} amddwarf_text;

/* An empty text using ALLOCATOR (may be NULL). */
void amddwarf_text_init(amddwarf_text *t, const amddwarf_allocator *allocator);
void amddwarf_text_printf(amddwarf_text *t, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void amddwarf_text_vprintf(amddwarf_text *t, const char *format, va_list ap);
void amddwarf_text_append(amddwarf_text *t, const char *s, size_t n);
/* Empties T, keeping its buffer. */
void amddwarf_text_reset(amddwarf_text *t);
/* The text ("" when empty); valid until the next change of T. */
const char *amddwarf_text_str(const amddwarf_text *t);
/* AMDDWARF_OK, or E_NO_MEMORY when an append was dropped. */
amddwarf_status amddwarf_text_status(const amddwarf_text *t);
void amddwarf_text_free(amddwarf_text *t);

#endif
