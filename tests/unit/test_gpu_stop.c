/* The whole-GPU-stop workload of bench/bench_gpu_stop.c gives the right
 * answers: for a sample of waves, the backtrace's PCs and CFAs and every
 * variable's value in every lane are the ones bench/gpu_stop_workload.h
 * specifies for that wave's state (written here from the specification, not
 * from the workload's code), and the path through the debugger layer
 * (<amddwarf/debug.h>) gives exactly the frames and values of the direct
 * calls for every wave. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_stop_workload.h"

enum { VAR_LANE_ID, VAR_COUNT, VAR_SLOT, VAR_TILE, VAR_SUM, VAR_IDX, VAR_BASE, VAR_SPILLED };

static const uint32_t sample_waves[] = {0, 1, 2, 7, 8, 31, 32, 33, 1279, 2558, 2559};

static int setup(void **state)
{
  gpu_stop *stop;
  amddwarf_error err;
  if (gpu_stop_new(&stop, &err) != AMDDWARF_OK) {
    print_error("gpu_stop_new: %s\n", err.message);
    return -1;
  }
  *state = stop;
  return 0;
}

static int teardown(void **state)
{
  gpu_stop_free(*state);
  return 0;
}

static void test_variable_names(void **state)
{
  (void)state;
  assert_string_equal(gpu_stop_variable_name(VAR_LANE_ID), "lane_id");
  assert_string_equal(gpu_stop_variable_name(VAR_SPILLED), "spilled");
  assert_null(gpu_stop_variable_name(GPU_STOP_VARIABLES));
}

/* The code object is an AMDGPU ELF (EM_AMDGPU 224, ELFCLASS64). */
static void test_code_object(void **state)
{
  size_t size = 0;
  const uint8_t *image = gpu_stop_code_object(*state, &size);
  assert_true(size > 64);
  assert_memory_equal(image, "\177ELF\2\1", 6);
  assert_int_equal(image[18] | image[19] << 8, 224);
}

