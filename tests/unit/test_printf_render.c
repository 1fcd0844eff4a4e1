/* Rendering with C printf semantics and payload packing. The oracle is the C
 * library's snprintf called, in this test, with the same TRUSTED format and
 * the same argument; the library itself never gives a format from metadata to
 * the C library. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/printf.h>
#include "printf_support.h"

static void render_ok(const char *format, const uint64_t *mask, size_t words,
                      const uint32_t *payload, size_t dwords, char *out, size_t size)
{
  amddwarf_error err;
  size_t length = 0;
  amddwarf_error_clear(&err);
  amddwarf_status status = amddwarf_printf_render(format, strlen(format), mask, words, payload,
                                                  dwords * 4, out, size, &length, &err);
  if (status != AMDDWARF_OK)
    print_error("render '%s': %s\n", format, err.message);
  assert_int_equal(status, AMDDWARF_OK);
  assert_int_equal(length, strlen(out));
}

static void check(const char *format, const char *expected, const char *actual)
{
  if (strcmp(expected, actual) != 0)
    print_error("format '%s': expected '%s', got '%s'\n", format, expected, actual);
  assert_string_equal(actual, expected);
}

static const char *const int_formats[] = {
    "%d",    "%i",     "%5d",    "[%-5d]", "%05d",  "%+d",    "% d",     "%.3d",   "[%.0d]",
    "%+.0d", "%8.3d",  "[%-8.3d]", "%x",   "%X",    "%#x",    "%#X",     "%#o",    "%o",
    "%#.0o", "%u",     "%08.3x", "%#08x",  "[%-#8x]", "%hhd", "%hd",     "%hhu",   "%hu",
    "%hhx",  "%+5i",   "% 05d",  "%#.5o",  "[%.0x]", "%#10.4X", "%-+08d|", "%+u",   "% x",
};

static void test_integers_32(void **state)
{
  (void)state;
  static const int32_t values[] = {0,         1,          -1,         42,     255,  256,  65535,
                                   65536,     INT32_MAX,  INT32_MIN,  123456789, -987654, 7};
  char ours[256], theirs[256];
  for (size_t f = 0; f < sizeof int_formats / sizeof int_formats[0]; f++) {
    const char *format = int_formats[f];
    bool is_signed = strchr(format, 'd') || strchr(format, 'i');
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
      uint32_t payload = (uint32_t)values[v];
      render_ok(format, NULL, 0, &payload, 1, ours, sizeof ours);
      if (is_signed)
        snprintf(theirs, sizeof theirs, format, (int)values[v]);
      else
        snprintf(theirs, sizeof theirs, format, (unsigned)values[v]);
      check(format, theirs, ours);
    }
  }
}

static void test_integers_64(void **state)
{
  (void)state;
  static const char *const formats[] = {"%lld", "%lli", "%llu", "%llx", "%#llX", "%25lld",
                                        "[%-25llu]", "%+lld", "%.20lld", "%#llo", "%020llx",
                                        "%ld", "%lu", "%jd", "%zu"};
  static const uint64_t values[] = {0, 1, UINT64_MAX, (uint64_t)INT64_MAX, (uint64_t)INT64_MIN,
                                    1000000000000ull, (uint64_t)-9000000000ll,
                                    0x0123456789abcdefull};
  static const uint64_t mask = 1;
  char ours[256], theirs[256];
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    const char *format = formats[f];
    /* The oracle gets the C type the modifier names; all are 64-bit here. */
    char oracle[32];
    const char *conv = format + strlen(format) - 1;
    if (*conv == ']')
      conv--;
    snprintf(oracle, sizeof oracle, "%.*sll%c%s", (int)(strcspn(format, "ljz")), format, *conv,
             format[strlen(format) - 1] == ']' ? "]" : "");
    bool is_signed = *conv == 'd' || *conv == 'i';
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
      uint32_t payload[2] = {(uint32_t)values[v], (uint32_t)(values[v] >> 32)};
      render_ok(format, &mask, 1, payload, 2, ours, sizeof ours);
      if (is_signed)
        snprintf(theirs, sizeof theirs, oracle, (long long)values[v]);
      else
        snprintf(theirs, sizeof theirs, oracle, (unsigned long long)values[v]);
      check(format, theirs, ours);
    }
  }
}

