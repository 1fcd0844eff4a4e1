/* The one-lane fast path against the general machine: random expressions of
 * the operations the fast path knows (and some it declines), each evaluated
 * by both, must give the same location (or, through amddwarf_eval_expr, the
 * same error). Also: a successful evaluation or read leaves *err untouched
 * (status.h), and select_bit_piece's runs of equal mask bits give the
 * composite that part-by-part appends give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"
#include "expr/eval_internal.h"

static const char WAVE[] =
    "{\"architecture\": \"gfx90a\", \"lane\": 3, \"exec\": \"0xff00ff\","
    " \"registers\": {\"s8\": \"0x40\", \"s9\": \"0x1008\", \"s33\": \"0x20\", \"s34\": \"0xfffffffc\","
    "   \"v1\": [0, 1, 2, 3, 4, 5, 6, 7], \"v2\": [\"0x10\", \"0x11\", \"0x12\", \"0x13\"]},"
    " \"memory\": [{\"address_space\": \"global\", \"address\": \"0x1000\","
    "     \"bytes\": \"000102030405060708090a0b0c0d0e0f1011121314151617\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 0, \"address\": \"0x20\", \"bytes\": \"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 1, \"address\": \"0x20\", \"bytes\": \"b0b1b2b3b4b5b6b7b8b9babbbcbdbebf\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x20\", \"bytes\": \"d0d1d2d3d4d5d6d7d8d9dadbdcdddedf\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x30\", \"bytes\": \"e0e1e2e3\"},"
    "   {\"address_space\": \"local\", \"address\": \"0x10\", \"bytes\": \"c0c1c2c3c4c5c6c7\"}],"
    " \"frame_base\": \"DW_OP_regx s33; DW_OP_deref_size 4; DW_OP_lit5; DW_OP_LLVM_form_aspace_address\"}";

/* Operations to draw from: those of the fast path, with operands that land
   inside and outside the storage of the wave above, and a few it declines. */
static const char *const OPS[] = {
    "DW_OP_lit0", "DW_OP_lit1", "DW_OP_lit3", "DW_OP_lit4", "DW_OP_lit5", "DW_OP_lit6",
    "DW_OP_lit31", "DW_OP_constu 0x1000", "DW_OP_constu 0x20", "DW_OP_consts -4",
    "DW_OP_const8u 0xffffffffffffffff", "DW_OP_const1s -1", "DW_OP_regx s8", "DW_OP_regx v1",
    "DW_OP_regx v2", "DW_OP_reg5", "DW_OP_regx 99999", "DW_OP_bregx s33 4", "DW_OP_bregx s9 -8",
    "DW_OP_bregx s34 8", "DW_OP_breg3 0", "DW_OP_fbreg 8", "DW_OP_fbreg -4", "DW_OP_fbreg 12",
    "DW_OP_LLVM_push_lane", "DW_OP_plus", "DW_OP_minus", "DW_OP_mul", "DW_OP_and", "DW_OP_or",
    "DW_OP_xor", "DW_OP_shl", "DW_OP_shr", "DW_OP_eq", "DW_OP_ne", "DW_OP_plus_uconst 4",
    "DW_OP_LLVM_offset", "DW_OP_LLVM_offset_uconst 4", "DW_OP_LLVM_offset_uconst 0x7fffffffffffffff",
    "DW_OP_LLVM_form_aspace_address", "DW_OP_deref_size 4", "DW_OP_deref_size 2",
    "DW_OP_deref_size 8", "DW_OP_deref", "DW_OP_piece 4", "DW_OP_piece 2", "DW_OP_bit_piece 32 0",
    "DW_OP_dup", "DW_OP_drop", "DW_OP_swap", "DW_OP_over", "DW_OP_addr 0x1004", "DW_OP_nop",
    "DW_OP_LLVM_aspace_bregx s33 8", "DW_OP_LLVM_select_bit_piece 32 4",
    "DW_OP_LLVM_select_bit_piece 8 8", "DW_OP_LLVM_select_bit_piece 32 64",
    "DW_OP_LLVM_select_bit_piece 4 8", "DW_OP_LLVM_select_bit_piece 0x4000000000000000 4",
    /* declined */
    "DW_OP_neg", "DW_OP_div", "DW_OP_stack_value", "DW_OP_bit_piece 8 4", "DW_OP_LLVM_bit_offset",
    "DW_OP_LLVM_undefined", "DW_OP_rot"};
enum { OP_COUNT = sizeof OPS / sizeof OPS[0], SAMPLES = 20000 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(uint32_t below)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % below);
}

static void random_expression(char *text, size_t capacity)
{
  size_t length = 0;
  unsigned count = 1 + rng(8);
  text[0] = '\0';
  for (unsigned i = 0; i < count; i++)
    length += (size_t)snprintf(text + length, capacity - length, "%s%s", i ? "; " : "",
                               OPS[rng(OP_COUNT)]);
}

