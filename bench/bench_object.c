/* Code objects: opening an AMDGPU code object and building the PC -> scope
 * index (every unit, every DIE, lists, line tables), listing the variables in
 * scope at a PC, and memory held after open; against libdwarf walking every
 * DIE and attribute of the same object (the work our open does through it),
 * and the full walks of libdwarf's `dwarfdump -i` and `llvm-dwarfdump-19
 * --debug-info` (processes, text output discarded).
 *
 * Input: bench/gen_object.sh builds a shared object of COPIES copies of one
 * OpenCL unit with 400 kernels and functions (about 270 KB of .debug_info
 * each; 200 copies make about 53 MB), or the file given as the second
 * argument. Targets (issue): >= 200 MB/s of DWARF for open + index, < 20 us
 * for the variables at a PC, memory after open < 2x the debug sections.
 *
 * The same work through DIE references (amddwarf_die_ref): every unit's
 * compact index, every attribute of every DIE read through its reference
 * (the work of libdw's walk), the first variables query in a unit, and the
 * memory with every unit indexed (in a child process, so that the other
 * measurements see the allocator as before). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <amddwarf/object.h>

#include "bench.h"

enum { PC_COUNT = 2000 };

static uint8_t *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)n);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static long rss_kb(void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
    resident = 0;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef struct ctx {
  const uint8_t *data;
  size_t size;
  const char *path;
  amddwarf_object *object;
  uint64_t pcs[PC_COUNT];
  size_t pc_count, pc_next;
} ctx;

static void run_open(void *arg)
{
  ctx *c = arg;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "open: %s\n", err.message);
    exit(1);
  }
  bench_consume(amddwarf_object_die_count(o));
  amddwarf_object_close(o);
}

/* Open, then every unit checked (its index, lists and references) and its
   line table read: the work of the peers' full walks. */
static void run_open_load_all(void *arg)
{
  ctx *c = arg;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) != AMDDWARF_OK ||
      amddwarf_object_load_all(o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "open + load: %s\n", err.message);
    exit(1);
  }
  bench_consume(amddwarf_object_die_count(o));
  amddwarf_object_close(o);
}

static amddwarf_object *open_or_exit(const ctx *c)
{
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "open: %s\n", err.message);
    exit(1);
  }
  return o;
}

/* Open, then every unit's compact DIE index. */
static void run_open_index_all(void *arg)
{
  amddwarf_object *o = open_or_exit(arg);
  amddwarf_error err;
  if (amddwarf_object_index_all(o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "index all: %s\n", err.message);
    exit(1);
  }
  bench_consume(amddwarf_object_die_count(o));
  amddwarf_object_close(o);
}

/* Reads every unit's line table. */
static void read_every_line_table(const amddwarf_object *o)
{
  size_t rows = 0;
  for (size_t u = 0; u < amddwarf_object_cu_count(o); ++u) {
    const amddwarf_line_table *t = amddwarf_object_line_table(o, u);
    rows += t != NULL ? t->row_count : 0;
  }
  bench_consume(rows);
}

/* Open, then every unit's compact DIE index and line table: every unit
   loaded through references. */
static void run_open_index_lines(void *arg)
{
  amddwarf_object *o = open_or_exit(arg);
  amddwarf_error err;
  if (amddwarf_object_index_all(o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "index all: %s\n", err.message);
    exit(1);
  }
  read_every_line_table(o);
  amddwarf_object_close(o);
}

static int sum_attribute(void *user, const amddwarf_attribute *a)
{
  *(uint64_t *)user += a->form + a->value.u;
  return 0;
}

/* Open, then every attribute of every DIE through its reference. */
static void run_open_ref_walk(void *arg)
{
  amddwarf_object *o = open_or_exit(arg);
  amddwarf_error err;
  uint64_t sum = 0;
  for (size_t i = 0; i < amddwarf_object_die_count(o); ++i) {
    amddwarf_die_ref ref;
    if (amddwarf_object_die_ref(o, i, &ref, &err) != AMDDWARF_OK ||
        amddwarf_object_die_ref_attributes(o, ref, sum_attribute, &sum, &err) != AMDDWARF_OK) {
      fprintf(stderr, "DIE %zu: %s\n", i, err.message);
      exit(1);
    }
  }
  bench_consume(sum);
  amddwarf_object_close(o);
}

