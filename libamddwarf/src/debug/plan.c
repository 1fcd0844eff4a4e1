/* Plans of value paths (plan.h). */
#include "debug/plan.h"

#include <stdio.h>
#include <string.h>

#include <amddwarf/dwarf.h>

enum { MAX_ANONYMOUS_DEPTH = 8, MAX_REFERENCES = 8 };

typedef struct planner {
  const amddwarf_object *object;
  const amddwarf_debug_path *path;
  amddwarf_debug_plan *plan;
  amddwarf_debug_type type;
  uint64_t bitfield; /* width of a bitfield result, else 0 */
  int is_address;
  char *message;
  size_t message_size;
} planner;

static int is_reference(const amddwarf_die_fields *t)
{
  return t->tag == AMDDWARF_DW_TAG_reference_type ||
         t->tag == AMDDWARF_DW_TAG_rvalue_reference_type;
}

/* The fields of the current type, stripped: 1, or 0 for void. */
static int current(const planner *p, amddwarf_die_fields *t)
{
  return amddwarf__debug_strip_fields(p->object, p->type.die, t);
}

static amddwarf_status add_step(planner *p, amddwarf_debug_step step, size_t op)
{
  if (p->plan->count >= sizeof p->plan->steps / sizeof p->plan->steps[0]) {
    snprintf(p->message, p->message_size, "the expression needs too many steps");
    return AMDDWARF_E_LIMIT;
  }
  step.op = op;
  p->plan->steps[p->plan->count++] = step;
  return AMDDWARF_OK;
}

static amddwarf_debug_step bits_step(uint64_t bits)
{
  amddwarf_debug_step step = {AMDDWARF_DEBUG_STEP_ADD_BITS, bits, 0, 0, 0, 0};
  return step;
}

/* "'s.x' (int)": the subexpression before operator OP and its type. */
static const char *describe(planner *p, size_t op, char *buf, size_t size)
{
  char expr[512], type[256];
  amddwarf__debug_path_spell(p->path, op, expr, sizeof expr);
  amddwarf__debug_type_spell(p->object, p->type, type, sizeof type);
  snprintf(buf, size, p->is_address ? "'%s' (%s *)" : "'%s' (%s)", expr, type);
  return buf;
}

static amddwarf_status fail(planner *p, amddwarf_status st, size_t op, const char *what)
{
  char d[900];
  snprintf(p->message, p->message_size, "%s %s", what, describe(p, op, d, sizeof d));
  return st;
}

/* Follows a pointer of the current type: the location becomes the memory it
   points to, DISPLACEMENT bytes further. */
static amddwarf_status load_pointer(planner *p, size_t op, int64_t displacement)
{
  amddwarf_die_fields ptr;
  amddwarf_debug_step step = {AMDDWARF_DEBUG_STEP_LOAD_POINTER, 0, 0, 0, 0, 0};
  uint64_t pointer_bytes = 8;
  current(p, &ptr);
  amddwarf_type_byte_size(p->object, ptr.die, &pointer_bytes);
  step.pointer_bytes = (uint32_t)pointer_bytes;
  step.aspace = amddwarf_type_pointer_aspace(p->object, ptr.die);
  step.displacement = displacement;
  if (step.pointer_bytes == 0 || step.pointer_bytes > 8)
    return fail(p, AMDDWARF_E_UNSUPPORTED, op, "pointers of this size cannot be followed:");
  p->type.die = ptr.type;
  p->type.dims_used = 0;
  return add_step(p, step, op);
}

