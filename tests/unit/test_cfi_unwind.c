/* Unit tests of the unwinder (src/cfi/unwind.c) over a scripted AMDGPU wave:
 * a callee that saved an SGPR into a lane of a VGPR, a VGPR spilled to
 * private_wave memory under a partial EXEC mask (DW_OP_LLVM_select_bit_piece
 * with DW_OP_LLVM_call_frame_entry_reg EXEC, as the seed describes for CFI),
 * a CFA in private_wave, a chain of 8 frames, the call-site PC (return
 * address - 1), and the statuses that end a walk: undefined return address,
 * loop, missing FDE, unevaluable rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/cfi.h>

#include "cfi_build.h"

/* ---- A scripted wave -------------------------------------------------------- */

typedef struct reg {
  uint32_t regno;
  uint32_t size;
  uint8_t bytes[256];
} reg;

typedef struct wave {
  reg regs[16];
  int nregs;
  uint8_t priv[4096]; /* private_wave, addresses 0..4095 */
  uint64_t exec;
} wave;

static void set_reg(wave *w, uint32_t regno, uint32_t size, uint64_t value)
{
  reg *r = &w->regs[w->nregs++];
  r->regno = regno;
  r->size = size;
  memset(r->bytes, 0, sizeof r->bytes);
  for (unsigned i = 0; i < size && i < 8; i++)
    r->bytes[i] = (uint8_t)(value >> (8 * i));
}

static void set_lanes(wave *w, uint32_t regno, uint32_t base)
{
  reg *r = &w->regs[w->nregs++];
  r->regno = regno;
  r->size = 256;
  for (unsigned lane = 0; lane < 64; lane++)
    for (unsigned b = 0; b < 4; b++)
      r->bytes[lane * 4 + b] = (uint8_t)((base + lane) >> (8 * b));
}

static void put32(wave *w, uint64_t address, uint32_t v)
{
  for (unsigned b = 0; b < 4; b++)
    w->priv[address + b] = (uint8_t)(v >> (8 * b));
}

static void put64(wave *w, uint64_t address, uint64_t v)
{
  put32(w, address, (uint32_t)v);
  put32(w, address + 4, (uint32_t)(v >> 32));
}

static amddwarf_status w_read_register(void *user, uint32_t regno, uint64_t offset,
                                       uint64_t size, void *buf)
{
  wave *w = user;
  for (int i = 0; i < w->nregs; i++) {
    if (w->regs[i].regno != regno)
      continue;
    if (offset > w->regs[i].size || size > w->regs[i].size - offset)
      return AMDDWARF_E_EVAL_OUT_OF_BOUNDS;
    memcpy(buf, w->regs[i].bytes + offset, (size_t)size);
    return AMDDWARF_OK;
  }
  return AMDDWARF_E_EVAL_UNAVAILABLE;
}

static amddwarf_status w_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, void *buf)
{
  wave *w = user;
  if (aspace != 6 || lane != AMDDWARF_NO_LANE || address > sizeof w->priv ||
      size > sizeof w->priv - address)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, w->priv + address, (size_t)size);
  return AMDDWARF_OK;
}

static amddwarf_status w_wave_size(void *user, uint32_t *wave_size)
{
  (void)user;
  *wave_size = 64;
  return AMDDWARF_OK;
}

static amddwarf_status w_exec(void *user, uint64_t *mask)
{
  *mask = ((wave *)user)->exec;
  return AMDDWARF_OK;
}

static amddwarf_status w_lane(void *user, uint32_t *lane)
{
  (void)user;
  *lane = 0;
  return AMDDWARF_OK;
}

static void target_of(wave *w, amddwarf_target *t)
{
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = w;
  t->read_register = w_read_register;
  t->read_memory = w_read_memory;
  t->wave_size = w_wave_size;
  t->exec_mask = w_exec;
  t->focused_lane = w_lane;
}

/* ---- The CFI ------------------------------------------------------------------ */

enum { PC_64 = 16, EXEC_64 = 17, SGPR32 = 64, SGPR33 = 65, SGPR40 = 72, SGPR50 = 82,
       VGPR40 = 2600, VGPR41 = 2601 };

