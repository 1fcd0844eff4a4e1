/* Code objects: the DIE summaries (amddwarf_die_info) of a unit, made from
 * its DIE references the first time a summary of the unit is asked for
 * (amddwarf_object_die, _die_at, _scopes_at, _vars_at hand them out;
 * nothing else in the library reads them).
 *
 * The unit's compact index (die_index.c) gives each DIE's offset, tag,
 * parent and next sibling; each DIE's attributes are decoded once into its
 * summary (the plain fields by the reader of references' fields,
 * amddwarf__die_fields_apply), and references are resolved. A reference
 * into another unit makes that unit's summaries too (units are loaded
 * together until no reference is left open), so every pointer a summary
 * holds stays valid until close. Loading is serialized by the object's
 * lock; a unit that is ready is read without it.
 *
 * A unit that cannot be loaded keeps its error (amddwarf_object_load_unit
 * reports it); so does the unit whose reference led into it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"

/* A reference found by the walk: *SLOT gets the DIE at TARGET once the
   target's unit is walked. DIE is the referring DIE. The origins stay
   listed once resolved, for the inheritance of names and types. */
typedef struct pending_ref {
  amddwarf_die_info *die;
  const amddwarf_die_info **slot;
  uint64_t target;
  bool resolved;
} pending_ref;

typedef struct walker {
  amddwarf_object *object;
  amddwarf_cu *cu;
  amddwarf_unit *unit;
  amddwarf_error *err;
  amddwarf_die_info *die;     /* the DIE being read */
  struct pc_attrs *pc;        /* what its attributes leave for its end */
  amddwarf_status status;     /* of the last attribute kept */
  amddwarf_die_fields fields; /* the plain fields of the DIE being read */
} walker;

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
    const amddwarf_attr_value **grown = amddwarf__mem_alloc(&object->allocator, cap * sizeof *grown);
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
      amddwarf__mem_free(&object->allocator, (void *)object->constants,
                        object->constant_capacity * sizeof *object->constants);
    object->constants = grown;
    object->constant_capacity = cap;
  }
  size_t mask = object->constant_capacity - 1, k = constant_hash(v) & mask;
  for (; object->constants[k] != NULL; k = (k + 1) & mask)
    if (same_constant(object->constants[k], v))
      return object->constants[k];
  amddwarf_attr_value *copy = amddwarf__arena_alloc(&object->arena, sizeof *copy, 8);
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
      return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, die_offset, "DIE attribute values");
    *slot = shared;
    return AMDDWARF_OK;
  }
  amddwarf_attr_value *v = amddwarf__arena_alloc(&w->object->arena, sizeof *v, 8);
  if (v == NULL)
    return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, die_offset, "DIE attribute values");
  *v = a->value;
  if (v->kind == AMDDWARF_ATTR_LIST) {
    amddwarf_status st =
        amddwarf__object_read_loclist(w->object, w->cu, a->form, a->value.u, v, w->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  *slot = v;
  return AMDDWARF_OK;
}

/* What one DIE's attributes leave for the end of the DIE. */
typedef struct pc_attrs {
  amddwarf_pc_pair pair;
  uint64_t type_ref;   /* .debug_info offsets, UINT64_MAX when absent */
  uint64_t origin_ref;
} pc_attrs;

/* Reads what the summary keeps of attribute AP beyond its plain fields
   (amddwarf__die_fields_apply reads those into W->fields): the values of
   the expression and constant attributes, and the PC ranges. */
static amddwarf_status apply_attribute(walker *w, amddwarf_die_info *die,
                                       const amddwarf_attribute *ap, pc_attrs *pc)
{
  const amddwarf_attr_value *v = &ap->value;
  amddwarf__die_fields_apply(&w->fields, ap, &pc->type_ref, &pc->origin_ref);
  switch (ap->attribute) {
  case AMDDWARF_DW_AT_LLVM_lane_pc_old:
  case AMDDWARF_DW_AT_LLVM_lane_pc: return keep_value(w, ap, &die->lane_pc, die->offset);
  case AMDDWARF_DW_AT_LLVM_active_lane:
    if (amddwarf__is_active_lane_attribute(ap))
      return keep_value(w, ap, &die->active_lane, die->offset);
    return AMDDWARF_OK;
  case DW_AT_low_pc:
  case DW_AT_high_pc: amddwarf__pc_pair_note(&pc->pair, ap); return AMDDWARF_OK;
  case DW_AT_ranges:
    return amddwarf__object_read_ranges(w->object, w->cu, ap->form, v->u, &die->ranges,
                                       &die->range_count, w->err);
  case DW_AT_location: return keep_value(w, ap, &die->location, die->offset);
  case DW_AT_frame_base: return keep_value(w, ap, &die->frame_base, die->offset);
  case DW_AT_const_value: return keep_value(w, ap, &die->const_value, die->offset);
  case DW_AT_data_member_location:
    return keep_value(w, ap, &die->data_member_location, die->offset);
  case DW_AT_lower_bound: return keep_value(w, ap, &die->lower_bound, die->offset);
  case DW_AT_upper_bound: return keep_value(w, ap, &die->upper_bound, die->offset);
  case DW_AT_count: return keep_value(w, ap, &die->count, die->offset);
  default: return AMDDWARF_OK;
  }
}

/* The plain fields read into F, into the summary DIE. */
static void copy_fields(amddwarf_die_info *die, const amddwarf_die_fields *f)
{
  die->flags |= f->flags;
  die->name = f->name;
  die->linkage_name = f->linkage_name;
  die->decl_file = f->decl_file;
  die->decl_line = f->decl_line;
  die->call_file = f->call_file;
  die->call_line = f->call_line;
  die->call_column = f->call_column;
  die->byte_size = f->byte_size;
  die->bit_size = f->bit_size;
  die->data_bit_offset = f->data_bit_offset;
  die->encoding = f->encoding;
  die->address_class = f->address_class;
  die->address_space = f->address_space;
  die->memory_space = f->memory_space;
  die->vector_size = f->vector_size;
  die->lanes = f->lanes;
}

static amddwarf_status finish_ranges(walker *w, amddwarf_die_info *die, const pc_attrs *pc)
{
  amddwarf_range one;
  if (die->ranges == NULL && amddwarf__pc_pair_range(&pc->pair, die->tag, &one)) {
    amddwarf_range *r = amddwarf__arena_alloc(&w->object->arena, sizeof *r, 8);
    if (r == NULL)
      return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, die->offset, "DIE ranges");
    *r = one;
    die->ranges = r;
    die->range_count = 1;
  }
  return AMDDWARF_OK;
}

