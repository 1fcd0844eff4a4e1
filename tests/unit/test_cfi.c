/* Unit tests of src/cfi: the instruction table and decoder, CIE/FDE parsing
 * of .debug_frame and .eh_frame, every register rule, the AMDGPU extensions,
 * row look-up, printing, and every error path.
 *
 * Sections are built byte by byte with the small builder below; expected
 * values follow DWARF 5 section 6.4 and the seed's "Call Frame Information"
 * (offsets are factored by the data alignment factor, advances by the code
 * alignment factor, AMDGPU's default rule is "same value"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/cfi.h>

#include "cfi_build.h"

static amddwarf_status open_sec(const cfi_sec *s, amddwarf_cfi_section_kind kind,
                                const amddwarf_cfi_target *target, amddwarf_cfi **cfi,
                                amddwarf_error *err)
{
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.kind = kind;
  o.data = s->data;
  o.size = s->len;
  o.target = target;
  amddwarf_error_clear(err);
  return amddwarf_cfi_open(&o, cfi, err);
}

/* One FDE over [0x1000, 0x1100) with INSNS, CIE with CIE_INSNS; returns its rows. */
static amddwarf_status rows_of(const amddwarf_cfi_target *target, const uint8_t *cie_insns,
                               size_t cn, const uint8_t *insns, size_t n, cfi_sec *s,
                               amddwarf_cfi **cfi, const amddwarf_cfi_row **rows,
                               size_t *count, amddwarf_error *err)
{
  memset(s, 0, sizeof *s);
  size_t c = cfi_cie4(s, 4, 4, 16, cie_insns, cn);
  cfi_fde8(s, c, 0x1000, 0x100, insns, n);
  amddwarf_status st = open_sec(s, AMDDWARF_CFI_DEBUG_FRAME, target, cfi, err);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf_cfi_fde_rows(*cfi, amddwarf_cfi_fde_at(*cfi, 0), rows, count, err);
}

#define AMDGPU amddwarf_cfi_target_amdgpu(64)
#define X86 amddwarf_cfi_target_x86_64()

/* ---- The instruction table and decoder ----------------------------------- */

static void test_table_names_and_codes(void **state)
{
  (void)state;
  for (int k = 0; k < AMDDWARF_CFA_KIND_COUNT; k++) {
    const amddwarf_cfa_info *info = amddwarf_cfa_info_get((amddwarf_cfa_kind)k);
    assert_non_null(info);
    assert_int_equal(info->kind, k);
    assert_true(strncmp(info->name, "DW_CFA_", 7) == 0);
  }
  assert_null(amddwarf_cfa_info_get(AMDDWARF_CFA_KIND_COUNT));
  /* DWARF 5 table 7.29 and the LLVM extensions. */
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_advance_loc)->code, 0x40);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_offset)->code, 0x80);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_restore)->code, 0xc0);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_val_expression)->code, 0x16);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_GNU_args_size)->code, 0x2e);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_LLVM_def_cfa_aspace)->code, 0x2f);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_LLVM_def_aspace_cfa)->code, 0x30);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_LLVM_def_aspace_cfa_sf)->code, 0x31);
  assert_int_equal(amddwarf_cfa_info_get(AMDDWARF_CFA_LLVM_def_aspace_cfa)->operand_count, 3);
}

typedef struct decode_case {
  uint8_t bytes[12];
  size_t n;
  amddwarf_cfa_kind kind;
  uint64_t operands[3];
} decode_case;

