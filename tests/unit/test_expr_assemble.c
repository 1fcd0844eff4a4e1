/* The expression assembler: the text syntax of specs/encodings.md, register
 * names, labels, blocks and sub-expressions, dialects, and its errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/expr.h>

static amddwarf_status assemble(const char *text, amddwarf_dialect dialect, unsigned wave,
                                uint8_t *out, size_t *size, amddwarf_error *err)
{
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  f.dialect = dialect;
  amddwarf_error_clear(err);
  return amddwarf_expr_assemble(text, &f, wave, out, 256, size, err);
}

#define EXPECT_BYTES(text, dialect, wave, ...)                                              \
  do {                                                                                      \
    static const uint8_t expected_[] = {__VA_ARGS__};                                       \
    uint8_t out_[256];                                                                      \
    size_t size_ = 0;                                                                       \
    amddwarf_error err_;                                                                    \
    amddwarf_status st_ = assemble(text, dialect, wave, out_, &size_, &err_);               \
    if (st_ != AMDDWARF_OK)                                                                 \
      fail_msg("'%s': %s", text, err_.message);                                             \
    assert_int_equal(size_, sizeof expected_);                                              \
    assert_memory_equal(out_, expected_, sizeof expected_);                                 \
  } while (0)

static void expect_error(const char *text, amddwarf_dialect dialect, amddwarf_status status,
                         uint64_t offset, const char *fragment)
{
  uint8_t out[256];
  size_t size = 0;
  amddwarf_error err;
  amddwarf_status st = assemble(text, dialect, 64, out, &size, &err);
  if (st != status)
    fail_msg("'%s': status %d, expected %d (%s)", text, st, status, err.message);
  assert_int_equal(err.offset, offset);
  if (!strstr(err.message, fragment))
    fail_msg("'%s': message '%s' lacks '%s'", text, err.message, fragment);
}

static void test_registers(void **state)
{
  (void)state;
  /* VGPR3 is 2560 + 3 in wave64 and 1536 + 3 in wave32 (0x83 0x14 / 0x83 0x0c). */
  EXPECT_BYTES("DW_OP_regx v3; DW_OP_LLVM_push_lane; DW_OP_piece 4", AMDDWARF_DIALECT_USER, 64,
               0x90, 0x83, 0x14, 0xe9, 0x03, 0x93, 0x04);
  EXPECT_BYTES("DW_OP_regx v3", AMDDWARF_DIALECT_USER, 32, 0x90, 0x83, 0x0c);
  EXPECT_BYTES("DW_OP_regx VGPR3", AMDDWARF_DIALECT_AUTO, 64, 0x90, 0x83, 0x14);
  /* The printer's wave-qualified names override the wave size. */
  EXPECT_BYTES("DW_OP_regx VGPR3_W32; DW_OP_regx AGPR0_W32", AMDDWARF_DIALECT_AUTO, 64, 0x90,
               0x83, 0x0c, 0x90, 0x80, 0x10);
  EXPECT_BYTES("DW_OP_regx v3_w64", AMDDWARF_DIALECT_AUTO, 32, 0x90, 0x83, 0x14);
  /* The printer's scalar names: PC_32 (0), EXEC_LO (1), PC (16), EXEC (17). */
  EXPECT_BYTES("DW_OP_regx PC_32; DW_OP_regx EXEC_LO; DW_OP_regx PC; DW_OP_regx EXEC",
               AMDDWARF_DIALECT_AUTO, 64, 0x90, 0x00, 0x90, 0x01, 0x90, 0x10, 0x90, 0x11);
  EXPECT_BYTES("DW_OP_regx 2560", AMDDWARF_DIALECT_AUTO, 64, 0x90, 0x80, 0x14);
  /* s33 = 32 + 33; s64 = 1088; exec = 17 (wave64) or 1 (wave32); pc = 16. */
  EXPECT_BYTES("DW_OP_regx s33, DW_OP_regx s64, DW_OP_regx exec, DW_OP_regx pc",
               AMDDWARF_DIALECT_AUTO, 64, 0x90, 0x41, 0x90, 0xc0, 0x08, 0x90, 0x11, 0x90, 0x10);
  EXPECT_BYTES("DW_OP_regx exec", AMDDWARF_DIALECT_AUTO, 32, 0x90, 0x01);
  /* bregx in both spellings, negative offsets as SLEB. */
  EXPECT_BYTES("DW_OP_bregx s33 -8; DW_OP_bregx SGPR33+16; DW_OP_bregx v0-1",
               AMDDWARF_DIALECT_AUTO, 64, 0x92, 0x41, 0x78, 0x92, 0x41, 0x10, 0x92, 0x80, 0x14,
               0x7f);
  EXPECT_BYTES("DW_OP_LLVM_aspace_bregx s32+4", AMDDWARF_DIALECT_VENDOR, 64, 0xe8, 0x40, 0x04);
}

