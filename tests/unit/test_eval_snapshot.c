/* The JSON wave snapshot (specs/snapshot.md): what it accepts, what it
 * rejects with which status, and how its target answers; plus evaluations
 * that start from initial stack entries and run in wave32 and 32-bit
 * processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static amddwarf_status load(const char *json, amddwarf_error *err)
{
  amddwarf_snapshot *s = NULL;
  amddwarf_status st = amddwarf_snapshot_load(json, strlen(json), NULL, &s, err);
  if (st == AMDDWARF_OK)
    amddwarf_snapshot_free(s);
  else
    assert_null(s);
  return st;
}

static void test_rejects(void **state)
{
  (void)state;
  amddwarf_error err;
  assert_int_equal(load("{\"lane\": 1,", &err), AMDDWARF_E_BAD_JSON);
  assert_int_equal(err.offset, 11);
  assert_int_equal(load("[]", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"wave_size\": 48}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_non_null(strstr(err.message, "wave_size"));
  assert_int_equal(load("{\"wave_size\": 32, \"lane\": 32}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"architecture\": \"gfx9000\"}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"registers\": {\"q7\": 1}}", &err), AMDDWARF_E_SNAPSHOT_UNKNOWN_REGISTER);
  assert_int_equal(load("{\"registers\": {\"s1\": \"0x100000000\"}}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"registers\": {\"s1\": 1, \"SGPR1\": 2}}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"registers\": {\"s1\": 1, \"s1\": 2}}", &err), AMDDWARF_E_BAD_JSON);
  assert_int_equal(load("{\"registers\": {\"v0\": {\"bytes\": \"00\"}}}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"memory\": [{\"address\": 0, \"bytes\": \"0g\"}]}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"memory\": [{\"address\": 0, \"bytes\": \"012\"}]}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"memory\": [{\"address_space\": \"private_lane\", \"address\": 0, \"bytes\": \"00\"}]}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"memory\": [{\"address_space\": \"private_wave\", \"address\": 0, \"bytes\": \"00\"}]}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"memory\": [{\"address_space\": 4, \"address\": 0, \"bytes\": \"00\"}]}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"frame_base\": \"DW_OP_frobnicate\"}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"base_types\": [{\"die\": 0, \"encoding\": \"signed\", \"bit_size\": 8}]}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{\"base_types\": [{\"die\": 1, \"encoding\": \"complex\", \"bit_size\": 8}]}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_int_equal(load("{}", &err), AMDDWARF_OK);
}

static void test_target_answers(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"architecture\": \"gfx1100\", \"lane\": 3, \"exec\": \"0xff\", \"pc\": \"0x4000\","
               " \"registers\": {\"v2\": [5, 6, 7, 8], \"1\": \"0xf\"},"
               " \"memory\": [{\"address_space\": \"private_lane3\", \"address\": 16, \"bytes\": \"a1a2a3a4\"}],"
               " \"cfa\": {\"address_space\": \"private_wave\", \"address\": \"0x100\"}}");
  amddwarf_target *t = &fx.snap_target;
  uint32_t v32;
  uint64_t v64;
  uint8_t buf[8];
  assert_int_equal(amddwarf_snapshot_wave_size(fx.snap), 32); /* gfx11 default */
  assert_string_equal(amddwarf_snapshot_architecture(fx.snap), "gfx1100");
  assert_int_equal(t->focused_lane(t->user, &v32), AMDDWARF_OK);
  assert_int_equal(v32, 3);
  assert_int_equal(t->exec_mask(t->user, &v64), AMDDWARF_OK);
  assert_int_equal(v64, 0xff);
  /* exec sets EXEC_MASK_32 in wave32; the explicit register "1" wins. */
  assert_int_equal(t->read_register(t->user, 1, 0, 4, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x0f\x00\x00\x00", 4);
  assert_int_equal(t->read_register(t->user, 16, 0, 8, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x40\x00\x00\x00\x00\x00\x00", 8);
  /* v2 in wave32 is DWARF 1538; lane 2 holds 7. */
  assert_int_equal(t->read_register(t->user, 1538, 8, 4, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x07\x00\x00\x00", 4);
  assert_int_equal(t->read_register(t->user, 1538, 126, 4, buf), AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t->read_register(t->user, 1539, 0, 4, buf), AMDDWARF_E_EVAL_UNAVAILABLE);
  /* private_lane3 memory, also through the wave view: lane 3, lane address
     16 is wave address (16 / 4) * 128 + 3 * 4 = 524. */
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 17, 2, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\xa2\xa3", 2);
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE, 524, 4, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\xa1\xa2\xa3\xa4", 4);
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 2, 16, 1, buf),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  const uint8_t *expr;
  size_t size;
  assert_int_equal(t->frame_base(t->user, &expr, &size), AMDDWARF_E_UNSUPPORTED);
  assert_int_equal(t->read_entry_register(t->user, 1, 0, 4, buf), AMDDWARF_E_UNSUPPORTED);
  assert_null(t->apertures);
  /* A wave32 lane select reads lane 3 of v2. */
  fx.req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v2; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul;"
                                " DW_OP_LLVM_offset; DW_OP_deref_size 4"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(&fx), 8);
  /* Lane 40 is not in a wave32. */
  fx.req.lane = 40;
  assert_int_equal(fx_eval(&fx, "DW_OP_LLVM_push_lane"), AMDDWARF_E_AMDGPU_BAD_LANE);
  fx_free(&fx);
}

static void test_initial_entries(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"memory\": [{\"address\": \"0x100\", \"bytes\": \"0011223344556677\"}]}");
  /* DW_AT_data_member_location: the object's location is pushed first. */
  amddwarf_entry object;
  memset(&object, 0, sizeof object);
  object.kind = AMDDWARF_ENTRY_LOCATION;
  object.location.kind = AMDDWARF_LOCATION_MEMORY;
  object.location.byte_offset = 0x100;
  fx.req.initial = &object;
  fx.req.initial_count = 1;
  assert_int_equal(fx_eval(&fx, "DW_OP_LLVM_offset_uconst 4"), AMDDWARF_OK);
  assert_int_equal(fx.result.location.byte_offset, 0x104);
  uint8_t buf[2];
  assert_int_equal(fx_read(&fx, 0, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x44\x55", 2);
  /* The classic form: the address as a generic value, plus_uconst. */
  assert_int_equal(fx_eval(&fx, "DW_OP_plus_uconst 2"), AMDDWARF_OK);
  assert_int_equal(fx.result.location.kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(fx.result.location.byte_offset, 0x102);
  fx.req.initial = NULL;
  fx.req.initial_count = 0;
  fx_free(&fx);
}

static void test_32bit_process(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"address_size\": 4, \"memory\": [{\"address\": \"0xfffffffc\", \"bytes\": \"01020304\"}]}");
  fx.req.required = AMDDWARF_RESULT_VALUE;
  /* The generic type is 32 bits: arithmetic wraps there. */
  assert_int_equal(fx_eval(&fx, "DW_OP_const4u 0xffffffff; DW_OP_lit2; DW_OP_plus"), AMDDWARF_OK);
  assert_int_equal(fx.result.value.type.bit_size, 32);
  assert_int_equal(fx_value_u64(&fx), 1);
  assert_int_equal(fx_eval(&fx, "DW_OP_addr 0xfffffffc; DW_OP_deref"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(&fx), 0x04030201);
  fx.req.required = AMDDWARF_RESULT_LOCATION;
  assert_int_equal(fx_eval(&fx, "DW_OP_addr 0xfffffffc; DW_OP_LLVM_offset_uconst 4"),
                   AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE);
  fx_free(&fx);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rejects),
      cmocka_unit_test(test_target_answers),
      cmocka_unit_test(test_initial_entries),
      cmocka_unit_test(test_32bit_process),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
