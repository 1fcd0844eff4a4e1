/* Unit tests of DIE references (src/object/die_index.c, scope_refs.c): the
 * links, look-ups and attributes of every DIE against its summary, the
 * scopes and variables at PCs against amddwarf_object_scopes_at and
 * _vars_at (location lists, range lists, abstract origins), and what a
 * reference that the object did not hand out gets, and indexes built from
 * several threads at once (run under TSan).
 *
 * Objects are assembled in memory (support/object_fixture.h, dwarf_build.h). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object_fixture.h"

static uint8_t image[TEST_IMAGE_SIZE];

static uint64_t offset_or_none(const amddwarf_die_info *d)
{
  return d != NULL ? d->offset : 0;
}

typedef struct attr_list {
  amddwarf_attribute items[32];
  size_t count;
} attr_list;

static int collect_attr(void *user, const amddwarf_attribute *a)
{
  attr_list *l = user;
  assert_true(l->count < 32);
  l->items[l->count++] = *a;
  return 0;
}

/* The attributes of a DIE through its reference and through its summary:
   the same values, references by target offset, lists by form and value. */
static void expect_same_attributes(amddwarf_object *o, amddwarf_die_ref ref,
                                   const amddwarf_die_info *d)
{
  static attr_list by_ref, by_summary;
  amddwarf_error err;
  by_ref.count = by_summary.count = 0;
  assert_int_equal(amddwarf_object_die_ref_attributes(o, ref, collect_attr, &by_ref, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_attributes(o, d, collect_attr, &by_summary, &err),
                   AMDDWARF_OK);
  assert_int_equal(by_ref.count, by_summary.count);
  for (size_t k = 0; k < by_ref.count; ++k) {
    const amddwarf_attribute *r = &by_ref.items[k], *s = &by_summary.items[k];
    assert_int_equal(r->attribute, s->attribute);
    assert_int_equal(r->form, s->form);
    assert_int_equal(r->value.kind, s->value.kind);
    assert_int_equal(r->value.offset, s->value.offset);
    if (r->value.kind == AMDDWARF_ATTR_REF) {
      assert_null(r->value.ref);
      assert_int_equal(s->value.ref->offset, r->value.offset);
    } else if (r->value.kind == AMDDWARF_ATTR_LIST) {
      assert_null(r->value.entries);
    } else {
      assert_int_equal(r->value.u, s->value.u);
      assert_ptr_equal(r->value.bytes, s->value.bytes);
      assert_int_equal(r->value.size, s->value.size);
      assert_ptr_equal(r->value.string, s->value.string);
    }
    amddwarf_attribute one;
    assert_int_equal(amddwarf_object_die_attribute(o, ref, r->attribute, 0, &one, &err),
                     AMDDWARF_OK);
    assert_int_equal(one.value.kind, r->value.kind);
  }
}

/* Every DIE's reference against its summary. */
static void expect_refs_match_summaries(amddwarf_object *o)
{
  amddwarf_error err;
  for (size_t i = 0; i < amddwarf_object_die_count(o); ++i) {
    const amddwarf_die_info *d = amddwarf_object_die(o, i);
    amddwarf_die_ref ref, again;
    amddwarf_die_links links;
    assert_non_null(d);
    assert_int_equal(amddwarf_object_die_ref(o, i, &ref, &err), AMDDWARF_OK);
    assert_int_equal(ref.offset, d->offset);
    assert_int_equal(ref.cu_index, d->cu_index);
    assert_int_equal(amddwarf_object_cu(o, ref.cu_index)->first_die + ref.index, i);
    assert_int_equal(amddwarf_object_die_ref_at(o, d->offset, &again, &err), AMDDWARF_OK);
    assert_memory_equal(&again, &ref, sizeof ref);
    assert_int_equal(amddwarf_object_die_ref_at(o, d->offset + 1, &again, &err),
                     AMDDWARF_NOT_FOUND); /* no DIE is one byte long */
    assert_false(amddwarf_die_ref_valid(again));
    assert_int_equal(amddwarf_object_die_links(o, ref, &links, &err), AMDDWARF_OK);
    assert_int_equal(links.tag, d->tag);
    assert_int_equal(links.depth, d->depth);
    assert_int_equal(links.parent.offset, offset_or_none(d->parent));
    assert_int_equal(links.first_child.offset, offset_or_none(d->first_child));
    assert_int_equal(links.next_sibling.offset, offset_or_none(d->next_sibling));
    expect_same_attributes(o, ref, d);
  }
  amddwarf_die_ref none;
  assert_int_equal(amddwarf_object_die_ref(o, amddwarf_object_die_count(o), &none, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_object_die_ref_at(o, 0, &none, &err), AMDDWARF_NOT_FOUND);
}

/* The scopes and variables at PC through references against the summaries'. */
static void expect_vars_match(amddwarf_object *o, uint64_t pc, size_t expected_count)
{
  const amddwarf_die_info *scopes[16];
  amddwarf_die_ref scope_refs[16];
  amddwarf_var vars[16];
  amddwarf_var_ref refs[16];
  size_t depth = 0, ref_depth = 0, count = 0, ref_count = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_scopes_at(o, pc, scopes, 16, &depth), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_scope_refs_at(o, pc, scope_refs, 16, &ref_depth, &err),
                   AMDDWARF_OK);
  assert_int_equal(ref_depth, depth);
  for (size_t i = 0; i < depth; ++i)
    assert_int_equal(scope_refs[i].offset, scopes[i]->offset);
  assert_int_equal(amddwarf_object_vars_at(o, pc, vars, 16, &count), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_var_refs_at(o, pc, refs, 16, &ref_count, &err), AMDDWARF_OK);
  assert_int_equal(count, expected_count);
  assert_int_equal(ref_count, count);
  for (size_t i = 0; i < count; ++i) {
    assert_int_equal(refs[i].die.offset, vars[i].die->offset);
    assert_int_equal(refs[i].scope.offset, vars[i].scope->offset);
    assert_int_equal(refs[i].depth, vars[i].depth);
    assert_int_equal(refs[i].available, vars[i].available);
    assert_int_equal(refs[i].from_list, vars[i].entry != NULL);
    if (vars[i].available) {
      assert_ptr_equal(refs[i].expr, vars[i].expr);
      assert_int_equal(refs[i].size, vars[i].size);
    }
    if (vars[i].entry != NULL) {
      assert_int_equal(refs[i].entry.low, vars[i].entry->low);
      assert_int_equal(refs[i].entry.high, vars[i].entry->high);
      assert_int_equal(refs[i].entry.is_default, vars[i].entry->is_default);
    }
  }
}

/* The DWARF 5 sample: x by loclistx (an offset pair, a startx_endx pair and
   a default entry), y by a list offset, z in a block of two ranges. */
static void test_sample_refs_and_vars(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  amddwarf_error err;
  /* Before any summary: the variables at 0x1084 are z, x, y, then the
     units' globals, read from the subprogram's DIEs. */
  amddwarf_var_ref refs[8];
  size_t count = 0;
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x1084, refs, 8, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 3);
  assert_int_equal(refs[0].die.offset, d.off_z);
  assert_int_equal(refs[0].scope.offset, d.off_block);
  assert_int_equal(refs[0].depth, 0);
  assert_int_equal(refs[1].die.offset, d.off_x);
  assert_int_equal(refs[1].depth, 1);
  assert_true(refs[1].from_list);
  assert_int_equal(refs[1].entry.low, 0x1000); /* startx_endx 0..2 */
  assert_int_equal(refs[1].entry.high, 0x1200);
  assert_int_equal(refs[1].expr[0], 0x51);    /* DW_OP_reg1 */
  assert_int_equal(refs[2].die.offset, d.off_y);
  assert_false(refs[2].available);
  /* The capacity limits what is written, not the count. */
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x1084, refs, 1, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 3);
  /* Outside every subprogram. */
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x10, refs, 8, &count, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(count, 0);
  expect_vars_match(o, 0x1084, 3);  /* in the block's second range */
  expect_vars_match(o, 0x1050, 2);  /* between the block's ranges */
  expect_vars_match(o, 0x1118, 2);  /* x by its offset pair 0x1110-0x1120 */
  expect_vars_match(o, 0x11ff, 2);
  expect_refs_match_summaries(o);
  /* Attributes: the subprogram's name; a list as its form and raw value. */
  amddwarf_die_ref sub, x;
  amddwarf_attribute a;
  assert_int_equal(amddwarf_object_die_ref_at(o, d.off_sub, &sub, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_attribute(o, sub, DW_AT_name, 0, &a, &err), AMDDWARF_OK);
  assert_string_equal(a.value.string, "kern");
  assert_int_equal(amddwarf_object_die_attribute(o, sub, DW_AT_byte_size, 0, &a, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_object_die_ref_at(o, d.off_x, &x, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_attribute(o, x, DW_AT_location, 0, &a, &err), AMDDWARF_OK);
  assert_int_equal(a.value.kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(a.form, DW_FORM_loclistx);
  assert_int_equal(a.value.u, 0);
  assert_int_equal(a.value.offset, d.list_x);
  /* A reference the object did not hand out. */
  amddwarf_die_ref forged = x;
  forged.offset += 1;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_die_attribute(o, forged, DW_AT_name, 0, &a, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "no DIE of this object"));
  amddwarf_die_links links;
  forged = x;
  forged.cu_index = 7;
  assert_int_equal(amddwarf_object_die_links(o, forged, &links, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_object_close(o);
}

/* A DWARF 4 unit: subprogram f (0x1000-0x1100) with variable "a" (DW_OP_reg5),
   "b" with only DW_AT_abstract_origin a, "c" with the origin a and a
   DW_AT_const_value, and "d", whose origin "e" (a unit variable with a
   location) is later in the unit; the unit's variable "e". BAD_ORIGIN, when
   non-zero, replaces b's origin (the unit starts at 0: the offset as given);
   PAD puts a padding byte before the unit DIE. */
typedef struct origin_unit {
  dwb dies;
  size_t off_cu, off_f, off_a, off_b, off_c, off_d, off_e;
} origin_unit;

static size_t build_origin_object(origin_unit *d, uint32_t bad_origin, int pad)
{
  static const uint8_t reg5[] = {0x55}, addr_e[] = {0x03, 0, 0x20, 0, 0, 0, 0, 0, 0};
  memset(d, 0, sizeof *d);
  dwb *w = &d->dies;
  dwb_init(w);
  dwb_abbrev(w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string, 0);
  dwb_abbrev(w, "subprogram", DW_TAG_subprogram, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4, 0);
  dwb_abbrev(w, "variable", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_location, DW_FORM_exprloc, 0);
  dwb_abbrev(w, "from_origin", DW_TAG_variable, DW_CHILDREN_no, DW_AT_abstract_origin,
             DW_FORM_ref4, 0);
  dwb_abbrev(w, "constant_from_origin", DW_TAG_variable, DW_CHILDREN_no, DW_AT_abstract_origin,
             DW_FORM_ref4, DW_AT_const_value, DW_FORM_data1, 0);
  dwb_unit_begin(w, 4);
  if (pad)
    bb_u8(&w->info, 0);
  dwb_die(w, "cu", "cu");
  dwb_str(w, DW_AT_name, "o.cl");
  dwb_die(w, "subprogram", "f");
  dwb_str(w, DW_AT_name, "f");
  dwb_u(w, DW_AT_low_pc, 0x1000);
  dwb_u(w, DW_AT_high_pc, 0x100);
  dwb_die(w, "variable", "a");
  dwb_str(w, DW_AT_name, "a");
  dwb_block(w, DW_AT_location, reg5, sizeof reg5);
  dwb_die(w, "from_origin", "b");
  if (bad_origin)
    dwb_u(w, DW_AT_abstract_origin, bad_origin);
  else
    dwb_ref(w, DW_AT_abstract_origin, "a");
  dwb_die(w, "constant_from_origin", "c");
  dwb_ref(w, DW_AT_abstract_origin, "a");
  dwb_u(w, DW_AT_const_value, 7);
  dwb_die(w, "from_origin", "d");
  dwb_ref(w, DW_AT_abstract_origin, "e");
  dwb_end_children(w); /* subprogram */
  dwb_die(w, "variable", "e");
  dwb_str(w, DW_AT_name, "e");
  dwb_block(w, DW_AT_location, addr_e, sizeof addr_e);
  dwb_end_children(w); /* unit */
  dwb_unit_end(w);
  dwb_finish(w);
  d->off_cu = dwb_offset(w, "cu");
  d->off_f = dwb_offset(w, "f");
  d->off_a = dwb_offset(w, "a");
  d->off_b = dwb_offset(w, "b");
  d->off_c = dwb_offset(w, "c");
  d->off_d = dwb_offset(w, "d");
  d->off_e = dwb_offset(w, "e");
  elf_sec s[] = {
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &d->dies.abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &d->dies.info),
  };
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 3, 0x2c};
  return elf_build(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_origins(void **state)
{
  (void)state;
  static origin_unit d;
  size_t n = build_origin_object(&d, 0, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  amddwarf_var_ref refs[8];
  size_t count = 0;
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x1010, refs, 8, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 5); /* a b c d in f, then e */
  assert_int_equal(refs[0].die.offset, d.off_a);
  assert_int_equal(refs[1].die.offset, d.off_b);
  assert_true(refs[1].available);         /* a's location */
  assert_ptr_equal(refs[1].expr, refs[0].expr);
  assert_int_equal(refs[2].die.offset, d.off_c);
  assert_false(refs[2].available);        /* a constant: no location of the origin */
  assert_int_equal(refs[3].die.offset, d.off_d);
  assert_true(refs[3].available);         /* e's DW_OP_addr, e later in the unit */
  assert_int_equal(refs[3].expr[0], 0x03);
  assert_int_equal(refs[4].die.offset, d.off_e);
  assert_int_equal(refs[4].depth, 1);
  assert_ptr_equal(refs[4].expr, refs[3].expr);
  expect_vars_match(o, 0x1010, 5);
  /* The name through the origin, as the summary inherits it. */
  amddwarf_die_ref b;
  amddwarf_attribute a;
  assert_int_equal(amddwarf_object_die_ref_at(o, d.off_b, &b, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_attribute(o, b, DW_AT_name, 0, &a, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_object_die_attribute(o, b, DW_AT_name,
                                                 AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &a, &err),
                   AMDDWARF_OK);
  assert_string_equal(a.value.string, "a");
  assert_string_equal(amddwarf_object_die_at(o, d.off_b)->name, "a");
  /* The origin reference itself: REF with the target's offset. */
  assert_int_equal(amddwarf_object_die_attribute(o, b, DW_AT_abstract_origin, 0, &a, &err),
                   AMDDWARF_OK);
  assert_int_equal(a.value.kind, AMDDWARF_ATTR_REF);
  assert_int_equal(a.value.offset, d.off_a);
  /* The accessors: a string through the origin, a reference of DIE itself. */
  assert_string_equal(amddwarf_object_die_string(o, b, DW_AT_name), "a");
  assert_null(amddwarf_object_die_string(o, b, DW_AT_abstract_origin)); /* not a string */
  assert_int_equal(amddwarf_object_die_reference(o, b, DW_AT_abstract_origin).offset, d.off_a);
  amddwarf_die_ref none = amddwarf_object_die_reference(o, b, DW_AT_specification);
  assert_false(amddwarf_die_ref_valid(none));
  expect_refs_match_summaries(o);
  amddwarf_object_close(o);
}

/* A unit whose summaries cannot be made (a reference to where no DIE
   starts) still has references: they check no reference until one is
   followed, and following that one says why. */
static void test_refs_of_a_unit_that_cannot_load(void **state)
{
  (void)state;
  static origin_unit d;
  build_origin_object(&d, 0, 0);
  uint32_t bad = (uint32_t)(d.off_a + 2); /* b's origin: inside a's name */
  size_t n = build_origin_object(&d, bad, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_int_equal(amddwarf_object_index_unit(o, 0, &err), AMDDWARF_OK);
  amddwarf_die_ref b;
  amddwarf_attribute a;
  assert_int_equal(amddwarf_object_die_ref_at(o, d.off_b, &b, &err), AMDDWARF_OK);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_die_attribute(o, b, DW_AT_name,
                                                 AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &a, &err),
                   AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_int_equal(err.offset, bad);
  amddwarf_var_ref refs[8];
  size_t count = 0;
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x1010, refs, 8, &count, &err),
                   AMDDWARF_E_OBJECT_BAD_REFERENCE);
  /* Past the capacity a variable is counted, not read (nor its origin). */
  assert_int_equal(amddwarf_object_var_refs_at(o, 0x1010, refs, 1, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 5);
  assert_int_equal(refs[0].die.offset, d.off_a);
  amddwarf_object_close(o);
}

/* Padding before the unit DIE: the unit's scope is the DIE after it. */
static void test_padding_before_the_unit_die(void **state)
{
  (void)state;
  static origin_unit d;
  size_t n = build_origin_object(&d, 0, 1);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu(o, 0)->die_offset, d.off_cu);
  amddwarf_die_ref scopes[4];
  amddwarf_die_links links;
  size_t depth = 0;
  assert_int_equal(amddwarf_object_scope_refs_at(o, 0x1010, scopes, 4, &depth, &err),
                   AMDDWARF_OK);
  assert_int_equal(depth, 2);
  assert_int_equal(scopes[1].offset, d.off_cu);
  assert_int_equal(amddwarf_object_die_links(o, scopes[1], &links, &err), AMDDWARF_OK);
  assert_int_equal(links.tag, DW_TAG_compile_unit);
  expect_vars_match(o, 0x1010, 5);
  expect_refs_match_summaries(o);
  amddwarf_object_close(o);
}

/* A list attribute the summaries do not read, by an index into a table the
   object does not have: still listed, with its index. */
static void test_unresolvable_list_index_is_listed(void **state)
{
  (void)state;
  static dwb w;
  dwb_init(&w);
  dwb_abbrev(&w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string, 0);
  dwb_abbrev(&w, "string", DW_TAG_variable, DW_CHILDREN_no, DW_AT_string_length,
             DW_FORM_loclistx, DW_AT_name, DW_FORM_string, 0);
  dwb_unit_begin(&w, 5);
  dwb_die(&w, "cu", NULL);
  dwb_str(&w, DW_AT_name, "s.cl");
  dwb_die(&w, "string", "s");
  dwb_u(&w, DW_AT_string_length, 3);
  dwb_str(&w, DW_AT_name, "s");
  dwb_end_children(&w);
  dwb_unit_end(&w);
  dwb_finish(&w);
  elf_sec s[] = {
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &w.abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &w.info),
  };
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 3, 0x2c};
  size_t n = elf_build(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  amddwarf_die_ref ref;
  amddwarf_attribute a;
  assert_int_equal(amddwarf_object_die_ref_at(o, dwb_offset(&w, "s"), &ref, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_attribute(o, ref, DW_AT_name, 0, &a, &err), AMDDWARF_OK);
  assert_string_equal(a.value.string, "s");
  assert_int_equal(amddwarf_object_die_attribute(o, ref, DW_AT_string_length, 0, &a, &err),
                   AMDDWARF_OK);
  assert_int_equal(a.value.kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(a.value.offset, 3);
  expect_refs_match_summaries(o);
  amddwarf_object_close(o);
}

/* What one thread saw of a fresh object: every DIE's reference and the
   C spelling of its type (through amddwarf_object_die_fields and the type
   helpers), and the variables at a PC of each unit. */
typedef struct ref_walk {
  const amddwarf_object *object;
  uint64_t pcs[2];
  amddwarf_die_ref refs[32];
  char type_names[32][64];
  size_t var_counts[2];
  uint64_t first_var[2];
  amddwarf_status loaded[2];     /* amddwarf_object_load_unit of each unit */
  size_t problems;               /* amddwarf_object_check's count */
} ref_walk;

static int ignore_problem(void *user, const amddwarf_check_problem *problem)
{
  (void)user;
  (void)problem;
  return 0;
}

static void *walk_refs(void *arg)
{
  ref_walk *w = arg;
  amddwarf_error err;
  /* Each unit checked on DIE references, from the last one, while the
     other threads read the same units' indexes. */
  for (size_t u = amddwarf_object_cu_count(w->object); u-- > 0 && u < 2;)
    w->loaded[u] = amddwarf_object_load_unit(w->object, u, &err);
  w->problems = SIZE_MAX;
  amddwarf_object_check(w->object, ignore_problem, NULL, &w->problems, &err);
  for (size_t i = amddwarf_object_die_count(w->object); i-- > 0;) { /* from the last unit */
    amddwarf_die_links links;
    amddwarf_die_fields fields;
    amddwarf_object_die_ref(w->object, i, &w->refs[i], &err);
    amddwarf_object_die_links(w->object, w->refs[i], &links, &err);
    if (amddwarf_object_die_fields(w->object, w->refs[i], &fields, &err) == AMDDWARF_OK)
      amddwarf_type_name(w->object, fields.type, w->type_names[i], sizeof w->type_names[i], NULL);
  }
  for (int p = 0; p < 2; ++p) {
    amddwarf_var_ref vars[8];
    w->var_counts[p] = 0;
    if (amddwarf_object_var_refs_at(w->object, w->pcs[p], vars, 8, &w->var_counts[p], &err) ==
            AMDDWARF_OK &&
        w->var_counts[p] > 0)
      w->first_var[p] = vars[0].die.offset;
  }
  return NULL;
}

static void test_refs_from_threads(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  size_t dies = amddwarf_object_die_count(o);
  assert_true(dies <= 32);
  static ref_walk walks[4];
  pthread_t threads[4];
  for (int t = 0; t < 4; ++t) {
    memset(&walks[t], 0, sizeof walks[t]);
    walks[t].object = o;
    walks[t].pcs[0] = 0x1084;
    walks[t].pcs[1] = 0x1050;
    assert_int_equal(pthread_create(&threads[t], NULL, walk_refs, &walks[t]), 0);
  }
  for (int t = 0; t < 4; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  /* Loading and checking made no DIE summary. */
  assert_int_equal(amddwarf_object_summarized_units(o), 0);
  for (int t = 0; t < 4; ++t) {
    assert_int_equal(amddwarf_object_cu_count(o), 2);
    assert_int_equal(walks[t].loaded[0], AMDDWARF_OK);
    assert_int_equal(walks[t].loaded[1], AMDDWARF_OK);
    /* One list overlap, two reserved registers, one wave32 register
       (test_object_check.c reads the same sample). */
    assert_int_equal(walks[t].problems, 4);
    for (size_t i = 0; i < dies; ++i) {
      char type[64];
      assert_int_equal(walks[t].refs[i].offset, amddwarf_object_die(o, i)->offset);
      amddwarf_die_fields fields;
      assert_int_equal(amddwarf_object_die_fields(o, walks[t].refs[i], &fields, NULL),
                       AMDDWARF_OK);
      amddwarf_type_name(o, fields.type, type, sizeof type, NULL);
      assert_string_equal(walks[t].type_names[i], type);
    }
    assert_int_equal(walks[t].var_counts[0], 3);
    assert_int_equal(walks[t].first_var[0], d.off_z);
    assert_int_equal(walks[t].var_counts[1], 2);
    assert_int_equal(walks[t].first_var[1], d.off_x);
  }
  amddwarf_object_close(o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sample_refs_and_vars),
      cmocka_unit_test(test_origins),
      cmocka_unit_test(test_refs_of_a_unit_that_cannot_load),
      cmocka_unit_test(test_refs_from_threads),
      cmocka_unit_test(test_padding_before_the_unit_die),
      cmocka_unit_test(test_unresolvable_list_index_is_listed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
