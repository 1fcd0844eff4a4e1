/* The evaluator, operation by operation: each test evaluates a short
 * expression against a small wave and checks the exact result the seed spec
 * ("Expressions" .. "Composite Location Descriptions") prescribes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static const char WAVE[] =
    "{\"architecture\": \"gfx90a\", \"lane\": 2, \"exec\": \"0xf0\", \"pc\": \"0x1234\","
    " \"registers\": {\"v0\": [10, 11, 12, 13], \"s33\": \"0x100\", \"s34\": \"0xfffffff0\","
    "   \"s5\": \"0x2000\", \"VGPR7\": [1, 2, 3]},"
    " \"entry_registers\": {\"s5\": \"0x3000\"},"
    " \"memory\": [{\"address_space\": \"global\", \"address\": \"0x2000\", \"bytes\": \"0102030405060708090a0b0c0d0e0f10\"},"
    "   {\"address_space\": \"global\", \"address\": \"0x3000\", \"bytes\": \"a1a2a3a4a5a6a7a8\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 2, \"address\": \"0x100\", \"bytes\": \"11223344\"},"
    "   {\"address_space\": \"local\", \"address\": \"0x20\", \"bytes\": \"c0c1c2c3\"}],"
    " \"frame_base\": \"DW_OP_regx s33\","
    " \"cfa\": {\"address_space\": \"private_wave\", \"address\": \"0x800\"},"
    " \"object_address\": {\"address\": \"0x2004\"},"
    " \"tls_base\": \"0x7000\","
    " \"debug_addr\": [\"0x2000\", \"0x2008\"],"
    " \"base_types\": [{\"die\": \"0x30\", \"encoding\": \"unsigned\", \"bit_size\": 32},"
    "   {\"die\": \"0x34\", \"encoding\": \"signed\", \"bit_size\": 16},"
    "   {\"die\": \"0x38\", \"encoding\": \"float\", \"bit_size\": 32},"
    "   {\"die\": \"0x3c\", \"encoding\": \"unsigned\", \"bit_size\": 32, \"count\": 4},"
    "   {\"die\": \"0x40\", \"encoding\": \"unsigned\", \"bit_size\": 64}],"
    " \"dies\": [{\"offset\": \"0x100\", \"procedure\": true, \"location\": \"DW_OP_lit2; DW_OP_mul\"},"
    "   {\"offset\": \"0x110\", \"location\": \"DW_OP_addr 0x3000\"},"
    "   {\"offset\": \"0x120\"},"
    "   {\"offset\": \"0x130\", \"procedure\": true, \"location\": \"DW_OP_call2 0x130\"}]}";

static int setup(void **state)
{
  return fx_setup(state, WAVE);
}

static uint64_t value_of(eval_fixture *fx, const char *text)
{
  fx->req.required = AMDDWARF_RESULT_VALUE;
  amddwarf_status st = fx_eval(fx, text);
  if (st != AMDDWARF_OK)
    print_error("%s: %s\n", text, fx->err.message);
  assert_int_equal(st, AMDDWARF_OK);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
  return fx_value_u64(fx);
}

static const amddwarf_location *location_of(eval_fixture *fx, const char *text)
{
  amddwarf_status st = fx_eval(fx, text);
  if (st != AMDDWARF_OK)
    print_error("%s: %s\n", text, fx->err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(fx->result.kind, AMDDWARF_ENTRY_LOCATION);
  return &fx->result.location;
}

static amddwarf_status error_of(eval_fixture *fx, const char *text)
{
  amddwarf_status st = fx_eval(fx, text);
  assert_true(st < 0);
  assert_int_equal(fx->err.status, st);
  return st;
}

static void test_literals(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_lit0"), 0);
  assert_int_equal(value_of(fx, "DW_OP_lit31"), 31);
  assert_int_equal(value_of(fx, "DW_OP_const1u 200"), 200);
  assert_int_equal(value_of(fx, "DW_OP_const1s -1"), UINT64_MAX);
  assert_int_equal(value_of(fx, "DW_OP_const2u 0xbeef"), 0xbeef);
  assert_int_equal(value_of(fx, "DW_OP_const2s -2"), UINT64_MAX - 1);
  assert_int_equal(value_of(fx, "DW_OP_const4u 0xdeadbeef"), 0xdeadbeef);
  assert_int_equal(value_of(fx, "DW_OP_const4s -3"), UINT64_MAX - 2);
  assert_int_equal(value_of(fx, "DW_OP_const8u 0x123456789abcdef0"), 0x123456789abcdef0ull);
  assert_int_equal(value_of(fx, "DW_OP_const8s -4"), UINT64_MAX - 3);
  assert_int_equal(value_of(fx, "DW_OP_constu 1000000"), 1000000);
  assert_int_equal(value_of(fx, "DW_OP_consts -1000"), (uint64_t)-1000);
  assert_int_equal(value_of(fx, "DW_OP_constx 1"), 0x2008);
}

static void test_stack_operations(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_dup; DW_OP_plus"), 2);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_drop"), 1);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_over"), 1);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_lit3; DW_OP_pick 2"), 1);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_swap; DW_OP_minus"), 1);
  /* rot: top becomes third, second becomes top. 1 2 3 -> 3 1 2 */
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_lit3; DW_OP_rot"), 2);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_lit3; DW_OP_rot; DW_OP_drop; DW_OP_drop"), 3);
  /* Stack operations move locations too. */
  const amddwarf_location *loc = location_of(fx, "DW_OP_regx s33; DW_OP_lit1; DW_OP_swap");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_REGISTER);
  assert_int_equal(loc->u.reg.regno, 65);
}

