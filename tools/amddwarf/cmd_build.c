/* amddwarf build: write an AMDGPU code object with DWARF (every AMDGPU
 * extension included) from a JSON description. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char command[] = "build";

static void print_help(void)
{
  printf("Usage: amddwarf build DESCRIPTION.json -o OBJECT [--json]\n"
         "\n"
         "Writes an AMDGPU ELF code object (relocatable or shared) whose DWARF is\n"
         "described in JSON (full format in specs/build.md):\n"
         "\n"
         "  {\"dwarf\":  {\"version\": 5, \"format\": \"dwarf32\", \"dialect\": \"user\",\n"
         "              \"attribute_codes\": \"current\", \"wave_size\": 64},\n"
         "   \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\", \"text_size\": 64},\n"
         "   \"symbols\": [{\"name\": \"k\", \"offset\": 0, \"size\": 64}],\n"
         "   \"units\": [{\"name\": \"k.cl\", \"files\": [{\"name\": \"k.cl\"}],\n"
         "              \"lines\": [{\"offset\": 0, \"line\": 3}],\n"
         "              \"types\": [{\"id\": \"int\", \"kind\": \"base\", \"byte_size\": 4,\n"
         "                         \"encoding\": \"signed\"}],\n"
         "              \"functions\": [{\"name\": \"k\", \"low\": 0, \"high\": 64,\n"
         "                 \"variables\": [{\"name\": \"x\", \"type\": \"int\",\n"
         "                    \"location\": \"DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4;\n"
         "                                 DW_OP_mul; DW_OP_LLVM_offset\"}],\n"
         "                 \"regions\": [{\"kind\": \"if\", \"name\": \"1\", \"start\": 8,\n"
         "                    \"body\": 12, \"else\": 24, \"end\": 36,\n"
         "                    \"save_exec\": \"DW_OP_regx s4; DW_OP_piece 4; DW_OP_regx s5; DW_OP_piece 4\"}]}]}],\n"
         "   \"cfi\": {\"cies\": [{\"instructions\": [{\"op\": \"DW_CFA_def_cfa\", \"operands\": [64, 0]}]}],\n"
         "           \"fdes\": [{\"cie\": 0, \"start\": 0, \"length\": 64}]}}\n"
         "\n"
         "Expressions use the assembler syntax of `amddwarf expr encode` and are\n"
         "encoded in the chosen dialect; \"@NAME\" stands for the DIE named NAME\n"
         "(DW_OP_call_ref @__active_lane_pc) and \"@text+N\" for a .text address.\n"
         "\"regions\" generate the lane-PC procedures and DW_AT_LLVM_lane_pc list.\n"
         "\n"
         "Options:\n"
         "  -o, --output FILE  where to write the object (required)\n"
         "  --json             report errors as {\"error\": {...}}\n"
         "\n"
         "example: amddwarf build examples/seed-nest/nest.json -o nest.elf\n"
         "\n"
         "Exit status: 0 written, 1 bad description or write error, 2 bad usage.\n");
}

int cli_build_main(int argc, char **argv)
{
  const char *description = NULL, *output = NULL;
  bool json = false;
  const cli_option options[] = {
      CLI_FLAG("--json", &json), CLI_VALUE("-o", &output), CLI_VALUE("--output", &output)};
  int scanned = cli_scan_single(command, argc, argv, print_help, CLI_OPTIONS(options),
                                "description", &description);
  if (scanned >= 0)
    return scanned;
  if (!description)
    return cli_usage_error(command, "a DESCRIPTION.json is required");
  if (!output)
    return cli_usage_error(command, "an output file is required (-o OBJECT)");
  uint8_t *text = NULL;
  size_t size = 0;
  if (cli_read_input(command, json, description, &text, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  uint8_t *object = NULL;
  size_t object_size = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status status =
      amddwarf_build_json((const char *)text, size, NULL, &object, &object_size, &err);
  free(text);
  if (status != AMDDWARF_OK)
    return cli_report_error(command, json, status, &err);
  int result = cli_write_file(command, json, output, object, object_size);
  amddwarf_produce_free_bytes(NULL, object, object_size);
  if (result == CLI_EXIT_OK)
    printf("wrote %s (%zu bytes)\n", output, object_size);
  return result;
}