static void test_characters(void **state)
{
  (void)state;
  static const char *const formats[] = {"%c", "%5c", "[%-5c]", "%lc"};
  static const uint32_t values[] = {'A', 'z', 0x141 /* low byte 'A' */, '0'};
  char ours[64], theirs[64];
  for (size_t f = 0; f < 3; f++)
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
      render_ok(formats[f], NULL, 0, &values[v], 1, ours, sizeof ours);
      snprintf(theirs, sizeof theirs, formats[f], (unsigned char)values[v]);
      check(formats[f], theirs, ours);
    }
}

static const char *const float_formats[] = {
    "%f",   "%e",      "%E",     "%g",   "%G",    "%a",      "%A",     "%.3f",  "%10.2f",
    "[%-10.2f]", "%+f", "% f",   "%#g",  "%#.0f", "%010.3f", "%.0e",   "%.10g", "%F",
    "%lf",  "%+.4e",   "%#.3a",  "%-+12.5g|", "%Lf", "%.0f",  "% 015.4e",
};

static void test_floats(void **state)
{
  (void)state;
  static const float values32[] = {0.0f,     -0.0f,   1.5f,    -2.25f,    3.14159f, 1e-7f,
                                   1e30f,    INFINITY, -INFINITY, NAN,      FLT_MAX,  1e-45f,
                                   0.5f,     2.5f,    -1234.5678f};
  static const double values64[] = {0.1, 1e300, -1e-300, 4.9406564584124654e-324, -NAN,
                                    2.5,  -123456789.125, 1.0 / 3.0};
  char ours[512], theirs[512];
  for (size_t f = 0; f < sizeof float_formats / sizeof float_formats[0]; f++) {
    const char *format = float_formats[f];
    char oracle[32];
    /* "%Lf" takes a long double in C; the payload holds a double. */
    snprintf(oracle, sizeof oracle, "%s", format);
    char *big_l = strchr(oracle, 'L');
    if (big_l)
      memmove(big_l, big_l + 1, strlen(big_l));
    for (size_t v = 0; v < sizeof values32 / sizeof values32[0]; v++) {
      uint32_t payload;
      memcpy(&payload, &values32[v], 4);
      render_ok(format, NULL, 0, &payload, 1, ours, sizeof ours);
      snprintf(theirs, sizeof theirs, oracle, (double)values32[v]);
      check(format, theirs, ours);
    }
    static const uint64_t mask = 1;
    for (size_t v = 0; v < sizeof values64 / sizeof values64[0]; v++) {
      uint32_t payload[2];
      memcpy(payload, &values64[v], 8);
      render_ok(format, &mask, 1, payload, 2, ours, sizeof ours);
      snprintf(theirs, sizeof theirs, oracle, values64[v]);
      check(format, theirs, ours);
    }
  }
}

static void test_star_and_mixed(void **state)
{
  (void)state;
  char ours[256], theirs[256];
  static const int32_t widths[] = {5, -5, 0, 12};
  static const int32_t precisions[] = {2, -1, 0, 7};
  for (size_t w = 0; w < 4; w++) {
    for (size_t p = 0; p < 4; p++) {
      float value = -3.75f;
      uint32_t payload[3] = {(uint32_t)widths[w], (uint32_t)precisions[p], 0};
      memcpy(&payload[2], &value, 4);
      render_ok("[%*.*f]", NULL, 0, payload, 3, ours, sizeof ours);
      snprintf(theirs, sizeof theirs, "[%*.*f]", widths[w], precisions[p], (double)value);
      check("[%*.*f]", theirs, ours);
      payload[2] = 42;
      render_ok("[%*.*x]", NULL, 0, payload, 3, ours, sizeof ours);
      snprintf(theirs, sizeof theirs, "[%*.*x]", widths[w], precisions[p], 42u);
      check("[%*.*x]", theirs, ours);
    }
  }
  /* Literal text, a 64-bit argument between 32-bit ones (mask bit 1), '%%'. */
  double y = 2.75;
  uint32_t payload[5] = {(uint32_t)-17, 0, 0, 0xbeef, 'Q'};
  memcpy(&payload[1], &y, 8);
  const uint64_t mask = 2;
  render_ok("x=%d y=%5.1f z=%#x%% %c!", &mask, 1, payload, 5, ours, sizeof ours);
  snprintf(theirs, sizeof theirs, "x=%d y=%5.1f z=%#x%% %c!", -17, y, 0xbeefu, 'Q');
  check("mixed", theirs, ours);
  /* No directive at all, and an empty format. */
  render_ok("plain text", NULL, 0, NULL, 0, ours, sizeof ours);
  check("plain", "plain text", ours);
  render_ok("", NULL, 0, NULL, 0, ours, sizeof ours);
  check("empty", "", ours);
}

