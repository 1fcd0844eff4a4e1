/* amddwarf disasm: disassembles the executable sections of an AMDGPU code
 * object with LLVM's C disassembler API for the object's own processor and
 * features (from e_flags), with source lines from the line table and the
 * places where variables' locations change. Built only when LLVM's
 * development package was found (AMDDWARF_WITH_DISASM). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"

static const char disasm_help[] =
    "usage: amddwarf disasm OBJECT [--function NAME | --pc ADDR [--count N]]\n"
    "                       [--source] [--locations] [--json]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Disassembles the executable sections (.text) of an AMDGPU code object for\n"
    "the processor and xnack/sramecc settings its e_flags name, with LLVM's\n"
    "disassembler: the same instructions `llvm-objdump-19 -d --mcpu=PROCESSOR`\n"
    "prints. Each line is the address, the instruction, and its encoding; a\n"
    "branch (s_branch, s_cbranch_*, s_call_b64) is followed by its target as\n"
    "<FUNCTION+OFFSET>, as llvm-objdump-19 shows it.\n"
    "\n"
    "  --function NAME   only the function or kernel NAME (its symbol's range): its\n"
    "                    symbol, its C++ name demangled or that name without its\n"
    "                    parameters (step); one that names nothing lists the\n"
    "                    nearest names, one that names overloads lists them\n"
    "  --pc ADDR         start at ADDR, an instruction boundary of its function\n"
    "                    (decoded from the function's start; another address is\n"
    "                    an error naming the boundaries around it)\n"
    "  --count N         with --pc: N instructions (default 16)\n"
    "  --source          before the instructions of each new source line, print\n"
    "                    '; FILE:LINE:COLUMN' and the line's text when the file\n"
    "                    can be read\n"
    "  --locations       print '; NAME: LOCATION' where a variable's location\n"
    "                    changes (its location list enters a new entry, or it\n"
    "                    comes into or goes out of scope)\n"
    "  --json            one JSON document (specs/json.md): the instructions with\n"
    "                    their address, bytes, text, function and branch target,\n"
    "                    and with --source/--locations their line and location\n"
    "                    changes\n"
    "\n"
    "Exit status: 0 printed, 1 bad object, undecodable bytes or disassembler not\n"
    "built, 2 usage.\n"
    "\n"
    "Example:\n"
    "  amddwarf disasm kernel.o --function k --source --locations\n";

#ifndef AMDDWARF_WITH_DISASM

int cli_disasm_main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (cli_help_arg(argv[i], disasm_help))
      return CLI_EXIT_OK;
  bool json = false;
  for (int i = 1; i < argc; i++)
    json = json || cli_is_flag(argv[i], "--json");
  return cli_report("disasm", json, AMDDWARF_E_UNSUPPORTED,
                    "not available: this amddwarf was built without LLVM's C disassembler API "
                    "(install llvm-19-dev and configure with -DAMDDWARF_DISASM=ON); `amddwarf "
                    "--version` shows the build's features");
}

#else


/* ---- source lines ---------------------------------------------------------------- */

typedef struct source_cache {
  char path[1024];
  char *text;
  size_t size;
} source_cache;

/* Prints line LINE of PATH (or nothing when the file cannot be read). */
static void print_source_line(source_cache *c, const char *path, uint32_t line)
{
  if (strcmp(c->path, path) != 0) {
    free(c->text);
    c->text = NULL;
    c->size = 0;
    snprintf(c->path, sizeof c->path, "%s", path);
    uint8_t *text = NULL;
    if (cli_slurp(path, &text, &c->size) == 0)
      c->text = (char *)text;
  }
  if (!c->text || line == 0)
    return;
  const char *p = c->text, *end = c->text + c->size;
  for (uint32_t l = 1; l < line && p < end; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      return;
    p = nl + 1;
  }
  if (p >= end)
    return;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  printf(";   %.*s\n", (int)((nl ? nl : end) - p), p);
}

/* ---- variable locations ---------------------------------------------------------- */

enum { DISASM_MAX_VARS = 512 };

