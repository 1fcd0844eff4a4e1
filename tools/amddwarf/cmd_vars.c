/* amddwarf vars: every variable and parameter in scope at a PC, with the
 * location expression that applies there. */
#include <stdlib.h>
#include <string.h>

#include "wave_cli.h"

static const char *const usage =
    "usage: amddwarf vars OBJECT --pc ADDR [--json] [--convention C] [--dialect D]\n"
    "       amddwarf vars [OBJECT] --state SNAPSHOT [--frame N] [--pc ADDR] [--json]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Lists the variables and parameters visible at the code address ADDR of\n"
    "an AMDGPU code object, innermost scope first (lexical blocks, inlined\n"
    "subroutines, the subprogram, then the unit's globals), each with its type,\n"
    "its declaration and the location expression that applies at ADDR: the\n"
    "DW_AT_location expression, or the entry of its location list whose\n"
    "[low, high) range contains ADDR. A variable whose list has no entry for\n"
    "ADDR is <optimized out>. The frame base of the subprogram is shown too.\n"
    "Addresses are those of the object (section-relative in a .o file).\n"
    "\n"
    "  --pc ADDR        code address (decimal or 0x hex)\n"
    "  --state SNAPSHOT a wave snapshot (specs/snapshot.md): list the variables\n"
    "                   of one of its frames, at the PC of that frame (the call\n"
    "                   site, PC - 1, in callers); inlined subroutines are frames\n"
    "                   of their own, as in a debugger's backtrace. A snapshot\n"
    "                   listing its code_objects (URIs and load addresses) has\n"
    "                   process addresses and needs no OBJECT; OBJECT given is\n"
    "                   read in place of the files its URIs name\n"
    "  --frame N        the frame (default 0, the innermost), unwound with the\n"
    "                   object's call frame information; with --state each\n"
    "                   variable's value in the snapshot's lane is shown too,\n"
    "                   shadowed ones included, as amddwarf eval prints it\n"
    "  --json           JSON output\n"
    "  --convention C   auto, legacy or extension (see amddwarf dump)\n"
    "  --no-quirks      read locations as written: no producer quirk\n"
    "  --dialect D      auto, draft, vendor or user\n"
    "\n"
    "example: amddwarf vars kernel.o --pc 0x2d4\n";

#define MAX_SCOPES 256

static const char *var_kind(const amddwarf_die_fields *d)
{
  return d->tag == AMDDWARF_DW_TAG_formal_parameter ? "parameter" : "variable";
}

static int print_range(void *user, const amddwarf_range *range)
{
  text_buf_printf(user, " [0x%llx, 0x%llx)", (unsigned long long)range->low,
                 (unsigned long long)range->high);
  return 0;
}

static void describe_scope(text_buf *b, const amddwarf_object *object,
                           const amddwarf_die_fields *s)
{
  const char *tag = amddwarf_dw_tag_name(s->tag);
  text_buf_printf(b, "%s", tag ? tag : "DW_TAG_?");
  if (s->name)
    text_buf_printf(b, " %s", s->name);
  amddwarf_object_die_ranges(object, s->die, print_range, b, NULL);
  if (s->tag == AMDDWARF_DW_TAG_inlined_subroutine && s->call_line)
    text_buf_printf(b, " called at line %u column %u", s->call_line, s->call_column);
}

/* SCOPE's frame base at PC: 1 with *BYTES and *SIZE, 0 when it has none there
   (*PRESENT: whether it has a DW_AT_frame_base at all). */
static int scope_frame_base(const amddwarf_object *object, amddwarf_die_ref scope, uint64_t pc,
                            const uint8_t **bytes, size_t *size, bool *present)
{
  amddwarf_attribute a;
  *present = amddwarf_object_die_attribute(object, scope, AMDDWARF_DW_AT_frame_base, 0, &a,
                                           NULL) == AMDDWARF_OK;
  return *present && amddwarf_object_die_expr_at(object, scope, AMDDWARF_DW_AT_frame_base, pc,
                                                 bytes, size, NULL, NULL) == AMDDWARF_OK;
}

static const char *decl_file_name(const amddwarf_object *object, const amddwarf_die_fields *d)
{
  const amddwarf_line_table *t = amddwarf_object_line_table(object, d->die.cu_index);
  if (t == NULL || d->decl_file >= t->file_count)
    return NULL;
  return t->files[d->decl_file];
}

/* A constant as a value of its variable's type (amddwarf_const_value_text). */
static void const_value_text(text_buf *b, const amddwarf_object *object, amddwarf_die_ref die)
{
  size_t n = amddwarf_const_value_text(object, die, NULL, 0);
  if (text_buf_reserve(b, n) == 0)
    b->len += amddwarf_const_value_text(object, die, b->data + b->len, n + 1);
}

