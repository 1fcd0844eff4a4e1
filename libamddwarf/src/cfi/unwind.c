/* Virtual unwinding over the rule table (seed: "Call Frame Information";
 * DWARF 5 section 6.4.4 for the return address).
 *
 * Frame 0 reads the base target. Frame N+1 reads register R by applying
 * frame N's rule for R:
 *   undefined        no value (E_EVAL_OPTIMIZED_OUT), except the target's
 *                    stack pointer column, whose value is the CFA address
 *   same value       frame N's R
 *   offset(N)        memory at CFA + N, in the CFA's address space
 *   val_offset(N)    the address CFA + N
 *   register(R2)     frame N's R2
 *   expression(E)    the location E computes (CFA pushed first), read
 *   val_expression(E) the value E computes (CFA pushed first)
 * Expressions evaluate against frame N's target, so their register reads see
 * frame N's registers, their DW_OP_LLVM_call_frame_entry_reg sees frame
 * N+1's, and memory reads go through the evaluator's address-space rules.
 * Each level of nesting (a rule whose expression reads a register whose rule
 * is an expression ...) uses its own evaluation context; max_rule_depth
 * bounds it, which also stops cycles such as a rule that reads the register
 * it defines through call_frame_entry_reg. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "cfi/cfi_internal.h"
#include "common/bytes.h"
#include "common/error.h"
#include "common/mem.h"

typedef struct uframe uframe;

struct uframe {
  amddwarf_unwinder *u;
  size_t index;
  uint64_t pc, lookup_pc;
  /* The CFI row at lookup_pc, looked up on first use: finding a row may
     synthesize it from the prologue, which decodes instructions, and a
     frame's variables rarely need it. */
  bool row_done;
  const amddwarf_cfi_row *row;
  amddwarf_status row_status;    /* outcome of the row look-up */
  amddwarf_error row_error;
  bool cfa_done;
  amddwarf_status cfa_status;
  uint32_t cfa_aspace;
  uint64_t cfa;
  amddwarf_target target;        /* this frame's view; user = this */
  bool backend_registers;        /* the caller_register callback answered for it */
};

struct amddwarf_unwinder {
  amddwarf_allocator allocator;
  amddwarf_arena arena;
  amddwarf_cfi *cfi;
  const amddwarf_target *base;
  amddwarf_unwinder_options options;
  amddwarf_eval **evs;           /* one evaluation context per nesting depth */
  uframe **frames;
  size_t count, capacity;
  uint32_t depth;
  bool finished;
  amddwarf_status final;
  amddwarf_error final_err;
  amddwarf_error inner;          /* the innermost failure inside a callback */
  bool inner_set;
  bool inner_backend;            /* the callback answered for the frame a step is making */
};

void amddwarf_unwinder_options_init(amddwarf_unwinder_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->max_frames = 256;
  options->max_rule_depth = 16;
  options->xderef = AMDDWARF_XDEREF_DWARF;
}

static amddwarf_status record_inner(amddwarf_unwinder *u, const amddwarf_error *e,
                                    amddwarf_status st)
{
  if (!u->inner_set && e) {
    u->inner = *e;
    u->inner_set = true;
  }
  return st;
}

/* Byte size of register REGNO: the base target's answer, else the CFI
   target's register map; 0 when unknown. */
static uint64_t register_bytes(amddwarf_unwinder *u, uint32_t regno)
{
  uint64_t size = 0;
  if (u->base->register_size && u->base->register_size(u->base->user, regno, &size) ==
                                    AMDDWARF_OK)
    return size;
  const amddwarf_cfi_target *t = u->cfi->target;
  uint32_t bits = t->register_bits ? t->register_bits(t, regno) : 0;
  return bits / 8;
}

static amddwarf_status frame_read_register(uframe *f, uint32_t regno, uint64_t offset,
                                           uint64_t size, void *buf, amddwarf_error *err);

/* F's CFI row, or NULL: then f->row_status says why (NOT_FOUND: no FDE). */
static const amddwarf_cfi_row *frame_row(uframe *f)
{
  if (!f->row_done) {
    f->row_done = true;
    amddwarf_error_clear(&f->row_error);
    f->row_status = amddwarf_cfi_find_row(f->u->cfi, f->lookup_pc - f->u->options.pc_bias,
                                          &f->row, &f->row_error);
    if (f->row_status != AMDDWARF_OK)
      f->row = NULL;
  }
  return f->row;
}

