/* Fuzz target: the prologue analyzer (src/object/prologue.c) over random
 * instruction streams, through the CFI handle's synthesizer (src/cfi/rows.c)
 * as a code object uses it: a .debug_frame with one FDE without
 * instructions, whose rows the analyzer writes. Whatever the stream, the
 * analyzer either refuses (E_CFI_PROLOGUE) or writes instructions the row
 * machine accepts: any other outcome aborts. Every row found is printed.
 *
 * Input: one selector byte, then the stream.
 *   bit 0    wave32 (else wave64)
 *   bit 1    the stream is text, one instruction per line (else pairs of
 *            bytes choosing an instruction form of the vocabulary below and
 *            its register, lane and offset numbers)
 *   bit 2    the target has AGPRs */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/cfi.h>

#include "object/prologue.h"

enum { MAX_INSNS = 512, TEXT = 96, BASE = 0x1000 };

/* The forms a prologue and an epilogue use, and a few that only write. */
static const char *const vocabulary[] = {
    "s_mov_b32 s%u, s33",          "s_mov_b32 s33, s32",         "s_mov_b32 s33, s%u",
    "s_mov_b32 s%u, s%u",          "v_writelane_b32 v%u, s%u, %u", "v_readlane_b32 s%u, v%u, %u",
    "s_or_saveexec_b64 s[%u:%u], -1", "s_xor_saveexec_b64 s[%u:%u], -1",
    "s_or_saveexec_b32 s%u, -1",   "s_mov_b64 exec, s[%u:%u]",   "s_mov_b32 exec_lo, s%u",
    "buffer_store_dword v%u, off, s[0:3], s33 offset:%u",
    "buffer_store_dword v%u, off, s[0:3], s32 offset:%u",
    "buffer_load_dword v%u, off, s[0:3], s33 offset:%u",
    "s_addk_i32 s32, 0x%x",        "s_add_i32 s32, s32, 0x%x",   "s_sub_u32 s32, s32, %u",
    "s_mov_b32 s32, s33",          "s_setpc_b64 s[30:31]",       "s_swappc_b64 s[30:31], s[%u:%u]",
    "v_mov_b32_e32 v%u, s%u",      "v_add_u32_e32 v%u, v%u, v2", "s_add_u32 s%u, s%u, 1",
    "v_mad_u64_u32 v[%u:%u], s[4:5], v1, v0, 3", "s_nop 0",     "s_waitcnt vmcnt(0)",
    "v_accvgpr_write_b32 a%u, v%u", "global_store_dword v1, v0, s[10:11]", "",
    "s_and_saveexec_b64 s[%u:%u], vcc", "s_code_end",          "v_cmpx_eq_u32_e32 v%u, v%u",
};

static amddwarf_status synthesize(void *user, const amddwarf_cfi_fde *fde, uint8_t *buf,
                                  size_t capacity, size_t *size, amddwarf_error *err)
{
  const amddwarf__prologue_params *p = ((void **)user)[0];
  const amddwarf__prologue_insn *insns = ((void **)user)[1];
  size_t count = *(const size_t *)((void **)user)[2];
  (void)fde;
  return amddwarf__prologue_analyze(p, insns, count, buf, capacity, size, err);
}

static void put32(uint8_t *b, size_t *n, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    b[(*n)++] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, size_t *n, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    b[(*n)++] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  data++, size--;
  static char texts[MAX_INSNS][TEXT];
  amddwarf__prologue_insn insns[MAX_INSNS];
  size_t count = 0;
  if (sel & 2) {
    size_t start = 0;
    for (size_t i = 0; i <= size && count < MAX_INSNS; i++) {
      if (i < size && data[i] != '\n')
        continue;
      size_t len = i - start < TEXT - 1 ? i - start : TEXT - 1;
      memcpy(texts[count], data + start, len);
      texts[count][len] = '\0';
      count++;
      start = i + 1;
    }
  } else {
    size_t forms = sizeof vocabulary / sizeof vocabulary[0];
    for (size_t i = 0; i + 1 < size && count < MAX_INSNS; i += 2) {
      unsigned a = data[i + 1], b = data[i + 1] >> 4, c = data[i + 1] & 7;
      snprintf(texts[count++], TEXT, vocabulary[data[i] % forms], a, b + 30, c, c + 1);
    }
  }
  for (size_t i = 0; i < count; i++)
    insns[i] = (amddwarf__prologue_insn){BASE + 4 * i, 4, texts[i]};
  amddwarf__prologue_params p;
  memset(&p, 0, sizeof p);
  p.wave_size = sel & 1 ? 32 : 64;
  p.has_agprs = (sel & 4) != 0;
  p.start = BASE;
  p.end = BASE + 4 * (count ? count : 1);
  p.code_alignment = 4;
  p.data_alignment = 4;

  /* .debug_frame: CIE v4 (factors 4, return address 16), one empty FDE. */
  uint8_t sec[64];
  size_t n = 0;
  put32(sec, &n, 12);
  put32(sec, &n, 0xffffffff);
  sec[n++] = 4, sec[n++] = 0, sec[n++] = 8, sec[n++] = 0;
  sec[n++] = 4, sec[n++] = 4, sec[n++] = 16, sec[n++] = 0;
  put32(sec, &n, 20);
  put32(sec, &n, 0);
  put64(sec, &n, p.start);
  put64(sec, &n, p.end - p.start);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.data = sec;
  o.size = n;
  o.target = amddwarf_cfi_target_amdgpu(p.wave_size);
  amddwarf_cfi *cfi = NULL;
  if (amddwarf_cfi_open(&o, &cfi, NULL) != AMDDWARF_OK)
    abort();
  void *user[3] = {&p, insns, &count};
  amddwarf_cfi_set_synthesizer(cfi, synthesize, user);
  const amddwarf_cfi_row *rows;
  size_t row_count;
  amddwarf_error err;
  amddwarf_status st = amddwarf_cfi_fde_rows(cfi, amddwarf_cfi_fde_at(cfi, 0), &rows, &row_count,
                                             &err);
  if (st != AMDDWARF_OK && st != AMDDWARF_E_CFI_PROLOGUE && st != AMDDWARF_E_NO_MEMORY) {
    fprintf(stderr, "synthesized CFI the row machine rejects: %s\n", err.message);
    abort();
  }
  char text[16384];
  for (size_t i = 0; st == AMDDWARF_OK && i < row_count; i++) {
    if (!rows[i].synthesized)
      abort();
    amddwarf_cfi_row_print(cfi, &rows[i], text, sizeof text);
  }
  amddwarf_cfi_close(cfi);
  return 0;
}
