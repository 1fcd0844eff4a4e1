/* The DWARF stack machine of the seed spec ("Expressions" through "Composite
 * Location Descriptions"): values and location descriptions on one stack,
 * nested frames, the dispatch of each operation to its handler (the ops_*.c
 * files, by eval_ops.def) and the result rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "expr/eval_internal.h"

amddwarf_status amddwarf__machine_fail(machine *m, amddwarf_status status, const char *format, ...)
{
  if (!m->err)
    return status;
  /* Keep the innermost (first) error: callers pass statuses upward. */
  if (m->reported && m->err->status == status)
    return status;
  m->reported = true;
  m->err->status = status;
  m->err->offset = m->op_offset;
  m->err->opcode = m->op_code;
  m->err->subop = m->op_subop;
  va_list ap;
  va_start(ap, format);
  char detail[AMDDWARF_ERROR_MESSAGE_SIZE];
  vsnprintf(detail, sizeof detail, format, ap);
  va_end(ap);
  snprintf(m->err->message, sizeof m->err->message, "%s", detail);
  return status;
}

/* ---- stack helpers ------------------------------------------------------------- */

static const amddwarf_op *program_op(const machine *m, const program *p, size_t i)
{
  return p->external ? &p->external[i] : &m->ev->ops[p->first + i];
}

amddwarf_status amddwarf__stack_need(machine *m, uint32_t base, uint32_t n)
{
  if (m->sp - base < n)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_STACK_UNDERFLOW,
                        "the operation needs %u stack entries, the stack has %u", (unsigned)n,
                        (unsigned)(m->sp - base));
  return AMDDWARF_OK;
}

amddwarf_entry *amddwarf__stack_push(machine *m)
{
  if (m->sp >= m->ev->stack_cap) {
    amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "the stack would exceed %u entries",
                 (unsigned)m->ev->stack_cap);
    return NULL;
  }
  amddwarf_entry *e = &m->ev->stack[m->sp++];
  e->incomplete = 0;
  return e;
}

amddwarf_status amddwarf__stack_push_value(machine *m, const amddwarf_value *v)
{
  amddwarf_entry *e = amddwarf__stack_push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_VALUE;
  e->value = *v;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__stack_push_generic(machine *m, uint64_t x)
{
  amddwarf_value v;
  amddwarf__value_set_generic(m, &v, x);
  return amddwarf__stack_push_value(m, &v);
}

amddwarf_status amddwarf__stack_push_location(machine *m, const amddwarf_location *loc)
{
  amddwarf_entry *e = amddwarf__stack_push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_LOCATION;
  e->location = *loc;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__stack_push_memory(machine *m, uint32_t aspace, uint64_t address)
{
  amddwarf_location loc;
  memory_location(&loc, aspace, address);
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__stack_push_register(machine *m, uint32_t regno)
{
  amddwarf_location loc;
  register_location(&loc, regno);
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__stack_pop_value(machine *m, uint32_t base, amddwarf_value *out)
{
  amddwarf_status st = amddwarf__stack_need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = stack_top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_VALUE) {
    *out = e->value;
    m->sp--;
    return AMDDWARF_OK;
  }
  if (e->incomplete)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                        "an incomplete composite is used as a value");
  if (e->location.kind == AMDDWARF_LOCATION_MEMORY &&
      e->location.u.memory.aspace == AMDDWARF_ASPACE_NONE && e->location.bit == 0 &&
      (machine_generic_bits(m) >= 64 || e->location.byte_offset <= bits_mask(machine_generic_bits(m)))) {
    uint64_t address = e->location.byte_offset;
    m->sp--;
    amddwarf__value_set_generic(m, out, address);
    return AMDDWARF_OK;
  }
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_VALUE, "a %s location description is not a value",
                      amddwarf_location_kind_name(e->location.kind));
}

amddwarf_status amddwarf__stack_pop_integral(machine *m, uint32_t base, amddwarf_value *out)
{
  amddwarf_status st = amddwarf__stack_pop_value(m, base, out);
  if (st != AMDDWARF_OK)
    return st;
  if (out->is_implicit_pointer)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "an implicit pointer value is used as an integer");
  if (!amddwarf__type_is_integral(&out->type))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL, "a %s value is not integral",
                        amddwarf_encoding_name(out->type.encoding));
  return AMDDWARF_OK;
}