static void request_for(uframe *f, amddwarf_eval_request *req)
{
  amddwarf_eval_request_init(req, &f->target);
  req->format.dialect = f->u->cfi->target->dialect;
  const amddwarf_cfi_row *row = frame_row(f);
  const amddwarf_cfi_cie *cie = row && row->fde ? row->fde->cie : NULL;
  req->format.address_size = cie ? cie->address_size : f->u->cfi->target->address_size;
  req->format.offset_size = cie && cie->dwarf64 ? 8 : 4;
  req->xderef = f->u->options.xderef;
  req->trace = f->u->options.trace;
  req->trace_user = f->u->options.trace_user;
}

/* The evaluation context of the current depth (created on first use). */
static amddwarf_status eval_context(amddwarf_unwinder *u, amddwarf_eval **out,
                                    amddwarf_error *err)
{
  uint32_t d = u->depth;
  if (!u->evs[d]) {
    amddwarf_eval_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.allocator = &u->allocator;
    amddwarf_status st = amddwarf_eval_new(&o, &u->evs[d], err);
    if (st != AMDDWARF_OK)
      return st;
  }
  *out = u->evs[d];
  return AMDDWARF_OK;
}

static amddwarf_status enter(amddwarf_unwinder *u, uframe *f, amddwarf_error *err)
{
  if (u->depth + 1 >= u->options.max_rule_depth)
    return amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                         "frame %zu: rules nest more than %u deep (a rule that depends on "
                         "itself?)", f->index, u->options.max_rule_depth);
  u->depth++;
  return AMDDWARF_OK;
}

static amddwarf_status little_endian_value(uint64_t value, unsigned width, uint64_t offset,
                                           uint64_t size, void *buf, amddwarf_error *err)
{
  uint8_t bytes[8];
  for (unsigned i = 0; i < 8; i++)
    bytes[i] = (uint8_t)(value >> (8 * i));
  if (offset > width || size > width - offset)
    return amddwarf__fail(err, AMDDWARF_E_EVAL_OUT_OF_BOUNDS, AMDDWARF_NO_OFFSET,
                         "bytes %" PRIu64 "..%" PRIu64 " of a %u-byte value", offset,
                         offset + size, width);
  memcpy(buf, bytes + offset, (size_t)size);
  return AMDDWARF_OK;
}

/* Computes frame F's CFA (cached). */
static amddwarf_status frame_cfa(uframe *f, amddwarf_error *err)
{
  amddwarf_unwinder *u = f->u;
  if (f->cfa_done) {
    if (f->cfa_status != AMDDWARF_OK)
      amddwarf__fail(err, f->cfa_status, AMDDWARF_NO_OFFSET, "frame %zu: no CFA", f->index);
    return f->cfa_status;
  }
  amddwarf_status st;
  if (!frame_row(f)) {
    st = amddwarf__fail(err, AMDDWARF_E_CFI_NO_FDE, AMDDWARF_NO_OFFSET,
                       "frame %zu: no FDE covers PC 0x%" PRIx64, f->index, f->lookup_pc);
    goto done;
  }
  const amddwarf_cfa_rule *rule = &f->row->cfa;
  if (rule->kind == AMDDWARF_CFA_RULE_REG_OFFSET) {
    uint64_t bytes = register_bytes(u, rule->reg);
    if (bytes == 0 || bytes > 8)
      bytes = 8;
    uint8_t raw[8] = {0};
    if ((st = frame_read_register(f, rule->reg, 0, bytes, raw, err)) != AMDDWARF_OK) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE] = "";
      if (err)
        memcpy(inner, err->message, sizeof inner);
      inner[sizeof inner - 1] = '\0';
      st = amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                         "frame %zu: CFA register %u: %s", f->index, rule->reg, inner);
      goto done;
    }
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++)
      value |= (uint64_t)raw[i] << (8 * i);
    f->cfa = value + (uint64_t)rule->offset;
    f->cfa_aspace = (uint32_t)rule->aspace;
    /* Addresses wrap at the address space's size (private_wave: 32 bits). */
    const amddwarf_cfi_target *t = u->cfi->target;
    uint8_t width = t->aspace_address_size ? t->aspace_address_size(t, rule->aspace) : 0;
    if (width && width < 8)
      f->cfa &= (UINT64_C(1) << (8 * width)) - 1;
    st = AMDDWARF_OK;
  } else if (rule->kind == AMDDWARF_CFA_RULE_EXPRESSION) {
    amddwarf_eval *ev;
    if ((st = enter(u, f, err)) != AMDDWARF_OK)
      goto done;
    amddwarf_eval_request req;
    request_for(f, &req);
    req.required = AMDDWARF_RESULT_LOCATION;
    amddwarf_entry result;
    st = eval_context(u, &ev, err);
    if (st == AMDDWARF_OK)
      st = amddwarf_eval_expr(ev, &req, rule->expr, (size_t)rule->expr_size, &result, err);
    u->depth--;
    if (st != AMDDWARF_OK) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE] = "";
      if (err)
        memcpy(inner, err->message, sizeof inner);
      inner[sizeof inner - 1] = '\0';
      st = amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                         "frame %zu: CFA expression: %s", f->index, inner);
      goto done;
    }
    if (result.location.kind != AMDDWARF_LOCATION_MEMORY || result.location.bit != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                         "frame %zu: the CFA expression gives a %s location, not a "
                         "byte-aligned memory location", f->index,
                         amddwarf_location_kind_name(result.location.kind));
      goto done;
    }
    f->cfa = result.location.byte_offset;
    f->cfa_aspace = result.location.u.memory.aspace;
  } else {
    st = amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                       "frame %zu: no CFA rule at PC 0x%" PRIx64, f->index, f->lookup_pc);
  }
