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

/* One lane's read, copied out of the value (its texts change with the next read). */
typedef struct lane_line {
  amddwarf_lane_state state;
  amddwarf_status status;
  int detailed;
  int inactive; /* amddwarf_lane_value.inactive */
  amddwarf_unavailable reason;
  cli_buf text, message, explain;
  cli_buf line; /* as the text table prints it */
} lane_line;

static const char *buf_text(const cli_buf *b)
{
  return b->data ? b->data : "";
}

/* A lane's value as text: the value, or what stands for it, with the
   reason when there is one, and where its bits are with --explain. */
static void format_lane(lane_line *l, const amddwarf_lane_value *v, bool explain)
{
  cli_buf_lane_value(&l->line, v);
  if (explain && v->explain[0])
    cli_buf_printf(&l->line, "    [%s]", v->explain);
  /* A message the text does not show already says which register or
     memory the location needs. */
  if (explain && v->reason != AMDDWARF_UNAVAILABLE_NONE && !v->detailed && v->message[0])
    cli_buf_printf(&l->line, "    [why: %s: %s]", amddwarf_unavailable_name(v->reason),
                   v->message);
  else if (explain && v->reason != AMDDWARF_UNAVAILABLE_NONE)
    cli_buf_printf(&l->line, "    [why: %s]", amddwarf_unavailable_name(v->reason));
}

static void keep_lane(lane_line *l, const amddwarf_lane_value *v, bool explain)
{
  l->state = v->state;
  l->status = v->status;
  l->detailed = v->detailed;
  l->inactive = v->inactive;
  l->reason = v->reason;
  cli_buf_printf(&l->text, "%s", v->text);
  cli_buf_printf(&l->message, "%s", v->message);
  cli_buf_printf(&l->explain, "%s", v->explain);
  format_lane(l, v, explain);
}

static void free_lines(lane_line *lines)
{
  for (unsigned l = 0; lines != NULL && l < AMDDWARF_MAX_LANES; ++l) {
    cli_buf_free(&lines[l].text);
    cli_buf_free(&lines[l].message);
    cli_buf_free(&lines[l].explain);
    cli_buf_free(&lines[l].line);
  }
  free(lines);
}

/* Scans the command line; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, eval_args *a)
{
  a->trace = trace_env_enabled();
  for (int i = 1; i < argc; ++i) {
    int rc, taken = cli_object_arg("eval", usage, argc, argv, &i, &a->object);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (cli_is_flag(argv[i], "--inactive")) {
      a->inactive = true;
      continue;
    }
    if (cli_is_flag(argv[i], "--explain") || cli_is_flag(argv[i], "--trace") ||
        cli_is_flag(argv[i], "--stats")) {
      *(cli_is_flag(argv[i], "--explain") ? &a->explain
        : cli_is_flag(argv[i], "--trace") ? &a->trace
                                          : &a->stats) = true;
      continue;
    }
    if ((rc = cli_option_value("eval", argc, argv, &i, "--state", &a->state)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--pc", &a->pc)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--frame", &a->frame)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lane", &a->lane)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lanes", &a->lanes)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--set", &a->set)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--save-state", &a->save)) != 0) {
      if (rc < 0)
        return CLI_EXIT_USAGE;
      continue;
    }
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

/* The lanes asked for: --lanes (a lane list of the wave, amddwarf_lanes_parse),
   --lane, or the snapshot's lane. */
static int lane_mask(const eval_args *a, const amddwarf_snapshot *snap, amddwarf_wave *wave,
                     uint64_t *mask)
{
  unsigned wave_size = amddwarf_wave_get_info(wave)->wave_size;
  uint64_t lane = amddwarf_snapshot_lane(snap);
  if (a->lanes != NULL) {
    const amddwarf_lanes *lanes = NULL;
    amddwarf_error err;
    amddwarf_error_clear(&err);
    amddwarf_status st = amddwarf_wave_lanes(wave, &lanes, &err);
    if (st != AMDDWARF_OK)
      return cli_report_error("eval", a->object.json, st, &err);
    if (amddwarf_lanes_parse(lanes, a->lanes, mask, &err) != AMDDWARF_OK)
      return cli_usage_error("eval", "--lanes: %s", err.message);
    return 0;
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
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_valobj_new(wave, frame, path, value, &err);
  if (st == AMDDWARF_E_INVALID_ARGUMENT && err.offset != AMDDWARF_NO_OFFSET)
    return cli_usage_error("eval", "cannot parse '%s': %s", path, err.message);
  if (st != AMDDWARF_OK) {
    int rc = cli_report_error("eval", a->object.json, st, &err);
    /* A name an outer frame of the inline chain has: the command that reads it. */
    size_t outer = 0;
    const char *start = path + strspn(path, "*&( ");
    size_t name_length = strcspn(start, ".-[*&() ");
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)name_length, start);
    if (st == AMDDWARF_NOT_FOUND && !a->object.json &&
        amddwarf_wave_variable_frame(wave, frame, name, &outer) == AMDDWARF_OK)
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

/* The expression format of the variable's unit, for printing traced operations. */
static amddwarf_expr_format trace_format(const amddwarf_object *object,
                                         const amddwarf_frame_var *var)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, var->ref.die.cu_index);
  amddwarf_expr_format format = cu->format;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY)
    format.dialect = AMDDWARF_DIALECT_USER; /* legacy expressions are normalized into it */
  return format;
}

