/* Decoding DWARF expression bytes into operations, in any dialect.
 *
 * One generic loop walks the operand kinds of each operation's table row.
 * The one- and two-byte forms of the common operands (ULEB registers and
 * sizes, one-byte SLEB offsets) are read inline after an explicit bounds
 * check; every other read goes through the bounds-checked reader of
 * common/reader.h, which also owns the LEB128 rules. This is the decoder a
 * debugger runs at every stop (>= 100 million operations per second,
 * bench/bench_expr_decode.c). Branch targets are resolved to operation
 * indexes once all operations are known. */
#include "expr/codec.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/reader.h"

#if defined(__GNUC__) || defined(__clang__)
#define DECODE_INLINE inline __attribute__((always_inline))
#else
#define DECODE_INLINE inline
#endif

/* Reads an integer written as HOW into *VALUE (signed ones as their
   two's-complement pattern). */
static amddwarf_status read_integer(amddwarf_reader *r, amddwarf_expr_integer how,
                                    uint64_t *value)
{
  if (!how.is_signed)
    return how.size ? amddwarf__read_uint(r, how.size, value) : amddwarf_read_uleb(r, value);
  int64_t v;
  amddwarf_status st = how.size ? amddwarf__read_sint(r, how.size, &v) : amddwarf__read_sleb(r, &v);
  if (st == AMDDWARF_OK)
    *value = (uint64_t)v;
  return st;
}

/* Reads one operand of kind KIND into *VALUE (and *BLOCK for blocks,
   *SECOND for the encoded address's pointer). The reader is left unchanged
   on failure. */
static amddwarf_status read_operand(amddwarf_reader *r, amddwarf_operand_kind kind,
                                    const amddwarf_expr_format *format, uint64_t *value,
                                    const uint8_t **block, uint64_t *second)
{
  amddwarf_expr_integer how;
  if (kind == AMDDWARF_OPERAND_NONE)
    return AMDDWARF_OK;
  if ((unsigned)kind >= AMDDWARF_OPERAND_KIND_COUNT)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (amddwarf__expr_operand_integer(kind, format, &how))
    return read_integer(r, how, value);
  size_t start = r->pos;
  amddwarf_status st;
  uint64_t first;
  if (kind == AMDDWARF_OPERAND_ENCODED_ADDR) {
    /* The DW_EH_PE encoding byte, then the pointer written as it says. */
    uint8_t encoding;
    st = amddwarf_read_u8(r, &encoding);
    if (st != AMDDWARF_OK)
      return st;
    first = encoding;
    if (!amddwarf__expr_eh_pe_integer(encoding, format, &how))
      st = AMDDWARF_E_EXPR_BAD_OPERAND;
    else
      st = read_integer(r, how, second);
  } else {
    /* A block: its length (ULEB or one byte), then the bytes. */
    how.size = kind == AMDDWARF_OPERAND_BLOCK_U8 ? 1 : 0;
    how.is_signed = false;
    st = read_integer(r, how, &first);
    if (st == AMDDWARF_OK)
      st = amddwarf__read_bytes(r, first, block);
  }
  if (st != AMDDWARF_OK) {
    r->pos = start;
    return st;
  }
  *value = first;
  return AMDDWARF_OK;
}

/* Finds the operation starting at byte offset TARGET among OPS[0..COUNT);
   COUNT itself for the end of the expression (offset SIZE). */
static bool find_boundary(const amddwarf_op *ops, size_t count, uint64_t size, uint64_t target,
                          size_t *index)
{
  if (target == size) {
    *index = count;
    return true;
  }
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ops[mid].offset < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < count && ops[lo].offset == target) {
    *index = lo;
    return true;
  }
  return false;
}

static amddwarf_status resolve_branches(amddwarf_op *ops, size_t *count, uint64_t size,
                                        amddwarf_error *err)
{
  size_t n = *count;
  for (size_t i = 0; i < n; i++) {
    amddwarf_op *op = &ops[i];
    if (amddwarf__expr_op_table[op->kind].operands[0] != AMDDWARF_OPERAND_BRANCH)
      continue;
    /* The displacement counts from the end of the 3-byte operation. */
    int64_t disp = (int64_t)op->operands[0];
    int64_t next = (int64_t)(op->offset + op->size);
    int64_t target = next + disp;
    size_t index = 0;
    if (target < 0 || (uint64_t)target > size ||
        !find_boundary(ops, n, size, (uint64_t)target, &index)) {
      *count = i;
      char where[64] = "inside an operation";
      if (target < 0 || (uint64_t)target > size)
        snprintf(where, sizeof where, "outside the %llu-byte expression", (unsigned long long)size);
      return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_BRANCH, op->offset, op->opcode,
                              AMDDWARF_NO_OPCODE,
                              "%s at offset %llu (opcode 0x%02x): displacement %lld targets "
                              "offset %lld, %s",
                              amddwarf__expr_op_table[op->kind].name,
                              (unsigned long long)op->offset, op->opcode, (long long)disp,
                              (long long)target, where);
    }
    op->target = (uint32_t)index;
  }
  return AMDDWARF_OK;
}

