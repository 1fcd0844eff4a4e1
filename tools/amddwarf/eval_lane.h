/* One lane of `amddwarf eval`: evaluates a variable's location, walks a
 * plan's steps over it (members, indexes, pointers), reads and prints the
 * value, and explains which bits came from where. */
#ifndef AMDDWARF_EVAL_LANE_H
#define AMDDWARF_EVAL_LANE_H

#include "eval_print.h"
#include "eval_type.h"
#include "object_cli.h"

typedef struct eval_lane_result {
  amddwarf_status status;
  char message[512]; /* why, when STATUS is not OK */
  int show_message;  /* MESSAGE says more than <unavailable> alone */
  cli_buf text;      /* the value */
  cli_buf explain;   /* where its bits came from */
} eval_lane_result;

/* What every lane shares. */
typedef struct eval_lane_input {
  const amddwarf_object *object;
  const amddwarf_var *var;
  const eval_path *path;
  const eval_plan *plan;
  amddwarf_eval *ev;
  const amddwarf_eval_request *request; /* lane set by the caller */
} eval_lane_input;

/* Evaluates for request->lane into *R (zeroed by the caller; free its
   buffers with eval_lane_result_free). */
void eval_lane_run(const eval_lane_input *in, eval_lane_result *r);

void eval_lane_result_free(eval_lane_result *r);

#endif
