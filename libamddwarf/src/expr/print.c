/* Printing decoded operations in the spelling of llvm-dwarfdump-19.
 *
 * Operands: unsigned values as " 0x%llx", signed ones (SLEB, const*s,
 * skip/bra displacements) as " %+lld", blocks as their length and then each
 * byte (" 0x4 0x01 0x02 0x03 0x04"), registers by name (" SGPR33", breg
 * forms " VGPR3+8") or, for reserved numbers, as unsigned values. An entry
 * value prints its block's operations between parentheses, with the same
 * rule llvm-dwarfdump-19 uses to close them (specs/encodings.md, "Printing").
 * AMDGPU registers print as the register the DWARF number means, where
 * llvm-dwarfdump-19 names a 16-bit sub-register: see register_name(). */
#include "expr/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/error.h"
#include "expr/spell.h"

typedef struct printer {
  amddwarf_text *out;
  unsigned flags;
  const amddwarf_expr_format *format;
  /* llvm-dwarfdump-19's entry-value bookkeeping: bytes of the block still
     open and where the block started, in offsets of the outermost bytes. */
  uint32_t entry_left;
  uint64_t entry_start;
  uint64_t pos;
} printer;

static void puts_(printer *p, const char *s)
{
  amddwarf__text_puts(p->out, s);
}

#define putf(p, ...) amddwarf__text_printf((p)->out, __VA_ARGS__)

/* The name of DWARF register NUMBER, or false for a reserved number.
   Default spelling: what llvm-dwarfdump-19 prints with its "_LO16" suffix
   removed (SGPR33, VGPR3, AGPR3, EXEC_LO), EXEC for 17 as llvm does, PC for
   16 (llvm: PC_REG), PC_32 for 0 (llvm: no name), and the wave32 vector
   registers (llvm: no name) with a "_W32" suffix: VGPR3_W32, AGPR3_W32.
   ASM_REGISTERS: the assembler names of regs.def (s33, v3, a3, exec, pc). */
static bool register_name(uint64_t number, unsigned flags, char *buf, size_t size)
{
  amddwarf_amdgpu_register info;
  if (number > UINT32_MAX || amddwarf_amdgpu_register_info((uint32_t)number, &info) != AMDDWARF_OK)
    return false;
  if (flags & AMDDWARF_PRINT_ASM_REGISTERS)
    return amddwarf_amdgpu_register_name((uint32_t)number, AMDDWARF_REGISTER_ASM_NAME, buf,
                                         size) == AMDDWARF_OK;
  static const char *const renamed[] = {[0] = "PC_32", [1] = "EXEC_LO", [16] = "PC", [17] = "EXEC"};
  if (number < sizeof renamed / sizeof renamed[0] && renamed[number]) {
    snprintf(buf, size, "%s", renamed[number]);
    return true;
  }
  if (amddwarf_amdgpu_register_name((uint32_t)number, AMDDWARF_REGISTER_DWARF_NAME, buf, size) !=
      AMDDWARF_OK)
    return false;
  if (info.lanes == 32) {
    size_t n = strlen(buf);
    if (n + 4 < size)
      memcpy(buf + n, "_W32", 5);
  }
  return true;
}

static void put_unsigned(printer *p, uint64_t v)
{
  putf(p, " 0x%" PRIx64, v);
}

static void put_signed(printer *p, uint64_t v)
{
  putf(p, " %+" PRId64, amddwarf__expr_as_signed(v));
}

static void put_block(printer *p, uint64_t length, const uint8_t *block)
{
  put_unsigned(p, length);
  for (uint64_t i = 0; i < length; i++)
    putf(p, " 0x%02x", block[i]);
}

/* A register operand NUMBER; with HAS_OFFSET, the signed OFFSET follows the
   name without a space ("VGPR3+8"), or, for a number without a name, as a
   separate signed operand ("0x3c0 +8"). DW_OP_LLVM_aspace_bregx's unsigned
   displacement prints the same way, as LLVM's printer does: one of 2^63 or
   more is the two's complement of a negative one ("SGPR32-4"), which is the
   address it gives (specs/encodings.md). */
static void put_register(printer *p, uint64_t number, int has_offset, uint64_t offset)
{
  char name[32];
  if (register_name(number, p->flags, name, sizeof name)) {
    putf(p, " %s", name);
    if (has_offset)
      putf(p, "%+" PRId64, amddwarf__expr_as_signed(offset));
    return;
  }
  put_unsigned(p, number);
  if (has_offset)
    put_signed(p, offset);
}

static void put_operands(printer *p, const amddwarf_op *op, const amddwarf_op_info *info)
{
  amddwarf_op_kind kind = op->kind;
  uint64_t regno;
  if (amddwarf__expr_opcode_register(kind, &regno)) {
    /* reg<n> names its register; breg<n> joins its offset to the name. */
    char name[32];
    bool named = register_name(regno, p->flags, name, sizeof name);
    if (named && kind <= AMDDWARF_OP_reg31)
      putf(p, " %s", name);
    else if (named)
      putf(p, " %s%+" PRId64, name, amddwarf__expr_as_signed(op->operands[0]));
    else if (kind >= AMDDWARF_OP_breg0)
      put_signed(p, op->operands[0]);
    return;
  }
  for (unsigned i = 0; i < 2; i++) {
    uint64_t v = op->operands[i];
    switch (info->operands[i]) {
    case AMDDWARF_OPERAND_NONE:
      return;
    case AMDDWARF_OPERAND_REG:
      if (i == 0 && (info->operands[1] == AMDDWARF_OPERAND_SLEB ||
                     kind == AMDDWARF_OP_LLVM_aspace_bregx)) {
        put_register(p, v, 1, op->operands[1]);
        return;
      }
      put_register(p, v, 0, 0);
      break;
    case AMDDWARF_OPERAND_BLOCK:
    case AMDDWARF_OPERAND_BLOCK_U8:
      put_block(p, v, op->block);
      break;
    case AMDDWARF_OPERAND_ENCODED_ADDR:
      put_unsigned(p, v);
      put_unsigned(p, op->operands[1]);
      return;
    default:
      if (amddwarf__expr_operand_shapes[info->operands[i]].integer.is_signed)
        put_signed(p, v);
      else
        put_unsigned(p, v);
      break;
    }
  }
}

