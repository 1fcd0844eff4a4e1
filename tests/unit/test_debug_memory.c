/* Memory of a wave by address space and lane (src/debug/memory.c,
 * amddwarf_wave_read_memory, amddwarf_wave_write_memory) and register
 * writes (src/debug/register_write.c) over a snapshot target: wave64, EXEC
 * 0xf (lanes 0-3 active), focused lane 1, apertures shared 0x1000000000000
 * and private 0x2000000000000, v1 = 1..6 in lanes 0-5, s4 = 7.
 *
 * Expected bytes are worked out by hand from the snapshot and the AMDGPU
 * mapping rules (seed spec, "Address Space Mapping"): a generic address in
 * the private window is private_lane memory of the lane at the address's
 * offset in the window; private_lane<N> is lane N's; a private_wave dword
 * at A belongs to lane (A / 4) % 64 at lane address (A / 256) * 4 + A % 4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/debug.h>
#include <amddwarf/object.h>
#include <amddwarf/produce.h>
#include <amddwarf/snapshot.h>

#include "wave_fixture.h"

static const char program_json[] =
    "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
    " \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\", \"text_size\": 64},"
    " \"symbols\": [{\"name\": \"f\", \"offset\": 0, \"size\": 64}],"
    " \"units\": [{\"name\": \"m.cl\", \"comp_dir\": \"/src\", \"producer\": \"test\","
    "  \"functions\": [{\"name\": \"f\", \"low\": 0, \"high\": 64}]}]}";

static const char snapshot_json[] =
    "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"lane\": 1, \"exec\": \"0xf\","
    " \"pc\": 16, \"registers\": {\"v1\": [1, 2, 3, 4, 5, 6], \"s4\": 7},"
    " \"apertures\": {\"shared\": \"0x1000000000000\", \"private\": \"0x2000000000000\"},"
    " \"memory\": ["
    "  {\"address_space\": \"global\", \"address\": \"0x1000\", \"bytes\": \"0102030405060708\"},"
    "  {\"address_space\": \"private_lane\", \"lane\": 1, \"address\": \"0x10\","
    "   \"bytes\": \"a1a2a3a4\"},"
    "  {\"address_space\": \"private_lane\", \"lane\": 2, \"address\": \"0x0\","
    "   \"bytes\": \"b1b2b3b4\"},"
    "  {\"address_space\": \"private_lane\", \"lane\": 5, \"address\": \"0x0\","
    "   \"bytes\": \"c1c2c3c4\"}]}";

typedef wave_fixture fixture;

static int setup(void **state)
{
  *state = wave_fixture_open(program_json, sizeof program_json - 1, snapshot_json,
                             sizeof snapshot_json - 1);
  return 0;
}

static int teardown(void **state)
{
  wave_fixture_close(*state);
  return 0;
}

static void assert_read(fixture *fx, uint32_t aspace, uint32_t lane, uint64_t address,
                        const char *hex)
{
  uint8_t buf[16];
  size_t size = strlen(hex) / 2;
  uint64_t readable = 0;
  amddwarf_error err;
  amddwarf_status st =
      amddwarf_wave_read_memory(fx->wave, aspace, lane, address, size, buf, &readable, &err);
  if (st != AMDDWARF_OK)
    print_error("read %u/%u/0x%llx: %s\n", aspace, lane, (unsigned long long)address,
                err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(readable, size);
  char got[33] = "";
  for (size_t i = 0; i < size; ++i)
    snprintf(got + 2 * i, 3, "%02x", buf[i]);
  assert_string_equal(got, hex);
}

static void test_mapping(void **state)
{
  fixture *fx = *state;
  assert_read(fx, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1000, "01020304");
  /* private_lane with no lane: the focused lane (1). */
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, AMDDWARF_NO_LANE, 0x10, "a1a2a3a4");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 2, 0x0, "b1b2b3b4");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + 2, AMDDWARF_NO_LANE, 0x0, "b1b2b3b4");
  /* Inactive lanes read: memory does not depend on the PC. */
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + 5, AMDDWARF_NO_LANE, 0x1, "c2c3");
  /* Generic in the private window: private_lane of the given lane, else the focused one. */
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_GENERIC, 2, 0x2000000000000, "b1b2b3b4");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_GENERIC, AMDDWARF_NO_LANE, 0x2000000000010, "a1a2a3a4");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_GENERIC, AMDDWARF_NO_LANE, 0x1002, "0304");
  /* private_wave: lane 2's dword 0 is at 2 * 4; lane 5's at 5 * 4. */
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE, 0x8, "b1b2b3b4");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE, 0x16, "c3c4");
}

