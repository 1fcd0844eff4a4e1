/* Internals shared by the expression decoder, encoder, assembler and printer:
 * the opcode lookup tables generated from ops.def and the operand sizes that
 * depend on the format. */
#ifndef AMDDWARF_EXPR_CODEC_H
#define AMDDWARF_EXPR_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/expr.h>

#include "common/reader.h"

/* Largest encoded extension sub-opcode, and the extension opcode range of
   every dialect (0xe1-0xec; draft uses 0xe7, 0xe9, 0xea of it). */
enum {
  AMDDWARF_EXPR_EXT_FIRST = 0xe1,
  AMDDWARF_EXPR_EXT_LAST = 0xec,
};

/* The table rows, indexed by kind (static storage). */
extern const amddwarf_op_info amddwarf__expr_op_table[AMDDWARF_OP_KIND_COUNT];

/* Kind + 1 of the standard (DWARF 5 and GNU) operation with opcode CODE, or 0:
   the same in every dialect. */
extern const uint16_t amddwarf__expr_std_opcode[256];

/* The extension operation that opcode CODE (not DW_OP_LLVM_user) means in
   DIALECT; false when it means nothing there. */
bool amddwarf__expr_ext_by_opcode(amddwarf_dialect dialect, uint8_t code, amddwarf_op_kind *kind);

/* The extension operation of DW_OP_LLVM_user sub-opcode SUBOP; false if none. */
bool amddwarf__expr_ext_by_subop(uint64_t subop, amddwarf_op_kind *kind);

/* How INFO's operation is written in DIALECT: *CODE is the opcode byte
   (AMDDWARF_DW_OP_LLVM_USER for a user-encoded operation) and *SUBOP its
   sub-opcode (0 when there is none). The auto dialect writes extension
   operations as DW_OP_LLVM_user. False when DIALECT cannot encode it. */
bool amddwarf__expr_op_encoding(const amddwarf_op_info *info, amddwarf_dialect dialect,
                               uint8_t *code, uint32_t *subop);

/* True when DIALECT decodes 0xe9 as DW_OP_LLVM_user. */
static inline bool amddwarf_expr_dialect_has_user(amddwarf_dialect dialect)
{
  return dialect == AMDDWARF_DIALECT_AUTO || dialect == AMDDWARF_DIALECT_USER;
}

/* The defaults in *STORAGE when FORMAT is NULL, else NULL: what
   amddwarf_expr_format_check returns once its test failed. */
const amddwarf_expr_format *amddwarf__expr_format_check_slow(const amddwarf_expr_format *format,
                                                            amddwarf_expr_format *storage);

/* Checks FORMAT (NULL means the defaults, stored in *STORAGE); returns the
   format to use, or NULL when a field is out of range: struct size,
   dialect, address size 2/4/8 (bits 2, 4, 8 of 0x114), offset size 4/8
   (bits 4, 8 of 0x110), version 2-5. */
static inline const amddwarf_expr_format *
amddwarf_expr_format_check(const amddwarf_expr_format *format, amddwarf_expr_format *storage)
{
  if (format && format->struct_size >= sizeof *format &&
      (unsigned)format->dialect < AMDDWARF_DIALECT_COUNT && format->address_size < 16 &&
      ((0x114u >> format->address_size) & 1) && format->offset_size < 16 &&
      ((0x110u >> format->offset_size) & 1) && format->version >= 2 && format->version <= 5)
    return format;
  return amddwarf__expr_format_check_slow(format, storage);
}

/* Size in bytes of a DIE_REF operand: the address size in DWARF 2, the offset
   size after. */
static inline unsigned amddwarf_expr_ref_size(const amddwarf_expr_format *format)
{
  return format->version <= 2 ? format->address_size : format->offset_size;
}

/* How an integer operand is written: SIZE bytes, or a LEB128 when SIZE is
   0; two's complement when IS_SIGNED. */
typedef struct amddwarf_expr_integer {
  unsigned size;
  bool is_signed;
} amddwarf_expr_integer;

/* An operand kind: its short name ("uleb"), for messages and JSON, and
   whether and how it is one integer (ADDR and DIE_REF: size 0 here, the
   format's in amddwarf__expr_operand_integer). */
typedef struct amddwarf_expr_operand_shape {
  const char *name;
  bool is_integer;
  amddwarf_expr_integer integer;
} amddwarf_expr_operand_shape;

extern const amddwarf_expr_operand_shape amddwarf__expr_operand_shapes[AMDDWARF_OPERAND_KIND_COUNT];

const char *amddwarf__expr_operand_kind_name(amddwarf_operand_kind kind);

/* How an operand of KIND (valid) is written in FORMAT when it is one integer
   (the fixed sizes, LEB128s, registers, types, addresses, DIE references
   and branch displacements); false for none, blocks and encoded addresses. */
