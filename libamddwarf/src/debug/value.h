/* Internals of values (amddwarf_valobj of <amddwarf/debug.h>): the value
 * object, what one lane's read keeps, and the per-lane walk from the
 * variable's location along the plan that reads (value_read.c) and writes
 * (assign.c) share. */
#ifndef AMDDWARF_DEBUG_VALUE_H
#define AMDDWARF_DEBUG_VALUE_H

#include "debug/debug_internal.h"
#include "debug/format.h"
#include "debug/plan.h"

/* One lane's read: the state and texts amddwarf_lane_value points to. */
typedef struct amddwarf_debug_lane_read {
  uint32_t lane;
  amddwarf_lane_state state;
  amddwarf_status status;
  int detailed;              /* MESSAGE says more than the state alone */
  int inactive;              /* read for an inactive lane that stands at the PC */
  amddwarf_unavailable reason; /* why the lane has no value (NONE for a value) */
  int bytes_only;            /* set by the caller: TEXT and EXPLAIN stay empty */
  amddwarf_text text, message, explain;
  uint8_t *bytes;            /* CAPACITY bytes: the value, */
  uint8_t *valid;            /* and which of its bits are known */
  size_t capacity;
  size_t size;               /* bytes of the value in BYTES */
} amddwarf_debug_lane_read;

/* What making a value of a variable's name alone reads of the object: its
   DIE's fields, the plan, and what the value says of itself. It is the same
   for every wave at the variable's scope, and kept with the object
   (amddwarf__debug_var_answer_keep). */
struct amddwarf_debug_var_answer {
  amddwarf_die_fields fields;
  amddwarf_debug_plan plan;
  amddwarf_value_kind kind;
  size_t named_children, indexed_children;
  int assignable;
  amddwarf_quirk quirk;
};

struct amddwarf_valobj {
  amddwarf_wave *wave;
  amddwarf_debug_frame *frame;
  size_t frame_index;
  const amddwarf_object *object; /* the frame's object, holding the variable */
  const amddwarf_cu *cu;         /* the variable's unit */
  const amddwarf_frame_var *var;
  /* The variable's DIE, read through its reference (its type, constant). */
  amddwarf_die_fields die;
  amddwarf_valobj_info info;
  amddwarf_text location_text;
  uint8_t const_bytes[16];       /* a DW_AT_const_value constant as implicit bytes */
  /* The wave's lanes (amddwarf_wave_lanes), read when the value is made:
     a lane outside its active mask is inactive, read only when its lane PC
     is the wave's PC (READABLE_MASK). NULL when they could not be
     computed: EXEC decides. */
  const amddwarf_lanes *lanes;
  uint64_t active_mask;
  uint64_t readable_mask;
  /* The named children (struct members as paths reach them); NULL otherwise. */
  amddwarf_die_ref *members;
  size_t member_count, member_capacity;
  /* Reads: one per group of amddwarf_valobj_read_lanes, allocated on first use. */
  amddwarf_debug_lane_read *reads;
  size_t read_count;
  uint8_t *scratch;              /* one composite part's bits */
  size_t scratch_size;
  /* The large parts, last: a new value zeroes only what comes before PATH
     (PATH is copied, PLAN built and PATH_TEXT spelled whole). */
  amddwarf_debug_path path;
  amddwarf_debug_plan plan;
  char path_text[AMDDWARF_DEBUG_PATH_TEXT_SIZE];
};

/* Where VALUE's bits are for lane R->lane: the variable's location walked
   along the plan up to its read (or to the '&' of an address): OK with
   *LOC, *BIT (past LOC's own offset) and *LAST_LOAD (the last pointer
   followed, or NULL), else R holds the failure (and the explanation so
   far). A composite *LOC points into the wave's evaluator (valid until its
   next evaluation); an implicit location of a constant into VALUE. */
amddwarf_status amddwarf__debug_value_locate(amddwarf_valobj *value, amddwarf_location *loc,
                                            uint64_t *bit,
                                            const amddwarf_debug_step **last_load,
                                            amddwarf_debug_lane_read *r);

/* Reads LANE into R (its texts emptied first). */
void amddwarf__debug_value_read(amddwarf_valobj *value, uint32_t lane,
                               amddwarf_debug_lane_read *r);

/* Makes COUNT read slots in VALUE->reads (1 for a read, one per lane for a
   read of lanes), keeping those there are (valobj.c). E_NO_MEMORY. */
amddwarf_status amddwarf__debug_value_reads(amddwarf_valobj *value, size_t count,
                                           amddwarf_error *err);

/* amddwarf_valobj_read_bytes: each lane of LANES read without text, its
   BYTE_SIZE bytes copied to BYTES + lane * STRIDE (zeros for a lane that is
   not a value), its state to STATES[lane] (STATES may be NULL). A lane the
   evaluation and the read give whole needs no read slot; another lane is
   read into VALUE->reads[0] (made on first need: E_NO_MEMORY). */
amddwarf_status amddwarf__debug_value_read_bytes(amddwarf_valobj *value, uint64_t lanes,
                                                uint8_t *bytes, size_t stride,
                                                amddwarf_lane_state *states,
                                                amddwarf_error *err);

/* The lanes of LANES whose value is a plain location read whole (no
   constant, pointer, address or bitfield, and every bit read):
   amddwarf_eval_read_lanes evaluates and reads them together, their bytes
   at BYTES + lane * STRIDE. 0 for a value that is not plain. */
uint64_t amddwarf__debug_value_read_whole(amddwarf_valobj *value, uint64_t lanes, uint8_t *bytes,
                                         size_t stride);

/* R as the read of LANE gives it when its BYTES were read whole: the value,
   its text, no explanation. */
void amddwarf__debug_value_from_bytes(amddwarf_valobj *value, uint32_t lane, const uint8_t *bytes,
                                     amddwarf_debug_lane_read *r);

/* amddwarf_valobj_read of LANE (checked by the caller), made from
   WHOLE_BYTES when amddwarf__debug_value_read_whole read the lane whole:
   the same value and text, without the explanation. */
amddwarf_status amddwarf__valobj_read_lane(amddwarf_valobj *value, uint32_t lane,
                                          const uint8_t *whole_bytes, amddwarf_lane_value *out,
                                          amddwarf_error *err);

/* Marks R failed with STATUS and ERR's message (else the status's). */
void amddwarf__debug_lane_fail(amddwarf_debug_lane_read *r, amddwarf_status status,
                              const amddwarf_error *err);

/* Where BITS bits at BIT past LOC's own offset come from, appended to OUT
   ("private_lane memory of lane 1 at 0xb8, 8 bytes"). */
void amddwarf__debug_explain_bits(amddwarf_text *out, const amddwarf_location *loc,
                                 uint64_t bit, uint64_t bits,
                                 const amddwarf_eval_request *request);

#endif
