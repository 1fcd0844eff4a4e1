/* The strict integer reader of JSON input (common/json_int.h): every form it
 * accepts with its value, every form it rejects with the message that names
 * the member and says why; then the three readers built on it (snapshot,
 * build and printf-build descriptions) rejecting what they once accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <amddwarf/printf.h>
#include <amddwarf/produce.h>
#include <amddwarf/snapshot.h>

#include "common/json_int.h"

/* VALUE (JSON text) read by the unsigned, signed or bit-pattern reader. */
typedef enum { READ_UINT, READ_INT, READ_BITS } read_kind;

typedef struct int_case {
  const char *json;
  read_kind kind;
  int64_t min;   /* READ_INT */
  uint64_t max;  /* READ_UINT: the maximum; READ_INT: the maximum; READ_BITS: the bits */
  uint64_t want; /* the value (READ_INT: its bits) when MESSAGE is NULL */
  const char *message;
} int_case;

static const int_case cases[] = {
    /* Accepted forms. */
    {"0", READ_UINT, 0, UINT64_MAX, 0, NULL},
    {"17", READ_UINT, 0, UINT64_MAX, 17, NULL},
    {"\"17\"", READ_UINT, 0, UINT64_MAX, 17, NULL},
    {"\"0\"", READ_UINT, 0, UINT64_MAX, 0, NULL},
    {"\"0x1F\"", READ_UINT, 0, UINT64_MAX, 31, NULL},
    {"\"0xffffffffffffffff\"", READ_UINT, 0, UINT64_MAX, UINT64_MAX, NULL},
    {"\"18446744073709551615\"", READ_UINT, 0, UINT64_MAX, UINT64_MAX, NULL},
    {"4294967295", READ_UINT, 0, UINT32_MAX, UINT32_MAX, NULL},
    {"-5", READ_INT, INT64_MIN, INT64_MAX, (uint64_t)-5, NULL},
    {"-9223372036854775808", READ_INT, INT64_MIN, INT64_MAX, UINT64_C(1) << 63, NULL},
    {"\"0x10\"", READ_INT, -8, 16, 16, NULL},
    {"-128", READ_BITS, 0, 8, 0x80, NULL},
    {"255", READ_BITS, 0, 8, 0xff, NULL},
    {"-1", READ_BITS, 0, 64, UINT64_MAX, NULL},
    {"\"0xffff\"", READ_BITS, 0, 16, 0xffff, NULL},
    /* Strings that only a lax reader takes. */
    {"\" -1\"", READ_UINT, 0, UINT64_MAX, 0,
     "m.pc: \" -1\" is not an integer (a string holds \"0x\" and hex digits, or decimal digits "
     "without a leading 0; no sign or space)"},
    {"\"-1\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"-1\" is not an integer"},
    {"\"+1\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"+1\" is not an integer"},
    {"\"1 \"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"1 \" is not an integer"},
    {"\"\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"\" is not an integer"},
    {"\"0x\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"0x\" is not an integer"},
    {"\"010\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"010\" is not an integer"},
    {"\"0X10\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"0X10\" is not an integer"},
    {"\"12abc\"", READ_UINT, 0, UINT64_MAX, 0, "m.pc: \"12abc\" is not an integer"},
    {"\"-5\"", READ_INT, INT64_MIN, INT64_MAX, 0, "m.pc: \"-5\" is not an integer"},
    /* Other JSON types. */
    {"1.5", READ_UINT, 0, UINT64_MAX, 0,
     "m.pc: not an integer (it has a fraction or an exponent)"},
    {"true", READ_UINT, 0, UINT64_MAX, 0, "m.pc: not an integer (a JSON integer, or a string"},
    {"[1]", READ_UINT, 0, UINT64_MAX, 0, "m.pc: not an integer (a JSON integer, or a string"},
    /* Ranges: no saturation, no wrapping. */
    {"\"0x10000000000000000\"", READ_UINT, 0, UINT64_MAX, 0,
     "m.pc: \"0x10000000000000000\" does not fit 64 bits"},
    {"\"18446744073709551616\"", READ_UINT, 0, UINT64_MAX, 0,
     "m.pc: \"18446744073709551616\" does not fit 64 bits"},
    {"-1", READ_UINT, 0, UINT64_MAX, 0, "m.pc: -1 is below the minimum 0"},
    {"4294967296", READ_UINT, 0, UINT32_MAX, 0, "m.pc: 4294967296 is above the maximum 4294967295"},
    {"\"0x100000000\"", READ_UINT, 0, UINT32_MAX, 0,
     "m.pc: 0x100000000 is above the maximum 0xffffffff"},
    {"-9", READ_INT, -8, 16, 0, "m.pc: -9 is below the minimum -8"},
    {"17", READ_INT, -8, 16, 0, "m.pc: 17 is above the maximum 16"},
    {"3", READ_INT, 5, 16, 0, "m.pc: 3 is below the minimum 5"},
    {"-129", READ_BITS, 0, 8, 0, "m.pc: -129 is below the minimum -128"},
    {"256", READ_BITS, 0, 8, 0, "m.pc: 256 is above the maximum 255"},
};

