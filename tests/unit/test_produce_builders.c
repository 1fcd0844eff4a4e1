/* The producer's builders: expression bytes of the seed's idioms in each
 * dialect, labels and branch fix-ups, symbolic references, CFI entries and
 * the DWARF writer's smallest units. Expected bytes come from the DWARF 5
 * encodings (sections 7.7.1, 7.24, 7.5) and DESIGN.md section 6. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <amddwarf/produce.h>

#include "produce/produce_internal.h"

static amddwarf_expr_builder *builder(amddwarf_dialect dialect, uint8_t offset_size)
{
  amddwarf_expr_format f;
  amddwarf_expr_format_init(&f);
  f.dialect = dialect;
  f.offset_size = offset_size;
  amddwarf_expr_builder *b = NULL;
  assert_int_equal(amddwarf_expr_builder_new(&f, NULL, &b), AMDDWARF_OK);
  return b;
}

typedef struct resolver_map {
  amddwarf_die_id die;
  uint64_t section_offset, unit_offset;
} resolver_map;

static resolver_map the_map[4] = {{5, 0x1234, 0x34}, {6, 0x20, 0x90}, {0, 0, 0}, {0, 0, 0}};

static amddwarf_status resolve(void *user, amddwarf_die_id die, uint64_t *s, uint64_t *u)
{
  (void)user;
  for (size_t i = 0; i < 4; i++)
    if (the_map[i].die == die && die) {
      *s = the_map[i].section_offset;
      *u = the_map[i].unit_offset;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

static void expect_bytes(const amddwarf_expr_builder *b, uint64_t text_base,
                         const uint8_t *expected, size_t size)
{
  amddwarf_expr_resolver r = {NULL, resolve, text_base};
  uint8_t out[256];
  size_t got = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_expr_builder_encode(b, &r, out, sizeof out, &got, &err);
  if (st != AMDDWARF_OK)
    fail_msg("encode failed: %s", err.message);
  assert_int_equal(got, size);
  assert_memory_equal(out, expected, size);
}

#define EXPECT(b, ...)                                               \
  do {                                                               \
    static const uint8_t expected_[] = {__VA_ARGS__};                \
    expect_bytes((b), 0, expected_, sizeof expected_);               \
  } while (0)

/* ---- idioms ------------------------------------------------------------------ */

