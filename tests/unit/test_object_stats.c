/* The static classification of location expressions that amddwarf stats
 * counts coverage by (specs/stats.md section 2): each expression written in
 * the assembler's syntax, its kind and lane status worked out by hand from
 * the AMDGPU DWARF register map and address-space tables, under the legacy
 * and the extension convention; the names of the tables; and the
 * statistics of an object of three units, which the walk splits over two
 * threads (counted by hand, as LLVM 19's Statistics.cpp counts: a function
 * is one entry per identifier, its name, file and line, whatever the unit;
 * equal to llvm-dwarfdump-19 --statistics on this object). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object/internal.h"

typedef struct classification {
  const char *text;
  amddwarf_convention convention;
  amddwarf_loc_kind kind;
  amddwarf_lane_status lane;
  uint32_t flags;
} classification;

#define LEGACY AMDDWARF_CONVENTION_LEGACY
#define EXT AMDDWARF_CONVENTION_EXTENSION

static const classification cases[] = {
    {"", EXT, AMDDWARF_LOC_UNDEFINED, AMDDWARF_LANE_NONE, 0},
    {"DW_OP_LLVM_undefined", EXT, AMDDWARF_LOC_UNDEFINED, AMDDWARF_LANE_NONE, 0},
    {"DW_OP_regx s40", EXT, AMDDWARF_LOC_SGPR, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_reg0", EXT, AMDDWARF_LOC_OTHER_REGISTER, AMDDWARF_LANE_UNIFORM, 0}, /* PC_32 */
    {"DW_OP_regx v3", EXT, AMDDWARF_LOC_VGPR, AMDDWARF_LANE_MISSING, 0},
    {"DW_OP_regx v3", LEGACY, AMDDWARF_LOC_VGPR, AMDDWARF_LANE_LEGACY, 0},
    {"DW_OP_regx v3; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset", EXT,
     AMDDWARF_LOC_VGPR, AMDDWARF_LANE_SELECTED, 0},
    {"DW_OP_regx a7; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset", EXT,
     AMDDWARF_LOC_AGPR, AMDDWARF_LANE_SELECTED, 0},
    {"DW_OP_fbreg 8", LEGACY, AMDDWARF_LOC_MEMORY_PRIVATE, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_fbreg 8; DW_OP_lit1; DW_OP_swap; DW_OP_xderef", LEGACY, AMDDWARF_LOC_MEMORY_PRIVATE,
     AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_constu 16; DW_OP_lit2; DW_OP_swap; DW_OP_xderef", LEGACY, AMDDWARF_LOC_MEMORY_LOCAL,
     AMDDWARF_LANE_UNIFORM, 0},
    /* clang's -O2 address in a VGPR: the lane's dword by the legacy convention */
    {"DW_OP_bregx v6 0; DW_OP_lit1; DW_OP_swap; DW_OP_xderef", LEGACY,
     AMDDWARF_LOC_MEMORY_PRIVATE, AMDDWARF_LANE_LEGACY, 0},
    {"DW_OP_bregx v6 0; DW_OP_lit5; DW_OP_LLVM_form_aspace_address", EXT,
     AMDDWARF_LOC_MEMORY_PRIVATE, AMDDWARF_LANE_MISSING, 0},
    {"DW_OP_constu 16; DW_OP_lit3; DW_OP_LLVM_form_aspace_address", EXT,
     AMDDWARF_LOC_MEMORY_LOCAL, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_constu 16; DW_OP_lit2; DW_OP_LLVM_form_aspace_address", EXT,
     AMDDWARF_LOC_MEMORY_REGION, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_constu 16; DW_OP_lit6; DW_OP_LLVM_form_aspace_address", EXT,
     AMDDWARF_LOC_MEMORY_PRIVATE, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_constu 16; DW_OP_lit1; DW_OP_LLVM_form_aspace_address", EXT,
     AMDDWARF_LOC_MEMORY_GLOBAL, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_addr 0x1000", EXT, AMDDWARF_LOC_MEMORY_GLOBAL, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_lit5; DW_OP_stack_value", EXT, AMDDWARF_LOC_IMPLICIT, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_implicit_value 2 0x01 0x02", EXT, AMDDWARF_LOC_IMPLICIT, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_regx s41; DW_OP_piece 4; DW_OP_regx v5; DW_OP_piece 4", EXT, AMDDWARF_LOC_COMPOSITE,
     AMDDWARF_LANE_MISSING, 0},
    {"DW_OP_regx s41; DW_OP_piece 4; DW_OP_regx v5; DW_OP_piece 4", LEGACY,
     AMDDWARF_LOC_COMPOSITE, AMDDWARF_LANE_LEGACY, 0},
    {"DW_OP_regx s41; DW_OP_piece 4; DW_OP_piece 4", EXT, AMDDWARF_LOC_COMPOSITE,
     AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_regx s41; DW_OP_piece 4", EXT, AMDDWARF_LOC_SGPR, AMDDWARF_LANE_UNIFORM, 0},
    {"DW_OP_entry_value 2 0x90 0x28; DW_OP_stack_value", EXT, AMDDWARF_LOC_IMPLICIT,
     AMDDWARF_LANE_UNIFORM, AMDDWARF_LOC_ENTRY_VALUE},
};

