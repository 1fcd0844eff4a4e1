/* amddwarf eval: evaluates a source variable (with member, index,
 * dereference and address-of operators) of a code object against a wave
 * snapshot, for one lane or several, and prints it the way a debugger does.
 * The expression is parsed by eval_path.c, resolved against the types by
 * eval_type.c, walked per lane by eval_lane.c and printed by eval_print.c. */
#include <stdlib.h>
#include <string.h>

#include "eval_lane.h"
#include "eval_path.h"
#include "eval_type.h"
#include "object_cli.h"
#include "trace_print.h"

static const char *const usage =
    "usage: amddwarf eval OBJECT --state SNAPSHOT [--pc ADDR] [--lane N | --lanes all|LIST]\n"
    "                     [--json] [--explain] [--convention C] [--trace] [--stats] EXPR\n"
    "\n"
    "Finds the variable or parameter EXPR names in the scopes containing the PC\n"
    "(innermost first), evaluates its location for each lane of the wave in\n"
    "SNAPSHOT (a JSON wave state, specs/snapshot.md), follows EXPR's operators,\n"
    "reads the result and prints it by its type: integers, floats, bools, chars\n"
    "(65 'A'), enums (the enumerator, else the number), pointers with their\n"
    "address space, arrays, structs, unions, bitfields and vectors.\n"
    "<optimized out> means no location applies at the PC; <unavailable> that\n"
    "the snapshot lacks the register or memory.\n"
    "\n"
    "  EXPR           a C expression of one variable (specs/eval-paths.md):\n"
    "                   NAME  E.MEMBER  E->MEMBER  E[INDEX]  *E  &E  (E)\n"
    "                 INDEX is an integer (decimal, 0x hex, may be negative on\n"
    "                 pointers); members of anonymous structs and unions\n"
    "                 and base classes are found by name; C++ references are\n"
    "                 followed; a vector's component is v.x or v.s3. Examples:\n"
    "                   s.x  tile[3]  m[1][2]  m[1]  p->y  **pp  (*p).x  p[2]  &x\n"
    "  --pc ADDR      code address (default: the snapshot's pc)\n"
    "  --lane N       one lane (default: the snapshot's lane)\n"
    "  --lanes L      several lanes, printed as a table (one row per run of lanes\n"
    "                 that print the same): all, or 0,2,5-7\n"
    "  --explain      also print the variable's location description and, per\n"
    "                 lane, the pointers followed and which bits of the value\n"
    "                 come from which register (and lane), or address space,\n"
    "                 lane and address\n"
    "  --json         JSON output\n"
    "  --trace        print on stderr, per lane, every operation with the stack\n"
    "                 after it and every target access (also AMDDWARF_TRACE=1)\n"
    "  --stats        print counts and times per phase on stderr\n"
    "\n"
    "Locations are read under the unit's convention (specs/conventions.md):\n"
    "for upstream clang output the frame base is SGPR33 divided by the wave\n"
    "size on MUBUF-scratch processors, and \"lit1, swap, xderef\" is the private\n"
    "(lane) address space. Errors in EXPR's types (no such member, an index\n"
    "out of bounds, '*' on a non-pointer) are reported before any lane is read.\n"
    "\n"
    "example: amddwarf eval k.o --state wave.json --lanes 0-3 s.x\n";

/* <optimized out> and <unavailable> are values a debugger shows, not errors. */
static const char *status_text(amddwarf_status st)
{
  if (st == AMDDWARF_E_EVAL_OPTIMIZED_OUT)
    return "<optimized out>";
  if (st == AMDDWARF_E_EVAL_UNAVAILABLE)
    return "<unavailable>";
  return NULL;
}

static const char *buf_text(const cli_buf *b)
{
  return b->data ? b->data : "";
}

/* A lane's value as text: the value, or what stands for it, with the
   reason when there is one, and where its bits are with --explain. */
