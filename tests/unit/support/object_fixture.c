/* Test helper: the object tests' shared code objects; see object_fixture.h. */
#include "object_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

/* Extension codes libdwarf's dwarf.h does not have (amdgpu-usage.txt). */
enum {
  TEST_DW_AT_LLVM_lane_pc_old = 0x3e0b,
  TEST_DW_AT_LLVM_vector_size = 0x3e13,
  TEST_DW_LANG_HIP = 0x30,
  TEST_DW_LANG_LLVM_HIP = 0x8100,
};

amddwarf_status open_test_object(const uint8_t *image, size_t size, amddwarf_object **out,
                                 amddwarf_error *err)
{
  amddwarf_error_clear(err);
  return amddwarf_object_open_memory(image, size, NULL, out, err);
}

static void sample_abbrevs(dwb *w)
{
  dwb_abbrev(w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_producer, DW_FORM_string,
             DW_AT_language, DW_FORM_data2, DW_AT_name, DW_FORM_string, DW_AT_comp_dir,
             DW_FORM_string, DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4,
             DW_AT_addr_base, DW_FORM_sec_offset, DW_AT_loclists_base, DW_FORM_sec_offset,
             DW_AT_rnglists_base, DW_FORM_sec_offset, DW_AT_stmt_list, DW_FORM_sec_offset, 0);
  dwb_abbrev(w, "base_type", DW_TAG_base_type, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_encoding, DW_FORM_data1, DW_AT_byte_size, DW_FORM_data1, 0);
  dwb_abbrev(w, "pointer", DW_TAG_pointer_type, DW_CHILDREN_no, DW_AT_type, DW_FORM_ref4,
             DW_AT_address_class, DW_FORM_data1, 0);
  dwb_abbrev(w, "struct", DW_TAG_structure_type, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             DW_AT_byte_size, DW_FORM_data1, 0);
  dwb_abbrev(w, "member", DW_TAG_member, DW_CHILDREN_no, DW_AT_name, DW_FORM_string, DW_AT_type,
             DW_FORM_ref4, DW_AT_data_member_location, DW_FORM_data1, 0);
  dwb_abbrev(w, "array", DW_TAG_array_type, DW_CHILDREN_yes, DW_AT_type, DW_FORM_ref4, 0);
  dwb_abbrev(w, "subrange_count", DW_TAG_subrange_type, DW_CHILDREN_no, DW_AT_count,
             DW_FORM_data1, 0);
  dwb_abbrev(w, "subrange_bound", DW_TAG_subrange_type, DW_CHILDREN_no, DW_AT_upper_bound,
             DW_FORM_data1, 0);
  dwb_abbrev(w, "subrange_bound_expr", DW_TAG_subrange_type, DW_CHILDREN_no, DW_AT_upper_bound,
             DW_FORM_exprloc, 0);
  dwb_abbrev(w, "subprogram", DW_TAG_subprogram, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             DW_AT_low_pc, DW_FORM_addrx, DW_AT_high_pc, DW_FORM_data4, DW_AT_frame_base,
             DW_FORM_exprloc, 0);
  dwb_abbrev(w, "variable_loclistx", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name,
             DW_FORM_string, DW_AT_type, DW_FORM_ref4, DW_AT_location, DW_FORM_loclistx, 0);
  dwb_abbrev(w, "block", DW_TAG_lexical_block, DW_CHILDREN_yes, DW_AT_ranges, DW_FORM_rnglistx,
             0);
  dwb_abbrev(w, "variable_expr", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_type, DW_FORM_ref4, DW_AT_location, DW_FORM_exprloc, 0);
  dwb_abbrev(w, "parameter_list", DW_TAG_formal_parameter, DW_CHILDREN_no, DW_AT_name,
             DW_FORM_string, DW_AT_type, DW_FORM_ref4, DW_AT_location, DW_FORM_sec_offset, 0);
  dwb_abbrev(w, "typedef", DW_TAG_typedef, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_type, DW_FORM_ref4, 0);
  dwb_abbrev(w, "const", DW_TAG_const_type, DW_CHILDREN_no, DW_AT_type, DW_FORM_ref4, 0);
  /* Declared, not used by any DIE. */
  dwb_abbrev(w, "vector_base_type", DW_TAG_base_type, DW_CHILDREN_no, DW_AT_name,
             DW_FORM_string, DW_AT_encoding, DW_FORM_data1, DW_AT_byte_size, DW_FORM_data1,
             TEST_DW_AT_LLVM_vector_size, DW_FORM_data1, 0);
  dwb_abbrev(w, "variable_lane_pc", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name,
             DW_FORM_string, DW_AT_location, DW_FORM_exprloc, TEST_DW_AT_LLVM_lane_pc_old,
             DW_FORM_exprloc, 0);
}

