/* The whole-wave evaluator (amddwarf_eval_read_lanes): every lane's value
 * and status equal those of the one-lane evaluation and read, over random
 * well-formed and ill-formed expressions (registers, address spaces, frame
 * base, pieces, push_lane, select_bit_piece, branches) and random lane
 * masks and EXEC; and the locations of a stopped GPU are read for all lanes
 * by the batched path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

#include "one_lane.h"

enum {
  LANES = 64,
  REG_EXEC = 17,
  SGPR0 = 32,
  VGPR0 = 2560,
  STRIDE = 16,
  CASES = 3000,
};

typedef struct fixture {
  amddwarf_snapshot *snapshot;
  amddwarf_target target;
  amddwarf_eval *batch, *single;
  amddwarf_expr_format format;
} fixture;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

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

/* ---- the wave ------------------------------------------------------------ */

static const uint64_t scalars[8] = {0x10, 0x40, 0x100, 0x800, 0x1000, 0x8000, 3, 0xfffffff0};

static void append(char **p, const char *end, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  int n = vsnprintf(*p, (size_t)(end - *p), format, args);
  va_end(args);
  assert_true(n >= 0 && n < end - *p);
  *p += n;
}

/* s0-s7, v0-v3 (v4 is not in the snapshot: unavailable), private_lane
   bytes 0-0x1ff of every lane but those with lane % 7 == 3, global
   0x0-0x1fff, local 0x0-0x3ff; the frame base is private_lane s4 / 64. */
