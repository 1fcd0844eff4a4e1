/* Every evaluation path of the library against the reference evaluator
 * (tests/reference/: the general machine alone, frozen): random location
 * expressions over a wide pool of operations, for 4- and 8-byte addresses,
 * wave32 and wave64, lanes up to the wave size and past it, on two targets:
 * a snapshot that refuses what it does not hold, and a target that answers
 * every read with bytes that name their address, so that a lane which
 * computed a wrong location reads wrong bytes instead of quietly failing
 * over to the right answer.
 *
 * For each expression and lane: amddwarf_eval_expr and amddwarf_eval_ops
 * give the reference's status, error offset and location (compared field
 * by field, composites part by part); amddwarf_eval_read gives its status,
 * error offset and bytes; amddwarf_eval_read_lanes gives each lane the
 * reference's status and bytes. AMDDWARF_TEST_SEED picks other expressions
 * (ctest runs several seeds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

#include "reference.h"

enum {
  EXEC_WAVE32 = 1, /* EXEC_MASK_32 */
  EXEC_WAVE64 = 17,
  SGPR0 = 32,
  VGPR0_WAVE32 = 1536,
  VGPR0_WAVE64 = 2560,
  STRIDE = 24,
  MAX_BITS = 8 * STRIDE,
  CASES = 5000,
  MAX_OPS = 48,
};

/* ---- random numbers -------------------------------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint32_t pick(uint32_t n)
{
  return (uint32_t)(next_random() % n);
}

#define PICK_FROM(array) ((array)[pick(sizeof(array) / sizeof((array)[0]))])

/* ---- the answering target ------------------------------------------------- */

/* The byte a storage holds at (A, B, C): a hash, so that a read of the
   wrong place reads other bytes. */
static uint8_t named_byte(uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 1) * 0xc2b2ae3d27d4eb4full ^
               (c + 7) * 0x165667b19e3779f9ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return (uint8_t)x;
}

typedef struct answering_wave {
  uint32_t wave_size;
  uint64_t exec;
  const uint8_t *frame_base;
  size_t frame_base_size;
} answering_wave;

static amddwarf_status answer_register(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                       void *buf)
{
  const answering_wave *w = user;
  uint8_t *out = buf;
  for (uint64_t i = 0; i < size; i++) {
    uint64_t at = offset + i;
    if (regno == (w->wave_size == 32 ? EXEC_WAVE32 : EXEC_WAVE64))
      out[i] = at < 8 ? (uint8_t)(w->exec >> (8 * at)) : 0;
    else
      out[i] = named_byte(1000 + regno, 0, at);
  }
  return AMDDWARF_OK;
}

/* private_wave is the swizzled view of the lanes' private_lane memory (the
   AMDGPU ABI): wave byte A is byte (A / (4 * W)) * 4 + A % 4 of lane
   (A % (4 * W)) / 4. */
static amddwarf_status answer_memory(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                     uint64_t size, void *buf)
{
  const answering_wave *w = user;
  uint8_t *out = buf;
  uint64_t row = 4ull * w->wave_size;
  for (uint64_t i = 0; i < size; i++) {
    uint64_t a = address + i;
    if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE)
      out[i] = named_byte(AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, (a % row) / 4,
                          (a / row) * 4 + a % 4);
    else
      out[i] = named_byte(aspace, aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ? lane : 0, a);
  }
  return AMDDWARF_OK;
}

static amddwarf_status answer_wave_size(void *user, uint32_t *wave_size)
{
  *wave_size = ((const answering_wave *)user)->wave_size;
  return AMDDWARF_OK;
}

static amddwarf_status answer_exec(void *user, uint64_t *mask)
{
  *mask = ((const answering_wave *)user)->exec;
  return AMDDWARF_OK;
}

static amddwarf_status answer_apertures(void *user, uint64_t *shared_base, uint64_t *private_base)
{
  (void)user;
  *shared_base = 0x1000000000000ull;
  *private_base = 0x2000000000000ull;
  return AMDDWARF_OK;
}

static amddwarf_status answer_frame_base(void *user, const uint8_t **expr, size_t *size)
{
  const answering_wave *w = user;
  *expr = w->frame_base;
  *size = w->frame_base_size;
  return AMDDWARF_OK;
}

static amddwarf_status answer_cfa(void *user, uint32_t *aspace, uint64_t *address)
{
  (void)user;
  *aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE;
  *address = 0x800;
  return AMDDWARF_OK;
}

/* ---- the refusing target: a snapshot --------------------------------------- */

