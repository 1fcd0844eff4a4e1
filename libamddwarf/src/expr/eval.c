/* The DWARF stack machine of the seed spec ("Expressions" through "Composite
 * Location Descriptions"): values and location descriptions on one stack,
 * DW_OP_call* frames, the result rules, and the context that holds it all
 * with fixed capacities. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "expr/eval_internal.h"

amddwarf_status machine_fail(machine *m, amddwarf_status status, const char *format, ...)
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

static amddwarf_status need(machine *m, uint32_t base, uint32_t n)
{
  if (m->sp - base < n)
    return machine_fail(m, AMDDWARF_E_EVAL_STACK_UNDERFLOW,
                        "the operation needs %u stack entries, the stack has %u", (unsigned)n,
                        (unsigned)(m->sp - base));
  return AMDDWARF_OK;
}

static amddwarf_entry *push(machine *m)
{
  if (m->sp >= m->ev->stack_cap) {
    machine_fail(m, AMDDWARF_E_LIMIT, "the stack would exceed %u entries",
                 (unsigned)m->ev->stack_cap);
    return NULL;
  }
  amddwarf_entry *e = &m->ev->stack[m->sp++];
  e->incomplete = 0;
  return e;
}

static amddwarf_entry *top(machine *m, uint32_t index)
{
  return &m->ev->stack[m->sp - 1 - index];
}

static amddwarf_status push_value(machine *m, const amddwarf_value *v)
{
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_VALUE;
  e->value = *v;
  return AMDDWARF_OK;
}

static amddwarf_status push_generic(machine *m, uint64_t x)
{
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_VALUE;
  value_set_generic(m, &e->value, x);
  return AMDDWARF_OK;
}

static amddwarf_status push_location(machine *m, const amddwarf_location *loc)
{
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_LOCATION;
  e->location = *loc;
  return AMDDWARF_OK;
}

/* Locations are built field by field (no memset, then a copy): the stack
   entry is written once. Union bytes beyond the kind's member are unused. */
static inline void memory_location(amddwarf_location *loc, uint32_t aspace, uint64_t address)
{
  loc->kind = AMDDWARF_LOCATION_MEMORY;
  loc->bit = 0;
  loc->byte_offset = address;
  loc->u.memory.aspace = aspace;
}

static amddwarf_status push_memory(machine *m, uint32_t aspace, uint64_t address)
{
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_LOCATION;
  memory_location(&e->location, aspace, address);
  return AMDDWARF_OK;
}

static amddwarf_status push_register(machine *m, uint32_t regno)
{
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_LOCATION;
  e->location.kind = AMDDWARF_LOCATION_REGISTER;
  e->location.bit = 0;
  e->location.byte_offset = 0;
  e->location.u.reg.regno = regno;
  return AMDDWARF_OK;
}

static amddwarf_status resolve_implicit_pointer(machine *m, const amddwarf_location *ip,
                                                amddwarf_location *out);

/* Pops the top entry as a value (location -> generic value when it is a
   default-space memory location on a byte boundary). */
static amddwarf_status pop_value(machine *m, uint32_t base, amddwarf_value *out)
{
  amddwarf_status st = need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_VALUE) {
    *out = e->value;
    m->sp--;
    return AMDDWARF_OK;
  }
  if (e->incomplete)
    return machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                        "an incomplete composite is used as a value");
  if (e->location.kind == AMDDWARF_LOCATION_MEMORY &&
      e->location.u.memory.aspace == AMDDWARF_ASPACE_NONE && e->location.bit == 0 &&
      (machine_generic_bits(m) >= 64 || e->location.byte_offset <= bits_mask(machine_generic_bits(m)))) {
    uint64_t address = e->location.byte_offset;
    m->sp--;
    value_set_generic(m, out, address);
    return AMDDWARF_OK;
  }
  return machine_fail(m, AMDDWARF_E_EVAL_NOT_VALUE, "a %s location description is not a value",
                      amddwarf_location_kind_name(e->location.kind));
}

static amddwarf_status pop_integral(machine *m, uint32_t base, amddwarf_value *out)
{
  amddwarf_status st = pop_value(m, base, out);
  if (st != AMDDWARF_OK)
    return st;
  if (out->is_implicit_pointer)
    return machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "an implicit pointer value is used as an integer");
  if (!type_is_integral(&out->type))
    return machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL, "a %s value is not integral",
                        amddwarf_encoding_name(out->type.encoding));
  return AMDDWARF_OK;
}

static int64_t integral_signed(const amddwarf_value *v);

/* The top entry as a generic value, if it is one (the common case, taken
   without copying the entry). */
static inline bool top_is_generic(machine *m, uint32_t base, uint32_t index)
{
  if (m->sp - base <= index)
    return false;
  const amddwarf_entry *e = top(m, index);
  return e->kind == AMDDWARF_ENTRY_VALUE && e->value.type.encoding == AMDDWARF_ATE_GENERIC &&
         e->value.type.die == 0 && !e->value.is_implicit_pointer && !e->value.pooled;
}

static inline uint64_t generic_u64(const amddwarf_entry *e)
{
  const uint8_t *b = e->value.inline_bytes;
  return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
         (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
         (uint64_t)b[7] << 56;
}

static inline void generic_set(machine *m, amddwarf_entry *e, uint64_t x)
{
  x &= bits_mask(machine_generic_bits(m));
  for (unsigned i = 0; i < 8; i++)
    e->value.inline_bytes[i] = (uint8_t)(x >> (8 * i));
}

/* Pops an integral value as (unsigned, signed) 64-bit numbers. */
static amddwarf_status pop_integral_u64(machine *m, uint32_t base, uint64_t *x, int64_t *sx)
{
  if (top_is_generic(m, base, 0)) {
    *x = generic_u64(top(m, 0));
    uint32_t bits = machine_generic_bits(m);
    uint64_t v = *x;
    if (bits < 64 && (v >> (bits - 1)) & 1)
      v |= ~bits_mask(bits);
    *sx = (int64_t)v;
    m->sp--;
    return AMDDWARF_OK;
  }
  amddwarf_value a;
  amddwarf_status st = pop_integral(m, base, &a);
  if (st != AMDDWARF_OK)
    return st;
  *x = value_u64(&a);
  *sx = integral_signed(&a);
  return AMDDWARF_OK;
}

/* Signed reading of an integral value (generic is two's complement). */
static int64_t integral_signed(const amddwarf_value *v)
{
  amddwarf_value s = *v;
  if (s.type.encoding != AMDDWARF_ATE_SIGNED && s.type.encoding != AMDDWARF_ATE_SIGNED_CHAR)
    s.type.encoding = AMDDWARF_ATE_SIGNED;
  return value_s64(&s);
}

/* Converts ENTRY (already popped) to a location description. */
static amddwarf_status entry_to_location(machine *m, const amddwarf_entry *e,
                                         amddwarf_location *out)
{
  if (e->kind == AMDDWARF_ENTRY_LOCATION) {
    if (e->incomplete)
      return machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                          "an incomplete composite is used as a location description");
    *out = e->location;
    return AMDDWARF_OK;
  }
  const amddwarf_value *v = &e->value;
  if (v->is_implicit_pointer) {
    if (v->pointer.u.implicit_pointer.aspace != AMDDWARF_ASPACE_NONE)
      return machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "an implicit pointer value of address space %u converts to a location only through DW_OP_LLVM_form_aspace_address",
                          (unsigned)v->pointer.u.implicit_pointer.aspace);
    amddwarf_location ip = v->pointer; /* V may sit in a popped stack slot */
    return resolve_implicit_pointer(m, &ip, out);
  }
  if (v->type.encoding == AMDDWARF_ATE_GENERIC && v->type.die == 0) {
    memory_location(out, AMDDWARF_ASPACE_NONE, value_u64(v));
    return AMDDWARF_OK;
  }
  return machine_fail(m, AMDDWARF_E_EVAL_NOT_LOCATION,
                      "a %s value (DIE 0x%llx) is not a location description",
                      amddwarf_encoding_name(v->type.encoding), (unsigned long long)v->type.die);
}

