/* amdpal.format_strings metadata (debug-printf seed, "ELF extension"): read
 * from MessagePack written by msgpack-c (an independent writer), from JSON and
 * from ELF notes; merging pipelines and reporting collisions; every schema
 * error names its key and points at the offending item. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <msgpack.h>

#include <amddwarf/printf.h>
#include "printf_support.h"

/* ---- Documents written with msgpack-c ---- */

typedef struct doc_options {
  const char *omit;       /* a key of the string item to leave out */
  const char *wrong_type; /* a key of the string item whose value becomes the string "bad" */
  uint64_t version;
  uint64_t index;
  uint64_t argument_count;
  bool duplicate_index;   /* the string item repeats ".index" */
  bool bare;              /* root is the format_strings map itself */
  bool mask_word_string;  /* .64bit_arguments[0] is a string */
} doc_options;

static void key(msgpack_packer *pk, const char *k)
{
  msgpack_pack_str(pk, strlen(k));
  msgpack_pack_str_body(pk, k, strlen(k));
}

static void pack_doc(msgpack_sbuffer *sb, const doc_options *o)
{
  static const char *const keys[] = {".index", ".string", ".argument_count", ".64bit_arguments"};
  msgpack_packer pk;
  msgpack_sbuffer_init(sb);
  msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
  if (!o->bare) {
    msgpack_pack_map(&pk, 2);
    key(&pk, "amdpal.pipelines");
    msgpack_pack_array(&pk, 0);
    key(&pk, "amdpal.format_strings");
  }
  msgpack_pack_map(&pk, 2);
  key(&pk, ".version");
  msgpack_pack_uint64(&pk, o->version);
  key(&pk, ".strings");
  msgpack_pack_array(&pk, 2);
  /* The first item is always good. */
  msgpack_pack_map(&pk, 4);
  key(&pk, ".index");
  msgpack_pack_uint64(&pk, 1);
  key(&pk, ".string");
  key(&pk, "first %d");
  key(&pk, ".argument_count");
  msgpack_pack_uint32(&pk, 1);
  key(&pk, ".64bit_arguments");
  msgpack_pack_array(&pk, 1);
  msgpack_pack_uint64(&pk, 0);
  /* The second one carries the tweak. */
  unsigned count = 4 - (o->omit != NULL) + o->duplicate_index;
  msgpack_pack_map(&pk, count);
  for (size_t i = 0; i < 4; i++) {
    if (o->omit && strcmp(o->omit, keys[i]) == 0)
      continue;
    key(&pk, keys[i]);
    if (o->wrong_type && strcmp(o->wrong_type, keys[i]) == 0) {
      if (i == 1)
        msgpack_pack_int64(&pk, -3); /* .string as a negative integer */
      else
        key(&pk, "bad");
      continue;
    }
    switch (i) {
    case 0: msgpack_pack_uint64(&pk, o->index); break;
    case 1: key(&pk, "second %f %f"); break;
    case 2: msgpack_pack_uint64(&pk, o->argument_count); break;
    case 3:
      msgpack_pack_array(&pk, 1);
      if (o->mask_word_string)
        key(&pk, "bad");
      else
        msgpack_pack_uint64(&pk, 2);
      break;
    }
  }
  if (o->duplicate_index) {
    key(&pk, ".index");
    msgpack_pack_uint64(&pk, 5);
  }
}

static doc_options good(void)
{
  doc_options o = {.version = 1, .index = 0xabcdef012345, .argument_count = 2};
  return o;
}

static amddwarf_status add_doc(const doc_options *o, amddwarf_printf_table **table,
                               amddwarf_error *err, msgpack_sbuffer *keep)
{
  msgpack_sbuffer sb;
  pack_doc(&sb, o);
  assert_int_equal(amddwarf_printf_table_new(NULL, table, err), AMDDWARF_OK);
  amddwarf_error_clear(err);
  amddwarf_status status = amddwarf_printf_table_add_msgpack(*table, sb.data, sb.size, "p.elf", err);
  if (keep)
    *keep = sb;
  else
    msgpack_sbuffer_destroy(&sb);
  return status;
}