static amddwarf_status operand_error(amddwarf_error *err, amddwarf_status st,
                                     const amddwarf_op *op, unsigned which,
                                     amddwarf_operand_kind kind, size_t operand_offset,
                                     const amddwarf_expr_format *format)
{
  const char *name = amddwarf__expr_op_table[op->kind].name;
  int32_t subop = op->subop ? (int32_t)op->subop : AMDDWARF_NO_OPCODE;
  const char *what = st == AMDDWARF_E_TRUNCATED     ? "truncated"
                     : st == AMDDWARF_E_LEB_OVERFLOW ? "LEB128 overflows 64 bits in"
                     : st == AMDDWARF_E_LEB_OVERLONG ? "overlong LEB128 in"
                     : st == AMDDWARF_E_EXPR_BAD_OPERAND
                         ? "unsupported pointer encoding in"
                         : "bad";
  return amddwarf__fail_op(err, st, op->offset, op->opcode, subop,
                          "%s at offset %llu (opcode 0x%02x, %s dialect): %s operand %u (%s) "
                          "at offset %llu",
                          name, (unsigned long long)op->offset, op->opcode,
                          amddwarf_dialect_name(format->dialect), what, which + 1,
                          amddwarf__expr_operand_kind_name(kind),
                          (unsigned long long)operand_offset);
}

/* Resolves an opcode that is not a standard operation: DW_OP_LLVM_user and
   its sub-opcode, or the dialect's extension opcodes. R is just past the
   opcode byte; *KIND gets the operation. */
static amddwarf_status decode_extension(amddwarf_reader *r, const amddwarf_expr_format *format,
                                        amddwarf_op *op, amddwarf_op_kind *kind,
                                        amddwarf_error *err)
{
  const amddwarf_dialect dialect = format->dialect;
  const uint64_t start = op->offset;
  const uint8_t code = op->opcode;
  if (code == AMDDWARF_DW_OP_LLVM_USER && amddwarf_expr_dialect_has_user(dialect)) {
    uint64_t subop;
    size_t subop_at = r->pos;
    amddwarf_status st = amddwarf_read_uleb(r, &subop);
    if (st != AMDDWARF_OK)
      return amddwarf__fail_op(err, st, start, code, AMDDWARF_NO_OPCODE,
                              "DW_OP_LLVM_user at offset %llu (opcode 0x%02x): %s sub-opcode "
                              "at offset %llu",
                              (unsigned long long)start, code,
                              st == AMDDWARF_E_TRUNCATED ? "truncated" : "bad LEB128",
                              (unsigned long long)subop_at);
    if (subop == 0 || !amddwarf__expr_ext_by_subop(subop, kind)) {
      int32_t sub = subop <= INT32_MAX ? (int32_t)subop : AMDDWARF_NO_OPCODE;
      return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_SUBOP, start, code, sub,
                              "DW_OP_LLVM_user at offset %llu (opcode 0x%02x): %s sub-opcode "
                              "0x%llx",
                              (unsigned long long)start, code, subop == 0 ? "invalid" : "unknown",
                              (unsigned long long)subop);
    }
    op->subop = (uint32_t)subop;
    return AMDDWARF_OK;
  }
  if (!amddwarf__expr_ext_by_opcode(dialect, code, kind))
    return amddwarf__fail_op(err, AMDDWARF_E_EXPR_UNKNOWN_OPCODE, start, code, AMDDWARF_NO_OPCODE,
                            "unknown opcode 0x%02x at offset %llu (%s dialect)", code,
                            (unsigned long long)start, amddwarf_dialect_name(dialect));
  return AMDDWARF_OK;
}

/* The operand kinds whose one- and two-byte encodings the hot loop reads
   itself (most operands of real location expressions): 1 = ULEB-like, 2 =
   SLEB, 3 = one byte. Everything else goes through read_operand. */
static const uint8_t fast_class[AMDDWARF_OPERAND_KIND_COUNT] = {
    [AMDDWARF_OPERAND_ULEB] = 1, [AMDDWARF_OPERAND_REG] = 1, [AMDDWARF_OPERAND_TYPE] = 1,
    [AMDDWARF_OPERAND_SLEB] = 2, [AMDDWARF_OPERAND_U8] = 3,
};

/* Reads operand WHICH (of kind KIND) of OP from the bytes at DATA[*POS],
   SIZE bytes in all: the common short forms inline, the rest through the
   bounds-checked reader. */