static void test_vgpr_lane(void **state)
{
  (void)state;
  /* v1 of wave64 is DWARF 2561 = ULEB 81 14 */
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_build_vgpr_lane(b, 2561, 0, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0x81, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_VENDOR, 4);
  assert_int_equal(amddwarf_expr_build_vgpr_lane(b, 2561, 2, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0x81, 0x14, 0xe2, 0x34, 0x1e, 0x23, 0x02, 0xe3);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_DRAFT, 4); /* seed draft: push_lane 0xea, offset 0xe9 */
  assert_int_equal(amddwarf_expr_build_vgpr_lane(b, 1537, 0, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0x81, 0x0c, 0xea, 0x34, 0x1e, 0xe9);
  amddwarf_expr_builder_free(b);
}

static void test_sgpr_in_vgpr_lane(void **state)
{
  (void)state;
  /* v40 of wave64 = 2600 = ULEB a8 14; lane 3 -> byte 12 */
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_build_sgpr_in_vgpr_lane(b, 2600, 3, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x0c);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_VENDOR, 4);
  assert_int_equal(amddwarf_expr_build_sgpr_in_vgpr_lane(b, 2600, 40, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0xa8, 0x14, 0xe4, 0xa0, 0x01);
  amddwarf_expr_builder_free(b);
  /* the draft has no offset_uconst: a constant and DW_OP_LLVM_offset */
  b = builder(AMDDWARF_DIALECT_DRAFT, 4);
  assert_int_equal(amddwarf_expr_build_sgpr_in_vgpr_lane(b, 2600, 3, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0xa8, 0x14, 0x3c, 0xe9);
  amddwarf_error err;
  assert_int_equal(amddwarf_expr_build_sgpr_in_vgpr_lane(b, 2600, 64, &err),
                   AMDDWARF_E_AMDGPU_BAD_LANE);
  amddwarf_expr_builder_free(b);
}

static void test_vgpr_spill(void **state)
{
  (void)state;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  /* v40 spilled at private_lane s32+16 of a wave64 */
  assert_int_equal(amddwarf_expr_build_vgpr_spill(b, 2600, 64, 16, 64, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0xa8, 0x14,       /* DW_OP_regx VGPR40 */
         0x92, 0x40, 0x10,          /* DW_OP_bregx SGPR32 +16 */
         0x10, 0x40, 0x1e,          /* DW_OP_constu 64; DW_OP_mul */
         0x36, 0xe9, 0x02,          /* DW_OP_lit6 (private_wave); form_aspace_address */
         0x92, 0x11, 0x00,          /* DW_OP_bregx EXEC_MASK_64 0 */
         0xe9, 0x0c, 0x20, 0x40);   /* DW_OP_LLVM_select_bit_piece 32, 64 */
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_VENDOR, 4);
  assert_int_equal(amddwarf_expr_build_vgpr_spill(b, 1576, 64, -4, 32, NULL), AMDDWARF_OK);
  EXPECT(b, 0x90, 0xa8, 0x0c, 0x92, 0x40, 0x7c, 0x10, 0x20, 0x1e, 0x36, 0xe1, 0x92, 0x01,
         0x00, 0xec, 0x20, 0x20);
  amddwarf_error err;
  assert_int_equal(amddwarf_expr_build_vgpr_spill(b, 1576, 64, 0, 16, &err),
                   AMDDWARF_E_AMDGPU_BAD_WAVE_SIZE);
  amddwarf_expr_builder_free(b);
  /* the draft dialect has no select_bit_piece: the idiom is refused */
  b = builder(AMDDWARF_DIALECT_DRAFT, 4);
  assert_int_equal(amddwarf_expr_build_vgpr_spill(b, 2600, 64, 16, 64, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_non_null(strstr(err.message, "DW_OP_LLVM_select_bit_piece"));
  amddwarf_expr_builder_free(b);
}

static void test_frame_base_private_local(void **state)
{
  (void)state;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_build_private_frame_base(b, 65, 1, 64, NULL), AMDDWARF_OK);
  /* bregx SGPR33 0; lit6; shr; lit5 (private_lane); form_aspace_address */
  EXPECT(b, 0x92, 0x41, 0x00, 0x36, 0x25, 0x35, 0xe9, 0x02);
  amddwarf_expr_builder_reset(b);
  assert_int_equal(amddwarf_expr_build_private_lane_var(b, -8, NULL), AMDDWARF_OK);
  EXPECT(b, 0x91, 0x78);
  amddwarf_expr_builder_reset(b);
  assert_int_equal(amddwarf_expr_build_aspace_address(b, 0x100, 3, NULL), AMDDWARF_OK);
  EXPECT(b, 0x10, 0x80, 0x02, 0x33, 0xe9, 0x02);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_DRAFT, 4);
  assert_int_equal(amddwarf_expr_build_aspace_address(b, 16, 3, NULL), AMDDWARF_OK);
  EXPECT(b, 0x40, 0x33, 0xe7);
  amddwarf_expr_builder_free(b);
}

/* ---- operations, dialects, operands ------------------------------------------- */

static void test_dialect_rejections(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_DRAFT, 4);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_extend, 64, 64, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_non_null(strstr(err.message, "draft"));
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_offset_uconst, 4, 0, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_int_equal(amddwarf_expr_builder_count(b), 0);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(
      amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_LLVM_aspace_implicit_pointer, 5, 0, &err),
      AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_nop, 0, 0, NULL), AMDDWARF_OK);
  EXPECT(b, 0xe9, 0x01);
  amddwarf_expr_builder_free(b);
  b = builder(AMDDWARF_DIALECT_VENDOR, 4);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_LLVM_nop, 0, 0, &err),
                   AMDDWARF_E_EXPR_NOT_IN_DIALECT);
  assert_int_equal(
      amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_LLVM_aspace_implicit_pointer, 5, -2, NULL),
      AMDDWARF_OK);
  EXPECT(b, 0xe9, 0x34, 0x12, 0x00, 0x00, 0x7e);
  amddwarf_expr_builder_free(b);
}

