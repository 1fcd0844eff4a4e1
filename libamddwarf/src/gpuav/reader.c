/* Streaming reader of debug output buffers (specs/gpuav-records.md,
 * "Reading a buffer"): records come from caller memory or through a read
 * callback into one window (common/window.h) that holds the largest record,
 * so a buffer of any size is read with bounded memory. After the last
 * record, amddwarf_gpuav_reader_finish checks that the records agree with
 * the written length and that Data[] past them is still cleared. */
#include <amddwarf/gpuav.h>

#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "common/window.h"
#include "gpuav/gpuav_internal.h"

enum {
  GPUAV_MAX_RECORD_BYTES = AMDDWARF_GPUAV_MAX_RECORD_WORDS * 4,
  GPUAV_DEFAULT_WINDOW = 4 << 20,
  GPUAV_HEAD_BYTES = 64, /* header and the first record's common words */
  GPUAV_ZERO_CHUNK = 1 << 20,
};
_Static_assert(GPUAV_DEFAULT_WINDOW >= GPUAV_MAX_RECORD_BYTES, "the window holds any record");

struct amddwarf_gpuav_reader {
  amddwarf_allocator allocator;
  amddwarf_window window;
  amddwarf_gpuav_buffer buffer;
  uint64_t data_byte;     /* byte offset of Data[0] */
  uint64_t data_end;      /* byte offset of the end of Data[] */
  uint32_t cursor;        /* Data[] index of the next record */
  uint32_t limit;         /* where records end */
  bool ended;             /* the scan reached its end */
  bool cut;               /* it ended at a bad record */
  bool failed;            /* a read failed */
  bool finished;
};

static amddwarf_status read_failed(amddwarf_gpuav_reader *r, amddwarf_status status,
                                   uint64_t offset, size_t size, amddwarf_error *err)
{
  r->failed = true;
  r->ended = true;
  return amddwarf__fail(err, status, offset,
                       "reading %zu bytes of the debug output buffer at offset %llu failed (%s)",
                       size, (unsigned long long)offset, amddwarf_status_name(status));
}

static amddwarf_status reader_start(amddwarf_gpuav_reader *r, const uint8_t *head,
                                    size_t head_bytes, uint64_t total_size,
                                    amddwarf_gpuav_format format, amddwarf_error *err)
{
  amddwarf_status st =
      amddwarf__gpuav_header_parse(head, head_bytes, total_size, format, &r->buffer, err);
  if (st != AMDDWARF_OK)
    return st;
  r->data_byte = (uint64_t)r->buffer.data_offset * 4;
  r->data_end = r->data_byte + (uint64_t)r->buffer.data_words * 4;
  r->limit = amddwarf_gpuav_record_limit(&r->buffer);
  return AMDDWARF_OK;
}

