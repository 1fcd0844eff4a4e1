/* amddwarf stats: debug-information quality of code objects: the numbers of
 * llvm-dwarfdump --statistics, coverage by kind of location and per lane,
 * why a variable is unavailable at a PC, the difference of two builds, and
 * a picture. The rules live in the library (<amddwarf/stats.h>). */
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"
#include "stats_cli.h"
#include "table_text.h"

static const char *const usage =
    "usage: amddwarf stats OBJECT... [--json] [--variables] [--prologues] [--svg FILE]\n"
    "       amddwarf stats OBJECT --why VAR --pc ADDR [--json]\n"
    "       amddwarf stats --diff BASE NEW [--max-drop PCT] [--json] [--svg FILE]\n"
    "       (each with [--target ID] [--object N])\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Measures how well the DWARF of AMDGPU code objects describes their\n"
    "variables:\n"
    "\n"
    "  - the numbers llvm-dwarfdump-19 --statistics prints (functions,\n"
    "    variables, bytes of scope covered, the coverage buckets, line table and\n"
    "    section sizes), by the same definitions; with --json they are the\n"
    "    \"llvm_dwarfdump\" object, key for key;\n"
    "  - per function (kernels and device functions apart) and per variable:\n"
    "    the bytes of each variable's scope covered by each kind of location\n"
    "    (sgpr, vgpr, agpr, memory_global, memory_local, memory_private,\n"
    "    memory_region, implicit, composite, undefined), covered correctly for\n"
    "    every lane (a vector register read with a lane select, or by the\n"
    "    legacy convention, which is counted as legacy too; not a vector\n"
    "    register without a lane where the convention needs one), through a\n"
    "    producer quirk, or at an address the object leaves undefined (LDS);\n"
    "    whether the function has call frame information (real, synthesized,\n"
    "    none: frames a debugger cannot unwind).\n"
    "\n"
    "The text output is a table of coverage buckets as llvm-locstats prints\n"
    "it, then one line per function.\n"
    "\n"
    "  --json           the statistics as JSON (specs/json.md)\n"
    "  --variables      every variable too: a line each, or with --json its\n"
    "                   coverage and segments (kept in memory: large objects\n"
    "                   need several times their DWARF's size)\n"
    "  --svg FILE       draw each function as a band over its PC range, one\n"
    "                   row per variable coloured by location kind, gaps where\n"
    "                   it has none, inlined subroutines marked (specs/stats.md)\n"
    "  --why VAR        why VAR (innermost in scope at --pc) has no value there:\n"
    "                   available, not_in_scope, no_location, no_entry_at_pc\n"
    "                   (with the nearest ranges that have one),\n"
    "                   optimized_out_at_pc, undefined_address, quirk (read\n"
    "                   through a producer quirk), no_lane, no_private_segment\n"
    "  --pc ADDR        the code address for --why\n"
    "  --diff BASE NEW  match functions and variables of two builds by name,\n"
    "                   declaration file and line, and inlining; coverage lost\n"
    "                   and gained per variable, worst first; disappeared\n"
    "                   variables; lane-correct coverage lost\n"
    "  --max-drop PCT   with --diff: exit 1 when a function's coverage drops by\n"
    "                   more than PCT percentage points\n"
    "  --prologues      analyze the prologue of every function whose FDE has no\n"
    "                   instructions (clang's): synthesized or none; without it\n"
    "                   such a function counts as none (milliseconds a function)\n"
    "  --no-quirks      read every location as written: no producer quirk\n"
    "                   (coverage through a quirk is counted apart otherwise)\n"
    "  --convention C   auto, legacy or extension (see amddwarf dump)\n"
    "  --dialect D      auto, draft, vendor or user\n"
    "\n"
    "examples: amddwarf stats kernel.o\n"
    "          amddwarf stats kernel.o --why x --pc 0x1c\n"
    "          amddwarf stats --diff kernel-O0.o kernel-O2.o --max-drop 20\n"
    "\n"
    "Exit status: 0 success, 1 bad input (or --max-drop exceeded), 2 usage.\n";

/* ---- shared text ---- */