static void test_operands(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_const1u, 256, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_const1s, (uint64_t)-129, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_skip, 0, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_implicit_value, 4, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_nop, 1, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_op(b, (amddwarf_op_kind)AMDDWARF_OP_KIND_COUNT, 0, 0,
                                            &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_expr_builder_count(b), 0);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_const1s, (uint64_t)-128, 0, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_bregx, 64, (uint64_t)-8, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_breg5, (uint64_t)-1, 0, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_op(b, AMDDWARF_OP_bit_piece, 32, 64, NULL),
                   AMDDWARF_OK);
  static const uint8_t four[4] = {0xaa, 0xbb, 0xcc, 0xdd};
  assert_int_equal(amddwarf_expr_builder_block(b, AMDDWARF_OP_implicit_value, 0, four, 4, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_block(b, AMDDWARF_OP_const_type, 0x2a, four, 4, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_block(b, AMDDWARF_OP_lit0, 0, four, 4, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  EXPECT(b, 0x09, 0x80, 0x92, 0x40, 0x78, 0x75, 0x7f, 0x9d, 0x20, 0x40, 0x9e, 0x04, 0xaa, 0xbb,
         0xcc, 0xdd, 0xa4, 0x2a, 0x04, 0xaa, 0xbb, 0xcc, 0xdd);
  amddwarf_expr_builder_free(b);
}

static void test_labels(void **state)
{
  (void)state;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  amddwarf_label l, e, top;
  assert_int_equal(amddwarf_expr_builder_label_new(b, &l, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_label_new(b, &e, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_label_new(b, &top, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_label_place(b, top, NULL), AMDDWARF_OK);
  amddwarf_expr_builder_op(b, AMDDWARF_OP_lit1, 0, 0, NULL);            /* 0 */
  amddwarf_expr_builder_branch(b, AMDDWARF_OP_bra, l, NULL);             /* 1..3 */
  amddwarf_expr_builder_op(b, AMDDWARF_OP_lit2, 0, 0, NULL);            /* 4 */
  amddwarf_expr_builder_branch(b, AMDDWARF_OP_skip, e, NULL);            /* 5..7 */
  assert_int_equal(amddwarf_expr_builder_label_place(b, l, NULL), AMDDWARF_OK);
  amddwarf_expr_builder_op(b, AMDDWARF_OP_lit3, 0, 0, NULL);            /* 8 */
  amddwarf_expr_builder_branch(b, AMDDWARF_OP_skip, top, NULL);          /* 9..11 -> 0 */
  assert_int_equal(amddwarf_expr_builder_label_place(b, e, NULL), AMDDWARF_OK); /* 12: end */
  /* displacements are from the end of the branch operation */
  EXPECT(b, 0x31, 0x28, 0x04, 0x00, 0x32, 0x2f, 0x04, 0x00, 0x33, 0x2f, 0xf4, 0xff);
  amddwarf_error err;
  assert_int_equal(amddwarf_expr_builder_label_place(b, e, &err), AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_expr_builder_branch(b, AMDDWARF_OP_lit0, e, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_branch(b, AMDDWARF_OP_skip, 99, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_label never;
  amddwarf_expr_builder_label_new(b, &never, NULL);
  amddwarf_expr_builder_branch(b, AMDDWARF_OP_bra, never, NULL);
  uint8_t out[64];
  size_t size;
  assert_int_equal(amddwarf_expr_builder_encode(b, NULL, out, sizeof out, &size, &err),
                   AMDDWARF_E_EXPR_BAD_BRANCH);
  assert_non_null(strstr(err.message, "never placed"));
  amddwarf_expr_builder_free(b);
}

static void test_references(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_call_ref, 5, 0, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_regval_type, 6, 17, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_deref_type, 6, 8, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_call4, 6, 0, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_text_addr(b, 0x10, NULL), AMDDWARF_OK);
  static const uint8_t want[] = {0x9a, 0x34, 0x12, 0x00, 0x00,       /* call_ref 0x1234 */
                                 0xa5, 0x11, 0x90, 0x01,             /* regval_type 17, cu+0x90 */
                                 0xa6, 0x08, 0x90, 0x01,             /* deref_type 8, cu+0x90 */
                                 0x99, 0x90, 0x00, 0x00, 0x00,       /* call4 cu+0x90 */
                                 0x03, 0x10, 0x10, 0, 0, 0, 0, 0, 0}; /* addr 0x1010 */
  expect_bytes(b, 0x1000, want, sizeof want);
  uint8_t out[64];
  size_t size;
  assert_int_equal(amddwarf_expr_builder_encode(b, NULL, out, sizeof out, &size, &err),
                   AMDDWARF_E_PRODUCE_UNRESOLVED);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_lit0, 5, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_call_ref, 0, 0, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_call_ref, 7, 0, NULL); /* unknown to resolver */
  amddwarf_expr_resolver r = {NULL, resolve, 0};
  assert_int_equal(amddwarf_expr_builder_encode(b, &r, out, sizeof out, &size, &err),
                   AMDDWARF_E_PRODUCE_UNRESOLVED);
  assert_non_null(strstr(err.message, "DIE 7"));
  amddwarf_expr_builder_free(b);
  /* 64-bit DWARF: call_ref takes 8 bytes */
  b = builder(AMDDWARF_DIALECT_USER, 8);
  amddwarf_expr_builder_die_ref(b, AMDDWARF_OP_call_ref, 5, 0, NULL);
  EXPECT(b, 0x9a, 0x34, 0x12, 0, 0, 0, 0, 0, 0);
  amddwarf_expr_builder_free(b);
}

static int names(void *user, const char *name, amddwarf_die_id *die)
{
  (void)user;
  if (strcmp(name, "__active_lane_pc") == 0)
    *die = 5;
  else if (strcmp(name, "__uint64") == 0)
    *die = 6;
  else
    return -1;
  return 0;
}

static void test_assemble(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_expr_builder *b = builder(AMDDWARF_DIALECT_USER, 4);
  assert_int_equal(amddwarf_expr_build_private_lane_var(b, 4, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_expr_builder_assemble(
                       b,
                       "DW_OP_call_ref @__active_lane_pc; DW_OP_addr @text+8; "
                       "DW_OP_deref_type 8 @__uint64; L: DW_OP_lit0; DW_OP_bra L",
                       64, names, NULL, &err),
                   AMDDWARF_OK);
  static const uint8_t want[] = {0x91, 0x04, 0x9a, 0x34, 0x12, 0x00, 0x00,
                                 0x03, 0x08, 0x10, 0, 0, 0, 0, 0, 0,
                                 0xa6, 0x08, 0x90, 0x01, 0x30, 0x28, 0xfc, 0xff};
  expect_bytes(b, 0x1000, want, sizeof want);
  size_t before = amddwarf_expr_builder_count(b);
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_lit1; DW_OP_call_ref @nobody", 64,
                                                  names, NULL, &err),
                   AMDDWARF_E_PRODUCE_UNKNOWN_NAME);
  assert_non_null(strstr(err.message, "nobody"));
  assert_int_equal(amddwarf_expr_builder_count(b), before); /* nothing half-appended */
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_call_ref @text+4", 64, names, NULL,
                                                  &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_call_ref @x", 64, NULL, NULL, &err),
                   AMDDWARF_E_PRODUCE_UNKNOWN_NAME);
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_lit0 @", 64, names, NULL, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_frobnicate", 64, names, NULL, &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  /* Errors after and at a reference name the text's own characters. */
  assert_int_equal(amddwarf_expr_builder_assemble(
                       b, "DW_OP_call_ref @__active_lane_pc; DW_OP_frobnicate", 64, names, NULL,
                       &err),
                   AMDDWARF_E_EXPR_SYNTAX);
  assert_int_equal(err.offset, 34);
  assert_int_equal(amddwarf_expr_builder_assemble(
                       b, "DW_OP_deref_type 8 @__uint64; DW_OP_call_ref @nobody", 64, names,
                       NULL, &err),
                   AMDDWARF_E_PRODUCE_UNKNOWN_NAME);
  assert_int_equal(err.offset, 45);
  /* A DIE name only in a DIE operand. */
  assert_int_equal(amddwarf_expr_builder_assemble(b, "DW_OP_deref_type @__uint64 8", 64, names,
                                                  NULL, &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(err.offset, 17);
  assert_int_equal(amddwarf_expr_builder_count(b), before);
  amddwarf_expr_builder_free(b);
}

/* ---- CFI ---------------------------------------------------------------------- */

static void test_cfi_bytes(void **state)
{
  (void)state;
  amddwarf_cfi_builder *c = NULL;
  assert_int_equal(amddwarf_cfi_builder_new(NULL, NULL, &c), AMDDWARF_OK);
  uint32_t cie, fde;
  assert_int_equal(amddwarf_cfi_builder_cie(c, "", 4, 4, 16, &cie, NULL), AMDDWARF_OK);
  uint64_t ops[3] = {64, 0, 0};
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 1, cie, "DW_CFA_def_cfa", ops, NULL, 0,
                                                   NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_builder_fde(c, cie, 0x10, 0x40, &fde, NULL), AMDDWARF_OK);
  uint64_t adv[3] = {1, 0, 0}, aspace[3] = {65, 0, 6}, off[3] = {16, 2, 0};
  amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_advance_loc", adv, NULL, 0, NULL);
  amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_LLVM_def_aspace_cfa", aspace, NULL, 0,
                                  NULL);
  amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_offset", off, NULL, 0, NULL);
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf_cfi_builder_write(c, 0x1000, &bytes, &size, NULL), AMDDWARF_OK);
  static const uint8_t want[] = {
      /* CIE: length 20, id, version 4, "", address size 8, segment 0, code 4,
         data 4, RA 16, def_cfa SGPR32 0, 6 x nop */
      0x14, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 4, 16, 0x0c, 0x40, 0x00, 0, 0, 0, 0,
      0, 0,
      /* FDE: length 28, CIE at 0, start 0x1010, range 0x40, advance_loc 1,
         def_aspace_cfa SGPR33 0 private_wave, offset PC_64 2, 1 x nop */
      0x1c, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x10, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x41,
      0x30, 0x41, 0x00, 0x06, 0x90, 0x02, 0x00};
  assert_int_equal(size, sizeof want);
  assert_memory_equal(bytes, want, sizeof want);
  amddwarf_produce_free_bytes(NULL, bytes, size);
  amddwarf_cfi_builder_free(c);
}

static void test_cfi_dwarf64_and_errors(void **state)
{
  (void)state;
  amddwarf_cfi_build_options o;
  amddwarf_cfi_build_options_init(&o);
  o.offset_size = 8;
  amddwarf_cfi_builder *c = NULL;
  assert_int_equal(amddwarf_cfi_builder_new(&o, NULL, &c), AMDDWARF_OK);
  uint32_t cie, fde;
  amddwarf_error err;
  amddwarf_cfi_builder_cie(c, "[amd:v0.0]", 4, 4, 16, &cie, NULL);
  uint64_t sf[3] = {64, (uint64_t)-2, 5};
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 1, cie, "DW_CFA_LLVM_def_aspace_cfa_sf",
                                                   sf, NULL, 0, NULL),
                   AMDDWARF_OK);
  uint64_t adv[3] = {1, 0, 0}, big[3] = {64, 0, 0}, none[3] = {0, 0, 0};
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 1, cie, "DW_CFA_advance_loc", adv, NULL, 0,
                                                   &err),
                   AMDDWARF_E_CFI_NOT_IN_CIE);
  assert_int_equal(amddwarf_cfi_builder_fde(c, 3, 0, 4, &fde, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  assert_int_equal(amddwarf_cfi_builder_fde(c, cie, 0, 4, &fde, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_offset", big, NULL, 0,
                                                   &err),
                   AMDDWARF_E_EXPR_BAD_OPERAND);
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_bogus", none, NULL, 0,
                                                   &err),
                   AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION);
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_LLVM_def_cfa_aspace", none,
                                                   NULL, 0, &err),
                   AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION);
  amddwarf_cfa_build_insn raw = {0x3f, {0, 0, 0}, NULL, 0};
  assert_int_equal(amddwarf_cfi_builder_insn(c, 0, fde, &raw, &err),
                   AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION);
  static const uint8_t expr[2] = {0x91, 0x08};
  uint64_t reg[3] = {2600, 0, 0};
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 0, fde, "DW_CFA_val_expression", reg,
                                                   expr, 2, NULL),
                   AMDDWARF_OK);
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_int_equal(amddwarf_cfi_builder_write(c, 0, &bytes, &size, NULL), AMDDWARF_OK);
  static const uint8_t want[] = {
      /* CIE: 0xffffffff, length 32, id 0xffff..., v4, "[amd:v0.0]", 8, 0, 4, 4,
         16, def_aspace_cfa_sf SGPR32 -2 private_lane, 7 x nop (total 48) */
      0xff, 0xff, 0xff, 0xff, 0x24, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 4, '[', 'a', 'm', 'd', ':', 'v', '0', '.', '0', ']', 0, 8, 0, 4, 4, 16, 0x31, 0x40,
      0x7e, 0x05, 0, 0, 0, 0, 0, 0, 0,
      /* FDE: length 36, CIE pointer 0, start 0, range 4, val_expression VGPR40
         (2600) {fbreg 8}, 6 x nop (total 48) */
      0xff, 0xff, 0xff, 0xff, 0x24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0x16, 0xa8, 0x14, 0x02, 0x91, 0x08, 0, 0, 0, 0, 0, 0};
  assert_int_equal(size, sizeof want);
  assert_memory_equal(bytes, want, sizeof want);
  amddwarf_produce_free_bytes(NULL, bytes, size);
  amddwarf_cfi_builder_free(c);
  /* draft: 0x2f is DW_CFA_LLVM_def_cfa_aspace */
  o.offset_size = 4;
  o.draft_dialect = 1;
  assert_int_equal(amddwarf_cfi_builder_new(&o, NULL, &c), AMDDWARF_OK);
  amddwarf_cfi_builder_cie(c, "", 4, 4, 16, &cie, NULL);
  uint64_t as[3] = {6, 0, 0};
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 1, cie, "DW_CFA_LLVM_def_cfa_aspace", as,
                                                   NULL, 0, NULL),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_builder_insn_named(c, 1, cie,
                                                   "DW_CFA_GNU_negative_offset_extended", as,
                                                   NULL, 0, &err),
                   AMDDWARF_E_CFI_UNKNOWN_INSTRUCTION);
  amddwarf_cfi_builder_free(c);
}