static const uint64_t scalars[8] = {0x10, 0x40, 0x100, 0x800, 0x1000, 0x8000, 3, 0xfffffff0};

static const char FRAME_BASE[] = "DW_OP_bregx s4 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; "
                                 "DW_OP_LLVM_form_aspace_address";

static void append(char **p, const char *end, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  int n = vsnprintf(*p, (size_t)(end - *p), format, args);
  va_end(args);
  assert_true(n >= 0 && n < end - *p);
  *p += n;
}

/* s0-s7, v0-v3 (v4 is not held: unavailable), private_lane bytes 0-0x1ff of
   every lane but those with lane % 7 == 3, global 0x0-0x1fff, local
   0x0-0x3ff; the frame base is private_lane s4 / 64. */
static amddwarf_snapshot *refusing_wave(uint32_t wave_size)
{
  size_t size = 1 << 20;
  char *json = malloc(size), *p = json, *end = json + size;
  assert_non_null(json);
  append(&p, end, "{\"wave_size\": %u, \"exec\": \"%s\", \"dialect\": \"user\", "
                  "\"frame_base\": \"%s\", \"registers\": {", wave_size,
         wave_size == 32 ? "0xffffffff" : "0xffffffffffffffff", FRAME_BASE);
  for (int s = 0; s < 8; s++)
    append(&p, end, "\"s%d\": %llu, ", s, (unsigned long long)scalars[s]);
  for (int v = 0; v < 4; v++) {
    append(&p, end, "%s\"v%d\": [", v ? ", " : "", v);
    for (uint32_t lane = 0; lane < wave_size; lane++)
      append(&p, end, "%s%u", lane ? ", " : "", (unsigned)(next_random() & 0xffffffffu));
    append(&p, end, "]");
  }
  append(&p, end, "}, \"memory\": [");
  for (uint32_t lane = 0; lane < wave_size; lane++) {
    if (lane % 7 == 3)
      continue;
    append(&p, end, "{\"address_space\": \"private_lane\", \"lane\": %u, \"address\": 0, "
                    "\"bytes\": \"", lane);
    for (int i = 0; i < 0x200; i++)
      append(&p, end, "%02x", (unsigned)(next_random() & 0xff));
    append(&p, end, "\"}, ");
  }
  append(&p, end, "{\"address_space\": \"local\", \"address\": 0, \"bytes\": \"");
  for (int i = 0; i < 0x400; i++)
    append(&p, end, "%02x", (unsigned)(next_random() & 0xff));
  append(&p, end, "\"}, {\"address\": 0, \"bytes\": \"");
  for (int i = 0; i < 0x2000; i++)
    append(&p, end, "%02x", (unsigned)(next_random() & 0xff));
  append(&p, end, "\"}]}");
  amddwarf_snapshot *snapshot = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_snapshot_load(json, strlen(json), NULL, &snapshot, &err);
  if (st != AMDDWARF_OK)
    print_error("the wave%u snapshot: %s\n", wave_size, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  free(json);
  return snapshot;
}

/* ---- the fixture ---------------------------------------------------------- */

typedef struct fixture {
  amddwarf_snapshot *refusing[2]; /* wave32, wave64 */
  amddwarf_target refusing_target[2];
  answering_wave answering[2];
  amddwarf_target answering_target[2];
  uint8_t frame_base[32];
  amddwarf_eval *live, *lanes, *reference;
} fixture;

static int setup(void **state)
{
  const char *seed = getenv("AMDDWARF_TEST_SEED");
  if (seed != NULL && strtoull(seed, NULL, 0) != 0)
    rng_state = strtoull(seed, NULL, 0) * 0x9e3779b97f4a7c15ull;
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  size_t fb_size = 0;
  assert_int_equal(amddwarf_expr_assemble(FRAME_BASE, &format, 64, f->frame_base,
                                          sizeof f->frame_base, &fb_size, NULL),
                   AMDDWARF_OK);
  for (int i = 0; i < 2; i++) {
    uint32_t wave_size = i ? 64 : 32;
    f->refusing[i] = refusing_wave(wave_size);
    amddwarf_snapshot_target(f->refusing[i], &f->refusing_target[i]);
    f->answering[i].wave_size = wave_size;
    f->answering[i].frame_base = f->frame_base;
    f->answering[i].frame_base_size = fb_size;
    amddwarf_target *t = &f->answering_target[i];
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
    t->user = &f->answering[i];
    t->read_register = answer_register;
    t->read_memory = answer_memory;
    t->wave_size = answer_wave_size;
    t->exec_mask = answer_exec;
    t->apertures = answer_apertures;
    t->frame_base = answer_frame_base;
    t->cfa = answer_cfa;
  }
  assert_int_equal(amddwarf_eval_new(NULL, &f->live, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_eval_new(NULL, &f->lanes, NULL), AMDDWARF_OK);
  assert_int_equal(reference_eval_new(&f->reference), AMDDWARF_OK);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fixture *f = *state;
  amddwarf_eval_free(f->live);
  amddwarf_eval_free(f->lanes);
  reference_amddwarf_eval_free(f->reference);
  for (int i = 0; i < 2; i++)
    amddwarf_snapshot_free(f->refusing[i]);
  free(f);
  return 0;
}

/* ---- random expressions ------------------------------------------------- */

typedef struct builder {
  amddwarf_op ops[MAX_OPS];
  size_t count;
  uint32_t vgpr0; /* v0's DWARF number for the wave size */
  uint32_t exec;  /* EXEC's */
  int shallow;    /* added to the depth: short expressions, which the
                     whole-wave evaluator takes */
} builder;

static void emit(builder *b, amddwarf_op_kind kind, uint64_t a, uint64_t c)
{
  if (b->count >= MAX_OPS)
    return;
  amddwarf_op *op = &b->ops[b->count++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->operands[0] = a;
  op->operands[1] = c;
}

static void emit_lit(builder *b, uint32_t n)
{
  emit(b, (amddwarf_op_kind)(AMDDWARF_OP_lit0 + n), 0, 0);
}

/* Values near the edges: of 32 and 64 bits, of the storages above, of a
   lane's dword. */
static const uint64_t constants[] = {0,          1,          3,          4,
                                     8,          0x20,       0x7c,       0x80,
                                     0xfc,       0x100,      0x1ff,      0x1000,
                                     0x1ff0,     0x1ffc,     0x3fc,      0x7fffffff,
                                     0x80000000, 0xfffffffc, 0xffffffff, 0x100000000ull,
                                     UINT64_MAX - 3, UINT64_MAX, 0x1000000000004ull,
                                     0x2000000000010ull};

static const amddwarf_op_kind binary_ops[] = {
    AMDDWARF_OP_plus, AMDDWARF_OP_minus, AMDDWARF_OP_mul, AMDDWARF_OP_and, AMDDWARF_OP_or,
    AMDDWARF_OP_xor,  AMDDWARF_OP_shl,   AMDDWARF_OP_shr, AMDDWARF_OP_shra, AMDDWARF_OP_eq,
    AMDDWARF_OP_ne,   AMDDWARF_OP_lt,    AMDDWARF_OP_le,  AMDDWARF_OP_gt,   AMDDWARF_OP_ge,
    AMDDWARF_OP_div,  AMDDWARF_OP_mod};

static const amddwarf_op_kind unary_ops[] = {AMDDWARF_OP_neg, AMDDWARF_OP_not, AMDDWARF_OP_abs};

static void gen_value(builder *b, int depth);
static void gen_location(builder *b, int depth);

/* A shift count: small, past 31, past 63, or the lane's. */
static void gen_shift_count(builder *b)
{
  switch (pick(5)) {
  case 0:
    emit_lit(b, pick(32));
    break;
  case 1:
    emit(b, AMDDWARF_OP_const1u, 32 + pick(32), 0);
    break;
  case 2:
    emit(b, AMDDWARF_OP_const1u, 60 + pick(10), 0);
    break;
  case 3:
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    break;
  default:
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    emit(b, AMDDWARF_OP_plus_uconst, pick(2) ? 32 : 1 + pick(40), 0);
    break;
  }
}

static void gen_value(builder *b, int depth)
{
  uint32_t choice = pick(depth + b->shallow > 3 ? 4 : 20);
  switch (choice) {
  case 0:
    emit_lit(b, pick(32));
    break;
  case 1:
    switch (pick(6)) {
    case 0:
      emit(b, AMDDWARF_OP_constu, PICK_FROM(constants), 0);
      break;
    case 1:
      emit(b, AMDDWARF_OP_consts, (uint64_t)-(int64_t)pick(0x200), 0);
      break;
    case 2:
      emit(b, AMDDWARF_OP_const1s, (uint64_t)(int64_t)(int8_t)pick(256), 0);
      break;
    case 3:
      emit(b, AMDDWARF_OP_const2u, pick(0x10000), 0);
      break;
    case 4:
      emit(b, AMDDWARF_OP_const4u, PICK_FROM(constants) & 0xffffffffu, 0);
      break;
    default:
      emit(b, AMDDWARF_OP_const8u, PICK_FROM(constants), 0);
      break;
    }
    break;
  case 2:
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    break;
  case 3:
    emit(b, AMDDWARF_OP_bregx, SGPR0 + pick(pick(4) ? 8 : 12), pick(0x40));
    break;
  case 4:
  case 5:
  case 6:
    gen_value(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, PICK_FROM(binary_ops), 0, 0);
    break;
  case 7:
    gen_value(b, depth + 1);
    emit_lit(b, pick(9));
    emit(b, AMDDWARF_OP_mul, 0, 0);
    break;
  case 8:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_plus_uconst, pick(4) ? pick(0x80) : PICK_FROM(constants), 0);
    break;
  case 9:
  case 10:
    gen_value(b, depth + 1);
    gen_shift_count(b);
    emit(b, choice == 9 ? AMDDWARF_OP_shl : (pick(2) ? AMDDWARF_OP_shr : AMDDWARF_OP_shra), 0,
         0);
    break;
  case 11:
    gen_value(b, depth + 1);
    emit(b, PICK_FROM(unary_ops), 0, 0);
    break;
  case 12:
    emit(b, AMDDWARF_OP_bregx, b->exec, 0);
    break;
  case 13:
    /* A dereference of a lane's slot or of global memory, or of a
       location: a register's bytes near its end. */
    if (pick(3)) {
      gen_value(b, depth + 1);
    } else {
      emit(b, AMDDWARF_OP_regx, pick(2) ? b->vgpr0 + pick(5) : SGPR0 + pick(9), 0);
      emit(b, AMDDWARF_OP_LLVM_offset_uconst, PICK_FROM(((const uint64_t[]){0, 1, 4, 0x7c, 0xf8, 0xfc, 0x7d, 0xfd})), 0);
    }
    if (pick(2))
      emit(b, AMDDWARF_OP_deref_size, PICK_FROM(((const uint64_t[]){1, 2, 4, 8, 3})), 0);
    else
      emit(b, AMDDWARF_OP_deref, 0, 0);
    break;
  case 14:
    /* The stack operations on values. */
    gen_value(b, depth + 1);
    gen_value(b, depth + 1);
    switch (pick(6)) {
    case 0:
      emit(b, AMDDWARF_OP_swap, 0, 0);
      break;
    case 1:
      emit(b, AMDDWARF_OP_over, 0, 0);
      emit(b, AMDDWARF_OP_plus, 0, 0);
      break;
    case 2:
      emit(b, AMDDWARF_OP_pick, pick(3), 0);
      emit(b, AMDDWARF_OP_minus, 0, 0);
      break;
    case 3:
      emit(b, AMDDWARF_OP_dup, 0, 0);
      emit(b, AMDDWARF_OP_xor, 0, 0);
      break;
    case 4:
      gen_value(b, depth + 1);
      emit(b, AMDDWARF_OP_rot, 0, 0);
      emit(b, AMDDWARF_OP_drop, 0, 0);
      break;
    default:
      emit(b, AMDDWARF_OP_drop, 0, 0);
      break;
    }
    emit(b, pick(2) ? AMDDWARF_OP_plus : AMDDWARF_OP_minus, 0, 0);
    break;
  case 15:
    emit(b, (amddwarf_op_kind)(AMDDWARF_OP_breg0 + pick(32)), (uint64_t)(int64_t)pick(16), 0);
    break;
  case 16:
    emit(b, AMDDWARF_OP_addr, PICK_FROM(constants), 0);
    break;
  case 17:
    /* A lane-dependent product, and a lane-dependent branch. */
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_mul, 0, 0);
    break;
  default:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_nop, 0, 0);
    break;
  }
}

