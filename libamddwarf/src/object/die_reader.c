/* Code objects: reading every unit and DIE of .debug_info into summaries.
 *
 * The walk decodes the abbreviation tables and attribute forms itself: going
 * through libdwarf's DIE and attribute calls (dwarf_child, dwarf_attrlist,
 * dwarf_formudata, ...) costs about 100 ns per byte of .debug_info with
 * Debian's libdwarf 20210528, twenty times the time budget of open (200 MB/s
 * of DWARF). libdwarf still serves the raw attribute listing of
 * amddwarf_object_die_attributes (dwarf.c) through the same relocated
 * sections, so the two readers are checked against each other by the tests.
 * All reads go through the bounds-checked reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"

#define AMDDWARF_DEFAULT_MAX_DIES 50000000u
#define AMDDWARF_MAX_DIE_DEPTH 512u
#define AMDDWARF_MAX_ABBREV_ATTRS 256u
/* Units whose DIEs span more bytes use binary searches to resolve. */
#define AMDDWARF_UNIT_MAP_MAX ((uint64_t)1 << 24)

/* Internal DIE record: the public summary. */
typedef struct die_node {
  amddwarf_die_info die;
} die_node;

/* A reference found by the walk: *SLOT gets the DIE at TARGET once every
   DIE exists. DIE is the referring DIE. */
typedef struct pending_ref {
  amddwarf_die_info *die;
  const amddwarf_die_info **slot;
  uint64_t target;
  bool resolved;
} pending_ref;

/* ---- abbreviations ---- */

typedef struct abbrev_attr {
  uint16_t at;
  uint16_t form;
  bool loc;            /* amddwarf_object_is_location_attribute(at) */
  int64_t implicit_const;
} abbrev_attr;

typedef struct abbrev {
  uint64_t code;
  uint16_t tag;
  uint8_t children;
  uint32_t count;
  const abbrev_attr *attrs;
} abbrev;

/* The abbreviations of one .debug_abbrev offset; codes 1..N are usually
   dense, so DENSE[code] finds them; others are searched in ALL. */
typedef struct abbrev_table {
  uint64_t offset;
  abbrev *all;
  size_t count;
  size_t capacity;
  abbrev **dense;
  size_t dense_count;
} abbrev_table;

static amddwarf_status read_abbrevs(amddwarf_object *object, uint64_t offset,
                                    abbrev_table *table, amddwarf_error *err)
{
  const amddwarf_section *s = object->sec_abbrev;
  amddwarf_reader r;
  abbrev_attr attrs[AMDDWARF_MAX_ABBREV_ATTRS];
  memset(table, 0, sizeof *table);
  table->offset = offset;
  if (s == NULL || offset >= s->size)
    return amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, offset,
                         ".debug_abbrev offset 0x%llx is outside the section",
                         (unsigned long long)offset);
  amddwarf_reader_init(&r, s->data, (size_t)s->size);
  r.pos = (size_t)offset;
  for (;;) {
    uint64_t code = 0, tag = 0, at = 0, form = 0;
    uint8_t children = 0;
    uint32_t n = 0;
    size_t at_pos = r.pos;
    if (amddwarf_read_uleb(&r, &code) != AMDDWARF_OK)
      goto truncated;
    if (code == 0)
      break;
    if (amddwarf_read_uleb(&r, &tag) != AMDDWARF_OK || amddwarf_read_u8(&r, &children) != AMDDWARF_OK)
      goto truncated;
    for (;;) {
      int64_t ic = 0;
      if (amddwarf_read_uleb(&r, &at) != AMDDWARF_OK || amddwarf_read_uleb(&r, &form) != AMDDWARF_OK)
        goto truncated;
      if (at == 0 && form == 0)
        break;
      if (form == DW_FORM_implicit_const && amddwarf_read_sleb(&r, &ic) != AMDDWARF_OK)
        goto truncated;
      if (n >= AMDDWARF_MAX_ABBREV_ATTRS)
        return amddwarf_fail(err, AMDDWARF_E_LIMIT, at_pos,
                             ".debug_abbrev at 0x%zx: more than %u attributes", at_pos,
                             AMDDWARF_MAX_ABBREV_ATTRS);
      attrs[n].at = (uint16_t)(at > 0xffff ? 0xffff : at);
      attrs[n].form = (uint16_t)(form > 0xffff ? 0xffff : form);
      attrs[n].loc = amddwarf_object_is_location_attribute(attrs[n].at);
      attrs[n].implicit_const = ic;
      ++n;
    }
    if (amddwarf_mem_reserve(&object->allocator, (void **)&table->all, &table->capacity,
                             table->count + 1, sizeof *table->all) != 0)
      return amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, at_pos, "abbreviations");
    abbrev *a = &table->all[table->count++];
    a->code = code;
    a->tag = (uint16_t)(tag > 0xffff ? 0xffff : tag);
    a->children = children;
    a->count = n;
    abbrev_attr *copy = amddwarf_arena_alloc(&object->arena, (n ? n : 1) * sizeof *copy, 8);
    if (copy == NULL)
      return amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, at_pos, "abbreviations");
    memcpy(copy, attrs, n * sizeof *copy);
    a->attrs = copy;
  }
  /* Dense index for codes up to 4 * count. */
  uint64_t max = 0;
  for (size_t i = 0; i < table->count; ++i)
    if (table->all[i].code > max)
      max = table->all[i].code;
  if (max <= 4 * (uint64_t)table->count + 16) {
    table->dense_count = (size_t)max + 1;
    table->dense = amddwarf_arena_calloc(&object->arena, table->dense_count, sizeof *table->dense);
    if (table->dense == NULL)
      return amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, offset, "abbreviations");
    for (size_t i = 0; i < table->count; ++i)
      table->dense[table->all[i].code] = &table->all[i];
  }
  return AMDDWARF_OK;
truncated:
  return amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, r.pos,
                       ".debug_abbrev at 0x%zx: an abbreviation runs past the section", r.pos);
}

static const abbrev *find_abbrev(const abbrev_table *t, uint64_t code)
{
  if (t->dense != NULL)
    return code < t->dense_count ? t->dense[code] : NULL;
  for (size_t i = 0; i < t->count; ++i)
    if (t->all[i].code == code)
      return &t->all[i];
  return NULL;
}

/* ---- units ---- */

typedef struct walker {
  amddwarf_object *object;
  amddwarf_cu *cu;
  amddwarf_error *err;
  uint32_t max_dies;
  bool saw_extension; /* an LLVM/AMDGPU extension attribute in this unit */
  bool saw_extension_op; /* a location or frame base with an extension operation */
  const abbrev_table *abbrevs;
  const amddwarf_section *str_offsets;
  uint64_t unit_end;
  size_t first_die;     /* index of the unit's first DIE */
  uint32_t *map;        /* object->unit_map for this unit, or NULL */
  uint64_t map_base, map_span;
} walker;

static amddwarf_status read_cstr_at(walker *w, const amddwarf_section *s, uint64_t offset,
                                    const char **out, uint64_t die_offset)
{
  if (s == NULL || offset >= s->size)
    return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                         "DIE 0x%llx: string offset 0x%llx is outside %s",
                         (unsigned long long)die_offset, (unsigned long long)offset,
                         s ? s->name : "the string section (absent)");
  const char *p = (const char *)s->data + offset;
  /* A section that ends in a NUL terminates every string in it. */
  if (s->data[s->size - 1] != '\0' && memchr(p, '\0', (size_t)(s->size - offset)) == NULL)
    return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                         "DIE 0x%llx: unterminated string in %s", (unsigned long long)die_offset,
                         s->name);
  *out = p;
  return AMDDWARF_OK;
}

