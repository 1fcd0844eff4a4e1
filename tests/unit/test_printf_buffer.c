/* The printf buffer (debug-printf seed, "Printf buffer"): header facts,
 * overflow past the 2 GiB clamp and past the buffer, bad entries reported at
 * their byte offsets with nothing before them lost, and streaming through a
 * read callback with bounded memory. Buffers come from JSON descriptions. */
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

static amddwarf_printf_reader *open_memory(const amddwarf_printf_build_output *b)
{
  amddwarf_printf_reader *reader = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_printf_reader_open_memory(b->buffer, b->buffer_size, NULL, &reader,
                                                      &err),
                   AMDDWARF_OK);
  return reader;
}

static void expect_entry(amddwarf_printf_reader *reader, uint64_t index, uint64_t offset,
                         uint32_t size, uint64_t id, uint32_t first_dword)
{
  amddwarf_printf_entry entry;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status status = amddwarf_printf_reader_next(reader, &entry, &err);
  if (status != AMDDWARF_OK)
    print_error("entry %llu: %s\n", (unsigned long long)index, err.message);
  assert_int_equal(status, AMDDWARF_OK);
  assert_int_equal(entry.index, index);
  assert_int_equal(entry.offset, offset);
  assert_int_equal(entry.size_dwords, size);
  assert_int_equal(entry.id, id);
  assert_int_equal(entry.payload_size, (size - 2) * 4);
  if (size > 2) {
    uint32_t dword;
    memcpy(&dword, entry.payload, 4);
    assert_int_equal(dword, first_dword);
  }
}

static void expect_bad(amddwarf_printf_reader *reader, amddwarf_status status, uint64_t index,
                       uint64_t offset)
{
  amddwarf_printf_entry entry;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_printf_reader_next(reader, &entry, &err), status);
  assert_int_equal(err.status, status);
  assert_int_equal(err.offset, offset);
  assert_int_equal(entry.index, index);
  assert_int_equal(entry.offset, offset);
  char where[32];
  snprintf(where, sizeof where, "offset %llu", (unsigned long long)offset);
  assert_non_null(strstr(err.message, where));
}

static void expect_end(amddwarf_printf_reader *reader)
{
  amddwarf_printf_entry entry;
  assert_int_equal(amddwarf_printf_reader_next(reader, &entry, NULL), AMDDWARF_END);
  assert_int_equal(amddwarf_printf_reader_next(reader, &entry, NULL), AMDDWARF_END);
}

static void test_walk(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  printf_test_build("{\"buffer\": {\"reserved\": [7, 9], \"entries\": ["
                    "{\"id\": 10, \"args\": [{\"i32\": 1}, {\"i32\": 2}]},"
                    "{\"id\": \"0xffffffffffff\"},"
                    "{\"id\": 12, \"args\": [{\"f64\": 0}, {\"i32\": 3}]}]}}",
                    &b);
  amddwarf_printf_reader *reader = open_memory(&b);
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(reader);
  /* Entries of 4, 2 and 5 dwords: 11 dwords, 44 bytes after the header. */
  assert_int_equal(info->buffer_offset, 11);
  assert_int_equal(info->reserved0, 7);
  assert_int_equal(info->reserved1, 9);
  assert_int_equal(info->total_size, 60);
  assert_int_equal(info->requested_bytes, 44);
  assert_int_equal(info->data_bytes, 44);
  assert_int_equal(info->lost_bytes, 0);
  assert_false(info->past_clamp);
  assert_false(info->past_buffer);
  expect_entry(reader, 0, 16, 4, 10, 1);
  expect_entry(reader, 1, 32, 2, AMDDWARF_PRINTF_ID_MAX, 0);
  expect_entry(reader, 2, 40, 5, 12, 0);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);
}

