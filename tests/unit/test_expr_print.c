/* The printer. Expected strings are what llvm-dwarfdump-19 printed for the
 * same bytes in a DW_AT_location of an amdgcn object (gfx900), with the one
 * documented difference: whole AMDGPU registers (SGPR32, not SGPR32_LO16;
 * PC, not PC_REG; VGPR0_W32, not 0x600). Operations llvm-dwarfdump-19 cannot
 * decode use the same operand spelling (specs/encodings.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/expr.h>

static void check_print(const char *hex, amddwarf_dialect dialect, unsigned flags,
                        const char *expected)
{
  uint8_t bytes[64];
  size_t size = 0;
  for (const char *p = hex; p[0] && p[1]; p += 2) {
    unsigned v;
    sscanf(p, "%2x", &v);
    bytes[size++] = (uint8_t)v;
  }
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  f.dialect = dialect;
  amddwarf_op ops[64];
  size_t count;
  amddwarf_error err;
  amddwarf_status st = amddwarf_expr_decode(bytes, size, &f, ops, 64, &count, &err);
  if (st != AMDDWARF_OK)
    fail_msg("%s: %s", hex, err.message);
  char buf[512];
  size_t length = 0;
  assert_int_equal(amddwarf_expr_print(ops, count, &f, flags, buf, sizeof buf, &length), 0);
  if (strcmp(buf, expected) != 0)
    fail_msg("%s: got '%s', expected '%s'", hex, buf, expected);
  assert_int_equal(length, strlen(expected));
}

#define LLVM(hex, text) check_print(hex, AMDDWARF_DIALECT_AUTO, 0, text)

static void test_matches_llvm_dwarfdump(void **state)
{
  (void)state;
  LLVM("9110", "DW_OP_fbreg +16");
  LLVM("917f", "DW_OP_fbreg -1");
  LLVM("3116", "DW_OP_lit1, DW_OP_swap");
  LLVM("7f7c", "DW_OP_breg15 -4");
  LLVM("55", "DW_OP_reg5");
  LLVM("7002", "DW_OP_breg0 PC_32+2"); /* llvm: DW_OP_breg0 +2 (no name for 0) */
  LLVM("9e0401020304", "DW_OP_implicit_value 0x4 0x01 0x02 0x03 0x04");
  LLVM("9e00", "DW_OP_implicit_value 0x0");
  LLVM("a800", "DW_OP_convert 0x0");
  LLVM("9a04030201", "DW_OP_call_ref 0x1020304");
  LLVM("a101", "DW_OP_addrx 0x1");
  LLVM("a201", "DW_OP_constx 0x1");
  LLVM("9d2000", "DW_OP_bit_piece 0x20 0x0");
  LLVM("0bfeff", "DW_OP_const2s -2");
  LLVM("0cfeffffff", "DW_OP_const4u 0xfffffffe");
  LLVM("0fffffffffffffffff", "DW_OP_const8s -1");
  LLVM("0effffffffffffffff", "DW_OP_const8u 0xffffffffffffffff");
  LLVM("15ff", "DW_OP_pick 0xff");
  LLVM("9402", "DW_OP_deref_size 0x2");
  LLVM("fb01", "DW_OP_GNU_addr_index 0x1");
  LLVM("28fdff30303030", "DW_OP_bra -3, DW_OP_lit0, DW_OP_lit0, DW_OP_lit0, DW_OP_lit0");
  LLVM("030000000000000000", "DW_OP_addr 0x0");
  LLVM("9002", "DW_OP_regx 0x2");
  LLVM("983000", "DW_OP_call2 0x30");
  LLVM("9930000000", "DW_OP_call4 0x30");
  LLVM("e0", "DW_OP_GNU_push_tls_address");
  LLVM("9c9b979f", "DW_OP_call_frame_cfa, DW_OP_form_tls_address, DW_OP_push_object_address, "
                   "DW_OP_stack_value");
  LLVM("e901", "DW_OP_LLVM_user DW_OP_LLVM_nop");
}

