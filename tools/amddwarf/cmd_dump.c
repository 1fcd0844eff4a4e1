/* amddwarf dump: a code object's ISA, metadata, units with their detected
 * conventions, and every DIE with its attributes and decoded expressions. */
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"

static const char *const usage =
    "usage: amddwarf dump OBJECT [--json] [--libdwarf] [--no-quirks] [--convention C]\n"
    "                     [--dialect D]\n"
    "\n"
    CLI_OBJECT_SELECT_HELP
    "\n"
    "Prints what amddwarf reads from an AMDGPU code object (a relocatable .o\n"
    "or a linked .so/.hsaco): the ELF type and code object version, the ISA\n"
    "from e_flags (processor, xnack, sramecc, default wave size), the kernels\n"
    "of the NT_AMDGPU_METADATA note with their register counts, the function\n"
    "and object symbols (a C++ name with its demangled form, as llvm-symbolizer\n"
    "shows it), and then each\n"
    "DWARF compilation unit with the convention its locations are read with\n"
    "(specs/conventions.md), followed by every DIE and its attributes, with\n"
    "location expressions and location lists decoded.\n"
    "\n"
    "  --json            one JSON document instead of text\n"
    "  --convention C    read every unit as C: auto (detect), legacy, extension\n"
    "  --no-quirks       read every location as written: no producer quirk (the\n"
    "                    convention line lists the quirks a unit's producer has)\n"
    "  --dialect D       decode extension operations as D: auto, draft, vendor, user\n"
    "  --libdwarf        list attributes as libdwarf decodes them (a cross-check of\n"
    "                    the library's own reader; not for untrusted objects)\n"
    "\n"
    "Relocations of .o files are applied before reading. Exit status: 0, 1 when\n"
    "the object cannot be read, 2 for a usage error.\n"
    "\n"
    "example: amddwarf dump kernel.o | less\n";

static const char *feature_name(amddwarf_target_feature f)
{
  static const char *const names[] = {"unsupported", "any", "off", "on"};
  return (unsigned)f < 4 ? names[f] : "?";
}

static const char *elf_type_name(unsigned type)
{
  return type == 1 ? "ET_REL" : type == 2 ? "ET_EXEC" : type == 3 ? "ET_DYN" : "ET_?";
}

static const char *symbol_kind_name(amddwarf_symbol_kind kind)
{
  static const char *const names[] = {"function", "kernel", "descriptor", "object"};
  return (unsigned)kind < 4 ? names[kind] : "?";
}

/* ---- text ----
 * Attribute values print as llvm-dwarfdump-19 --debug-info prints them;
 * specs/code-objects.md ("amddwarf dump") lists where the two differ. */

/* The DIE being printed, read through its reference: its PC ranges and
   the entries of a location list are read when an attribute shows them. */
typedef struct dump_die {
  const amddwarf_object *object;
  amddwarf_die_ref ref;
  uint16_t tag, depth;
  bool ranges_read;
  amddwarf_range *ranges;
  size_t range_count, range_capacity;
  amddwarf_loc_entry *entries;
  size_t entry_count, entry_capacity;
} dump_die;

static bool grow(void **items, size_t *capacity, size_t count, size_t size)
{
  if (count < *capacity)
    return true;
  size_t cap = *capacity ? 2 * *capacity : 16;
  void *grown = realloc(*items, cap * size);
  if (grown == NULL)
    return false;
  *items = grown;
  *capacity = cap;
  return true;
}

static int keep_range(void *user, const amddwarf_range *range)
{
  dump_die *d = user;
  if (!grow((void **)&d->ranges, &d->range_capacity, d->range_count, sizeof *d->ranges))
    return 1;
  d->ranges[d->range_count++] = *range;
  return 0;
}

/* The DIE's PC ranges (DW_AT_ranges, else its low/high pair). */
static void die_ranges(dump_die *d)
{
  if (d->ranges_read)
    return;
  d->ranges_read = true;
  d->range_count = 0;
  amddwarf_object_die_ranges(d->object, d->ref, keep_range, d, NULL);
}

static int keep_entry(void *user, const amddwarf_loc_entry *entry)
{
  dump_die *d = user;
  if (!grow((void **)&d->entries, &d->entry_capacity, d->entry_count, sizeof *d->entries))
    return 1;
  d->entries[d->entry_count++] = *entry;
  return 0;
}