static amddwarf_status add_pending(walker *w, amddwarf_die_info *die,
                                   const amddwarf_die_info **slot, uint64_t target)
{
  amddwarf_object *object = w->object;
  amddwarf_unit *unit = w->unit;
  if (unit->pending_count >= unit->pending_capacity &&
      amddwarf__mem_reserve(&object->allocator, &unit->pending, &unit->pending_capacity,
                           unit->pending_count + 1, sizeof(pending_ref)) != 0)
    return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, die->offset, "DIE references");
  pending_ref *p = (pending_ref *)unit->pending + unit->pending_count++;
  p->die = die;
  p->slot = slot;
  p->target = target;
  p->resolved = false;
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

/* Records the references of DIE, in the order they are checked: type,
   origin, then the bounds. */
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

static int summarize_attribute(void *user, const amddwarf_attribute *a)
{
  walker *w = user;
  w->status = apply_attribute(w, w->die, a, w->pc);
  return w->status != AMDDWARF_OK;
}

/* Summarizes DIE (its offset and links set) from its attributes. */
static amddwarf_status read_die(walker *w, amddwarf_die_info *die)
{
  pc_attrs pc;
  memset(&pc.pair, 0, sizeof pc.pair);
  pc.type_ref = UINT64_MAX;
  pc.origin_ref = UINT64_MAX;
  /* The plain fields are all before const_value: the values after it are
     kept by apply_attribute, never read from W->fields. */
  memset(&w->fields, 0, offsetof(amddwarf_die_fields, const_value));
  w->die = die;
  w->pc = &pc;
  w->status = AMDDWARF_OK;
  amddwarf_status st = amddwarf__object_read_die(w->object, w->cu->index, die->offset,
                                                 summarize_attribute, w, w->err);
  if (st == AMDDWARF_END)
    st = w->status;
  if (st != AMDDWARF_OK)
    return st;
  copy_fields(die, &w->fields);
  st = finish_ranges(w, die, &pc);
  return st == AMDDWARF_OK ? note_references(w, die, &pc) : st;
}

