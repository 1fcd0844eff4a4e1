/* Unit tests of src/common: byte reader and LEB128 rules, checked math,
 * allocator hooks, arena, status table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "common/reader.h"
#include "common/text.h"

static void test_fixed_size_reads_little_and_big_endian(void **state)
{
  (void)state;
  const uint8_t bytes[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  amddwarf_reader r;
  amddwarf_reader_init(&r, bytes, sizeof bytes);
  uint16_t u16;
  uint32_t u32;
  assert_int_equal(amddwarf__read_u16(&r, &u16), AMDDWARF_OK);
  assert_int_equal(u16, 0x0201);
  assert_int_equal(amddwarf__read_u32(&r, &u32), AMDDWARF_OK);
  assert_int_equal(u32, 0x06050403);
  assert_int_equal(r.pos, 6);

  amddwarf_reader_init(&r, bytes, sizeof bytes);
  r.big_endian = true;
  uint64_t u64;
  assert_int_equal(amddwarf__read_u64(&r, &u64), AMDDWARF_OK);
  assert_true(u64 == UINT64_C(0x0102030405060708));
}

static void test_truncated_read_leaves_position(void **state)
{
  (void)state;
  const uint8_t bytes[] = {0xaa, 0xbb, 0xcc};
  amddwarf_reader r;
  amddwarf_reader_init(&r, bytes, sizeof bytes);
  uint8_t u8;
  uint32_t u32;
  assert_int_equal(amddwarf_read_u8(&r, &u8), AMDDWARF_OK);
  assert_int_equal(amddwarf__read_u32(&r, &u32), AMDDWARF_E_TRUNCATED);
  assert_int_equal(r.pos, 1);
  const uint8_t *block;
  assert_int_equal(amddwarf__read_bytes(&r, 3, &block), AMDDWARF_E_TRUNCATED);
  assert_int_equal(amddwarf__read_bytes(&r, 2, &block), AMDDWARF_OK);
  assert_int_equal(block[1], 0xcc);
  assert_true(amddwarf_reader_at_end(&r));
  assert_int_equal(amddwarf_read_u8(&r, &u8), AMDDWARF_E_TRUNCATED);
}

static void test_signed_fixed_reads_sign_extend(void **state)
{
  (void)state;
  const uint8_t bytes[] = {0xff, 0x80, 0xff, 0x7f};
  amddwarf_reader r;
  amddwarf_reader_init(&r, bytes, sizeof bytes);
  int64_t v;
  assert_int_equal(amddwarf__read_sint(&r, 1, &v), AMDDWARF_OK);
  assert_int_equal(v, -1);
  assert_int_equal(amddwarf__read_sint(&r, 1, &v), AMDDWARF_OK);
  assert_int_equal(v, -128);
  assert_int_equal(amddwarf__read_sint(&r, 2, &v), AMDDWARF_OK);
  assert_int_equal(v, 0x7fff);
  assert_int_equal(amddwarf__read_uint(&r, 9, (uint64_t *)&v), AMDDWARF_E_INVALID_ARGUMENT);
}

typedef struct uleb_case {
  uint8_t bytes[12];
  size_t size;
  amddwarf_status status;
  uint64_t value;
  size_t consumed;
} uleb_case;

static void test_uleb_values_padding_and_errors(void **state)
{
  (void)state;
  static const uleb_case cases[] = {
      {{0x00}, 1, AMDDWARF_OK, 0, 1},
      {{0x7f}, 1, AMDDWARF_OK, 127, 1},
      {{0x80, 0x01}, 2, AMDDWARF_OK, 128, 2},
      {{0xe5, 0x8e, 0x26}, 3, AMDDWARF_OK, 624485, 3},
      /* Padded encodings: the DWARF spec example and DESIGN.md's. */
      {{0xab, 0x80, 0x80, 0x00}, 4, AMDDWARF_OK, 0x2b, 4},
      {{0xa8, 0xab, 0x80, 0x80, 0x00}, 5, AMDDWARF_OK, 0x15a8, 5},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10, AMDDWARF_OK, UINT64_MAX, 10},
      /* Ten bytes of padding are still a valid 64-bit encoding of 0. */
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 10, AMDDWARF_OK, 0, 10},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 10, AMDDWARF_E_LEB_OVERFLOW, 0, 0},
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 11, AMDDWARF_E_LEB_OVERLONG, 0, 0},
      {{0x80, 0x80}, 2, AMDDWARF_E_TRUNCATED, 0, 0},
      {{0}, 0, AMDDWARF_E_TRUNCATED, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t value = 0;
    size_t consumed = 0;
    amddwarf_status st = amddwarf__decode_uleb(cases[i].bytes, cases[i].size, &value, &consumed);
    assert_int_equal(st, cases[i].status);
    if (st == AMDDWARF_OK) {
      assert_true(value == cases[i].value);
      assert_int_equal(consumed, cases[i].consumed);
    }
    /* The reader agrees and does not move on error. */
    amddwarf_reader r;
    amddwarf_reader_init(&r, cases[i].bytes, cases[i].size);
    assert_int_equal(amddwarf_read_uleb(&r, &value), cases[i].status);
    assert_int_equal(r.pos, st == AMDDWARF_OK ? cases[i].consumed : 0);
  }
}

