/* amddwarf lines: PC -> source line with the chain of inlined frames, source
 * line -> PCs, or every row of the line tables. */
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"

static const char *const usage =
    "usage: amddwarf lines OBJECT ADDR|FILE:LINE|--all [--json] [--convention C]\n"
    "\n"
    "Maps between code addresses and source lines of an AMDGPU code object:\n"
    "\n"
    "  ADDR        the source location of a code address, innermost inlined\n"
    "              frame first: for each inlined subroutine its name and the\n"
    "              line it is at, then the line its caller called it from,\n"
    "              up to the subprogram (like llvm-symbolizer --inlining).\n"
    "  FILE:LINE   every address where a row of a line table starts that\n"
    "              line (is_stmt rows); FILE matches the full path, or any\n"
    "              trailing part of it after a '/'.\n"
    "  --all       every row of every line table, in the columns of\n"
    "              `llvm-dwarfdump --debug-line`: address, line, column, file\n"
    "              index, isa, discriminator and flags.\n"
    "\n"
    "  --json      JSON output\n"
    "\n"
    "examples: amddwarf lines kernel.o 0x2d4\n"
    "          amddwarf lines kernel.o kernel.cl:12\n";

#define MAX_SCOPES 256

static const char *row_file(const amddwarf_line_table *t, const amddwarf_line_row *r)
{
  return r->file < t->file_count && t->files[r->file] ? t->files[r->file] : "?";
}

static const char *decl_file(const amddwarf_object *object, const amddwarf_die_info *d,
                             uint32_t file)
{
  const amddwarf_line_table *t = amddwarf_object_line_table(object, d->cu_index);
  if (t == NULL || file >= t->file_count || t->files[file] == NULL)
    return "?";
  return t->files[file];
}

typedef struct frame {
  const char *function;
  const char *file;
  uint32_t line, column;
  bool inlined;
} frame;

/* The frames at PC, innermost first. Returns the count (0: no line). */
static size_t frames_at(const amddwarf_object *object, uint64_t pc, frame *frames,
                        size_t capacity)
{
  const amddwarf_line_table *t = NULL;
  const amddwarf_line_row *r = NULL;
  const amddwarf_die_info *scopes[MAX_SCOPES];
  size_t depth = 0, n = 0;
  if (amddwarf_object_line_at(object, pc, &t, &r) != AMDDWARF_OK)
    return 0;
  const char *file = row_file(t, r);
  uint32_t line = r->line, column = r->column;
  if (amddwarf_object_scopes_at(object, pc, scopes, MAX_SCOPES, &depth) != AMDDWARF_OK) {
    frames[0] = (frame){NULL, file, line, column, false};
    return 1;
  }
  if (depth > MAX_SCOPES)
    depth = MAX_SCOPES;
  for (size_t i = 0; i < depth && n < capacity; ++i) {
    const amddwarf_die_info *s = scopes[i];
    if (s->tag == 0x1d /* DW_TAG_inlined_subroutine */) {
      frames[n++] = (frame){s->name, file, line, column, true};
      file = decl_file(object, s, s->call_file);
      line = s->call_line;
      column = s->call_column;
    } else if (s->tag == 0x2e /* DW_TAG_subprogram */) {
      frames[n++] = (frame){s->name, file, line, column, false};
      break;
    }
  }
  return n;
}

static bool file_matches(const char *path, const char *want)
{
  size_t pl = strlen(path), wl = strlen(want);
  if (pl == wl)
    return strcmp(path, want) == 0;
  return pl > wl && path[pl - wl - 1] == '/' && strcmp(path + pl - wl, want) == 0;
}

static void flags_text(char *out, size_t size, uint8_t flags)
{
  snprintf(out, size, "%s%s%s%s%s", (flags & AMDDWARF_LINE_IS_STMT) ? " is_stmt" : "",
           (flags & AMDDWARF_LINE_BASIC_BLOCK) ? " basic_block" : "",
           (flags & AMDDWARF_LINE_PROLOGUE_END) ? " prologue_end" : "",
           (flags & AMDDWARF_LINE_EPILOGUE_BEGIN) ? " epilogue_begin" : "",
           (flags & AMDDWARF_LINE_END_SEQUENCE) ? " end_sequence" : "");
}

static int lines_all(const amddwarf_object *object, bool json)
{
  json_t *root = json ? json_array() : NULL;
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
    for (size_t i = 0; i < t->row_count; ++i) {
      const amddwarf_line_row *r = &t->rows[i];
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
        json_object_set_new(o, "flags", json_string(flags[0] ? flags + 1 : ""));
        json_array_append_new(rows, o);
      } else {
        printf("0x%016llx %6u %6u %6u %3u %13u %s\n", (unsigned long long)r->address, r->line,
               r->column, r->file, r->isa, r->discriminator, flags[0] ? flags + 1 : "");
      }
    }
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "offset", cli_json_addr(t->offset));
      json_object_set_new(o, "version", json_integer(t->version));
      json_t *files = json_array();
      for (size_t f = 0; f < t->file_count; ++f)
        json_array_append_new(files, t->files[f] ? json_string(t->files[f]) : json_null());
      json_object_set_new(o, "files", files);
      json_object_set_new(o, "rows", rows);
      json_array_append_new(root, o);
    } else {
      printf("\n");
    }
  }
  if (json)
    cli_print_json(root);
  return CLI_EXIT_OK;
}