/* F [0x1000, 0x1100): CFA = SGPR32 in private_wave; PC at [CFA]; caller's
   SGPR32 = CFA + 0x200; SGPR40 in lane 2 of VGPR40; VGPR41 spilled at CFA+32
   for the lanes of the entry EXEC mask.
   G [0x2000, 0x2100): the outermost function, return address undefined.
   L [0x4000, 0x4100): only a CFA rule: PC keeps AMDGPU's "same value".
   N [0x5000, 0x5100): return address 0x9000, where no FDE is.
   U [0x6000, 0x6100): PC from SGPR50, which the wave cannot read; SGPR33 by
   a val_expression of the wrong size. */
static void build(cfi_sec *s)
{
  memset(s, 0, sizeof *s);
  size_t c = cfi_cie4(s, 4, 4, PC_64, NULL, 0);
  const uint8_t f[] = {
      0x30, 0x40, 0x00, 0x06,                         /* LLVM_def_aspace_cfa SGPR32 0 as6 */
      0x90, 0x00,                                     /* offset PC_64 0 */
      0x14, 0x40, 0x80, 0x01,                         /* val_offset SGPR32 0x80*4 */
      0x10, 0x48, 0x06, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x08, /* SGPR40: regx VGPR40; offset_uconst 8 */
      0x10, 0xa9, 0x14, 0x10,                         /* expression VGPR41, 16 bytes: */
      0x90, 0xa9, 0x14,                               /*   regx VGPR41 */
      0x16,                                           /*   swap */
      0xe9, 0x05, 0x20,                               /*   LLVM_offset_uconst 32 */
      0xe9, 0x07, 0x11,                               /*   LLVM_call_frame_entry_reg EXEC_64 */
      0x94, 0x08,                                     /*   deref_size 8 */
      0xe9, 0x0c, 0x20, 0x40,                         /*   LLVM_select_bit_piece 32 64 */
  };
  cfi_fde8(s, c, 0x1000, 0x100, f, sizeof f);
  const uint8_t g[] = {0x30, 0x40, 0x00, 0x06, 0x07, 0x10};
  cfi_fde8(s, c, 0x2000, 0x100, g, sizeof g);
  const uint8_t l[] = {0x30, 0x40, 0x00, 0x06};
  cfi_fde8(s, c, 0x4000, 0x100, l, sizeof l);
  /* N: PC = val_expression constu 0x9000 (8-byte generic value) */
  const uint8_t n[] = {0x30, 0x40, 0x00, 0x06, 0x16, 0x10, 0x04, 0x10, 0x80, 0xa0, 0x02};
  cfi_fde8(s, c, 0x5000, 0x100, n, sizeof n);
  /* U: PC at private_wave address SGPR50 (bregx SGPR50 0; lit6;
     LLVM_form_aspace_address); SGPR33 = val_expression lit1 (8 bytes for a
     4-byte register) */
  const uint8_t u[] = {0x30, 0x40, 0x00, 0x06, 0x10, 0x10, 0x06, 0x92, 0x52, 0x00, 0x36,
                       0xe9, 0x02, 0x16, 0x41, 0x01, 0x31};
  cfi_fde8(s, c, 0x6000, 0x100, u, sizeof u);
}

typedef struct fixture {
  cfi_sec s;
  wave w;
  amddwarf_target t;
  amddwarf_cfi *cfi;
  amddwarf_unwinder *u;
  amddwarf_error err;
} fixture;

static void start(fixture *fx, uint64_t pc)
{
  build(&fx->s);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.data = fx->s.data;
  o.size = fx->s.len;
  o.target = amddwarf_cfi_target_amdgpu(64);
  amddwarf_error_clear(&fx->err);
  assert_int_equal(amddwarf_cfi_open(&o, &fx->cfi, &fx->err), AMDDWARF_OK);
  set_reg(&fx->w, PC_64, 8, pc);
  target_of(&fx->w, &fx->t);
  assert_int_equal(amddwarf_unwinder_new(fx->cfi, &fx->t, NULL, &fx->u, &fx->err), AMDDWARF_OK);
}

static void stop(fixture *fx)
{
  amddwarf_unwinder_free(fx->u);
  amddwarf_cfi_close(fx->cfi);
}