static void test_classify(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const classification *c = &cases[i];
    amddwarf_cu cu;
    memset(&cu, 0, sizeof cu);
    amddwarf_expr_format_init(&cu.format);
    cu.format.dialect = AMDDWARF_DIALECT_USER;
    cu.convention = c->convention;
    cu.address_size = 8;
    uint8_t bytes[64];
    size_t size = 0;
    amddwarf_error err;
    assert_int_equal(amddwarf_expr_assemble(c->text, &cu.format, 64, bytes, sizeof bytes, &size,
                                            &err),
                     AMDDWARF_OK);
    amddwarf_loc_class out;
    amddwarf_loc_classify(NULL, &cu, bytes, size, &out);
    if (out.kind != c->kind || out.lane != c->lane || out.flags != c->flags)
      print_error("%s (%s): kind %s lane %d flags %u\n", c->text,
                  c->convention == LEGACY ? "legacy" : "extension",
                  amddwarf_loc_kind_name(out.kind), (int)out.lane, (unsigned)out.flags);
    assert_int_equal(out.kind, c->kind);
    assert_int_equal(out.lane, c->lane);
    assert_int_equal(out.flags, c->flags);
  }
}

/* Bytes that do not decode: undefined, and said so. */
static void test_undecodable(void **state)
{
  (void)state;
  amddwarf_cu cu;
  memset(&cu, 0, sizeof cu);
  amddwarf_expr_format_init(&cu.format);
  const uint8_t truncated[] = {0x90}; /* DW_OP_regx without its register */
  amddwarf_loc_class out;
  amddwarf_loc_classify(NULL, &cu, truncated, sizeof truncated, &out);
  assert_int_equal(out.kind, AMDDWARF_LOC_UNDEFINED);
  assert_int_equal(out.flags, AMDDWARF_LOC_UNDECODABLE);
}

