/* Evaluation traces and statistics for the CLI (trace_print.h). */
#include "trace_print.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool trace_env_enabled(void)
{
  const char *v = getenv("AMDDWARF_TRACE");
  return v && v[0] != '\0' && strcmp(v, "0") != 0;
}

void trace_printer_init(trace_printer *tp, FILE *out, const amddwarf_expr_format *format,
                        bool print)
{
  memset(tp, 0, sizeof *tp);
  tp->out = out;
  if (format)
    tp->format = *format;
  else
    amddwarf_expr_format_init(&tp->format);
  tp->print = print;
  tp->current = -1;
}

void trace_printer_attach(trace_printer *tp, amddwarf_eval_request *req)
{
  req->trace = trace_print_event;
  req->trace_user = tp;
}

/* ---- values and locations -------------------------------------------------------- */

static void print_bytes(FILE *out, const uint8_t *bytes, uint64_t size)
{
  for (uint64_t i = 0; i < size; i++)
    fprintf(out, i ? " %02x" : "%02x", bytes[i]);
}

static void print_bit_offset(FILE *out, const amddwarf_location *loc)
{
  if (loc->byte_offset <= (UINT64_MAX >> 3))
    fprintf(out, "bit offset %" PRIu64, loc->byte_offset * 8 + loc->bit);
  else
    fprintf(out, "bit offset 0x%" PRIx64 "*8+%u", loc->byte_offset, (unsigned)loc->bit);
}

void trace_print_location(FILE *out, const amddwarf_location *loc, int indent)
{
  char name[64];
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    fprintf(out, "undefined\n");
    return;
  case AMDDWARF_LOCATION_MEMORY:
    amddwarf_aspace_name(loc->u.memory.aspace, name, sizeof name);
    fprintf(out, "memory %s (%u) address 0x%" PRIx64 ", ", name, (unsigned)loc->u.memory.aspace,
            loc->byte_offset);
    print_bit_offset(out, loc);
    fprintf(out, "\n");
    return;
  case AMDDWARF_LOCATION_REGISTER:
    amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name,
                                  sizeof name);
    fprintf(out, "register %s (%u), ", name, (unsigned)loc->u.reg.regno);
    print_bit_offset(out, loc);
    fprintf(out, "\n");
    return;
  case AMDDWARF_LOCATION_IMPLICIT:
    fprintf(out, "implicit %" PRIu64 " bits [", loc->u.implicit.bit_size);
    print_bytes(out, loc->u.implicit.bytes, (loc->u.implicit.bit_size + 7) / 8);
    fprintf(out, "], ");
    print_bit_offset(out, loc);
    fprintf(out, "\n");
    return;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    amddwarf_aspace_name(loc->u.implicit_pointer.aspace, name, sizeof name);
    fprintf(out,
            "implicit pointer to DIE 0x%" PRIx64 " displacement %" PRId64
            ", address space %s (%u), ",
            loc->u.implicit_pointer.die, loc->u.implicit_pointer.displacement, name,
            (unsigned)loc->u.implicit_pointer.aspace);
    print_bit_offset(out, loc);
    fprintf(out, "\n");
    return;
  case AMDDWARF_LOCATION_COMPOSITE:
    fprintf(out, "composite of %u parts, %" PRIu64 " bits, ", (unsigned)loc->u.composite.count,
            loc->u.composite.bit_size);
    print_bit_offset(out, loc);
    fprintf(out, "\n");
    for (uint32_t i = 0; i < loc->u.composite.count; i++) {
      fprintf(out, "%*spart %u: %" PRIu64 " bits of ", indent + 2, "", (unsigned)i,
              loc->u.composite.parts[i].bit_size);
      trace_print_location(out, &loc->u.composite.parts[i].location, indent + 2);
    }
    return;
  }
  fprintf(out, "location kind %d\n", (int)loc->kind);
}

void trace_print_value(FILE *out, const amddwarf_value *v)
{
  if (v->is_implicit_pointer) {
    fprintf(out, "value: implicit pointer to DIE 0x%" PRIx64 " displacement %" PRId64 "\n",
            v->pointer.u.implicit_pointer.die, v->pointer.u.implicit_pointer.displacement);
    return;
  }
  const uint8_t *bytes = amddwarf_value_bytes(v);
  size_t size = amddwarf_value_size(v);
  fprintf(out, "value %s %u bits",
          v->type.die ? amddwarf_encoding_name(v->type.encoding) : "generic",
          (unsigned)v->type.bit_size);
  if (v->type.die)
    fprintf(out, " (type DIE 0x%" PRIx64 ")", v->type.die);
  if (v->type.count > 1)
    fprintf(out, " x%u", (unsigned)v->type.count);
  if (size <= 8 && v->type.count == 1) {
    uint64_t x = 0;
    for (size_t i = 0; i < size; i++)
      x |= (uint64_t)bytes[i] << (8 * i);
    fprintf(out, " = 0x%" PRIx64, x);
  } else {
    fprintf(out, " = [");
    print_bytes(out, bytes, size);
    fprintf(out, "]");
  }
  fprintf(out, "\n");
}

void trace_print_entry(FILE *out, const amddwarf_entry *e, int indent)
{
  if (e->kind == AMDDWARF_ENTRY_VALUE) {
    trace_print_value(out, &e->value);
    return;
  }
  fprintf(out, "location%s: ", e->incomplete ? " (incomplete)" : "");
  trace_print_location(out, &e->location, indent);
}

/* ---- events ---------------------------------------------------------------------- */

