/* Helpers of the printf unit tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "printf_support.h"

void printf_test_build(const char *description, amddwarf_printf_build_output *out)
{
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status status = amddwarf_printf_build_json(description, strlen(description), NULL,
                                                      out, &err);
  if (status != AMDDWARF_OK)
    print_error("printf_test_build: %s\n", err.message);
  assert_int_equal(status, AMDDWARF_OK);
}

amddwarf_printf_table *printf_test_table(const char *description, const char *origin)
{
  amddwarf_printf_build_output out;
  amddwarf_printf_table *table = NULL;
  amddwarf_error err;
  printf_test_build(description, &out);
  assert_non_null(out.elf);
  assert_int_equal(amddwarf_printf_table_new(NULL, &table, &err), AMDDWARF_OK);
  amddwarf_status status = amddwarf_printf_table_add_elf(table, out.elf, out.elf_size, origin, &err);
  if (status != AMDDWARF_OK)
    print_error("printf_test_table: %s\n", err.message);
  assert_int_equal(status, AMDDWARF_OK);
  amddwarf_printf_build_free(&out);
  return table;
}

static void *counting_alloc(void *user, size_t size)
{
  printf_test_counter *c = user;
  void *p = malloc(size);
  if (p) {
    c->live += size;
    c->allocations++;
    if (c->live > c->peak)
      c->peak = c->live;
  }
  return p;
}

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
  printf_test_counter *c = user;
  void *p = realloc(ptr, new_size);
  if (p) {
    c->live = c->live - old_size + new_size;
    if (c->live > c->peak)
      c->peak = c->live;
  }
  return p;
}

static void counting_free(void *user, void *ptr, size_t size)
{
  printf_test_counter *c = user;
  if (ptr)
    c->live -= size;
  free(ptr);
}

amddwarf_allocator printf_test_counting_allocator(printf_test_counter *counter)
{
  amddwarf_allocator a = {counting_alloc, counting_realloc, counting_free, counter};
  return a;
}
