/* The JSON wave snapshot (specs/snapshot.md): what it accepts, what it
 * rejects with which status, and how its target answers; plus evaluations
 * that start from initial stack entries and run in wave32 and 32-bit
 * processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A member outside specs/snapshot.md's table is refused with the nearest
   one: "regsiters" is 2 edits (a swap) from "registers", "exce" 2 from
   "exec", "Pc" 1 from "pc"; the spelled-out distances are hand counts. */
static void test_unknown_members(void **state)
{
  (void)state;
  amddwarf_error err;
  assert_int_equal(load("{\"pc\": 4, \"regsiters\": {\"s1\": 1}}", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message, "'regsiters' is not a snapshot member; the nearest is 'registers'");
  assert_int_equal(load("{\"exce\": 3}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message, "'exce' is not a snapshot member; the nearest is 'exec'");
  assert_int_equal(load("{\"Pc\": 3}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message, "'Pc' is not a snapshot member; the nearest is 'pc'");
  assert_int_equal(load("{\"entry_register\": {}}", &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message,
                      "'entry_register' is not a snapshot member; the nearest is 'entry_registers'");
  assert_int_equal(load("{\"dies\": [], \"base_types\": [], \"unit_offset\": 0, \"debug_addr\": [],"
                        " \"tls_base\": 0, \"object_address\": {\"address\": 0}, \"frame_base\": \"\","
                        " \"apertures\": {\"shared\": 0, \"private\": 0}, \"memory\": [],"
                        " \"entry_registers\": {}, \"lane\": 0, \"dialect\": \"auto\","
                        " \"address_size\": 8, \"wave_size\": 64, \"architecture\": \"gfx900\"}",
                        &err),
                   AMDDWARF_OK);
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
  assert_int_equal(amddwarf_snapshot_pc(fx.snap, &v64), AMDDWARF_OK);
  assert_true(v64 == 0x4000);
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

/* Memory listed in adjacent regions is one memory: a read or a write that
   spans them succeeds, one that reaches a gap does not (and writes nothing). */
static void test_access_spans_adjacent_regions(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"architecture\": \"gfx90a\", \"memory\": ["
               " {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x20\", \"bytes\": \"a0a1a2a3\"},"
               " {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x24\", \"bytes\": \"b0b1\"},"
               " {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x27\", \"bytes\": \"c0\"}]}");
  amddwarf_target *t = &fx.snap_target;
  uint8_t buf[8];
  /* No "pc" and no PC register: the snapshot does not say where the wave is. */
  assert_int_equal(amddwarf_snapshot_pc(fx.snap, NULL), AMDDWARF_NOT_FOUND);
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 0x22, 4, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\xa2\xa3\xb0\xb1", 4);
  assert_int_equal(t->write_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 0x23, 2,
                                   "\x11\x22"),
                   AMDDWARF_OK);
  /* 0x26 is in no region. */
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 0x24, 4, buf),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t->write_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 0x25, 3,
                                   "\x33\x44\x55"),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 3, 0x20, 6, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\xa0\xa1\xa2\x11\x22\xb1", 6);
  fx_free(&fx);
}

/* private_wave is the lanes' private_lane bytes through the swizzle: a
   dword of it is one lane's, the next dword the next lane's (the last
   lane's next dword is lane 0's in the next row). Every read and write of
   1 to 12 bytes at each offset of the rows, byte by byte against the
   spec's formula (lane = A / 4 mod wave, lane address = A / (4 wave) * 4 +
   A mod 4), in wave32 (two rows) and wave64 (one row). Every byte of every
   lane differs, so a byte taken from the wrong lane or row cannot pass. */
static void test_private_wave_view(void **state)
{
  (void)state;
  static const uint32_t wave_sizes[] = {32, 64};
  for (size_t k = 0; k < 2; k++) {
    uint32_t wave = wave_sizes[k];
    char json[16384];
    size_t length = (size_t)snprintf(json, sizeof json,
                                     "{\"architecture\": \"gfx90a\", \"wave_size\": %u, "
                                     "\"memory\": [",
                                     wave);
    /* Lane L's bytes from 0x40: L * BYTES + byte, all 256 values once. */
    uint32_t bytes = 256 / wave, rows = bytes / 4;
    for (uint32_t lane = 0; lane < wave; lane++) {
      length += (size_t)snprintf(json + length, sizeof json - length,
                                 "%s{\"address_space\": \"private_lane\", \"lane\": %u, "
                                 "\"address\": \"0x40\", \"bytes\": \"",
                                 lane ? "," : "", lane);
      for (unsigned b = 0; b < bytes; b++)
        length += (size_t)snprintf(json + length, sizeof json - length, "%02x", lane * bytes + b);
      length += (size_t)snprintf(json + length, sizeof json - length, "\"}");
    }
    snprintf(json + length, sizeof json - length, "]}");
    eval_fixture fx;
    fx_init(&fx, json);
    amddwarf_target *t = &fx.snap_target;
    uint64_t first = 0x40 / 4 * (uint64_t)wave * 4; /* lane 0's dword 0x40 */
    unsigned reads = 0;
    uint64_t end = first + rows * wave * 4;
    for (uint64_t at = first; at < end; at++)
      for (uint64_t size = 1; size <= 12 && at + size <= end; size++) {
        uint8_t got[12], want[12], back[12];
        for (uint64_t i = 0; i < size; i++) {
          uint64_t lane = (at + i) / 4 % wave;
          uint64_t lane_address = (at + i) / (4 * wave) * 4 + (at + i) % 4;
          want[i] = (uint8_t)(lane * bytes + (lane_address - 0x40));
        }
        assert_int_equal(
            t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, 0, at, size, got),
            AMDDWARF_OK);
        assert_memory_equal(got, want, size);
        /* Written back inverted, read inverted, restored. */
        for (uint64_t i = 0; i < size; i++)
          back[i] = (uint8_t)~want[i];
        assert_int_equal(
            t->write_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, 0, at, size, back),
            AMDDWARF_OK);
        assert_int_equal(
            t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, 0, at, size, got),
            AMDDWARF_OK);
        assert_memory_equal(got, back, size);
        assert_int_equal(
            t->write_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, 0, at, size, want),
            AMDDWARF_OK);
        reads++;
      }
    assert_true(reads > rows * wave * 4 * 11);
    /* Before the rows: the last lane's byte 0x3f, in no region. */
    uint8_t byte;
    assert_int_equal(
        t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, 0, first - 1, 1, &byte),
        AMDDWARF_E_EVAL_UNAVAILABLE);
    fx_free(&fx);
  }
}

