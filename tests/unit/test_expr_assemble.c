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

#include "common/error.h"
#include "common/mem.h"
#include "expr/codec.h"

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
  /* aspace_bregx's displacement is a ULEB: "REG-N" (the printer's spelling)
     is the two's complement 2^64 - N; a separate operand is unsigned. */
  EXPECT_BYTES("DW_OP_LLVM_aspace_bregx s32-4", AMDDWARF_DIALECT_VENDOR, 64, 0xe8, 0x40, 0xfc,
               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
  EXPECT_BYTES("DW_OP_LLVM_aspace_bregx s32 124", AMDDWARF_DIALECT_USER, 64, 0xe9, 0x09, 0x40,
               0x7c);
  expect_error("DW_OP_LLVM_aspace_bregx s32 -4", AMDDWARF_DIALECT_USER, AMDDWARF_E_EXPR_SYNTAX,
               28, "negative value for an unsigned operand");
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


/* Bytes -> decode -> print -> assemble gives the same bytes. */
static void expect_round_trip(const uint8_t *bytes, size_t size, const amddwarf_expr_format *f,
                              const char *what)
{
  amddwarf_op ops[32];
  size_t count = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  if (amddwarf_expr_decode(bytes, size, f, ops, 32, &count, &err) != AMDDWARF_OK)
    fail_msg("%s: decode: %s", what, err.message);
  char text[1024];
  assert_int_equal(amddwarf_expr_print(ops, count, f, AMDDWARF_PRINT_DEFAULT, text, sizeof text, NULL), 0);
  uint8_t again[256];
  size_t again_size = 0;
  if (amddwarf_expr_assemble(text, f, 64, again, sizeof again, &again_size, &err) != AMDDWARF_OK)
    fail_msg("%s: '%s' does not assemble: %s", what, text, err.message);
  if (again_size != size || memcmp(again, bytes, size) != 0)
    fail_msg("%s: '%s' assembles to %zu bytes, not the %zu decoded", what, text, again_size,
             size);
}

/* Operand values that exercise each operand kind's spelling: negative signed
   values, unsigned values with the top bit set, named registers. */
static uint64_t sample_operand(amddwarf_operand_kind kind, unsigned which)
{
  switch (kind) {
  case AMDDWARF_OPERAND_U8:
    return 0xfe;
  case AMDDWARF_OPERAND_S8:
    return (uint64_t)-5;
  case AMDDWARF_OPERAND_U16:
    return 0xfffe;
  case AMDDWARF_OPERAND_S16:
    return (uint64_t)-300;
  case AMDDWARF_OPERAND_U32:
    return 0xfffffffe;
  case AMDDWARF_OPERAND_S32:
    return (uint64_t)-70000;
  case AMDDWARF_OPERAND_U64:
  case AMDDWARF_OPERAND_ADDR:
    return 0xfedcba9876543210u;
  case AMDDWARF_OPERAND_S64:
    return (uint64_t)INT64_MIN;
  case AMDDWARF_OPERAND_ULEB:
    return 1000;
  case AMDDWARF_OPERAND_SLEB:
    return (uint64_t)-8;
  case AMDDWARF_OPERAND_DIE_REF:
  case AMDDWARF_OPERAND_TYPE:
    return 0x2a;
  case AMDDWARF_OPERAND_REG:
    return which == 0 ? 2563 : 65; /* VGPR3, SGPR33 */
  default:
    return 0;
  }
}

/* Every operation of ops.def, in every dialect that encodes it, with sample
   operands: encoded, decoded, printed, assembled again. (The assembler
   register names of AMDDWARF_PRINT_ASM_REGISTERS are not one-to-one: "pc" is
   PC_32 and PC_64, "v3" a wave32 and a wave64 register.) Branches jump forward and backward; blocks are bytes or, for entry
   values, a sub-expression. */
static void test_print_round_trip(void **state)
{
  (void)state;
  static const uint8_t block[] = {0x2a, 0x00, 0x80, 0x3f};
  static const uint8_t sub_expression[] = {0x90, 0x41}; /* DW_OP_regx SGPR33 */
  static const amddwarf_dialect dialects[] = {AMDDWARF_DIALECT_AUTO, AMDDWARF_DIALECT_USER,
                                              AMDDWARF_DIALECT_VENDOR, AMDDWARF_DIALECT_DRAFT};
  size_t tried = 0;
  for (int k = 0; k < AMDDWARF_OP_KIND_COUNT; k++) {
    const amddwarf_op_info *info = amddwarf_op_info_get((amddwarf_op_kind)k);
    for (size_t d = 0; d < sizeof dialects / sizeof dialects[0]; d++) {
      amddwarf_expr_format f;
      amddwarf_expr_format_init(&f);
      f.dialect = dialects[d];
      /* lit0, OP, lit1: a backward branch target and a forward one. */
      amddwarf_op ops[3];
      memset(ops, 0, sizeof ops);
      ops[0].kind = AMDDWARF_OP_lit0;
      ops[2].kind = AMDDWARF_OP_lit1;
      amddwarf_op *op = &ops[1];
      op->kind = info->kind;
      for (unsigned i = 0; i < 2; i++) {
        switch (info->operands[i]) {
        case AMDDWARF_OPERAND_BLOCK:
        case AMDDWARF_OPERAND_BLOCK_U8:
          if (info->kind == AMDDWARF_OP_entry_value || info->kind == AMDDWARF_OP_GNU_entry_value) {
            op->block = sub_expression;
            op->operands[i] = sizeof sub_expression;
          } else {
            op->block = block;
            op->operands[i] = sizeof block;
          }
          break;
        case AMDDWARF_OPERAND_ENCODED_ADDR:
          op->operands[0] = 0x00; /* DW_EH_PE_absptr: an address */
          op->operands[1] = 0x1234;
          i = 2;
          break;
        default:
          op->operands[i] = sample_operand(info->operands[i], i);
          break;
        }
      }
      if (info->kind >= AMDDWARF_OP_reg0 && info->kind <= AMDDWARF_OP_reg31)
        op->operands[1] = (uint64_t)(info->kind - AMDDWARF_OP_reg0);
      for (uint32_t target = 0; target < 4; target += 3) {
        op->target = target;
        uint8_t bytes[64];
        size_t size = 0;
        if (amddwarf_expr_encode(ops, 3, &f, bytes, sizeof bytes, &size, NULL) != AMDDWARF_OK)
          break; /* no encoding in this dialect */
        char what[96];
        snprintf(what, sizeof what, "%s (%s)", info->name, amddwarf_dialect_name(f.dialect));
        expect_round_trip(bytes, size, &f, what);
        tried++;
        if (info->operands[0] != AMDDWARF_OPERAND_BRANCH)
          break;
      }
    }
  }
  assert_true(tried > AMDDWARF_OP_KIND_COUNT);
  /* The printer's spellings that the cases above do not reach. */
  static const uint8_t empty_block[] = {0x9e, 0x00};                   /* implicit_value 0x0 */
  static const uint8_t wave32[] = {0x90, 0x83, 0x0c};                  /* VGPR3_W32 */
  static const uint8_t reserved_breg[] = {0x92, 0xc0, 0x07, 0x08};     /* bregx 0x3c0 +8 */
  static const uint8_t to_the_end[] = {0x2f, 0x00, 0x00};              /* skip +0 */
  expect_round_trip(empty_block, sizeof empty_block, NULL, "empty block");
  expect_round_trip(wave32, sizeof wave32, NULL, "wave32 register");
  expect_round_trip(reserved_breg, sizeof reserved_breg, NULL, "register without a name");
  expect_round_trip(to_the_end, sizeof to_the_end, NULL, "branch to the end");
  uint8_t out[8];
  size_t size = 1;
  amddwarf_error err;
  assert_int_equal(assemble("<empty>", AMDDWARF_DIALECT_AUTO, 64, out, &size, &err), 0);
  assert_int_equal(size, 0);
  /* A displacement into the middle of an operation, or a register the
     operation does not have, is an error. */
  expect_error("DW_OP_skip +1; DW_OP_const2u 7", AMDDWARF_DIALECT_AUTO,
               AMDDWARF_E_EXPR_BAD_BRANCH, 11, "not the start of an operation");
  expect_error("DW_OP_bra 0x8000", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 10,
               "does not fit 16 bits");
  expect_error("DW_OP_breg1 SGPR1+4", AMDDWARF_DIALECT_AUTO, AMDDWARF_E_EXPR_SYNTAX, 12,
               "does not match");
  expect_error("DW_OP_implicit_value 0x3 0x01 0x02", AMDDWARF_DIALECT_AUTO,
               AMDDWARF_E_EXPR_SYNTAX, 34, "fewer bytes");
}

/* ---- references ("@NAME") ---- */

typedef struct symbol_value {
  const char *name;
  uint64_t value;
} symbol_value;

static const symbol_value symbols[] = {{"a", 300}, {"b", (uint64_t)-100}, {"c", 0x10000},
                                       {"d.x$1", 0x1234}};

static amddwarf_status known_symbol(void *user, const amddwarf_expr_fixup *f,
                                    amddwarf_error *err)
{
  (void)user;
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (strlen(symbols[i].name) == f->name_length &&
        memcmp(symbols[i].name, f->name, f->name_length) == 0)
      return AMDDWARF_OK;
  return amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNKNOWN_NAME, f->text_offset, "unknown '%.*s'",
                       (int)f->name_length, f->name);
}

