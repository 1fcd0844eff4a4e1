/* Code objects: rewriting a unit's expressions from the convention they were
 * produced under into the extension convention the evaluator executes
 * (specs/conventions.md section 5). */
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/target.h>

#include "common/mem.h"
#include "object/internal.h"

static bool is_constant(const amddwarf_op *op, uint64_t *value)
{
  if (op->kind >= AMDDWARF_OP_lit0 && op->kind <= AMDDWARF_OP_lit31) {
    *value = (uint64_t)(op->kind - AMDDWARF_OP_lit0);
    return true;
  }
  if (op->kind == AMDDWARF_OP_constu || op->kind == AMDDWARF_OP_const1u ||
      op->kind == AMDDWARF_OP_const2u || op->kind == AMDDWARF_OP_const4u ||
      op->kind == AMDDWARF_OP_const8u) {
    *value = op->operands[0];
    return true;
  }
  return false;
}

static amddwarf_op make_op(amddwarf_op_kind kind, uint64_t a, uint64_t b)
{
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = kind;
  op.operands[0] = a;
  op.operands[1] = b;
  return op;
}

amddwarf_op amddwarf__normalize_op(amddwarf_op_kind kind, uint64_t a, uint64_t b)
{
  return make_op(kind, a, b);
}

static amddwarf_op make_lit(uint64_t v)
{
  if (v < 32)
    return make_op((amddwarf_op_kind)(AMDDWARF_OP_lit0 + (int)v), 0, 0);
  return make_op(AMDDWARF_OP_constu, v, 0);
}

/* Room for the rewrite of COUNT operations: a VGPR base register takes
   eight operations (lane_dword), a VGPR location six (lane_register and a
   piece), every other at most three. */
#define NORMALIZED_CAPACITY(count) (8 * (count) + 3)

/* Whether DWARF register R holds one dword per lane. */
static bool is_vector_register(uint64_t r)
{
  amddwarf_amdgpu_register info;
  return r <= UINT32_MAX && amddwarf_amdgpu_register_info((uint32_t)r, &info) == AMDDWARF_OK &&
         info.lanes > 0;
}

/* The register a register location operation names: DW_OP_regx's operand,
   or the number of DW_OP_reg0..31 (which the decoder keeps in operands[1]). */
static bool register_of(const amddwarf_op *op, uint64_t *regno)
{
  if (op->kind == AMDDWARF_OP_regx) {
    *regno = op->operands[0];
    return true;
  }
  if (op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) {
    *regno = op->operands[1];
    return true;
  }
  return false;
}

/* "DW_OP_regx VGPRn" of a legacy unit: the focused lane's dword of the
   register, as a register location at byte offset lane * 4 (the whole
   register would start with lane 0's dword). Writes the operations at RES
   and returns how many. */
size_t amddwarf__normalize_lane_register(uint64_t regno, amddwarf_op *res)
{
  size_t n = 0;
  res[n++] = make_op(AMDDWARF_OP_regx, regno, 0);
  res[n++] = make_op(AMDDWARF_OP_LLVM_push_lane, 0, 0);
  res[n++] = make_lit(4);
  res[n++] = make_op(AMDDWARF_OP_mul, 0, 0);
  res[n++] = make_op(AMDDWARF_OP_LLVM_offset, 0, 0);
  return n;
}

/* "DW_OP_bregx VGPRn OFFSET" of a legacy unit: the focused lane's dword of
   the register plus OFFSET (the generic-type value of the whole register
   would be lane 0's). Writes the operations at RES and returns how many. */
static size_t lane_dword(uint64_t regno, int64_t offset, amddwarf_op *res)
{
  size_t n = amddwarf__normalize_lane_register(regno, res);
  res[n++] = make_op(AMDDWARF_OP_deref_size, 4, 0);
  if (offset > 0) {
    res[n++] = make_op(AMDDWARF_OP_plus_uconst, (uint64_t)offset, 0);
  } else if (offset < 0) {
    res[n++] = make_op(AMDDWARF_OP_consts, (uint64_t)offset, 0);
    res[n++] = make_op(AMDDWARF_OP_plus, 0, 0);
  }
  return n;
}

