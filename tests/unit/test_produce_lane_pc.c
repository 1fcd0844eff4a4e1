/* The lane-PC generator on the seed's IF/THEN/ELSE nest ("AMDGPU
 * DW_AT_LLVM_lane_pc"), a loop and a whole-wave region: the generated
 * procedures and location lists are evaluated by the library's evaluator
 * against a scripted wave, for each program point and EXEC history, and each
 * lane's PC must be what the seed's text says: active lanes at the PC, lanes
 * waiting for the ELSE part at the region start while THEN runs, lanes done
 * with THEN at the region end while ELSE runs, lanes that left a loop at its
 * end, lanes inactive on entry undefined. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/dwarf.h>
#include <amddwarf/eval.h>
#include <amddwarf/produce.h>

#include "produce/dwarf_model.h"
#include "produce/produce_internal.h"

enum { UNDEF = 1 }; /* expected "PC" of a lane that is undefined */

/* ---- the wave ---------------------------------------------------------------- */

typedef struct wave {
  uint64_t pc, exec;
  uint64_t sgpr[64];            /* s0-s63: DWARF 32-95 */
  amddwarf_dwarf_builder *b;    /* for DIE look-ups */
  amddwarf_die_id type;         /* the generated __uint64 / __uint32 */
} wave;

static amddwarf_status read_register(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                     void *buf)
{
  wave *w = user;
  uint64_t value;
  uint64_t width;
  if (regno == 16) {
    value = w->pc, width = 8;
  } else if (regno == 17) {
    value = w->exec, width = 8;
  } else if (regno == 1) {
    value = w->exec & 0xffffffffu, width = 4;
  } else if (regno >= 32 && regno < 96) {
    value = w->sgpr[regno - 32], width = 4;
  } else {
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  }
  if (offset + size > width)
    return AMDDWARF_E_EVAL_OUT_OF_BOUNDS;
  uint8_t bytes[8];
  for (int i = 0; i < 8; i++)
    bytes[i] = (uint8_t)(value >> (8 * i));
  memcpy(buf, bytes + offset, (size_t)size);
  return AMDDWARF_OK;
}

static amddwarf_status wave_size(void *user, uint32_t *size)
{
  wave *w = user;
  *size = w->b->options.wave_size;
  return AMDDWARF_OK;
}

static amddwarf_status exec_mask(void *user, uint64_t *mask)
{
  *mask = ((wave *)user)->exec;
  return AMDDWARF_OK;
}

static const dw_die *die_at(const amddwarf_dwarf_builder *b, uint64_t offset)
{
  for (size_t i = 0; i < b->die_count; i++)
    if (b->dies[i].offset == offset && b->dies[i].tag != AMDDWARF_DW_TAG_compile_unit)
      return &b->dies[i];
  return NULL;
}

static amddwarf_status die(void *user, amddwarf_die_ref_kind kind, uint64_t ref,
                           amddwarf_die *out)
{
  wave *w = user;
  if (kind != AMDDWARF_DIE_REF_SECTION)
    return AMDDWARF_NOT_FOUND;
  const dw_die *d = die_at(w->b, ref);
  if (!d)
    return AMDDWARF_NOT_FOUND;
  const dw_attr *loc = amddwarf__dwarf_die_attr(d, 0x02);
  memset(out, 0, sizeof *out);
  out->is_dwarf_procedure = d->tag == AMDDWARF_DW_TAG_dwarf_procedure;
  if (loc && loc->kind == VALUE_EXPR) {
    out->value = AMDDWARF_DIE_LOCATION;
    out->bytes = loc->bytes;
    out->size = loc->byte_size;
  }
  return AMDDWARF_OK;
}

static amddwarf_status base_type(void *user, uint64_t offset, amddwarf_base_type *out)
{
  wave *w = user;
  const dw_die *t = amddwarf__dwarf_die_get(w->b, w->type);
  if (!t || t->offset - w->b->units[t->unit].offset != offset)
    return AMDDWARF_NOT_FOUND;
  out->die = offset;
  out->bit_size = w->b->options.wave_size;
  out->count = 1;
  out->encoding = AMDDWARF_ATE_UNSIGNED;
  return AMDDWARF_OK;
}

