/* Test-only helper of tests/corpus/test_die_tree.py: compares the library's
 * DIE summaries of a linked object with libdwarf's reading of the same
 * object, and the variables at PCs (amddwarf_object_vars_at, the work of
 * bench_object) with the answer derived from libdwarf's DIE tree.
 *
 * usage: die_tree_check OBJECT
 *
 * The tree: libdwarf's dwarf_child / dwarf_siblingof_b walk of every unit
 * against the summaries' first_child / next_sibling links, DIE by DIE:
 * offset, tag, depth, parent, the DIE's place in amddwarf_object_die's
 * order, and every attribute a summary keeps (name, linkage name, type and
 * origin by the offset they refer to, declaration and call coordinates,
 * sizes, encoding, flags, PC ranges, expression bytes, constants and
 * references of bounds and member locations). A summary inherits the name,
 * type and declaration of its origin: only attributes the DIE has itself
 * are compared.
 *
 * The variables: at up to 2000 line-table addresses spread over the object,
 * the scopes are found in libdwarf's tree (the subprogram whose ranges hold
 * the PC, then the first lexical block or inlined subroutine child holding
 * it, repeatedly) and the expected list is their variable and parameter
 * children, innermost scope first, then the unit's variables; the library's
 * list must name the same DIEs with the same scope depths.
 *
 * The references (amddwarf_die_ref): every DIE's reference, by index and
 * by offset, must give the summary's tag, depth and links and its name
 * (through the origins, as a summary inherits it), and its fields
 * (amddwarf_object_die_fields) every field of the summary they share:
 * names, type and origin, declaration, sizes, bit offsets, encoding,
 * address class and spaces, flags, constants, member locations, bounds; at every PC,
 * amddwarf_object_scope_refs_at and amddwarf_object_var_refs_at must give
 * the scopes and variables of amddwarf_object_scopes_at and _vars_at, with
 * the same expressions and list entries.
 *
 * Prints "checked D DIEs, A attributes, P PCs, V variables" and every
 * difference (at most 50). Exit status: 0, or 1 on a difference or when the
 * object cannot be opened. Relocatable objects are not accepted: libdwarf
 * does not apply AMDGPU relocations. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <amddwarf/object.h>

enum { MAX_PCS = 2000, MAX_RANGES = 256, MAX_VARS = 4096, MAX_DEPTH = 256 };

typedef struct checker {
  Dwarf_Debug dbg;
  const amddwarf_object *object;
  unsigned version;        /* of the unit being walked */
  uint64_t unit_low_pc;    /* its base address (DWARF 4 range lists) */
  size_t dies, attributes, pcs, vars, differences;
  size_t next_index;       /* the amddwarf_object_die index expected next */
} checker;