/* References are followed wherever they are used, as C++ does. */
static amddwarf_status follow_references(planner *p, size_t op)
{
  amddwarf_die_fields t;
  for (int i = 0; i < MAX_REFERENCES; ++i) {
    if (p->is_address || !current(p, &t) || !is_reference(&t))
      return AMDDWARF_OK;
    amddwarf_status st = load_pointer(p, op, 0);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* Anonymous members and base classes are searched like their aggregate. */
static int is_nested(const amddwarf_die_fields *m)
{
  return m->tag == AMDDWARF_DW_TAG_inheritance ||
         (m->tag == AMDDWARF_DW_TAG_member && m->name == NULL);
}

/* The aggregate a nested member M opens into *INNER: 1, or 0 (M is not
   nested, is not an aggregate, or lies too deep). */
static int nested_aggregate(const amddwarf_object *object, const amddwarf_die_fields *m,
                            int depth, amddwarf_die_fields *inner)
{
  return is_nested(m) && depth < MAX_ANONYMOUS_DEPTH &&
         amddwarf__debug_strip_fields(object, m->type, inner) &&
         amddwarf__debug_is_aggregate(inner);
}

/* Finds member NAME of aggregate T, looking into anonymous members and base
   classes too: 1 with its fields in *FOUND and its offset from the start of
   T in *BITS, else 0 (*ST says whether a layout failed). */
static int find_member(planner *p, const amddwarf_die_fields *t, const char *name,
                       amddwarf_die_fields *found, uint64_t *bits, int depth,
                       amddwarf_status *st)
{
  amddwarf_die_fields m, inner;
  for (amddwarf_die_ref c = t->first_child;
       *st == AMDDWARF_OK && amddwarf__debug_fields(p->object, c, &m); c = m.next_sibling) {
    amddwarf_debug_member_layout layout;
    int nested = nested_aggregate(p->object, &m, depth, &inner);
    if (!amddwarf__debug_is_data_member(&m) || (is_nested(&m) && !nested))
      continue;
    if (!nested && strcmp(m.name, name) != 0)
      continue;
    if ((*st = amddwarf__debug_member_layout_get(p->object, &m, &layout, p->message,
                                                p->message_size)) != AMDDWARF_OK)
      return 0;
    if (!nested) {
      *bits = layout.bit_offset;
      *found = m;
      return 1;
    }
    uint64_t inner_bits = 0;
    if (find_member(p, &inner, name, found, &inner_bits, depth + 1, st)) {
      *bits = layout.bit_offset + inner_bits;
      return 1;
    }
  }
  return 0;
}

static void collect_members(const amddwarf_object *object, const amddwarf_die_fields *t,
                            amddwarf_die_ref *members, size_t capacity, size_t *count,
                            int depth)
{
  amddwarf_die_fields m, inner;
  for (amddwarf_die_ref c = t->first_child; amddwarf__debug_fields(object, c, &m);
       c = m.next_sibling) {
    int seen = 0;
    if (!amddwarf__debug_is_data_member(&m))
      continue;
    if (nested_aggregate(object, &m, depth, &inner)) {
      collect_members(object, &inner, members, capacity, count, depth + 1);
      continue;
    }
    if (is_nested(&m))
      continue;
    /* A name seen earlier hides this one, as find_member resolves it. */
    for (size_t i = 0; i < *count && i < capacity && !seen; ++i) {
      const char *earlier = amddwarf_object_die_string(object, members[i], AMDDWARF_DW_AT_name);
      seen = earlier != NULL && strcmp(earlier, m.name) == 0;
    }
    if (seen)
      continue;
    if (*count < capacity)
      members[*count] = m.die;
    ++*count;
  }
}

size_t amddwarf__debug_named_members(const amddwarf_object *object, amddwarf_die_ref t,
                                    amddwarf_die_ref *members, size_t capacity)
{
  size_t count = 0;
  amddwarf_die_fields f;
  if (amddwarf__debug_fields(object, t, &f) && amddwarf__debug_is_aggregate(&f))
    collect_members(object, &f, members, capacity, &count, 0);
  return count;
}

static amddwarf_status no_member(planner *p, const amddwarf_die_fields *t, const char *name)
{
  /* "struct S": the aggregate's own name, else the typedef's. */
  static const struct {
    amddwarf_dw_tag tag;
    const char *word;
  } words[] = {{AMDDWARF_DW_TAG_class_type, "class"},
               {AMDDWARF_DW_TAG_structure_type, "struct"},
               {AMDDWARF_DW_TAG_union_type, "union"}};
  const char *word = "struct";
  char type[256];
  amddwarf_die_fields named;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
    if (words[i].tag == t->tag)
      word = words[i].word;
  /* Past const and volatile to a typedef. */
  amddwarf_die_ref from = p->type.die;
  for (int i = 0; i < MAX_ANONYMOUS_DEPTH && amddwarf__debug_fields(p->object, from, &named) &&
                  named.name == NULL && from.offset != t->die.offset;
       ++i)
    from = named.type;
  amddwarf_type_name(p->object, t->name || !amddwarf_die_ref_valid(from) ? t->die : from, type,
                     sizeof type, NULL);
  size_t n = strlen(word);
  if (strncmp(type, word, n) == 0 && type[n] == ' ')
    snprintf(p->message, p->message_size, "no member '%s' in %s", name, type);
  else
    snprintf(p->message, p->message_size, "no member '%s' in %s %s", name, word, type);
  return AMDDWARF_NOT_FOUND;
}

static amddwarf_status plan_member(planner *p, size_t i)
{
  const amddwarf_debug_path_op *op = &p->path->ops[i];
  amddwarf_die_fields t, m;
  amddwarf_status st = AMDDWARF_OK;
  char what[AMDDWARF_DEBUG_NAME_SIZE * 2 + 64];
  uint64_t bits = 0;
  current(p, &t);
  if (op->kind == AMDDWARF_DEBUG_PATH_ARROW) {
    if (p->is_address) {
      p->is_address = 0; /* (&s)->x is s.x */
    } else if (amddwarf_die_ref_valid(amddwarf__debug_type_array(p->object, p->type))) {
      p->type = amddwarf__debug_type_element(p->object, p->type); /* arr->x is arr[0].x */
    } else if (t.tag == AMDDWARF_DW_TAG_pointer_type) {
      if ((st = load_pointer(p, i, 0)) != AMDDWARF_OK)
        return st;
    } else {
      snprintf(what, sizeof what, "'->%s' needs a pointer, not", op->name);
      return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
    }
    if ((st = follow_references(p, i)) != AMDDWARF_OK)
      return st;
    current(p, &t);
  } else if (p->is_address || t.tag == AMDDWARF_DW_TAG_pointer_type) {
    snprintf(what, sizeof what, "'.%s' needs a struct or union; use '->%s' on the pointer",
             op->name, op->name);
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
  }
  if (!amddwarf__debug_is_aggregate(&t) ||
      amddwarf_die_ref_valid(amddwarf__debug_type_array(p->object, p->type))) {
    snprintf(what, sizeof what, "'%s%s' needs a struct or union, not",
             op->kind == AMDDWARF_DEBUG_PATH_ARROW ? "->" : ".", op->name);
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
  }
  int found = find_member(p, &t, op->name, &m, &bits, 0, &st);
  if (st != AMDDWARF_OK)
    return st;
  if (!found)
    return no_member(p, &t, op->name);
  amddwarf_debug_member_layout layout;
  if ((st = amddwarf__debug_member_layout_get(p->object, &m, &layout, p->message,
                                             p->message_size)) != AMDDWARF_OK)
    return st;
  p->type = (amddwarf_debug_type){m.type, 0};
  p->bitfield = layout.bit_size;
  return add_step(p, bits_step(bits), i);
}

static amddwarf_status index_out_of_bounds(planner *p, size_t i, int64_t index,
                                           const amddwarf_debug_dim *d)
{
  char msg[128], expr[512], type[256];
  amddwarf__debug_path_spell(p->path, i, expr, sizeof expr);
  amddwarf__debug_type_spell(p->object, p->type, type, sizeof type);
  if (d->known && d->count == 0)
    snprintf(msg, sizeof msg, "it has no elements");
  else if (d->known)
    snprintf(msg, sizeof msg, "valid indexes are %lld to %lld", (long long)d->lower,
             (long long)(d->lower + (int64_t)d->count - 1));
  else
    snprintf(msg, sizeof msg, "indexes start at %lld", (long long)d->lower);
  snprintf(p->message, p->message_size, "index %lld is out of bounds for '%s' (%s): %s",
           (long long)index, expr, type, msg);
  return AMDDWARF_E_INVALID_ARGUMENT;
}

static amddwarf_status plan_index(planner *p, size_t i, int64_t index)
{
  amddwarf_die_ref array = amddwarf__debug_type_array(p->object, p->type);
  amddwarf_die_fields t;
  uint64_t elem = 0;
  current(p, &t);
  if (amddwarf_die_ref_valid(array)) {
    amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
    amddwarf__debug_array_dims(p->object, array, dims);
    const amddwarf_debug_dim *d = &dims[p->type.dims_used];
    amddwarf_debug_type row = amddwarf__debug_type_element(p->object, p->type);
    if (index < d->lower || (d->known && (uint64_t)(index - d->lower) >= d->count))
      return index_out_of_bounds(p, i, index, d);
    if (amddwarf__debug_type_size(p->object, row, &elem) != AMDDWARF_OK)
      return fail(p, AMDDWARF_E_UNSUPPORTED, i, "the element size is not known for");
    uint64_t k = (uint64_t)(index - d->lower);
    if (elem && k > UINT64_MAX / 8 / elem)
      return fail(p, AMDDWARF_E_OVERFLOW, i, "the index overflows");
    p->type = row;
    return add_step(p, bits_step(k * elem * 8), i);
  }
  if (!p->is_address && t.tag == AMDDWARF_DW_TAG_pointer_type) {
    amddwarf_debug_type pointee = {t.type, 0};
    if (!amddwarf_die_ref_valid(t.type) ||
        amddwarf__debug_type_size(p->object, pointee, &elem) != AMDDWARF_OK ||
        elem == 0)
      return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i,
                  "cannot index a pointer to a type of unknown size:");
    uint64_t magnitude = index < 0 ? 0 - (uint64_t)index : (uint64_t)index;
    if (elem > (uint64_t)INT64_MAX || magnitude > (uint64_t)INT64_MAX / elem)
      return fail(p, AMDDWARF_E_OVERFLOW, i, "the index overflows");
    return load_pointer(p, i, index * (int64_t)elem);
  }
  return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "'[]' needs an array or pointer, not");
}

