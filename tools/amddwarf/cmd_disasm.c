/* amddwarf disasm: disassembles the executable sections of an AMDGPU code
 * object with LLVM's C disassembler API for the object's own processor and
 * features (from e_flags), with source lines from the line table and the
 * places where variables' locations change. Built only when LLVM's
 * development package was found (AMDDWARF_WITH_DISASM). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char disasm_help[] =
    "usage: amddwarf disasm OBJECT [--function NAME | --pc ADDR [--count N]]\n"
    "                       [--source] [--locations]\n"
    "\n"
    "Disassembles the executable sections (.text) of an AMDGPU code object for\n"
    "the processor and xnack/sramecc settings its e_flags name, with LLVM's\n"
    "disassembler: the same instructions `llvm-objdump-19 -d --mcpu=PROCESSOR`\n"
    "prints. Each line is the address, the instruction, and its encoding.\n"
    "\n"
    "  --function NAME   only the function or kernel NAME (its symbol's range)\n"
    "  --pc ADDR         start at ADDR (an instruction boundary of its function)\n"
    "  --count N         with --pc: N instructions (default 16)\n"
    "  --source          before the instructions of each new source line, print\n"
    "                    '; FILE:LINE:COLUMN' and the line's text when the file\n"
    "                    can be read\n"
    "  --locations       print '; NAME: LOCATION' where a variable's location\n"
    "                    changes (its location list enters a new entry, or it\n"
    "                    comes into or goes out of scope)\n"
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
    if (cli_is_flag(argv[i], "--help") || cli_is_flag(argv[i], "-h")) {
      fputs(disasm_help, stdout);
      return CLI_EXIT_OK;
    }
  fprintf(stderr, "amddwarf disasm: not available: this amddwarf was built without LLVM's C "
                  "disassembler API (install llvm-19-dev and configure with "
                  "-DAMDDWARF_DISASM=ON); `amddwarf --version` shows the build's features\n");
  return CLI_EXIT_BAD_INPUT;
}

#else

#include "disasm_llvm.h"

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
    FILE *f = fopen(path, "rb");
    if (f) {
      size_t cap = 0;
      char buf[4096];
      size_t got;
      while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        char *grown = realloc(c->text, cap + got + 1);
        if (!grown)
          break;
        c->text = grown;
        memcpy(c->text + cap, buf, got);
        cap += got;
        c->text[cap] = '\0';
      }
      c->size = cap;
      fclose(f);
    }
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
  const amddwarf_die_info *die;
  const uint8_t *expr;  /* NULL: not available */
  size_t size;
  int available;
} var_state;

typedef struct var_tracker {
  var_state prev[DISASM_MAX_VARS];
  size_t prev_count;
  amddwarf_var vars[DISASM_MAX_VARS];
} var_tracker;

static const var_state *find_state(const var_state *list, size_t n,
                                   const amddwarf_die_info *die)
{
  for (size_t i = 0; i < n; i++)
    if (list[i].die == die)
      return &list[i];
  return NULL;
}

static void print_var_location(const amddwarf_object *obj, const amddwarf_die_info *die,
                               const var_state *s)
{
  const char *name = die->name ? die->name : "(anonymous)";
  if (!s || !s->available) {
    printf(";   %s: %s\n", name, s ? "no location here" : "out of scope");
    return;
  }
  if (s->size == 0) {
    printf(";   %s: optimized out\n", name);
    return;
  }
  const amddwarf_cu *cu = amddwarf_object_cu(obj, die->cu_index);
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

/* Prints the variables whose location at PC differs from the previous call. */
static void report_locations(const amddwarf_object *obj, var_tracker *t, uint64_t pc)
{
  size_t count = 0;
  if (amddwarf_object_vars_at(obj, pc, t->vars, DISASM_MAX_VARS, &count) != AMDDWARF_OK)
    count = 0;
  if (count > DISASM_MAX_VARS)
    count = DISASM_MAX_VARS;
  var_state now[DISASM_MAX_VARS];
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    const amddwarf_die_info *die = t->vars[i].die;
    if (!die->location && !die->const_value)
      continue;
    if (t->vars[i].scope && t->vars[i].scope->tag == 0x11) /* DW_TAG_compile_unit: globals */
      continue;
    now[n].die = die;
    now[n].available = t->vars[i].available;
    now[n].expr = t->vars[i].expr;
    now[n].size = t->vars[i].size;
    n++;
  }
  bool header = false;
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
    print_var_location(obj, now[i].die, &now[i]);
  }
  for (size_t i = 0; i < t->prev_count; i++) {
    if (find_state(now, n, t->prev[i].die))
      continue;
    if (!header) {
      printf("; locations at 0x%" PRIx64 ":\n", pc);
      header = true;
    }
    print_var_location(obj, t->prev[i].die, NULL);
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
} disasm_opts;

