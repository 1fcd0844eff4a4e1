/* amddwarf lines: PC -> source line with the chain of inlined frames, source
 * line -> PCs, or every row of the line tables. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"

static const char *const usage =
    "usage: amddwarf lines OBJECT QUERY... [--pc ADDR[,ADDR...]]... [--json] [--convention C]\n"
    "       amddwarf lines OBJECT --all [--json] [--convention C]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Maps between code addresses and source lines of an AMDGPU code object.\n"
    "Each QUERY is answered in the order given:\n"
    "\n"
    "  ADDR        the source location of a code address, innermost inlined\n"
    "              frame first: for each inlined subroutine its name (a C++\n"
    "              name demangled, as llvm-symbolizer shows it) and the\n"
    "              line it is at, then the line its caller called it from,\n"
    "              up to the subprogram (like llvm-symbolizer --inlining).\n"
    "  FILE:LINE   every address where a row of a line table starts that\n"
    "              line (is_stmt rows); FILE matches the full path, or any\n"
    "              trailing part of it after a '/'.\n"
    "  --pc ADDR   an ADDR query; repeatable, and ADDR may be a comma-separated\n"
    "              list (0x10,0x20)\n"
    "  --all       every row of every line table, in the columns of\n"
    "              `llvm-dwarfdump --debug-line`: address, line, column, file\n"
    "              index, isa, discriminator and flags.\n"
    "\n"
    "  --json      one JSON document (specs/json.md)\n"
    "\n"
    "A query nothing answers is reported on stderr (in JSON, an \"error\" member\n"
    "of its entry); the others are still answered. Exit status: 0 every query\n"
    "answered, 1 some query not, or a bad object, 2 usage.\n"
    "\n"
    "examples: amddwarf lines kernel.o 0x2d4\n"
    "          amddwarf lines kernel.o --pc 0x10 --pc 0x20,0x24\n"
    "          amddwarf lines kernel.o kernel.cl:12\n";

#define MAX_SCOPES 256

static const char *row_file(const amddwarf_line_table *t, const amddwarf_line_row *r)
{
  return r->file < t->file_count && t->files[r->file] ? t->files[r->file] : "?";
}

static bool file_matches(const char *path, const char *want)
{
  size_t pl = strlen(path), wl = strlen(want);
  if (pl == wl)
    return strcmp(path, want) == 0;
  return pl > wl && path[pl - wl - 1] == '/' && strcmp(path + pl - wl, want) == 0;
}

static const struct {
  uint8_t flag;
  const char *name;
} line_flags[] = {
    {AMDDWARF_LINE_IS_STMT, "is_stmt"},
    {AMDDWARF_LINE_BASIC_BLOCK, "basic_block"},
    {AMDDWARF_LINE_PROLOGUE_END, "prologue_end"},
    {AMDDWARF_LINE_EPILOGUE_BEGIN, "epilogue_begin"},
    {AMDDWARF_LINE_END_SEQUENCE, "end_sequence"},
};

static void flags_text(char *out, size_t size, uint8_t flags)
{
  size_t n = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof line_flags / sizeof line_flags[0]; i++)
    if ((flags & line_flags[i].flag) && n < size)
      n += (size_t)snprintf(out + n, size - n, "%s%s", n ? " " : "", line_flags[i].name);
}

static json_t *flags_json(uint8_t flags)
{
  json_t *list = json_array();
  for (size_t i = 0; i < sizeof line_flags / sizeof line_flags[0]; i++)
    if (flags & line_flags[i].flag)
      json_array_append_new(list, json_string(line_flags[i].name));
  return list;
}

/* Prints ROW, or appends it to the JSON array USER (NULL: text). */
static int print_row(void *user, size_t index, const amddwarf_line_row *row)
{
  (void)index;
  json_t *rows = user;
  bool json = rows != NULL;
  const amddwarf_line_row *r = row;
  char flags[96];
  flags_text(flags, sizeof flags, r->flags);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "address", cli_json_addr(r->address));
    json_object_set_new(o, "line", json_integer(r->line));
    json_object_set_new(o, "column", json_integer(r->column));
    json_object_set_new(o, "file", json_integer(r->file));
    json_object_set_new(o, "isa", json_integer(r->isa));
    json_object_set_new(o, "discriminator", json_integer(r->discriminator));
    json_object_set_new(o, "flags", flags_json(r->flags));
    json_array_append_new(rows, o);
  } else {
    printf("0x%016llx %6u %6u %6u %3u %13u %s\n", (unsigned long long)r->address, r->line,
           r->column, r->file, r->isa, r->discriminator, flags);
  }
  return 0;
}

