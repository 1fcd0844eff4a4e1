/* Architecture queries: what a debugger backend needs to know about each
 * processor (breakpoint instruction, PC adjustment, PC register, instruction
 * sizes, wave sizes, AGPRs), joined from isa.def (per processor) and
 * arch_family.def (per family), and the target-ID and e_flags parsers that
 * select a processor with its xnack/sramecc settings. specs/architectures.md
 * gives the sources of every value. */
#include <amddwarf/amdgpu.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

typedef struct isa_row {
  uint32_t mach;
  const char *name;
  uint32_t major;
  uint32_t default_wave;
  uint8_t wave32, wave64, agprs, xnack, sramecc;
} isa_row;

static const isa_row isa_rows[] = {
#define AMDDWARF_ISA(mach, name, major, wave, w32, w64, agprs, xnack, sramecc) \
  {mach, name, major, wave, w32, w64, agprs, xnack, sramecc},
#include "amdgpu/isa.def"
#undef AMDDWARF_ISA
};
enum { ISA_ROW_COUNT = sizeof isa_rows / sizeof isa_rows[0] };

typedef struct family_row {
  uint32_t major;
  const char *name;
  uint8_t breakpoint[4];
  const char *breakpoint_text;
  uint32_t pc_adjust;
  uint32_t largest_insn;
  uint32_t insn_align;
} family_row;

static const family_row family_rows[] = {
#define AMDDWARF_ARCH_FAMILY(major, name, b0, b1, b2, b3, text, adjust, largest, align) \
  {major, name, {b0, b1, b2, b3}, text, adjust, largest, align},
#include "amdgpu/arch_family.def"
#undef AMDDWARF_ARCH_FAMILY
};
enum { FAMILY_ROW_COUNT = sizeof family_rows / sizeof family_rows[0] };

/* The PC register amd-dbgapi reports (AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER
   is the 64-bit "pc"), as its DWARF number: PC_64. */
enum { ARCH_PC_REGNO = 16, ARCH_PC_SIZE = 8 };

/* Target-ID prefix of AMDGPU HSA code objects. */
static const char target_triple_prefix[] = "amdgcn-amd-amdhsa--";

static const family_row *family_of(uint32_t major)
{
  for (size_t i = 0; i < FAMILY_ROW_COUNT; i++)
    if (family_rows[i].major == major)
      return &family_rows[i];
  return NULL;
}

static void fill(const isa_row *isa, const family_row *family, amddwarf_arch *out)
{
  memset(out, 0, sizeof *out);
  out->processor = isa->name;
  out->family = family->name;
  out->mach = isa->mach;
  out->major = isa->major;
  out->xnack = isa->xnack ? AMDDWARF_ARCH_FEATURE_ANY : AMDDWARF_ARCH_FEATURE_UNSUPPORTED;
  out->sramecc = isa->sramecc ? AMDDWARF_ARCH_FEATURE_ANY : AMDDWARF_ARCH_FEATURE_UNSUPPORTED;
  out->default_wave_size = isa->default_wave;
  out->wave32 = isa->wave32;
  out->wave64 = isa->wave64;
  out->has_agprs = isa->agprs;
  memcpy(out->breakpoint, family->breakpoint, sizeof family->breakpoint);
  out->breakpoint_size = (uint32_t)sizeof family->breakpoint;
  out->breakpoint_text = family->breakpoint_text;
  out->breakpoint_pc_adjust = family->pc_adjust;
  out->pc_regno = ARCH_PC_REGNO;
  out->pc_size = ARCH_PC_SIZE;
  out->largest_instruction_size = family->largest_insn;
  out->minimum_instruction_alignment = family->insn_align;
}

size_t amddwarf_arch_count(void)
{
  size_t n = 0;
  for (size_t i = 0; i < ISA_ROW_COUNT; i++)
    n += family_of(isa_rows[i].major) != NULL;
  return n;
}

amddwarf_status amddwarf_arch_get(size_t index, amddwarf_arch *out)
{
  /* Ordered by family, then by processor name as isa.def lists them. */
  size_t seen = 0;
  for (size_t f = 0; f < FAMILY_ROW_COUNT; f++)
    for (size_t i = 0; i < ISA_ROW_COUNT; i++) {
      if (isa_rows[i].major != family_rows[f].major)
        continue;
      if (seen++ == index) {
        fill(&isa_rows[i], &family_rows[f], out);
        return AMDDWARF_OK;
      }
    }
  return AMDDWARF_NOT_FOUND;
}

