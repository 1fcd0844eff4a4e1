/* Values of the debugger layer (src/debug/valobj.c, value_read.c, assign.c,
 * <amddwarf/debug.h>) on a built one-function program stopped at 0x10:
 * their text per lane (structs, arrays, pointers, bitfields, enums, floats,
 * chars, bools), what they are (type, kind, sizes, location, children),
 * lanes grouped by result, children and their paths, assignment read back,
 * an assignment whose second lane's write fails (the first lane gets its old
 * value back), and structs whose location's pieces describe only some of
 * their bits.
 *
 * The program (relocatable, f at [0, 64)) and the wave (wave64, lanes 0-3):
 *   n     int in lane L of v1: 7, 7, 9, 7
 *   s     struct S {int x; float y;} in global memory at 0x1000: {-5, 0.25}
 *   arr   int[4] at 0x1010: {1, 2, 3, 4}
 *   dd    double at 0x1020: 0.1;  flag  bool at 0x1028: true
 *   ch    char at 0x1029: 'A';    h     half at 0x102a: 1.5
 *   bits  struct B {unsigned a:3; int b:5; unsigned c:12;} in s4: {5, -3, 1000}
 *   col   enum color {RED, GREEN = 5, BLUE} (unsigned int) in s5: GREEN
 *   p     S * in s6 (low half) and s7 (high half): 0x1000
 *   kv    struct pair {int key; int val;} in s8, one 4-byte piece: key 11
 *   fl    float in s9: 1.5
 *   k     int with DW_AT_const_value 3
 *   sh    S at 0x1000 (as s), shadowed by the int sh in s10 (42) of a lexical block */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/debug.h>
#include <amddwarf/object.h>
#include <amddwarf/produce.h>
#include <amddwarf/snapshot.h>

enum { PC = 0x10, STRUCT_ADDRESS = 0x1000 };

#define LANE_OF(reg) \
  "DW_OP_regx " reg "; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset"

static const char program_json[] =
    "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
    " \"object\": {\"type\": \"relocatable\", \"processor\": \"gfx900\", \"text_size\": 64},"
    " \"symbols\": [{\"name\": \"f\", \"offset\": 0, \"size\": 64}],"
    " \"units\": [{\"name\": \"values.cl\", \"comp_dir\": \"/src\", \"producer\": \"test\","
    "  \"types\": ["
    "   {\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "    \"encoding\": \"signed\"},"
    "   {\"id\": \"uint\", \"kind\": \"base\", \"name\": \"unsigned int\", \"byte_size\": 4,"
    "    \"encoding\": \"unsigned\"},"
    "   {\"id\": \"float\", \"kind\": \"base\", \"name\": \"float\", \"byte_size\": 4,"
    "    \"encoding\": \"float\"},"
    "   {\"id\": \"double\", \"kind\": \"base\", \"name\": \"double\", \"byte_size\": 8,"
    "    \"encoding\": \"float\"},"
    "   {\"id\": \"half\", \"kind\": \"base\", \"name\": \"half\", \"byte_size\": 2,"
    "    \"encoding\": \"float\"},"
    "   {\"id\": \"bool\", \"kind\": \"base\", \"name\": \"bool\", \"byte_size\": 1,"
    "    \"encoding\": \"boolean\"},"
    "   {\"id\": \"char\", \"kind\": \"base\", \"name\": \"char\", \"byte_size\": 1,"
    "    \"encoding\": \"signed_char\"},"
    "   {\"id\": \"S\", \"kind\": \"struct\", \"name\": \"S\", \"byte_size\": 8, \"members\": ["
    "    {\"name\": \"x\", \"type\": \"int\", \"offset\": 0},"
    "    {\"name\": \"y\", \"type\": \"float\", \"offset\": 4}]},"
    "   {\"id\": \"B\", \"kind\": \"struct\", \"name\": \"B\", \"byte_size\": 4, \"members\": ["
    "    {\"name\": \"a\", \"type\": \"uint\", \"bit_size\": 3, \"data_bit_offset\": 0},"
    "    {\"name\": \"b\", \"type\": \"int\", \"bit_size\": 5, \"data_bit_offset\": 3},"
    "    {\"name\": \"c\", \"type\": \"uint\", \"bit_size\": 12, \"data_bit_offset\": 8}]},"
    "   {\"id\": \"pair\", \"kind\": \"struct\", \"name\": \"pair\", \"byte_size\": 8,"
    "    \"members\": [{\"name\": \"key\", \"type\": \"int\", \"offset\": 0},"
    "                 {\"name\": \"val\", \"type\": \"int\", \"offset\": 4}]},"
    "   {\"id\": \"color\", \"kind\": \"enum\", \"name\": \"color\", \"type\": \"uint\","
    "    \"byte_size\": 4, \"enumerators\": [{\"name\": \"RED\", \"value\": 0},"
    "     {\"name\": \"GREEN\", \"value\": 5}, {\"name\": \"BLUE\", \"value\": 6}]},"
    "   {\"id\": \"S_p\", \"kind\": \"pointer\", \"type\": \"S\", \"byte_size\": 8},"
    "   {\"id\": \"arr_t\", \"kind\": \"array\", \"type\": \"int\", \"count\": 4}],"
    "  \"functions\": [{\"name\": \"f\", \"low\": 0, \"high\": 64, \"external\": true,"
    "   \"variables\": ["
    "    {\"name\": \"n\", \"type\": \"int\", \"location\": \"" LANE_OF("v1") "\"},"
    "    {\"name\": \"s\", \"type\": \"S\", \"location\": \"DW_OP_addr 0x1000\"},"
    "    {\"name\": \"arr\", \"type\": \"arr_t\", \"location\": \"DW_OP_addr 0x1010\"},"
    "    {\"name\": \"dd\", \"type\": \"double\", \"location\": \"DW_OP_addr 0x1020\"},"
    "    {\"name\": \"flag\", \"type\": \"bool\", \"location\": \"DW_OP_addr 0x1028\"},"
    "    {\"name\": \"ch\", \"type\": \"char\", \"location\": \"DW_OP_addr 0x1029\"},"
    "    {\"name\": \"h\", \"type\": \"half\", \"location\": \"DW_OP_addr 0x102a\"},"
    "    {\"name\": \"bits\", \"type\": \"B\", \"location\": \"DW_OP_regx s4\"},"
    "    {\"name\": \"col\", \"type\": \"color\", \"location\": \"DW_OP_regx s5\"},"
    "    {\"name\": \"p\", \"type\": \"S_p\", \"location\":"
    "     \"DW_OP_regx s6; DW_OP_piece 4; DW_OP_regx s7; DW_OP_piece 4\"},"
    "    {\"name\": \"kv\", \"type\": \"pair\", \"location\": \"DW_OP_regx s8; DW_OP_piece 4\"},"
    "    {\"name\": \"fl\", \"type\": \"float\", \"location\": \"DW_OP_regx s9\"},"
    "    {\"name\": \"k\", \"type\": \"int\", \"const_value\": 3},"
    "    {\"name\": \"sh\", \"type\": \"S\", \"location\": \"DW_OP_addr 0x1000\"}],"
    "   \"blocks\": [{\"low\": 0, \"high\": 64, \"variables\": ["
    "    {\"name\": \"sh\", \"type\": \"int\", \"location\": \"DW_OP_regx s10\"}]}]}]}]}";