static void test_arithmetic(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_consts -5; DW_OP_abs"), 5);
  assert_int_equal(value_of(fx, "DW_OP_lit12; DW_OP_lit10; DW_OP_and"), 8);
  assert_int_equal(value_of(fx, "DW_OP_consts -7; DW_OP_lit2; DW_OP_div"), (uint64_t)-3);
  assert_int_equal(value_of(fx, "DW_OP_lit3; DW_OP_lit5; DW_OP_minus"), (uint64_t)-2);
  assert_int_equal(value_of(fx, "DW_OP_lit17; DW_OP_lit5; DW_OP_mod"), 2);
  assert_int_equal(value_of(fx, "DW_OP_lit6; DW_OP_lit7; DW_OP_mul"), 42);
  assert_int_equal(value_of(fx, "DW_OP_lit6; DW_OP_neg"), (uint64_t)-6);
  assert_int_equal(value_of(fx, "DW_OP_lit0; DW_OP_not"), UINT64_MAX);
  assert_int_equal(value_of(fx, "DW_OP_lit12; DW_OP_lit3; DW_OP_or"), 15);
  assert_int_equal(value_of(fx, "DW_OP_lit12; DW_OP_lit3; DW_OP_plus"), 15);
  assert_int_equal(value_of(fx, "DW_OP_lit12; DW_OP_plus_uconst 300"), 312);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit4; DW_OP_shl"), 16);
  assert_int_equal(value_of(fx, "DW_OP_consts -16; DW_OP_lit2; DW_OP_shr"), (UINT64_MAX - 15) >> 2);
  assert_int_equal(value_of(fx, "DW_OP_consts -16; DW_OP_lit2; DW_OP_shra"), (uint64_t)-4);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_const1u 64; DW_OP_shl"), 0);
  assert_int_equal(value_of(fx, "DW_OP_lit12; DW_OP_lit10; DW_OP_xor"), 6);
  /* Plus wraps at the generic size. */
  assert_int_equal(value_of(fx, "DW_OP_const8s -1; DW_OP_lit2; DW_OP_plus"), 1);
}

