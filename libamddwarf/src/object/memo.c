/* An object's memos (memo.h): lists that only grow, one for each hash of
 * the key, each memo pushed whole with a compare-and-swap and read with
 * acquire loads, so that a reader sees a memo's contents as its publisher
 * wrote them. A memo is pushed only onto a list without its key, so two
 * threads answering the same question at once keep one answer. */
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

/* The memo of KEY among the list from M on, or NULL. */
static amddwarf_object_memo *with_key(amddwarf_object_memo *m, const uint64_t key[4])
{
  for (; m != NULL; m = m->next)
    if (memcmp(m->key, key, sizeof m->key) == 0)
      return m;
  return NULL;
}

const amddwarf_object_memo *amddwarf__object_memo_find(const amddwarf_object *object,
                                                       const uint64_t key[4])
{
  return with_key(atomic_load_explicit(list_of(object, key), memory_order_acquire), key);
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

/* The count of memos of KIND, its entry taken when KIND is new; NULL when
   the object keeps as many kinds as it may. */
static atomic_size_t *count_of(amddwarf_object *o, uint64_t kind)
{
  for (unsigned i = 0; i < AMDDWARF_OBJECT_MEMO_KINDS; i++) {
    uint64_t have = atomic_load_explicit(&o->memo_kinds[i], memory_order_acquire);
    if (have == 0 && atomic_compare_exchange_strong_explicit(&o->memo_kinds[i], &have, kind,
                                                             memory_order_acq_rel,
                                                             memory_order_acquire))
      return &o->memo_counts[i];
    if (have == kind) /* HAVE: the entry's kind, another thread's when it took it first */
      return &o->memo_counts[i];
  }
  return NULL;
}

const amddwarf_object_memo *amddwarf__object_memo_publish(const amddwarf_object *object,
                                                          amddwarf_object_memo *memo)
{
  amddwarf_object *o = mutable_object(object);
  _Atomic(amddwarf_object_memo *) *list = list_of(object, memo->key);
  amddwarf_object_memo *head = atomic_load_explicit(list, memory_order_acquire);
  amddwarf_object_memo *kept = with_key(head, memo->key);
  if (kept != NULL)
    return kept;
  atomic_size_t *count = count_of(o, memo->key[0]);
  size_t limit = o->memo_limited ? o->memo_limit : AMDDWARF_OBJECT_MEMOS_MAX;
  if (count == NULL)
    return NULL;
  if (atomic_fetch_add_explicit(count, 1, memory_order_relaxed) >= limit) {
    atomic_fetch_sub_explicit(count, 1, memory_order_relaxed);
    return NULL;
  }
  /* Pushed only onto a list without the key: when the push fails, the
     memos pushed meanwhile are looked at before trying again. */
  amddwarf_object_memo *seen = head;
  for (;;) {
    memo->next = head;
    if (atomic_compare_exchange_weak_explicit(list, &head, memo, memory_order_release,
                                              memory_order_acquire)) {
      atomic_fetch_add_explicit(&o->memo_bytes, memo->size, memory_order_relaxed);
      return memo;
    }
    for (amddwarf_object_memo *m = head; m != seen; m = m->next)
      if (memcmp(m->key, memo->key, sizeof m->key) == 0) {
        atomic_fetch_sub_explicit(count, 1, memory_order_relaxed);
        return m;
      }
    seen = head;
  }
}

const amddwarf_object_memo *amddwarf__object_memo_keep(const amddwarf_object *object,
                                                       amddwarf_object_memo *memo, bool *own)
{
  const amddwarf_object_memo *kept = amddwarf__object_memo_publish(object, memo);
  if (own != NULL)
    *own = kept == NULL;
  if (kept == NULL && own != NULL)
    return memo;
  if (kept != memo)
    amddwarf__object_memo_free(object, memo);
  return kept;
}

void amddwarf__object_memo_limit(const amddwarf_object *object, size_t limit)
{
  amddwarf_object *o = mutable_object(object);
  o->memo_limit = limit;
  o->memo_limited = true;
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
  amddwarf_object *o = mutable_object(object);
  void *block = amddwarf__mem_alloc(&o->allocator, size);
  if (block != NULL)
    atomic_fetch_add_explicit(&o->memo_bytes, size, memory_order_relaxed);
  return block;
}

void amddwarf__object_memo_block_free(const amddwarf_object *object, void *block, size_t size)
{
  amddwarf_object *o = mutable_object(object);
  atomic_fetch_sub_explicit(&o->memo_bytes, size, memory_order_relaxed);
  amddwarf__mem_free(&o->allocator, block, size);
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
  atomic_store_explicit(&object->memo_bytes, 0, memory_order_relaxed);
  for (unsigned i = 0; i < AMDDWARF_OBJECT_MEMO_KINDS; i++) {
    atomic_store_explicit(&object->memo_kinds[i], 0, memory_order_relaxed);
    atomic_store_explicit(&object->memo_counts[i], 0, memory_order_relaxed);
  }
}