typedef struct sleb_case {
  uint8_t bytes[12];
  size_t size;
  amddwarf_status status;
  int64_t value;
} sleb_case;

static void test_sleb_values_padding_and_errors(void **state)
{
  (void)state;
  static const sleb_case cases[] = {
      {{0x02}, 1, AMDDWARF_OK, 2},
      {{0x7e}, 1, AMDDWARF_OK, -2},
      {{0xff, 0x00}, 2, AMDDWARF_OK, 127},
      {{0x81, 0x7f}, 2, AMDDWARF_OK, -127},
      {{0x80, 0x01}, 2, AMDDWARF_OK, 128},
      {{0x80, 0x7f}, 2, AMDDWARF_OK, -128},
      {{0xc0, 0xbb, 0x78}, 3, AMDDWARF_OK, -123456},
      /* Padded: -1 spread over three bytes. */
      {{0xff, 0xff, 0x7f}, 3, AMDDWARF_OK, -1},
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 10, AMDDWARF_OK, INT64_MIN},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 10, AMDDWARF_OK, INT64_MAX},
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10, AMDDWARF_E_LEB_OVERFLOW, 0},
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 11, AMDDWARF_E_LEB_OVERLONG, 0},
      {{0xff}, 1, AMDDWARF_E_TRUNCATED, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t value = 0;
    size_t consumed = 0;
    amddwarf_status st = amddwarf__decode_sleb(cases[i].bytes, cases[i].size, &value, &consumed);
    assert_int_equal(st, cases[i].status);
    if (st == AMDDWARF_OK) {
      assert_true(value == cases[i].value);
      assert_int_equal(consumed, cases[i].size);
    }
  }
}

static void test_leb_encode_round_trips(void **state)
{
  (void)state;
  static const int64_t signed_values[] = {0, 1, -1, 63, 64, -64, -65, 127, 128, -128,
                                          INT64_MAX, INT64_MIN, 0x123456789, -0x123456789};
  uint8_t buffer[AMDDWARF_LEB128_MAX_BYTES];
  for (size_t i = 0; i < sizeof signed_values / sizeof signed_values[0]; i++) {
    size_t length = amddwarf__encode_sleb(signed_values[i], buffer), consumed;
    int64_t back;
    assert_int_equal(amddwarf__decode_sleb(buffer, length, &back, &consumed), AMDDWARF_OK);
    assert_true(back == signed_values[i]);
    assert_int_equal(consumed, length);

    uint64_t unsigned_value = (uint64_t)signed_values[i], unsigned_back;
    length = amddwarf__encode_uleb(unsigned_value, buffer);
    assert_int_equal(amddwarf__decode_uleb(buffer, length, &unsigned_back, &consumed), AMDDWARF_OK);
    assert_true(unsigned_back == unsigned_value);
  }
  /* Minimal encodings: 64 needs two bytes signed, one unsigned. */
  assert_int_equal(amddwarf__encode_sleb(64, buffer), 2);
  assert_int_equal(amddwarf__encode_uleb(64, buffer), 1);
  assert_int_equal(amddwarf__encode_uleb(UINT64_MAX, buffer), 10);
}

