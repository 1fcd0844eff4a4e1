/* Internals of the debugger layer (<amddwarf/debug.h>): the wave, its
 * frames as evaluation contexts, and the growable text the value printer
 * writes into. */
#ifndef AMDDWARF_DEBUG_INTERNAL_H
#define AMDDWARF_DEBUG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <amddwarf/cfi.h>
#include <amddwarf/debug.h>
#include <amddwarf/eval.h>

#include "common/text.h"
#include "object/memo.h"
#include <amddwarf/dwarf.h>

/* One frame of the wave: the public description and what evaluating in it
   needs. Frames are allocated one by one, so pointers to them (the target's
   user pointer) stay valid while the frame list grows. */
typedef struct amddwarf_debug_frame {
  amddwarf_frame pub;
  amddwarf_wave *wave;
  /* The expansion pub.scopes points into, when the object keeps no more
     and the first frame of the physical frame owns it; else NULL. */
  struct amddwarf_pc_frames *expansion_own;
  const amddwarf_cu *cu;              /* unit of the frame's function, or NULL */
  const amddwarf_target *registers;   /* the unwinder's frame target, or the raw one */
  amddwarf_target target;             /* the full target (user = this frame) */
  /* The function's frame base, normalized on first use (most frames of a
     backtrace never evaluate one): SUBPROGRAM's, FRAME_BASE_DONE once tried. */
  amddwarf_die_ref subprogram;
  int frame_base_done;
  uint8_t frame_base[64];
  size_t frame_base_size;
  const uint8_t *frame_base_expr;     /* FRAME_BASE, or the object's bytes when the same */
  int has_frame_base;
  /* The last location expression normalized in this frame: the same
     variable is evaluated for every lane. */
  const uint8_t *normalized_from;
  size_t normalized_from_size;
  const amddwarf_cu *normalized_cu;
  uint8_t normalized[512];
  size_t normalized_size;
  const uint8_t *normalized_expr;     /* NORMALIZED, or the original bytes when the
                                         same (their address is stable) */
  /* amddwarf_wave_variables, on first use: the list kept with the object
     for the frame's scopes at its PC (variables.c), or the frame's own
     (SCOPE_OWN) when the object keeps no more. VARS is its array. */
  struct scope_variables *scope;
  int scope_own;
  const amddwarf_frame_var *vars;
  size_t var_count;
  int vars_done;
  amddwarf_status vars_status;
  struct amddwarf_frame_listing *listing; /* amddwarf_wave_frame_variables, on first use */
} amddwarf_debug_frame;

void amddwarf__frame_listing_free(amddwarf_wave *wave, struct amddwarf_frame_listing *listing);

struct amddwarf_wave {
  amddwarf_allocator allocator;
  const amddwarf_object **objects;    /* copy of the caller's array */
  size_t object_count;
  uint64_t *load_addresses;           /* copy of options.load_addresses, or NULL */
  amddwarf_target raw;                /* copy of the caller's raw target */
  amddwarf_target base;               /* RAW with the wave's PC and focus (user = wave):
                                         what the unwinder and frame 0 read */
  int has_pc;
  uint64_t pc;
  int exec_from_target;               /* info.exec is the target's EXEC (or was written) */
  amddwarf_wave_info info;
  uint32_t focus;
  uint32_t max_frames;
  amddwarf_eval *ev;                  /* every evaluation of the wave */
  int owns_ev;                        /* EV is the wave's own (else options.eval) */
  amddwarf_trace_fn trace;
  void *trace_user;
  /* The backend's caller registers (amddwarf_wave_options). */
  amddwarf_status (*caller_register)(void *user, size_t index, uint64_t pc, uint32_t regno,
                                     uint64_t offset, uint64_t size, void *buf);
  void *caller_register_user;
  uint64_t lanes_at_pc;               /* options.lanes_at_pc */

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
  /* Frames a write let go of (amddwarf__debug_wave_written), kept with
     their unwinder until close: what was obtained from them stays valid. */
  struct amddwarf_debug_retired *retired;

  /* The place of the PC asked last (amddwarf_wave_place): a wave's lanes
     mostly share a PC, and a place walks the object's scopes. The objects
     and load addresses of a wave never change, so neither does a PC's
     place. */
  int place_memo_valid;
  uint64_t place_memo_pc;
  amddwarf_status place_memo_status;
  amddwarf_place place_memo;

  /* The memory of the value freed last, for the next one (values are made
     and freed by the thousand, and are large): SPARE_VALUE_SIZE bytes. */
  void *spare_value;
  size_t spare_value_size;
};

enum { AMDDWARF_DEBUG_PC_REGISTER = 16 /* PC_64 */ };

/* Reads a register of the wave's innermost frame, as the base target does:
   the PC the wave was opened at, any other register from the raw target
   (which must have read_register). Inline: every evaluation in frame 0
   reads its registers through it. */
