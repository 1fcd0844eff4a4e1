/* amddwarf lanes: where each lane of a wave is (its PC and source line) and
 * which lanes are active, from DW_AT_LLVM_lane_pc / DW_AT_LLVM_active_lane
 * when the code object has them, else from the wave's PC and EXEC mask. */
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"
#include "trace_print.h"

static const char *const usage =
    "usage: amddwarf lanes OBJECT --state SNAPSHOT [--pc ADDR] [--json] [--convention C]\n"
    "                      [--trace] [--stats]\n"
    "\n"
    "Prints a picture of the wave in SNAPSHOT (specs/snapshot.md): one character\n"
    "per lane ('#' active, '.' inactive), then the lanes grouped by the PC they\n"
    "are at, with its source line and function.\n"
    "\n"
    "A lane's PC comes from the DW_AT_LLVM_lane_pc of the innermost subprogram\n"
    "or inlined subroutine at the wave's PC when it has one (an expression\n"
    "giving the location of the lane's PC, evaluated for each lane), otherwise\n"
    "it is the wave's PC for active lanes and unknown ('-') for inactive ones.\n"
    "Active lanes come from DW_AT_LLVM_active_lane when present (a location\n"
    "holding a mask of wave-size bits), otherwise from the EXEC mask.\n"
    "\n"
    "  --pc ADDR   the wave's PC (default: the snapshot's pc)\n"
    "  --json      JSON output\n"
    "  --trace     print on stderr, per lane, every operation of the lane-PC and\n"
    "              active-lane evaluations and every target access (also\n"
    "              AMDDWARF_TRACE=1)\n"
    "  --stats     print counts and times per phase on stderr\n"
    "\n"
    "example: amddwarf lanes kernel.o --state wave.json\n";

typedef struct lane_info {
  int known;
  uint64_t pc;
  int active;
} lane_info;

/* Evaluates VALUE (an expression or list) of DIE for LANE and reads SIZE
   bytes through the location it gives. */
static amddwarf_status read_attr(const amddwarf_object *o, const amddwarf_cu *cu,
                                 const amddwarf_attr_value *value, uint64_t pc, uint32_t lane,
                                 amddwarf_eval *ev, const amddwarf_target *target,
                                 trace_printer *tp, uint64_t bit_offset, void *buf, size_t size)
{
  const uint8_t *bytes = NULL;
  size_t n = 0, out = 0;
  uint8_t expr[512];
  amddwarf_entry result;
  amddwarf_eval_request req;
  amddwarf_error err;
  amddwarf_status st = amddwarf_attr_value_expr_at(value, pc, &bytes, &n, NULL);
  if (st != AMDDWARF_OK)
    return AMDDWARF_E_EVAL_OPTIMIZED_OUT;
  st = amddwarf_object_normalize_expr(o, cu, AMDDWARF_ROLE_LOCATION, bytes, n, expr, sizeof expr,
                                      &out, &err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_eval_request_init(&req, target);
  req.format = cu->format;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY)
    req.format.dialect = AMDDWARF_DIALECT_USER;
  req.lane = lane;
  if (tp != NULL)
    trace_printer_attach(tp, &req);
  st = amddwarf_eval_expr(ev, &req, expr, out, &result, &err);
  if (st != AMDDWARF_OK)
    return st;
  if (result.kind != AMDDWARF_ENTRY_LOCATION)
    return AMDDWARF_E_EVAL_NOT_LOCATION;
  return amddwarf_location_read(ev, &req, &result.location, bit_offset, size * 8, buf, &err);
}

static void line_text(const amddwarf_object *o, uint64_t pc, char *buf, size_t size)
{
  const amddwarf_line_table *t = NULL;
  const amddwarf_line_row *r = NULL;
  const amddwarf_die_info *scopes[64];
  size_t depth = 0;
  const char *fn = NULL;
  if (amddwarf_object_scopes_at(o, pc, scopes, 64, &depth) == AMDDWARF_OK && depth > 0)
    for (size_t i = 0; i < depth && i < 64 && fn == NULL; ++i)
      if (scopes[i]->tag == 0x2e || scopes[i]->tag == 0x1d)
        fn = scopes[i]->name;
  if (amddwarf_object_line_at(o, pc, &t, &r) == AMDDWARF_OK) {
    const char *file = r->file < t->file_count && t->files[r->file] ? t->files[r->file] : "?";
    const char *base = strrchr(file, '/');
    snprintf(buf, size, "%s:%u:%u in %s", base ? base + 1 : file, r->line, r->column,
             fn ? fn : "??");
  } else {
    snprintf(buf, size, "?? in %s", fn ? fn : "??");
  }
}

