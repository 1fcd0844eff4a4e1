/* Allocation helpers; see mem.h. */
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

#include "common/checked.h"

static void *default_alloc(void *user, size_t size)
{
  (void)user;
  return malloc(size ? size : 1);
}

static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
  (void)user;
  (void)old_size;
  return realloc(ptr, new_size ? new_size : 1);
}

static void default_free(void *user, void *ptr, size_t size)
{
  (void)user;
  (void)size;
  free(ptr);
}

amddwarf_allocator amddwarf__allocator_resolve(const amddwarf_allocator *requested)
{
  amddwarf_allocator a = {default_alloc, default_realloc, default_free, NULL};
  if (requested && requested->alloc && requested->realloc && requested->free)
    a = *requested;
  return a;
}

void *amddwarf__mem_alloc(const amddwarf_allocator *a, size_t size)
{
  return a ? a->alloc(a->user, size) : default_alloc(NULL, size);
}

void *amddwarf__mem_calloc(const amddwarf_allocator *a, size_t count, size_t size)
{
  size_t bytes;
  if (amddwarf_mul_overflow_size(count, size, &bytes))
    return NULL;
  /* The C library's calloc knows when fresh pages are already zero: large
     arrays are then not written twice. */
  if (a == NULL || a->alloc == default_alloc)
    return calloc(1, bytes ? bytes : 1);
  void *p = amddwarf__mem_alloc(a, bytes);
  if (p)
    memset(p, 0, bytes);
  return p;
}

void *amddwarf__mem_realloc(const amddwarf_allocator *a, void *ptr, size_t old_size,
                           size_t new_size)
{
  return a ? a->realloc(a->user, ptr, old_size, new_size)
           : default_realloc(NULL, ptr, old_size, new_size);
}

void amddwarf__mem_free(const amddwarf_allocator *a, void *ptr, size_t size)
{
  if (a)
    a->free(a->user, ptr, size);
  else
    default_free(NULL, ptr, size);
}

int amddwarf__mem_reserve(const amddwarf_allocator *a, void **items, size_t *capacity,
                         size_t needed, size_t elem_size)
{
  if (needed <= *capacity)
    return 0;
  size_t new_capacity = *capacity ? *capacity : 8;
  while (new_capacity < needed) {
    if (amddwarf_mul_overflow_size(new_capacity, 2, &new_capacity))
      return -1;
  }
  size_t old_bytes = *capacity * elem_size, new_bytes;
  if (amddwarf_mul_overflow_size(new_capacity, elem_size, &new_bytes))
    return -1;
  void *grown = amddwarf__mem_realloc(a, *items, old_bytes, new_bytes);
  if (!grown)
    return -1;
  *items = grown;
  *capacity = new_capacity;
  return 0;
}