static amddwarf_status plan_deref(planner *p, size_t i)
{
  amddwarf_die_fields t;
  if (p->is_address) {
    p->is_address = 0; /* *&x is x */
    return AMDDWARF_OK;
  }
  if (amddwarf_die_ref_valid(amddwarf__debug_type_array(p->object, p->type))) {
    p->type = amddwarf__debug_type_element(p->object, p->type); /* *arr is arr[0] */
    return AMDDWARF_OK;
  }
  if (!current(p, &t) || t.tag != AMDDWARF_DW_TAG_pointer_type)
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "'*' needs a pointer, not");
  if (!amddwarf_die_ref_valid(t.type))
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "cannot dereference");
  return load_pointer(p, i, 0);
}

static amddwarf_status plan_address(planner *p, size_t i)
{
  if (p->is_address)
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "'&' needs an object, not the address");
  if (p->bitfield)
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "'&' cannot take the address of the bitfield");
  p->is_address = 1;
  return AMDDWARF_OK;
}

int64_t amddwarf__debug_vector_component(const char *name)
{
  static const char *const sets[] = {"xyzw", "rgba", "0123456789abcdef"};
  int set = 0;
  if ((name[0] == 's' || name[0] == 'S') && name[1] != '\0') {
    set = 2; /* OpenCL's s0-sf */
    ++name;
  }
  if (name[0] == '\0' || name[1] != '\0')
    return -1;
  for (int s = set; s < (set == 2 ? 3 : 2); ++s) {
    const char *hit = strchr(sets[s], name[0] | (s == 2 ? 0x20 : 0));
    if (hit != NULL)
      return hit - sets[s];
  }
  return -1;
}

