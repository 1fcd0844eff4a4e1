/* The one-lane fast path: a location that uses only the common operations
 * (literals, registers, breg/fbreg, the lane, integer arithmetic on generic
 * values, offsets, address spaces, deref and whole-byte pieces), run on a
 * small stack of (kind, number) entries instead of the general machine's
 * typed entries.
 *
 * It never reports anything. Whatever it does not handle, and every error
 * (an underflow, a bad register, a read that fails, an offset out of range),
 * makes it decline; the caller then runs the general machine from the start,
 * which gives the exact result or error. A decline only costs the target
 * reads done so far, which are repeated; the fast path is off while tracing,
 * so a trace shows each access once. test_eval_fast.c checks both paths
 * against each other on random expressions. */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "expr/eval_internal.h"

enum { FAST_STACK = 16, FAST_PIECES = 8, FAST_COMPOSITES = 4 };

typedef enum fast_kind {
  FAST_VALUE,     /* a generic value: X */
  FAST_REGISTER,  /* register SPACE at byte X */
  FAST_MEMORY,    /* address X of address space SPACE */
  FAST_COMPOSITE, /* byte X of the frame's composite SPACE */
  FAST_UNDEFINED, /* only as a piece */
} fast_kind;

typedef struct fast_entry {
  fast_kind kind;
  uint32_t space;
  uint64_t x;
} fast_entry;

typedef struct fast_frame {
  fast_entry stack[FAST_STACK];
  unsigned sp;
  unsigned below;         /* general-stack entries of the frames under this one */
  /* An incomplete composite under STACK, as pieces not yet appended. */
  bool composite_open;
  unsigned piece_count;
  fast_entry pieces[FAST_PIECES];
  uint64_t piece_bits[FAST_PIECES];
  /* Composites made by select_bit_piece, at offset 0, in the context's
     part arena. */
  unsigned composite_count;
  amddwarf_location composites[FAST_COMPOSITES];
} fast_frame;

/* An empty frame. The stack and piece arrays stay as they are: only the
   entries below the counts are ever read. */
static void fast_frame_start(fast_frame *f)
{
  f->sp = 0;
  f->below = 0;
  f->composite_open = false;
  f->piece_count = 0;
  f->composite_count = 0;
}

static bool fast_push(machine *m, fast_frame *f, fast_kind kind, uint32_t space, uint64_t x)
{
  if (f->sp == FAST_STACK || f->below + f->composite_open + f->sp >= m->ev->stack_cap)
    return false;
  fast_entry *e = &f->stack[f->sp++];
  e->kind = kind;
  e->space = space;
  e->x = x;
  return true;
}

static bool fast_push_generic(machine *m, fast_frame *f, uint64_t x)
{
  return fast_push(m, f, FAST_VALUE, 0, x & bits_mask(machine_generic_bits(m)));
}

/* The top entry as a generic value, popped. */
static bool fast_pop_value(fast_frame *f, uint64_t *x)
{
  if (f->sp == 0 || f->stack[f->sp - 1].kind != FAST_VALUE)
    return false;
  *x = f->stack[--f->sp].x;
  return true;
}

/* The top entry as a location (a generic value is a default-space
   address), in place. */
static fast_entry *fast_top_location(fast_frame *f)
{
  if (f->sp == 0)
    return NULL;
  fast_entry *e = &f->stack[f->sp - 1];
  if (e->kind == FAST_VALUE) {
    e->kind = FAST_MEMORY;
    e->space = AMDDWARF_ASPACE_NONE;
  }
  return e;
}

/* Entry E of frame F as a location description. */
static void fast_location(const fast_frame *f, const fast_entry *e, amddwarf_location *loc)
{
  memset(loc, 0, sizeof *loc);
  switch (e->kind) {
  case FAST_COMPOSITE:
    *loc = f->composites[e->space];
    loc->byte_offset = e->x;
    break;
  case FAST_VALUE:
  case FAST_MEMORY:
    loc->kind = AMDDWARF_LOCATION_MEMORY;
    loc->byte_offset = e->x;
    loc->u.memory.aspace = e->kind == FAST_VALUE ? AMDDWARF_ASPACE_NONE : e->space;
    break;
  case FAST_REGISTER:
    loc->kind = AMDDWARF_LOCATION_REGISTER;
    loc->byte_offset = e->x;
    loc->u.reg.regno = e->space;
    break;
  case FAST_UNDEFINED:
    loc->kind = AMDDWARF_LOCATION_UNDEFINED;
    break;
  }
}