/* amddwarf_read_uint inlined for the little-endian 1/2/4/8-byte reads of
   the attribute forms (the same bounds check; other cases go to it). */
static inline amddwarf_status read_fixed(amddwarf_reader *r, unsigned size, uint64_t *out)
{
  if (r->big_endian || amddwarf_reader_remaining(r) < size)
    return amddwarf_read_uint(r, size, out);
  const uint8_t *p = r->data + r->pos;
  uint64_t v;
  switch (size) {
  case 1: v = p[0]; break;
  case 2: v = (uint64_t)p[0] | (uint64_t)p[1] << 8; break;
  case 4:
    v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    break;
  case 8:
    v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
        (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
        (uint64_t)p[7] << 56;
    break;
  default: return amddwarf_read_uint(r, size, out);
  }
  r->pos += size;
  *out = v;
  return AMDDWARF_OK;
}

/* Reads one attribute value of FORM at R into OUT (amddwarf_attribute
   conventions of dwarf.c's libdwarf reader). BASES_ONLY: strings and
   indexed forms that need the unit's bases are skipped, not resolved. */
static amddwarf_status read_form(walker *w, amddwarf_reader *r, uint16_t at, bool loc,
                                 uint64_t form, int64_t implicit_const, amddwarf_attribute *out,
                                 uint64_t die_offset, bool bases_only, unsigned depth)
{
  const amddwarf_cu *cu = w->cu;
  amddwarf_object *object = w->object;
  amddwarf_attr_value *v = &out->value;
  amddwarf_status st = AMDDWARF_OK;
  uint64_t u = 0;
  const uint8_t *bytes = NULL;
  v->kind = AMDDWARF_ATTR_UNSIGNED;
  switch (form) {
  case DW_FORM_addr:
    st = read_fixed(r, cu->address_size, &v->u);
    break;
  case DW_FORM_addrx:
  case DW_FORM_GNU_addr_index:
  case DW_FORM_addrx1:
  case DW_FORM_addrx2:
  case DW_FORM_addrx3:
  case DW_FORM_addrx4:
    if (form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index)
      st = amddwarf_read_uleb(r, &u);
    else
      st = read_fixed(r, form == DW_FORM_addrx1 ? 1 : form == DW_FORM_addrx2 ? 2
                                 : form == DW_FORM_addrx3 ? 3 : 4, &u);
    v->u = u;
    if (st == AMDDWARF_OK && !bases_only)
      st = amddwarf_object_read_addrx(object, cu, u, &v->u, w->err);
    break;
  case DW_FORM_data1: st = read_fixed(r, 1, &v->u); break;
  case DW_FORM_data2: st = read_fixed(r, 2, &v->u); break;
  case DW_FORM_data4: st = read_fixed(r, 4, &v->u); break;
  case DW_FORM_data8: st = read_fixed(r, 8, &v->u); break;
  case DW_FORM_udata: st = amddwarf_read_uleb(r, &v->u); break;
  case DW_FORM_sdata:
    st = amddwarf_read_sleb(r, &v->s);
    v->kind = AMDDWARF_ATTR_SIGNED;
    v->u = (uint64_t)v->s;
    break;
  case DW_FORM_implicit_const:
    v->kind = AMDDWARF_ATTR_SIGNED;
    v->s = implicit_const;
    v->u = (uint64_t)implicit_const;
    break;
  case DW_FORM_data16:
    st = amddwarf_read_bytes(r, 16, &bytes);
    v->kind = AMDDWARF_ATTR_BLOCK;
    v->bytes = bytes;
    v->size = 16;
    break;
  case DW_FORM_flag:
    st = read_fixed(r, 1, &v->u);
    v->u = v->u != 0;
    break;
  case DW_FORM_flag_present:
    v->u = 1;
    break;
  case DW_FORM_string: {
    size_t len = 0;
    st = amddwarf_read_cstr(r, &v->string, &len);
    v->kind = AMDDWARF_ATTR_STRING;
    break;
  }
  case DW_FORM_strp:
  case DW_FORM_line_strp:
  case DW_FORM_strp_sup:
  case DW_FORM_GNU_strp_alt:
    st = read_fixed(r, cu->offset_size, &u);
    v->kind = AMDDWARF_ATTR_STRING;
    if (st == AMDDWARF_OK && !bases_only) {
      const amddwarf_section *s = form == DW_FORM_line_strp ? object->sec_line_str
                                                             : object->sec_str;
      if (form == DW_FORM_strp_sup || form == DW_FORM_GNU_strp_alt)
        v->string = NULL; /* supplementary files are not read */
      else
        st = read_cstr_at(w, s, u, &v->string, die_offset);
    }
    break;
  case DW_FORM_strx:
  case DW_FORM_GNU_str_index:
  case DW_FORM_strx1:
  case DW_FORM_strx2:
  case DW_FORM_strx3:
  case DW_FORM_strx4:
    if (form == DW_FORM_strx || form == DW_FORM_GNU_str_index)
      st = amddwarf_read_uleb(r, &u);
    else
      st = read_fixed(r, form == DW_FORM_strx1 ? 1 : form == DW_FORM_strx2 ? 2
                                 : form == DW_FORM_strx3 ? 3 : 4, &u);
    v->kind = AMDDWARF_ATTR_STRING;
    if (st == AMDDWARF_OK && !bases_only) {
      uint64_t at_off = 0, str = 0;
      const amddwarf_section *so = w->str_offsets;
      if (so == NULL || amddwarf_mul_overflow_u64(u, cu->offset_size, &at_off) ||
          amddwarf_add_overflow_u64(at_off, cu->str_offsets_base, &at_off) ||
          !amddwarf_range_fits(at_off, cu->offset_size, so->size))
        return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                             "DIE 0x%llx: string index %llu is outside .debug_str_offsets",
                             (unsigned long long)die_offset, (unsigned long long)u);
      amddwarf_reader sr;
      amddwarf_reader_init(&sr, so->data + at_off, cu->offset_size);
      st = amddwarf_read_uint(&sr, cu->offset_size, &str);
      if (st == AMDDWARF_OK)
        st = read_cstr_at(w, object->sec_str, str, &v->string, die_offset);
    }
    break;
  case DW_FORM_ref1:
  case DW_FORM_ref2:
  case DW_FORM_ref4:
  case DW_FORM_ref8:
  case DW_FORM_ref_udata:
    if (form == DW_FORM_ref_udata)
      st = amddwarf_read_uleb(r, &u);
    else
      st = read_fixed(r, form == DW_FORM_ref1 ? 1 : form == DW_FORM_ref2 ? 2
                                 : form == DW_FORM_ref4 ? 4 : 8, &u);
    v->kind = AMDDWARF_ATTR_REF;
    v->offset = cu->offset + u;
    break;
  case DW_FORM_ref_addr:
    st = read_fixed(r, cu->version <= 2 ? cu->address_size : cu->offset_size, &u);
    v->kind = AMDDWARF_ATTR_REF;
    v->offset = u;
    break;
  case DW_FORM_ref_sig8:
    st = read_fixed(r, 8, &v->u);
    break;
  case DW_FORM_ref_sup4:
  case DW_FORM_ref_sup8:
  case DW_FORM_GNU_ref_alt:
    st = read_fixed(r, form == DW_FORM_ref_sup4 ? 4 : cu->offset_size, &v->u);
    break;
  case DW_FORM_exprloc:
  case DW_FORM_block:
  case DW_FORM_block1:
  case DW_FORM_block2:
  case DW_FORM_block4:
    if (form == DW_FORM_exprloc || form == DW_FORM_block)
      st = amddwarf_read_uleb(r, &u);
    else
      st = read_fixed(r, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4, &u);
    if (st == AMDDWARF_OK)
      st = amddwarf_read_bytes(r, u, &bytes);
    v->kind = (form == DW_FORM_exprloc || loc) ? AMDDWARF_ATTR_EXPR : AMDDWARF_ATTR_BLOCK;
    v->bytes = bytes;
    v->size = (size_t)u;
    break;
  case DW_FORM_sec_offset:
    st = read_fixed(r, cu->offset_size, &v->u);
    v->offset = v->u;
    if (loc)
      v->kind = AMDDWARF_ATTR_LIST;
    break;
  case DW_FORM_loclistx:
  case DW_FORM_rnglistx:
    st = amddwarf_read_uleb(r, &v->u);
    v->offset = v->u;
    if (loc)
      v->kind = AMDDWARF_ATTR_LIST;
    break;
  case DW_FORM_indirect: {
    uint64_t real = 0;
    if (depth > 4)
      return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                           "DIE 0x%llx: DW_FORM_indirect chain", (unsigned long long)die_offset);
    st = amddwarf_read_uleb(r, &real);
    if (st == AMDDWARF_OK)
      return read_form(w, r, at, loc, real, implicit_const, out, die_offset, bases_only,
                       depth + 1);
    break;
  }
  default:
    return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                         "DIE 0x%llx: attribute 0x%x has unknown form 0x%llx",
                         (unsigned long long)die_offset, at, (unsigned long long)form);
  }
  /* DWARF 2/3: a location attribute in a data4/data8 form is a list offset. */
  if (st == AMDDWARF_OK && loc && cu->version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8) &&
      at != DW_AT_data_member_location) {
    v->kind = AMDDWARF_ATTR_LIST;
    v->offset = v->u;
  }
  out->form = (uint16_t)form;
  v->form = (uint16_t)form;
  if (st != AMDDWARF_OK && st != AMDDWARF_E_OBJECT_BAD_LIST && st != AMDDWARF_E_OBJECT_DWARF)
    return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, r->pos,
                         "DIE 0x%llx: attribute 0x%x (form 0x%llx) runs past the end of its unit",
                         (unsigned long long)die_offset, at, (unsigned long long)form);
  return st;
}