static const uint32_t aspaces[] = {0, 1, 2, 3, 5, 5, 5, 6, 6, 0x20, 0x27, 0x3f, 0x5f, 7, 4};

/* The lane's dword of the location on top. */
static void lane_dword(builder *b)
{
  emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
  emit_lit(b, 4);
  emit(b, AMDDWARF_OP_mul, 0, 0);
  emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
}

static void gen_location(builder *b, int depth)
{
  uint32_t choice = pick(depth + b->shallow > 3 ? 4 : 18);
  switch (choice) {
  case 0:
    emit(b, AMDDWARF_OP_regx, b->vgpr0 + pick(5), 0);
    if (pick(4))
      lane_dword(b);
    break;
  case 1:
    if (pick(2))
      emit(b, AMDDWARF_OP_regx, SGPR0 + pick(9), 0);
    else
      emit(b, (amddwarf_op_kind)(AMDDWARF_OP_reg0 + pick(32)), 0, 0);
    break;
  case 2:
    emit(b, AMDDWARF_OP_fbreg, pick(4) ? pick(0x40) : (uint64_t)-(int64_t)pick(0x100), 0);
    break;
  case 3:
    emit(b, pick(6) ? AMDDWARF_OP_LLVM_undefined : AMDDWARF_OP_call_frame_cfa, 0, 0);
    break;
  case 4:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_constu, PICK_FROM(aspaces), 0);
    emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    break;
  case 5:
    gen_location(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
    break;
  case 6:
    gen_location(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_offset_uconst, pick(4) ? pick(0x90) : PICK_FROM(constants), 0);
    break;
  case 7:
    /* A VGPR spilled to private_wave under a mask: the lane's dword. */
    emit(b, AMDDWARF_OP_regx, b->vgpr0 + pick(5), 0);
    if (pick(3)) {
      emit(b, AMDDWARF_OP_bregx, SGPR0 + pick(8), pick(2) ? 0x800 : 0);
      emit_lit(b, 6);
      emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    } else {
      gen_location(b, depth + 1);
    }
    if (pick(4))
      emit(b, AMDDWARF_OP_bregx, b->exec, 0);
    else
      gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_select_bit_piece, pick(8) ? 32 : 8 * pick(3),
         pick(8) ? PICK_FROM(((const uint64_t[]){32, 64})) : pick(80));
    if (pick(4))
      lane_dword(b);
    break;
  case 8:
    gen_value(b, depth + 1);
    break;
  case 9:
    /* Pieces of two lane dwords, or of anything. */
    emit(b, AMDDWARF_OP_regx, b->vgpr0 + pick(5), 0);
    lane_dword(b);
    emit(b, AMDDWARF_OP_piece, 4, 0);
    gen_location(b, depth + 1);
    if (pick(3))
      emit(b, AMDDWARF_OP_piece, pick(3) ? 4 : pick(9), 0);
    else
      emit(b, AMDDWARF_OP_bit_piece, 1 + pick(40), pick(3) ? 0 : pick(12));
    if (pick(2))
      emit(b, AMDDWARF_OP_LLVM_piece_end, 0, 0);
    break;
  case 10:
    /* A branch over a location, on a constant or on the lane, or a skip
       over an operation. */
    if (pick(3)) {
      gen_value(b, 4);
      size_t branch = b->count;
      emit(b, AMDDWARF_OP_bra, 0, 0);
      gen_location(b, depth + 1);
      if (branch < b->count)
        b->ops[branch].target = (uint32_t)b->count;
    } else {
      size_t branch = b->count;
      emit(b, AMDDWARF_OP_skip, 0, 0);
      emit(b, AMDDWARF_OP_LLVM_undefined, 0, 0);
      if (branch < b->count)
        b->ops[branch].target = (uint32_t)b->count;
      gen_location(b, depth + 1);
    }
    break;
  case 11:
    gen_location(b, depth + 1);
    gen_value(b, 4);
    emit(b, AMDDWARF_OP_LLVM_bit_offset, 0, 0);
    break;
  case 12:
    emit(b, AMDDWARF_OP_LLVM_aspace_bregx, SGPR0 + pick(8), pick(0x40));
    break;
  case 13:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_stack_value, 0, 0);
    break;
  case 14:
    /* A private_lane slot of a lane named by the lane: private_lane<N>. */
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_constu, 0x20 + pick(pick(2) ? 64 : 8), 0);
    emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    break;
  case 15:
    /* The lane scaled by a shift (past 31 now and then): a register's
       lane element, or a slot of memory. */
    if (pick(2))
      emit(b, AMDDWARF_OP_regx, b->vgpr0 + pick(5), 0);
    else
      emit(b, AMDDWARF_OP_fbreg, pick(0x20), 0);
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    emit(b, AMDDWARF_OP_const1u, pick(2) ? 2 : 32 + pick(32), 0);
    emit(b, AMDDWARF_OP_shl, 0, 0);
    emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
    break;
  case 16:
    /* To the end of the storage and back: a location may not leave its
       storage even on the way. */
    switch (pick(3)) {
    case 0:
      emit(b, AMDDWARF_OP_regx, b->vgpr0 + pick(5), 0);
      lane_dword(b);
      break;
    case 1:
      emit(b, AMDDWARF_OP_constu, pick(2) ? 0xfffffffcull : UINT64_MAX - 3, 0);
      emit(b, AMDDWARF_OP_constu, PICK_FROM(((const uint64_t[]){0, 3, 5, 6})), 0);
      emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
      break;
    default:
      gen_location(b, depth + 1);
      break;
    }
    emit(b, AMDDWARF_OP_LLVM_offset_uconst, PICK_FROM(((const uint64_t[]){4, 8, 0x100, 0x80, 0x4})), 0);
    emit(b, AMDDWARF_OP_consts, (uint64_t)-(int64_t)PICK_FROM(((const uint64_t[]){4, 8, 0x100, 0x80, 0x4})), 0);
    emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
    break;
  default:
    /* A generic (flat) address in an aperture. */
    emit(b, AMDDWARF_OP_constu, pick(2) ? 0x1000000000000ull : 0x2000000000000ull, 0);
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_plus, 0, 0);
    emit_lit(b, 1);
    emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    break;
  }
  /* Now and then a stack operation. */
  switch (pick(24)) {
  case 0:
    emit(b, AMDDWARF_OP_dup, 0, 0);
    emit(b, AMDDWARF_OP_drop, 0, 0);
    break;
  case 1:
    gen_value(b, 4);
    emit(b, AMDDWARF_OP_swap, 0, 0);
    emit(b, AMDDWARF_OP_drop, 0, 0);
    break;
  case 2:
    emit(b, AMDDWARF_OP_over, 0, 0);
    break;
  case 3:
    emit(b, AMDDWARF_OP_rot, 0, 0);
    break;
  case 4:
    emit(b, AMDDWARF_OP_pick, pick(3), 0);
    break;
  default:
    break;
  }
}

