/* The rule table: running a CIE's initial instructions and an FDE's
 * instructions into rows, the per-FDE row cache, row look-up by PC, and
 * printing rows as llvm-dwarfdump-19 does.
 *
 * The state is the CFA rule plus the rules an instruction set, sorted by
 * column; every other column has the target's default rule (AMDGPU: "same
 * value"). The seed's ill-formed cases are errors: changing the CFA register
 * or offset when the CFA is not register-based, an address space the target
 * does not define, register(R) between registers of different sizes,
 * val_offset(N) for a register whose size differs from an address of the
 * CFA's address space, and operations not allowed in CFI expressions. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfi/cfi_internal.h"
#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"

typedef struct rule_state {
  amddwarf_cfa_rule cfa;
  amddwarf_cfi_rule *rules;
  size_t count, capacity;
  bool args_size_set;
  uint64_t args_size;
} rule_state;

typedef struct machine {
  amddwarf_cfi *cfi;
  const amddwarf_cfi_cie *cie;
  const amddwarf_cfi_fde *fde;     /* NULL while running a CIE */
  const amddwarf_cfi_row *initial; /* the CIE's row, for DW_CFA_restore */
  rule_state state;
  rule_state *stack;               /* remember_state copies */
  size_t depth, stack_capacity;
  amddwarf_cfi_row *rows;
  size_t row_count, row_capacity;
  const amddwarf_cfi_rule *shared; /* rules of the last row, while unchanged */
  uint32_t shared_count;
  bool dirty;
  uint64_t stored_rules;
  uint64_t loc, end;
  bool synthesized;                /* running a synthesizer's instructions */
} machine;

static void state_free(const amddwarf_allocator *a, rule_state *s)
{
  amddwarf__mem_free(a, s->rules, s->capacity * sizeof *s->rules);
  s->rules = NULL;
  s->count = s->capacity = 0;
}

static int state_copy(const amddwarf_allocator *a, rule_state *dst, const rule_state *src)
{
  rule_state copy = *src;
  copy.rules = NULL;
  copy.capacity = 0;
  if (src->count && amddwarf__mem_reserve(a, (void **)&copy.rules, &copy.capacity, src->count,
                                         sizeof *copy.rules) != 0)
    return -1;
  if (src->count)
    memcpy(copy.rules, src->rules, src->count * sizeof *src->rules);
  *dst = copy;
  return 0;
}

/* Position of COLUMN in S (or where it would go); *FOUND tells which. */
static size_t state_find(const rule_state *s, uint32_t column, bool *found)
{
  size_t lo = 0, hi = s->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->rules[mid].column < column)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = lo < s->count && s->rules[lo].column == column;
  return lo;
}

static amddwarf_status set_rule(machine *m, const amddwarf_cfi_rule *rule, uint64_t at,
                                amddwarf_error *err)
{
  bool found;
  size_t i = state_find(&m->state, rule->column, &found);
  if (!found) {
    if (amddwarf__mem_reserve(&m->cfi->allocator, (void **)&m->state.rules,
                             &m->state.capacity, m->state.count + 1,
                             sizeof *m->state.rules) != 0)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, at, "rule table");
    memmove(&m->state.rules[i + 1], &m->state.rules[i],
            (m->state.count - i) * sizeof *m->state.rules);
    m->state.count++;
  }
  m->state.rules[i] = *rule;
  m->dirty = true;
  return AMDDWARF_OK;
}

static void remove_rule(machine *m, uint32_t column)
{
  bool found;
  size_t i = state_find(&m->state, column, &found);
  if (!found)
    return;
  memmove(&m->state.rules[i], &m->state.rules[i + 1],
          (m->state.count - i - 1) * sizeof *m->state.rules);
  m->state.count--;
  m->dirty = true;
}

static bool mul_overflow_i64(int64_t a, int64_t b, int64_t *out)
{
  if (a == 0 || b == 0) {
    *out = 0;
    return false;
  }
  if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))
    return true;
  int64_t p = (int64_t)((uint64_t)a * (uint64_t)b);
  if (p / b != a)
    return true;
  *out = p;
  return false;
}

