/* An object's memos (memo.h): lists that only grow, one for each hash of
 * the key, each memo pushed whole with a compare-and-swap and read with
 * acquire loads, so that a reader sees a memo's contents as its publisher
 * wrote them. Two threads answering the same question at once both
 * publish; the newer answer is found first and both are freed with the
 * object. */
#include <string.h>

#include "common/mem.h"
#include "object/internal.h"
#include "object/memo.h"

static amddwarf_object *mutable_object(const amddwarf_object *object)
{
  return (amddwarf_object *)(uintptr_t)object;
}

/* The list of KEY: its words mixed (a multiply-xorshift of each), so that
   keys differing in any word, PCs a few bytes apart among them, spread. */
static _Atomic(amddwarf_object_memo *) *list_of(const amddwarf_object *object,
                                                const uint64_t key[4])
{
  uint64_t h = 0;
  for (unsigned i = 0; i < 4; i++) {
    h = (h ^ key[i]) * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 29;
  }
  return &mutable_object(object)->memos[h % AMDDWARF_OBJECT_MEMO_LISTS];
}

const amddwarf_object_memo *amddwarf__object_memo_find(const amddwarf_object *object,
                                                       const uint64_t key[4])
{
  const amddwarf_object_memo *m = atomic_load_explicit(list_of(object, key), memory_order_acquire);
  for (; m != NULL; m = m->next)
    if (memcmp(m->key, key, sizeof m->key) == 0)
      return m;
  return NULL;
}

amddwarf_object_memo *amddwarf__object_memo_new(const amddwarf_object *object,
                                                const uint64_t key[4], size_t size)
{
  amddwarf_object *o = mutable_object(object);
  if (size < sizeof(amddwarf_object_memo))
    size = sizeof(amddwarf_object_memo);
  amddwarf_object_memo *m = amddwarf__mem_calloc(&o->allocator, 1, size);
  if (m == NULL)
    return NULL;
  memcpy(m->key, key, sizeof m->key);
  m->size = size;
  return m;
}

int amddwarf__object_memo_publish(const amddwarf_object *object, amddwarf_object_memo *memo)
{
  amddwarf_object *o = mutable_object(object);
  if (atomic_fetch_add_explicit(&o->memo_count, 1, memory_order_relaxed) >=
      AMDDWARF_OBJECT_MEMOS_MAX) {
    atomic_fetch_sub_explicit(&o->memo_count, 1, memory_order_relaxed);
    return 0;
  }
  _Atomic(amddwarf_object_memo *) *list = list_of(object, memo->key);
  memo->next = atomic_load_explicit(list, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(list, &memo->next, memo, memory_order_release,
                                                memory_order_relaxed))
    ;
  return 1;
}

void amddwarf__object_memo_free(const amddwarf_object *object, amddwarf_object_memo *memo)
{
  if (memo == NULL)
    return;
  if (memo->release != NULL)
    memo->release(object, memo);
  amddwarf__mem_free(&mutable_object(object)->allocator, memo, memo->size);
}

void *amddwarf__object_memo_block(const amddwarf_object *object, size_t size)
{
  return amddwarf__mem_alloc(&mutable_object(object)->allocator, size);
}

void amddwarf__object_memo_block_free(const amddwarf_object *object, void *block, size_t size)
{
  amddwarf__mem_free(&mutable_object(object)->allocator, block, size);
}

void amddwarf__object_free_memos(amddwarf_object *object)
{
  for (unsigned i = 0; i < AMDDWARF_OBJECT_MEMO_LISTS; i++) {
    amddwarf_object_memo *m = atomic_load_explicit(&object->memos[i], memory_order_acquire);
    while (m != NULL) {
      amddwarf_object_memo *next = m->next;
      amddwarf__object_memo_free(object, m);
      m = next;
    }
    atomic_store_explicit(&object->memos[i], NULL, memory_order_relaxed);
  }
  atomic_store_explicit(&object->memo_count, 0, memory_order_relaxed);
}