static void test_reader_cases(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int_case *c = &cases[i];
    json_error_t jerr;
    json_t *value = json_loads(c->json, JSON_DECODE_ANY, &jerr);
    assert_non_null(value);
    amddwarf_error err;
    amddwarf_error_clear(&err);
    uint64_t got = 0xdead;
    int64_t signed_got = 0;
    amddwarf_status st;
    if (c->kind == READ_UINT) {
      st = amddwarf__json_uint(value, c->max, "m.pc", AMDDWARF_E_BAD_JSON, &err, &got);
    } else if (c->kind == READ_INT) {
      st = amddwarf__json_int(value, c->min, (int64_t)c->max, "m.pc", AMDDWARF_E_BAD_JSON, &err,
                             &signed_got);
      got = (uint64_t)signed_got;
    } else {
      st = amddwarf__json_bits(value, (unsigned)c->max, "m.pc", AMDDWARF_E_BAD_JSON, &err, &got);
    }
    json_decref(value);
    if (c->message == NULL) {
      if (st != AMDDWARF_OK || got != c->want)
        print_error("case %zu (%s): status %d, 0x%llx: %s\n", i, c->json, (int)st,
                    (unsigned long long)got, err.message);
      assert_int_equal(st, AMDDWARF_OK);
      assert_int_equal(got, c->want);
    } else {
      if (st != AMDDWARF_E_BAD_JSON || strncmp(err.message, c->message, strlen(c->message)) != 0)
        print_error("case %zu (%s): '%s'\n", i, c->json, err.message);
      assert_int_equal(st, AMDDWARF_E_BAD_JSON);
      assert_memory_equal(err.message, c->message, strlen(c->message));
    }
  }
  /* A key (a register given by its DWARF number) follows the string rules. */
  amddwarf_error err;
  uint64_t got = 0;
  assert_int_equal(amddwarf__json_uint_text("2560", UINT32_MAX, "k", AMDDWARF_E_BAD_JSON, &err,
                                           &got),
                   AMDDWARF_OK);
  assert_int_equal(got, 2560);
  assert_int_equal(amddwarf__json_uint_text(" 2560", UINT32_MAX, "k", AMDDWARF_E_BAD_JSON, &err,
                                           &got),
                   AMDDWARF_E_BAD_JSON);
  /* A missing member. */
  assert_int_equal(amddwarf__json_uint(NULL, 1, "a.b", AMDDWARF_E_BAD_JSON, &err, &got),
                   AMDDWARF_E_BAD_JSON);
  assert_string_equal(err.message, "a.b: missing");
}

/* A document read by one of the three description readers. */
typedef enum { DOC_SNAPSHOT, DOC_BUILD, DOC_PRINTF } doc_kind;

typedef struct doc_case {
  doc_kind kind;
  const char *json;
  amddwarf_status status;
  const char *message; /* the start of the message */
} doc_case;

#define OBJECT "\"object\": {\"text_size\": 16}"

