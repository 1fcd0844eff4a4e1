/* A stopped wave (debug.h): opening it over code objects and the raw target
 * of the stop, the wave's own facts (PC, wave size, EXEC, focus), and the
 * evaluation helpers every frame, lane and value of the wave shares. */
#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"


void amddwarf_wave_options_init(amddwarf_wave_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->max_frames = 256;
}

/* ---- the base target: the raw one with the wave's PC and focus ---- */

static amddwarf_status base_read_register(void *user, uint32_t regno, uint64_t offset,
                                          uint64_t size, void *buf)
{
  return amddwarf_debug_read_register(user, regno, offset, size, buf);
}

static amddwarf_status base_write_register(void *user, uint32_t regno, uint64_t offset,
                                           uint64_t size, const void *buf)
{
  const amddwarf_wave *w = user;
  return w->raw.write_register(w->raw.user, regno, offset, size, buf);
}

static amddwarf_status base_register_size(void *user, uint32_t regno, uint64_t *size)
{
  const amddwarf_wave *w = user;
  return w->raw.register_size(w->raw.user, regno, size);
}

static amddwarf_status base_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                        uint64_t address, uint64_t size, void *buf)
{
  const amddwarf_wave *w = user;
  return w->raw.read_memory(w->raw.user, aspace, lane, address, size, buf);
}

static amddwarf_status base_write_memory(void *user, uint32_t aspace, uint32_t lane,
                                         uint64_t address, uint64_t size, const void *buf)
{
  const amddwarf_wave *w = user;
  return w->raw.write_memory(w->raw.user, aspace, lane, address, size, buf);
}

static amddwarf_status base_focused_lane(void *user, uint32_t *lane)
{
  const amddwarf_wave *w = user;
  *lane = w->focus;
  return AMDDWARF_OK;
}

static amddwarf_status base_wave_size(void *user, uint32_t *wave_size)
{
  const amddwarf_wave *w = user;
  *wave_size = w->info.wave_size;
  return AMDDWARF_OK;
}

/* EXEC as the wave holds it: the target's at open, or what a write of the
   EXEC register made it (amddwarf_wave_write_register). */
static amddwarf_status base_exec_mask(void *user, uint64_t *mask)
{
  const amddwarf_wave *w = user;
  if (!w->exec_from_target)
    return w->raw.exec_mask(w->raw.user, mask);
  *mask = w->info.exec;
  return AMDDWARF_OK;
}

static amddwarf_status base_apertures(void *user, uint64_t *shared_base, uint64_t *private_base)
{
  const amddwarf_wave *w = user;
  return w->raw.apertures(w->raw.user, shared_base, private_base);
}

/* Copies the raw callbacks the layer uses (a short struct leaves the rest
   NULL) and makes the base target over them; NULL stays NULL. */
static void init_targets(amddwarf_wave *w, const amddwarf_target *raw)
{
  size_t size = raw->struct_size < sizeof w->raw ? raw->struct_size : sizeof w->raw;
  memset(&w->raw, 0, sizeof w->raw);
  memcpy(&w->raw, raw, size);
  amddwarf_target *b = &w->base;
  memset(b, 0, sizeof *b);
  b->struct_size = sizeof *b;
  b->user = w;
  b->read_register = w->raw.read_register ? base_read_register : NULL;
  b->write_register = w->raw.write_register ? base_write_register : NULL;
  b->register_size = w->raw.register_size ? base_register_size : NULL;
  b->read_memory = w->raw.read_memory ? base_read_memory : NULL;
  b->write_memory = w->raw.write_memory ? base_write_memory : NULL;
  b->focused_lane = base_focused_lane;
  b->wave_size = base_wave_size;
  b->exec_mask = w->raw.exec_mask ? base_exec_mask : NULL;
  b->apertures = w->raw.apertures ? base_apertures : NULL;
}

/* The wave size, EXEC and focus the target reports, with the defaults the
   header documents. */
