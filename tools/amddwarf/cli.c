/* Shared helpers of the amddwarf subcommands; see cli.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "json_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_is_flag(const char *arg, const char *flag)
{
  return strcmp(arg, flag) == 0;
}

int cli_option_value(const char *command, int argc, char **argv, int *i, const char *option,
                     const char **value)
{
  const char *arg = argv[*i];
  size_t length = strlen(option);
  if (strncmp(arg, option, length) != 0)
    return 0;
  if (arg[length] == '=') {
    *value = arg + length + 1;
    return 1;
  }
  if (arg[length] != '\0')
    return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(command, "option %s needs a value", option);
    return -1;
  }
  *i += 1;
  *value = argv[*i];
  return 1;
}

int cli_table_arg(const char *command, int argc, char **argv, int *i, const cli_option *table,
                  size_t count)
{
  for (size_t k = 0; k < count; k++) {
    if (table[k].flag != NULL && cli_is_flag(argv[*i], table[k].name)) {
      *table[k].flag = true;
      return 1;
    }
    int rc = table[k].value != NULL
                 ? cli_option_value(command, argc, argv, i, table[k].name, table[k].value)
                 : 0;
    if (rc != 0)
      return rc;
  }
  return 0;
}

int cli_scan_single(const char *command, int argc, char **argv, void (*help)(void),
                    const cli_option *table, size_t count, const char *noun,
                    const char **operand)
{
  for (int i = 1; i < argc; i++) {
    if (cli_is_flag(argv[i], "--help") || cli_is_flag(argv[i], "-h")) {
      help();
      return CLI_EXIT_OK;
    }
    int found = cli_table_arg(command, argc, argv, &i, table, count);
    if (found < 0 || (found == 0 && cli_single_operand(command, argv[i], noun, operand) != 0))
      return CLI_EXIT_USAGE;
  }
  return -1;
}

bool cli_help_arg(const char *arg, const char *help)
{
  if (!cli_is_flag(arg, "--help") && !cli_is_flag(arg, "-h"))
    return false;
  fputs(help, stdout);
  return true;
}

int cli_single_operand(const char *command, const char *arg, const char *noun,
                       const char **operand)
{
  if (arg[0] == '-' && arg[1] != '\0')
    return cli_usage_error(command, "unknown option '%s'", arg);
  if (*operand)
    return cli_usage_error(command, "only one %s is read", noun);
  *operand = arg;
  return 0;
}

int cli_usage_error(const char *command, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  fprintf(stderr, "amddwarf %s: ", command);
  vfprintf(stderr, format, args);
  fprintf(stderr, "\nTry 'amddwarf %s --help'.\n", command);
  va_end(args);
  return CLI_EXIT_USAGE;
}

json_t *cli_json_error(amddwarf_status status, const amddwarf_error *err)
{
  const char *message =
      err && err->message[0] ? err->message : amddwarf_status_message(status);
  uint64_t offset = err ? err->offset : AMDDWARF_NO_OFFSET;
  json_t *detail = json_object();
  json_object_set_new(detail, "status", json_string(amddwarf_status_name(status)));
  json_object_set_new(detail, "message", json_string(message));
  if (offset != AMDDWARF_NO_OFFSET)
    json_object_set_new(detail, "offset", cli_json_addr(offset));
  if (err && err->opcode != AMDDWARF_NO_OPCODE)
    json_object_set_new(detail, "opcode", cli_json_addr((uint64_t)err->opcode));
  return detail;
}

int cli_report_error(const char *command, bool json, amddwarf_status status,
                     const amddwarf_error *err)
{
  const char *message =
      err && err->message[0] ? err->message : amddwarf_status_message(status);
  if (json) {
    json_t *root = json_object();
    json_object_set_new(root, "error", cli_json_error(status, err));
    cli_print_json(root);
  } else {
    fprintf(stderr, "amddwarf %s: error: %s (%s)\n", command, message,
            amddwarf_status_name(status));
  }
  return CLI_EXIT_BAD_INPUT;
}

void cli_error_vprintf(amddwarf_error *err, amddwarf_status status, const char *format,
                       va_list args)
{
  amddwarf_error_clear(err);
  err->status = status;
  vsnprintf(err->message, sizeof err->message, format, args);
}

void cli_error_printf(amddwarf_error *err, amddwarf_status status, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  cli_error_vprintf(err, status, format, args);
  va_end(args);
}

int cli_report(const char *command, bool json, amddwarf_status status, const char *format, ...)
{
  amddwarf_error err;
  va_list args;
  va_start(args, format);
  cli_error_vprintf(&err, status, format, args);
  va_end(args);
  return cli_report_error(command, json, status, &err);
}

static int parse_digits(const char *text, unsigned base, uint64_t *out)
{
  if (*text == '\0')
    return -1;
  uint64_t value = 0;
  for (; *text; text++) {
    unsigned digit;
    char c = *text;
    if (c >= '0' && c <= '9')
      digit = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      digit = (unsigned)(c - 'A' + 10);
    else if (c == '_')
      continue;
    else
      return -1;
    if (digit >= base || value > (UINT64_MAX - digit) / base)
      return -1;
    value = value * base + digit;
  }
  *out = value;
  return 0;
}

int cli_parse_u64(const char *text, uint64_t *out)
{
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    return parse_digits(text + 2, 16, out);
  if (text[0] == '0' && (text[1] == 'b' || text[1] == 'B'))
    return parse_digits(text + 2, 2, out);
  if (text[0] == '0' && (text[1] == 'o' || text[1] == 'O'))
    return parse_digits(text + 2, 8, out);
  return parse_digits(text, 10, out);
}

int cli_parse_i64(const char *text, int64_t *out)
{
  bool negative = text[0] == '-';
  uint64_t magnitude;
  if (cli_parse_u64(text + (negative || text[0] == '+'), &magnitude) != 0)
    return -1;
  if (negative) {
    if (magnitude > (uint64_t)INT64_MAX + 1)
      return -1;
    *out = magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude;
  } else {
    if (magnitude > INT64_MAX)
      return -1;
    *out = (int64_t)magnitude;
  }
  return 0;
}

static int hex_digit(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

int cli_append_hex(const char *text, uint8_t **bytes, size_t *size)
{
  /* Tokens are separated by spaces or commas; each token is an optional 0x
     followed by an even number of hex digits. */
  const char *p = text;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
      p++;
    if (!*p)
      break;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
      p += 2;
    const char *start = p;
    while (*p && *p != ' ' && *p != ',' && *p != '\t' && *p != '\n')
      p++;
    size_t digits = (size_t)(p - start);
    if (digits == 0 || digits % 2 != 0)
      return -1;
    uint8_t *grown = realloc(*bytes, *size + digits / 2 + 1);
    if (!grown)
      return -1;
    *bytes = grown;
    for (size_t k = 0; k < digits; k += 2) {
      int hi = hex_digit(start[k]), lo = hex_digit(start[k + 1]);
      if (hi < 0 || lo < 0)
        return -1;
      (*bytes)[(*size)++] = (uint8_t)(hi << 4 | lo);
    }
  }
  return 0;
}

