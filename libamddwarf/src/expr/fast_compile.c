/* The fast path's compiler: operations to plan steps (fast_plan.h), with
 * the kind of every stack entry worked out once.
 *
 * The rules are the general machine's, applied to kinds: a memory location
 * serves as a generic value only in the default address space (checked on
 * the run, where the space is known), a generic value serves as a location
 * in the default address space, and a register or a composite never serves
 * as a value. An expression that breaks them on every run is not compiled:
 * the general machine runs it and reports the error. */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/checked.h"
#include "expr/eval_internal.h"

/* What the compiler knows of a stack entry. */
typedef struct static_entry {
  fast_kind kind;
  uint32_t register_bytes; /* FAST_REGISTER: its fixed-map size, 0 if none */
} static_entry;

typedef struct compiler {
  fast_plan *plan;
  uint32_t generic_bits;
  uint64_t composite_bits_limit; /* machine_composite_bits_limit's */
  static_entry stack[FAST_STACK];
  unsigned depth;
  unsigned composites;
  bool composite_open;
  uint32_t barrier; /* steps before it do not fuse with later ones */
} compiler;

/* The size of REGNO in the fixed AMDGPU map, 0 when it is not there. */
static uint32_t fixed_register_bytes(uint32_t regno)
{
  amddwarf_amdgpu_register info;
  return amddwarf_amdgpu_register_info(regno, &info) == AMDDWARF_OK ? (uint32_t)(info.bit_size / 8) : 0;
}

/* The fixed-map size of entry E when it is a register. */
static uint32_t register_bytes_of(const static_entry *e)
{
  return e->kind == FAST_REGISTER ? e->register_bytes : 0;
}

/* Entry I below the top (0: the top). */
static static_entry *below_top(compiler *c, unsigned i)
{
  return &c->stack[c->depth - 1 - i];
}

/* Entry I below the top before step S (0: the top). */
static static_entry *before(compiler *c, const fast_step *s, unsigned i)
{
  return &c->stack[s->depth - 1 - i];
}

/* Entry I below the top before step S as a generic value, its kind noted
   in the step: false when it never is one. */
static bool serves_as_value(compiler *c, fast_step *s, unsigned i)
{
  static_entry *e = before(c, s, i);
  s->kind[i] = (uint8_t)e->kind;
  if (e->kind == FAST_MEMORY) /* the run checks the default space */
    e->kind = FAST_VALUE;
  return e->kind == FAST_VALUE;
}

/* Entry I below the top before step S as a location (a value becomes
   memory), its kind noted in the step. */
static fast_kind serves_as_location(compiler *c, fast_step *s, unsigned i)
{
  static_entry *e = before(c, s, i);
  s->kind[i] = (uint8_t)e->kind;
  if (e->kind == FAST_VALUE)
    e->kind = FAST_MEMORY;
  return e->kind;
}

static bool push(compiler *c, fast_kind kind, uint32_t register_bytes)
{
  if (c->depth == FAST_STACK)
    return false;
  c->stack[c->depth].kind = kind;
  c->stack[c->depth++].register_bytes = register_bytes;
  return true;
}

/* A lowering: the step for operation OP on the compiler's stack (S->depth
   is filled in already, S->a is 0 and S->b OP's first operand; the kinds of
   the entries the step uses are noted as it takes them); false when OP
   never runs on this stack. *EMIT is false for an operation that only
   changes the compile-time stack. PARAMETER is the row's (plan_lower.def). */
typedef bool lowering(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                      bool *emit);

#define PICK_OPERAND UINT32_MAX  /* lower_pick: the entry the operand names */
#define DEREF_GENERIC UINT32_MAX /* lower_deref: the generic size */

static bool lower_nop(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                      bool *emit)
{
  (void)c, (void)op, (void)parameter, (void)s;
  *emit = false;
  return true;
}

static bool lower_pick(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                       bool *emit)
{
  (void)parameter, (void)emit;
  uint32_t from;
  amddwarf__stack_move(op, &from);
  if (from >= c->depth)
    return false;
  s->code = FC_DUP;
  s->a = from;
  static_entry e = *below_top(c, from);
  return push(c, e.kind, e.register_bytes);
}

/* DW_OP_drop: the top PARAMETER entries go; only the compiler's stack
   changes. */
static bool lower_drop(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                       bool *emit)
{
  (void)op, (void)s;
  *emit = false;
  if (c->depth < parameter)
    return false;
  c->depth -= parameter;
  return true;
}

/* DW_OP_swap and DW_OP_rot: the top PARAMETER entries roll, the top one
   going below the others. */
static bool lower_roll(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                       bool *emit)
{
  (void)op, (void)emit;
  if (c->depth < parameter)
    return false;
  s->code = FC_ROLL;
  s->a = parameter;
  static_entry top = *below_top(c, 0);
  for (unsigned i = 0; i + 1 < parameter; i++)
    *below_top(c, i) = *below_top(c, i + 1);
  *below_top(c, parameter - 1) = top;
  return true;
}