/* A as shown: the entries of its location list read (valid until the
   next attribute). */
static amddwarf_attribute with_entries(dump_die *d, const amddwarf_attribute *a)
{
  amddwarf_attribute shown = *a;
  if (a->value.kind != AMDDWARF_ATTR_LIST ||
      !amddwarf_object_attribute_is_evaluated(a->attribute))
    return shown;
  d->entry_count = 0;
  if (amddwarf_object_die_list_entries(d->object, d->ref, a->attribute, keep_entry, d, NULL) ==
      AMDDWARF_OK) {
    shown.value.entries = d->entries;
    shown.value.count = d->entry_count;
  }
  return shown;
}

static void dump_die_start(dump_die *d, amddwarf_die_ref ref, const amddwarf_die_links *links)
{
  d->ref = ref;
  d->tag = links->tag;
  d->depth = links->depth;
  d->ranges_read = false;
}

static void dump_die_free(dump_die *d)
{
  free(d->ranges);
  free(d->entries);
}

typedef struct text_ctx {
  const amddwarf_object *object;
  const amddwarf_cu *cu;
  dump_die *die;
  text_buf line;
} text_ctx;

/* A constant as its form writes it: fixed-size data in hex of that size,
   ULEB data in decimal. */
static void format_constant(text_buf *b, unsigned form, uint64_t u)
{
  switch (form) {
  case AMDDWARF_DW_FORM_flag_present: text_buf_printf(b, "true"); break;
  case AMDDWARF_DW_FORM_flag:
  case AMDDWARF_DW_FORM_data1: text_buf_printf(b, "0x%02llx", (unsigned long long)u); break;
  case AMDDWARF_DW_FORM_data2: text_buf_printf(b, "0x%04llx", (unsigned long long)u); break;
  case AMDDWARF_DW_FORM_data4: text_buf_printf(b, "0x%08llx", (unsigned long long)u); break;
  case AMDDWARF_DW_FORM_data8: text_buf_printf(b, "0x%016llx", (unsigned long long)u); break;
  case AMDDWARF_DW_FORM_udata: text_buf_printf(b, "%llu", (unsigned long long)u); break;
  case AMDDWARF_DW_FORM_sdata:
  case AMDDWARF_DW_FORM_implicit_const: text_buf_printf(b, "%lld", (long long)u); break;
  default: text_buf_printf(b, "0x%llx", (unsigned long long)u); break;
  }
}

/* Forms whose value is an address, and those whose value is a section
   offset. */
static bool address_form(unsigned form)
{
  return form == AMDDWARF_DW_FORM_addr || form == AMDDWARF_DW_FORM_addrx ||
         (form >= AMDDWARF_DW_FORM_addrx1 && form <= AMDDWARF_DW_FORM_addrx4) ||
         form == AMDDWARF_DW_FORM_GNU_addr_index;
}

static bool offset_form(unsigned form)
{
  return form == AMDDWARF_DW_FORM_sec_offset;
}

static bool line_number_attribute(unsigned attribute)
{
  return attribute == AMDDWARF_DW_AT_decl_line || attribute == AMDDWARF_DW_AT_decl_column ||
         attribute == AMDDWARF_DW_AT_call_line || attribute == AMDDWARF_DW_AT_call_column;
}

/* The path of file INDEX of the unit's line table, or NULL. */
static const char *unit_file(const amddwarf_object *object, const amddwarf_cu *cu,
                             uint64_t index)
{
  const amddwarf_line_table *table = amddwarf_object_line_table(object, cu->index);
  return table != NULL && index < table->file_count ? table->files[index] : NULL;
}

static void format_section_offset(text_buf *b, const amddwarf_cu *cu, uint64_t offset)
{
  text_buf_printf(b, cu->offset_size == 8 ? "0x%016llx" : "0x%08llx", (unsigned long long)offset);
}

/* "indexed (0xI) NOUN = " before the offset of a list reached by index. */
static void format_list_head(text_buf *b, const amddwarf_cu *cu, const amddwarf_attribute *a,
                             const char *noun, uint64_t offset)
{
  if (a->form == AMDDWARF_DW_FORM_loclistx || a->form == AMDDWARF_DW_FORM_rnglistx)
    text_buf_printf(b, "indexed (0x%llx) %s = ", (unsigned long long)a->value.u, noun);
  format_section_offset(b, cu, offset);
}

