/* Every "ill-formed" clause of the seed spec, each with its own status, plus
 * optimized-out / unavailable reads, hard limits, missing target callbacks
 * and decode errors: the status, the failing operation's offset and that the
 * message says something. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static const char WAVE[] =
    "{\"architecture\": \"gfx90a\", \"lane\": 1,"
    " \"registers\": {\"s33\": \"0x100\", \"v0\": [1, 2]},"
    " \"memory\": [{\"address\": \"0x2000\", \"bytes\": \"0102030405060708090a0b0c0d0e0f10\"}],"
    " \"frame_base\": \"DW_OP_lit1; DW_OP_stack_value\","
    " \"base_types\": [{\"die\": \"0x30\", \"encoding\": \"unsigned\", \"bit_size\": 32},"
    "   {\"die\": \"0x34\", \"encoding\": \"signed\", \"bit_size\": 16},"
    "   {\"die\": \"0x38\", \"encoding\": \"float\", \"bit_size\": 32},"
    "   {\"die\": \"0x3c\", \"encoding\": \"unsigned\", \"bit_size\": 32, \"count\": 4}],"
    " \"dies\": [{\"offset\": \"0x110\", \"location\": \"DW_OP_addr 0x2000\"},"
    "   {\"offset\": \"0x120\"}]}";

static int setup(void **state)
{
  return fx_setup(state, WAVE);
}

/* Evaluates TEXT, expecting STATUS at the operation with index INDEX (its
   byte offset, found by decoding), or with no offset (AMDDWARF_NO_OFFSET). */
static void expect_error(eval_fixture *fx, const char *text, amddwarf_status status,
                         uint64_t index)
{
  uint8_t bytes[2048];
  amddwarf_op ops[2048];
  size_t size = fx_assemble(fx, text, bytes, sizeof bytes), count = 0;
  uint64_t offset = AMDDWARF_NO_OFFSET;
  assert_int_equal(amddwarf_expr_decode(bytes, size, &fx->req.format, ops, 2048, &count, NULL),
                   AMDDWARF_OK);
  if (index != AMDDWARF_NO_OFFSET) {
    assert_true(index < count);
    offset = ops[index].offset;
  }
  amddwarf_status st = fx_eval_bytes(fx, bytes, size);
  if (st != status)
    print_error("%s: got %s (%s)\n", text, amddwarf_status_name(st), fx->err.message);
  assert_int_equal(st, status);
  assert_int_equal(fx->err.status, status);
  if (offset != AMDDWARF_NO_OFFSET)
    assert_int_equal(fx->err.offset, offset);
  assert_true(fx->err.message[0] != '\0');
}

static void expect_value_error(eval_fixture *fx, const char *text, amddwarf_status status,
                               uint64_t index)
{
  fx->req.required = AMDDWARF_RESULT_VALUE;
  expect_error(fx, text, status, index);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
}

static void test_stack_underflow(void **state)
{
  eval_fixture *fx = *state;
  expect_error(fx, "DW_OP_lit1; DW_OP_plus", AMDDWARF_E_EVAL_STACK_UNDERFLOW, 1);
  expect_error(fx, "DW_OP_drop", AMDDWARF_E_EVAL_STACK_UNDERFLOW, 0);
  expect_error(fx, "DW_OP_lit1; DW_OP_pick 1", AMDDWARF_E_EVAL_STACK_UNDERFLOW, 1);
  expect_error(fx, "DW_OP_lit1; DW_OP_lit1; DW_OP_rot", AMDDWARF_E_EVAL_STACK_UNDERFLOW, 2);
  /* A called DIE's own stack starts empty: it cannot see the caller's entries. */
  expect_error(fx, "DW_OP_lit1; DW_OP_LLVM_select_bit_piece 1 1", AMDDWARF_E_EVAL_STACK_UNDERFLOW, 1);
}