/* The frame whose variables' values are shown (vars --state), or none. */
typedef struct frame_values {
  amddwarf_wave *wave;
  size_t frame;
  uint64_t pc;          /* the frame's PC as shown: a process address when loaded */
  /* The frame's source position as the layer gives it (amddwarf_frame):
     an outer frame of an inline chain is at its call site, as `lines` and
     the debug adapter show it. */
  const char *file;
  uint32_t line, column;
  /* The frame's list (amddwarf_wave_frame_variables): it adds the variables
     an inlined routine declares only in its abstract origin. */
  const amddwarf_listed_variable *listed;
  size_t listed_count;
} frame_values;

/* "  variable x: int (declared at k.cl:3)" */
static void print_head(const amddwarf_object *object, const amddwarf_die_fields *die)
{
  char type[256];
  amddwarf_type_name(object, die->type, type, sizeof type, NULL);
  const char *decl_file = decl_file_name(object, die);
  printf("  %s %s: %s", var_kind(die), die->name ? die->name : "<unnamed>", type);
  if (die->decl_line)
    printf(" (declared at %s:%u)", decl_file ? decl_file : "?", die->decl_line);
  printf("\n");
}

/* Name, kind, type, offset, scope and decl_line of DIE in SCOPE. */
static json_t *head_json(const amddwarf_object *object, const amddwarf_die_fields *die,
                         size_t scope)
{
  char type[256];
  amddwarf_type_name(object, die->type, type, sizeof type, NULL);
  return json_pack("{s:o,s:s,s:s,s:o,s:I,s:I}", "name",
                   die->name ? json_string(die->name) : json_null(), "kind", var_kind(die),
                   "type", type, "offset", cli_json_addr(die->die.offset), "scope",
                   (json_int_t)scope, "decl_line", (json_int_t)die->decl_line);
}

/* The source position of the listing: the frame's (FV), else the line row at PC. */
static bool listing_place(const amddwarf_object *object, uint64_t pc, const frame_values *fv,
                          const char **file, uint32_t *line, uint32_t *column)
{
  const amddwarf_line_table *table = NULL;
  amddwarf_line_row row;
  if (fv != NULL) {
    *file = fv->file;
    *line = fv->line;
    *column = fv->column;
    return fv->file != NULL;
  }
  if (amddwarf_object_line_at(object, pc, &table, &row) != AMDDWARF_OK)
    return false;
  *file = row.file < table->file_count ? table->files[row.file] : NULL;
  *line = row.line;
  *column = row.column;
  return true;
}

/* One listed variable: its DIE's fields (type, name, declaration,
   constant) and its location at the PC; FRAME_VAR, the wave's variable its
   value is read from (vars --state), or NULL. */
typedef struct var_row {
  amddwarf_die_fields die;
  uint32_t depth;
  int available;
  const uint8_t *expr;
  size_t size;
  int has_range;          /* the location comes from a bounded list entry */
  uint64_t low, high;
  const amddwarf_frame_var *frame_var;
} var_row;

/* The row of variable V (and, with a wave, its frame variable FV). */
static amddwarf_status var_row_make(const amddwarf_object *object, const amddwarf_var_ref *v,
                                    const amddwarf_frame_var *fv, var_row *row,
                                    amddwarf_error *err)
{
  *row = (var_row){.depth = v->depth,
                   .available = v->available,
                   .expr = v->expr,
                   .size = v->size,
                   .has_range = v->from_list && !v->entry.is_default,
                   .low = v->entry.low,
                   .high = v->entry.high,
                   .frame_var = fv};
  return amddwarf_object_die_fields(object, v->die, &row->die, err);
}

/* VAR's value in the focused lane, as amddwarf eval prints one lane: made
   from VAR itself, so a variable an inner one shadows shows its own. */
static void var_value_text(const frame_values *fv, const amddwarf_frame_var *var, text_buf *out)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_valobj_new_var(fv->wave, fv->frame, var, NULL, &value, &err);
  cli_buf_value(out, st, value, AMDDWARF_NO_LANE, &err);
  amddwarf_valobj_free(value);
}