int cli_lanes_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *state = NULL, *pc_text = NULL;
  bool trace = trace_env_enabled(), stats = false;
  for (int i = 1; i < argc; ++i) {
    int rc, taken = cli_object_arg("lanes", usage, argc, argv, &i, &args);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (cli_is_flag(argv[i], "--trace") || cli_is_flag(argv[i], "--stats")) {
      *(cli_is_flag(argv[i], "--trace") ? &trace : &stats) = true;
      continue;
    }
    if ((rc = cli_option_value("lanes", argc, argv, &i, "--state", &state)) != 0 ||
        (rc = cli_option_value("lanes", argc, argv, &i, "--pc", &pc_text)) != 0) {
      if (rc < 0)
        return CLI_EXIT_USAGE;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error("lanes", "unknown option '%s'", argv[i]);
    if (args.path != NULL)
      return cli_usage_error("lanes", "more than one OBJECT");
    args.path = argv[i];
  }
  if (args.path == NULL || state == NULL)
    return cli_usage_error("lanes", "missing OBJECT or --state SNAPSHOT");
  uint8_t *data = NULL;
  size_t size = 0;
  if (cli_read_file("lanes", state, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_snapshot *snap = NULL;
  amddwarf_status st = amddwarf_snapshot_load((const char *)data, size, NULL, &snap, &err);
  free(data);
  if (st != AMDDWARF_OK)
    return cli_report_error("lanes", args.json, st, &err);
  amddwarf_object *object = NULL;
  amddwarf_eval *ev = NULL;
  int rc = cli_object_open("lanes", &args, &object);
  if (rc != 0)
    goto cleanup;
  cli_eval_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  amddwarf_snapshot_target(snap, &ctx.snap);
  ctx.object = object;
  uint64_t pc = 0, exec = 0;
  if (pc_text != NULL ? cli_parse_u64(pc_text, &pc) != 0
                      : ctx.snap.read_register(ctx.snap.user, 16, 0, 8, &pc) != AMDDWARF_OK) {
    rc = cli_usage_error("lanes", "no PC: give --pc ADDR or a snapshot with \"pc\"");
    goto cleanup;
  }
  unsigned wave = amddwarf_snapshot_wave_size(snap);
  if (ctx.snap.exec_mask == NULL || ctx.snap.exec_mask(ctx.snap.user, &exec) != AMDDWARF_OK)
    exec = wave >= 64 ? ~0ull : (1ull << wave) - 1;
  const amddwarf_die_info *scopes[64];
  size_t depth = 0;
  const amddwarf_die_info *with_lane_pc = NULL, *with_active = NULL;
  if (amddwarf_object_scopes_at(object, pc, scopes, 64, &depth) == AMDDWARF_OK) {
    for (size_t i = 0; i < depth && i < 64; ++i) {
      if (with_lane_pc == NULL && scopes[i]->lane_pc != NULL)
        with_lane_pc = scopes[i];
      if (with_active == NULL && scopes[i]->active_lane != NULL)
        with_active = scopes[i];
    }
    /* The frame base of the subprogram, for expressions that use it. */
    for (size_t i = 0; i < depth && i < 64; ++i) {
      const uint8_t *fb = NULL;
      size_t fbs = 0;
      if (scopes[i]->tag == 0x2e && scopes[i]->frame_base != NULL &&
          amddwarf_attr_value_expr_at(scopes[i]->frame_base, pc, &fb, &fbs, NULL) == AMDDWARF_OK) {
        ctx.cu = amddwarf_object_cu(object, scopes[i]->cu_index);
        if (amddwarf_object_normalize_expr(object, ctx.cu, AMDDWARF_ROLE_FRAME_BASE, fb, fbs,
                                           ctx.frame_base, sizeof ctx.frame_base,
                                           &ctx.frame_base_size, NULL) == AMDDWARF_OK)
          ctx.has_frame_base = 1;
        break;
      }
    }
  }
  amddwarf_target target;
  ctx.pc = pc;
  if (ctx.cu == NULL && with_lane_pc != NULL)
    ctx.cu = amddwarf_object_cu(object, with_lane_pc->cu_index);
  cli_eval_target_init(&ctx, &target);
  trace_printer tp;
  trace_printer_init(&tp, stderr, NULL, trace);
  trace_printer *tracing = trace || stats ? &tp : NULL;
  trace_phase_begin(&tp, "evaluate lanes");
  if ((st = amddwarf_eval_new(NULL, &ev, &err)) != AMDDWARF_OK) {
    rc = cli_report_error("lanes", args.json, st, &err);
    goto cleanup;
  }
  const char *active_source = "EXEC";
  if (with_active != NULL) {
    uint8_t mask[8] = {0};
    const amddwarf_cu *cu = amddwarf_object_cu(object, with_active->cu_index);
    if (read_attr(object, cu, with_active->active_lane, pc, 0, ev, &target, tracing, 0, mask,
                  wave / 8) ==
        AMDDWARF_OK) {
      exec = 0;
      for (unsigned b = 0; b < wave / 8; ++b)
        exec |= (uint64_t)mask[b] << (8 * b);
      active_source = "DW_AT_LLVM_active_lane";
    }
  }
  lane_info lanes[64];
  memset(lanes, 0, sizeof lanes);
  for (unsigned l = 0; l < wave; ++l) {
    lanes[l].active = (int)(exec >> l & 1);
    if (with_lane_pc != NULL) {
      uint8_t b[8] = {0};
      const amddwarf_cu *cu = amddwarf_object_cu(object, with_lane_pc->cu_index);
      /* DW_AT_LLVM_lane_pc is a vector of generic-type PCs, one per lane. */
      uint64_t lane_bits = (uint64_t)cu->address_size * 8;
      if (trace)
        fprintf(stderr, "lane %u:\n", l);
      if (read_attr(object, cu, with_lane_pc->lane_pc, pc, l, ev, &target, tracing,
                    l * lane_bits, b, cu->address_size) == AMDDWARF_OK) {
        lanes[l].known = 1;
        for (int i = 0; i < 8; ++i)
          lanes[l].pc |= (uint64_t)b[i] << (8 * i);
      }
    } else if (lanes[l].active) {
      lanes[l].known = 1;
      lanes[l].pc = pc;
    }
  }
  trace_phase_end(&tp);
  if (stats)
    trace_print_stats(&tp, stderr);
  const char *pc_source = with_lane_pc ? "DW_AT_LLVM_lane_pc" : "the wave PC";
  char text[512];
  if (args.json) {
    json_t *root = json_object();
    json_object_set_new(root, "pc", cli_json_addr(pc));
    json_object_set_new(root, "wave_size", json_integer(wave));
    json_object_set_new(root, "active_from", json_string(active_source));
    json_object_set_new(root, "pc_from", json_string(pc_source));
    json_t *jl = json_array();
    for (unsigned l = 0; l < wave; ++l) {
      json_t *o = json_object();
      json_object_set_new(o, "lane", json_integer(l));
      json_object_set_new(o, "active", json_boolean(lanes[l].active));
      if (lanes[l].known) {
        line_text(object, lanes[l].pc, text, sizeof text);
        json_object_set_new(o, "pc", cli_json_addr(lanes[l].pc));
        json_object_set_new(o, "where", json_string(text));
      } else {
        json_object_set_new(o, "pc", json_null());
      }
      json_array_append_new(jl, o);
    }
    json_object_set_new(root, "lanes", jl);
    cli_print_json(root);
    goto cleanup;
  }
  printf("wave%u at pc 0x%llx; active lanes from %s, lane PCs from %s\n", wave,
         (unsigned long long)pc, active_source, pc_source);
  printf("lanes 0-%u: ", wave - 1);
  for (unsigned l = 0; l < wave; ++l)
    putchar(lanes[l].active ? '#' : '.');
  printf("\n");
  /* Group lanes by PC. */
  int done[64] = {0};
  for (unsigned l = 0; l < wave; ++l) {
    if (done[l])
      continue;
    cli_buf list = {0};
    unsigned n = 0;
    int in_group[64] = {0};
    for (unsigned m = l; m < wave; ++m) {
      if (done[m] || lanes[m].known != lanes[l].known ||
          (lanes[l].known && lanes[m].pc != lanes[l].pc))
        continue;
      done[m] = 1;
      in_group[m] = 1;
      ++n;
    }
    /* "0-3,8,10-12" */
    for (unsigned m = 0; m < wave; ++m) {
      if (!in_group[m] || (m > 0 && in_group[m - 1]))
        continue;
      unsigned e = m;
      while (e + 1 < wave && in_group[e + 1])
        ++e;
      if (e == m)
        cli_buf_printf(&list, "%s%u", list.len ? "," : "", m);
      else
        cli_buf_printf(&list, "%s%u-%u", list.len ? "," : "", m, e);
    }
    if (lanes[l].known) {
      char where[24];
      line_text(object, lanes[l].pc, text, sizeof text);
      snprintf(where, sizeof where, "0x%llx", (unsigned long long)lanes[l].pc);
      printf("  %-8s %-28s %2u lane%s: %s\n", where, text, n, n == 1 ? " " : "s", list.data);
    } else {
      printf("  %-36s %2u lane%s: %s\n", "- (inactive, PC unknown)", n, n == 1 ? " " : "s",
             list.data);
    }
    cli_buf_free(&list);
  }
cleanup:
  amddwarf_eval_free(ev);
  amddwarf_object_close(object);
  amddwarf_snapshot_free(snap);
  return rc;
}
