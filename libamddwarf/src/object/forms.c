/* Code objects: .debug_abbrev tables and the decoding of DIE attribute
 * forms, shared by the open-time scan (unit_scan.c), the loading of a unit's
 * DIEs (die_reader.c) and the attribute listing. All reads go through the
 * bounds-checked reader. */
#include <stdio.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"

#define AMDDWARF_MAX_ABBREV_ATTRS 256u

/* ---- abbreviations ---- */

static bool is_string_form(unsigned form)
{
  switch (form) {
  case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_strx:
  case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
  case DW_FORM_GNU_str_index:
    return true;
  default:
    return false;
  }
}

static bool is_expression_or_list_form(unsigned form)
{
  switch (form) {
  case DW_FORM_exprloc: case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2:
  case DW_FORM_block4: case DW_FORM_sec_offset: case DW_FORM_loclistx:
    return true;
  default:
    return false;
  }
}

/* Whether attribute AT in FORM marks its unit as using the extension
   convention, as the DIE summaries read it (die_reader.c): 0x3e08 only as
   an expression or list (LLVM now uses the number for a flag) and 0x3e09
   only as the augmentation string of a compile unit. */
static bool is_extension_attribute(unsigned tag, unsigned at, unsigned form)
{
  switch (at) {
  case AMDDWARF_DW_AT_LLVM_address_space:
  case AMDDWARF_DW_AT_LLVM_memory_space:
  case AMDDWARF_DW_AT_LLVM_vector_size_old:
  case AMDDWARF_DW_AT_LLVM_vector_size:
  case AMDDWARF_DW_AT_LLVM_lanes_old:
  case AMDDWARF_DW_AT_LLVM_lanes:
  case AMDDWARF_DW_AT_LLVM_lane_pc_old:
  case AMDDWARF_DW_AT_LLVM_lane_pc:
    return true;
  case AMDDWARF_DW_AT_LLVM_active_lane:
    return is_expression_or_list_form(form);
  case AMDDWARF_DW_AT_LLVM_augmentation:
    return tag == DW_TAG_compile_unit && is_string_form(form);
  default:
    return false;
  }
}

static uint8_t scan_flags(unsigned tag, const amddwarf_abbrev_attr *attrs, uint32_t n)
{
  uint8_t flags = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (is_extension_attribute(tag, attrs[i].at, attrs[i].form))
      flags |= AMDDWARF_ABBREV_EXTENSION_ATTR;
    if (attrs[i].at == DW_AT_location || attrs[i].at == DW_AT_frame_base)
      flags |= AMDDWARF_ABBREV_FRAME_OR_LOCATION;
  }
  return flags;
}

