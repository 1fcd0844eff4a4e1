/* Code objects: DIE references and each unit's compact index.
 *
 * A reference (amddwarf_die_ref) names a DIE by offset, unit and index in
 * the unit. Its attributes are decoded from .debug_info when asked for;
 * its tree links come from the unit's index: one 16-byte record a DIE
 * (offset, abbreviation, parent, next sibling), built by one pass over the
 * unit that steps over the attributes as the open-time pass does. The
 * summaries of the public API (die_reader.c) are made from this index. */
#include <string.h>

#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"


size_t amddwarf__object_unit_of_die(const amddwarf_object *object, size_t index)
{
  if (object == NULL)
    return SIZE_MAX;
  amddwarf__object_scan_all(object); /* the DIEs are numbered */
  if (index >= object->die_count || object->cu_count == 0)
    return SIZE_MAX;
  size_t lo = 0, n = object->cu_count;
  while (n > 1) { /* the last unit whose first DIE is at or before INDEX */
    size_t half = n / 2;
    if (object->units[lo + half].first_die <= index)
      lo += half;
    n -= half;
  }
  return index - object->units[lo].first_die < object->units[lo].die_count ? lo : SIZE_MAX;
}

/* ---- building a unit's index ---- */

/* Fills RECORDS (the unit's DIE_COUNT) from one pass over the unit. */
static amddwarf_status fill_records(amddwarf_object *object, size_t cu_index,
                                    amddwarf_die_record *records, amddwarf_error *err)
{
  const amddwarf_cu *cu = &object->cus[cu_index];
  const amddwarf_unit *unit = &object->units[cu_index];
  const amddwarf_abbrev_table *abbrevs = &object->abbrev_tables[unit->abbrev_table];
  amddwarf_form_reader fr = amddwarf_form_reader_make(object, cu, err);
  uint32_t open[AMDDWARF_MAX_DIE_DEPTH + 1]; /* the DIE whose children are read, per depth */
  uint32_t last[AMDDWARF_MAX_DIE_DEPTH + 1]; /* its last child so far */
  size_t depth = 0;
  uint32_t n = 0;
  amddwarf_reader r;
  amddwarf_reader_init(&r, object->sec_info->data, (size_t)unit->end);
  r.pos = (size_t)cu->die_offset;
  while (r.pos < r.size) {
    uint64_t off = r.pos, code = 0;
    if (amddwarf_read_uleb(&r, &code) != AMDDWARF_OK)
      return amddwarf__object_unit_changed(err, off);
    if (code == 0) {
      if (depth == 0)
        continue;
      if (--depth == 0)
        break;
      continue;
    }
    const amddwarf_abbrev *ab = amddwarf__abbrev_find(abbrevs, code);
    if (ab == NULL || n >= unit->die_count || (n > 0 && depth == 0))
      return amddwarf__object_unit_changed(err, off);
    uint32_t self = n++;
    amddwarf_die_record *rec = &records[self];
    rec->offset = (uint32_t)(off - cu->offset);
    rec->abbrev = (uint32_t)(ab - abbrevs->all);
    rec->parent = depth ? open[depth - 1] : AMDDWARF_NO_RECORD;
    rec->sibling = AMDDWARF_NO_RECORD;
    if (depth) {
      if (last[depth] != AMDDWARF_NO_RECORD)
        records[last[depth]].sibling = self;
      last[depth] = self;
    }
    amddwarf_status st = amddwarf__form_step_die(&fr, &r, abbrevs, ab, off);
    if (st != AMDDWARF_OK)
      return st;
    if (ab->children) {
      if (depth >= AMDDWARF_MAX_DIE_DEPTH)
        return amddwarf__object_unit_changed(err, off);
      open[depth++] = self;
      last[depth] = AMDDWARF_NO_RECORD;
    } else if (depth == 0) {
      break;
    }
  }
  return n == unit->die_count ? AMDDWARF_OK : amddwarf__object_unit_changed(err, r.pos);
}

static size_t records_bytes(size_t die_count)
{
  return (die_count ? die_count : 1) * sizeof(amddwarf_die_record);
}

