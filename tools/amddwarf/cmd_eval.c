/* amddwarf eval: evaluates a source variable (with member, index,
 * dereference and address-of operators) of a code object against a wave
 * snapshot, for one lane or several, and prints it the way a debugger does;
 * with --set, assigns to it first and may save the changed snapshot. A
 * client of the debugger layer (<amddwarf/debug.h>): the wave, the frame,
 * the value and its text per lane come from the library. */
#include <stdlib.h>
#include <string.h>

#include "wave_cli.h"
#include "trace_print.h"

static const char *const usage =
    "usage: amddwarf eval [OBJECT] --state SNAPSHOT [--pc ADDR] [--frame N]\n"
    "                     [--lane N | --lanes all|LIST] [--json] [--explain]\n"
    "                     [--convention C] [--no-quirks] [--trace] [--stats]\n"
    "                     [--set PATH=VALUE [--save-state OUT]] EXPR\n"
    "\n"
    CLI_OBJECT_SELECT_HELP_SHORT
    "\n"
    "Finds the variable or parameter EXPR names in the scopes of the frame at\n"
    "the PC (innermost first), evaluates its location for each lane of the wave\n"
    "in SNAPSHOT (a JSON wave state, specs/snapshot.md), follows EXPR's\n"
    "operators, reads the result and prints it by its type: integers, floats,\n"
    "bools, chars (65 'A'), enums (the enumerator, else the number), pointers\n"
    "with their address space, arrays, structs, unions, bitfields and vectors.\n"
    "<optimized out> means no location applies at the PC, or (inside a struct\n"
    "or array) that the location's pieces do not describe those bits;\n"
    "<unavailable> that the snapshot lacks the register or memory, or (with\n"
    "the reason) that the object does not know the variable's address: it\n"
    "comes from a symbol the object leaves undefined (amddwarf check).\n"
    "<inactive>: a lane not active at the PC (amddwarf lanes); it stands at\n"
    "its own PC, so it is not read (specs/debug-api.md).\n"
    "\n"
    "A snapshot listing code_objects (specs/snapshot.md) has process\n"
    "addresses and names its code objects: OBJECT may be left out.\n"
    "\n"
    "  EXPR           a C expression of one variable (specs/eval-paths.md):\n"
    "                   NAME  E.MEMBER  E->MEMBER  E[INDEX]  *E  &E  (E)\n"
    "                 INDEX is an integer (decimal, 0x hex, may be negative on\n"
    "                 pointers); members of anonymous structs and unions\n"
    "                 and base classes are found by name; C++ references are\n"
    "                 followed; a vector's component is v.x or v.s3. Examples:\n"
    "                   s.x  tile[3]  m[1][2]  m[1]  p->y  **pp  (*p).x  p[2]  &x\n"
    "  --pc ADDR      code address (default: the snapshot's pc)\n"
    "  --frame N      the frame whose variables EXPR names: 0 (the default) is\n"
    "                 the innermost, inlined subroutines counting as frames;\n"
    "                 callers are found by unwinding with the CFI\n"
    "  --lane N       one lane (default: the snapshot's lane)\n"
    "  --lanes L      several lanes, printed as a table (one row per run of lanes\n"
    "                 that print the same): a list of lanes, ranges, all (every\n"
    "                 lane) and active (the active lanes), like 0,2,5-7,active\n"
    "  --explain      also print the variable's location description and, per\n"
    "                 lane, the pointers followed and which bits of the value\n"
    "                 come from which register (and lane), or address space,\n"
    "                 lane and address; a lane without a value gets the reason\n"
    "                 of amddwarf stats --why: [why: no_entry_at_pc], ...\n"
    "  --set P=V      first assign V to the scalar, enum, pointer or bitfield P\n"
    "                 in every lane of --lane/--lanes: an integer (decimal, 0x,\n"
    "                 negative), a float, true/false, a character 'c', an\n"
    "                 enumerator's name, or an address; all lanes or none are\n"
    "                 written. EXPR defaults to P\n"
    "  --inactive     --set writes inactive lanes too (refused without)\n"
    "  --save-state OUT  write the snapshot, with what --set changed, to OUT\n"
    "  --json         JSON output\n"
    "  --no-quirks    read locations as written, without producer quirks\n"
    "  --trace        print on stderr, per lane, every operation with the stack\n"
    "                 after it and every target access (also AMDDWARF_TRACE=1)\n"
    "  --stats        print counts and times per phase on stderr\n"
    "\n"
    "Locations are read under the unit's convention (specs/conventions.md).\n"
    "Errors in EXPR's types (no such member, an index out of bounds, '*' on a\n"
    "non-pointer) are reported before any lane is read.\n"
    "\n"
    "examples: amddwarf eval k.o --state wave.json --lanes 0-3 s.x\n"
    "          amddwarf eval k.o --state wave.json --lanes all --set s.x=7 \\\n"
    "              --save-state wave2.json\n";

