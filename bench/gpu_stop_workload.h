/* The "whole GPU stop" workload: every wave of a stopped GPU gets a backtrace
 * and the values of the variables in scope, for every lane, as a debugger
 * shows them after a stop of all 2,560 waves of a large GPU.
 *
 * The program (built once with amddwarf_build_json, 8 functions in .text at
 * 0x1000): the kernel level0 calls level1, which calls level2, ... level7,
 * where every wave stops. level1-6 keep a frame pointer in s33 (a
 * wave-scaled scratch offset), save their caller's v40 at their CFA in
 * private_wave memory, and keep their return address (s30:s31) and their
 * caller's s33 in lanes 0-2 of v40: their CFI reads the caller's PC as a
 * composite of two lanes of a VGPR that their own callee spilled at its CFA.
 * level7 is a leaf: CFA = s32, return address in s30:s31. The kernel's
 * return address is undefined, so a backtrace has 8 frames.
 *
 * level7 has 8 variables, one per kind of location (type, in brackets):
 *   lane_id  VGPR lane: regx v1; push_lane; lit4; mul; offset       [int]
 *   count    SGPR: regx s8                                           [int]
 *   slot     private_lane memory: fbreg 16                           [int]
 *   tile     local memory (LDS) at 0x100                             [int]
 *   sum      composite: the lane's dwords of v2 and v3, 4-byte pieces [double]
 *   idx      location list: v4's lane in [0x1700, 0x1780), fbreg 20 after [int]
 *   base     composite: s10 and s11, 4-byte pieces                   [global int *]
 *   spilled  v41 spilled to private_wave under EXEC
 *            (select_bit_piece 32 64), then the lane's dword          [int]
 * The frame base is the private_lane address s32 / 64.
 *
 * State: one snapshot (specs/snapshot.md) loaded from JSON holds a wave;
 * gpu_stop_load_wave rewrites its registers and scratch through the
 * snapshot target's write callbacks with values derived from the wave id
 * (as a debugger refills its register cache for the next wave), so the data
 * differ per wave and only one wave's state is in memory. For wave W, lane L,
 * with B = (W % 8) * 0x1000 (the wave's scratch base, wave-scaled):
 *   stop PC   0x1720 (W even) or 0x17a0 (W odd); EXEC = ~0 >> (W % 32)
 *   frame k   PC 0x1000 + 0x100 * (7 - k) + 0x84 for k >= 1 (the call site
 *             + 4); CFA B + 0x1000 * (7 - k) in private_wave
 *   lane_id   W * 64 + L          count  1000 + W
 *   slot      W * 0x10000 + L * 0x100 + 3
 *   tile      0x70000000 + W / 4  sum    (W * 64 + L) * 0.5
 *   idx       W + 2 * L (W even), 0x50000000 + W * 64 + L (W odd)
 *   base      0x7f0000000000 + W * 0x1000
 *   spilled   0x60000000 + W * 64 + L (EXEC lane), 0x41000000 + W * 64 + L (other)
 * tests/unit/test_gpu_stop.c checks these values.
 *
 * The same work has two paths: direct calls to the unwinder and the
 * evaluator (gpu_stop_backtrace, gpu_stop_variables), as a backend built on
 * <amddwarf/cfi.h> and <amddwarf/eval.h> makes them, and the debugger layer
 * <amddwarf/debug.h> (gpu_stop_api_*): a wave opened over the workload's one
 * code object and the snapshot target, its frames, and the variables of
 * frame 0 read as values per lane. Both give the same frames and values. */
#ifndef AMDDWARF_BENCH_GPU_STOP_WORKLOAD_H
#define AMDDWARF_BENCH_GPU_STOP_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/debug.h>
#include <amddwarf/status.h>

enum {
  GPU_STOP_WAVES = 2560,   /* 64 compute units x 40 waves: an MI60 full of waves */
  GPU_STOP_MI300X_WAVES = 304 * 4 * 8, /* 304 CUs x 4 SIMDs x 8 waves: 9,728 */
  GPU_STOP_LANES = 64,
  GPU_STOP_FRAMES = 8,
  GPU_STOP_VARIABLES = 8,
};

typedef struct gpu_stop gpu_stop;

typedef struct gpu_stop_frame {
  uint64_t pc;
  uint64_t cfa;
  uint32_t cfa_aspace;
} gpu_stop_frame;

/* Builds the program, opens its DWARF and CFI and loads the snapshot
   template. ERR (may be NULL) says what failed. */
amddwarf_status gpu_stop_new(gpu_stop **out, amddwarf_error *err);
void gpu_stop_free(gpu_stop *stop);

