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

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_place_ids_read_as_every_integer),
      cmocka_unit_test(test_place_errors_name_the_member),
      cmocka_unit_test(test_save_writes_places_and_snapshots),
  };
  return cmocka_run_group_tests_name("stop", tests, NULL, NULL);
}