static int64_t generic_signed(const machine *m, uint64_t x)
{
  uint32_t bits = machine_generic_bits(m);
  if (bits < 64 && (x >> (bits - 1)) & 1)
    x |= ~bits_mask(bits);
  return (int64_t)x;
}

static bool fast_register_bytes(machine *m, uint32_t regno, uint64_t *bytes)
{
  return register_bytes(m, regno, bytes) == AMDDWARF_OK;
}

/* Reads SIZE bytes (at most 8) of register or memory entry E, with the
   general path's bounds rules, as a little-endian number. */
static bool fast_read(machine *m, const fast_entry *e, uint64_t size, uint64_t *out)
{
  const amddwarf_target *t = m->t;
  uint8_t buf[8] = {0};
  amddwarf_status st;
  if (e->kind == FAST_REGISTER) {
    uint64_t bytes;
    if (!fast_register_bytes(m, e->space, &bytes) || e->x > bytes || size > bytes - e->x ||
        !TARGET_HAS(t, read_register))
      return false;
    st = size ? t->read_register(t->user, e->space, e->x, size, buf) : AMDDWARF_OK;
  } else if (e->kind == FAST_MEMORY) {
    unsigned n = amddwarf__aspace_address_bytes(m, e->space);
    uint64_t last = n >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * n)) - 1;
    uint32_t aspace, lane;
    uint64_t address;
    if (n == 0 || (size && (e->x + (size - 1) < e->x || e->x + (size - 1) > last)) ||
        amddwarf__memory_target_space(m, e->space, e->x, &aspace, &lane, &address) != AMDDWARF_OK ||
        !TARGET_HAS(t, read_memory))
      return false;
    st = size ? t->read_memory(t->user, aspace, lane, address, size, buf) : AMDDWARF_OK;
  } else {
    return false;
  }
  if (st != AMDDWARF_OK)
    return false;
  uint64_t x = 0;
  for (unsigned i = 0; i < 8; i++)
    x |= (uint64_t)buf[i] << (8 * i);
  *out = x;
  return true;
}

/* N bytes at byte X of register or memory entry E (bounds checked by the
   caller) straight into DST. */
static bool fast_read_bytes(machine *m, const fast_entry *e, uint64_t x, uint64_t n, uint8_t *dst)
{
  const amddwarf_target *t = m->t;
  if (n == 0)
    return true;
  if (n > 256) /* the general read moves larger spans in chunks */
    return false;
  if (e->kind == FAST_REGISTER)
    return TARGET_HAS(t, read_register) &&
           t->read_register(t->user, e->space, x, n, dst) == AMDDWARF_OK;
  uint32_t aspace, lane;
  uint64_t address;
  return e->kind == FAST_MEMORY &&
         amddwarf__memory_target_space(m, e->space, x, &aspace, &lane, &address) == AMDDWARF_OK &&
         TARGET_HAS(t, read_memory) &&
         t->read_memory(t->user, aspace, lane, address, n, dst) == AMDDWARF_OK;
}

static bool fast_move(fast_entry *e, int64_t bytes, uint64_t limit);

/* Moves location E of frame F by BYTES (amddwarf__loc_add_bytes' range rules). */
static bool fast_offset(machine *m, const fast_frame *f, fast_entry *e, int64_t bytes)
{
  uint64_t limit;
  if (e->kind == FAST_MEMORY) {
    unsigned n = amddwarf__aspace_address_bytes(m, e->space);
    if (n == 0)
      return false;
    limit = n >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * n)) - 1; /* last valid byte */
  } else if (e->kind == FAST_REGISTER) {
    uint64_t size;
    if (!fast_register_bytes(m, e->space, &size) || size == 0)
      return false;
    limit = size - 1; /* the offset stays inside the register */
  } else if (e->kind == FAST_COMPOSITE) {
    uint64_t bits = f->composites[e->space].u.composite.bit_size;
    if (bits == 0)
      return false;
    limit = (bits - 1) / 8;
  } else {
    return false;
  }
  return fast_move(e, bytes, limit);
}

