/* The DWARF expression evaluator: location descriptions, values, reads and
 * writes (DESIGN.md section 4; specs/eval-json.md for the CLI rendering).
 *
 * An amddwarf_eval is a reusable evaluation context: it owns a fixed-capacity
 * stack, an operation buffer, a composite-part arena and a byte pool, all
 * allocated once by amddwarf_eval_new. Evaluating an expression allocates
 * nothing unless an expression (with the procedures it calls) needs more
 * operations than the buffer holds. Results point into the context (composite
 * parts, computed implicit bytes) or into the expression bytes (the block of
 * DW_OP_implicit_value): they stay valid until the next evaluation on the same
 * context, amddwarf_eval_free, or until the expression bytes are released,
 * whichever comes first. One context must not be used by two threads at once;
 * separate contexts are independent. */
#ifndef AMDDWARF_EVAL_H
#define AMDDWARF_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/expr.h>
#include <amddwarf/status.h>
#include <amddwarf/target.h>

AMDDWARF_BEGIN_DECLS

/* ---- Location descriptions ---------------------------------------------- */

typedef enum amddwarf_location_kind {
  AMDDWARF_LOCATION_UNDEFINED = 0,
  AMDDWARF_LOCATION_MEMORY = 1,           /* an address space (DW_ASPACE_*) */
  AMDDWARF_LOCATION_REGISTER = 2,         /* a DWARF register number */
  AMDDWARF_LOCATION_IMPLICIT = 3,         /* known bytes, read-only */
  AMDDWARF_LOCATION_IMPLICIT_POINTER = 4, /* DW_OP_(LLVM_aspace_)implicit_pointer */
  AMDDWARF_LOCATION_COMPOSITE = 5,        /* canonical parts */
} amddwarf_location_kind;

typedef struct amddwarf_composite_part amddwarf_composite_part;

/* A location description: a storage and a bit offset into it.
   The bit offset is BYTE_OFFSET * 8 + BIT (BIT in 0..7), so that every
   address of a 64-bit address space is representable; for memory BYTE_OFFSET
   is the address. An undefined location has no offset (both are 0). */
typedef struct amddwarf_location {
  amddwarf_location_kind kind;
  uint8_t bit;
  uint64_t byte_offset;
  union {
    struct {
      uint32_t aspace;        /* DW_ASPACE_* as written (private_lane<N> kept) */
    } memory;
    struct {
      uint32_t regno;
    } reg;
    struct {
      const uint8_t *bytes;   /* BIT_SIZE bits, little-endian; see lifetime above */
      uint64_t bit_size;
    } implicit;
    struct {
      uint64_t die;           /* .debug_info offset of the pointed-to DIE */
      int64_t displacement;   /* byte displacement D */
      uint32_t aspace;        /* the pointer's address space */
      uint32_t bit_size;      /* size S of the pointer's storage */
    } implicit_pointer;
    struct {
      const amddwarf_composite_part *parts; /* canonical: no composite, no empty part */
      uint32_t count;
      uint64_t bit_size;      /* sum of the parts' bit sizes */
    } composite;
  } u;
} amddwarf_location;

/* One part of a composite: BIT_SIZE bits of LOCATION (never a composite). */
struct amddwarf_composite_part {
  uint64_t bit_size;
  amddwarf_location location;
};

/* ---- Values -------------------------------------------------------------- */

enum { AMDDWARF_VALUE_INLINE_BYTES = 16, AMDDWARF_VALUE_MAX_BYTES = 64 };

/* A value of a base type (the generic type: die 0, 64 bits on amdgcn).
   Bytes are little-endian; a value of more than AMDDWARF_VALUE_INLINE_BYTES
   bytes lives in the context's pool: use amddwarf_value_bytes. */
typedef struct amddwarf_value {
  amddwarf_base_type type;
  uint8_t inline_bytes[AMDDWARF_VALUE_INLINE_BYTES];
  const uint8_t *pooled;   /* NULL when the bytes are inline */
  /* Implicit pointer values (a DW_OP_deref* of implicit pointer storage):
     nonzero IS_IMPLICIT_POINTER, and POINTER holds the implicit pointer
     location it came from. Such a value has no bytes. */
  int is_implicit_pointer;
  amddwarf_location pointer;
} amddwarf_value;

/* The bytes of VALUE: (type.bit_size * type.count + 7) / 8 of them. */
AMDDWARF_API const uint8_t *amddwarf_value_bytes(const amddwarf_value *value);
/* The byte size of VALUE. */
AMDDWARF_API size_t amddwarf_value_size(const amddwarf_value *value);

/* ---- Stack entries and results ------------------------------------------ */

