/* Code objects: the PC -> scope index (built by each unit's scan), and the
 * scopes and variables at a PC as DIE summaries: those of
 * amddwarf_object_scope_refs_at and _var_refs_at (scope_refs.c, the one
 * reader of the rules), handed out as the summaries of their DIEs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/text.h"
#include "object/internal.h"
#include <amddwarf/target.h>

#define AMDDWARF_MAX_TYPE_DEPTH 32

static int scope_order(const void *a, const void *b)
{
  const amddwarf_scope_entry *x = a, *y = b;
  if (x->low != y->low)
    return x->low < y->low ? -1 : 1;
  if (x->die_offset != y->die_offset)
    return x->die_offset < y->die_offset ? -1 : 1;
  return 0;
}

amddwarf_status amddwarf__object_build_scopes(amddwarf_object *object, amddwarf_unit *unit,
                                             amddwarf_error *err)
{
  size_t n = unit->scope_count;
  if (n > 1)
    qsort(unit->scopes, n, sizeof *unit->scopes, scope_order);
  unit->scope_max_high =
      amddwarf__arena_alloc(&object->arena, (n ? n : 1) * sizeof *unit->scope_max_high, 8);
  if (unit->scope_max_high == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "scope index");
  uint64_t max = 0;
  for (size_t i = 0; i < n; ++i) {
    if (unit->scopes[i].high > max)
      max = unit->scopes[i].high;
    unit->scope_max_high[i] = max;
  }
  return AMDDWARF_OK;
}

/* The entry of scanned unit U holding PC that starts last (of equal
   starts, the later DIE), or NULL. */