/* Whether lanes A and B read the same (amddwarf_lane_values_equal) and,
   with --explain, have the same explanation. */
static bool same_lane(const lane_line *a, const lane_line *b, bool explain)
{
  amddwarf_lane_value x = {0}, y = {0};
  x.state = a->state, x.status = a->status, x.detailed = a->detailed, x.inactive = a->inactive;
  x.text = buf_text(&a->text), x.message = buf_text(&a->message);
  y.state = b->state, y.status = b->status, y.detailed = b->detailed, y.inactive = b->inactive;
  y.text = buf_text(&b->text), y.message = buf_text(&b->message);
  return amddwarf_lane_values_equal(&x, &y) &&
         (!explain || strcmp(buf_text(&a->explain), buf_text(&b->explain)) == 0);
}

/* Prints the lanes of MASK: one line per run of lanes that print the same,
   or JSON. Returns the exit status. */
/* How a caller frame's registers were found: the callee's CFI, rows
   synthesized from its prologue, or the backend; NULL for frame 0's. */
static const char *unwound_by(const amddwarf_frame *f)
{
  if (f->physical == 0)
    return NULL;
  return f->backend_registers ? "backend" : f->unwound_by_prologue ? "synthesized" : "cfi";
}

static int print_lanes(const eval_args *a, const char *expr, const amddwarf_frame *frame,
                       const amddwarf_valobj_info *info, const lane_line *lines, uint64_t mask)
{
  uint64_t pc = frame->pc;
  const char *how = unwound_by(frame);
  json_t *root = a->object.json ? json_object() : NULL;
  json_t *jl = root ? json_array() : NULL;
  bool multi = (mask & (mask - 1)) != 0;
  int failures = 0;
  if (root) {
    json_object_set_new(root, "pc", cli_json_addr(pc));
    json_object_set_new(root, "expression", json_string(expr));
    json_object_set_new(root, "variable", cli_json_addr(info->variable->ref.die.offset));
    json_object_set_new(root, "type", json_string(info->type_name));
    if (a->explain)
      json_object_set_new(root, "location_expression", json_string(info->location));
    json_object_set_new(root, "quirk",
                        info->quirk_name ? json_string(info->quirk_name) : json_null());
    if (how != NULL)
      json_object_set_new(root, "registers_unwound_by", json_string(how));
  } else {
    if (a->explain)
      printf("%s: %s\n", info->variable->name, info->location);
    if (a->explain && info->quirk != AMDDWARF_QUIRK_NONE)
      printf("  read through producer quirk %s: %s (--no-quirks: as written)\n",
             info->quirk_name, amddwarf_quirk_get(info->quirk)->reading);
    if (a->explain && how != NULL && strcmp(how, "cfi") != 0)
      printf("frame %zu: registers unwound by %s\n", frame->index,
             strcmp(how, "backend") == 0
                 ? "the backend (caller_register), over rows synthesized from the prologue"
                 : "rows synthesized from the callee's prologue (its FDE has no instructions)");
    if (multi)
      printf("%s (%s) at pc 0x%llx\nlanes  value\n", expr, info->type_name,
             (unsigned long long)pc);
  }
  for (unsigned lane = 0; lane < AMDDWARF_MAX_LANES; ++lane) {
    const lane_line *l = &lines[lane];
    if (!(mask >> lane & 1))
      continue;
    failures += l->state == AMDDWARF_LANE_ERROR;
    if (root == NULL)
      continue;
    json_t *o = json_object();
    json_object_set_new(o, "lane", json_integer(lane));
    json_object_set_new(o, "active", json_boolean(!l->inactive));
    if (l->state == AMDDWARF_LANE_INACTIVE) {
      json_array_append_new(jl, o);
      continue;
    }
    if (l->state == AMDDWARF_LANE_VALUE) {
      json_object_set_new(o, "value", json_string(buf_text(&l->text)));
    } else {
      json_object_set_new(o, "status", json_string(amddwarf_status_name(l->status)));
      json_object_set_new(o, "message", json_string(buf_text(&l->message)));
      if (a->explain)
        json_object_set_new(o, "reason",
                            l->reason != AMDDWARF_UNAVAILABLE_NONE
                                ? json_string(amddwarf_unavailable_name(l->reason))
                                : json_null());
    }
    if (a->explain && l->explain.len)
      json_object_set_new(o, "location", json_string(buf_text(&l->explain)));
    json_array_append_new(jl, o);
  }
  /* Text: one line per run of consecutive lanes that print the same. */
  for (unsigned lane = 0; !root && lane < AMDDWARF_MAX_LANES; ++lane) {
    unsigned last = lane;
    if (!(mask >> lane & 1))
      continue;
    while (multi && last + 1 < AMDDWARF_MAX_LANES && (mask >> (last + 1) & 1) &&
           same_lane(&lines[last + 1], &lines[lane], a->explain))
      ++last;
    if (!multi) {
      printf("%s = %s\n", expr, buf_text(&lines[lane].line));
    } else {
      char label[16];
      snprintf(label, sizeof label, last > lane ? "%u-%u" : "%u", lane, last);
      printf("%5s  %s\n", label, buf_text(&lines[lane].line));
    }
    lane = last;
  }
  if (root) {
    json_object_set_new(root, "lanes", jl);
    cli_print_json(root);
  }
  return failures ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
}