typedef enum amddwarf_entry_kind {
  AMDDWARF_ENTRY_VALUE = 0,
  AMDDWARF_ENTRY_LOCATION = 1,
} amddwarf_entry_kind;

/* A stack entry, used for initial entries (DW_AT_data_member_location
   pushes the object's location) and for results. */
typedef struct amddwarf_entry {
  amddwarf_entry_kind kind;
  int incomplete;          /* a composite still being built (never in results) */
  union {
    amddwarf_value value;       /* kind == VALUE */
    amddwarf_location location; /* kind == LOCATION */
  };
} amddwarf_entry;

/* What the caller needs from the expression (the seed's result rules). */
typedef enum amddwarf_result_required {
  AMDDWARF_RESULT_LOCATION = 0, /* empty stack -> undefined; a generic value converts */
  AMDDWARF_RESULT_VALUE = 1,    /* a default-space memory location converts */
} amddwarf_result_required;

/* ---- Context ------------------------------------------------------------- */

/* Hard limits and allocation. Zero fields take the defaults in brackets. */
typedef struct amddwarf_eval_options {
  uint32_t struct_size;      /* sizeof(amddwarf_eval_options) */
  uint32_t max_stack;        /* stack entries, all frames together [64] */
  uint32_t max_steps;        /* operations executed per evaluation [100000] */
  uint32_t max_call_depth;   /* nested DW_OP_call*, frame base, entry value [16] */
  uint32_t max_parts;        /* composite parts per evaluation [1024] */
  uint32_t max_ops;          /* decoded operations per evaluation [65536];
                                the buffer starts at 256 and grows on demand */
  uint32_t pool_bytes;       /* byte pool for computed implicit bytes and large values [8192] */
  const amddwarf_allocator *allocator; /* NULL: malloc */
} amddwarf_eval_options;

typedef struct amddwarf_eval amddwarf_eval;

/* Creates a context. OPTIONS may be NULL. Errors: E_NO_MEMORY, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_eval_new(const amddwarf_eval_options *options,
                                               amddwarf_eval **out, amddwarf_error *err);
/* Releases EV and everything its results point to. EV may be NULL. */
AMDDWARF_API void amddwarf_eval_free(amddwarf_eval *ev);

/* ---- Tracing ------------------------------------------------------------- */

/* What a trace event reports. */
typedef enum amddwarf_trace_kind {
  AMDDWARF_TRACE_OP = 0,              /* an operation was executed (OP, STACK) */
  AMDDWARF_TRACE_READ_REGISTER = 1,   /* target->read_register (REGNO, ADDRESS, SIZE) */
  AMDDWARF_TRACE_WRITE_REGISTER = 2,  /* target->write_register */
  AMDDWARF_TRACE_READ_ENTRY_REGISTER = 3, /* target->read_entry_register */
  AMDDWARF_TRACE_READ_MEMORY = 4,     /* target->read_memory (ASPACE, LANE, ADDRESS, SIZE) */
  AMDDWARF_TRACE_WRITE_MEMORY = 5,    /* target->write_memory */
} amddwarf_trace_kind;

/* One trace event. Everything it points to is owned by the evaluator and is
   valid only during the trace callback: copy what you keep. */
typedef struct amddwarf_trace_event {
  amddwarf_trace_kind kind;
  uint32_t depth;               /* 0: the expression itself; N: inside the Nth nested
                                   DW_OP_call*, frame base or entry value */
  /* AMDDWARF_TRACE_OP */
  const amddwarf_op *op;        /* the operation just executed */
  const amddwarf_entry *stack;  /* the whole stack after it, bottom first (all frames) */
  uint32_t stack_size;
  /* Target accesses (they arrive before the OP event of their operation) */
  uint64_t op_offset;           /* byte offset of the operation making the access, in
                                   its own expression; AMDDWARF_NO_OFFSET for reads and
                                   writes through a location outside an evaluation */
  uint32_t regno;               /* registers: the DWARF number */
  uint32_t aspace;              /* memory: the address space the target was asked for
                                   (DW_ASPACE_*, after normalization) */
  uint32_t lane;                /* memory: the lane, or AMDDWARF_NO_LANE */
  uint64_t address;             /* memory: the address; registers: the byte offset */
  uint64_t size;                /* bytes */
  const uint8_t *bytes;         /* the bytes read or written; NULL when STATUS != OK */
  amddwarf_status status;       /* what the callback returned */
} amddwarf_trace_event;

/* Called for every event of an evaluation, a read or a write that uses the
   request. Must not call back into the library. */
typedef void (*amddwarf_trace_fn)(void *user, const amddwarf_trace_event *event);