static void test_errors(void **state)
{
  fixture *fx = *state;
  uint8_t buf[16];
  uint64_t readable = 99;
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE,
                                             0x1004, 8, buf, &readable, &err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(readable, 4);
  assert_memory_equal(buf, "\x05\x06\x07\x08", 4);
  print_message("%s\n", err.message);
  assert_non_null(strstr(err.message, "global memory at 0x1004: the target reads 4 of 8 bytes"));
  assert_null(strstr(err.message, "snapshot"));
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_GENERIC, 3,
                                             0x2000000000040, 4, buf, &readable, &err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_non_null(strstr(err.message,
                         "generic 0x2000000000040 = private_lane memory of lane 3 at 0x40: "));
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 64,
                                             0, 4, buf, NULL, &err),
                   AMDDWARF_E_AMDGPU_BAD_LANE);
  assert_string_equal(err.message, "lane 64 is not a lane of the wave (0-63)");
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_LOCAL, 1, 0, 4,
                                             buf, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "local memory has no lanes: give AMDDWARF_NO_LANE");
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + 2,
                                             3, 0, 4, buf, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "private_lane2 names lane 2, not lane 3");
  assert_int_equal(amddwarf_wave_read_memory(fx->wave, 0x04, AMDDWARF_NO_LANE, 0, 4, buf, NULL,
                                             &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

/* Writes: an inactive lane's memory only when asked; read back. */
static void test_writes(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  static const uint8_t bytes[4] = {0xd1, 0xd2, 0xd3, 0xd4};
  assert_int_equal(amddwarf_wave_write_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0,
                                              4, bytes, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "private_lane memory of lane 5 at 0x0: the memory of inactive "
                                   "lane 5; writing inactive lanes must be asked for explicitly");
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0, "c1c2c3c4");
  /* private_wave 0x10-0x17 covers lanes 4 and 5, both inactive. */
  assert_int_equal(amddwarf_wave_write_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE,
                                              AMDDWARF_NO_LANE, 0x12, 4, bytes, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "inactive lanes 4-5"));
  assert_int_equal(amddwarf_wave_write_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + 5,
                                              AMDDWARF_NO_LANE, 0, 4, bytes,
                                              AMDDWARF_ASSIGN_INACTIVE, &err),
                   AMDDWARF_OK);
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0, "d1d2d3d4");
  /* An active lane through private_wave: lane 2's dword. */
  assert_int_equal(amddwarf_wave_write_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE,
                                              AMDDWARF_NO_LANE, 0x9, 2, bytes, 0, &err),
                   AMDDWARF_OK);
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 2, 0, "b1d1d2b4");
  assert_int_equal(amddwarf_wave_write_memory(fx->wave, AMDDWARF_ASPACE_AMDGPU_GENERIC,
                                              AMDDWARF_NO_LANE, 0x2000000000010, 2, bytes, 0,
                                              &err),
                   AMDDWARF_OK);
  assert_read(fx, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 1, 0x10, "d1d2a3a4");
}