static void sample_addr(dwarf5_sample *d)
{
  size_t unit = dwb_addr_header(&d->addr);
  for (uint64_t i = 0; i < 4; ++i)
    bb_uint(&d->addr, 0x1000 + 0x100 * i, 8);
  bb_length_end(&d->addr, unit);
}

/* One counted location list entry's expression. */
static void list_expr(byte_buf *b, const uint8_t *expr, size_t n)
{
  bb_uleb(b, n);
  bb_bytes(b, expr, n);
}

static void sample_loclists(dwarf5_sample *d)
{
  byte_buf *ll = &d->loclists;
  size_t unit = dwb_lists_header(ll, 1);
  d->list_x = ll->len;
  dwb_lists_offset(ll, unit, 0, d->list_x);
  bb_u8(ll, DW_LLE_base_addressx); bb_uleb(ll, 1);
  bb_u8(ll, DW_LLE_offset_pair); bb_uleb(ll, 0x10); bb_uleb(ll, 0x20);
  list_expr(ll, (const uint8_t[]){DW_OP_reg0}, 1);
  bb_u8(ll, DW_LLE_startx_endx); bb_uleb(ll, 0); bb_uleb(ll, 2);
  list_expr(ll, (const uint8_t[]){DW_OP_reg1}, 1);
  bb_u8(ll, DW_LLE_startx_length); bb_uleb(ll, 3); bb_uleb(ll, 8);
  list_expr(ll, (const uint8_t[]){DW_OP_reg2}, 1);
  bb_u8(ll, DW_LLE_default_location);
  list_expr(ll, (const uint8_t[]){DW_OP_lit1, DW_OP_stack_value}, 2);
  bb_u8(ll, DW_LLE_end_of_list);
  d->list_y = ll->len;
  bb_u8(ll, DW_LLE_base_address); bb_uint(ll, 0x2000, 8);
  bb_u8(ll, DW_LLE_offset_pair); bb_uleb(ll, 0); bb_uleb(ll, 4);
  list_expr(ll, (const uint8_t[]){DW_OP_fbreg, 0x08}, 2);
  bb_u8(ll, DW_LLE_start_end); bb_uint(ll, 0x3000, 8); bb_uint(ll, 0x3010, 8);
  list_expr(ll, (const uint8_t[]){DW_OP_reg3}, 1);
  bb_u8(ll, DW_LLE_start_length); bb_uint(ll, 0x4000, 8); bb_uleb(ll, 0x20);
  list_expr(ll, NULL, 0);
  bb_u8(ll, DW_LLE_end_of_list);
  bb_length_end(ll, unit);
}

static void sample_rnglists(dwarf5_sample *d)
{
  byte_buf *rl = &d->rnglists;
  size_t unit = dwb_lists_header(rl, 1);
  dwb_lists_offset(rl, unit, 0, rl->len);
  bb_u8(rl, DW_RLE_startx_length); bb_uleb(rl, 0); bb_uleb(rl, 0x40);
  bb_u8(rl, DW_RLE_offset_pair); bb_uleb(rl, 0x80); bb_uleb(rl, 0x90);
  bb_u8(rl, DW_RLE_end_of_list);
  bb_length_end(rl, unit);
}

