/* Code objects: static checks of every expression, location list and CFI
 * program (`amddwarf check`). Expressions are decoded with the codec and
 * then interpreted abstractly over every path: each stack entry is a known
 * constant, a register location, an implicit value of known size, or
 * unknown, which is enough to find underflows, address-space operands that
 * name nothing, and pieces that overrun their storage. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/cfi.h>
#include <amddwarf/target.h>

#include "common/mem.h"
#include "object/internal.h"

#define MAX_TRACKED_DEPTH 64
#define MAX_PATH_STATES 100000

/* ---- tables ---- */

static const char *const check_names[] = {
#define AMDDWARF_CHECK(kind, name, description) name,
#include <amddwarf/check.def>
#undef AMDDWARF_CHECK
};
static const char *const check_descriptions[] = {
#define AMDDWARF_CHECK(kind, name, description) description,
#include <amddwarf/check.def>
#undef AMDDWARF_CHECK
};
static const unsigned char check_warnings[] = {
#define AMDDWARF_CHECK(kind, name, description) 0,
#define AMDDWARF_CHECK_WARNING(kind, name, description) 1,
#include <amddwarf/check.def>
#undef AMDDWARF_CHECK_WARNING
#undef AMDDWARF_CHECK
};
_Static_assert(sizeof check_names / sizeof check_names[0] == AMDDWARF_CHECK_KIND_COUNT,
               "check.def names");
_Static_assert(sizeof check_warnings == AMDDWARF_CHECK_KIND_COUNT, "check.def warnings");

int amddwarf_check_kind_is_warning(amddwarf_check_kind kind)
{
  return (unsigned)kind < AMDDWARF_CHECK_KIND_COUNT ? check_warnings[kind] : 0;
}

const char *amddwarf_check_kind_name(amddwarf_check_kind kind)
{
  return (unsigned)kind < AMDDWARF_CHECK_KIND_COUNT ? check_names[kind] : NULL;
}

const char *amddwarf_check_kind_description(amddwarf_check_kind kind)
{
  return (unsigned)kind < AMDDWARF_CHECK_KIND_COUNT ? check_descriptions[kind] : NULL;
}

typedef struct effect {
  amddwarf_op_kind kind;
  uint8_t needs, pops, pushes;
} effect;

/* Stack effect of KIND (a column of ops.def); false when it is not
   statically known. */
static bool effect_of(amddwarf_op_kind kind, effect *out)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(kind);
  if (info == NULL || info->stack_needs < 0)
    return false;
  *out = (effect){kind, (uint8_t)info->stack_needs, info->stack_pops, info->stack_pushes};
  return true;
}

/* ---- reporting ---- */

typedef struct checker {
  const amddwarf_object *object;
  const amddwarf_cu *cu;
  amddwarf_expr_format format;
  amddwarf_convention convention;
  unsigned wave_size;
  int (*report)(void *user, const amddwarf_check_problem *problem);
  void *user;
  size_t count;
  bool stop;
  /* where the current expression comes from */
  uint64_t die_offset;
  uint16_t attribute;
  uint64_t entry_offset;
  amddwarf_quirk pending_quirk; /* the quirk a PRODUCER_QUIRK problem names */
} checker;

static void problem(checker *c, amddwarf_check_kind kind, amddwarf_status status,
                    uint64_t op_offset, int32_t opcode, const char *format, ...)
    AMDDWARF_PRINTF_LIKE(6, 7);

static void problem(checker *c, amddwarf_check_kind kind, amddwarf_status status,
                    uint64_t op_offset, int32_t opcode, const char *format, ...)
{
  amddwarf_check_problem p;
  va_list ap;
  if (c->stop)
    return;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.status = status;
  p.die_offset = c->die_offset;
  p.attribute = c->attribute;
  p.entry_offset = c->entry_offset;
  p.op_offset = op_offset;
  p.opcode = opcode;
  p.quirk = kind == AMDDWARF_CHECK_PRODUCER_QUIRK ? c->pending_quirk : AMDDWARF_QUIRK_NONE;
  va_start(ap, format);
  vsnprintf(p.message, sizeof p.message, format, ap);
  va_end(ap);
  if (!check_warnings[kind])
    c->count++;
  if (c->report != NULL && c->report(c->user, &p) != 0)
    c->stop = true;
}