/* Moves location E by BYTES when it stays at or below byte LIMIT. */
static bool fast_move(fast_entry *e, int64_t bytes, uint64_t limit)
{
  uint64_t moved;
  if (bytes >= 0) {
    if (amddwarf_add_overflow_u64(e->x, (uint64_t)bytes, &moved))
      return false;
  } else {
    uint64_t down = (uint64_t)(-(bytes + 1)) + 1;
    if (e->x < down)
      return false;
    moved = e->x - down;
  }
  if (moved > limit)
    return false;
  e->x = moved;
  return true;
}

/* breg, bregx, aspace_bregx: register REGNO's first bytes plus DISP. */
static bool fast_breg(machine *m, fast_frame *f, uint32_t regno, int64_t disp, uint32_t aspace)
{
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  uint64_t size, x;
  fast_entry reg = {FAST_REGISTER, regno, 0};
  if (n == 0 || !fast_register_bytes(m, regno, &size) || !fast_read(m, &reg, size < 8 ? size : 8, &x))
    return false;
  return fast_push(m, f, FAST_MEMORY, aspace, (x + (uint64_t)disp) & bits_mask(n * 8));
}

static bool fast_run(machine *m, const amddwarf_op *ops, size_t count, fast_frame *f);

/* DW_OP_fbreg: the frame base on a frame of its own, a memory location. */
static bool fast_frame_base(machine *m, fast_frame *f, int64_t disp)
{
  const uint8_t *bytes = NULL;
  size_t size = 0;
  program p;
  if (m->depth > 0 || m->depth >= m->ev->max_call_depth || !TARGET_HAS(m->t, frame_base) ||
      m->t->frame_base(m->t->user, &bytes, &size) != AMDDWARF_OK ||
      amddwarf__load_program(m, bytes, size, &p) != AMDDWARF_OK)
    return false;
  fast_frame inner;
  inner.sp = 0;
  inner.below = f->below + f->composite_open + f->sp;
  inner.composite_open = false;
  inner.piece_count = 0;
  inner.composite_count = 0;
  m->depth++;
  /* No load follows while it runs (no fbreg below depth 1), so the
     context buffer cannot move under it. */
  bool ok = fast_run(m, p.external ? p.external : m->ev->ops + p.first, p.count, &inner);
  m->depth--;
  if (!ok || inner.sp == 0)
    return false;
  fast_entry base = inner.stack[inner.sp - 1];
  if (base.kind == FAST_VALUE) {
    base.kind = FAST_MEMORY;
    base.space = AMDDWARF_ASPACE_NONE;
  }
  if (base.kind != FAST_MEMORY || !fast_offset(m, &inner, &base, disp))
    return false;
  return fast_push(m, f, base.kind, base.space, base.x);
}

/* DW_OP_piece N / DW_OP_bit_piece N 0: the top entry (or undefined storage
   when there is none) becomes the next part of the composite. */
static bool fast_piece(machine *m, fast_frame *f, uint64_t bits)
{
  fast_entry part = {FAST_UNDEFINED, 0, 0};
  if (f->sp > 1 || f->piece_count == FAST_PIECES ||
      (!f->composite_open && f->below + 1 > m->ev->stack_cap))
    return false;
  if (f->sp == 1)
    part = *fast_top_location(f);
  if (part.kind == FAST_COMPOSITE)
    return false;
  f->sp = 0;
  f->composite_open = true;
  f->pieces[f->piece_count] = part;
  f->piece_bits[f->piece_count++] = bits;
  return true;
}

/* DW_OP_LLVM_select_bit_piece BITS COUNT under a generic mask. */
static bool fast_select(machine *m, fast_frame *f, uint64_t bits, uint64_t count)
{
  uint64_t mask;
  if (bits == 0 || count == 0 || count > machine_generic_bits(m) ||
      f->composite_count == FAST_COMPOSITES || !fast_pop_value(f, &mask) || f->sp < 2)
    return false;
  amddwarf_location l0, l1;
  fast_top_location(f);
  fast_location(f, &f->stack[f->sp - 1], &l1);
  f->sp--;
  fast_top_location(f);
  fast_location(f, &f->stack[f->sp - 1], &l0);
  f->sp--;
  uint8_t mask_bytes[8];
  for (unsigned i = 0; i < 8; i++)
    mask_bytes[i] = (uint8_t)(mask >> (8 * i));
  amddwarf_location *c = &f->composites[f->composite_count];
  if (amddwarf__select_composite(m, &l0, &l1, mask_bytes, bits, count, c) != AMDDWARF_OK)
    return false;
  return fast_push(m, f, FAST_COMPOSITE, f->composite_count++, 0);
}

