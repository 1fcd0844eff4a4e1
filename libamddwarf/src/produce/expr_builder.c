/* The expression builder: operations appended one by one (or assembled from
 * text), with labels, symbolic DIE references and .text addresses that are
 * resolved when the expression is encoded. Encoding is the codec's
 * (amddwarf_expr_encode): this file never writes an opcode itself. */
#include <amddwarf/produce.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "expr/codec.h"
#include "produce/produce_internal.h"

enum {
  FIX_NONE = 0,
  FIX_DIE = 1,   /* operands[fix_operand] is a DIE id */
  FIX_TEXT = 2,  /* operands[0] is a text offset */
  FIX_LABEL = 3, /* target is a label id */
};

typedef struct op_fix {
  uint8_t kind;
  uint8_t operand;
  uint32_t value; /* DIE id or label id */
} op_fix;

typedef struct entry {
  amddwarf_op op;
  op_fix fix;
} entry;

struct amddwarf_expr_builder {
  amddwarf_allocator alloc;
  amddwarf_expr_format format;
  entry *entries;
  size_t count, capacity;
  uint32_t *labels; /* label id - 1 -> operation index, UINT32_MAX unplaced */
  size_t label_count, label_capacity;
  uint8_t **blocks; /* owned copies of block operands */
  size_t *block_sizes;
  size_t block_count, block_capacity, block_size_capacity;
};

amddwarf_status amddwarf_expr_builder_new(const amddwarf_expr_format *format,
                                          const amddwarf_allocator *alloc,
                                          amddwarf_expr_builder **out)
{
  if (!out)
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  amddwarf_expr_format storage;
  const amddwarf_expr_format *checked = amddwarf_expr_format_check(format, &storage);
  if (!checked)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_allocator a = amddwarf__allocator_resolve(alloc);
  amddwarf_expr_builder *b = amddwarf__mem_calloc(&a, 1, sizeof *b);
  if (!b)
    return AMDDWARF_E_NO_MEMORY;
  b->alloc = a;
  b->format = *checked;
  *out = b;
  return AMDDWARF_OK;
}

void amddwarf_expr_builder_reset(amddwarf_expr_builder *b)
{
  if (!b)
    return;
  for (size_t i = 0; i < b->block_count; i++)
    amddwarf__mem_free(&b->alloc, b->blocks[i], b->block_sizes[i]);
  b->block_count = 0;
  b->count = 0;
  b->label_count = 0;
}

void amddwarf_expr_builder_free(amddwarf_expr_builder *b)
{
  if (!b)
    return;
  amddwarf_expr_builder_reset(b);
  amddwarf_allocator a = b->alloc;
  amddwarf__mem_free(&a, b->entries, b->capacity * sizeof *b->entries);
  amddwarf__mem_free(&a, b->labels, b->label_capacity * sizeof *b->labels);
  amddwarf__mem_free(&a, b->blocks, b->block_capacity * sizeof *b->blocks);
  amddwarf__mem_free(&a, b->block_sizes, b->block_size_capacity * sizeof *b->block_sizes);
  amddwarf__mem_free(&a, b, sizeof *b);
}

const amddwarf_expr_format *amddwarf_expr_builder_format(const amddwarf_expr_builder *b)
{
  return b ? &b->format : NULL;
}

size_t amddwarf_expr_builder_count(const amddwarf_expr_builder *b)
{
  return b ? b->count : 0;
}

/* Whether the builder's dialect can encode KIND. */
static amddwarf_status check_dialect(const amddwarf_expr_builder *b, const amddwarf_op_info *info,
                                     amddwarf_error *err)
{
  uint8_t code;
  uint32_t subop;
  if (!amddwarf__expr_op_encoding(info, b->format.dialect, &code, &subop))
    return amddwarf__fail(err, AMDDWARF_E_EXPR_NOT_IN_DIALECT, AMDDWARF_NO_OFFSET,
                         "%s has no encoding in the %s dialect", info->name,
                         amddwarf_dialect_name(b->format.dialect));
  return AMDDWARF_OK;
}

