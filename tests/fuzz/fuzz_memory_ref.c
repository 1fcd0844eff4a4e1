/* Fuzz target: address-space-qualified addresses (amddwarf_memory_ref_parse).
 *
 * The input is the text. A reference that parses names a known address
 * space; a lane only with a per-lane space named without its lane; spelled
 * back ("SPACE:[LANE:]0xADDRESS") it parses to the same answer. An error
 * says something. Anything else aborts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/debug.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  uint32_t aspace = 0, lane = 0, aspace2 = 0, lane2 = 0;
  uint64_t address = 0, address2 = 0;
  amddwarf_aspace_info info;
  amddwarf_error err;
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  amddwarf_status st = amddwarf_memory_ref_parse(text, &aspace, &lane, &address, &err);
  if (st != AMDDWARF_OK && (st != AMDDWARF_E_INVALID_ARGUMENT || err.message[0] == '\0'))
    abort();
  if (st == AMDDWARF_OK) {
    char name[32], again[96], lane_part[16] = "";
    if (amddwarf_aspace_info_get(aspace, &info) != AMDDWARF_OK ||
        amddwarf_aspace_name(aspace, name, sizeof name) != AMDDWARF_OK)
      abort();
    if (lane != AMDDWARF_NO_LANE &&
        !(info.per_lane && aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE))
      abort();
    if (lane != AMDDWARF_NO_LANE)
      snprintf(lane_part, sizeof lane_part, "%u:", lane);
    snprintf(again, sizeof again, "%s:%s0x%" PRIx64, name, lane_part, address);
    if (amddwarf_memory_ref_parse(again, &aspace2, &lane2, &address2, &err) != AMDDWARF_OK ||
        aspace2 != aspace || lane2 != lane || address2 != address)
      abort();
  }
  free(text);
  return 0;
}