/* The request's wave size is the caller's word: it bounds the lanes
   without asking the target, on the fast path and the general one, and
   only 32 and 64 are wave sizes. */
static void test_request_wave_size(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"architecture\": \"gfx90a\", \"registers\": {\"v1\": [0, 1, 2, 3]}}");
  uint8_t bytes[32], value[4];
  size_t size = fx_assemble(&fx, "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; "
                                 "DW_OP_LLVM_offset", bytes, sizeof bytes);
  fx.req.lane = 40; /* in the wave64 the snapshot describes */
  fx.req.wave_size = 32;
  assert_int_equal(amddwarf_eval_read(fx.ev, &fx.req, bytes, size, 0, 32, value, &fx.err),
                   AMDDWARF_E_AMDGPU_BAD_LANE);
  assert_non_null(strstr(fx.err.message, "not in a wave of 32 lanes"));
  assert_int_equal(fx_eval(&fx, "DW_OP_LLVM_push_lane"), AMDDWARF_E_AMDGPU_BAD_LANE);
  fx.req.lane = 3;
  assert_int_equal(amddwarf_eval_read(fx.ev, &fx.req, bytes, size, 0, 32, value, NULL),
                   AMDDWARF_OK);
  assert_int_equal(value[0], 3);
  fx.req.wave_size = 48;
  assert_int_equal(fx_eval(&fx, "DW_OP_lit0"), AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(fx.err.message, "wave size 48"));
  /* A request that ends before the field asks the target. */
  fx.req.struct_size = offsetof(amddwarf_eval_request, wave_size);
  fx.req.lane = 40;
  assert_int_equal(fx_eval(&fx, "DW_OP_LLVM_push_lane"), AMDDWARF_OK);
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

