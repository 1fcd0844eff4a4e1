/* Printing of evaluation traces and statistics, shared by the subcommands
 * that evaluate (expr eval; eval, unwind and lanes can attach the same
 * printer): every operation with the stack after it, every target access,
 * and counts and times per phase.
 *
 * Usage:
 *   trace_printer tp;
 *   trace_printer_init(&tp, stderr, &req.format, want_trace);
 *   trace_printer_attach(&tp, &req);       -- sets req.trace / req.trace_user
 *   trace_phase_begin(&tp, "evaluate"); ... trace_phase_end(&tp);
 *   trace_print_stats(&tp, stderr);
 * The environment variable AMDDWARF_TRACE (any value but "" or "0") turns
 * tracing on like --trace: see trace_env_enabled. */
#ifndef AMDDWARF_CLI_TRACE_PRINT_H
#define AMDDWARF_CLI_TRACE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <amddwarf/amddwarf.h>

enum {
  TRACE_MAX_PHASES = 8,
  TRACE_KINDS = AMDDWARF_TRACE_WRITE_MEMORY + 1, /* the amddwarf_trace_kind values */
};

typedef struct trace_phase {
  const char *name;    /* static */
  uint64_t ns;         /* total time spent in the phase */
  uint64_t count;      /* times the phase ran */
} trace_phase;

typedef struct trace_printer {
  FILE *out;                          /* where events go */
  amddwarf_expr_format format;        /* to print operations */
  bool print;                         /* false: count only (for --stats) */
  uint64_t events[TRACE_KINDS];       /* operations executed and accesses, by kind */
  uint64_t max_stack;                 /* deepest stack seen */
  uint64_t bytes_read, bytes_written;
  uint64_t failed_accesses;           /* accesses the target refused */
  trace_phase phases[TRACE_MAX_PHASES];
  unsigned phase_count;
  int current;                        /* index of the running phase, -1 when none */
  uint64_t started_ns;
} trace_printer;

/* Nonzero when AMDDWARF_TRACE is set to something other than "" or "0". */
bool trace_env_enabled(void);

void trace_printer_init(trace_printer *tp, FILE *out, const amddwarf_expr_format *format,
                        bool print);
/* Makes REQ report to TP (the request must outlive the evaluations). */
void trace_printer_attach(trace_printer *tp, amddwarf_eval_request *req);
/* The amddwarf_trace_fn that trace_printer_attach installs (USER is the printer). */
void trace_print_event(void *user, const amddwarf_trace_event *event);

/* Phase timing: BEGIN starts (or resumes) the phase NAME (static string). */
void trace_phase_begin(trace_printer *tp, const char *name);
void trace_phase_end(trace_printer *tp);
/* Prints the counts and the phases' times on OUT. */
void trace_print_stats(const trace_printer *tp, FILE *out);

/* Printing of evaluator results, one line each (composites: a line per part,
   indented by INDENT + 2). */
void trace_print_location(FILE *out, const amddwarf_location *loc, int indent);
void trace_print_value(FILE *out, const amddwarf_value *value);
void trace_print_entry(FILE *out, const amddwarf_entry *entry, int indent);

#endif
