/* DWARF expressions: decoding, encoding (assembler) and printing, including
 * the AMDGPU extension operations in each of their encodings ("dialects").
 * The tables, the text syntax and the printed spelling are specified in
 * specs/encodings.md.
 *
 * A decoded operation points into the bytes it was decoded from (BLOCK
 * operands): keep those bytes alive as long as the operations. None of these
 * functions keeps state between calls; all are safe to call concurrently. */
#ifndef AMDDWARF_EXPR_H
#define AMDDWARF_EXPR_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* Semantic kind of an operation, one per row of ops.def. */
typedef enum amddwarf_op_kind {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes) AMDDWARF_OP_##kind,
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  AMDDWARF_OP_##kind,
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
  AMDDWARF_OP_KIND_COUNT
} amddwarf_op_kind;

typedef enum amddwarf_operand_kind {
  AMDDWARF_OPERAND_NONE,
  AMDDWARF_OPERAND_U8,
  AMDDWARF_OPERAND_S8,
  AMDDWARF_OPERAND_U16,
  AMDDWARF_OPERAND_S16,
  AMDDWARF_OPERAND_U32,
  AMDDWARF_OPERAND_S32,
  AMDDWARF_OPERAND_U64,
  AMDDWARF_OPERAND_S64,
  AMDDWARF_OPERAND_ULEB,
  AMDDWARF_OPERAND_SLEB,
  AMDDWARF_OPERAND_ADDR,         /* address_size bytes */
  AMDDWARF_OPERAND_DIE_REF,      /* offset_size bytes: .debug_info offset */
  AMDDWARF_OPERAND_BRANCH,       /* 2-byte signed displacement */
  AMDDWARF_OPERAND_BLOCK,        /* ULEB length, then the bytes */
  AMDDWARF_OPERAND_BLOCK_U8,     /* 1-byte length, then the bytes */
  AMDDWARF_OPERAND_TYPE,         /* ULEB CU-relative base type DIE offset */
  AMDDWARF_OPERAND_REG,          /* ULEB DWARF register number */
  AMDDWARF_OPERAND_ENCODED_ADDR, /* 1-byte DW_EH_PE encoding, then the pointer */
  AMDDWARF_OPERAND_KIND_COUNT
} amddwarf_operand_kind;

/* How the AMDGPU extension operations are encoded (DESIGN.md section 6,
   specs/encodings.md). */
typedef enum amddwarf_dialect {
  AMDDWARF_DIALECT_AUTO = 0, /* 0xe9 is DW_OP_LLVM_user; 0xe1-0xe8, 0xea-0xec vendor */
  AMDDWARF_DIALECT_DRAFT,    /* seed draft: 0xe7, 0xe9, 0xea only */
  AMDDWARF_DIALECT_VENDOR,   /* 0xe1-0xec, as older ROCm and libdwarf */
  AMDDWARF_DIALECT_USER,     /* DW_OP_LLVM_user 0xe9 + ULEB sub-opcode */
  AMDDWARF_DIALECT_COUNT
} amddwarf_dialect;

#define AMDDWARF_DW_OP_LLVM_USER 0xe9

/* Static description of an operation kind (a row of ops.def). */
typedef struct amddwarf_op_info {
  amddwarf_op_kind kind;
  const char *name;                     /* "DW_OP_LLVM_push_lane" */
  amddwarf_operand_kind operands[2];
  int16_t code;                         /* fixed opcode, or -1 for extension ops */
  int16_t draft_code;                   /* -1 where the dialect has no encoding */
  int16_t vendor_code;
  int16_t user_subop;
  /* Stack effect: entries needed before (-1: not static, DW_OP_call*),
     removed, added. */
  int8_t stack_needs;
  uint8_t stack_pops, stack_pushes;
} amddwarf_op_info;

/* The description of KIND, or NULL if KIND is out of range. Static storage. */
AMDDWARF_API const amddwarf_op_info *amddwarf_op_info_get(amddwarf_op_kind kind);

