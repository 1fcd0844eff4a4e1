/* The printf buffer (debug-printf seed, "Printf buffer"): a 16-byte
 * PrintfBufferHeader whose bufferOffset counts the dwords shaders allocated
 * after it, then entries of a 64-bit header (bits 0-15 entrySize in dwords,
 * header included; bits 16-63 formatStringId) and their payload.
 *
 * The decodable region is the smallest of what shaders allocated
 * (bufferOffset * 4 bytes), the 2 GiB the shader's clamp allows, and what the
 * buffer holds; the rest is reported as lost. Entries are read from caller
 * memory (an mmap, say) or through a read callback into a window of bounded
 * size: an entry is at most 65535 dwords, so a window of twice that always
 * holds one whole entry.
 *
 * A bad entry size is skipped by its 8-byte header; a run of all-zero headers
 * (allocated space a shader never wrote) is reported once and skipped whole,
 * so a zero-filled buffer yields one report, not one per 8 bytes. */
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "common/window.h"
#include "printf/printf_internal.h"

enum {
  PRINTF_MAX_ENTRY_BYTES = AMDDWARF_PRINTF_MAX_ENTRY_DWORDS * 4,
  PRINTF_DEFAULT_WINDOW = 1 << 20,
};

struct amddwarf_printf_reader {
  amddwarf_allocator allocator;
  amddwarf_printf_buffer_info info;
  const uint8_t *memory;       /* memory mode: the whole buffer (window.memory) */
  amddwarf_window window;      /* memory or stream */
  uint64_t pos;                /* buffer offset of the next entry */
  uint64_t end;                /* end of the decodable region */
  uint64_t index;
  bool done;
};

static inline uint64_t load_le(const uint8_t *p, unsigned size)
{
  uint64_t value = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (size == 8) { /* one load: the walk's critical path */
    memcpy(&value, p, 8);
    return value;
  }
#endif
  for (unsigned i = 0; i < size; i++)
    value |= (uint64_t)p[i] << (8 * i);
  return value;
}

static void compute_info(amddwarf_printf_buffer_info *info, const uint8_t header[16],
                         uint64_t total_size)
{
  memset(info, 0, sizeof *info);
  info->buffer_offset = load_le(header, 8);
  info->reserved0 = (uint32_t)load_le(header + 8, 4);
  info->reserved1 = (uint32_t)load_le(header + 12, 4);
  info->total_size = total_size;
  if (amddwarf_mul_overflow_u64(info->buffer_offset, 4, &info->requested_bytes))
    info->requested_bytes = UINT64_MAX;
  uint64_t available = total_size - AMDDWARF_PRINTF_HEADER_SIZE;
  uint64_t data = info->requested_bytes;
  info->past_clamp = data > AMDDWARF_PRINTF_CLAMP_BYTES;
  if (info->past_clamp)
    data = AMDDWARF_PRINTF_CLAMP_BYTES;
  info->past_buffer = info->requested_bytes > available;
  if (data > available)
    data = available;
  info->data_bytes = data;
  info->lost_bytes = info->requested_bytes - data;
}

static amddwarf_status reader_create(const amddwarf_allocator *allocator,
                                     amddwarf_printf_reader **out, amddwarf_error *err)
{
  amddwarf_allocator resolved = amddwarf__allocator_resolve(allocator);
  amddwarf_printf_reader *reader = amddwarf__mem_calloc(&resolved, 1, sizeof *reader);
  if (!reader)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for a printf buffer reader");
  reader->allocator = resolved;
  *out = reader;
  return AMDDWARF_OK;
}

static amddwarf_status header_too_short(uint64_t size, amddwarf_error *err)
{
  return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, 0,
                       "printf buffer of %llu bytes is shorter than its %u-byte header",
                       (unsigned long long)size, AMDDWARF_PRINTF_HEADER_SIZE);
}

