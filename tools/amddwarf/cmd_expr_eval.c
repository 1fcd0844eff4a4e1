/* amddwarf expr eval: evaluates a DWARF expression against a wave snapshot
 * and prints the resulting location description or value (specs/eval-json.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"
#include "trace_print.h"

static const char eval_help[] =
    "usage: amddwarf expr eval [options] 'TEXT'\n"
    "       amddwarf expr eval [options] --hex HEX...\n"
    "\n"
    "Evaluates a DWARF expression the way a debugger does for one lane of a wave:\n"
    "location descriptions (memory in an address space, registers, implicit,\n"
    "implicit pointer, undefined, composite) and values live on one stack, as in\n"
    "the AMDGPU DWARF extensions. Registers, memory, DIEs for DW_OP_call* and base\n"
    "types come from a JSON wave snapshot (format: specs/snapshot.md).\n"
    "\n"
    "  TEXT              the expression in assembler syntax, e.g.\n"
    "                    'DW_OP_regx v0; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset'\n"
    "  --hex HEX...      the expression as encoded bytes instead ('90 80 14')\n"
    "  --state FILE      the wave snapshot (default: an empty wave, nothing readable)\n"
    "  --dialect D       encoding of the AMDGPU operations: auto (default), draft,\n"
    "                    vendor, user (DIE expressions of the snapshot use its own)\n"
    "  --lane N          the lane to evaluate for (default: the snapshot's \"lane\")\n"
    "  --result R        location (default) or value: what the caller requires;\n"
    "                    an empty stack is an undefined location, a generic value\n"
    "                    converts to a global memory location and back\n"
    "  --read BYTES      also read BYTES bytes through the resulting location\n"
    "  --xderef N        address-space numbering of DW_OP_xderef*: dwarf (DW_ASPACE_*,\n"
    "                    default) or legacy (clang: 1 = private, 2 = local)\n"
    "  --json            print {\"result\": ...} or {\"error\": ...} (specs/eval-json.md)\n"
    "  --trace           print on stderr every operation with the stack after it\n"
    "                    (values with their types, locations with storage, address\n"
    "                    space and bit offset, composites with their parts) and every\n"
    "                    register and memory access; AMDDWARF_TRACE=1 does the same\n"
    "  --stats           print on stderr counts (operations, accesses, bytes) and the\n"
    "                    time of each phase (load, assemble, evaluate, read)\n"
    "\n"
    "Exit status: 0 evaluated, 1 the expression or snapshot is bad or the location\n"
    "cannot be read (status names: optimized_out, unavailable, ...), 2 usage.\n"
    "\n"
    "Example:\n"
    "  amddwarf expr eval --state wave.json --lane 3 --read 4 \\\n"
    "    'DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset'\n";

typedef struct eval_cli {
  amddwarf_eval *ev;
  amddwarf_eval_request req;
  unsigned wave_size;
} eval_cli;

static json_t *json_u64(uint64_t v)
{
  if (v <= (uint64_t)INT64_MAX)
    return json_integer((json_int_t)v);
  char text[32];
  snprintf(text, sizeof text, "%" PRIu64, v);
  return json_string(text);
}

static json_t *bit_offset_json(const amddwarf_location *loc)
{
  if (loc->byte_offset <= (UINT64_MAX >> 3))
    return json_u64(loc->byte_offset * 8 + loc->bit);
  /* Beyond 64 bits: the decimal digits of byte_offset * 8 + bit. */
  char text[48];
  uint64_t hi = loc->byte_offset >> 61, lo = (loc->byte_offset << 3) | loc->bit;
  /* hi * 2^64 + lo, hi < 8: print with long division by 10. */
  char digits[48];
  int n = 0;
  while (hi || lo) {
    uint64_t rem = 0, qhi = 0, qlo = 0;
    /* (hi:lo) / 10 */
    qhi = hi / 10;
    rem = hi % 10;
    for (int bit = 63; bit >= 0; bit--) {
      rem = (rem << 1) | ((lo >> bit) & 1);
      qlo <<= 1;
      if (rem >= 10) {
        rem -= 10;
        qlo |= 1;
      }
    }
    digits[n++] = (char)('0' + rem);
    hi = qhi;
    lo = qlo;
  }
  for (int i = 0; i < n; i++)
    text[i] = digits[n - 1 - i];
  text[n] = '\0';
  return json_string(text);
}