/* ---- DWARF writer --------------------------------------------------------------- */

static void test_smallest_units(void **state)
{
  (void)state;
  for (int version = 4; version <= 5; version++) {
    amddwarf_dwarf_options o;
    amddwarf_dwarf_options_init(&o);
    o.version = (uint16_t)version;
    amddwarf_dwarf_builder *b = NULL;
    assert_int_equal(amddwarf_dwarf_builder_new(&o, NULL, &b), AMDDWARF_OK);
    amddwarf_die_id unit;
    assert_int_equal(amddwarf_dwarf_unit_new(b, "a", NULL, NULL, 0, NULL, &unit, NULL),
                     AMDDWARF_OK);
    amddwarf_dwarf_sections s;
    assert_int_equal(amddwarf__dwarf_write_sections(b, 0x1000, 0x40, &s, NULL), AMDDWARF_OK);
    if (version == 5) {
      /* compile_unit, no children: name strp, low_pc addrx, high_pc udata,
         addr_base sec_offset */
      static const uint8_t abbrev[] = {1,    0x11, 0,    0x03, 0x0e, 0x11, 0x1b, 0x12,
                                       0x0f, 0x73, 0x17, 0,    0,    0};
      static const uint8_t info[] = {0x13, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0,
                                     1,    0, 0, 0, 0, 0, 0x40, 8, 0, 0, 0};
      static const uint8_t addr[] = {0x0c, 0, 0, 0, 5, 0, 8, 0, 0x00, 0x10, 0, 0, 0, 0, 0, 0};
      assert_int_equal(s.abbrev.size, sizeof abbrev);
      assert_memory_equal(s.abbrev.data, abbrev, sizeof abbrev);
      assert_int_equal(s.info.size, sizeof info);
      assert_memory_equal(s.info.data, info, sizeof info);
      assert_int_equal(s.addr.size, sizeof addr);
      assert_memory_equal(s.addr.data, addr, sizeof addr);
    } else {
      static const uint8_t abbrev[] = {1, 0x11, 0, 0x03, 0x0e, 0x11, 0x01, 0x12, 0x0f, 0, 0, 0};
      static const uint8_t info[] = {0x15, 0, 0, 0, 4,    0, 0, 0, 0, 0, 8, 1, 0, 0, 0,
                                     0,    0, 0x10, 0, 0, 0, 0, 0, 0, 0x40};
      assert_int_equal(s.abbrev.size, sizeof abbrev);
      assert_memory_equal(s.abbrev.data, abbrev, sizeof abbrev);
      assert_int_equal(s.info.size, sizeof info);
      assert_memory_equal(s.info.data, info, sizeof info);
      assert_int_equal(s.addr.size, 0);
    }
    assert_int_equal(s.str.size, 2);
    assert_memory_equal(s.str.data, "a", 2);
    amddwarf__dwarf_sections_free(&s);
    amddwarf_dwarf_builder_free(b);
  }
}

