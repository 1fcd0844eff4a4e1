/* Helpers shared by the code-object subcommands. */
#include <stdlib.h>
#include <string.h>

#include <amddwarf/container.h>

#include "object_cli.h"

int cli_object_arg(const char *command, const char *usage, int argc, char **argv, int *i,
                   cli_object_args *args, const cli_option *table, size_t count)
{
  bool no_quirks = false;
  const cli_option common[] = {
      CLI_FLAG("--json", &args->json), CLI_FLAG("--no-quirks", &no_quirks),
      CLI_VALUE("--convention", &args->convention), CLI_VALUE("--dialect", &args->dialect)};
  int rc = cli_table_arg(command, argc, argv, i, CLI_OPTIONS(common));
  if (no_quirks)
    args->flags |= AMDDWARF_OBJECT_NO_QUIRKS;
  return rc != 0 ? rc : cli_select_arg(command, usage, argc, argv, i, args, table, count);
}

int cli_select_arg(const char *command, const char *usage, int argc, char **argv, int *i,
                   cli_object_args *args, const cli_option *table, size_t count)
{
  if (cli_help_arg(argv[*i], usage))
    return CLI_ARG_HELP;
  int rc = cli_object_select_arg(command, argc, argv, i, args);
  return rc != 0 ? rc : cli_table_arg(command, argc, argv, i, table, count);
}

int cli_object_scan(const char *command, const char *usage, int argc, char **argv,
                    cli_object_args *args, const cli_option *table, size_t count)
{
  for (int i = 1; i < argc; ++i) {
    int taken = cli_object_arg(command, usage, argc, argv, &i, args, table, count);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return CLI_ARG_EXIT(taken);
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    if (args->path != NULL)
      return cli_usage_error(command, "more than one OBJECT");
    args->path = argv[i];
  }
  return -1;
}

int cli_object_select_arg(const char *command, int argc, char **argv, int *i,
                          cli_object_args *args)
{
  const cli_option choice[] = {CLI_VALUE("--target", &args->target),
                               CLI_VALUE("--object", &args->object)};
  return cli_table_arg(command, argc, argv, i, CLI_OPTIONS(choice));
}

/* Lists the code objects of INPUT that SELECTION leaves, each with the
   option that selects it, after the one-line error. */
static int report_ambiguous(const char *command, const cli_object_args *args,
                            amddwarf_container *c, const amddwarf_error *err)
{
  fprintf(stderr, "amddwarf %s: error: %s (%s)\n", command, err->message,
          amddwarf_status_name(err->status));
  amddwarf_target_id want;
  bool has_target = args->target != NULL &&
                    amddwarf_target_id_parse(args->target, SIZE_MAX, &want, NULL) == AMDDWARF_OK;
  fprintf(stderr, "candidates:\n");
  for (size_t i = 0; i < amddwarf_container_count(c); ++i) {
    const amddwarf_container_entry *e = amddwarf_container_entry_at(c, i);
    if (has_target && !amddwarf_target_id_matches(&want, &e->target))
      continue;
    fprintf(stderr, "  --object %-4u %-40s target %s%s%s\n", e->index, e->entry_id,
            e->target_id[0] ? e->target_id : "?", e->uri ? "  " : "", e->uri ? e->uri : "");
  }
  return CLI_EXIT_USAGE;
}

int cli_object_options(const char *command, const cli_object_args *args,
                       amddwarf_object_options *options, amddwarf_selection *selection)
{
  amddwarf_object_options_init(options);
  if (args->convention != NULL &&
      amddwarf_convention_from_name(args->convention, &options->convention) != AMDDWARF_OK)
    return cli_usage_error(command, "unknown --convention '%s' (auto, legacy, extension)",
                           args->convention);
  if (args->dialect != NULL &&
      amddwarf_dialect_from_name(args->dialect, &options->dialect) != AMDDWARF_OK)
    return cli_usage_error(command, "unknown --dialect '%s' (auto, draft, vendor, user)",
                           args->dialect);
  options->flags = args->flags;
  *selection = (amddwarf_selection){args->target, -1};
  uint64_t index = 0;
  if (args->object != NULL &&
      (cli_parse_u64(args->object, &index) != 0 || index > INT64_MAX))
    return cli_usage_error(command, "--object '%s' is not a code object number", args->object);
  if (args->object != NULL)
    selection->index = (int64_t)index;
  return 0;
}

