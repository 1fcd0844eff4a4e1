/* Unit tests of the reader of a stop's waves on first use
 * (src/expr/snapshot_text.c, snapshot_value.c):
 * - the strict JSON check accepts exactly what jansson (the peer, with the
 *   flags the whole-document parse uses) accepts, on hand-picked edges of
 *   RFC 8259 and of jansson's limits;
 * - its fault offsets, counted by hand;
 * - the hex decoder against the text printf writes for random bytes, and
 *   every one of the 256 byte values at every place of a 16- and 8-digit
 *   step against isxdigit/strtoul, and the check's run of hex digits
 *   against isxdigit;
 * - a snapshot read in place equals the one read through jansson's tree
 *   (saved back byte for byte), and refuses what it refuses, with the same
 *   message. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <amddwarf/snapshot.h>

#include "common/mem.h"
#include "expr/snapshot_json.h"
#include "expr/snapshot_text.h"
#include "expr/snapshot_value.h"

static amddwarf_status check_text(const char *text, size_t size, size_t *fault)
{
  amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
  json_text_index index;
  const char *why = NULL;
  amddwarf_status st = amddwarf__json_text_check(text, 0, size, &alloc, &index, fault, &why);
  amddwarf__json_text_index_release(&index);
  return st;
}

/* Each case: accepted by the reader exactly when by jansson. */
static void test_check_agrees_with_jansson(void **state)
{
  (void)state;
  static const char *const cases[] = {
      "{}", "[]", " {\"a\": 1} ", "{\"a\": 1,}", "[1,]", "[,1]", "{,}", "{\"a\" 1}",
      "{\"a\": 1} x", "{\"a\": 1}}", "[1 2]", "\"\\u0041\"", "\"\\u0000\"", "\"\\ud83d\\ude00\"",
      "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"",
      "\"a\tb\"", "\"a\x7f b\"", "\"\xc3\xa9\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
      "\"\xf4\x90\x80\x80\"", "\"\xf0\x9f\x98\x80\"", "\"\xe2\x82\"", "\"\x80\"", "\"\xff\"",
      "0", "-0", "01", "-", "1.", "1.5", ".5", "1e", "1e+", "1e5", "1E-5", "+1", "1e400",
      "-1e400", "1e-400", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "00", "true", "false", "null", "tru",
      "truex", "nulls", "True", "{\"a\": 1, \"a\": 2}", "{\"a\": 1, \"\\u0061\": 2}",
      "{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}}", "[{\"a\": 1}, {\"a\": 1}]", "{\"a\\\"\": 1}",
      "\"unterminated", "[", "{\"a\":", "", "   ", "\xef\xbb\xbf{}", "{\"a\":1}\n",
      "[1,\n2]\r\n", "[\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"]",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t fault = 0;
    json_t *j = json_loadb(cases[i], strlen(cases[i]), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
                           NULL);
    amddwarf_status st = check_text(cases[i], strlen(cases[i]), &fault);
    if ((st == AMDDWARF_OK) != (j != NULL))
      fail_msg("case %zu <%s>: reader %s, jansson %s", i, cases[i], st ? "refuses" : "accepts",
               j ? "accepts" : "refuses");
    json_decref(j);
  }
}

/* A NUL byte: jansson loses one right after a number or a word (it reads
   one byte past them), and refuses it anywhere else; the reader agrees. */
static void test_check_nul_bytes(void **state)
{
  (void)state;
  static const struct {
    const char *text;
    size_t size;
  } cases[] = {
      {"[1028\0, 103]", 12}, {"[1\0]", 4},       {"[1\0\0]", 5},  {"[\0 1]", 5},
      {"{\"a\":\0 1}", 8},  {"[true\0]", 7},    {"[\"x\"\0]", 6}, {"[1]\0", 4},
      {"\0[1]", 4},         {"[1,\0 2]", 7},     {"1\0", 2},      {"[1.5e3\0]", 8},
      {"[null\0 ]", 8},      {"{\"a\": false\0}", 14},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t fault = 0;
    json_t *j = json_loadb(cases[i].text, cases[i].size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
                           NULL);
    amddwarf_status st = check_text(cases[i].text, cases[i].size, &fault);
    if ((st == AMDDWARF_OK) != (j != NULL))
      fail_msg("case %zu: reader %s, jansson %s", i, st ? "refuses" : "accepts",
               j ? "accepts" : "refuses");
    json_decref(j);
  }
}