/* Location and range lists, and the address table they index (DWARF 5
   sections 7.7.3, 7.25, 7.27, 7.29; DWARF 4 sections 2.6.2, 2.17.3). */
static void test_lists(void **state)
{
  (void)state;
  for (int version = 4; version <= 5; version++) {
    amddwarf_dwarf_options o;
    amddwarf_dwarf_options_init(&o);
    o.version = (uint16_t)version;
    amddwarf_dwarf_builder *b = NULL;
    assert_int_equal(amddwarf_dwarf_builder_new(&o, NULL, &b), AMDDWARF_OK);
    amddwarf_die_id unit, sub, var;
    amddwarf_dwarf_unit_new(b, "a", NULL, NULL, 0, NULL, &unit, NULL);
    amddwarf_dwarf_die_new(b, unit, 0x2e, &sub, NULL);
    uint64_t starts[2] = {0x00, 0x20}, ends[2] = {0x10, 0x30};
    assert_int_equal(amddwarf_dwarf_attr_ranges(b, sub, starts, ends, 2, NULL), AMDDWARF_OK);
    amddwarf_dwarf_die_new(b, sub, 0x34, &var, NULL);
    amddwarf_loclist_id list;
    amddwarf_dwarf_attr_loclist(b, var, 0x02, &list, NULL);
    amddwarf_expr_format f;
    amddwarf_dwarf_builder_expr_format(b, &f);
    amddwarf_expr_builder *x = NULL;
    amddwarf_expr_builder_new(&f, NULL, &x);
    amddwarf_expr_builder_op(x, AMDDWARF_OP_lit1, 0, 0, NULL);
    assert_int_equal(amddwarf_dwarf_loclist_add(b, list, 8, 0x10, x, NULL), AMDDWARF_OK);
    amddwarf_expr_builder_reset(x);
    amddwarf_expr_builder_op(x, AMDDWARF_OP_lit0, 0, 0, NULL);
    assert_int_equal(amddwarf_dwarf_loclist_add(b, list, 0, 8, x, NULL), AMDDWARF_OK);
    amddwarf_expr_builder_free(x);
    amddwarf_dwarf_sections s;
    assert_int_equal(amddwarf__dwarf_write_sections(b, 0x1000, 0x40, &s, NULL), AMDDWARF_OK);
    if (version == 5) {
      /* addresses: the unit's low_pc, then list starts, deduplicated */
      static const uint8_t addr[] = {0x1c, 0, 0, 0, 5, 0, 8, 0,
                                     0x00, 0x10, 0, 0, 0, 0, 0, 0,
                                     0x08, 0x10, 0, 0, 0, 0, 0, 0,
                                     0x20, 0x10, 0, 0, 0, 0, 0, 0};
      /* DW_LLE_startx_length index, length, expression; sorted by start */
      static const uint8_t loc[] = {0x13, 0, 0, 0, 5, 0, 8, 0, 0, 0, 0, 0,
                                    0x03, 0x00, 0x08, 0x01, 0x30,
                                    0x03, 0x01, 0x08, 0x01, 0x31, 0x00};
      static const uint8_t ranges[] = {0x0f, 0, 0, 0, 5, 0, 8, 0, 0, 0, 0, 0,
                                       0x03, 0x00, 0x10, 0x03, 0x02, 0x10, 0x00};
      assert_int_equal(s.addr.size, sizeof addr);
      assert_memory_equal(s.addr.data, addr, sizeof addr);
      assert_int_equal(s.loc.size, sizeof loc);
      assert_memory_equal(s.loc.data, loc, sizeof loc);
      assert_int_equal(s.ranges.size, sizeof ranges);
      assert_memory_equal(s.ranges.data, ranges, sizeof ranges);
    } else {
      /* offsets from the unit's base address (its low_pc, 0x1000) */
      static const uint8_t loc[] = {0, 0, 0, 0, 0, 0, 0, 0,    8, 0, 0, 0, 0, 0, 0, 0,
                                    1, 0, 0x30,
                                    8, 0, 0, 0, 0, 0, 0, 0,    0x10, 0, 0, 0, 0, 0, 0, 0,
                                    1, 0, 0x31,
                                    0, 0, 0, 0, 0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0, 0};
      static const uint8_t ranges[] = {0, 0, 0, 0, 0, 0, 0, 0,    0x10, 0, 0, 0, 0, 0, 0, 0,
                                       0x20, 0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0, 0};
      assert_int_equal(s.addr.size, 0);
      assert_int_equal(s.loc.size, sizeof loc);
      assert_memory_equal(s.loc.data, loc, sizeof loc);
      assert_int_equal(s.ranges.size, sizeof ranges);
      assert_memory_equal(s.ranges.data, ranges, sizeof ranges);
    }
    amddwarf__dwarf_sections_free(&s);
    amddwarf_dwarf_builder_free(b);
  }
}