static void read_wave_facts(amddwarf_wave *w)
{
  uint32_t size = 0, lane = 0;
  if (w->raw.wave_size == NULL || w->raw.wave_size(w->raw.user, &size) != AMDDWARF_OK ||
      (size != 32 && size != 64))
    size = amddwarf_object_get_wave_info(w->objects[0])->wave_size == 32 ? 32 : 64;
  w->info.wave_size = size;
  uint64_t all = amddwarf__debug_all_lanes(size);
  w->exec_from_target =
      w->raw.exec_mask != NULL && w->raw.exec_mask(w->raw.user, &w->info.exec) == AMDDWARF_OK;
  if (!w->exec_from_target)
    w->info.exec = all;
  w->info.exec &= all;
  if (w->raw.focused_lane != NULL && w->raw.focused_lane(w->raw.user, &lane) == AMDDWARF_OK &&
      lane < size)
    w->focus = lane;
}

amddwarf_status amddwarf_wave_open(const amddwarf_object *const *objects, size_t count,
                                   const amddwarf_target *raw,
                                   const amddwarf_wave_options *options, amddwarf_wave **out,
                                   amddwarf_error *err)
{
  amddwarf_wave_options defaults;
  amddwarf_wave_options_init(&defaults);
  if (options == NULL)
    options = &defaults;
  if (out == NULL || objects == NULL || count == 0 || raw == NULL ||
      options->struct_size < sizeof *options)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_open: no objects, target or result");
  for (size_t i = 0; i < count; ++i)
    if (objects[i] == NULL)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "amddwarf_wave_open: object %zu is NULL", i);
  *out = NULL;
  amddwarf_allocator a = amddwarf__allocator_resolve(options->allocator);
  amddwarf_wave *w = amddwarf__mem_calloc(&a, 1, sizeof *w);
  amddwarf_status st = AMDDWARF_OK;
  if (w == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "wave");
  w->allocator = a;
  w->objects = amddwarf__mem_calloc(&a, count, sizeof *w->objects);
  if (w->objects == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "wave objects");
    goto fail;
  }
  memcpy(w->objects, objects, count * sizeof *objects);
  w->object_count = count;
  if (options->load_addresses != NULL) {
    w->load_addresses = amddwarf__mem_calloc(&a, count, sizeof *w->load_addresses);
    if (w->load_addresses == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "load addresses");
      goto fail;
    }
    memcpy(w->load_addresses, options->load_addresses, count * sizeof *w->load_addresses);
  }
  w->max_frames = options->max_frames ? options->max_frames : 256;
  w->cfi = options->cfi;
  /* Fields later versions added are read only when the caller's struct has them. */
  if (options->struct_size >= offsetof(amddwarf_wave_options, caller_register_user) +
                                 sizeof options->caller_register_user) {
    w->caller_register = options->caller_register;
    w->caller_register_user = options->caller_register_user;
  }
  w->has_pc = options->has_pc;
  w->pc = options->pc;
  if (options->struct_size >= offsetof(amddwarf_wave_options, lanes_at_pc) +
                                 sizeof options->lanes_at_pc)
    w->lanes_at_pc = options->lanes_at_pc;
  init_targets(w, raw);
  read_wave_facts(w);
  if (!w->has_pc) {
    uint8_t pc[8] = {0};
    if (w->raw.read_register == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "the target has no read_register callback to read the PC");
      goto fail;
    }
    st = w->raw.read_register(w->raw.user, AMDDWARF_DEBUG_PC_REGISTER, 0, 8, pc);
    if (st != AMDDWARF_OK) {
      amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "the target cannot read the PC (%s)",
                    amddwarf_status_name(st));
      goto fail;
    }
    for (int i = 0; i < 8; ++i)
      w->pc |= (uint64_t)pc[i] << (8 * i);
    w->has_pc = 1;
  }
  amddwarf_debug_place place;
  if ((st = amddwarf__debug_find_place(w, w->pc, &place, err)) != AMDDWARF_OK)
    goto fail;
  amddwarf__debug_set_place(w, w->pc, &place);
  /* A wave read at a size its code cannot run at would give every register
     and lane at the wrong width. The architecture is compared only for
     loaded objects, where the target names the process's agent. */
  if ((st = amddwarf_object_check_wave(w->info.object,
                                       w->load_addresses != NULL ? options->architecture : NULL,
                                       w->info.wave_size, err)) != AMDDWARF_OK)
    goto fail;
  w->ev = options->eval;
  if (w->ev == NULL) {
    if ((st = amddwarf_eval_new(NULL, &w->ev, err)) != AMDDWARF_OK)
      goto fail;
    w->owns_ev = 1;
  }
  *out = w;
  return AMDDWARF_OK;
