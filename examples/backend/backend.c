/* An example debugger backend built on libamddwarf.
 *
 * A real AMDGPU debugger backend sits on a debugger API such as amd-dbgapi:
 * the API stops waves and reads their registers and memory, and the backend
 * does everything symbolic. This program has the same three layers:
 *
 *   1. "dbg_*": a stand-in for the debugger API. Its functions have the shape
 *      of amd-dbgapi's (a wave handle; registers by number; memory by address
 *      space and lane), but they are served from a wave snapshot file
 *      (specs/snapshot.md) instead of a live GPU.
 *   2. "backend_target": the libamddwarf target interface (<amddwarf/target.h>)
 *      implemented on top of the dbg_* API: this is the code a real backend
 *      writes. Registers are asked for by DWARF number, memory by DW_ASPACE_*
 *      address space and lane.
 *   3. main(): opens the code object, unwinds the wave with the CFI
 *      (backtrace), then prints the local variables of every active lane,
 *      lanes grouped by their lane PC.
 *
 * Usage: amddwarf-backend-example CODE_OBJECT WAVE_SNAPSHOT.json
 * Build: see CMakeLists.txt next to this file (find_package(amddwarf)). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amddwarf.h>

/* ===== 1. The debugger API stand-in ===================================== */

/* A stopped wave. With amd-dbgapi this would be an amd_dbgapi_wave_id_t and
   the calls below amd_dbgapi_read_register / amd_dbgapi_read_memory. */
typedef struct dbg_wave {
  amddwarf_snapshot *snapshot; /* where the "hardware" state comes from */
  amddwarf_target state;       /* the snapshot's own accessors */
} dbg_wave;

static int dbg_wave_open(const char *path, dbg_wave *wave)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  char *text = NULL;
  size_t size = 0, cap = 0;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (size + got > cap) {
      cap = (size + got) * 2;
      char *grown = realloc(text, cap);
      if (!grown) {
        free(text);
        fclose(f);
        return -1;
      }
      text = grown;
    }
    memcpy(text + size, buf, got);
    size += got;
  }
  fclose(f);
  amddwarf_error err;
  amddwarf_status st = amddwarf_snapshot_load(text, size, NULL, &wave->snapshot, &err);
  free(text);
  if (st != AMDDWARF_OK) {
    fprintf(stderr, "%s: %s\n", path, err.message);
    return -1;
  }
  amddwarf_snapshot_target(wave->snapshot, &wave->state);
  return 0;
}

static void dbg_wave_close(dbg_wave *wave)
{
  amddwarf_snapshot_free(wave->snapshot);
}

/* amd_dbgapi_wave_get_info(WAVE_INFO_LANE_COUNT) */
static uint32_t dbg_wave_lane_count(const dbg_wave *wave)
{
  return amddwarf_snapshot_wave_size(wave->snapshot);
}

/* amd_dbgapi_read_register: SIZE bytes at OFFSET of register REGNO (this
   stand-in numbers registers by DWARF number, so the backend's mapping from
   DWARF numbers to API registers is the identity). */
static amddwarf_status dbg_read_register(dbg_wave *wave, uint32_t regno, uint64_t offset,
                                         uint64_t size, void *buf)
{
  return wave->state.read_register(wave->state.user, regno, offset, size, buf);
}

/* amd_dbgapi_read_memory: SIZE bytes at ADDRESS of address space ASPACE, as
   seen by lane LANE (for per-lane spaces such as private memory). */
static amddwarf_status dbg_read_memory(dbg_wave *wave, uint32_t aspace, uint32_t lane,
                                       uint64_t address, uint64_t size, void *buf)
{
  return wave->state.read_memory(wave->state.user, aspace, lane, address, size, buf);
}

/* ===== 2. The target interface on top of the debugger API =============== */

/* What the backend knows about the frame being inspected: the wave, the lane
   being evaluated, and the frame's DW_AT_frame_base (already normalized, see
   below). The evaluator reaches everything through these callbacks. */