/* ---- abstract interpretation ---- */

typedef enum slot_kind { SLOT_UNKNOWN, SLOT_CONST, SLOT_REG, SLOT_IMPLICIT } slot_kind;

typedef struct slot {
  slot_kind kind;
  uint64_t value; /* CONST: the value; REG: the register; IMPLICIT: its size in bytes */
} slot;

typedef struct path_state {
  uint32_t op;
  uint32_t depth;
  bool pieces;
  slot stack[MAX_TRACKED_DEPTH];
} path_state;

static const char *op_name(const amddwarf_op *op)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(op->kind);
  return info ? info->name : "?";
}

static uint32_t amddwarf__op_register(const amddwarf_op *op)
{
  if ((op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) ||
      (op->kind >= AMDDWARF_OP_breg0 && op->kind <= AMDDWARF_OP_breg31))
    return (uint32_t)op->operands[1];
  return (uint32_t)op->operands[0];
}

static bool op_has_register(const amddwarf_op *op)
{
  switch (op->kind) {
  case AMDDWARF_OP_regx:
  case AMDDWARF_OP_bregx:
  case AMDDWARF_OP_regval_type:
  case AMDDWARF_OP_GNU_regval_type:
  case AMDDWARF_OP_LLVM_call_frame_entry_reg:
  case AMDDWARF_OP_LLVM_aspace_bregx:
    return true;
  default:
    return (op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) ||
           (op->kind >= AMDDWARF_OP_breg0 && op->kind <= AMDDWARF_OP_breg31);
  }
}

