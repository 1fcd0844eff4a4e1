/* Fuzz target: CIE/FDE parsing, instruction decoding and printing, row
 * computation and look-up, over .debug_frame and .eh_frame bytes (and whole
 * ELF files), and virtual unwinding with the fuzzed rules: from a PC inside
 * each of the first FDEs, amddwarf_unwinder_step (at most 16 frames) over a
 * synthetic wave whose registers and memory are the input's bytes, reading
 * every frame's CFA and a few registers through the frames; then again with
 * the unwinder of the FDE before reset (amddwarf_unwinder_reset), which must
 * find the same frames and registers as the new one.
 *
 * Input: one selector byte, then the section bytes (or an ELF image).
 *   bit 0    .eh_frame instead of .debug_frame
 *   bits 1-2 target: AMDGPU wave64, AMDGPU wave32, x86-64, AMDGPU 32-bit
 *   bit 3    draft dialect (0x2f is DW_CFA_LLVM_def_cfa_aspace)
 *   bit 4    small limits (remember depth 4, 64 rules per FDE)
 *   bit 5    the rest is an ELF file */
#include <stdbool.h>
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

/* The synthetic wave (or thread): every register and memory byte comes
   from the input, cyclically, so the fuzzer controls saved return addresses
   and frame pointers; frame 0's PC is inside the FDE being unwound. */
typedef struct synthetic_wave {
  const uint8_t *bytes;
  size_t size;
  uint32_t pc_column;
  uint64_t pc;
} synthetic_wave;

static void fill_from_input(const synthetic_wave *w, uint64_t start, void *buf, uint64_t size)
{
  uint8_t *out = buf;
  for (uint64_t i = 0; i < size; i++)
    out[i] = w->size ? w->bytes[(start + i) % w->size] : 0;
}

static amddwarf_status w_read_register(void *user, uint32_t regno, uint64_t offset,
                                       uint64_t size, void *buf)
{
  const synthetic_wave *w = user;
  if (offset > 256 || size > 256 - offset)
    return AMDDWARF_E_EVAL_OUT_OF_BOUNDS;
  if (regno == w->pc_column && offset + size <= 8) {
    memcpy(buf, (const uint8_t *)&w->pc + offset, (size_t)size);
    return AMDDWARF_OK;
  }
  if (regno % 97 == 96) /* some registers are not saved anywhere */
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  fill_from_input(w, regno * 13u + offset, buf, size);
  return AMDDWARF_OK;
}

static amddwarf_status w_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, void *buf)
{
  const synthetic_wave *w = user;
  if ((address & 0xfff) == 0xfff || size > 4096) /* unmapped */
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  fill_from_input(w, address + aspace * 7u + (lane == AMDDWARF_NO_LANE ? 0 : lane), buf, size);
  return AMDDWARF_OK;
}

static amddwarf_status w_wave_size(void *user, uint32_t *wave_size)
{
  (void)user;
  *wave_size = 64;
  return AMDDWARF_OK;
}

static amddwarf_status w_exec_mask(void *user, uint64_t *mask)
{
  const synthetic_wave *w = user;
  fill_from_input(w, 0, mask, sizeof *mask);
  return AMDDWARF_OK;
}

static amddwarf_status w_focused_lane(void *user, uint32_t *lane)
{
  (void)user;
  *lane = 0;
  return AMDDWARF_OK;
}

enum { UNWIND_FDES = 4, UNWIND_FRAMES = 16 };

/* One walk's outcome, what a reset unwinder must give again. */
typedef struct walk {
  amddwarf_status last;
  size_t frames;
  amddwarf_frame_info info[UNWIND_FRAMES + 1];
  amddwarf_status read[UNWIND_FRAMES + 1][5];
  uint8_t value[UNWIND_FRAMES + 1][5][16];
} walk;

