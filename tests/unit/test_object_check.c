/* Unit tests of src/object's static checker: expressions alone, and the
 * lists and registers of a whole object (support/object_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object_fixture.h"

static uint8_t image[TEST_IMAGE_SIZE];

typedef struct kinds {
  unsigned seen[AMDDWARF_CHECK_KIND_COUNT];
  uint64_t op_offset;
} kinds;

static int collect(void *user, const amddwarf_check_problem *p)
{
  kinds *k = user;
  k->seen[p->kind]++;
  k->op_offset = p->op_offset;
  return 0;
}

static size_t check_bytes(const uint8_t *bytes, size_t size, kinds *k)
{
  size_t count = 0;
  amddwarf_error err;
  memset(k, 0, sizeof *k);
  assert_int_equal(amddwarf_object_check_expr(NULL, NULL, bytes, size, collect, k, &count, &err),
                   AMDDWARF_OK);
  return count;
}

static void test_check_expressions(void **state)
{
  (void)state;
  kinds k;
  /* clang's private variable: clean */
  const uint8_t ok[] = {0x91, 0x08, 0x31, 0x16, 0x18};
  assert_int_equal(check_bytes(ok, sizeof ok, &k), 0);
  /* swap with one entry */
  const uint8_t under[] = {0x31, 0x16};
  assert_int_equal(check_bytes(under, sizeof under, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_STACK_UNDERFLOW], 1);
  assert_int_equal(k.op_offset, 1);
  /* underflow on only one path: lit0 bra +1 (skips lit1) then plus */
  const uint8_t path[] = {0x30, 0x30, 0x28, 0x01, 0x00, 0x31, 0x22};
  assert_int_equal(check_bytes(path, sizeof path, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_STACK_UNDERFLOW], 1);
  /* legacy xderef address space 3 does not exist */
  const uint8_t aspace[] = {0x91, 0x08, 0x33, 0x16, 0x18};
  assert_int_equal(check_bytes(aspace, sizeof aspace, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_ADDRESS_SPACE], 1);
  /* register 5 is not in the map; wave32 VGPR0 (1536) in a wave64 object */
  const uint8_t reg[] = {0x90, 0x05};
  assert_int_equal(check_bytes(reg, sizeof reg, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_REGISTER], 1);
  const uint8_t wave[] = {0x90, 0x80, 0x0c};
  assert_int_equal(check_bytes(wave, sizeof wave, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_WAVE_REGISTER], 1);
  /* an 8-byte piece of a 32-bit SGPR; a 4-byte piece of a 2-byte implicit value */
  const uint8_t piece[] = {0x90, 0x20, 0x93, 0x08};
  assert_int_equal(check_bytes(piece, sizeof piece, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_PIECE_OVERRUN], 1);
  const uint8_t implicit[] = {0x9e, 0x02, 0xaa, 0xbb, 0x93, 0x04};
  assert_int_equal(check_bytes(implicit, sizeof implicit, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_PIECE_OVERRUN], 1);
  const uint8_t piece_ok[] = {0x90, 0x20, 0x93, 0x04, 0x90, 0x21, 0x93, 0x04};
  assert_int_equal(check_bytes(piece_ok, sizeof piece_ok, &k), 0);
  /* nothing left on the stack */
  const uint8_t empty[] = {0x31, 0x13};
  assert_int_equal(check_bytes(empty, sizeof empty, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_EMPTY_RESULT], 1);
  /* decode errors: unknown opcode, branch past the end */
  const uint8_t bad_op[] = {0x31, 0xff};
  assert_int_equal(check_bytes(bad_op, sizeof bad_op, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_DECODE], 1);
  const uint8_t bad_branch[] = {0x2f, 0x05, 0x00, 0x30};
  assert_int_equal(check_bytes(bad_branch, sizeof bad_branch, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_DECODE], 1);
  /* DW_OP_pick 3 with two entries */
  const uint8_t pick[] = {0x30, 0x31, 0x15, 0x03};
  assert_int_equal(check_bytes(pick, sizeof pick, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_STACK_OP], 1);
  /* a loop terminates the analysis: lit1, skip -3 back to itself is a cycle */
  const uint8_t loop[] = {0x31, 0x2f, 0xfd, 0xff};
  check_bytes(loop, sizeof loop, &k);
  assert_string_equal(amddwarf_check_kind_name(AMDDWARF_CHECK_LIST_OVERLAP), "list_overlap");
  assert_null(amddwarf_check_kind_name(AMDDWARF_CHECK_KIND_COUNT));
}

static void test_check_object_lists(void **state)
{
  (void)state;
  static dwarf5_sample d;
  amddwarf_object *o = dwarf5_sample_open(&d, image, sizeof image);
  amddwarf_error err;
  kinds k;
  size_t count = 0;
  memset(&k, 0, sizeof k);
  assert_int_equal(amddwarf_object_check(o, collect, &k, &count, &err), AMDDWARF_OK);
  /* list x: [0x1110,0x1120) lies inside [0x1000,0x1200): one overlap.
     x's DW_OP_reg0..2 name PC_32, EXEC_MASK_32 (a wave32 register in this
     wave64 object) and register 2 (reserved); y's DW_OP_reg3 is reserved. */
  assert_int_equal(k.seen[AMDDWARF_CHECK_LIST_OVERLAP], 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_REGISTER], 2);
  assert_int_equal(k.seen[AMDDWARF_CHECK_WAVE_REGISTER], 1);
  assert_int_equal(count, 4);
  /* Every unit was checked through DIE references: none was summarized. */
  assert_int_equal(amddwarf_object_summarized_units(o), 0);
  amddwarf_object_close(o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_expressions),
      cmocka_unit_test(test_check_object_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
