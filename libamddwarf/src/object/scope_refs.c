/* Code objects: the scopes and variables at a PC as DIE references, read
 * from the DIEs of the subprogram holding PC.
 *
 * The open-time pass gave the subprogram (offset and index, from the scope
 * index) and the unit's variables, so a query reads only the subprogram's
 * DIEs: once to find the chain of lexical blocks and inlined subroutines
 * holding PC, then the direct children of each scope of the chain for its
 * variables. The rules are amddwarf_object_scopes_at's and
 * amddwarf_object_vars_at's (scope.c), which read the same DIEs through
 * their summaries. */
#include <string.h>

#include "common/reader.h"
#include "object/internal.h"

/* A reader over one unit's DIEs. */
typedef struct die_walk {
  amddwarf_object *object;
  size_t cu_index;
  const amddwarf_cu *cu;
  const amddwarf_abbrev_table *abbrevs;
  amddwarf_form_reader fr;
  amddwarf_reader r;
  amddwarf_error *err;
} die_walk;

/* A scope of the chain: where its children start. */
typedef struct scope_at {
  amddwarf_die_ref ref;
  size_t children;           /* reader position of its first child */
  bool has_children;
} scope_at;

static void walk_init(die_walk *w, const amddwarf_object *object, size_t cu_index,
                      amddwarf_error *err)
{
  w->object = (amddwarf_object *)(uintptr_t)object;
  w->cu_index = cu_index;
  w->cu = &object->cus[cu_index];
  const amddwarf_unit *unit = &object->units[cu_index];
  w->abbrevs = &object->abbrev_tables[unit->abbrev_table];
  w->fr = amddwarf_form_reader_make(w->object, w->cu, err);
  amddwarf_reader_init(&w->r, object->sec_info->data, (size_t)unit->end);
  w->err = err;
}

/* The DIE at the reader: *AB is NULL for a null entry. */
static amddwarf_status next_die(die_walk *w, uint64_t *off, const amddwarf_abbrev **ab)
{
  uint64_t code = 0;
  *off = w->r.pos;
  *ab = NULL;
  if (amddwarf_read_uleb(&w->r, &code) != AMDDWARF_OK)
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, *off,
                         ".debug_info at 0x%llx: truncated abbreviation code",
                         (unsigned long long)*off);
  if (code == 0)
    return AMDDWARF_OK;
  *ab = amddwarf__abbrev_find(w->abbrevs, code);
  if (*ab == NULL)
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, *off,
                         "DIE 0x%llx: unknown abbreviation code %llu", (unsigned long long)*off,
                         (unsigned long long)code);
  return AMDDWARF_OK;
}

static amddwarf_status skip_attributes(die_walk *w, const amddwarf_abbrev *ab, uint64_t off)
{
  return amddwarf__form_step_die(&w->fr, &w->r, w->abbrevs, ab, off);
}

/* Steps over the descendants of the DIE just read (its attributes
   included), counting them into *INDEX. */
static amddwarf_status skip_descendants(die_walk *w, uint32_t *index)
{
  for (size_t depth = 1; depth > 0;) {
    uint64_t off;
    const amddwarf_abbrev *ab;
    amddwarf_status st = next_die(w, &off, &ab);
    if (st != AMDDWARF_OK)
      return st;
    if (ab == NULL) {
      --depth;
      continue;
    }
    ++*index;
    if ((st = skip_attributes(w, ab, off)) != AMDDWARF_OK)
      return st;
    if (ab->children)
      ++depth;
  }
  return AMDDWARF_OK;
}

/* ---- the chain of scopes ---- */

typedef struct range_search {
  uint64_t pc;
  bool found;
} range_search;

static bool range_holds(void *user, const amddwarf_range *range)
{
  range_search *s = user;
  s->found = s->pc >= range->low && s->pc < range->high;
  return !s->found;
}

/* Whether the block or inlined subroutine just read holds PC. */
static amddwarf_status block_holds(die_walk *w, const amddwarf_abbrev *ab, uint64_t off,
                                   uint64_t pc, bool *holds)
{
  amddwarf_pc_attributes p;
  memset(&p, 0, sizeof p);
  amddwarf_status st =
      amddwarf__form_read_die(&w->fr, &w->r, ab, off, amddwarf__pc_attributes_note, &p);
  if (st != AMDDWARF_OK)
    return st;
  if (p.has_ranges) {
    range_search s = {pc, false};
    st = amddwarf__object_visit_ranges(w->object, w->cu, p.ranges_form, p.ranges_value,
                                      range_holds, &s, w->err);
    *holds = s.found;
    return st;
  }
  amddwarf_range one;
  *holds = amddwarf__pc_pair_range(&p.pair, ab->tag, &one) && pc >= one.low && pc < one.high;
  return AMDDWARF_OK;
}

