/* Where a value is in memory (debug.h, amddwarf_valobj_address): the
 * address space, lane and address of its first byte for one lane, so a
 * debugger can show the memory around a variable ("view memory", a DAP
 * memoryReference) and read it with amddwarf_wave_read_memory. */
#include "common/error.h"
#include "common/mem.h"
#include "common/text.h"
#include "debug/debug_internal.h"
#include "debug/value.h"

amddwarf_status amddwarf_valobj_address(amddwarf_valobj *value, uint32_t lane, uint32_t *aspace,
                                        uint32_t *address_lane, uint64_t *address,
                                        amddwarf_error *err)
{
  if (value == NULL || aspace == NULL || address_lane == NULL || address == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_address: NULL argument");
  if (lane == AMDDWARF_NO_LANE)
    lane = value->wave->focus;
  if (lane >= value->wave->info.wave_size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane %u is not a lane of the wave (0-%u)", lane,
                         value->wave->info.wave_size - 1);
  amddwarf_debug_lane_read r = {0};
  amddwarf_location loc;
  uint64_t bit = 0;
  const amddwarf_debug_step *last_load = NULL;
  amddwarf__text_init(&r.text, &value->wave->allocator);
  amddwarf__text_init(&r.message, &value->wave->allocator);
  amddwarf__text_init(&r.explain, &value->wave->allocator);
  r.lane = lane;
  r.bytes_only = 1;
  amddwarf_status st = amddwarf__debug_value_locate(value, &loc, &bit, &last_load, &r);
  if (st != AMDDWARF_OK)
    st = amddwarf__fail(err, r.status != AMDDWARF_OK ? r.status : st, AMDDWARF_NO_OFFSET,
                       "lane %u: '%.200s': %s", lane, value->info.path,
                       amddwarf__text_str(&r.message));
  else if (loc.kind != AMDDWARF_LOCATION_MEMORY || bit % 8 != 0)
    st = amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                       "'%.200s' is not at a byte in memory in lane %u (its location is %s)",
                       value->info.path, lane,
                       loc.kind == AMDDWARF_LOCATION_MEMORY ? "a bit field"
                                                            : amddwarf_location_kind_name(loc.kind));
  else {
    *aspace = loc.u.memory.aspace;
    *address = loc.byte_offset + bit / 8;
    *address_lane = AMDDWARF_NO_LANE;
    if (*aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE)
      *address_lane = lane;
    else if (*aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
             *aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63) {
      *address_lane = *aspace - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
      *aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
    }
  }
  amddwarf__text_free(&r.text);
  amddwarf__text_free(&r.message);
  amddwarf__text_free(&r.explain);
  amddwarf__mem_free(&value->wave->allocator, r.bytes, r.capacity);
  amddwarf__mem_free(&value->wave->allocator, r.valid, r.capacity);
  return st;
}