amddwarf_status amddwarf_object_normalize_expr(const amddwarf_object *object,
                                               const amddwarf_cu *cu, amddwarf_expr_role role,
                                               const uint8_t *bytes, size_t size, uint8_t *out,
                                               size_t capacity, size_t *out_size,
                                               amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  amddwarf_op *ops = NULL, *res = NULL;
  size_t count = 0, n = 0;
  if (object == NULL || cu == NULL || out_size == NULL || (bytes == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_normalize_expr: NULL argument");
  if (cu->convention != AMDDWARF_CONVENTION_LEGACY || size == 0) {
    *out_size = size;
    if (size > capacity)
      return amddwarf__fail(err, AMDDWARF_E_NO_SPACE, AMDDWARF_NO_OFFSET,
                           "expression of %zu bytes, room for %zu", size, capacity);
    if (size)
      memcpy(out, bytes, size);
    return AMDDWARF_OK;
  }
  ops = amddwarf__mem_alloc(&object->allocator, size * sizeof *ops);
  res = amddwarf__mem_alloc(&object->allocator, NORMALIZED_CAPACITY(size) * sizeof *res);
  if (ops == NULL || res == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "normalizing");
    goto cleanup;
  }
  st = amddwarf_expr_decode(bytes, size, &cu->format, ops, size, &count, err);
  if (st != AMDDWARF_OK)
    goto cleanup;
  if (role == AMDDWARF_ROLE_FRAME_BASE) {
    bool reg = count == 1 && (ops[0].kind == AMDDWARF_OP_regx ||
                              (ops[0].kind >= AMDDWARF_OP_reg0 && ops[0].kind <= AMDDWARF_OP_reg31));
    if (!reg) {
      memcpy(res, ops, count * sizeof *res);
      n = count;
    } else {
      uint64_t r = ops[0].kind == AMDDWARF_OP_regx ? ops[0].operands[0] : ops[0].operands[1];
      unsigned div = amddwarf__object_wave_info(object)->frame_base_divisor, shift = 0;
      while (div > 1u) {
        div >>= 1;
        ++shift;
      }
      res[n++] = make_op(AMDDWARF_OP_bregx, r, 0);
      if (shift) {
        res[n++] = make_lit(shift);
        res[n++] = make_op(AMDDWARF_OP_shr, 0, 0);
      }
    }
  } else if (amddwarf__quirk_rewrite(cu, ops, count, res, &n) != AMDDWARF_QUIRK_NONE) {
    /* A producer quirk: the corrected reading (quirks.def). */
  } else {
    bool converted = false, stack_value = false;
    for (size_t i = 0; i < count; ++i)
      if (ops[i].kind == AMDDWARF_OP_stack_value)
        stack_value = true;
    for (size_t i = 0; i < count; ++i) {
      uint64_t k = 0;
      uint32_t aspace = 0;
      if (i + 2 < count && is_constant(&ops[i], &k) && ops[i + 1].kind == AMDDWARF_OP_swap &&
          ops[i + 2].kind == AMDDWARF_OP_xderef &&
          amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_LEGACY, k, &aspace) == AMDDWARF_OK) {
        converted = true;
        res[n++] = make_lit(aspace);
        res[n++] = make_op(AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
        i += 2;
        /* "X, lit<k>, swap, xderef, stack_value" read literally: the value
           is what memory holds at X in space k; the location of those bytes
           says so, at the variable's own size (the promoted_constant quirk
           reads X instead, where its producer wrote it). */
        if (i + 1 < count && ops[i + 1].kind == AMDDWARF_OP_stack_value)
          ++i;
        continue;
      }
      if (ops[i].kind == AMDDWARF_OP_bregx && is_vector_register(ops[i].operands[0])) {
        n += lane_dword(ops[i].operands[0], (int64_t)ops[i].operands[1], &res[n]);
        continue;
      }
      uint64_t regno = 0;
      if (register_of(&ops[i], &regno) && is_vector_register(regno)) {
        /* -O2 "regx VGPRn" as a piece, or alone: the lane's own dword. Alone
           it becomes a 4-byte piece, so that a type larger than the dword
           does not read the next lanes' dwords as the rest of its bytes. */
        n += amddwarf__normalize_lane_register(regno, &res[n]);
        if (count == 1)
          res[n++] = make_op(AMDDWARF_OP_piece, 4, 0);
        continue;
      }
      res[n++] = ops[i];
      res[n - 1].target = ops[i].target;
    }
    /* HIP: a bare DW_OP_fbreg is a private (lane) address. */
    if (!converted && !stack_value && count >= 1 && ops[0].kind == AMDDWARF_OP_fbreg) {
      bool plain = true;
      for (size_t i = 1; i < count; ++i)
        if (ops[i].kind != AMDDWARF_OP_piece && ops[i].kind != AMDDWARF_OP_bit_piece)
          plain = false;
      if (plain && count == 1) {
        res[n++] = make_lit(AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE);
        res[n++] = make_op(AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
      }
    }
    /* Branches keep pointing at the same operations only when nothing moved. */
    for (size_t i = 0; i < n; ++i)
      if ((res[i].kind == AMDDWARF_OP_bra || res[i].kind == AMDDWARF_OP_skip) && n != count) {
        st = amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, res[i].offset,
                           "a legacy expression with branches and address-space suffixes");
        goto cleanup;
      }
  }
  amddwarf_expr_format f = cu->format;
  f.dialect = AMDDWARF_DIALECT_USER;
  st = amddwarf_expr_encode(res, n, &f, out, capacity, out_size, err);
cleanup:
  amddwarf__mem_free(&object->allocator, ops, size * sizeof *ops);
  amddwarf__mem_free(&object->allocator, res, NORMALIZED_CAPACITY(size) * sizeof *res);
  return st;
}
