/* Types as a C debugger sees them (types.h). */
#include "debug/types.h"

#include <stdio.h>
#include <string.h>
#include <amddwarf/expr.h>
#include <amddwarf/target.h>

#include <amddwarf/dwarf.h>

enum { MAX_TYPE_DEPTH = 16 };

int amddwarf__debug_fields(const amddwarf_object *object, amddwarf_die_ref die,
                          amddwarf_die_fields *out)
{
  if (!amddwarf_die_ref_valid(die) ||
      amddwarf_object_die_fields(object, die, out, NULL) != AMDDWARF_OK) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  return 1;
}

int amddwarf__debug_strip_fields(const amddwarf_object *object, amddwarf_die_ref type,
                                amddwarf_die_fields *out)
{
  return amddwarf__debug_fields(object, amddwarf_type_strip(object, type), out);
}

static int constant(const amddwarf_attr_value *v, int64_t *out)
{
  if (v->kind != AMDDWARF_ATTR_UNSIGNED && v->kind != AMDDWARF_ATTR_SIGNED)
    return 0;
  *out = (int64_t)v->u;
  return 1;
}

size_t amddwarf__debug_array_dims(const amddwarf_object *object, amddwarf_die_ref array,
                                 amddwarf_debug_dim *dims)
{
  size_t n = amddwarf_type_array_dims(object, array, dims, AMDDWARF_DEBUG_MAX_DIMS);
  return n < AMDDWARF_DEBUG_MAX_DIMS ? n : AMDDWARF_DEBUG_MAX_DIMS;
}

amddwarf_die_ref amddwarf__debug_type_array(const amddwarf_object *object,
                                           amddwarf_debug_type type)
{
  amddwarf_die_ref none = {0, 0, 0};
  amddwarf_die_ref t = amddwarf_type_strip(object, type.die);
  amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
  return type.dims_used < amddwarf__debug_array_dims(object, t, dims) ? t : none;
}

amddwarf_debug_type amddwarf__debug_type_element(const amddwarf_object *object,
                                                amddwarf_debug_type type)
{
  amddwarf_die_ref array = amddwarf__debug_type_array(object, type);
  amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
  amddwarf_debug_type row = {type.die, type.dims_used + 1};
  amddwarf_die_fields a;
  if (!amddwarf__debug_fields(object, array, &a) ||
      type.dims_used + 1 >= amddwarf__debug_array_dims(object, array, dims))
    row = (amddwarf_debug_type){a.type, 0};
  return row;
}