/* jansson refuses a value inside more than 2048 arrays and objects, the
   value counted too; the reader the same. */
static void test_check_depth(void **state)
{
  (void)state;
  for (size_t depth = 2046; depth <= 2050; depth++) {
    for (int inner = 0; inner < 2; inner++) {
      char *text = malloc(2 * depth + 2);
      size_t n = 0;
      for (size_t i = 0; i < depth; i++)
        text[n++] = '[';
      if (inner)
        text[n++] = '1';
      for (size_t i = 0; i < depth; i++)
        text[n++] = ']';
      size_t fault;
      json_t *j = json_loadb(text, n, JSON_DECODE_ANY, NULL);
      assert_int_equal(check_text(text, n, &fault) == AMDDWARF_OK, j != NULL);
      json_decref(j);
      free(text);
    }
  }
}

static void test_check_fault_offsets(void **state)
{
  (void)state;
  static const struct {
    const char *text;
    size_t fault;
  } cases[] = {
      {"{\"a\": 1,}", 8},          /* the '}' where a member name must be */
      {"{\"a\": 1, \"a\": 2}", 9}, /* the second "a" */
      {"[1, tru]", 7},             /* after the word read, as jansson places it */
      {"[\"a\x01\"]", 3},          /* the control character */
      {"[\"\\q\"]", 2},            /* the backslash */
      {"[1 2]", 3},                /* where ',' or ']' must be */
      {"{} x", 3},                 /* the text after the value */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t fault = SIZE_MAX;
    assert_int_equal(check_text(cases[i].text, strlen(cases[i].text), &fault),
                     AMDDWARF_E_BAD_JSON);
    if (fault != cases[i].fault)
      fail_msg("case %zu <%s>: fault at %zu, expected %zu", i, cases[i].text, fault,
               cases[i].fault);
  }
}

/* Random bytes written by printf ("%02x" or "%02X", with a "0x" first,
   ' ' or '_' between pairs now and then) decode back to themselves. */
static void test_hex_printf_round_trip(void **state)
{
  (void)state;
  uint32_t seed = 12345;
  for (int round = 0; round < 2000; round++) {
    uint8_t bytes[80], out[80 * 2];
    char text[80 * 3 + 3];
    seed = seed * 1103515245 + 12345;
    size_t count = seed % 80, n = 0, got = 0;
    int upper = seed >> 16 & 1, prefix = seed >> 17 & 1;
    if (prefix)
      n += (size_t)sprintf(text + n, "0x");
    for (size_t i = 0; i < count; i++) {
      seed = seed * 1103515245 + 12345;
      bytes[i] = (uint8_t)(seed >> 16);
      n += (size_t)sprintf(text + n, upper ? "%02X" : "%02x", bytes[i]);
      if (seed % 23 == 0)
        text[n++] = seed % 2 ? ' ' : '_';
    }
    assert_int_equal(amddwarf__snapshot_hex(text, n, out, &got), SNAPSHOT_HEX_OK);
    assert_int_equal(got, count);
    assert_memory_equal(out, bytes, count);
  }
}

/* Every byte value at every place of a 16-digit step, an 8-digit step and
   the tail, against the rule read plainly. */
