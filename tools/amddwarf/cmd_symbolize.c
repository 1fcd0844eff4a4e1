/* amddwarf symbolize: print the records of a GPU-assisted-validation debug
 * output buffer the way the validation layer reports them, with source
 * lines from the shaders' SPIR-V; also decodes the descriptor input buffer. */
#include <stdlib.h>
#include <string.h>

#include "cli_stream.h"
#include "json_out.h"
#include "spirv_print.h"

static const char *const command = "symbolize";

static const char *const usage =
    "usage: amddwarf symbolize --spirv MODULE.spv[=SHADER_ID] ... --buffer OUT.bin\n"
    "                          [--format auto|seed|v2|v2-noflags] [--instrumented INST.spv]\n"
    "                          [--printf] [--position] [--json]\n"
    "       amddwarf symbolize --descriptors INPUT.bin [--instrumented INST.spv]\n"
    "                          [--layout auto|sizes|written|lengths] [--json]\n"
    "\n"
    "Reads the debug output buffer that instrumented shaders wrote and prints\n"
    "each record as the validation layer does: the error, the shader, the\n"
    "instruction index, the stage and its invocation words, and the file, line\n"
    "and source line of the instruction, found in the SPIR-V module given for\n"
    "the record's shader id (the module as it was BEFORE instrumentation).\n"
    "A module given without =SHADER_ID serves every shader id not given; a\n"
    "shader id may be given once, and one module at most goes without one.\n"
    "\n"
    "Every record is first checked against its module: its instruction must\n"
    "be one the instrumentation checks (an image instruction, OpLoad, OpStore,\n"
    "the DebugPrintf OpExtInst), able to report its error code, and its stage\n"
    "the execution model of an entry point. A record that cannot come from\n"
    "its module stops the command before anything is printed. The buffer is\n"
    "read in chunks, so buffers of several GiB need little memory.\n"
    "\n"
    "Records whose instruction is a NonSemantic.DebugPrintf instruction are\n"
    "debug-printf records: their format string (an OpString of the module) is\n"
    "applied to the argument words.\n"
    "\n"
    "  --format F        record format: auto (default), seed (written length,\n"
    "                    two stage words), v2 (flags, written length, three\n"
    "                    stage words: SPIRV-Tools Oct 2022-2023), v2-noflags\n"
    "                    (written length, three stage words: 2019-2022); see\n"
    "                    specs/gpuav-records.md\n"
    "  --instrumented M  the module AFTER instrumentation: its record writer\n"
    "                    gives the format (unless --format), its input buffer\n"
    "                    reads give the descriptor input buffer's layout\n"
    "  --printf          render every record as a debug-printf record\n"
    "  --position        instruction indexes are plain instruction ordinals\n"
    "  --descriptors     decode a bindless descriptor input buffer to a table\n"
    "  --layout L        its layout: auto (from word 0, or from --instrumented),\n"
    "                    sizes (descriptor indexing), written (no sizes),\n"
    "                    lengths (SPIRV-Tools 2019.1)\n"
    "  --json            print JSON\n"
    "\n"
    "Example:\n"
    "  spirv-opt --inst-desc-idx-check frag.spv -o frag.inst.spv  (shader id 23)\n"
    "  amddwarf symbolize --spirv frag.spv=23 --buffer out.bin\n"
    "\n"
    "Exit status: 0 when every record decoded, 1 for a malformed buffer, an\n"
    "overflowing written length, a record that could not be read or does not\n"
    "fit its module, 2 for usage errors.\n";

typedef struct shader {
  const char *path;
  bool has_id;
  uint32_t id;
  amddwarf_spirv_module *module;
} shader;

typedef struct options {
  shader *shaders;
  int shader_count;
  const char *buffer_path;
  const char *descriptors_path;
  const char *instrumented_path;
  amddwarf_gpuav_format format;
  amddwarf_gpuav_input_layout layout;
  bool force_printf;
  bool json;
  amddwarf_spirv_index_mode mode;
  bool have_instrumentation;
  amddwarf_gpuav_instrumentation instrumentation;
} options;