static bool fast_binary(machine *m, fast_frame *f, amddwarf_op_kind kind)
{
  if (f->sp < 2 || f->stack[f->sp - 1].kind != FAST_VALUE ||
      f->stack[f->sp - 2].kind != FAST_VALUE)
    return false;
  uint64_t y = f->stack[f->sp - 1].x, x = f->stack[f->sp - 2].x, z;
  uint32_t bits = machine_generic_bits(m);
  if (!amddwarf__integer_binary(kind, x, y, bits, &z))
    return false;
  f->sp--;
  f->stack[f->sp - 1].x = z & bits_mask(bits);
  return true;
}

static bool fast_step(machine *m, fast_frame *f, const amddwarf_op *op)
{
  amddwarf_op_kind kind = op->kind;
  uint64_t x;
  if (kind >= AMDDWARF_OP_lit0 && kind <= AMDDWARF_OP_lit31)
    return fast_push_generic(m, f, (uint64_t)(kind - AMDDWARF_OP_lit0));
  if (kind >= AMDDWARF_OP_reg0 && kind <= AMDDWARF_OP_reg31)
    return fast_push(m, f, FAST_REGISTER, (uint32_t)(kind - AMDDWARF_OP_reg0), 0);
  if (kind >= AMDDWARF_OP_breg0 && kind <= AMDDWARF_OP_breg31)
    return fast_breg(m, f, (uint32_t)(kind - AMDDWARF_OP_breg0), (int64_t)op->operands[0],
                     AMDDWARF_ASPACE_NONE);
  switch (kind) {
  case AMDDWARF_OP_nop: case AMDDWARF_OP_LLVM_nop:
    return true;
  case AMDDWARF_OP_const1u: case AMDDWARF_OP_const2u: case AMDDWARF_OP_const4u:
  case AMDDWARF_OP_const8u: case AMDDWARF_OP_constu: case AMDDWARF_OP_const1s:
  case AMDDWARF_OP_const2s: case AMDDWARF_OP_const4s: case AMDDWARF_OP_const8s:
  case AMDDWARF_OP_consts:
    return fast_push_generic(m, f, op->operands[0]);
  case AMDDWARF_OP_addr:
    return fast_push(m, f, FAST_MEMORY, AMDDWARF_ASPACE_NONE, op->operands[0]);
  case AMDDWARF_OP_regx:
    return op->operands[0] <= UINT32_MAX &&
           fast_push(m, f, FAST_REGISTER, (uint32_t)op->operands[0], 0);
  case AMDDWARF_OP_bregx:
    return fast_breg(m, f, (uint32_t)op->operands[0], (int64_t)op->operands[1],
                     AMDDWARF_ASPACE_NONE);
  case AMDDWARF_OP_LLVM_aspace_bregx: {
    uint32_t aspace;
    return fast_pop_value(f, &x) &&
           amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, x, &aspace) == AMDDWARF_OK &&
           fast_breg(m, f, (uint32_t)op->operands[0], (int64_t)op->operands[1], aspace);
  }
  case AMDDWARF_OP_fbreg:
    return fast_frame_base(m, f, (int64_t)op->operands[0]);
  case AMDDWARF_OP_LLVM_push_lane:
    return m->lane < amddwarf__machine_wave_size(m) && fast_push_generic(m, f, m->lane);
  case AMDDWARF_OP_dup:
    return f->sp >= 1 && fast_push(m, f, f->stack[f->sp - 1].kind, f->stack[f->sp - 1].space,
                                   f->stack[f->sp - 1].x);
  case AMDDWARF_OP_over:
    return f->sp >= 2 && fast_push(m, f, f->stack[f->sp - 2].kind, f->stack[f->sp - 2].space,
                                   f->stack[f->sp - 2].x);
  case AMDDWARF_OP_drop:
    if (f->sp == 0)
      return false;
    f->sp--;
    return true;
  case AMDDWARF_OP_swap: {
    if (f->sp < 2)
      return false;
    fast_entry t = f->stack[f->sp - 1];
    f->stack[f->sp - 1] = f->stack[f->sp - 2];
    f->stack[f->sp - 2] = t;
    return true;
  }
  case AMDDWARF_OP_plus: case AMDDWARF_OP_minus: case AMDDWARF_OP_mul: case AMDDWARF_OP_and:
  case AMDDWARF_OP_or: case AMDDWARF_OP_xor: case AMDDWARF_OP_shl: case AMDDWARF_OP_shr:
  case AMDDWARF_OP_eq: case AMDDWARF_OP_ne:
    return fast_binary(m, f, kind);
  case AMDDWARF_OP_plus_uconst:
    if (!fast_pop_value(f, &x))
      return false;
    return fast_push_generic(m, f, x + op->operands[0]);
  case AMDDWARF_OP_LLVM_offset: {
    fast_entry *e;
    return fast_pop_value(f, &x) && (e = fast_top_location(f)) != NULL &&
           fast_offset(m, f, e, generic_signed(m, x));
  }
  case AMDDWARF_OP_LLVM_offset_uconst: {
    fast_entry *e = fast_top_location(f);
    return e && op->operands[0] <= INT64_MAX && fast_offset(m, f, e, (int64_t)op->operands[0]);
  }
  case AMDDWARF_OP_LLVM_form_aspace_address: {
    uint32_t aspace;
    uint64_t address;
    unsigned n;
    if (!fast_pop_value(f, &x) ||
        amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, x, &aspace) != AMDDWARF_OK ||
        (n = amddwarf__aspace_address_bytes(m, aspace)) == 0 || !fast_pop_value(f, &address))
      return false;
    return fast_push(m, f, FAST_MEMORY, aspace, address & bits_mask(n * 8));
  }
  case AMDDWARF_OP_deref:
  case AMDDWARF_OP_deref_size: {
    uint64_t size = kind == AMDDWARF_OP_deref ? machine_generic_bits(m) / 8 : op->operands[0];
    fast_entry *e = fast_top_location(f);
    if (!e || size == 0 || size * 8 > machine_generic_bits(m) || !fast_read(m, e, size, &x))
      return false;
    e->kind = FAST_VALUE;
    e->space = 0;
    e->x = x;
    return true;
  }
  case AMDDWARF_OP_piece:
    return op->operands[0] <= UINT64_MAX / 8 && fast_piece(m, f, op->operands[0] * 8);
  case AMDDWARF_OP_bit_piece:
    return op->operands[1] == 0 && fast_piece(m, f, op->operands[0]);
  case AMDDWARF_OP_LLVM_select_bit_piece:
    return fast_select(m, f, op->operands[0], op->operands[1]);
  default:
    return false;
  }
}