static amddwarf_status resolve(void *user, amddwarf_die_id id, uint64_t *s, uint64_t *u)
{
  const amddwarf_dwarf_builder *b = user;
  const dw_die *d = amddwarf__dwarf_die_get(b, id);
  if (!d)
    return AMDDWARF_E_PRODUCE_BAD_DIE;
  *s = d->offset;
  *u = d->offset - b->units[d->unit].offset;
  return AMDDWARF_OK;
}

/* ---- building ------------------------------------------------------------------ */

typedef struct built {
  amddwarf_dwarf_builder *b;
  amddwarf_die_id unit, sub;
  amddwarf_dwarf_sections sections;
} built;

static amddwarf_expr_builder *text_expr(amddwarf_dwarf_builder *b, const char *text)
{
  amddwarf_expr_format f;
  amddwarf_dwarf_builder_expr_format(b, &f);
  amddwarf_expr_builder *e = NULL;
  assert_int_equal(amddwarf_expr_builder_new(&f, NULL, &e), AMDDWARF_OK);
  amddwarf_error err;
  if (amddwarf_expr_builder_assemble(e, text, 64, NULL, NULL, &err) != AMDDWARF_OK)
    fail_msg("%s: %s", text, err.message);
  return e;
}

static void build(built *out, unsigned wave_size, amddwarf_dialect dialect,
                  amddwarf_region *regions, size_t count, uint64_t high)
{
  amddwarf_dwarf_options o;
  amddwarf_dwarf_options_init(&o);
  o.wave_size = wave_size;
  o.dialect = dialect;
  memset(out, 0, sizeof *out);
  assert_int_equal(amddwarf_dwarf_builder_new(&o, NULL, &out->b), AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_unit_new(out->b, "x.cl", NULL, NULL, 0x15, "[amd:v0.0]",
                                           &out->unit, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_die_new(out->b, out->unit, 0x2e, &out->sub, NULL),
                   AMDDWARF_OK);
  uint64_t lo = 0;
  assert_int_equal(amddwarf_dwarf_attr_ranges(out->b, out->sub, &lo, &high, 1, NULL),
                   AMDDWARF_OK);
  amddwarf_error err;
  if (amddwarf_dwarf_lane_pc(out->b, out->unit, out->sub, 0, high, regions, count, &err) !=
      AMDDWARF_OK)
    fail_msg("lane_pc: %s", err.message);
  if (amddwarf__dwarf_write_sections(out->b, 0, high, &out->sections, &err) != AMDDWARF_OK)
    fail_msg("write: %s", err.message);
}

static void unbuild(built *b)
{
  amddwarf__dwarf_sections_free(&b->sections);
  amddwarf_dwarf_builder_free(b->b);
}

/* The lane-PC list entry of B for PC, encoded. */
static size_t lane_pc_expr(const built *b, uint16_t at, uint64_t pc, uint8_t *out)
{
  const dw_die *sub = amddwarf__dwarf_die_get(b->b, b->sub);
  const dw_attr *a = amddwarf__dwarf_die_attr(sub, at);
  assert_non_null(a);
  assert_int_equal(a->kind, VALUE_LOCLIST);
  const dw_loclist *l = &b->b->loclists[a->u];
  for (size_t i = 0; i < l->count; i++)
    if (l->entries[i].start <= pc && pc < l->entries[i].end) {
      amddwarf_expr_resolver r = {b->b, resolve, 0};
      size_t size = 0;
      assert_int_equal(amddwarf_expr_builder_encode(l->entries[i].expr, &r, out, 512, &size,
                                                    NULL),
                       AMDDWARF_OK);
      return size;
    }
  fail_msg("no lane-PC entry covers 0x%llx", (unsigned long long)pc);
  return 0;
}

/* Evaluates the lane-PC list at W->pc and compares every lane with WANT
   (UNDEF: undefined); lanes past COUNT must be undefined. */
static void expect_lanes(const built *b, wave *w, const uint64_t *want, size_t count)
{
  uint8_t bytes[512];
  size_t size = lane_pc_expr(b, amddwarf_dwarf_ext_attr_code(b->b, AMDDWARF_EXT_AT_LANE_PC),
                             w->pc, bytes);
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = w;
  t.read_register = read_register;
  t.wave_size = wave_size;
  t.exec_mask = exec_mask;
  t.die = die;
  t.base_type = base_type;
  amddwarf_eval *ev = NULL;
  assert_int_equal(amddwarf_eval_new(NULL, &ev, NULL), AMDDWARF_OK);
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &t);
  amddwarf_dwarf_builder_expr_format(b->b, &req.format);
  req.lane = 0;
  amddwarf_entry result;
  amddwarf_error err;
  amddwarf_status st = amddwarf_eval_expr(ev, &req, bytes, size, &result, &err);
  if (st != AMDDWARF_OK)
    fail_msg("pc 0x%llx: evaluation failed: %s (%s)", (unsigned long long)w->pc, err.message,
             amddwarf_status_name(st));
  assert_int_equal(result.kind, AMDDWARF_ENTRY_LOCATION);
  unsigned lanes = b->b->options.wave_size;
  for (unsigned lane = 0; lane < lanes; lane++) {
    uint64_t expected = lane < count ? want[lane] : UNDEF;
    uint8_t buf[8] = {0};
    st = amddwarf_location_read(ev, &req, &result.location, (uint64_t)lane * 64, 64, buf, &err);
    if (expected == UNDEF) {
      if (st != AMDDWARF_E_EVAL_OPTIMIZED_OUT)
        fail_msg("pc 0x%llx lane %u: expected undefined, got status %s",
                 (unsigned long long)w->pc, lane, amddwarf_status_name(st));
      continue;
    }
    if (st != AMDDWARF_OK)
      fail_msg("pc 0x%llx lane %u: read failed: %s", (unsigned long long)w->pc, lane,
               err.message);
    uint64_t got = 0;
    for (int i = 7; i >= 0; i--)
      got = got << 8 | buf[i];
    if (got != expected)
      fail_msg("pc 0x%llx lane %u: PC 0x%llx, expected 0x%llx", (unsigned long long)w->pc, lane,
               (unsigned long long)got, (unsigned long long)expected);
  }
  amddwarf_eval_free(ev);
}