static amddwarf_status pop_location(machine *m, uint32_t base, amddwarf_location *out)
{
  amddwarf_status st = need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_LOCATION && !e->incomplete) {
    *out = e->location;
    m->sp--;
    return AMDDWARF_OK;
  }
  m->sp--;
  /* The popped slot stays intact until the next push. */
  return entry_to_location(m, e, out);
}

/* ---- nested expressions ------------------------------------------------------ */

static amddwarf_status run(machine *m, const program *p, uint32_t base);

amddwarf_status load_program(machine *m, const uint8_t *bytes, size_t size, program *p)
{
  amddwarf_eval *ev = m->ev;
  size_t needed;
  if (amddwarf_add_overflow_size(m->ops_used, size, &needed) || needed > ev->ops_max)
    return machine_fail(m, AMDDWARF_E_LIMIT, "expressions of this evaluation exceed %zu operations",
                        ev->ops_max);
  if (needed > ev->ops_cap) {
    size_t cap = ev->ops_cap;
    void *items = ev->ops;
    if (amddwarf_mem_reserve(&ev->alloc, &items, &cap, needed, sizeof *ev->ops) != 0)
      return machine_fail(m, AMDDWARF_E_NO_MEMORY, "out of memory for operations");
    ev->ops = items;
    ev->ops_cap = cap;
  }
  /* Decoded expressions are cached by address and content: a debugger
     evaluates the same location for every lane. */
  if (size <= EVAL_CACHE_BYTES) {
    for (unsigned i = 0; i < EVAL_CACHE_ENTRIES; i++) {
      const eval_cache_entry *c = &ev->cache[i];
      if (c->bytes == bytes && c->size == size && c->bytes &&
          c->format.dialect == m->req->format.dialect &&
          c->format.address_size == m->req->format.address_size &&
          c->format.offset_size == m->req->format.offset_size &&
          c->format.version == m->req->format.version && memcmp(c->copy, bytes, size) == 0) {
        /* Pinned until the evaluation ends, so that a nested expression
           cannot reuse the slot while this one runs. */
        ev->cache_pinned |= 1u << i;
        p->external = c->ops;
        p->first = 0;
        p->count = c->count;
        return AMDDWARF_OK;
      }
    }
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
  p->external = NULL;
  p->first = m->ops_used;
  p->count = count;
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
    c->bytes = bytes;
    c->size = size;
    c->format = m->req->format;
    memcpy(c->copy, bytes, size);
    memcpy(c->ops, ev->ops + m->ops_used, count * sizeof *c->ops);
    c->count = count;
  }
  m->ops_used += count;
  return AMDDWARF_OK;
}

typedef struct saved_op {
  uint64_t offset;
  int32_t code, subop;
} saved_op;

static saved_op save_op(const machine *m)
{
  saved_op s = {m->op_offset, m->op_code, m->op_subop};
  return s;
}

static void restore_op(machine *m, saved_op s)
{
  m->op_offset = s.offset;
  m->op_code = s.code;
  m->op_subop = s.subop;
}

/* Evaluates BYTES on a stack frame of its own and returns its location
   result (the rule "a location description is required"). */
static amddwarf_status eval_own_frame(machine *m, const uint8_t *bytes, size_t size,
                                      const char *what, amddwarf_location *out)
{
  saved_op s = save_op(m);
  uint32_t base = m->sp;
  program p;
  if (m->depth >= m->ev->max_call_depth)
    return machine_fail(m, AMDDWARF_E_LIMIT, "%s: more than %u nested evaluations", what,
                        (unsigned)m->ev->max_call_depth);
  amddwarf_status st = load_program(m, bytes, size, &p);
  if (st != AMDDWARF_OK)
    return st;
  m->depth++;
  st = run(m, &p, base);
  m->depth--;
  if (st != AMDDWARF_OK)
    return st;
  restore_op(m, s);
  if (m->sp == base) {
    memset(out, 0, sizeof *out);
    out->kind = AMDDWARF_LOCATION_UNDEFINED;
  } else {
    amddwarf_entry e = *top(m, 0);
    e.incomplete = 0; /* an incomplete composite left on top is complete now */
    st = entry_to_location(m, &e, out);
    if (st != AMDDWARF_OK)
      return st;
  }
  m->sp = base;
  return AMDDWARF_OK;
}

static amddwarf_status lookup_die(machine *m, amddwarf_die_ref_kind kind, uint64_t ref,
                                  amddwarf_die *die)
{
  if (!TARGET_HAS(m->t, die))
    return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target cannot look up DIE 0x%llx",
                        (unsigned long long)ref);
  memset(die, 0, sizeof *die);
  amddwarf_status st = m->t->die(m->t->user, kind, ref, die);
  if (st == AMDDWARF_NOT_FOUND)
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_DIE, "there is no DIE at 0x%llx",
                        (unsigned long long)ref);
  if (st != AMDDWARF_OK)
    return machine_fail(m, st, "DIE 0x%llx: %s", (unsigned long long)ref,
                        amddwarf_status_message(st));
  return AMDDWARF_OK;
}

static amddwarf_status resolve_implicit_pointer(machine *m, const amddwarf_location *ip,
                                                amddwarf_location *out)
{
  amddwarf_die die;
  amddwarf_status st = lookup_die(m, AMDDWARF_DIE_REF_SECTION, ip->u.implicit_pointer.die, &die);
  if (st != AMDDWARF_OK)
    return st;
  if (die.value == AMDDWARF_DIE_LOCATION) {
    st = eval_own_frame(m, die.bytes, die.size, "implicit pointer target", out);
    if (st != AMDDWARF_OK)
      return st;
  } else if (die.value == AMDDWARF_DIE_CONST_VALUE) {
    uint8_t *copy = pool_alloc(m, die.size);
    if (!copy && die.size)
      return AMDDWARF_E_LIMIT;
    if (die.size)
      memcpy(copy, die.bytes, die.size);
    memset(out, 0, sizeof *out);
    out->kind = AMDDWARF_LOCATION_IMPLICIT;
    out->u.implicit.bytes = copy;
    out->u.implicit.bit_size = (uint64_t)die.size * 8;
  } else {
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_DIE,
                        "implicit pointer target DIE 0x%llx has neither DW_AT_location nor DW_AT_const_value",
                        (unsigned long long)ip->u.implicit_pointer.die);
  }
  return loc_add_bytes(m, out, ip->u.implicit_pointer.displacement);
}

/* ---- operations with more logic ------------------------------------------------ */

/* DW_OP_deref*: reads BITS bits at LOC as a value of TYPE, with the implicit
   pointer rules. */
