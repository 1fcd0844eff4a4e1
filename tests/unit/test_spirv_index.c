/* Unit tests of the SPIR-V index's checkpoints: a look-up replays the walk
 * from the checkpoint before the instruction it wants, so every answer must
 * be what one walk from the start of the module gives.
 *
 * For glslangValidator's modules in the fuzz seeds (-g, -gV, -gVS; OpLine,
 * DebugLine, DebugScope, functions with parameters) a reference walk written
 * here from specs/spirv-instruction-index.md section 2 gives, per position,
 * the word offset and the line in effect, and per instruction index the
 * instruction it names or none. Every position and every index is looked up,
 * one by one and batched, with checkpoints every 1, 2, 4 and 8 instructions
 * (replays crossing many checkpoints) and with the default interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/spirv.h>

#include "spirv/module.h"
#include "spirv_build.h"

#define NONE UINT32_MAX

enum {
  OP_LINE = 8, OP_EXT_INST_IMPORT = 11, OP_EXT_INST = 12, OP_FUNCTION = 54,
  OP_FUNCTION_PARAMETER = 55, OP_FUNCTION_END = 56, OP_LABEL = 248, OP_NO_LINE = 317,
};

/* ---- the reference walk --------------------------------------------------- */

typedef struct reference {
  uint32_t count;        /* instructions */
  uint32_t word_offset[4096];
  uint32_t line[4096];   /* position of the line in effect, or NONE */
  uint32_t limit;        /* instruction indexes */
  uint32_t named[8192];  /* position an index names, or NONE for a copy of a line */
} reference;

/* Module-level instructions outside the types/values section: counted once,
   their lines not counted (section 2, rule 5). */
static bool is_head(uint32_t op)
{
  static const uint32_t heads[] = {2,  3,  4,  5,  6,  7,   10,  11,  14,   15,  16,
                                   17, 71, 72, 73, 74, 75, 330, 331, 332, 5632, 5633};
  for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
    if (heads[i] == op)
      return true;
  return false;
}

static bool is_terminator(uint32_t op)
{
  return (op >= 249 && op <= 255) || op == 4416 || op == 4448 || op == 4449 || op == 5294;
}

enum { SET_OTHER, SET_SHADER, SET_DEBUG };

static int set_of_name(const char *name)
{
  if (strcmp(name, "NonSemantic.Shader.DebugInfo.100") == 0)
    return SET_SHADER;
  if (strcmp(name, "OpenCL.DebugInfo.100") == 0 || strcmp(name, "DebugInfo") == 0)
    return SET_DEBUG;
  return SET_OTHER;
}

static void take(reference *r, uint32_t position)
{
  assert_true(r->limit < sizeof r->named / sizeof r->named[0]);
  r->named[r->limit++] = position;
}

static void reference_walk(const uint32_t *w, size_t words, reference *r)
{
  int sets[512] = {0}; /* by import id */
  uint32_t pending = 0, pending_line = NONE, active = NONE;
  int region = 0; /* module, function outside blocks, block */
  memset(r, 0, sizeof *r);
  for (size_t at = 5; at < words; at += w[at] >> 16) {
    uint32_t p = r->count++, op = w[at] & 0xffff;
    assert_true(p < sizeof r->line / sizeof r->line[0]);
    r->word_offset[p] = (uint32_t)at;
    int set = op == OP_EXT_INST && w[at + 3] < 512 ? sets[w[at + 3]] : SET_OTHER;
    uint32_t ext = op == OP_EXT_INST ? w[at + 4] : 0;
    if (op == OP_EXT_INST_IMPORT && w[at + 1] < 512)
      sets[w[at + 1]] = set_of_name((const char *)&w[at + 2]);
    if (set != SET_OTHER && (ext == 23 || ext == 24)) { /* DebugScope, DebugNoScope */
      r->line[p] = pending ? pending_line : active;
      continue;
    }
    bool line = op == OP_LINE || (set == SET_SHADER && ext == 103);
    bool no_line = op == OP_NO_LINE || (set == SET_SHADER && ext == 104);
    if (line || no_line) {
      pending++;
      pending_line = r->line[p] = line ? p : NONE;
      continue;
    }
    uint32_t attached = active != NONE ? 1 : 0;
    if (pending) {
      attached = pending;
      active = pending_line;
      pending = 0;
    }
    r->line[p] = active;
    uint32_t counted_lines = 0;
    if (op == OP_FUNCTION) {
      region = 1;
    } else if (op == OP_LABEL) {
      region = 2;
    } else if (op == OP_FUNCTION_END) {
      region = 0;
      active = NONE;
    } else if (op == OP_FUNCTION_PARAMETER || region == 2) {
      counted_lines = attached;
      if (region == 2 && is_terminator(op)) {
        region = 1;
        active = NONE;
      }
    } else if (region == 1 && op == OP_EXT_INST) {
      continue; /* DebugDeclare/DebugValue of the function header: not counted */
    } else if (region == 0 && !is_head(op) && !(op == OP_EXT_INST && set != SET_OTHER)) {
      counted_lines = attached; /* types, constants, global variables */
    }
    for (uint32_t k = 0; k < counted_lines; k++)
      take(r, NONE);
    take(r, p);
  }
}