enum { LINE_BASE = -5, LINE_RANGE = 14, OPCODE_BASE = 13, MIN_INST_LENGTH = 4 };

static void sample_line(dwarf5_sample *d)
{
  byte_buf *ls = &d->line_str;
  size_t str_src = ls->len;
  bb_str(ls, "/src");
  size_t str_a = ls->len;
  bb_str(ls, "a.cl");
  size_t str_b = ls->len;
  bb_str(ls, "inc/b.h");

  byte_buf *ln = &d->line;
  size_t unit = bb_length_begin(ln);
  bb_uint(ln, 5, 2);
  bb_u8(ln, 8); /* address size */
  bb_u8(ln, 0); /* segment selector size */
  size_t header = bb_length_begin(ln);
  bb_u8(ln, MIN_INST_LENGTH);
  bb_u8(ln, 1); /* maximum operations per instruction */
  bb_u8(ln, 1); /* default_is_stmt */
  bb_u8(ln, (uint8_t)LINE_BASE);
  bb_u8(ln, LINE_RANGE);
  bb_u8(ln, OPCODE_BASE);
  static const uint8_t lengths[OPCODE_BASE - 1] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
  bb_bytes(ln, lengths, sizeof lengths);
  bb_u8(ln, 1); /* directory entry format: path as line_strp */
  bb_uleb(ln, DW_LNCT_path); bb_uleb(ln, DW_FORM_line_strp);
  bb_uleb(ln, 1);
  bb_uint(ln, str_src, 4);
  bb_u8(ln, 2); /* file entry format: path, directory index */
  bb_uleb(ln, DW_LNCT_path); bb_uleb(ln, DW_FORM_line_strp);
  bb_uleb(ln, DW_LNCT_directory_index); bb_uleb(ln, DW_FORM_data1);
  bb_uleb(ln, 2);
  bb_uint(ln, str_a, 4); bb_u8(ln, 0);
  bb_uint(ln, str_b, 4); bb_u8(ln, 0);
  bb_length_end(ln, header);

  bb_u8(ln, 0); bb_uleb(ln, 9); bb_u8(ln, DW_LNE_set_address); bb_uint(ln, 0x1000, 8);
  bb_u8(ln, DW_LNS_set_file); bb_uleb(ln, 0);
  bb_u8(ln, DW_LNS_set_column); bb_uleb(ln, 7);
  bb_u8(ln, DW_LNS_advance_line); bb_sleb(ln, 9);   /* line 10 */
  bb_u8(ln, DW_LNS_copy);                           /* 0x1000 a.cl:10:7 */
  bb_u8(ln, DW_LNS_set_file); bb_uleb(ln, 1);
  bb_u8(ln, DW_LNS_set_prologue_end);
  /* special opcode: address += 4 * 2, line += 1 */
  bb_u8(ln, OPCODE_BASE + 2 * LINE_RANGE + (1 - LINE_BASE)); /* 0x1008 b.h:11:7 */
  bb_u8(ln, DW_LNS_negate_stmt);
  bb_u8(ln, DW_LNS_advance_pc); bb_uleb(ln, 6);      /* + 24 */
  bb_u8(ln, DW_LNS_copy);                           /* 0x1020 b.h:11:7, not stmt */
  bb_u8(ln, DW_LNS_advance_pc); bb_uleb(ln, 0x38);   /* to 0x1100 */
  bb_u8(ln, 0); bb_uleb(ln, 1); bb_u8(ln, DW_LNE_end_sequence);
  bb_length_end(ln, unit);
}

/* The unit DIE's attributes; the bases are those of the single list and
   address tables. */