static uint64_t symbol(const amddwarf_expr_fixup *f)
{
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (strlen(symbols[i].name) == f->name_length &&
        memcmp(symbols[i].name, f->name, f->name_length) == 0)
      return symbols[i].value;
  fail_msg("no symbol %.*s", (int)f->name_length, f->name);
  return 0;
}

static void test_references_record_fixups(void **state)
{
  (void)state;
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_expr_references refs = {known_symbol, NULL, NULL, 0, 0};
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf__expr_assemble_references(
                       "DW_OP_constu @a; DW_OP_consts @b-3; DW_OP_const4u @c+1; "
                       "DW_OP_call_ref @d.x$1",
                       &format, 64, &refs, &bytes, &size, &err),
                   AMDDWARF_OK);
  /* Each reference is encoded as 0: 10 00 | 11 00 | 0c 00000000 | 9a 00000000 */
  assert_int_equal(size, 14);
  assert_int_equal(refs.fixup_count, 4);
  static const struct {
    size_t op;
    amddwarf_operand_kind encoding;
    uint64_t byte_offset;
    size_t text_offset;
    int64_t addend;
  } want[] = {{0, AMDDWARF_OPERAND_ULEB, 1, 13, 0},
              {1, AMDDWARF_OPERAND_SLEB, 3, 30, -3},
              {2, AMDDWARF_OPERAND_U32, 5, 50, 1},
              {3, AMDDWARF_OPERAND_DIE_REF, 10, 71, 0}};
  for (size_t i = 0; i < 4; i++) {
    const amddwarf_expr_fixup *f = &refs.fixups[i];
    assert_int_equal(f->op_index, want[i].op);
    assert_int_equal(f->operand, 0);
    assert_int_equal(f->encoding, want[i].encoding);
    assert_int_equal(f->byte_offset, want[i].byte_offset);
    assert_int_equal(f->text_offset, want[i].text_offset);
    assert_int_equal(f->addend, want[i].addend);
    assert_int_equal(bytes[f->byte_offset], 0);
  }
  /* Resolving the fixups gives what the values written out assemble to,
     LEB128s growing as needed. */
  amddwarf_op ops[8];
  size_t count = 0;
  assert_int_equal(amddwarf_expr_decode(bytes, size, &format, ops, 8, &count, &err), AMDDWARF_OK);
  for (size_t i = 0; i < refs.fixup_count; i++) {
    const amddwarf_expr_fixup *f = &refs.fixups[i];
    ops[f->op_index].operands[f->operand] = symbol(f) + (uint64_t)f->addend;
  }
  uint8_t resolved[32], expected[32];
  size_t resolved_size = 0, expected_size = 0;
  assert_int_equal(amddwarf_expr_encode(ops, count, &format, resolved, sizeof resolved,
                                        &resolved_size, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_assemble("DW_OP_constu 300; DW_OP_consts -103; "
                                          "DW_OP_const4u 0x10001; DW_OP_call_ref 0x1234",
                                          &format, 64, expected, sizeof expected,
                                          &expected_size, &err),
                   AMDDWARF_OK);
  assert_int_equal(resolved_size, expected_size);
  assert_memory_equal(resolved, expected, expected_size);
  amddwarf__mem_free(NULL, bytes, size);
  amddwarf__mem_free(NULL, refs.fixups, refs.fixup_capacity * sizeof *refs.fixups);
}