/* Plain constants (a member's DW_AT_data_member_location, a bound) repeat
   across DIEs and are never changed after the walk: one shared copy each. */
static bool is_plain_constant(const amddwarf_attr_value *v)
{
  return (v->kind == AMDDWARF_ATTR_UNSIGNED || v->kind == AMDDWARF_ATTR_SIGNED) &&
         v->bytes == NULL && v->size == 0 && v->entries == NULL && v->count == 0 &&
         v->ref == NULL && v->string == NULL;
}

static bool same_constant(const amddwarf_attr_value *x, const amddwarf_attr_value *y)
{
  return x->kind == y->kind && x->attribute == y->attribute && x->form == y->form &&
         x->u == y->u && x->s == y->s && x->offset == y->offset;
}

static size_t constant_hash(const amddwarf_attr_value *v)
{
  uint64_t h = v->u * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)v->attribute << 32) ^ ((uint64_t)v->form << 16) ^ (uint64_t)v->kind ^
       (v->offset * 0xc2b2ae3d27d4eb4full) ^ ((uint64_t)v->s << 7);
  return (size_t)(h ^ (h >> 29));
}

/* The shared copy of constant V in the object's table (grown at half
   load), or NULL when out of memory. */
static const amddwarf_attr_value *intern_constant(walker *w, const amddwarf_attr_value *v)
{
  amddwarf_object *object = w->object;
  if (2 * (object->constant_count + 1) > object->constant_capacity) {
    size_t cap = object->constant_capacity ? object->constant_capacity * 2 : 256;
    const amddwarf_attr_value **grown = amddwarf_mem_alloc(&object->allocator, cap * sizeof *grown);
    if (grown == NULL)
      return NULL;
    memset(grown, 0, cap * sizeof *grown);
    for (size_t i = 0; i < object->constant_capacity; ++i) {
      const amddwarf_attr_value *c = object->constants[i];
      if (c == NULL)
        continue;
      size_t k = constant_hash(c) & (cap - 1);
      while (grown[k] != NULL)
        k = (k + 1) & (cap - 1);
      grown[k] = c;
    }
    if (object->constants != NULL)
      amddwarf_mem_free(&object->allocator, (void *)object->constants,
                        object->constant_capacity * sizeof *object->constants);
    object->constants = grown;
    object->constant_capacity = cap;
  }
  size_t mask = object->constant_capacity - 1, k = constant_hash(v) & mask;
  for (; object->constants[k] != NULL; k = (k + 1) & mask)
    if (same_constant(object->constants[k], v))
      return object->constants[k];
  amddwarf_attr_value *copy = amddwarf_arena_alloc(&object->arena, sizeof *copy, 8);
  if (copy == NULL)
    return NULL;
  *copy = *v;
  object->constants[k] = copy;
  object->constant_count++;
  return copy;
}