/* ---- the seed's nest ------------------------------------------------------------- */

/* Offsets of the seed's labels (4-byte instructions):
   $lex_start 0x00  a; %1 = EXEC; %2 = c1
   $lex_1_start 0x0c  EXEC = %1 & %2
   $lex_1_then 0x10   b; %3 = EXEC; %4 = c2
   $lex_1_1_start 0x1c  EXEC = %3 & %4
   $lex_1_1_then 0x20   c; EXEC = ~EXEC & %3
   $lex_1_1_else 0x28   d; EXEC = %3
   $lex_1_1_end 0x30    e; EXEC = ~EXEC & %1
   $lex_1_else 0x38     f; EXEC = %1
   $lex_1_end 0x40      g
   $lex_end 0x44
   %1 lives in s[4:5], %3 in s[6:7]. */
static void test_seed_nest(void **state)
{
  (void)state;
  amddwarf_dwarf_options o;
  amddwarf_dwarf_options_init(&o);
  amddwarf_dwarf_builder *tmp = NULL;
  amddwarf_dwarf_builder_new(&o, NULL, &tmp);
  amddwarf_expr_builder *save1 = text_expr(tmp, "DW_OP_regx s4; DW_OP_piece 4; DW_OP_regx s5; "
                                                "DW_OP_piece 4");
  amddwarf_expr_builder *save11 = text_expr(tmp, "DW_OP_regx s6; DW_OP_piece 4; DW_OP_regx s7; "
                                                 "DW_OP_piece 4");
  amddwarf_region inner = {AMDDWARF_REGION_IF, "1_1", 0x1c, 0x20, 0x28, 0x30, save11, NULL, 0};
  amddwarf_region outer = {AMDDWARF_REGION_IF, "1", 0x0c, 0x10, 0x38, 0x40, save1, &inner, 1};
  built b;
  build(&b, 64, AMDDWARF_DIALECT_USER, &outer, 1, 0x44);
  wave w;
  memset(&w, 0, sizeof w);
  w.b = b.b;
  w.type = b.b->units[0].lane_types[1];
  /* Lanes 0-7 active on entry; c1 holds for lanes 0-3, c2 for lanes 0-1. */
  uint64_t entry = 0xff, c1 = 0x0f; /* c2 = 0x03: EXEC in the inner THEN */
  w.sgpr[4] = entry & 0xffffffffu; /* %1 */
  w.sgpr[5] = entry >> 32;
  w.sgpr[6] = (entry & c1) & 0xffffffffu; /* %3 */
  w.sgpr[7] = (entry & c1) >> 32;
  static const struct {
    uint64_t pc, exec;
    uint64_t lanes[8];
  } points[] = {
      /* a: everyone active */
      {0x04, 0xff, {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
      /* between $lex_1_start and $lex_1_then: still the enclosing procedure */
      {0x0c, 0xff, {0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c}},
      /* b (outer THEN): lanes 4-7 wait for ELSE at $lex_1_start */
      {0x10, 0x0f, {0x10, 0x10, 0x10, 0x10, 0x0c, 0x0c, 0x0c, 0x0c}},
      {0x1c, 0x0f, {0x1c, 0x1c, 0x1c, 0x1c, 0x0c, 0x0c, 0x0c, 0x0c}},
      /* c (inner THEN): lanes 2-3 wait at $lex_1_1_start */
      {0x20, 0x03, {0x20, 0x20, 0x1c, 0x1c, 0x0c, 0x0c, 0x0c, 0x0c}},
      {0x24, 0x03, {0x24, 0x24, 0x1c, 0x1c, 0x0c, 0x0c, 0x0c, 0x0c}},
      /* d (inner ELSE): lanes 0-1 are done, at $lex_1_1_end */
      {0x28, 0x0c, {0x30, 0x30, 0x28, 0x28, 0x0c, 0x0c, 0x0c, 0x0c}},
      /* e (outer THEN after the inner region): lanes 4-7 still at $lex_1_start */
      {0x30, 0x0f, {0x30, 0x30, 0x30, 0x30, 0x0c, 0x0c, 0x0c, 0x0c}},
      /* f (outer ELSE): lanes 0-3 are done, at $lex_1_end */
      {0x38, 0xf0, {0x40, 0x40, 0x40, 0x40, 0x38, 0x38, 0x38, 0x38}},
      {0x3c, 0xf0, {0x40, 0x40, 0x40, 0x40, 0x3c, 0x3c, 0x3c, 0x3c}},
      /* g: reconverged */
      {0x40, 0xff, {0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40}},
  };
  for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
    w.pc = points[i].pc;
    w.exec = points[i].exec;
    expect_lanes(&b, &w, points[i].lanes, 8);
  }
  /* Another history: c1 false everywhere (THEN runs with no lane), all of
     lanes 0-63 active on entry, lanes 32-63 inactive when ELSE runs. */
  entry = UINT64_MAX;
  w.sgpr[4] = 0xffffffffu;
  w.sgpr[5] = 0xffffffffu;
  w.sgpr[6] = 0;
  w.sgpr[7] = 0;
  w.pc = 0x38;
  w.exec = 0xffffffffu; /* only the low half takes the ELSE */
  uint64_t want[64];
  for (int lane = 0; lane < 64; lane++)
    want[lane] = lane < 32 ? 0x38 : 0x40;
  expect_lanes(&b, &w, want, 64);
  w.pc = 0x20; /* inner THEN, nobody in it: lanes wait at $lex_1_start */
  w.exec = 0;
  for (int lane = 0; lane < 64; lane++)
    want[lane] = 0x0c;
  expect_lanes(&b, &w, want, 64);
  unbuild(&b);
  amddwarf_expr_builder_free(save1);
  amddwarf_expr_builder_free(save11);
  amddwarf_dwarf_builder_free(tmp);
}

/* A loop with an IF inside, then a whole-wave region, in wave32. */
static void test_loop_and_whole_wave(void **state)
{
  (void)state;
  amddwarf_dwarf_options o;
  amddwarf_dwarf_options_init(&o);
  amddwarf_dwarf_builder *tmp = NULL;
  o.dialect = AMDDWARF_DIALECT_VENDOR;
  amddwarf_dwarf_builder_new(&o, NULL, &tmp);
  amddwarf_expr_builder *s20 = text_expr(tmp, "DW_OP_regx s20");
  amddwarf_expr_builder *s21 = text_expr(tmp, "DW_OP_regx s21");
  amddwarf_expr_builder *s22 = text_expr(tmp, "DW_OP_regx s22");
  amddwarf_region in_loop = {AMDDWARF_REGION_IF, "1_1", 0x18, 0x1c, 0x28, 0x28, s21, NULL, 0};
  amddwarf_region regions[2] = {
      {AMDDWARF_REGION_LOOP, "1", 0x0c, 0x10, 0x40, 0x40, s20, &in_loop, 1},
      {AMDDWARF_REGION_WHOLE_WAVE, "2", 0x50, 0x54, 0x60, 0x60, s22, NULL, 0},
  };
  built b;
  build(&b, 32, AMDDWARF_DIALECT_VENDOR, regions, 2, 0x80);
  wave w;
  memset(&w, 0, sizeof w);
  w.b = b.b;
  w.type = b.b->units[0].lane_types[0];
  w.sgpr[20] = 0x0f; /* lanes 0-3 entered the loop */
  w.sgpr[21] = 0x03; /* lanes 0-1 were in the loop at the IF */
  w.sgpr[22] = 0x05; /* lanes 0 and 2 active before the whole-wave region */
  /* in the loop body, lanes 2-3 have left: they are at the loop's end */
  w.pc = 0x10;
  w.exec = 0x03;
  uint64_t want[4] = {0x10, 0x10, 0x40, 0x40};
  expect_lanes(&b, &w, want, 4);
  /* in the IF inside the loop, lane 1 is not taking THEN: at the IF's start */
  w.pc = 0x1c;
  w.exec = 0x01;
  uint64_t want2[4] = {0x1c, 0x18, 0x40, 0x40};
  expect_lanes(&b, &w, want2, 4);
  /* after the loop (lanes 0-3 active again) */
  w.pc = 0x44;
  w.exec = 0x0f;
  uint64_t want3[4] = {0x44, 0x44, 0x44, 0x44};
  expect_lanes(&b, &w, want3, 4);
  /* whole-wave region: EXEC is all ones, but only lanes 0 and 2 are
     conceptually active; the others were never active on entry */
  w.pc = 0x58;
  w.exec = 0xffffffffu;
  uint64_t want4[4] = {0x58, UNDEF, 0x58, UNDEF};
  expect_lanes(&b, &w, want4, 4);
  /* DW_AT_LLVM_active_lane: the saved mask inside, EXEC outside */
  uint8_t bytes[512];
  size_t size = lane_pc_expr(&b, amddwarf_dwarf_ext_attr_code(b.b, AMDDWARF_EXT_AT_ACTIVE_LANE),
                             0x58, bytes);
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = &w;
  t.read_register = read_register;
  t.wave_size = wave_size;
  t.exec_mask = exec_mask;
  t.die = die;
  t.base_type = base_type;
  amddwarf_eval *ev = NULL;
  amddwarf_eval_new(NULL, &ev, NULL);
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &t);
  amddwarf_dwarf_builder_expr_format(b.b, &req.format);
  req.lane = 0;
  req.required = AMDDWARF_RESULT_VALUE;
  amddwarf_entry result;
  amddwarf_error err;
  if (amddwarf_eval_expr(ev, &req, bytes, size, &result, &err) != AMDDWARF_OK)
    fail_msg("active lane: %s", err.message);
  assert_int_equal(result.kind, AMDDWARF_ENTRY_VALUE);
  assert_int_equal(amddwarf_value_size(&result.value), 4);
  assert_int_equal(amddwarf_value_bytes(&result.value)[0], 0x05);
  size = lane_pc_expr(&b, amddwarf_dwarf_ext_attr_code(b.b, AMDDWARF_EXT_AT_ACTIVE_LANE), 0x70,
                      bytes);
  w.pc = 0x70;
  w.exec = 0x0c;
  if (amddwarf_eval_expr(ev, &req, bytes, size, &result, &err) != AMDDWARF_OK)
    fail_msg("active lane: %s", err.message);
  assert_int_equal(amddwarf_value_bytes(&result.value)[0], 0x0c);
  amddwarf_eval_free(ev);
  unbuild(&b);
  amddwarf_expr_builder_free(s20);
  amddwarf_expr_builder_free(s21);
  amddwarf_expr_builder_free(s22);
  amddwarf_dwarf_builder_free(tmp);
}