static amddwarf_status deref(machine *m, const amddwarf_location *loc, uint32_t bits,
                             const amddwarf_base_type *type, bool zero_extend_to_type)
{
  const amddwarf_location *ip = NULL;
  if (loc->kind == AMDDWARF_LOCATION_IMPLICIT_POINTER) {
    if (loc->byte_offset == 0 && loc->bit == 0 && bits == loc->u.implicit_pointer.bit_size)
      ip = loc;
    else
      return machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "implicit pointer storage is dereferenced partially (%u bits)",
                          (unsigned)bits);
  } else if (loc->kind == AMDDWARF_LOCATION_COMPOSITE) {
    uint64_t off, pos = 0;
    if (loc_bit_offset(loc, &off)) {
      for (uint32_t i = 0; i < loc->u.composite.count; i++) {
        const amddwarf_composite_part *p = &loc->u.composite.parts[i];
        if (off < pos + p->bit_size) {
          if (p->location.kind == AMDDWARF_LOCATION_IMPLICIT_POINTER && off == pos &&
              p->bit_size == p->location.u.implicit_pointer.bit_size &&
              bits == p->bit_size && p->location.byte_offset == 0 && p->location.bit == 0)
            ip = &p->location;
          break;
        }
        pos += p->bit_size;
      }
    }
  }
  if (ip) {
    amddwarf_value v;
    memset(&v, 0, sizeof v);
    v.is_implicit_pointer = 1;
    v.pointer = *ip;
    if (ip->u.implicit_pointer.aspace == AMDDWARF_ASPACE_NONE) {
      v.type.bit_size = machine_generic_bits(m);
    } else {
      v.type.encoding = AMDDWARF_ATE_UNSIGNED;
      v.type.bit_size = ip->u.implicit_pointer.bit_size;
    }
    v.type.count = 1;
    return push_value(m, &v);
  }
  uint8_t buf[AMDDWARF_VALUE_MAX_BYTES];
  size_t size = zero_extend_to_type ? ((size_t)type->bit_size * type->count + 7) / 8 : (bits + 7) / 8;
  memset(buf, 0, size > (bits + 7) / 8 ? size : (bits + 7) / 8);
  amddwarf_status st = access_read(m, loc, 0, bits, buf, 0);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_VALUE;
  st = value_from_bytes(m, &e->value, type, buf, size);
  if (st != AMDDWARF_OK)
    m->sp--;
  return st;
}

/* Reads register REGNO's first bytes as an unsigned number (breg*). */
static amddwarf_status register_number(machine *m, uint32_t regno, unsigned max_bytes,
                                       uint64_t *out)
{
  uint64_t size;
  amddwarf_status st = register_bytes(m, regno, &size);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_location reg;
  memset(&reg, 0, sizeof reg);
  reg.kind = AMDDWARF_LOCATION_REGISTER;
  reg.u.reg.regno = regno;
  uint8_t buf[8] = {0};
  uint64_t n = size < max_bytes ? size : max_bytes;
  st = access_read(m, &reg, 0, n * 8, buf, 0);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t x = 0;
  for (unsigned i = 0; i < 8; i++)
    x |= (uint64_t)buf[i] << (8 * i);
  *out = x;
  return AMDDWARF_OK;
}

static amddwarf_status breg(machine *m, uint32_t regno, int64_t disp, uint32_t aspace)
{
  unsigned n = aspace_address_bytes(m, aspace);
  uint64_t x;
  if (n == 0)
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                        "address space %u is not one of DW_ASPACE_*", (unsigned)aspace);
  amddwarf_status st = register_number(m, regno, 8, &x);
  if (st != AMDDWARF_OK)
    return st;
  return push_memory(m, aspace, (x + (uint64_t)disp) & bits_mask(n * 8));
}

static amddwarf_status form_aspace_address(machine *m, uint32_t base, uint64_t as_value)
{
  uint32_t aspace;
  if (as_value > UINT32_MAX || amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, as_value, &aspace) != AMDDWARF_OK)
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                        "%llu is not one of the DW_ASPACE_* values", (unsigned long long)as_value);
  amddwarf_status st = need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_VALUE && e->value.is_implicit_pointer) {
    amddwarf_location ip = e->value.pointer, out;
    if (ip.u.implicit_pointer.aspace != aspace)
      return machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "an implicit pointer value of address space %u used with address space %u",
                          (unsigned)ip.u.implicit_pointer.aspace, (unsigned)aspace);
    m->sp--;
    st = resolve_implicit_pointer(m, &ip, &out);
    if (st != AMDDWARF_OK)
      return st;
    return push_location(m, &out);
  }
  uint64_t address;
  int64_t signed_address;
  st = pop_integral_u64(m, base, &address, &signed_address);
  if (st != AMDDWARF_OK)
    return st;
  return push_memory(m, aspace, address & bits_mask(aspace_address_bytes(m, aspace) * 8));
}

/* DW_OP_xderef*: A on top, AS below; as swap; form_aspace_address. */
static amddwarf_status xderef_location(machine *m, uint32_t base, amddwarf_location *out)
{
  amddwarf_value a, as;
  amddwarf_status st = pop_integral(m, base, &a);
  if (st == AMDDWARF_OK)
    st = pop_integral(m, base, &as);
  if (st != AMDDWARF_OK)
    return st;
  uint32_t aspace;
  if (amddwarf_aspace_from_xderef(m->req->xderef, value_u64(&as), &aspace) != AMDDWARF_OK)
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                        "%llu is not an address space in the %s numbering",
                        (unsigned long long)value_u64(&as),
                        m->req->xderef == AMDDWARF_XDEREF_LEGACY ? "legacy" : "DW_ASPACE");
  memory_location(out, aspace, value_u64(&a) & bits_mask(aspace_address_bytes(m, aspace) * 8));
  return AMDDWARF_OK;
}

/* DW_OP_piece / DW_OP_bit_piece. */
static amddwarf_status piece(machine *m, uint32_t base, uint64_t bits, uint64_t displacement)
{
  amddwarf_location pl;
  amddwarf_status st;
  if (m->sp == base || top(m, 0)->incomplete) {
    memset(&pl, 0, sizeof pl);
    pl.kind = AMDDWARF_LOCATION_UNDEFINED;
  } else {
    amddwarf_entry *e = top(m, 0);
    m->sp--;
    if (e->kind == AMDDWARF_ENTRY_LOCATION)
      pl = e->location;
    st = e->kind == AMDDWARF_ENTRY_LOCATION ? AMDDWARF_OK : entry_to_location(m, e, &pl);
    if (st != AMDDWARF_OK) {
      if (st == AMDDWARF_E_EVAL_NOT_LOCATION && m->err)
        m->err->status = AMDDWARF_E_EVAL_BAD_PIECE;
      return st == AMDDWARF_E_EVAL_NOT_LOCATION ? AMDDWARF_E_EVAL_BAD_PIECE : st;
    }
    if (displacement) {
      if (displacement > INT64_MAX)
        return machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, "bit displacement too large");
      st = loc_add_bits(m, &pl, (int64_t)displacement);
      if (st != AMDDWARF_OK)
        return st;
    }
  }
  amddwarf_entry *c;
  if (m->sp > base && top(m, 0)->incomplete) {
    c = top(m, 0);
  } else {
    c = push(m);
    if (!c)
      return AMDDWARF_E_LIMIT;
    c->kind = AMDDWARF_ENTRY_LOCATION;
    c->incomplete = 1;
    composite_begin(m, &c->location);
  }
  return composite_append(m, &c->location, &pl, bits);
}

static amddwarf_status extend(machine *m, uint32_t base, uint64_t bits, uint64_t count)
{
  amddwarf_location pl, c;
  uint64_t total;
  if (bits == 0 || count == 0)
    return machine_fail(m, AMDDWARF_E_EVAL_ZERO_SIZE, "DW_OP_LLVM_extend %llu, %llu",
                        (unsigned long long)bits, (unsigned long long)count);
  amddwarf_status st = pop_location(m, base, &pl);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf_mul_overflow_u64(bits, count, &total))
    return machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "%llu x %llu bits",
                        (unsigned long long)count, (unsigned long long)bits);
  composite_begin(m, &c);
  if (pl.kind == AMDDWARF_LOCATION_UNDEFINED) {
    st = composite_append(m, &c, &pl, total);
  } else {
    for (uint64_t i = 0; i < count && st == AMDDWARF_OK; i++) {
      if (++m->steps > m->ev->max_steps)
        return machine_fail(m, AMDDWARF_E_LIMIT, "more than %u steps", (unsigned)m->ev->max_steps);
      st = composite_append(m, &c, &pl, bits);
    }
  }
  if (st != AMDDWARF_OK)
    return st;
  return push_location(m, &c);
}