int cli_object_open(const char *command, cli_object_args *args, amddwarf_object **out)
{
  amddwarf_object_options options;
  amddwarf_selection selection;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  int options_rc = cli_object_options(command, args, &options, &selection);
  if (options_rc != 0)
    return options_rc;
  amddwarf_target_id want;
  if (args->target != NULL &&
      amddwarf_target_id_parse(args->target, SIZE_MAX, &want, &err) != AMDDWARF_OK)
    return cli_usage_error(command, "--target: %s", err.message);
  amddwarf_container *c = NULL;
  amddwarf_status st;
  if (strcmp(args->path, "-") == 0) {
    size_t size = 0;
    if (cli_read_input(command, args->json, args->path, &args->data, &size) != 0)
      return CLI_EXIT_BAD_INPUT;
    st = amddwarf_container_open_memory(args->data, size, "<stdin>", NULL, &c, &err);
  } else {
    st = amddwarf_container_open_input(args->path, NULL, &c, &err);
  }
  if (st == AMDDWARF_OK)
    st = amddwarf_object_open_container(c, args->path, &selection, &options, out, &err);
  int rc = 0;
  if (st == AMDDWARF_E_CONTAINER_AMBIGUOUS)
    rc = report_ambiguous(command, args, c, &err);
  else if (st != AMDDWARF_OK)
    rc = cli_report_error(command, args->json, st, &err);
  amddwarf_container_close(c);
  if (rc != 0) {
    free(args->data);
    args->data = NULL;
  }
  return rc;
}

void cli_object_close(cli_object_args *args, amddwarf_object *object)
{
  amddwarf_object_close(object);
  free(args->data);
  args->data = NULL;
}

void cli_buf_lane_value(text_buf *b, const amddwarf_lane_value *value, unsigned flags)
{
  size_t n = amddwarf_lane_value_describe(value, flags, NULL, 0);
  if (text_buf_reserve(b, n) == 0)
    b->len += amddwarf_lane_value_describe(value, flags, b->data + b->len, n + 1);
}

void cli_buf_value(text_buf *b, amddwarf_status st, amddwarf_valobj *value, uint32_t lane,
                   amddwarf_error *err)
{
  amddwarf_lane_value read;
  if (st == AMDDWARF_OK)
    st = amddwarf_valobj_read(value, lane, &read, err);
  if (st == AMDDWARF_OK)
    cli_buf_lane_value(b, &read, 0);
  else
    text_buf_printf(b, "<error: %s (%s)>", err->message, amddwarf_status_name(st));
}

/* One of the library's lane tables: a wave's (VALUE NULL) or VALUE's LANES. */
typedef struct lanes_table {
  amddwarf_wave *wave;
  amddwarf_valobj *value;
  uint64_t lanes;
  unsigned flags;
} lanes_table;

static amddwarf_status make_table(const lanes_table *t, char *buf, size_t size, size_t *length,
                                  amddwarf_error *err)
{
  return t->value != NULL
             ? amddwarf_valobj_lanes_table(t->value, t->lanes, t->flags, buf, size, length, err)
             : amddwarf_wave_lanes_table(t->wave, buf, size, length, err);
}

/* Appends T, made once into room for 64 rows of a scalar; a longer table
   (values with explanations, aggregates) is made again at its length. */
static amddwarf_status append_table(text_buf *b, const lanes_table *t, amddwarf_error *err)
{
  size_t n = 0;
  if (text_buf_reserve(b, 8192) != 0)
    return AMDDWARF_E_NO_MEMORY;
  size_t room = b->cap - b->len;
  amddwarf_status st = make_table(t, b->data + b->len, room, &n, err);
  if (st == AMDDWARF_OK && n >= room && text_buf_reserve(b, n) != 0)
    st = AMDDWARF_E_NO_MEMORY;
  else if (st == AMDDWARF_OK && n >= room)
    st = make_table(t, b->data + b->len, n + 1, NULL, err);
  if (st == AMDDWARF_OK)
    b->len += n;
  else if (b->data != NULL)
    b->data[b->len] = '\0'; /* nothing appended */
  return st;
}

amddwarf_status cli_buf_wave_lanes(text_buf *b, amddwarf_wave *wave, amddwarf_error *err)
{
  return append_table(b, &(lanes_table){.wave = wave}, err);
}

amddwarf_status cli_buf_value_lanes(text_buf *b, amddwarf_valobj *value, uint64_t lanes,
                                    unsigned flags, amddwarf_error *err)
{
  return append_table(b, &(lanes_table){.value = value, .lanes = lanes, .flags = flags}, err);
}

amddwarf_status cli_buf_expr(text_buf *b, const amddwarf_cu *cu, const uint8_t *bytes,
                             size_t size)
{
  size_t length = 0;
  amddwarf_status st = amddwarf_expr_spell(&cu->format, bytes, size, NULL, 0, &length);
  if (st == AMDDWARF_E_NO_MEMORY || text_buf_reserve(b, length) != 0)
    return AMDDWARF_E_NO_MEMORY;
  st = amddwarf_expr_spell(&cu->format, bytes, size, b->data + b->len, length + 1, &length);
  b->len += length;
  return st;
}

