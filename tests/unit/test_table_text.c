/* The table rows of `amddwarf stats` (tools/amddwarf/table_text.c) against
 * their oracle, printf: every percentage of a whole up to 2,000 (every
 * point exactly halfway between two printed values among them), random
 * large ones, the cases left to printf, and padded strings and numbers. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "table_text.h"

/* The text table_percent makes (through the buffer, never flushed here). */
static const char *made(table_text *t, uint64_t part, uint64_t whole, int width, int decimals)
{
  t->length = 0;
  table_percent(t, part, whole, width, decimals);
  t->text[t->length] = '\0';
  return t->text;
}

static const char *oracle(char *buf, size_t size, uint64_t part, uint64_t whole, int width,
                          int decimals)
{
  snprintf(buf, size, "%*.*f%%", width, decimals,
           whole ? 100.0 * (double)part / (double)whole : 0.0);
  return buf;
}

static void check(table_text *t, uint64_t part, uint64_t whole, int width, int decimals)
{
  char want[64];
  const char *got = made(t, part, whole, width, decimals);
  if (strcmp(got, oracle(want, sizeof want, part, whole, width, decimals)) != 0)
    fail_msg("%llu / %llu, %d.%d: '%s', printf '%s'", (unsigned long long)part,
             (unsigned long long)whole, width, decimals, got, want);
}

static void test_every_small_quotient(void **state)
{
  (void)state;
  static table_text t;
  table_init(&t, stdout);
  for (uint64_t whole = 0; whole <= 2000; ++whole)
    for (uint64_t part = 0; part <= whole; ++part) {
      check(&t, part, whole, 7, 1);
      check(&t, part, whole, 0, 0);
    }
}

static void test_large_and_odd_quotients(void **state)
{
  (void)state;
  static table_text t;
  table_init(&t, stdout);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t whole = (x >> 20) % (UINT64_C(1) << (i % 2 ? 32 : 24)) + 1;
    uint64_t part = (x >> 3) % (whole + 1);
    check(&t, part, whole, 5, 1);
    check(&t, part, whole, 0, 0);
  }
  /* Left to printf: a part over the whole, a whole of 2^32 and more. */
  check(&t, 3, 2, 7, 1);
  check(&t, UINT64_C(1) << 40, UINT64_C(3) << 40, 7, 1);
  check(&t, 1, 0, 6, 1);
  /* Exactly halfway: printf rounds the double to even (0.25% is 0.2%). */
  assert_string_equal(made(&t, 1, 400, 0, 1), "0.2%");
  assert_string_equal(made(&t, 3, 400, 0, 1), "0.8%");
}

static void test_strings_and_numbers(void **state)
{
  (void)state;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  static table_text t;
  table_init(&t, f);
  table_string(&t, "f0", 32);
  table_bytes(&t, "|", 1);
  table_string(&t, "a_name_longer_than_its_column", 6);
  table_bytes(&t, "|", 1);
  table_uint(&t, 2352, 8);
  table_uint(&t, 0, 5);
  table_uint(&t, UINT64_MAX, 3);
  /* A string longer than the buffer goes out whole, in order. */
  static char long_name[70000];
  memset(long_name, 'x', sizeof long_name - 1);
  table_string(&t, long_name, 0);
  table_bytes(&t, "|", 1);
  table_flush(&t);
  fclose(f);
  char *want = malloc(sizeof long_name + 256);
  assert_non_null(want);
  int n = snprintf(want, sizeof long_name + 256, "%-32s|%-6s|%8llu%5llu%3llu%s|", "f0",
                   "a_name_longer_than_its_column", 2352ull, 0ull,
                   (unsigned long long)UINT64_MAX, long_name);
  assert_int_equal(size, (size_t)n);
  assert_memory_equal(text, want, size);
  free(want);
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_small_quotient),
      cmocka_unit_test(test_large_and_odd_quotients),
      cmocka_unit_test(test_strings_and_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
