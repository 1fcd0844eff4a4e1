/* Unit tests of src/expr/stop.c: a stop's places read with the documents'
 * one integer reader (specs/json.md, section 6), the errors naming the
 * member, and the saved document (specs/stop.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/stop.h>

#define SNAPSHOT "{\"architecture\": \"gfx900\", \"pc\": \"0x1000\"}"

static amddwarf_stop *new_stop(void)
{
  amddwarf_stop *stop = NULL;
  assert_int_equal(amddwarf_stop_new(NULL, &stop, NULL), AMDDWARF_OK);
  return stop;
}

static void test_place_ids_read_as_every_integer(void **state)
{
  (void)state;
  static const char doc[] = "{\"waves\": [{\"work_group\": [\"0x10\", 2], \"wave_id\": \"7\","
                            " \"snapshot\": " SNAPSHOT "},"
                            " {\"wave_id\": 4294967295, \"snapshot\": " SNAPSHOT "}]}";
  amddwarf_stop *stop = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add(stop, doc, strlen(doc), "stop.json", &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_count(stop), 2);
  const amddwarf_stop_wave *w = amddwarf_stop_wave_get(stop, 0);
  assert_true(w->has_work_group);
  assert_int_equal(w->work_group[0], 16);
  assert_int_equal(w->work_group[1], 2);
  assert_int_equal(w->work_group[2], 0);
  assert_true(w->has_wave_id);
  assert_int_equal(w->wave_id, 7);
  assert_string_equal(w->origin, "stop.json waves[0]");
  w = amddwarf_stop_wave_get(stop, 1);
  assert_false(w->has_work_group);
  assert_int_equal(w->wave_id, UINT32_MAX);
  amddwarf_stop_free(stop);
}

static void add_fails(const char *place, const char *message)
{
  char doc[512];
  snprintf(doc, sizeof doc, "{\"waves\": [{\"snapshot\": " SNAPSHOT "}, {%s, \"snapshot\": " SNAPSHOT "}]}",
           place);
  amddwarf_stop *stop = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add(stop, doc, strlen(doc), "stop.json", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message, message);
  assert_int_equal(amddwarf_stop_wave_count(stop), 0); /* all or nothing */
  amddwarf_stop_free(stop);
}

static void test_place_errors_name_the_member(void **state)
{
  (void)state;
  add_fails("\"work_group\": [1, 4294967296]",
            "stop.json waves[1].work_group[1]: 4294967296 is above the maximum 4294967295");
  add_fails("\"work_group\": [\"0x100000000\"]",
            "stop.json waves[1].work_group[0]: 0x100000000 is above the maximum 0xffffffff");
  add_fails("\"wave_id\": -1", "stop.json waves[1].wave_id: -1 is below the minimum 0");
  add_fails("\"wave_id\": \" 1\"",
            "stop.json waves[1].wave_id: \" 1\" is not an integer (a string holds \"0x\" and "
            "hex digits, or decimal digits without a leading 0; no sign or space)");
  add_fails("\"wave_id\": 1.5",
            "stop.json waves[1].wave_id: not an integer (it has a fraction or an exponent)");
  add_fails("\"work_group\": []", "stop.json waves[1].work_group must be an array of 1 to 3 ids");
}

/* The saved document: the places as read, then each wave's own saved
   snapshot without its final newline. */
static void test_save_writes_places_and_snapshots(void **state)
{
  (void)state;
  static const char doc[] = "{\"waves\": [{\"work_group\": [3], \"wave_id\": 1,"
                            " \"snapshot\": " SNAPSHOT "}, {\"snapshot\": " SNAPSHOT "}]}";
  amddwarf_stop *stop = new_stop();
  char *text = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf_stop_save(stop, &text, &size, NULL), AMDDWARF_OK);
  assert_string_equal(text, "{\"waves\": []}\n");
  assert_int_equal(size, strlen(text));
  free(text);
  assert_int_equal(amddwarf_stop_add(stop, doc, strlen(doc), "stop.json", NULL), AMDDWARF_OK);
  char *snap = NULL;
  size_t snap_size = 0;
  assert_int_equal(amddwarf_snapshot_save(amddwarf_stop_wave_get(stop, 0)->snapshot, &snap,
                                          &snap_size, NULL),
                   AMDDWARF_OK);
  assert_true(snap_size > 1 && snap[snap_size - 1] == '\n');
  snap[snap_size - 1] = '\0';
  size_t want_size = 2 * snap_size + 128;
  char *want = malloc(want_size);
  assert_non_null(want);
  snprintf(want, want_size,
           "{\"waves\": [\n  {\"work_group\": [3, 0, 0], \"wave_id\": 1, \"snapshot\": %s},\n"
           "  {\"snapshot\": %s}\n]}\n",
           snap, snap);
  assert_int_equal(amddwarf_stop_save(stop, &text, &size, NULL), AMDDWARF_OK);
  assert_string_equal(text, want);
  assert_int_equal(size, strlen(want));
  free(text);
  free(want);
  free(snap);
  amddwarf_stop_free(stop);
}

