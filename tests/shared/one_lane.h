/* The answer the whole-wave evaluator (amddwarf_eval_read_lanes) must give
 * for each lane: the lane's location evaluated on its own, then read. Shared
 * by the unit test and the fuzz target that compare the two. */
#ifndef AMDDWARF_TESTS_ONE_LANE_H
#define AMDDWARF_TESTS_ONE_LANE_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/eval.h>

/* Evaluates BYTES for lane LANE of REQUEST (its lane is changed) with EV,
   then reads BIT_SIZE bits at BIT_OFFSET of the location into EXPECTED,
   SIZE bytes cleared first; they stay zero when the status is not OK. */
amddwarf_status one_lane_read(amddwarf_eval *ev, amddwarf_eval_request *request, uint32_t lane,
                              const uint8_t *bytes, size_t size, uint64_t bit_offset,
                              uint64_t bit_size, uint8_t *expected, size_t expected_size);

#endif
