/* Code objects: whether every DIE of a unit can be read, on DIE references.
 *
 * amddwarf_object_load_unit answers it without making the unit's DIE
 * summaries: one pass over the unit's DIEs (through its compact index)
 * reads every location and range list a DIE's expression and constant
 * attributes name, and finds the DIE each DW_AT_type,
 * DW_AT_abstract_origin, DW_AT_specification and reference bound names (a
 * bad list anywhere in the unit is reported before a bad reference).
 * A reference into another unit needs that unit readable too (checked one
 * unit deep: its own lists and references, and that the DIEs its
 * references into further units name exist). Then the unit's variables
 * whose addresses the object does not know are found (unknown_addr.c).
 *
 * The answer is kept per unit (a once-flag under the object's lock, read
 * without it once set), so that a unit that failed keeps failing with the
 * same error. */
#include <string.h>

#include "common/mem.h"
#include "object/internal.h"

/* The references whose targets a reader follows. */
static bool followed_reference(const amddwarf_attribute *a)
{
  if (a->value.kind != AMDDWARF_ATTR_REF)
    return false;
  switch (a->attribute) {
  case DW_AT_type:
  case DW_AT_abstract_origin:
  case DW_AT_specification:
  case DW_AT_lower_bound:
  case DW_AT_upper_bound:
  case DW_AT_count: return true;
  default: return false;
  }
}

enum { MAX_ITEMS = 16 }; /* lists or references of one DIE checked */

/* What one DIE names: its lists (FORM/VALUE, KIND LIST or RANGES) and its
   references' targets (KIND REFERENCE, VALUE the target), in encoded order. */
typedef enum item_kind { ITEM_LIST, ITEM_RANGES, ITEM_REFERENCE } item_kind;
typedef struct die_items {
  size_t count;
  struct {
    uint16_t form;
    uint8_t kind;     /* item_kind */
    uint64_t value;
  } item[MAX_ITEMS];
} die_items;

static int collect(void *user, const amddwarf_attribute *a)
{
  die_items *d = user;
  if (d->count == MAX_ITEMS)
    return 0;
  if (followed_reference(a)) {
    d->item[d->count].kind = ITEM_REFERENCE;
    d->item[d->count++].value = a->value.offset;
    return 0;
  }
  bool ranges = a->attribute == DW_AT_ranges;
  bool list = a->value.kind == AMDDWARF_ATTR_LIST &&
              amddwarf_object_attribute_is_evaluated(a->attribute);
  if (!ranges && !list)
    return 0;
  d->item[d->count].form = a->form;
  d->item[d->count].kind = ranges ? ITEM_RANGES : ITEM_LIST;
  d->item[d->count++].value = a->value.u;
  return 0;
}

static bool skip_entry(void *user, const amddwarf_loc_entry *entry)
{
  (void)user;
  (void)entry;
  return true;
}

static bool skip_range(void *user, const amddwarf_range *range)
{
  (void)user;
  (void)range;
  return true;
}

static amddwarf_status verify_locked(amddwarf_object *object, size_t cu_index, int depth,
                                     amddwarf_error *err);

/* Whether the DIE at TARGET, which DIE FROM refers to, exists and its unit
   can be read (DEPTH 0: the unit is checked too). */
static amddwarf_status check_target(amddwarf_object *object, size_t cu_index, uint64_t from,
                                    uint64_t target, int depth, amddwarf_error *err)
{
  amddwarf_die_ref ref;
  amddwarf_error why;
  amddwarf_error_clear(&why);
  size_t t = amddwarf__object_unit_at(object, target);
  amddwarf_status st =
      t == SIZE_MAX ? AMDDWARF_NOT_FOUND : amddwarf_object_die_ref_at(object, target, &ref, &why);
  if (st == AMDDWARF_OK && t != cu_index && depth == 0)
    st = verify_locked(object, t, depth + 1, &why);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_REFERENCE, from,
                          "DIE 0x%llx refers to 0x%llx, where no DIE starts",
                          (unsigned long long)from, (unsigned long long)target);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, from,
                          "DIE 0x%llx refers to 0x%llx, in a unit that cannot be read: %s",
                          (unsigned long long)from, (unsigned long long)target, why.message);
  return AMDDWARF_OK;
}

