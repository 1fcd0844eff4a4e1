/* Shared helpers of the amddwarf subcommands: argument scanning, input files,
 * hex parsing, error reporting and JSON output. */
#ifndef AMDDWARF_CLI_H
#define AMDDWARF_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <amddwarf/amddwarf.h>

/* Exit statuses of every subcommand. */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_BAD_INPUT = 1, /* the input is malformed, or the answer is "problems found" */
  CLI_EXIT_USAGE = 2,     /* the command line is wrong */
};

#define AMDDWARF_COMMAND(id, name, function, summary) int function(int argc, char **argv);
#include "commands.def"
#undef AMDDWARF_COMMAND
/* `amddwarf expr eval`, dispatched by cmd_expr.c. */
int cli_expr_eval_main(int argc, char **argv);

/* Argument scanning: a command walks argv with an index and asks, at each
   position, whether it is a given flag or option. */
bool cli_is_flag(const char *arg, const char *flag);
/* If argv[*i] is OPTION ("--dialect X" or "--dialect=X"), stores the value,
   advances *i past it and returns 1; returns 0 when it is not OPTION, and -1
   (after printing a usage error for COMMAND) when the value is missing. */
int cli_option_value(const char *command, int argc, char **argv, int *i, const char *option,
                     const char **value);

/* A flag or an option of a command's table: a flag (FLAG set) sets *FLAG
   when given; an option (VALUE set) stores its value in *VALUE. */
typedef struct cli_option {
  const char *name;
  bool *flag;
  const char **value;
} cli_option;
/* Entries of a table. */
#define CLI_FLAG(name, flag) {(name), (flag), NULL}
#define CLI_VALUE(name, value) {(name), NULL, (value)}
/* The table arguments of cli_table_arg and cli_object_arg. */
#define CLI_OPTIONS(table) (table), sizeof(table) / sizeof((table)[0])
/* If argv[*i] is one of the COUNT flags and options of TABLE, takes it
   (cli_is_flag, cli_option_value) and returns 1; 0 when it is none of them,
   -1 after a usage error (an option's value missing). */
int cli_table_arg(const char *command, int argc, char **argv, int *i, const cli_option *table,
                  size_t count);
/* Scans the whole command line of a command that takes the flags and
   options of TABLE and one operand, NOUN, into *OPERAND (cli_single_operand);
   --help or -h calls HELP. Returns -1 to go on, else the exit status. */
int cli_scan_single(const char *command, int argc, char **argv, void (*help)(void),
                    const cli_option *table, size_t count, const char *noun,
                    const char **operand);
/* True, after printing HELP on stdout, when ARG is --help or -h. */
bool cli_help_arg(const char *arg, const char *help);

/* ARG, which is no flag or option COMMAND knows, as its one operand: stored
   in *OPERAND and 0 returned; or a usage error (CLI_EXIT_USAGE) for an
   unknown option ("-x") or a second operand ("only one NOUN is read"). */
int cli_single_operand(const char *command, const char *arg, const char *noun,
                       const char **operand);

/* Prints "amddwarf COMMAND: MESSAGE" and a hint to --help on stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Fills ERR (cleared first) with STATUS and the printf text of FORMAT. */
void cli_error_printf(amddwarf_error *err, amddwarf_status status, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void cli_error_vprintf(amddwarf_error *err, amddwarf_status status, const char *format,
                       va_list args);
/* cli_report_error of STATUS with the printf text of FORMAT as its message.
   Returns CLI_EXIT_BAD_INPUT. */
int cli_report(const char *command, bool json, amddwarf_status status, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Reports ERR (or STATUS when ERR has no message) for COMMAND, in text on
   stderr, or as {"error": {...}} on stdout when JSON is set. Returns CLI_EXIT_BAD_INPUT. */
int cli_report_error(const char *command, bool json, amddwarf_status status,
                     const amddwarf_error *err);
/* {"status", "message", "offset", "opcode"} of an error, for embedding;
   offset and opcode as "0x..." strings, left out when ERR has none. */
json_t *cli_json_error(amddwarf_status status, const amddwarf_error *err);

/* Parses unsigned integers: decimal, 0x hex, 0b binary, 0o octal. Returns 0 or -1. */
int cli_parse_u64(const char *text, uint64_t *out);
int cli_parse_i64(const char *text, int64_t *out);

/* Appends the bytes written as hex in TEXT ("91 7f", "0x91,0x7f", "917f")
   to *BYTES (realloc'ed, *SIZE updated). Returns 0, or -1 for a bad digit or
   an odd number of digits. */
int cli_append_hex(const char *text, uint8_t **bytes, size_t *size);

/* Reports that PATH cannot be read because of REASON (an strerror text), the
   one way every command says so (specs/json.md): "cannot read PATH: REASON"
   with status io, through cli_report_error. Returns CLI_EXIT_BAD_INPUT. */
int cli_file_error(const char *command, bool json, const char *path, const char *reason);

/* Reads the whole file PATH into a malloc'ed buffer, growing it
   geometrically so that a file of any size is copied O(size) times. Returns
   0, or the errno value that stopped it (ENOMEM when out of memory). */
int cli_slurp(const char *path, uint8_t **data, size_t *size);
/* Reads a whole file ("-" is stdin) into a malloc'ed buffer. Returns 0, or
   -1 after reporting with cli_file_error (as JSON on stdout when JSON). */
int cli_read_input(const char *command, bool json, const char *path, uint8_t **data,
                   size_t *size);
/* cli_read_input with errors as text on stderr. */
int cli_read_file(const char *command, const char *path, uint8_t **data, size_t *size);

/* Writes SIZE bytes to the file PATH (created or truncated). Returns 0, or
   CLI_EXIT_BAD_INPUT after reporting "cannot write PATH: REASON" (status io)
   through cli_report_error. */
int cli_write_file(const char *command, bool json, const char *path, const void *data,
                   size_t size);

/* Prints JSON (compact members, 2-space indent, keys in insertion order)
   followed by a newline on stdout, then releases it. */
void cli_print_json(json_t *json);

#endif