static amddwarf_status keep_value(walker *w, const amddwarf_attribute *a,
                                  const amddwarf_attr_value **slot, uint64_t die_offset)
{
  if (is_plain_constant(&a->value)) {
    const amddwarf_attr_value *shared = intern_constant(w, &a->value);
    if (shared == NULL)
      return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, die_offset, "DIE attribute values");
    *slot = shared;
    return AMDDWARF_OK;
  }
  amddwarf_attr_value *v = amddwarf_arena_alloc(&w->object->arena, sizeof *v, 8);
  if (v == NULL)
    return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, die_offset, "DIE attribute values");
  *v = a->value;
  if (v->kind == AMDDWARF_ATTR_LIST) {
    amddwarf_status st =
        amddwarf_object_read_loclist(w->object, w->cu, a->form, a->value.u, v, w->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  *slot = v;
  return AMDDWARF_OK;
}

/* What one DIE's attributes leave for the end of the DIE. */
typedef struct pc_attrs {
  uint64_t low, high;
  bool has_low, has_high, high_is_offset;
  uint64_t type_ref;   /* .debug_info offsets, UINT64_MAX when absent */
  uint64_t origin_ref;
} pc_attrs;

static bool value_has_extension_op(const amddwarf_object *object, const amddwarf_cu *cu,
                                   const amddwarf_attr_value *v);

static amddwarf_status apply_attribute(walker *w, die_node *node, const amddwarf_attribute *ap,
                                       pc_attrs *pc)
{
  amddwarf_object *object = w->object;
  amddwarf_die_info *die = &node->die;
  amddwarf_status st = AMDDWARF_OK;
  const amddwarf_attr_value *v = &ap->value;
  if (die->depth == 0) {
    if (ap->attribute == DW_AT_producer)
      w->cu->producer = v->string;
    else if (ap->attribute == DW_AT_comp_dir)
      w->cu->comp_dir = v->string;
  }
  switch (ap->attribute) {
  case DW_AT_name: die->name = v->string; break;
  case DW_AT_linkage_name:
  case DW_AT_MIPS_linkage_name: die->linkage_name = v->string; break;
  case DW_AT_type: pc->type_ref = v->offset; break;
  case DW_AT_abstract_origin:
  case DW_AT_specification: pc->origin_ref = v->offset; break;
  case DW_AT_decl_file: die->decl_file = (uint32_t)v->u; break;
  case DW_AT_decl_line: die->decl_line = (uint32_t)v->u; break;
  case DW_AT_call_file: die->call_file = (uint32_t)v->u; break;
  case DW_AT_call_line: die->call_line = (uint32_t)v->u; break;
  case DW_AT_call_column: die->call_column = (uint32_t)v->u; break;
  case DW_AT_byte_size:
    if (v->kind == AMDDWARF_ATTR_UNSIGNED || v->kind == AMDDWARF_ATTR_SIGNED) {
      die->byte_size = v->u;
      die->flags |= AMDDWARF_DIE_HAS_BYTE_SIZE;
    }
    break;
  case DW_AT_bit_size:
    die->bit_size = v->u;
    die->flags |= AMDDWARF_DIE_HAS_BIT_SIZE;
    break;
  case DW_AT_data_bit_offset:
    die->data_bit_offset = v->u;
    die->flags |= AMDDWARF_DIE_HAS_DATA_BIT_OFFSET;
    break;
  case DW_AT_encoding: die->encoding = (uint32_t)v->u; break;
  case DW_AT_address_class:
    die->address_class = (uint32_t)v->u;
    die->flags |= AMDDWARF_DIE_HAS_ADDRESS_CLASS;
    break;
  case AMDDWARF_DW_AT_LLVM_ADDRESS_SPACE:
    die->address_space = (uint32_t)v->u;
    die->flags |= AMDDWARF_DIE_HAS_ADDRESS_SPACE;
    w->saw_extension = true;
    break;
  case AMDDWARF_DW_AT_LLVM_MEMORY_SPACE:
    die->memory_space = (uint32_t)v->u;
    die->flags |= AMDDWARF_DIE_HAS_MEMORY_SPACE;
    w->saw_extension = true;
    break;
  case AMDDWARF_DW_AT_LLVM_VECTOR_SIZE_OLD:
  case AMDDWARF_DW_AT_LLVM_VECTOR_SIZE:
    die->vector_size = (uint32_t)v->u;
    if (ap->attribute == AMDDWARF_DW_AT_LLVM_VECTOR_SIZE_OLD)
      die->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    w->saw_extension = true;
    break;
  case AMDDWARF_DW_AT_LLVM_LANES_OLD:
  case AMDDWARF_DW_AT_LLVM_LANES:
    die->lanes = (uint32_t)v->u;
    if (ap->attribute == AMDDWARF_DW_AT_LLVM_LANES_OLD)
      die->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    w->saw_extension = true;
    break;
  case AMDDWARF_DW_AT_LLVM_LANE_PC_OLD:
  case AMDDWARF_DW_AT_LLVM_LANE_PC:
    if (ap->attribute == AMDDWARF_DW_AT_LLVM_LANE_PC_OLD)
      die->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    w->saw_extension = true;
    st = keep_value(w, ap, &die->lane_pc, die->offset);
    break;
  case AMDDWARF_DW_AT_LLVM_ACTIVE_LANE_OLD:
    /* Only an expression or list form makes 0x3e08 the active-lane
       attribute (LLVM now uses the number for a flag). */
    if (v->kind == AMDDWARF_ATTR_EXPR || v->kind == AMDDWARF_ATTR_LIST) {
      die->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
      w->saw_extension = true;
      st = keep_value(w, ap, &die->active_lane, die->offset);
    }
    break;
  case AMDDWARF_DW_AT_LLVM_AUGMENTATION_OLD:
    if (v->kind == AMDDWARF_ATTR_STRING && die->tag == DW_TAG_compile_unit) {
      w->cu->augmentation = v->string;
      w->saw_extension = true;
    }
    break;
  case DW_AT_GNU_vector: die->flags |= AMDDWARF_DIE_GNU_VECTOR; break;
  case DW_AT_external: if (v->u) die->flags |= AMDDWARF_DIE_EXTERNAL; break;
  case DW_AT_declaration: if (v->u) die->flags |= AMDDWARF_DIE_DECLARATION; break;
  case DW_AT_artificial: if (v->u) die->flags |= AMDDWARF_DIE_ARTIFICIAL; break;
  case DW_AT_low_pc: pc->low = v->u; pc->has_low = true; break;
  case DW_AT_high_pc:
    pc->high = v->u;
    pc->has_high = true;
    pc->high_is_offset = true;
    if (ap->form == DW_FORM_addr || ap->form == DW_FORM_addrx || ap->form == DW_FORM_addrx1 ||
        ap->form == DW_FORM_addrx2 || ap->form == DW_FORM_addrx3 || ap->form == DW_FORM_addrx4 ||
        ap->form == DW_FORM_GNU_addr_index)
      pc->high_is_offset = false;
    break;
  case DW_AT_ranges:
    st = amddwarf_object_read_ranges(object, w->cu, ap->form, v->u, &die->ranges,
                                     &die->range_count, w->err);
    break;
  case DW_AT_location:
    st = keep_value(w, ap, &die->location, die->offset);
    if (st == AMDDWARF_OK && !w->saw_extension && !w->saw_extension_op)
      w->saw_extension_op = value_has_extension_op(object, w->cu, die->location);
    break;
  case DW_AT_frame_base:
    st = keep_value(w, ap, &die->frame_base, die->offset);
    if (st == AMDDWARF_OK && !w->saw_extension && !w->saw_extension_op)
      w->saw_extension_op = value_has_extension_op(object, w->cu, die->frame_base);
    break;
  case DW_AT_const_value: st = keep_value(w, ap, &die->const_value, die->offset); break;
  case DW_AT_data_member_location:
    st = keep_value(w, ap, &die->data_member_location, die->offset);
    break;
  case DW_AT_lower_bound: st = keep_value(w, ap, &die->lower_bound, die->offset); break;
  case DW_AT_upper_bound: st = keep_value(w, ap, &die->upper_bound, die->offset); break;
  case DW_AT_count: st = keep_value(w, ap, &die->count, die->offset); break;
  default: break;
  }
  return st;
}

static amddwarf_status finish_ranges(walker *w, amddwarf_die_info *die, const pc_attrs *pc)
{
  if (pc->has_low && (pc->has_high || die->tag == DW_TAG_label) && die->ranges == NULL) {
    amddwarf_range *r = amddwarf_arena_alloc(&w->object->arena, sizeof *r, 8);
    if (r == NULL)
      return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, die->offset, "DIE ranges");
    r->low = pc->low;
    r->high = !pc->has_high ? pc->low + 1 : pc->high_is_offset ? pc->low + pc->high : pc->high;
    die->ranges = r;
    die->range_count = 1;
  }
  return AMDDWARF_OK;
}

/* The unit DIE's bases (addr_base, str_offsets_base, ...) first: the other
   attributes of the unit DIE may need them. */