fail:
  amddwarf_wave_close(w);
  return st;
}

amddwarf_status amddwarf__debug_find_place(const amddwarf_wave *w, uint64_t pc,
                                          amddwarf_debug_place *out, amddwarf_error *err)
{
  out->located =
      amddwarf__debug_locate(w, pc, &out->object_index, &out->object_pc) == AMDDWARF_OK;
  if (out->located)
    return AMDDWARF_OK;
  if (w->load_addresses != NULL)
    return amddwarf__debug_not_loaded(w, pc, err);
  out->object_index = 0;
  out->object_pc = pc;
  return AMDDWARF_OK;
}

void amddwarf__debug_set_place(amddwarf_wave *w, uint64_t pc, const amddwarf_debug_place *place)
{
  size_t index = place->object_index;
  w->pc = pc;
  w->info.pc = pc;
  w->info.object_index = index;
  w->info.object_pc = place->object_pc;
  w->info.object = w->objects[index];
  w->info.load_address = w->load_addresses != NULL ? w->load_addresses[index] : 0;
}

const amddwarf_wave_info *amddwarf_wave_get_info(const amddwarf_wave *wave)
{
  return &wave->info;
}

uint32_t amddwarf_wave_focus(const amddwarf_wave *wave)
{
  return wave->focus;
}

amddwarf_status amddwarf_wave_set_focus(amddwarf_wave *wave, uint32_t lane)
{
  if (lane >= wave->info.wave_size)
    return AMDDWARF_E_INVALID_ARGUMENT;
  wave->focus = lane;
  return AMDDWARF_OK;
}

void amddwarf_wave_set_trace(amddwarf_wave *wave, amddwarf_trace_fn trace, void *user)
{
  wave->trace = trace;
  wave->trace_user = user;
}

/* ---- evaluation in a frame ---- */

amddwarf_expr_format amddwarf_unit_eval_format(const amddwarf_cu *cu)
{
  amddwarf_expr_format format = cu->format;
  /* Legacy expressions are normalized into the DW_OP_LLVM_user dialect. */
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY)
    format.dialect = AMDDWARF_DIALECT_USER;
  return format;
}

void amddwarf__debug_request_init(const amddwarf_debug_frame *frame, const amddwarf_cu *cu,
                                 uint32_t lane, amddwarf_eval_request *request)
{
  amddwarf_eval_request_init(request, &frame->target);
  if (cu == NULL)
    cu = frame->cu;
  if (cu != NULL)
    request->format = amddwarf_unit_eval_format(cu);
  request->lane = lane == AMDDWARF_NO_LANE ? frame->wave->focus : lane;
  request->required = AMDDWARF_RESULT_LOCATION;
  request->xderef = AMDDWARF_XDEREF_DWARF;
  request->trace = frame->wave->trace;
  request->trace_user = frame->wave->trace_user;
  request->wave_size = frame->wave->info.wave_size;
}

amddwarf_status amddwarf__debug_eval_location(const amddwarf_debug_frame *frame,
                                             const amddwarf_cu *cu, const uint8_t *bytes,
                                             size_t size, uint32_t lane,
                                             amddwarf_location *out, amddwarf_error *err)
{
  amddwarf_eval_request request;
  amddwarf__debug_request_init(frame, cu, lane, &request);
  return amddwarf__debug_eval_location_request(frame, cu, &request, bytes, size, out, err);
}

/* DW_OP_addr operands of the expression in FRAME's normalization buffer
   (SIZE bytes, format of CU) that lie in the frame's object, moved to where
   the object is loaded, as the loader relocates them. The buffer is patched
   in place: an address keeps its size. */
