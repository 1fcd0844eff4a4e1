/* Types and plans of `amddwarf eval` (eval_type.h). */
#include "eval_type.h"

#include <stdio.h>
#include <string.h>

enum { DW_AT_BIT_OFFSET = 0x0c, MAX_ANONYMOUS_DEPTH = 8, MAX_TYPE_DEPTH = 16 };

/* Languages whose array indexes start at 1 unless DW_AT_lower_bound says
   otherwise (DWARF 5, table 7.17). */
static const uint32_t one_based_languages[] = {
    0x0003 /* Ada83 */,     0x0005 /* Cobol74 */,   0x0006 /* Cobol85 */,
    0x0007 /* Fortran77 */, 0x0008 /* Fortran90 */, 0x0009 /* Pascal83 */,
    0x000a /* Modula2 */,   0x000d /* Ada95 */,     0x000e /* Fortran95 */,
    0x000f /* PLI */,       0x0022 /* Fortran03 */, 0x0023 /* Fortran08 */,
};

static int64_t default_lower_bound(const amddwarf_object *object, const amddwarf_die_info *die)
{
  const amddwarf_cu *cu = object ? amddwarf_object_cu(object, die->cu_index) : NULL;
  for (size_t i = 0; cu && i < sizeof one_based_languages / sizeof one_based_languages[0]; ++i)
    if (cu->language == one_based_languages[i])
      return 1;
  return 0;
}

static int constant(const amddwarf_attr_value *v, int64_t *out)
{
  if (v == NULL || (v->kind != AMDDWARF_ATTR_UNSIGNED && v->kind != AMDDWARF_ATTR_SIGNED))
    return 0;
  *out = (int64_t)v->u;
  return 1;
}

size_t eval_array_dims(const amddwarf_object *object, const amddwarf_die_info *array,
                       eval_dim *dims)
{
  size_t n = 0;
  for (const amddwarf_die_info *s = array->first_child; s && n < EVAL_MAX_DIMS;
       s = s->next_sibling) {
    int64_t count = 0, upper = 0;
    eval_dim *d = &dims[n];
    if (s->tag != EVAL_TAG_SUBRANGE)
      continue;
    memset(d, 0, sizeof *d);
    if (!constant(s->lower_bound, &d->lower))
      d->lower = default_lower_bound(object, s);
    if (constant(s->count, &count)) {
      d->count = count < 0 ? 0 : (uint64_t)count;
      d->known = 1;
    } else if (constant(s->upper_bound, &upper) &&
               !(s->upper_bound->kind == AMDDWARF_ATTR_UNSIGNED &&
                 s->upper_bound->u == 0xffffffffu)) {
      /* An unsigned 0xffffffff upper bound is how old producers say "unknown". */
      d->count = upper < d->lower ? 0 : (uint64_t)(upper - d->lower) + 1;
      d->known = 1;
    }
    ++n;
  }
  return n;
}

const amddwarf_die_info *eval_type_array(eval_type type)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  eval_dim dims[EVAL_MAX_DIMS];
  if (t == NULL || t->tag != EVAL_TAG_ARRAY)
    return NULL;
  return type.dims_used < eval_array_dims(NULL, t, dims) ? t : NULL;
}

static amddwarf_status type_size(const amddwarf_object *object, eval_type type, uint64_t *size,
                                 int depth)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  const amddwarf_die_info *array = eval_type_array(type);
  eval_dim dims[EVAL_MAX_DIMS];
  uint64_t total = 0;
  /* Pointers are sized by their address space, and arrays by their
     elements, so that a private pointer takes 4 bytes wherever it is. */
  if (t != NULL && (t->tag == EVAL_TAG_POINTER || t->tag == EVAL_TAG_REFERENCE ||
                    t->tag == EVAL_TAG_RVALUE_REFERENCE)) {
    *size = eval_pointer_size(object, t);
    return AMDDWARF_OK;
  }
  if (array == NULL)
    return amddwarf_type_byte_size(object, type.die, size);
  if (type.dims_used == 0 && ((array->flags | type.die->flags) & AMDDWARF_DIE_HAS_BYTE_SIZE))
    return amddwarf_type_byte_size(object, type.die, size);
  if (depth >= MAX_TYPE_DEPTH ||
      type_size(object, (eval_type){array->type, 0}, &total, depth + 1) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  size_t n = eval_array_dims(object, array, dims);
  for (size_t i = type.dims_used; i < n; ++i) {
    if (!dims[i].known || (dims[i].count && total > UINT64_MAX / dims[i].count))
      return AMDDWARF_NOT_FOUND;
    total *= dims[i].count;
  }
  *size = total;
  return AMDDWARF_OK;
}

