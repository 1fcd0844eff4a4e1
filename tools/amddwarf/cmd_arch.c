/* amddwarf arch: what a debugger backend needs to know about a processor
 * (the amd-dbgapi architecture queries), for every processor, a target ID, or
 * the processor a code object was built for. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "object_cli.h"

static const char arch_help[] =
    "usage: amddwarf arch [NAME|OBJECT [--target ID] [--object N]] [--json]\n"
    "\n"
    "Prints, per AMDGPU processor, what a debugger backend needs beside the DWARF:\n"
    "the values amd-dbgapi's architecture queries report (breakpoint instruction,\n"
    "its size, the PC adjustment after it is hit, the PC register, the largest\n"
    "instruction size, the instruction alignment) and the wave sizes, AGPRs and\n"
    "target features (specs/architectures.md lists the sources).\n"
    "\n"
    "  (no argument)   a table of every processor from gfx900 to gfx12\n"
    "  NAME            a target ID: gfx90a, gfx90a:sramecc+:xnack-,\n"
    "                  amdgcn-amd-amdhsa--gfx1030, plus :wave32 or :wave64 to\n"
    "                  choose a wave size\n"
    "  OBJECT          a code object file: its processor and features from e_flags,\n"
    "                  its kernels' wave size from the metadata; or a host\n"
    "                  executable, bundle or URI holding code objects, one chosen\n"
    "                  with --target ID or --object N (see `amddwarf objects`)\n"
    "  --json          print {\"architectures\": [...]}\n"
    "\n"
    "The breakpoint is written over an instruction; when a wave stops on it, its PC\n"
    "is the breakpoint address plus \"pc adjust\" bytes.\n"
    "\n"
    "Exit status: 0 printed, 1 unknown processor or bad object, 2 usage.\n"
    "\n"
    "Examples:\n"
    "  amddwarf arch\n"
    "  amddwarf arch gfx1100:wave64\n"
    "  amddwarf arch kernel.o --json\n";

static const char *yes_no(int v)
{
  return v ? "yes" : "no";
}

static void wave_text(const amddwarf_arch *a, char *buf, size_t size)
{
  if (a->wave32 && a->wave64)
    snprintf(buf, size, "32,64");
  else
    snprintf(buf, size, "%s", a->wave32 ? "32" : "64");
}

static void breakpoint_text(const amddwarf_arch *a, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < a->breakpoint_size && n + 4 < size; i++)
    n += (size_t)snprintf(buf + n, size - n, i ? " %02x" : "%02x", a->breakpoint[i]);
}

static json_t *arch_json(const amddwarf_arch *a)
{
  char id[96], reg[32];
  amddwarf_arch_target_id(a, id, sizeof id);
  amddwarf_amdgpu_register_name(a->pc_regno, AMDDWARF_REGISTER_DWARF_NAME, reg, sizeof reg);
  json_t *o = json_object();
  json_object_set_new(o, "target_id", json_string(id));
  json_object_set_new(o, "processor", json_string(a->processor));
  json_object_set_new(o, "family", json_string(a->family));
  json_object_set_new(o, "mach", cli_json_addr(a->mach));
  json_object_set_new(o, "xnack", json_string(amddwarf_arch_feature_name(a->xnack)));
  json_object_set_new(o, "sramecc", json_string(amddwarf_arch_feature_name(a->sramecc)));
  json_t *waves = json_array();
  if (a->wave32)
    json_array_append_new(waves, json_integer(32));
  if (a->wave64)
    json_array_append_new(waves, json_integer(64));
  json_object_set_new(o, "wave_sizes", waves);
  json_object_set_new(o, "default_wave_size", json_integer(a->default_wave_size));
  json_object_set_new(o, "wave_size", a->wave_size ? json_integer(a->wave_size) : json_null());
  json_object_set_new(o, "agprs", json_boolean(a->has_agprs));
  json_object_set_new(o, "breakpoint_instruction", cli_json_hex(a->breakpoint, a->breakpoint_size));
  json_object_set_new(o, "breakpoint_instruction_text", json_string(a->breakpoint_text));
  json_object_set_new(o, "breakpoint_instruction_size", json_integer(a->breakpoint_size));
  json_object_set_new(o, "breakpoint_instruction_pc_adjust", json_integer(a->breakpoint_pc_adjust));
  json_t *pc = json_object();
  cli_json_set_register(pc, "register", a->pc_regno, reg);
  json_object_set_new(pc, "size", json_integer(a->pc_size));
  json_object_set_new(o, "pc_register", pc);
  json_object_set_new(o, "largest_instruction_size", json_integer(a->largest_instruction_size));
  json_object_set_new(o, "minimum_instruction_alignment",
                      json_integer(a->minimum_instruction_alignment));
  return o;
}

static void print_one(const amddwarf_arch *a)
{
  char id[96], reg[32], waves[16], bp[32];
  amddwarf_arch_target_id(a, id, sizeof id);
  amddwarf_amdgpu_register_name(a->pc_regno, AMDDWARF_REGISTER_DWARF_NAME, reg, sizeof reg);
  wave_text(a, waves, sizeof waves);
  breakpoint_text(a, bp, sizeof bp);
  printf("%s\n", id);
  printf("  family                      %s\n", a->family);
  printf("  e_flags mach                0x%02x\n", (unsigned)a->mach);
  printf("  xnack                       %s\n", amddwarf_arch_feature_name(a->xnack));
  printf("  sramecc                     %s\n", amddwarf_arch_feature_name(a->sramecc));
  printf("  wave sizes                  %s (default %u", waves, (unsigned)a->default_wave_size);
  if (a->wave_size)
    printf(", chosen %u", (unsigned)a->wave_size);
  printf(")\n");
  printf("  agprs                       %s\n", yes_no(a->has_agprs));
  printf("  breakpoint instruction      %s (%s)\n", bp, a->breakpoint_text);
  printf("  breakpoint size             %u\n", (unsigned)a->breakpoint_size);
  printf("  breakpoint pc adjust        %u\n", (unsigned)a->breakpoint_pc_adjust);
  printf("  pc register                 %u (%s), %u bytes\n", (unsigned)a->pc_regno, reg,
         (unsigned)a->pc_size);
  printf("  largest instruction size    %u\n", (unsigned)a->largest_instruction_size);
  printf("  instruction alignment       %u\n", (unsigned)a->minimum_instruction_alignment);
}

static void print_table(void)
{
  printf("%-10s %-5s %-6s %-6s %-7s %-5s %-11s %-11s %-11s %-6s %-8s %s\n", "PROCESSOR",
         "MACH", "FAMILY", "WAVES", "DEFAULT", "AGPRS", "XNACK", "SRAMECC", "BREAKPOINT",
         "ADJUST", "PC", "LARGEST");
  amddwarf_arch a;
  for (size_t i = 0; amddwarf_arch_get(i, &a) == AMDDWARF_OK; i++) {
    char waves[16], bp[32], pc[16];
    wave_text(&a, waves, sizeof waves);
    breakpoint_text(&a, bp, sizeof bp);
    snprintf(pc, sizeof pc, "%u/%u", (unsigned)a.pc_regno, (unsigned)a.pc_size);
    printf("%-10s 0x%02x  %-6s %-6s %-7u %-5s %-11s %-11s %-11s %-6u %-8s %u\n", a.processor,
           (unsigned)a.mach, a.family, waves, (unsigned)a.default_wave_size,
           yes_no(a.has_agprs), amddwarf_arch_feature_name(a.xnack),
           amddwarf_arch_feature_name(a.sramecc), bp, (unsigned)a.breakpoint_pc_adjust, pc,
           (unsigned)a.largest_instruction_size);
  }
}

/* The architecture of the code object OBJ. */
static amddwarf_status arch_of_object(const amddwarf_object *obj, amddwarf_arch *out,
                                      amddwarf_error *err)
{
  amddwarf_status st;
  const amddwarf_object_info *info = amddwarf_object_get_info(obj);
  st = amddwarf_arch_from_e_flags(info->e_flags, info->abi_version, out, err);
  if (st == AMDDWARF_OK && ((info->wave_size == 32 && out->wave32) ||
                            (info->wave_size == 64 && out->wave64)))
    out->wave_size = info->wave_size;
  return st;
}