static void test_decode_every_instruction(void **state)
{
  (void)state;
  static const decode_case cases[] = {
      {{0x45}, 1, AMDDWARF_CFA_advance_loc, {5}},
      {{0x83, 0x02}, 2, AMDDWARF_CFA_offset, {3, 2}},
      {{0xc7}, 1, AMDDWARF_CFA_restore, {7}},
      {{0x00}, 1, AMDDWARF_CFA_nop, {0}},
      {{0x01, 0x00, 0x11, 0, 0, 0, 0, 0, 0}, 9, AMDDWARF_CFA_set_loc, {0x1100}},
      {{0x02, 0xff}, 2, AMDDWARF_CFA_advance_loc1, {0xff}},
      {{0x03, 0x34, 0x12}, 3, AMDDWARF_CFA_advance_loc2, {0x1234}},
      {{0x04, 0x78, 0x56, 0x34, 0x12}, 5, AMDDWARF_CFA_advance_loc4, {0x12345678}},
      {{0x05, 0x80, 0x01, 0x03}, 4, AMDDWARF_CFA_offset_extended, {128, 3}},
      {{0x06, 0x21}, 2, AMDDWARF_CFA_restore_extended, {33}},
      {{0x07, 0x10}, 2, AMDDWARF_CFA_undefined, {16}},
      {{0x08, 0x21}, 2, AMDDWARF_CFA_same_value, {33}},
      {{0x09, 0x21, 0x22}, 3, AMDDWARF_CFA_register, {33, 34}},
      {{0x0a}, 1, AMDDWARF_CFA_remember_state, {0}},
      {{0x0b}, 1, AMDDWARF_CFA_restore_state, {0}},
      {{0x0c, 0x40, 0x10}, 3, AMDDWARF_CFA_def_cfa, {64, 16}},
      {{0x0d, 0x41}, 2, AMDDWARF_CFA_def_cfa_register, {65}},
      {{0x0e, 0x80, 0x02}, 3, AMDDWARF_CFA_def_cfa_offset, {256}},
      {{0x0f, 0x02, 0x70, 0x08}, 4, AMDDWARF_CFA_def_cfa_expression, {2}},
      {{0x10, 0x21, 0x01, 0x96}, 4, AMDDWARF_CFA_expression, {33, 1}},
      {{0x11, 0x21, 0x7e}, 3, AMDDWARF_CFA_offset_extended_sf, {33, (uint64_t)-2}},
      {{0x12, 0x40, 0x7f}, 3, AMDDWARF_CFA_def_cfa_sf, {64, (uint64_t)-1}},
      {{0x13, 0x7c}, 2, AMDDWARF_CFA_def_cfa_offset_sf, {(uint64_t)-4}},
      {{0x14, 0x21, 0x02}, 3, AMDDWARF_CFA_val_offset, {33, 2}},
      {{0x15, 0x21, 0x7f}, 3, AMDDWARF_CFA_val_offset_sf, {33, (uint64_t)-1}},
      {{0x16, 0x21, 0x02, 0x70, 0x08}, 5, AMDDWARF_CFA_val_expression, {33, 2}},
      {{0x1d, 1, 0, 0, 0, 0, 0, 0, 0}, 9, AMDDWARF_CFA_MIPS_advance_loc8, {1}},
      {{0x2d}, 1, AMDDWARF_CFA_GNU_window_save, {0}},
      {{0x2e, 0x10}, 2, AMDDWARF_CFA_GNU_args_size, {16}},
      {{0x2f, 0x21, 0x02}, 3, AMDDWARF_CFA_GNU_negative_offset_extended, {33, 2}},
      {{0x30, 0x40, 0x10, 0x06}, 4, AMDDWARF_CFA_LLVM_def_aspace_cfa, {64, 16, 6}},
      {{0x31, 0x40, 0x7e, 0x05}, 4, AMDDWARF_CFA_LLVM_def_aspace_cfa_sf, {64, (uint64_t)-2, 5}},
  };
  cfi_sec s;
  memset(&s, 0, sizeof s);
  cfi_cie4(&s, 4, 4, 16, NULL, 0);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
  const amddwarf_cfi_cie *cie = amddwarf_cfi_cie_at(cfi, 0);
  bool seen[AMDDWARF_CFA_KIND_COUNT] = {false};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t pos = 0;
    amddwarf_cfa_insn insn;
    assert_int_equal(amddwarf_cfi_decode_insn(cfi, cie, cases[i].bytes, cases[i].n, 0x100,
                                              &pos, &insn, &err),
                     AMDDWARF_OK);
    assert_int_equal(insn.kind, cases[i].kind);
    assert_int_equal(pos, cases[i].n);
    assert_int_equal(insn.size, cases[i].n);
    assert_int_equal(insn.offset, 0x100);
    assert_int_equal(insn.opcode, cases[i].bytes[0]);
    for (int k = 0; k < 3; k++)
      assert_true(insn.operands[k] == cases[i].operands[k]);
    seen[insn.kind] = true;
    /* Every proper prefix is truncated, reported at the operand, nothing consumed. */
    for (size_t cut = 1; cut < cases[i].n; cut++) {
      size_t p = 0;
      amddwarf_error e;
      amddwarf_error_clear(&e);
      amddwarf_status st = amddwarf_cfi_decode_insn(cfi, cie, cases[i].bytes, cut, 0x100, &p,
                                                    &insn, &e);
      assert_int_equal(st, AMDDWARF_E_TRUNCATED);
      assert_int_equal(p, 0);
      assert_int_equal(e.opcode, cases[i].bytes[0]);
      assert_true(e.offset >= 0x101 && e.offset < 0x100 + cases[i].n);
    }
  }
  /* Only the draft-dialect reading of 0x2f is not covered by auto. */
  for (int k = 0; k < AMDDWARF_CFA_KIND_COUNT; k++)
    if (k != AMDDWARF_CFA_LLVM_def_cfa_aspace)
      assert_true(seen[k]);
  /* Unknown opcodes. */
  const uint8_t unknown[] = {0x17, 0x20, 0x2c, 0x32, 0x3f};
  for (size_t i = 0; i < sizeof unknown; i++) {
    size_t pos = 0;
    amddwarf_cfa_insn insn;
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_cfi_decode_insn(cfi, cie, &unknown[i], 1, 0x40, &pos, &insn, &err),
                     AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION);
    assert_int_equal(err.offset, 0x40);
    assert_int_equal(err.opcode, unknown[i]);
  }
  size_t pos = 0;
  amddwarf_cfa_insn insn;
  assert_int_equal(amddwarf_cfi_decode_insn(cfi, cie, unknown, 0, 0, &pos, &insn, &err),
                   AMDDWARF_END);
  amddwarf_cfi_close(cfi);
}

static void test_draft_dialect_reads_0x2f_as_def_cfa_aspace(void **state)
{
  (void)state;
  amddwarf_cfi_target draft = *AMDGPU;
  draft.dialect = AMDDWARF_DIALECT_DRAFT;
  const uint8_t insns[] = {0x0c, 0x40, 0x08, 0x41, 0x2f, 0x06};
  cfi_sec s;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err;
  assert_int_equal(rows_of(&draft, NULL, 0, insns, sizeof insns, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_OK);
  assert_int_equal(count, 2);
  assert_int_equal(rows[1].cfa.kind, AMDDWARF_CFA_RULE_REG_OFFSET);
  assert_int_equal(rows[1].cfa.reg, 64);
  assert_int_equal(rows[1].cfa.offset, 8);
  assert_int_equal(rows[1].cfa.aspace, 6);
  assert_true(rows[1].cfa.aspace_given);
  assert_int_equal(rows[0].cfa.aspace, 0);
  amddwarf_cfi_close(cfi);
  /* In the default dialect the same bytes are GNU_negative_offset_extended
     of register 6 with a missing operand: truncated. */
  assert_int_equal(rows_of(AMDGPU, NULL, 0, insns, sizeof insns, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_E_TRUNCATED);
  amddwarf_cfi_close(cfi);
  /* Draft: an address space the target does not define. */
  const uint8_t bad[] = {0x0c, 0x40, 0x08, 0x2f, 0x04};
  assert_int_equal(rows_of(&draft, NULL, 0, bad, sizeof bad, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_E_CFI_BAD_ASPACE);
  assert_int_equal(err.opcode, 0x2f);
  amddwarf_cfi_close(cfi);
}

/* ---- Rules --------------------------------------------------------------- */

static void test_every_rule(void **state)
{
  (void)state;
  /* CIE: def_aspace_cfa SGPR32+0 in private_wave (4-byte addresses, so
     val_offset may recover a 32-bit SGPR), same_value SGPR40, undefined PC_64.
     FDE: advance 1 (4 bytes); offset SGPR33 2 (=8); val_offset SGPR34 1 (=4);
     register SGPR35 <- SGPR36; expression SGPR37 {DW_OP_lit8};
     val_expression SGPR38 {DW_OP_lit1}; advance 1; restore PC_64;
     offset_extended_sf SGPR39 -1 (=-4); GNU_negative_offset_extended SGPR41 1 (=-4);
     same_value SGPR1 (33); undefined SGPR40 (72); restore_extended SGPR40.
     Columns are DWARF numbers: SGPRn is 32 + n. */
  const uint8_t cie[] = {0x30, 0x40, 0x00, 0x06, 0x08, 0x48, 0x07, 0x10};
  const uint8_t fde[] = {0x41, 0xa1, 0x02, 0x14, 0x22, 0x01, 0x09, 0x23, 0x24,
                         0x10, 0x25, 0x01, 0x38, 0x16, 0x26, 0x01, 0x31, 0x41,
                         0xd0, 0x11, 0x27, 0x7f, 0x2f, 0x29, 0x01, 0x08, 0x21,
                         0x07, 0x48, 0x06, 0x48};
  cfi_sec s;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err;
  assert_int_equal(rows_of(AMDGPU, cie, sizeof cie, fde, sizeof fde, &s, &cfi, &rows, &count,
                           &err),
                   AMDDWARF_OK);
  assert_int_equal(count, 3);
  assert_true(rows[0].start == 0x1000 && rows[0].end == 0x1004);
  assert_true(rows[1].start == 0x1004 && rows[1].end == 0x1008);
  assert_true(rows[2].start == 0x1008 && rows[2].end == 0x1100);
  amddwarf_cfi_rule r;
  /* Row 0: only the CIE's rules. */
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[0], 16, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_UNDEFINED);
  assert_false(amddwarf_cfi_row_rule(cfi, &rows[0], 33, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_SAME_VALUE); /* AMDGPU default */
  /* Row 1. */
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[1], 33, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_OFFSET);
  assert_int_equal(r.offset, 8);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[1], 34, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_VAL_OFFSET);
  assert_int_equal(r.offset, 4);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[1], 35, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_REGISTER);
  assert_int_equal(r.reg, 36);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[1], 37, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_EXPRESSION);
  assert_int_equal(r.expr_size, 1);
  assert_int_equal(r.expr[0], 0x38);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[1], 38, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_VAL_EXPRESSION);
  assert_int_equal(r.expr[0], 0x31);
  assert_int_equal(rows[1].rule_count, 7); /* 16, 33, 34, 35, 37, 38, 72 */
  /* Row 2. */
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[2], 16, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_UNDEFINED); /* restored to the CIE's */
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[2], 39, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_OFFSET);
  assert_int_equal(r.offset, -4);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[2], 41, &r));
  assert_int_equal(r.offset, -4);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[2], 33, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_SAME_VALUE);
  assert_true(amddwarf_cfi_row_rule(cfi, &rows[2], 72, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_SAME_VALUE); /* undefined, then restored */
  /* Rules are sorted by column. */
  for (uint32_t i = 1; i < rows[2].rule_count; i++)
    assert_true(rows[2].rules[i - 1].column < rows[2].rules[i].column);
  char text[512];
  amddwarf_cfi_row_print(cfi, &rows[1], text, sizeof text);
  assert_string_equal(text, "CFA=SGPR32+0 in addrspace6: PC_REG=undefined, SGPR1=[CFA+8], SGPR2=CFA+4, "
                            "SGPR3=SGPR4, SGPR5=[DW_OP_lit8], SGPR6=DW_OP_lit1, SGPR40=same");
  amddwarf_cfi_close(cfi);
}