/* A component of a clang ext_vector_type vector named like a member, as
   its index; -1 when OP is not one. */
static int64_t vector_component(planner *p, const amddwarf_debug_path_op *op)
{
  amddwarf_die_fields t;
  if (op->kind != AMDDWARF_DEBUG_PATH_MEMBER || p->is_address || !current(p, &t) ||
      t.tag != AMDDWARF_DW_TAG_array_type || !(t.flags & AMDDWARF_DIE_GNU_VECTOR) ||
      p->type.dims_used != 0)
    return -1;
  return amddwarf__debug_vector_component(op->name);
}

static amddwarf_status plan_op(planner *p, size_t i)
{
  const amddwarf_debug_path_op *op = &p->path->ops[i];
  int64_t component;
  switch (op->kind) {
  case AMDDWARF_DEBUG_PATH_MEMBER:
  case AMDDWARF_DEBUG_PATH_ARROW:
    component = vector_component(p, op);
    return component >= 0 ? plan_index(p, i, component) : plan_member(p, i);
  case AMDDWARF_DEBUG_PATH_INDEX:
    return plan_index(p, i, op->index);
  case AMDDWARF_DEBUG_PATH_DEREF:
    return plan_deref(p, i);
  case AMDDWARF_DEBUG_PATH_ADDRESS:
    return plan_address(p, i);
  }
  return AMDDWARF_E_INVALID_ARGUMENT;
}