int cli_file_error(const char *command, bool json, const char *path, const char *reason)
{
  return cli_report(command, json, AMDDWARF_E_IO, "cannot read %s: %s",
                    strcmp(path, "-") == 0 ? "standard input" : path, reason);
}

int cli_read_file(const char *command, const char *path, uint8_t **data, size_t *size)
{
  return cli_read_input(command, false, path, data, size);
}

int cli_write_file(const char *command, bool json, const char *path, const void *data,
                   size_t size)
{
  FILE *file = fopen(path, "wb");
  bool ok = file != NULL && fwrite(data, 1, size, file) == size;
  int saved = errno;
  if (file != NULL && fclose(file) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok)
    return 0;
  return cli_report(command, json, AMDDWARF_E_IO, "cannot write %s: %s", path,
                    strerror(saved ? saved : EIO));
}

/* Reads FILE to its end into a malloc'ed buffer; returns 0 or an errno value. */
static int read_stream(FILE *file, uint8_t **data, size_t *size)
{
  uint8_t *buffer = NULL;
  size_t length = 0, capacity = 0;
  int error = 0;
  for (;;) {
    if (length == capacity) {
      size_t grown_capacity = capacity ? capacity * 2 : 65536;
      uint8_t *grown = grown_capacity > capacity ? realloc(buffer, grown_capacity) : NULL;
      if (!grown) {
        error = ENOMEM;
        break;
      }
      buffer = grown;
      capacity = grown_capacity;
    }
    size_t got = fread(buffer + length, 1, capacity - length, file);
    length += got;
    if (got == 0) {
      if (ferror(file))
        error = errno ? errno : EIO;
      break;
    }
  }
  if (error != 0) {
    free(buffer);
    return error;
  }
  *data = buffer;
  *size = length;
  return 0;
}

int cli_slurp(const char *path, uint8_t **data, size_t *size)
{
  FILE *file = fopen(path, "rb");
  if (!file)
    return errno;
  int error = read_stream(file, data, size);
  fclose(file);
  return error;
}

int cli_read_input(const char *command, bool json, const char *path, uint8_t **data,
                   size_t *size)
{
  int error = strcmp(path, "-") == 0 ? read_stream(stdin, data, size) : cli_slurp(path, data, size);
  if (error != 0) {
    cli_file_error(command, json, path, strerror(error));
    return -1;
  }
  return 0;
}

void cli_print_json(json_t *json)
{
  char *text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    free(text);
  }
  json_decref(json);
}