typedef struct backend_frame {
  dbg_wave *wave;
  uint32_t lane;
  uint64_t pc;                 /* where the frame is: picks location list entries */
  uint8_t frame_base[256];
  size_t frame_base_size;
  const amddwarf_object *object;
  const amddwarf_cu *cu;       /* the unit of the code at PC */
} backend_frame;

static amddwarf_status be_read_register(void *user, uint32_t regno, uint64_t offset,
                                        uint64_t size, void *buf)
{
  backend_frame *f = user;
  return dbg_read_register(f->wave, regno, offset, size, buf);
}

static amddwarf_status be_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                      uint64_t address, uint64_t size, void *buf)
{
  backend_frame *f = user;
  return dbg_read_memory(f->wave, aspace, lane, address, size, buf);
}

static amddwarf_status be_focused_lane(void *user, uint32_t *lane)
{
  backend_frame *f = user;
  *lane = f->lane;
  return AMDDWARF_OK;
}

static amddwarf_status be_wave_size(void *user, uint32_t *wave_size)
{
  backend_frame *f = user;
  *wave_size = dbg_wave_lane_count(f->wave);
  return AMDDWARF_OK;
}

static amddwarf_status be_exec_mask(void *user, uint64_t *mask)
{
  backend_frame *f = user;
  uint32_t regno = dbg_wave_lane_count(f->wave) == 32 ? 1 : 17; /* EXEC_MASK_32 / _64 */
  *mask = 0;
  return dbg_read_register(f->wave, regno, 0, dbg_wave_lane_count(f->wave) / 8, mask);
}

static amddwarf_status be_frame_base(void *user, const uint8_t **expr, size_t *size)
{
  backend_frame *f = user;
  if (f->frame_base_size == 0)
    return AMDDWARF_NOT_FOUND;
  *expr = f->frame_base;
  *size = f->frame_base_size;
  return AMDDWARF_OK;
}

static amddwarf_status be_address_index(void *user, uint64_t index, uint64_t *value)
{
  backend_frame *f = user;
  return amddwarf_object_address_index(f->object, f->cu, index, value, NULL);
}

/* DW_OP_call2/call4/call_ref: the DIE's location expression at the frame's
   PC (DWARF procedures, such as the ones computing DW_AT_LLVM_lane_pc). */
static amddwarf_status be_die(void *user, amddwarf_die_ref_kind kind, uint64_t ref,
                              amddwarf_die *out)
{
  backend_frame *f = user;
  if (kind == AMDDWARF_DIE_REF_UNIT) {
    if (!f->cu)
      return AMDDWARF_NOT_FOUND;
    ref += f->cu->offset;
  }
  const amddwarf_die_info *die = amddwarf_object_die_at(f->object, ref);
  if (!die)
    return AMDDWARF_NOT_FOUND;
  memset(out, 0, sizeof *out);
  out->is_dwarf_procedure = die->tag == 0x36; /* DW_TAG_dwarf_procedure */
  if (die->location) {
    out->value = AMDDWARF_DIE_LOCATION;
    if (amddwarf_attr_value_expr_at(die->location, f->pc, &out->bytes, &out->size, NULL) !=
        AMDDWARF_OK) {
      out->bytes = NULL; /* no list entry here: the empty expression */
      out->size = 0;
    }
  }
  return AMDDWARF_OK;
}

/* DW_OP_regval_type, DW_OP_const_type, ...: base type DIEs of the unit. */
static amddwarf_status be_base_type(void *user, uint64_t die_offset, amddwarf_base_type *out)
{
  backend_frame *f = user;
  const amddwarf_die_info *die =
      f->cu ? amddwarf_object_die_at(f->object, f->cu->offset + die_offset) : NULL;
  if (!die || die->tag != 0x24) /* DW_TAG_base_type */
    return AMDDWARF_NOT_FOUND;
  out->die = die_offset;
  out->bit_size = (uint32_t)(die->bit_size ? die->bit_size : die->byte_size * 8);
  out->count = die->vector_size ? die->vector_size : 1;
  out->encoding = (uint8_t)die->encoding;
  return AMDDWARF_OK;
}