static void check_register(checker *c, const amddwarf_op *op, uint8_t *reported)
{
  amddwarf_amdgpu_register reg;
  uint32_t number = amddwarf__op_register(op);
  if (*reported)
    return;
  if (amddwarf_amdgpu_register_info(number, &reg) != AMDDWARF_OK) {
    *reported = 1;
    problem(c, AMDDWARF_CHECK_BAD_REGISTER, 0, op->offset, op->opcode,
            "%s names register %u, which the AMDGPU DWARF register map does not define",
            op_name(op), number);
    return;
  }
  if (reg.wave_size != 0 && reg.wave_size != c->wave_size) {
    char name[32];
    *reported = 1;
    amddwarf_amdgpu_register_name(number, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
    problem(c, AMDDWARF_CHECK_WAVE_REGISTER, 0, op->offset, op->opcode,
            "%s names %s (register %u), a wave%u register, in a wave%u object", op_name(op),
            name, number, reg.wave_size, c->wave_size);
  }
}

/* Checks a constant address-space operand V of OP. XDEREF: the operand of
   DW_OP_xderef*, read with the unit's numbering. */
static void check_aspace(checker *c, const amddwarf_op *op, uint64_t v, bool xderef,
                         uint8_t *reported)
{
  uint32_t aspace = 0;
  amddwarf_aspace_info info;
  bool ok;
  if (*reported)
    return;
  if (xderef)
    ok = amddwarf_aspace_from_xderef(c->convention == AMDDWARF_CONVENTION_LEGACY
                                         ? AMDDWARF_XDEREF_LEGACY
                                         : AMDDWARF_XDEREF_DWARF,
                                     v, &aspace) == AMDDWARF_OK;
  else
    ok = amddwarf_aspace_info_get(v > UINT32_MAX ? UINT32_MAX : (uint32_t)v, &info) ==
         AMDDWARF_OK;
  if (!ok) {
    *reported = 1;
    problem(c, AMDDWARF_CHECK_BAD_ADDRESS_SPACE, 0, op->offset, op->opcode,
            "%s uses address space %llu, which is not an address space of the %s convention",
            op_name(op), (unsigned long long)v, amddwarf_convention_name(c->convention));
  }
}

static void check_piece(checker *c, const amddwarf_op *op, const path_state *s,
                        uint8_t *reported)
{
  uint64_t bits, offset = 0, storage = 0;
  const char *what = NULL;
  char name[32];
  if (s->depth == 0 || *reported)
    return;
  if (op->kind == AMDDWARF_OP_piece) {
    bits = op->operands[0] * 8;
  } else {
    bits = op->operands[0];
    offset = op->operands[1];
  }
  const slot *top = s->depth <= MAX_TRACKED_DEPTH ? &s->stack[s->depth - 1] : NULL;
  if (top == NULL)
    return;
  if (top->kind == SLOT_REG) {
    amddwarf_amdgpu_register reg;
    if (amddwarf_amdgpu_register_info((uint32_t)top->value, &reg) != AMDDWARF_OK)
      return;
    storage = reg.bit_size;
    amddwarf_amdgpu_register_name((uint32_t)top->value, AMDDWARF_REGISTER_DWARF_NAME, name,
                                  sizeof name);
    what = name;
  } else if (top->kind == SLOT_IMPLICIT) {
    storage = top->value * 8;
    what = "the implicit value";
  } else {
    return;
  }
  if (bits + offset > storage || bits + offset < bits) {
    *reported = 1;
    problem(c, AMDDWARF_CHECK_PIECE_OVERRUN, 0, op->offset, op->opcode,
            "%s of %llu bits at bit %llu overruns %s (%llu bits)", op_name(op),
            (unsigned long long)bits, (unsigned long long)offset, what,
            (unsigned long long)storage);
  }
}

/* Applies OP to S. Returns false when the path ends (underflow reported, or
   an effect that cannot be known statically). */
static bool step(checker *c, const amddwarf_op *ops, size_t count, path_state *s,
                 uint8_t *reported)
{
  const amddwarf_op *op = &ops[s->op];
  effect e;
  (void)count;
  if (!effect_of(op->kind, &e))
    return false;
  uint32_t needs = e.needs;
  if (op->kind == AMDDWARF_OP_pick)
    needs = (uint32_t)op->operands[0] + 1;
  if (s->depth < needs) {
    if (!(reported[0] & 1)) {
      reported[0] |= 1;
      problem(c, op->kind == AMDDWARF_OP_pick ? AMDDWARF_CHECK_BAD_STACK_OP
                                              : AMDDWARF_CHECK_STACK_UNDERFLOW,
              0, op->offset, op->opcode,
              "%s needs %u stack entries but a path reaches it with %u", op_name(op), needs,
              s->depth);
    }
    return false;
  }
  if (s->depth > MAX_TRACKED_DEPTH - 4)
    return false; /* deeper than anything real; stop following */
  slot *st = s->stack;
  uint32_t d = s->depth;
  slot a, b, r;
  switch (op->kind) {
  case AMDDWARF_OP_dup: st[d] = st[d - 1]; s->depth++; return true;
  case AMDDWARF_OP_over: st[d] = st[d - 2]; s->depth++; return true;
  case AMDDWARF_OP_pick: st[d] = st[d - 1 - op->operands[0]]; s->depth++; return true;
  case AMDDWARF_OP_swap: a = st[d - 1]; st[d - 1] = st[d - 2]; st[d - 2] = a; return true;
  case AMDDWARF_OP_rot:
    a = st[d - 1];
    st[d - 1] = st[d - 2];
    st[d - 2] = st[d - 3];
    st[d - 3] = a;
    return true;
  case AMDDWARF_OP_piece:
  case AMDDWARF_OP_bit_piece:
    check_piece(c, op, s, &reported[1]);
    if (s->depth > 0)
      s->depth--;
    s->pieces = true;
    return true;
  case AMDDWARF_OP_LLVM_piece_end:
    s->pieces = true;
    return true;
  case AMDDWARF_OP_xderef:
  case AMDDWARF_OP_xderef_size:
  case AMDDWARF_OP_xderef_type:
    if (st[d - 2].kind == SLOT_CONST)
      check_aspace(c, op, st[d - 2].value, true, &reported[2]);
    break;
  case AMDDWARF_OP_LLVM_form_aspace_address:
  case AMDDWARF_OP_LLVM_aspace_bregx:
  case AMDDWARF_OP_LLVM_aspace_implicit_pointer:
    if (st[d - 1].kind == SLOT_CONST)
      check_aspace(c, op, st[d - 1].value, false, &reported[2]);
    break;
  default:
    break;
  }
  r.kind = SLOT_UNKNOWN;
  r.value = 0;
  if (op->kind >= AMDDWARF_OP_lit0 && op->kind <= AMDDWARF_OP_lit31) {
    r.kind = SLOT_CONST;
    r.value = (uint64_t)(op->kind - AMDDWARF_OP_lit0);
  } else if ((op->kind >= AMDDWARF_OP_const1u && op->kind <= AMDDWARF_OP_consts)) {
    r.kind = SLOT_CONST;
    r.value = op->operands[0];
  } else if ((op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) ||
             op->kind == AMDDWARF_OP_regx) {
    r.kind = SLOT_REG;
    r.value = amddwarf__op_register(op);
  } else if (op->kind == AMDDWARF_OP_implicit_value) {
    r.kind = SLOT_IMPLICIT;
    r.value = op->operands[0];
  }
  (void)b;
  s->depth -= e.pops;
  for (uint32_t i = 0; i < e.pushes; ++i)
    st[s->depth++] = r;
  return true;
}

/* INITIAL_DEPTH entries are on the stack when the expression starts: the
   CFA, for the expression of a register's rule (DWARF 5 section 6.4.2). */
static void analyze(checker *c, const amddwarf_op *ops, size_t count, uint32_t initial_depth)
{
  /* reported[op * 4 + k]: k = 0 underflow, 1 piece, 2 address space, 3 register. */
  uint8_t *reported = calloc(count * 4 + 4, 1);
  uint8_t *seen = calloc((count + 1) * (MAX_TRACKED_DEPTH + 1), 1);
  path_state *work = malloc(sizeof *work * 64);
  size_t top = 0, cap = 64, states = 0;
  uint8_t end_reported = 0;
  if (reported == NULL || seen == NULL || work == NULL)
    goto cleanup;
  memset(&work[0], 0, sizeof work[0]);
  work[0].depth = initial_depth; /* an unknown memory location: slot 0 is SLOT_UNKNOWN */
  top = 1;
  while (top > 0 && !c->stop && states < MAX_PATH_STATES) {
    path_state s = work[--top];
    for (;;) {
      ++states;
      if (s.depth > MAX_TRACKED_DEPTH)
        break;
      uint8_t *mark = &seen[(size_t)s.op * (MAX_TRACKED_DEPTH + 1) + s.depth];
      if (*mark & (s.pieces ? 2 : 1))
        break;
      *mark |= (uint8_t)(s.pieces ? 2 : 1);
      if (s.op >= count) {
        if (s.depth == 0 && !s.pieces && count > 0 && !end_reported) {
          end_reported = 1;
          problem(c, AMDDWARF_CHECK_EMPTY_RESULT, 0, ops[count - 1].offset + ops[count - 1].size,
                  AMDDWARF_NO_OPCODE,
                  "a path reaches the end of the expression with an empty stack and no piece");
        }
        break;
      }
      const amddwarf_op *op = &ops[s.op];
      if (op_has_register(op))
        check_register(c, op, &reported[(size_t)s.op * 4 + 3]);
      if (!step(c, ops, count, &s, &reported[(size_t)s.op * 4]))
        break;
      if (op->kind == AMDDWARF_OP_skip) {
        s.op = op->target;
        continue;
      }
      if (op->kind == AMDDWARF_OP_bra) {
        if (top == cap) {
          path_state *grown = realloc(work, sizeof *work * cap * 2);
          if (grown == NULL)
            goto cleanup;
          work = grown;
          cap *= 2;
        }
        work[top] = s;
        work[top].op = op->target;
        ++top;
      }
      s.op++;
    }
  }
cleanup:
  free(reported);
  free(seen);
  free(work);
}

static void check_bytes(checker *c, const uint8_t *bytes, size_t size, uint32_t initial_depth)
{
  amddwarf_error err;
  size_t count = 0;
  if (size == 0)
    return;
  amddwarf_op *ops = malloc(size * sizeof *ops);
  if (ops == NULL) {
    c->stop = true;
    return;
  }
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_expr_decode(bytes, size, &c->format, ops, size, &count, &err);
  for (size_t i = 0; i < count && c->object != NULL; ++i) {
    const amddwarf_unknown_addr *u = amddwarf__object_unknown_of_op(c->object, c->cu, bytes, &ops[i]);
    if (u != NULL) {
      char message[AMDDWARF_ERROR_MESSAGE_SIZE];
      amddwarf__object_describe_unknown_op(c->object, u, &ops[i], message, sizeof message);
      problem(c, AMDDWARF_CHECK_UNDEFINED_ADDRESS, 0, ops[i].offset, ops[i].opcode, "%s",
              message);
    }
  }
  if (st != AMDDWARF_OK) {
    problem(c, AMDDWARF_CHECK_DECODE, st, err.offset, err.opcode, "%s",
            err.message[0] ? err.message : amddwarf_status_message(st));
  } else {
    analyze(c, ops, count, initial_depth);
  }
  free(ops);
}

/* ---- how a location is read: producer quirks, private memory ---- */

/* Whether the normalized expression BYTES (SIZE, dialect user) forms an
   address in a private address space: a constant naming one followed by
   DW_OP_LLVM_form_aspace_address or DW_OP_xderef*. */
static bool names_private_memory(const amddwarf_cu *cu, const uint8_t *bytes, size_t size)
{
  enum { MAX_OPS = 64 };
  amddwarf_op ops[MAX_OPS];
  size_t count = 0;
  amddwarf_expr_format f = cu->format;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY)
    f.dialect = AMDDWARF_DIALECT_USER; /* what normalizing wrote */
  if (amddwarf_expr_decode(bytes, size, &f, ops, MAX_OPS, &count, NULL) != AMDDWARF_OK)
    return false;
  for (size_t i = 0; i + 1 < count; ++i) {
    uint64_t k;
    amddwarf_op_kind next = ops[i + 1].kind;
    if (ops[i].kind >= AMDDWARF_OP_lit0 && ops[i].kind <= AMDDWARF_OP_lit31)
      k = (uint64_t)(ops[i].kind - AMDDWARF_OP_lit0);
    else if (ops[i].kind == AMDDWARF_OP_constu)
      k = ops[i].operands[0];
    else
      continue;
    bool private_space = k == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
                         k == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE ||
                         (k >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
                          k <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63);
    if (private_space && (next == AMDDWARF_OP_LLVM_form_aspace_address ||
                          next == AMDDWARF_OP_xderef || next == AMDDWARF_OP_xderef_size ||
                          next == AMDDWARF_OP_xderef_type))
      return true;
  }
  return false;
}

