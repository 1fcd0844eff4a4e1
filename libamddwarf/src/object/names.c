/* Code objects: names of DWARF constants (tags, attributes, forms,
 * languages, base type encodings): the extension table in names.def first,
 * then libdwarf's tables. */
#include <string.h>

#include "object/internal.h"

typedef enum name_family { FAMILY_TAG, FAMILY_AT, FAMILY_FORM, FAMILY_LANG, FAMILY_ATE } name_family;

typedef struct name_row {
  name_family family;
  unsigned value;
  const char *name;
} name_row;

static const name_row extension_names[] = {
#define AMDDWARF_DW_NAME(family, value, name) {FAMILY_##family, value, name},
#include "object/names.def"
#undef AMDDWARF_DW_NAME
};
_Static_assert(sizeof extension_names / sizeof extension_names[0] == 12, "names.def row count");

static const char *lookup(name_family family, unsigned value)
{
  const char *name = NULL;
  int rc = DW_DLV_NO_ENTRY;
  for (size_t i = 0; i < sizeof extension_names / sizeof extension_names[0]; ++i)
    if (extension_names[i].family == family && extension_names[i].value == value)
      return extension_names[i].name;
  switch (family) {
  case FAMILY_TAG: rc = dwarf_get_TAG_name(value, &name); break;
  case FAMILY_AT: rc = dwarf_get_AT_name(value, &name); break;
  case FAMILY_FORM: rc = dwarf_get_FORM_name(value, &name); break;
  case FAMILY_LANG: rc = dwarf_get_LANG_name(value, &name); break;
  case FAMILY_ATE: rc = dwarf_get_ATE_name(value, &name); break;
  }
  return rc == DW_DLV_OK ? name : NULL;
}

const char *amddwarf_dw_tag_name(unsigned tag) { return lookup(FAMILY_TAG, tag); }
const char *amddwarf_dw_at_name(unsigned attribute) { return lookup(FAMILY_AT, attribute); }
const char *amddwarf_dw_form_name(unsigned form) { return lookup(FAMILY_FORM, form); }
const char *amddwarf_dw_lang_name(unsigned language) { return lookup(FAMILY_LANG, language); }
const char *amddwarf_dw_ate_name(unsigned encoding) { return lookup(FAMILY_ATE, encoding); }

static const char *const convention_names[AMDDWARF_CONVENTION_COUNT] = {"auto", "legacy",
                                                                        "extension"};

const char *amddwarf_convention_name(amddwarf_convention convention)
{
  if ((unsigned)convention >= AMDDWARF_CONVENTION_COUNT)
    return NULL;
  return convention_names[convention];
}

amddwarf_status amddwarf_convention_from_name(const char *name, amddwarf_convention *convention)
{
  for (unsigned i = 0; name != NULL && i < AMDDWARF_CONVENTION_COUNT; ++i) {
    if (strcmp(name, convention_names[i]) == 0) {
      *convention = (amddwarf_convention)i;
      return AMDDWARF_OK;
    }
  }
  return AMDDWARF_NOT_FOUND;
}