static void test_vectors(void **state)
{
  (void)state;
  /* %vN prints the components with the same directive, joined by ", ". */
  char ours[256], theirs[256] = "", piece[64];
  float v[3] = {1.0f, -2.5f, 1e10f};
  uint32_t payload[3];
  memcpy(payload, v, sizeof v);
  render_ok("%v3.2f", NULL, 0, payload, 3, ours, sizeof ours);
  for (size_t i = 0; i < 3; i++) {
    snprintf(piece, sizeof piece, "%s%.2f", i ? ", " : "", (double)v[i]);
    strcat(theirs, piece);
  }
  check("%v3.2f", theirs, ours);
  uint32_t ints[4] = {1, 2, 0xffffffffu, 4};
  render_ok("(%v4d)", NULL, 0, ints, 4, ours, sizeof ours);
  check("(%v4d)", "(1, 2, -1, 4)", ours);
  render_ok("%v2x|%u", NULL, 0, ints + 1, 3, ours, sizeof ours);
  check("%v2x|%u", "2, ffffffff|4", ours);
  /* The count may also follow the precision; both orders mean the same. */
  char other[256];
  render_ok("%.2v3f", NULL, 0, payload, 3, other, sizeof other);
  check("%.2v3f", theirs, other);
}

static void expect_format_error(const char *format, amddwarf_status status, uint64_t offset)
{
  char out[64];
  memset(out, 'x', sizeof out);
  uint32_t payload[4] = {5000, 1, 2, 3};
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status got = amddwarf_printf_render(format, strlen(format), NULL, 0, payload,
                                               sizeof payload, out, sizeof out, NULL, &err);
  if (got != status || err.offset != offset)
    print_error("format '%s': status %d offset %llu (%s)\n", format, got,
                (unsigned long long)err.offset, err.message);
  assert_int_equal(got, status);
  assert_int_equal(err.offset, offset);
  /* The output is terminated even when the format does not compile. */
  assert_string_equal(out, "");
}