amddwarf_status eval_type_size(const amddwarf_object *object, eval_type type, uint64_t *size)
{
  return type_size(object, type, size, 0);
}

void eval_type_spell(const amddwarf_object *object, eval_type type, char *buf, size_t size)
{
  const amddwarf_die_info *array = eval_type_array(type);
  eval_dim dims[EVAL_MAX_DIMS];
  size_t len;
  if (type.die == NULL) {
    snprintf(buf, size, "void");
    return;
  }
  if (array == NULL || type.dims_used == 0) {
    amddwarf_type_name(object, type.die, buf, size, NULL);
    return;
  }
  amddwarf_type_name(object, array->type, buf, size, NULL);
  size_t n = eval_array_dims(object, array, dims);
  for (size_t i = type.dims_used; i < n; ++i) {
    len = strlen(buf);
    if (dims[i].known)
      snprintf(buf + len, size - len, "[%llu]", (unsigned long long)dims[i].count);
    else
      snprintf(buf + len, size - len, "[]");
  }
}

/* ---- members ---- */

/* The attribute lives during the call only: its constant is copied. */
typedef struct bit_offset_search {
  int found;
  int64_t value;
} bit_offset_search;

static int find_bit_offset(void *user, const amddwarf_attribute *attribute)
{
  bit_offset_search *search = user;
  if (attribute->attribute != DW_AT_BIT_OFFSET)
    return 0;
  search->found = constant(&attribute->value, &search->value);
  return 1;
}

/* DW_AT_data_member_location: a constant, or (DWARF 2) DW_OP_plus_uconst. */
static amddwarf_status member_byte_offset(const amddwarf_object *object,
                                          const amddwarf_die_info *member, uint64_t *offset,
                                          char *message, size_t size)
{
  const amddwarf_attr_value *v = member->data_member_location;
  amddwarf_op op;
  size_t count = 0;
  *offset = 0;
  if (v == NULL || v->kind == AMDDWARF_ATTR_UNSIGNED || v->kind == AMDDWARF_ATTR_SIGNED) {
    *offset = v ? v->u : 0;
    return AMDDWARF_OK;
  }
  if (v->kind == AMDDWARF_ATTR_EXPR) {
    const amddwarf_cu *cu = amddwarf_object_cu(object, member->cu_index);
    if (amddwarf_expr_decode(v->bytes, v->size, cu ? &cu->format : NULL, &op, 1, &count,
                             NULL) == AMDDWARF_OK &&
        count == 1 && op.size == v->size && op.kind == AMDDWARF_OP_plus_uconst) {
      *offset = op.operands[0];
      return AMDDWARF_OK;
    }
  }
  snprintf(message, size, "member '%s' (DIE 0x%llx) has a location that is not a constant",
           member->name ? member->name : "?", (unsigned long long)member->offset);
  return AMDDWARF_E_UNSUPPORTED;
}

