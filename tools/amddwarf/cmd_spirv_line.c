/* amddwarf spirv-line: resolve instruction indexes of a SPIR-V module to
 * the instructions they name and their source lines. */
#include <stdlib.h>
#include <string.h>

#include "spirv_print.h"

static const char *const command = "spirv-line";

static const char *const usage =
    "usage: amddwarf spirv-line MODULE.spv INDEX... [--position] [--json]\n"
    "\n"
    "Resolves each INDEX, an instruction index as GPU-assisted validation\n"
    "records carry it, to the SPIR-V instruction it names, the OpLine or\n"
    "DebugLine in effect for that instruction, and the source line found in\n"
    "the module's OpSource/DebugSource text with the #line rule.\n"
    "\n"
    "Indexes are counted the way SPIRV-Tools' instrumentation passes count\n"
    "them (every instruction once, plus one for each line instruction that\n"
    "applies to an instruction inside a function or among the global values;\n"
    "DebugScope does not count); see specs/spirv-instruction-index.md.\n"
    "\n"
    "  --position  count INDEX as the plain ordinal of the instruction\n"
    "  --json      one JSON document: {\"module\", \"locations\": [...]}\n"
    "              (specs/json.md)\n"
    "\n"
    "Example:\n"
    "  amddwarf spirv-line shader.spv 60\n"
    "  60: OpImageSampleImplicitLod %34 (instruction 55) at shader.frag:9:0\n"
    "  9:    uFragColor = light * texture(tex[tex_ind], texcoord.xy);\n"
    "\n"
    "Exit status: 0 when every index resolved, 1 otherwise, 2 for usage errors.\n";

int cli_spirv_line_main(int argc, char **argv)
{
  bool json = false;
  amddwarf_spirv_index_mode mode = AMDDWARF_SPIRV_INDEX_INSTRUMENT;
  const char *path = NULL;
  int index_count = 0;
  for (int i = 1; i < argc; i++)
    if (cli_help_arg(argv[i], usage))
      return CLI_EXIT_OK;
  uint32_t *indexes = calloc((size_t)argc, sizeof(uint32_t));
  if (!indexes)
    return cli_usage_error(command, "out of memory");
  for (int i = 1; i < argc; i++) {
    if (cli_is_flag(argv[i], "--json")) {
      json = true;
    } else if (cli_is_flag(argv[i], "--position")) {
      mode = AMDDWARF_SPIRV_INDEX_POSITION;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      free(indexes);
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      uint64_t v;
      if (cli_parse_u64(argv[i], &v) != 0 || v > UINT32_MAX) {
        free(indexes);
        return cli_usage_error(command, "'%s' is not an instruction index", argv[i]);
      }
      indexes[index_count++] = (uint32_t)v;
    }
  }
  if (!path || index_count == 0) {
    free(indexes);
    return cli_usage_error(command, "needs a module and at least one index");
  }
  amddwarf_spirv_module *module = NULL;
  int rc = spirv_print_open(command, path, json, &module);
  if (rc != 0) {
    free(indexes);
    return rc;
  }
  int status = CLI_EXIT_OK;
  json_t *array = json ? json_array() : NULL;
  for (int k = 0; k < index_count; k++) {
    amddwarf_spirv_location loc;
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    amddwarf_status st = amddwarf_spirv_module_resolve(module, indexes[k], mode, &loc, &err);
    if (st != AMDDWARF_OK) {
      status = CLI_EXIT_BAD_INPUT;
      if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "index", json_integer(indexes[k]));
        json_object_set_new(o, "error", cli_json_error(st, &err));
        json_array_append_new(array, o);
      } else {
        printf("%u: %s\n", indexes[k], err.message);
      }
      continue;
    }
    if (json) {
      json_array_append_new(array, spirv_print_location_json(&loc));
      continue;
    }
    char text[160];
    spirv_print_instruction(&loc, text, sizeof(text));
    printf("%u: %s (instruction %u)", loc.index, text, loc.position);
    if (!loc.has_line) {
      printf(": no line information\n");
      continue;
    }
    printf(" at %s:%u:%u\n", loc.file ? loc.file : "<no file>", loc.line, loc.column);
    if (loc.source_line)
      printf("%u: %.*s\n", loc.line, (int)loc.source_line_length, loc.source_line);
  }
  if (json) {
    json_t *root = json_object();
    json_object_set_new(root, "module", json_string(path));
    json_object_set_new(root, "locations", array);
    cli_print_json(root);
  }
  amddwarf_spirv_module_close(module);
  free(indexes);
  return status;
}
