/* Code objects: type DIEs as C sees them, through DIE references (strip,
 * pointer address spaces, array dimensions, sizes, C spelling). A type is
 * the reference of its DIE; an invalid reference is void. Each DIE is read
 * with amddwarf_object_die_fields: no unit's summaries are made. */
#include <stdio.h>
#include <string.h>

#include "common/checked.h"
#include "common/text.h"
#include "object/internal.h"
#include <amddwarf/target.h>

#define AMDDWARF_MAX_TYPE_DEPTH 32

/* DWARF 5 table 7.17: the languages whose arrays start at 1 by default. */
static const unsigned one_based_languages[] = {
    DW_LANG_Ada83,     DW_LANG_Cobol74,   DW_LANG_Cobol85,   DW_LANG_Fortran77,
    DW_LANG_Fortran90, DW_LANG_Pascal83,  DW_LANG_Modula2,   DW_LANG_Ada95,
    DW_LANG_Fortran95, DW_LANG_PLI,       DW_LANG_Fortran03, DW_LANG_Fortran08,
};

/* The fields of TYPE, or 0 for void and a DIE that cannot be read. */
static int fields_of(const amddwarf_object *object, amddwarf_die_ref type,
                     amddwarf_die_fields *out)
{
  if (!amddwarf_die_ref_valid(type)) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  return amddwarf_object_die_fields(object, type, out, NULL) == AMDDWARF_OK;
}

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

amddwarf_die_ref amddwarf_type_strip(const amddwarf_object *object, amddwarf_die_ref type)
{
  amddwarf_die_fields f;
  for (int i = 0; i < AMDDWARF_MAX_TYPE_DEPTH && fields_of(object, type, &f) && is_alias(f.tag);
       ++i)
    type = f.type;
  return type;
}

/* ---- arrays ---- */

static bool bound_value(const amddwarf_attr_value *v, int64_t *out)
{
  if (v->kind != AMDDWARF_ATTR_UNSIGNED && v->kind != AMDDWARF_ATTR_SIGNED)
    return false;
  *out = (int64_t)v->u;
  return true;
}

static int64_t default_lower_bound(const amddwarf_object *object, const amddwarf_die_fields *sub)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, sub->die.cu_index);
  for (size_t i = 0; cu && i < sizeof one_based_languages / sizeof one_based_languages[0]; ++i)
    if (cu->language == one_based_languages[i])
      return 1;
  return 0;
}

/* The dimension subrange SUB describes. */
static amddwarf_array_dim subrange_dim(const amddwarf_object *object,
                                       const amddwarf_die_fields *sub)
{
  amddwarf_array_dim d = {0, 0, 0};
  int64_t count = 0, upper = 0;
  if (!bound_value(&sub->lower_bound, &d.lower))
    d.lower = default_lower_bound(object, sub);
  if (bound_value(&sub->count, &count)) {
    d.count = count < 0 ? 0 : (uint64_t)count;
    d.known = 1;
  } else if (bound_value(&sub->upper_bound, &upper) &&
             !(sub->upper_bound.kind == AMDDWARF_ATTR_UNSIGNED &&
               sub->upper_bound.form == DW_FORM_data4 && sub->upper_bound.u == 0xffffffffu)) {
    /* An unsigned data4 0xffffffff upper bound (count -1) means "unknown". */
    d.count = upper < d.lower ? 0 : (uint64_t)(upper - d.lower) + 1;
    d.known = 1;
  }
  return d;
}

size_t amddwarf_type_array_dims(const amddwarf_object *object, amddwarf_die_ref array,
                                amddwarf_array_dim *dims, size_t capacity)
{
  amddwarf_die_fields a, c;
  size_t n = 0;
  if (!fields_of(object, array, &a) || a.tag != DW_TAG_array_type)
    return 0;
  for (amddwarf_die_ref s = a.first_child; fields_of(object, s, &c); s = c.next_sibling) {
    /* An enumeration indexes a dimension by its enumerators: a count this
       reader does not work out. */
    amddwarf_array_dim unknown = {0, 0, 0};
    if (c.tag != DW_TAG_subrange_type && c.tag != DW_TAG_enumeration_type)
      continue;
    if (n < capacity)
      dims[n] = c.tag == DW_TAG_subrange_type ? subrange_dim(object, &c) : unknown;
    ++n;
  }
  return n;
}

/* ---- pointers and sizes ---- */

static uint32_t pointer_aspace(const amddwarf_object *object, const amddwarf_die_fields *pointer)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, pointer->die.cu_index);
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