static void test_overflow(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  /* Shaders allocated 1000 dwords but the buffer holds 8 after the header:
     what fits is decoded, the rest is lost. */
  printf_test_build("{\"buffer\": {\"buffer_offset\": 1000, \"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 5}, {\"i32\": 6}]},"
                    "{\"id\": 2, \"args\": [{\"i32\": 7}, {\"i32\": 8}]}]}}",
                    &b);
  amddwarf_printf_reader *reader = open_memory(&b);
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(reader);
  assert_int_equal(info->requested_bytes, 4000);
  assert_int_equal(info->data_bytes, 32);
  assert_int_equal(info->lost_bytes, 4000 - 32);
  assert_true(info->past_buffer);
  assert_false(info->past_clamp);
  expect_entry(reader, 0, 16, 4, 1, 5);
  expect_entry(reader, 1, 32, 4, 2, 7);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);

  /* bufferOffset below what was written: only that much is read. */
  printf_test_build("{\"buffer\": {\"buffer_offset\": 4, \"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 5}, {\"i32\": 6}]},"
                    "{\"id\": 2, \"args\": [{\"i32\": 7}, {\"i32\": 8}]}]}}",
                    &b);
  reader = open_memory(&b);
  assert_int_equal(amddwarf_printf_reader_info(reader)->data_bytes, 16);
  expect_entry(reader, 0, 16, 4, 1, 5);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);

  /* A bufferOffset whose byte count does not fit in 64 bits saturates. */
  printf_test_build("{\"buffer\": {\"buffer_offset\": \"0xffffffffffffffff\"}}", &b);
  reader = open_memory(&b);
  info = amddwarf_printf_reader_info(reader);
  assert_int_equal(info->requested_bytes, UINT64_MAX);
  assert_int_equal(info->data_bytes, 0);
  assert_int_equal(info->lost_bytes, UINT64_MAX);
  assert_true(info->past_clamp);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);
}

static void test_bad_entries(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  printf_test_build("{\"buffer\": {\"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 11}]},"            /* 16: 3 dwords */
                    "{\"id\": 2, \"size\": 0},"                          /* 28: size 0 */
                    "{\"id\": 3, \"args\": [{\"i32\": 33}]},"            /* 36 */
                    "{\"id\": 4, \"size\": 1},"                          /* 48: size 1 */
                    "{\"id\": 5, \"args\": [{\"i32\": 55}, {\"i32\": 0}]}," /* 56 */
                    "{\"id\": 6, \"size\": 200, \"args\": [{\"i32\": 66}]}," /* 72: past end */
                    "{\"id\": 7, \"args\": [{\"i32\": 77}]}]}}",
                    &b);
  amddwarf_printf_reader *reader = open_memory(&b);
  expect_entry(reader, 0, 16, 3, 1, 11);
  expect_bad(reader, AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE, 1, 28);
  expect_entry(reader, 2, 36, 3, 3, 33);
  expect_bad(reader, AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE, 3, 48);
  expect_entry(reader, 4, 56, 4, 5, 55);
  expect_bad(reader, AMDDWARF_E_PRINTF_ENTRY_PAST_END, 5, 72);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);

  /* A written region ending inside an entry header. */
  printf_test_build("{\"buffer\": {\"buffer_offset\": 4, \"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 11}]}, {\"id\": 2}]}}",
                    &b);
  reader = open_memory(&b);
  expect_entry(reader, 0, 16, 3, 1, 11);
  expect_bad(reader, AMDDWARF_E_PRINTF_ENTRY_PAST_END, 1, 28);
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);

  /* Headers shorter than 16 bytes. */
  amddwarf_printf_reader *none = NULL;
  amddwarf_error err;
  static const uint8_t short_header[15];
  assert_int_equal(amddwarf_printf_reader_open_memory(short_header, 15, NULL, &none, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_null(none);
}

static amddwarf_status read_whole(void *user, uint64_t offset, void *destination, size_t size)
{
  const amddwarf_printf_build_output *b = user;
  if (offset > b->buffer_size || size > b->buffer_size - offset)
    return AMDDWARF_E_IO;
  memcpy(destination, b->buffer + offset, size);
  return AMDDWARF_OK;
}

static void test_batches(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  printf_test_build("{\"buffer\": {\"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 11}]},"
                    "{\"id\": 8, \"args\": [{\"i32\": 88}]},"
                    "{\"id\": 2, \"size\": 0},"
                    "{\"id\": 3, \"args\": [{\"i32\": 33}]},"
                    "{\"id\": 6, \"size\": 200, \"args\": [{\"i32\": 66}]}]}}",
                    &b);
  for (int mode = 0; mode < 2; mode++) {
    amddwarf_printf_reader *reader = NULL;
    amddwarf_error err;
    if (mode == 0)
      reader = open_memory(&b);
    else
      assert_int_equal(amddwarf_printf_reader_open_stream(read_whole, &b, b.buffer_size, 0, NULL,
                                                          &reader, &err),
                       AMDDWARF_OK);
    amddwarf_printf_entry entries[8];
    size_t count = 99;
    /* Two good entries, then the bad one alone, then the rest. */
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 8, &count, &err),
                     AMDDWARF_OK);
    assert_int_equal(count, 2);
    assert_int_equal(entries[0].offset, 16);
    assert_int_equal(entries[1].offset, 28);
    assert_int_equal(entries[1].id, 8);
    assert_int_equal(entries[1].index, 1);
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 8, &count, &err),
                     AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE);
    assert_int_equal(count, 0);
    assert_int_equal(err.offset, 40);
    assert_int_equal(entries[0].index, 2);
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 8, &count, &err),
                     AMDDWARF_OK);
    assert_int_equal(count, 1);
    assert_int_equal(entries[0].offset, 48);
    assert_int_equal(entries[0].index, 3);
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 8, &count, &err),
                     AMDDWARF_E_PRINTF_ENTRY_PAST_END);
    assert_int_equal(err.offset, 60);
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 8, &count, &err),
                     AMDDWARF_END);
    assert_int_equal(count, 0);
    assert_int_equal(amddwarf_printf_reader_next_batch(reader, entries, 0, &count, &err),
                     AMDDWARF_E_INVALID_ARGUMENT);
    amddwarf_printf_reader_close(reader);
  }
  amddwarf_printf_build_free(&b);
}

