/* Location descriptions: storage sizes, bit-offset arithmetic with the seed's
 * range rules, the AMDGPU memory-space normalization, and composites in
 * canonical form (flattened, no empty parts, contiguous parts merged). */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "expr/eval_internal.h"
#include "expr/machine_rules.h"

/* ---- sizes ------------------------------------------------------------- */

uint32_t amddwarf__machine_wave_size_asked(machine *m)
{
  uint32_t w = 0;
  if (TARGET_HAS(m->t, wave_size) && m->t->wave_size(m->t->user, &w) == AMDDWARF_OK &&
      (w == 32 || w == 64))
    m->wave_size = w;
  else
    m->wave_size = 64;
  return m->wave_size;
}

unsigned amddwarf__aspace_address_bytes_listed(const machine *m, uint32_t aspace)
{
  amddwarf_aspace_info info;
  if (amddwarf_aspace_info_get(aspace, &info) != AMDDWARF_OK)
    return 0;
  return m->req->format.address_size >= 8 ? info.address_size_64 : info.address_size_32;
}

amddwarf_status amddwarf__register_bytes_uncached(machine *m, uint32_t regno, uint64_t *bytes)
{
  if (m->registers_sized_by_target) {
    amddwarf_status st = m->t->register_size(m->t->user, regno, bytes);
    if (st == AMDDWARF_OK)
      return AMDDWARF_OK;
    if (st != AMDDWARF_NOT_FOUND)
      return amddwarf__machine_fail(m, st, "register %u: size unknown", (unsigned)regno);
  } else {
    amddwarf_amdgpu_register info;
    if (amddwarf_amdgpu_register_info(regno, &info) == AMDDWARF_OK) {
      /* Only the fixed AMDGPU map is cached; a target's own answer may change. */
      unsigned slot = regno % EVAL_REG_CACHE;
      m->ev->reg_cache[slot].target = m->t;
      m->ev->reg_cache[slot].regno = regno;
      m->ev->reg_cache[slot].bytes = *bytes = info.bit_size / 8;
      return AMDDWARF_OK;
    }
  }
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_REGISTER, "DWARF register %u does not exist",
                      (unsigned)regno);
}

amddwarf_status amddwarf__loc_storage_size(machine *m, const amddwarf_location *loc, storage_size *out)
{
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    return amddwarf__storage_of(m, loc->kind, 0, 0, out);
  case AMDDWARF_LOCATION_MEMORY: {
    amddwarf_status st = amddwarf__storage_of(m, loc->kind, loc->u.memory.aspace, 0, out);
    if (st != AMDDWARF_OK)
      return amddwarf__machine_fail(m, st, "address space %u is not one of DW_ASPACE_*",
                                    (unsigned)loc->u.memory.aspace);
    return AMDDWARF_OK;
  }
  case AMDDWARF_LOCATION_REGISTER:
    return amddwarf__storage_of(m, loc->kind, loc->u.reg.regno, 0, out);
  case AMDDWARF_LOCATION_IMPLICIT:
    *out = sized_storage(loc->u.implicit.bit_size);
    return AMDDWARF_OK;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    *out = sized_storage(loc->u.implicit_pointer.bit_size);
    return AMDDWARF_OK;
  case AMDDWARF_LOCATION_COMPOSITE:
    *out = sized_storage(loc->u.composite.bit_size);
    return AMDDWARF_OK;
  }
  *out = sized_storage(0);
  return amddwarf__machine_fail(m, AMDDWARF_E_INVALID_ARGUMENT, "unknown location kind %d", (int)loc->kind);
}

bool amddwarf__loc_bit_offset(const amddwarf_location *loc, uint64_t *bits)
{
  if (loc->byte_offset > (UINT64_MAX >> 3))
    return false;
  *bits = loc->byte_offset * 8 + loc->bit;
  return true;
}

