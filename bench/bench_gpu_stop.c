/* Whole GPU stop: 2,560 waves x 64 lanes; per wave an 8-frame backtrace
 * with the unwinder and the 8 variables of the innermost frame evaluated and
 * read for all 64 lanes (active or not), through the snapshot target
 * (gpu_stop_workload.h describes the program and the state). Target: the
 * whole stop in under one second on one core.
 *
 *   bench_gpu_stop [BENCH_DIR]        our times
 *   bench_gpu_stop --peer RESULTS     also gimli's (bench/peer_gimli.sh)
 *
 * Per wave the time splits into loading its state into the snapshot (the
 * stand-in for a debugger reading the registers of the next wave), the
 * backtrace and the variables. The peer, gimli 0.27, evaluates the
 * standard-subset equivalent of each variable's location for one lane
 * (bench/gimli/src/main.rs: it has no lane, address-space or
 * select_bit_piece operations, so it does less); its per-lane time is scaled
 * to the stop. No peer unwinds this CFI (elfutils' dwarf_cfi_addrframe
 * fails at every PC of it, gimli 0.27 has no DW_CFA_LLVM_* instruction);
 * bench_cfi compares unwind steps with elfutils on x86-64.
 *
 * The same stop is also made through the debugger layer <amddwarf/debug.h>
 * (per wave amddwarf_wave_open, amddwarf_wave_frame for frames 0-7, and
 * amddwarf_valobj_new + amddwarf_valobj_read_bytes of frame 0's variables
 * for all 64 lanes), in the same process, the two paths alternating by
 * blocks of 32 waves. Its table puts the direct calls in the peer column
 * (ratio = direct / API); the last line gives API / direct for backtrace +
 * variables, the median of the rounds' ratios in thread CPU time (time the
 * scheduler gives other processes counts for neither path), which must stay
 * <= 1.05, and the same in wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu_stop_workload.h"

enum { REPEATS = 7 };

typedef struct phases {
  double load, backtrace, variables; /* ns over all waves */
  double cpu;                        /* thread CPU ns of backtrace + variables */
  double per_variable[GPU_STOP_VARIABLES];
} phases;

/* The two paths of the same work (gpu_stop_workload.h). */
typedef enum path { DIRECT, API } path;

static uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES];

/* The loaded wave's backtrace and variables by direct calls: the
   unwinder, then the scope and each variable with the evaluator. */
static amddwarf_status direct_wave(gpu_stop *stop, gpu_stop_frame *frames, size_t *frame_count,
                                   phases *times, uint64_t *t2, amddwarf_error *err)
{
  amddwarf_status st = gpu_stop_backtrace(stop, frames, frame_count, err);
  *t2 = bench_now_ns();
  if (st == AMDDWARF_OK)
    st = gpu_stop_scope(stop, err);
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++) {
    uint64_t start = bench_now_ns();
    st = gpu_stop_variable(stop, v, values[v], err);
    times->per_variable[v] += (double)(bench_now_ns() - start);
  }
  return st;
}

/* The same through <amddwarf/debug.h>: the wave opened and its frames
   taken (the backtrace), each variable of frame 0 as a value read per
   lane, the wave closed (the variables). */
static amddwarf_status api_wave(gpu_stop *stop, gpu_stop_frame *frames, size_t *frame_count,
                                phases *times, uint64_t *t2, amddwarf_error *err)
{
  amddwarf_wave *wave = NULL;
  amddwarf_status st = gpu_stop_api_open(stop, &wave, err);
  if (st == AMDDWARF_OK)
    st = gpu_stop_api_backtrace(wave, frames, frame_count, err);
  *t2 = bench_now_ns();
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++) {
    uint64_t start = bench_now_ns();
    st = gpu_stop_api_variable(wave, v, values[v], err);
    times->per_variable[v] += (double)(bench_now_ns() - start);
  }
  amddwarf_wave_close(wave);
  return st;
}

/* Wave WAVE along PATH: its state loaded, then its backtrace and
   variables; the phases' times are added to *TIMES. Returns 0, or -1 after
   printing the error. */
