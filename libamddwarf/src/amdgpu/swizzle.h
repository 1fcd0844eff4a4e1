/* The private_wave view of scratch memory onto the lanes' private_lane
 * views, inline for the storage paths that move one dword at a time. */
#ifndef AMDDWARF_AMDGPU_SWIZZLE_H
#define AMDDWARF_AMDGPU_SWIZZLE_H

#include <stdint.h>

/* WAVE_ADDRESS in private_wave as a lane and an address in its
   private_lane space: a row of WAVE_SIZE (32 or 64) dwords holds one dword
   of each lane. The row size is a power of two: shifts, not a division. */
static inline void amddwarf__private_wave_swizzle(uint64_t wave_address, uint32_t wave_size,
                                                  uint32_t *lane, uint64_t *lane_address)
{
  unsigned row_shift = wave_size == 64 ? 8 : 7;
  uint64_t within = wave_address & ((UINT64_C(1) << row_shift) - 1);
  *lane = (uint32_t)(within / 4);
  *lane_address = (wave_address >> row_shift) * 4 + within % 4;
}

/* The inverse: LANE_ADDRESS of LANE's private_lane space as an address in
   private_wave, dword LANE of row LANE_ADDRESS / 4. Unchecked: the caller
   keeps it inside 64 bits (amddwarf_private_lane_to_wave checks). */
static inline uint64_t amddwarf__private_lane_swizzle(uint64_t lane_address, uint32_t lane,
                                                      uint32_t wave_size)
{
  unsigned row_shift = wave_size == 64 ? 8 : 7;
  return ((lane_address / 4) << row_shift) + (uint64_t)lane * 4 + lane_address % 4;
}

#endif