amddwarf_status amddwarf__loc_add_bits(machine *m, amddwarf_location *loc, int64_t bits)
{
  storage_size size;
  amddwarf_status st;
  if (loc->kind == AMDDWARF_LOCATION_UNDEFINED)
    return AMDDWARF_OK;
  st = amddwarf__loc_storage_size(m, loc, &size);
  if (st != AMDDWARF_OK)
    return st;
  int64_t dbyte = bits / 8, rem = bits % 8;
  if (rem < 0) {
    rem += 8;
    dbyte -= 1;
  }
  uint64_t nbit = (uint64_t)loc->bit + (uint64_t)rem;
  if (nbit >= 8) {
    nbit -= 8;
    dbyte += 1;
  }
  uint64_t nbyte;
  if (!rule_moved_byte(loc->byte_offset, dbyte, &nbyte) || !rule_inside(&size, nbyte, (unsigned)nbit))
    goto out_of_range;
  loc->byte_offset = nbyte;
  loc->bit = (uint8_t)nbit;
  return AMDDWARF_OK;
out_of_range:
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE,
                      "%s location: bit offset moved by %lld bits leaves the storage",
                      amddwarf_location_kind_name(loc->kind), (long long)bits);
}

amddwarf_status amddwarf__loc_add_bytes(machine *m, amddwarf_location *loc, int64_t bytes)
{
  if (loc->kind == AMDDWARF_LOCATION_MEMORY) {
    /* Whole bytes: no bit arithmetic, so every 64-bit address is reachable. */
    storage_size size;
    amddwarf_status st = amddwarf__loc_storage_size(m, loc, &size);
    uint64_t nbyte;
    if (st != AMDDWARF_OK)
      return st;
    if (!rule_move_bytes(&size, loc->byte_offset, bytes, &nbyte))
      goto out_of_range;
    loc->byte_offset = nbyte;
    return AMDDWARF_OK;
  }
  int64_t bits;
  if (!rule_bytes_as_bits(bytes, &bits))
    goto out_of_range;
  return amddwarf__loc_add_bits(m, loc, bits);
out_of_range:
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE,
                      "%s location: byte offset moved by %lld leaves the storage",
                      amddwarf_location_kind_name(loc->kind), (long long)bytes);
}

bool amddwarf__loc_same_storage(const amddwarf_location *a, const amddwarf_location *b)
{
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    return true;
  case AMDDWARF_LOCATION_MEMORY:
    return a->u.memory.aspace == b->u.memory.aspace;
  case AMDDWARF_LOCATION_REGISTER:
    return a->u.reg.regno == b->u.reg.regno;
  case AMDDWARF_LOCATION_IMPLICIT:
    return a->u.implicit.bytes == b->u.implicit.bytes &&
           a->u.implicit.bit_size == b->u.implicit.bit_size;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    return a->u.implicit_pointer.die == b->u.implicit_pointer.die &&
           a->u.implicit_pointer.displacement == b->u.implicit_pointer.displacement &&
           a->u.implicit_pointer.aspace == b->u.implicit_pointer.aspace;
  case AMDDWARF_LOCATION_COMPOSITE:
    return a->u.composite.parts == b->u.composite.parts;
  }
  return false;
}

/* Does LEAF continue LAST, in its storage exactly where LAST's bits end?
   Then the two are one part of a canonical composite. */
static bool part_continues(const amddwarf_composite_part *last, const amddwarf_location *leaf)
{
  if (!amddwarf__loc_same_storage(&last->location, leaf))
    return false;
  if (leaf->kind == AMDDWARF_LOCATION_UNDEFINED)
    return true;
  amddwarf_location end = last->location;
  return amddwarf__loc_forward(&end, last->bit_size) && end.byte_offset == leaf->byte_offset &&
         end.bit == leaf->bit;
}

/* LEAF as a part of a canonical composite: undefined storage at offset 0. */
static amddwarf_composite_part leaf_part(const amddwarf_location *leaf, uint64_t bits)
{
  amddwarf_composite_part part = {.location = *leaf, .bit_size = bits};
  if (leaf->kind == AMDDWARF_LOCATION_UNDEFINED) {
    part.location.byte_offset = 0;
    part.location.bit = 0;
  }
  return part;
}

/* ---- composites --------------------------------------------------------- */

typedef amddwarf_status (*leaf_fn)(void *ctx, const amddwarf_location *leaf, uint64_t bits);

