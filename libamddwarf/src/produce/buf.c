/* Growable little-endian section buffers for the producers. */
#include "produce/produce_internal.h"

#include <string.h>

#include "common/error.h"
#include "common/mem.h"

void amddwarf__buf_init(amddwarf_buf *buf, const amddwarf_allocator *alloc)
{
  memset(buf, 0, sizeof *buf);
  buf->alloc = alloc;
}

void amddwarf__buf_free(amddwarf_buf *buf)
{
  amddwarf__mem_free(buf->alloc, buf->data, buf->capacity);
  buf->data = NULL;
  buf->size = buf->capacity = 0;
}

void amddwarf__buf_bytes(amddwarf_buf *buf, const void *bytes, size_t size)
{
  if (buf->failed || size == 0)
    return;
  if (amddwarf__mem_reserve(buf->alloc, (void **)&buf->data, &buf->capacity, buf->size + size,
                           1) != 0) {
    buf->failed = 1;
    return;
  }
  memcpy(buf->data + buf->size, bytes, size);
  buf->size += size;
}

void amddwarf__buf_u8(amddwarf_buf *buf, uint8_t value)
{
  amddwarf__buf_bytes(buf, &value, 1);
}

void amddwarf__buf_uint(amddwarf_buf *buf, uint64_t value, unsigned size)
{
  uint8_t bytes[8];
  for (unsigned i = 0; i < size && i < 8; i++)
    bytes[i] = (uint8_t)(value >> (8 * i));
  amddwarf__buf_bytes(buf, bytes, size);
}

void amddwarf__buf_uleb(amddwarf_buf *buf, uint64_t value)
{
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value)
      byte |= 0x80;
    amddwarf__buf_u8(buf, byte);
  } while (value);
}

void amddwarf__buf_sleb(amddwarf_buf *buf, int64_t value)
{
  for (;;) {
    uint8_t byte = (uint8_t)(value & 0x7f);
    /* arithmetic shift of a negative value, written portably */
    value = value < 0 ? ~(~value >> 7) : value >> 7;
    int done = (value == 0 && !(byte & 0x40)) || (value == -1 && (byte & 0x40));
    amddwarf__buf_u8(buf, done ? byte : (uint8_t)(byte | 0x80));
    if (done)
      return;
  }
}

void amddwarf__buf_cstr(amddwarf_buf *buf, const char *text)
{
  amddwarf__buf_bytes(buf, text, strlen(text) + 1);
}

void amddwarf__buf_patch(amddwarf_buf *buf, size_t offset, uint64_t value, unsigned size)
{
  if (buf->failed || offset + size > buf->size)
    return;
  for (unsigned i = 0; i < size; i++)
    buf->data[offset + i] = (uint8_t)(value >> (8 * i));
}

size_t amddwarf__buf_begin_length(amddwarf_buf *buf, unsigned offset_size)
{
  if (offset_size == 8)
    amddwarf__buf_uint(buf, 0xffffffffu, 4);
  amddwarf__buf_uint(buf, 0, offset_size);
  return buf->size;
}

void amddwarf__buf_end_length(amddwarf_buf *buf, size_t after_field, unsigned offset_size)
{
  amddwarf__buf_patch(buf, after_field - offset_size, buf->size - after_field, offset_size);
}

amddwarf_status amddwarf__buf_take(amddwarf_buf *buf, uint8_t **out, size_t *size,
                                  amddwarf_error *err)
{
  *out = NULL;
  *size = 0;
  if (buf->failed) {
    amddwarf__buf_free(buf);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  if (buf->size == 0) {
    amddwarf__buf_free(buf);
    return AMDDWARF_OK;
  }
  uint8_t *data = amddwarf__mem_realloc(buf->alloc, buf->data, buf->capacity, buf->size);
  if (!data) {
    amddwarf__buf_free(buf);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  *out = data;
  *size = buf->size;
  buf->data = NULL;
  buf->size = buf->capacity = 0;
  return AMDDWARF_OK;
}