static void backend_target_init(backend_frame *frame, amddwarf_target *t)
{
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = frame;
  t->read_register = be_read_register;
  t->read_memory = be_read_memory;
  t->focused_lane = be_focused_lane;
  t->wave_size = be_wave_size;
  t->exec_mask = be_exec_mask;
  t->frame_base = be_frame_base;
  t->address_index = be_address_index;
  t->die = be_die;
  t->base_type = be_base_type;
  /* Writes, apertures, CFA, TLS: not needed to print locals here; a NULL
     callback makes an operation that needs it fail with
     AMDDWARF_E_UNSUPPORTED. */
}

/* ===== 3. Backtrace and locals ========================================== */

/* The innermost subprogram at PC and its source position. */
static const amddwarf_die_info *function_at(const amddwarf_object *obj, uint64_t pc)
{
  const amddwarf_die_info *scopes[32];
  size_t n = 0;
  if (amddwarf_object_scopes_at(obj, pc, scopes, 32, &n) != AMDDWARF_OK)
    return NULL;
  for (size_t i = 0; i < n && i < 32; i++)
    if (scopes[i]->tag == 0x2e) /* DW_TAG_subprogram */
      return scopes[i];
  return NULL;
}

/* Whether PC is inside a kernel's code (the symbol table marks kernels). */
static int is_kernel_entry(const amddwarf_object *obj, uint64_t pc)
{
  size_t n = amddwarf_object_symbol_count(obj);
  for (size_t i = 0; i < n; i++) {
    const amddwarf_symbol *s = amddwarf_object_symbol(obj, i);
    if (s->kind == AMDDWARF_SYMBOL_KERNEL && pc >= s->address && pc < s->address + s->size)
      return 1;
  }
  return 0;
}

static void print_position(const amddwarf_object *obj, uint64_t pc)
{
  const amddwarf_line_table *table;
  const amddwarf_line_row *row;
  if (amddwarf_object_line_at(obj, pc, &table, &row) == AMDDWARF_OK && row->file < table->file_count &&
      table->files[row->file]) {
    const char *file = table->files[row->file];
    const char *slash = strrchr(file, '/');
    printf(" at %s:%u", slash ? slash + 1 : file, (unsigned)row->line);
  }
}

/* Prints SIZE bytes of a variable of type TYPE the way a debugger would:
   base types by encoding, everything else as bytes. */
static void print_value(const amddwarf_die_info *type, const uint8_t *bytes, uint64_t size)
{
  type = amddwarf_type_strip(type);
  if (type && type->tag == 0x24 && size <= 8) { /* DW_TAG_base_type */
    uint64_t u = 0;
    for (uint64_t i = 0; i < size; i++)
      u |= (uint64_t)bytes[i] << (8 * i);
    if (type->encoding == 0x04 && size == 4) { /* DW_ATE_float */
      float x;
      memcpy(&x, bytes, 4);
      printf("%g", (double)x);
      return;
    }
    if (type->encoding == 0x04 && size == 8) {
      double x;
      memcpy(&x, bytes, 8);
      printf("%g", x);
      return;
    }
    if (type->encoding == 0x05 || type->encoding == 0x06) { /* signed, signed_char */
      unsigned shift = (unsigned)(64 - 8 * size);
      int64_t s = size == 8 ? (int64_t)u : (int64_t)(u << shift) >> shift;
      printf("%" PRId64, s);
      return;
    }
    printf("%" PRIu64, u);
    return;
  }
  printf("{");
  for (uint64_t i = 0; i < size; i++)
    printf(i ? " %02x" : "%02x", bytes[i]);
  printf("}");
}