static const char save_source[] =
    "{\"architecture\": \"gfx90a\", \"dialect\": \"vendor\", \"lane\": 5, \"exec\": \"0x55\","
    " \"pc\": \"0x4000\","
    " \"registers\": {\"v1\": [256, 257, 258, 259, 260, 261], \"s33\": \"0x40\","
    "                 \"SGPR34\": 7, \"1000000\": {\"bytes\": \"0102\"},"
    "                 \"1000001\": 5},"
    " \"entry_registers\": {\"s30\": \"0xffffffff\"},"
    " \"memory\": [{\"address\": \"0x1000\", \"bytes\": \"00112233\"},"
    "            {\"address_space\": \"private_lane\", \"lane\": 5, \"address\": \"0x40\", \"bytes\": \"efbeadde\"},"
    "            {\"address_space\": \"private_lane2\", \"address\": 0, \"bytes\": \"\"},"
    "            {\"address_space\": \"local\", \"address\": 8, \"bytes\": \"aa\"}],"
    " \"apertures\": {\"shared\": \"0x1000000000000\", \"private\": \"0x2000000000000\"},"
    " \"frame_base\": \"DW_OP_regx s33; DW_OP_deref_size 4; DW_OP_lit5; DW_OP_LLVM_form_aspace_address\","
    " \"cfa\": {\"address_space\": \"private_wave\", \"address\": \"0x100\"},"
    " \"object_address\": {\"address\": \"0xffffffffffffff00\"},"
    " \"tls_base\": 64, \"debug_addr\": [1, \"0xfedcba9876543210\"], \"unit_offset\": \"0x20\","
    " \"base_types\": [{\"die\": \"0x30\", \"encoding\": \"unsigned\", \"bit_size\": 64},"
    "                  {\"die\": \"0x38\", \"encoding\": \"float\", \"bit_size\": 32, \"count\": 4}],"
    " \"dies\": [{\"offset\": \"0x110\", \"procedure\": true, \"location\": \"DW_OP_LLVM_undefined\"},"
    "            {\"offset\": \"0x120\", \"const_value\": \"0506\"}, {\"offset\": \"0x130\"}]}";

static char *save(const amddwarf_snapshot *s, size_t *size)
{
  char *text = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_snapshot_save(s, &text, size, &err), AMDDWARF_OK);
  assert_non_null(text);
  assert_int_equal(strlen(text), *size);
  return text;
}

/* Saving: writes through the target are in the document, the document loads
   back to the same answers, and saving that load reproduces it byte for byte. */