amddwarf_status amddwarf_printf_reader_open_memory(const void *data, size_t size,
                                                   const amddwarf_allocator *allocator,
                                                   amddwarf_printf_reader **out,
                                                   amddwarf_error *err)
{
  if (!out || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "printf buffer data and result are required");
  if (size < AMDDWARF_PRINTF_HEADER_SIZE)
    return header_too_short(size, err);
  amddwarf_printf_reader *reader = NULL;
  amddwarf_status status = reader_create(allocator, &reader, err);
  if (status != AMDDWARF_OK)
    return status;
  reader->memory = data;
  amddwarf__window_init_memory(&reader->window, data, size);
  compute_info(&reader->info, data, size);
  reader->pos = AMDDWARF_PRINTF_HEADER_SIZE;
  reader->end = AMDDWARF_PRINTF_HEADER_SIZE + reader->info.data_bytes;
  *out = reader;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_printf_reader_open_stream(amddwarf_printf_read_fn read, void *user,
                                                   uint64_t total_size, size_t window_size,
                                                   const amddwarf_allocator *allocator,
                                                   amddwarf_printf_reader **out,
                                                   amddwarf_error *err)
{
  if (!read || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "read callback and result are required");
  if (total_size < AMDDWARF_PRINTF_HEADER_SIZE)
    return header_too_short(total_size, err);
  uint8_t header[AMDDWARF_PRINTF_HEADER_SIZE];
  amddwarf_status status = read(user, 0, header, sizeof header);
  if (status != AMDDWARF_OK)
    return amddwarf__fail(err, status, 0, "reading the printf buffer header failed (%s)",
                         amddwarf_status_name(status));
  amddwarf_printf_reader *reader = NULL;
  if ((status = reader_create(allocator, &reader, err)) != AMDDWARF_OK)
    return status;
  if (window_size == 0)
    window_size = PRINTF_DEFAULT_WINDOW;
  if (window_size < 2 * (size_t)PRINTF_MAX_ENTRY_BYTES)
    window_size = 2 * (size_t)PRINTF_MAX_ENTRY_BYTES;
  if (amddwarf__window_init_stream(&reader->window, &reader->allocator, read, user, total_size,
                                  window_size) != AMDDWARF_OK) {
    amddwarf_printf_reader_close(reader);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for a %zu-byte read window", window_size);
  }
  compute_info(&reader->info, header, total_size);
  reader->pos = AMDDWARF_PRINTF_HEADER_SIZE;
  reader->end = AMDDWARF_PRINTF_HEADER_SIZE + reader->info.data_bytes;
  *out = reader;
  return AMDDWARF_OK;
}

void amddwarf_printf_reader_close(amddwarf_printf_reader *reader)
{
  if (!reader)
    return;
  amddwarf_allocator a = reader->allocator;
  amddwarf__window_fini(&reader->window);
  amddwarf__mem_free(&a, reader, sizeof *reader);
}

const amddwarf_printf_buffer_info *amddwarf_printf_reader_info(const amddwarf_printf_reader *reader)
{
  return reader ? &reader->info : NULL;
}

amddwarf_status amddwarf_printf_buffer_check(const amddwarf_printf_buffer_info *info,
                                             amddwarf_error *err)
{
  if (!info)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "printf buffer header is required");
  if (info->reserved0 == 0 && info->reserved1 == 0)
    return AMDDWARF_OK;
  return amddwarf__fail(err, AMDDWARF_E_PRINTF_NOT_PAL_BUFFER, info->reserved0 ? 8 : 12,
                       "not a PAL printf buffer: its reserved header words 0x%x and 0x%x (bytes 8 "
                       "to 15) are not 0",
                       info->reserved0, info->reserved1);
}

