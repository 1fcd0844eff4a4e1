/* Operations that change what runs next: no operation, branches,
 * DW_OP_call* (DWARF procedures on the caller's frame, other DIEs' locations
 * on their own) and entry values (the seed's "Control Flow Operations" and
 * "DW_OP_entry_value"). */
#include <string.h>

#include "expr/eval_internal.h"

amddwarf_status amddwarf__op_nop(machine *m, op_step *s)
{
  (void)m;
  (void)s;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__op_skip(machine *m, op_step *s)
{
  (void)m;
  s->next = s->op->target;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__op_bra(machine *m, op_step *s)
{
  uint64_t ux;
  int64_t sx;
  amddwarf_status st = amddwarf__stack_pop_integral_u64(m, s->base, &ux, &sx);
  if (st == AMDDWARF_OK && ux != 0)
    s->next = s->op->target;
  return st;
}

amddwarf_status amddwarf__op_call(machine *m, op_step *s)
{
  amddwarf_die_ref_kind kind =
      s->op->kind == AMDDWARF_OP_call_ref ? AMDDWARF_DIE_REF_SECTION : AMDDWARF_DIE_REF_UNIT;
  amddwarf_die die;
  amddwarf_status st = amddwarf__lookup_die(m, kind, s->op->operands[0], &die);
  if (st != AMDDWARF_OK)
    return st;
  const uint8_t *bytes = die.value == AMDDWARF_DIE_LOCATION ? die.bytes : NULL;
  size_t size = die.value == AMDDWARF_DIE_LOCATION ? die.size : 0;
  if (die.is_dwarf_procedure) {
    if (m->depth >= m->ev->max_call_depth)
      return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u nested DW_OP_call*",
                          (unsigned)m->ev->max_call_depth);
    return amddwarf__run_nested(m, bytes, size, s->base);
  }
  amddwarf_location loc;
  st = amddwarf__eval_own_frame(m, bytes, size, "DW_OP_call*", &loc);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_location(m, &loc);
}

/* Reads the first RBYTES bytes of register REGNO on entry to the
   subprogram into BUF (the caller has checked that the target can). */
static amddwarf_status read_entry_register(machine *m, uint32_t regno, uint64_t rbytes,
                                           uint8_t *buf)
{
  amddwarf_status st = m->t->read_entry_register(m->t->user, regno, 0, rbytes, buf);
  if (m->trace)
    amddwarf__machine_trace_access(m, AMDDWARF_TRACE_READ_ENTRY_REGISTER, regno, 0, AMDDWARF_NO_LANE, 0,
                         rbytes, buf, st);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "entry value of register %u: %s", (unsigned)regno,
                        amddwarf_status_message(st));
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__op_entry_value(machine *m, op_step *s)
{
  uint32_t base = m->sp;
  bool was = m->in_entry_value;
  if (m->depth >= m->ev->max_call_depth)
    return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "DW_OP_entry_value nested too deeply");
  m->in_entry_value = true;
  amddwarf_status st = amddwarf__run_nested(m, s->op->block, (size_t)s->op->operands[0], base);
  m->in_entry_value = was;
  if (st != AMDDWARF_OK)
    return st;
  if (m->sp - base != 1)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE,
                        "the DW_OP_entry_value expression leaves %u entries, not one",
                        (unsigned)(m->sp - base));
  amddwarf_entry *e = stack_top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_LOCATION && e->location.kind == AMDDWARF_LOCATION_REGISTER &&
      !e->incomplete) {
    uint32_t regno = e->location.u.reg.regno;
    uint64_t rbytes;
    if (e->location.byte_offset || e->location.bit)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE,
                          "the entry register location has a bit offset");
    st = register_bytes(m, regno, &rbytes);
    if (st != AMDDWARF_OK)
      return st;
    if (rbytes > 8)
      return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED,
                          "entry values of %llu-byte registers", (unsigned long long)rbytes);
    if (!TARGET_HAS(m->t, read_entry_register))
      return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no entry register values");
    uint8_t buf[8] = {0};
    st = read_entry_register(m, regno, rbytes, buf);
    if (st != AMDDWARF_OK)
      return st;
    amddwarf_base_type type;
    memset(&type, 0, sizeof type);
    type.count = 1;
    type.bit_size = (uint32_t)rbytes * 8;
    if (type.bit_size != machine_generic_bits(m))
      type.encoding = AMDDWARF_ATE_UNSIGNED;
    m->sp = base;
    amddwarf_value v;
    st = amddwarf__value_from_bytes(m, &v, &type, buf, (size_t)rbytes);
    if (st != AMDDWARF_OK)
      return st;
    return amddwarf__stack_push_value(m, &v);
  }
  if (e->kind == AMDDWARF_ENTRY_LOCATION && e->location.kind == AMDDWARF_LOCATION_UNDEFINED)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE, "the entry value is undefined");
  amddwarf_value v;
  st = amddwarf__stack_pop_value(m, base, &v);
  if (st == AMDDWARF_E_EVAL_NOT_VALUE || st == AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE)
    return machine_restatus(m, AMDDWARF_E_EVAL_ENTRY_VALUE);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_value(m, &v);
}

/* DW_OP_LLVM_call_frame_entry_reg: the register's value on entry to the
   subprogram, as implicit storage. */
amddwarf_status amddwarf__op_call_frame_entry_reg(machine *m, op_step *s)
{
  uint64_t rbytes;
  uint32_t regno = (uint32_t)s->op->operands[0];
  amddwarf_location loc;
  amddwarf_status st = register_bytes(m, regno, &rbytes);
  if (st != AMDDWARF_OK)
    return st;
  if (!TARGET_HAS(m->t, read_entry_register))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no entry register values");
  uint8_t *copy = amddwarf__pool_alloc(m, (size_t)rbytes);
  if (!copy)
    return AMDDWARF_E_LIMIT;
  st = read_entry_register(m, regno, rbytes, copy);
  if (st != AMDDWARF_OK)
    return st;
  implicit_location(&loc, copy, rbytes * 8);
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__op_not_evaluated(machine *m, op_step *s)
{
  (void)s;
  return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "this GNU operation is not evaluated");
}