static void test_kind_mismatches(void **state)
{
  eval_fixture *fx = *state;
  expect_error(fx, "DW_OP_regx s33; DW_OP_lit1; DW_OP_plus", AMDDWARF_E_EVAL_NOT_VALUE, 2);
  /* A memory location in another space does not convert to a value. */
  expect_error(fx, "DW_OP_lit1; DW_OP_lit3; DW_OP_LLVM_form_aspace_address; DW_OP_lit1; DW_OP_plus",
               AMDDWARF_E_EVAL_NOT_VALUE, 4);
  expect_error(fx, "DW_OP_const_type 0x30 0x01000000; DW_OP_lit1; DW_OP_LLVM_offset",
               AMDDWARF_E_EVAL_NOT_LOCATION, 2);
  expect_error(fx, "DW_OP_const_type 0x38 0x0000803f; DW_OP_lit1; DW_OP_shl",
               AMDDWARF_E_EVAL_NOT_INTEGRAL, 2);
  expect_error(fx, "DW_OP_const_type 0x38 0x0000803f; DW_OP_lit3; DW_OP_LLVM_form_aspace_address",
               AMDDWARF_E_EVAL_NOT_INTEGRAL, 2);
  expect_error(fx, "DW_OP_const_type 0x38 0x0000803f; DW_OP_lit1; DW_OP_and",
               AMDDWARF_E_EVAL_TYPE_MISMATCH, 2);
  expect_error(fx, "DW_OP_const_type 0x30 0x01000000; DW_OP_lit1; DW_OP_plus",
               AMDDWARF_E_EVAL_TYPE_MISMATCH, 2);
  expect_error(fx, "DW_OP_const_type 0x38 0x0000803f; DW_OP_const_type 0x38 0x0000803f; DW_OP_xor",
               AMDDWARF_E_EVAL_NOT_INTEGRAL, 2);
}

static void test_incomplete_composites(void **state)
{
  eval_fixture *fx = *state;
  /* The stack operations that copy an entry may not copy an incomplete
     composite (specs/evaluator.md); swap, rot and drop move or discard it
     (test_eval_composite.c). */
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_dup", AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 2);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_lit1; DW_OP_over",
               AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 3);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_lit1; DW_OP_pick 1",
               AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 3);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_pick 0",
               AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 2);
  /* Copying a complete entry above one is fine; consuming the moved
     composite as a value or location is not. */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_lit1; DW_OP_dup; DW_OP_drop;"
                               " DW_OP_drop"), AMDDWARF_OK);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_lit1; DW_OP_swap; DW_OP_LLVM_offset",
               AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 4);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_lit1; DW_OP_LLVM_offset",
               AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 3);
  expect_error(fx, "DW_OP_piece 4; DW_OP_deref", AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE, 1);
  /* At the end it becomes complete: no error. */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s33; DW_OP_piece 4"), AMDDWARF_OK);
}

static void test_offsets_out_of_range(void **state)
{
  eval_fixture *fx = *state;
  /* Bit offset equal to the 32-bit register's size. */
  expect_error(fx, "DW_OP_regx s33; DW_OP_lit4; DW_OP_LLVM_offset", AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 2);
  expect_error(fx, "DW_OP_regx s33; DW_OP_consts -1; DW_OP_LLVM_bit_offset",
               AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 2);
  expect_error(fx, "DW_OP_addr 0; DW_OP_consts -1; DW_OP_LLVM_offset", AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 2);
  /* private_lane addresses are 32 bits. */
  expect_error(fx, "DW_OP_const4u 0xffffffff; DW_OP_lit5; DW_OP_LLVM_form_aspace_address; DW_OP_LLVM_offset_uconst 1",
               AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 3);
  expect_error(fx, "DW_OP_implicit_value 0x0102; DW_OP_LLVM_offset_uconst 2",
               AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 1);
  /* bit_piece's displacement is an offset too. */
  expect_error(fx, "DW_OP_regx s33; DW_OP_bit_piece 1 32", AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, 1);
}

static void test_reads(void **state)
{
  eval_fixture *fx = *state;
  expect_value_error(fx, "DW_OP_regx s33; DW_OP_deref", AMDDWARF_E_EVAL_OUT_OF_BOUNDS, 1);
  expect_value_error(fx, "DW_OP_LLVM_undefined; DW_OP_deref", AMDDWARF_E_EVAL_OPTIMIZED_OUT, 1);
  expect_value_error(fx, "DW_OP_regx s33; DW_OP_piece 2; DW_OP_piece 2; DW_OP_LLVM_piece_end; DW_OP_deref_size 4",
                     AMDDWARF_E_EVAL_OPTIMIZED_OUT, 4);
  expect_value_error(fx, "DW_OP_addr 0x9999; DW_OP_deref", AMDDWARF_E_EVAL_UNAVAILABLE, 1);
  expect_value_error(fx, "DW_OP_regx s40; DW_OP_deref_size 4", AMDDWARF_E_EVAL_UNAVAILABLE, 1);
  expect_value_error(fx, "DW_OP_regx 5; DW_OP_deref_size 1", AMDDWARF_E_EVAL_BAD_REGISTER, 1);
  /* Through amddwarf_location_read too. */
  assert_int_equal(fx_eval(fx, "DW_OP_LLVM_undefined; DW_OP_regx s33; DW_OP_lit0; DW_OP_LLVM_select_bit_piece 32 1"), AMDDWARF_OK);
  uint8_t buf[8];
  assert_int_equal(fx_read(fx, 0, 8, buf), AMDDWARF_E_EVAL_OPTIMIZED_OUT);
  assert_int_equal(fx_read(fx, 16, 32, buf), AMDDWARF_E_EVAL_OUT_OF_BOUNDS);
}

