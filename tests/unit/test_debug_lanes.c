/* Lane lists and the lanes table of the debugger layer (src/debug/lane_list.c,
 * lanes_table.c, <amddwarf/debug.h>) on the seed's nest example
 * (examples/seed-nest): wave64 at 0x24 with EXEC 0x3 and a
 * DW_AT_LLVM_lane_pc that puts lanes 2-3 at 0x1c and lanes 4-5 at 0xc. */
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

typedef struct fixture {
  uint8_t *image;
  size_t size;
  amddwarf_object *object;
  amddwarf_snapshot *snap;
  amddwarf_target raw;
  amddwarf_wave *wave;
  const amddwarf_lanes *lanes;
} fixture;

static char *read_example(const char *name, size_t *size)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/seed-nest/%s", AMDDWARF_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *data = malloc(1 << 16);
  assert_non_null(data);
  *size = fread(data, 1, 1 << 16, f);
  fclose(f);
  return data;
}

static int setup(void **state)
{
  fixture *fx = calloc(1, sizeof *fx);
  amddwarf_error err;
  size_t size = 0;
  assert_non_null(fx);
  char *json = read_example("nest.json", &size);
  assert_int_equal(amddwarf_build_json(json, size, NULL, &fx->image, &fx->size, &err),
                   AMDDWARF_OK);
  free(json);
  assert_int_equal(amddwarf_object_open_memory(fx->image, fx->size, NULL, &fx->object, &err),
                   AMDDWARF_OK);
  json = read_example("wave.json", &size);
  assert_int_equal(amddwarf_snapshot_load(json, size, NULL, &fx->snap, &err), AMDDWARF_OK);
  free(json);
  amddwarf_snapshot_target(fx->snap, &fx->raw);
  const amddwarf_object *objects[1] = {fx->object};
  assert_int_equal(amddwarf_wave_open(objects, 1, &fx->raw, NULL, &fx->wave, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &fx->lanes, &err), AMDDWARF_OK);
  *state = fx;
  return 0;
}

static int teardown(void **state)
{
  fixture *fx = *state;
  amddwarf_wave_close(fx->wave);
  amddwarf_snapshot_free(fx->snap);
  amddwarf_object_close(fx->object);
  amddwarf_produce_free_bytes(NULL, fx->image, fx->size);
  free(fx);
  return 0;
}

static uint64_t parse_ok(const fixture *fx, const char *text)
{
  uint64_t mask = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  if (amddwarf_lanes_parse(fx->lanes, text, &mask, &err) != AMDDWARF_OK)
    fail_msg("'%s': %s", text, err.message);
  return mask;
}

/* The error's message and offset for TEXT, which must not parse. */
static void parse_fails(const fixture *fx, const char *text, uint64_t offset, const char *message)
{
  uint64_t mask = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_lanes_parse(fx->lanes, text, &mask, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, message);
  assert_int_equal(err.offset, offset);
}

static void test_parse(void **state)
{
  const fixture *fx = *state;
  assert_int_equal(parse_ok(fx, "3"), 0x8);
  assert_int_equal(parse_ok(fx, "0-3,7"), 0x8f);
  assert_int_equal(parse_ok(fx, " 5 , 8-9 "), 0x320);
  assert_int_equal(parse_ok(fx, "all"), UINT64_MAX);
  assert_int_equal(parse_ok(fx, "active"), 0x3); /* EXEC */
  assert_int_equal(parse_ok(fx, "active,4-5"), 0x33);
  assert_int_equal(parse_ok(fx, "63"), UINT64_C(1) << 63);
  uint64_t mask = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_lanes_parse(fx->wave, "active,7", &mask, &err), AMDDWARF_OK);
  assert_int_equal(mask, 0x83); /* EXEC 0x3 and lane 7 */
  parse_fails(fx, "0-64", 0, "lane list '0-64': lane 64 is not below the wave size 64");
  parse_fails(fx, "1,7-3", 2, "lane list '1,7-3': range 7-3 is backwards");
  parse_fails(fx, "0,x", 2, "lane list '0,x': 'x' is not a lane, a range like 5-7, all or active");
  parse_fails(fx, "4-", 0, "lane list '4-': '4-' is not a range like 5-7");
  parse_fails(fx, "-1", 0, "lane list '-1': '-1' is not a lane, a range like 5-7, all or active");
  parse_fails(fx, "1 2", 2, "lane list '1 2': expected ',' after '1 '");
  parse_fails(fx, "allx", 0,
              "lane list 'allx': 'allx' is not a lane, a range like 5-7, all or active");
  parse_fails(fx, "", 0, "lane list '': '' is not a lane, a range like 5-7, all or active");
}