static inline bool amddwarf__expr_operand_integer(amddwarf_operand_kind kind,
                                                  const amddwarf_expr_format *format,
                                                  amddwarf_expr_integer *how)
{
  *how = amddwarf__expr_operand_shapes[kind].integer;
  if (kind == AMDDWARF_OPERAND_ADDR)
    how->size = format->address_size;
  else if (kind == AMDDWARF_OPERAND_DIE_REF)
    how->size = amddwarf_expr_ref_size(format);
  return amddwarf__expr_operand_shapes[kind].is_integer;
}

/* How the pointer of DW_OP_GNU_encoded_addr is written under DW_EH_PE
   ENCODING (its low nibble); false when the form is not supported. */
bool amddwarf__expr_eh_pe_integer(uint8_t encoding, const amddwarf_expr_format *format,
                                  amddwarf_expr_integer *how);

/* The register that DW_OP_reg<n> or DW_OP_breg<n> names by its opcode (the
   two families are consecutive kinds), in *REGNO; false for the others. */
static inline bool amddwarf__expr_opcode_register(amddwarf_op_kind kind, uint64_t *regno)
{
  unsigned family = (unsigned)kind - (unsigned)AMDDWARF_OP_reg0;
  *regno = family & 31u;
  return family < 64u;
}

/* V, a two's-complement pattern, as a signed number. */
static inline int64_t amddwarf__expr_as_signed(uint64_t v)
{
  return v > INT64_MAX ? -(int64_t)(~v) - 1 : (int64_t)v;
}

/* The byte offset at which each of the COUNT operations starts when
   amddwarf_expr_encode writes them in FORMAT (FORMAT already checked), and
   OFFSETS[COUNT] the total size: OFFSETS has COUNT + 1 entries. Branch
   targets are not looked at (branch operations are always 3 bytes). Errors
   as amddwarf_expr_encode, ERR.offset the operation's index. */
amddwarf_status amddwarf__expr_encode_offsets(const amddwarf_op *ops, size_t count,
                                             const amddwarf_expr_format *format,
                                             uint64_t *offsets, amddwarf_error *err);

/* Decodes the one operation at R's position into *OP (branch targets are not
   resolved: OP->target is 0) and advances R past it. Errors as
   amddwarf_expr_decode; AMDDWARF_E_TRUNCATED at the end of R. */
amddwarf_status amddwarf__expr_decode_one(amddwarf_reader *r, const amddwarf_expr_format *format,
                                         amddwarf_op *op, amddwarf_error *err);

/* The byte offset of operand OPERAND (0 or 1) within OP as
   amddwarf_expr_encode writes it in FORMAT (checked). Errors as
   amddwarf_expr_encode. */
amddwarf_status amddwarf__expr_operand_offset(const amddwarf_op *op, unsigned operand,
                                             const amddwarf_expr_format *format,
                                             uint64_t *offset, amddwarf_error *err);

/* ---- references in assembler text (assemble.c) ---- */

/* An integer operand written "@NAME", "@NAME+N" or "@NAME-N": the assembler
   encodes it as 0 and records where it is, like an ELF relocation, for the
   caller to resolve. NAME is letters, digits, '_', '.' and '$'. */
typedef struct amddwarf_expr_fixup {
  size_t op_index;                 /* the operation, counted from 0 */
  amddwarf_op_kind op_kind;
  unsigned operand;                /* 0 or 1 */
  amddwarf_operand_kind encoding;  /* fixed size, ULEB, SLEB, ADDR, DIE_REF or TYPE */
  uint64_t byte_offset;            /* of the operand in the encoded bytes */
  size_t text_offset;              /* of the '@' */
  const char *name;                /* NAME, in the text (not terminated) */
  size_t name_length;
  int64_t addend;                  /* N; 0 when absent */
} amddwarf_expr_fixup;

typedef struct amddwarf_expr_references {
  /* Called as each reference is parsed, in text order, before its
     byte_offset is known; an error (ERR.offset the character offset) stops
     the assembly. NULL accepts every reference. */
  amddwarf_status (*check)(void *user, const amddwarf_expr_fixup *fixup, amddwarf_error *err);
  void *user;
  /* Output on success: the references in text order, with byte offsets
     (FIXUP_CAPACITY entries allocated with the default allocator; the caller
     frees them). */
  amddwarf_expr_fixup *fixups;
  size_t fixup_count, fixup_capacity;
} amddwarf_expr_references;

/* Assembles TEXT as amddwarf_expr_assemble does, in one pass, into a new
   buffer *OUT of *SIZE bytes (default allocator; the caller frees it),
   taking "@NAME" operands as references when REFS is not NULL. */
amddwarf_status amddwarf__expr_assemble_references(const char *text,
                                                  const amddwarf_expr_format *format,
                                                  unsigned wave_size,
                                                  amddwarf_expr_references *refs, uint8_t **out,
                                                  size_t *size, amddwarf_error *err);

#endif