/* Parts FIRST..END-1 of a select_bit_piece, all from FROM: part N is FROM
   moved by N * BITS. Contiguous parts of one storage merge, so when the
   whole run lies in FROM's storage it is one append; otherwise part by part,
   so that the failing part is the one reported. */
static amddwarf_status select_run(machine *m, amddwarf_location *c, const amddwarf_location *from,
                                  uint64_t bits, uint64_t first, uint64_t end)
{
  amddwarf_location start = *from, last = *from;
  amddwarf_error *err = m->err;
  m->err = NULL; /* probing the bounds, nothing to report */
  bool whole = m->steps + (end - first) <= m->ev->max_steps &&
               loc_add_bits(m, &start, (int64_t)(first * bits)) == AMDDWARF_OK &&
               loc_add_bits(m, &last, (int64_t)(end * bits - 1)) == AMDDWARF_OK;
  m->err = err;
  if (whole) {
    m->steps += end - first;
    return composite_append(m, c, &start, (end - first) * bits);
  }
  for (uint64_t n = first; n < end; n++) {
    if (++m->steps > m->ev->max_steps)
      return machine_fail(m, AMDDWARF_E_LIMIT, "more than %u steps", (unsigned)m->ev->max_steps);
    amddwarf_location pl = *from;
    amddwarf_status st = loc_add_bits(m, &pl, (int64_t)(n * bits));
    if (st == AMDDWARF_OK)
      st = composite_append(m, c, &pl, bits);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status select_composite(machine *m, const amddwarf_location *l0,
                                 const amddwarf_location *l1, const uint8_t *mask, uint64_t bits,
                                 uint64_t count, amddwarf_location *out)
{
  uint64_t total;
  if (amddwarf_mul_overflow_u64(bits, count, &total) || total > INT64_MAX)
    return machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "%llu x %llu bits",
                        (unsigned long long)count, (unsigned long long)bits);
  composite_begin(m, out);
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

static amddwarf_status select_bit_piece(machine *m, uint32_t base, uint64_t bits, uint64_t count)
{
  amddwarf_value mask;
  amddwarf_location l1, l0, c;
  if (bits == 0 || count == 0)
    return machine_fail(m, AMDDWARF_E_EVAL_ZERO_SIZE, "DW_OP_LLVM_select_bit_piece %llu, %llu",
                        (unsigned long long)bits, (unsigned long long)count);
  amddwarf_status st = pop_integral(m, base, &mask);
  if (st == AMDDWARF_OK)
    st = pop_location(m, base, &l1);
  if (st == AMDDWARF_OK)
    st = pop_location(m, base, &l0);
  if (st != AMDDWARF_OK)
    return st;
  if ((uint64_t)mask.type.bit_size * mask.type.count < count)
    return machine_fail(m, AMDDWARF_E_EVAL_MASK_TOO_SMALL,
                        "a %u-bit mask selects %llu parts", (unsigned)mask.type.bit_size,
                        (unsigned long long)count);
  st = select_composite(m, &l0, &l1, amddwarf_value_bytes(&mask), bits, count, &c);
  if (st != AMDDWARF_OK)
    return st;
  return push_location(m, &c);
}

static amddwarf_status call(machine *m, uint32_t base, amddwarf_die_ref_kind kind, uint64_t ref)
{
  amddwarf_die die;
  amddwarf_status st = lookup_die(m, kind, ref, &die);
  if (st != AMDDWARF_OK)
    return st;
  const uint8_t *bytes = die.value == AMDDWARF_DIE_LOCATION ? die.bytes : NULL;
  size_t size = die.value == AMDDWARF_DIE_LOCATION ? die.size : 0;
  if (die.is_dwarf_procedure) {
    program p;
    saved_op s = save_op(m);
    if (m->depth >= m->ev->max_call_depth)
      return machine_fail(m, AMDDWARF_E_LIMIT, "more than %u nested DW_OP_call*",
                          (unsigned)m->ev->max_call_depth);
    st = load_program(m, bytes, size, &p);
    if (st != AMDDWARF_OK)
      return st;
    m->depth++;
    st = run(m, &p, base);
    m->depth--;
    if (st == AMDDWARF_OK)
      restore_op(m, s);
    return st;
  }
  amddwarf_location loc;
  st = eval_own_frame(m, bytes, size, "DW_OP_call*", &loc);
  if (st != AMDDWARF_OK)
    return st;
  return push_location(m, &loc);
}

static amddwarf_status frame_base(machine *m, int64_t disp)
{
  const uint8_t *bytes = NULL;
  size_t size = 0;
  amddwarf_location loc;
  if (!TARGET_HAS(m->t, frame_base))
    return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no frame base");
  amddwarf_status st = m->t->frame_base(m->t->user, &bytes, &size);
  if (st != AMDDWARF_OK)
    return machine_fail(m, st, "frame base: %s", amddwarf_status_message(st));
  st = eval_own_frame(m, bytes, size, "DW_AT_frame_base", &loc);
  if (st != AMDDWARF_OK)
    return st;
  if (loc.kind == AMDDWARF_LOCATION_REGISTER) {
    /* The register-location rule: DW_OP_deref gives a default-space address.
       A register narrower than the generic type is read whole, zero-extended. */
    uint64_t x, rbytes;
    st = register_bytes(m, loc.u.reg.regno, &rbytes);
    if (st != AMDDWARF_OK)
      return st;
    uint64_t want = machine_generic_bits(m) / 8;
    if (loc.byte_offset != 0 || loc.bit != 0)
      return machine_fail(m, AMDDWARF_E_EVAL_FRAME_BASE, "frame base register location has a bit offset");
    st = register_number(m, loc.u.reg.regno, (unsigned)(rbytes < want ? rbytes : want), &x);
    if (st != AMDDWARF_OK)
      return st;
    memory_location(&loc, AMDDWARF_ASPACE_NONE, x & bits_mask(machine_generic_bits(m)));
  } else if (loc.kind != AMDDWARF_LOCATION_MEMORY) {
    return machine_fail(m, AMDDWARF_E_EVAL_FRAME_BASE, "the frame base is a %s location description",
                        amddwarf_location_kind_name(loc.kind));
  }
  st = loc_add_bytes(m, &loc, disp);
  if (st != AMDDWARF_OK)
    return st;
  return push_location(m, &loc);
}

static amddwarf_status entry_value(machine *m, const uint8_t *bytes, size_t size)
{
  saved_op s = save_op(m);
  uint32_t base = m->sp;
  bool was = m->in_entry_value;
  program p;
  amddwarf_status st;
  if (m->depth >= m->ev->max_call_depth)
    return machine_fail(m, AMDDWARF_E_LIMIT, "DW_OP_entry_value nested too deeply");
  st = load_program(m, bytes, size, &p);
  if (st != AMDDWARF_OK)
    return st;
  m->depth++;
  m->in_entry_value = true;
  st = run(m, &p, base);
  m->in_entry_value = was;
  m->depth--;
  if (st != AMDDWARF_OK)
    return st;
  restore_op(m, s);
  if (m->sp - base != 1)
    return machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE,
                        "the DW_OP_entry_value expression leaves %u entries, not one",
                        (unsigned)(m->sp - base));
  amddwarf_entry *e = top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_LOCATION && e->location.kind == AMDDWARF_LOCATION_REGISTER &&
      !e->incomplete) {
    uint32_t regno = e->location.u.reg.regno;
    uint64_t rbytes;
    if (e->location.byte_offset || e->location.bit)
      return machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE,
                          "the entry register location has a bit offset");
    st = register_bytes(m, regno, &rbytes);
    if (st != AMDDWARF_OK)
      return st;
    if (rbytes > 8)
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED,
                          "entry values of %llu-byte registers", (unsigned long long)rbytes);
    if (!TARGET_HAS(m->t, read_entry_register))
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no entry register values");
    uint8_t buf[8] = {0};
    st = m->t->read_entry_register(m->t->user, regno, 0, rbytes, buf);
    if (m->trace)
      machine_trace_access(m, AMDDWARF_TRACE_READ_ENTRY_REGISTER, regno, 0, AMDDWARF_NO_LANE, 0,
                           rbytes, buf, st);
    if (st != AMDDWARF_OK)
      return machine_fail(m, st, "entry value of register %u: %s", (unsigned)regno,
                          amddwarf_status_message(st));
    amddwarf_base_type type;
    memset(&type, 0, sizeof type);
    type.count = 1;
    type.bit_size = (uint32_t)rbytes * 8;
    if (type.bit_size != machine_generic_bits(m))
      type.encoding = AMDDWARF_ATE_UNSIGNED;
    m->sp = base;
    amddwarf_value v;
    st = value_from_bytes(m, &v, &type, buf, (size_t)rbytes);
    if (st != AMDDWARF_OK)
      return st;
    return push_value(m, &v);
  }
  if (e->kind == AMDDWARF_ENTRY_LOCATION && e->location.kind == AMDDWARF_LOCATION_UNDEFINED)
    return machine_fail(m, AMDDWARF_E_EVAL_ENTRY_VALUE, "the entry value is undefined");
  amddwarf_value v;
  st = pop_value(m, base, &v);
  if (st == AMDDWARF_E_EVAL_NOT_VALUE || st == AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE) {
    if (m->err)
      m->err->status = AMDDWARF_E_EVAL_ENTRY_VALUE;
    return AMDDWARF_E_EVAL_ENTRY_VALUE;
  }
  if (st != AMDDWARF_OK)
    return st;
  return push_value(m, &v);
}

