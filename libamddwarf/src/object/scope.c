/* Code objects: the PC -> scope index (built at open), variables in
 * scope at a PC, and the type helpers (strip, size, C spelling). */
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

/* ---- types ---- */

/* A typedef or a qualifier: a type that names another without changing its
   layout. */
static bool is_alias(unsigned tag)
{
  switch (tag) {
  case DW_TAG_typedef:
  case DW_TAG_const_type:
  case DW_TAG_volatile_type:
  case DW_TAG_restrict_type:
  case DW_TAG_atomic_type: return true;
  default: return false;
  }
}

const amddwarf_die_info *amddwarf_type_strip(const amddwarf_die_info *type)
{
  for (int i = 0; type != NULL && i < AMDDWARF_MAX_TYPE_DEPTH && is_alias(type->tag); ++i)
    type = type->type;
  return type;
}

/* A constant bound value, when it is one. */
static bool bound_value(const amddwarf_attr_value *v, int64_t *out)
{
  if (v == NULL)
    return false;
  if (v->kind == AMDDWARF_ATTR_UNSIGNED || v->kind == AMDDWARF_ATTR_SIGNED) {
    *out = (int64_t)v->u;
    return true;
  }
  return false;
}

/* Number of elements of subrange SUB, when constant. */
static bool subrange_count(const amddwarf_object *object, const amddwarf_die_info *sub, uint64_t *out)
{
  int64_t count, upper, lower = 0;
  if (bound_value(sub->count, &count)) {
    *out = count < 0 ? 0 : (uint64_t)count;
    return true;
  }
  if (!bound_value(sub->lower_bound, &lower)) {
    const amddwarf_cu *cu = amddwarf_object_cu(object, sub->cu_index);
    unsigned lang = cu ? cu->language : 0;
    /* Fortran-like languages default to 1; the C family to 0. */
    lower = (lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 ||
             lang == DW_LANG_Fortran95 || lang == DW_LANG_Fortran03 ||
             lang == DW_LANG_Fortran08 || lang == DW_LANG_Ada83 || lang == DW_LANG_Ada95)
                ? 1
                : 0;
  }
  if (bound_value(sub->upper_bound, &upper)) {
    /* An unsigned 0xffffffff upper bound (count -1) means "unknown". */
    if (sub->upper_bound->kind == AMDDWARF_ATTR_UNSIGNED && sub->upper_bound->form == DW_FORM_data4 &&
        sub->upper_bound->u == 0xffffffffu)
      return false;
    *out = upper < lower ? 0 : (uint64_t)(upper - lower + 1);
    return true;
  }
  return false;
}

uint32_t amddwarf_type_pointer_aspace(const amddwarf_object *object,
                                      const amddwarf_die_info *pointer)
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

/* A pointer's own DW_AT_byte_size, else the size of an address in its
   address space (4 bytes for private and local in 64-bit code objects). */
static uint64_t pointer_byte_size(const amddwarf_object *object, const amddwarf_die_info *pointer)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, pointer->cu_index);
  unsigned address_size = cu ? cu->address_size : 8;
  amddwarf_aspace_info info;
  if (pointer->flags & AMDDWARF_DIE_HAS_BYTE_SIZE)
    return pointer->byte_size;
  if (amddwarf_aspace_info_get(amddwarf_type_pointer_aspace(object, pointer), &info) !=
      AMDDWARF_OK)
    return address_size;
  return address_size == 4 ? info.address_size_32 : info.address_size_64;
}

amddwarf_status amddwarf_type_byte_size(const amddwarf_object *object, const amddwarf_die_info *type,
                                        uint64_t *size)
{
  for (int i = 0; type != NULL && i < AMDDWARF_MAX_TYPE_DEPTH; ++i) {
    if (type->flags & AMDDWARF_DIE_HAS_BYTE_SIZE) {
      *size = type->byte_size;
      return AMDDWARF_OK;
    }
    if (is_alias(type->tag)) {
      type = type->type;
      continue;
    }
    switch (type->tag) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_ptr_to_member_type:
      *size = pointer_byte_size(object, type);
      return AMDDWARF_OK;
    case DW_TAG_array_type: {
      uint64_t elem = 0, total;
      if (amddwarf_type_byte_size(object, type->type, &elem) != AMDDWARF_OK)
        return AMDDWARF_NOT_FOUND;
      total = elem;
      for (const amddwarf_die_info *c = type->first_child; c != NULL; c = c->next_sibling) {
        uint64_t n = 0;
        if (c->tag != DW_TAG_subrange_type && c->tag != DW_TAG_enumeration_type)
          continue;
        if (!subrange_count(object, c, &n) || amddwarf_mul_overflow_u64(total, n, &total))
          return AMDDWARF_NOT_FOUND;
      }
      *size = total;
      return AMDDWARF_OK;
    }
    default:
      return AMDDWARF_NOT_FOUND;
    }
  }
  return AMDDWARF_NOT_FOUND;
}

/* ---- C spelling ---- */

static const char *aggregate_word(unsigned tag)
{
  switch (tag) {
  case DW_TAG_structure_type: return "struct";
  case DW_TAG_union_type: return "union";
  case DW_TAG_class_type: return "class";
  case DW_TAG_enumeration_type: return "enum";
  default: return NULL;
  }
}