done:
  f->cfa_done = true;
  f->cfa_status = st;
  return st;
}

/* Register REGNO of the caller of frame C, by C's rule. */
static amddwarf_status unwound_register(uframe *c, uint32_t regno, uint64_t offset,
                                        uint64_t size, void *buf, amddwarf_error *err)
{
  amddwarf_unwinder *u = c->u;
  if (!frame_row(c))
    return amddwarf__fail(err, c->row_status == AMDDWARF_NOT_FOUND ? AMDDWARF_E_CFI_NO_FDE
                                                                  : c->row_status,
                         AMDDWARF_NO_OFFSET, "frame %zu: no row for PC 0x%" PRIx64, c->index,
                         c->lookup_pc);
  amddwarf_status st;
  if (u->options.caller_register != NULL && c->row->synthesized) {
    st = u->options.caller_register(u->options.caller_register_user, c->index, c->pc, regno,
                                    offset, size, buf);
    if (st == AMDDWARF_OK) {
      if (c->index + 1 < u->count)
        u->frames[c->index + 1]->backend_registers = true;
      else
        u->inner_backend = true;
      return AMDDWARF_OK;
    }
    if (st != AMDDWARF_NOT_FOUND)
      return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                           "frame %zu: the backend's caller register %u: %s", c->index, regno,
                           amddwarf_status_message(st));
  }
  amddwarf_cfi_rule rule;
  bool set = amddwarf_cfi_row_rule(u->cfi, c->row, regno, &rule);
  switch (rule.kind) {
  case AMDDWARF_CFI_RULE_UNDEFINED:
    if (!set && regno == u->cfi->target->stack_pointer_column) {
      if ((st = frame_cfa(c, err)) != AMDDWARF_OK)
        return st;
      return little_endian_value(c->cfa, 8, offset, size, buf, err);
    }
    return amddwarf__fail(err, AMDDWARF_E_EVAL_OPTIMIZED_OUT, AMDDWARF_NO_OFFSET,
                         "frame %zu: register %u is undefined in its caller", c->index, regno);
  case AMDDWARF_CFI_RULE_SAME_VALUE: return frame_read_register(c, regno, offset, size, buf, err);
  case AMDDWARF_CFI_RULE_REGISTER:
    if ((st = enter(u, c, err)) != AMDDWARF_OK)
      return st;
    st = frame_read_register(c, rule.reg, offset, size, buf, err);
    u->depth--;
    return st;
  case AMDDWARF_CFI_RULE_OFFSET:
  case AMDDWARF_CFI_RULE_VAL_OFFSET: {
    if ((st = frame_cfa(c, err)) != AMDDWARF_OK)
      return st;
    uint64_t address = c->cfa + (uint64_t)rule.offset;
    if (rule.kind == AMDDWARF_CFI_RULE_VAL_OFFSET) {
      uint64_t width = register_bytes(u, regno);
      return little_endian_value(address, width && width <= 8 ? (unsigned)width : 8, offset,
                                 size, buf, err);
    }
    /* Address spaces that do not depend on a lane or an aperture go to the
       target directly; the others through the evaluator's rules. */
    uint32_t as = c->cfa_aspace;
    bool lane_space = as == AMDDWARF_ASPACE_AMDGPU_GENERIC ||
                      as == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
                      (as >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
                       as <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63);
    if (!lane_space && u->base->read_memory && u->cfi->target->aspace_valid &&
        u->cfi->target->aspace_valid(u->cfi->target, as)) {
      st = u->base->read_memory(u->base->user, as, AMDDWARF_NO_LANE, address + offset, size,
                                buf);
      if (st != AMDDWARF_OK)
        amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                      "frame %zu: reading register %u saved at 0x%" PRIx64
                      " in address space %u: %s", c->index, regno, address, as,
                      amddwarf_status_message(st));
      return st;
    }
    amddwarf_location loc;
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_MEMORY;
    loc.byte_offset = address;
    loc.u.memory.aspace = c->cfa_aspace;
    amddwarf_eval *ev;
    if ((st = enter(u, c, err)) != AMDDWARF_OK)
      return st;
    amddwarf_eval_request req;
    request_for(c, &req);
    st = eval_context(u, &ev, err);
    if (st == AMDDWARF_OK)
      st = amddwarf_location_read(ev, &req, &loc, offset * 8, size * 8, buf, err);
    u->depth--;
    return st;
  }
  case AMDDWARF_CFI_RULE_EXPRESSION:
  case AMDDWARF_CFI_RULE_VAL_EXPRESSION: {
    if ((st = frame_cfa(c, err)) != AMDDWARF_OK)
      return st;
    amddwarf_eval *ev;
    if ((st = enter(u, c, err)) != AMDDWARF_OK)
      return st;
    amddwarf_eval_request req;
    request_for(c, &req);
    amddwarf_entry initial, result;
    memset(&initial, 0, sizeof initial);
    initial.kind = AMDDWARF_ENTRY_LOCATION;
    initial.location.kind = AMDDWARF_LOCATION_MEMORY;
    initial.location.byte_offset = c->cfa;
    initial.location.u.memory.aspace = c->cfa_aspace;
    req.initial = &initial;
    req.initial_count = 1;
    bool val = rule.kind == AMDDWARF_CFI_RULE_VAL_EXPRESSION;
    req.required = val ? AMDDWARF_RESULT_VALUE : AMDDWARF_RESULT_LOCATION;
    st = eval_context(u, &ev, err);
    if (st == AMDDWARF_OK)
      st = amddwarf_eval_expr(ev, &req, rule.expr, (size_t)rule.expr_size, &result, err);
    if (st != AMDDWARF_OK) {
      u->depth--;
      record_inner(u, err, st);
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE] = "";
      if (err)
        memcpy(inner, err->message, sizeof inner);
      inner[sizeof inner - 1] = '\0';
      return amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                           "frame %zu: rule of register %u: %s", c->index, regno, inner);
    }
    if (val) {
      size_t have = amddwarf_value_size(&result.value);
      uint64_t want = register_bytes(u, regno);
      if (want && have != want)
        st = amddwarf__fail(err, AMDDWARF_E_CFI_REGISTER_SIZE, AMDDWARF_NO_OFFSET,
                           "frame %zu: val_expression of register %u gives %zu bytes, the "
                           "register has %" PRIu64, c->index, regno, have, want);
      else if (offset > have || size > have - offset)
        st = amddwarf__fail(err, AMDDWARF_E_EVAL_OUT_OF_BOUNDS, AMDDWARF_NO_OFFSET,
                           "frame %zu: bytes past the %zu-byte value of register %u",
                           c->index, have, regno);
      else
        memcpy(buf, amddwarf_value_bytes(&result.value) + offset, (size_t)size);
    } else {
      st = amddwarf_location_read(ev, &req, &result.location, offset * 8, size * 8, buf, err);
    }
    u->depth--;
    return st;
  }
  default:
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "frame %zu: register %u has an architectural rule", c->index, regno);
  }
}

