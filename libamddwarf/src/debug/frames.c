/* Frames of a wave (debug.h): physical frames from the CFI unwinder,
 * expanded into the inlined subroutines they execute, each with its
 * function, source position, scopes and a full evaluation target: the
 * frame's unwound registers, its CFA and entry values from the unwinder,
 * and the DIEs, base types, .debug_addr and frame base of its code object. */
#include <stdatomic.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"

/* ---- the frame's target ---- */

static amddwarf_status frame_read_register(void *user, uint32_t regno, uint64_t offset,
                                           uint64_t size, void *buf)
{
  const amddwarf_debug_frame *f = user;
  /* The innermost physical frame's registers are the wave's own, which the
     unwinder's frame 0 would only pass on. */
  amddwarf_status st =
      f->pub.physical == 0 && f->wave->raw.read_register != NULL
          ? amddwarf_debug_read_register(f->wave, regno, offset, size, buf)
          : f->registers->read_register(f->registers->user, regno, offset, size, buf);
  /* A register the CFI leaves undefined is not the inner frame's value. */
  return st == AMDDWARF_E_EVAL_OPTIMIZED_OUT ? AMDDWARF_E_EVAL_UNAVAILABLE : st;
}

static amddwarf_status frame_write_register(void *user, uint32_t regno, uint64_t offset,
                                            uint64_t size, const void *buf)
{
  const amddwarf_debug_frame *f = user;
  if (f->pub.physical != 0 || f->registers->write_register == NULL)
    return AMDDWARF_E_UNSUPPORTED;
  return f->registers->write_register(f->registers->user, regno, offset, size, buf);
}

/* The unwinder computes a frame's CFA on first use (amddwarf_wave_frame_cfa);
   without one the location is unavailable. */
static amddwarf_status frame_cfa(void *user, uint32_t *aspace, uint64_t *address)
{
  const amddwarf_debug_frame *f = user;
  return amddwarf_wave_frame_cfa(f->wave, f->pub.index, aspace, address, NULL) == AMDDWARF_OK
             ? AMDDWARF_OK
             : AMDDWARF_E_EVAL_UNAVAILABLE;
}

static amddwarf_status frame_entry_register(void *user, uint32_t regno, uint64_t offset,
                                            uint64_t size, void *buf)
{
  const amddwarf_debug_frame *f = user;
  if (f->registers->read_entry_register == NULL)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  amddwarf_status st =
      f->registers->read_entry_register(f->registers->user, regno, offset, size, buf);
  return st == AMDDWARF_E_EVAL_OPTIMIZED_OUT ? AMDDWARF_E_EVAL_UNAVAILABLE : st;
}

/* The normalized DW_AT_frame_base of the frame's subprogram at its PC. */
static void set_frame_base(amddwarf_debug_frame *f)
{
  const uint8_t *bytes = NULL;
  size_t size = 0;
  f->frame_base_done = 1;
  if (!amddwarf_die_ref_valid(f->subprogram) || f->cu == NULL ||
      amddwarf_object_die_expr_at(f->pub.object, f->subprogram, AMDDWARF_DW_AT_frame_base,
                                  f->pub.object_pc, &bytes, &size, NULL, NULL) != AMDDWARF_OK)
    return;
  f->has_frame_base =
      amddwarf_object_normalize_expr(f->pub.object, f->cu, AMDDWARF_ROLE_FRAME_BASE, bytes, size,
                                     f->frame_base, sizeof f->frame_base, &f->frame_base_size,
                                     NULL) == AMDDWARF_OK;
  /* As for locations (amddwarf__debug_normalized_location): the object's
     bytes when normalizing leaves them as they are. */
  f->frame_base_expr = f->frame_base_size == size && memcmp(f->frame_base, bytes, size) == 0
                           ? bytes
                           : f->frame_base;
}

static amddwarf_status frame_frame_base(void *user, const uint8_t **expr, size_t *size)
{
  /* Frames belong to one thread: the frame base is normalized on first use. */
  amddwarf_debug_frame *f = user;
  if (!f->frame_base_done)
    set_frame_base(f);
  if (!f->has_frame_base)
    return AMDDWARF_E_UNSUPPORTED;
  *expr = f->frame_base_expr;
  *size = f->frame_base_size;
  return AMDDWARF_OK;
}

