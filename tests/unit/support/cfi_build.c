/* Test helper: building CFI sections; see cfi_build.h. */
#include "cfi_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>


void cfi_put(cfi_sec *s, const uint8_t *bytes, size_t n)
{
  assert_true(s->n + n <= sizeof s->b);
  if (n)
    memcpy(s->b + s->n, bytes, n);
  s->n += n;
}
void cfi_u8(cfi_sec *s, unsigned v)
{
  uint8_t b = (uint8_t)v;
  cfi_put(s, &b, 1);
}
void cfi_uN(cfi_sec *s, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    cfi_u8(s, (unsigned)(v >> (8 * i)) & 0xff);
}
void cfi_uleb(cfi_sec *s, uint64_t v)
{
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    cfi_u8(s, byte | (v ? 0x80 : 0));
  } while (v);
}
void cfi_sleb(cfi_sec *s, int64_t v)
{
  for (;;) {
    uint8_t byte = (uint8_t)(v & 0x7f);
    v >>= 7;
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
      cfi_u8(s, byte);
      return;
    }
    cfi_u8(s, byte | 0x80);
  }
}
void cfi_patch32(cfi_sec *s, size_t at, uint32_t v)
{
  for (unsigned i = 0; i < 4; i++)
    s->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* .debug_frame CIE version 4 (32-bit), address size 8; returns its offset.
   The instructions are INSNS (N bytes). */
size_t cfi_cie4(cfi_sec *s, uint64_t caf, int64_t daf, uint64_t ra, const uint8_t *insns, size_t n)
{
  size_t at = s->n;
  cfi_uN(s, 0, 4);
  cfi_uN(s, 0xffffffffu, 4);
  cfi_u8(s, 4);
  cfi_u8(s, 0); /* augmentation "" */
  cfi_u8(s, 8);
  cfi_u8(s, 0);
  cfi_uleb(s, caf);
  cfi_sleb(s, daf);
  cfi_uleb(s, ra);
  cfi_put(s, insns, n);
  cfi_patch32(s, at, (uint32_t)(s->n - at - 4));
  return at;
}

size_t cfi_fde8(cfi_sec *s, size_t cie, uint64_t start, uint64_t range, const uint8_t *insns,
                   size_t n)
{
  size_t at = s->n;
  cfi_uN(s, 0, 4);
  cfi_uN(s, cie, 4);
  cfi_uN(s, start, 8);
  cfi_uN(s, range, 8);
  cfi_put(s, insns, n);
  cfi_patch32(s, at, (uint32_t)(s->n - at - 4));
  return at;
}