static const doc_case documents[] = {
    {DOC_SNAPSHOT, "{\"pc\": \" -1\"}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "pc: \" -1\" is not an integer"},
    {DOC_SNAPSHOT, "{\"pc\": \"0x1ffffffffffffffff\"}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "pc: \"0x1ffffffffffffffff\" does not fit 64 bits"},
    {DOC_SNAPSHOT, "{\"exec\": \"010\"}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "exec: \"010\" is not an integer"},
    {DOC_SNAPSHOT, "{\"wave_size\": 32, \"exec\": \"0x100000000\"}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "exec: 0x100000000 is above the maximum 0xffffffff"},
    {DOC_SNAPSHOT, "{\"registers\": {\"v1\": [0, 1, -2]}}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "registers.v1[2]: -2 is below the minimum 0"},
    {DOC_SNAPSHOT, "{\"registers\": {\"s1\": 4294967296}}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "registers.s1: 4294967296 is above the maximum 4294967295"},
    {DOC_SNAPSHOT, "{\"registers\": {\" 16\": 1}}", AMDDWARF_E_SNAPSHOT_UNKNOWN_REGISTER,
     "register \" 16\" is not in the AMDGPU register map"},
    {DOC_SNAPSHOT, "{\"memory\": [{\"address\": 0, \"bytes\": \"00\"}, {\"address\": \"+4\", "
                   "\"bytes\": \"00\"}]}",
     AMDDWARF_E_SNAPSHOT_SCHEMA, "memory[1].address: \"+4\" is not an integer"},
    {DOC_SNAPSHOT, "{\"debug_addr\": [1, 2.5]}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "debug_addr[1]: not an integer (it has a fraction"},
    {DOC_SNAPSHOT, "{\"lane\": 64}", AMDDWARF_E_SNAPSHOT_SCHEMA,
     "lane: 64 is above the maximum 63"},
    {DOC_BUILD, "{" OBJECT ", \"symbols\": [{\"name\": \"f\", \"offset\": \"0x1ffffffffffffffff\"}]}",
     AMDDWARF_E_PRODUCE_DESCRIPTION, "symbols[0].offset: \"0x1ffffffffffffffff\" does not fit 64 bits"},
    {DOC_BUILD, "{" OBJECT ", \"symbols\": [{\"name\": \"f\", \"offset\": \" 4\"}]}",
     AMDDWARF_E_PRODUCE_DESCRIPTION, "symbols[0].offset: \" 4\" is not an integer"},
    {DOC_BUILD, "{" OBJECT ", \"cfi\": {\"cies\": [{}], \"fdes\": [{\"cie\": 4294967296, "
                "\"start\": 0, \"length\": 4}]}}",
     AMDDWARF_E_PRODUCE_DESCRIPTION, "cfi.fdes[0].cie: 4294967296 is above the maximum 4294967295"},
    {DOC_BUILD, "{" OBJECT ", \"units\": [{\"lines\": [{\"offset\": 0, \"line\": 4294967296}]}]}",
     AMDDWARF_E_PRODUCE_DESCRIPTION,
     "units[0].lines[0].line: 4294967296 is above the maximum 4294967295"},
    {DOC_BUILD, "{" OBJECT ", \"units\": [{\"functions\": [{\"name\": \"f\", \"ranges\": "
                "[[0, 4], [\"8\", -12]]}]}]}",
     AMDDWARF_E_PRODUCE_DESCRIPTION,
     "units[0].functions[0].ranges[1][1]: -12 is below the minimum 0"},
    {DOC_BUILD, "{" OBJECT ", \"dwarf\": {\"wave_size\": \"0x40 \"}}",
     AMDDWARF_E_PRODUCE_DESCRIPTION, "dwarf.wave_size: \"0x40 \" is not an integer"},
    {DOC_PRINTF, "{\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"i8\": 256}]}]}}",
     AMDDWARF_E_BAD_JSON, "buffer.entries[0].args[0]: 256 is above the maximum 255"},
    {DOC_PRINTF, "{\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"i32\": \"-1\"}]}]}}",
     AMDDWARF_E_BAD_JSON, "buffer.entries[0].args[0]: \"-1\" is not an integer"},
    {DOC_PRINTF, "{\"buffer\": {\"buffer_offset\": \"0x10000000000000000\"}}",
     AMDDWARF_E_BAD_JSON, "buffer.buffer_offset: \"0x10000000000000000\" does not fit 64 bits"},
    {DOC_PRINTF, "{\"buffer\": {\"entries\": [{\"raw\": [1, -1]}]}}", AMDDWARF_E_BAD_JSON,
     "buffer.entries[0].raw[1]: -1 is below the minimum 0"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": \"0x1000000000000\", \"format\": \"x\", \"args\": []}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].id: 0x1000000000000 is above the maximum 0xffffffffffff"},
    /* Formats the renderer rejects, and arguments that do not match them. */
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"str %s\", \"args\": [\"i32\"]}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].format: conversion '%s' at format offset 4 is not supported"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%p\", \"args\": [\"i64\"]}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].format: conversion '%p' at format offset 0 is not supported"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%1$d\", \"args\": [\"i32\"]}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].format: positional argument"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%d %d\", \"args\": [\"i32\"]}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].format: the format consumes 2 arguments, args lists 1"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%v3f\", \"args\": [\"f32x2\"]}]}",
     AMDDWARF_E_BAD_JSON, "strings[0].format: the format consumes 3 arguments, args lists 2"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%d\", \"args\": [\"i32\"]}], "
                 "\"buffer\": {\"entries\": [{\"id\": 2, \"args\": [{\"i32\": 1}]}]}}",
     AMDDWARF_E_BAD_JSON, "buffer.entries[0].id: no member of \"strings\" has the id 0x2"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%d %d\", \"args\": [\"i32\", \"i32\"]}], "
                 "\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"i32\": 1}]}]}}",
     AMDDWARF_E_BAD_JSON, "buffer.entries[0].args: the entry has 1 argument, the string with id 0x1 takes 2"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%d\", \"args\": [\"i32\"]}], "
                 "\"buffer\": {\"entries\": [{\"id\": 1}]}}",
     AMDDWARF_E_BAD_JSON, "buffer.entries[0].args: the entry has 0 arguments, the string with id 0x1 takes 1"},
    {DOC_PRINTF, "{\"strings\": [{\"id\": 1, \"format\": \"%f\", \"args\": [\"f64\"]}], "
                 "\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"f32\": 1}]}]}}",
     AMDDWARF_E_BAD_JSON,
     "buffer.entries[0].args: argument 0 is 32-bit, the string with id 0x1 declares a 64-bit one"},
};

static amddwarf_status read_document(const doc_case *c, amddwarf_error *err)
{
  size_t size = strlen(c->json);
  if (c->kind == DOC_SNAPSHOT) {
    amddwarf_snapshot *s = NULL;
    amddwarf_status st = amddwarf_snapshot_load(c->json, size, NULL, &s, err);
    amddwarf_snapshot_free(s);
    return st;
  }
  if (c->kind == DOC_BUILD) {
    uint8_t *out = NULL;
    size_t out_size = 0;
    amddwarf_status st = amddwarf_build_json(c->json, size, NULL, &out, &out_size, err);
    free(out);
    return st;
  }
  amddwarf_printf_build_output out;
  amddwarf_status st = amddwarf_printf_build_json(c->json, size, NULL, &out, err);
  amddwarf_printf_build_free(&out);
  return st;
}

static void test_description_readers_reject(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++) {
    amddwarf_error err;
    amddwarf_error_clear(&err);
    amddwarf_status st = read_document(&documents[i], &err);
    if (st != documents[i].status ||
        strncmp(err.message, documents[i].message, strlen(documents[i].message)) != 0)
      print_error("case %zu: status %d '%s'\n", i, (int)st, err.message);
    assert_int_equal(st, documents[i].status);
    assert_memory_equal(err.message, documents[i].message, strlen(documents[i].message));
  }
}

static void test_description_readers_accept(void **state)
{
  (void)state;
  /* The same members, written as the strict reader wants them. */
  amddwarf_error err;
  amddwarf_snapshot *s = NULL;
  const char *snapshot = "{\"wave_size\": 32, \"exec\": \"0xffffffff\", \"pc\": \"0x1000\", "
                         "\"registers\": {\"2560\": [1, \"0x2\"]}}";
  assert_int_equal(amddwarf_snapshot_load(snapshot, strlen(snapshot), NULL, &s, &err),
                   AMDDWARF_OK);
  amddwarf_snapshot_free(s);
  amddwarf_printf_build_output out;
  const char *printf_doc =
      "{\"strings\": [{\"id\": 1, \"format\": \"%d %v2f %%\", \"args\": [\"i8\", \"f64x2\"]}],"
      " \"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"i8\": -128}, {\"f64\": [1, 2]}]},"
      " {\"id\": 1, \"size\": 2}]}}";
  assert_int_equal(amddwarf_printf_build_json(printf_doc, strlen(printf_doc), NULL, &out, &err),
                   AMDDWARF_OK);
  /* Header (16 bytes), the entry (2 header dwords, 1 + 4 argument dwords), the bad entry. */
  assert_int_equal(out.buffer_size, 16 + 7 * 4 + 8);
  assert_int_equal(out.buffer[16 + 8], 0x80);
  amddwarf_printf_build_free(&out);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reader_cases),
      cmocka_unit_test(test_description_readers_reject),
      cmocka_unit_test(test_description_readers_accept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