static const amddwarf_symbol *function_symbol_at(const amddwarf_object *obj, uint32_t section,
                                                 uint64_t address)
{
  size_t n = amddwarf_object_symbol_count(obj);
  for (size_t i = 0; i < n; i++) {
    const amddwarf_symbol *s = amddwarf_object_symbol(obj, i);
    if (s->address == address && s->section == section &&
        (s->kind == AMDDWARF_SYMBOL_FUNCTION || s->kind == AMDDWARF_SYMBOL_KERNEL))
      return s;
  }
  return NULL;
}

static int disassemble(const amddwarf_object *obj, disasm_context *dc, const disasm_opts *o)
{
  int nsections = 0;
  const exec_section *sections = disasm_sections(dc, &nsections);
  source_cache cache;
  memset(&cache, 0, sizeof cache);
  var_tracker *vars = o->locations ? calloc(1, sizeof *vars) : NULL;
  const amddwarf_line_table *last_table = NULL;
  uint32_t last_file = UINT32_MAX, last_line = UINT32_MAX;
  uint64_t printed = 0;
  int rc = CLI_EXIT_OK;
  bool found = false;
  if (o->locations && !vars) {
    fprintf(stderr, "amddwarf disasm: out of memory\n");
    return CLI_EXIT_BAD_INPUT;
  }
  for (int si = 0; si < nsections; si++) {
    const exec_section *sec = &sections[si];
    uint64_t lo = sec->address, hi = sec->address + sec->size;
    if (o->function) {
      const amddwarf_symbol *fs = NULL;
      size_t n = amddwarf_object_symbol_count(obj);
      for (size_t i = 0; i < n && !fs; i++) {
        const amddwarf_symbol *s = amddwarf_object_symbol(obj, i);
        if (s->section == sec->index && strcmp(s->name, o->function) == 0 &&
            (s->kind == AMDDWARF_SYMBOL_FUNCTION || s->kind == AMDDWARF_SYMBOL_KERNEL))
          fs = s;
      }
      if (!fs)
        continue;
      lo = fs->address;
      hi = fs->address + fs->size;
    } else if (o->have_pc) {
      if (o->pc < lo || o->pc >= hi)
        continue;
      lo = o->pc;
    }
    if (lo < sec->address || hi > sec->address + sec->size || lo > hi) {
      fprintf(stderr, "amddwarf disasm: range 0x%" PRIx64 "-0x%" PRIx64 " is outside %s\n", lo,
              hi, sec->name);
      rc = CLI_EXIT_BAD_INPUT;
      break;
    }
    found = true;
    printf("\nDisassembly of section %s:\n", sec->name);
    uint64_t pc = lo;
    while (pc < hi) {
      if (o->have_pc && !o->function && printed >= o->count)
        break;
      const amddwarf_symbol *sym = function_symbol_at(obj, sec->index, pc);
      if (sym)
        printf("\n%016" PRIx64 " <%s>:\n", pc, sym->name);
      if (o->source) {
        const amddwarf_line_table *table;
        const amddwarf_line_row *row;
        if (amddwarf_object_line_at(obj, pc, &table, &row) == AMDDWARF_OK &&
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
      }
      if (vars)
        report_locations(obj, vars, pc);
      char text[256];
      const uint8_t *bytes = disasm_bytes(dc, sec, pc);
      size_t len = disasm_one(dc, bytes, hi - pc, pc, text, sizeof text);
      if (len == 0) {
        printf("  %8" PRIx64 ":  <unknown>                  // %02x%02x%02x%02x\n", pc,
               bytes[3 < hi - pc ? 3 : 0], bytes[2 < hi - pc ? 2 : 0],
               bytes[1 < hi - pc ? 1 : 0], bytes[0]);
        len = hi - pc < 4 ? (size_t)(hi - pc) : 4;
      } else {
        printf("  %8" PRIx64 ":  %-50s //", pc, text);
        for (size_t i = 0; i + 4 <= len; i += 4)
          printf(" %02x%02x%02x%02x", bytes[i + 3], bytes[i + 2], bytes[i + 1], bytes[i]);
        printf("\n");
      }
      pc += len;
      printed++;
    }
    if (o->have_pc && !o->function)
      break;
  }
  if (rc == CLI_EXIT_OK && !found) {
    if (o->function)
      fprintf(stderr, "amddwarf disasm: no function named '%s'\n", o->function);
    else if (o->have_pc)
      fprintf(stderr, "amddwarf disasm: 0x%" PRIx64 " is not in an executable section\n", o->pc);
    else
      fprintf(stderr, "amddwarf disasm: the object has no executable section\n");
    rc = CLI_EXIT_BAD_INPUT;
  }
  free(cache.text);
  free(vars);
  return rc;
}

int cli_disasm_main(int argc, char **argv)
{
  const char *command = "disasm";
  const char *path = NULL, *pc_text = NULL, *count_text = NULL;
  disasm_opts o;
  memset(&o, 0, sizeof o);
  o.count = 16;
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_is_flag(argv[i], "--help") || cli_is_flag(argv[i], "-h")) {
      fputs(disasm_help, stdout);
      return CLI_EXIT_OK;
    }
    if (cli_is_flag(argv[i], "--source")) {
      o.source = true;
      continue;
    }
    if (cli_is_flag(argv[i], "--locations")) {
      o.locations = true;
      continue;
    }
    if ((r = cli_option_value(command, argc, argv, &i, "--function", &o.function)) != 0 ||
        (r = cli_option_value(command, argc, argv, &i, "--pc", &pc_text)) != 0 ||
        (r = cli_option_value(command, argc, argv, &i, "--count", &count_text)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      continue;
    }
    if (argv[i][0] == '-')
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    if (path)
      return cli_usage_error(command, "one object, please");
    path = argv[i];
  }
  if (!path)
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

  uint8_t *data = NULL;
  size_t size = 0;
  amddwarf_object *obj = NULL;
  disasm_context *dc = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  int rc = CLI_EXIT_OK;
  if (cli_read_file(command, path, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_status st = amddwarf_object_open_memory(data, size, NULL, &obj, &err);
  if (st != AMDDWARF_OK) {
    rc = cli_report_error(command, false, st, &err);
    goto done;
  }
  const amddwarf_object_info *info = amddwarf_object_get_info(obj);
  amddwarf_arch arch;
  st = amddwarf_arch_from_e_flags(info->e_flags, info->abi_version, &arch, &err);
  if (st != AMDDWARF_OK) {
    rc = cli_report_error(command, false, st, &err);
    goto done;
  }
  char error[256];
  if (!(dc = disasm_open(obj, error, sizeof error))) {
    fprintf(stderr, "amddwarf disasm: %s\n", error);
    rc = CLI_EXIT_BAD_INPUT;
    goto done;
  }
  printf("%s:\tfile format elf64-amdgpu (%s)\n", path, disasm_processor(dc));
  rc = disassemble(obj, dc, &o);
done:
  disasm_close(dc);
  amddwarf_object_close(obj);
  free(data);
  return rc;
}

#endif