/* A DIE whose expressions are checked: its reference and tag. */
typedef struct checked_die {
  amddwarf_die_ref ref;
  uint16_t tag;
} checked_die;

static int first_range(void *user, const amddwarf_range *range)
{
  *(uint64_t *)user = range->low;
  return 1;
}

/* The first address of DIE's subprogram (DIE or its nearest enclosing one),
   or UINT64_MAX. */
static uint64_t subprogram_pc(const amddwarf_object *object, const checked_die *die)
{
  amddwarf_die_links links;
  for (amddwarf_die_ref d = die->ref;
       amddwarf_die_ref_valid(d) && amddwarf_object_die_links(object, d, &links, NULL) == AMDDWARF_OK;
       d = links.parent) {
    if (links.tag != DW_TAG_subprogram)
      continue;
    uint64_t low = UINT64_MAX;
    amddwarf_object_die_ranges(object, d, first_range, &low, NULL);
    return low;
  }
  return UINT64_MAX;
}

/* The location BYTES (SIZE) of variable DIE, used from PC on: a producer
   quirk it is read through (a warning), or private memory where its kernel
   has none. */
static void check_reading(checker *c, const checked_die *die, const uint8_t *bytes,
                          size_t size, uint64_t pc)
{
  uint8_t normalized[512];
  size_t normalized_size = 0;
  amddwarf_error err;
  if (c->object == NULL || c->cu == NULL || size == 0 ||
      (die->tag != DW_TAG_variable && die->tag != DW_TAG_formal_parameter))
    return;
  amddwarf_quirk q = amddwarf_object_expr_quirk(c->object, c->cu, AMDDWARF_ROLE_LOCATION, bytes,
                                                size);
  if (q != AMDDWARF_QUIRK_NONE) {
    const amddwarf_quirk_info *info = amddwarf_quirk_get(q);
    c->pending_quirk = q;
    problem(c, AMDDWARF_CHECK_PRODUCER_QUIRK, 0, UINT64_MAX, AMDDWARF_NO_OPCODE,
            "producer quirk %s of \"%s\": %s", info->name,
            c->cu->producer ? c->cu->producer : "", info->reading);
  }
  if (pc == UINT64_MAX ||
      amddwarf_object_normalize_expr(c->object, c->cu, AMDDWARF_ROLE_LOCATION, bytes, size,
                                     normalized, sizeof normalized, &normalized_size,
                                     NULL) != AMDDWARF_OK ||
      !names_private_memory(c->cu, normalized, normalized_size))
    return;
  amddwarf_error_clear(&err);
  if (amddwarf_object_private_possible(c->object, pc, &err) != AMDDWARF_OK)
    problem(c, AMDDWARF_CHECK_PRIVATE_WITHOUT_SEGMENT, AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT,
            UINT64_MAX, AMDDWARF_NO_OPCODE, "%s", err.message);
}