static json_t *location_json(const amddwarf_location *loc)
{
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(amddwarf_location_kind_name(loc->kind)));
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    break;
  case AMDDWARF_LOCATION_MEMORY:
    json_object_set_new(o, "address_space", cli_json_aspace(loc->u.memory.aspace));
    json_object_set_new(o, "address", cli_json_addr(loc->byte_offset));
    json_object_set_new(o, "bit_offset", json_integer(loc->bit));
    break;
  case AMDDWARF_LOCATION_REGISTER:
    cli_json_set_register(o, "register", loc->u.reg.regno, NULL);
    json_object_set_new(o, "bit_offset", bit_offset_json(loc));
    break;
  case AMDDWARF_LOCATION_IMPLICIT:
    json_object_set_new(o, "bytes", cli_json_hex(loc->u.implicit.bytes,
                                                 (size_t)((loc->u.implicit.bit_size + 7) / 8)));
    json_object_set_new(o, "bit_offset", bit_offset_json(loc));
    break;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    json_object_set_new(o, "die", cli_json_addr(loc->u.implicit_pointer.die));
    json_object_set_new(o, "displacement", json_integer(loc->u.implicit_pointer.displacement));
    json_object_set_new(o, "address_space", cli_json_aspace(loc->u.implicit_pointer.aspace));
    break;
  case AMDDWARF_LOCATION_COMPOSITE: {
    json_object_set_new(o, "bit_offset", bit_offset_json(loc));
    json_t *parts = json_array();
    for (uint32_t i = 0; i < loc->u.composite.count; i++) {
      json_t *p = json_object();
      json_object_set_new(p, "bit_size", json_u64(loc->u.composite.parts[i].bit_size));
      json_object_set_new(p, "location", location_json(&loc->u.composite.parts[i].location));
      json_array_append_new(parts, p);
    }
    json_object_set_new(o, "parts", parts);
    break;
  }
  }
  return o;
}

static json_t *value_json(const amddwarf_value *v)
{
  json_t *o = json_object();
  if (v->is_implicit_pointer) {
    json_object_set_new(o, "kind", json_string("implicit_pointer_value"));
    json_object_set_new(o, "die", cli_json_addr(v->pointer.u.implicit_pointer.die));
    json_object_set_new(o, "displacement", json_integer(v->pointer.u.implicit_pointer.displacement));
    json_object_set_new(o, "address_space", cli_json_aspace(v->pointer.u.implicit_pointer.aspace));
    return o;
  }
  json_object_set_new(o, "kind", json_string("value"));
  json_t *type = json_object();
  json_object_set_new(type, "encoding",
                      v->type.encoding == 0
                          ? json_string("generic")
                          : cli_json_code(amddwarf_dw_ate_name(v->type.encoding),
                                          v->type.encoding));
  json_object_set_new(type, "bit_size", json_integer(v->type.bit_size));
  json_object_set_new(type, "vector", json_integer(v->type.count));
  json_object_set_new(o, "type", type);
  json_object_set_new(o, "bytes", cli_json_hex(amddwarf_value_bytes(v), amddwarf_value_size(v)));
  return o;
}

static void print_hex(const uint8_t *bytes, size_t size)
{
  for (size_t i = 0; i < size; i++)
    printf("%02x", bytes[i]);
}

static void print_location(const amddwarf_location *loc, int indent)
{
  char name[64];
  json_t *off = bit_offset_json(loc);
  char offset[48];
  if (json_is_integer(off))
    snprintf(offset, sizeof offset, "%" PRId64, (int64_t)json_integer_value(off));
  else
    snprintf(offset, sizeof offset, "%s", json_string_value(off));
  json_decref(off);
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    printf("undefined\n");
    break;
  case AMDDWARF_LOCATION_MEMORY:
    amddwarf_aspace_name(loc->u.memory.aspace, name, sizeof name);
    printf("memory %s (%u) address 0x%" PRIx64 " bit offset %s\n", name,
           (unsigned)loc->u.memory.aspace, loc->byte_offset, offset);
    break;
  case AMDDWARF_LOCATION_REGISTER:
    amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
    printf("register %s (%u) bit offset %s\n", name, (unsigned)loc->u.reg.regno, offset);
    break;
  case AMDDWARF_LOCATION_IMPLICIT:
    printf("implicit ");
    print_hex(loc->u.implicit.bytes, (size_t)((loc->u.implicit.bit_size + 7) / 8));
    printf(" bit offset %s\n", offset);
    break;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    printf("implicit pointer to DIE 0x%" PRIx64 " displacement %" PRId64 " address space %u\n",
           loc->u.implicit_pointer.die, loc->u.implicit_pointer.displacement,
           (unsigned)loc->u.implicit_pointer.aspace);
    break;
  case AMDDWARF_LOCATION_COMPOSITE:
    printf("composite of %u parts, %" PRIu64 " bits, bit offset %s\n",
           (unsigned)loc->u.composite.count, loc->u.composite.bit_size, offset);
    for (uint32_t i = 0; i < loc->u.composite.count; i++) {
      printf("%*s%" PRIu64 " bits: ", indent + 2, "", loc->u.composite.parts[i].bit_size);
      print_location(&loc->u.composite.parts[i].location, indent + 2);
    }
    break;
  }
}