amddwarf_status amddwarf__object_unit_changed(amddwarf_error *err, uint64_t off)
{
  return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, off,
                       ".debug_info at 0x%llx: the unit's DIEs differ from those counted at open",
                       (unsigned long long)off);
}

/* Summarizes every DIE of the unit into unit->dies: offsets, tags and tree
   links from the unit's index records first (so that a reference inside
   the unit finds its target by offset), then each DIE's attributes. */
static amddwarf_status walk_dies(walker *w)
{
  amddwarf_object *object = w->object;
  amddwarf_unit *unit = w->unit;
  const amddwarf_abbrev_table *abbrevs = &object->abbrev_tables[unit->abbrev_table];
  amddwarf_die_info *dies = unit->dies;
  uint32_t n = unit->die_count;
  for (uint32_t i = 0; i < n; ++i) {
    const amddwarf_die_record *rec = &unit->records[i];
    amddwarf_die_info *die = &dies[i];
    die->offset = w->cu->offset + rec->offset;
    die->tag = abbrevs->all[rec->abbrev].tag;
    die->cu_index = w->cu->index;
    if (rec->parent != AMDDWARF_NO_RECORD) {
      die->parent = &dies[rec->parent];
      die->depth = (uint16_t)(dies[rec->parent].depth + 1);
    }
    if (i + 1 < n && unit->records[i + 1].parent == i)
      die->first_child = &dies[i + 1];
    if (rec->sibling != AMDDWARF_NO_RECORD)
      die->next_sibling = &dies[rec->sibling];
  }
  for (uint32_t i = 0; i < n; ++i) {
    amddwarf_status st = read_die(w, &dies[i]);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* Walks unit CU_INDEX: its summaries exist and the references inside it are
   resolved; the others wait in unit->pending. */
static amddwarf_status walk_unit(amddwarf_object *object, size_t cu_index, amddwarf_error *err)
{
  amddwarf_cu *cu = &object->cus[cu_index];
  amddwarf_unit *unit = &object->units[cu_index];
  amddwarf_status st = amddwarf__object_ensure_index(object, cu_index, err);
  if (st != AMDDWARF_OK)
    return st;
  walker w;
  memset(&w, 0, sizeof w);
  w.object = object;
  w.cu = cu;
  w.unit = unit;
  w.err = err;
  size_t bytes = (size_t)unit->die_count * sizeof *unit->dies;
  unit->dies = amddwarf__mem_calloc_bulk(&object->allocator,
                                        unit->die_count ? unit->die_count : 1, sizeof *unit->dies);
  if (unit->dies == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->offset, "DIE summaries of a unit");
  object->loaded_die_bytes += bytes;
  atomic_store_explicit(&unit->state, AMDDWARF_UNIT_WALKED, memory_order_relaxed);
  st = walk_dies(&w);
  if (st != AMDDWARF_OK)
    return st;
  /* The references into this unit itself. */
  pending_ref *refs = unit->pending;
  for (size_t i = 0; i < unit->pending_count; ++i) {
    uint64_t t = refs[i].target;
    if (refs[i].resolved || t < cu->die_offset || t >= unit->end)
      continue;
    const amddwarf_die_info *hit = amddwarf__object_unit_die_at(object, cu_index, t);
    if (hit != NULL) {
      *refs[i].slot = hit;
      refs[i].resolved = true;
    }
  }
  return AMDDWARF_OK;
}

size_t amddwarf__object_unit_at(const amddwarf_object *object, uint64_t offset)
{
  size_t lo = 0, n = object->cu_count;
  if (n == 0 || offset < object->cus[0].offset)
    return SIZE_MAX;
  while (n > 1) {
    size_t half = n / 2;
    if (object->cus[lo + half].offset <= offset)
      lo += half;
    n -= half;
  }
  return offset < object->units[lo].end ? lo : SIZE_MAX;
}

const amddwarf_die_info *amddwarf__object_unit_die_at(const amddwarf_object *object,
                                                     size_t cu_index, uint64_t offset)
{
  const amddwarf_unit *unit = &object->units[cu_index];
  if (unit->dies == NULL || unit->die_count == 0)
    return NULL;
  size_t lo = 0, n = unit->die_count;
  while (n > 1) {
    size_t half = n / 2;
    if (unit->dies[lo + half].offset <= offset)
      lo += half;
    n -= half;
  }
  return unit->dies[lo].offset == offset ? &unit->dies[lo] : NULL;
}

/* Units walked by one load, in the order they were reached. */
typedef struct unit_list {
  size_t *items;
  size_t count, capacity;
} unit_list;

static amddwarf_status bad_reference(const amddwarf_object *object, const pending_ref *ref,
                                     size_t target_unit, amddwarf_error *err)
{
  if (target_unit != SIZE_MAX &&
      atomic_load_explicit(&object->units[target_unit].state, memory_order_relaxed) ==
          AMDDWARF_UNIT_FAILED)
    return amddwarf__fail(err, object->units[target_unit].failure.status, ref->die->offset,
                         "DIE 0x%llx refers to 0x%llx, in a unit that cannot be read: %s",
                         (unsigned long long)ref->die->offset, (unsigned long long)ref->target,
                         object->units[target_unit].failure.message);
  return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_REFERENCE, ref->die->offset,
                       "DIE 0x%llx refers to 0x%llx, where no DIE starts",
                       (unsigned long long)ref->die->offset, (unsigned long long)ref->target);
}

/* Resolves the references of unit U that lead out of it, walking the units
   they lead into (appended to WALKED). *CULPRIT gets the unit at fault on
   failure. */
static amddwarf_status resolve_outward(amddwarf_object *object, size_t u, unit_list *walked,
                                       size_t *culprit, amddwarf_error *err)
{
  amddwarf_unit *unit = &object->units[u];
  pending_ref *refs = unit->pending;
  *culprit = u;
  for (size_t i = 0; i < unit->pending_count; ++i) {
    if (refs[i].resolved)
      continue;
    size_t t = amddwarf__object_unit_at(object, refs[i].target);
    unsigned state = t == SIZE_MAX ? AMDDWARF_UNIT_FAILED
                                   : atomic_load_explicit(&object->units[t].state,
                                                          memory_order_relaxed);
    if (state == AMDDWARF_UNIT_UNLOADED) {
      if (amddwarf__mem_reserve(&object->allocator, (void **)&walked->items, &walked->capacity,
                               walked->count + 1, sizeof *walked->items) != 0)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, refs[i].target, "units to load");
      walked->items[walked->count++] = t;
      amddwarf_status st = walk_unit(object, t, err);
      if (st != AMDDWARF_OK) {
        *culprit = t;
        return st;
      }
      state = AMDDWARF_UNIT_WALKED;
    }
    const amddwarf_die_info *hit =
        state == AMDDWARF_UNIT_FAILED ? NULL : amddwarf__object_unit_die_at(object, t, refs[i].target);
    if (hit == NULL)
      return bad_reference(object, &refs[i], t, err);
    *refs[i].slot = hit;
    refs[i].resolved = true;
  }
  return AMDDWARF_OK;
}

