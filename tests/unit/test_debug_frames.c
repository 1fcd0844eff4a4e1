/* Frames of the debugger layer (src/debug/frames.c, <amddwarf/debug.h>) on a
 * built three-function program, kernel -> mid -> leaf, stopped in the leaf:
 * the frame list (PCs, call-site PCs, CFAs in private_wave, names, lines),
 * the variables of a caller read from where its callee saved its registers
 * (a VGPR spilled to private_wave at the callee's CFA, an SGPR kept in a lane
 * of a VGPR, the return address in two lanes), a register the callee's CFI
 * leaves undefined, a wave on an object without CFI, and waves of several
 * threads over one shared object (its CFI, units and line tables made on
 * first use by whichever thread comes first).
 *
 * The program (.text at 0x1000, shared object):
 *   kernel [0x1000, 0x1100)  calls mid, returning to 0x1084.
 *                            CFA = s33 in private_wave; no return address.
 *   mid    [0x1100, 0x1200)  calls leaf, returning to 0x1184. After its
 *                            16-byte prologue: the kernel's v40 at CFA+0,
 *                            the kernel's s33 in lane 61 of v40, the return
 *                            address in lanes 62-63 of v40, CFA = s33.
 *   leaf   [0x1200, 0x1300)  after its prologue: mid's v40 at CFA+0, mid's
 *                            s33 in lane 2 of v40, the return address in
 *                            lanes 0-1 of v40, v5 undefined, CFA = s33.
 * Every function's frame base is the private_lane address s33 / 64.
 *
 * Wave W (a seed making each wave's data its own), lane L, D = W * 0x100 + L:
 *   PC 0x1220 + 4 * (W % 8); s33 = 0x2000; s32 = 0x3000
 *   leaf's v40: lanes 0-1 = 0x1184, lane 2 = 0x1000 (mid's s33),
 *               other lanes 0xa0000000 + D
 *   v5 = 0x55000000 + D
 *   private_lane memory of lane L (private_wave CFA C is lane address C / 64):
 *     0x40 (mid's CFA 0x1000)    the kernel's v40: 0xe0000000 + D
 *     0x48 (mid's frame base+8)  mid's slot: 0xc0000000 + D
 *     0x80 (leaf's CFA 0x2000)   mid's v40: lane 61 = 0x800 (the kernel's
 *                                s33), lanes 62-63 = 0x1084, other lanes
 *                                0xb0000000 + D
 *     0x88 (leaf's frame base+8) the leaf's lslot: 0xd0000000 + D */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
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
#include <amddwarf/target.h>

#include "object/memo.h"

#include "common/text.h"

enum {
  REG_PC = 16,
  REG_S33 = 32 + 33,
  REG_V5 = 2560 + 5,
  REG_V40 = 2560 + 40,
  LANES = 64,
  LEAF_FP = 0x2000,
  MID_FP = 0x1000,
  KERNEL_FP = 0x800,
  RETURN_INTO_MID = 0x1184,
  RETURN_INTO_KERNEL = 0x1084,
  PRIVATE_WAVE = AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE,
};

#define FRAME_BASE \
  "DW_OP_bregx s33 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; DW_OP_LLVM_form_aspace_address"
#define LANE_OF(reg) \
  "DW_OP_regx " reg "; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset"

/* The program; with_cfi 0 leaves out .debug_frame. */
static const char program_head[] =
    "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
    " \"object\": {\"type\": \"shared\", \"processor\": \"gfx900\", \"text_size\": 768},"
    " \"symbols\": [{\"name\": \"kernel\", \"offset\": 0, \"size\": 256},"
    "   {\"name\": \"mid\", \"offset\": 256, \"size\": 256},"
    "   {\"name\": \"leaf\", \"offset\": 512, \"size\": 256}],"
    " \"units\": [{\"name\": \"frames.cl\", \"comp_dir\": \"/src\", \"producer\": \"test\","
    "   \"files\": [{\"name\": \"frames.cl\", \"dir\": \"/src\"}],"
    "   \"lines\": [{\"offset\": 0, \"line\": 3, \"column\": 1},"
    "     {\"offset\": 128, \"line\": 5, \"column\": 2},"
    "     {\"offset\": 256, \"line\": 10, \"column\": 1},"
    "     {\"offset\": 384, \"line\": 12, \"column\": 7},"
    "     {\"offset\": 512, \"line\": 20, \"column\": 1},"
    "     {\"offset\": 544, \"line\": 21, \"column\": 3}],"
    "   \"types\": [{\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4,"
    "     \"encoding\": \"signed\"}],"
    "   \"functions\": ["
    "    {\"name\": \"kernel\", \"low\": 0, \"high\": 256, \"frame_base\": \"" FRAME_BASE "\","
    "     \"variables\": [{\"name\": \"kv\", \"type\": \"int\", \"location\": \"" LANE_OF("v40")
    "\"}]},"
    "    {\"name\": \"mid\", \"low\": 256, \"high\": 512, \"frame_base\": \"" FRAME_BASE "\","
    "     \"variables\": ["
    "       {\"name\": \"vlane\", \"type\": \"int\", \"location\": \"" LANE_OF("v40") "\"},"
    "       {\"name\": \"fp\", \"type\": \"int\", \"location\": \"DW_OP_regx s33\"},"
    "       {\"name\": \"slot\", \"type\": \"int\", \"location\": \"DW_OP_fbreg 8\"},"
    "       {\"name\": \"gone\", \"type\": \"int\", \"location\": \"" LANE_OF("v5") "\"}]},"
    "    {\"name\": \"leaf\", \"low\": 512, \"high\": 768, \"frame_base\": \"" FRAME_BASE "\","
    "     \"variables\": ["
    "       {\"name\": \"here\", \"type\": \"int\", \"location\": \"" LANE_OF("v5") "\"},"
    "       {\"name\": \"lslot\", \"type\": \"int\", \"location\": \"DW_OP_fbreg 8\"}]}]}]";