/* Writes TYPE with SUFFIX (the declarator built so far) after it. */
static void spell(const amddwarf_object *object, const amddwarf_die_info *type, const char *suffix,
                  amddwarf_text *b, int depth)
{
  char tmp[512];
  if (depth > AMDDWARF_MAX_TYPE_DEPTH) {
    amddwarf__text_puts(b, "...");
    return;
  }
  if (type == NULL) {
    amddwarf__text_puts(b, "void");
    if (suffix[0]) {
      if (suffix[0] != '[' && suffix[0] != ' ')
        amddwarf__text_puts(b, " ");
      amddwarf__text_puts(b, suffix);
    }
    return;
  }
  switch (type->tag) {
  case DW_TAG_pointer_type:
  case DW_TAG_reference_type:
  case DW_TAG_rvalue_reference_type: {
    const char *sigil = type->tag == DW_TAG_pointer_type ? "*"
                        : type->tag == DW_TAG_reference_type ? "&" : "&&";
    const amddwarf_die_info *inner = amddwarf_type_strip(type->type);
    bool paren = suffix[0] == '[' || (inner != NULL && inner->tag == DW_TAG_subroutine_type);
    snprintf(tmp, sizeof tmp, "%s%s%s%s", paren ? "(" : "", sigil, suffix, paren ? ")" : "");
    spell(object, type->type, tmp, b, depth + 1);
    return;
  }
  case DW_TAG_const_type:
  case DW_TAG_volatile_type:
  case DW_TAG_restrict_type:
  case DW_TAG_atomic_type: {
    const char *q = type->tag == DW_TAG_const_type      ? "const"
                    : type->tag == DW_TAG_volatile_type ? "volatile"
                    : type->tag == DW_TAG_restrict_type ? "restrict"
                                                        : "_Atomic";
    const amddwarf_die_info *inner = type->type;
    if (inner != NULL && (inner->tag == DW_TAG_pointer_type ||
                          inner->tag == DW_TAG_reference_type)) {
      snprintf(tmp, sizeof tmp, "%s%s", q, suffix);
      spell(object, inner, tmp, b, depth + 1);
    } else {
      amddwarf__text_puts(b, q);
      amddwarf__text_puts(b, " ");
      spell(object, inner, suffix, b, depth + 1);
    }
    return;
  }
  case DW_TAG_array_type: {
    char dims_buf[256];
    amddwarf_text dims;
    amddwarf__text_init_fixed(&dims, dims_buf, sizeof dims_buf);
    for (const amddwarf_die_info *c = type->first_child;
         c != NULL && dims.len < sizeof dims_buf - 32; c = c->next_sibling) {
      uint64_t n = 0;
      if (c->tag != DW_TAG_subrange_type)
        continue;
      if (subrange_count(object, c, &n))
        amddwarf__text_printf(&dims, "[%llu]", (unsigned long long)n);
      else
        amddwarf__text_puts(&dims, "[]");
    }
    if (type->flags & AMDDWARF_DIE_GNU_VECTOR) {
      /* A vector: "int __attribute__((ext_vector_type(4)))" is spelled int[4]. */
    }
    snprintf(tmp, sizeof tmp, "%s%s", suffix, dims_buf);
    spell(object, type->type, tmp, b, depth + 1);
    return;
  }
  case DW_TAG_subroutine_type: {
    spell(object, type->type, "", b, depth + 1);
    amddwarf__text_puts(b, " ");
    amddwarf__text_puts(b, suffix);
    amddwarf__text_puts(b, "(");
    bool first = true;
    for (const amddwarf_die_info *c = type->first_child; c != NULL; c = c->next_sibling) {
      if (c->tag == DW_TAG_formal_parameter) {
        if (!first)
          amddwarf__text_puts(b, ", ");
        spell(object, c->type, "", b, depth + 1);
        first = false;
      } else if (c->tag == DW_TAG_unspecified_parameters) {
        amddwarf__text_puts(b, first ? "..." : ", ...");
        first = false;
      }
    }
    amddwarf__text_puts(b, ")");
    return;
  }
  default: {
    const char *word = aggregate_word(type->tag);
    if (type->name != NULL) {
      amddwarf__text_puts(b, type->name);
    } else if (word != NULL) {
      snprintf(tmp, sizeof tmp, "<anonymous %s>", word);
      amddwarf__text_puts(b, tmp);
    } else if (type->tag == DW_TAG_unspecified_type) {
      amddwarf__text_puts(b, "void");
    } else {
      amddwarf__text_puts(b, "<unnamed type>");
    }
    if (suffix[0]) {
      if (suffix[0] != '[')
        amddwarf__text_puts(b, " ");
      amddwarf__text_puts(b, suffix);
    }
    return;
  }
  }
}

amddwarf_status amddwarf_type_name(const amddwarf_object *object, const amddwarf_die_info *type,
                                   char *buf, size_t size, size_t *length)
{
  amddwarf_text b;
  amddwarf__text_init_fixed(&b, buf, size);
  spell(object, type, "", &b, 0);
  if (length)
    *length = b.len;
  return b.len < size ? AMDDWARF_OK : AMDDWARF_E_NO_SPACE;
}