amddwarf_status eval_member_layout_get(const amddwarf_object *object,
                                       const amddwarf_die_info *member,
                                       eval_member_layout *layout, char *message, size_t size)
{
  uint64_t byte_offset = 0, storage = 0;
  memset(layout, 0, sizeof *layout);
  if (member->flags & AMDDWARF_DIE_HAS_BIT_SIZE)
    layout->bit_size = member->bit_size;
  if (member->flags & AMDDWARF_DIE_HAS_DATA_BIT_OFFSET) {
    layout->bit_offset = member->data_bit_offset; /* DWARF 4 and later */
    return AMDDWARF_OK;
  }
  amddwarf_status st = member_byte_offset(object, member, &byte_offset, message, size);
  if (st != AMDDWARF_OK)
    return st;
  layout->bit_offset = byte_offset * 8;
  if (layout->bit_size == 0)
    return AMDDWARF_OK;
  /* DWARF 2/3 bitfields: DW_AT_bit_offset counts from the most significant
     bit of a storage unit of DW_AT_byte_size bytes at the member location;
     on little-endian AMDGPU that is bit (size * 8 - bit_offset - bit_size). */
  bit_offset_search search = {0, 0};
  amddwarf_object_die_attributes(object, member, find_bit_offset, &search, NULL);
  int64_t from_msb = search.found ? search.value : 0;
  if (member->flags & AMDDWARF_DIE_HAS_BYTE_SIZE)
    storage = member->byte_size;
  else if (amddwarf_type_byte_size(object, member->type, &storage) != AMDDWARF_OK)
    storage = 0;
  if (from_msb < 0 || (uint64_t)from_msb + layout->bit_size > storage * 8) {
    snprintf(message, size, "bitfield '%s' (DIE 0x%llx): DW_AT_bit_offset %lld and "
             "DW_AT_bit_size %llu do not fit its %llu-byte storage",
             member->name ? member->name : "?", (unsigned long long)member->offset,
             (long long)from_msb, (unsigned long long)layout->bit_size,
             (unsigned long long)storage);
    return AMDDWARF_E_MALFORMED;
  }
  layout->bit_offset += storage * 8 - (uint64_t)from_msb - layout->bit_size;
  return AMDDWARF_OK;
}

/* ---- pointers and scalars ---- */

uint32_t eval_pointer_aspace(const amddwarf_object *object, const amddwarf_die_info *pointer)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, pointer->cu_index);
  uint32_t aspace = AMDDWARF_ASPACE_AMDGPU_GENERIC;
  if (pointer->flags & AMDDWARF_DIE_HAS_ADDRESS_SPACE)
    return pointer->address_space;
  if (!(pointer->flags & AMDDWARF_DIE_HAS_ADDRESS_CLASS) || cu == NULL)
    return AMDDWARF_ASPACE_AMDGPU_GENERIC;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY) {
    /* Legacy units number address classes like their xderef operands. */
    if (amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_LEGACY, pointer->address_class, &aspace) !=
            AMDDWARF_OK ||
        aspace == AMDDWARF_ASPACE_NONE)
      return AMDDWARF_ASPACE_AMDGPU_GENERIC;
    return aspace;
  }
  amddwarf_address_class_info info;
  if (amddwarf_address_class_info_get(pointer->address_class, &info) == AMDDWARF_OK)
    return info.aspace;
  return AMDDWARF_ASPACE_AMDGPU_GENERIC;
}

uint32_t eval_pointer_size(const amddwarf_object *object, const amddwarf_die_info *pointer)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, pointer->cu_index);
  amddwarf_aspace_info info;
  unsigned address_size = cu ? cu->address_size : 8;
  if (pointer->flags & AMDDWARF_DIE_HAS_BYTE_SIZE)
    return (uint32_t)pointer->byte_size;
  if (amddwarf_aspace_info_get(eval_pointer_aspace(object, pointer), &info) != AMDDWARF_OK)
    return address_size;
  return address_size == 4 ? info.address_size_32 : info.address_size_64;
}

uint64_t eval_extend_bits(uint64_t v, uint64_t bits, int signed_)
{
  if (bits == 0 || bits >= 64)
    return v;
  v &= (1ull << bits) - 1;
  if (signed_ && (v >> (bits - 1)) & 1)
    v |= ~0ull << bits;
  return v;
}