/* Locations of the wave above (inside and past their storage), for
   expressions that are mostly valid: one of them, or a piece list of them. */
static const char *const LOCATIONS[] = {
    "DW_OP_regx s8", "DW_OP_regx s9", "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; "
    "DW_OP_mul; DW_OP_LLVM_offset", "DW_OP_regx v2; DW_OP_LLVM_offset_uconst 4",
    "DW_OP_regx v1; DW_OP_LLVM_offset_uconst 30", "DW_OP_fbreg 8", "DW_OP_fbreg 12",
    "DW_OP_addr 0x1004", "DW_OP_constu 0x1010", "DW_OP_lit16; DW_OP_lit3; "
    "DW_OP_LLVM_form_aspace_address", "DW_OP_constu 0x20; DW_OP_lit5; "
    "DW_OP_LLVM_form_aspace_address", "DW_OP_bregx s33 0; DW_OP_lit5; "
    "DW_OP_LLVM_form_aspace_address", "DW_OP_bregx s9 -8", "DW_OP_regx 99999",
    "DW_OP_regx v1; DW_OP_regx v2; DW_OP_lit5; DW_OP_LLVM_select_bit_piece 32 4"};
enum { LOCATION_COUNT = sizeof LOCATIONS / sizeof LOCATIONS[0] };

static void random_location(char *text, size_t capacity)
{
  static const char *const pieces[] = {"DW_OP_piece 4", "DW_OP_piece 2", "DW_OP_piece 8",
                                       "DW_OP_piece 1", "DW_OP_bit_piece 32 0"};
  unsigned count = rng(4);
  size_t length = 0;
  text[0] = '\0';
  if (count == 0) {
    snprintf(text, capacity, "%s", LOCATIONS[rng(LOCATION_COUNT)]);
    return;
  }
  for (unsigned i = 0; i < count; i++)
    length += (size_t)snprintf(text + length, capacity - length, "%s%s; %s", i ? "; " : "",
                               rng(8) ? LOCATIONS[rng(LOCATION_COUNT)] : "DW_OP_nop",
                               pieces[rng(5)]);
}

static void assert_same_location(const amddwarf_location *a, const amddwarf_location *b)
{
  assert_int_equal(a->kind, b->kind);
  assert_int_equal(a->bit, b->bit);
  assert_int_equal(a->byte_offset, b->byte_offset);
  switch (a->kind) {
  case AMDDWARF_LOCATION_MEMORY:
    assert_int_equal(a->u.memory.aspace, b->u.memory.aspace);
    break;
  case AMDDWARF_LOCATION_REGISTER:
    assert_int_equal(a->u.reg.regno, b->u.reg.regno);
    break;
  case AMDDWARF_LOCATION_COMPOSITE:
    assert_int_equal(a->u.composite.bit_size, b->u.composite.bit_size);
    assert_int_equal(a->u.composite.count, b->u.composite.count);
    for (uint32_t i = 0; i < a->u.composite.count; i++) {
      assert_int_equal(a->u.composite.parts[i].bit_size, b->u.composite.parts[i].bit_size);
      assert_same_location(&a->u.composite.parts[i].location, &b->u.composite.parts[i].location);
    }
    break;
  case AMDDWARF_LOCATION_IMPLICIT:
    assert_int_equal(a->u.implicit.bit_size, b->u.implicit.bit_size);
    assert_memory_equal(a->u.implicit.bytes, b->u.implicit.bytes, (a->u.implicit.bit_size + 7) / 8);
    break;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    assert_int_equal(a->u.implicit_pointer.die, b->u.implicit_pointer.die);
    break;
  case AMDDWARF_LOCATION_UNDEFINED:
    break;
  }
}

typedef struct both {
  eval_fixture fx;
  amddwarf_eval *general; /* the fast path off */
} both;

static both *open_both(void)
{
  static both b;
  fx_init(&b.fx, WAVE);
  assert_int_equal(amddwarf_eval_new(NULL, &b.general, NULL), AMDDWARF_OK);
  b.general->general_only = true;
  return &b;
}

static void close_both(both *b)
{
  amddwarf_eval_free(b->general);
  fx_free(&b->fx);
}

/* amddwarf_eval_expr of BYTES (assembled from TEXT) for the request's lane
   with the fast path on (*ON) and off (*OFF): the same status, and the same
   error or location. False when both failed. */