/* Signed reading of an integral value (generic is two's complement). */
static int64_t integral_signed(const amddwarf_value *v)
{
  amddwarf_value s = *v;
  if (s.type.encoding != AMDDWARF_ATE_SIGNED && s.type.encoding != AMDDWARF_ATE_SIGNED_CHAR)
    s.type.encoding = AMDDWARF_ATE_SIGNED;
  return amddwarf__value_s64(&s);
}

amddwarf_status amddwarf__stack_pop_integral_u64(machine *m, uint32_t base, uint64_t *x, int64_t *sx)
{
  if (top_is_generic(m, base, 0)) {
    *x = generic_u64(stack_top(m, 0));
    *sx = rule_sign_extend(*x, machine_generic_bits(m));
    m->sp--;
    return AMDDWARF_OK;
  }
  amddwarf_value a;
  amddwarf_status st = amddwarf__stack_pop_integral(m, base, &a);
  if (st != AMDDWARF_OK)
    return st;
  *x = amddwarf__value_u64(&a);
  *sx = integral_signed(&a);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__entry_to_location(machine *m, const amddwarf_entry *e, amddwarf_location *out)
{
  if (e->kind == AMDDWARF_ENTRY_LOCATION) {
    if (e->incomplete)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                          "an incomplete composite is used as a location description");
    *out = e->location;
    return AMDDWARF_OK;
  }
  const amddwarf_value *v = &e->value;
  if (v->is_implicit_pointer) {
    if (v->pointer.u.implicit_pointer.aspace != AMDDWARF_ASPACE_NONE)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "an implicit pointer value of address space %u converts to a location only through DW_OP_LLVM_form_aspace_address",
                          (unsigned)v->pointer.u.implicit_pointer.aspace);
    amddwarf_location ip = v->pointer; /* V may sit in a popped stack slot */
    return amddwarf__resolve_implicit_pointer(m, &ip, out);
  }
  if (v->type.encoding == AMDDWARF_ATE_GENERIC && v->type.die == 0) {
    memory_location(out, AMDDWARF_ASPACE_NONE, amddwarf__value_u64(v));
    return AMDDWARF_OK;
  }
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_LOCATION,
                      "a %s value (DIE 0x%llx) is not a location description",
                      amddwarf_encoding_name(v->type.encoding), (unsigned long long)v->type.die);
}

amddwarf_status amddwarf__stack_pop_location(machine *m, uint32_t base, amddwarf_location *out)
{
  amddwarf_status st = amddwarf__stack_need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = stack_top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_LOCATION && !e->incomplete) {
    *out = e->location;
    m->sp--;
    return AMDDWARF_OK;
  }
  m->sp--;
  /* The popped slot stays intact until the next push. */
  return amddwarf__entry_to_location(m, e, out);
}

/* ---- nested expressions ------------------------------------------------------ */

/* memcmp (A, B, SIZE) == 0 for the expressions of the cache (at most
   EVAL_CACHE_BYTES), without a library call: 8-byte words, the last one
   overlapping the one before; 4-byte words or bytes below 8. */