void cli_buf_loc_entry(text_buf *b, const amddwarf_cu *cu, const amddwarf_loc_entry *entry)
{
  if (entry->is_default)
    text_buf_printf(b, "<default>: ");
  else
    text_buf_printf(b, "[0x%016llx, 0x%016llx): ", (unsigned long long)entry->low,
                   (unsigned long long)entry->high);
  cli_buf_expr(b, cu, entry->expr, entry->size);
}

void cli_buf_location(text_buf *b, const amddwarf_cu *cu, const amddwarf_attr_value *value)
{
  if (value->kind == AMDDWARF_ATTR_EXPR) {
    cli_buf_expr(b, cu, value->bytes, value->size);
    return;
  }
  if (value->kind != AMDDWARF_ATTR_LIST) {
    text_buf_printf(b, "0x%llx", (unsigned long long)value->u);
    return;
  }
  text_buf_printf(b, "0x%llx: ", (unsigned long long)value->offset);
  for (size_t i = 0; i < value->count; ++i) {
    if (i)
      text_buf_printf(b, ", ");
    cli_buf_loc_entry(b, cu, &value->entries[i]);
  }
}

/* [{"op", "operands"}...] of the operations that decode. */
static json_t *ops_json(const amddwarf_cu *cu, const uint8_t *bytes, size_t size)
{
  json_t *list = json_array();
  size_t count = 0;
  amddwarf_op *ops = size ? calloc(size, sizeof *ops) : NULL;
  if (ops == NULL)
    return list;
  amddwarf_expr_decode(bytes, size, &cu->format, ops, size, &count, NULL);
  for (size_t i = 0; i < count; ++i)
    json_array_append_new(list, cli_json_op(&ops[i], false));
  free(ops);
  return list;
}

/* The DW_LLE_* name of a location list entry's KIND. */
static json_t *entry_kind_json(uint8_t kind)
{
  static const char *const names[] = {
      "DW_LLE_end_of_list",   "DW_LLE_base_addressx", "DW_LLE_startx_endx",
      "DW_LLE_startx_length", "DW_LLE_offset_pair",   "DW_LLE_default_location",
      "DW_LLE_base_address",  "DW_LLE_start_end",     "DW_LLE_start_length",
  };
  if (kind == 0xff) /* a DWARF 4 .debug_loc (begin, end) pair */
    return json_string("dwarf4_pair");
  return cli_json_code(kind < sizeof names / sizeof names[0] ? names[kind] : NULL, kind);
}

json_t *cli_json_expr(const amddwarf_cu *cu, const uint8_t *bytes, size_t size)
{
  text_buf b = {0};
  json_t *o = json_object();
  amddwarf_status st = cli_buf_expr(&b, cu, bytes, size);
  json_object_set_new(o, "expr", json_string(b.data ? b.data : ""));
  json_object_set_new(o, "hex", cli_json_hex(bytes, size));
  json_object_set_new(o, "ops", ops_json(cu, bytes, size));
  if (st != AMDDWARF_OK)
    json_object_set_new(o, "status", json_string(amddwarf_status_name(st)));
  text_buf_free(&b);
  return o;
}

json_t *cli_json_location(const amddwarf_cu *cu, const amddwarf_attr_value *value)
{
  if (value->kind == AMDDWARF_ATTR_EXPR)
    return cli_json_expr(cu, value->bytes, value->size);
  json_t *o = json_object();
  if (value->kind != AMDDWARF_ATTR_LIST) {
    json_object_set_new(o, "constant", json_integer((json_int_t)value->u));
    return o;
  }
  json_t *list = json_array();
  for (size_t i = 0; i < value->count; ++i) {
    const amddwarf_loc_entry *e = &value->entries[i];
    json_t *entry = cli_json_expr(cu, e->expr, e->size);
    json_object_set_new(entry, "entry_offset", cli_json_addr(e->offset));
    json_object_set_new(entry, "kind", entry_kind_json(e->kind));
    if (e->is_default) {
      json_object_set_new(entry, "default", json_true());
    } else {
      json_object_set_new(entry, "low", cli_json_addr(e->low));
      json_object_set_new(entry, "high", cli_json_addr(e->high));
    }
    json_array_append_new(list, entry);
  }
  json_object_set_new(o, "offset", cli_json_addr(value->offset));
  json_object_set_new(o, "list", list);
  return o;
}

int cli_report_no_scope(const char *command, bool json, const amddwarf_object *object,
                        const char *path, uint64_t pc, amddwarf_status status)
{
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  size_t unit = 0;
  if (status != AMDDWARF_NOT_FOUND && amddwarf_object_pc_unit(object, pc, &unit) == AMDDWARF_OK) {
    status = amddwarf_object_load_unit(object, unit, &err);
    if (status != AMDDWARF_OK)
      return cli_report_error(command, json, status, &err);
  }
  return cli_report(command, json, AMDDWARF_NOT_FOUND, "no subprogram of %s contains pc 0x%llx",
                    path, (unsigned long long)pc);
}