static void test_address_spaces(void **state)
{
  eval_fixture *fx = *state;
  expect_error(fx, "DW_OP_lit0; DW_OP_lit4; DW_OP_LLVM_form_aspace_address", AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 2);
  expect_error(fx, "DW_OP_lit0; DW_OP_const1u 0x60; DW_OP_LLVM_form_aspace_address",
               AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 2);
  expect_error(fx, "DW_OP_lit7; DW_OP_LLVM_aspace_bregx s33 0", AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 1);
  expect_value_error(fx, "DW_OP_lit9; DW_OP_lit0; DW_OP_xderef", AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 2);
  fx->req.xderef = AMDDWARF_XDEREF_LEGACY;
  expect_value_error(fx, "DW_OP_lit3; DW_OP_lit0; DW_OP_xderef", AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 2);
  fx->req.xderef = AMDDWARF_XDEREF_DWARF;
  fx->req.format.dialect = AMDDWARF_DIALECT_VENDOR;
  expect_error(fx, "DW_OP_lit4; DW_OP_LLVM_aspace_implicit_pointer 0x110 0",
               AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, 1);
  fx->req.format.dialect = AMDDWARF_DIALECT_AUTO;
  /* A lane outside the wave, for private_lane and push_lane. */
  fx->req.lane = 64;
  expect_error(fx, "DW_OP_LLVM_push_lane", AMDDWARF_E_AMDGPU_BAD_LANE, 0);
  expect_value_error(fx, "DW_OP_lit0; DW_OP_lit5; DW_OP_LLVM_form_aspace_address; DW_OP_deref_size 1",
                     AMDDWARF_E_AMDGPU_BAD_LANE, 3);
  fx->req.lane = AMDDWARF_NO_LANE;
}

static void test_sizes_and_types(void **state)
{
  eval_fixture *fx = *state;
  expect_value_error(fx, "DW_OP_addr 0x2000; DW_OP_deref_size 9", AMDDWARF_E_EVAL_BAD_SIZE, 1);
  expect_value_error(fx, "DW_OP_addr 0x2000; DW_OP_deref_type 4 0x34", AMDDWARF_E_EVAL_BAD_SIZE, 1);
  expect_value_error(fx, "DW_OP_const_type 0x30 0x0100", AMDDWARF_E_EVAL_BAD_SIZE, 0);
  expect_value_error(fx, "DW_OP_const_type 0x30 0x01000000; DW_OP_reinterpret 0x34", AMDDWARF_E_EVAL_BAD_SIZE, 1);
  expect_value_error(fx, "DW_OP_addr 0x2000; DW_OP_deref_type 2 0x99", AMDDWARF_E_EVAL_BAD_TYPE, 1);
  expect_value_error(fx, "DW_OP_addr 0x2000; DW_OP_deref_type 16 0x3c; DW_OP_convert 0x30",
                     AMDDWARF_E_EVAL_BAD_TYPE, 2);
  expect_value_error(fx, "DW_OP_lit1; DW_OP_lit0; DW_OP_div", AMDDWARF_E_EVAL_DIVISION_BY_ZERO, 2);
  expect_value_error(fx, "DW_OP_lit1; DW_OP_lit0; DW_OP_mod", AMDDWARF_E_EVAL_DIVISION_BY_ZERO, 2);
}

