/* The reference evaluator runs its general machine alone: the fast path is
 * not part of the copy (every plan declines), the context it makes has
 * general_only set (the direct reads of access.c step aside too), and it
 * never makes whole-wave state. */
#include "expr/eval_internal.h"
#include "reference.h"

void amddwarf__fast_compile(const amddwarf_op *ops, size_t count, const amddwarf_expr_format *format,
                            fast_plan *plan)
{
  (void)ops;
  (void)count;
  (void)format;
  memset(plan, 0, sizeof *plan);
}

bool amddwarf__fast_eval_location(machine *m, const fast_plan *plan, amddwarf_entry *result)
{
  (void)m;
  (void)plan;
  (void)result;
  return false;
}

fast_outcome amddwarf__fast_eval_read(machine *m, const fast_plan *plan, uint64_t bit_offset,
                                      uint64_t bit_size, uint8_t *dst, amddwarf_entry *result)
{
  (void)m;
  (void)plan;
  (void)bit_offset;
  (void)bit_size;
  (void)dst;
  (void)result;
  return FAST_DECLINED;
}

void amddwarf__eval_lanes_free(amddwarf_eval *ev)
{
  (void)ev;
}

amddwarf_status reference_eval_new(amddwarf_eval **out)
{
  amddwarf_status st = amddwarf_eval_new(NULL, out, NULL);
  if (st == AMDDWARF_OK)
    (*out)->general_only = true;
  return st;
}