static void test_builder_errors(void **state)
{
  (void)state;
  amddwarf_dwarf_builder *b = NULL;
  assert_int_equal(amddwarf_dwarf_builder_new(NULL, NULL, &b), AMDDWARF_OK);
  amddwarf_error err;
  amddwarf_die_id unit, sub, var;
  amddwarf_dwarf_unit_new(b, "u", NULL, NULL, 0, NULL, &unit, NULL);
  assert_int_equal(amddwarf_dwarf_die_new(b, 42, 0x2e, &sub, &err), AMDDWARF_E_PRODUCE_BAD_DIE);
  assert_int_equal(amddwarf_dwarf_die_new(b, unit, 0x11, &sub, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_dwarf_die_new(b, unit, 0x2e, &sub, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_attr_string(b, sub, 0x03, "f", NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_attr_udata(b, sub, 0x03, 1, &err),
                   AMDDWARF_E_PRODUCE_DUPLICATE_ATTRIBUTE);
  assert_non_null(strstr(err.message, "0x3"));
  assert_int_equal(amddwarf_dwarf_attr_ref(b, sub, 0x49, 77, &err), AMDDWARF_E_PRODUCE_BAD_DIE);
  uint64_t s[2] = {8, 0}, e[2] = {4, 8};
  assert_int_equal(amddwarf_dwarf_attr_ranges(b, sub, s, e, 2, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "inverted"));
  amddwarf_die_id other;
  amddwarf_dwarf_die_new(b, sub, 0x34, &var, NULL);
  amddwarf_loclist_id list;
  assert_int_equal(amddwarf_dwarf_attr_loclist(b, var, 0x02, &list, NULL), AMDDWARF_OK);
  amddwarf_expr_format f;
  amddwarf_dwarf_builder_expr_format(b, &f);
  amddwarf_expr_builder *x = NULL;
  amddwarf_expr_builder_new(&f, NULL, &x);
  amddwarf_expr_builder_op(x, AMDDWARF_OP_lit0, 0, 0, NULL);
  assert_int_equal(amddwarf_dwarf_loclist_add(b, list, 0, 8, x, NULL), AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_loclist_add(b, list, 4, 12, x, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "overlaps"));
  assert_int_equal(amddwarf_dwarf_loclist_add(b, list, 12, 12, x, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_expr_builder_free(x);
  /* an expression in another format is refused */
  f.offset_size = 8;
  amddwarf_expr_builder_new(&f, NULL, &x);
  assert_int_equal(amddwarf_dwarf_attr_expr(b, var, 0x40, x, &err), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_expr_builder_free(x);
  uint32_t file;
  assert_int_equal(amddwarf_dwarf_line_file(b, sub, "x", NULL, &file, &err),
                   AMDDWARF_E_PRODUCE_BAD_DIE);
  assert_int_equal(amddwarf_dwarf_line_row(b, unit, 0, 1, 1, 0, 1, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  (void)other;
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANE_PC), 0x3e12);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANES), 0x3e11);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_VECTOR_SIZE), 0x3e13);
  amddwarf_dwarf_builder_free(b);
  amddwarf_dwarf_options o;
  amddwarf_dwarf_options_init(&o);
  o.old_attribute_codes = 1;
  assert_int_equal(amddwarf_dwarf_builder_new(&o, NULL, &b), AMDDWARF_OK);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANE_PC), 0x3e0b);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANES), 0x3e0a);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_VECTOR_SIZE), 0x3e0c);
  assert_int_equal(amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_ACTIVE_LANE), 0x3e08);
  amddwarf_dwarf_builder_free(b);
  o.version = 3;
  assert_int_equal(amddwarf_dwarf_builder_new(&o, NULL, &b), AMDDWARF_E_INVALID_ARGUMENT);
}

