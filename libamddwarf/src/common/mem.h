/* Allocation through an optional amddwarf_allocator (NULL means malloc). */
#ifndef AMDDWARF_COMMON_MEM_H
#define AMDDWARF_COMMON_MEM_H

#include <stddef.h>
#include <amddwarf/allocator.h>

/* The allocator to use inside an object: a copy of the caller's, with NULL
   functions replaced by the C library's. */
amddwarf_allocator amddwarf__allocator_resolve(const amddwarf_allocator *requested);

void *amddwarf__mem_alloc(const amddwarf_allocator *a, size_t size);
/* Zeroed array of COUNT elements of SIZE bytes; NULL on overflow or failure. */
void *amddwarf__mem_calloc(const amddwarf_allocator *a, size_t count, size_t size);
void *amddwarf__mem_realloc(const amddwarf_allocator *a, void *ptr, size_t old_size,
                           size_t new_size);
void amddwarf__mem_free(const amddwarf_allocator *a, void *ptr, size_t size);

/* A large array written soon after in one pass (a loaded unit's DIE
   summaries, an arena chunk): COUNT elements of SIZE bytes, zeroed. With
   the C library's allocator, arrays of AMDDWARF_BULK_MIN bytes and more get
   a mapping of their own, aligned and advised for transparent huge pages:
   the first write to each 2 MiB then takes one page fault instead of 512,
   which on a virtual machine is most of the cost of the load
   (BENCHMARKS.md). Freed with amddwarf__mem_free_bulk and the same byte
   count; never reallocated. */
#define AMDDWARF_BULK_MIN ((size_t)2 << 20)
void *amddwarf__mem_calloc_bulk(const amddwarf_allocator *a, size_t count, size_t size);
/* The same, not zeroed (BYTES bytes). */
void *amddwarf__mem_alloc_bulk(const amddwarf_allocator *a, size_t bytes);
/* A zeroed array of COUNT elements of SIZE bytes that is filled sparsely
   (a cache slot per FDE, of which a question touches a few): as
   amddwarf__mem_calloc_bulk, but a large one is a mapping of small pages,
   so that only the pages written become resident, whatever the C
   library's heap holds. Freed with amddwarf__mem_free_bulk. */
void *amddwarf__mem_calloc_sparse(const amddwarf_allocator *a, size_t count, size_t size);
void amddwarf__mem_free_bulk(const amddwarf_allocator *a, void *ptr, size_t bytes);

/* Grows the array *ITEMS (capacity *CAPACITY elements of ELEM_SIZE bytes) so
   that it holds at least NEEDED elements, doubling. Returns 0, or -1 when the
   size overflows or allocation fails (the array is then unchanged). */
int amddwarf__mem_reserve(const amddwarf_allocator *a, void **items, size_t *capacity,
                         size_t needed, size_t elem_size);

#endif