static int lines_all(const amddwarf_object *object, bool json)
{
  json_t *tables = json ? json_array() : NULL;
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    if (t == NULL)
      continue;
    json_t *rows = json ? json_array() : NULL;
    if (!json) {
      printf("debug_line[0x%08llx] (unit %zu, version %u)\n", (unsigned long long)t->offset, c,
             t->version);
      printf("Address            Line   Column File   ISA Discriminator Flags\n");
    }
    (void)amddwarf_object_line_visit(object, t, print_row, rows);
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "offset", cli_json_addr(t->offset));
      json_object_set_new(o, "version", json_integer(t->version));
      json_t *files = json_array();
      for (size_t f = 0; f < t->file_count; ++f)
        json_array_append_new(files, t->files[f] ? json_string(t->files[f]) : json_null());
      json_object_set_new(o, "files", files);
      json_object_set_new(o, "rows", rows);
      json_array_append_new(tables, o);
    } else {
      printf("\n");
    }
  }
  if (json) {
    json_t *root = json_object();
    json_object_set_new(root, "line_tables", tables);
    cli_print_json(root);
  }
  return CLI_EXIT_OK;
}

/* Reports that nothing answers a query: on stderr, or as the "error" member
   of its JSON entry ENTRY. Returns CLI_EXIT_BAD_INPUT. */
static int not_answered(json_t *entry, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int not_answered(json_t *entry, const char *format, ...)
{
  amddwarf_error err;
  va_list args;
  va_start(args, format);
  cli_error_vprintf(&err, AMDDWARF_NOT_FOUND, format, args);
  va_end(args);
  if (entry != NULL) {
    json_object_set_new(entry, "error", cli_json_error(AMDDWARF_NOT_FOUND, &err));
    return CLI_EXIT_BAD_INPUT;
  }
  return cli_report_error("lines", false, AMDDWARF_NOT_FOUND, &err);
}

/* Answers the address PC: prints it, or appends its entry to LIST. */
static int lines_addr(const amddwarf_object *object, uint64_t pc, json_t *list)
{
  amddwarf_place frames[MAX_SCOPES];
  size_t n = 0;
  amddwarf_object_inline_places(object, pc, frames, MAX_SCOPES, &n);
  n = n < MAX_SCOPES ? n : MAX_SCOPES;
  json_t *entry = NULL;
  if (list != NULL) {
    entry = json_object();
    json_object_set_new(entry, "address", cli_json_addr(pc));
    json_array_append_new(list, entry);
  }
  if (n == 0 || !frames[0].has_row)
    return not_answered(entry, "no line table row covers 0x%llx", (unsigned long long)pc);
  if (entry != NULL) {
    json_t *jf = json_array();
    for (size_t i = 0; i < n; ++i) {
      json_t *o = json_object();
      json_object_set_new(o, "function",
                          frames[i].function ? json_string(frames[i].function) : json_null());
      json_object_set_new(o, "file", json_string(frames[i].file ? frames[i].file : "?"));
      json_object_set_new(o, "line", json_integer(frames[i].line));
      json_object_set_new(o, "column", json_integer(frames[i].column));
      json_object_set_new(o, "inlined", json_boolean(frames[i].inlined));
      json_array_append_new(jf, o);
    }
    json_object_set_new(entry, "frames", jf);
    return CLI_EXIT_OK;
  }
  printf("0x%llx:\n", (unsigned long long)pc);
  for (size_t i = 0; i < n; ++i)
    printf("  %s at %s:%u:%u%s\n", frames[i].function ? frames[i].function : "??",
           frames[i].file ? frames[i].file : "?", frames[i].line, frames[i].column,
           frames[i].inlined ? " (inlined)" : "");
  return CLI_EXIT_OK;
}

/* A FILE:LINE query over one table: its matching rows are printed, or
   appended to ADDRESSES. */
typedef struct source_query {
  const amddwarf_line_table *table;
  const char *file;
  uint32_t line;
  json_t *addresses;
  size_t found;
} source_query;

static int match_row(void *user, size_t index, const amddwarf_line_row *r)
{
  (void)index;
  source_query *q = user;
  const amddwarf_line_table *t = q->table;
  if (r->line != q->line || !(r->flags & AMDDWARF_LINE_IS_STMT) ||
      (r->flags & AMDDWARF_LINE_END_SEQUENCE) || !file_matches(row_file(t, r), q->file))
    return 0;
  ++q->found;
  if (q->addresses != NULL) {
    json_t *o = json_object();
    json_object_set_new(o, "address", cli_json_addr(r->address));
    json_object_set_new(o, "file", json_string(row_file(t, r)));
    json_object_set_new(o, "line", json_integer(r->line));
    json_object_set_new(o, "column", json_integer(r->column));
    json_array_append_new(q->addresses, o);
  } else {
    printf("0x%llx: %s:%u:%u\n", (unsigned long long)r->address, row_file(t, r), r->line,
           r->column);
  }
  return 0;
}

/* Answers FILE:LINE (SOURCE as given): prints its addresses, or appends its
   entry to LIST. */
static int lines_source(const amddwarf_object *object, const char *source, const char *file,
                        uint32_t line, json_t *list)
{
  json_t *entry = NULL, *addresses = NULL;
  if (list != NULL) {
    entry = json_object();
    json_object_set_new(entry, "source", json_string(source));
    json_array_append_new(list, entry);
    addresses = json_array();
  }
  size_t found = 0;
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    if (t == NULL)
      continue;
    source_query q = {t, file, line, addresses, 0};
    (void)amddwarf_object_line_visit(object, t, match_row, &q);
    found += q.found;
  }
  if (found == 0) {
    json_decref(addresses);
    return not_answered(entry, "no line table row for %s:%u", file, line);
  }
  if (entry != NULL)
    json_object_set_new(entry, "addresses", addresses);
  return CLI_EXIT_OK;
}

