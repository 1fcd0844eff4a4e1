/* Bounded window over a buffer in memory or behind a read callback; see window.h. */
#include "common/window.h"

#include <string.h>

#include "common/mem.h"

void amddwarf__window_init_memory(amddwarf_window *w, const void *data, size_t size)
{
  memset(w, 0, sizeof *w);
  w->allocator = amddwarf__allocator_resolve(NULL);
  w->memory = data;
  w->size = size;
}

amddwarf_status amddwarf__window_init_stream(amddwarf_window *w,
                                            const amddwarf_allocator *allocator,
                                            amddwarf_window_read_fn read, void *user,
                                            uint64_t size, size_t capacity)
{
  memset(w, 0, sizeof *w);
  w->allocator = amddwarf__allocator_resolve(allocator);
  w->read = read;
  w->user = user;
  w->size = size;
  w->buffer = amddwarf__mem_alloc(&w->allocator, capacity);
  if (!w->buffer)
    return AMDDWARF_E_NO_MEMORY;
  w->capacity = capacity;
  return AMDDWARF_OK;
}

void amddwarf__window_fini(amddwarf_window *w)
{
  if (w->buffer)
    amddwarf__mem_free(&w->allocator, w->buffer, w->capacity);
  w->buffer = NULL;
  w->capacity = 0;
  w->length = 0;
}

amddwarf_status amddwarf__window_get(amddwarf_window *w, uint64_t offset, size_t length,
                                    uint64_t limit, const uint8_t **out)
{
  if (limit > w->size || offset > limit || length > limit - offset)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (w->memory) {
    *out = w->memory + offset;
    return AMDDWARF_OK;
  }
  if (length > w->capacity)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (offset < w->offset || offset - w->offset > w->length ||
      length > w->length - (size_t)(offset - w->offset)) {
    uint64_t remaining = limit - offset;
    size_t fill = remaining < w->capacity ? (size_t)remaining : w->capacity;
    amddwarf_status status = w->read(w->user, offset, w->buffer, fill);
    if (status != AMDDWARF_OK) {
      w->length = 0;
      return status;
    }
    w->offset = offset;
    w->length = fill;
  }
  *out = w->buffer + (offset - w->offset);
  return AMDDWARF_OK;
}