static amddwarf_status target_address(machine *m, const char *what,
                                      amddwarf_status (*fn)(void *, uint32_t *, uint64_t *))
{
  uint32_t aspace = 0;
  uint64_t address = 0;
  if (!fn)
    return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no %s", what);
  amddwarf_status st = fn(m->t->user, &aspace, &address);
  if (st != AMDDWARF_OK)
    return machine_fail(m, st, "%s: %s", what, amddwarf_status_message(st));
  if (aspace_address_bytes(m, aspace) == 0)
    return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, "%s in address space %u", what,
                        (unsigned)aspace);
  amddwarf_location loc;
  memory_location(&loc, aspace, address);
  return push_location(m, &loc);
}

/* DW_OP_dup, DW_OP_over and DW_OP_pick push a copy of the entry I down the
   stack: a copy of an incomplete composite is ill-formed (the seed's "Stack
   Operations": both copies would specify one composite storage that either
   could extend). DW_OP_swap, DW_OP_rot and DW_OP_drop copy nothing and accept
   one (specs/evaluator.md). */
static amddwarf_status push_copy(machine *m, uint32_t base, uint32_t i)
{
  amddwarf_status st = need(m, base, i + 1);
  if (st != AMDDWARF_OK)
    return st;
  if (top(m, i)->incomplete)
    return machine_fail(m, AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE,
                        "a stack operation copies an incomplete composite");
  amddwarf_entry e = *top(m, i);
  amddwarf_entry *n = push(m);
  if (!n)
    return AMDDWARF_E_LIMIT;
  *n = e;
  return AMDDWARF_OK;
}

/* ---- the machine ------------------------------------------------------------------ */