/* A location list: its offset, then one entry a line, INDENT deep. */
static void format_location_list(text_buf *b, const amddwarf_cu *cu, const amddwarf_attribute *a,
                                 int indent)
{
  const amddwarf_attr_value *v = &a->value;
  format_list_head(b, cu, a, "loclist", v->offset);
  text_buf_printf(b, ": ");
  for (size_t i = 0; i < v->count; ++i) {
    text_buf_printf(b, "\n%*s", indent, "");
    cli_buf_loc_entry(b, cu, &v->entries[i]);
  }
}

/* DW_AT_ranges: the list's offset, then the DIE's ranges one a line. */
static void format_ranges(text_buf *b, const text_ctx *t, const amddwarf_attribute *a, int indent)
{
  uint64_t offset = a->value.u;
  if (amddwarf_object_range_list_offset(t->object, t->cu->index, a->form, a->value.u, &offset,
                                        NULL) != AMDDWARF_OK) {
    format_constant(b, a->form, a->value.u);
    return;
  }
  format_list_head(b, t->cu, a, "rangelist", offset);
  die_ranges(t->die);
  for (size_t i = 0; i < t->die->range_count; ++i)
    text_buf_printf(b, "\n%*s[0x%016llx, 0x%016llx)", indent, "",
                   (unsigned long long)t->die->ranges[i].low,
                   (unsigned long long)t->die->ranges[i].high);
}

static void format_reference(text_buf *b, const amddwarf_object *object,
                             const amddwarf_attribute *a)
{
  const amddwarf_attr_value *v = &a->value;
  amddwarf_die_ref target;
  text_buf_printf(b, "0x%08llx", (unsigned long long)v->offset);
  if (amddwarf_object_die_ref_at(object, v->offset, &target, NULL) != AMDDWARF_OK)
    return;
  if (a->attribute == AMDDWARF_DW_AT_type || a->attribute == AMDDWARF_DW_AT_containing_type) {
    char name[256];
    amddwarf_type_name(object, target, name, sizeof name, NULL);
    text_buf_printf(b, " \"%s\"", name);
    return;
  }
  /* The DIE a declaration or a call refers to, by its linkage name when it
     has one; other references are offsets only. */
  if (a->attribute != AMDDWARF_DW_AT_specification &&
      a->attribute != AMDDWARF_DW_AT_abstract_origin && a->attribute != AMDDWARF_DW_AT_call_origin)
    return;
  const char *name = amddwarf_object_die_string(object, target, AMDDWARF_DW_AT_linkage_name);
  if (name == NULL)
    name = amddwarf_object_die_string(object, target, AMDDWARF_DW_AT_MIPS_linkage_name);
  if (name == NULL)
    name = amddwarf_object_die_string(object, target, AMDDWARF_DW_AT_name);
  if (name != NULL)
    text_buf_printf(b, " \"%s\"", name);
}

/* A constant U of attribute A (unsigned, or signed and not negative). */
static void format_unsigned(text_buf *b, const text_ctx *t, const amddwarf_attribute *a,
                            int indent, uint64_t u)
{
  const char *name = amddwarf_dw_value_name(a->attribute, u);
  if (a->attribute == AMDDWARF_DW_AT_ranges) {
    format_ranges(b, t, a, indent);
  } else if (a->attribute == AMDDWARF_DW_AT_high_pc && !address_form(a->form) &&
             (die_ranges(t->die), t->die->range_count == 1)) {
    /* An offset from low_pc: the address it ends at. */
    text_buf_printf(b, "0x%016llx", (unsigned long long)t->die->ranges[0].high);
  } else if (address_form(a->form)) {
    text_buf_printf(b, "0x%016llx", (unsigned long long)u);
  } else if (offset_form(a->form)) {
    format_section_offset(b, t->cu, u);
  } else if (name != NULL) {
    text_buf_printf(b, "%s", name);
  } else if ((a->attribute == AMDDWARF_DW_AT_decl_file ||
              a->attribute == AMDDWARF_DW_AT_call_file) &&
             (name = unit_file(t->object, t->cu, u)) != NULL) {
    text_buf_printf(b, "\"%s\"", name);
  } else if (line_number_attribute(a->attribute)) {
    text_buf_printf(b, "%llu", (unsigned long long)u);
  } else {
    format_constant(b, a->form, u);
  }
}