static void format_lane(cli_buf *b, const eval_lane_result *r, bool explain)
{
  const char *special = r->status != AMDDWARF_OK ? status_text(r->status) : NULL;
  if (r->status == AMDDWARF_OK)
    cli_buf_printf(b, "%s", r->text.data ? r->text.data : "");
  else if (special == NULL)
    cli_buf_printf(b, "%s (%s)", r->message, amddwarf_status_name(r->status));
  else if (r->show_message)
    cli_buf_printf(b, "%s (%s)", special, r->message);
  else
    cli_buf_printf(b, "%s", special);
  if (explain && r->explain.data)
    cli_buf_printf(b, "    [%s]", r->explain.data);
}

static int parse_lanes(const char *text, unsigned wave, uint64_t *mask)
{
  *mask = 0;
  if (strcmp(text, "all") == 0) {
    *mask = wave >= 64 ? ~0ull : ((1ull << wave) - 1);
    return 0;
  }
  while (*text) {
    char *end = NULL;
    unsigned long a = strtoul(text, &end, 10), b = a;
    if (end == text)
      return -1;
    if (*end == '-') {
      const char *t2 = end + 1;
      b = strtoul(t2, &end, 10);
      if (end == t2)
        return -1;
    }
    if (a > b || b >= wave)
      return -1;
    for (unsigned long l = a; l <= b; ++l)
      *mask |= 1ull << l;
    if (*end == ',')
      ++end;
    else if (*end)
      return -1;
    text = end;
  }
  return *mask ? 0 : -1;
}

