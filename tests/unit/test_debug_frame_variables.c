/* The variables a frame lists (src/debug/frame_variables.c,
 * amddwarf_wave_frame_variables and amddwarf_wave_frame_variable_find) on a
 * built program stopped at 0x10 in a lexical block of f:
 *
 *   global  x      int at 0x2000 (frame.cl:1), shadowed by f's x
 *   f       param p (frame.cl:2, s4 = 7), param n (frame.cl:2, s5 = 8),
 *           var s  struct S (frame.cl:3, at 0x1000 = {-5, 0.25}),
 *           var x  int (frame.cl:4, s6 = 9)
 *   block   var s  int (frame.cl:6, s10 = 42), var y int (no decl line, s11 = 43),
 *           var p  int (no decl line, s12 = 44): hides the parameter p
 *
 * The expected lists are worked out by hand from the DWARF rules: an inner
 * scope's variable hides an outer one of the same name; the hidden one is
 * named by where it is declared (the base name of its file and its line),
 * or by its scope's index without a line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/debug.h>
#include <amddwarf/object.h>
#include <amddwarf/produce.h>
#include <amddwarf/snapshot.h>

#include "wave_fixture.h"

static const char program_json[] =
    "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
    " \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\", \"text_size\": 64},"
    " \"symbols\": [{\"name\": \"f\", \"offset\": 0, \"size\": 64}],"
    " \"units\": [{\"name\": \"frame.cl\", \"comp_dir\": \"/src\", \"producer\": \"test\","
    "  \"files\": [{\"name\": \"frame.cl\", \"dir\": \"/src/dir\"}],"
    "  \"types\": ["
    "   {\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "    \"encoding\": \"signed\"},"
    "   {\"id\": \"float\", \"kind\": \"base\", \"name\": \"float\", \"byte_size\": 4,"
    "    \"encoding\": \"float\"},"
    "   {\"id\": \"S\", \"kind\": \"struct\", \"name\": \"S\", \"byte_size\": 8, \"members\": ["
    "    {\"name\": \"x\", \"type\": \"int\", \"offset\": 0},"
    "    {\"name\": \"y\", \"type\": \"float\", \"offset\": 4}]}],"
    "  \"variables\": [{\"name\": \"x\", \"type\": \"int\", \"file\": 1, \"line\": 1,"
    "    \"location\": \"DW_OP_addr 0x2000\"}],"
    "  \"functions\": [{\"name\": \"f\", \"low\": 0, \"high\": 64, \"external\": true,"
    "   \"parameters\": ["
    "    {\"name\": \"p\", \"type\": \"int\", \"file\": 1, \"line\": 2,"
    "     \"location\": \"DW_OP_regx s4\"},"
    "    {\"name\": \"n\", \"type\": \"int\", \"file\": 1, \"line\": 2,"
    "     \"location\": \"DW_OP_regx s5\"}],"
    "   \"variables\": ["
    "    {\"name\": \"s\", \"type\": \"S\", \"file\": 1, \"line\": 3,"
    "     \"location\": \"DW_OP_addr 0x1000\"},"
    "    {\"name\": \"x\", \"type\": \"int\", \"file\": 1, \"line\": 4,"
    "     \"location\": \"DW_OP_regx s6\"}],"
    "   \"blocks\": [{\"low\": 0, \"high\": 64, \"variables\": ["
    "    {\"name\": \"s\", \"type\": \"int\", \"file\": 1, \"line\": 6,"
    "     \"location\": \"DW_OP_regx s10\"},"
    "    {\"name\": \"y\", \"type\": \"int\", \"location\": \"DW_OP_regx s11\"},"
    "    {\"name\": \"p\", \"type\": \"int\", \"location\": \"DW_OP_regx s12\"}]}]}]}]}";

static const char snapshot_json[] =
    "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"lane\": 0, \"exec\": \"0xf\","
    " \"pc\": 16, \"registers\": {\"s4\": 7, \"s5\": 8, \"s6\": 9, \"s10\": 42, \"s11\": 43,"
    "  \"s12\": 44},"
    " \"memory\": [{\"address_space\": \"global\", \"address\": \"0x1000\", \"bytes\":"
    "  \"fbffffff0000803e\"}, {\"address_space\": \"global\", \"address\": \"0x2000\","
    "  \"bytes\": \"05000000\"}]}";

typedef wave_fixture fixture;

static int setup(void **state)
{
  *state = wave_fixture_open(program_json, sizeof program_json - 1, snapshot_json,
                             sizeof snapshot_json - 1);
  return 0;
}

static int teardown(void **state)
{
  wave_fixture_close(*state);
  return 0;
}

/* Every listed variable: name, kind, shadowed, scope, in order. */
static void test_list(void **state)
{
  fixture *fx = *state;
  const amddwarf_listed_variable *list = NULL;
  size_t count = 0;
  amddwarf_error err;
  static const struct {
    const char *name, *path_name;
    amddwarf_listed_kind kind;
    int shadowed;
    uint32_t scope;
  } want[] = {
      {"s", "s", AMDDWARF_LISTED_LOCAL, 0, 0},
      {"y", "y", AMDDWARF_LISTED_LOCAL, 0, 0},
      {"p", "p", AMDDWARF_LISTED_LOCAL, 0, 0},
      {"p @ frame.cl:2", "p", AMDDWARF_LISTED_ARGUMENT, 1, 1},
      {"n", "n", AMDDWARF_LISTED_ARGUMENT, 0, 1},
      {"s @ frame.cl:3", "s", AMDDWARF_LISTED_LOCAL, 1, 1},
      {"x", "x", AMDDWARF_LISTED_LOCAL, 0, 1},
      {"x @ frame.cl:1", "x", AMDDWARF_LISTED_GLOBAL, 1, 2},
  };
  assert_int_equal(amddwarf_wave_frame_variables(fx->wave, 0, &list, &count, &err), AMDDWARF_OK);
  for (size_t i = 0; i < count; ++i)
    print_message("%zu: %s kind %d shadowed %d scope %u\n", i, list[i].name, (int)list[i].kind,
                  list[i].shadowed, list[i].scope);
  assert_int_equal(count, sizeof want / sizeof want[0]);
  const amddwarf_frame_var *vars = NULL;
  size_t var_count = 0;
  assert_int_equal(amddwarf_wave_variables(fx->wave, 0, &vars, &var_count, &err), AMDDWARF_OK);
  for (size_t i = 0; i < count; ++i) {
    assert_string_equal(list[i].name, want[i].name);
    assert_string_equal(list[i].path_name, want[i].path_name);
    assert_int_equal(list[i].kind, want[i].kind);
    assert_int_equal(list[i].shadowed, want[i].shadowed);
    assert_int_equal(list[i].scope, want[i].scope);
    assert_null(list[i].missing);
    assert_non_null(list[i].var);
    assert_ptr_equal(list[i].var, &vars[list[i].var_index]);
    assert_int_equal(list[i].die.offset, list[i].var->ref.die.offset);
  }
  /* The same list again: made once. */
  const amddwarf_listed_variable *again = NULL;
  assert_int_equal(amddwarf_wave_frame_variables(fx->wave, 0, &again, &count, &err),
                   AMDDWARF_OK);
  assert_ptr_equal(again, list);
}

