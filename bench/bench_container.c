/* Containers: the time to the first answer from a host executable of 200
 * translation units, each its own compressed offload bundle (about 0.95 GB
 * of code objects uncompressed, bench/gen_container.sh), against opening the
 * code object extracted from it alone; and decompressing compressed bundles
 * against `zstd -d` on the same frames, in the same run.
 *
 * First answer: amddwarf_object_open_input(host, --object 199), which lists
 * every bundle (decoding each one's entry table only) and decompresses the
 * last, then the line at a PC (from the middle of the first line table); against amddwarf_object_open_file
 * of the extracted code object and the same query. The same through the
 * CLI (`amddwarf lines FILE [--object 199] --pc PC`, processes). Targets
 * (issue): at most 1.5 times the extracted object's time.
 *
 * Decompression: the compressed bundle opened from memory and its code
 * object's bytes asked for (the zstd payload decoded, and its MD5 checked,
 * or not), 200 times; against `zstd -d -c` of the 200 frames concatenated,
 * output discarded. Target: at least 0.8 times zstd's speed.
 *
 * Every time is CPU time (the machine is shared), the median of 7 runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <amddwarf/container.h>
#include <amddwarf/object.h>

#include "bench.h"

enum { UNITS = 200, REPEATS = 7 };

typedef struct ctx {
  const char *host, *object;
  uint64_t pc;
  const uint8_t *unit;           /* one compressed bundle */
  size_t unit_size;
  uint32_t container_flags;
} ctx;

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

static void answer(amddwarf_object *o, uint64_t pc)
{
  const amddwarf_line_table *table = NULL;
  amddwarf_line_row row;
  if (amddwarf_object_line_at(o, pc, &table, &row) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: no line at 0x%llx\n", (unsigned long long)pc);
    exit(1);
  }
  bench_consume(row.line);
  amddwarf_object_close(o);
}

static void first_answer_container(void *arg)
{
  ctx *c = arg;
  amddwarf_selection last = {NULL, UNITS - 1};
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_input(c->host, &last, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: %s\n", err.message);
    exit(1);
  }
  answer(o, c->pc);
}

/* The same through a container opened without the MD5 check. */
static void first_answer_no_hash(void *arg)
{
  ctx *c = arg;
  amddwarf_container_options options;
  amddwarf_container_options_init(&options);
  options.flags = AMDDWARF_CONTAINER_NO_HASH_CHECK;
  amddwarf_selection last = {NULL, UNITS - 1};
  amddwarf_container *k = NULL;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_container_open_file(c->host, &options, &k, &err) != AMDDWARF_OK ||
      amddwarf_object_open_container(k, c->host, &last, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: %s\n", err.message);
    exit(1);
  }
  amddwarf_container_close(k);
  answer(o, c->pc);
}

static void first_answer_extracted(void *arg)
{
  ctx *c = arg;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_file(c->object, NULL, &o, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: %s\n", err.message);
    exit(1);
  }
  answer(o, c->pc);
}

static void decompress_units(void *arg)
{
  ctx *c = arg;
  amddwarf_container_options options;
  amddwarf_container_options_init(&options);
  options.flags = c->container_flags;
  for (int i = 0; i < UNITS; ++i) {
    amddwarf_container *k = NULL;
    const uint8_t *bytes = NULL;
    size_t size = 0;
    amddwarf_error err;
    if (amddwarf_container_open_memory(c->unit, c->unit_size, "unit", &options, &k, &err) !=
            AMDDWARF_OK ||
        amddwarf_container_entry_bytes(k, 0, &bytes, &size, &err) != AMDDWARF_OK) {
      fprintf(stderr, "bench_container: %s\n", err.message);
      exit(1);
    }
    bench_consume(bytes[size - 1]);
    amddwarf_container_close(k);
  }
}

/* The machine is shared: every time here is CPU time (user and system),
   of this thread or of the child processes, which the scheduler's choice of
   other processes does not change. */
static double cpu_median_ns(void (*fn)(void *arg), void *arg, unsigned repeats)
{
  double samples[REPEATS];
  for (unsigned i = 0; i < repeats && i < REPEATS; ++i) {
    uint64_t start = bench_thread_cpu_ns();
    fn(arg);
    samples[i] = (double)(bench_thread_cpu_ns() - start);
  }
  return bench_median(samples, repeats < REPEATS ? repeats : REPEATS);
}