static amddwarf_status frame_read_register(uframe *f, uint32_t regno, uint64_t offset,
                                           uint64_t size, void *buf, amddwarf_error *err)
{
  if (f->index == 0) {
    const amddwarf_target *b = f->u->base;
    if (!b->read_register)
      return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                           "the target has no read_register callback");
    amddwarf_status st = b->read_register(b->user, regno, offset, size, buf);
    if (st != AMDDWARF_OK)
      amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "frame 0: reading register %u: %s", regno,
                    amddwarf_status_message(st));
    return st;
  }
  return unwound_register(f->u->frames[f->index - 1], regno, offset, size, buf, err);
}

/* ---- The per-frame target ------------------------------------------------- */

static amddwarf_status cb_read_register(void *user, uint32_t regno, uint64_t offset,
                                        uint64_t size, void *buf)
{
  uframe *f = user;
  amddwarf_error e;
  amddwarf_error_clear(&e);
  amddwarf_status st = frame_read_register(f, regno, offset, size, buf, &e);
  return st == AMDDWARF_OK ? st : record_inner(f->u, &e, st);
}

static amddwarf_status cb_write_register(void *user, uint32_t regno, uint64_t offset,
                                         uint64_t size, const void *buf)
{
  uframe *f = user;
  const amddwarf_target *b = f->u->base;
  if (f->index != 0 || !b->write_register)
    return AMDDWARF_E_UNSUPPORTED;
  return b->write_register(b->user, regno, offset, size, buf);
}