/* ---- JSON ---- */

static json_t *llvm_json(const amddwarf_stats *stats)
{
  json_t *o = json_object();
  for (size_t i = 0; i < amddwarf_stats_llvm_count(stats); ++i) {
    const amddwarf_stats_key *k = amddwarf_stats_llvm_key(stats, i);
    json_object_set_new(o, k->key, k->value == UINT64_MAX ? json_string("overflowed")
                                                         : json_integer((json_int_t)k->value));
  }
  return o;
}

static json_t *coverage_json(const amddwarf_stats_coverage *c)
{
  json_t *o = json_object();
  json_object_set_new(o, "scope", json_integer((json_int_t)c->scope));
  json_object_set_new(o, "covered", json_integer((json_int_t)c->covered));
  json_t *kinds = json_object();
  for (int k = 0; k < AMDDWARF_LOC_KIND_COUNT; ++k)
    json_object_set_new(kinds, amddwarf_loc_kind_name((amddwarf_loc_kind)k),
                        json_integer((json_int_t)c->kind[k]));
  json_object_set_new(o, "by_kind", kinds);
  json_object_set_new(o, "lane_correct", json_integer((json_int_t)c->lane_correct));
  json_object_set_new(o, "legacy", json_integer((json_int_t)c->legacy));
  json_object_set_new(o, "lane_missing", json_integer((json_int_t)c->lane_missing));
  json_object_set_new(o, "quirk", json_integer((json_int_t)c->quirk));
  json_object_set_new(o, "unknown_address", json_integer((json_int_t)c->unknown_address));
  return o;
}

static json_t *flags_json(unsigned flags)
{
  json_t *a = json_array();
  for (unsigned bit = 1; bit <= AMDDWARF_LOC_UNDECODABLE; bit <<= 1)
    if (flags & bit)
      json_array_append_new(a, json_string(amddwarf_loc_flag_name(bit)));
  return a;
}

static json_t *ranges_json(const amddwarf_range *r, size_t n)
{
  json_t *a = json_array();
  for (size_t i = 0; i < n; ++i) {
    json_t *p = json_array();
    json_array_append_new(p, cli_json_addr(r[i].low));
    json_array_append_new(p, cli_json_addr(r[i].high));
    json_array_append_new(a, p);
  }
  return a;
}

static json_t *var_json(const amddwarf_stats_var *v)
{
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(v->name));
  json_object_set_new(o, "kind", json_string(v->is_param ? "parameter" : "variable"));
  json_object_set_new(o, "decl_file", json_string(v->decl_file));
  json_object_set_new(o, "decl_line", json_integer(v->decl_line));
  json_object_set_new(o, "die", cli_json_addr(v->die_offset));
  json_object_set_new(o, "has_location", json_boolean(v->has_location));
  json_object_set_new(o, "inline_depth", json_integer(v->inline_depth));
  json_object_set_new(o, "inlined_from",
                      v->inlined_from != NULL ? json_string(v->inlined_from) : json_null());
  json_object_set_new(o, "call_line", json_integer(v->call_line));
  json_object_set_new(o, "scope", ranges_json(v->scope, v->scope_count));
  json_object_set_new(o, "coverage", coverage_json(&v->coverage));
  json_t *segs = json_array();
  for (size_t s = 0; s < v->segment_count; ++s) {
    const amddwarf_stats_segment *seg = &v->segments[s];
    json_t *j = json_object();
    json_object_set_new(j, "low", cli_json_addr(seg->low));
    json_object_set_new(j, "high", cli_json_addr(seg->high));
    json_object_set_new(j, "kind", json_string(amddwarf_loc_kind_name((amddwarf_loc_kind)seg->kind)));
    json_object_set_new(j, "lane", json_string(amddwarf_lane_status_name(seg->lane)));
    json_object_set_new(j, "flags", flags_json(seg->flags));
    json_array_append_new(segs, j);
  }
  json_object_set_new(o, "segments", segs);
  return o;
}

