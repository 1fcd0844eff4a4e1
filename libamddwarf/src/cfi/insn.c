/* Call frame instructions: the table generated from cfa.def, the one
 * generic operand decoder, and the printer (llvm-dwarfdump-19 spelling). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfi/cfi_internal.h"
#include "common/error.h"
#include "common/mem.h"
#include "common/text.h"
#include "expr/spell.h"

#define CFA_OPERAND_COUNT(a, b, c)                                                            \
  (uint8_t)((CFA_OPND_##a != CFA_OPND_NONE) + (CFA_OPND_##b != CFA_OPND_NONE) +                \
            (CFA_OPND_##c != CFA_OPND_NONE))

const amddwarf_cfa_desc amddwarf__cfa_table[AMDDWARF_CFA_KIND_COUNT] = {
#define AMDDWARF_CFA(kind, name, code, dialects, action, a, b, c)                             \
  {{AMDDWARF_CFA_##kind, name, code, CFA_OPERAND_COUNT(a, b, c)},                              \
   CFA_DIALECTS_##dialects,                                                                   \
   CFA_ACT_##action,                                                                          \
   {CFA_OPND_##a, CFA_OPND_##b, CFA_OPND_##c}},
#include <amddwarf/cfa.def>
#undef AMDDWARF_CFA
};

_Static_assert(sizeof amddwarf__cfa_table / sizeof amddwarf__cfa_table[0] ==
                   AMDDWARF_CFA_KIND_COUNT,
               "one table row per instruction kind");

/* Opcode byte (0x40/0x80/0xc0 for the primary instructions) to kind + 1, in
   every dialect but "draft" and in "draft". Built from the same table. */
#define CFA_LOOKUP_ALL(code, kind) [code] = AMDDWARF_CFA_##kind + 1,
#define CFA_LOOKUP_NOT_DRAFT(code, kind) [code] = AMDDWARF_CFA_##kind + 1,
#define CFA_LOOKUP_DRAFT(code, kind)
static const uint8_t cfa_by_code[256] = {
#define AMDDWARF_CFA(kind, name, code, dialects, action, a, b, c)                             \
  CFA_LOOKUP_##dialects(code, kind)
#include <amddwarf/cfa.def>
#undef AMDDWARF_CFA
};
#undef CFA_LOOKUP_DRAFT
#undef CFA_LOOKUP_NOT_DRAFT
#define CFA_LOOKUP_NOT_DRAFT(code, kind)
#define CFA_LOOKUP_DRAFT(code, kind) [code] = AMDDWARF_CFA_##kind + 1,
static const uint8_t cfa_by_code_draft[256] = {
#define AMDDWARF_CFA(kind, name, code, dialects, action, a, b, c)                             \
  CFA_LOOKUP_##dialects(code, kind)
#include <amddwarf/cfa.def>
#undef AMDDWARF_CFA
};
#undef CFA_LOOKUP_ALL
#undef CFA_LOOKUP_DRAFT
#undef CFA_LOOKUP_NOT_DRAFT

const amddwarf_cfa_info *amddwarf_cfa_info_get(amddwarf_cfa_kind kind)
{
  if ((unsigned)kind >= AMDDWARF_CFA_KIND_COUNT)
    return NULL;
  return &amddwarf__cfa_table[kind].info;
}