static inline __attribute__((always_inline)) bool bytes_equal(const uint8_t *a, const uint8_t *b,
                                                              size_t size)
{
  uint64_t differ = 0;
  if (size >= 8) {
    uint64_t x, y;
    /* Up to 16 bytes (most locations): the first and the last word. */
    for (size_t i = 0; i + 16 < size; i += 8) {
      memcpy(&x, a + i + 8, 8);
      memcpy(&y, b + i + 8, 8);
      differ |= x ^ y;
    }
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    differ |= x ^ y;
    memcpy(&x, a + size - 8, 8);
    memcpy(&y, b + size - 8, 8);
    return (differ | (x ^ y)) == 0;
  }
  if (size >= 4) {
    uint32_t x0, y0, x1, y1;
    memcpy(&x0, a, 4);
    memcpy(&y0, b, 4);
    memcpy(&x1, a + size - 4, 4);
    memcpy(&y1, b + size - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  for (size_t i = 0; i < size; i++)
    differ |= (uint64_t)(a[i] ^ b[i]);
  return differ == 0;
}

/* The fields of FORMAT that decoding depends on, as one number: the
   dialect, address size, offset size and version, 8 bytes without
   padding. */
static inline uint64_t format_key(const amddwarf_expr_format *format)
{
  _Static_assert(sizeof format->dialect == 4 &&
                     offsetof(amddwarf_expr_format, address_size) ==
                         offsetof(amddwarf_expr_format, dialect) + 4 &&
                     offsetof(amddwarf_expr_format, offset_size) ==
                         offsetof(amddwarf_expr_format, dialect) + 5 &&
                     offsetof(amddwarf_expr_format, version) ==
                         offsetof(amddwarf_expr_format, dialect) + 6 &&
                     sizeof format->version == 2,
                 "dialect, address size, offset size and version are 8 consecutive bytes");
  uint64_t key;
  memcpy(&key, &format->dialect, sizeof key);
  return key;
}

/* Program *P from cache slot I when it holds BYTES in the request's format.
   The slot is then pinned until the evaluation ends, so that a nested
   expression cannot reuse it while this one runs. A slot never filled has a
   format key of 0, which no request has (its address size is 4 or 8). */
static inline bool use_cached(machine *m, unsigned i, const uint8_t *bytes, size_t size,
                              program *p)
{
  amddwarf_eval *ev = m->ev;
  const eval_cache_entry *c = &ev->cache[i];
  if (c->bytes != bytes || c->size != size ||
      c->format_key != format_key(&m->req->format) || !bytes_equal(c->copy, bytes, size))
    return false;
  ev->cache_pinned |= 1u << i;
  /* Field by field: a compound literal costs two instructions more a probe. */
  p->external = c->ops;
  p->first = 0;
  p->count = c->count;
  p->plan = &c->plan;
  p->slot = i;
  return true;
}

amddwarf_status amddwarf__load_program(machine *m, const uint8_t *bytes, size_t size, program *p)
{
  amddwarf_eval *ev = m->ev;
  size_t needed;
  if (amddwarf_add_overflow_size(m->ops_used, size, &needed) || needed > ev->ops_max)
    return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "expressions of this evaluation exceed %zu operations",
                        ev->ops_max);
  if (needed > ev->ops_cap) {
    size_t cap = ev->ops_cap;
    void *items = ev->ops;
    if (amddwarf__mem_reserve(&ev->alloc, &items, &cap, needed, sizeof *ev->ops) != 0)
      return amddwarf__machine_fail(m, AMDDWARF_E_NO_MEMORY, "out of memory for operations");
    ev->ops = items;
    ev->ops_cap = cap;
  }
  /* Decoded expressions are cached by address and content: a debugger
     evaluates the same location for every lane. */
  if (size <= EVAL_CACHE_BYTES) {
    for (unsigned i = 0; i < EVAL_CACHE_ENTRIES; i++)
      if (ev->cache_bytes[i] == bytes && use_cached(m, i, bytes, size, p))
        return AMDDWARF_OK;
  }
  size_t count = 0;
  amddwarf_error derr;
  amddwarf_status st = amddwarf_expr_decode(bytes, size, &m->req->format, ev->ops + m->ops_used,
                                            ev->ops_cap - m->ops_used, &count,
                                            m->err ? &derr : NULL);
  if (st != AMDDWARF_OK) {
    if (m->err) {
      *m->err = derr;
      m->reported = true;
    }
    return st;
  }
  *p = (program){.first = m->ops_used, .count = count, .slot = EVAL_CACHE_ENTRIES};
  unsigned slot = ev->cache_next;
  while (slot < ev->cache_next + EVAL_CACHE_ENTRIES &&
         (ev->cache_pinned >> (slot % EVAL_CACHE_ENTRIES)) & 1)
    slot++;
  if (size <= EVAL_CACHE_BYTES && count <= EVAL_CACHE_OPS && bytes &&
      slot < ev->cache_next + EVAL_CACHE_ENTRIES) {
    /* The slot is not in use by this evaluation (the ops just decoded run
       from the context buffer). */
    eval_cache_entry *c = &ev->cache[slot % EVAL_CACHE_ENTRIES];
    ev->cache_next = (slot + 1) % EVAL_CACHE_ENTRIES;
    ev->cache_bytes[slot % EVAL_CACHE_ENTRIES] = bytes;
    c->bytes = bytes;
    c->size = size;
    c->format_key = format_key(&m->req->format);
    memcpy(c->copy, bytes, size);
    memcpy(c->ops, ev->ops + m->ops_used, count * sizeof *c->ops);
    c->count = count;
    amddwarf__fast_compile(c->ops, count, &m->req->format, &c->plan);
    ev->cache_pinned |= 1u << (slot % EVAL_CACHE_ENTRIES);
    p->plan = &c->plan;
    p->slot = slot % EVAL_CACHE_ENTRIES;
  }
  m->ops_used += count;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__run_nested(machine *m, const uint8_t *bytes, size_t size, uint32_t base)
{
  /* The calling operation, which errors after the nested run name. */
  uint64_t offset = m->op_offset;
  int32_t code = m->op_code, subop = m->op_subop;
  program p;
  amddwarf_status st = amddwarf__load_program(m, bytes, size, &p);
  if (st != AMDDWARF_OK)
    return st;
  m->depth++;
  st = amddwarf__machine_run(m, &p, base);
  m->depth--;
  if (st == AMDDWARF_OK) {
    m->op_offset = offset;
    m->op_code = code;
    m->op_subop = subop;
  }
  return st;
}

/* The rule "a location description is required" on the frame from BASE:
   an empty frame is undefined, an incomplete composite on top is complete
   now, a value on top converts. */
static amddwarf_status result_location(machine *m, uint32_t base, amddwarf_location *out)
{
  if (m->sp == base) {
    undefined_location(out);
    return AMDDWARF_OK;
  }
  const amddwarf_entry *top = stack_top(m, 0);
  if (top->kind == AMDDWARF_ENTRY_LOCATION) {
    *out = top->location;
    return AMDDWARF_OK;
  }
  return amddwarf__entry_to_location(m, top, out);
}

amddwarf_status amddwarf__eval_own_frame(machine *m, const uint8_t *bytes, size_t size, const char *what,
                               amddwarf_location *out)
{
  uint32_t base = m->sp;
  if (m->depth >= m->ev->max_call_depth)
    return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "%s: more than %u nested evaluations", what,
                        (unsigned)m->ev->max_call_depth);
  amddwarf_status st = amddwarf__run_nested(m, bytes, size, base);
  if (st == AMDDWARF_OK)
    st = result_location(m, base, out);
  if (st == AMDDWARF_OK)
    m->sp = base;
  return st;
}

amddwarf_status amddwarf__lookup_die(machine *m, amddwarf_die_ref_kind kind, uint64_t ref,
                           amddwarf_die *die)
{
  if (!TARGET_HAS(m->t, die))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target cannot look up DIE 0x%llx",
                        (unsigned long long)ref);
  memset(die, 0, sizeof *die);
  amddwarf_status st = m->t->die(m->t->user, kind, ref, die);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_DIE, "there is no DIE at 0x%llx",
                        (unsigned long long)ref);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "DIE 0x%llx: %s", (unsigned long long)ref,
                        amddwarf_status_message(st));
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__resolve_implicit_pointer(machine *m, const amddwarf_location *ip,
                                         amddwarf_location *out)
{
  amddwarf_die die;
  amddwarf_status st = amddwarf__lookup_die(m, AMDDWARF_DIE_REF_SECTION, ip->u.implicit_pointer.die, &die);
  if (st != AMDDWARF_OK)
    return st;
  if (die.value == AMDDWARF_DIE_LOCATION) {
    st = amddwarf__eval_own_frame(m, die.bytes, die.size, "implicit pointer target", out);
    if (st != AMDDWARF_OK)
      return st;
  } else if (die.value == AMDDWARF_DIE_CONST_VALUE) {
    uint8_t *copy = amddwarf__pool_alloc(m, die.size);
    if (!copy && die.size)
      return AMDDWARF_E_LIMIT;
    if (die.size)
      memcpy(copy, die.bytes, die.size);
    implicit_location(out, copy, (uint64_t)die.size * 8);
  } else {
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_DIE,
                        "implicit pointer target DIE 0x%llx has neither DW_AT_location nor DW_AT_const_value",
                        (unsigned long long)ip->u.implicit_pointer.die);
  }
  return amddwarf__loc_add_bytes(m, out, ip->u.implicit_pointer.displacement);
}