static uint64_t read_u64(fixture *fx, size_t frame, uint32_t regno, unsigned size)
{
  uint8_t b[8] = {0};
  amddwarf_status st = amddwarf_unwinder_read_register(fx->u, frame, regno, 0, size, b, &fx->err);
  if (st != AMDDWARF_OK)
    fail_msg("frame %zu register %u: %s", frame, regno, fx->err.message);
  uint64_t v = 0;
  for (unsigned i = 0; i < size; i++)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

/* Return addresses of the eight-frame chain: frames 1-5 inside F, frame 6
   at F's end (its call site is F's last byte), frame 7 in G. */
static const uint64_t pcs[8] = {0x1008, 0x1014, 0x1024, 0x1034, 0x1044, 0x1054, 0x1100, 0x2010};

/* Starts FX's unwinder on the wave of the eight-frame chain: EXEC lanes 0
   and 2, VGPR40 lane N = 0x4000 + N, VGPR41 lane N = 0x100 + N, the
   private_wave slots at 32 + 4 * N = 0xaa00 + N. */
static void start_chain(fixture *fx)
{
  set_reg(&fx->w, SGPR32, 4, 0);
  set_reg(&fx->w, EXEC_64, 8, 0x5);
  set_lanes(&fx->w, VGPR40, 0x4000);
  set_lanes(&fx->w, VGPR41, 0x100);
  fx->w.exec = 0x5;
  for (int k = 0; k < 7; k++)
    put64(&fx->w, 0x200u * (unsigned)k, pcs[k + 1]);
  for (unsigned lane = 0; lane < 64; lane++)
    put32(&fx->w, 32 + 4 * lane, 0xaa00 + lane);
  start(fx, pcs[0]);
}

/* Lanes 0-3 of vector register REGNO of frame FRAME are WANT. */
static void assert_first_lanes(fixture *fx, size_t frame, uint32_t regno, const uint32_t want[4])
{
  uint8_t lanes[16];
  assert_int_equal(amddwarf_unwinder_read_register(fx->u, frame, regno, 0, 16, lanes, &fx->err),
                   AMDDWARF_OK);
  for (int lane = 0; lane < 4; lane++) {
    uint32_t v = (uint32_t)lanes[4 * lane] | (uint32_t)lanes[4 * lane + 1] << 8 |
                 (uint32_t)lanes[4 * lane + 2] << 16 | (uint32_t)lanes[4 * lane + 3] << 24;
    assert_int_equal(v, want[lane]);
  }
}

static void test_chain_of_eight_frames(void **state)
{
  (void)state;
  static fixture fx;
  memset(&fx, 0, sizeof fx);
  start_chain(&fx);
  for (int k = 0; k < 7; k++) {
    amddwarf_status st = amddwarf_unwinder_step(fx.u, &fx.err);
    if (st != AMDDWARF_OK)
      fail_msg("step %d: %s", k, fx.err.message);
  }
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_END);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_END); /* stays ended */
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 8);
  for (size_t k = 0; k < 8; k++) {
    amddwarf_frame_info info;
    assert_int_equal(amddwarf_unwinder_frame(fx.u, k, &info), AMDDWARF_OK);
    assert_int_equal(info.pc, pcs[k]);
    assert_int_equal(info.lookup_pc, k ? pcs[k] - 1 : pcs[k]);
    assert_true(info.has_cfa);
    assert_int_equal(info.cfa, 0x200 * k);
    assert_int_equal(info.cfa_aspace, 6);
    assert_non_null(info.row);
    /* The call site of frame 6 is the last byte of F, not G or nothing. */
    assert_int_equal(info.row->fde->initial_location, k == 7 ? 0x2000 : 0x1000);
  }
  amddwarf_frame_info none;
  assert_int_equal(amddwarf_unwinder_frame(fx.u, 8, &none), AMDDWARF_NOT_FOUND);

  /* SGPR40 of the caller: lane 2 of the callee's VGPR40. */
  assert_int_equal(read_u64(&fx, 1, SGPR40, 4), 0x4002);
  assert_int_equal(read_u64(&fx, 3, SGPR40, 4), 0x4002);
  /* SGPR32 of each caller: the callee's CFA + 0x200. */
  assert_int_equal(read_u64(&fx, 5, SGPR32, 4), 0xa00);
  /* VGPR41 of frame 1: lanes in EXEC from private_wave, the others kept. */
  assert_int_equal(read_u64(&fx, 1, VGPR41, 4), 0xaa00);
  static const uint32_t want[4] = {0xaa00, 0x101, 0xaa02, 0x103};
  assert_first_lanes(&fx, 1, VGPR41, want);
  /* The frame target: frame 0's entry PC is frame 1's PC; its CFA is frame 0's. */
  const amddwarf_target *t0 = amddwarf_unwinder_frame_target(fx.u, 0);
  assert_non_null(t0);
  uint8_t b[8];
  assert_int_equal(t0->read_entry_register(t0->user, PC_64, 0, 8, b), AMDDWARF_OK);
  assert_int_equal(b[0] | b[1] << 8, 0x1014);
  uint32_t aspace;
  uint64_t cfa;
  const amddwarf_target *t2 = amddwarf_unwinder_frame_target(fx.u, 2);
  assert_int_equal(t2->cfa(t2->user, &aspace, &cfa), AMDDWARF_OK);
  assert_int_equal(cfa, 0x400);
  assert_null(amddwarf_unwinder_frame_target(fx.u, 9));
  /* A register no rule mentions keeps "same value" down to frame 0, where the
     wave does not have it. */
  assert_int_equal(amddwarf_unwinder_read_register(fx.u, 4, SGPR33, 0, 4, b, &fx.err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  /* G says the return address is undefined. */
  assert_int_equal(amddwarf_unwinder_read_register(fx.u, 8, PC_64, 0, 8, b, &fx.err),
                   AMDDWARF_NOT_FOUND);
  stop(&fx);
}

/* A reset unwinder walks another wave as a new one would: the second
   wave's frames and registers, though its rules' expressions were decoded
   for the first; a walk that could not start reports why at every step. */
static void test_reset_walks_another_wave(void **state)
{
  (void)state;
  static fixture fx;
  static wave second;
  memset(&fx, 0, sizeof fx);
  memset(&second, 0, sizeof second);
  /* The first wave: the eight frames of test_chain_of_eight_frames. */
  start_chain(&fx);
  while (amddwarf_unwinder_step(fx.u, &fx.err) == AMDDWARF_OK)
    ;
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 8);
  assert_int_equal(read_u64(&fx, 1, SGPR40, 4), 0x4002);
  assert_int_equal(read_u64(&fx, 1, VGPR41, 4), 0xaa00);

  /* The second: three frames (F, F, then G, whose caller is undefined),
     other lanes and other saved values. */
  set_reg(&second, SGPR32, 4, 0);
  set_reg(&second, EXEC_64, 8, 0x5);
  set_reg(&second, PC_64, 8, 0x1008);
  set_lanes(&second, VGPR40, 0x7000);
  set_lanes(&second, VGPR41, 0x300);
  second.exec = 0x5;
  put64(&second, 0, 0x1014);
  put64(&second, 0x200, 0x2010);
  for (unsigned lane = 0; lane < 64; lane++)
    put32(&second, 32 + 4 * lane, 0xbb00 + lane);
  amddwarf_target t2;
  target_of(&second, &t2);
  assert_int_equal(amddwarf_unwinder_reset(fx.u, &t2, NULL, &fx.err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 1);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_END);
  static const uint64_t pcs2[3] = {0x1008, 0x1014, 0x2010};
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 3);
  for (size_t k = 0; k < 3; k++) {
    amddwarf_frame_info info;
    assert_int_equal(amddwarf_unwinder_frame(fx.u, k, &info), AMDDWARF_OK);
    assert_int_equal(info.pc, pcs2[k]);
    assert_true(info.has_cfa);
    assert_int_equal(info.cfa, 0x200 * k);
    assert_int_equal(info.cfa_aspace, 6);
  }
  /* SGPR40 of the caller: lane 2 of the callee's VGPR40; VGPR41 of frame
     1: lanes 0 and 2 (EXEC) from private_wave, the others kept. */
  assert_int_equal(read_u64(&fx, 1, SGPR40, 4), 0x7002);
  static const uint32_t want[4] = {0xbb00, 0x301, 0xbb02, 0x303};
  assert_first_lanes(&fx, 1, VGPR41, want);

  /* No target: refused, and the walk before stays as it was. */
  assert_int_equal(amddwarf_unwinder_reset(fx.u, NULL, NULL, &fx.err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(fx.err.message, "amddwarf_unwinder_reset"));
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 3);

  /* A target whose PC cannot be read: no frame, and every step says so. */
  amddwarf_target no_registers = t2;
  no_registers.read_register = NULL;
  assert_int_equal(amddwarf_unwinder_reset(fx.u, &no_registers, NULL, &fx.err),
                   AMDDWARF_E_UNSUPPORTED);
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 0);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_UNSUPPORTED);
  assert_non_null(strstr(fx.err.message, "read_register"));
  /* After that error, other options: a walk of at most 2 frames, rules
     nested up to 24 deep (more evaluation contexts than the default 16,
     freed with the unwinder); the same first caller. */
  amddwarf_unwinder_options fewer;
  amddwarf_unwinder_options_init(&fewer);
  fewer.max_frames = 2;
  fewer.max_rule_depth = 24;
  assert_int_equal(amddwarf_unwinder_reset(fx.u, &t2, &fewer, &fx.err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_OK);
  assert_int_equal(read_u64(&fx, 1, SGPR40, 4), 0x7002);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_LIMIT);
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 2);

  stop(&fx);
}

