/* The one-lane fast path: a location that uses only the common operations
 * (literals, registers, breg/fbreg, the lane, integer arithmetic on generic
 * values, offsets, address spaces, deref, whole-byte pieces and
 * select_bit_piece), run from its plan (fast_plan.h, compiled by
 * fast_compile.c) on a frame of numbers: the plan knows the kind and the
 * stack slot of every entry, so a step only computes. The steps are
 * plan_interp.inc's, the interpreter the whole-wave evaluator runs too;
 * this file is its domain of plain numbers, the reads and the result.
 *
 * It never reports anything. Whatever it does not handle, and every error
 * (a bad register, a read that fails, an offset out of range), makes it
 * decline; the caller then runs the general machine from the start, which
 * gives the exact result or error. A decline only costs the target reads
 * done so far, which are repeated; the fast path is off while tracing, so a
 * trace shows each access once. test_eval_fast.c checks both paths against
 * each other on random expressions. */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "expr/eval_internal.h"
#include "expr/machine_rules.h"

/* A generic value's address space is the default one, so that it serves as
   a default-space address without a conversion, and a copy never reads an
   unset field. */
_Static_assert(AMDDWARF_ASPACE_NONE == 0, "a generic value's space field is 0");

/* A location entry with its kind: what the storage helpers take. */
typedef struct fast_entry {
  fast_kind kind;
  uint32_t space;
  uint64_t x;
  uint64_t register_bytes; /* a register's fixed-map size, 0: ask */
} fast_entry;

/* A select_bit_piece composite: part N of BITS bits is FROM[bit N of MASK]
   moved by N * BITS. One whose parts are whole bytes of registers or memory,
   all of them valid by the general composite rules, is read part by part
   without being built (the EXEC-selected spill read for one lane reads one
   of its 64 parts); LOCATION, in the context's part arena, is built when
   the location itself is needed. */
typedef struct fast_composite {
  bool built;
  amddwarf_location location;
  fast_entry from[2];
  uint64_t mask, bits, bit_size;
  uint32_t count;
} fast_composite;

/* The numbers of a run. Slot I of the stack is SPACE[I] and X[I]; the plan
   says which slots hold entries and what kind each is. A generic value's
   SPACE is 0. */
typedef struct fast_frame {
  uint32_t space[FAST_STACK];
  uint64_t x[FAST_STACK];
  unsigned below; /* general-stack entries of the frames under this one */
  /* The parts of an open composite (their kinds and bits are the plan's). */
  uint32_t piece_space[FAST_PIECES];
  uint64_t piece_x[FAST_PIECES];
  fast_composite composites[FAST_COMPOSITES];
} fast_frame;

static inline void fast_set(fast_frame *f, unsigned slot, uint32_t space, uint64_t x)
{
  f->space[slot] = space;
  f->x[slot] = x;
}

/* Slot I as a generic value: a value, or memory in the default space (the
   general machine's rule; breg pushes such a location). The plan has ruled
   out the other kinds. */
static inline bool fast_value(const fast_frame *f, unsigned i)
{
  return f->space[i] == AMDDWARF_ASPACE_NONE;
}

/* Slot I, of kind KIND on the plan, as a location: a generic value is a
   default-space address. */
static inline fast_entry fast_entry_at(const fast_frame *f, unsigned i, uint8_t kind,
                                       uint64_t register_bytes)
{
  fast_entry e = {kind == FAST_VALUE ? FAST_MEMORY : (fast_kind)kind, f->space[i], f->x[i],
                  register_bytes};
  return e;
}

static void fast_location_of_leaf(const fast_entry *e, amddwarf_location *loc);
static inline bool fast_location(machine *m, fast_frame *f, const fast_entry *e, amddwarf_location *loc);

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
   does not build. Inline: the result of every run asks it. */
static inline __attribute__((always_inline)) bool fast_location(machine *m, fast_frame *f, const fast_entry *e, amddwarf_location *loc)
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
    loc->u.memory.aspace = e->space;
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
  return rule_sign_extend(x, machine_generic_bits(m));
}