static bool expect_same_evaluation(both *b, const char *text, const uint8_t *bytes, size_t size,
                                   amddwarf_entry *on, amddwarf_entry *off)
{
  amddwarf_error err_on, err_off;
  memset(&err_on, 0, sizeof err_on);
  memset(&err_off, 0, sizeof err_off);
  amddwarf_status st_on = amddwarf_eval_expr(b->fx.ev, &b->fx.req, bytes, size, on, &err_on);
  amddwarf_status st_off = amddwarf_eval_expr(b->general, &b->fx.req, bytes, size, off, &err_off);
  if (st_on != st_off)
    fail_msg("%s, lane %u: %s with the fast path, %s without", text, b->fx.req.lane,
             amddwarf_status_name(st_on), amddwarf_status_name(st_off));
  if (st_on != AMDDWARF_OK) {
    assert_int_equal(err_on.offset, err_off.offset);
    assert_string_equal(err_on.message, err_off.message);
    return false;
  }
  assert_same_location(&on->location, &off->location);
  return true;
}

/* The fast path itself, on expressions it takes: the location equals the
   general machine's. Enough of the random expressions must be taken. */
static void test_fast_path_equals_general(void **state)
{
  (void)state;
  both *b = open_both();
  unsigned taken = 0, composites = 0;
  for (unsigned sample = 0; sample < SAMPLES; sample++) {
    char text[512];
    uint8_t bytes[256];
    amddwarf_op ops[256];
    size_t count = 0;
    random_expression(text, sizeof text);
    size_t size = fx_assemble(&b->fx, text, bytes, sizeof bytes);
    assert_int_equal(amddwarf_expr_decode(bytes, size, &b->fx.req.format, ops, 256, &count, NULL),
                     AMDDWARF_OK);
    b->fx.req.lane = rng(6);

    amddwarf_entry general;
    amddwarf_status st = amddwarf_eval_ops(b->general, &b->fx.req, ops, count, &general, NULL);

    machine m;
    amddwarf_entry fast;
    fast_plan plan;
    amddwarf__fast_compile(ops, count, &b->fx.req.format, &plan);
    assert_int_equal(amddwarf__machine_begin(b->fx.ev, &b->fx.req, NULL, &m), AMDDWARF_OK);
    if (!amddwarf__fast_eval_location(&m, &plan, &fast))
      continue;
    taken++;
    if (fast.location.kind == AMDDWARF_LOCATION_COMPOSITE)
      composites++;
    if (st != AMDDWARF_OK)
      fail_msg("%s: the fast path gives a location, the general machine %s", text,
               amddwarf_status_name(st));
    assert_int_equal(general.kind, AMDDWARF_ENTRY_LOCATION);
    assert_same_location(&fast.location, &general.location);
  }
  /* Fixed seed: these counts only move when the operations above change. */
  assert_true(taken > SAMPLES / 10);
  assert_true(composites > 100);
  close_both(b);
}

/* Through amddwarf_eval_expr and amddwarf_location_read: the same status,
   error, location and bytes with the fast path on and off. */
static void test_eval_expr_same_with_and_without_fast_path(void **state)
{
  (void)state;
  both *b = open_both();
  for (unsigned sample = 0; sample < SAMPLES; sample++) {
    char text[512];
    uint8_t bytes[256];
    random_expression(text, sizeof text);
    size_t size = fx_assemble(&b->fx, text, bytes, sizeof bytes);
    b->fx.req.lane = rng(6);
    amddwarf_entry on, off;
    if (!expect_same_evaluation(b, text, bytes, size, &on, &off))
      continue;
    uint8_t read_on[8] = {0}, read_off[8] = {0};
    amddwarf_status st_on =
        amddwarf_location_read(b->fx.ev, &b->fx.req, &on.location, 0, 32, read_on, NULL);
    amddwarf_status st_off =
        amddwarf_location_read(b->general, &b->fx.req, &off.location, 0, 32, read_off, NULL);
    assert_int_equal(st_on, st_off);
    assert_memory_equal(read_on, read_off, sizeof read_on);
  }
  close_both(b);
}

/* amddwarf_eval_read (evaluation and read in one pass, whole bytes straight
   from the target) against amddwarf_eval_expr + amddwarf_location_read
   with the fast path and the direct reads off: the same status, error and
   bytes, over reads of whole and partial bytes at several offsets. */
