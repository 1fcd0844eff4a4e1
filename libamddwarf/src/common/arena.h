/* Arena: many small allocations released together.
 *
 * Long-lived decoded data of a handle (strings, tables, DIE summaries) lives
 * in the handle's arena and is released by amddwarf__arena_release. Memory from
 * an arena is never freed on its own. */
#ifndef AMDDWARF_COMMON_ARENA_H
#define AMDDWARF_COMMON_ARENA_H

#include <stddef.h>
#include <amddwarf/allocator.h>

typedef struct amddwarf_arena_chunk amddwarf_arena_chunk;

typedef struct amddwarf_arena {
  amddwarf_allocator allocator;
  amddwarf_arena_chunk *chunks; /* newest first */
  size_t bytes_reserved;        /* sum of chunk sizes, for memory reports */
} amddwarf_arena;

/* ALLOCATOR may be NULL (malloc). */
void amddwarf__arena_init(amddwarf_arena *arena, const amddwarf_allocator *allocator);

/* SIZE bytes aligned to ALIGN (a power of two up to 64), or NULL on failure.
   The memory is not zeroed. */
void *amddwarf__arena_alloc(amddwarf_arena *arena, size_t size, size_t align);

/* Zeroed array of COUNT elements of SIZE bytes, aligned for any object type. */
void *amddwarf__arena_calloc(amddwarf_arena *arena, size_t count, size_t size);

/* Copy of LENGTH bytes of TEXT followed by a NUL, or NULL on failure. */
char *amddwarf__arena_strndup(amddwarf_arena *arena, const char *text, size_t length);

/* Releases every allocation; the arena can be used again afterwards. */
void amddwarf__arena_release(amddwarf_arena *arena);

#endif