static void test_cstr(void **state)
{
  (void)state;
  const char bytes[] = {'a', 'b', 0, 'c'};
  amddwarf_reader r;
  amddwarf_reader_init(&r, bytes, sizeof bytes);
  const char *text;
  size_t length;
  assert_int_equal(amddwarf__read_cstr(&r, &text, &length), AMDDWARF_OK);
  assert_string_equal(text, "ab");
  assert_int_equal(length, 2);
  assert_int_equal(amddwarf__read_cstr(&r, &text, &length), AMDDWARF_E_TRUNCATED);
  assert_int_equal(r.pos, 3);
}

static void test_checked_math(void **state)
{
  (void)state;
  uint64_t u;
  int64_t s;
  size_t z;
  assert_false(amddwarf_add_overflow_u64(1, 2, &u));
  assert_int_equal(u, 3);
  assert_true(amddwarf_add_overflow_u64(UINT64_MAX, 1, &u));
  assert_true(amddwarf_mul_overflow_u64(UINT64_C(1) << 32, UINT64_C(1) << 32, &u));
  assert_false(amddwarf_mul_overflow_u64(0, UINT64_MAX, &u));
  assert_int_equal(u, 0);
  assert_true(amddwarf_add_overflow_i64(INT64_MAX, 1, &s));
  assert_true(amddwarf_add_overflow_i64(INT64_MIN, -1, &s));
  assert_false(amddwarf_add_overflow_i64(-5, 3, &s));
  assert_int_equal(s, -2);
  assert_true(amddwarf_mul_overflow_size(SIZE_MAX / 2 + 1, 2, &z));
  assert_true(amddwarf_range_fits(2, 3, 5));
  assert_false(amddwarf_range_fits(2, 4, 5));
  assert_false(amddwarf_range_fits(6, 0, 5));
  assert_false(amddwarf_range_fits(1, UINT64_MAX, 5));
}

typedef struct counting_allocator {
  size_t live_bytes;
  size_t calls;
} counting_allocator;

static void *counting_alloc(void *user, size_t size)
{
  counting_allocator *c = user;
  c->live_bytes += size;
  c->calls++;
  return test_malloc(size);
}

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
  counting_allocator *c = user;
  c->live_bytes += new_size - old_size;
  c->calls++;
  return test_realloc(ptr, new_size);
}

static void counting_free(void *user, void *ptr, size_t size)
{
  counting_allocator *c = user;
  if (ptr)
    c->live_bytes -= size;
  test_free(ptr);
}

static void test_arena_uses_allocator_and_releases_everything(void **state)
{
  (void)state;
  counting_allocator counter = {0, 0};
  amddwarf_allocator allocator = {counting_alloc, counting_realloc, counting_free, &counter};
  amddwarf_arena arena;
  amddwarf__arena_init(&arena, &allocator);
  for (int i = 0; i < 1000; i++) {
    uint64_t *p = amddwarf__arena_alloc(&arena, sizeof *p, 8);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 8, 0);
    *p = (uint64_t)i;
  }
  char *text = amddwarf__arena_strndup(&arena, "kernel.kd", 6);
  assert_string_equal(text, "kernel");
  char *big = amddwarf__arena_alloc(&arena, 100000, 64);
  assert_non_null(big);
  assert_int_equal((uintptr_t)big % 64, 0);
  memset(big, 1, 100000);
  assert_null(amddwarf__arena_alloc(&arena, 8, 3));
  assert_null(amddwarf__arena_calloc(&arena, SIZE_MAX / 2, 4));
  /* Geometric growth: few calls for ~108 KB. */
  assert_true(counter.calls < 10);
  assert_true(counter.live_bytes > 100000);
  amddwarf__arena_release(&arena);
  assert_int_equal(counter.live_bytes, 0);
}

