/* Test helper: a DIE-level DWARF assembler for .debug_info and .debug_abbrev.
 *
 * Abbreviations are declared by name; codes follow the order of declaration
 * from 1. A DIE names its abbreviation and, optionally, a label; each of its
 * attribute values then names the attribute, which must be the abbreviation's
 * next one, and is encoded by the abbreviation's form. References name a
 * label and are resolved, forward or backward, by dwb_finish. Unit lengths
 * are computed when a unit ends.
 *
 *   dwb_abbrev(&w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes,
 *              DW_AT_name, DW_FORM_string, 0);
 *   dwb_abbrev(&w, "var", DW_TAG_variable, DW_CHILDREN_no,
 *              DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4, 0);
 *   dwb_unit_begin(&w, 4);
 *   dwb_die(&w, "cu", NULL);   dwb_str(&w, DW_AT_name, "a.cl");
 *   dwb_die(&w, "var", "v");   dwb_str(&w, DW_AT_name, "v");  dwb_ref(&w, DW_AT_type, "int");
 *   ...
 *   dwb_end_children(&w);      (the unit DIE's)
 *   dwb_unit_end(&w);
 *   dwb_finish(&w);            then w.abbrev and w.info hold the sections
 *
 * Constants are libdwarf's <libdwarf/dwarf.h>, independent of the library. */
#ifndef AMDDWARF_TEST_DWARF_BUILD_H
#define AMDDWARF_TEST_DWARF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/dwarf.h>

#include "byte_buf.h"

enum {
  DWB_MAX_ABBREVS = 32,
  DWB_MAX_ATTRS = 12,
  DWB_MAX_LABELS = 64,
  DWB_MAX_REFS = 64,
  DWB_MAX_DEPTH = 16,
};

typedef struct dwb_abbrev_decl {
  const char *name;
  unsigned tag;
  int children;
  size_t count;
  unsigned attribute[DWB_MAX_ATTRS];
  unsigned form[DWB_MAX_ATTRS];
} dwb_abbrev_decl;

typedef struct dwb_label {
  const char *name;
  size_t offset; /* in .debug_info */
} dwb_label;

typedef struct dwb_pending_ref {
  size_t at;         /* the field's offset in .debug_info */
  unsigned form;     /* DW_FORM_ref4 (unit-relative) or DW_FORM_ref_addr */
  size_t unit_start; /* of the referring unit */
  const char *label;
} dwb_pending_ref;

typedef struct dwb {
  byte_buf abbrev, info;
  dwb_abbrev_decl abbrevs[DWB_MAX_ABBREVS];
  size_t abbrev_count;
  dwb_label labels[DWB_MAX_LABELS];
  size_t label_count;
  dwb_pending_ref refs[DWB_MAX_REFS];
  size_t ref_count;
  /* The unit being written, and the DIE whose attributes are being written. */
  size_t unit_start;
  int in_unit;
  const dwb_abbrev_decl *die;
  size_t next_attribute;
  size_t depth; /* DIEs with children not yet ended */
} dwb;

void dwb_init(dwb *w);

/* Declares abbreviation NAME: TAG, CHILDREN (DW_CHILDREN_yes or _no), then
   attribute and form pairs ending with a 0 attribute. */
void dwb_abbrev(dwb *w, const char *name, unsigned tag, int children, ...);

/* A compile unit's header: 32-bit DWARF VERSION 4 or 5 (DW_UT_compile),
   abbreviation offset 0, address size 8. */
void dwb_unit_begin(dwb *w, unsigned version);
/* Ends the unit (every DIE with children must have been ended) and sets its
   length. */
void dwb_unit_end(dwb *w);

/* Starts a DIE of abbreviation ABBREV; LABEL (or NULL) names its offset.
   Returns the offset. */
size_t dwb_die(dwb *w, const char *abbrev, const char *label);
/* The null entry that ends the children of the innermost open DIE. */
void dwb_end_children(dwb *w);

/* Attribute values; each returns the .debug_info offset of the value's first
   byte (for a block, of its contents). dwb_u takes every integer form:
   addresses, constants, offsets, indices, and a raw value for a reference
   form (written as given, not resolved). */
size_t dwb_u(dwb *w, unsigned attribute, uint64_t value);
size_t dwb_s(dwb *w, unsigned attribute, int64_t value); /* DW_FORM_sdata */
size_t dwb_str(dwb *w, unsigned attribute, const char *s);
size_t dwb_block(dwb *w, unsigned attribute, const uint8_t *bytes, size_t n);
/* A reference to LABEL: DW_FORM_ref4 relative to the unit, DW_FORM_ref_addr
   to .debug_info. */
size_t dwb_ref(dwb *w, unsigned attribute, const char *label);

/* Ends .debug_abbrev and resolves every reference. */
void dwb_finish(dwb *w);

/* The .debug_info offset of LABEL. */
size_t dwb_offset(const dwb *w, const char *label);

/* DWARF 5 headers of .debug_loclists and .debug_rnglists (with
   OFFSET_COUNT offset entries, zero until patched) and of .debug_addr;
   address size 8. Each returns where the unit length is, for bb_length_end. */
size_t dwb_lists_header(byte_buf *b, uint32_t offset_count);
size_t dwb_addr_header(byte_buf *b);
/* Sets offset entry INDEX of the lists header at HEADER to the list at
   LIST (a .debug_loclists or .debug_rnglists offset). */
void dwb_lists_offset(byte_buf *b, size_t header, uint32_t index, size_t list);

#endif