static void test_comparisons_are_signed_for_generic(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit1; DW_OP_eq"), 1);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_ne"), 1);
  assert_int_equal(value_of(fx, "DW_OP_consts -1; DW_OP_lit1; DW_OP_lt"), 1);
  assert_int_equal(value_of(fx, "DW_OP_consts -1; DW_OP_lit1; DW_OP_gt"), 0);
  assert_int_equal(value_of(fx, "DW_OP_lit2; DW_OP_lit2; DW_OP_le"), 1);
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_lit2; DW_OP_ge"), 0);
  /* An unsigned base type compares unsigned: 0xffffffff > 1. */
  assert_int_equal(value_of(fx, "DW_OP_const_type 0x30 0xffffffff; DW_OP_const_type 0x30 0x01000000; DW_OP_gt"), 1);
}

static void test_control_flow(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_lit1; DW_OP_bra yes; DW_OP_lit5; DW_OP_skip end; yes: DW_OP_lit9; end:"), 9);
  assert_int_equal(value_of(fx, "DW_OP_lit0; DW_OP_bra yes; DW_OP_lit5; DW_OP_skip end; yes: DW_OP_lit9; end:"), 5);
  /* A loop summing 5+4+3+2+1. */
  assert_int_equal(value_of(fx, "DW_OP_lit0; DW_OP_lit5; top: DW_OP_dup; DW_OP_rot; DW_OP_plus; DW_OP_swap;"
                                " DW_OP_lit1; DW_OP_minus; DW_OP_dup; DW_OP_bra top; DW_OP_drop"), 15);
  assert_int_equal(value_of(fx, "DW_OP_lit3; DW_OP_nop; DW_OP_LLVM_nop"), 3);
}