static inline amddwarf_status amddwarf_debug_read_register(const amddwarf_wave *w,
                                                           uint32_t regno, uint64_t offset,
                                                           uint64_t size, void *buf)
{
  if (regno == AMDDWARF_DEBUG_PC_REGISTER && w->has_pc && offset + size <= 8) {
    uint8_t *out = buf;
    for (uint64_t i = 0; i < size; ++i)
      out[i] = (uint8_t)(w->pc >> (8 * (offset + i)));
    return AMDDWARF_OK;
  }
  return w->raw.read_register(w->raw.user, regno, offset, size, buf);
}

/* The object holding PC (loaded.c): with load addresses, the one whose
   loaded extent holds it, else the first whose subprograms contain it;
   *INDEX and *OBJECT_PC, the PC in that object's addresses. NOT_FOUND. */
amddwarf_status amddwarf__debug_locate(const amddwarf_wave *wave, uint64_t pc, size_t *index,
                                      uint64_t *object_pc);

/* Where a wave at PC stands (wave.c; at open and when the PC register is
   written): the object holding it and the PC in that object's addresses.
   Loaded objects are where the PC must be (E_PC_NOT_LOADED); unloaded ones
   keep the first object's reading of an address no subprogram holds. */
typedef struct amddwarf_debug_place {
  size_t object_index;
  uint64_t object_pc;
  bool located;   /* an object holds PC (else the first object's reading) */
} amddwarf_debug_place;
amddwarf_status amddwarf__debug_find_place(const amddwarf_wave *wave, uint64_t pc,
                                          amddwarf_debug_place *out, amddwarf_error *err);
/* Puts WAVE at PC, in PLACE (amddwarf__debug_find_place's): wave->pc and
   wave->info. */
void amddwarf__debug_set_place(amddwarf_wave *wave, uint64_t pc, const amddwarf_debug_place *place);

/* The mask of every lane of a wave of WAVE_SIZE lanes. */
static inline uint64_t amddwarf__debug_all_lanes(uint32_t wave_size)
{
  return wave_size >= 64 ? UINT64_MAX : (UINT64_C(1) << wave_size) - 1;
}

/* E_PC_NOT_LOADED for PC, the message listing every object's loaded
   extent. */
amddwarf_status amddwarf__debug_not_loaded(const amddwarf_wave *wave, uint64_t pc,
                                          amddwarf_error *err);

/* ADDRESS, an address OBJECT's DWARF gives (DW_OP_addrx), as a process
   address when OBJECT is loaded at LOAD: LOAD + ADDRESS when it lies in
   the object's extent (what the loader relocates), else unchanged. */
uint64_t amddwarf__debug_relocate(const amddwarf_object *object, uint64_t load,
                                 uint64_t address);

/* One frame of what a physical frame at an object PC expands into
   (pc_frames.c): as amddwarf_frame's fields of the same names, SCOPE_BASE
   and SCOPE_COUNT into the expansion's scopes. */
typedef struct amddwarf_pc_frame {
  amddwarf_die_ref function;
  const char *function_name;
  size_t scope_base, scope_count;
  uint32_t inline_depth;
  const char *file;
  uint32_t line, column;
} amddwarf_pc_frame;

/* The frames of a physical frame at an object PC, innermost first, the
   same for every wave there: kept with the object. */
typedef struct amddwarf_pc_frames {
  amddwarf_object_memo memo;     /* first: the block is the memo's */
  amddwarf_die_ref subprogram;   /* not valid when no subprogram holds the PC */
  size_t frame_count, scope_count;
  amddwarf_pc_frame *frames;     /* FRAME_COUNT, in the same block */
  amddwarf_die_ref *scopes;      /* SCOPE_COUNT, in the same block */
} amddwarf_pc_frames;

/* The expansion at OBJECT_PC of OBJECT, kept with the object; when the
   object keeps no more, *OWN is the caller's, to free with
   amddwarf__debug_pc_frames_free (else NULL). NULL when out of memory. */
const amddwarf_pc_frames *amddwarf__debug_pc_frames(amddwarf_wave *wave,
                                                    const amddwarf_object *object,
                                                    uint64_t object_pc, amddwarf_pc_frames **own,
                                                    amddwarf_error *err);
void amddwarf__debug_pc_frames_free(const amddwarf_object *object, amddwarf_pc_frames *own);

/* The demangled name of the function or kernel symbol of OBJECT holding PC,
   as a symbolizer names a PC no DWARF covers; NULL when none does
   (pc_frames.c). */
const char *amddwarf__debug_symbol_name_at(const amddwarf_object *object, uint64_t pc);

/* Releases the frames and the unwinder (frames.c). */
void amddwarf__debug_free_frames(amddwarf_wave *wave);

/* After a write through WAVE's target (a value, a register, memory): the
   lanes are computed again on next use, and the frames, which the unwinder
   computed from registers and memory, are unwound again; the frames there
   were stay allocated until close (lanes_refresh.c). */
void amddwarf__debug_wave_written(amddwarf_wave *wave);
/* Releases the frames writes let go of (at close). */
void amddwarf__debug_free_retired(amddwarf_wave *wave);

