/* Debug-printf buffers: walking the entries of a 1 GiB buffer against memcpy
 * of the same bytes (target: at least 30% of memcpy bandwidth), and rendering
 * messages against the C library's snprintf with the same (trusted) format
 * (target: at least 5 million messages per second). Everything is generated
 * in memory by the library's own producer helpers. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <amddwarf/printf.h>

#include "bench.h"

enum { BUFFER_DATA = 1 << 30, MESSAGES = 5000000 };

/* Entries cycle through four shapes: (id, 32-bit dwords, 64-bit mask). */
static const char metadata_json[] =
    "{\".version\": 1, \".strings\": ["
    "{\".index\": 1, \".string\": \"lane %u: x=%d\\n\", \".argument_count\": 2, \".64bit_arguments\": [0]},"
    "{\".index\": 2, \".string\": \"addr=%#llx size=%u\", \".argument_count\": 2, \".64bit_arguments\": [1]},"
    "{\".index\": 3, \".string\": \"v=%.3f i=%i\", \".argument_count\": 2, \".64bit_arguments\": [0]},"
    "{\".index\": 4, \".string\": \"[%5d|%-4x|%c]\", \".argument_count\": 3, \".64bit_arguments\": [0]}]}";

typedef struct shape {
  uint64_t id;
  unsigned dwords; /* payload */
} shape;
static const shape shapes[] = {{1, 2}, {2, 3}, {3, 2}, {4, 3}};

typedef struct walk_state {
  const uint8_t *buffer;
  size_t size;
  uint64_t entries;
} walk_state;

static void walk(void *arg)
{
  walk_state *w = arg;
  amddwarf_printf_reader *reader = NULL;
  if (amddwarf_printf_reader_open_memory(w->buffer, w->size, NULL, &reader, NULL) != AMDDWARF_OK)
    abort();
  amddwarf_printf_entry entries[256];
  size_t n;
  uint64_t count = 0, sum = 0;
  while (amddwarf_printf_reader_next_batch(reader, entries, 256, &n, NULL) == AMDDWARF_OK) {
    count += n;
    for (size_t i = 0; i < n; i++)
      sum += entries[i].id;
  }
  amddwarf_printf_reader_close(reader);
  w->entries = count;
  bench_consume(sum);
}

static void walk_single(void *arg)
{
  walk_state *w = arg;
  amddwarf_printf_reader *reader = NULL;
  if (amddwarf_printf_reader_open_memory(w->buffer, w->size, NULL, &reader, NULL) != AMDDWARF_OK)
    abort();
  amddwarf_printf_entry entry;
  uint64_t count = 0, sum = 0;
  while (amddwarf_printf_reader_next(reader, &entry, NULL) == AMDDWARF_OK) {
    count++;
    sum += entry.id;
  }
  amddwarf_printf_reader_close(reader);
  w->entries = count;
  bench_consume(sum);
}

typedef struct copy_state {
  const uint8_t *source;
  uint8_t *destination;
  size_t size;
} copy_state;

static void copy(void *arg)
{
  copy_state *c = arg;
  memcpy(c->destination, c->source, c->size);
  bench_consume(c->destination[c->size / 2]);
}

typedef struct render_state {
  const amddwarf_printf_table *table;
  const uint8_t *buffer;
  size_t size;
  uint64_t rendered;
} render_state;

static void render(void *arg)
{
  render_state *r = arg;
  amddwarf_printf_reader *reader = NULL;
  char text[256];
  if (amddwarf_printf_reader_open_memory(r->buffer, r->size, NULL, &reader, NULL) != AMDDWARF_OK)
    abort();
  amddwarf_printf_entry entry;
  uint64_t count = 0, sum = 0;
  while (count < MESSAGES && amddwarf_printf_reader_next(reader, &entry, NULL) == AMDDWARF_OK) {
    size_t length = 0;
    if (amddwarf_printf_render_entry(r->table, &entry, text, sizeof text, &length, NULL) !=
        AMDDWARF_OK)
      abort();
    sum += length;
    count++;
  }
  amddwarf_printf_reader_close(reader);
  r->rendered = count;
  bench_consume(sum);
}

