/* amddwarf unwind: the backtrace of a wave snapshot, by virtual unwinding
 * with the call frame information of a code object. */
#include "wave_cli.h"
#include "trace_print.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char unwind_help[] =
    "usage: amddwarf unwind [OBJECT] --state SNAPSHOT [--eh-frame] [--max-frames N] [--json]\n"
    "                       [--trace] [--stats]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Unwinds the wave in SNAPSHOT (a JSON wave state: registers, per-lane and\n"
    "global memory, EXEC; see specs/snapshot.md) with the call frame information\n"
    "of OBJECT (.debug_frame, or .eh_frame with --eh-frame or when there is no\n"
    ".debug_frame) and prints every frame: its PC, its CFA with the address\n"
    "space, the row that applies (looked up at PC - 1 in callers, the call\n"
    "site), its function (a C++ name demangled, as llvm-symbolizer shows it),\n"
    "and the registers the callee's rules recover, as unwound values.\n"
    "A register whose rule is undefined shows as <undefined>.\n"
    "\n"
    "The walk ends when a frame's return address rule is undefined (exit 0), or\n"
    "with a status saying why it stopped: cfi_no_fde, cfi_unwind_loop,\n"
    "cfi_unevaluable, limit (exit 1).\n"
    "\n"
    "--trace (or AMDDWARF_TRACE=1) prints on stderr every operation of the rule\n"
    "evaluations with the stack after it and every register and memory access;\n"
    "--stats prints counts and times per phase on stderr.\n"
    "\n"
    "Example: amddwarf unwind kernel.o --state wave.json\n";

/* The registers to show for a frame: the PC, then those whose rules the
   callee's row (CALLEE, NULL for the innermost frame) names; of a
   synthesized row, which lists every caller-saved register the callee may
   write as undefined, those it recovers. */
static size_t shown_registers(const amddwarf_cfi_row *callee, uint32_t *out, size_t cap,
                              uint32_t pc_reg)
{
  size_t n = 0;
  out[n++] = pc_reg;
  for (uint32_t i = 0; callee != NULL && i < callee->rule_count && n < cap; i++)
    if (callee->rules[i].column != pc_reg &&
        !(callee->synthesized && callee->rules[i].kind == AMDDWARF_CFI_RULE_UNDEFINED))
      out[n++] = callee->rules[i].column;
  return n;
}

/* A vector register whose rule leaves some lanes undefined (a caller-saved
   VGPR whose inactive lanes were spilled): each lane on its own, null where
   it cannot be read. NULL when no lane reads. */
static json_t *lanes_one_by_one(amddwarf_wave *w, size_t frame, uint32_t regno, uint32_t lanes,
                                char *text, size_t text_size, size_t len)
{
  json_t *value = json_array();
  bool any = false;
  for (uint32_t l = 0; l < lanes; l++) {
    uint8_t b[4];
    if (amddwarf_wave_read_register(w, frame, regno, 4 * l, 4, b, NULL) != AMDDWARF_OK) {
      json_array_append_new(value, json_null());
      if (l < 4 && len < text_size)
        len += (size_t)snprintf(text + len, text_size - len, "%s<undefined>", l ? "," : "[");
      continue;
    }
    uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    json_array_append_new(value, cli_json_addr(v));
    if (l < 4 && len < text_size)
      len += (size_t)snprintf(text + len, text_size - len, "%s0x%x", l ? "," : "[", v);
    any = true;
  }
  if (!any) {
    json_decref(value);
    return NULL;
  }
  if (len < text_size)
    snprintf(text + len, text_size - len, ",...]");
  return value;
}

/* Whether the callee's row leaves REGNO undefined. */
static bool undefined_in(amddwarf_cfi *cfi, const amddwarf_cfi_row *callee, uint32_t regno)
{
  amddwarf_cfi_rule rule;
  return callee != NULL && amddwarf_cfi_row_rule(cfi, callee, regno, &rule) &&
         rule.kind == AMDDWARF_CFI_RULE_UNDEFINED;
}

