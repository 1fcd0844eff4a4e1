/* The whole-wave evaluator (amddwarf_eval_read_lanes): one location
 * expression evaluated and read for every lane of a wave together.
 *
 * The expression runs once with the lane as a symbol, from the plan the
 * one-lane fast path runs (fast_plan.h: each operation lowered once, by
 * fast_compile.c) and through its interpreter (plan_interp.inc), of which
 * this file is the affine domain. Every value is affine in the lane,
 * A * lane + B modulo 2^64 (the ring operations commute with the
 * evaluator's wrap-around arithmetic); a location is a storage at an affine byte offset; a
 * composite is a list of such parts. A step outside that domain (a product
 * of two lane-dependent values, a dereference, a plan the compiler
 * refused: branches, typed values, ...) ends the symbolic run, and every
 * lane is evaluated by the one-lane evaluator. A rule that depends on the
 * lane (an offset leaving its storage, a part past its storage) is
 * recorded as a check and made per lane with the rules of rules.h; a lane
 * failing a check, or whose read is not plainly successful, is evaluated
 * alone too, so that its status and message are the evaluator's own.
 *
 * The reads of the other lanes are gathered by storage and made once: the
 * range of a register every lane reads, the span of a memory space, and
 * for the private_lane dword of every lane the private_wave row that holds
 * them (specs/evaluator.md, "Every lane at once"). */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "amdgpu/swizzle.h"
#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "expr/eval_internal.h"
#include "expr/machine_rules.h"

enum {
  LANES = AMDDWARF_EVAL_MAX_LANES,
  MAX_STACK = 32,
  MAX_PARTS = 256,
  MAX_CHECKS = 32,
  MAX_SEGMENTS = 8,       /* storage pieces one lane's value reads */
  MAX_KEYS = 16,          /* storages read once for all lanes */
  KEY_SPAN = 4096,        /* bytes of one storage read at once */
  MAX_VALUE_BYTES = 64,
};

/* ---- the symbolic domain --------------------------------------------------- */

typedef struct affine {
  uint64_t a, b; /* a * lane + b, modulo 2^64 */
} affine;

static inline uint64_t affine_at(affine x, uint32_t lane)
{
  return x.a * lane + x.b;
}

static inline affine constant(uint64_t b)
{
  affine x = {0, b};
  return x;
}

/* Undefined, memory (ID: the address space as written) or register (ID:
   the DWARF number). */
typedef struct storage {
  amddwarf_location_kind kind;
  uint32_t id;
} storage;

typedef struct part {
  uint64_t bits;
  storage where;
  affine offset;
  storage_size bounds;
} part;

typedef enum entry_kind { ENTRY_VALUE, ENTRY_STORAGE, ENTRY_COMPOSITE } entry_kind;

typedef struct entry {
  entry_kind kind;
  bool incomplete;   /* a composite still being built */
  affine x;          /* the value, or the location's byte offset */
  storage where;     /* ENTRY_STORAGE */
  uint32_t first, count; /* ENTRY_COMPOSITE: parts */
  uint64_t bit_size;
} entry;

/* A rule made per lane: an offset moved by DELTA bytes (amddwarf__loc_add_bytes, or
   amddwarf__loc_add_bits of 8 * DELTA when FROM_BITS) stays in its storage; PARTS parts of
   BITS bits from OFFSET lie in its storage (rule_parts_fit); an address fits MASK. */
typedef enum check_kind { CHECK_ADD, CHECK_PART, CHECK_MASK } check_kind;

typedef struct check {
  check_kind kind;
  bool from_bits;
  affine offset, delta;
  storage_size bounds;
  uint64_t bits; /* CHECK_PART: a part's bits; CHECK_MASK: the mask */
  uint64_t parts; /* CHECK_PART */
} check;

/* Where one lane's value comes from: SIZE bytes at ADDRESS of storage KEY,
   to byte DST of the value. */
typedef struct segment {
  uint32_t key;
  uint32_t size;
  uint64_t address;
  uint32_t dst;
} segment;

typedef enum key_kind { KEY_REGISTER, KEY_MEMORY, KEY_ROW } key_kind;

/* A storage read once for all lanes: a register, a memory space of one
   lane (or none), or the private_wave row of private_lane dword ROW. */
typedef struct read_key {
  key_kind kind;
  uint32_t id, lane;
  uint64_t row;
  uint64_t low, high; /* bytes wanted */
  bool read;          /* BYTES holds [LOW, HIGH) */
  uint8_t *bytes;
} read_key;

struct eval_lanes {
  part parts[MAX_PARTS];
  segment segments[LANES][MAX_SEGMENTS];
  uint8_t segment_count[LANES];
  read_key keys[MAX_KEYS];
  uint8_t key_bytes[MAX_KEYS][KEY_SPAN];
};