static bool fast_run(machine *m, const amddwarf_op *ops, size_t count, fast_frame *f)
{
  for (size_t i = 0; i < count; i++) {
    if (++m->steps > m->ev->max_steps || !fast_step(m, f, &ops[i]))
      return false;
  }
  return true;
}


static bool fast_result(machine *m, const fast_frame *f, amddwarf_entry *result);

bool amddwarf__fast_eval_location(machine *m, const amddwarf_op *ops, size_t count, amddwarf_entry *result)
{
  /* Nothing is reported from here: a decline leaves *err as it was. */
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  fast_frame_start(&f);
  bool done = fast_run(m, ops, count, &f) && fast_result(m, &f, result);
  m->err = err;
  return done;
}

static bool fast_result(machine *m, const fast_frame *f, amddwarf_entry *result)
{
  result->kind = AMDDWARF_ENTRY_LOCATION;
  result->incomplete = 0;
  /* The parts go through the general composite rules (bounds, merging),
     also under another result: a part they refuse is an error there too. */
  amddwarf_status st = AMDDWARF_OK;
  if (f->composite_open) {
    amddwarf__composite_begin(m, &result->location);
    for (unsigned i = 0; i < f->piece_count && st == AMDDWARF_OK; i++) {
      amddwarf_location part;
      fast_location(f, &f->pieces[i], &part);
      st = amddwarf__composite_append(m, &result->location, &part, f->piece_bits[i]);
    }
  }
  if (f->sp > 0) {
    fast_location(f, &f->stack[f->sp - 1], &result->location);
  } else if (!f->composite_open) {
    fast_entry undefined = {FAST_UNDEFINED, 0, 0};
    fast_location(f, &undefined, &result->location);
  }
  return st == AMDDWARF_OK;
}