/* Any operation of the pool, with a random operand: ill-formed
   expressions, for the errors and their offsets. */
static void gen_noise(builder *b)
{
  static const amddwarf_op_kind pool[] = {
      AMDDWARF_OP_drop,      AMDDWARF_OP_swap,        AMDDWARF_OP_rot,
      AMDDWARF_OP_pick,      AMDDWARF_OP_over,        AMDDWARF_OP_dup,
      AMDDWARF_OP_plus,      AMDDWARF_OP_shl,         AMDDWARF_OP_div,
      AMDDWARF_OP_deref,     AMDDWARF_OP_piece,       AMDDWARF_OP_LLVM_offset,
      AMDDWARF_OP_LLVM_form_aspace_address,           AMDDWARF_OP_LLVM_push_lane,
      AMDDWARF_OP_stack_value, AMDDWARF_OP_LLVM_piece_end, AMDDWARF_OP_LLVM_select_bit_piece,
      AMDDWARF_OP_LLVM_undefined, AMDDWARF_OP_regx,   AMDDWARF_OP_fbreg,
      AMDDWARF_OP_push_object_address,                AMDDWARF_OP_plus_uconst,
      AMDDWARF_OP_LLVM_offset_uconst,                 AMDDWARF_OP_bit_piece};
  amddwarf_op_kind kind = PICK_FROM(pool);
  uint64_t a = pick(2) ? pick(0x80) : PICK_FROM(constants);
  if (kind == AMDDWARF_OP_regx)
    a = pick(2) ? b->vgpr0 + pick(6) : SGPR0 + pick(110);
  emit(b, kind, a, pick(2) ? 32 : pick(70));
}