amddwarf_status amddwarf_cfi_decode_insn(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                         const uint8_t *bytes, size_t size,
                                         uint64_t base_offset, size_t *pos,
                                         amddwarf_cfa_insn *out, amddwarf_error *err)
{
  amddwarf_reader r;
  amddwarf_reader_init(&r, bytes, size);
  r.big_endian = cfi->options.big_endian;
  r.pos = *pos;
  if (r.pos >= size)
    return AMDDWARF_END;
  uint64_t at = base_offset + r.pos;
  uint8_t opcode = bytes[r.pos++];
  const uint8_t *lookup =
      cfi->target->dialect == AMDDWARF_DIALECT_DRAFT ? cfa_by_code_draft : cfa_by_code;
  unsigned entry = lookup[opcode >= 0x40 ? (opcode & 0xc0) : opcode];
  if (entry == 0)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION, at, opcode,
                            AMDDWARF_NO_OPCODE,
                            "unknown call frame instruction 0x%02x at offset 0x%" PRIx64,
                            opcode, at);
  const amddwarf_cfa_desc *desc = &amddwarf__cfa_table[entry - 1];
  memset(out, 0, sizeof *out);
  out->kind = desc->info.kind;
  out->opcode = opcode;
  out->offset = at;
  for (unsigned i = 0; i < 3; i++) {
    amddwarf_status st = AMDDWARF_OK;
    uint64_t value = 0;
    size_t field = r.pos;
    switch (desc->operands[i]) {
    case CFA_OPND_NONE: break;
    case CFA_OPND_LOW6_DELTA:
    case CFA_OPND_LOW6_REG: value = opcode & 0x3f; break;
    case CFA_OPND_DELTA8: st = amddwarf__read_uint(&r, 1, &value); break;
    case CFA_OPND_DELTA16: st = amddwarf__read_uint(&r, 2, &value); break;
    case CFA_OPND_DELTA32: st = amddwarf__read_uint(&r, 4, &value); break;
    case CFA_OPND_DELTA64: st = amddwarf__read_uint(&r, 8, &value); break;
    case CFA_OPND_UOFF:
    case CFA_OPND_UFACT:
    case CFA_OPND_ASPACE:
    case CFA_OPND_REG: st = amddwarf_read_uleb(&r, &value); break;
    case CFA_OPND_SFACT: {
      int64_t s = 0;
      st = amddwarf__read_sleb(&r, &s);
      value = (uint64_t)s;
      break;
    }
    case CFA_OPND_ADDR:
      if (cfi->options.kind == AMDDWARF_CFI_EH_FRAME) {
        /* Offsets in the reader are relative to BYTES; pcrel needs the
           section offset, which read_encoded takes from the reader. */
        amddwarf_reader sec;
        amddwarf_reader_init(&sec, bytes - base_offset, (size_t)base_offset + size);
        sec.big_endian = r.big_endian;
        sec.pos = (size_t)base_offset + r.pos;
        st = amddwarf__cfi_read_encoded(cfi, &sec, cie->fde_encoding, cie->address_size, 0,
                                       &value, err);
        if (st != AMDDWARF_OK) {
          if (err)
            err->opcode = opcode;
          return st;
        }
        r.pos = sec.pos - (size_t)base_offset;
      } else {
        st = amddwarf__read_uint(&r, cie->address_size, &value);
      }
      break;
    case CFA_OPND_BLOCK:
      if ((st = amddwarf_read_uleb(&r, &value)) == AMDDWARF_OK)
        st = amddwarf__read_bytes(&r, value, &out->expr);
      break;
    }
    if (st != AMDDWARF_OK)
      return amddwarf__fail_op(err, st, base_offset + field, opcode, AMDDWARF_NO_OPCODE,
                              "%s at offset 0x%" PRIx64 ": operand %u at offset 0x%" PRIx64
                              ": %s",
                              desc->info.name, at, i + 1, (uint64_t)(base_offset + field),
                              amddwarf_status_message(st));
    out->operands[i] = value;
  }
  out->size = (uint32_t)(r.pos - *pos);
  *pos = r.pos;
  return AMDDWARF_OK;
}

/* Prints one register or breg operation with the target's register names
   as llvm-dwarfdump does ("DW_OP_breg7 RSP+8", "DW_OP_reg6 RBP"). Returns
   false when OP is not one of them. */
static bool print_register_op(const amddwarf_cfi *cfi, const amddwarf_op *op,
                              amddwarf_text *out)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(op->kind);
  char name[64];
  if (!info)
    return false;
  if (op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) {
    amddwarf__cfi_dump_register_name(cfi->target, (uint32_t)op->operands[1], name, sizeof name);
    amddwarf__text_printf(out, "%s %s", info->name, name);
    return true;
  }
  if (op->kind == AMDDWARF_OP_regx) {
    amddwarf__cfi_dump_register_name(cfi->target, (uint32_t)op->operands[0], name, sizeof name);
    amddwarf__text_printf(out, "%s %s", info->name, name);
    return true;
  }
  if (op->kind >= AMDDWARF_OP_breg0 && op->kind <= AMDDWARF_OP_breg31) {
    amddwarf__cfi_dump_register_name(cfi->target, (uint32_t)op->operands[1], name, sizeof name);
    amddwarf__text_printf(out, "%s %s%+" PRId64, info->name, name,
                        (int64_t)op->operands[0]);
    return true;
  }
  if (op->kind == AMDDWARF_OP_bregx) {
    amddwarf__cfi_dump_register_name(cfi->target, (uint32_t)op->operands[0], name, sizeof name);
    amddwarf__text_printf(out, "%s %s%+" PRId64, info->name, name,
                        (int64_t)op->operands[1]);
    return true;
  }
  return false;
}