/* Frame INDEX (unwinding as needed), as amddwarf_wave_frame. */
amddwarf_status amddwarf__debug_frame_get(amddwarf_wave *wave, size_t index,
                                         amddwarf_debug_frame **out, amddwarf_error *err);

/* An evaluation request in FRAME for an expression of unit CU (the frame's
   unit when NULL): the frame's target, the unit's format (dialect user for
   legacy units, whose expressions are normalized), DW_ASPACE numbering, the
   wave's trace, lane LANE. */
void amddwarf__debug_request_init(const amddwarf_debug_frame *frame, const amddwarf_cu *cu,
                                 uint32_t lane, amddwarf_eval_request *request);

/* Evaluates the location expression BYTES (SIZE) of unit CU in FRAME for
   LANE: normalized under the unit's convention, then evaluated; a result
   that is not a location is E_EVAL_NOT_LOCATION. */
amddwarf_status amddwarf__debug_eval_location(const amddwarf_debug_frame *frame,
                                             const amddwarf_cu *cu, const uint8_t *bytes,
                                             size_t size, uint32_t lane,
                                             amddwarf_location *out, amddwarf_error *err);

/* The location expression BYTES (SIZE) of unit CU (the frame's unit when
   NULL) normalized under the unit's convention: *EXPR (*EXPR_SIZE bytes),
   valid until FRAME normalizes another expression (each frame keeps its
   last one: the same variable is evaluated for every lane). */
amddwarf_status amddwarf__debug_normalized_location(const amddwarf_debug_frame *frame,
                                                   const amddwarf_cu *cu, const uint8_t *bytes,
                                                   size_t size, const uint8_t **expr,
                                                   size_t *expr_size, amddwarf_error *err);

/* amddwarf__debug_eval_location with REQUEST, made by
   amddwarf__debug_request_init for FRAME, CU and the lane: a caller that
   evaluates and then reads with one request makes it once. */
amddwarf_status amddwarf__debug_eval_location_request(const amddwarf_debug_frame *frame,
                                                     const amddwarf_cu *cu,
                                                     const amddwarf_eval_request *request,
                                                     const uint8_t *bytes, size_t size,
                                                     amddwarf_location *out,
                                                     amddwarf_error *err);

/* What making a value of VAR's name alone reads of the object, kept for
   every wave at FRAME's scopes once a value of it was made
   (struct amddwarf_debug_var_answer, value.h); NULL until then, and for a
   variable that is not one of FRAME's. */
struct amddwarf_debug_var_answer;
const struct amddwarf_debug_var_answer *amddwarf__debug_var_answer(const amddwarf_debug_frame *frame,
                                                                  const amddwarf_frame_var *var);
/* Keeps a copy of ANSWER for VAR's name alone (the first one kept stays). */
void amddwarf__debug_var_answer_keep(amddwarf_debug_frame *frame, const amddwarf_frame_var *var,
                                     const struct amddwarf_debug_var_answer *answer);
/* Lets go of FRAME's variables (frees them when they are its own). */
void amddwarf__debug_scope_release(amddwarf_debug_frame *frame);

/* What a debugger lists of VAR (its name, tag, declaration, whether it is
   a global of CU), read from the DIE VAR->ref.die (variables.c). */
void amddwarf__debug_describe_var(const amddwarf_object *object, const amddwarf_cu *cu,
                                  amddwarf_frame_var *var);

/* Reading DIEs through references (die_read.c); a failed read reads as
   absent. The DIE's tag, or 0. */
unsigned amddwarf__debug_die_tag(const amddwarf_object *object, amddwarf_die_ref die);
/* Whether DIE is a subprogram or an inlined subroutine. */
int amddwarf__debug_die_is_function(const amddwarf_object *object, amddwarf_die_ref die);
/* Attribute AT of DIE as a constant: 1 with *OUT, else 0. */
int amddwarf__debug_die_udata(const amddwarf_object *object, amddwarf_die_ref die, unsigned at,
                              uint64_t *out);
/* The call site of inlined subroutine DIE (inline_places.c), where its
   caller stands: DW_AT_call_file's name (NULL when absent), DW_AT_call_line
   and DW_AT_call_column (0 when absent: compilers omit a line 0). */
void amddwarf__debug_call_site(const amddwarf_object *object, amddwarf_die_ref die,
                               const char **file, uint32_t *line, uint32_t *column);
/* Whether DIE has DW_AT_LLVM_lane_pc (under its old or new code), or
   DW_AT_LLVM_active_lane as an expression or list. */
int amddwarf__debug_die_has_lane_pc(const amddwarf_object *object, amddwarf_die_ref die);
int amddwarf__debug_die_has_active_lane(const amddwarf_object *object, amddwarf_die_ref die);
/* The expression of DIE's lane_pc (LANE_PC nonzero) or active_lane at PC. */
amddwarf_status amddwarf__debug_die_lane_expr_at(const amddwarf_object *object,
                                                amddwarf_die_ref die, int lane_pc, uint64_t pc,
                                                const uint8_t **bytes, size_t *size);

#endif