static amddwarf_status read_abbrevs(amddwarf_object *object, uint64_t offset,
                                    amddwarf_abbrev_table *table, amddwarf_error *err)
{
  const amddwarf_section *s = object->sec_abbrev;
  amddwarf_reader r;
  amddwarf_abbrev_attr attrs[AMDDWARF_MAX_ABBREV_ATTRS];
  memset(table, 0, sizeof *table);
  table->offset = offset;
  if (s == NULL || offset >= s->size)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, offset,
                         ".debug_abbrev offset 0x%llx is outside the section",
                         (unsigned long long)offset);
  amddwarf_reader_init(&r, s->data, (size_t)s->size);
  r.pos = (size_t)offset;
  /* Units may share tables or start theirs inside another's; reading the
     same bytes again and again (a forged table offset per unit) is bounded. */
  uint64_t budget = 8 * s->size + ((uint64_t)1 << 20);
  if (object->abbrev_bytes_read >= budget)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, offset,
                         ".debug_abbrev offset 0x%llx: the units' abbreviation tables overlap "
                         "more than 8 times the section",
                         (unsigned long long)offset);
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
      if (form == DW_FORM_implicit_const && amddwarf__read_sleb(&r, &ic) != AMDDWARF_OK)
        goto truncated;
      if (n >= AMDDWARF_MAX_ABBREV_ATTRS)
        return amddwarf__fail(err, AMDDWARF_E_LIMIT, at_pos,
                             ".debug_abbrev at 0x%zx: more than %u attributes", at_pos,
                             AMDDWARF_MAX_ABBREV_ATTRS);
      attrs[n].at = (uint16_t)(at > 0xffff ? 0xffff : at);
      attrs[n].form = (uint16_t)(form > 0xffff ? 0xffff : form);
      attrs[n].loc = amddwarf__object_is_location_attribute(attrs[n].at);
      attrs[n].implicit_const = ic;
      ++n;
    }
    if (amddwarf__mem_reserve(&object->allocator, (void **)&table->all, &table->capacity,
                             table->count + 1, sizeof *table->all) != 0)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, at_pos, "abbreviations");
    amddwarf_abbrev *a = &table->all[table->count++];
    a->code = code;
    a->tag = (uint16_t)(tag > 0xffff ? 0xffff : tag);
    a->children = children;
    a->scan_flags = scan_flags(a->tag, attrs, n);
    a->fixed_size = -1;
    a->count = n;
    amddwarf_abbrev_attr *copy = amddwarf__arena_alloc(&object->arena, (n ? n : 1) * sizeof *copy, 8);
    if (copy == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, at_pos, "abbreviations");
    memcpy(copy, attrs, n * sizeof *copy);
    a->attrs = copy;
  }
  object->abbrev_bytes_read += r.pos - (size_t)offset;
  /* Dense index for codes up to 4 * count. */
  uint64_t max = 0;
  for (size_t i = 0; i < table->count; ++i)
    if (table->all[i].code > max)
      max = table->all[i].code;
  if (max <= 4 * (uint64_t)table->count + 16) {
    table->dense_count = (size_t)max + 1;
    table->dense = amddwarf__arena_calloc(&object->arena, table->dense_count, sizeof *table->dense);
    if (table->dense == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "abbreviations");
    for (size_t i = 0; i < table->count; ++i)
      table->dense[table->all[i].code] = &table->all[i];
  }
  return AMDDWARF_OK;
truncated:
  return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, r.pos,
                       ".debug_abbrev at 0x%zx: an abbreviation runs past the section", r.pos);
}

static size_t abbrev_slot(const amddwarf_object *object, uint64_t offset)
{
  uint64_t h = offset * 0x9e3779b97f4a7c15ull;
  return (size_t)(h ^ (h >> 32)) & (object->abbrev_slot_count - 1);
}

/* Keeps the offset -> table map at most half full. */
static bool abbrev_slots_grow(amddwarf_object *object)
{
  if (2 * (object->abbrev_table_count + 1) <= object->abbrev_slot_count)
    return true;
  size_t old_count = object->abbrev_slot_count, count = old_count ? 2 * old_count : 64;
  size_t *old = object->abbrev_slots;
  size_t *slots = amddwarf__mem_calloc(&object->allocator, count, sizeof *slots);
  if (slots == NULL)
    return false;
  object->abbrev_slots = slots;
  object->abbrev_slot_count = count;
  for (size_t t = 0; t < object->abbrev_table_count; ++t) {
    size_t k = abbrev_slot(object, object->abbrev_tables[t].offset);
    while (slots[k] != 0)
      k = (k + 1) & (count - 1);
    slots[k] = t + 1;
  }
  amddwarf__mem_free(&object->allocator, old, old_count * sizeof *old);
  return true;
}

amddwarf_status amddwarf__abbrev_table_get(amddwarf_object *object, uint64_t offset, size_t *index,
                                          amddwarf_error *err)
{
  if (!abbrev_slots_grow(object))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "abbreviation tables");
  size_t k = abbrev_slot(object, offset), mask = object->abbrev_slot_count - 1;
  for (; object->abbrev_slots[k] != 0; k = (k + 1) & mask)
    if (object->abbrev_tables[object->abbrev_slots[k] - 1].offset == offset) {
      *index = object->abbrev_slots[k] - 1;
      return AMDDWARF_OK;
    }
  if (amddwarf__mem_reserve(&object->allocator, (void **)&object->abbrev_tables,
                           &object->abbrev_table_capacity, object->abbrev_table_count + 1,
                           sizeof *object->abbrev_tables) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "abbreviation tables");
  amddwarf_abbrev_table *table = &object->abbrev_tables[object->abbrev_table_count];
  amddwarf_status st = read_abbrevs(object, offset, table, err);
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(&object->allocator, table->all, table->capacity * sizeof *table->all);
    return st;
  }
  object->abbrev_slots[k] = object->abbrev_table_count + 1;
  *index = object->abbrev_table_count++;
  return AMDDWARF_OK;
}

