/* Unit tests of the prologue analyzer (src/object/prologue.c) and of rows
 * synthesized for FDEs without instructions (src/cfi/rows.c):
 *   - a leaf: CFA = SGPR32 in private_wave, the return address as the pair
 *     s30/s31, the caller's SP the CFA, undefined only what the leaf writes;
 *   - a callee that calls on (clang-19 -O2's middle for gfx90a): the FP in
 *     s8, s30/s31 in lanes 0 and 1 of v6, v6's inactive lanes spilled under
 *     s_xor_saveexec -1, the CFA moving to s33 and back in the epilogue;
 *   - what it refuses, with the instruction and its address;
 *   - the CFI handle's synthesizer: called once for an FDE even when two
 *     threads look the row up at once, rows marked synthesized;
 *   - the unwinder's caller_register callback over synthesized rows.
 * Expected rows are written from AMDGPUUsage and ROCm's directives
 * (specs/cfi.md), byte by byte where they are expressions. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/cfi.h>

#include "cfi_build.h"
#include "object/prologue.h"

enum { BASE = 0x100 };

typedef struct stream {
  const char *const *texts;
  size_t count;
  int calls;
} stream;

static void to_insns(const stream *s, amddwarf__prologue_insn *out)
{
  for (size_t i = 0; i < s->count; i++)
    out[i] = (amddwarf__prologue_insn){BASE + 4 * i, 4, s->texts[i]};
}

static amddwarf__prologue_params params(const stream *s)
{
  amddwarf__prologue_params p;
  memset(&p, 0, sizeof p);
  p.wave_size = 64;
  p.has_agprs = false;
  p.start = BASE;
  p.end = BASE + 4 * s->count;
  p.code_alignment = 4;
  p.data_alignment = 4;
  return p;
}

static amddwarf_status synthesize(void *user, const amddwarf_cfi_fde *fde, uint8_t *buf,
                                  size_t capacity, size_t *size, amddwarf_error *err)
{
  stream *s = user;
  (void)fde;
  __atomic_add_fetch(&s->calls, 1, __ATOMIC_SEQ_CST);
  amddwarf__prologue_insn insns[64];
  to_insns(s, insns);
  amddwarf__prologue_params p = params(s);
  return amddwarf__prologue_analyze(&p, insns, s->count, buf, capacity, size, err);
}

/* A .debug_frame as clang writes it: a CIE and an FDE without instructions. */
static amddwarf_cfi *open_empty(cfi_sec *sec, size_t count, stream *s)
{
  memset(sec, 0, sizeof *sec);
  size_t cie = cfi_cie4(sec, 4, 4, 16, NULL, 0);
  cfi_fde8(sec, cie, BASE, 4 * count, NULL, 0);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.data = sec->data;
  o.size = sec->len;
  amddwarf_cfi *cfi = NULL;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, NULL), AMDDWARF_OK);
  amddwarf_cfi_set_synthesizer(cfi, synthesize, s);
  return cfi;
}

static const char *row_text(amddwarf_cfi *cfi, uint64_t pc, char *buf, size_t size)
{
  const amddwarf_cfi_row *row;
  amddwarf_error err;
  amddwarf_status st = amddwarf_cfi_find_row(cfi, pc, &row, &err);
  if (st != AMDDWARF_OK)
    fail_msg("row at 0x%llx: %s", (unsigned long long)pc, err.message);
  assert_true(row->synthesized);
  amddwarf_cfi_row_print(cfi, row, buf, size);
  return buf;
}

static const char *const leaf[] = {
    "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
    "v_mad_u64_u32 v[2:3], s[4:5], v1, v0, 3",
    "v_ashrrev_i32_e32 v0, 1, v0",
    "v_xor_b32_e32 v0, v2, v0",
    "s_setpc_b64 s[30:31]",
};

static void test_leaf(void **state)
{
  (void)state;
  stream s = {leaf, 5, 0};
  cfi_sec sec;
  amddwarf_cfi *cfi = open_empty(&sec, s.count, &s);
  char text[4096];
  /* One row: what it writes (v0, v2, v3, s4, s5; v_mad's carry-out pair
     included) undefined, everything else the caller's. */
  assert_string_equal(row_text(cfi, BASE + 8, text, sizeof text),
                      "CFA=SGPR32+0 in addrspace6: PC_REG=[DW_OP_regx SGPR30, DW_OP_piece 0x4, "
                      "DW_OP_regx SGPR31, DW_OP_piece 0x4], SGPR4=undefined, SGPR5=undefined, "
                      "SGPR32=CFA, VGPR0=undefined, VGPR2=undefined, VGPR3=undefined");
  const amddwarf_cfi_row *rows;
  size_t count;
  assert_int_equal(amddwarf_cfi_fde_rows(cfi, amddwarf_cfi_fde_at(cfi, 0), &rows, &count, NULL),
                   AMDDWARF_OK);
  assert_int_equal(count, 1);
  amddwarf_cfi_close(cfi);
}