/* An entry the object does not know fails with the reason in ERR. An
   address inside a loaded object is where the loader put it. */
static amddwarf_status frame_address_index_err(void *user, uint64_t index, uint64_t *value,
                                               amddwarf_error *err)
{
  const amddwarf_debug_frame *f = user;
  if (f->cu == NULL)
    return AMDDWARF_NOT_FOUND;
  amddwarf_status st = amddwarf_object_address_index(f->pub.object, f->cu, index, value, err);
  if (st == AMDDWARF_OK)
    *value = amddwarf__debug_relocate(f->pub.object, f->pub.load_address, *value);
  return st;
}

static amddwarf_status frame_address_index(void *user, uint64_t index, uint64_t *value)
{
  return frame_address_index_err(user, index, value, NULL);
}

/* DW_OP_call* and implicit pointers: the DIE's location at the frame's PC
   (a list with no entry there gives the empty expression), or its
   DW_AT_const_value block. */
static amddwarf_status frame_die(void *user, amddwarf_die_ref_kind kind, uint64_t ref,
                                 amddwarf_die *out)
{
  const amddwarf_debug_frame *f = user;
  uint64_t offset = ref;
  if (f->pub.object == NULL)
    return AMDDWARF_NOT_FOUND;
  if (kind == AMDDWARF_DIE_REF_UNIT) {
    if (f->cu == NULL)
      return AMDDWARF_NOT_FOUND;
    offset = f->cu->offset + ref;
  }
  amddwarf_die_ref die;
  if (amddwarf_object_die_ref_at(f->pub.object, offset, &die, NULL) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  memset(out, 0, sizeof *out);
  out->is_dwarf_procedure =
      amddwarf__debug_die_tag(f->pub.object, die) == AMDDWARF_DW_TAG_dwarf_procedure;
  amddwarf_attribute a;
  if (amddwarf_object_die_attribute(f->pub.object, die, AMDDWARF_DW_AT_location, 0, &a, NULL) ==
      AMDDWARF_OK) {
    out->value = AMDDWARF_DIE_LOCATION;
    if (amddwarf_object_die_expr_at(f->pub.object, die, AMDDWARF_DW_AT_location,
                                    f->pub.object_pc, &out->bytes, &out->size, NULL,
                                    NULL) != AMDDWARF_OK) {
      out->bytes = NULL;
      out->size = 0;
    }
  } else if (amddwarf_object_die_attribute(f->pub.object, die, AMDDWARF_DW_AT_const_value, 0,
                                           &a, NULL) == AMDDWARF_OK &&
             a.value.kind == AMDDWARF_ATTR_BLOCK) {
    out->value = AMDDWARF_DIE_CONST_VALUE;
    out->bytes = a.value.bytes;
    out->size = a.value.size;
  }
  return AMDDWARF_OK;
}

/* Typed operations: the DW_TAG_base_type DIE at unit offset DIE. */
static amddwarf_status frame_base_type(void *user, uint64_t die_offset, amddwarf_base_type *out)
{
  const amddwarf_debug_frame *f = user;
  if (f->cu == NULL)
    return AMDDWARF_NOT_FOUND;
  const amddwarf_object *object = f->pub.object;
  amddwarf_die_ref die;
  if (amddwarf_object_die_ref_at(object, f->cu->offset + die_offset, &die, NULL) != AMDDWARF_OK ||
      amddwarf__debug_die_tag(object, die) != AMDDWARF_DW_TAG_base_type)
    return AMDDWARF_NOT_FOUND;
  uint64_t bit_size = 0, byte_size = 0, vector_size = 0, encoding = 0;
  if (!amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_bit_size, &bit_size) &&
      amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_byte_size, &byte_size))
    bit_size = byte_size * 8;
  if (!amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_LLVM_vector_size, &vector_size))
    amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_LLVM_vector_size_old, &vector_size);
  amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_encoding, &encoding);
  out->die = die_offset;
  out->bit_size = (uint32_t)bit_size;
  out->count = vector_size ? (uint32_t)vector_size : 1;
  out->encoding = (uint8_t)encoding;
  return AMDDWARF_OK;
}