static void gen_expression(builder *b)
{
  b->count = 0;
  if (pick(8) == 0) {
    unsigned n = 1 + pick(8);
    for (unsigned i = 0; i < n; i++) {
      if (pick(2))
        gen_noise(b);
      else
        gen_value(b, 3);
    }
  } else {
    gen_location(b, 0);
    if (pick(10) == 0 && b->count < MAX_OPS) {
      /* One operation slipped in somewhere. */
      size_t at = pick((uint32_t)b->count + 1);
      builder noise = {.count = 0, .vgpr0 = b->vgpr0, .exec = b->exec, .shallow = 0};
      gen_noise(&noise);
      memmove(&b->ops[at + 1], &b->ops[at], (b->count - at) * sizeof b->ops[0]);
      b->ops[at] = noise.ops[0];
      b->count++;
      for (size_t k = 0; k < b->count; k++)
        if (k != at && b->ops[k].target >= at &&
            (b->ops[k].kind == AMDDWARF_OP_bra || b->ops[k].kind == AMDDWARF_OP_skip))
          b->ops[k].target++;
    }
  }
  for (size_t k = 0; k < b->count; k++)
    if (b->ops[k].target > b->count)
      b->ops[k].target = (uint32_t)b->count;
}

/* ---- the comparisons ------------------------------------------------------ */

