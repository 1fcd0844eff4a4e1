/* Unit tests of src/object: a unit's references resolve to the DIEs at their
 * encoded offsets whatever units were loaded before it. Loading reuses one
 * offset -> DIE map for every unit without clearing it, so what an earlier
 * unit left in it must never be taken for a DIE of the unit being loaded.
 *
 * Input: tests/unit/data/three-units.elf, three clang-19 units of different
 * sizes linked together (tests/unit/data/three-units/build.sh); its
 * reference counts come from llvm-dwarfdump-19. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#define THREE_UNITS AMDDWARF_SOURCE_DIR "/tests/unit/data/three-units.elf"

enum {
  UNIT_COUNT = 3,
  TYPE_REFERENCES = 38, /* DW_AT_type attributes in the object */
  DIE_COUNT = 56,
  AT_TYPE = 0x49,       /* DW_AT_type */
};

typedef struct type_check {
  const amddwarf_die_info *die;
  size_t references;
  size_t mismatches;
} type_check;

/* Compares the DIE's resolved type with its DW_AT_type's encoded offset. */
static int check_type(void *user, const amddwarf_attribute *attribute)
{
  type_check *c = user;
  if (attribute->attribute != AT_TYPE)
    return 0;
  c->references++;
  if (c->die->type == NULL || c->die->type->offset != attribute->value.offset)
    c->mismatches++;
  return 0;
}

/* Opens the object, loads its units in ORDER, and checks every DW_AT_type;
   *TYPES gets each DIE's resolved type offset (UINT64_MAX: none). */
static void load_and_check(const size_t order[UNIT_COUNT], uint64_t types[DIE_COUNT])
{
  amddwarf_object *object = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_open_file(THREE_UNITS, NULL, &object, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu_count(object), UNIT_COUNT);
  for (size_t i = 0; i < UNIT_COUNT; ++i)
    assert_int_equal(amddwarf_object_load_unit(object, order[i], &err), AMDDWARF_OK);
  size_t references = 0;
  assert_int_equal(amddwarf_object_die_count(object), DIE_COUNT);
  for (size_t i = 0; i < DIE_COUNT; ++i) {
    type_check c = {amddwarf_object_die(object, i), 0, 0};
    assert_non_null(c.die);
    assert_int_equal(amddwarf_object_die_attributes(object, c.die, check_type, &c, &err),
                     AMDDWARF_OK);
    assert_int_equal(c.mismatches, 0);
    references += c.references;
    types[i] = c.die->type ? c.die->type->offset : UINT64_MAX;
  }
  assert_int_equal(references, TYPE_REFERENCES);
  amddwarf_object_close(object);
}

static void test_references_resolve_in_any_load_order(void **state)
{
  (void)state;
  /* Largest unit first: the smaller units are walked over its entries. */
  static const size_t forward[UNIT_COUNT] = {0, 1, 2};
  static const size_t backward[UNIT_COUNT] = {2, 1, 0};
  static const size_t middle_first[UNIT_COUNT] = {1, 0, 2};
  uint64_t a[DIE_COUNT], b[DIE_COUNT], c[DIE_COUNT];
  load_and_check(forward, a);
  load_and_check(backward, b);
  load_and_check(middle_first, c);
  assert_memory_equal(a, b, sizeof a);
  assert_memory_equal(a, c, sizeof a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_references_resolve_in_any_load_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
