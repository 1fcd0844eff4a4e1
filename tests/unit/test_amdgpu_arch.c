/* Unit tests of the architecture queries (isa.def + arch_family.def): the
 * values amd-dbgapi reports (specs/architectures.md), target-ID parsing with
 * every error path, and e_flags decoding for code objects v3 and v4+.
 * Breakpoint bytes were checked against `llvm-mc-19 -show-encoding` of
 * "s_trap 7" per processor (tests/corpus/test_arch.py repeats that check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amdgpu.h>

static void test_count_and_order(void **state)
{
  (void)state;
  /* isa.def has 36 processors, 5 of them gfx8 (no amd-dbgapi support). */
  assert_int_equal(amddwarf_arch_count(), 31);
  amddwarf_arch a;
  assert_int_equal(amddwarf_arch_get(0, &a), AMDDWARF_OK);
  assert_string_equal(a.processor, "gfx900");
  assert_int_equal(amddwarf_arch_get(30, &a), AMDDWARF_OK);
  assert_string_equal(a.processor, "gfx1201");
  assert_int_equal(amddwarf_arch_get(31, &a), AMDDWARF_NOT_FOUND);
  /* Every entry is gfx9..gfx12 with a 4-byte s_trap 7 and PC_64. */
  for (size_t i = 0; amddwarf_arch_get(i, &a) == AMDDWARF_OK; i++) {
    assert_true(a.major >= 9 && a.major <= 12);
    assert_int_equal(a.breakpoint_size, 4);
    assert_int_equal(a.breakpoint[0], 0x07);
    assert_int_equal(a.breakpoint[3], 0xbf);
    assert_int_equal(a.breakpoint[2], a.major >= 11 ? 0x90 : 0x92);
    assert_int_equal(a.breakpoint_pc_adjust, 4);
    assert_int_equal(a.pc_regno, 16);
    assert_int_equal(a.pc_size, 8);
    assert_int_equal(a.minimum_instruction_alignment, 4);
    assert_int_equal(a.wave_size, 0);
  }
}

static void test_gfx9_and_gfx10_values(void **state)
{
  (void)state;
  amddwarf_arch a;
  assert_int_equal(amddwarf_arch_from_name("gfx900", &a, NULL), AMDDWARF_OK);
  assert_string_equal(a.family, "gfx9");
  assert_int_equal(a.mach, 0x2c);
  assert_int_equal(a.default_wave_size, 64);
  assert_int_equal(a.wave32, 0);
  assert_int_equal(a.wave64, 1);
  assert_int_equal(a.has_agprs, 0);
  assert_int_equal(a.largest_instruction_size, 8);
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_ANY);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_UNSUPPORTED);
  static const uint8_t trap_gfx9[4] = {0x07, 0x00, 0x92, 0xbf};
  assert_memory_equal(a.breakpoint, trap_gfx9, 4);

  assert_int_equal(amddwarf_arch_from_name("GFX90A", &a, NULL), AMDDWARF_OK);
  assert_int_equal(a.has_agprs, 1);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_ANY);

  assert_int_equal(amddwarf_arch_from_name("gfx1030", &a, NULL), AMDDWARF_OK);
  assert_string_equal(a.family, "gfx10");
  assert_int_equal(a.default_wave_size, 32);
  assert_int_equal(a.wave32, 1);
  assert_int_equal(a.wave64, 1);
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_UNSUPPORTED);

  assert_int_equal(amddwarf_arch_from_name("gfx1100", &a, NULL), AMDDWARF_OK);
  static const uint8_t trap_gfx11[4] = {0x07, 0x00, 0x90, 0xbf};
  assert_memory_equal(a.breakpoint, trap_gfx11, 4);
  assert_string_equal(a.breakpoint_text, "s_trap 7");
}

static void test_target_ids(void **state)
{
  (void)state;
  amddwarf_arch a;
  char buf[64];
  assert_int_equal(amddwarf_arch_from_name("amdgcn-amd-amdhsa--gfx90a:xnack-:sramecc+", &a, NULL),
                   AMDDWARF_OK);
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_OFF);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_ON);
  assert_int_equal(amddwarf_arch_target_id(&a, buf, sizeof buf), AMDDWARF_OK);
  assert_string_equal(buf, "gfx90a:sramecc+:xnack-");

  assert_int_equal(amddwarf_arch_from_name("gfx1030:wave64", &a, NULL), AMDDWARF_OK);
  assert_int_equal(a.wave_size, 64);
  assert_int_equal(amddwarf_arch_target_id(&a, buf, sizeof buf), AMDDWARF_OK);
  assert_string_equal(buf, "gfx1030:wave64");
  assert_int_equal(amddwarf_arch_target_id(&a, buf, 5), AMDDWARF_E_NO_SPACE);
  assert_string_equal(buf, "gfx1");
  assert_string_equal(amddwarf_arch_feature_name(AMDDWARF_ARCH_FEATURE_OFF), "off");
  assert_null(amddwarf_arch_feature_name((amddwarf_arch_feature)4));
}