static json_t *function_json(const amddwarf_stats_function *fn)
{
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(fn->name));
  json_object_set_new(o, "linkage_name",
                      fn->linkage_name != NULL ? json_string(fn->linkage_name) : json_null());
  json_object_set_new(o, "kind", json_string(fn->is_kernel ? "kernel" : "device"));
  json_object_set_new(o, "decl_file", json_string(fn->decl_file));
  json_object_set_new(o, "decl_line", json_integer(fn->decl_line));
  json_object_set_new(o, "die", cli_json_addr(fn->die_offset));
  json_object_set_new(o, "ranges", ranges_json(fn->ranges, fn->range_count));
  json_object_set_new(o, "bytes", json_integer((json_int_t)fn->bytes));
  json_object_set_new(o, "cfi", json_string(amddwarf_stats_cfi_name((amddwarf_stats_cfi)fn->cfi)));
  json_object_set_new(o, "inlined", ranges_json(fn->inlined, fn->inlined_count));
  json_object_set_new(o, "variable_count", json_integer((json_int_t)fn->var_count));
  json_object_set_new(o, "coverage", coverage_json(&fn->coverage));
  json_t *vars = json_array();
  for (size_t v = 0; fn->vars != NULL && v < fn->var_count; ++v)
    json_array_append_new(vars, var_json(&fn->vars[v]));
  json_object_set_new(o, "variables", vars);
  return o;
}

static json_t *totals_json(const amddwarf_stats *stats)
{
  json_t *o = json_object();
  amddwarf_stats_totals t;
  amddwarf_stats_totals_get(stats, &t);
  json_object_set_new(o, "kernels", json_integer((json_int_t)t.kernels));
  json_object_set_new(o, "device_functions", json_integer((json_int_t)t.device_functions));
  json_object_set_new(o, "cfi_real", json_integer((json_int_t)t.cfi[AMDDWARF_STATS_CFI_REAL]));
  json_object_set_new(o, "cfi_synthesized",
                      json_integer((json_int_t)t.cfi[AMDDWARF_STATS_CFI_SYNTHESIZED]));
  json_object_set_new(o, "cfi_none", json_integer((json_int_t)t.cfi[AMDDWARF_STATS_CFI_NONE]));
  json_object_set_new(o, "kernel_coverage", coverage_json(&t.kernel_coverage));
  json_object_set_new(o, "device_function_coverage", coverage_json(&t.device_coverage));
  return o;
}

/* One file's document, written function by function: a large object's
   functions are never all in memory as JSON. */
static void put_file_json(const stats_input *in, bool last)
{
  printf("    {\n      \"file\": ");
  cli_json_put(json_string(in->path), 6);
  printf(",\n      \"llvm_dwarfdump\": ");
  cli_json_put(llvm_json(in->stats), 6);
  printf(",\n      \"totals\": ");
  cli_json_put(totals_json(in->stats), 6);
  size_t n = amddwarf_stats_function_count(in->stats);
  printf(",\n      \"functions\": [%s", n ? "\n        " : "");
  for (size_t i = 0; i < n; ++i) {
    cli_json_put(function_json(amddwarf_stats_function_at(in->stats, i)), 8);
    printf("%s", i + 1 < n ? ",\n        " : "\n      ");
  }
  printf("]\n    }%s\n", last ? "" : ",");
}

/* ---- text ---- */

/* A percentage as llvm-locstats rounds it. */
static int locstats_pct(uint64_t part, uint64_t whole)
{
  return (int)(table_pct(part, whole) + 0.5);
}