/* ---- comparing ------------------------------------------------------------- */

static void expect_location(const reference *r, uint32_t position,
                            const amddwarf_spirv_location *loc)
{
  assert_int_equal(loc->position, position);
  assert_int_equal(loc->word_offset, r->word_offset[position]);
  assert_int_equal(loc->line_position, r->line[position]);
  assert_int_equal(loc->has_line, r->line[position] != NONE);
}

static void expect_reference(const void *data, size_t size, uint32_t shift,
                             const reference *r)
{
  amddwarf_spirv_module *m = NULL;
  amddwarf_error err;
  amddwarf_status st = shift == UINT32_MAX
                           ? amddwarf_spirv_module_open(data, size, NULL, &m, &err)
                           : amddwarf__spirv_module_open_every(data, size, NULL, shift, &m, &err);
  if (st != AMDDWARF_OK)
    fail_msg("open failed: %s", err.message);
  assert_int_equal(amddwarf_spirv_module_instruction_count(m), r->count);
  assert_int_equal(amddwarf_spirv_module_index_limit(m, AMDDWARF_SPIRV_INDEX_INSTRUMENT),
                   r->limit);
  amddwarf_spirv_location loc;
  for (uint32_t p = 0; p < r->count; p++) {
    assert_int_equal(amddwarf_spirv_module_resolve(m, p, AMDDWARF_SPIRV_INDEX_POSITION, &loc,
                                                   NULL),
                     AMDDWARF_OK);
    expect_location(r, p, &loc);
  }
  assert_int_equal(amddwarf_spirv_module_resolve(m, r->count, AMDDWARF_SPIRV_INDEX_POSITION,
                                                 &loc, NULL),
                   AMDDWARF_NOT_FOUND);
  static uint32_t indexes[8192 + 1];
  static amddwarf_spirv_location batch[8192 + 1];
  static amddwarf_status statuses[8192 + 1];
  size_t named = 0;
  for (uint32_t i = 0; i <= r->limit; i++) {
    indexes[i] = i;
    st = amddwarf_spirv_module_resolve(m, i, AMDDWARF_SPIRV_INDEX_INSTRUMENT, &loc, NULL);
    if (i == r->limit || r->named[i] == NONE) {
      assert_int_equal(st, AMDDWARF_NOT_FOUND);
      continue;
    }
    named++;
    assert_int_equal(st, AMDDWARF_OK);
    assert_int_equal(loc.index, i);
    expect_location(r, r->named[i], &loc);
  }
  /* Batched, backwards: replays that go back to earlier checkpoints. */
  for (uint32_t i = 0; i <= r->limit / 2; i++) {
    uint32_t t = indexes[i];
    indexes[i] = indexes[r->limit - i];
    indexes[r->limit - i] = t;
  }
  assert_int_equal(amddwarf_spirv_module_resolve_batch(m, indexes, r->limit + 1,
                                                       AMDDWARF_SPIRV_INDEX_INSTRUMENT, batch,
                                                       statuses),
                   named);
  for (uint32_t k = 0; k <= r->limit; k++) {
    uint32_t i = indexes[k];
    if (i == r->limit || r->named[i] == NONE) {
      assert_int_equal(statuses[k], AMDDWARF_NOT_FOUND);
      continue;
    }
    assert_int_equal(statuses[k], AMDDWARF_OK);
    expect_location(r, r->named[i], &batch[k]);
  }
  amddwarf_spirv_module_close(m);
}