void amddwarf__eval_lanes_free(amddwarf_eval *ev)
{
  if (ev->lanes)
    amddwarf__mem_free(&ev->alloc, ev->lanes, sizeof *ev->lanes);
  ev->lanes = NULL;
}

/* One symbolic run. Every function returns false when the expression
   leaves the domain: the lanes are then evaluated one by one. */
typedef struct symbolic {
  machine *m;
  struct eval_lanes *w;
  entry stack[MAX_STACK];
  uint32_t stack_cap;
  uint32_t parts_used, parts_cap;
  check checks[MAX_CHECKS];
  uint32_t check_count;
  uint64_t steps;
} symbolic;

/* The storage of entry E (amddwarf__storage_of). */
static inline __attribute__((always_inline)) bool bounds_of(symbolic *s, const entry *e,
                                                          storage_size *out)
{
  if (e->kind == ENTRY_COMPOSITE) {
    *out = sized_storage(e->bit_size);
    return true;
  }
  return amddwarf__storage_of(s->m, e->where.kind, e->where.id, 0, out) == AMDDWARF_OK;
}

/* ---- the rules of location.c, for one lane --------------------------------- */

/* amddwarf__loc_add_bytes (or amddwarf__loc_add_bits of 8 * DELTA) at byte offset OLD, bit 0. */
static bool add_ok(const storage_size *b, bool from_bits, uint64_t old, int64_t delta,
                   uint64_t *out)
{
  int64_t bits;
  if (!b->memory && !from_bits && !rule_bytes_as_bits(delta, &bits))
    return false;
  return rule_move_bytes(b, old, delta, out);
}

static bool check_lane(const check *c, uint32_t lane)
{
  uint64_t offset = affine_at(c->offset, lane), out;
  switch (c->kind) {
  case CHECK_ADD:
    return add_ok(&c->bounds, c->from_bits, offset, (int64_t)affine_at(c->delta, lane), &out);
  case CHECK_PART:
    return rule_parts_fit(&c->bounds, offset, 0, c->bits, 0, c->parts);
  case CHECK_MASK:
    return offset <= c->bits;
  }
  return false;
}

/* Records check C, which depends on the lane: its callers make a check that
   does not when it arises, without building it. */
static bool require(symbolic *s, const check *c)
{
  if (s->check_count >= MAX_CHECKS)
    return false;
  s->checks[s->check_count++] = *c;
  return true;
}


/* ---- locations ----------------------------------------------------------------- */

/* *TO: offset FROM in a storage with BOUNDS moved by DELTA bytes (or bits / 8
   when FROM_BITS). Offsets go by value and out through *TO rather than
   through the entry, and the function is inlined: an offset written to
   memory a word at a time and read back whole stalls the store buffer,
   once per part of a spill. */
static inline __attribute__((always_inline)) bool
move_within(symbolic *s, affine from, const storage_size *bounds, affine delta, bool from_bits,
            affine *to)
{
  uint64_t out;
  if (from.a == 0 && delta.a == 0) {
    /* The same for every lane: checked now (require's rule, without
       building the check). */
    if (!add_ok(bounds, from_bits, from.b, (int64_t)delta.b, &out))
      return false;
  } else {
    check c = {.kind = CHECK_ADD, .from_bits = from_bits, .offset = from, .delta = delta,
               .bounds = *bounds};
    if (!require(s, &c))
      return false;
  }
  *to = from;
  if (!bounds->unbounded) {
    to->a += delta.a;
    to->b += delta.b;
  }
  return true;
}

/* Moves location E by DELTA bytes (or bits / 8 when FROM_BITS). */
static bool move(symbolic *s, entry *e, affine delta, bool from_bits)
{
  storage_size bounds;
  affine to;
  if (!bounds_of(s, e, &bounds) || !move_within(s, e->x, &bounds, delta, from_bits, &to))
    return false;
  e->x = to;
  return true;
}

/* PARTS parts of BITS bits from OFFSET of a storage with BOUNDS lie in it:
   checked now when that is the same for every lane, else for each. */
static inline __attribute__((always_inline)) bool
parts_within(symbolic *s, affine offset, const storage_size *bounds, uint64_t bits,
             uint64_t parts)
{
  if (offset.a == 0)
    return rule_parts_fit(bounds, offset.b, 0, bits, 0, parts);
  check k = {.kind = CHECK_PART, .offset = offset, .bits = bits, .parts = parts,
             .bounds = *bounds};
  return require(s, &k);
}

/* amddwarf__composite_append of BITS bits at OFFSET of storage WHERE, which
   has BOUNDS, to C, the part's bounds checked by the caller (inlined for
   the reason move_within is). */
