/* Code objects: the PC -> scope index (built at open) and the variables
 * in scope at a PC. The type helpers are types.c's. */
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

static bool die_contains(const amddwarf_die_info *d, uint64_t pc)
{
  for (size_t r = 0; r < d->range_count; ++r)
    if (pc >= d->ranges[r].low && pc < d->ranges[r].high)
      return true;
  return false;
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

amddwarf_status amddwarf_object_scopes_at(const amddwarf_object *object, uint64_t pc,
                                          const amddwarf_die_info **scopes, size_t capacity,
                                          size_t *count)
{
  const amddwarf_die_info *chain[AMDDWARF_MAX_SCOPE_DEPTH];
  size_t depth = 0;
  *count = 0;
  if (object == NULL)
    return AMDDWARF_NOT_FOUND;
  const amddwarf_scope_entry *entry = amddwarf__object_scope_entry_at(object, pc);
  if (entry == NULL)
    return AMDDWARF_NOT_FOUND;
  amddwarf_status st = amddwarf__object_ensure_unit(object, entry->cu_index, NULL);
  if (st != AMDDWARF_OK)
    return st;
  const amddwarf_die_info *sub =
      amddwarf__object_unit_die_at(object, entry->cu_index, entry->die_offset);
  if (sub == NULL)
    return AMDDWARF_NOT_FOUND;
  chain[depth++] = sub;
  const amddwarf_die_info *cur = sub;
  for (;;) {
    const amddwarf_die_info *next = NULL;
    for (const amddwarf_die_info *c = cur->first_child; c != NULL; c = c->next_sibling) {
      if ((c->tag == DW_TAG_lexical_block || c->tag == DW_TAG_inlined_subroutine) &&
          die_contains(c, pc)) {
        next = c;
        break;
      }
      /* A lexical block without ranges still groups its variables: look
         through it. */
    }
    if (next == NULL || depth >= sizeof chain / sizeof chain[0] - 1)
      break;
    chain[depth++] = next;
    cur = next;
  }
  const amddwarf_die_info *unit = sub;
  while (unit->parent != NULL)
    unit = unit->parent;
  chain[depth++] = unit;
  /* Innermost first: reverse all but the unit, which comes last. */
  for (size_t i = 0; i + 1 < depth; ++i)
    if (i < capacity)
      scopes[i] = chain[depth - 2 - i];
  if (depth - 1 < capacity)
    scopes[depth - 1] = unit;
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

static size_t add_var(const amddwarf_die_info *scope, const amddwarf_die_info *c, uint32_t depth,
                      uint64_t pc, amddwarf_var *vars, size_t capacity, size_t n);

static size_t add_vars(const amddwarf_object *object, const amddwarf_die_info *scope,
                       uint32_t depth, uint64_t pc, amddwarf_var *vars, size_t capacity, size_t n)
{
  if (scope->depth == 0 && scope->cu_index < object->cu_count) {
    const amddwarf_unit *unit = &object->units[scope->cu_index];
    for (size_t i = 0; i < unit->var_count; ++i)
      n = add_var(scope, unit->vars[i], depth, pc, vars, capacity, n);
    return n;
  }
  for (const amddwarf_die_info *c = scope->first_child; c != NULL; c = c->next_sibling)
    if (c->tag == DW_TAG_variable || c->tag == DW_TAG_formal_parameter)
      n = add_var(scope, c, depth, pc, vars, capacity, n);
  return n;
}

static size_t add_var(const amddwarf_die_info *scope, const amddwarf_die_info *c, uint32_t depth,
                      uint64_t pc, amddwarf_var *vars, size_t capacity, size_t n)
{
  if (n < capacity) {
    amddwarf_var *v = &vars[n];
    memset(v, 0, sizeof *v);
    v->die = c;
    v->scope = scope;
    v->depth = depth;
    const amddwarf_attr_value *loc = c->location;
    if (loc == NULL && c->origin != NULL && c->const_value == NULL)
      loc = c->origin->location;
    if (loc != NULL &&
        amddwarf_attr_value_expr_at(loc, pc, &v->expr, &v->size, &v->entry) == AMDDWARF_OK)
      v->available = 1;
  }
  return n + 1;
}

amddwarf_status amddwarf_object_vars_at(const amddwarf_object *object, uint64_t pc,
                                        amddwarf_var *vars, size_t capacity, size_t *count)
{
  const amddwarf_die_info *scopes[AMDDWARF_MAX_SCOPE_DEPTH];
  size_t depth = 0, n = 0;
  *count = 0;
  amddwarf_status st = amddwarf_object_scopes_at(object, pc, scopes, AMDDWARF_MAX_SCOPE_DEPTH, &depth);
  if (st != AMDDWARF_OK)
    return st;
  if (depth > AMDDWARF_MAX_SCOPE_DEPTH)
    depth = AMDDWARF_MAX_SCOPE_DEPTH;
  for (size_t i = 0; i < depth; ++i)
    n = add_vars(object, scopes[i], (uint32_t)i, pc, vars, capacity, n);
  *count = n;
  return AMDDWARF_OK;
}
