/* The text builder (text.h). */
#include "common/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

void amddwarf__text_init(amddwarf_text *t, const amddwarf_allocator *allocator)
{
  memset(t, 0, sizeof *t);
  t->allocator = allocator;
}

void amddwarf__text_init_fixed(amddwarf_text *t, char *buf, size_t size)
{
  memset(t, 0, sizeof *t);
  t->fixed = 1;
  t->data = size ? buf : NULL;
  t->cap = t->data ? size : 0;
  if (t->cap)
    t->data[0] = '\0';
}

/* Fixed mode: the bytes that still fit before the NUL. Once a write was cut,
   LEN is past CAP and nothing fits. */
static size_t fixed_room(const amddwarf_text *t)
{
  return t->len < t->cap ? t->cap - 1 - t->len : 0;
}

/* Fixed mode: counts N more bytes of the whole text's length. */
static void fixed_count(amddwarf_text *t, size_t n)
{
  t->len = n > SIZE_MAX - t->len ? SIZE_MAX : t->len + n;
}

/* Fixed mode: N bytes of S, or N copies of CH when S is NULL. */
static void fixed_write(amddwarf_text *t, const char *s, char ch, size_t n)
{
  size_t room = fixed_room(t);
  size_t fits = n < room ? n : room;
  if (t->len < t->cap) {
    if (s)
      memcpy(t->data + t->len, s, fits);
    else
      memset(t->data + t->len, ch, fits);
    t->data[t->len + fits] = '\0';
  }
  if (fits < n)
    t->failed = 1;
  fixed_count(t, n);
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
  /* CAP never exceeds MAX, so an append that fits in CAP is within the
     limit: the inline appends of text.h rely on that. */
  size_t cap = t->cap ? t->cap : (max < 64 ? max : 64);
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

void amddwarf__text_write(amddwarf_text *t, const char *s, char ch, size_t n)
{
  if (t->fixed) {
    fixed_write(t, s, ch, n);
    return;
  }
  if (reserve(t, n) != 0)
    return;
  if (s)
    memcpy(t->data + t->len, s, n);
  else
    memset(t->data + t->len, ch, n);
  t->len += n;
  t->data[t->len] = '\0';
}

/* Fixed mode: vsnprintf straight into what is left of the buffer. */
static void fixed_vprintf(amddwarf_text *t, const char *format, va_list ap)
{
  size_t room = fixed_room(t);
  char *at = t->len < t->cap ? t->data + t->len : NULL;
  int n = vsnprintf(at, at ? room + 1 : 0, format, ap);
  if (n < 0) {
    t->failed = 1;
    return;
  }
  if ((size_t)n > room)
    t->failed = 1;
  fixed_count(t, (size_t)n);
}

void amddwarf__text_vprintf(amddwarf_text *t, const char *format, va_list ap)
{
  if (t->fixed) {
    fixed_vprintf(t, format, ap);
    return;
  }
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

void amddwarf__text_uint(amddwarf_text *t, uint64_t v)
{
  char digits[20];
  size_t n = sizeof digits;
  do {
    digits[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  amddwarf__text_append(t, digits + n, sizeof digits - n);
}

void amddwarf__text_int(amddwarf_text *t, int64_t v)
{
  if (v < 0)
    amddwarf__text_append(t, "-", 1);
  /* The magnitude in unsigned arithmetic: -INT64_MIN does not fit. */
  amddwarf__text_uint(t, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
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
  if (!t->failed)
    return AMDDWARF_OK;
  return t->fixed ? AMDDWARF_E_NO_SPACE : AMDDWARF_E_NO_MEMORY;
}

void amddwarf__text_free(amddwarf_text *t)
{
  if (t->fixed)
    return;
  amddwarf_allocator a = amddwarf__allocator_resolve(t->allocator);
  amddwarf__mem_free(&a, t->data, t->cap);
  t->data = NULL;
  t->len = t->cap = 0;
}

amddwarf_status amddwarf__text_take(amddwarf_text *t, char **out, size_t *length)
{
  *out = NULL;
  *length = 0;
  if (t->fixed)
    return AMDDWARF_E_INVALID_ARGUMENT;
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

size_t amddwarf__edit_distance(const char *a, size_t a_length, const char *b, size_t limit)
{
  size_t b_length = strlen(b);
  if (a_length > AMDDWARF_EDIT_DISTANCE_MAX || b_length > AMDDWARF_EDIT_DISTANCE_MAX)
    return limit + 1;
  if ((a_length > b_length ? a_length - b_length : b_length - a_length) > limit)
    return limit + 1;
  /* One row of the distance matrix; each row's least entry bounds the
     final distance from below, so a row above LIMIT ends the search. */
  size_t row[AMDDWARF_EDIT_DISTANCE_MAX + 1];
  for (size_t j = 0; j <= b_length; ++j)
    row[j] = j;
  for (size_t i = 1; i <= a_length; ++i) {
    size_t diagonal = row[0], best = i;
    row[0] = i;
    for (size_t j = 1; j <= b_length; ++j) {
      size_t up = row[j];
      size_t cost = diagonal + (a[i - 1] != b[j - 1]);
      size_t del = up + 1, ins = row[j - 1] + 1;
      row[j] = cost < del ? (cost < ins ? cost : ins) : (del < ins ? del : ins);
      best = row[j] < best ? row[j] : best;
      diagonal = up;
    }
    if (best > limit)
      return limit + 1;
  }
  return row[b_length];
}