/* Compares the LEN bytes at A with the NUL-terminated B, ignoring case. */
static int equal_span_nocase(const char *a, size_t len, const char *b)
{
  for (size_t i = 0; i < len; i++) {
    if (b[i] == '\0' || tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
      return 0;
  }
  return b[len] == '\0';
}

static amddwarf_status select_isa(const isa_row *isa, const char *what, amddwarf_arch *out,
                                  amddwarf_error *err)
{
  const family_row *family = family_of(isa->major);
  if (!family)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "%s: processor %s (gfx%u) is not supported by amd-dbgapi; "
                         "architecture queries cover gfx9 to gfx12",
                         what, isa->name, (unsigned)isa->major);
  fill(isa, family, out);
  return AMDDWARF_OK;
}

/* Applies one ":feature+" / ":feature-" / ":waveN" item of a target ID. */
static amddwarf_status apply_feature(const char *item, size_t len, const char *target_id,
                                     size_t offset, amddwarf_arch *out, amddwarf_error *err)
{
  if (equal_span_nocase(item, len, "wave32") || equal_span_nocase(item, len, "wave64")) {
    uint32_t wave = item[4] == '3' ? 32 : 64;
    if ((wave == 32 && !out->wave32) || (wave == 64 && !out->wave64))
      return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                           "target ID '%s': %s does not run wave%u", target_id,
                           out->processor, (unsigned)wave);
    if (out->wave_size)
      return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                           "target ID '%s': the wave size is given twice", target_id);
    out->wave_size = wave;
    return AMDDWARF_OK;
  }
  if (len < 2 || (item[len - 1] != '+' && item[len - 1] != '-'))
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                         "target ID '%s': feature '%.*s' needs a '+' or '-' sign", target_id,
                         (int)len, item);
  amddwarf_arch_feature setting =
      item[len - 1] == '+' ? AMDDWARF_ARCH_FEATURE_ON : AMDDWARF_ARCH_FEATURE_OFF;
  amddwarf_arch_feature *slot = NULL;
  if (equal_span_nocase(item, len - 1, "xnack"))
    slot = &out->xnack;
  else if (equal_span_nocase(item, len - 1, "sramecc"))
    slot = &out->sramecc;
  if (!slot)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                         "target ID '%s': unknown feature '%.*s' (xnack, sramecc, "
                         "wave32 and wave64 are known)",
                         target_id, (int)(len - 1), item);
  if (*slot == AMDDWARF_ARCH_FEATURE_UNSUPPORTED)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                         "target ID '%s': %s has no %.*s feature", target_id, out->processor,
                         (int)(len - 1), item);
  if (*slot != AMDDWARF_ARCH_FEATURE_ANY)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_BAD_TARGET_FEATURE, offset,
                         "target ID '%s': feature %.*s is given twice", target_id,
                         (int)(len - 1), item);
  *slot = setting;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_arch_from_name(const char *target_id, amddwarf_arch *out,
                                        amddwarf_error *err)
{
  if (!target_id || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_arch_from_name: NULL argument");
  const char *p = target_id;
  size_t prefix = sizeof target_triple_prefix - 1;
  size_t matched = 0;
  while (matched < prefix && p[matched] != '\0' &&
         tolower((unsigned char)p[matched]) == target_triple_prefix[matched])
    matched++;
  if (matched == prefix)
    p += prefix;
  size_t name_len = strcspn(p, ":");
  const isa_row *isa = NULL;
  for (size_t i = 0; i < ISA_ROW_COUNT && !isa; i++)
    if (equal_span_nocase(p, name_len, isa_rows[i].name))
      isa = &isa_rows[i];
  if (!isa)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_UNKNOWN_PROCESSOR, (uint64_t)(p - target_id),
                         "target ID '%s': unknown processor '%.*s'", target_id, (int)name_len,
                         p);
  amddwarf_arch arch;
  amddwarf_status st = select_isa(isa, "target ID", &arch, err);
  if (st != AMDDWARF_OK)
    return st;
  p += name_len;
  while (*p == ':') {
    p++;
    size_t len = strcspn(p, ":");
    st = apply_feature(p, len, target_id, (uint64_t)(p - target_id), &arch, err);
    if (st != AMDDWARF_OK)
      return st;
    p += len;
  }
  *out = arch;
  return AMDDWARF_OK;
}