/* ---- the machine ------------------------------------------------------------------ */

static void trace_op(machine *m, const amddwarf_op *op)
{
  amddwarf_trace_event e;
  memset(&e, 0, sizeof e);
  e.kind = AMDDWARF_TRACE_OP;
  e.depth = m->depth;
  e.op = op;
  e.stack = m->ev->stack;
  e.stack_size = m->sp;
  e.op_offset = op->offset;
  e.lane = AMDDWARF_NO_LANE;
  m->trace(m->req->trace_user, &e);
}

void amddwarf__machine_trace_access(machine *m, amddwarf_trace_kind kind, uint32_t regno, uint32_t aspace,
                          uint32_t lane, uint64_t address, uint64_t size, const uint8_t *bytes,
                          amddwarf_status status)
{
  amddwarf_trace_event e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.depth = m->depth;
  e.op_offset = m->op_offset;
  e.regno = regno;
  e.aspace = aspace;
  e.lane = lane;
  e.address = address;
  e.size = size;
  e.bytes = status == AMDDWARF_OK ? bytes : NULL;
  e.status = status;
  m->trace(m->req->trace_user, &e);
}

/* The handler of each operation (eval_ops.def), which sees the lit, reg
   and breg families in their operand form (fast_plan.h). */
static const op_handler handlers[AMDDWARF_OP_KIND_COUNT] = {
#define EVAL_OP(kind, handler) [AMDDWARF_OP_##kind] = handler,
#include "expr/eval_ops.def"
#undef EVAL_OP
};