/* Points *OUT at SIZE bytes at buffer offset OFFSET (inside [pos, end)). */
static amddwarf_status reader_bytes(amddwarf_printf_reader *r, uint64_t offset, size_t size,
                                    const uint8_t **out, amddwarf_error *err)
{
  amddwarf_status status = amddwarf__window_get(&r->window, offset, size, r->end, out);
  if (status != AMDDWARF_OK) {
    r->done = true;
    return amddwarf__fail(err, status, offset,
                         "reading %zu bytes of the printf buffer at offset %llu failed (%s)",
                         size, (unsigned long long)offset, amddwarf_status_name(status));
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_printf_reader_next(amddwarf_printf_reader *r,
                                            amddwarf_printf_entry *entry, amddwarf_error *err)
{
  const uint8_t *bytes;
  amddwarf_status status;
  if (!r || !entry)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "reader and entry are required");
  if (r->done || r->pos >= r->end)
    return AMDDWARF_END;
  uint64_t offset = r->pos;
  /* Fast path: a well-formed entry in caller memory. */
  if (r->memory && r->end - offset >= AMDDWARF_PRINTF_ENTRY_HEADER_SIZE) {
    uint64_t header = load_le(r->memory + offset, 8);
    uint64_t size = (header & 0xffff) * 4;
    if (size >= AMDDWARF_PRINTF_ENTRY_HEADER_SIZE && size <= r->end - offset) {
      entry->index = r->index++;
      entry->offset = offset;
      entry->size_dwords = (uint32_t)(header & 0xffff);
      entry->id = header >> 16;
      entry->payload = r->memory + offset + AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
      entry->payload_size = (size_t)size - AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
      r->pos = offset + size;
      return AMDDWARF_OK;
    }
  }
  uint64_t remaining = r->end - offset;
  entry->index = r->index++;
  entry->offset = offset;
  entry->size_dwords = 0;
  entry->id = 0;
  entry->payload = NULL;
  entry->payload_size = 0;
  if (remaining < AMDDWARF_PRINTF_ENTRY_HEADER_SIZE) {
    r->done = true;
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_ENTRY_PAST_END, offset,
                         "entry %llu at offset %llu: its 8-byte header runs past the end of the "
                         "written data at offset %llu",
                         (unsigned long long)entry->index, (unsigned long long)offset,
                         (unsigned long long)r->end);
  }
  if ((status = reader_bytes(r, offset, AMDDWARF_PRINTF_ENTRY_HEADER_SIZE, &bytes, err)) !=
      AMDDWARF_OK)
    return status;
  uint64_t header = load_le(bytes, 8);
  entry->size_dwords = (uint32_t)(header & 0xffff);
  entry->id = header >> 16;
  if (header == 0) {
    /* A run of zero headers (space allocated but never written) is one report. */
    uint64_t run = AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
    while (r->end - (offset + run) >= AMDDWARF_PRINTF_ENTRY_HEADER_SIZE) {
      if ((status = reader_bytes(r, offset + run, AMDDWARF_PRINTF_ENTRY_HEADER_SIZE, &bytes,
                                 err)) != AMDDWARF_OK)
        return status;
      if (load_le(bytes, 8) != 0)
        break;
      run += AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
    }
    r->pos = offset + run;
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE, offset,
                         "entry %llu at offset %llu: size 0 dwords is smaller than its 2-dword "
                         "header; skipping %llu zero bytes",
                         (unsigned long long)entry->index, (unsigned long long)offset,
                         (unsigned long long)run);
  }
  if (entry->size_dwords < 2) {
    r->pos = offset + AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE, offset,
                         "entry %llu at offset %llu: size %u dwords is smaller than its 2-dword "
                         "header; skipping 8 bytes",
                         (unsigned long long)entry->index, (unsigned long long)offset,
                         entry->size_dwords);
  }
  size_t size = (size_t)entry->size_dwords * 4;
  if (size > remaining) {
    r->done = true;
    r->pos = r->end;
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_ENTRY_PAST_END, offset,
                         "entry %llu at offset %llu: %zu bytes run past the end of the written "
                         "data at offset %llu",
                         (unsigned long long)entry->index, (unsigned long long)offset, size,
                         (unsigned long long)r->end);
  }
  if (!r->memory && (status = reader_bytes(r, offset, size, &bytes, err)) != AMDDWARF_OK)
    return status;
  entry->payload = bytes + AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
  entry->payload_size = size - AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
  r->pos = offset + size;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_printf_reader_next_batch(amddwarf_printf_reader *r,
                                                  amddwarf_printf_entry *entries,
                                                  size_t capacity, size_t *count,
                                                  amddwarf_error *err)
{
  if (!r || !entries || !count || capacity == 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "reader, entries, capacity and count are required");
  *count = 0;
  if (r->memory && !r->done) {
    /* Position and index stay in registers: the walk is bound by the chain
       header load -> next position, so nothing else may sit on it. */
    const uint8_t *memory = r->memory;
    uint64_t pos = r->pos, end = r->end, index = r->index;
    size_t n = 0;
    while (n < capacity && pos < end && end - pos >= AMDDWARF_PRINTF_ENTRY_HEADER_SIZE) {
      uint64_t header = load_le(memory + pos, 8);
      uint64_t size = (header & 0xffff) * 4;
      if (size < AMDDWARF_PRINTF_ENTRY_HEADER_SIZE || size > end - pos)
        break;
      amddwarf_printf_entry *e = &entries[n++];
      e->index = index++;
      e->offset = pos;
      e->size_dwords = (uint32_t)(header & 0xffff);
      e->id = header >> 16;
      e->payload = memory + pos + AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
      e->payload_size = (size_t)size - AMDDWARF_PRINTF_ENTRY_HEADER_SIZE;
      pos += size;
    }
    r->pos = pos;
    r->index = index;
    if (n > 0) {
      *count = n;
      return AMDDWARF_OK;
    }
  } else {
    amddwarf_status status = AMDDWARF_OK;
    size_t n = 0;
    while (n < capacity) {
      uint64_t pos = r->pos, index = r->index;
      bool done = r->done;
      status = amddwarf_printf_reader_next(r, &entries[n], n == 0 ? err : NULL);
      if (status == AMDDWARF_OK) {
        n++;
        continue;
      }
      if (n > 0 && status != AMDDWARF_END) {
        /* Leave the bad entry for the next call. */
        r->pos = pos;
        r->index = index;
        r->done = done;
      }
      break;
    }
    *count = n;
    return n > 0 ? AMDDWARF_OK : status;
  }
  /* A bad entry or the end: the one-entry path reports it. */
  amddwarf_status status = amddwarf_printf_reader_next(r, &entries[0], err);
  if (status == AMDDWARF_OK)
    *count = 1;
  return status;
}