static int vars_text(const amddwarf_object *object, uint64_t pc,
                     const amddwarf_die_ref *scopes, size_t depth, size_t base,
                     const var_row *vars, size_t count, const frame_values *fv)
{
  text_buf b = {0};
  const char *file = NULL;
  uint32_t line = 0, column = 0;
  printf("pc 0x%llx", (unsigned long long)(fv != NULL ? fv->pc : pc));
  if (listing_place(object, pc, fv, &file, &line, &column))
    printf(": %s:%u:%u", file ? file : "?", line, column);
  printf("\n");
  size_t v = 0;
  for (size_t s = 0; s < depth; ++s) {
    amddwarf_die_fields scope;
    const uint8_t *bytes = NULL;
    size_t size = 0;
    bool has_frame_base = false;
    amddwarf_object_die_fields(object, scopes[s], &scope, NULL);
    const amddwarf_cu *cu = amddwarf_object_cu(object, scopes[s].cu_index);
    b.len = 0;
    describe_scope(&b, object, &scope);
    printf("scope %zu: %s\n", s, b.data ? b.data : "");
    b.len = 0;
    if (scope_frame_base(object, scopes[s], pc, &bytes, &size, &has_frame_base))
      cli_buf_expr(&b, cu, bytes, size);
    if (has_frame_base)
      printf("  frame base: %s\n", b.len ? b.data : "<unavailable>");
    for (; v < count && vars[v].depth == base + s; ++v) {
      const var_row *var = &vars[v];
      print_head(object, &var->die);
      b.len = 0;
      if (var->die.const_value.kind != AMDDWARF_ATTR_NONE) {
        const_value_text(&b, object, var->die.die);
        printf("    const value: %s\n", b.data ? b.data : "");
      } else if (var->available) {
        cli_buf_expr(&b, cu, var->expr, var->size);
        if (var->has_range)
          printf("    location [0x%llx, 0x%llx): %s\n", (unsigned long long)var->low,
                 (unsigned long long)var->high, b.len ? b.data : "<empty: optimized out>");
        else
          printf("    location: %s\n", b.len ? b.data : "<empty: optimized out>");
        amddwarf_quirk q =
            amddwarf_object_expr_quirk(object, cu, AMDDWARF_ROLE_LOCATION, var->expr, var->size);
        if (q != AMDDWARF_QUIRK_NONE)
          printf("    read through producer quirk %s: %s\n", amddwarf_quirk_get(q)->name,
                 amddwarf_quirk_get(q)->reading);
      } else {
        printf("    location: <optimized out>\n");
      }
      if (fv != NULL && var->die.name != NULL) {
        b.len = 0;
        var_value_text(fv, var->frame_var, &b);
        printf("    value: %s\n", b.data ? b.data : "");
      }
    }
    /* The variables only an inlined routine's abstract origin declares. */
    for (size_t k = 0; fv != NULL && k < fv->listed_count; ++k) {
      amddwarf_die_fields die;
      if (fv->listed[k].missing != NULL && fv->listed[k].scope == s &&
          amddwarf_object_die_fields(object, fv->listed[k].die, &die, NULL) == AMDDWARF_OK) {
        print_head(object, &die);
        printf("    location: <optimized out> (%s)\n    value: <optimized out>\n",
               fv->listed[k].missing);
      }
    }
  }
  text_buf_free(&b);
  return CLI_EXIT_OK;
}

static int add_range_json(void *user, const amddwarf_range *range)
{
  json_t *pair = json_array();
  json_array_append_new(pair, cli_json_addr(range->low));
  json_array_append_new(pair, cli_json_addr(range->high));
  json_array_append_new(user, pair);
  return 0;
}