typedef struct query {
  const char *text; /* as given */
  uint64_t pc;      /* an address when FILE is NULL */
  char *file;
  uint32_t line;
} query;

/* Parses TEXT (ADDR or FILE:LINE; ADDR only when ADDRESS_ONLY) into *Q.
   Returns 0, or a usage error's exit status. */
static int parse_query(const char *text, bool address_only, query *q)
{
  uint64_t line = 0;
  memset(q, 0, sizeof *q);
  q->text = text;
  if (cli_parse_u64(text, &q->pc) == 0)
    return 0;
  const char *colon = strrchr(text, ':');
  if (address_only)
    return cli_usage_error("lines", "--pc '%s' is not an address", text);
  if (colon == NULL || colon == text || cli_parse_u64(colon + 1, &line) != 0 ||
      line > UINT32_MAX)
    return cli_usage_error("lines", "'%s' is neither an address nor FILE:LINE", text);
  q->file = malloc((size_t)(colon - text) + 1);
  if (q->file == NULL)
    return cli_report_error("lines", false, AMDDWARF_E_NO_MEMORY, NULL);
  memcpy(q->file, text, (size_t)(colon - text));
  q->file[colon - text] = '\0';
  q->line = (uint32_t)line;
  return 0;
}

/* Appends the queries of one argument (a comma-separated list with --pc). */
static int add_queries(query **queries, size_t *count, char *text, bool pc_option)
{
  char *save = NULL;
  for (char *item = pc_option ? strtok_r(text, ",", &save) : text; item != NULL;
       item = pc_option ? strtok_r(NULL, ",", &save) : NULL) {
    query *grown = realloc(*queries, (*count + 1) * sizeof **queries);
    if (grown == NULL)
      return cli_report_error("lines", false, AMDDWARF_E_NO_MEMORY, NULL);
    *queries = grown;
    int rc = parse_query(item, pc_option, &grown[*count]);
    if (rc != 0)
      return rc;
    ++*count;
  }
  if (pc_option && *count == 0)
    return cli_usage_error("lines", "--pc needs an address");
  return 0;
}

int cli_lines_main(int argc, char **argv)
{
  cli_object_args args = {0};
  query *queries = NULL;
  size_t count = 0;
  bool all = false;
  const cli_option options[] = {CLI_FLAG("--all", &all)};
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; ++i) {
    const char *value = NULL;
    int taken = cli_object_arg("lines", usage, argc, argv, &i, &args, CLI_OPTIONS(options));
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE) {
      /* --help printed the usage: done, whatever else the line holds. */
      for (size_t q = 0; q < count; ++q)
        free(queries[q].file);
      free(queries);
      return CLI_ARG_EXIT(taken);
    }
    int found = cli_option_value("lines", argc, argv, &i, "--pc", &value);
    if (found < 0) {
      rc = CLI_EXIT_USAGE;
    } else if (found > 0) {
      char *copy = strdup(value);
      rc = copy ? add_queries(&queries, &count, copy, true)
                : cli_report_error("lines", false, AMDDWARF_E_NO_MEMORY, NULL);
      free(copy);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = cli_usage_error("lines", "unknown option '%s'", argv[i]);
    } else if (args.path == NULL) {
      args.path = argv[i];
    } else {
      rc = add_queries(&queries, &count, argv[i], false);
    }
  }
  if (rc == 0 && args.path == NULL)
    rc = cli_usage_error("lines", "missing OBJECT");
  else if (rc == 0 && count == 0 && !all)
    rc = cli_usage_error("lines", "missing ADDR, FILE:LINE or --all");
  else if (rc == 0 && count > 0 && all)
    rc = cli_usage_error("lines", "--all takes no ADDR or FILE:LINE");
  amddwarf_object *object = NULL;
  if (rc == 0)
    rc = cli_object_open("lines", &args, &object);
  if (rc == 0 && all) {
    rc = lines_all(object, args.json);
  } else if (rc == 0) {
    json_t *list = args.json ? json_array() : NULL;
    for (size_t q = 0; q < count; ++q) {
      int one = queries[q].file != NULL
                    ? lines_source(object, queries[q].text, queries[q].file, queries[q].line,
                                   list)
                    : lines_addr(object, queries[q].pc, list);
      if (one != CLI_EXIT_OK)
        rc = one;
    }
    if (list != NULL) {
      json_t *root = json_object();
      json_object_set_new(root, "queries", list);
      cli_print_json(root);
    }
  }
  for (size_t q = 0; q < count; ++q)
    free(queries[q].file);
  free(queries);
  cli_object_close(&args, object);
  return rc;
}
