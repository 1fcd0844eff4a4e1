/* Arena allocator; see arena.h. Chunks grow geometrically so that an arena
 * holding N bytes makes O(log N) calls to the underlying allocator. */
#include "common/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"

struct amddwarf_arena_chunk {
  amddwarf_arena_chunk *next;
  size_t size; /* usable bytes after the header */
  size_t used;
  alignas(max_align_t) unsigned char data[];
};

enum { ARENA_FIRST_CHUNK = 4096, ARENA_MAX_ALIGN = 64 };

void amddwarf__arena_init(amddwarf_arena *arena, const amddwarf_allocator *allocator)
{
  arena->allocator = amddwarf__allocator_resolve(allocator);
  arena->chunks = NULL;
  arena->bytes_reserved = 0;
}

static amddwarf_arena_chunk *arena_grow(amddwarf_arena *arena, size_t needed)
{
  size_t size = arena->chunks ? arena->chunks->size * 2 : ARENA_FIRST_CHUNK;
  if (size < needed)
    size = needed;
  size_t total;
  if (amddwarf_add_overflow_size(sizeof(amddwarf_arena_chunk), size, &total))
    return NULL;
  amddwarf_arena_chunk *chunk = amddwarf__mem_alloc_bulk(&arena->allocator, total);
  if (!chunk)
    return NULL;
  chunk->next = arena->chunks;
  chunk->size = size;
  chunk->used = 0;
  arena->chunks = chunk;
  arena->bytes_reserved += size;
  return chunk;
}

void *amddwarf__arena_alloc(amddwarf_arena *arena, size_t size, size_t align)
{
  if (align == 0 || align > ARENA_MAX_ALIGN || (align & (align - 1)) != 0)
    return NULL;
  amddwarf_arena_chunk *chunk = arena->chunks;
  if (chunk) {
    size_t start = (chunk->used + align - 1) & ~(align - 1);
    if (start <= chunk->size && size <= chunk->size - start) {
      chunk->used = start + size;
      return chunk->data + start;
    }
  }
  size_t needed;
  if (amddwarf_add_overflow_size(size, align, &needed))
    return NULL;
  chunk = arena_grow(arena, needed);
  if (!chunk)
    return NULL;
  size_t start = ((uintptr_t)chunk->data % align) ? align - (uintptr_t)chunk->data % align : 0;
  chunk->used = start + size;
  return chunk->data + start;
}

void *amddwarf__arena_calloc(amddwarf_arena *arena, size_t count, size_t size)
{
  size_t bytes;
  if (amddwarf_mul_overflow_size(count, size, &bytes))
    return NULL;
  void *p = amddwarf__arena_alloc(arena, bytes, alignof(max_align_t));
  if (p)
    memset(p, 0, bytes);
  return p;
}

char *amddwarf__arena_strndup(amddwarf_arena *arena, const char *text, size_t length)
{
  size_t bytes;
  if (amddwarf_add_overflow_size(length, 1, &bytes))
    return NULL;
  char *copy = amddwarf__arena_alloc(arena, bytes, 1);
  if (!copy)
    return NULL;
  if (length)
    memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

void amddwarf__arena_release(amddwarf_arena *arena)
{
  amddwarf_arena_chunk *chunk = arena->chunks;
  while (chunk) {
    amddwarf_arena_chunk *next = chunk->next;
    amddwarf__mem_free_bulk(&arena->allocator, chunk, sizeof *chunk + chunk->size);
    chunk = next;
  }
  arena->chunks = NULL;
  arena->bytes_reserved = 0;
}