/* The value of attribute A, whose continuation lines are INDENT deep. */
static void format_attribute(text_buf *b, const text_ctx *t, const amddwarf_attribute *a,
                             int indent)
{
  const amddwarf_attr_value *v = &a->value;
  switch (v->kind) {
  case AMDDWARF_ATTR_STRING:
    text_buf_printf(b, "\"%s\"", v->string ? v->string : "");
    break;
  case AMDDWARF_ATTR_SIGNED: /* sdata, implicit_const: names and files too */
    if (v->s >= 0)
      format_unsigned(b, t, a, indent, (uint64_t)v->s);
    else
      text_buf_printf(b, "%lld", (long long)v->s);
    break;
  case AMDDWARF_ATTR_EXPR:
    cli_buf_expr(b, t->cu, v->bytes, v->size);
    break;
  case AMDDWARF_ATTR_LIST:
    format_location_list(b, t->cu, a, indent);
    break;
  case AMDDWARF_ATTR_REF:
    format_reference(b, t->object, a);
    break;
  case AMDDWARF_ATTR_BLOCK:
    text_buf_printf(b, "<0x%02zx>", v->size);
    for (size_t i = 0; i < v->size; ++i)
      text_buf_printf(b, " %02x", v->bytes[i]);
    break;
  case AMDDWARF_ATTR_UNSIGNED:
    format_unsigned(b, t, a, indent, v->u);
    break;
  default:
    text_buf_printf(b, "<none>");
    break;
  }
}

/* Columns as llvm-dwarfdump's: the DIE's tag after its 12-character
   offset, two more per level; attributes two further in; list entries
   three further than their attribute. */
enum { TAG_COLUMN = 12, ATTRIBUTE_INDENT = 2, ENTRY_INDENT = 3 };

static int text_attribute(void *user, const amddwarf_attribute *attribute)
{
  text_ctx *t = user;
  amddwarf_attribute shown = with_entries(t->die, attribute);
  const amddwarf_attribute *a = &shown;
  const char *name = amddwarf_dw_at_name(a->attribute);
  int indent = TAG_COLUMN + 2 * (int)t->die->depth + ATTRIBUTE_INDENT;
  t->line.len = 0;
  format_attribute(&t->line, t, a, indent + ENTRY_INDENT);
  printf("%*s%s", indent, "", name ? name : "DW_AT_?");
  if (name == NULL)
    printf("<0x%04x>", a->attribute);
  printf("\t(%s)\n", t->line.data ? t->line.data : "");
  return 0;
}

