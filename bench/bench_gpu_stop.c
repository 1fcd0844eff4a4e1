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
 * <= 1.05, and the same in wall time. (amddwarf_valobj_read_bytes reads the
 * lanes with amddwarf_eval_read_lanes.)
 *
 * A third path, alternating with those two, makes the direct calls with
 * each variable evaluated and read for the whole wave at once
 * (amddwarf_eval_read_lanes): its table gives the time per lane of each
 * variable against gimli's per-lane time (with --peer) or the one-lane
 * direct calls of the same run; target <= 20 ns per lane on average.
 *
 * The one-lane rows of the first table are times inside the stop: each
 * variable's 64 lanes run once per wave, between the other variables, the
 * backtrace and the next wave's state load. The peer times each variable in
 * a loop of its own (bench/gimli: 200,000 evaluations, lane i mod 64, the
 * median of 9 runs). A further table times ours the same way, on a loaded
 * wave: like for like against the peer. A variable whose location differs
 * between the two stop PCs (idx) alternates an even and an odd wave every
 * 64 lanes, as the peer alternates its two expressions.
 *
 * Last, the MI300X-sized stop: 304 CUs x 4 SIMDs x 8 waves = 9,728 waves,
 * each loaded, unwound 8 frames and its 8 variables read for the whole
 * wave, on one thread (target: under 250 ms), then on one thread per core
 * (each pinned to its core), the threads sharing the one code object, DWARF
 * and CFI, each with its own snapshot and evaluator; wall time from the
 * start to the last join, medians of 5 stops. */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "gpu_stop_workload.h"

enum { REPEATS = 7, MI300X_REPEATS = 5, MAX_THREADS = 16 };

typedef struct phases {
  double load, backtrace, variables; /* ns over all waves */
  double cpu;                        /* thread CPU ns of backtrace + variables */
  double variables_cpu;              /* thread CPU ns of the variables */
  double per_variable[GPU_STOP_VARIABLES];
} phases;

/* The paths of the same work (gpu_stop_workload.h): direct calls lane by
   lane, the debugger layer, direct calls a whole wave at once. */
typedef enum path { DIRECT, API, WAVE, PATHS } path;

static uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES];

/* The loaded wave's backtrace and variables by direct calls: the
   unwinder, then the scope and each variable with the evaluator. */
static amddwarf_status direct_wave(gpu_stop *stop, gpu_stop_frame *frames, size_t *frame_count,
                                   phases *times, uint64_t *t2, uint64_t *c2, amddwarf_error *err)
{
  amddwarf_status st = gpu_stop_backtrace(stop, frames, frame_count, err);
  *t2 = bench_now_ns();
  *c2 = bench_thread_cpu_ns();
  if (st == AMDDWARF_OK)
    st = gpu_stop_scope(stop, err);
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++) {
    uint64_t start = bench_now_ns();
    st = gpu_stop_variable(stop, v, values[v], err);
    times->per_variable[v] += (double)(bench_now_ns() - start);
  }
  return st;
}

/* The direct calls with every variable evaluated and read for the whole
   wave at once (amddwarf_eval_read_lanes). */
static amddwarf_status whole_wave(gpu_stop *stop, gpu_stop_frame *frames, size_t *frame_count,
                                  phases *times, uint64_t *t2, uint64_t *c2, amddwarf_error *err)
{
  amddwarf_status st = gpu_stop_backtrace(stop, frames, frame_count, err);
  *t2 = bench_now_ns();
  *c2 = bench_thread_cpu_ns();
  if (st == AMDDWARF_OK)
    st = gpu_stop_scope(stop, err);
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++) {
    uint64_t start = times ? bench_now_ns() : 0;
    st = gpu_stop_wave_variable(stop, v, values[v], err);
    if (times)
      times->per_variable[v] += (double)(bench_now_ns() - start);
  }
  return st;
}

/* The same through <amddwarf/debug.h>: the wave opened and its frames
   taken (the backtrace), each variable of frame 0 as a value read per
   lane, the wave closed (the variables). */