static int run_wave(gpu_stop *stop, path which, uint32_t wave, phases *times)
{
  gpu_stop_frame frames[GPU_STOP_FRAMES];
  size_t frame_count = 0;
  amddwarf_error err;
  uint64_t t0 = bench_now_ns(), t2 = 0;
  amddwarf_status st = gpu_stop_load_wave(stop, wave, &err);
  uint64_t c1 = bench_thread_cpu_ns(), t1 = bench_now_ns();
  if (st == AMDDWARF_OK)
    st = which == DIRECT ? direct_wave(stop, frames, &frame_count, times, &t2, &err)
                         : api_wave(stop, frames, &frame_count, times, &t2, &err);
  uint64_t t3 = bench_now_ns(), c3 = bench_thread_cpu_ns();
  if (st != AMDDWARF_OK || frame_count != GPU_STOP_FRAMES) {
    fprintf(stderr, "bench_gpu_stop: %s path, wave %u: %s (%zu frames)\n",
            which == DIRECT ? "direct" : "debug.h", wave,
            st != AMDDWARF_OK ? err.message : "short backtrace", frame_count);
    return -1;
  }
  bench_consume(frames[GPU_STOP_FRAMES - 1].pc + values[GPU_STOP_VARIABLES - 1][wave % 64]);
  times->load += (double)(t1 - t0);
  times->backtrace += (double)(t2 - t1);
  times->variables += (double)(t3 - t2);
  times->cpu += (double)(c3 - c1);
  return 0;
}

/* One whole stop along each path, in round ROUND: the waves go by blocks
   of BLOCK, each block along one path and then along the other, the first
   path alternating from block to block, so that a change of the machine's
   load falls on both paths alike while each path runs long enough to have
   its own code and data in the caches. TIMES[path] receives the phases.
   Returns 0, or -1 after printing the error. */
static int run_stops(gpu_stop *stop, int round, phases times[2])
{
  enum { BLOCK = 32 };
  memset(times, 0, 2 * sizeof *times);
  for (uint32_t block = 0; block < GPU_STOP_WAVES; block += BLOCK) {
    path first = (block / BLOCK + (uint32_t)round) % 2 ? API : DIRECT;
    for (int k = 0; k < 2; k++) {
      path which = k == 0 ? first : (first == API ? DIRECT : API);
      for (uint32_t wave = block; wave < block + BLOCK && wave < GPU_STOP_WAVES; wave++)
        if (run_wave(stop, which, wave, &times[which]) != 0)
          return -1;
    }
  }
  return 0;
}

static int compare_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *samples, size_t count)
{
  qsort(samples, count, sizeof *samples, compare_double);
  return samples[count / 2];
}

/* Medians of each phase over the REPEATS stops of one path. */
typedef struct summary {
  double total, load, backtrace, variables, cpu;
  double per_variable[GPU_STOP_VARIABLES];
} summary;

static summary summarize(const phases runs[REPEATS])
{
  summary out;
  double total[REPEATS], load[REPEATS], backtrace[REPEATS], variables[REPEATS], cpu[REPEATS];
  for (int r = 0; r < REPEATS; r++) {
    total[r] = runs[r].load + runs[r].backtrace + runs[r].variables;
    load[r] = runs[r].load;
    backtrace[r] = runs[r].backtrace;
    variables[r] = runs[r].variables;
    cpu[r] = runs[r].cpu;
  }
  out.total = median(total, REPEATS);
  out.load = median(load, REPEATS);
  out.backtrace = median(backtrace, REPEATS);
  out.variables = median(variables, REPEATS);
  out.cpu = median(cpu, REPEATS);
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    double samples[REPEATS];
    for (int r = 0; r < REPEATS; r++)
      samples[r] = runs[r].per_variable[v];
    out.per_variable[v] = median(samples, REPEATS);
  }
  return out;
}