static amddwarf_status cb_register_size(void *user, uint32_t regno, uint64_t *size)
{
  uframe *f = user;
  uint64_t n = register_bytes(f->u, regno);
  if (n == 0)
    return AMDDWARF_NOT_FOUND;
  *size = n;
  return AMDDWARF_OK;
}

static amddwarf_status cb_cfa(void *user, uint32_t *aspace, uint64_t *address)
{
  uframe *f = user;
  amddwarf_error e;
  amddwarf_error_clear(&e);
  amddwarf_status st = frame_cfa(f, &e);
  if (st != AMDDWARF_OK)
    return record_inner(f->u, &e, st);
  *aspace = f->cfa_aspace;
  *address = f->cfa;
  return AMDDWARF_OK;
}

static amddwarf_status cb_read_entry_register(void *user, uint32_t regno, uint64_t offset,
                                              uint64_t size, void *buf)
{
  uframe *f = user;
  amddwarf_error e;
  amddwarf_error_clear(&e);
  amddwarf_status st = unwound_register(f, regno, offset, size, buf, &e);
  return st == AMDDWARF_OK ? st : record_inner(f->u, &e, st);
}

/* Pass-throughs to the base target. */
#define PASS(name, params, args)                                                              \
  static amddwarf_status cb_##name params                                                     \
  {                                                                                           \
    const amddwarf_target *b = ((uframe *)user)->u->base;                                     \
    return b->name ? b->name args : AMDDWARF_E_UNSUPPORTED;                                   \
  }
PASS(read_memory, (void *user, uint32_t aspace, uint32_t lane, uint64_t address, uint64_t size,
                   void *buf), (b->user, aspace, lane, address, size, buf))
PASS(write_memory, (void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                    uint64_t size, const void *buf), (b->user, aspace, lane, address, size, buf))
PASS(focused_lane, (void *user, uint32_t *lane), (b->user, lane))
PASS(wave_size, (void *user, uint32_t *wave_size), (b->user, wave_size))
PASS(exec_mask, (void *user, uint64_t *mask), (b->user, mask))
PASS(apertures, (void *user, uint64_t *shared_base, uint64_t *private_base),
     (b->user, shared_base, private_base))
PASS(object_address, (void *user, uint32_t *aspace, uint64_t *address),
     (b->user, aspace, address))
PASS(tls_address, (void *user, uint64_t offset, uint64_t *address), (b->user, offset, address))
PASS(address_index, (void *user, uint64_t index, uint64_t *value), (b->user, index, value))
PASS(base_type, (void *user, uint64_t die, amddwarf_base_type *out), (b->user, die, out))
PASS(die, (void *user, amddwarf_die_ref_kind kind, uint64_t ref, amddwarf_die *out),
     (b->user, kind, ref, out))
#undef PASS

static amddwarf_status cb_frame_base(void *user, const uint8_t **expr, size_t *size)
{
  uframe *f = user;
  const amddwarf_target *b = f->u->base;
  if (f->index != 0 || !b->frame_base)
    return AMDDWARF_E_UNSUPPORTED;
  return b->frame_base(b->user, expr, size);
}

