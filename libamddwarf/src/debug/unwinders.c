/* Unwinders kept with the object (object/memo.h). The waves of a stop are
 * unwound one after another over the same code object and its CFI; an
 * unwinder made for one wave is reset for the next (amddwarf_unwinder_reset)
 * rather than made again, so that the rules' expressions are decoded and
 * compiled once per object, not once per wave. A closed wave's unwinder
 * waits in one of a few slots for the next wave of any thread. */
#include <stdatomic.h>

#include "debug/debug_internal.h"
#include "object/memo.h"

#define MEMO_SPARE_UNWINDERS UINT64_C(0x756e77696e646572) /* "unwinder" */

/* As many as threads opening waves at once are likely to want. */
enum { SPARE_UNWINDERS = 4 };

typedef struct spare_unwinders {
  amddwarf_object_memo memo; /* first: the block is the memo's */
  _Atomic(amddwarf_unwinder *) slot[SPARE_UNWINDERS];
} spare_unwinders;

static const uint64_t spares_key[4] = {MEMO_SPARE_UNWINDERS, 0, 0, 0};

static void release_spares(const amddwarf_object *object, amddwarf_object_memo *memo)
{
  (void)object;
  spare_unwinders *spares = (spare_unwinders *)memo;
  for (unsigned i = 0; i < SPARE_UNWINDERS; i++)
    amddwarf_unwinder_free(atomic_load_explicit(&spares->slot[i], memory_order_acquire));
}

/* OBJECT's slots, made when MAKE and there are none yet; NULL without them
   (the object keeps as many memos as it may, or no memory). */
static spare_unwinders *spares_of(const amddwarf_object *object, bool make)
{
  spare_unwinders *spares =
      (spare_unwinders *)amddwarf__object_memo_find(object, spares_key);
  if (spares != NULL || !make)
    return spares;
  spares = (spare_unwinders *)amddwarf__object_memo_new(object, spares_key, sizeof *spares);
  if (spares == NULL)
    return NULL;
  for (unsigned i = 0; i < SPARE_UNWINDERS; i++)
    atomic_init(&spares->slot[i], NULL);
  spares->memo.release = release_spares;
  if (!amddwarf__object_memo_publish(object, &spares->memo)) {
    amddwarf__object_memo_free(object, &spares->memo);
    return NULL;
  }
  return spares;
}

/* Only the object's own CFI is kept with it: a caller's (options.cfi) may
   not live as long. */
static const amddwarf_object *keeper(const amddwarf_wave *w)
{
  return w->cfi == NULL ? w->info.object : NULL;
}

amddwarf_status amddwarf__debug_unwinder_start(amddwarf_wave *w, amddwarf_cfi *cfi,
                                               const amddwarf_unwinder_options *options,
                                               amddwarf_error *err)
{
  const amddwarf_object *object = keeper(w);
  spare_unwinders *spares = object != NULL ? spares_of(object, false) : NULL;
  for (unsigned i = 0; spares != NULL && i < SPARE_UNWINDERS; i++) {
    amddwarf_unwinder *u = atomic_exchange_explicit(&spares->slot[i], NULL, memory_order_acq_rel);
    if (u == NULL)
      continue;
    amddwarf_status st = amddwarf_unwinder_reset(u, &w->base, options, err);
    if (st != AMDDWARF_OK) {
      amddwarf_unwinder_free(u);
      return st;
    }
    w->unwinder = u;
    return AMDDWARF_OK;
  }
  return amddwarf_unwinder_new(cfi, &w->base, options, &w->unwinder, err);
}

void amddwarf__debug_unwinder_release(amddwarf_wave *w)
{
  amddwarf_unwinder *u = w->unwinder;
  const amddwarf_object *object = keeper(w);
  spare_unwinders *spares = u != NULL && object != NULL ? spares_of(object, true) : NULL;
  w->unwinder = NULL;
  for (unsigned i = 0; spares != NULL && i < SPARE_UNWINDERS; i++) {
    amddwarf_unwinder *none = NULL;
    if (atomic_compare_exchange_strong_explicit(&spares->slot[i], &none, u, memory_order_acq_rel,
                                                memory_order_relaxed))
      return;
  }
  amddwarf_unwinder_free(u);
}