/* Appends a row [m->loc, until) holding the current state. */
static amddwarf_status emit_row(machine *m, uint64_t until, amddwarf_error *err)
{
  if (until <= m->loc)
    return AMDDWARF_OK;
  if (amddwarf__mem_reserve(&m->cfi->allocator, (void **)&m->rows, &m->row_capacity,
                           m->row_count + 1, sizeof *m->rows) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "row table");
  if (m->dirty || m->row_count == 0) {
    m->stored_rules += m->state.count;
    if (m->stored_rules > m->cfi->options.max_rules_per_fde)
      return amddwarf__fail(err, AMDDWARF_E_LIMIT, m->fde ? m->fde->offset : AMDDWARF_NO_OFFSET,
                           "FDE at offset 0x%" PRIx64 ": more than %u rules in its rows",
                           m->fde ? m->fde->offset : 0, m->cfi->options.max_rules_per_fde);
    amddwarf_cfi_rule *copy = NULL;
    if (m->state.count) {
      copy = amddwarf__arena_alloc(&m->cfi->arena, m->state.count * sizeof *copy,
                                  _Alignof(amddwarf_cfi_rule));
      if (!copy)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "row rules");
      memcpy(copy, m->state.rules, m->state.count * sizeof *copy);
    }
    m->shared = copy;
    m->shared_count = (uint32_t)m->state.count;
    m->dirty = false;
  }
  amddwarf_cfi_row *row = &m->rows[m->row_count++];
  memset(row, 0, sizeof *row);
  row->start = m->loc;
  row->end = until;
  row->cfa = m->state.cfa;
  row->rules = m->shared;
  row->rule_count = m->shared_count;
  row->synthesized = m->synthesized;
  row->args_size_set = m->state.args_size_set;
  row->args_size = m->state.args_size;
  row->fde = m->fde;
  return AMDDWARF_OK;
}

static amddwarf_status move_to(machine *m, const amddwarf_cfa_insn *insn, uint64_t loc,
                               amddwarf_error *err)
{
  if (!m->fde)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_NOT_IN_CIE, insn->offset, insn->opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 ": row creation in a CIE's initial "
                            "instructions", amddwarf__cfa_table[insn->kind].info.name,
                            insn->offset);
  if (loc < m->loc || loc > m->end)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_BAD_LOCATION, insn->offset, insn->opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 ": location 0x%" PRIx64
                            " is outside [0x%" PRIx64 ", 0x%" PRIx64 "]",
                            amddwarf__cfa_table[insn->kind].info.name, insn->offset, loc,
                            m->loc, m->end);
  amddwarf_status st = emit_row(m, loc, err);
  if (st == AMDDWARF_OK)
    m->loc = loc;
  return st;
}

static amddwarf_status check_register(machine *m, const amddwarf_cfa_insn *insn, uint64_t reg,
                                      amddwarf_error *err)
{
  if (reg > m->cfi->options.max_register)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_BAD_REGISTER, insn->offset, insn->opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 ": register %" PRIu64
                            " is above the limit %u",
                            amddwarf__cfa_table[insn->kind].info.name, insn->offset, reg,
                            m->cfi->options.max_register);
  return AMDDWARF_OK;
}

static amddwarf_status check_aspace(machine *m, const amddwarf_cfa_insn *insn, uint64_t aspace,
                                    amddwarf_error *err)
{
  const amddwarf_cfi_target *t = m->cfi->target;
  if (t->aspace_valid && !t->aspace_valid(t, aspace))
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_BAD_ASPACE, insn->offset, insn->opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 ": address space %" PRIu64
                            " is not defined by target %s",
                            amddwarf__cfa_table[insn->kind].info.name, insn->offset, aspace,
                            t->name);
  return AMDDWARF_OK;
}

static amddwarf_status factor(machine *m, const amddwarf_cfa_insn *insn, uint64_t raw,
                              bool is_signed, int64_t *out, amddwarf_error *err)
{
  if ((!is_signed && raw > (uint64_t)INT64_MAX) ||
      mul_overflow_i64((int64_t)raw, m->cie->data_alignment_factor, out))
    return amddwarf__fail_op(err, AMDDWARF_E_OVERFLOW, insn->offset, insn->opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 ": factored offset overflows",
                            amddwarf__cfa_table[insn->kind].info.name, insn->offset);
  return AMDDWARF_OK;
}

static amddwarf_status need_reg_cfa(machine *m, const amddwarf_cfa_insn *insn,
                                    amddwarf_error *err)
{
  if (m->state.cfa.kind == AMDDWARF_CFA_RULE_REG_OFFSET)
    return AMDDWARF_OK;
  return amddwarf__fail_op(err, AMDDWARF_E_CFI_NO_CFA_RULE, insn->offset, insn->opcode,
                          AMDDWARF_NO_OPCODE,
                          "%s at offset 0x%" PRIx64 ": the CFA rule is %s",
                          amddwarf__cfa_table[insn->kind].info.name, insn->offset,
                          m->state.cfa.kind == AMDDWARF_CFA_RULE_EXPRESSION
                              ? "an expression"
                              : "not defined yet");
}

static amddwarf_status check_expr(machine *m, const amddwarf_cfa_insn *insn, uint64_t size,
                                  amddwarf_error *err)
{
  amddwarf_status st = amddwarf_cfi_check_expression(m->cfi, insn->expr, (size_t)size, err);
  if (st != AMDDWARF_OK && err) {
    char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
    memcpy(inner, err->message, sizeof inner);
    inner[sizeof inner - 1] = '\0';
    amddwarf__fail_op(err, st, insn->offset, insn->opcode, AMDDWARF_NO_OPCODE,
                     "%s at offset 0x%" PRIx64 ": %s",
                     amddwarf__cfa_table[insn->kind].info.name, insn->offset, inner);
  }
  return st;
}