static const amddwarf_scope_entry *unit_scope_at(const amddwarf_unit *unit, uint64_t pc)
{
  size_t lo = 0, hi = unit->scope_count;
  while (lo < hi) { /* first entry with low > pc */
    size_t mid = lo + (hi - lo) / 2;
    if (unit->scopes[mid].low <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    if (unit->scope_max_high[i] <= pc)
      break;
    if (pc < unit->scopes[i].high) /* of overlapping ones, the one starting last */
      return &unit->scopes[i];
  }
  return NULL;
}

static bool unit_ranges_hold(const amddwarf_cu *cu, uint64_t pc)
{
  for (size_t r = 0; r < cu->range_count; ++r)
    if (pc >= cu->ranges[r].low && pc < cu->ranges[r].high)
      return true;
  return false;
}

/* Of two entries holding a PC, the one the whole object's index ordered
   last: the later start, then the later DIE. */
static const amddwarf_scope_entry *later_entry(const amddwarf_scope_entry *a,
                                               const amddwarf_scope_entry *b)
{
  if (a == NULL)
    return b;
  if (b == NULL)
    return a;
  return scope_order(a, b) < 0 ? b : a;
}

/* Looks in the units whose ranges hold PC (and those without ranges) first,
   scanning them; only when none has a subprogram there, in every unit:
   a subprogram outside its unit's ranges is still found. */
const amddwarf_scope_entry *amddwarf__object_scope_entry_at(const amddwarf_object *object,
                                                           uint64_t pc)
{
  const amddwarf_scope_entry *best = NULL;
  for (int pass = 0; pass < 2 && best == NULL; ++pass) {
    for (size_t u = 0; u < object->cu_count; ++u) {
      const amddwarf_cu *cu = &object->cus[u];
      bool candidate = cu->range_count == 0 || unit_ranges_hold(cu, pc);
      if (candidate != (pass == 0))
        continue;
      amddwarf__object_ensure_scanned(object, u);
      const amddwarf_unit *unit = &object->units[u];
      if (atomic_load_explicit(&unit->scan_state, memory_order_acquire) == AMDDWARF_UNIT_READY)
        best = later_entry(best, unit_scope_at(unit, pc));
    }
  }
  return best;
}

amddwarf_status amddwarf_object_pc_unit(const amddwarf_object *object, uint64_t pc,
                                        size_t *cu_index)
{
  const amddwarf_scope_entry *entry = object ? amddwarf__object_scope_entry_at(object, pc) : NULL;
  if (entry == NULL)
    return AMDDWARF_NOT_FOUND;
  *cu_index = entry->cu_index;
  return AMDDWARF_OK;
}

/* The unit of the subprogram holding PC with its summaries made:
   AMDDWARF_OK, AMDDWARF_NOT_FOUND, or the unit's loading error. */
static amddwarf_status summarized_unit_at(const amddwarf_object *object, uint64_t pc)
{
  size_t u = 0;
  if (object == NULL || amddwarf_object_pc_unit(object, pc, &u) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  return amddwarf__object_ensure_unit(object, u, NULL);
}

/* The summary of REF, whose unit is loaded. */
static const amddwarf_die_info *summary_of(const amddwarf_object *object, amddwarf_die_ref ref)
{
  return amddwarf__object_unit_die_at(object, ref.cu_index, ref.offset);
}

amddwarf_status amddwarf_object_scopes_at(const amddwarf_object *object, uint64_t pc,
                                          const amddwarf_die_info **scopes, size_t capacity,
                                          size_t *count)
{
  amddwarf_die_ref refs[AMDDWARF_MAX_SCOPE_DEPTH];
  size_t depth = 0;
  *count = 0;
  amddwarf_status st = summarized_unit_at(object, pc);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_scope_refs_at(object, pc, refs, AMDDWARF_MAX_SCOPE_DEPTH, &depth, NULL);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t i = 0; i < depth && i < capacity && i < AMDDWARF_MAX_SCOPE_DEPTH; ++i)
    scopes[i] = summary_of(object, refs[i]);
  *count = depth;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_attr_value_expr_at(const amddwarf_attr_value *value, uint64_t pc,
                                            const uint8_t **bytes, size_t *size,
                                            const amddwarf_loc_entry **entry)
{
  if (entry)
    *entry = NULL;
  if (value == NULL)
    return AMDDWARF_NOT_FOUND;
  if (value->kind == AMDDWARF_ATTR_EXPR) {
    *bytes = value->bytes;
    *size = value->size;
    return AMDDWARF_OK;
  }
  if (value->kind != AMDDWARF_ATTR_LIST)
    return AMDDWARF_NOT_FOUND;
  const amddwarf_loc_entry *fallback = NULL;
  for (size_t i = 0; i < value->count; ++i) {
    const amddwarf_loc_entry *e = &value->entries[i];
    if (e->is_default) {
      fallback = e;
      continue;
    }
    if (pc >= e->low && pc < e->high) {
      *bytes = e->expr;
      *size = e->size;
      if (entry)
        *entry = e;
      return AMDDWARF_OK;
    }
  }
  if (fallback != NULL) {
    *bytes = fallback->expr;
    *size = fallback->size;
    if (entry)
      *entry = fallback;
    return AMDDWARF_OK;
  }
  return AMDDWARF_NOT_FOUND;
}

/* The entry of VAR's summarized location (its own, else its origin's, as
   amddwarf_object_var_refs_at reads it) at the same offset as REF's. */
static const amddwarf_loc_entry *summary_entry(const amddwarf_die_info *var,
                                               const amddwarf_var_ref *ref)
{
  const amddwarf_attr_value *loc = var->location;
  if (loc == NULL && var->origin != NULL && var->const_value == NULL)
    loc = var->origin->location;
  for (size_t i = 0; loc != NULL && loc->kind == AMDDWARF_ATTR_LIST && i < loc->count; ++i)
    if (loc->entries[i].offset == ref->entry.offset)
      return &loc->entries[i];
  return NULL;
}

amddwarf_status amddwarf_object_vars_at(const amddwarf_object *object, uint64_t pc,
                                        amddwarf_var *vars, size_t capacity, size_t *count)
{
  enum { ON_STACK = 64 };
  amddwarf_var_ref stack_refs[ON_STACK], *refs = stack_refs;
  amddwarf_allocator *alloc = (amddwarf_allocator *)(uintptr_t)(object ? &object->allocator : NULL);
  size_t n = 0;
  *count = 0;
  amddwarf_status st = summarized_unit_at(object, pc);
  if (st != AMDDWARF_OK)
    return st;
  if (capacity > SIZE_MAX / sizeof *refs)
    capacity = SIZE_MAX / sizeof *refs; /* more than any scope holds */
  if (capacity > ON_STACK) {
    refs = amddwarf__mem_alloc(alloc, capacity * sizeof *refs);
    if (refs == NULL)
      return AMDDWARF_E_NO_MEMORY;
  }
  st = amddwarf_object_var_refs_at(object, pc, refs, capacity, &n, NULL);
  for (size_t i = 0; st == AMDDWARF_OK && i < n && i < capacity; ++i) {
    amddwarf_var *v = &vars[i];
    memset(v, 0, sizeof *v);
    v->die = summary_of(object, refs[i].die);
    v->scope = summary_of(object, refs[i].scope);
    v->depth = refs[i].depth;
    v->available = refs[i].available;
    v->expr = refs[i].expr;
    v->size = refs[i].size;
    if (refs[i].from_list && v->die != NULL)
      v->entry = summary_entry(v->die, &refs[i]);
  }
  if (refs != stack_refs)
    amddwarf__mem_free(alloc, refs, capacity * sizeof *refs);
  if (st == AMDDWARF_OK)
    *count = n;
  return st;
}