int cli_arch_main(int argc, char **argv)
{
  const char *command = "arch";
  const char *what = NULL;
  bool json = false;
  cli_object_args args = {0};
  const cli_option options[] = {CLI_FLAG("--json", &json)};
  for (int i = 1; i < argc; i++) {
    int r = cli_select_arg(command, arch_help, argc, argv, &i, &args, CLI_OPTIONS(options));
    if (r == CLI_ARG_TAKEN)
      continue;
    if (r != CLI_ARG_NONE)
      return CLI_ARG_EXIT(r);
    if (argv[i][0] == '-')
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    if (what)
      return cli_usage_error(command, "one processor or object, please");
    what = argv[i];
  }

  if (!what) {
    if (json) {
      json_t *list = json_array();
      amddwarf_arch a;
      for (size_t i = 0; amddwarf_arch_get(i, &a) == AMDDWARF_OK; i++)
        json_array_append_new(list, arch_json(&a));
      json_t *root = json_object();
      json_object_set_new(root, "architectures", list);
      cli_print_json(root);
    } else {
      print_table();
    }
    return CLI_EXIT_OK;
  }

  amddwarf_arch a;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  /* A path that exists, or that looks like one (target IDs have no '.' or
     '/'), is an object; anything else a target ID. */
  struct stat sb;
  if (stat(what, &sb) == 0 || strchr(what, '/') != NULL || strchr(what, '.') != NULL) {
    amddwarf_object *obj = NULL;
    args.path = what;
    args.json = json;
    int rc = cli_object_open(command, &args, &obj);
    if (rc != 0)
      return rc;
    st = arch_of_object(obj, &a, &err);
    cli_object_close(&args, obj);
  } else {
    st = amddwarf_arch_from_name(what, &a, &err);
  }
  if (st != AMDDWARF_OK)
    return cli_report_error(command, json, st, &err);
  if (json) {
    json_t *list = json_array();
    json_array_append_new(list, arch_json(&a));
    json_t *root = json_object();
    json_object_set_new(root, "architectures", list);
    cli_print_json(root);
  } else {
    print_one(&a);
  }
  return CLI_EXIT_OK;
}