static void test_zero_runs(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  /* Three zero headers between good entries: one report, one index. Then
     3 MiB of never-written (zero) space up to bufferOffset: one report. */
  printf_test_build("{\"buffer\": {\"buffer_offset\": 786432, \"capacity\": 3145728, "
                    "\"entries\": ["
                    "{\"id\": 1, \"args\": [{\"i32\": 11}]},"
                    "{\"raw\": [0, 0, 0, 0, 0, 0]},"
                    "{\"id\": 2, \"args\": [{\"i32\": 22}]}]}}",
                    &b);
  for (int mode = 0; mode < 2; mode++) {
    amddwarf_printf_reader *reader = NULL;
    amddwarf_error err;
    if (mode == 0)
      reader = open_memory(&b);
    else
      assert_int_equal(amddwarf_printf_reader_open_stream(read_whole, &b, b.buffer_size, 0, NULL,
                                                          &reader, &err),
                       AMDDWARF_OK);
    expect_entry(reader, 0, 16, 3, 1, 11);
    expect_bad(reader, AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE, 1, 28);
    expect_entry(reader, 2, 52, 3, 2, 22);
    amddwarf_printf_entry entry;
    assert_int_equal(amddwarf_printf_reader_next(reader, &entry, &err),
                     AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE);
    assert_int_equal(err.offset, 64);
    assert_int_equal(entry.index, 3);
    char expected[64];
    snprintf(expected, sizeof expected, "skipping %d zero bytes", 3145728 - 48);
    assert_non_null(strstr(err.message, expected));
    expect_end(reader);
    amddwarf_printf_reader_close(reader);
  }
  amddwarf_printf_build_free(&b);
}

/* ---- Streaming ---- */

