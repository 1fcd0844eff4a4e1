/* The one-lane answer for the whole-wave evaluator's checks (one_lane.h). */
#include "one_lane.h"

#include <string.h>

amddwarf_status one_lane_read(amddwarf_eval *ev, amddwarf_eval_request *request, uint32_t lane,
                              const uint8_t *bytes, size_t size, uint64_t bit_offset,
                              uint64_t bit_size, uint8_t *expected, size_t expected_size)
{
  amddwarf_entry result;
  request->lane = lane;
  memset(expected, 0, expected_size);
  amddwarf_status st = amddwarf_eval_expr(ev, request, bytes, size, &result, NULL);
  if (st == AMDDWARF_OK)
    st = amddwarf_location_read(ev, request, &result.location, bit_offset, bit_size, expected,
                                NULL);
  if (st != AMDDWARF_OK)
    memset(expected, 0, expected_size);
  return st;
}
