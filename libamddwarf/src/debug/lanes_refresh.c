/* What a write changes (<amddwarf/debug.h>): amddwarf_wave_lanes computes
 * the active lanes and lane PCs once, and the frames are unwound once, all
 * from registers and memory (EXEC, DW_AT_LLVM_active_lane,
 * DW_AT_LLVM_lane_pc, the CFA and saved registers of the CFI). Every write
 * of the layer (a value's assignment, a register, memory) forgets them, so
 * that every caller reads the wave as the write left it; a backend writing
 * through its own target asks for the lanes again itself. */
#include <amddwarf/debug.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"

/* One set of frames a write let go of, with the unwinder their registers
   are read through. */
struct amddwarf_debug_retired {
  struct amddwarf_debug_retired *next;
  amddwarf_debug_frame **frames;
  size_t frame_count, frame_capacity;
  amddwarf_unwinder *unwinder;
};

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

void amddwarf__debug_wave_written(amddwarf_wave *wave)
{
  wave->lanes_done = 0;
  if (wave->frame_count == 0 && wave->unwinder == NULL)
    return;
  /* Frames, their variables and the values made in them are pointed to by
     callers until close: they are set aside, not freed. Without memory to
     set them aside they stay as they are. */
  struct amddwarf_debug_retired *r = amddwarf__mem_alloc(&wave->allocator, sizeof *r);
  if (r == NULL)
    return;
  *r = (struct amddwarf_debug_retired){wave->retired, wave->frames, wave->frame_count,
                                       wave->frame_capacity, wave->unwinder};
  wave->retired = r;
  wave->frames = NULL;
  wave->frame_count = wave->frame_capacity = 0;
  wave->unwinder = NULL;
  wave->physical_count = 0;
  wave->unwind_ended = 0;
  wave->unwind_status = AMDDWARF_OK;
  amddwarf_error_clear(&wave->unwind_error);
}

void amddwarf__debug_free_retired(amddwarf_wave *wave)
{
  while (wave->retired != NULL) {
    struct amddwarf_debug_retired *r = wave->retired;
    wave->retired = r->next;
    /* Freed as the wave's own frames are (amddwarf__debug_free_frames). */
    amddwarf__debug_free_frames(wave);
    wave->frames = r->frames;
    wave->frame_count = r->frame_count;
    wave->frame_capacity = r->frame_capacity;
    wave->unwinder = r->unwinder;
    amddwarf__mem_free(&wave->allocator, r, sizeof *r);
  }
}