uint32_t amddwarf_type_pointer_aspace(const amddwarf_object *object, amddwarf_die_ref pointer)
{
  amddwarf_die_fields f;
  return fields_of(object, pointer, &f) ? pointer_aspace(object, &f)
                                        : AMDDWARF_ASPACE_AMDGPU_GENERIC;
}

/* A pointer's own DW_AT_byte_size, else the size of an address in its
   address space (4 bytes for private and local in 64-bit code objects). */
static uint64_t pointer_byte_size(const amddwarf_object *object, const amddwarf_die_fields *pointer)
{
  const amddwarf_cu *cu = amddwarf_object_cu(object, pointer->die.cu_index);
  unsigned address_size = cu ? cu->address_size : 8;
  amddwarf_aspace_info info;
  if (pointer->flags & AMDDWARF_DIE_HAS_BYTE_SIZE)
    return pointer->byte_size;
  if (amddwarf_aspace_info_get(pointer_aspace(object, pointer), &info) != AMDDWARF_OK)
    return address_size;
  return address_size == 4 ? info.address_size_32 : info.address_size_64;
}

static amddwarf_status byte_size(const amddwarf_object *object, amddwarf_die_ref type,
                                 uint64_t *size, int depth)
{
  amddwarf_die_fields f;
  for (; depth < AMDDWARF_MAX_TYPE_DEPTH && fields_of(object, type, &f); ++depth) {
    if (f.flags & AMDDWARF_DIE_HAS_BYTE_SIZE) {
      *size = f.byte_size;
      return AMDDWARF_OK;
    }
    if (is_alias(f.tag)) {
      type = f.type;
      continue;
    }
    switch (f.tag) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_ptr_to_member_type:
      *size = pointer_byte_size(object, &f);
      return AMDDWARF_OK;
    case DW_TAG_array_type: {
      amddwarf_array_dim dims[AMDDWARF_MAX_TYPE_DEPTH];
      uint64_t total = 0;
      size_t n = amddwarf_type_array_dims(object, type, dims, AMDDWARF_MAX_TYPE_DEPTH);
      if (n > AMDDWARF_MAX_TYPE_DEPTH || byte_size(object, f.type, &total, depth + 1) != AMDDWARF_OK)
        return AMDDWARF_NOT_FOUND;
      for (size_t i = 0; i < n; ++i)
        if (!dims[i].known || amddwarf_mul_overflow_u64(total, dims[i].count, &total))
          return AMDDWARF_NOT_FOUND;
      *size = total;
      return AMDDWARF_OK;
    }
    default:
      return AMDDWARF_NOT_FOUND;
    }
  }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_type_byte_size(const amddwarf_object *object, amddwarf_die_ref type,
                                        uint64_t *size)
{
  return byte_size(object, type, size, 0);
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

static const char *qualifier_word(unsigned tag)
{
  switch (tag) {
  case DW_TAG_const_type: return "const";
  case DW_TAG_volatile_type: return "volatile";
  case DW_TAG_restrict_type: return "restrict";
  default: return "_Atomic";
  }
}

static void spell(const amddwarf_object *object, amddwarf_die_ref type, const char *suffix,
                  amddwarf_text *b, int depth);

/* "*SUFFIX", in parentheses before an array or a function. */
static void spell_pointer(const amddwarf_object *object, const amddwarf_die_fields *t,
                          const char *suffix, amddwarf_text *b, int depth)
{
  char tmp[512];
  amddwarf_die_fields inner;
  const char *sigil = t->tag == DW_TAG_pointer_type     ? "*"
                      : t->tag == DW_TAG_reference_type ? "&"
                                                        : "&&";
  bool paren = suffix[0] == '[' ||
               (fields_of(object, amddwarf_type_strip(object, t->type), &inner) &&
                inner.tag == DW_TAG_subroutine_type);
  snprintf(tmp, sizeof tmp, "%s%s%s%s", paren ? "(" : "", sigil, suffix, paren ? ")" : "");
  spell(object, t->type, tmp, b, depth + 1);
}

/* "const int", "int *const". */
static void spell_qualified(const amddwarf_object *object, const amddwarf_die_fields *t,
                            const char *suffix, amddwarf_text *b, int depth)
{
  char tmp[512];
  amddwarf_die_fields inner;
  const char *q = qualifier_word(t->tag);
  if (fields_of(object, t->type, &inner) &&
      (inner.tag == DW_TAG_pointer_type || inner.tag == DW_TAG_reference_type)) {
    snprintf(tmp, sizeof tmp, "%s%s", q, suffix);
    spell(object, t->type, tmp, b, depth + 1);
  } else {
    amddwarf__text_puts(b, q);
    amddwarf__text_puts(b, " ");
    spell(object, t->type, suffix, b, depth + 1);
  }
}

/* "int[2][3]"; a GNU vector (ext_vector_type(4)) is spelled as its array. */
static void spell_array(const amddwarf_object *object, const amddwarf_die_fields *t,
                        const char *suffix, amddwarf_text *b, int depth)
{
  char tmp[512], dims_buf[256];
  amddwarf_text dims;
  amddwarf_die_fields c;
  amddwarf__text_init_fixed(&dims, dims_buf, sizeof dims_buf);
  for (amddwarf_die_ref s = t->first_child;
       dims.len < sizeof dims_buf - 32 && fields_of(object, s, &c); s = c.next_sibling) {
    if (c.tag != DW_TAG_subrange_type)
      continue;
    amddwarf_array_dim d = subrange_dim(object, &c);
    if (d.known)
      amddwarf__text_printf(&dims, "[%llu]", (unsigned long long)d.count);
    else
      amddwarf__text_puts(&dims, "[]");
  }
  snprintf(tmp, sizeof tmp, "%s%s", suffix, dims_buf);
  spell(object, t->type, tmp, b, depth + 1);
}

/* "int (int, ...)". */
static void spell_function(const amddwarf_object *object, const amddwarf_die_fields *t,
                           const char *suffix, amddwarf_text *b, int depth)
{
  amddwarf_die_fields c;
  bool first = true;
  spell(object, t->type, "", b, depth + 1);
  amddwarf__text_puts(b, " ");
  amddwarf__text_puts(b, suffix);
  amddwarf__text_puts(b, "(");
  for (amddwarf_die_ref p = t->first_child; fields_of(object, p, &c); p = c.next_sibling) {
    if (c.tag == DW_TAG_formal_parameter) {
      if (!first)
        amddwarf__text_puts(b, ", ");
      spell(object, c.type, "", b, depth + 1);
      first = false;
    } else if (c.tag == DW_TAG_unspecified_parameters) {
      amddwarf__text_puts(b, first ? "..." : ", ...");
      first = false;
    }
  }
  amddwarf__text_puts(b, ")");
}

/* A named type, or what stands for its name, then SUFFIX. */
static void spell_named(const amddwarf_die_fields *t, const char *suffix, amddwarf_text *b)
{
  const char *word = aggregate_word(t->tag);
  if (t->name != NULL)
    amddwarf__text_puts(b, t->name);
  else if (word != NULL)
    amddwarf__text_printf(b, "<anonymous %s>", word);
  else if (t->tag == DW_TAG_unspecified_type)
    amddwarf__text_puts(b, "void");
  else
    amddwarf__text_puts(b, "<unnamed type>");
  if (suffix[0]) {
    if (suffix[0] != '[')
      amddwarf__text_puts(b, " ");
    amddwarf__text_puts(b, suffix);
  }
}

/* Writes TYPE with SUFFIX (the declarator built so far) after it. */
static void spell(const amddwarf_object *object, amddwarf_die_ref type, const char *suffix,
                  amddwarf_text *b, int depth)
{
  amddwarf_die_fields t;
  if (depth > AMDDWARF_MAX_TYPE_DEPTH) {
    amddwarf__text_puts(b, "...");
    return;
  }
  if (!fields_of(object, type, &t)) {
    amddwarf__text_puts(b, "void");
    if (suffix[0]) {
      if (suffix[0] != '[' && suffix[0] != ' ')
        amddwarf__text_puts(b, " ");
      amddwarf__text_puts(b, suffix);
    }
    return;
  }
  switch (t.tag) {
  case DW_TAG_pointer_type:
  case DW_TAG_reference_type:
  case DW_TAG_rvalue_reference_type: spell_pointer(object, &t, suffix, b, depth); return;
  case DW_TAG_const_type:
  case DW_TAG_volatile_type:
  case DW_TAG_restrict_type:
  case DW_TAG_atomic_type: spell_qualified(object, &t, suffix, b, depth); return;
  case DW_TAG_array_type: spell_array(object, &t, suffix, b, depth); return;
  case DW_TAG_subroutine_type: spell_function(object, &t, suffix, b, depth); return;
  default: spell_named(&t, suffix, b); return;
  }
}

amddwarf_status amddwarf_type_name(const amddwarf_object *object, amddwarf_die_ref type,
                                   char *buf, size_t size, size_t *length)
{
  amddwarf_text b;
  amddwarf__text_init_fixed(&b, buf, size);
  spell(object, type, "", &b, 0);
  if (length)
    *length = b.len;
  return b.len < size ? AMDDWARF_OK : AMDDWARF_E_NO_SPACE;
}