static void test_x86_default_rule_is_undefined(void **state)
{
  (void)state;
  cfi_sec s;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err;
  const uint8_t cie[] = {0x0c, 0x07, 0x08, 0x90, 0x01};
  assert_int_equal(rows_of(X86, cie, sizeof cie, NULL, 0, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_OK);
  amddwarf_cfi_rule r;
  assert_false(amddwarf_cfi_row_rule(cfi, &rows[0], 3, &r));
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_UNDEFINED);
  char text[128];
  /* data alignment 4 in this CIE: offset 1 -> 4 */
  amddwarf_cfi_row_print(cfi, &rows[0], text, sizeof text);
  assert_string_equal(text, "CFA=RSP+8: RIP=[CFA+4]");
  amddwarf_cfi_close(cfi);
}

static void test_cfa_rules_and_aspaces(void **state)
{
  (void)state;
  /* def_aspace_cfa SGPR32 16 private_wave; adv; def_cfa_offset 32 (keeps
     the aspace); adv; def_cfa_register SGPR33; adv; def_aspace_cfa_sf
     SGPR32 -2 (= -8) private_lane; adv; def_cfa_sf SGPR34 1 (= 4, aspace
     reset); adv; def_cfa_offset_sf -1 (= -4); adv; def_cfa_expression
     {DW_OP_bregx SGPR32 0} */
  const uint8_t fde[] = {0x30, 0x40, 0x10, 0x06, 0x41, 0x0e, 0x20, 0x41, 0x0d, 0x41,
                         0x41, 0x31, 0x40, 0x7e, 0x05, 0x41, 0x12, 0x42, 0x01, 0x41,
                         0x13, 0x7f, 0x41, 0x0f, 0x03, 0x92, 0x40, 0x00};
  cfi_sec s;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err;
  assert_int_equal(rows_of(AMDGPU, NULL, 0, fde, sizeof fde, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_OK);
  assert_int_equal(count, 7);
  static const struct {
    uint32_t reg;
    int64_t offset;
    uint64_t aspace;
    bool given;
  } want[6] = {{64, 16, 6, true}, {64, 32, 6, true}, {65, 32, 6, true},
               {64, -8, 5, true}, {66, 4, 0, false}, {66, -4, 0, false}};
  for (int i = 0; i < 6; i++) {
    assert_int_equal(rows[i].cfa.kind, AMDDWARF_CFA_RULE_REG_OFFSET);
    assert_int_equal(rows[i].cfa.reg, want[i].reg);
    assert_int_equal(rows[i].cfa.offset, want[i].offset);
    assert_int_equal(rows[i].cfa.aspace, want[i].aspace);
    assert_int_equal(rows[i].cfa.aspace_given, want[i].given);
  }
  assert_int_equal(rows[6].cfa.kind, AMDDWARF_CFA_RULE_EXPRESSION);
  assert_int_equal(rows[6].cfa.expr_size, 3);
  char text[256];
  amddwarf_cfi_row_print(cfi, &rows[0], text, sizeof text);
  assert_string_equal(text, "CFA=SGPR32+16 in addrspace6");
  amddwarf_cfi_row_print(cfi, &rows[3], text, sizeof text);
  assert_string_equal(text, "CFA=SGPR32-8 in addrspace5");
  amddwarf_cfi_close(cfi);
}

static void test_remember_restore_nesting_and_limit(void **state)
{
  (void)state;
  /* def_cfa SGPR32 0; offset SGPR33 1; remember; offset SGPR33 2; remember;
     def_cfa_offset 8; undefined SGPR33; adv; restore_state; adv;
     restore_state; adv */
  const uint8_t fde[] = {0x0c, 0x40, 0x00, 0xa1, 0x01, 0x0a, 0xa1, 0x02, 0x0a, 0x0e,
                         0x08, 0x07, 0x21, 0x41, 0x0b, 0x41, 0x0b, 0x41};
  cfi_sec s;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err;
  assert_int_equal(rows_of(AMDGPU, NULL, 0, fde, sizeof fde, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_OK);
  assert_int_equal(count, 4);
  amddwarf_cfi_rule r;
  amddwarf_cfi_row_rule(cfi, &rows[0], 33, &r);
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_UNDEFINED);
  assert_int_equal(rows[0].cfa.offset, 8);
  amddwarf_cfi_row_rule(cfi, &rows[1], 33, &r);
  assert_int_equal(r.kind, AMDDWARF_CFI_RULE_OFFSET);
  assert_int_equal(r.offset, 8);
  assert_int_equal(rows[1].cfa.offset, 0); /* the CFA rule is restored too */
  amddwarf_cfi_row_rule(cfi, &rows[2], 33, &r);
  assert_int_equal(r.offset, 4);
  amddwarf_cfi_close(cfi);

  /* 65 nested remember_state with the default limit of 64. */
  uint8_t deep[70];
  memset(deep, 0x0a, sizeof deep);
  assert_int_equal(rows_of(AMDGPU, NULL, 0, deep, 65, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_E_CFI_REMEMBER_DEPTH);
  assert_int_equal(err.opcode, 0x0a);
  /* The failing instruction is the 65th: its section offset is reported. */
  assert_int_equal(err.offset, amddwarf_cfi_fde_at(cfi, 0)->instructions_offset + 64);
  /* The outcome is cached: asking again gives the same error. */
  amddwarf_error again;
  amddwarf_error_clear(&again);
  assert_int_equal(amddwarf_cfi_fde_rows(cfi, amddwarf_cfi_fde_at(cfi, 0), &rows, &count,
                                         &again),
                   AMDDWARF_E_CFI_REMEMBER_DEPTH);
  assert_string_equal(again.message, err.message);
  amddwarf_cfi_close(cfi);
  const uint8_t empty_restore[] = {0x0b};
  assert_int_equal(rows_of(AMDGPU, NULL, 0, empty_restore, 1, &s, &cfi, &rows, &count, &err),
                   AMDDWARF_E_CFI_RESTORE_EMPTY);
  amddwarf_cfi_close(cfi);
}

static void test_ill_formed_rules(void **state)
{
  (void)state;
  static const struct {
    uint8_t bytes[12];
    size_t n;
    amddwarf_status status;
    uint8_t opcode;
  } cases[] = {
      /* def_cfa_register with no CFA rule yet */
      {{0x0d, 0x40}, 2, AMDDWARF_E_CFI_NO_CFA_RULE, 0x0d},
      /* def_cfa_offset after def_cfa_expression */
      {{0x0f, 0x01, 0x30, 0x0e, 0x08}, 5, AMDDWARF_E_CFI_NO_CFA_RULE, 0x0e},
      /* def_cfa_offset_sf with no CFA */
      {{0x13, 0x01}, 2, AMDDWARF_E_CFI_NO_CFA_RULE, 0x13},
      /* def_aspace_cfa with address space 4 (reserved on AMDGPU) */
      {{0x30, 0x40, 0x00, 0x04}, 4, AMDDWARF_E_CFI_BAD_ASPACE, 0x30},
      /* register(R): SGPR33 (32 bits) <- PC_64 (64 bits) */
      {{0x09, 0x21, 0x10}, 3, AMDDWARF_E_CFI_REGISTER_SIZE, 0x09},
      /* val_offset of PC_64 with the CFA in private_wave (4-byte addresses) */
      {{0x30, 0x40, 0x00, 0x06, 0x14, 0x10, 0x01}, 7, AMDDWARF_E_CFI_REGISTER_SIZE, 0x14},
      /* DW_OP_call_frame_cfa in an expression */
      {{0x10, 0x21, 0x01, 0x9c}, 4, AMDDWARF_E_CFI_EXPR_NOT_ALLOWED, 0x10},
      /* DW_OP_push_object_address in val_expression */
      {{0x16, 0x21, 0x01, 0x97}, 4, AMDDWARF_E_CFI_EXPR_NOT_ALLOWED, 0x16},
      /* DW_OP_addrx in def_cfa_expression */
      {{0x0f, 0x02, 0xa1, 0x00}, 4, AMDDWARF_E_CFI_EXPR_NOT_ALLOWED, 0x0f},
      /* GNU_window_save */
      {{0x2d}, 1, AMDDWARF_E_CFI_UNSUPPORTED_INSTRUCTION, 0x2d},
      /* advance past the FDE's end (0x100 bytes = 64 units of 4, 65 units) */
      {{0x02, 0x41}, 2, AMDDWARF_E_CFI_BAD_LOCATION, 0x02},
      /* set_loc backwards */
      {{0x01, 0x00, 0x0f, 0, 0, 0, 0, 0, 0}, 9, AMDDWARF_E_CFI_BAD_LOCATION, 0x01},
      /* register above the limit */
      {{0x07, 0x80, 0x80, 0x04}, 4, AMDDWARF_E_CFI_BAD_REGISTER, 0x07},
      /* an unterminated LEB operand */
      {{0x05, 0x21, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8, AMDDWARF_E_TRUNCATED, 0x05},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cfi_sec s;
    amddwarf_cfi *cfi = NULL;
    const amddwarf_cfi_row *rows;
    size_t count;
    amddwarf_error err;
    amddwarf_status st =
        rows_of(AMDGPU, NULL, 0, cases[i].bytes, cases[i].n, &s, &cfi, &rows, &count, &err);
    if (st != cases[i].status)
      fail_msg("case %zu: %s (%s)", i, amddwarf_status_name(st), err.message);
    assert_int_equal(err.opcode, cases[i].opcode);
    assert_true(err.offset != AMDDWARF_NO_OFFSET);
    assert_true(strstr(err.message, "offset") != NULL);
    amddwarf_cfi_close(cfi);
  }
  /* Row creation and restore are not allowed among a CIE's instructions. */
  const uint8_t in_cie[][2] = {{0x41, 0}, {0xc1, 0}, {0x06, 0x01}};
  for (size_t i = 0; i < 3; i++) {
    cfi_sec s;
    amddwarf_cfi *cfi = NULL;
    const amddwarf_cfi_row *rows;
    size_t count;
    amddwarf_error err;
    assert_int_equal(rows_of(AMDGPU, in_cie[i], in_cie[i][1] ? 2 : 1, NULL, 0, &s, &cfi, &rows,
                             &count, &err),
                     AMDDWARF_E_CFI_NOT_IN_CIE);
    amddwarf_cfi_close(cfi);
  }
  /* Factored offsets that overflow 64 bits. */
  {
    cfi_sec s;
    memset(&s, 0, sizeof s);
    const uint8_t big[] = {0x05, 0x21, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    size_t c = cfi_cie4(&s, 4, 4, 16, NULL, 0);
    cfi_fde8(&s, c, 0, 16, big, sizeof big);
    amddwarf_cfi *cfi;
    amddwarf_error err;
    const amddwarf_cfi_row *rows;
    size_t count;
    assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_cfi_fde_rows(cfi, amddwarf_cfi_fde_at(cfi, 0), &rows, &count, &err),
                     AMDDWARF_E_OVERFLOW);
    amddwarf_cfi_close(cfi);
  }
}

/* ---- Parsing and hostile sections ----------------------------------------- */

static void test_header_fields_versions_and_formats(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  /* CIE version 1: u8 return address register, target address size. */
  size_t v1 = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, 0xffffffffu, 4);
  bb_u8(&s, 1);
  bb_u8(&s, 0);
  bb_uleb(&s, 1);
  bb_sleb(&s, -8);
  bb_u8(&s, 16);
  bb_patch32(&s, v1, (uint32_t)(s.len - v1 - 4));
  /* CIE version 3 in 64-bit DWARF with the AMD augmentation... version 4 for
     address size 4 and a 2-byte segment selector. */
  size_t v4 = s.len;
  bb_uint(&s, 0xffffffffu, 4);
  bb_uint(&s, 0, 8);
  bb_uint(&s, UINT64_MAX, 8);
  bb_u8(&s, 4);
  bb_bytes(&s, (const uint8_t *)"[amd:v0.12]", 12);
  bb_u8(&s, 4);
  bb_u8(&s, 2);
  bb_uleb(&s, 4);
  bb_sleb(&s, 4);
  bb_uleb(&s, 16);
  bb_u8(&s, 0x00);
  uint64_t len = s.len - v4 - 12;
  for (int i = 0; i < 8; i++)
    s.data[v4 + 4 + i] = (uint8_t)(len >> (8 * i));
  /* 64-bit FDE of the v4 CIE: segment 0x0102, start 0x2000, range 0x40. */
  size_t f = s.len;
  bb_uint(&s, 0xffffffffu, 4);
  bb_uint(&s, 0, 8);
  bb_uint(&s, v4, 8);
  bb_uint(&s, 0x0102, 2);
  bb_uint(&s, 0x2000, 4);
  bb_uint(&s, 0x40, 4);
  len = s.len - f - 12;
  for (int i = 0; i < 8; i++)
    s.data[f + 4 + i] = (uint8_t)(len >> (8 * i));
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_cie_count(cfi), 2);
  const amddwarf_cfi_cie *c1 = amddwarf_cfi_cie_at(cfi, 0), *c4 = amddwarf_cfi_cie_at(cfi, 1);
  assert_int_equal(c1->version, 1);
  assert_int_equal(c1->return_address_register, 16);
  assert_int_equal(c1->data_alignment_factor, -8);
  assert_int_equal(c1->address_size, 8);
  assert_false(c1->dwarf64);
  assert_true(c4->dwarf64);
  assert_true(c4->amd_augmentation);
  assert_int_equal(c4->amd_major, 0);
  assert_int_equal(c4->amd_minor, 12);
  assert_int_equal(c4->address_size, 4);
  assert_int_equal(c4->segment_selector_size, 2);
  const amddwarf_cfi_fde *fde = amddwarf_cfi_fde_at(cfi, 0);
  assert_ptr_equal(fde->cie, c4);
  assert_true(fde->dwarf64);
  assert_int_equal(fde->segment_selector, 0x0102);
  assert_int_equal(fde->initial_location, 0x2000);
  assert_int_equal(fde->address_range, 0x40);
  const amddwarf_cfi_fde *found;
  assert_int_equal(amddwarf_cfi_find_fde(cfi, 0x203f, &found), AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_find_fde(cfi, 0x2040, &found), AMDDWARF_NOT_FOUND);
  amddwarf_cfi_close(cfi);
}

static void test_unknown_augmentation_keeps_header(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  size_t c = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, 0xffffffffu, 4);
  bb_u8(&s, 4);
  bb_bytes(&s, (const uint8_t *)"[xyz]", 6);
  bb_u8(&s, 8);
  bb_u8(&s, 0);
  bb_u8(&s, 0xee); /* unreadable */
  bb_patch32(&s, c, (uint32_t)(s.len - c - 4));
  cfi_fde8(&s, c, 0x10, 0x10, NULL, 0);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
  const amddwarf_cfi_cie *cie = amddwarf_cfi_cie_at(cfi, 0);
  assert_false(cie->augmentation_known);
  assert_string_equal(cie->augmentation, "[xyz]");
  assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->initial_location, 0x10);
  const amddwarf_cfi_row *row;
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x10, &row, &err), AMDDWARF_E_CFI_BAD_AUGMENTATION);
  amddwarf_cfi_close(cfi);
}