static inline __attribute__((always_inline)) bool
append_part(symbolic *s, entry *c, storage where, affine offset, const storage_size *bounds,
            uint64_t bits)
{
  uint64_t total;
  if (amddwarf_add_overflow_u64(c->bit_size, bits, &total) ||
      total > machine_composite_bits_limit(s->m))
    return false;
  if (s->parts_used >= s->parts_cap || c->first + c->count != s->parts_used)
    return false;
  part *p = &s->w->parts[s->parts_used++];
  p->bits = bits;
  p->where = where;
  p->offset = where.kind == AMDDWARF_LOCATION_UNDEFINED ? constant(0) : offset;
  p->bounds = *bounds;
  c->count++;
  c->bit_size = total;
  return true;
}

static bool append(symbolic *s, entry *c, const entry *pl, uint64_t bits)
{
  storage_size bounds;
  return pl->kind == ENTRY_STORAGE && bounds_of(s, pl, &bounds) &&
         (bits == 0 || (parts_within(s, pl->x, &bounds, bits, 1) &&
                        append_part(s, c, pl->where, pl->x, &bounds, bits)));
}

static void begin_composite(symbolic *s, entry *c)
{
  memset(c, 0, sizeof *c);
  c->kind = ENTRY_COMPOSITE;
  c->first = s->parts_used;
}

/* ---- affine entries ---------------------------------------------------------- */

/* The entries are the plan's stack slots: a step finds its operands at the
   depth the plan gives it (fast_plan.h), so the rules of which entry serves
   as what are the plan's, checked here only where they depend on a number
   (a memory location's address space). */

static inline void set_value(entry *e, affine x)
{
  memset(e, 0, sizeof *e);
  e->kind = ENTRY_VALUE;
  e->x = x;
}

static inline void set_storage(entry *e, amddwarf_location_kind kind, uint32_t id, affine offset)
{
  memset(e, 0, sizeof *e);
  e->kind = ENTRY_STORAGE;
  e->where.kind = kind;
  e->where.id = id;
  e->x = offset;
}

/* Entry E as a generic value: a value, or a default-space memory location
   as its address. */
static inline bool as_value(const entry *e, affine *out)
{
  if (e->kind == ENTRY_VALUE ||
      (e->kind == ENTRY_STORAGE && e->where.kind == AMDDWARF_LOCATION_MEMORY &&
       e->where.id == AMDDWARF_ASPACE_NONE)) {
    *out = e->x;
    return true;
  }
  return false;
}

/* Entry E as a location: a generic value is a default-space address. */
static inline void as_location(entry *e)
{
  if (e->kind == ENTRY_VALUE) {
    e->kind = ENTRY_STORAGE;
    e->where.kind = AMDDWARF_LOCATION_MEMORY;
    e->where.id = AMDDWARF_ASPACE_NONE;
  }
}

/* The generic binary operation KIND (64 bits: the whole-wave path takes
   8-byte addresses only) on X and Y. Constants go through the evaluator's
   own arithmetic; a lane-dependent value stays affine under a sum, a
   difference, a product with a constant and a left shift by a constant
   below 64, and leaves the domain under anything else. */
static bool affine_binary(amddwarf_op_kind kind, affine x, affine y, affine *z)
{
  uint64_t r;
  if (x.a == 0 && y.a == 0) {
    if (!amddwarf__integer_arithmetic(kind, x.b, y.b, 64, &r))
      return false;
    *z = constant(r);
    return true;
  }
  switch (kind) {
  case AMDDWARF_OP_plus:
    z->a = x.a + y.a, z->b = x.b + y.b;
    return true;
  case AMDDWARF_OP_minus:
    z->a = x.a - y.a, z->b = x.b - y.b;
    return true;
  case AMDDWARF_OP_mul:
    if (x.a != 0 && y.a != 0)
      return false;
    z->a = x.a * y.b + y.a * x.b, z->b = x.b * y.b;
    return true;
  case AMDDWARF_OP_shl:
    if (y.a != 0 || y.b >= 64)
      return false;
    z->a = x.a << y.b, z->b = x.b << y.b;
    return true;
  default:
    return false;
  }
}

/* The generic value E as an address in ASPACE (form_aspace_address). */
static bool form_space(symbolic *s, entry *e, uint32_t aspace)
{
  affine address;
  if (!as_value(e, &address))
    return false;
  uint64_t mask = amddwarf__aspace_mask(s->m, aspace);
  address.a &= mask;
  address.b &= mask;
  if (address.a != 0 && mask != UINT64_MAX) {
    /* The masked affine form is exact where it does not pass the mask. */
    check c;
    memset(&c, 0, sizeof c);
    c.kind = CHECK_MASK;
    c.offset = address;
    c.bits = mask;
    if (!require(s, &c))
      return false;
  }
  set_storage(e, AMDDWARF_LOCATION_MEMORY, aspace, address);
  return true;
}

/* A number naming an address space, the same for every lane. */
static bool space_of(const entry *e, uint32_t *aspace)
{
  affine x;
  return as_value(e, &x) && x.a == 0 && amddwarf__aspace_of_number(x.b, aspace);
}

