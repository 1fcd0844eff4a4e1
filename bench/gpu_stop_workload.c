/* The "whole GPU stop" workload; see gpu_stop_workload.h for the program,
 * the state of each wave and the values expected. */
#include "gpu_stop_workload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/cfi.h>
#include <amddwarf/eval.h>
#include <amddwarf/object.h>
#include <amddwarf/produce.h>
#include <amddwarf/snapshot.h>

/* DWARF register numbers of the AMDGPU map (wave64). */
enum {
  REG_PC_64 = 16,
  REG_EXEC_64 = 17,
  REG_SGPR0 = 32,
  REG_VGPR0 = 2560,
};
#define SGPR(n) (REG_SGPR0 + (n))
#define VGPR(n) (REG_VGPR0 + (n))

enum {
  TEXT_BASE = 0x1000,   /* .text of a shared code object */
  FUNCTION_SIZE = 0x100,
  CALL_RETURN = 0x84,   /* return address offset in each caller */
  FRAME_SIZE = 0x1000,  /* wave-scaled: 64 bytes per lane */
  LANE_REGION = 0x400,  /* private_lane bytes per lane in the snapshot */
  LOCAL_ADDRESS = 0x100,
  LEAF = GPU_STOP_FRAMES - 1,
};

static const char *const variable_names[GPU_STOP_VARIABLES] = {
    "lane_id", "count", "slot", "tile", "sum", "idx", "base", "spilled"};

const char *gpu_stop_variable_name(size_t index)
{
  return index < GPU_STOP_VARIABLES ? variable_names[index] : NULL;
}

struct gpu_stop {
  const gpu_stop *code;    /* the workload whose code object this one borrows, or NULL */
  uint8_t *image;          /* the code object; borrowed by OBJECT */
  size_t image_size;
  amddwarf_object *object;
  amddwarf_cfi *cfi;
  amddwarf_snapshot *snapshot;
  amddwarf_target target;  /* the snapshot's */
  amddwarf_eval *eval;
  /* The unwinder of every wave's backtrace, reset for each (made by the
     first). */
  amddwarf_unwinder *unwinder;
  uint64_t pc;             /* the loaded wave's stop PC */
  /* The variables in scope at PC (gpu_stop_scope), their sizes and the
     request evaluating them. */
  amddwarf_var vars[GPU_STOP_VARIABLES + 1];
  uint64_t byte_sizes[GPU_STOP_VARIABLES];
  amddwarf_eval_request request;
};

/* ---- Text building ------------------------------------------------------- */

typedef struct text {
  char *bytes;
  size_t length, capacity;
  int failed;
} text;

