/* Fuzz target for the debug-printf module: metadata (MessagePack, JSON, ELF
 * notes), buffer walking and rendering with hostile format strings, and the
 * JSON description producer. The first byte picks the entry point; the rest
 * is its input. Everything is in memory and released before returning. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <amddwarf/printf.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fixed table for the buffer mode: ids 1..4 with assorted layouts. */
static const char fixed_metadata[] =
    "{\".version\": 1, \".strings\": ["
    "{\".index\": 1, \".string\": \"%d %u %x %c\", \".argument_count\": 4, \".64bit_arguments\": [0]},"
    "{\".index\": 2, \".string\": \"%f %e %g %a\", \".argument_count\": 4, \".64bit_arguments\": [5]},"
    "{\".index\": 3, \".string\": \"%*.*lld|%v3f\", \".argument_count\": 6, \".64bit_arguments\": [4]},"
    "{\".index\": 4, \".string\": \"no args\", \".argument_count\": 0, \".64bit_arguments\": []}]}";

static void walk_buffer(const amddwarf_printf_table *table, const uint8_t *data, size_t size)
{
  amddwarf_printf_reader *reader = NULL;
  if (amddwarf_printf_reader_open_memory(data, size, NULL, &reader, NULL) != AMDDWARF_OK)
    return;
  char out[256];
  for (unsigned steps = 0; steps < 100000; steps++) {
    amddwarf_printf_entry entry;
    amddwarf_error err;
    amddwarf_status status = amddwarf_printf_reader_next(reader, &entry, &err);
    if (status == AMDDWARF_END)
      break;
    if (status == AMDDWARF_OK && table)
      (void)amddwarf_printf_render_entry(table, &entry, out, sizeof out, NULL, &err);
  }
  amddwarf_printf_reader_close(reader);
}

static void add_and_list(int mode, const uint8_t *data, size_t size)
{
  amddwarf_printf_table *table = NULL;
  amddwarf_error err;
  if (amddwarf_printf_table_new(NULL, &table, &err) != AMDDWARF_OK)
    return;
  amddwarf_status status =
      mode == 0   ? amddwarf_printf_table_add_msgpack(table, data, size, "fuzz", &err)
      : mode == 1 ? amddwarf_printf_table_add_json(table, (const char *)data, size, "fuzz", &err)
                  : amddwarf_printf_table_add(table, data, size, "fuzz", &err);
  (void)status;
  /* Render every string with a zero payload of the size it declares. */
  static const uint8_t zeros[8 * 64];
  char out[128];
  for (size_t i = 0; i < amddwarf_printf_table_count(table); i++) {
    const amddwarf_printf_string *s = amddwarf_printf_table_string(table, i);
    amddwarf_printf_entry entry = {.index = i, .offset = 16, .size_dwords = 2, .id = s->id,
                                   .payload = zeros, .payload_size = sizeof zeros};
    (void)amddwarf_printf_render_entry(table, &entry, out, sizeof out, NULL, &err);
  }
  for (size_t i = 0; i < amddwarf_printf_table_collision_count(table); i++)
    (void)amddwarf_printf_table_collision(table, i);
  amddwarf_printf_table_free(table);
}

/* True when "capacity" occurs in the description (it may ask for a GiB). */
static int memmem_capacity(const uint8_t *data, size_t size)
{
  static const char word[] = "capacity";
  for (size_t i = 0; i + sizeof word - 1 <= size; i++)
    if (memcmp(data + i, word, sizeof word - 1) == 0)
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  int mode = data[0] % 6;
  data++;
  size--;
  switch (mode) {
  case 0:
  case 1:
  case 2:
    add_and_list(mode, data, size);
    break;
  case 3: {
    amddwarf_printf_table *table = NULL;
    if (amddwarf_printf_table_new(NULL, &table, NULL) == AMDDWARF_OK &&
        amddwarf_printf_table_add_json(table, fixed_metadata, sizeof fixed_metadata - 1, "fixed",
                                       NULL) == AMDDWARF_OK)
      walk_buffer(table, data, size);
    amddwarf_printf_table_free(table);
    break;
  }
  case 4: {
    /* A hostile format string: bytes up to the first NUL; the payload and a
       mask word follow it. */
    const uint8_t *nul = memchr(data, 0, size);
    size_t format_length = nul ? (size_t)(nul - data) : size;
    const uint8_t *payload = nul ? nul + 1 : data + size;
    size_t payload_size = nul ? size - format_length - 1 : 0;
    uint64_t mask = payload_size >= 8 ? (uint64_t)payload[0] * 0x0101010101010101u : 0;
    char out[512];
    (void)amddwarf_printf_render((const char *)data, format_length, &mask, 1, payload,
                                 payload_size, out, sizeof out, NULL, NULL);
    break;
  }
  case 5: {
    amddwarf_printf_build_output out;
    /* Small descriptions only: padding and capacity make outputs large. */
    if (size < 4096 && !memmem_capacity(data, size) &&
        amddwarf_printf_build_json((const char *)data, size, NULL, &out, NULL) == AMDDWARF_OK) {
      amddwarf_printf_table *table = NULL;
      if (out.elf && amddwarf_printf_table_new(NULL, &table, NULL) == AMDDWARF_OK)
        (void)amddwarf_printf_table_add_elf(table, out.elf, out.elf_size, "built", NULL);
      if (out.buffer)
        walk_buffer(table, out.buffer, out.buffer_size);
      amddwarf_printf_table_free(table);
      amddwarf_printf_build_free(&out);
    }
    break;
  }
  }
  return 0;
}