static void test_object_errors(void **state)
{
  (void)state;
  amddwarf_write_options o;
  amddwarf_write_options_init(&o);
  static const uint8_t text[8] = {0};
  o.text = text;
  o.text_size = sizeof text;
  o.processor = "gfx9000";
  uint8_t *out = NULL;
  size_t size = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_write(NULL, &o, &out, &size, &err),
                   AMDDWARF_E_PRODUCE_UNKNOWN_PROCESSOR);
  assert_non_null(strstr(err.message, "gfx9000"));
  o.processor = "gfx1030";
  o.xnack = 4;
  assert_int_equal(amddwarf_object_write(NULL, &o, &out, &size, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  o.xnack = 0;
  amddwarf_symbol_desc sym = {"far", 100, 4, 0, 0};
  o.symbols = &sym;
  o.symbol_count = 1;
  assert_int_equal(amddwarf_object_write(NULL, &o, &out, &size, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  sym.text_offset = 4;
  assert_int_equal(amddwarf_object_write(NULL, &o, &out, &size, &err), AMDDWARF_OK);
  /* ELF header: magic, ELFCLASS64, little endian, HSA OS ABI 64, ABI version
     3, ET_REL, EM_AMDGPU (224), e_flags = EF_AMDGPU_MACH gfx1030 (0x36) */
  static const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 64, 3};
  assert_true(size > 64);
  assert_memory_equal(out, ident, sizeof ident);
  assert_int_equal(out[16] | out[17] << 8, 1);
  assert_int_equal(out[18] | out[19] << 8, 224);
  assert_int_equal(out[48] | out[49] << 8 | out[50] << 16 | out[51] << 24, 0x36);
  amddwarf_produce_free_bytes(NULL, out, size);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vgpr_lane),          cmocka_unit_test(test_sgpr_in_vgpr_lane),
      cmocka_unit_test(test_vgpr_spill),         cmocka_unit_test(test_frame_base_private_local),
      cmocka_unit_test(test_dialect_rejections), cmocka_unit_test(test_operands),
      cmocka_unit_test(test_labels),             cmocka_unit_test(test_references),
      cmocka_unit_test(test_assemble),           cmocka_unit_test(test_cfi_bytes),
      cmocka_unit_test(test_cfi_dwarf64_and_errors), cmocka_unit_test(test_smallest_units),
      cmocka_unit_test(test_lists),              cmocka_unit_test(test_builder_errors),     cmocka_unit_test(test_object_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
