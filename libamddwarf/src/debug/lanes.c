/* Where every lane of a wave is (debug.h): lane PCs from
 * DW_AT_LLVM_lane_pc, active lanes from DW_AT_LLVM_active_lane, else the
 * wave PC and EXEC; and lanes grouped by PC. */
#include <string.h>

#include "common/error.h"
#include "debug/debug_internal.h"

/* Evaluates the lane_pc (LANE_PC nonzero) or active_lane attribute of
   DIE, of unit CU, in FRAME for LANE and reads SIZE bytes BIT_OFFSET bits
   into the location it gives. */
static amddwarf_status read_attribute(const amddwarf_debug_frame *frame, const amddwarf_cu *cu,
                                      amddwarf_die_ref die, int lane_pc, uint32_t lane,
                                      uint64_t bit_offset, void *buf, size_t size)
{
  const uint8_t *bytes = NULL;
  size_t n = 0;
  amddwarf_location location;
  amddwarf_eval_request request;
  if (amddwarf__debug_die_lane_expr_at(frame->pub.object, die, lane_pc, frame->pub.object_pc,
                                       &bytes, &n) != AMDDWARF_OK)
    return AMDDWARF_E_EVAL_OPTIMIZED_OUT;
  amddwarf_status st =
      amddwarf__debug_eval_location(frame, cu, bytes, n, lane, &location, NULL);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf__debug_request_init(frame, cu, lane, &request);
  return amddwarf_location_read(frame->wave->ev, &request, &location, bit_offset, size * 8, buf,
                                NULL);
}

static uint64_t load_le(const uint8_t *bytes, size_t size)
{
  uint64_t v = 0;
  for (size_t i = 0; i < size && i < 8; ++i)
    v |= (uint64_t)bytes[i] << (8 * i);
  return v;
}

/* The names of the sources of active lanes and lane PCs, by enum value. */
static const struct {
  const char *text, *key;
} active_from_names[] = {
  [AMDDWARF_ACTIVE_FROM_EXEC] = {"EXEC", "exec"},
  [AMDDWARF_ACTIVE_FROM_ACTIVE_LANE] = {"DW_AT_LLVM_active_lane", "DW_AT_LLVM_active_lane"},
}, lane_pc_from_names[] = {
  [AMDDWARF_LANE_PC_FROM_WAVE_PC] = {"the wave PC", "wave_pc"},
  [AMDDWARF_LANE_PC_FROM_LANE_PC] = {"DW_AT_LLVM_lane_pc", "DW_AT_LLVM_lane_pc"},
};

#define NAME_OF(table, value, field)                                                     \
  ((unsigned)(value) < sizeof table / sizeof table[0] ? table[(unsigned)(value)].field : "?")

const char *amddwarf_active_from_text(amddwarf_active_from from)
{
  return NAME_OF(active_from_names, from, text);
}

const char *amddwarf_active_from_key(amddwarf_active_from from)
{
  return NAME_OF(active_from_names, from, key);
}

const char *amddwarf_lane_pc_from_text(amddwarf_lane_pc_from from)
{
  return NAME_OF(lane_pc_from_names, from, text);
}

const char *amddwarf_lane_pc_from_key(amddwarf_lane_pc_from from)
{
  return NAME_OF(lane_pc_from_names, from, key);
}

/* The innermost scope of FRAME (through the end of the physical frame's
   scopes) with lane_pc (LANE_PC nonzero) or active_lane. */
static amddwarf_die_ref innermost_with(const amddwarf_debug_frame *frame, int lane_pc)
{
  const amddwarf_object *object = frame->pub.object;
  for (size_t i = 0; i < frame->pub.scope_count; ++i) {
    amddwarf_die_ref s = frame->pub.scopes[i];
    if (lane_pc ? amddwarf__debug_die_has_lane_pc(object, s)
                : amddwarf__debug_die_has_active_lane(object, s))
      return s;
  }
  amddwarf_die_ref none = {0, 0, 0};
  return none;
}