typedef struct memory_source {
  const uint8_t *data;
  uint64_t size;
  uint64_t fail_at; /* reads touching this offset fail */
  size_t reads;
} memory_source;

static amddwarf_status read_memory(void *user, uint64_t offset, void *destination, size_t size)
{
  memory_source *s = user;
  s->reads++;
  if (offset + size > s->size)
    return AMDDWARF_E_IO;
  if (s->fail_at >= offset && s->fail_at < offset + size)
    return AMDDWARF_E_IO;
  memcpy(destination, s->data + offset, size);
  return AMDDWARF_OK;
}

/* A description of COUNT entries of varying sizes (up to 1500 padding dwords). */
static char *many_entries(size_t count)
{
  size_t capacity = 64 + count * 64, length = 0;
  char *text = malloc(capacity);
  length += (size_t)snprintf(text, capacity, "{\"buffer\": {\"entries\": [");
  for (size_t i = 0; i < count; i++) {
    size_t args = i % 17 == 0 ? 1500 : (i * 31) % 9;
    length += (size_t)snprintf(text + length, capacity - length,
                               "%s{\"id\": %zu, \"pad\": %zu, \"args\": [{\"u32\": %zu}]}",
                               i ? "," : "", i + 1, args, i);
  }
  snprintf(text + length, capacity - length, "]}}");
  return text;
}

static void test_stream_matches_memory(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  char *text = many_entries(6000);
  printf_test_build(text, &b);
  free(text);
  assert_true(b.buffer_size > 3 * 1024 * 1024 / 2); /* several windows */
  memory_source source = {b.buffer, b.buffer_size, UINT64_MAX, 0};
  amddwarf_printf_reader *memory = open_memory(&b), *stream = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_printf_reader_open_stream(read_memory, &source, b.buffer_size, 1,
                                                      NULL, &stream, &err),
                   AMDDWARF_OK);
  size_t count = 0;
  for (;; count++) {
    amddwarf_printf_entry a, c;
    amddwarf_status sa = amddwarf_printf_reader_next(memory, &a, NULL);
    amddwarf_status sc = amddwarf_printf_reader_next(stream, &c, NULL);
    assert_int_equal(sa, sc);
    if (sa == AMDDWARF_END)
      break;
    assert_int_equal(sa, AMDDWARF_OK);
    assert_int_equal(a.index, c.index);
    assert_int_equal(a.offset, c.offset);
    assert_int_equal(a.id, count + 1);
    assert_int_equal(c.id, count + 1);
    assert_int_equal(a.payload_size, c.payload_size);
    assert_memory_equal(a.payload, c.payload, a.payload_size);
    uint32_t first;
    memcpy(&first, c.payload, 4);
    assert_int_equal(first, count);
  }
  assert_int_equal(count, 6000);
  assert_true(source.reads > 2 && source.reads < 20);
  amddwarf_printf_reader_close(memory);
  amddwarf_printf_reader_close(stream);

  /* A read failure ends the walk with AMDDWARF_E_IO at that offset. */
  source.fail_at = b.buffer_size / 2;
  assert_int_equal(amddwarf_printf_reader_open_stream(read_memory, &source, b.buffer_size, 0,
                                                      NULL, &stream, &err),
                   AMDDWARF_OK);
  amddwarf_printf_entry entry;
  amddwarf_status status;
  size_t good = 0;
  while ((status = amddwarf_printf_reader_next(stream, &entry, &err)) == AMDDWARF_OK)
    good++;
  assert_int_equal(status, AMDDWARF_E_IO);
  assert_true(good > 0 && good < 6000);
  assert_true(err.offset <= source.fail_at);
  expect_end(stream);
  amddwarf_printf_reader_close(stream);
  amddwarf_printf_build_free(&b);
}

/* A virtual buffer of 16 + 3 GiB: bufferOffset asks for 2.5 GiB, the clamp
   allows 2 GiB, filled with 64-dword entries generated on the fly. */