static amddwarf_status read_unit_bases(walker *w, amddwarf_reader r, const abbrev *ab,
                                       uint64_t die_offset)
{
  amddwarf_cu *cu = w->cu;
  uint64_t low_index = UINT64_MAX;
  cu->line_offset = UINT64_MAX;
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_attribute a;
    memset(&a, 0, sizeof a);
    a.attribute = ab->attrs[i].at;
    amddwarf_status st = read_form(w, &r, ab->attrs[i].at, ab->attrs[i].loc, ab->attrs[i].form,
                                   ab->attrs[i].implicit_const, &a, die_offset, true, 0);
    if (st != AMDDWARF_OK)
      return st;
    switch (a.attribute) {
    case DW_AT_addr_base:
    case DW_AT_GNU_addr_base: cu->addr_base = a.value.u; break;
    case DW_AT_loclists_base: cu->loclists_base = a.value.u; break;
    case DW_AT_rnglists_base: cu->rnglists_base = a.value.u; break;
    case DW_AT_str_offsets_base: cu->str_offsets_base = a.value.u; break;
    case DW_AT_stmt_list: cu->line_offset = a.value.u; break;
    case DW_AT_language: cu->language = (uint32_t)a.value.u; break;
    case DW_AT_low_pc:
      if (a.form == DW_FORM_addr)
        cu->low_pc = a.value.u;
      else
        low_index = a.value.u; /* an address index, resolved below */
      break;
    default: break;
    }
  }
  if (low_index != UINT64_MAX) {
    amddwarf_status st = amddwarf_object_read_addrx(w->object, cu, low_index, &cu->low_pc, w->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  /* DWARF 5 without DW_AT_str_offsets_base: the first table, after its header. */
  if (cu->version >= 5 && cu->str_offsets_base == 0 && w->str_offsets != NULL)
    cu->str_offsets_base = cu->offset_size == 8 ? 16 : 8;
  return AMDDWARF_OK;
}

/* Member-wise zeroing: a memset of the whole struct per attribute compiles
   to `rep stos`, which was the single largest cost of the walk. */
static inline void clear_attribute(amddwarf_attribute *a, uint16_t at)
{
  _Static_assert(sizeof(amddwarf_attr_value) ==
                     offsetof(amddwarf_attr_value, string) + sizeof(const char *),
                 "clear_attribute zeroes every member of amddwarf_attr_value");
  a->attribute = at;
  a->form = 0;
  a->value.kind = AMDDWARF_ATTR_NONE;
  a->value.attribute = at;
  a->value.form = 0;
  a->value.u = 0;
  a->value.s = 0;
  a->value.bytes = NULL;
  a->value.size = 0;
  a->value.entries = NULL;
  a->value.count = 0;
  a->value.offset = 0;
  a->value.ref = NULL;
  a->value.string = NULL;
}

static amddwarf_status add_pending(walker *w, amddwarf_die_info *die,
                                   const amddwarf_die_info **slot, uint64_t target)
{
  amddwarf_object *object = w->object;
  bool resolved = false;
  /* A reference to a DIE already walked in this unit resolves now, while
     the referring DIE is in the cache. */
  if (w->map != NULL && target >= w->map_base && target - w->map_base < w->map_span &&
      w->map[target - w->map_base] != UINT32_MAX) {
    *slot = object->dies[w->first_die + w->map[target - w->map_base]];
    if (slot != &die->origin) /* origins are listed for resolve_all's inheritance */
      return AMDDWARF_OK;
    resolved = true;
  }
  if (object->pending_ref_count >= object->pending_ref_capacity &&
      amddwarf_mem_reserve(&object->allocator, &object->pending_refs,
                           &object->pending_ref_capacity, object->pending_ref_count + 1,
                           sizeof(pending_ref)) != 0)
    return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, die->offset, "DIE references");
  pending_ref *p = (pending_ref *)object->pending_refs + object->pending_ref_count++;
  p->die = die;
  p->slot = slot;
  p->target = target;
  p->resolved = resolved;
  return AMDDWARF_OK;
}

static amddwarf_status note_value_ref(walker *w, amddwarf_die_info *die,
                                      const amddwarf_attr_value *v)
{
  if (v == NULL || v->kind != AMDDWARF_ATTR_REF)
    return AMDDWARF_OK;
  amddwarf_attr_value *mv = (amddwarf_attr_value *)(uintptr_t)v;
  return add_pending(w, die, &mv->ref, v->offset);
}

/* Records the references of DIE for resolve_all, in the order they are
   checked: type, origin, then the bounds. */
static amddwarf_status note_references(walker *w, amddwarf_die_info *die, const pc_attrs *pc)
{
  amddwarf_status st = AMDDWARF_OK;
  if (pc->type_ref != UINT64_MAX)
    st = add_pending(w, die, &die->type, pc->type_ref);
  if (st == AMDDWARF_OK && pc->origin_ref != UINT64_MAX)
    st = add_pending(w, die, &die->origin, pc->origin_ref);
  if (st == AMDDWARF_OK)
    st = note_value_ref(w, die, die->lower_bound);
  if (st == AMDDWARF_OK)
    st = note_value_ref(w, die, die->upper_bound);
  if (st == AMDDWARF_OK)
    st = note_value_ref(w, die, die->count);
  return st;
}

static amddwarf_status walk_unit(walker *w, amddwarf_reader *r, die_node **root)
{
  amddwarf_object *object = w->object;
  die_node *stack[AMDDWARF_MAX_DIE_DEPTH + 1];
  die_node *last[AMDDWARF_MAX_DIE_DEPTH + 1];
  size_t depth = 0;
  amddwarf_status st;
  *root = NULL;
  while (r->pos < w->unit_end) {
    uint64_t off = r->pos, code = 0;
    if ((st = amddwarf_read_uleb(r, &code)) != AMDDWARF_OK)
      return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, off,
                           ".debug_info at 0x%llx: truncated abbreviation code",
                           (unsigned long long)off);
    if (code == 0) {
      if (depth == 0) /* padding after the unit DIE's children */
        continue;
      --depth;
      if (depth == 0)
        break;
      continue;
    }
    const abbrev *ab = find_abbrev(w->abbrevs, code);
    if (ab == NULL)
      return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, off,
                           ".debug_info at 0x%llx: abbreviation code %llu is not in the table at "
                           ".debug_abbrev 0x%llx",
                           (unsigned long long)off, (unsigned long long)code,
                           (unsigned long long)w->abbrevs->offset);
    if (*root != NULL && depth == 0)
      return amddwarf_fail(w->err, AMDDWARF_E_OBJECT_DWARF, off,
                           ".debug_info at 0x%llx: a second top-level DIE in the unit",
                           (unsigned long long)off);
    if (object->die_count >= w->max_dies)
      return amddwarf_fail(w->err, AMDDWARF_E_LIMIT, off, "more than %u DIEs (options.max_dies)",
                           w->max_dies);
    die_node *node = amddwarf_arena_alloc(&object->arena, sizeof *node, 8);
    if (node == NULL ||
        (object->die_count >= object->die_capacity &&
         amddwarf_mem_reserve(&object->allocator, (void **)&object->dies, &object->die_capacity,
                              object->die_count + 1, sizeof *object->dies) != 0) ||
        (object->die_count >= object->die_offset_capacity &&
         amddwarf_mem_reserve(&object->allocator, (void **)&object->die_offsets,
                              &object->die_offset_capacity, object->die_count + 1,
                              sizeof *object->die_offsets) != 0))
      return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, off, "DIE table");
    memset(node, 0, sizeof *node);
    amddwarf_die_info *die = &node->die;
    die->offset = off;
    die->tag = ab->tag;
    die->depth = (uint16_t)depth;
    die->cu_index = w->cu->index;
    die->parent = depth ? &stack[depth - 1]->die : NULL;
    if (depth) {
      if (last[depth] != NULL)
        last[depth]->die.next_sibling = die;
      else
        stack[depth - 1]->die.first_child = die;
      last[depth] = node;
    } else {
      *root = node;
      if ((st = read_unit_bases(w, *r, ab, off)) != AMDDWARF_OK)
        return st;
    }
    object->die_offsets[object->die_count] = off;
    if (w->map != NULL && off - w->map_base < w->map_span)
      w->map[off - w->map_base] = (uint32_t)(object->die_count - w->first_die);
    object->dies[object->die_count++] = die;
    pc_attrs pc;
    pc.low = pc.high = 0;
    pc.has_low = pc.has_high = pc.high_is_offset = false;
    pc.type_ref = UINT64_MAX;
    pc.origin_ref = UINT64_MAX;
    for (uint32_t i = 0; i < ab->count; ++i) {
      amddwarf_attribute a;
      clear_attribute(&a, ab->attrs[i].at);
      st = read_form(w, r, ab->attrs[i].at, ab->attrs[i].loc, ab->attrs[i].form,
                     ab->attrs[i].implicit_const, &a, off, false, 0);
      if (st == AMDDWARF_OK)
        st = apply_attribute(w, node, &a, &pc);
      if (st != AMDDWARF_OK)
        return st;
    }
    if ((st = finish_ranges(w, die, &pc)) != AMDDWARF_OK ||
        (st = note_references(w, die, &pc)) != AMDDWARF_OK)
      return st;
    if (die->tag == DW_TAG_subprogram) {
      if (amddwarf_mem_reserve(&object->allocator, (void **)&object->subprograms,
                               &object->subprogram_capacity, object->subprogram_count + 1,
                               sizeof *object->subprograms) != 0)
        return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, off, "subprogram table");
      object->subprograms[object->subprogram_count++] = die;
    } else if (die->tag == DW_TAG_variable && depth == 1) {
      if (amddwarf_mem_reserve(&object->allocator, (void **)&object->globals,
                               &object->global_capacity, object->global_count + 1,
                               sizeof *object->globals) != 0)
        return amddwarf_fail(w->err, AMDDWARF_E_NO_MEMORY, off, "unit variable table");
      object->globals[object->global_count].die = die;
      object->globals[object->global_count++].cu_index = w->cu->index;
    }
    if (ab->children) {
      if (depth >= AMDDWARF_MAX_DIE_DEPTH)
        return amddwarf_fail(w->err, AMDDWARF_E_LIMIT, off,
                             "DIE 0x%llx: nesting deeper than %u", (unsigned long long)off,
                             AMDDWARF_MAX_DIE_DEPTH);
      stack[depth] = node;
      ++depth;
      last[depth] = NULL;
    } else if (depth == 0) {
      break;
    }
  }
  return AMDDWARF_OK;
}

