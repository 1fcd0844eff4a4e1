/* Reading and writing any number of bits at any bit offset through any
 * location description: registers and memory through the target, implicit
 * bytes directly, composites part by part. Writes are all-or-nothing. */
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "expr/eval_internal.h"
#include "expr/machine_rules.h"

/* Bytes moved through the target per call when a leaf is large. */
enum { CHUNK_BYTES = 256 };

void amddwarf__copy_bits(uint8_t *dst, uint64_t dst_bit, const uint8_t *src, uint64_t src_bit, uint64_t n)
{
  if (n == 0)
    return;
  if (dst_bit % 8 == 0 && src_bit % 8 == 0) {
    uint64_t whole = n / 8;
    memcpy(dst + dst_bit / 8, src + src_bit / 8, (size_t)whole);
    dst_bit += whole * 8;
    src_bit += whole * 8;
    n -= whole * 8;
    if (n == 0)
      return;
    uint8_t mask = (uint8_t)((1u << n) - 1);
    uint8_t *d = dst + dst_bit / 8;
    *d = (uint8_t)((*d & ~mask) | (src[src_bit / 8] & mask));
    return;
  }
  for (uint64_t i = 0; i < n; i++) {
    uint64_t s = src_bit + i, d = dst_bit + i;
    uint8_t bit = (uint8_t)((src[s / 8] >> (s % 8)) & 1);
    dst[d / 8] = (uint8_t)((dst[d / 8] & ~(1u << (d % 8))) | (unsigned)(bit << (d % 8)));
  }
}

/* One leaf access: a non-composite location, a start bit relative to it and a size. */
typedef struct leaf_span {
  amddwarf_location loc;  /* offset already advanced to the first bit */
  uint64_t bits;
  uint64_t src_bit;       /* bit position in the caller's buffer */
} leaf_span;

/* *AT: leaf LOC moved forward by BIT_OFFSET bits. */
static amddwarf_status leaf_at(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                               amddwarf_location *at)
{
  *at = *loc;
  if (!amddwarf__loc_forward(at, bit_offset))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OUT_OF_BOUNDS, "bit offset wraps around");
  return AMDDWARF_OK;
}

/* Checks that BITS bits at LOC (non-composite) lie in its storage. */
static amddwarf_status check_bounds(machine *m, const amddwarf_location *loc, uint64_t bits)
{
  storage_size size;
  amddwarf_status st = amddwarf__loc_storage_size(m, loc, &size);
  if (st != AMDDWARF_OK || rule_fits(&size, loc->byte_offset, loc->bit, bits))
    return st;
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OUT_OF_BOUNDS,
                      "%llu bits at bit %llu of %s storage run past its end",
                      (unsigned long long)bits,
                      (unsigned long long)(loc->byte_offset * 8 + loc->bit),
                      amddwarf_location_kind_name(loc->kind));
}

/* Raw byte access of a register or memory leaf. */
static amddwarf_status raw_bytes(machine *m, const amddwarf_location *loc, uint64_t byte,
                                 uint64_t size, uint8_t *buf, const uint8_t *wbuf)
{
  const amddwarf_target *t = m->t;
  amddwarf_status st;
  if (loc->kind == AMDDWARF_LOCATION_REGISTER) {
    if (wbuf ? !TARGET_HAS(t, write_register) : !TARGET_HAS(t, read_register))
      return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target cannot %s registers",
                          wbuf ? "write" : "read");
    if (!wbuf && m->in_entry_value) {
      /* Inside DW_OP_entry_value registers read as on entry to the subprogram. */
      if (!TARGET_HAS(t, read_entry_register))
        return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no entry register values");
      st = t->read_entry_register(t->user, loc->u.reg.regno, byte, size, buf);
      if (m->trace)
        amddwarf__machine_trace_access(m, AMDDWARF_TRACE_READ_ENTRY_REGISTER, loc->u.reg.regno, 0,
                             AMDDWARF_NO_LANE, byte, size, buf, st);
    } else {
      st = wbuf ? t->write_register(t->user, loc->u.reg.regno, byte, size, wbuf)
                : t->read_register(t->user, loc->u.reg.regno, byte, size, buf);
      if (m->trace)
        amddwarf__machine_trace_access(m, wbuf ? AMDDWARF_TRACE_WRITE_REGISTER : AMDDWARF_TRACE_READ_REGISTER,
                             loc->u.reg.regno, 0, AMDDWARF_NO_LANE, byte, size,
                             wbuf ? wbuf : buf, st);
    }
    if (st != AMDDWARF_OK)
      return amddwarf__machine_fail(m, st, "%s register %u, bytes %llu-%llu: %s", wbuf ? "writing" : "reading",
                          (unsigned)loc->u.reg.regno, (unsigned long long)byte,
                          (unsigned long long)(byte + size - 1), amddwarf_status_message(st));
    return AMDDWARF_OK;
  }
  uint32_t aspace, lane;
  uint64_t address;
  st = amddwarf__memory_target_space(m, loc->u.memory.aspace, byte, &aspace, &lane, &address);
  if (st != AMDDWARF_OK)
    return st;
  if (wbuf ? !TARGET_HAS(t, write_memory) : !TARGET_HAS(t, read_memory))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target cannot %s memory",
                        wbuf ? "write" : "read");
  st = wbuf ? t->write_memory(t->user, aspace, lane, address, size, wbuf)
            : t->read_memory(t->user, aspace, lane, address, size, buf);
  if (m->trace)
    amddwarf__machine_trace_access(m, wbuf ? AMDDWARF_TRACE_WRITE_MEMORY : AMDDWARF_TRACE_READ_MEMORY, 0,
                         aspace, lane, address, size, wbuf ? wbuf : buf, st);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "%s %llu bytes at 0x%llx of address space %u%s: %s",
                        wbuf ? "writing" : "reading", (unsigned long long)size,
                        (unsigned long long)address, (unsigned)aspace,
                        lane != AMDDWARF_NO_LANE ? " (lane)" : "", amddwarf_status_message(st));
  return AMDDWARF_OK;
}

