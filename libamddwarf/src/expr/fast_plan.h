/* Compiled expressions: fast_compile.c lowers each operation of the common
 * set once into steps (plan_lower.def says how each lowers); plan_interp.inc
 * runs them, included by fast.c for one lane and by lanes.c for every lane
 * of a wave at once (the lane an affine symbol).
 *
 * The fast set has no branches, so everything about the stack but its
 * numbers is the same on every run of an expression: how deep it is before
 * each step, the kind of every entry (a generic value, a register, memory,
 * a composite), which register an entry names, how many pieces are open.
 * The compiler fixes all of that once, and refuses an expression that
 * would decline on every run (a register used as a value, an underflow).
 * A run only computes offsets, addresses, values and address spaces. */
#ifndef AMDDWARF_EXPR_FAST_PLAN_H
#define AMDDWARF_EXPR_FAST_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <amddwarf/expr.h>

enum {
  FAST_PLAN_STEPS = 32, /* = EVAL_CACHE_OPS: a cached expression fits */
  FAST_STACK = 16,
  FAST_PIECES = 8,
  FAST_COMPOSITES = 4,
};

/* The kind of a stack entry or a piece. */
typedef enum fast_kind {
  FAST_VALUE,     /* a generic value: X */
  FAST_REGISTER,  /* register SPACE at byte X */
  FAST_MEMORY,    /* address X of address space SPACE */
  FAST_COMPOSITE, /* byte X of the frame's composite SPACE */
  FAST_UNDEFINED, /* LLVM_undefined, or a piece of an empty stack */
} fast_kind;

/* What each step does; operands are unpacked and range-checked once. */
typedef enum fast_code {
  FC_VALUE,          /* push generic B (already cut to the generic size) */
  FC_REGISTER,       /* push register A */
  FC_ADDRESS,        /* push default-space address B */
  FC_BREG,           /* register A's value + B (signed), default space */
  FC_ASPACE_BREG,    /* the same in the address space popped */
  FC_FBREG,          /* the frame base + B (signed) */
  FC_LANE,           /* push the lane (B: the generic mask) */
  FC_DUP,            /* push a copy of the entry A below the top (0: the top) */
  FC_ROLL,           /* the top entry below the next A - 1 (swap 2, rot 3) */
  FC_UNDEFINED,      /* push the undefined location */
  FC_BINARY,         /* operation A on two generic values */
  FC_BINARY_CONST,   /* operation A on the generic value and B: a constant
                        and the operation after it, fused; plus_uconst;
                        neg, not and abs (B unused) */
  FC_OFFSET,         /* location + popped generic (signed) */
  FC_OFFSET_UCONST,  /* location + B */
  FC_LANE_OFFSET,    /* location + the lane times B: a lane's element, as
                        push_lane, a constant multiply and offset, fused */
  FC_REGISTER_LANE,  /* register A + the lane times B: FC_REGISTER and
                        FC_LANE_OFFSET fused (a VGPR variable) */
  FC_FORM_ASPACE,    /* address in the popped address space */
  FC_FORM_ASPACE_CONST, /* address in address space A: a constant and
                        form_aspace_address, fused */
  FC_BREG_ASPACE,    /* register A's value + B (signed) in address space
                        SPACE: FC_BREG and FC_FORM_ASPACE_CONST fused (a
                        frame or a spill slot in scratch) */
  FC_DEREF,          /* B bytes */
  FC_PIECE,          /* part INDEX of B bits: the top entry, or undefined */
  FC_SELECT,         /* select_bit_piece into composite INDEX: B bits, A count */
} fast_code;

typedef struct fast_step {
  uint8_t code;    /* fast_code */
  uint8_t depth;   /* entries on the stack before the step */
  uint8_t kind[3]; /* fast_kind of the top entries before it, top first, as
                      far as the step uses them */
  uint8_t index;   /* FC_PIECE: the part; FC_SELECT: the composite;
                      FC_FBREG: general-stack entries under the frame base */
  bool lazy;       /* FC_SELECT: its parts are whole bytes of registers or
                      memory, within the composite size limit: it may be
                      read part by part without being built (fast.c) */
  uint32_t a;
  uint64_t b;
  /* The size of the register the step reads or moves in (BREG's register
     A, the top entry, or FC_SELECT's location taken where a mask bit is 0),
     from the fixed AMDGPU map; 0: ask (fast.c's fast_register_size). */
  uint32_t register_bytes;
  union {
    uint32_t space;               /* FC_BREG_ASPACE: the address space */
    uint32_t one_register_bytes;  /* FC_SELECT: as register_bytes, of the
                                     location taken where a mask bit is 1 */
  };
} fast_step;