static uframe *frame_new(amddwarf_unwinder *u, uint64_t pc, uint64_t lookup_pc)
{
  if (amddwarf__mem_reserve(&u->allocator, (void **)&u->frames, &u->capacity, u->count + 1,
                           sizeof *u->frames) != 0)
    return NULL;
  uframe *f = amddwarf__arena_calloc(&u->arena, 1, sizeof *f);
  if (!f)
    return NULL;
  f->u = u;
  f->index = u->count;
  f->pc = pc;
  f->lookup_pc = lookup_pc;
  amddwarf_target *t = &f->target;
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = f;
  t->read_register = cb_read_register;
  t->write_register = cb_write_register;
  t->register_size = cb_register_size;
  t->read_memory = cb_read_memory;
  t->write_memory = cb_write_memory;
  t->focused_lane = cb_focused_lane;
  t->wave_size = cb_wave_size;
  t->exec_mask = cb_exec_mask;
  t->apertures = cb_apertures;
  t->frame_base = cb_frame_base;
  t->cfa = cb_cfa;
  t->object_address = cb_object_address;
  t->tls_address = cb_tls_address;
  t->address_index = cb_address_index;
  t->base_type = cb_base_type;
  t->die = cb_die;
  t->read_entry_register = cb_read_entry_register;
  u->frames[u->count++] = f;
  return f;
}

static amddwarf_status finish(amddwarf_unwinder *u, amddwarf_status st, amddwarf_error *err);

/* OPTIONS (NULL: the defaults) resolved into *OUT, as far as a caller's
   struct reaches: those of older callers end before the later members. */
static void resolve_options(const amddwarf_unwinder_options *options,
                            amddwarf_unwinder_options *out)
{
  amddwarf_unwinder_options_init(out);
  if (!options)
    return;
  if (options->max_frames)
    out->max_frames = options->max_frames;
  if (options->max_rule_depth)
    out->max_rule_depth = options->max_rule_depth;
  out->xderef = options->xderef;
  out->allocator = options->allocator;
  if (options->struct_size >= offsetof(amddwarf_unwinder_options, trace_user) + sizeof(void *)) {
    out->trace = options->trace;
    out->trace_user = options->trace_user;
  }
  if (options->struct_size >=
      offsetof(amddwarf_unwinder_options, caller_register_user) + sizeof(void *)) {
    out->caller_register = options->caller_register;
    out->caller_register_user = options->caller_register_user;
  }
  if (options->struct_size >= offsetof(amddwarf_unwinder_options, pc_bias) + sizeof(uint64_t))
    out->pc_bias = options->pc_bias;
}

/* The evaluation contexts, one per nesting depth of OPTIONS (made on first
   use), sized anew when the depth changes. */
static bool size_contexts(amddwarf_unwinder *u, uint32_t max_rule_depth)
{
  if (u->evs && u->options.max_rule_depth == max_rule_depth)
    return true;
  if (u->evs) {
    for (uint32_t i = 0; i <= u->options.max_rule_depth; i++)
      amddwarf_eval_free(u->evs[i]);
    amddwarf__mem_free(&u->allocator, u->evs, (u->options.max_rule_depth + 1) * sizeof *u->evs);
  }
  u->options.max_rule_depth = max_rule_depth;
  u->evs = amddwarf__mem_calloc(&u->allocator, max_rule_depth + 1, sizeof *u->evs);
  return u->evs != NULL;
}

/* Starts a walk of TARGET's frames with options O: frame 0 at TARGET's PC.
   What a walk before it made (frames, its end) is gone. */
