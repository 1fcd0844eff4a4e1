/* Internals of the evaluator shared by its files: the context, the state of
 * one evaluation (a "machine"), and helpers on locations and values.
 *
 *   eval.c       the stack machine: the stack, nested frames, dispatch, results
 *   eval_ops.def which handler runs each operation
 *   ops_values.c     literals, stack operations, arithmetic, typed values
 *   ops_locations.c  registers, memory, address spaces, offsets, implicit locations
 *   ops_composites.c pieces, extend, select_bit_piece
 *   ops_control.c    branches, calls, entry values
 *   fast_compile.c   the common operations lowered once into plans (fast_plan.h)
 *   plan_interp.inc  ... the one interpreter of a plan, over a value domain
 *   fast.c       ... its domain of one lane's numbers (the one-lane fast path)
 *   lanes.c      ... its domain of numbers affine in the lane
 *                    (amddwarf_eval_read_lanes)
 *   context.c    the context's buffers; public reads and writes
 *   location.c   bit offsets, storage sizes, conversions, composites
 *   access.c     reading and writing bits through any location
 *   value.c      typed values: arithmetic, comparisons, conversions
 *   snapshot.c   the JSON wave snapshot target (uses the assembler) */
#ifndef AMDDWARF_EXPR_EVAL_INTERNAL_H
#define AMDDWARF_EXPR_EVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <amddwarf/amdgpu.h>
#include <amddwarf/eval.h>

#include "common/bytes.h"
#include "expr/rules.h"
#include "expr/fast_plan.h"

enum { EVAL_CACHE_ENTRIES = 16, EVAL_CACHE_BYTES = 64, EVAL_CACHE_OPS = FAST_PLAN_STEPS, EVAL_REG_CACHE = 16 };

/* A decoded expression, reused while its bytes (same address, same
   content) and format are the same. */
typedef struct eval_cache_entry {
  const uint8_t *bytes;
  size_t size;
  uint64_t format_key; /* eval.c's format_key of the format decoded with */
  uint8_t copy[EVAL_CACHE_BYTES];
  size_t count;
  amddwarf_op ops[EVAL_CACHE_OPS];
  fast_plan plan;
} eval_cache_entry;

/* The plan of the pre-decoded operations evaluated last (amddwarf_eval_ops),
   kept while the next ones have the same kinds and operands, the only
   fields a plan is made of. */
typedef struct ops_plan_cache {
  size_t count; /* 0: none */
  uint64_t format_key;
  struct {
    amddwarf_op_kind kind;
    uint64_t operands[2];
  } ops[FAST_PLAN_STEPS];
  fast_plan plan;
} ops_plan_cache;

struct amddwarf_eval {
  eval_cache_entry cache[EVAL_CACHE_ENTRIES];
  ops_plan_cache ops_plan;
  /* Each slot's bytes address, side by side: a search of the cache looks at
     these first. */
  const uint8_t *cache_bytes[EVAL_CACHE_ENTRIES];
  struct {
    const amddwarf_target *target;
    uint32_t regno;
    uint64_t bytes;
  } reg_cache[EVAL_REG_CACHE];
  unsigned cache_next;
  unsigned cache_last;   /* the slot of the last evaluation's own expression */
  unsigned cache_pinned; /* bit i: slot i runs in the current evaluation */
  amddwarf_allocator alloc;
  amddwarf_entry *stack;
  uint32_t stack_cap;
  uint32_t max_steps;
  uint32_t max_call_depth;
  amddwarf_op *ops;
  size_t ops_cap;
  size_t ops_max;
  amddwarf_composite_part *parts;
  uint32_t parts_cap;
  uint8_t *pool;
  uint32_t pool_cap;
  struct eval_lanes *lanes; /* lanes.c: the whole-wave evaluator's buffers, made on first use */
  bool general_only; /* fast path off (tests compare the two paths) */
};

