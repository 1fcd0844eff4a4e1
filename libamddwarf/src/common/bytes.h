/* Small byte moves that the hot paths make without a library call. */
#ifndef AMDDWARF_COMMON_BYTES_H
#define AMDDWARF_COMMON_BYTES_H

#include <stdint.h>
#include <string.h>

/* memcpy of N bytes, a dword and a qword inline: compilers make
   constant-size copies in place, where a call costs more than the copy. */
static inline void amddwarf__copy_small(void *dst, const void *src, uint64_t n)
{
  if (n == 4)
    memcpy(dst, src, 4);
  else if (n == 8)
    memcpy(dst, src, 8);
  else
    memcpy(dst, src, (size_t)n);
}

/* The 8 bytes at B as a little-endian number (one load: compilers know
   the pattern). */
static inline uint64_t amddwarf__load_le64(const uint8_t *b)
{
  return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
         (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
         (uint64_t)b[7] << 56;
}

#endif
