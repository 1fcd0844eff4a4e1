/* amddwarf printf: decode a debug-printf buffer with the format strings of
 * one or more pipelines. */
#include <stdlib.h>
#include <string.h>

#include "cli_stream.h"
#include "json_out.h"

static const char command[] = "printf";

/* A message longer than this (hostile widths repeated) is reported, not printed. */
enum { MAX_MESSAGE = 16 << 20 };

static void print_help(void)
{
  printf("Usage: amddwarf printf [--elf PIPELINE.elf]... [--strings FILE]... --buffer BUF.bin\n"
         "                       [--index] [--json | --json-lines]\n"
         "\n"
         "Prints every message a shader's DebugPrintf wrote into a printf buffer.\n"
         "\n"
         "The format strings come from the PAL metadata of the pipelines: the\n"
         "amdpal.format_strings map in the NT_AMDGPU_METADATA note of each --elf\n"
         "file, or a standalone MessagePack or JSON document given with --strings.\n"
         "Several pipelines are merged; an id defined differently by two of them is\n"
         "reported as a collision naming both (the first definition is used).\n"
         "\n"
         "The buffer starts with a 16-byte header whose bufferOffset counts the dwords\n"
         "shaders allocated; each entry is a 64-bit header (size in dwords, 48-bit\n"
         "format-string id) and the packed arguments. The file is read in chunks, so\n"
         "buffers of several GiB need little memory.\n"
         "\n"
         "Options:\n"
         "  --elf FILE      a pipeline ELF carrying amdpal.format_strings (repeatable)\n"
         "  --strings FILE  a MessagePack or JSON metadata document (repeatable)\n"
         "  --buffer FILE   the printf buffer, header included\n"
         "  --index         prefix each message with its entry index: \"#3: ...\"\n"
         "  --json          one JSON document: the collisions, every entry (its message\n"
         "                  or its error), then the summary; written as it is decoded\n"
         "                  (specs/printf.md, specs/json.md)\n"
         "  --json-lines    the same as one JSON object per line, for streams:\n"
         "                  {\"collision\": ...}, {\"entry\": ...}, {\"summary\": ...}\n"
         "\n"
         "Output: one line per message (a final newline of the message is dropped;\n"
         "other control characters and bytes that are not UTF-8 are written as\n"
         "\\n, \\t, \\xNN), then\n"
         "  summary: N messages, B bytes, L lost, E errors\n"
         "Bad entries (size 0 or 1, past the written data, unknown id, short payload,\n"
         "bad format string) are reported on stderr at their byte offset and skipped\n"
         "(in JSON, as the entry's \"error\").\n"
         "\n"
         "Exit status: 0 all entries decoded, 1 bad input, bad entries or lost data,\n"
         "2 bad usage.\n"
         "\n"
         "Example:\n"
         "  amddwarf printf --elf pipeline.elf --buffer printf.bin --index\n");
}

/* Length of the valid UTF-8 sequence at TEXT (REMAINING bytes), or 0. */
static size_t utf8_length(const unsigned char *text, size_t remaining)
{
  unsigned char c = text[0];
  size_t length = c >= 0xc2 && c <= 0xdf   ? 2
                  : c >= 0xe0 && c <= 0xef ? 3
                  : c >= 0xf0 && c <= 0xf4 ? 4
                                           : 0;
  if (length == 0 || length > remaining)
    return 0;
  for (size_t i = 1; i < length; i++)
    if ((text[i] & 0xc0) != 0x80)
      return 0;
  /* Overlong three- and four-byte forms, surrogates, beyond U+10FFFF. */
  if ((c == 0xe0 && text[1] < 0xa0) || (c == 0xed && text[1] >= 0xa0) ||
      (c == 0xf0 && text[1] < 0x90) || (c == 0xf4 && text[1] >= 0x90))
    return 0;
  return length;
}

/* Writes TEXT with control characters and bytes that are not UTF-8 escaped. */
static void print_escaped(FILE *out, const char *text, size_t length)
{
  const unsigned char *bytes = (const unsigned char *)text;
  for (size_t i = 0; i < length; i++) {
    unsigned char c = bytes[i];
    size_t sequence = c >= 0x80 ? utf8_length(bytes + i, length - i) : 0;
    if (sequence > 0) {
      fwrite(bytes + i, 1, sequence, out);
      i += sequence - 1;
    } else if (c == '\n') {
      fputs("\\n", out);
    } else if (c == '\t') {
      fputs("\\t", out);
    } else if (c < 0x20 || c >= 0x7f) {
      fprintf(out, "\\x%02x", c);
    } else {
      putc(c, out);
    }
  }
}

