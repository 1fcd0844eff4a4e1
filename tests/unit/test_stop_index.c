/* Unit tests of the indexed stop (amddwarf_stop_add_indexed,
 * src/expr/stop_scan.c and stop.c): each wave read on first use must be the
 * wave amddwarf_stop_add reads from the same document (the oracle: the
 * snapshots saved back, byte for byte), and errors, early or late, name the
 * member and the byte offset counted by hand in the documents below. A
 * wave's memory, decoded on its first read, reads back the bytes written
 * by hand below, from one thread or several. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/snapshot.h>
#include <amddwarf/stop.h>

#include "common/mem.h"
#include "expr/snapshot_text.h"
#include "expr/stop_scan.h"

#define SNAPSHOT_A "{\"architecture\": \"gfx900\", \"pc\": \"0x1000\"}"
#define SNAPSHOT_B "{\"architecture\": \"gfx90a\", \"pc\": \"0x2000\", \"wave_size\": 64}"

static amddwarf_stop *new_stop(void)
{
  amddwarf_stop *stop = NULL;
  assert_int_equal(amddwarf_stop_new(NULL, &stop, NULL), AMDDWARF_OK);
  return stop;
}

static char *saved_snapshot(const amddwarf_snapshot *snapshot)
{
  char *text = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf_snapshot_save(snapshot, &text, &size, NULL), AMDDWARF_OK);
  return text;
}

/* Strings holding brackets, quotes and escaped backslashes, and members
   the index skips, must not move the waves' ranges. */
static const char DOC[] =
    "{\"note\": \"a ] } \\\" [ {\", \"more\": [{\"x\": \"\\\\\"}, [1, 2]],\n"
    " \"code_objects\": [{\"uri\": \"file:///a.out\", \"load_address\": \"0x1000\"}],\n"
    " \"waves\": [\n"
    "  {\"work_group\": [3, 1], \"wave_id\": 2, \"snapshot\": " SNAPSHOT_A "},\n"
    "  {\"extra\": {\"s\": \"}\"}, \"snapshot\": " SNAPSHOT_B ", \"wave_id\": 9}\n"
    " ]}\n";