static void compute_lanes(amddwarf_wave *w, amddwarf_lanes *out)
{
  uint32_t wave = w->info.wave_size;
  memset(out, 0, sizeof *out);
  out->wave_size = wave;
  out->active_mask = w->info.exec;
  out->active_from = AMDDWARF_ACTIVE_FROM_EXEC;
  out->pc_from = AMDDWARF_LANE_PC_FROM_WAVE_PC;
  amddwarf_debug_frame *frame = NULL;
  amddwarf_die_ref with_pc = {0, 0, 0}, with_active = {0, 0, 0};
  if (amddwarf__debug_frame_get(w, 0, &frame, NULL) == AMDDWARF_OK) {
    /* Frame 0 and its inlines share the physical frame's scopes; the first
       frame's scopes are the innermost. */
    with_pc = innermost_with(frame, 1);
    with_active = innermost_with(frame, 0);
    for (size_t k = 1; k < w->frame_count && w->frames[k]->pub.physical == 0; ++k) {
      if (!amddwarf_die_ref_valid(with_pc))
        with_pc = innermost_with(w->frames[k], 1);
      if (!amddwarf_die_ref_valid(with_active))
        with_active = innermost_with(w->frames[k], 0);
    }
  }
  if (amddwarf_die_ref_valid(with_active)) {
    uint8_t mask[8] = {0};
    const amddwarf_cu *cu = amddwarf_object_cu(frame->pub.object, with_active.cu_index);
    if (read_attribute(frame, cu, with_active, 0, 0, 0, mask, wave / 8) ==
        AMDDWARF_OK) {
      out->active_mask = load_le(mask, wave / 8);
      out->active_from = AMDDWARF_ACTIVE_FROM_ACTIVE_LANE;
    }
  }
  if (amddwarf_die_ref_valid(with_pc))
    out->pc_from = AMDDWARF_LANE_PC_FROM_LANE_PC;
  for (uint32_t l = 0; l < wave; ++l) {
    amddwarf_lane *lane = &out->lanes[l];
    lane->active = (uint8_t)(out->active_mask >> l & 1);
    out->active_count += lane->active;
    if (amddwarf_die_ref_valid(with_pc)) {
      /* DW_AT_LLVM_lane_pc locates a vector of generic PCs, one per lane. */
      const amddwarf_cu *cu = amddwarf_object_cu(frame->pub.object, with_pc.cu_index);
      uint8_t pc[8] = {0};
      lane->pc_status = read_attribute(frame, cu, with_pc, 1, l,
                                       (uint64_t)l * cu->address_size * 8, pc, cu->address_size);
      if (lane->pc_status == AMDDWARF_OK) {
        lane->pc_known = 1;
        lane->pc = load_le(pc, cu->address_size);
      }
    } else if (lane->active) {
      lane->pc_known = 1;
      lane->pc = w->info.pc;
    } else {
      lane->pc_status = AMDDWARF_E_EVAL_OPTIMIZED_OUT;
    }
  }
}

amddwarf_status amddwarf_wave_lanes(amddwarf_wave *wave, const amddwarf_lanes **out,
                                    amddwarf_error *err)
{
  if (wave == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_lanes: NULL argument");
  if (!wave->lanes_done) {
    compute_lanes(wave, &wave->lanes);
    wave->lanes_done = 1;
  }
  *out = &wave->lanes;
  return AMDDWARF_OK;
}

void amddwarf_lanes_group_by_pc(const amddwarf_lanes *lanes, amddwarf_lane_group *groups,
                                size_t capacity, size_t *count)
{
  uint64_t done = 0;
  size_t n = 0;
  for (uint32_t l = 0; l < lanes->wave_size; ++l) {
    if (done >> l & 1)
      continue;
    const amddwarf_lane *first = &lanes->lanes[l];
    amddwarf_lane_group group = {0, first->pc_known, first->pc_known ? first->pc : 0};
    for (uint32_t m = l; m < lanes->wave_size; ++m) {
      const amddwarf_lane *other = &lanes->lanes[m];
      if (other->pc_known == first->pc_known && (!first->pc_known || other->pc == first->pc))
        group.mask |= 1ull << m;
    }
    done |= group.mask;
    if (n < capacity)
      groups[n] = group;
    ++n;
  }
  *count = n;
}
