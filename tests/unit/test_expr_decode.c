/* The expression decoder and encoder: every operand kind, every opcode in
 * every dialect, every decode error, and decode(encode(x)) == x.
 *
 * Expected bytes are written by hand from DWARF 5 section 7.7.1, GNU's
 * dwarf2.def, and the extension table of DESIGN.md section 6 (repeated
 * below), not computed from ops.def. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/expr.h>

#include "expr/codec.h"

static amddwarf_expr_format fmt(amddwarf_dialect dialect, uint8_t addr, uint8_t offs,
                                uint16_t version)
{
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  f.dialect = dialect;
  f.address_size = addr;
  f.offset_size = offs;
  f.version = version;
  return f;
}

static amddwarf_status decode(const uint8_t *bytes, size_t size, amddwarf_dialect dialect,
                              amddwarf_op *ops, size_t *count, amddwarf_error *err)
{
  amddwarf_expr_format f = fmt(dialect, 8, 4, 5);
  amddwarf_error_clear(err);
  return amddwarf_expr_decode(bytes, size, &f, ops, 64, count, err);
}

/* ---- Extension opcodes, from DESIGN.md section 6 ---------------------- */

typedef struct ext_row {
  const char *name;
  int draft, vendor, user;
} ext_row;

static const ext_row ext_rows[] = {
    {"DW_OP_LLVM_nop", -1, -1, 0x01},
    {"DW_OP_LLVM_form_aspace_address", 0xe7, 0xe1, 0x02},
    {"DW_OP_LLVM_push_lane", 0xea, 0xe2, 0x03},
    {"DW_OP_LLVM_offset", 0xe9, 0xe3, 0x04},
    {"DW_OP_LLVM_offset_uconst", -1, 0xe4, 0x05},
    {"DW_OP_LLVM_bit_offset", -1, 0xe5, 0x06},
    {"DW_OP_LLVM_call_frame_entry_reg", -1, 0xe6, 0x07},
    {"DW_OP_LLVM_undefined", -1, 0xe7, 0x08},
    {"DW_OP_LLVM_aspace_bregx", -1, 0xe8, 0x09},
    {"DW_OP_LLVM_aspace_implicit_pointer", -1, 0xe9, -1},
    {"DW_OP_LLVM_piece_end", -1, 0xea, 0x0a},
    {"DW_OP_LLVM_extend", -1, 0xeb, 0x0b},
    {"DW_OP_LLVM_select_bit_piece", -1, 0xec, 0x0c},
};

static const ext_row *ext_find(const char *name)
{
  for (size_t i = 0; i < sizeof ext_rows / sizeof ext_rows[0]; i++)
    if (strcmp(ext_rows[i].name, name) == 0)
      return &ext_rows[i];
  return NULL;
}

/* The opcode bytes expected for operation INFO in DIALECT; 0 when the
   dialect cannot encode it. */
static size_t expected_opcode(const amddwarf_op_info *info, amddwarf_dialect dialect,
                              uint8_t *out)
{
  if (info->code >= 0) {
    out[0] = (uint8_t)info->code;
    return 1;
  }
  const ext_row *row = ext_find(info->name);
  assert_non_null(row);
  switch (dialect) {
  case AMDDWARF_DIALECT_DRAFT:
    if (row->draft < 0)
      return 0;
    out[0] = (uint8_t)row->draft;
    return 1;
  case AMDDWARF_DIALECT_VENDOR:
    if (row->vendor < 0)
      return 0;
    out[0] = (uint8_t)row->vendor;
    return 1;
  default:
    if (row->user < 0)
      return 0;
    out[0] = 0xe9;
    out[1] = (uint8_t)row->user;
    return 2;
  }
}

/* ---- Sample operands and their hand-written encodings ------------------ */

static const uint8_t block3[] = {0xde, 0xad, 0x01};

typedef struct sample {
  uint64_t value, second;
  uint8_t bytes[16];
  size_t size;
} sample;

/* Sample of operand KIND with 8-byte addresses and 32-bit DWARF 5. */
static sample sample_for(amddwarf_operand_kind kind)
{
  switch (kind) {
  case AMDDWARF_OPERAND_U8: return (sample){0xab, 0, {0xab}, 1};
  case AMDDWARF_OPERAND_S8: return (sample){(uint64_t)-5, 0, {0xfb}, 1};
  case AMDDWARF_OPERAND_U16: return (sample){0xbeef, 0, {0xef, 0xbe}, 2};
  case AMDDWARF_OPERAND_S16: return (sample){(uint64_t)-300, 0, {0xd4, 0xfe}, 2};
  case AMDDWARF_OPERAND_U32: return (sample){0xdeadbeef, 0, {0xef, 0xbe, 0xad, 0xde}, 4};
  case AMDDWARF_OPERAND_S32:
    return (sample){(uint64_t)-70000, 0, {0x90, 0xee, 0xfe, 0xff}, 4};
  case AMDDWARF_OPERAND_U64:
    return (sample){0x0123456789abcdefu, 0, {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}, 8};
  case AMDDWARF_OPERAND_S64:
    return (sample){(uint64_t)-2, 0, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8};
  case AMDDWARF_OPERAND_ULEB: return (sample){624485, 0, {0xe5, 0x8e, 0x26}, 3};
  case AMDDWARF_OPERAND_SLEB: return (sample){(uint64_t)-123456, 0, {0xc0, 0xbb, 0x78}, 3};
  case AMDDWARF_OPERAND_ADDR:
    return (sample){0x1122334455667788u, 0, {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}, 8};
  case AMDDWARF_OPERAND_DIE_REF: return (sample){0x12345678, 0, {0x78, 0x56, 0x34, 0x12}, 4};
  case AMDDWARF_OPERAND_BLOCK: return (sample){3, 0, {0x03, 0xde, 0xad, 0x01}, 4};
  case AMDDWARF_OPERAND_BLOCK_U8: return (sample){3, 0, {0x03, 0xde, 0xad, 0x01}, 4};
  case AMDDWARF_OPERAND_TYPE: return (sample){0x2b, 0, {0x2b}, 1};
  case AMDDWARF_OPERAND_REG: return (sample){2563, 0, {0x83, 0x14}, 2};
  case AMDDWARF_OPERAND_ENCODED_ADDR:
    return (sample){0x03, 0x1234, {0x03, 0x34, 0x12, 0x00, 0x00}, 5};
  case AMDDWARF_OPERAND_BRANCH: /* to the end: displacement 0 */
    return (sample){0, 0, {0x00, 0x00}, 2};
  default: return (sample){0, 0, {0}, 0};
  }
}

