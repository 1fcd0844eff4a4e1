/* The CFI builder: CIEs and FDEs of .debug_frame, instructions encoded from
 * the one table of call frame instructions (cfa.def). */
#include <amddwarf/cfi.h>
#include <amddwarf/produce.h>

#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "produce/produce_internal.h"

typedef enum cfa_operand {
  OPND_NONE,
  OPND_LOW6_DELTA,
  OPND_LOW6_REG,
  OPND_DELTA8,
  OPND_DELTA16,
  OPND_DELTA32,
  OPND_DELTA64,
  OPND_UOFF,
  OPND_UFACT,
  OPND_SFACT,
  OPND_ASPACE,
  OPND_REG,
  OPND_ADDR,
  OPND_BLOCK
} cfa_operand;

enum { DIALECT_ALL, DIALECT_NOT_DRAFT, DIALECT_DRAFT };

typedef struct cfa_row {
  const char *name;
  uint8_t code;
  uint8_t dialects;
  uint8_t is_location; /* moves the location: not allowed in a CIE */
  cfa_operand operands[3];
} cfa_row;

/* Whether an action moves the location (not allowed in a CIE). */
#define LOCATION_ACTION(action) LOCATION_ACTION_##action
#define LOCATION_ACTION_ADVANCE 1
#define LOCATION_ACTION_SET_LOC 1
#define LOCATION_ACTION_OFFSET_UF 0
#define LOCATION_ACTION_RESTORE 0
#define LOCATION_ACTION_NOP 0
#define LOCATION_ACTION_UNDEFINED 0
#define LOCATION_ACTION_SAME_VALUE 0
#define LOCATION_ACTION_REGISTER 0
#define LOCATION_ACTION_REMEMBER 0
#define LOCATION_ACTION_RESTORE_STATE 0
#define LOCATION_ACTION_DEF_CFA 0
#define LOCATION_ACTION_DEF_CFA_REG 0
#define LOCATION_ACTION_DEF_CFA_OFF 0
#define LOCATION_ACTION_DEF_CFA_EXPR 0
#define LOCATION_ACTION_EXPRESSION 0
#define LOCATION_ACTION_OFFSET_SF 0
#define LOCATION_ACTION_DEF_CFA_SF 0
#define LOCATION_ACTION_DEF_CFA_OFF_SF 0
#define LOCATION_ACTION_VAL_OFFSET_UF 0
#define LOCATION_ACTION_VAL_OFFSET_SF 0
#define LOCATION_ACTION_VAL_EXPRESSION 0
#define LOCATION_ACTION_REJECT 0
#define LOCATION_ACTION_ARGS_SIZE 0
#define LOCATION_ACTION_OFFSET_NEG 0
#define LOCATION_ACTION_DEF_CFA_ASPACE 0
#define LOCATION_ACTION_DEF_ASPACE_CFA 0
#define LOCATION_ACTION_DEF_ASPACE_CFA_SF 0