static void test_text_limit_and_take(void **state)
{
  (void)state;
  counting_allocator counter = {0, 0};
  amddwarf_allocator allocator = {counting_alloc, counting_realloc, counting_free, &counter};
  amddwarf_text t;
  amddwarf__text_init(&t, &allocator);
  t.max = 12; /* 11 characters and the NUL */
  amddwarf__text_printf(&t, "%s-%d", "lane", 7);
  amddwarf__text_append(&t, "abcd", 4);
  assert_string_equal(amddwarf__text_str(&t), "lane-7abcd");
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_OK);
  amddwarf__text_append(&t, "xy", 2); /* 12 characters: one past the limit, dropped */
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_E_NO_MEMORY);
  char *out = (char *)1;
  size_t length = 99;
  assert_int_equal(amddwarf__text_take(&t, &out, &length), AMDDWARF_E_NO_MEMORY);
  assert_null(out);
  assert_int_equal(length, 0);
  assert_int_equal(counter.live_bytes, 0);
  /* Handed over trimmed: the caller frees exactly LENGTH + 1 bytes. */
  amddwarf__text_init(&t, &allocator);
  amddwarf__text_printf(&t, "{\"pc\": \"0x%x\"}", 0x1000);
  assert_int_equal(amddwarf__text_take(&t, &out, &length), AMDDWARF_OK);
  assert_string_equal(out, "{\"pc\": \"0x1000\"}");
  assert_int_equal(length, 16);
  assert_int_equal(counter.live_bytes, 17);
  counting_free(&counter, out, length + 1);
  assert_int_equal(counter.live_bytes, 0);
  /* An empty text is handed over as "". */
  amddwarf__text_init(&t, &allocator);
  assert_int_equal(amddwarf__text_take(&t, &out, &length), AMDDWARF_OK);
  assert_string_equal(out, "");
  counting_free(&counter, out, 1);
  assert_int_equal(counter.live_bytes, 0);
}

/* The fixed mode keeps snprintf's contract: as much as fits, NUL-terminated,
   and the length the whole text needs, across every kind of append. */
/* Decimal digits without printf, against printf's: the edges of both
   ranges, each power of ten and one less, and a sweep of random values. */
static void test_text_decimal_matches_printf(void **state)
{
  (void)state;
  char want[32];
  amddwarf_text t;
  amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
  amddwarf__text_init(&t, &alloc);
  uint64_t values[64 + 4000];
  size_t count = 0;
  values[count++] = 0;
  values[count++] = UINT64_MAX;
  values[count++] = (uint64_t)INT64_MAX;
  values[count++] = (uint64_t)INT64_MIN;
  for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
    values[count++] = p;
    values[count++] = p - 1;
    values[count++] = 0 - p; /* a negative power of ten, as signed */
  }
  uint64_t x = 0x9e3779b97f4a7c15ull;
  while (count < sizeof values / sizeof values[0]) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    values[count++] = x >> (x & 63);
  }
  for (size_t i = 0; i < count; i++) {
    amddwarf__text_reset(&t);
    amddwarf__text_uint(&t, values[i]);
    snprintf(want, sizeof want, "%llu", (unsigned long long)values[i]);
    assert_string_equal(amddwarf__text_str(&t), want);
    amddwarf__text_reset(&t);
    amddwarf__text_int(&t, (int64_t)values[i]);
    snprintf(want, sizeof want, "%lld", (long long)(int64_t)values[i]);
    assert_string_equal(amddwarf__text_str(&t), want);
  }
  amddwarf__text_free(&t);
}