typedef struct eval_args {
  cli_object_args object;
  const char *state, *pc, *lane, *lanes, *frame, *expr, *set, *save;
  bool explain, trace, stats, inactive;
} eval_args;

/* Scans the command line; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, eval_args *a)
{
  a->trace = trace_env_enabled();
  const cli_option options[] = {
      CLI_FLAG("--inactive", &a->inactive), CLI_FLAG("--explain", &a->explain),
      CLI_FLAG("--trace", &a->trace),       CLI_FLAG("--stats", &a->stats),
      CLI_VALUE("--state", &a->state),      CLI_VALUE("--pc", &a->pc),
      CLI_VALUE("--frame", &a->frame),      CLI_VALUE("--lane", &a->lane),
      CLI_VALUE("--lanes", &a->lanes),      CLI_VALUE("--set", &a->set),
      CLI_VALUE("--save-state", &a->save)};
  for (int i = 1; i < argc; ++i) {
    int taken = cli_object_arg("eval", usage, argc, argv, &i, &a->object, CLI_OPTIONS(options));
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return CLI_ARG_EXIT(taken);
    if (argv[i][0] == '-' && argv[i][1] != '\0' && argv[i][1] != '>')
      return cli_usage_error("eval", "unknown option '%s'", argv[i]);
    if (a->object.path == NULL)
      a->object.path = argv[i];
    else if (a->expr == NULL)
      a->expr = argv[i];
    else
      return cli_usage_error("eval", "unexpected argument '%s'", argv[i]);
  }
  /* One operand without --set is EXPR: a snapshot that lists its code
     objects names them itself. */
  if (a->expr == NULL && a->set == NULL) {
    a->expr = a->object.path;
    a->object.path = NULL;
  }
  if (a->expr == NULL && a->set == NULL)
    return cli_usage_error("eval", "missing OBJECT or EXPR");
  if (a->state == NULL)
    return cli_usage_error("eval", "missing --state SNAPSHOT");
  if (a->lane && a->lanes)
    return cli_usage_error("eval", "--lane and --lanes exclude each other");
  if (a->set != NULL && (strchr(a->set, '=') == NULL || a->set[0] == '='))
    return cli_usage_error("eval", "--set '%s' is not PATH=VALUE", a->set);
  return -1;
}

/* The lanes asked for: --lanes (a lane list of the wave, amddwarf_wave_lanes_parse),
   --lane, or the snapshot's lane. */
static int lane_mask(const eval_args *a, const amddwarf_snapshot *snap, amddwarf_wave *wave,
                     uint64_t *mask)
{
  unsigned wave_size = amddwarf_wave_get_info(wave)->wave_size;
  uint64_t lane = amddwarf_snapshot_lane(snap);
  if (a->lanes != NULL) {
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    amddwarf_status st = amddwarf_wave_lanes_parse(wave, a->lanes, mask, &err);
    if (st == AMDDWARF_E_INVALID_ARGUMENT)
      return cli_usage_error("eval", "--lanes: %s", err.message);
    return st == AMDDWARF_OK ? 0 : cli_report_error("eval", a->object.json, st, &err);
  }
  if (a->lane != NULL && (cli_parse_u64(a->lane, &lane) != 0 || lane >= wave_size))
    return cli_usage_error("eval", "--lane '%s' is not a lane below %u", a->lane, wave_size);
  *mask = 1ull << lane;
  return 0;
}