static void test_memory_locations(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "DW_OP_addr 0x2000");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->u.memory.aspace, 0);
  assert_int_equal(loc->byte_offset, 0x2000);
  loc = location_of(fx, "DW_OP_addrx 1");
  assert_int_equal(loc->byte_offset, 0x2008);
  /* breg: register contents plus D, a default-space memory location. */
  loc = location_of(fx, "DW_OP_bregx s5 8");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->byte_offset, 0x2008);
  loc = location_of(fx, "DW_OP_bregx s33 -16");
  assert_int_equal(loc->byte_offset, 0xf0);
  /* aspace_bregx: S = 32 bits in private_lane: 0xfffffff0 + 0x20 wraps. */
  loc = location_of(fx, "DW_OP_lit5; DW_OP_LLVM_aspace_bregx s34 32");
  assert_int_equal(loc->u.memory.aspace, 5);
  assert_int_equal(loc->byte_offset, 0x10);
  /* Its displacement is unsigned; 2^64 - 16 (written "s33-16") is 16 bytes
     below, as with the signed DW_OP_bregx above. */
  loc = location_of(fx, "DW_OP_lit0; DW_OP_LLVM_aspace_bregx s33-16");
  assert_int_equal(loc->u.memory.aspace, 0);
  assert_int_equal(loc->byte_offset, 0xf0);
  loc = location_of(fx, "DW_OP_lit5; DW_OP_LLVM_aspace_bregx s33 0xfffffffffffffff0");
  assert_int_equal(loc->u.memory.aspace, 5);
  assert_int_equal(loc->byte_offset, 0xf0);
  /* A generic value converts to a memory location when one is required. */
  loc = location_of(fx, "DW_OP_const2u 0x2004");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->byte_offset, 0x2004);
  /* form_aspace_address truncates A to the space's 32 bits. */
  loc = location_of(fx, "DW_OP_const8u 0x100000020; DW_OP_lit3; DW_OP_LLVM_form_aspace_address");
  assert_int_equal(loc->u.memory.aspace, 3);
  assert_int_equal(loc->byte_offset, 0x20);
  uint8_t buf[4];
  assert_int_equal(fx_read(fx, 0, 32, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\xc0\xc1\xc2\xc3", 4);
  /* TLS, CFA and the object address come from the target. */
  loc = location_of(fx, "DW_OP_lit8; DW_OP_form_tls_address");
  assert_int_equal(loc->byte_offset, 0x7008);
  loc = location_of(fx, "DW_OP_lit8; DW_OP_GNU_push_tls_address");
  assert_int_equal(loc->byte_offset, 0x7008);
  loc = location_of(fx, "DW_OP_call_frame_cfa");
  assert_int_equal(loc->u.memory.aspace, 6);
  assert_int_equal(loc->byte_offset, 0x800);
  loc = location_of(fx, "DW_OP_push_object_address");
  assert_int_equal(loc->byte_offset, 0x2004);
}

static void test_deref_family(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(value_of(fx, "DW_OP_addr 0x2000; DW_OP_deref"), 0x0807060504030201ull);
  assert_int_equal(value_of(fx, "DW_OP_addr 0x2000; DW_OP_deref_size 2"), 0x0201);
  assert_int_equal(value_of(fx, "DW_OP_addr 0x2001; DW_OP_deref_size 3"), 0x040302);
  fx->req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(fx, "DW_OP_addr 0x2002; DW_OP_deref_type 2 0x34"), AMDDWARF_OK);
  assert_int_equal(fx->result.value.type.encoding, AMDDWARF_ATE_SIGNED);
  assert_int_equal(fx->result.value.type.bit_size, 16);
  assert_int_equal(fx_value_u64(fx), 0x0403);
  /* A vector base type: 4 x 32 bits. */
  assert_int_equal(fx_eval(fx, "DW_OP_addr 0x2000; DW_OP_deref_type 16 0x3c"), AMDDWARF_OK);
  assert_int_equal(fx->result.value.type.count, 4);
  assert_int_equal(amddwarf_value_size(&fx->result.value), 16);
  assert_memory_equal(amddwarf_value_bytes(&fx->result.value),
                      "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
  /* xderef: A on top, AS below (DW_ASPACE numbering). */
  assert_int_equal(value_of(fx, "DW_OP_lit3; DW_OP_const1u 0x20; DW_OP_xderef_size 2"), 0xc1c0);
  assert_int_equal(value_of(fx, "DW_OP_lit0; DW_OP_const2u 0x2000; DW_OP_xderef"), 0x0807060504030201ull);
  assert_int_equal(value_of(fx, "DW_OP_lit0; DW_OP_const2u 0x2000; DW_OP_xderef_type 4 0x30"), 0x04030201);
  /* The legacy numbering: 2 is local. */
  fx->req.xderef = AMDDWARF_XDEREF_LEGACY;
  assert_int_equal(value_of(fx, "DW_OP_lit2; DW_OP_const1u 0x20; DW_OP_xderef_size 2"), 0xc1c0);
  fx->req.xderef = AMDDWARF_XDEREF_DWARF;
  /* deref of a register location reads the register. */
  assert_int_equal(value_of(fx, "DW_OP_regx s33; DW_OP_deref_size 4"), 0x100);
}

static void test_registers_and_lanes(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "DW_OP_reg5");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_REGISTER);
  assert_int_equal(loc->u.reg.regno, 5);
  loc = location_of(fx, "DW_OP_regx v0; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset");
  assert_int_equal(loc->u.reg.regno, 2560);
  assert_int_equal(loc->byte_offset, 8); /* lane 2 */
  uint8_t buf[4];
  assert_int_equal(fx_read(fx, 0, 32, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x0c\x00\x00\x00", 4);
  fx->req.lane = 1;
  assert_int_equal(value_of(fx, "DW_OP_LLVM_push_lane"), 1);
  fx->req.lane = AMDDWARF_NO_LANE;
  assert_int_equal(value_of(fx, "DW_OP_LLVM_push_lane"), 2); /* the snapshot's focused lane */
  fx->req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(fx, "DW_OP_regval_type exec 0x40"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 0xf0);
  assert_int_equal(fx->result.value.type.die, 0x40);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
}

static void test_typed_operations(void **state)
{
  eval_fixture *fx = *state;
  fx->req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(fx, "DW_OP_const_type 0x34 0xfeff; DW_OP_convert 0x30"), AMDDWARF_OK);
  /* signed 16-bit -2 converts to unsigned 32-bit 0xfffffffe */
  assert_int_equal(fx_value_u64(fx), 0xfffffffe);
  assert_int_equal(fx_eval(fx, "DW_OP_const_type 0x30 0x0000803f; DW_OP_reinterpret 0x38"), AMDDWARF_OK);
  assert_int_equal(fx->result.value.type.encoding, AMDDWARF_ATE_FLOAT);
  assert_int_equal(fx_value_u64(fx), 0x3f800000); /* 1.0f */
  /* float arithmetic: 1.0 + 1.0 = 2.0 (0x40000000) */
  assert_int_equal(fx_eval(fx, "DW_OP_const_type 0x38 0x0000803f; DW_OP_dup; DW_OP_plus"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 0x40000000);
  /* int -> float: 3 -> 3.0f (0x40400000); float -> int back */
  assert_int_equal(fx_eval(fx, "DW_OP_lit3; DW_OP_convert 0x38"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 0x40400000);
  assert_int_equal(fx_eval(fx, "DW_OP_lit3; DW_OP_convert 0x38; DW_OP_convert 0x30"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 3);
  /* convert 0 is the generic type */
  assert_int_equal(fx_eval(fx, "DW_OP_const_type 0x34 0xffff; DW_OP_convert 0"), AMDDWARF_OK);
  assert_int_equal(fx->result.value.type.die, 0);
  assert_int_equal(fx_value_u64(fx), UINT64_MAX);
  /* typed arithmetic wraps at the type's size */
  assert_int_equal(fx_eval(fx, "DW_OP_const_type 0x30 0xffffffff; DW_OP_const_type 0x30 0x02000000; DW_OP_plus"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 1);
  /* GNU spellings behave the same */
  assert_int_equal(fx_eval(fx, "DW_OP_GNU_const_type 0x30 0x05000000; DW_OP_GNU_convert 0x40"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 5);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
}

static void test_frame_base_register_rule(void **state)
{
  eval_fixture *fx = *state;
  /* DW_AT_frame_base is DW_OP_regx s33: the register's contents (0x100) are
     the default-space address of the frame. */
  const amddwarf_location *loc = location_of(fx, "DW_OP_fbreg -8");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->u.memory.aspace, 0);
  assert_int_equal(loc->byte_offset, 0xf8);
}

static void test_implicit_locations(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "DW_OP_implicit_value 0x2a2b2c");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_IMPLICIT);
  assert_int_equal(loc->u.implicit.bit_size, 24);
  uint8_t buf[8];
  assert_int_equal(fx_read(fx, 8, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x2b\x2c", 2);
  loc = location_of(fx, "DW_OP_const_type 0x34 0x3412; DW_OP_stack_value");
  assert_int_equal(loc->u.implicit.bit_size, 16);
  /* stack_value no longer ends the expression: offsets apply to it */
  loc = location_of(fx, "DW_OP_const4u 0x44332211; DW_OP_stack_value; DW_OP_lit2; DW_OP_LLVM_offset");
  assert_int_equal(loc->byte_offset, 2);
  assert_int_equal(fx_read(fx, 0, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x33\x44", 2);
  loc = location_of(fx, "DW_OP_GNU_implicit_pointer 0x110 4");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_IMPLICIT_POINTER);
  assert_int_equal(loc->u.implicit_pointer.die, 0x110);
  assert_int_equal(loc->u.implicit_pointer.displacement, 4);
  assert_int_equal(loc->u.implicit_pointer.bit_size, 64);
  /* aspace_implicit_pointer has no DW_OP_LLVM_user sub-opcode: vendor encoding. */
  fx->req.format.dialect = AMDDWARF_DIALECT_VENDOR;
  loc = location_of(fx, "DW_OP_lit3; DW_OP_LLVM_aspace_implicit_pointer 0x110 0");
  assert_int_equal(loc->u.implicit_pointer.aspace, 3);
  assert_int_equal(loc->u.implicit_pointer.bit_size, 32);
  /* deref of the whole implicit pointer gives an implicit pointer value; with
     its own space, form_aspace_address turns it into the target's location. */
  loc = location_of(fx, "DW_OP_lit3; DW_OP_LLVM_aspace_implicit_pointer 0x110 2; DW_OP_deref_size 4; DW_OP_lit3; DW_OP_LLVM_form_aspace_address");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->byte_offset, 0x3002);
  fx->req.format.dialect = AMDDWARF_DIALECT_AUTO;
  /* stack_value of an implicit pointer value gives back the implicit pointer */
  loc = location_of(fx, "DW_OP_implicit_pointer 0x110 4; DW_OP_deref; DW_OP_stack_value");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_IMPLICIT_POINTER);
}

static void test_undefined_and_offsets(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_UNDEFINED);
  loc = location_of(fx, "DW_OP_LLVM_undefined; DW_OP_lit8; DW_OP_LLVM_offset; DW_OP_LLVM_offset_uconst 4");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_UNDEFINED);
  loc = location_of(fx, "DW_OP_regx v0; DW_OP_lit3; DW_OP_LLVM_bit_offset; DW_OP_consts -1; DW_OP_LLVM_bit_offset");
  assert_int_equal(loc->byte_offset * 8 + loc->bit, 2);
  loc = location_of(fx, "DW_OP_addr 0x2000; DW_OP_consts -16; DW_OP_LLVM_offset");
  assert_int_equal(loc->byte_offset, 0x1ff0);
}

static void test_calls(void **state)
{
  eval_fixture *fx = *state;
  /* A procedure shares the stack: it doubles the top value. */
  assert_int_equal(value_of(fx, "DW_OP_lit7; DW_OP_call4 0x100"), 14);
  /* Another DIE evaluates on its own stack and pushes its location. */
  const amddwarf_location *loc = location_of(fx, "DW_OP_lit1; DW_OP_call_ref 0x110");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(loc->byte_offset, 0x3000);
  /* A DIE without DW_AT_location: an empty expression, so undefined. */
  loc = location_of(fx, "DW_OP_call2 0x120");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_UNDEFINED);
  /* Recursion ends at the call depth limit. */
  assert_int_equal(error_of(fx, "DW_OP_call2 0x130"), AMDDWARF_E_LIMIT);
}