static void test_hostile_sections(void **state)
{
  (void)state;
  amddwarf_cfi *cfi = NULL;
  amddwarf_error err;
  cfi_sec s;

  /* Length running past the end. */
  memset(&s, 0, sizeof s);
  cfi_cie4(&s, 4, 4, 16, NULL, 0);
  s.len -= 1;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(err.offset, 0);

  /* Huge 64-bit length. */
  memset(&s, 0, sizeof s);
  bb_uint(&s, 0xffffffffu, 4);
  bb_uint(&s, UINT64_MAX - 4, 8);
  bb_uint(&s, 0, 8);
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);

  /* Reserved initial length. */
  memset(&s, 0, sizeof s);
  bb_uint(&s, 0xfffffff0u, 4);
  bb_uint(&s, 0, 8);
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_MALFORMED);

  /* Truncated length field. */
  memset(&s, 0, sizeof s);
  bb_uint(&s, 0, 2);
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);

  /* Bad CIE version. */
  memset(&s, 0, sizeof s);
  cfi_cie4(&s, 4, 4, 16, NULL, 0);
  s.data[8] = 2;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_VERSION);
  assert_int_equal(err.offset, 8);

  /* CIE fields cut short by the entry length: code alignment missing. */
  memset(&s, 0, sizeof s);
  bb_uint(&s, 8, 4);
  bb_uint(&s, 0xffffffffu, 4);
  bb_u8(&s, 4);
  bb_u8(&s, 0);
  bb_u8(&s, 8);
  bb_u8(&s, 0);
  bb_uint(&s, 0x04040404, 4); /* outside the entry */
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);

  /* An FDE pointing at itself, at another FDE (a cycle), and past the end. */
  for (int variant = 0; variant < 3; variant++) {
    memset(&s, 0, sizeof s);
    size_t f1 = cfi_fde8(&s, 0, 0, 4, NULL, 0);
    size_t f2 = cfi_fde8(&s, 0, 4, 4, NULL, 0);
    bb_patch32(&s, f1 + 4, variant == 0 ? (uint32_t)f1 : variant == 1 ? (uint32_t)f2 : 0x7777);
    bb_patch32(&s, f2 + 4, (uint32_t)f1);
    assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                     AMDDWARF_E_CFI_BAD_CIE_POINTER);
    if (err.offset != f1 + 4)
      fail_msg("variant %d: %s", variant, err.message);
  }

  /* Address size 3 in a version 4 CIE. */
  memset(&s, 0, sizeof s);
  cfi_cie4(&s, 4, 4, 16, NULL, 0);
  s.data[10] = 3;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_MALFORMED);

  /* Overlong LEB in the code alignment factor. */
  memset(&s, 0, sizeof s);
  size_t c = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, 0xffffffffu, 4);
  bb_u8(&s, 4);
  bb_u8(&s, 0);
  bb_u8(&s, 8);
  bb_u8(&s, 0);
  for (int i = 0; i < 11; i++)
    bb_u8(&s, 0x80);
  bb_u8(&s, 0);
  bb_patch32(&s, c, (uint32_t)(s.len - c - 4));
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err),
                   AMDDWARF_E_LEB_OVERLONG);
  assert_int_equal(err.offset, 12);
}