/* Evaluates the location expression BYTES (SIZE) of unit CU for the lane
   FRAME->lane and reads BITS bits at BIT_OFFSET through it into OUT. */
static amddwarf_status read_through(amddwarf_eval *ev, backend_frame *frame,
                                    const amddwarf_cu *cu, const uint8_t *bytes, size_t size,
                                    uint64_t bit_offset, uint64_t bits, void *out)
{
  /* Code objects from upstream clang use the "legacy" convention
     (specs/conventions.md); amddwarf_object_normalize_expr rewrites an
     expression into the extension convention the evaluator implements
     (extension units are copied unchanged). */
  uint8_t expr[512];
  size_t expr_size = 0;
  amddwarf_status st = amddwarf_object_normalize_expr(frame->object, cu, AMDDWARF_ROLE_LOCATION,
                                                      bytes, size, expr, sizeof expr, &expr_size,
                                                      NULL);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_target target;
  backend_target_init(frame, &target);
  /* One request per lane: the lane, the unit's format, and the rules of
     the normalized expression (the user dialect for rewritten legacy
     expressions, DW_ASPACE numbering). */
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &target);
  req.format = cu->format;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY)
    req.format.dialect = AMDDWARF_DIALECT_USER;
  req.xderef = AMDDWARF_XDEREF_DWARF;
  req.lane = frame->lane;
  amddwarf_entry loc;
  st = amddwarf_eval_expr(ev, &req, expr, expr_size, &loc, NULL);
  if (st == AMDDWARF_OK)
    st = amddwarf_location_read(ev, &req, &loc.location, bit_offset, bits, out, NULL);
  return st;
}