static void test_text_fixed_buffer(void **state)
{
  (void)state;
  char buf[8];
  memset(buf, 'z', sizeof buf);
  amddwarf_text t;
  amddwarf__text_init_fixed(&t, buf, sizeof buf);
  assert_string_equal(buf, "");
  amddwarf__text_puts(&t, "ab");
  amddwarf__text_fill(&t, ' ', 2);
  amddwarf__text_printf(&t, "%d", 12);
  assert_string_equal(buf, "ab  12");
  assert_int_equal(t.len, 6);
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_OK);
  amddwarf__text_printf(&t, "%s", "wxyz"); /* 10 characters: cut after 7 */
  assert_string_equal(buf, "ab  12w");
  assert_int_equal(t.len, 10);
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_E_NO_SPACE);
  amddwarf__text_fill(&t, '-', 3);
  amddwarf__text_append(&t, "q", 1);
  assert_string_equal(buf, "ab  12w");
  assert_int_equal(t.len, 14);
  amddwarf__text_free(&t); /* the caller's buffer stays */
  assert_string_equal(buf, "ab  12w");
  char *out = (char *)1;
  size_t length = 9;
  assert_int_equal(amddwarf__text_take(&t, &out, &length), AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(out);
  /* A cut in the middle of a fill or an append. */
  amddwarf__text_init_fixed(&t, buf, 4);
  amddwarf__text_fill(&t, '.', 5);
  assert_string_equal(buf, "...");
  assert_int_equal(t.len, 5);
  amddwarf__text_reset(&t);
  amddwarf__text_append(&t, "abcdef", 6);
  assert_string_equal(buf, "abc");
  assert_int_equal(t.len, 6);
  /* No buffer: only the length is counted. */
  amddwarf__text_init_fixed(&t, NULL, 0);
  amddwarf__text_printf(&t, "0x%x", 0x1000);
  amddwarf__text_puts(&t, "!");
  assert_int_equal(t.len, 7);
  assert_string_equal(amddwarf__text_str(&t), "");
}

static void test_mem_reserve_grows_and_refuses_overflow(void **state)
{
  (void)state;
  uint32_t *items = NULL;
  size_t capacity = 0;
  assert_int_equal(amddwarf__mem_reserve(NULL, (void **)&items, &capacity, 3, sizeof *items), 0);
  assert_true(capacity >= 3);
  items[2] = 7;
  assert_int_equal(amddwarf__mem_reserve(NULL, (void **)&items, &capacity, 100, sizeof *items), 0);
  assert_true(capacity >= 100);
  assert_int_equal(items[2], 7);
  size_t before = capacity;
  assert_int_equal(amddwarf__mem_reserve(NULL, (void **)&items, &capacity, SIZE_MAX / 2, 8), -1);
  assert_int_equal(capacity, before);
  amddwarf__mem_free(NULL, items, capacity * sizeof *items);
}

/* Large arrays of the C library's allocator are mappings of their own on a
   huge-page boundary, zeroed; small ones and a caller's allocator's are
   not, and the caller's allocator sees every byte. */
static void test_bulk_arrays(void **state)
{
  (void)state;
  size_t big = AMDDWARF_BULK_MIN + 12345;
  uint8_t *a = amddwarf__mem_calloc_bulk(NULL, big, 1);
  assert_non_null(a);
#if defined(__linux__)
  assert_int_equal((uintptr_t)a % AMDDWARF_BULK_MIN, 0);
#endif
  for (size_t i = 0; i < big; i += 4096)
    assert_int_equal(a[i], 0);
  assert_int_equal(a[big - 1], 0);
  a[big - 1] = 1; /* the whole array is writable */
  amddwarf__mem_free_bulk(NULL, a, big);
  uint8_t *small = amddwarf__mem_calloc_bulk(NULL, 100, 3);
  assert_non_null(small);
  assert_int_equal(small[299], 0);
  amddwarf__mem_free_bulk(NULL, small, 300);

  counting_allocator counter = {0, 0};
  amddwarf_allocator allocator = {counting_alloc, counting_realloc, counting_free, &counter};
  uint8_t *c = amddwarf__mem_calloc_bulk(&allocator, big, 1);
  assert_non_null(c);
  assert_int_equal(counter.live_bytes, big);
  assert_int_equal(c[big / 2], 0);
  amddwarf__mem_free_bulk(&allocator, c, big);
  assert_int_equal(counter.live_bytes, 0);
  assert_null(amddwarf__mem_calloc_bulk(NULL, SIZE_MAX / 2, 4));
}

