/* Internals of the evaluator shared by its files: the context, the state of
 * one evaluation (a "machine"), and helpers on locations and values.
 *
 *   eval.c       the stack machine: operations, calls, results
 *   fast.c       the one-lane fast path for common locations
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
#include <amddwarf/eval.h>

enum { EVAL_CACHE_ENTRIES = 8, EVAL_CACHE_BYTES = 64, EVAL_CACHE_OPS = 32, EVAL_REG_CACHE = 16 };

/* A decoded expression, reused while its bytes (same address, same
   content) and format are the same. */
typedef struct eval_cache_entry {
  const uint8_t *bytes;
  size_t size;
  amddwarf_expr_format format;
  uint8_t copy[EVAL_CACHE_BYTES];
  size_t count;
  amddwarf_op ops[EVAL_CACHE_OPS];
} eval_cache_entry;

struct amddwarf_eval {
  eval_cache_entry cache[EVAL_CACHE_ENTRIES];
  struct {
    const amddwarf_target *target;
    uint32_t regno;
    uint64_t bytes;
  } reg_cache[EVAL_REG_CACHE];
  unsigned cache_next;
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
  bool in_entry_value;
  bool reported;         /* *err holds this evaluation's error (machine_fail) */
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
} program;

/* Decodes SIZE bytes as program *P: from the decode cache when they were
   decoded before (EXTERNAL then points into the cache), else into the
   context buffer. */
amddwarf_status load_program(machine *m, const uint8_t *bytes, size_t size, program *p);

/* Starts an evaluation (or a read or write) of REQUEST on EV: checks the
   request, resolves the lane, pushes the initial entries. */
amddwarf_status machine_begin(amddwarf_eval *ev, const amddwarf_eval_request *req,
                              amddwarf_error *err, machine *m);

/* Target callback present? (struct_size-aware) */
#define TARGET_HAS(t, field)                                                        \
  ((t)->struct_size >= offsetof(amddwarf_target, field) + sizeof((t)->field) &&      \
   (t)->field != NULL)