/* Largest value an operand of KIND may hold, for checks at append time. */
static int operand_fits(const amddwarf_expr_builder *b, amddwarf_operand_kind kind,
                        uint64_t value)
{
  int64_t s = (int64_t)value;
  switch (kind) {
  case AMDDWARF_OPERAND_NONE:
    return value == 0;
  case AMDDWARF_OPERAND_U8:
    return value <= UINT8_MAX;
  case AMDDWARF_OPERAND_S8:
    return s >= INT8_MIN && s <= INT8_MAX;
  case AMDDWARF_OPERAND_U16:
    return value <= UINT16_MAX;
  case AMDDWARF_OPERAND_S16:
    return s >= INT16_MIN && s <= INT16_MAX;
  case AMDDWARF_OPERAND_U32:
    return value <= UINT32_MAX;
  case AMDDWARF_OPERAND_S32:
    return s >= INT32_MIN && s <= INT32_MAX;
  case AMDDWARF_OPERAND_ADDR:
    return b->format.address_size >= 8 || value < ((uint64_t)1 << (8 * b->format.address_size));
  case AMDDWARF_OPERAND_DIE_REF: {
    unsigned size = amddwarf_expr_ref_size(&b->format);
    return size >= 8 || value < ((uint64_t)1 << (8 * size));
  }
  default:
    return 1;
  }
}

static amddwarf_status push_op(amddwarf_expr_builder *b, const amddwarf_op *op, op_fix fix,
                               amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->entries, &b->capacity, b->count + 1,
                           sizeof *b->entries) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "expression builder: out of memory");
  b->entries[b->count].op = *op;
  b->entries[b->count].fix = fix;
  b->count++;
  return AMDDWARF_OK;
}

static const amddwarf_op_info *info_checked(const amddwarf_expr_builder *b,
                                            amddwarf_op_kind kind, amddwarf_error *err,
                                            amddwarf_status *st)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(kind);
  if (!b || !info) {
    *st = amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                        "expression builder: operation kind %d is not in the table", (int)kind);
    return NULL;
  }
  *st = check_dialect(b, info, err);
  return *st == AMDDWARF_OK ? info : NULL;
}

amddwarf_status amddwarf_expr_builder_op(amddwarf_expr_builder *b, amddwarf_op_kind kind,
                                         uint64_t operand0, uint64_t operand1,
                                         amddwarf_error *err)
{
  amddwarf_status st;
  const amddwarf_op_info *info = info_checked(b, kind, err, &st);
  if (!info)
    return st;
  uint64_t operands[2] = {operand0, operand1};
  for (int i = 0; i < 2; i++) {
    amddwarf_operand_kind ok = info->operands[i];
    if (ok == AMDDWARF_OPERAND_BRANCH || ok == AMDDWARF_OPERAND_BLOCK ||
        ok == AMDDWARF_OPERAND_BLOCK_U8 || ok == AMDDWARF_OPERAND_ENCODED_ADDR)
      return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                           "%s takes a %s operand: use the builder's branch or block call",
                           info->name, amddwarf__expr_operand_kind_name(ok));
    if (!operand_fits(b, ok, operands[i]))
      return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                           "%s: operand %d (0x%llx) does not fit a %s operand", info->name,
                           i + 1, (unsigned long long)operands[i],
                           amddwarf__expr_operand_kind_name(ok));
  }
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = kind;
  op.operands[0] = operand0;
  op.operands[1] = operand1;
  return push_op(b, &op, (op_fix){FIX_NONE, 0, 0}, err);
}

