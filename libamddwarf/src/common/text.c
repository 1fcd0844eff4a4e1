/* Growable text (text.h). */
#include "common/text.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"

void amddwarf__text_init(amddwarf_text *t, const amddwarf_allocator *allocator)
{
  memset(t, 0, sizeof *t);
  t->allocator = allocator;
}

/* Makes room for N more bytes and the NUL; 0, or -1 (T marked failed). */
static int reserve(amddwarf_text *t, size_t n)
{
  if (t->failed)
    return -1;
  size_t max = t->max ? t->max : AMDDWARF_TEXT_MAX;
  if (n >= max || t->len + n + 1 > max) {
    t->failed = 1;
    return -1;
  }
  if (t->len + n + 1 <= t->cap)
    return 0;
  size_t cap = t->cap ? t->cap : 64;
  while (cap < t->len + n + 1)
    cap = cap > max / 2 ? max : cap * 2;
  amddwarf_allocator a = amddwarf__allocator_resolve(t->allocator);
  char *data = amddwarf__mem_realloc(&a, t->data, t->cap, cap);
  if (data == NULL) {
    t->failed = 1;
    return -1;
  }
  t->data = data;
  t->cap = cap;
  return 0;
}

void amddwarf__text_append(amddwarf_text *t, const char *s, size_t n)
{
  if (reserve(t, n) != 0)
    return;
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

void amddwarf__text_vprintf(amddwarf_text *t, const char *format, va_list ap)
{
  char small[256];
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  if (n < 0) {
    t->failed = 1;
    return;
  }
  if ((size_t)n < sizeof small) {
    amddwarf__text_append(t, small, (size_t)n);
    return;
  }
  if (reserve(t, (size_t)n) != 0)
    return;
  vsnprintf(t->data + t->len, (size_t)n + 1, format, ap);
  t->len += (size_t)n;
}

void amddwarf__text_printf(amddwarf_text *t, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  amddwarf__text_vprintf(t, format, ap);
  va_end(ap);
}

void amddwarf__text_reset(amddwarf_text *t)
{
  t->len = 0;
  t->failed = 0;
  if (t->data)
    t->data[0] = '\0';
}

const char *amddwarf__text_str(const amddwarf_text *t)
{
  return t->data ? t->data : "";
}

amddwarf_status amddwarf__text_status(const amddwarf_text *t)
{
  return t->failed ? AMDDWARF_E_NO_MEMORY : AMDDWARF_OK;
}

void amddwarf__text_free(amddwarf_text *t)
{
  amddwarf_allocator a = amddwarf__allocator_resolve(t->allocator);
  amddwarf__mem_free(&a, t->data, t->cap);
  t->data = NULL;
  t->len = t->cap = 0;
}

amddwarf_status amddwarf__text_take(amddwarf_text *t, char **out, size_t *length)
{
  *out = NULL;
  *length = 0;
  amddwarf_allocator a = amddwarf__allocator_resolve(t->allocator);
  char *data = t->failed ? NULL : amddwarf__mem_realloc(&a, t->data, t->cap, t->len + 1);
  if (data == NULL && !t->failed && t->data == NULL)
    data = amddwarf__mem_alloc(&a, 1); /* nothing appended: "" */
  if (data == NULL) {
    amddwarf__text_free(t);
    return AMDDWARF_E_NO_MEMORY;
  }
  data[t->len] = '\0';
  *out = data;
  *length = t->len;
  t->data = NULL;
  t->len = t->cap = 0;
  return AMDDWARF_OK;
}