/* ---- .eh_frame ------------------------------------------------------------ */

static amddwarf_status fake_memory(void *user, uint64_t address, void *buf, size_t size)
{
  (void)user;
  if (address != 0x5000 || size != 8)
    return AMDDWARF_E_IO;
  uint64_t value = 0x77665544;
  memcpy(buf, &value, 8); /* little-endian host assumed by the test data */
  return AMDDWARF_OK;
}

static void test_eh_frame_augmentations_and_encodings(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  /* CIE "zPLRS": personality indirect|pcrel|sdata4, LSDA udata4, FDE pcrel|sdata4. */
  size_t c = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, 0, 4);
  bb_u8(&s, 1);
  bb_bytes(&s, (const uint8_t *)"zPLRS", 6);
  bb_uleb(&s, 1);
  bb_sleb(&s, -8);
  bb_u8(&s, 16);
  bb_uleb(&s, 7); /* augmentation data size */
  bb_u8(&s, 0x9b);
  size_t p_field = s.len;
  bb_uint(&s, 0, 4); /* patched below: 0x5000 - (section_address + p_field) */
  bb_u8(&s, 0x03);
  bb_u8(&s, 0x1b);
  bb_u8(&s, 0x0c); /* def_cfa RSP 8 */
  bb_u8(&s, 0x07);
  bb_u8(&s, 0x08);
  bb_patch32(&s, c, (uint32_t)(s.len - c - 4));
  /* FDE: pcrel start -> 0x401000, range 0x20, LSDA 0x600000. */
  size_t f = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, f + 4 - c, 4);
  size_t start_field = s.len;
  bb_uint(&s, 0, 4);
  bb_uint(&s, 0x20, 4);
  bb_uleb(&s, 4);
  bb_uint(&s, 0x600000, 4);
  bb_u8(&s, 0x44); /* advance 4 */
  bb_u8(&s, 0x0e); /* def_cfa_offset 16 */
  bb_u8(&s, 0x10);
  bb_patch32(&s, f, (uint32_t)(s.len - f - 4));
  bb_uint(&s, 0, 4); /* terminator */
  uint64_t base = 0x400000;
  bb_patch32(&s, p_field, (uint32_t)(0x5000 - (base + p_field)));
  bb_patch32(&s, start_field, (uint32_t)(0x401000 - (base + start_field)));

  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.kind = AMDDWARF_CFI_EH_FRAME;
  o.data = s.data;
  o.size = s.len;
  o.section_address = base;
  o.target = X86;
  amddwarf_cfi *cfi;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  /* Without a memory reader the indirect personality stays the address of
     the pointer. */
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_OK);
  assert_true(amddwarf_cfi_cie_at(cfi, 0)->personality_indirect);
  assert_int_equal(amddwarf_cfi_cie_at(cfi, 0)->personality, 0x5000);
  amddwarf_cfi_close(cfi);
  o.read_memory = fake_memory;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_OK);
  const amddwarf_cfi_cie *cie = amddwarf_cfi_cie_at(cfi, 0);
  assert_int_equal(cie->personality, 0x77665544);
  assert_false(cie->personality_indirect);
  assert_int_equal(cie->fde_encoding, 0x1b);
  assert_int_equal(cie->lsda_encoding, 0x03);
  assert_true(cie->signal_frame);
  const amddwarf_cfi_fde *fde = amddwarf_cfi_fde_at(cfi, 0);
  assert_int_equal(fde->initial_location, 0x401000);
  assert_int_equal(fde->address_range, 0x20);
  assert_true(fde->has_lsda);
  assert_int_equal(fde->lsda, 0x600000);
  const amddwarf_cfi_row *row, *again;
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x401005, &row, &err), AMDDWARF_OK);
  assert_int_equal(row->start, 0x401004);
  assert_int_equal(row->cfa.reg, 7);
  assert_int_equal(row->cfa.offset, 16);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x401006, &again, &err), AMDDWARF_OK);
  assert_ptr_equal(row, again); /* cached */
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x401020, &row, &err), AMDDWARF_NOT_FOUND);
  char text[128];
  size_t pos = 0;
  amddwarf_cfa_insn insn;
  uint64_t loc = 0x401000;
  assert_int_equal(amddwarf_cfi_decode_insn(cfi, cie, fde->instructions, fde->instructions_size,
                                            fde->instructions_offset, &pos, &insn, &err),
                   AMDDWARF_OK);
  amddwarf_cfi_insn_print(cfi, cie, &insn, &loc, text, sizeof text);
  assert_string_equal(text, "DW_CFA_advance_loc: 4 to 0x401004");
  amddwarf_cfi_close(cfi);

  /* datarel without a data base is unsupported; an invalid encoding is an error. */
  s.data[p_field - 1 - 0] = 0x9b;
  size_t r_at = p_field + 5;
  s.data[r_at] = 0x3b;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_E_UNSUPPORTED);
  s.data[r_at] = 0x0e;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_E_CFI_BAD_POINTER_ENCODING);
  s.data[r_at] = 0x1b;
  /* An unknown augmentation without "z" cannot be skipped. */
  memcpy(&s.data[9], "qPLRS", 5);
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_E_CFI_BAD_AUGMENTATION);
}