/* Builds OP of INFO with the sample operands, and the expected bytes. */
static size_t build(const amddwarf_op_info *info, amddwarf_dialect dialect, amddwarf_op *op,
                    uint8_t *bytes)
{
  memset(op, 0, sizeof *op);
  op->kind = info->kind;
  size_t n = expected_opcode(info, dialect, bytes);
  if (n == 0)
    return 0;
  for (unsigned i = 0; i < 2 && info->operands[i] != AMDDWARF_OPERAND_NONE; i++) {
    sample s = sample_for(info->operands[i]);
    assert_true(s.size > 0);
    op->operands[i] = s.value;
    if (info->operands[i] == AMDDWARF_OPERAND_ENCODED_ADDR)
      op->operands[1] = s.second;
    if (info->operands[i] == AMDDWARF_OPERAND_BLOCK ||
        info->operands[i] == AMDDWARF_OPERAND_BLOCK_U8)
      op->block = block3;
    if (info->operands[i] == AMDDWARF_OPERAND_BRANCH)
      op->target = 1;
    memcpy(bytes + n, s.bytes, s.size);
    n += s.size;
  }
  if (info->kind >= AMDDWARF_OP_reg0 && info->kind <= AMDDWARF_OP_reg31)
    op->operands[1] = (uint64_t)(info->kind - AMDDWARF_OP_reg0);
  if (info->kind >= AMDDWARF_OP_breg0 && info->kind <= AMDDWARF_OP_breg31)
    op->operands[1] = (uint64_t)(info->kind - AMDDWARF_OP_breg0);
  return n;
}

static void assert_same_op(const amddwarf_op *a, const amddwarf_op *b)
{
  assert_int_equal(a->kind, b->kind);
  assert_int_equal(a->operands[0], b->operands[0]);
  assert_int_equal(a->operands[1], b->operands[1]);
  assert_int_equal(a->target, b->target);
  const amddwarf_op_info *info = amddwarf_op_info_get(a->kind);
  for (unsigned i = 0; i < 2; i++)
    if (info->operands[i] == AMDDWARF_OPERAND_BLOCK ||
        info->operands[i] == AMDDWARF_OPERAND_BLOCK_U8)
      assert_memory_equal(a->block, b->block, (size_t)a->operands[i]);
}

/* ---- Table -------------------------------------------------------------- */

static void test_table_lookups(void **state)
{
  (void)state;
  size_t with_code = 0;
  for (int k = 0; k < AMDDWARF_OP_KIND_COUNT; k++) {
    const amddwarf_op_info *info = amddwarf_op_info_get((amddwarf_op_kind)k);
    assert_non_null(info);
    assert_int_equal(info->kind, k);
    assert_ptr_equal(amddwarf_op_info_by_name(info->name), info);
    if (info->code >= 0)
      with_code++;
    else
      assert_non_null(ext_find(info->name));
  }
  /* DWARF 5: 0x03-0xa9 minus the 9 unassigned codes (0x04, 0x05, 0x07);
     GNU: 0xe0 and 0xf0-0xfd minus 0xf8. */
  assert_int_equal(with_code, 167 - 3 + 1 + 13);
  assert_null(amddwarf_op_info_get(AMDDWARF_OP_KIND_COUNT));
  assert_null(amddwarf_op_info_by_name("DW_OP_frobnicate"));
  assert_int_equal(amddwarf_op_info_by_name("DW_OP_bregx")->operands[0], AMDDWARF_OPERAND_REG);
  assert_int_equal(amddwarf_op_info_by_name("DW_OP_bregx")->operands[1], AMDDWARF_OPERAND_SLEB);
  assert_int_equal(amddwarf_op_info_by_name("DW_OP_LLVM_push_lane")->user_subop, 3);
  /* The stack effect column: needs, pops, pushes; -1 for the calls. */
  static const struct {
    const char *name;
    int needs;
    unsigned pops, pushes;
  } effects[] = {{"DW_OP_over", 2, 2, 3},          {"DW_OP_rot", 3, 3, 3},
                 {"DW_OP_lit7", 0, 0, 1},          {"DW_OP_breg31", 0, 0, 1},
                 {"DW_OP_stack_value", 1, 0, 0},   {"DW_OP_bra", 1, 1, 0},
                 {"DW_OP_LLVM_form_aspace_address", 2, 2, 1},
                 {"DW_OP_call_ref", -1, 0, 0}};
  for (size_t i = 0; i < sizeof effects / sizeof effects[0]; i++) {
    const amddwarf_op_info *info = amddwarf_op_info_by_name(effects[i].name);
    assert_int_equal(info->stack_needs, effects[i].needs);
    assert_int_equal(info->stack_pops, effects[i].pops);
    assert_int_equal(info->stack_pushes, effects[i].pushes);
  }

  amddwarf_dialect d;
  assert_int_equal(amddwarf_dialect_from_name("vendor", &d), AMDDWARF_OK);
  assert_int_equal(d, AMDDWARF_DIALECT_VENDOR);
  assert_int_equal(amddwarf_dialect_from_name("bogus", &d), AMDDWARF_NOT_FOUND);
  assert_string_equal(amddwarf_dialect_name(AMDDWARF_DIALECT_USER), "user");
}