static amddwarf_status copy_block(amddwarf_expr_builder *b, const uint8_t *bytes, size_t size,
                                  const uint8_t **copy, amddwarf_error *err)
{
  size_t cap = b->block_capacity, size_cap = b->block_size_capacity;
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->blocks, &cap, b->block_count + 1,
                           sizeof *b->blocks) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  b->block_capacity = cap;
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->block_sizes, &size_cap, b->block_count + 1,
                           sizeof *b->block_sizes) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  b->block_size_capacity = size_cap;
  size_t alloc_size = size ? size : 1;
  uint8_t *p = amddwarf__mem_alloc(&b->alloc, alloc_size);
  if (!p)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (size)
    memcpy(p, bytes, size);
  b->blocks[b->block_count] = p;
  b->block_sizes[b->block_count] = alloc_size;
  b->block_count++;
  *copy = p;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_builder_block(amddwarf_expr_builder *b, amddwarf_op_kind kind,
                                            uint64_t operand0, const uint8_t *bytes, size_t size,
                                            amddwarf_error *err)
{
  amddwarf_status st;
  const amddwarf_op_info *info = info_checked(b, kind, err, &st);
  if (!info)
    return st;
  int block_index = -1;
  for (int i = 0; i < 2; i++)
    if (info->operands[i] == AMDDWARF_OPERAND_BLOCK ||
        info->operands[i] == AMDDWARF_OPERAND_BLOCK_U8)
      block_index = i;
  if (block_index < 0 || (size && !bytes))
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "%s has no block operand", info->name);
  if (info->operands[block_index] == AMDDWARF_OPERAND_BLOCK_U8 && size > UINT8_MAX)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "%s: a block of %zu bytes does not fit its 1-byte length", info->name,
                         size);
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = kind;
  if (block_index == 1)
    op.operands[0] = operand0;
  op.operands[block_index] = size;
  st = copy_block(b, bytes, size, &op.block, err);
  if (st != AMDDWARF_OK)
    return st;
  return push_op(b, &op, (op_fix){FIX_NONE, 0, 0}, err);
}

amddwarf_status amddwarf_expr_builder_label_new(amddwarf_expr_builder *b, amddwarf_label *label,
                                                amddwarf_error *err)
{
  if (!b || !label)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (b->label_count >= UINT32_MAX - 1 ||
      amddwarf__mem_reserve(&b->alloc, (void **)&b->labels, &b->label_capacity,
                           b->label_count + 1, sizeof *b->labels) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  b->labels[b->label_count++] = UINT32_MAX;
  *label = (amddwarf_label)b->label_count;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_builder_label_place(amddwarf_expr_builder *b, amddwarf_label label,
                                                  amddwarf_error *err)
{
  if (!b || label == 0 || label > b->label_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "expression builder: no label %u", (unsigned)label);
  if (b->labels[label - 1] != UINT32_MAX)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "expression builder: label %u placed twice", (unsigned)label);
  b->labels[label - 1] = (uint32_t)b->count;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_builder_branch(amddwarf_expr_builder *b, amddwarf_op_kind kind,
                                             amddwarf_label label, amddwarf_error *err)
{
  if (kind != AMDDWARF_OP_skip && kind != AMDDWARF_OP_bra)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "expression builder: only DW_OP_skip and DW_OP_bra branch");
  if (!b || label == 0 || label > b->label_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "expression builder: no label %u", (unsigned)label);
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = kind;
  return push_op(b, &op, (op_fix){FIX_LABEL, 0, label}, err);
}

/* Index of KIND's reference operand, or -1. */
static int ref_operand_index(const amddwarf_op_info *info)
{
  if (info->kind == AMDDWARF_OP_call2 || info->kind == AMDDWARF_OP_call4)
    return 0;
  for (int i = 0; i < 2; i++)
    if (info->operands[i] == AMDDWARF_OPERAND_DIE_REF ||
        info->operands[i] == AMDDWARF_OPERAND_TYPE)
      return i;
  return -1;
}

amddwarf_status amddwarf_expr_builder_die_ref(amddwarf_expr_builder *b, amddwarf_op_kind kind,
                                              amddwarf_die_id die, uint64_t other,
                                              amddwarf_error *err)
{
  amddwarf_status st;
  const amddwarf_op_info *info = info_checked(b, kind, err, &st);
  if (!info)
    return st;
  int index = ref_operand_index(info);
  if (index < 0 || die == 0)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "%s: %s", info->name,
                         index < 0 ? "has no DIE reference operand" : "DIE 0 is no DIE");
  if (info->operands[1 - index] == AMDDWARF_OPERAND_BLOCK_U8)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "%s: give its constant with amddwarf_expr_builder_block", info->name);
  if (!operand_fits(b, info->operands[1 - index], other))
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, AMDDWARF_NO_OFFSET,
                         "%s: operand 0x%llx does not fit", info->name,
                         (unsigned long long)other);
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = kind;
  op.operands[1 - index] = other;
  return push_op(b, &op, (op_fix){FIX_DIE, (uint8_t)index, die}, err);
}