static void test_eh_frame_pointer_formats(void **state)
{
  (void)state;
  /* FDE encodings: udata2, uleb128, sdata8, absptr, aligned. */
  static const uint8_t encodings[] = {0x02, 0x01, 0x0c, 0x00, 0x09};
  for (size_t e = 0; e < sizeof encodings; e++) {
    cfi_sec s;
    memset(&s, 0, sizeof s);
    size_t c = s.len;
    bb_uint(&s, 0, 4);
    bb_uint(&s, 0, 4);
    bb_u8(&s, 3);
    bb_bytes(&s, (const uint8_t *)"zR", 3);
    bb_uleb(&s, 1);
    bb_sleb(&s, -8);
    bb_uleb(&s, 16);
    bb_uleb(&s, 1);
    bb_u8(&s, encodings[e]);
    bb_patch32(&s, c, (uint32_t)(s.len - c - 4));
    size_t f = s.len;
    bb_uint(&s, 0, 4);
    bb_uint(&s, f + 4 - c, 4);
    switch (encodings[e]) {
    case 0x02: bb_uint(&s, 0x1234, 2); bb_uint(&s, 0x10, 2); break;
    case 0x01: bb_uleb(&s, 0x1234); bb_uleb(&s, 0x10); break;
    case 0x0c: bb_uint(&s, 0x1234, 8); bb_uint(&s, 0x10, 8); break;
    case 0x00: bb_uint(&s, 0x1234, 8); bb_uint(&s, 0x10, 8); break;
    case 0x09: bb_sleb(&s, 0x1234); bb_sleb(&s, 0x10); break;
    }
    bb_uleb(&s, 0);
    bb_patch32(&s, f, (uint32_t)(s.len - f - 4));
    amddwarf_cfi *cfi;
    amddwarf_error err;
    assert_int_equal(open_sec(&s, AMDDWARF_CFI_EH_FRAME, X86, &cfi, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->initial_location, 0x1234);
    assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->address_range, 0x10);
    amddwarf_cfi_close(cfi);
  }
}

