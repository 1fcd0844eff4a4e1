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
 * bench_cfi compares unwind steps with elfutils on x86-64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu_stop_workload.h"

enum { REPEATS = 5 };

typedef struct phases {
  double load, backtrace, variables; /* ns over all waves */
  double per_variable[GPU_STOP_VARIABLES];
} phases;

static uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES];

/* One whole stop; the phases' times go to *TIMES. Returns 0, or -1 after
   printing the error. */
static int run_stop(gpu_stop *stop, phases *times)
{
  memset(times, 0, sizeof *times);
  for (uint32_t wave = 0; wave < GPU_STOP_WAVES; wave++) {
    gpu_stop_frame frames[GPU_STOP_FRAMES];
    size_t frame_count = 0;
    amddwarf_error err;
    uint64_t t0 = bench_now_ns();
    amddwarf_status st = gpu_stop_load_wave(stop, wave, &err);
    uint64_t t1 = bench_now_ns();
    if (st == AMDDWARF_OK)
      st = gpu_stop_backtrace(stop, frames, &frame_count, &err);
    uint64_t t2 = bench_now_ns();
    if (st == AMDDWARF_OK)
      st = gpu_stop_scope(stop, &err);
    for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++) {
      uint64_t start = bench_now_ns();
      st = gpu_stop_variable(stop, v, values[v], &err);
      times->per_variable[v] += (double)(bench_now_ns() - start);
    }
    uint64_t t3 = bench_now_ns();
    if (st != AMDDWARF_OK || frame_count != GPU_STOP_FRAMES) {
      fprintf(stderr, "bench_gpu_stop: wave %u: %s (%zu frames)\n", wave,
              st != AMDDWARF_OK ? err.message : "short backtrace", frame_count);
      return -1;
    }
    bench_consume(frames[GPU_STOP_FRAMES - 1].pc + values[GPU_STOP_VARIABLES - 1][wave % 64]);
    times->load += (double)(t1 - t0);
    times->backtrace += (double)(t2 - t1);
    times->variables += (double)(t3 - t2);
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
  phases runs[REPEATS];
  int failed = 0;
  for (int r = 0; r < REPEATS && !failed; r++)
    failed = run_stop(stop, &runs[r]);
  if (failed) {
    gpu_stop_free(stop);
    return 1;
  }
  double load[REPEATS], backtrace[REPEATS], variables[REPEATS], total[REPEATS];
  for (int r = 0; r < REPEATS; r++) {
    load[r] = runs[r].load;
    backtrace[r] = runs[r].backtrace;
    variables[r] = runs[r].variables;
    total[r] = runs[r].load + runs[r].backtrace + runs[r].variables;
  }
  const double waves = GPU_STOP_WAVES;
  const double lane_evaluations = waves * GPU_STOP_VARIABLES * GPU_STOP_LANES;
  double total_ns = median(total, REPEATS);
  double load_ns = median(load, REPEATS);
  double backtrace_ns = median(backtrace, REPEATS);
  double variables_ns = median(variables, REPEATS);
  double peer_lane = bench_peer_time(peer_path, "gpu_stop_lane_eval");
  const char *peer_name = peer_lane >= 0 ? "gimli 0.27, standard subset" : "-";

  bench_print_header("whole GPU stop: 2560 waves x 64 lanes, 8 variables, 8 frames");
  bench_print_row("whole stop (load + backtrace + variables)", total_ns, "-", -1, "stop");
  bench_print_row("backtrace + variables, all waves", backtrace_ns + variables_ns, "-", -1,
                  "stop");
  bench_print_row("wave state load (snapshot writes)", load_ns / waves, "-", -1, "wave");
  bench_print_row("backtrace, 8 frames (unwinder)", backtrace_ns / waves,
                  "- (no peer reads this CFI)", -1, "wave");
  bench_print_row("8 variables x 64 lanes", variables_ns / waves, peer_name,
                  peer_lane >= 0 ? peer_lane * GPU_STOP_VARIABLES * GPU_STOP_LANES : -1, "wave");
  bench_print_row("one variable, one lane (location + read)", variables_ns / lane_evaluations,
                  peer_name, peer_lane, "eval");
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    double samples[REPEATS];
    char name[64];
    for (int r = 0; r < REPEATS; r++)
      samples[r] = runs[r].per_variable[v];
    snprintf(name, sizeof name, "gpu_stop_%s", gpu_stop_variable_name(v));
    double peer = bench_peer_time(peer_path, name);
    snprintf(name, sizeof name, "  %s, one lane", gpu_stop_variable_name(v));
    bench_print_row(name, median(samples, REPEATS) / (waves * GPU_STOP_LANES), peer_name, peer,
                    "eval");
  }
  printf("\nwhole GPU stop: %.0f ms on one core (target < 1000 ms): state load %.0f ms, "
         "backtraces %.0f ms, variables %.0f ms (medians of %d stops)\n",
         total_ns / 1e6, load_ns / 1e6, backtrace_ns / 1e6, variables_ns / 1e6, REPEATS);
  gpu_stop_free(stop);
  return 0;
}