/* One evaluation's parameters. */
typedef struct amddwarf_eval_request {
  uint32_t struct_size;             /* sizeof(amddwarf_eval_request) */
  const amddwarf_target *target;    /* required; kept only during the call */
  amddwarf_expr_format format;      /* dialect, address and offset size, version */
  uint32_t lane;                    /* lane of the evaluation; AMDDWARF_NO_LANE: ask
                                       target->focused_lane (0 without it) */
  amddwarf_result_required required;
  amddwarf_xderef_numbering xderef; /* numbering of DW_OP_xderef* address spaces */
  const amddwarf_entry *initial;    /* entries pushed before evaluation, bottom first */
  size_t initial_count;
  /* Optional tracing: TRACE (NULL: none, and no cost beyond one test per
     operation) is called with TRACE_USER after every operation and every
     register and memory access of the target. Requests whose struct_size
     ends before these fields are not traced. */
  amddwarf_trace_fn trace;
  void *trace_user;
  /* The wave's lane count, 32 or 64, when the caller knows it (a debugger
     knows it of every wave it stops); 0: ask target->wave_size when a lane
     operation needs it (64 without the callback). Known, it saves that
     call on every evaluation of a lane above 31. Any other value is
     E_INVALID_ARGUMENT. */
  uint32_t wave_size;
} amddwarf_eval_request;

/* Defaults: auto dialect, 8-byte addresses, 32-bit DWARF, version 5, focused
   lane, location required, DW_ASPACE numbering, no initial entries, the
   wave size asked of the target. */
AMDDWARF_API void amddwarf_eval_request_init(amddwarf_eval_request *request,
                                             const amddwarf_target *target);

/* Decodes and evaluates the SIZE bytes at BYTES. Expressions of up to 64
   bytes are decoded once and reused while their address and contents stay
   the same (a debugger evaluates one location for every lane), so a caller
   need not keep decoded operations itself. *RESULT receives the result
   entry per REQUEST->required (see the lifetime rules at the top).
   On error, ERR names the byte offset and opcode of the failing operation
   (of the innermost expression: a called procedure's own offsets), the
   status is one of the codec's decode errors, the evaluator's
   AMDDWARF_E_EVAL_* codes, E_AMDGPU_*, E_LIMIT (a hard limit), E_UNSUPPORTED
   (a target callback is missing), or a target callback's status. */
AMDDWARF_API amddwarf_status amddwarf_eval_expr(amddwarf_eval *ev,
                                                const amddwarf_eval_request *request,
                                                const uint8_t *bytes, size_t size,
                                                amddwarf_entry *result, amddwarf_error *err);

/* As amddwarf_eval_expr on already decoded operations (amddwarf_expr_decode
   output; the ops and their blocks must stay valid as the bytes would). */
AMDDWARF_API amddwarf_status amddwarf_eval_ops(amddwarf_eval *ev,
                                               const amddwarf_eval_request *request,
                                               const amddwarf_op *ops, size_t count,
                                               amddwarf_entry *result, amddwarf_error *err);

/* Evaluates the location expression BYTES (SIZE) and reads BIT_SIZE bits at
   BIT_OFFSET of its result into BUF, with the outcome (status, bytes, ERR)
   of amddwarf_eval_expr followed by amddwarf_location_read with the same
   REQUEST, in one call: the evaluation is set up once, and the common
   results (a register, a memory location, a composite of whole-byte parts)
   are read straight from the target. REQUEST->required must be
   AMDDWARF_RESULT_LOCATION (else E_INVALID_ARGUMENT). */
AMDDWARF_API amddwarf_status amddwarf_eval_read(amddwarf_eval *ev,
                                                const amddwarf_eval_request *request,
                                                const uint8_t *bytes, size_t size,
                                                uint64_t bit_offset, uint64_t bit_size,
                                                void *buf, amddwarf_error *err);

/* ---- Every lane of a wave at once ----------------------------------------- */

enum { AMDDWARF_EVAL_MAX_LANES = 64 };