static void test_good_document(void **state)
{
  (void)state;
  amddwarf_printf_table *table;
  amddwarf_error err;
  doc_options o = good();
  assert_int_equal(add_doc(&o, &table, &err, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_count(table), 2);
  const amddwarf_printf_string *s = amddwarf_printf_table_find(table, 0xabcdef012345);
  assert_non_null(s);
  assert_string_equal(s->format, "second %f %f");
  assert_int_equal(s->format_length, 12);
  assert_int_equal(s->argument_count, 2);
  assert_int_equal(s->mask_words, 1);
  assert_int_equal(s->mask64[0], 2);
  assert_string_equal(s->origin, "p.elf");
  assert_ptr_equal(amddwarf_printf_table_string(table, 1), s);
  assert_null(amddwarf_printf_table_string(table, 2));
  assert_null(amddwarf_printf_table_find(table, 2));
  assert_int_equal(amddwarf_printf_table_collision_count(table), 0);
  amddwarf_printf_table_free(table);

  o.bare = true; /* a standalone amdpal.format_strings map */
  assert_int_equal(add_doc(&o, &table, &err, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_count(table), 2);
  amddwarf_printf_table_free(table);
}

/* Each error: status, the key named in the message, the offset pointing at
   the offending item's first byte, and nothing added. */
static void expect_error(doc_options o, amddwarf_status status, const char *needle,
                         uint8_t tag_at_offset)
{
  amddwarf_printf_table *table;
  amddwarf_error err;
  msgpack_sbuffer sb;
  assert_int_equal(add_doc(&o, &table, &err, &sb), status);
  assert_int_equal(err.status, status);
  if (!strstr(err.message, needle))
    print_error("message '%s' lacks '%s'\n", err.message, needle);
  assert_non_null(strstr(err.message, needle));
  assert_true(err.offset < sb.size);
  assert_int_equal((uint8_t)sb.data[err.offset], tag_at_offset);
  assert_int_equal(amddwarf_printf_table_count(table), 0);
  amddwarf_printf_table_free(table);
  msgpack_sbuffer_destroy(&sb);
}

static void test_schema_errors(void **state)
{
  (void)state;
  doc_options o;
  /* Missing keys: the offset is the item's map (fixmap of 3 pairs: 0x83). */
  static const char *const keys[] = {".index", ".string", ".argument_count", ".64bit_arguments"};
  for (size_t i = 0; i < 4; i++) {
    o = good();
    o.omit = keys[i];
    expect_error(o, AMDDWARF_E_PRINTF_MISSING_KEY, keys[i], 0x83);
  }
  /* Wrong types: the offset is the value (fixstr "bad" 0xa3, int8 -3 is 0xfd). */
  for (size_t i = 0; i < 4; i++) {
    o = good();
    o.wrong_type = keys[i];
    expect_error(o, AMDDWARF_E_PRINTF_WRONG_TYPE, keys[i] + 1, i == 1 ? 0xfd : 0xa3);
  }
  o = good();
  o.mask_word_string = true;
  expect_error(o, AMDDWARF_E_PRINTF_WRONG_TYPE, "64bit_arguments[0]", 0xa3);
  /* .index beyond 48 bits: a uint64 (0xcf). */
  o = good();
  o.index = UINT64_C(1) << 48;
  expect_error(o, AMDDWARF_E_PRINTF_WRONG_TYPE, "index", 0xcf);
  /* The largest 48-bit id is fine. */
  o.index = AMDDWARF_PRINTF_ID_MAX;
  amddwarf_printf_table *table;
  amddwarf_error err;
  assert_int_equal(add_doc(&o, &table, &err, NULL), AMDDWARF_OK);
  assert_non_null(amddwarf_printf_table_find(table, AMDDWARF_PRINTF_ID_MAX));
  amddwarf_printf_table_free(table);
  /* Argument counts an entry cannot carry (uint32 0xce). */
  o = good();
  o.argument_count = 70000;
  expect_error(o, AMDDWARF_E_PRINTF_WRONG_TYPE, "argument_count", 0xce);
  /* Versions: 2 and 0 are unsupported (positive fixint). */
  o = good();
  o.version = 2;
  expect_error(o, AMDDWARF_E_PRINTF_BAD_VERSION, ".version", 0x02);
  o.version = 0;
  expect_error(o, AMDDWARF_E_PRINTF_BAD_VERSION, ".version", 0x00);
  /* A repeated key: offset of the second ".index" key (fixstr of 6: 0xa6). */
  o = good();
  o.duplicate_index = true;
  expect_error(o, AMDDWARF_E_PRINTF_DUPLICATE_KEY, ".index", 0xa6);
}

static void test_malformed_msgpack(void **state)
{
  (void)state;
  msgpack_sbuffer sb;
  doc_options o = good();
  amddwarf_printf_table *table;
  amddwarf_error err;
  pack_doc(&sb, &o);
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  /* Every truncation is an error, none adds anything. */
  for (size_t cut = 0; cut < sb.size; cut++) {
    amddwarf_error_clear(&err);
    amddwarf_status status = amddwarf_printf_table_add_msgpack(table, sb.data, cut, "cut", &err);
    assert_int_equal(status, AMDDWARF_E_PRINTF_BAD_MSGPACK);
    assert_true(err.offset <= cut);
    assert_int_equal(amddwarf_printf_table_count(table), 0);
  }
  /* Trailing garbage after the document, but zero padding is fine. */
  char *copy = malloc(sb.size + 4);
  memcpy(copy, sb.data, sb.size);
  memset(copy + sb.size, 0, 4);
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, copy, sb.size + 4, "pad", &err),
                   AMDDWARF_OK);
  copy[sb.size + 2] = 0x11;
  amddwarf_printf_table_free(table);
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, copy, sb.size + 4, "junk", &err),
                   AMDDWARF_E_PRINTF_BAD_MSGPACK);
  assert_int_equal(err.offset, sb.size + 2);
  free(copy);
  /* An array32 claiming 2^32-1 items in 5 bytes: an error, not a huge allocation. */
  static const uint8_t huge[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, huge, sizeof huge, "huge", &err),
                   AMDDWARF_E_PRINTF_BAD_MSGPACK);
  assert_int_equal(err.offset, 0);
  /* 0xc1 is never used. */
  static const uint8_t never[] = {0x81, 0xa1, 'a', 0xc1};
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, never, sizeof never, "c1", &err),
                   AMDDWARF_E_PRINTF_BAD_MSGPACK);
  assert_int_equal(err.offset, 3);
  /* Deep nesting stops at the limit. */
  uint8_t deep[100];
  memset(deep, 0x91, sizeof deep);
  deep[99] = 0x00;
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, deep, sizeof deep, "deep", &err),
                   AMDDWARF_E_LIMIT);
  /* A document that is not a map, and a map without format strings. */
  static const uint8_t number[] = {0x05};
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, number, 1, "n", &err),
                   AMDDWARF_E_PRINTF_WRONG_TYPE);
  static const uint8_t other[] = {0x81, 0xa1, 'a', 0x01};
  assert_int_equal(amddwarf_printf_table_add_msgpack(table, other, sizeof other, "o", &err),
                   AMDDWARF_NOT_FOUND);
  amddwarf_printf_table_free(table);
  msgpack_sbuffer_destroy(&sb);
}