/* N bytes at byte X of register or memory entry E fit its storage (the
   whole-byte rules of rules.h; append_leaf's for a part, check_bounds' for
   a read). */
static inline bool fast_bytes_fit(machine *m, const fast_entry *e, uint64_t x, uint64_t n)
{
  if (e->kind == FAST_REGISTER) {
    uint64_t size;
    return register_size(m, e->space, e->register_bytes, &size) == AMDDWARF_OK &&
           rule_sized_bytes_fit(size, x, n);
  }
  unsigned address_bytes =
      e->kind == FAST_MEMORY ? amddwarf__aspace_address_bytes(m, e->space) : 0;
  return address_bytes != 0 && rule_memory_bytes_fit(rule_address_mask(address_bytes), x, n);
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

/* Reads SIZE bytes (at most 8) of register or memory entry E, with the
   general path's bounds rules, as a little-endian number. */
static bool fast_read(machine *m, const fast_entry *e, uint64_t size, uint64_t *out)
{
  uint8_t buf[8] = {0};
  if (!fast_bytes_fit(m, e, e->x, size) || !fast_read_bytes(m, e, e->x, size, buf))
    return false;
  *out = amddwarf__load_le64(buf);
  return true;
}

/* Moves location E of frame F by BYTES, when it stays inside its storage. */
static inline bool fast_offset(machine *m, const fast_frame *f, fast_entry *e, int64_t bytes)
{
  uint64_t moved, size;
  storage_size storage;
  switch (e->kind) {
  case FAST_REGISTER:
    if (register_size(m, e->space, e->register_bytes, &size) != AMDDWARF_OK ||
        !rule_moved_byte(e->x, bytes, &moved) || !rule_inside_sized_bytes(size, moved))
      return false;
    break;
  case FAST_MEMORY:
    if (!amddwarf__memory_move(m, e->space, e->x, bytes, &moved))
      return false;
    break;
  case FAST_COMPOSITE:
    storage = sized_storage(f->composites[e->space].bit_size);
    if (!rule_moved_byte(e->x, bytes, &moved) || !rule_inside(&storage, moved, 0))
      return false;
    break;
  default:
    return false;
  }
  e->x = moved;
  return true;
}

/* Slot SLOT's location of kind KIND moved by BYTES. */
static inline bool fast_offset_slot(machine *m, fast_frame *f, unsigned slot, uint8_t kind,
                                    uint64_t register_bytes, int64_t bytes)
{
  fast_entry e = fast_entry_at(f, slot, kind, register_bytes);
  if (!fast_offset(m, f, &e, bytes))
    return false;
  f->x[slot] = e.x;
  return true;
}

/* breg, bregx, aspace_bregx: register A's value plus B in ASPACE, into
   SLOT. */
static inline __attribute__((always_inline)) bool
dom_breg(machine *m, fast_frame *f, const fast_step *s, unsigned slot, uint32_t aspace)
{
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  uint64_t address;
  if (n == 0 || amddwarf__register_address(m, s->a, s->register_bytes, s->b, n, true,
                                           &address) != AMDDWARF_OK)
    return false;
  fast_set(f, slot, aspace, address);
  return true;
}

/* Composite C, of whole-byte parts of registers or memory (the plan's
   lazy select), can be read without being built: the parts taken from
   each source lie in its storage (rule_parts_fit, select_run's rule),
   within the step and part limits. Out of line: inlined, its storage
   lookups make the interpreter's other steps dearer. */
static __attribute__((noinline)) bool fast_lazy(machine *m, const fast_composite *c)
{
  if (c->count > m->ev->max_steps - m->steps)
    return false;
  for (unsigned bit = 0; bit < 2; bit++) {
    const fast_entry *from = &c->from[bit];
    uint64_t end = rule_select_end(c->mask, c->count, bit);
    storage_size storage;
    if (end != 0 &&
        (amddwarf__storage_of(m, from->kind == FAST_REGISTER ? AMDDWARF_LOCATION_REGISTER
                                                             : AMDDWARF_LOCATION_MEMORY,
                              from->space, from->register_bytes, &storage) != AMDDWARF_OK ||
         !rule_parts_fit(&storage, from->x, 0, c->bits, 0, end)))
      return false;
  }
  /* At most one part per run of equal bits: the parts the composite would
     take (64 at most, so only a nearly full arena needs the count). */
  if (m->parts_used > m->ev->parts_cap)
    return false;
  uint32_t room = m->ev->parts_cap - m->parts_used;
  return room >= 64 ||
         1 + (uint32_t)__builtin_popcountll((c->mask ^ (c->mask >> 1)) & (bits_mask(c->count) >> 1)) <= room;
}

/* DW_OP_LLVM_select_bit_piece B A: the mask on top, the two locations
   under it, into composite INDEX. */
static bool dom_select(machine *m, fast_frame *f, const fast_step *s)
{
  unsigned top = s->depth - 1u;
  if (!fast_value(f, top))
    return false;
  fast_composite *c = &f->composites[s->index];
  c->from[1] = fast_entry_at(f, top - 1, s->kind[1], s->one_register_bytes);
  c->from[0] = fast_entry_at(f, top - 2, s->kind[2], s->register_bytes);
  c->mask = f->x[top];
  c->bits = s->b;
  c->count = s->a;
  c->bit_size = s->b * s->a; /* the compiler has checked the product */
  c->built = false;
  /* A composite of composites, or of parts not whole bytes, is built now. */
  if (s->lazy && fast_lazy(m, c))
    m->steps += c->count; /* as building it counts */
  else if (!fast_build(m, f, c))
    return false;
  fast_set(f, top - 2, s->index, 0);
  return true;
}

/* ---- the plan's steps over numbers (plan_interp.inc's scalar domain) ------ */

typedef machine plan_ctx;
typedef fast_frame plan_frame;
typedef uint64_t plan_value;
typedef struct plan_slot {
  uint32_t space;
  uint64_t x;
} plan_slot;

static inline uint64_t dom_constant(uint64_t b)
{
  return b;
}

static inline plan_slot dom_get(const fast_frame *f, unsigned i)
{
  plan_slot s = {f->space[i], f->x[i]};
  return s;
}

static inline void dom_put(fast_frame *f, unsigned i, plan_slot s)
{
  fast_set(f, i, s.space, s.x);
}

static inline void dom_copy(fast_frame *f, unsigned to, unsigned from)
{
  fast_set(f, to, f->space[from], f->x[from]);
}

static inline void dom_set_value(fast_frame *f, unsigned i, uint64_t x)
{
  fast_set(f, i, AMDDWARF_ASPACE_NONE, x);
}

/* Slot I holds a generic value already: only its number changes. */
static inline void dom_set_number(fast_frame *f, unsigned i, uint64_t x)
{
  f->x[i] = x;
}

static inline void dom_set_register(fast_frame *f, unsigned i, uint32_t regno)
{
  fast_set(f, i, regno, 0);
}

static inline void dom_set_memory(fast_frame *f, unsigned i, uint32_t aspace, uint64_t x)
{
  fast_set(f, i, aspace, x);
}

static inline void dom_set_undefined(fast_frame *f, unsigned i)
{
  fast_set(f, i, 0, 0);
}

static inline bool dom_value_of(const fast_frame *f, unsigned i, uint64_t *x)
{
  *x = f->x[i];
  return fast_value(f, i);
}

static inline bool dom_space_of(const fast_frame *f, unsigned i, uint32_t *aspace)
{
  return fast_value(f, i) && amddwarf__aspace_of_number(f->x[i], aspace);
}

static inline bool dom_lane(machine *m, uint64_t mask, uint64_t *x)
{
  if (!amddwarf__machine_has_lane(m, m->lane))
    return false;
  *x = m->lane & mask;
  return true;
}

static inline bool dom_binary(machine *m, amddwarf_op_kind kind, uint64_t x, uint64_t y,
                              uint64_t *z)
{
  uint32_t bits = machine_generic_bits(m);
  if (!amddwarf__integer_arithmetic(kind, x, y, bits, z))
    return false;
  *z &= bits_mask(bits);
  return true;
}

static inline uint64_t dom_signed(const machine *m, uint64_t x)
{
  return (uint64_t)generic_signed(m, x);
}

static inline bool dom_move(machine *m, fast_frame *f, unsigned i, uint8_t kind,
                            uint64_t register_bytes, uint64_t delta)
{
  return fast_offset_slot(m, f, i, kind, register_bytes, (int64_t)delta);
}

static inline bool dom_form_aspace(machine *m, fast_frame *f, unsigned i, uint32_t aspace)
{
  uint64_t address;
  if (!fast_value(f, i) || !amddwarf__aspace_address(m, aspace, f->x[i], &address))
    return false;
  fast_set(f, i, aspace, address);
  return true;
}


static inline machine *dom_machine(machine *m)
{
  return m;
}

static inline void dom_frame_above(const fast_frame *f, unsigned n, fast_frame *inner)
{
  inner->below = f->below + n;
}

static inline bool dom_frame_base_result(machine *m, fast_frame *f, const fast_step *s,
                                         fast_frame *inner, const fast_plan *plan)
{
  fast_entry base = fast_entry_at(inner, plan->depth - 1u, plan->top_kind,
                                  plan->top_register_bytes);
  if (base.kind != FAST_MEMORY || !fast_offset(m, inner, &base, (int64_t)s->b))
    return false;
  fast_set(f, s->depth, base.space, base.x);
  return true;
}

static inline bool dom_deref(machine *m, fast_frame *f, const fast_step *s, unsigned top)
{
  fast_entry e = fast_entry_at(f, top, s->kind[0], s->register_bytes);
  uint64_t x;
  if (!fast_read(m, &e, s->b, &x))
    return false;
  fast_set(f, top, AMDDWARF_ASPACE_NONE, x);
  return true;
}

/* The part's kind is the plan's (undefined when the stack is empty). */
static inline bool dom_piece(machine *m, fast_frame *f, const fast_step *s)
{
  (void)m;
  if (s->depth == 1) {
    f->piece_space[s->index] = f->space[0];
    f->piece_x[s->index] = f->x[0];
  }
  return true;
}

/* The general machine's limits (steps, stack entries) leave room for all
   of PLAN: one entry more than its deepest stack, an open composite's. */
static inline bool dom_room(machine *m, const fast_frame *f, const fast_plan *plan)
{
  if (m->steps + plan->operations > m->ev->max_steps ||
      (uint64_t)f->below + plan->deepest + 1 > m->ev->stack_cap)
    return false;
  m->steps += plan->operations;
  return true;
}

#include "expr/plan_interp.inc"

/* Part I of PLAN's open composite in frame F. */
static fast_entry fast_piece(const fast_plan *plan, const fast_frame *f, unsigned i)
{
  fast_entry e = {(fast_kind)plan->piece_kind[i], f->piece_space[i], f->piece_x[i],
                  plan->piece_register_bytes[i]};
  return e;
}

/* The stack's top entry at the end of PLAN. */
static fast_entry fast_top(const fast_plan *plan, const fast_frame *f)
{
  return fast_entry_at(f, plan->depth - 1u, plan->top_kind, plan->top_register_bytes);
}

static bool fast_result(machine *m, const fast_plan *plan, fast_frame *f, amddwarf_entry *result)
{
  result->kind = AMDDWARF_ENTRY_LOCATION;
  result->incomplete = 0;
  /* The parts go through the general composite rules (bounds, merging),
     also under another result: a part they refuse is an error there too. */
  amddwarf_status st = AMDDWARF_OK;
  if (plan->composite_open) {
    amddwarf__composite_begin(m, &result->location);
    for (unsigned i = 0; i < plan->pieces && st == AMDDWARF_OK; i++) {
      amddwarf_location part;
      fast_entry e = fast_piece(plan, f, i);
      fast_location_of_leaf(&e, &part); /* never a composite (fast_compile.c) */
      st = amddwarf__composite_append(m, &result->location, &part, plan->piece_bits[i]);
    }
  }
  if (plan->depth > 0) {
    fast_entry top = fast_top(plan, f);
    if (!fast_location(m, f, &top, &result->location))
      return false;
  } else if (!plan->composite_open) {
    fast_entry undefined = {FAST_UNDEFINED, 0, 0, 0};
    fast_location_of_leaf(&undefined, &result->location);
  }
  return st == AMDDWARF_OK;
}

bool amddwarf__fast_eval_location(machine *m, const fast_plan *plan, amddwarf_entry *result)
{
  /* Nothing is reported from here: a decline leaves *err as it was. */
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  f.below = 0;
  bool done = plan_run(m, plan, &f) && fast_result(m, plan, &f, result);
  m->err = err;
  return done;
}

/* ---- evaluation and read in one pass ------------------------------------- */

/* The bytes of a piece list (the frame's result when the stack is empty):
   every part valid as the general composite rules require, and the bytes
   of the parts the read covers straight from the target, in one pass (a
   part found invalid after others were read declines all the same). The
   caller has checked that the read is of whole bytes. */
static bool fast_read_pieces(machine *m, const fast_plan *plan, const fast_frame *f,
                             uint64_t bit_offset, uint64_t bit_size, uint8_t *dst)
{
  uint64_t total = plan->pieces_bits;
  if (!plan->pieces_whole_bytes || plan->pieces > m->ev->parts_cap ||
      total > machine_composite_bits_limit(m) || bit_offset > total ||
      bit_size > total - bit_offset)
    return false;
  uint64_t end = bit_offset + bit_size, pos = 0;
  for (unsigned i = 0; i < plan->pieces; pos += plan->piece_bits[i++]) {
    fast_entry p = fast_piece(plan, f, i);
    uint64_t bits = plan->piece_bits[i];
    if (!fast_bytes_fit(m, &p, p.x, bits / 8))
      return false;
    /* The bits [FROM, TO) of the read in this part. */
    uint64_t from = bit_offset > pos ? bit_offset : pos;
    uint64_t to = end < pos + bits ? end : pos + bits;
    if (from < to && !fast_read_bytes(m, &p, p.x + (from - pos) / 8, (to - from) / 8,
                                      dst + (from - bit_offset) / 8))
      return false;
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
  /* Parts are mostly dwords or qwords: a shift, not a division. */
  bool power_of_two = (part_bytes & (part_bytes - 1)) == 0;
  unsigned shift = part_bytes ? (unsigned)__builtin_ctzll(part_bytes) : 0;
  while (n > 0) {
    uint64_t part = power_of_two ? x >> shift : x / part_bytes;
    uint64_t within = x - part * part_bytes;
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

/* The result of PLAN in frame F read as amddwarf__access_read would, when
   it is a register, a memory location or a piece list of whole bytes of
   them. */
static bool fast_read_result(machine *m, const fast_plan *plan, fast_frame *f,
                             uint64_t bit_offset, uint64_t bit_size, uint8_t *dst)
{
  if (bit_offset % 8 || bit_size % 8 || bit_size == 0)
    return false;
  if (plan->depth == 0)
    return plan->composite_open && fast_read_pieces(m, plan, f, bit_offset, bit_size, dst);
  fast_entry top = fast_top(plan, f);
  uint64_t x = top.x + bit_offset / 8;
  if (plan->composite_open || x < top.x || x > (UINT64_MAX >> 3))
    return false;
  if (top.kind == FAST_COMPOSITE)
    return fast_read_composite(m, &f->composites[top.space], x, bit_size / 8, dst);
  return fast_bytes_fit(m, &top, x, bit_size / 8) && fast_read_bytes(m, &top, x, bit_size / 8, dst);
}

fast_outcome amddwarf__fast_eval_read(machine *m, const fast_plan *plan, uint64_t bit_offset,
                                      uint64_t bit_size, uint8_t *dst, amddwarf_entry *result)
{
  amddwarf_error *err = m->err;
  m->err = NULL;
  fast_frame f;
  f.below = 0;
  fast_outcome outcome = FAST_DECLINED;
  if (plan_run(m, plan, &f)) {
    if (fast_read_result(m, plan, &f, bit_offset, bit_size, dst))
      outcome = FAST_READ;
    else if (fast_result(m, plan, &f, result))
      outcome = FAST_EVALUATED;
  }
  m->err = err;
  return outcome;
}