/* Every listed name finds its own entry; a name not listed finds none. */
static void test_find(void **state)
{
  fixture *fx = *state;
  const amddwarf_listed_variable *list = NULL, *found = NULL;
  size_t count = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_frame_variables(fx->wave, 0, &list, &count, &err), AMDDWARF_OK);
  for (size_t i = 0; i < count; ++i) {
    assert_int_equal(amddwarf_wave_frame_variable_find(fx->wave, 0, list[i].name, &found, &err),
                     AMDDWARF_OK);
    assert_ptr_equal(found, &list[i]);
  }
  assert_int_equal(amddwarf_wave_frame_variable_find(fx->wave, 0, "s @ frame.cl:4", &found, &err),
                   AMDDWARF_NOT_FOUND);
  assert_string_equal(err.message, "frame 0 lists no variable 's @ frame.cl:4'");
  assert_int_equal(amddwarf_wave_frame_variable_find(fx->wave, 0, "q", &found, &err),
                   AMDDWARF_NOT_FOUND);
}

/* Values reached through the list: a shadowed variable by its index reads
   its own storage, not the inner one's. */
static void test_values(void **state)
{
  fixture *fx = *state;
  static const struct {
    const char *listed, *text;
  } want[] = {{"s", "42"}, {"p", "44"}, {"p @ frame.cl:2", "7"}, {"s @ frame.cl:3",
              "{x = -5, y = 0.25}"}, {"x", "9"}, {"x @ frame.cl:1", "5"}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
    const amddwarf_listed_variable *v = NULL;
    amddwarf_valobj *value = NULL;
    amddwarf_lane_value lv;
    amddwarf_error err;
    assert_int_equal(amddwarf_wave_frame_variable_find(fx->wave, 0, want[i].listed, &v, &err),
                     AMDDWARF_OK);
    assert_int_equal(amddwarf_valobj_new_indexed(fx->wave, 0, v->var_index, NULL, &value, &err),
                     AMDDWARF_OK);
    assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
    assert_string_equal(lv.text, want[i].text);
    amddwarf_valobj_free(value);
  }
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_valobj_new_indexed(fx->wave, 0, 8, NULL, &value, &err),
                   AMDDWARF_NOT_FOUND);
  assert_string_equal(err.message, "frame 0 has no variable 8");
  assert_null(value);
}

/* Where a listed variable is in memory (amddwarf_valobj_address): the outer
   s at DW_OP_addr 0x1000 (global, no lane), its member y 4 bytes on; the
   inner s in s10 is in no memory. */
static void test_address(void **state)
{
  fixture *fx = *state;
  const amddwarf_listed_variable *v = NULL;
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  uint32_t aspace = 99, lane = 99;
  uint64_t address = 0;
  assert_int_equal(amddwarf_wave_frame_variable_find(fx->wave, 0, "s @ frame.cl:3", &v, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_valobj_new_indexed(fx->wave, 0, v->var_index, "s.y", &value, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_valobj_address(value, AMDDWARF_NO_LANE, &aspace, &lane, &address,
                                           &err),
                   AMDDWARF_OK);
  assert_int_equal(aspace, AMDDWARF_ASPACE_NONE);
  assert_int_equal(lane, AMDDWARF_NO_LANE);
  assert_int_equal(address, 0x1004);
  amddwarf_valobj_free(value);
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "s", &value, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_valobj_address(value, 2, &aspace, &lane, &address, &err),
                   AMDDWARF_NOT_FOUND);
  assert_string_equal(err.message, "'s' is not at a byte in memory in lane 2 (its location is "
                                   "register)");
  assert_int_equal(amddwarf_valobj_address(value, 64, &aspace, &lane, &address, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_valobj_free(value);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list),
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_address),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