/* clang-19 -O2, gfx90a: `middle` of tests/corpus/test_prologue_unwind.py. */
static const char *const middle[] = {
    "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",     /* 0x100 */
    "s_mov_b32 s8, s33",                           /* 0x104 */
    "s_mov_b32 s33, s32",                          /* 0x108 */
    "s_xor_saveexec_b64 s[4:5], -1",               /* 0x10c */
    "buffer_store_dword v6, off, s[0:3], s33",     /* 0x110 */
    "s_mov_b64 exec, s[4:5]",                      /* 0x114 */
    "s_addk_i32 s32, 0x400",                       /* 0x118 */
    "v_writelane_b32 v6, s30, 0",                  /* 0x11c */
    "v_writelane_b32 v6, s31, 1",                  /* 0x120 */
    "s_getpc_b64 s[6:7]",                          /* 0x124 */
    "s_swappc_b64 s[30:31], s[6:7]",               /* 0x128 */
    "v_readlane_b32 s31, v6, 1",                   /* 0x12c */
    "v_readlane_b32 s30, v6, 0",                   /* 0x130 */
    "s_xor_saveexec_b64 s[4:5], -1",               /* 0x134 */
    "buffer_load_dword v6, off, s[0:3], s33",      /* 0x138 */
    "s_mov_b64 exec, s[4:5]",                      /* 0x13c */
    "s_addk_i32 s32, 0xfc00",                      /* 0x140 */
    "s_mov_b32 s33, s8",                           /* 0x144 */
    "s_waitcnt vmcnt(0)",                          /* 0x148 */
    "s_setpc_b64 s[30:31]",                        /* 0x14c */
    "s_nop 0",                                     /* 0x150: padding */
};

static void expect_rule(amddwarf_cfi *cfi, uint64_t pc, uint32_t column,
                        amddwarf_cfi_rule_kind kind, const uint8_t *expr, size_t expr_size)
{
  const amddwarf_cfi_row *row;
  assert_int_equal(amddwarf_cfi_find_row(cfi, pc, &row, NULL), AMDDWARF_OK);
  amddwarf_cfi_rule rule;
  amddwarf_cfi_row_rule(cfi, row, column, &rule);
  assert_int_equal(rule.kind, kind);
  if (expr != NULL) {
    assert_int_equal(rule.expr_size, expr_size);
    assert_memory_equal(rule.expr, expr, expr_size);
  }
}