static void one_pass_against_two(both *b, unsigned *read_in_one_pass, unsigned *pieces_read)
{
  static const uint64_t offsets[] = {0, 0, 8, 32, 3};
  static const uint64_t sizes[] = {32, 32, 64, 8, 16, 96, 12, 0};
  for (unsigned sample = 0; sample < SAMPLES; sample++) {
    char text[512];
    uint8_t bytes[256];
    if (sample % 2)
      random_expression(text, sizeof text);
    else
      random_location(text, sizeof text);
    size_t size = fx_assemble(&b->fx, text, bytes, sizeof bytes);
    b->fx.req.lane = rng(6);
    uint64_t bit_offset = offsets[rng(5)], bit_size = sizes[rng(8)];
    uint8_t one[16], two[16];
    amddwarf_error err_one, err_two;
    memset(one, 0, sizeof one);
    memset(two, 0, sizeof two);
    memset(&err_one, 0, sizeof err_one);
    memset(&err_two, 0, sizeof err_two);
    amddwarf_status st_one = amddwarf_eval_read(b->fx.ev, &b->fx.req, bytes, size, bit_offset,
                                                bit_size, one, &err_one);
    amddwarf_entry result;
    amddwarf_status st_two = amddwarf_eval_expr(b->general, &b->fx.req, bytes, size, &result,
                                                &err_two);
    if (st_two == AMDDWARF_OK)
      st_two = amddwarf_location_read(b->general, &b->fx.req, &result.location, bit_offset,
                                      bit_size, two, &err_two);
    if (st_one != st_two)
      fail_msg("%s (%llu bits at %llu): %s in one call, %s in two", text,
               (unsigned long long)bit_size, (unsigned long long)bit_offset,
               amddwarf_status_name(st_one), amddwarf_status_name(st_two));
    if (st_one != AMDDWARF_OK) {
      assert_int_equal(err_one.offset, err_two.offset);
      assert_string_equal(err_one.message, err_two.message);
      continue;
    }
    assert_memory_equal(one, two, sizeof one);
    /* Which results the one-pass read took. */
    amddwarf_op ops[256];
    size_t count = 0;
    machine m;
    uint8_t again[16];
    assert_int_equal(amddwarf_expr_decode(bytes, size, &b->fx.req.format, ops, 256, &count, NULL),
                     AMDDWARF_OK);
    fast_plan plan;
    amddwarf__fast_compile(ops, count, &b->fx.req.format, &plan);
    assert_int_equal(amddwarf__machine_begin(b->fx.ev, &b->fx.req, NULL, &m), AMDDWARF_OK);
    if (amddwarf__fast_eval_read(&m, &plan, bit_offset, bit_size, again, &result) ==
        FAST_READ) {
      ++*read_in_one_pass;
      *pieces_read += strstr(text, "piece") != NULL;
      assert_memory_equal(again, two, (size_t)(bit_size / 8));
    }
  }
}

static void test_eval_read_equals_eval_then_read(void **state)
{
  (void)state;
  both *b = open_both();
  unsigned read_in_one_pass = 0, pieces_read = 0;
  one_pass_against_two(b, &read_in_one_pass, &pieces_read);
  /* Fixed seed: these counts only move when the operations above change. */
  assert_true(read_in_one_pass > SAMPLES / 10);
  assert_true(pieces_read > SAMPLES / 50);
  close_both(b);
}

/* Register sizes of a target that sizes its registers itself, unlike the
   AMDGPU map: v1 holds four lanes, s9 eight bytes. */
