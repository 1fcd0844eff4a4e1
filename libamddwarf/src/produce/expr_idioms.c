/* The location idioms of the AMDGPU DWARF extensions (the seed's
 * "AMDGPU" notes), each a short sequence of builder calls. Register numbers
 * come from regs.def (EXEC_MASK_32 is 1, EXEC_MASK_64 is 17). */
#include <amddwarf/produce.h>

#include "common/error.h"

enum {
  REG_EXEC_MASK_32 = 1,
  REG_EXEC_MASK_64 = 17,
  ASPACE_PRIVATE_LANE = 5,
  ASPACE_PRIVATE_WAVE = 6,
};

/* Pushes the constant VALUE in its shortest form: litN or constu. */
static amddwarf_status push_const(amddwarf_expr_builder *b, uint64_t value, amddwarf_error *err)
{
  if (value < 32)
    return amddwarf_expr_builder_op(b, (amddwarf_op_kind)(AMDDWARF_OP_lit0 + (int)value), 0, 0,
                                    err);
  return amddwarf_expr_builder_op(b, AMDDWARF_OP_constu, value, 0, err);
}

static amddwarf_status check_wave(unsigned wave_size, amddwarf_error *err)
{
  if (wave_size != 32 && wave_size != 64)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_WAVE_SIZE, AMDDWARF_NO_OFFSET,
                         "wave size %u is not 32 or 64", wave_size);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_build_vgpr_lane(amddwarf_expr_builder *b, uint32_t vgpr,
                                              uint32_t byte_offset, amddwarf_error *err)
{
  amddwarf_status st = amddwarf_expr_builder_op(b, AMDDWARF_OP_regx, vgpr, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_push_lane, 0, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_lit4, 0, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_mul, 0, 0, err);
  if (st == AMDDWARF_OK && byte_offset)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_plus_uconst, byte_offset, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_offset, 0, 0, err);
  return st;
}

amddwarf_status amddwarf_expr_build_sgpr_in_vgpr_lane(amddwarf_expr_builder *b, uint32_t vgpr,
                                                      uint32_t lane, amddwarf_error *err)
{
  if (lane >= 64)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_LANE, AMDDWARF_NO_OFFSET,
                         "lane %u is not in a wave", (unsigned)lane);
  amddwarf_status st = amddwarf_expr_builder_op(b, AMDDWARF_OP_regx, vgpr, 0, err);
  if (st != AMDDWARF_OK)
    return st;
  const amddwarf_expr_format *f = amddwarf_expr_builder_format(b);
  if (f->dialect != AMDDWARF_DIALECT_DRAFT)
    return amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_offset_uconst, (uint64_t)lane * 4, 0,
                                    err);
  st = push_const(b, (uint64_t)lane * 4, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_offset, 0, 0, err);
  return st;
}

amddwarf_status amddwarf_expr_build_vgpr_spill(amddwarf_expr_builder *b, uint32_t vgpr,
                                               uint32_t base_reg, int64_t lane_offset,
                                               unsigned wave_size, amddwarf_error *err)
{
  amddwarf_status st = check_wave(wave_size, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_regx, vgpr, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_bregx, base_reg, (uint64_t)lane_offset, err);
  if (st == AMDDWARF_OK)
    st = push_const(b, wave_size, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_mul, 0, 0, err);
  if (st == AMDDWARF_OK)
    st = push_const(b, ASPACE_PRIVATE_WAVE, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_bregx,
                                  wave_size == 64 ? REG_EXEC_MASK_64 : REG_EXEC_MASK_32, 0, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_select_bit_piece, 32, wave_size, err);
  return st;
}

amddwarf_status amddwarf_expr_build_private_frame_base(amddwarf_expr_builder *b,
                                                       uint32_t frame_reg, int wave_scaled,
                                                       unsigned wave_size, amddwarf_error *err)
{
  amddwarf_status st = check_wave(wave_size, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_bregx, frame_reg, 0, err);
  if (st == AMDDWARF_OK && wave_scaled) {
    st = push_const(b, wave_size == 64 ? 6 : 5, err);
    if (st == AMDDWARF_OK)
      st = amddwarf_expr_builder_op(b, AMDDWARF_OP_shr, 0, 0, err);
  }
  if (st == AMDDWARF_OK)
    st = push_const(b, ASPACE_PRIVATE_LANE, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0, err);
  return st;
}

amddwarf_status amddwarf_expr_build_private_lane_var(amddwarf_expr_builder *b, int64_t offset,
                                                     amddwarf_error *err)
{
  return amddwarf_expr_builder_op(b, AMDDWARF_OP_fbreg, (uint64_t)offset, 0, err);
}

amddwarf_status amddwarf_expr_build_aspace_address(amddwarf_expr_builder *b, uint64_t address,
                                                   uint32_t aspace, amddwarf_error *err)
{
  amddwarf_status st = push_const(b, address, err);
  if (st == AMDDWARF_OK)
    st = push_const(b, aspace, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0, err);
  return st;
}
