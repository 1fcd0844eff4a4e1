/* The registers a debugger shows for a wave (debug.h,
 * amddwarf_wave_register_get): its PC, EXEC, scalar and vector registers,
 * numbered by the AMDGPU DWARF register map for the wave's size. */
#include <stdio.h>
#include <string.h>
#include <amddwarf/amdgpu.h>

#include "debug/debug_internal.h"

/* The set, in the order shown: assembler names, looked up in the register
   map (amddwarf_amdgpu_register_lookup) for the wave size. */
static const struct {
  const char *name;  /* the assembler name, or its prefix when COUNT > 1 */
  uint32_t count;
  int always_listed;
} register_set[] = {
    {"pc", 1, 1},
    {"exec", 1, 1},
    {"s", 106, 0},
    {"v", 256, 0},
};

size_t amddwarf_wave_register_count(const amddwarf_wave *wave)
{
  size_t n = 0;
  (void)wave;
  for (size_t i = 0; i < sizeof register_set / sizeof register_set[0]; ++i)
    n += register_set[i].count;
  return n;
}

amddwarf_status amddwarf_wave_register_get(const amddwarf_wave *wave, size_t index,
                                           amddwarf_wave_register *out)
{
  if (wave == NULL || out == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < sizeof register_set / sizeof register_set[0]; ++i) {
    if (index >= register_set[i].count) {
      index -= register_set[i].count;
      continue;
    }
    amddwarf_amdgpu_register info;
    memset(out, 0, sizeof *out);
    if (register_set[i].count == 1)
      snprintf(out->name, sizeof out->name, "%s", register_set[i].name);
    else
      snprintf(out->name, sizeof out->name, "%s%zu", register_set[i].name, index);
    if (amddwarf_amdgpu_register_lookup(out->name, wave->info.wave_size, &out->regno) !=
            AMDDWARF_OK ||
        amddwarf_amdgpu_register_info(out->regno, &info) != AMDDWARF_OK)
      return AMDDWARF_NOT_FOUND;
    out->per_lane = info.lanes != 0;
    out->size = (info.lanes != 0 ? info.lane_bits : info.bit_size) / 8;
    out->always_listed = register_set[i].always_listed;
    return AMDDWARF_OK;
  }
  return AMDDWARF_NOT_FOUND;
}
