/* Unit tests of src/spirv: the module reader (header in both byte orders,
 * bounds-checked walk, every error path), the instruction-index count of
 * specs/spirv-instruction-index.md section 2 (line attachment and
 * propagation, scope ends, DebugScope, parameters, copies of lines), line and
 * source resolution with OpSource/OpSourceContinued and DebugSource/
 * DebugSourceContinued/DebugLine, and the #line rule.
 *
 * Modules are assembled word by word with the builder below; expected
 * indexes are worked out by hand from the rules (each test says how). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/spirv.h>

#include "spirv_build.h"
#include "spirv/module.h"

static amddwarf_spirv_module *open_ok(const mod *m)
{
  amddwarf_spirv_module *module = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_spirv_module_open(m->w, m->n * 4, NULL, &module, &err);
  if (st != AMDDWARF_OK)
    fail_msg("open failed: %s", err.message);
  return module;
}

static amddwarf_status open_err(const void *data, size_t size, amddwarf_error *err)
{
  amddwarf_spirv_module *module = NULL;
  amddwarf_error_clear(err);
  amddwarf_status st = amddwarf_spirv_module_open(data, size, NULL, &module, err);
  assert_null(module);
  return st;
}

enum {
  OP_SOURCE_CONTINUED = 2, OP_SOURCE = 3, OP_STRING = 7, OP_LINE = 8, OP_EXTENSION = 10,
  OP_EXT_INST_IMPORT = 11, OP_EXT_INST = 12, OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15,
  OP_CAPABILITY = 17, OP_TYPE_VOID = 19, OP_TYPE_INT = 21, OP_TYPE_FUNCTION = 33,
  OP_CONSTANT = 43, OP_FUNCTION = 54, OP_FUNCTION_PARAMETER = 55, OP_FUNCTION_END = 56,
  OP_FUNCTION_CALL = 57, OP_COPY_OBJECT = 83, OP_LABEL = 248, OP_BRANCH = 249, OP_RETURN = 253,
  OP_NO_LINE = 317,
};

/* Module A (ids: 1 void, 2 fn type, 3 uint, 4 const 5, 5 string, 6 main,
   7 label, 8.. values). Positions and indexes, by the rules of the spec:
     pos idx
     0   0   OpCapability
     1   1   OpMemoryModel
     2   2   OpEntryPoint
     3   3   OpString "a.comp"
     4   4   OpSource GLSL 450 %5 "line1\n#line 10\nten\neleven"
     5   5   OpTypeVoid
     6   6   OpTypeFunction
     7   7   OpTypeInt
     8   8   OpConstant
     9   -   OpLine %5 10 2        (attached to OpFunction, propagates)
     10  9   OpFunction            (n = 10)
     11  10  OpLabel               (n = 11)
     12  12  OpCopyObject %8       (L = 1 propagated: 11 + 1; n = 13)
     13  -   OpLine %5 11 0
     14  14  OpCopyObject %9       (L = 1 explicit: 13 + 1; n = 15)
     15  -   OpNoLine
     16  16  OpCopyObject %10      (L = 1, the no-line; no line in effect; n = 17)
     17  17  OpCopyObject %11      (L = 0; n = 18)
     18  18  OpReturn              (n = 19)
     19  19  OpFunctionEnd */
static void build_module_a(mod *m)
{
  mod_init(m);
  inst(m, OP_CAPABILITY, 1, 1u);
  inst(m, OP_MEMORY_MODEL, 2, 0u, 1u);
  {
    uint32_t pre[] = {5u, 6u};
    inst_str(m, OP_ENTRY_POINT, pre, 2, "main", NULL, 0);
  }
  {
    uint32_t pre[] = {5u};
    inst_str(m, OP_STRING, pre, 1, "a.comp", NULL, 0);
  }
  {
    uint32_t pre[] = {2u, 450u, 5u};
    inst_str(m, OP_SOURCE, pre, 3, "line1\n#line 10\nten\neleven", NULL, 0);
  }
  inst(m, OP_TYPE_VOID, 1, 1u);
  inst(m, OP_TYPE_FUNCTION, 2, 2u, 1u);
  inst(m, OP_TYPE_INT, 3, 3u, 32u, 0u);
  inst(m, OP_CONSTANT, 3, 3u, 4u, 5u);
  inst(m, OP_LINE, 3, 5u, 10u, 2u);
  inst(m, OP_FUNCTION, 4, 1u, 6u, 0u, 2u);
  inst(m, OP_LABEL, 1, 7u);
  inst(m, OP_COPY_OBJECT, 3, 3u, 8u, 4u);
  inst(m, OP_LINE, 3, 5u, 11u, 0u);
  inst(m, OP_COPY_OBJECT, 3, 3u, 9u, 8u);
  inst(m, OP_NO_LINE, 0);
  inst(m, OP_COPY_OBJECT, 3, 3u, 10u, 9u);
  inst(m, OP_COPY_OBJECT, 3, 3u, 11u, 10u);
  inst(m, OP_RETURN, 0);
  inst(m, OP_FUNCTION_END, 0);
}