typedef struct fast_plan {
  bool usable;         /* false: run the general machine */
  uint32_t count;      /* steps */
  uint32_t operations; /* the operations they run (counted as steps run) */
  uint32_t deepest;    /* the deepest stack they reach */
  /* The stack at the end: its depth, the top entry's kind and, for a
     register, its size; the parts of an open composite, their kinds and
     bits. */
  uint8_t depth;
  uint8_t top_kind;
  uint64_t top_register_bytes;
  uint8_t pieces;
  bool composite_open;
  uint8_t piece_kind[FAST_PIECES];
  uint64_t piece_bits[FAST_PIECES];
  uint64_t piece_register_bytes[FAST_PIECES]; /* as a step's register_bytes */
  uint64_t pieces_bits;      /* their sum (UINT64_MAX when it overflows) */
  bool pieces_whole_bytes;   /* every part a whole number of bytes */
  fast_step steps[FAST_PLAN_STEPS];
} fast_plan;

/* OP in its operand form, for the plan's lowering and the general machine
   alike: the lit, reg and breg families become constu, regx and bregx of
   their number (consecutive kinds, ops.def); any other operation is OP. */
static inline const amddwarf_op *amddwarf__op_operand_form(const amddwarf_op *op, amddwarf_op *as)
{
  unsigned family = (unsigned)op->kind - (unsigned)AMDDWARF_OP_lit0;
  if (family >= 96u)
    return op;
  *as = *op;
  if (family < 32u) {
    as->kind = AMDDWARF_OP_constu;
    as->operands[0] = family;
  } else if (family < 64u) {
    as->kind = AMDDWARF_OP_regx;
    as->operands[0] = family - 32u;
  } else {
    as->kind = AMDDWARF_OP_bregx;
    as->operands[1] = op->operands[0];
    as->operands[0] = family - 64u;
  }
  return as;
}

/* What DW_OP_dup, over, pick, swap, rot or drop OP does to the stack, as
   its row of plan_lower.def says: copy the entry *COUNT below the top onto
   it (0: the top), roll the top *COUNT entries (the top one going below the
   others), or drop the top *COUNT. */
typedef enum stack_move { STACK_PICK, STACK_ROLL, STACK_DROP } stack_move;
stack_move amddwarf__stack_move(const amddwarf_op *op, uint32_t *count);

/* What the regx, bregx, LLVM_aspace_bregx and fbreg rows' parameter says
   they push: the register's location, an address from the register's value
   plus the offset (in the default address space or in the one popped), or
   an address in the frame base. */
typedef enum register_based {
  REGISTER_LOCATION, REGISTER_ADDRESS, REGISTER_ADDRESS_POPPED_SPACE, FRAME_BASE_ADDRESS
} register_based;

/* The parameter of OP's row of plan_lower.def, for the general machine to
   read what the row says of OP: the arithmetic of an arithmetic row (an
   amddwarf_op_kind; plus for plus_uconst), what a register-based one pushes
   (register_based), the kind of location of addr and LLVM_undefined. */
uint32_t amddwarf__lowering_parameter(const amddwarf_op *op);

/* The bits DW_OP_piece or DW_OP_bit_piece OP takes, its operand times the
   unit its row of plan_lower.def names (8 for piece, 1 for bit_piece), and
   its bit displacement (bit_piece's second operand); false when the bits
   pass 2^64. */
bool amddwarf__piece_bits(const amddwarf_op *op, uint64_t *bits, uint64_t *displacement);

/* How many bytes DW_OP_deref or DW_OP_deref_size OP reads, as its row of
   plan_lower.def says: deref the generic size, deref_size its operand. */
uint64_t amddwarf__deref_bytes(const amddwarf_op *op, uint32_t generic_bits);

/* Compiles the COUNT operations at OPS, for expressions of FORMAT, into
   *PLAN (usable or not). */
void amddwarf__fast_compile(const amddwarf_op *ops, size_t count,
                            const amddwarf_expr_format *format, fast_plan *plan);

#endif