int cli_expr_eval_main(int argc, char **argv)
{
  const char *command = "expr eval";
  const char *dialect = NULL, *state = NULL, *lane_text = NULL, *result_text = NULL;
  const char *read_text = NULL, *xderef_text = NULL, *text = NULL;
  bool json = false, hex = false, trace = trace_env_enabled(), stats = false;
  trace_printer tp;
  uint8_t *hex_bytes = NULL, *state_data = NULL;
  size_t hex_size = 0, state_size = 0;
  amddwarf_snapshot *snap = NULL;
  amddwarf_eval *ev = NULL;
  uint8_t *read_buf = NULL;
  amddwarf_error err;
  amddwarf_status st;
  int rc = CLI_EXIT_OK;
  amddwarf_error_clear(&err);
  trace_printer_init(&tp, stderr, NULL, false);
  const cli_option options[] = {
      CLI_FLAG("--json", &json),        CLI_FLAG("--hex", &hex),
      CLI_FLAG("--trace", &trace),      CLI_FLAG("--stats", &stats),
      CLI_VALUE("--dialect", &dialect), CLI_VALUE("--state", &state),
      CLI_VALUE("--lane", &lane_text),  CLI_VALUE("--result", &result_text),
      CLI_VALUE("--read", &read_text),  CLI_VALUE("--xderef", &xderef_text)};
  for (int i = 1; i < argc; i++) {
    if (cli_help_arg(argv[i], eval_help)) {
      rc = CLI_EXIT_OK;
      goto done;
    }
    int r = cli_table_arg(command, argc, argv, &i, CLI_OPTIONS(options));
    if (r != 0) {
      if (r < 0) {
        rc = CLI_EXIT_USAGE;
        goto done;
      }
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] == '-') {
      rc = cli_usage_error(command, "unknown option '%s'", argv[i]);
      goto done;
    }
    if (hex) {
      if (cli_append_hex(argv[i], &hex_bytes, &hex_size) != 0) {
        rc = cli_usage_error(command, "'%s' is not hex bytes", argv[i]);
        goto done;
      }
    } else if (text) {
      rc = cli_usage_error(command, "one expression, please (quote the text)");
      goto done;
    } else {
      text = argv[i];
    }
  }
  if (!hex && !text) {
    rc = cli_usage_error(command, "no expression given");
    goto done;
  }

  tp.print = trace;
  trace_phase_begin(&tp, "load");
  if (state) {
    if (cli_read_input(command, json, state, &state_data, &state_size) != 0) {
      rc = CLI_EXIT_BAD_INPUT;
      goto done;
    }
    st = amddwarf_snapshot_load((const char *)state_data, state_size, NULL, &snap, &err);
  } else {
    st = amddwarf_snapshot_load("{}", 2, NULL, &snap, &err);
  }
  if (st != AMDDWARF_OK) {
    rc = cli_report_error(command, json, st, &err);
    goto done;
  }
  trace_phase_end(&tp);
  amddwarf_target target;
  amddwarf_snapshot_target(snap, &target);
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &target);
  req.format.address_size = (uint8_t)amddwarf_snapshot_address_size(snap);
  if (dialect && amddwarf_dialect_from_name(dialect, &req.format.dialect) != AMDDWARF_OK) {
    rc = cli_usage_error(command, "unknown dialect '%s' (auto, draft, vendor, user)", dialect);
    goto done;
  }
  if (lane_text) {
    uint64_t lane;
    if (cli_parse_u64(lane_text, &lane) != 0 || lane >= amddwarf_snapshot_wave_size(snap)) {
      rc = cli_usage_error(command, "--lane %s is not a lane of a %u-lane wave", lane_text,
                           (unsigned)amddwarf_snapshot_wave_size(snap));
      goto done;
    }
    req.lane = (uint32_t)lane;
  }
  if (result_text) {
    if (strcmp(result_text, "location") == 0)
      req.required = AMDDWARF_RESULT_LOCATION;
    else if (strcmp(result_text, "value") == 0)
      req.required = AMDDWARF_RESULT_VALUE;
    else {
      rc = cli_usage_error(command, "--result is location or value, not '%s'", result_text);
      goto done;
    }
  }
  if (xderef_text) {
    if (strcmp(xderef_text, "dwarf") == 0)
      req.xderef = AMDDWARF_XDEREF_DWARF;
    else if (strcmp(xderef_text, "legacy") == 0)
      req.xderef = AMDDWARF_XDEREF_LEGACY;
    else {
      rc = cli_usage_error(command, "--xderef is dwarf or legacy, not '%s'", xderef_text);
      goto done;
    }
  }
  uint64_t read_bytes = 0;
  if (read_text) {
    if (cli_parse_u64(read_text, &read_bytes) != 0 || read_bytes == 0 || read_bytes > 65536) {
      rc = cli_usage_error(command, "--read takes 1 to 65536 bytes, not '%s'", read_text);
      goto done;
    }
    if (req.required != AMDDWARF_RESULT_LOCATION) {
      rc = cli_usage_error(command, "--read needs --result location");
      goto done;
    }
  }

  uint8_t assembled[4096];
  const uint8_t *bytes = hex_bytes;
  size_t size = hex_size;
  tp.format = req.format;
  if (trace || stats)
    trace_printer_attach(&tp, &req);
  trace_phase_begin(&tp, "assemble");
  if (!hex) {
    st = amddwarf_expr_assemble(text, &req.format, amddwarf_snapshot_wave_size(snap), assembled,
                                sizeof assembled, &size, &err);
    if (st != AMDDWARF_OK) {
      rc = cli_report_error(command, json, st, &err);
      goto done;
    }
    bytes = assembled;
  }
  trace_phase_begin(&tp, "evaluate");
  st = amddwarf_eval_new(NULL, &ev, &err);
  amddwarf_entry result;
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_expr(ev, &req, bytes, size, &result, &err);
  trace_phase_end(&tp);
  if (st != AMDDWARF_OK) {
    rc = cli_report_error(command, json, st, &err);
    goto done;
  }
  if (read_bytes) {
    read_buf = calloc(1, (size_t)read_bytes);
    if (!read_buf) {
      rc = cli_report_error(command, json, AMDDWARF_E_NO_MEMORY, NULL);
      goto done;
    }
    trace_phase_begin(&tp, "read");
    st = amddwarf_location_read(ev, &req, &result.location, 0, read_bytes * 8, read_buf, &err);
    trace_phase_end(&tp);
    if (st != AMDDWARF_OK) {
      err.offset = AMDDWARF_NO_OFFSET;
      err.opcode = AMDDWARF_NO_OPCODE;
      rc = cli_report_error(command, json, st, &err);
      goto done;
    }
  }
  if (json) {
    json_t *r = result.kind == AMDDWARF_ENTRY_LOCATION ? location_json(&result.location)
                                                      : value_json(&result.value);
    if (read_buf)
      json_object_set_new(r, "read", cli_json_hex(read_buf, (size_t)read_bytes));
    json_t *root = json_object();
    json_object_set_new(root, "result", r);
    cli_print_json(root);
  } else {
    if (result.kind == AMDDWARF_ENTRY_LOCATION) {
      printf("location: ");
      print_location(&result.location, 0);
    } else if (result.value.is_implicit_pointer) {
      printf("value: implicit pointer to DIE 0x%" PRIx64 "\n",
             result.value.pointer.u.implicit_pointer.die);
    } else {
      printf("value: %s %u bits x%u: ", amddwarf_encoding_name(result.value.type.encoding),
             (unsigned)result.value.type.bit_size, (unsigned)result.value.type.count);
      print_hex(amddwarf_value_bytes(&result.value), amddwarf_value_size(&result.value));
      printf("\n");
    }
    if (read_buf) {
      printf("read: ");
      print_hex(read_buf, (size_t)read_bytes);
      printf("\n");
    }
  }
done:
  if (stats && rc != CLI_EXIT_USAGE) {
    trace_phase_end(&tp);
    trace_print_stats(&tp, stderr);
  }
  amddwarf_eval_free(ev);
  amddwarf_snapshot_free(snap);
  free(read_buf);
  free(hex_bytes);
  free(state_data);
  return rc;
}