static void expect_at(const amddwarf_spirv_module *module, uint32_t index,
                      amddwarf_spirv_index_mode mode, uint32_t position, uint16_t opcode,
                      uint32_t line, const char *source)
{
  amddwarf_spirv_location loc;
  amddwarf_error err;
  amddwarf_status st = amddwarf_spirv_module_resolve(module, index, mode, &loc, &err);
  if (st != AMDDWARF_OK)
    fail_msg("index %u: %s", index, err.message);
  assert_int_equal(loc.index, index);
  assert_int_equal(loc.position, position);
  assert_int_equal(loc.opcode, opcode);
  if (line == 0) {
    assert_false(loc.has_line);
    return;
  }
  assert_true(loc.has_line);
  assert_int_equal(loc.line, line);
  if (source) {
    assert_non_null(loc.source_line);
    assert_int_equal(loc.source_line_length, strlen(source));
    assert_memory_equal(loc.source_line, source, strlen(source));
  } else {
    assert_null(loc.source_line);
  }
}

static void expect_no_instruction(const amddwarf_spirv_module *module, uint32_t index)
{
  amddwarf_spirv_location loc;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_spirv_module_resolve(module, index, AMDDWARF_SPIRV_INDEX_INSTRUMENT,
                                                 &loc, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(err.status, AMDDWARF_NOT_FOUND);
  assert_non_null(strstr(err.message, "instruction index"));
}

static void test_index_counts_attached_and_propagated_lines(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  amddwarf_spirv_module *module = open_ok(&m);
  assert_int_equal(amddwarf_spirv_module_instruction_count(module), 20);
  assert_int_equal(amddwarf_spirv_module_index_limit(module, AMDDWARF_SPIRV_INDEX_INSTRUMENT),
                   20);
  expect_at(module, 8, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 8, OP_CONSTANT, 0, NULL);
  expect_at(module, 9, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 10, OP_FUNCTION, 10, "ten");
  expect_at(module, 10, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 11, OP_LABEL, 10, "ten");
  expect_at(module, 12, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 12, OP_COPY_OBJECT, 10, "ten");
  expect_at(module, 14, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 14, OP_COPY_OBJECT, 11, "eleven");
  expect_at(module, 16, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 16, OP_COPY_OBJECT, 0, NULL);
  expect_at(module, 17, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 17, OP_COPY_OBJECT, 0, NULL);
  expect_at(module, 18, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 18, OP_RETURN, 0, NULL);
  expect_at(module, 19, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 19, OP_FUNCTION_END, 0, NULL);
  /* 11, 13 and 15 are the counted copies of line instructions. */
  expect_no_instruction(module, 11);
  expect_no_instruction(module, 13);
  expect_no_instruction(module, 15);
  expect_no_instruction(module, 20);
  /* Details of one location. */
  amddwarf_spirv_location loc;
  assert_int_equal(amddwarf_spirv_module_resolve(module, 12, AMDDWARF_SPIRV_INDEX_INSTRUMENT,
                                                 &loc, NULL),
                   AMDDWARF_OK);
  assert_int_equal(loc.result_id, 8);
  assert_string_equal(loc.opname, "OpCopyObject");
  assert_null(loc.ext_set);
  assert_int_equal(loc.line_position, 9);
  assert_int_equal(loc.file_id, 5);
  assert_string_equal(loc.file, "a.comp");
  assert_int_equal(loc.column, 2);
  assert_int_equal(loc.source_text_line, 3);
  amddwarf_spirv_module_close(module);
}

/* A borrowed module reads the caller's words in place; its results are the
   same as a copied one's. */
static void test_borrowed_module(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  amddwarf_spirv_options options = {sizeof(options), NULL, 0, AMDDWARF_SPIRV_OPEN_BORROW};
  amddwarf_spirv_module *module = NULL;
  assert_int_equal(amddwarf_spirv_module_open(m.w, m.n * 4, &options, &module, NULL), AMDDWARF_OK);
  expect_at(module, 14, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 14, OP_COPY_OBJECT, 11, "eleven");
  amddwarf_spirv_module_close(module);
}

/* Batched look-ups give what single look-ups give, chunk boundaries included. */
static void test_batch_matches_single_lookups(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  amddwarf_spirv_module *module = open_ok(&m);
  enum { N = 70 };
  uint32_t indexes[N];
  for (uint32_t i = 0; i < N; i++)
    indexes[i] = (i * 7u) % 23u; /* 0..22: some past the end, some on copies */
  amddwarf_spirv_location batch[N];
  amddwarf_status statuses[N];
  size_t resolved = amddwarf_spirv_module_resolve_batch(
      module, indexes, N, AMDDWARF_SPIRV_INDEX_INSTRUMENT, batch, statuses);
  size_t expected = 0;
  for (uint32_t i = 0; i < N; i++) {
    amddwarf_spirv_location one;
    amddwarf_status st = amddwarf_spirv_module_resolve(module, indexes[i],
                                                       AMDDWARF_SPIRV_INDEX_INSTRUMENT, &one, NULL);
    assert_int_equal(statuses[i], st);
    assert_int_equal(batch[i].index, indexes[i]);
    if (st != AMDDWARF_OK)
      continue;
    expected++;
    assert_int_equal(batch[i].position, one.position);
    assert_int_equal(batch[i].opcode, one.opcode);
    assert_int_equal(batch[i].line, one.line);
    assert_int_equal(batch[i].has_line, one.has_line);
    assert_ptr_equal(batch[i].source_line, one.source_line);
  }
  assert_int_equal(resolved, expected);
  /* 17 of the values 0..22 resolve (not 11, 13, 15, 20-22); 70 = 3 * 23 + 1
     and the last one is index 0. */
  assert_int_equal(expected, 3 * 17 + 1);
  amddwarf_spirv_module_close(module);
}

static void test_position_mode_counts_every_instruction(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  amddwarf_spirv_module *module = open_ok(&m);
  assert_int_equal(amddwarf_spirv_module_index_limit(module, AMDDWARF_SPIRV_INDEX_POSITION), 20);
  /* A line instruction is itself an instruction here, with its own line. */
  expect_at(module, 9, AMDDWARF_SPIRV_INDEX_POSITION, 9, OP_LINE, 10, "ten");
  expect_at(module, 13, AMDDWARF_SPIRV_INDEX_POSITION, 13, OP_LINE, 11, "eleven");
  expect_at(module, 15, AMDDWARF_SPIRV_INDEX_POSITION, 15, OP_NO_LINE, 0, NULL);
  expect_at(module, 11, AMDDWARF_SPIRV_INDEX_POSITION, 11, OP_LABEL, 10, "ten");
  amddwarf_spirv_location loc;
  assert_int_equal(amddwarf_spirv_module_resolve(module, 20, AMDDWARF_SPIRV_INDEX_POSITION, &loc,
                                                 NULL),
                   AMDDWARF_NOT_FOUND);
  amddwarf_spirv_module_close(module);
}

static void test_big_endian_module_reads_the_same(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  uint8_t *swapped = malloc(m.n * 4);
  assert_non_null(swapped);
  for (size_t i = 0; i < m.n; i++) {
    swapped[4 * i] = (uint8_t)(m.w[i] >> 24);
    swapped[4 * i + 1] = (uint8_t)(m.w[i] >> 16);
    swapped[4 * i + 2] = (uint8_t)(m.w[i] >> 8);
    swapped[4 * i + 3] = (uint8_t)m.w[i];
  }
  /* The builder's words are host-order; on a big-endian host the plain
     module is the swapped one and the loop above makes it little-endian. */
  amddwarf_spirv_module *module = NULL;
  assert_int_equal(amddwarf_spirv_module_open(swapped, m.n * 4, NULL, &module, NULL), AMDDWARF_OK);
  free(swapped);
  const amddwarf_spirv_header *h = amddwarf_spirv_module_header(module);
  assert_int_equal(h->magic, 0x07230203);
  assert_int_equal(h->version, 0x00010300);
  assert_int_equal(h->bound, 100);
  expect_at(module, 12, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 12, OP_COPY_OBJECT, 10, "ten");
  expect_at(module, 14, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 14, OP_COPY_OBJECT, 11, "eleven");
  assert_string_equal(amddwarf_spirv_module_string(module, 5), "a.comp");
  amddwarf_spirv_module_close(module);
}

/* Terminators end the line scope; parameters count their lines; a module-level
   OpLine propagates over the global values after it (each counted with one
   copy).
     pos idx
     0   0  OpCapability   1 0 OpMemoryModel ... (0-5 as below)
   See the comments inline. */
static void test_scope_ends_at_terminators_and_parameters_count_lines(void **state)
{
  (void)state;
  mod m;
  mod_init(&m);
  inst(&m, OP_CAPABILITY, 1, 1u);                 /* pos 0 idx 0 */
  inst(&m, OP_MEMORY_MODEL, 2, 0u, 1u);           /* pos 1 idx 1 */
  {
    uint32_t pre[] = {5u};
    inst_str(&m, OP_STRING, pre, 1, "b.comp", NULL, 0); /* pos 2 idx 2 */
  }
  inst(&m, OP_TYPE_VOID, 1, 1u);                  /* pos 3 idx 3 */
  inst(&m, OP_TYPE_INT, 3, 3u, 32u, 0u);          /* pos 4 idx 4 */
  inst(&m, OP_LINE, 3, 5u, 3u, 0u);               /* pos 5 */
  inst(&m, OP_CONSTANT, 3, 3u, 4u, 1u);           /* pos 6 idx 5+1=6, n=7 */
  inst(&m, OP_CONSTANT, 3, 3u, 9u, 2u);           /* pos 7 idx 7+1=8, n=9 (copy) */
  inst(&m, OP_TYPE_FUNCTION, 3, 2u, 1u, 3u);      /* pos 8 idx 10, n=11 */
  inst(&m, OP_FUNCTION, 4, 1u, 6u, 0u, 2u);       /* pos 9 idx 11, n=12 */
  inst(&m, OP_FUNCTION_PARAMETER, 2, 3u, 10u);    /* pos 10 idx 13, n=14 (copy) */
  inst(&m, OP_LABEL, 1, 7u);                      /* pos 11 idx 14, n=15 */
  inst(&m, OP_COPY_OBJECT, 3, 3u, 8u, 4u);        /* pos 12 idx 16, n=17 */
  inst(&m, OP_BRANCH, 1, 11u);                    /* pos 13 idx 18, n=19: ends scope */
  inst(&m, OP_LABEL, 1, 11u);                     /* pos 14 idx 19, n=20 */
  inst(&m, OP_COPY_OBJECT, 3, 3u, 12u, 4u);       /* pos 15 idx 20, n=21: no line */
  inst(&m, OP_RETURN, 0);                         /* pos 16 idx 21 */
  inst(&m, OP_FUNCTION_END, 0);                   /* pos 17 idx 22 */
  amddwarf_spirv_module *module = open_ok(&m);
  expect_at(module, 6, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 6, OP_CONSTANT, 3, NULL);
  expect_at(module, 8, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 7, OP_CONSTANT, 3, NULL);
  expect_at(module, 10, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 8, OP_TYPE_FUNCTION, 3, NULL);
  expect_at(module, 11, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 9, OP_FUNCTION, 3, NULL);
  expect_at(module, 13, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 10, OP_FUNCTION_PARAMETER, 3, NULL);
  expect_at(module, 14, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 11, OP_LABEL, 3, NULL);
  expect_at(module, 16, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 12, OP_COPY_OBJECT, 3, NULL);
  expect_at(module, 18, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 13, OP_BRANCH, 3, NULL);
  expect_at(module, 20, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 15, OP_COPY_OBJECT, 0, NULL);
  expect_at(module, 22, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 17, OP_FUNCTION_END, 0, NULL);
  expect_no_instruction(module, 5);
  expect_no_instruction(module, 12);
  amddwarf_spirv_module_close(module);
}

/* NonSemantic.Shader.DebugInfo.100: DebugScope is not counted, DebugLine is a
   line instruction whose operands are constant ids, DebugSource text is
   continued by DebugSourceContinued.
     pos idx
     0-15 0-15 module level (16 instructions)
     16  16  OpFunction      17 17 OpLabel (n = 18)
     18  -   DebugScope (skipped)
     19  -   DebugLine %src 3 3 1 1
     20  19  OpCopyObject    (L = 1; n = 20)
     21  21  OpReturn        (L = 1 propagated; n = 22)
     22  22  OpFunctionEnd */
static void test_shader_debuginfo_lines_and_sources(void **state)
{
  (void)state;
  mod m;
  mod_init(&m);
  const uint32_t ext = 20, sf = 21, st = 22, st2 = 23, src = 24, c3 = 25, c1 = 26, c4 = 27;
  inst(&m, OP_CAPABILITY, 1, 1u);
  inst_str(&m, OP_EXTENSION, NULL, 0, "SPV_KHR_non_semantic_info", NULL, 0);
  {
    uint32_t pre[] = {ext};
    inst_str(&m, OP_EXT_INST_IMPORT, pre, 1, "NonSemantic.Shader.DebugInfo.100", NULL, 0);
  }
  inst(&m, OP_MEMORY_MODEL, 2, 0u, 1u);
  {
    uint32_t pre[] = {5u, 6u};
    inst_str(&m, OP_ENTRY_POINT, pre, 2, "main", NULL, 0);
  }
  {
    uint32_t pre[] = {sf};
    inst_str(&m, OP_STRING, pre, 1, "c.comp", NULL, 0);
  }
  {
    uint32_t pre[] = {st};
    inst_str(&m, OP_STRING, pre, 1, "x\ny\n", NULL, 0);
  }
  {
    uint32_t pre[] = {st2};
    inst_str(&m, OP_STRING, pre, 1, "z\nw", NULL, 0);
  }
  inst(&m, OP_TYPE_VOID, 1, 1u);
  inst(&m, OP_TYPE_FUNCTION, 2, 2u, 1u);
  inst(&m, OP_TYPE_INT, 3, 3u, 32u, 0u);
  inst(&m, OP_CONSTANT, 3, 3u, c3, 3u);
  inst(&m, OP_CONSTANT, 3, 3u, c1, 1u);
  inst(&m, OP_CONSTANT, 3, 3u, c4, 4u);
  inst(&m, OP_EXT_INST, 6, 1u, src, ext, 35u, sf, st);       /* DebugSource */
  inst(&m, OP_EXT_INST, 5, 1u, 28u, ext, 102u, st2);         /* DebugSourceContinued */
  inst(&m, OP_FUNCTION, 4, 1u, 6u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 7u);
  inst(&m, OP_EXT_INST, 5, 1u, 29u, ext, 23u, 30u);          /* DebugScope */
  inst(&m, OP_EXT_INST, 9, 1u, 31u, ext, 103u, src, c3, c4, c1, c1); /* DebugLine 3..4 */
  inst(&m, OP_COPY_OBJECT, 3, 3u, 8u, c3);
  inst(&m, OP_RETURN, 0);
  inst(&m, OP_FUNCTION_END, 0);
  amddwarf_spirv_module *module = open_ok(&m);
  expect_at(module, 16, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 16, OP_FUNCTION, 0, NULL);
  expect_at(module, 17, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 17, OP_LABEL, 0, NULL);
  expect_at(module, 19, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 20, OP_COPY_OBJECT, 3, "z");
  expect_at(module, 21, AMDDWARF_SPIRV_INDEX_INSTRUMENT, 21, OP_RETURN, 3, "z");
  expect_no_instruction(module, 18);
  expect_no_instruction(module, 20);
  amddwarf_spirv_location loc;
  assert_int_equal(amddwarf_spirv_module_resolve(module, 19, AMDDWARF_SPIRV_INDEX_INSTRUMENT,
                                                 &loc, NULL),
                   AMDDWARF_OK);
  assert_int_equal(loc.file_id, src);
  assert_string_equal(loc.file, "c.comp");
  assert_int_equal(loc.end_line, 4);
  assert_int_equal(loc.column, 1);
  assert_int_equal(loc.end_column, 1);
  assert_int_equal(loc.line_position, 19);
  /* In position mode the DebugScope is an instruction. */
  assert_int_equal(amddwarf_spirv_module_resolve(module, 18, AMDDWARF_SPIRV_INDEX_POSITION, &loc,
                                                 NULL),
                   AMDDWARF_OK);
  assert_int_equal(loc.opcode, OP_EXT_INST);
  assert_string_equal(loc.ext_set, "NonSemantic.Shader.DebugInfo.100");
  assert_int_equal(loc.ext_opcode, 23);
  amddwarf_spirv_module_close(module);
}

/* OpSourceContinued extends the OpSource text; #line with a file name in the
   text serves OpLines whose file has no OpSource of its own. */
static void test_source_continued_and_line_directive_files(void **state)
{
  (void)state;
  mod m;
  mod_init(&m);
  inst(&m, OP_CAPABILITY, 1, 1u);
  inst(&m, OP_MEMORY_MODEL, 2, 0u, 1u);
  {
    uint32_t pre[] = {5u};
    inst_str(&m, OP_STRING, pre, 1, "m.frag", NULL, 0);
    uint32_t pre2[] = {9u};
    inst_str(&m, OP_STRING, pre2, 1, "inc.h", NULL, 0);
    uint32_t pre3[] = {13u};
    inst_str(&m, OP_STRING, pre3, 1, "other.h", NULL, 0);
  }
  {
    uint32_t pre[] = {2u, 450u, 5u};
    inst_str(&m, OP_SOURCE, pre, 3, "// hdr\n#line 1\nm1\nm2\n#line 7 \"inc", NULL, 0);
    inst_str(&m, OP_SOURCE_CONTINUED, NULL, 0, ".h\"\ni7\ni8\n#line 3 \"m.frag\"\nm3", NULL, 0);
  }
  inst(&m, OP_TYPE_VOID, 1, 1u);
  inst(&m, OP_TYPE_FUNCTION, 2, 2u, 1u);
  inst(&m, OP_FUNCTION, 4, 1u, 6u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 7u);
  inst(&m, OP_LINE, 3, 5u, 2u, 0u);
  inst(&m, OP_RETURN, 0); /* pos 12 */
  inst(&m, OP_FUNCTION_END, 0);
  inst(&m, OP_FUNCTION, 4, 1u, 16u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 17u);
  inst(&m, OP_LINE, 3, 9u, 8u, 0u);
  inst(&m, OP_RETURN, 0); /* pos 17 */
  inst(&m, OP_FUNCTION_END, 0);
  inst(&m, OP_FUNCTION, 4, 1u, 26u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 27u);
  inst(&m, OP_LINE, 3, 5u, 3u, 0u);
  inst(&m, OP_RETURN, 0); /* pos 22 */
  inst(&m, OP_FUNCTION_END, 0);
  inst(&m, OP_FUNCTION, 4, 1u, 36u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 37u);
  inst(&m, OP_LINE, 3, 13u, 4u, 0u);
  inst(&m, OP_RETURN, 0); /* pos 27: a file no text holds */
  inst(&m, OP_FUNCTION_END, 0);
  amddwarf_spirv_module *module = open_ok(&m);
  expect_at(module, 12, AMDDWARF_SPIRV_INDEX_POSITION, 12, OP_RETURN, 2, "m2");
  expect_at(module, 17, AMDDWARF_SPIRV_INDEX_POSITION, 17, OP_RETURN, 8, "i8");
  expect_at(module, 22, AMDDWARF_SPIRV_INDEX_POSITION, 22, OP_RETURN, 3, "m3");
  /* other.h has no OpSource and no #line names it: line number only. */
  expect_at(module, 27, AMDDWARF_SPIRV_INDEX_POSITION, 27, OP_RETURN, 4, NULL);
  amddwarf_spirv_module_close(module);
}

static void expect_line(const char *text, const char *file, uint32_t line, const char *want,
                        uint32_t want_text_line)
{
  const char *start = NULL;
  size_t length = 0;
  uint32_t text_line = 0;
  amddwarf_status st =
      amddwarf_spirv_find_source_line(text, strlen(text), file, line, &start, &length, &text_line);
  if (!want) {
    assert_int_equal(st, AMDDWARF_NOT_FOUND);
    return;
  }
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(length, strlen(want));
  assert_memory_equal(start, want, length);
  assert_int_equal(text_line, want_text_line);
}

static void test_line_rule(void **state)
{
  (void)state;
  static const char text[] = "// header\n"        /* 1 */
                             "#line 1\n"          /* 2 */
                             "a1\n"               /* 3 */
                             "a2\r\n"             /* 4 */
                             " # line 10 \"inc.h\" junk\n" /* 5 */
                             "i10\n"              /* 6 */
                             "i11\n"              /* 7 */
                             "#line 3 \"main.c\"\n" /* 8 */
                             "a3\n"               /* 9 */
                             "#line 20\n"         /* 10 */
                             "a20\n"              /* 11 */
                             "#line 20\n"         /* 12: ties go to the later one */
                             "b20";               /* 13 */
  expect_line(text, "main.c", 1, "a1", 3);
  expect_line(text, "main.c", 2, "a2", 4);   /* \r stripped */
  expect_line(text, "inc.h", 10, "i10", 6);
  expect_line(text, "inc.h", 11, "i11", 7);
  expect_line(text, "main.c", 3, "a3", 9);
  expect_line(text, "main.c", 20, "b20", 13);
  expect_line(text, "main.c", 21, NULL, 0);  /* past the text */
  /* The file in effect starts as the reported one, so "#line 1" on text
     line 2 serves inc.h too: 2 + 1 + (9 - 1) = 11. */
  expect_line(text, "inc.h", 9, "a20", 11);
  /* Without directives the line is the text line. */
  expect_line("p\nq\nr", NULL, 2, "q", 2);
  expect_line("p\nq\nr", "x", 3, "r", 3);
  expect_line("p\nq\nr", "x", 4, NULL, 0);
  expect_line("p\nq\nr", "x", 0, NULL, 0);
  /* Not directives: no blank after "line", no number, "#lines". */
  expect_line("#line5\nx\ny", NULL, 2, "x", 2);
  expect_line("#lines 9\nx\ny", NULL, 3, "y", 3);
  expect_line("#line \"f\"\nx", NULL, 2, "x", 2);
}

/* ---- error paths ------------------------------------------------------- */

static void test_header_errors(void **state)
{
  (void)state;
  amddwarf_error err;
  mod m;
  build_module_a(&m);
  assert_int_equal(open_err(m.w, 16, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  assert_int_equal(open_err(m.w, m.n * 4 - 2, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  assert_int_equal(err.offset, 0);
  uint32_t saved = m.w[0];
  m.w[0] = 0x12345678;
  assert_int_equal(open_err(m.w, m.n * 4, &err), AMDDWARF_E_SPIRV_BAD_MAGIC);
  assert_int_equal(err.offset, 0);
  assert_non_null(strstr(err.message, "0x12345678"));
  m.w[0] = saved;
  m.w[1] = 0x00010301;
  assert_int_equal(open_err(m.w, m.n * 4, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  assert_int_equal(err.offset, 4);
  m.w[1] = 0x00000900;
  assert_int_equal(open_err(m.w, m.n * 4, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  m.w[1] = 0x00010300;
  m.w[3] = 0;
  assert_int_equal(open_err(m.w, m.n * 4, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  assert_int_equal(err.offset, 12);
  assert_int_equal(open_err(NULL, 0, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
  amddwarf_spirv_module *module;
  assert_int_equal(amddwarf_spirv_module_open(m.w, m.n * 4, NULL, NULL, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  (void)module;
}

static void test_instruction_errors(void **state)
{
  (void)state;
  amddwarf_error err;
  mod m;
  build_module_a(&m);
  /* Word count 0 at the third instruction (word 10: 5 header + 2 + 3). */
  mod bad = m;
  bad.w[10] = OP_ENTRY_POINT;
  assert_int_equal(open_err(bad.w, bad.n * 4, &err), AMDDWARF_E_SPIRV_BAD_INSTRUCTION);
  assert_int_equal(err.offset, 40);
  assert_int_equal(err.opcode, OP_ENTRY_POINT);
  assert_non_null(strstr(err.message, "is zero"));
  /* The last instruction claims more words than remain. */
  bad = m;
  bad.w[bad.n - 1] = (3u << 16) | OP_FUNCTION_END;
  assert_int_equal(open_err(bad.w, bad.n * 4, &err), AMDDWARF_E_SPIRV_BAD_INSTRUCTION);
  assert_int_equal(err.offset, (bad.n - 1) * 4);
  assert_non_null(strstr(err.message, "past the end"));
  /* Instruction limit. */
  amddwarf_spirv_options options = {sizeof(options), NULL, 5, 0};
  amddwarf_spirv_module *module = NULL;
  assert_int_equal(amddwarf_spirv_module_open(m.w, m.n * 4, &options, &module, &err),
                   AMDDWARF_E_LIMIT);
  assert_null(module);
  /* Unknown option flags. */
  options.max_instructions = 0;
  options.flags = 2;
  assert_int_equal(amddwarf_spirv_module_open(m.w, m.n * 4, &options, &module, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(module);
}

static void expect_operand_error(mod *m, uint64_t offset, uint32_t opcode, const char *needle)
{
  amddwarf_error err;
  assert_int_equal(open_err(m->w, m->n * 4, &err), AMDDWARF_E_SPIRV_BAD_OPERAND);
  assert_int_equal(err.offset, offset);
  assert_int_equal(err.opcode, (int32_t)opcode);
  if (!strstr(err.message, needle))
    fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_operand_errors(void **state)
{
  (void)state;
  mod m;
  /* OpString whose string has no NUL. */
  mod_init(&m);
  inst(&m, OP_CAPABILITY, 1, 1u);
  inst(&m, OP_STRING, 2, 5u, 0x61616161u);
  expect_operand_error(&m, 28, OP_STRING, "NUL");
  /* OpLine with two operands. */
  mod_init(&m);
  inst(&m, OP_LINE, 2, 5u, 1u);
  expect_operand_error(&m, 20, OP_LINE, "file, line and column");
  /* OpSource without version. */
  mod_init(&m);
  inst(&m, OP_SOURCE, 1, 2u);
  expect_operand_error(&m, 20, OP_SOURCE, "version");
  /* OpSourceContinued without text. */
  mod_init(&m);
  inst(&m, OP_SOURCE_CONTINUED, 0);
  expect_operand_error(&m, 20, OP_SOURCE_CONTINUED, "text");
  /* OpSource text without NUL. */
  mod_init(&m);
  inst(&m, OP_SOURCE, 4, 2u, 450u, 5u, 0x62626262u);
  expect_operand_error(&m, 20, OP_SOURCE, "NUL");
  /* OpExtInstImport name without NUL. */
  mod_init(&m);
  inst(&m, OP_EXT_INST_IMPORT, 2, 3u, 0x63636363u);
  expect_operand_error(&m, 20, OP_EXT_INST_IMPORT, "NUL");
  /* OpExtInst without its instruction number. */
  mod_init(&m);
  inst(&m, OP_EXT_INST, 3, 1u, 2u, 3u);
  expect_operand_error(&m, 20, OP_EXT_INST, "instruction number");
  /* DebugSource without a file, DebugLine with too few operands. */
  mod_init(&m);
  {
    uint32_t pre[] = {3u};
    inst_str(&m, OP_EXT_INST_IMPORT, pre, 1, "NonSemantic.Shader.DebugInfo.100", NULL, 0);
  }
  size_t at = m.n;
  inst(&m, OP_EXT_INST, 4, 1u, 9u, 3u, 35u);
  expect_operand_error(&m, at * 4, OP_EXT_INST, "DebugSource");
  m.n = at;
  inst(&m, OP_EXT_INST, 6, 1u, 9u, 3u, 103u, 4u, 4u);
  expect_operand_error(&m, at * 4, OP_EXT_INST, "DebugLine");
  m.n = at;
  inst(&m, OP_EXT_INST, 4, 1u, 9u, 3u, 102u);
  expect_operand_error(&m, at * 4, OP_EXT_INST, "DebugSourceContinued");
}

static void test_opcode_names(void **state)
{
  (void)state;
  assert_string_equal(amddwarf_spirv_opcode_name(87), "OpImageSampleImplicitLod");
  assert_string_equal(amddwarf_spirv_opcode_name(61), "OpLoad");
  assert_string_equal(amddwarf_spirv_opcode_name(5633), "OpMemberDecorateString");
  /* Rows across the table (a row out of order would hide some of them). */
  assert_string_equal(amddwarf_spirv_opcode_name(0), "OpNop");
  assert_string_equal(amddwarf_spirv_opcode_name(8), "OpLine");
  assert_string_equal(amddwarf_spirv_opcode_name(62), "OpStore");
  assert_string_equal(amddwarf_spirv_opcode_name(248), "OpLabel");
  assert_string_equal(amddwarf_spirv_opcode_name(255), "OpUnreachable");
  assert_string_equal(amddwarf_spirv_opcode_name(317), "OpNoLine");
  assert_string_equal(amddwarf_spirv_opcode_name(4416), "OpTerminateInvocation");
  assert_string_equal(amddwarf_spirv_opcode_name(5341), "OpTypeAccelerationStructureKHR");
  assert_null(amddwarf_spirv_opcode_name(18));
  unsigned found = 0;
  for (uint32_t op = 0; op < 6000; op++) {
    const char *name = amddwarf_spirv_opcode_name(op);
    if (name) {
      assert_true(strncmp(name, "Op", 2) == 0);
      found++;
    }
  }
  assert_int_equal(found, 172); /* every row of opcodes.def */
}

/* OpEntryPoint is read with the module (execution model, function, name);
   the GUARD column of opcodes.def marks the seed's 32 image instructions and
   OpLoad / OpStore, and nothing else. */
static void test_entry_points_and_guards(void **state)
{
  (void)state;
  mod m;
  build_module_a(&m);
  amddwarf_spirv_module *module = open_ok(&m);
  assert_int_equal(amddwarf_spirv_module_entry_point_count(module), 1);
  const amddwarf_spirv_entry_point *e = amddwarf_spirv_module_entry_point(module, 0);
  assert_int_equal(e->execution_model, 5);
  assert_int_equal(e->function_id, 6);
  assert_string_equal(e->name, "main");
  assert_null(amddwarf_spirv_module_entry_point(module, 1));
  amddwarf_spirv_module_close(module);
  assert_int_equal(amddwarf_spirv_module_entry_point_count(NULL), 0);

  mod_init(&m);
  inst(&m, OP_ENTRY_POINT, 3, 4u, 6u, 0x6e69616du); /* "main" without its NUL */
  amddwarf_error err;
  assert_int_equal(open_err(m.w, m.n * 4, &err), AMDDWARF_E_SPIRV_BAD_OPERAND);
  assert_int_equal(err.offset, 20);

  assert_int_equal(amddwarf__spirv_opcode_guard(61), AMDDWARF_SPIRV_GUARD_MEMORY);  /* OpLoad */
  assert_int_equal(amddwarf__spirv_opcode_guard(62), AMDDWARF_SPIRV_GUARD_MEMORY);  /* OpStore */
  assert_int_equal(amddwarf__spirv_opcode_guard(87), AMDDWARF_SPIRV_GUARD_IMAGE);
  assert_int_equal(amddwarf__spirv_opcode_guard(312), AMDDWARF_SPIRV_GUARD_IMAGE);
  assert_int_equal(amddwarf__spirv_opcode_guard(320), AMDDWARF_SPIRV_GUARD_IMAGE);
  assert_int_equal(amddwarf__spirv_opcode_guard(60), AMDDWARF_SPIRV_GUARD_NONE); /* TexelPointer */
  assert_int_equal(amddwarf__spirv_opcode_guard(234), AMDDWARF_SPIRV_GUARD_NONE); /* AtomicIAdd */
  assert_int_equal(amddwarf__spirv_opcode_guard(248), AMDDWARF_SPIRV_GUARD_NONE); /* OpLabel */
  assert_int_equal(amddwarf__spirv_opcode_guard(100000), AMDDWARF_SPIRV_GUARD_NONE);
  unsigned image = 0, memory = 0;
  for (uint32_t op = 0; op < 6000; op++) {
    image += amddwarf__spirv_opcode_guard(op) == AMDDWARF_SPIRV_GUARD_IMAGE;
    memory += amddwarf__spirv_opcode_guard(op) == AMDDWARF_SPIRV_GUARD_MEMORY;
    if (amddwarf__spirv_opcode_guard(op) != AMDDWARF_SPIRV_GUARD_NONE)
      assert_non_null(amddwarf_spirv_opcode_name(op));
  }
  assert_int_equal(image, 32);
  assert_int_equal(memory, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_index_counts_attached_and_propagated_lines),
      cmocka_unit_test(test_position_mode_counts_every_instruction),
      cmocka_unit_test(test_borrowed_module),
      cmocka_unit_test(test_batch_matches_single_lookups),
      cmocka_unit_test(test_big_endian_module_reads_the_same),
      cmocka_unit_test(test_scope_ends_at_terminators_and_parameters_count_lines),
      cmocka_unit_test(test_shader_debuginfo_lines_and_sources),
      cmocka_unit_test(test_source_continued_and_line_directive_files),
      cmocka_unit_test(test_line_rule),
      cmocka_unit_test(test_header_errors),
      cmocka_unit_test(test_instruction_errors),
      cmocka_unit_test(test_operand_errors),
      cmocka_unit_test(test_opcode_names),
      cmocka_unit_test(test_entry_points_and_guards),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
