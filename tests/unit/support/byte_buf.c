/* Test helper: byte buffer; see byte_buf.h. */
#include "byte_buf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

void bb_bytes(byte_buf *b, const void *bytes, size_t n)
{
  assert_true(n <= sizeof b->data - b->len);
  if (n)
    memcpy(b->data + b->len, bytes, n);
  b->len += n;
}

void bb_u8(byte_buf *b, uint64_t v)
{
  uint8_t byte = (uint8_t)v;
  bb_bytes(b, &byte, 1);
}

void bb_uint(byte_buf *b, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; ++i)
    bb_u8(b, i < 8 ? v >> (8 * i) : 0);
}

void bb_uleb(byte_buf *b, uint64_t v)
{
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    bb_u8(b, byte | (v ? 0x80 : 0));
  } while (v);
}

void bb_sleb(byte_buf *b, int64_t v)
{
  for (;;) {
    uint8_t byte = (uint8_t)(v & 0x7f);
    v >>= 7;
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
      bb_u8(b, byte);
      return;
    }
    bb_u8(b, byte | 0x80);
  }
}

void bb_str(byte_buf *b, const char *s)
{
  bb_bytes(b, s, strlen(s) + 1);
}

void bb_patch32(byte_buf *b, size_t at, uint32_t v)
{
  assert_true(at + 4 <= b->len);
  for (unsigned i = 0; i < 4; ++i)
    b->data[at + i] = (uint8_t)(v >> (8 * i));
}

size_t bb_length_begin(byte_buf *b)
{
  size_t at = b->len;
  bb_uint(b, 0, 4);
  return at;
}

void bb_length_end(byte_buf *b, size_t at)
{
  bb_patch32(b, at, (uint32_t)(b->len - at - 4));
}
