/* Unit tests of the AMDGPU DWARF register map (regs.def), checked against the
 * seed's "AMDGPU DWARF Register Mapping" table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <amddwarf/amdgpu.h>

typedef struct name_case {
  uint32_t dwarf;
  const char *dwarf_name;
  const char *asm_name;
  uint32_t bit_size;
  uint32_t lanes;
} name_case;

static void test_names_and_sizes_follow_the_mapping_table(void **state)
{
  (void)state;
  static const name_case cases[] = {
      {0, "PC_32", "pc", 32, 0},           {1, "EXEC_MASK_32", "exec_lo", 32, 0},
      {16, "PC_64", "pc", 64, 0},          {17, "EXEC_MASK_64", "exec", 64, 0},
      {32, "SGPR0", "s0", 32, 0},          {95, "SGPR63", "s63", 32, 0},
      {1088, "SGPR64", "s64", 32, 0},      {1129, "SGPR105", "s105", 32, 0},
      {1536, "VGPR0", "v0", 1024, 32},     {1791, "VGPR255", "v255", 1024, 32},
      {2048, "AGPR0", "a0", 1024, 32},     {2560, "VGPR0", "v0", 2048, 64},
      {2563, "VGPR3", "v3", 2048, 64},     {3327, "AGPR255", "a255", 2048, 64},
  };
  char buf[32];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    amddwarf_amdgpu_register info;
    assert_int_equal(amddwarf_amdgpu_register_info(cases[i].dwarf, &info), AMDDWARF_OK);
    assert_int_equal(info.bit_size, cases[i].bit_size);
    assert_int_equal(info.lanes, cases[i].lanes);
    assert_int_equal(amddwarf_amdgpu_register_name(cases[i].dwarf, AMDDWARF_REGISTER_DWARF_NAME,
                                                   buf, sizeof buf),
                     AMDDWARF_OK);
    assert_string_equal(buf, cases[i].dwarf_name);
    assert_int_equal(amddwarf_amdgpu_register_name(cases[i].dwarf, AMDDWARF_REGISTER_ASM_NAME,
                                                   buf, sizeof buf),
                     AMDDWARF_OK);
    assert_string_equal(buf, cases[i].asm_name);
  }
}

/* The kinds by the spec's mapping table, and the names llvm-dwarfdump-19
   prints for the same numbers (probed with .cfi_undefined N on gfx900:
   reg0, EXEC_LO_LO16, PC_REG, EXEC, SGPR1_LO16, VGPR3_LO16, AGPR0_LO16;
   LLVM's _LO16 names the 16-bit sub-register it lists first). */
static void test_kinds_and_llvm_names(void **state)
{
  (void)state;
  static const struct {
    uint32_t dwarf;
    amddwarf_register_kind kind;
    const char *llvm;
  } cases[] = {
      {0, AMDDWARF_REGISTER_KIND_PC, "PC_32"},       {1, AMDDWARF_REGISTER_KIND_EXEC, "EXEC_LO"},
      {16, AMDDWARF_REGISTER_KIND_PC, "PC_REG"},     {17, AMDDWARF_REGISTER_KIND_EXEC, "EXEC"},
      {33, AMDDWARF_REGISTER_KIND_SGPR, "SGPR1"},    {1129, AMDDWARF_REGISTER_KIND_SGPR, "SGPR105"},
      {1537, AMDDWARF_REGISTER_KIND_VGPR, "VGPR1"},  {2048, AMDDWARF_REGISTER_KIND_AGPR, "AGPR0"},
      {2563, AMDDWARF_REGISTER_KIND_VGPR, "VGPR3"},  {3072, AMDDWARF_REGISTER_KIND_AGPR, "AGPR0"},
  };
  char buf[32];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    amddwarf_amdgpu_register info;
    assert_int_equal(amddwarf_amdgpu_register_info(cases[i].dwarf, &info), AMDDWARF_OK);
    assert_int_equal(info.kind_id, cases[i].kind);
    assert_int_equal(amddwarf_amdgpu_register_name(cases[i].dwarf, AMDDWARF_REGISTER_LLVM_NAME,
                                                   buf, sizeof buf),
                     AMDDWARF_OK);
    assert_string_equal(buf, cases[i].llvm);
  }
}

static void test_reserved_numbers_are_not_found(void **state)
{
  (void)state;
  static const uint32_t reserved[] = {2, 15, 18, 31, 96, 127, 128, 1087, 1130, 1535, 1792,
                                      2304, 2816, 3328, 3583, 100000};
  char buf[16];
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
    amddwarf_amdgpu_register info;
    assert_int_equal(amddwarf_amdgpu_register_info(reserved[i], &info), AMDDWARF_NOT_FOUND);
    assert_int_equal(amddwarf_amdgpu_register_name(reserved[i], AMDDWARF_REGISTER_DWARF_NAME,
                                                   buf, sizeof buf),
                     AMDDWARF_NOT_FOUND);
  }
  assert_int_equal(amddwarf_amdgpu_register_name(96, AMDDWARF_REGISTER_DWARF_NAME, buf,
                                                 sizeof buf),
                   AMDDWARF_NOT_FOUND);
  assert_string_equal(buf, "reg96");
  assert_int_equal(amddwarf_amdgpu_register_name(2560, AMDDWARF_REGISTER_DWARF_NAME, buf, 3),
                   AMDDWARF_E_NO_SPACE);
}

typedef struct lookup_case {
  const char *name;
  unsigned wave_size;
  amddwarf_status status;
  uint32_t dwarf;
} lookup_case;

static void test_lookup_by_either_name_and_wave_size(void **state)
{
  (void)state;
  static const lookup_case cases[] = {
      {"v3", 64, AMDDWARF_OK, 2563},     {"v3", 32, AMDDWARF_OK, 1539},
      {"VGPR3", 64, AMDDWARF_OK, 2563},  {"a255", 32, AMDDWARF_OK, 2303},
      {"s33", 64, AMDDWARF_OK, 65},      {"SGPR64", 32, AMDDWARF_OK, 1088},
      {"s105", 64, AMDDWARF_OK, 1129},   {"exec", 64, AMDDWARF_OK, 17},
      {"exec", 32, AMDDWARF_OK, 1},      {"EXEC_MASK_32", 64, AMDDWARF_OK, 1},
      {"pc", 64, AMDDWARF_OK, 16},       {"PC_32", 64, AMDDWARF_OK, 0},
      {"s106", 64, AMDDWARF_NOT_FOUND, 0}, {"v256", 64, AMDDWARF_NOT_FOUND, 0},
      {"v03", 64, AMDDWARF_NOT_FOUND, 0},  {"x1", 64, AMDDWARF_NOT_FOUND, 0},
      {"v", 64, AMDDWARF_NOT_FOUND, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t dwarf = 0;
    assert_int_equal(amddwarf_amdgpu_register_lookup(cases[i].name, cases[i].wave_size, &dwarf),
                     cases[i].status);
    if (cases[i].status == AMDDWARF_OK)
      assert_int_equal(dwarf, cases[i].dwarf);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_and_sizes_follow_the_mapping_table),
      cmocka_unit_test(test_kinds_and_llvm_names),
      cmocka_unit_test(test_reserved_numbers_are_not_found),
      cmocka_unit_test(test_lookup_by_either_name_and_wave_size),
  };
  return cmocka_run_group_tests_name("amdgpu_registers", tests, NULL, NULL);
}
