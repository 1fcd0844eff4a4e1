/* The build description's "cfi" member (specs/build.md): CIEs and FDEs with
 * their instructions, through the CFI builder. */
#include "produce/build_json.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"

static amddwarf_status build_insns(desc_ctx *c, int is_cie, uint32_t index, json_t *list)
{
  size_t i;
  json_t *insn;
  char base[200];
  memcpy(base, c->path, sizeof base);
  json_array_foreach(list, i, insn)
  {
    amddwarf__desc_path_index(c, base, "instructions", i);
    const char *op = amddwarf__desc_str(insn, "op");
    if (!op)
      return amddwarf__desc_fail(c, "op", "missing", NULL);
    uint64_t operands[3] = {0, 0, 0};
    json_t *ops = json_object_get(insn, "operands");
    size_t k;
    json_t *o;
    json_array_foreach(ops, k, o)
    {
      char path[256], item[280];
      if (k >= 3)
        return amddwarf__desc_fail(c, "operands", "up to three integers", NULL);
      /* A signed operand (DW_CFA_*_sf) is given negative and kept as its bits. */
      amddwarf__desc_member_path(c, "operands", path);
      snprintf(item, sizeof item, "%s[%zu]", path, k);
      amddwarf_status st = amddwarf__json_bits(o, 64, item, AMDDWARF_E_PRODUCE_DESCRIPTION,
                                              c->err, &operands[k]);
      if (st != AMDDWARF_OK)
        return st;
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    amddwarf_status st = AMDDWARF_OK;
    const char *text = amddwarf__desc_str(insn, "expr");
    if (text) {
      amddwarf_expr_builder *e = NULL;
      st = amddwarf__desc_assemble(c, "expr", text, &e);
      if (st == AMDDWARF_OK)
        st = amddwarf__produce_expr_bytes(e, NULL, amddwarf__dwarf_builder_allocator(c->b), &bytes,
                                         &size, c->err);
      amddwarf_expr_builder_free(e);
    }
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_insn_named(c->cfi, is_cie, index, op, operands, bytes, size,
                                           c->err);
    amddwarf__mem_free(amddwarf__dwarf_builder_allocator(c->b), bytes, size);
    if (st != AMDDWARF_OK) {
      if (c->err && st != AMDDWARF_E_PRODUCE_DESCRIPTION) {
        char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
        memcpy(inner, c->err->message, sizeof inner);
        amddwarf__fail(c->err, st, c->err->offset, "%s: %s", c->path, inner);
      }
      return st;
    }
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__desc_build_cfi(desc_ctx *c, json_t *cfi, const amddwarf_dwarf_options *dopts)
{
  amddwarf_cfi_build_options o;
  amddwarf_cfi_build_options_init(&o);
  o.offset_size = dopts->offset_size;
  o.draft_dialect = dopts->dialect == AMDDWARF_DIALECT_DRAFT;
  uint64_t version;
  snprintf(c->path, sizeof c->path, "cfi");
  amddwarf_status st = amddwarf__desc_u64(c, cfi, "version", 0, 4, 0xffff, &version);
  if (st != AMDDWARF_OK)
    return st;
  o.version = (uint8_t)version;
  if (version != 1 && version != 3 && version != 4)
    return amddwarf__desc_fail(c, "version", "CIE version 1, 3 or 4", NULL);
  st = amddwarf_cfi_builder_new(&o, amddwarf__dwarf_builder_allocator(c->b), &c->cfi);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(c->err, st, AMDDWARF_NO_OFFSET, "out of memory");
  size_t i;
  json_t *item;
  json_array_foreach(json_object_get(cfi, "cies"), i, item)
  {
    amddwarf__desc_path_index(c, "cfi", "cies", i);
    uint64_t code_align, ra;
    int64_t data_align = 4;
    uint32_t index;
    st = amddwarf__desc_u64(c, item, "code_align", 0, 4, UINT64_MAX, &code_align);
    if (st == AMDDWARF_OK && json_object_get(item, "data_align"))
      st = amddwarf__desc_i64(c, item, "data_align", &data_align);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "ra_column", 0, 16, UINT32_MAX, &ra);
    json_t *aug = json_object_get(item, "augmentation");
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_cie(c->cfi, json_is_string(aug) ? json_string_value(aug) : "",
                                    code_align, data_align, ra, &index, c->err);
    if (st == AMDDWARF_OK)
      st = build_insns(c, 1, index, json_object_get(item, "instructions"));
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(json_object_get(cfi, "fdes"), i, item)
  {
    amddwarf__desc_path_index(c, "cfi", "fdes", i);
    uint64_t cie, start, length;
    uint32_t index;
    st = amddwarf__desc_u64(c, item, "cie", 0, 0, UINT32_MAX, &cie);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "start", 1, 0, UINT64_MAX, &start);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "length", 1, 0, UINT64_MAX, &length);
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_fde(c->cfi, (uint32_t)cie, start, length, &index, c->err);
    if (st == AMDDWARF_OK)
      st = build_insns(c, 0, index, json_object_get(item, "instructions"));
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}