static void print_buckets(const amddwarf_stats *stats)
{
  static const char *const labels[] = {"0%",        "(0%,10%)",  "[10%,20%)", "[20%,30%)",
                                       "[30%,40%)", "[40%,50%)", "[50%,60%)", "[60%,70%)",
                                       "[70%,80%)", "[80%,90%)", "[90%,100%)", "100%"};
  uint64_t total = amddwarf_stats_llvm_value(stats, "#variables processed by location statistics");
  printf(" =================================================\n"
         "            Debug Location Statistics       \n"
         " =================================================\n"
         "     cov%%           samples         percentage(~)  \n"
         " -------------------------------------------------\n");
  for (int i = 0; i < 12; ++i) {
    char key[128];
    snprintf(key, sizeof key, "#variables with %s of parent scope covered by DW_AT_location",
             labels[i]);
    uint64_t n = amddwarf_stats_llvm_value(stats, key);
    printf("   %-12s %12llu            %3d%%\n", labels[i], (unsigned long long)n,
           locstats_pct(n, total));
  }
  printf(" =================================================\n"
         " -the number of debug variables processed: %llu\n"
         " -PC ranges covered: %d%%\n"
         " -------------------------------------------------\n"
         " -total availability: %d%%\n"
         " =================================================\n",
         (unsigned long long)total,
         locstats_pct(amddwarf_stats_llvm_value(stats, "sum_all_variables(#bytes in parent scope covered by "
                                       "DW_AT_location)"),
                      amddwarf_stats_llvm_value(stats, "sum_all_variables(#bytes in parent scope)")),
         locstats_pct(amddwarf_stats_llvm_value(stats, "#source variables with location"),
                      amddwarf_stats_llvm_value(stats, "#source variables")));
}

static void print_kinds(table_text *o, const amddwarf_stats_coverage *c)
{
  for (int k = 0; k < AMDDWARF_LOC_KIND_COUNT; ++k)
    if (c->kind[k]) {
      table_bytes(o, " ", 1);
      table_string(o, amddwarf_loc_kind_name((amddwarf_loc_kind)k), 0);
      table_bytes(o, " ", 1);
      table_percent(o, c->kind[k], c->scope, 0, 0);
    }
}

static void print_text(const stats_input *in, bool variables)
{
  amddwarf_stats_totals t;
  amddwarf_stats_totals_get(in->stats, &t);
  printf("%s: %zu kernels, %zu device functions; call frame information: %zu real, %zu "
         "synthesized, %zu none\n",
         in->path, t.kernels, t.device_functions, t.cfi[AMDDWARF_STATS_CFI_REAL],
         t.cfi[AMDDWARF_STATS_CFI_SYNTHESIZED], t.cfi[AMDDWARF_STATS_CFI_NONE]);
  print_buckets(in->stats);
  printf("%-32s %-6s %-5s %8s %5s %8s %8s %7s %6s %6s  by kind\n", "function", "kind", "cfi",
         "bytes", "vars", "covered", "per-lane", "legacy", "quirk", "undef");
  /* A big object has a row for each function (160,000 in the benchmark
     object), each with five percentages: table_text makes them without
     printf, whose floating-point formatting took most of the time after
     the statistics. */
  fflush(stdout);
  static table_text o; /* 64 KiB: not on the stack */
  table_init(&o, stdout);
  for (size_t i = 0; i < amddwarf_stats_function_count(in->stats); ++i) {
    const amddwarf_stats_function *fn = amddwarf_stats_function_at(in->stats, i);
    const amddwarf_stats_coverage *c = &fn->coverage;
    /* "%-32s %-6s %-5s %8llu %5zu %7.1f%% %7.1f%% %6.1f%% %5.1f%% %5.1f%% " */
    table_string(&o, fn->name, 32);
    table_bytes(&o, " ", 1);
    table_string(&o, fn->is_kernel ? "kernel" : "device", 6);
    table_bytes(&o, " ", 1);
    table_string(&o, amddwarf_stats_cfi_name((amddwarf_stats_cfi)fn->cfi), 5);
    table_bytes(&o, " ", 1);
    table_uint(&o, fn->bytes, 8);
    table_bytes(&o, " ", 1);
    table_uint(&o, fn->var_count, 5);
    static const int widths[5] = {7, 7, 6, 5, 5};
    const uint64_t parts[5] = {c->covered, c->lane_correct, c->legacy, c->quirk,
                               c->unknown_address};
    for (int k = 0; k < 5; ++k) {
      table_bytes(&o, " ", 1);
      table_percent(&o, parts[k], c->scope, widths[k], 1);
    }
    table_bytes(&o, " ", 1);
    print_kinds(&o, c);
    table_bytes(&o, "\n", 1);
    for (size_t v = 0; variables && fn->vars != NULL && v < fn->var_count; ++v) {
      const amddwarf_stats_var *var = &fn->vars[v];
      const amddwarf_stats_coverage *vc = &var->coverage;
      /* "  %-30s %-9s %7.1f%% %7.1f%%" */
      table_bytes(&o, "  ", 2);
      table_string(&o, var->name, 30);
      table_bytes(&o, " ", 1);
      table_string(&o, var->is_param ? "parameter" : "variable", 9);
      table_bytes(&o, " ", 1);
      table_percent(&o, vc->covered, vc->scope, 7, 1);
      table_bytes(&o, " ", 1);
      table_percent(&o, vc->lane_correct, vc->scope, 7, 1);
      if (var->inlined_from != NULL) {
        table_bytes(&o, " [inlined ", 10);
        table_string(&o, var->inlined_from, 0);
        table_bytes(&o, "]", 1);
      }
      print_kinds(&o, vc);
      table_bytes(&o, "\n", 1);
    }
  }
  table_flush(&o);
}