static void test_spell(void **state)
{
  (void)state;
  char buf[256];
  assert_int_equal(amddwarf_lanes_spell(0x8f, 64, buf, sizeof buf), 5);
  assert_string_equal(buf, "0-3,7");
  assert_int_equal(amddwarf_lanes_spell(0, 64, buf, sizeof buf), 0);
  assert_string_equal(buf, "");
  amddwarf_lanes_spell(UINT64_MAX, 32, buf, sizeof buf);
  assert_string_equal(buf, "0-31"); /* lanes past the wave size are not spelled */
  amddwarf_lanes_spell(UINT64_C(0x5555555555555555), 64, buf, sizeof buf);
  assert_int_equal(strlen(buf), 5 * 1 + 27 * 2 + 31); /* 0,2,...,62 */
  char small[4];
  assert_int_equal(amddwarf_lanes_spell(0x8f, 64, small, sizeof small), 5);
  assert_string_equal(small, "0-3");
}

/* Where the active lanes and the lane PCs come from, and the one count of
   active lanes, on the seed (EXEC 0x3, a lane_pc) and on nest-active-lane,
   whose DW_AT_LLVM_active_lane (s8:s9 = 0x1) drops lane 1 that EXEC (0x3)
   holds: the count follows the mask the lanes come from, not EXEC. */