static void test_numbers_and_names(void **state)
{
  (void)state;
  /* Prefix optional; decimal, hex, binary, signs. */
  EXPECT_BYTES("lit5; DW_OP_constu 0x80; consts -1; const1s -128; const2u 0b101",
               AMDDWARF_DIALECT_AUTO, 64, 0x35, 0x10, 0x80, 0x01, 0x11, 0x7f, 0x09, 0x80, 0x0a,
               0x05, 0x00);
  EXPECT_BYTES("DW_OP_fbreg +16\nDW_OP_lit1 ; DW_OP_swap,DW_OP_xderef", AMDDWARF_DIALECT_AUTO,
               64, 0x91, 0x10, 0x31, 0x16, 0x18);
  EXPECT_BYTES("DW_OP_addr 0x1122334455667788", AMDDWARF_DIALECT_AUTO, 64, 0x03, 0x88, 0x77,
               0x66, 0x55, 0x44, 0x33, 0x22, 0x11);
  EXPECT_BYTES("DW_OP_bit_piece 32 0; DW_OP_reg5; DW_OP_breg31 -2", AMDDWARF_DIALECT_AUTO, 64,
               0x9d, 0x20, 0x00, 0x55, 0x8f, 0x7e);
  EXPECT_BYTES("DW_OP_GNU_encoded_addr 0x0b -2", AMDDWARF_DIALECT_AUTO, 64, 0xf1, 0x0b, 0xfe,
               0xff, 0xff, 0xff);
  /* Empty statements are fine; an empty text is an empty expression. */
  EXPECT_BYTES(";; DW_OP_nop ;\n", AMDDWARF_DIALECT_AUTO, 64, 0x96);
  uint8_t out[4];
  size_t size = 9;
  amddwarf_error err;
  assert_int_equal(assemble("", AMDDWARF_DIALECT_AUTO, 64, out, &size, &err), 0);
  assert_int_equal(size, 0);
}

static void test_dialects(void **state)
{
  (void)state;
  const char *text = "DW_OP_LLVM_form_aspace_address; DW_OP_LLVM_push_lane; DW_OP_LLVM_offset";
  EXPECT_BYTES(text, AMDDWARF_DIALECT_DRAFT, 64, 0xe7, 0xea, 0xe9);
  EXPECT_BYTES(text, AMDDWARF_DIALECT_VENDOR, 64, 0xe1, 0xe2, 0xe3);
  EXPECT_BYTES(text, AMDDWARF_DIALECT_USER, 64, 0xe9, 0x02, 0xe9, 0x03, 0xe9, 0x04);
  EXPECT_BYTES(text, AMDDWARF_DIALECT_AUTO, 64, 0xe9, 0x02, 0xe9, 0x03, 0xe9, 0x04);
  /* The printer's user spelling is accepted. */
  EXPECT_BYTES("DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 32 64", AMDDWARF_DIALECT_USER, 64,
               0xe9, 0x0c, 0x20, 0x40);
  EXPECT_BYTES("DW_OP_LLVM_extend 32 64", AMDDWARF_DIALECT_VENDOR, 64, 0xeb, 0x20, 0x40);
  EXPECT_BYTES("DW_OP_LLVM_aspace_implicit_pointer 0x1234 -4", AMDDWARF_DIALECT_VENDOR, 64, 0xe9,
               0x34, 0x12, 0x00, 0x00, 0x7c);
  /* Not in the dialect: the error names the operation, the dialect and
     where the operation is in the text. */
  expect_error("DW_OP_nop; DW_OP_LLVM_offset_uconst 4", AMDDWARF_DIALECT_DRAFT,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 11, "DW_OP_LLVM_offset_uconst");
  expect_error("DW_OP_nop; DW_OP_LLVM_offset_uconst 4", AMDDWARF_DIALECT_DRAFT,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 11, "draft");
  expect_error("DW_OP_LLVM_nop", AMDDWARF_DIALECT_VENDOR, AMDDWARF_E_EXPR_NOT_IN_DIALECT, 0,
               "vendor");
  expect_error("DW_OP_LLVM_aspace_implicit_pointer 1 0", AMDDWARF_DIALECT_USER,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 0, "user");
  expect_error("DW_OP_LLVM_user DW_OP_LLVM_push_lane", AMDDWARF_DIALECT_VENDOR,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 0, "DW_OP_LLVM_user");
  expect_error("DW_OP_LLVM_user DW_OP_regx 5", AMDDWARF_DIALECT_USER,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 16, "DW_OP_regx");
}