const amddwarf_abbrev *amddwarf__abbrev_find(const amddwarf_abbrev_table *t, uint64_t code)
{
  if (t->dense != NULL)
    return code < t->dense_count ? t->dense[code] : NULL;
  for (size_t i = 0; i < t->count; ++i)
    if (t->all[i].code == code)
      return &t->all[i];
  return NULL;
}

/* ---- attribute forms ---- */

static amddwarf_status read_cstr_at(const amddwarf_form_reader *w, const amddwarf_section *s, uint64_t offset,
                                    const char **out, uint64_t die_offset)
{
  if (s == NULL || offset >= s->size)
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                         "DIE 0x%llx: string offset 0x%llx is outside %s",
                         (unsigned long long)die_offset, (unsigned long long)offset,
                         s ? s->name : "the string section (absent)");
  const char *p = (const char *)s->data + offset;
  /* A section that ends in a NUL terminates every string in it. */
  if (s->data[s->size - 1] != '\0' && memchr(p, '\0', (size_t)(s->size - offset)) == NULL)
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                         "DIE 0x%llx: unterminated string in %s", (unsigned long long)die_offset,
                         s->name);
  *out = p;
  return AMDDWARF_OK;
}

/* amddwarf__read_uint inlined for the little-endian 1/2/4/8-byte reads of
   the attribute forms (the same bounds check; other cases go to it). */
static inline amddwarf_status read_fixed(amddwarf_reader *r, unsigned size, uint64_t *out)
{
  if (r->big_endian || amddwarf_reader_remaining(r) < size)
    return amddwarf__read_uint(r, size, out);
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
  default: return amddwarf__read_uint(r, size, out);
  }
  r->pos += size;
  *out = v;
  return AMDDWARF_OK;
}

/* Reads one attribute value of FORM at R into OUT (amddwarf_attribute
   conventions of dwarf.c's libdwarf reader). BASES_ONLY: strings and
   indexed forms that need the unit's bases are skipped, not resolved. */
static amddwarf_status read_form(const amddwarf_form_reader *w, amddwarf_reader *r, uint16_t at,
                                 bool loc, uint64_t form, int64_t implicit_const,
                                 amddwarf_attribute *out, uint64_t die_offset, bool bases_only,
                                 unsigned depth)
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
      st = amddwarf__object_read_addrx(object, cu, u, &v->u, w->err);
    break;
  case DW_FORM_data1: st = read_fixed(r, 1, &v->u); break;
  case DW_FORM_data2: st = read_fixed(r, 2, &v->u); break;
  case DW_FORM_data4: st = read_fixed(r, 4, &v->u); break;
  case DW_FORM_data8: st = read_fixed(r, 8, &v->u); break;
  case DW_FORM_udata: st = amddwarf_read_uleb(r, &v->u); break;
  case DW_FORM_sdata:
    st = amddwarf__read_sleb(r, &v->s);
    v->kind = AMDDWARF_ATTR_SIGNED;
    v->u = (uint64_t)v->s;
    break;
  case DW_FORM_implicit_const:
    v->kind = AMDDWARF_ATTR_SIGNED;
    v->s = implicit_const;
    v->u = (uint64_t)implicit_const;
    break;
  case DW_FORM_data16:
    st = amddwarf__read_bytes(r, 16, &bytes);
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
    st = amddwarf__read_cstr(r, &v->string, &len);
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
        return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                             "DIE 0x%llx: string index %llu is outside .debug_str_offsets",
                             (unsigned long long)die_offset, (unsigned long long)u);
      amddwarf_reader sr;
      amddwarf_reader_init(&sr, so->data + at_off, cu->offset_size);
      st = amddwarf__read_uint(&sr, cu->offset_size, &str);
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
      st = amddwarf__read_bytes(r, u, &bytes);
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
    /* A location list's offset, through the unit's offsets table once its
       base is known; the index stays when the table does not have it, as
       the attributes the summaries do not read (DW_AT_string_length, ...)
       must still be listed. */
    if (st == AMDDWARF_OK && loc && form == DW_FORM_loclistx && !bases_only)
      (void)amddwarf__object_loclist_offset(w->object, w->cu, (uint16_t)form, v->u, &v->offset,
                                           NULL);
    break;
  case DW_FORM_indirect: {
    uint64_t real = 0;
    if (depth > 4)
      return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                           "DIE 0x%llx: DW_FORM_indirect chain", (unsigned long long)die_offset);
    st = amddwarf_read_uleb(r, &real);
    if (st == AMDDWARF_OK)
      return read_form(w, r, at, loc, real, implicit_const, out, die_offset, bases_only,
                       depth + 1);
    break;
  }
  default:
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
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
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, r->pos,
                         "DIE 0x%llx: attribute 0x%x (form 0x%llx) runs past the end of its unit",
                         (unsigned long long)die_offset, at, (unsigned long long)form);
  return st;
}