/* ---- Index and look-up ------------------------------------------------------ */

/* Where FDEs overlap, a PC has the row of the FDE the index gives it (the
   one starting last), whatever was looked up before: a row found at a PC
   of the outer FDE also covers the inner one's PCs. */
static void test_overlapping_fdes_keep_their_rows(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  const uint8_t cie[] = {0x0c, 0x40, 0x00};
  size_t c = cfi_cie4(&s, 4, 4, 16, cie, sizeof cie);
  const uint8_t outer[] = {0x0e, 0x08}, inner[] = {0x0e, 0x10};
  cfi_fde8(&s, c, 0x1000, 0x100, outer, sizeof outer);
  cfi_fde8(&s, c, 0x1080, 0x10, inner, sizeof inner);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
  static const struct {
    uint64_t pc, start;
    int64_t offset;
  } lookups[] = {{0x1088, 0x1080, 16}, {0x1008, 0x1000, 8}, {0x1088, 0x1080, 16},
                 {0x10a0, 0x1000, 8}, {0x1080, 0x1080, 16}};
  for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
    const amddwarf_cfi_row *row;
    assert_int_equal(amddwarf_cfi_find_row(cfi, lookups[i].pc, &row, &err), AMDDWARF_OK);
    assert_int_equal(row->fde->initial_location, lookups[i].start);
    assert_int_equal(row->cfa.offset, lookups[i].offset);
  }
  amddwarf_cfi_close(cfi);
}

static void test_index_over_unsorted_fdes(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  const uint8_t cie[] = {0x0c, 0x40, 0x00};
  size_t c = cfi_cie4(&s, 4, 4, 16, cie, sizeof cie);
  static const uint64_t starts[] = {0x3000, 0x1000, 0x5000, 0x2000, 0x4000};
  for (int i = 0; i < 5; i++) {
    uint8_t insns[] = {0x41, 0x0e, (uint8_t)(i * 8)};
    cfi_fde8(&s, c, starts[i], 0x800, insns, sizeof insns);
  }
  cfi_fde8(&s, c, 0x9000, 0, NULL, 0); /* empty range: never found */
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, AMDGPU, &cfi, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_fde_count(cfi), 6);
  for (int i = 0; i < 5; i++) {
    const amddwarf_cfi_row *row;
    assert_int_equal(amddwarf_cfi_find_row(cfi, starts[i] + 0x7ff, &row, &err), AMDDWARF_OK);
    assert_int_equal(row->fde->initial_location, starts[i]);
    assert_int_equal(row->cfa.offset, i * 8);
    assert_int_equal(amddwarf_cfi_find_row(cfi, starts[i], &row, &err), AMDDWARF_OK);
    assert_int_equal(row->cfa.offset, 0);
  }
  const amddwarf_cfi_row *row;
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0xfff, &row, &err), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x1800, &row, &err), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x9000, &row, &err), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x5800, &row, &err), AMDDWARF_NOT_FOUND);
  amddwarf_cfi_close(cfi);
}