static char *wave_json(void)
{
  size_t size = 1 << 20;
  char *json = malloc(size), *p = json, *end = json + size;
  assert_non_null(json);
  append(&p, end, "{\"wave_size\": 64, \"exec\": \"0xffffffffffffffff\", \"dialect\": \"user\", "
                  "\"frame_base\": \"DW_OP_bregx s4 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; "
                  "DW_OP_LLVM_form_aspace_address\", \"registers\": {");
  for (int s = 0; s < 8; s++)
    append(&p, end, "\"s%d\": %llu, ", s, (unsigned long long)scalars[s]);
  for (int v = 0; v < 4; v++) {
    append(&p, end, "%s\"v%d\": [", v ? ", " : "", v);
    for (int lane = 0; lane < LANES; lane++)
      append(&p, end, "%s%u", lane ? ", " : "", (unsigned)(next_random() & 0xffffffffu));
    append(&p, end, "]");
  }
  append(&p, end, "}, \"memory\": [");
  for (int lane = 0; lane < LANES; lane++) {
    if (lane % 7 == 3)
      continue;
    append(&p, end, "{\"address_space\": \"private_lane\", \"lane\": %d, \"address\": 0, "
                    "\"bytes\": \"",
           lane);
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
  return json;
}

static int setup(void **state)
{
  /* AMDDWARF_TEST_SEED runs other expressions than the default. */
  const char *seed = getenv("AMDDWARF_TEST_SEED");
  if (seed != NULL && strtoull(seed, NULL, 0) != 0)
    rng_state = strtoull(seed, NULL, 0);
  fixture *f = calloc(1, sizeof *f);
  char *json = wave_json();
  amddwarf_error err;
  assert_int_equal(amddwarf_snapshot_load(json, strlen(json), NULL, &f->snapshot, &err),
                   AMDDWARF_OK);
  free(json);
  amddwarf_snapshot_target(f->snapshot, &f->target);
  assert_int_equal(amddwarf_eval_new(NULL, &f->batch, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_eval_new(NULL, &f->single, NULL), AMDDWARF_OK);
  amddwarf_expr_format_init(&f->format);
  f->format.dialect = AMDDWARF_DIALECT_USER;
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fixture *f = *state;
  amddwarf_eval_free(f->batch);
  amddwarf_eval_free(f->single);
  amddwarf_snapshot_free(f->snapshot);
  free(f);
  return 0;
}

static void set_exec(fixture *f, uint64_t exec)
{
  uint8_t bytes[8];
  for (int i = 0; i < 8; i++)
    bytes[i] = (uint8_t)(exec >> (8 * i));
  assert_int_equal(f->target.write_register(f->target.user, REG_EXEC, 0, 8, bytes), AMDDWARF_OK);
}

/* Reads BYTES for LANES both ways and checks every lane alike; returns the
   lanes the batched path gave. */
static uint64_t compare_lanes(fixture *f, const uint8_t *bytes, size_t size, uint64_t lanes,
                              uint64_t bit_offset, uint64_t bit_size)
{
  amddwarf_eval_request req;
  uint8_t values[LANES][STRIDE], expected[STRIDE];
  amddwarf_status statuses[LANES];
  uint64_t batched = 0;
  amddwarf_eval_request_init(&req, &f->target);
  req.format = f->format;
  memset(values, 0xa5, sizeof values);
  assert_int_equal(amddwarf_eval_read_lanes(f->batch, &req, bytes, size, lanes, bit_offset,
                                            bit_size, values, STRIDE, statuses, &batched, NULL),
                   AMDDWARF_OK);
  assert_int_equal(batched & ~lanes, 0);
  size_t n = (size_t)((bit_size + 7) / 8);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    if (!(lanes >> lane & 1))
      continue;
    amddwarf_status st = one_lane_read(f->single, &req, lane, bytes, size, bit_offset, bit_size,
                                       expected, sizeof expected);
    if (statuses[lane] != st || memcmp(values[lane], expected, n) != 0) {
      char text[512] = "";
      amddwarf_op ops[64];
      size_t count = 0;
      amddwarf_expr_decode(bytes, size, &f->format, ops, 64, &count, NULL);
      amddwarf_expr_print(ops, count, &f->format, AMDDWARF_PRINT_ASM_REGISTERS, text,
                          sizeof text, NULL);
      print_error("lane %u of %s (bits %llu at %llu): status %d, expected %d%s\n", lane, text,
                  (unsigned long long)bit_size, (unsigned long long)bit_offset, statuses[lane],
                  st, statuses[lane] == st ? " (bytes differ)" : "");
      fail();
    }
  }
  return batched;
}

/* ---- random expressions ------------------------------------------------ */

typedef struct builder {
  amddwarf_op ops[48];
  size_t count;
} builder;

static void emit(builder *b, amddwarf_op_kind kind, uint64_t a, uint64_t c)
{
  if (b->count >= sizeof b->ops / sizeof b->ops[0])
    return;
  amddwarf_op *op = &b->ops[b->count++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->operands[0] = a;
  op->operands[1] = c;
}

static void gen_value(builder *b, int depth);
static void gen_location(builder *b, int depth);

static const uint64_t constants[] = {0, 1, 4, 8, 0x20, 0x100, 0x1000, 0x1ff0, 0xfffffffcull,
                                     UINT64_MAX - 3};

static void gen_value(builder *b, int depth)
{
  uint32_t choice = pick(depth > 3 ? 3 : 13);
  switch (choice) {
  case 0:
    emit(b, (amddwarf_op_kind)(AMDDWARF_OP_lit0 + pick(32)), 0, 0);
    break;
  case 1:
    emit(b, AMDDWARF_OP_constu, constants[pick(sizeof constants / sizeof constants[0])], 0);
    break;
  case 2:
    emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
    break;
  case 3:
  case 4:
    gen_value(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, choice == 3 ? AMDDWARF_OP_plus : AMDDWARF_OP_minus, 0, 0);
    break;
  case 5:
    gen_value(b, depth + 1);
    emit(b, (amddwarf_op_kind)(AMDDWARF_OP_lit0 + pick(9)), 0, 0);
    emit(b, AMDDWARF_OP_mul, 0, 0);
    break;
  case 6:
    gen_value(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_mul, 0, 0);
    break;
  case 7:
    emit(b, AMDDWARF_OP_bregx, SGPR0 + pick(pick(4) ? 8 : 12), pick(0x40));
    break;
  case 8:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_plus_uconst, pick(0x80), 0);
    break;
  case 9:
  case 10:
    gen_value(b, depth + 1);
    if (pick(8))
      emit(b, (amddwarf_op_kind)(AMDDWARF_OP_lit0 + pick(8)), 0, 0);
    else
      emit(b, AMDDWARF_OP_constu, 60 + pick(10), 0);
    emit(b, choice == 9 ? AMDDWARF_OP_shl : AMDDWARF_OP_shr, 0, 0);
    break;
  case 11:
    gen_value(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, pick(2) ? AMDDWARF_OP_and : AMDDWARF_OP_lt, 0, 0);
    break;
  default:
    emit(b, AMDDWARF_OP_bregx, REG_EXEC, 0);
    break;
  }
}

static const uint32_t aspaces[] = {0, 1, 3, 5, 5, 5, 6, 6, 0x20, 0x27, 0x5f, 2};

/* The lane's dword of the location on top. */
static void lane_dword(builder *b)
{
  emit(b, AMDDWARF_OP_LLVM_push_lane, 0, 0);
  emit(b, AMDDWARF_OP_lit4, 0, 0);
  emit(b, AMDDWARF_OP_mul, 0, 0);
  emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
}

static void gen_location(builder *b, int depth)
{
  uint32_t choice = pick(depth > 3 ? 4 : 11);
  switch (choice) {
  case 0:
    emit(b, AMDDWARF_OP_regx, VGPR0 + pick(5), 0);
    if (pick(4))
      lane_dword(b);
    break;
  case 1:
    emit(b, AMDDWARF_OP_regx, SGPR0 + pick(9), 0);
    break;
  case 2:
    emit(b, AMDDWARF_OP_fbreg, pick(4) ? pick(0x40) : (uint64_t)-(int64_t)pick(0x100), 0);
    break;
  case 3:
    emit(b, AMDDWARF_OP_LLVM_undefined, 0, 0);
    break;
  case 4:
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_constu, aspaces[pick(sizeof aspaces / sizeof aspaces[0])], 0);
    emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    break;
  case 5:
    gen_location(b, depth + 1);
    gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_offset, 0, 0);
    break;
  case 6:
    gen_location(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_offset_uconst, pick(0x90), 0);
    break;
  case 7:
    /* A VGPR spilled to private_wave under a mask: the lane's dword. */
    emit(b, AMDDWARF_OP_regx, VGPR0 + pick(5), 0);
    if (pick(3)) {
      emit(b, AMDDWARF_OP_bregx, SGPR0 + pick(8), pick(2) ? 0x800 : 0);
      emit(b, AMDDWARF_OP_lit6, 0, 0);
      emit(b, AMDDWARF_OP_LLVM_form_aspace_address, 0, 0);
    } else {
      gen_location(b, depth + 1);
    }
    if (pick(4))
      emit(b, AMDDWARF_OP_bregx, REG_EXEC, 0);
    else
      gen_value(b, depth + 1);
    emit(b, AMDDWARF_OP_LLVM_select_bit_piece, pick(8) ? 32 : 8 * pick(3), pick(8) ? 64 : pick(80));
    if (pick(4))
      lane_dword(b);
    break;
  case 8:
    gen_value(b, depth + 1);
    break;
  case 9:
    /* Pieces of two lane dwords. */
    emit(b, AMDDWARF_OP_regx, VGPR0 + pick(5), 0);
    lane_dword(b);
    emit(b, AMDDWARF_OP_piece, 4, 0);
    gen_location(b, depth + 1);
    emit(b, AMDDWARF_OP_piece, pick(3) ? 4 : pick(9), 0);
    if (pick(2))
      emit(b, AMDDWARF_OP_LLVM_piece_end, 0, 0);
    break;
  default:
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
  default:
    break;
  }
}