typedef struct evaluation_case {
  const uint8_t *bytes;
  size_t size;
  const amddwarf_op *ops;
  size_t count;
  amddwarf_eval_request request;
  uint64_t bit_offset, bit_size;
  bool answering;
} evaluation_case;

static void print_case(const evaluation_case *c, uint32_t lane, const char *what)
{
  char text[1024] = "";
  amddwarf_expr_print(c->ops, c->count, &c->request.format, AMDDWARF_PRINT_ASM_REGISTERS, text,
                      sizeof text, NULL);
  print_error("%s: lane %u of wave%u, %u-byte addresses, %s target, bits %llu at %llu:\n  %s\n",
              what, lane, c->request.wave_size ? c->request.wave_size : 0,
              c->request.format.address_size, c->answering ? "answering" : "refusing",
              (unsigned long long)c->bit_size, (unsigned long long)c->bit_offset, text);
}

static void expect_same_status(const evaluation_case *c, uint32_t lane, const char *what,
                               amddwarf_status got, const amddwarf_error *got_err,
                               amddwarf_status want, const amddwarf_error *want_err)
{
  if (got == want && (got == AMDDWARF_OK || got_err->offset == want_err->offset))
    return;
  print_case(c, lane, what);
  print_error("  status %d at offset %lld (%s), the reference %d at offset %lld (%s)\n", got,
              got == AMDDWARF_OK ? -1ll : (long long)got_err->offset,
              got == AMDDWARF_OK ? "" : got_err->message, want,
              want == AMDDWARF_OK ? -1ll : (long long)want_err->offset,
              want == AMDDWARF_OK ? "" : want_err->message);
  fail();
}