/* Scans an expression for extension operations: the raw opcodes 0xe1-0xec
   that no standard or GNU operation uses (DESIGN.md section 6). */
static bool bytes_have_extension_op(const amddwarf_object *object, const amddwarf_cu *cu,
                                    const uint8_t *bytes, size_t size)
{
  amddwarf_op ops[64];
  size_t count = 0;
  (void)object;
  if (size == 0 || size > 4096)
    return false;
  /* Every extension opcode is a byte >= 0xe0: without one there is none. */
  bool candidate = false;
  for (size_t i = 0; i < size && !candidate; ++i)
    candidate = bytes[i] >= 0xe0;
  if (!candidate)
    return false;
  amddwarf_op *heap = NULL;
  amddwarf_op *use = ops;
  if (size > 64) {
    heap = malloc(size * sizeof *heap);
    if (heap == NULL)
      return false;
    use = heap;
  }
  amddwarf_expr_format f = cu->format;
  f.dialect = AMDDWARF_DIALECT_AUTO;
  bool found = false;
  amddwarf_expr_decode(bytes, size, &f, use, size, &count, NULL);
  for (size_t i = 0; i < count && !found; ++i) {
    const amddwarf_op_info *info = amddwarf_op_info_get(use[i].kind);
    if (info != NULL && info->code < 0)
      found = true;
  }
  free(heap);
  return found;
}

static bool value_has_extension_op(const amddwarf_object *object, const amddwarf_cu *cu,
                                   const amddwarf_attr_value *v)
{
  if (v == NULL)
    return false;
  if (v->kind == AMDDWARF_ATTR_EXPR)
    return bytes_have_extension_op(object, cu, v->bytes, v->size);
  if (v->kind == AMDDWARF_ATTR_LIST)
    for (size_t i = 0; i < v->count; ++i)
      if (bytes_have_extension_op(object, cu, v->entries[i].expr, v->entries[i].size))
        return true;
  return false;
}

static void choose_convention(amddwarf_object *object, amddwarf_cu *cu, bool saw_extension,
                              bool saw_extension_op)
{
  amddwarf_convention forced = object->options.convention;
  const char *reason = NULL;
  bool ext = false;
  if (cu->augmentation != NULL) {
    ext = true;
    reason = "the unit has a DW_AT_LLVM_augmentation string";
  } else if (saw_extension) {
    ext = true;
    reason = "the unit uses DW_AT_LLVM_* extension attributes";
  } else if (saw_extension_op) {
    ext = true;
    reason = "a location uses DW_OP_LLVM_* extension operations";
  }
  if (!ext)
    reason = "no extension attribute, operation or augmentation: upstream clang conventions";
  cu->convention = ext ? AMDDWARF_CONVENTION_EXTENSION : AMDDWARF_CONVENTION_LEGACY;
  if (forced != AMDDWARF_CONVENTION_AUTO) {
    cu->convention = forced;
    reason = "chosen by the caller";
  }
  cu->convention_reason = reason;
  if (object->options.dialect != AMDDWARF_DIALECT_AUTO)
    cu->format.dialect = object->options.dialect;
}

/* The DIE at OFFSET among dies[first, end), or NULL. A binary search over
   the compact offset array: no DIE summary is touched until the hit. */
static const amddwarf_die_info *die_in_range(const amddwarf_object *object, size_t first,
                                             size_t end, uint64_t offset)
{
  if (first >= end || object->die_offsets == NULL)
    return NULL;
  const uint64_t *keys = object->die_offsets;
  size_t lo = first, n = end - first;
  while (n > 1) {
    size_t half = n / 2;
    if (keys[lo + half] <= offset)
      lo += half;
    n -= half;
  }
  return keys[lo] == offset ? object->dies[lo] : NULL;
}

const amddwarf_die_info *amddwarf_object_die_at(const amddwarf_object *object, uint64_t offset)
{
  if (object == NULL)
    return NULL;
  return die_in_range(object, 0, object->die_count, offset);
}

/* Resolves the references recorded since FIRST_REF that land in the unit
   just walked (its DIEs start at FIRST_DIE), while the unit is still in
   the cache; the others wait for resolve_all. */
/* Resolves the references recorded since FIRST_REF that land in the unit
   just walked, while it is still in the cache; the others wait for
   resolve_all. */
static void resolve_unit(amddwarf_object *object, size_t first_ref, const walker *w)
{
  pending_ref *refs = object->pending_refs;
  for (size_t i = first_ref; i < object->pending_ref_count; ++i) {
    if (refs[i].resolved)
      continue;
    const amddwarf_die_info *hit = NULL;
    uint64_t t = refs[i].target;
    if (w->map != NULL) {
      if (t >= w->map_base && t - w->map_base < w->map_span &&
          w->map[t - w->map_base] != UINT32_MAX)
        hit = object->dies[w->first_die + w->map[t - w->map_base]];
    } else {
      hit = die_in_range(object, w->first_die, object->die_count, t);
    }
    if (hit != NULL) {
      *refs[i].slot = hit;
      refs[i].resolved = true;
    }
  }
}

static amddwarf_status resolve_all(amddwarf_object *object, amddwarf_error *err)
{
  pending_ref *refs = object->pending_refs;
  size_t count = object->pending_ref_count;
  for (size_t i = 0; i < count; ++i) {
    if (refs[i].resolved)
      continue;
    const amddwarf_die_info *hit = amddwarf_object_die_at(object, refs[i].target);
    if (hit == NULL)
      return amddwarf_fail(err, AMDDWARF_E_OBJECT_BAD_REFERENCE, refs[i].die->offset,
                           "DIE 0x%llx refers to 0x%llx, where no DIE starts",
                           (unsigned long long)refs[i].die->offset,
                           (unsigned long long)refs[i].target);
    *refs[i].slot = hit;
  }
  /* Inherit the name, type and declaration from the origin chain (DIEs with
     an origin, in offset order). */
  for (size_t i = 0; i < count; ++i) {
    amddwarf_die_info *d = refs[i].die;
    if (refs[i].slot != &d->origin)
      continue;
    const amddwarf_die_info *o = d->origin;
    for (int hops = 0; o != NULL && hops < 8; ++hops, o = o->origin) {
      if (d->name == NULL)
        d->name = o->name;
      if (d->linkage_name == NULL)
        d->linkage_name = o->linkage_name;
      if (d->type == NULL)
        d->type = o->type;
      if (d->decl_line == 0) {
        d->decl_line = o->decl_line;
        d->decl_file = o->decl_file;
      }
    }
  }
  return AMDDWARF_OK;
}