static void test_random_expressions(void **state)
{
  fixture *f = *state;
  static const uint64_t bit_sizes[] = {32, 32, 32, 64, 8, 16, 128, 5};
  static const uint64_t bit_offsets[] = {0, 0, 0, 0, 8, 32, 3};
  uint64_t compared = 0, batched = 0;
  for (int i = 0; i < CASES; i++) {
    builder b;
    uint8_t bytes[512];
    size_t size = 0;
    b.count = 0;
    gen_location(&b, 0);
    for (size_t k = 0; k < b.count; k++)
      if (b.ops[k].target > b.count)
        b.ops[k].target = (uint32_t)b.count;
    if (amddwarf_expr_encode(b.ops, b.count, &f->format, bytes, sizeof bytes, &size, NULL) !=
        AMDDWARF_OK)
      continue;
    uint64_t lanes = pick(3) ? UINT64_MAX : next_random();
    set_exec(f, pick(2) ? next_random() : UINT64_MAX >> pick(64));
    uint64_t bit_size = bit_sizes[pick(sizeof bit_sizes / sizeof bit_sizes[0])];
    uint64_t bit_offset = bit_offsets[pick(sizeof bit_offsets / sizeof bit_offsets[0])];
    uint64_t got = compare_lanes(f, bytes, size, lanes, bit_offset, bit_size);
    compared += (uint64_t)__builtin_popcountll(lanes);
    batched += (uint64_t)__builtin_popcountll(got);
  }
  /* The batched path is taken for a good part of the lanes, not only the
     one-lane fallback. */
  print_message("%llu of %llu lanes batched\n", (unsigned long long)batched,
                (unsigned long long)compared);
  assert_true(batched * 5 > compared);
}