static amddwarf_status read_leaf(machine *m, const amddwarf_location *loc, uint64_t bits,
                                 uint8_t *dst, uint64_t dst_bit)
{
  amddwarf_status st;
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OPTIMIZED_OUT,
                        "%llu bits come from undefined storage (optimized out)",
                        (unsigned long long)bits);
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "bits of implicit pointer storage (DIE 0x%llx) can only be dereferenced whole",
                        (unsigned long long)loc->u.implicit_pointer.die);
  case AMDDWARF_LOCATION_COMPOSITE:
    return amddwarf__machine_fail(m, AMDDWARF_E_INVALID_ARGUMENT, "nested composite in a composite");
  default:
    break;
  }
  st = check_bounds(m, loc, bits);
  if (st != AMDDWARF_OK)
    return st;
  if (loc->kind == AMDDWARF_LOCATION_IMPLICIT) {
    amddwarf__copy_bits(dst, dst_bit, loc->u.implicit.bytes, loc->byte_offset * 8 + loc->bit, bits);
    return AMDDWARF_OK;
  }
  /* Whole bytes into a byte-aligned destination: straight from the target. */
  if (loc->bit == 0 && bits % 8 == 0 && dst_bit % 8 == 0 && bits <= CHUNK_BYTES * 8)
    return raw_bytes(m, loc, loc->byte_offset, bits / 8, dst + dst_bit / 8, NULL);
  /* Register or memory: covering bytes, in chunks. */
  uint8_t chunk[CHUNK_BYTES];
  uint64_t byte = loc->byte_offset, bit = loc->bit;
  while (bits > 0) {
    uint64_t want_bits = bits < (CHUNK_BYTES - 1) * 8 ? bits : (CHUNK_BYTES - 1) * 8;
    uint64_t nbytes = (bit + want_bits + 7) / 8;
    st = raw_bytes(m, loc, byte, nbytes, chunk, NULL);
    if (st != AMDDWARF_OK)
      return st;
    amddwarf__copy_bits(dst, dst_bit, chunk, bit, want_bits);
    dst_bit += want_bits;
    bits -= want_bits;
    uint64_t adv = bit + want_bits;
    byte += adv / 8;
    bit = adv % 8;
  }
  return AMDDWARF_OK;
}

/* Calls VISIT(m, part, start, take, at, ctx) for each part of composite LOC
   that the BIT_SIZE bits starting BIT_OFFSET bits after LOC's own offset
   cross, in order: START and TAKE select the bits of the part, AT counts up
   from FIRST_BIT by the bits already visited. Reads and writes share it. */
typedef amddwarf_status (*part_visitor)(machine *m, const amddwarf_location *part,
                                        uint64_t start, uint64_t take, uint64_t at, void *ctx);

static amddwarf_status walk_composite(machine *m, const amddwarf_location *loc,
                                      uint64_t bit_offset, uint64_t bit_size, uint64_t first_bit,
                                      part_visitor visit, void *ctx)
{
  uint64_t off;
  if (!amddwarf__composite_fits(loc, bit_offset, bit_size, &off))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OUT_OF_BOUNDS,
                        "%llu bits at bit %llu of a %llu-bit composite run past its end",
                        (unsigned long long)bit_size, (unsigned long long)off,
                        (unsigned long long)loc->u.composite.bit_size);
  composite_cursor parts = composite_parts(loc, off, bit_size);
  const amddwarf_location *part;
  uint64_t start, take, at = first_bit;
  while ((part = composite_next(&parts, &start, &take)) != NULL) {
    amddwarf_status st = visit(m, part, start, take, at, ctx);
    if (st != AMDDWARF_OK)
      return st;
    at += take;
  }
  return AMDDWARF_OK;
}