static void test_loop_is_reported(void **state)
{
  (void)state;
  static fixture fx;
  memset(&fx, 0, sizeof fx);
  set_reg(&fx.w, SGPR32, 4, 0x40);
  start(&fx, 0x4008);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_CFI_UNWIND_LOOP);
  assert_non_null(strstr(fx.err.message, "repeat"));
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 1);
  amddwarf_error again;
  assert_int_equal(amddwarf_unwinder_step(fx.u, &again), AMDDWARF_E_CFI_UNWIND_LOOP);
  assert_string_equal(again.message, fx.err.message);
  stop(&fx);
}

static void test_missing_fde(void **state)
{
  (void)state;
  static fixture fx;
  memset(&fx, 0, sizeof fx);
  set_reg(&fx.w, SGPR32, 4, 0);
  start(&fx, 0x5000);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_OK);
  amddwarf_frame_info info;
  assert_int_equal(amddwarf_unwinder_frame(fx.u, 1, &info), AMDDWARF_OK);
  assert_int_equal(info.pc, 0x9000);
  assert_null(info.row);
  assert_false(info.has_cfa);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_CFI_NO_FDE);
  assert_non_null(strstr(fx.err.message, "0x8fff"));
  stop(&fx);
  /* Frame 0 itself outside every FDE. */
  memset(&fx, 0, sizeof fx);
  start(&fx, 0x7000);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_CFI_NO_FDE);
  stop(&fx);
}

