/* The AMDGPU DWARF register map, from regs.def. */
#include <amddwarf/amdgpu.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct register_range {
  uint32_t first;
  uint32_t count;
  const char *name;
  const char *asm_name;
  const char *llvm_name;
  uint32_t first_index;
  uint32_t lane_bits;
  uint32_t lanes;
  uint32_t wave;
  amddwarf_register_kind kind;
} register_range;

static const register_range register_ranges[] = {
#define AMDDWARF_REGS(first, count, name, asm_name, llvm_name, first_index, lane_bits, lanes, \
                      wave, kind)                                                            \
  {first, count, name, asm_name, llvm_name, first_index, lane_bits, lanes, wave,              \
   AMDDWARF_REGISTER_KIND_##kind},
#include "amdgpu/regs.def"
#undef AMDDWARF_REGS
};

enum { REGISTER_RANGE_COUNT = sizeof register_ranges / sizeof register_ranges[0] };

static const register_range *range_of(uint32_t dwarf)
{
  for (size_t i = 0; i < REGISTER_RANGE_COUNT; i++) {
    const register_range *range = &register_ranges[i];
    if (dwarf >= range->first && dwarf - range->first < range->count)
      return range;
  }
  return NULL;
}

amddwarf_status amddwarf_amdgpu_register_info(uint32_t dwarf, amddwarf_amdgpu_register *out)
{
  const register_range *range = range_of(dwarf);
  if (!range)
    return AMDDWARF_NOT_FOUND;
  out->dwarf = dwarf;
  out->kind = range->name;
  out->asm_kind = range->asm_name;
  out->index = range->first_index + (dwarf - range->first);
  out->lane_bits = range->lane_bits;
  out->lanes = range->lanes;
  out->bit_size = range->lane_bits * (range->lanes ? range->lanes : 1);
  out->wave_size = range->wave;
  out->kind_id = range->kind;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_amdgpu_register_name(uint32_t dwarf, amddwarf_register_style style,
                                              char *buf, size_t size)
{
  const register_range *range = range_of(dwarf);
  int n;
  if (!range)
    n = snprintf(buf, size, "reg%u", (unsigned)dwarf);
  else {
    const char *base = style == AMDDWARF_REGISTER_ASM_NAME ? range->asm_name
                       : style == AMDDWARF_REGISTER_LLVM_NAME && range->llvm_name != NULL
                           ? range->llvm_name
                           : range->name;
    if (range->count == 1)
      n = snprintf(buf, size, "%s", base);
    else
      n = snprintf(buf, size, "%s%u", base,
                   (unsigned)(range->first_index + (dwarf - range->first)));
  }
  if (n < 0 || (size_t)n >= size)
    return AMDDWARF_E_NO_SPACE;
  return range ? AMDDWARF_OK : AMDDWARF_NOT_FOUND;
}

/* Case-insensitive prefix match; returns the rest of NAME after PREFIX or NULL. */
static const char *after_prefix(const char *name, const char *prefix)
{
  for (; *prefix; prefix++, name++)
    if (tolower((unsigned char)*name) != tolower((unsigned char)*prefix))
      return NULL;
  return name;
}

static int parse_index(const char *text, uint32_t *out)
{
  if (!isdigit((unsigned char)text[0]) || (text[0] == '0' && text[1] != '\0'))
    return -1;
  uint32_t value = 0;
  for (; *text; text++) {
    if (!isdigit((unsigned char)*text) || value > 100000)
      return -1;
    value = value * 10 + (uint32_t)(*text - '0');
  }
  *out = value;
  return 0;
}

static int wave_matches(const register_range *range, unsigned wave_size)
{
  return range->wave == 0 || range->wave == wave_size;
}

amddwarf_status amddwarf_amdgpu_register_lookup(const char *name, unsigned wave_size,
                                                uint32_t *dwarf)
{
  /* Exact single-register names first: "pc" must mean PC_64 in a 64-bit
     process, and "exec" the mask of the current wave mode. */
  if (after_prefix(name, "pc") && *after_prefix(name, "pc") == '\0') {
    *dwarf = 16;
    return AMDDWARF_OK;
  }
  if (after_prefix(name, "exec") && *after_prefix(name, "exec") == '\0') {
    *dwarf = wave_size == 32 ? 1 : 17;
    return AMDDWARF_OK;
  }
  for (size_t i = 0; i < REGISTER_RANGE_COUNT; i++) {
    const register_range *range = &register_ranges[i];
    const char *spellings[2] = {range->name, range->asm_name};
    for (size_t s = 0; s < 2; s++) {
      const char *rest = after_prefix(name, spellings[s]);
      if (!rest)
        continue;
      if (range->count == 1) {
        if (*rest == '\0') {
          *dwarf = range->first;
          return AMDDWARF_OK;
        }
        continue;
      }
      uint32_t index;
      if (!wave_matches(range, wave_size) || parse_index(rest, &index) != 0)
        continue;
      if (index >= range->first_index && index - range->first_index < range->count) {
        *dwarf = range->first + (index - range->first_index);
        return AMDDWARF_OK;
      }
    }
  }
  return AMDDWARF_NOT_FOUND;
}