int eval_type_is_signed(const amddwarf_die_info *type)
{
  enum { ATE_SIGNED = 0x05, ATE_SIGNED_CHAR = 0x06, ATE_SIGNED_FIXED = 0x0d };
  for (int i = 0; type != NULL && i < 8; ++i) {
    type = amddwarf_type_strip(type);
    if (type == NULL)
      return 0;
    if (type->tag == EVAL_TAG_BASE)
      return type->encoding == ATE_SIGNED || type->encoding == ATE_SIGNED_CHAR ||
             type->encoding == ATE_SIGNED_FIXED;
    if (type->tag != EVAL_TAG_ENUMERATION)
      return 0;
    if (type->type == NULL) {
      /* No underlying type (DWARF 2-4): signed when an enumerator is negative. */
      for (const amddwarf_die_info *e = type->first_child; e; e = e->next_sibling)
        if (e->const_value && e->const_value->kind == AMDDWARF_ATTR_SIGNED &&
            e->const_value->s < 0)
          return 1;
      return 0;
    }
    type = type->type;
  }
  return 0;
}

/* ---- plans ---- */

typedef struct planner {
  const amddwarf_object *object;
  const eval_path *path;
  eval_plan *plan;
  eval_type type;
  uint64_t bitfield; /* width of a bitfield result, else 0 */
  int is_address;
  char *message;
  size_t message_size;
} planner;

static int is_aggregate(const amddwarf_die_info *t)
{
  return t && (t->tag == EVAL_TAG_STRUCTURE || t->tag == EVAL_TAG_UNION ||
               t->tag == EVAL_TAG_CLASS);
}

static int is_pointer(const amddwarf_die_info *t)
{
  return t && (t->tag == EVAL_TAG_POINTER || t->tag == EVAL_TAG_REFERENCE ||
               t->tag == EVAL_TAG_RVALUE_REFERENCE);
}

static amddwarf_status add_step(planner *p, eval_step step, size_t op)
{
  if (p->plan->count >= sizeof p->plan->steps / sizeof p->plan->steps[0]) {
    snprintf(p->message, p->message_size, "the expression needs too many steps");
    return AMDDWARF_E_LIMIT;
  }
  step.op = op;
  p->plan->steps[p->plan->count++] = step;
  return AMDDWARF_OK;
}

/* "'s.x' (int)": the subexpression before operator OP and its type. */
static const char *describe(planner *p, size_t op, char *buf, size_t size)
{
  char expr[512], type[256];
  eval_path_spell(p->path, op, expr, sizeof expr);
  eval_type_spell(p->object, p->type, type, sizeof type);
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
  const amddwarf_die_info *ptr = amddwarf_type_strip(p->type.die);
  eval_step step = {EVAL_STEP_LOAD_POINTER, 0, 0, 0, 0, 0};
  step.pointer_bytes = eval_pointer_size(p->object, ptr);
  step.aspace = eval_pointer_aspace(p->object, ptr);
  step.displacement = displacement;
  if (step.pointer_bytes == 0 || step.pointer_bytes > 8)
    return fail(p, AMDDWARF_E_UNSUPPORTED, op, "pointers of this size cannot be followed:");
  p->type.die = ptr->type;
  p->type.dims_used = 0;
  return add_step(p, step, op);
}

