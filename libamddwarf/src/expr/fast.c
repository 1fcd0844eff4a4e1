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

enum { FAST_PIECES = 8, FAST_COMPOSITES = 4 };

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

/* A select_bit_piece composite: part N of BITS bits is FROM[bit N of MASK]
   moved by N * BITS. One whose parts are whole bytes of registers or memory,
   all of them valid by the general composite rules, is read part by part
   without being built (the EXEC-selected spill read for one lane reads one
   of its 64 parts); LOCATION, at offset 0 in the context's part arena, is
   built when the location itself is needed. */
typedef struct fast_composite {
  bool built;
  amddwarf_location location;
  fast_entry from[2];
  uint64_t mask, bits, bit_size;
  uint32_t count;
} fast_composite;

typedef struct fast_frame {
  /* The stack, one array per field. Entries are read and written a field at
     a time: a copy of a whole entry would make the compiler read, as one
     wide load, fields that narrower stores just wrote, which the processor
     cannot forward from its store buffer (a stall of tens of cycles). */
  uint8_t kind[FAST_STACK];
  uint32_t space[FAST_STACK];
  uint64_t x[FAST_STACK];
  unsigned sp;
  unsigned below;         /* general-stack entries of the frames under this one */
  /* An incomplete composite under STACK, as pieces not yet appended. */
  bool composite_open;
  unsigned piece_count;
  fast_entry pieces[FAST_PIECES];
  uint64_t piece_bits[FAST_PIECES];
  /* Composites made by select_bit_piece. */
  unsigned composite_count;
  fast_composite composites[FAST_COMPOSITES];
} fast_frame;

/* An empty frame over BELOW entries of the general stack. The stack and
   piece arrays stay as they are: only the entries below the counts are
   ever read. */
static void fast_frame_start(fast_frame *f, unsigned below)
{
  f->sp = 0;
  f->below = below;
  f->composite_open = false;
  f->piece_count = 0;
  f->composite_count = 0;
}

/* A push: the plan has checked that the stack has room. */
static void fast_push(fast_frame *f, fast_kind kind, uint32_t space, uint64_t x)
{
  f->kind[f->sp] = (uint8_t)kind;
  f->space[f->sp] = space;
  f->x[f->sp++] = x;
}

/* Stack entry I. */
static fast_entry fast_get(const fast_frame *f, unsigned i)
{
  fast_entry e = {(fast_kind)f->kind[i], f->space[i], f->x[i]};
  return e;
}

/* Entry I as a generic value, converted in place: a value, or a memory
   location in the default address space as its address (the general
   machine's rule; breg pushes such a location). */
static bool fast_as_value(fast_frame *f, unsigned i)
{
  if (f->kind[i] == FAST_MEMORY && f->space[i] == AMDDWARF_ASPACE_NONE) {
    f->kind[i] = FAST_VALUE;
    f->space[i] = 0;
  }
  return f->kind[i] == FAST_VALUE;
}

/* The top entry as a generic value, popped. */
static bool fast_pop_value(fast_frame *f, uint64_t *x)
{
  if (!fast_as_value(f, f->sp - 1))
    return false;
  *x = f->x[--f->sp];
  return true;
}

/* The top entry as a location (a generic value is a default-space
   address), converted in place. */
static fast_entry fast_top_location(fast_frame *f)
{
  unsigned i = f->sp - 1;
  if (f->kind[i] == FAST_VALUE) {
    f->kind[i] = FAST_MEMORY;
    f->space[i] = AMDDWARF_ASPACE_NONE;
  }
  return fast_get(f, i);
}

static void fast_location_of_leaf(const fast_entry *e, amddwarf_location *loc);
static bool fast_location(machine *m, fast_frame *f, const fast_entry *e, amddwarf_location *loc);

/* Composite C of frame F built, as the general machine builds it (its
   sources first when they are composites made before it). */
