/* Operations on values: literals, stack operations, arithmetic and typed
 * values (the seed's "Stack Operations" and "Arithmetic and Logical
 * Operations"). */
#include <string.h>

#include "expr/eval_internal.h"

amddwarf_status amddwarf__op_literal(machine *m, op_step *s)
{
  return amddwarf__stack_push_generic(m, s->op->operands[0]);
}

/* DW_OP_dup, over, pick, swap, rot and drop: what each does is its row of
   plan_lower.def (amddwarf__stack_move). A copy of an incomplete composite
   is ill-formed (the seed's "Stack Operations": both copies would specify
   one composite storage that either could extend); a roll or a drop copies
   nothing and accepts one (specs/evaluator.md). */
amddwarf_status amddwarf__op_stack(machine *m, op_step *s)
{
  uint32_t count;
  stack_move move = amddwarf__stack_move(s->op, &count);
  amddwarf_status st = amddwarf__stack_need(m, s->base, move == STACK_PICK ? count + 1 : count);
  if (st != AMDDWARF_OK)
    return st;
  if (move == STACK_DROP) {
    m->sp -= count;
    return AMDDWARF_OK;
  }
  amddwarf_entry e = *stack_top(m, move == STACK_PICK ? count : 0);
  if (move == STACK_ROLL) {
    for (uint32_t i = 0; i + 1 < count; i++)
      *stack_top(m, i) = *stack_top(m, i + 1);
    *stack_top(m, count - 1) = e;
    return AMDDWARF_OK;
  }
  if (e.incomplete)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                                  "a stack operation copies an incomplete composite");
  amddwarf_entry *copy = amddwarf__stack_push(m);
  if (!copy)
    return AMDDWARF_E_LIMIT;
  *copy = e;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__op_unary(machine *m, op_step *s)
{
  amddwarf_value a;
  amddwarf_status st = amddwarf__stack_pop_value(m, s->base, &a);
  if (st == AMDDWARF_OK)
    st = amddwarf__value_unary(m, s->op->kind, &a);
  return st == AMDDWARF_OK ? amddwarf__stack_push_value(m, &a) : st;
}

amddwarf_status amddwarf__op_binary(machine *m, op_step *s)
{
  amddwarf_op_kind kind = s->op->kind;
  amddwarf_value a, b, r;
  amddwarf_status st = amddwarf__stack_need(m, s->base, 2);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t z;
  if (top_is_generic(m, s->base, 0) && top_is_generic(m, s->base, 1) &&
      amddwarf__integer_arithmetic(kind, generic_u64(stack_top(m, 1)),
                                   generic_u64(stack_top(m, 0)), machine_generic_bits(m), &z)) {
    /* Generic operands: the result in place of the second, no entry copies. */
    m->sp--;
    amddwarf__value_set_generic(m, &stack_top(m, 0)->value, z);
    return AMDDWARF_OK;
  }
  if ((st = amddwarf__stack_pop_value(m, s->base, &b)) != AMDDWARF_OK ||
      (st = amddwarf__stack_pop_value(m, s->base, &a)) != AMDDWARF_OK)
    return st;
  if ((st = amddwarf__value_binary(m, kind, &a, &b, &r)) != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_value(m, &r);
}

/* DW_OP_plus_uconst: the arithmetic its row of plan_lower.def names, with
   the operand on the right, on an integral value of any type. */
amddwarf_status amddwarf__op_plus_uconst(machine *m, op_step *s)
{
  amddwarf_value a;
  amddwarf_status st = amddwarf__stack_pop_integral(m, s->base, &a);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t x = 0;
  amddwarf__integer_arithmetic((amddwarf_op_kind)amddwarf__lowering_parameter(s->op),
                               amddwarf__value_u64(&a), s->op->operands[0], a.type.bit_size, &x);
  amddwarf__value_set_bits(&a, &a.type, x);
  return amddwarf__stack_push_value(m, &a);
}

amddwarf_status amddwarf__op_const_type(machine *m, op_step *s)
{
  const amddwarf_op *op = s->op;
  amddwarf_base_type type;
  amddwarf_value a;
  amddwarf_status st = amddwarf__type_lookup(m, op->operands[0], &type);
  if (st != AMDDWARF_OK)
    return st;
  if ((uint64_t)type.bit_size * type.count != op->operands[1] * 8)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE, "a %llu-byte constant for a %u-bit base type",
                        (unsigned long long)op->operands[1],
                        (unsigned)(type.bit_size * type.count));
  if ((st = amddwarf__value_from_bytes(m, &a, &type, op->block, (size_t)op->operands[1])) != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_value(m, &a);
}

amddwarf_status amddwarf__op_convert(machine *m, op_step *s)
{
  amddwarf_op_kind kind = s->op->kind;
  amddwarf_base_type type;
  amddwarf_value a;
  amddwarf_status st = amddwarf__type_lookup(m, s->op->operands[0], &type);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_pop_value(m, s->base, &a);
  if (st == AMDDWARF_OK)
    st = amddwarf__value_convert(m, &a, &type,
                       kind == AMDDWARF_OP_reinterpret || kind == AMDDWARF_OP_GNU_reinterpret);
  return st == AMDDWARF_OK ? amddwarf__stack_push_value(m, &a) : st;
}