static void *read_seed(const char *name, size_t *size)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fuzz/corpus/spirv/%s", AMDDWARF_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("cannot open %s", path);
  uint32_t *data = malloc(65536);
  assert_non_null(data);
  *size = fread(data, 1, 65536, f);
  fclose(f);
  assert_true(*size > 20 && *size % 4 == 0 && *size < 65536);
  return data;
}

static void test_replays_match_one_walk_on_glslang_modules(void **state)
{
  (void)state;
  static const char *const seeds[] = {"frag-g.spv", "frag-gV.spv", "frag-gVS.spv",
                                      "comp-gV.spv"};
  static reference r;
  for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
    size_t size;
    uint32_t *data = read_seed(seeds[s], &size);
    reference_walk(data, size / 4, &r);
    /* The modules have lines, copies of them, and indexes past positions. */
    uint32_t with_line = 0;
    for (uint32_t p = 0; p < r.count; p++)
      with_line += r.line[p] != NONE;
    assert_true(with_line > 10 && r.limit > r.count);
    for (uint32_t shift = 0; shift <= 3; shift++)
      expect_reference(data, size, shift, &r);
    expect_reference(data, size, UINT32_MAX, &r);
    free(data);
  }
}

/* An OpExtInst walked before the OpExtInstImport of its set (invalid SPIR-V)
   is an ordinary instruction to the count, whatever the import says later:
   the walk classifies a set with the imports it has seen, and a look-up that
   replays it after the import is known must see it the same way. */
static void test_set_imported_after_its_use(void **state)
{
  (void)state;
  mod m;
  mod_init(&m);
  inst(&m, 17, 1, 1u);                    /* 0 OpCapability */
  inst(&m, 14, 2, 0u, 1u);                /* 1 OpMemoryModel */
  inst(&m, 19, 1, 1u);                    /* 2 OpTypeVoid %1 */
  inst(&m, OP_EXT_INST, 9, 1u, 30u, 9u, 103u, 5u, 6u, 6u, 7u, 7u); /* 3 DebugLine? %9 unknown */
  inst(&m, 19, 1, 2u);                    /* 4 OpTypeVoid %2 */
  {
    uint32_t pre[1] = {9};
    inst_str(&m, OP_EXT_INST_IMPORT, pre, 1, "NonSemantic.Shader.DebugInfo.100", NULL, 0); /* 5 */
  }
  inst(&m, 19, 1, 3u);                    /* 6 OpTypeVoid %3 */
  for (uint32_t shift = 0; shift <= 4; shift++) {
    amddwarf_spirv_module *module = NULL;
    amddwarf_error err;
    assert_int_equal(amddwarf__spirv_module_open_every(m.w, m.n * 4, NULL, shift, &module, &err),
                     AMDDWARF_OK);
    /* Position 3 is a type/value-section instruction of its own: indexes 0-6
       are positions 0-6, and nothing has a line. */
    assert_int_equal(amddwarf_spirv_module_index_limit(module, AMDDWARF_SPIRV_INDEX_INSTRUMENT),
                     7);
    for (uint32_t i = 0; i < 7; i++) {
      amddwarf_spirv_location loc;
      assert_int_equal(amddwarf_spirv_module_resolve(module, i, AMDDWARF_SPIRV_INDEX_INSTRUMENT,
                                                     &loc, NULL),
                       AMDDWARF_OK);
      assert_int_equal(loc.position, i);
      assert_false(loc.has_line);
    }
    amddwarf_spirv_module_close(module);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replays_match_one_walk_on_glslang_modules),
      cmocka_unit_test(test_set_imported_after_its_use),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