/* Reads every lane of MASK (tracing each when asked) and prints them. */
static int evaluate(const eval_args *a, amddwarf_wave *wave, size_t frame, uint64_t mask)
{
  const char *expr = a->expr;
  char *path = NULL;
  amddwarf_valobj *value = NULL;
  lane_line *lines = NULL;
  amddwarf_error err;
  int rc;
  if (expr == NULL)
    expr = path = set_path(a->set);
  if (expr == NULL)
    return cli_report_error("eval", a->object.json, AMDDWARF_E_NO_MEMORY, NULL);
  if ((rc = open_value(a, wave, frame, expr, &value)) != 0)
    goto cleanup;
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  lines = calloc(AMDDWARF_MAX_LANES, sizeof *lines);
  if (lines == NULL) {
    rc = cli_report_error("eval", a->object.json, AMDDWARF_E_NO_MEMORY, NULL);
    goto cleanup;
  }
  const amddwarf_frame *where = NULL;
  amddwarf_wave_frame(wave, frame, &where, NULL);
  amddwarf_expr_format format = trace_format(where->object, info->variable);
  trace_printer tp;
  trace_printer_init(&tp, stderr, &format, a->trace);
  if (a->trace || a->stats)
    amddwarf_wave_set_trace(wave, trace_print_event, &tp);
  for (unsigned lane = 0; lane < AMDDWARF_MAX_LANES; ++lane) {
    amddwarf_lane_value v;
    amddwarf_status st;
    if (!(mask >> lane & 1))
      continue;
    if (a->trace)
      fprintf(stderr, "lane %u:\n", lane);
    trace_phase_begin(&tp, "evaluate and read");
    amddwarf_error_clear(&err);
    st = amddwarf_valobj_read(value, lane, &v, &err);
    trace_phase_end(&tp);
    if (st != AMDDWARF_OK) {
      rc = cli_report_error("eval", a->object.json, st, &err);
      goto cleanup;
    }
    keep_lane(&lines[lane], &v, a->explain);
  }
  amddwarf_wave_set_trace(wave, NULL, NULL);
  if (a->stats)
    trace_print_stats(&tp, stderr);
  const amddwarf_frame *f = NULL;
  amddwarf_wave_frame(wave, frame, &f, NULL);
  rc = print_lanes(a, expr, f, info, lines, mask);
cleanup:
  free_lines(lines);
  amddwarf_valobj_free(value);
  free(path);
  return rc;
}

/* The wave of W at --pc or the snapshot's PC, and frame FRAME with DWARF
   for it. */
static int open_wave(const eval_args *a, cli_wave *w, size_t frame)
{
  amddwarf_wave_options options;
  uint64_t pc = 0;
  amddwarf_wave_options_init(&options);
  if (a->pc != NULL) {
    if (cli_parse_u64(a->pc, &pc) != 0)
      return cli_usage_error("eval", "--pc '%s' is not a number", a->pc);
    options.has_pc = 1;
    options.pc = pc;
  } else if (w->raw.read_register(w->raw.user, 16, 0, 8, &pc) != AMDDWARF_OK) {
    return cli_usage_error("eval", "the snapshot has no pc: give --pc");
  }
  int rc = cli_wave_start("eval", a->object.json, w, &options);
  if (rc != 0)
    return rc;
  /* A PC no subprogram holds: say so as the other object commands do. */
  const amddwarf_frame *f = NULL;
  if (amddwarf_wave_frame(w->wave, frame, &f, NULL) == AMDDWARF_OK && !amddwarf_die_ref_valid(f->function)) {
    size_t count = 0;
    const amddwarf_object *object = f->object ? f->object : w->objects[0];
    amddwarf_status st = amddwarf_object_scopes_at(object, f->object_pc, NULL, 0, &count);
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