static amddwarf_status api_wave(gpu_stop *stop, gpu_stop_frame *frames, size_t *frame_count,
                                phases *times, uint64_t *t2, uint64_t *c2, amddwarf_error *err)
{
  amddwarf_wave *wave = NULL;
  amddwarf_status st = gpu_stop_api_open(stop, &wave, err);
  if (st == AMDDWARF_OK)
    st = gpu_stop_api_backtrace(wave, frames, frame_count, err);
  *t2 = bench_now_ns();
  *c2 = bench_thread_cpu_ns();
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
  uint64_t t0 = bench_now_ns(), t2 = 0, c2 = 0;
  amddwarf_status st = gpu_stop_load_wave(stop, wave, &err);
  uint64_t c1 = bench_thread_cpu_ns(), t1 = bench_now_ns();
  if (st == AMDDWARF_OK)
    st = which == DIRECT ? direct_wave(stop, frames, &frame_count, times, &t2, &c2, &err)
         : which == API  ? api_wave(stop, frames, &frame_count, times, &t2, &c2, &err)
                         : whole_wave(stop, frames, &frame_count, times, &t2, &c2, &err);
  uint64_t t3 = bench_now_ns(), c3 = bench_thread_cpu_ns();
  if (st != AMDDWARF_OK || frame_count != GPU_STOP_FRAMES) {
    fprintf(stderr, "bench_gpu_stop: %s path, wave %u: %s (%zu frames)\n",
            which == DIRECT ? "direct" : which == API ? "debug.h" : "whole-wave", wave,
            st != AMDDWARF_OK ? err.message : "short backtrace", frame_count);
    return -1;
  }
  bench_consume(frames[GPU_STOP_FRAMES - 1].pc + values[GPU_STOP_VARIABLES - 1][wave % 64]);
  times->load += (double)(t1 - t0);
  times->backtrace += (double)(t2 - t1);
  times->variables += (double)(t3 - t2);
  times->cpu += (double)(c3 - c1);
  times->variables_cpu += (double)(c3 - c2);
  return 0;
}

/* One whole stop along each path, in round ROUND: the waves go by blocks
   of BLOCK, each block along every path in turn, the first path rotating
   from block to block, so that a change of the machine's load falls on
   every path alike while each path runs long enough to have its own code
   and data in the caches. TIMES[path] receives the phases. Returns 0, or
   -1 after printing the error. */
static int run_stops(gpu_stop *stop, int round, phases times[PATHS])
{
  enum { BLOCK = 32 };
  memset(times, 0, PATHS * sizeof *times);
  for (uint32_t block = 0; block < GPU_STOP_WAVES; block += BLOCK) {
    for (uint32_t k = 0; k < PATHS; k++) {
      path which = (path)((block / BLOCK + (uint32_t)round + k) % PATHS);
      for (uint32_t wave = block; wave < block + BLOCK && wave < GPU_STOP_WAVES; wave++)
        if (run_wave(stop, which, wave, &times[which]) != 0)
          return -1;
    }
  }
  return 0;
}

/* ---- one variable lane after lane, as the peer times it ---- */

enum { LOOP_EVALUATIONS = 200000, LOOP_REPEATS = 9 };

typedef struct lane_loop {
  gpu_stop *even, *odd; /* an even and an odd wave, loaded, scopes found */
  size_t variable;
  int alternate;        /* its location differs between the two waves' PCs */
  int failed;
} lane_loop;

static void run_lane_loop(void *arg)
{
  lane_loop *loop = arg;
  uint64_t lanes[GPU_STOP_LANES];
  amddwarf_error err;
  for (unsigned i = 0; i < LOOP_EVALUATIONS / GPU_STOP_LANES; i++) {
    gpu_stop *stop = loop->alternate && i % 2 ? loop->odd : loop->even;
    loop->failed |= gpu_stop_variable(stop, loop->variable, lanes, &err) != AMDDWARF_OK;
    bench_consume(lanes[i % GPU_STOP_LANES]);
  }
}