static amddwarf_status own_register_size(void *user, uint32_t regno, uint64_t *size)
{
  (void)user;
  amddwarf_amdgpu_register info;
  if (regno == 2561u /* v1 */ || regno == 41u /* s9 */) {
    *size = regno == 41u /* s9 */ ? 8 : 16;
    return AMDDWARF_OK;
  }
  if (amddwarf_amdgpu_register_info(regno, &info) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  *size = info.bit_size / 8;
  return AMDDWARF_OK;
}

/* The fast path's register sizes come from the map it was compiled with
   only while the target does not size its registers: with one that does,
   the one-pass reads still equal the general machine's (lane 4 of v1 is
   outside its 16 bytes on both paths). */
static void test_target_register_sizes_win(void **state)
{
  (void)state;
  both *b = open_both();
  amddwarf_target own = b->fx.target;
  own.register_size = own_register_size;
  b->fx.req.target = &own;
  unsigned read_in_one_pass = 0, pieces_read = 0;
  one_pass_against_two(b, &read_in_one_pass, &pieces_read);
  /* Fixed seed, as above; fewer reads succeed with the smaller registers. */
  assert_true(read_in_one_pass > SAMPLES / 20);
  assert_true(pieces_read > SAMPLES / 50);
  /* The lane element of v1: lane 3 inside, lane 4 past the target's size. */
  uint8_t bytes[32], value[4];
  size_t size = fx_assemble(&b->fx, "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; "
                                    "DW_OP_mul; DW_OP_LLVM_offset", bytes, sizeof bytes);
  b->fx.req.lane = 3;
  assert_int_equal(amddwarf_eval_read(b->fx.ev, &b->fx.req, bytes, size, 0, 32, value, NULL),
                   AMDDWARF_OK);
  assert_int_equal(value[0], 3);
  b->fx.req.lane = 4;
  assert_int_equal(amddwarf_eval_read(b->fx.ev, &b->fx.req, bytes, size, 0, 32, value, NULL),
                   AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE);
  b->fx.req.target = &b->fx.target;
  close_both(b);
}

/* The shapes compilers emit are taken by the fast path (a decline is never
   wrong, only slow, so the random comparisons above cannot see one), and
   give the general machine's location. The wave-scaled frame base does
   arithmetic on breg's default-space location, which is a value there. */
static void test_fast_path_takes_compiler_shapes(void **state)
{
  (void)state;
  both *b = open_both();
  static const char *const texts[] = {
      "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset",
      "DW_OP_regx s8; DW_OP_piece 4; DW_OP_regx s9; DW_OP_piece 4",
      "DW_OP_fbreg 8",
      "DW_OP_bregx s33 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; DW_OP_LLVM_form_aspace_address",
      "DW_OP_bregx s9 8; DW_OP_lit2; DW_OP_mul; DW_OP_plus_uconst 4",
      "DW_OP_constu 0x10; DW_OP_lit3; DW_OP_LLVM_form_aspace_address",
      /* A VGPR spilled under a mask, the lane's dword of it: read part by
         part without the composite being built. */
      ("DW_OP_regx v2; DW_OP_regx v1; DW_OP_constu 0x3c; DW_OP_LLVM_select_bit_piece 32 8; "
       "DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset")};
  unsigned reads = 0;
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    uint8_t bytes[64];
    amddwarf_op ops[16];
    size_t count = 0;
    size_t size = fx_assemble(&b->fx, texts[i], bytes, sizeof bytes);
    assert_int_equal(amddwarf_expr_decode(bytes, size, &b->fx.req.format, ops, 16, &count, NULL),
                     AMDDWARF_OK);
    fast_plan plan;
    amddwarf__fast_compile(ops, count, &b->fx.req.format, &plan);
    machine m;
    amddwarf_entry fast, general;
    assert_int_equal(amddwarf__machine_begin(b->fx.ev, &b->fx.req, NULL, &m), AMDDWARF_OK);
    if (!amddwarf__fast_eval_location(&m, &plan, &fast))
      fail_msg("the fast path declines %s", texts[i]);
    assert_int_equal(amddwarf_eval_ops(b->general, &b->fx.req, ops, count, &general, NULL),
                     AMDDWARF_OK);
    assert_same_location(&fast.location, &general.location);
    /* And read in the same pass, where the general machine reads it (the
       wave has no memory at some of these addresses). */
    uint8_t one[4], two[4];
    amddwarf_entry unused;
    if (amddwarf_eval_read(b->general, &b->fx.req, bytes, size, 0, 32, two, NULL) != AMDDWARF_OK)
      continue;
    reads++;
    assert_int_equal(amddwarf__machine_begin(b->fx.ev, &b->fx.req, NULL, &m), AMDDWARF_OK);
    if (amddwarf__fast_eval_read(&m, &plan, 0, 32, one, &unused) != FAST_READ)
      fail_msg("the fast path does not read %s", texts[i]);
    assert_memory_equal(one, two, sizeof one);
  }
  assert_int_equal(reads, 5); /* all but the frame base, at private_lane 0 */
  close_both(b);
}

/* TEXT assembled into BYTES (*SIZE of them, at most 64), decoded (*COUNT
   operations) and compiled into *PLAN. */
static void compile_text(both *b, const char *text, uint8_t *bytes, size_t *size, size_t *count,
                         fast_plan *plan)
{
  amddwarf_op ops[16];
  *size = fx_assemble(&b->fx, text, bytes, 64);
  assert_int_equal(amddwarf_expr_decode(bytes, *size, &b->fx.req.format, ops, 16, count, NULL),
                   AMDDWARF_OK);
  amddwarf__fast_compile(ops, *count, &b->fx.req.format, plan);
}

/* push_lane, a constant multiply and offset run as one plan step (the
   lane's element of a location): the same status, error and location as
   the general machine's, for multipliers whose products wrap or turn
   negative and for lanes past the wave. */
