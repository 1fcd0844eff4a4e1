/* Names of DWARF constants and of the conventions. The constants' names
 * come from the one table <amddwarf/dwarf.def>. */
#include <string.h>

#include <amddwarf/dwarf.h>

#include "object/internal.h"

typedef struct name_row {
  uint8_t family; /* amddwarf_dw_family */
  uint16_t code;
  const char *name;
} name_row;

#define ROW_(family, name, code) {AMDDWARF_DW_FAMILY_##family, code, "DW_" #family "_" #name},
static const name_row dw_names[] = {
#define AMDDWARF_DW_TAG(name, code) ROW_(TAG, name, code)
#define AMDDWARF_DW_AT(name, code) ROW_(AT, name, code)
#define AMDDWARF_DW_AT_RENUMBERED(name, code) ROW_(AT, name, code)
#define AMDDWARF_DW_FORM(name, code) ROW_(FORM, name, code)
#define AMDDWARF_DW_LANG(name, code) ROW_(LANG, name, code)
#define AMDDWARF_DW_ATE(name, code) ROW_(ATE, name, code)
#define AMDDWARF_DW_INL(name, code) ROW_(INL, name, code)
#define AMDDWARF_DW_ACCESS(name, code) ROW_(ACCESS, name, code)
#define AMDDWARF_DW_VIS(name, code) ROW_(VIS, name, code)
#define AMDDWARF_DW_VIRTUALITY(name, code) ROW_(VIRTUALITY, name, code)
#define AMDDWARF_DW_ID(name, code) ROW_(ID, name, code)
#define AMDDWARF_DW_CC(name, code) ROW_(CC, name, code)
#define AMDDWARF_DW_DS(name, code) ROW_(DS, name, code)
#define AMDDWARF_DW_END(name, code) ROW_(END, name, code)
#define AMDDWARF_DW_ORD(name, code) ROW_(ORD, name, code)
#define AMDDWARF_DW_DEFAULTED(name, code) ROW_(DEFAULTED, name, code)
#define AMDDWARF_DW_UT(name, code) ROW_(UT, name, code)
#define AMDDWARF_DW_LLE(name, code) ROW_(LLE, name, code)
#define AMDDWARF_DW_RLE(name, code) ROW_(RLE, name, code)
#define AMDDWARF_DW_LNS(name, code) ROW_(LNS, name, code)
#define AMDDWARF_DW_LNE(name, code) ROW_(LNE, name, code)
#define AMDDWARF_DW_LNCT(name, code) ROW_(LNCT, name, code)
#include <amddwarf/dwarf.def>
};
#undef ROW_

/* Which family names the values of an attribute. */
static const struct {
  uint16_t attribute;
  uint8_t family;
} value_families[] = {
#define AMDDWARF_DW_AT_VALUES(attribute, family) \
  {AMDDWARF_DW_AT_##attribute, AMDDWARF_DW_FAMILY_##family},
#include <amddwarf/dwarf.def>
};

/* A linear scan: the table has about 600 rows and names are printed, not
   looked up in hot loops. */
const char *amddwarf_dw_name(amddwarf_dw_family family, uint64_t code)
{
  for (size_t i = 0; i < sizeof dw_names / sizeof dw_names[0]; ++i)
    if (dw_names[i].family == family && dw_names[i].code == code)
      return dw_names[i].name;
  return NULL;
}

int amddwarf_dw_value_family(unsigned attribute, amddwarf_dw_family *family)
{
  for (size_t i = 0; i < sizeof value_families / sizeof value_families[0]; ++i) {
    if (value_families[i].attribute == attribute) {
      if (family != NULL)
        *family = (amddwarf_dw_family)value_families[i].family;
      return 1;
    }
  }
  return 0;
}

const char *amddwarf_dw_value_name(unsigned attribute, uint64_t value)
{
  amddwarf_dw_family family;
  return amddwarf_dw_value_family(attribute, &family) ? amddwarf_dw_name(family, value) : NULL;
}

const char *amddwarf_dw_tag_name(unsigned tag) { return amddwarf_dw_name(AMDDWARF_DW_FAMILY_TAG, tag); }
const char *amddwarf_dw_at_name(unsigned attribute) { return amddwarf_dw_name(AMDDWARF_DW_FAMILY_AT, attribute); }
const char *amddwarf_dw_form_name(unsigned form) { return amddwarf_dw_name(AMDDWARF_DW_FAMILY_FORM, form); }
const char *amddwarf_dw_lang_name(unsigned language) { return amddwarf_dw_name(AMDDWARF_DW_FAMILY_LANG, language); }
const char *amddwarf_dw_ate_name(unsigned encoding) { return amddwarf_dw_name(AMDDWARF_DW_FAMILY_ATE, encoding); }

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