enum { VIRTUAL_ENTRY = 256 };
typedef struct virtual_source {
  uint8_t pattern[VIRTUAL_ENTRY];
  uint64_t buffer_offset;
} virtual_source;

static amddwarf_status read_virtual(void *user, uint64_t offset, void *destination, size_t size)
{
  virtual_source *v = user;
  uint8_t *out = destination;
  while (size > 0) {
    if (offset < 16) {
      uint8_t header[16] = {0};
      for (unsigned i = 0; i < 8; i++)
        header[i] = (uint8_t)(v->buffer_offset >> (8 * i));
      size_t n = (size_t)(16 - offset) < size ? (size_t)(16 - offset) : size;
      memcpy(out, header + offset, n);
      out += n, offset += n, size -= n;
      continue;
    }
    size_t at = (size_t)((offset - 16) % VIRTUAL_ENTRY);
    size_t n = VIRTUAL_ENTRY - at < size ? VIRTUAL_ENTRY - at : size;
    memcpy(out, v->pattern + at, n);
    out += n, offset += n, size -= n;
  }
  return AMDDWARF_OK;
}

static void test_stream_bounded_memory(void **state)
{
  (void)state;
  virtual_source v;
  memset(v.pattern, 0x5a, sizeof v.pattern);
  uint64_t header = (VIRTUAL_ENTRY / 4) | UINT64_C(0x123456789abc) << 16;
  for (unsigned i = 0; i < 8; i++)
    v.pattern[i] = (uint8_t)(header >> (8 * i));
  v.buffer_offset = UINT64_C(5) << 27; /* 2.5 GiB in dwords */
  printf_test_counter counter = {0, 0, 0};
  amddwarf_allocator allocator = printf_test_counting_allocator(&counter);
  amddwarf_printf_reader *reader;
  amddwarf_error err;
  uint64_t total = 16 + (UINT64_C(3) << 30);
  assert_int_equal(amddwarf_printf_reader_open_stream(read_virtual, &v, total, 0, &allocator,
                                                      &reader, &err),
                   AMDDWARF_OK);
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(reader);
  assert_int_equal(info->requested_bytes, UINT64_C(5) << 29);
  assert_int_equal(info->data_bytes, AMDDWARF_PRINTF_CLAMP_BYTES);
  assert_int_equal(info->lost_bytes, UINT64_C(1) << 29);
  assert_true(info->past_clamp);
  assert_false(info->past_buffer);
  uint64_t count = 0;
  amddwarf_printf_entry entry;
  amddwarf_status status;
  while ((status = amddwarf_printf_reader_next(reader, &entry, &err)) == AMDDWARF_OK) {
    if (entry.id != UINT64_C(0x123456789abc) || entry.payload[0] != 0x5a)
      fail();
    count++;
  }
  assert_int_equal(status, AMDDWARF_END);
  assert_int_equal(count, AMDDWARF_PRINTF_CLAMP_BYTES / VIRTUAL_ENTRY);
  /* The whole walk used one window of about 1 MiB. */
  assert_true(counter.peak < (size_t)3 << 19);
  amddwarf_printf_reader_close(reader);
  assert_int_equal(counter.live, 0);
}

