/* The debugger layer's first question of a big code object: open the
 * object, open a wave stopped at a PC of its last unit, take its frames (up
 * to 8, amddwarf_wave_frame) and each frame's variables
 * (amddwarf_wave_variables: names, tags, declarations, locations at the
 * frame's PC). Each run opens the object afresh, so every run pays for the
 * first question of the unit; the median of RUNS runs is printed, split into
 * the open and the question.
 *
 * The peer, elfutils libdw (bench/peer_libdw_scopes.c, a program of its own:
 * libdw and libdwarf export functions of the same names), answers the same
 * question at the frames' PCs this program found: the unit from an index of
 * every unit's ranges built at open, dwarf_getscopes, and each scope's
 * variable and parameter children with their name, declaration line and
 * location at the PC. This program writes "name value" lines for it to
 * DEBUG_LAYER_FILE: its own medians and each frame's PC and variable count.
 *
 *   bench_debug_layer OBJECT ADDR OUT_FILE [RUNS]
 *
 * bench/debug_layer.sh runs both on one core and prints the ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/debug.h>
#include <amddwarf/object.h>
#include <amddwarf/snapshot.h>

#include "bench.h"

enum { MAX_FRAMES = 8 };

typedef struct question {
  size_t frames;
  uint64_t pcs[MAX_FRAMES];
  size_t vars[MAX_FRAMES];
} question;

/* One run: the object opened afresh, then the wave, its frames and their
   variables. *OPEN_NS and *QUESTION_NS get the two times. */
static int run_once(const char *path, const char *stop, question *q, double *open_ns,
                    double *question_ns)
{
  amddwarf_object *object = NULL;
  amddwarf_snapshot *snapshot = NULL;
  amddwarf_wave *wave = NULL;
  amddwarf_error err;
  amddwarf_target target;
  amddwarf_wave_options options;
  int rc = -1;
  if (amddwarf_snapshot_load(stop, strlen(stop), NULL, &snapshot, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_debug_layer: snapshot: %s\n", err.message);
    return -1;
  }
  amddwarf_snapshot_target(snapshot, &target);
  uint64_t t0 = bench_now_ns();
  if (amddwarf_object_open_file(path, NULL, &object, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_debug_layer: %s: %s\n", path, err.message);
    goto done;
  }
  uint64_t t1 = bench_now_ns();
  amddwarf_wave_options_init(&options);
  const amddwarf_object *objects[1] = {object};
  if (amddwarf_wave_open(objects, 1, &target, &options, &wave, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_debug_layer: wave: %s\n", err.message);
    goto done;
  }
  memset(q, 0, sizeof *q);
  for (size_t i = 0; i < MAX_FRAMES; ++i) {
    const amddwarf_frame *f = NULL;
    const amddwarf_frame_var *vars = NULL;
    size_t count = 0;
    if (amddwarf_wave_frame(wave, i, &f, NULL) != AMDDWARF_OK)
      break;
    if (amddwarf_wave_variables(wave, i, &vars, &count, &err) != AMDDWARF_OK) {
      fprintf(stderr, "bench_debug_layer: frame %zu: %s\n", i, err.message);
      goto done;
    }
    q->pcs[i] = f->object_pc;
    q->vars[i] = count;
    q->frames = i + 1;
  }
  uint64_t t2 = bench_now_ns();
  *open_ns = (double)(t1 - t0);
  *question_ns = (double)(t2 - t1);
  rc = 0;
done:
  amddwarf_wave_close(wave);
  amddwarf_object_close(object);
  amddwarf_snapshot_free(snapshot);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: bench_debug_layer OBJECT ADDR OUT_FILE [RUNS]\n");
    return 2;
  }
  const char *path = argv[1];
  uint64_t pc = strtoull(argv[2], NULL, 0);
  int runs = argc > 4 ? atoi(argv[4]) : 9;
  if (runs < 1 || runs > 101)
    runs = 9;
  /* A wave of gfx900 stopped at PC: frame base s33 = 0, stack s32 = 4096,
     lane 0's private memory from 0 holding 0, 1, 2, ... */
  char stop[2048];
  int n = snprintf(stop, sizeof stop,
                   "{\"architecture\": \"gfx900\", \"pc\": \"0x%llx\", \"exec\": 1, "
                   "\"registers\": {\"s33\": 0, \"s32\": 4096}, \"memory\": "
                   "[{\"address_space\": \"private_lane\", \"lane\": 0, \"address\": 0, "
                   "\"bytes\": \"",
                   (unsigned long long)pc);
  for (int i = 0; i < 256; ++i)
    n += snprintf(stop + n, sizeof stop - (size_t)n, "%02x", i);
  snprintf(stop + n, sizeof stop - (size_t)n, "\"}]}");
  double open_ns[101], question_ns[101];
  question q;
  for (int r = 0; r < runs; ++r)
    if (run_once(path, stop, &q, &open_ns[r], &question_ns[r]) != 0)
      return 1;
  double open_median = bench_median(open_ns, (size_t)runs);
  double question_median = bench_median(question_ns, (size_t)runs);
  FILE *out = fopen(argv[3], "w");
  if (out == NULL) {
    perror(argv[3]);
    return 1;
  }
  fprintf(out, "ours_open %.0f\nours_question %.0f\nframes %zu\n", open_median,
          question_median, q.frames);
  for (size_t i = 0; i < q.frames; ++i)
    fprintf(out, "pc%zu %llu\nvars%zu %zu\n", i, (unsigned long long)q.pcs[i], i, q.vars[i]);
  fclose(out);
  printf("amddwarf: open %.3f ms, wave + %zu frame(s) + variables %.3f ms (median of %d)\n",
         open_median / 1e6, q.frames, question_median / 1e6, runs);
  return 0;
}
