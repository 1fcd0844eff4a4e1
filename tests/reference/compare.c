/* Comparisons of evaluation results, for the tests that hold the library
 * against the reference evaluator (reference.h). */
#include <string.h>

#include "reference.h"

bool reference_same_location(const amddwarf_location *a, const amddwarf_location *b)
{
  if (a->kind != b->kind || a->bit != b->bit || a->byte_offset != b->byte_offset)
    return false;
  switch (a->kind) {
  case AMDDWARF_LOCATION_MEMORY:
    return a->u.memory.aspace == b->u.memory.aspace;
  case AMDDWARF_LOCATION_REGISTER:
    return a->u.reg.regno == b->u.reg.regno;
  case AMDDWARF_LOCATION_IMPLICIT:
    return a->u.implicit.bit_size == b->u.implicit.bit_size &&
           memcmp(a->u.implicit.bytes, b->u.implicit.bytes,
                  (size_t)((a->u.implicit.bit_size + 7) / 8)) == 0;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    return a->u.implicit_pointer.die == b->u.implicit_pointer.die &&
           a->u.implicit_pointer.displacement == b->u.implicit_pointer.displacement &&
           a->u.implicit_pointer.aspace == b->u.implicit_pointer.aspace &&
           a->u.implicit_pointer.bit_size == b->u.implicit_pointer.bit_size;
  case AMDDWARF_LOCATION_COMPOSITE:
    if (a->u.composite.count != b->u.composite.count ||
        a->u.composite.bit_size != b->u.composite.bit_size)
      return false;
    for (uint32_t i = 0; i < a->u.composite.count; i++)
      if (a->u.composite.parts[i].bit_size != b->u.composite.parts[i].bit_size ||
          !reference_same_location(&a->u.composite.parts[i].location, &b->u.composite.parts[i].location))
        return false;
    return true;
  default:
    return true;
  }
}

bool reference_same_entry(const amddwarf_entry *a, const amddwarf_entry *b)
{
  if (a->kind != b->kind)
    return false;
  if (a->kind == AMDDWARF_ENTRY_LOCATION)
    return reference_same_location(&a->location, &b->location);
  const amddwarf_value *x = &a->value, *y = &b->value;
  if (x->type.encoding != y->type.encoding || x->type.bit_size != y->type.bit_size ||
      x->type.count != y->type.count || x->type.die != y->type.die ||
      x->is_implicit_pointer != y->is_implicit_pointer)
    return false;
  if (x->is_implicit_pointer)
    return reference_same_location(&x->pointer, &y->pointer);
  size_t n = reference_amddwarf_value_size(x);
  return n == reference_amddwarf_value_size(y) &&
         memcmp(reference_amddwarf_value_bytes(x), reference_amddwarf_value_bytes(y), n) == 0;
}
