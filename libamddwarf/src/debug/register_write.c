/* Writing a wave's registers (debug.h, amddwarf_wave_write_register): the
 * innermost physical frame's, through the target, with the lane rule of
 * every write of the layer: a vector register's dwords of inactive lanes are
 * written only when the caller asks (AMDDWARF_ASSIGN_INACTIVE). */
#include <stdbool.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/error.h"
#include "debug/debug_internal.h"

/* The wave's whole PC or EXEC after bytes [OFFSET, OFFSET + SIZE) of
   register INFO become BUF: the rest read from the wave (little-endian). */
static amddwarf_status fact_after_write(amddwarf_wave *w, uint32_t regno,
                                        const amddwarf_amdgpu_register *info, const char *name,
                                        uint64_t offset, uint64_t size, const void *buf,
                                        uint64_t *out, amddwarf_error *err)
{
  uint8_t whole[8] = {0};
  uint32_t bytes = info->bit_size / 8;
  if (size < bytes && (w->base.read_register == NULL ||
                       w->base.read_register(w, regno, 0, bytes, whole) != AMDDWARF_OK))
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "%s cannot be read, so it is written whole only (%u bytes)", name, bytes);
  memcpy(whole + offset, buf, size);
  *out = 0;
  for (uint32_t i = 0; i < bytes; ++i)
    *out |= (uint64_t)whole[i] << (8 * i);
  return AMDDWARF_OK;
}

/* Checks a write of the wave's PC or EXEC register, from which its frames
   and lanes are computed: only the register that holds the whole fact (pc;
   exec of the wave's size), and a PC where the wave can stand. *VALUE is
   the fact after the write, *PLACE the wave's place at a new PC. */
static amddwarf_status check_fact_write(amddwarf_wave *w, uint32_t regno,
                                        const amddwarf_amdgpu_register *info, const char *name,
                                        uint64_t offset, uint64_t size, const void *buf,
                                        uint64_t *value, amddwarf_debug_place *place,
                                        amddwarf_error *err)
{
  bool pc = info->kind_id == AMDDWARF_REGISTER_KIND_PC;
  uint32_t whole = 0;
  (void)amddwarf_amdgpu_register_lookup(pc ? "pc" : "exec", w->info.wave_size, &whole);
  if (regno != whole) {
    char wanted[32];
    amddwarf_amdgpu_register_name(whole, AMDDWARF_REGISTER_ASM_NAME, wanted, sizeof wanted);
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "%s (DWARF %u) is not written: a wave%u's %s is %s (DWARF %u)", name,
                         regno, w->info.wave_size, pc ? "PC" : "EXEC", wanted, whole);
  }
  amddwarf_status st = fact_after_write(w, regno, info, name, offset, size, buf, value, err);
  if (st != AMDDWARF_OK)
    return st;
  if (!pc) {
    if (*value & ~amddwarf__debug_all_lanes(w->info.wave_size))
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "exec 0x%llx names lanes past the wave's %u",
                           (unsigned long long)*value, w->info.wave_size);
    return AMDDWARF_OK;
  }
  if ((st = amddwarf__debug_find_place(w, *value, place, err)) != AMDDWARF_OK || !place->located)
    return st;
  /* Code of another object must run at the wave's size. */
  return amddwarf_object_check_wave(w->objects[place->object_index], NULL, w->info.wave_size,
                                    err);
}

/* The lanes whose dwords bytes [OFFSET, OFFSET + SIZE) of a vector register
   with LANE_BYTES per lane cover. */
static uint64_t lanes_covered(uint64_t offset, uint64_t size, uint32_t lane_bytes,
                              uint32_t wave_size)
{
  uint64_t lanes = 0;
  for (uint64_t lane = offset / lane_bytes; lane < wave_size && lane * lane_bytes < offset + size;
       ++lane)
    lanes |= UINT64_C(1) << lane;
  return lanes;
}

amddwarf_status amddwarf_wave_write_register(amddwarf_wave *wave, size_t index, uint32_t regno,
                                             uint64_t offset, uint64_t size, const void *buf,
                                             unsigned flags, amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  amddwarf_amdgpu_register info;
  char name[32];
  if (wave == NULL || (buf == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_write_register: NULL argument");
  amddwarf_status st = amddwarf__debug_frame_get(wave, index, &f, err);
  if (st == AMDDWARF_END)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET, "no frame %zu", index);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf_amdgpu_register_info(regno, &info) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "DWARF register %u is not an AMDGPU register", regno);
  amddwarf_amdgpu_register_name(regno, AMDDWARF_REGISTER_ASM_NAME, name, sizeof name);
  if (offset > info.bit_size / 8 || size > info.bit_size / 8 - offset)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s has %u bytes: bytes %llu-%llu are past its end", name,
                         info.bit_size / 8, (unsigned long long)offset,
                         (unsigned long long)(offset + size - 1));
  if (f->pub.physical != 0)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "frame %zu: a caller's registers are not written (only the innermost "
                         "frame's, which the target holds)", index);
  if (wave->raw.write_register == NULL)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "the target has no write_register callback");
  if (info.lanes != 0 && !(flags & AMDDWARF_ASSIGN_INACTIVE)) {
    const amddwarf_lanes *lanes = NULL;
    if ((st = amddwarf_wave_lanes(wave, &lanes, err)) != AMDDWARF_OK)
      return st;
    uint64_t inactive =
        lanes_covered(offset, size, info.lane_bits / 8, wave->info.wave_size) & ~lanes->active_mask;
    if (inactive != 0) {
      char spelled[256];
      amddwarf_lanes_spell(inactive, wave->info.wave_size, spelled, sizeof spelled);
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "%s of inactive lane%s %s: writing inactive lanes must be asked for "
                           "explicitly", name, (inactive & (inactive - 1)) ? "s" : "", spelled);
    }
  }
  /* The wave's frames, lanes and lane PCs are computed from these. */
  bool fact =
      info.kind_id == AMDDWARF_REGISTER_KIND_PC || info.kind_id == AMDDWARF_REGISTER_KIND_EXEC;
  uint64_t value = 0;
  amddwarf_debug_place place = {0, 0, false};
  if (fact && (st = check_fact_write(wave, regno, &info, name, offset, size, buf, &value, &place,
                                     err)) != AMDDWARF_OK)
    return st;
  if (size == 0)
    return AMDDWARF_OK;
  st = wave->raw.write_register(wave->raw.user, regno, offset, size, buf);
  if (st == AMDDWARF_OK && info.kind_id == AMDDWARF_REGISTER_KIND_PC)
    amddwarf__debug_set_place(wave, value, &place);
  if (st == AMDDWARF_OK && info.kind_id == AMDDWARF_REGISTER_KIND_EXEC) {
    wave->info.exec = value;
    wave->exec_from_target = 1;
  }
  /* Lanes and frames are computed from registers (a failed write may have
     written part). */
  amddwarf__debug_wave_written(wave);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "the target cannot write %s (%s)", name,
                         amddwarf_status_name(st));
  return AMDDWARF_OK;
}
