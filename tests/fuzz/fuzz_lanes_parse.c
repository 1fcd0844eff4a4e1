/* Fuzz target: lane lists (amddwarf_lanes_parse, amddwarf_lanes_spell).
 *
 * Input layout: byte 0 picks the wave size (bit 0: 32 or 64); bytes 1-8 are
 * the active lanes; the rest is the text. A list that parses spells back to
 * text that parses to the same lanes; the mask of bytes 1-8 spells to text
 * that parses back to itself; an error names an offset inside the text or
 * none. Anything else aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/debug.h>

static uint64_t wave_lanes(uint32_t wave_size)
{
  return wave_size >= 64 ? UINT64_MAX : (UINT64_C(1) << wave_size) - 1;
}

/* MASK spelled and parsed back must be MASK. */
static void round_trip(const amddwarf_lanes *lanes, uint64_t mask)
{
  char spelled[256];
  uint64_t again = 0;
  size_t length = amddwarf_lanes_spell(mask, lanes->wave_size, spelled, sizeof spelled);
  if (length >= sizeof spelled || strlen(spelled) != length)
    abort();
  if (mask == 0) {
    if (length != 0)
      abort();
    return;
  }
  if (amddwarf_lanes_parse(lanes, spelled, &again, NULL) != AMDDWARF_OK || again != mask)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 9)
    return 0;
  static amddwarf_lanes lanes; /* large: not on the stack */
  memset(&lanes, 0, sizeof lanes);
  lanes.wave_size = data[0] & 1 ? 32 : 64;
  for (int i = 0; i < 8; i++)
    lanes.active_mask |= (uint64_t)data[1 + i] << (8 * i);
  char *text = malloc(size - 9 + 1);
  if (!text)
    return 0;
  memcpy(text, data + 9, size - 9);
  text[size - 9] = '\0';
  size_t text_length = strlen(text);

  uint64_t mask = 0;
  amddwarf_error err;
  amddwarf_status st = amddwarf_lanes_parse(&lanes, text, &mask, &err);
  if (st == AMDDWARF_OK) {
    if (mask == 0 || (mask & ~wave_lanes(lanes.wave_size)) != 0)
      abort();
    round_trip(&lanes, mask);
  } else if (st != AMDDWARF_E_INVALID_ARGUMENT ||
             (err.offset != AMDDWARF_NO_OFFSET && err.offset > text_length)) {
    abort();
  }
  round_trip(&lanes, lanes.active_mask & wave_lanes(lanes.wave_size));
  free(text);
  return 0;
}