typedef struct var_state {
  amddwarf_die_ref die;
  const uint8_t *expr;  /* NULL: not available */
  size_t size;
  int available;
} var_state;

typedef struct var_tracker {
  var_state prev[DISASM_MAX_VARS];
  size_t prev_count;
  amddwarf_var_ref vars[DISASM_MAX_VARS];
} var_tracker;

static const var_state *find_state(const var_state *list, size_t n, amddwarf_die_ref die)
{
  for (size_t i = 0; i < n; i++)
    if (list[i].die.offset == die.offset)
      return &list[i];
  return NULL;
}

/* The variable DIE whose location changed to S (NULL: out of scope): a
   "; NAME: ..." line, or an element of OUT. */
static void print_var_location(const amddwarf_object *obj, amddwarf_die_ref die,
                               const var_state *s, json_t *out)
{
  const char *own = amddwarf_object_die_string(obj, die, AMDDWARF_DW_AT_name);
  const char *name = own ? own : "(anonymous)";
  json_t *o = NULL;
  if (out != NULL) {
    o = json_object();
    json_object_set_new(o, "variable", own ? json_string(own) : json_null());
    json_object_set_new(o, "offset", cli_json_addr(die.offset));
    json_array_append_new(out, o);
  }
  if (!s || !s->available) {
    if (o != NULL)
      json_object_set_new(o, "status", json_string(s ? "no_location" : "out_of_scope"));
    else
      printf(";   %s: %s\n", name, s ? "no location here" : "out of scope");
    return;
  }
  if (s->size == 0) {
    if (o != NULL)
      json_object_set_new(o, "status", json_string("optimized_out"));
    else
      printf(";   %s: optimized out\n", name);
    return;
  }
  const amddwarf_cu *cu = amddwarf_object_cu(obj, die.cu_index);
  if (o != NULL) {
    json_object_set_new(o, "status", json_string("available"));
    if (cu != NULL)
      json_object_set_new(o, "location", cli_json_expr(cu, s->expr, s->size));
    return;
  }
  amddwarf_op ops[64];
  size_t count = 0;
  char text[512];
  if (cu && amddwarf_expr_decode(s->expr, s->size, &cu->format, ops, 64, &count, NULL) ==
                AMDDWARF_OK &&
      amddwarf_expr_print(ops, count, &cu->format, AMDDWARF_PRINT_DEFAULT, text, sizeof text,
                          NULL) == AMDDWARF_OK)
    printf(";   %s: %s\n", name, text);
  else
    printf(";   %s: (undecodable expression of %zu bytes)\n", name, s->size);
}

/* Reports the variables whose location at PC differs from the previous call:
   printed, or appended to OUT. */
static void report_locations(const amddwarf_object *obj, var_tracker *t, uint64_t pc,
                             json_t *out)
{
  size_t count = 0;
  if (amddwarf_object_var_refs_at(obj, pc, t->vars, DISASM_MAX_VARS, &count, NULL) !=
      AMDDWARF_OK)
    count = 0;
  if (count > DISASM_MAX_VARS)
    count = DISASM_MAX_VARS;
  var_state now[DISASM_MAX_VARS];
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    amddwarf_die_ref die = t->vars[i].die;
    amddwarf_attribute a;
    amddwarf_die_links scope;
    /* Variables with a location or a constant of their own, globals left out. */
    if (amddwarf_object_die_attribute(obj, die, AMDDWARF_DW_AT_location, 0, &a, NULL) !=
            AMDDWARF_OK &&
        amddwarf_object_die_attribute(obj, die, AMDDWARF_DW_AT_const_value, 0, &a, NULL) !=
            AMDDWARF_OK)
      continue;
    if (amddwarf_object_die_links(obj, t->vars[i].scope, &scope, NULL) == AMDDWARF_OK &&
        scope.tag == AMDDWARF_DW_TAG_compile_unit)
      continue;
    now[n].die = die;
    now[n].available = t->vars[i].available;
    now[n].expr = t->vars[i].expr;
    now[n].size = t->vars[i].size;
    n++;
  }
  bool header = out != NULL;
  for (size_t i = 0; i < n; i++) {
    const var_state *old = find_state(t->prev, t->prev_count, now[i].die);
    bool same = old && old->available == now[i].available && old->size == now[i].size &&
                (old->size == 0 || memcmp(old->expr, now[i].expr, old->size) == 0);
    if (same)
      continue;
    if (!header) {
      printf("; locations at 0x%" PRIx64 ":\n", pc);
      header = true;
    }
    print_var_location(obj, now[i].die, &now[i], out);
  }
  for (size_t i = 0; i < t->prev_count; i++) {
    if (find_state(now, n, t->prev[i].die))
      continue;
    if (!header) {
      printf("; locations at 0x%" PRIx64 ":\n", pc);
      header = true;
    }
    print_var_location(obj, t->prev[i].die, NULL, out);
  }
  memcpy(t->prev, now, n * sizeof now[0]);
  t->prev_count = n;
}