/* Inherits the name, type and declaration from the origin chain. */
static void inherit_from_origins(amddwarf_unit *unit)
{
  pending_ref *refs = unit->pending;
  for (size_t i = 0; i < unit->pending_count; ++i) {
    amddwarf_die_info *d = refs[i].die;
    if (refs[i].slot != &d->origin)
      continue;
    const amddwarf_die_info *o = d->origin;
    for (int hops = 0; o != NULL && hops < AMDDWARF_MAX_ORIGIN_STEPS; ++hops, o = o->origin) {
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
}

static void release_pending(amddwarf_object *object, amddwarf_unit *unit)
{
  amddwarf__mem_free(&object->allocator, unit->pending, unit->pending_capacity * sizeof(pending_ref));
  unit->pending = NULL;
  unit->pending_count = unit->pending_capacity = 0;
}

/* Gives back what a walk of UNIT made (its arena allocations stay). */
static void unwalk(amddwarf_object *object, amddwarf_unit *unit)
{
  release_pending(object, unit);
  if (unit->dies != NULL) {
    amddwarf__mem_free_bulk(&object->allocator, unit->dies,
                           (unit->die_count ? unit->die_count : 1) * sizeof *unit->dies);
    object->loaded_die_bytes -= (size_t)unit->die_count * sizeof *unit->dies;
  }
  unit->dies = NULL;
}

static void fail_unit(amddwarf_object *object, size_t u, const amddwarf_error *why)
{
  amddwarf_unit *unit = &object->units[u];
  unwalk(object, unit);
  unit->failure = *why;
  atomic_store_explicit(&unit->state, AMDDWARF_UNIT_FAILED, memory_order_release);
}

/* Loads unit CU_INDEX and every unit its references reach (called with the
   lock held). On failure the requested unit and the unit at fault keep the
   error; the others reached are set back to unloaded. */
static amddwarf_status load_units(amddwarf_object *object, size_t cu_index, amddwarf_error *err)
{
  unit_list walked = {NULL, 0, 0};
  amddwarf_error local;
  amddwarf_error *e = err != NULL ? err : &local;
  size_t culprit = cu_index;
  amddwarf_status st = AMDDWARF_OK;
  if (amddwarf__mem_reserve(&object->allocator, (void **)&walked.items, &walked.capacity, 4,
                           sizeof *walked.items) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, object->cus[cu_index].offset, "units to load");
  walked.items[walked.count++] = cu_index;
  st = walk_unit(object, cu_index, e);
  for (size_t i = 0; st == AMDDWARF_OK && i < walked.count; ++i)
    st = resolve_outward(object, walked.items[i], &walked, &culprit, e);
  if (st == AMDDWARF_OK)
    for (size_t i = 0; i < walked.count; ++i)
      inherit_from_origins(&object->units[walked.items[i]]);
  if (st == AMDDWARF_OK) {
    for (size_t i = 0; i < walked.count; ++i) {
      amddwarf_unit *unit = &object->units[walked.items[i]];
      release_pending(object, unit);
      atomic_store_explicit(&unit->state, AMDDWARF_UNIT_READY, memory_order_release);
    }
  } else {
    amddwarf_error why = *e;
    why.status = st;
    for (size_t i = 0; i < walked.count; ++i) {
      size_t u = walked.items[i];
      if (u == cu_index || u == culprit)
        fail_unit(object, u, &why);
      else {
        unwalk(object, &object->units[u]);
        atomic_store_explicit(&object->units[u].state, AMDDWARF_UNIT_UNLOADED,
                              memory_order_relaxed);
      }
    }
  }
  amddwarf__mem_free(&object->allocator, walked.items, walked.capacity * sizeof *walked.items);
  return st;
}

static amddwarf_status unit_failure(const amddwarf_unit *unit, amddwarf_error *err)
{
  if (err != NULL)
    *err = unit->failure;
  return unit->failure.status;
}

amddwarf_unit *amddwarf__object_unit(const amddwarf_object *cobject, size_t cu_index,
                                     amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  if (object == NULL || cu_index >= object->cu_count) {
    amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "unit %zu does not exist",
                   cu_index);
    return NULL;
  }
  amddwarf__object_ensure_scanned(object, cu_index);
  return &object->units[cu_index];
}

amddwarf_status amddwarf__object_ensure_unit(const amddwarf_object *cobject, size_t cu_index,
                                            amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = amddwarf__object_unit(cobject, cu_index, err);
  if (unit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  unsigned state = atomic_load_explicit(&unit->state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  if (state == AMDDWARF_UNIT_FAILED)
    return unit_failure(unit, err);
  pthread_mutex_lock(&object->load_lock);
  amddwarf_status st = AMDDWARF_OK;
  state = atomic_load_explicit(&unit->state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_FAILED)
    st = unit_failure(unit, err);
  else if (state != AMDDWARF_UNIT_READY)
    st = load_units(object, cu_index, err);
  pthread_mutex_unlock(&object->load_lock);
  return st;
}

amddwarf_status amddwarf_object_load_unit(const amddwarf_object *object, size_t cu_index,
                                          amddwarf_error *err)
{
  amddwarf_status st = amddwarf__object_verify_unit(object, cu_index, err);
  if (st == AMDDWARF_OK)
    st = amddwarf__object_ensure_lines(object, cu_index, err);
  return st;
}

amddwarf_status amddwarf__object_each_unit(const amddwarf_object *object, const char *caller,
                                          amddwarf_status (*step)(const amddwarf_object *object,
                                                                  size_t cu_index,
                                                                  amddwarf_error *err),
                                          amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "%s: NULL object",
                         caller);
  for (size_t i = 0; i < object->cu_count; ++i) {
    amddwarf_status st = step(object, i, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_load_all(const amddwarf_object *object, amddwarf_error *err)
{
  if (object != NULL)
    amddwarf__object_scan_all(object);
  return amddwarf__object_each_unit(object, "amddwarf_object_load_all", amddwarf_object_load_unit,
                                    err);
}

void amddwarf__object_free_units(amddwarf_object *object)
{
  amddwarf__object_free_indexes(object);
  for (size_t i = 0; i < object->cu_count && object->units != NULL; ++i)
    unwalk(object, &object->units[i]);
  amddwarf__mem_free(&object->allocator, object->units, object->cu_capacity * sizeof *object->units);
  object->units = NULL;
  if (object->constants != NULL)
    amddwarf__mem_free(&object->allocator, (void *)object->constants,
                      object->constant_capacity * sizeof *object->constants);
  object->constants = NULL;
  object->constant_count = object->constant_capacity = 0;
}

/* ---- accessors ---- */

const amddwarf_die_info *amddwarf_object_die_at(const amddwarf_object *object, uint64_t offset)
{
  if (object == NULL)
    return NULL;
  size_t u = amddwarf__object_unit_at(object, offset);
  if (u == SIZE_MAX || amddwarf__object_ensure_unit(object, u, NULL) != AMDDWARF_OK)
    return NULL;
  return amddwarf__object_unit_die_at(object, u, offset);
}

size_t amddwarf_object_die_count(const amddwarf_object *object)
{
  if (object == NULL)
    return 0;
  amddwarf__object_scan_all(object);
  return object->die_count;
}

const amddwarf_die_info *amddwarf_object_die(const amddwarf_object *object, size_t index)
{
  size_t u = amddwarf__object_unit_of_die(object, index);
  if (u == SIZE_MAX || amddwarf__object_ensure_unit(object, u, NULL) != AMDDWARF_OK)
    return NULL;
  const amddwarf_unit *unit = &object->units[u];
  return &unit->dies[index - unit->first_die];
}

/* Lists the attributes of DIE by decoding it again from .debug_info. */
void amddwarf__object_link_attribute(const amddwarf_object *object, const amddwarf_die_info *die,
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
  else if (a->attribute == AMDDWARF_DW_AT_LLVM_lane_pc ||
           a->attribute == AMDDWARF_DW_AT_LLVM_lane_pc_old)
    kept = die->lane_pc;
  else if (a->attribute == AMDDWARF_DW_AT_LLVM_active_lane)
    kept = die->active_lane;
  if (kept != NULL && kept->kind == AMDDWARF_ATTR_LIST)
    a->value = *kept;
}

typedef struct linked_visit {
  const amddwarf_object *object;
  const amddwarf_die_info *die;
  int (*visit)(void *user, const amddwarf_attribute *attribute);
  void *user;
} linked_visit;

static int visit_linked(void *user, const amddwarf_attribute *attribute)
{
  linked_visit *lv = user;
  amddwarf_attribute a = *attribute;
  amddwarf__object_link_attribute(lv->object, lv->die, &a);
  return lv->visit(lv->user, &a);
}

amddwarf_status amddwarf_object_die_attributes(
    const amddwarf_object *object, const amddwarf_die_info *die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err)
{
  if (object == NULL || die == NULL || visit == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_die_attributes: NULL argument");
  if (die->cu_index >= object->cu_count ||
      amddwarf__object_unit_die_at(object, die->cu_index, die->offset) != die)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "the DIE does not belong to this object");
  linked_visit lv = {object, die, visit, user};
  return amddwarf__object_listed_attributes(object, die->cu_index, die->offset, visit_linked, &lv,
                                            err);
}

size_t amddwarf_object_summarized_units(const amddwarf_object *object)
{
  size_t n = 0;
  for (size_t i = 0; object != NULL && i < object->cu_count; ++i)
    n += atomic_load_explicit(&object->units[i].state, memory_order_acquire) ==
         AMDDWARF_UNIT_READY;
  return n;
}