static const shader *find_shader(const options *o, uint32_t id)
{
  const shader *fallback = NULL;
  for (int i = 0; i < o->shader_count; i++) {
    if (o->shaders[i].has_id && o->shaders[i].id == id)
      return &o->shaders[i];
    if (!o->shaders[i].has_id && !fallback)
      fallback = &o->shaders[i];
  }
  return fallback;
}

static int parse_spirv_arg(options *o, const char *arg)
{
  shader *s = &o->shaders[o->shader_count];
  memset(s, 0, sizeof(*s));
  const char *eq = strrchr(arg, '=');
  s->path = arg;
  if (eq) {
    uint64_t id;
    if (cli_parse_u64(eq + 1, &id) == 0 && id <= UINT32_MAX) {
      size_t n = (size_t)(eq - arg);
      char *copy = malloc(n + 1);
      if (!copy)
        return -1;
      memcpy(copy, arg, n);
      copy[n] = '\0';
      s->path = copy;
      s->has_id = true;
      s->id = (uint32_t)id;
    }
  }
  o->shader_count++;
  return 0;
}

/* A shader id given twice, or two modules for "every other shader id",
   would make the module a record is read against depend on the order. */
static int check_shader_ids(const options *o)
{
  for (int i = 0; i < o->shader_count; i++)
    for (int j = i + 1; j < o->shader_count; j++) {
      const shader *a = &o->shaders[i], *b = &o->shaders[j];
      if (a->has_id && b->has_id && a->id == b->id)
        return cli_usage_error(command, "shader id %u is given twice: %s and %s", a->id,
                               a->path, b->path);
      if (!a->has_id && !b->has_id)
        return cli_usage_error(command,
                               "%s and %s are both given without a shader id; give each "
                               "=SHADER_ID",
                               a->path, b->path);
    }
  return CLI_EXIT_OK;
}

/* Reads what the instrumented module says (--instrumented). */
static int load_instrumentation(options *o)
{
  amddwarf_spirv_module *module = NULL;
  int status = spirv_print_open(command, o->instrumented_path, o->json, &module);
  if (status != CLI_EXIT_OK)
    return status;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_gpuav_instrumentation_inspect(module, &o->instrumentation, &err);
  amddwarf_spirv_module_close(module);
  if (st != AMDDWARF_OK) {
    cli_error_prefix(&err, o->instrumented_path);
    return cli_report_error(command, o->json, st, &err);
  }
  o->have_instrumentation = true;
  return CLI_EXIT_OK;
}