static void test_callee_that_calls(void **state)
{
  (void)state;
  stream s = {middle, sizeof middle / sizeof middle[0], 0};
  cfi_sec sec;
  amddwarf_cfi *cfi = open_empty(&sec, s.count, &s);
  const amddwarf_cfi_row *row;
  /* At the call: CFA = s33 (set to s32 at 0x108), the FP in s8 (SGPR8 is
     DWARF 40), the return address in lanes 0 and 1 of v6 (VGPR6 = 2566,
     ULEB 0x86 0x14): DW_OP_regx, DW_OP_bit_piece 32 at 0 and at 32. */
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x128, &row, NULL), AMDDWARF_OK);
  assert_int_equal(row->cfa.kind, AMDDWARF_CFA_RULE_REG_OFFSET);
  assert_int_equal(row->cfa.reg, 65);
  assert_int_equal(row->cfa.offset, 0);
  assert_int_equal(row->cfa.aspace, 6);
  static const uint8_t pc_in_lanes[] = {0x90, 0x86, 0x14, 0x9d, 0x20, 0x00,
                                        0x90, 0x86, 0x14, 0x9d, 0x20, 0x20};
  expect_rule(cfi, 0x128, 16, AMDDWARF_CFI_RULE_EXPRESSION, pc_in_lanes, sizeof pc_in_lanes);
  amddwarf_cfi_rule rule;
  amddwarf_cfi_row_rule(cfi, row, 65, &rule);
  assert_int_equal(rule.kind, AMDDWARF_CFI_RULE_REGISTER);
  assert_int_equal(rule.reg, 40);
  /* v6 was stored under s_xor_saveexec -1: the lanes outside the caller's
     EXEC at CFA+0, the others clobbered (a caller-saved VGPR):
     DW_OP_LLVM_offset_uconst 0, DW_OP_LLVM_undefined, the entry EXEC (8
     bytes), DW_OP_LLVM_select_bit_piece 32 64. */
  static const uint8_t v6_inactive[] = {0xe9, 0x05, 0x00, 0xe9, 0x08, 0xe9, 0x07, 0x11,
                                        0x94, 0x08, 0xe9, 0x0c, 0x20, 0x40};
  expect_rule(cfi, 0x128, 2566, AMDDWARF_CFI_RULE_EXPRESSION, v6_inactive, sizeof v6_inactive);
  /* Before the FP is set up the CFA is s32; after only s30 is in v6 the
     pair is v6 lane 0 and s31. */
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x108, &row, NULL), AMDDWARF_OK);
  assert_int_equal(row->cfa.reg, 64);
  static const uint8_t half[] = {0x90, 0x86, 0x14, 0x9d, 0x20, 0x00, 0x90, 0x3f, 0x93, 0x04};
  expect_rule(cfi, 0x120, 16, AMDDWARF_CFI_RULE_EXPRESSION, half, sizeof half);
  /* The epilogue: s30/s31 back home at 0x134, v6 back at 0x13c, the CFA
     on s32 again before s33 is restored, s33 the caller's after it. */
  static const uint8_t pair[] = {0x90, 0x3e, 0x93, 0x04, 0x90, 0x3f, 0x93, 0x04};
  expect_rule(cfi, 0x134, 16, AMDDWARF_CFI_RULE_EXPRESSION, pair, sizeof pair);
  expect_rule(cfi, 0x13c, 2566, AMDDWARF_CFI_RULE_UNDEFINED, NULL, 0);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x148, &row, NULL), AMDDWARF_OK);
  assert_int_equal(row->cfa.reg, 64);
  assert_int_equal(row->cfa.offset, 0);
  expect_rule(cfi, 0x148, 65, AMDDWARF_CFI_RULE_SAME_VALUE, NULL, 0);
  /* A callee that calls on: every caller-saved SGPR below s30 undefined. */
  expect_rule(cfi, 0x128, 32 + 29, AMDDWARF_CFI_RULE_UNDEFINED, NULL, 0);
  expect_rule(cfi, 0x128, 2560 + 40, AMDDWARF_CFI_RULE_SAME_VALUE, NULL, 0);
  assert_int_equal(s.calls, 1);
  amddwarf_cfi_close(cfi);
}

/* Each refusal: the stream, the address and words its message names. */
static void expect_refusal(const char *const *texts, size_t count, uint64_t at,
                           const char *words)
{
  stream s = {texts, count, 0};
  amddwarf__prologue_insn insns[16];
  to_insns(&s, insns);
  amddwarf__prologue_params p = params(&s);
  uint8_t buf[4096];
  size_t size = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf__prologue_analyze(&p, insns, count, buf, sizeof buf, &size, &err),
                   AMDDWARF_E_CFI_PROLOGUE);
  char address[32];
  snprintf(address, sizeof address, "at 0x%llx", (unsigned long long)at);
  if (strstr(err.message, address) == NULL || strstr(err.message, words) == NULL)
    fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err.message, address, words);
}

static void test_refusals(void **state)
{
  (void)state;
  static const char *const early_call[] = {"s_getpc_b64 s[16:17]",
                                           "s_swappc_b64 s[30:31], s[16:17]",
                                           "s_setpc_b64 s[30:31]"};
  expect_refusal(early_call, 3, 0x104, "`s_swappc_b64 s[30:31], s[16:17]`: overwrites the "
                                       "caller's s30");
  static const char *const fp_lost[] = {"s_mov_b32 s33, s32", "s_setpc_b64 s[30:31]"};
  expect_refusal(fp_lost, 2, 0x100, "overwrites the caller's s33");
  static const char *const copy_lost[] = {"s_mov_b32 s8, s33", "s_mov_b32 s33, s32",
                                          "s_mov_b32 s8, 0", "s_setpc_b64 s[30:31]"};
  expect_refusal(copy_lost, 4, 0x108, "overwrites the copy");
  static const char *const sp_unknown[] = {"s_mov_b32 s32, s5", "s_setpc_b64 s[30:31]"};
  expect_refusal(sp_unknown, 2, 0x100, "unknown amount");
  static const char *const undecodable[] = {"s_nop 0", "", "s_setpc_b64 s[30:31]"};
  expect_refusal(undecodable, 3, 0x104, "do not decode");
  static const char *const after_return[] = {"s_setpc_b64 s[30:31]", "v_mov_b32_e32 v0, 0"};
  expect_refusal(after_return, 2, 0x104, "code after the return");
  static const char *const csr_vgpr[] = {"v_mov_b32_e32 v40, 0", "s_setpc_b64 s[30:31]"};
  expect_refusal(csr_vgpr, 2, 0x100, "overwrites the caller's v40");
}