/* Calls EMIT for every non-composite piece of the BITS bits LOC selects. */
static amddwarf_status select_leaves(const amddwarf_location *loc, uint64_t bits, leaf_fn emit,
                                     void *ctx, unsigned depth)
{
  if (loc->kind != AMDDWARF_LOCATION_COMPOSITE)
    return emit(ctx, loc, bits);
  if (depth > 16)
    return AMDDWARF_E_LIMIT;
  uint64_t off;
  if (!amddwarf__composite_fits(loc, 0, bits, &off))
    return AMDDWARF_E_EVAL_PART_OUT_OF_RANGE;
  composite_cursor parts = composite_parts(loc, off, bits);
  const amddwarf_location *part;
  uint64_t start, take;
  while ((part = composite_next(&parts, &start, &take)) != NULL) {
    amddwarf_location sub = *part;
    (void)amddwarf__loc_forward(&sub, start); /* inside the part */
    amddwarf_status st = select_leaves(&sub, take, emit, ctx, depth + 1);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

void amddwarf__composite_begin(machine *m, amddwarf_location *composite)
{
  memset(composite, 0, sizeof *composite);
  composite->kind = AMDDWARF_LOCATION_COMPOSITE;
  composite->u.composite.parts = m->ev->parts + m->parts_used;
}

typedef struct append_ctx {
  machine *m;
  amddwarf_location *composite;
} append_ctx;

static amddwarf_status append_leaf(void *opaque, const amddwarf_location *leaf, uint64_t bits)
{
  append_ctx *ctx = opaque;
  machine *m = ctx->m;
  amddwarf_location *c = ctx->composite;
  amddwarf_composite_part *parts = m->ev->parts;
  storage_size size;
  amddwarf_status st;
  if (bits == 0)
    return AMDDWARF_OK;
  st = amddwarf__loc_storage_size(m, leaf, &size);
  if (st != AMDDWARF_OK)
    return st;
  if (!rule_fits(&size, leaf->byte_offset, leaf->bit, bits))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_PART_OUT_OF_RANGE,
                                  "composite part of %llu bits extends past its %s storage",
                                  (unsigned long long)bits,
                                  amddwarf_location_kind_name(leaf->kind));
  uint64_t total;
  if (amddwarf_add_overflow_u64(c->u.composite.bit_size, bits, &total) ||
      total > machine_composite_bits_limit(m))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE,
                        "composite would exceed the largest address space");
  /* The composite grows at the end of the arena: move it there if needed. */
  amddwarf_composite_part *end = parts + m->parts_used;
  if (c->u.composite.parts + c->u.composite.count != end) {
    if (m->parts_used + c->u.composite.count + 1 > m->ev->parts_cap)
      return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u composite parts",
                          (unsigned)m->ev->parts_cap);
    memmove(end, c->u.composite.parts, c->u.composite.count * sizeof *end);
    c->u.composite.parts = end;
    m->parts_used += c->u.composite.count;
  }
  amddwarf_composite_part *mine = (amddwarf_composite_part *)c->u.composite.parts;
  if (c->u.composite.count > 0) {
    amddwarf_composite_part *last = &mine[c->u.composite.count - 1];
    if (part_continues(last, leaf)) {
      last->bit_size += bits;
      c->u.composite.bit_size = total;
      return AMDDWARF_OK;
    }
  }
  if (m->parts_used >= m->ev->parts_cap)
    return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u composite parts",
                        (unsigned)m->ev->parts_cap);
  mine[c->u.composite.count++] = leaf_part(leaf, bits);
  m->parts_used++;
  c->u.composite.bit_size = total;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__composite_append(machine *m, amddwarf_location *composite,
                                 const amddwarf_location *pl, uint64_t bit_size)
{
  append_ctx ctx = {m, composite};
  amddwarf_status st = select_leaves(pl, bit_size, append_leaf, &ctx, 0);
  if (st == AMDDWARF_E_EVAL_PART_OUT_OF_RANGE && (!m->reported || m->err->status != st))
    return amddwarf__machine_fail(m, st, "composite part of %llu bits extends past the composite it selects from",
                        (unsigned long long)bit_size);
  if (st == AMDDWARF_E_LIMIT && (!m->reported || m->err->status != st))
    return amddwarf__machine_fail(m, st, "composites nested too deeply");
  return st;
}