/* Fails with STATUS at the current operation. */
amddwarf_status machine_fail(machine *m, amddwarf_status status, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Bit size of the generic type (8 * address size). */
static inline uint32_t machine_generic_bits(const machine *m)
{
  return (uint32_t)m->req->format.address_size * 8u;
}

static inline uint64_t bits_mask(uint32_t bits)
{
  return bits >= 64 ? UINT64_MAX : ((UINT64_C(1) << bits) - 1);
}

/* Reports a target access to the trace callback (call only when m->trace). */
void machine_trace_access(machine *m, amddwarf_trace_kind kind, uint32_t regno, uint32_t aspace,
                          uint32_t lane, uint64_t address, uint64_t size, const uint8_t *bytes,
                          amddwarf_status status);

/* Releases EV->lanes (lanes.c). */
void eval_lanes_free(amddwarf_eval *ev);
/* ---- fast.c ------------------------------------------------------------- */

/* Evaluates the COUNT operations at OPS as a location into *RESULT on the
   fast path; false when it declines (then nothing was reported and the
   general machine must run the expression from the start). */
bool fast_eval_location(machine *m, const amddwarf_op *ops, size_t count, amddwarf_entry *result);

/* ---- location.c --------------------------------------------------------- */

/* Storage size of LOC: *BITS, or *HUGE set when it is 2^64 bits or more
   (64-bit memory: the last valid byte is then *LAST_BYTE). */
typedef struct storage_size {
  bool memory;           /* size counted in bytes: LAST_BYTE */
  uint64_t last_byte;    /* memory: highest valid address */
  uint64_t bits;         /* non-memory: size in bits */
  bool unbounded;        /* undefined storage */
} storage_size;

amddwarf_status loc_storage_size(machine *m, const amddwarf_location *loc, storage_size *out);
/* Address bytes of ASPACE in this process (4 or 8), 0 when not an address space. */
unsigned aspace_address_bytes(const machine *m, uint32_t aspace);
/* Adds BITS (signed) to LOC's offset, failing with E_EVAL_OFFSET_OUT_OF_RANGE
   when the result is negative or past the storage. Undefined is unchanged. */
amddwarf_status loc_add_bits(machine *m, amddwarf_location *loc, int64_t bits);
amddwarf_status loc_add_bytes(machine *m, amddwarf_location *loc, int64_t bytes);
/* Offset of LOC in bits when it fits 64 bits. */
bool loc_bit_offset(const amddwarf_location *loc, uint64_t *bits);
/* Sets LOC's offset to BITS. */
void loc_set_bit_offset(amddwarf_location *loc, uint64_t bits);
/* Same storage (identity, not offset)? */
bool loc_same_storage(const amddwarf_location *a, const amddwarf_location *b);

/* Composite building: appends (BIT_SIZE, PL) to the composite of ENTRY
   (creating it when ENTRY is NULL-kind), keeping canonical form; ENTRY's
   parts move to the end of the arena when needed. */
amddwarf_status composite_append(machine *m, amddwarf_location *composite,
                                 const amddwarf_location *pl, uint64_t bit_size);
/* A fresh empty composite at the end of the part arena. */
void composite_begin(machine *m, amddwarf_location *composite);
/* The composite DW_OP_LLVM_select_bit_piece BITS COUNT makes: part N is L1
   moved by N * BITS when bit N of MASK is set, else L0 moved by as much. */
amddwarf_status select_composite(machine *m, const amddwarf_location *l0,
                                 const amddwarf_location *l1, const uint8_t *mask, uint64_t bits,
                                 uint64_t count, amddwarf_location *out);

/* Memory access normalization: DW_ASPACE as written -> (aspace, lane, address). */
amddwarf_status memory_target_space(machine *m, uint32_t aspace, uint64_t address,
                                    uint32_t *out_aspace, uint32_t *out_lane,
                                    uint64_t *out_address);
/* The wave size (asks the target once; 64 when it cannot say). */
uint32_t machine_wave_size(machine *m);
/* The register's size in bytes, or E_EVAL_BAD_REGISTER. A small
   per-context cache answers first: register sizes do not change for a
   target (only the fixed AMDGPU map is cached). */
amddwarf_status register_bytes_uncached(machine *m, uint32_t regno, uint64_t *bytes);
static inline amddwarf_status register_bytes(machine *m, uint32_t regno, uint64_t *bytes)
{
  const amddwarf_eval *ev = m->ev;
  unsigned slot = regno % EVAL_REG_CACHE;
  if (ev->reg_cache[slot].target == m->t && ev->reg_cache[slot].regno == regno &&
      ev->reg_cache[slot].bytes) {
    *bytes = ev->reg_cache[slot].bytes;
    return AMDDWARF_OK;
  }
  return register_bytes_uncached(m, regno, bytes);
}

/* ---- access.c ----------------------------------------------------------- */

/* Reads BIT_SIZE bits at BIT_OFFSET after LOC's offset into DST starting at
   bit DST_BIT (DST zeroed by the caller where needed). */
amddwarf_status access_read(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                            uint64_t bit_size, uint8_t *dst, uint64_t dst_bit);
amddwarf_status access_write(machine *m, const amddwarf_location *loc, uint64_t bit_offset,
                             uint64_t bit_size, const uint8_t *src);
/* Copies N bits from SRC at bit SRC_BIT into DST at bit DST_BIT. */
void copy_bits(uint8_t *dst, uint64_t dst_bit, const uint8_t *src, uint64_t src_bit, uint64_t n);

/* ---- value.c ------------------------------------------------------------ */

void value_set_generic(machine *m, amddwarf_value *v, uint64_t x);
bool type_is_integral(const amddwarf_base_type *type);
bool type_equal(const amddwarf_base_type *a, const amddwarf_base_type *b);
/* Integral value as u64 (zero-extended) / sign-extended per its type. */
uint64_t value_u64(const amddwarf_value *v);
int64_t value_s64(const amddwarf_value *v);
/* Stores BYTES (SIZE of them) as a value of TYPE (pool for large values). */
amddwarf_status value_from_bytes(machine *m, amddwarf_value *v, const amddwarf_base_type *type,
                                 const uint8_t *bytes, size_t size);
/* Reserves SIZE bytes of the pool. */
uint8_t *pool_alloc(machine *m, size_t size);
/* Looks up base type DIE (0 = generic). */
amddwarf_status type_lookup(machine *m, uint64_t die, amddwarf_base_type *out);
/* Binary arithmetic/comparison of kind KIND on A (second) and B (top). */
amddwarf_status value_binary(machine *m, amddwarf_op_kind kind, const amddwarf_value *a,
                             const amddwarf_value *b, amddwarf_value *out);
amddwarf_status value_unary(machine *m, amddwarf_op_kind kind, amddwarf_value *v);
amddwarf_status value_convert(machine *m, amddwarf_value *v, const amddwarf_base_type *to,
                              bool reinterpret);

#endif