static amddwarf_status execute(machine *m, const amddwarf_cfa_insn *insn, amddwarf_error *err)
{
  const amddwarf_cfa_desc *desc = &amddwarf__cfa_table[insn->kind];
  const amddwarf_cfi_target *t = m->cfi->target;
  const uint64_t *op = insn->operands;
  amddwarf_cfi_rule rule;
  amddwarf_status st = AMDDWARF_OK;
  memset(&rule, 0, sizeof rule);
  rule.column = (uint32_t)op[0];
  switch (desc->action) {
  case CFA_ACT_NOP: return AMDDWARF_OK;
  case CFA_ACT_SET_LOC: return move_to(m, insn, op[0], err);
  case CFA_ACT_ADVANCE: {
    uint64_t delta, loc;
    if (amddwarf_mul_overflow_u64(op[0], m->cie->code_alignment_factor, &delta) ||
        amddwarf_add_overflow_u64(m->loc, delta, &loc))
      loc = UINT64_MAX;
    return move_to(m, insn, loc, err);
  }
  case CFA_ACT_REMEMBER:
    if (m->depth >= m->cfi->options.max_remember_depth)
      return amddwarf__fail_op(err, AMDDWARF_E_CFI_REMEMBER_DEPTH, insn->offset, insn->opcode,
                              AMDDWARF_NO_OPCODE,
                              "DW_CFA_remember_state at offset 0x%" PRIx64
                              ": more than %u states remembered",
                              insn->offset, m->cfi->options.max_remember_depth);
    if (amddwarf__mem_reserve(&m->cfi->allocator, (void **)&m->stack, &m->stack_capacity,
                             m->depth + 1, sizeof *m->stack) != 0 ||
        state_copy(&m->cfi->allocator, &m->stack[m->depth], &m->state) != 0)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, insn->offset, "remembered state");
    m->depth++;
    return AMDDWARF_OK;
  case CFA_ACT_RESTORE_STATE: {
    if (m->depth == 0)
      return amddwarf__fail_op(err, AMDDWARF_E_CFI_RESTORE_EMPTY, insn->offset, insn->opcode,
                              AMDDWARF_NO_OPCODE,
                              "DW_CFA_restore_state at offset 0x%" PRIx64
                              ": no state remembered", insn->offset);
    /* DWARF 5: the CFA rule is restored along with the register rules. */
    state_free(&m->cfi->allocator, &m->state);
    m->state = m->stack[--m->depth];
    m->dirty = true;
    return AMDDWARF_OK;
  }
  case CFA_ACT_DEF_CFA:
  case CFA_ACT_DEF_CFA_SF:
  case CFA_ACT_DEF_ASPACE_CFA:
  case CFA_ACT_DEF_ASPACE_CFA_SF: {
    int64_t offset = (int64_t)op[1];
    bool sf = desc->action == CFA_ACT_DEF_CFA_SF || desc->action == CFA_ACT_DEF_ASPACE_CFA_SF;
    bool aspace = desc->action == CFA_ACT_DEF_ASPACE_CFA ||
                  desc->action == CFA_ACT_DEF_ASPACE_CFA_SF;
    if ((st = check_register(m, insn, op[0], err)) != AMDDWARF_OK)
      return st;
    if (sf && (st = factor(m, insn, op[1], true, &offset, err)) != AMDDWARF_OK)
      return st;
    if (aspace && (st = check_aspace(m, insn, op[2], err)) != AMDDWARF_OK)
      return st;
    memset(&m->state.cfa, 0, sizeof m->state.cfa);
    m->state.cfa.kind = AMDDWARF_CFA_RULE_REG_OFFSET;
    m->state.cfa.reg = (uint32_t)op[0];
    m->state.cfa.offset = offset;
    m->state.cfa.aspace = aspace ? op[2] : 0;
    m->state.cfa.aspace_given = aspace;
    return AMDDWARF_OK;
  }
  case CFA_ACT_DEF_CFA_REG:
    if ((st = need_reg_cfa(m, insn, err)) != AMDDWARF_OK ||
        (st = check_register(m, insn, op[0], err)) != AMDDWARF_OK)
      return st;
    m->state.cfa.reg = (uint32_t)op[0];
    return AMDDWARF_OK;
  case CFA_ACT_DEF_CFA_OFF:
  case CFA_ACT_DEF_CFA_OFF_SF: {
    int64_t offset = (int64_t)op[0];
    if ((st = need_reg_cfa(m, insn, err)) != AMDDWARF_OK)
      return st;
    if (desc->action == CFA_ACT_DEF_CFA_OFF_SF &&
        (st = factor(m, insn, op[0], true, &offset, err)) != AMDDWARF_OK)
      return st;
    m->state.cfa.offset = offset;
    return AMDDWARF_OK;
  }
  case CFA_ACT_DEF_CFA_ASPACE:
    if ((st = need_reg_cfa(m, insn, err)) != AMDDWARF_OK ||
        (st = check_aspace(m, insn, op[0], err)) != AMDDWARF_OK)
      return st;
    m->state.cfa.aspace = op[0];
    m->state.cfa.aspace_given = true;
    return AMDDWARF_OK;
  case CFA_ACT_DEF_CFA_EXPR:
    if ((st = check_expr(m, insn, op[0], err)) != AMDDWARF_OK)
      return st;
    memset(&m->state.cfa, 0, sizeof m->state.cfa);
    m->state.cfa.kind = AMDDWARF_CFA_RULE_EXPRESSION;
    m->state.cfa.expr = insn->expr;
    m->state.cfa.expr_size = op[0];
    return AMDDWARF_OK;
  case CFA_ACT_ARGS_SIZE:
    m->state.args_size_set = true;
    m->state.args_size = op[0];
    return AMDDWARF_OK;
  case CFA_ACT_REJECT:
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_UNSUPPORTED_INSTRUCTION, insn->offset,
                            insn->opcode, AMDDWARF_NO_OPCODE,
                            "%s at offset 0x%" PRIx64 " is not supported for target %s",
                            desc->info.name, insn->offset, t->name);
  default: break;
  }

  /* Register rules. */
  if ((st = check_register(m, insn, op[0], err)) != AMDDWARF_OK)
    return st;
  switch (desc->action) {
  case CFA_ACT_OFFSET_UF:
  case CFA_ACT_OFFSET_SF:
  case CFA_ACT_OFFSET_NEG:
    rule.kind = AMDDWARF_CFI_RULE_OFFSET;
    if ((st = factor(m, insn, op[1], desc->action == CFA_ACT_OFFSET_SF, &rule.offset, err)) !=
        AMDDWARF_OK)
      return st;
    if (desc->action == CFA_ACT_OFFSET_NEG)
      rule.offset = -rule.offset;
    break;
  case CFA_ACT_VAL_OFFSET_UF:
  case CFA_ACT_VAL_OFFSET_SF: {
    rule.kind = AMDDWARF_CFI_RULE_VAL_OFFSET;
    if ((st = factor(m, insn, op[1], desc->action == CFA_ACT_VAL_OFFSET_SF, &rule.offset,
                     err)) != AMDDWARF_OK)
      return st;
    uint32_t bits = t->register_bits ? t->register_bits(t, rule.column) : 0;
    if (bits && m->state.cfa.kind == AMDDWARF_CFA_RULE_REG_OFFSET) {
      uint8_t size = t->aspace_address_size ? t->aspace_address_size(t, m->state.cfa.aspace)
                                            : 0;
      if (!size)
        size = m->cie->address_size;
      if (bits != 8u * size)
        return amddwarf__fail_op(err, AMDDWARF_E_CFI_REGISTER_SIZE, insn->offset, insn->opcode,
                                AMDDWARF_NO_OPCODE,
                                "%s at offset 0x%" PRIx64 ": register %u has %u bits but an "
                                "address in address space %" PRIu64 " has %u",
                                desc->info.name, insn->offset, rule.column, bits,
                                m->state.cfa.aspace, 8u * size);
    }
    break;
  }
  case CFA_ACT_UNDEFINED: rule.kind = AMDDWARF_CFI_RULE_UNDEFINED; break;
  case CFA_ACT_SAME_VALUE: rule.kind = AMDDWARF_CFI_RULE_SAME_VALUE; break;
  case CFA_ACT_REGISTER: {
    if ((st = check_register(m, insn, op[1], err)) != AMDDWARF_OK)
      return st;
    rule.kind = AMDDWARF_CFI_RULE_REGISTER;
    rule.reg = (uint32_t)op[1];
    uint32_t a = t->register_bits ? t->register_bits(t, rule.column) : 0;
    uint32_t b = t->register_bits ? t->register_bits(t, rule.reg) : 0;
    if (a && b && a != b)
      return amddwarf__fail_op(err, AMDDWARF_E_CFI_REGISTER_SIZE, insn->offset, insn->opcode,
                              AMDDWARF_NO_OPCODE,
                              "DW_CFA_register at offset 0x%" PRIx64 ": register %u has %u "
                              "bits, register %u has %u",
                              insn->offset, rule.column, a, rule.reg, b);
    break;
  }
  case CFA_ACT_EXPRESSION:
  case CFA_ACT_VAL_EXPRESSION:
    if ((st = check_expr(m, insn, op[1], err)) != AMDDWARF_OK)
      return st;
    rule.kind = desc->action == CFA_ACT_EXPRESSION ? AMDDWARF_CFI_RULE_EXPRESSION
                                                   : AMDDWARF_CFI_RULE_VAL_EXPRESSION;
    rule.expr = insn->expr;
    rule.expr_size = op[1];
    break;
  case CFA_ACT_RESTORE: {
    if (!m->fde)
      return amddwarf__fail_op(err, AMDDWARF_E_CFI_NOT_IN_CIE, insn->offset, insn->opcode,
                              AMDDWARF_NO_OPCODE,
                              "%s at offset 0x%" PRIx64 " in a CIE's initial instructions",
                              desc->info.name, insn->offset);
    amddwarf_cfi_rule initial;
    if (amddwarf_cfi_row_rule(m->cfi, m->initial, rule.column, &initial))
      return set_rule(m, &initial, insn->offset, err);
    remove_rule(m, rule.column);
    return AMDDWARF_OK;
  }
  default:
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION, insn->offset,
                            insn->opcode, AMDDWARF_NO_OPCODE, "no action for %s",
                            desc->info.name);
  }
  return set_rule(m, &rule, insn->offset, err);
}