/* The open composite of one plan run (its pieces). */
typedef struct pieces {
  bool open;
  entry composite;
} pieces;

/* A part of BITS bits (whole bytes), E or undefined, appended to the open
   composite. */
static bool wave_piece(symbolic *s, pieces *o, entry *e, uint64_t bits)
{
  entry undefined;
  if (bits % 8 != 0)
    return false;
  if (e == NULL) {
    set_storage(&undefined, AMDDWARF_LOCATION_UNDEFINED, 0, constant(0));
    e = &undefined;
  }
  as_location(e);
  if (!o->open) {
    begin_composite(s, &o->composite);
    o->open = true;
  }
  return append(s, &o->composite, e, bits);
}

/* select_bit_piece of COUNT parts of BITS bits: the EXEC-selected spill,
   the mask on top of L0 and L1, into L0's slot. */
static bool wave_select(symbolic *s, const pieces *o, entry *l0, entry *l1, const entry *mask_entry,
                        uint64_t bits, uint64_t count)
{
  affine mask;
  entry c;
  if (bits % 8 != 0 || count > 64 || o->open || !as_value(mask_entry, &mask) || mask.a != 0)
    return false;
  as_location(l0);
  as_location(l1);
  if (l0->kind != ENTRY_STORAGE || l1->kind != ENTRY_STORAGE)
    return false;
  /* Every part is one of the two storages: their bounds are found once,
     and the parts taken from each checked at once. */
  const entry *from[2] = {l0, l1};
  storage_size bounds[2];
  for (unsigned i = 0; i < 2; i++) {
    uint64_t end = rule_select_end(mask.b, (uint32_t)count, i);
    if (!bounds_of(s, from[i], &bounds[i]) ||
        (end != 0 && !parts_within(s, from[i]->x, &bounds[i], bits, end)))
      return false;
  }
  begin_composite(s, &c);
  s->steps += count; /* as building it counts */
  if (s->steps > s->m->ev->max_steps)
    return false;
  for (uint64_t n = 0; n < count; n++) {
    unsigned one = mask.b >> n & 1;
    affine at = from[one]->x;
    if (!bounds[one].unbounded)
      at.b += n * bits / 8;
    if (!append_part(s, &c, from[one]->where, at, &bounds[one], bits))
      return false;
  }
  *l0 = c;
  return true;
}

/* ---- the plan's steps over affine values (plan_interp.inc's domain) -------- */

/* A plan's stack: its slot 0 is S->stack[BASE]. The entries' kinds are
   their own, so a domain function ignores the kind the plan gives it. */
typedef symbolic plan_ctx;
typedef struct wave_frame {
  entry *slot;
  uint32_t base;
  pieces open;
} plan_frame;
typedef affine plan_value;
typedef entry plan_slot;

static inline affine dom_constant(uint64_t b)
{
  return constant(b);
}

static inline entry dom_get(const plan_frame *f, unsigned i)
{
  return f->slot[i];
}

static inline void dom_put(plan_frame *f, unsigned i, entry e)
{
  f->slot[i] = e;
}

static inline void dom_copy(plan_frame *f, unsigned to, unsigned from)
{
  f->slot[to] = f->slot[from];
}

static inline void dom_set_value(plan_frame *f, unsigned i, affine x)
{
  set_value(&f->slot[i], x);
}

static inline void dom_set_number(plan_frame *f, unsigned i, affine x)
{
  set_value(&f->slot[i], x);
}

static inline void dom_set_register(plan_frame *f, unsigned i, uint32_t regno)
{
  set_storage(&f->slot[i], AMDDWARF_LOCATION_REGISTER, regno, constant(0));
}

static inline void dom_set_memory(plan_frame *f, unsigned i, uint32_t aspace, affine x)
{
  set_storage(&f->slot[i], AMDDWARF_LOCATION_MEMORY, aspace, x);
}

static inline void dom_set_undefined(plan_frame *f, unsigned i)
{
  set_storage(&f->slot[i], AMDDWARF_LOCATION_UNDEFINED, 0, constant(0));
}

static inline bool dom_value_of(const plan_frame *f, unsigned i, affine *x)
{
  return as_value(&f->slot[i], x);
}

static inline bool dom_space_of(const plan_frame *f, unsigned i, uint32_t *aspace)
{
  return space_of(&f->slot[i], aspace);
}

/* The lane, the symbol; the generic mask is all 64 bits here. */
static inline bool dom_lane(symbolic *s, uint64_t mask, affine *x)
{
  (void)s;
  x->a = 1;
  x->b = 0;
  return mask == UINT64_MAX;
}

static inline bool dom_binary(symbolic *s, amddwarf_op_kind kind, affine x, affine y, affine *z)
{
  (void)s;
  return affine_binary(kind, x, y, z);
}

/* 64-bit generic values: a signed byte count as they are. */
static inline affine dom_signed(const symbolic *s, affine x)
{
  (void)s;
  return x;
}