/* ---- evaluation and read in one pass ------------------------------------- */

/* Whole bytes BITS / 8 at byte X of register or memory entry E fit its
   storage (append_leaf's rule for a part, check_bounds' for a read). */
static bool fast_fits(machine *m, const fast_entry *e, uint64_t x, uint64_t bits)
{
  uint64_t n = bits / 8;
  if (e->kind == FAST_REGISTER) {
    uint64_t size;
    return fast_register_bytes(m, e->space, &size) && x <= size && n <= size - x;
  }
  if (e->kind != FAST_MEMORY)
    return false;
  unsigned address_bytes = amddwarf__aspace_address_bytes(m, e->space);
  uint64_t last = address_bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * address_bytes)) - 1;
  return address_bytes != 0 && (n == 0 || (x + (n - 1) >= x && x + (n - 1) <= last));
}

/* The bytes of a piece list (the frame's result when the stack is empty):
   every part valid as the general composite rules require, then the parts
   the read crosses, straight from the target. */
static bool fast_read_pieces(machine *m, const fast_frame *f, uint64_t bit_offset,
                             uint64_t bit_size, uint8_t *dst)
{
  uint64_t total = 0;
  uint64_t largest = m->req->format.address_size >= 8 ? UINT64_MAX : (UINT64_C(1) << 35);
  if (f->piece_count > m->ev->parts_cap)
    return false;
  for (unsigned i = 0; i < f->piece_count; i++) {
    const fast_entry *p = &f->pieces[i];
    if (f->piece_bits[i] % 8 || !fast_fits(m, p, p->x, f->piece_bits[i]) ||
        amddwarf_add_overflow_u64(total, f->piece_bits[i], &total) || total > largest)
      return false;
  }
  if (bit_offset > total || bit_size > total - bit_offset)
    return false;
  uint64_t pos = 0, at = 0;
  for (unsigned i = 0; i < f->piece_count && bit_size > 0; i++) {
    uint64_t bits = f->piece_bits[i];
    if (pos + bits <= bit_offset) {
      pos += bits;
      continue;
    }
    uint64_t start = bit_offset > pos ? bit_offset - pos : 0;
    uint64_t take = bits - start < bit_size ? bits - start : bit_size;
    if (start % 8 || take % 8 || !fast_read_bytes(m, &f->pieces[i], f->pieces[i].x + start / 8,
                                                   take / 8, dst + at / 8))
      return false;
    at += take;
    bit_size -= take;
    pos += bits;
  }
  return true;
}

/* The result of frame F read as amddwarf__access_read would, when it is a
   register, a memory location or a piece list of whole bytes of them. */
static bool fast_read_result(machine *m, const fast_frame *f, uint64_t bit_offset,
                             uint64_t bit_size, uint8_t *dst)
{
  if (bit_offset % 8 || bit_size % 8 || bit_size == 0)
    return false;
  if (f->sp == 0)
    return f->composite_open && fast_read_pieces(m, f, bit_offset, bit_size, dst);
  fast_entry top = f->stack[f->sp - 1];
  if (top.kind == FAST_VALUE) {
    top.kind = FAST_MEMORY;
    top.space = AMDDWARF_ASPACE_NONE;
  }
  uint64_t x = top.x + bit_offset / 8;
  if (f->composite_open || x < top.x || x > (UINT64_MAX >> 3) || !fast_fits(m, &top, x, bit_size))
    return false;
  return fast_read_bytes(m, &top, x, bit_size / 8, dst);
}

fast_outcome amddwarf__fast_eval_read(machine *m, const amddwarf_op *ops, size_t count,
                                      uint64_t bit_offset, uint64_t bit_size, uint8_t *dst,
                                      amddwarf_entry *result)
{
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  fast_frame_start(&f);
  fast_outcome outcome = FAST_DECLINED;
  if (fast_run(m, ops, count, &f)) {
    if (fast_read_result(m, &f, bit_offset, bit_size, dst))
      outcome = FAST_READ;
    else if (fast_result(m, &f, result))
      outcome = FAST_EVALUATED;
  }
  m->err = err;
  return outcome;
}