static void test_sources(void **state)
{
  const fixture *fx = *state;
  assert_int_equal(fx->lanes->active_from, AMDDWARF_ACTIVE_FROM_EXEC);
  assert_int_equal(fx->lanes->pc_from, AMDDWARF_LANE_PC_FROM_LANE_PC);
  assert_int_equal(fx->lanes->active_count, 2);

  char path[1024];
  FILE *f = NULL;
  uint8_t elf[4096];
  char wave_json[1024];
  snprintf(path, sizeof path, "%s/tests/golden/object/nest-active-lane.elf", AMDDWARF_SOURCE_DIR);
  assert_non_null(f = fopen(path, "rb"));
  size_t elf_size = fread(elf, 1, sizeof elf, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/tests/golden/object/nest-active-lane-wave.json",
           AMDDWARF_SOURCE_DIR);
  assert_non_null(f = fopen(path, "rb"));
  size_t json_size = fread(wave_json, 1, sizeof wave_json, f);
  fclose(f);
  amddwarf_error err;
  amddwarf_object *object = NULL;
  amddwarf_snapshot *snap = NULL;
  amddwarf_target raw;
  amddwarf_wave *wave = NULL;
  const amddwarf_lanes *lanes = NULL;
  assert_int_equal(amddwarf_object_open_memory(elf, elf_size, NULL, &object, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_snapshot_load(wave_json, json_size, NULL, &snap, &err), AMDDWARF_OK);
  amddwarf_snapshot_target(snap, &raw);
  const amddwarf_object *objects[1] = {object};
  assert_int_equal(amddwarf_wave_open(objects, 1, &raw, NULL, &wave, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_lanes(wave, &lanes, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_get_info(wave)->exec, 0x3);
  assert_int_equal(lanes->active_from, AMDDWARF_ACTIVE_FROM_ACTIVE_LANE);
  assert_int_equal(lanes->active_mask, 0x1);
  assert_int_equal(lanes->active_count, 1);
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
  amddwarf_object_close(object);
}

/* A wave32 target over the seed's gfx900 object (gfx9 has no wave32) is
   refused, not read at the wrong size. */
static void test_wave_size_mismatch(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  amddwarf_snapshot *snap = NULL;
  amddwarf_target raw;
  amddwarf_wave *wave = NULL;
  static const char wave32[] = "{\"wave_size\": 32, \"pc\": \"0x24\", \"exec\": \"0x3\"}";
  assert_int_equal(amddwarf_snapshot_load(wave32, sizeof wave32 - 1, NULL, &snap, &err),
                   AMDDWARF_OK);
  amddwarf_snapshot_target(snap, &raw);
  const amddwarf_object *objects[1] = {fx->object};
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_wave_open(objects, 1, &raw, NULL, &wave, &err),
                   AMDDWARF_E_WAVE_MISMATCH);
  assert_null(wave);
  assert_string_equal(err.message,
                      "the wave is wave32, its code object (gfx900) has wave64 code only");
  amddwarf_snapshot_free(snap);
}

/* The names the text and the JSON output use (specs/json.md, specs/dap.md). */
static void test_source_names(void **state)
{
  (void)state;
  assert_string_equal(amddwarf_active_from_text(AMDDWARF_ACTIVE_FROM_EXEC), "EXEC");
  assert_string_equal(amddwarf_active_from_key(AMDDWARF_ACTIVE_FROM_EXEC), "exec");
  assert_string_equal(amddwarf_active_from_text(AMDDWARF_ACTIVE_FROM_ACTIVE_LANE),
                      "DW_AT_LLVM_active_lane");
  assert_string_equal(amddwarf_active_from_key(AMDDWARF_ACTIVE_FROM_ACTIVE_LANE),
                      "DW_AT_LLVM_active_lane");
  assert_string_equal(amddwarf_lane_pc_from_text(AMDDWARF_LANE_PC_FROM_WAVE_PC), "the wave PC");
  assert_string_equal(amddwarf_lane_pc_from_key(AMDDWARF_LANE_PC_FROM_WAVE_PC), "wave_pc");
  assert_string_equal(amddwarf_lane_pc_from_text(AMDDWARF_LANE_PC_FROM_LANE_PC),
                      "DW_AT_LLVM_lane_pc");
  assert_string_equal(amddwarf_lane_pc_from_key(AMDDWARF_LANE_PC_FROM_LANE_PC),
                      "DW_AT_LLVM_lane_pc");
  assert_string_equal(amddwarf_active_from_text((amddwarf_active_from)7), "?");
  assert_string_equal(amddwarf_lane_pc_from_key((amddwarf_lane_pc_from)-1), "?");
}

static void test_table(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  size_t length = 0;
  char buf[1024];
  assert_int_equal(amddwarf_wave_lanes_table(fx->wave, buf, 1, &length, &err), AMDDWARF_OK);
  assert_string_equal(buf, "");
  assert_int_equal(amddwarf_wave_lanes_table(fx->wave, buf, sizeof buf, NULL, &err), AMDDWARF_OK);
  assert_string_equal(
      buf, "wave64 at pc 0x24; active lanes from EXEC, lane PCs from DW_AT_LLVM_lane_pc\n"
           "lanes 0-63: ##..............................................................\n"
           "  0x24     x.cl:7:0 in X                 2 lanes: 0-1\n"
           "  0x1c     x.cl:6:0 in X                 2 lanes: 2-3\n"
           "  0xc      x.cl:4:0 in X                 2 lanes: 4-5\n"
           "  - (inactive, PC unknown)             58 lanes: 6-63\n");
  assert_int_equal(length, strlen(buf));
}

/* The register set of a wave64 wave, numbered as the AMDGPU DWARF
   register map says: PC_64 16, EXEC_MASK_64 17, SGPR0-63 from 32,
   SGPR64-105 from 1088, wave64 VGPRs from 2560. */
static void test_register_set(void **state)
{
  fixture *fx = *state;
  amddwarf_wave_register r;
  assert_int_equal(amddwarf_wave_register_count(fx->wave), 2 + 106 + 256);
  static const struct {
    size_t index;
    const char *name;
    uint32_t regno, size;
    int per_lane, always;
  } expected[] = {
      {0, "pc", 16, 8, 0, 1},          {1, "exec", 17, 8, 0, 1},
      {2 + 33, "s33", 65, 4, 0, 0},    {2 + 64, "s64", 1088, 4, 0, 0},
      {2 + 105, "s105", 1129, 4, 0, 0}, {2 + 106 + 1, "v1", 2561, 4, 1, 0},
      {2 + 106 + 255, "v255", 2815, 4, 1, 0},
  };
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
    assert_int_equal(amddwarf_wave_register_get(fx->wave, expected[i].index, &r), AMDDWARF_OK);
    assert_string_equal(r.name, expected[i].name);
    assert_int_equal(r.regno, expected[i].regno);
    assert_int_equal(r.size, expected[i].size);
    assert_int_equal(r.per_lane, expected[i].per_lane);
    assert_int_equal(r.always_listed, expected[i].always);
  }
  assert_int_equal(amddwarf_wave_register_get(fx->wave, 2 + 106 + 256, &r), AMDDWARF_NOT_FOUND);
}

/* A write through the layer changes what the lanes and frames read, and the
   layer computes them again itself. The seed's lane-PC procedure puts a
   lane that the inner if's saved mask (s6:s7) holds but EXEC does not at
   the inner if (0x1c), and one only the outer mask (s4:s5) holds at the
   outer if (0xc): s6 = 0x3f moves lanes 4-5 from 0xc to 0x1c, and s4 = 0xff
   brings lanes 6-7 to 0xc. The CFA rule (DW_CFA_LLVM_def_aspace_cfa_sf
   s33, -2 * data_align 4) gives 0x100 - 8 = 0xf8, and 0x1f8 once s33 is
   0x200. */
static void test_write_refreshes(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  const amddwarf_lanes *lanes = fx->lanes;
  const amddwarf_frame *before = NULL, *after = NULL;
  uint32_t aspace = 0;
  uint64_t cfa = 0;
  assert_int_equal(amddwarf_wave_frame(fx->wave, 0, &before, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_frame_cfa(fx->wave, 0, &aspace, &cfa, &err), AMDDWARF_OK);
  assert_int_equal(cfa, 0xf8);
  assert_int_equal(lanes->lanes[4].pc, 0xc);
  assert_false(lanes->lanes[6].pc_known);
  static const uint8_t inner[4] = {0x3f, 0, 0, 0}, outer[4] = {0xff, 0, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 32 + 6, 0, 4, inner, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_ptr_equal(lanes, fx->lanes); /* updated in place */
  static const uint64_t moved[8] = {0x24, 0x24, 0x1c, 0x1c, 0x1c, 0x1c, 0, 0};
  for (uint32_t l = 0; l < 6; ++l) {
    assert_true(lanes->lanes[l].pc_known);
    assert_int_equal(lanes->lanes[l].pc, moved[l]);
  }
  assert_false(lanes->lanes[6].pc_known);
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 32 + 4, 0, 4, outer, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_lanes(fx->wave, &lanes, &err), AMDDWARF_OK);
  assert_int_equal(lanes->lanes[5].pc, 0x1c);
  assert_true(lanes->lanes[6].pc_known && lanes->lanes[7].pc_known);
  assert_int_equal(lanes->lanes[6].pc, 0xc);
  assert_int_equal(lanes->lanes[7].pc, 0xc);
  assert_false(lanes->lanes[8].pc_known);
  assert_int_equal(lanes->active_mask, 0x3); /* EXEC is not written */

  static const uint8_t sp[4] = {0x00, 0x02, 0, 0};
  assert_int_equal(amddwarf_wave_write_register(fx->wave, 0, 32 + 33, 0, 4, sp, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_frame(fx->wave, 0, &after, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_frame_cfa(fx->wave, 0, &aspace, &cfa, &err), AMDDWARF_OK);
  assert_int_equal(cfa, 0x1f8);
  assert_ptr_not_equal(after, before);
  assert_int_equal(before->pc, 0x24); /* the frame obtained before stays valid */

  /* A memory write lets go of the frames too (the CFI may save registers
     in memory): frame 0 is unwound again, to the same place. */
  static const char with_memory[] =
      "{\"architecture\": \"gfx900\", \"pc\": \"0x24\", \"exec\": \"0x3\","
      " \"registers\": {\"s33\": \"0x100\"}, \"memory\": [{\"address_space\":"
      " \"private_lane\", \"lane\": 0, \"address\": \"0x10\", \"bytes\": \"00000000\"}]}";
  amddwarf_snapshot *snap = NULL;
  amddwarf_target raw;
  amddwarf_wave *wave = NULL;
  const amddwarf_object *objects[1] = {fx->object};
  assert_int_equal(amddwarf_snapshot_load(with_memory, sizeof with_memory - 1, NULL, &snap, &err),
                   AMDDWARF_OK);
  amddwarf_snapshot_target(snap, &raw);
  assert_int_equal(amddwarf_wave_open(objects, 1, &raw, NULL, &wave, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_frame(wave, 0, &before, &err), AMDDWARF_OK);
  static const uint8_t word[4] = {1, 2, 3, 4};
  uint8_t back[4] = {0};
  assert_int_equal(amddwarf_wave_write_memory(wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0, 0x10,
                                              sizeof word, word, 0, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_frame(wave, 0, &after, &err), AMDDWARF_OK);
  assert_ptr_not_equal(after, before);
  assert_int_equal(amddwarf_wave_frame_cfa(wave, 0, &aspace, &cfa, &err), AMDDWARF_OK);
  assert_int_equal(cfa, 0xf8);
  assert_int_equal(amddwarf_wave_read_memory(wave, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0, 0x10,
                                             sizeof back, back, NULL, &err),
                   AMDDWARF_OK);
  assert_memory_equal(back, word, sizeof word);
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
}

/* The register list's rules: by name, as hex text, assigned from an
   integer's text. The seed's wave: s33 = 0x100, v1 = 100 + lane for lanes
   0-7, pc 0x24, EXEC 0x3. */
static void test_register_text(void **state)
{
  fixture *fx = *state;
  amddwarf_wave_register s33, v1, pc, r;
  amddwarf_error err;
  char text[32];
  assert_int_equal(amddwarf_wave_register_find(fx->wave, "s33", &s33), AMDDWARF_OK);
  assert_int_equal(s33.regno, 32 + 33);
  assert_int_equal(amddwarf_wave_register_find(fx->wave, "v1", &v1), AMDDWARF_OK);
  assert_int_equal(v1.regno, 2560 + 1);
  assert_int_equal(amddwarf_wave_register_find(fx->wave, "pc", &pc), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_register_find(fx->wave, "s106", &r), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_wave_register_text(fx->wave, 0, &s33, AMDDWARF_NO_LANE, text,
                                               sizeof text, &err),
                   AMDDWARF_OK);
  assert_string_equal(text, "0x00000100");
  assert_int_equal(amddwarf_wave_register_text(fx->wave, 0, &v1, 3, text, sizeof text, &err),
                   AMDDWARF_OK);
  assert_string_equal(text, "0x00000067"); /* 103 */
  assert_int_equal(amddwarf_wave_register_text(fx->wave, 0, &pc, 0, text, sizeof text, &err),
                   AMDDWARF_OK);
  assert_string_equal(text, "0x0000000000000024");

  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &s33, AMDDWARF_NO_LANE, "0x2a0", 0,
                                                 &err),
                   AMDDWARF_OK);
  amddwarf_wave_register_text(fx->wave, 0, &s33, AMDDWARF_NO_LANE, text, sizeof text, &err);
  assert_string_equal(text, "0x000002a0");
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &s33, 0, "0x100000000", 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "'0x100000000' is not a 4-byte unsigned integer");
  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &s33, 0, "-1", 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &s33, 0, "12x", 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  /* Lane 1 is active, lane 5 is not: only an explicit request writes it. */
  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &v1, 1, "7", 0, &err), AMDDWARF_OK);
  amddwarf_wave_register_text(fx->wave, 0, &v1, 1, text, sizeof text, &err);
  assert_string_equal(text, "0x00000007");
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_wave_register_assign(fx->wave, 0, &v1, 5, "7", 0, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message,
                      "v1 of inactive lane 5: writing inactive lanes must be asked for explicitly");
  assert_int_equal(
      amddwarf_wave_register_assign(fx->wave, 0, &v1, 5, "7", AMDDWARF_ASSIGN_INACTIVE, &err),
      AMDDWARF_OK);
}

/* The texts every view shows: places by the seed's line table (0x24 is
   line 7 of x.cl in X; 0x1000 is past the code), a lane's read with its
   reason, and the lanes of i (v1 of the lane: 100 + lane) as runs. Lanes
   0-1 are active; 2-3 stand at 0x1c (the lane-PC procedure), not read. */
static void test_view_texts(void **state)
{
  fixture *fx = *state;
  char text[256];
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_place_text(fx->wave, 0x24, 0, text, sizeof text), 13);
  assert_string_equal(text, "x.cl:7:0 in X");
  amddwarf_wave_place_text(fx->wave, 0x24, AMDDWARF_PLACE_TEXT_LINE, text, sizeof text);
  assert_string_equal(text, "x.cl:7");
  amddwarf_wave_place_text(fx->wave, 0x1000, 0, text, sizeof text);
  assert_string_equal(text, "?? in ??");
  assert_int_equal(amddwarf_wave_place_text(fx->wave, 0x1000, AMDDWARF_PLACE_TEXT_LINE, text,
                                            sizeof text),
                   0);

  amddwarf_lane_value v;
  memset(&v, 0, sizeof v);
  v.state = AMDDWARF_LANE_UNAVAILABLE;
  v.status = AMDDWARF_E_EVAL_UNAVAILABLE;
  v.text = v.explain = "";
  v.message = "the snapshot has no VGPR9";
  v.reason = AMDDWARF_UNAVAILABLE_REGISTER_NOT_RESTORED;
  assert_int_equal(amddwarf_lane_value_describe(&v, 0, text, sizeof text), 13);
  assert_string_equal(text, "<unavailable>");
  amddwarf_lane_value_describe(&v, AMDDWARF_LANE_TEXT_EXPLAIN, text, sizeof text);
  assert_string_equal(
      text, "<unavailable>    [why: register_not_restored: the snapshot has no VGPR9]");
  v.detailed = 1; /* the text shows the message: the reason alone follows */
  amddwarf_lane_value_describe(&v, AMDDWARF_LANE_TEXT_EXPLAIN, text, sizeof text);
  assert_string_equal(
      text, "<unavailable> (the snapshot has no VGPR9)    [why: register_not_restored]");
  char small[6];
  assert_int_equal(amddwarf_lane_value_describe(&v, 0, small, sizeof small),
                   strlen("<unavailable> (the snapshot has no VGPR9)"));
  assert_string_equal(small, "<unav");

  amddwarf_valobj *value = NULL;
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "i", &value, &err), AMDDWARF_OK);
  size_t length = 0;
  assert_int_equal(amddwarf_valobj_lanes_table(value, 0x2f, 0, text, sizeof text, &length, &err),
                   AMDDWARF_OK);
  assert_string_equal(text, "i (int) at pc 0x24\nlanes  value\n"
                            "    0  100\n    1  101\n  2-3  <inactive>\n    5  <inactive>\n");
  assert_int_equal(length, strlen(text));
  assert_int_equal(amddwarf_valobj_lanes_table(value, 0, 0, text, sizeof text, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_valobj_free(value);
}

/* A legacy unit's expressions are evaluated (and traced) in the
   DW_OP_LLVM_user dialect they are normalized into; others as written. */
static void test_unit_eval_format(void **state)
{
  (void)state;
  amddwarf_cu cu;
  memset(&cu, 0, sizeof cu);
  cu.format.dialect = AMDDWARF_DIALECT_VENDOR;
  cu.format.address_size = 8;
  cu.convention = AMDDWARF_CONVENTION_LEGACY;
  amddwarf_expr_format f = amddwarf_unit_eval_format(&cu);
  assert_int_equal(f.dialect, AMDDWARF_DIALECT_USER);
  assert_int_equal(f.address_size, 8);
  cu.convention = AMDDWARF_CONVENTION_EXTENSION;
  assert_int_equal(amddwarf_unit_eval_format(&cu).dialect, AMDDWARF_DIALECT_VENDOR);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
      cmocka_unit_test(test_spell),
      cmocka_unit_test_setup_teardown(test_table, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sources, setup, teardown),
      cmocka_unit_test(test_source_names),
      cmocka_unit_test_setup_teardown(test_wave_size_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_register_set, setup, teardown),
      cmocka_unit_test_setup_teardown(test_write_refreshes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_register_text, setup, teardown),
      cmocka_unit_test_setup_teardown(test_view_texts, setup, teardown),
      cmocka_unit_test(test_unit_eval_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
