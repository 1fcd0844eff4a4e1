/* Code objects loaded in a process (debug.h): which object a process
 * address lies in and where that is in the object's own addresses, whether
 * a wave can run an object's code, and the wave's mapping of its PCs, so
 * that DWARF and CFI are read at object addresses while a debugger shows
 * process addresses. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/target.h>

#include "common/error.h"
#include "debug/debug_internal.h"

/* Whether process address ADDRESS lies in OBJECT loaded at LOAD; then
   *OBJECT_ADDRESS is its object address. An extent that would wrap past
   the end of the address space holds only what fits below it. */
static int holds(const amddwarf_object *object, uint64_t load, uint64_t address,
                 uint64_t *object_address)
{
  uint64_t low = 0, high = 0;
  if (amddwarf_object_extent(object, &low, &high) != AMDDWARF_OK || address < load)
    return 0;
  uint64_t at = address - load;
  if (at < low || at >= high)
    return 0;
  *object_address = at;
  return 1;
}

amddwarf_status amddwarf_loaded_object_at(const amddwarf_object *const *objects,
                                          const uint64_t *load_addresses, size_t count,
                                          uint64_t address, size_t *index,
                                          uint64_t *object_address)
{
  if (objects == NULL || load_addresses == NULL || index == NULL || object_address == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < count; ++i)
    if (objects[i] != NULL && holds(objects[i], load_addresses[i], address, object_address)) {
      *index = i;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

/* Whether OBJECT's code runs at WAVE_SIZE: processors before GFX10 have
   wave64 only; later ones run what their kernels were compiled for (their
   .wavefront_size), either size when the object has no kernel. */
static int runs_at(const amddwarf_object *object, uint32_t wave_size)
{
  const amddwarf_object_info *info = amddwarf_object_get_wave_info(object);
  if (info->isa_major != 0 && info->isa_major < 10)
    return wave_size == 64;
  size_t kernels = amddwarf_object_kernel_count(object), known = 0;
  for (size_t i = 0; i < kernels; ++i) {
    const amddwarf_kernel *k = amddwarf_object_kernel(object, i);
    if (k->wavefront_size == UINT32_MAX || k->wavefront_size == 0)
      continue;
    known++;
    if (k->wavefront_size == wave_size)
      return 1;
  }
  return known == 0;
}

amddwarf_status amddwarf_object_check_wave(const amddwarf_object *object,
                                           const char *architecture, uint32_t wave_size,
                                           amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_check_wave: no object");
  const amddwarf_object_info *info = amddwarf_object_get_wave_info(object);
  /* A processor the ISA table does not know (a generic target such as
     gfx10-3-generic runs on several) cannot be told apart: no refusal. */
  if (architecture != NULL && architecture[0] != '\0' && info->isa_major != 0) {
    amddwarf_isa_info isa;
    const char *name = amddwarf_isa_info_by_name(architecture, &isa) == AMDDWARF_OK
                           ? isa.name
                           : architecture;
    if (strcmp(name, info->processor) != 0)
      return amddwarf__fail(err, AMDDWARF_E_WAVE_MISMATCH, AMDDWARF_NO_OFFSET,
                           "the wave is a %s, its code object is for %s", name,
                           info->processor);
  }
  if (wave_size != 0 && !runs_at(object, wave_size))
    return amddwarf__fail(err, AMDDWARF_E_WAVE_MISMATCH, AMDDWARF_NO_OFFSET,
                         "the wave is wave%u, its code object (%s) has wave%u code only",
                         (unsigned)wave_size, info->processor, wave_size == 32 ? 64u : 32u);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__debug_locate(const amddwarf_wave *w, uint64_t pc, size_t *index,
                                      uint64_t *object_pc)
{
  if (w->load_addresses != NULL)
    return amddwarf_loaded_object_at((const amddwarf_object *const *)w->objects,
                                     w->load_addresses, w->object_count, pc, index, object_pc);
  /* Not loaded: the first object whose subprograms contain the PC. */
  size_t unit = 0;
  for (size_t i = 0; i < w->object_count; ++i)
    if (amddwarf_object_pc_unit(w->objects[i], pc, &unit) == AMDDWARF_OK) {
      *index = i;
      *object_pc = pc;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_wave_object_at(const amddwarf_wave *wave, uint64_t pc, size_t *index,
                                        uint64_t *object_pc)
{
  if (wave == NULL || index == NULL || object_pc == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  return amddwarf__debug_locate(wave, pc, index, object_pc);
}

amddwarf_status amddwarf__debug_not_loaded(const amddwarf_wave *w, uint64_t pc,
                                          amddwarf_error *err)
{
  char list[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < w->object_count && used < sizeof list; ++i) {
    uint64_t low = 0, high = 0;
    int n;
    if (amddwarf_object_extent(w->objects[i], &low, &high) != AMDDWARF_OK)
      n = snprintf(list + used, sizeof list - used, "%s%zu: nothing loadable", i ? ", " : "",
                   i);
    else
      n = snprintf(list + used, sizeof list - used,
                   "%s%zu: [0x%" PRIx64 ", 0x%" PRIx64 ")", i ? ", " : "", i,
                   w->load_addresses[i] + low, w->load_addresses[i] + high);
    if (n < 0)
      break;
    used += (size_t)n;
  }
  return amddwarf__fail(err, AMDDWARF_E_PC_NOT_LOADED, AMDDWARF_NO_OFFSET,
                       "the wave's PC 0x%" PRIx64 " lies in no loaded code object (%s)", pc,
                       list);
}

uint64_t amddwarf__debug_relocate(const amddwarf_object *object, uint64_t load,
                                 uint64_t address)
{
  uint64_t low = 0, high = 0;
  if (load == 0 || amddwarf_object_extent(object, &low, &high) != AMDDWARF_OK ||
      address < low || address >= high)
    return address;
  return load + address;
}
