/* stop_load: the time and memory to open a stop and read its waves, the
 * whole document parsed at once (amddwarf_stop_add, how stops were read
 * before) against the one-pass index with each wave parsed on first use
 * (amddwarf_stop_add_indexed), in the same run. Each way runs in a child
 * process of its own, so that each peak resident size is its own.
 *
 * usage: stop_load STOP.json [WAVES] [--indexed]  (bench/stop_load.sh
 * writes the 2,560-wave stop of bench/gpu_stop_workload.h and runs this)
 *
 * Prints, per way: the time to the first wave ready (what a debugger
 * needs before it shows the stop), the time to read one more wave on its
 * first use (WAVES waves spread over the stop, 200 by default: median, 90th
 * percentile and the slowest), and the peak RSS. --indexed measures the
 * indexed way alone (the whole parse takes half a minute and a gigabyte). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <amddwarf/stop.h>

#include "bench.h"

typedef struct result {
  double first_ms, per_wave_ms, p90_ms, max_ms;
  long peak_kib;
  int ok;
} result;

static void measure(const char *path, int indexed, size_t waves, result *r)
{
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0)
    return;
  const char *text = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (text == MAP_FAILED)
    return;
  amddwarf_stop *stop = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  uint64_t t0 = bench_now_ns();
  const amddwarf_stop_wave *w = NULL;
  if (amddwarf_stop_new(NULL, &stop, &err) != AMDDWARF_OK ||
      (indexed ? amddwarf_stop_add_indexed : amddwarf_stop_add)(stop, text, (size_t)st.st_size,
                                                                 path, &err) != AMDDWARF_OK ||
      amddwarf_stop_wave_load(stop, 0, &w, &err) != AMDDWARF_OK) {
    fprintf(stderr, "stop_load: %s\n", err.message);
    return;
  }
  r->first_ms = (double)(bench_now_ns() - t0) / 1e6;
  size_t count = amddwarf_stop_wave_count(stop);
  double *samples = calloc(waves, sizeof *samples);
  for (size_t i = 0; samples && i < waves; i++) {
    uint64_t t = bench_now_ns();
    if (amddwarf_stop_wave_load(stop, (1 + i * 37) % count, &w, &err) != AMDDWARF_OK) {
      fprintf(stderr, "stop_load: %s\n", err.message);
      return;
    }
    samples[i] = (double)(bench_now_ns() - t) / 1e6;
  }
  if (samples) {
    r->per_wave_ms = bench_median(samples, waves); /* sorts them */
    r->p90_ms = samples[waves * 9 / 10 < waves ? waves * 9 / 10 : waves - 1];
    r->max_ms = samples[waves - 1];
  }
  free(samples);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  r->peak_kib = usage.ru_maxrss;
  r->ok = 1;
  amddwarf_stop_free(stop);
}

/* Runs one way in a child process; its result comes back through a pipe. */
static int run(const char *path, int indexed, size_t waves, result *r)
{
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    result mine;
    memset(&mine, 0, sizeof mine);
    measure(path, indexed, waves, &mine);
    ssize_t n = write(fds[1], &mine, sizeof mine);
    _exit(n == (ssize_t)sizeof mine && mine.ok ? 0 : 1);
  }
  close(fds[1]);
  ssize_t n = pid > 0 ? read(fds[0], r, sizeof *r) : -1;
  close(fds[0]);
  int status = 0;
  if (pid > 0)
    waitpid(pid, &status, 0);
  return n == (ssize_t)sizeof *r && r->ok ? 0 : -1;
}

int main(int argc, char **argv)
{
  int indexed_only = argc > 1 && strcmp(argv[argc - 1], "--indexed") == 0;
  argc -= indexed_only;
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: stop_load STOP.json [WAVES] [--indexed]\n");
    return 2;
  }
  size_t waves = argc == 3 ? strtoul(argv[2], NULL, 10) : 200;
  struct stat st;
  if (stat(argv[1], &st) != 0 || waves == 0) {
    fprintf(stderr, "stop_load: cannot read %s\n", argv[1]);
    return 1;
  }
  result whole, indexed;
  memset(&whole, 0, sizeof whole);
  memset(&indexed, 0, sizeof indexed);
  if ((!indexed_only && run(argv[1], 0, waves, &whole) != 0) ||
      run(argv[1], 1, waves, &indexed) != 0) {
    fprintf(stderr, "stop_load: a measurement failed\n");
    return 1;
  }
  double file_mib = (double)st.st_size / 1048576.0;
  printf("# opening a stop of %.0f MiB, then reading %zu more waves\n", file_mib, waves);
  printf("| way | first wave ready | one more wave on first use: median, p90, max | peak RSS | "
         "RSS - file size |\n");
  printf("|---|---|---|---|---|\n");
  const result *rows[] = {&whole, &indexed};
  const char *names[] = {"whole document parsed (amddwarf_stop_add)",
                         "indexed, waves on first use (amddwarf_stop_add_indexed)"};
  for (int i = indexed_only; i < 2; i++)
    printf("| %s | %.1f ms | %.3f ms, %.3f ms, %.3f ms | %.0f MiB | %+.0f MiB |\n", names[i],
           rows[i]->first_ms, rows[i]->per_wave_ms, rows[i]->p90_ms, rows[i]->max_ms,
           (double)rows[i]->peak_kib / 1024.0, (double)rows[i]->peak_kib / 1024.0 - file_mib);
  if (!indexed_only)
    printf("first wave ready: indexed %.1fx faster; peak RSS: indexed %.2fx of whole\n",
           whole.first_ms / indexed.first_ms, (double)indexed.peak_kib / (double)whole.peak_kib);
  return 0;
}
