/* DWARF constants: the enums and names that <amddwarf/dwarf.h> makes of
 * dwarf.def, and the families that name attribute values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/dwarf.h>

/* One switch a family: a code listed twice in dwarf.def is a duplicate case
   label, which does not compile. */
static int tag_listed(unsigned code)
{
  switch (code) {
#define AMDDWARF_DW_TAG(name, value) case value:
#include <amddwarf/dwarf.def>
    return 1;
  }
  return 0;
}

static int attribute_listed(unsigned code)
{
  switch (code) {
#define AMDDWARF_DW_AT(name, value) case value:
#define AMDDWARF_DW_AT_RENUMBERED(name, value) case value:
#include <amddwarf/dwarf.def>
    return 1;
  }
  return 0;
}

static int language_listed(unsigned code)
{
  switch (code) {
#define AMDDWARF_DW_LANG(name, value) case value:
#include <amddwarf/dwarf.def>
    return 1;
  }
  return 0;
}

static void test_every_listed_code_has_its_name(void **state)
{
  (void)state;
  for (unsigned code = 0; code <= 0xffff; ++code) {
    assert_int_equal(tag_listed(code), amddwarf_dw_tag_name(code) != NULL);
    assert_int_equal(attribute_listed(code), amddwarf_dw_at_name(code) != NULL);
    assert_int_equal(language_listed(code), amddwarf_dw_lang_name(code) != NULL);
  }
}

static void test_standard_names(void **state)
{
  (void)state;
  assert_int_equal(AMDDWARF_DW_TAG_variable, 0x34);
  assert_string_equal(amddwarf_dw_tag_name(AMDDWARF_DW_TAG_variable), "DW_TAG_variable");
  assert_string_equal(amddwarf_dw_tag_name(0x48), "DW_TAG_call_site");
  assert_string_equal(amddwarf_dw_at_name(0x7a), "DW_AT_call_all_calls");
  assert_string_equal(amddwarf_dw_form_name(0x1f), "DW_FORM_line_strp");
  assert_string_equal(amddwarf_dw_lang_name(0x15), "DW_LANG_OpenCL");
  assert_string_equal(amddwarf_dw_ate_name(AMDDWARF_DW_ATE_UTF), "DW_ATE_UTF");
  assert_string_equal(amddwarf_dw_name(AMDDWARF_DW_FAMILY_LLE, AMDDWARF_DW_LLE_offset_pair),
                      "DW_LLE_offset_pair");
  assert_string_equal(amddwarf_dw_name(AMDDWARF_DW_FAMILY_UT, 1), "DW_UT_compile");
  assert_null(amddwarf_dw_tag_name(0x3e)); /* unassigned */
  assert_null(amddwarf_dw_name(AMDDWARF_DW_FAMILY_COUNT, 1));
  assert_null(amddwarf_dw_name(AMDDWARF_DW_FAMILY_TAG, 0x10034)); /* past 16 bits */
}

/* DESIGN.md section 6: the extension attributes under both their numbers. */
static void test_extension_codes(void **state)
{
  (void)state;
  assert_int_equal(AMDDWARF_DW_AT_LLVM_lane_pc_old, 0x3e0b);
  assert_int_equal(AMDDWARF_DW_AT_LLVM_lane_pc, 0x3e12);
  assert_string_equal(amddwarf_dw_at_name(0x3e0a), "DW_AT_LLVM_lanes");
  assert_string_equal(amddwarf_dw_at_name(0x3e11), "DW_AT_LLVM_lanes");
  assert_string_equal(amddwarf_dw_at_name(0x3e0c), "DW_AT_LLVM_vector_size");
  assert_string_equal(amddwarf_dw_at_name(0x3e13), "DW_AT_LLVM_vector_size");
  assert_string_equal(amddwarf_dw_at_name(0x3e08), "DW_AT_LLVM_active_lane");
  assert_string_equal(amddwarf_dw_at_name(0x3e09), "DW_AT_LLVM_augmentation");
  assert_string_equal(amddwarf_dw_at_name(0x3e0f), "DW_AT_LLVM_memory_space");
  assert_string_equal(amddwarf_dw_at_name(0x3e10), "DW_AT_LLVM_address_space");
  assert_string_equal(amddwarf_dw_lang_name(0x8100), "DW_LANG_LLVM_HIP");
  assert_string_equal(amddwarf_dw_lang_name(0x0030), "DW_LANG_HIP");
}

static void test_attribute_values(void **state)
{
  (void)state;
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_language, 0x8100),
                      "DW_LANG_LLVM_HIP");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_encoding, 5), "DW_ATE_signed");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_inline, 1), "DW_INL_inlined");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_calling_convention, 0xc7),
                      "DW_CC_LLVM_OpenCLKernel");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_accessibility, 3),
                      "DW_ACCESS_private");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_virtuality, 0),
                      "DW_VIRTUALITY_none");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_endianity, 2), "DW_END_little");
  assert_string_equal(amddwarf_dw_value_name(AMDDWARF_DW_AT_defaulted, 1),
                      "DW_DEFAULTED_in_class");
  assert_null(amddwarf_dw_value_name(AMDDWARF_DW_AT_encoding, 0x99)); /* no such encoding */
  assert_null(amddwarf_dw_value_name(AMDDWARF_DW_AT_byte_size, 5));   /* a plain number */
  amddwarf_dw_family family = AMDDWARF_DW_FAMILY_TAG;
  assert_int_equal(amddwarf_dw_value_family(AMDDWARF_DW_AT_inline, &family), 1);
  assert_int_equal(family, AMDDWARF_DW_FAMILY_INL);
  assert_int_equal(amddwarf_dw_value_family(AMDDWARF_DW_AT_byte_size, &family), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_listed_code_has_its_name),
      cmocka_unit_test(test_standard_names),
      cmocka_unit_test(test_extension_codes),
      cmocka_unit_test(test_attribute_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