static inline bool dom_move(symbolic *s, plan_frame *f, unsigned i, uint8_t kind,
                            uint64_t register_bytes, affine delta)
{
  (void)kind, (void)register_bytes;
  as_location(&f->slot[i]);
  return move(s, &f->slot[i], delta, false);
}

static inline bool dom_form_aspace(symbolic *s, plan_frame *f, unsigned i, uint32_t aspace)
{
  return form_space(s, &f->slot[i], aspace);
}

/* breg, bregx, LLVM_aspace_bregx: register A's value plus B as an address
   in ASPACE; the same for every lane. */
static inline bool dom_breg(symbolic *s, plan_frame *f, const fast_step *t, unsigned i,
                            uint32_t aspace)
{
  unsigned n = amddwarf__aspace_address_bytes(s->m, aspace);
  uint64_t address;
  if (n == 0 || amddwarf__register_address(s->m, t->a, 0, t->b, n, false, &address) != AMDDWARF_OK)
    return false;
  set_storage(&f->slot[i], AMDDWARF_LOCATION_MEMORY, aspace, constant(address));
  return true;
}

static inline machine *dom_machine(symbolic *s)
{
  return s->m;
}

static inline void dom_frame_above(const plan_frame *f, unsigned n, plan_frame *inner)
{
  inner->slot = f->slot + n;
  inner->base = f->base + n;
  inner->open.open = false;
}

/* The frame base's result: its top entry, a memory location. */
static inline bool dom_frame_base_result(symbolic *s, plan_frame *f, const fast_step *t,
                                         plan_frame *inner, const fast_plan *plan)
{
  entry loc = inner->slot[plan->depth - 1u];
  as_location(&loc);
  if (loc.kind != ENTRY_STORAGE || loc.where.kind != AMDDWARF_LOCATION_MEMORY ||
      !move(s, &loc, constant(t->b), false))
    return false;
  f->slot[t->depth] = loc;
  return true;
}

/* A read per lane: the lanes go one by one. */
static inline bool dom_deref(symbolic *s, plan_frame *f, const fast_step *t, unsigned top)
{
  (void)s, (void)f, (void)t, (void)top;
  return false;
}

static inline bool dom_piece(symbolic *s, plan_frame *f, const fast_step *t)
{
  return wave_piece(s, &f->open, t->depth == 1 ? &f->slot[0] : NULL, t->b);
}

static inline bool dom_select(symbolic *s, plan_frame *f, const fast_step *t)
{
  entry *top = &f->slot[t->depth - 1u];
  return wave_select(s, &f->open, &top[-2], &top[-1], top, t->b, t->a);
}

/* One slot more than the deepest stack: an open composite's. */
static inline bool dom_room(symbolic *s, const plan_frame *f, const fast_plan *plan)
{
  if ((uint64_t)f->base + plan->deepest + 1 > s->stack_cap ||
      s->steps + plan->operations > s->m->ev->max_steps)
    return false;
  s->steps += plan->operations;
  return true;
}

#include "expr/plan_interp.inc"

/* Runs PLAN on the slots from BASE: its result (the top entry as a
   location, or the open composite) in *RESULT. */
static bool run_plan(symbolic *s, const fast_plan *plan, uint32_t base, entry *result)
{
  plan_frame f;
  f.slot = &s->stack[base];
  f.base = base;
  f.open.open = false;
  if (!plan_run(s, plan, &f))
    return false;
  if (plan->depth > 0) {
    *result = f.slot[plan->depth - 1u];
    as_location(result);
    return true;
  }
  *result = f.open.composite;
  return f.open.open;
}

/* ---- reading every lane ------------------------------------------------------ */

typedef struct wave_read {
  symbolic *s;
  machine *m;
  struct eval_lanes *w;
  uint32_t key_count, last_key;
  uint32_t wave_size;
  /* The key of the result's storage and of each part of a composite
     result, once found, when it is the same for every lane (any storage but
     private_lane memory); -1 until then. */
  int result_key;
  int part_key[MAX_PARTS];
  /* A composite result: the bit where each of its parts ends, so that a
     lane finds the first part it reads by bisection (the EXEC-selected
     spill has 64). */
  uint64_t part_end[MAX_PARTS];
} wave_read;

/* The ends of the parts of composite E; their keys not found yet. */
static void index_parts(wave_read *r, const entry *e)
{
  uint64_t end = 0;
  for (uint32_t i = 0; i < e->count; i++) {
    end += r->s->w->parts[e->first + i].bits;
    r->part_end[i] = end;
    r->part_key[i] = -1;
  }
}