/* One evaluation. */
typedef struct machine {
  amddwarf_eval *ev;
  const amddwarf_eval_request *req;
  const amddwarf_target *t;
  amddwarf_error *err;
  uint32_t lane;         /* resolved lane */
  uint32_t wave_size;    /* 0 until asked for */
  uint32_t sp;           /* entries on the stack (all frames) */
  uint32_t parts_used;
  uint32_t pool_used;
  size_t ops_used;
  uint64_t steps;
  uint32_t depth;
  bool registers_sized_by_target; /* the target has register_size */
  bool in_entry_value;
  bool reported;         /* *err holds this evaluation's error (amddwarf__machine_fail) */
  amddwarf_trace_fn trace; /* request's trace callback, NULL when not tracing */
  /* The operation being executed, for error messages. */
  uint64_t op_offset;
  int32_t op_code;
  int32_t op_subop;
} machine;

/* An expression being run: caller-owned or cached ops (EXTERNAL), or a
   slice of the context buffer (indexed, since the buffer may move when a
   nested expression grows it). */
typedef struct program {
  const amddwarf_op *external;
  size_t first;
  size_t count;
  const fast_plan *plan; /* cached expressions only */
  unsigned slot;         /* their cache slot */
} program;

/* Decodes SIZE bytes as program *P: from the decode cache when they were
   decoded before (EXTERNAL then points into the cache), else into the
   context buffer. */
amddwarf_status amddwarf__load_program(machine *m, const uint8_t *bytes, size_t size, program *p);

/* Starts an evaluation (or a read or write) of REQUEST on EV: checks the
   request, resolves the lane, pushes the initial entries. */
amddwarf_status amddwarf__machine_begin(amddwarf_eval *ev, const amddwarf_eval_request *req,
                              amddwarf_error *err, machine *m);

/* Target callback present? (struct_size-aware) */
#define TARGET_HAS(t, field)                                                        \
  ((t)->struct_size >= offsetof(amddwarf_target, field) + sizeof((t)->field) &&      \
   (t)->field != NULL)