/* ---- --why ---- */

static int print_why(const char *path, amddwarf_object *object, const char *name, uint64_t pc,
                     bool json)
{
  amddwarf_why why;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_stats_why(object, name, pc, &why, &err);
  if (st != AMDDWARF_OK)
    return cli_report_error("stats", json, st, &err);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(path));
    json_object_set_new(o, "variable", json_string(name));
    json_object_set_new(o, "pc", cli_json_addr(pc));
    json_object_set_new(o, "reason", json_string(amddwarf_unavailable_name(why.reason)));
    json_object_set_new(o, "message", json_string(why.message));
    json_object_set_new(o, "die", why.die_offset ? cli_json_addr(why.die_offset) : json_null());
    json_object_set_new(o, "location_kind",
                        why.die_offset ? json_string(amddwarf_loc_kind_name(why.location.kind))
                                       : json_null());
    json_object_set_new(o, "lane", why.die_offset ? json_string(amddwarf_lane_status_name(why.location.lane))
                                                  : json_null());
    json_object_set_new(o, "nearest_before",
                        why.has_before ? ranges_json(&why.before, 1) : json_null());
    json_object_set_new(o, "nearest_after",
                        why.has_after ? ranges_json(&why.after, 1) : json_null());
    cli_print_json(o);
  } else {
    printf("%s at 0x%llx: %s: %s\n", name, (unsigned long long)pc,
           amddwarf_unavailable_name(why.reason), why.message);
  }
  return CLI_EXIT_OK;
}

/* ---- --diff ---- */