/* Wave WAVE loaded into STOP and its scope found. */
static int load_for_loop(gpu_stop *stop, uint32_t wave)
{
  amddwarf_error err;
  if (gpu_stop_load_wave(stop, wave, &err) != AMDDWARF_OK ||
      gpu_stop_scope(stop, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_gpu_stop: wave %u: %s\n", wave, err.message);
    return -1;
  }
  return 0;
}

/* Each variable's time per lane in the peer's loop, into PER_LANE; 0 or -1. */
static int lane_loops(gpu_stop *stop, double per_lane[GPU_STOP_VARIABLES])
{
  gpu_stop *odd = NULL;
  amddwarf_error err;
  if (gpu_stop_new_sharing(stop, &odd, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_gpu_stop: %s\n", err.message);
    return -1;
  }
  int failed = load_for_loop(stop, 0) || load_for_loop(odd, 1);
  for (size_t v = 0; v < GPU_STOP_VARIABLES && !failed; v++) {
    size_t even_size, odd_size;
    const uint8_t *even_bytes = gpu_stop_variable_location(stop, v, &even_size);
    const uint8_t *odd_bytes = gpu_stop_variable_location(odd, v, &odd_size);
    lane_loop loop = {stop, odd, v, even_size != odd_size ||
                                        memcmp(even_bytes, odd_bytes, even_size) != 0, 0};
    per_lane[v] = bench_median_ns(run_lane_loop, &loop, LOOP_REPEATS) /
                  (LOOP_EVALUATIONS / GPU_STOP_LANES * GPU_STOP_LANES);
    if (loop.failed) {
      fprintf(stderr, "bench_gpu_stop: %s does not read in the lane loop\n",
              gpu_stop_variable_name(v));
      failed = 1;
    }
  }
  gpu_stop_free(odd);
  return failed ? -1 : 0;
}

/* ---- the MI300X-sized stop: 9,728 waves, on one thread or several ---- */

typedef struct worker {
  gpu_stop *stop;
  int cpu;             /* the core the thread runs on, or -1: where it was put */
  uint32_t first, end; /* waves [FIRST, END) */
  uint64_t cpu_ns;     /* thread CPU time */
  int failed;
} worker;

/* Every wave of the worker's range: its state loaded, its backtrace, and
   its variables for the whole wave at once. */
static void *run_worker(void *arg)
{
  worker *w = arg;
  if (w->cpu >= 0) {
    /* One thread per core, past bench/run's taskset of one core. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    /* At normal priority: under chrt -f, this VM ran two real-time threads
       on its two cores one after the other (twice one thread's wall time). */
    struct sched_param normal = {0};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
  }
  uint64_t c0 = bench_thread_cpu_ns();
  for (uint32_t wave = w->first; wave < w->end && !w->failed; wave++) {
    gpu_stop_frame frames[GPU_STOP_FRAMES];
    size_t frame_count = 0;
    uint64_t wave_values[GPU_STOP_VARIABLES][GPU_STOP_LANES];
    amddwarf_error err;
    amddwarf_status st = gpu_stop_load_wave(w->stop, wave, &err);
    if (st == AMDDWARF_OK)
      st = gpu_stop_backtrace(w->stop, frames, &frame_count, &err);
    if (st == AMDDWARF_OK)
      st = gpu_stop_scope(w->stop, &err);
    for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++)
      st = gpu_stop_wave_variable(w->stop, v, wave_values[v], &err);
    if (st != AMDDWARF_OK || frame_count != GPU_STOP_FRAMES) {
      fprintf(stderr, "bench_gpu_stop: MI300X stop, wave %u: %s\n", wave,
              st != AMDDWARF_OK ? err.message : "short backtrace");
      w->failed = 1;
    }
    bench_consume(wave_values[GPU_STOP_VARIABLES - 1][wave % 64] + frames[0].pc);
  }
  w->cpu_ns = bench_thread_cpu_ns() - c0;
  return NULL;
}

/* The MI300X-sized stop on THREADS threads, each with a workload of its
   own over STOP's code object: the wall time from start to the last join
   (*CPU: the threads' CPU time added up), or -1 on failure. */
static double mi300x_stop(gpu_stop *stop, gpu_stop *const *sharers, unsigned threads, double *cpu)
{
  worker workers[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  uint64_t start = bench_now_ns();
  for (unsigned t = 0; t < threads; t++) {
    workers[t].stop = t == 0 ? stop : sharers[t];
    workers[t].first = (uint32_t)((uint64_t)GPU_STOP_MI300X_WAVES * t / threads);
    workers[t].end = (uint32_t)((uint64_t)GPU_STOP_MI300X_WAVES * (t + 1) / threads);
    workers[t].failed = 0;
    workers[t].cpu_ns = 0;
    workers[t].cpu = threads > 1 ? (int)t : -1;
    if (t > 0 && pthread_create(&ids[t], NULL, run_worker, &workers[t]) != 0)
      return -1;
  }
  cpu_set_t saved;
  int policy;
  struct sched_param priority;
  int restore = threads > 1 && pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0 &&
                pthread_getschedparam(pthread_self(), &policy, &priority) == 0;
  run_worker(&workers[0]);
  if (restore) {
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    pthread_setschedparam(pthread_self(), policy, &priority);
  }
  int failed = workers[0].failed;
  *cpu = (double)workers[0].cpu_ns;
  for (unsigned t = 1; t < threads; t++) {
    pthread_join(ids[t], NULL);
    failed |= workers[t].failed;
    *cpu += (double)workers[t].cpu_ns;
  }
  return failed ? -1 : (double)(bench_now_ns() - start);
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
  double total, load, backtrace, variables, cpu, variables_cpu;
  double per_variable[GPU_STOP_VARIABLES];
} summary;

static summary summarize(const phases runs[REPEATS])
{
  summary out;
  double total[REPEATS], load[REPEATS], backtrace[REPEATS], variables[REPEATS], cpu[REPEATS];
  double variables_cpu[REPEATS];
  for (int r = 0; r < REPEATS; r++) {
    total[r] = runs[r].load + runs[r].backtrace + runs[r].variables;
    load[r] = runs[r].load;
    backtrace[r] = runs[r].backtrace;
    variables[r] = runs[r].variables;
    cpu[r] = runs[r].cpu;
    variables_cpu[r] = runs[r].variables_cpu;
  }
  out.variables_cpu = median(variables_cpu, REPEATS);
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
  static phases runs[PATHS][REPEATS];
  int failed = 0;
  for (int r = 0; r < REPEATS && !failed; r++) {
    phases round[PATHS];
    failed = run_stops(stop, r, round);
    for (int p = 0; p < PATHS; p++)
      runs[p][r] = round[p];
  }
  if (failed) {
    gpu_stop_free(stop);
    return 1;
  }
  summary direct = summarize(runs[DIRECT]), api = summarize(runs[API]);
  summary wave = summarize(runs[WAVE]);
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

  /* The whole wave at once against one lane at a time: with --peer, gimli's
     per-lane time of the standard-subset form; else the one-lane direct
     calls of the same run. */
  const char *lane_peer = peer_lane >= 0 ? peer_name : "one lane at a time, same run";
  double wave_mean = 0, lane_mean = 0;
  bench_print_header("whole GPU stop, a whole wave at once: amddwarf_eval_read_lanes for the 64 "
                     "lanes of each variable (time per lane)");
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    char name[64];
    snprintf(name, sizeof name, "gpu_stop_%s", gpu_stop_variable_name(v));
    double per_lane = direct.per_variable[v] / (waves * GPU_STOP_LANES);
    double peer = peer_lane >= 0 ? bench_peer_time(peer_path, name) : per_lane;
    wave_mean += wave.per_variable[v] / (waves * GPU_STOP_LANES) / GPU_STOP_VARIABLES;
    lane_mean += peer / GPU_STOP_VARIABLES;
    snprintf(name, sizeof name, "  %s, per lane of a wave", gpu_stop_variable_name(v));
    bench_print_row(name, wave.per_variable[v] / (waves * GPU_STOP_LANES), lane_peer, peer,
                    "lane");
  }
  bench_print_row("one variable per lane, mean of the 8 (target <= 20 ns)", wave_mean, lane_peer,
                  lane_mean, "lane");
  bench_print_row("  the same in thread CPU time (one lane at a time: peer)",
                  wave.variables_cpu / lane_evaluations, "one lane at a time, same run",
                  direct.variables_cpu / lane_evaluations, "lane");
  bench_print_row("8 variables x 64 lanes", wave.variables / waves, lane_peer,
                  lane_mean * GPU_STOP_VARIABLES * GPU_STOP_LANES, "wave");
  bench_print_row("whole stop (load + backtrace + variables)", wave.total,
                  "one lane at a time, same run", direct.total, "stop");

  /* Like for like with the peer: each variable in a loop of its own. */
  double loop_lane[GPU_STOP_VARIABLES], loop_mean = 0;
  if (lane_loops(stop, loop_lane) != 0) {
    gpu_stop_free(stop);
    return 1;
  }
  bench_print_header("whole GPU stop, one variable lane after lane: each variable timed as the "
                     "peer times it (200000 evaluations, lane i mod 64, median of 9)");
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    char name[64];
    snprintf(name, sizeof name, "gpu_stop_%s", gpu_stop_variable_name(v));
    double peer = bench_peer_time(peer_path, name);
    loop_mean += loop_lane[v] / GPU_STOP_VARIABLES;
    snprintf(name, sizeof name, "  %s, lane after lane", gpu_stop_variable_name(v));
    bench_print_row(name, loop_lane[v], peer_name, peer, "eval");
  }
  bench_print_row("one variable, one lane, mean of the 8", loop_mean, peer_name, peer_lane,
                  "eval");

  /* The MI300X-sized stop: one thread, then one per core, the threads
     sharing the one code object. */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned max_threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (unsigned)cores;
  gpu_stop *sharers[MAX_THREADS] = {NULL};
  double mi300x_wall[MAX_THREADS + 1] = {0}, mi300x_cpu[MAX_THREADS + 1] = {0};
  for (unsigned t = 1; t < max_threads && !failed; t++)
    failed = gpu_stop_new_sharing(stop, &sharers[t], &err) != AMDDWARF_OK;
  for (unsigned threads = 1; threads <= max_threads && !failed;
       threads = threads == max_threads ? max_threads + 1 : max_threads) {
    double wall[MI300X_REPEATS], cpu[MI300X_REPEATS];
    for (int r = 0; r < MI300X_REPEATS && !failed; r++) {
      wall[r] = mi300x_stop(stop, sharers, threads, &cpu[r]);
      failed = wall[r] < 0;
    }
    if (!failed) {
      mi300x_wall[threads] = median(wall, MI300X_REPEATS);
      mi300x_cpu[threads] = median(cpu, MI300X_REPEATS);
    }
  }
  for (unsigned t = 1; t < max_threads; t++)
    gpu_stop_free(sharers[t]);
  if (failed) {
    gpu_stop_free(stop);
    return 1;
  }
  bench_print_header("MI300X-sized stop: 304 CUs x 4 SIMDs x 8 waves = 9728 waves x 64 lanes, "
                     "8 frames, 8 variables, whole-wave evaluation");
  bench_print_row("MI300X stop, 1 thread (wall)", mi300x_wall[1], "-", -1, "stop");
  bench_print_row("MI300X stop, 1 thread (thread CPU)", mi300x_cpu[1], "-", -1, "stop");
  if (max_threads > 1) {
    char name[80];
    snprintf(name, sizeof name, "MI300X stop, %u threads (wall)", max_threads);
    bench_print_row(name, mi300x_wall[max_threads], "1 thread, same run", mi300x_wall[1],
                    "stop");
  }
  printf("\nwhole wave at once: %.1f ns per lane, mean of the 8 variables (target <= 20 ns; "
         "%.1f ns in thread CPU time); "
         "MI300X-sized stop (9728 waves): %.0f ms wall, %.0f ms thread CPU on one core "
         "(target < 250 ms)",
         wave_mean, wave.variables_cpu / lane_evaluations, mi300x_wall[1] / 1e6,
         mi300x_cpu[1] / 1e6);
  if (max_threads > 1)
    printf("; %u threads sharing the code object: %.0f ms wall (%.2fx), %.0f ms CPU in all",
           max_threads, mi300x_wall[max_threads] / 1e6,
           mi300x_wall[1] / mi300x_wall[max_threads], mi300x_cpu[max_threads] / 1e6);
  printf(" (medians of %d stops)\n", MI300X_REPEATS);

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