/* One pass over the unit's DIEs: their lists and the DIEs their references
   name. The first bad reference waits in *REFERENCE_ERROR (status
   *REFERENCE_STATUS) until every list has been read. */
static amddwarf_status verify_pass(amddwarf_object *object, size_t cu_index, int depth,
                                   amddwarf_error *err)
{
  const amddwarf_cu *cu = &object->cus[cu_index];
  const amddwarf_unit *unit = &object->units[cu_index];
  amddwarf_status st = AMDDWARF_OK, reference_status = AMDDWARF_OK;
  amddwarf_error reference_error;
  for (uint32_t i = 0; st == AMDDWARF_OK && i < unit->die_count; ++i) {
    uint64_t offset = cu->offset + unit->records[i].offset;
    die_items d;
    d.count = 0;
    st = amddwarf__object_read_die(object, cu_index, offset, collect, &d, err);
    for (size_t k = 0; st == AMDDWARF_OK && k < d.count; ++k) {
      if (d.item[k].kind == ITEM_REFERENCE) {
        if (reference_status == AMDDWARF_OK)
          reference_status = check_target(object, cu_index, offset, d.item[k].value, depth,
                                          &reference_error);
      } else if (d.item[k].kind == ITEM_RANGES) {
        st = amddwarf__object_visit_ranges(object, cu, d.item[k].form, d.item[k].value,
                                           skip_range, NULL, err);
      } else {
        st = amddwarf__object_visit_loclist(object, cu, d.item[k].form, d.item[k].value,
                                            skip_entry, NULL, err);
      }
    }
  }
  if (st == AMDDWARF_OK && reference_status != AMDDWARF_OK) {
    if (err != NULL)
      *err = reference_error;
    st = reference_status;
  }
  return st;
}

/* Checks unit CU_INDEX once (the lock held) and keeps the answer. */
static amddwarf_status verify_locked(amddwarf_object *object, size_t cu_index, int depth,
                                     amddwarf_error *err)
{
  amddwarf_unit *unit = &object->units[cu_index];
  unsigned state = atomic_load_explicit(&unit->verify_state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_READY || state == AMDDWARF_UNIT_WALKED) /* WALKED: being checked */
    return AMDDWARF_OK;
  if (state == AMDDWARF_UNIT_FAILED) {
    if (err != NULL)
      *err = unit->verify_failure;
    return unit->verify_failure.status;
  }
  atomic_store_explicit(&unit->verify_state, AMDDWARF_UNIT_WALKED, memory_order_relaxed);
  amddwarf_error local;
  amddwarf_error *e = err != NULL ? err : &local;
  amddwarf_error_clear(e);
  amddwarf_status st = amddwarf__object_ensure_index(object, cu_index, e);
  if (st == AMDDWARF_OK)
    st = verify_pass(object, cu_index, depth, e);
  if (st == AMDDWARF_OK)
    st = amddwarf__object_ensure_unknown(object, cu_index, e);
  if (st != AMDDWARF_OK) {
    unit->verify_failure = *e;
    unit->verify_failure.status = st;
  }
  atomic_store_explicit(&unit->verify_state,
                        st == AMDDWARF_OK ? AMDDWARF_UNIT_READY : AMDDWARF_UNIT_FAILED,
                        memory_order_release);
  return st;
}

amddwarf_status amddwarf__object_verify_unit(const amddwarf_object *cobject, size_t cu_index,
                                            amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = amddwarf__object_unit(cobject, cu_index, err);
  if (unit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  unsigned state = atomic_load_explicit(&unit->verify_state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  if (state == AMDDWARF_UNIT_FAILED) {
    if (err != NULL)
      *err = unit->verify_failure;
    return unit->verify_failure.status;
  }
  pthread_mutex_lock(&object->load_lock);
  amddwarf_status st = verify_locked(object, cu_index, 0, err);
  pthread_mutex_unlock(&object->load_lock);
  return st;
}