/* bits = {a = 5, b = -3, c = 1000}: 5 | (29 << 3) | (1000 << 8). */
static const char snapshot_json[] =
    "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"lane\": 0, \"exec\": \"0xf\","
    " \"pc\": 16, \"registers\": {\"v1\": [7, 7, 9, 7], \"s4\": 256237, \"s5\": 5,"
    "  \"s6\": 4096, \"s7\": 0, \"s8\": 11, \"s9\": \"0x3fc00000\", \"s10\": 42},"
    " \"memory\": [{\"address_space\": \"global\", \"address\": \"0x1000\", \"bytes\":"
    "  \"fbffffff0000803e0000000000000000010000000200000003000000040000009a9999999999b93f"
    "0141003e00000000\"}]}";

/* The snapshot's target, whose Nth register write (counting from 1) fails. */
typedef struct faulty {
  amddwarf_target snap;
  unsigned writes;
  unsigned fail_at; /* 0: none fails */
} faulty;

static amddwarf_status faulty_write_register(void *user, uint32_t regno, uint64_t offset,
                                             uint64_t size, const void *buf)
{
  faulty *f = user;
  if (++f->writes == f->fail_at)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  return f->snap.write_register(f->snap.user, regno, offset, size, buf);
}

static amddwarf_status faulty_read_register(void *user, uint32_t regno, uint64_t offset,
                                            uint64_t size, void *buf)
{
  faulty *f = user;
  return f->snap.read_register(f->snap.user, regno, offset, size, buf);
}

static amddwarf_status faulty_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                          uint64_t address, uint64_t size, void *buf)
{
  faulty *f = user;
  return f->snap.read_memory(f->snap.user, aspace, lane, address, size, buf);
}

static amddwarf_status faulty_write_memory(void *user, uint32_t aspace, uint32_t lane,
                                           uint64_t address, uint64_t size, const void *buf)
{
  faulty *f = user;
  return f->snap.write_memory(f->snap.user, aspace, lane, address, size, buf);
}

static amddwarf_status faulty_wave_size(void *user, uint32_t *size)
{
  faulty *f = user;
  return f->snap.wave_size(f->snap.user, size);
}

static amddwarf_status faulty_exec_mask(void *user, uint64_t *mask)
{
  faulty *f = user;
  return f->snap.exec_mask(f->snap.user, mask);
}