static void test_bad_formats(void **state)
{
  (void)state;
  expect_format_error("abc %q", AMDDWARF_E_PRINTF_BAD_FORMAT, 4);
  expect_format_error("%s", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("x %d %n", AMDDWARF_E_PRINTF_BAD_FORMAT, 5);
  expect_format_error("%p", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("ends %5", AMDDWARF_E_PRINTF_BAD_FORMAT, 5);
  expect_format_error("%", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("%1$d", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("%v5d", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("%Ld", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("%*%", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("%\x01", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  expect_format_error("ab%99999d", AMDDWARF_E_PRINTF_BAD_FORMAT, 2);
  expect_format_error("%.5000f", AMDDWARF_E_PRINTF_BAD_FORMAT, 0);
  /* A width argument above the limit (payload[0] is 5000). */
  expect_format_error("%*d", AMDDWARF_E_LIMIT, 0);
  /* Five arguments, four dwords. */
  expect_format_error("%d%d%d%d%d", AMDDWARF_E_PRINTF_SHORT_PAYLOAD, 0);
}

static void test_truncated_output(void **state)
{
  (void)state;
  char out[5];
  size_t length = 0;
  uint32_t payload = 1234;
  amddwarf_status status = amddwarf_printf_render("hello %d", 8, NULL, 0, &payload, 4, out,
                                                  sizeof out, &length, NULL);
  assert_int_equal(status, AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, 10);
  assert_string_equal(out, "hell");
  /* Exactly fitting with the NUL. */
  char fit[11];
  assert_int_equal(amddwarf_printf_render("hello %d", 8, NULL, 0, &payload, 4, fit, sizeof fit,
                                          &length, NULL),
                   AMDDWARF_OK);
  assert_string_equal(fit, "hello 1234");
  /* A float truncated in the middle. */
  float f = 3.5f;
  memcpy(&payload, &f, 4);
  char small[4];
  assert_int_equal(amddwarf_printf_render("%f", 2, NULL, 0, &payload, 4, small, sizeof small,
                                          &length, NULL),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, 8);
  assert_string_equal(small, "3.5");
  /* Size 0: only the length. */
  assert_int_equal(amddwarf_printf_render("%f", 2, NULL, 0, &payload, 4, NULL, 0, &length, NULL),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, 8);
}

static void test_packing(void **state)
{
  (void)state;
  uint32_t out[2];
  unsigned count;
  /* Integers are zero-extended to 32 bits. */
  assert_int_equal(amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_I8, UINT64_MAX, out, &count), 0);
  assert_int_equal(count, 1);
  assert_int_equal(out[0], 0xff);
  assert_int_equal(amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_I16, 0x12345678, out, &count), 0);
  assert_int_equal(out[0], 0x5678);
  assert_int_equal(amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_I64, 0x1122334455667788ull, out,
                                        &count),
                   0);
  assert_int_equal(count, 2);
  assert_int_equal(out[0], 0x55667788);
  assert_int_equal(out[1], 0x11223344);
  assert_int_equal(amddwarf_printf_pack((amddwarf_printf_arg_kind)99, 0, out, &count),
                   AMDDWARF_E_INVALID_ARGUMENT);
  /* Halves are widened to floats: known values... */
  static const struct {
    uint16_t half;
    float value;
  } halves[] = {{0x3c00, 1.0f}, {0xc000, -2.0f}, {0x7bff, 65504.0f}, {0x3555, 0.333251953125f},
                {0x0400, 6.103515625e-05f}};
  for (size_t i = 0; i < sizeof halves / sizeof halves[0]; i++) {
    float got;
    assert_int_equal(amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, halves[i].half, out, &count), 0);
    assert_int_equal(count, 1);
    memcpy(&got, out, 4);
    assert_true(got == halves[i].value);
  }
  float got;
  amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, 0x0001, out, &count);
  memcpy(&got, out, 4);
  assert_true(got == ldexpf(1.0f, -24)); /* smallest subnormal */
  amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, 0x8000, out, &count);
  assert_int_equal(out[0], 0x80000000u);
  amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, 0xfc00, out, &count);
  memcpy(&got, out, 4);
  assert_true(isinf(got) && got < 0);
  amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, 0x7e00, out, &count);
  memcpy(&got, out, 4);
  assert_true(isnan(got));
#if defined(__FLT16_MAX__) && !defined(__cplusplus)
  /* ...and every half against the compiler's own _Float16 conversion. */
  for (uint32_t h = 0; h < 0x10000; h++) {
    uint16_t bits16 = (uint16_t)h;
    __extension__ typedef _Float16 half_type;
    half_type half;
    memcpy(&half, &bits16, 2);
    float expected = (float)half;
    amddwarf_printf_pack(AMDDWARF_PRINTF_ARG_F16, h, out, &count);
    memcpy(&got, out, 4);
    if (isnan(expected))
      assert_true(isnan(got));
    else
      assert_memory_equal(&got, &expected, 4);
  }
#endif
}