static const cfa_row cfa_rows[] = {
#define AMDDWARF_CFA(kind, name, code, dialects, action, o1, o2, o3) \
  {name, code, DIALECT_##dialects, LOCATION_ACTION(action), {OPND_##o1, OPND_##o2, OPND_##o3}},
#include <amddwarf/cfa.def>
#undef AMDDWARF_CFA
};
#define CFA_ROW_COUNT (sizeof cfa_rows / sizeof cfa_rows[0])
_Static_assert(CFA_ROW_COUNT == AMDDWARF_CFA_KIND_COUNT, "one row per cfa.def instruction");

typedef struct program {
  amddwarf_buf bytes;
} program;

typedef struct cie_rec {
  char *augmentation;
  size_t augmentation_size;
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_column;
  program insns;
} cie_rec;

typedef struct fde_rec {
  uint32_t cie;
  uint64_t start, length;
  program insns;
} fde_rec;

struct amddwarf_cfi_builder {
  amddwarf_allocator alloc;
  amddwarf_cfi_build_options options;
  cie_rec *cies;
  size_t cie_count, cie_capacity;
  fde_rec *fdes;
  size_t fde_count, fde_capacity;
};

void amddwarf_cfi_build_options_init(amddwarf_cfi_build_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->version = 4;
  options->offset_size = 4;
  options->address_size = 8;
}

amddwarf_status amddwarf_cfi_builder_new(const amddwarf_cfi_build_options *options,
                                         const amddwarf_allocator *alloc,
                                         amddwarf_cfi_builder **out)
{
  if (!out)
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  amddwarf_cfi_build_options opts;
  amddwarf_cfi_build_options_init(&opts);
  if (options) {
    if (options->struct_size < sizeof opts)
      return AMDDWARF_E_INVALID_ARGUMENT;
    opts = *options;
  }
  if ((opts.version != 1 && opts.version != 3 && opts.version != 4) ||
      (opts.offset_size != 4 && opts.offset_size != 8) ||
      (opts.address_size != 4 && opts.address_size != 8))
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_allocator a = amddwarf__allocator_resolve(alloc);
  amddwarf_cfi_builder *b = amddwarf__mem_calloc(&a, 1, sizeof *b);
  if (!b)
    return AMDDWARF_E_NO_MEMORY;
  b->alloc = a;
  b->options = opts;
  *out = b;
  return AMDDWARF_OK;
}

const amddwarf_allocator *amddwarf__cfi_builder_allocator(const amddwarf_cfi_builder *b)
{
  return &b->alloc;
}

void amddwarf_cfi_builder_free(amddwarf_cfi_builder *b)
{
  if (!b)
    return;
  for (size_t i = 0; i < b->cie_count; i++) {
    amddwarf__mem_free(&b->alloc, b->cies[i].augmentation, b->cies[i].augmentation_size);
    amddwarf__buf_free(&b->cies[i].insns.bytes);
  }
  for (size_t i = 0; i < b->fde_count; i++)
    amddwarf__buf_free(&b->fdes[i].insns.bytes);
  amddwarf_allocator a = b->alloc;
  amddwarf__mem_free(&a, b->cies, b->cie_capacity * sizeof *b->cies);
  amddwarf__mem_free(&a, b->fdes, b->fde_capacity * sizeof *b->fdes);
  amddwarf__mem_free(&a, b, sizeof *b);
}

amddwarf_status amddwarf_cfi_builder_cie(amddwarf_cfi_builder *b, const char *augmentation,
                                         uint64_t code_align, int64_t data_align,
                                         uint64_t ra_column, uint32_t *cie, amddwarf_error *err)
{
  if (!b || !cie)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (b->options.version == 1 && ra_column > UINT8_MAX)
    return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_REGISTER, AMDDWARF_NO_OFFSET,
                         "CIE version 1 holds the return-address column in one byte, not %llu",
                         (unsigned long long)ra_column);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->cies, &b->cie_capacity, b->cie_count + 1,
                           sizeof *b->cies) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  cie_rec *c = &b->cies[b->cie_count];
  memset(c, 0, sizeof *c);
  const char *aug = augmentation ? augmentation : "";
  c->augmentation_size = strlen(aug) + 1;
  c->augmentation = amddwarf__mem_alloc(&b->alloc, c->augmentation_size);
  if (!c->augmentation)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  memcpy(c->augmentation, aug, c->augmentation_size);
  c->code_align = code_align;
  c->data_align = data_align;
  c->ra_column = ra_column;
  amddwarf__buf_init(&c->insns.bytes, &b->alloc);
  *cie = (uint32_t)b->cie_count++;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_cfi_builder_fde(amddwarf_cfi_builder *b, uint32_t cie, uint64_t start,
                                         uint64_t length, uint32_t *fde, amddwarf_error *err)
{
  if (!b || !fde)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (cie >= b->cie_count)
    return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_CIE_POINTER, AMDDWARF_NO_OFFSET,
                         "FDE for [0x%llx, +0x%llx) names CIE %u of %zu",
                         (unsigned long long)start, (unsigned long long)length, (unsigned)cie,
                         b->cie_count);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->fdes, &b->fde_capacity, b->fde_count + 1,
                           sizeof *b->fdes) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  fde_rec *f = &b->fdes[b->fde_count];
  memset(f, 0, sizeof *f);
  f->cie = cie;
  f->start = start;
  f->length = length;
  amddwarf__buf_init(&f->insns.bytes, &b->alloc);
  *fde = (uint32_t)b->fde_count++;
  return AMDDWARF_OK;
}