typedef struct fixture {
  uint8_t *image;
  size_t size;
  amddwarf_object *object;
  amddwarf_snapshot *snap;
  faulty faulty;
  amddwarf_target raw;
  amddwarf_wave *wave;
} fixture;

static int setup(void **state)
{
  fixture *fx = calloc(1, sizeof *fx);
  amddwarf_error err;
  amddwarf_status st;
  if (fx == NULL)
    return -1;
  st = amddwarf_build_json(program_json, sizeof program_json - 1, NULL, &fx->image, &fx->size,
                           &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_build_json: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(amddwarf_object_open_memory(fx->image, fx->size, NULL, &fx->object, &err),
                   AMDDWARF_OK);
  st = amddwarf_snapshot_load(snapshot_json, sizeof snapshot_json - 1, NULL, &fx->snap, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_snapshot_load: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf_snapshot_target(fx->snap, &fx->faulty.snap);
  memset(&fx->raw, 0, sizeof fx->raw);
  fx->raw.struct_size = sizeof fx->raw;
  fx->raw.user = &fx->faulty;
  fx->raw.read_register = faulty_read_register;
  fx->raw.write_register = faulty_write_register;
  fx->raw.read_memory = faulty_read_memory;
  fx->raw.write_memory = faulty_write_memory;
  fx->raw.wave_size = faulty_wave_size;
  fx->raw.exec_mask = faulty_exec_mask;
  const amddwarf_object *objects[1] = {fx->object};
  st = amddwarf_wave_open(objects, 1, &fx->raw, NULL, &fx->wave, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_wave_open: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  *state = fx;
  return 0;
}

static int teardown(void **state)
{
  fixture *fx = *state;
  amddwarf_wave_close(fx->wave);
  amddwarf_snapshot_free(fx->snap);
  amddwarf_object_close(fx->object);
  amddwarf_produce_free_bytes(NULL, fx->image, fx->size);
  free(fx);
  return 0;
}

static amddwarf_valobj *value_new(fixture *fx, const char *path)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_valobj_new(fx->wave, 0, path, &value, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_valobj_new(%s): %s\n", path, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  return value;
}

/* PATH's text in LANE (STATE must be VALUE). */
static void assert_text(fixture *fx, const char *path, uint32_t lane, const char *text)
{
  amddwarf_valobj *value = value_new(fx, path);
  amddwarf_lane_value lv;
  amddwarf_error err;
  assert_int_equal(amddwarf_valobj_read(value, lane, &lv, &err), AMDDWARF_OK);
  if (lv.state != AMDDWARF_LANE_VALUE || strcmp(lv.text, text) != 0)
    print_error("%s, lane %u: state %d, text '%s', message '%s'; expected '%s'\n", path, lane,
                (int)lv.state, lv.text, lv.message, text);
  assert_int_equal(lv.state, AMDDWARF_LANE_VALUE);
  assert_string_equal(lv.text, text);
  amddwarf_valobj_free(value);
}

/* ---- Text per lane ---- */

static void test_text(void **state)
{
  fixture *fx = *state;
  assert_text(fx, "n", 2, "9");
  assert_text(fx, "s", 0, "{x = -5, y = 0.25}");
  assert_text(fx, "s.y", 0, "0.25");
  assert_text(fx, "arr", 0, "{1, 2, 3, 4}");
  assert_text(fx, "arr[2]", 0, "3");
  assert_text(fx, "p", 0, "(S *) 0x1000");
  assert_text(fx, "*p", 0, "{x = -5, y = 0.25}");
  assert_text(fx, "p->y", 0, "0.25");
  assert_text(fx, "&arr[1]", 0, "(int *) 0x1014 [global]");
  assert_text(fx, "bits", 0, "{a = 5, b = -3, c = 1000}");
  assert_text(fx, "bits.b", 0, "-3");
  assert_text(fx, "col", 0, "GREEN");
  assert_text(fx, "dd", 0, "0.10000000000000001");
  assert_text(fx, "flag", 0, "true");
  assert_text(fx, "ch", 0, "65 'A'");
  assert_text(fx, "h", 0, "1.5");
  assert_text(fx, "fl", 0, "1.5");
  assert_text(fx, "k", 0, "3");
  /* Values read the DIEs through their references: no unit was summarized. */
  assert_int_equal(amddwarf_object_summarized_units(fx->object), 0);
}

/* Last, after every value, child, group and assignment of the tests above:
   still no unit summarized. */
static void test_no_summaries(void **state)
{
  fixture *fx = *state;
  assert_int_equal(amddwarf_object_summarized_units(fx->object), 0);
  /* The counter counts: a summary query loads the unit. */
  const amddwarf_cu *cu = amddwarf_object_cu(fx->object, 0);
  assert_non_null(amddwarf_object_die_at(fx->object, cu->die_offset));
  assert_int_equal(amddwarf_object_summarized_units(fx->object), 1);
}

/* What a value is, and where its variable lives. */
static void test_info(void **state)
{
  fixture *fx = *state;
  amddwarf_valobj *value = value_new(fx, "( * p ) . x");
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  assert_string_equal(info->path, "(*p).x");
  assert_string_equal(info->type_name, "int");
  assert_int_equal(info->kind, AMDDWARF_VALUE_KIND_SCALAR);
  assert_int_equal(info->byte_size, 4);
  assert_int_equal(info->bit_size, 32);
  assert_string_equal(info->variable->name, "p");
  assert_string_equal(amddwarf_valobj_location(value), "DW_OP_regx SGPR6, DW_OP_piece 0x4, DW_OP_regx SGPR7, "
                                      "DW_OP_piece 0x4");
  assert_int_equal(info->named_children + info->indexed_children, 0);
  assert_true(info->assignable);
  amddwarf_valobj_free(value);

  value = value_new(fx, "bits.c");
  info = amddwarf_valobj_get_info(value);
  assert_int_equal(info->byte_size, 4);
  assert_int_equal(info->bit_size, 12);
  assert_true(info->assignable);
  amddwarf_valobj_free(value);

  value = value_new(fx, "k");
  assert_string_equal(amddwarf_valobj_location(value), "DW_AT_const_value");
  amddwarf_valobj_free(value);

  static const struct {
    const char *path;
    amddwarf_value_kind kind;
    const char *type_name;
    size_t named, indexed;
    int assignable;
  } kinds[] = {
      {"s", AMDDWARF_VALUE_KIND_STRUCT, "S", 2, 0, 0},
      {"arr", AMDDWARF_VALUE_KIND_ARRAY, "int[4]", 0, 4, 0},
      {"p", AMDDWARF_VALUE_KIND_POINTER, "S *", 1, 0, 1},
      {"&s", AMDDWARF_VALUE_KIND_POINTER, "S *", 1, 0, 0},
      {"col", AMDDWARF_VALUE_KIND_ENUM, "color", 0, 0, 1},
      {"bits", AMDDWARF_VALUE_KIND_STRUCT, "B", 3, 0, 0},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
    value = value_new(fx, kinds[i].path);
    info = amddwarf_valobj_get_info(value);
    assert_int_equal(info->kind, kinds[i].kind);
    assert_string_equal(info->type_name, kinds[i].type_name);
    assert_int_equal(info->named_children, kinds[i].named);
    assert_int_equal(info->indexed_children, kinds[i].indexed);
    assert_int_equal(info->assignable, kinds[i].assignable);
    amddwarf_valobj_free(value);
  }
}

/* Paths the types do not allow fail before any lane is read. */
static void test_errors(void **state)
{
  fixture *fx = *state;
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "s..x", &value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(value);
  assert_int_equal(err.offset, 2);
  assert_string_equal(err.message, "expected a member name at column 3, found '.'");
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "s.z", &value, &err), AMDDWARF_NOT_FOUND);
  assert_int_equal(err.offset, AMDDWARF_NO_OFFSET);
  assert_string_equal(err.message, "no member 'z' in struct S");
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "arr[4]", &value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message,
                      "index 4 is out of bounds for 'arr' (int[4]): valid indexes are 0 to 3");
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "nosuch", &value, &err),
                   AMDDWARF_NOT_FOUND);
  assert_string_equal(err.message, "no variable 'nosuch' in scope at pc 0x10");
  /* No frame 5: the object has no CFI to unwind with. */
  assert_int_equal(amddwarf_valobj_new(fx->wave, 5, "n", &value, &err), AMDDWARF_E_CFI_NO_FDE);
  assert_null(value);
}