static amddwarf_status relocate_addresses(amddwarf_debug_frame *frame, const amddwarf_cu *cu,
                                          amddwarf_error *err)
{
  enum { MAX_OPS = 128 };
  amddwarf_op ops[MAX_OPS];
  size_t count = 0;
  amddwarf_expr_format format = amddwarf_unit_eval_format(cu);
  amddwarf_status st = amddwarf_expr_decode(frame->normalized, frame->normalized_size, &format,
                                            ops, MAX_OPS, &count, err);
  if (st == AMDDWARF_E_NO_SPACE)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "a location expression of more than %d operations cannot have its "
                         "DW_OP_addr operands relocated to the load address",
                         (int)MAX_OPS);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t i = 0; i < count; ++i) {
    if (ops[i].kind != AMDDWARF_OP_addr)
      continue;
    uint64_t address = amddwarf__debug_relocate(frame->pub.object, frame->pub.load_address,
                                               ops[i].operands[0]);
    for (uint32_t b = 0; b + 1 < ops[i].size && b < 8; ++b)
      frame->normalized[ops[i].offset + 1 + b] = (uint8_t)(address >> (8 * b));
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__debug_normalized_location(const amddwarf_debug_frame *cframe,
                                                   const amddwarf_cu *cu, const uint8_t *bytes,
                                                   size_t size, const uint8_t **expr,
                                                   size_t *expr_size, amddwarf_error *err)
{
  /* The normalization cache is the frame's own; frames belong to one thread. */
  amddwarf_debug_frame *frame = (amddwarf_debug_frame *)cframe;
  const amddwarf_object *object = frame->pub.object;
  if (cu == NULL)
    cu = frame->cu;
  if (object == NULL || cu == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "frame %zu has no debugging information", frame->pub.index);
  if (frame->normalized_from != bytes || frame->normalized_from_size != size ||
      frame->normalized_cu != cu) {
    frame->normalized_from = NULL;
    amddwarf_status st = amddwarf_object_normalize_expr(
        object, cu, AMDDWARF_ROLE_LOCATION, bytes, size, frame->normalized,
        sizeof frame->normalized, &frame->normalized_size, err);
    if (st != AMDDWARF_OK)
      return st;
    /* A loaded object's addresses are process addresses: DW_OP_addr's
       operand is relocated in the frame's copy (a 0x03 byte is where one
       may be; most expressions have none). */
    if (frame->pub.load_address != 0 &&
        memchr(frame->normalized, 0x03, frame->normalized_size) != NULL &&
        (st = relocate_addresses(frame, cu, err)) != AMDDWARF_OK)
      return st;
    frame->normalized_from = bytes;
    frame->normalized_from_size = size;
    frame->normalized_cu = cu;
    /* An expression normalizing leaves as it is is evaluated from the
       object's own bytes: the evaluator's decoded-expression cache knows
       their address from frame to frame and wave to wave, while the
       frame's copy changes with every variable. */
    frame->normalized_expr = frame->normalized_size == size &&
                                     memcmp(frame->normalized, bytes, size) == 0
                                 ? bytes
                                 : frame->normalized;
  }
  *expr = frame->normalized_expr;
  *expr_size = frame->normalized_size;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__debug_eval_location_request(const amddwarf_debug_frame *frame,
                                                     const amddwarf_cu *cu,
                                                     const amddwarf_eval_request *request,
                                                     const uint8_t *bytes, size_t size,
                                                     amddwarf_location *out,
                                                     amddwarf_error *err)
{
  const uint8_t *expr = NULL;
  size_t expr_size = 0;
  amddwarf_entry result;
  amddwarf_status st =
      amddwarf__debug_normalized_location(frame, cu, bytes, size, &expr, &expr_size, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_expr(frame->wave->ev, request, expr, expr_size, &result, err);
  if (st != AMDDWARF_OK)
    return st;
  if (result.kind != AMDDWARF_ENTRY_LOCATION)
    return amddwarf__fail(err, AMDDWARF_E_EVAL_NOT_LOCATION, AMDDWARF_NO_OFFSET,
                         "the expression gives a value, not a location");
  *out = result.location;
  return AMDDWARF_OK;
}

void amddwarf_wave_close(amddwarf_wave *wave)
{
  if (wave == NULL)
    return;
  amddwarf_allocator a = wave->allocator;
  amddwarf__debug_free_retired(wave);
  amddwarf__debug_free_frames(wave);
  amddwarf__mem_free(&a, wave->spare_value, wave->spare_value_size);
  if (wave->owns_ev)
    amddwarf_eval_free(wave->ev);
  amddwarf__mem_free(&a, wave->objects, wave->object_count * sizeof *wave->objects);
  if (wave->load_addresses != NULL)
    amddwarf__mem_free(&a, wave->load_addresses,
                      wave->object_count * sizeof *wave->load_addresses);
  amddwarf__mem_free(&a, wave, sizeof *wave);
}
