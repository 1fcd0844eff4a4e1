/* elfutils libdw as a peer of bench_object, on the same code object:
 *   - open + every DIE of every unit (dwarf_nextcu, dwarf_child,
 *     dwarf_siblingof) with every attribute's value read (dwarf_getattrs,
 *     dwarf_formudata or dwarf_formstring), per MB of debug sections;
 *   - the variables in scope at a PC: the unit containing it, dwarf_getscopes,
 *     then the variable and parameter children of each scope, over PCs
 *     spread over the line tables as bench_object picks them. libdw 0.188's
 *     dwarf_addrdie finds units through .debug_aranges only, which clang-19
 *     does not emit, so the unit comes from an index of the units'
 *     dwarf_ranges built once (binary search), as a libdw user would do.
 *
 * A program of its own: libdw and libdwarf (which libamddwarf uses) export
 * functions of the same names, so they cannot share a process. Our times
 * come from the rows bench_object appended to $AMDDWARF_BENCH_RESULTS in the
 * same run (bench/run runs the bench_* programs before the peer scripts).
 *
 *   peer_libdw_object BENCH_DIR [OBJECT] */
#define _POSIX_C_SOURCE 200809L
#include <dwarf.h> /* elfutils: the peer's own constants */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

enum { PC_COUNT = 2000 };

typedef struct unit_range {
  Dwarf_Addr low, high;
  Dwarf_Off die_offset;
} unit_range;

typedef struct ctx {
  int fd;
  Elf *elf;
  Dwarf *dwarf; /* kept open for the PC queries */
  unit_range *ranges;
  size_t range_count;
  uint64_t pcs[PC_COUNT];
  size_t pc_count, pc_next;
} ctx;

static int read_attribute(Dwarf_Attribute *attribute, void *arg)
{
  uint64_t *sum = arg;
  Dwarf_Word value = 0;
  if (dwarf_formudata(attribute, &value) == 0)
    *sum += value;
  else if (dwarf_formstring(attribute) != NULL)
    *sum += 1;
  return DWARF_CB_OK;
}

static uint64_t walk_die(Dwarf_Die *die)
{
  uint64_t sum = dwarf_tag(die);
  dwarf_getattrs(die, read_attribute, &sum, 0);
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0)
    return sum;
  do
    sum += walk_die(&child);
  while (dwarf_siblingof(&child, &child) == 0);
  return sum;
}

static void run_walk(void *arg)
{
  ctx *c = arg;
  Dwarf *dwarf = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
  if (!dwarf) {
    fprintf(stderr, "peer_libdw_object: dwarf_begin_elf: %s\n", dwarf_errmsg(-1));
    exit(1);
  }
  uint64_t sum = 0;
  Dwarf_Off offset = 0, next;
  size_t header_size;
  while (dwarf_nextcu(dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
    Dwarf_Die unit;
    if (dwarf_offdie(dwarf, offset + header_size, &unit))
      sum += walk_die(&unit);
    offset = next;
  }
  dwarf_end(dwarf);
  bench_consume(sum);
}

static int compare_ranges(const void *a, const void *b)
{
  const unit_range *x = a, *y = b;
  return (x->low > y->low) - (x->low < y->low);
}

/* The sorted PC ranges of every unit (dwarf_ranges of the unit DIE). */
static int index_units(ctx *c)
{
  size_t capacity = 0;
  Dwarf_Off offset = 0, next;
  size_t header_size;
  while (dwarf_nextcu(c->dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
    Dwarf_Die unit;
    Dwarf_Addr base, low, high;
    ptrdiff_t at = 0;
    if (dwarf_offdie(c->dwarf, offset + header_size, &unit))
      while ((at = dwarf_ranges(&unit, at, &base, &low, &high)) > 0) {
        if (c->range_count == capacity) {
          capacity = capacity ? capacity * 2 : 256;
          unit_range *grown = realloc(c->ranges, capacity * sizeof *grown);
          if (!grown)
            return -1;
          c->ranges = grown;
        }
        c->ranges[c->range_count++] = (unit_range){low, high, offset + header_size};
      }
    offset = next;
  }
  qsort(c->ranges, c->range_count, sizeof *c->ranges, compare_ranges);
  return 0;
}

/* The unit DIE whose ranges contain PC, or NULL. */
static Dwarf_Die *unit_at(ctx *c, Dwarf_Addr pc, Dwarf_Die *unit)
{
  size_t low = 0, high = c->range_count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (c->ranges[mid].low <= pc)
      low = mid + 1;
    else
      high = mid;
  }
  if (low == 0 || pc >= c->ranges[low - 1].high)
    return NULL;
  return dwarf_offdie(c->dwarf, c->ranges[low - 1].die_offset, unit);
}

static void run_vars(void *arg)
{
  ctx *c = arg;
  uint64_t pc = c->pcs[c->pc_next++ % c->pc_count];
  Dwarf_Die unit, *scopes = NULL;
  size_t variables = 0;
  if (unit_at(c, pc, &unit) != NULL) {
    int count = dwarf_getscopes(&unit, pc, &scopes);
    for (int i = 0; i < count; i++) {
      Dwarf_Die child;
      if (dwarf_child(&scopes[i], &child) != 0)
        continue;
      do {
        int tag = dwarf_tag(&child);
        variables += tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
      } while (dwarf_siblingof(&child, &child) == 0);
    }
  }
  free(scopes);
  bench_consume(variables);
}

/* Line-table addresses spread over the object, one every (rows / PC_COUNT). */
static void pick_pcs(ctx *c)
{
  size_t total_rows = 0, seen = 0;
  Dwarf_Off offset = 0, next;
  size_t header_size;
  for (int pass = 0; pass < 2; pass++) {
    size_t stride = total_rows / PC_COUNT + 1;
    offset = 0;
    while (dwarf_nextcu(c->dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
      Dwarf_Die unit;
      Dwarf_Lines *lines;
      size_t count = 0;
      if (dwarf_offdie(c->dwarf, offset + header_size, &unit) &&
          dwarf_getsrclines(&unit, &lines, &count) == 0) {
        for (size_t r = 0; r < count; r++, seen++) {
          Dwarf_Addr address;
          if (pass == 1 && seen % stride == 0 && c->pc_count < PC_COUNT &&
              dwarf_lineaddr(dwarf_onesrcline(lines, r), &address) == 0)
            c->pcs[c->pc_count++] = address;
        }
        if (pass == 0)
          total_rows += count;
      }
      offset = next;
    }
    seen = 0;
  }
}

static double debug_megabytes(Elf *elf)
{
  size_t shstrndx;
  double bytes = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
    if (name && strncmp(name, ".debug_", 7) == 0)
      bytes += (double)shdr.sh_size;
  }
  return bytes / 1e6;
}

/* Our time for WORKLOAD in the results bench_object appended, or -1. */
static double ours_from_results(const char *workload)
{
  const char *path = getenv("AMDDWARF_BENCH_RESULTS");
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f)
    return -1;
  char line[1024];
  double found = -1;
  while (fgets(line, sizeof line, f)) {
    char *table = strtok(line, "\t"), *name = strtok(NULL, "\t"), *ours = strtok(NULL, "\t");
    if (table && name && ours && strncmp(table, "code objects", 12) == 0 &&
        strcmp(name, workload) == 0)
      found = atof(ours);
  }
  fclose(f);
  return found;
}