/* ---- the locations of a stopped GPU ------------------------------------- */

static uint64_t read_all(fixture *f, const char *text, uint64_t bit_size,
                         uint8_t values[LANES][STRIDE], amddwarf_status statuses[LANES])
{
  uint8_t bytes[128];
  size_t size = 0;
  amddwarf_eval_request req;
  uint64_t batched = 0;
  assert_int_equal(amddwarf_expr_assemble(text, &f->format, 64, bytes, sizeof bytes, &size, NULL),
                   AMDDWARF_OK);
  amddwarf_eval_request_init(&req, &f->target);
  req.format = f->format;
  assert_int_equal(amddwarf_eval_read_lanes(f->batch, &req, bytes, size, UINT64_MAX, 0, bit_size,
                                            values, STRIDE, statuses, &batched, NULL),
                   AMDDWARF_OK);
  compare_lanes(f, bytes, size, UINT64_MAX, 0, bit_size);
  return batched;
}

static uint32_t vgpr_lane(fixture *f, uint32_t v, uint32_t lane)
{
  uint8_t b[4];
  assert_int_equal(f->target.read_register(f->target.user, VGPR0 + v, 4 * lane, 4, b),
                   AMDDWARF_OK);
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t private_lane(fixture *f, uint32_t lane, uint64_t address)
{
  uint8_t b[4];
  assert_int_equal(f->target.read_memory(f->target.user, 5, lane, address, 4, b), AMDDWARF_OK);
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t le32(const uint8_t *b)
{
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void test_gpu_stop_locations(void **state)
{
  fixture *f = *state;
  uint8_t values[LANES][STRIDE];
  amddwarf_status statuses[LANES];
  const uint64_t exec = 0x00ff00ff0f0f3333ull;
  set_exec(f, exec);

  /* A VGPR's lane: one register read. */
  assert_int_equal(read_all(f, "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; "
                               "DW_OP_LLVM_offset", 32, values, statuses),
                   UINT64_MAX);
  for (uint32_t lane = 0; lane < LANES; lane++)
    assert_int_equal(le32(values[lane]), vgpr_lane(f, 1, lane));

  /* Two lanes' dwords in pieces. */
  assert_int_equal(read_all(f, "DW_OP_regx v2; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; "
                               "DW_OP_LLVM_offset; DW_OP_piece 4; DW_OP_regx v3; "
                               "DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset; "
                               "DW_OP_piece 4", 64, values, statuses),
                   UINT64_MAX);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    assert_int_equal(le32(values[lane]), vgpr_lane(f, 2, lane));
    assert_int_equal(le32(values[lane] + 4), vgpr_lane(f, 3, lane));
  }

  /* A private_lane slot of the frame: the lanes without scratch are
     unavailable, the others read from private_wave rows. */
  uint64_t got = read_all(f, "DW_OP_fbreg 16", 32, values, statuses);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    if (lane % 7 == 3) {
      assert_int_equal(statuses[lane], AMDDWARF_E_EVAL_UNAVAILABLE);
      assert_false(got >> lane & 1);
    } else {
      assert_int_equal(statuses[lane], AMDDWARF_OK);
      assert_int_equal(le32(values[lane]), private_lane(f, lane, 0x1000 / 64 + 16));
    }
  }

  /* v0 spilled to private_wave s4 + 0x800 for the lanes of EXEC: the
     composite built once, the row read once. */
  got = read_all(f, "DW_OP_regx v0; DW_OP_bregx s4 0x800; DW_OP_lit6; "
                    "DW_OP_LLVM_form_aspace_address; DW_OP_bregx exec 0; "
                    "DW_OP_LLVM_select_bit_piece 32 64; DW_OP_LLVM_push_lane; DW_OP_lit4; "
                    "DW_OP_mul; DW_OP_LLVM_offset",
                 32, values, statuses);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    if (lane % 7 == 3 && (exec >> lane & 1))
      continue; /* no scratch: unavailable, as compare_lanes checked */
    uint32_t want = (exec >> lane & 1) ? private_lane(f, lane, 0x1800 / 64) : vgpr_lane(f, 0, lane);
    assert_int_equal(statuses[lane], AMDDWARF_OK);
    assert_true(got >> lane & 1);
    assert_int_equal(le32(values[lane]), want);
  }
}