amddwarf_status amddwarf_expr_builder_text_addr(amddwarf_expr_builder *b, uint64_t text_offset,
                                                amddwarf_error *err)
{
  if (!b)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_op op;
  memset(&op, 0, sizeof op);
  op.kind = AMDDWARF_OP_addr;
  op.operands[0] = text_offset;
  return push_op(b, &op, (op_fix){FIX_TEXT, 0, 0}, err);
}

/* ---- assembling text with @names ---------------------------------------- */

typedef struct name_lookup {
  amddwarf_expr_name_resolver resolve;
  void *user;
  const amddwarf_allocator *alloc;
  amddwarf_die_id *dies; /* per reference in text order; 0 for "@text" */
  size_t die_count, die_capacity;
} name_lookup;

/* The DIE "@NAME" of F names. */
static amddwarf_status resolve_name(const name_lookup *names, const amddwarf_expr_fixup *f,
                                    amddwarf_die_id *die, amddwarf_error *err)
{
  char name[256];
  if (f->name_length >= sizeof name)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNKNOWN_NAME, f->text_offset + 1,
                         "name too long");
  memcpy(name, f->name, f->name_length);
  name[f->name_length] = '\0';
  *die = 0;
  if (names->resolve(names->user, name, die) != 0 || *die == 0)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNKNOWN_NAME, f->text_offset,
                         "'@%s' names no DIE", name);
  return AMDDWARF_OK;
}

/* Whether operand F of its operation may be "@NAME" (see check_reference). */
static amddwarf_status check_operand(const name_lookup *names, const amddwarf_expr_fixup *f,
                                     amddwarf_error *err)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(f->op_kind);
  bool text = f->name_length == 4 && memcmp(f->name, "text", 4) == 0;
  if (text && f->op_kind != AMDDWARF_OP_addr)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, f->text_offset,
                         "'@text' is only an operand of DW_OP_addr");
  if (text)
    return f->addend >= 0 ? AMDDWARF_OK
                          : amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, f->text_offset,
                                          "'@text%lld' is before .text", (long long)f->addend);
  if (f->op_kind == AMDDWARF_OP_addr)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, f->text_offset,
                         "DW_OP_addr takes '@text+N', not a DIE name");
  if (!names->resolve)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNKNOWN_NAME, f->text_offset,
                         "'@%.*s': no names can be resolved here", (int)f->name_length, f->name);
  if (ref_operand_index(info) != (int)f->operand || f->addend != 0)
    return amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_OPERAND, f->text_offset,
                         "'@%.*s': %s takes a DIE name only as its DIE operand, without an "
                         "offset",
                         (int)f->name_length, f->name, info->name);
  return AMDDWARF_OK;
}

/* What an "@NAME" of builder text may be: "@text+N", the address N bytes
   into .text, as the operand of DW_OP_addr; any other name a DIE the
   resolver knows, as a DIE reference or base type operand. Called by the
   assembler as it reads each one, so errors name its own character; the DIE
   is recorded in NAMES. */
