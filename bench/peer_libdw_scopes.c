/* elfutils libdw as the peer of bench_debug_layer: the same first question
 * of a freshly opened object, at the frame PCs that program found (read from
 * its OUT_FILE): for each PC, the unit holding it (an index of every unit's
 * dwarf_ranges, built at open: libdw 0.188's dwarf_addrdie needs
 * .debug_aranges, which clang-19 does not emit), dwarf_getscopes, then each
 * scope's DW_TAG_variable and DW_TAG_formal_parameter children with their
 * name (dwarf_diename), declaration line (dwarf_decl_line) and location at
 * the PC (dwarf_getlocation_addr on DW_AT_location). Prints both programs'
 * medians, the variable counts side by side, and ours / libdw.
 *
 *   peer_libdw_scopes OBJECT OUT_FILE [RUNS] */
#define _POSIX_C_SOURCE 200809L
#include <dwarf.h> /* elfutils: the peer's own constants */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

enum { MAX_FRAMES = 8 };

typedef struct unit_range {
  Dwarf_Addr low, high;
  Dwarf_Off die_offset;
} unit_range;

typedef struct index {
  unit_range *ranges;
  size_t count, capacity;
} index;

static int compare_ranges(const void *a, const void *b)
{
  const unit_range *x = a, *y = b;
  return (x->low > y->low) - (x->low < y->low);
}

static int add_range(index *ix, Dwarf_Addr low, Dwarf_Addr high, Dwarf_Off die)
{
  if (ix->count == ix->capacity) {
    size_t capacity = ix->capacity ? ix->capacity * 2 : 256;
    unit_range *grown = realloc(ix->ranges, capacity * sizeof *grown);
    if (grown == NULL)
      return -1;
    ix->ranges = grown;
    ix->capacity = capacity;
  }
  ix->ranges[ix->count++] = (unit_range){low, high, die};
  return 0;
}

/* Every unit's PC ranges, sorted by low address. */
static int build_index(Dwarf *dwarf, index *ix)
{
  Dwarf_Off offset = 0, next;
  size_t header_size;
  while (dwarf_nextcu(dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
    Dwarf_Die unit;
    Dwarf_Addr base, low, high;
    ptrdiff_t at = 0;
    if (dwarf_offdie(dwarf, offset + header_size, &unit) != NULL)
      while ((at = dwarf_ranges(&unit, at, &base, &low, &high)) > 0)
        if (add_range(ix, low, high, offset + header_size) != 0)
          return -1;
    offset = next;
  }
  qsort(ix->ranges, ix->count, sizeof *ix->ranges, compare_ranges);
  return 0;
}

static Dwarf_Die *unit_at(Dwarf *dwarf, const index *ix, Dwarf_Addr pc, Dwarf_Die *unit)
{
  size_t low = 0, high = ix->count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (ix->ranges[mid].low <= pc)
      low = mid + 1;
    else
      high = mid;
  }
  if (low == 0 || pc >= ix->ranges[low - 1].high)
    return NULL;
  return dwarf_offdie(dwarf, ix->ranges[low - 1].die_offset, unit);
}

/* Adds SCOPE's variable and parameter children, each with its name, line
   and location at PC, to *SUM; returns how many there are. */
static size_t scope_variables(Dwarf_Die *scope, Dwarf_Addr pc, uint64_t *sum)
{
  Dwarf_Die child;
  size_t variables = 0;
  if (dwarf_child(scope, &child) != 0)
    return 0;
  do {
    int tag = dwarf_tag(&child);
    if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
      continue;
    ++variables;
    const char *name = dwarf_diename(&child);
    int line = 0;
    dwarf_decl_line(&child, &line);
    Dwarf_Attribute attr;
    Dwarf_Op *expr = NULL;
    size_t expr_size = 0;
    if (dwarf_attr_integrate(&child, DW_AT_location, &attr) != NULL)
      dwarf_getlocation_addr(&attr, pc, &expr, &expr_size, 1);
    *sum += (uint64_t)line + expr_size + (name != NULL ? (uint8_t)name[0] : 0);
  } while (dwarf_siblingof(&child, &child) == 0);
  return variables;
}

/* The frames standing at PC, the way a libdw debugger finds them: the
   scopes from dwarf_getscopes, which stop at the innermost inlined
   instance; past it, the concrete chain from dwarf_getscopes_die; one frame
   ends at each inlined subroutine and at the subprogram. VARS[i] gets frame
   i's variable count; returns how many frames (at most MAX) were found. */