/* A row with our time from bench_object's results ("-" when missing). */
static void print_row(const char *workload, const char *peer_name, double peer, const char *unit)
{
  bench_print_row(workload, ours_from_results(workload), peer_name, peer, unit);
}

int main(int argc, char **argv)
{
  const char *here = argc > 1 ? argv[1] : "bench";
  char path[4096], command[8192];
  if (argc > 2) {
    snprintf(path, sizeof path, "%s", argv[2]);
  } else {
    const char *copies = getenv("AMDDWARF_BENCH_OBJECT_COPIES");
    const char *tmp = getenv("TMPDIR");
    snprintf(command, sizeof command, "%s/gen_object.sh %s/amddwarf-bench-object %s", here,
             tmp ? tmp : "/tmp", copies ? copies : "200");
    FILE *p = popen(command, "r");
    if (p == NULL || fgets(path, sizeof path, p) == NULL) {
      fprintf(stderr, "peer_libdw_object: %s failed\n", command);
      return 1;
    }
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
  }
  ctx c;
  memset(&c, 0, sizeof c);
  elf_version(EV_CURRENT);
  c.fd = open(path, O_RDONLY);
  c.elf = c.fd >= 0 ? elf_begin(c.fd, ELF_C_READ_MMAP, NULL) : NULL;
  c.dwarf = c.elf ? dwarf_begin_elf(c.elf, DWARF_C_READ, NULL) : NULL;
  if (!c.dwarf) {
    fprintf(stderr, "peer_libdw_object: %s: %s\n", path, dwarf_errmsg(-1));
    return 1;
  }
  pick_pcs(&c);
  if (index_units(&c) != 0) {
    fprintf(stderr, "peer_libdw_object: out of memory\n");
    return 1;
  }
  size_t found = 0;
  for (size_t i = 0; i < c.pc_count; i++) {
    Dwarf_Die unit, *scopes = NULL;
    found += unit_at(&c, c.pcs[i], &unit) && dwarf_getscopes(&unit, c.pcs[i], &scopes) > 0;
    free(scopes);
  }
  printf("# libdw finds the scopes of %zu of the %zu PCs\n", found, c.pc_count);
  double debug_mb = debug_megabytes(c.elf);
  if (c.pc_count == 0 || debug_mb <= 0) {
    fprintf(stderr, "peer_libdw_object: %s: no line table or no debug sections\n", path);
    return 1;
  }
  bench_print_header("code objects: elfutils libdw peer");
  double walk = bench_median_ns(run_walk, &c, 3) / debug_mb;
  double vars = bench_median_ns(run_vars, &c, PC_COUNT);
  /* Our rows of bench_object that these compare with. */
  print_row("open + scope index, per MB of DWARF", "elfutils libdw DIE+attr walk", walk, "MB");
  print_row("open + every unit checked and line table read, per MB",
            "elfutils libdw DIE+attr walk", walk, "MB");
  print_row("open + every unit's DIE index (references), per MB", "elfutils libdw DIE+attr walk",
            walk, "MB");
  print_row("open + every unit's DIE index without the metadata note, per MB",
            "elfutils libdw DIE+attr walk", walk, "MB");
  print_row("open + every attribute of every DIE through references, per MB",
            "elfutils libdw DIE+attr walk", walk, "MB");
  print_row("first variables query in a unit (loads the unit)", "libdw ranges+getscopes", vars,
            "lookup");
  print_row("first variables query in a unit through references", "libdw ranges+getscopes", vars,
            "lookup");
  print_row("variables in scope at a PC, unit loaded", "libdw ranges+getscopes", vars, "lookup");
  free(c.ranges);
  dwarf_end(c.dwarf);
  elf_end(c.elf);
  close(c.fd);
  return 0;
}