static void test_unevaluable_rules(void **state)
{
  (void)state;
  static fixture fx;
  memset(&fx, 0, sizeof fx);
  set_reg(&fx.w, SGPR32, 4, 0);
  start(&fx, 0x6000);
  uint8_t b[8];
  assert_int_equal(amddwarf_unwinder_read_register(fx.u, 0, SGPR33, 0, 4, b, &fx.err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_E_CFI_UNEVALUABLE);
  if (!strstr(fx.err.message, "return address"))
    fail_msg("%s", fx.err.message);
  stop(&fx);
  /* The wrong-size val_expression, read from a frame that exists. */
  memset(&fx, 0, sizeof fx);
  set_reg(&fx.w, SGPR32, 4, 0);
  set_reg(&fx.w, SGPR50, 4, 0x80);
  put64(&fx.w, 0x80, 0x1010);
  start(&fx, 0x6000);
  assert_int_equal(amddwarf_unwinder_step(fx.u, &fx.err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_frame_count(fx.u), 2);
  amddwarf_status st = amddwarf_unwinder_read_register(fx.u, 1, SGPR33, 0, 4, b, &fx.err);
  if (st != AMDDWARF_E_CFI_REGISTER_SIZE)
    fail_msg("%s: %s", amddwarf_status_name(st), fx.err.message);
  stop(&fx);
}

/* x86-64: the caller's RSP is the CFA (no rule names it), RIP at [CFA-8]. */
static uint8_t x86_stack[64];

static amddwarf_status x_read_register(void *user, uint32_t regno, uint64_t offset,
                                       uint64_t size, void *buf)
{
  (void)user;
  uint64_t v = regno == 16 ? 0x401004 : regno == 7 ? 0x1000 : 0;
  if ((regno != 16 && regno != 7) || offset + size > 8)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, (const uint8_t *)&v + offset, (size_t)size);
  return AMDDWARF_OK;
}

static amddwarf_status x_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, void *buf)
{
  (void)user;
  if (aspace != 0 || lane != AMDDWARF_NO_LANE || address < 0x1000 ||
      address + size > 0x1000 + sizeof x86_stack)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, x86_stack + (address - 0x1000), (size_t)size);
  return AMDDWARF_OK;
}