static int print_descriptors(const options *o)
{
  uint8_t *data = NULL;
  size_t size = 0;
  if (cli_read_file(command, o->descriptors_path, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  size_t count = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_gpuav_input_layout layout = o->layout;
  const char *why = layout != AMDDWARF_GPUAV_INPUT_AUTO ? "given with --layout" : "from word 0";
  amddwarf_status st = AMDDWARF_OK;
  if (layout == AMDDWARF_GPUAV_INPUT_AUTO && o->have_instrumentation) {
    st = amddwarf_gpuav_input_layout_select(&o->instrumentation, data, size, &layout, &err);
    why = "for the reads of the instrumented module";
  }
  amddwarf_gpuav_descriptor *rows = NULL;
  if (st == AMDDWARF_OK)
    st = amddwarf_gpuav_input_buffer_decode_layout(data, size, layout, NULL, 0, &count, &layout,
                                                   &err);
  if (st == AMDDWARF_E_NO_SPACE) {
    rows = calloc(count, sizeof(*rows));
    st = rows ? amddwarf_gpuav_input_buffer_decode_layout(data, size, layout, rows, count,
                                                          &count, &layout, &err)
              : AMDDWARF_E_NO_MEMORY;
  }
  if (st != AMDDWARF_OK) {
    free(rows);
    free(data);
    return cli_report_error(command, o->json, st, &err);
  }
  const char *layout_name = amddwarf_gpuav_input_layout_name(layout);
  json_t *root = NULL, *array = NULL;
  if (o->json) {
    root = json_object();
    array = json_array();
    json_object_set_new(root, "layout", json_string(layout_name));
  } else {
    printf("input buffer: layout %s (%s), %zu words\n", layout_name, why, size / 4);
  }
  for (size_t i = 0; i < count; i++) {
    const amddwarf_gpuav_descriptor *d = &rows[i];
    if (o->json) {
      json_t *row = json_object();
      json_object_set_new(row, "set", json_integer(d->set));
      json_object_set_new(row, "binding", json_integer(d->binding));
      json_object_set_new(row, "array_size", json_integer(d->array_size));
      json_t *written = json_array();
      for (uint32_t k = 0; d->written_index && k < d->array_size; k++)
        json_array_append_new(written, json_integer(amddwarf_gpuav_input_word(
                                           data, size, d->written_index + k)));
      json_object_set_new(row, "written", written);
      json_array_append_new(array, row);
      continue;
    }
    printf("set %u binding %u: ", d->set, d->binding);
    if (d->array_size == 0) {
      printf("no descriptor\n");
      continue;
    }
    printf("%u descriptor%s, ", d->array_size, d->array_size == 1 ? "" : "s");
    if (!d->written_index) {
      printf("no written flags\n");
      continue;
    }
    printf("written (from word %u):", d->written_index);
    for (uint32_t k = 0; k < d->array_size; k++)
      printf(" %u", amddwarf_gpuav_input_word(data, size, d->written_index + k));
    printf("\n");
  }
  if (o->json) {
    json_object_set_new(root, "bindings", array);
    cli_print_json(root);
  }
  free(rows);
  free(data);
  return CLI_EXIT_OK;
}

static json_t *record_json(const amddwarf_gpuav_record *r)
{
  json_t *o = json_object();
  json_object_set_new(o, "data_index", json_integer(r->data_index));
  json_object_set_new(o, "size", json_integer(r->size));
  json_object_set_new(o, "shader_id", json_integer(r->shader_id));
  json_object_set_new(o, "instruction_index", json_integer(r->instruction_index));
  json_object_set_new(o, "stage", cli_json_addr(r->stage));
  const char *stage = amddwarf_gpuav_stage_name(r->stage);
  json_object_set_new(o, "stage_name", stage ? json_string(stage) : json_null());
  json_t *words = json_array();
  for (uint32_t i = 0; i < r->stage_word_count; i++)
    json_array_append_new(words, cli_json_addr(r->stage_words[i]));
  json_object_set_new(o, "stage_words", words);
  json_t *payload = json_array();
  for (uint32_t i = 0; i < r->payload_words; i++)
    json_array_append_new(payload, cli_json_addr(amddwarf_gpuav_record_word(r, i)));
  json_object_set_new(o, "payload", payload);
  return o;
}

static amddwarf_gpuav_format buffer_format(const options *o)
{
  if (o->format == AMDDWARF_GPUAV_FORMAT_AUTO && o->have_instrumentation)
    return o->instrumentation.format;
  return o->format;
}

static int open_reader(const options *o, cli_file *file, amddwarf_gpuav_reader **reader)
{
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_gpuav_reader_open_stream(cli_file_read_at, file, file->size,
                                                         buffer_format(o), 0, NULL, reader, &err);
  if (st != AMDDWARF_OK) {
    cli_error_prefix(&err, o->buffer_path);
    return cli_report_error(command, o->json, st, &err);
  }
  return CLI_EXIT_OK;
}

static unsigned check_flags(const options *o)
{
  return o->force_printf ? AMDDWARF_GPUAV_CHECK_PRINTF : 0;
}

/* Checks every record against its module before anything is printed: a
   module that did not produce the buffer gives lines that mean nothing. */
static int check_modules(const options *o, cli_file *file)
{
  if (o->shader_count == 0)
    return CLI_EXIT_OK;
  amddwarf_gpuav_reader *reader = NULL;
  int status = open_reader(o, file, &reader);
  if (status != CLI_EXIT_OK)
    return status;
  const amddwarf_gpuav_buffer *buf = amddwarf_gpuav_reader_buffer(reader);
  amddwarf_gpuav_record rec;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  for (uint32_t n = 0; (st = amddwarf_gpuav_reader_next(reader, &rec, &err)) == AMDDWARF_OK;
       n++) {
    const shader *sh = find_shader(o, rec.shader_id);
    if (rec.problem != AMDDWARF_OK || !sh)
      continue;
    amddwarf_error cerr = AMDDWARF_ERROR_INIT;
    if (amddwarf_gpuav_record_check(buf, &rec, sh->module, o->mode, sh->path, check_flags(o),
                                    &cerr) == AMDDWARF_E_GPUAV_WRONG_MODULE) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "record %u", n);
      cli_error_prefix(&cerr, prefix);
      status = cli_report_error(command, o->json, AMDDWARF_E_GPUAV_WRONG_MODULE, &cerr);
      break;
    }
  }
  if (st != AMDDWARF_OK && st != AMDDWARF_END)
    status = cli_report_error(command, o->json, st, &err);
  amddwarf_gpuav_reader_close(reader);
  return status;
}