static void test_indexed_waves_equal_parsed_waves(void **state)
{
  (void)state;
  amddwarf_stop *parsed = new_stop(), *indexed = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add(parsed, DOC, strlen(DOC), "s.json", &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_add_indexed(indexed, DOC, strlen(DOC), "s.json", &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_count(indexed), 2);
  /* Places are read by the index; snapshots wait for their first use. */
  const amddwarf_stop_wave *w = amddwarf_stop_wave_get(indexed, 0);
  assert_null(w->snapshot);
  assert_true(w->has_work_group);
  assert_int_equal(w->work_group[0], 3);
  assert_int_equal(w->work_group[1], 1);
  assert_int_equal(w->work_group[2], 0);
  assert_int_equal(w->wave_id, 2);
  assert_string_equal(w->origin, "s.json waves[0]");
  w = amddwarf_stop_wave_get(indexed, 1);
  assert_false(w->has_work_group);
  assert_int_equal(w->wave_id, 9);
  for (size_t i = 0; i < 2; i++) {
    const amddwarf_stop_wave *loaded = NULL;
    assert_int_equal(amddwarf_stop_wave_load(indexed, i, &loaded, &err), AMDDWARF_OK);
    assert_ptr_equal(loaded, amddwarf_stop_wave_get(indexed, i));
    char *a = saved_snapshot(amddwarf_stop_wave_get(parsed, i)->snapshot);
    char *b = saved_snapshot(loaded->snapshot);
    assert_string_equal(a, b);
    /* The stop's code_objects reached the wave. */
    assert_non_null(strstr(b, "file:///a.out"));
    free(a);
    free(b);
  }
  amddwarf_stop_free(parsed);
  amddwarf_stop_free(indexed);
}

/* Saving an indexed stop reads the waves not loaded yet: the same document
   as the parsed stop's. */
static void test_save_reads_unloaded_waves(void **state)
{
  (void)state;
  amddwarf_stop *parsed = new_stop(), *indexed = new_stop();
  assert_int_equal(amddwarf_stop_add(parsed, DOC, strlen(DOC), "s.json", NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_add_indexed(indexed, DOC, strlen(DOC), "s.json", NULL),
                   AMDDWARF_OK);
  const amddwarf_stop_wave *loaded = NULL;
  assert_int_equal(amddwarf_stop_wave_load(indexed, 1, &loaded, NULL), AMDDWARF_OK);
  char *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  assert_int_equal(amddwarf_stop_save(parsed, &a, &na, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_save(indexed, &b, &nb, NULL), AMDDWARF_OK);
  assert_int_equal(na, nb);
  assert_string_equal(a, b);
  assert_null(amddwarf_stop_wave_get(indexed, 0)->snapshot); /* let go after the save */
  free(a);
  free(b);
  amddwarf_stop_free(parsed);
  amddwarf_stop_free(indexed);
}

/* A wave whose snapshot is wrong is found when it is loaded, and the error
   names the wave's member and its byte offset in the document. */
static void test_late_errors_name_member_and_offset(void **state)
{
  (void)state;
  /* The snapshots' offsets: the lengths of the text before them. */
  static const char doc[] = "{\"waves\": [{\"snapshot\": " SNAPSHOT_A "}, "
                            "{\"snapshot\": {\"pc\": \"0x10\", \"wave_size\": 48}}, "
                            "{\"snapshot\": {\"pc\": tru}}]}";
  size_t second = strlen("{\"waves\": [{\"snapshot\": " SNAPSHOT_A "}, {\"snapshot\": ");
  size_t third = strlen("{\"waves\": [{\"snapshot\": " SNAPSHOT_A "}, "
                        "{\"snapshot\": {\"pc\": \"0x10\", \"wave_size\": 48}}, "
                        "{\"snapshot\": ");
  amddwarf_stop *stop = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add_indexed(stop, doc, strlen(doc), "s.json", &err),
                   AMDDWARF_OK);
  const amddwarf_stop_wave *w = NULL;
  if (amddwarf_stop_wave_load(stop, 0, &w, &err) != AMDDWARF_OK)
    fail_msg("%s", err.message);
  assert_int_equal(amddwarf_stop_wave_load(stop, 1, &w, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_null(w);
  char expect[256];
  snprintf(expect, sizeof expect,
           "s.json waves[1].snapshot (at byte %zu): wave_size must be 32 or 64", second);
  assert_string_equal(err.message, expect);
  assert_int_equal(err.offset, second);
  /* Loading again fails again. */
  assert_int_equal(amddwarf_stop_wave_load(stop, 1, &w, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  /* A JSON fault inside a wave, which the index's pass does not look at:
     the offset of the end of the bad token "tru" (bytes 7 to 9 of the
     snapshot; jansson gives the position after the token it refused). */
  assert_int_equal(amddwarf_stop_wave_load(stop, 2, &w, &err), AMDDWARF_E_BAD_JSON);
  assert_int_equal(err.offset, third + 10);
  snprintf(expect, sizeof expect, "s.json waves[2].snapshot (at byte %zu): byte %zu: ", third,
           third + 10);
  assert_memory_equal(err.message, expect, strlen(expect));
  assert_int_equal(amddwarf_stop_wave_load(stop, 3, &w, &err), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_stop_free(stop);
}

/* What the index reads itself is refused at once, all or nothing, with the
   byte offset counted by hand. */
static void test_index_errors(void **state)
{
  (void)state;
  static const struct {
    const char *doc;
    amddwarf_status status;
    uint64_t offset;
    const char *message;
  } cases[] = {
      {"[1]", AMDDWARF_E_SNAPSHOT_SCHEMA, 0,
       "s.json must be a JSON object: a stop {\"waves\": [...]} or a snapshot"},
      {"{\"waves\": {}}", AMDDWARF_E_SNAPSHOT_SCHEMA, 10,
       "s.json: waves (byte 10) must be an array"},
      {"{\"waves\": [{\"snapshot\": {}}, 3]}", AMDDWARF_E_SNAPSHOT_SCHEMA, 29,
       "s.json waves[1] (byte 29) must be an object {\"snapshot\": ...}"},
      {"{\"waves\": [{\"wave_id\": 1}]}", AMDDWARF_E_SNAPSHOT_SCHEMA, 11,
       "s.json waves[0] (at byte 11).snapshot must be a snapshot object (specs/snapshot.md)"},
      {"{\"waves\": [{\"snapshot\": {\"a\": \"x}]}", AMDDWARF_E_BAD_JSON, 30,
       "s.json: byte 30: a string that does not end"},
      {"{\"waves\": [{\"snapshot\": {\"a\": [}]}]}", AMDDWARF_E_BAD_JSON, 31,
       "s.json: byte 31: a closing bracket that matches no opening one"},
      {"{\"waves\": [{\"snapshot\": {}, \"snapshot\": {}}]}", AMDDWARF_E_BAD_JSON, 28,
       "s.json: byte 28: duplicate member 'snapshot'"},
      {"{\"waves\": [{\"snapshot\": {}}]} x", AMDDWARF_E_BAD_JSON, 30,
       "s.json: byte 30: text after the document's object"},
      {"{\"waves\": [{\"snapshot\": {}} {}]}", AMDDWARF_E_BAD_JSON, 28,
       "s.json: byte 28: ',' or ']' is expected here"},
      {"{\"waves\": [{\"wave_id\": -1, \"snapshot\": {}}]}", AMDDWARF_E_SNAPSHOT_SCHEMA,
       UINT64_MAX, "s.json waves[0].wave_id: -1 is below the minimum 0"},
      {"{\"waves\": [{\"wave_id\": 1x, \"snapshot\": {}}]}", AMDDWARF_E_BAD_JSON,
       UINT64_MAX, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    amddwarf_stop *stop = new_stop();
    assert_int_equal(amddwarf_stop_add(stop, SNAPSHOT_A, strlen(SNAPSHOT_A), "a.json", NULL),
                     AMDDWARF_OK);
    amddwarf_error err;
    amddwarf_error_clear(&err);
    assert_int_equal(
        amddwarf_stop_add_indexed(stop, cases[i].doc, strlen(cases[i].doc), "s.json", &err),
        cases[i].status);
    if (cases[i].offset != UINT64_MAX)
      assert_int_equal(err.offset, cases[i].offset);
    if (cases[i].message)
      assert_string_equal(err.message, cases[i].message);
    assert_int_equal(amddwarf_stop_wave_count(stop), 1); /* unchanged */
    amddwarf_stop_free(stop);
  }
}

/* A bare snapshot document is one wave, parsed at once. */
static void test_bare_snapshot(void **state)
{
  (void)state;
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, SNAPSHOT_B, strlen(SNAPSHOT_B), "b.json", NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_count(stop), 1);
  assert_non_null(amddwarf_stop_wave_get(stop, 0)->snapshot);
  assert_string_equal(amddwarf_snapshot_architecture(amddwarf_stop_wave_get(stop, 0)->snapshot),
                      "gfx90a");
  amddwarf_stop_free(stop);
}

/* Member names are compared decoded, as the whole parse compares them. */
static void test_escaped_member_names(void **state)
{
  (void)state;
  static const char doc[] =
      "{\"w\\u0061ves\": [{\"wave_\\u0069d\": 5, \"sn\\u0061pshot\": " SNAPSHOT_A "}]}";
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, doc, strlen(doc), "e.json", NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_count(stop), 1);
  assert_int_equal(amddwarf_stop_wave_get(stop, 0)->wave_id, 5);
  const amddwarf_stop_wave *w = NULL;
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
  assert_string_equal(amddwarf_snapshot_architecture(w->snapshot), "gfx900");
  amddwarf_stop_free(stop);
}

/* A wave let go is parsed again on its next load, the same; one written
   through its target, or parsed whole, stays. s8 is DWARF register 40 in a
   wave64 (SGPRs from 32, the AMDGPU DWARF register map). */
static void test_unload(void **state)
{
  (void)state;
  static const char doc[] = "{\"waves\": [{\"snapshot\": {\"architecture\": \"gfx900\", "
                            "\"pc\": \"0x1000\", \"registers\": {\"s8\": 10}}}]}";
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, doc, strlen(doc), "u.json", NULL), AMDDWARF_OK);
  const amddwarf_stop_wave *w = NULL;
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
  char *before = saved_snapshot(w->snapshot);
  assert_int_equal(amddwarf_stop_wave_unload(stop, 0, NULL), AMDDWARF_OK);
  assert_null(amddwarf_stop_wave_get(stop, 0)->snapshot);
  assert_int_equal(amddwarf_stop_wave_unload(stop, 0, NULL), AMDDWARF_OK); /* not loaded */
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
  char *after = saved_snapshot(w->snapshot);
  assert_string_equal(before, after);
  free(before);
  free(after);
  amddwarf_target target;
  amddwarf_snapshot_target(w->snapshot, &target);
  uint32_t value = 99;
  assert_int_equal(target.write_register(target.user, 40, 0, 4, &value), AMDDWARF_OK);
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_wave_unload(stop, 0, &err), AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "u.json waves[0] was written through its target: it stays");
  assert_non_null(amddwarf_stop_wave_get(stop, 0)->snapshot);
  assert_int_equal(amddwarf_stop_wave_unload(stop, 1, NULL), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_stop_free(stop);
  stop = new_stop();
  assert_int_equal(amddwarf_stop_add(stop, doc, strlen(doc), "u.json", NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_unload(stop, 0, NULL), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_stop_free(stop);
}

/* A wave whose memory regions are hex digits alone (decoded on the first
   read; the long one found so by the JSON check), with a "0x" prefix, with
   separators (decoded at load), empty, and per lane. */
#define HEX16 "00112233445566778899aabbccddeeff"
#define HEX160 HEX16 HEX16 HEX16 HEX16 HEX16 HEX16 HEX16 HEX16 HEX16 HEX16
static const char MEMORY_DOC[] =
    "{\"waves\": [{\"snapshot\": {\"architecture\": \"gfx900\", \"pc\": \"0x1000\","
    " \"memory\": ["
    "{\"address_space\": \"global\", \"address\": \"0x1000\","
    " \"bytes\": \"00112233445566778899aabbccddeeff\"},"
    " {\"address_space\": \"global\", \"address\": \"0x1010\", \"bytes\": \"0xDEADBEEF\"},"
    " {\"address_space\": \"global\", \"address\": \"0x2000\", \"bytes\": \"01 02_03\"},"
    " {\"address_space\": \"global\", \"address\": \"0x3000\", \"bytes\": \"\"},"
    " {\"address_space\": \"private_lane\", \"lane\": 1, \"address\": 8,"
    " \"bytes\": \"a1B2c3D4\"},"
    " {\"address\": \"0x4000\", \"bytes\": \"" HEX160 "\"}]}}]}";

static void read_exact(const amddwarf_target *t, uint32_t aspace, uint32_t lane,
                       uint64_t address, size_t size, const uint8_t *expected)
{
  uint8_t got[32];
  memset(got, 0x5a, sizeof got);
  assert_int_equal(t->read_memory(t->user, aspace, lane, address, size, got), AMDDWARF_OK);
  assert_memory_equal(got, expected, size);
}

static void test_memory_decoded_on_first_read(void **state)
{
  (void)state;
  amddwarf_stop *stop = new_stop(), *parsed = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add_indexed(stop, MEMORY_DOC, strlen(MEMORY_DOC), "m.json", &err),
                   AMDDWARF_OK);
  const amddwarf_stop_wave *w = NULL;
  if (amddwarf_stop_wave_load(stop, 0, &w, &err) != AMDDWARF_OK)
    fail_msg("%s", err.message);
  amddwarf_target t;
  amddwarf_snapshot_target(w->snapshot, &t);
  const uint32_t global = AMDDWARF_ASPACE_NONE, lane_space = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
  /* The bytes, as the hex in MEMORY_DOC spells them. */
  static const uint8_t first[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x1004, 2, (const uint8_t[]){0x44, 0x55});
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x1000, 16, first);
  /* Across two regions: the last bytes of one, the first of the next. */
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x100e, 4, (const uint8_t[]){0xee, 0xff, 0xde, 0xad});
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x1013, 1, (const uint8_t[]){0xef});
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x2000, 3, (const uint8_t[]){1, 2, 3});
  read_exact(&t, lane_space, 1, 8, 4, (const uint8_t[]){0xa1, 0xb2, 0xc3, 0xd4});
  read_exact(&t, global, AMDDWARF_NO_LANE, 0x4000 + 144, 16, first);
  uint8_t pair[2];
  assert_int_equal(t.read_memory(t.user, global, AMDDWARF_NO_LANE, 0x4000 + 159, 2, pair),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  /* Past the ends: the regions are exactly as long as their hex. */
  uint8_t byte;
  assert_int_equal(t.read_memory(t.user, global, AMDDWARF_NO_LANE, 0x1014, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t.read_memory(t.user, global, AMDDWARF_NO_LANE, 0xfff, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t.read_memory(t.user, global, AMDDWARF_NO_LANE, 0x3000, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t.read_memory(t.user, lane_space, 1, 12, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(t.read_memory(t.user, lane_space, 1, 7, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  /* The same wave parsed whole (jansson) saves to the same document. */
  assert_int_equal(amddwarf_stop_add(parsed, MEMORY_DOC, strlen(MEMORY_DOC), "m.json", &err),
                   AMDDWARF_OK);
  char *a = saved_snapshot(amddwarf_stop_wave_get(parsed, 0)->snapshot);
  char *b = saved_snapshot(w->snapshot);
  assert_string_equal(a, b);
  free(a);
  free(b);
  amddwarf_stop_free(parsed);
  amddwarf_stop_free(stop);
}

/* A write to a region not read yet lands in its decoded bytes; a wave saved
   before any read holds every region's bytes. */
static void test_memory_written_before_read(void **state)
{
  (void)state;
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, MEMORY_DOC, strlen(MEMORY_DOC), "m.json", NULL),
                   AMDDWARF_OK);
  const amddwarf_stop_wave *w = NULL;
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
  char *saved = saved_snapshot(w->snapshot);
  assert_non_null(strstr(saved, "\"bytes\": \"00112233445566778899aabbccddeeff\""));
  assert_non_null(strstr(saved, "\"bytes\": \"deadbeef\""));
  assert_non_null(strstr(saved, "\"bytes\": \"a1b2c3d4\""));
  free(saved);
  amddwarf_stop_free(stop);

  stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, MEMORY_DOC, strlen(MEMORY_DOC), "m.json", NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
  amddwarf_target t;
  amddwarf_snapshot_target(w->snapshot, &t);
  const uint8_t two[2] = {0x0a, 0x0b};
  assert_int_equal(t.write_memory(t.user, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1011, 2, two),
                   AMDDWARF_OK);
  read_exact(&t, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 0x1010, 4,
             (const uint8_t[]){0xde, 0x0a, 0x0b, 0xef});
  amddwarf_stop_free(stop);
}

/* Threads reading one wave's memory at once, none read before: each sees
   the bytes (make test-tsan runs this under ThreadSanitizer). The region
   is large and the threads start together, so that their first reads
   overlap while it is decoded. */
enum { READERS = 4, BIG_REGION = 32768 };
typedef struct reader {
  const amddwarf_target *target;
  pthread_barrier_t *start;
  uint64_t from;
} reader;

static uint8_t big_byte(size_t i) { return (uint8_t)(i * 7 + i / 256); }

static void *read_region(void *arg)
{
  const reader *r = arg;
  pthread_barrier_wait(r->start);
  for (uint64_t i = r->from; i < BIG_REGION; i += 997) {
    uint8_t byte = 0;
    if (r->target->read_memory(r->target->user, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE,
                               0x10000 + i, 1, &byte) != AMDDWARF_OK ||
        byte != big_byte(i))
      return (void *)1;
  }
  return NULL;
}

static void test_memory_first_read_from_threads(void **state)
{
  (void)state;
  static const char head[] = "{\"waves\": [{\"snapshot\": {\"memory\": "
                             "[{\"address\": 65536, \"bytes\": \"";
  static const char tail[] = "\"}]}}]}";
  size_t size = strlen(head) + 2 * BIG_REGION + strlen(tail);
  char *doc = malloc(size + 1);
  assert_non_null(doc);
  char *p = doc + strlen(head);
  memcpy(doc, head, strlen(head));
  for (size_t i = 0; i < BIG_REGION; i++, p += 2)
    snprintf(p, 3, "%02x", big_byte(i));
  memcpy(p, tail, strlen(tail) + 1);
  for (int round = 0; round < 10; round++) {
    amddwarf_stop *stop = new_stop();
    assert_int_equal(amddwarf_stop_add_indexed(stop, doc, size, "t.json", NULL), AMDDWARF_OK);
    const amddwarf_stop_wave *w = NULL;
    assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, NULL), AMDDWARF_OK);
    amddwarf_target t;
    amddwarf_snapshot_target(w->snapshot, &t);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, READERS);
    pthread_t threads[READERS];
    reader readers[READERS];
    for (int i = 0; i < READERS; i++) {
      readers[i] = (reader){&t, &start, (uint64_t)i * 13};
      assert_int_equal(pthread_create(&threads[i], NULL, read_region, &readers[i]), 0);
    }
    for (int i = 0; i < READERS; i++) {
      void *failed = NULL;
      pthread_join(threads[i], &failed);
      assert_null(failed);
    }
    pthread_barrier_destroy(&start);
    amddwarf_stop_free(stop);
  }
  free(doc);
}

/* Memory hex that is not hex is refused when the wave loads, as before it
   was decoded lazily: the message names the region and the byte of the bad
   character in the document. */
static void test_bad_memory_hex_names_region_and_byte(void **state)
{
  (void)state;
  static const char doc[] =
      "{\"waves\": [{\"snapshot\": {\"pc\": \"0x10\", \"memory\": ["
      "{\"address\": 16, \"bytes\": \"00112233\"},"
      " {\"address\": 32, \"bytes\": \"0011x233\"}]}},"
      " {\"snapshot\": {\"pc\": \"0x10\", \"memory\": [{\"address\": 16, \"bytes\": \"001\"}]}}]}";
  size_t first = (size_t)(strstr(doc, "{\"pc\"") - doc);
  size_t bad = (size_t)(strstr(doc, "0011x233") + 4 - doc);
  size_t second = (size_t)(strstr(doc + first + 1, "{\"pc\"") - doc);
  amddwarf_stop *stop = new_stop();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_stop_add_indexed(stop, doc, strlen(doc), "b.json", &err), AMDDWARF_OK);
  const amddwarf_stop_wave *w = NULL;
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &w, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  char expect[256];
  snprintf(expect, sizeof expect,
           "b.json waves[0].snapshot (at byte %zu): memory[1].bytes has a character that is not "
           "a hex digit ('x' at byte %zu)",
           first, bad);
  assert_string_equal(err.message, expect);
  assert_int_equal(err.offset, first);
  assert_int_equal(amddwarf_stop_wave_load(stop, 1, &w, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  snprintf(expect, sizeof expect,
           "b.json waves[1].snapshot (at byte %zu): memory[0].bytes has an odd number of hex "
           "digits",
           second);
  assert_string_equal(err.message, expect);
  /* A long region (indexed by the check): the bad digit after 200 good ones. */
  char long_doc[600];
  char digits[301];
  memset(digits, 'a', 300);
  digits[200] = 'G';
  digits[300] = '\0';
  snprintf(long_doc, sizeof long_doc,
           "{\"waves\": [{\"snapshot\": {\"memory\": [{\"address\": 0, \"bytes\": \"%s\"}]}}]}",
           digits);
  amddwarf_stop *long_stop = new_stop();
  assert_int_equal(
      amddwarf_stop_add_indexed(long_stop, long_doc, strlen(long_doc), "l.json", &err),
      AMDDWARF_OK);
  assert_int_equal(amddwarf_stop_wave_load(long_stop, 0, &w, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  snprintf(expect, sizeof expect,
           "l.json waves[0].snapshot (at byte %zu): memory[0].bytes has a character that is not "
           "a hex digit ('G' at byte %zu)",
           (size_t)(strstr(long_doc, "{\"memory") - long_doc),
           (size_t)(strchr(long_doc, 'G') - long_doc));
  assert_string_equal(err.message, expect);
  amddwarf_stop_free(long_stop);
  /* Parsed whole, the same regions are refused, by index. */
  amddwarf_stop *parsed = new_stop();
  assert_int_equal(amddwarf_stop_add(parsed, doc, strlen(doc), "b.json", &err),
                   AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_string_equal(err.message, "b.json waves[0].snapshot: memory[1].bytes has a character "
                                   "that is not a hex digit");
  amddwarf_stop_free(parsed);
  amddwarf_stop_free(stop);
}

/* The index records the long strings of hex digits alone in each wave's
   snapshot, where strstr finds them, and no other string: not one outside a
   snapshot, a short one, one with a "0x" prefix or a character that is not
   a digit. The check it makes of each wave with them gives the index the
   check makes alone, and a wave whose snapshot is not JSON keeps the fault
   the check alone finds. */
static void test_scan_records_hex_strings(void **state)
{
  (void)state;
  char a[301], b[301], bad[301];
  memset(a, 'a', 300);
  memset(b, '7', 300);
  memset(bad, 'c', 300);
  a[300] = b[300] = bad[300] = '\0';
  bad[299] = 'x';
  char doc[2400];
  snprintf(doc, sizeof doc,
           "{\"waves\": [{\"extra\": \"%s\", \"snapshot\": {\"memory\": ["
           "{\"address\": 0, \"bytes\": \"%s\"}, {\"address\": 4096, \"bytes\": \"00ff\"},"
           " {\"address\": 8192, \"bytes\": \"0x%s\"}, {\"address\": 12288, \"bytes\": \"%s\"}]}},"
           " {\"snapshot\": {\"memory\": [{\"address\": 0, \"bytes\": \"%s\"}]}},"
           " {\"snapshot\": {\"memory\": [{\"address\": 01, \"bytes\": \"%s\"}]}}]}",
           a, b, a, bad, a, a);
  size_t size = strlen(doc);
  amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
  stop_scan_result scan;
  amddwarf_error err;
  assert_int_equal(amddwarf__stop_scan(doc, size, "h.json", &alloc, &scan, &err), AMDDWARF_OK);
  assert_int_equal(scan.count, 3);
  /* Where strstr finds the one long hex string of waves 0 and 1. */
  const char *first = strstr(doc, b) - 1;
  const char *second = strstr(strstr(doc, "{\"snapshot\": {\"memory\": [{\"address\": 0,"), a) - 1;
  const size_t hex_at[2] = {(size_t)(first - doc), (size_t)(second - doc)};
  for (size_t w = 0; w < 2; w++) {
    json_text_index alone;
    size_t fault = 0, hex_seen = 0;
    const char *why = NULL;
    const json_text_index *known = &scan.waves[w].check.index;
    stop_scan_range r = scan.waves[w].snapshot;
    assert_int_equal(scan.waves[w].check.status, AMDDWARF_OK);
    assert_int_equal(amddwarf__json_text_check(doc, r.begin, r.end, &alloc, &alone, &fault, &why),
                     AMDDWARF_OK);
    assert_int_equal(alone.count, known->count);
    for (size_t i = 0; i < alone.count; i++) {
      assert_int_equal(alone.containers[i].begin, known->containers[i].begin);
      assert_int_equal(alone.containers[i].end, known->containers[i].end);
      assert_int_equal(alone.containers[i].count, known->containers[i].count);
      assert_int_equal(alone.containers[i].hex_digits, known->containers[i].hex_digits);
      if (known->containers[i].hex_digits) {
        assert_int_equal(known->containers[i].begin, hex_at[w]);
        assert_int_equal(known->containers[i].end, hex_at[w] + 302);
        hex_seen++;
      }
    }
    assert_int_equal(hex_seen, 1);
    amddwarf__json_text_index_release(&alone);
  }
  /* Wave 2's snapshot has an address with a leading zero, which only the
     strict check refuses. */
  {
    json_text_index alone;
    size_t fault = 0;
    const char *why = NULL;
    stop_scan_range r = scan.waves[2].snapshot;
    assert_int_equal(amddwarf__json_text_check(doc, r.begin, r.end, &alloc, &alone, &fault, &why),
                     AMDDWARF_E_BAD_JSON);
    amddwarf__json_text_index_release(&alone);
    assert_int_equal(scan.waves[2].check.status, AMDDWARF_E_BAD_JSON);
    assert_int_equal(scan.waves[2].check.fault, fault);
    size_t zero = (size_t)(strstr(doc, ": 01") - doc) + 2;
    assert_true(scan.waves[2].check.fault >= zero && scan.waves[2].check.fault <= zero + 1);
    assert_string_equal(scan.waves[2].check.why, why);
  }
  amddwarf__stop_scan_release(&alloc, &scan);
  /* Read through the stop: the first wave's first region has b's bytes. */
  amddwarf_stop *stop = new_stop();
  assert_int_equal(amddwarf_stop_add_indexed(stop, doc, size, "h.json", &err), AMDDWARF_OK);
  const amddwarf_stop_wave *wave = NULL;
  assert_int_equal(amddwarf_stop_wave_load(stop, 0, &wave, &err), AMDDWARF_E_SNAPSHOT_SCHEMA);
  assert_non_null(strstr(err.message, "memory[3].bytes has a character that is not a hex digit"));
  if (amddwarf_stop_wave_load(stop, 1, &wave, &err) != AMDDWARF_OK)
    fail_msg("%s", err.message);
  amddwarf_target t;
  amddwarf_snapshot_target(wave->snapshot, &t);
  read_exact(&t, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 146, 4,
             (const uint8_t[]){0xaa, 0xaa, 0xaa, 0xaa});
  uint8_t byte;
  assert_int_equal(t.read_memory(t.user, AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE, 150, 1, &byte),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  /* The fault the index kept refuses wave 2 when it is read, every time. */
  for (int again = 0; again < 2; again++) {
    assert_int_equal(amddwarf_stop_wave_load(stop, 2, &wave, &err), AMDDWARF_E_BAD_JSON);
    char expect[200];
    size_t snapshot = (size_t)(strstr(doc, "{\"memory\": [{\"address\": 01") - doc);
    snprintf(expect, sizeof expect, "h.json waves[2].snapshot (at byte %zu): byte %zu: ", snapshot,
             (size_t)err.offset);
    assert_true(strncmp(err.message, expect, strlen(expect)) == 0);
  }
  amddwarf_stop_free(stop);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_indexed_waves_equal_parsed_waves),
      cmocka_unit_test(test_save_reads_unloaded_waves),
      cmocka_unit_test(test_late_errors_name_member_and_offset),
      cmocka_unit_test(test_index_errors),
      cmocka_unit_test(test_bare_snapshot),
      cmocka_unit_test(test_escaped_member_names),
      cmocka_unit_test(test_unload),
      cmocka_unit_test(test_memory_decoded_on_first_read),
      cmocka_unit_test(test_memory_written_before_read),
      cmocka_unit_test(test_memory_first_read_from_threads),
      cmocka_unit_test(test_bad_memory_hex_names_region_and_byte),
      cmocka_unit_test(test_scan_records_hex_strings),
  };
  return cmocka_run_group_tests_name("stop_index", tests, NULL, NULL);
}