static amddwarf_status build_index(amddwarf_object *object, size_t cu_index)
{
  amddwarf_unit *unit = &object->units[cu_index];
  amddwarf_status st = AMDDWARF_OK;
  if (amddwarf__unit_failed_at_open(unit)) {
    st = unit->failure.status;
    unit->index_failure = unit->failure;
  } else {
    /* Inside the whole object's array when amddwarf_object_index_all made
       one, else an array of the unit's own. */
    bool shared = object->records != NULL;
    amddwarf_die_record *records =
        shared ? object->records + unit->first_die
               : amddwarf__mem_alloc_bulk(&object->allocator, records_bytes(unit->die_count));
    st = records == NULL ? amddwarf__fail(&unit->index_failure, AMDDWARF_E_NO_MEMORY,
                                          object->cus[cu_index].offset, "the DIE index")
                         : fill_records(object, cu_index, records, &unit->index_failure);
    if (st == AMDDWARF_OK) {
      unit->records = records;
      unit->records_owned = !shared;
      object->indexed_die_bytes += (size_t)unit->die_count * sizeof *records;
    } else if (records != NULL && !shared) {
      amddwarf__mem_free_bulk(&object->allocator, records, records_bytes(unit->die_count));
    }
  }
  atomic_store_explicit(&unit->index_state,
                        st == AMDDWARF_OK ? AMDDWARF_UNIT_READY : AMDDWARF_UNIT_FAILED,
                        memory_order_release);
  return st;
}

void amddwarf__object_adopt_index(amddwarf_object *object, size_t cu_index,
                                  const amddwarf_die_record *records)
{
  amddwarf_unit *unit = &object->units[cu_index];
  if (atomic_load_explicit(&unit->index_state, memory_order_acquire) != AMDDWARF_UNIT_UNLOADED ||
      amddwarf__unit_failed_at_open(unit))
    return;
  amddwarf_die_record *own =
      amddwarf__mem_alloc_bulk(&object->allocator, records_bytes(unit->die_count));
  if (own == NULL)
    return;
  if (unit->die_count > 0)
    memcpy(own, records, (size_t)unit->die_count * sizeof *own);
  unit->records = own;
  unit->records_owned = true;
  object->indexed_die_bytes += (size_t)unit->die_count * sizeof *own;
  atomic_store_explicit(&unit->index_state, AMDDWARF_UNIT_READY, memory_order_release);
}