/* regx, bregx, LLVM_aspace_bregx and fbreg: PARAMETER (register_based)
   says what each pushes. */
static bool lower_register_based(compiler *c, const amddwarf_op *op, uint32_t parameter,
                                 fast_step *s, bool *emit)
{
  static const uint8_t codes[] = {FC_REGISTER, FC_BREG, FC_ASPACE_BREG, FC_FBREG}; /* by it */
  (void)emit;
  s->code = codes[parameter];
  if (parameter == FRAME_BASE_ADDRESS) {
    s->index = (uint8_t)(c->depth + c->composite_open);
    return push(c, FAST_MEMORY, 0);
  }
  s->a = (uint32_t)op->operands[0];
  s->register_bytes = fixed_register_bytes(s->a);
  if (op->operands[0] > UINT32_MAX)
    return false;
  if (parameter == REGISTER_LOCATION)
    return push(c, FAST_REGISTER, s->register_bytes);
  s->b = op->operands[1];
  if (parameter == REGISTER_ADDRESS_POPPED_SPACE) {
    if (c->depth < 1 || !serves_as_value(c, s, 0))
      return false;
    c->depth--;
  }
  return push(c, FAST_MEMORY, 0);
}

static bool lower_deref(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                        bool *emit)
{
  (void)parameter, (void)emit;
  s->code = FC_DEREF;
  s->b = amddwarf__deref_bytes(op, c->generic_bits);
  /* A zero or wider-than-generic size is the general path's error; a
     composite is not read here. */
  if (s->b == 0 || s->b > c->generic_bits / 8 || c->depth < 1)
    return false;
  s->register_bytes = register_bytes_of(before(c, s, 0));
  fast_kind from = serves_as_location(c, s, 0);
  if (from != FAST_REGISTER && from != FAST_MEMORY)
    return false;
  c->depth--;
  return push(c, FAST_VALUE, 0);
}

static bool lower_piece(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                        bool *emit)
{
  (void)parameter, (void)emit;
  fast_plan *plan = c->plan;
  uint64_t displacement;
  s->code = FC_PIECE;
  if (!amddwarf__piece_bits(op, &s->b, &displacement) || displacement != 0 || c->depth > 1 ||
      plan->pieces == FAST_PIECES)
    return false;
  fast_kind part = FAST_UNDEFINED;
  if (c->depth == 1 && (part = serves_as_location(c, s, 0)) == FAST_COMPOSITE)
    return false;
  s->index = plan->pieces;
  plan->piece_register_bytes[plan->pieces] = c->depth == 1 ? register_bytes_of(before(c, s, 0)) : 0;
  plan->piece_kind[plan->pieces] = (uint8_t)part;
  plan->piece_bits[plan->pieces++] = s->b;
  plan->pieces_whole_bytes &= s->b % 8 == 0;
  if (plan->pieces_bits + s->b < plan->pieces_bits)
    plan->pieces_bits = UINT64_MAX;
  else
    plan->pieces_bits += s->b;
  c->depth = 0;
  c->composite_open = true;
  return true;
}

static bool lower_select(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                         bool *emit)
{
  (void)parameter, (void)emit;
  uint64_t x = op->operands[0], y = op->operands[1];
  s->code = FC_SELECT;
  s->a = (uint32_t)y;
  /* A composite too large is the general machine's error. */
  uint64_t bit_size;
  if (x == 0 || y == 0 || y > c->generic_bits || c->composites == FAST_COMPOSITES ||
      c->depth < 3 || !serves_as_value(c, s, 0) || amddwarf_mul_overflow_u64(x, y, &bit_size) ||
      bit_size > INT64_MAX)
    return false;
  s->one_register_bytes = register_bytes_of(before(c, s, 1));
  s->register_bytes = register_bytes_of(before(c, s, 2));
  fast_kind one = serves_as_location(c, s, 1), zero = serves_as_location(c, s, 2);
  s->lazy = x % 8 == 0 && bit_size <= c->composite_bits_limit &&
            (one == FAST_REGISTER || one == FAST_MEMORY) &&
            (zero == FAST_REGISTER || zero == FAST_MEMORY);
  s->index = (uint8_t)c->composites++;
  c->depth -= 3;
  return push(c, FAST_COMPOSITE, 0);
}

/* The shape of a PLAN_STEP row (plan_lower.def): the entries it takes and
   as what, top first; what it pushes; what its step's A and B hold. */