static amddwarf_status read_part(machine *m, const amddwarf_location *part, uint64_t start,
                                 uint64_t take, uint64_t at, void *dst)
{
  return amddwarf__access_read(m, part, start, take, dst, at);
}

amddwarf_status amddwarf__access_read(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                            uint64_t bit_size, uint8_t *dst, uint64_t dst_bit)
{
  if (bit_size == 0)
    return AMDDWARF_OK;
  if (loc->kind == AMDDWARF_LOCATION_UNDEFINED)
    return read_leaf(m, loc, bit_size, dst, dst_bit);
  if (loc->kind != AMDDWARF_LOCATION_COMPOSITE) {
    amddwarf_location at;
    amddwarf_status st = leaf_at(m, loc, bit_offset, &at);
    return st != AMDDWARF_OK ? st : read_leaf(m, &at, bit_size, dst, dst_bit);
  }
  return walk_composite(m, loc, bit_offset, bit_size, dst_bit, read_part, dst);
}

/* ---- whole bytes straight from the target ---------------------------------- */

/* N whole bytes SKIP bytes into register or memory leaf LOC (bit 0) into
   DST, after the bounds rule of check_bounds; false when anything is not
   plainly so. */
static bool direct_leaf(machine *m, const amddwarf_location *loc, uint64_t skip, uint64_t n,
                        uint8_t *dst)
{
  const amddwarf_target *t = m->t;
  uint64_t byte = loc->byte_offset + skip;
  bool is_register = loc->kind == AMDDWARF_LOCATION_REGISTER;
  storage_size size;
  if (loc->bit != 0 || n > CHUNK_BYTES || byte < skip ||
      (!is_register && loc->kind != AMDDWARF_LOCATION_MEMORY) ||
      amddwarf__storage_of(m, loc->kind, is_register ? loc->u.reg.regno : loc->u.memory.aspace, 0,
                           &size) != AMDDWARF_OK ||
      !rule_fits(&size, byte, 0, n * 8))
    return false;
  if (is_register)
    return TARGET_HAS(t, read_register) &&
           t->read_register(t->user, loc->u.reg.regno, byte, n, dst) == AMDDWARF_OK;
  uint32_t aspace, lane;
  uint64_t address;
  return amddwarf__memory_target_space(m, loc->u.memory.aspace, byte, &aspace, &lane,
                                       &address) == AMDDWARF_OK &&
         TARGET_HAS(t, read_memory) &&
         t->read_memory(t->user, aspace, lane, address, n, dst) == AMDDWARF_OK;
}

/* A part of a composite read directly; any other status than OK leaves the
   read to the general path. */
static amddwarf_status direct_part(machine *m, const amddwarf_location *part, uint64_t start,
                                   uint64_t take, uint64_t at, void *dst)
{
  if (start % 8 || take % 8 || !direct_leaf(m, part, start / 8, take / 8, (uint8_t *)dst + at / 8))
    return AMDDWARF_E_UNSUPPORTED;
  return AMDDWARF_OK;
}

bool amddwarf__access_read_direct(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                                  uint64_t bit_size, uint8_t *dst)
{
  if (m->trace || m->in_entry_value || m->ev->general_only || bit_offset % 8 || bit_size % 8 ||
      bit_size == 0)
    return false;
  /* Nothing is reported from here: the general read gives the error. */
  amddwarf_error *err = m->err;
  m->err = NULL;
  bool done = loc->kind == AMDDWARF_LOCATION_COMPOSITE
                  ? walk_composite(m, loc, bit_offset, bit_size, 0, direct_part, dst) == AMDDWARF_OK
                  : direct_leaf(m, loc, bit_offset / 8, bit_size / 8, dst);
  m->err = err;
  return done;
}

/* ---- writes --------------------------------------------------------------- */

typedef struct span_list {
  leaf_span *items;
  size_t count;
  size_t cap;
  const amddwarf_allocator *alloc;
} span_list;

static amddwarf_status collect(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                               uint64_t bit_size, uint64_t src_bit, span_list *list);

static amddwarf_status collect_part(machine *m, const amddwarf_location *part, uint64_t start,
                                    uint64_t take, uint64_t at, void *list)
{
  return collect(m, part, start, take, at, list);
}