/* A value of PATH: a syntax error is a usage error, others are reported. */
static int open_value(const eval_args *a, amddwarf_wave *wave, size_t frame, const char *path,
                      amddwarf_valobj **value)
{
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_valobj_new(wave, frame, path, value, &err);
  if (st == AMDDWARF_E_INVALID_ARGUMENT && err.offset != AMDDWARF_NO_OFFSET)
    return cli_usage_error("eval", "cannot parse '%s': %s", path, err.message);
  if (st != AMDDWARF_OK) {
    int rc = cli_report_error("eval", a->object.json, st, &err);
    /* A variable an outer frame of the inline chain has: the command that reads it. */
    size_t outer = 0;
    if (st == AMDDWARF_NOT_FOUND && !a->object.json &&
        amddwarf_wave_path_frame(wave, frame, path, &outer) == AMDDWARF_OK)
      fprintf(stderr, "amddwarf eval: note: read it there: amddwarf eval %s%s%s --frame %zu %s\n",
              a->object.path ? a->object.path : "",
              a->object.path ? " --state " : "--state ", a->state ? a->state : "SNAPSHOT",
              outer, path);
    return rc;
  }
  return 0;
}

/* The PATH of --set PATH=VALUE, as a new string (NULL: no memory). */
static char *set_path(const char *set)
{
  size_t n = strcspn(set, "=");
  char *path = malloc(n + 1);
  if (path != NULL) {
    memcpy(path, set, n);
    path[n] = '\0';
  }
  return path;
}

/* --set PATH=VALUE for the lanes of MASK, then --save-state. */
static int assign(const eval_args *a, amddwarf_wave *wave, size_t frame,
                  amddwarf_snapshot *snap, uint64_t mask)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  const char *equals = strchr(a->set, '=');
  char *path = set_path(a->set);
  int rc = path == NULL ? cli_report_error("eval", a->object.json, AMDDWARF_E_NO_MEMORY, NULL)
                        : open_value(a, wave, frame, path, &value);
  amddwarf_error_clear(&err);
  if (rc == 0) {
    amddwarf_status st = amddwarf_valobj_assign_lanes(
        value, mask, equals + 1, a->inactive ? AMDDWARF_ASSIGN_INACTIVE : 0, &err);
    if (st != AMDDWARF_OK)
      rc = cli_report_error("eval", a->object.json, st, &err);
  }
  amddwarf_valobj_free(value);
  free(path);
  if (rc != 0 || a->save == NULL)
    return rc;
  char *text = NULL;
  size_t size = 0;
  amddwarf_status st = amddwarf_snapshot_save(snap, &text, &size, &err);
  if (st != AMDDWARF_OK)
    return cli_report_error("eval", a->object.json, st, &err);
  rc = cli_write_file("eval", a->object.json, a->save, text, size);
  free(text);
  return rc;
}

/* How a caller frame's registers were found: the callee's CFI, rows
   synthesized from its prologue, or the backend; NULL for frame 0's. */
static const char *unwound_by(const amddwarf_frame *f)
{
  if (f->physical == 0)
    return NULL;
  return f->backend_registers ? "backend" : f->unwound_by_prologue ? "synthesized" : "cfi";
}

/* What the text output says before the lanes: with --explain, the
   location, the producer quirk and how the frame's registers were found. */
static void print_head(const eval_args *a, const amddwarf_frame *frame,
                       const amddwarf_valobj *value)
{
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  const char *how = unwound_by(frame);
  if (!a->explain)
    return;
  printf("%s: %s\n", info->variable->name, amddwarf_valobj_location(value));
  if (info->quirk != AMDDWARF_QUIRK_NONE)
    printf("  read through producer quirk %s: %s (--no-quirks: as written)\n",
           info->quirk_name, amddwarf_quirk_get(info->quirk)->reading);
  if (how != NULL && strcmp(how, "cfi") != 0)
    printf("frame %zu: registers unwound by %s\n", frame->index,
           strcmp(how, "backend") == 0
               ? "the backend (caller_register), over rows synthesized from the prologue"
               : "rows synthesized from the callee's prologue (its FDE has no instructions)");
}