static int vars_json(const amddwarf_object *object, uint64_t pc,
                     const amddwarf_die_ref *scopes, size_t depth, size_t base,
                     const var_row *vars, size_t count, const frame_values *fv)
{
  json_t *root = json_object();
  const char *file = NULL;
  uint32_t line_number = 0, column = 0;
  json_object_set_new(root, "pc", cli_json_addr(fv != NULL ? fv->pc : pc));
  if (listing_place(object, pc, fv, &file, &line_number, &column)) {
    json_t *line = json_object();
    json_object_set_new(line, "file", file ? json_string(file) : json_null());
    json_object_set_new(line, "line", json_integer(line_number));
    json_object_set_new(line, "column", json_integer(column));
    json_object_set_new(root, "line", line);
  } else {
    json_object_set_new(root, "line", json_null());
  }
  json_t *js = json_array();
  for (size_t s = 0; s < depth; ++s) {
    amddwarf_die_fields scope;
    amddwarf_object_die_fields(object, scopes[s], &scope, NULL);
    const amddwarf_cu *cu = amddwarf_object_cu(object, scopes[s].cu_index);
    json_t *o = json_object();
    json_object_set_new(o, "offset", cli_json_addr(scopes[s].offset));
    json_object_set_new(o, "tag", cli_json_code(amddwarf_dw_tag_name(scope.tag), scope.tag));
    json_object_set_new(o, "name", scope.name ? json_string(scope.name) : json_null());
    json_t *ranges = json_array();
    amddwarf_object_die_ranges(object, scopes[s], add_range_json, ranges, NULL);
    json_object_set_new(o, "ranges", ranges);
    const uint8_t *bytes = NULL;
    size_t size = 0;
    bool has_frame_base = false;
    if (scope_frame_base(object, scopes[s], pc, &bytes, &size, &has_frame_base))
      json_object_set_new(o, "frame_base", cli_json_expr(cu, bytes, size));
    json_array_append_new(js, o);
  }
  json_object_set_new(root, "scopes", js);
  json_t *jv = json_array();
  for (size_t v = 0; v < count; ++v) {
    const var_row *var = &vars[v];
    const amddwarf_cu *cu = amddwarf_object_cu(object, var->die.die.cu_index);
    json_t *o = head_json(object, &var->die, var->depth - base);
    if (var->die.const_value.kind != AMDDWARF_ATTR_NONE) {
      text_buf b = {0};
      const_value_text(&b, object, var->die.die);
      json_object_set_new(o, "const_value", json_string(b.data ? b.data : ""));
      text_buf_free(&b);
    } else if (var->available) {
      json_t *loc = cli_json_expr(cu, var->expr, var->size);
      if (var->has_range) {
        json_object_set_new(loc, "low", cli_json_addr(var->low));
        json_object_set_new(loc, "high", cli_json_addr(var->high));
      }
      json_object_set_new(o, "location", loc);
      amddwarf_quirk q =
          amddwarf_object_expr_quirk(object, cu, AMDDWARF_ROLE_LOCATION, var->expr, var->size);
      json_object_set_new(o, "quirk", q != AMDDWARF_QUIRK_NONE
                                          ? json_string(amddwarf_quirk_get(q)->name)
                                          : json_null());
    } else {
      json_object_set_new(o, "location", json_null());
    }
    if (fv != NULL && var->die.name != NULL) {
      text_buf b = {0};
      var_value_text(fv, var->frame_var, &b);
      json_object_set_new(o, "value", json_string(b.data ? b.data : ""));
      text_buf_free(&b);
    }
    json_array_append_new(jv, o);
  }
  for (size_t k = 0; fv != NULL && k < fv->listed_count; ++k) {
    const amddwarf_listed_variable *m = &fv->listed[k];
    amddwarf_die_fields die;
    if (m->missing == NULL ||
        amddwarf_object_die_fields(object, m->die, &die, NULL) != AMDDWARF_OK)
      continue;
    json_t *o = head_json(object, &die, m->scope);
    json_object_set_new(o, "location", json_null());
    json_object_set_new(o, "missing", json_string(m->missing));
    json_object_set_new(o, "value", json_string("<optimized out>"));
    json_array_append_new(jv, o);
  }
  json_object_set_new(root, "vars", jv);
  cli_print_json(root);
  return CLI_EXIT_OK;
}

/* vars --state: the variables of one frame of the wave in SNAPSHOT. */
static int frame_vars(cli_object_args *args, const char *state, const char *pc_text,
                      uint64_t frame_index)
{
  cli_wave w;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  var_row *rows = NULL;
  int rc = cli_wave_load("vars", args, state, &w);
  if (rc != 0)
    goto done;
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  if (pc_text != NULL && cli_parse_u64(pc_text, &options.pc) != 0) {
    rc = cli_usage_error("vars", "--pc '%s' is not a number", pc_text);
    goto done;
  }
  options.has_pc = pc_text != NULL;
  const amddwarf_frame *frame = NULL;
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  if ((rc = cli_wave_start("vars", args->json, &w, &options)) != 0)
    goto done;
  rc = CLI_EXIT_BAD_INPUT;
  if ((st = amddwarf_wave_frame(w.wave, (size_t)frame_index, &frame, &err)) != AMDDWARF_OK ||
      (st = amddwarf_wave_variables(w.wave, (size_t)frame_index, &vars, &count, &err)) !=
          AMDDWARF_OK) {
    if (st == AMDDWARF_END)
      cli_error_printf(&err, st = AMDDWARF_NOT_FOUND, "the wave has no frame %llu",
                       (unsigned long long)frame_index);
    rc = cli_report_error("vars", args->json, st, &err);
    goto done;
  }
  /* The frame's own object: the one its PC lies in. */
  const amddwarf_object *object = frame->object ? frame->object : w.objects[0];
  if (!amddwarf_die_ref_valid(frame->function)) {
    rc = cli_report_no_scope("vars", args->json, object,
                             args->path ? args->path : "the code object", frame->lookup_pc,
                             AMDDWARF_NOT_FOUND);
    goto done;
  }
  frame_values fv = {w.wave, (size_t)frame_index, frame->lookup_pc,
                     frame->file, frame->line, frame->column, NULL, 0};
  if ((st = amddwarf_wave_frame_variables(w.wave, (size_t)frame_index, &fv.listed,
                                          &fv.listed_count, &err)) != AMDDWARF_OK) {
    rc = cli_report_error("vars", args->json, st, &err);
    goto done;
  }
  size_t depth = frame->scope_count < MAX_SCOPES ? frame->scope_count : MAX_SCOPES;
  rows = calloc(count ? count : 1, sizeof *rows);
  if (rows == NULL) {
    rc = cli_report_error("vars", args->json, AMDDWARF_E_NO_MEMORY, NULL);
    goto done;
  }
  for (size_t i = 0; i < count; ++i) {
    if ((st = var_row_make(object, &vars[i].ref, &vars[i], &rows[i], &err)) != AMDDWARF_OK) {
      rc = cli_report_error("vars", args->json, st, &err);
      goto done;
    }
  }
  rc = args->json ? vars_json(object, frame->object_pc, frame->scopes, depth, frame->scope_base,
                              rows, count, &fv)
                  : vars_text(object, frame->object_pc, frame->scopes, depth, frame->scope_base,
                              rows, count, &fv);
done:
  free(rows);
  cli_wave_close(&w);
  return rc;
}