static void test_bad_arguments(void **state)
{
  fixture *f = *state;
  amddwarf_eval_request req;
  uint8_t values[LANES][STRIDE];
  amddwarf_status statuses[LANES];
  amddwarf_error err;
  const uint8_t expr[] = {0x50}; /* DW_OP_reg0 */
  amddwarf_eval_request_init(&req, &f->target);
  assert_int_equal(amddwarf_eval_read_lanes(f->batch, &req, expr, 1, 1, 0, 256, values, STRIDE,
                                            statuses, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "stride"));
  req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(amddwarf_eval_read_lanes(f->batch, &req, expr, 1, 1, 0, 32, values, STRIDE,
                                            statuses, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_eval_read_lanes(f->batch, &req, expr, 1, 1, 0, 32, NULL, STRIDE,
                                            statuses, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

/* The snapshot's private_wave view, which the batched reads use: a read
   that starts inside a dword and crosses rows gives, byte by byte, lane
   (A % 256) / 4's private_lane byte (A / 256) * 4 + A % 4 (wave64). */
static void test_private_wave_rows(void **state)
{
  (void)state;
  char json[8192], *p = json, *end = json + sizeof json;
  append(&p, end, "{\"wave_size\": 64, \"memory\": [");
  for (int lane = 0; lane < LANES; lane++) {
    append(&p, end, "%s{\"address_space\": \"private_lane\", \"lane\": %d, \"address\": 0, "
                    "\"bytes\": \"",
           lane ? ", " : "", lane);
    for (int i = 0; i < 16; i++)
      append(&p, end, "%02x", (lane * 16 + i) & 0xff);
    append(&p, end, "\"}");
  }
  append(&p, end, "]}");
  amddwarf_snapshot *snapshot;
  amddwarf_target target;
  assert_int_equal(amddwarf_snapshot_load(json, strlen(json), NULL, &snapshot, NULL), AMDDWARF_OK);
  amddwarf_snapshot_target(snapshot, &target);
  uint8_t bytes[1024];
  const uint64_t first = 2, count = 4 * 256 - 2 - 3;
  assert_int_equal(target.read_memory(target.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE,
                                      AMDDWARF_NO_LANE, first, count, bytes),
                   AMDDWARF_OK);
  for (uint64_t i = 0; i < count; i++) {
    uint64_t a = first + i;
    assert_int_equal(bytes[i], ((a % 256) / 4 * 16 + (a / 256) * 4 + a % 4) & 0xff);
  }
  /* Past the lanes' 16 bytes (row 4): unavailable. */
  assert_int_equal(target.read_memory(target.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE,
                                      AMDDWARF_NO_LANE, 4 * 256 - 8, 16, bytes),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  amddwarf_snapshot_free(snapshot);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_expressions),
      cmocka_unit_test(test_gpu_stop_locations),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_private_wave_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
