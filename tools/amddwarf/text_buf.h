/* A growable byte buffer, NUL-terminated once anything was written: the
 * text of a CLI line, of a DAP message, or the bytes the DAP reader has not
 * consumed yet. Depends on the C library only (the DAP fuzz target links it
 * without the rest of the CLI). */
#ifndef AMDDWARF_TEXT_BUF_H
#define AMDDWARF_TEXT_BUF_H

#include <stddef.h>

typedef struct text_buf {
  char *data;
  size_t len, cap;
} text_buf;

/* Makes room for N more bytes and the NUL after them. Returns 0, or -1
   when out of memory (B unchanged). */
int text_buf_reserve(text_buf *b, size_t n);
/* Appends N bytes. Returns 0 or -1 (nothing appended). */
int text_buf_append(text_buf *b, const void *bytes, size_t n);
/* Appends the printf text. Returns 0 or -1 (nothing appended). */
int text_buf_printf(text_buf *b, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Drops the first N bytes. */
void text_buf_consume(text_buf *b, size_t n);
void text_buf_free(text_buf *b);

#endif