/* Evaluates the location expression BYTES (SIZE) for every lane of LANES
   (bit L: lane L) and reads BIT_SIZE bits at BIT_OFFSET of each lane's
   location. For every lane L the outcome is that of amddwarf_eval_expr with
   REQUEST's lane set to L, followed by amddwarf_location_read of the
   result: lane L's (BIT_SIZE + 7) / 8 bytes go to VALUES + L * STRIDE
   (zeros when the lane fails), and STATUSES[L] (AMDDWARF_EVAL_MAX_LANES
   entries; lanes outside LANES are left alone) receives OK or the status
   the one-lane evaluation or read fails with (E_EVAL_OPTIMIZED_OUT,
   E_EVAL_UNAVAILABLE, any evaluation error). Evaluate that lane with
   amddwarf_eval_expr for the message.

   The work that does not depend on the lane is done once: the decoding,
   the operations (a composite such as the EXEC-selected spill of
   DW_OP_LLVM_select_bit_piece is built once), and the reads, which are
   batched by storage: one read of a vector register for all lanes, one
   private_wave row for the private_lane dword of every lane (the target's
   private_wave is taken to be the swizzled view of its lanes' private_lane
   memory, as the AMDGPU ABI defines it). specs/evaluator.md says which
   expressions take that path; the other lanes and expressions are
   evaluated lane by lane. *BATCHED (may be NULL) receives the lanes the
   batched path gave.

   REQUEST->required must be AMDDWARF_RESULT_LOCATION. Errors (of the call,
   no lane read): E_INVALID_ARGUMENT (NULL arguments, a lane past 63, a
   stride below the value's bytes, a value required), E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_eval_read_lanes(amddwarf_eval *ev,
                                                      const amddwarf_eval_request *request,
                                                      const uint8_t *bytes, size_t size,
                                                      uint64_t lanes, uint64_t bit_offset,
                                                      uint64_t bit_size, void *values,
                                                      size_t stride, amddwarf_status *statuses,
                                                      uint64_t *batched, amddwarf_error *err);

/* ---- Reading and writing through a location ------------------------------ */

/* Size in bits of the storage LOC specifies: a memory space has
   2^(8 * address bytes) bytes (reported as UINT64_MAX when the bit count does
   not fit 64 bits), undefined storage reports UINT64_MAX, register sizes come
   from target->register_size or the AMDGPU map. Errors: E_EVAL_BAD_REGISTER,
   E_EVAL_BAD_ADDRESS_SPACE, the callback's errors. */
AMDDWARF_API amddwarf_status amddwarf_location_storage_bits(amddwarf_eval *ev,
                                                            const amddwarf_eval_request *request,
                                                            const amddwarf_location *loc,
                                                            uint64_t *bits, amddwarf_error *err);

/* Reads BIT_SIZE bits starting BIT_OFFSET bits after LOC's own offset into
   BUF ((BIT_SIZE + 7) / 8 bytes; bit i of the result is bit i of BUF, LSB
   first; unused high bits of the last byte are zero). Composites read every
   part they cross. Errors: E_EVAL_OPTIMIZED_OUT (a bit comes from undefined
   storage), E_EVAL_UNAVAILABLE (the target could not read),
   E_EVAL_OUT_OF_BOUNDS (past the storage), E_EVAL_IMPLICIT_POINTER (bits of
   implicit pointer storage), E_UNSUPPORTED (missing callback). REQUEST gives
   the target and the lane; EV supplies scratch space only. */
AMDDWARF_API amddwarf_status amddwarf_location_read(amddwarf_eval *ev,
                                                    const amddwarf_eval_request *request,
                                                    const amddwarf_location *loc,
                                                    uint64_t bit_offset, uint64_t bit_size,
                                                    void *buf, amddwarf_error *err);

/* Writes BIT_SIZE bits from BUF like amddwarf_location_read reads them.
   All-or-nothing: every part is checked first (undefined ->
   E_EVAL_WRITE_UNDEFINED, implicit or implicit pointer -> E_EVAL_WRITE_READONLY,
   bounds), the old contents of every part are saved, and if a target write
   fails the parts already written are restored before the error returns.
   Partial bytes are read-modify-written. */
AMDDWARF_API amddwarf_status amddwarf_location_write(amddwarf_eval *ev,
                                                     const amddwarf_eval_request *request,
                                                     const amddwarf_location *loc,
                                                     uint64_t bit_offset, uint64_t bit_size,
                                                     const void *buf, amddwarf_error *err);

/* ---- Composites ------------------------------------------------------------ */

/* Brings COUNT parts in PARTS (CAPACITY entries of room) into canonical form
   in place: nested composites are flattened (needing room: E_NO_SPACE, with
   *OUT_COUNT the count needed), empty parts dropped, contiguous parts of one
   storage merged. *OUT_COUNT receives the new count. Idempotent. */
AMDDWARF_API amddwarf_status amddwarf_composite_canonicalize(amddwarf_composite_part *parts,
                                                             size_t count, size_t capacity,
                                                             size_t *out_count);

/* Names of kinds, for printing: "memory", "composite", ... (static). */
AMDDWARF_API const char *amddwarf_location_kind_name(amddwarf_location_kind kind);
/* DW_ATE_* name without prefix ("unsigned", "float"; "generic" for 0, "user"
   for DW_ATE_lo_user..hi_user, "unknown" otherwise). Static string. */
AMDDWARF_API const char *amddwarf_encoding_name(uint8_t encoding);

AMDDWARF_END_DECLS

#endif
