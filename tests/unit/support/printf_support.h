/* Helpers of the printf unit tests: everything binary is produced from JSON
 * descriptions (specs/printf.md) by the library's own producer or by
 * msgpack-c, never written by hand. */
#ifndef AMDDWARF_TEST_PRINTF_SUPPORT_H
#define AMDDWARF_TEST_PRINTF_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/printf.h>

/* Builds DESCRIPTION; fails the test on error. Free with amddwarf_printf_build_free. */
void printf_test_build(const char *description, amddwarf_printf_build_output *out);

/* A table holding the strings of DESCRIPTION (added from its ELF as ORIGIN). */
amddwarf_printf_table *printf_test_table(const char *description, const char *origin);

/* An allocator that counts live and peak bytes. */
typedef struct printf_test_counter {
  size_t live, peak, allocations;
} printf_test_counter;
amddwarf_allocator printf_test_counting_allocator(printf_test_counter *counter);

#endif