/* ---- the command ----------------------------------------------------------------- */

typedef struct disasm_opts {
  const char *function;
  bool have_pc;
  uint64_t pc;
  uint64_t count;
  bool source;
  bool locations;
  bool json;
} disasm_opts;

static bool is_function(const amddwarf_symbol *s)
{
  return s->kind == AMDDWARF_SYMBOL_FUNCTION || s->kind == AMDDWARF_SYMBOL_KERNEL;
}

static const amddwarf_symbol *function_symbol_at(const amddwarf_object *obj, uint32_t section,
                                                 uint64_t address)
{
  size_t n = amddwarf_object_symbol_count(obj);
  for (size_t i = 0; i < n; i++) {
    const amddwarf_symbol *s = amddwarf_object_symbol(obj, i);
    if (s->address == address && s->section == section && is_function(s))
      return s;
  }
  return NULL;
}

/* The function of SECTION holding ADDRESS: the one whose range covers it,
   else the nearest one that starts before it (as llvm-objdump names branch
   targets); NULL when none starts before it. */
static const amddwarf_symbol *function_containing(const amddwarf_object *obj, uint32_t section,
                                                  uint64_t address)
{
  const amddwarf_symbol *best = NULL;
  size_t n = amddwarf_object_symbol_count(obj);
  for (size_t i = 0; i < n; i++) {
    const amddwarf_symbol *s = amddwarf_object_symbol(obj, i);
    if (s->section != section || !is_function(s) || s->address > address)
      continue;
    if (address - s->address < s->size)
      return s;
    if (best == NULL || s->address > best->address)
      best = s;
  }
  return best;
}

/* "<k+0x10c>", "<k>", or "<0x180c>" outside every function. */
static void target_text(const amddwarf_symbol *f, uint64_t target, char *buf, size_t size)
{
  if (f == NULL)
    snprintf(buf, size, "<0x%" PRIx64 ">", target);
  else if (target == f->address)
    snprintf(buf, size, "<%s>", f->name);
  else
    snprintf(buf, size, "<%s+0x%" PRIx64 ">", f->name, target - f->address);
}

/* The function --function NAME names (its symbol, demangled or not, or
   its demangled name without parameters: amddwarf_object_find_functions).
   None: the error names the nearest ones; several: a usage error listing
   them. 0, or the exit status. */