static amddwarf_status step(machine *m, const program *p, const amddwarf_op *op, uint32_t base,
                            size_t *next)
{
  amddwarf_status st = AMDDWARF_OK;
  amddwarf_value a, b, r;
  amddwarf_location loc;
  amddwarf_base_type type;
  amddwarf_op_kind kind = op->kind;

  if (kind >= AMDDWARF_OP_lit0 && kind <= AMDDWARF_OP_lit31)
    return push_generic(m, (uint64_t)(kind - AMDDWARF_OP_lit0));
  if (kind >= AMDDWARF_OP_reg0 && kind <= AMDDWARF_OP_reg31)
    return push_register(m, (uint32_t)(kind - AMDDWARF_OP_reg0));
  if (kind >= AMDDWARF_OP_breg0 && kind <= AMDDWARF_OP_breg31)
    return breg(m, (uint32_t)(kind - AMDDWARF_OP_breg0), (int64_t)op->operands[0],
                AMDDWARF_ASPACE_NONE);

  switch (kind) {
  case AMDDWARF_OP_nop:
  case AMDDWARF_OP_LLVM_nop:
  case AMDDWARF_OP_GNU_uninit:
    return AMDDWARF_OK;
  /* Literals. */
  case AMDDWARF_OP_const1u: case AMDDWARF_OP_const2u: case AMDDWARF_OP_const4u:
  case AMDDWARF_OP_const8u: case AMDDWARF_OP_constu: case AMDDWARF_OP_const1s:
  case AMDDWARF_OP_const2s: case AMDDWARF_OP_const4s: case AMDDWARF_OP_const8s:
  case AMDDWARF_OP_consts:
    return push_generic(m, op->operands[0]);
  case AMDDWARF_OP_addr:
    return push_memory(m, AMDDWARF_ASPACE_NONE, op->operands[0]);
  case AMDDWARF_OP_GNU_encoded_addr:
    if ((op->operands[0] & 0x70) != 0)
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED,
                          "DW_OP_GNU_encoded_addr with a relative encoding 0x%02x",
                          (unsigned)op->operands[0]);
    memory_location(&loc, AMDDWARF_ASPACE_NONE, op->operands[1]);
    return push_location(m, &loc);
  case AMDDWARF_OP_addrx: case AMDDWARF_OP_GNU_addr_index:
  case AMDDWARF_OP_constx: case AMDDWARF_OP_GNU_const_index: {
    uint64_t x;
    amddwarf_error why;
    amddwarf_error_clear(&why);
    if (TARGET_HAS(m->t, address_index_err))
      st = m->t->address_index_err(m->t->user, op->operands[0], &x, &why);
    else if (TARGET_HAS(m->t, address_index))
      st = m->t->address_index(m->t->user, op->operands[0], &x);
    else
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no .debug_addr");
    if (st != AMDDWARF_OK && why.message[0] != '\0')
      return machine_fail(m, st, "%s", why.message);
    if (st != AMDDWARF_OK)
      return machine_fail(m, st, ".debug_addr entry %llu: %s", (unsigned long long)op->operands[0],
                          amddwarf_status_message(st));
    if (kind == AMDDWARF_OP_constx || kind == AMDDWARF_OP_GNU_const_index)
      return push_generic(m, x);
    memory_location(&loc, AMDDWARF_ASPACE_NONE, x);
    return push_location(m, &loc);
  }
  /* Stack operations. */
  case AMDDWARF_OP_dup:
    return push_copy(m, base, 0);
  case AMDDWARF_OP_over:
    return push_copy(m, base, 1);
  case AMDDWARF_OP_pick: /* a 1-byte index */
    return push_copy(m, base, (uint32_t)op->operands[0]);
  case AMDDWARF_OP_drop:
    if ((st = need(m, base, 1)) != AMDDWARF_OK)
      return st;
    m->sp--;
    return AMDDWARF_OK;
  case AMDDWARF_OP_swap: {
    if ((st = need(m, base, 2)) != AMDDWARF_OK)
      return st;
    amddwarf_entry t = *top(m, 0);
    *top(m, 0) = *top(m, 1);
    *top(m, 1) = t;
    return AMDDWARF_OK;
  }
  case AMDDWARF_OP_rot: {
    if ((st = need(m, base, 3)) != AMDDWARF_OK)
      return st;
    amddwarf_entry t = *top(m, 0);
    *top(m, 0) = *top(m, 1);
    *top(m, 1) = *top(m, 2);
    *top(m, 2) = t;
    return AMDDWARF_OK;
  }
  /* Arithmetic and logic. */
  case AMDDWARF_OP_abs: case AMDDWARF_OP_neg: case AMDDWARF_OP_not:
    if ((st = pop_value(m, base, &a)) != AMDDWARF_OK)
      return st;
    if ((st = value_unary(m, kind, &a)) != AMDDWARF_OK)
      return st;
    return push_value(m, &a);
  case AMDDWARF_OP_and: case AMDDWARF_OP_div: case AMDDWARF_OP_minus: case AMDDWARF_OP_mod:
  case AMDDWARF_OP_mul: case AMDDWARF_OP_or: case AMDDWARF_OP_plus: case AMDDWARF_OP_shl:
  case AMDDWARF_OP_shr: case AMDDWARF_OP_shra: case AMDDWARF_OP_xor: case AMDDWARF_OP_eq:
  case AMDDWARF_OP_ge: case AMDDWARF_OP_gt: case AMDDWARF_OP_le: case AMDDWARF_OP_lt:
  case AMDDWARF_OP_ne:
    if ((st = need(m, base, 2)) != AMDDWARF_OK)
      return st;
    if (top_is_generic(m, base, 0) && top_is_generic(m, base, 1)) {
      /* Generic operands: the arithmetic in place, no entry copies. */
      uint64_t y = generic_u64(top(m, 0)), x = generic_u64(top(m, 1)), z;
      bool done = true;
      switch (kind) {
      case AMDDWARF_OP_plus: z = x + y; break;
      case AMDDWARF_OP_minus: z = x - y; break;
      case AMDDWARF_OP_mul: z = x * y; break;
      case AMDDWARF_OP_and: z = x & y; break;
      case AMDDWARF_OP_or: z = x | y; break;
      case AMDDWARF_OP_xor: z = x ^ y; break;
      case AMDDWARF_OP_shl: z = y >= machine_generic_bits(m) ? 0 : x << y; break;
      case AMDDWARF_OP_shr: z = y >= machine_generic_bits(m) ? 0 : x >> y; break;
      case AMDDWARF_OP_eq: z = x == y; break;
      case AMDDWARF_OP_ne: z = x != y; break;
      default: done = false; z = 0; break;
      }
      if (done) {
        m->sp--;
        generic_set(m, top(m, 0), z);
        return AMDDWARF_OK;
      }
    }
    if ((st = pop_value(m, base, &b)) != AMDDWARF_OK || (st = pop_value(m, base, &a)) != AMDDWARF_OK)
      return st;
    if ((st = value_binary(m, kind, &a, &b, &r)) != AMDDWARF_OK)
      return st;
    return push_value(m, &r);
  case AMDDWARF_OP_plus_uconst:
    if ((st = pop_integral(m, base, &a)) != AMDDWARF_OK)
      return st;
    b = a;
    {
      uint64_t x = value_u64(&a) + op->operands[0];
      memset(b.inline_bytes, 0, sizeof b.inline_bytes);
      x &= bits_mask(a.type.bit_size);
      for (unsigned i = 0; i < 8; i++)
        b.inline_bytes[i] = (uint8_t)(x >> (8 * i));
    }
    return push_value(m, &b);
  /* Control flow. */
  case AMDDWARF_OP_skip:
    *next = op->target;
    return AMDDWARF_OK;
  case AMDDWARF_OP_bra: {
    uint64_t ux;
    int64_t sx;
    if ((st = pop_integral_u64(m, base, &ux, &sx)) != AMDDWARF_OK)
      return st;
    if (ux != 0)
      *next = op->target;
    return AMDDWARF_OK;
  }
  /* Memory and dereference. */
  case AMDDWARF_OP_deref:
    if ((st = pop_location(m, base, &loc)) != AMDDWARF_OK)
      return st;
    type_lookup(m, 0, &type);
    return deref(m, &loc, machine_generic_bits(m), &type, false);
  case AMDDWARF_OP_deref_size:
  case AMDDWARF_OP_xderef_size:
  case AMDDWARF_OP_xderef:
    if (kind != AMDDWARF_OP_deref_size)
      st = xderef_location(m, base, &loc);
    else
      st = pop_location(m, base, &loc);
    if (st != AMDDWARF_OK)
      return st;
    {
      uint32_t bytes = kind == AMDDWARF_OP_xderef ? machine_generic_bits(m) / 8 : (uint32_t)op->operands[0];
      if (bytes * 8 > machine_generic_bits(m))
        return machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE,
                            "%u bytes is larger than the generic type", (unsigned)bytes);
      type_lookup(m, 0, &type);
      return deref(m, &loc, bytes * 8, &type, true);
    }
  case AMDDWARF_OP_deref_type:
  case AMDDWARF_OP_GNU_deref_type:
  case AMDDWARF_OP_xderef_type:
    if ((st = type_lookup(m, op->operands[1], &type)) != AMDDWARF_OK)
      return st;
    if ((uint64_t)type.bit_size * type.count != op->operands[0] * 8)
      return machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE,
                          "size operand %llu does not match the %u-bit base type",
                          (unsigned long long)op->operands[0],
                          (unsigned)(type.bit_size * type.count));
    st = kind == AMDDWARF_OP_xderef_type ? xderef_location(m, base, &loc)
                                          : pop_location(m, base, &loc);
    if (st != AMDDWARF_OK)
      return st;
    return deref(m, &loc, (uint32_t)op->operands[0] * 8, &type, false);
  case AMDDWARF_OP_push_object_address:
    if (m->in_entry_value)
      return machine_fail(m, AMDDWARF_E_EVAL_NOT_IN_CONTEXT,
                          "DW_OP_push_object_address inside DW_OP_entry_value");
    return target_address(m, "object address",
                          TARGET_HAS(m->t, object_address) ? m->t->object_address : NULL);
  case AMDDWARF_OP_call_frame_cfa:
    return target_address(m, "CFA", TARGET_HAS(m->t, cfa) ? m->t->cfa : NULL);
  case AMDDWARF_OP_form_tls_address:
  case AMDDWARF_OP_GNU_push_tls_address: {
    uint64_t address;
    if ((st = pop_integral(m, base, &a)) != AMDDWARF_OK)
      return st;
    if (!TARGET_HAS(m->t, tls_address))
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no thread-local storage");
    st = m->t->tls_address(m->t->user, value_u64(&a), &address);
    if (st != AMDDWARF_OK)
      return machine_fail(m, st, "TLS offset 0x%llx: %s", (unsigned long long)value_u64(&a),
                          amddwarf_status_message(st));
    memory_location(&loc, AMDDWARF_ASPACE_NONE, address);
    return push_location(m, &loc);
  }
  case AMDDWARF_OP_fbreg:
    return frame_base(m, (int64_t)op->operands[0]);
  case AMDDWARF_OP_bregx:
    return breg(m, (uint32_t)op->operands[0], (int64_t)op->operands[1], AMDDWARF_ASPACE_NONE);
  case AMDDWARF_OP_LLVM_aspace_bregx: {
    uint32_t aspace;
    if ((st = pop_integral(m, base, &a)) != AMDDWARF_OK)
      return st;
    if (amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, value_u64(&a), &aspace) != AMDDWARF_OK)
      return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                          "%llu is not one of the DW_ASPACE_* values",
                          (unsigned long long)value_u64(&a));
    /* The displacement is unsigned (specs/encodings.md); added modulo the
       address size, 2^64 - N gives the address N bytes below. */
    return breg(m, (uint32_t)op->operands[0], (int64_t)op->operands[1], aspace);
  }
  case AMDDWARF_OP_LLVM_form_aspace_address: {
    uint64_t ux;
    int64_t sx;
    if ((st = pop_integral_u64(m, base, &ux, &sx)) != AMDDWARF_OK)
      return st;
    return form_aspace_address(m, base, ux);
  }
  /* Registers. */
  case AMDDWARF_OP_regx:
    if (op->operands[0] > UINT32_MAX)
      return machine_fail(m, AMDDWARF_E_EVAL_BAD_REGISTER, "register %llu",
                          (unsigned long long)op->operands[0]);
    return push_register(m, (uint32_t)op->operands[0]);
  case AMDDWARF_OP_regval_type:
  case AMDDWARF_OP_GNU_regval_type:
    if ((st = type_lookup(m, op->operands[1], &type)) != AMDDWARF_OK)
      return st;
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_REGISTER;
    loc.u.reg.regno = (uint32_t)op->operands[0];
    return deref(m, &loc, type.bit_size * type.count, &type, false);
  case AMDDWARF_OP_const_type:
  case AMDDWARF_OP_GNU_const_type:
    if ((st = type_lookup(m, op->operands[0], &type)) != AMDDWARF_OK)
      return st;
    if ((uint64_t)type.bit_size * type.count != op->operands[1] * 8)
      return machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE,
                          "a %llu-byte constant for a %u-bit base type",
                          (unsigned long long)op->operands[1],
                          (unsigned)(type.bit_size * type.count));
    if ((st = value_from_bytes(m, &a, &type, op->block, (size_t)op->operands[1])) != AMDDWARF_OK)
      return st;
    return push_value(m, &a);
  case AMDDWARF_OP_convert: case AMDDWARF_OP_GNU_convert:
  case AMDDWARF_OP_reinterpret: case AMDDWARF_OP_GNU_reinterpret:
    if ((st = type_lookup(m, op->operands[0], &type)) != AMDDWARF_OK)
      return st;
    if ((st = pop_value(m, base, &a)) != AMDDWARF_OK)
      return st;
    st = value_convert(m, &a, &type,
                       kind == AMDDWARF_OP_reinterpret || kind == AMDDWARF_OP_GNU_reinterpret);
    if (st != AMDDWARF_OK)
      return st;
    return push_value(m, &a);
  /* Implicit locations. */
  case AMDDWARF_OP_implicit_value:
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_IMPLICIT;
    loc.u.implicit.bytes = op->block;
    loc.u.implicit.bit_size = op->operands[0] * 8;
    return push_location(m, &loc);
  case AMDDWARF_OP_stack_value: {
    if ((st = pop_value(m, base, &a)) != AMDDWARF_OK)
      return st;
    if (a.is_implicit_pointer)
      return push_location(m, &a.pointer);
    size_t n = amddwarf_value_size(&a);
    uint8_t *copy = pool_alloc(m, n ? n : 1);
    if (!copy)
      return AMDDWARF_E_LIMIT;
    memcpy(copy, amddwarf_value_bytes(&a), n);
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_IMPLICIT;
    loc.u.implicit.bytes = copy;
    loc.u.implicit.bit_size = (uint64_t)a.type.bit_size * a.type.count;
    return push_location(m, &loc);
  }
  case AMDDWARF_OP_implicit_pointer:
  case AMDDWARF_OP_GNU_implicit_pointer:
  case AMDDWARF_OP_LLVM_aspace_implicit_pointer: {
    uint32_t aspace = AMDDWARF_ASPACE_NONE;
    if (kind == AMDDWARF_OP_LLVM_aspace_implicit_pointer) {
      if ((st = pop_integral(m, base, &a)) != AMDDWARF_OK)
        return st;
      if (amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, value_u64(&a), &aspace) != AMDDWARF_OK)
        return machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                            "%llu is not one of the DW_ASPACE_* values",
                            (unsigned long long)value_u64(&a));
    }
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_IMPLICIT_POINTER;
    loc.u.implicit_pointer.die = op->operands[0];
    loc.u.implicit_pointer.displacement = (int64_t)op->operands[1];
    loc.u.implicit_pointer.aspace = aspace;
    loc.u.implicit_pointer.bit_size = aspace_address_bytes(m, aspace) * 8;
    return push_location(m, &loc);
  }
  /* Calls and entry values. */
  case AMDDWARF_OP_call2:
  case AMDDWARF_OP_call4:
    return call(m, base, AMDDWARF_DIE_REF_UNIT, op->operands[0]);
  case AMDDWARF_OP_call_ref:
    return call(m, base, AMDDWARF_DIE_REF_SECTION, op->operands[0]);
  case AMDDWARF_OP_entry_value:
  case AMDDWARF_OP_GNU_entry_value:
    return entry_value(m, op->block, (size_t)op->operands[0]);
  case AMDDWARF_OP_LLVM_call_frame_entry_reg: {
    uint64_t rbytes;
    uint32_t regno = (uint32_t)op->operands[0];
    if ((st = register_bytes(m, regno, &rbytes)) != AMDDWARF_OK)
      return st;
    if (!TARGET_HAS(m->t, read_entry_register))
      return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no entry register values");
    uint8_t *copy = pool_alloc(m, (size_t)rbytes);
    if (!copy)
      return AMDDWARF_E_LIMIT;
    st = m->t->read_entry_register(m->t->user, regno, 0, rbytes, copy);
    if (m->trace)
      machine_trace_access(m, AMDDWARF_TRACE_READ_ENTRY_REGISTER, regno, 0, AMDDWARF_NO_LANE, 0,
                           rbytes, copy, st);
    if (st != AMDDWARF_OK)
      return machine_fail(m, st, "entry value of register %u: %s", (unsigned)regno,
                          amddwarf_status_message(st));
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_IMPLICIT;
    loc.u.implicit.bytes = copy;
    loc.u.implicit.bit_size = rbytes * 8;
    return push_location(m, &loc);
  }
  /* AMDGPU location operations. */
  case AMDDWARF_OP_LLVM_push_lane:
    if (m->lane >= machine_wave_size(m))
      return machine_fail(m, AMDDWARF_E_AMDGPU_BAD_LANE, "lane %u is not in a wave of %u lanes",
                          (unsigned)m->lane, (unsigned)machine_wave_size(m));
    return push_generic(m, m->lane);
  case AMDDWARF_OP_LLVM_undefined:
    memset(&loc, 0, sizeof loc);
    loc.kind = AMDDWARF_LOCATION_UNDEFINED;
    return push_location(m, &loc);
  case AMDDWARF_OP_LLVM_offset:
  case AMDDWARF_OP_LLVM_bit_offset: {
    uint64_t ux;
    int64_t sx;
    if ((st = pop_integral_u64(m, base, &ux, &sx)) != AMDDWARF_OK)
      return st;
    if ((st = need(m, base, 1)) != AMDDWARF_OK)
      return st;
    amddwarf_entry *e = top(m, 0);
    if (e->kind == AMDDWARF_ENTRY_LOCATION && !e->incomplete) {
      /* Update the location in place. */
      return kind == AMDDWARF_OP_LLVM_offset ? loc_add_bytes(m, &e->location, sx)
                                             : loc_add_bits(m, &e->location, sx);
    }
    if ((st = pop_location(m, base, &loc)) != AMDDWARF_OK)
      return st;
    st = kind == AMDDWARF_OP_LLVM_offset ? loc_add_bytes(m, &loc, sx) : loc_add_bits(m, &loc, sx);
    if (st != AMDDWARF_OK)
      return st;
    return push_location(m, &loc);
  }
  case AMDDWARF_OP_LLVM_offset_uconst:
    if ((st = pop_location(m, base, &loc)) != AMDDWARF_OK)
      return st;
    if (op->operands[0] > INT64_MAX)
      return machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, "displacement %llu",
                          (unsigned long long)op->operands[0]);
    if ((st = loc_add_bytes(m, &loc, (int64_t)op->operands[0])) != AMDDWARF_OK)
      return st;
    return push_location(m, &loc);
  /* Composites. */
  case AMDDWARF_OP_piece:
    if (op->operands[0] > UINT64_MAX / 8)
      return machine_fail(m, AMDDWARF_E_EVAL_COMPOSITE_TOO_LARGE, "piece of %llu bytes",
                          (unsigned long long)op->operands[0]);
    return piece(m, base, op->operands[0] * 8, 0);
  case AMDDWARF_OP_bit_piece:
    return piece(m, base, op->operands[0], op->operands[1]);
  case AMDDWARF_OP_LLVM_piece_end:
    if (m->sp == base || !top(m, 0)->incomplete)
      return machine_fail(m, AMDDWARF_E_EVAL_NO_INCOMPLETE_COMPOSITE,
                          "the top of the stack is not an incomplete composite");
    top(m, 0)->incomplete = 0;
    return AMDDWARF_OK;
  case AMDDWARF_OP_LLVM_extend:
    return extend(m, base, op->operands[0], op->operands[1]);
  case AMDDWARF_OP_LLVM_select_bit_piece:
    return select_bit_piece(m, base, op->operands[0], op->operands[1]);
  case AMDDWARF_OP_GNU_parameter_ref:
  case AMDDWARF_OP_GNU_variable_value:
    return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "this GNU operation is not evaluated");
  default:
    break;
  }
  (void)p;
  return machine_fail(m, AMDDWARF_E_UNSUPPORTED, "operation kind %d is not evaluated", (int)kind);
}

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