/* ---- public canonicalization --------------------------------------------- */

/* The leaves of a part, counted, and stored too when OUT is set. */
typedef struct leaf_list {
  amddwarf_composite_part *out;
  size_t count;
} leaf_list;

static amddwarf_status list_leaf(void *opaque, const amddwarf_location *leaf, uint64_t bits)
{
  leaf_list *list = opaque;
  if (list->out) {
    list->out[list->count].bit_size = bits;
    list->out[list->count].location = *leaf;
  }
  list->count++;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_composite_canonicalize(amddwarf_composite_part *parts, size_t count,
                                                size_t capacity, size_t *out_count)
{
  size_t needed = 0;
  amddwarf_status st;
  if (!parts && count)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < count; i++) {
    leaf_list c = {NULL, 0};
    st = select_leaves(&parts[i].location, parts[i].bit_size, list_leaf, &c, 0);
    if (st != AMDDWARF_OK)
      return st;
    needed += c.count;
  }
  if (needed > capacity) {
    *out_count = needed;
    return AMDDWARF_E_NO_SPACE;
  }
  /* Expand from the back so that no unread part is overwritten. */
  size_t w = needed;
  for (size_t i = count; i-- > 0;) {
    leaf_list c = {NULL, 0};
    amddwarf_composite_part part = parts[i];
    st = select_leaves(&part.location, part.bit_size, list_leaf, &c, 0);
    if (st != AMDDWARF_OK)
      return st;
    w -= c.count;
    leaf_list wc = {parts + w, 0};
    st = select_leaves(&part.location, part.bit_size, list_leaf, &wc, 0);
    if (st != AMDDWARF_OK)
      return st;
  }
  /* Drop empty parts and merge contiguous parts of one storage. */
  size_t n = 0;
  for (size_t i = 0; i < needed; i++) {
    if (parts[i].bit_size == 0)
      continue;
    amddwarf_composite_part p = leaf_part(&parts[i].location, parts[i].bit_size);
    if (n > 0 && part_continues(&parts[n - 1], &p.location) &&
        parts[n - 1].bit_size <= UINT64_MAX - p.bit_size) {
      parts[n - 1].bit_size += p.bit_size;
      continue;
    }
    parts[n++] = p;
  }
  *out_count = n;
  return AMDDWARF_OK;
}

/* ---- memory spaces -------------------------------------------------------- */

amddwarf_status amddwarf__memory_target_space_mapped(machine *m, uint32_t aspace, uint64_t address,
                                                     uint32_t *out_aspace, uint32_t *out_lane,
                                                     uint64_t *out_address)
{
  *out_aspace = aspace;
  *out_lane = AMDDWARF_NO_LANE;
  *out_address = address;
  if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC && TARGET_HAS(m->t, apertures)) {
    uint64_t shared = 0, priv = 0;
    amddwarf_status st = m->t->apertures(m->t->user, &shared, &priv);
    if (st != AMDDWARF_OK)
      return amddwarf__machine_fail(m, st, "generic address 0x%llx: apertures unknown",
                          (unsigned long long)address);
    amddwarf_generic_to_segment(address, shared, priv, out_aspace, out_address);
    aspace = *out_aspace;
  }
  if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE) {
    *out_lane = m->lane;
  } else if (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
             aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63) {
    *out_lane = aspace - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
    *out_aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
  }
  if (*out_lane != AMDDWARF_NO_LANE && !amddwarf__machine_has_lane(m, *out_lane))
    return amddwarf__machine_fail(m, AMDDWARF_E_AMDGPU_BAD_LANE, "lane %u is not in a wave of %u lanes",
                        (unsigned)*out_lane, (unsigned)amddwarf__machine_wave_size(m));
  return AMDDWARF_OK;
}

const char *amddwarf_location_kind_name(amddwarf_location_kind kind)
{
  static const char *const names[] = {"undefined", "memory", "register",
                                      "implicit", "implicit_pointer", "composite"};
  _Static_assert(sizeof names / sizeof names[0] == AMDDWARF_LOCATION_COMPOSITE + 1,
                 "one name per location kind");
  if ((unsigned)kind < sizeof names / sizeof names[0])
    return names[kind];
  return "unknown";
}