static void test_registers(void **state)
{
  (void)state;
  LLVM("90c000", "DW_OP_regx SGPR32");      /* llvm: SGPR32_LO16 */
  LLVM("9280147f", "DW_OP_bregx VGPR0-1");  /* llvm: VGPR0_LO16-1 */
  LLVM("9001", "DW_OP_regx EXEC_LO");       /* llvm: EXEC_LO_LO16 */
  LLVM("9011", "DW_OP_regx EXEC");
  LLVM("9010", "DW_OP_regx PC");            /* llvm: PC_REG */
  LLVM("8010", "DW_OP_breg16 PC+16");       /* llvm: PC_REG+16 */
  LLVM("810a", "DW_OP_breg17 EXEC+10");
  LLVM("51", "DW_OP_reg1 EXEC_LO");
  LLVM("90ff15", "DW_OP_regx VGPR255");
  LLVM("90e908", "DW_OP_regx SGPR105");
  LLVM("905f", "DW_OP_regx SGPR63");
  LLVM("90ff19", "DW_OP_regx AGPR255");
  LLVM("928018ff7e", "DW_OP_bregx AGPR0-129");
  /* Wave32 vector registers (llvm-dwarfdump-19 has no name: 0x600, 0x800). */
  LLVM("90800c", "DW_OP_regx VGPR0_W32");
  LLVM("908010", "DW_OP_regx AGPR0_W32");
  LLVM("90830c", "DW_OP_regx VGPR3_W32");
  /* Reserved numbers print as numbers, as llvm-dwarfdump-19 does. */
  LLVM("90c007", "DW_OP_regx 0x3c0");
  LLVM("90ea08", "DW_OP_regx 0x46a");
  LLVM("90ff0f", "DW_OP_regx 0x7ff");
  LLVM("92c0070a", "DW_OP_bregx 0x3c0 +10");
  LLVM("a5412a", "DW_OP_regval_type SGPR33 0x2a");
  /* Assembler names. */
  check_print("9041", AMDDWARF_DIALECT_AUTO, AMDDWARF_PRINT_ASM_REGISTERS, "DW_OP_regx s33");
  check_print("928314f87e", AMDDWARF_DIALECT_AUTO, AMDDWARF_PRINT_ASM_REGISTERS,
              "DW_OP_bregx v3-136");
  check_print("9011", AMDDWARF_DIALECT_AUTO, AMDDWARF_PRINT_ASM_REGISTERS, "DW_OP_regx exec");
  check_print("9010", AMDDWARF_DIALECT_AUTO, AMDDWARF_PRINT_ASM_REGISTERS, "DW_OP_regx pc");
}

static void test_entry_values(void **state)
{
  (void)state;
  LLVM("a3019f", "DW_OP_entry_value(DW_OP_stack_value)");
  LLVM("a30290419f", "DW_OP_entry_value(DW_OP_regx SGPR33), DW_OP_stack_value");
  LLVM("f3019f", "DW_OP_GNU_entry_value(DW_OP_stack_value)");
  /* llvm-dwarfdump-19 closes the parenthesis only when the block's first
     operation fills it; these are its outputs. */
  LLVM("a3059c9c9c9c9c", "DW_OP_entry_value(DW_OP_call_frame_cfa, DW_OP_call_frame_cfa, "
                         "DW_OP_call_frame_cfa, DW_OP_call_frame_cfa, DW_OP_call_frame_cfa");
  LLVM("a30391009f9f", "DW_OP_entry_value(DW_OP_fbreg +0, DW_OP_stack_value, DW_OP_stack_value");
  LLVM("a304a3019f9f9f", "DW_OP_entry_value(DW_OP_entry_value(DW_OP_stack_value), "
                         "DW_OP_stack_value, DW_OP_stack_value");
  LLVM("a3009f", "DW_OP_entry_value(DW_OP_stack_value");
}