/* Finds an operation by its name ("DW_OP_regx"); NULL if unknown. */
AMDDWARF_API const amddwarf_op_info *amddwarf_op_info_by_name(const char *name);

/* The parameters of the bytes being decoded or produced. */
typedef struct amddwarf_expr_format {
  uint32_t struct_size;     /* sizeof(amddwarf_expr_format), for growth */
  amddwarf_dialect dialect;
  uint8_t address_size;     /* 2, 4 or 8 (amdgcn: 8) */
  uint8_t offset_size;      /* 4 (32-bit DWARF) or 8 (64-bit DWARF) */
  uint16_t version;         /* DWARF version 2-5 of the containing unit */
} amddwarf_expr_format;

/* Defaults: auto dialect, 8-byte addresses, 32-bit DWARF, version 5. Every
   function taking a format also accepts NULL for these defaults. */
AMDDWARF_API void amddwarf_expr_format_init(amddwarf_expr_format *format);

/* One decoded operation. */
typedef struct amddwarf_op {
  amddwarf_op_kind kind;
  uint8_t opcode;         /* raw opcode byte (0xe9 for DW_OP_LLVM_user) */
  uint32_t subop;         /* DW_OP_LLVM_user sub-opcode, 0 when not user-encoded */
  uint64_t offset;        /* byte offset of the opcode within the expression */
  uint32_t size;          /* encoded size in bytes, opcode included */
  uint32_t target;        /* BRANCH: index of the operation branched to;
                             equal to the operation count for a branch to the end */
  /* Operand values in ops.def order. Signed kinds hold the two's-complement
     bit pattern (cast to int64_t). BLOCK/BLOCK_U8 hold the length and BLOCK
     points at the bytes. REG and TYPE hold the number; reg0-31/breg0-31 have
     the register in operands[1] (breg's offset stays in operands[0]). */
  uint64_t operands[2];
  const uint8_t *block;
} amddwarf_op;

/* Decodes the SIZE bytes at BYTES into OPS (CAPACITY entries; an expression
   of SIZE bytes has at most SIZE operations, so CAPACITY >= SIZE always
   suffices). *COUNT receives the number of operations decoded.
   Branch targets are resolved and must land on an operation boundary or the
   end. LEB128 operands may be padded (common/reader.h rules).
   On error, *COUNT operations decoded before the failure are valid and ERR
   names the byte offset and opcode of the failing operation (for a bad
   branch, *COUNT is the branch's index). No allocation.
   Errors: AMDDWARF_E_TRUNCATED, E_EXPR_UNKNOWN_OPCODE, E_EXPR_BAD_SUBOP,
   E_EXPR_BAD_BRANCH, E_LEB_OVERFLOW, E_LEB_OVERLONG, E_NO_SPACE,
   E_INVALID_ARGUMENT (bad format). */
AMDDWARF_API amddwarf_status amddwarf_expr_decode(const uint8_t *bytes, size_t size,
                                                  const amddwarf_expr_format *format,
                                                  amddwarf_op *ops, size_t capacity,
                                                  size_t *count, amddwarf_error *err);