static int lines_addr(const amddwarf_object *object, uint64_t pc, bool json)
{
  frame frames[MAX_SCOPES];
  size_t n = frames_at(object, pc, frames, MAX_SCOPES);
  if (n == 0) {
    amddwarf_error err;
    amddwarf_error_clear(&err);
    err.status = AMDDWARF_NOT_FOUND;
    snprintf(err.message, sizeof err.message, "no line table row covers 0x%llx",
             (unsigned long long)pc);
    return cli_report_error("lines", json, AMDDWARF_NOT_FOUND, &err);
  }
  if (json) {
    json_t *root = json_object();
    json_object_set_new(root, "address", cli_json_addr(pc));
    json_t *jf = json_array();
    for (size_t i = 0; i < n; ++i) {
      json_t *o = json_object();
      json_object_set_new(o, "function",
                          frames[i].function ? json_string(frames[i].function) : json_null());
      json_object_set_new(o, "file", json_string(frames[i].file));
      json_object_set_new(o, "line", json_integer(frames[i].line));
      json_object_set_new(o, "column", json_integer(frames[i].column));
      json_object_set_new(o, "inlined", json_boolean(frames[i].inlined));
      json_array_append_new(jf, o);
    }
    json_object_set_new(root, "frames", jf);
    cli_print_json(root);
    return CLI_EXIT_OK;
  }
  printf("0x%llx:\n", (unsigned long long)pc);
  for (size_t i = 0; i < n; ++i)
    printf("  %s at %s:%u:%u%s\n", frames[i].function ? frames[i].function : "??",
           frames[i].file, frames[i].line, frames[i].column,
           frames[i].inlined ? " (inlined)" : "");
  return CLI_EXIT_OK;
}

static int lines_source(const amddwarf_object *object, const char *file, uint32_t line, bool json)
{
  json_t *root = json ? json_array() : NULL;
  size_t found = 0;
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    if (t == NULL)
      continue;
    for (size_t i = 0; i < t->row_count; ++i) {
      const amddwarf_line_row *r = &t->rows[i];
      if (r->line != line || !(r->flags & AMDDWARF_LINE_IS_STMT) ||
          (r->flags & AMDDWARF_LINE_END_SEQUENCE) || !file_matches(row_file(t, r), file))
        continue;
      ++found;
      if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "address", cli_json_addr(r->address));
        json_object_set_new(o, "file", json_string(row_file(t, r)));
        json_object_set_new(o, "line", json_integer(r->line));
        json_object_set_new(o, "column", json_integer(r->column));
        json_array_append_new(root, o);
      } else {
        printf("0x%llx: %s:%u:%u\n", (unsigned long long)r->address, row_file(t, r), r->line,
               r->column);
      }
    }
  }
  if (json) {
    cli_print_json(root);
  } else if (found == 0) {
    amddwarf_error err;
    amddwarf_error_clear(&err);
    err.status = AMDDWARF_NOT_FOUND;
    snprintf(err.message, sizeof err.message, "no line table row for %s:%u", file, line);
    return cli_report_error("lines", false, AMDDWARF_NOT_FOUND, &err);
  }
  return CLI_EXIT_OK;
}

int cli_lines_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *query = NULL;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    int taken = cli_object_arg("lines", usage, argc, argv, &i, &args);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (cli_is_flag(argv[i], "--all")) {
      all = true;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error("lines", "unknown option '%s'", argv[i]);
    if (args.path == NULL)
      args.path = argv[i];
    else if (query == NULL)
      query = argv[i];
    else
      return cli_usage_error("lines", "unexpected argument '%s'", argv[i]);
  }
  if (args.path == NULL)
    return cli_usage_error("lines", "missing OBJECT");
  if (query == NULL && !all)
    return cli_usage_error("lines", "missing ADDR, FILE:LINE or --all");
  if (query != NULL && all)
    return cli_usage_error("lines", "--all takes no ADDR or FILE:LINE");
  uint64_t pc = 0, line = 0;
  char *file = NULL;
  if (query != NULL && cli_parse_u64(query, &pc) != 0) {
    const char *colon = strrchr(query, ':');
    if (colon == NULL || colon == query || cli_parse_u64(colon + 1, &line) != 0 ||
        line > UINT32_MAX)
      return cli_usage_error("lines", "'%s' is neither an address nor FILE:LINE", query);
    file = malloc((size_t)(colon - query) + 1);
    if (file == NULL)
      return cli_report_error("lines", args.json, AMDDWARF_E_NO_MEMORY, NULL);
    memcpy(file, query, (size_t)(colon - query));
    file[colon - query] = '\0';
  }
  amddwarf_object *object = NULL;
  int rc = cli_object_open("lines", &args, &object);
  if (rc == 0) {
    if (all)
      rc = lines_all(object, args.json);
    else if (file != NULL)
      rc = lines_source(object, file, (uint32_t)line, args.json);
    else
      rc = lines_addr(object, pc, args.json);
  }
  free(file);
  amddwarf_object_close(object);
  return rc;
}