static void test_hex_every_character(void **state)
{
  (void)state;
  for (int c = 0; c < 256; c++) {
    for (size_t length = 1; length <= 18; length++) {
      for (size_t at = 0; at < length; at++) {
        char text[20];
        memset(text, '7', length);
        text[at] = (char)c;
        uint8_t out[10];
        size_t got = 0;
        snapshot_hex_status st = amddwarf__snapshot_hex(text, length, out, &got);
        int skip = c == ' ' || c == '_';
        /* '7' first: never a "0x" prefix. */
        snapshot_hex_status want = !isxdigit(c) && !skip ? SNAPSHOT_HEX_NOT_A_DIGIT
                                   : (length - (size_t)skip) % 2 ? SNAPSHOT_HEX_ODD
                                                                 : SNAPSHOT_HEX_OK;
        if (st != want)
          fail_msg("byte 0x%02x at %zu of %zu: status %d, expected %d", c, at, length, st, want);
        if (want != SNAPSHOT_HEX_OK)
          continue;
        /* The digits without the skipped one, read pair by pair. */
        char digits[20];
        size_t d = 0;
        for (size_t i = 0; i < length; i++)
          if (i != at || !skip)
            digits[d++] = text[i];
        assert_int_equal(got, d / 2);
        for (size_t i = 0; i < d / 2; i++) {
          char pair[3] = {digits[2 * i], digits[2 * i + 1], '\0'};
          if (out[i] != (uint8_t)strtoul(pair, NULL, 16))
            fail_msg("byte 0x%02x at %zu of %zu: out[%zu] 0x%02x", c, at, length, i, out[i]);
        }
      }
    }
  }
}

/* The run of hex digits the check passes first, against isxdigit: every
   byte value at every place of a run of 1 to 40 digits (the 16-byte steps
   and the tail), and the check's mark on a long string of digits alone. */
static void test_hex_run_every_character(void **state)
{
  (void)state;
  for (int c = 1; c < 256; c++) {
    for (size_t length = 1; length <= 40; length++) {
      for (size_t at = 0; at < length; at++) {
        char text[48];
        memset(text, 'B', length);
        text[at] = (char)c;
        size_t want = isxdigit(c) ? length : at;
        size_t got = amddwarf__json_text_hex_run(text, 0, length);
        if (got != want)
          fail_msg("byte 0x%02x at %zu of %zu: run to %zu, expected %zu", c, at, length, got,
                   want);
      }
    }
    /* A string long enough to be indexed: marked hex exactly when it is. */
    char doc[320];
    doc[0] = '"';
    memset(doc + 1, 'e', 300);
    doc[1 + 150] = (char)c;
    doc[301] = '"';
    json_t *j = json_loadb(doc, 302, JSON_DECODE_ANY, NULL);
    amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
    json_text_index index;
    size_t fault = 0;
    const char *why = NULL;
    amddwarf_status st = amddwarf__json_text_check(doc, 0, 302, &alloc, &index, &fault, &why);
    assert_int_equal(st == AMDDWARF_OK, j != NULL);
    if (st == AMDDWARF_OK) {
      const json_text_container *string = amddwarf__json_text_container(&index, 0);
      assert_non_null(string);
      assert_int_equal(string->end, 302);
      assert_int_equal(string->hex_digits, isxdigit(c) != 0);
    }
    amddwarf__json_text_index_release(&index);
    json_decref(j);
  }
}

/* The snapshot loaded from TEXT through jansson's tree and read in place;
   returns the status of both (they must agree), messages in the errors. */
static amddwarf_status load_both(const char *text, char **tree_saved, char **text_saved,
                                 amddwarf_error *tree_err, amddwarf_error *text_err)
{
  amddwarf_snapshot *tree = NULL, *in_place = NULL;
  size_t size = strlen(text), fault = 0, n;
  amddwarf_status a = amddwarf_snapshot_load(text, size, NULL, &tree, tree_err);
  amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
  json_text_index index;
  const char *why = NULL;
  assert_int_equal(amddwarf__json_text_check(text, 0, size, &alloc, &index, &fault, &why),
                   AMDDWARF_OK);
  snapshot_value root;
  amddwarf__snapshot_value_text(text, &index, 0, size, &root);
  amddwarf_status b = amddwarf__snapshot_load_value(&root, NULL, NULL, &in_place, text_err);
  amddwarf__json_text_index_release(&index);
  assert_int_equal(a, b);
  *tree_saved = *text_saved = NULL;
  if (a == AMDDWARF_OK) {
    assert_int_equal(amddwarf_snapshot_save(tree, tree_saved, &n, NULL), AMDDWARF_OK);
    assert_int_equal(amddwarf_snapshot_save(in_place, text_saved, &n, NULL), AMDDWARF_OK);
  }
  amddwarf_snapshot_free(tree);
  amddwarf_snapshot_free(in_place);
  return a;
}

