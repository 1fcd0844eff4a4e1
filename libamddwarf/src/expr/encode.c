/* Encoding operations into DWARF expression bytes in a chosen dialect.
 *
 * Two passes: the first computes every operation's encoded size (branch
 * operands are always two bytes, so sizes do not depend on targets), the
 * second writes the bytes with branch displacements computed from the
 * offsets. Output past CAPACITY is not written but still counted. */
#include "expr/codec.h"

#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "common/reader.h"

typedef struct writer {
  uint8_t *out;
  size_t capacity;
  size_t pos;
} writer;

static void put_bytes(writer *w, const void *data, size_t n)
{
  if (w->pos < w->capacity) {
    size_t room = w->capacity - w->pos;
    memcpy(w->out + w->pos, data, n < room ? n : room);
  }
  w->pos += n;
}

static void put_u8(writer *w, uint8_t v)
{
  put_bytes(w, &v, 1);
}

static void put_uint(writer *w, uint64_t v, unsigned size)
{
  uint8_t buf[8];
  for (unsigned i = 0; i < size; i++)
    buf[i] = (uint8_t)(v >> (8 * i));
  put_bytes(w, buf, size);
}

static void put_uleb(writer *w, uint64_t v)
{
  uint8_t buf[AMDDWARF_LEB128_MAX_BYTES];
  put_bytes(w, buf, amddwarf__encode_uleb(v, buf));
}

/* True when V (a two's-complement pattern) fits SIZE bytes as unsigned, or
   as signed when SIGNED_. */
static bool fits(uint64_t v, unsigned size, bool signed_)
{
  if (size >= 8)
    return true;
  if (!signed_)
    return v >> (8 * size) == 0;
  int64_t s = amddwarf__expr_as_signed(v);
  int64_t lim = (int64_t)1 << (8 * size - 1);
  return s >= -lim && s < lim;
}

/* Writes V as HOW; false when it does not fit. */
static bool put_integer(writer *w, uint64_t v, amddwarf_expr_integer how)
{
  uint8_t leb[AMDDWARF_LEB128_MAX_BYTES];
  if (how.size == 0) {
    put_bytes(w, leb, how.is_signed ? amddwarf__encode_sleb(amddwarf__expr_as_signed(v), leb)
                                    : amddwarf__encode_uleb(v, leb));
    return true;
  }
  if (!fits(v, how.size, how.is_signed))
    return false;
  put_uint(w, v, how.size);
  return true;
}

static amddwarf_status bad_operand(amddwarf_error *err, size_t index, const amddwarf_op *op,
                                   unsigned which, const char *why)
{
  const amddwarf_op_info *info = &amddwarf__expr_op_table[op->kind];
  return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_OPERAND, index, AMDDWARF_NO_OPCODE,
                          AMDDWARF_NO_OPCODE, "operation %llu (%s): operand %u (%s) %s",
                          (unsigned long long)index, info->name, which + 1,
                          amddwarf__expr_operand_kind_name(info->operands[which]), why);
}

/* Writes operand WHICH of OP; OFFSETS (may be NULL in the sizing pass) gives
   each operation's start, for branch displacements. */
static amddwarf_status put_operand(writer *w, const amddwarf_op *op, size_t index,
                                   unsigned which, const amddwarf_expr_format *format,
                                   const uint64_t *offsets, size_t count, amddwarf_error *err)
{
  const amddwarf_op_info *info = &amddwarf__expr_op_table[op->kind];
  amddwarf_operand_kind kind = info->operands[which];
  uint64_t v = op->operands[which];
  amddwarf_expr_integer how;
  if (kind == AMDDWARF_OPERAND_NONE)
    return AMDDWARF_OK;
  if ((unsigned)kind >= AMDDWARF_OPERAND_KIND_COUNT)
    return bad_operand(err, index, op, which, "has an unknown kind");
  if (kind == AMDDWARF_OPERAND_BRANCH) {
    if (op->target > count)
      return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_BRANCH, index, AMDDWARF_NO_OPCODE,
                              AMDDWARF_NO_OPCODE,
                              "operation %llu (%s): target %u is beyond the %llu operations",
                              (unsigned long long)index, info->name, op->target,
                              (unsigned long long)count);
    int64_t disp = 0;
    if (offsets) {
      disp = (int64_t)offsets[op->target] - (int64_t)(offsets[index] + 3);
      if (disp < INT16_MIN || disp > INT16_MAX)
        return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_BRANCH, index, AMDDWARF_NO_OPCODE,
                                AMDDWARF_NO_OPCODE,
                                "operation %llu (%s): displacement %lld to operation %u does "
                                "not fit 16 bits",
                                (unsigned long long)index, info->name, (long long)disp,
                                op->target);
    }
    put_uint(w, (uint64_t)disp & 0xffff, 2);
    return AMDDWARF_OK;
  }
  if (amddwarf__expr_operand_integer(kind, format, &how))
    return put_integer(w, v, how) ? AMDDWARF_OK
                                  : bad_operand(err, index, op, which, "does not fit its size");
  if (kind == AMDDWARF_OPERAND_ENCODED_ADDR) {
    if (v > 0xff)
      return bad_operand(err, index, op, which, "pointer encoding is not one byte");
    if (!amddwarf__expr_eh_pe_integer((uint8_t)v, format, &how))
      return bad_operand(err, index, op, which, "pointer encoding is not supported");
    put_u8(w, (uint8_t)v);
    if (!put_integer(w, op->operands[1], how))
      return bad_operand(err, index, op, which, "pointer does not fit its encoding");
    return AMDDWARF_OK;
  }
  /* A block: its length (ULEB or one byte), then the bytes. */
  how.size = kind == AMDDWARF_OPERAND_BLOCK_U8 ? 1 : 0;
  how.is_signed = false;
  if (!put_integer(w, v, how))
    return bad_operand(err, index, op, which, "block is longer than 255 bytes");
  if (v && !op->block)
    return bad_operand(err, index, op, which, "block has a length but no bytes");
  if (v)
    put_bytes(w, op->block, (size_t)v);
  return AMDDWARF_OK;
}