static void report_problem(const options *o, json_t *problems, amddwarf_status st,
                           const char *label, const amddwarf_error *err)
{
  if (o->json) {
    json_array_append_new(problems, cli_json_error(st, err));
  } else {
    printf("%s: %s\n", label, err->message);
  }
}

/* Prints one good record; *UNRENDERED is set when its printf format could not
   render it. Returns false when out of memory. */
static bool print_record(const options *o, const amddwarf_gpuav_buffer *buf,
                         const amddwarf_gpuav_record *rec, uint32_t n, json_t *records,
                         bool *unrendered)
{
  const shader *sh = find_shader(o, rec->shader_id);
  amddwarf_spirv_location loc;
  const amddwarf_spirv_location *locp = NULL;
  amddwarf_error lerr = AMDDWARF_ERROR_INIT;
  if (sh && amddwarf_spirv_module_resolve(sh->module, rec->instruction_index, o->mode, &loc,
                                          &lerr) == AMDDWARF_OK)
    locp = &loc;
  bool is_printf = o->force_printf ||
                   (locp && locp->ext_set && strcmp(locp->ext_set, "NonSemantic.DebugPrintf") == 0);
  char *text = NULL;
  size_t needed = 0;
  const char *fmt = NULL;
  amddwarf_status pst = AMDDWARF_OK;
  amddwarf_error perr = AMDDWARF_ERROR_INIT;
  if (is_printf) {
    uint32_t string_id = amddwarf_gpuav_record_word(rec, 0);
    fmt = sh ? amddwarf_spirv_module_string(sh->module, string_id) : NULL;
    if (fmt)
      pst = amddwarf_gpuav_printf_render(fmt, rec, NULL, 0, &needed, &perr);
    text = malloc(needed + 1);
    if (text && fmt && pst == AMDDWARF_E_NO_SPACE)
      pst = amddwarf_gpuav_printf_render(fmt, rec, text, needed + 1, &needed, &perr);
    else if (text)
      text[0] = '\0';
    if (pst != AMDDWARF_OK)
      *unrendered = true;
  } else {
    needed = amddwarf_gpuav_describe(buf, rec, sh ? sh->path : NULL, sh ? locp : NULL, NULL, 0);
    text = malloc(needed + 1);
    if (text)
      amddwarf_gpuav_describe(buf, rec, sh ? sh->path : NULL, sh ? locp : NULL, text,
                              needed + 1);
  }
  if (!text)
    return false;
  if (o->json) {
    json_t *r = record_json(rec);
    json_object_set_new(r, "kind", json_string(is_printf ? "printf" : "validation"));
    json_object_set_new(r, "module", sh ? json_string(sh->path) : json_null());
    if (is_printf) {
      json_object_set_new(r, "format_string_id",
                          cli_json_addr(amddwarf_gpuav_record_word(rec, 0)));
      json_object_set_new(r, "format_string", fmt ? json_string(fmt) : json_null());
      json_object_set_new(r, "text", pst == AMDDWARF_OK ? json_string(text) : json_null());
      if (pst != AMDDWARF_OK)
        json_object_set_new(r, "error", cli_json_error(pst, &perr));
    } else {
      uint32_t code = amddwarf_gpuav_record_word(rec, 0);
      const amddwarf_gpuav_error_info *info = amddwarf_gpuav_error_lookup(buf->format, code);
      json_object_set_new(r, "error_code", cli_json_addr(code));
      json_object_set_new(r, "error", info ? json_string(info->name) : json_null());
      json_object_set_new(r, "message_id", info ? json_string(info->message_id) : json_null());
      json_object_set_new(r, "message", json_string(text));
    }
    if (locp)
      json_object_set_new(r, "location", spirv_print_location_json(locp));
    else if (sh)
      json_object_set_new(r, "location_error", json_string(lerr.message));
    json_array_append_new(records, r);
  } else if (is_printf) {
    if (pst != AMDDWARF_OK) {
      printf("[record %u, word %u] printf: error: %s (%s)\n", n,
             buf->data_offset + rec->data_index, perr.message, amddwarf_status_name(pst));
    } else {
      printf("[record %u, word %u] printf: %s", n, buf->data_offset + rec->data_index,
             fmt ? text : "(format string not found)");
      if (fmt && (needed == 0 || text[needed - 1] != '\n'))
        printf("\n");
    }
    if (locp && locp->has_line)
      printf("  from %s at line %u\n", locp->file ? locp->file : "<no file>", locp->line);
  } else {
    const amddwarf_gpuav_error_info *info =
        amddwarf_gpuav_error_lookup(buf->format, amddwarf_gpuav_record_word(rec, 0));
    printf("[record %u, word %u] %s\n%s\n", n, buf->data_offset + rec->data_index,
           info ? info->message_id : "UNASSIGNED-unknown error code", text);
    if (!sh)
      printf("  (no module given for shader id %u)\n", rec->shader_id);
    else if (!locp)
      printf("  (%s)\n", lerr.message);
  }
  free(text);
  return true;
}