static void test_labels(void **state)
{
  (void)state;
  /* bra over lit2 to "done" (after the last operation: the end). */
  EXPECT_BYTES("DW_OP_lit1; DW_OP_bra done; DW_OP_lit2; done:", AMDDWARF_DIALECT_AUTO, 64,
               0x31, 0x28, 0x01, 0x00, 0x32);
  /* A backward loop: top: lit0 (offset 0); skip top -> -4 from offset 4. */
  EXPECT_BYTES("top: DW_OP_lit0; DW_OP_skip top", AMDDWARF_DIALECT_AUTO, 64, 0x30, 0x2f, 0xfc,
               0xff);
  /* Two labels on one operation, on separate lines. */
  EXPECT_BYTES("a:\nb: DW_OP_nop\nDW_OP_skip b\nDW_OP_skip a", AMDDWARF_DIALECT_AUTO, 64, 0x96,
               0x2f, 0xfc, 0xff, 0x2f, 0xf9, 0xff);
  expect_error("DW_OP_skip nowhere", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 11,
               "undefined label 'nowhere'");
  expect_error("x: DW_OP_nop; x: DW_OP_nop", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 14,
               "label defined twice");
  expect_error("DW_OP_skip", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 10,
               "missing branch label");
}

static void test_blocks(void **state)
{
  (void)state;
  EXPECT_BYTES("DW_OP_implicit_value 0x2a000000; DW_OP_stack_value", AMDDWARF_DIALECT_AUTO, 64,
               0x9e, 0x04, 0x2a, 0x00, 0x00, 0x00, 0x9f);
  EXPECT_BYTES("DW_OP_implicit_value 0x", AMDDWARF_DIALECT_AUTO, 64, 0x9e, 0x00);
  EXPECT_BYTES("DW_OP_const_type 0x2a 01000000", AMDDWARF_DIALECT_AUTO, 64, 0xa4, 0x2a, 0x04,
               0x01, 0x00, 0x00, 0x00);
  /* A sub-expression, nested, in the dialect of the whole. */
  EXPECT_BYTES("DW_OP_entry_value(DW_OP_regx s33); DW_OP_stack_value", AMDDWARF_DIALECT_AUTO, 64,
               0xa3, 0x02, 0x90, 0x41, 0x9f);
  EXPECT_BYTES("DW_OP_entry_value (DW_OP_entry_value(DW_OP_reg1), DW_OP_LLVM_push_lane)",
               AMDDWARF_DIALECT_VENDOR, 64, 0xa3, 0x04, 0xa3, 0x01, 0x51, 0xe2);
  EXPECT_BYTES("DW_OP_entry_value ()", AMDDWARF_DIALECT_AUTO, 64, 0xa3, 0x00);
  expect_error("DW_OP_implicit_value 0x123", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 21,
               "hex bytes");
  expect_error("DW_OP_implicit_value 0xzz", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 21,
               "bad hex byte");
  expect_error("DW_OP_entry_value(DW_OP_(regx s33", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX,
               17, "unbalanced");
  /* Errors inside a sub-expression point into the whole text. */
  expect_error("DW_OP_entry_value(DW_OP_regx s999)", AMDDWARF_DIALECT_AUTO,
               AMDDWARF_E_EXPR_SYNTAX, 29, "unknown register 's999'");
  expect_error("DW_OP_entry_value(DW_OP_LLVM_offset_uconst 1)", AMDDWARF_DIALECT_DRAFT,
               AMDDWARF_E_EXPR_NOT_IN_DIALECT, 18, "DW_OP_LLVM_offset_uconst");
  /* Eight levels of sub-expressions are fine, the ninth is refused at its
     parenthesis (18 characters per level). */
  char nested[512] = "";
  for (int i = 0; i < 9; i++)
    strcat(nested, "DW_OP_entry_value(");
  strcat(nested, "DW_OP_nop");
  for (int i = 0; i < 9; i++)
    strcat(nested, ")");
  expect_error(nested, AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 8 * 18 + 17,
               "nested too deeply");
  uint8_t out[64];
  size_t size;
  amddwarf_error err;
  nested[strlen(nested) - 1] = '\0';
  assert_int_equal(assemble(nested + 18, AMDDWARF_DIALECT_AUTO, 64, out, &size, &err), 0);
  assert_int_equal(size, 8 * 2 + 1);
  assert_int_equal(out[1], 15);
  assert_int_equal(out[16], 0x96);
}