static int entry_order(const void *a, const void *b)
{
  const amddwarf_loc_entry *x = *(const amddwarf_loc_entry *const *)a;
  const amddwarf_loc_entry *y = *(const amddwarf_loc_entry *const *)b;
  if (x->low != y->low)
    return x->low < y->low ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void check_value(checker *c, const checked_die *die, uint16_t attribute,
                        const amddwarf_attr_value *v)
{
  if (v == NULL || c->stop)
    return;
  c->die_offset = die->ref.offset;
  c->attribute = attribute;
  c->entry_offset = UINT64_MAX;
  bool location = attribute == DW_AT_location;
  if (v->kind == AMDDWARF_ATTR_EXPR) {
    check_bytes(c, v->bytes, v->size, 0);
    if (location)
      check_reading(c, die, v->bytes, v->size, subprogram_pc(c->object, die));
    return;
  }
  if (v->kind != AMDDWARF_ATTR_LIST)
    return;
  const amddwarf_loc_entry **sorted = malloc((v->count ? v->count : 1) * sizeof *sorted);
  size_t n = 0;
  for (size_t i = 0; i < v->count; ++i) {
    const amddwarf_loc_entry *e = &v->entries[i];
    c->entry_offset = e->offset;
    if (!e->is_default && e->low > e->high)
      problem(c, AMDDWARF_CHECK_LIST_INVERTED, 0, UINT64_MAX, AMDDWARF_NO_OPCODE,
              "list entry [0x%llx, 0x%llx) ends before it starts", (unsigned long long)e->low,
              (unsigned long long)e->high);
    else if (!e->is_default && e->low < e->high && sorted != NULL)
      sorted[n++] = e;
    check_bytes(c, e->expr, e->size, 0);
    if (location)
      check_reading(c, die, e->expr, e->size,
                    e->is_default ? subprogram_pc(c->object, die) : e->low);
  }
  if (sorted != NULL) {
    qsort(sorted, n, sizeof *sorted, entry_order);
    for (size_t i = 1; i < n; ++i) {
      if (sorted[i]->low < sorted[i - 1]->high) {
        c->entry_offset = sorted[i]->offset;
        problem(c, AMDDWARF_CHECK_LIST_OVERLAP, 0, UINT64_MAX, AMDDWARF_NO_OPCODE,
                "list entry [0x%llx, 0x%llx) overlaps the entry [0x%llx, 0x%llx) at offset "
                "0x%llx",
                (unsigned long long)sorted[i]->low, (unsigned long long)sorted[i]->high,
                (unsigned long long)sorted[i - 1]->low, (unsigned long long)sorted[i - 1]->high,
                (unsigned long long)sorted[i - 1]->offset);
      }
    }
  }
  free(sorted);
}

static void checker_init(checker *c, const amddwarf_object *object, const amddwarf_cu *cu)
{
  c->object = object;
  c->cu = cu;
  c->wave_size = object ? amddwarf__object_wave_info(object)->wave_size : 64;
  if (cu != NULL) {
    c->format = cu->format;
    c->convention = cu->convention;
  } else {
    amddwarf_expr_format_init(&c->format);
    c->convention = AMDDWARF_CONVENTION_LEGACY;
  }
}

/* Checks the expressions of ROW that differ from those of BEFORE (NULL:
   none), so that a rule is checked where it is set, not in every row it
   holds. */
static void check_row_expressions(checker *c, const amddwarf_cfi *cfi,
                                  const amddwarf_cfi_row *row, const amddwarf_cfi_row *before)
{
  if (row->cfa.expr != NULL && row->cfa.expr_size > 0 &&
      (before == NULL || before->cfa.expr != row->cfa.expr))
    check_bytes(c, row->cfa.expr, (size_t)row->cfa.expr_size, 0);
  for (uint32_t k = 0; k < row->rule_count && !c->stop; ++k) {
    const amddwarf_cfi_rule *rule = &row->rules[k];
    amddwarf_cfi_rule was;
    if (rule->expr == NULL || rule->expr_size == 0)
      continue;
    if (before != NULL && amddwarf_cfi_row_rule(cfi, before, rule->column, &was) &&
        was.expr == rule->expr)
      continue;
    check_bytes(c, rule->expr, (size_t)rule->expr_size, 1); /* the CFA is pushed first */
  }
}

/* The rows of .debug_frame, from the object's own CFI handle (the section
   as relocated when the object was opened). */
static void check_cfi(checker *c, const amddwarf_object *object)
{
  amddwarf_cfi *cfi = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  c->die_offset = UINT64_MAX;
  c->attribute = 0;
  c->entry_offset = UINT64_MAX;
  if (amddwarf__object_find_section(object, ".debug_frame") == NULL)
    return;
  amddwarf_status st = amddwarf_object_cfi(object, &cfi, &err);
  if (st != AMDDWARF_OK) {
    problem(c, AMDDWARF_CHECK_CFI, st, err.offset, err.opcode, ".debug_frame: %s", err.message);
    return;
  }
  const amddwarf_cfi_cie *checked_cie = NULL;
  for (size_t i = 0; i < amddwarf_cfi_fde_count(cfi) && !c->stop; ++i) {
    const amddwarf_cfi_fde *fde = amddwarf_cfi_fde_at(cfi, i);
    const amddwarf_cfi_row *rows = NULL;
    size_t count = 0;
    amddwarf_error_clear(&err);
    c->entry_offset = fde->offset;
    c->die_offset = UINT64_MAX;
    /* An FDE that says nothing (clang's) has no expressions to check; its
       rows would be the prologue analyzer's, not the object's. */
    const amddwarf_cfi_row *initial = NULL;
    bool says_nothing = amddwarf_cfi_cie_row(cfi, fde->cie, &initial, NULL) == AMDDWARF_OK &&
                        initial->cfa.kind == AMDDWARF_CFA_RULE_UNSPECIFIED;
    for (uint64_t b = 0; says_nothing && b < fde->instructions_size; ++b)
      says_nothing = fde->instructions[b] == 0;
    if (says_nothing)
      continue;
    st = amddwarf_cfi_fde_rows(cfi, fde, &rows, &count, &err);
    if (st != AMDDWARF_OK) {
      problem(c, AMDDWARF_CHECK_CFI, st, err.offset, err.opcode, "FDE at 0x%llx: %s",
              (unsigned long long)fde->offset, err.message);
      continue;
    }
    /* A CIE's rules are checked with its first FDE (the FDEs of one CIE
       usually follow each other), then only what each row changes. */
    if (initial != NULL && checked_cie != fde->cie) {
      checked_cie = fde->cie;
      c->entry_offset = fde->cie->offset;
      check_row_expressions(c, cfi, initial, NULL);
      c->entry_offset = fde->offset;
    }
    for (size_t r = 0; r < count && !c->stop; ++r)
      check_row_expressions(c, cfi, &rows[r], r > 0 ? &rows[r - 1] : initial);
  }
}

amddwarf_status amddwarf_object_check_expr(
    const amddwarf_object *object, const amddwarf_cu *cu, const uint8_t *bytes, size_t size,
    int (*report)(void *user, const amddwarf_check_problem *problem), void *user,
    size_t *count, amddwarf_error *err)
{
  checker c;
  if (bytes == NULL && size > 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_check_expr: NULL bytes");
  memset(&c, 0, sizeof c);
  checker_init(&c, object, cu);
  c.report = report;
  c.user = user;
  c.die_offset = UINT64_MAX;
  c.entry_offset = UINT64_MAX;
  check_bytes(&c, bytes, size, 0);
  if (count)
    *count = c.count;
  return AMDDWARF_OK;
}

/* The attributes of a DIE whose values are expressions or lists, in the
   order they are checked. */
static const uint16_t checked_attributes[] = {
    DW_AT_location,    DW_AT_frame_base, DW_AT_data_member_location,  DW_AT_lower_bound,
    DW_AT_upper_bound, DW_AT_count,      AMDDWARF_DW_AT_LLVM_lane_pc, AMDDWARF_DW_AT_LLVM_active_lane,
};
enum { CHECKED_ATTRIBUTES = sizeof checked_attributes / sizeof checked_attributes[0] };

/* The checked attributes of one DIE, as encoded (the last of a repeated
   one), by their place in checked_attributes. */
typedef struct die_values {
  amddwarf_attribute at[CHECKED_ATTRIBUTES];
  bool present[CHECKED_ATTRIBUTES];
} die_values;

static int note_value(void *user, const amddwarf_attribute *a)
{
  die_values *d = user;
  unsigned code = a->attribute == AMDDWARF_DW_AT_LLVM_lane_pc_old ? AMDDWARF_DW_AT_LLVM_lane_pc
                                                                   : a->attribute;
  if (code == AMDDWARF_DW_AT_LLVM_active_lane && !amddwarf__is_active_lane_attribute(a))
    return 0;
  for (size_t k = 0; k < CHECKED_ATTRIBUTES; ++k)
    if (checked_attributes[k] == code) {
      d->at[k] = *a;
      d->present[k] = true;
    }
  return 0;
}

typedef struct entry_list {
  amddwarf_loc_entry *items;
  size_t count, capacity;
  bool failed;
} entry_list;

static int keep_entry(void *user, const amddwarf_loc_entry *entry)
{
  entry_list *l = user;
  if (l->count == l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 16;
    amddwarf_loc_entry *grown = realloc(l->items, cap * sizeof *grown);
    if (grown == NULL) {
      l->failed = true;
      return 1;
    }
    l->items = grown;
    l->capacity = cap;
  }
  l->items[l->count++] = *entry;
  return 0;
}

/* Checks the expressions and lists of DIE INDEX of unit CU_INDEX. */
static amddwarf_status check_die(checker *c, size_t cu_index, uint32_t index,
                                 amddwarf_error *err)
{
  const amddwarf_object *object = c->object;
  checked_die die;
  die.ref.offset = object->cus[cu_index].offset + object->units[cu_index].records[index].offset;
  die.ref.cu_index = (uint32_t)cu_index;
  die.ref.index = index;
  die_values d;
  memset(&d, 0, sizeof d);
  amddwarf_die_links links;
  amddwarf_status st = amddwarf_object_die_links(object, die.ref, &links, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_die_ref_attributes(object, die.ref, note_value, &d, err);
  die.tag = links.tag;
  entry_list entries = {NULL, 0, 0, false};
  for (size_t k = 0; k < CHECKED_ATTRIBUTES && st == AMDDWARF_OK && !c->stop; ++k) {
    amddwarf_attr_value *v = &d.at[k].value;
    if (!d.present[k])
      continue;
    if (v->kind == AMDDWARF_ATTR_LIST) {
      entries.count = 0;
      st = amddwarf_object_die_list_entries(object, die.ref, d.at[k].attribute, keep_entry,
                                            &entries, err);
      if (entries.failed)
        st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, die.ref.offset, "location list");
      v->entries = entries.items;
      v->count = entries.count;
    }
    if (st == AMDDWARF_OK)
      check_value(c, &die, checked_attributes[k], v);
  }
  free(entries.items);
  return st;
}

amddwarf_status amddwarf_object_check(
    const amddwarf_object *object,
    int (*report)(void *user, const amddwarf_check_problem *problem), void *user,
    size_t *count, amddwarf_error *err)
{
  checker c;
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_check: NULL object");
  amddwarf_status st = amddwarf_object_load_all(object, err);
  if (st != AMDDWARF_OK)
    return st;
  memset(&c, 0, sizeof c);
  c.report = report;
  c.user = user;
  for (size_t u = 0; u < object->cu_count && !c.stop && st == AMDDWARF_OK; ++u) {
    checker_init(&c, object, &object->cus[u]);
    for (uint32_t i = 0; i < object->units[u].die_count && !c.stop && st == AMDDWARF_OK; ++i)
      st = check_die(&c, u, i, err);
  }
  if (st != AMDDWARF_OK)
    return st;
  if (!c.stop) {
    checker_init(&c, object, NULL);
    check_cfi(&c, object);
  }
  if (count)
    *count = c.count;
  return AMDDWARF_OK;
}