/* Walks UNWINDER's frames, reading what a debugger reads per frame. */
static void walk_frames(amddwarf_unwinder *unwinder, walk *out)
{
  amddwarf_error err;
  memset(out, 0, sizeof *out);
  for (int step = 0; step < UNWIND_FRAMES; step++)
    if ((out->last = amddwarf_unwinder_step(unwinder, &err)) != AMDDWARF_OK)
      break;
  out->frames = amddwarf_unwinder_frame_count(unwinder);
  for (size_t k = 0; k < out->frames && k <= UNWIND_FRAMES; k++) {
    amddwarf_unwinder_frame(unwinder, k, &out->info[k]);
    /* x86-64 RBP and RSP; AMDGPU SGPR32, SGPR33 and 4 lanes of VGPR40. */
    static const uint32_t registers[] = {6, 7, 64, 65, 2600};
    for (size_t r = 0; r < sizeof registers / sizeof registers[0]; r++)
      out->read[k][r] = amddwarf_unwinder_read_register(unwinder, k, registers[r], 0,
                                                        sizeof out->value[k][r],
                                                        out->value[k][r], &err);
  }
}

/* Whether two walks found the same frames and registers. */
static bool same_walk(const walk *a, const walk *b)
{
  if (a->last != b->last || a->frames != b->frames)
    return false;
  for (size_t k = 0; k < a->frames && k <= UNWIND_FRAMES; k++) {
    const amddwarf_frame_info *x = &a->info[k], *y = &b->info[k];
    if (x->pc != y->pc || x->lookup_pc != y->lookup_pc || (x->row == NULL) != (y->row == NULL) ||
        x->has_cfa != y->has_cfa || (x->has_cfa && (x->cfa != y->cfa ||
                                                     x->cfa_aspace != y->cfa_aspace)))
      return false;
    for (size_t r = 0; r < 5; r++)
      if (a->read[k][r] != b->read[k][r] ||
          (a->read[k][r] == AMDDWARF_OK &&
           memcmp(a->value[k][r], b->value[k][r], sizeof a->value[k][r]) != 0))
        return false;
  }
  return true;
}

/* Unwinds from a PC inside FDE with a new unwinder, then again with
   *REUSED (the unwinder of the FDE before, reset), which must find the
   same: the new one is kept as *REUSED. */
static void unwind_from(amddwarf_cfi *cfi, const amddwarf_cfi_fde *fde, const uint8_t *data,
                        size_t size, amddwarf_unwinder **reused)
{
  synthetic_wave w = {data, size, amddwarf_cfi_get_target(cfi)->return_address_column,
                      fde->initial_location + (fde->address_range ? size % fde->address_range : 0)};
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = &w;
  t.read_register = w_read_register;
  t.read_memory = w_read_memory;
  t.wave_size = w_wave_size;
  t.exec_mask = w_exec_mask;
  t.focused_lane = w_focused_lane;
  amddwarf_unwinder_options options;
  amddwarf_unwinder_options_init(&options);
  options.max_frames = UNWIND_FRAMES;
  amddwarf_unwinder *unwinder;
  amddwarf_error err;
  static walk fresh, again;
  amddwarf_status made = amddwarf_unwinder_new(cfi, &t, &options, &unwinder, &err);
  if (made == AMDDWARF_OK)
    walk_frames(unwinder, &fresh);
  if (*reused != NULL) {
    amddwarf_status reset = amddwarf_unwinder_reset(*reused, &t, &options, &err);
    if (reset != made)
      __builtin_trap();
    if (reset == AMDDWARF_OK) {
      walk_frames(*reused, &again);
      if (!same_walk(&fresh, &again))
        __builtin_trap();
    }
    amddwarf_unwinder_free(*reused);
    *reused = NULL;
  }
  if (made == AMDDWARF_OK)
    *reused = unwinder;
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
  amddwarf_unwinder *reused = NULL;
  for (size_t i = 0; i < fdes && i < UNWIND_FDES; i++)
    unwind_from(cfi, amddwarf_cfi_fde_at(cfi, i), data, size, &reused);
  amddwarf_unwinder_free(reused);
  amddwarf_cfi_close(cfi);
  return 0;
}