amddwarf_status amddwarf__cfi_expr_decode(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                         const uint8_t *expr, size_t size,
                                         amddwarf_op *stack_ops, size_t stack_capacity,
                                         amddwarf_op **ops, size_t *count, amddwarf_error *err)
{
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  format.dialect = cfi->target->dialect;
  format.address_size = cie ? cie->address_size : cfi->target->address_size;
  format.offset_size = cie && cie->dwarf64 ? 8 : 4;
  *ops = stack_ops;
  *count = 0;
  if (size > stack_capacity) {
    *ops = amddwarf__mem_calloc(&cfi->allocator, size, sizeof **ops);
    if (!*ops)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "expression");
  }
  return amddwarf_expr_decode(expr, size, &format, *ops, size > stack_capacity ? size
                                                                                 : stack_capacity,
                              count, err);
}

void amddwarf__cfi_expr_release(const amddwarf_cfi *cfi, amddwarf_op *ops,
                               const amddwarf_op *stack_ops, size_t size)
{
  if (ops && ops != stack_ops)
    amddwarf__mem_free(&cfi->allocator, ops, size * sizeof *ops);
}

void amddwarf__cfi_expr_print(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                             const uint8_t *expr, uint64_t size, amddwarf_text *out)
{
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  format.dialect = cfi->target->dialect;
  format.address_size = cie->address_size;
  format.offset_size = cie->dwarf64 ? 8 : 4;
  amddwarf_op stack_ops[32];
  amddwarf_op *ops = NULL;
  size_t count = 0;
  amddwarf_status st = amddwarf__cfi_expr_decode(cfi, cie, expr, (size_t)size, stack_ops,
                                                sizeof stack_ops / sizeof stack_ops[0], &ops,
                                                &count, NULL);
  if (st != AMDDWARF_OK) {
    amddwarf__text_printf(out, "<decoding error: %s>", amddwarf_status_name(st));
    amddwarf__cfi_expr_release(cfi, ops, stack_ops, (size_t)size);
    return;
  }
  for (size_t i = 0; i < count; i++) {
    if (i)
      amddwarf__text_puts(out, ", ");
    if (!print_register_op(cfi, &ops[i], out))
      amddwarf__expr_print_append(out, &ops[i], 1, &format, AMDDWARF_PRINT_DEFAULT);
  }
  amddwarf__cfi_expr_release(cfi, ops, stack_ops, (size_t)size);
}

size_t amddwarf_cfi_insn_print(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                               const amddwarf_cfa_insn *insn, uint64_t *loc, char *buf,
                               size_t size)
{
  amddwarf_text out;
  amddwarf__text_init_fixed(&out, buf, size);
  if ((unsigned)insn->kind >= AMDDWARF_CFA_KIND_COUNT)
    return 0;
  const amddwarf_cfa_desc *desc = &amddwarf__cfa_table[insn->kind];
  amddwarf__text_printf(&out, "%s:", desc->info.name);
  for (unsigned i = 0; i < 3; i++) {
    uint64_t v = insn->operands[i];
    char name[64];
    switch (desc->operands[i]) {
    case CFA_OPND_NONE: break;
    case CFA_OPND_LOW6_DELTA:
    case CFA_OPND_DELTA8:
    case CFA_OPND_DELTA16:
    case CFA_OPND_DELTA32:
    case CFA_OPND_DELTA64: {
      uint64_t delta = v * cie->code_alignment_factor;
      amddwarf__text_printf(&out, " %" PRId64, (int64_t)delta);
      if (loc) {
        *loc += delta;
        amddwarf__text_printf(&out, " to 0x%" PRIx64, *loc);
      }
      break;
    }
    case CFA_OPND_LOW6_REG:
    case CFA_OPND_REG:
      amddwarf__cfi_dump_register_name(cfi->target, (uint32_t)v, name, sizeof name);
      amddwarf__text_printf(&out, " %s", name);
      break;
    case CFA_OPND_UOFF: amddwarf__text_printf(&out, " %+" PRId64, (int64_t)v); break;
    case CFA_OPND_UFACT:
      amddwarf__text_printf(&out, " %" PRId64,
                          (int64_t)(v * (uint64_t)cie->data_alignment_factor));
      break;
    case CFA_OPND_SFACT:
      amddwarf__text_printf(&out, " %" PRId64,
                          (int64_t)(v * (uint64_t)cie->data_alignment_factor));
      break;
    case CFA_OPND_ASPACE:
      amddwarf__text_printf(&out, " in addrspace%" PRIu64, v);
      break;
    case CFA_OPND_ADDR:
      amddwarf__text_printf(&out, " %" PRIx64, v);
      if (loc)
        *loc = v;
      break;
    case CFA_OPND_BLOCK: {
      amddwarf__text_puts(&out, " ");
      amddwarf__cfi_expr_print(cfi, cie, insn->expr, v, &out);
      break;
    }
    }
  }
  return out.len;
}
