/* Custom allocation.
 *
 * Every object that owns memory takes an optional allocator at creation; NULL
 * (or an allocator whose functions are NULL) means malloc, realloc and free.
 * The allocator struct is copied, the USER pointer is not: it must stay valid
 * until the object is freed. Sizes are passed back on free and realloc so that
 * pool and arena allocators need no headers of their own. */
#ifndef AMDDWARF_ALLOCATOR_H
#define AMDDWARF_ALLOCATOR_H

#include <stddef.h>
#include <amddwarf/export.h>

AMDDWARF_BEGIN_DECLS

typedef struct amddwarf_allocator {
  /* Returns SIZE bytes aligned for any type, or NULL. */
  void *(*alloc)(void *user, size_t size);
  /* Resizes PTR (from alloc/realloc, OLD_SIZE bytes) to NEW_SIZE, or NULL. */
  void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
  /* Releases PTR of SIZE bytes; PTR may be NULL. */
  void (*free)(void *user, void *ptr, size_t size);
  void *user;
} amddwarf_allocator;

AMDDWARF_END_DECLS

#endif