/* Fails with STATUS at the current operation. */
amddwarf_status amddwarf__machine_fail(machine *m, amddwarf_status status, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The error just reported, under the status of the rule that met it (its
   message stays): STATUS. */
static inline amddwarf_status machine_restatus(machine *m, amddwarf_status status)
{
  if (m->err)
    m->err->status = status;
  return status;
}

/* Bit size of the generic type (8 * address size). */
static inline uint32_t machine_generic_bits(const machine *m)
{
  return (uint32_t)m->req->format.address_size * 8u;
}

/* The most bits a composite may hold: those of the largest address space
   (2^32 bytes with 4-byte addresses). */
static inline uint64_t composite_bits_limit(uint8_t address_size)
{
  return address_size >= 8 ? UINT64_MAX : (UINT64_C(1) << 35);
}
static inline uint64_t machine_composite_bits_limit(const machine *m)
{
  return composite_bits_limit(m->req->format.address_size);
}

/* Reports a target access to the trace callback (call only when m->trace). */
void amddwarf__machine_trace_access(machine *m, amddwarf_trace_kind kind, uint32_t regno, uint32_t aspace,
                          uint32_t lane, uint64_t address, uint64_t size, const uint8_t *bytes,
                          amddwarf_status status);

/* Releases EV->lanes (lanes.c). */
void amddwarf__eval_lanes_free(amddwarf_eval *ev);

/* ---- eval.c: the stack, shared by the operation handlers --------------------- */

/* E_EVAL_STACK_UNDERFLOW unless the frame from BASE holds N entries. */
amddwarf_status amddwarf__stack_need(machine *m, uint32_t base, uint32_t n);
/* A new top entry (not incomplete), or NULL after E_LIMIT. */
amddwarf_entry *amddwarf__stack_push(machine *m);
static inline amddwarf_entry *stack_top(machine *m, uint32_t index)
{
  return &m->ev->stack[m->sp - 1 - index];
}
amddwarf_status amddwarf__stack_push_value(machine *m, const amddwarf_value *v);
amddwarf_status amddwarf__stack_push_generic(machine *m, uint64_t x);
amddwarf_status amddwarf__stack_push_location(machine *m, const amddwarf_location *loc);
amddwarf_status amddwarf__stack_push_memory(machine *m, uint32_t aspace, uint64_t address);
amddwarf_status amddwarf__stack_push_register(machine *m, uint32_t regno);
/* Pops the top entry as a value (a default-space memory location on a byte
   boundary converts to a generic value). */
amddwarf_status amddwarf__stack_pop_value(machine *m, uint32_t base, amddwarf_value *out);
amddwarf_status amddwarf__stack_pop_integral(machine *m, uint32_t base, amddwarf_value *out);
/* Pops an integral value as (unsigned, signed) 64-bit numbers. */
amddwarf_status amddwarf__stack_pop_integral_u64(machine *m, uint32_t base, uint64_t *x, int64_t *sx);
/* Converts ENTRY (already popped) to a location description. */
amddwarf_status amddwarf__entry_to_location(machine *m, const amddwarf_entry *e, amddwarf_location *out);
amddwarf_status amddwarf__stack_pop_location(machine *m, uint32_t base, amddwarf_location *out);

/* The top entry as a generic value, if it is one (the common case, taken
   without copying the entry). */
static inline bool top_is_generic(machine *m, uint32_t base, uint32_t index)
{
  if (m->sp - base <= index)
    return false;
  const amddwarf_entry *e = stack_top(m, index);
  return e->kind == AMDDWARF_ENTRY_VALUE && e->value.type.encoding == AMDDWARF_ATE_GENERIC &&
         e->value.type.die == 0 && !e->value.is_implicit_pointer && !e->value.pooled;
}

static inline uint64_t generic_u64(const amddwarf_entry *e)
{
  return amddwarf__load_le64(e->value.inline_bytes);
}

/* Locations built field by field (no memset, then a copy): the stack entry
   is written once. Union bytes beyond the kind's member are unused. */
static inline void memory_location(amddwarf_location *loc, uint32_t aspace, uint64_t address)
{
  loc->kind = AMDDWARF_LOCATION_MEMORY;
  loc->bit = 0;
  loc->byte_offset = address;
  loc->u.memory.aspace = aspace;
}

static inline void undefined_location(amddwarf_location *loc)
{
  memset(loc, 0, sizeof *loc);
  loc->kind = AMDDWARF_LOCATION_UNDEFINED;
}

static inline void implicit_location(amddwarf_location *loc, const uint8_t *bytes,
                                     uint64_t bit_size)
{
  memset(loc, 0, sizeof *loc);
  loc->kind = AMDDWARF_LOCATION_IMPLICIT;
  loc->u.implicit.bytes = bytes;
  loc->u.implicit.bit_size = bit_size;
}

static inline void register_location(amddwarf_location *loc, uint32_t regno)
{
  memset(loc, 0, sizeof *loc);
  loc->kind = AMDDWARF_LOCATION_REGISTER;
  loc->u.reg.regno = regno;
}

/* Runs program P on the frame starting at stack entry BASE. */
amddwarf_status amddwarf__machine_run(machine *m, const program *p, uint32_t base);
/* Runs BYTES one nesting level down on the frame from BASE (the caller
   checks the depth limit); the calling operation is the current one again
   after it, unless it failed. */
amddwarf_status amddwarf__run_nested(machine *m, const uint8_t *bytes, size_t size, uint32_t base);
/* Evaluates BYTES on a frame of its own and returns its location result
   (the rule "a location description is required"); WHAT names it in errors. */
amddwarf_status amddwarf__eval_own_frame(machine *m, const uint8_t *bytes, size_t size, const char *what,
                               amddwarf_location *out);
amddwarf_status amddwarf__lookup_die(machine *m, amddwarf_die_ref_kind kind, uint64_t ref,
                           amddwarf_die *die);
amddwarf_status amddwarf__resolve_implicit_pointer(machine *m, const amddwarf_location *ip,
                                         amddwarf_location *out);

/* ---- the operation handlers (ops_*.c, dispatched by eval_ops.def) ----------- */

/* One operation being executed. */
typedef struct op_step {
  const amddwarf_op *op;
  uint32_t base;  /* the current frame's first stack entry */
  size_t next;    /* the operation run next: the following one unless it branches */
} op_step;

typedef amddwarf_status (*op_handler)(machine *m, op_step *s);

#define EVAL_OP(kind, handler) amddwarf_status handler(machine *m, op_step *s);
#include "expr/eval_ops.def"
#undef EVAL_OP

/* ---- fast.c ------------------------------------------------------------- */

/* Evaluates PLAN as a location into *RESULT on the fast path; false when it
   declines (then nothing was reported and the general machine must run the
   expression from the start). */
bool amddwarf__fast_eval_location(machine *m, const fast_plan *plan, amddwarf_entry *result);

/* What amddwarf__fast_eval_read did: declined (run the general machine from
   the start), evaluated the location into *RESULT but left the read to the
   general path, or evaluated and read it. */
typedef enum fast_outcome { FAST_DECLINED, FAST_EVALUATED, FAST_READ } fast_outcome;

/* amddwarf__fast_eval_location followed, when the result is a register, a
   memory location or a piece list of whole bytes of them, by the read of
   BIT_SIZE bits at BIT_OFFSET into DST straight from the target, with the
   general rules of composites and reads. Reports nothing. */
fast_outcome amddwarf__fast_eval_read(machine *m, const fast_plan *plan, uint64_t bit_offset,
                                      uint64_t bit_size, uint8_t *dst, amddwarf_entry *result);

/* ---- location.c --------------------------------------------------------- */

/* Storage size of LOC (rules.h): its bits, or for memory its last byte. */
amddwarf_status amddwarf__loc_storage_size(machine *m, const amddwarf_location *loc, storage_size *out);
/* Address bytes of ASPACE in this process (4 or 8), 0 when not an address
   space: the common spaces inline (the values of aspaces.def), the others
   from the table. */
unsigned amddwarf__aspace_address_bytes_listed(const machine *m, uint32_t aspace);
static inline unsigned amddwarf__aspace_address_bytes(const machine *m, uint32_t aspace)
{
  if (aspace <= AMDDWARF_ASPACE_AMDGPU_GENERIC)
    return m->req->format.address_size >= 8 ? 8 : 4;
  if (aspace == AMDDWARF_ASPACE_AMDGPU_LOCAL || aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
      aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE)
    return 4;
  return amddwarf__aspace_address_bytes_listed(m, aspace);
}
/* The address-space mask: an address of ASPACE keeps its low 8 * (address
   bytes) bits (form_aspace_address, aspace_bregx, xderef); 0 when ASPACE
   is not an address space. */
static inline uint64_t amddwarf__aspace_mask(const machine *m, uint32_t aspace)
{
  return rule_address_mask(amddwarf__aspace_address_bytes(m, aspace));
}
/* The address space that DWARF number NUMBER names (form_aspace_address,
   aspace_bregx): the common spaces (those sized inline above) without the
   table walk. */
static inline bool amddwarf__aspace_of_number(uint64_t number, uint32_t *aspace)
{
  if (number <= AMDDWARF_ASPACE_AMDGPU_GENERIC || number == AMDDWARF_ASPACE_AMDGPU_LOCAL ||
      number == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE || number == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE) {
    *aspace = (uint32_t)number;
    return true;
  }
  return amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, number, aspace) == AMDDWARF_OK;
}
/* Adds BITS (signed) to LOC's offset, failing with E_EVAL_OFFSET_OUT_OF_RANGE
   when the result is negative or past the storage. Undefined is unchanged. */
