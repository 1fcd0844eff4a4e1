/* What a location expression is, statically: the kind of place (register
 * class, memory by address space, a value, pieces), whether it is right for
 * every lane of a wave, and whether it reads through a producer quirk or an
 * address the object leaves undefined. The unit's convention decides how
 * address spaces and vector registers are read (specs/conventions.md). */
#include <string.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/target.h>

#include "common/mem.h"
#include "object/stats_internal.h"

static bool is_constant(const amddwarf_op *op, uint64_t *value)
{
  if (op->kind >= AMDDWARF_OP_lit0 && op->kind <= AMDDWARF_OP_lit31) {
    *value = (uint64_t)(op->kind - AMDDWARF_OP_lit0);
    return true;
  }
  switch (op->kind) {
  case AMDDWARF_OP_constu: case AMDDWARF_OP_const1u: case AMDDWARF_OP_const2u:
  case AMDDWARF_OP_const4u: case AMDDWARF_OP_const8u:
    *value = op->operands[0];
    return true;
  default:
    return false;
  }
}

/* The register a register location (reg0-31, regx) or base register
   (breg0-31, bregx, LLVM_aspace_bregx) operation names. */
static bool register_of(const amddwarf_op *op, bool *location, uint32_t *regno)
{
  *location = false;
  if (op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) {
    *location = true;
    *regno = (uint32_t)op->operands[1];
    return true;
  }
  if (op->kind >= AMDDWARF_OP_breg0 && op->kind <= AMDDWARF_OP_breg31) {
    *regno = (uint32_t)op->operands[1];
    return true;
  }
  switch (op->kind) {
  case AMDDWARF_OP_regx:
    *location = true;
    *regno = (uint32_t)op->operands[0];
    return true;
  case AMDDWARF_OP_bregx:
  case AMDDWARF_OP_LLVM_aspace_bregx:
    *regno = (uint32_t)op->operands[0];
    return true;
  default:
    return false;
  }
}

static amddwarf_loc_kind register_kind(uint32_t regno, bool *vector)
{
  amddwarf_amdgpu_register info;
  *vector = false;
  if (amddwarf_amdgpu_register_info(regno, &info) != AMDDWARF_OK)
    return AMDDWARF_LOC_OTHER_REGISTER;
  *vector = info.lanes > 0;
  if (info.kind_id == AMDDWARF_REGISTER_KIND_SGPR)
    return AMDDWARF_LOC_SGPR;
  if (info.kind_id == AMDDWARF_REGISTER_KIND_VGPR)
    return AMDDWARF_LOC_VGPR;
  if (info.kind_id == AMDDWARF_REGISTER_KIND_AGPR)
    return AMDDWARF_LOC_AGPR;
  return AMDDWARF_LOC_OTHER_REGISTER;
}

static amddwarf_loc_kind aspace_kind(uint64_t aspace)
{
  if (aspace == AMDDWARF_ASPACE_AMDGPU_LOCAL)
    return AMDDWARF_LOC_MEMORY_LOCAL;
  if (aspace == AMDDWARF_ASPACE_AMDGPU_REGION)
    return AMDDWARF_LOC_MEMORY_REGION;
  if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
      aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE ||
      (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
       aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63))
    return AMDDWARF_LOC_MEMORY_PRIVATE;
  return AMDDWARF_LOC_MEMORY_GLOBAL;
}

/* Legacy xderef operands: 1 private, 2 local, else global. */
static amddwarf_loc_kind legacy_aspace_kind(uint64_t aspace)
{
  return aspace == 1 ? AMDDWARF_LOC_MEMORY_PRIVATE
         : aspace == 2 ? AMDDWARF_LOC_MEMORY_LOCAL
                       : AMDDWARF_LOC_MEMORY_GLOBAL;
}

/* Lane statuses from least to most wrong: a composite takes its worst part's. */
static int lane_rank(amddwarf_lane_status lane)
{
  switch (lane) {
  case AMDDWARF_LANE_NONE: return 0;
  case AMDDWARF_LANE_UNIFORM: return 1;
  case AMDDWARF_LANE_SELECTED: return 2;
  case AMDDWARF_LANE_LEGACY: return 3;
  case AMDDWARF_LANE_MISSING: return 4;
  }
  return 0;
}

