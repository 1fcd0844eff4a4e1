/* The rules of storage that every evaluation path applies, each written
 * once: the general machine (location.c, access.c, ops_*.c), the one-lane
 * fast path (fast.c) and the whole-wave evaluator (lanes.c, lane by lane
 * for its checks) ask these and restate none of them (specs/evaluator.md,
 * "One owner per rule"). Inline: the fast paths ask them once per step. */
#ifndef AMDDWARF_EXPR_RULES_H
#define AMDDWARF_EXPR_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/checked.h"

static inline uint64_t bits_mask(uint32_t bits)
{
  return bits >= 64 ? UINT64_MAX : ((UINT64_C(1) << bits) - 1);
}

/* What the rules need of a storage (amddwarf__loc_storage_size). */
typedef struct storage_size {
  bool memory;           /* size counted in bytes: LAST_BYTE */
  uint64_t last_byte;    /* memory: highest valid address */
  uint64_t bits;         /* non-memory: size in bits */
  bool unbounded;        /* undefined storage */
} storage_size;

/* The address-space mask: an address of a space of ADDRESS_BYTES-byte
   addresses keeps its low 8 * ADDRESS_BYTES bits (form_aspace_address,
   aspace_bregx, xderef), and the space's last byte is that mask. */
static inline uint64_t rule_address_mask(unsigned address_bytes)
{
  return bits_mask(8 * address_bytes);
}

/* A register's value VALUE plus OFFSET as an address in a space of
   ADDRESS_BYTES-byte addresses (the breg family): modulo the address size,
   so OFFSET 2^64 - N is N bytes below. */
static inline uint64_t rule_register_address(uint64_t value, uint64_t offset,
                                             unsigned address_bytes)
{
  return (value + offset) & rule_address_mask(address_bytes);
}

/* The storage of a memory space of ADDRESS_BYTES-byte addresses. */
static inline storage_size memory_storage(unsigned address_bytes)
{
  storage_size s = {.memory = true, .last_byte = rule_address_mask(address_bytes)};
  return s;
}

/* The storage of a register (or other sized storage) of BYTES bytes. */
static inline storage_size sized_storage(uint64_t bits)
{
  storage_size s = {.bits = bits};
  return s;
}

/* Fits, whole bytes of memory: N bytes at address BYTE of a space whose
   last address is LAST (they may not wrap around). */
static inline bool rule_memory_bytes_fit(uint64_t last, uint64_t byte, uint64_t n)
{
  return n == 0 || (byte + (n - 1) >= byte && byte + (n - 1) <= last);
}

/* Fits, whole bytes of a storage of SIZE bytes (a register). */
static inline bool rule_sized_bytes_fit(uint64_t size, uint64_t byte, uint64_t n)
{
  return byte <= size && n <= size - byte;
}

/* Fits: BITS bits from bit BIT of byte BYTE lie inside storage S (a read,
   a write, a composite part); the cases of whole bytes above are this rule
   at bit 0. Undefined storage holds anything. */
static inline __attribute__((always_inline)) bool rule_fits(const storage_size *s, uint64_t byte, unsigned bit, uint64_t bits)
{
  if (s->unbounded || bits == 0)
    return true;
  if (s->memory) /* the byte of the last bit */
    return rule_memory_bytes_fit(s->last_byte, byte,
                                 (bits - 1) / 8 + ((bits - 1) % 8 + bit) / 8 + 1);
  if (byte > (UINT64_MAX >> 3))
    return false;
  uint64_t offset = byte * 8 + bit;
  return offset <= s->bits && bits <= s->bits - offset;
}

/* Fits, a run of parts (select_bit_piece): parts FIRST..END-1 of BITS
   bits, part N at bit N * BITS past bit BIT of byte BYTE, lie in storage
   S. Parts further in end further in, so the run lies in S when its last
   bit does. */
static inline __attribute__((always_inline)) bool
rule_parts_fit(const storage_size *s, uint64_t byte, unsigned bit, uint64_t bits, uint64_t first,
               uint64_t end)
{
  uint64_t skip, run, at;
  if (amddwarf_mul_overflow_u64(first, bits, &skip) ||
      amddwarf_mul_overflow_u64(end - first, bits, &run) ||
      amddwarf_add_overflow_u64(skip, bit, &skip) ||
      amddwarf_add_overflow_u64(byte, skip / 8, &at))
    return false;
  return rule_fits(s, at, (unsigned)(skip % 8), run);
}

/* The END of the run rule_parts_fit checks for select_bit_piece's source
   SOURCE (0 or 1) under MASK of COUNT (at most 64) parts: one past the last
   part it gives, 0 when none. */
static inline uint64_t rule_select_end(uint64_t mask, uint32_t count, unsigned source)
{
  uint64_t taken = (source ? mask : ~mask) & bits_mask(count);
  return taken ? 64u - (unsigned)__builtin_clzll(taken) : 0;
}

/* Move, the arithmetic: byte offset BYTE moved by DELTA bytes into *MOVED;
   false when it passes 0 or 2^64. */
static inline bool rule_moved_byte(uint64_t byte, int64_t delta, uint64_t *moved)
{
  if (delta >= 0)
    return !amddwarf_add_overflow_u64(byte, (uint64_t)delta, moved);
  uint64_t down = (uint64_t)(-(delta + 1)) + 1;
  if (byte < down)
    return false;
  *moved = byte - down;
  return true;
}

/* Move, the bound: a location moved to bit BIT of byte BYTE stays inside
   storage S (it may point at its last bit, not past it). */
static inline bool rule_inside(const storage_size *s, uint64_t byte, unsigned bit)
{
  if (s->unbounded)
    return true;
  if (s->memory)
    return byte <= s->last_byte;
  return s->bits > bit && byte <= (s->bits - 1 - bit) / 8; /* byte * 8 + bit < bits */
}

/* The bound at bit 0 of a storage of SIZE bytes (a register). */
static inline bool rule_inside_sized_bytes(uint64_t size, uint64_t byte)
{
  return byte < size;
}

/* Move, whole bytes: byte offset BYTE (bit 0) of storage S moved by DELTA
   bytes, into *MOVED (set only when true); undefined storage does not
   move. */
static inline bool rule_move_bytes(const storage_size *s, uint64_t byte, int64_t delta,
                                   uint64_t *moved)
{
  uint64_t to = byte;
  if (!s->unbounded && (!rule_moved_byte(byte, delta, &to) || !rule_inside(s, to, 0)))
    return false;
  *moved = to;
  return true;
}

/* Move, storage counted in bits: DELTA bytes as *BITS, false when that
   is not a 64-bit number of bits (memory moves by bytes, and need not). */
static inline bool rule_bytes_as_bits(int64_t delta, int64_t *bits)
{
  if (delta > INT64_MAX / 8 || delta < INT64_MIN / 8)
    return false;
  *bits = delta * 8;
  return true;
}

/* Sign extension: X as a two's-complement number of BITS bits. */
static inline int64_t rule_sign_extend(uint64_t x, uint32_t bits)
{
  if (bits - 1u < 63u && (x >> (bits - 1)) & 1) /* 0 < bits < 64 */
    x |= ~bits_mask(bits);
  return (int64_t)x;
}

#endif