static void test_snapshot_in_place_equals_tree(void **state)
{
  (void)state;
  static const char *const docs[] = {
      /* Every member, escapes in names and strings, hex with a prefix and
         separators, numbers as strings, lane arrays. */
      "{\"architecture\": \"gfx90a\", \"wave_size\": 64, \"address_size\": 8,"
      " \"dialect\": \"vendor\", \"lane\": 3, \"exec\": \"0xff\", \"pc\": 4096,"
      " \"registers\": {\"v1\": [1, 2, \"0x3\", 4], \"s\\u0033\\u0033\": \"0x6000\","
      "  \"9999\": {\"bytes\": \"0x" "00112233_44556677 8899aabbccddeeff" "\"}},"
      " \"entry_registers\": {\"s33\": 5},"
      " \"memory\": [{\"address_space\": \"private_lane\", \"lane\": 2, \"address\": 16,"
      "   \"bytes\": \"0102030405060708090a0b0c0d0e0f10111213\\u0031\\u0034\"},"
      "  {\"address_space\": 1, \"address\": \"0x1000\", \"bytes\": \"DEADBEEF\"}],"
      " \"apertures\": {\"shared\": \"0x10000\", \"private\": \"0x20000\"},"
      " \"frame_base\": {\"hex\": \"9100\"}, \"cfa\": {\"address_space\": 0, \"address\": 8},"
      " \"object_address\": {\"address\": 64}, \"tls_base\": 128, \"debug_addr\": [1, \"0x2\"],"
      " \"unit_offset\": 11, \"base_types\": [{\"die\": 42, \"encoding\": \"float\","
      " \"bit_size\": 32, \"count\": 2}], \"dies\": [{\"offset\": 272, \"procedure\": true,"
      " \"location\": \"DW_OP_lit1\"}, {\"offset\": 300, \"const_value\": \"0a0b\"}],"
      " \"code_objects\": [{\"uri\": \"file:///a%20b.co\", \"load_address\": 4096}]}",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    char *a = NULL, *b = NULL;
    amddwarf_error ea, eb;
    if (load_both(docs[i], &a, &b, &ea, &eb) != AMDDWARF_OK)
      fail_msg("doc %zu: %s", i, ea.message);
    assert_string_equal(a, b);
    free(a);
    free(b);
  }
}

/* Memory regions that name their address spaces, alternating names of one
   length and one name in two spellings, load as the regions that give the
   DW_ASPACE numbers of the AMDGPU DWARF spec (none 0, generic 1, region 2,
   local 3, private_lane N 0x20 + N), read from text and from the tree. */