static int print_diff(const stats_input *base, const stats_input *new_input, bool json,
                      double max_drop, bool gate)
{
  amddwarf_stats_diff *diff = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_stats_diff_compute(base->stats, new_input->stats, &diff, &err);
  if (st != AMDDWARF_OK)
    return cli_report_error("stats", json, st, &err);
  int failing = 0;
  for (size_t i = 0; i < diff->function_count; ++i) {
    const amddwarf_diff_function *f = &diff->functions[i];
    if (gate && f->status == AMDDWARF_DIFF_MATCHED &&
        (f->base_covered - f->new_covered) / 10.0 > max_drop)
      ++failing;
  }
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "base", json_string(base->path));
    json_object_set_new(o, "new", json_string(new_input->path));
    json_t *fns = json_array();
    for (size_t i = 0; i < diff->function_count; ++i) {
      const amddwarf_diff_function *f = &diff->functions[i];
      json_t *j = json_object();
      json_object_set_new(j, "name", json_string(f->name));
      json_object_set_new(j, "decl_file", json_string(f->decl_file ? f->decl_file : ""));
      json_object_set_new(j, "decl_line", json_integer(f->decl_line));
      json_object_set_new(j, "status", json_string(amddwarf_diff_status_name(f->status)));
      json_object_set_new(j, "base_covered_permille", json_integer(f->base_covered));
      json_object_set_new(j, "new_covered_permille", json_integer(f->new_covered));
      json_object_set_new(j, "base_lane_correct_permille", json_integer(f->base_lane_correct));
      json_object_set_new(j, "new_lane_correct_permille", json_integer(f->new_lane_correct));
      json_array_append_new(fns, j);
    }
    json_object_set_new(o, "functions", fns);
    json_t *vars = json_array();
    for (size_t i = 0; i < diff->var_count; ++i) {
      const amddwarf_diff_var *v = &diff->vars[i];
      json_t *j = json_object();
      json_object_set_new(j, "function", json_string(v->function));
      json_object_set_new(j, "name", json_string(v->name));
      json_object_set_new(j, "decl_file", json_string(v->decl_file ? v->decl_file : ""));
      json_object_set_new(j, "decl_line", json_integer(v->decl_line));
      json_object_set_new(j, "inlined_from",
                          v->inlined_from ? json_string(v->inlined_from) : json_null());
      json_object_set_new(j, "status", json_string(amddwarf_diff_status_name(v->status)));
      json_object_set_new(j, "base_covered_permille", json_integer(v->base_covered));
      json_object_set_new(j, "new_covered_permille", json_integer(v->new_covered));
      json_object_set_new(j, "base_lane_correct_permille", json_integer(v->base_lane_correct));
      json_object_set_new(j, "new_lane_correct_permille", json_integer(v->new_lane_correct));
      json_array_append_new(vars, j);
    }
    json_object_set_new(o, "variables", vars);
    json_object_set_new(o, "functions_over_max_drop", json_integer(failing));
    cli_print_json(o);
  } else {
    printf("base %s, new %s\n%-32s %-11s %8s %8s %8s %10s\n", base->path, new_input->path,
           "function", "status", "base", "new", "change", "per-lane");
    for (size_t i = 0; i < diff->function_count; ++i) {
      const amddwarf_diff_function *f = &diff->functions[i];
      printf("%-32s %-11s %7.1f%% %7.1f%% %+7.1f%% %+9.1f%%\n", f->name, amddwarf_diff_status_name(f->status),
             f->base_covered / 10.0, f->new_covered / 10.0,
             (f->new_covered - f->base_covered) / 10.0,
             (f->new_lane_correct - f->base_lane_correct) / 10.0);
    }
    printf("\n%-24s %-24s %-11s %8s %8s %8s %10s\n", "function", "variable", "status", "base",
           "new", "change", "per-lane");
    for (size_t i = 0; i < diff->var_count; ++i) {
      const amddwarf_diff_var *v = &diff->vars[i];
      char name[256];
      snprintf(name, sizeof name, "%s%s%s%s", v->name, v->inlined_from ? " [" : "",
               v->inlined_from ? v->inlined_from : "", v->inlined_from ? "]" : "");
      printf("%-24s %-24s %-11s %7.1f%% %7.1f%% %+7.1f%% %+9.1f%%\n", v->function, name,
             amddwarf_diff_status_name(v->status), v->base_covered / 10.0, v->new_covered / 10.0,
             (v->new_covered - v->base_covered) / 10.0,
             (v->new_lane_correct - v->base_lane_correct) / 10.0);
    }
    if (gate)
      printf("\n%d function%s lost more than %g%% coverage\n", failing, failing == 1 ? "" : "s",
             max_drop);
  }
  amddwarf_stats_diff_free(diff);
  return failing ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
}

/* ---- main ---- */

#define MAX_FILES 64

static int write_svg(const char *path, const stats_input *a, const stats_input *b, bool json)
{
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return cli_file_error("stats", json, path, "cannot be written");
  int drawn = cli_stats_svg(f, a, b);
  if (fclose(f) != 0 || drawn != 0)
    return cli_file_error("stats", json, path, "cannot be written");
  return 0;
}