static int dump_text(const amddwarf_object *object, const char *path)
{
  const amddwarf_object_info *info = amddwarf_object_get_info(object);
  printf("%s: %s, code object v%u (os_abi %u, abi_version %u), e_flags 0x%x\n", path,
         elf_type_name(info->elf_type), info->code_object_version, info->os_abi,
         info->abi_version, info->e_flags);
  printf("isa: %s (mach 0x%02x), xnack %s, sramecc %s, wave%u (processor default wave%u)\n",
         info->processor, info->mach, feature_name(info->xnack), feature_name(info->sramecc),
         info->wave_size, info->isa_wave_size);
  if (info->target)
    printf("target: %s (metadata v%u.%u)\n", info->target, info->metadata_version[0],
           info->metadata_version[1]);
  printf("debug sections: %llu bytes, %u relocations applied\n",
         (unsigned long long)info->debug_bytes, info->relocations_applied);
  for (size_t i = 0; i < amddwarf_object_kernel_count(object); ++i) {
    const amddwarf_kernel *k = amddwarf_object_kernel(object, i);
    const uint32_t fields[] = {k->wavefront_size,   k->sgpr_count,
                               k->vgpr_count,       k->agpr_count,
                               k->sgpr_spill_count, k->vgpr_spill_count,
                               k->private_segment_fixed_size, k->group_segment_fixed_size,
                               k->kernarg_segment_size};
    static const char *const labels[] = {"wave size", "sgprs", "vgprs", "agprs", "sgpr spills",
                                         "vgpr spills", "private", "group", "kernarg"};
    char demangled[512];
    printf("kernel %s", k->name);
    /* A C++ kernel's name is mangled: show it as llvm-symbolizer does too. */
    if (amddwarf_demangle(k->name, demangled, sizeof demangled, NULL) == AMDDWARF_OK)
      printf(" (%s)", demangled);
    printf(": symbol %s, code 0x%llx (%llu bytes)", k->symbol ? k->symbol : "-",
           (unsigned long long)k->code_address, (unsigned long long)k->code_size);
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f)
      if (fields[f] != UINT32_MAX)
        printf(", %s %u", labels[f], fields[f]);
    printf("\n");
  }
  for (size_t i = 0; i < amddwarf_object_symbol_count(object); ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    const char *display = amddwarf_object_symbol_name(object, s);
    printf("symbol %s", s->name);
    if (display != s->name)
      printf(" (%s)", display);
    printf(": %s at 0x%llx, %llu bytes\n", symbol_kind_name(s->kind),
           (unsigned long long)s->address, (unsigned long long)s->size);
  }
  dump_die die = {object, {0, 0, 0}, 0, 0, false, NULL, 0, 0, NULL, 0, 0};
  text_ctx t = {object, NULL, &die, {0}};
  int rc = CLI_EXIT_OK;
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_cu *cu = amddwarf_object_cu(object, c);
    const char *lang = amddwarf_dw_lang_name(cu->language);
    printf("\nunit %zu at 0x%08llx: DWARF %u, unit type %u, address size %u, offset size %u\n",
           c, (unsigned long long)cu->offset, cu->version, cu->unit_type, cu->address_size,
           cu->offset_size);
    printf("  name \"%s\", language %s, producer \"%s\"\n", cu->name ? cu->name : "",
           lang ? lang : "?", cu->producer ? cu->producer : "");
    printf("  convention: %s (%s); dialect %s%s%s", amddwarf_convention_name(cu->convention),
           cu->convention_reason, amddwarf_dialect_name(cu->format.dialect),
           cu->augmentation ? "; augmentation " : "", cu->augmentation ? cu->augmentation : "");
    for (amddwarf_quirk q = 1, n = 0; q <= amddwarf_quirk_count(); ++q)
      if (cu->quirks & AMDDWARF_QUIRK_BIT(q))
        printf("%s%s", n++ ? ", " : "; producer quirks ", amddwarf_quirk_get(q)->name);
    printf("\n");
    t.cu = cu;
    amddwarf_error load_err = AMDDWARF_ERROR_INIT;
    amddwarf_status loaded = amddwarf_object_load_unit(object, c, &load_err);
    if (loaded != AMDDWARF_OK) { /* the other units are still shown */
      printf("  cannot be read: %s\n", load_err.message);
      rc = cli_report_error("dump", false, loaded, &load_err);
      continue;
    }
    for (size_t die_index = cu->first_die; die_index < cu->first_die + cu->die_count;
         ++die_index) {
      amddwarf_die_ref ref;
      amddwarf_die_links links;
      amddwarf_error err = AMDDWARF_ERROR_INIT;
      amddwarf_status st = amddwarf_object_die_ref(object, die_index, &ref, &err);
      if (st == AMDDWARF_OK)
        st = amddwarf_object_die_links(object, ref, &links, &err);
      if (st != AMDDWARF_OK) {
        rc = cli_report_error("dump", false, st, &err);
        goto done;
      }
      dump_die_start(&die, ref, &links);
      const char *tag = amddwarf_dw_tag_name(links.tag);
      printf("\n0x%08llx: %*s%s\n", (unsigned long long)ref.offset, 2 * (int)links.depth, "",
             tag ? tag : "DW_TAG_?");
      st = amddwarf_object_die_ref_attributes(object, ref, text_attribute, &t, &err);
      if (st < 0) {
        rc = cli_report_error("dump", false, st, &err);
        goto done;
      }
    }
  }
done:
  text_buf_free(&t.line);
  dump_die_free(&die);
  return rc;
}

/* ---- JSON ---- */

typedef struct json_ctx {
  const amddwarf_object *object;
  const amddwarf_cu *cu;
  dump_die *die;
  json_t *attrs;
} json_ctx;

/* DW_AT_ranges: {"offset", "list": [{"low", "high"}]}, null when the list
   cannot be found. */