static amddwarf_status type_size(const amddwarf_object *object, amddwarf_debug_type type,
                                 uint64_t *size, int depth)
{
  amddwarf_die_ref array = amddwarf__debug_type_array(object, type);
  amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
  amddwarf_die_fields a, named;
  uint64_t total = 0;
  /* Arrays are sized by their elements, so that a private pointer (4 bytes,
     amddwarf_type_byte_size) takes 4 bytes wherever it is. */
  if (!amddwarf__debug_fields(object, array, &a))
    return amddwarf_type_byte_size(object, type.die, size);
  amddwarf__debug_fields(object, type.die, &named);
  if (type.dims_used == 0 && ((a.flags | named.flags) & AMDDWARF_DIE_HAS_BYTE_SIZE))
    return amddwarf_type_byte_size(object, type.die, size);
  if (depth >= MAX_TYPE_DEPTH ||
      type_size(object, (amddwarf_debug_type){a.type, 0}, &total, depth + 1) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  size_t n = amddwarf__debug_array_dims(object, array, dims);
  for (size_t i = type.dims_used; i < n; ++i) {
    if (!dims[i].known || (dims[i].count && total > UINT64_MAX / dims[i].count))
      return AMDDWARF_NOT_FOUND;
    total *= dims[i].count;
  }
  *size = total;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__debug_type_size(const amddwarf_object *object, amddwarf_debug_type type,
                                         uint64_t *size)
{
  return type_size(object, type, size, 0);
}

void amddwarf__debug_type_spell(const amddwarf_object *object, amddwarf_debug_type type,
                               char *buf, size_t size)
{
  amddwarf_die_ref array = amddwarf__debug_type_array(object, type);
  amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
  amddwarf_die_fields a;
  size_t len;
  if (!amddwarf_die_ref_valid(type.die)) {
    snprintf(buf, size, "void");
    return;
  }
  if (!amddwarf__debug_fields(object, array, &a) || type.dims_used == 0) {
    amddwarf_type_name(object, type.die, buf, size, NULL);
    return;
  }
  amddwarf_type_name(object, a.type, buf, size, NULL);
  size_t n = amddwarf__debug_array_dims(object, array, dims);
  for (size_t i = type.dims_used; i < n; ++i) {
    len = strlen(buf);
    if (dims[i].known)
      snprintf(buf + len, size - len, "[%llu]", (unsigned long long)dims[i].count);
    else
      snprintf(buf + len, size - len, "[]");
  }
}

int amddwarf__debug_is_aggregate(const amddwarf_die_fields *t)
{
  return t && (t->tag == AMDDWARF_DW_TAG_structure_type ||
               t->tag == AMDDWARF_DW_TAG_union_type || t->tag == AMDDWARF_DW_TAG_class_type);
}

int amddwarf__debug_is_data_member(const amddwarf_die_fields *m)
{
  return (m->tag == AMDDWARF_DW_TAG_member || m->tag == AMDDWARF_DW_TAG_inheritance) &&
         !(m->flags & AMDDWARF_DIE_DECLARATION);
}

/* ---- members ---- */

/* DW_AT_data_member_location: a constant, or (DWARF 2) DW_OP_plus_uconst. */
static amddwarf_status member_byte_offset(const amddwarf_object *object,
                                          const amddwarf_die_fields *member, uint64_t *offset,
                                          char *message, size_t size)
{
  const amddwarf_attr_value *v = &member->data_member_location;
  amddwarf_op op;
  size_t count = 0;
  *offset = 0;
  if (v->kind == AMDDWARF_ATTR_NONE || v->kind == AMDDWARF_ATTR_UNSIGNED ||
      v->kind == AMDDWARF_ATTR_SIGNED) {
    *offset = v->u;
    return AMDDWARF_OK;
  }
  if (v->kind == AMDDWARF_ATTR_EXPR) {
    const amddwarf_cu *cu = amddwarf_object_cu(object, member->die.cu_index);
    if (amddwarf_expr_decode(v->bytes, v->size, cu ? &cu->format : NULL, &op, 1, &count,
                             NULL) == AMDDWARF_OK &&
        count == 1 && op.size == v->size && op.kind == AMDDWARF_OP_plus_uconst) {
      *offset = op.operands[0];
      return AMDDWARF_OK;
    }
  }
  snprintf(message, size, "member '%s' (DIE 0x%llx) has a location that is not a constant",
           member->name ? member->name : "?", (unsigned long long)member->die.offset);
  return AMDDWARF_E_UNSUPPORTED;
}

amddwarf_status amddwarf__debug_member_layout_get(const amddwarf_object *object,
                                                 const amddwarf_die_fields *member,
                                                 amddwarf_debug_member_layout *layout,
                                                 char *message, size_t size)
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
  amddwarf_attribute a;
  int64_t from_msb = 0;
  if (amddwarf_object_die_attribute(object, member->die, AMDDWARF_DW_AT_bit_offset, 0, &a,
                                    NULL) != AMDDWARF_OK ||
      !constant(&a.value, &from_msb))
    from_msb = 0;
  if (member->flags & AMDDWARF_DIE_HAS_BYTE_SIZE)
    storage = member->byte_size;
  else if (amddwarf_type_byte_size(object, member->type, &storage) != AMDDWARF_OK)
    storage = 0;
  if (from_msb < 0 || (uint64_t)from_msb + layout->bit_size > storage * 8) {
    snprintf(message, size,
             "bitfield '%s' (DIE 0x%llx): DW_AT_bit_offset %lld and "
             "DW_AT_bit_size %llu do not fit its %llu-byte storage",
             member->name ? member->name : "?", (unsigned long long)member->die.offset,
             (long long)from_msb, (unsigned long long)layout->bit_size,
             (unsigned long long)storage);
    return AMDDWARF_E_MALFORMED;
  }
  layout->bit_offset += storage * 8 - (uint64_t)from_msb - layout->bit_size;
  return AMDDWARF_OK;
}

/* ---- scalars ---- */

uint64_t amddwarf__debug_extend_bits(uint64_t v, uint64_t bits, int signed_)
{
  if (bits == 0 || bits >= 64)
    return v;
  v &= (1ull << bits) - 1;
  if (signed_ && (v >> (bits - 1)) & 1)
    v |= ~0ull << bits;
  return v;
}

int amddwarf__debug_type_is_signed(const amddwarf_object *object, amddwarf_die_ref type)
{
  amddwarf_die_fields t, e;
  for (int i = 0; i < 8 && amddwarf__debug_strip_fields(object, type, &t); ++i) {
    if (t.tag == AMDDWARF_DW_TAG_base_type)
      return t.encoding == AMDDWARF_ATE_SIGNED || t.encoding == AMDDWARF_ATE_SIGNED_CHAR ||
             t.encoding == AMDDWARF_DW_ATE_signed_fixed;
    if (t.tag != AMDDWARF_DW_TAG_enumeration_type)
      return 0;
    if (!amddwarf_die_ref_valid(t.type)) {
      /* No underlying type (DWARF 2-4): signed when an enumerator is negative. */
      for (amddwarf_die_ref c = t.first_child; amddwarf__debug_fields(object, c, &e);
           c = e.next_sibling)
        if (e.const_value.kind == AMDDWARF_ATTR_SIGNED && e.const_value.s < 0)
          return 1;
      return 0;
    }
    type = t.type;
  }
  return 0;
}

uint64_t amddwarf__debug_load_uint(const uint8_t *bytes, size_t size)
{
  uint64_t v = 0;
  for (size_t i = 0; i < size && i < 8; ++i)
    v |= (uint64_t)bytes[i] << (8 * i);
  return v;
}