/* The JSON document of the value, without its lanes. */
static json_t *json_head(const eval_args *a, const char *expr, const amddwarf_frame *frame,
                         const amddwarf_valobj *value)
{
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  const char *how = unwound_by(frame);
  json_t *root = json_object();
  json_object_set_new(root, "pc", cli_json_addr(frame->pc));
  json_object_set_new(root, "expression", json_string(expr));
  json_object_set_new(root, "variable", cli_json_addr(info->variable->ref.die.offset));
  json_object_set_new(root, "type", json_string(info->type_name));
  if (a->explain)
    json_object_set_new(root, "location_expression", json_string(amddwarf_valobj_location(value)));
  json_object_set_new(root, "quirk",
                      info->quirk_name ? json_string(info->quirk_name) : json_null());
  if (how != NULL)
    json_object_set_new(root, "registers_unwound_by", json_string(how));
  return root;
}

/* One lane's read as a member of "lanes" (specs/json.md). */
static json_t *json_lane(const eval_args *a, const amddwarf_lane_value *v)
{
  json_t *o = json_object();
  json_object_set_new(o, "lane", json_integer(v->lane));
  json_object_set_new(o, "active", json_boolean(!v->inactive));
  if (v->state == AMDDWARF_LANE_INACTIVE)
    return o;
  if (v->state == AMDDWARF_LANE_VALUE) {
    json_object_set_new(o, "value", json_string(v->text));
  } else {
    json_object_set_new(o, "status", json_string(amddwarf_status_name(v->status)));
    json_object_set_new(o, "message", json_string(v->message));
    if (a->explain)
      json_object_set_new(o, "reason", v->reason != AMDDWARF_UNAVAILABLE_NONE
                                           ? json_string(amddwarf_unavailable_name(v->reason))
                                           : json_null());
  }
  if (a->explain && v->explain[0])
    json_object_set_new(o, "location", json_string(v->explain));
  return o;
}

/* Several lanes as text: the library's table of runs of lanes that read
   the same (amddwarf_valobj_lanes_table). */
static int print_table(const eval_args *a, amddwarf_valobj *value, uint64_t mask)
{
  amddwarf_error err;
  text_buf table = {0};
  amddwarf_error_clear(&err);
  amddwarf_status st = cli_buf_value_lanes(&table, value, mask,
                                           a->explain ? AMDDWARF_LANE_TEXT_EXPLAIN : 0, &err);
  if (st == AMDDWARF_OK)
    fputs(table.data, stdout);
  text_buf_free(&table);
  return st == AMDDWARF_OK ? 0 : cli_report_error("eval", a->object.json, st, &err);
}

/* Reads every lane of MASK (tracing each when asked) and prints them: one
   lane as EXPR = TEXT, several as a table, or JSON. */