static void test_bad_regions(void **state)
{
  (void)state;
  amddwarf_dwarf_options o;
  amddwarf_dwarf_options_init(&o);
  amddwarf_dwarf_builder *b = NULL;
  amddwarf_dwarf_builder_new(&o, NULL, &b);
  amddwarf_die_id unit, sub;
  amddwarf_dwarf_unit_new(b, "x", NULL, NULL, 0, NULL, &unit, NULL);
  amddwarf_dwarf_die_new(b, unit, 0x2e, &sub, NULL);
  amddwarf_expr_builder *s = text_expr(b, "DW_OP_regx s4");
  amddwarf_error err;
  amddwarf_region r = {AMDDWARF_REGION_IF, "1", 0x10, 0x08, 0x20, 0x30, s, NULL, 0};
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_PRODUCE_BAD_REGION);
  assert_non_null(strstr(err.message, "region '1'"));
  r.body = 0x14;
  r.end = 0x50; /* past the subprogram */
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_PRODUCE_BAD_REGION);
  r.end = 0x30;
  amddwarf_region child = {AMDDWARF_REGION_IF, "1_1", 0x18, 0x1c, 0x24, 0x28, s, NULL, 0};
  r.children = &child; /* straddles THEN (0x14-0x20) and ELSE */
  r.child_count = 1;
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_PRODUCE_BAD_REGION);
  r.children = NULL;
  r.child_count = 0;
  amddwarf_region two[2] = {r, r}; /* overlapping siblings */
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, two, 2, &err),
                   AMDDWARF_E_PRODUCE_BAD_REGION);
  assert_non_null(strstr(err.message, "sibling"));
  r.save_exec = NULL;
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_PRODUCE_BAD_REGION);
  r.save_exec = s;
  assert_int_equal(amddwarf_dwarf_lane_pc(b, sub, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_PRODUCE_BAD_DIE);
  amddwarf_expr_builder_free(s);
  amddwarf_dwarf_builder_free(b);
  /* the draft dialect cannot express lane PCs */
  o.dialect = AMDDWARF_DIALECT_DRAFT;
  amddwarf_dwarf_builder_new(&o, NULL, &b);
  amddwarf_dwarf_unit_new(b, "x", NULL, NULL, 0, NULL, &unit, NULL);
  amddwarf_dwarf_die_new(b, unit, 0x2e, &sub, NULL);
  s = text_expr(b, "DW_OP_regx s4");
  r.save_exec = s;
  assert_int_equal(amddwarf_dwarf_lane_pc(b, unit, sub, 0, 0x40, &r, 1, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  amddwarf_expr_builder_free(s);
  amddwarf_dwarf_builder_free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_nest),
      cmocka_unit_test(test_loop_and_whole_wave),
      cmocka_unit_test(test_bad_regions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
