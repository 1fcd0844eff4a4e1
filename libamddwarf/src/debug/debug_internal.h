/* Internals of the debugger layer (<amddwarf/debug.h>): the wave, its
 * frames as evaluation contexts, and the growable text the value printer
 * writes into. */
#ifndef AMDDWARF_DEBUG_INTERNAL_H
#define AMDDWARF_DEBUG_INTERNAL_H

#include <amddwarf/cfi.h>
#include <amddwarf/debug.h>
#include <amddwarf/eval.h>

#include "common/text.h"
#include "debug/dwarf_codes.h"

/* One frame of the wave: the public description and what evaluating in it
   needs. Frames are allocated one by one, so pointers to them (the target's
   user pointer) stay valid while the frame list grows. */
typedef struct amddwarf_debug_frame {
  amddwarf_frame pub;
  amddwarf_wave *wave;
  const amddwarf_die_info **scopes;   /* owned by the first frame of a physical
                                         frame; pub.scopes points into it */
  size_t scope_capacity;
  const amddwarf_cu *cu;              /* unit of the frame's function, or NULL */
  const amddwarf_target *registers;   /* the unwinder's frame target, or the raw one */
  amddwarf_target target;             /* the full target (user = this frame) */
  uint8_t frame_base[64];             /* the function's frame base, normalized */
  size_t frame_base_size;
  int has_frame_base;
  /* The last location expression normalized in this frame: the same
     variable is evaluated for every lane. */
  const uint8_t *normalized_from;
  size_t normalized_from_size;
  const amddwarf_cu *normalized_cu;
  uint8_t normalized[512];
  size_t normalized_size;
  amddwarf_var *vars;                 /* amddwarf_wave_variables, on first use */
  size_t var_count, var_capacity;
  int vars_done;
  amddwarf_status vars_status;
} amddwarf_debug_frame;

struct amddwarf_wave {
  amddwarf_allocator allocator;
  const amddwarf_object **objects;    /* copy of the caller's array */
  size_t object_count;
  amddwarf_target raw;                /* copy of the caller's raw target */
  amddwarf_target base;               /* RAW with the wave's PC and focus (user = wave):
                                         what the unwinder and frame 0 read */
  int has_pc;
  uint64_t pc;
  amddwarf_wave_info info;
  uint32_t focus;
  uint32_t max_frames;
  amddwarf_eval *ev;                  /* every evaluation of the wave */
  amddwarf_trace_fn trace;
  void *trace_user;

  int lanes_done;
  amddwarf_lanes lanes;

  struct amddwarf_cfi *cfi;           /* options.cfi, or NULL: the object's */
  amddwarf_unwinder *unwinder;        /* NULL when the object has no CFI */
  int unwind_ended;                   /* no more physical frames */
  amddwarf_status unwind_status;      /* END, or the error that ended the walk */
  amddwarf_error unwind_error;
  size_t physical_count;              /* physical frames turned into frames */

  amddwarf_debug_frame **frames;
  size_t frame_count, frame_capacity;
};

/* The object whose subprograms contain PC, or NULL. */
const amddwarf_object *amddwarf_debug_object_at(const amddwarf_wave *wave, uint64_t pc);

/* Releases the frames and the unwinder (frames.c). */
void amddwarf_debug_free_frames(amddwarf_wave *wave);

/* Frame INDEX (unwinding as needed), as amddwarf_wave_frame. */
amddwarf_status amddwarf_debug_frame_get(amddwarf_wave *wave, size_t index,
                                         amddwarf_debug_frame **out, amddwarf_error *err);

/* An evaluation request in FRAME for an expression of unit CU (the frame's
   unit when NULL): the frame's target, the unit's format (dialect user for
   legacy units, whose expressions are normalized), DW_ASPACE numbering, the
   wave's trace, lane LANE. */
void amddwarf_debug_request_init(const amddwarf_debug_frame *frame, const amddwarf_cu *cu,
                                 uint32_t lane, amddwarf_eval_request *request);

/* Evaluates the location expression BYTES (SIZE) of unit CU in FRAME for
   LANE: normalized under the unit's convention, then evaluated; a result
   that is not a location is E_EVAL_NOT_LOCATION. */
amddwarf_status amddwarf_debug_eval_location(const amddwarf_debug_frame *frame,
                                             const amddwarf_cu *cu, const uint8_t *bytes,
                                             size_t size, uint32_t lane,
                                             amddwarf_location *out, amddwarf_error *err);

#endif