static amddwarf_status collect(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                               uint64_t bit_size, uint64_t src_bit, span_list *list)
{
  if (bit_size == 0)
    return AMDDWARF_OK;
  if (loc->kind == AMDDWARF_LOCATION_COMPOSITE)
    return walk_composite(m, loc, bit_offset, bit_size, src_bit, collect_part, list);
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_WRITE_UNDEFINED,
                        "%llu bits would go to undefined storage", (unsigned long long)bit_size);
  case AMDDWARF_LOCATION_IMPLICIT:
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_WRITE_READONLY,
                        "%llu bits would go to read-only %s storage", (unsigned long long)bit_size,
                        amddwarf_location_kind_name(loc->kind));
  default:
    break;
  }
  amddwarf_location at;
  amddwarf_status st = leaf_at(m, loc, bit_offset, &at);
  if (st == AMDDWARF_OK)
    st = check_bounds(m, &at, bit_size);
  if (st != AMDDWARF_OK)
    return st;
  if (list->count == list->cap &&
      amddwarf__mem_reserve(list->alloc, (void **)&list->items, &list->cap, list->count + 1,
                           sizeof *list->items) != 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_NO_MEMORY, "out of memory planning a write");
  list->items[list->count].loc = at;
  list->items[list->count].bits = bit_size;
  list->items[list->count].src_bit = src_bit;
  list->count++;
  return AMDDWARF_OK;
}

static uint64_t span_bytes(const leaf_span *s)
{
  return ((uint64_t)s->loc.bit + s->bits + 7) / 8;
}

amddwarf_status amddwarf__access_write(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                             uint64_t bit_size, const uint8_t *src)
{
  const amddwarf_allocator *alloc = &m->ev->alloc;
  span_list list = {NULL, 0, 0, alloc};
  uint8_t *saved = NULL, *scratch = NULL;
  size_t saved_size = 0, scratch_size = 0, written = 0;
  amddwarf_status st = collect(m, loc, bit_offset, bit_size, 0, &list);
  if (st != AMDDWARF_OK)
    goto done;
  /* Save the old contents of every span (also the read half of the
     read-modify-write of partial bytes). */
  uint64_t largest = 0;
  for (size_t i = 0; i < list.count; i++) {
    uint64_t n = span_bytes(&list.items[i]);
    if (n > SIZE_MAX / 2 || saved_size > SIZE_MAX / 2) {
      st = amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "write too large");
      goto done;
    }
    saved_size += (size_t)n;
    if (n > largest)
      largest = n;
  }
  scratch_size = (size_t)largest;
  saved = amddwarf__mem_alloc(alloc, saved_size ? saved_size : 1);
  scratch = amddwarf__mem_alloc(alloc, scratch_size ? scratch_size : 1);
  if (!saved || !scratch) {
    st = amddwarf__machine_fail(m, AMDDWARF_E_NO_MEMORY, "out of memory saving the old contents");
    goto done;
  }
  size_t at = 0;
  for (size_t i = 0; i < list.count; i++) {
    leaf_span *s = &list.items[i];
    uint64_t n = span_bytes(s);
    st = raw_bytes(m, &s->loc, s->loc.byte_offset, n, saved + at, NULL);
    if (st != AMDDWARF_OK)
      goto done;
    at += (size_t)n;
  }
  at = 0;
  for (size_t i = 0; i < list.count; i++) {
    leaf_span *s = &list.items[i];
    uint64_t n = span_bytes(s);
    memcpy(scratch, saved + at, (size_t)n);
    amddwarf__copy_bits(scratch, s->loc.bit, src, s->src_bit, s->bits);
    st = raw_bytes(m, &s->loc, s->loc.byte_offset, n, NULL, scratch);
    if (st != AMDDWARF_OK)
      break;
    written++;
    at += (size_t)n;
  }
  if (st != AMDDWARF_OK) {
    /* Roll back what was written; the first error is the one reported. */
    amddwarf_error keep;
    bool reported = m->reported;
    if (m->err)
      keep = *m->err;
    at = 0;
    for (size_t i = 0; i < written; i++) {
      leaf_span *s = &list.items[i];
      uint64_t n = span_bytes(s);
      (void)raw_bytes(m, &s->loc, s->loc.byte_offset, n, NULL, saved + at);
      at += (size_t)n;
    }
    if (m->err)
      *m->err = keep;
    m->reported = reported;
  }
done:
  amddwarf__mem_free(alloc, saved, saved_size ? saved_size : 1);
  amddwarf__mem_free(alloc, scratch, scratch_size ? scratch_size : 1);
  amddwarf__mem_free(alloc, list.items, list.cap * sizeof *list.items);
  return st;
}