static void test_json(void **state)
{
  (void)state;
  amddwarf_printf_table *table;
  amddwarf_error err;
  /* The seed's own example. */
  static const char seed[] =
      "{\"amdpal.version\": [3, 0], \"amdpal.pipelines\": [],\n"
      " \"amdpal.format_strings\": {\".version\": 1, \".strings\": [\n"
      "  {\".index\": 12345678, \".string\": \"Sample %i format %f\",\n"
      "   \".argument_count\": 2, \".64bit_arguments\": [0]},\n"
      "  {\".index\": 31415926, \".string\": \"Another format string: %f %f\",\n"
      "   \".argument_count\": 2, \".64bit_arguments\": [0]}]}}";
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_add(table, seed, strlen(seed), "seed.json", &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_count(table), 2);
  assert_string_equal(amddwarf_printf_table_find(table, 31415926)->format,
                      "Another format string: %f %f");
  amddwarf_printf_table_free(table);

  static const struct {
    const char *text;
    amddwarf_status status;
    const char *needle;
  } bad[] = {
      {"{\".version\": 1}", AMDDWARF_E_PRINTF_MISSING_KEY, ".strings"},
      {"{\".strings\": []}", AMDDWARF_E_PRINTF_MISSING_KEY, ".version"},
      {"{\".version\": \"1\", \".strings\": []}", AMDDWARF_E_PRINTF_WRONG_TYPE, "version"},
      {"{\".version\": -1, \".strings\": []}", AMDDWARF_E_PRINTF_WRONG_TYPE, "version"},
      {"{\".version\": 1.0, \".strings\": []}", AMDDWARF_E_PRINTF_WRONG_TYPE, "version"},
      {"{\".version\": 3, \".strings\": []}", AMDDWARF_E_PRINTF_BAD_VERSION, "version is 3"},
      {"{\".version\": 1, \".strings\": {}}", AMDDWARF_E_PRINTF_WRONG_TYPE, "strings"},
      {"{\".version\": 1, \".strings\": [7]}", AMDDWARF_E_PRINTF_WRONG_TYPE, "strings[0]"},
      {"{\".version\": 1, \".strings\": [{\".index\": 1, \".string\": \"x\", "
       "\".argument_count\": -2, \".64bit_arguments\": []}]}",
       AMDDWARF_E_PRINTF_WRONG_TYPE, "argument_count"},
      {"{\"amdpal.format_strings\": [1]}", AMDDWARF_E_PRINTF_WRONG_TYPE, "amdpal.format_strings"},
      {"{\"amdpal.format_strings\": {\".version\": 1, \".strings\": [], \".version\": 1}}",
       AMDDWARF_E_BAD_JSON, "duplicate"},
      {"{\".version\": 1, ", AMDDWARF_E_BAD_JSON, "line 1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
    amddwarf_error_clear(&err);
    amddwarf_status status =
        amddwarf_printf_table_add_json(table, bad[i].text, strlen(bad[i].text), "bad.json", &err);
    if (status != bad[i].status || !strstr(err.message, bad[i].needle))
      print_error("case %zu: status %d message '%s'\n", i, status, err.message);
    assert_int_equal(status, bad[i].status);
    assert_non_null(strstr(err.message, bad[i].needle));
    assert_int_equal(amddwarf_printf_table_count(table), 0);
    amddwarf_printf_table_free(table);
  }
}

static const char pipeline_a[] =
    "{\"strings\": [{\"id\": 100, \"format\": \"a %d\", \"args\": [\"i32\"]},"
    "              {\"id\": 200, \"format\": \"shared %f\", \"args\": [\"f32\"]},"
    "              {\"id\": 300, \"format\": \"wide %d\", \"args\": [\"i32\"]}]}";
static const char pipeline_b[] =
    "{\"strings\": [{\"id\": 200, \"format\": \"shared %f\", \"args\": [\"f32\"]},"
    "              {\"id\": 100, \"format\": \"b %u\", \"args\": [\"i32\"]},"
    "              {\"id\": 300, \"format\": \"wide %d\", \"args\": [\"i64\"]},"
    "              {\"id\": 400, \"format\": \"b only\", \"args\": []}]}";

static void test_merge_and_collisions(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  amddwarf_error err;
  amddwarf_printf_table *table = printf_test_table(pipeline_a, "vertex.elf");
  printf_test_build(pipeline_b, &b);
  assert_int_equal(amddwarf_printf_table_add(table, b.elf, b.elf_size, "fragment.elf", &err),
                   AMDDWARF_OK);
  amddwarf_printf_build_free(&b);
  /* 100, 200, 300 from A, 400 from B; 200 is identical in both. */
  assert_int_equal(amddwarf_printf_table_count(table), 4);
  assert_string_equal(amddwarf_printf_table_find(table, 400)->origin, "fragment.elf");
  assert_string_equal(amddwarf_printf_table_find(table, 100)->format, "a %d");
  assert_int_equal(amddwarf_printf_table_collision_count(table), 2);
  const amddwarf_printf_collision *c = amddwarf_printf_table_collision(table, 0);
  assert_int_equal(c->id, 100);
  assert_string_equal(c->kept->origin, "vertex.elf");
  assert_string_equal(c->kept->format, "a %d");
  assert_string_equal(c->other_origin, "fragment.elf");
  assert_string_equal(c->other_format, "b %u");
  /* Same string, different argument layout (64-bit) is a collision too. */
  c = amddwarf_printf_table_collision(table, 1);
  assert_int_equal(c->id, 300);
  assert_string_equal(c->other_format, "wide %d");
  assert_null(amddwarf_printf_table_collision(table, 2));
  amddwarf_printf_table_free(table);

  /* One input defining an id twice differently: a collision within it. */
  static const char twice[] =
      "{\".version\": 1, \".strings\": ["
      "{\".index\": 9, \".string\": \"one\", \".argument_count\": 0, \".64bit_arguments\": []},"
      "{\".index\": 9, \".string\": \"one\", \".argument_count\": 0, \".64bit_arguments\": [0]},"
      "{\".index\": 9, \".string\": \"two\", \".argument_count\": 0, \".64bit_arguments\": []}]}";
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_add(table, twice, strlen(twice), "x.json", &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_count(table), 1);
  /* The second item only adds a zero mask word: the same definition. */
  assert_int_equal(amddwarf_printf_table_collision_count(table), 1);
  c = amddwarf_printf_table_collision(table, 0);
  assert_string_equal(c->kept->origin, "x.json");
  assert_string_equal(c->other_origin, "x.json");
  assert_string_equal(c->other_format, "two");
  amddwarf_printf_table_free(table);
}

static void test_elf_notes(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  amddwarf_printf_table *table;
  amddwarf_error err;
  printf_test_build(pipeline_a, &b);
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  /* Every truncation of the ELF is an error or "no note", never a crash,
     and never adds strings. */
  for (size_t cut = 0; cut < b.elf_size; cut++) {
    amddwarf_status status = amddwarf_printf_table_add_elf(table, b.elf, cut, "cut.elf", &err);
    assert_true(status == AMDDWARF_E_PRINTF_BAD_ELF || status == AMDDWARF_NOT_FOUND ||
                status == AMDDWARF_E_PRINTF_BAD_MSGPACK);
    assert_int_equal(amddwarf_printf_table_count(table), 0);
  }
  /* A note descriptor size that runs past its section: named at the note. */
  uint8_t *copy = malloc(b.elf_size);
  memcpy(copy, b.elf, b.elf_size);
  copy[64 + 4] = 0xff; /* descsz low byte of the note at offset 64 */
  copy[64 + 5] = 0xff;
  assert_int_equal(amddwarf_printf_table_add_elf(table, copy, b.elf_size, "bad.elf", &err),
                   AMDDWARF_E_PRINTF_BAD_ELF);
  assert_int_equal(err.offset, 64);
  /* The note type changed to something else: no metadata. */
  memcpy(copy, b.elf, b.elf_size);
  copy[64 + 8] = 33;
  assert_int_equal(amddwarf_printf_table_add_elf(table, copy, b.elf_size, "other.elf", &err),
                   AMDDWARF_NOT_FOUND);
  /* An ELF of another class value. */
  memcpy(copy, b.elf, b.elf_size);
  copy[4] = 3;
  assert_int_equal(amddwarf_printf_table_add_elf(table, copy, b.elf_size, "class.elf", &err),
                   AMDDWARF_E_PRINTF_BAD_ELF);
  assert_int_equal(err.offset, 4);
  /* A bad msgpack byte inside the note: the offset is a file offset. */
  memcpy(copy, b.elf, b.elf_size);
  copy[64 + 20] = 0xc1; /* first byte of the descriptor */
  assert_int_equal(amddwarf_printf_table_add_elf(table, copy, b.elf_size, "c1.elf", &err),
                   AMDDWARF_E_PRINTF_BAD_MSGPACK);
  assert_int_equal(err.offset, 84);
  free(copy);
  /* Auto-detection picks the ELF reader. */
  assert_int_equal(amddwarf_printf_table_add(table, b.elf, b.elf_size, "ok.elf", &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_count(table), 3);
  /* And the msgpack document alone gives the same table. */
  amddwarf_printf_table *direct;
  assert_int_equal(amddwarf_printf_table_new(NULL, &direct, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_add(direct, b.metadata, b.metadata_size, "m", &err),
                   AMDDWARF_OK);
  for (size_t i = 0; i < 3; i++) {
    const amddwarf_printf_string *x = amddwarf_printf_table_string(table, i);
    const amddwarf_printf_string *y = amddwarf_printf_table_string(direct, i);
    assert_int_equal(x->id, y->id);
    assert_string_equal(x->format, y->format);
    assert_int_equal(x->argument_count, y->argument_count);
  }
  amddwarf_printf_table_free(direct);
  amddwarf_printf_table_free(table);
  amddwarf_printf_build_free(&b);
}

static void test_arguments(void **state)
{
  (void)state;
  assert_int_equal(amddwarf_printf_table_add(NULL, "{}", 2, "x", NULL),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_printf_table *table;
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_table_add(table, NULL, 0, "x", NULL),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_printf_table_count(NULL), 0);
  assert_null(amddwarf_printf_table_find(NULL, 1));
  amddwarf_printf_table_free(table);
  amddwarf_printf_table_free(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_document),   cmocka_unit_test(test_schema_errors),
      cmocka_unit_test(test_malformed_msgpack), cmocka_unit_test(test_json),
      cmocka_unit_test(test_merge_and_collisions), cmocka_unit_test(test_elf_notes),
      cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
