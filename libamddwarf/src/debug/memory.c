/* Memory of a wave by address space and lane (debug.h,
 * amddwarf_wave_read_memory and amddwarf_wave_write_memory): the address
 * mapped as the evaluator maps a location's (private_lane<N> to
 * private_lane of lane N, a generic address through the target's
 * apertures), lanes checked against the wave, and writes to an inactive
 * lane's memory refused unless asked for. Messages name the space as given
 * and, for a generic address, where the apertures put it; they speak of the
 * target, whatever backend stands behind it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "debug/debug_internal.h"
#include "debug/format.h"

/* Where a request lands: the space and lane the target is asked for, and
   the request's own words for messages. */
typedef struct memory_place {
  uint32_t aspace, lane;
  uint64_t address;
  char where[160];               /* "generic 0x1000 = private_lane memory of lane 3 at 0x0" */
} memory_place;

static void describe(memory_place *p, uint64_t given_address, int mapped)
{
  char label[32], generic[48] = "", of_lane[24] = "";
  if (mapped)
    snprintf(generic, sizeof generic, "generic 0x%llx = ", (unsigned long long)given_address);
  if (p->lane != AMDDWARF_NO_LANE)
    snprintf(of_lane, sizeof of_lane, " of lane %u", p->lane);
  snprintf(p->where, sizeof p->where, "%s%s memory%s at 0x%llx", generic,
           amddwarf__debug_aspace_label(p->aspace, label, sizeof label), of_lane,
           (unsigned long long)p->address);
}

/* Maps (ASPACE, LANE, ADDRESS) as the evaluator maps a memory location. */
static amddwarf_status place(amddwarf_wave *wave, uint32_t aspace, uint32_t lane,
                             uint64_t address, memory_place *out, amddwarf_error *err)
{
  int mapped = 0; /* a generic address the apertures mapped */
  amddwarf_aspace_info info;
  char label[32];
  uint32_t wave_size = wave->info.wave_size;
  if (amddwarf_aspace_info_get(aspace, &info) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "address space %u is not an AMDGPU address space", aspace);
  out->aspace = aspace;
  out->lane = AMDDWARF_NO_LANE;
  out->address = address;
  if (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
      aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63) {
    uint32_t named = aspace - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
    if (lane != AMDDWARF_NO_LANE && lane != named)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "%s names lane %u, not lane %u",
                           amddwarf__debug_aspace_label(aspace, label, sizeof label), named,
                           lane);
    out->aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
    lane = named;
  } else if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC && wave->raw.apertures != NULL) {
    /* E_UNSUPPORTED: the target has no apertures, and reads generic itself. */
    uint64_t shared = 0, private_ = 0;
    amddwarf_status st = wave->raw.apertures(wave->raw.user, &shared, &private_);
    if (st != AMDDWARF_OK && st != AMDDWARF_E_UNSUPPORTED)
      return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                           "generic 0x%llx: the target does not give the apertures (%s)",
                           (unsigned long long)address, amddwarf_status_name(st));
    if (st == AMDDWARF_OK) {
      amddwarf_generic_to_segment(address, shared, private_, &out->aspace, &out->address);
      mapped = 1;
    }
  } else if (!info.per_lane && lane != AMDDWARF_NO_LANE) {
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s memory has no lanes: give AMDDWARF_NO_LANE",
                         amddwarf__debug_aspace_label(aspace, label, sizeof label));
  }
  if (out->aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE) {
    out->lane = lane != AMDDWARF_NO_LANE ? lane : wave->focus;
    if (out->lane >= wave_size)
      return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_LANE, AMDDWARF_NO_OFFSET,
                           "lane %u is not a lane of the wave (0-%u)", out->lane,
                           wave_size - 1);
  }
  describe(out, address, mapped);
  return AMDDWARF_OK;
}

static amddwarf_status read_at(amddwarf_wave *wave, const memory_place *p, uint64_t offset,
                               uint64_t size, uint8_t *buf)
{
  if (p->address + offset < p->address)
    return AMDDWARF_E_EVAL_UNAVAILABLE; /* past the end of the space */
  return wave->raw.read_memory(wave->raw.user, p->aspace, p->lane, p->address + offset, size,
                               buf);
}

amddwarf_status amddwarf_wave_read_memory(amddwarf_wave *wave, uint32_t aspace, uint32_t lane,
                                          uint64_t address, uint64_t size, void *buf,
                                          uint64_t *readable, amddwarf_error *err)
{
  memory_place p;
  if (readable != NULL)
    *readable = 0;
  if (wave == NULL || (buf == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_read_memory: NULL argument");
  amddwarf_status st = place(wave, aspace, lane, address, &p, err);
  if (st != AMDDWARF_OK)
    return st;
  if (wave->raw.read_memory == NULL)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "%s: the target has no read_memory callback", p.where);
  if (size == 0 || (st = read_at(wave, &p, 0, size, buf)) == AMDDWARF_OK) {
    if (readable != NULL)
      *readable = size;
    return AMDDWARF_OK;
  }
  /* The readable prefix, by halving: a read of the first K bytes succeeds
     for every K up to the prefix's length. */
  uint64_t low = 0, high = size; /* low readable, high not */
  while (high - low > 1) {
    uint64_t mid = low + (high - low) / 2;
    if (read_at(wave, &p, 0, mid, buf) == AMDDWARF_OK)
      low = mid;
    else
      high = mid;
  }
  if (low > 0)
    read_at(wave, &p, 0, low, buf);
  if (readable != NULL)
    *readable = low;
  return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                       "%s: the target reads %llu of %llu bytes (%s)", p.where,
                       (unsigned long long)low, (unsigned long long)size,
                       amddwarf_status_name(st));
}