static int named_function(const amddwarf_object *obj, const disasm_opts *o,
                          const amddwarf_symbol **out)
{
  const amddwarf_symbol *found[AMDDWARF_MAX_SUGGESTIONS];
  size_t count = 0, shown = 0;
  bool matched = amddwarf_object_find_functions(obj, o->function, found,
                                                AMDDWARF_MAX_SUGGESTIONS, &count) ==
                 AMDDWARF_OK;
  if (matched && count == 1) {
    *out = found[0];
    return 0;
  }
  shown = matched ? (count < AMDDWARF_MAX_SUGGESTIONS ? count : AMDDWARF_MAX_SUGGESTIONS)
                  : amddwarf_object_suggest_functions(obj, o->function, found,
                                                      AMDDWARF_MAX_SUGGESTIONS);
  text_buf b = {0};
  for (size_t i = 0; i < shown; ++i) {
    const char *display = amddwarf_object_symbol_name(obj, found[i]);
    text_buf_printf(&b, "%s%s", i ? ", " : "", display);
    if (display != found[i]->name)
      text_buf_printf(&b, " (%s)", found[i]->name);
  }
  int rc;
  if (matched)
    rc = cli_usage_error("disasm", "'%s' names %zu functions: %s; give one by its full or "
                         "mangled name", o->function, count, b.data);
  else if (shown > 0)
    rc = cli_report("disasm", o->json, AMDDWARF_NOT_FOUND,
                    "no function named '%s'; the nearest: %s", o->function, b.data);
  else
    rc = cli_report("disasm", o->json, AMDDWARF_NOT_FOUND, "no function named '%s'",
                    o->function);
  text_buf_free(&b);
  return rc;
}

/* With --pc: checks that PC is an instruction boundary, decoding from the
   start of the function holding it (or of the section). */
static int check_boundary(const amddwarf_object *obj, amddwarf_disasm *dc,
                          const amddwarf_disasm_section *sec, const disasm_opts *o)
{
  const amddwarf_symbol *f = function_containing(obj, sec->index, o->pc);
  uint64_t at = f != NULL && f->address >= sec->address ? f->address : sec->address;
  uint64_t end = sec->address + sec->size;
  char text[256];
  while (at < o->pc) {
    size_t len = amddwarf_disasm_one(dc, sec->data + (at - sec->address), end - at, at, text,
                                     sizeof text);
    if (len == 0)
      len = end - at < 4 ? (size_t)(end - at) : 4;
    if (at + len > o->pc)
      return cli_report("disasm", o->json, AMDDWARF_E_INVALID_ARGUMENT,
                        "0x%" PRIx64 " is not an instruction boundary: it is inside the "
                        "%zu-byte instruction at 0x%" PRIx64 "; the nearest boundaries are "
                        "0x%" PRIx64 " and 0x%" PRIx64,
                        o->pc, len, at, at, at + len);
    at += len;
  }
  return CLI_EXIT_OK;
}

static json_t *line_json(const amddwarf_line_table *table, const amddwarf_line_row *row)
{
  json_t *line = json_object();
  const char *file = row->file < table->file_count ? table->files[row->file] : NULL;
  json_object_set_new(line, "file", file ? json_string(file) : json_null());
  json_object_set_new(line, "line", json_integer(row->line));
  json_object_set_new(line, "column", json_integer(row->column));
  return line;
}

