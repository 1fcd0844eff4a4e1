/* Test helper: DIE-level DWARF assembler; see dwarf_build.h. */
#include "dwarf_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

void dwb_init(dwb *w)
{
  memset(w, 0, sizeof *w);
}

void dwb_abbrev(dwb *w, const char *name, unsigned tag, int children, ...)
{
  assert_true(w->abbrev_count < DWB_MAX_ABBREVS);
  dwb_abbrev_decl *a = &w->abbrevs[w->abbrev_count++];
  a->name = name;
  a->tag = tag;
  a->children = children;
  a->count = 0;
  bb_uleb(&w->abbrev, w->abbrev_count); /* its code */
  bb_uleb(&w->abbrev, tag);
  bb_u8(&w->abbrev, (uint64_t)children);
  va_list ap;
  va_start(ap, children);
  for (unsigned attribute; (attribute = va_arg(ap, unsigned)) != 0;) {
    unsigned form = va_arg(ap, unsigned);
    assert_true(a->count < DWB_MAX_ATTRS);
    a->attribute[a->count] = attribute;
    a->form[a->count++] = form;
    bb_uleb(&w->abbrev, attribute);
    bb_uleb(&w->abbrev, form);
  }
  va_end(ap);
  bb_u8(&w->abbrev, 0);
  bb_u8(&w->abbrev, 0);
}

/* The abbreviation named NAME, and its code. */
static const dwb_abbrev_decl *find_abbrev(const dwb *w, const char *name, size_t *code)
{
  for (size_t i = 0; i < w->abbrev_count; ++i)
    if (strcmp(w->abbrevs[i].name, name) == 0) {
      *code = i + 1;
      return &w->abbrevs[i];
    }
  fail_msg("no abbreviation named %s", name);
  return NULL;
}

/* Every attribute of the previous DIE has been given a value. */
static void expect_die_complete(const dwb *w)
{
  if (w->die && w->next_attribute != w->die->count)
    fail_msg("DIE of abbreviation %s: attribute 0x%x has no value", w->die->name,
             w->die->attribute[w->next_attribute]);
}

void dwb_unit_begin(dwb *w, unsigned version)
{
  assert_false(w->in_unit);
  assert_true(version == 4 || version == 5);
  w->in_unit = 1;
  w->unit_start = bb_length_begin(&w->info);
  bb_uint(&w->info, version, 2);
  if (version == 5) {
    bb_u8(&w->info, DW_UT_compile);
    bb_u8(&w->info, 8);
    bb_uint(&w->info, 0, 4);
  } else {
    bb_uint(&w->info, 0, 4);
    bb_u8(&w->info, 8);
  }
}

void dwb_unit_end(dwb *w)
{
  assert_true(w->in_unit);
  expect_die_complete(w);
  assert_int_equal(w->depth, 0);
  bb_length_end(&w->info, w->unit_start);
  w->in_unit = 0;
  w->die = NULL;
}

size_t dwb_die(dwb *w, const char *abbrev, const char *label)
{
  assert_true(w->in_unit);
  expect_die_complete(w);
  size_t code = 0;
  const dwb_abbrev_decl *a = find_abbrev(w, abbrev, &code);
  size_t offset = w->info.len;
  if (label) {
    for (size_t i = 0; i < w->label_count; ++i)
      if (strcmp(w->labels[i].name, label) == 0)
        fail_msg("label %s defined twice", label);
    assert_true(w->label_count < DWB_MAX_LABELS);
    w->labels[w->label_count++] = (dwb_label){label, offset};
  }
  bb_uleb(&w->info, code);
  w->die = a;
  w->next_attribute = 0;
  if (a->children) {
    assert_true(w->depth < DWB_MAX_DEPTH);
    w->depth++;
  }
  return offset;
}

void dwb_end_children(dwb *w)
{
  expect_die_complete(w);
  assert_true(w->depth > 0);
  w->depth--;
  w->die = NULL;
  bb_u8(&w->info, 0);
}

/* The form of ATTRIBUTE, which must be the current DIE's next one. */
static unsigned next_form(dwb *w, unsigned attribute)
{
  if (!w->die)
    fail_msg("attribute 0x%x given outside a DIE", attribute);
  if (w->next_attribute >= w->die->count || w->die->attribute[w->next_attribute] != attribute)
    fail_msg("abbreviation %s: attribute 0x%x is not the next one", w->die->name, attribute);
  return w->die->form[w->next_attribute++];
}