typedef struct lane_answer {
  amddwarf_status status;
  uint8_t bytes[STRIDE];
} lane_answer;

/* One lane: the location of amddwarf_eval_expr and amddwarf_eval_ops, the
   read of amddwarf_eval_read, each against the reference's. Returns the
   reference's read. */
static lane_answer compare_one_lane(fixture *f, evaluation_case *c, uint32_t lane)
{
  amddwarf_entry got, want;
  amddwarf_error got_err, want_err;
  lane_answer answer;
  c->request.lane = lane;

  amddwarf_status want_st =
      reference_amddwarf_eval_expr(f->reference, &c->request, c->bytes, c->size, &want, &want_err);
  amddwarf_status got_st = amddwarf_eval_expr(f->live, &c->request, c->bytes, c->size, &got,
                                              &got_err);
  expect_same_status(c, lane, "amddwarf_eval_expr", got_st, &got_err, want_st, &want_err);
  if (got_st == AMDDWARF_OK && !reference_same_location(&got.location, &want.location)) {
    print_case(c, lane, "amddwarf_eval_expr: another location");
    fail();
  }
  got_st = amddwarf_eval_ops(f->live, &c->request, c->ops, c->count, &got, &got_err);
  expect_same_status(c, lane, "amddwarf_eval_ops", got_st, &got_err, want_st, &want_err);
  if (got_st == AMDDWARF_OK && !reference_same_location(&got.location, &want.location)) {
    print_case(c, lane, "amddwarf_eval_ops: another location");
    fail();
  }

  uint8_t got_bytes[STRIDE];
  memset(answer.bytes, 0, sizeof answer.bytes);
  memset(got_bytes, 0, sizeof got_bytes);
  answer.status = reference_amddwarf_eval_read(f->reference, &c->request, c->bytes, c->size,
                                               c->bit_offset, c->bit_size, answer.bytes,
                                               &want_err);
  got_st = amddwarf_eval_read(f->live, &c->request, c->bytes, c->size, c->bit_offset, c->bit_size,
                              got_bytes, &got_err);
  expect_same_status(c, lane, "amddwarf_eval_read", got_st, &got_err, answer.status, &want_err);
  if (answer.status != AMDDWARF_OK)
    memset(answer.bytes, 0, sizeof answer.bytes);
  else if (memcmp(got_bytes, answer.bytes, (size_t)((c->bit_size + 7) / 8)) != 0) {
    print_case(c, lane, "amddwarf_eval_read: other bytes");
    fail();
  }
  return answer;
}

static const uint64_t bit_sizes[] = {32, 32, 32, 64, 8, 16, 128, 5, 40, 24, 33, 192};
static const uint64_t bit_offsets[] = {0, 0, 0, 0, 8, 32, 3, 24};