/* e_flags bits (LLVM include/llvm/BinaryFormat/ELF.h). */
enum {
  EF_MACH_MASK = 0xff,
  EF_XNACK_V3 = 0x100,
  EF_SRAMECC_V3 = 0x200,
  EF_XNACK_V4_MASK = 0x300,   /* 0x000 unsupported, 0x100 any, 0x200 off, 0x300 on */
  EF_SRAMECC_V4_MASK = 0xc00, /* 0x000 unsupported, 0x400 any, 0x800 off, 0xc00 on */
};

amddwarf_status amddwarf_arch_from_e_flags(uint32_t e_flags, uint8_t abi_version,
                                           amddwarf_arch *out, amddwarf_error *err)
{
  if (!out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_arch_from_e_flags: NULL argument");
  uint32_t mach = e_flags & EF_MACH_MASK;
  const isa_row *isa = NULL;
  for (size_t i = 0; i < ISA_ROW_COUNT && !isa; i++)
    if (isa_rows[i].mach == mach)
      isa = &isa_rows[i];
  if (!isa)
    return amddwarf__fail(err, AMDDWARF_E_AMDGPU_UNKNOWN_PROCESSOR, AMDDWARF_NO_OFFSET,
                         "e_flags 0x%08x: unknown EF_AMDGPU_MACH 0x%02x", (unsigned)e_flags,
                         (unsigned)mach);
  amddwarf_arch arch;
  amddwarf_status st = select_isa(isa, "e_flags", &arch, err);
  if (st != AMDDWARF_OK)
    return st;
  if (abi_version == 1) {
    /* Code object v3: a set bit means "on", a clear bit "off"/"any". */
    if (arch.xnack != AMDDWARF_ARCH_FEATURE_UNSUPPORTED)
      arch.xnack = (e_flags & EF_XNACK_V3) ? AMDDWARF_ARCH_FEATURE_ON : AMDDWARF_ARCH_FEATURE_ANY;
    if (arch.sramecc != AMDDWARF_ARCH_FEATURE_UNSUPPORTED)
      arch.sramecc =
          (e_flags & EF_SRAMECC_V3) ? AMDDWARF_ARCH_FEATURE_ON : AMDDWARF_ARCH_FEATURE_ANY;
  } else if (abi_version >= 2) {
    /* v4 and later: two-bit settings; UNSUPPORTED in the flags keeps ours. */
    uint32_t x = (e_flags & EF_XNACK_V4_MASK) >> 8;
    uint32_t s = (e_flags & EF_SRAMECC_V4_MASK) >> 10;
    if (arch.xnack != AMDDWARF_ARCH_FEATURE_UNSUPPORTED && x != 0)
      arch.xnack = (amddwarf_arch_feature)x;
    if (arch.sramecc != AMDDWARF_ARCH_FEATURE_UNSUPPORTED && s != 0)
      arch.sramecc = (amddwarf_arch_feature)s;
  }
  *out = arch;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_arch_target_id(const amddwarf_arch *arch, char *buf, size_t size)
{
  if (!arch || !arch->processor)
    return AMDDWARF_E_INVALID_ARGUMENT;
  static const char *const signs[] = {"", "", "-", "+"};
  char sramecc[16] = "", xnack[16] = "", wave[16] = "";
  if (arch->sramecc >= AMDDWARF_ARCH_FEATURE_OFF && arch->sramecc <= AMDDWARF_ARCH_FEATURE_ON)
    snprintf(sramecc, sizeof sramecc, ":sramecc%s", signs[arch->sramecc]);
  if (arch->xnack >= AMDDWARF_ARCH_FEATURE_OFF && arch->xnack <= AMDDWARF_ARCH_FEATURE_ON)
    snprintf(xnack, sizeof xnack, ":xnack%s", signs[arch->xnack]);
  if (arch->wave_size == 32 || arch->wave_size == 64)
    snprintf(wave, sizeof wave, ":wave%u", (unsigned)arch->wave_size);
  int n = snprintf(buf, size, "%s%s%s%s", arch->processor, sramecc, xnack, wave);
  return n < 0 || (size_t)n >= size ? AMDDWARF_E_NO_SPACE : AMDDWARF_OK;
}

const char *amddwarf_arch_feature_name(amddwarf_arch_feature feature)
{
  static const char *const names[] = {"unsupported", "any", "off", "on"};
  _Static_assert(sizeof names / sizeof names[0] == AMDDWARF_ARCH_FEATURE_ON + 1,
                 "one name per feature setting");
  if ((unsigned)feature >= sizeof names / sizeof names[0])
    return NULL;
  return names[feature];
}