/* Writes TEXT on one line: a final newline dropped, control characters escaped. */
static void print_message_line(const char *text, size_t length)
{
  if (length > 0 && text[length - 1] == '\n')
    length--;
  print_escaped(stdout, text, length);
  putchar('\n');
}

/* TEXT as a JSON string; bytes that are not valid UTF-8 become "\\xNN" so
   that no message is lost. */
static json_t *json_text(const char *text, size_t length)
{
  json_t *json = json_stringn(text, length);
  if (json)
    return json;
  const unsigned char *bytes = (const unsigned char *)text;
  char *escaped = malloc(length * 4 + 1);
  size_t n = 0;
  if (!escaped)
    return json_null();
  for (size_t i = 0; i < length; i++) {
    size_t sequence = bytes[i] >= 0x80 ? utf8_length(bytes + i, length - i) : 0;
    if (bytes[i] < 0x80) {
      escaped[n++] = (char)bytes[i];
    } else if (sequence > 0) {
      memcpy(escaped + n, bytes + i, sequence);
      n += sequence;
      i += sequence - 1;
    } else {
      n += (size_t)snprintf(escaped + n, 5, "\\x%02x", bytes[i]);
    }
  }
  json = json_stringn(escaped, n);
  free(escaped);
  return json ? json : json_null();
}

/* ERR says the buffer at PATH is no PAL printf buffer; names the file and,
   when it reads as the debug output buffer of SPIR-V debug printf (a
   GPU-assisted-validation buffer), says that `amddwarf symbolize` reads it. */
static void suggest_symbolize(cli_file *source, const char *path, amddwarf_error *err)
{
  amddwarf_gpuav_reader *reader = NULL;
  if (amddwarf_gpuav_reader_open_stream(cli_file_read_at, source, source->size,
                                        AMDDWARF_GPUAV_FORMAT_AUTO, 0, NULL, &reader,
                                        NULL) != AMDDWARF_OK) {
    cli_error_prefix(err, path);
    return;
  }
  const amddwarf_gpuav_buffer *b = amddwarf_gpuav_reader_buffer(reader);
  char message[sizeof err->message + 1024];
  snprintf(message, sizeof message,
           "%s: not a PAL printf buffer but a GPU-AV debug output buffer (format %s, %u words "
           "written), as SPIR-V debug printf writes: `amddwarf symbolize --spirv MODULE.spv "
           "--buffer %s` reads it",
           path, amddwarf_gpuav_format_name(b->format), b->written_length, path);
  memcpy(err->message, message, sizeof err->message - 1);
  err->message[sizeof err->message - 1] = '\0';
  amddwarf_gpuav_reader_close(reader);
}

static char *hex_id(uint64_t id, char buffer[24])
{
  snprintf(buffer, 24, "0x%012llx", (unsigned long long)id);
  return buffer;
}