static void test_entry_values(void **state)
{
  eval_fixture *fx = *state;
  /* A register location: that register's value on entry (s5 was 0x3000). */
  assert_int_equal(value_of(fx, "DW_OP_entry_value(DW_OP_regx s5)"), 0x3000);
  /* An expression: evaluated with entry register values, then a value. */
  assert_int_equal(value_of(fx, "DW_OP_entry_value(DW_OP_bregx s5 0; DW_OP_deref_size 1)"), 0xa1);
  assert_int_equal(value_of(fx, "DW_OP_GNU_entry_value(DW_OP_regx s5)"), 0x3000);
  /* call_frame_entry_reg: the entry value as a location to read. */
  const amddwarf_location *loc = location_of(fx, "DW_OP_LLVM_call_frame_entry_reg s5");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_IMPLICIT);
  uint8_t buf[4];
  assert_int_equal(fx_read(fx, 0, 32, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x30\x00\x00", 4);
}

static void test_pieces(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_addr 0x2000; DW_OP_piece 2");
  assert_int_equal(loc->kind, AMDDWARF_LOCATION_COMPOSITE);
  assert_int_equal(loc->u.composite.count, 2);
  assert_int_equal(loc->u.composite.bit_size, 48);
  uint8_t buf[6];
  assert_int_equal(fx_read(fx, 0, 48, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x01\x00\x00\x01\x02", 6);
  /* bit_piece with a displacement and a piece of nothing (undefined). */
  loc = location_of(fx, "DW_OP_regx s33; DW_OP_bit_piece 4 8; DW_OP_bit_piece 4 0");
  assert_int_equal(loc->u.composite.count, 2);
  assert_int_equal(loc->u.composite.parts[0].location.bit, 0);
  assert_int_equal(loc->u.composite.parts[0].location.byte_offset, 1);
  assert_int_equal(loc->u.composite.parts[1].location.kind, AMDDWARF_LOCATION_UNDEFINED);
  assert_int_equal(fx_read(fx, 0, 4, buf), AMDDWARF_OK);
  assert_int_equal(buf[0], 1);
  /* piece first on an empty stack: an undefined part. */
  loc = location_of(fx, "DW_OP_piece 2; DW_OP_regx s33; DW_OP_piece 2");
  assert_int_equal(loc->u.composite.count, 2);
  assert_int_equal(loc->u.composite.parts[0].location.kind, AMDDWARF_LOCATION_UNDEFINED);
  /* piece_end completes it, so a second series starts a new composite which
     the final piece flattens into itself. */
  loc = location_of(fx, "DW_OP_regx s33; DW_OP_piece 4; DW_OP_LLVM_piece_end; DW_OP_piece 4");
  assert_int_equal(loc->u.composite.count, 1);
  assert_int_equal(loc->u.composite.bit_size, 32);
  /* extend: C copies of S bits */
  loc = location_of(fx, "DW_OP_regx s33; DW_OP_LLVM_extend 8 3");
  assert_int_equal(loc->u.composite.count, 3);
  assert_int_equal(loc->u.composite.bit_size, 24);
  assert_int_equal(fx_read(fx, 8, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x00", 2);
  loc = location_of(fx, "DW_OP_LLVM_undefined; DW_OP_LLVM_extend 64 1000000");
  assert_int_equal(loc->u.composite.count, 1);
  assert_int_equal(loc->u.composite.bit_size, 64000000);
  /* select_bit_piece: mask 0b10 picks L1 for part 1 only */
  loc = location_of(fx, "DW_OP_addr 0x2000; DW_OP_addr 0x3000; DW_OP_lit2; DW_OP_LLVM_select_bit_piece 16 2");
  assert_int_equal(fx_read(fx, 0, 32, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x01\x02\xa3\xa4", 4);
}

static void test_gnu_spellings(void **state)
{
  eval_fixture *fx = *state;
  const amddwarf_location *loc = location_of(fx, "DW_OP_GNU_addr_index 1");
  assert_int_equal(loc->byte_offset, 0x2008);
  assert_int_equal(value_of(fx, "DW_OP_GNU_const_index 0"), 0x2000);
  fx->req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(fx, "DW_OP_addr 0x2000; DW_OP_GNU_deref_type 4 0x30"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(fx), 0x04030201);
  assert_int_equal(fx_eval(fx, "DW_OP_GNU_regval_type s33 0x30; DW_OP_GNU_reinterpret 0x38"), AMDDWARF_OK);
  assert_int_equal(fx->result.value.type.encoding, AMDDWARF_ATE_FLOAT);
  assert_int_equal(fx_value_u64(fx), 0x100);
  fx->req.required = AMDDWARF_RESULT_LOCATION;
  /* An absolute DW_EH_PE_udata4 pointer (encoding 0x03). */
  static const uint8_t encoded[] = {0xf1, 0x03, 0x00, 0x20, 0x00, 0x00};
  assert_int_equal(fx_eval_bytes(fx, encoded, sizeof encoded), AMDDWARF_OK);
  assert_int_equal(fx->result.location.kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(fx->result.location.byte_offset, 0x2000);
  /* A pc-relative one (0x10) needs a base the evaluator does not have. */
  static const uint8_t relative[] = {0xf1, 0x13, 0x00, 0x20, 0x00, 0x00};
  assert_int_equal(fx_eval_bytes(fx, relative, sizeof relative), AMDDWARF_E_UNSUPPORTED);
  assert_int_equal(fx_eval(fx, "DW_OP_GNU_uninit"), AMDDWARF_OK);
  assert_int_equal(fx->result.location.kind, AMDDWARF_LOCATION_UNDEFINED);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_literals, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_stack_operations, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_arithmetic, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_comparisons_are_signed_for_generic, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_control_flow, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_memory_locations, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_deref_family, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_registers_and_lanes, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_typed_operations, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_frame_base_register_rule, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_implicit_locations, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_undefined_and_offsets, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_calls, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_entry_values, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_pieces, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_gnu_spellings, setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
