/* The plan of a value path: what a parsed path does to its variable's
 * location (move further into it, follow a pointer, take its address),
 * resolved against the types once for every lane, so that a type error is
 * reported before any lane is read. */
#ifndef AMDDWARF_DEBUG_PLAN_H
#define AMDDWARF_DEBUG_PLAN_H

#include "debug/path.h"
#include "debug/types.h"

typedef enum amddwarf_debug_step_kind {
  AMDDWARF_DEBUG_STEP_ADD_BITS,     /* move BITS further into the current location */
  AMDDWARF_DEBUG_STEP_LOAD_POINTER, /* read a POINTER_BYTES pointer there; go to memory
                                       ASPACE at its value + DISPLACEMENT */
  AMDDWARF_DEBUG_STEP_ADDRESS,      /* the result is the current location's address */
} amddwarf_debug_step_kind;

typedef struct amddwarf_debug_step {
  amddwarf_debug_step_kind kind;
  uint64_t bits;
  uint32_t pointer_bytes;
  uint32_t aspace;
  int64_t displacement;
  size_t op; /* the path operators before this step, for naming the pointer */
} amddwarf_debug_step;

typedef struct amddwarf_debug_plan {
  amddwarf_debug_step steps[2 * AMDDWARF_DEBUG_PATH_MAX_OPS + 1];
  size_t count;
  amddwarf_debug_type result; /* the type of the value read (of the object for ADDRESS) */
  uint64_t byte_size;         /* bytes of RESULT */
  uint64_t bit_size;          /* bits to read: BYTE_SIZE * 8, or a bitfield's width */
  int is_address;             /* the plan ends in AMDDWARF_DEBUG_STEP_ADDRESS */
  int result_signed;          /* RESULT holds signed values (amddwarf__debug_type_is_signed) */
  char type_name[256];        /* C spelling of what is printed ("int *" for &x) */
} amddwarf_debug_plan;

/* Resolves PATH for a variable of type VAR_TYPE of OBJECT. On error returns
   NOT_FOUND (no such member), E_INVALID_ARGUMENT (an operator its operand's
   type does not allow, an index out of bounds), E_UNSUPPORTED, E_OVERFLOW
   or E_LIMIT, with MESSAGE (SIZE bytes) naming the subexpression and type. */
amddwarf_status amddwarf__debug_plan_build(const amddwarf_object *object,
                                          amddwarf_die_ref var_type,
                                          const amddwarf_debug_path *path,
                                          amddwarf_debug_plan *plan, char *message, size_t size);

/* The named members of aggregate T (stripped) a path can reach by name, in
   declaration order: members of anonymous members and of base classes are
   flattened in, a name hidden by an earlier one is left out. Writes at
   most CAPACITY DIEs to MEMBERS and returns how many there are (with
   CAPACITY 0, an upper bound: names are not compared). */
size_t amddwarf__debug_named_members(const amddwarf_object *object, amddwarf_die_ref t,
                                    amddwarf_die_ref *members, size_t capacity);

/* The index of the component of an ext_vector_type vector named like a
   member (v.x, v.a, v.s3, v.sf), or -1. */
int64_t amddwarf__debug_vector_component(const char *name);

#endif
