/* Benchmark helpers: a monotonic clock, medians over repeated runs, and the
 * one table format every benchmark prints:
 *
 *   workload                      ours         peer (name)        ratio
 *
 * where ratio = peer time / our time (above 1: we are faster).
 *
 * When the environment variable AMDDWARF_BENCH_RESULTS names a file, every
 * row is also appended to it as one tab-separated line
 *
 *   TABLE  WORKLOAD  OURS_NS  UNIT  PEER_NAME  PEER_NS
 *
 * (TABLE is the title of the last header, PEER_NS is -1 when the peer was
 * not measured); bench/run gathers those lines into its summary table. */
#ifndef AMDDWARF_BENCH_H
#define AMDDWARF_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Nanoseconds from a monotonic clock. */
uint64_t bench_now_ns(void);

/* Nanoseconds of CPU time the calling thread has used: unlike
   bench_now_ns, time the scheduler gives other processes does not count
   (for comparing two paths on a shared machine). A system call: time
   spans of milliseconds, not single operations. */
uint64_t bench_thread_cpu_ns(void);

/* The median of COUNT SAMPLES (sorted in place), or -1 when COUNT is 0. */
double bench_median(double *samples, size_t count);

/* Runs FN(ARG) REPEATS times and returns the median duration in ns. */
double bench_median_ns(void (*fn)(void *arg), void *arg, unsigned repeats);

/* Prints the table header once per benchmark program (or per table). */
void bench_print_header(const char *title);

/* One row: OURS and PEER are per-unit times in ns (PEER < 0: peer not
   measured; OURS < 0: ours not measured by this program); UNIT names what
   was timed ("op", "lookup", "MB"). Times of 10 us and more are printed in
   us, of 1 ms and more in ms. */
void bench_print_row(const char *workload, double ours, const char *peer_name, double peer,
                     const char *unit);

/* Keeps VALUE alive so the optimizer cannot drop the work producing it. */
void bench_consume(uint64_t value);

/* A peer's time for KEY in the "name ns" lines a peer program wrote to PATH
   (the last such line), or -1 when PATH is NULL, unreadable or has none. */
double bench_peer_time(const char *path, const char *key);

#endif