static void test_lane_element_step_equals_general(void **state)
{
  (void)state;
  static const char *const locations[] = {
      "DW_OP_regx v1", "DW_OP_regx s8", "DW_OP_fbreg 8",
      "DW_OP_regx v1; DW_OP_regx v2; DW_OP_lit5; DW_OP_LLVM_select_bit_piece 32 4"};
  static const char *const multipliers[] = {"DW_OP_lit0", "DW_OP_lit4", "DW_OP_const1s -4",
                                            "DW_OP_constu 0x7fffffffffffffff",
                                            "DW_OP_constu 0x4000000000000000"};
  static const uint32_t lanes[] = {0, 1, 31, 32, 63, 64};
  both *b = open_both();
  unsigned fused = 0, located = 0;
  for (size_t l = 0; l < sizeof locations / sizeof locations[0]; l++)
    for (size_t k = 0; k < sizeof multipliers / sizeof multipliers[0]; k++)
      for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        char text[256];
        uint8_t bytes[64];
        size_t size, count;
        snprintf(text, sizeof text, "%s; DW_OP_LLVM_push_lane; %s; DW_OP_mul; DW_OP_LLVM_offset",
                 locations[l], multipliers[k]);
        fast_plan plan;
        compile_text(b, text, bytes, &size, &count, &plan);
        /* The constant and the multiply are one step, then the lane's four
           operations one, and with a register before them, one too. */
        fused += plan.usable && plan.count == count - 3 - (l < 2);
        b->fx.req.lane = lanes[i];
        amddwarf_entry on, off;
        located += expect_same_evaluation(b, text, bytes, size, &on, &off);
      }
  assert_int_equal(fused, 4 * 5 * 6);
  /* Fixed inputs: which of them locate only moves when the rules change. */
  assert_true(located > 20);
  close_both(b);
}

/* A constant address space and form_aspace_address run as one step, and
   with a breg before them, one too (a frame base or a spill slot in
   scratch): the same status, error, location and bytes read as the general
   machine's, for each space the AMDGPU map has, numbers that name none,
   and registers of 4 and 8 bytes and none. */
static void test_address_space_steps_equal_general(void **state)
{
  (void)state;
  static const struct {
    const char *text;
    unsigned ops_fused; /* operations of it in the fused step */
  } bases[] = {{"DW_OP_bregx s33 0", 1}, {"DW_OP_bregx s9 -8", 1}, {"DW_OP_bregx s34 8", 1},
               {"DW_OP_bregx exec 0", 1}, {"DW_OP_bregx 99999 0", 1},
               {"DW_OP_constu 0x20", 0}, {"DW_OP_regx s8", 0}};
  static const struct {
    const char *text;
    bool names_a_space;
  } spaces[] = {{"DW_OP_lit0", true},        {"DW_OP_lit1", true},
                {"DW_OP_lit3", true},        {"DW_OP_lit4", false},
                {"DW_OP_lit5", true},        {"DW_OP_lit6", true},
                {"DW_OP_constu 0x23", true}, {"DW_OP_constu 0x60", false},
                {"DW_OP_const8u 0x100000005", false}};
  static const uint32_t lanes[] = {0, 1, 3};
  both *b = open_both();
  unsigned fused = 0, expected_fused = 0, located = 0, read = 0;
  for (size_t k = 0; k < sizeof bases / sizeof bases[0]; k++)
    for (size_t a = 0; a < sizeof spaces / sizeof spaces[0]; a++)
      for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++) {
        char text[256];
        uint8_t bytes[64], on_bytes[4] = {0}, off_bytes[4] = {0};
        size_t size, count;
        snprintf(text, sizeof text, "%s; %s; DW_OP_LLVM_form_aspace_address", bases[k].text,
                 spaces[a].text);
        fast_plan plan;
        compile_text(b, text, bytes, &size, &count, &plan);
        bool fuses = spaces[a].names_a_space && strncmp(bases[k].text, "DW_OP_regx", 10) != 0;
        expected_fused += fuses;
        fused += fuses && plan.usable && plan.count == count - 1 - bases[k].ops_fused;
        b->fx.req.lane = lanes[l];
        amddwarf_entry on, off;
        located += expect_same_evaluation(b, text, bytes, size, &on, &off);
        amddwarf_status st_on =
            amddwarf_eval_read(b->fx.ev, &b->fx.req, bytes, size, 0, 32, on_bytes, NULL);
        amddwarf_status st_off =
            amddwarf_eval_read(b->general, &b->fx.req, bytes, size, 0, 32, off_bytes, NULL);
        assert_int_equal(st_on, st_off);
        assert_memory_equal(on_bytes, off_bytes, sizeof on_bytes);
        read += st_on == AMDDWARF_OK;
      }
  assert_int_equal(fused, expected_fused);
  assert_int_equal(expected_fused, 5 * 6 * 3 + 1 * 6 * 3);
  /* Every base but s8 (a register, not a value) and register 99999 locates
     in every space named (5 x 6 x 3). The reads: 0x20 in private_lane
     (lit5: each lane's own) and in private_lane3 (0x23), from s33 and the
     constant, and s9 - 8 = 0x1000 in the default and the generic space. */
  assert_int_equal(located, 5 * 6 * 3);
  assert_int_equal(read, 6 * 3);
  close_both(b);
}