amddwarf_status amddwarf__form_read(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                   const amddwarf_abbrev_attr *spec, amddwarf_attribute *out,
                                   uint64_t die_offset, bool bases_only)
{
  return read_form(fr, r, spec->at, spec->loc, spec->form, spec->implicit_const, out, die_offset,
                   bases_only, 0);
}

amddwarf_status amddwarf__form_read_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev *ab, uint64_t die_offset,
                                       int (*visit)(void *user, const amddwarf_attribute *a),
                                       void *user)
{
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_attribute a;
    amddwarf__attribute_clear(&a, ab->attrs[i].at);
    amddwarf_status st = amddwarf__form_read(fr, r, &ab->attrs[i], &a, die_offset, false);
    if (st != AMDDWARF_OK)
      return st;
    if (visit(user, &a) != 0)
      return AMDDWARF_END;
  }
  return AMDDWARF_OK;
}

void amddwarf__attribute_clear(amddwarf_attribute *a, uint16_t at)
{
  /* Member-wise: a memset of the whole struct per attribute compiles to
     `rep stos`, which was the single largest cost of the walk. */
  _Static_assert(sizeof(amddwarf_attr_value) ==
                     offsetof(amddwarf_attr_value, string) + sizeof(const char *),
                 "amddwarf__attribute_clear zeroes every member of amddwarf_attr_value");
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

/* ---- low_pc / high_pc ---- */

void amddwarf__pc_pair_note(amddwarf_pc_pair *pc, const amddwarf_attribute *a)
{
  if (a->attribute == DW_AT_low_pc) {
    pc->low = a->value.u;
    pc->has_low = true;
  } else if (a->attribute == DW_AT_high_pc) {
    pc->high = a->value.u;
    pc->has_high = true;
    /* An address form holds the end; a constant form its distance from low_pc. */
    switch (a->form) {
    case DW_FORM_addr: case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2:
    case DW_FORM_addrx3: case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
      pc->high_is_offset = false;
      break;
    default:
      pc->high_is_offset = true;
      break;
    }
  }
}

int amddwarf__pc_attributes_note(void *user, const amddwarf_attribute *a)
{
  amddwarf_pc_attributes *p = user;
  amddwarf__pc_pair_note(&p->pair, a);
  if (a->attribute == DW_AT_ranges) {
    p->has_ranges = true;
    p->ranges_form = a->form;
    p->ranges_value = a->value.u;
  }
  return 0;
}

bool amddwarf__pc_pair_range(const amddwarf_pc_pair *pc, unsigned tag, amddwarf_range *out)
{
  if (!pc->has_low || !(pc->has_high || tag == DW_TAG_label))
    return false;
  out->low = pc->low;
  out->high = !pc->has_high ? pc->low + 1 : pc->high_is_offset ? pc->low + pc->high : pc->high;
  return true;
}

/* ---- skipping ---- */

/* The size of FORM in units shaped like CU, or -1 when it varies. */
static int form_fixed_size(unsigned form, const amddwarf_cu *cu)
{
  switch (form) {
  case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
  case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
  case DW_FORM_addrx1: return 1;
  case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
  case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
  case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
  case DW_FORM_ref_sup4: return 4;
  case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
  case DW_FORM_data16: return 16;
  case DW_FORM_addr: return cu->address_size;
  case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
  case DW_FORM_GNU_strp_alt: case DW_FORM_GNU_ref_alt: return cu->offset_size;
  case DW_FORM_ref_addr: return cu->version <= 2 ? cu->address_size : cu->offset_size;
  default: return -1;
  }
}

static uint32_t size_key(const amddwarf_cu *cu)
{
  return (uint32_t)cu->address_size | (uint32_t)cu->offset_size << 8 |
         (uint32_t)(cu->version <= 2) << 16 | 1u << 24;
}

void amddwarf__abbrev_table_prepare(amddwarf_abbrev_table *table, const amddwarf_cu *cu)
{
  uint32_t key = size_key(cu);
  if (table->size_key == key)
    return;
  for (size_t i = 0; i < table->count; ++i) {
    amddwarf_abbrev *a = &table->all[i];
    int64_t total = 0;
    for (uint32_t k = 0; k < a->count && total >= 0; ++k) {
      int size = form_fixed_size(a->attrs[k].form, cu);
      total = size < 0 ? -1 : total + size;
    }
    a->fixed_size = total >= 0 && total <= INT32_MAX ? (int32_t)total : -1;
  }
  table->size_key = key;
}

amddwarf_status amddwarf__form_skip(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                   const amddwarf_abbrev_attr *spec, uint64_t die_offset)
{
  int size = form_fixed_size(spec->form, fr->cu);
  if (size >= 0 && amddwarf_reader_remaining(r) >= (size_t)size) {
    r->pos += (size_t)size;
    return AMDDWARF_OK;
  }
  /* A variable size, or too few bytes left: the reader says where. */
  amddwarf_attribute a;
  amddwarf__attribute_clear(&a, spec->at);
  return amddwarf__form_read(fr, r, spec, &a, die_offset, true);
}

amddwarf_status amddwarf__form_skip_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev *ab, uint64_t die_offset)
{
  if (ab->fixed_size >= 0) {
    if (amddwarf_reader_remaining(r) < (size_t)ab->fixed_size)
      return amddwarf__fail(fr->err, AMDDWARF_E_OBJECT_DWARF, die_offset,
                           "DIE 0x%llx: its attributes run past the end of its unit",
                           (unsigned long long)die_offset);
    r->pos += (size_t)ab->fixed_size;
    return AMDDWARF_OK;
  }
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_status st = amddwarf__form_skip(fr, r, &ab->attrs[i], die_offset);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__form_step_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev_table *table,
                                       const amddwarf_abbrev *ab, uint64_t die_offset)
{
  if (table->size_key == size_key(fr->cu))
    return amddwarf__form_skip_die(fr, r, ab, die_offset);
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_status st = amddwarf__form_skip(fr, r, &ab->attrs[i], die_offset);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

void amddwarf__object_free_abbrevs(amddwarf_object *object)
{
  amddwarf_abbrev_table *tables = object->abbrev_tables;
  for (size_t t = 0; t < object->abbrev_table_count; ++t)
    amddwarf__mem_free(&object->allocator, tables[t].all, tables[t].capacity * sizeof(amddwarf_abbrev));
  amddwarf__mem_free(&object->allocator, tables, object->abbrev_table_capacity * sizeof *tables);
  amddwarf__mem_free(&object->allocator, object->abbrev_slots,
                    object->abbrev_slot_count * sizeof *object->abbrev_slots);
  object->abbrev_slots = NULL;
  object->abbrev_slot_count = 0;
  object->abbrev_tables = NULL;
  object->abbrev_table_count = object->abbrev_table_capacity = 0;
}