/* CIE: CFA = s32, return address s30:s31. kernel: CFA = s33, return address
   undefined. mid and leaf: see the header comment (2600 = v40, 65 = s33,
   2565 = v5). */
static const char program_cfi[] =
    ", \"cfi\": {\"cies\": [{\"augmentation\": \"[amd:v0.0]\", \"code_align\": 4,"
    "   \"data_align\": 4, \"ra_column\": 16, \"instructions\": ["
    "   {\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [64, 0, 6]},"
    "   {\"op\": \"DW_CFA_expression\", \"operands\": [16], \"expr\":"
    "     \"DW_OP_regx s30; DW_OP_piece 4; DW_OP_regx s31; DW_OP_piece 4\"}]}],"
    "  \"fdes\": ["
    "   {\"cie\": 0, \"start\": 0, \"length\": 256, \"instructions\": ["
    "     {\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [65, 0, 6]},"
    "     {\"op\": \"DW_CFA_undefined\", \"operands\": [16]}]},"
    "   {\"cie\": 0, \"start\": 256, \"length\": 256, \"instructions\": ["
    "     {\"op\": \"DW_CFA_advance_loc\", \"operands\": [4]},"
    "     {\"op\": \"DW_CFA_offset_extended\", \"operands\": [2600, 0]},"
    "     {\"op\": \"DW_CFA_expression\", \"operands\": [65],"
    "      \"expr\": \"DW_OP_regx v40; DW_OP_LLVM_offset_uconst 244\"},"
    "     {\"op\": \"DW_CFA_expression\", \"operands\": [16], \"expr\":"
    "      \"DW_OP_regx v40; DW_OP_LLVM_offset_uconst 248; DW_OP_piece 4;"
    "        DW_OP_regx v40; DW_OP_LLVM_offset_uconst 252; DW_OP_piece 4\"},"
    "     {\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [65, 0, 6]}]},"
    "   {\"cie\": 0, \"start\": 512, \"length\": 256, \"instructions\": ["
    "     {\"op\": \"DW_CFA_advance_loc\", \"operands\": [4]},"
    "     {\"op\": \"DW_CFA_offset_extended\", \"operands\": [2600, 0]},"
    "     {\"op\": \"DW_CFA_expression\", \"operands\": [65],"
    "      \"expr\": \"DW_OP_regx v40; DW_OP_LLVM_offset_uconst 8\"},"
    "     {\"op\": \"DW_CFA_expression\", \"operands\": [16], \"expr\":"
    "      \"DW_OP_regx v40; DW_OP_piece 4; DW_OP_regx v40; DW_OP_LLVM_offset_uconst 4;"
    "        DW_OP_piece 4\"},"
    "     {\"op\": \"DW_CFA_undefined\", \"operands\": [2565]},"
    "     {\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [65, 0, 6]}]}]}";

typedef struct program {
  uint8_t *image;
  size_t size;
} program;

static void program_build(program *p, int with_cfi)
{
  amddwarf_text t;
  amddwarf__text_init(&t, NULL);
  amddwarf__text_printf(&t, "%s%s}", program_head, with_cfi ? program_cfi : "");
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_OK);
  amddwarf_error err;
  amddwarf_status st = amddwarf_build_json(amddwarf__text_str(&t), t.len, NULL, &p->image,
                                           &p->size, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_build_json: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf__text_free(&t);
}

static void program_free(program *p)
{
  amddwarf_produce_free_bytes(NULL, p->image, p->size);
}