/* amddwarf_eval_ops keeps the plan of the operations it ran last: the same
   array with another kind or operand in any operation, or another count,
   is another location, as the general machine finds it. */
static void test_ops_plan_sees_changed_operations(void **state)
{
  (void)state;
  both *b = open_both();
  uint8_t bytes[64];
  amddwarf_op ops[16];
  size_t count = 0;
  size_t size = fx_assemble(&b->fx, "DW_OP_constu 0x10; DW_OP_lit3; DW_OP_LLVM_form_aspace_address",
                            bytes, sizeof bytes);
  assert_int_equal(amddwarf_expr_decode(bytes, size, &b->fx.req.format, ops, 16, &count, NULL),
                   AMDDWARF_OK);
  assert_int_equal(count, 3);
  static const struct {
    unsigned op;       /* the operation changed, */
    int kind;          /* to this kind (-1: kept) */
    uint64_t operand0; /* and first operand */
    size_t count;      /* operations evaluated */
    uint32_t aspace;   /* the location */
    uint64_t address;
  } steps[] = {{0, -1, 0x10, 3, AMDDWARF_ASPACE_AMDGPU_LOCAL, 0x10},
               {0, -1, 0x10, 3, AMDDWARF_ASPACE_AMDGPU_LOCAL, 0x10},
               {0, -1, 0x24, 3, AMDDWARF_ASPACE_AMDGPU_LOCAL, 0x24},
               {1, AMDDWARF_OP_lit5, 0, 3, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0x24},
               {0, AMDDWARF_OP_const1u, 0x30, 3, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0x30},
               {0, -1, 0x30, 1, AMDDWARF_ASPACE_NONE, 0x30}};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    amddwarf_op *op = &ops[steps[i].op];
    if (steps[i].kind >= 0)
      op->kind = (amddwarf_op_kind)steps[i].kind;
    if (op->kind != AMDDWARF_OP_lit5)
      op->operands[0] = steps[i].operand0;
    amddwarf_entry fast, general;
    assert_int_equal(amddwarf_eval_ops(b->fx.ev, &b->fx.req, ops, steps[i].count, &fast, NULL),
                     AMDDWARF_OK);
    assert_int_equal(
        amddwarf_eval_ops(b->general, &b->fx.req, ops, steps[i].count, &general, NULL),
        AMDDWARF_OK);
    assert_same_location(&fast.location, &general.location);
    assert_int_equal(fast.location.kind, AMDDWARF_LOCATION_MEMORY);
    assert_int_equal(fast.location.u.memory.aspace, steps[i].aspace);
    assert_int_equal(fast.location.byte_offset, steps[i].address);
  }
  close_both(b);
}

/* The decode cache keys expressions by address and bytes: an expression
   changed in place, at any byte of any length the cache holds, is decoded
   again. The expressions sum literals (lit0; litN; plus; ...), so each
   changed literal moves the resulting address. */
static void test_cache_sees_bytes_changed_in_place(void **state)
{
  (void)state;
  both *b = open_both();
  static const size_t sizes[] = {1, 3, 5, 7, 9, 15, 17, 31, 33, 63};
  for (size_t n = 0; n < sizeof sizes / sizeof sizes[0]; n++) {
    uint8_t bytes[64];
    size_t size = sizes[n];
    bytes[0] = 0x30; /* DW_OP_lit0 */
    for (size_t i = 1; i + 1 < size; i += 2) {
      bytes[i] = 0x32;     /* DW_OP_lit2 */
      bytes[i + 1] = 0x22; /* DW_OP_plus */
    }
    uint64_t sum = 2 * (size / 2);
    amddwarf_entry result;
    for (size_t at = 0; at < size; at = at == 0 ? 1 : at + 2) { /* each literal */
      assert_int_equal(amddwarf_eval_expr(b->fx.ev, &b->fx.req, bytes, size, &result, NULL),
                       AMDDWARF_OK);
      assert_int_equal(result.location.byte_offset, sum);
      bytes[at]++; /* one literal more, at the same address */
      sum++;
    }
    assert_int_equal(amddwarf_eval_expr(b->fx.ev, &b->fx.req, bytes, size, &result, NULL),
                     AMDDWARF_OK);
    assert_int_equal(result.location.byte_offset, sum);
  }
  close_both(b);
}

