/* amddwarf lanes: where each lane of a wave is (its PC and source line) and
 * which lanes are active, from DW_AT_LLVM_lane_pc / DW_AT_LLVM_active_lane
 * when the code object has them, else from the wave's PC and EXEC mask. */
#include <stdlib.h>
#include <string.h>

#include "wave_cli.h"
#include "trace_print.h"

static const char *const usage =
    "usage: amddwarf lanes [OBJECT] --state SNAPSHOT [--pc ADDR] [--json] [--convention C]\n"
    "                      [--trace] [--stats]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
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
    "  --json      one JSON document (specs/json.md)\n"
    "  --trace     print on stderr, per lane, every operation of the lane-PC and\n"
    "              active-lane evaluations and every target access (also\n"
    "              AMDDWARF_TRACE=1)\n"
    "  --stats     print counts and times per phase on stderr\n"
    "\n"
    "example: amddwarf lanes kernel.o --state wave.json\n";

int cli_lanes_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *state = NULL, *pc_text = NULL;
  bool trace = trace_env_enabled(), stats = false;
  const cli_option flags[] = {CLI_FLAG("--trace", &trace), CLI_FLAG("--stats", &stats),
                              CLI_VALUE("--state", &state), CLI_VALUE("--pc", &pc_text)};
  int scanned = cli_object_scan("lanes", usage, argc, argv, &args, CLI_OPTIONS(flags));
  if (scanned >= 0)
    return scanned;
  if (state == NULL)
    return cli_usage_error("lanes", "missing OBJECT or --state SNAPSHOT");
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  cli_wave cw;
  amddwarf_wave *wave = NULL;
  int rc = cli_wave_load("lanes", &args, state, &cw);
  if (rc != 0)
    goto cleanup;
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.has_pc = pc_text != NULL;
  /* Without a PC the wave cannot be placed. */
  if (options.has_pc ? cli_parse_u64(pc_text, &options.pc) != 0
                     : amddwarf_snapshot_pc(cw.snap, NULL) != AMDDWARF_OK) {
    rc = cli_usage_error("lanes", "no PC: give --pc ADDR or a snapshot with \"pc\"");
    goto cleanup;
  }
  if ((rc = cli_wave_start("lanes", args.json, &cw, &options)) != 0)
    goto cleanup;
  wave = cw.wave;
  trace_printer tp;
  trace_printer_init(&tp, stderr, NULL, trace);
  if (trace || stats)
    amddwarf_wave_set_trace(wave, trace_print_event, &tp);
  trace_phase_begin(&tp, "evaluate lanes");
  const amddwarf_lanes *lanes = NULL;
  if ((st = amddwarf_wave_lanes(wave, &lanes, &err)) != AMDDWARF_OK) {
    rc = cli_report_error("lanes", args.json, st, &err);
    goto cleanup;
  }
  trace_phase_end(&tp);
  if (stats)
    trace_print_stats(&tp, stderr);
  uint64_t pc = amddwarf_wave_get_info(wave)->pc;
  unsigned wave_size = lanes->wave_size;
  const amddwarf_lane *lane = lanes->lanes;
  if (args.json) {
    json_t *root = json_object();
    json_object_set_new(root, "pc", cli_json_addr(pc));
    json_object_set_new(root, "wave_size", json_integer(wave_size));
    json_object_set_new(root, "active_from", json_string(amddwarf_active_from_key(lanes->active_from)));
    json_object_set_new(root, "pc_from", json_string(amddwarf_lane_pc_from_key(lanes->pc_from)));
    json_t *jl = json_array();
    for (unsigned l = 0; l < wave_size; ++l) {
      json_t *o = json_object();
      amddwarf_place w;
      if (!lane[l].pc_known || amddwarf_wave_place(wave, lane[l].pc, &w) != AMDDWARF_OK)
        memset(&w, 0, sizeof w);
      json_object_set_new(o, "lane", json_integer(l));
      json_object_set_new(o, "active", json_boolean(lane[l].active));
      json_object_set_new(o, "pc", lane[l].pc_known ? cli_json_addr(lane[l].pc) : json_null());
      json_object_set_new(o, "function", w.function ? json_string(w.function) : json_null());
      json_object_set_new(o, "file", w.file ? json_string(w.file) : json_null());
      json_object_set_new(o, "line", w.has_row ? json_integer(w.line) : json_null());
      json_object_set_new(o, "column", w.has_row ? json_integer(w.column) : json_null());
      json_array_append_new(jl, o);
    }
    json_object_set_new(root, "lanes", jl);
    cli_print_json(root);
    goto cleanup;
  }
  text_buf table = {0};
  if ((st = cli_buf_wave_lanes(&table, wave, &err)) == AMDDWARF_OK)
    fputs(table.data, stdout);
  else
    rc = cli_report_error("lanes", args.json, st, &err);
  text_buf_free(&table);
cleanup:
  cli_wave_close(&cw);
  return rc;
}
