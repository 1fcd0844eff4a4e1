/* Unit tests of src/object's DWARF side: DWARF 5 units with every DW_LLE
 * kind, range lists, types, scopes, the line program, conventions and the
 * normalized expressions, both attribute readers, references between DIEs,
 * and units loaded on first use (from several threads: run under TSan).
 *
 * Objects are assembled in memory (support/object_fixture.h, dwarf_build.h);
 * every expected value is derived from what is written there. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object_fixture.h"

static uint8_t image[TEST_IMAGE_SIZE];

/* ---- the DWARF 5 sample: lists, types, scopes, lines, conventions ---- */

static void test_loclists_every_kind(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  const amddwarf_die_info *x = amddwarf_object_die_at(o, d.off_x);
  assert_non_null(x);
  assert_string_equal(x->name, "x");
  assert_non_null(x->location);
  assert_int_equal(x->location->kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(x->location->count, 4);
  const amddwarf_loc_entry *e = x->location->entries;
  assert_int_equal(e[0].kind, 4);
  assert_int_equal(e[0].low, 0x1110);
  assert_int_equal(e[0].high, 0x1120);
  assert_int_equal(e[0].expr[0], 0x50);
  assert_int_equal(e[1].kind, 2);
  assert_int_equal(e[1].low, 0x1000);
  assert_int_equal(e[1].high, 0x1200);
  assert_int_equal(e[2].kind, 3);
  assert_int_equal(e[2].low, 0x1300);
  assert_int_equal(e[2].high, 0x1308);
  assert_int_equal(e[3].kind, 5);
  assert_true(e[3].is_default);
  assert_int_equal(e[3].size, 2);
  /* The entry that applies at a PC: first match, else the default. */
  const uint8_t *bytes;
  size_t size;
  const amddwarf_loc_entry *used;
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x1118, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[0]);
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x1304, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[2]);
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x9000, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[3]);
  assert_int_equal(bytes[0], 0x31);

  const amddwarf_die_info *y = amddwarf_object_die_at(o, d.off_y);
  assert_int_equal(y->location->kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(y->location->offset, d.list_y);
  assert_int_equal(y->location->count, 3);
  e = y->location->entries;
  assert_int_equal(e[0].low, 0x2000);
  assert_int_equal(e[0].high, 0x2004);
  assert_int_equal(e[1].kind, 7);
  assert_int_equal(e[1].low, 0x3000);
  assert_int_equal(e[1].high, 0x3010);
  assert_int_equal(e[2].kind, 8);
  assert_int_equal(e[2].low, 0x4000);
  assert_int_equal(e[2].high, 0x4020);
  assert_int_equal(e[2].size, 0);
  assert_int_equal(amddwarf_attr_value_expr_at(y->location, 0x2004, &bytes, &size, &used),
                   AMDDWARF_NOT_FOUND);
  amddwarf_object_close(o);
}

/* The DIE at OFFSET of O, through its reference. */
static amddwarf_die_ref ref_at(const amddwarf_object *o, uint64_t offset)
{
  amddwarf_die_ref ref;
  assert_int_equal(amddwarf_object_die_ref_at(o, offset, &ref, NULL), AMDDWARF_OK);
  return ref;
}

