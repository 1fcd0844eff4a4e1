/* Fuzz target: CIE/FDE parsing, instruction decoding and printing, row
 * computation and look-up, over .debug_frame and .eh_frame bytes (and whole
 * ELF files).
 *
 * Input: one selector byte, then the section bytes (or an ELF image).
 *   bit 0    .eh_frame instead of .debug_frame
 *   bits 1-2 target: AMDGPU wave64, AMDGPU wave32, x86-64, AMDGPU 32-bit
 *   bit 3    draft dialect (0x2f is DW_CFA_LLVM_def_cfa_aspace)
 *   bit 4    small limits (remember depth 4, 64 rules per FDE)
 *   bit 5    the rest is an ELF file */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <amddwarf/cfi.h>

static amddwarf_status no_memory(void *user, uint64_t address, void *buf, size_t size)
{
  (void)user;
  if (address & 1)
    return AMDDWARF_E_IO;
  memset(buf, 0x5a, size);
  return AMDDWARF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t selector = data[0];
  data++;
  size--;
  amddwarf_cfi_target draft;
  const amddwarf_cfi_target *targets[4] = {
      amddwarf_cfi_target_amdgpu(64), amddwarf_cfi_target_amdgpu(32),
      amddwarf_cfi_target_x86_64(), amddwarf_cfi_target_amdgpu32(64)};
  const amddwarf_cfi_target *target = targets[(selector >> 1) & 3];
  if (selector & 8) {
    draft = *target;
    draft.dialect = AMDDWARF_DIALECT_DRAFT;
    target = &draft;
  }
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.kind = (selector & 1) ? AMDDWARF_CFI_EH_FRAME : AMDDWARF_CFI_DEBUG_FRAME;
  o.data = data;
  o.size = size;
  o.target = target;
  o.section_address = 0x1000;
  o.have_text_base = true;
  o.text_base = 0x2000;
  o.read_memory = no_memory;
  if (selector & 16) {
    o.max_remember_depth = 4;
    o.max_rules_per_fde = 64;
  }
  amddwarf_cfi *cfi = NULL;
  amddwarf_error err;
  amddwarf_status st = (selector & 32)
                           ? amddwarf_cfi_open_elf(data, size, o.kind, &o, &cfi, &err)
                           : amddwarf_cfi_open(&o, &cfi, &err);
  if (st != AMDDWARF_OK)
    return 0;
  char text[512];
  size_t cies = amddwarf_cfi_cie_count(cfi);
  for (size_t i = 0; i < cies && i < 64; i++) {
    const amddwarf_cfi_cie *cie = amddwarf_cfi_cie_at(cfi, i);
    const amddwarf_cfi_row *row;
    if (amddwarf_cfi_cie_row(cfi, cie, &row, &err) == AMDDWARF_OK)
      amddwarf_cfi_row_print(cfi, row, text, sizeof text);
  }
  size_t fdes = amddwarf_cfi_fde_count(cfi);
  for (size_t i = 0; i < fdes && i < 64; i++) {
    const amddwarf_cfi_fde *fde = amddwarf_cfi_fde_at(cfi, i);
    size_t pos = 0;
    uint64_t loc = fde->initial_location;
    amddwarf_cfa_insn insn;
    for (int n = 0; n < 256; n++) {
      if (amddwarf_cfi_decode_insn(cfi, fde->cie, fde->instructions,
                                   (size_t)fde->instructions_size, fde->instructions_offset,
                                   &pos, &insn, &err) != AMDDWARF_OK)
        break;
      amddwarf_cfi_insn_print(cfi, fde->cie, &insn, &loc, text, sizeof text);
    }
    const amddwarf_cfi_row *rows;
    size_t count;
    if (amddwarf_cfi_fde_rows(cfi, fde, &rows, &count, &err) == AMDDWARF_OK) {
      for (size_t r = 0; r < count && r < 64; r++) {
        amddwarf_cfi_row_print(cfi, &rows[r], text, sizeof text);
        amddwarf_cfi_rule rule;
        for (uint32_t k = 0; k < rows[r].rule_count; k++)
          amddwarf_cfi_row_rule(cfi, &rows[r], rows[r].rules[k].column, &rule);
      }
    }
    const amddwarf_cfi_row *row;
    amddwarf_cfi_find_row(cfi, fde->initial_location, &row, &err);
    amddwarf_cfi_find_row(cfi, fde->initial_location + fde->address_range / 2, &row, &err);
  }
  amddwarf_cfi_close(cfi);
  return 0;
}