static op_handler handler_of(amddwarf_op_kind kind)
{
  return (unsigned)kind < AMDDWARF_OP_KIND_COUNT ? handlers[kind] : NULL;
}

amddwarf_status amddwarf__machine_run(machine *m, const program *p, uint32_t base)
{
  size_t pc = 0;
  while (pc < p->count) {
    amddwarf_op form;
    op_step s = {amddwarf__op_operand_form(program_op(m, p, pc), &form), base, pc + 1};
    m->op_offset = s.op->offset;
    m->op_code = s.op->opcode;
    m->op_subop = s.op->subop ? (int32_t)s.op->subop : AMDDWARF_NO_OPCODE;
    if (++m->steps > m->ev->max_steps)
      return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u operations executed",
                          (unsigned)m->ev->max_steps);
    op_handler handler = handler_of(s.op->kind);
    amddwarf_status st =
        handler ? handler(m, &s)
                : amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "operation kind %d is not evaluated",
                               (int)s.op->kind);
    /* A DW_OP_call* or frame base may have grown the operation buffer that
       the operation points into: trace the operation fetched again. */
    if (m->trace && st == AMDDWARF_OK)
      trace_op(m, program_op(m, p, pc));
    if (st != AMDDWARF_OK) {
      if (!m->reported)
        amddwarf__machine_fail(m, st, "%s", amddwarf_status_message(st));
      return st;
    }
    if (s.next > p->count)
      return amddwarf__machine_fail(m, AMDDWARF_E_EXPR_BAD_BRANCH, "branch target %zu is past the end",
                          s.next);
    pc = s.next;
  }
  return AMDDWARF_OK;
}

/* ---- entry points ------------------------------------------------------------------ */

/* Whether REQ's struct_size covers FIELD (a field added after the first). */
#define REQUEST_HAS(req, field)                                                       \
  ((req)->struct_size >= offsetof(amddwarf_eval_request, field) + sizeof((req)->field))

/* The state a run starts from: empty stack, parts and pool, no steps
   taken. Restored after the fast path declined (the program being run
   stays loaded and pinned; there are no initial entries). */