static void test_x86_stack_pointer_is_the_cfa(void **state)
{
  (void)state;
  cfi_sec s;
  memset(&s, 0, sizeof s);
  const uint8_t cie[] = {0x0c, 0x07, 0x08, 0x90, 0x01}; /* def_cfa RSP 8; RIP at CFA-8 */
  size_t c = cfi_cie4(&s, 1, -8, 16, cie, sizeof cie);
  cfi_fde8(&s, c, 0x401000, 0x10, NULL, 0);
  const uint8_t f2[] = {0x0e, 0x10};                  /* def_cfa_offset 16 */
  cfi_fde8(&s, c, 0x402000, 0x10, f2, sizeof f2);
  const uint8_t f3[] = {0x07, 0x10};                  /* RIP undefined */
  cfi_fde8(&s, c, 0x403000, 0x10, f3, sizeof f3);
  /* Frame 0: RSP 0x1000, CFA 0x1008, RA at 0x1000. Frame 1: RSP = 0x1008,
     CFA 0x1018, RA at 0x1010. Frame 2: outermost. */
  memset(x86_stack, 0, sizeof x86_stack);
  uint64_t ra0 = 0x402008, ra1 = 0x403004;
  memcpy(x86_stack + 0x0, &ra0, 8);
  memcpy(x86_stack + 0x10, &ra1, 8);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.data = s.data;
  o.size = s.len;
  o.target = amddwarf_cfi_target_x86_64();
  amddwarf_cfi *cfi;
  amddwarf_error err;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_OK);
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.read_register = x_read_register;
  t.read_memory = x_read_memory;
  amddwarf_unwinder *u;
  assert_int_equal(amddwarf_unwinder_new(cfi, &t, NULL, &u, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(u, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(u, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_unwinder_step(u, &err), AMDDWARF_END);
  amddwarf_frame_info info;
  assert_int_equal(amddwarf_unwinder_frame(u, 1, &info), AMDDWARF_OK);
  assert_int_equal(info.pc, 0x402008);
  assert_int_equal(info.cfa, 0x1018);
  assert_int_equal(info.cfa_aspace, 0);
  assert_int_equal(amddwarf_unwinder_frame(u, 2, &info), AMDDWARF_OK);
  assert_int_equal(info.pc, 0x403004);
  uint64_t rsp = 0;
  assert_int_equal(amddwarf_unwinder_read_register(u, 1, 7, 0, 8, &rsp, &err), AMDDWARF_OK);
  assert_int_equal(rsp, 0x1008);
  assert_int_equal(amddwarf_unwinder_read_register(u, 2, 7, 0, 8, &rsp, &err), AMDDWARF_OK);
  assert_int_equal(rsp, 0x1018);
  /* RBX has no rule: undefined on x86-64. */
  assert_int_equal(amddwarf_unwinder_read_register(u, 1, 3, 0, 8, &rsp, &err),
                   AMDDWARF_E_EVAL_OPTIMIZED_OUT);
  amddwarf_unwinder_free(u);
  amddwarf_cfi_close(cfi);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_of_eight_frames),
      cmocka_unit_test(test_reset_walks_another_wave),
      cmocka_unit_test(test_loop_is_reported),
      cmocka_unit_test(test_missing_fde),
      cmocka_unit_test(test_unevaluable_rules),
      cmocka_unit_test(test_x86_stack_pointer_is_the_cfa),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
