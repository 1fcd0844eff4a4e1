/* A wave's registers as a debugger's register list shows and edits them
 * (<amddwarf/debug.h>): found by name, read as hex text, assigned from an
 * integer's text through amddwarf_wave_write_register. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"
#include "debug/debug_internal.h"

amddwarf_status amddwarf_wave_register_find(const amddwarf_wave *wave, const char *name,
                                            amddwarf_wave_register *out)
{
  if (wave == NULL || name == NULL || out == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  size_t count = amddwarf_wave_register_count(wave);
  for (size_t i = 0; i < count; ++i)
    if (amddwarf_wave_register_get(wave, i, out) == AMDDWARF_OK && strcmp(out->name, name) == 0)
      return AMDDWARF_OK;
  return AMDDWARF_NOT_FOUND;
}

/* Byte offset of LANE's value in REG (AMDDWARF_NO_LANE: the focused lane). */
static uint64_t lane_offset(const amddwarf_wave *wave, const amddwarf_wave_register *reg,
                            uint32_t lane)
{
  if (!reg->per_lane)
    return 0;
  return (uint64_t)reg->size * (lane == AMDDWARF_NO_LANE ? amddwarf_wave_focus(wave) : lane);
}

amddwarf_status amddwarf_wave_register_text(amddwarf_wave *wave, size_t frame,
                                            const amddwarf_wave_register *reg, uint32_t lane,
                                            char *buf, size_t buf_size, amddwarf_error *err)
{
  uint8_t bytes[8];
  uint64_t v = 0;
  if (wave == NULL || reg == NULL || (buf == NULL && buf_size > 0) || reg->size > sizeof bytes)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_register_text: NULL argument or a register over 8 "
                         "bytes");
  amddwarf_status st = amddwarf_wave_read_register(wave, frame, reg->regno,
                                                   lane_offset(wave, reg, lane), reg->size,
                                                   bytes, err);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t b = reg->size; b-- > 0;)
    v = v << 8 | bytes[b];
  amddwarf_text t;
  amddwarf__text_init_fixed(&t, buf, buf_size);
  amddwarf__text_printf(&t, "0x%0*llx", (int)reg->size * 2, (unsigned long long)v);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_wave_register_assign(amddwarf_wave *wave, size_t frame,
                                              const amddwarf_wave_register *reg, uint32_t lane,
                                              const char *text, unsigned flags,
                                              amddwarf_error *err)
{
  uint8_t bytes[8];
  char *end = NULL;
  if (wave == NULL || reg == NULL || text == NULL || reg->size > sizeof bytes)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_register_assign: NULL argument or a register over 8 "
                         "bytes");
  errno = 0;
  unsigned long long v = strtoull(text, &end, 0);
  if (text[0] == '\0' || *end != '\0' || errno != 0 || text[strspn(text, " \t")] == '-' ||
      (reg->size < 8 && v >> (reg->size * 8) != 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "'%.64s' is not a %u-byte unsigned integer", text, reg->size);
  for (uint32_t b = 0; b < reg->size; ++b)
    bytes[b] = (uint8_t)(v >> (8 * b));
  return amddwarf_wave_write_register(wave, frame, reg->regno, lane_offset(wave, reg, lane),
                                      reg->size, bytes, flags, err);
}