typedef struct bad_case {
  const char *id;
  amddwarf_status status;
  uint64_t offset;
  const char *message_part;
} bad_case;

static void test_bad_target_ids(void **state)
{
  (void)state;
  static const bad_case cases[] = {
      {"gfx9000", AMDDWARF_E_AMDGPU_UNKNOWN_PROCESSOR, 0, "unknown processor 'gfx9000'"},
      {"", AMDDWARF_E_AMDGPU_UNKNOWN_PROCESSOR, 0, "unknown processor"},
      {"gfx803", AMDDWARF_E_UNSUPPORTED, UINT64_MAX, "not supported by amd-dbgapi"},
      {"gfx1030:xnack+", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 8, "has no xnack"},
      {"gfx900:sramecc-", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 7, "has no sramecc"},
      {"gfx90a:xnack", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 7, "needs a '+' or '-'"},
      {"gfx90a:xnack+:xnack-", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 14, "given twice"},
      {"gfx90a:tgsplit+", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 7, "unknown feature 'tgsplit'"},
      {"gfx900:wave32", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 7, "does not run wave32"},
      {"gfx1100:wave32:wave64", AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, 15, "wave size is given twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    amddwarf_arch a;
    memset(&a, 0xa5, sizeof a);
    amddwarf_error err;
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_arch_from_name(cases[i].id, &a, &err), cases[i].status);
    assert_int_equal(err.status, cases[i].status);
    assert_int_equal(err.offset, cases[i].offset);
    assert_non_null(strstr(err.message, cases[i].message_part));
    /* Nothing is written on failure. */
    assert_int_equal(((unsigned char *)&a)[0], 0xa5);
  }
  assert_int_equal(amddwarf_arch_from_name(NULL, NULL, NULL), AMDDWARF_E_INVALID_ARGUMENT);
}

static void test_e_flags(void **state)
{
  (void)state;
  amddwarf_arch a;
  /* v4+ (ABI version 2..): 0x73f = gfx90a, xnack on (0x300), sramecc any (0x400);
     the same flags llvm-readelf-19 prints as "gfx90a, xnack+, sramecc". */
  assert_int_equal(amddwarf_arch_from_e_flags(0x73f, 2, &a, NULL), AMDDWARF_OK);
  assert_string_equal(a.processor, "gfx90a");
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_ON);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_ANY);
  /* 0xa3f: xnack off (0x200), sramecc off (0x800). */
  assert_int_equal(amddwarf_arch_from_e_flags(0xa3f, 3, &a, NULL), AMDDWARF_OK);
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_OFF);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_OFF);
  /* v3 (ABI version 1): single bits, 0x100 xnack on, 0x200 sramecc on. */
  assert_int_equal(amddwarf_arch_from_e_flags(0x22f, 1, &a, NULL), AMDDWARF_OK);
  assert_string_equal(a.processor, "gfx906");
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_ANY);
  assert_int_equal(a.sramecc, AMDDWARF_ARCH_FEATURE_ON);
  /* Feature bits on a processor without the feature are ignored. */
  assert_int_equal(amddwarf_arch_from_e_flags(0x336, 2, &a, NULL), AMDDWARF_OK);
  assert_string_equal(a.processor, "gfx1030");
  assert_int_equal(a.xnack, AMDDWARF_ARCH_FEATURE_UNSUPPORTED);

  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_arch_from_e_flags(0x7f, 2, &a, &err),
                   AMDDWARF_E_AMDGPU_UNKNOWN_PROCESSOR);
  assert_non_null(strstr(err.message, "0x7f"));
  assert_int_equal(amddwarf_arch_from_e_flags(0x2a, 2, &a, &err), AMDDWARF_E_UNSUPPORTED);
  assert_non_null(strstr(err.message, "gfx803"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_count_and_order),
      cmocka_unit_test(test_gfx9_and_gfx10_values),
      cmocka_unit_test(test_target_ids),
      cmocka_unit_test(test_bad_target_ids),
      cmocka_unit_test(test_e_flags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