static amddwarf_status run(machine *m, const uint8_t *bytes, uint64_t size, uint64_t offset,
                           amddwarf_error *err)
{
  size_t pos = 0;
  for (;;) {
    amddwarf_cfa_insn insn;
    amddwarf_status st = amddwarf_cfi_decode_insn(m->cfi, m->cie, bytes, (size_t)size, offset,
                                                  &pos, &insn, err);
    if (st == AMDDWARF_END)
      return AMDDWARF_OK;
    if (st != AMDDWARF_OK)
      return st;
    if ((st = execute(m, &insn, err)) != AMDDWARF_OK)
      return st;
  }
}

static void machine_free(machine *m)
{
  const amddwarf_allocator *a = &m->cfi->allocator;
  state_free(a, &m->state);
  for (size_t i = 0; i < m->depth; i++)
    state_free(a, &m->stack[i]);
  amddwarf__mem_free(a, m->stack, m->stack_capacity * sizeof *m->stack);
  amddwarf__mem_free(a, m->rows, m->row_capacity * sizeof *m->rows);
}

/* Stores the outcome ST (and ERR) into SLOT and moves the rows to the arena. */
static amddwarf_status finish(machine *m, amddwarf_cfi_rows *slot, amddwarf_status st,
                              amddwarf_error *err)
{
  if (st == AMDDWARF_OK && m->row_count) {
    amddwarf_cfi_row *rows = amddwarf__arena_alloc(&m->cfi->arena, m->row_count * sizeof *rows,
                                                  _Alignof(amddwarf_cfi_row));
    if (!rows) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "row table");
    } else {
      memcpy(rows, m->rows, m->row_count * sizeof *rows);
      slot->rows = rows;
      slot->count = (uint32_t)m->row_count;
    }
  }
  slot->status = st;
  if (st != AMDDWARF_OK) {
    slot->error = amddwarf__arena_alloc(&m->cfi->arena, sizeof *slot->error,
                                       _Alignof(amddwarf_error));
    if (slot->error) {
      if (err)
        *slot->error = *err;
      else
        amddwarf__fail(slot->error, st, AMDDWARF_NO_OFFSET, "%s", amddwarf_status_message(st));
    }
  }
  atomic_store_explicit(&slot->done, true, memory_order_release);
  machine_free(m);
  return st;
}