/* Encodes COUNT operations (kind, subop and operands; offset and size are
   ignored, BRANCH operands are taken from TARGET, the register of
   reg0-31/breg0-31 from the kind) into OUT (CAPACITY bytes), with minimal
   LEB128s. Extension operations use the dialect's encoding; in the auto
   dialect DW_OP_LLVM_user, unless OPCODE holds the operation's vendor code
   (as decoded from vendor bytes), which is kept.
   *SIZE receives the encoded length, also when AMDDWARF_E_NO_SPACE says
   CAPACITY was too small (OUT then holds the first CAPACITY bytes).
   Errors (ERR.offset is the operation's index): AMDDWARF_E_EXPR_NOT_IN_DIALECT
   (ERR names the operation and the dialect), E_EXPR_BAD_OPERAND (a value
   does not fit its operand), E_EXPR_BAD_BRANCH (target past the end or
   displacement beyond 16 bits), E_INVALID_ARGUMENT, E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_expr_encode(const amddwarf_op *ops, size_t count,
                                                  const amddwarf_expr_format *format,
                                                  uint8_t *out, size_t capacity, size_t *size,
                                                  amddwarf_error *err);

/* Assembles TEXT (syntax in specs/encodings.md: operations separated by ';'
   or ',', operands after the name, registers by number or AMDGPU name,
   branch targets as labels, blocks as hex bytes or "(sub-expression)") into
   OUT like amddwarf_expr_encode. WAVE_SIZE (32 or 64) resolves vector
   register names and "exec". Errors additionally: AMDDWARF_E_EXPR_SYNTAX;
   for every error ERR.offset is the character offset in TEXT. */
AMDDWARF_API amddwarf_status amddwarf_expr_assemble(const char *text,
                                                    const amddwarf_expr_format *format,
                                                    unsigned wave_size, uint8_t *out,
                                                    size_t capacity, size_t *size,
                                                    amddwarf_error *err);

typedef enum amddwarf_print_flags {
  AMDDWARF_PRINT_DEFAULT = 0,       /* llvm-dwarfdump-19 spelling, DWARF register names */
  AMDDWARF_PRINT_ASM_REGISTERS = 1, /* s32, v3 instead of SGPR32, VGPR3 */
} amddwarf_print_flags;

/* Prints COUNT decoded operations on one line in the spelling of
   llvm-dwarfdump-19 ("DW_OP_regx SGPR33, DW_OP_deref"; "<empty>" for none),
   into BUF (SIZE bytes, NUL-terminated when SIZE > 0). AMDGPU registers are
   named by the whole register the DWARF number means (SGPR33 where
   llvm-dwarfdump-19 prints SGPR33_LO16; VGPR3_W32 for wave32 vector
   registers; EXEC, EXEC_LO, PC, PC_32); extension operations written as
   DW_OP_LLVM_user print as "DW_OP_LLVM_user DW_OP_LLVM_push_lane".
   An entry value's block is decoded with FORMAT and printed inline; each
   operation's SIZE is used for llvm-dwarfdump-19's parenthesis rule.
   *LENGTH (may be NULL) receives the full length without the NUL, also when
   AMDDWARF_E_NO_SPACE reports truncation. Errors: E_NO_SPACE,
   E_INVALID_ARGUMENT (bad kind or format). No allocation. */
AMDDWARF_API amddwarf_status amddwarf_expr_print(const amddwarf_op *ops, size_t count,
                                                 const amddwarf_expr_format *format,
                                                 unsigned flags, char *buf, size_t size,
                                                 size_t *length);

/* Spells expression BYTES (SIZE), decoded under FORMAT, on one line as
   amddwarf_expr_print does ("DW_OP_regx VGPR1, DW_OP_piece 0x4"), an
   undecodable rest appended as "<error: MESSAGE>" after what decoded: the
   spelling of a location that amddwarf_valobj_location and the CLI use.
   Writes at most BUF_SIZE bytes to BUF (NUL-terminated when BUF_SIZE > 0)
   and the full length to *LENGTH (may be NULL). Returns the decoding
   status, or E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_expr_spell(const amddwarf_expr_format *format,
                                                 const uint8_t *bytes, size_t size, char *buf,
                                                 size_t buf_size, size_t *length);

/* Name of DIALECT ("auto", "draft", "vendor", "user") and the reverse. */
AMDDWARF_API const char *amddwarf_dialect_name(amddwarf_dialect dialect);
AMDDWARF_API amddwarf_status amddwarf_dialect_from_name(const char *name,
                                                        amddwarf_dialect *dialect);

AMDDWARF_END_DECLS

#endif