/* The peer: snprintf with the same formats as literals, same values. */
static void render_libc(void *arg)
{
  render_state *r = arg;
  char text[256];
  uint64_t sum = 0;
  const uint8_t *p = r->buffer + 16;
  for (uint64_t i = 0; i < MESSAGES; i++) {
    uint32_t d[4];
    uint64_t header;
    memcpy(&header, p, 8);
    memcpy(d, p + 8, 12);
    int n = 0;
    switch (header >> 16) {
    case 1: n = snprintf(text, sizeof text, "lane %u: x=%d\n", d[0], (int)d[1]); break;
    case 2: {
      unsigned long long a = d[0] | (unsigned long long)d[1] << 32;
      n = snprintf(text, sizeof text, "addr=%#llx size=%u", a, d[2]);
      break;
    }
    case 3: {
      float f;
      memcpy(&f, &d[0], 4);
      n = snprintf(text, sizeof text, "v=%.3f i=%i", (double)f, (int)d[1]);
      break;
    }
    default: n = snprintf(text, sizeof text, "[%5d|%-4x|%c]", (int)d[0], d[1], (int)(d[2] & 0xff));
    }
    sum += (uint64_t)n;
    p += (header & 0xffff) * 4;
  }
  bench_consume(sum);
}

int main(void)
{
  size_t size = 16 + (size_t)BUFFER_DATA;
  uint8_t *buffer = malloc(size), *destination = malloc(size);
  if (!buffer || !destination)
    return 1;
  /* Fill with the shape cycle; the last partial entry is left as padding. */
  size_t pos = 16, n = 0;
  uint32_t seed = 12345;
  while (pos + 8 + 12 <= size) {
    const shape *s = &shapes[n++ % 4];
    uint64_t header = (uint64_t)(2 + s->dwords) | s->id << 16;
    memcpy(buffer + pos, &header, 8);
    for (unsigned k = 0; k < s->dwords; k++) {
      seed = seed * 1103515245u + 12345u;
      uint32_t value = s->id == 3 && k == 0 ? 0x3fc00000u + (seed & 0xffff) : seed >> 4;
      memcpy(buffer + pos + 8 + 4 * k, &value, 4);
    }
    pos += 8 + 4 * s->dwords;
  }
  uint64_t offset_dwords = (pos - 16) / 4;
  memset(buffer, 0, 16);
  memcpy(buffer, &offset_dwords, 8);
  memset(buffer + pos, 0, size - pos);
  memset(destination, 1, size);

  amddwarf_printf_table *table = NULL;
  if (amddwarf_printf_table_new(NULL, &table, NULL) != AMDDWARF_OK ||
      amddwarf_printf_table_add_json(table, metadata_json, sizeof metadata_json - 1, "bench",
                                     NULL) != AMDDWARF_OK)
    return 1;

  bench_print_header("debug printf buffers (1 GiB buffer, 5 M messages)");
  walk_state w = {buffer, size, 0};
  copy_state c = {buffer, destination, size};
  double walk_ns = bench_median_ns(walk, &w, 5);
  double copy_ns = bench_median_ns(copy, &c, 5);
  double mib = (double)BUFFER_DATA / (1024.0 * 1024.0);
  bench_print_row("walk entries of a 1 GiB buffer (batches)", walk_ns / mib,
                  "memcpy (same bytes)", copy_ns / mib, "MiB");
  double single_ns = bench_median_ns(walk_single, &w, 3);
  bench_print_row("walk entries of a 1 GiB buffer (one by one)", single_ns / mib,
                  "memcpy (same bytes)", copy_ns / mib, "MiB");
  render_state r = {table, buffer, size, 0};
  double render_ns = bench_median_ns(render, &r, 3);
  double libc_ns = bench_median_ns(render_libc, &r, 3);
  bench_print_row("render 5 M messages (4 formats)", render_ns / MESSAGES,
                  "glibc snprintf, literal fmt", libc_ns / MESSAGES, "msg");
  /* CPU time of one more pass: the rate on one core even when the machine
     is shared (wall-clock medians above include time spent descheduled). */
  struct timespec cpu0, cpu1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  render(&r);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  double cpu_s = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  double walk_ratio = copy_ns / walk_ns;
  double rate = (double)r.rendered / (render_ns * 1e-9);
  printf("\nentries walked: %llu; batch walk bandwidth %.2f GiB/s vs memcpy %.2f GiB/s: "
         "ratio %.2f (target >= 0.30) %s\n",
         (unsigned long long)w.entries, 1.0 / (walk_ns * 1e-9), 1.0 / (copy_ns * 1e-9),
         walk_ratio, walk_ratio >= 0.30 ? "MET" : "MISSED");
  printf("one-by-one walk: ratio %.2f to memcpy\n", copy_ns / single_ns);
  printf("messages rendered: %llu at %.2f M/s (target >= 5 M/s): ratio %.2f %s\n",
         (unsigned long long)r.rendered, rate / 1e6, rate / 5e6, rate >= 5e6 ? "MET" : "MISSED");
  printf("messages per CPU second (one core): %.2f M/s: ratio %.2f to the target\n",
         (double)r.rendered / cpu_s / 1e6, (double)r.rendered / cpu_s / 5e6);
  amddwarf_printf_table_free(table);
  free(buffer);
  free(destination);
  return 0;
}
