/* A growable byte buffer; see text_buf.h. */
#include "text_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int text_buf_reserve(text_buf *b, size_t n)
{
  if (n < b->cap - b->len)
    return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (n >= cap - b->len) {
    if (cap > SIZE_MAX / 2)
      return -1;
    cap *= 2;
  }
  char *grown = realloc(b->data, cap);
  if (grown == NULL)
    return -1;
  b->data = grown;
  b->cap = cap;
  return 0;
}

int text_buf_append(text_buf *b, const void *bytes, size_t n)
{
  if (text_buf_reserve(b, n) != 0)
    return -1;
  if (n > 0)
    memcpy(b->data + b->len, bytes, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

int text_buf_printf(text_buf *b, const char *format, ...)
{
  va_list ap;
  for (;;) { /* at most twice: the room the first try measured is made */
    size_t room = b->cap - b->len;
    va_start(ap, format);
    int n = vsnprintf(b->data ? b->data + b->len : NULL, room, format, ap);
    va_end(ap);
    if (n < 0)
      return -1;
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return 0;
    }
    if (text_buf_reserve(b, (size_t)n) != 0) {
      if (b->data != NULL)
        b->data[b->len] = '\0'; /* over what the short try wrote */
      return -1;
    }
  }
}

void text_buf_consume(text_buf *b, size_t n)
{
  memmove(b->data, b->data + n, b->len - n);
  b->len -= n;
}

void text_buf_free(text_buf *b)
{
  free(b->data);
  memset(b, 0, sizeof *b);
}