static void test_syntax_errors(void **state)
{
  (void)state;
  expect_error("DW_OP_lit0; DW_OP_frob 3", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 12,
               "unknown operation 'DW_OP_frob'");
  expect_error("DW_OP_constu", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 12,
               "missing operand");
  expect_error("DW_OP_constu -1", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 13,
               "negative value");
  expect_error("DW_OP_constu 12z", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 13,
               "expected an integer");
  expect_error("DW_OP_constu 0x10000000000000000", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX,
               13, "expected an integer");
  expect_error("DW_OP_consts 0x8000000000000000", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX,
               13, "out of range");
  expect_error("DW_OP_lit0 5", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 11,
               "unexpected operand '5'");
  expect_error("DW_OP_regx v256", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 11,
               "unknown register");
  expect_error("DW_OP_lit0 )", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 11, "unexpected");
  expect_error(": DW_OP_lit0", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 0, "unexpected");
  /* Range errors come from the encoder, at the operation. */
  expect_error("DW_OP_nop; DW_OP_const1u 256", AMDDWARF_DIALECT_AUTO,
               AMDDWARF_E_EXPR_BAD_OPERAND, 11, "DW_OP_const1u");
  uint8_t out[2];
  size_t size;
  amddwarf_error err;
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  assert_int_equal(amddwarf_expr_assemble("DW_OP_regx v3", &f, 64, out, sizeof out, &size, &err),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(size, 3);
  assert_int_equal(amddwarf_expr_assemble("DW_OP_nop", &f, 16, out, sizeof out, &size, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

/* What the assembler writes decodes to what the text says. */
static void test_decodes_back(void **state)
{
  (void)state;
  uint8_t out[256];
  size_t size;
  amddwarf_error err;
  assert_int_equal(assemble("DW_OP_regx v7; DW_OP_LLVM_push_lane; DW_OP_LLVM_offset_uconst 4; "
                            "DW_OP_LLVM_select_bit_piece 32 64; DW_OP_skip end; DW_OP_nop; end:",
                            AMDDWARF_DIALECT_AUTO, 64, out, &size, &err),
                   0);
  amddwarf_op ops[16];
  size_t count;
  assert_int_equal(amddwarf_expr_decode(out, size, NULL, ops, 16, &count, &err), 0);
  assert_int_equal(count, 6);
  assert_int_equal(ops[0].operands[0], 2567);
  assert_int_equal(ops[1].kind, AMDDWARF_OP_LLVM_push_lane);
  assert_int_equal(ops[2].operands[0], 4);
  assert_int_equal(ops[3].operands[0], 32);
  assert_int_equal(ops[3].operands[1], 64);
  assert_int_equal(ops[4].target, 6);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registers),     cmocka_unit_test(test_numbers_and_names),
      cmocka_unit_test(test_dialects),      cmocka_unit_test(test_labels),
      cmocka_unit_test(test_blocks),        cmocka_unit_test(test_syntax_errors),
      cmocka_unit_test(test_decodes_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