static inline void machine_restart(machine *m)
{
  m->sp = 0;
  m->parts_used = 0;
  m->pool_used = 0;
  m->steps = 0;
  m->depth = 0;
}

amddwarf_status amddwarf__machine_begin(amddwarf_eval *ev, const amddwarf_eval_request *req,
                              amddwarf_error *err, machine *m)
{
  machine_restart(m);
  m->wave_size = 0;
  m->ops_used = 0;
  m->in_entry_value = false;
  m->reported = false;
  if (!ev || !req || !req->target ||
      req->struct_size < offsetof(amddwarf_eval_request, trace))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "evaluation needs a context, a request and a target");
  if (req->format.address_size != 4 && req->format.address_size != 8)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "address size %u: the evaluator supports 4 and 8",
                         (unsigned)req->format.address_size);
  if (REQUEST_HAS(req, wave_size) && req->wave_size != 0) {
    if (req->wave_size != 32 && req->wave_size != 64)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                            "wave size %u: a wave has 32 or 64 lanes", (unsigned)req->wave_size);
    m->wave_size = req->wave_size;
  }
  m->ev = ev;
  ev->cache_pinned = 0;
  m->req = req;
  m->t = req->target;
  m->registers_sized_by_target = TARGET_HAS(m->t, register_size);
  m->err = err;
  m->trace = REQUEST_HAS(req, trace_user) ? req->trace : NULL;
  m->op_offset = AMDDWARF_NO_OFFSET;
  m->op_code = AMDDWARF_NO_OPCODE;
  m->op_subop = AMDDWARF_NO_OPCODE;
  m->lane = req->lane;
  if (m->lane == AMDDWARF_NO_LANE) {
    uint32_t lane = 0;
    if (TARGET_HAS(m->t, focused_lane) && m->t->focused_lane(m->t->user, &lane) == AMDDWARF_OK)
      m->lane = lane;
    else
      m->lane = 0;
  }
  for (size_t i = 0; i < req->initial_count; i++) {
    amddwarf_entry *e = amddwarf__stack_push(m);
    if (!e)
      return AMDDWARF_E_LIMIT;
    *e = req->initial[i];
  }
  return AMDDWARF_OK;
}

/* The fast path (fast.c) takes a location request without initial entries
   or tracing. */
static inline bool fast_allowed(const machine *m)
{
  return !m->trace && !m->ev->general_only && m->req->initial_count == 0 &&
         m->req->required == AMDDWARF_RESULT_LOCATION;
}

static amddwarf_status finish(machine *m, amddwarf_entry *result)
{
  amddwarf_status st;
  m->op_offset = AMDDWARF_NO_OFFSET;
  m->op_code = AMDDWARF_NO_OPCODE;
  m->op_subop = AMDDWARF_NO_OPCODE;
  result->incomplete = 0;
  if (m->req->required == AMDDWARF_RESULT_LOCATION) {
    result->kind = AMDDWARF_ENTRY_LOCATION;
    st = result_location(m, 0, &result->location);
    return st == AMDDWARF_E_EVAL_NOT_LOCATION ? machine_restatus(m, AMDDWARF_E_EVAL_RESULT) : st;
  }
  result->kind = AMDDWARF_ENTRY_VALUE;
  if (m->sp == 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_RESULT, "a value is required and the stack is empty");
  st = amddwarf__stack_pop_value(m, 0, &result->value);
  if (st == AMDDWARF_E_EVAL_NOT_VALUE || st == AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE)
    return machine_restatus(m, AMDDWARF_E_EVAL_RESULT);
  return st;
}

/* The plan of the COUNT (at most FAST_PLAN_STEPS) operations at OPS: the
   one compiled last when they are the same operations. */