/* Gives back the unused ends of the DIE tables (keeps them on failure). */
static void trim_die_tables(amddwarf_object *object)
{
  size_t n = object->die_count ? object->die_count : 1;
  if (object->die_capacity > n) {
    void *p = amddwarf_mem_realloc(&object->allocator, object->dies,
                                   object->die_capacity * sizeof *object->dies,
                                   n * sizeof *object->dies);
    if (p != NULL) {
      object->dies = p;
      object->die_capacity = n;
    }
  }
  if (object->die_offset_capacity > n) {
    void *p = amddwarf_mem_realloc(&object->allocator, object->die_offsets,
                                   object->die_offset_capacity * sizeof *object->die_offsets,
                                   n * sizeof *object->die_offsets);
    if (p != NULL) {
      object->die_offsets = p;
      object->die_offset_capacity = n;
    }
  }
}

void amddwarf_object_free_walk_state(amddwarf_object *object)
{
  if (object->pending_refs != NULL)
    amddwarf_mem_free(&object->allocator, object->pending_refs,
                      object->pending_ref_capacity * sizeof(pending_ref));
  object->pending_refs = NULL;
  object->pending_ref_count = object->pending_ref_capacity = 0;
  if (object->subprograms != NULL)
    amddwarf_mem_free(&object->allocator, (void *)object->subprograms,
                      object->subprogram_capacity * sizeof *object->subprograms);
  object->subprograms = NULL;
  object->subprogram_count = object->subprogram_capacity = 0;
  if (object->unit_map != NULL)
    amddwarf_mem_free(&object->allocator, object->unit_map,
                      object->unit_map_capacity * sizeof *object->unit_map);
  object->unit_map = NULL;
  object->unit_map_capacity = 0;
  if (object->globals != NULL)
    amddwarf_mem_free(&object->allocator, object->globals,
                      object->global_capacity * sizeof *object->globals);
  object->globals = NULL;
  object->global_count = object->global_capacity = 0;
  if (object->constants != NULL)
    amddwarf_mem_free(&object->allocator, (void *)object->constants,
                      object->constant_capacity * sizeof *object->constants);
  object->constants = NULL;
  object->constant_count = object->constant_capacity = 0;
}

amddwarf_status amddwarf_object_read_dwarf(amddwarf_object *object, amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  object->sec_info = amddwarf_object_find_section(object, ".debug_info");
  object->sec_abbrev = amddwarf_object_find_section(object, ".debug_abbrev");
  object->sec_addr = amddwarf_object_find_section(object, ".debug_addr");
  object->sec_loc = amddwarf_object_find_section(object, ".debug_loc");
  object->sec_loclists = amddwarf_object_find_section(object, ".debug_loclists");
  object->sec_ranges = amddwarf_object_find_section(object, ".debug_ranges");
  object->sec_rnglists = amddwarf_object_find_section(object, ".debug_rnglists");
  object->sec_line = amddwarf_object_find_section(object, ".debug_line");
  object->sec_str = amddwarf_object_find_section(object, ".debug_str");
  object->sec_line_str = amddwarf_object_find_section(object, ".debug_line_str");
  if (object->sec_info == NULL || object->sec_info->size == 0)
    return AMDDWARF_OK; /* no DWARF: an object with only ELF information */
  const amddwarf_section *info = object->sec_info;
  const amddwarf_section *str_offsets = amddwarf_object_find_section(object, ".debug_str_offsets");
  uint32_t max_dies =
      object->options.max_dies ? object->options.max_dies : AMDDWARF_DEFAULT_MAX_DIES;
  amddwarf_reader r;
  amddwarf_reader_init(&r, info->data, (size_t)info->size);
  /* The DIE tables sized for a DIE per ten bytes of .debug_info (clang
     averages about thirteen), so they are seldom copied while growing;
     trimmed to size after the walk. */
  {
    size_t estimate = (size_t)(info->size / 10) + 16;
    if (estimate > ((size_t)1 << 22))
      estimate = (size_t)1 << 22;
    if (estimate > max_dies)
      estimate = max_dies;
    if (amddwarf_mem_reserve(&object->allocator, (void **)&object->dies, &object->die_capacity,
                             estimate, sizeof *object->dies) != 0 ||
        amddwarf_mem_reserve(&object->allocator, (void **)&object->die_offsets,
                             &object->die_offset_capacity, estimate,
                             sizeof *object->die_offsets) != 0) {
      st = amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "DIE table");
      goto done;
    }
  }
  for (uint32_t index = 0; r.pos < info->size; ++index) {
    uint64_t unit_offset = r.pos, length = 0, abbrev_offset = 0;
    uint32_t len32 = 0;
    uint16_t version = 0;
    uint8_t unit_type = DW_UT_compile, address_size = 0, offset_size = 4;
    if (amddwarf_read_u32(&r, &len32) != AMDDWARF_OK)
      goto truncated;
    length = len32;
    if (len32 == 0xffffffffu) {
      offset_size = 8;
      if (amddwarf_read_u64(&r, &length) != AMDDWARF_OK)
        goto truncated;
    } else if (len32 >= 0xfffffff0u) {
      st = amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: reserved unit length 0x%x",
                         (unsigned long long)unit_offset, len32);
      goto done;
    }
    if (length > info->size - r.pos) {
      st = amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: unit length 0x%llx runs past the section",
                         (unsigned long long)unit_offset, (unsigned long long)length);
      goto done;
    }
    uint64_t unit_end = r.pos + length;
    if (amddwarf_read_u16(&r, &version) != AMDDWARF_OK)
      goto truncated;
    if (version < 2 || version > 5) {
      st = amddwarf_fail(err, AMDDWARF_E_UNSUPPORTED, unit_offset,
                         ".debug_info at 0x%llx: DWARF version %u", (unsigned long long)unit_offset,
                         version);
      goto done;
    }
    if (version >= 5) {
      if (amddwarf_read_u8(&r, &unit_type) != AMDDWARF_OK ||
          amddwarf_read_u8(&r, &address_size) != AMDDWARF_OK ||
          amddwarf_read_uint(&r, offset_size, &abbrev_offset) != AMDDWARF_OK)
        goto truncated;
      if (unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile) {
        uint64_t dwo = 0;
        if (amddwarf_read_u64(&r, &dwo) != AMDDWARF_OK)
          goto truncated;
      } else if (unit_type == DW_UT_type || unit_type == DW_UT_split_type) {
        uint64_t sig = 0, toff = 0;
        if (amddwarf_read_u64(&r, &sig) != AMDDWARF_OK ||
            amddwarf_read_uint(&r, offset_size, &toff) != AMDDWARF_OK)
          goto truncated;
      }
    } else {
      if (amddwarf_read_uint(&r, offset_size, &abbrev_offset) != AMDDWARF_OK ||
          amddwarf_read_u8(&r, &address_size) != AMDDWARF_OK)
        goto truncated;
    }
    if (address_size != 4 && address_size != 8 && address_size != 2) {
      st = amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: address size %u", (unsigned long long)unit_offset,
                         address_size);
      goto done;
    }
    /* The abbreviation table, shared by units with the same offset. */
    const abbrev_table *abbrevs = NULL;
    abbrev_table *tables = object->abbrev_tables;
    size_t table_index = 0;
    for (size_t t = 0; t < object->abbrev_table_count; ++t)
      if (tables[t].offset == abbrev_offset) {
        abbrevs = &tables[t];
        table_index = t;
      }
    if (abbrevs == NULL) {
      if (amddwarf_mem_reserve(&object->allocator, &object->abbrev_tables,
                               &object->abbrev_table_capacity, object->abbrev_table_count + 1,
                               sizeof *tables) != 0) {
        st = amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, unit_offset, "abbreviation tables");
        goto done;
      }
      tables = object->abbrev_tables;
      st = read_abbrevs(object, abbrev_offset, &tables[object->abbrev_table_count], err);
      if (st != AMDDWARF_OK) {
        amddwarf_mem_free(&object->allocator, tables[object->abbrev_table_count].all,
                          tables[object->abbrev_table_count].capacity * sizeof(abbrev));
        goto done;
      }
      table_index = object->abbrev_table_count++;
      abbrevs = &tables[table_index];
    }
    if (amddwarf_mem_reserve(&object->allocator, (void **)&object->cu_abbrev,
                             &object->cu_abbrev_capacity, object->cu_count + 1,
                             sizeof *object->cu_abbrev) != 0) {
      st = amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, unit_offset, "unit table");
      goto done;
    }
    object->cu_abbrev[object->cu_count] = table_index;
    if (amddwarf_mem_reserve(&object->allocator, (void **)&object->cus, &object->cu_capacity,
                             object->cu_count + 1, sizeof *object->cus) != 0) {
      st = amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, unit_offset, "unit table");
      goto done;
    }
    amddwarf_cu *cu = &object->cus[object->cu_count];
    memset(cu, 0, sizeof *cu);
    cu->index = index;
    cu->offset = unit_offset;
    cu->die_offset = r.pos;
    cu->version = version;
    cu->unit_type = unit_type;
    cu->address_size = address_size;
    cu->offset_size = offset_size;
    amddwarf_expr_format_init(&cu->format);
    cu->format.address_size = address_size;
    cu->format.offset_size = offset_size;
    cu->format.version = version;
    object->cu_count++;
    walker w;
    memset(&w, 0, sizeof w);
    w.object = object;
    w.cu = cu;
    w.err = err;
    w.max_dies = max_dies;
    w.abbrevs = abbrevs;
    w.str_offsets = str_offsets;
    w.unit_end = unit_end;
    die_node *root = NULL;
    amddwarf_reader ur = r;
    ur.size = (size_t)unit_end;
    size_t first_ref = object->pending_ref_count;
    w.first_die = object->die_count;
    w.map_base = r.pos;
    w.map_span = unit_end - r.pos;
    if (w.map_span > 0 && w.map_span <= AMDDWARF_UNIT_MAP_MAX &&
        amddwarf_mem_reserve(&object->allocator, (void **)&object->unit_map,
                             &object->unit_map_capacity, (size_t)w.map_span,
                             sizeof *object->unit_map) == 0) {
      w.map = object->unit_map;
      memset(w.map, 0xff, (size_t)w.map_span * sizeof *w.map);
    }
    st = walk_unit(&w, &ur, &root);
    if (st != AMDDWARF_OK)
      goto done;
    resolve_unit(object, first_ref, &w);
    if (root != NULL) {
      cu->die = &root->die;
      cu->ranges = root->die.ranges;
      cu->range_count = root->die.range_count;
      cu->name = root->die.name;
    }
    choose_convention(object, cu, w.saw_extension, w.saw_extension_op);
    if (cu->line_offset != UINT64_MAX && (st = amddwarf_object_read_lines(object, cu, err)) != AMDDWARF_OK)
      goto done;
    r.pos = (size_t)unit_end;
  }
  st = resolve_all(object, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_build_scopes(object, err);
  amddwarf_object_free_walk_state(object);
  if (st == AMDDWARF_OK)
    trim_die_tables(object);
  goto done;
truncated:
  st = amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, r.pos,
                     ".debug_info at 0x%zx: unit header runs past the section", r.pos);
