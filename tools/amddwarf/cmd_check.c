/* amddwarf check: static well-formedness checks of a code object's DWARF
 * expressions, location lists and call frame information. */
#include <string.h>

#include "object_cli.h"

static const char *const usage =
    "usage: amddwarf check OBJECT [--json] [--no-quirks] [--convention C] [--dialect D]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Decodes every location expression (DW_AT_location, DW_AT_frame_base,\n"
    "DW_AT_data_member_location, array bounds, DW_AT_LLVM_lane_pc and\n"
    "active_lane), every location list and every .debug_frame CIE and FDE\n"
    "program of an AMDGPU code object, and reports what is ill-formed without\n"
    "running anything:\n"
    "\n"
    "  decode             bad opcode or sub-opcode, truncated operand, branch\n"
    "                     target that is not an operation\n"
    "  stack_underflow    an operation needs more entries than some path gives\n"
    "  bad_stack_operand  DW_OP_pick reaching under the bottom of the stack\n"
    "  empty_result       a path ends with nothing on the stack and no piece\n"
    "  bad_register       a register number outside the AMDGPU DWARF map\n"
    "  wave_register      a wave32 register in a wave64 object, or the reverse\n"
    "  bad_address_space  a constant address space that the unit's convention\n"
    "                     does not define (legacy xderef: 1 private, 2 local)\n"
    "  piece_overrun      a piece larger than its register or implicit value\n"
    "  list_inverted      a location list entry whose end is before its start\n"
    "  list_overlap       location list entries covering the same addresses\n"
    "  cfi                a CIE or FDE that cannot be read or executed\n"
    "  undefined_address  an address (DW_OP_addr, a .debug_addr entry) that\n"
    "                     comes from a symbol without an address: clang's\n"
    "                     __local and __shared__ variables, whose symbols the\n"
    "                     link leaves undefined\n"
    "  private_without_segment  a location in private memory in a kernel whose\n"
    "                     metadata declares no private segment and no dynamic\n"
    "                     stack\n"
    "\n"
    "and, as warnings that are not problems, every location read through a\n"
    "producer quirk (producer_quirk: clang's promoted OpenCL variables; see\n"
    "specs/conventions.md), with a count per quirk.\n"
    "\n"
    "  --json             {\"problems\": [...], \"count\": N, \"warnings\": N,\n"
    "                     \"quirk_uses\": {NAME: N}}\n"
    "  --no-quirks        read every location as written: no producer quirk\n"
    "  --convention C     auto, legacy or extension (see amddwarf dump)\n"
    "  --dialect D        auto, draft, vendor or user\n"
    "\n"
    "example: amddwarf check kernel.o\n"
    "\n"
    "Exit status: 0 when nothing is wrong, 1 when problems were found (or the\n"
    "object cannot be read), 2 for a usage error.\n";

typedef struct report_ctx {
  bool json;
  json_t *list;
  const amddwarf_object *object;
  size_t warnings;
  size_t quirk_uses[33]; /* by amddwarf_quirk (at most 32) */
} report_ctx;