/* One piece's operations OPS[0, COUNT). */
static void classify_part(const amddwarf_cu *cu, const amddwarf_op *ops, size_t count,
                          amddwarf_loc_class *out)
{
  bool legacy = cu->convention == AMDDWARF_CONVENTION_LEGACY;
  bool push_lane = false, vector_base = false, has_register = false, has_memory_op = false;
  bool is_value = false, is_undefined = count == 0;
  amddwarf_loc_kind memory = AMDDWARF_LOC_MEMORY_GLOBAL;
  bool memory_set = false;
  out->kind = AMDDWARF_LOC_UNDEFINED;
  out->lane = AMDDWARF_LANE_NONE;
  out->regno = 0;
  for (size_t i = 0; i < count; ++i) {
    const amddwarf_op *op = &ops[i];
    bool location;
    uint32_t regno;
    uint64_t k;
    if (register_of(op, &location, &regno)) {
      bool vector;
      amddwarf_loc_kind kind = register_kind(regno, &vector);
      if (location) {
        has_register = true;
        out->kind = kind;
        out->regno = regno;
      } else {
        vector_base |= vector;
        has_memory_op = true;
      }
      if (location && vector)
        out->lane = AMDDWARF_LANE_MISSING; /* until a lane select is seen */
      continue;
    }
    switch (op->kind) {
    case AMDDWARF_OP_LLVM_push_lane:
      push_lane = true;
      break;
    case AMDDWARF_OP_LLVM_undefined:
      is_undefined = true;
      break;
    case AMDDWARF_OP_stack_value:
    case AMDDWARF_OP_implicit_value:
    case AMDDWARF_OP_implicit_pointer:
    case AMDDWARF_OP_GNU_implicit_pointer:
    case AMDDWARF_OP_LLVM_aspace_implicit_pointer:
      is_value = true;
      break;
    case AMDDWARF_OP_fbreg:
      has_memory_op = true;
      if (!memory_set) /* the frame is in the private space in both conventions */
        memory = AMDDWARF_LOC_MEMORY_PRIVATE;
      break;
    case AMDDWARF_OP_xderef:
    case AMDDWARF_OP_xderef_size:
    case AMDDWARF_OP_xderef_type:
      /* legacy: "lit<k>, swap, xderef" */
      if (legacy && i >= 2 && ops[i - 1].kind == AMDDWARF_OP_swap && is_constant(&ops[i - 2], &k)) {
        memory = legacy_aspace_kind(k);
        memory_set = true;
      }
      has_memory_op = true;
      break;
    case AMDDWARF_OP_LLVM_form_aspace_address:
      if (i >= 1 && is_constant(&ops[i - 1], &k)) {
        memory = aspace_kind(k);
        memory_set = true;
      }
      has_memory_op = true;
      break;
    default:
      if (op->kind == AMDDWARF_OP_addr || op->kind == AMDDWARF_OP_addrx ||
          op->kind == AMDDWARF_OP_GNU_addr_index)
        has_memory_op = true;
      break;
    }
  }
  if (is_undefined && !has_register && !has_memory_op) {
    out->kind = AMDDWARF_LOC_UNDEFINED;
    out->lane = AMDDWARF_LANE_NONE;
    return;
  }
  if (is_value) {
    out->kind = AMDDWARF_LOC_IMPLICIT;
    out->lane = vector_base && !push_lane ? (legacy ? AMDDWARF_LANE_LEGACY : AMDDWARF_LANE_MISSING)
                                          : AMDDWARF_LANE_UNIFORM;
    return;
  }
  if (has_register) {
    if (out->lane == AMDDWARF_LANE_MISSING)
      out->lane = push_lane ? AMDDWARF_LANE_SELECTED
                  : legacy  ? AMDDWARF_LANE_LEGACY
                            : AMDDWARF_LANE_MISSING;
    else
      out->lane = AMDDWARF_LANE_UNIFORM;
    return;
  }
  /* a memory location: an address on the stack */
  out->kind = memory;
  out->lane = vector_base && !push_lane ? (legacy ? AMDDWARF_LANE_LEGACY : AMDDWARF_LANE_MISSING)
                                        : AMDDWARF_LANE_UNIFORM;
}

static bool is_piece(const amddwarf_op *op)
{
  return op->kind == AMDDWARF_OP_piece || op->kind == AMDDWARF_OP_bit_piece ||
         op->kind == AMDDWARF_OP_LLVM_piece_end;
}