static amddwarf_status reader_create(const amddwarf_allocator *allocator,
                                     amddwarf_gpuav_reader **out, amddwarf_error *err)
{
  amddwarf_allocator resolved = amddwarf__allocator_resolve(allocator);
  amddwarf_gpuav_reader *r = amddwarf__mem_calloc(&resolved, 1, sizeof *r);
  if (!r)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for a debug output buffer reader");
  r->allocator = resolved;
  *out = r;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_reader_open_memory(const void *data, size_t size,
                                                  amddwarf_gpuav_format format,
                                                  const amddwarf_allocator *allocator,
                                                  amddwarf_gpuav_reader **out,
                                                  amddwarf_error *err)
{
  if (!out || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "debug output buffer data and result are required");
  amddwarf_gpuav_reader *r = NULL;
  amddwarf_status st = reader_create(allocator, &r, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf__window_init_memory(&r->window, data, size);
  if ((st = reader_start(r, data, size, size, format, err)) != AMDDWARF_OK) {
    amddwarf_gpuav_reader_close(r);
    return st;
  }
  *out = r;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_reader_open_stream(amddwarf_gpuav_read_fn read, void *user,
                                                  uint64_t total_size, amddwarf_gpuav_format format,
                                                  size_t window_size,
                                                  const amddwarf_allocator *allocator,
                                                  amddwarf_gpuav_reader **out,
                                                  amddwarf_error *err)
{
  if (!read || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "read callback and result are required");
  uint8_t head[GPUAV_HEAD_BYTES];
  size_t head_bytes = total_size < sizeof head ? (size_t)total_size : sizeof head;
  amddwarf_status st = read(user, 0, head, head_bytes);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, 0, "reading the debug output buffer header failed (%s)",
                         amddwarf_status_name(st));
  amddwarf_gpuav_reader *r = NULL;
  if ((st = reader_create(allocator, &r, err)) != AMDDWARF_OK)
    return st;
  if (window_size == 0)
    window_size = GPUAV_DEFAULT_WINDOW;
  if (window_size < GPUAV_MAX_RECORD_BYTES)
    window_size = GPUAV_MAX_RECORD_BYTES;
  if ((st = reader_start(r, head, head_bytes, total_size, format, err)) != AMDDWARF_OK) {
    amddwarf_gpuav_reader_close(r);
    return st;
  }
  if (amddwarf__window_init_stream(&r->window, &r->allocator, read, user, total_size,
                                  window_size) != AMDDWARF_OK) {
    amddwarf_gpuav_reader_close(r);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for a %zu-byte read window", window_size);
  }
  *out = r;
  return AMDDWARF_OK;
}

void amddwarf_gpuav_reader_close(amddwarf_gpuav_reader *r)
{
  if (!r)
    return;
  amddwarf_allocator a = r->allocator;
  amddwarf__window_fini(&r->window);
  amddwarf__mem_free(&a, r, sizeof *r);
}

const amddwarf_gpuav_buffer *amddwarf_gpuav_reader_buffer(const amddwarf_gpuav_reader *r)
{
  return r ? &r->buffer : NULL;
}

amddwarf_status amddwarf_gpuav_reader_next(amddwarf_gpuav_reader *r,
                                           amddwarf_gpuav_record *record, amddwarf_error *err)
{
  if (!r || !record)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "reader and record are required");
  if (r->ended || r->cursor >= r->limit) {
    r->ended = true;
    return AMDDWARF_END;
  }
  uint64_t offset = r->data_byte + (uint64_t)r->cursor * 4;
  const uint8_t *bytes;
  amddwarf_status st = amddwarf__window_get(&r->window, offset, 4, r->data_end, &bytes);
  if (st != AMDDWARF_OK)
    return read_failed(r, st, offset, 4, err);
  uint32_t size = amddwarf_gpuav_le32(bytes);
  if (size == 0) {
    r->ended = true;
    return AMDDWARF_END;
  }
  /* The whole record when it is plausible, else its fixed words. */
  uint32_t room = r->buffer.data_words - r->cursor;
  uint32_t want = size <= AMDDWARF_GPUAV_MAX_RECORD_WORDS ? size : 7;
  uint32_t readable = want < room ? want : room;
  if ((st = amddwarf__window_get(&r->window, offset, (size_t)readable * 4, r->data_end,
                                &bytes)) != AMDDWARF_OK)
    return read_failed(r, st, offset, (size_t)readable * 4, err);
  bool stop;
  r->cursor = amddwarf__gpuav_record_decode(&r->buffer, bytes, readable, r->cursor, r->limit,
                                           record, &stop, err);
  if (stop) {
    r->cut = true;
    r->ended = true;
  }
  return AMDDWARF_OK;
}

uint32_t amddwarf_gpuav_reader_position(const amddwarf_gpuav_reader *r)
{
  return r ? r->cursor : 0;
}

amddwarf_status amddwarf_gpuav_reader_finish(amddwarf_gpuav_reader *r, amddwarf_error *err)
{
  if (!r)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "reader is required");
  if (!r->ended)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_reader_finish before the last record");
  if (r->finished || r->failed || r->cut)
    return AMDDWARF_OK; /* already reported */
  r->finished = true;
  const amddwarf_gpuav_buffer *b = &r->buffer;
  uint32_t end = r->cursor;
  if (!b->overflow && end < b->written_length)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_LENGTH, r->data_byte + (uint64_t)end * 4,
                         "the records end at Data[%u] (byte offset %llu, a record size of 0) "
                         "but the written length is %u words: the buffer holds fewer words "
                         "than the shaders wrote",
                         end, (unsigned long long)(r->data_byte + (uint64_t)end * 4),
                         b->written_length);
  /* Data[] is cleared before the shaders run and they write only whole
     records, so every word after the last record is zero. */
  uint64_t at = r->data_byte + (uint64_t)end * 4;
  while (at < r->data_end) {
    uint64_t remaining = r->data_end - at;
    size_t chunk = remaining < GPUAV_ZERO_CHUNK ? (size_t)remaining : GPUAV_ZERO_CHUNK;
    if (r->window.capacity && chunk > r->window.capacity)
      chunk = r->window.capacity;
    const uint8_t *bytes;
    amddwarf_status st = amddwarf__window_get(&r->window, at, chunk, r->data_end, &bytes);
    if (st != AMDDWARF_OK)
      return read_failed(r, st, at, chunk, err);
    size_t i = 0;
    for (uint64_t pair; i + 8 <= chunk; i += 8) { /* the common case: all zero */
      memcpy(&pair, bytes + i, 8);
      if (pair != 0)
        break;
    }
    for (; i + 4 <= chunk; i += 4) {
      uint32_t w = amddwarf_gpuav_le32(bytes + i);
      if (w == 0)
        continue;
      uint64_t byte = at + i;
      uint32_t index = (uint32_t)((byte - r->data_byte) / 4);
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_LENGTH, byte,
                           "Data[%u] (byte offset %llu) is 0x%x, past the last record at "
                           "Data[%u]: the layer clears the buffer before the shaders run and "
                           "they write only whole records, so this is not the buffer they "
                           "wrote, or not a %s buffer",
                           index, (unsigned long long)byte, w, end,
                           amddwarf_gpuav_format_name(b->format));
    }
    at += chunk;
  }
  return AMDDWARF_OK;
}