/* The memory with every unit indexed, measured in a child process: RSS
   growth and the library's count, in bytes. */
/* What index_memory makes of every unit. */
typedef enum unit_work { INDEX_ONLY, INDEX_AND_LINES, LOAD_ALL } unit_work;

static int index_memory(const ctx *c, unit_work work, double *rss_bytes,
                        double *library_bytes)
{
  int fds[2];
  double result[2] = {-1, -1};
  if (pipe(fds) != 0)
    return -1;
  pid_t child = fork();
  if (child == 0) {
    long before = rss_kb();
    amddwarf_object *o = open_or_exit(c);
    amddwarf_error err;
    amddwarf_status st = work == LOAD_ALL ? amddwarf_object_load_all(o, &err)
                                          : amddwarf_object_index_all(o, &err);
    if (st == AMDDWARF_OK) {
      if (work == INDEX_AND_LINES)
        read_every_line_table(o);
      result[0] = (double)(rss_kb() - before) * 1024.0;
      result[1] = (double)amddwarf_object_memory_used(o);
    }
    if (write(fds[1], result, sizeof result) != (ssize_t)sizeof result)
      _exit(1);
    _exit(0);
  }
  close(fds[1]);
  ssize_t got = child > 0 ? read(fds[0], result, sizeof result) : -1;
  close(fds[0]);
  if (child > 0)
    waitpid(child, NULL, 0);
  *rss_bytes = result[0];
  *library_bytes = result[1];
  return got == (ssize_t)sizeof result && result[0] >= 0 ? 0 : -1;
}

/* The first variables query in each of up to 32 units of a fresh object,
   through references: reads the subprogram's DIEs only. Median of one query. */
static double first_ref_query_ns(ctx *c)
{
  amddwarf_object *o = open_or_exit(c);
  double times[32];
  size_t n = 0, last_unit = SIZE_MAX;
  for (size_t i = 0; i < c->pc_count && n < 32; ++i) {
    size_t unit = 0, count = 0;
    amddwarf_var_ref vars[256];
    amddwarf_error err;
    if (amddwarf_object_pc_unit(o, c->pcs[i], &unit) != AMDDWARF_OK || unit == last_unit)
      continue;
    last_unit = unit;
    uint64_t start = bench_now_ns();
    amddwarf_status st = amddwarf_object_var_refs_at(o, c->pcs[i], vars, 256, &count, &err);
    uint64_t end = bench_now_ns();
    if (st != AMDDWARF_OK) {
      fprintf(stderr, "var refs at 0x%llx: %s\n", (unsigned long long)c->pcs[i], err.message);
      exit(1);
    }
    times[n++] = (double)(end - start);
  }
  amddwarf_object_close(o);
  return bench_median(times, n);
}

/* The first variables query in each of up to 32 units of a fresh object:
   the query loads the unit. Returns the median time of one query. */
static double first_query_ns(ctx *c)
{
  amddwarf_object *o = NULL;
  amddwarf_error err;
  double times[32];
  size_t n = 0;
  if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) != AMDDWARF_OK)
    return -1;
  size_t last_unit = SIZE_MAX;
  for (size_t i = 0; i < c->pc_count && n < 32; ++i) {
    const amddwarf_die_info *scope = NULL;
    size_t depth = 0;
    amddwarf_var vars[256];
    size_t count = 0;
    /* PCs go through the units in order: a new unit starts a new sample. */
    uint64_t start = bench_now_ns();
    amddwarf_object_vars_at(o, c->pcs[i], vars, 256, &count);
    uint64_t end = bench_now_ns();
    if (amddwarf_object_scopes_at(o, c->pcs[i], &scope, 1, &depth) != AMDDWARF_OK ||
        scope->cu_index == last_unit)
      continue;
    last_unit = scope->cu_index;
    times[n++] = (double)(end - start);
  }
  amddwarf_object_close(o);
  return bench_median(times, n);
}

static void run_vars(void *arg)
{
  ctx *c = arg;
  amddwarf_var vars[256];
  size_t count = 0;
  uint64_t pc = c->pcs[c->pc_next++ % c->pc_count];
  amddwarf_object_vars_at(c->object, pc, vars, 256, &count);
  bench_consume(count);
}