/* The C spelling of "&E" of type TYPE_NAME: "int *", or "int (*)[4]" for
   a pointer to an array. */
static void spell_address_type(const amddwarf_object *object, amddwarf_debug_plan *plan)
{
  size_t len = strlen(plan->type_name);
  if (amddwarf_die_ref_valid(amddwarf__debug_type_array(object, plan->result))) {
    char elem[128], dims[128];
    size_t bracket = strcspn(plan->type_name, "[");
    snprintf(elem, sizeof elem, "%.*s", (int)bracket, plan->type_name);
    snprintf(dims, sizeof dims, "%s", plan->type_name + bracket);
    snprintf(plan->type_name, sizeof plan->type_name, "%.120s (*)%.120s", elem, dims);
  } else {
    snprintf(plan->type_name + len, sizeof plan->type_name - len, " *");
  }
}

amddwarf_status amddwarf__debug_plan_build(const amddwarf_object *object,
                                          amddwarf_die_ref var_type,
                                          const amddwarf_debug_path *path,
                                          amddwarf_debug_plan *plan, char *message, size_t size)
{
  planner p = {object, path, plan, {var_type, 0}, 0, 0, message, size};
  amddwarf_status st = AMDDWARF_OK;
  memset(plan, 0, sizeof *plan);
  for (size_t i = 0; i < path->count && st == AMDDWARF_OK; ++i) {
    if (p.bitfield && path->ops[i].kind != AMDDWARF_DEBUG_PATH_ADDRESS)
      st = fail(&p, AMDDWARF_E_INVALID_ARGUMENT, i, "no operator applies to bitfield");
    else if ((st = follow_references(&p, i)) == AMDDWARF_OK)
      st = plan_op(&p, i);
  }
  if (st == AMDDWARF_OK && !p.is_address)
    st = follow_references(&p, path->count); /* a reference reads as what it refers to */
  if (st == AMDDWARF_OK && p.is_address) {
    amddwarf_debug_step step = {AMDDWARF_DEBUG_STEP_ADDRESS, 0, 0, 0, 0, 0};
    st = add_step(&p, step, path->count);
  }
  if (st != AMDDWARF_OK)
    return st;
  plan->result = p.type;
  plan->is_address = p.is_address;
  plan->result_signed = amddwarf__debug_type_is_signed(object, p.type.die);
  amddwarf__debug_type_spell(object, p.type, plan->type_name, sizeof plan->type_name);
  if (p.is_address) {
    spell_address_type(object, plan);
    /* The size of the object pointed to, for explaining; 0 when unknown. */
    if (!amddwarf_die_ref_valid(p.type.die) ||
        amddwarf__debug_type_size(object, p.type, &plan->byte_size) != AMDDWARF_OK)
      plan->byte_size = 0;
    plan->bit_size = 0;
    return AMDDWARF_OK;
  }
  if (!amddwarf_die_ref_valid(p.type.die)) {
    snprintf(message, size, "'%s' has type void", path->name);
    return AMDDWARF_E_INVALID_ARGUMENT;
  }
  if (amddwarf__debug_type_size(object, p.type, &plan->byte_size) != AMDDWARF_OK ||
      plan->byte_size == 0) {
    char expr[512];
    amddwarf__debug_path_spell(path, path->count, expr, sizeof expr);
    snprintf(message, size, "the size of '%s' (%s) is not known", expr, plan->type_name);
    return AMDDWARF_E_UNSUPPORTED;
  }
  plan->bit_size = p.bitfield ? p.bitfield : plan->byte_size * 8;
  return AMDDWARF_OK;
}