/* References are followed wherever they are used, as C++ does. */
static amddwarf_status follow_references(planner *p, size_t op)
{
  for (int i = 0; i < 8; ++i) {
    const amddwarf_die_info *t = amddwarf_type_strip(p->type.die);
    if (p->is_address || t == NULL ||
        (t->tag != EVAL_TAG_REFERENCE && t->tag != EVAL_TAG_RVALUE_REFERENCE))
      return AMDDWARF_OK;
    amddwarf_status st = load_pointer(p, op, 0);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* Finds member NAME of aggregate T, looking into anonymous members and base
   classes too; *BITS receives its offset from the start of T. */
static const amddwarf_die_info *find_member(planner *p, const amddwarf_die_info *t,
                                            const char *name, uint64_t *bits, int depth,
                                            amddwarf_status *st)
{
  for (const amddwarf_die_info *m = t->first_child; m && *st == AMDDWARF_OK;
       m = m->next_sibling) {
    eval_member_layout layout;
    /* Anonymous members and base classes are searched like the aggregate. */
    int nested = m->tag == EVAL_TAG_INHERITANCE || (m->tag == EVAL_TAG_MEMBER && m->name == NULL);
    if ((m->tag != EVAL_TAG_MEMBER && m->tag != EVAL_TAG_INHERITANCE) ||
        (m->flags & AMDDWARF_DIE_DECLARATION))
      continue;
    if (!nested && strcmp(m->name, name) != 0)
      continue;
    const amddwarf_die_info *inner = amddwarf_type_strip(m->type);
    if (nested && (!is_aggregate(inner) || depth >= MAX_ANONYMOUS_DEPTH))
      continue;
    if ((*st = eval_member_layout_get(p->object, m, &layout, p->message, p->message_size)) !=
        AMDDWARF_OK)
      return NULL;
    if (!nested) {
      *bits = layout.bit_offset;
      return m;
    }
    uint64_t inner_bits = 0;
    const amddwarf_die_info *found = find_member(p, inner, name, &inner_bits, depth + 1, st);
    if (found != NULL) {
      *bits = layout.bit_offset + inner_bits;
      return found;
    }
  }
  return NULL;
}

static amddwarf_status plan_member(planner *p, size_t i)
{
  const eval_op *op = &p->path->ops[i];
  const amddwarf_die_info *t = amddwarf_type_strip(p->type.die);
  amddwarf_status st = AMDDWARF_OK;
  char what[EVAL_NAME_SIZE + 64];
  uint64_t bits = 0;
  if (op->kind == EVAL_OP_ARROW) {
    if (p->is_address) {
      p->is_address = 0; /* (&s)->x is s.x */
    } else if (eval_type_array(p->type) != NULL) {
      /* arr->x is arr[0].x */
      p->type.dims_used++;
      if (eval_type_array(p->type) == NULL)
        p->type = (eval_type){amddwarf_type_strip(p->type.die)->type, 0};
    } else if (is_pointer(t) && t->tag == EVAL_TAG_POINTER) {
      if ((st = load_pointer(p, i, 0)) != AMDDWARF_OK)
        return st;
    } else {
      snprintf(what, sizeof what, "'->%s' needs a pointer, not", op->name);
      return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
    }
    if ((st = follow_references(p, i)) != AMDDWARF_OK)
      return st;
    t = amddwarf_type_strip(p->type.die);
  } else if (p->is_address || (t && t->tag == EVAL_TAG_POINTER)) {
    snprintf(what, sizeof what, "'.%s' needs a struct or union; use '->%s' on the pointer",
             op->name, op->name);
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
  }
  if (!is_aggregate(t) || eval_type_array(p->type) != NULL) {
    snprintf(what, sizeof what, "'%s%s' needs a struct or union, not",
             op->kind == EVAL_OP_ARROW ? "->" : ".", op->name);
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, what);
  }
  const amddwarf_die_info *m = find_member(p, t, op->name, &bits, 0, &st);
  if (st != AMDDWARF_OK)
    return st;
  if (m == NULL) {
    /* "struct S": the aggregate's own name, else the typedef's. */
    static const char *const words[] = {[EVAL_TAG_CLASS] = "class", [EVAL_TAG_STRUCTURE] = "struct",
                                        [EVAL_TAG_UNION] = "union"};
    char type[256];
    const amddwarf_die_info *named = p->type.die;
    while (named != NULL && named->name == NULL && named != t)
      named = named->type; /* past const and volatile to a typedef */
    amddwarf_type_name(p->object, t->name || named == NULL ? t : named, type, sizeof type, NULL);
    const char *word = words[t->tag];
    size_t n = strlen(word);
    if (strncmp(type, word, n) == 0 && type[n] == ' ')
      snprintf(p->message, p->message_size, "no member '%s' in %s", op->name, type);
    else
      snprintf(p->message, p->message_size, "no member '%s' in %s %s", op->name, word, type);
    return AMDDWARF_NOT_FOUND;
  }
  eval_member_layout layout;
  if ((st = eval_member_layout_get(p->object, m, &layout, p->message, p->message_size)) !=
      AMDDWARF_OK)
    return st;
  p->type = (eval_type){m->type, 0};
  p->bitfield = layout.bit_size;
  return add_step(p, (eval_step){EVAL_STEP_ADD_BITS, bits, 0, 0, 0, 0}, i);
}

static amddwarf_status plan_index(planner *p, size_t i, int64_t index)
{
  const amddwarf_die_info *array = eval_type_array(p->type);
  const amddwarf_die_info *t = amddwarf_type_strip(p->type.die);
  uint64_t elem = 0;
  if (array != NULL) {
    eval_dim dims[EVAL_MAX_DIMS];
    size_t n = eval_array_dims(p->object, array, dims);
    const eval_dim *d = &dims[p->type.dims_used];
    eval_type row = {p->type.die, p->type.dims_used + 1};
    if (p->type.dims_used + 1 >= n)
      row = (eval_type){array->type, 0};
    if (index < d->lower || (d->known && (uint64_t)(index - d->lower) >= d->count)) {
      char msg[128], expr[512], type[256];
      eval_path_spell(p->path, i, expr, sizeof expr);
      eval_type_spell(p->object, p->type, type, sizeof type);
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
    if (eval_type_size(p->object, row, &elem) != AMDDWARF_OK)
      return fail(p, AMDDWARF_E_UNSUPPORTED, i, "the element size is not known for");
    uint64_t k = (uint64_t)(index - d->lower);
    if (elem && k > UINT64_MAX / 8 / elem)
      return fail(p, AMDDWARF_E_OVERFLOW, i, "the index overflows");
    p->type = row;
    return add_step(p, (eval_step){EVAL_STEP_ADD_BITS, k * elem * 8, 0, 0, 0, 0}, i);
  }
  if (!p->is_address && t && t->tag == EVAL_TAG_POINTER) {
    eval_type pointee = {t->type, 0};
    if (t->type == NULL || eval_type_size(p->object, pointee, &elem) != AMDDWARF_OK || elem == 0)
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
  const amddwarf_die_info *t = amddwarf_type_strip(p->type.die);
  if (p->is_address) {
    p->is_address = 0; /* *&x is x */
    return AMDDWARF_OK;
  }
  if (eval_type_array(p->type) != NULL) {
    /* *arr is arr[0] */
    p->type.dims_used++;
    if (eval_type_array(p->type) == NULL)
      p->type = (eval_type){t->type, 0};
    return AMDDWARF_OK;
  }
  if (t == NULL || t->tag != EVAL_TAG_POINTER)
    return fail(p, AMDDWARF_E_INVALID_ARGUMENT, i, "'*' needs a pointer, not");
  if (t->type == NULL)
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

/* A component of a clang ext_vector_type vector named like a member
   (v.x, v.a, v.s3, v.sf), as its index; -1 when OP is not one. */
static int64_t vector_component(planner *p, const eval_op *op)
{
  static const char *const sets[] = {"xyzw", "rgba", "0123456789abcdef"};
  const amddwarf_die_info *t = amddwarf_type_strip(p->type.die);
  const char *name = op->name;
  int set = 0;
  if (op->kind != EVAL_OP_MEMBER || p->is_address || t == NULL || t->tag != EVAL_TAG_ARRAY ||
      !(t->flags & AMDDWARF_DIE_GNU_VECTOR) || p->type.dims_used != 0)
    return -1;
  if ((name[0] == 's' || name[0] == 'S') && name[1] != '\0') {
    set = 2; /* OpenCL's s0-sf */
    ++name;
  }
  if (name[1] != '\0')
    return -1;
  for (int s = set; s < (set == 2 ? 3 : 2); ++s) {
    const char *hit = strchr(sets[s], name[0] | (s == 2 ? 0x20 : 0));
    if (hit != NULL && name[0] != '\0')
      return hit - sets[s];
  }
  return -1;
}

amddwarf_status eval_plan_build(const amddwarf_object *object, const amddwarf_die_info *var_type,
                                const eval_path *path, eval_plan *plan, char *message,
                                size_t size)
{
  planner p = {object, path, plan, {var_type, 0}, 0, 0, message, size};
  amddwarf_status st = AMDDWARF_OK;
  memset(plan, 0, sizeof *plan);
  for (size_t i = 0; i < path->count && st == AMDDWARF_OK; ++i) {
    if (p.bitfield && path->ops[i].kind != EVAL_OP_ADDRESS) {
      st = fail(&p, AMDDWARF_E_INVALID_ARGUMENT, i, "no operator applies to bitfield");
      break;
    }
    if ((st = follow_references(&p, i)) != AMDDWARF_OK)
      break;
    switch (path->ops[i].kind) {
    case EVAL_OP_MEMBER:
    case EVAL_OP_ARROW: {
      int64_t component = vector_component(&p, &path->ops[i]);
      st = component >= 0 ? plan_index(&p, i, component) : plan_member(&p, i);
      break;
    }
    case EVAL_OP_INDEX:
      st = plan_index(&p, i, path->ops[i].index);
      break;
    case EVAL_OP_DEREF:
      st = plan_deref(&p, i);
      break;
    case EVAL_OP_ADDRESS:
      st = plan_address(&p, i);
      break;
    }
  }
  if (st == AMDDWARF_OK && !p.is_address)
    st = follow_references(&p, path->count); /* a reference reads as what it refers to */
  if (st == AMDDWARF_OK && p.is_address)
    st = add_step(&p, (eval_step){EVAL_STEP_ADDRESS, 0, 0, 0, 0, 0}, path->count);
  if (st != AMDDWARF_OK)
    return st;
  plan->result = p.type;
  plan->is_address = p.is_address;
  eval_type_spell(object, p.type, plan->type_name, sizeof plan->type_name);
  if (p.is_address) {
    size_t len = strlen(plan->type_name);
    if (eval_type_array(p.type) != NULL) {
      /* A pointer to an array: "int (*)[4]". */
      char elem[128], dims[128];
      size_t bracket = strcspn(plan->type_name, "[");
      snprintf(elem, sizeof elem, "%.*s", (int)bracket, plan->type_name);
      snprintf(dims, sizeof dims, "%s", plan->type_name + bracket);
      snprintf(plan->type_name, sizeof plan->type_name, "%.120s (*)%.120s", elem, dims);
    } else {
      snprintf(plan->type_name + len, sizeof plan->type_name - len, " *");
    }
    /* The size of the object pointed to, for explaining; 0 when unknown. */
    if (p.type.die == NULL || eval_type_size(object, p.type, &plan->byte_size) != AMDDWARF_OK)
      plan->byte_size = 0;
    plan->bit_size = 0;
    return AMDDWARF_OK;
  }
  if (p.type.die == NULL) {
    snprintf(message, size, "'%s' has type void", path->name);
    return AMDDWARF_E_INVALID_ARGUMENT;
  }
  if (eval_type_size(object, p.type, &plan->byte_size) != AMDDWARF_OK || plan->byte_size == 0) {
    char expr[512];
    eval_path_spell(path, path->count, expr, sizeof expr);
    snprintf(message, size, "the size of '%s' (%s) is not known", expr, plan->type_name);
    return AMDDWARF_E_UNSUPPORTED;
  }
  plan->bit_size = p.bitfield ? p.bitfield : plan->byte_size * 8;
  return AMDDWARF_OK;
}
