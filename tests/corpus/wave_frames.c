/* Test-only helper of tests/corpus/test_wave_frames.py: the frames the
 * debugger layer (<amddwarf/debug.h>) makes of the innermost physical frame
 * of a wave stopped at each PC read from stdin (one per line, 0x hex or
 * decimal), printed for a comparison with llvm-symbolizer-19 --inlining.
 *
 * usage: wave_frames OBJECT < PCS
 *
 * For each PC: one line per frame, innermost first,
 *   frame INDEX PHYSICAL INLINE_DEPTH FUNCTION FILE LINE COLUMN
 * (tab-separated; "??" for no function or file), then "end 0xPC STATUS"
 * with the status that ended the list: "ok" when the last frame is the
 * physical frame's function (inline depth 0), else the status name of
 * amddwarf_wave_frame. The wave is opened over an empty wave64 snapshot
 * with the PC given as an option, so frames past the physical frame's
 * function (which need registers to unwind) are never asked for.
 *
 * Exit status: 0, or 1 when the object cannot be opened. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/debug.h>
#include <amddwarf/object.h>
#include <amddwarf/snapshot.h>

static const char empty_wave[] = "{\"wave_size\": 64}";

static void print_frames(const amddwarf_object *object, const amddwarf_target *raw, uint64_t pc)
{
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.has_pc = 1;
  options.pc = pc;
  amddwarf_wave *wave = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_wave_open(&object, 1, raw, &options, &wave, &err);
  if (st != AMDDWARF_OK) {
    printf("end 0x%" PRIx64 " %s\n", pc, amddwarf_status_name(st));
    return;
  }
  const amddwarf_frame *f = NULL;
  /* Frame I + 1 belongs to the same physical frame only while frame I is
     an inlined subroutine. */
  for (size_t i = 0;; ++i) {
    st = amddwarf_wave_frame(wave, i, &f, &err);
    if (st != AMDDWARF_OK)
      break;
    printf("frame\t%zu\t%zu\t%u\t%s\t%s\t%u\t%u\n", f->index, f->physical,
           (unsigned)f->inline_depth, f->function_name ? f->function_name : "??",
           f->file ? f->file : "??", (unsigned)f->line, (unsigned)f->column);
    if (f->inline_depth == 0)
      break;
  }
  printf("end 0x%" PRIx64 " %s\n", pc, st == AMDDWARF_OK ? "ok" : amddwarf_status_name(st));
  amddwarf_wave_close(wave);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: wave_frames OBJECT < PCS\n");
    return 2;
  }
  amddwarf_object *object = NULL;
  amddwarf_snapshot *snap = NULL;
  amddwarf_error err;
  int status = 1;
  if (amddwarf_object_open_file(argv[1], NULL, &object, &err) != AMDDWARF_OK ||
      amddwarf_snapshot_load(empty_wave, sizeof empty_wave - 1, NULL, &snap, &err) !=
          AMDDWARF_OK) {
    fprintf(stderr, "wave_frames: %s\n", err.message);
    goto done;
  }
  amddwarf_target raw;
  amddwarf_snapshot_target(snap, &raw);
  char line[128];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char *end = NULL;
    uint64_t pc = strtoull(line, &end, 0);
    if (end == line)
      continue;
    print_frames(object, &raw, pc);
  }
  status = fflush(stdout) == 0 ? 0 : 1;
done:
  amddwarf_snapshot_free(snap);
  amddwarf_object_close(object);
  return status;
}