static amddwarf_status frame_register_size(void *user, uint32_t regno, uint64_t *size)
{
  const amddwarf_debug_frame *f = user;
  return f->registers->register_size(f->registers->user, regno, size);
}

/* Memory, EXEC and the apertures go straight to the raw target (the base
   target would only pass them on), with its user pointer. */
#define PASS(name, params, args)                                                              \
  static amddwarf_status frame_##name params                                                  \
  {                                                                                           \
    const amddwarf_target *b = &((const amddwarf_debug_frame *)user)->wave->raw;              \
    return b->name args;                                                                      \
  }
PASS(read_memory, (void *user, uint32_t aspace, uint32_t lane, uint64_t address, uint64_t size,
                   void *buf), (b->user, aspace, lane, address, size, buf))
PASS(write_memory, (void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                    uint64_t size, const void *buf), (b->user, aspace, lane, address, size, buf))
PASS(exec_mask, (void *user, uint64_t *mask), (b->user, mask))
PASS(apertures, (void *user, uint64_t *shared_base, uint64_t *private_base),
     (b->user, shared_base, private_base))
#undef PASS

/* The focus and wave size are the wave's. */
static amddwarf_status frame_focused_lane(void *user, uint32_t *lane)
{
  *lane = ((const amddwarf_debug_frame *)user)->wave->focus;
  return AMDDWARF_OK;
}

static amddwarf_status frame_wave_size(void *user, uint32_t *wave_size)
{
  *wave_size = ((const amddwarf_debug_frame *)user)->wave->info.wave_size;
  return AMDDWARF_OK;
}

/* The frame's target: registers, CFA and entry values from REGISTERS (the
   unwinder's frame target, or the wave's base target without CFI), memory
   and the wave's facts from the base target, DWARF from the object; what
   neither provides stays NULL. */
static void init_frame_target(amddwarf_debug_frame *f)
{
  const amddwarf_target *b = &f->wave->base, *r = f->registers;
  amddwarf_target *t = &f->target;
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = f;
  t->read_register = r->read_register ? frame_read_register : NULL;
  t->write_register = frame_write_register;
  /* Register sizes are the raw target's, else the evaluator's own AMDGPU
     map, which it caches (an unwinder's frame target always answers, from
     the same map, but uncached). */
  t->register_size = f->wave->raw.register_size && r->register_size ? frame_register_size
                                                                     : NULL;
  t->read_memory = b->read_memory ? frame_read_memory : NULL;
  t->write_memory = b->write_memory ? frame_write_memory : NULL;
  t->focused_lane = frame_focused_lane;
  t->wave_size = frame_wave_size;
  t->exec_mask = b->exec_mask ? frame_exec_mask : NULL;
  t->apertures = b->apertures ? frame_apertures : NULL;
  t->frame_base = frame_frame_base;
  t->cfa = frame_cfa;
  t->address_index = frame_address_index;
  t->address_index_err = frame_address_index_err;
  t->base_type = frame_base_type;
  t->die = frame_die;
  t->read_entry_register = frame_entry_register;
}

/* ---- building frames ---- */

/* What one physical frame is: PC, lookup PC (process addresses when the
   objects are loaded), CFA, register source; then the object holding the
   lookup PC and that PC in its addresses. */
typedef struct physical_frame {
  size_t index;
  uint64_t pc, lookup_pc;
  const amddwarf_target *registers;
  bool unwound_by_prologue;      /* the callee's row is synthesized */
  bool backend_registers;
  const amddwarf_object *object;   /* NULL: no object holds LOOKUP_PC */
  uint64_t object_pc, load_address;
} physical_frame;

static amddwarf_debug_frame *frame_new(amddwarf_wave *w, const physical_frame *p)
{
  amddwarf_debug_frame *f = amddwarf__mem_calloc(&w->allocator, 1, sizeof *f);
  if (f == NULL)
    return NULL;
  if (amddwarf__mem_reserve(&w->allocator, (void **)&w->frames, &w->frame_capacity,
                           w->frame_count + 1, sizeof *w->frames) != 0) {
    amddwarf__mem_free(&w->allocator, f, sizeof *f);
    return NULL;
  }
  f->wave = w;
  f->registers = p->registers;
  f->pub.index = w->frame_count;
  f->pub.physical = p->index;
  f->pub.pc = p->pc;
  f->pub.lookup_pc = p->lookup_pc;
  f->pub.object_pc = p->object_pc;
  f->pub.load_address = p->load_address;
  f->pub.unwound_by_prologue = p->unwound_by_prologue;
  f->pub.backend_registers = p->backend_registers;
  init_frame_target(f);
  w->frames[w->frame_count++] = f;
  return f;
}