typedef enum step_takes {
  TAKES_NOTHING, TAKES_VALUE, TAKES_TWO_VALUES, TAKES_LOCATION, TAKES_VALUE_ON_LOCATION
} step_takes;
typedef enum entry_role { NOT_TAKEN, AS_VALUE, AS_LOCATION } entry_role;
static const uint8_t roles_taken[][2] = {
    [TAKES_NOTHING] = {NOT_TAKEN, NOT_TAKEN},
    [TAKES_VALUE] = {AS_VALUE, NOT_TAKEN},
    [TAKES_TWO_VALUES] = {AS_VALUE, AS_VALUE},
    [TAKES_LOCATION] = {AS_LOCATION, NOT_TAKEN},
    [TAKES_VALUE_ON_LOCATION] = {AS_VALUE, AS_LOCATION},
};

typedef enum step_pushes { PUSHES_NOTHING, PUSHES_VALUE, PUSHES_MEMORY, PUSHES_UNDEFINED } step_pushes;
static const uint8_t kind_pushed[] = {
    [PUSHES_VALUE] = FAST_VALUE, [PUSHES_MEMORY] = FAST_MEMORY, [PUSHES_UNDEFINED] = FAST_UNDEFINED};

typedef enum step_operands { B_OPERAND, B_GENERIC, B_GENERIC_MASK, B_OFFSET, ARITHMETIC } step_operands;

static bool lower_step(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                       bool *emit);

/* The lowering table (plan_lower.def). */
typedef struct lowering_row {
  lowering *lower; /* NULL: the operation has no plan */
  uint32_t parameter;
  uint8_t code, takes, pushes, operands; /* a PLAN_STEP row's shape */
} lowering_row;