/* The one place where a producer quirk changes the reading: when the
   expression is read through a quirk (amddwarf_object_expr_quirk), OUT
   classifies its corrected reading (amddwarf_object_normalize_expr, in the
   extension convention) and is marked AMDDWARF_LOC_QUIRK. False when no
   quirk applies. */
static bool classify_quirk(const amddwarf_object *object, const amddwarf_cu *cu,
                           const uint8_t *bytes, size_t size, amddwarf_loc_class *out)
{
  if (object == NULL ||
      amddwarf_object_expr_quirk(object, cu, AMDDWARF_ROLE_LOCATION, bytes, size) ==
          AMDDWARF_QUIRK_NONE)
    return false;
  uint8_t reading[128];
  size_t n = 0;
  if (amddwarf_object_normalize_expr(object, cu, AMDDWARF_ROLE_LOCATION, bytes, size, reading,
                                     sizeof reading, &n, NULL) != AMDDWARF_OK)
    return false;
  amddwarf_cu corrected = *cu;
  corrected.convention = AMDDWARF_CONVENTION_EXTENSION;
  corrected.format.dialect = AMDDWARF_DIALECT_USER;
  amddwarf_loc_classify(NULL, &corrected, reading, n, out);
  out->flags |= AMDDWARF_LOC_QUIRK;
  return true;
}

void amddwarf_loc_classify(const amddwarf_object *object, const amddwarf_cu *cu,
                           const uint8_t *bytes, size_t size, amddwarf_loc_class *out)
{
  memset(out, 0, sizeof *out);
  out->kind = AMDDWARF_LOC_UNDEFINED;
  out->lane = AMDDWARF_LANE_NONE;
  if (cu == NULL || (bytes == NULL && size > 0))
    return;
  if (classify_quirk(object, cu, bytes, size, out))
    return;
  enum { INLINE_OPS = 32 };
  amddwarf_op inline_ops[INLINE_OPS], *ops = inline_ops;
  size_t capacity = INLINE_OPS, count = 0;
  if (size > INLINE_OPS) {
    ops = object != NULL ? amddwarf__mem_alloc(&object->allocator, size * sizeof *ops) : NULL;
    if (ops == NULL) {
      out->flags |= AMDDWARF_LOC_UNDECODABLE;
      return;
    }
    capacity = size;
  }
  if (amddwarf_expr_decode(bytes, size, &cu->format, ops, capacity, &count, NULL) !=
      AMDDWARF_OK) {
    out->flags |= AMDDWARF_LOC_UNDECODABLE;
    goto done;
  }
  bool takes_address = false; /* from an address field the object may not know */
  for (size_t i = 0; i < count; ++i) {
    if (ops[i].kind == AMDDWARF_OP_entry_value || ops[i].kind == AMDDWARF_OP_GNU_entry_value)
      out->flags |= AMDDWARF_LOC_ENTRY_VALUE;
    takes_address |= ops[i].kind == AMDDWARF_OP_addr || ops[i].kind == AMDDWARF_OP_addrx ||
                     ops[i].kind == AMDDWARF_OP_constx ||
                     ops[i].kind == AMDDWARF_OP_GNU_addr_index ||
                     ops[i].kind == AMDDWARF_OP_GNU_const_index;
  }
  size_t pieces = 0;
  for (size_t i = 0; i < count; ++i)
    pieces += is_piece(&ops[i]);
  if (pieces <= 1 && (count == 0 || pieces == 0 || is_piece(&ops[count - 1]))) {
    classify_part(cu, ops, pieces ? count - 1 : count, out);
  } else {
    /* pieces: the worst lane status of the parts that have a value */
    out->kind = AMDDWARF_LOC_COMPOSITE;
    out->lane = AMDDWARF_LANE_NONE;
    size_t start = 0;
    for (size_t i = 0; i <= count; ++i) {
      if (i < count && !is_piece(&ops[i]))
        continue;
      if (i > start || i < count) {
        amddwarf_loc_class part;
        classify_part(cu, ops + start, i - start, &part);
        if (lane_rank(part.lane) > lane_rank(out->lane))
          out->lane = part.lane;
      }
      start = i + 1;
    }
  }
  if (takes_address && object != NULL &&
      amddwarf_object_expr_addresses_known(object, cu, bytes, size, NULL) != AMDDWARF_OK)
    out->flags |= AMDDWARF_LOC_UNKNOWN_ADDRESS;
done:
  if (ops != inline_ops)
    amddwarf__mem_free(&object->allocator, ops, capacity * sizeof *ops);
}