int main(int argc, char **argv)
{
  const char *peer_path = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc)
      peer_path = argv[++i];

  gpu_stop *stop;
  amddwarf_error err;
  if (gpu_stop_new(&stop, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_gpu_stop: %s\n", err.message);
    return 1;
  }
  static phases runs[2][REPEATS];
  int failed = 0;
  for (int r = 0; r < REPEATS && !failed; r++) {
    phases round[2];
    failed = run_stops(stop, r, round);
    runs[DIRECT][r] = round[DIRECT];
    runs[API][r] = round[API];
  }
  if (failed) {
    gpu_stop_free(stop);
    return 1;
  }
  summary direct = summarize(runs[DIRECT]), api = summarize(runs[API]);
  /* API / direct of each round, in thread CPU time (the requirement) and
     in wall time: their medians, and the CPU ratio's range. */
  double cpu_ratio[REPEATS], wall_ratio[REPEATS], cpu_low = 0, cpu_high = 0;
  for (int r = 0; r < REPEATS; r++) {
    cpu_ratio[r] = runs[API][r].cpu / runs[DIRECT][r].cpu;
    wall_ratio[r] = (runs[API][r].backtrace + runs[API][r].variables) /
                    (runs[DIRECT][r].backtrace + runs[DIRECT][r].variables);
    cpu_low = r == 0 || cpu_ratio[r] < cpu_low ? cpu_ratio[r] : cpu_low;
    cpu_high = r == 0 || cpu_ratio[r] > cpu_high ? cpu_ratio[r] : cpu_high;
  }
  double cpu_median = median(cpu_ratio, REPEATS), wall_median = median(wall_ratio, REPEATS);
  const double waves = GPU_STOP_WAVES;
  const double lane_evaluations = waves * GPU_STOP_VARIABLES * GPU_STOP_LANES;
  double peer_lane = bench_peer_time(peer_path, "gpu_stop_lane_eval");
  const char *peer_name = peer_lane >= 0 ? "gimli 0.27, standard subset" : "-";

  bench_print_header("whole GPU stop: 2560 waves x 64 lanes, 8 variables, 8 frames");
  bench_print_row("whole stop (load + backtrace + variables)", direct.total, "-", -1, "stop");
  bench_print_row("backtrace + variables, all waves", direct.backtrace + direct.variables, "-",
                  -1, "stop");
  bench_print_row("wave state load (snapshot writes)", direct.load / waves, "-", -1, "wave");
  bench_print_row("backtrace, 8 frames (unwinder)", direct.backtrace / waves,
                  "- (no peer reads this CFI)", -1, "wave");
  bench_print_row("8 variables x 64 lanes", direct.variables / waves, peer_name,
                  peer_lane >= 0 ? peer_lane * GPU_STOP_VARIABLES * GPU_STOP_LANES : -1, "wave");
  bench_print_row("one variable, one lane (location + read)", direct.variables / lane_evaluations,
                  peer_name, peer_lane, "eval");
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    char name[64];
    snprintf(name, sizeof name, "gpu_stop_%s", gpu_stop_variable_name(v));
    double peer = bench_peer_time(peer_path, name);
    snprintf(name, sizeof name, "  %s, one lane", gpu_stop_variable_name(v));
    bench_print_row(name, direct.per_variable[v] / (waves * GPU_STOP_LANES), peer_name, peer,
                    "eval");
  }

  /* The debugger layer against the direct calls of the same run: ours is
     the API's time, the "peer" the direct calls', so the ratio is direct /
     API (below 1: the layer costs that much more). */
  const char *direct_name = "direct calls, same run";
  bench_print_header("whole GPU stop through debug.h: the table above via amddwarf_wave + "
                     "amddwarf_valobj");
  bench_print_row("whole stop (load + backtrace + variables)", api.total, direct_name,
                  direct.total, "stop");
  bench_print_row("backtrace + variables, all waves", api.backtrace + api.variables,
                  direct_name, direct.backtrace + direct.variables, "stop");
  bench_print_row("backtrace + variables, thread CPU time", api.cpu, direct_name, direct.cpu,
                  "stop");
  bench_print_row("backtrace, 8 frames (wave_open + wave_frame)", api.backtrace / waves,
                  direct_name, direct.backtrace / waves, "wave");
  bench_print_row("8 variables x 64 lanes (valobj, read_bytes)", api.variables / waves,
                  direct_name, direct.variables / waves, "wave");
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    char name[64];
    snprintf(name, sizeof name, "  %s, one lane", gpu_stop_variable_name(v));
    bench_print_row(name, api.per_variable[v] / (waves * GPU_STOP_LANES), direct_name,
                    direct.per_variable[v] / (waves * GPU_STOP_LANES), "eval");
  }

  printf("\nwhole GPU stop: %.0f ms on one core (target < 1000 ms): state load %.0f ms, "
         "backtraces %.0f ms, variables %.0f ms (medians of %d stops)\n",
         direct.total / 1e6, direct.load / 1e6, direct.backtrace / 1e6, direct.variables / 1e6,
         REPEATS);
  printf("through debug.h: %.0f ms: backtraces %.0f ms, variables %.0f ms; backtrace + "
         "variables API / direct = %.3f in thread CPU time (requirement <= 1.05; %.3f-%.3f in "
         "the %d rounds), %.3f in wall time (medians of the rounds' ratios)\n",
         api.total / 1e6, api.backtrace / 1e6, api.variables / 1e6, cpu_median, cpu_low, cpu_high,
         REPEATS, wall_median);
  gpu_stop_free(stop);
  return 0;
}