static void test_render_all(void **state)
{
  (void)state;
  /* End to end: metadata ELF + buffer, decoded and rendered. */
  static const char description[] =
      "{\"strings\": ["
      "{\"id\": 12345678, \"format\": \"Sample %i format %f\", \"args\": [\"i32\", \"f32\"]},"
      "{\"id\": 31415926, \"format\": \"Another format string: %f %f\", \"args\": [\"f32\", \"f32\"]},"
      "{\"id\": 5, \"format\": \"half %.3f byte %u wide %llx\", \"args\": [\"f16\", \"i8\", \"u64\"]}],"
      " \"buffer\": {\"entries\": ["
      "{\"id\": 12345678, \"args\": [{\"i32\": -42}, {\"f32\": 0.25}]},"
      "{\"id\": 31415926, \"args\": [{\"f32\": [1.5, -2]}]},"
      "{\"id\": 5, \"args\": [{\"f16\": 0.1}, {\"i8\": -2}, {\"u64\": \"0x123456789abcdef0\"}]}]}}";
  amddwarf_printf_build_output b;
  amddwarf_printf_table *table = printf_test_table(description, "pipeline.elf");
  printf_test_build(description, &b);
  amddwarf_printf_reader *reader = open_memory(&b);
  char expected[3][128], out[128];
  /* The f16 nearest to 0.1 is 0x2e66 = 0.0999755859375. */
  snprintf(expected[0], 128, "Sample %i format %f", -42, 0.25);
  snprintf(expected[1], 128, "Another format string: %f %f", 1.5, -2.0);
  snprintf(expected[2], 128, "half %.3f byte %u wide %llx", 0.0999755859375, 254u,
           0x123456789abcdef0ull);
  for (size_t i = 0; i < 3; i++) {
    amddwarf_printf_entry entry;
    size_t length;
    assert_int_equal(amddwarf_printf_reader_next(reader, &entry, NULL), AMDDWARF_OK);
    assert_int_equal(amddwarf_printf_render_entry(table, &entry, out, sizeof out, &length, NULL),
                     AMDDWARF_OK);
    assert_string_equal(out, expected[i]);
  }
  expect_end(reader);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_table_free(table);
  amddwarf_printf_build_free(&b);
}

/* A PAL header has zero reserved words; the debug output buffer of SPIR-V
   debug printf (flags, written length, then a record's size and shader id
   where the reserved words are) does not. The reader itself decodes both. */
static void test_pal_header_check(void **state)
{
  (void)state;
  amddwarf_printf_build_output b;
  printf_test_build("{\"buffer\": {\"entries\": [{\"id\": 10, \"args\": [{\"i32\": 1}]}]}}",
                    &b);
  amddwarf_printf_reader *reader = open_memory(&b);
  amddwarf_error err;
  assert_int_equal(amddwarf_printf_buffer_check(amddwarf_printf_reader_info(reader), &err),
                   AMDDWARF_OK);
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_build_free(&b);

  static const uint32_t spirv_printf[] = {0, 15, 15, 23, 83, 5, 7, 0, 0, 17, 7, 0xfffffffe,
                                          0x40e00000, 0x40e00000, 0x3f800000, 0, 14, 0, 0};
  reader = NULL;
  assert_int_equal(amddwarf_printf_reader_open_memory(spirv_printf, sizeof spirv_printf, NULL,
                                                      &reader, &err),
                   AMDDWARF_OK);
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(reader);
  assert_int_equal(info->buffer_offset, UINT64_C(15) << 32); /* "bytes lost" by the billion */
  assert_int_equal(amddwarf_printf_buffer_check(info, &err), AMDDWARF_E_PRINTF_NOT_PAL_BUFFER);
  assert_int_equal(err.offset, 8);
  assert_string_equal(err.message, "not a PAL printf buffer: its reserved header words 0xf and "
                                   "0x17 (bytes 8 to 15) are not 0");
  amddwarf_printf_reader_close(reader);
  amddwarf_printf_buffer_info only_second = {0};
  only_second.reserved1 = 5;
  assert_int_equal(amddwarf_printf_buffer_check(&only_second, &err),
                   AMDDWARF_E_PRINTF_NOT_PAL_BUFFER);
  assert_int_equal(err.offset, 12);
  assert_int_equal(amddwarf_printf_buffer_check(NULL, NULL), AMDDWARF_E_INVALID_ARGUMENT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walk),
      cmocka_unit_test(test_overflow),
      cmocka_unit_test(test_bad_entries),
      cmocka_unit_test(test_batches),
      cmocka_unit_test(test_zero_runs),
      cmocka_unit_test(test_stream_matches_memory),
      cmocka_unit_test(test_stream_bounded_memory),
      cmocka_unit_test(test_render_all),
      cmocka_unit_test(test_pal_header_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