static bool slot_done(const amddwarf_cfi_rows *slot)
{
  return atomic_load_explicit(&slot->done, memory_order_acquire);
}

/* Serializes the computing of rows; a no-op for a handle whose lock could
   not be made (amddwarf_cfi_open then failed anyway). */
static void rows_lock(amddwarf_cfi *cfi)
{
  if (cfi->rows_lock_ready)
    pthread_mutex_lock(&cfi->rows_lock);
}

static void rows_unlock(amddwarf_cfi *cfi)
{
  if (cfi->rows_lock_ready)
    pthread_mutex_unlock(&cfi->rows_lock);
}

static amddwarf_status cached(const amddwarf_cfi_rows *slot, amddwarf_error *err)
{
  if (slot->status != AMDDWARF_OK && err && slot->error)
    *err = *slot->error;
  return slot->status;
}

static amddwarf_status unknown_augmentation(const amddwarf_cfi_cie *cie, amddwarf_error *err)
{
  return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_AUGMENTATION, cie->offset,
                       "CIE at offset 0x%" PRIx64 ": augmentation \"%s\" is unknown, so its "
                       "instructions cannot be interpreted", cie->offset, cie->augmentation);
}

/* Runs CIE's initial instructions into SLOT (under the rows lock). */
static void compute_cie_row(amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                            amddwarf_cfi_rows *slot, amddwarf_error *err)
{
  machine m;
  memset(&m, 0, sizeof m);
  m.cfi = cfi;
  m.cie = cie;
  amddwarf_status st = cie->augmentation_known
                           ? run(&m, cie->instructions, cie->instructions_size,
                                 cie->instructions_offset, err)
                           : unknown_augmentation(cie, err);
  if (st == AMDDWARF_OK) {
    /* One row, kept even though it covers no addresses. */
    m.loc = 0;
    m.dirty = true;
    if (amddwarf__mem_reserve(&cfi->allocator, (void **)&m.rows, &m.row_capacity, 1,
                             sizeof *m.rows) != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "row");
    } else {
      st = emit_row(&m, 1, err);
      if (st == AMDDWARF_OK)
        m.rows[0].end = 0;
    }
  }
  finish(&m, slot, st, err);
}