static bool fast_build(machine *m, fast_frame *f, fast_composite *c)
{
  if (c->built)
    return true;
  amddwarf_location l0, l1;
  uint8_t mask_bytes[8];
  if (!fast_location(m, f, &c->from[0], &l0) || !fast_location(m, f, &c->from[1], &l1))
    return false;
  for (unsigned i = 0; i < 8; i++)
    mask_bytes[i] = (uint8_t)(c->mask >> (8 * i));
  c->built = amddwarf__select_composite(m, &l0, &l1, mask_bytes, c->bits, c->count,
                                        &c->location) == AMDDWARF_OK;
  return c->built;
}

/* Entry E of frame F as a location description; false when a composite
   does not build. */
static bool fast_location(machine *m, fast_frame *f, const fast_entry *e, amddwarf_location *loc)
{
  if (e->kind != FAST_COMPOSITE) {
    fast_location_of_leaf(e, loc);
    return true;
  }
  fast_composite *c = &f->composites[e->space];
  if (!fast_build(m, f, c))
    return false;
  *loc = c->location;
  loc->byte_offset = e->x;
  return true;
}

/* Entry E, not a composite, as a location description. */
static void fast_location_of_leaf(const fast_entry *e, amddwarf_location *loc)
{
  memset(loc, 0, sizeof *loc);
  switch (e->kind) {
  case FAST_COMPOSITE:
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
    uint64_t last = bits_mask(8 * n);
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
static inline bool fast_read_bytes(machine *m, const fast_entry *e, uint64_t x, uint64_t n, uint8_t *dst)
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

/* Whole bytes BITS / 8 at byte X of register or memory entry E fit its
   storage (append_leaf's rule for a part, check_bounds' for a read). */
static inline bool fast_fits(machine *m, const fast_entry *e, uint64_t x, uint64_t bits)
{
  uint64_t n = bits / 8;
  if (e->kind == FAST_REGISTER) {
    uint64_t size;
    return fast_register_bytes(m, e->space, &size) && x <= size && n <= size - x;
  }
  if (e->kind != FAST_MEMORY)
    return false;
  unsigned address_bytes = amddwarf__aspace_address_bytes(m, e->space);
  uint64_t last = bits_mask(8 * address_bytes);
  return address_bytes != 0 && (n == 0 || (x + (n - 1) >= x && x + (n - 1) <= last));
}

static inline bool fast_move(fast_entry *e, int64_t bytes, uint64_t limit);

/* Moves location E of frame F by BYTES (amddwarf__loc_add_bytes' range rules). */
static inline bool fast_offset(machine *m, const fast_frame *f, fast_entry *e, int64_t bytes)
{
  uint64_t limit;
  if (e->kind == FAST_MEMORY) {
    unsigned n = amddwarf__aspace_address_bytes(m, e->space);
    if (n == 0)
      return false;
    limit = bits_mask(8 * n); /* last valid byte */
  } else if (e->kind == FAST_REGISTER) {
    uint64_t size;
    if (!fast_register_bytes(m, e->space, &size) || size == 0)
      return false;
    limit = size - 1; /* the offset stays inside the register */
  } else if (e->kind == FAST_COMPOSITE) {
    uint64_t bits = f->composites[e->space].bit_size;
    if (bits == 0)
      return false;
    limit = (bits - 1) / 8;
  } else {
    return false;
  }
  return fast_move(e, bytes, limit);
}

/* Moves location E by BYTES when it stays at or below byte LIMIT. */
static inline bool fast_move(fast_entry *e, int64_t bytes, uint64_t limit)
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

/* ---- plans ------------------------------------------------------------------ */

/* What each plan step does; operands are unpacked and range-checked once,
   when the expression is compiled. */
typedef enum fast_code {
  FC_NOP,
  FC_VALUE,          /* push generic B */
  FC_REGISTER,       /* push register A */
  FC_ADDRESS,        /* push default-space address B */
  FC_BREG,           /* register A's value + B (signed), default space */
  FC_ASPACE_BREG,    /* the same in the address space popped */
  FC_FBREG,          /* the frame base + B (signed) */
  FC_LANE,
  FC_DUP,
  FC_OVER,
  FC_DROP,
  FC_SWAP,
  FC_BINARY,         /* operation A on two generic values */
  FC_BINARY_CONST,   /* operation A on the generic value and B: a constant
                        and the operation after it, fused */
  FC_PLUS_UCONST,    /* generic + B */
  FC_OFFSET,         /* location + popped generic (signed) */
  FC_OFFSET_UCONST,  /* location + B */
  FC_LANE_OFFSET,    /* location + the lane times B: a lane's element, as
                        push_lane, a constant multiply and offset, fused */
  FC_FORM_ASPACE,    /* address in the popped address space */
  FC_DEREF,          /* B bytes, 0 for the generic size */
  FC_PIECE,          /* B bits */
  FC_SELECT,         /* select_bit_piece: B bits, A count */
} fast_code;

/* Stack entries each code needs and the change it makes (a piece needs at
   most one entry and leaves none). */
static const struct {
  uint8_t needs;
  int8_t change;
} fast_effect[] = {
    [FC_NOP] = {0, 0},           [FC_VALUE] = {0, 1},          [FC_REGISTER] = {0, 1},
    [FC_ADDRESS] = {0, 1},       [FC_BREG] = {0, 1},           [FC_ASPACE_BREG] = {1, 0},
    [FC_FBREG] = {0, 1},         [FC_LANE] = {0, 1},           [FC_DUP] = {1, 1},
    [FC_OVER] = {2, 1},          [FC_DROP] = {1, -1},          [FC_SWAP] = {2, 0},
    [FC_BINARY] = {2, -1},       [FC_BINARY_CONST] = {1, 0},   [FC_PLUS_UCONST] = {1, 0},
    [FC_OFFSET] = {2, -1},       [FC_OFFSET_UCONST] = {1, 0},  [FC_LANE_OFFSET] = {1, 0},
    [FC_FORM_ASPACE] = {2, -1},  [FC_DEREF] = {1, 0},          [FC_PIECE] = {0, 0},
    [FC_SELECT] = {3, -2},
};

/* The plan step for OP, false when OP is not in the fast set. */
static bool fast_compile_op(const amddwarf_op *op, fast_step *s)
{
  amddwarf_op_kind kind = op->kind;
  uint64_t x = op->operands[0], y = op->operands[1];
  s->a = 0;
  s->b = x;
  if (kind >= AMDDWARF_OP_lit0 && kind <= AMDDWARF_OP_lit31) {
    s->code = FC_VALUE;
    s->b = (uint64_t)(kind - AMDDWARF_OP_lit0);
    return true;
  }
  if (kind >= AMDDWARF_OP_reg0 && kind <= AMDDWARF_OP_reg31) {
    s->code = FC_REGISTER;
    s->a = (uint32_t)(kind - AMDDWARF_OP_reg0);
    return true;
  }
  if (kind >= AMDDWARF_OP_breg0 && kind <= AMDDWARF_OP_breg31) {
    s->code = FC_BREG;
    s->a = (uint32_t)(kind - AMDDWARF_OP_breg0);
    return true;
  }
  switch (kind) {
  case AMDDWARF_OP_nop: case AMDDWARF_OP_LLVM_nop:
    s->code = FC_NOP;
    return true;
  case AMDDWARF_OP_const1u: case AMDDWARF_OP_const2u: case AMDDWARF_OP_const4u:
  case AMDDWARF_OP_const8u: case AMDDWARF_OP_constu: case AMDDWARF_OP_const1s:
  case AMDDWARF_OP_const2s: case AMDDWARF_OP_const4s: case AMDDWARF_OP_const8s:
  case AMDDWARF_OP_consts:
    s->code = FC_VALUE;
    return true;
  case AMDDWARF_OP_addr:
    s->code = FC_ADDRESS;
    return true;
  case AMDDWARF_OP_regx:
    s->code = FC_REGISTER;
    s->a = (uint32_t)x;
    return x <= UINT32_MAX;
  case AMDDWARF_OP_bregx:
  case AMDDWARF_OP_LLVM_aspace_bregx:
    s->code = kind == AMDDWARF_OP_bregx ? FC_BREG : FC_ASPACE_BREG;
    s->a = (uint32_t)x;
    s->b = y;
    return x <= UINT32_MAX;
  case AMDDWARF_OP_fbreg:
    s->code = FC_FBREG;
    return true;
  case AMDDWARF_OP_LLVM_push_lane:
    s->code = FC_LANE;
    return true;
  case AMDDWARF_OP_dup: s->code = FC_DUP; return true;
  case AMDDWARF_OP_over: s->code = FC_OVER; return true;
  case AMDDWARF_OP_drop: s->code = FC_DROP; return true;
  case AMDDWARF_OP_swap: s->code = FC_SWAP; return true;
  case AMDDWARF_OP_plus: case AMDDWARF_OP_minus: case AMDDWARF_OP_mul: case AMDDWARF_OP_and:
  case AMDDWARF_OP_or: case AMDDWARF_OP_xor: case AMDDWARF_OP_shl: case AMDDWARF_OP_shr:
  case AMDDWARF_OP_eq: case AMDDWARF_OP_ne:
    s->code = FC_BINARY;
    s->a = (uint32_t)kind;
    return true;
  case AMDDWARF_OP_plus_uconst:
    s->code = FC_PLUS_UCONST;
    return true;
  case AMDDWARF_OP_LLVM_offset:
    s->code = FC_OFFSET;
    return true;
  case AMDDWARF_OP_LLVM_offset_uconst:
    s->code = FC_OFFSET_UCONST;
    return x <= INT64_MAX;
  case AMDDWARF_OP_LLVM_form_aspace_address:
    s->code = FC_FORM_ASPACE;
    return true;
  case AMDDWARF_OP_deref:
    s->code = FC_DEREF;
    s->b = 0;
    return true;
  case AMDDWARF_OP_deref_size:
    s->code = FC_DEREF;
    return x != 0; /* a zero size is the general path's error */
  case AMDDWARF_OP_piece:
    s->code = FC_PIECE;
    s->b = x * 8;
    return x <= UINT64_MAX / 8;
  case AMDDWARF_OP_bit_piece:
    s->code = FC_PIECE;
    return y == 0;
  case AMDDWARF_OP_LLVM_select_bit_piece:
    s->code = FC_SELECT;
    s->a = (uint32_t)y;
    return x != 0 && y != 0 && y <= 64;
  default:
    return false;
  }
}

void amddwarf__fast_compile(const amddwarf_op *ops, size_t count, fast_plan *plan)
{
  /* The stack depth before each step is the same on every run (there are
     no branches in the fast set), so underflow is found here once and a
     run checks its room once. */
  unsigned depth = 0, deepest = 0;
  plan->usable = false;
  plan->count = 0;
  if (count > FAST_PLAN_STEPS)
    return;
  uint32_t n = 0;
  for (size_t i = 0; i < count; i++) {
    fast_step *s = &plan->steps[n];
    if (!fast_compile_op(&ops[i], s) || depth < fast_effect[s->code].needs ||
        (s->code == FC_PIECE && depth > 1))
      return;
    if (s->code == FC_BINARY && n > 0 && plan->steps[n - 1].code == FC_VALUE) {
      /* A constant operand: one step instead of a push and a pop. */
      plan->steps[n - 1].code = FC_BINARY_CONST;
      plan->steps[n - 1].a = s->a;
      n--;
    } else if (s->code == FC_OFFSET && n > 1 && plan->steps[n - 2].code == FC_LANE &&
               plan->steps[n - 1].code == FC_BINARY_CONST &&
               plan->steps[n - 1].a == AMDDWARF_OP_mul) {
      /* The lane's element of a location (the depth counted below stays
         that of the three operations: an entry more than the step needs). */
      plan->steps[n - 2].code = FC_LANE_OFFSET;
      plan->steps[n - 2].b = plan->steps[n - 1].b;
      n -= 2;
    }
    n++;
    depth = s->code == FC_PIECE ? 0 : (unsigned)((int)depth + fast_effect[s->code].change);
    if (depth > deepest)
      deepest = depth;
  }
  if (deepest > FAST_STACK)
    return;
  plan->count = n;
  plan->operations = (uint32_t)count;
  plan->deepest = deepest;
  plan->usable = true;
}

/* breg, bregx, aspace_bregx: register REGNO's first bytes plus DISP. */
static bool fast_breg(machine *m, fast_frame *f, uint32_t regno, int64_t disp, uint32_t aspace)
{
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  uint64_t size, x;
  fast_entry reg = {FAST_REGISTER, regno, 0};
  if (n == 0 || !fast_register_bytes(m, regno, &size) || !fast_read(m, &reg, size < 8 ? size : 8, &x))
    return false;
  fast_push(f, FAST_MEMORY, aspace, (x + (uint64_t)disp) & bits_mask(n * 8));
  return true;
}

static bool fast_run(machine *m, const fast_plan *plan, fast_frame *f);

/* DW_OP_fbreg: the frame base on a frame of its own, a memory location. */
static bool fast_frame_base(machine *m, fast_frame *f, int64_t disp)
{
  const uint8_t *bytes = NULL;
  size_t size = 0;
  program p;
  if (m->depth > 0 || m->depth >= m->ev->max_call_depth || !TARGET_HAS(m->t, frame_base) ||
      m->t->frame_base(m->t->user, &bytes, &size) != AMDDWARF_OK ||
      amddwarf__load_program(m, bytes, size, &p) != AMDDWARF_OK || !p.plan)
    return false;
  fast_frame inner;
  fast_frame_start(&inner, f->below + f->composite_open + f->sp);
  m->depth++;
  /* No load follows while it runs (no fbreg below depth 1), so the
     cached plan cannot move under it. */
  bool ok = fast_run(m, p.plan, &inner);
  m->depth--;
  if (!ok || inner.sp == 0)
    return false;
  fast_entry base = fast_top_location(&inner);
  if (base.kind != FAST_MEMORY || !fast_offset(m, &inner, &base, disp))
    return false;
  fast_push(f, FAST_MEMORY, base.space, base.x);
  return true;
}

/* DW_OP_piece N / DW_OP_bit_piece N 0: the top entry (or undefined storage
   when there is none) becomes the next part of the composite. */
static bool fast_piece(fast_frame *f, uint64_t bits)
{
  if (f->piece_count == FAST_PIECES)
    return false;
  fast_entry *part = &f->pieces[f->piece_count];
  if (f->sp == 1) {
    fast_entry top = fast_top_location(f);
    if (top.kind == FAST_COMPOSITE)
      return false;
    *part = top;
  } else {
    part->kind = FAST_UNDEFINED;
    part->space = 0;
    part->x = 0;
  }
  f->sp = 0;
  f->composite_open = true;
  f->piece_bits[f->piece_count++] = bits;
  return true;
}

/* Composite C can be read without being built: its parts are whole bytes
   of registers or memory, each run of equal mask bits inside its storage
   (select_run's rule), within the step and part limits. */
static bool fast_lazy(machine *m, const fast_composite *c)
{
  uint32_t runs = 0;
  if (c->bits % 8 || c->bit_size > machine_composite_bits_limit(m) ||
      c->count > m->ev->max_steps - m->steps)
    return false;
  for (int i = 0; i < 2; i++)
    if (c->from[i].kind != FAST_REGISTER && c->from[i].kind != FAST_MEMORY)
      return false;
  for (uint32_t first = 0, end; first < c->count; first = end, runs++) {
    unsigned bit = c->mask >> first & 1;
    /* The run ends at the first bit after FIRST that differs. */
    uint64_t differ = (bit ? ~c->mask : c->mask) >> first;
    end = differ ? first + (uint32_t)__builtin_ctzll(differ) : c->count;
    if (end > c->count)
      end = c->count;
    const fast_entry *from = &c->from[bit];
    uint64_t start;
    if (amddwarf_add_overflow_u64(from->x, first * (c->bits / 8), &start) ||
        !fast_fits(m, from, start, (end - first) * c->bits))
      return false;
  }
  /* At most one part per run: the parts the composite would take. */
  return m->parts_used <= m->ev->parts_cap && runs <= m->ev->parts_cap - m->parts_used;
}

/* DW_OP_LLVM_select_bit_piece BITS COUNT under a generic mask. */
static bool fast_select(machine *m, fast_frame *f, uint64_t bits, uint32_t count)
{
  uint64_t mask;
  if (count > machine_generic_bits(m) || f->composite_count == FAST_COMPOSITES ||
      !fast_pop_value(f, &mask))
    return false;
  fast_composite *c = &f->composites[f->composite_count];
  c->from[1] = fast_top_location(f);
  f->sp--;
  c->from[0] = fast_top_location(f);
  f->sp--;
  c->mask = mask;
  c->bits = bits;
  c->count = count;
  c->built = false;
  if (amddwarf_mul_overflow_u64(bits, count, &c->bit_size) || c->bit_size > INT64_MAX)
    return false;
  /* A composite of composites is not lazy (fast_lazy): it is built now. */
  if (fast_lazy(m, c))
    m->steps += count; /* as building it counts */
  else if (!fast_build(m, f, c))
    return false;
  fast_push(f, FAST_COMPOSITE, f->composite_count++, 0);
  return true;
}

/* Whether the wave has the machine's lane: every wave has at least 32 lanes,
   so only a higher lane asks the target. */
static inline bool fast_lane_exists(machine *m)
{
  return m->lane < 32 || m->lane < amddwarf__machine_wave_size(m);
}

/* Operation KIND on the two generic values on top. */
static bool fast_binary(machine *m, fast_frame *f, amddwarf_op_kind kind)
{
  unsigned y = f->sp - 1, x = y - 1;
  uint64_t z;
  uint32_t bits = machine_generic_bits(m);
  if (!fast_as_value(f, x) || !fast_as_value(f, y) ||
      !amddwarf__integer_binary(kind, f->x[x], f->x[y], bits, &z))
    return false;
  f->sp--;
  f->x[x] = z & bits_mask(bits);
  return true;
}

/* Step S, on a frame whose depth the plan has checked; inlined into the
   run loop, where a call per step would cost as much as most steps. */
static inline __attribute__((always_inline)) bool fast_do(machine *m, fast_frame *f, const fast_step *s)
{
  uint64_t x;
  unsigned top;
  fast_entry e;
  switch ((fast_code)s->code) {
  case FC_NOP:
    return true;
  case FC_VALUE:
    fast_push(f, FAST_VALUE, 0, s->b & bits_mask(machine_generic_bits(m)));
    return true;
  case FC_REGISTER:
    fast_push(f, FAST_REGISTER, s->a, 0);
    return true;
  case FC_ADDRESS:
    fast_push(f, FAST_MEMORY, AMDDWARF_ASPACE_NONE, s->b);
    return true;
  case FC_BREG:
    return fast_breg(m, f, s->a, (int64_t)s->b, AMDDWARF_ASPACE_NONE);
  case FC_ASPACE_BREG: {
    uint32_t aspace;
    return fast_pop_value(f, &x) &&
           amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, x, &aspace) == AMDDWARF_OK &&
           fast_breg(m, f, s->a, (int64_t)s->b, aspace);
  }
  case FC_FBREG:
    return fast_frame_base(m, f, (int64_t)s->b);
  case FC_LANE:
    if (!fast_lane_exists(m))
      return false;
    fast_push(f, FAST_VALUE, 0, m->lane & bits_mask(machine_generic_bits(m)));
    return true;
  case FC_DUP:
  case FC_OVER:
    e = fast_get(f, f->sp - (s->code == FC_DUP ? 1 : 2));
    fast_push(f, e.kind, e.space, e.x);
    return true;
  case FC_DROP:
    f->sp--;
    return true;
  case FC_SWAP: {
    fast_entry first = fast_get(f, f->sp - 1), second = fast_get(f, f->sp - 2);
    f->sp -= 2;
    fast_push(f, first.kind, first.space, first.x);
    fast_push(f, second.kind, second.space, second.x);
    return true;
  }
  case FC_BINARY:
    return fast_binary(m, f, (amddwarf_op_kind)s->a);
  case FC_BINARY_CONST: {
    uint32_t bits = machine_generic_bits(m);
    top = f->sp - 1;
    if (!fast_as_value(f, top) ||
        !amddwarf__integer_binary((amddwarf_op_kind)s->a, f->x[top], s->b & bits_mask(bits), bits,
                                  &x))
      return false;
    f->x[top] = x & bits_mask(bits);
    return true;
  }
  case FC_PLUS_UCONST:
    top = f->sp - 1;
    if (!fast_as_value(f, top))
      return false;
    f->x[top] = (f->x[top] + s->b) & bits_mask(machine_generic_bits(m));
    return true;
  case FC_OFFSET:
    if (!fast_pop_value(f, &x))
      return false;
    e = fast_top_location(f);
    if (!fast_offset(m, f, &e, generic_signed(m, x)))
      return false;
    f->x[f->sp - 1] = e.x;
    return true;
  case FC_OFFSET_UCONST:
    e = fast_top_location(f);
    if (!fast_offset(m, f, &e, (int64_t)s->b))
      return false;
    f->x[f->sp - 1] = e.x;
    return true;
  case FC_LANE_OFFSET: {
    /* The three steps' rules, without the stack in between. */
    uint32_t bits = machine_generic_bits(m);
    if (!fast_lane_exists(m) ||
        !amddwarf__integer_binary(AMDDWARF_OP_mul, m->lane & bits_mask(bits),
                                  s->b & bits_mask(bits), bits, &x))
      return false;
    e = fast_top_location(f);
    if (!fast_offset(m, f, &e, generic_signed(m, x & bits_mask(bits))))
      return false;
    f->x[f->sp - 1] = e.x;
    return true;
  }
  case FC_FORM_ASPACE: {
    uint32_t aspace;
    uint64_t address;
    unsigned n;
    if (!fast_pop_value(f, &x) ||
        amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, x, &aspace) != AMDDWARF_OK ||
        (n = amddwarf__aspace_address_bytes(m, aspace)) == 0 || !fast_pop_value(f, &address))
      return false;
    fast_push(f, FAST_MEMORY, aspace, address & bits_mask(n * 8));
    return true;
  }
  case FC_DEREF: {
    uint64_t size = s->b ? s->b : machine_generic_bits(m) / 8;
    e = fast_top_location(f);
    if (size * 8 > machine_generic_bits(m) || !fast_read(m, &e, size, &x))
      return false;
    f->sp--;
    fast_push(f, FAST_VALUE, 0, x);
    return true;
  }
  case FC_PIECE:
    return fast_piece(f, s->b);
  case FC_SELECT:
    return fast_select(m, f, s->b, s->a);
  }
  return false;
}