static bool is_entry_value(amddwarf_op_kind kind)
{
  return kind == AMDDWARF_OP_entry_value || kind == AMDDWARF_OP_GNU_entry_value;
}

static void print_ops(printer *p, const amddwarf_op *ops, size_t count, bool last,
                      unsigned depth);

/* One operation. P->POS is its offset in the flat byte stream that
   llvm-dwarfdump-19 walks (entry-value blocks inline). */
static void print_op(printer *p, const amddwarf_op *op, bool last, unsigned depth)
{
  const amddwarf_op_info *info = &amddwarf__expr_op_table[op->kind];
  if (op->subop != 0)
    puts_(p, "DW_OP_LLVM_user ");
  puts_(p, info->name);
  if (!is_entry_value(op->kind)) {
    put_operands(p, op, info);
    p->pos += op->size;
    if (p->entry_left) {
      p->entry_left -= (uint32_t)(p->pos - p->entry_start);
      if (p->entry_left == 0)
        puts_(p, ")");
    }
    return;
  }
  /* The block's operations follow inline, as llvm-dwarfdump-19 decodes them
     from the same bytes; its parenthesis closes by its bookkeeping. */
  uint64_t length = op->operands[0];
  puts_(p, "(");
  p->pos += op->size - length;
  p->entry_left = (uint32_t)length;
  p->entry_start = p->pos;
  amddwarf_reader r;
  amddwarf_reader_init(&r, op->block, (size_t)length);
  amddwarf_op inner;
  while (!amddwarf_reader_at_end(&r)) {
    size_t at = r.pos;
    if (depth >= 16 || amddwarf__expr_decode_one(&r, p->format, &inner, NULL) != AMDDWARF_OK) {
      puts_(p, "<decoding error>");
      for (size_t i = at; i < length; i++)
        putf(p, " %02x", op->block[i]);
      p->pos += length - at;
      break;
    }
    print_ops(p, &inner, 1, last && amddwarf_reader_at_end(&r), depth + 1);
  }
}

/* LAST: whether the last of OPS ends the outermost expression (no ", "). */
static void print_ops(printer *p, const amddwarf_op *ops, size_t count, bool last,
                      unsigned depth)
{
  for (size_t i = 0; i < count; i++) {
    bool is_last = last && i + 1 == count;
    print_op(p, &ops[i], is_last, depth);
    if (!is_entry_value(ops[i].kind) && !is_last)
      puts_(p, ", ");
  }
}

/* FORMAT checked (*DEFAULTS when it is NULL) when OPS can be printed
   under it: known kinds, and blocks where the operands say there is one;
   NULL otherwise. */
static const amddwarf_expr_format *printable(const amddwarf_op *ops, size_t count,
                                             const amddwarf_expr_format *format,
                                             amddwarf_expr_format *defaults)
{
  format = amddwarf_expr_format_check(format, defaults);
  if (!format || (!ops && count))
    return NULL;
  for (size_t i = 0; i < count; i++) {
    if ((unsigned)ops[i].kind >= AMDDWARF_OP_KIND_COUNT)
      return NULL;
    const amddwarf_op_info *info = &amddwarf__expr_op_table[ops[i].kind];
    for (unsigned k = 0; k < 2; k++)
      if ((info->operands[k] == AMDDWARF_OPERAND_BLOCK ||
           info->operands[k] == AMDDWARF_OPERAND_BLOCK_U8) &&
          ops[i].operands[k] != 0 && !ops[i].block)
        return NULL;
  }
  return format;
}

/* Prints checked OPS under checked FORMAT. */
static void print_checked(amddwarf_text *out, const amddwarf_op *ops, size_t count,
                          const amddwarf_expr_format *format, unsigned flags)
{
  printer p = {out, flags, format, 0, 0, 0};
  if (count == 0)
    puts_(&p, "<empty>");
  else
    print_ops(&p, ops, count, true, 0);
}

amddwarf_status amddwarf__expr_print_append(amddwarf_text *out, const amddwarf_op *ops,
                                           size_t count, const amddwarf_expr_format *format,
                                           unsigned flags)
{
  amddwarf_expr_format defaults;
  format = printable(ops, count, format, &defaults);
  if (!format)
    return AMDDWARF_E_INVALID_ARGUMENT;
  print_checked(out, ops, count, format, flags);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_print(const amddwarf_op *ops, size_t count,
                                    const amddwarf_expr_format *format, unsigned flags,
                                    char *buf, size_t size, size_t *length)
{
  amddwarf_expr_format defaults;
  if (length)
    *length = 0;
  if (!buf && size)
    return AMDDWARF_E_INVALID_ARGUMENT;
  format = printable(ops, count, format, &defaults);
  if (!format)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_text out;
  amddwarf__text_init_fixed(&out, buf, size);
  print_checked(&out, ops, count, format, flags);
  if (length)
    *length = out.len;
  return out.len < size ? AMDDWARF_OK : AMDDWARF_E_NO_SPACE;
}
