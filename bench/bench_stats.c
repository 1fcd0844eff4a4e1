/* bench_stats: `amddwarf stats` on the benchmark object of bench_object
 * (bench/gen_object.sh: 200 linked copies of one OpenCL unit, 109 MB of
 * DWARF) against `llvm-dwarfdump-19 --statistics` on the same file, in the
 * same run. Ours: opening the object and computing the statistics as
 * `amddwarf stats` does by default, the llvm-dwarfdump keys and the GPU
 * coverage of every function in one walk over the DIEs (without keeping
 * every variable), the line tables on a second thread; the same on one
 * thread; then each part alone. The peer: the whole command, as a
 * process (it maps the file, reads the DWARF and prints its JSON). Memory:
 * the RSS growth of a child process from before open to after the
 * statistics, against the debug sections' size (goal: at most 2x), by
 * default and with every variable kept (--variables, --svg, --diff). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <amddwarf/amddwarf.h>

#include "bench.h"

typedef struct ctx {
  const char *path;
  uint8_t *data;
  size_t size;
  uint32_t flags;
  char peer_cmd[8192];
  char command[16384]; /* `amddwarf stats` of this build, or "" */
} ctx;

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

static uint8_t *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static void run_ours(void *arg)
{
  ctx *c = arg;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  amddwarf_stats *s = NULL;
  amddwarf_stats_options opt;
  amddwarf_stats_options_init(&opt);
  opt.flags = c->flags;
  if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) != AMDDWARF_OK ||
      amddwarf_stats_compute(o, &opt, &s, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_stats: %s\n", err.message);
    exit(1);
  }
  bench_consume(amddwarf_stats_llvm_count(s) + amddwarf_stats_function_count(s));
  amddwarf_stats_free(s);
  amddwarf_object_close(o);
}

static void run_peer(void *arg)
{
  ctx *c = arg;
  if (system(c->peer_cmd) != 0) {
    fprintf(stderr, "bench_stats: %s failed\n", c->peer_cmd);
    exit(1);
  }
}

/* The command a user runs: `amddwarf stats`, its table printed (19.5 MB
   for the benchmark object) to /dev/null. */
static void run_command(void *arg)
{
  ctx *c = arg;
  if (system(c->command) != 0) {
    fprintf(stderr, "bench_stats: %s failed\n", c->command);
    exit(1);
  }
}

/* CPU time (user + system) of this process, or of its waited-for
   children, in ns: on a loaded machine wall time says little. */