/* The lanes whose memory a write of SIZE bytes at P touches: P's lane, or
   for private_wave the lanes its swizzled dwords belong to. */
static uint64_t lanes_touched(const amddwarf_wave *wave, const memory_place *p, uint64_t size)
{
  uint32_t wave_size = wave->info.wave_size;
  if (p->lane != AMDDWARF_NO_LANE)
    return UINT64_C(1) << p->lane;
  if (p->aspace != AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE || size == 0)
    return 0;
  uint64_t lanes = 0;
  uint64_t first = p->address / 4, last = (p->address + size - 1) / 4;
  for (uint64_t dword = first; dword <= last && dword - first < wave_size; ++dword) {
    uint32_t lane = 0;
    uint64_t lane_address = 0;
    if (amddwarf_private_wave_to_lane(dword * 4, wave_size, &lane, &lane_address) == AMDDWARF_OK)
      lanes |= UINT64_C(1) << lane;
  }
  return lanes;
}

amddwarf_status amddwarf_wave_write_memory(amddwarf_wave *wave, uint32_t aspace, uint32_t lane,
                                           uint64_t address, uint64_t size, const void *buf,
                                           unsigned flags, amddwarf_error *err)
{
  memory_place p;
  if (wave == NULL || (buf == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_write_memory: NULL argument");
  amddwarf_status st = place(wave, aspace, lane, address, &p, err);
  if (st != AMDDWARF_OK)
    return st;
  if (wave->raw.write_memory == NULL)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "%s: the target has no write_memory callback", p.where);
  uint64_t touched = lanes_touched(wave, &p, size);
  if (touched != 0 && !(flags & AMDDWARF_ASSIGN_INACTIVE)) {
    const amddwarf_lanes *lanes = NULL;
    if ((st = amddwarf_wave_lanes(wave, &lanes, err)) != AMDDWARF_OK)
      return st;
    uint64_t inactive = touched & ~lanes->active_mask;
    if (inactive != 0) {
      char spelled[256];
      amddwarf_lanes_spell(inactive, wave->info.wave_size, spelled, sizeof spelled);
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "%s: the memory of inactive lane%s %s; writing inactive lanes "
                           "must be asked for explicitly",
                           p.where, (inactive & (inactive - 1)) ? "s" : "", spelled);
    }
  }
  if (size > 0 && p.address + (size - 1) < p.address)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s: %llu bytes run past the end of the address space", p.where,
                         (unsigned long long)size);
  if (size == 0)
    return AMDDWARF_OK;
  st = wave->raw.write_memory(wave->raw.user, p.aspace, p.lane, p.address, size, buf);
  /* Lane PCs, active lanes and saved registers may be read from memory. */
  amddwarf__debug_wave_written(wave);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "%s: the target cannot write %llu bytes (%s)",
                         p.where, (unsigned long long)size, amddwarf_status_name(st));
  return AMDDWARF_OK;
}

/* A number as amddwarf_memory_ref_parse reads it: decimal or 0x hex, no sign. */
static int parse_number(const char *text, size_t length, uint64_t *out)
{
  char copy[32];
  char *end = NULL;
  if (length == 0 || length >= sizeof copy || text[0] == '-' || text[0] == '+')
    return -1;
  memcpy(copy, text, length);
  copy[length] = '\0';
  errno = 0;
  *out = strtoull(copy, &end, 0);
  return *end != '\0' || errno != 0 ? -1 : 0;
}

amddwarf_status amddwarf_memory_ref_parse(const char *text, uint32_t *aspace, uint32_t *lane,
                                          uint64_t *address, amddwarf_error *err)
{
  const char *parts[3] = {text, NULL, NULL};
  size_t lengths[3] = {0}, n = 1;
  char space[40];
  uint32_t value = AMDDWARF_ASPACE_NONE;
  uint64_t number = 0;
  amddwarf_aspace_info info;
  if (text == NULL || aspace == NULL || lane == NULL || address == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_memory_ref_parse: NULL argument");
  for (const char *p = text, *colon; (colon = strchr(p, ':')) != NULL; p = colon + 1) {
    if (n == 3)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "more than three parts: use SPACE:LANE:ADDRESS, SPACE:ADDRESS or "
                           "ADDRESS");
    lengths[n - 1] = (size_t)(colon - parts[n - 1]);
    parts[n++] = colon + 1;
  }
  lengths[n - 1] = strlen(parts[n - 1]);
  if (parse_number(parts[n - 1], lengths[n - 1], address) != 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "'%.*s' is not an address", (int)(lengths[n - 1] % 200), parts[n - 1]);
  snprintf(space, sizeof space, "%.*s", n > 1 ? (int)(lengths[0] % 40) : 0, text);
  if (n > 1 && (amddwarf_aspace_lookup(space, &value) != AMDDWARF_OK ||
                amddwarf_aspace_info_get(value, &info) != AMDDWARF_OK))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no address space '%s' (global, generic, region, local, private_lane, "
                         "private_wave, private_lane<N>)", space);
  if (n == 1)
    snprintf(space, sizeof space, "global");
  *aspace = value;
  *lane = AMDDWARF_NO_LANE;
  int named = value >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
              value <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63;
  int per_lane = n > 1 && info.per_lane && !named;
  if (named && n == 3)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s names its lane already", space);
  if (per_lane && n != 3)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s memory needs a lane: %s:LANE:ADDRESS", space, space);
  if (!per_lane && !named && n == 3)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s memory has no lanes: %s:ADDRESS", space, space);
  if (per_lane && (parse_number(parts[1], lengths[1], &number) != 0 || number >= UINT32_MAX))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane '%.*s' is not a lane number", (int)(lengths[1] % 200), parts[1]);
  if (per_lane)
    *lane = (uint32_t)number;
  return AMDDWARF_OK;
}
