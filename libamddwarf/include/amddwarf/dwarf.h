/* DWARF constants and their names, from the one table <amddwarf/dwarf.def>:
 * DWARF 5 with the GNU, LLVM and AMDGPU extensions (DW_AT_LLVM_lane_pc,
 * DW_LANG_LLVM_HIP, ...). Enumerators keep the standard spelling after the
 * prefix: AMDDWARF_DW_TAG_variable is DW_TAG_variable. */
#ifndef AMDDWARF_DWARF_H
#define AMDDWARF_DWARF_H

#include <stdint.h>
#include <amddwarf/export.h>

AMDDWARF_BEGIN_DECLS

/* The families of constants, one per macro of dwarf.def. */
typedef enum amddwarf_dw_family {
  AMDDWARF_DW_FAMILY_TAG,
  AMDDWARF_DW_FAMILY_AT,
  AMDDWARF_DW_FAMILY_FORM,
  AMDDWARF_DW_FAMILY_LANG,
  AMDDWARF_DW_FAMILY_ATE,
  AMDDWARF_DW_FAMILY_INL,
  AMDDWARF_DW_FAMILY_ACCESS,
  AMDDWARF_DW_FAMILY_VIS,
  AMDDWARF_DW_FAMILY_VIRTUALITY,
  AMDDWARF_DW_FAMILY_ID,
  AMDDWARF_DW_FAMILY_CC,
  AMDDWARF_DW_FAMILY_DS,
  AMDDWARF_DW_FAMILY_END,
  AMDDWARF_DW_FAMILY_ORD,
  AMDDWARF_DW_FAMILY_DEFAULTED,
  AMDDWARF_DW_FAMILY_UT,
  AMDDWARF_DW_FAMILY_LLE,
  AMDDWARF_DW_FAMILY_RLE,
  AMDDWARF_DW_FAMILY_LNS,
  AMDDWARF_DW_FAMILY_LNE,
  AMDDWARF_DW_FAMILY_LNCT,
  AMDDWARF_DW_FAMILY_COUNT
} amddwarf_dw_family;

#define AMDDWARF_DW_ENUMERATOR_(family, name, code) AMDDWARF_DW_##family##_##name = code,

typedef enum amddwarf_dw_tag {
#define AMDDWARF_DW_TAG(name, code) AMDDWARF_DW_ENUMERATOR_(TAG, name, code)
#include <amddwarf/dwarf.def>
} amddwarf_dw_tag;

typedef enum amddwarf_dw_at {
#define AMDDWARF_DW_AT(name, code) AMDDWARF_DW_ENUMERATOR_(AT, name, code)
#define AMDDWARF_DW_AT_RENUMBERED(name, code) AMDDWARF_DW_AT_##name##_old = code,
#include <amddwarf/dwarf.def>
} amddwarf_dw_at;

typedef enum amddwarf_dw_form {
#define AMDDWARF_DW_FORM(name, code) AMDDWARF_DW_ENUMERATOR_(FORM, name, code)
#include <amddwarf/dwarf.def>
} amddwarf_dw_form;

typedef enum amddwarf_dw_lang {
#define AMDDWARF_DW_LANG(name, code) AMDDWARF_DW_ENUMERATOR_(LANG, name, code)
#include <amddwarf/dwarf.def>
} amddwarf_dw_lang;

typedef enum amddwarf_dw_ate {
#define AMDDWARF_DW_ATE(name, code) AMDDWARF_DW_ENUMERATOR_(ATE, name, code)
#include <amddwarf/dwarf.def>
} amddwarf_dw_ate;

/* The smaller families share one enum: their enumerators are distinct by
   prefix, and C has no use for a type per family. */
enum {
#define AMDDWARF_DW_INL(name, code) AMDDWARF_DW_ENUMERATOR_(INL, name, code)
#define AMDDWARF_DW_ACCESS(name, code) AMDDWARF_DW_ENUMERATOR_(ACCESS, name, code)
#define AMDDWARF_DW_VIS(name, code) AMDDWARF_DW_ENUMERATOR_(VIS, name, code)
#define AMDDWARF_DW_VIRTUALITY(name, code) AMDDWARF_DW_ENUMERATOR_(VIRTUALITY, name, code)
#define AMDDWARF_DW_ID(name, code) AMDDWARF_DW_ENUMERATOR_(ID, name, code)
#define AMDDWARF_DW_CC(name, code) AMDDWARF_DW_ENUMERATOR_(CC, name, code)
#define AMDDWARF_DW_DS(name, code) AMDDWARF_DW_ENUMERATOR_(DS, name, code)
#define AMDDWARF_DW_END(name, code) AMDDWARF_DW_ENUMERATOR_(END, name, code)
#define AMDDWARF_DW_ORD(name, code) AMDDWARF_DW_ENUMERATOR_(ORD, name, code)
#define AMDDWARF_DW_DEFAULTED(name, code) AMDDWARF_DW_ENUMERATOR_(DEFAULTED, name, code)
#define AMDDWARF_DW_UT(name, code) AMDDWARF_DW_ENUMERATOR_(UT, name, code)
#define AMDDWARF_DW_LLE(name, code) AMDDWARF_DW_ENUMERATOR_(LLE, name, code)
#define AMDDWARF_DW_RLE(name, code) AMDDWARF_DW_ENUMERATOR_(RLE, name, code)
#define AMDDWARF_DW_LNS(name, code) AMDDWARF_DW_ENUMERATOR_(LNS, name, code)
#define AMDDWARF_DW_LNE(name, code) AMDDWARF_DW_ENUMERATOR_(LNE, name, code)
#define AMDDWARF_DW_LNCT(name, code) AMDDWARF_DW_ENUMERATOR_(LNCT, name, code)
#include <amddwarf/dwarf.def>
};

#undef AMDDWARF_DW_ENUMERATOR_

/* The standard name of CODE in FAMILY ("DW_TAG_variable",
   "DW_AT_LLVM_lane_pc", "DW_INL_inlined"), or NULL when the table has none.
   A static string. */
AMDDWARF_API const char *amddwarf_dw_name(amddwarf_dw_family family, uint64_t code);

/* The name of VALUE of the constant attribute ATTRIBUTE when dwarf.def says
   which family names its values (DW_AT_language 0x15 -> "DW_LANG_OpenCL",
   DW_AT_inline 1 -> "DW_INL_inlined"); NULL for any other attribute or a
   value the family does not name. A static string. */
AMDDWARF_API const char *amddwarf_dw_value_name(unsigned attribute, uint64_t value);

/* Whether dwarf.def names the values of ATTRIBUTE: 1 with *FAMILY (when
   FAMILY is not NULL) set to the family that names them, else 0. */
AMDDWARF_API int amddwarf_dw_value_family(unsigned attribute, amddwarf_dw_family *family);

/* Shorthands of amddwarf_dw_name for the common families. */
AMDDWARF_API const char *amddwarf_dw_tag_name(unsigned tag);
AMDDWARF_API const char *amddwarf_dw_at_name(unsigned attribute);
AMDDWARF_API const char *amddwarf_dw_form_name(unsigned form);
AMDDWARF_API const char *amddwarf_dw_lang_name(unsigned language);
AMDDWARF_API const char *amddwarf_dw_ate_name(unsigned encoding);

AMDDWARF_END_DECLS

#endif