static amddwarf_status check_reference(void *user, const amddwarf_expr_fixup *f,
                                       amddwarf_error *err)
{
  name_lookup *names = user;
  amddwarf_die_id die = 0;
  amddwarf_status st = check_operand(names, f, err);
  if (st == AMDDWARF_OK && f->op_kind != AMDDWARF_OP_addr)
    st = resolve_name(names, f, &die, err);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf__mem_reserve(names->alloc, (void **)&names->dies, &names->die_capacity,
                           names->die_count + 1, sizeof *names->dies) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, f->text_offset, "out of memory");
  names->dies[names->die_count++] = die;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_expr_builder_assemble(amddwarf_expr_builder *b, const char *text,
                                               unsigned wave_size,
                                               amddwarf_expr_name_resolver resolve, void *user,
                                               amddwarf_error *err)
{
  if (!b || !text)
    return AMDDWARF_E_INVALID_ARGUMENT;
  size_t base_count = b->count;
  name_lookup names = {resolve, user, &b->alloc, NULL, 0, 0};
  amddwarf_expr_references refs = {check_reference, &names, NULL, 0, 0};
  uint8_t *bytes = NULL;
  size_t byte_size = 0;
  amddwarf_op *ops = NULL;
  size_t op_count = 0, op_capacity = 0;
  amddwarf_status st =
      amddwarf__expr_assemble_references(text, &b->format, wave_size, &refs, &bytes, &byte_size,
                                        err);
  if (st != AMDDWARF_OK)
    goto cleanup;
  op_capacity = byte_size ? byte_size : 1; /* every operation takes a byte */
  ops = amddwarf__mem_calloc(&b->alloc, op_capacity, sizeof *ops);
  if (!ops) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
    goto cleanup;
  }
  st = amddwarf_expr_decode(bytes, byte_size, &b->format, ops, op_capacity, &op_count, err);
  if (st != AMDDWARF_OK)
    goto cleanup;
  size_t base = b->count;
  size_t next_fixup = 0;
  /* Text labels become builder labels so branches survive the append. */
  for (size_t k = 0; k < op_count; k++) {
    amddwarf_op op = ops[k];
    const amddwarf_op_info *info = amddwarf_op_info_get(op.kind);
    op_fix fix = {FIX_NONE, 0, 0};
    if (op.block) {
      int bi = (info->operands[0] == AMDDWARF_OPERAND_BLOCK ||
                info->operands[0] == AMDDWARF_OPERAND_BLOCK_U8)
                   ? 0
                   : 1;
      st = copy_block(b, op.block, (size_t)op.operands[bi], &op.block, err);
      if (st != AMDDWARF_OK)
        goto cleanup;
    }
    if (info->operands[0] == AMDDWARF_OPERAND_BRANCH) {
      amddwarf_label label;
      st = amddwarf_expr_builder_label_new(b, &label, err);
      if (st != AMDDWARF_OK)
        goto cleanup;
      b->labels[label - 1] = (uint32_t)(base + op.target);
      fix = (op_fix){FIX_LABEL, 0, label};
    }
    /* Each operation has at most one reference (check_reference). */
    if (next_fixup < refs.fixup_count && refs.fixups[next_fixup].op_index == k) {
      const amddwarf_expr_fixup *f = &refs.fixups[next_fixup++];
      if (op.kind == AMDDWARF_OP_addr) {
        op.operands[0] = (uint64_t)f->addend;
        fix = (op_fix){FIX_TEXT, 0, 0};
      } else {
        op.operands[f->operand] = 0;
        fix = (op_fix){FIX_DIE, (uint8_t)f->operand, names.dies[next_fixup - 1]};
      }
    }
    st = push_op(b, &op, fix, err);
    if (st != AMDDWARF_OK)
      goto cleanup;
  }
cleanup:
  if (st != AMDDWARF_OK)
    b->count = base_count; /* nothing of a failed text stays */
  amddwarf__mem_free(NULL, bytes, byte_size ? byte_size : 1);
  amddwarf__mem_free(NULL, refs.fixups, refs.fixup_capacity * sizeof *refs.fixups);
  amddwarf__mem_free(&b->alloc, ops, op_capacity * sizeof *ops);
  amddwarf__mem_free(&b->alloc, names.dies, names.die_capacity * sizeof *names.dies);
  return st;
}

/* ---- encoding ------------------------------------------------------------- */