static void register_value(amddwarf_wave *w, size_t frame, uint32_t regno, bool undefined,
                           const amddwarf_cfi_target *target, json_t *jregs, char *text,
                           size_t text_size)
{
  amddwarf_amdgpu_register info;
  uint64_t bytes = 8;
  uint32_t lanes = 0;
  if (strcmp(target->name, "amdgpu") == 0 &&
      amddwarf_amdgpu_register_info(regno, &info) == AMDDWARF_OK) {
    bytes = info.bit_size / 8;
    lanes = info.lanes;
  } else if (target->register_bits && target->register_bits(target, regno)) {
    bytes = target->register_bits(target, regno) / 8;
  }
  char name[64];
  amddwarf_cfi_register_name(target, regno, name, sizeof name);
  uint8_t buf[256];
  if (bytes > sizeof buf)
    bytes = sizeof buf;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_read_register(w, frame, regno, 0, bytes, buf, &err);
  json_t *value = NULL;
  size_t len = 0;
  len += (size_t)snprintf(text + len, text_size - len, "%s=", name);
  if (st != AMDDWARF_OK && lanes &&
      (value = lanes_one_by_one(w, frame, regno, lanes, text, text_size, len)) != NULL) {
    /* some lanes read */
  } else if (undefined && st != AMDDWARF_OK) {
    snprintf(text + len, text_size - len, "<undefined>");
    value = json_string("undefined");
  } else if (st != AMDDWARF_OK) {    snprintf(text + len, text_size - len, "<%s>", amddwarf_status_name(st));
    value = json_pack("{s:s,s:s}", "status", amddwarf_status_name(st), "message", err.message);
  } else if (lanes) {
    value = json_array();
    for (uint32_t l = 0; l < lanes && 4 * l + 3 < bytes; l++) {
      uint32_t v = (uint32_t)buf[4 * l] | (uint32_t)buf[4 * l + 1] << 8 |
                   (uint32_t)buf[4 * l + 2] << 16 | (uint32_t)buf[4 * l + 3] << 24;
      json_array_append_new(value, cli_json_addr(v));
      if (l < 4 && len < text_size)
        len += (size_t)snprintf(text + len, text_size - len, "%s0x%x", l ? "," : "[", v);
    }
    if (len < text_size)
      snprintf(text + len, text_size - len, ",...]");
  } else {
    uint64_t v = 0;
    for (uint64_t i = 0; i < bytes && i < 8; i++)
      v |= (uint64_t)buf[i] << (8 * i);
    snprintf(text + len, text_size - len, "0x%" PRIx64, v);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%" PRIx64, v);
    value = json_string(hex);
  }
  if (jregs)
    json_object_set_new(jregs, name, value);
  else
    json_decref(value);
}