/* Runs PLAN on F when the general machine's limits (steps, stack entries)
   leave room for all of it. */
static bool fast_run(machine *m, const fast_plan *plan, fast_frame *f)
{
  uint32_t steps_left = m->ev->max_steps > m->steps ? m->ev->max_steps - m->steps : 0;
  uint32_t stack_left = m->ev->stack_cap > f->below ? m->ev->stack_cap - f->below : 0;
  /* One entry more than the deepest stack: an open composite's. */
  if (!plan->usable || plan->operations > steps_left || plan->deepest + 1 > stack_left)
    return false;
  m->steps += plan->operations;
  for (uint32_t i = 0; i < plan->count; i++)
    if (!fast_do(m, f, &plan->steps[i]))
      return false;
  return true;
}

static bool fast_result(machine *m, fast_frame *f, amddwarf_entry *result);

bool amddwarf__fast_eval_location(machine *m, const fast_plan *plan, amddwarf_entry *result)
{
  /* Nothing is reported from here: a decline leaves *err as it was. */
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  fast_frame_start(&f, 0);
  bool done = fast_run(m, plan, &f) && fast_result(m, &f, result);
  m->err = err;
  return done;
}

static bool fast_result(machine *m, fast_frame *f, amddwarf_entry *result)
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
      fast_location_of_leaf(&f->pieces[i], &part); /* never a composite (fast_piece) */
      st = amddwarf__composite_append(m, &result->location, &part, f->piece_bits[i]);
    }
  }
  if (f->sp > 0) {
    fast_entry top = fast_get(f, f->sp - 1);
    if (!fast_location(m, f, &top, &result->location))
      return false;
  } else if (!f->composite_open) {
    fast_entry undefined = {FAST_UNDEFINED, 0, 0};
    fast_location_of_leaf(&undefined, &result->location);
  }
  return st == AMDDWARF_OK;
}

