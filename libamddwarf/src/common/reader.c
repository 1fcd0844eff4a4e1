/* Bounds-checked reader; see reader.h for the LEB128 rules. */
#include <string.h>

#include "common/reader.h"

amddwarf_status amddwarf__read_uint(amddwarf_reader *r, unsigned size, uint64_t *out)
{
  if (size == 0 || size > 8)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (amddwarf_reader_remaining(r) < size)
    return AMDDWARF_E_TRUNCATED;
  const uint8_t *p = r->data + r->pos;
  uint64_t value = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* The common sizes of a little-endian section on a little-endian host in
     one load each (the FDE index of a big object reads several per entry). */
  if (!r->big_endian && size == 4) {
    uint32_t v32;
    memcpy(&v32, p, 4);
    value = v32;
  } else if (!r->big_endian && size == 8) {
    memcpy(&value, p, 8);
  } else
#endif
  {
    for (unsigned i = 0; i < size; i++) {
      unsigned byte_index = r->big_endian ? i : size - 1 - i;
      value = (value << 8) | p[byte_index];
    }
  }
  r->pos += size;
  *out = value;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__read_sint(amddwarf_reader *r, unsigned size, int64_t *out)
{
  uint64_t raw;
  amddwarf_status st = amddwarf__read_uint(r, size, &raw);
  if (st != AMDDWARF_OK)
    return st;
  if (size < 8) {
    uint64_t sign = UINT64_C(1) << (size * 8 - 1);
    raw = (raw ^ sign) - sign;
  }
  /* Conversion through memcpy-free two's-complement: well defined for the
     range of int64_t since raw holds a sign-extended bit pattern. */
  *out = raw > INT64_MAX ? -(int64_t)(~raw) - 1 : (int64_t)raw;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__read_u16(amddwarf_reader *r, uint16_t *out)
{
  uint64_t v;
  amddwarf_status st = amddwarf__read_uint(r, 2, &v);
  if (st == AMDDWARF_OK)
    *out = (uint16_t)v;
  return st;
}

amddwarf_status amddwarf__read_u32(amddwarf_reader *r, uint32_t *out)
{
  uint64_t v;
  amddwarf_status st = amddwarf__read_uint(r, 4, &v);
  if (st == AMDDWARF_OK)
    *out = (uint32_t)v;
  return st;
}

amddwarf_status amddwarf__read_u64(amddwarf_reader *r, uint64_t *out)
{
  return amddwarf__read_uint(r, 8, out);
}

amddwarf_status amddwarf__decode_uleb(const uint8_t *data, size_t size, uint64_t *out,
                                     size_t *consumed)
{
  uint64_t value = 0;
  for (size_t i = 0;; i++) {
    if (i >= AMDDWARF_LEB128_MAX_BYTES)
      return AMDDWARF_E_LEB_OVERLONG;
    if (i >= size)
      return AMDDWARF_E_TRUNCATED;
    uint8_t byte = data[i];
    uint64_t payload = byte & 0x7f;
    /* The 10th byte holds bit 63 only. */
    if (i == AMDDWARF_LEB128_MAX_BYTES - 1 && payload > 1)
      return AMDDWARF_E_LEB_OVERFLOW;
    value |= payload << (7 * i);
    if (!(byte & 0x80)) {
      *out = value;
      *consumed = i + 1;
      return AMDDWARF_OK;
    }
  }
}

amddwarf_status amddwarf__decode_sleb(const uint8_t *data, size_t size, int64_t *out,
                                     size_t *consumed)
{
  uint64_t value = 0;
  for (size_t i = 0;; i++) {
    if (i >= AMDDWARF_LEB128_MAX_BYTES)
      return AMDDWARF_E_LEB_OVERLONG;
    if (i >= size)
      return AMDDWARF_E_TRUNCATED;
    uint8_t byte = data[i];
    uint64_t payload = byte & 0x7f;
    unsigned shift = 7 * (unsigned)i;
    /* The 10th byte holds bit 63; its other bits must repeat the sign. */
    if (i == AMDDWARF_LEB128_MAX_BYTES - 1 && payload != 0 && payload != 0x7f)
      return AMDDWARF_E_LEB_OVERFLOW;
    value |= payload << shift;
    if (!(byte & 0x80)) {
      shift += 7;
      if (shift < 64 && (payload & 0x40))
        value |= ~UINT64_C(0) << shift;
      *out = value > INT64_MAX ? -(int64_t)(~value) - 1 : (int64_t)value;
      *consumed = i + 1;
      return AMDDWARF_OK;
    }
  }
}

amddwarf_status amddwarf__read_uleb_slow(amddwarf_reader *r, uint64_t *out)
{
  size_t consumed;
  amddwarf_status st =
      amddwarf__decode_uleb(r->data + r->pos, amddwarf_reader_remaining(r), out, &consumed);
  if (st == AMDDWARF_OK)
    r->pos += consumed;
  return st;
}

amddwarf_status amddwarf__read_sleb(amddwarf_reader *r, int64_t *out)
{
  size_t consumed;
  amddwarf_status st =
      amddwarf__decode_sleb(r->data + r->pos, amddwarf_reader_remaining(r), out, &consumed);
  if (st == AMDDWARF_OK)
    r->pos += consumed;
  return st;
}

amddwarf_status amddwarf__read_bytes(amddwarf_reader *r, uint64_t length, const uint8_t **out)
{
  if (length > amddwarf_reader_remaining(r))
    return AMDDWARF_E_TRUNCATED;
  *out = r->data + r->pos;
  r->pos += (size_t)length;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__read_cstr(amddwarf_reader *r, const char **out, size_t *length)
{
  for (size_t i = r->pos; i < r->size; i++) {
    if (r->data[i] == 0) {
      *out = (const char *)(r->data + r->pos);
      if (length)
        *length = i - r->pos;
      r->pos = i + 1;
      return AMDDWARF_OK;
    }
  }
  return AMDDWARF_E_TRUNCATED;
}

amddwarf_status amddwarf__reader_skip(amddwarf_reader *r, uint64_t length)
{
  if (length > amddwarf_reader_remaining(r))
    return AMDDWARF_E_TRUNCATED;
  r->pos += (size_t)length;
  return AMDDWARF_OK;
}

size_t amddwarf__encode_uleb(uint64_t value, uint8_t *out)
{
  size_t n = 0;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out[n++] = value ? (uint8_t)(byte | 0x80) : byte;
  } while (value);
  return n;
}

size_t amddwarf__encode_sleb(int64_t value, uint8_t *out)
{
  size_t n = 0;
  for (;;) {
    uint8_t byte = (uint8_t)((uint64_t)value & 0x7f);
    /* Arithmetic shift written portably: floor division by 128. */
    value = value >= 0 ? value / 128 : -((-(value + 1)) / 128) - 1;
    bool done = (value == 0 && !(byte & 0x40)) || (value == -1 && (byte & 0x40));
    out[n++] = done ? byte : (uint8_t)(byte | 0x80);
    if (done)
      return n;
  }
}