amddwarf_status amddwarf__loc_add_bits(machine *m, amddwarf_location *loc, int64_t bits);
amddwarf_status amddwarf__loc_add_bytes(machine *m, amddwarf_location *loc, int64_t bytes);
/* Offset of LOC in bits when it fits 64 bits. */
bool amddwarf__loc_bit_offset(const amddwarf_location *loc, uint64_t *bits);

/* Moves LOC forward by BITS, the bounds of its storage left to the caller
   (undefined storage has no offset); false when the offset wraps around. */
static inline bool amddwarf__loc_forward(amddwarf_location *loc, uint64_t bits)
{
  if (loc->kind == AMDDWARF_LOCATION_UNDEFINED)
    return true;
  uint64_t before = loc->byte_offset, total = (uint64_t)loc->bit + bits % 8;
  loc->byte_offset += bits / 8 + total / 8;
  loc->bit = (uint8_t)(total % 8);
  return loc->byte_offset >= before;
}

/* Fits, for a composite: BIT_SIZE bits from BIT_OFFSET bits past composite
   LOC's own offset lie inside it; *OFF is the first of them. */
static inline bool amddwarf__composite_fits(const amddwarf_location *loc, uint64_t bit_offset,
                                            uint64_t bit_size, uint64_t *off)
{
  uint64_t total = loc->u.composite.bit_size;
  return amddwarf__loc_bit_offset(loc, off) && !amddwarf_add_overflow_u64(*off, bit_offset, off) &&
         *off <= total && bit_size <= total - *off;
}