static amddwarf_die_ref ref_make(const die_walk *w, uint64_t offset, uint32_t index)
{
  amddwarf_die_ref ref = {offset, (uint32_t)w->cu_index, index};
  return ref;
}

/* Reads or steps over the attributes of the child at OFF (index INDEX)
   whose code was just read; *STOP ends the walk over the children. */
typedef amddwarf_status (*child_visit)(die_walk *w, const amddwarf_abbrev *ab, uint64_t off,
                                       uint32_t index, void *user, bool *stop);

/* VISIT for each child of SCOPE in DIE order; their descendants are
   stepped over. */
static amddwarf_status each_child(die_walk *w, const scope_at *scope, child_visit visit,
                                  void *user)
{
  if (!scope->has_children)
    return AMDDWARF_OK;
  w->r.pos = scope->children;
  uint32_t index = scope->ref.index + 1;
  for (bool stop = false; !stop;) {
    uint64_t off;
    const amddwarf_abbrev *ab;
    amddwarf_status st = next_die(w, &off, &ab);
    if (st != AMDDWARF_OK || ab == NULL)
      return st;
    if ((st = visit(w, ab, off, index++, user, &stop)) != AMDDWARF_OK)
      return st;
    if (!stop && ab->children && (st = skip_descendants(w, &index)) != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

typedef struct inner_search {
  uint64_t pc;
  scope_at *inner;
  bool found;
} inner_search;

static amddwarf_status visit_for_inner(die_walk *w, const amddwarf_abbrev *ab, uint64_t off,
                                       uint32_t index, void *user, bool *stop)
{
  inner_search *s = user;
  if (ab->tag != DW_TAG_lexical_block && ab->tag != DW_TAG_inlined_subroutine)
    return skip_attributes(w, ab, off);
  amddwarf_status st = block_holds(w, ab, off, s->pc, &s->found);
  if (st == AMDDWARF_OK && s->found) {
    s->inner->ref = ref_make(w, off, index);
    s->inner->children = w->r.pos;
    s->inner->has_children = ab->children;
    *stop = true;
  }
  return st;
}

/* The first child of SCOPE that is a block or an inlined subroutine holding
   PC, into *INNER; *FOUND false when none. */
static amddwarf_status inner_scope(die_walk *w, const scope_at *scope, uint64_t pc,
                                   scope_at *inner, bool *found)
{
  inner_search s = {pc, inner, false};
  amddwarf_status st = each_child(w, scope, visit_for_inner, &s);
  *found = s.found;
  return st;
}

/* The chain from the subprogram holding PC inwards: *DEPTH scopes. */
static amddwarf_status scope_chain(die_walk *w, const amddwarf_scope_entry *entry, uint64_t pc,
                                   scope_at *chain, size_t *depth)
{
  uint64_t off;
  const amddwarf_abbrev *ab;
  w->r.pos = (size_t)entry->die_offset;
  amddwarf_status st = next_die(w, &off, &ab);
  if (st == AMDDWARF_OK && ab == NULL)
    st = amddwarf__fail(w->err, AMDDWARF_E_OBJECT_DWARF, off, "no subprogram at 0x%llx",
                        (unsigned long long)off);
  if (st == AMDDWARF_OK)
    st = skip_attributes(w, ab, off);
  if (st != AMDDWARF_OK)
    return st;
  chain[0].ref = ref_make(w, off, entry->die_index);
  chain[0].children = w->r.pos;
  chain[0].has_children = ab->children;
  *depth = 1;
  for (bool found = true; found && *depth < AMDDWARF_MAX_SCOPE_DEPTH - 1;) {
    st = inner_scope(w, &chain[*depth - 1], pc, &chain[*depth], &found);
    if (st != AMDDWARF_OK)
      return st;
    if (found)
      ++*depth;
  }
  return AMDDWARF_OK;
}

/* Finds the subprogram holding PC and the chain inside it. */
static amddwarf_status find_scopes(const amddwarf_object *object, uint64_t pc, die_walk *w,
                                   scope_at *chain, size_t *depth, amddwarf_error *err)
{
  *depth = 0;
  const amddwarf_scope_entry *entry =
      object != NULL ? amddwarf__object_scope_entry_at(object, pc) : NULL;
  if (entry == NULL)
    return AMDDWARF_NOT_FOUND;
  const amddwarf_unit *unit = &object->units[entry->cu_index];
  if (amddwarf__unit_failed_at_open(unit)) {
    if (err != NULL)
      *err = unit->failure;
    return unit->failure.status;
  }
  walk_init(w, object, entry->cu_index, err);
  return scope_chain(w, entry, pc, chain, depth);
}

static amddwarf_die_ref unit_ref(const die_walk *w)
{
  return ref_make(w, w->cu->die_offset, 0);
}

amddwarf_status amddwarf_object_scope_refs_at(const amddwarf_object *object, uint64_t pc,
                                              amddwarf_die_ref *scopes, size_t capacity,
                                              size_t *count, amddwarf_error *err)
{
  scope_at chain[AMDDWARF_MAX_SCOPE_DEPTH];
  size_t depth = 0;
  die_walk w;
  *count = 0;
  amddwarf_status st = find_scopes(object, pc, &w, chain, &depth, err);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t i = 0; i < depth && i < capacity; ++i) /* innermost first */
    scopes[i] = chain[depth - 1 - i].ref;
  if (depth < capacity)
    scopes[depth] = unit_ref(&w);
  *count = depth + 1;
  return AMDDWARF_OK;
}

/* ---- variables ---- */

/* What a variable's DIE says of its location. */
typedef struct var_attributes {
  amddwarf_attribute location;
  bool has_location, has_const_value;
  uint64_t origin;           /* DW_AT_abstract_origin / DW_AT_specification, or 0 */
} var_attributes;

static int note_var_attribute(void *user, const amddwarf_attribute *a)
{
  var_attributes *v = user;
  if (a->attribute == DW_AT_location) {
    v->location = *a;
    v->has_location = true;
  } else if (a->attribute == DW_AT_const_value) {
    v->has_const_value = true;
  } else if (amddwarf__is_origin_attribute(a)) {
    v->origin = a->value.offset;
  }
  return 0;
}

/* Sets V's expression at PC from the location attribute LOC. */
static amddwarf_status location_at(die_walk *w, const amddwarf_cu *cu,
                                   const amddwarf_attribute *loc, uint64_t pc,
                                   amddwarf_var_ref *v)
{
  if (loc->value.kind == AMDDWARF_ATTR_EXPR) {
    v->available = 1;
    v->expr = loc->value.bytes;
    v->size = loc->value.size;
    return AMDDWARF_OK;
  }
  if (loc->value.kind != AMDDWARF_ATTR_LIST)
    return AMDDWARF_OK;
  bool found = false;
  amddwarf_status st = amddwarf__object_loclist_at(w->object, cu, loc->form, loc->value.u, pc,
                                                   &v->entry, &found, w->err);
  if (st != AMDDWARF_OK || !found)
    return st;
  v->available = 1;
  v->from_list = 1;
  v->expr = v->entry.expr;
  v->size = v->entry.size;
  return AMDDWARF_OK;
}

/* The location of the origin at ORIGIN, for a variable without its own. */
static amddwarf_status origin_location(die_walk *w, uint64_t origin, uint64_t pc,
                                       amddwarf_var_ref *v)
{
  amddwarf_die_ref ref;
  amddwarf_status st = amddwarf_object_die_ref_at(w->object, origin, &ref, w->err);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__fail(w->err, AMDDWARF_E_OBJECT_BAD_REFERENCE, origin,
                         "DIE 0x%llx: its origin 0x%llx is not a DIE",
                         (unsigned long long)v->die.offset, (unsigned long long)origin);
  amddwarf_attribute loc;
  if (st == AMDDWARF_OK)
    st = amddwarf_object_die_attribute(w->object, ref, DW_AT_location, 0, &loc, w->err);
  if (st == AMDDWARF_NOT_FOUND)
    return AMDDWARF_OK;
  return st == AMDDWARF_OK ? location_at(w, &w->object->cus[ref.cu_index], &loc, pc, v) : st;
}

/* Reads the variable whose code was just read (at OFF, index INDEX) into
   V, its location at PC included. */
static amddwarf_status read_var(die_walk *w, const amddwarf_abbrev *ab, uint64_t off,
                                uint32_t index, uint64_t pc, amddwarf_var_ref *v)
{
  var_attributes attrs;
  memset(&attrs, 0, sizeof attrs);
  amddwarf_status st = amddwarf__form_read_die(&w->fr, &w->r, ab, off, note_var_attribute, &attrs);
  if (st != AMDDWARF_OK)
    return st;
  v->die = ref_make(w, off, index);
  if (attrs.has_location)
    return location_at(w, w->cu, &attrs.location, pc, v);
  if (attrs.origin != 0 && !attrs.has_const_value) {
    size_t resume = w->r.pos;
    st = origin_location(w, attrs.origin, pc, v);
    w->r.pos = resume;
  }
  return st;
}

typedef struct var_sink {
  amddwarf_var_ref *vars;
  size_t capacity, count;
} var_sink;

/* The slot of the next variable, or NULL past CAPACITY: a variable there is
   only counted, as amddwarf_object_vars_at counts it. */
static amddwarf_var_ref *next_var(var_sink *sink, amddwarf_die_ref scope, uint32_t depth)
{
  if (sink->count++ >= sink->capacity)
    return NULL;
  amddwarf_var_ref *v = &sink->vars[sink->count - 1];
  memset(v, 0, sizeof *v);
  v->scope = scope;
  v->depth = depth;
  return v;
}

typedef struct vars_search {
  const scope_at *scope;
  uint32_t depth;
  uint64_t pc;
  var_sink *sink;
} vars_search;

static amddwarf_status visit_for_vars(die_walk *w, const amddwarf_abbrev *ab, uint64_t off,
                                      uint32_t index, void *user, bool *stop)
{
  vars_search *s = user;
  amddwarf_var_ref *v = NULL;
  (void)stop;
  if (ab->tag == DW_TAG_variable || ab->tag == DW_TAG_formal_parameter)
    v = next_var(s->sink, s->scope->ref, s->depth);
  return v != NULL ? read_var(w, ab, off, index, s->pc, v) : skip_attributes(w, ab, off);
}

/* The variables and parameters among SCOPE's children, in DIE order. */
static amddwarf_status scope_vars(die_walk *w, const scope_at *scope, uint32_t depth,
                                  uint64_t pc, var_sink *sink)
{
  vars_search s = {scope, depth, pc, sink};
  return each_child(w, scope, visit_for_vars, &s);
}

/* The unit DIE's variables, which the open-time pass listed. */
static amddwarf_status unit_vars(die_walk *w, uint32_t depth, uint64_t pc, var_sink *sink)
{
  const amddwarf_unit *unit = &w->object->units[w->cu_index];
  for (size_t i = 0; i < unit->global_count; ++i) {
    const amddwarf_unit_global *g = &unit->globals[i];
    uint64_t off;
    const amddwarf_abbrev *ab;
    amddwarf_var_ref *v = next_var(sink, unit_ref(w), depth);
    if (v == NULL)
      continue;
    w->r.pos = (size_t)(w->cu->offset + g->offset);
    amddwarf_status st = next_die(w, &off, &ab);
    if (st == AMDDWARF_OK && ab != NULL)
      st = read_var(w, ab, off, g->index, pc, v);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_var_refs_at(const amddwarf_object *object, uint64_t pc,
                                            amddwarf_var_ref *vars, size_t capacity,
                                            size_t *count, amddwarf_error *err)
{
  scope_at chain[AMDDWARF_MAX_SCOPE_DEPTH];
  size_t depth = 0;
  die_walk w;
  var_sink sink = {vars, capacity, 0};
  *count = 0;
  amddwarf_status st = find_scopes(object, pc, &w, chain, &depth, err);
  for (size_t i = 0; st == AMDDWARF_OK && i < depth; ++i) /* innermost first */
    st = scope_vars(&w, &chain[depth - 1 - i], (uint32_t)i, pc, &sink);
  if (st == AMDDWARF_OK)
    st = unit_vars(&w, (uint32_t)depth, pc, &sink);
  if (st == AMDDWARF_OK)
    *count = sink.count;
  return st;
}