amddwarf_status amddwarf__object_ensure_index(const amddwarf_object *cobject, size_t cu_index,
                                             amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = amddwarf__object_unit(cobject, cu_index, err);
  if (unit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  unsigned state = atomic_load_explicit(&unit->index_state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_UNLOADED) {
    pthread_mutex_lock(&object->load_lock);
    state = atomic_load_explicit(&unit->index_state, memory_order_acquire);
    if (state == AMDDWARF_UNIT_UNLOADED)
      build_index(object, cu_index);
    state = atomic_load_explicit(&unit->index_state, memory_order_acquire);
    pthread_mutex_unlock(&object->load_lock);
  }
  if (state == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  if (err != NULL)
    *err = unit->index_failure;
  return unit->index_failure.status;
}

amddwarf_status amddwarf_object_index_unit(const amddwarf_object *object, size_t cu_index,
                                           amddwarf_error *err)
{
  return amddwarf__object_ensure_index(object, cu_index, err);
}

amddwarf_status amddwarf_object_index_all(const amddwarf_object *object, amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__object_each_unit(object, "amddwarf_object_index_all",
                                      amddwarf__object_ensure_index, err);
  amddwarf__object_scan_all(object);
  /* Every unit: one array for the units not indexed yet (with the C
     library's allocator a mapping advised for huge pages, written unit by
     unit), so that their pages are not faulted 4 KiB at a time. */
  amddwarf_object *o = (amddwarf_object *)(uintptr_t)object;
  pthread_mutex_lock(&o->load_lock);
  if (o->records == NULL)
    o->records = amddwarf__mem_alloc_bulk(&o->allocator, records_bytes(o->die_count));
  pthread_mutex_unlock(&o->load_lock);
  return amddwarf__object_each_unit(object, "amddwarf_object_index_all",
                                    amddwarf__object_ensure_index, err);
}

void amddwarf__object_free_indexes(amddwarf_object *object)
{
  amddwarf__mem_free_bulk(&object->allocator, object->records, records_bytes(object->die_count));
  object->records = NULL;
  object->indexed_die_bytes = 0;
  for (size_t i = 0; i < object->cu_count && object->units != NULL; ++i) {
    amddwarf_unit *unit = &object->units[i];
    if (unit->records != NULL && unit->records_owned)
      amddwarf__mem_free_bulk(&object->allocator, unit->records, records_bytes(unit->die_count));
    unit->records = NULL;
    amddwarf__mem_free(&object->allocator, unit->scopes,
                      unit->scope_capacity * sizeof *unit->scopes);
    unit->scopes = NULL;
    amddwarf__mem_free(&object->allocator, unit->globals,
                      unit->global_capacity * sizeof *unit->globals);
    unit->globals = NULL;
    unit->global_count = unit->global_capacity = 0;
  }
}

/* ---- references ---- */

static amddwarf_die_ref ref_of(const amddwarf_object *object, size_t cu_index, uint32_t index)
{
  amddwarf_die_ref ref = {0, 0, 0};
  if (index == AMDDWARF_NO_RECORD)
    return ref;
  ref.offset = object->cus[cu_index].offset + object->units[cu_index].records[index].offset;
  ref.cu_index = (uint32_t)cu_index;
  ref.index = index;
  return ref;
}

/* Zeroes *OUT (no DIE) for AMDDWARF_NOT_FOUND and the errors. */
static amddwarf_status not_found(amddwarf_die_ref *out)
{
  memset(out, 0, sizeof *out);
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_object_die_ref(const amddwarf_object *object, size_t index,
                                        amddwarf_die_ref *out, amddwarf_error *err)
{
  size_t u = amddwarf__object_unit_of_die(object, index);
  if (u == SIZE_MAX)
    return not_found(out);
  amddwarf_status st = amddwarf__object_ensure_index(object, u, err);
  if (st != AMDDWARF_OK) {
    not_found(out);
    return st;
  }
  *out = ref_of(object, u, (uint32_t)(index - object->units[u].first_die));
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_die_ref_at(const amddwarf_object *object, uint64_t offset,
                                           amddwarf_die_ref *out, amddwarf_error *err)
{
  size_t u = object != NULL ? amddwarf__object_unit_at(object, offset) : SIZE_MAX;
  if (u == SIZE_MAX)
    return not_found(out);
  amddwarf_status st = amddwarf__object_ensure_index(object, u, err);
  if (st != AMDDWARF_OK) {
    not_found(out);
    return st;
  }
  const amddwarf_unit *unit = &object->units[u];
  uint64_t rel = offset - object->cus[u].offset;
  size_t lo = 0, hi = unit->die_count;
  while (lo < hi) { /* the first record at or after REL */
    size_t mid = lo + (hi - lo) / 2;
    if (unit->records[mid].offset < rel)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == unit->die_count || unit->records[lo].offset != rel)
    return not_found(out);
  *out = ref_of(object, u, (uint32_t)lo);
  return AMDDWARF_OK;
}

/* Whether DIE is a reference this object handed out (its unit, index and
   offset agree), its unit's index built. */
static amddwarf_status check_ref(const amddwarf_object *object, amddwarf_die_ref die,
                                 amddwarf_error *err)
{
  if (object == NULL || die.cu_index >= object->cu_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no DIE of this object at 0x%llx", (unsigned long long)die.offset);
  amddwarf_status st = amddwarf__object_ensure_index(object, die.cu_index, err);
  if (st != AMDDWARF_OK)
    return st;
  const amddwarf_unit *unit = &object->units[die.cu_index];
  if (die.index >= unit->die_count ||
      object->cus[die.cu_index].offset + unit->records[die.index].offset != die.offset)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, die.offset,
                         "no DIE of this object at 0x%llx (unit %u, index %u)",
                         (unsigned long long)die.offset, die.cu_index, die.index);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_die_links(const amddwarf_object *object, amddwarf_die_ref die,
                                          amddwarf_die_links *out, amddwarf_error *err)
{
  memset(out, 0, sizeof *out);
  amddwarf_status st = check_ref(object, die, err);
  if (st != AMDDWARF_OK)
    return st;
  size_t u = die.cu_index;
  const amddwarf_unit *unit = &object->units[u];
  const amddwarf_die_record *rec = &unit->records[die.index];
  const amddwarf_abbrev *ab = &object->abbrev_tables[unit->abbrev_table].all[rec->abbrev];
  out->tag = ab->tag;
  for (uint32_t p = rec->parent; p != AMDDWARF_NO_RECORD; p = unit->records[p].parent)
    ++out->depth;
  out->parent = ref_of(object, u, rec->parent);
  out->next_sibling = ref_of(object, u, rec->sibling);
  uint32_t next = die.index + 1;
  if (next < unit->die_count && unit->records[next].parent == die.index)
    out->first_child = ref_of(object, u, next);
  return AMDDWARF_OK;
}

/* ---- attributes ---- */

amddwarf_status amddwarf_object_die_ref_attributes(
    const amddwarf_object *object, amddwarf_die_ref die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err)
{
  amddwarf_status st = check_ref(object, die, err);
  if (st == AMDDWARF_OK && visit == NULL)
    st = amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, die.offset,
                        "amddwarf_object_die_ref_attributes: NULL visit");
  return st == AMDDWARF_OK ? amddwarf__object_listed_attributes(object, die.cu_index, die.offset,
                                                               visit, user, err)
                           : st;
}

amddwarf_status amddwarf__object_die_abbrev(const amddwarf_object *object, size_t cu_index,
                                           uint64_t offset, amddwarf_reader *r,
                                           const amddwarf_abbrev **abbrev, amddwarf_error *err)
{
  const amddwarf_unit *unit = &object->units[cu_index];
  amddwarf_reader_init(r, object->sec_info->data, (size_t)unit->end);
  r->pos = (size_t)offset;
  uint64_t code = 0;
  if (offset >= unit->end || amddwarf_read_uleb(r, &code) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, offset, "DIE 0x%llx: truncated",
                         (unsigned long long)offset);
  *abbrev = amddwarf__abbrev_find(&object->abbrev_tables[unit->abbrev_table], code);
  if (*abbrev == NULL)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, offset,
                         "DIE 0x%llx: unknown abbreviation code %llu",
                         (unsigned long long)offset, (unsigned long long)code);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__object_read_die(const amddwarf_object *cobject, size_t cu_index,
                                         uint64_t offset,
                                         int (*visit)(void *user, const amddwarf_attribute *a),
                                         void *user, amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_reader r;
  const amddwarf_abbrev *ab = NULL;
  amddwarf_status st = amddwarf__object_die_abbrev(object, cu_index, offset, &r, &ab, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_form_reader fr = amddwarf_form_reader_make(object, &object->cus[cu_index], err);
  return amddwarf__form_read_die(&fr, &r, ab, offset, visit, user);
}

typedef struct attribute_search {
  unsigned at;
  amddwarf_attribute *found;
  uint64_t origin;            /* DW_AT_abstract_origin / DW_AT_specification, or 0 */
} attribute_search;

static int find_attribute(void *user, const amddwarf_attribute *a)
{
  attribute_search *s = user;
  if (amddwarf__is_origin_attribute(a))
    s->origin = a->value.offset;
  if (a->attribute != s->at)
    return 0;
  *s->found = *a;
  return 1;
}

amddwarf_status amddwarf_object_die_attribute(const amddwarf_object *object, amddwarf_die_ref die,
                                              unsigned at, unsigned flags,
                                              amddwarf_attribute *out, amddwarf_error *err)
{
  amddwarf_status st = check_ref(object, die, err);
  for (int step = 0; st == AMDDWARF_OK; ++step) {
    attribute_search s = {at, out, 0};
    st = amddwarf__object_read_die(object, die.cu_index, die.offset, find_attribute, &s,
                                   err);
    if (st == AMDDWARF_END)
      return AMDDWARF_OK;
    if (st != AMDDWARF_OK)
      return st;
    if (!(flags & AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN) || s.origin == 0 ||
        step == AMDDWARF_MAX_ORIGIN_STEPS)
      break;
    uint64_t from = die.offset;
    st = amddwarf_object_die_ref_at(object, s.origin, &die, err);
    if (st == AMDDWARF_NOT_FOUND)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_REFERENCE, s.origin,
                           "DIE 0x%llx: its origin 0x%llx is not a DIE",
                           (unsigned long long)from, (unsigned long long)s.origin);
  }
  return st == AMDDWARF_OK ? AMDDWARF_NOT_FOUND : st;
}

const char *amddwarf_object_die_string(const amddwarf_object *object, amddwarf_die_ref die,
                                       unsigned at)
{
  amddwarf_attribute a;
  if (amddwarf_object_die_attribute(object, die, at, AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &a,
                                    NULL) != AMDDWARF_OK ||
      a.value.kind != AMDDWARF_ATTR_STRING)
    return NULL;
  return a.value.string;
}

amddwarf_die_ref amddwarf_object_die_reference(const amddwarf_object *object,
                                               amddwarf_die_ref die, unsigned at)
{
  amddwarf_attribute a;
  amddwarf_die_ref target = {0, 0, 0};
  if (amddwarf_object_die_attribute(object, die, at, 0, &a, NULL) == AMDDWARF_OK &&
      a.value.kind == AMDDWARF_ATTR_REF)
    amddwarf_object_die_ref_at(object, a.value.offset, &target, NULL);
  return target;
}

amddwarf_status amddwarf_object_die_expr_at(const amddwarf_object *object, amddwarf_die_ref die,
                                            unsigned at, uint64_t pc, const uint8_t **bytes,
                                            size_t *size, amddwarf_loc_entry *entry,
                                            amddwarf_error *err)
{
  amddwarf_attribute a;
  amddwarf_status st = amddwarf_object_die_attribute(object, die, at, 0, &a, err);
  if (st != AMDDWARF_OK)
    return st;
  if (a.value.kind == AMDDWARF_ATTR_EXPR) {
    *bytes = a.value.bytes;
    *size = a.value.size;
    return AMDDWARF_OK;
  }
  if (a.value.kind != AMDDWARF_ATTR_LIST)
    return AMDDWARF_NOT_FOUND;
  amddwarf_loc_entry found_entry;
  bool found = false;
  amddwarf_object *o = (amddwarf_object *)(uintptr_t)object;
  st = amddwarf__object_loclist_at(o, &object->cus[die.cu_index], a.form, a.value.u, pc,
                                   &found_entry, &found, err);
  if (st != AMDDWARF_OK)
    return st;
  if (!found)
    return AMDDWARF_NOT_FOUND;
  *bytes = found_entry.expr;
  *size = found_entry.size;
  if (entry != NULL)
    *entry = found_entry;
  return AMDDWARF_OK;
}

typedef struct list_visit {
  int (*visit)(void *user, const amddwarf_loc_entry *entry);
  void *user;
} list_visit;

static bool visit_entry(void *user, const amddwarf_loc_entry *entry)
{
  list_visit *v = user;
  return v->visit(v->user, entry) == 0;
}

amddwarf_status amddwarf_object_die_list_entries(
    const amddwarf_object *object, amddwarf_die_ref die, unsigned at,
    int (*visit)(void *user, const amddwarf_loc_entry *entry), void *user,
    amddwarf_error *err)
{
  amddwarf_attribute a;
  if (visit == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, die.offset,
                         "amddwarf_object_die_list_entries: NULL visit");
  amddwarf_status st = amddwarf_object_die_attribute(object, die, at, 0, &a, err);
  if (st != AMDDWARF_OK)
    return st;
  if (a.value.kind != AMDDWARF_ATTR_LIST)
    return AMDDWARF_NOT_FOUND;
  list_visit v = {visit, user};
  return amddwarf__object_visit_loclist((amddwarf_object *)(uintptr_t)object,
                                       &object->cus[die.cu_index], a.form, a.value.u,
                                       visit_entry, &v, err);
}

/* ---- a DIE's fields ---- */

static bool is_constant(const amddwarf_attr_value *v)
{
  return v->kind == AMDDWARF_ATTR_UNSIGNED || v->kind == AMDDWARF_ATTR_SIGNED;
}

/* What one attribute says of a DIE's fields; the references (type, origin)
   are kept as offsets in *TYPE_AT and *ORIGIN_AT. The summaries
   (die_reader.c) take their plain fields from here too: the fields before
   const_value are all a summary copies. */
void amddwarf__die_fields_apply(amddwarf_die_fields *f, const amddwarf_attribute *a,
                               uint64_t *type_at, uint64_t *origin_at)
{
  const amddwarf_attr_value *v = &a->value;
  switch (a->attribute) {
  case DW_AT_name: f->name = v->string; break;
  case DW_AT_linkage_name:
  case DW_AT_MIPS_linkage_name: f->linkage_name = v->string; break;
  case DW_AT_type: *type_at = v->offset; break;
  case DW_AT_abstract_origin:
  case DW_AT_specification: *origin_at = v->offset; break;
  case DW_AT_decl_file: f->decl_file = (uint32_t)v->u; break;
  case DW_AT_decl_line: f->decl_line = (uint32_t)v->u; break;
  case DW_AT_call_file: f->call_file = (uint32_t)v->u; break;
  case DW_AT_call_line: f->call_line = (uint32_t)v->u; break;
  case DW_AT_call_column: f->call_column = (uint32_t)v->u; break;
  case DW_AT_byte_size:
    if (is_constant(v)) {
      f->byte_size = v->u;
      f->flags |= AMDDWARF_DIE_HAS_BYTE_SIZE;
    }
    break;
  case DW_AT_bit_size:
    f->bit_size = v->u;
    f->flags |= AMDDWARF_DIE_HAS_BIT_SIZE;
    break;
  case DW_AT_data_bit_offset:
    f->data_bit_offset = v->u;
    f->flags |= AMDDWARF_DIE_HAS_DATA_BIT_OFFSET;
    break;
  case DW_AT_encoding: f->encoding = (uint32_t)v->u; break;
  case DW_AT_address_class:
    f->address_class = (uint32_t)v->u;
    f->flags |= AMDDWARF_DIE_HAS_ADDRESS_CLASS;
    break;
  case AMDDWARF_DW_AT_LLVM_address_space:
    f->address_space = (uint32_t)v->u;
    f->flags |= AMDDWARF_DIE_HAS_ADDRESS_SPACE;
    break;
  case AMDDWARF_DW_AT_LLVM_memory_space:
    f->memory_space = (uint32_t)v->u;
    f->flags |= AMDDWARF_DIE_HAS_MEMORY_SPACE;
    break;
  case AMDDWARF_DW_AT_LLVM_vector_size_old:
  case AMDDWARF_DW_AT_LLVM_vector_size:
    f->vector_size = (uint32_t)v->u;
    if (a->attribute == AMDDWARF_DW_AT_LLVM_vector_size_old)
      f->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    break;
  case AMDDWARF_DW_AT_LLVM_lanes_old:
  case AMDDWARF_DW_AT_LLVM_lanes:
    f->lanes = (uint32_t)v->u;
    if (a->attribute == AMDDWARF_DW_AT_LLVM_lanes_old)
      f->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    break;
  case AMDDWARF_DW_AT_LLVM_lane_pc_old:
    f->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    break;
  case AMDDWARF_DW_AT_LLVM_active_lane:
    if (amddwarf__is_active_lane_attribute(a))
      f->flags |= AMDDWARF_DIE_OLD_LLVM_CODES;
    break;
  case DW_AT_GNU_vector: f->flags |= AMDDWARF_DIE_GNU_VECTOR; break;
  case DW_AT_external: if (v->u) f->flags |= AMDDWARF_DIE_EXTERNAL; break;
  case DW_AT_declaration: if (v->u) f->flags |= AMDDWARF_DIE_DECLARATION; break;
  case DW_AT_artificial: if (v->u) f->flags |= AMDDWARF_DIE_ARTIFICIAL; break;
  case DW_AT_const_value: f->const_value = *v; break;
  case DW_AT_data_member_location: f->data_member_location = *v; break;
  case DW_AT_lower_bound: f->lower_bound = *v; break;
  case DW_AT_upper_bound: f->upper_bound = *v; break;
  case DW_AT_count: f->count = *v; break;
  default: break;
  }
}

typedef struct fields_read {
  amddwarf_die_fields *fields;
  uint64_t type_at, origin_at; /* .debug_info offsets, UINT64_MAX when absent */
} fields_read;

static int apply_field(void *user, const amddwarf_attribute *a)
{
  fields_read *r = user;
  amddwarf__die_fields_apply(r->fields, a, &r->type_at, &r->origin_at);
  return 0;
}

/* The DIE at OFFSET, which DIE's attribute names; E_OBJECT_BAD_REFERENCE
   when no DIE starts there. */
static amddwarf_status referenced(const amddwarf_object *object, amddwarf_die_ref die,
                                  uint64_t offset, amddwarf_die_ref *out, amddwarf_error *err)
{
  amddwarf_status st = amddwarf_object_die_ref_at(object, offset, out, err);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_REFERENCE, die.offset,
                         "DIE 0x%llx refers to 0x%llx, where no DIE starts",
                         (unsigned long long)die.offset, (unsigned long long)offset);
  return st;
}

amddwarf_status amddwarf_object_die_fields(const amddwarf_object *object, amddwarf_die_ref die,
                                           amddwarf_die_fields *out, amddwarf_error *err)
{
  memset(out, 0, sizeof *out);
  amddwarf_die_links links;
  amddwarf_status st = amddwarf_object_die_links(object, die, &links, err);
  if (st != AMDDWARF_OK)
    return st;
  out->die = die;
  out->tag = links.tag;
  out->depth = links.depth;
  out->parent = links.parent;
  out->first_child = links.first_child;
  out->next_sibling = links.next_sibling;
  fields_read r = {out, UINT64_MAX, UINT64_MAX};
  st = amddwarf__object_read_die(object, die.cu_index, die.offset, apply_field, &r, err);
  if (st == AMDDWARF_OK && r.type_at != UINT64_MAX)
    st = referenced(object, die, r.type_at, &out->type, err);
  if (st == AMDDWARF_OK && r.origin_at != UINT64_MAX)
    st = referenced(object, die, r.origin_at, &out->origin, err);
  /* The name, type and declaration a DIE lacks are its origins', as in
     its summary. */
  amddwarf_die_ref holder = out->origin;
  for (int hops = 0; st == AMDDWARF_OK && amddwarf_die_ref_valid(holder) &&
                     hops < AMDDWARF_MAX_ORIGIN_STEPS;
       ++hops) {
    amddwarf_die_fields o;
    memset(&o, 0, sizeof o);
    fields_read from = {&o, UINT64_MAX, UINT64_MAX};
    st = amddwarf__object_read_die(object, holder.cu_index, holder.offset, apply_field, &from,
                                   err);
    if (st != AMDDWARF_OK)
      break;
    if (out->name == NULL)
      out->name = o.name;
    if (out->linkage_name == NULL)
      out->linkage_name = o.linkage_name;
    if (!amddwarf_die_ref_valid(out->type) && from.type_at != UINT64_MAX)
      st = referenced(object, holder, from.type_at, &out->type, err);
    if (out->decl_line == 0) {
      out->decl_line = o.decl_line;
      out->decl_file = o.decl_file;
    }
    amddwarf_die_ref next = {0, 0, 0};
    if (st == AMDDWARF_OK && from.origin_at != UINT64_MAX)
      st = referenced(object, holder, from.origin_at, &next, err);
    holder = next;
  }
  return st;
}

/* ---- a DIE's PC ranges ---- */

typedef struct range_visit {
  int (*visit)(void *user, const amddwarf_range *range);
  void *user;
  size_t seen;
} range_visit;

static bool visit_range(void *user, const amddwarf_range *range)
{
  range_visit *v = user;
  ++v->seen;
  return v->visit(v->user, range) == 0;
}

amddwarf_status amddwarf_object_die_ranges(const amddwarf_object *object, amddwarf_die_ref die,
                                           int (*visit)(void *user, const amddwarf_range *range),
                                           void *user, amddwarf_error *err)
{
  amddwarf_die_links links;
  amddwarf_status st = amddwarf_object_die_links(object, die, &links, err);
  if (st == AMDDWARF_OK && visit == NULL)
    st = amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, die.offset,
                        "amddwarf_object_die_ranges: NULL visit");
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_pc_attributes r;
  memset(&r, 0, sizeof r);
  st = amddwarf__object_read_die(object, die.cu_index, die.offset, amddwarf__pc_attributes_note,
                                 &r, err);
  if (st != AMDDWARF_OK)
    return st;
  if (r.has_ranges) {
    range_visit v = {visit, user, 0};
    st = amddwarf__object_visit_ranges((amddwarf_object *)(uintptr_t)object,
                                      &object->cus[die.cu_index], r.ranges_form, r.ranges_value,
                                      visit_range, &v, err);
    return st == AMDDWARF_OK && v.seen == 0 ? AMDDWARF_NOT_FOUND : st;
  }
  amddwarf_range one;
  if (!amddwarf__pc_pair_range(&r.pair, links.tag, &one))
    return AMDDWARF_NOT_FOUND;
  visit(user, &one);
  return AMDDWARF_OK;
}