/* The code objects of a stop (specs/stop.md): the stop's list is every
   wave's whose snapshot lists none; a snapshot's own list wins; saving
   writes each wave's list, and loading that gives the same lists. */
static void test_code_objects_of_stop_and_waves(void **state)
{
  (void)state;
  static const char doc[] =
      "{\"code_objects\": [{\"uri\": \"file:///a.out#offset=4096&size=8192\","
      " \"load_address\": \"0x7f0000001000\"},"
      " {\"uri\": \"memory://1#offset=0x10&size=4\", \"load_address\": 16}],"
      " \"waves\": [{\"snapshot\": " SNAPSHOT "},"
      " {\"snapshot\": {\"code_objects\": [{\"uri\": \"file:///b \\\"q\\\".co\","
      " \"load_address\": 0}]}}, {\"snapshot\": {\"code_objects\": []}}]}";
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add(stop, doc, strlen(doc), "stop.json", NULL), AMDDWARF_OK);
  size_t count = 9;
  const amddwarf_loaded_code_object *list =
      amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(stop, 0)->snapshot, &count);
  assert_non_null(list);
  assert_int_equal(count, 2);
  assert_string_equal(list[0].uri, "file:///a.out#offset=4096&size=8192");
  assert_int_equal(list[0].load_address, UINT64_C(0x7f0000001000));
  assert_string_equal(list[1].uri, "memory://1#offset=0x10&size=4");
  assert_int_equal(list[1].load_address, 16);
  list = amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(stop, 1)->snapshot, &count);
  assert_int_equal(count, 1);
  assert_string_equal(list[0].uri, "file:///b \"q\".co");
  /* An empty list is a list: no code object is loaded. */
  list = amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(stop, 2)->snapshot, &count);
  assert_non_null(list);
  assert_int_equal(count, 0);
  char *text = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf_stop_save(stop, &text, &size, NULL), AMDDWARF_OK);
  amddwarf_stop *again = new_stop();
  assert_int_equal(amddwarf_stop_add(again, text, size, "saved.json", NULL), AMDDWARF_OK);
  for (size_t w = 0; w < 3; ++w) {
    size_t n1 = 0, n2 = 0;
    const amddwarf_loaded_code_object *a =
        amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(stop, w)->snapshot, &n1);
    const amddwarf_loaded_code_object *b =
        amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(again, w)->snapshot, &n2);
    assert_int_equal(n1, n2);
    for (size_t i = 0; i < n1; ++i) {
      assert_string_equal(a[i].uri, b[i].uri);
      assert_int_equal(a[i].load_address, b[i].load_address);
    }
  }
  /* A snapshot without a list, in a stop without one, has none. */
  amddwarf_stop *bare = new_stop();
  assert_int_equal(amddwarf_stop_add(bare, SNAPSHOT, strlen(SNAPSHOT), "s.json", NULL),
                   AMDDWARF_OK);
  assert_null(amddwarf_snapshot_code_objects(amddwarf_stop_wave_get(bare, 0)->snapshot, &count));
  assert_int_equal(count, 0);
  amddwarf_stop_free(bare);
  free(text);
  amddwarf_stop_free(again);
  amddwarf_stop_free(stop);
}

static void test_code_object_errors_name_the_member(void **state)
{
  (void)state;
  static const struct {
    const char *doc, *message;
  } cases[] = {
      {"{\"code_objects\": {}}",
       "s.json: code_objects must be an array of {\"uri\": ..., \"load_address\": ...}"},
      {"{\"code_objects\": [3]}",
       "s.json: code_objects[0] must be an object {\"uri\": ..., \"load_address\": ...}"},
      {"{\"code_objects\": [{\"uri\": \"\", \"load_address\": 0}]}",
       "s.json: code_objects[0].uri must be a code object URI (a non-empty string)"},
      {"{\"code_objects\": [{\"uri\": \"file:///x\", \"load_address\": -1}]}",
       "s.json: code_objects[0].load_address: -1 is below the minimum 0"},
      {"{\"code_objects\": [{\"uri\": \"file:///x\"}]}",
       "s.json: code_objects[0].load_address: missing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    amddwarf_stop *stop = new_stop();
    amddwarf_error err;
    assert_int_equal(amddwarf_stop_add(stop, cases[i].doc, strlen(cases[i].doc), "s.json", &err),
                     AMDDWARF_E_SNAPSHOT_SCHEMA);
    assert_string_equal(err.message, cases[i].message);
    amddwarf_stop_free(stop);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_place_ids_read_as_every_integer),
      cmocka_unit_test(test_place_errors_name_the_member),
      cmocka_unit_test(test_save_writes_places_and_snapshots),
      cmocka_unit_test(test_code_objects_of_stop_and_waves),
      cmocka_unit_test(test_code_object_errors_name_the_member),
  };
  return cmocka_run_group_tests_name("stop", tests, NULL, NULL);
}