static int load_metadata(amddwarf_printf_table *table, const char *path, bool elf, bool json)
{
  uint8_t *data = NULL;
  size_t size = 0;
  amddwarf_error err;
  if (cli_read_input(command, json, path, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_error_clear(&err);
  amddwarf_status status = elf ? amddwarf_printf_table_add_elf(table, data, size, path, &err)
                               : amddwarf_printf_table_add(table, data, size, path, &err);
  free(data);
  if (status == AMDDWARF_NOT_FOUND) {
    fprintf(stderr, "amddwarf printf: warning: %s has no amdpal.format_strings\n", path);
    return CLI_EXIT_OK;
  }
  if (status != AMDDWARF_OK) {
    char message[sizeof err.message + 512];
    snprintf(message, sizeof message, "%s: %s", path, err.message);
    memcpy(err.message, message, sizeof err.message - 1);
    err.message[sizeof err.message - 1] = '\0';
    return cli_report_error(command, json, status, &err);
  }
  return CLI_EXIT_OK;
}

/* The collisions: warnings on stderr, or the "collisions" of the JSON
   document JSON. */
static void report_collisions(const amddwarf_printf_table *table, cli_json_stream *json)
{
  char id[24];
  if (json)
    cli_json_stream_array_begin(json, "collisions", "collision");
  for (size_t i = 0; i < amddwarf_printf_table_collision_count(table); i++) {
    const amddwarf_printf_collision *c = amddwarf_printf_table_collision(table, i);
    if (json) {
      cli_json_stream_element(
          json, json_pack("{s:o,s:{s:o,s:o,s:I},s:{s:o,s:o,s:I}}", "id", cli_json_addr(c->id),
                          "kept", "origin", json_text(c->kept->origin, strlen(c->kept->origin)),
                          "format", json_text(c->kept->format, c->kept->format_length),
                          "argument_count", (json_int_t)c->kept->argument_count, "other",
                          "origin", json_text(c->other_origin, strlen(c->other_origin)),
                          "format", json_text(c->other_format, strlen(c->other_format)),
                          "argument_count", (json_int_t)c->other_argument_count));
    } else {
      fprintf(stderr, "amddwarf printf: warning: format-string id %s is \"", hex_id(c->id, id));
      print_escaped(stderr, c->kept->format, c->kept->format_length);
      fprintf(stderr, "\" (%u arguments) in %s but \"", c->kept->argument_count,
              c->kept->origin);
      print_escaped(stderr, c->other_format, strlen(c->other_format));
      fprintf(stderr, "\" (%u arguments) in %s; using the first\n", c->other_argument_count,
              c->other_origin);
    }
  }
  if (json)
    cli_json_stream_array_end(json);
}

typedef struct counts {
  uint64_t messages, errors;
} counts;

/* An entry that cannot be printed: an error on stderr, or an element of the
   JSON document's "entries" with the entry's INDEX and OFFSET. */
static void report_entry_error(uint64_t index, uint64_t offset, amddwarf_status status,
                               amddwarf_error *err, cli_json_stream *json)
{
  if (!json) {
    cli_report_error(command, false, status, err);
    return;
  }
  err->offset = AMDDWARF_NO_OFFSET; /* the entry's offset says where */
  json_t *o = json_object();
  json_object_set_new(o, "index", json_integer((json_int_t)index));
  json_object_set_new(o, "offset", cli_json_addr(offset));
  json_object_set_new(o, "error", cli_json_error(status, err));
  cli_json_stream_element(json, o);
}

static int decode(amddwarf_printf_reader *reader, const amddwarf_printf_table *table,
                  cli_json_stream *json, bool index, counts *n)
{
  size_t capacity = 4096;
  if (json)
    cli_json_stream_array_begin(json, "entries", "entry");
  char *text = malloc(capacity); /* on failure the array stays open */
  if (!text)
    return -1;
  for (;;) {
    amddwarf_printf_entry entry;
    amddwarf_error err;
    amddwarf_status status = amddwarf_printf_reader_next(reader, &entry, &err);
    if (status == AMDDWARF_END)
      break;
    if (status == AMDDWARF_E_IO) {
      /* The buffer cannot be read on: the last "entry" says where. */
      report_entry_error(n->messages + n->errors, err.offset, status, &err, json);
      n->errors++;
      break;
    }
    size_t length = 0;
    if (status == AMDDWARF_OK) {
      status = amddwarf_printf_render_entry(table, &entry, text, capacity, &length, &err);
      if (status == AMDDWARF_E_NO_SPACE && length >= MAX_MESSAGE) {
        snprintf(err.message, sizeof err.message,
                 "entry %llu at offset %llu: the message of %zu bytes exceeds %d bytes",
                 (unsigned long long)entry.index, (unsigned long long)entry.offset, length,
                 MAX_MESSAGE);
        status = AMDDWARF_E_LIMIT;
      } else if (status == AMDDWARF_E_NO_SPACE) {
        char *grown = realloc(text, length + 1);
        if (!grown) {
          free(text);
          return -1;
        }
        text = grown;
        capacity = length + 1;
        status = amddwarf_printf_render_entry(table, &entry, text, capacity, &length, &err);
      }
    }
    if (status != AMDDWARF_OK) {
      report_entry_error(entry.index, entry.offset, status, &err, json);
      n->errors++;
      continue;
    }
    n->messages++;
    if (json) {
      cli_json_stream_element(
          json, json_pack("{s:I,s:o,s:o,s:o}", "index", (json_int_t)entry.index, "offset",
                          cli_json_addr(entry.offset), "id", cli_json_addr(entry.id),
                          "message", json_text(text, length)));
    } else {
      if (index)
        printf("#%llu: ", (unsigned long long)entry.index);
      print_message_line(text, length);
    }
  }
  free(text);
  if (json)
    cli_json_stream_array_end(json);
  return 0;
}

static void report_summary(const amddwarf_printf_buffer_info *info,
                           const amddwarf_printf_table *table, const counts *n,
                           cli_json_stream *json)
{
  if (json) {
    cli_json_stream_member(json, "summary", json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b}", "messages",
        (json_int_t)n->messages, "bytes", (json_int_t)info->data_bytes, "lost",
        (json_int_t)(info->lost_bytes > INT64_MAX ? INT64_MAX : info->lost_bytes), "errors",
        (json_int_t)n->errors, "collisions",
        (json_int_t)amddwarf_printf_table_collision_count(table), "buffer_offset",
        (json_int_t)(info->buffer_offset > INT64_MAX ? INT64_MAX : info->buffer_offset),
        "buffer_size", (json_int_t)info->total_size, "past_clamp", info->past_clamp,
        "past_buffer", info->past_buffer));
    return;
  }
  if (info->lost_bytes > 0)
    fprintf(stderr,
            "amddwarf printf: warning: buffer overflow: bufferOffset %llu dwords asks for %llu "
            "bytes but %llu can be decoded (%s); %llu bytes lost\n",
            (unsigned long long)info->buffer_offset, (unsigned long long)info->requested_bytes,
            (unsigned long long)info->data_bytes,
            info->past_clamp && info->past_buffer ? "past the 2 GiB clamp and the buffer"
            : info->past_clamp                    ? "past the 2 GiB clamp"
                                                  : "past the end of the buffer",
            (unsigned long long)info->lost_bytes);
  printf("summary: %llu messages, %llu bytes, %llu lost, %llu errors\n",
         (unsigned long long)n->messages, (unsigned long long)info->data_bytes,
         (unsigned long long)info->lost_bytes, (unsigned long long)n->errors);
}