static void sample_unit_die(dwb *w, uint64_t language, const char *name, uint64_t low_pc,
                            uint64_t size)
{
  dwb_die(w, "cu", NULL);
  dwb_str(w, DW_AT_producer, "test producer");
  dwb_u(w, DW_AT_language, language);
  dwb_str(w, DW_AT_name, name);
  dwb_str(w, DW_AT_comp_dir, "/src");
  dwb_u(w, DW_AT_low_pc, low_pc);
  dwb_u(w, DW_AT_high_pc, size);
  dwb_u(w, DW_AT_addr_base, 8);
  dwb_u(w, DW_AT_loclists_base, 12);
  dwb_u(w, DW_AT_rnglists_base, 12);
  dwb_u(w, DW_AT_stmt_list, 0);
}

static void sample_types(dwb *w)
{
  dwb_die(w, "base_type", "int");
  dwb_str(w, DW_AT_name, "int");
  dwb_u(w, DW_AT_encoding, DW_ATE_signed);
  dwb_u(w, DW_AT_byte_size, 4);
  dwb_die(w, "struct", "S");
  dwb_str(w, DW_AT_name, "S");
  dwb_u(w, DW_AT_byte_size, 8);
  dwb_die(w, "member", NULL);
  dwb_str(w, DW_AT_name, "a");
  dwb_ref(w, DW_AT_type, "int");
  dwb_u(w, DW_AT_data_member_location, 0);
  dwb_die(w, "member", NULL);
  dwb_str(w, DW_AT_name, "b");
  dwb_ref(w, DW_AT_type, "int");
  dwb_u(w, DW_AT_data_member_location, 4);
  dwb_end_children(w);
  dwb_die(w, "const", "const S");
  dwb_ref(w, DW_AT_type, "S");
  dwb_die(w, "pointer", "const S *");
  dwb_ref(w, DW_AT_type, "const S");
  dwb_u(w, DW_AT_address_class, 2);
  dwb_die(w, "array", "int[2][3]");
  dwb_ref(w, DW_AT_type, "int");
  dwb_die(w, "subrange_count", NULL);
  dwb_u(w, DW_AT_count, 2);
  dwb_die(w, "subrange_bound", NULL);
  dwb_u(w, DW_AT_upper_bound, 2); /* 3 elements */
  dwb_end_children(w);
  dwb_die(w, "array", "int[]");
  dwb_ref(w, DW_AT_type, "int");
  dwb_die(w, "subrange_bound_expr", NULL);
  dwb_block(w, DW_AT_upper_bound, (const uint8_t[]){DW_OP_fbreg, 0x10}, 2);
  dwb_end_children(w);
  dwb_die(w, "typedef", "myint");
  dwb_str(w, DW_AT_name, "myint");
  dwb_ref(w, DW_AT_type, "int");
  dwb_die(w, "base_type", "float");
  dwb_str(w, DW_AT_name, "float");
  dwb_u(w, DW_AT_encoding, DW_ATE_float);
  dwb_u(w, DW_AT_byte_size, 4);
}

static void sample_subprogram(dwb *w, size_t list_y)
{
  dwb_die(w, "subprogram", "kern");
  dwb_str(w, DW_AT_name, "kern");
  dwb_u(w, DW_AT_low_pc, 0); /* address index 0 */
  dwb_u(w, DW_AT_high_pc, 0x200);
  dwb_block(w, DW_AT_frame_base, (const uint8_t[]){DW_OP_regx, 0x41}, 2);
  dwb_die(w, "variable_loclistx", "x");
  dwb_str(w, DW_AT_name, "x");
  dwb_ref(w, DW_AT_type, "const S *");
  dwb_u(w, DW_AT_location, 0);
  dwb_die(w, "parameter_list", "y");
  dwb_str(w, DW_AT_name, "y");
  dwb_ref(w, DW_AT_type, "int[2][3]");
  dwb_u(w, DW_AT_location, list_y);
  dwb_die(w, "block", "block");
  dwb_u(w, DW_AT_ranges, 0);
  dwb_die(w, "variable_expr", "z");
  dwb_str(w, DW_AT_name, "z");
  dwb_ref(w, DW_AT_type, "myint");
  dwb_block(w, DW_AT_location,
            (const uint8_t[]){DW_OP_fbreg, 0x04, DW_OP_lit1, DW_OP_swap, DW_OP_xderef}, 5);
  dwb_end_children(w); /* block */
  dwb_end_children(w); /* subprogram */
}