int cli_unwind_main(int argc, char **argv)
{
  const char *path = NULL, *state = NULL, *value = NULL;
  bool json = false, eh = false, trace = trace_env_enabled(), stats = false;
  uint64_t max_frames = 64;
  cli_object_args args = {0};
  const cli_option options[] = {CLI_FLAG("--json", &json), CLI_FLAG("--trace", &trace),
                                CLI_FLAG("--stats", &stats), CLI_FLAG("--eh-frame", &eh),
                                CLI_VALUE("--state", &state)};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_help_arg(argv[i], unwind_help)) {
      return CLI_EXIT_OK;
    } else if ((r = cli_object_select_arg("unwind", argc, argv, &i, &args)) != CLI_ARG_NONE ||
               (r = cli_table_arg("unwind", argc, argv, &i, CLI_OPTIONS(options))) != 0) {
      if (r == CLI_ARG_BAD)
        return CLI_EXIT_USAGE;
    } else if ((r = cli_option_value("unwind", argc, argv, &i, "--max-frames", &value)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      if (cli_parse_u64(value, &max_frames) != 0 || max_frames == 0 || max_frames > 100000)
        return cli_usage_error("unwind", "bad frame count '%s'", value);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unwind", "unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error("unwind", "more than one OBJECT");
    }
  }
  if (!state)
    return cli_usage_error("unwind", "%s", path ? "missing --state SNAPSHOT" : "missing OBJECT");
  amddwarf_cfi *eh_cfi = NULL;
  amddwarf_wave *wave = NULL;
  int status = CLI_EXIT_BAD_INPUT;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  args.path = path;
  args.json = json;
  cli_wave cw;
  if ((status = cli_wave_load("unwind", &args, state, &cw)) != 0)
    goto done;
  status = CLI_EXIT_BAD_INPUT;
  if (path == NULL)
    path = "the code object";
  /* The CFI of the object holding the wave's PC: .debug_frame, else
     .eh_frame; or .eh_frame when asked. */
  const amddwarf_object *object = cw.objects[0];
  uint64_t pc = 0;
  size_t at = 0;
  if (cw.load_addresses != NULL &&
      amddwarf_snapshot_pc(cw.snap, &pc) == AMDDWARF_OK &&
      amddwarf_loaded_object_at((const amddwarf_object *const *)cw.objects, cw.load_addresses,
                                cw.count, pc, &at, &pc) == AMDDWARF_OK)
    object = cw.objects[at];
  amddwarf_cfi *cfi = NULL;
  if (eh) {
    size_t image_size = 0;
    const uint8_t *image = amddwarf_object_image(object, &image_size);
    st = amddwarf_cfi_open_elf(image, image_size, AMDDWARF_CFI_EH_FRAME, NULL, &eh_cfi, &err);
    cfi = eh_cfi;
  } else {
    st = amddwarf_object_cfi(object, &cfi, &err);
  }
  if (st == AMDDWARF_NOT_FOUND) {
    cli_report("unwind", json, AMDDWARF_E_CFI_NO_FDE, "%s has no %s", path,
               eh ? ".eh_frame" : ".debug_frame or .eh_frame");
    goto done;
  }
  if (st != AMDDWARF_OK) {
    cli_report_error("unwind", json, st, &err);
    goto done;
  }
  amddwarf_wave_options wo;
  amddwarf_wave_options_init(&wo);
  wo.max_frames = (uint32_t)max_frames;
  wo.cfi = cfi;
  trace_printer tp;
  trace_printer_init(&tp, stderr, NULL, trace);
  if (cli_wave_start("unwind", json, &cw, &wo) != 0)
    goto done;
  wave = cw.wave;
  if (trace || stats)
    amddwarf_wave_set_trace(wave, trace_print_event, &tp);
  /* Every frame first (the walk), then the registers of each. */
  amddwarf_error end_err = AMDDWARF_ERROR_INIT;
  amddwarf_status end;
  const amddwarf_frame *frame = NULL;
  size_t frame_count = 0;
  trace_phase_begin(&tp, "unwind");
  while ((end = amddwarf_wave_frame(wave, frame_count, &frame, &end_err)) == AMDDWARF_OK)
    ++frame_count;
  trace_phase_end(&tp);
  trace_phase_begin(&tp, "registers");
  const amddwarf_cfi_target *ct = amddwarf_cfi_get_target(cfi);
  const amddwarf_cfi_row *callee = NULL;
  /* The FDEs' ranges are where the wave's object is loaded. */
  uint64_t load = amddwarf_wave_get_info(wave)->load_address;
  json_t *root = json ? json_object() : NULL, *frames = json ? json_array() : NULL;
  for (size_t i = 0; i < frame_count; i++) {
    amddwarf_wave_frame(wave, i, &frame, NULL);
    /* One entry per physical frame: its function's frame, after its inlines. */
    if (frame->inline_depth != 0)
      continue;
    const amddwarf_frame *fi = frame;
    uint32_t cfa_aspace = 0;
    uint64_t cfa_address = 0;
    bool has_cfa = amddwarf_wave_frame_cfa(wave, i, &cfa_aspace, &cfa_address, NULL) == AMDDWARF_OK;
    const amddwarf_cfi_row *row = amddwarf_wave_frame_row(wave, i);
    char aspace[64] = "";
    if (has_cfa && amddwarf_aspace_name(cfa_aspace, aspace, sizeof aspace) != AMDDWARF_OK)
      snprintf(aspace, sizeof aspace, "addrspace%u", (unsigned)cfa_aspace);
    json_t *jf = json ? json_object() : NULL, *jregs = json ? json_object() : NULL;
    if (jf) {
      char hex[32];
      json_object_set_new(jf, "index", json_integer((json_int_t)fi->physical));
      snprintf(hex, sizeof hex, "0x%" PRIx64, fi->pc);
      json_object_set_new(jf, "pc", json_string(hex));
      snprintf(hex, sizeof hex, "0x%" PRIx64, fi->lookup_pc);
      json_object_set_new(jf, "lookup_pc", json_string(hex));
      json_object_set_new(jf, "function",
                          fi->function_name ? json_string(fi->function_name) : json_null());
      if (has_cfa) {
        json_t *cfa = json_object();
        json_object_set_new(cfa, "address", cli_json_addr(cfa_address));
        json_object_set_new(cfa, "address_space", cli_json_aspace(cfa_aspace));
        json_object_set_new(jf, "cfa", cfa);
      } else {
        json_object_set_new(jf, "cfa", json_null());
      }
      json_object_set_new(jf, "fde", row ? cli_json_addr(row->fde->offset) : json_null());
      if (row && row->synthesized)
        json_object_set_new(jf, "synthesized", json_true());
    } else {
      printf("#%zu pc 0x%" PRIx64, fi->physical, fi->pc);
      if (fi->function_name)
        printf(" in %s", fi->function_name);
      if (has_cfa)
        printf(" cfa 0x%" PRIx64 " (%s)", cfa_address, aspace);
      else
        printf(" cfa <none>");
      if (row)
        printf(" fde 0x%" PRIx64 " [0x%" PRIx64 ", 0x%" PRIx64 ")", row->fde->offset,
               load + row->fde->initial_location,
               load + row->fde->initial_location + row->fde->address_range);
      else
        printf(" no FDE covers 0x%" PRIx64, fi->lookup_pc);
      printf("%s\n", row && row->synthesized ? " (rows synthesized from the prologue)"
                                                     : "");
    }
    uint32_t regs[64];
    size_t n = shown_registers(callee, regs, 64, ct->return_address_column);
    for (size_t k = 0; k < n; k++) {
      char text[160];
      register_value(wave, i, regs[k], undefined_in(cfi, callee, regs[k]), ct, jregs, text,
                     sizeof text);
      if (!json)
        printf("    %s\n", text);
    }
    callee = row;
    if (jf) {
      json_object_set_new(jf, "registers", jregs);
      json_array_append_new(frames, jf);
    }
  }
  if (root) {
    json_object_set_new(root, "frames", frames);
    json_object_set_new(root, "end", json_pack("{s:s,s:s}", "status", amddwarf_status_name(end),
                                               "message", end_err.message));
    cli_print_json(root);
  } else {
    printf("%s (%s)\n", end_err.message, amddwarf_status_name(end));
  }
  trace_phase_end(&tp);
  if (stats)
    trace_print_stats(&tp, stderr);
  status = end == AMDDWARF_END ? CLI_EXIT_OK : CLI_EXIT_BAD_INPUT;
done:
  cli_wave_close(&cw); /* the wave first: it unwinds with EH_CFI */
  amddwarf_cfi_close(eh_cfi);
  return status;
}