static void test_snapshot_aspace_names_as_numbers(void **state)
{
  (void)state;
#define REGION(space, address) \
  "{\"address_space\": " space ", \"address\": " #address ", \"bytes\": \"0102\"},"
  static const char named[] =
      "{\"wave_size\": 64, \"memory\": [" REGION("\"region\"", 16) REGION("\"global\"", 32)
          REGION("\"Region\"", 48) REGION("\"private_lane5\"", 64)
              REGION("\"private_lane6\"", 80) REGION("\"local\"", 96)
                  REGION("\"DW_ASPACE_AMDGPU_local\"", 112) REGION("\"generic\"", 128)
                      REGION("\"region\"", 144) "{\"address\": 0, \"bytes\": \"\"}]}";
  static const char numbered[] =
      "{\"wave_size\": 64, \"memory\": [" REGION("2", 16) REGION("0", 32) REGION("2", 48)
          REGION("37", 64) REGION("38", 80) REGION("3", 96) REGION("3", 112) REGION("1", 128)
              REGION("2", 144) "{\"address\": 0, \"bytes\": \"\"}]}";
#undef REGION
  char *named_tree = NULL, *named_text = NULL, *numbered_tree = NULL, *numbered_text = NULL;
  amddwarf_error ea, eb;
  assert_int_equal(load_both(named, &named_tree, &named_text, &ea, &eb), AMDDWARF_OK);
  assert_int_equal(load_both(numbered, &numbered_tree, &numbered_text, &ea, &eb), AMDDWARF_OK);
  assert_string_equal(named_text, numbered_text);
  assert_string_equal(named_tree, numbered_tree);
  free(named_tree);
  free(named_text);
  free(numbered_tree);
  free(numbered_text);
}

/* What the tree refuses, the text refuses with the same message. */
static void test_snapshot_in_place_refuses_the_same(void **state)
{
  (void)state;
  static const char *const docs[] = {
      "{\"regsiters\": {}}",
      "{\"wave_size\": 48}",
      "{\"registers\": {\"v1\": [1, -2]}}",
      "{\"registers\": {\"v1\": [1, 2.5]}}",
      "{\"registers\": {\"v1\": [1, 99999999999]}}",
      "{\"registers\": {\"s33\": \"0x\"}}",
      "{\"registers\": {\"s\\u0033\\u0033\": 1, \"65\": 2}}",
      "{\"registers\": {\"q7\": 1}}",
      "{\"memory\": [{\"address\": 1, \"bytes\": \"0g\"}]}",
      "{\"memory\": [{\"address\": 1, \"bytes\": \"012\"}]}",
      "{\"memory\": [{\"address\": 1, \"bytes\": \"\\u0030\\u0031z\"}]}",
      "{\"memory\": [{\"address_space\": \"nowhere\", \"address\": 1, \"bytes\": \"\"}]}",
      "{\"memory\": [{\"address_space\": \"private_lane\", \"address\": 1, \"bytes\": \"\"}]}",
      "{\"base_types\": [{\"die\": 1, \"encoding\": \"floaty\", \"bit_size\": 32}]}",
      "{\"code_objects\": [{\"uri\": \"\", \"load_address\": 1}]}",
      "{\"dies\": [{\"offset\": \"010\"}]}",
      "{\"\\u0078\": 1}",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    char *a = NULL, *b = NULL;
    amddwarf_error ea, eb;
    amddwarf_error_clear(&ea);
    amddwarf_error_clear(&eb);
    if (load_both(docs[i], &a, &b, &ea, &eb) == AMDDWARF_OK)
      fail_msg("doc %zu <%s> loads", i, docs[i]);
    /* Read from text, a character that is not a hex digit is also placed:
       its byte in the document, found here by strchr. */
    const char *bad = strstr(docs[i], "0g") ? strchr(docs[i], 'g') : NULL;
    char expected[512];
    if (bad)
      snprintf(expected, sizeof expected, "%s ('g' at byte %zu)", ea.message,
               (size_t)(bad - docs[i]));
    assert_string_equal(bad ? expected : ea.message, eb.message);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_agrees_with_jansson),
      cmocka_unit_test(test_check_nul_bytes),
      cmocka_unit_test(test_check_depth),
      cmocka_unit_test(test_check_fault_offsets),
      cmocka_unit_test(test_hex_printf_round_trip),
      cmocka_unit_test(test_hex_every_character),
      cmocka_unit_test(test_hex_run_every_character),
      cmocka_unit_test(test_snapshot_in_place_equals_tree),
      cmocka_unit_test(test_snapshot_in_place_refuses_the_same),
      cmocka_unit_test(test_snapshot_aspace_names_as_numbers),
  };
  return cmocka_run_group_tests_name("snapshot_text", tests, NULL, NULL);
}