static void test_build_packing(void **state)
{
  (void)state;
  /* The description's arguments land in the buffer exactly as the seed packs them. */
  amddwarf_printf_build_output b;
  printf_test_build("{\"buffer\": {\"entries\": [{\"id\": \"0xabcdef012345\", \"args\": ["
                    "{\"i8\": -1}, {\"i16\": -2}, {\"u16\": 65535}, {\"f16\": 0.5},"
                    "{\"f32\": [1, 2]}, {\"f64\": 1.0}, {\"i64\": -1}, {\"f32\": \"0x7fc00001\"},"
                    "{\"f16\": \"inf\"}]}]}}",
                    &b);
  static const uint32_t expected[] = {
      14, 0, 0, 0,                        /* bufferOffset (dwords), reserved */
      (uint32_t)(14 | 0x2345u << 16), 0xabcdef01u, /* entry header: size 14, id */
      0xff, 0xfffe, 0xffff, 0x3f000000, 0x3f800000, 0x40000000, 0, 0x3ff00000,
      0xffffffff, 0xffffffff, 0x7fc00001, 0x7f800000};
  assert_int_equal(b.buffer_size, sizeof expected);
  for (size_t i = 0; i < sizeof expected / 4; i++) {
    uint32_t dword = (uint32_t)b.buffer[4 * i] | (uint32_t)b.buffer[4 * i + 1] << 8 |
                     (uint32_t)b.buffer[4 * i + 2] << 16 | (uint32_t)b.buffer[4 * i + 3] << 24;
    if (dword != expected[i])
      print_error("dword %zu: 0x%08x, expected 0x%08x\n", i, dword, expected[i]);
    assert_int_equal(dword, expected[i]);
  }
  assert_null(b.metadata);
  assert_null(b.elf);
  amddwarf_printf_build_free(&b);

  /* Description errors name the JSON path. */
  static const struct {
    const char *text;
    const char *path;
  } bad[] = {
      {"{\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"q32\": 1}]}]}}",
       "buffer.entries[0].args[0]"},
      {"{\"buffer\": {\"entries\": [{}, {\"id\": \"0x1000000000000\"}]}}", "buffer.entries[0].id"},
      {"{\"buffer\": {\"entries\": [{\"id\": 1}, {\"id\": \"0x1000000000000\"}]}}",
       "buffer.entries[1].id"},
      {"{\"buffer\": {\"entries\": [{\"id\": 1, \"args\": [{\"f32\": [1]}]}]}}",
       "buffer.entries[0].args[0]"},
      {"{\"strings\": [{\"id\": 1, \"format\": 5}]}", "strings[0].format"},
      {"{\"strings\": [{\"id\": 1, \"format\": \"x\", \"args\": [\"f128\"]}]}", "strings[0].args"},
      {"{\"buffer\": {\"capacity\": 1, \"entries\": [{\"id\": 1}]}}", "buffer.capacity"},
      {"[1]", "(root)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    amddwarf_error err;
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_printf_build_json(bad[i].text, strlen(bad[i].text), NULL, &b, &err),
                     AMDDWARF_E_BAD_JSON);
    if (strncmp(err.message, bad[i].path, strlen(bad[i].path)) != 0)
      print_error("case %zu: '%s'\n", i, err.message);
    assert_memory_equal(err.message, bad[i].path, strlen(bad[i].path));
    assert_null(b.buffer);
  }
}

static void test_entry_rendering(void **state)
{
  (void)state;
  amddwarf_printf_table *table = printf_test_table(
      "{\"strings\": ["
      "{\"id\": 1, \"format\": \"v=%d w=%lld\\n\", \"args\": [\"i32\", \"i64\"]},"
      /* Bad metadata is described by its layout: printf-build checks formats given "args". */
      "{\"id\": 2, \"format\": \"str %s\", \"argument_count\": 1, \"64bit_arguments\": [0]},"
      "{\"id\": 3, \"format\": \"%d %d\", \"argument_count\": 1, \"64bit_arguments\": [0]},"
      "{\"id\": 4, \"format\": \"nul\\u0000byte %c\", \"args\": [\"i32\"]}]}",
      "p.elf");
  uint32_t payload[4] = {7, 0xffffffffu, 0xffffffffu, 99};
  amddwarf_printf_entry entry = {.index = 3, .offset = 40, .size_dwords = 6, .id = 1,
                                 .payload = (const uint8_t *)payload, .payload_size = 16};
  char out[64];
  size_t length;
  amddwarf_error err;
  /* The extra dword is ignored. */
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_OK);
  assert_string_equal(out, "v=7 w=-1\n");
  /* 12 bytes are needed (i32 + i64), 8 given. */
  entry.payload_size = 8;
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_E_PRINTF_SHORT_PAYLOAD);
  assert_int_equal(err.offset, 40);
  entry.payload_size = 16;
  entry.id = 77;
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_E_PRINTF_UNKNOWN_ID);
  assert_int_equal(err.offset, 40);
  assert_non_null(strstr(err.message, "0x00000000004d"));
  entry.id = 2;
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_E_PRINTF_BAD_FORMAT);
  assert_int_equal(err.offset, 40);
  assert_non_null(strstr(err.message, "'%s'"));
  entry.id = 3; /* two conversions, one declared argument */
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_E_PRINTF_BAD_FORMAT);
  assert_non_null(strstr(err.message, "consumes 2"));
  entry.id = 4; /* a NUL inside the format string is output */
  payload[0] = 'Z';
  assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, &err),
                   AMDDWARF_OK);
  assert_int_equal(length, 10);
  assert_memory_equal(out, "nul\0byte Z", 11);
  amddwarf_printf_table_free(table);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers_32),     cmocka_unit_test(test_integers_64),
      cmocka_unit_test(test_characters),      cmocka_unit_test(test_floats),
      cmocka_unit_test(test_star_and_mixed),  cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_bad_formats),     cmocka_unit_test(test_truncated_output),
      cmocka_unit_test(test_packing),         cmocka_unit_test(test_build_packing),
      cmocka_unit_test(test_entry_rendering),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
