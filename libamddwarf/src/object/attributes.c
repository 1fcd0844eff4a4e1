/* What an attribute's number says of its value: the location attributes and
 * which of them the library evaluates (attribute_class.def), and when 0x3e08
 * is the active-lane attribute. One table for the native reader, the
 * libdwarf reader, a unit's check, the summaries and `dump`. */
#include "object/internal.h"

enum { CLASS_LOCATION = 1, CLASS_EVALUATED = 2 };

static unsigned attribute_class(unsigned at)
{
  switch (at) {
#define ATTRIBUTE_CLASS(code, evaluated)                                                          \
  case code: return CLASS_LOCATION | ((evaluated) ? CLASS_EVALUATED : 0);
#include "object/attribute_class.def"
#undef ATTRIBUTE_CLASS
  default: return 0;
  }
}

bool amddwarf__object_is_location_attribute(unsigned at)
{
  return (attribute_class(at) & CLASS_LOCATION) != 0;
}

int amddwarf_object_attribute_is_evaluated(unsigned at)
{
  return (attribute_class(at) & CLASS_EVALUATED) != 0;
}

bool amddwarf__is_active_lane_attribute(const amddwarf_attribute *a)
{
  return a->attribute == AMDDWARF_DW_AT_LLVM_active_lane &&
         (a->value.kind == AMDDWARF_ATTR_EXPR || a->value.kind == AMDDWARF_ATTR_LIST);
}