/* ---- Every opcode in every dialect ------------------------------------- */

static void test_every_op_every_dialect(void **state)
{
  (void)state;
  size_t checked = 0, refused = 0;
  for (int d = 0; d < AMDDWARF_DIALECT_COUNT; d++) {
    amddwarf_expr_format f = fmt((amddwarf_dialect)d, 8, 4, 5);
    for (int k = 0; k < AMDDWARF_OP_KIND_COUNT; k++) {
      const amddwarf_op_info *info = amddwarf_op_info_get((amddwarf_op_kind)k);
      amddwarf_op op;
      uint8_t expected[32], out[32];
      size_t n = build(info, (amddwarf_dialect)d, &op, expected);
      size_t size = 99;
      amddwarf_error err;
      amddwarf_error_clear(&err);
      amddwarf_status st = amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err);
      if (n == 0) {
        /* Not encodable: the error names the operation and the dialect. */
        assert_int_equal(st, AMDDWARF_E_EXPR_NOT_IN_DIALECT);
        assert_non_null(strstr(err.message, info->name));
        assert_non_null(strstr(err.message, amddwarf_dialect_name((amddwarf_dialect)d)));
        refused++;
        continue;
      }
      if (st != AMDDWARF_OK)
        fail_msg("%s in %s: %s", info->name, amddwarf_dialect_name((amddwarf_dialect)d),
                 err.message);
      assert_int_equal(size, n);
      assert_memory_equal(out, expected, n);

      amddwarf_op back[4];
      size_t count = 0;
      st = amddwarf_expr_decode(expected, n, &f, back, 4, &count, &err);
      if (st != AMDDWARF_OK)
        fail_msg("%s in %s: %s", info->name, amddwarf_dialect_name((amddwarf_dialect)d),
                 err.message);
      assert_int_equal(count, 1);
      assert_same_op(&back[0], &op);
      assert_int_equal(back[0].offset, 0);
      assert_int_equal(back[0].size, n);
      assert_int_equal(back[0].opcode, expected[0]);
      assert_int_equal(back[0].subop, expected[0] == 0xe9 && n > 1 && info->code < 0 &&
                                              d != AMDDWARF_DIALECT_DRAFT &&
                                              d != AMDDWARF_DIALECT_VENDOR
                                          ? expected[1]
                                          : 0);
      /* Every truncation of the bytes is an error at offset 0 with nothing
         decoded; after a DW_OP_lit0 the error is at offset 1, with the
         DW_OP_lit0 kept. */
      for (size_t cut = 1; cut < n; cut++) {
        count = 99;
        st = amddwarf_expr_decode(expected, cut, &f, back, 4, &count, &err);
        assert_int_equal(st, AMDDWARF_E_TRUNCATED);
        assert_int_equal(count, 0);
        assert_int_equal(err.offset, 0);
        assert_int_equal(err.opcode, expected[0]);
        uint8_t shifted[40] = {0x30};
        memcpy(shifted + 1, expected, cut);
        st = amddwarf_expr_decode(shifted, cut + 1, &f, back, 4, &count, &err);
        assert_int_equal(st, AMDDWARF_E_TRUNCATED);
        assert_int_equal(count, 1);
        assert_int_equal(back[0].kind, AMDDWARF_OP_lit0);
        assert_int_equal(err.offset, 1);
      }
      checked++;
    }
  }
  /* Standard ops in 4 dialects + extension ops where they exist:
     draft 3, vendor 12 (no nop), user 12 and auto 12 (no
     aspace_implicit_pointer). */
  assert_int_equal(refused, 10 + 1 + 1 + 1);
  assert_int_equal(checked, 4 * (AMDDWARF_OP_KIND_COUNT - 13) + 3 + 12 + 12 + 12);
}

/* ---- Operand kinds with hand-written bytes ----------------------------- */