/* Evaluates and prints the locals of the subprogram at PC for LANE. */
static void print_locals(const amddwarf_object *obj, amddwarf_eval *ev, dbg_wave *wave,
                         uint64_t pc, uint32_t lane, int active)
{
  amddwarf_var vars[64];
  size_t count = 0;
  if (amddwarf_object_vars_at(obj, pc, vars, 64, &count) != AMDDWARF_OK)
    return;
  if (count > 64)
    count = 64;
  backend_frame frame;
  memset(&frame, 0, sizeof frame);
  frame.wave = wave;
  frame.lane = lane;
  frame.pc = pc;
  frame.object = obj;
  /* The frame base of the subprogram at PC, normalized like every other
     expression (see read_through). */
  const amddwarf_die_info *fn = function_at(obj, pc);
  if (fn)
    frame.cu = amddwarf_object_cu(obj, fn->cu_index);
  const uint8_t *fb;
  size_t fbs;
  if (fn && fn->frame_base && frame.cu &&
      amddwarf_attr_value_expr_at(fn->frame_base, pc, &fb, &fbs, NULL) == AMDDWARF_OK)
    amddwarf_object_normalize_expr(obj, frame.cu, AMDDWARF_ROLE_FRAME_BASE, fb, fbs,
                                   frame.frame_base, sizeof frame.frame_base,
                                   &frame.frame_base_size, NULL);
  printf("    lane %u%s:", (unsigned)lane, active ? "" : " (waiting, not in EXEC)");
  int printed = 0;
  for (size_t i = 0; i < count; i++) {
    const amddwarf_var *v = &vars[i];
    if (!v->die->name || (v->scope && v->scope->tag == 0x11)) /* skip unit-level globals */
      continue;
    printf("%s %s = ", printed++ ? "," : "", v->die->name);
    const amddwarf_cu *cu = amddwarf_object_cu(obj, v->die->cu_index);
    uint64_t size = 0;
    uint8_t value[64];
    if (!v->available || v->size == 0 || !cu) {
      printf("<optimized out>");
      continue;
    }
    if (amddwarf_type_byte_size(obj, v->die->type, &size) != AMDDWARF_OK || size == 0 ||
        size > sizeof value) {
      printf("<size unknown>");
      continue;
    }
    amddwarf_status st = read_through(ev, &frame, cu, v->expr, v->size, 0, size * 8, value);
    if (st != AMDDWARF_OK) {
      printf("<%s>", amddwarf_status_name(st));
      continue;
    }
    print_value(v->die->type, value, size);
  }
  printf("\n");
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: %s CODE_OBJECT WAVE_SNAPSHOT.json\n", argv[0]);
    return 2;
  }
  int rc = 1;
  dbg_wave wave;
  amddwarf_object *obj = NULL;
  amddwarf_cfi *cfi = NULL;
  amddwarf_unwinder *unw = NULL;
  amddwarf_eval *ev = NULL;
  uint8_t *image = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  memset(&wave, 0, sizeof wave);

  if (dbg_wave_open(argv[2], &wave) != 0)
    return 1;
  if (amddwarf_object_open_file(argv[1], NULL, &obj, &err) != AMDDWARF_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    goto done;
  }
  if (amddwarf_eval_new(NULL, &ev, &err) != AMDDWARF_OK)
    goto done;

  /* The wave as the debugger API reports it. */
  uint32_t lanes = dbg_wave_lane_count(&wave);
  uint64_t pc = 0, exec = 0;
  dbg_read_register(&wave, 16, 0, 8, &pc); /* PC_64 */
  dbg_read_register(&wave, lanes == 32 ? 1 : 17, 0, lanes / 8, &exec);
  const amddwarf_object_info *info = amddwarf_object_get_info(obj);
  amddwarf_arch arch;
  if (amddwarf_arch_from_e_flags(info->e_flags, info->abi_version, &arch, &err) != AMDDWARF_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    goto done;
  }
  printf("wave: %s, %u lanes, pc 0x%" PRIx64 ", exec 0x%" PRIx64 "\n", arch.processor,
         (unsigned)lanes, pc, exec);
  printf("breakpoint instruction: %u bytes, pc adjust %u\n", (unsigned)arch.breakpoint_size,
         (unsigned)arch.breakpoint_pc_adjust);

  /* Backtrace: CFI from .debug_frame, unwound through the same target. */
  backend_frame frame0;
  memset(&frame0, 0, sizeof frame0);
  frame0.wave = &wave;
  frame0.object = obj;
  amddwarf_target target0;
  backend_target_init(&frame0, &target0);
  FILE *f = fopen(argv[1], "rb");
  size_t image_size = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    image = n > 0 ? malloc((size_t)n) : NULL;
    if (image && fread(image, 1, (size_t)n, f) == (size_t)n)
      image_size = (size_t)n;
    fclose(f);
  }
  printf("backtrace:\n");
  if (image_size &&
      amddwarf_cfi_open_elf(image, image_size, AMDDWARF_CFI_DEBUG_FRAME, NULL, &cfi, &err) ==
          AMDDWARF_OK &&
      amddwarf_unwinder_new(cfi, &target0, NULL, &unw, &err) == AMDDWARF_OK) {
    amddwarf_status st;
    while ((st = amddwarf_unwinder_step(unw, &err)) == AMDDWARF_OK)
      ;
    for (size_t i = 0; i < amddwarf_unwinder_frame_count(unw); i++) {
      amddwarf_frame_info fi;
      if (amddwarf_unwinder_frame(unw, i, &fi) != AMDDWARF_OK)
        break;
      const amddwarf_die_info *fn = function_at(obj, fi.lookup_pc);
      printf("  #%zu 0x%016" PRIx64 " in %s ()", i, fi.pc, fn && fn->name ? fn->name : "??");
      print_position(obj, fi.lookup_pc);
      printf("\n");
    }
    /* A kernel is the outermost frame: clang gives kernels an FDE without
       CFA rule, so the walk ends there with an error rather than END. */
    amddwarf_frame_info last;
    size_t frames = amddwarf_unwinder_frame_count(unw);
    if (st != AMDDWARF_END && frames > 0 &&
        amddwarf_unwinder_frame(unw, frames - 1, &last) == AMDDWARF_OK &&
        is_kernel_entry(obj, last.lookup_pc))
      printf("  (frame #%zu is a kernel: the outermost frame)\n", frames - 1);
    else if (st != AMDDWARF_END)
      printf("  (unwinding stopped: %s)\n", err.message);
  } else {
    printf("  (no call frame information: %s)\n", err.message);
  }

  /* Lane PCs. After divergent control flow, lanes not in EXEC are waiting
     at other places; the compiler describes where with DW_AT_LLVM_lane_pc
     on the subprogram (or a lexical block): a location holding one PC per
     lane. Without it (upstream clang emits none) the active lanes are at
     the wave's PC and the others have no PC. */
  uint64_t lane_pc[64];
  int known[64];
  const amddwarf_die_info *scopes[32];
  size_t depth = 0;
  const amddwarf_die_info *with_lane_pc = NULL;
  if (amddwarf_object_scopes_at(obj, pc, scopes, 32, &depth) == AMDDWARF_OK)
    for (size_t i = 0; i < depth && i < 32 && !with_lane_pc; i++)
      if (scopes[i]->lane_pc)
        with_lane_pc = scopes[i];
  for (uint32_t l = 0; l < lanes && l < 64; l++) {
    known[l] = (int)(exec >> l & 1);
    lane_pc[l] = pc;
    const uint8_t *bytes;
    size_t size;
    const amddwarf_cu *cu = with_lane_pc ? amddwarf_object_cu(obj, with_lane_pc->cu_index) : NULL;
    if (!cu || amddwarf_attr_value_expr_at(with_lane_pc->lane_pc, pc, &bytes, &size, NULL) !=
                   AMDDWARF_OK)
      continue;
    backend_frame lf;
    memset(&lf, 0, sizeof lf);
    lf.wave = &wave;
    lf.lane = l;
    lf.pc = pc;
    lf.object = obj;
    lf.cu = cu;
    uint8_t b[8] = {0};
    uint64_t bits = (uint64_t)cu->address_size * 8;
    known[l] = read_through(ev, &lf, cu, bytes, size, l * bits, bits, b) == AMDDWARF_OK;
    lane_pc[l] = 0;
    for (int i = 0; i < 8; i++)
      lane_pc[l] |= (uint64_t)b[i] << (8 * i);
  }

  /* Locals of every lane that has a PC, lanes grouped by lane PC. */
  uint64_t done_mask = 0;
  for (uint32_t l = 0; l < lanes; l++) {
    if (!known[l] || (done_mask >> l & 1))
      continue;
    printf("lanes");
    for (uint32_t m = l; m < lanes; m++)
      if (known[m] && lane_pc[m] == lane_pc[l]) {
        printf(" %u", (unsigned)m);
        done_mask |= UINT64_C(1) << m;
      }
    const amddwarf_die_info *fn = function_at(obj, lane_pc[l]);
    printf(" at pc 0x%" PRIx64 " in %s", lane_pc[l], fn && fn->name ? fn->name : "??");
    print_position(obj, lane_pc[l]);
    printf(":\n");
    for (uint32_t m = l; m < lanes; m++)
      if (known[m] && lane_pc[m] == lane_pc[l])
        print_locals(obj, ev, &wave, lane_pc[m], m, (int)(exec >> m & 1));
  }
  uint32_t unknown = 0;
  for (uint32_t l = 0; l < lanes; l++)
    unknown += !known[l];
  printf("lanes without a PC (inactive): %u\n", (unsigned)unknown);
  rc = 0;
done:
  amddwarf_unwinder_free(unw);
  amddwarf_cfi_close(cfi);
  free(image);
  amddwarf_eval_free(ev);
  amddwarf_object_close(obj);
  dbg_wave_close(&wave);
  return rc;
}
