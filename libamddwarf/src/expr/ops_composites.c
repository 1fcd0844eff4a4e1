/* Composite location descriptions: DW_OP_piece and DW_OP_bit_piece build
 * them part by part, DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece at
 * once (the seed's "Composite Location Descriptions"; the canonical form is
 * location.c's). */
#include "common/checked.h"
#include "expr/eval_internal.h"

/* DW_OP_piece and DW_OP_bit_piece: a part of the bits, from the bit
   displacement, that amddwarf__piece_bits reads from their row of
   plan_lower.def. */
amddwarf_status amddwarf__op_piece(machine *m, op_step *s)
{
  uint32_t base = s->base;
  uint64_t bits, displacement;
  amddwarf_location pl;
  amddwarf_status st;
  if (!amddwarf__piece_bits(s->op, &bits, &displacement))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "piece of %llu bytes",
                                  (unsigned long long)s->op->operands[0]);
  if (m->sp == base || stack_top(m, 0)->incomplete) {
    undefined_location(&pl);
  } else {
    amddwarf_entry *e = stack_top(m, 0);
    m->sp--;
    st = amddwarf__entry_to_location(m, e, &pl);
    if (st == AMDDWARF_E_EVAL_NOT_LOCATION)
      return machine_restatus(m, AMDDWARF_E_EVAL_BAD_PIECE);
    if (st != AMDDWARF_OK)
      return st;
    if (displacement) {
      if (displacement > INT64_MAX)
        return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, "bit displacement too large");
      st = amddwarf__loc_add_bits(m, &pl, (int64_t)displacement);
      if (st != AMDDWARF_OK)
        return st;
    }
  }
  amddwarf_entry *c;
  if (m->sp > base && stack_top(m, 0)->incomplete) {
    c = stack_top(m, 0);
  } else {
    c = amddwarf__stack_push(m);
    if (!c)
      return AMDDWARF_E_LIMIT;
    c->kind = AMDDWARF_ENTRY_LOCATION;
    c->incomplete = 1;
    amddwarf__composite_begin(m, &c->location);
  }
  return amddwarf__composite_append(m, &c->location, &pl, bits);
}

amddwarf_status amddwarf__op_extend(machine *m, op_step *s)
{
  uint64_t bits = s->op->operands[0], count = s->op->operands[1];
  amddwarf_location pl, c;
  uint64_t total;
  if (bits == 0 || count == 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_ZERO_SIZE, "DW_OP_LLVM_extend %llu, %llu",
                        (unsigned long long)bits, (unsigned long long)count);
  amddwarf_status st = amddwarf__stack_pop_location(m, s->base, &pl);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf_mul_overflow_u64(bits, count, &total))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "%llu x %llu bits",
                        (unsigned long long)count, (unsigned long long)bits);
  amddwarf__composite_begin(m, &c);
  if (pl.kind == AMDDWARF_LOCATION_UNDEFINED) {
    st = amddwarf__composite_append(m, &c, &pl, total);
  } else {
    for (uint64_t i = 0; i < count && st == AMDDWARF_OK; i++) {
      if (++m->steps > m->ev->max_steps)
        return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u steps", (unsigned)m->ev->max_steps);
      st = amddwarf__composite_append(m, &c, &pl, bits);
    }
  }
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_location(m, &c);
}

/* Parts FIRST..END-1 of a select_bit_piece, all from FROM: part N is FROM
   moved by N * BITS. Contiguous parts of one storage merge, so when the
   whole run lies in FROM's storage (rule_parts_fit) it is one append;
   otherwise part by part, so that the failing part is the one reported. */
static amddwarf_status select_run(machine *m, amddwarf_location *c, const amddwarf_location *from,
                                  uint64_t bits, uint64_t first, uint64_t end)
{
  amddwarf_location start = *from;
  storage_size storage;
  amddwarf_error *err = m->err;
  m->err = NULL; /* probing the bounds, nothing to report */
  bool whole = m->steps + (end - first) <= m->ev->max_steps &&
               amddwarf__loc_storage_size(m, from, &storage) == AMDDWARF_OK &&
               rule_parts_fit(&storage, from->byte_offset, from->bit, bits, first, end) &&
               amddwarf__loc_add_bits(m, &start, (int64_t)(first * bits)) == AMDDWARF_OK;
  m->err = err;
  if (whole) {
    m->steps += end - first;
    return amddwarf__composite_append(m, c, &start, (end - first) * bits);
  }
  for (uint64_t n = first; n < end; n++) {
    if (++m->steps > m->ev->max_steps)
      return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u steps", (unsigned)m->ev->max_steps);
    amddwarf_location pl = *from;
    amddwarf_status st = amddwarf__loc_add_bits(m, &pl, (int64_t)(n * bits));
    if (st == AMDDWARF_OK)
      st = amddwarf__composite_append(m, c, &pl, bits);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__select_composite(machine *m, const amddwarf_location *l0,
                                 const amddwarf_location *l1, const uint8_t *mask, uint64_t bits,
                                 uint64_t count, amddwarf_location *out)
{
  uint64_t total;
  if (amddwarf_mul_overflow_u64(bits, count, &total) || total > INT64_MAX)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "%llu x %llu bits",
                        (unsigned long long)count, (unsigned long long)bits);
  amddwarf__composite_begin(m, out);
  for (uint64_t first = 0, end; first < count; first = end) {
    bool bit = (mask[first / 8] >> (first % 8)) & 1;
    for (end = first + 1; end < count && (bool)((mask[end / 8] >> (end % 8)) & 1) == bit; end++)
      ;
    amddwarf_status st = select_run(m, out, bit ? l1 : l0, bits, first, end);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__op_select_bit_piece(machine *m, op_step *s)
{
  uint32_t base = s->base;
  uint64_t bits = s->op->operands[0], count = s->op->operands[1];
  amddwarf_value mask;
  amddwarf_location l1, l0, c;
  if (bits == 0 || count == 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_ZERO_SIZE, "DW_OP_LLVM_select_bit_piece %llu, %llu",
                        (unsigned long long)bits, (unsigned long long)count);
  amddwarf_status st = amddwarf__stack_pop_integral(m, base, &mask);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_pop_location(m, base, &l1);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_pop_location(m, base, &l0);
  if (st != AMDDWARF_OK)
    return st;
  if ((uint64_t)mask.type.bit_size * mask.type.count < count)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_MASK_TOO_SMALL,
                        "a %u-bit mask selects %llu parts", (unsigned)mask.type.bit_size,
                        (unsigned long long)count);
  st = amddwarf__select_composite(m, &l0, &l1, amddwarf_value_bytes(&mask), bits, count, &c);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_location(m, &c);
}

amddwarf_status amddwarf__op_piece_end(machine *m, op_step *s)
{
  if (m->sp == s->base || !stack_top(m, 0)->incomplete)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NO_INCOMPLETE_COMPOSITE,
                        "the top of the stack is not an incomplete composite");
  stack_top(m, 0)->incomplete = 0;
  return AMDDWARF_OK;
}