static void test_operand_kinds(void **state)
{
  (void)state;
  amddwarf_op ops[16];
  size_t count;
  amddwarf_error err;

  /* DW_OP_addr with 4- and 8-byte addresses. */
  static const uint8_t addr4[] = {0x03, 0x78, 0x56, 0x34, 0x12, 0x06};
  amddwarf_expr_format f4 = fmt(AMDDWARF_DIALECT_AUTO, 4, 4, 5);
  assert_int_equal(amddwarf_expr_decode(addr4, sizeof addr4, &f4, ops, 16, &count, &err), 0);
  assert_int_equal(count, 2);
  assert_int_equal(ops[0].operands[0], 0x12345678);
  assert_int_equal(ops[0].size, 5);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_deref);
  assert_int_equal(ops[1].offset, 5);
  assert_int_equal(decode(addr4, sizeof addr4, AMDDWARF_DIALECT_AUTO, ops, &count, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(count, 0);

  /* DW_OP_call_ref: offset size in DWARF 3+, address size in DWARF 2. */
  static const uint8_t call_ref64[] = {0x9a, 1, 2, 3, 4, 5, 6, 7, 8};
  amddwarf_expr_format f64 = fmt(AMDDWARF_DIALECT_AUTO, 4, 8, 4);
  assert_int_equal(
      amddwarf_expr_decode(call_ref64, sizeof call_ref64, &f64, ops, 16, &count, &err), 0);
  assert_int_equal(ops[0].operands[0], 0x0807060504030201u);
  amddwarf_expr_format f2 = fmt(AMDDWARF_DIALECT_AUTO, 8, 4, 2);
  assert_int_equal(
      amddwarf_expr_decode(call_ref64, sizeof call_ref64, &f2, ops, 16, &count, &err), 0);
  assert_int_equal(count, 1);
  amddwarf_expr_format f3 = fmt(AMDDWARF_DIALECT_AUTO, 8, 4, 3);
  assert_int_equal(
      amddwarf_expr_decode(call_ref64, sizeof call_ref64, &f3, ops, 16, &count, &err),
      AMDDWARF_E_EXPR_UNKNOWN_OPCODE);

  /* DW_OP_LLVM_aspace_bregx's displacement is a ULEB (specs/encodings.md), as
     LLVM writes DW_CFA_LLVM_def_aspace_cfa's and LLVM and libdwarf read it:
     7c is 124, not -4; -4 is its 10-byte two's complement. Encoding gives the
     same bytes back. */
  static const uint8_t bregx[] = {0xe9, 0x09, 0x40, 0x7c, 0xe8, 0x40, 0xfc, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(decode(bregx, sizeof bregx, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 2);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_LLVM_aspace_bregx);
  assert_int_equal(ops[0].operands[0], 64);
  assert_int_equal(ops[0].operands[1], 124);
  assert_int_equal(ops[0].size, 4);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_LLVM_aspace_bregx);
  assert_int_equal(ops[1].operands[1], UINT64_MAX - 3);
  assert_int_equal(ops[1].size, 12);
  assert_int_equal(amddwarf_op_info_get(AMDDWARF_OP_LLVM_aspace_bregx)->operands[1],
                   AMDDWARF_OPERAND_ULEB);
  uint8_t out[32];
  size_t n = 0;
  amddwarf_expr_format fa = fmt(AMDDWARF_DIALECT_AUTO, 8, 4, 5);
  assert_int_equal(amddwarf_expr_encode(ops, count, &fa, out, sizeof out, &n, &err), 0);
  assert_int_equal(n, sizeof bregx);
  assert_memory_equal(out, bregx, sizeof bregx);
}


static void test_operand_kinds_more(void **state)
{
  (void)state;
  amddwarf_op ops[16];
  size_t count;
  amddwarf_error err;

  /* The AMDGPU frame base of a variable: DW_OP_regx SGPR33 (0x41), then a
     VGPR lane: DW_OP_regx VGPR3 (2563 = 0x83 0x14), push_lane, piece 4. */
  static const uint8_t lanes[] = {0x90, 0x41, 0x90, 0x83, 0x14, 0xe9, 0x03, 0x93, 0x04};
  assert_int_equal(decode(lanes, sizeof lanes, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 4);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_regx);
  assert_int_equal(ops[0].operands[0], 33 + 32);
  assert_int_equal(ops[1].operands[0], 2563);
  assert_int_equal(ops[1].offset, 2);
  assert_int_equal(ops[1].size, 3);
  assert_int_equal(ops[2].kind, AMDDWARF_OP_LLVM_push_lane);
  assert_int_equal(ops[2].opcode, 0xe9);
  assert_int_equal(ops[2].subop, 3);
  assert_int_equal(ops[2].size, 2);
  assert_int_equal(ops[3].kind, AMDDWARF_OP_piece);
  assert_int_equal(ops[3].operands[0], 4);
  assert_int_equal(ops[3].offset, 7);

  /* The same bytes in the draft dialect: 0xe9 is DW_OP_LLVM_offset and 0x03
     then DW_OP_addr needs 8 more bytes than there are. */
  assert_int_equal(decode(lanes, sizeof lanes, AMDDWARF_DIALECT_DRAFT, ops, &count, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(count, 3);
  assert_int_equal(ops[2].kind, AMDDWARF_OP_LLVM_offset);
  assert_int_equal(ops[2].subop, 0);
  assert_int_equal(err.offset, 6);
  assert_int_equal(err.opcode, 0x03);
  assert_non_null(strstr(err.message, "DW_OP_addr"));
  assert_non_null(strstr(err.message, "offset 6"));
  /* In the vendor dialect 0xe9 is aspace_implicit_pointer (4-byte ref). */
  assert_int_equal(decode(lanes, sizeof lanes, AMDDWARF_DIALECT_VENDOR, ops, &count, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(count, 2);
  assert_int_equal(err.offset, 5);
  assert_non_null(strstr(err.message, "DW_OP_LLVM_aspace_implicit_pointer"));

  /* Legacy address space as clang-19 emits it: fbreg +16, lit1, swap, xderef. */
  static const uint8_t xderef[] = {0x91, 0x10, 0x31, 0x16, 0x18};
  assert_int_equal(decode(xderef, sizeof xderef, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 4);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_fbreg);
  assert_int_equal((int64_t)ops[0].operands[0], 16);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_lit1);
  assert_int_equal(ops[3].kind, AMDDWARF_OP_xderef);

  /* breg and reg families carry the register in operands[1]. */
  static const uint8_t breg[] = {0x7f, 0x7c, 0x55, 0x92, 0x41, 0x7f};
  assert_int_equal(decode(breg, sizeof breg, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 3);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_breg15);
  assert_int_equal((int64_t)ops[0].operands[0], -4);
  assert_int_equal(ops[0].operands[1], 15);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_reg5);
  assert_int_equal(ops[1].operands[1], 5);
  assert_int_equal(ops[2].kind, AMDDWARF_OP_bregx);
  assert_int_equal(ops[2].operands[0], 65);
  assert_int_equal((int64_t)ops[2].operands[1], -1);

  /* const_type: ULEB type then a 1-byte-length block; entry_value: a ULEB
     block holding a sub-expression; implicit_value. */
  static const uint8_t typed[] = {0xa4, 0x2a, 0x04, 0x01, 0x02, 0x03, 0x04,
                                  0xa3, 0x02, 0x90, 0x41, 0x9e, 0x01, 0x7f,
                                  0xa5, 0x41, 0x2a, 0xa6, 0x04, 0x2a};
  assert_int_equal(decode(typed, sizeof typed, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 5);
  assert_int_equal(ops[0].operands[0], 0x2a);
  assert_int_equal(ops[0].operands[1], 4);
  assert_ptr_equal(ops[0].block, typed + 3);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_entry_value);
  assert_int_equal(ops[1].operands[0], 2);
  assert_ptr_equal(ops[1].block, typed + 9);
  assert_int_equal(ops[2].kind, AMDDWARF_OP_implicit_value);
  assert_int_equal(ops[2].block[0], 0x7f);
  assert_int_equal(ops[3].kind, AMDDWARF_OP_regval_type);
  assert_int_equal(ops[3].operands[0], 0x41);
  assert_int_equal(ops[3].operands[1], 0x2a);
  assert_int_equal(ops[4].kind, AMDDWARF_OP_deref_type);
  assert_int_equal(ops[4].operands[0], 4);
  assert_int_equal(ops[4].operands[1], 0x2a);

  /* A block longer than what is left: truncated at the operation. */
  static const uint8_t long_block[] = {0x30, 0x9e, 0x05, 0x01, 0x02};
  assert_int_equal(
      decode(long_block, sizeof long_block, AMDDWARF_DIALECT_AUTO, ops, &count, &err),
      AMDDWARF_E_TRUNCATED);
  assert_int_equal(count, 1);
  assert_int_equal(err.offset, 1);
  assert_int_equal(err.opcode, 0x9e);

  /* DW_OP_GNU_encoded_addr with sdata4 and uleb128 pointers, and an
     unsupported encoding (0x05). */
  static const uint8_t enc[] = {0xf1, 0x0b, 0xfe, 0xff, 0xff, 0xff, 0xf1, 0x01, 0x80, 0x01};
  assert_int_equal(decode(enc, sizeof enc, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 2);
  assert_int_equal(ops[0].operands[0], 0x0b);
  assert_int_equal((int64_t)ops[0].operands[1], -2);
  assert_int_equal(ops[1].operands[1], 128);
  static const uint8_t enc_bad[] = {0xf1, 0x05, 0x00};
  assert_int_equal(decode(enc_bad, sizeof enc_bad, AMDDWARF_DIALECT_AUTO, ops, &count, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(err.opcode, 0xf1);

  /* consts with the most negative value, constu with the largest. */
  static const uint8_t extremes[] = {0x11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x7f, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0x01};
  assert_int_equal(decode(extremes, sizeof extremes, AMDDWARF_DIALECT_AUTO, ops, &count, &err),
                   0);
  assert_int_equal(count, 2);
  assert_int_equal(ops[0].operands[0], (uint64_t)INT64_MIN);
  assert_int_equal(ops[1].operands[0], UINT64_MAX);
}

/* DESIGN.md section 6: "ULEB operands may be padded (a8 ab 80 80 00)": that is
   DW_OP_convert (0xa8) of the base type at CU offset 0x2b, as LLVM pads type
   references to a fixed width. */
static void test_padded_uleb(void **state)
{
  (void)state;
  static const uint8_t padded[] = {0xa8, 0xab, 0x80, 0x80, 0x00};
  amddwarf_op ops[4];
  size_t count;
  amddwarf_error err;
  assert_int_equal(decode(padded, sizeof padded, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 1);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_convert);
  assert_int_equal(ops[0].operands[0], 0x2b);
  assert_int_equal(ops[0].size, 5);
  /* Re-encoding gives the minimal form. */
  uint8_t out[8];
  size_t size;
  assert_int_equal(amddwarf_expr_encode(ops, 1, NULL, out, sizeof out, &size, &err), 0);
  assert_int_equal(size, 2);
  assert_int_equal(out[0], 0xa8);
  assert_int_equal(out[1], 0x2b);
  /* A padded sub-opcode (DW_OP_LLVM_user push_lane as 0x83 0x00). */
  static const uint8_t padded_subop[] = {0xe9, 0x83, 0x00};
  assert_int_equal(
      decode(padded_subop, sizeof padded_subop, AMDDWARF_DIALECT_USER, ops, &count, &err), 0);
  assert_int_equal(ops[0].kind, AMDDWARF_OP_LLVM_push_lane);
  assert_int_equal(ops[0].subop, 3);
  assert_int_equal(ops[0].size, 3);
}

/* ---- Decode errors ------------------------------------------------------ */

static void expect_error(const uint8_t *bytes, size_t size, amddwarf_dialect dialect,
                         amddwarf_status status, size_t count_before, uint64_t offset,
                         int32_t opcode)
{
  amddwarf_op ops[16];
  size_t count = 99;
  amddwarf_error err;
  assert_int_equal(decode(bytes, size, dialect, ops, &count, &err), status);
  assert_int_equal(err.status, status);
  assert_int_equal(count, count_before);
  assert_int_equal(err.offset, offset);
  assert_int_equal(err.opcode, opcode);
  char where[32];
  snprintf(where, sizeof where, "offset %llu", (unsigned long long)offset);
  assert_non_null(strstr(err.message, where));
  for (size_t i = 0; i < count; i++)
    assert_true(ops[i].offset < offset);
}

static void test_unknown_opcodes(void **state)
{
  (void)state;
  static const uint8_t unassigned[] = {0x00, 0x01, 0x02, 0x04, 0x05, 0x07, 0xaa,
                                       0xdf, 0xed, 0xef, 0xf8, 0xfe, 0xff};
  for (size_t i = 0; i < sizeof unassigned; i++) {
    uint8_t bytes[] = {0x30, 0x31, unassigned[i], 0x96};
    for (int d = 0; d < AMDDWARF_DIALECT_COUNT; d++)
      expect_error(bytes, sizeof bytes, (amddwarf_dialect)d, AMDDWARF_E_EXPR_UNKNOWN_OPCODE, 2,
                   2, unassigned[i]);
  }
  /* The vendor range means nothing in the user dialect, and only 0xe7,
     0xe9, 0xea mean something in the draft dialect. */
  for (unsigned code = 0xe1; code <= 0xec; code++) {
    uint8_t bytes[] = {0x96, (uint8_t)code, 0x00, 0x00, 0x00, 0x00, 0x00};
    if (code != 0xe9)
      expect_error(bytes, sizeof bytes, AMDDWARF_DIALECT_USER, AMDDWARF_E_EXPR_UNKNOWN_OPCODE,
                   1, 1, (int32_t)code);
    if (code != 0xe7 && code != 0xe9 && code != 0xea)
      expect_error(bytes, sizeof bytes, AMDDWARF_DIALECT_DRAFT, AMDDWARF_E_EXPR_UNKNOWN_OPCODE,
                   1, 1, (int32_t)code);
  }
}

static void test_bad_subops(void **state)
{
  (void)state;
  static const uint8_t zero[] = {0x30, 0xe9, 0x00};
  static const uint8_t padded_zero[] = {0x30, 0xe9, 0x80, 0x00};
  static const uint8_t unknown[] = {0x30, 0xe9, 0x0d};
  static const uint8_t huge[] = {0x30, 0xe9, 0xff, 0xff, 0xff, 0xff, 0x7f};
  static const uint8_t missing[] = {0x30, 0xe9};
  for (int d = 0; d < AMDDWARF_DIALECT_COUNT; d++) {
    if (d != AMDDWARF_DIALECT_AUTO && d != AMDDWARF_DIALECT_USER)
      continue;
    expect_error(zero, sizeof zero, (amddwarf_dialect)d, AMDDWARF_E_EXPR_BAD_SUBOP, 1, 1, 0xe9);
    expect_error(padded_zero, sizeof padded_zero, (amddwarf_dialect)d,
                 AMDDWARF_E_EXPR_BAD_SUBOP, 1, 1, 0xe9);
    expect_error(unknown, sizeof unknown, (amddwarf_dialect)d, AMDDWARF_E_EXPR_BAD_SUBOP, 1, 1,
                 0xe9);
    expect_error(huge, sizeof huge, (amddwarf_dialect)d, AMDDWARF_E_EXPR_BAD_SUBOP, 1, 1, 0xe9);
    expect_error(missing, sizeof missing, (amddwarf_dialect)d, AMDDWARF_E_TRUNCATED, 1, 1,
                 0xe9);
  }
  amddwarf_op ops[4];
  size_t count;
  amddwarf_error err;
  assert_int_equal(decode(unknown, sizeof unknown, AMDDWARF_DIALECT_USER, ops, &count, &err),
                   AMDDWARF_E_EXPR_BAD_SUBOP);
  assert_int_equal(err.subop, 0x0d);
  assert_non_null(strstr(err.message, "DW_OP_LLVM_user"));
}

static void test_leb_errors(void **state)
{
  (void)state;
  /* 10th byte with more than bit 63. */
  static const uint8_t overflow[] = {0x30, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0x02};
  expect_error(overflow, sizeof overflow, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_LEB_OVERFLOW, 1, 1,
               0x10);
  /* SLEB 10th byte that disagrees with the sign. */
  static const uint8_t soverflow[] = {0x11, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x01};
  expect_error(soverflow, sizeof soverflow, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_LEB_OVERFLOW, 0,
               0, 0x11);
  /* 11 bytes for one ULEB: padding beyond what a 64-bit value needs. */
  static const uint8_t overlong[] = {0x90, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x80, 0x00};
  expect_error(overlong, sizeof overlong, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_LEB_OVERLONG, 0, 0,
               0x90);
  /* The second operand of bregx. */
  static const uint8_t second[] = {0x92, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80,
                                   0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  expect_error(second, sizeof second, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_LEB_OVERLONG, 0, 0,
               0x92);
  amddwarf_op ops[4];
  size_t count;
  amddwarf_error err;
  decode(second, sizeof second, AMDDWARF_DIALECT_AUTO, ops, &count, &err);
  assert_non_null(strstr(err.message, "operand 2"));
  assert_non_null(strstr(err.message, "offset 2"));
}

static void test_branches(void **state)
{
  (void)state;
  amddwarf_op ops[16];
  size_t count;
  amddwarf_error err;
  static const uint8_t good[] = {0x31, 0x28, 0x04, 0x00, 0x32, 0x2f, 0x01, 0x00,
                                 0x96, 0x33, 0x2f, 0xf3, 0xff};
  /* lit1@0, bra@1 (to 4+4=8: nop), lit2@4, skip@5 (to 8+1=9: lit3), nop@8,
     lit3@9, skip@10 (to 13-13=0: lit1) */
  assert_int_equal(decode(good, sizeof good, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 7);
  assert_int_equal(ops[1].target, 4);
  assert_int_equal(ops[3].target, 5);
  assert_int_equal(ops[6].target, 0);
  assert_int_equal((int64_t)ops[6].operands[0], -13);
  /* To the end of the expression: target == count. */
  static const uint8_t to_end[] = {0x2f, 0x01, 0x00, 0x96};
  assert_int_equal(decode(to_end, sizeof to_end, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(ops[0].target, 2);
  /* Into the middle of the bregx at 3. */
  static const uint8_t middle[] = {0x2f, 0x01, 0x00, 0x92, 0x41, 0x00};
  expect_error(middle, sizeof middle, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_BAD_BRANCH, 0, 0,
               0x2f);
  /* Into its own operand. */
  static const uint8_t self[] = {0x30, 0x28, 0xfe, 0xff};
  expect_error(self, sizeof self, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_BAD_BRANCH, 1, 1,
               0x28);
  /* Past the end and before the start. */
  static const uint8_t past[] = {0x2f, 0x02, 0x00, 0x96};
  expect_error(past, sizeof past, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_BAD_BRANCH, 0, 0, 0x2f);
  static const uint8_t before[] = {0x96, 0x28, 0xfb, 0xff};
  expect_error(before, sizeof before, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_BAD_BRANCH, 1, 1,
               0x28);
  static const uint8_t far[] = {0x2f, 0x00, 0x80};
  expect_error(far, sizeof far, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_BAD_BRANCH, 0, 0, 0x2f);
  decode(past, sizeof past, AMDDWARF_DIALECT_AUTO, ops, &count, &err);
  assert_non_null(strstr(err.message, "DW_OP_skip"));
}

static void test_capacity_and_arguments(void **state)
{
  (void)state;
  static const uint8_t three[] = {0x30, 0x31, 0x32};
  amddwarf_op ops[3];
  size_t count;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_expr_decode(three, 3, NULL, ops, 2, &count, &err),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(count, 2);
  assert_int_equal(err.offset, 2);
  assert_int_equal(amddwarf_expr_decode(three, 3, NULL, ops, 3, &count, &err), 0);
  assert_int_equal(count, 3);
  assert_int_equal(amddwarf_expr_decode(three, 0, NULL, ops, 3, &count, &err), 0);
  assert_int_equal(count, 0);
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  assert_int_equal(f.address_size, 8);
  assert_int_equal(f.offset_size, 4);
  assert_int_equal(f.version, 5);
  assert_int_equal(f.dialect, AMDDWARF_DIALECT_AUTO);
  f.address_size = 3;
  assert_int_equal(amddwarf_expr_decode(three, 3, &f, ops, 3, &count, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_expr_format_init(&f);
  f.offset_size = 2;
  assert_int_equal(amddwarf_expr_decode(three, 3, &f, ops, 3, &count, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_expr_format_init(&f);
  f.dialect = AMDDWARF_DIALECT_COUNT;
  assert_int_equal(amddwarf_expr_decode(three, 3, &f, ops, 3, &count, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_expr_decode(three, 3, NULL, ops, 3, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

/* ---- Encoder errors ----------------------------------------------------- */

static void test_encode_errors(void **state)
{
  (void)state;
  amddwarf_op op;
  uint8_t out[32];
  size_t size;
  amddwarf_error err;
  amddwarf_expr_format f = fmt(AMDDWARF_DIALECT_AUTO, 4, 4, 5);
  memset(&op, 0, sizeof op);
  op.kind = AMDDWARF_OP_const1u;
  op.operands[0] = 256;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_non_null(strstr(err.message, "DW_OP_const1u"));
  op.kind = AMDDWARF_OP_const1s;
  op.operands[0] = (uint64_t)-129;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  op.operands[0] = (uint64_t)-128;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err), 0);
  assert_int_equal(out[1], 0x80);
  op.kind = AMDDWARF_OP_addr;
  op.operands[0] = 0x100000000u;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  op.kind = AMDDWARF_OP_skip;
  op.target = 2;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_BAD_BRANCH);
  /* Too small a buffer: the size needed is still reported. */
  op.kind = AMDDWARF_OP_bregx;
  op.operands[0] = 2563;
  op.operands[1] = (uint64_t)-8;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, 2, &size, &err), AMDDWARF_E_NO_SPACE);
  assert_int_equal(size, 4);
  /* Vendor aspace_implicit_pointer cannot be written in auto (0xe9 is
     DW_OP_LLVM_user there). */
  op.kind = AMDDWARF_OP_LLVM_aspace_implicit_pointer;
  assert_int_equal(amddwarf_expr_encode(&op, 1, &f, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_non_null(strstr(err.message, "auto"));
}

/* A long expression whose branch needs more than 64 offsets, and a branch
   displacement that does not fit 16 bits. */
static void test_encode_long_branches(void **state)
{
  (void)state;
  enum { N = 200 };
  amddwarf_op ops[N];
  memset(ops, 0, sizeof ops);
  for (size_t i = 0; i < N; i++)
    ops[i].kind = AMDDWARF_OP_nop;
  ops[0].kind = AMDDWARF_OP_skip;
  ops[0].target = N - 1;
  ops[N - 1].kind = AMDDWARF_OP_bra;
  ops[N - 1].target = 0;
  uint8_t out[N + 8];
  size_t size;
  amddwarf_error err;
  assert_int_equal(amddwarf_expr_encode(ops, N, NULL, out, sizeof out, &size, &err), 0);
  assert_int_equal(size, 3 + (N - 2) + 3);
  assert_int_equal(out[1] | out[2] << 8, N - 2);
  amddwarf_op back[N];
  size_t count;
  assert_int_equal(amddwarf_expr_decode(out, size, NULL, back, N, &count, &err), 0);
  assert_int_equal(count, N);
  assert_int_equal(back[0].target, N - 1);
  assert_int_equal(back[N - 1].target, 0);

  static uint8_t big[40000];
  amddwarf_op far[3];
  memset(far, 0, sizeof far);
  far[0].kind = AMDDWARF_OP_skip;
  far[0].target = 2;
  far[1].kind = AMDDWARF_OP_implicit_value;
  far[1].operands[0] = sizeof big;
  far[1].block = big;
  far[2].kind = AMDDWARF_OP_nop;
  static uint8_t out2[sizeof big + 16];
  assert_int_equal(amddwarf_expr_encode(far, 3, NULL, out2, sizeof out2, &size, &err),
                   AMDDWARF_E_EXPR_BAD_BRANCH);
  assert_non_null(strstr(err.message, "16 bits"));
}

/* decode(encode(x)) == x for multi-operation expressions in every dialect,
   including branches and auto's vendor opcodes. */
static void test_round_trip_sequences(void **state)
{
  (void)state;
  static const uint8_t vendor_in_auto[] = {0x90, 0x83, 0x14, 0xe2, 0xe1, 0xe4, 0x08, 0x93, 0x04};
  amddwarf_op ops[16], again[16];
  size_t count, count2, size;
  uint8_t out[64];
  amddwarf_error err;
  assert_int_equal(
      decode(vendor_in_auto, sizeof vendor_in_auto, AMDDWARF_DIALECT_AUTO, ops, &count, &err), 0);
  assert_int_equal(count, 5);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_LLVM_push_lane);
  assert_int_equal(ops[1].opcode, 0xe2);
  assert_int_equal(ops[3].kind, AMDDWARF_OP_LLVM_offset_uconst);
  assert_int_equal(ops[3].operands[0], 8);
  assert_int_equal(amddwarf_expr_encode(ops, count, NULL, out, sizeof out, &size, &err), 0);
  assert_int_equal(size, sizeof vendor_in_auto);
  assert_memory_equal(out, vendor_in_auto, size);
  assert_int_equal(decode(out, size, AMDDWARF_DIALECT_AUTO, again, &count2, &err), 0);
  assert_int_equal(count2, count);
  for (size_t i = 0; i < count; i++) {
    assert_same_op(&again[i], &ops[i]);
    assert_int_equal(again[i].opcode, ops[i].opcode);
  }
  /* The same operations written in the user dialect. */
  amddwarf_expr_format fu = fmt(AMDDWARF_DIALECT_USER, 8, 4, 5);
  static const uint8_t as_user[] = {0x90, 0x83, 0x14, 0xe9, 0x03, 0xe9,
                                    0x02, 0xe9, 0x05, 0x08, 0x93, 0x04};
  assert_int_equal(amddwarf_expr_encode(ops, count, &fu, out, sizeof out, &size, &err), 0);
  assert_int_equal(size, sizeof as_user);
  assert_memory_equal(out, as_user, size);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_lookups),
      cmocka_unit_test(test_every_op_every_dialect),
      cmocka_unit_test(test_operand_kinds),
      cmocka_unit_test(test_operand_kinds_more),
      cmocka_unit_test(test_padded_uleb),
      cmocka_unit_test(test_unknown_opcodes),
      cmocka_unit_test(test_bad_subops),
      cmocka_unit_test(test_leb_errors),
      cmocka_unit_test(test_branches),
      cmocka_unit_test(test_capacity_and_arguments),
      cmocka_unit_test(test_encode_errors),
      cmocka_unit_test(test_encode_long_branches),
      cmocka_unit_test(test_round_trip_sequences),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