amddwarf_status amddwarf_cfi_cie_row(amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                     const amddwarf_cfi_row **out, amddwarf_error *err)
{
  amddwarf_cfi_rows *slot = &cfi->cie_rows[cie - cfi->cies];
  if (!slot_done(slot)) {
    rows_lock(cfi);
    if (!slot_done(slot))
      compute_cie_row(cfi, cie, slot, err);
    rows_unlock(cfi);
  }
  if (slot->status == AMDDWARF_OK)
    *out = &slot->rows[0];
  return cached(slot, err);
}

void amddwarf_cfi_set_synthesizer(amddwarf_cfi *cfi, amddwarf_cfi_synthesize_fn synthesize,
                                  void *user)
{
  cfi->synthesize = synthesize;
  cfi->synthesize_user = user;
}

/* Whether FDE says nothing: only DW_CFA_nop (0x00) bytes after a CIE row
   without a CFA rule. */
static bool says_nothing(const amddwarf_cfi_fde *fde, const amddwarf_cfi_row *initial)
{
  if (initial->cfa.kind != AMDDWARF_CFA_RULE_UNSPECIFIED)
    return false;
  for (uint64_t i = 0; i < fde->instructions_size; i++)
    if (fde->instructions[i] != 0)
      return false;
  return true;
}

/* The synthesizer's instructions for FDE, in the arena (they are pointed to
   by the rows' expression rules): into *BYTES and *SIZE. */
static amddwarf_status synthesize(amddwarf_cfi *cfi, const amddwarf_cfi_fde *fde,
                                  const uint8_t **bytes, size_t *size, amddwarf_error *err)
{
  size_t capacity = 4096;
  for (;;) {
    uint8_t *buf = amddwarf__mem_alloc(&cfi->allocator, capacity);
    if (buf == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "synthesized CFI");
    size_t need = 0;
    amddwarf_status st = cfi->synthesize(cfi->synthesize_user, fde, buf, capacity, &need, err);
    uint8_t *copy = NULL;
    if (st == AMDDWARF_OK && need <= capacity) {
      copy = amddwarf__arena_alloc(&cfi->arena, need ? need : 1, 1);
      if (copy != NULL)
        memcpy(copy, buf, need);
      else
        st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "synthesized CFI");
    }
    amddwarf__mem_free(&cfi->allocator, buf, capacity);
    if (st != AMDDWARF_OK)
      return st;
    if (copy != NULL) {
      *bytes = copy;
      *size = need;
      return AMDDWARF_OK;
    }
    if (need > cfi->options.max_rules_per_fde * (size_t)16)
      return amddwarf__fail(err, AMDDWARF_E_LIMIT, fde->offset,
                           "FDE at offset 0x%" PRIx64 ": synthesized instructions too long",
                           fde->offset);
    capacity = need;
  }
}

/* Runs FDE's instructions from its CIE's row into SLOT (under the rows lock). */
static void compute_fde_rows(amddwarf_cfi *cfi, const amddwarf_cfi_fde *fde,
                             amddwarf_cfi_rows *slot, amddwarf_error *err)
{
  machine m;
  memset(&m, 0, sizeof m);
  m.cfi = cfi;
  m.cie = fde->cie;
  m.fde = fde;
  const amddwarf_cfi_row *initial = NULL;
  amddwarf_status st = amddwarf_cfi_cie_row(cfi, fde->cie, &initial, err);
  if (st == AMDDWARF_OK) {
    m.initial = initial;
    m.state.cfa = initial->cfa;
    m.state.args_size_set = initial->args_size_set;
    m.state.args_size = initial->args_size;
    if (initial->rule_count &&
        amddwarf__mem_reserve(&cfi->allocator, (void **)&m.state.rules, &m.state.capacity,
                             initial->rule_count, sizeof *m.state.rules) != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "rule table");
    } else {
      if (initial->rule_count)
        memcpy(m.state.rules, initial->rules, initial->rule_count * sizeof *m.state.rules);
      m.state.count = initial->rule_count;
      m.dirty = true;
      m.loc = fde->initial_location;
      if (amddwarf_add_overflow_u64(fde->initial_location, fde->address_range, &m.end))
        m.end = UINT64_MAX;
      const uint8_t *bytes = fde->instructions;
      size_t size = (size_t)fde->instructions_size;
      uint64_t offset = fde->instructions_offset;
      if (cfi->synthesize != NULL && says_nothing(fde, initial)) {
        st = synthesize(cfi, fde, &bytes, &size, err);
        m.synthesized = true;
        offset = 0; /* errors give offsets into the synthesized instructions */
      }
      if (st == AMDDWARF_OK)
        st = run(&m, bytes, size, offset, err);
      if (st == AMDDWARF_OK)
        st = emit_row(&m, m.end, err);
    }
  }
  finish(&m, slot, st, err);
}