static void test_instruction_printing(void **state)
{
  (void)state;
  static const struct {
    uint8_t bytes[8];
    size_t n;
    const char *text;
  } cases[] = {
      {{0x0c, 0x07, 0x08}, 3, "DW_CFA_def_cfa: RSP +8"},
      {{0x90, 0x01}, 2, "DW_CFA_offset: RIP -8"},
      {{0x0e, 0x10}, 2, "DW_CFA_def_cfa_offset: +16"},
      {{0x07, 0x10}, 2, "DW_CFA_undefined: RIP"},
      {{0x2e, 0x10}, 2, "DW_CFA_GNU_args_size: +16"},
      {{0x0f, 0x02, 0x77, 0x08}, 4, "DW_CFA_def_cfa_expression: DW_OP_breg7 RSP+8"},
      {{0x30, 0x07, 0x10, 0x00}, 4, "DW_CFA_LLVM_def_aspace_cfa: RSP +16 in addrspace0"},
      {{0x45}, 1, "DW_CFA_advance_loc: 5 to 0x105"},
      {{0x09, 0x03, 0x06}, 3, "DW_CFA_register: RBX RBP"},
      {{0x11, 0x03, 0x7f}, 3, "DW_CFA_offset_extended_sf: RBX 8"},
  };
  cfi_sec s;
  memset(&s, 0, sizeof s);
  cfi_cie4(&s, 1, -8, 16, NULL, 0);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(open_sec(&s, AMDDWARF_CFI_DEBUG_FRAME, X86, &cfi, &err), AMDDWARF_OK);
  const amddwarf_cfi_cie *cie = amddwarf_cfi_cie_at(cfi, 0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t pos = 0;
    amddwarf_cfa_insn insn;
    uint64_t loc = 0x100;
    char text[128];
    assert_int_equal(amddwarf_cfi_decode_insn(cfi, cie, cases[i].bytes, cases[i].n, 0, &pos,
                                              &insn, &err),
                     AMDDWARF_OK);
    size_t n = amddwarf_cfi_insn_print(cfi, cie, &insn, &loc, text, sizeof text);
    assert_string_equal(text, cases[i].text);
    assert_int_equal(n, strlen(cases[i].text));
    /* Truncated output stays NUL-terminated and reports the full length. */
    char small[8];
    assert_int_equal(amddwarf_cfi_insn_print(cfi, cie, &insn, NULL, small, sizeof small) >= 7,
                     1);
    assert_int_equal(strlen(small), 7);
  }
  amddwarf_cfi_close(cfi);
  char name[32];
  amddwarf_cfi_register_name(AMDGPU, 1536, name, sizeof name); /* wave32 VGPR0 in wave64 */
  assert_string_equal(name, "reg1536");
  amddwarf_cfi_register_name(AMDGPU, 2560, name, sizeof name);
  assert_string_equal(name, "VGPR0");
  amddwarf_cfi_register_name(X86, 17, name, sizeof name);
  assert_string_equal(name, "XMM0");
  assert_string_equal(amddwarf_cfi_rule_kind_name(AMDDWARF_CFI_RULE_VAL_EXPRESSION),
                      "val_expression");
}

static uint8_t *load(const char *name, size_t *size)
{
  char path[512];
  snprintf(path, sizeof path, "%s/tests/golden/cfi/%s", AMDDWARF_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static uint8_t data[2][8192];
  static int which;
  uint8_t *buf = data[which++ & 1];
  *size = fread(buf, 1, sizeof data[0], f);
  fclose(f);
  return buf;
}

static void test_open_elf_applies_relocations(void **state)
{
  (void)state;
  size_t size;
  uint8_t *image = load("kernel.o", &size);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_OK);
  assert_string_equal(amddwarf_cfi_get_target(cfi)->name, "amdgpu");
  assert_int_equal(amddwarf_cfi_fde_count(cfi), 1);
  assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->address_range, 0x14);
  amddwarf_cfi_close(cfi);
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_EH_FRAME, NULL, &cfi, &err),
                   AMDDWARF_NOT_FOUND);
  /* cyclic-cie.o differs from kernel.o only in the RELA addend of the CIE
     pointer (0x10, the FDE itself): the error proves the relocation applied. */
  uint8_t *cyclic = load("cyclic-cie.o", &size);
  assert_int_equal(amddwarf_cfi_open_elf(cyclic, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  image = load("kernel.o", &size);
  assert_int_equal(amddwarf_cfi_open_elf(image, 40, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);
  image[18] = 3; /* e_machine EM_386 */
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_UNSUPPORTED);
  image[0] = 'X';
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_MALFORMED);
}

/* kernel.o's .rela.debug_frame (file offset 0xf8) starts with the CIE
   pointer's entry: r_offset 0x14, R_AMDGPU_ABS32 against .debug_frame,
   addend 0. The ELF reader takes every relocs.def type, the PC-relative
   halves and NONE included. */
enum { CIE_RELA = 0xf8, CIE_RELA_TYPE = CIE_RELA + 8, CIE_RELA_ADDEND = CIE_RELA + 16,
       CIE_FIELD = 0x14 };

static void set_addend(uint8_t *image, uint64_t addend)
{
  for (int b = 0; b < 8; b++)
    image[CIE_RELA_ADDEND + b] = (uint8_t)(addend >> (8 * b));
}

static void test_open_elf_relocation_types_of_relocs_def(void **state)
{
  (void)state;
  size_t size;
  uint8_t *image = load("kernel.o", &size);
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(image[CIE_RELA_TYPE], 6); /* R_AMDGPU_ABS32 */
  /* R_AMDGPU_REL32_LO: S + A - P, with A = P the CIE at 0 again. */
  image[CIE_RELA_TYPE] = 10;
  set_addend(image, CIE_FIELD);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_fde_count(cfi), 1);
  assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->cie->offset, 0);
  assert_int_equal(amddwarf_cfi_fde_at(cfi, 0)->address_range, 0x14);
  amddwarf_cfi_close(cfi);
  /* A = P + 0x10 points the FDE at itself: the value was written. */
  set_addend(image, CIE_FIELD + 0x10);
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  /* R_AMDGPU_REL32_HI of the same: the high half of 0x10 is 0. */
  image[CIE_RELA_TYPE] = 11;
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_OK);
  amddwarf_cfi_close(cfi);
  /* R_AMDGPU_NONE leaves the field as written in the file. */
  image[CIE_RELA_TYPE] = 0;
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_OK);
  amddwarf_cfi_close(cfi);
  /* The GOT types have no meaning in a frame section. */
  image[CIE_RELA_TYPE] = 7;
  assert_int_equal(amddwarf_cfi_open_elf(image, size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err),
                   AMDDWARF_E_UNSUPPORTED);
  assert_non_null(strstr(err.message, "relocation type 7"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_names_and_codes),
      cmocka_unit_test(test_decode_every_instruction),
      cmocka_unit_test(test_draft_dialect_reads_0x2f_as_def_cfa_aspace),
      cmocka_unit_test(test_every_rule),
      cmocka_unit_test(test_x86_default_rule_is_undefined),
      cmocka_unit_test(test_cfa_rules_and_aspaces),
      cmocka_unit_test(test_remember_restore_nesting_and_limit),
      cmocka_unit_test(test_ill_formed_rules),
      cmocka_unit_test(test_header_fields_versions_and_formats),
      cmocka_unit_test(test_unknown_augmentation_keeps_header),
      cmocka_unit_test(test_hostile_sections),
      cmocka_unit_test(test_eh_frame_augmentations_and_encodings),
      cmocka_unit_test(test_eh_frame_pointer_formats),
      cmocka_unit_test(test_index_over_unsorted_fdes),
      cmocka_unit_test(test_overlapping_fdes_keep_their_rows),
      cmocka_unit_test(test_instruction_printing),
      cmocka_unit_test(test_open_elf_applies_relocations),
      cmocka_unit_test(test_open_elf_relocation_types_of_relocs_def),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