static void test_implicit_pointer_misuse(void **state)
{
  eval_fixture *fx = *state;
  /* Only a whole dereference of the pointer storage is allowed. */
  expect_value_error(fx, "DW_OP_implicit_pointer 0x110 0; DW_OP_deref_size 4", AMDDWARF_E_EVAL_IMPLICIT_POINTER, 1);
  expect_value_error(fx, "DW_OP_implicit_pointer 0x110 0; DW_OP_deref; DW_OP_lit1; DW_OP_plus",
                     AMDDWARF_E_EVAL_IMPLICIT_POINTER, 3);
  /* Reading its bits through a composite. */
  assert_int_equal(fx_eval(fx, "DW_OP_implicit_pointer 0x110 0; DW_OP_piece 8"), AMDDWARF_OK);
  uint8_t buf[8];
  assert_int_equal(fx_read(fx, 0, 64, buf), AMDDWARF_E_EVAL_IMPLICIT_POINTER);
  /* A target DIE with neither location nor constant value. */
  expect_error(fx, "DW_OP_implicit_pointer 0x120 0; DW_OP_deref", AMDDWARF_E_EVAL_BAD_DIE, AMDDWARF_NO_OFFSET);
  expect_error(fx, "DW_OP_call2 0x999", AMDDWARF_E_EVAL_BAD_DIE, 0);
}

static void test_entry_values(void **state)
{
  eval_fixture *fx = *state;
  expect_value_error(fx, "DW_OP_entry_value(DW_OP_lit1; DW_OP_lit2)", AMDDWARF_E_EVAL_ENTRY_VALUE, 0);
  expect_value_error(fx, "DW_OP_entry_value(DW_OP_LLVM_undefined)", AMDDWARF_E_EVAL_ENTRY_VALUE, 0);
  expect_value_error(fx, "DW_OP_entry_value(DW_OP_regx s33; DW_OP_lit1; DW_OP_LLVM_offset)",
                     AMDDWARF_E_EVAL_ENTRY_VALUE, 0);
  expect_value_error(fx, "DW_OP_entry_value(DW_OP_push_object_address)", AMDDWARF_E_EVAL_NOT_IN_CONTEXT, 0);
  /* The snapshot has no entry registers. */
  expect_value_error(fx, "DW_OP_entry_value(DW_OP_regx s33)", AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET);
}

