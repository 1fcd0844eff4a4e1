/* Printing SPIR-V locations; see spirv_print.h. */
#include "spirv_print.h"
#include "json_out.h"

#include <stdlib.h>

int spirv_print_open(const char *command, const char *path, bool json,
                     amddwarf_spirv_module **out)
{
  uint8_t *data = NULL;
  size_t size = 0;
  if (cli_read_input(command, json, path, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_spirv_module_open(data, size, NULL, out, &err);
  free(data);
  if (st != AMDDWARF_OK)
    return cli_report_error(command, json, st, &err);
  return 0;
}

void spirv_print_instruction(const amddwarf_spirv_location *loc, char *buf, size_t size)
{
  char result[24] = "";
  if (loc->result_id)
    snprintf(result, sizeof(result), " %%%u", loc->result_id);
  if (loc->ext_set)
    snprintf(buf, size, "OpExtInst %s %u%s", loc->ext_set, loc->ext_opcode, result);
  else if (loc->opname)
    snprintf(buf, size, "%s%s", loc->opname, result);
  else
    snprintf(buf, size, "opcode %u%s", loc->opcode, result);
}

json_t *spirv_print_location_json(const amddwarf_spirv_location *loc)
{
  char text[160];
  json_t *o = json_object();
  json_object_set_new(o, "index", json_integer(loc->index));
  json_object_set_new(o, "position", json_integer(loc->position));
  json_object_set_new(o, "word_offset", cli_json_addr(loc->word_offset));
  json_object_set_new(o, "opcode", cli_json_addr(loc->opcode));
  spirv_print_instruction(loc, text, sizeof(text));
  json_object_set_new(o, "instruction", json_string(text));
  if (loc->result_id)
    json_object_set_new(o, "result_id", json_integer(loc->result_id));
  if (!loc->has_line) {
    json_object_set_new(o, "line", json_null());
    return o;
  }
  json_object_set_new(o, "file_id", json_integer(loc->file_id));
  json_object_set_new(o, "file", loc->file ? json_string(loc->file) : json_null());
  json_object_set_new(o, "line", json_integer(loc->line));
  json_object_set_new(o, "column", json_integer(loc->column));
  if (loc->end_line != loc->line || loc->end_column != loc->column) {
    json_object_set_new(o, "end_line", json_integer(loc->end_line));
    json_object_set_new(o, "end_column", json_integer(loc->end_column));
  }
  if (loc->source_line) {
    json_object_set_new(o, "source_text_line", json_integer(loc->source_text_line));
    json_object_set_new(o, "source",
                        json_stringn(loc->source_line, loc->source_line_length));
  } else {
    json_object_set_new(o, "source", json_null());
  }
  return o;
}