static const char *access_verb(amddwarf_trace_kind kind)
{
  static const char *const verbs[] = {"op", "read register", "write register",
                                      "read entry register", "read memory", "write memory"};
  return (unsigned)kind < sizeof verbs / sizeof verbs[0] ? verbs[kind] : "access";
}

static void count_event(trace_printer *tp, const amddwarf_trace_event *e)
{
  if ((unsigned)e->kind < TRACE_KINDS)
    tp->events[e->kind]++;
  if (e->kind == AMDDWARF_TRACE_OP) {
    if (e->stack_size > tp->max_stack)
      tp->max_stack = e->stack_size;
  } else if (e->status != AMDDWARF_OK) {
    tp->failed_accesses++;
  } else if (e->kind == AMDDWARF_TRACE_WRITE_REGISTER || e->kind == AMDDWARF_TRACE_WRITE_MEMORY) {
    tp->bytes_written += e->size;
  } else {
    tp->bytes_read += e->size;
  }
}

void trace_print_event(void *user, const amddwarf_trace_event *e)
{
  trace_printer *tp = user;
  count_event(tp, e);
  if (!tp->print)
    return;
  FILE *out = tp->out;
  int indent = (int)e->depth * 2;
  char text[512], name[64];
  if (e->kind == AMDDWARF_TRACE_OP) {
    if (amddwarf_expr_print(e->op, 1, &tp->format, AMDDWARF_PRINT_DEFAULT, text, sizeof text,
                            NULL) != AMDDWARF_OK)
      snprintf(text, sizeof text, "(opcode 0x%02x)", (unsigned)e->op->opcode);
    fprintf(out, "%*s[%s0x%" PRIx64 "] %s\n", indent, "", e->depth ? "call " : "",
            e->op->offset, text);
    if (e->stack_size == 0)
      fprintf(out, "%*s  stack empty\n", indent, "");
    for (uint32_t i = e->stack_size; i-- > 0;) {
      fprintf(out, "%*s  stack[%u] ", indent, "", (unsigned)(e->stack_size - 1 - i));
      trace_print_entry(out, &e->stack[i], indent + 2);
    }
    return;
  }
  if (e->op_offset == AMDDWARF_NO_OFFSET)
    fprintf(out, "%*s  [result] %s ", indent, "", access_verb(e->kind));
  else
    fprintf(out, "%*s  [%s0x%" PRIx64 "] %s ", indent, "", e->depth ? "call " : "", e->op_offset,
            access_verb(e->kind));
  if (e->kind == AMDDWARF_TRACE_READ_MEMORY || e->kind == AMDDWARF_TRACE_WRITE_MEMORY) {
    amddwarf_aspace_name(e->aspace, name, sizeof name);
    fprintf(out, "%s (%u)", name, (unsigned)e->aspace);
    if (e->lane != AMDDWARF_NO_LANE)
      fprintf(out, " lane %u", (unsigned)e->lane);
    fprintf(out, " address 0x%" PRIx64 " size %" PRIu64, e->address, e->size);
  } else {
    amddwarf_amdgpu_register_name(e->regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
    fprintf(out, "%s (%u) offset %" PRIu64 " size %" PRIu64, name, (unsigned)e->regno,
            e->address, e->size);
  }
  if (e->status != AMDDWARF_OK) {
    fprintf(out, " -> %s\n", amddwarf_status_name(e->status));
    return;
  }
  fprintf(out, " -> ");
  print_bytes(out, e->bytes, e->size > 64 ? 64 : e->size);
  fprintf(out, "%s\n", e->size > 64 ? " ..." : "");
}

/* ---- statistics ------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
  struct timespec ts;
  if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void trace_phase_begin(trace_printer *tp, const char *name)
{
  trace_phase_end(tp);
  unsigned i = 0;
  while (i < tp->phase_count && strcmp(tp->phases[i].name, name) != 0)
    i++;
  if (i == tp->phase_count) {
    if (tp->phase_count == TRACE_MAX_PHASES)
      return;
    tp->phases[tp->phase_count++].name = name;
  }
  tp->current = (int)i;
  tp->phases[i].count++;
  tp->started_ns = now_ns();
}

void trace_phase_end(trace_printer *tp)
{
  if (tp->current < 0)
    return;
  tp->phases[tp->current].ns += now_ns() - tp->started_ns;
  tp->current = -1;
}

void trace_print_stats(const trace_printer *tp, FILE *out)
{
  const struct {
    const char *label;
    uint64_t value;
  } rows[] = {{"operations executed", tp->events[AMDDWARF_TRACE_OP]},
              {"deepest stack", tp->max_stack},
              {"register reads", tp->events[AMDDWARF_TRACE_READ_REGISTER]},
              {"register writes", tp->events[AMDDWARF_TRACE_WRITE_REGISTER]},
              {"entry register reads", tp->events[AMDDWARF_TRACE_READ_ENTRY_REGISTER]},
              {"memory reads", tp->events[AMDDWARF_TRACE_READ_MEMORY]},
              {"memory writes", tp->events[AMDDWARF_TRACE_WRITE_MEMORY]},
              {"bytes read", tp->bytes_read},
              {"bytes written", tp->bytes_written},
              {"failed accesses", tp->failed_accesses}};
  fprintf(out, "stats:\n");
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    fprintf(out, "  %-23s %" PRIu64 "\n", rows[i].label, rows[i].value);
  for (unsigned i = 0; i < tp->phase_count; i++)
    fprintf(out, "  phase %-17s %" PRIu64 " run%s, %.3f ms\n", tp->phases[i].name,
            tp->phases[i].count, tp->phases[i].count == 1 ? "" : "s",
            (double)tp->phases[i].ns / 1e6);
}