static const lowering_row lowerings[AMDDWARF_OP_KIND_COUNT] = {
#define PLAN_LOWER(kind, lower, parameter) [AMDDWARF_OP_##kind] = {lower, parameter, 0, 0, 0, 0},
#define PLAN_STEP(kind, code, takes, pushes, operands, parameter)                                 \
  [AMDDWARF_OP_##kind] = {lower_step, parameter, code, takes, pushes, operands},
#include "expr/plan_lower.def"
#undef PLAN_STEP
#undef PLAN_LOWER
};

/* The lowering of every PLAN_STEP row: it takes the top entries as its
   shape says (a value taken is popped, a location taken stays and is
   moved), pushes what it says, and fills in A and B. */
static bool lower_step(compiler *c, const amddwarf_op *op, uint32_t parameter, fast_step *s,
                       bool *emit)
{
  (void)emit;
  const lowering_row *row = &lowerings[op->kind];
  const uint8_t *roles = roles_taken[row->takes];
  s->code = row->code;
  if (row->operands == ARITHMETIC)
    s->a = parameter;
  if (row->operands == ARITHMETIC || row->operands == B_GENERIC)
    s->b &= bits_mask(c->generic_bits);
  else if (row->operands == B_GENERIC_MASK)
    s->b = bits_mask(c->generic_bits);
  else if (row->operands == B_OFFSET && s->b > INT64_MAX)
    return false;
  unsigned values = 0;
  for (unsigned i = 0; i < 2 && roles[i] != NOT_TAKEN; i++) {
    if (c->depth <= i)
      return false;
    if (roles[i] == AS_VALUE) {
      if (!serves_as_value(c, s, i))
        return false;
      values++;
    } else {
      s->register_bytes = register_bytes_of(before(c, s, i));
      serves_as_location(c, s, i); /* any location moves */
    }
  }
  c->depth -= values;
  return row->pushes == PUSHES_NOTHING || push(c, kind_pushed[row->pushes], 0);
}

stack_move amddwarf__stack_move(const amddwarf_op *op, uint32_t *count)
{
  const lowering_row *row = &lowerings[op->kind];
  *count = row->parameter == PICK_OPERAND ? (uint32_t)op->operands[0] : row->parameter; /* a 1-byte index */
  return row->lower == lower_pick ? STACK_PICK : row->lower == lower_roll ? STACK_ROLL : STACK_DROP;
}

uint32_t amddwarf__lowering_parameter(const amddwarf_op *op)
{
  return lowerings[op->kind].parameter;
}

bool amddwarf__piece_bits(const amddwarf_op *op, uint64_t *bits, uint64_t *displacement)
{
  uint32_t unit = lowerings[op->kind].parameter;
  *displacement = unit == 1 ? op->operands[1] : 0;
  return !amddwarf_mul_overflow_u64(op->operands[0], unit, bits);
}

uint64_t amddwarf__deref_bytes(const amddwarf_op *op, uint32_t generic_bits)
{
  return lowerings[op->kind].parameter == DEREF_GENERIC ? generic_bits / 8 : op->operands[0];
}

/* The step for operation OP, in its operand form. */
static bool compile_op(compiler *c, const amddwarf_op *op, fast_step *s, bool *emit)
{
  amddwarf_op form;
  const amddwarf_op *as = amddwarf__op_operand_form(op, &form);
  if ((unsigned)as->kind >= AMDDWARF_OP_KIND_COUNT)
    return false;
  const lowering_row *row = &lowerings[as->kind];
  if (!row->lower)
    return false;
  s->a = 0;
  s->b = as->operands[0];
  *emit = true;
  return row->lower(c, as, row->parameter, s, emit);
}

/* Fuses step S into the steps before it when they make one step:
   a constant and a binary operation; a constant address space and
   form_aspace_address, and a breg before them; push_lane, a constant
   multiply and offset (the lane's element of a location), and a register
   before them. Only steps of consecutive operations fuse. *COUNT: the
   steps so far. */
static bool fuse(const compiler *c, uint32_t *count, const fast_step *s)
{
  fast_plan *plan = c->plan;
  uint32_t n = *count;
  fast_step *last = n > c->barrier ? &plan->steps[n - 1] : NULL;
  uint32_t aspace;
  if (s->code == FC_BINARY && last && last->code == FC_VALUE) {
    last->code = FC_BINARY_CONST;
    last->a = s->a;
    last->depth = s->depth - 1;
    memcpy(last->kind, s->kind + 1, 2);
    return true;
  }
  /* A number that names no address space stays unfused: the run declines
     it and the general machine reports it. */
  if (s->code == FC_FORM_ASPACE && last && last->code == FC_VALUE &&
      amddwarf__aspace_of_number(last->b, &aspace)) {
    last->code = FC_FORM_ASPACE_CONST;
    last->a = aspace;
    last->depth = s->depth - 1;
    last->kind[0] = s->kind[1]; /* the address, VALUE's top */
    fast_step *breg = n > c->barrier + 1 ? &plan->steps[n - 2] : NULL;
    if (breg && breg->code == FC_BREG) { /* its address is a register's */
      breg->code = FC_BREG_ASPACE;
      breg->space = aspace;
      *count = n - 1;
    }
    return true;
  }
  fast_step *lane = n > c->barrier + 1 ? &plan->steps[n - 2] : NULL;
  if (s->code == FC_OFFSET && lane && lane->code == FC_LANE && last->code == FC_BINARY_CONST &&
      last->a == AMDDWARF_OP_mul) {
    lane->code = FC_LANE_OFFSET;
    lane->b = last->b;
    lane->register_bytes = s->register_bytes;
    lane->kind[0] = s->kind[1]; /* the location, LANE's top */
    *count = n - 1;
    fast_step *reg = n > c->barrier + 2 ? &plan->steps[n - 3] : NULL;
    if (reg && reg->code == FC_REGISTER) { /* the register of the element */
      reg->code = FC_REGISTER_LANE;
      reg->b = lane->b;
      reg->register_bytes = lane->register_bytes;
      *count = n - 2;
    }
    return true;
  }
  return false;
}

void amddwarf__fast_compile(const amddwarf_op *ops, size_t count,
                            const amddwarf_expr_format *format, fast_plan *plan)
{
  compiler c;
  c.plan = plan;
  c.generic_bits = (uint32_t)format->address_size * 8u;
  c.composite_bits_limit = composite_bits_limit(format->address_size);
  c.depth = 0;
  c.composites = 0;
  c.composite_open = false;
  c.barrier = 0;
  plan->usable = false;
  plan->count = 0;
  plan->pieces = 0;
  plan->pieces_bits = 0;
  plan->pieces_whole_bytes = true;
  plan->top_kind = FAST_VALUE;
  plan->top_register_bytes = 0;
  if (count > FAST_PLAN_STEPS || (c.generic_bits != 32 && c.generic_bits != 64))
    return;
  uint32_t n = 0;
  unsigned deepest = 0;
  for (size_t i = 0; i < count; i++) {
    /* Made in place: a copy would read, as wide loads, the bytes just
       stored (a store-forwarding stall per operation). */
    fast_step *s = &plan->steps[n];
    s->depth = (uint8_t)c.depth;
    s->index = 0;
    s->lazy = false;
    s->register_bytes = 0;
    s->space = 0;
    bool emit;
    if (!compile_op(&c, &ops[i], s, &emit))
      return;
    if (c.depth > deepest)
      deepest = c.depth;
    if (!emit)
      c.barrier = n; /* a drop between a constant and an operation */
    else if (!fuse(&c, &n, s))
      n++;
  }
  plan->count = n;
  plan->operations = (uint32_t)count;
  plan->deepest = deepest;
  plan->depth = (uint8_t)c.depth;
  plan->composite_open = c.composite_open;
  if (c.depth > 0) {
    plan->top_kind = (uint8_t)below_top(&c, 0)->kind;
    plan->top_register_bytes = register_bytes_of(below_top(&c, 0));
  }
  plan->usable = true;
}