static uint32_t register_dword(fixture *fx, uint32_t regno, uint64_t offset)
{
  uint8_t b[4];
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_read_register(fx->wave, 0, regno, offset, 4, b, &err),
                   AMDDWARF_OK);
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Registers: v1 is DWARF 2561 in a wave64 (lane L's dword at 4 * L), s4 is 36. */
static void test_register_writes(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  static const uint8_t nine[4] = {9, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 2561, 8, 4, nine, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(register_dword(fx, 2561, 8), 9);
  assert_int_equal(register_dword(fx, 2561, 4), 2);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 2561, 20, 4, nine, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message,
                      "v1 of inactive lane 5: writing inactive lanes must be asked for explicitly");
  /* Lanes 3 and 4: one of them inactive refuses the whole write. */
  static const uint8_t two[8] = {1, 1, 1, 1, 2, 2, 2, 2};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 2561, 12, 8, two, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(register_dword(fx, 2561, 12), 4);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 2561, 20, 4, nine,
                                                AMDDWARF_ASSIGN_INACTIVE, &err),
                   AMDDWARF_OK);
  assert_int_equal(register_dword(fx, 2561, 20), 9);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 36, 0, 4, nine, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(register_dword(fx, 36, 0), 9);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 36, 2, 4, nine, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "s4 has 4 bytes: bytes 2-5 are past its end");
}

static uint64_t register_u64(wave_fixture *fx, uint32_t regno)
{
  uint8_t b[8];
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_read_register(fx->wave, 0, regno, 0, 8, b, &err), AMDDWARF_OK);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

/* The wave's EXEC (DWARF 17 in a wave64) and PC (16), from which its lanes
   and frames are computed: a write moves them. Expected values follow from
   the snapshot (EXEC 0xf, PC 16, f at 0-64) and the written bytes. */
static void test_exec_and_pc_writes(void **state)
{
  (void)state;
  wave_fixture *fx = wave_fixture_open(program_json, sizeof program_json - 1, snapshot_json,
                                       sizeof snapshot_json - 1);
  amddwarf_error err;
  const amddwarf_lanes *lanes = NULL;
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_int_equal(lanes->active_mask, 0xf);

  /* EXEC 0x5: lanes 0 and 2. Lane 1's dword of v1 is then inactive. */
  static const uint8_t five[8] = {5, 0, 0, 0, 0, 0, 0, 0}, one[4] = {1, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 17, 0, 8, five, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_get_info(fx->wave)->exec, 0x5);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_int_equal(lanes->active_mask, 0x5);
  assert_int_equal(register_u64(fx, 17), 0x5);
  uint64_t target_exec = 0; /* the snapshot's own EXEC follows its register */
  assert_int_equal(fx->target.exec_mask(fx->target.user, &target_exec), AMDDWARF_OK);
  assert_int_equal(target_exec, 0x5);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 2561, 4, 4, one, 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message,
                      "v1 of inactive lane 1: writing inactive lanes must be asked for explicitly");
  /* Part of EXEC: its low dword, the high one kept (0). */
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 17, 0, 4, one, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_int_equal(lanes->active_mask, 0x1);
  /* A wave64's EXEC is DWARF 17: the 32-bit EXEC register is refused. */
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 1, 0, 4, one, 0, &err),
                   AMDDWARF_E_UNSUPPORTED);
  assert_string_equal(err.message,
                      "exec_lo (DWARF 1) is not written: a wave64's EXEC is exec (DWARF 17)");

  /* PC 0x28: frame 0, the wave and the lanes at its PC move there. */
  const amddwarf_frame *frame = NULL;
  assert_int_equal(amddwarf_wave_frame(fx->wave, 0, &frame, &err), AMDDWARF_OK);
  assert_int_equal(frame->pc, 16);
  static const uint8_t pc[8] = {0x28, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 16, 0, 8, pc, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_get_info(fx->wave)->pc, 0x28);
  assert_int_equal(amddwarf_wave_get_info(fx->wave)->object_pc, 0x28);
  assert_int_equal(frame->pc, 16); /* obtained before: stays as it was */
  assert_int_equal(amddwarf_wave_frame(fx->wave, 0, &frame, &err), AMDDWARF_OK);
  assert_int_equal(frame->pc, 0x28);
  assert_int_equal(register_u64(fx, 16), 0x28);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_true(lanes->lanes[0].pc_known);
  assert_int_equal(lanes->lanes[0].pc, 0x28);
  wave_fixture_close(fx);

  /* Loaded at 0x10000: a PC outside the object's extent is refused and
     nothing changes. */
  static const char loaded_json[] =
      "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"exec\": \"0x1\","
      " \"pc\": \"0x10010\"}";
  fx = wave_fixture_open(program_json, sizeof program_json - 1, loaded_json,
                         sizeof loaded_json - 1);
  amddwarf_wave *loaded = NULL;
  const amddwarf_object *objects[1] = {fx->object};
  const uint64_t load[1] = {0x10000};
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.load_addresses = load;
  assert_int_equal(amddwarf_wave_open(objects, 1, &fx->target, &options, &loaded, &err),
                   AMDDWARF_OK);
  static const uint8_t outside[8] = {0x00, 0x00, 0x02, 0, 0, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(loaded, 0, 16, 0, 8, outside, 0, &err),
                   AMDDWARF_E_PC_NOT_LOADED);
  assert_int_equal(amddwarf_wave_get_info(loaded)->pc, 0x10010);
  static const uint8_t inside[8] = {0x20, 0x00, 0x01, 0, 0, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(loaded, 0, 16, 0, 8, inside, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_get_info(loaded)->pc, 0x10020);
  assert_int_equal(amddwarf_wave_get_info(loaded)->object_pc, 0x20);
  amddwarf_wave_close(loaded);
  wave_fixture_close(fx);
}