static amddwarf_object *object_open(const program *p)
{
  amddwarf_object *object = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_object_open_memory(p->image, p->size, NULL, &object, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_object_open_memory: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  return object;
}

/* ---- The state of wave W ---- */

/* Where the waves' object is loaded: 0 (object addresses) except in the
   tests of loaded code objects, whose PCs and return addresses are process
   addresses. */
static uint64_t load_address;

static uint64_t stop_pc(uint32_t w)
{
  return load_address + 0x1220 + 4 * (w % 8);
}

static uint32_t data(uint32_t w, uint32_t lane)
{
  return w * 0x100 + lane;
}

static uint32_t leaf_v40(uint32_t w, uint32_t lane)
{
  uint64_t ra = load_address + RETURN_INTO_MID;
  return lane == 0 ? (uint32_t)ra : lane == 1 ? (uint32_t)(ra >> 32) : lane == 2 ? MID_FP
                                                                 : 0xa0000000u + data(w, lane);
}

static uint32_t mid_v40(uint32_t w, uint32_t lane)
{
  uint64_t ra = load_address + RETURN_INTO_KERNEL;
  return lane == 61 ? KERNEL_FP : lane == 62 ? (uint32_t)ra : lane == 63 ? (uint32_t)(ra >> 32)
                                                                  : 0xb0000000u + data(w, lane);
}

static uint32_t v5(uint32_t w, uint32_t lane)
{
  return 0x55000000u + data(w, lane);
}

static uint32_t kernel_v40(uint32_t w, uint32_t lane)
{
  return 0xe0000000u + data(w, lane);
}

static uint32_t mid_slot(uint32_t w, uint32_t lane)
{
  return 0xc0000000u + data(w, lane);
}

static uint32_t leaf_slot(uint32_t w, uint32_t lane)
{
  return 0xd0000000u + data(w, lane);
}

static void append_vector(amddwarf_text *t, const char *name, uint32_t w,
                          uint32_t (*value)(uint32_t, uint32_t))
{
  amddwarf__text_printf(t, ", \"%s\": [", name);
  for (uint32_t lane = 0; lane < LANES; ++lane)
    amddwarf__text_printf(t, "%s%u", lane ? ", " : "", value(w, lane));
  amddwarf__text_printf(t, "]");
}

static void append_word(amddwarf_text *t, uint32_t value)
{
  for (int i = 0; i < 4; ++i)
    amddwarf__text_printf(t, "%02x", (value >> (8 * i)) & 0xffu);
}

/* The snapshot of wave W (specs/snapshot.md). */
static amddwarf_snapshot *snapshot_new(uint32_t w)
{
  amddwarf_text t;
  amddwarf__text_init(&t, NULL);
  amddwarf__text_printf(&t,
                       "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"lane\": 0,"
                       " \"exec\": \"0xffffffffffffffff\", \"pc\": %llu, \"registers\": {"
                       "\"s32\": %d, \"s33\": %d",
                       (unsigned long long)stop_pc(w), 0x3000, LEAF_FP);
  append_vector(&t, "v40", w, leaf_v40);
  append_vector(&t, "v5", w, v5);
  amddwarf__text_printf(&t, "}, \"memory\": [");
  for (uint32_t lane = 0; lane < LANES; ++lane) {
    amddwarf__text_printf(&t,
                         "%s{\"address_space\": \"private_lane\", \"lane\": %u, \"address\": "
                         "\"0x40\", \"bytes\": \"",
                         lane ? ", " : "", lane);
    /* 0x40..0x90: the kernel's v40, mid's slot, zeros, mid's v40, lslot. */
    append_word(&t, kernel_v40(w, lane));
    append_word(&t, 0);
    append_word(&t, mid_slot(w, lane));
    for (int i = 0x4c; i < 0x80; i += 4)
      append_word(&t, 0);
    append_word(&t, mid_v40(w, lane));
    append_word(&t, 0);
    append_word(&t, leaf_slot(w, lane));
    append_word(&t, 0);
    amddwarf__text_printf(&t, "\"}");
  }
  amddwarf__text_printf(&t, "]}");
  assert_int_equal(amddwarf__text_status(&t), AMDDWARF_OK);
  amddwarf_snapshot *snap = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_snapshot_load(amddwarf__text_str(&t), t.len, NULL, &snap, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_snapshot_load: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf__text_free(&t);
  return snap;
}

static amddwarf_wave *wave_open(const amddwarf_object *object, amddwarf_snapshot *snap,
                                amddwarf_target *raw)
{
  amddwarf_snapshot_target(snap, raw);
  amddwarf_wave *wave = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_wave_open(&object, 1, raw, NULL, &wave, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_wave_open: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  return wave;
}

/* ---- Reading a variable's value in a lane ---- */

typedef struct lane_read {
  amddwarf_lane_state state;
  uint32_t value; /* the int's bits when STATE is VALUE */
} lane_read;

static lane_read read_var(amddwarf_wave *wave, size_t frame, const char *name, uint32_t lane)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_valobj_new(wave, frame, name, &value, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_valobj_new(%zu, %s): %s\n", frame, name, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf_lane_value lv;
  assert_int_equal(amddwarf_valobj_read(value, lane, &lv, &err), AMDDWARF_OK);
  lane_read r = {lv.state, 0};
  if (lv.state == AMDDWARF_LANE_VALUE) {
    assert_int_equal(lv.size, 4);
    r.value = (uint32_t)lv.bytes[0] | (uint32_t)lv.bytes[1] << 8 |
              (uint32_t)lv.bytes[2] << 16 | (uint32_t)lv.bytes[3] << 24;
  }
  amddwarf_valobj_free(value);
  return r;
}

static void assert_var(amddwarf_wave *wave, size_t frame, const char *name, uint32_t lane,
                       uint32_t expected)
{
  lane_read r = read_var(wave, frame, name, lane);
  if (r.state != AMDDWARF_LANE_VALUE)
    print_error("frame %zu, %s, lane %u: state %d\n", frame, name, lane, (int)r.state);
  assert_int_equal(r.state, AMDDWARF_LANE_VALUE);
  assert_int_equal(r.value, expected);
}

static uint64_t read_register(amddwarf_wave *wave, size_t frame, uint32_t regno,
                              uint64_t offset, uint64_t size)
{
  uint8_t bytes[8] = {0};
  amddwarf_error err;
  amddwarf_status st = amddwarf_wave_read_register(wave, frame, regno, offset, size, bytes, &err);
  if (st != AMDDWARF_OK)
    print_error("frame %zu, register %u: %s\n", frame, regno, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | bytes[i];
  return value;
}

/* ---- Fixture: the program with CFI, its object ---- */

typedef struct fixture {
  program prog;
  amddwarf_object *object;
} fixture;

static int setup(void **state)
{
  fixture *fx = calloc(1, sizeof *fx);
  if (fx == NULL)
    return -1;
  program_build(&fx->prog, 1);
  fx->object = object_open(&fx->prog);
  *state = fx;
  return 0;
}

static int teardown(void **state)
{
  fixture *fx = *state;
  amddwarf_object_close(fx->object);
  program_free(&fx->prog);
  free(fx);
  return 0;
}

/* ---- Frames ---- */

static void assert_frame(amddwarf_wave *wave, const amddwarf_frame *f, size_t index,
                         const char *name, uint64_t pc, uint64_t lookup_pc, uint64_t cfa,
                         uint32_t line, uint32_t column)
{
  assert_int_equal(f->index, index);
  assert_int_equal(f->physical, index);
  assert_int_equal(f->inline_depth, 0);
  assert_int_equal(f->pc, pc);
  assert_int_equal(f->lookup_pc, lookup_pc);
  uint32_t cfa_aspace = 0;
  uint64_t cfa_address = 0;
  assert_int_equal(amddwarf_wave_frame_cfa(wave, index, &cfa_aspace, &cfa_address, NULL),
                   AMDDWARF_OK);
  assert_int_equal(cfa_aspace, PRIVATE_WAVE);
  assert_int_equal(cfa_address, cfa);
  assert_true(amddwarf_die_ref_valid(f->function));
  assert_string_equal(f->function_name, name);
  assert_non_null(f->file);
  assert_string_equal(f->file, "/src/frames.cl");
  assert_int_equal(f->line, line);
  assert_int_equal(f->column, column);
  /* The function's scopes: the subprogram, then the unit. */
  assert_int_equal(f->scope_count, 2);
  assert_int_equal(f->scope_base, 0);
  assert_int_equal(f->scopes[0].offset, f->function.offset);
  amddwarf_die_links links;
  assert_int_equal(amddwarf_object_die_links(f->object, f->scopes[1], &links, NULL), AMDDWARF_OK);
  assert_int_equal(links.tag, 0x11); /* DW_TAG_compile_unit */
  assert_int_equal(f->scopes[1].offset, amddwarf_object_cu(f->object, 0)->die_offset);
}

/* leaf (the stop), mid (return address from lanes 0-1 of the leaf's v40,
   CFA = mid's s33 from lane 2), kernel (return address from lanes 62-63 of
   mid's v40, which the leaf saved at its CFA; CFA = the kernel's s33 from
   lane 61 of it), then the end: the kernel's return address is undefined. */
static void test_frame_list(void **state)
{
  fixture *fx = *state;
  for (uint32_t w = 0; w < 3; ++w) {
    amddwarf_snapshot *snap = snapshot_new(w);
    amddwarf_target raw;
    amddwarf_wave *wave = wave_open(fx->object, snap, &raw);
    const amddwarf_frame *f = NULL;
    amddwarf_error err;
    assert_int_equal(amddwarf_wave_frame(wave, 0, &f, &err), AMDDWARF_OK);
    assert_frame(wave, f, 0, "leaf", stop_pc(w), stop_pc(w), LEAF_FP, 21, 3);
    assert_int_equal(amddwarf_wave_frame(wave, 1, &f, &err), AMDDWARF_OK);
    assert_frame(wave, f, 1, "mid", RETURN_INTO_MID, RETURN_INTO_MID - 1, MID_FP, 12, 7);
    assert_int_equal(amddwarf_wave_frame(wave, 2, &f, &err), AMDDWARF_OK);
    assert_frame(wave, f, 2, "kernel", RETURN_INTO_KERNEL, RETURN_INTO_KERNEL - 1, KERNEL_FP, 5, 2);
    assert_int_equal(amddwarf_wave_frame(wave, 3, &f, &err), AMDDWARF_END);
    /* The end is remembered: asking again, or further, says the same. */
    assert_int_equal(amddwarf_wave_frame(wave, 3, &f, &err), AMDDWARF_END);
    assert_int_equal(amddwarf_wave_frame(wave, 7, &f, &err), AMDDWARF_END);
    assert_null(amddwarf_wave_frame_target(wave, 3));
    assert_non_null(amddwarf_wave_frame_target(wave, 2));
    const amddwarf_wave_info *info = amddwarf_wave_get_info(wave);
    assert_int_equal(info->pc, stop_pc(w));
    assert_int_equal(info->wave_size, 64);
    assert_ptr_equal(info->object, fx->object);
    amddwarf_wave_close(wave);
    amddwarf_snapshot_free(snap);
  }
}

/* Registers as each frame sees them: frame 0 the target's; frame 1 mid's
   (v40 from the leaf's CFA, s33 from lane 2 of the leaf's v40, the PC from
   lanes 0-1); frame 2 the kernel's (v40 from mid's CFA, s33 from lane 61 of
   mid's v40). v5 is undefined in the callers: unavailable, never the leaf's. */
static void test_registers(void **state)
{
  fixture *fx = *state;
  const uint32_t w = 5;
  amddwarf_snapshot *snap = snapshot_new(w);
  amddwarf_target raw;
  amddwarf_wave *wave = wave_open(fx->object, snap, &raw);
  amddwarf_error err;
  uint8_t bytes[8];

  assert_int_equal(read_register(wave, 0, REG_PC, 0, 8), stop_pc(w));
  assert_int_equal(read_register(wave, 0, REG_S33, 0, 4), LEAF_FP);
  assert_int_equal(read_register(wave, 0, REG_V40, 0, 4), RETURN_INTO_MID);
  assert_int_equal(read_register(wave, 0, REG_V40, 4 * 7, 4), leaf_v40(w, 7));
  assert_int_equal(read_register(wave, 0, REG_V5, 4 * 3, 4), v5(w, 3));

  assert_int_equal(read_register(wave, 1, REG_PC, 0, 8), RETURN_INTO_MID);
  assert_int_equal(read_register(wave, 1, REG_S33, 0, 4), MID_FP);
  assert_int_equal(read_register(wave, 1, REG_V40, 0, 4), mid_v40(w, 0));
  assert_int_equal(read_register(wave, 1, REG_V40, 4, 4), mid_v40(w, 1));
  assert_int_equal(read_register(wave, 1, REG_V40, 4 * 61, 4), KERNEL_FP);
  /* Same value: the leaf does not touch s32. */
  assert_int_equal(read_register(wave, 1, 32 + 32, 0, 4), 0x3000);

  assert_int_equal(read_register(wave, 2, REG_PC, 0, 8), RETURN_INTO_KERNEL);
  assert_int_equal(read_register(wave, 2, REG_S33, 0, 4), KERNEL_FP);
  assert_int_equal(read_register(wave, 2, REG_V40, 0, 4), kernel_v40(w, 0));
  assert_int_equal(read_register(wave, 2, REG_V40, 4 * 63, 4), kernel_v40(w, 63));

  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_wave_read_register(wave, 1, REG_V5, 0, 4, bytes, &err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(err.status, AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_non_null(strstr(err.message, "frame 1"));
  /* mid has no rule for v5: the kernel's is mid's, which is undefined. */
  assert_int_equal(amddwarf_wave_read_register(wave, 2, REG_V5, 0, 4, bytes, &err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  /* No frame 3. */
  assert_int_equal(amddwarf_wave_read_register(wave, 3, REG_V5, 0, 4, bytes, &err),
                   AMDDWARF_NOT_FOUND);
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
}

/* mid's variables read what the leaf saved for it, in lanes 0 and 1 (and
   others), not the leaf's registers; its v5 variable is unavailable. */
static void test_caller_variables(void **state)
{
  fixture *fx = *state;
  const uint32_t w = 9;
  amddwarf_snapshot *snap = snapshot_new(w);
  amddwarf_target raw;
  amddwarf_wave *wave = wave_open(fx->object, snap, &raw);
  static const uint32_t lanes[] = {0, 1, 2, 33, 63};
  for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; ++i) {
    uint32_t lane = lanes[i];
    /* Frame 0, the leaf: the target's v5, lslot at s33 / 64 + 8. */
    assert_var(wave, 0, "here", lane, v5(w, lane));
    assert_var(wave, 0, "lslot", lane, leaf_slot(w, lane));
    /* Frame 1, mid. */
    assert_var(wave, 1, "vlane", lane, mid_v40(w, lane));
    assert_var(wave, 1, "fp", lane, MID_FP);
    assert_var(wave, 1, "slot", lane, mid_slot(w, lane));
    assert_int_equal(read_var(wave, 1, "gone", lane).state, AMDDWARF_LANE_UNAVAILABLE);
    /* Frame 2, the kernel: v40 from mid's CFA. */
    assert_var(wave, 2, "kv", lane, kernel_v40(w, lane));
  }
  /* The values mid saw are not the leaf's current ones. */
  assert_int_not_equal(mid_v40(w, 0), leaf_v40(w, 0));
  assert_int_not_equal(mid_v40(w, 1), leaf_v40(w, 1));

  /* The variables of each frame are its function's. */
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_variables(wave, 1, &vars, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 4);
  assert_string_equal(vars[0].name, "vlane");
  assert_string_equal(vars[3].name, "gone");
  const amddwarf_frame_var *var = NULL;
  assert_int_equal(amddwarf_wave_find_variable(wave, 1, "here", &var, &err), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_wave_find_variable(wave, 0, "here", &var, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_wave_find_variable(wave, 2, "kv", &var, &err), AMDDWARF_OK);
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
}

/* ---- Without CFI ---- */

/* The innermost frame exists (the leaf, without a CFA); asking for its
   caller is an error, not OK, not END, and it stays so. */
static void test_no_cfi(void **state)
{
  (void)state;
  program prog;
  program_build(&prog, 0);
  amddwarf_object *object = object_open(&prog);
  amddwarf_snapshot *snap = snapshot_new(2);
  amddwarf_target raw;
  amddwarf_wave *wave = wave_open(object, snap, &raw);
  const amddwarf_frame *f = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_wave_frame(wave, 0, &f, &err), AMDDWARF_OK);
  assert_int_equal(f->pc, stop_pc(2));
  assert_int_equal(f->lookup_pc, stop_pc(2));
  uint32_t cfa_aspace;
  uint64_t cfa;
  assert_int_equal(amddwarf_wave_frame_cfa(wave, 0, &cfa_aspace, &cfa, NULL),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_null(amddwarf_wave_frame_row(wave, 0));
  assert_string_equal(f->function_name, "leaf");
  assert_int_equal(f->line, 21);
  assert_var(wave, 0, "here", 4, v5(2, 4));
  assert_var(wave, 0, "lslot", 4, leaf_slot(2, 4));
  assert_int_equal(read_register(wave, 0, REG_V5, 0, 4), v5(2, 0));
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_wave_frame(wave, 1, &f, &err);
  assert_true(st < 0);
  assert_int_equal(st, AMDDWARF_E_CFI_NO_FDE);
  assert_int_equal(err.status, st);
  assert_non_null(strstr(err.message, "no call frame information"));
  assert_int_equal(amddwarf_wave_frame(wave, 1, &f, &err), st);
  uint8_t bytes[4];
  assert_int_equal(amddwarf_wave_read_register(wave, 1, REG_V5, 0, 4, bytes, &err), st);
  assert_null(amddwarf_wave_frame_target(wave, 1));
  /* Frame 0 is still there. */
  assert_int_equal(amddwarf_wave_frame(wave, 0, &f, &err), AMDDWARF_OK);
  assert_string_equal(f->function_name, "leaf");
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
  amddwarf_object_close(object);
  program_free(&prog);
}

/* ---- Threads ---- */

enum { THREADS = 4, WAVES_PER_THREAD = 3, ITERATIONS = 200, VARIABLES = 7, SAMPLE_LANES = 4 };

static const struct {
  size_t frame;
  const char *name;
} thread_vars[VARIABLES] = {{0, "here"}, {0, "lslot"}, {1, "vlane"}, {1, "fp"},
                            {1, "slot"}, {1, "gone"}, {2, "kv"}};
static const uint32_t sample_lanes[SAMPLE_LANES] = {0, 1, 17, 62};

/* Everything a thread computes for one wave. */
typedef struct wave_result {
  size_t frame_count;
  amddwarf_status end_status;
  uint64_t pc[4], lookup_pc[4], cfa[4];
  uint32_t cfa_aspace[4];
  const char *name[4];
  uint32_t line[4];
  int v5_status[3];
  lane_read values[VARIABLES][SAMPLE_LANES];
} wave_result;

/* Computes R without cmocka's assertions (threads must not longjmp):
   returns 0, or -1 when a call failed. */
static int compute(const amddwarf_object *object, amddwarf_snapshot *snap, wave_result *r)
{
  memset(r, 0, sizeof *r);
  amddwarf_target raw;
  amddwarf_snapshot_target(snap, &raw);
  amddwarf_wave *wave = NULL;
  if (amddwarf_wave_open(&object, 1, &raw, NULL, &wave, NULL) != AMDDWARF_OK)
    return -1;
  int failed = 0;
  for (size_t i = 0; i < 4; ++i) {
    const amddwarf_frame *f = NULL;
    amddwarf_status st = amddwarf_wave_frame(wave, i, &f, NULL);
    if (st != AMDDWARF_OK) {
      r->end_status = st;
      break;
    }
    r->frame_count = i + 1;
    r->pc[i] = f->pc;
    r->lookup_pc[i] = f->lookup_pc;
    if (amddwarf_wave_frame_cfa(wave, i, &r->cfa_aspace[i], &r->cfa[i], NULL) != AMDDWARF_OK)
      r->cfa[i] = UINT64_MAX;
    r->name[i] = f->function_name;
    r->line[i] = f->line;
  }
  for (size_t i = 0; i < 3; ++i) {
    uint8_t bytes[4];
    r->v5_status[i] = amddwarf_wave_read_register(wave, i, REG_V5, 0, 4, bytes, NULL);
  }
  for (size_t v = 0; v < VARIABLES && !failed; ++v) {
    amddwarf_valobj *value = NULL;
    if (amddwarf_valobj_new(wave, thread_vars[v].frame, thread_vars[v].name, &value, NULL) !=
        AMDDWARF_OK) {
      failed = 1;
      break;
    }
    for (size_t l = 0; l < SAMPLE_LANES; ++l) {
      amddwarf_lane_value lv;
      if (amddwarf_valobj_read(value, sample_lanes[l], &lv, NULL) != AMDDWARF_OK) {
        failed = 1;
        break;
      }
      r->values[v][l].state = lv.state;
      if (lv.state == AMDDWARF_LANE_VALUE && lv.size == 4)
        r->values[v][l].value = (uint32_t)lv.bytes[0] | (uint32_t)lv.bytes[1] << 8 |
                                (uint32_t)lv.bytes[2] << 16 | (uint32_t)lv.bytes[3] << 24;
    }
    amddwarf_valobj_free(value);
  }
  amddwarf_wave_close(wave);
  return failed ? -1 : 0;
}

static int results_equal(const wave_result *a, const wave_result *b)
{
  if (a->frame_count != b->frame_count || a->end_status != b->end_status)
    return 0;
  for (size_t i = 0; i < a->frame_count; ++i)
    if (a->pc[i] != b->pc[i] || a->lookup_pc[i] != b->lookup_pc[i] || a->cfa[i] != b->cfa[i] ||
        a->cfa_aspace[i] != b->cfa_aspace[i] || a->line[i] != b->line[i] ||
        a->name[i] == NULL || b->name[i] == NULL || strcmp(a->name[i], b->name[i]) != 0)
      return 0;
  return memcmp(a->v5_status, b->v5_status, sizeof a->v5_status) == 0 &&
         memcmp(a->values, b->values, sizeof a->values) == 0;
}

typedef struct thread_job {
  const amddwarf_object *object;
  pthread_barrier_t *start;
  amddwarf_snapshot *snapshots[WAVES_PER_THREAD]; /* the thread's own */
  const wave_result *expected;                    /* one per snapshot */
  int mismatches, failures;
} thread_job;

static void *thread_main(void *arg)
{
  thread_job *job = arg;
  pthread_barrier_wait(job->start);
  for (int i = 0; i < ITERATIONS; ++i) {
    uint32_t k = (uint32_t)i % WAVES_PER_THREAD;
    wave_result r;
    if (compute(job->object, job->snapshots[k], &r) != 0)
      job->failures++;
    else if (!results_equal(&r, &job->expected[k]))
      job->mismatches++;
  }
  return NULL;
}

/* THREADS threads, each with waves of its own, over one object none of them
   has used yet (its CFI, units and line tables are made by whichever thread
   comes first): every result equals the one a single thread computed on
   another object of the same program. */
static void test_threads(void **state)
{
  fixture *fx = *state;
  static wave_result expected[THREADS][WAVES_PER_THREAD];
  static thread_job jobs[THREADS];
  for (uint32_t t = 0; t < THREADS; ++t)
    for (uint32_t k = 0; k < WAVES_PER_THREAD; ++k) {
      uint32_t w = 16 + t * WAVES_PER_THREAD + k;
      jobs[t].snapshots[k] = snapshot_new(w);
      assert_int_equal(compute(fx->object, jobs[t].snapshots[k], &expected[t][k]), 0);
      /* The single-threaded answers are the specified ones. */
      const wave_result *e = &expected[t][k];
      assert_int_equal(e->frame_count, 3);
      assert_int_equal(e->end_status, AMDDWARF_END);
      assert_int_equal(e->pc[0], stop_pc(w));
      assert_int_equal(e->cfa[2], KERNEL_FP);
      assert_int_equal(e->v5_status[0], AMDDWARF_OK);
      assert_int_equal(e->v5_status[1], AMDDWARF_E_EVAL_UNAVAILABLE);
      assert_int_equal(e->values[2][1].value, mid_v40(w, 1));
      assert_int_equal(e->values[4][2].value, mid_slot(w, 17));
      assert_int_equal(e->values[5][0].state, AMDDWARF_LANE_UNAVAILABLE);
      assert_int_equal(e->values[6][3].value, kernel_v40(w, 62));
    }
  amddwarf_object *shared = object_open(&fx->prog);
  pthread_barrier_t start;
  assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
  pthread_t threads[THREADS];
  for (uint32_t t = 0; t < THREADS; ++t) {
    jobs[t].object = shared;
    jobs[t].start = &start;
    jobs[t].expected = expected[t];
    jobs[t].mismatches = jobs[t].failures = 0;
    assert_int_equal(pthread_create(&threads[t], NULL, thread_main, &jobs[t]), 0);
  }
  for (uint32_t t = 0; t < THREADS; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  pthread_barrier_destroy(&start);
  for (uint32_t t = 0; t < THREADS; ++t) {
    assert_int_equal(jobs[t].failures, 0);
    assert_int_equal(jobs[t].mismatches, 0);
    for (uint32_t k = 0; k < WAVES_PER_THREAD; ++k)
      amddwarf_snapshot_free(jobs[t].snapshots[k]);
  }
  amddwarf_object_close(shared);
}

/* An object that keeps no answer (every frame's expansion, variable list
   and unwinder is then its wave's own) gives every wave the frames,
   registers and values an object that keeps them gives, the specified
   ones. */
static void test_without_kept_answers(void **state)
{
  fixture *fx = *state;
  amddwarf_object *bare = object_open(&fx->prog);
  amddwarf__object_memo_limit(bare, 0);
  for (uint32_t w = 16; w < 20; ++w) {
    amddwarf_snapshot *snap = snapshot_new(w);
    static wave_result kept, own;
    assert_int_equal(compute(fx->object, snap, &kept), 0);
    assert_int_equal(compute(bare, snap, &own), 0);
    assert_true(results_equal(&kept, &own));
    assert_int_equal(own.frame_count, 3);
    assert_int_equal(own.pc[0], stop_pc(w));
    assert_int_equal(own.cfa[2], KERNEL_FP);
    assert_int_equal(own.values[2][1].value, mid_v40(w, 1));
    assert_int_equal(own.values[6][3].value, kernel_v40(w, 62));
    amddwarf_snapshot_free(snap);
  }
  amddwarf_object_close(bare);
}

/* ---- Loaded code objects ---- */

#define LOADED_AT UINT64_C(0x7f0000001000)

static amddwarf_status open_loaded(const amddwarf_object *object, amddwarf_snapshot *snap,
                                   const char *architecture, amddwarf_target *raw,
                                   amddwarf_wave **wave, amddwarf_error *err)
{
  const uint64_t loads[1] = {LOADED_AT};
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.load_addresses = loads;
  options.architecture = architecture;
  amddwarf_snapshot_target(snap, raw);
  amddwarf_error_clear(err);
  return amddwarf_wave_open(&object, 1, raw, &options, wave, err);
}

/* The same stop with the object loaded at 0x7f0000001000: PCs and return
   addresses in the registers and the saved lanes are process addresses.
   The frames, lines, CFAs and values are those of test_frame_list, each PC
   moved by the load address, and each frame's object PC the object's. */
static void test_frame_list_loaded(void **state)
{
  fixture *fx = *state;
  const uint32_t w = 3;
  load_address = LOADED_AT;
  amddwarf_snapshot *snap = snapshot_new(w);
  amddwarf_target raw;
  amddwarf_wave *wave = NULL;
  amddwarf_error err;
  amddwarf_status st = open_loaded(fx->object, snap, "gfx900", &raw, &wave, &err);
  if (st != AMDDWARF_OK)
    print_error("open_loaded: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  const amddwarf_wave_info *info = amddwarf_wave_get_info(wave);
  assert_int_equal(info->pc, LOADED_AT + 0x1220 + 4 * w);
  assert_int_equal(info->object_pc, 0x1220 + 4 * w);
  assert_int_equal(info->load_address, LOADED_AT);
  const amddwarf_frame *f = NULL;
  assert_int_equal(amddwarf_wave_frame(wave, 0, &f, &err), AMDDWARF_OK);
  assert_frame(wave, f, 0, "leaf", LOADED_AT + 0x1220 + 4 * w, LOADED_AT + 0x1220 + 4 * w, LEAF_FP,
               21, 3);
  assert_int_equal(f->object_pc, 0x1220 + 4 * w);
  assert_int_equal(amddwarf_wave_frame(wave, 1, &f, &err), AMDDWARF_OK);
  assert_frame(wave, f, 1, "mid", LOADED_AT + RETURN_INTO_MID, LOADED_AT + RETURN_INTO_MID - 1,
               MID_FP, 12, 7);
  assert_int_equal(f->object_pc, RETURN_INTO_MID - 1);
  assert_int_equal(f->load_address, LOADED_AT);
  assert_int_equal(amddwarf_wave_frame(wave, 2, &f, &err), AMDDWARF_OK);
  assert_frame(wave, f, 2, "kernel", LOADED_AT + RETURN_INTO_KERNEL,
               LOADED_AT + RETURN_INTO_KERNEL - 1, KERNEL_FP, 5, 2);
  assert_int_equal(amddwarf_wave_frame(wave, 3, &f, &err), AMDDWARF_END);
  for (uint32_t lane = 0; lane < LANES; lane += 21) {
    assert_var(wave, 0, "lslot", lane, leaf_slot(w, lane));
    assert_var(wave, 1, "slot", lane, mid_slot(w, lane));
    assert_var(wave, 2, "kv", lane, kernel_v40(w, lane));
  }
  assert_int_equal(read_register(wave, 1, REG_PC, 0, 8), LOADED_AT + RETURN_INTO_MID);
  /* Lane PCs are the wave's: a process address, placed in the object. */
  size_t at = 9;
  uint64_t object_pc = 0;
  assert_int_equal(amddwarf_wave_object_at(wave, LOADED_AT + 0x1104, &at, &object_pc),
                   AMDDWARF_OK);
  assert_int_equal(at, 0);
  assert_int_equal(object_pc, 0x1104);
  assert_int_equal(amddwarf_wave_object_at(wave, 0x1104, &at, &object_pc), AMDDWARF_NOT_FOUND);
  /* The place of a process address: mid's row at offset 384 (0x1180) is
     line 12 column 7 of frames.cl. */
  amddwarf_place place;
  assert_int_equal(amddwarf_wave_place(wave, LOADED_AT + 0x1184, &place), AMDDWARF_OK);
  assert_ptr_equal(place.object, fx->object);
  assert_int_equal(place.object_pc, 0x1184);
  assert_string_equal(place.function, "mid");
  assert_int_equal(place.inlined, 0);
  assert_int_equal(place.has_row, 1);
  assert_string_equal(amddwarf_place_file_name(&place), "frames.cl");
  assert_int_equal(place.line, 12);
  assert_int_equal(place.column, 7);
  assert_int_equal(amddwarf_wave_place(wave, 0x1184, &place), AMDDWARF_NOT_FOUND);
  assert_null(place.function);
  assert_null(amddwarf_place_file_name(&place));
  amddwarf_wave_close(wave);
  amddwarf_snapshot_free(snap);
  load_address = 0;
}

/* A stop that does not fit the object: its PC in no loaded object, another
   processor, a wave size the processor does not run. */
static void test_loaded_refusals(void **state)
{
  fixture *fx = *state;
  amddwarf_target raw;
  amddwarf_wave *wave = NULL;
  amddwarf_error err;
  /* PCs as object addresses, below the load address. */
  load_address = 0;
  amddwarf_snapshot *snap = snapshot_new(0);
  assert_int_equal(open_loaded(fx->object, snap, "gfx900", &raw, &wave, &err),
                   AMDDWARF_E_PC_NOT_LOADED);
  assert_null(wave);
  assert_non_null(strstr(err.message, "0x1220 lies in no loaded code object"));
  assert_non_null(strstr(err.message, "0x7f"));
  amddwarf_snapshot_free(snap);
  load_address = LOADED_AT;
  snap = snapshot_new(0);
  assert_int_equal(open_loaded(fx->object, snap, "gfx90a", &raw, &wave, &err),
                   AMDDWARF_E_WAVE_MISMATCH);
  assert_string_equal(err.message, "the wave is a gfx90a, its code object is for gfx900");
  assert_null(wave);
  amddwarf_snapshot_free(snap);
  /* A wave32 snapshot: gfx900 runs wave64 only. */
  const char *wave32 = "{\"wave_size\": 32, \"pc\": \"0x7f0000002220\"}";
  assert_int_equal(amddwarf_snapshot_load(wave32, strlen(wave32), NULL, &snap, &err),
                   AMDDWARF_OK);
  assert_int_equal(open_loaded(fx->object, snap, NULL, &raw, &wave, &err),
                   AMDDWARF_E_WAVE_MISMATCH);
  assert_string_equal(err.message,
                      "the wave is wave32, its code object (gfx900) has wave64 code only");
  amddwarf_snapshot_free(snap);
  load_address = 0;
}

/* amddwarf_loaded_object_at over two copies of the object loaded apart:
   an address belongs to the copy whose extent (its SHF_ALLOC sections,
   listed here from the section headers) holds it, and becomes that
   copy's object address. */
static void test_loaded_object_at(void **state)
{
  fixture *fx = *state;
  uint64_t low = UINT64_MAX, high = 0;
  for (size_t i = 1; i < amddwarf_object_section_count(fx->object); ++i) {
    amddwarf_object_section sec;
    assert_int_equal(amddwarf_object_section_at(fx->object, i, &sec, NULL), AMDDWARF_OK);
    if (!(sec.flags & 0x2) || sec.type == 8 /* SHT_NOBITS: none here */)
      continue;
    low = sec.address < low ? sec.address : low;
    high = sec.address + sec.size > high ? sec.address + sec.size : high;
  }
  assert_true(low <= 0x1000 && high >= 0x1300);
  uint64_t got_low = 0, got_high = 0;
  assert_int_equal(amddwarf_object_extent(fx->object, &got_low, &got_high), AMDDWARF_OK);
  assert_int_equal(got_low, low);
  assert_int_equal(got_high, high);
  const amddwarf_object *objects[2] = {fx->object, fx->object};
  const uint64_t loads[2] = {0x100000000ull, 0x200000000ull};
  size_t index = 7;
  uint64_t at = 0;
  assert_int_equal(amddwarf_loaded_object_at(objects, loads, 2, 0x100001220ull, &index, &at),
                   AMDDWARF_OK);
  assert_int_equal(index, 0);
  assert_int_equal(at, 0x1220);
  assert_int_equal(amddwarf_loaded_object_at(objects, loads, 2, 0x200001104ull, &index, &at),
                   AMDDWARF_OK);
  assert_int_equal(index, 1);
  assert_int_equal(at, 0x1104);
  /* The first and one past the last byte of the second copy. */
  assert_int_equal(
      amddwarf_loaded_object_at(objects, loads, 2, 0x200000000ull + low, &index, &at),
      AMDDWARF_OK);
  assert_int_equal(at, low);
  assert_int_equal(
      amddwarf_loaded_object_at(objects, loads, 2, 0x200000000ull + high, &index, &at),
      AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_loaded_object_at(objects, loads, 2, 0x1220, &index, &at),
                   AMDDWARF_NOT_FOUND);
  /* A load address where the extent would wrap: only what fits below. */
  const uint64_t high_loads[1] = {UINT64_MAX - 0x1100};
  assert_int_equal(amddwarf_loaded_object_at(objects, high_loads, 1, UINT64_MAX - 0x1100 + 0x1000,
                                             &index, &at),
                   AMDDWARF_OK);
  assert_int_equal(at, 0x1000);
  assert_int_equal(amddwarf_loaded_object_at(objects, loads, 2, 0x100001220ull, NULL, &at),
                   AMDDWARF_E_INVALID_ARGUMENT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frame_list),
      cmocka_unit_test(test_frame_list_loaded),
      cmocka_unit_test(test_loaded_refusals),
      cmocka_unit_test(test_loaded_object_at),
      cmocka_unit_test(test_registers),
      cmocka_unit_test(test_caller_variables),
      cmocka_unit_test(test_no_cfi),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_without_kept_answers),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