static void test_reference_errors_name_their_character(void **state)
{
  (void)state;
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  amddwarf_error err;
  uint8_t *bytes = NULL;
  size_t size = 0;
  amddwarf_expr_references refs = {known_symbol, NULL, NULL, 0, 0};
  /* An error after a reference: the offset is the text's own. */
  assert_int_equal(amddwarf__expr_assemble_references("DW_OP_constu @a; DW_OP_frobnicate",
                                                     &format, 64, &refs, &bytes, &size, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  assert_int_equal(err.offset, 17);
  assert_null(bytes);
  /* The hook's error, at the '@'. */
  assert_int_equal(amddwarf__expr_assemble_references("DW_OP_lit0; DW_OP_constu @zz",
                                                     &format, 64, &refs, &bytes, &size, &err),
                   AMDDWARF_E_PRODUCE_UNKNOWN_NAME);
  assert_int_equal(err.offset, 25);
  /* A malformed addend and a bare '@'. */
  assert_int_equal(amddwarf__expr_assemble_references("DW_OP_constu @a*2", &format, 64, &refs,
                                                     &bytes, &size, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  assert_int_equal(err.offset, 15);
  assert_int_equal(amddwarf__expr_assemble_references("DW_OP_constu @", &format, 64, &refs,
                                                     &bytes, &size, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  assert_int_equal(err.offset, 13);
  /* Without references "@a" is no integer. */
  assert_int_equal(amddwarf__expr_assemble_references("DW_OP_constu @a", &format, 64, NULL,
                                                     &bytes, &size, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registers),     cmocka_unit_test(test_numbers_and_names),
      cmocka_unit_test(test_dialects),      cmocka_unit_test(test_labels),
      cmocka_unit_test(test_blocks),        cmocka_unit_test(test_syntax_errors),
      cmocka_unit_test(test_decodes_back),  cmocka_unit_test(test_print_round_trip),
      cmocka_unit_test(test_references_record_fixups),
      cmocka_unit_test(test_reference_errors_name_their_character),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