int cli_printf_main(int argc, char **argv)
{
  const char *buffer_path = NULL, *value;
  bool json = false, lines = false, index = false;
  int result = CLI_EXIT_OK, found;
  amddwarf_printf_table *table = NULL;
  amddwarf_printf_reader *reader = NULL;
  cli_file source = {.fd = -1, .size = 0};
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  for (int i = 1; i < argc; i++) {
    if (cli_is_flag(argv[i], "--help") || cli_is_flag(argv[i], "-h")) {
      print_help();
      return CLI_EXIT_OK;
    }
    if (cli_is_flag(argv[i], "--json") || cli_is_flag(argv[i], "--json-lines")) {
      json = true;
      lines = lines || cli_is_flag(argv[i], "--json-lines");
    }
  }
  if (amddwarf_printf_table_new(NULL, &table, &err) != AMDDWARF_OK)
    return cli_report_error(command, json, err.status, &err);
  for (int i = 1; i < argc && result == CLI_EXIT_OK; i++) {
    if (cli_is_flag(argv[i], "--json") || cli_is_flag(argv[i], "--json-lines") ||
        cli_is_flag(argv[i], "--index")) {
      index = index || cli_is_flag(argv[i], "--index");
    } else if ((found = cli_option_value(command, argc, argv, &i, "--elf", &value)) != 0) {
      result = found < 0 ? CLI_EXIT_USAGE : load_metadata(table, value, true, json);
    } else if ((found = cli_option_value(command, argc, argv, &i, "--strings", &value)) != 0) {
      result = found < 0 ? CLI_EXIT_USAGE : load_metadata(table, value, false, json);
    } else if ((found = cli_option_value(command, argc, argv, &i, "--buffer", &value)) != 0) {
      if (found < 0)
        result = CLI_EXIT_USAGE;
      buffer_path = value;
    } else {
      result = cli_usage_error(command, "unexpected argument '%s'", argv[i]);
    }
  }
  if (result == CLI_EXIT_OK && !buffer_path)
    result = cli_usage_error(command, "--buffer is required");
  if (result != CLI_EXIT_OK)
    goto done;
  if (cli_file_open(command, json, buffer_path, &source) != 0) {
    result = CLI_EXIT_BAD_INPUT;
    goto done;
  }
  amddwarf_status status = amddwarf_printf_reader_open_stream(cli_file_read_at, &source,
                                                              source.size, 0, NULL, &reader, &err);
  if (status == AMDDWARF_OK)
    status = amddwarf_printf_buffer_check(amddwarf_printf_reader_info(reader), &err);
  if (status == AMDDWARF_E_PRINTF_NOT_PAL_BUFFER)
    suggest_symbolize(&source, buffer_path, &err);
  if (status != AMDDWARF_OK) {
    result = cli_report_error(command, json, status, &err);
    goto done;
  }
  /* The document starts once the buffer reads: from here on it is streamed. */
  cli_json_stream stream;
  if (json)
    cli_json_stream_begin(&stream, lines);
  report_collisions(table, json ? &stream : NULL);
  counts n = {0, 0};
  if (decode(reader, table, json ? &stream : NULL, index, &n) != 0) {
    if (json) {
      cli_json_stream_array_end(&stream);
      cli_json_stream_end(&stream);
    }
    result = cli_report_error(command, false, AMDDWARF_E_NO_MEMORY, NULL);
    goto done;
  }
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(reader);
  report_summary(info, table, &n, json ? &stream : NULL);
  if (json)
    cli_json_stream_end(&stream);
  if (n.errors > 0 || info->lost_bytes > 0)
    result = CLI_EXIT_BAD_INPUT;
done:
  cli_file_close(&source);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_table_free(table);
  return result;
}