static const cfa_row *row_by_code(const amddwarf_cfi_builder *b, uint8_t code)
{
  int draft = b->options.draft_dialect != 0;
  for (size_t i = 0; i < CFA_ROW_COUNT; i++) {
    const cfa_row *r = &cfa_rows[i];
    if (r->code != code)
      continue;
    if ((r->dialects == DIALECT_DRAFT && !draft) || (r->dialects == DIALECT_NOT_DRAFT && draft))
      continue;
    return r;
  }
  return NULL;
}

static amddwarf_status encode_insn(const amddwarf_cfi_builder *b, const cfa_row *row,
                                   const amddwarf_cfa_build_insn *insn, amddwarf_buf *out,
                                   amddwarf_error *err)
{
  uint8_t first = row->code;
  if (row->operands[0] == OPND_LOW6_DELTA || row->operands[0] == OPND_LOW6_REG) {
    if (insn->operands[0] > 0x3f)
      return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET, row->code,
                              AMDDWARF_NO_OPCODE,
                              "%s: operand %llu does not fit its 6-bit field", row->name,
                              (unsigned long long)insn->operands[0]);
    first = (uint8_t)(first | insn->operands[0]);
  }
  amddwarf__buf_u8(out, first);
  for (int i = 0; i < 3; i++) {
    uint64_t v = insn->operands[i];
    switch (row->operands[i]) {
    case OPND_NONE:
    case OPND_LOW6_DELTA:
    case OPND_LOW6_REG:
      break;
    case OPND_DELTA8:
    case OPND_DELTA16:
    case OPND_DELTA32: {
      unsigned size = row->operands[i] == OPND_DELTA8 ? 1 : row->operands[i] == OPND_DELTA16 ? 2 : 4;
      if (size < 8 && v >> (8 * size))
        return amddwarf__fail_op(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET, row->code,
                                AMDDWARF_NO_OPCODE, "%s: delta %llu does not fit %u bytes",
                                row->name, (unsigned long long)v, size);
      amddwarf__buf_uint(out, v, size);
      break;
    }
    case OPND_DELTA64:
      amddwarf__buf_uint(out, v, 8);
      break;
    case OPND_ADDR:
      amddwarf__buf_uint(out, v, b->options.address_size);
      break;
    case OPND_UOFF:
    case OPND_UFACT:
    case OPND_ASPACE:
    case OPND_REG:
      amddwarf__buf_uleb(out, v);
      break;
    case OPND_SFACT:
      amddwarf__buf_sleb(out, (int64_t)v);
      break;
    case OPND_BLOCK:
      if (insn->expr_size && !insn->expr)
        return AMDDWARF_E_INVALID_ARGUMENT;
      amddwarf__buf_uleb(out, insn->expr_size);
      amddwarf__buf_bytes(out, insn->expr, insn->expr_size);
      break;
    }
  }
  if (out->failed)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_cfi_builder_insn(amddwarf_cfi_builder *b, int is_cie, uint32_t index,
                                          const amddwarf_cfa_build_insn *insn, amddwarf_error *err)
{
  if (!b || !insn)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (is_cie ? index >= b->cie_count : index >= b->fde_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no %s %u", is_cie ? "CIE" : "FDE", (unsigned)index);
  uint8_t code = insn->code;
  if (code >= 0x40)
    code &= 0xc0;
  const cfa_row *row = row_by_code(b, code);
  if (!row)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION, AMDDWARF_NO_OFFSET,
                            insn->code, AMDDWARF_NO_OPCODE,
                            "call frame instruction 0x%02x is not known%s", insn->code,
                            b->options.draft_dialect ? " in the draft dialect" : "");
  if (is_cie && row->is_location)
    return amddwarf__fail_op(err, AMDDWARF_E_CFI_NOT_IN_CIE, AMDDWARF_NO_OFFSET, row->code,
                            AMDDWARF_NO_OPCODE, "%s moves the location: not in a CIE",
                            row->name);
  amddwarf_buf *out = is_cie ? &b->cies[index].insns.bytes : &b->fdes[index].insns.bytes;
  size_t before = out->size;
  amddwarf_status st = encode_insn(b, row, insn, out, err);
  if (st != AMDDWARF_OK && !out->failed)
    out->size = before;
  return st;
}