static int evaluate(const eval_args *a, amddwarf_wave *wave, size_t frame, uint64_t mask)
{
  const char *expr = a->expr;
  char *path = NULL;
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  text_buf text = {0};
  json_t *root = NULL, *lanes = NULL;
  int rc, failures = 0;
  if (expr == NULL)
    expr = path = set_path(a->set);
  if (expr == NULL)
    return cli_report_error("eval", a->object.json, AMDDWARF_E_NO_MEMORY, NULL);
  if ((rc = open_value(a, wave, frame, expr, &value)) != 0)
    goto cleanup;
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  const amddwarf_frame *where = NULL;
  amddwarf_wave_frame(wave, frame, &where, NULL);
  const amddwarf_cu *cu = amddwarf_object_cu(where->object, info->variable->ref.die.cu_index);
  amddwarf_expr_format format = amddwarf_unit_eval_format(cu);
  trace_printer tp;
  trace_printer_init(&tp, stderr, &format, a->trace);
  if (a->trace || a->stats)
    amddwarf_wave_set_trace(wave, trace_print_event, &tp);
  if (a->object.json) {
    root = json_head(a, expr, where, value);
    lanes = json_array();
    json_object_set_new(root, "lanes", lanes);
  }
  for (unsigned lane = 0; lane < AMDDWARF_MAX_LANES; ++lane) {
    amddwarf_lane_value v;
    if (!(mask >> lane & 1))
      continue;
    if (a->trace)
      fprintf(stderr, "lane %u:\n", lane);
    trace_phase_begin(&tp, "evaluate and read");
    amddwarf_error_clear(&err);
    amddwarf_status st = amddwarf_valobj_read(value, lane, &v, &err);
    trace_phase_end(&tp);
    if (st != AMDDWARF_OK) {
      rc = cli_report_error("eval", a->object.json, st, &err);
      goto cleanup;
    }
    failures += v.state == AMDDWARF_LANE_ERROR;
    if (lanes != NULL)
      json_array_append_new(lanes, json_lane(a, &v));
    else if ((mask & (mask - 1)) == 0) /* one lane: EXPR = TEXT */
      cli_buf_lane_value(&text, &v, a->explain ? AMDDWARF_LANE_TEXT_EXPLAIN : 0);
  }
  amddwarf_wave_set_trace(wave, NULL, NULL);
  if (a->stats)
    trace_print_stats(&tp, stderr);
  if (root != NULL) {
    cli_print_json(root);
    root = NULL;
  } else {
    print_head(a, where, value);
    if ((mask & (mask - 1)) == 0)
      printf("%s = %s\n", expr, text.data ? text.data : "");
    else if ((rc = print_table(a, value, mask)) != 0)
      goto cleanup;
  }
  rc = failures ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
cleanup:
  json_decref(root);
  text_buf_free(&text);
  amddwarf_valobj_free(value);
  free(path);
  return rc;
}

/* The wave of W at --pc or the snapshot's PC, and frame FRAME with DWARF
   for it. */
static int open_wave(const eval_args *a, cli_wave *w, size_t frame)
{
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.has_pc = a->pc != NULL;
  if (options.has_pc && cli_parse_u64(a->pc, &options.pc) != 0)
    return cli_usage_error("eval", "--pc '%s' is not a number", a->pc);
  if (!options.has_pc && amddwarf_snapshot_pc(w->snap, NULL) != AMDDWARF_OK)
    return cli_usage_error("eval", "the snapshot has no pc: give --pc");
  int rc = cli_wave_start("eval", a->object.json, w, &options);
  if (rc != 0)
    return rc;
  /* A PC no subprogram holds: say so as the other object commands do. */
  const amddwarf_frame *f = NULL;
  if (amddwarf_wave_frame(w->wave, frame, &f, NULL) == AMDDWARF_OK && !amddwarf_die_ref_valid(f->function)) {
    size_t count = 0;
    const amddwarf_object *object = f->object ? f->object : w->objects[0];
    amddwarf_status st =
        amddwarf_object_scope_refs_at(object, f->object_pc, NULL, 0, &count, NULL);
    return cli_report_no_scope("eval", a->object.json, object,
                               a->object.path ? a->object.path : "the code object",
                               f->lookup_pc, st == AMDDWARF_OK ? AMDDWARF_NOT_FOUND : st);
  }
  return 0;
}

int cli_eval_main(int argc, char **argv)
{
  eval_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  uint64_t frame = 0, mask = 0;
  cli_wave w;
  if (rc >= 0)
    return rc;
  if (a.frame != NULL && cli_parse_u64(a.frame, &frame) != 0)
    return cli_usage_error("eval", "--frame '%s' is not a number", a.frame);
  if ((rc = cli_wave_load("eval", &a.object, a.state, &w)) != 0 ||
      (rc = open_wave(&a, &w, (size_t)frame)) != 0 ||
      (rc = lane_mask(&a, w.snap, w.wave, &mask)) != 0)
    goto cleanup;
  if (a.set != NULL && (rc = assign(&a, w.wave, (size_t)frame, w.snap, mask)) != 0)
    goto cleanup;
  rc = evaluate(&a, w.wave, (size_t)frame, mask);
cleanup:
  cli_wave_close(&w);
  return rc;
}