/* libdwarf: every DIE of every unit with every attribute's value read. */
static uint64_t read_attrs(Dwarf_Debug dbg, Dwarf_Die die)
{
  uint64_t n = 1;
  Dwarf_Error e = NULL;
  Dwarf_Attribute *attrs = NULL;
  Dwarf_Signed count = 0;
  if (dwarf_attrlist(die, &attrs, &count, &e) != DW_DLV_OK)
    return n;
  for (Dwarf_Signed i = 0; i < count; ++i) {
    Dwarf_Half form = 0;
    Dwarf_Unsigned u = 0;
    char *s = NULL;
    dwarf_whatform(attrs[i], &form, &e);
    if (dwarf_formudata(attrs[i], &u, &e) != DW_DLV_OK) {
      if (e)
        dwarf_dealloc_error(dbg, e);
      e = NULL;
      if (dwarf_formstring(attrs[i], &s, &e) != DW_DLV_OK && e) {
        dwarf_dealloc_error(dbg, e);
        e = NULL;
      }
    }
    n += u + form + (s != NULL);
    dwarf_dealloc_attribute(attrs[i]);
  }
  dwarf_dealloc(dbg, attrs, DW_DLA_LIST);
  return n;
}

static uint64_t walk_children(Dwarf_Debug dbg, Dwarf_Die parent)
{
  uint64_t n = 0;
  Dwarf_Error e = NULL;
  Dwarf_Die child = NULL;
  if (dwarf_child(parent, &child, &e) != DW_DLV_OK)
    return 0;
  while (child != NULL) {
    Dwarf_Die sib = NULL;
    n += read_attrs(dbg, child);
    n += walk_children(dbg, child);
    int rc = dwarf_siblingof_b(dbg, child, 1, &sib, &e);
    dwarf_dealloc_die(child);
    child = rc == DW_DLV_OK ? sib : NULL;
  }
  return n;
}

static void run_libdwarf(void *arg)
{
  ctx *c = arg;
  Dwarf_Debug dbg = NULL;
  Dwarf_Error e = NULL;
  uint64_t n = 0;
  if (dwarf_init_path(c->path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, NULL,
                      0, NULL, &e) != DW_DLV_OK) {
    fprintf(stderr, "libdwarf cannot open %s\n", c->path);
    exit(1);
  }
  for (;;) {
    Dwarf_Unsigned len, abbrev, toff, next;
    Dwarf_Half ver, asz, lsz, esz, type;
    Dwarf_Sig8 sig;
    Dwarf_Die cu = NULL;
    if (dwarf_next_cu_header_d(dbg, 1, &len, &ver, &abbrev, &asz, &lsz, &esz, &sig, &toff, &next,
                               &type, &e) != DW_DLV_OK)
      break;
    if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
      break;
    n += read_attrs(dbg, cu);
    n += walk_children(dbg, cu);
    dwarf_dealloc_die(cu);
  }
  dwarf_finish(dbg, &e);
  bench_consume(n);
}

typedef struct proc_arg {
  const char *command;
} proc_arg;

static void run_process(void *arg)
{
  proc_arg *p = arg;
  if (system(p->command) != 0) {
    fprintf(stderr, "failed: %s\n", p->command);
    exit(1);
  }
}

