/* Test helper: building CFI sections; see cfi_build.h. */
#include "cfi_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>


/* .debug_frame CIE version 4 (32-bit), address size 8; returns its offset.
   The instructions are INSNS (N bytes). */
size_t cfi_cie4(cfi_sec *s, uint64_t caf, int64_t daf, uint64_t ra, const uint8_t *insns, size_t n)
{
  size_t at = s->len;
  bb_uint(s, 0, 4);
  bb_uint(s, 0xffffffffu, 4);
  bb_u8(s, 4);
  bb_u8(s, 0); /* augmentation "" */
  bb_u8(s, 8);
  bb_u8(s, 0);
  bb_uleb(s, caf);
  bb_sleb(s, daf);
  bb_uleb(s, ra);
  bb_bytes(s, insns, n);
  bb_patch32(s, at, (uint32_t)(s->len - at - 4));
  return at;
}

size_t cfi_fde8(cfi_sec *s, size_t cie, uint64_t start, uint64_t range, const uint8_t *insns,
                   size_t n)
{
  size_t at = s->len;
  bb_uint(s, 0, 4);
  bb_uint(s, cie, 4);
  bb_uint(s, start, 8);
  bb_uint(s, range, 8);
  bb_bytes(s, insns, n);
  bb_patch32(s, at, (uint32_t)(s->len - at - 4));
  return at;
}