static DECODE_INLINE amddwarf_status get_operand(const uint8_t *data, size_t size, size_t *pos,
                                                 amddwarf_operand_kind kind,
                                                 const amddwarf_expr_format *format,
                                                 amddwarf_op *op, unsigned which)
{
  const size_t at = *pos;
  const unsigned cls = fast_class[kind];
  if (cls != 0 && at < size) {
    const uint8_t b = data[at];
    if (b < 0x80 || cls == 3) {
      op->operands[which] = (cls == 2 && (b & 0x40)) ? (uint64_t)b | ~(uint64_t)0x7f : b;
      *pos = at + 1;
      return AMDDWARF_OK;
    }
    if (cls == 1 && size - at >= 2 && data[at + 1] < 0x80) {
      op->operands[which] = (uint64_t)(b & 0x7f) | (uint64_t)data[at + 1] << 7;
      *pos = at + 2;
      return AMDDWARF_OK;
    }
  }
  amddwarf_reader r;
  amddwarf_reader_init(&r, data, size);
  r.pos = at;
  amddwarf_status st =
      read_operand(&r, kind, format, &op->operands[which], &op->block, &op->operands[1]);
  *pos = r.pos;
  return st;
}

/* Decodes the operation at DATA[*POS] (POS < SIZE) into *OP, every field
   set, and advances *POS; this is the hot loop's body. Returns the status;
   on failure ERR names the operation. *BRANCHES counts branch operations. */
static DECODE_INLINE amddwarf_status decode_op(const uint8_t *data, size_t size, size_t *pos,
                                               const amddwarf_expr_format *format,
                                               amddwarf_op *op, unsigned *branches,
                                               amddwarf_error *err)
{
  amddwarf_status st;
  const size_t start = *pos;
  size_t at = start + 1;
  const uint8_t code = data[start];
  unsigned kind = amddwarf__expr_std_opcode[code];
  op->opcode = code;
  op->subop = 0;
  op->offset = start;
  op->target = 0;
  op->operands[0] = 0;
  op->operands[1] = 0;
  op->block = NULL;
  if (kind == 0) {
    amddwarf_op_kind ext;
    amddwarf_reader r;
    amddwarf_reader_init(&r, data, size);
    r.pos = at;
    st = decode_extension(&r, format, op, &ext, err);
    if (st != AMDDWARF_OK)
      return st;
    at = r.pos;
    kind = (unsigned)ext + 1;
  }
  kind -= 1;
  op->kind = (amddwarf_op_kind)kind;
  const amddwarf_op_info *info = &amddwarf__expr_op_table[kind];
  const amddwarf_operand_kind first = info->operands[0];
  *branches += first == AMDDWARF_OPERAND_BRANCH;
  if (first != AMDDWARF_OPERAND_NONE) {
    size_t operand_at = at;
    st = get_operand(data, size, &at, first, format, op, 0);
    if (st != AMDDWARF_OK)
      return operand_error(err, st, op, 0, first, operand_at, format);
    const amddwarf_operand_kind second = info->operands[1];
    if (second != AMDDWARF_OPERAND_NONE) {
      operand_at = at;
      st = get_operand(data, size, &at, second, format, op, 1);
      if (st != AMDDWARF_OK)
        return operand_error(err, st, op, 1, second, operand_at, format);
    }
  }
  uint64_t regno;
  if (amddwarf__expr_opcode_register(op->kind, &regno))
    op->operands[1] = regno;
  op->size = (uint32_t)(at - start);
  *pos = at;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__expr_decode_one(amddwarf_reader *r, const amddwarf_expr_format *format,
                                         amddwarf_op *op, amddwarf_error *err)
{
  if (amddwarf_reader_at_end(r))
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, r->pos, "no operation at offset %llu",
                         (unsigned long long)r->pos);
  unsigned branches = 0;
  return decode_op(r->data, r->size, &r->pos, format, op, &branches, err);
}

amddwarf_status amddwarf_expr_decode(const uint8_t *bytes, size_t size,
                                     const amddwarf_expr_format *format, amddwarf_op *ops,
                                     size_t capacity, size_t *count, amddwarf_error *err)
{
  amddwarf_expr_format defaults;
  size_t n = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (count)
    *count = 0;
  if (!count || (!bytes && size) || (!ops && capacity))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_decode: null argument");
  format = amddwarf_expr_format_check(format, &defaults);
  if (!format)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_decode: bad format (dialect, address size 2/4/8, "
                         "offset size 4/8, version 2-5)");
  if (size > UINT32_MAX)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "expression of %llu bytes exceeds the 4 GiB limit",
                         (unsigned long long)size);

  size_t pos = 0;
  unsigned branches = 0;
  while (pos < size) {
    if (n == capacity) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_SPACE, pos,
                         "more than %llu operations; output array full at offset %llu",
                         (unsigned long long)capacity, (unsigned long long)pos);
      goto done;
    }
    st = decode_op(bytes, size, &pos, format, &ops[n], &branches, err);
    if (st != AMDDWARF_OK)
      goto done;
    n++;
  }
  if (branches)
    st = resolve_branches(ops, &n, size, err);
done:
  *count = n;
  return st;
}