/* ---- Lanes ---- */

static void test_lane_groups(void **state)
{
  fixture *fx = *state;
  amddwarf_valobj *value = value_new(fx, "n");
  amddwarf_value_group groups[4];
  amddwarf_error err;
  size_t count = 0;
  assert_int_equal(amddwarf_valobj_read_lanes(value, 0xf, groups, 4, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 2);
  assert_int_equal(groups[0].mask, 0xb);
  assert_int_equal(groups[0].value.lane, 0);
  assert_string_equal(groups[0].value.text, "7");
  assert_int_equal(groups[1].mask, 0x4);
  assert_int_equal(groups[1].value.lane, 2);
  assert_string_equal(groups[1].value.text, "9");
  assert_int_equal(groups[1].value.size, 4);
  assert_int_equal(groups[1].value.bytes[0], 9);
  /* A short array gets the first groups and the full count. */
  assert_int_equal(amddwarf_valobj_read_lanes(value, 0xf, groups, 1, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 2);
  assert_int_equal(groups[0].mask, 0xb);
  /* Lanes past the wave, and a lane of one read. */
  assert_int_equal(amddwarf_valobj_read(value, 64, &groups[0].value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_int_equal(amddwarf_valobj_read(value, AMDDWARF_NO_LANE, &groups[0].value, &err),
                   AMDDWARF_OK);
  assert_int_equal(groups[0].value.lane, 0);
  assert_string_equal(groups[0].value.explain, "register VGPR1 lane 0 bits 0-31");
  amddwarf_valobj_free(value);
}

/* ---- Children ---- */

/* Child INDEX of PATH: its path, and its text in lane 0. */
static void assert_child(fixture *fx, const char *path, size_t index, const char *child_path,
                         const char *text)
{
  amddwarf_valobj *value = value_new(fx, path), *child = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_valobj_child(value, index, &child, &err);
  if (st != AMDDWARF_OK)
    print_error("child %zu of %s: %s\n", index, path, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_string_equal(amddwarf_valobj_get_info(child)->path, child_path);
  amddwarf_valobj_free(child);
  amddwarf_valobj_free(value);
  /* The path parses back to the same value. */
  assert_text(fx, child_path, 0, text);
}

static void test_children(void **state)
{
  fixture *fx = *state;
  assert_child(fx, "s", 0, "s.x", "-5");
  assert_child(fx, "s", 1, "s.y", "0.25");
  assert_child(fx, "arr", 3, "arr[3]", "4");
  assert_child(fx, "p", 0, "*p", "{x = -5, y = 0.25}");
  assert_child(fx, "*p", 1, "(*p).y", "0.25");
  assert_child(fx, "&s", 0, "*&s", "{x = -5, y = 0.25}");
  assert_child(fx, "bits", 2, "bits.c", "1000");
  amddwarf_valobj *value = value_new(fx, "s"), *child = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_valobj_child(value, 2, &child, &err), AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(child);
  amddwarf_valobj_free(value);
}

/* ---- Assignment ---- */

static amddwarf_status assign(fixture *fx, const char *path, uint64_t lanes, const char *text,
                              amddwarf_error *err)
{
  amddwarf_valobj *value = value_new(fx, path);
  amddwarf_status st = amddwarf_valobj_assign(value, lanes, text, err);
  amddwarf_valobj_free(value);
  return st;
}

static void assert_assign(fixture *fx, const char *path, const char *text, const char *read)
{
  amddwarf_error err;
  amddwarf_status st = assign(fx, path, 0x1, text, &err);
  if (st != AMDDWARF_OK)
    print_error("%s = %s: %s\n", path, text, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_text(fx, path, 0, read);
}

static void test_assign(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  fx->faulty.fail_at = 0;
  /* Every lane of a VGPR lane variable. */
  assert_int_equal(assign(fx, "n", 0xf, "-42", &err), AMDDWARF_OK);
  for (uint32_t lane = 0; lane < 4; ++lane)
    assert_text(fx, "n", lane, "-42");
  assert_int_equal(assign(fx, "n", 0xf, "7", &err), AMDDWARF_OK);
  assert_int_equal(assign(fx, "n", 0x4, "9", &err), AMDDWARF_OK);
  /* A bitfield keeps its neighbours. */
  assert_assign(fx, "bits.b", "-7", "-7");
  assert_text(fx, "bits", 0, "{a = 5, b = -7, c = 1000}");
  assert_assign(fx, "bits.b", "-3", "-3");
  assert_assign(fx, "col", "BLUE", "BLUE");
  assert_assign(fx, "col", "0", "RED");
  assert_assign(fx, "col", "GREEN", "GREEN");
  assert_assign(fx, "fl", "-2.25", "-2.25");
  assert_assign(fx, "fl", "1.5", "1.5");
  assert_assign(fx, "h", "-0.75", "-0.75");
  assert_assign(fx, "h", "1.5", "1.5");
  assert_assign(fx, "dd", "1e300", "1.0000000000000001e+300");
  assert_assign(fx, "dd", "0.1", "0.10000000000000001");
  assert_assign(fx, "flag", "false", "false");
  assert_assign(fx, "flag", "1", "true");
  assert_assign(fx, "ch", "'z'", "122 'z'");
  assert_assign(fx, "ch", "65", "65 'A'");
  /* Through a pointer, and the pointer itself (in two pieces). */
  assert_assign(fx, "p->x", "0x7fffffff", "2147483647");
  assert_assign(fx, "(*p).x", "-5", "-5");
  assert_assign(fx, "p", "0x1010", "(S *) 0x1010");
  assert_text(fx, "p->x", 0, "1");
  assert_assign(fx, "p", "4096", "(S *) 0x1000");

  /* Texts that do not fit the type, and values that cannot be assigned. */
  static const struct {
    const char *path, *text;
    amddwarf_status status;
    const char *message;
  } bad[] = {
      {"n", "12x", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '12x' to 'n' (int): not an integer"},
      {"n", "2147483648", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '2147483648' to 'n' (int): out of the range of signed 32 bits"},
      {"n", "", AMDDWARF_E_INVALID_ARGUMENT, "cannot assign '' to 'n' (int): not an integer"},
      {"bits.a", "8", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '8' to 'bits.a' (unsigned int): out of the range of unsigned 3 bits"},
      {"bits.a", "-1", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '-1' to 'bits.a' (unsigned int): out of the range of unsigned 3 bits"},
      {"col", "PURPLE", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign 'PURPLE' to 'col' (color): neither an enumerator nor an integer"},
      {"fl", "1e40", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '1e40' to 'fl' (float): out of the type's range"},
      {"fl", "1.5 ", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign '1.5 ' to 'fl' (float): not a number"},
      {"flag", "yes", AMDDWARF_E_INVALID_ARGUMENT,
       "cannot assign 'yes' to 'flag' (bool): not true, false or an integer"},
      {"s", "1", AMDDWARF_E_INVALID_ARGUMENT,
       "'s' (S) cannot be assigned: only scalars, enums, pointers and bitfields can"},
      {"k", "4", AMDDWARF_E_EVAL_WRITE_READONLY,
       "lane 0: 'k' cannot be written: it is not in storage"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    amddwarf_status st = assign(fx, bad[i].path, 0x1, bad[i].text, &err);
    if (st != bad[i].status || strcmp(err.message, bad[i].message) != 0)
      print_error("%s = '%s': %d %s\n", bad[i].path, bad[i].text, (int)st, err.message);
    assert_int_equal(st, bad[i].status);
    assert_string_equal(err.message, bad[i].message);
  }
  assert_text(fx, "n", 0, "7");
  assert_text(fx, "k", 0, "3");
}

/* The second lane's write fails: the first lane's is undone. */
static void test_assign_all_or_nothing(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  fx->faulty.writes = 0;
  fx->faulty.fail_at = 2;
  amddwarf_status st = assign(fx, "n", 0xf, "99", &err);
  fx->faulty.fail_at = 0;
  assert_int_equal(st, AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_non_null(strstr(err.message, "lane 1: writing 'n': "));
  assert_non_null(strstr(err.message, "(1 lane before it restored)"));
  assert_int_equal(fx->faulty.writes, 3); /* lane 0, lane 1 (failed), lane 0 again */
  assert_text(fx, "n", 0, "7");
  assert_text(fx, "n", 1, "7");
  assert_text(fx, "n", 2, "9");
}

/* ---- Partly described values ---- */

static void test_partial(void **state)
{
  fixture *fx = *state;
  amddwarf_valobj *value = value_new(fx, "kv");
  amddwarf_lane_value lv;
  amddwarf_error err;
  assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
  assert_int_equal(lv.state, AMDDWARF_LANE_VALUE);
  assert_string_equal(lv.text, "{key = 11, val = <optimized out>}");
  assert_int_equal(lv.reason, AMDDWARF_UNAVAILABLE_NONE);
  assert_string_equal(lv.explain,
                      "bits 0-31: register SGPR8 bits 0-31; bits 32-63: past the last piece");
  assert_int_equal(lv.size, 8);
  assert_int_equal(lv.bytes[0], 11);
  amddwarf_valobj_free(value);

  value = value_new(fx, "kv.val");
  assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
  assert_int_equal(lv.state, AMDDWARF_LANE_OPTIMIZED_OUT);
  assert_int_equal(lv.status, AMDDWARF_E_EVAL_OPTIMIZED_OUT);
  assert_string_equal(lv.text, "");
  assert_null(lv.bytes);
  assert_false(lv.detailed);
  assert_int_equal(lv.reason, AMDDWARF_UNAVAILABLE_OPTIMIZED_OUT_AT_PC);
  assert_string_equal(lv.message, "no piece of the location describes these bits");
  amddwarf_valobj_free(value);
  assert_text(fx, "kv.key", 0, "11");
  /* The missing half cannot be written. */
  assert_int_equal(assign(fx, "kv.val", 0x1, "1", &err), AMDDWARF_E_EVAL_WRITE_UNDEFINED);
  assert_string_equal(err.message, "lane 0: 'kv.val' cannot be written: some of its bits are "
                                   "undefined");
}

/* The outer of two variables named "sh": a path finds the inner one only;
   amddwarf_valobj_new_var reaches the outer one, and its children and
   paths stay on it. */
static void test_shadowed(void **state)
{
  fixture *fx = *state;
  const amddwarf_frame_var *vars = NULL, *inner = NULL, *outer = NULL;
  size_t count = 0;
  amddwarf_error err;
  amddwarf_lane_value lv;
  assert_int_equal(amddwarf_wave_variables(fx->wave, 0, &vars, &count, &err), AMDDWARF_OK);
  for (size_t i = 0; i < count; ++i)
    if (vars[i].name != NULL && strcmp(vars[i].name, "sh") == 0)
      *(inner == NULL ? &inner : &outer) = &vars[i];
  assert_non_null(outer);
  assert_true(inner->ref.depth < outer->ref.depth);

  amddwarf_valobj *value = value_new(fx, "sh");
  assert_ptr_equal(amddwarf_valobj_get_info(value)->variable, inner);
  assert_false(amddwarf_valobj_get_info(value)->shadowed);
  amddwarf_valobj_free(value);
  assert_text(fx, "sh", 0, "42");

  assert_int_equal(amddwarf_valobj_new_var(fx->wave, 0, outer, NULL, &value, &err),
                   AMDDWARF_OK);
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  assert_ptr_equal(info->variable, outer);
  assert_true(info->shadowed);
  assert_string_equal(info->path, "sh");
  assert_string_equal(info->type_name, "S");
  assert_int_equal(info->named_children, 2);
  assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
  assert_string_equal(lv.text, "{x = -5, y = 0.25}");
  amddwarf_valobj *child = NULL;
  assert_int_equal(amddwarf_valobj_child(value, 1, &child, &err), AMDDWARF_OK);
  assert_ptr_equal(amddwarf_valobj_get_info(child)->variable, outer);
  assert_true(amddwarf_valobj_get_info(child)->shadowed);
  assert_string_equal(amddwarf_valobj_get_info(child)->path, "sh.y");
  assert_int_equal(amddwarf_valobj_read(child, 0, &lv, &err), AMDDWARF_OK);
  assert_string_equal(lv.text, "0.25");
  amddwarf_valobj_free(child);
  amddwarf_valobj_free(value);

  /* A path applied to the outer variable; the same path by name fails on the inner int. */
  assert_int_equal(amddwarf_valobj_new_var(fx->wave, 0, outer, "sh.x", &value, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
  assert_string_equal(lv.text, "-5");
  amddwarf_valobj_free(value);
  assert_int_equal(amddwarf_valobj_new(fx->wave, 0, "sh.x", &value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);

  /* Only the frame's own variables, and paths that start at their name. */
  assert_int_equal(amddwarf_valobj_new_var(fx->wave, 0, outer, "s.x", &value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "path 's.x' starts at 's', not at the variable 'sh'");
  amddwarf_frame_var copy = *outer;
  assert_int_equal(amddwarf_valobj_new_var(fx->wave, 0, &copy, NULL, &value, &err),
                   AMDDWARF_E_INVALID_ARGUMENT);
  assert_null(value);
}

/* ---- Inactive lanes (specs/debug-api.md, "Inactive lanes") ---- */

/* EXEC is 0xf: lanes 4 and up are inactive. Without DW_AT_LLVM_lane_pc an
   inactive lane's PC is unknown. */
static void test_inactive(void **state)
{
  fixture *fx = *state;
  amddwarf_error err;
  amddwarf_lane_value lv;
  amddwarf_valobj *value = value_new(fx, "n");
  assert_int_equal(amddwarf_valobj_read(value, 4, &lv, &err), AMDDWARF_OK);
  assert_int_equal(lv.state, AMDDWARF_LANE_INACTIVE);
  assert_string_equal(lv.text, "");
  assert_string_equal(lv.message, "inactive, its PC unknown");
  assert_null(lv.bytes);
  /* Groups: 0,1,3 read 7, 2 reads 9 (v1), 4-5 are one inactive group. */
  amddwarf_value_group groups[4];
  size_t count = 0;
  assert_int_equal(amddwarf_valobj_read_lanes(value, 0x3f, groups, 4, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 3);
  assert_int_equal(groups[0].mask, 0xb);
  assert_int_equal(groups[1].mask, 0x4);
  assert_int_equal(groups[2].mask, 0x30);
  assert_int_equal(groups[2].value.state, AMDDWARF_LANE_INACTIVE);
  /* Bytes: an inactive lane reads as zeros with its state. */
  int32_t bytes[6];
  amddwarf_lane_state states[AMDDWARF_MAX_LANES];
  memset(bytes, 0x55, sizeof bytes);
  assert_int_equal(amddwarf_valobj_read_bytes(value, 0x30 | 0x4, bytes, 4, states, &err),
                   AMDDWARF_OK);
  assert_int_equal(bytes[2], 9);
  assert_int_equal(states[2], AMDDWARF_LANE_VALUE);
  assert_int_equal(bytes[4], 0);
  assert_int_equal(states[4], AMDDWARF_LANE_INACTIVE);
  assert_int_equal(states[5], AMDDWARF_LANE_INACTIVE);
  /* A write naming an inactive lane is refused whole: lane 0 keeps 7. */
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_valobj_assign(value, 0x31, "5", &err), AMDDWARF_E_INVALID_ARGUMENT);
  assert_string_equal(err.message, "lanes 4-5 are inactive: they stand at their own PC, where "
                                   "'n' may be kept elsewhere; writing inactive lanes must be "
                                   "asked for explicitly");
  assert_int_equal(amddwarf_valobj_read(value, 0, &lv, &err), AMDDWARF_OK);
  assert_string_equal(lv.text, "7");
  /* Asked for explicitly, lane 4's storage (VGPR1 lane 4) is written. */
  assert_int_equal(amddwarf_valobj_assign_lanes(value, 0x10, "-8", AMDDWARF_ASSIGN_INACTIVE, &err),
                   AMDDWARF_OK);
  uint8_t reg[4];
  assert_int_equal(amddwarf_wave_read_register(fx->wave, 0, 2561, 16, 4, reg, &err), AMDDWARF_OK);
  assert_int_equal(reg[0] | reg[1] << 8 | reg[2] << 16 | (uint32_t)reg[3] << 24, 0xfffffff8u);
  amddwarf_valobj_free(value);
  /* A constant is the lane's only where the lane runs, too. */
  value = value_new(fx, "k");
  assert_int_equal(amddwarf_valobj_read(value, 7, &lv, &err), AMDDWARF_OK);
  assert_int_equal(lv.state, AMDDWARF_LANE_INACTIVE);
  amddwarf_valobj_free(value);
}

/* The one text of a lane's read, for every state. */
static void test_lane_value_text(void **state)
{
  (void)state;
  char buf[64];
  amddwarf_lane_value v;
  memset(&v, 0, sizeof v);
  v.text = "{x = 1}";
  v.message = "";
  assert_int_equal(amddwarf_lane_value_text(&v, buf, sizeof buf), 7);
  assert_string_equal(buf, "{x = 1}");
  v.state = AMDDWARF_LANE_OPTIMIZED_OUT;
  amddwarf_lane_value_text(&v, buf, sizeof buf);
  assert_string_equal(buf, "<optimized out>");
  v.state = AMDDWARF_LANE_UNAVAILABLE;
  v.message = "undefined symbol 'tile'";
  amddwarf_lane_value_text(&v, buf, sizeof buf);
  assert_string_equal(buf, "<unavailable>");
  v.detailed = 1;
  amddwarf_lane_value_text(&v, buf, sizeof buf);
  assert_string_equal(buf, "<unavailable> (undefined symbol 'tile')");
  v.state = AMDDWARF_LANE_INACTIVE;
  v.detailed = 0;
  v.message = "inactive, at its lane PC 0x1140";
  amddwarf_lane_value_text(&v, buf, sizeof buf);
  assert_string_equal(buf, "<inactive>");
  v.state = AMDDWARF_LANE_ERROR;
  v.status = AMDDWARF_E_LIMIT;
  v.message = "too big";
  assert_int_equal(amddwarf_lane_value_text(&v, buf, 8), strlen("<error: too big (limit)>"));
  assert_string_equal(buf, "<error:");
  amddwarf_lane_value_text(&v, buf, sizeof buf);
  assert_string_equal(buf, "<error: too big (limit)>");
  assert_string_equal(amddwarf_lane_state_text((amddwarf_lane_state)9), "?");
  /* Equal where the text is: a hidden message does not split a group. */
  amddwarf_lane_value a, b;
  memset(&a, 0, sizeof a);
  a.state = AMDDWARF_LANE_INACTIVE;
  a.text = "";
  a.message = "inactive, at its lane PC 0x1140";
  b = a;
  b.lane = 3;
  b.message = "inactive, its PC unknown";
  assert_true(amddwarf_lane_values_equal(&a, &b));
  a.state = b.state = AMDDWARF_LANE_UNAVAILABLE;
  a.detailed = b.detailed = 1;
  assert_false(amddwarf_lane_values_equal(&a, &b));
  a.state = b.state = AMDDWARF_LANE_ERROR;
  a.detailed = b.detailed = 0;
  assert_false(amddwarf_lane_values_equal(&a, &b));
  a.state = b.state = AMDDWARF_LANE_VALUE;
  a.message = b.message = "";
  a.text = "7";
  b.text = "9";
  assert_false(amddwarf_lane_values_equal(&a, &b));
  b.text = "7";
  assert_true(amddwarf_lane_values_equal(&a, &b));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text),
      cmocka_unit_test(test_info),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_lane_groups),
      cmocka_unit_test(test_children),
      cmocka_unit_test(test_assign),
      cmocka_unit_test(test_assign_all_or_nothing),
      cmocka_unit_test(test_partial),
      cmocka_unit_test(test_shadowed),
      cmocka_unit_test(test_inactive),
      cmocka_unit_test(test_lane_value_text),
      cmocka_unit_test(test_no_summaries),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