static int disassemble(const amddwarf_object *obj, amddwarf_disasm *dc, const disasm_opts *o,
                       json_t *jsections)
{
  size_t nsections = 0;
  const amddwarf_disasm_section *sections = amddwarf_disasm_sections(dc, &nsections);
  source_cache cache;
  memset(&cache, 0, sizeof cache);
  var_tracker *vars = o->locations ? calloc(1, sizeof *vars) : NULL;
  const amddwarf_line_table *last_table = NULL;
  uint32_t last_file = UINT32_MAX, last_line = UINT32_MAX;
  uint64_t printed = 0;
  int rc = CLI_EXIT_OK;
  bool found = false;
  if (o->locations && !vars)
    return cli_report("disasm", o->json, AMDDWARF_E_NO_MEMORY, "out of memory");
  const amddwarf_symbol *named = NULL;
  if (o->function && (rc = named_function(obj, o, &named)) != 0) {
    free(vars);
    return rc;
  }
  for (size_t si = 0; si < nsections && rc == CLI_EXIT_OK; si++) {
    const amddwarf_disasm_section *sec = &sections[si];
    uint64_t lo = sec->address, hi = sec->address + sec->size;
    if (o->function) {
      if (named->section != sec->index)
        continue;
      lo = named->address;
      hi = named->address + named->size;
    } else if (o->have_pc) {
      if (o->pc < lo || o->pc >= hi)
        continue;
      if ((rc = check_boundary(obj, dc, sec, o)) != CLI_EXIT_OK)
        break;
      lo = o->pc;
    }
    if (lo < sec->address || hi > sec->address + sec->size || lo > hi) {
      rc = cli_report("disasm", o->json, AMDDWARF_E_OBJECT_BAD_ELF,
                      "range 0x%" PRIx64 "-0x%" PRIx64 " is outside %s", lo, hi, sec->name);
      break;
    }
    found = true;
    json_t *insns = NULL;
    if (jsections != NULL) {
      json_t *js = json_object();
      insns = json_array();
      json_object_set_new(js, "name", json_string(sec->name));
      json_object_set_new(js, "address", cli_json_addr(sec->address));
      json_object_set_new(js, "instructions", insns);
      json_array_append_new(jsections, js);
    } else {
      printf("\nDisassembly of section %s:\n", sec->name);
    }
    uint64_t pc = lo;
    while (pc < hi) {
      if (o->have_pc && !o->function && printed >= o->count)
        break;
      json_t *ji = insns != NULL ? json_object() : NULL;
      const amddwarf_symbol *sym = function_symbol_at(obj, sec->index, pc);
      if (sym && !ji)
        printf("\n%016" PRIx64 " <%s>:\n", pc, sym->name);
      const amddwarf_line_table *table;
      amddwarf_line_row row_found;
      const amddwarf_line_row *row = &row_found;
      bool has_row = o->source && amddwarf_object_line_at(obj, pc, &table, &row_found) == AMDDWARF_OK;
      if (has_row && !ji &&
          (table != last_table || row->file != last_file || row->line != last_line)) {
        const char *file = row->file < table->file_count && table->files[row->file]
                               ? table->files[row->file]
                               : "??";
        printf("; %s:%u:%u\n", file, (unsigned)row->line, (unsigned)row->column);
        print_source_line(&cache, file, row->line);
        last_table = table;
        last_file = row->file;
        last_line = row->line;
      }
      json_t *changes = ji != NULL && vars != NULL ? json_array() : NULL;
      if (vars)
        report_locations(obj, vars, pc, changes);
      char text[256], target[160] = "";
      const uint8_t *bytes = sec->data + (pc - sec->address);
      size_t len = amddwarf_disasm_one(dc, bytes, hi - pc, pc, text, sizeof text);
      size_t size = len ? len : hi - pc < 4 ? (size_t)(hi - pc) : 4;
      uint64_t to = 0;
      bool branch = len != 0 && amddwarf_disasm_branch_target(text, pc, &to);
      const amddwarf_symbol *to_function =
          branch ? function_containing(obj, sec->index, to) : NULL;
      if (branch)
        target_text(to_function, to, target, sizeof target);
      if (ji != NULL) {
        const amddwarf_symbol *f = function_containing(obj, sec->index, pc);
        json_object_set_new(ji, "address", cli_json_addr(pc));
        json_object_set_new(ji, "size", json_integer((json_int_t)size));
        json_object_set_new(ji, "hex", cli_json_hex(bytes, size));
        json_object_set_new(ji, "text", len ? json_string(text) : json_null());
        json_object_set_new(ji, "function", f ? json_string(f->name) : json_null());
        if (branch) {
          json_t *jt = json_object();
          json_object_set_new(jt, "address", cli_json_addr(to));
          json_object_set_new(jt, "function",
                              to_function ? json_string(to_function->name) : json_null());
          json_object_set_new(jt, "function_offset",
                              to_function ? cli_json_addr(to - to_function->address)
                                          : json_null());
          json_object_set_new(ji, "target", jt);
        }
        if (o->source)
          json_object_set_new(ji, "line", has_row ? line_json(table, row) : json_null());
        if (changes != NULL)
          json_object_set_new(ji, "locations", changes);
        json_array_append_new(insns, ji);
      } else if (len == 0) {
        printf("  %8" PRIx64 ":  <unknown>                  // %02x%02x%02x%02x\n", pc,
               bytes[3 < hi - pc ? 3 : 0], bytes[2 < hi - pc ? 2 : 0],
               bytes[1 < hi - pc ? 1 : 0], bytes[0]);
      } else {
        printf("  %8" PRIx64 ":  %-50s //", pc, text);
        for (size_t i = 0; i + 4 <= len; i += 4)
          printf(" %02x%02x%02x%02x", bytes[i + 3], bytes[i + 2], bytes[i + 1], bytes[i]);
        printf("%s%s\n", target[0] ? " " : "", target);
      }
      pc += size;
      printed++;
    }
    if (o->have_pc && !o->function)
      break;
  }
  if (rc == CLI_EXIT_OK && !found) {
    if (o->function)
      rc = cli_report("disasm", o->json, AMDDWARF_NOT_FOUND,
                      "function '%s' is not in an executable section", o->function);
    else if (o->have_pc)
      rc = cli_report("disasm", o->json, AMDDWARF_NOT_FOUND,
                      "0x%" PRIx64 " is not in an executable section", o->pc);
    else
      rc = cli_report("disasm", o->json, AMDDWARF_NOT_FOUND,
                      "the object has no executable section");
  }
  free(cache.text);
  free(vars);
  return rc;
}