static size_t frames_at(Dwarf *dwarf, const index *ix, Dwarf_Addr pc, bool with_line,
                        size_t *vars, size_t max, uint64_t *sum)
{
  Dwarf_Die unit, *scopes = NULL, *outer = NULL;
  size_t frames = 0;
  if (unit_at(dwarf, ix, pc, &unit) == NULL)
    return 0;
  /* The frame's source position, as amddwarf_frame gives it. */
  Dwarf_Line *row = with_line ? dwarf_getsrc_die(&unit, pc) : NULL;
  int line_number = 0;
  if (row != NULL && dwarf_lineno(row, &line_number) == 0)
    *sum += (uint64_t)line_number;
  int inner = dwarf_getscopes(&unit, pc, &scopes), count = 0;
  for (int i = 0; i < inner; i++)
    if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
      count = dwarf_getscopes_die(&scopes[i], &outer);
      inner = i;
      break;
    }
  /* SCOPES up to the inlined instance, then OUTER from it outwards. */
  size_t in_frame = 0;
  for (int i = 0; i < inner + (count > 0 ? count : 0) && frames < max; i++) {
    Dwarf_Die *scope = i < inner ? &scopes[i] : &outer[i - inner];
    int tag = dwarf_tag(scope);
    if (tag == DW_TAG_compile_unit)
      break;
    in_frame += scope_variables(scope, pc, sum);
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
      vars[frames++] = in_frame;
      in_frame = 0;
    }
  }
  free(scopes);
  free(outer);
  return frames;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: peer_libdw_scopes OBJECT OUT_FILE [RUNS]\n");
    return 2;
  }
  const char *path = argv[1], *ours = argv[2];
  int runs = argc > 3 ? atoi(argv[3]) : 9;
  if (runs < 1 || runs > 101)
    runs = 9;
  size_t frames = (size_t)bench_peer_time(ours, "frames");
  if (frames < 1 || frames > MAX_FRAMES) {
    fprintf(stderr, "peer_libdw_scopes: no frames in %s\n", ours);
    return 1;
  }
  uint64_t pcs[MAX_FRAMES];
  size_t our_vars[MAX_FRAMES], peer_vars[MAX_FRAMES] = {0};
  for (size_t i = 0; i < frames; ++i) {
    char key[32];
    snprintf(key, sizeof key, "pc%zu", i);
    pcs[i] = (uint64_t)bench_peer_time(ours, key);
    snprintf(key, sizeof key, "vars%zu", i);
    our_vars[i] = (size_t)bench_peer_time(ours, key);
  }
  double open_ns[101], question_ns[101], scopes_ns[101];
  uint64_t sum = 0;
  elf_version(EV_CURRENT);
  /* Even runs answer with the line row, odd ones without (scopes and
     variables only). */
  for (int r = 0; r < 2 * runs; ++r) {
    bool with_line = r % 2 == 0;
    index ix = {NULL, 0, 0};
    uint64_t t0 = bench_now_ns();
    int fd = open(path, O_RDONLY);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    Dwarf *dwarf = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
    if (dwarf == NULL || build_index(dwarf, &ix) != 0) {
      fprintf(stderr, "peer_libdw_scopes: %s: %s\n", path, dwarf_errmsg(-1));
      return 1;
    }
    uint64_t t1 = bench_now_ns();
    /* Inlined frames share their PC: one search answers them all. */
    for (size_t i = 0; i < frames;) {
      size_t found = frames_at(dwarf, &ix, pcs[i], with_line, &peer_vars[i], frames - i, &sum);
      i += found > 0 ? found : 1;
    }
    uint64_t t2 = bench_now_ns();
    if (with_line) {
      open_ns[r / 2] = (double)(t1 - t0);
      question_ns[r / 2] = (double)(t2 - t1);
    } else {
      scopes_ns[r / 2] = (double)(t2 - t1);
    }
    dwarf_end(dwarf);
    elf_end(elf);
    close(fd);
    free(ix.ranges);
  }
  bench_consume(sum);
  double peer_open = bench_median(open_ns, (size_t)runs);
  double peer_question = bench_median(question_ns, (size_t)runs);
  double peer_scopes = bench_median(scopes_ns, (size_t)runs);
  double our_open = bench_peer_time(ours, "ours_open");
  double our_question = bench_peer_time(ours, "ours_question");
  printf("# debugger layer, first question of a fresh open: %zu frame(s), median of %d runs\n",
         frames, runs);
  for (size_t i = 0; i < frames; ++i)
    printf("# frame %zu at 0x%llx: %zu variables (amddwarf), %zu (libdw)\n", i,
           (unsigned long long)pcs[i], our_vars[i], peer_vars[i]);
  printf("\n| step | amddwarf (ms) | libdw (ms) | amddwarf / libdw |\n|---|---|---|---|\n");
  printf("| open (libdw: + unit range index) | %.3f | %.3f | %.2f |\n", our_open / 1e6,
         peer_open / 1e6, our_open / peer_open);
  printf("| wave, frames, variables (libdw: getscopes path) | %.3f | %.3f | %.2f |\n",
         our_question / 1e6, peer_question / 1e6, our_question / peer_question);
  printf("| the same without the line row (libdw: getscopes and variables only) | %.3f | %.3f | "
         "%.2f |\n", our_question / 1e6, peer_scopes / 1e6, our_question / peer_scopes);
  printf("| both | %.3f | %.3f | %.2f |\n", (our_open + our_question) / 1e6,
         (peer_open + peer_question) / 1e6,
         (our_open + our_question) / (peer_open + peer_question));
  for (size_t i = 0; i < frames; ++i)
    if (our_vars[i] != peer_vars[i])
      return 1;
  return 0;
}