/* The function or kernel symbol holding the frame's PC, as a symbolizer
   names a PC no DWARF covers, when no object holds the PC: in the first of
   the wave's objects that has one (objects not loaded). NULL when none. */
static const char *symbol_name_at(const amddwarf_wave *w, const physical_frame *p)
{
  const char *name = NULL;
  for (size_t i = 0; name == NULL && i < w->object_count && w->load_addresses == NULL; ++i)
    name = amddwarf__debug_symbol_name_at(w->objects[i], p->object_pc);
  return name;
}

/* Turns physical frame P into frames: one per inlined subroutine at its
   lookup PC, innermost first, then its function (whose scopes run on to the
   unit DIE), as its object's expansion at the PC says (pc_frames.c). A PC
   no object holds gives one frame without a function. */
static amddwarf_status expand_physical(amddwarf_wave *w, physical_frame *p,
                                       amddwarf_error *err)
{
  size_t at = 0;
  p->object_pc = p->lookup_pc;
  p->object = NULL;
  if (amddwarf__debug_locate(w, p->lookup_pc, &at, &p->object_pc) == AMDDWARF_OK) {
    p->object = w->objects[at];
    p->load_address = w->load_addresses != NULL ? w->load_addresses[at] : 0;
  }
  const amddwarf_object *object = p->object;
  if (object == NULL) {
    amddwarf_debug_frame *f = frame_new(w, p);
    if (f == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frame");
    f->pub.function_name = symbol_name_at(w, p);
    return AMDDWARF_OK;
  }
  amddwarf_pc_frames *own = NULL;
  const amddwarf_pc_frames *e = amddwarf__debug_pc_frames(w, object, p->object_pc, &own, err);
  if (e == NULL)
    return AMDDWARF_E_NO_MEMORY;
  const amddwarf_cu *subprogram_cu = amddwarf_die_ref_valid(e->subprogram)
                                         ? amddwarf_object_cu(object, e->subprogram.cu_index)
                                         : NULL;
  for (size_t k = 0; k < e->frame_count; ++k) {
    const amddwarf_pc_frame *x = &e->frames[k];
    amddwarf_debug_frame *f = frame_new(w, p);
    if (f == NULL) {
      amddwarf__debug_pc_frames_free(object, k == 0 ? own : NULL);
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frame");
    }
    if (k == 0)
      f->expansion_own = own; /* freed with the frames */
    f->pub.object = object;
    f->pub.function = x->function;
    f->pub.function_name = x->function_name;
    f->pub.scopes = x->scope_count > 0 ? e->scopes + x->scope_base : NULL;
    f->pub.scope_count = x->scope_count;
    f->pub.scope_base = x->scope_base;
    f->pub.inline_depth = x->inline_depth;
    f->pub.file = x->file;
    f->pub.line = x->line;
    f->pub.column = x->column;
    f->cu = amddwarf_die_ref_valid(x->function) ? amddwarf_object_cu(object, x->function.cu_index)
                                                : subprogram_cu;
    f->subprogram = e->subprogram;
  }
  return AMDDWARF_OK;
}

/* ---- unwinders kept with the object ---- */

/* The waves of a stop are unwound one after another over the same code
   object and its CFI: an unwinder made for one wave is reset for the next
   (amddwarf_unwinder_reset) rather than made again, so that the rules'
   expressions are decoded and compiled once per object, not once per wave.
   A closed wave's unwinder waits, kept with the object (object/memo.h), in
   one of a few slots for the next wave of any thread. */
#define MEMO_SPARE_UNWINDERS UINT64_C(0x756e77696e646572) /* "unwinder" */

/* As many as threads opening waves at once are likely to want. */
enum { SPARE_UNWINDERS = 4 };

typedef struct spare_unwinders {
  amddwarf_object_memo memo; /* first: the block is the memo's */
  _Atomic(amddwarf_unwinder *) slot[SPARE_UNWINDERS];
} spare_unwinders;

static const uint64_t spares_key[4] = {MEMO_SPARE_UNWINDERS, 0, 0, 0};

static void release_spares(const amddwarf_object *object, amddwarf_object_memo *memo)
{
  (void)object;
  spare_unwinders *spares = (spare_unwinders *)memo;
  for (unsigned i = 0; i < SPARE_UNWINDERS; i++)
    amddwarf_unwinder_free(atomic_load_explicit(&spares->slot[i], memory_order_acquire));
}

/* OBJECT's slots, made when MAKE and there are none yet; NULL without them
   (the object keeps as many memos as it may, or no memory). */
static spare_unwinders *spares_of(const amddwarf_object *object, bool make)
{
  spare_unwinders *spares =
      (spare_unwinders *)amddwarf__object_memo_find(object, spares_key);
  if (spares != NULL || !make)
    return spares;
  spares = (spare_unwinders *)amddwarf__object_memo_new(object, spares_key, sizeof *spares);
  if (spares == NULL)
    return NULL;
  for (unsigned i = 0; i < SPARE_UNWINDERS; i++)
    atomic_init(&spares->slot[i], NULL);
  spares->memo.release = release_spares;
  return (spare_unwinders *)amddwarf__object_memo_keep(object, &spares->memo, NULL);
}

/* Only the object's own CFI is kept with it: a caller's (options.cfi) may
   not live as long. */
static const amddwarf_object *keeper(const amddwarf_wave *w)
{
  return w->cfi == NULL ? w->info.object : NULL;
}

/* W's unwinder over CFI with OPTIONS: one a wave closed before, reset, or
   a new one. */
static amddwarf_status unwinder_start(amddwarf_wave *w, amddwarf_cfi *cfi,
                                      const amddwarf_unwinder_options *options,
                                      amddwarf_error *err)
{
  const amddwarf_object *object = keeper(w);
  spare_unwinders *spares = object != NULL ? spares_of(object, false) : NULL;
  for (unsigned i = 0; spares != NULL && i < SPARE_UNWINDERS; i++) {
    amddwarf_unwinder *u = atomic_exchange_explicit(&spares->slot[i], NULL, memory_order_acq_rel);
    if (u == NULL)
      continue;
    amddwarf_status st = amddwarf_unwinder_reset(u, &w->base, options, err);
    if (st != AMDDWARF_OK) {
      amddwarf_unwinder_free(u);
      return st;
    }
    w->unwinder = u;
    return AMDDWARF_OK;
  }
  return amddwarf_unwinder_new(cfi, &w->base, options, &w->unwinder, err);
}

/* Releases W's unwinder: kept for the next wave when there is room. */
static void unwinder_release(amddwarf_wave *w)
{
  amddwarf_unwinder *u = w->unwinder;
  const amddwarf_object *object = keeper(w);
  spare_unwinders *spares = u != NULL && object != NULL ? spares_of(object, true) : NULL;
  w->unwinder = NULL;
  for (unsigned i = 0; spares != NULL && i < SPARE_UNWINDERS; i++) {
    amddwarf_unwinder *none = NULL;
    if (atomic_compare_exchange_strong_explicit(&spares->slot[i], &none, u, memory_order_acq_rel,
                                                memory_order_relaxed))
      return;
  }
  amddwarf_unwinder_free(u);
}

/* Records why the walk ended (END or an error) for every later request. */
static amddwarf_status end_walk(amddwarf_wave *w, amddwarf_status st, const amddwarf_error *e)
{
  w->unwind_ended = 1;
  w->unwind_status = st;
  if (e != NULL)
    w->unwind_error = *e;
  else
    amddwarf__fail(&w->unwind_error, st, AMDDWARF_NO_OFFSET, "%s", amddwarf_status_message(st));
  return st;
}

/* Frame 0 of a wave whose object has no CFI: the base target's registers. */
static amddwarf_status first_frame_without_cfi(amddwarf_wave *w, amddwarf_error *err)
{
  physical_frame p = {0, w->pc, w->pc, &w->base, false, false, NULL, 0, 0};
  amddwarf_status st = expand_physical(w, &p, err);
  w->physical_count = 1;
  return st;
}

/* Whether physical frame INDEX (already made) runs a kernel's code: its PC
   lies in a symbol the object's metadata names as a kernel. */
static int is_kernel_entry(const amddwarf_wave *w, size_t index)
{
  for (size_t i = w->frame_count; i-- > 0;) {
    const amddwarf_frame *f = &w->frames[i]->pub;
    if (f->physical != index)
      continue;
    const amddwarf_object *object = f->object ? f->object : w->info.object;
    amddwarf_symbol s;
    return amddwarf_object_function_symbol_at(object, f->object_pc, &s) == AMDDWARF_OK &&
           s.kind == AMDDWARF_SYMBOL_KERNEL;
  }
  return 0;
}

/* Adds the frames of the next physical frame. OK, END, or the walk's error. */
static amddwarf_status next_physical(amddwarf_wave *w, amddwarf_error *err)
{
  if (w->unwind_ended) {
    if (err != NULL)
      *err = w->unwind_error;
    return w->unwind_status;
  }
  if (w->physical_count == 0 && w->unwinder == NULL) {
    amddwarf_cfi *cfi = w->cfi;
    amddwarf_error e;
    amddwarf_error_clear(&e);
    amddwarf_status st = cfi != NULL ? AMDDWARF_OK : amddwarf_object_cfi(w->info.object, &cfi, &e);
    amddwarf_unwinder_options options;
    amddwarf_unwinder_options_init(&options);
    options.max_frames = w->max_frames;
    options.trace = w->trace;
    options.trace_user = w->trace_user;
    options.caller_register = w->caller_register;
    options.caller_register_user = w->caller_register_user;
    /* The CFI is the wave's object's: its rows are at object addresses. */
    options.pc_bias = w->info.load_address;
    if (st == AMDDWARF_OK)
      st = unwinder_start(w, cfi, &options, &e);
    if (st != AMDDWARF_OK) {
      /* Without CFI the wave still has its innermost frame; its caller is
         an error whose details say the same as its status. */
      if (st == AMDDWARF_NOT_FOUND)
        st = amddwarf__fail(&e, AMDDWARF_E_CFI_NO_FDE, AMDDWARF_NO_OFFSET,
                           "the object has no call frame information (.debug_frame or "
                           ".eh_frame)");
      amddwarf_status first = first_frame_without_cfi(w, err);
      end_walk(w, st, &e);
      return first;
    }
  }
  if (w->physical_count > 0) {
    amddwarf_error e;
    amddwarf_error_clear(&e);
    amddwarf_status st = amddwarf_unwinder_step(w->unwinder, &e);
    size_t outermost = w->physical_count - 1;
    if (st != AMDDWARF_OK && st != AMDDWARF_END && is_kernel_entry(w, outermost)) {
      /* A kernel has no caller: compilers give its FDE no CFA rule. */
      amddwarf_error_clear(&e);
      st = amddwarf__fail(&e, AMDDWARF_END, AMDDWARF_NO_OFFSET,
                         "frame %zu is a kernel: the outermost frame", outermost);
    }
    if (st != AMDDWARF_OK) {
      end_walk(w, st, &e);
      if (err != NULL)
        *err = e;
      return st;
    }
  }
  size_t index = w->physical_count;
  physical_frame p = {index, 0, 0, amddwarf_unwinder_frame_target(w->unwinder, index),
                      false, false, NULL, 0, 0};
  if (amddwarf_unwinder_frame_pcs(w->unwinder, index, &p.pc, &p.lookup_pc,
                                  &p.backend_registers) != AMDDWARF_OK)
    return end_walk(w, AMDDWARF_END, NULL);
  /* The step to this frame looked up the callee's row. */
  amddwarf_frame_info callee;
  p.unwound_by_prologue = index > 0 &&
                          amddwarf_unwinder_frame(w->unwinder, index - 1, &callee) == AMDDWARF_OK &&
                          callee.row != NULL && callee.row->synthesized;
  w->physical_count++;
  return expand_physical(w, &p, err);
}

amddwarf_status amddwarf__debug_frame_get(amddwarf_wave *wave, size_t index,
                                         amddwarf_debug_frame **out, amddwarf_error *err)
{
  while (index >= wave->frame_count) {
    amddwarf_status st = next_physical(wave, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  *out = wave->frames[index];
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_wave_frame(amddwarf_wave *wave, size_t index,
                                    const amddwarf_frame **out, amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  if (wave == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_frame: NULL argument");
  amddwarf_status st = amddwarf__debug_frame_get(wave, index, &f, err);
  if (st == AMDDWARF_OK)
    *out = &f->pub;
  return st;
}

amddwarf_status amddwarf_wave_frame_cfa(amddwarf_wave *wave, size_t index, uint32_t *aspace,
                                        uint64_t *cfa, amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  if (wave == NULL || aspace == NULL || cfa == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_frame_cfa: NULL argument");
  amddwarf_status st = amddwarf__debug_frame_get(wave, index, &f, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_frame_info info;
  if (wave->unwinder == NULL ||
      amddwarf_unwinder_frame(wave->unwinder, f->pub.physical, &info) != AMDDWARF_OK ||
      !info.has_cfa)
    return amddwarf__fail(err, AMDDWARF_E_EVAL_UNAVAILABLE, AMDDWARF_NO_OFFSET,
                         "frame %zu has no CFA: %s", index,
                         wave->unwinder == NULL || info.row == NULL
                             ? "no call frame information covers its PC"
                             : "its CFA rule cannot be evaluated");
  *aspace = info.cfa_aspace;
  *cfa = info.cfa;
  return AMDDWARF_OK;
}

const amddwarf_cfi_row *amddwarf_wave_frame_row(amddwarf_wave *wave, size_t index)
{
  amddwarf_debug_frame *f = NULL;
  amddwarf_frame_info info;
  if (wave == NULL || amddwarf__debug_frame_get(wave, index, &f, NULL) != AMDDWARF_OK ||
      wave->unwinder == NULL ||
      amddwarf_unwinder_frame(wave->unwinder, f->pub.physical, &info) != AMDDWARF_OK)
    return NULL;
  return info.row;
}

const amddwarf_target *amddwarf_wave_frame_target(amddwarf_wave *wave, size_t index)
{
  amddwarf_debug_frame *f = NULL;
  return amddwarf__debug_frame_get(wave, index, &f, NULL) == AMDDWARF_OK ? &f->target : NULL;
}

amddwarf_status amddwarf_wave_read_register(amddwarf_wave *wave, size_t index, uint32_t regno,
                                            uint64_t offset, uint64_t size, void *buf,
                                            amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  amddwarf_status st = amddwarf__debug_frame_get(wave, index, &f, err);
  if (st == AMDDWARF_END)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET, "no frame %zu", index);
  if (st != AMDDWARF_OK)
    return st;
  if (f->target.read_register == NULL)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "the target has no read_register callback");
  st = f->target.read_register(f, regno, offset, size, buf);
  if (st == AMDDWARF_E_EVAL_UNAVAILABLE && f->pub.physical > 0) {
    char name[32];
    amddwarf_amdgpu_register_name(regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                         "frame %zu: the call frame information does not say where the "
                         "caller's %s is", index, name);
  }
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "frame %zu: %s", index,
                         amddwarf_status_message(st));
  return AMDDWARF_OK;
}

void amddwarf__debug_free_frames(amddwarf_wave *w)
{
  for (size_t i = 0; i < w->frame_count; ++i) {
    amddwarf_debug_frame *f = w->frames[i];
    /* The first frame of a physical frame owns its expansion when the
       object keeps no more. */
    amddwarf__debug_pc_frames_free(f->pub.object, f->expansion_own);
    amddwarf__debug_scope_release(f);
    amddwarf__frame_listing_free(w, f->listing);
    amddwarf__mem_free(&w->allocator, f, sizeof *f);
  }
  amddwarf__mem_free(&w->allocator, w->frames, w->frame_capacity * sizeof *w->frames);
  w->frames = NULL;
  w->frame_count = w->frame_capacity = 0;
  unwinder_release(w);
}