void machine_trace_access(machine *m, amddwarf_trace_kind kind, uint32_t regno, uint32_t aspace,
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

static amddwarf_status run(machine *m, const program *p, uint32_t base)
{
  size_t pc = 0;
  while (pc < p->count) {
    const amddwarf_op *op = program_op(m, p, pc);
    size_t next = pc + 1;
    m->op_offset = op->offset;
    m->op_code = op->opcode;
    m->op_subop = op->subop ? (int32_t)op->subop : AMDDWARF_NO_OPCODE;
    if (++m->steps > m->ev->max_steps)
      return machine_fail(m, AMDDWARF_E_LIMIT, "more than %u operations executed",
                          (unsigned)m->ev->max_steps);
    amddwarf_status st = step(m, p, op, base, &next);
    /* A DW_OP_call* or frame base may have grown the operation buffer that
       OP points into: trace the operation fetched again. */
    if (m->trace && st == AMDDWARF_OK)
      trace_op(m, program_op(m, p, pc));
    if (st != AMDDWARF_OK) {
      if (!m->reported)
        machine_fail(m, st, "%s", amddwarf_status_message(st));
      return st;
    }
    if (next > p->count)
      return machine_fail(m, AMDDWARF_E_EXPR_BAD_BRANCH, "branch target %zu is past the end", next);
    pc = next;
  }
  return AMDDWARF_OK;
}

/* ---- entry points ------------------------------------------------------------------ */

amddwarf_status machine_begin(amddwarf_eval *ev, const amddwarf_eval_request *req,
                              amddwarf_error *err, machine *m)
{
  m->wave_size = 0;
  m->sp = 0;
  m->parts_used = 0;
  m->pool_used = 0;
  m->ops_used = 0;
  m->steps = 0;
  m->depth = 0;
  m->in_entry_value = false;
  m->reported = false;
  if (!ev || !req || !req->target ||
      req->struct_size < offsetof(amddwarf_eval_request, trace))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "evaluation needs a context, a request and a target");
  if (req->format.address_size != 4 && req->format.address_size != 8)
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "address size %u: the evaluator supports 4 and 8",
                         (unsigned)req->format.address_size);
  m->ev = ev;
  ev->cache_pinned = 0;
  m->req = req;
  m->t = req->target;
  m->err = err;
  m->trace = req->struct_size >= offsetof(amddwarf_eval_request, trace_user) +
                                     sizeof req->trace_user
                 ? req->trace
                 : NULL;
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
    amddwarf_entry *e = push(m);
    if (!e)
      return AMDDWARF_E_LIMIT;
    *e = req->initial[i];
  }
  return AMDDWARF_OK;
}