static void differ(checker *c, uint64_t offset, const char *fmt, ...)
{
  if (c->differences++ >= 50)
    return;
  va_list ap;
  va_start(ap, fmt);
  printf("DIE 0x%" PRIx64 ": ", offset);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

static uint64_t offset_of(const amddwarf_die_info *d)
{
  return d != NULL ? d->offset : UINT64_MAX;
}

/* ---- libdwarf's side of one DIE ---- */

typedef struct lib_range {
  uint64_t low, high;
} lib_range;

/* The non-empty ranges of the DW_AT_ranges attribute A of DIE. */
static size_t lib_ranges(checker *c, Dwarf_Die die, Dwarf_Attribute a, lib_range *out)
{
  Dwarf_Error e = NULL;
  Dwarf_Half form = 0;
  Dwarf_Unsigned value = 0;
  size_t n = 0;
  Dwarf_Off section_offset = 0;
  dwarf_whatform(a, &form, &e);
  if (dwarf_formudata(a, &value, &e) != DW_DLV_OK) {
    if (e != NULL)
      dwarf_dealloc_error(c->dbg, e);
    e = NULL;
    /* libdwarf reads a DW_FORM_sec_offset of DWARF 4 as a reference. */
    if (dwarf_global_formref(a, &section_offset, &e) != DW_DLV_OK)
      return 0;
    value = section_offset;
  }
  if (c->version >= 5) {
    Dwarf_Rnglists_Head head = NULL;
    Dwarf_Unsigned count = 0, global = 0;
    if (dwarf_rnglists_get_rle_head(a, form, value, &head, &count, &global, &e) != DW_DLV_OK)
      return 0;
    for (Dwarf_Unsigned i = 0; i < count && n < MAX_RANGES; ++i) {
      unsigned length = 0, code = 0;
      Dwarf_Unsigned raw1, raw2, low = 0, high = 0;
      Dwarf_Bool unavailable = 0;
      if (dwarf_get_rnglists_entry_fields_a(head, i, &length, &code, &raw1, &raw2, &unavailable,
                                            &low, &high, &e) != DW_DLV_OK)
        break;
      if ((code == DW_RLE_offset_pair || code == DW_RLE_start_end ||
           code == DW_RLE_start_length || code == DW_RLE_startx_endx ||
           code == DW_RLE_startx_length) && low < high)
        out[n++] = (lib_range){low, high};
    }
    dwarf_dealloc_rnglists_head(head);
    return n;
  }
  Dwarf_Ranges *ranges = NULL;
  Dwarf_Signed count = 0;
  Dwarf_Unsigned bytes = 0;
  Dwarf_Off real = 0;
  if (dwarf_get_ranges_b(c->dbg, value, die, &real, &ranges, &count, &bytes, &e) != DW_DLV_OK)
    return 0;
  uint64_t base = c->unit_low_pc;
  for (Dwarf_Signed i = 0; i < count && n < MAX_RANGES; ++i) {
    if (ranges[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
      base = ranges[i].dwr_addr2;
    else if (ranges[i].dwr_type == DW_RANGES_ENTRY && ranges[i].dwr_addr1 < ranges[i].dwr_addr2)
      out[n++] = (lib_range){base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2};
  }
  dwarf_ranges_dealloc(c->dbg, ranges, count);
  return n;
}

/* The PC ranges of DIE as libdwarf reads them. */
static size_t lib_die_ranges(checker *c, Dwarf_Die die, lib_range *out)
{
  Dwarf_Error e = NULL;
  Dwarf_Attribute a = NULL;
  if (dwarf_attr(die, DW_AT_ranges, &a, &e) == DW_DLV_OK) {
    size_t n = lib_ranges(c, die, a, out);
    dwarf_dealloc_attribute(a);
    return n;
  }
  Dwarf_Addr low = 0, high = 0;
  Dwarf_Half form = 0;
  enum Dwarf_Form_Class cls;
  if (dwarf_lowpc(die, &low, &e) != DW_DLV_OK ||
      dwarf_highpc_b(die, &high, &form, &cls, &e) != DW_DLV_OK)
    return 0;
  if (cls != DW_FORM_CLASS_ADDRESS)
    high += low;
  if (low >= high)
    return 0;
  out[0] = (lib_range){low, high};
  return 1;
}

/* ---- one attribute against the summary ---- */

static void check_string(checker *c, const amddwarf_die_info *d, Dwarf_Attribute a,
                         const char *ours, const char *what)
{
  char *s = NULL;
  Dwarf_Error e = NULL;
  if (dwarf_formstring(a, &s, &e) != DW_DLV_OK)
    return;
  if (ours == NULL || strcmp(ours, s) != 0)
    differ(c, d->offset, "%s \"%s\", summary \"%s\"", what, s, ours ? ours : "(none)");
}

static void check_unsigned(checker *c, const amddwarf_die_info *d, Dwarf_Attribute a,
                           uint64_t ours, const char *what)
{
  Dwarf_Unsigned u = 0;
  Dwarf_Error e = NULL;
  if (dwarf_formudata(a, &u, &e) != DW_DLV_OK)
    return;
  if (u != ours)
    differ(c, d->offset, "%s %" PRIu64 ", summary %" PRIu64, what, (uint64_t)u, ours);
}

static void check_flag(checker *c, const amddwarf_die_info *d, Dwarf_Attribute a, uint32_t bit,
                       const char *what)
{
  Dwarf_Bool b = 0;
  Dwarf_Error e = NULL;
  if (dwarf_formflag(a, &b, &e) == DW_DLV_OK && (b != 0) != ((d->flags & bit) != 0))
    differ(c, d->offset, "%s %d, summary flags 0x%x", what, (int)b, d->flags);
}

static void check_ref(checker *c, const amddwarf_die_info *d, Dwarf_Attribute a,
                      const amddwarf_die_info *ours, const char *what)
{
  Dwarf_Off target = 0;
  Dwarf_Error e = NULL;
  if (dwarf_global_formref(a, &target, &e) != DW_DLV_OK)
    return;
  if (offset_of(ours) != target)
    differ(c, d->offset, "%s 0x%" PRIx64 ", summary 0x%" PRIx64, what, (uint64_t)target,
           offset_of(ours));
}

/* An attribute that may be an expression, a list, a constant or a
   reference (location, frame base, member location, bounds). */
static void check_value(checker *c, const amddwarf_die_info *d, Dwarf_Attribute a,
                        const amddwarf_attr_value *ours, const char *what)
{
  Dwarf_Half form = 0;
  Dwarf_Error e = NULL;
  dwarf_whatform(a, &form, &e);
  if (ours == NULL) {
    differ(c, d->offset, "%s present (form 0x%x), summary has none", what, form);
    return;
  }
  Dwarf_Unsigned length = 0, u = 0;
  Dwarf_Ptr bytes = NULL;
  Dwarf_Off target = 0;
  if (form == DW_FORM_exprloc) {
    if (dwarf_formexprloc(a, &length, &bytes, &e) == DW_DLV_OK &&
        (ours->kind != AMDDWARF_ATTR_EXPR || ours->size != length ||
         memcmp(ours->bytes, bytes, length) != 0))
      differ(c, d->offset, "%s: %" PRIu64 " expression bytes differ", what, (uint64_t)length);
  } else if (form == DW_FORM_sec_offset || form == DW_FORM_loclistx) {
    if (ours->kind != AMDDWARF_ATTR_LIST)
      differ(c, d->offset, "%s: a list, summary kind %d", what, (int)ours->kind);
  } else if (form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 ||
             form == DW_FORM_ref8 || form == DW_FORM_ref_udata || form == DW_FORM_ref_addr) {
    if (dwarf_global_formref(a, &target, &e) == DW_DLV_OK &&
        (ours->kind != AMDDWARF_ATTR_REF || offset_of(ours->ref) != target))
      differ(c, d->offset, "%s refers to 0x%" PRIx64 ", summary to 0x%" PRIx64, what,
             (uint64_t)target, offset_of(ours->ref));
  } else if (form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
             form == DW_FORM_data8 || form == DW_FORM_udata) {
    if (dwarf_formudata(a, &u, &e) == DW_DLV_OK && ours->u != u)
      differ(c, d->offset, "%s %" PRIu64 ", summary %" PRIu64, what, (uint64_t)u, ours->u);
  }
}

static bool ranges_equal(const amddwarf_die_info *d, const lib_range *lib, size_t n)
{
  size_t k = 0;
  for (size_t i = 0; i < d->range_count; ++i) {
    if (d->ranges[i].low >= d->ranges[i].high)
      continue;
    if (k >= n || d->ranges[i].low != lib[k].low || d->ranges[i].high != lib[k].high)
      return false;
    ++k;
  }
  return k == n;
}

static void check_attributes(checker *c, Dwarf_Die die, const amddwarf_die_info *d)
{
  Dwarf_Attribute *attrs = NULL;
  Dwarf_Signed count = 0;
  Dwarf_Error e = NULL;
  bool has_pc = false;
  if (dwarf_attrlist(die, &attrs, &count, &e) != DW_DLV_OK)
    count = 0;
  for (Dwarf_Signed i = 0; i < count; ++i) {
    Dwarf_Half at = 0;
    dwarf_whatattr(attrs[i], &at, &e);
    ++c->attributes;
    switch (at) {
    case DW_AT_name: check_string(c, d, attrs[i], d->name, "DW_AT_name"); break;
    case DW_AT_linkage_name:
      check_string(c, d, attrs[i], d->linkage_name, "DW_AT_linkage_name");
      break;
    case DW_AT_type: check_ref(c, d, attrs[i], d->type, "DW_AT_type"); break;
    case DW_AT_abstract_origin:
    case DW_AT_specification: check_ref(c, d, attrs[i], d->origin, "origin"); break;
    case DW_AT_decl_file: check_unsigned(c, d, attrs[i], d->decl_file, "DW_AT_decl_file"); break;
    case DW_AT_decl_line: check_unsigned(c, d, attrs[i], d->decl_line, "DW_AT_decl_line"); break;
    case DW_AT_call_file: check_unsigned(c, d, attrs[i], d->call_file, "DW_AT_call_file"); break;
    case DW_AT_call_line: check_unsigned(c, d, attrs[i], d->call_line, "DW_AT_call_line"); break;
    case DW_AT_call_column:
      check_unsigned(c, d, attrs[i], d->call_column, "DW_AT_call_column");
      break;
    case DW_AT_byte_size:
      if (!(d->flags & AMDDWARF_DIE_HAS_BYTE_SIZE))
        differ(c, d->offset, "DW_AT_byte_size present, summary flag missing");
      check_unsigned(c, d, attrs[i], d->byte_size, "DW_AT_byte_size");
      break;
    case DW_AT_bit_size: check_unsigned(c, d, attrs[i], d->bit_size, "DW_AT_bit_size"); break;
    case DW_AT_data_bit_offset:
      check_unsigned(c, d, attrs[i], d->data_bit_offset, "DW_AT_data_bit_offset");
      break;
    case DW_AT_encoding: check_unsigned(c, d, attrs[i], d->encoding, "DW_AT_encoding"); break;
    case DW_AT_external: check_flag(c, d, attrs[i], AMDDWARF_DIE_EXTERNAL, "DW_AT_external"); break;
    case DW_AT_declaration:
      check_flag(c, d, attrs[i], AMDDWARF_DIE_DECLARATION, "DW_AT_declaration");
      break;
    case DW_AT_artificial:
      check_flag(c, d, attrs[i], AMDDWARF_DIE_ARTIFICIAL, "DW_AT_artificial");
      break;
    case DW_AT_low_pc:
    case DW_AT_high_pc:
    case DW_AT_ranges: has_pc = true; break;
    case DW_AT_location: check_value(c, d, attrs[i], d->location, "DW_AT_location"); break;
    case DW_AT_frame_base: check_value(c, d, attrs[i], d->frame_base, "DW_AT_frame_base"); break;
    case DW_AT_data_member_location:
      check_value(c, d, attrs[i], d->data_member_location, "DW_AT_data_member_location");
      break;
    case DW_AT_lower_bound: check_value(c, d, attrs[i], d->lower_bound, "DW_AT_lower_bound"); break;
    case DW_AT_upper_bound: check_value(c, d, attrs[i], d->upper_bound, "DW_AT_upper_bound"); break;
    case DW_AT_count: check_value(c, d, attrs[i], d->count, "DW_AT_count"); break;
    case DW_AT_const_value:
      if (d->const_value == NULL)
        differ(c, d->offset, "DW_AT_const_value present, summary has none");
      break;
    default: break;
    }
    dwarf_dealloc_attribute(attrs[i]);
  }
  if (attrs != NULL)
    dwarf_dealloc(c->dbg, attrs, DW_DLA_LIST);
  if (has_pc && d->tag != DW_TAG_compile_unit && d->tag != DW_TAG_label) {
    lib_range lib[MAX_RANGES];
    size_t n = lib_die_ranges(c, die, lib);
    if (!ranges_equal(d, lib, n))
      differ(c, d->offset, "%zu PC ranges, summary %zu (or their bounds differ)", n,
             d->range_count);
  }
}

/* ---- the tree ---- */

static uint64_t ref_offset(amddwarf_die_ref ref)
{
  return amddwarf_die_ref_valid(ref) ? ref.offset : UINT64_MAX;
}

static bool same_string(const char *a, const char *b)
{
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Attribute value GOT (amddwarf_die_fields) against the summary's OURS. */
static bool same_value(const amddwarf_attr_value *got, const amddwarf_attr_value *ours)
{
  if (ours == NULL)
    return got->kind == AMDDWARF_ATTR_NONE;
  if (got->kind != ours->kind || got->form != ours->form)
    return false;
  switch (got->kind) {
  case AMDDWARF_ATTR_UNSIGNED:
  case AMDDWARF_ATTR_SIGNED: return got->u == ours->u && got->s == ours->s;
  case AMDDWARF_ATTR_EXPR:
  case AMDDWARF_ATTR_BLOCK:
    return got->size == ours->size && (got->size == 0 || memcmp(got->bytes, ours->bytes, got->size) == 0);
  case AMDDWARF_ATTR_REF: return got->offset == ours->offset;
  case AMDDWARF_ATTR_STRING: return same_string(got->string, ours->string);
  default: return true; /* a list: the summary resolved it, the fields keep its offset */
  }
}

/* The fields of REF (amddwarf_object_die_fields) against its summary D:
   every field they share, the inherited ones included. */
static void check_fields(checker *c, amddwarf_die_ref ref, const amddwarf_die_info *d)
{
  amddwarf_die_fields f;
  amddwarf_error err;
  if (amddwarf_object_die_fields(c->object, ref, &f, &err) != AMDDWARF_OK) {
    differ(c, d->offset, "its fields: %s", err.message);
    return;
  }
  static const char *const names[] = {"tag/depth/flags", "links", "names", "type/origin",
                                      "declaration/call", "sizes", "encoding/spaces",
                                      "vector/lanes", "constants", "bounds"};
  bool same[] = {
      f.tag == d->tag && f.depth == d->depth && f.flags == d->flags,
      ref_offset(f.parent) == offset_of(d->parent) &&
          ref_offset(f.first_child) == offset_of(d->first_child) &&
          ref_offset(f.next_sibling) == offset_of(d->next_sibling),
      same_string(f.name, d->name) && same_string(f.linkage_name, d->linkage_name),
      ref_offset(f.type) == offset_of(d->type) && ref_offset(f.origin) == offset_of(d->origin),
      f.decl_file == d->decl_file && f.decl_line == d->decl_line &&
          f.call_file == d->call_file && f.call_line == d->call_line &&
          f.call_column == d->call_column,
      f.byte_size == d->byte_size && f.bit_size == d->bit_size &&
          f.data_bit_offset == d->data_bit_offset,
      f.encoding == d->encoding && f.address_class == d->address_class &&
          f.address_space == d->address_space && f.memory_space == d->memory_space,
      f.vector_size == d->vector_size && f.lanes == d->lanes,
      same_value(&f.const_value, d->const_value) &&
          same_value(&f.data_member_location, d->data_member_location),
      same_value(&f.lower_bound, d->lower_bound) && same_value(&f.upper_bound, d->upper_bound) &&
          same_value(&f.count, d->count),
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; ++i)
    if (!same[i])
      differ(c, d->offset, "its fields (amddwarf_object_die_fields) differ from its summary: %s",
             names[i]);
}

/* The DIE INDEX through its reference against its summary D. */
static void check_die_ref(checker *c, size_t index, const amddwarf_die_info *d)
{
  amddwarf_die_ref ref, by_offset;
  amddwarf_die_links links;
  amddwarf_attribute name;
  amddwarf_error err;
  if (amddwarf_object_die_ref(c->object, index, &ref, &err) != AMDDWARF_OK ||
      amddwarf_object_die_ref_at(c->object, d->offset, &by_offset, &err) != AMDDWARF_OK ||
      amddwarf_object_die_links(c->object, ref, &links, &err) != AMDDWARF_OK) {
    differ(c, d->offset, "its reference: %s", err.message);
    return;
  }
  if (ref.offset != d->offset || memcmp(&ref, &by_offset, sizeof ref) != 0 ||
      links.tag != d->tag || links.depth != d->depth ||
      ref_offset(links.parent) != offset_of(d->parent) ||
      ref_offset(links.first_child) != offset_of(d->first_child) ||
      ref_offset(links.next_sibling) != offset_of(d->next_sibling))
    differ(c, d->offset,
           "reference at 0x%" PRIx64 ": tag 0x%x depth %u parent 0x%" PRIx64 " child 0x%" PRIx64
           " sibling 0x%" PRIx64,
           ref.offset, links.tag, links.depth, ref_offset(links.parent),
           ref_offset(links.first_child), ref_offset(links.next_sibling));
  amddwarf_status st = amddwarf_object_die_attribute(c->object, ref, DW_AT_name,
                                                     AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &name, &err);
  const char *got = st == AMDDWARF_OK && name.value.kind == AMDDWARF_ATTR_STRING
                        ? name.value.string
                        : NULL;
  if ((st != AMDDWARF_OK && st != AMDDWARF_NOT_FOUND) || !same_string(got, d->name))
    differ(c, d->offset, "name through the reference \"%s\" (%s), summary \"%s\"",
           got ? got : "", amddwarf_status_name(st), d->name ? d->name : "");
  check_fields(c, ref, d);
}

static void walk(checker *c, Dwarf_Die die, const amddwarf_die_info *d,
                 const amddwarf_die_info *parent, unsigned depth)
{
  Dwarf_Off off = 0;
  Dwarf_Half tag = 0;
  Dwarf_Error e = NULL;
  dwarf_dieoffset(die, &off, &e);
  dwarf_tag(die, &tag, &e);
  ++c->dies;
  if (d == NULL) {
    differ(c, off, "libdwarf has a DIE here, the summaries' links do not");
    return;
  }
  if (d->offset != off || d->tag != tag || d->depth != depth || d->parent != parent) {
    differ(c, off, "tag 0x%x depth %u parent 0x%" PRIx64 "; summary at 0x%" PRIx64
                   " tag 0x%x depth %u parent 0x%" PRIx64,
           tag, depth, offset_of(parent), d->offset, d->tag, d->depth, offset_of(d->parent));
    return;
  }
  if (amddwarf_object_die(c->object, c->next_index) != d ||
      amddwarf_object_die_at(c->object, off) != d)
    differ(c, off, "not amddwarf_object_die(%zu) or not found by its offset", c->next_index);
  check_die_ref(c, c->next_index, d);
  c->next_index++;
  check_attributes(c, die, d);
  Dwarf_Die child = NULL;
  const amddwarf_die_info *ours = d->first_child;
  if (dwarf_child(die, &child, &e) == DW_DLV_OK) {
    while (child != NULL) {
      walk(c, child, ours, d, depth + 1);
      ours = ours != NULL ? ours->next_sibling : NULL;
      Dwarf_Die sibling = NULL;
      int rc = dwarf_siblingof_b(c->dbg, child, 1, &sibling, &e);
      dwarf_dealloc_die(child);
      child = rc == DW_DLV_OK ? sibling : NULL;
    }
  }
  if (ours != NULL)
    differ(c, ours->offset, "a child in the summaries' links that libdwarf does not have");
}

/* ---- the variables at a PC ---- */

typedef struct expected_var {
  uint64_t offset;
  uint32_t depth;
} expected_var;

static bool lib_contains(checker *c, Dwarf_Die die, uint64_t pc)
{
  lib_range r[MAX_RANGES];
  size_t n = lib_die_ranges(c, die, r);
  for (size_t i = 0; i < n; ++i)
    if (pc >= r[i].low && pc < r[i].high)
      return true;
  return false;
}

static Dwarf_Half tag_of(Dwarf_Die die)
{
  Dwarf_Half tag = 0;
  Dwarf_Error e = NULL;
  dwarf_tag(die, &tag, &e);
  return tag;
}

/* The first child of PARENT whose tag is in TAGS (zero-terminated) and whose
   ranges hold PC, or NULL. The caller deallocates it. */
static Dwarf_Die child_holding(checker *c, Dwarf_Die parent, uint64_t pc, const Dwarf_Half *tags)
{
  Dwarf_Error e = NULL;
  Dwarf_Die child = NULL;
  if (dwarf_child(parent, &child, &e) != DW_DLV_OK)
    return NULL;
  while (child != NULL) {
    Dwarf_Half tag = tag_of(child);
    for (const Dwarf_Half *t = tags; *t != 0; ++t)
      if (tag == *t && lib_contains(c, child, pc))
        return child;
    Dwarf_Die sibling = NULL;
    int rc = dwarf_siblingof_b(c->dbg, child, 1, &sibling, &e);
    dwarf_dealloc_die(child);
    child = rc == DW_DLV_OK ? sibling : NULL;
  }
  return NULL;
}

/* Appends the children of SCOPE with a tag in TAGS to OUT at DEPTH. */
static size_t add_children(checker *c, Dwarf_Die scope, const Dwarf_Half *tags, uint32_t depth,
                           expected_var *out, size_t n)
{
  Dwarf_Error e = NULL;
  Dwarf_Die child = NULL;
  if (dwarf_child(scope, &child, &e) != DW_DLV_OK)
    return n;
  while (child != NULL) {
    Dwarf_Half tag = tag_of(child);
    for (const Dwarf_Half *t = tags; *t != 0; ++t)
      if (tag == *t && n < MAX_VARS) {
        Dwarf_Off off = 0;
        dwarf_dieoffset(child, &off, &e);
        out[n++] = (expected_var){off, depth};
      }
    Dwarf_Die sibling = NULL;
    int rc = dwarf_siblingof_b(c->dbg, child, 1, &sibling, &e);
    dwarf_dealloc_die(child);
    child = rc == DW_DLV_OK ? sibling : NULL;
  }
  return n;
}

/* The variables at PC in unit UNIT as libdwarf's tree gives them; 0 when no
   subprogram of the unit holds PC (then *FOUND is false). */
static size_t expected_vars(checker *c, Dwarf_Die unit, uint64_t pc, expected_var *out,
                            bool *found)
{
  static const Dwarf_Half subprogram[] = {DW_TAG_subprogram, 0};
  static const Dwarf_Half nested[] = {DW_TAG_lexical_block, DW_TAG_inlined_subroutine, 0};
  static const Dwarf_Half variables[] = {DW_TAG_variable, DW_TAG_formal_parameter, 0};
  static const Dwarf_Half globals[] = {DW_TAG_variable, 0};
  Dwarf_Die chain[MAX_DEPTH];
  size_t depth = 0, n = 0;
  *found = false;
  Dwarf_Die sub = child_holding(c, unit, pc, subprogram);
  if (sub == NULL)
    return 0;
  *found = true;
  chain[depth++] = sub;
  while (depth < MAX_DEPTH) {
    Dwarf_Die next = child_holding(c, chain[depth - 1], pc, nested);
    if (next == NULL)
      break;
    chain[depth++] = next;
  }
  for (size_t i = 0; i < depth; ++i) /* innermost first */
    n = add_children(c, chain[depth - 1 - i], variables, (uint32_t)i, out, n);
  n = add_children(c, unit, globals, (uint32_t)depth, out, n);
  for (size_t i = 0; i < depth; ++i)
    dwarf_dealloc_die(chain[i]);
  return n;
}

/* The scopes and variables at PC through references against the
   summaries' (GOT, COUNT of them). */
static void check_refs_at(checker *c, uint64_t pc, const amddwarf_var *got, size_t count)
{
  static amddwarf_var_ref refs[MAX_VARS];
  const amddwarf_die_info *scopes[MAX_DEPTH];
  amddwarf_die_ref scope_refs[MAX_DEPTH];
  size_t depth = 0, ref_depth = 0, n = 0;
  amddwarf_error err;
  if (amddwarf_object_scopes_at(c->object, pc, scopes, MAX_DEPTH, &depth) != AMDDWARF_OK ||
      amddwarf_object_scope_refs_at(c->object, pc, scope_refs, MAX_DEPTH, &ref_depth, &err) !=
          AMDDWARF_OK ||
      depth != ref_depth) {
    differ(c, pc, "(PC) %zu scopes, %zu through references", depth, ref_depth);
    return;
  }
  amddwarf_die_links links;
  for (size_t i = 0; i < depth && i < MAX_DEPTH; ++i)
    if (scope_refs[i].offset != scopes[i]->offset ||
        amddwarf_object_die_links(c->object, scope_refs[i], &links, &err) != AMDDWARF_OK)
      differ(c, pc, "(PC) scope %zu: 0x%" PRIx64 ", through references 0x%" PRIx64, i,
             scopes[i]->offset, scope_refs[i].offset);
  if (amddwarf_object_var_refs_at(c->object, pc, refs, MAX_VARS, &n, &err) != AMDDWARF_OK ||
      n != count) {
    differ(c, pc, "(PC) %zu variables, %zu through references (%s)", count, n,
           n != count ? "" : err.message);
    return;
  }
  for (size_t i = 0; i < n && i < MAX_VARS; ++i) {
    const amddwarf_var *v = &got[i];
    const amddwarf_var_ref *r = &refs[i];
    bool same = r->die.offset == v->die->offset && r->scope.offset == v->scope->offset &&
                r->depth == v->depth && r->available == v->available &&
                r->from_list == (v->entry != NULL) &&
                amddwarf_object_die_links(c->object, r->die, &links, &err) == AMDDWARF_OK &&
                amddwarf_object_die_links(c->object, r->scope, &links, &err) == AMDDWARF_OK;
    if (same && v->available)
      same = r->expr == v->expr && r->size == v->size;
    if (same && v->entry != NULL)
      same = r->entry.low == v->entry->low && r->entry.high == v->entry->high &&
             r->entry.offset == v->entry->offset;
    if (!same)
      differ(c, pc, "(PC) variable %zu 0x%" PRIx64 ": through references 0x%" PRIx64
                    " depth %u available %d (%zu bytes)",
             i, v->die->offset, r->die.offset, r->depth, r->available, r->size);
  }
}

static void check_vars_at(checker *c, Dwarf_Die unit, uint64_t pc)
{
  static expected_var want[MAX_VARS];
  static amddwarf_var got[MAX_VARS];
  bool found = false;
  size_t n = expected_vars(c, unit, pc, want, &found), count = 0;
  if (!found)
    return;
  ++c->pcs;
  amddwarf_status st = amddwarf_object_vars_at(c->object, pc, got, MAX_VARS, &count);
  if (st != AMDDWARF_OK) {
    differ(c, pc, "(PC) amddwarf_object_vars_at: %s", amddwarf_status_name(st));
    return;
  }
  if (count != n) {
    differ(c, pc, "(PC) %zu variables in libdwarf's scopes, amddwarf_object_vars_at %zu", n,
           count);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    ++c->vars;
    if (got[i].die->offset != want[i].offset || got[i].depth != want[i].depth)
      differ(c, pc, "(PC) variable %zu: 0x%" PRIx64 " at depth %u, library 0x%" PRIx64
                    " at depth %u",
             i, want[i].offset, want[i].depth, got[i].die->offset, got[i].depth);
  }
  check_refs_at(c, pc, got, count);
}

/* PCs spread over the unit's line table (at most PER_UNIT). */
static void check_unit_vars(checker *c, Dwarf_Die unit, size_t cu_index, size_t per_unit)
{
  const amddwarf_line_table *t = amddwarf_object_line_table(c->object, cu_index);
  if (t == NULL || t->row_count == 0)
    return;
  size_t stride = t->row_count / per_unit + 1;
  for (size_t r = 0; r < t->row_count; r += stride) {
    amddwarf_line_row row;
    amddwarf_object_line_row(c->object, t, r, &row);
    if (!(row.flags & AMDDWARF_LINE_END_SEQUENCE))
      check_vars_at(c, unit, row.address);
  }
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: die_tree_check OBJECT\n");
    return 1;
  }
  checker c;
  memset(&c, 0, sizeof c);
  amddwarf_object *object = NULL;
  amddwarf_error err;
  if (amddwarf_object_open_file(argv[1], NULL, &object, &err) != AMDDWARF_OK) {
    fprintf(stderr, "die_tree_check: %s\n", err.message);
    return 1;
  }
  c.object = object;
  Dwarf_Error e = NULL;
  if (dwarf_init_path(argv[1], NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &c.dbg, NULL,
                      0, NULL, &e) != DW_DLV_OK) {
    fprintf(stderr, "die_tree_check: libdwarf cannot open %s\n", argv[1]);
    amddwarf_object_close(object);
    return 1;
  }
  size_t units = amddwarf_object_cu_count(object);
  size_t per_unit = units ? MAX_PCS / units + 1 : 0;
  for (size_t u = 0;; ++u) {
    Dwarf_Unsigned length, abbrev, type_offset, next;
    Dwarf_Half version, address_size, offset_size, extension_size, unit_type;
    Dwarf_Sig8 signature;
    Dwarf_Die unit = NULL;
    if (dwarf_next_cu_header_d(c.dbg, 1, &length, &version, &abbrev, &address_size, &offset_size,
                               &extension_size, &signature, &type_offset, &next, &unit_type,
                               &e) != DW_DLV_OK)
      break;
    if (dwarf_siblingof_b(c.dbg, NULL, 1, &unit, &e) != DW_DLV_OK)
      break;
    const amddwarf_cu *cu = amddwarf_object_cu(object, u);
    c.version = version;
    c.unit_low_pc = cu != NULL ? cu->low_pc : 0;
    walk(&c, unit, cu != NULL ? amddwarf_object_die_at(object, cu->die_offset) : NULL, NULL, 0);
    check_unit_vars(&c, unit, u, per_unit);
    dwarf_dealloc_die(unit);
  }
  if (c.dies != amddwarf_object_die_count(object))
    differ(&c, 0, "libdwarf walked %zu DIEs, the library counts %zu", c.dies,
           amddwarf_object_die_count(object));
  printf("checked %zu DIEs, %zu attributes, %zu PCs, %zu variables: %zu differences\n", c.dies,
         c.attributes, c.pcs, c.vars, c.differences);
  dwarf_finish(c.dbg, &e);
  amddwarf_object_close(object);
  return c.differences ? 1 : 0;
}