/* status.h: a successful call leaves *err as it was, on both paths. */
static void test_success_leaves_err_untouched(void **state)
{
  (void)state;
  both *b = open_both();
  static const char *const texts[] = {
      "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset",
      "DW_OP_fbreg 8", "DW_OP_regx s8; DW_OP_piece 4; DW_OP_regx s9; DW_OP_piece 4",
      "DW_OP_regx v1; DW_OP_regx v2; DW_OP_lit3; DW_OP_LLVM_select_bit_piece 32 4"};
  amddwarf_eval *evs[2] = {b->fx.ev, b->general};
  for (size_t e = 0; e < 2; e++)
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
      uint8_t bytes[64];
      size_t size = fx_assemble(&b->fx, texts[i], bytes, sizeof bytes);
      amddwarf_error err, before;
      memset(&err, 0xa5, sizeof err);
      before = err;
      amddwarf_entry result;
      uint8_t value[4];
      assert_int_equal(amddwarf_eval_expr(evs[e], &b->fx.req, bytes, size, &result, &err),
                       AMDDWARF_OK);
      assert_memory_equal(&err, &before, sizeof err);
      assert_int_equal(
          amddwarf_location_read(evs[e], &b->fx.req, &result.location, 0, 32, value, &err),
          AMDDWARF_OK);
      assert_memory_equal(&err, &before, sizeof err);
      assert_int_equal(amddwarf_eval_read(evs[e], &b->fx.req, bytes, size, 0, 32, value, &err),
                       AMDDWARF_OK);
      assert_memory_equal(&err, &before, sizeof err);
    }
  close_both(b);
}

/* select_bit_piece appends each run of equal mask bits at once: mask 0x3c
   over 8 parts of 32 bits selects v1 for parts 2-5 and s-pair storage
   elsewhere; contiguous parts of one storage are one part. */
static void test_select_bit_piece_runs(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, WAVE);
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v2; DW_OP_regx v1; DW_OP_constu 0x3c; "
                                "DW_OP_LLVM_select_bit_piece 32 8"),
                   AMDDWARF_OK);
  const amddwarf_location *c = &fx.result.location;
  assert_int_equal(c->kind, AMDDWARF_LOCATION_COMPOSITE);
  assert_int_equal(c->u.composite.count, 3);
  assert_int_equal(c->u.composite.parts[0].bit_size, 64);
  assert_int_equal(c->u.composite.parts[0].location.u.reg.regno, 2562);
  assert_int_equal(c->u.composite.parts[0].location.byte_offset, 0);
  assert_int_equal(c->u.composite.parts[1].bit_size, 128);
  assert_int_equal(c->u.composite.parts[1].location.u.reg.regno, 2561);
  assert_int_equal(c->u.composite.parts[1].location.byte_offset, 8);
  assert_int_equal(c->u.composite.parts[2].bit_size, 64);
  assert_int_equal(c->u.composite.parts[2].location.u.reg.regno, 2562);
  assert_int_equal(c->u.composite.parts[2].location.byte_offset, 24);
  /* A run that leaves its storage is reported at its first part outside:
     s8 holds one 32-bit part, the second part (bit 32) is past it. */
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v2; DW_OP_regx s8; DW_OP_constu 0xf; "
                                "DW_OP_LLVM_select_bit_piece 32 4"),
                   AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE);
  assert_non_null(strstr(fx.err.message, "moved by 32 bits"));
  /* At the storage's edge, by hand: four 8-bit parts fill the 32-bit s8
     and are one part; a fifth from s8 is past it, from v2 it is v2's
     byte 4 (part 4 moved by 32 bits). */
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v2; DW_OP_regx s8; DW_OP_constu 0xf; "
                                "DW_OP_LLVM_select_bit_piece 8 5"),
                   AMDDWARF_OK);
  assert_int_equal(c->u.composite.count, 2);
  assert_int_equal(c->u.composite.parts[0].bit_size, 32);
  assert_int_equal(c->u.composite.parts[0].location.byte_offset, 0);
  assert_int_equal(c->u.composite.parts[1].bit_size, 8);
  assert_int_equal(c->u.composite.parts[1].location.u.reg.regno, 2562);
  assert_int_equal(c->u.composite.parts[1].location.byte_offset, 4);
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v2; DW_OP_regx s8; DW_OP_constu 0x1f; "
                                "DW_OP_LLVM_select_bit_piece 8 5"),
                   AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE);
  assert_non_null(strstr(fx.err.message, "moved by 32 bits"));
  fx_free(&fx);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fast_path_equals_general),
      cmocka_unit_test(test_fast_path_takes_compiler_shapes),
      cmocka_unit_test(test_lane_element_step_equals_general),
      cmocka_unit_test(test_address_space_steps_equal_general),
      cmocka_unit_test(test_cache_sees_bytes_changed_in_place),
      cmocka_unit_test(test_ops_plan_sees_changed_operations),
      cmocka_unit_test(test_eval_expr_same_with_and_without_fast_path),
      cmocka_unit_test(test_eval_read_equals_eval_then_read),
      cmocka_unit_test(test_target_register_sizes_win),
      cmocka_unit_test(test_success_leaves_err_untouched),
      cmocka_unit_test(test_select_bit_piece_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