static void text_append(text *t, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  int needed = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (t->failed || needed < 0) {
    t->failed = 1;
    return;
  }
  if (t->length + (size_t)needed + 1 > t->capacity) {
    size_t capacity = (t->length + (size_t)needed + 1) * 2;
    char *grown = realloc(t->bytes, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->bytes = grown;
    t->capacity = capacity;
  }
  va_start(args, format);
  vsnprintf(t->bytes + t->length, (size_t)needed + 1, format, args);
  va_end(args);
  t->length += (size_t)needed;
}

static amddwarf_status fail(amddwarf_error *err, amddwarf_status status, const char *what)
{
  if (err) {
    memset(err, 0, sizeof *err);
    err->status = status;
    err->offset = AMDDWARF_NO_OFFSET;
    err->opcode = AMDDWARF_NO_OPCODE;
    err->subop = AMDDWARF_NO_OPCODE;
    snprintf(err->message, sizeof err->message, "gpu_stop: %s", what);
  }
  return status;
}

/* ---- The program ----------------------------------------------------------- */

static const char leaf_frame_base[] =
    "DW_OP_bregx s32 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; DW_OP_LLVM_form_aspace_address";
static const char frame_pointer_base[] =
    "DW_OP_bregx s33 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; DW_OP_LLVM_form_aspace_address";
static const char lane_of_v1[] =
    "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset";
static const char lane_of_v4[] =
    "DW_OP_regx v4; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset";
static const char lanes_of_v2_v3[] =
    "DW_OP_regx v2; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset; "
    "DW_OP_piece 4; DW_OP_regx v3; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; "
    "DW_OP_LLVM_offset; DW_OP_piece 4";
/* v41 spilled at private_wave s32 + 0x800 for the lanes of EXEC. */
static const char spilled_v41[] =
    "DW_OP_regx v41; DW_OP_bregx s32 0x800; DW_OP_lit6; DW_OP_LLVM_form_aspace_address; "
    "DW_OP_bregx exec 0; DW_OP_LLVM_select_bit_piece 32 64; DW_OP_LLVM_push_lane; DW_OP_lit4; "
    "DW_OP_mul; DW_OP_LLVM_offset";

static void describe_variables(text *t)
{
  text_append(t, "\"variables\": ["
                 "{\"name\": \"lane_id\", \"type\": \"int\", \"location\": \"%s\"},"
                 "{\"name\": \"count\", \"type\": \"int\", \"location\": \"DW_OP_regx s8\"},"
                 "{\"name\": \"slot\", \"type\": \"int\", \"location\": \"DW_OP_fbreg 16\"},"
                 "{\"name\": \"tile\", \"type\": \"int\", \"location\": \"DW_OP_constu %d; "
                 "DW_OP_lit3; DW_OP_LLVM_form_aspace_address\"},"
                 "{\"name\": \"sum\", \"type\": \"double\", \"location\": \"%s\"},",
              lane_of_v1, LOCAL_ADDRESS, lanes_of_v2_v3);
  text_append(t, "{\"name\": \"idx\", \"type\": \"int\", \"location\": ["
                 "{\"low\": %d, \"high\": %d, \"expr\": \"%s\"},"
                 "{\"low\": %d, \"high\": %d, \"expr\": \"DW_OP_fbreg 20\"}]},",
              LEAF * FUNCTION_SIZE, LEAF * FUNCTION_SIZE + 0x80, lane_of_v4,
              LEAF * FUNCTION_SIZE + 0x80, (LEAF + 1) * FUNCTION_SIZE);
  text_append(t, "{\"name\": \"base\", \"type\": \"int_ptr\", \"location\": \"DW_OP_regx s10; "
                 "DW_OP_piece 4; DW_OP_regx s11; DW_OP_piece 4\"},"
                 "{\"name\": \"spilled\", \"type\": \"int\", \"location\": \"%s\"}]",
              spilled_v41);
}

static void describe_functions(text *t)
{
  text_append(t, "\"functions\": [");
  for (int level = 0; level < GPU_STOP_FRAMES; level++) {
    text_append(t, "%s{\"name\": \"level%d\", \"low\": %d, \"high\": %d, \"frame_base\": \"%s\"",
                level ? "," : "", level, level * FUNCTION_SIZE, (level + 1) * FUNCTION_SIZE,
                level == LEAF ? leaf_frame_base : frame_pointer_base);
    if (level == LEAF) {
      text_append(t, ", ");
      describe_variables(t);
    }
    text_append(t, "}");
  }
  text_append(t, "]");
}

/* level1-6 after their 16-byte prologue: the caller's v40 at CFA+0, the
   caller's s33 in lane 2 of v40, the return address in lanes 0-1 of v40,
   CFA = s33 in private_wave. The kernel: CFA = s33, no return address. The
   leaf uses the CIE's rules: CFA = s32, return address s30:s31. */
static void describe_cfi(text *t)
{
  text_append(t, "\"cfi\": {\"cies\": [{\"augmentation\": \"[amd:v0.0]\", \"code_align\": 4, "
                 "\"data_align\": 4, \"ra_column\": 16, \"instructions\": ["
                 "{\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [%d, 0, 6]},"
                 "{\"op\": \"DW_CFA_expression\", \"operands\": [16], \"expr\": "
                 "\"DW_OP_regx s30; DW_OP_piece 4; DW_OP_regx s31; DW_OP_piece 4\"}]}], "
                 "\"fdes\": [",
              SGPR(32));
  for (int level = 0; level < GPU_STOP_FRAMES; level++) {
    text_append(t, "%s{\"cie\": 0, \"start\": %d, \"length\": %d, \"instructions\": [",
                level ? "," : "", level * FUNCTION_SIZE, FUNCTION_SIZE);
    if (level == 0)
      text_append(t, "{\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [%d, 0, 6]},"
                     "{\"op\": \"DW_CFA_undefined\", \"operands\": [16]}",
                  SGPR(33));
    else if (level != LEAF)
      text_append(t, "{\"op\": \"DW_CFA_advance_loc\", \"operands\": [4]},"
                     "{\"op\": \"DW_CFA_offset_extended\", \"operands\": [%d, 0]},"
                     "{\"op\": \"DW_CFA_expression\", \"operands\": [%d], "
                     "\"expr\": \"DW_OP_regx v40; DW_OP_LLVM_offset_uconst 8\"},"
                     "{\"op\": \"DW_CFA_expression\", \"operands\": [16], \"expr\": "
                     "\"DW_OP_regx v40; DW_OP_piece 4; DW_OP_regx v40; "
                     "DW_OP_LLVM_offset_uconst 4; DW_OP_piece 4\"},"
                     "{\"op\": \"DW_CFA_LLVM_def_aspace_cfa\", \"operands\": [%d, 0, 6]}",
                  VGPR(40), SGPR(33), SGPR(33));
    text_append(t, "]}");
  }
  text_append(t, "]}");
}

static void describe_program(text *t)
{
  text_append(t, "{\"dwarf\": {\"version\": 5, \"dialect\": \"user\", \"wave_size\": 64},"
                 "\"object\": {\"type\": \"shared\", \"processor\": \"gfx900\", "
                 "\"text_size\": %d},\"symbols\": [",
              GPU_STOP_FRAMES * FUNCTION_SIZE);
  for (int level = 0; level < GPU_STOP_FRAMES; level++)
    text_append(t, "%s{\"name\": \"level%d\", \"offset\": %d, \"size\": %d}", level ? "," : "",
                level, level * FUNCTION_SIZE, FUNCTION_SIZE);
  text_append(t, "], \"units\": [{\"name\": \"stop.cl\", \"comp_dir\": \"/src\", "
                 "\"producer\": \"bench gpu_stop\", \"types\": ["
                 "{\"id\": \"int\", \"kind\": \"base\", \"name\": \"int\", \"byte_size\": 4, "
                 "\"encoding\": \"signed\"},"
                 "{\"id\": \"double\", \"kind\": \"base\", \"name\": \"double\", "
                 "\"byte_size\": 8, \"encoding\": \"float\"},"
                 "{\"id\": \"int_ptr\", \"kind\": \"pointer\", \"type\": \"int\", "
                 "\"byte_size\": 8}], ");
  describe_functions(t);
  text_append(t, "}], ");
  describe_cfi(t);
  text_append(t, "}");
}

/* ---- The snapshot template --------------------------------------------------- */

static void append_hex_zeros(text *t, size_t bytes)
{
  for (size_t i = 0; i < bytes; i++)
    text_append(t, "00");
}

/* Registers all zero, 64 private_lane regions and the LDS word, and the
   leaf's frame base (the object's bytes, in hex). */
static void describe_snapshot(text *t, const uint8_t *frame_base, size_t frame_base_size)
{
  text_append(t, "{\"architecture\": \"gfx900\", \"wave_size\": 64, \"exec\": 0, \"pc\": 0, "
                 "\"registers\": {\"s8\": 0, \"s10\": 0, \"s11\": 0, \"s30\": 0, \"s31\": 0, "
                 "\"s32\": 0, \"s33\": 0, \"v1\": [0], \"v2\": [0], \"v3\": [0], \"v4\": [0], "
                 "\"v40\": [0], \"v41\": [0]}, \"memory\": [");
  for (int lane = 0; lane < GPU_STOP_LANES; lane++) {
    text_append(t, "{\"address_space\": \"private_lane\", \"lane\": %d, \"address\": 0, "
                   "\"bytes\": \"",
                lane);
    append_hex_zeros(t, LANE_REGION);
    text_append(t, "\"},");
  }
  text_append(t, "{\"address_space\": \"local\", \"address\": %d, \"bytes\": \"", LOCAL_ADDRESS);
  append_hex_zeros(t, 4);
  text_append(t, "\"}], \"frame_base\": {\"hex\": \"");
  for (size_t i = 0; i < frame_base_size; i++)
    text_append(t, "%02x", frame_base[i]);
  text_append(t, "\"}}");
}

static const amddwarf_die_info *leaf_function(const amddwarf_object *object)
{
  const amddwarf_die_info *scopes[8];
  size_t count = 0;
  if (amddwarf_object_scopes_at(object, TEXT_BASE + LEAF * FUNCTION_SIZE, scopes, 8, &count) !=
      AMDDWARF_OK)
    return NULL;
  for (size_t i = 0; i < count && i < 8; i++)
    if (scopes[i]->tag == AMDDWARF_DW_TAG_subprogram)
      return scopes[i];
  return NULL;
}

static amddwarf_status load_snapshot(gpu_stop *stop, amddwarf_error *err)
{
  const amddwarf_die_info *leaf = leaf_function(stop->object);
  const uint8_t *frame_base = NULL;
  size_t frame_base_size = 0;
  if (!leaf || !leaf->frame_base ||
      amddwarf_attr_value_expr_at(leaf->frame_base, TEXT_BASE + LEAF * FUNCTION_SIZE,
                                  &frame_base, &frame_base_size, NULL) != AMDDWARF_OK)
    return fail(err, AMDDWARF_E_MALFORMED, "the leaf function has no frame base");
  text json = {0};
  describe_snapshot(&json, frame_base, frame_base_size);
  amddwarf_status st =
      json.failed ? fail(err, AMDDWARF_E_NO_MEMORY, "snapshot text")
                  : amddwarf_snapshot_load(json.bytes, json.length, NULL, &stop->snapshot, err);
  free(json.bytes);
  if (st == AMDDWARF_OK)
    amddwarf_snapshot_target(stop->snapshot, &stop->target);
  return st;
}

amddwarf_status gpu_stop_new(gpu_stop **out, amddwarf_error *err)
{
  *out = NULL;
  gpu_stop *stop = calloc(1, sizeof *stop);
  text program = {0};
  amddwarf_status st = AMDDWARF_OK;
  if (!stop) {
    st = fail(err, AMDDWARF_E_NO_MEMORY, "workload");
    goto done;
  }
  describe_program(&program);
  if (program.failed) {
    st = fail(err, AMDDWARF_E_NO_MEMORY, "program text");
    goto done;
  }
  st = amddwarf_build_json(program.bytes, program.length, NULL, &stop->image, &stop->image_size,
                           err);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_open_memory(stop->image, stop->image_size, NULL, &stop->object, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_cfi_open_elf(stop->image, stop->image_size, AMDDWARF_CFI_DEBUG_FRAME, NULL,
                               &stop->cfi, err);
  if (st == AMDDWARF_OK)
    st = load_snapshot(stop, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_new(NULL, &stop->eval, err);
done:
  free(program.bytes);
  if (st == AMDDWARF_OK)
    *out = stop;
  else
    gpu_stop_free(stop);
  return st;
}

amddwarf_status gpu_stop_new_sharing(const gpu_stop *code, gpu_stop **out, amddwarf_error *err)
{
  *out = NULL;
  gpu_stop *stop = calloc(1, sizeof *stop);
  if (!stop)
    return fail(err, AMDDWARF_E_NO_MEMORY, "workload");
  stop->code = code;
  stop->image = code->image;
  stop->image_size = code->image_size;
  stop->object = code->object;
  stop->cfi = code->cfi;
  amddwarf_status st = load_snapshot(stop, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_new(NULL, &stop->eval, err);
  if (st == AMDDWARF_OK)
    *out = stop;
  else
    gpu_stop_free(stop);
  return st;
}

void gpu_stop_free(gpu_stop *stop)
{
  if (!stop)
    return;
  amddwarf_eval_free(stop->eval);
  amddwarf_unwinder_free(stop->unwinder);
  amddwarf_snapshot_free(stop->snapshot);
  if (stop->code) {
    free(stop);
    return;
  }
  amddwarf_cfi_close(stop->cfi);
  amddwarf_object_close(stop->object);
  amddwarf_produce_free_bytes(NULL, stop->image, stop->image_size);
  free(stop);
}

const uint8_t *gpu_stop_code_object(const gpu_stop *stop, size_t *size)
{
  *size = stop->image_size;
  return stop->image;
}

/* ---- One wave's state ---------------------------------------------------------- */

static uint64_t frame_pointer(uint32_t wave, int level)
{
  return (uint64_t)(wave % 8) * FRAME_SIZE + (uint64_t)level * FRAME_SIZE;
}

static uint64_t return_into(int level)
{
  return TEXT_BASE + (uint64_t)level * FUNCTION_SIZE + CALL_RETURN;
}

/* Lanes 0-2 of level LEVEL's v40 (its return address and its caller's
   frame pointer); other lanes hold data of the wave. */
static uint32_t saved_v40_lane(uint32_t wave, int level, uint32_t lane)
{
  if (level < 1)
    return 0x40000000u + wave * 64 + lane;
  switch (lane) {
  case 0:
    return (uint32_t)return_into(level - 1);
  case 1:
    return (uint32_t)(return_into(level - 1) >> 32);
  case 2:
    return (uint32_t)frame_pointer(wave, level - 1);
  default:
    return 0x40000000u + (uint32_t)level * 0x01000000u + wave * 64 + lane;
  }
}

static void put32(uint8_t *bytes, uint32_t value)
{
  for (int i = 0; i < 4; i++)
    bytes[i] = (uint8_t)(value >> (8 * i));
}

static void put64(uint8_t *bytes, uint64_t value)
{
  put32(bytes, (uint32_t)value);
  put32(bytes + 4, (uint32_t)(value >> 32));
}

static uint64_t double_bits(double value)
{
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

typedef struct register_value {
  uint32_t regno;
  uint32_t size;
  uint64_t value;
} register_value;

static amddwarf_status write_scalars(gpu_stop *stop, uint32_t wave, amddwarf_error *err)
{
  uint64_t exec = UINT64_MAX >> (wave % 32);
  const register_value scalars[] = {
      {REG_PC_64, 8, stop->pc},
      {REG_EXEC_64, 8, exec},
      {SGPR(8), 4, 1000u + wave},
      {SGPR(10), 4, (uint32_t)(0x7f0000000000ull + wave * 0x1000ull)},
      {SGPR(11), 4, (uint32_t)((0x7f0000000000ull + wave * 0x1000ull) >> 32)},
      {SGPR(30), 4, (uint32_t)return_into(LEAF - 1)},
      {SGPR(31), 4, (uint32_t)(return_into(LEAF - 1) >> 32)},
      {SGPR(32), 4, frame_pointer(wave, LEAF)},
      {SGPR(33), 4, frame_pointer(wave, LEAF - 1)},
  };
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    uint8_t bytes[8];
    put64(bytes, scalars[i].value);
    amddwarf_status st = stop->target.write_register(stop->target.user, scalars[i].regno, 0,
                                                     scalars[i].size, bytes);
    if (st != AMDDWARF_OK)
      return fail(err, st, "writing a scalar register");
  }
  return AMDDWARF_OK;
}

static amddwarf_status write_vectors(gpu_stop *stop, uint32_t wave, amddwarf_error *err)
{
  enum { VECTOR_COUNT = 6 };
  static const uint32_t regnos[VECTOR_COUNT] = {VGPR(1), VGPR(2), VGPR(3),
                                                VGPR(4), VGPR(40), VGPR(41)};
  uint8_t lanes[VECTOR_COUNT][GPU_STOP_LANES * 4];
  for (uint32_t lane = 0; lane < GPU_STOP_LANES; lane++) {
    uint32_t id = wave * 64 + lane;
    uint64_t sum = double_bits(id * 0.5);
    put32(lanes[0] + 4 * lane, id);
    put32(lanes[1] + 4 * lane, (uint32_t)sum);
    put32(lanes[2] + 4 * lane, (uint32_t)(sum >> 32));
    put32(lanes[3] + 4 * lane, wave + 2 * lane);
    put32(lanes[4] + 4 * lane, saved_v40_lane(wave, LEAF - 1, lane));
    put32(lanes[5] + 4 * lane, 0x41000000u + id);
  }
  for (size_t i = 0; i < VECTOR_COUNT; i++) {
    amddwarf_status st =
        stop->target.write_register(stop->target.user, regnos[i], 0, sizeof lanes[i], lanes[i]);
    if (st != AMDDWARF_OK)
      return fail(err, st, "writing a vector register");
  }
  return AMDDWARF_OK;
}

/* Each lane's scratch: the v40 each of level2-6 saved for its caller (at
   its CFA), and the leaf's locals at its frame base. */
static amddwarf_status write_scratch(gpu_stop *stop, uint32_t wave, amddwarf_error *err)
{
  /* REGION holds lane addresses [LOW, LOW + sizeof REGION). */
  uint64_t low = frame_pointer(wave, 1) / 64;
  uint8_t region[FRAME_SIZE / 64 * LEAF];
  uint8_t *leaf_frame = region + (frame_pointer(wave, LEAF) / 64 - low);
  for (uint32_t lane = 0; lane < GPU_STOP_LANES; lane++) {
    uint32_t id = wave * 64 + lane;
    memset(region, 0, sizeof region);
    for (int level = 1; level < LEAF; level++)
      put32(region + (frame_pointer(wave, level) / 64 - low),
            saved_v40_lane(wave, level - 1, lane));
    put32(leaf_frame + 16, wave * 0x10000u + lane * 0x100u + 3);
    put32(leaf_frame + 20, 0x50000000u + id);
    put32(leaf_frame + 0x20, 0x60000000u + id);
    amddwarf_status st = stop->target.write_memory(
        stop->target.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, lane, low, sizeof region, region);
    if (st != AMDDWARF_OK)
      return fail(err, st, "writing scratch memory");
  }
  uint8_t tile[4];
  put32(tile, 0x70000000u + wave / 4);
  amddwarf_status st = stop->target.write_memory(
      stop->target.user, AMDDWARF_ASPACE_AMDGPU_LOCAL, AMDDWARF_NO_LANE, LOCAL_ADDRESS, 4, tile);
  return st == AMDDWARF_OK ? st : fail(err, st, "writing local memory");
}

amddwarf_status gpu_stop_load_wave(gpu_stop *stop, uint32_t wave, amddwarf_error *err)
{
  stop->pc = TEXT_BASE + LEAF * FUNCTION_SIZE + ((wave & 1) ? 0xa0 : 0x20);
  amddwarf_status st = write_scalars(stop, wave, err);
  if (st == AMDDWARF_OK)
    st = write_vectors(stop, wave, err);
  if (st == AMDDWARF_OK)
    st = write_scratch(stop, wave, err);
  return st;
}

amddwarf_status gpu_stop_save_wave(const gpu_stop *stop, char **json, size_t *json_size,
                                   amddwarf_error *err)
{
  return amddwarf_snapshot_save(stop->snapshot, json, json_size, err);
}

/* ---- Backtrace and variables ---------------------------------------------------- */

amddwarf_status gpu_stop_backtrace(gpu_stop *stop, gpu_stop_frame frames[GPU_STOP_FRAMES],
                                   size_t *count, amddwarf_error *err)
{
  *count = 0;
  amddwarf_status st =
      stop->unwinder != NULL
          ? amddwarf_unwinder_reset(stop->unwinder, &stop->target, NULL, err)
          : amddwarf_unwinder_new(stop->cfi, &stop->target, NULL, &stop->unwinder, err);
  amddwarf_unwinder *unwinder = stop->unwinder;
  if (st != AMDDWARF_OK)
    return st;
  while ((st = amddwarf_unwinder_step(unwinder, err)) == AMDDWARF_OK &&
         amddwarf_unwinder_frame_count(unwinder) < GPU_STOP_FRAMES)
    ;
  if (st == AMDDWARF_END || st == AMDDWARF_OK) {
    st = AMDDWARF_OK;
    size_t frame_count = amddwarf_unwinder_frame_count(unwinder);
    for (size_t k = 0; k < frame_count && st == AMDDWARF_OK; k++) {
      amddwarf_frame_info info;
      st = amddwarf_unwinder_frame(unwinder, k, &info);
      if (st == AMDDWARF_OK && !info.has_cfa)
        st = fail(err, AMDDWARF_E_CFI_UNEVALUABLE, "a frame's CFA");
      if (st == AMDDWARF_OK) {
        frames[k].pc = info.pc;
        frames[k].cfa = info.cfa;
        frames[k].cfa_aspace = info.cfa_aspace;
        *count = k + 1;
      }
    }
  }
  return st;
}

amddwarf_status gpu_stop_scope(gpu_stop *stop, amddwarf_error *err)
{
  size_t count = 0;
  amddwarf_status st = amddwarf_object_vars_at(stop->object, stop->pc, stop->vars,
                                               GPU_STOP_VARIABLES + 1, &count);
  if (st != AMDDWARF_OK || count != GPU_STOP_VARIABLES)
    return fail(err, st != AMDDWARF_OK ? st : AMDDWARF_E_MALFORMED,
                "the leaf function's variables");
  const amddwarf_cu *cu = amddwarf_object_cu(stop->object, stop->vars[0].die->cu_index);
  amddwarf_eval_request_init(&stop->request, &stop->target);
  stop->request.format = cu->format;
  stop->request.wave_size = GPU_STOP_LANES; /* every wave of the stop is wave64 */
  for (size_t v = 0; v < GPU_STOP_VARIABLES; v++) {
    amddwarf_die_ref die;
    amddwarf_die_fields fields;
    if (!stop->vars[v].available ||
        amddwarf_object_die_ref_at(stop->object, stop->vars[v].die->offset, &die, NULL) !=
            AMDDWARF_OK ||
        amddwarf_object_die_fields(stop->object, die, &fields, NULL) != AMDDWARF_OK ||
        amddwarf_type_byte_size(stop->object, fields.type, &stop->byte_sizes[v]) != AMDDWARF_OK ||
        stop->byte_sizes[v] > 8)
      return fail(err, AMDDWARF_E_MALFORMED, "a variable without location or size");
  }
  return AMDDWARF_OK;
}

const uint8_t *gpu_stop_variable_location(const gpu_stop *stop, size_t index, size_t *size)
{
  *size = stop->vars[index].size;
  return stop->vars[index].expr;
}

/* The 8 bytes at B as a little-endian number (one load: compilers know
   the pattern, so the harness adds as little to a lane's time as the
   peer's). */
static uint64_t little_endian_u64(const uint8_t *b)
{
  return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
         (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
         (uint64_t)b[7] << 56;
}

amddwarf_status gpu_stop_variable(gpu_stop *stop, size_t index, uint64_t values[GPU_STOP_LANES],
                                  amddwarf_error *err)
{
  const amddwarf_var *var = &stop->vars[index];
  amddwarf_status st = AMDDWARF_OK;
  for (uint32_t lane = 0; lane < GPU_STOP_LANES && st == AMDDWARF_OK; lane++) {
    uint8_t bytes[8] = {0};
    stop->request.lane = lane;
    st = amddwarf_eval_read(stop->eval, &stop->request, var->expr, var->size, 0,
                            stop->byte_sizes[index] * 8, bytes, err);
    values[lane] = little_endian_u64(bytes);
  }
  return st;
}

amddwarf_status gpu_stop_wave_variable(gpu_stop *stop, size_t index,
                                       uint64_t values[GPU_STOP_LANES], amddwarf_error *err)
{
  const amddwarf_var *var = &stop->vars[index];
  uint8_t bytes[GPU_STOP_LANES][8];
  amddwarf_status statuses[AMDDWARF_EVAL_MAX_LANES];
  memset(bytes, 0, sizeof bytes);
  amddwarf_status st = amddwarf_eval_read_lanes(
      stop->eval, &stop->request, var->expr, var->size, ~0ull >> (64 - GPU_STOP_LANES), 0,
      stop->byte_sizes[index] * 8, bytes, sizeof bytes[0], statuses, NULL, err);
  for (uint32_t lane = 0; lane < GPU_STOP_LANES && st == AMDDWARF_OK; lane++) {
    if (statuses[lane] != AMDDWARF_OK)
      return fail(err, statuses[lane], "a lane of a variable does not read");
    values[lane] = little_endian_u64(bytes[lane]);
  }
  return st;
}

amddwarf_status gpu_stop_variables(gpu_stop *stop,
                                   uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES],
                                   amddwarf_error *err)
{
  amddwarf_status st = gpu_stop_scope(stop, err);
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++)
    st = gpu_stop_variable(stop, v, values[v], err);
  return st;
}

/* ---- The same work through the debugger layer ------------------------------------ */

amddwarf_status gpu_stop_api_open(gpu_stop *stop, amddwarf_wave **out, amddwarf_error *err)
{
  const amddwarf_object *objects[1] = {stop->object};
  amddwarf_wave_options options;
  amddwarf_wave_options_init(&options);
  options.eval = stop->eval; /* one evaluator for every wave, as the direct path */
  /* The workload's code does not diverge: every lane, in EXEC or not, stands
     at the wave's PC and is read there, as the direct path reads it. */
  options.lanes_at_pc = ~0ull >> (64 - GPU_STOP_LANES);
  return amddwarf_wave_open(objects, 1, &stop->target, &options, out, err);
}

amddwarf_status gpu_stop_api_backtrace(amddwarf_wave *wave,
                                       gpu_stop_frame frames[GPU_STOP_FRAMES], size_t *count,
                                       amddwarf_error *err)
{
  *count = 0;
  for (size_t k = 0; k < GPU_STOP_FRAMES; k++) {
    const amddwarf_frame *frame;
    amddwarf_status st = amddwarf_wave_frame(wave, k, &frame, err);
    if (st == AMDDWARF_END)
      break;
    if (st != AMDDWARF_OK)
      return st;
    if (amddwarf_wave_frame_cfa(wave, k, &frames[k].cfa_aspace, &frames[k].cfa, NULL) !=
        AMDDWARF_OK)
      return fail(err, AMDDWARF_E_CFI_UNEVALUABLE, "a frame's CFA");
    frames[k].pc = frame->pc;
    *count = k + 1;
  }
  return AMDDWARF_OK;
}

amddwarf_status gpu_stop_api_variable(amddwarf_wave *wave, size_t index,
                                      uint64_t values[GPU_STOP_LANES], amddwarf_error *err)
{
  amddwarf_valobj *value = NULL;
  uint8_t bytes[GPU_STOP_LANES][8];
  amddwarf_lane_state states[AMDDWARF_MAX_LANES];
  /* A value of more than 8 bytes does not fit the stride: E_INVALID_ARGUMENT. */
  amddwarf_status st = amddwarf_valobj_new(wave, 0, variable_names[index], &value, err);
  if (st == AMDDWARF_OK) {
    memset(bytes, 0, sizeof bytes);
    st = amddwarf_valobj_read_bytes(value, ~0ull >> (64 - GPU_STOP_LANES), bytes,
                                    sizeof bytes[0], states, err);
  }
  for (uint32_t lane = 0; lane < GPU_STOP_LANES && st == AMDDWARF_OK; lane++) {
    if (states[lane] != AMDDWARF_LANE_VALUE) {
      /* The lane's own read says why. */
      amddwarf_lane_value read;
      st = amddwarf_valobj_read(value, lane, &read, err);
      if (st == AMDDWARF_OK)
        st = fail(err, read.status != AMDDWARF_OK ? read.status : AMDDWARF_E_MALFORMED,
                  read.message);
      break;
    }
    values[lane] = little_endian_u64(bytes[lane]);
  }
  amddwarf_valobj_free(value);
  return st;
}

amddwarf_status gpu_stop_api_variables(amddwarf_wave *wave,
                                       uint64_t values[GPU_STOP_VARIABLES][GPU_STOP_LANES],
                                       amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  for (size_t v = 0; v < GPU_STOP_VARIABLES && st == AMDDWARF_OK; v++)
    st = gpu_stop_api_variable(wave, v, values[v], err);
  return st;
}