int cli_stats_main(int argc, char **argv)
{
  cli_object_args common = {0};
  const char *paths[MAX_FILES];
  size_t path_count = 0;
  const char *svg = NULL, *why = NULL, *pc_text = NULL, *max_drop_text = NULL;
  bool diff = false, variables = false, prologues = false;
  const cli_option arguments[] = {
      CLI_VALUE("--svg", &svg),     CLI_VALUE("--why", &why),
      CLI_VALUE("--pc", &pc_text),  CLI_VALUE("--max-drop", &max_drop_text),
      CLI_FLAG("--diff", &diff),    CLI_FLAG("--variables", &variables),
      CLI_FLAG("--prologues", &prologues)};
  for (int i = 1; i < argc; ++i) {
    int taken = cli_object_arg("stats", usage, argc, argv, &i, &common, CLI_OPTIONS(arguments));
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return CLI_ARG_EXIT(taken);
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error("stats", "unknown option '%s'", argv[i]);
    if (path_count == MAX_FILES)
      return cli_usage_error("stats", "more than %d files", MAX_FILES);
    paths[path_count++] = argv[i];
  }
  if (path_count == 0)
    return cli_usage_error("stats", "missing OBJECT");
  if (diff && path_count != 2)
    return cli_usage_error("stats", "--diff takes two objects, BASE and NEW");
  if (max_drop_text != NULL && !diff)
    return cli_usage_error("stats", "--max-drop goes with --diff");
  if ((why != NULL) != (pc_text != NULL))
    return cli_usage_error("stats", "--why and --pc go together");
  if (why != NULL && (path_count != 1 || diff))
    return cli_usage_error("stats", "--why takes one object");
  uint64_t pc = 0;
  if (pc_text != NULL && cli_parse_u64(pc_text, &pc) != 0)
    return cli_usage_error("stats", "bad --pc '%s'", pc_text);
  double max_drop = 0;
  if (max_drop_text != NULL) {
    char *end = NULL;
    max_drop = strtod(max_drop_text, &end);
    if (end == max_drop_text || *end != '\0' || max_drop < 0)
      return cli_usage_error("stats", "bad --max-drop '%s'", max_drop_text);
  }
  cli_object_args args[MAX_FILES];
  amddwarf_object *objects[MAX_FILES] = {0};
  stats_input inputs[MAX_FILES];
  memset(inputs, 0, sizeof inputs);
  int status = CLI_EXIT_OK;
  size_t opened = 0;
  amddwarf_stats_options options;
  amddwarf_stats_options_init(&options);
  options.flags |= (svg != NULL || diff || variables) ? AMDDWARF_STATS_VARIABLES : 0;
  options.flags |= prologues ? AMDDWARF_STATS_ANALYZE_PROLOGUES : 0;
  for (; opened < path_count && status == CLI_EXIT_OK && why == NULL; ++opened) {
    args[opened] = common;
    args[opened].path = paths[opened];
    args[opened].data = NULL;
    if ((status = cli_object_open("stats", &args[opened], &objects[opened])) != 0)
      break;
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    inputs[opened].path = paths[opened];
    amddwarf_status st = amddwarf_stats_compute(objects[opened], &options, &inputs[opened].stats,
                                                &err);
    if (st != AMDDWARF_OK) {
      status = cli_report_error("stats", common.json, st, &err);
      ++opened;
      break;
    }
  }
  if (why != NULL) {
    args[0] = common;
    args[0].path = paths[0];
    if ((status = cli_object_open("stats", &args[0], &objects[0])) == 0) {
      status = print_why(paths[0], objects[0], why, pc, common.json);
      cli_object_close(&args[0], objects[0]);
    }
    return status;
  }
  if (status == CLI_EXIT_OK && svg != NULL)
    status = write_svg(svg, &inputs[0], diff ? &inputs[1] : NULL, common.json);
  if (status == CLI_EXIT_OK && diff) {
    status = print_diff(&inputs[0], &inputs[1], common.json, max_drop, max_drop_text != NULL);
  } else if (status == CLI_EXIT_OK && common.json) {
    printf("{\n  \"files\": [\n");
    for (size_t i = 0; i < path_count; ++i)
      put_file_json(&inputs[i], i + 1 == path_count);
    printf("  ]\n}\n");
  } else if (status == CLI_EXIT_OK) {
    for (size_t i = 0; i < path_count; ++i)
      print_text(&inputs[i], variables);
  }
  for (size_t i = 0; i < opened; ++i) {
    amddwarf_stats_free(inputs[i].stats);
    cli_object_close(&args[i], objects[i]);
  }
  return status;
}