int cli_disasm_main(int argc, char **argv)
{
  const char *command = "disasm";
  const char *pc_text = NULL, *count_text = NULL;
  cli_object_args args = {0};
  disasm_opts o;
  memset(&o, 0, sizeof o);
  o.count = 16;
  const cli_option options[] = {
      CLI_FLAG("--source", &o.source),      CLI_FLAG("--locations", &o.locations),
      CLI_FLAG("--json", &o.json),          CLI_VALUE("--function", &o.function),
      CLI_VALUE("--pc", &pc_text),          CLI_VALUE("--count", &count_text)};
  for (int i = 1; i < argc; i++) {
    int r = cli_select_arg(command, disasm_help, argc, argv, &i, &args, CLI_OPTIONS(options));
    if (r == CLI_ARG_TAKEN)
      continue;
    if (r != CLI_ARG_NONE)
      return CLI_ARG_EXIT(r);
    if (argv[i][0] == '-')
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    if (args.path)
      return cli_usage_error(command, "one object, please");
    args.path = argv[i];
  }
  if (!args.path)
    return cli_usage_error(command, "no object given");
  if (o.function && pc_text)
    return cli_usage_error(command, "--function and --pc exclude each other");
  if (count_text && !pc_text)
    return cli_usage_error(command, "--count needs --pc");
  if (pc_text) {
    if (cli_parse_u64(pc_text, &o.pc) != 0)
      return cli_usage_error(command, "--pc '%s' is not an address", pc_text);
    o.have_pc = true;
  }
  if (count_text && (cli_parse_u64(count_text, &o.count) != 0 || o.count == 0))
    return cli_usage_error(command, "--count '%s' is not a positive number", count_text);

  amddwarf_object *obj = NULL;
  amddwarf_disasm *dc = NULL;
  args.json = o.json;
  int rc = cli_object_open(command, &args, &obj);
  if (rc != 0)
    return rc;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  if (amddwarf_disasm_open(obj, &dc, &err) != AMDDWARF_OK) {
    rc = cli_report("disasm", o.json, AMDDWARF_E_UNSUPPORTED, "%s", err.message);
    goto done;
  }
  if (o.json) {
    json_t *sections = json_array();
    rc = disassemble(obj, dc, &o, sections);
    if (rc == CLI_EXIT_OK) {
      json_t *root = json_object();
      json_object_set_new(root, "file", json_string(args.path));
      json_object_set_new(root, "processor", json_string(amddwarf_disasm_processor(dc)));
      json_object_set_new(root, "sections", sections);
      cli_print_json(root);
    } else {
      json_decref(sections);
    }
  } else {
    printf("%s:\tfile format elf64-amdgpu (%s)\n", args.path, amddwarf_disasm_processor(dc));
    rc = disassemble(obj, dc, &o, NULL);
  }
done:
  amddwarf_disasm_close(dc);
  cli_object_close(&args, obj);
  return rc;
}

#endif