static const fast_plan *ops_plan(amddwarf_eval *ev, const amddwarf_op *ops, size_t count,
                                 const amddwarf_expr_format *format)
{
  ops_plan_cache *c = &ev->ops_plan;
  bool same = c->count == count && count > 0 && c->format_key == format_key(format);
  for (size_t i = 0; i < count && same; i++)
    same = c->ops[i].kind == ops[i].kind && c->ops[i].operands[0] == ops[i].operands[0] &&
           c->ops[i].operands[1] == ops[i].operands[1];
  if (same)
    return &c->plan;
  amddwarf__fast_compile(ops, count, format, &c->plan);
  c->count = count;
  c->format_key = format_key(format);
  for (size_t i = 0; i < count; i++) {
    c->ops[i].kind = ops[i].kind;
    c->ops[i].operands[0] = ops[i].operands[0];
    c->ops[i].operands[1] = ops[i].operands[1];
  }
  return &c->plan;
}

/* The general machine on P from the start (after the fast path declined,
   when DECLINED) and the result rules. */
static inline amddwarf_status run_general(machine *m, const program *p, bool declined,
                                          amddwarf_entry *result)
{
  if (declined)
    machine_restart(m);
  amddwarf_status st = amddwarf__machine_run(m, p, 0);
  return st == AMDDWARF_OK ? finish(m, result) : st;
}

/* Loads the evaluation's own expression: the slot found last first, inline
   (the common case of one location evaluated for lane after lane), and
   remembers its slot. */
static inline amddwarf_status load_own_program(machine *m, const uint8_t *bytes, size_t size,
                                               program *p)
{
  amddwarf_eval *ev = m->ev;
  if (use_cached(m, ev->cache_last, bytes, size, p))
    return AMDDWARF_OK;
  amddwarf_status st = amddwarf__load_program(m, bytes, size, p);
  if (st == AMDDWARF_OK && p->slot < EVAL_CACHE_ENTRIES)
    ev->cache_last = p->slot;
  return st;
}

amddwarf_status amddwarf_eval_ops(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                  const amddwarf_op *ops, size_t count, amddwarf_entry *result,
                                  amddwarf_error *err)
{
  machine m;
  amddwarf_status st = amddwarf__machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  if (!result || (!ops && count))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no ops or result");
  program p = {ops, 0, count, NULL, EVAL_CACHE_ENTRIES};
  bool fast = fast_allowed(&m) && count <= FAST_PLAN_STEPS;
  if (fast && amddwarf__fast_eval_location(&m, ops_plan(ev, ops, count, &request->format), result))
    return AMDDWARF_OK;
  return run_general(&m, &p, fast, result);
}

amddwarf_status amddwarf_eval_expr(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                   const uint8_t *bytes, size_t size, amddwarf_entry *result,
                                   amddwarf_error *err)
{
  machine m;
  program p;
  amddwarf_status st = amddwarf__machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  if (!result || (!bytes && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no bytes or result");
  if ((st = load_own_program(&m, bytes, size, &p)) != AMDDWARF_OK)
    return st;
  bool fast = p.plan && fast_allowed(&m);
  if (fast && amddwarf__fast_eval_location(&m, p.plan, result))
    return AMDDWARF_OK;
  return run_general(&m, &p, fast, result);
}

amddwarf_status amddwarf_eval_read(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                   const uint8_t *bytes, size_t size, uint64_t bit_offset,
                                   uint64_t bit_size, void *buf, amddwarf_error *err)
{
  machine m;
  program p;
  amddwarf_entry result;
  amddwarf_status st = amddwarf__machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  if ((!bytes && size) || (!buf && bit_size) || request->required != AMDDWARF_RESULT_LOCATION)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_eval_read needs bytes, a buffer and a location request");
  if ((st = load_own_program(&m, bytes, size, &p)) != AMDDWARF_OK)
    return st;
  bool fast = p.plan && fast_allowed(&m);
  fast_outcome outcome = FAST_DECLINED;
  if (fast)
    outcome = amddwarf__fast_eval_read(&m, p.plan, bit_offset, bit_size, buf, &result);
  if (outcome == FAST_READ) /* whole bytes only */
    return AMDDWARF_OK;
  if (outcome == FAST_DECLINED && (st = run_general(&m, &p, fast, &result)) != AMDDWARF_OK)
    return st;
  /* The read, as amddwarf_location_read makes it on a machine of its own. */
  m.reported = false;
  m.depth = 0;
  m.in_entry_value = false;
  return machine_read(&m, &result.location, bit_offset, bit_size, buf);
}