static amddwarf_status begin_walk(amddwarf_unwinder *u, const amddwarf_target *target,
                                  const amddwarf_unwinder_options *o, amddwarf_error *err)
{
  if (!size_contexts(u, o->max_rule_depth))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "unwinder");
  u->options = *o;
  u->options.allocator = NULL;
  u->base = target;
  amddwarf__arena_release(&u->arena);
  amddwarf__arena_init(&u->arena, &u->allocator);
  u->count = 0;
  u->depth = 0;
  u->finished = false;
  u->inner_set = false;
  u->inner_backend = false;
  amddwarf_error_clear(&u->final_err);
  amddwarf_error_clear(&u->inner);
  uint32_t pc_reg = u->cfi->target->return_address_column;
  uint64_t bytes = register_bytes(u, pc_reg);
  if (bytes == 0 || bytes > 8)
    bytes = u->cfi->target->address_size;
  uint8_t raw[8] = {0};
  if (!target->read_register)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "the target has no read_register callback");
  amddwarf_status st = target->read_register(target->user, pc_reg, 0, bytes, raw);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                         "frame 0: reading the PC (register %u): %s", pc_reg,
                         amddwarf_status_message(st));
  uint64_t pc = amddwarf__load_le64(raw); /* RAW's bytes past BYTES are 0 */
  if (!frame_new(u, pc, pc))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frame");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_unwinder_new(amddwarf_cfi *cfi, const amddwarf_target *target,
                                      const amddwarf_unwinder_options *options,
                                      amddwarf_unwinder **out, amddwarf_error *err)
{
  if (!cfi || !target || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_unwinder_new: CFI, target and OUT are required");
  amddwarf_unwinder_options o;
  resolve_options(options, &o);
  amddwarf_allocator a = amddwarf__allocator_resolve(o.allocator);
  amddwarf_unwinder *u = amddwarf__mem_calloc(&a, 1, sizeof *u);
  if (!u)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "unwinder");
  u->allocator = a;
  u->cfi = cfi;
  amddwarf__arena_init(&u->arena, &u->allocator);
  amddwarf_status st = begin_walk(u, target, &o, err);
  if (st != AMDDWARF_OK) {
    amddwarf_unwinder_free(u);
    return st;
  }
  *out = u;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_unwinder_reset(amddwarf_unwinder *u, const amddwarf_target *target,
                                        const amddwarf_unwinder_options *options,
                                        amddwarf_error *err)
{
  if (!u || !target)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_unwinder_reset: unwinder and target are required");
  amddwarf_unwinder_options o;
  resolve_options(options, &o);
  amddwarf_status st = begin_walk(u, target, &o, err);
  if (st != AMDDWARF_OK) {
    /* No frame 0: every step reports why. */
    u->count = 0;
    finish(u, st, err);
  }
  return st;
}

void amddwarf_unwinder_free(amddwarf_unwinder *u)
{
  if (!u)
    return;
  if (u->evs)
    for (uint32_t i = 0; i <= u->options.max_rule_depth; i++)
      amddwarf_eval_free(u->evs[i]);
  amddwarf_allocator a = u->allocator;
  amddwarf__mem_free(&a, u->evs, (u->options.max_rule_depth + 1) * sizeof *u->evs);
  amddwarf__mem_free(&a, u->frames, u->capacity * sizeof *u->frames);
  amddwarf__arena_release(&u->arena);
  amddwarf__mem_free(&a, u, sizeof *u);
}

static amddwarf_status finish(amddwarf_unwinder *u, amddwarf_status st, amddwarf_error *err)
{
  u->finished = true;
  u->final = st;
  if (err)
    u->final_err = *err;
  else
    amddwarf__fail(&u->final_err, st, AMDDWARF_NO_OFFSET, "%s", amddwarf_status_message(st));
  return st;
}

amddwarf_status amddwarf_unwinder_step(amddwarf_unwinder *u, amddwarf_error *err)
{
  if (u->finished) {
    if (err)
      *err = u->final_err;
    return u->final;
  }
  amddwarf_error local;
  amddwarf_error_clear(&local);
  if (!err)
    err = &local;
  u->inner_set = false;
  u->depth = 0;
  uframe *c = u->frames[u->count - 1];
  if (!frame_row(c)) {
    if (c->row_status != AMDDWARF_NOT_FOUND) {
      *err = c->row_error;
      return finish(u, c->row_status, err);
    }
    amddwarf__fail(err, AMDDWARF_E_CFI_NO_FDE, AMDDWARF_NO_OFFSET,
                  "frame %zu: no FDE covers PC 0x%" PRIx64, c->index, c->lookup_pc);
    return finish(u, AMDDWARF_E_CFI_NO_FDE, err);
  }
  uint32_t ra = (uint32_t)c->row->fde->cie->return_address_register;
  amddwarf_cfi_rule rule;
  amddwarf_cfi_row_rule(u->cfi, c->row, ra, &rule);
  if (rule.kind == AMDDWARF_CFI_RULE_UNDEFINED) {
    amddwarf__fail(err, AMDDWARF_END, AMDDWARF_NO_OFFSET,
                  "frame %zu: the return address is undefined: outermost frame", c->index);
    return finish(u, AMDDWARF_END, err);
  }
  if (u->count >= u->options.max_frames) {
    amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET, "more than %u frames",
                  u->options.max_frames);
    return finish(u, AMDDWARF_E_LIMIT, err);
  }
  amddwarf_status st = frame_cfa(c, err);
  if (st != AMDDWARF_OK)
    return finish(u, st, err);
  uint64_t bytes = register_bytes(u, ra);
  if (bytes == 0 || bytes > 8)
    bytes = c->row->fde->cie->address_size;
  uint8_t raw[8] = {0};
  st = unwound_register(c, ra, 0, bytes, raw, err);
  if (st != AMDDWARF_OK) {
    char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
    memcpy(inner, err->message, sizeof inner);
    inner[sizeof inner - 1] = '\0';
    amddwarf__fail(err, AMDDWARF_E_CFI_UNEVALUABLE, AMDDWARF_NO_OFFSET,
                  "frame %zu: return address: %s", c->index, inner);
    return finish(u, AMDDWARF_E_CFI_UNEVALUABLE, err);
  }
  uint64_t pc = amddwarf__load_le64(raw); /* RAW's bytes past BYTES are 0 */
  uframe *f = frame_new(u, pc, pc ? pc - 1 : 0);
  if (!f) {
    amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frame");
    return finish(u, AMDDWARF_E_NO_MEMORY, err);
  }
  f->backend_registers = u->inner_backend;
  u->inner_backend = false;
  /* A caller that repeats a frame's PC and CFA would repeat forever. */
  if (frame_row(f)) {
    amddwarf_error e;
    amddwarf_error_clear(&e);
    if (frame_cfa(f, &e) == AMDDWARF_OK) {
      for (size_t i = 0; i + 1 < u->count; i++) {
        uframe *g = u->frames[i];
        if (g->cfa_done && g->cfa_status == AMDDWARF_OK && g->pc == f->pc &&
            g->cfa == f->cfa && g->cfa_aspace == f->cfa_aspace) {
          u->count--;
          amddwarf__fail(err, AMDDWARF_E_CFI_UNWIND_LOOP, AMDDWARF_NO_OFFSET,
                        "frame %zu would repeat frame %zu (PC 0x%" PRIx64 ", CFA 0x%" PRIx64
                        " in address space %u)", u->count, i, f->pc, f->cfa, f->cfa_aspace);
          return finish(u, AMDDWARF_E_CFI_UNWIND_LOOP, err);
        }
      }
    }
  }
  return AMDDWARF_OK;
}

