/* Checked integer arithmetic. Each function stores the result in *OUT and
 * returns true when the exact result does not fit (nothing is stored then). */
#ifndef AMDDWARF_COMMON_CHECKED_H
#define AMDDWARF_COMMON_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool amddwarf_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
  if (a > UINT64_MAX - b)
    return true;
  *out = a + b;
  return false;
}

static inline bool amddwarf_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
  if (a != 0 && b > UINT64_MAX / a)
    return true;
  *out = a * b;
  return false;
}

static inline bool amddwarf_add_overflow_size(size_t a, size_t b, size_t *out)
{
  if (a > SIZE_MAX - b)
    return true;
  *out = a + b;
  return false;
}

static inline bool amddwarf_mul_overflow_size(size_t a, size_t b, size_t *out)
{
  if (a != 0 && b > SIZE_MAX / a)
    return true;
  *out = a * b;
  return false;
}

/* Signed 64-bit addition without undefined behaviour. */
static inline bool amddwarf_add_overflow_i64(int64_t a, int64_t b, int64_t *out)
{
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
    return true;
  *out = a + b;
  return false;
}

/* True when [OFFSET, OFFSET + LENGTH) lies inside a region of SIZE bytes. */
static inline bool amddwarf_range_fits(uint64_t offset, uint64_t length, uint64_t size)
{
  return offset <= size && length <= size - offset;
}

#endif