/* The first part of composite E that ends after bit FROM (E->count if none). */
static uint32_t first_part_after(const wave_read *r, const entry *e, uint64_t from)
{
  uint32_t low = 0, high = e->count;
  while (low < high) {
    uint32_t mid = low + (high - low) / 2;
    if (r->part_end[mid] <= from)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

/* Whether storage WHERE holds different bytes for different lanes at one
   address: private_lane memory. */
static bool per_lane(storage where)
{
  return where.kind == AMDDWARF_LOCATION_MEMORY && where.id == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
}

/* Key K also wants the SIZE bytes at ADDRESS. */
static inline void widen(read_key *k, uint64_t address, uint64_t size)
{
  k->low = address < k->low ? address : k->low;
  k->high = address + size > k->high ? address + size : k->high;
}

/* The key of SIZE bytes at ADDRESS of storage *AT for LANE, or -1 when
   the lane is read alone (a generic address with apertures, a lane past
   the wave, too many storages). *ADDRESS becomes the key's. *SAME holds
   the storage's key once found when that key is the same for every lane. */
static int find_key(wave_read *r, const storage *at, uint32_t lane, uint64_t *address,
                    uint64_t size, int *same)
{
  storage where = *at;
  if (*same >= 0) {
    widen(&r->w->keys[*same], *address, size);
    return *same;
  }
  /* The key's fields as scalars until it is stored: a key built field by
     field in memory and compared whole would stall the store buffer. */
  key_kind kind = KEY_MEMORY;
  uint32_t id = where.id, key_lane = AMDDWARF_NO_LANE;
  uint64_t row = 0;
  if (where.kind == AMDDWARF_LOCATION_REGISTER) {
    kind = KEY_REGISTER;
  } else {
    uint32_t aspace = where.id;
    if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC && TARGET_HAS(r->m->t, apertures))
      return -1;
    if (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
        aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63) {
      key_lane = aspace - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
      id = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
      if (key_lane >= r->wave_size)
        return -1;
    } else if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE) {
      /* A lane's dword is in the private_wave row of that dword. */
      uint64_t row_end =
          amddwarf__private_lane_swizzle(*address | 3, r->wave_size - 1, r->wave_size);
      if (*address % 4 + size <= 4 && *address <= UINT32_MAX && row_end <= UINT32_MAX) {
        kind = KEY_ROW;
        row = *address / 4;
        id = AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE;
        *address = amddwarf__private_lane_swizzle(*address, lane, r->wave_size);
      } else {
        key_lane = lane;
      }
    }
  }
  /* The storage of the lane before is the likely one (a wrap-around
     without a division, which would cost more than the comparisons). */
  for (uint32_t n = 0, i = r->last_key; n < r->key_count;
       n++, i = i + 1 == r->key_count ? 0 : i + 1) {
    read_key *have = &r->w->keys[i];
    if (have->kind == kind && have->id == id && have->lane == key_lane && have->row == row) {
      r->last_key = i;
      widen(have, *address, size);
      return (int)i;
    }
  }
  if (r->key_count >= MAX_KEYS)
    return -1;
  read_key *k = &r->w->keys[r->key_count];
  memset(k, 0, sizeof *k);
  k->kind = kind;
  k->id = id;
  k->lane = key_lane;
  k->row = row;
  k->low = *address;
  k->high = *address + size;
  r->last_key = r->key_count;
  if (!per_lane(where))
    *same = (int)r->key_count;
  return (int)r->key_count++;
}

/* Adds the segment of SIZE bytes at OFFSET of *WHERE to LANE's value at DST.
   The storage is passed by address: a copy made here would be written as
   two fields and read back as one word, which the store buffer cannot
   forward. */
static bool add_segment(wave_read *r, uint32_t lane, const storage *where,
                        const storage_size *bounds, uint64_t offset, uint64_t size,
                        uint64_t dst, int *same)
{
  uint8_t *n = &r->w->segment_count[lane];
  if (where->kind == AMDDWARF_LOCATION_UNDEFINED || !rule_fits(bounds, offset, 0, size * 8) ||
      *n >= MAX_SEGMENTS || offset + size < offset)
    return false;
  int key = find_key(r, where, lane, &offset, size, same);
  if (key < 0)
    return false;
  segment *g = &r->w->segments[lane][(*n)++];
  g->key = (uint32_t)key;
  g->size = (uint32_t)size;
  g->address = offset;
  g->dst = (uint32_t)dst;
  return true;
}

