/* Lanes read again after a write (<amddwarf/debug.h>): amddwarf_wave_lanes
 * computes the active lanes and lane PCs once, from registers and memory
 * (EXEC, DW_AT_LLVM_active_lane, DW_AT_LLVM_lane_pc). A debugger that
 * writes through the wave's target may have changed what they read, so it
 * asks for them to be computed again. */
#include <amddwarf/debug.h>

#include "common/error.h"
#include "debug/debug_internal.h"

amddwarf_status amddwarf_wave_lanes_refresh(amddwarf_wave *wave, amddwarf_error *err)
{
  if (wave == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_lanes_refresh: NULL wave");
  /* The next amddwarf_wave_lanes recomputes them in place: the lanes a
     caller holds from before stay valid and read the new state. */
  wave->lanes_done = 0;
  return AMDDWARF_OK;
}