int main(int argc, char **argv)
{
  const char *here = argc > 1 ? argv[1] : "bench";
  char path[4096], cmd[8192];
  ctx c;
  memset(&c, 0, sizeof c);
  if (argc > 2) {
    snprintf(path, sizeof path, "%s", argv[2]);
  } else {
    const char *copies = getenv("AMDDWARF_BENCH_OBJECT_COPIES");
    const char *tmp = getenv("TMPDIR");
    snprintf(cmd, sizeof cmd, "%s/gen_object.sh %s/amddwarf-bench-object %s", here,
             tmp ? tmp : "/tmp", copies ? copies : "200");
    FILE *p = popen(cmd, "r");
    if (p == NULL || fgets(path, sizeof path, p) == NULL) {
      fprintf(stderr, "bench_object: %s failed\n", cmd);
      return 1;
    }
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
  }
  c.path = path;
  c.data = read_file(path, &c.size);
  if (c.data == NULL) {
    fprintf(stderr, "bench_object: cannot read %s\n", path);
    return 1;
  }
  long before = rss_kb();
  amddwarf_error err;
  if (amddwarf_object_open_memory(c.data, c.size, NULL, &c.object, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_object: %s\n", err.message);
    return 1;
  }
  long after_open = rss_kb();
  size_t used_open = amddwarf_object_memory_used(c.object);
  const amddwarf_object_info *info = amddwarf_object_get_info(c.object);
  double debug_mb = (double)info->debug_bytes / 1e6;
  /* PCs: line-table rows spread over the whole object (reads every line
     table, so the memory after open is taken before). */
  size_t total_rows = 0;
  for (size_t u = 0; u < amddwarf_object_cu_count(c.object); ++u) {
    const amddwarf_line_table *t = amddwarf_object_line_table(c.object, u);
    total_rows += t ? t->row_count : 0;
  }
  size_t stride = total_rows / PC_COUNT + 1, seen = 0;
  for (size_t u = 0; u < amddwarf_object_cu_count(c.object) && c.pc_count < PC_COUNT; ++u) {
    const amddwarf_line_table *t = amddwarf_object_line_table(c.object, u);
    for (size_t r = 0; t && r < t->row_count && c.pc_count < PC_COUNT; ++r, ++seen)
      if (seen % stride == 0) {
        amddwarf_line_row row;
        amddwarf_object_line_row(c.object, t, r, &row);
        c.pcs[c.pc_count++] = row.address;
      }
  }
  printf("# input: %s: %zu bytes, %.1f MB of debug sections, %zu units, %zu DIEs\n", path,
         c.size, debug_mb, amddwarf_object_cu_count(c.object),
         amddwarf_object_die_count(c.object));
  bench_print_header("code objects (bench_object)");
  double ours = bench_median_ns(run_open, &c, 5);
  double ours_all = bench_median_ns(run_open_load_all, &c, 3);
  double peer = bench_median_ns(run_libdwarf, &c, 3);
  bench_print_row("open + scope index, per MB of DWARF", ours / debug_mb,
                  "libdwarf DIE+attr walk", peer / debug_mb, "MB");
  bench_print_row("open + every unit checked and line table read, per MB", ours_all / debug_mb,
                  "libdwarf DIE+attr walk", peer / debug_mb, "MB");
  printf("#   ours: open + index %.0f MB/s of DWARF (target >= 200); open + load all %.0f MB/s; "
         "libdwarf walk alone: %.0f MB/s\n",
         debug_mb / (ours / 1e9), debug_mb / (ours_all / 1e9), debug_mb / (peer / 1e9));
  /* The same object without its NT_AMDGPU_METADATA note: what open spends on
     the DWARF alone. */
  char strip_cmd[2 * sizeof path + 96];
  snprintf(strip_cmd, sizeof strip_cmd,
           "llvm-objcopy-19 --remove-section=.note '%s' '%s.nonote' 2>/dev/null", path, path);
  if (system(strip_cmd) == 0) {
    ctx bare = c;
    char bare_path[sizeof path + 8];
    snprintf(bare_path, sizeof bare_path, "%s.nonote", path);
    bare.data = read_file(bare_path, &bare.size);
    if (bare.data != NULL) {
      double t_bare = bench_median_ns(run_open, &bare, 5);
      bench_print_row("open + scope index without the metadata note, per MB", t_bare / debug_mb,
                      "libdwarf DIE+attr walk", peer / debug_mb, "MB");
      double t_bare_index = bench_median_ns(run_open_index_all, &bare, 5);
      bench_print_row("open + every unit's DIE index without the metadata note, per MB",
                      t_bare_index / debug_mb, "libdwarf DIE+attr walk", peer / debug_mb, "MB");
      printf("#   without the metadata note (msgpack, one entry per kernel): %.0f MB/s of DWARF "
             "(target >= 200)\n",
             debug_mb / (t_bare / 1e9));
      free((void *)bare.data);
    }
    remove(bare_path);
  }
  proc_arg llvm = {cmd};
  snprintf(cmd, sizeof cmd, "llvm-dwarfdump-19 --debug-info '%s' > /dev/null", path);
  double t_llvm = bench_median_ns(run_process, &llvm, 1);
  bench_print_row("full walk (open + load all), per MB", ours_all / debug_mb,
                  "llvm-dwarfdump-19 --debug-info", t_llvm / debug_mb, "MB");
  char cmd2[8192];
  proc_arg dd = {cmd2};
  snprintf(cmd2, sizeof cmd2, "dwarfdump -i '%s' > /dev/null 2>&1", path);
  double t_dd = bench_median_ns(run_process, &dd, 1);
  bench_print_row("full walk (open + load all), per MB", ours_all / debug_mb,
                  "dwarfdump -i (libdwarf)", t_dd / debug_mb, "MB");
  double indexed = bench_median_ns(run_open_index_all, &c, 5);
  bench_print_row("open + every unit's DIE index (references), per MB", indexed / debug_mb,
                  "libdwarf DIE+attr walk", peer / debug_mb, "MB");
  double ref_walk = bench_median_ns(run_open_ref_walk, &c, 3);
  bench_print_row("open + every attribute of every DIE through references, per MB",
                  ref_walk / debug_mb, "libdwarf DIE+attr walk", peer / debug_mb, "MB");
  double first_ref = first_ref_query_ns(&c);
  bench_print_row("first variables query in a unit through references", first_ref, "none", -1,
                  "lookup");
  double index_lines = bench_median_ns(run_open_index_lines, &c, 5);
  bench_print_row("open + every unit's DIE index and line table, per MB", index_lines / debug_mb,
                  "libdwarf DIE+attr walk", peer / debug_mb, "MB");
  double index_rss = 0, index_library = 0;
  if (index_memory(&c, LOAD_ALL, &index_rss, &index_library) == 0)
    printf("#   memory with every unit loaded (amddwarf_object_load_all: checked on references, "
           "line table read): %.1f MB RSS growth (%.2fx the debug sections; library accounting "
           "%.1f MB, %.2fx; target 1x)\n",
           index_rss / 1e6, index_rss / 1e6 / debug_mb, index_library / 1e6,
           index_library / 1e6 / debug_mb);
  if (index_memory(&c, INDEX_AND_LINES, &index_rss, &index_library) == 0)
    printf("#   memory with every unit indexed and its line table read: %.1f MB RSS growth "
           "(%.2fx the debug sections; library accounting %.1f MB, %.2fx; target 1x)\n",
           index_rss / 1e6, index_rss / 1e6 / debug_mb, index_library / 1e6,
           index_library / 1e6 / debug_mb);
  if (index_memory(&c, INDEX_ONLY, &index_rss, &index_library) == 0)
    printf("#   memory with every unit indexed (references): %.1f MB RSS growth from before "
           "open (%.2fx the debug sections; library accounting %.1f MB, %.2fx; target 2x)\n",
           index_rss / 1e6, index_rss / 1e6 / debug_mb, index_library / 1e6,
           index_library / 1e6 / debug_mb);
  double first = first_query_ns(&c);
  bench_print_row("first variables query in a unit (loads the unit)", first, "none", -1,
                  "lookup");
  c.pc_next = 0;
  double vars = bench_median_ns(run_vars, &c, PC_COUNT);
  bench_print_row("variables in scope at a PC, unit loaded", vars, "none", -1, "lookup");
  printf("#   vars at a PC: %.2f us (target < 20 us) over %zu PCs; the first query in a unit "
         "takes %.1f us (it loads the unit)\n",
         vars / 1e3, c.pc_count, first / 1e3);
  amddwarf_object_load_all(c.object, &err);
  long after_all = rss_kb();
  double open_mb = (double)(after_open - before) / 1024.0;
  double all_mb = (double)(after_all - before) / 1024.0;
  printf("#   memory after open: %.1f MB RSS growth (%.2fx the %.1f MB of debug sections; "
         "library accounting %.1f MB; target < 2x)\n",
         open_mb, open_mb / debug_mb, debug_mb, (double)used_open / 1e6);
  printf("#   memory with every unit's summaries made (the public amddwarf_die_info API) and "
         "loaded: %.1f MB RSS growth (%.2fx; library accounting "
         "%.1f MB)\n",
         all_mb, all_mb / debug_mb, (double)amddwarf_object_memory_used(c.object) / 1e6);
  amddwarf_object_close(c.object);
  free((void *)c.data);
  return 0;
}