/* The segments of LANE's BIT_SIZE bits at BIT_OFFSET of the result E. */
static bool lane_segments(wave_read *r, const entry *e, const storage_size *bounds,
                          uint32_t lane, uint64_t bit_offset, uint64_t bit_size)
{
  symbolic *s = r->s;
  for (uint32_t i = 0; i < s->check_count; i++)
    if (!check_lane(&s->checks[i], lane))
      return false;
  uint64_t offset = affine_at(e->x, lane);
  if (e->kind == ENTRY_STORAGE)
    return offset + bit_offset / 8 >= offset &&
           add_segment(r, lane, &e->where, bounds, offset + bit_offset / 8, bit_size / 8, 0,
                       &r->result_key);
  /* A composite: the parts the bits cross (walk_composite), from the first
     that ends after the first bit. */
  uint64_t from, pos = 0, dst = 0;
  if (offset > (UINT64_MAX >> 3) || amddwarf_add_overflow_u64(offset * 8, bit_offset, &from) ||
      from > e->bit_size || bit_size > e->bit_size - from)
    return false;
  uint32_t first = first_part_after(r, e, from);
  if (first > 0)
    pos = r->part_end[first - 1];
  for (uint32_t i = first; i < e->count && bit_size > 0; i++) {
    const part *p = &s->w->parts[e->first + i];
    if (pos + p->bits <= from) {
      pos += p->bits;
      continue;
    }
    uint64_t start = from > pos ? from - pos : 0;
    uint64_t take = p->bits - start < bit_size ? p->bits - start : bit_size;
    if (!add_segment(r, lane, &p->where, &p->bounds, affine_at(p->offset, lane) + start / 8,
                     take / 8, dst / 8, &r->part_key[i]))
      return false;
    dst += take;
    bit_size -= take;
    pos += p->bits;
  }
  return bit_size == 0;
}

/* Whether every lane reads the same bytes of result E: no lane-dependent
   check or offset, and no private_lane storage (an SGPR, LDS, an SGPR
   pair). The first lane that reads gives its value to the others. */
static bool same_for_every_lane(const symbolic *s, const entry *e)
{
  if (s->check_count > 0 || e->x.a != 0)
    return false;
  if (e->kind == ENTRY_STORAGE)
    return !per_lane(e->where);
  for (uint32_t i = 0; i < e->count; i++) {
    const part *p = &s->w->parts[e->first + i];
    if (p->offset.a != 0 || per_lane(p->where))
      return false;
  }
  return true;
}

/* Reads key K's bytes once; false leaves its segments to be read alone. */
static bool read_key_bytes(wave_read *r, uint32_t k)
{
  read_key *key = &r->w->keys[k];
  const amddwarf_target *t = r->m->t;
  uint64_t size = key->high - key->low;
  amddwarf_status st;
  key->bytes = r->w->key_bytes[k];
  if (key->kind == KEY_ROW) {
    key->low = key->row * r->wave_size * 4;
    size = r->wave_size * 4;
  }
  if (size > KEY_SPAN)
    return false;
  if (key->kind == KEY_REGISTER)
    st = TARGET_HAS(t, read_register)
             ? t->read_register(t->user, key->id, key->low, size, key->bytes)
             : AMDDWARF_E_UNSUPPORTED;
  else
    st = TARGET_HAS(t, read_memory)
             ? t->read_memory(t->user, key->id, key->lane, key->low, size, key->bytes)
             : AMDDWARF_E_UNSUPPORTED;
  return st == AMDDWARF_OK;
}

/* One segment read by itself, as the one-lane read makes it. */
static bool read_segment_alone(wave_read *r, uint32_t lane, const segment *g, uint8_t *out)
{
  const read_key *key = &r->w->keys[g->key];
  const amddwarf_target *t = r->m->t;
  if (key->kind == KEY_REGISTER)
    return TARGET_HAS(t, read_register) &&
           t->read_register(t->user, key->id, g->address, g->size, out) == AMDDWARF_OK;
  if (!TARGET_HAS(t, read_memory))
    return false;
  if (key->kind == KEY_ROW) {
    uint64_t within = g->address - key->row * r->wave_size * 4 - lane * 4;
    return t->read_memory(t->user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, lane,
                          key->row * 4 + within, g->size, out) == AMDDWARF_OK;
  }
  return t->read_memory(t->user, key->id, key->lane, g->address, g->size, out) == AMDDWARF_OK;
}

/* ---- the entry point ------------------------------------------------------------ */

/* The symbolic run of BYTES, from the plan the one-lane evaluator runs
   (fast_plan.h): the result in *RESULT, or false. */
static bool evaluate(symbolic *s, const uint8_t *bytes, size_t size, entry *result)
{
  const amddwarf_eval_request *req = s->m->req;
  program p;
  if (req->initial_count > 0 || s->m->trace != NULL || req->format.address_size != 8 ||
      (bytes == NULL && size > 0) ||
      amddwarf__load_program(s->m, bytes, size, &p) != AMDDWARF_OK || p.plan == NULL)
    return false;
  /* Cached plans stay pinned for the evaluation: a frame base loaded
     while this one runs does not move it. */
  return run_plan(s, p.plan, 0, result);
}

static amddwarf_status one_lane(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                const uint8_t *bytes, size_t size, uint32_t lane,
                                uint64_t bit_offset, uint64_t bit_size, uint8_t *out)
{
  amddwarf_eval_request req = *request;
  req.lane = lane;
  amddwarf_status st = amddwarf_eval_read(ev, &req, bytes, size, bit_offset, bit_size, out, NULL);
  if (st != AMDDWARF_OK)
    memset(out, 0, (size_t)((bit_size + 7) / 8));
  return st;
}