int cli_eval_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *state = NULL, *pc_text = NULL, *lane_text = NULL, *lanes_text = NULL, *expr = NULL;
  bool explain = false, trace = trace_env_enabled(), stats = false;
  for (int i = 1; i < argc; ++i) {
    int rc, taken = cli_object_arg("eval", usage, argc, argv, &i, &args);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (cli_is_flag(argv[i], "--explain")) {
      explain = true;
      continue;
    }
    if (cli_is_flag(argv[i], "--trace") || cli_is_flag(argv[i], "--stats")) {
      *(cli_is_flag(argv[i], "--trace") ? &trace : &stats) = true;
      continue;
    }
    if ((rc = cli_option_value("eval", argc, argv, &i, "--state", &state)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--pc", &pc_text)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lane", &lane_text)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lanes", &lanes_text)) != 0) {
      if (rc < 0)
        return CLI_EXIT_USAGE;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0' && argv[i][1] != '>')
      return cli_usage_error("eval", "unknown option '%s'", argv[i]);
    if (args.path == NULL)
      args.path = argv[i];
    else if (expr == NULL)
      expr = argv[i];
    else
      return cli_usage_error("eval", "unexpected argument '%s'", argv[i]);
  }
  eval_path path;
  eval_plan plan;
  char message[512];
  if (args.path == NULL || expr == NULL)
    return cli_usage_error("eval", "missing OBJECT or EXPR");
  if (state == NULL)
    return cli_usage_error("eval", "missing --state SNAPSHOT");
  if (lane_text && lanes_text)
    return cli_usage_error("eval", "--lane and --lanes exclude each other");
  if (eval_path_parse(expr, &path, message, sizeof message) != 0)
    return cli_usage_error("eval", "cannot parse '%s': %s", expr, message);
  uint8_t *state_data = NULL;
  size_t state_size = 0;
  if (cli_read_file("eval", state, &state_data, &state_size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_snapshot *snap = NULL;
  amddwarf_status st = amddwarf_snapshot_load((const char *)state_data, state_size, NULL, &snap, &err);
  free(state_data);
  if (st != AMDDWARF_OK)
    return cli_report_error("eval", args.json, st, &err);
  amddwarf_object *object = NULL;
  int rc = cli_object_open("eval", &args, &object);
  amddwarf_eval *ev = NULL;
  amddwarf_var *vars = NULL;
  cli_buf where = {NULL, 0, 0};
  eval_lane_result *results = NULL;
  cli_buf *lines = NULL; /* each lane's text line */
  if (rc != 0)
    goto cleanup;
  cli_eval_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  amddwarf_snapshot_target(snap, &ctx.snap);
  ctx.object = object;
  uint64_t pc = 0;
  if (pc_text != NULL) {
    if (cli_parse_u64(pc_text, &pc) != 0) {
      rc = cli_usage_error("eval", "--pc '%s' is not a number", pc_text);
      goto cleanup;
    }
  } else if (ctx.snap.read_register(ctx.snap.user, 16, 0, 8, &pc) != AMDDWARF_OK) {
    rc = cli_usage_error("eval", "the snapshot has no pc: give --pc");
    goto cleanup;
  }
  size_t count = 0;
  amddwarf_status found = amddwarf_object_vars_at(object, pc, NULL, 0, &count);
  if (found != AMDDWARF_OK) {
    rc = cli_report_no_scope("eval", args.json, object, args.path, pc, found);
    goto cleanup;
  }
  vars = calloc(count ? count : 1, sizeof *vars);
  if (vars == NULL) {
    rc = cli_report_error("eval", args.json, AMDDWARF_E_NO_MEMORY, NULL);
    goto cleanup;
  }
  amddwarf_object_vars_at(object, pc, vars, count, &count);
  const amddwarf_var *var = NULL;
  for (size_t i = 0; i < count && var == NULL; ++i)
    if (vars[i].die->name && strcmp(vars[i].die->name, path.name) == 0)
      var = &vars[i];
  if (var == NULL) {
    err.status = AMDDWARF_NOT_FOUND;
    snprintf(err.message, sizeof err.message, "no variable '%s' in scope at pc 0x%llx",
             path.name, (unsigned long long)pc);
    rc = cli_report_error("eval", args.json, AMDDWARF_NOT_FOUND, &err);
    goto cleanup;
  }
  ctx.cu = amddwarf_object_cu(object, var->die->cu_index);
  if ((st = eval_plan_build(object, var->die->type, &path, &plan, err.message,
                            sizeof err.message)) != AMDDWARF_OK) {
    err.status = st;
    rc = cli_report_error("eval", args.json, st, &err);
    goto cleanup;
  }
  /* The location description, as the unit spells it. */
  if (var->die->const_value != NULL)
    cli_buf_printf(&where, "DW_AT_const_value");
  else if (!var->available || var->size == 0)
    cli_buf_printf(&where, "no location at pc 0x%llx", (unsigned long long)pc);
  else
    cli_buf_expr(&where, ctx.cu, var->expr, var->size);
  /* The frame base of the subprogram that contains the variable. */
  for (const amddwarf_die_info *s = var->scope; s != NULL; s = s->parent) {
    const uint8_t *fb = NULL;
    size_t fbs = 0;
    if (s->tag == 0x2e && s->frame_base != NULL &&
        amddwarf_attr_value_expr_at(s->frame_base, pc, &fb, &fbs, NULL) == AMDDWARF_OK &&
        amddwarf_object_normalize_expr(object, ctx.cu, AMDDWARF_ROLE_FRAME_BASE, fb, fbs,
                                       ctx.frame_base, sizeof ctx.frame_base,
                                       &ctx.frame_base_size, NULL) == AMDDWARF_OK) {
      ctx.has_frame_base = 1;
      break;
    }
  }
  amddwarf_target target;
  ctx.pc = pc;
  cli_eval_target_init(&ctx, &target);
  if ((st = amddwarf_eval_new(NULL, &ev, &err)) != AMDDWARF_OK) {
    rc = cli_report_error("eval", args.json, st, &err);
    goto cleanup;
  }
  unsigned wave = amddwarf_snapshot_wave_size(snap);
  uint64_t mask = 0;
  if (lanes_text != NULL) {
    if (parse_lanes(lanes_text, wave, &mask) != 0) {
      rc = cli_usage_error("eval", "--lanes '%s': all, or lanes below %u like 0,2,5-7",
                           lanes_text, wave);
      goto cleanup;
    }
  } else {
    uint64_t lane = amddwarf_snapshot_lane(snap);
    if (lane_text != NULL && (cli_parse_u64(lane_text, &lane) != 0 || lane >= wave)) {
      rc = cli_usage_error("eval", "--lane '%s' is not a lane below %u", lane_text, wave);
      goto cleanup;
    }
    mask = 1ull << lane;
  }
  results = calloc(64, sizeof *results);
  lines = calloc(64, sizeof *lines);
  if (results == NULL || lines == NULL) {
    rc = cli_report_error("eval", args.json, AMDDWARF_E_NO_MEMORY, NULL);
    goto cleanup;
  }
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &target);
  req.format = ctx.cu->format;
  req.format.dialect = ctx.cu->convention == AMDDWARF_CONVENTION_LEGACY ? AMDDWARF_DIALECT_USER
                                                                         : ctx.cu->format.dialect;
  req.required = AMDDWARF_RESULT_LOCATION;
  req.xderef = AMDDWARF_XDEREF_DWARF;
  trace_printer tp;
  trace_printer_init(&tp, stderr, &req.format, trace);
  if (trace || stats)
    trace_printer_attach(&tp, &req);
  eval_lane_input input = {object, var, &path, &plan, ev, &req};
  for (unsigned lane = 0; lane < 64; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    req.lane = lane;
    if (trace)
      fprintf(stderr, "lane %u:\n", lane);
    trace_phase_begin(&tp, "evaluate and read");
    eval_lane_run(&input, &results[lane]);
    trace_phase_end(&tp);
  }
  if (stats)
    trace_print_stats(&tp, stderr);
  json_t *root = args.json ? json_object() : NULL;
  json_t *jl = args.json ? json_array() : NULL;
  bool multi = (mask & (mask - 1)) != 0;
  int failures = 0;
  if (root) {
    json_object_set_new(root, "pc", cli_json_addr(pc));
    json_object_set_new(root, "expression", json_string(expr));
    json_object_set_new(root, "variable", cli_json_addr(var->die->offset));
    json_object_set_new(root, "type", json_string(plan.type_name));
    if (explain)
      json_object_set_new(root, "location_expression", json_string(where.data ? where.data : ""));
  } else {
    if (explain)
      printf("%s: %s\n", var->die->name, where.data ? where.data : "");
    if (multi)
      printf("%s (%s) at pc 0x%llx\nlanes  value\n", expr, plan.type_name,
             (unsigned long long)pc);
  }
  for (unsigned lane = 0; lane < 64; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    eval_lane_result *r = &results[lane];
    const char *special = r->status != AMDDWARF_OK ? status_text(r->status) : NULL;
    if (r->status != AMDDWARF_OK && special == NULL)
      ++failures;
    if (root) {
      json_t *o = json_object();
      json_object_set_new(o, "lane", json_integer(lane));
      if (r->status == AMDDWARF_OK)
        json_object_set_new(o, "value", json_string(r->text.data ? r->text.data : ""));
      else
        json_object_set_new(o, "status", json_string(amddwarf_status_name(r->status)));
      if (r->status != AMDDWARF_OK)
        json_object_set_new(o, "message", json_string(r->message));
      if (r->explain.data)
        json_object_set_new(o, "location", json_string(r->explain.data));
      json_array_append_new(jl, o);
    } else {
      format_lane(&lines[lane], r, explain);
    }
  }
  /* Text: one line per run of consecutive lanes that print the same. */
  for (unsigned lane = 0; !root && lane < 64; ++lane) {
    unsigned last = lane;
    if (!(mask >> lane & 1))
      continue;
    while (multi && last + 1 < 64 && (mask >> (last + 1) & 1) &&
           strcmp(buf_text(&lines[last + 1]), buf_text(&lines[lane])) == 0)
      ++last;
    if (!multi) {
      printf("%s = %s\n", expr, buf_text(&lines[lane]));
    } else {
      char label[16];
      snprintf(label, sizeof label, last > lane ? "%u-%u" : "%u", lane, last);
      printf("%5s  %s\n", label, buf_text(&lines[lane]));
    }
    lane = last;
  }
  if (root) {
    json_object_set_new(root, "lanes", jl);
    cli_print_json(root);
  }
  rc = failures ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
cleanup:
  if (results != NULL) {
    for (unsigned l = 0; l < 64; ++l)
      eval_lane_result_free(&results[l]);
    free(results);
  }
  if (lines != NULL) {
    for (unsigned l = 0; l < 64; ++l)
      cli_buf_free(&lines[l]);
    free(lines);
  }
  cli_buf_free(&where);
  free(vars);
  amddwarf_eval_free(ev);
  amddwarf_object_close(object);
  amddwarf_snapshot_free(snap);
  return rc;
}