/* The reference syntax of specs/dap.md, "Memory references". */
static void test_ref_parse(void **state)
{
  (void)state;
  static const struct {
    const char *text;
    uint32_t aspace, lane;
    uint64_t address;
  } good[] = {
      {"0x1000", AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1000},
      {"local:256", AMDDWARF_ASPACE_AMDGPU_LOCAL, AMDDWARF_NO_LANE, 256},
      {"private_lane:5:0x40", AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 5, 0x40},
      {"private_lane5:0x40", AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + 5, AMDDWARF_NO_LANE, 0x40},
      {"private_wave:0x800", AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE, 0x800},
  };
  static const struct {
    const char *text, *message;
  } bad[] = {
      {"private_lane:0x80", "private_lane memory needs a lane: private_lane:LANE:ADDRESS"},
      {"local:1:0x80", "local memory has no lanes: local:ADDRESS"},
      {"private_lane5:1:0x80", "private_lane5 names its lane already"},
      {"lds:0x80", "no address space 'lds' (global, generic, region, local, private_lane, "
                   "private_wave, private_lane<N>)"},
      {"a:b:c:d", "more than three parts: use SPACE:LANE:ADDRESS, SPACE:ADDRESS or ADDRESS"},
      {"local:-4", "'-4' is not an address"},
      {"private_lane:x:0", "lane 'x' is not a lane number"},
      {"", "'' is not an address"},
  };
  uint32_t aspace = 0, lane = 0;
  uint64_t address = 0;
  amddwarf_error err;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
    assert_int_equal(amddwarf_memory_ref_parse(good[i].text, &aspace, &lane, &address, &err),
                     AMDDWARF_OK);
    assert_int_equal(aspace, good[i].aspace);
    assert_int_equal(lane, good[i].lane);
    assert_int_equal(address, good[i].address);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    assert_int_equal(amddwarf_memory_ref_parse(bad[i].text, &aspace, &lane, &address, &err),
                     AMDDWARF_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, bad[i].message);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mapping),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_writes),
      cmocka_unit_test(test_register_writes),
      cmocka_unit_test(test_exec_and_pc_writes),
      cmocka_unit_test(test_ref_parse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