static json_t *ranges_json(const json_ctx *j, const amddwarf_attribute *a)
{
  uint64_t offset = 0;
  if (amddwarf_object_range_list_offset(j->object, j->cu->index, a->form, a->value.u, &offset,
                                        NULL) != AMDDWARF_OK)
    return json_null();
  json_t *o = json_object(), *list = json_array();
  json_object_set_new(o, "offset", cli_json_addr(offset));
  die_ranges(j->die);
  for (size_t i = 0; i < j->die->range_count; ++i) {
    json_t *r = json_object();
    json_object_set_new(r, "low", cli_json_addr(j->die->ranges[i].low));
    json_object_set_new(r, "high", cli_json_addr(j->die->ranges[i].high));
    json_array_append_new(list, r);
  }
  json_object_set_new(o, "list", list);
  return o;
}

/* What a constant U means: its "name" for an attribute whose values are
   named, the "file" of DW_AT_decl_file and call_file. */
static void constant_extras_json(const json_ctx *j, const amddwarf_attribute *a, uint64_t u,
                                 json_t *o)
{
  if (amddwarf_dw_value_family(a->attribute, NULL))
    json_object_set_new(o, "name", cli_json_code(amddwarf_dw_value_name(a->attribute, u), u));
  if (a->attribute == AMDDWARF_DW_AT_decl_file || a->attribute == AMDDWARF_DW_AT_call_file) {
    const char *file = unit_file(j->object, j->cu, u);
    json_object_set_new(o, "file", file ? json_string(file) : json_null());
  }
}

static int json_attribute(void *user, const amddwarf_attribute *attribute)
{
  json_ctx *j = user;
  amddwarf_attribute shown = with_entries(j->die, attribute);
  const amddwarf_attribute *a = &shown;
  json_t *o = json_object();
  const amddwarf_attr_value *v = &a->value;
  json_object_set_new(o, "attribute", cli_json_code(amddwarf_dw_at_name(a->attribute),
                                                    a->attribute));
  json_object_set_new(o, "form", cli_json_code(amddwarf_dw_form_name(a->form), a->form));
  switch (v->kind) {
  case AMDDWARF_ATTR_STRING:
    json_object_set_new(o, "string", json_string(v->string ? v->string : ""));
    break;
  case AMDDWARF_ATTR_SIGNED:
    json_object_set_new(o, "value", json_integer((json_int_t)v->s));
    if (v->s >= 0)
      constant_extras_json(j, a, (uint64_t)v->s, o);
    break;
  case AMDDWARF_ATTR_UNSIGNED:
    if (address_form(a->form)) {
      json_object_set_new(o, "address", cli_json_addr(v->u));
      break;
    }
    if (offset_form(a->form)) {
      json_object_set_new(o, "offset", cli_json_addr(v->u));
      if (a->attribute == AMDDWARF_DW_AT_ranges)
        json_object_set_new(o, "ranges", ranges_json(j, a));
      break;
    }
    json_object_set_new(o, "value", v->u <= INT64_MAX ? json_integer((json_int_t)v->u)
                                                      : cli_json_addr(v->u));
    constant_extras_json(j, a, v->u, o);
    if (a->attribute == AMDDWARF_DW_AT_ranges)
      json_object_set_new(o, "ranges", ranges_json(j, a));
    break;
  case AMDDWARF_ATTR_REF:
    json_object_set_new(o, "ref", cli_json_addr(v->offset));
    break;
  case AMDDWARF_ATTR_EXPR:
  case AMDDWARF_ATTR_LIST:
    json_object_set_new(o, "location", cli_json_location(j->cu, v));
    break;
  case AMDDWARF_ATTR_BLOCK:
    json_object_set_new(o, "block_size", json_integer((json_int_t)v->size));
    break;
  default:
    break;
  }
  json_array_append_new(j->attrs, o);
  return 0;
}

static json_t *count_json(uint32_t value)
{
  return value == UINT32_MAX ? json_null() : json_integer(value);
}

static json_t *feature_json(amddwarf_target_feature f)
{
  return json_string(feature_name(f));
}