int cli_vars_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *pc_text = NULL, *state = NULL, *frame_text = NULL;
  const cli_option options[] = {CLI_VALUE("--pc", &pc_text), CLI_VALUE("--state", &state),
                                CLI_VALUE("--frame", &frame_text)};
  int scanned = cli_object_scan("vars", usage, argc, argv, &args, CLI_OPTIONS(options));
  if (scanned >= 0)
    return scanned;
  uint64_t pc = 0, frame = 0;
  /* A snapshot that lists its code objects names them itself. */
  if (args.path == NULL && state == NULL)
    return cli_usage_error("vars", "missing OBJECT");
  if (frame_text != NULL && (cli_parse_u64(frame_text, &frame) != 0 || frame > 100000))
    return cli_usage_error("vars", "--frame '%s' is not a frame number", frame_text);
  if (frame_text != NULL && state == NULL)
    return cli_usage_error("vars", "--frame needs --state SNAPSHOT (outer frames are unwound)");
  if (state != NULL)
    return frame_vars(&args, state, pc_text, frame);
  if (pc_text == NULL)
    return cli_usage_error("vars", "missing --pc ADDR (or --state SNAPSHOT)");
  if (cli_parse_u64(pc_text, &pc) != 0)
    return cli_usage_error("vars", "--pc '%s' is not a number", pc_text);
  amddwarf_object *object = NULL;
  int rc = cli_object_open("vars", &args, &object);
  if (rc != 0)
    return rc;
  amddwarf_die_ref scopes[MAX_SCOPES];
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  size_t depth = 0, count = 0;
  amddwarf_status st = amddwarf_object_scope_refs_at(object, pc, scopes, MAX_SCOPES, &depth, &err);
  if (st != AMDDWARF_OK) {
    rc = st == AMDDWARF_NOT_FOUND ? cli_report_no_scope("vars", args.json, object, args.path, pc, st)
                                  : cli_report_error("vars", args.json, st, &err);
    cli_object_close(&args, object);
    return rc;
  }
  if (depth > MAX_SCOPES)
    depth = MAX_SCOPES;
  amddwarf_object_var_refs_at(object, pc, NULL, 0, &count, NULL);
  amddwarf_var_ref *vars = calloc(count ? count : 1, sizeof *vars);
  var_row *rows = calloc(count ? count : 1, sizeof *rows);
  if (vars == NULL || rows == NULL)
    st = AMDDWARF_E_NO_MEMORY;
  else
    st = amddwarf_object_var_refs_at(object, pc, vars, count, &count, &err);
  for (size_t i = 0; st == AMDDWARF_OK && i < count; ++i)
    st = var_row_make(object, &vars[i], NULL, &rows[i], &err);
  if (st != AMDDWARF_OK)
    rc = cli_report_error("vars", args.json, st, st == AMDDWARF_E_NO_MEMORY ? NULL : &err);
  else
    rc = args.json ? vars_json(object, pc, scopes, depth, 0, rows, count, NULL)
                   : vars_text(object, pc, scopes, depth, 0, rows, count, NULL);
  free(rows);
  free(vars);
  cli_object_close(&args, object);
  return rc;
}