static int report(void *user, const amddwarf_check_problem *p)
{
  report_ctx *r = user;
  const char *at = p->attribute ? amddwarf_dw_at_name(p->attribute) : NULL;
  bool warning = amddwarf_check_kind_is_warning(p->kind) != 0;
  r->warnings += warning;
  if (p->quirk != AMDDWARF_QUIRK_NONE && p->quirk < sizeof r->quirk_uses / sizeof r->quirk_uses[0])
    r->quirk_uses[p->quirk]++;
  if (r->json) {
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(amddwarf_check_kind_name(p->kind)));
    json_object_set_new(o, "severity", json_string(warning ? "warning" : "error"));
    if (p->quirk != AMDDWARF_QUIRK_NONE)
      json_object_set_new(o, "quirk", json_string(amddwarf_quirk_get(p->quirk)->name));
    if (p->status != 0)
      json_object_set_new(o, "status", json_string(amddwarf_status_name(p->status)));
    json_object_set_new(o, "die",
                        p->die_offset == UINT64_MAX ? json_null() : cli_json_addr(p->die_offset));
    json_object_set_new(o, "attribute", at ? json_string(at) : json_null());
    json_object_set_new(o, "entry", p->entry_offset == UINT64_MAX
                                        ? json_null()
                                        : cli_json_addr(p->entry_offset));
    json_object_set_new(o, "op_offset",
                        p->op_offset == UINT64_MAX ? json_null() : cli_json_addr(p->op_offset));
    json_object_set_new(o, "opcode",
                        p->opcode < 0 ? json_null() : cli_json_addr((uint64_t)p->opcode));
    json_object_set_new(o, "message", json_string(p->message));
    json_array_append_new(r->list, o);
    return 0;
  }
  printf("%s%s:", warning ? "warning: " : "", amddwarf_check_kind_name(p->kind));
  if (p->die_offset != UINT64_MAX) {
    amddwarf_die_ref d;
    const char *name = NULL;
    if (amddwarf_object_die_ref_at(r->object, p->die_offset, &d, NULL) == AMDDWARF_OK)
      name = amddwarf_object_die_string(r->object, d, AMDDWARF_DW_AT_name);
    printf(" DIE 0x%08llx", (unsigned long long)p->die_offset);
    if (name != NULL)
      printf(" (%s)", name);
  }
  if (at != NULL)
    printf(" %s", at);
  if (p->entry_offset != UINT64_MAX)
    printf(" entry at 0x%llx", (unsigned long long)p->entry_offset);
  if (p->op_offset != UINT64_MAX)
    printf(" byte %llu", (unsigned long long)p->op_offset);
  if (p->opcode >= 0)
    printf(" opcode 0x%02x", (unsigned)p->opcode);
  printf(": %s\n", p->message);
  return 0;
}

int cli_check_main(int argc, char **argv)
{
  cli_object_args args = {0};
  int scanned = cli_object_scan("check", usage, argc, argv, &args, NULL, 0);
  if (scanned >= 0)
    return scanned;
  if (args.path == NULL)
    return cli_usage_error("check", "missing OBJECT");
  amddwarf_object *object = NULL;
  int rc = cli_object_open("check", &args, &object);
  if (rc != 0)
    return rc;
  report_ctx ctx = {args.json, args.json ? json_array() : NULL, object, 0, {0}};
  size_t count = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_object_check(object, report, &ctx, &count, &err);
  if (st != AMDDWARF_OK) {
    json_decref(ctx.list);
    cli_object_close(&args, object);
    return cli_report_error("check", args.json, st, &err);
  }
  if (args.json) {
    json_t *root = json_object();
    json_object_set_new(root, "file", json_string(args.path));
    json_object_set_new(root, "count", json_integer((json_int_t)count));
    json_object_set_new(root, "warnings", json_integer((json_int_t)ctx.warnings));
    json_t *uses = json_object();
    for (amddwarf_quirk q = 1; q <= amddwarf_quirk_count() && q < 33; ++q)
      if (ctx.quirk_uses[q])
        json_object_set_new(uses, amddwarf_quirk_get(q)->name,
                            json_integer((json_int_t)ctx.quirk_uses[q]));
    json_object_set_new(root, "quirk_uses", uses);
    json_object_set_new(root, "problems", ctx.list);
    cli_print_json(root);
  } else {
    for (amddwarf_quirk q = 1; q <= amddwarf_quirk_count() && q < 33; ++q)
      if (ctx.quirk_uses[q])
        printf("%s: producer quirk %s: %zu location%s read as: %s\n", args.path,
               amddwarf_quirk_get(q)->name, ctx.quirk_uses[q], ctx.quirk_uses[q] == 1 ? "" : "s",
               amddwarf_quirk_get(q)->reading);
    if (count == 0)
      printf("%s: no problems\n", args.path);
    else
      printf("%s: %zu problem%s\n", args.path, count, count == 1 ? "" : "s");
  }
  cli_object_close(&args, object);
  return count == 0 ? CLI_EXIT_OK : CLI_EXIT_BAD_INPUT;
}