/* A workload of its own state (snapshot, evaluator) over CODE's code
   object, DWARF and CFI, which it borrows: one per thread of a stop read on
   several cores. Free it before CODE. */
amddwarf_status gpu_stop_new_sharing(const gpu_stop *code, gpu_stop **out, amddwarf_error *err);

/* The program's code object (valid until gpu_stop_free). */
const uint8_t *gpu_stop_code_object(const gpu_stop *stop, size_t *size);

/* Makes the snapshot hold wave WAVE's state. */
amddwarf_status gpu_stop_load_wave(gpu_stop *stop, uint32_t wave, amddwarf_error *err);
/* (Waves past GPU_STOP_WAVES, up to GPU_STOP_MI300X_WAVES, follow the same
   formulas.) */

/* The loaded wave's state as a snapshot document (amddwarf_snapshot_save:
   specs/snapshot.md, writes included); *JSON is malloc'ed, the caller's.
   bench/gpu_stop_write.c writes the whole stop from these. */
amddwarf_status gpu_stop_save_wave(const gpu_stop *stop, char **json, size_t *json_size,
                                   amddwarf_error *err);

/* Unwinds the loaded wave until the return address is undefined: FRAMES
   receives at most GPU_STOP_FRAMES frames, *COUNT their number. */
amddwarf_status gpu_stop_backtrace(gpu_stop *stop, gpu_stop_frame frames[GPU_STOP_FRAMES],
                                   size_t *count, amddwarf_error *err);

/* Finds the variables in scope at the loaded wave's PC, their sizes and
   location expressions (list entries chosen by the PC). */
amddwarf_status gpu_stop_scope(gpu_stop *stop, amddwarf_error *err);

/* The location expression gpu_stop_scope found for variable INDEX (its
   *SIZE bytes). */
const uint8_t *gpu_stop_variable_location(const gpu_stop *stop, size_t index, size_t *size);

/* Evaluates variable INDEX of the scope found last for every lane and reads
   its value into VALUES[lane] (little-endian bytes, zero-extended). */
amddwarf_status gpu_stop_variable(gpu_stop *stop, size_t index, uint64_t values[GPU_STOP_LANES],
                                  amddwarf_error *err);

/* As gpu_stop_variable, every lane at once by amddwarf_eval_read_lanes
   (the lane-independent work done once, the reads batched). A lane whose
   read fails is an error, as in gpu_stop_variable. */
amddwarf_status gpu_stop_wave_variable(gpu_stop *stop, size_t index,
                                       uint64_t values[GPU_STOP_LANES], amddwarf_error *err);

/* gpu_stop_scope, then gpu_stop_variable for each variable: every lane
   (active or not) of every variable in scope; VALUES[v][lane] receives
   variable v's value. */
amddwarf_status gpu_stop_variables(gpu_stop *stop,
                                   uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES],
                                   amddwarf_error *err);

/* Name of variable INDEX in the order of gpu_stop_variables ("lane_id"). */
const char *gpu_stop_variable_name(size_t index);

/* ---- The same work through the debugger layer ---- */

/* Opens the loaded wave with amddwarf_wave_open over the workload's code
   object and snapshot target. *OUT is closed with amddwarf_wave_close before
   the next gpu_stop_load_wave (the wave reads the snapshot as it is). */
amddwarf_status gpu_stop_api_open(gpu_stop *stop, amddwarf_wave **out, amddwarf_error *err);

/* Frames 0.. of WAVE by amddwarf_wave_frame until AMDDWARF_END: FRAMES
   receives at most GPU_STOP_FRAMES frames (PC, CFA), *COUNT their number. */
amddwarf_status gpu_stop_api_backtrace(amddwarf_wave *wave,
                                       gpu_stop_frame frames[GPU_STOP_FRAMES], size_t *count,
                                       amddwarf_error *err);

/* Variable INDEX of frame 0 (in the order of gpu_stop_variable_name) as an
   amddwarf_valobj, all lanes read at once (amddwarf_valobj_read_bytes):
   VALUES[lane] receives its bytes
   (little-endian, zero-extended), as gpu_stop_variable gives them. A lane
   whose read is not a value is an error. */
amddwarf_status gpu_stop_api_variable(amddwarf_wave *wave, size_t index,
                                      uint64_t values[GPU_STOP_LANES], amddwarf_error *err);

/* gpu_stop_api_variable for every variable. */
amddwarf_status gpu_stop_api_variables(amddwarf_wave *wave,
                                       uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES],
                                       amddwarf_error *err);

#endif
