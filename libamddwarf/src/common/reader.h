/* Bounds-checked byte reader: every read of untrusted bytes goes through it.
 *
 * A failed read returns an error status and leaves the position unchanged, so
 * the caller can report the exact offset where the bad item starts. Reads are
 * little-endian unless BIG_ENDIAN is set (ELF files of big-endian targets,
 * byte-swapped SPIR-V).
 *
 * LEB128 rules: a 64-bit value needs at most 10 bytes; padding with 0x80
 * continuation bytes (`ab 80 80 00` is 0x2b) is accepted up to that length.
 * An encoding longer than 10 bytes is AMDDWARF_E_LEB_OVERLONG; a 10th byte
 * carrying bits beyond bit 63 (or, for SLEB, bits that disagree with the sign)
 * is AMDDWARF_E_LEB_OVERFLOW; running off the end is AMDDWARF_E_TRUNCATED. */
#ifndef AMDDWARF_COMMON_READER_H
#define AMDDWARF_COMMON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/status.h>

typedef struct amddwarf_reader {
  const uint8_t *data;
  size_t size;
  size_t pos;
  bool big_endian;
} amddwarf_reader;

enum { AMDDWARF_LEB128_MAX_BYTES = 10 };

static inline void amddwarf_reader_init(amddwarf_reader *r, const void *data, size_t size)
{
  r->data = (const uint8_t *)data;
  r->size = size;
  r->pos = 0;
  r->big_endian = false;
}

static inline size_t amddwarf_reader_remaining(const amddwarf_reader *r)
{
  return r->size - r->pos;
}

static inline bool amddwarf_reader_at_end(const amddwarf_reader *r)
{
  return r->pos >= r->size;
}

static inline amddwarf_status amddwarf_read_u8(amddwarf_reader *r, uint8_t *out)
{
  if (r->pos >= r->size)
    return AMDDWARF_E_TRUNCATED;
  *out = r->data[r->pos++];
  return AMDDWARF_OK;
}

/* Reads an unsigned integer of SIZE bytes (1 to 8). */
amddwarf_status amddwarf__read_uint(amddwarf_reader *r, unsigned size, uint64_t *out);
/* Reads a two's-complement integer of SIZE bytes (1 to 8), sign-extended. */
amddwarf_status amddwarf__read_sint(amddwarf_reader *r, unsigned size, int64_t *out);

amddwarf_status amddwarf__read_u16(amddwarf_reader *r, uint16_t *out);
amddwarf_status amddwarf__read_u32(amddwarf_reader *r, uint32_t *out);
amddwarf_status amddwarf__read_u64(amddwarf_reader *r, uint64_t *out);

amddwarf_status amddwarf__read_uleb_slow(amddwarf_reader *r, uint64_t *out);
amddwarf_status amddwarf__read_sleb(amddwarf_reader *r, int64_t *out);

/* ULEB128; the one-byte case, most operands, is inline. */
static inline amddwarf_status amddwarf_read_uleb(amddwarf_reader *r, uint64_t *out)
{
  if (r->pos < r->size && r->data[r->pos] < 0x80) {
    *out = r->data[r->pos++];
    return AMDDWARF_OK;
  }
  return amddwarf__read_uleb_slow(r, out);
}

/* Points *OUT at the next LENGTH bytes (inside the reader's buffer) and skips them. */
amddwarf_status amddwarf__read_bytes(amddwarf_reader *r, uint64_t length, const uint8_t **out);

/* Reads a NUL-terminated string; *OUT points into the buffer, *LENGTH excludes
   the NUL. A string without its NUL is AMDDWARF_E_TRUNCATED. LENGTH may be NULL. */
amddwarf_status amddwarf__read_cstr(amddwarf_reader *r, const char **out, size_t *length);

amddwarf_status amddwarf__reader_skip(amddwarf_reader *r, uint64_t length);

/* Decodes a LEB128 value from a plain buffer; for callers outside a reader.
   *CONSUMED receives the encoded length. */
amddwarf_status amddwarf__decode_uleb(const uint8_t *data, size_t size, uint64_t *out,
                                     size_t *consumed);
amddwarf_status amddwarf__decode_sleb(const uint8_t *data, size_t size, int64_t *out,
                                     size_t *consumed);

/* Encodes VALUE into OUT (room for AMDDWARF_LEB128_MAX_BYTES); returns its length. */
size_t amddwarf__encode_uleb(uint64_t value, uint8_t *out);
size_t amddwarf__encode_sleb(int64_t value, uint8_t *out);

#endif
