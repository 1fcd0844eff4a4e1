/* The type side of `amddwarf eval`: DWARF type DIEs as C sees them (arrays
 * by dimension, struct members with their bit layout, pointers with their
 * address space and size), and the plan that turns a parsed expression into
 * steps over a location, checked against the types before any lane is read. */
#ifndef AMDDWARF_EVAL_TYPE_H
#define AMDDWARF_EVAL_TYPE_H

#include <amddwarf/amddwarf.h>

#include "eval_path.h"

/* The DW_TAG_* values the walker and printer look at. */
enum {
  EVAL_TAG_ARRAY = 0x01,
  EVAL_TAG_CLASS = 0x02,
  EVAL_TAG_ENUMERATION = 0x04,
  EVAL_TAG_MEMBER = 0x0d,
  EVAL_TAG_POINTER = 0x0f,
  EVAL_TAG_REFERENCE = 0x10,
  EVAL_TAG_STRUCTURE = 0x13,
  EVAL_TAG_UNION = 0x17,
  EVAL_TAG_INHERITANCE = 0x1c,
  EVAL_TAG_SUBRANGE = 0x21,
  EVAL_TAG_BASE = 0x24,
  EVAL_TAG_RVALUE_REFERENCE = 0x42,
};

enum { EVAL_MAX_DIMS = 16 };

/* A type as an expression sees it: DIE as written (typedefs kept for its
   name) and, for an array, how many leading dimensions were indexed
   already ("m[1]" of int m[3][4] is DIE int[3][4] with DIMS_USED 1). DIE
   NULL is void. */
typedef struct eval_type {
  const amddwarf_die_info *die;
  unsigned dims_used;
} eval_type;

/* One dimension of an array: valid indexes LOWER .. LOWER + COUNT - 1;
   KNOWN 0 when the count is not a constant (a flexible array). */
typedef struct eval_dim {
  int64_t lower;
  uint64_t count;
  int known;
} eval_dim;

/* The dimensions of array type ARRAY (stripped) into DIMS; returns how many
   (at most EVAL_MAX_DIMS). */
size_t eval_array_dims(const amddwarf_object *object, const amddwarf_die_info *array,
                       eval_dim *dims);

/* The stripped DIE of TYPE when it is an array with dimensions left, else NULL. */
const amddwarf_die_info *eval_type_array(eval_type type);

/* The byte size of TYPE (remaining dimensions of a partly indexed array).
   AMDDWARF_OK or AMDDWARF_NOT_FOUND. */
amddwarf_status eval_type_size(const amddwarf_object *object, eval_type type, uint64_t *size);

/* The C spelling of TYPE ("int[4]" for a row of int[3][4]). */
void eval_type_spell(const amddwarf_object *object, eval_type type, char *buf, size_t size);

/* Where a member (or inheritance) DIE lives in its aggregate: BIT_OFFSET
   from the aggregate's start, and BIT_SIZE for a bitfield (0 otherwise).
   Returns AMDDWARF_OK, or AMDDWARF_E_UNSUPPORTED with MESSAGE for a member
   location that is not a constant or DW_OP_plus_uconst. */
typedef struct eval_member_layout {
  uint64_t bit_offset;
  uint64_t bit_size;
} eval_member_layout;
amddwarf_status eval_member_layout_get(const amddwarf_object *object,
                                       const amddwarf_die_info *member,
                                       eval_member_layout *layout, char *message, size_t size);

/* The address space a pointer type (stripped) points into, and the size of
   its values in bytes: DW_AT_byte_size, else the size of an address of that
   space (private and local pointers are 4 bytes on AMDGPU). */
uint32_t eval_pointer_aspace(const amddwarf_object *object, const amddwarf_die_info *pointer);
uint32_t eval_pointer_size(const amddwarf_object *object, const amddwarf_die_info *pointer);

/* Sign-extends the low BITS bits of V when SIGNED_ is nonzero, else masks them. */
uint64_t eval_extend_bits(uint64_t v, uint64_t bits, int signed_);

/* Whether base or enumeration TYPE (stripped) holds signed values. */
int eval_type_is_signed(const amddwarf_die_info *type);

typedef enum eval_step_kind {
  EVAL_STEP_ADD_BITS,     /* move BITS further into the current location */
  EVAL_STEP_LOAD_POINTER, /* read a POINTER_BYTES pointer there; go to memory
                             ASPACE at its value + DISPLACEMENT */
  EVAL_STEP_ADDRESS,      /* the result is the current location's address */
} eval_step_kind;

typedef struct eval_step {
  eval_step_kind kind;
  uint64_t bits;
  uint32_t pointer_bytes;
  uint32_t aspace;
  int64_t displacement;
  size_t op; /* the path operators before this step, for naming the pointer */
} eval_step;

/* What an expression does, resolved against the types once for all lanes. */
typedef struct eval_plan {
  eval_step steps[2 * EVAL_PATH_MAX_OPS + 1];
  size_t count;
  eval_type result;    /* the type of the value read (of the object for ADDRESS) */
  uint64_t byte_size;  /* bytes of RESULT */
  uint64_t bit_size;   /* bits to read: BYTE_SIZE * 8, or a bitfield's width */
  int is_address;      /* the plan ends in EVAL_STEP_ADDRESS */
  char type_name[256]; /* C spelling of what is printed ("int *" for &x) */
} eval_plan;

/* Resolves PATH for a variable of type VAR_TYPE. On error returns
   AMDDWARF_NOT_FOUND (no such member) or AMDDWARF_E_INVALID_ARGUMENT (an
   operator its operand's type does not allow, an index out of bounds) or
   AMDDWARF_E_UNSUPPORTED, with MESSAGE naming the subexpression and type. */
amddwarf_status eval_plan_build(const amddwarf_object *object, const amddwarf_die_info *var_type,
                                const eval_path *path, eval_plan *plan, char *message,
                                size_t size);

#endif
