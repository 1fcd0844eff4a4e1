/* The operation table (ops.def) expanded into static arrays, lookups by kind,
 * name, opcode and sub-opcode, dialect names and format checks. */
#include "expr/codec.h"

#include <string.h>

#include "common/error.h"

const amddwarf_op_info amddwarf__expr_op_table[AMDDWARF_OP_KIND_COUNT] = {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)                            \
  {AMDDWARF_OP_##kind, name, {AMDDWARF_OPERAND_##a, AMDDWARF_OPERAND_##b}, code, -1, -1, -1, \
   needs, pops, pushes},
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  {AMDDWARF_OP_##kind, name, {AMDDWARF_OPERAND_##a, AMDDWARF_OPERAND_##b}, -1, draft, vendor, \
   user, needs, pops, pushes},
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
};

/* Every row is one kind: the enum and the table are expanded from the same
   file, so their sizes agree. The families below are consecutive. */
_Static_assert(sizeof amddwarf__expr_op_table / sizeof amddwarf__expr_op_table[0] ==
                   AMDDWARF_OP_KIND_COUNT,
               "one table row per operation kind");
_Static_assert(AMDDWARF_OP_KIND_COUNT < UINT16_MAX, "kinds fit the opcode map");
_Static_assert(AMDDWARF_OP_lit31 - AMDDWARF_OP_lit0 == 31, "lit0-31 are consecutive");
_Static_assert(AMDDWARF_OP_reg31 - AMDDWARF_OP_reg0 == 31, "reg0-31 are consecutive");
_Static_assert(AMDDWARF_OP_breg31 - AMDDWARF_OP_breg0 == 31, "breg0-31 are consecutive");
_Static_assert(AMDDWARF_OP_reg0 == AMDDWARF_OP_lit31 + 1 && AMDDWARF_OP_breg0 == AMDDWARF_OP_reg31 + 1,
               "lit, reg and breg families follow each other like their opcodes");

/* Standard opcodes: a duplicate code in ops.def is a compile error
   (-Woverride-init under -Werror). */
const uint16_t amddwarf__expr_std_opcode[256] = {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes) [code] = AMDDWARF_OP_##kind + 1,
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes)
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
};

/* Extension opcodes and sub-opcodes map to kinds through direct tables.
   A row without a code in some encoding (-1) lands in a slot of its own past
   the real codes (EXT_SPARE + its row number), so a duplicate real code is a
   compile error (-Woverride-init) and a missing one is harmless. */
enum ext_row {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) EXT_ROW_##kind,
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
  EXT_ROWS
};

enum { EXT_SPARE = 32 }; /* sub-opcodes and extension opcodes - 0xe0 are below */

#define EXT_SLOT(code, base, kind) [(code) >= 0 ? (code) - (base) : EXT_SPARE + EXT_ROW_##kind]
#define EXT_VALUE(code, kind) (code) >= 0 ? AMDDWARF_OP_##kind + 1 : 0

static const uint16_t subop_kind[EXT_SPARE + EXT_ROWS] = {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  EXT_SLOT(user, 0, kind) = EXT_VALUE(user, kind),
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
};

static const uint16_t vendor_kind[EXT_SPARE + EXT_ROWS] = {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  EXT_SLOT(vendor, 0xe0, kind) = EXT_VALUE(vendor, kind),
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
};

static const uint16_t draft_kind[EXT_SPARE + EXT_ROWS] = {
#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  EXT_SLOT(draft, 0xe0, kind) = EXT_VALUE(draft, kind),
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP
};

#define AMDDWARF_OP(kind, name, code, a, b, needs, pops, pushes)
#define AMDDWARF_LLVM_OP(kind, name, draft, vendor, user, a, b, needs, pops, pushes) \
  _Static_assert((user) < EXT_SPARE, name " sub-opcode fits the table");
#include <amddwarf/ops.def>
#undef AMDDWARF_OP
#undef AMDDWARF_LLVM_OP

const amddwarf_op_info *amddwarf_op_info_get(amddwarf_op_kind kind)
{
  if ((unsigned)kind >= AMDDWARF_OP_KIND_COUNT)
    return NULL;
  return &amddwarf__expr_op_table[kind];
}

const amddwarf_op_info *amddwarf_op_info_by_name(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < AMDDWARF_OP_KIND_COUNT; i++)
    if (strcmp(amddwarf__expr_op_table[i].name, name) == 0)
      return &amddwarf__expr_op_table[i];
  return NULL;
}

bool amddwarf__expr_ext_by_opcode(amddwarf_dialect dialect, uint8_t code, amddwarf_op_kind *kind)
{
  if (dialect == AMDDWARF_DIALECT_USER || code < AMDDWARF_EXPR_EXT_FIRST ||
      code > AMDDWARF_EXPR_EXT_LAST)
    return false;
  if (dialect == AMDDWARF_DIALECT_AUTO && code == AMDDWARF_DW_OP_LLVM_USER)
    return false;
  const uint16_t *table = dialect == AMDDWARF_DIALECT_DRAFT ? draft_kind : vendor_kind;
  unsigned kind1 = table[code - 0xe0];
  if (kind1 == 0)
    return false;
  *kind = (amddwarf_op_kind)(kind1 - 1);
  return true;
}

bool amddwarf__expr_ext_by_subop(uint64_t subop, amddwarf_op_kind *kind)
{
  if (subop == 0 || subop >= EXT_SPARE || subop_kind[subop] == 0)
    return false;
  *kind = (amddwarf_op_kind)(subop_kind[subop] - 1);
  return true;
}