/* ---- evaluation and read in one pass ------------------------------------- */

/* The bytes of a piece list (the frame's result when the stack is empty):
   every part valid as the general composite rules require, then the parts
   the read crosses, straight from the target. */
static bool fast_read_pieces(machine *m, const fast_frame *f, uint64_t bit_offset,
                             uint64_t bit_size, uint8_t *dst)
{
  uint64_t total = 0;
  uint64_t largest = machine_composite_bits_limit(m);
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

/* N bytes at byte X of composite C, not built, part by part straight from
   the target (the read inside the composite: check_bounds' rule). */
static bool fast_read_composite(machine *m, const fast_composite *c, uint64_t x, uint64_t n,
                                uint8_t *dst)
{
  uint64_t part_bytes = c->bits / 8, size = c->bit_size / 8;
  if (c->built || x > size || n > size - x)
    return false;
  while (n > 0) {
    uint64_t part = x / part_bytes, within = x % part_bytes;
    uint64_t take = part_bytes - within < n ? part_bytes - within : n;
    const fast_entry *from = &c->from[c->mask >> part & 1];
    if (!fast_read_bytes(m, from, from->x + part * part_bytes + within, take, dst))
      return false;
    x += take;
    dst += take;
    n -= take;
  }
  return true;
}

/* The result of frame F read as amddwarf__access_read would, when it is a
   register, a memory location or a piece list of whole bytes of them. */
static bool fast_read_result(machine *m, fast_frame *f, uint64_t bit_offset,
                             uint64_t bit_size, uint8_t *dst)
{
  if (bit_offset % 8 || bit_size % 8 || bit_size == 0)
    return false;
  if (f->sp == 0)
    return f->composite_open && fast_read_pieces(m, f, bit_offset, bit_size, dst);
  fast_entry top = fast_top_location(f);
  uint64_t x = top.x + bit_offset / 8;
  if (f->composite_open || x < top.x || x > (UINT64_MAX >> 3))
    return false;
  if (top.kind == FAST_COMPOSITE)
    return fast_read_composite(m, &f->composites[top.space], x, bit_size / 8, dst);
  return fast_fits(m, &top, x, bit_size) && fast_read_bytes(m, &top, x, bit_size / 8, dst);
}

fast_outcome amddwarf__fast_eval_read(machine *m, const fast_plan *plan, uint64_t bit_offset,
                                      uint64_t bit_size, uint8_t *dst, amddwarf_entry *result)
{
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  fast_frame_start(&f, 0);
  fast_outcome outcome = FAST_DECLINED;
  if (fast_run(m, plan, &f)) {
    if (fast_read_result(m, &f, bit_offset, bit_size, dst))
      outcome = FAST_READ;
    else if (fast_result(m, &f, result))
      outcome = FAST_EVALUATED;
  }
  m->err = err;
  return outcome;
}