amddwarf_status amddwarf_cfi_fde_rows(amddwarf_cfi *cfi, const amddwarf_cfi_fde *fde,
                                      const amddwarf_cfi_row **rows, size_t *count,
                                      amddwarf_error *err)
{
  amddwarf_cfi_rows *slot = &cfi->fde_rows[fde - cfi->fdes];
  if (!slot_done(slot)) {
    rows_lock(cfi);
    if (!slot_done(slot))
      compute_fde_rows(cfi, fde, slot, err);
    rows_unlock(cfi);
  }
  if (slot->status == AMDDWARF_OK) {
    *rows = slot->rows;
    *count = slot->count;
  }
  return cached(slot, err);
}

amddwarf_status amddwarf_cfi_find_row(amddwarf_cfi *cfi, uint64_t pc,
                                      const amddwarf_cfi_row **out, amddwarf_error *err)
{
  const amddwarf_cfi_row *last = atomic_load_explicit(&cfi->last_row, memory_order_acquire);
  if (last && pc >= last->start && pc < last->end) {
    *out = last;
    return AMDDWARF_OK;
  }
  size_t at = amddwarf__cfi_index_find(cfi, pc);
  if (at == SIZE_MAX)
    return AMDDWARF_NOT_FOUND;
  uint32_t fde = cfi->index[at].fde;
  const amddwarf_cfi_rows *slot = &cfi->fde_rows[fde];
  const amddwarf_cfi_row *rows = NULL;
  size_t count = 0;
  /* The rows are read only after DONE is seen set (acquire): another thread
     may be computing them. */
  if (slot_done(slot) && slot->status == AMDDWARF_OK) {
    rows = slot->rows;
    count = slot->count;
  } else {
    amddwarf_status st = amddwarf_cfi_fde_rows(cfi, amddwarf__cfi_fde(cfi, fde), &rows, &count, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  size_t lo = 0;
  if (count <= 8) {
    while (lo < count && rows[lo].start <= pc)
      lo++;
  } else {
    size_t hi = count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (rows[mid].start <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  if (lo == 0 || pc >= rows[lo - 1].end)
    return AMDDWARF_NOT_FOUND;
  if (!cfi->index[at].overlaps)
    atomic_store_explicit(&cfi->last_row, &rows[lo - 1], memory_order_release);
  *out = &rows[lo - 1];
  return AMDDWARF_OK;
}

bool amddwarf_cfi_row_rule(const amddwarf_cfi *cfi, const amddwarf_cfi_row *row,
                           uint32_t column, amddwarf_cfi_rule *out)
{
  size_t lo = 0, n = row->rule_count;
  if (n <= 8) {
    while (lo < n && row->rules[lo].column < column)
      lo++;
  } else {
    size_t hi = n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (row->rules[mid].column < column)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  if (lo < n && row->rules[lo].column == column) {
    *out = row->rules[lo];
    return true;
  }
  memset(out, 0, sizeof *out);
  out->column = column;
  out->kind = cfi->target->default_rule;
  return false;
}

/* "CFA+8", "CFA-8", "CFA" as llvm-dwarfdump prints a CFA-relative location. */
static void print_cfa_offset(amddwarf_text *out, int64_t offset)
{
  amddwarf__text_puts(out, "CFA");
  if (offset != 0)
    amddwarf__text_printf(out, "%+" PRId64, offset);
}

size_t amddwarf_cfi_row_print(const amddwarf_cfi *cfi, const amddwarf_cfi_row *row, char *buf,
                              size_t size)
{
  amddwarf_text out;
  char name[64];
  const amddwarf_cfi_cie *cie = row->fde ? row->fde->cie : NULL;
  amddwarf_cfi_cie fallback;
  if (!cie) {
    memset(&fallback, 0, sizeof fallback);
    fallback.address_size = cfi->target->address_size;
    cie = &fallback;
  }
  amddwarf__text_init_fixed(&out, buf, size);
  amddwarf__text_puts(&out, "CFA=");
  switch (row->cfa.kind) {
  case AMDDWARF_CFA_RULE_UNSPECIFIED: amddwarf__text_puts(&out, "unspecified"); break;
  case AMDDWARF_CFA_RULE_REG_OFFSET:
    amddwarf__cfi_dump_register_name(cfi->target, row->cfa.reg, name, sizeof name);
    amddwarf__text_printf(&out, "%s", name);
    if (row->cfa.offset != 0 || row->cfa.aspace_given)
      amddwarf__text_printf(&out, "%+" PRId64, row->cfa.offset);
    if (row->cfa.aspace_given)
      amddwarf__text_printf(&out, " in addrspace%" PRIu64, row->cfa.aspace);
    break;
  case AMDDWARF_CFA_RULE_EXPRESSION: {
    amddwarf__cfi_expr_print(cfi, cie, row->cfa.expr, row->cfa.expr_size, &out);
    break;
  }
  }
  for (uint32_t i = 0; i < row->rule_count; i++) {
    const amddwarf_cfi_rule *r = &row->rules[i];
    amddwarf__cfi_dump_register_name(cfi->target, r->column, name, sizeof name);
    amddwarf__text_printf(&out, "%s%s=", i == 0 ? ": " : ", ", name);
    switch (r->kind) {
    case AMDDWARF_CFI_RULE_UNDEFINED: amddwarf__text_puts(&out, "undefined"); break;
    case AMDDWARF_CFI_RULE_SAME_VALUE: amddwarf__text_puts(&out, "same"); break;
    case AMDDWARF_CFI_RULE_OFFSET:
      amddwarf__text_puts(&out, "[");
      print_cfa_offset(&out, r->offset);
      amddwarf__text_puts(&out, "]");
      break;
    case AMDDWARF_CFI_RULE_VAL_OFFSET: print_cfa_offset(&out, r->offset); break;
    case AMDDWARF_CFI_RULE_REGISTER:
      amddwarf__cfi_dump_register_name(cfi->target, r->reg, name, sizeof name);
      amddwarf__text_printf(&out, "%s", name);
      break;
    case AMDDWARF_CFI_RULE_EXPRESSION:
    case AMDDWARF_CFI_RULE_VAL_EXPRESSION: {
      bool at = r->kind == AMDDWARF_CFI_RULE_EXPRESSION;
      if (at)
        amddwarf__text_puts(&out, "[");
      amddwarf__cfi_expr_print(cfi, cie, r->expr, r->expr_size, &out);
      if (at)
        amddwarf__text_puts(&out, "]");
      break;
    }
    default: amddwarf__text_puts(&out, "architectural"); break;
    }
  }
  return out.len;
}

/* Operations the seed does not allow, or finds meaningless, in CFI. */
static bool op_forbidden(amddwarf_op_kind kind)
{
  static const amddwarf_op_kind forbidden[] = {
      AMDDWARF_OP_addrx,          AMDDWARF_OP_call2,          AMDDWARF_OP_call4,
      AMDDWARF_OP_call_ref,       AMDDWARF_OP_const_type,     AMDDWARF_OP_constx,
      AMDDWARF_OP_convert,        AMDDWARF_OP_deref_type,     AMDDWARF_OP_regval_type,
      AMDDWARF_OP_reinterpret,    AMDDWARF_OP_push_object_address,
      AMDDWARF_OP_call_frame_cfa, AMDDWARF_OP_entry_value,    AMDDWARF_OP_GNU_entry_value,
      AMDDWARF_OP_GNU_const_type, AMDDWARF_OP_GNU_regval_type, AMDDWARF_OP_GNU_deref_type,
      AMDDWARF_OP_GNU_convert,    AMDDWARF_OP_GNU_reinterpret,
  };
  for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++)
    if (forbidden[i] == kind)
      return true;
  return false;
}

amddwarf_status amddwarf_cfi_check_expression(const amddwarf_cfi *cfi, const uint8_t *expr,
                                              size_t size, amddwarf_error *err)
{
  amddwarf_op stack_ops[32];
  amddwarf_op *ops = NULL;
  size_t count = 0;
  amddwarf_status st = amddwarf__cfi_expr_decode(cfi, NULL, expr, size, stack_ops,
                                                sizeof stack_ops / sizeof stack_ops[0], &ops,
                                                &count, err);
  for (size_t i = 0; st == AMDDWARF_OK && i < count; i++)
    if (op_forbidden(ops[i].kind))
      st = amddwarf__fail_op(err, AMDDWARF_E_CFI_EXPR_NOT_ALLOWED, ops[i].offset, ops[i].opcode,
                            AMDDWARF_NO_OPCODE,
                            "%s at expression offset 0x%" PRIx64
                            " is not allowed in call frame information",
                            amddwarf_op_info_get(ops[i].kind)->name, ops[i].offset);
  amddwarf__cfi_expr_release(cfi, ops, stack_ops, size);
  return st;
}
