/* Benchmark helpers; see bench.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t bench_sink;

uint64_t bench_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_thread_cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *samples, size_t count)
{
  if (count == 0)
    return -1;
  qsort(samples, count, sizeof(double), compare_double);
  return samples[count / 2];
}

double bench_median_ns(void (*fn)(void *arg), void *arg, unsigned repeats)
{
  double *samples = malloc(sizeof(double) * (repeats ? repeats : 1));
  if (!samples)
    return -1;
  for (unsigned i = 0; i < repeats; i++) {
    uint64_t start = bench_now_ns();
    fn(arg);
    samples[i] = (double)(bench_now_ns() - start);
  }
  double median = bench_median(samples, repeats);
  free(samples);
  return median;
}

/* The title of the current table, for the results file. */
static char current_table[128];

void bench_print_header(const char *title)
{
  snprintf(current_table, sizeof current_table, "%s", title);
  printf("\n## %s\n\n", title);
  printf("| %-44s | %14s | %-28s | %14s | %7s |\n", "workload", "ours", "peer", "peer time",
         "ratio");
  printf("|%s|%s|%s|%s|%s|\n", "----------------------------------------------",
         "----------------", "------------------------------", "----------------", "---------");
}

/* NS per UNIT in ns, us or ms, with 2-4 significant digits. */
static void format_time(char *buf, size_t size, double ns, const char *unit)
{
  if (ns >= 1e7)
    snprintf(buf, size, "%.1f ms/%s", ns / 1e6, unit);
  else if (ns >= 1e6)
    snprintf(buf, size, "%.2f ms/%s", ns / 1e6, unit);
  else if (ns >= 1e4)
    snprintf(buf, size, "%.1f us/%s", ns / 1e3, unit);
  else
    snprintf(buf, size, "%.1f ns/%s", ns, unit);
}

/* Appends the row to the file AMDDWARF_BENCH_RESULTS names, if any. */
static void record_row(const char *workload, double ours, const char *peer_name, double peer,
                       const char *unit)
{
  const char *path = getenv("AMDDWARF_BENCH_RESULTS");
  if (!path || !*path)
    return;
  FILE *f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "bench: cannot append to %s (AMDDWARF_BENCH_RESULTS)\n", path);
    return;
  }
  fprintf(f, "%s\t%s\t%.3f\t%s\t%s\t%.3f\n", current_table, workload, ours >= 0 ? ours : -1.0,
          unit, peer_name, peer >= 0 ? peer : -1.0);
  fclose(f);
}

void bench_print_row(const char *workload, double ours, const char *peer_name, double peer,
                     const char *unit)
{
  char ours_text[32] = "-", peer_text[32] = "-", ratio_text[16] = "-";
  if (ours >= 0)
    format_time(ours_text, sizeof ours_text, ours, unit);
  if (peer >= 0)
    format_time(peer_text, sizeof peer_text, peer, unit);
  if (peer >= 0 && ours > 0)
    snprintf(ratio_text, sizeof ratio_text, "%.2fx", peer / ours);
  printf("| %-44s | %14s | %-28s | %14s | %7s |\n", workload, ours_text, peer_name, peer_text,
         ratio_text);
  fflush(stdout);
  record_row(workload, ours, peer_name, peer, unit);
}

void bench_consume(uint64_t value)
{
  bench_sink += value;
}

double bench_peer_time(const char *path, const char *key)
{
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f)
    return -1;
  char name[64];
  double ns, found = -1;
  while (fscanf(f, "%63s %lf", name, &ns) == 2)
    if (strcmp(name, key) == 0)
      found = ns;
  fclose(f);
  return found;
}
