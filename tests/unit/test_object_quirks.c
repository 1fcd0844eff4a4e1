/* Producer quirks (src/object/quirks.def): which producers a quirk applies
 * to, which expressions match its pattern (exactly, and nothing one
 * operation off), and the reading the normalizer gives them, against
 * hand-encoded DWARF (DWARF numbers from the AMDGPU register map of
 * AMDGPUUsage: SGPR0 32, VGPR0 2560 in wave64 and 1536 in wave32). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object_fixture.h"

static uint8_t image[1 << 16];

static amddwarf_quirk named(const char *name)
{
  amddwarf_quirk q = AMDDWARF_QUIRK_NONE;
  assert_int_equal(amddwarf_quirk_from_name(name, &q), AMDDWARF_OK);
  return q;
}

static void test_producers(void **state)
{
  (void)state;
  uint32_t both = AMDDWARF_QUIRK_BIT(named("promoted_register")) |
                  AMDDWARF_QUIRK_BIT(named("promoted_constant"));
  assert_int_equal(amddwarf_quirk_count(), 2);
  /* What Debian 12's clang-19 and hipcc (clang-15) write. */
  assert_int_equal(amddwarf_quirks_of_producer("Debian clang version 19.1.7 (3~deb12u1)"), both);
  assert_int_equal(amddwarf_quirks_of_producer("Debian clang version 15.0.6"), both);
  assert_int_equal(amddwarf_quirks_of_producer(
                       "clang version 15.0.0 (https://github.com/RadeonOpenCompute/llvm-project "
                       "roc-5.2.3 22324 d6c88e5a78066d5d7a1e8db6c5e3e9884c6ad10e)"),
                   both);
  /* Versions and vendors the table does not list. */
  assert_int_equal(amddwarf_quirks_of_producer("Debian clang version 18.1.8"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("Debian clang version 190.1"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("Debian clang version 19"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("Ubuntu clang version 19.1.1"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("clang version 19.1.7"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("AMD clang version 17.0.0 (roc-6.1.0)"), 0);
  assert_int_equal(amddwarf_quirks_of_producer("GNU C17 12.2.0"), 0);
  assert_int_equal(amddwarf_quirks_of_producer(""), 0);
  assert_int_equal(amddwarf_quirks_of_producer(NULL), 0);
  assert_null(amddwarf_quirk_get(AMDDWARF_QUIRK_NONE));
  assert_null(amddwarf_quirk_get(3));
  assert_int_equal(amddwarf_quirk_from_name("nope", &(amddwarf_quirk){0}), AMDDWARF_NOT_FOUND);
  amddwarf_quirk_producer_info p;
  assert_int_equal(amddwarf_quirk_producer(0, &p), AMDDWARF_OK);
  assert_string_equal(p.prefix, "Debian clang version ");
  assert_int_equal(amddwarf_quirk_producer(amddwarf_quirk_producer_count(), &p),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

typedef struct fixture {
  dwarf5_sample d;
  amddwarf_object *o;
  amddwarf_cu cu;  /* unit 0 (legacy) as Debian clang-19 would have it */
} fixture;

static fixture *fx;

static int setup(void **state)
{
  (void)state;
  static fixture f;
  f.o = dwarf5_sample_open(&f.d, image, sizeof image);
  assert_non_null(f.o);
  f.cu = *amddwarf_object_cu(f.o, 0);
  assert_int_equal(f.cu.convention, AMDDWARF_CONVENTION_LEGACY);
  f.cu.producer = "Debian clang version 19.1.7 (3~deb12u1)";
  f.cu.quirks = amddwarf_quirks_of_producer(f.cu.producer);
  fx = &f;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  amddwarf_object_close(fx->o);
  return 0;
}

static amddwarf_quirk quirk_of(const amddwarf_cu *cu, const uint8_t *bytes, size_t size)
{
  return amddwarf_object_expr_quirk(fx->o, cu, AMDDWARF_ROLE_LOCATION, bytes, size);
}

/* The normalized bytes of BYTES under CU equal WANT. */
static void reads_as(const amddwarf_cu *cu, const uint8_t *bytes, size_t size,
                     const uint8_t *want, size_t want_size)
{
  uint8_t out[64];
  size_t n = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_normalize_expr(fx->o, cu, AMDDWARF_ROLE_LOCATION, bytes, size,
                                                  out, sizeof out, &n, &err),
                   AMDDWARF_OK);
  assert_int_equal(n, want_size);
  assert_memory_equal(out, want, want_size);
}

static void test_register_pattern(void **state)
{
  (void)state;
  const amddwarf_cu *cu = &fx->cu;
  amddwarf_quirk reg = named("promoted_register");
  /* DW_OP_bregx VGPR2 (wave64 2562 = ULEB 0x82 0x14) +0, lit1, swap, xderef:
     clang-19 -O2 for gfx90a. Read as the lane's dword of VGPR2: regx VGPR2,
     DW_OP_LLVM_push_lane (0xe9 0x03), lit4, mul, DW_OP_LLVM_offset
     (0xe9 0x04), piece 4. */
  const uint8_t v2[] = {0x92, 0x82, 0x14, 0x00, 0x31, 0x16, 0x18};
  const uint8_t v2_value[] = {0x90, 0x82, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  assert_int_equal(quirk_of(cu, v2, sizeof v2), reg);
  reads_as(cu, v2, sizeof v2, v2_value, sizeof v2_value);
  /* Wave32 VGPR3 (1539 = 0x83 0x0c), as for gfx1030. */
  const uint8_t w32[] = {0x92, 0x83, 0x0c, 0x00, 0x31, 0x16, 0x18};
  assert_int_equal(quirk_of(cu, w32, sizeof w32), reg);
  /* SGPR40 (72): its 4 bytes, regx SGPR40, piece 4. */
  const uint8_t s40[] = {0x92, 0x48, 0x00, 0x31, 0x16, 0x18};
  const uint8_t s40_value[] = {0x90, 0x48, 0x93, 0x04};
  assert_int_equal(quirk_of(cu, s40, sizeof s40), reg);
  reads_as(cu, s40, sizeof s40, s40_value, sizeof s40_value);

  /* One operation off: no quirk, the literal reading (a private address). */
  const uint8_t offset1[] = {0x92, 0x82, 0x14, 0x01, 0x31, 0x16, 0x18};  /* +1 */
  const uint8_t local[] = {0x92, 0x82, 0x14, 0x00, 0x32, 0x16, 0x18};    /* lit2 */
  const uint8_t no_swap[] = {0x92, 0x82, 0x14, 0x00, 0x31, 0x18};        /* no swap */
  const uint8_t deref[] = {0x92, 0x82, 0x14, 0x00, 0x31, 0x16, 0x06};    /* deref */
  const uint8_t piece[] = {0x92, 0x82, 0x14, 0x00, 0x31, 0x16, 0x18, 0x93, 0x04};
  const uint8_t two[] = {0x92, 0x82, 0x14, 0x00, 0x31, 0x16, 0x18, 0x31, 0x16, 0x18};
  const uint8_t lead[] = {0x96, 0x92, 0x82, 0x14, 0x00, 0x31, 0x16, 0x18}; /* nop first */
  const uint8_t pc[] = {0x80, 0x00, 0x31, 0x16, 0x18}; /* breg16: PC_64 */
  const uint8_t constu1[] = {0x92, 0x82, 0x14, 0x00, 0x10, 0x01, 0x16, 0x18}; /* constu 1 */
  const uint8_t *off[] = {offset1, local, no_swap, deref, piece, two, lead, pc, constu1};
  const size_t off_size[] = {sizeof offset1, sizeof local, sizeof no_swap, sizeof deref,
                             sizeof piece,   sizeof two,   sizeof lead,    sizeof pc,
                             sizeof constu1};
  for (size_t i = 0; i < sizeof off / sizeof off[0]; ++i)
    assert_int_equal(quirk_of(cu, off[i], off_size[i]), AMDDWARF_QUIRK_NONE);
  /* The literal reading: the lane's dword of VGPR2 as a private_lane (5)
     address, DW_OP_LLVM_form_aspace_address (0xe9 0x02). */
  const uint8_t v2_literal[] = {0x90, 0x82, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9,
                                0x04, 0x94, 0x04, 0x35, 0xe9, 0x02};

  /* Another producer, or the literal option: no quirk. */
  amddwarf_cu other = *cu;
  other.producer = "Debian clang version 18.1.8";
  other.quirks = amddwarf_quirks_of_producer(other.producer);
  assert_int_equal(quirk_of(&other, v2, sizeof v2), AMDDWARF_QUIRK_NONE);
  reads_as(&other, v2, sizeof v2, v2_literal, sizeof v2_literal);
  /* An extension unit is never read through a quirk. */
  amddwarf_cu ext = *cu;
  ext.convention = AMDDWARF_CONVENTION_EXTENSION;
  assert_int_equal(quirk_of(&ext, v2, sizeof v2), AMDDWARF_QUIRK_NONE);
  /* Frame bases are not variables' locations. */
  assert_int_equal(amddwarf_object_expr_quirk(fx->o, cu, AMDDWARF_ROLE_FRAME_BASE, v2,
                                              sizeof v2),
                   AMDDWARF_QUIRK_NONE);
}

static void test_constant_pattern(void **state)
{
  (void)state;
  const amddwarf_cu *cu = &fx->cu;
  amddwarf_quirk cst = named("promoted_constant");
  /* consts +1, lit1, swap, xderef, stack_value: the value 1. */
  const uint8_t one[] = {0x11, 0x01, 0x31, 0x16, 0x18, 0x9f};
  const uint8_t one_value[] = {0x11, 0x01, 0x9f};
  const uint8_t one_literal[] = {0x11, 0x01, 0x35, 0xe9, 0x02};
  assert_int_equal(quirk_of(cu, one, sizeof one), cst);
  reads_as(cu, one, sizeof one, one_value, sizeof one_value);
  /* lit7 and constu 300 too. */
  const uint8_t lit7[] = {0x37, 0x31, 0x16, 0x18, 0x9f};
  const uint8_t c300[] = {0x10, 0xac, 0x02, 0x31, 0x16, 0x18, 0x9f};
  assert_int_equal(quirk_of(cu, lit7, sizeof lit7), cst);
  assert_int_equal(quirk_of(cu, c300, sizeof c300), cst);
  /* Without stack_value it is an address; with lit2 it is local; with a
     register base it is not a constant. */
  const uint8_t address[] = {0x11, 0x01, 0x31, 0x16, 0x18};
  const uint8_t local[] = {0x11, 0x01, 0x32, 0x16, 0x18, 0x9f};
  const uint8_t addr_plus[] = {0x11, 0x01, 0x23, 0x04, 0x31, 0x16, 0x18, 0x9f};
  assert_int_equal(quirk_of(cu, address, sizeof address), AMDDWARF_QUIRK_NONE);
  assert_int_equal(quirk_of(cu, local, sizeof local), AMDDWARF_QUIRK_NONE);
  assert_int_equal(quirk_of(cu, addr_plus, sizeof addr_plus), AMDDWARF_QUIRK_NONE);
  /* Both forms of the same output agree: literally, both are private memory. */
  amddwarf_cu none = *cu;
  none.quirks = 0;
  reads_as(&none, one, sizeof one, one_literal, sizeof one_literal);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_producers),
      cmocka_unit_test(test_register_pattern),
      cmocka_unit_test(test_constant_pattern),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
