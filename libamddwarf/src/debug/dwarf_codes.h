/* The DWARF constants the debugger layer looks at, by name: tags of scopes,
 * types and members, base-type encodings, the languages whose arrays start
 * at 1, and the one attribute read from a DIE's raw list.
 * (Only src/object/ may include libdwarf's dwarf.h.) */
#ifndef AMDDWARF_DEBUG_DWARF_CODES_H
#define AMDDWARF_DEBUG_DWARF_CODES_H

/* DW_TAG_* (DWARF 5, table 7.3). */
typedef enum amddwarf_debug_tag {
  AMDDWARF_DEBUG_TAG_ARRAY_TYPE = 0x01,
  AMDDWARF_DEBUG_TAG_CLASS_TYPE = 0x02,
  AMDDWARF_DEBUG_TAG_ENUMERATION_TYPE = 0x04,
  AMDDWARF_DEBUG_TAG_MEMBER = 0x0d,
  AMDDWARF_DEBUG_TAG_POINTER_TYPE = 0x0f,
  AMDDWARF_DEBUG_TAG_REFERENCE_TYPE = 0x10,
  AMDDWARF_DEBUG_TAG_COMPILE_UNIT = 0x11,
  AMDDWARF_DEBUG_TAG_STRUCTURE_TYPE = 0x13,
  AMDDWARF_DEBUG_TAG_UNION_TYPE = 0x17,
  AMDDWARF_DEBUG_TAG_INHERITANCE = 0x1c,
  AMDDWARF_DEBUG_TAG_INLINED_SUBROUTINE = 0x1d,
  AMDDWARF_DEBUG_TAG_SUBRANGE_TYPE = 0x21,
  AMDDWARF_DEBUG_TAG_BASE_TYPE = 0x24,
  AMDDWARF_DEBUG_TAG_ENUMERATOR = 0x28,
  AMDDWARF_DEBUG_TAG_SUBPROGRAM = 0x2e,
  AMDDWARF_DEBUG_TAG_DWARF_PROCEDURE = 0x36,
  AMDDWARF_DEBUG_TAG_RVALUE_REFERENCE_TYPE = 0x42,
} amddwarf_debug_tag;

/* DW_ATE_* (table 7.11) beyond those of <amddwarf/target.h>. */
typedef enum amddwarf_debug_encoding {
  AMDDWARF_DEBUG_ATE_SIGNED_FIXED = 0x0d,
  AMDDWARF_DEBUG_ATE_UNSIGNED_FIXED = 0x0e,
} amddwarf_debug_encoding;

/* DW_AT_bit_offset (DWARF 2 and 3 bitfields), not in the DIE summary. */
enum { AMDDWARF_DEBUG_AT_BIT_OFFSET = 0x0c };

/* DW_LANG_* whose arrays start at 1 without DW_AT_lower_bound (table 7.17). */
typedef enum amddwarf_debug_language {
  AMDDWARF_DEBUG_LANG_ADA83 = 0x0003,
  AMDDWARF_DEBUG_LANG_COBOL74 = 0x0005,
  AMDDWARF_DEBUG_LANG_COBOL85 = 0x0006,
  AMDDWARF_DEBUG_LANG_FORTRAN77 = 0x0007,
  AMDDWARF_DEBUG_LANG_FORTRAN90 = 0x0008,
  AMDDWARF_DEBUG_LANG_PASCAL83 = 0x0009,
  AMDDWARF_DEBUG_LANG_MODULA2 = 0x000a,
  AMDDWARF_DEBUG_LANG_ADA95 = 0x000d,
  AMDDWARF_DEBUG_LANG_FORTRAN95 = 0x000e,
  AMDDWARF_DEBUG_LANG_PLI = 0x000f,
  AMDDWARF_DEBUG_LANG_FORTRAN03 = 0x0022,
  AMDDWARF_DEBUG_LANG_FORTRAN08 = 0x0023,
} amddwarf_debug_language;

#endif