static double children_cpu_ns(void)
{
  struct rusage usage;
  getrusage(RUSAGE_CHILDREN, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3;
}

/* The median CPU time of COMMAND (its processes, the shell's included). */
static double command_ns(const char *command)
{
  double samples[REPEATS];
  for (int i = 0; i < REPEATS; ++i) {
    double start = children_cpu_ns();
    if (system(command) != 0) {
      fprintf(stderr, "bench_container: '%s' failed\n", command);
      exit(1);
    }
    samples[i] = children_cpu_ns() - start;
  }
  return bench_median(samples, REPEATS);
}

int main(int argc, char **argv)
{
  const char *here = argc > 1 ? argv[1] : "bench";
  char paths[3][4096], cmd[16384], cli[4200];
  const char *tmp = getenv("TMPDIR");
  snprintf(cmd, sizeof cmd, "%s/gen_container.sh %s/amddwarf-bench-container %d", here,
           tmp ? tmp : "/tmp", UNITS);
  FILE *p = popen(cmd, "r");
  for (int i = 0; i < 3; ++i)
    if (p == NULL || fgets(paths[i], sizeof paths[i], p) == NULL) {
      fprintf(stderr, "bench_container: %s failed\n", cmd);
      return 1;
    }
  pclose(p);
  for (int i = 0; i < 3; ++i)
    paths[i][strcspn(paths[i], "\n")] = '\0';
  ctx c = {paths[0], paths[1], 0, NULL, 0, 0};
  /* a PC from the middle of the first unit's line table */
  amddwarf_object *o = NULL;
  amddwarf_error err;
  const amddwarf_line_table *lines = NULL;
  if (amddwarf_object_open_file(c.object, NULL, &o, &err) != AMDDWARF_OK ||
      (lines = amddwarf_object_line_table(o, 0)) == NULL || lines->row_count == 0) {
    fprintf(stderr, "bench_container: no line table in %s\n", c.object);
    return 1;
  }
  amddwarf_line_row middle;
  if (amddwarf_object_line_row(o, lines, lines->row_count / 2, &middle) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: cannot read a row of %s\n", c.object);
    return 1;
  }
  c.pc = middle.address;
  amddwarf_object_close(o);
  size_t object_size = 0;
  free(read_file(c.object, &object_size));
  /* one compressed bundle: the first of .hip_fatbin */
  amddwarf_container *host = NULL;
  if (amddwarf_container_open_file(c.host, NULL, &host, &err) != AMDDWARF_OK) {
    fprintf(stderr, "bench_container: %s\n", err.message);
    return 1;
  }
  const amddwarf_container_entry *first = amddwarf_container_entry_at(host, 0);
  size_t host_size = 0;
  uint8_t *host_bytes = read_file(c.host, &host_size);
  c.unit = host_bytes + first->bundle_offset;
  c.unit_size = (size_t)first->bundle_size;
  double total_mb = (double)object_size * UNITS / 1e6;
  printf("input: %s (%zu bytes, %zu code objects of %zu bytes, %.0f MB uncompressed)\n", c.host,
         host_size, amddwarf_container_count(host), object_size, total_mb);
  amddwarf_container_close(host);

  bench_print_header("Containers: first answer and decompression");
  double ours = cpu_median_ns(first_answer_container, &c, REPEATS);
  double alone = cpu_median_ns(first_answer_extracted, &c, REPEATS);
  double no_hash = cpu_median_ns(first_answer_no_hash, &c, REPEATS);
  bench_print_row("first line answer, 200-unit host", ours, "extracted object", alone, "op");
  bench_print_row("  the same, no MD5 check", no_hash, "extracted object", alone, "op");
  printf("  container / extracted: %.2fx, %.2fx without the MD5 check (target <= 1.5x)\n",
         ours / alone, no_hash / alone);

  /* the CLI, from process start to the answer */
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  snprintf(cli, sizeof cli, "%s/../tools/amddwarf/amddwarf", self);
  snprintf(cmd, sizeof cmd, "%s lines %s --object %d --pc 0x%llx > /dev/null", cli, c.host,
           UNITS - 1, (unsigned long long)c.pc);
  double cli_ours = command_ns(cmd);
  snprintf(cmd, sizeof cmd, "%s lines %s --pc 0x%llx > /dev/null", cli, c.object,
           (unsigned long long)c.pc);
  double cli_alone = command_ns(cmd);
  bench_print_row("amddwarf lines, 200-unit host", cli_ours, "extracted object", cli_alone, "op");
  printf("  container / extracted: %.2fx (target <= 1.5x)\n", cli_ours / cli_alone);

  snprintf(cmd, sizeof cmd, "zstd -q -d -c %s > /dev/null", paths[2]);
  double zstd = command_ns(cmd);
  double with_hash = cpu_median_ns(decompress_units, &c, 3);
  c.container_flags = AMDDWARF_CONTAINER_NO_HASH_CHECK;
  double unchecked = cpu_median_ns(decompress_units, &c, 3);
  bench_print_row("decompress, MD5 checked", with_hash / total_mb, "zstd -d", zstd / total_mb,
                  "MB");
  bench_print_row("decompress, no hash check", unchecked / total_mb, "zstd -d",
                  zstd / total_mb, "MB");
  printf("  speed vs zstd -d: %.2fx with the MD5 check, %.2fx without (target >= 0.8x); "
         "%.0f, %.0f and %.0f MB/s\n",
         zstd / with_hash, zstd / unchecked, total_mb / (with_hash / 1e9),
         total_mb / (unchecked / 1e9), total_mb / (zstd / 1e9));
  free(host_bytes);
  return 0;
}
