/* AMDGPU address spaces, address classes, the private swizzle, flat-address
 * conversion and the processor table, from aspaces.def, address_classes.def
 * and isa.def. */
#include <amddwarf/target.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu/swizzle.h"
#include "common/checked.h"

typedef struct aspace_row {
  uint32_t value;
  const char *name;
  const char *short_name;
  uint8_t bytes64;
  uint8_t bytes32;
  uint8_t per_lane;
} aspace_row;

static const aspace_row aspace_rows[] = {
#define AMDDWARF_ASPACE(value, name, short_name, b64, b32, per_lane) \
  {value, name, short_name, b64, b32, per_lane},
#include "amdgpu/aspaces.def"
#undef AMDDWARF_ASPACE
};
enum { ASPACE_ROW_COUNT = sizeof aspace_rows / sizeof aspace_rows[0] };

static const amddwarf_address_class_info class_rows[] = {
#define AMDDWARF_ADDRESS_CLASS(value, name, aspace) {value, name, aspace},
#include "amdgpu/address_classes.def"
#undef AMDDWARF_ADDRESS_CLASS
};

static const amddwarf_isa_info isa_rows[] = {
#define AMDDWARF_ISA(mach, name, major, wave, w32, w64, agprs, xnack, sramecc) \
  {mach, name, major, wave, w32, w64, agprs},
#include "amdgpu/isa.def"
#undef AMDDWARF_ISA
};

static const aspace_row *aspace_row_of(uint32_t value)
{
  if (value >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
      value <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63)
    value = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
  for (size_t i = 0; i < ASPACE_ROW_COUNT; i++)
    if (aspace_rows[i].value == value)
      return &aspace_rows[i];
  return NULL;
}

amddwarf_status amddwarf_aspace_info_get(uint32_t value, amddwarf_aspace_info *out)
{
  const aspace_row *row = aspace_row_of(value);
  if (!row)
    return AMDDWARF_NOT_FOUND;
  out->value = value;
  out->name = row->name;
  out->short_name = row->short_name;
  out->address_size_64 = row->bytes64;
  out->address_size_32 = row->bytes32;
  out->per_lane = row->per_lane;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_aspace_name(uint32_t value, char *buf, size_t size)
{
  const aspace_row *row = aspace_row_of(value);
  int n;
  if (!row)
    n = snprintf(buf, size, "aspace%u", (unsigned)value);
  else if (value >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0)
    n = snprintf(buf, size, "private_lane%u",
                 (unsigned)(value - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0));
  else
    n = snprintf(buf, size, "%s", row->short_name);
  if (n < 0 || (size_t)n >= size)
    return AMDDWARF_E_NO_SPACE;
  return row ? AMDDWARF_OK : AMDDWARF_NOT_FOUND;
}

static int equal_nocase(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return 0;
  return *a == *b;
}

amddwarf_status amddwarf_aspace_lookup(const char *name, uint32_t *value)
{
  if (!name)
    return AMDDWARF_NOT_FOUND;
  if (equal_nocase(name, "none") || equal_nocase(name, "DW_ASPACE_none")) {
    *value = AMDDWARF_ASPACE_NONE;
    return AMDDWARF_OK;
  }
  const char *tail = name;
  if (strncmp(name, "DW_ASPACE_AMDGPU_", 17) == 0)
    tail = name + 17;
  if (strncmp(tail, "private_lane", 12) == 0 && tail[12] != '\0') {
    unsigned lane = 0;
    const char *p = tail + 12;
    for (; *p; p++) {
      if (!isdigit((unsigned char)*p) || lane > 63)
        return AMDDWARF_NOT_FOUND;
      lane = lane * 10 + (unsigned)(*p - '0');
    }
    if (lane > 63)
      return AMDDWARF_NOT_FOUND;
    *value = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 + lane;
    return AMDDWARF_OK;
  }
  for (size_t i = 0; i + 1 < ASPACE_ROW_COUNT; i++)
    if (equal_nocase(name, aspace_rows[i].name) || equal_nocase(tail, aspace_rows[i].short_name)) {
      *value = aspace_rows[i].value;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_aspace_from_xderef(amddwarf_xderef_numbering numbering, uint64_t as,
                                            uint32_t *value)
{
  if (numbering == AMDDWARF_XDEREF_LEGACY) {
    /* Upstream clang's DW_OP_xderef numbering (DESIGN.md section 6):
       1 = private (the lane's), 2 = local; 0 is taken as the default space. */
    static const uint32_t legacy[] = {AMDDWARF_ASPACE_NONE, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE,
                                      AMDDWARF_ASPACE_AMDGPU_LOCAL};
    if (as >= sizeof legacy / sizeof legacy[0])
      return AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE;
    *value = legacy[as];
    return AMDDWARF_OK;
  }
  if (as > UINT32_MAX || !aspace_row_of((uint32_t)as))
    return AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE;
  *value = (uint32_t)as;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_private_lane_to_wave(uint64_t lane_address, uint32_t lane,
                                              uint32_t wave_size, uint64_t *wave_address)
{
  uint64_t row, address;
  if ((wave_size != 32 && wave_size != 64))
    return AMDDWARF_E_AMDGPU_BAD_WAVE_SIZE;
  if (lane >= wave_size)
    return AMDDWARF_E_AMDGPU_BAD_LANE;
  if (amddwarf_mul_overflow_u64(lane_address / 4, (uint64_t)wave_size * 4, &row) ||
      amddwarf_add_overflow_u64(row, (uint64_t)lane * 4 + lane_address % 4, &address))
    return AMDDWARF_E_OVERFLOW;
  *wave_address = amddwarf__private_lane_swizzle(lane_address, lane, wave_size);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_private_wave_to_lane(uint64_t wave_address, uint32_t wave_size,
                                              uint32_t *lane, uint64_t *lane_address)
{
  if (wave_size != 32 && wave_size != 64)
    return AMDDWARF_E_AMDGPU_BAD_WAVE_SIZE;
  amddwarf__private_wave_swizzle(wave_address, wave_size, lane, lane_address);
  return AMDDWARF_OK;
}

void amddwarf_generic_to_segment(uint64_t address, uint64_t shared_base, uint64_t private_base,
                                 uint32_t *aspace, uint64_t *segment_address)
{
  const uint64_t window = UINT64_C(0xffffffff00000000);
  if (shared_base && (address & window) == (shared_base & window)) {
    *aspace = AMDDWARF_ASPACE_AMDGPU_LOCAL;
    *segment_address = address - (shared_base & window);
  } else if (private_base && (address & window) == (private_base & window)) {
    *aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
    *segment_address = address - (private_base & window);
  } else {
    *aspace = AMDDWARF_ASPACE_NONE;
    *segment_address = address;
  }
}

amddwarf_status amddwarf_address_class_info_get(uint32_t value, amddwarf_address_class_info *out)
{
  for (size_t i = 0; i < sizeof class_rows / sizeof class_rows[0]; i++)
    if (class_rows[i].value == value) {
      *out = class_rows[i];
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_isa_info_by_mach(uint32_t mach, amddwarf_isa_info *out)
{
  mach &= 0xffu;
  for (size_t i = 0; i < sizeof isa_rows / sizeof isa_rows[0]; i++)
    if (isa_rows[i].mach == mach) {
      *out = isa_rows[i];
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_isa_info_by_name(const char *name, amddwarf_isa_info *out)
{
  if (!name)
    return AMDDWARF_NOT_FOUND;
  for (size_t i = 0; i < sizeof isa_rows / sizeof isa_rows[0]; i++)
    if (equal_nocase(isa_rows[i].name, name)) {
      *out = isa_rows[i];
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}