/* Writes the opcode (and sub-opcode) of OP in FORMAT's dialect. */
static amddwarf_status put_opcode(writer *w, const amddwarf_op *op, size_t index,
                                  amddwarf_dialect dialect, amddwarf_error *err)
{
  const amddwarf_op_info *info = &amddwarf__expr_op_table[op->kind];
  /* Vendor bytes decoded in auto keep their vendor opcode. 0xe9 is
     DW_OP_LLVM_user there, so the vendor DW_OP_LLVM_aspace_implicit_pointer
     has no encoding in auto. */
  if (dialect == AMDDWARF_DIALECT_AUTO && info->code < 0 && op->subop == 0 &&
      info->vendor_code >= 0 && op->opcode == info->vendor_code &&
      info->vendor_code != AMDDWARF_DW_OP_LLVM_USER) {
    put_u8(w, op->opcode);
    return AMDDWARF_OK;
  }
  uint8_t code;
  uint32_t subop;
  if (amddwarf__expr_op_encoding(info, dialect, &code, &subop)) {
    put_u8(w, code);
    if (subop)
      put_uleb(w, subop);
    return AMDDWARF_OK;
  }
  return amddwarf__fail_op(err, AMDDWARF_E_EXPR_NOT_IN_DIALECT, index, AMDDWARF_NO_OPCODE,
                          AMDDWARF_NO_OPCODE,
                          "operation %llu (%s) has no encoding in the %s dialect",
                          (unsigned long long)index, info->name,
                          amddwarf_dialect_name(dialect));
}

static amddwarf_status put_op(writer *w, const amddwarf_op *ops, size_t index, size_t count,
                              const amddwarf_expr_format *format, const uint64_t *offsets,
                              amddwarf_error *err)
{
  const amddwarf_op *op = &ops[index];
  amddwarf_status st = put_opcode(w, op, index, format->dialect, err);
  for (unsigned i = 0; st == AMDDWARF_OK && i < 2; i++)
    st = put_operand(w, op, index, i, format, offsets, count, err);
  return st;
}

amddwarf_status amddwarf__expr_operand_offset(const amddwarf_op *op, unsigned operand,
                                             const amddwarf_expr_format *format,
                                             uint64_t *offset, amddwarf_error *err)
{
  writer sizing = {NULL, 0, 0};
  amddwarf_status st = put_opcode(&sizing, op, 0, format->dialect, err);
  for (unsigned i = 0; st == AMDDWARF_OK && i < operand; i++)
    st = put_operand(&sizing, op, 0, i, format, NULL, 1, err);
  *offset = sizing.pos;
  return st;
}

amddwarf_status amddwarf__expr_encode_offsets(const amddwarf_op *ops, size_t count,
                                             const amddwarf_expr_format *format,
                                             uint64_t *offsets, amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  writer sizing = {NULL, 0, 0};
  for (size_t i = 0; i < count && st == AMDDWARF_OK; i++) {
    offsets[i] = sizing.pos;
    st = put_op(&sizing, ops, i, count, format, NULL, err);
  }
  offsets[count] = sizing.pos;
  return st;
}

amddwarf_status amddwarf_expr_encode(const amddwarf_op *ops, size_t count,
                                     const amddwarf_expr_format *format, uint8_t *out,
                                     size_t capacity, size_t *size, amddwarf_error *err)
{
  amddwarf_expr_format defaults;
  amddwarf_status st = AMDDWARF_OK;
  uint64_t small[64];
  uint64_t *offsets = small;
  if (size)
    *size = 0;
  if (!size || (!ops && count) || (!out && capacity))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_encode: null argument");
  format = amddwarf_expr_format_check(format, &defaults);
  if (!format)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_encode: bad format");
  for (size_t i = 0; i < count; i++)
    if ((unsigned)ops[i].kind >= AMDDWARF_OP_KIND_COUNT)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, i,
                           "operation %llu has an invalid kind %d", (unsigned long long)i,
                           (int)ops[i].kind);

  /* Pass 1, only when there are branches: the offset of every operation. */
  bool has_branch = false;
  for (size_t i = 0; i < count; i++)
    if (amddwarf__expr_op_table[ops[i].kind].operands[0] == AMDDWARF_OPERAND_BRANCH)
      has_branch = true;
  if (has_branch) {
    if (count + 1 > sizeof small / sizeof small[0]) {
      offsets = amddwarf__mem_calloc(NULL, count + 1, sizeof *offsets);
      if (!offsets)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                             "amddwarf_expr_encode: no memory for %llu offsets",
                             (unsigned long long)count);
    }
    st = amddwarf__expr_encode_offsets(ops, count, format, offsets, err);
    if (st != AMDDWARF_OK)
      goto done;
  }

  /* Pass 2: the bytes. */
  writer w = {out, capacity, 0};
  for (size_t i = 0; i < count && st == AMDDWARF_OK; i++)
    st = put_op(&w, ops, i, count, format, has_branch ? offsets : NULL, err);
  if (st == AMDDWARF_OK) {
    *size = w.pos;
    if (w.pos > capacity)
      st = amddwarf__fail(err, AMDDWARF_E_NO_SPACE, capacity,
                         "encoded expression needs %llu bytes, buffer has %llu",
                         (unsigned long long)w.pos, (unsigned long long)capacity);
  }
done:
  if (offsets != small)
    amddwarf__mem_free(NULL, offsets, (count + 1) * sizeof *offsets);
  return st;
}