amddwarf_status amddwarf_cfi_builder_insn_named(amddwarf_cfi_builder *b, int is_cie,
                                                uint32_t index, const char *name,
                                                const uint64_t operands[3], const uint8_t *expr,
                                                size_t expr_size, amddwarf_error *err)
{
  if (!b || !name)
    return AMDDWARF_E_INVALID_ARGUMENT;
  int draft = b->options.draft_dialect != 0;
  for (size_t i = 0; i < CFA_ROW_COUNT; i++) {
    const cfa_row *r = &cfa_rows[i];
    if (strcmp(r->name, name) != 0)
      continue;
    if ((r->dialects == DIALECT_DRAFT && !draft) || (r->dialects == DIALECT_NOT_DRAFT && draft))
      return amddwarf__fail_op(err, AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION, AMDDWARF_NO_OFFSET,
                              r->code, AMDDWARF_NO_OPCODE, "%s is not encodable %s", name,
                              draft ? "in the draft dialect" : "outside the draft dialect");
    amddwarf_cfa_build_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.code = r->code;
    if (operands)
      memcpy(insn.operands, operands, sizeof insn.operands);
    insn.expr = expr;
    insn.expr_size = expr_size;
    return amddwarf_cfi_builder_insn(b, is_cie, index, &insn, err);
  }
  return amddwarf__fail(err, AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION, AMDDWARF_NO_OFFSET,
                       "unknown call frame instruction '%s'", name);
}

/* Pads the entry that started at START (its length field included) with
   DW_CFA_nop so its total size is a multiple of the address size. */
static void pad_entry(amddwarf_buf *out, size_t start, unsigned align)
{
  while ((out->size - start) % align)
    amddwarf__buf_u8(out, 0);
}

amddwarf_status amddwarf_cfi_builder_write(const amddwarf_cfi_builder *b, uint64_t text_base,
                                           uint8_t **out, size_t *size, amddwarf_error *err)
{
  if (!b || !out || !size)
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  *size = 0;
  amddwarf_buf buf;
  amddwarf__buf_init(&buf, &b->alloc);
  unsigned osz = b->options.offset_size, asz = b->options.address_size;
  uint64_t cie_id = osz == 8 ? UINT64_MAX : 0xffffffffu;
  size_t *cie_offsets = amddwarf__mem_calloc(&b->alloc, b->cie_count ? b->cie_count : 1,
                                            sizeof *cie_offsets);
  if (!cie_offsets)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < b->cie_count; i++) {
    const cie_rec *c = &b->cies[i];
    size_t start = buf.size;
    cie_offsets[i] = start;
    size_t after = amddwarf__buf_begin_length(&buf, osz);
    amddwarf__buf_uint(&buf, cie_id, osz);
    amddwarf__buf_u8(&buf, b->options.version);
    amddwarf__buf_cstr(&buf, c->augmentation);
    if (b->options.version == 4) {
      amddwarf__buf_u8(&buf, (uint8_t)asz);
      amddwarf__buf_u8(&buf, 0); /* segment selector size */
    }
    amddwarf__buf_uleb(&buf, c->code_align);
    amddwarf__buf_sleb(&buf, c->data_align);
    if (b->options.version == 1)
      amddwarf__buf_u8(&buf, (uint8_t)c->ra_column);
    else
      amddwarf__buf_uleb(&buf, c->ra_column);
    amddwarf__buf_bytes(&buf, c->insns.bytes.data, c->insns.bytes.size);
    pad_entry(&buf, start, asz);
    amddwarf__buf_end_length(&buf, after, osz);
  }
  for (size_t i = 0; i < b->fde_count; i++) {
    const fde_rec *f = &b->fdes[i];
    size_t start = buf.size;
    size_t after = amddwarf__buf_begin_length(&buf, osz);
    amddwarf__buf_uint(&buf, cie_offsets[f->cie], osz);
    amddwarf__buf_uint(&buf, text_base + f->start, asz);
    amddwarf__buf_uint(&buf, f->length, asz);
    amddwarf__buf_bytes(&buf, f->insns.bytes.data, f->insns.bytes.size);
    pad_entry(&buf, start, asz);
    amddwarf__buf_end_length(&buf, after, osz);
  }
  amddwarf__mem_free(&b->alloc, cie_offsets, (b->cie_count ? b->cie_count : 1) * sizeof *cie_offsets);
  if (buf.failed) {
    amddwarf__buf_free(&buf);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  return amddwarf__buf_take(&buf, out, size, err);
}