static double cpu_ns(int who)
{
  struct rusage u;
  getrusage(who, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9 +
         (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
}

/* The median CPU time of REPEATS runs of FN(C) (WHO: self or children). */
static double median_cpu(void (*fn)(void *), ctx *c, int who, unsigned repeats)
{
  double t[8];
  for (unsigned i = 0; i < repeats && i < 8; ++i) {
    double before = cpu_ns(who);
    fn(c);
    t[i] = cpu_ns(who) - before;
  }
  return bench_median(t, repeats < 8 ? repeats : 8);
}

/* The default run (OURS_FN, its CPU time that of WHO) and the peer, alternately, PAIRS times: on a shared
   machine the load changes from second to second, and each pair's ratio
   compares the two under about the same load. The medians of the wall
   and CPU times of each side, and of the pairs' ratios. */
typedef struct pair_result {
  double ours, peer, ratio, ours_cpu, peer_cpu, cpu_ratio;
} pair_result;

static pair_result alternate(ctx *c, unsigned pairs, void (*ours_fn)(void *), int ours_who)
{
  double ours[16], peer[16], ratio[16], ours_cpu[16], peer_cpu[16], cpu_ratio[16];
  pairs = pairs > 16 ? 16 : pairs;
  for (unsigned i = 0; i < pairs; ++i) {
    double cpu = cpu_ns(RUSAGE_CHILDREN);
    uint64_t t = bench_now_ns();
    run_peer(c);
    peer[i] = (double)(bench_now_ns() - t);
    peer_cpu[i] = cpu_ns(RUSAGE_CHILDREN) - cpu;
    cpu = cpu_ns(ours_who);
    t = bench_now_ns();
    ours_fn(c);
    ours[i] = (double)(bench_now_ns() - t);
    ours_cpu[i] = cpu_ns(ours_who) - cpu;
    ratio[i] = peer[i] / ours[i];
    cpu_ratio[i] = peer_cpu[i] / ours_cpu[i];
  }
  pair_result r = {bench_median(ours, pairs),     bench_median(peer, pairs),
                   bench_median(ratio, pairs),    bench_median(ours_cpu, pairs),
                   bench_median(peer_cpu, pairs), bench_median(cpu_ratio, pairs)};
  return r;
}

/* RSS growth of computing the statistics with FLAGS, in a child process. */
static double stats_memory(ctx *c, uint32_t flags)
{
  int fds[2];
  double result = -1;
  if (pipe(fds) != 0)
    return -1;
  pid_t child = fork();
  if (child == 0) {
    long before = rss_kb();
    amddwarf_object *o = NULL;
    amddwarf_stats *s = NULL;
    amddwarf_error err;
    amddwarf_stats_options opt;
    amddwarf_stats_options_init(&opt);
    opt.flags = flags;
    if (amddwarf_object_open_memory(c->data, c->size, NULL, &o, &err) == AMDDWARF_OK &&
        amddwarf_stats_compute(o, &opt, &s, &err) == AMDDWARF_OK)
      result = (double)(rss_kb() - before) * 1024.0;
    if (write(fds[1], &result, sizeof result) != (ssize_t)sizeof result)
      _exit(1);
    _exit(0);
  }
  close(fds[1]);
  if (child > 0 && read(fds[0], &result, sizeof result) != (ssize_t)sizeof result)
    result = -1;
  close(fds[0]);
  if (child > 0)
    waitpid(child, NULL, 0);
  return result;
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
      fprintf(stderr, "bench_stats: %s failed\n", cmd);
      return 1;
    }
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
  }
  c.path = path;
  c.data = read_file(path, &c.size);
  if (c.data == NULL) {
    fprintf(stderr, "bench_stats: cannot read %s\n", path);
    return 1;
  }
  snprintf(c.peer_cmd, sizeof c.peer_cmd, "llvm-dwarfdump-19 --statistics '%s' > /dev/null", path);
  /* This build's command, next to the benchmark programs. */
  char cli[4096];
  snprintf(cli, sizeof cli, "%s", argv[0]);
  char *slash = strrchr(cli, '/');
  snprintf(slash ? slash + 1 : cli, sizeof cli - (size_t)(slash ? slash + 1 - cli : 0),
           "../tools/amddwarf/amddwarf");
  if (access(cli, X_OK) == 0)
    snprintf(c.command, sizeof c.command, "'%s' stats '%s' > /dev/null", cli, path);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_memory(c.data, c.size, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_stats: %s\n", err.message);
    return 1;
  }
  double debug_mb = (double)amddwarf_object_get_info(o)->debug_bytes / 1e6;
  amddwarf_object_close(o);
  bench_print_header("amddwarf stats on the benchmark object (per run; open included)");
  double peer = bench_median_ns(run_peer, &c, 3);
  static const struct {
    const char *name;
    uint32_t flags;
  } rows[] = {
      {"default: llvm keys + GPU coverage", 0},
      {"the same on one thread", AMDDWARF_STATS_ONE_THREAD},
      {"llvm keys only", AMDDWARF_STATS_NO_COVERAGE},
      {"GPU coverage only", AMDDWARF_STATS_NO_LLVM},
      {"every variable kept (--variables)", AMDDWARF_STATS_VARIABLES},
      {"open and the DIE index only", AMDDWARF_STATS_NO_LLVM | AMDDWARF_STATS_NO_COVERAGE},
  };
  double ours[6], ours_cpu[6];
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    c.flags = rows[i].flags;
    ours[i] = bench_median_ns(run_ours, &c, 3);
    bench_print_row(rows[i].name, ours[i], "llvm-dwarfdump-19 --statistics", peer, "run");
  }
  bench_print_header("the same, CPU time of the process (user + system)");
  double peer_cpu = median_cpu(run_peer, &c, RUSAGE_CHILDREN, 3);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    c.flags = rows[i].flags;
    char name[96];
    snprintf(name, sizeof name, "%s (CPU)", rows[i].name);
    ours_cpu[i] = median_cpu(run_ours, &c, RUSAGE_SELF, 3);
    bench_print_row(name, ours_cpu[i], "llvm-dwarfdump-19 --statistics", peer_cpu, "run");
  }
  bench_print_header("the default run and the peer alternately (7 pairs; medians)");
  c.flags = 0;
  pair_result pr = alternate(&c, 7, run_ours, RUSAGE_SELF);
  bench_print_row("default run, wall", pr.ours, "llvm-dwarfdump-19 --statistics", pr.peer, "run");
  bench_print_row("default run, CPU", pr.ours_cpu, "llvm-dwarfdump-19 --statistics", pr.peer_cpu,
                  "run");
  printf("#   median of the pairs' ratios: %.2fx wall, %.2fx CPU\n", pr.ratio, pr.cpu_ratio);
  if (c.command[0] != '\0') {
    bench_print_header("the command (amddwarf stats, its table to /dev/null) and the peer "
                       "alternately (5 pairs; medians)");
    pair_result cr = alternate(&c, 5, run_command, RUSAGE_CHILDREN);
    bench_print_row("amddwarf stats, wall", cr.ours, "llvm-dwarfdump-19 --statistics", cr.peer,
                    "run");
    bench_print_row("amddwarf stats, CPU", cr.ours_cpu, "llvm-dwarfdump-19 --statistics",
                    cr.peer_cpu, "run");
    printf("#   median of the pairs' ratios: %.2fx wall, %.2fx CPU\n", cr.ratio, cr.cpu_ratio);
  }
  double mem = stats_memory(&c, 0);
  double mem_vars = stats_memory(&c, AMDDWARF_STATS_VARIABLES);
  printf("#   %.1f MB of debug sections; the default run: peer/ours %.2fx wall, %.2fx CPU\n",
         debug_mb, peer / ours[0], peer_cpu / ours_cpu[0]);
  printf("#   memory of open + statistics: %.1f MB RSS growth (%.2fx the debug sections); "
         "with every variable kept: %.1f MB (%.2fx)\n",
         mem / 1e6, mem / 1e6 / debug_mb, mem_vars / 1e6, mem_vars / 1e6 / debug_mb);
  free(c.data);
  return 0;
}