static void test_types(void **state)
{
  (void)state;
  static dwarf5_sample d;
  size_t n = dwarf5_sample_object(&d, image, sizeof image);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  char name[128];
  uint64_t size = 0;
  amddwarf_die_fields f;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  amddwarf_die_ref ptr = ref_at(o, d.off_ptr);
  assert_int_equal(amddwarf_object_die_fields(o, ptr, &f, &err), AMDDWARF_OK);
  assert_int_equal(f.tag, 0x0f);
  assert_true(f.flags & AMDDWARF_DIE_HAS_ADDRESS_CLASS);
  assert_int_equal(f.address_class, 2);
  assert_int_equal(amddwarf_type_name(o, ptr, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "const S *");
  /* Address class 2 of a legacy unit is local (LDS): 4-byte pointers. */
  assert_int_equal(amddwarf_type_pointer_aspace(o, ptr), AMDDWARF_ASPACE_AMDGPU_LOCAL);
  assert_int_equal(amddwarf_type_byte_size(o, ptr, &size), AMDDWARF_OK);
  assert_int_equal(size, 4);
  amddwarf_die_ref st = ref_at(o, d.off_struct);
  assert_int_equal(amddwarf_type_byte_size(o, st, &size), AMDDWARF_OK);
  assert_int_equal(size, 8);
  /* The second member, b, at byte 4. */
  assert_int_equal(amddwarf_object_die_fields(o, st, &f, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_fields(o, f.first_child, &f, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_fields(o, f.next_sibling, &f, &err), AMDDWARF_OK);
  assert_string_equal(f.name, "b");
  assert_int_equal(f.data_member_location.kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(f.data_member_location.u, 4);
  /* int[2][3]: count 2, upper bound 2 */
  amddwarf_die_ref arr = ref_at(o, d.off_arr);
  amddwarf_array_dim dims[4];
  assert_int_equal(amddwarf_type_name(o, arr, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "int[2][3]");
  assert_int_equal(amddwarf_type_byte_size(o, arr, &size), AMDDWARF_OK);
  assert_int_equal(size, 24);
  assert_int_equal(amddwarf_type_array_dims(o, arr, dims, 4), 2);
  assert_int_equal(dims[0].count, 2);
  assert_int_equal(dims[1].count, 3);
  assert_int_equal(dims[1].lower, 0);
  assert_true(dims[0].known && dims[1].known);
  /* A bound that is an expression: no constant size. */
  amddwarf_die_ref arre = ref_at(o, d.off_arr_expr);
  assert_int_equal(amddwarf_object_die_fields(o, arre, &f, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_fields(o, f.first_child, &f, &err), AMDDWARF_OK);
  assert_int_equal(f.upper_bound.kind, AMDDWARF_ATTR_EXPR);
  assert_int_equal(f.upper_bound.size, 2);
  assert_int_equal(amddwarf_type_byte_size(o, arre, &size), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_type_name(o, arre, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "int[]");
  assert_int_equal(amddwarf_type_array_dims(o, arre, dims, 4), 1);
  assert_false(dims[0].known);
  amddwarf_die_ref td = ref_at(o, d.off_typedef);
  assert_int_equal(amddwarf_type_strip(o, td).offset, d.off_int);
  assert_int_equal(amddwarf_type_byte_size(o, td, &size), AMDDWARF_OK);
  assert_int_equal(size, 4);
  /* Truncation reports the full length. */
  size_t length = 0;
  assert_int_equal(amddwarf_type_name(o, ptr, name, 4, &length), AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, strlen("const S *"));
  assert_string_equal(name, "con");
  /* Void: the reference that names no DIE. */
  amddwarf_die_ref none = {0, 0, 0};
  assert_int_equal(amddwarf_type_name(o, none, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "void");
  /* The type helpers made no summaries. */
  assert_int_equal(amddwarf_object_summarized_units(o), 0);
  amddwarf_object_close(o);
}

static void test_scopes_ranges_and_vars(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  const amddwarf_die_info *sub = amddwarf_object_die_at(o, d.off_sub);
  assert_int_equal(sub->ranges[0].low, 0x1000); /* low_pc addrx 0 */
  assert_int_equal(sub->ranges[0].high, 0x1200);
  const amddwarf_die_info *blk = amddwarf_object_die_at(o, d.off_block);
  assert_int_equal(blk->range_count, 2);
  assert_int_equal(blk->ranges[0].low, 0x1000);
  assert_int_equal(blk->ranges[0].high, 0x1040);
  assert_int_equal(blk->ranges[1].low, 0x1080);
  assert_int_equal(blk->ranges[1].high, 0x1090);
  const amddwarf_die_info *scopes[8];
  size_t depth = 0;
  assert_int_equal(amddwarf_object_scopes_at(o, 0x1084, scopes, 8, &depth), AMDDWARF_OK);
  assert_int_equal(depth, 3);
  assert_ptr_equal(scopes[0], blk);
  assert_ptr_equal(scopes[1], sub);
  assert_int_equal(scopes[2]->tag, 0x11);
  /* Outside the block (0x1050): only the subprogram's variables. */
  amddwarf_var vars[8];
  size_t count = 0;
  assert_int_equal(amddwarf_object_vars_at(o, 0x1050, vars, 8, &count), AMDDWARF_OK);
  assert_int_equal(count, 2);
  assert_string_equal(vars[0].die->name, "x");
  assert_true(vars[0].available); /* startx_endx 0x1000-0x1200 */
  assert_int_equal(vars[0].expr[0], 0x51);
  assert_string_equal(vars[1].die->name, "y");
  assert_false(vars[1].available);
  /* Inside the block: z first (depth 0). */
  assert_int_equal(amddwarf_object_vars_at(o, 0x1084, vars, 8, &count), AMDDWARF_OK);
  assert_int_equal(count, 3);
  assert_string_equal(vars[0].die->name, "z");
  assert_int_equal(vars[0].depth, 0);
  assert_int_equal(vars[0].size, 5);
  /* The capacity limits what is written, not the count. */
  assert_int_equal(amddwarf_object_vars_at(o, 0x1084, vars, 1, &count), AMDDWARF_OK);
  assert_int_equal(count, 3);
  /* The unit: language and convention. */
  const amddwarf_cu *cu = amddwarf_object_cu(o, 0);
  assert_int_equal(cu->language, 0x8100);
  assert_string_equal(amddwarf_dw_lang_name(cu->language), "DW_LANG_LLVM_HIP");
  assert_int_equal(cu->convention, AMDDWARF_CONVENTION_LEGACY);
  amddwarf_object_close(o);
}

static void test_line_program(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  const amddwarf_line_table *t = amddwarf_object_line_table(o, 0);
  assert_non_null(t);
  assert_int_equal(t->version, 5);
  assert_int_equal(t->file_count, 2);
  assert_string_equal(t->files[0], "/src/a.cl");
  assert_string_equal(t->files[1], "/src/inc/b.h");
  assert_int_equal(t->row_count, 4);
  amddwarf_line_row rows[4];
  for (size_t i = 0; i < 4; ++i)
    assert_int_equal(amddwarf_object_line_row(o, t, i, &rows[i]), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_line_row(o, t, 4, &rows[0]), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_line_row run[3]; /* rows 1-3 in one run of the program: the same rows */
  assert_int_equal(amddwarf_object_line_rows(o, t, 1, run, 3), AMDDWARF_OK);
  assert_memory_equal(run, &rows[1], sizeof run);
  assert_int_equal(amddwarf_object_line_rows(o, t, 1, run, 0), AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_object_line_rows(o, t, 2, run, 3), AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(rows[0].address, 0x1000);
  assert_int_equal(rows[0].line, 10);
  assert_int_equal(rows[0].column, 7);
  assert_int_equal(rows[0].file, 0);
  assert_int_equal(rows[0].flags, AMDDWARF_LINE_IS_STMT);
  assert_int_equal(rows[1].address, 0x1008);
  assert_int_equal(rows[1].line, 11);
  assert_int_equal(rows[1].file, 1); /* file 1 stays 1 */
  assert_int_equal(rows[1].flags, AMDDWARF_LINE_IS_STMT | AMDDWARF_LINE_PROLOGUE_END);
  assert_int_equal(rows[2].address, 0x1020);
  assert_int_equal(rows[2].flags, 0);
  assert_int_equal(rows[3].address, 0x1100);
  assert_true(rows[3].flags & AMDDWARF_LINE_END_SEQUENCE);
  const amddwarf_line_table *lt;
  amddwarf_line_row row;
  assert_int_equal(amddwarf_object_line_at(o, 0x1010, &lt, &row), AMDDWARF_OK);
  assert_ptr_equal(lt, t);
  assert_memory_equal(&row, &rows[1], sizeof row);
  assert_int_equal(amddwarf_object_line_at(o, 0x1100, &lt, &row), AMDDWARF_NOT_FOUND);
  amddwarf_object_close(o);
}

static void test_extension_unit_old_codes(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  amddwarf_error err;
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  const amddwarf_cu *cu = amddwarf_object_cu(o, 1);
  assert_int_equal(cu->language, 0x30);
  assert_int_equal(cu->convention, AMDDWARF_CONVENTION_EXTENSION);
  assert_non_null(strstr(cu->convention_reason, "DW_AT_LLVM_"));
  const amddwarf_die_info *v = amddwarf_object_die_at(o, d.off_ext_var);
  assert_true(v->flags & AMDDWARF_DIE_OLD_LLVM_CODES);
  assert_non_null(v->lane_pc);
  assert_int_equal(v->lane_pc->kind, AMDDWARF_ATTR_EXPR);
  assert_int_equal(v->lane_pc->size, 5);
  assert_string_equal(amddwarf_dw_at_name(0x3e0b), "DW_AT_LLVM_lane_pc");
  assert_string_equal(amddwarf_dw_at_name(0x3e12), "DW_AT_LLVM_lane_pc");
  amddwarf_object_close(o);
  /* Forcing a convention applies to every unit. */
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  opts.convention = AMDDWARF_CONVENTION_LEGACY;
  assert_int_equal(amddwarf_object_open_memory(image, d.image_size, &opts, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu(o, 1)->convention, AMDDWARF_CONVENTION_LEGACY);
  assert_string_equal(amddwarf_object_cu(o, 1)->convention_reason, "chosen by the caller");
  amddwarf_object_close(o);
}

static void test_bad_loclist_kind(void **state)
{
  (void)state;
  static dwarf5_sample d;
  dwarf5_sample_build(&d);
  /* Corrupt the kind of list x's first entry (base_addressx 1). */
  size_t list_x = d.list_x;
  d.loclists.data[list_x] = 0x0e;
  size_t n = dwarf5_sample_image(&d, image, sizeof image);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  /* Open reads the lists of the legacy unit (its convention depends on
     them): the unit keeps the error; the object still opens. */
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_LIST);
  assert_int_equal(err.offset, list_x);
  assert_non_null(strstr(err.message, "unknown entry kind 0x0e"));
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  assert_int_equal(amddwarf_object_cu(o, 0)->die_count, 0); /* none of it can be read */
  assert_int_equal(amddwarf_object_die_count(o), amddwarf_object_cu(o, 1)->die_count);
  assert_null(amddwarf_object_die_at(o, amddwarf_object_cu(o, 0)->die_offset));
  assert_int_equal(amddwarf_object_load_unit(o, 1, &err), AMDDWARF_OK); /* the other unit */
  amddwarf_object_close(o);
  /* An address index past .debug_addr. */
  dwarf5_sample_build(&d);
  d.loclists.data[list_x + 1] = 0x7f; /* base_addressx 127 */
  n = dwarf5_sample_image(&d, image, sizeof image);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_LIST);
  assert_non_null(strstr(err.message, "address index 127"));
  amddwarf_object_close(o);
}

/* ---- conventions ---- */

static void normalized(const amddwarf_object *o, size_t unit, amddwarf_expr_role role,
                       const uint8_t *in, size_t n, const uint8_t *want, size_t want_size)
{
  uint8_t out[64];
  size_t size = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_normalize_expr(o, amddwarf_object_cu(o, unit), role, in, n,
                                                  out, sizeof out, &size, &err),
                   AMDDWARF_OK);
  assert_int_equal(size, want_size);
  assert_memory_equal(out, want, want_size);
}

static void test_normalize_legacy(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  amddwarf_error err;
  /* Unit 0 is legacy: "lit1, swap, xderef" (private) becomes DW_ASPACE 5 and
     DW_OP_LLVM_form_aspace_address (DW_OP_LLVM_user 0xe9, sub-op 0x02). */
  const uint8_t priv[] = {0x91, 0x08, 0x31, 0x16, 0x18};
  const uint8_t priv_n[] = {0x91, 0x08, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, priv, sizeof priv, priv_n, sizeof priv_n);
  /* "lit2" is local: DW_ASPACE_AMDGPU_local 3 */
  const uint8_t local[] = {0xa1, 0x00, 0x32, 0x16, 0x18};
  const uint8_t local_n[] = {0xa1, 0x00, 0x33, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, local, sizeof local, local_n, sizeof local_n);
  /* Before DW_OP_stack_value, read literally (no producer quirk: the unit
     names no producer): the bytes private memory holds at the constant. */
  const uint8_t cst[] = {0x11, 0x00, 0x31, 0x16, 0x18, 0x9f};
  const uint8_t cst_n[] = {0x11, 0x00, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, cst, sizeof cst, cst_n, sizeof cst_n);
  /* HIP's bare DW_OP_fbreg is private */
  const uint8_t bare[] = {0x91, 0x08};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, bare, sizeof bare, priv_n, sizeof priv_n);
  /* -O2 "bregx VGPR40+8, lit1, swap, xderef": the focused lane's dword of
     VGPR40 (DWARF 2600) plus 8 is a private address. */
  const uint8_t vgpr[] = {0x92, 0xa8, 0x14, 0x08, 0x31, 0x16, 0x18};
  const uint8_t vgpr_n[] = {0x90, 0xa8, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x94,
                            0x04, 0x23, 0x08, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, vgpr, sizeof vgpr, vgpr_n, sizeof vgpr_n);
  const uint8_t vgpr_neg[] = {0x92, 0xa8, 0x14, 0x78, 0x31, 0x16, 0x18}; /* -8 */
  const uint8_t vgpr_neg_n[] = {0x90, 0xa8, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x94,
                                0x04, 0x11, 0x78, 0x22, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, vgpr_neg, sizeof vgpr_neg, vgpr_neg_n,
             sizeof vgpr_neg_n);
  /* A scalar base register is read whole, as written. */
  const uint8_t sgpr[] = {0x92, 0x21, 0x00, 0x31, 0x16, 0x18};
  const uint8_t sgpr_n[] = {0x92, 0x21, 0x00, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, sgpr, sizeof sgpr, sgpr_n, sizeof sgpr_n);
  /* -O2 "regx VGPR37" (DWARF 2597): the value is the focused lane's dword,
     the register location at byte offset lane * 4 (push_lane 0xe9 0x03, lit4,
     mul, offset 0xe9 0x04) as a 4-byte piece (0x93 0x04); read whole, the
     register would start with lane 0's dword. */
  const uint8_t reg_v37[] = {0x90, 0xa5, 0x14};
  const uint8_t reg_v37_n[] = {0x90, 0xa5, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_v37, sizeof reg_v37, reg_v37_n,
             sizeof reg_v37_n);
  /* The wave32 number of VGPR37 (1573) and AGPR5 (wave64, 3077) too. */
  const uint8_t reg_w32[] = {0x90, 0xa5, 0x0c};
  const uint8_t reg_w32_n[] = {0x90, 0xa5, 0x0c, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_w32, sizeof reg_w32, reg_w32_n,
             sizeof reg_w32_n);
  const uint8_t reg_a5[] = {0x90, 0x85, 0x18};
  const uint8_t reg_a5_n[] = {0x90, 0x85, 0x18, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_a5, sizeof reg_a5, reg_a5_n, sizeof reg_a5_n);
  /* A 64-bit pointer in a VGPR pair: "regx v0, piece 4, regx v1, piece 4";
     each piece is its lane's dword. */
  const uint8_t pair[] = {0x90, 0x80, 0x14, 0x93, 0x04, 0x90, 0x81, 0x14, 0x93, 0x04};
  const uint8_t pair_n[] = {0x90, 0x80, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04,
                            0x90, 0x81, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, pair, sizeof pair, pair_n, sizeof pair_n);
  /* Scalar registers, by regx and by DW_OP_reg1 (DW_OP_reg0-31 name no vector
     register), are copied. */
  const uint8_t reg_s33[] = {0x90, 0x41, 0x93, 0x04, 0x51, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_s33, sizeof reg_s33, reg_s33, sizeof reg_s33);
  /* The frame base register's value divided by the wave size (gfx900: 64). */
  const uint8_t fb[] = {0x90, 0x41};
  const uint8_t fb_n[] = {0x92, 0x41, 0x00, 0x36, 0x25};
  normalized(o, 0, AMDDWARF_ROLE_FRAME_BASE, fb, sizeof fb, fb_n, sizeof fb_n);
  /* Unit 1 uses the extension convention: copied as is. */
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, priv, sizeof priv, priv, sizeof priv);
  /* ... a VGPR location too: there "regx VGPR37" is the whole register, and
     a lane's dword is selected with DW_OP_LLVM_push_lane where meant. */
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, reg_v37, sizeof reg_v37, reg_v37, sizeof reg_v37);
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, pair, sizeof pair, pair, sizeof pair);
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, vgpr, sizeof vgpr, vgpr, sizeof vgpr);
  /* Too little room says how much is needed. */
  uint8_t small[2];
  size_t size = 0;
  assert_int_equal(amddwarf_object_normalize_expr(o, amddwarf_object_cu(o, 0),
                                                  AMDDWARF_ROLE_LOCATION, priv, sizeof priv, small,
                                                  sizeof small, &size, &err),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(size, 5);
  /* .debug_addr entries */
  uint64_t a = 0;
  assert_int_equal(amddwarf_object_address_index(o, amddwarf_object_cu(o, 0), 2, &a, &err),
                   AMDDWARF_OK);
  assert_int_equal(a, 0x1200);
  assert_int_equal(amddwarf_object_address_index(o, amddwarf_object_cu(o, 0), 4, &a, &err),
                   AMDDWARF_E_OBJECT_BAD_LIST);
  amddwarf_object_close(o);
}

/* Both attribute readers agree on every DIE of the DWARF 5 object. */
typedef struct attr_list {
  amddwarf_attribute items[64];
  size_t count;
} attr_list;

static int collect_attr(void *user, const amddwarf_attribute *a)
{
  attr_list *l = user;
  if (l->count < 64)
    l->items[l->count++] = *a;
  return 0;
}

static void test_native_and_libdwarf_attributes(void **state)
{
  (void)state;
  static dwarf5_sample d;
  size_t n = dwarf5_sample_object(&d, image, sizeof image);
  amddwarf_object *native = NULL, *viaelf = NULL;
  amddwarf_object_options opts;
  amddwarf_error err;
  amddwarf_object_options_init(&opts);
  opts.flags = AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES;
  assert_int_equal(amddwarf_object_open_memory(image, n, NULL, &native, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_open_memory(image, n, &opts, &viaelf, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_count(native), amddwarf_object_die_count(viaelf));
  for (size_t i = 0; i < amddwarf_object_die_count(native); ++i) {
    static attr_list a, b;
    a.count = b.count = 0;
    assert_int_equal(amddwarf_object_die_attributes(native, amddwarf_object_die(native, i),
                                                    collect_attr, &a, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_object_die_attributes(viaelf, amddwarf_object_die(viaelf, i),
                                                    collect_attr, &b, &err), AMDDWARF_OK);
    assert_int_equal(a.count, b.count);
    for (size_t k = 0; k < a.count; ++k) {
      assert_int_equal(a.items[k].attribute, b.items[k].attribute);
      assert_int_equal(a.items[k].form, b.items[k].form);
      assert_int_equal(a.items[k].value.kind, b.items[k].value.kind);
      if (a.items[k].value.kind == AMDDWARF_ATTR_STRING)
        assert_string_equal(a.items[k].value.string, b.items[k].value.string);
      else if (a.items[k].value.kind == AMDDWARF_ATTR_REF)
        assert_int_equal(a.items[k].value.offset, b.items[k].value.offset);
      else if (a.items[k].value.kind == AMDDWARF_ATTR_EXPR)
        assert_memory_equal(a.items[k].value.bytes, b.items[k].value.bytes, a.items[k].value.size);
      else if (a.items[k].value.kind != AMDDWARF_ATTR_LIST)
        assert_int_equal(a.items[k].value.u, b.items[k].value.u);
    }
  }
  amddwarf_object_close(native);
  amddwarf_object_close(viaelf);
}

/* ---- references between DIEs ---- */

/* Two DWARF 4 units. Unit A: a variable whose type is a later DIE (forward
   reference), one whose type is an earlier DIE (backward), one with only
   DW_AT_abstract_origin (inherits name and type), and a struct whose two
   members have DW_AT_data_member_location 0 and 4. Unit B: a variable whose
   DW_FORM_ref_addr type is in unit A, and a member at offset 4 again.
   BAD_TARGET, when non-zero, replaces the backward reference's target. */
typedef struct ref_units {
  dwb dies;
  size_t off_fwd, off_int, off_back, off_inherit, off_long, off_m0, off_m1;
  size_t off_cross, off_n0, unit_b;
} ref_units;

static void ref_units_abbrevs(dwb *w)
{
  dwb_abbrev(w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string, 0);
  dwb_abbrev(w, "base_type", DW_TAG_base_type, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_byte_size, DW_FORM_data1, 0);
  dwb_abbrev(w, "variable", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_type, DW_FORM_ref4, 0);
  dwb_abbrev(w, "variable_ref_addr", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name,
             DW_FORM_string, DW_AT_type, DW_FORM_ref_addr, 0);
  dwb_abbrev(w, "variable_origin", DW_TAG_variable, DW_CHILDREN_no, DW_AT_abstract_origin,
             DW_FORM_ref4, 0);
  dwb_abbrev(w, "struct", DW_TAG_structure_type, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             DW_AT_byte_size, DW_FORM_data1, 0);
  dwb_abbrev(w, "member", DW_TAG_member, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_data_member_location, DW_FORM_data1, 0);
}

static void named_die(dwb *w, const char *abbrev, const char *name)
{
  dwb_die(w, abbrev, name);
  dwb_str(w, DW_AT_name, name);
}

static void build_ref_units(ref_units *d, uint32_t bad_target)
{
  memset(d, 0, sizeof *d);
  dwb *w = &d->dies;
  dwb_init(w);
  ref_units_abbrevs(w);
  dwb_unit_begin(w, 4); /* unit A */
  named_die(w, "cu", "a.cl");
  named_die(w, "variable", "fwd");
  dwb_ref(w, DW_AT_type, "long");
  named_die(w, "base_type", "int");
  dwb_u(w, DW_AT_byte_size, 4);
  named_die(w, "variable", "back");
  if (bad_target)
    dwb_u(w, DW_AT_type, bad_target); /* unit A starts at 0: the offset as given */
  else
    dwb_ref(w, DW_AT_type, "int");
  dwb_die(w, "variable_origin", "inherit");
  dwb_ref(w, DW_AT_abstract_origin, "fwd");
  named_die(w, "base_type", "long");
  dwb_u(w, DW_AT_byte_size, 8);
  named_die(w, "struct", "S");
  dwb_u(w, DW_AT_byte_size, 8);
  named_die(w, "member", "m0");
  dwb_u(w, DW_AT_data_member_location, 0);
  named_die(w, "member", "m1");
  dwb_u(w, DW_AT_data_member_location, 4);
  dwb_end_children(w); /* struct */
  dwb_end_children(w); /* unit */
  dwb_unit_end(w);
  d->unit_b = w->info.len;
  dwb_unit_begin(w, 4);
  named_die(w, "cu", "b.cl");
  named_die(w, "variable_ref_addr", "cross");
  dwb_ref(w, DW_AT_type, "int");
  named_die(w, "struct", "T");
  dwb_u(w, DW_AT_byte_size, 8);
  named_die(w, "member", "n0");
  dwb_u(w, DW_AT_data_member_location, 4);
  dwb_end_children(w);
  dwb_end_children(w);
  dwb_unit_end(w);
  dwb_finish(w);
  d->off_fwd = dwb_offset(w, "fwd");
  d->off_int = dwb_offset(w, "int");
  d->off_back = dwb_offset(w, "back");
  d->off_inherit = dwb_offset(w, "inherit");
  d->off_long = dwb_offset(w, "long");
  d->off_m0 = dwb_offset(w, "m0");
  d->off_m1 = dwb_offset(w, "m1");
  d->off_cross = dwb_offset(w, "cross");
  d->off_n0 = dwb_offset(w, "n0");
}

static size_t build_ref_object(ref_units *d, uint32_t bad_target)
{
  build_ref_units(d, bad_target);
  elf_sec s[] = {
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &d->dies.abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &d->dies.info),
  };
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 3, 0x2c};
  return elf_build(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_references(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  assert_int_equal(amddwarf_object_die_count(o), 13);
  for (size_t i = 0; i < amddwarf_object_die_count(o); ++i) {
    const amddwarf_die_info *die = amddwarf_object_die(o, i);
    assert_ptr_equal(amddwarf_object_die_at(o, die->offset), die);
    assert_null(amddwarf_object_die_at(o, die->offset + 1)); /* no DIE is one byte long */
  }
  assert_null(amddwarf_object_die_at(o, 0));
  assert_null(amddwarf_object_die_at(o, d.dies.info.len));
  const amddwarf_die_info *in = amddwarf_object_die_at(o, d.off_int);
  const amddwarf_die_info *lg = amddwarf_object_die_at(o, d.off_long);
  const amddwarf_die_info *fwd = amddwarf_object_die_at(o, d.off_fwd);
  assert_non_null(in);
  assert_non_null(lg);
  assert_non_null(fwd);
  assert_string_equal(in->name, "int");
  assert_string_equal(lg->name, "long");
  assert_int_equal(lg->byte_size, 8);
  assert_ptr_equal(fwd->type, lg);                                   /* forward */
  assert_ptr_equal(amddwarf_object_die_at(o, d.off_back)->type, in); /* backward */
  const amddwarf_die_info *inh = amddwarf_object_die_at(o, d.off_inherit);
  assert_ptr_equal(inh->origin, fwd);
  assert_string_equal(inh->name, "fwd");
  assert_ptr_equal(inh->type, lg);
  const amddwarf_die_info *cross = amddwarf_object_die_at(o, d.off_cross);
  assert_int_equal(cross->cu_index, 1);
  assert_ptr_equal(cross->type, in); /* DW_FORM_ref_addr into unit A */
  const amddwarf_die_info *m0 = amddwarf_object_die_at(o, d.off_m0);
  const amddwarf_die_info *m1 = amddwarf_object_die_at(o, d.off_m1);
  const amddwarf_die_info *n0 = amddwarf_object_die_at(o, d.off_n0);
  assert_int_equal(m0->data_member_location->kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(m0->data_member_location->u, 0);
  assert_int_equal(m0->data_member_location->form, 0x0b);
  assert_int_equal(m0->data_member_location->attribute, 0x38);
  assert_int_equal(m1->data_member_location->u, 4);
  assert_int_equal(n0->data_member_location->kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(n0->data_member_location->u, 4);
  assert_int_equal(n0->cu_index, 1);
  amddwarf_object_close(o);

  /* A reference to where no DIE starts (inside "int"'s name) is an error
     naming the referring DIE and the target: when the unit is loaded, and
     again each time it is asked for. */
  n = build_ref_object(&d, (uint32_t)(d.off_int + 2));
  char expect[128];
  snprintf(expect, sizeof expect, "DIE 0x%zx refers to 0x%zx, where no DIE starts", d.off_back,
           d.off_int + 2);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_count(o), 9 + 4); /* counted at open */
  assert_null(amddwarf_object_die_at(o, d.off_back));
  for (int attempt = 0; attempt < 2; ++attempt) {
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_REFERENCE);
    assert_int_equal(err.offset, d.off_back);
    assert_non_null(strstr(err.message, expect));
  }
  /* Unit B refers into unit A: it cannot be loaded either, and says why. */
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_load_unit(o, 1, &err), AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_non_null(strstr(err.message, "in a unit that cannot be read"));
  assert_non_null(strstr(err.message, expect));
  assert_null(amddwarf_object_die_at(o, d.off_cross));
  amddwarf_object_close(o);

  /* With AMDDWARF_OBJECT_LOAD_ALL, open reports it. */
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  opts.flags = AMDDWARF_OBJECT_LOAD_ALL;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_open_memory(image, n, &opts, &o, &err),
                   AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_null(o);
  assert_int_equal(err.offset, d.off_back);
  assert_non_null(strstr(err.message, expect));
}

/* Units are scanned and summarized on first use: a unit's DIEs are counted
   when it is first asked for, every DIE is numbered when the count of all
   is asked for, and a reference from unit B into unit A loads A along with
   B. */
static void test_units_load_on_first_use(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  size_t at_open = amddwarf_object_memory_used(o);
  const amddwarf_cu *a = amddwarf_object_cu(o, 0), *b = amddwarf_object_cu(o, 1);
  assert_int_equal(a->die_count, 9);
  assert_int_equal(b->die_count, 4);
  assert_int_equal(amddwarf_object_die_count(o), 13);
  assert_int_equal(a->first_die, 0);
  assert_int_equal(b->first_die, 9);
  assert_string_equal(b->name, "b.cl"); /* from the unit DIE, read at open */
  const amddwarf_die_info *cross = amddwarf_object_die_at(o, d.off_cross);
  assert_non_null(cross);
  assert_true(amddwarf_object_memory_used(o) > at_open);
  assert_ptr_equal(cross->type, amddwarf_object_die_at(o, d.off_int));
  assert_string_equal(cross->type->name, "int");
  assert_ptr_equal(amddwarf_object_die(o, b->first_die), amddwarf_object_die_at(o, b->die_offset));
  assert_null(amddwarf_object_die(o, 13));
  assert_int_equal(amddwarf_object_load_all(o, &err), AMDDWARF_OK);
  amddwarf_object_close(o);
}

typedef struct die_walk {
  const amddwarf_object *object;
  const amddwarf_die_info *seen[13];
} die_walk;

static void *walk_dies_backwards(void *arg)
{
  die_walk *w = arg;
  for (size_t i = 13; i-- > 0;)
    w->seen[i] = amddwarf_object_die(w->object, i);
  return NULL;
}

/* Threads asking for DIEs of units not loaded yet all get the same
   summaries. */
static void test_units_load_from_threads(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  static die_walk walks[4];
  pthread_t threads[4];
  for (int t = 0; t < 4; ++t) {
    walks[t].object = o;
    assert_int_equal(pthread_create(&threads[t], NULL, walk_dies_backwards, &walks[t]), 0);
  }
  for (int t = 0; t < 4; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  for (size_t i = 0; i < 13; ++i) {
    const amddwarf_die_info *die = amddwarf_object_die(o, i);
    assert_non_null(die);
    for (int t = 0; t < 4; ++t)
      assert_ptr_equal(walks[t].seen[i], die);
  }
  amddwarf_object_close(o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loclists_every_kind),
      cmocka_unit_test(test_types),
      cmocka_unit_test(test_scopes_ranges_and_vars),
      cmocka_unit_test(test_line_program),
      cmocka_unit_test(test_extension_unit_old_codes),
      cmocka_unit_test(test_bad_loclist_kind),
      cmocka_unit_test(test_normalize_legacy),
      cmocka_unit_test(test_native_and_libdwarf_attributes),
      cmocka_unit_test(test_references),
      cmocka_unit_test(test_units_load_on_first_use),
      cmocka_unit_test(test_units_load_from_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