static void test_save_round_trip(void **state)
{
  (void)state;
  amddwarf_snapshot *a = NULL, *b = NULL, *c = NULL;
  amddwarf_error err;
  amddwarf_target t;
  uint8_t buf[8];
  assert_int_equal(amddwarf_snapshot_load(save_source, strlen(save_source), NULL, &a, &err),
                   AMDDWARF_OK);
  amddwarf_snapshot_target(a, &t);
  /* v1 (DWARF 2561 in wave64) lane 40, beyond the lanes the file gave, and
     global memory 0x1002. */
  assert_int_equal(t.write_register(t.user, 2561, 160, 4, "\x78\x56\x34\x12"), AMDDWARF_OK);
  assert_int_equal(t.write_memory(t.user, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1002, 2,
                                  "\xc0\xde"), AMDDWARF_OK);
  assert_int_equal(t.write_memory(t.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0x41, 1, "\x01"),
                   AMDDWARF_OK);
  size_t size1, size2;
  char *text1 = save(a, &size1);
  assert_int_equal(amddwarf_snapshot_load(text1, size1, NULL, &b, &err), AMDDWARF_OK);
  amddwarf_snapshot_target(b, &t);
  assert_int_equal(t.read_register(t.user, 2561, 160, 4, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x78\x56\x34\x12", 4);
  assert_int_equal(t.read_register(t.user, 2561, 20, 4, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x05\x01\x00\x00", 4);
  assert_int_equal(t.read_memory(t.user, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1000, 4, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x11\xc0\xde", 4);
  assert_int_equal(t.read_memory(t.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0x40, 4, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\xef\x01\xad\xde", 4);
  assert_int_equal(t.read_memory(t.user, AMDDWARF_ASPACE_AMDGPU_LOCAL, AMDDWARF_NO_LANE, 8, 1, buf),
                   AMDDWARF_OK);
  assert_memory_equal(buf, "\xaa", 1);
  /* The members that are not registers or memory. */
  assert_string_equal(amddwarf_snapshot_architecture(b), "gfx90a");
  assert_int_equal(amddwarf_snapshot_wave_size(b), 64);
  assert_int_equal(amddwarf_snapshot_lane(b), 5);
  uint64_t v64;
  uint32_t aspace;
  assert_int_equal(t.exec_mask(t.user, &v64), AMDDWARF_OK);
  assert_int_equal(v64, 0x55);
  assert_int_equal(t.read_register(t.user, 16, 0, 8, buf), AMDDWARF_OK); /* pc */
  assert_memory_equal(buf, "\x00\x40\x00\x00\x00\x00\x00\x00", 8);
  assert_int_equal(t.read_register(t.user, 1000000, 0, 2, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x01\x02", 2);
  assert_int_equal(t.read_register(t.user, 1000001, 0, 8, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x05\x00\x00\x00\x00\x00\x00\x00", 8);
  assert_int_equal(t.read_entry_register(t.user, 62, 0, 4, buf), AMDDWARF_OK); /* s30 */
  assert_memory_equal(buf, "\xff\xff\xff\xff", 4);
  assert_non_null(t.apertures);
  uint64_t shared, private_base;
  assert_int_equal(t.apertures(t.user, &shared, &private_base), AMDDWARF_OK);
  assert_int_equal(shared, 0x1000000000000ull);
  assert_int_equal(private_base, 0x2000000000000ull);
  const uint8_t *fb;
  size_t fb_size;
  assert_int_equal(t.frame_base(t.user, &fb, &fb_size), AMDDWARF_OK);
  /* vendor dialect: regx 65, deref_size 4, lit5, form_aspace_address 0xe1 */
  assert_int_equal(fb_size, 6);
  assert_memory_equal(fb, "\x90\x41\x94\x04\x35\xe1", 6);
  assert_int_equal(t.cfa(t.user, &aspace, &v64), AMDDWARF_OK);
  assert_int_equal(aspace, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE);
  assert_int_equal(v64, 0x100);
  assert_int_equal(t.object_address(t.user, &aspace, &v64), AMDDWARF_OK);
  assert_int_equal(aspace, AMDDWARF_ASPACE_NONE);
  assert_int_equal(v64, 0xffffffffffffff00ull);
  assert_int_equal(t.tls_address(t.user, 1, &v64), AMDDWARF_OK);
  assert_int_equal(v64, 65);
  assert_int_equal(t.address_index(t.user, 1, &v64), AMDDWARF_OK);
  assert_int_equal(v64, 0xfedcba9876543210ull);
  amddwarf_base_type bt;
  assert_int_equal(t.base_type(t.user, 0x38, &bt), AMDDWARF_OK);
  assert_int_equal(bt.encoding, AMDDWARF_ATE_FLOAT);
  assert_int_equal(bt.bit_size, 32);
  assert_int_equal(bt.count, 4);
  amddwarf_die die;
  assert_int_equal(t.die(t.user, AMDDWARF_DIE_REF_UNIT, 0xf0, &die), AMDDWARF_OK); /* 0x20 + 0xf0 */
  assert_true(die.is_dwarf_procedure);
  assert_int_equal(die.value, AMDDWARF_DIE_LOCATION);
  assert_int_equal(die.size, 1);
  assert_int_equal(die.bytes[0], 0xe7); /* DW_OP_LLVM_undefined, vendor */
  assert_int_equal(t.die(t.user, AMDDWARF_DIE_REF_SECTION, 0x120, &die), AMDDWARF_OK);
  assert_false(die.is_dwarf_procedure);
  assert_int_equal(die.value, AMDDWARF_DIE_CONST_VALUE);
  assert_int_equal(die.size, 2);
  assert_memory_equal(die.bytes, "\x05\x06", 2);
  assert_int_equal(t.die(t.user, AMDDWARF_DIE_REF_SECTION, 0x130, &die), AMDDWARF_OK);
  assert_int_equal(die.value, AMDDWARF_DIE_NO_VALUE);
  /* save(load(save(x))) == save(x), and once more. */
  char *text2 = save(b, &size2);
  assert_int_equal(size2, size1);
  assert_memory_equal(text2, text1, size1);
  assert_int_equal(amddwarf_snapshot_load(text2, size2, NULL, &c, &err), AMDDWARF_OK);
  free(text2);
  text2 = save(c, &size2);
  assert_int_equal(size2, size1);
  assert_memory_equal(text2, text1, size1);
  free(text1);
  free(text2);
  amddwarf_snapshot_free(a);
  amddwarf_snapshot_free(b);
  amddwarf_snapshot_free(c);
}

/* The empty wave saves its defaults; a wave32 snapshot names its wave32
   vector registers so that they load as the same DWARF numbers. */
static void test_save_small(void **state)
{
  (void)state;
  amddwarf_snapshot *s = NULL;
  amddwarf_error err;
  size_t size;
  assert_int_equal(amddwarf_snapshot_load("{}", 2, NULL, &s, &err), AMDDWARF_OK);
  char *text = save(s, &size);
  assert_string_equal(text, "{\n  \"wave_size\": 64,\n  \"address_size\": 8,\n  \"lane\": 0,\n"
                            "  \"registers\": {}\n}\n");
  free(text);
  amddwarf_snapshot_free(s);
  const char *w32 = "{\"wave_size\": 32, \"address_size\": 4, \"registers\": {\"v3\": [0, 9], \"2563\": [4]}}";
  assert_int_equal(amddwarf_snapshot_load(w32, strlen(w32), NULL, &s, &err), AMDDWARF_OK);
  text = save(s, &size);
  assert_string_equal(text, "{\n  \"wave_size\": 32,\n  \"address_size\": 4,\n  \"lane\": 0,\n"
                            "  \"registers\": {\n    \"v3\": [0, 9],\n    \"2563\": [4]\n  }\n}\n");
  free(text);
  amddwarf_snapshot_free(s);
  assert_int_equal(amddwarf_snapshot_save(NULL, &text, &size, &err), AMDDWARF_E_INVALID_ARGUMENT);
}

typedef struct counting_allocator {
  size_t live_bytes;
  unsigned allocations;
} counting_allocator;

static void *count_alloc(void *user, size_t size)
{
  counting_allocator *c = user;
  c->live_bytes += size;
  c->allocations++;
  return malloc(size);
}

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
  counting_allocator *c = user;
  c->live_bytes += new_size - old_size;
  return realloc(ptr, new_size);
}

static void count_free(void *user, void *ptr, size_t size)
{
  counting_allocator *c = user;
  if (ptr)
    c->live_bytes -= size;
  free(ptr);
}

/* The document comes from the snapshot's allocator and is released with its
   size plus the NUL. */
static void test_save_allocator(void **state)
{
  (void)state;
  counting_allocator counts = {0, 0};
  amddwarf_allocator a = {count_alloc, count_realloc, count_free, &counts};
  amddwarf_snapshot *s = NULL;
  amddwarf_error err;
  size_t size;
  assert_int_equal(amddwarf_snapshot_load(save_source, strlen(save_source), &a, &s, &err),
                   AMDDWARF_OK);
  size_t before = counts.live_bytes;
  char *text = save(s, &size);
  /* Grown through the allocator, then trimmed: exactly the document is left. */
  assert_int_equal(counts.live_bytes, before + size + 1);
  count_free(&counts, text, size + 1);
  amddwarf_snapshot_free(s);
  assert_int_equal(counts.live_bytes, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rejects),
      cmocka_unit_test(test_target_answers),
      cmocka_unit_test(test_access_spans_adjacent_regions),
      cmocka_unit_test(test_private_wave_view),
      cmocka_unit_test(test_request_wave_size),
      cmocka_unit_test(test_initial_entries),
      cmocka_unit_test(test_32bit_process),
      cmocka_unit_test(test_save_round_trip),
      cmocka_unit_test(test_save_small),
      cmocka_unit_test(test_save_allocator),
      cmocka_unit_test(test_unknown_members),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