static void test_names(void **state)
{
  (void)state;
  assert_string_equal(amddwarf_unavailable_name(AMDDWARF_UNAVAILABLE_NONE), "available");
  assert_string_equal(amddwarf_unavailable_name(AMDDWARF_UNAVAILABLE_REGISTER_NOT_RESTORED),
                      "register_not_restored");
  assert_null(amddwarf_unavailable_name(AMDDWARF_UNAVAILABLE_COUNT));
  assert_string_equal(amddwarf_loc_kind_name(AMDDWARF_LOC_MEMORY_LOCAL), "memory_local");
  assert_string_equal(amddwarf_loc_kind_colour(AMDDWARF_LOC_VGPR), "#2ca02c");
  assert_null(amddwarf_loc_kind_name(AMDDWARF_LOC_KIND_COUNT));
  assert_string_equal(amddwarf_stats_cfi_name(AMDDWARF_STATS_CFI_SYNTHESIZED), "synthesized");
  /* the names specs/json.md gives the segments' lanes and flags and the
     diff's statuses */
  assert_string_equal(amddwarf_lane_status_name(AMDDWARF_LANE_UNIFORM), "uniform");
  assert_string_equal(amddwarf_lane_status_name(AMDDWARF_LANE_MISSING), "missing");
  assert_string_equal(amddwarf_lane_status_name(AMDDWARF_LANE_NONE), "none");
  assert_null(amddwarf_lane_status_name((amddwarf_lane_status)(AMDDWARF_LANE_NONE + 1)));
  assert_string_equal(amddwarf_loc_flag_name(AMDDWARF_LOC_UNKNOWN_ADDRESS), "unknown_address");
  assert_string_equal(amddwarf_loc_flag_name(AMDDWARF_LOC_ENTRY_VALUE), "entry_value");
  assert_string_equal(amddwarf_loc_flag_name(AMDDWARF_LOC_UNDECODABLE), "undecodable");
  assert_null(amddwarf_loc_flag_name(AMDDWARF_LOC_QUIRK | AMDDWARF_LOC_ENTRY_VALUE));
  assert_null(amddwarf_loc_flag_name(0));
  assert_string_equal(amddwarf_diff_status_name(AMDDWARF_DIFF_MATCHED), "matched");
  assert_string_equal(amddwarf_diff_status_name(AMDDWARF_DIFF_APPEARED), "appeared");
  assert_null(amddwarf_diff_status_name((amddwarf_diff_status)(AMDDWARF_DIFF_APPEARED + 1)));
  /* every reason has its own name */
  for (int a = 0; a < AMDDWARF_UNAVAILABLE_COUNT; ++a)
    for (int b = a + 1; b < AMDDWARF_UNAVAILABLE_COUNT; ++b)
      assert_true(strcmp(amddwarf_unavailable_name((amddwarf_unavailable)a),
                         amddwarf_unavailable_name((amddwarf_unavailable)b)) != 0);
}