static void sample_info(dwarf5_sample *d)
{
  dwb *w = &d->dies;
  dwb_init(w);
  sample_abbrevs(w);
  dwb_unit_begin(w, 5);
  sample_unit_die(w, TEST_DW_LANG_LLVM_HIP, "a.cl", 0x1000, 0x1000);
  sample_types(w);
  sample_subprogram(w, d->list_y);
  dwb_end_children(w);
  dwb_unit_end(w);

  dwb_unit_begin(w, 5);
  sample_unit_die(w, TEST_DW_LANG_HIP, "b.hip", 0x5000, 0x100);
  dwb_die(w, "variable_lane_pc", "lanes");
  dwb_str(w, DW_AT_name, "lanes");
  dwb_block(w, DW_AT_location, (const uint8_t[]){DW_OP_reg0}, 1);
  /* DW_OP_constu 0x4567 (a 3-byte ULEB), DW_OP_stack_value */
  dwb_block(w, TEST_DW_AT_LLVM_lane_pc_old,
            (const uint8_t[]){DW_OP_constu, 0xe7, 0x8a, 0x01, DW_OP_stack_value}, 5);
  dwb_end_children(w);
  dwb_unit_end(w);
  dwb_finish(w);

  d->off_int = dwb_offset(w, "int");
  d->off_struct = dwb_offset(w, "S");
  d->off_const = dwb_offset(w, "const S");
  d->off_ptr = dwb_offset(w, "const S *");
  d->off_arr = dwb_offset(w, "int[2][3]");
  d->off_arr_expr = dwb_offset(w, "int[]");
  d->off_typedef = dwb_offset(w, "myint");
  d->off_vec = dwb_offset(w, "float");
  d->off_sub = dwb_offset(w, "kern");
  d->off_x = dwb_offset(w, "x");
  d->off_y = dwb_offset(w, "y");
  d->off_block = dwb_offset(w, "block");
  d->off_z = dwb_offset(w, "z");
  d->off_ext_var = dwb_offset(w, "lanes");
}

void dwarf5_sample_build(dwarf5_sample *d)
{
  memset(d, 0, sizeof *d);
  sample_addr(d);
  sample_loclists(d);
  sample_rnglists(d);
  sample_line(d);
  sample_info(d);
}

size_t dwarf5_sample_image(const dwarf5_sample *d, uint8_t *image, size_t cap)
{
  const elf_sec s[] = {
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &d->dies.abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &d->dies.info),
      ELF_SEC(".debug_addr", TEST_SHT_PROGBITS, &d->addr),
      ELF_SEC(".debug_loclists", TEST_SHT_PROGBITS, &d->loclists),
      ELF_SEC(".debug_rnglists", TEST_SHT_PROGBITS, &d->rnglists),
      ELF_SEC(".debug_line", TEST_SHT_PROGBITS, &d->line),
      ELF_SEC(".debug_line_str", TEST_SHT_PROGBITS, &d->line_str),
  };
  /* gfx900 (0x2c), code object v5 (ABI version 3) */
  const elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 3, 0x2c};
  return elf_build(image, cap, &p, s, sizeof s / sizeof s[0]);
}

size_t dwarf5_sample_object(dwarf5_sample *d, uint8_t *image, size_t cap)
{
  dwarf5_sample_build(d);
  d->image_size = dwarf5_sample_image(d, image, cap);
  return d->image_size;
}

amddwarf_object *dwarf5_sample_open(dwarf5_sample *d, uint8_t *image, size_t cap)
{
  amddwarf_object *o = NULL;
  amddwarf_error err;
  size_t size = dwarf5_sample_object(d, image, cap);
  assert_int_equal(open_test_object(image, size, &o, &err), AMDDWARF_OK);
  return o;
}