done:
  return st;
}

void amddwarf_object_free_abbrevs(amddwarf_object *object)
{
  abbrev_table *tables = object->abbrev_tables;
  for (size_t t = 0; t < object->abbrev_table_count; ++t)
    amddwarf_mem_free(&object->allocator, tables[t].all, tables[t].capacity * sizeof(abbrev));
  amddwarf_mem_free(&object->allocator, tables, object->abbrev_table_capacity * sizeof *tables);
  amddwarf_mem_free(&object->allocator, object->cu_abbrev,
                    object->cu_abbrev_capacity * sizeof *object->cu_abbrev);
  object->abbrev_tables = NULL;
  object->cu_abbrev = NULL;
  object->abbrev_table_count = object->abbrev_table_capacity = object->cu_abbrev_capacity = 0;
}

/* Lists the attributes of DIE by decoding it again from .debug_info. */
void amddwarf_object_link_attribute(const amddwarf_object *object, const amddwarf_die_info *die,
                                    amddwarf_attribute *a)
{
  if (a->value.kind == AMDDWARF_ATTR_REF)
    a->value.ref = amddwarf_object_die_at(object, a->value.offset);
  if (a->value.kind != AMDDWARF_ATTR_LIST)
    return;
  const amddwarf_attr_value *kept = NULL;
  if (a->attribute == DW_AT_location)
    kept = die->location;
  else if (a->attribute == DW_AT_frame_base)
    kept = die->frame_base;
  else if (a->attribute == DW_AT_data_member_location)
    kept = die->data_member_location;
  else if (a->attribute == AMDDWARF_DW_AT_LLVM_LANE_PC ||
           a->attribute == AMDDWARF_DW_AT_LLVM_LANE_PC_OLD)
    kept = die->lane_pc;
  else if (a->attribute == AMDDWARF_DW_AT_LLVM_ACTIVE_LANE_OLD)
    kept = die->active_lane;
  if (kept != NULL && kept->kind == AMDDWARF_ATTR_LIST)
    a->value = *kept;
}

amddwarf_status amddwarf_object_native_attributes(
    const amddwarf_object *cobject, const amddwarf_die_info *die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  if (object == NULL || die == NULL || visit == NULL)
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_die_attributes: NULL argument");
  if (die->cu_index >= object->cu_count || amddwarf_object_die_at(object, die->offset) != die)
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "the DIE does not belong to this object");
  amddwarf_cu *cu = &object->cus[die->cu_index];
  const abbrev_table *tables = object->abbrev_tables;
  walker w;
  memset(&w, 0, sizeof w);
  w.object = object;
  w.cu = cu;
  w.err = err;
  w.abbrevs = &tables[object->cu_abbrev[die->cu_index]];
  w.str_offsets = amddwarf_object_find_section(object, ".debug_str_offsets");
  amddwarf_reader r;
  amddwarf_reader_init(&r, object->sec_info->data, (size_t)object->sec_info->size);
  r.pos = (size_t)die->offset;
  uint64_t code = 0;
  if (amddwarf_read_uleb(&r, &code) != AMDDWARF_OK)
    return amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, die->offset, "DIE 0x%llx: truncated",
                         (unsigned long long)die->offset);
  const abbrev *ab = find_abbrev(w.abbrevs, code);
  if (ab == NULL)
    return amddwarf_fail(err, AMDDWARF_E_OBJECT_DWARF, die->offset,
                         "DIE 0x%llx: unknown abbreviation code %llu",
                         (unsigned long long)die->offset, (unsigned long long)code);
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_attribute a;
    memset(&a, 0, sizeof a);
    a.attribute = ab->attrs[i].at;
    a.value.attribute = ab->attrs[i].at;
    amddwarf_status st = read_form(&w, &r, ab->attrs[i].at, ab->attrs[i].loc, ab->attrs[i].form,
                                   ab->attrs[i].implicit_const, &a, die->offset, false, 0);
    if (st != AMDDWARF_OK)
      return st;
    amddwarf_object_link_attribute(object, die, &a);
    if (visit(user, &a) != 0)
      return AMDDWARF_END;
  }
  return AMDDWARF_OK;
}