static void test_backtrace(void **state)
{
  gpu_stop *stop = *state;
  for (size_t i = 0; i < sizeof sample_waves / sizeof sample_waves[0]; i++) {
    uint32_t wave = sample_waves[i];
    uint64_t scratch_base = (wave % 8) * 0x1000u;
    amddwarf_error err;
    gpu_stop_frame frames[GPU_STOP_FRAMES];
    size_t count = 0;
    assert_int_equal(gpu_stop_load_wave(stop, wave, &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_backtrace(stop, frames, &count, &err), AMDDWARF_OK);
    assert_int_equal(count, 8);
    /* Frame 0: the stop in level7; frame k: the return into level(7-k). */
    assert_int_equal(frames[0].pc, (wave & 1) ? 0x17a0 : 0x1720);
    for (size_t k = 1; k < count; k++)
      assert_int_equal(frames[k].pc, 0x1000 + 0x100 * (7 - k) + 0x84);
    for (size_t k = 0; k < count; k++) {
      assert_int_equal(frames[k].cfa_aspace, 6); /* private_wave */
      assert_int_equal(frames[k].cfa, scratch_base + 0x1000 * (7 - k));
    }
  }
}

static uint64_t double_bits(double value)
{
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static void test_variables_every_lane(void **state)
{
  gpu_stop *stop = *state;
  static uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  for (size_t i = 0; i < sizeof sample_waves / sizeof sample_waves[0]; i++) {
    uint32_t wave = sample_waves[i];
    uint64_t exec = UINT64_MAX >> (wave % 32);
    amddwarf_error err;
    assert_int_equal(gpu_stop_load_wave(stop, wave, &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_variables(stop, values, &err), AMDDWARF_OK);
    for (uint32_t lane = 0; lane < GPU_STOP_LANES; lane++) {
      uint32_t id = wave * 64 + lane;
      assert_int_equal(values[VAR_LANE_ID][lane], id);
      assert_int_equal(values[VAR_COUNT][lane], 1000 + wave);
      assert_int_equal(values[VAR_SLOT][lane], wave * 0x10000u + lane * 0x100u + 3);
      assert_int_equal(values[VAR_TILE][lane], 0x70000000u + wave / 4);
      assert_int_equal(values[VAR_SUM][lane], double_bits(id * 0.5));
      assert_int_equal(values[VAR_IDX][lane],
                       (wave & 1) ? 0x50000000u + id : (uint64_t)wave + 2 * lane);
      assert_int_equal(values[VAR_BASE][lane], 0x7f0000000000ull + wave * 0x1000ull);
      assert_int_equal(values[VAR_SPILLED][lane],
                       ((exec >> lane) & 1) ? 0x60000000u + id : 0x41000000u + id);
    }
  }
}

/* The state is rewritten per wave: going back to an earlier wave gives its
   values again, not those of the wave loaded last. */
static void test_waves_are_independent(void **state)
{
  gpu_stop *stop = *state;
  static uint64_t first[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  static uint64_t again[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  amddwarf_error err;
  assert_int_equal(gpu_stop_load_wave(stop, 5, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_variables(stop, first, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_load_wave(stop, 2000, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_variables(stop, again, &err), AMDDWARF_OK);
  assert_int_not_equal(again[VAR_COUNT][0], first[VAR_COUNT][0]);
  assert_int_equal(gpu_stop_load_wave(stop, 5, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_variables(stop, again, &err), AMDDWARF_OK);
  assert_memory_equal(first, again, sizeof first);
}

/* Every wave: the API path's frames (PC, CFA, address space) and every
   lane's value of every variable equal the direct path's, and the wave has
   no ninth frame. */
static void test_api_matches_direct(void **state)
{
  gpu_stop *stop = *state;
  static uint64_t direct[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  static uint64_t api[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  for (uint32_t wave = 0; wave < GPU_STOP_WAVES; wave++) {
    amddwarf_error err;
    gpu_stop_frame direct_frames[GPU_STOP_FRAMES], api_frames[GPU_STOP_FRAMES];
    size_t direct_count = 0, api_count = 0;
    amddwarf_wave *w = NULL;
    const amddwarf_frame *beyond = NULL;
    assert_int_equal(gpu_stop_load_wave(stop, wave, &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_backtrace(stop, direct_frames, &direct_count, &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_variables(stop, direct, &err), AMDDWARF_OK);
    /* The whole-wave evaluation of each variable gives every lane's value. */
    for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
      memset(api[v], 0xa5, sizeof api[v]);
      assert_int_equal(gpu_stop_wave_variable(stop, v, api[v], &err), AMDDWARF_OK);
      assert_memory_equal(api[v], direct[v], sizeof api[v]);
    }
    memset(api_frames, 0xa5, sizeof api_frames);
    memset(api, 0xa5, sizeof api);
    assert_int_equal(gpu_stop_api_open(stop, &w, &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_api_backtrace(w, api_frames, &api_count, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_wave_frame(w, GPU_STOP_FRAMES, &beyond, &err), AMDDWARF_END);
    assert_int_equal(gpu_stop_api_variables(w, api, &err), AMDDWARF_OK);
    amddwarf_wave_close(w);
    assert_int_equal(api_count, direct_count);
    assert_int_equal(api_count, GPU_STOP_FRAMES);
    for (size_t k = 0; k < api_count; k++) {
      assert_int_equal(api_frames[k].pc, direct_frames[k].pc);
      assert_int_equal(api_frames[k].cfa, direct_frames[k].cfa);
      assert_int_equal(api_frames[k].cfa_aspace, direct_frames[k].cfa_aspace);
    }
    if (memcmp(api, direct, sizeof api) != 0)
      for (size_t v = 0; v < GPU_STOP_VARIABLES; v++)
        for (uint32_t lane = 0; lane < GPU_STOP_LANES; lane++)
          if (api[v][lane] != direct[v][lane])
            fail_msg("wave %u, %s, lane %u: API 0x%llx, direct 0x%llx", wave,
                     gpu_stop_variable_name(v), lane, (unsigned long long)api[v][lane],
                     (unsigned long long)direct[v][lane]);
  }
}

/* amddwarf_valobj_read_lanes (whose plain lanes are read together) groups
   every lane with the lanes whose one-lane read gives the same text and
   state, and each group's value is its lowest lane's read. */
static void test_read_lanes_groups(void **state)
{
  gpu_stop *stop = *state;
  static const uint32_t waves[] = {3, 2046};
  for (size_t i = 0; i < sizeof waves / sizeof waves[0]; i++) {
    amddwarf_error err;
    amddwarf_wave *w = NULL;
    assert_int_equal(gpu_stop_load_wave(stop, waves[i], &err), AMDDWARF_OK);
    assert_int_equal(gpu_stop_api_open(stop, &w, &err), AMDDWARF_OK);
    for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
      amddwarf_valobj *value = NULL, *single = NULL;
      amddwarf_value_group groups[AMDDWARF_MAX_LANES];
      size_t count = 0;
      uint64_t seen = 0;
      assert_int_equal(amddwarf_valobj_new(w, 0, gpu_stop_variable_name(v), &value, &err),
                       AMDDWARF_OK);
      assert_int_equal(amddwarf_valobj_new(w, 0, gpu_stop_variable_name(v), &single, &err),
                       AMDDWARF_OK);
      assert_int_equal(amddwarf_valobj_read_lanes(value, UINT64_MAX, groups, AMDDWARF_MAX_LANES,
                                                  &count, &err),
                       AMDDWARF_OK);
      assert_true(count >= 1 && count <= AMDDWARF_MAX_LANES);
      for (size_t g = 0; g < count; g++) {
        assert_int_equal(seen & groups[g].mask, 0);
        seen |= groups[g].mask;
        assert_int_equal(groups[g].value.lane, (uint32_t)__builtin_ctzll(groups[g].mask));
        for (uint32_t lane = 0; lane < GPU_STOP_LANES; lane++) {
          if (!(groups[g].mask >> lane & 1))
            continue;
          amddwarf_lane_value read;
          assert_int_equal(amddwarf_valobj_read(single, lane, &read, &err), AMDDWARF_OK);
          assert_int_equal(read.state, groups[g].value.state);
          assert_string_equal(read.text, groups[g].value.text);
          assert_string_equal(read.message, groups[g].value.message);
          if (lane == groups[g].value.lane)
            assert_string_equal(read.explain, groups[g].value.explain);
        }
      }
      assert_int_equal(seen, UINT64_MAX);
      amddwarf_valobj_free(single);
      amddwarf_valobj_free(value);
    }
    amddwarf_wave_close(w);
  }
}

/* A workload sharing another's code object (one per thread of the
   MI300X-sized stop) loads and reads its waves as the owner does. */
static void test_sharing_code_object(void **state)
{
  gpu_stop *stop = *state, *shared = NULL;
  static uint64_t owner[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  static uint64_t sharer[GPU_STOP_VARIABLES][GPU_STOP_LANES];
  amddwarf_error err;
  size_t owner_size = 0, sharer_size = 0;
  assert_int_equal(gpu_stop_new_sharing(stop, &shared, &err), AMDDWARF_OK);
  assert_ptr_equal(gpu_stop_code_object(shared, &sharer_size),
                   gpu_stop_code_object(stop, &owner_size));
  assert_int_equal(gpu_stop_load_wave(stop, 9000, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_variables(stop, owner, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_load_wave(shared, 9000, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_load_wave(stop, 1, &err), AMDDWARF_OK);
  assert_int_equal(gpu_stop_variables(shared, sharer, &err), AMDDWARF_OK);
  assert_memory_equal(owner, sharer, sizeof owner);
  assert_int_equal(sharer[VAR_COUNT][0], 1000 + 9000);
  gpu_stop_free(shared);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variable_names),
      cmocka_unit_test(test_code_object),
      cmocka_unit_test(test_backtrace),
      cmocka_unit_test(test_variables_every_lane),
      cmocka_unit_test(test_waves_are_independent),
      cmocka_unit_test(test_api_matches_direct),
      cmocka_unit_test(test_read_lanes_groups),
      cmocka_unit_test(test_sharing_code_object),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