size_t dwb_u(dwb *w, unsigned attribute, uint64_t value)
{
  unsigned form = next_form(w, attribute);
  byte_buf *b = &w->info;
  size_t at = b->len;
  switch (form) {
  case DW_FORM_flag_present:
    break;
  case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_addrx1:
  case DW_FORM_strx1:
    bb_uint(b, value, 1);
    break;
  case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_addrx2: case DW_FORM_strx2:
    bb_uint(b, value, 2);
    break;
  case DW_FORM_addrx3: case DW_FORM_strx3:
    bb_uint(b, value, 3);
    break;
  case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_sec_offset: case DW_FORM_ref_addr:
  case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_addrx4: case DW_FORM_strx4:
    bb_uint(b, value, 4);
    break;
  case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_addr: case DW_FORM_ref_sig8:
    bb_uint(b, value, 8);
    break;
  case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_addrx: case DW_FORM_strx:
  case DW_FORM_loclistx: case DW_FORM_rnglistx:
    bb_uleb(b, value);
    break;
  case DW_FORM_sdata:
    bb_sleb(b, (int64_t)value);
    break;
  default:
    fail_msg("abbreviation %s: form 0x%x takes no integer", w->die->name, form);
  }
  return at;
}

size_t dwb_s(dwb *w, unsigned attribute, int64_t value)
{
  unsigned form = next_form(w, attribute);
  if (form != DW_FORM_sdata)
    fail_msg("abbreviation %s: form 0x%x is not DW_FORM_sdata", w->die->name, form);
  size_t at = w->info.len;
  bb_sleb(&w->info, value);
  return at;
}

size_t dwb_str(dwb *w, unsigned attribute, const char *s)
{
  unsigned form = next_form(w, attribute);
  if (form != DW_FORM_string)
    fail_msg("abbreviation %s: form 0x%x is not DW_FORM_string", w->die->name, form);
  size_t at = w->info.len;
  bb_str(&w->info, s);
  return at;
}

size_t dwb_block(dwb *w, unsigned attribute, const uint8_t *bytes, size_t n)
{
  unsigned form = next_form(w, attribute);
  byte_buf *b = &w->info;
  switch (form) {
  case DW_FORM_exprloc: case DW_FORM_block:
    bb_uleb(b, n);
    break;
  case DW_FORM_block1:
    assert_true(n <= UINT8_MAX);
    bb_uint(b, n, 1);
    break;
  case DW_FORM_block2:
    assert_true(n <= UINT16_MAX);
    bb_uint(b, n, 2);
    break;
  case DW_FORM_block4:
    bb_uint(b, n, 4);
    break;
  default:
    fail_msg("abbreviation %s: form 0x%x is no block", w->die->name, form);
  }
  size_t at = b->len;
  bb_bytes(b, bytes, n);
  return at;
}

size_t dwb_ref(dwb *w, unsigned attribute, const char *label)
{
  unsigned form = next_form(w, attribute);
  if (form != DW_FORM_ref4 && form != DW_FORM_ref_addr)
    fail_msg("abbreviation %s: form 0x%x is not DW_FORM_ref4 or DW_FORM_ref_addr",
             w->die->name, form);
  assert_true(w->ref_count < DWB_MAX_REFS);
  size_t at = w->info.len;
  w->refs[w->ref_count++] = (dwb_pending_ref){at, form, w->unit_start, label};
  bb_uint(&w->info, 0, 4);
  return at;
}

size_t dwb_offset(const dwb *w, const char *label)
{
  for (size_t i = 0; i < w->label_count; ++i)
    if (strcmp(w->labels[i].name, label) == 0)
      return w->labels[i].offset;
  fail_msg("no DIE labelled %s", label);
  return 0;
}

void dwb_finish(dwb *w)
{
  assert_false(w->in_unit);
  bb_u8(&w->abbrev, 0);
  for (size_t i = 0; i < w->ref_count; ++i) {
    const dwb_pending_ref *r = &w->refs[i];
    size_t target = dwb_offset(w, r->label);
    bb_patch32(&w->info, r->at,
               (uint32_t)(r->form == DW_FORM_ref4 ? target - r->unit_start : target));
  }
}

static void lists_common_header(byte_buf *b)
{
  bb_uint(b, 5, 2); /* version */
  bb_u8(b, 8);      /* address size */
  bb_u8(b, 0);      /* segment selector size */
}

size_t dwb_lists_header(byte_buf *b, uint32_t offset_count)
{
  size_t at = bb_length_begin(b);
  lists_common_header(b);
  bb_uint(b, offset_count, 4);
  for (uint32_t i = 0; i < offset_count; ++i)
    bb_uint(b, 0, 4);
  return at;
}

/* Offsets are from the first byte after the header's fixed part: unit
   length (4), version (2), address and segment selector sizes, offset count
   (4). */
enum { LISTS_OFFSETS_BASE = 12 };

void dwb_lists_offset(byte_buf *b, size_t header, uint32_t index, size_t list)
{
  bb_patch32(b, header + LISTS_OFFSETS_BASE + 4 * index,
             (uint32_t)(list - (header + LISTS_OFFSETS_BASE)));
}

size_t dwb_addr_header(byte_buf *b)
{
  size_t at = bb_length_begin(b);
  lists_common_header(b);
  return at;
}