/* The parts of a composite that LEFT bits from its bit OFF cross, one after
   the other (bounds checked by the caller): see composite_next. */
typedef struct composite_cursor {
  const amddwarf_location *loc; /* the composite */
  uint32_t next;                /* index of the next part to look at */
  uint64_t pos;                 /* bit of the composite where it starts */
  uint64_t off;                 /* first bit wanted */
  uint64_t left;                /* bits still wanted */
} composite_cursor;

static inline composite_cursor composite_parts(const amddwarf_location *loc, uint64_t off,
                                               uint64_t bits)
{
  composite_cursor c = {loc, 0, 0, off, bits};
  return c;
}

/* The next part the wanted bits cross, *START its first bit wanted and
   *TAKE how many; NULL when no bit is left. */
static inline const amddwarf_location *composite_next(composite_cursor *c, uint64_t *start,
                                                      uint64_t *take)
{
  while (c->left > 0 && c->next < c->loc->u.composite.count) {
    const amddwarf_composite_part *p = &c->loc->u.composite.parts[c->next++];
    uint64_t pos = c->pos;
    c->pos += p->bit_size;
    if (pos + p->bit_size <= c->off)
      continue;
    *start = c->off > pos ? c->off - pos : 0;
    *take = p->bit_size - *start < c->left ? p->bit_size - *start : c->left;
    c->left -= *take;
    return &p->location;
  }
  return NULL;
}
/* Same storage (identity, not offset)? */
bool amddwarf__loc_same_storage(const amddwarf_location *a, const amddwarf_location *b);

/* Composite building: appends (BIT_SIZE, PL) to the composite of ENTRY
   (creating it when ENTRY is NULL-kind), keeping canonical form; ENTRY's
   parts move to the end of the arena when needed. */
amddwarf_status amddwarf__composite_append(machine *m, amddwarf_location *composite,
                                 const amddwarf_location *pl, uint64_t bit_size);
/* A fresh empty composite at the end of the part arena. */
void amddwarf__composite_begin(machine *m, amddwarf_location *composite);
/* The composite DW_OP_LLVM_select_bit_piece BITS COUNT makes: part N is L1
   moved by N * BITS when bit N of MASK is set, else L0 moved by as much. */