static void test_extension_ops(void **state)
{
  (void)state;
  /* User-encoded: "DW_OP_LLVM_user NAME"; vendor and draft: plain names. */
  LLVM("9083149083149f", "DW_OP_regx VGPR3, DW_OP_regx VGPR3, DW_OP_stack_value");
  check_print("e902e903e90448e905089300", AMDDWARF_DIALECT_AUTO, 0,
              "DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address, DW_OP_LLVM_user "
              "DW_OP_LLVM_push_lane, DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_lit24, "
              "DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 0x8, DW_OP_piece 0x0");
  check_print("e1e2e3e40ae5e641e7e840fcffffffffffffffff01ea", AMDDWARF_DIALECT_VENDOR, 0,
              "DW_OP_LLVM_form_aspace_address, DW_OP_LLVM_push_lane, DW_OP_LLVM_offset, "
              "DW_OP_LLVM_offset_uconst 0xa, DW_OP_LLVM_bit_offset, "
              "DW_OP_LLVM_call_frame_entry_reg SGPR33, DW_OP_LLVM_undefined, "
              "DW_OP_LLVM_aspace_bregx SGPR32-4, DW_OP_LLVM_piece_end");
  /* aspace_bregx's displacement is a ULEB: 7c is +124 (a SLEB would be -4). */
  check_print("e8407c", AMDDWARF_DIALECT_VENDOR, 0, "DW_OP_LLVM_aspace_bregx SGPR32+124");
  check_print("eb2040ec2040e90403020102", AMDDWARF_DIALECT_VENDOR, 0,
              "DW_OP_LLVM_extend 0x20 0x40, DW_OP_LLVM_select_bit_piece 0x20 0x40, "
              "DW_OP_LLVM_aspace_implicit_pointer 0x1020304 +2");
  check_print("e7eae9", AMDDWARF_DIALECT_DRAFT, 0,
              "DW_OP_LLVM_form_aspace_address, DW_OP_LLVM_push_lane, DW_OP_LLVM_offset");
  check_print("e2e90c2040", AMDDWARF_DIALECT_AUTO, 0,
              "DW_OP_LLVM_push_lane, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x20 0x40");
  /* Operations llvm-dwarfdump-19 cannot decode, in its operand spelling. */
  LLVM("a42a0401020304", "DW_OP_const_type 0x2a 0x4 0x01 0x02 0x03 0x04");
  LLVM("a6042a", "DW_OP_deref_type 0x4 0x2a");
  LLVM("a00403020102", "DW_OP_implicit_pointer 0x1020304 +2");
  LLVM("f10bfeffffff", "DW_OP_GNU_encoded_addr 0xb 0xfffffffffffffffe");
}

static void test_buffer_handling(void **state)
{
  (void)state;
  static const uint8_t bytes[] = {0x91, 0x10, 0x31};
  amddwarf_op ops[3];
  size_t count, length;
  amddwarf_error err;
  assert_int_equal(amddwarf_expr_decode(bytes, sizeof bytes, NULL, ops, 3, &count, &err), 0);
  char buf[8];
  assert_int_equal(amddwarf_expr_print(ops, count, NULL, 0, buf, sizeof buf, &length),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, strlen("DW_OP_fbreg +16, DW_OP_lit1"));
  assert_string_equal(buf, "DW_OP_f");
  assert_int_equal(amddwarf_expr_print(ops, count, NULL, 0, NULL, 0, &length),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, 27);
  char big[64];
  assert_int_equal(amddwarf_expr_print(ops, 0, NULL, 0, big, sizeof big, &length), 0);
  assert_string_equal(big, "<empty>");
  /* A block with a length but no bytes is refused, not read. */
  amddwarf_op built = {0};
  built.kind = AMDDWARF_OP_entry_value;
  built.operands[0] = 3;
  assert_int_equal(amddwarf_expr_print(&built, 1, NULL, 0, big, sizeof big, &length),
                   AMDDWARF_E_INVALID_ARGUMENT);
  ops[0].kind = AMDDWARF_OP_KIND_COUNT;
  assert_int_equal(amddwarf_expr_print(ops, 1, NULL, 0, big, sizeof big, &length),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

/* amddwarf_expr_spell decodes and prints in one call; an undecodable rest
   follows what decoded, and a short buffer still reports the full length. */
static void test_spell_bytes(void **state)
{
  (void)state;
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  const uint8_t pieces[] = {0x90, 0x81, 0x14, 0x93, 0x04, 0x90, 0x82, 0x14, 0x93, 0x04};
  char buf[128];
  size_t length = 0;
  assert_int_equal(amddwarf_expr_spell(&f, pieces, sizeof pieces, buf, sizeof buf, &length),
                   AMDDWARF_OK);
  assert_string_equal(buf, "DW_OP_regx VGPR1, DW_OP_piece 0x4, DW_OP_regx VGPR2, DW_OP_piece 0x4");
  assert_int_equal(length, strlen(buf));
  char small[10];
  assert_int_equal(amddwarf_expr_spell(&f, pieces, sizeof pieces, small, sizeof small, &length),
                   AMDDWARF_OK);
  assert_string_equal(small, "DW_OP_reg");
  assert_int_equal(length, strlen(buf));
  const uint8_t cut[] = {0x91, 0x10, 0x0c, 0x01}; /* fbreg +16, then const4u missing 3 bytes */
  assert_int_not_equal(amddwarf_expr_spell(&f, cut, sizeof cut, buf, sizeof buf, NULL),
                       AMDDWARF_OK);
  assert_true(strncmp(buf, "DW_OP_fbreg +16, <error: ", 25) == 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_llvm_dwarfdump), cmocka_unit_test(test_registers),
      cmocka_unit_test(test_entry_values),           cmocka_unit_test(test_extension_ops),
      cmocka_unit_test(test_buffer_handling),
      cmocka_unit_test(test_spell_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