/* ---- the synthesizer shared by threads ---- */

typedef struct racer {
  amddwarf_cfi *cfi;
  pthread_barrier_t *start;
  int ok;
} racer;

static void *race(void *arg)
{
  racer *r = arg;
  pthread_barrier_wait(r->start);
  const amddwarf_cfi_row *row;
  r->ok = amddwarf_cfi_find_row(r->cfi, 0x128, &row, NULL) == AMDDWARF_OK && row->synthesized &&
          row->cfa.reg == 65;
  return NULL;
}

static void test_threads_share_the_rows(void **state)
{
  (void)state;
  stream s = {middle, sizeof middle / sizeof middle[0], 0};
  cfi_sec sec;
  amddwarf_cfi *cfi = open_empty(&sec, s.count, &s);
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  racer racers[THREADS];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    racers[i] = (racer){cfi, &start, 0};
    pthread_create(&threads[i], NULL, race, &racers[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    assert_true(racers[i].ok);
  }
  pthread_barrier_destroy(&start);
  assert_int_equal(s.calls, 1);
  amddwarf_cfi_close(cfi);
}

/* ---- the backend's caller registers ---- */

static amddwarf_status leaf_registers(void *user, uint32_t regno, uint64_t offset,
                                      uint64_t size, void *buf)
{
  (void)user;
  uint64_t v = regno == 16 ? BASE + 8 : regno == 62 ? 0x2000 : regno == 63 ? 0 : regno == 64
                                                                                   ? 0x400
                                                                                   : 0;
  if (offset + size > 8)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, (uint8_t *)&v + offset, (size_t)size);
  return AMDDWARF_OK;
}

static amddwarf_status backend(void *user, size_t index, uint64_t pc, uint32_t regno,
                               uint64_t offset, uint64_t size, void *buf)
{
  int *asked = user;
  (void)index;
  (void)pc;
  ++*asked;
  if (regno != 16 || offset != 0 || size != 8)
    return AMDDWARF_NOT_FOUND;
  uint64_t v = 0x3000;
  memcpy(buf, &v, 8);
  return AMDDWARF_OK;
}

static void test_backend_caller_registers(void **state)
{
  (void)state;
  stream s = {leaf, 5, 0};
  cfi_sec sec;
  amddwarf_cfi *cfi = open_empty(&sec, s.count, &s);
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.read_register = leaf_registers;
  for (int with_backend = 0; with_backend < 2; with_backend++) {
    int asked = 0;
    amddwarf_unwinder_options o;
    amddwarf_unwinder_options_init(&o);
    if (with_backend) {
      o.caller_register = backend;
      o.caller_register_user = &asked;
    }
    amddwarf_unwinder *u;
    assert_int_equal(amddwarf_unwinder_new(cfi, &t, &o, &u, NULL), AMDDWARF_OK);
    assert_int_equal(amddwarf_unwinder_step(u, NULL), AMDDWARF_OK);
    amddwarf_frame_info f;
    assert_int_equal(amddwarf_unwinder_frame(u, 1, &f), AMDDWARF_OK);
    /* The backend's return address wins; without it, s[30:31]. */
    assert_int_equal(f.pc, with_backend ? 0x3000 : 0x2000);
    assert_int_equal(f.backend_registers, with_backend);
    /* What it does not know comes from the row: the caller's SP is the CFA. */
    uint8_t sp[4];
    assert_int_equal(amddwarf_unwinder_read_register(u, 1, 64, 0, 4, sp, NULL), AMDDWARF_OK);
    assert_int_equal(sp[0] | sp[1] << 8, 0x400);
    assert_int_equal(asked > 0, with_backend);
    amddwarf_unwinder_free(u);
  }
  amddwarf_cfi_close(cfi);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaf),
      cmocka_unit_test(test_callee_that_calls),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_threads_share_the_rows),
      cmocka_unit_test(test_backend_caller_registers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