amddwarf_status amddwarf__select_composite(machine *m, const amddwarf_location *l0,
                                 const amddwarf_location *l1, const uint8_t *mask, uint64_t bits,
                                 uint64_t count, amddwarf_location *out);

/* Memory access normalization: DW_ASPACE as written -> (aspace, lane,
   address). The spaces that are neither generic nor a lane's pass through
   inline; the others are mapped by amddwarf__memory_target_space_mapped. */
amddwarf_status amddwarf__memory_target_space_mapped(machine *m, uint32_t aspace, uint64_t address,
                                                     uint32_t *out_aspace, uint32_t *out_lane,
                                                     uint64_t *out_address);
static inline amddwarf_status amddwarf__memory_target_space(machine *m, uint32_t aspace,
                                                            uint64_t address, uint32_t *out_aspace,
                                                            uint32_t *out_lane, uint64_t *out_address)
{
  if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC || aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
      (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
       aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63))
    return amddwarf__memory_target_space_mapped(m, aspace, address, out_aspace, out_lane,
                                                out_address);
  *out_aspace = aspace;
  *out_lane = AMDDWARF_NO_LANE;
  *out_address = address;
  return AMDDWARF_OK;
}
/* The wave size: the request's, else the target's, asked once (64 when it
   cannot say). */
uint32_t amddwarf__machine_wave_size_asked(machine *m);
static inline uint32_t amddwarf__machine_wave_size(machine *m)
{
  return m->wave_size != 0 ? m->wave_size : amddwarf__machine_wave_size_asked(m);
}
/* Whether the wave has lane LANE (push_lane, the private_lane spaces): every
   wave has at least 32 lanes, so only a higher lane asks the wave size. */
static inline bool amddwarf__machine_has_lane(machine *m, uint32_t lane)
{
  return lane < 32 || lane < amddwarf__machine_wave_size(m);
}
/* The register's size in bytes, or E_EVAL_BAD_REGISTER. A small
   per-context cache answers first: register sizes do not change for a
   target (only the fixed AMDGPU map is cached). */
amddwarf_status amddwarf__register_bytes_uncached(machine *m, uint32_t regno, uint64_t *bytes);
static inline amddwarf_status register_bytes(machine *m, uint32_t regno, uint64_t *bytes)
{
  const amddwarf_eval *ev = m->ev;
  unsigned slot = regno % EVAL_REG_CACHE;
  if (ev->reg_cache[slot].target == m->t && ev->reg_cache[slot].regno == regno &&
      ev->reg_cache[slot].bytes) {
    *bytes = ev->reg_cache[slot].bytes;
    return AMDDWARF_OK;
  }
  return amddwarf__register_bytes_uncached(m, regno, bytes);
}

/* ---- access.c ----------------------------------------------------------- */

/* Reads BIT_SIZE bits at BIT_OFFSET after LOC's offset into DST starting at
   bit DST_BIT (DST zeroed by the caller where needed). */
amddwarf_status amddwarf__access_read(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                            uint64_t bit_size, uint8_t *dst, uint64_t dst_bit);
amddwarf_status amddwarf__access_write(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                             uint64_t bit_size, const uint8_t *src);
/* amddwarf__access_read of whole bytes from registers and memory (a leaf or a
   composite of such parts) straight from the target, reporting nothing;
   false when it declines (a rule or a target read fails, bits that are not
   whole bytes, tracing): the general read then gives the result or error.
   DST may hold part of the bytes after a decline. */
bool amddwarf__access_read_direct(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                                  uint64_t bit_size, uint8_t *dst);
/* The public read of BIT_SIZE bits at BIT_OFFSET after LOC's offset into
   BUF, whose last byte is zeroed when the bits end inside it: the direct
   read, else the general one. */