/* The fast path (fast.c) takes a location request without initial entries
   or tracing. */
static bool fast_allowed(const machine *m)
{
  return !m->trace && !m->ev->general_only && m->req->initial_count == 0 &&
         m->req->required == AMDDWARF_RESULT_LOCATION;
}

/* Back to the state machine_begin left, after the fast path declined (the
   program being run stays loaded and pinned; there are no initial entries). */
static void machine_restart(machine *m)
{
  m->sp = 0;
  m->parts_used = 0;
  m->pool_used = 0;
  m->steps = 0;
  m->depth = 0;
}

static amddwarf_status finish(machine *m, amddwarf_entry *result)
{
  amddwarf_entry e;
  amddwarf_status st;
  m->op_offset = AMDDWARF_NO_OFFSET;
  m->op_code = AMDDWARF_NO_OPCODE;
  m->op_subop = AMDDWARF_NO_OPCODE;
  result->incomplete = 0;
  if (m->req->required == AMDDWARF_RESULT_LOCATION) {
    result->kind = AMDDWARF_ENTRY_LOCATION;
    if (m->sp == 0) {
      memset(&result->location, 0, sizeof result->location);
      result->location.kind = AMDDWARF_LOCATION_UNDEFINED;
      return AMDDWARF_OK;
    }
    amddwarf_entry *t = top(m, 0);
    if (t->kind == AMDDWARF_ENTRY_LOCATION) {
      result->location = t->location;
      return AMDDWARF_OK;
    }
    e = *t;
    e.incomplete = 0;
    st = entry_to_location(m, &e, &result->location);
    if (st == AMDDWARF_E_EVAL_NOT_LOCATION) {
      if (m->err)
        m->err->status = AMDDWARF_E_EVAL_RESULT;
      return AMDDWARF_E_EVAL_RESULT;
    }
    return st;
  }
  result->kind = AMDDWARF_ENTRY_VALUE;
  if (m->sp == 0)
    return machine_fail(m, AMDDWARF_E_EVAL_RESULT, "a value is required and the stack is empty");
  st = pop_value(m, 0, &result->value);
  if (st == AMDDWARF_E_EVAL_NOT_VALUE || st == AMDDWARF_E_EVAL_INCOMPLETE_COMPOSITE) {
    if (m->err)
      m->err->status = AMDDWARF_E_EVAL_RESULT;
    return AMDDWARF_E_EVAL_RESULT;
  }
  return st;
}

amddwarf_status amddwarf_eval_ops(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                  const amddwarf_op *ops, size_t count, amddwarf_entry *result,
                                  amddwarf_error *err)
{
  machine m;
  amddwarf_status st = machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  if (!result || (!ops && count))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no ops or result");
  program p = {ops, 0, count};
  if (fast_allowed(&m)) {
    if (fast_eval_location(&m, ops, count, result))
      return AMDDWARF_OK;
    machine_restart(&m);
  }
  st = run(&m, &p, 0);
  if (st != AMDDWARF_OK)
    return st;
  return finish(&m, result);
}

amddwarf_status amddwarf_eval_expr(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                   const uint8_t *bytes, size_t size, amddwarf_entry *result,
                                   amddwarf_error *err)
{
  machine m;
  program p;
  amddwarf_status st = machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  if (!result || (!bytes && size))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no bytes or result");
  st = load_program(&m, bytes, size, &p);
  if (st == AMDDWARF_OK && p.external && fast_allowed(&m)) {
    if (fast_eval_location(&m, p.external, p.count, result))
      return AMDDWARF_OK;
    machine_restart(&m);
  }
  if (st == AMDDWARF_OK)
    st = run(&m, &p, 0);
  if (st != AMDDWARF_OK)
    return st;
  return finish(&m, result);
}
