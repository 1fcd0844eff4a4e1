/* Lane lists as a user writes and reads them (debug.h): "0-3,7", "all",
 * "active", and a mask spelled back in the same form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "debug/debug_internal.h"

static const char *skip_spaces(const char *p)
{
  while (*p == ' ')
    ++p;
  return p;
}

/* Whether the item at P is the word WORD, followed by the item's end. */
static int is_word(const char *p, const char *word, const char **end)
{
  size_t n = strlen(word);
  if (strncmp(p, word, n) != 0)
    return 0;
  const char *q = skip_spaces(p + n);
  if (*q != ',' && *q != '\0')
    return 0;
  *end = p + n;
  return 1;
}

/* A lane number at P (decimal digits only: no sign, no spaces inside). */
static int lane_number(const char *p, unsigned long *value, const char **end)
{
  if (*p < '0' || *p > '9')
    return 0;
  char *e = NULL;
  *value = strtoul(p, &e, 10);
  *end = e;
  return 1;
}

amddwarf_status amddwarf_lanes_parse(const amddwarf_lanes *lanes, const char *text,
                                     uint64_t *mask, amddwarf_error *err)
{
  if (lanes == NULL || text == NULL || mask == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_lanes_parse: NULL argument");
  uint32_t wave = lanes->wave_size;
  const char *p = skip_spaces(text);
  *mask = 0;
  for (;;) {
    const char *item = p, *end = NULL;
    uint64_t offset = (uint64_t)(item - text);
    unsigned long lo = 0, hi = 0;
    if (is_word(p, "all", &end)) {
      *mask |= amddwarf__debug_all_lanes(wave);
    } else if (is_word(p, "active", &end)) {
      *mask |= lanes->active_mask & amddwarf__debug_all_lanes(wave);
    } else if (lane_number(p, &lo, &end)) {
      hi = lo;
      if (*end == '-' && !lane_number(end + 1, &hi, &end))
        return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset,
                             "lane list '%s': '%.*s' is not a range like 5-7", text,
                             (int)strcspn(item, ","), item);
      if (hi >= wave)
        return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset,
                             "lane list '%s': lane %lu is not below the wave size %u", text, hi,
                             wave);
      if (lo > hi)
        return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset,
                             "lane list '%s': range %lu-%lu is backwards", text, lo, hi);
      for (unsigned long l = lo; l <= hi; ++l)
        *mask |= UINT64_C(1) << l;
    } else {
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset,
                           "lane list '%s': '%.*s' is not a lane, a range like 5-7, all or "
                           "active",
                           text, (int)strcspn(item, ","), item);
    }
    p = skip_spaces(end);
    if (*p == '\0')
      break;
    if (*p != ',')
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, (uint64_t)(p - text),
                           "lane list '%s': expected ',' after '%.*s'", text,
                           (int)(p - item), item);
    p = skip_spaces(p + 1);
  }
  if (*mask == 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane list '%s' names no lane (no lane is active)", text);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_wave_lanes_parse(amddwarf_wave *wave, const char *text, uint64_t *mask,
                                          amddwarf_error *err)
{
  const amddwarf_lanes *lanes = NULL;
  amddwarf_status st = amddwarf_wave_lanes(wave, &lanes, err);
  return st != AMDDWARF_OK ? st : amddwarf_lanes_parse(lanes, text, mask, err);
}

size_t amddwarf_lanes_spell(uint64_t mask, uint32_t wave_size, char *buf, size_t buf_size)
{
  /* 64 lanes spell in at most 32 items of "NN," : the whole list fits. */
  char list[AMDDWARF_MAX_LANES * 4];
  size_t length = 0;
  if (wave_size > AMDDWARF_MAX_LANES)
    wave_size = AMDDWARF_MAX_LANES;
  for (uint32_t m = 0; m < wave_size; ++m) {
    if (!(mask >> m & 1) || (m > 0 && (mask >> (m - 1) & 1)))
      continue;
    uint32_t e = m;
    while (e + 1 < wave_size && (mask >> (e + 1) & 1))
      ++e;
    const char *comma = length ? "," : "";
    int n = e == m ? snprintf(list + length, sizeof list - length, "%s%u", comma, m)
                   : snprintf(list + length, sizeof list - length, "%s%u-%u", comma, m, e);
    length += (size_t)n;
  }
  list[length] = '\0';
  if (buf_size > 0) {
    size_t n = length < buf_size - 1 ? length : buf_size - 1;
    memcpy(buf, list, n);
    buf[n] = '\0';
  }
  return length;
}