static void test_status_table_and_error_details(void **state)
{
  (void)state;
  assert_string_equal(amddwarf_status_name(AMDDWARF_E_TRUNCATED), "truncated");
  assert_string_equal(amddwarf_status_name(AMDDWARF_OK), "ok");
  assert_string_equal(amddwarf_status_name((amddwarf_status)-99999), "unknown");
  amddwarf_status st;
  assert_int_equal(amddwarf_status_from_name("leb_overflow", &st), 0);
  assert_int_equal(st, AMDDWARF_E_LEB_OVERFLOW);
  assert_int_equal(amddwarf_status_from_name("no such status", &st), -1);

  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(err.offset, AMDDWARF_NO_OFFSET);
  /* The initializer is the cleared error: no status, offset, opcode or message. */
  amddwarf_error fresh = AMDDWARF_ERROR_INIT;
  assert_int_equal(fresh.status, AMDDWARF_OK);
  assert_true(fresh.offset == AMDDWARF_NO_OFFSET);
  assert_int_equal(fresh.opcode, AMDDWARF_NO_OPCODE);
  assert_int_equal(fresh.subop, AMDDWARF_NO_OPCODE);
  assert_string_equal(fresh.message, "");
  assert_int_equal(amddwarf__fail_op(&err, AMDDWARF_E_EXPR_UNKNOWN_OPCODE, 12, 0xfe,
                                    AMDDWARF_NO_OPCODE, "unknown opcode 0x%02x at offset %u",
                                    0xfe, 12),
                   AMDDWARF_E_EXPR_UNKNOWN_OPCODE);
  assert_int_equal(err.status, AMDDWARF_E_EXPR_UNKNOWN_OPCODE);
  assert_int_equal(err.offset, 12);
  assert_int_equal(err.opcode, 0xfe);
  assert_string_equal(err.message, "unknown opcode 0xfe at offset 12");
  /* A NULL error only returns the status. */
  assert_int_equal(amddwarf__fail(NULL, AMDDWARF_E_IO, 0, "x"), AMDDWARF_E_IO);
}

/* Distances worked out by hand: kitten -> sitting is the textbook 3
   (k->s, e->i, +g); a transposition is two edits; the limit cuts early. */
static void test_edit_distance(void **state)
{
  (void)state;
  assert_int_equal(amddwarf__edit_distance("kitten", 6, "sitting", 10), 3);
  assert_int_equal(amddwarf__edit_distance("regsiters", 9, "registers", 10), 2);
  assert_int_equal(amddwarf__edit_distance("", 0, "pc", 10), 2);
  assert_int_equal(amddwarf__edit_distance("pc", 2, "pc", 10), 0);
  /* Only the first A_LENGTH bytes of A count. */
  assert_int_equal(amddwarf__edit_distance("execX", 4, "exec", 10), 0);
  /* Above the limit: LIMIT + 1, whether the lengths or the rows show it. */
  assert_int_equal(amddwarf__edit_distance("kitten", 6, "sitting", 2), 3);
  assert_int_equal(amddwarf__edit_distance("a", 1, "abcdef", 2), 3);
  char longer[AMDDWARF_EDIT_DISTANCE_MAX + 2];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  assert_int_equal(amddwarf__edit_distance(longer, sizeof longer - 1, longer, 5), 6);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixed_size_reads_little_and_big_endian),
      cmocka_unit_test(test_truncated_read_leaves_position),
      cmocka_unit_test(test_signed_fixed_reads_sign_extend),
      cmocka_unit_test(test_uleb_values_padding_and_errors),
      cmocka_unit_test(test_sleb_values_padding_and_errors),
      cmocka_unit_test(test_leb_encode_round_trips),
      cmocka_unit_test(test_cstr),
      cmocka_unit_test(test_checked_math),
      cmocka_unit_test(test_arena_uses_allocator_and_releases_everything),
      cmocka_unit_test(test_mem_reserve_grows_and_refuses_overflow),
      cmocka_unit_test(test_bulk_arrays),
      cmocka_unit_test(test_text_limit_and_take),
      cmocka_unit_test(test_text_fixed_buffer),
      cmocka_unit_test(test_text_decimal_matches_printf),
      cmocka_unit_test(test_status_table_and_error_details),
      cmocka_unit_test(test_edit_distance),
  };
  return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