static void run_case(fixture *f, uint64_t *compared, uint64_t *batched)
{
  builder b;
  uint8_t bytes[512];
  evaluation_case c;
  memset(&c, 0, sizeof c);
  int wave = (int)pick(2);
  uint32_t wave_size = wave ? 64 : 32;
  b.vgpr0 = wave ? VGPR0_WAVE64 : VGPR0_WAVE32;
  b.exec = wave ? EXEC_WAVE64 : EXEC_WAVE32;
  b.shallow = pick(2) ? 2 : (int)pick(2);
  gen_expression(&b);
  c.answering = pick(2);
  amddwarf_eval_request_init(&c.request,
                             c.answering ? &f->answering_target[wave] : &f->refusing_target[wave]);
  c.request.format.dialect = AMDDWARF_DIALECT_USER;
  c.request.format.address_size = pick(2) ? 8 : 4;
  c.request.wave_size = pick(4) ? wave_size : 0;
  if (amddwarf_expr_encode(b.ops, b.count, &c.request.format, bytes, sizeof bytes, &c.size, NULL) !=
      AMDDWARF_OK)
    return;
  amddwarf_op ops[MAX_OPS];
  if (amddwarf_expr_decode(bytes, c.size, &c.request.format, ops, MAX_OPS, &c.count, NULL) !=
      AMDDWARF_OK)
    return;
  c.bytes = bytes;
  c.ops = ops;
  c.bit_size = PICK_FROM(bit_sizes);
  c.bit_offset = PICK_FROM(bit_offsets);

  uint64_t exec = pick(2) ? next_random() : UINT64_MAX >> pick(64);
  if (wave_size == 32)
    exec &= 0xffffffffu;
  f->answering[wave].exec = exec;
  uint8_t exec_bytes[8];
  for (int i = 0; i < 8; i++)
    exec_bytes[i] = (uint8_t)(exec >> (8 * i));
  assert_int_equal(f->refusing_target[wave].write_register(f->refusing_target[wave].user, b.exec,
                                                           0, wave_size / 8, exec_bytes),
                   AMDDWARF_OK);

  /* Lanes up to the wave size, now and then past it. */
  uint64_t lanes = pick(3) ? UINT64_MAX : next_random();
  if (wave_size == 32 && pick(8))
    lanes &= 0xffffffffu;

  lane_answer answers[AMDDWARF_EVAL_MAX_LANES];
  for (uint32_t lane = 0; lane < AMDDWARF_EVAL_MAX_LANES; lane++)
    if (lanes >> lane & 1)
      answers[lane] = compare_one_lane(f, &c, lane);

  uint8_t values[AMDDWARF_EVAL_MAX_LANES][STRIDE];
  amddwarf_status statuses[AMDDWARF_EVAL_MAX_LANES];
  uint64_t got_batched = 0;
  memset(values, 0xa5, sizeof values);
  c.request.lane = AMDDWARF_NO_LANE;
  assert_int_equal(amddwarf_eval_read_lanes(f->lanes, &c.request, c.bytes, c.size, lanes,
                                            c.bit_offset, c.bit_size, values, STRIDE, statuses,
                                            &got_batched, NULL),
                   AMDDWARF_OK);
  assert_int_equal(got_batched & ~lanes, 0);
  size_t n = (size_t)((c.bit_size + 7) / 8);
  for (uint32_t lane = 0; lane < AMDDWARF_EVAL_MAX_LANES; lane++) {
    if (!(lanes >> lane & 1))
      continue;
    if (statuses[lane] != answers[lane].status || memcmp(values[lane], answers[lane].bytes, n)) {
      print_case(&c, lane, "amddwarf_eval_read_lanes");
      print_error("  status %d%s, the reference %d (lane %sbatched)\n", statuses[lane],
                  statuses[lane] == answers[lane].status ? " (other bytes)" : "",
                  answers[lane].status, got_batched >> lane & 1 ? "" : "not ");
      fail();
    }
  }
  /* The whole-wave evaluator takes 8-byte addresses only (the others go
     lane by lane): the share of lanes it took is counted there. */
  if (c.request.format.address_size == 8) {
    *compared += (uint64_t)__builtin_popcountll(lanes);
    *batched += (uint64_t)__builtin_popcountll(got_batched);
  }
}

static void test_random_expressions(void **state)
{
  fixture *f = *state;
  uint64_t compared = 0, batched = 0;
  for (int i = 0; i < CASES; i++)
    run_case(f, &compared, &batched);
  /* The whole-wave path is taken for a good part of the lanes, not only
     its lane-by-lane fallback. */
  print_message("%llu of %llu lanes batched\n", (unsigned long long)batched,
                (unsigned long long)compared);
  assert_true(batched * 10 > compared);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_expressions),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