amddwarf_status amddwarf_eval_read_lanes(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                         const uint8_t *bytes, size_t size, uint64_t lanes,
                                         uint64_t bit_offset, uint64_t bit_size, void *values,
                                         size_t stride, amddwarf_status *statuses,
                                         uint64_t *batched, amddwarf_error *err)
{
  uint64_t fast = 0;
  /* When every lane reads the same bytes, the lanes after MODEL take its
     value (COPIES). */
  uint64_t copies = 0;
  uint32_t model = LANES;
  if (batched != NULL)
    *batched = 0;
  if (ev == NULL || request == NULL || values == NULL || statuses == NULL ||
      (bytes == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_eval_read_lanes: NULL argument");
  if (request->required != AMDDWARF_RESULT_LOCATION)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_eval_read_lanes reads through a location: a value is required");
  if (bit_size > (uint64_t)SIZE_MAX - 7 || stride < (bit_size + 7) / 8)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "a stride of %zu bytes holds no value of %llu bits", stride,
                         (unsigned long long)bit_size);
  if (ev->lanes == NULL)
    ev->lanes = amddwarf__mem_alloc(&ev->alloc, sizeof *ev->lanes);
  if (ev->lanes == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "the whole-wave evaluator's buffers");
  uint8_t *out = values;
  machine m;
  amddwarf_eval_request first = *request;
  first.lane = 0;
  amddwarf_status st = amddwarf__machine_begin(ev, &first, NULL, &m);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "amddwarf_eval_read_lanes: %s",
                         amddwarf_status_message(st));
  symbolic s;
  s.m = &m;
  s.w = ev->lanes;
  s.stack_cap = ev->stack_cap < MAX_STACK ? ev->stack_cap : MAX_STACK;
  s.parts_used = 0;
  s.parts_cap = ev->parts_cap < MAX_PARTS ? ev->parts_cap : MAX_PARTS;
  s.check_count = 0;
  s.steps = 0;
  entry result;
  storage_size bounds;
  wave_read r;
  r.s = &s;
  r.m = &m;
  r.w = ev->lanes;
  r.key_count = 0;
  r.last_key = 0;
  r.wave_size = 0;
  r.result_key = -1;
  if (bit_size > 0 && bit_size % 8 == 0 && bit_offset % 8 == 0 &&
      bit_size <= MAX_VALUE_BYTES * 8 && evaluate(&s, bytes, size, &result) &&
      bounds_of(&s, &result, &bounds)) {
    r.wave_size = amddwarf__machine_wave_size(&m);
    if (result.kind == ENTRY_COMPOSITE)
      index_parts(&r, &result);
    bool same = same_for_every_lane(&s, &result);
    for (uint32_t lane = 0; lane < LANES && lane < r.wave_size; lane++) {
      ev->lanes->segment_count[lane] = 0;
      if (!(lanes >> lane & 1))
        continue;
      if (model < LANES) {
        copies |= UINT64_C(1) << lane;
      } else if (lane_segments(&r, &result, &bounds, lane, bit_offset, bit_size)) {
        fast |= UINT64_C(1) << lane;
        model = same ? lane : LANES;
      }
    }
  }
  /* The storages read once, then each lane's value cut from them. */
  bool key_read[MAX_KEYS];
  for (uint32_t k = 0; k < r.key_count; k++)
    key_read[k] = read_key_bytes(&r, k);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    if (!(lanes >> lane & 1))
      continue;
    uint8_t *value = out + (size_t)lane * stride;
    if ((copies >> lane & 1) && (fast >> model & 1)) {
      /* When the model's read failed, each lane is read alone below. */
      amddwarf__copy_small(value, out + (size_t)model * stride, (size_t)(bit_size / 8));
      statuses[lane] = AMDDWARF_OK;
      fast |= UINT64_C(1) << lane;
      continue;
    }
    if (fast >> lane & 1) {
      for (uint8_t i = 0; i < ev->lanes->segment_count[lane] && (fast >> lane & 1); i++) {
        const segment *g = &ev->lanes->segments[lane][i];
        const read_key *key = &ev->lanes->keys[g->key];
        if (key_read[g->key])
          amddwarf__copy_small(value + g->dst, key->bytes + (g->address - key->low), g->size);
        else if (!read_segment_alone(&r, lane, g, value + g->dst))
          fast &= ~(UINT64_C(1) << lane);
      }
    }
    if (fast >> lane & 1)
      statuses[lane] = AMDDWARF_OK;
    else
      statuses[lane] = one_lane(ev, request, bytes, size, lane, bit_offset, bit_size, value);
  }
  if (batched != NULL)
    *batched = fast;
  return AMDDWARF_OK;
}