size_t amddwarf_unwinder_frame_count(const amddwarf_unwinder *u)
{
  return u->count;
}

amddwarf_status amddwarf_unwinder_frame_pcs(const amddwarf_unwinder *u, size_t index,
                                            uint64_t *pc, uint64_t *lookup_pc,
                                            bool *backend_registers)
{
  if (index >= u->count)
    return AMDDWARF_NOT_FOUND;
  const uframe *f = u->frames[index];
  *pc = f->pc;
  *lookup_pc = f->lookup_pc;
  *backend_registers = f->backend_registers;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_unwinder_frame(amddwarf_unwinder *u, size_t index,
                                        amddwarf_frame_info *out)
{
  if (index >= u->count)
    return AMDDWARF_NOT_FOUND;
  uframe *f = u->frames[index];
  u->depth = 0;
  frame_cfa(f, NULL);
  memset(out, 0, sizeof *out);
  out->pc = f->pc;
  out->lookup_pc = f->lookup_pc;
  out->row = frame_row(f);
  out->has_cfa = f->cfa_status == AMDDWARF_OK;
  out->cfa = f->cfa;
  out->cfa_aspace = f->cfa_aspace;
  out->backend_registers = f->backend_registers;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_unwinder_read_register(amddwarf_unwinder *u, size_t index,
                                                uint32_t regno, uint64_t offset, uint64_t size,
                                                void *buf, amddwarf_error *err)
{
  if (index >= u->count)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET, "no frame %zu", index);
  u->depth = 0;
  u->inner_set = false;
  return frame_read_register(u->frames[index], regno, offset, size, buf, err);
}

const amddwarf_target *amddwarf_unwinder_frame_target(amddwarf_unwinder *u, size_t index)
{
  return index < u->count ? &u->frames[index]->target : NULL;
}