static inline amddwarf_status machine_read(machine *m, const amddwarf_location *loc,
                                           uint64_t bit_offset, uint64_t bit_size, uint8_t *buf)
{
  if (bit_size % 8)
    buf[bit_size / 8] = 0;
  if (amddwarf__access_read_direct(m, loc, bit_offset, bit_size, buf))
    return AMDDWARF_OK;
  return amddwarf__access_read(m, loc, bit_offset, bit_size, buf, 0);
}
/* Copies N bits from SRC at bit SRC_BIT into DST at bit DST_BIT. */
void amddwarf__copy_bits(uint8_t *dst, uint64_t dst_bit, const uint8_t *src, uint64_t src_bit, uint64_t n);

/* ---- value.c ------------------------------------------------------------ */

/* V becomes the integral value X (cut to the type's bits) of TYPE. */
void amddwarf__value_set_bits(amddwarf_value *v, const amddwarf_base_type *type, uint64_t x);
void amddwarf__value_set_generic(machine *m, amddwarf_value *v, uint64_t x);
bool amddwarf__type_is_integral(const amddwarf_base_type *type);
bool amddwarf__type_equal(const amddwarf_base_type *a, const amddwarf_base_type *b);
/* Integral value as u64 (zero-extended) / sign-extended per its type. */
uint64_t amddwarf__value_u64(const amddwarf_value *v);
int64_t amddwarf__value_s64(const amddwarf_value *v);
/* Stores BYTES (SIZE of them) as a value of TYPE (pool for large values). */
amddwarf_status amddwarf__value_from_bytes(machine *m, amddwarf_value *v, const amddwarf_base_type *type,
                                 const uint8_t *bytes, size_t size);
/* Reserves SIZE bytes of the pool. */
uint8_t *amddwarf__pool_alloc(machine *m, size_t size);
/* Looks up base type DIE (0 = generic). */
amddwarf_status amddwarf__type_lookup(machine *m, uint64_t die, amddwarf_base_type *out);
/* The integer operations that need neither the operands' type nor their
   signedness, on BITS-bit X and Y (eq and ne give 0 or 1; neg and not take
   X alone), and abs, of X as signed: *R (to be cut to BITS), or false for
   another operation. The general machine and both plan domains compute
   them here. Inline: the fast path runs one per step. */
static inline bool amddwarf__integer_arithmetic(amddwarf_op_kind kind, uint64_t x, uint64_t y,
                                                uint32_t bits, uint64_t *r)
{
  switch (kind) {
  case AMDDWARF_OP_and: *r = x & y; return true;
  case AMDDWARF_OP_or: *r = x | y; return true;
  case AMDDWARF_OP_xor: *r = x ^ y; return true;
  case AMDDWARF_OP_plus: *r = x + y; return true;
  case AMDDWARF_OP_minus: *r = x - y; return true;
  case AMDDWARF_OP_mul: *r = x * y; return true;
  case AMDDWARF_OP_shl: *r = y >= bits ? 0 : x << y; return true;
  case AMDDWARF_OP_shr: *r = y >= bits ? 0 : x >> y; return true;
  case AMDDWARF_OP_eq: *r = x == y; return true;
  case AMDDWARF_OP_ne: *r = x != y; return true;
  case AMDDWARF_OP_neg: *r = (uint64_t)0 - x; return true;
  case AMDDWARF_OP_not: *r = ~x; return true;
  case AMDDWARF_OP_abs: *r = rule_sign_extend(x, bits) < 0 ? (uint64_t)0 - x : x; return true;
  default: return false;
  }
}
/* Binary arithmetic/comparison of kind KIND on A (second) and B (top). */
amddwarf_status amddwarf__value_binary(machine *m, amddwarf_op_kind kind, const amddwarf_value *a,
                             const amddwarf_value *b, amddwarf_value *out);
amddwarf_status amddwarf__value_unary(machine *m, amddwarf_op_kind kind, amddwarf_value *v);
amddwarf_status amddwarf__value_convert(machine *m, amddwarf_value *v, const amddwarf_base_type *to,
                              bool reinterpret);

#endif