static const char *const dialect_names[] = {
    [AMDDWARF_DIALECT_AUTO] = "auto",
    [AMDDWARF_DIALECT_DRAFT] = "draft",
    [AMDDWARF_DIALECT_VENDOR] = "vendor",
    [AMDDWARF_DIALECT_USER] = "user",
};
_Static_assert(sizeof dialect_names / sizeof dialect_names[0] == AMDDWARF_DIALECT_COUNT,
               "one name per dialect");

const char *amddwarf_dialect_name(amddwarf_dialect dialect)
{
  if ((unsigned)dialect >= AMDDWARF_DIALECT_COUNT)
    return "unknown";
  return dialect_names[dialect];
}

amddwarf_status amddwarf_dialect_from_name(const char *name, amddwarf_dialect *dialect)
{
  if (!name || !dialect)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (unsigned i = 0; i < AMDDWARF_DIALECT_COUNT; i++) {
    if (strcmp(dialect_names[i], name) == 0) {
      *dialect = (amddwarf_dialect)i;
      return AMDDWARF_OK;
    }
  }
  return AMDDWARF_NOT_FOUND;
}

void amddwarf_expr_format_init(amddwarf_expr_format *format)
{
  if (!format)
    return;
  memset(format, 0, sizeof *format);
  format->struct_size = sizeof *format;
  format->dialect = AMDDWARF_DIALECT_AUTO;
  format->address_size = 8;
  format->offset_size = 4;
  format->version = 5;
}

const amddwarf_expr_format *amddwarf__expr_format_check_slow(const amddwarf_expr_format *format,
                                                            amddwarf_expr_format *storage)
{
  /* A format given failed amddwarf_expr_format_check's test: only NULL,
     the defaults, is left. */
  if (format)
    return NULL;
  amddwarf_expr_format_init(storage);
  return storage;
}

/* Each operand kind's short name and, when it is one integer, how it is
   written: the size (0: a LEB128; the address and a DIE reference take
   theirs from the format) and the signedness. */
const amddwarf_expr_operand_shape amddwarf__expr_operand_shapes[AMDDWARF_OPERAND_KIND_COUNT] = {
    [AMDDWARF_OPERAND_NONE] = {"none", false, {0, false}},
    [AMDDWARF_OPERAND_U8] = {"u8", true, {1, false}},
    [AMDDWARF_OPERAND_S8] = {"s8", true, {1, true}},
    [AMDDWARF_OPERAND_U16] = {"u16", true, {2, false}},
    [AMDDWARF_OPERAND_S16] = {"s16", true, {2, true}},
    [AMDDWARF_OPERAND_U32] = {"u32", true, {4, false}},
    [AMDDWARF_OPERAND_S32] = {"s32", true, {4, true}},
    [AMDDWARF_OPERAND_U64] = {"u64", true, {8, false}},
    [AMDDWARF_OPERAND_S64] = {"s64", true, {8, true}},
    [AMDDWARF_OPERAND_ULEB] = {"uleb", true, {0, false}},
    [AMDDWARF_OPERAND_SLEB] = {"sleb", true, {0, true}},
    [AMDDWARF_OPERAND_ADDR] = {"addr", true, {0, false}},
    [AMDDWARF_OPERAND_DIE_REF] = {"die_ref", true, {0, false}},
    [AMDDWARF_OPERAND_BRANCH] = {"branch", true, {2, true}},
    [AMDDWARF_OPERAND_BLOCK] = {"block", false, {0, false}},
    [AMDDWARF_OPERAND_BLOCK_U8] = {"block_u8", false, {0, false}},
    [AMDDWARF_OPERAND_TYPE] = {"type", true, {0, false}},
    [AMDDWARF_OPERAND_REG] = {"reg", true, {0, false}},
    [AMDDWARF_OPERAND_ENCODED_ADDR] = {"encoded_addr", false, {0, false}},
};

const char *amddwarf__expr_operand_kind_name(amddwarf_operand_kind kind)
{
  if ((unsigned)kind >= AMDDWARF_OPERAND_KIND_COUNT)
    return "unknown";
  return amddwarf__expr_operand_shapes[kind].name;
}

bool amddwarf__expr_eh_pe_integer(uint8_t encoding, const amddwarf_expr_format *format,
                                  amddwarf_expr_integer *how)
{
  /* By the low three bits: absptr, uleb128/sleb128, data2, data4, data8;
     bit 3 makes each signed. */
  static const uint8_t sizes[] = {0, 0, 2, 4, 8};
  unsigned form = encoding & 0x07u;
  if (form >= sizeof sizes)
    return false;
  how->size = form == 0 ? format->address_size : sizes[form];
  how->is_signed = (encoding & 0x08) != 0;
  return true;
}

bool amddwarf__expr_op_encoding(const amddwarf_op_info *info, amddwarf_dialect dialect,
                               uint8_t *code, uint32_t *subop)
{
  int16_t opcode = info->code, user = -1;
  if (opcode < 0) {
    if (dialect == AMDDWARF_DIALECT_DRAFT)
      opcode = info->draft_code;
    else if (dialect == AMDDWARF_DIALECT_VENDOR)
      opcode = info->vendor_code;
    else if (dialect == AMDDWARF_DIALECT_USER || dialect == AMDDWARF_DIALECT_AUTO)
      user = info->user_subop;
  }
  if (user > 0) {
    *code = AMDDWARF_DW_OP_LLVM_USER;
    *subop = (uint32_t)user;
    return true;
  }
  if (opcode < 0)
    return false;
  *code = (uint8_t)opcode;
  *subop = 0;
  return true;
}
