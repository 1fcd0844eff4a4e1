/* Allocation helpers; see mem.h. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, MAP_ANONYMOUS */
#include "common/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

static bool uses_c_library(const amddwarf_allocator *a)
{
  return a == NULL || a->alloc == default_alloc;
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
  if (uses_c_library(a))
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

#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
/* A fresh zero mapping of BYTES starting on a huge-page boundary, or NULL. */
static void *map_huge(size_t bytes)
{
  size_t span;
  if (amddwarf_add_overflow_size(bytes, AMDDWARF_BULK_MIN, &span))
    return NULL;
  uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return NULL;
  uintptr_t start = ((uintptr_t)raw + AMDDWARF_BULK_MIN - 1) & ~(uintptr_t)(AMDDWARF_BULK_MIN - 1);
  size_t head = start - (uintptr_t)raw, tail = span - head - bytes;
  if (head)
    munmap(raw, head);
  if (tail)
    munmap((uint8_t *)start + bytes, tail);
  madvise((void *)start, bytes, MADV_HUGEPAGE); /* a hint: without it, small pages */
  return (void *)start;
}
#define AMDDWARF_HAVE_MAP_HUGE 1
#endif

/* Mappings are whole pages: BYTES rounded up so that both ends agree. */
static size_t page_round(size_t bytes)
{
  return (bytes + 4095) & ~(size_t)4095;
}

/* Whether an array of BYTES is a mapping of its own (the same test at
   allocation and release). */
static bool is_bulk_mapping(const amddwarf_allocator *a, size_t bytes)
{
#ifdef AMDDWARF_HAVE_MAP_HUGE
  return uses_c_library(a) && bytes >= AMDDWARF_BULK_MIN && bytes <= SIZE_MAX - 4095;
#else
  (void)a;
  (void)bytes;
  return false;
#endif
}

void *amddwarf__mem_calloc_bulk(const amddwarf_allocator *a, size_t count, size_t size)
{
  size_t bytes;
  if (amddwarf_mul_overflow_size(count, size, &bytes))
    return NULL;
#ifdef AMDDWARF_HAVE_MAP_HUGE
  if (is_bulk_mapping(a, bytes))
    return map_huge(page_round(bytes));
#endif
  return amddwarf__mem_calloc(a, count, size);
}

void *amddwarf__mem_calloc_sparse(const amddwarf_allocator *a, size_t count, size_t size)
{
  size_t bytes;
  if (amddwarf_mul_overflow_size(count, size, &bytes))
    return NULL;
#ifdef AMDDWARF_HAVE_MAP_HUGE
  if (is_bulk_mapping(a, bytes)) {
    void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p != MAP_FAILED ? p : NULL;
  }
#endif
  return amddwarf__mem_calloc(a, count, size);
}

void *amddwarf__mem_alloc_bulk(const amddwarf_allocator *a, size_t bytes)
{
#ifdef AMDDWARF_HAVE_MAP_HUGE
  if (is_bulk_mapping(a, bytes))
    return map_huge(page_round(bytes));
#endif
  return amddwarf__mem_alloc(a, bytes);
}

void amddwarf__mem_free_bulk(const amddwarf_allocator *a, void *ptr, size_t bytes)
{
  if (ptr == NULL)
    return;
  if (is_bulk_mapping(a, bytes))
    munmap(ptr, page_round(bytes));
  else
    amddwarf__mem_free(a, ptr, bytes);
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