static int symbolize_buffer(const options *o)
{
  cli_file file = {.fd = -1, .size = 0};
  if (cli_file_open(command, o->json, o->buffer_path, &file) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_gpuav_reader *reader = NULL;
  int status = check_modules(o, &file);
  if (status == CLI_EXIT_OK)
    status = open_reader(o, &file, &reader);
  if (status != CLI_EXIT_OK) {
    cli_file_close(&file);
    return status;
  }
  const amddwarf_gpuav_buffer *buf = amddwarf_gpuav_reader_buffer(reader);
  json_t *root = NULL, *records = NULL, *problems = NULL;
  if (o->json) {
    root = json_object();
    json_object_set_new(root, "format", json_string(amddwarf_gpuav_format_name(buf->format)));
    json_object_set_new(root, "flags", cli_json_addr(buf->flags));
    json_object_set_new(root, "written_length", json_integer(buf->written_length));
    json_object_set_new(root, "data_words", json_integer(buf->data_words));
    json_object_set_new(root, "overflow", json_boolean(buf->overflow));
    records = json_array();
    problems = json_array();
  } else {
    printf("buffer: format %s, flags 0x%x, written length %u words, room for %u words\n",
           amddwarf_gpuav_format_name(buf->format), buf->flags, buf->written_length,
           buf->data_words);
  }
  amddwarf_error err;
  if (buf->overflow) {
    status = CLI_EXIT_BAD_INPUT;
    cli_error_printf(&err, AMDDWARF_E_GPUAV_OVERFLOW,
                     "written length %u exceeds the buffer's %u data words: the shaders ran "
                     "out of room; reading the records that fit",
                     buf->written_length, buf->data_words);
    report_problem(o, problems, AMDDWARF_E_GPUAV_OVERFLOW, "overflow", &err);
  }
  uint32_t n = 0;
  amddwarf_status st;
  for (;; n++) {
    amddwarf_gpuav_record rec;
    amddwarf_error_clear(&err);
    st = amddwarf_gpuav_reader_next(reader, &rec, &err);
    if (st != AMDDWARF_OK)
      break;
    const shader *sh = find_shader(o, rec.shader_id);
    if (rec.problem == AMDDWARF_OK && sh)
      rec.problem = amddwarf_gpuav_record_check(buf, &rec, sh->module, o->mode, sh->path,
                                                check_flags(o), &err);
    if (rec.problem != AMDDWARF_OK) {
      status = CLI_EXIT_BAD_INPUT;
      if (o->json) {
        json_t *p = record_json(&rec);
        json_object_set_new(p, "status", json_string(amddwarf_status_name(rec.problem)));
        json_object_set_new(p, "message", json_string(err.message));
        json_array_append_new(problems, p);
      } else {
        printf("[record %u, word %u] skipped: %s\n", n, buf->data_offset + rec.data_index,
               err.message);
      }
      continue;
    }
    bool unrendered = false;
    if (!print_record(o, buf, &rec, n, records, &unrendered)) {
      fprintf(stderr, "amddwarf %s: out of memory\n", command);
      status = CLI_EXIT_BAD_INPUT;
      break;
    }
    if (unrendered)
      status = CLI_EXIT_BAD_INPUT;
  }
  if (st == AMDDWARF_END) {
    amddwarf_error_clear(&err);
    st = amddwarf_gpuav_reader_finish(reader, &err);
    if (st != AMDDWARF_OK) {
      status = CLI_EXIT_BAD_INPUT;
      report_problem(o, problems, st, "inconsistent", &err);
    }
  } else if (st != AMDDWARF_OK) {
    status = CLI_EXIT_BAD_INPUT;
    report_problem(o, problems, st, "read error", &err);
  }
  if (o->json) {
    json_object_set_new(root, "records", records);
    json_object_set_new(root, "problems", problems);
    cli_print_json(root);
  } else {
    printf("%u record%s\n", n, n == 1 ? "" : "s");
  }
  amddwarf_gpuav_reader_close(reader);
  cli_file_close(&file);
  return status;
}

int cli_symbolize_main(int argc, char **argv)
{
  options o;
  memset(&o, 0, sizeof(o));
  int status = CLI_EXIT_OK;
  for (int i = 1; i < argc; i++)
    if (cli_help_arg(argv[i], usage))
      return CLI_EXIT_OK;
  o.shaders = calloc((size_t)argc, sizeof(shader));
  if (!o.shaders)
    return cli_usage_error(command, "out of memory");
  const char *spirv, *format, *layout;
  bool position;
  const cli_option arguments[] = {
      CLI_VALUE("--spirv", &spirv),          CLI_VALUE("--buffer", &o.buffer_path),
      CLI_VALUE("--descriptors", &o.descriptors_path),
      CLI_VALUE("--instrumented", &o.instrumented_path),
      CLI_VALUE("--format", &format),        CLI_VALUE("--layout", &layout),
      CLI_FLAG("--printf", &o.force_printf), CLI_FLAG("--position", &position),
      CLI_FLAG("--json", &o.json)};
  for (int i = 1; i < argc && status == CLI_EXIT_OK; i++) {
    spirv = format = layout = NULL;
    position = false;
    int r = cli_table_arg(command, argc, argv, &i, CLI_OPTIONS(arguments));
    if (r == 0)
      status = cli_usage_error(command, "unexpected argument '%s'", argv[i]);
    else if (r < 0 || (spirv != NULL && parse_spirv_arg(&o, spirv) != 0))
      status = CLI_EXIT_USAGE;
    if (position)
      o.mode = AMDDWARF_SPIRV_INDEX_POSITION;
    if (format != NULL && amddwarf_gpuav_format_from_name(format, &o.format) != AMDDWARF_OK)
      status = cli_usage_error(command, "unknown format '%s' (auto, seed, v2, v2-noflags)",
                               format);
    if (layout != NULL && amddwarf_gpuav_input_layout_from_name(layout, &o.layout) != AMDDWARF_OK)
      status = cli_usage_error(command, "unknown layout '%s' (auto, sizes, written, lengths)",
                               layout);
  }
  if (status != CLI_EXIT_OK)
    goto done;
  if (!o.buffer_path && !o.descriptors_path) {
    status = cli_usage_error(command, "needs --buffer or --descriptors");
    goto done;
  }
  if ((status = check_shader_ids(&o)) != CLI_EXIT_OK)
    goto done;
  if (o.instrumented_path && (status = load_instrumentation(&o)) != CLI_EXIT_OK)
    goto done;
  if (o.descriptors_path) {
    status = print_descriptors(&o);
    if (status != CLI_EXIT_OK || !o.buffer_path)
      goto done;
  }
  for (int i = 0; i < o.shader_count; i++) {
    status = spirv_print_open(command, o.shaders[i].path, o.json, &o.shaders[i].module);
    if (status != 0)
      goto done;
  }
  status = symbolize_buffer(&o);
done:
  for (int i = 0; i < o.shader_count; i++) {
    amddwarf_spirv_module_close(o.shaders[i].module);
    if (o.shaders[i].has_id)
      free((char *)o.shaders[i].path);
  }
  free(o.shaders);
  return status;
}