/* Appends DIE INDEX with its attributes to DIES. */
static amddwarf_status die_json(json_ctx *j, size_t index, json_t *dies, amddwarf_error *err)
{
  amddwarf_die_ref ref;
  amddwarf_die_links links;
  amddwarf_status st = amddwarf_object_die_ref(j->object, index, &ref, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_die_links(j->object, ref, &links, err);
  if (st != AMDDWARF_OK)
    return st;
  dump_die_start(j->die, ref, &links);
  json_t *o = json_object();
  json_object_set_new(o, "offset", cli_json_addr(ref.offset));
  json_object_set_new(o, "depth", json_integer(links.depth));
  json_object_set_new(o, "tag", cli_json_code(amddwarf_dw_tag_name(links.tag), links.tag));
  j->attrs = json_array();
  st = amddwarf_object_die_ref_attributes(j->object, ref, json_attribute, j, err);
  json_object_set_new(o, "attributes", j->attrs);
  json_array_append_new(dies, o);
  return st;
}

static int dump_json(const amddwarf_object *object, const char *path)
{
  dump_die die = {object, {0, 0, 0}, 0, 0, false, NULL, 0, 0, NULL, 0, 0};
  const amddwarf_object_info *info = amddwarf_object_get_info(object);
  json_t *root = json_object();
  json_object_set_new(root, "file", json_string(path));
  json_t *elf = json_object();
  json_object_set_new(elf, "type", json_string(elf_type_name(info->elf_type)));
  json_object_set_new(elf, "os_abi",
                      cli_json_code(info->os_abi == 64   ? "ELFOSABI_AMDGPU_HSA"
                                    : info->os_abi == 65 ? "ELFOSABI_AMDGPU_PAL"
                                    : info->os_abi == 66 ? "ELFOSABI_AMDGPU_MESA3D"
                                                         : NULL,
                                    info->os_abi));
  json_object_set_new(elf, "abi_version", json_integer(info->abi_version));
  json_object_set_new(elf, "code_object_version", json_integer(info->code_object_version));
  json_object_set_new(elf, "e_flags", cli_json_addr(info->e_flags));
  json_object_set_new(elf, "debug_bytes", json_integer((json_int_t)info->debug_bytes));
  json_object_set_new(elf, "relocations_applied", json_integer(info->relocations_applied));
  json_object_set_new(root, "elf", elf);
  json_t *isa = json_object();
  json_object_set_new(isa, "processor", json_string(info->processor));
  json_object_set_new(isa, "mach", cli_json_addr(info->mach));
  json_object_set_new(isa, "xnack", feature_json(info->xnack));
  json_object_set_new(isa, "sramecc", feature_json(info->sramecc));
  json_object_set_new(isa, "wave_size", json_integer(info->wave_size));
  json_object_set_new(isa, "isa_wave_size", json_integer(info->isa_wave_size));
  json_object_set_new(isa, "target", info->target ? json_string(info->target) : json_null());
  json_object_set_new(root, "isa", isa);
  json_t *kernels = json_array();
  for (size_t i = 0; i < amddwarf_object_kernel_count(object); ++i) {
    const amddwarf_kernel *k = amddwarf_object_kernel(object, i);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(k->name));
    json_object_set_new(o, "symbol", k->symbol ? json_string(k->symbol) : json_null());
    json_object_set_new(o, "code_address", cli_json_addr(k->code_address));
    json_object_set_new(o, "code_size", json_integer((json_int_t)k->code_size));
    json_object_set_new(o, "wavefront_size", count_json(k->wavefront_size));
    json_object_set_new(o, "sgpr_count", count_json(k->sgpr_count));
    json_object_set_new(o, "vgpr_count", count_json(k->vgpr_count));
    json_object_set_new(o, "agpr_count", count_json(k->agpr_count));
    json_object_set_new(o, "sgpr_spill_count", count_json(k->sgpr_spill_count));
    json_object_set_new(o, "vgpr_spill_count", count_json(k->vgpr_spill_count));
    json_object_set_new(o, "private_segment_fixed_size",
                        count_json(k->private_segment_fixed_size));
    json_object_set_new(o, "group_segment_fixed_size", count_json(k->group_segment_fixed_size));
    json_array_append_new(kernels, o);
  }
  json_object_set_new(root, "kernels", kernels);
  json_t *symbols = json_array();
  for (size_t i = 0; i < amddwarf_object_symbol_count(object); ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "kind", json_string(symbol_kind_name(s->kind)));
    json_object_set_new(o, "address", cli_json_addr(s->address));
    json_object_set_new(o, "size", json_integer((json_int_t)s->size));
    json_array_append_new(symbols, o);
  }
  json_object_set_new(root, "symbols", symbols);
  json_t *units = json_array();
  int rc = CLI_EXIT_OK;
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_cu *cu = amddwarf_object_cu(object, c);
    json_t *u = json_object();
    static const char *const unit_types[] = {NULL,
                                             "DW_UT_compile",
                                             "DW_UT_type",
                                             "DW_UT_partial",
                                             "DW_UT_skeleton",
                                             "DW_UT_split_compile",
                                             "DW_UT_split_type"};
    json_object_set_new(u, "offset", cli_json_addr(cu->offset));
    json_object_set_new(u, "version", json_integer(cu->version));
    json_object_set_new(u, "unit_type",
                        cli_json_code(cu->unit_type < 7 ? unit_types[cu->unit_type] : NULL,
                                      cu->unit_type));
    json_object_set_new(u, "address_size", json_integer(cu->address_size));
    json_object_set_new(u, "name", cu->name ? json_string(cu->name) : json_null());
    json_object_set_new(u, "producer", cu->producer ? json_string(cu->producer) : json_null());
    json_object_set_new(u, "language",
                        cli_json_code(amddwarf_dw_lang_name(cu->language), cu->language));
    json_object_set_new(u, "augmentation",
                        cu->augmentation ? json_string(cu->augmentation) : json_null());
    json_object_set_new(u, "convention", json_string(amddwarf_convention_name(cu->convention)));
    json_object_set_new(u, "convention_reason", json_string(cu->convention_reason));
    json_object_set_new(u, "dialect", json_string(amddwarf_dialect_name(cu->format.dialect)));
    json_t *quirks = json_array();
    for (amddwarf_quirk q = 1; q <= amddwarf_quirk_count(); ++q)
      if (cu->quirks & AMDDWARF_QUIRK_BIT(q))
        json_array_append_new(quirks, json_string(amddwarf_quirk_get(q)->name));
    json_object_set_new(u, "quirks", quirks);
    json_t *dies = json_array();
    json_ctx j = {object, cu, &die, NULL};
    amddwarf_error load_err = AMDDWARF_ERROR_INIT;
    amddwarf_status loaded = amddwarf_object_load_unit(object, c, &load_err);
    if (loaded != AMDDWARF_OK) { /* the other units are still shown */
      json_object_set_new(u, "error", cli_json_error(loaded, &load_err));
      rc = CLI_EXIT_BAD_INPUT;
    }
    for (size_t die_index = cu->first_die;
         loaded == AMDDWARF_OK && die_index < cu->first_die + cu->die_count; ++die_index) {
      amddwarf_error err = AMDDWARF_ERROR_INIT;
      amddwarf_status st = die_json(&j, die_index, dies, &err);
      if (st < 0) {
        dump_die_free(&die);
        json_decref(dies);
        json_decref(u);
        json_decref(units);
        json_decref(root);
        return cli_report_error("dump", true, st, &err);
      }
    }
    json_object_set_new(u, "dies", dies);
    json_array_append_new(units, u);
  }
  json_object_set_new(root, "units", units);
  cli_print_json(root);
  dump_die_free(&die);
  return rc;
}

int cli_dump_main(int argc, char **argv)
{
  cli_object_args args = {0};
  bool libdwarf = false;
  const cli_option options[] = {CLI_FLAG("--libdwarf", &libdwarf)};
  int scanned = cli_object_scan("dump", usage, argc, argv, &args, CLI_OPTIONS(options));
  if (scanned >= 0)
    return scanned;
  if (args.path == NULL)
    return cli_usage_error("dump", "missing OBJECT");
  if (libdwarf)
    args.flags |= AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES;
  amddwarf_object *object = NULL;
  int rc = cli_object_open("dump", &args, &object);
  if (rc != 0)
    return rc;
  /* The metadata note is read on first use: a note that cannot be read is
     this command's error, as it was open's. */
  amddwarf_error err;
  amddwarf_status st = amddwarf_object_load_metadata(object, &err);
  if (st != AMDDWARF_OK) {
    cli_object_close(&args, object);
    return cli_report_error("dump", args.json, st, &err);
  }
  (void)amddwarf_object_die_count(object); /* scans every unit: numbers its DIEs (first_die) */
  rc = args.json ? dump_json(object, args.path) : dump_text(object, args.path);
  cli_object_close(&args, object);
  return rc;
}