amddwarf_status amddwarf_expr_builder_encode(const amddwarf_expr_builder *b,
                                             const amddwarf_expr_resolver *resolver,
                                             uint8_t *out, size_t capacity, size_t *size,
                                             amddwarf_error *err)
{
  if (!b || !size || (!out && capacity))
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_allocator a = b->alloc;
  size_t n = b->count ? b->count : 1;
  amddwarf_op *ops = amddwarf__mem_alloc(&a, n * sizeof *ops);
  if (!ops)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_status st = AMDDWARF_OK;
  for (size_t i = 0; i < b->count; i++) {
    ops[i] = b->entries[i].op;
    const op_fix *fix = &b->entries[i].fix;
    const amddwarf_op_info *info = amddwarf_op_info_get(ops[i].kind);
    if (fix->kind == FIX_LABEL) {
      uint32_t target = b->labels[fix->value - 1];
      if (target == UINT32_MAX) {
        st = amddwarf__fail(err, AMDDWARF_E_EXPR_BAD_BRANCH, AMDDWARF_NO_OFFSET,
                           "operation %zu (%s) branches to label %u, which was never placed",
                           i, info->name, (unsigned)fix->value);
        goto cleanup;
      }
      ops[i].target = target;
    } else if (fix->kind == FIX_TEXT) {
      if (!resolver) {
        st = amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNRESOLVED, AMDDWARF_NO_OFFSET,
                           "operation %zu (DW_OP_addr) holds a .text address but there is no "
                           "resolver", i);
        goto cleanup;
      }
      ops[i].operands[0] += resolver->text_base;
    } else if (fix->kind == FIX_DIE) {
      if (!resolver || !resolver->die) {
        st = amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNRESOLVED, AMDDWARF_NO_OFFSET,
                           "operation %zu (%s) refers to DIE %u but there is no resolver", i,
                           info->name, (unsigned)fix->value);
        goto cleanup;
      }
      uint64_t section_offset = 0, unit_offset = 0;
      st = resolver->die(resolver->user, fix->value, &section_offset, &unit_offset);
      if (st != AMDDWARF_OK) {
        st = amddwarf__fail(err, st < 0 ? st : AMDDWARF_E_PRODUCE_UNRESOLVED, AMDDWARF_NO_OFFSET,
                           "operation %zu (%s) refers to DIE %u, which cannot be resolved", i,
                           info->name, (unsigned)fix->value);
        goto cleanup;
      }
      ops[i].operands[fix->operand] =
          info->operands[fix->operand] == AMDDWARF_OPERAND_DIE_REF ? section_offset : unit_offset;
    }
  }
  st = amddwarf_expr_encode(ops, b->count, &b->format, out, capacity, size, err);
cleanup:
  amddwarf__mem_free(&a, ops, n * sizeof *ops);
  return st;
}

amddwarf_status amddwarf__produce_expr_bytes(const amddwarf_expr_builder *b,
                                            const amddwarf_expr_resolver *resolver,
                                            const amddwarf_allocator *alloc, uint8_t **out,
                                            size_t *size, amddwarf_error *err)
{
  size_t needed = 0;
  *out = NULL;
  *size = 0;
  amddwarf_status st = amddwarf_expr_builder_encode(b, resolver, NULL, 0, &needed, err);
  if (st != AMDDWARF_OK && st != AMDDWARF_E_NO_SPACE)
    return st;
  if (needed == 0)
    return AMDDWARF_OK;
  uint8_t *bytes = amddwarf__mem_alloc(alloc, needed);
  if (!bytes)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  st = amddwarf_expr_builder_encode(b, resolver, bytes, needed, size, err);
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(alloc, bytes, needed);
    return st;
  }
  *out = bytes;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__produce_expr_copy(const amddwarf_expr_builder *src,
                                           const amddwarf_allocator *alloc,
                                           amddwarf_expr_builder **out, amddwarf_error *err)
{
  amddwarf_expr_builder *b = NULL;
  amddwarf_status st = amddwarf_expr_builder_new(&src->format, alloc, &b);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < src->label_count && st == AMDDWARF_OK; i++) {
    amddwarf_label label;
    st = amddwarf_expr_builder_label_new(b, &label, err);
    if (st == AMDDWARF_OK)
      b->labels[i] = src->labels[i];
  }
  for (size_t i = 0; i < src->count && st == AMDDWARF_OK; i++) {
    amddwarf_op op = src->entries[i].op;
    if (op.block) {
      const amddwarf_op_info *info = amddwarf_op_info_get(op.kind);
      int bi = (info->operands[0] == AMDDWARF_OPERAND_BLOCK ||
                info->operands[0] == AMDDWARF_OPERAND_BLOCK_U8)
                   ? 0
                   : 1;
      st = copy_block(b, op.block, (size_t)op.operands[bi], &op.block, err);
    }
    if (st == AMDDWARF_OK)
      st = push_op(b, &op, src->entries[i].fix, err);
  }
  if (st != AMDDWARF_OK) {
    amddwarf_expr_builder_free(b);
    return st;
  }
  *out = b;
  return AMDDWARF_OK;
}