static void test_bad_arguments(void **state)
{
  (void)state;
  amddwarf_stats *stats = (amddwarf_stats *)1;
  amddwarf_error err;
  assert_int_equal(amddwarf_stats_compute(NULL, NULL, &stats, &err), AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(stats);
  amddwarf_why why;
  assert_int_equal(amddwarf_stats_why(NULL, "x", 0, &why, &err), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_stats_diff *diff = NULL;
  assert_int_equal(amddwarf_stats_diff_compute(NULL, NULL, &diff, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_stats_free(NULL);
  amddwarf_stats_diff_free(NULL);
}

/* Three units: "a" in the first and the last (one FnStatMap entry, its
   variables' identifiers {p, x} and {p, z}), "b" in the second. */
static const char units_json[] =
    "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
    " \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\", \"text_size\": 192},"
    " \"symbols\": [{\"name\": \"a\", \"offset\": 0, \"size\": 64, \"kind\": \"func\","
    "                \"binding\": \"global\"},"
    "               {\"name\": \"b\", \"offset\": 64, \"size\": 64, \"kind\": \"func\","
    "                \"binding\": \"global\"}],"
    " \"units\": ["
    "  {\"name\": \"u0.cl\", \"files\": [{\"name\": \"u0.cl\"}],"
    "   \"types\": [{\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "              \"encoding\": \"signed\"}],"
    "   \"functions\": [{\"name\": \"a\", \"low\": 0, \"high\": 64,"
    "     \"parameters\": [{\"name\": \"p\", \"type\": \"int\", \"line\": 1,"
    "                     \"location\": \"DW_OP_regx s40\"}],"
    "     \"variables\": [{\"name\": \"x\", \"type\": \"int\", \"line\": 2,"
    "       \"location\": [{\"low\": 0, \"high\": 16, \"expr\": \"DW_OP_regx s41\"}]}]}]},"
    "  {\"name\": \"u1.cl\", \"files\": [{\"name\": \"u1.cl\"}],"
    "   \"types\": [{\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "              \"encoding\": \"signed\"}],"
    "   \"functions\": [{\"name\": \"b\", \"low\": 64, \"high\": 128,"
    "     \"variables\": [{\"name\": \"y\", \"type\": \"int\", \"line\": 3,"
    "                    \"location\": \"DW_OP_regx s42\"}]}]},"
    "  {\"name\": \"u2.cl\", \"files\": [{\"name\": \"u2.cl\"}],"
    "   \"types\": [{\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "              \"encoding\": \"signed\"}],"
    "   \"functions\": [{\"name\": \"a\", \"low\": 128, \"high\": 192,"
    "     \"parameters\": [{\"name\": \"p\", \"type\": \"int\", \"line\": 1,"
    "                     \"location\": \"DW_OP_regx s40\"}],"
    "     \"variables\": [{\"name\": \"z\", \"type\": \"int\", \"line\": 4}]}]}"
    " ]}";

static uint64_t key_of(const amddwarf_stats *stats, const char *key)
{
  for (size_t i = 0; i < amddwarf_stats_llvm_count(stats); ++i)
    if (strcmp(amddwarf_stats_llvm_key(stats, i)->key, key) == 0)
      return amddwarf_stats_llvm_key(stats, i)->value;
  print_error("no key %s\n", key);
  fail();
  return 0;
}

static void test_units_on_two_threads(void **state)
{
  (void)state;
  uint8_t *image = NULL;
  size_t size = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_build_json(units_json, strlen(units_json), NULL, &image, &size, &err),
                   AMDDWARF_OK);
  amddwarf_object *object = NULL;
  assert_int_equal(amddwarf_object_open_memory(image, size, NULL, &object, &err), AMDDWARF_OK);
  static const struct {
    const char *key;
    uint64_t value;
  } keys[] = {
      {"#functions", 2},
      {"#unique source variables", 4},      /* a: {p, x, z}, b: {y} */
      {"#source variables", 7},             /* a: 3 x 2 instances, b: 1 */
      {"#source variables with location", 4},
      {"#params", 2},
      {"#local vars", 3},
      {"#bytes within functions", 192},
      {"sum_all_variables(#bytes in parent scope)", 5 * 64},
      {"sum_all_variables(#bytes in parent scope covered by DW_AT_location)", 64 + 16 + 64 + 64},
  };
  static const struct {
    const char *name;
    uint64_t covered, scope;
  } functions[] = {{"a", 64 + 16, 128}, {"b", 64, 64}, {"a", 64, 128}};
  /* the default (the units on two threads) and one thread; several times,
     for ThreadSanitizer */
  for (int run = 0; run < 8; ++run) {
    amddwarf_stats_options options;
    amddwarf_stats_options_init(&options);
    options.flags = run % 2 ? AMDDWARF_STATS_ONE_THREAD : 0;
    amddwarf_stats *stats = NULL;
    assert_int_equal(amddwarf_stats_compute(object, &options, &stats, &err), AMDDWARF_OK);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
      if (key_of(stats, keys[i].key) != keys[i].value)
        print_error("%s: %llu\n", keys[i].key, (unsigned long long)key_of(stats, keys[i].key));
      assert_int_equal(key_of(stats, keys[i].key), keys[i].value);
    }
    assert_int_equal(amddwarf_stats_function_count(stats), 3);
    for (size_t i = 0; i < 3; ++i) {
      const amddwarf_stats_function *fn = amddwarf_stats_function_at(stats, i);
      assert_string_equal(fn->name, functions[i].name);
      assert_int_equal(fn->coverage.covered, functions[i].covered);
      assert_int_equal(fn->coverage.scope, functions[i].scope);
    }
    /* the key by name, and the sums over the three functions (none a
       kernel: no .kd symbol; none with call frame information) */
    assert_int_equal(amddwarf_stats_llvm_value(stats, "#params"), 2);
    assert_int_equal(amddwarf_stats_llvm_value(stats, "#no such key"), 0);
    amddwarf_stats_totals totals;
    amddwarf_stats_totals_get(stats, &totals);
    assert_int_equal(totals.kernels, 0);
    assert_int_equal(totals.device_functions, 3);
    assert_int_equal(totals.cfi[AMDDWARF_STATS_CFI_NONE], 3);
    assert_int_equal(totals.device_coverage.covered, 64 + 16 + 64 + 64);
    assert_int_equal(totals.device_coverage.scope, 128 + 64 + 128);
    assert_int_equal(totals.device_coverage.kind[AMDDWARF_LOC_SGPR], 64 + 16 + 64 + 64);
    assert_int_equal(totals.device_coverage.lane_correct, 64 + 16 + 64 + 64);
    assert_int_equal(totals.kernel_coverage.scope, 0);
    amddwarf_stats_free(stats);
  }
  amddwarf_object_close(object);
  amddwarf_produce_free_bytes(NULL, image, size);
}

/* The functions come in the order of their units when the second thread
   walks several units: unit 0 holds many functions, so that the first
   thread is still in it while the second walks the last unit and then
   claims the others from the back. The oracle is the order the program
   was written in (unit by unit). When the machine does not run the
   threads at once the first thread walks more units itself, and the order
   must be the same. */
enum { BIG_UNIT_FUNCTIONS = 6000, SMALL_UNITS = 12, SMALL_UNIT_FUNCTIONS = 2 };

static char *many_units_json(void)
{
  size_t cap = 64 + (BIG_UNIT_FUNCTIONS + SMALL_UNITS * SMALL_UNIT_FUNCTIONS) * 96 +
               (SMALL_UNITS + 1) * 128;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t n = 0, offset = 0;
  n += (size_t)snprintf(text + n, cap - n,
                        "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
                        " \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\","
                        " \"text_size\": %d}, \"units\": [",
                        4 * (BIG_UNIT_FUNCTIONS + SMALL_UNITS * SMALL_UNIT_FUNCTIONS));
  for (int u = 0; u <= SMALL_UNITS; ++u) {
    int count = u == 0 ? BIG_UNIT_FUNCTIONS : SMALL_UNIT_FUNCTIONS;
    n += (size_t)snprintf(text + n, cap - n, "%s{\"name\": \"u%d.cl\", \"functions\": [",
                          u ? ", " : "", u);
    for (int f = 0; f < count; ++f, offset += 4)
      n += (size_t)snprintf(text + n, cap - n,
                            "%s{\"name\": \"u%d_f%d\", \"low\": %zu, \"high\": %zu}",
                            f ? ", " : "", u, f, offset, offset + 4);
    n += (size_t)snprintf(text + n, cap - n, "]}");
  }
  n += (size_t)snprintf(text + n, cap - n, "]}");
  assert_true(n < cap);
  return text;
}

static void test_many_units_on_two_threads(void **state)
{
  (void)state;
  char *json = many_units_json();
  uint8_t *image = NULL;
  size_t size = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_build_json(json, strlen(json), NULL, &image, &size, &err),
                   AMDDWARF_OK);
  free(json);
  amddwarf_object *object = NULL;
  assert_int_equal(amddwarf_object_open_memory(image, size, NULL, &object, &err), AMDDWARF_OK);
  for (int run = 0; run < 4; ++run) {
    amddwarf_stats_options options;
    amddwarf_stats_options_init(&options);
    options.flags = run == 3 ? AMDDWARF_STATS_ONE_THREAD : 0;
    amddwarf_stats *stats = NULL;
    assert_int_equal(amddwarf_stats_compute(object, &options, &stats, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_stats_function_count(stats),
                     BIG_UNIT_FUNCTIONS + SMALL_UNITS * SMALL_UNIT_FUNCTIONS);
    size_t i = 0;
    for (int u = 0; u <= SMALL_UNITS; ++u)
      for (int f = 0; f < (u == 0 ? BIG_UNIT_FUNCTIONS : SMALL_UNIT_FUNCTIONS); ++f, ++i) {
        char name[32];
        snprintf(name, sizeof name, "u%d_f%d", u, f);
        const amddwarf_stats_function *fn = amddwarf_stats_function_at(stats, i);
        if (strcmp(fn->name, name) != 0)
          fail_msg("run %d: function %zu is %s, not %s", run, i, fn->name, name);
      }
    amddwarf_stats_free(stats);
  }
  amddwarf_object_close(object);
  amddwarf_produce_free_bytes(NULL, image, size);
}

/* The line programs' special opcodes divide by a reciprocal: equal to
   C's division and remainder for every adjusted opcode and line_range. */
static void test_line_reciprocal(void **state)
{
  (void)state;
  for (unsigned range = 1; range < 256; ++range) {
    uint32_t reciprocal = amddwarf__line_reciprocal((uint8_t)range);
    for (unsigned adjusted = 0; adjusted < 256; ++adjusted) {
      unsigned quotient = (adjusted * reciprocal) >> 16;
      assert_int_equal(quotient, adjusted / range);
      assert_int_equal(adjusted - quotient * range, adjusted % range);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_line_reciprocal),
      cmocka_unit_test(test_classify),
      cmocka_unit_test(test_undecodable),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_units_on_two_threads),
      cmocka_unit_test(test_many_units_on_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
