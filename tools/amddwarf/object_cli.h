/* Helpers shared by the subcommands that read code objects (dump, vars,
 * lines, check, eval, lanes): opening with the common options, and printing
 * expressions, locations and DIE names in text and JSON. */
#ifndef AMDDWARF_OBJECT_CLI_H
#define AMDDWARF_OBJECT_CLI_H

#include "cli.h"
#include "json_out.h"
#include "text_buf.h"

/* Options every object command accepts. */
typedef struct cli_object_args {
  const char *path;
  const char *convention;   /* --convention auto|legacy|extension */
  const char *dialect;      /* --dialect auto|draft|vendor|user */
  bool json;
  uint32_t flags;           /* amddwarf_object_options.flags */
  uint8_t *data;            /* the file's bytes, owned: set by cli_object_open */
  const char *target;       /* --target ID: a code object of this target ID */
  const char *object;       /* --object N: the code object `objects` numbers N */
} cli_object_args;

/* The help text of the options that choose one code object of a container,
   for every command that reads a code object. */
#define CLI_OBJECT_SELECT_HELP                                                                    \
  "  OBJECT            a code object, a host executable or library (.hip_fatbin),\n"              \
  "                    an offload bundle (compressed or not), a .o with bundle or\n"              \
  "                    .llvm.offloading sections, or a URI file://PATH#offset=N&size=M\n"         \
  "  --target ID       the code object for target ID (gfx90a, gfx90a:xnack-, ...)\n"             \
  "  --object N        code object N, as `amddwarf objects` numbers them\n"                       \
  "                    (a file holding one code object needs neither; when the\n"                \
  "                    choice is ambiguous, the candidates are listed, exit 2)\n"
/* The same in two lines, for a help text near the C limit on string size. */
#define CLI_OBJECT_SELECT_HELP_SHORT                                                              \
  "  --target ID, --object N  which code object of a host executable, bundle or\n"              \
  "                 URI (see `amddwarf objects`); ambiguous: candidates, exit 2\n"

/* What cli_object_arg and cli_object_select_arg did with an argument. */
enum {
  CLI_ARG_BAD = -1,  /* a usage error was printed: exit CLI_EXIT_USAGE */
  CLI_ARG_NONE = 0,  /* not an argument the command takes */
  CLI_ARG_TAKEN = 1, /* stored; go on with the next argument */
  CLI_ARG_HELP = 2,  /* USAGE was printed: exit CLI_EXIT_OK */
};
/* The exit status after CLI_ARG_BAD or CLI_ARG_HELP. */
#define CLI_ARG_EXIT(taken) ((taken) == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE)

/* Looks at argv[*i] for the options every object command takes: --help
   (prints USAGE), --json, --no-quirks, --convention, --dialect, --target and
   --object, then for the command's own flags and options, the COUNT of
   TABLE (cli_table_arg; TABLE may be NULL when COUNT is 0). Returns one of
   CLI_ARG_*. */
int cli_object_arg(const char *command, const char *usage, int argc, char **argv, int *i,
                   cli_object_args *args, const cli_option *table, size_t count);

/* cli_object_arg for a command that chooses a code object (--target,
   --object) but takes none of the other object options. */
int cli_select_arg(const char *command, const char *usage, int argc, char **argv, int *i,
                   cli_object_args *args, const cli_option *table, size_t count);

/* Scans the whole command line of a command whose one operand is OBJECT
   (stored in ARGS->path) with cli_object_arg. Returns -1 to go on, else the
   exit status (after the usage error or the help). */
int cli_object_scan(const char *command, const char *usage, int argc, char **argv,
                    cli_object_args *args, const cli_option *table, size_t count);

/* The object options (--convention, --dialect, flags) and the code object
   selection (--target, --object) ARGS asks for; 0 or a usage error's exit
   status (reported). */
int cli_object_options(const char *command, const cli_object_args *args,
                       amddwarf_object_options *options, amddwarf_selection *selection);

/* Only --target and --object (for commands that parse the rest themselves). */
int cli_object_select_arg(const char *command, int argc, char **argv, int *i,
                          cli_object_args *args);

/* Opens the code object ARGS->path names (a path, a URI, or "-": stdin, kept
   in ARGS->data) with amddwarf_object_open_input and the --target/--object
   selection; on failure reports the error and returns the exit status
   (non-zero: CLI_EXIT_USAGE when the choice is ambiguous, after listing
   every candidate with the option that selects it), else 0. Close with
   cli_object_close. */
int cli_object_open(const char *command, cli_object_args *args, amddwarf_object **out);
/* Closes OBJECT (NULL is allowed) and releases ARGS->data. */
void cli_object_close(cli_object_args *args, amddwarf_object *object);

/* Appends a lane's read as every view shows it (amddwarf_lane_value_describe
   with FLAGS). */
void cli_buf_lane_value(text_buf *b, const amddwarf_lane_value *value, unsigned flags);

/* Appends VALUE's read in LANE (cli_buf_lane_value), or "<error: MESSAGE
   (STATUS)>" when ST (the status of opening VALUE) or the read is not OK;
   ERR receives the read's error. */
void cli_buf_value(text_buf *b, amddwarf_status st, amddwarf_valobj *value, uint32_t lane,
                   amddwarf_error *err);

/* Append the tables of `amddwarf lanes` (amddwarf_wave_lanes_table) and of
   `amddwarf eval --lanes` (amddwarf_valobj_lanes_table of VALUE's LANES);
   nothing on failure. Return the library's status. */
amddwarf_status cli_buf_wave_lanes(text_buf *b, amddwarf_wave *wave, amddwarf_error *err);
amddwarf_status cli_buf_value_lanes(text_buf *b, amddwarf_valobj *value, uint64_t lanes,
                                    unsigned flags, amddwarf_error *err);

/* Appends the decoded expression in llvm-dwarfdump spelling
   (amddwarf_expr_spell); a decoding error is appended as "<error: MESSAGE>"
   after what decoded. Returns the decoding status. */
amddwarf_status cli_buf_expr(text_buf *b, const amddwarf_cu *cu, const uint8_t *bytes,
                             size_t size);

/* Appends one location list entry: "[0xLOW, 0xHIGH): EXPR" (16 hex digits
   each), or "<default>: EXPR". */
void cli_buf_loc_entry(text_buf *b, const amddwarf_cu *cu, const amddwarf_loc_entry *entry);

/* Appends a location attribute value: an expression, or a list as
   "[0xLOW, 0xHIGH): EXPR" entries separated by ", ". */
void cli_buf_location(text_buf *b, const amddwarf_cu *cu, const amddwarf_attr_value *value);

/* JSON of a location value (specs/json.md): {"expr", "hex", "ops"} or
   {"offset", "list": [{"expr", "hex", "ops", "entry_offset", "kind", "low",
   "high"} or {..., "default": true}]}; a constant {"constant": N}. */
json_t *cli_json_location(const amddwarf_cu *cu, const amddwarf_attr_value *value);
json_t *cli_json_expr(const amddwarf_cu *cu, const uint8_t *bytes, size_t size);

/* Reports why the scopes at PC are unknown (STATUS from
   amddwarf_object_scopes_at or amddwarf_object_vars_at): no subprogram of
   PATH contains PC, or the unit holding it cannot be read. Returns
   CLI_EXIT_BAD_INPUT. */
int cli_report_no_scope(const char *command, bool json, const amddwarf_object *object,
                        const char *path, uint64_t pc, amddwarf_status status);

#endif