static void test_composites(void **state)
{
  eval_fixture *fx = *state;
  expect_error(fx, "DW_OP_const_type 0x30 0x01000000; DW_OP_piece 4", AMDDWARF_E_EVAL_BAD_PIECE, 1);
  expect_error(fx, "DW_OP_lit1; DW_OP_LLVM_piece_end", AMDDWARF_E_EVAL_NO_INCOMPLETE_COMPOSITE, 1);
  expect_error(fx, "DW_OP_LLVM_piece_end", AMDDWARF_E_EVAL_NO_INCOMPLETE_COMPOSITE, 0);
  expect_error(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 0 1", AMDDWARF_E_EVAL_ZERO_SIZE, 1);
  expect_error(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 8 0", AMDDWARF_E_EVAL_ZERO_SIZE, 1);
  expect_error(fx, "DW_OP_regx s33; DW_OP_dup; DW_OP_lit1; DW_OP_LLVM_select_bit_piece 8 0",
               AMDDWARF_E_EVAL_ZERO_SIZE, 3);
  expect_error(fx, "DW_OP_addr 0; DW_OP_addr 8; DW_OP_const_type 0x34 0x0100; DW_OP_LLVM_select_bit_piece 1 17",
               AMDDWARF_E_EVAL_MASK_TOO_SMALL, 3);
  expect_error(fx, "DW_OP_LLVM_undefined; DW_OP_LLVM_extend 0x8000000000000000 4",
               AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, 1);
  expect_error(fx, "DW_OP_regx s33; DW_OP_piece 8", AMDDWARF_E_EVAL_PART_OUT_OF_RANGE, 1);
  expect_error(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 16 2; DW_OP_piece 5",
               AMDDWARF_E_EVAL_PART_OUT_OF_RANGE, 2);
}

static void test_composite_larger_than_32bit_space(void **state)
{
  eval_fixture *fx = *state;
  fx->req.format.address_size = 4;
  expect_error(fx, "DW_OP_LLVM_undefined; DW_OP_LLVM_extend 0x100000000 16",
               AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, 1);
  fx->req.format.address_size = 8;
}

static void test_results(void **state)
{
  eval_fixture *fx = *state;
  expect_value_error(fx, "DW_OP_regx s33", AMDDWARF_E_EVAL_RESULT, AMDDWARF_NO_OFFSET);
  expect_value_error(fx, "", AMDDWARF_E_EVAL_RESULT, AMDDWARF_NO_OFFSET);
  expect_error(fx, "DW_OP_const_type 0x30 0x01000000", AMDDWARF_E_EVAL_RESULT, AMDDWARF_NO_OFFSET);
  /* The frame base is implicit storage. */
  expect_error(fx, "DW_OP_fbreg 0", AMDDWARF_E_EVAL_FRAME_BASE, 0);
}

static void test_writes(void **state)
{
  eval_fixture *fx = *state;
  uint8_t buf[4] = {1, 2, 3, 4};
  assert_int_equal(fx_eval(fx, "DW_OP_lit1; DW_OP_stack_value"), AMDDWARF_OK);
  assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &fx->result.location, 0, 8, buf, &fx->err),
                   AMDDWARF_E_EVAL_WRITE_READONLY);
  assert_int_equal(fx_eval(fx, "DW_OP_regx s33; DW_OP_piece 2; DW_OP_piece 2"), AMDDWARF_OK);
  assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &fx->result.location, 0, 32, buf, &fx->err),
                   AMDDWARF_E_EVAL_WRITE_UNDEFINED);
  /* Nothing was written: s33 still reads 0x100. */
  assert_int_equal(fx_read(fx, 0, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x01", 2);
}

static void test_limits(void **state)
{
  eval_fixture *fx = *state;
  char text[2048] = "";
  for (int i = 0; i < 65; i++)
    strcat(text, "DW_OP_lit1;");
  expect_error(fx, text, AMDDWARF_E_LIMIT, 64);
  expect_error(fx, "top: DW_OP_skip top", AMDDWARF_E_LIMIT, 0);
  expect_error(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 1 2000", AMDDWARF_E_LIMIT, 1);
  expect_error(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 1 1000000000000", AMDDWARF_E_LIMIT, 1);
}

static void test_missing_callbacks(void **state)
{
  eval_fixture *fx = *state;
  amddwarf_target empty;
  memset(&empty, 0, sizeof empty);
  empty.struct_size = sizeof empty;
  fx->req.target = &empty;
  expect_value_error(fx, "DW_OP_regx s33; DW_OP_deref_size 4", AMDDWARF_E_UNSUPPORTED, 1);
  expect_error(fx, "DW_OP_fbreg 0", AMDDWARF_E_UNSUPPORTED, 0);
  expect_error(fx, "DW_OP_call2 1", AMDDWARF_E_UNSUPPORTED, 0);
  expect_error(fx, "DW_OP_call_frame_cfa", AMDDWARF_E_UNSUPPORTED, 0);
  expect_error(fx, "DW_OP_push_object_address", AMDDWARF_E_UNSUPPORTED, 0);
  expect_error(fx, "DW_OP_lit0; DW_OP_form_tls_address", AMDDWARF_E_UNSUPPORTED, 1);
  expect_error(fx, "DW_OP_addrx 0", AMDDWARF_E_UNSUPPORTED, 0);
  expect_value_error(fx, "DW_OP_addr 0; DW_OP_deref_type 4 0x30", AMDDWARF_E_UNSUPPORTED, 1);
  expect_error(fx, "DW_OP_LLVM_call_frame_entry_reg s33", AMDDWARF_E_UNSUPPORTED, 0);
  /* push_lane without a focused-lane callback is lane 0 of a 64-lane wave. */
  fx->req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(fx, "DW_OP_LLVM_push_lane"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 0);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
  fx->req.target = &fx->target;
}

static void test_decode_errors_pass_through(void **state)
{
  eval_fixture *fx = *state;
  static const uint8_t truncated[] = {0x30, 0x0c, 0x01};
  assert_int_equal(fx_eval_bytes(fx, truncated, sizeof truncated), AMDDWARF_E_TRUNCATED);
  assert_int_equal(fx->err.offset, 1);
  static const uint8_t unknown[] = {0x30, 0x31, 0x07};
  assert_int_equal(fx_eval_bytes(fx, unknown, sizeof unknown), AMDDWARF_E_EXPR_UNKNOWN_OPCODE);
  assert_int_equal(fx->err.offset, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_stack_underflow, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_kind_mismatches, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_incomplete_composites, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_offsets_out_of_range, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_reads, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_address_spaces, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_sizes_and_types, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_implicit_pointer_misuse, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_entry_values, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_composites, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_composite_larger_than_32bit_space, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_results, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_writes, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_limits, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_missing_callbacks, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_decode_errors_pass_through, setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
