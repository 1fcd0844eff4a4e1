/* Target descriptions for call frame information: AMDGPU (wave32, wave64,
 * 64- and 32-bit processes) and x86-64 System V.
 *
 * AMDGPU facts (seed, "Call Frame Information" and "Address Spaces"): the
 * default rule of every column is "same value" because a callee cannot touch
 * registers it was not allocated; the return address column is PC_64 (16),
 * or PC_32 (0) for 32-bit processes; code and data alignment factors are 4;
 * address spaces are DW_ASPACE_LLVM_none (0), AMDGPU generic (1), region (2),
 * local (3), private_lane (5), private_wave (6) and private_lane0-63
 * (0x20-0x5f). Register sizes and names come from the register map.
 *
 * x86-64 facts (System V psABI, "DWARF Register Number Mapping"): 0-16 are
 * RAX RDX RCX RBX RSI RDI RBP RSP R8-R15 RIP, 17-32 XMM0-15, 33-40 ST0-7,
 * 41-48 MM0-7; names are spelled as llvm-dwarfdump-19 prints them. */
#include <stdio.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "cfi/cfi_internal.h"

static uint32_t amdgpu_register_bits(const amddwarf_cfi_target *target, uint32_t reg)
{
  amddwarf_amdgpu_register info;
  if (amddwarf_amdgpu_register_info(reg, &info) != AMDDWARF_OK)
    return 0;
  if (info.wave_size != 0 && target->wave_size != 0 && info.wave_size != target->wave_size)
    return 0;
  return info.bit_size;
}

static bool amdgpu_register_name(const amddwarf_cfi_target *target, uint32_t reg, char *buf,
                                 size_t size)
{
  /* Vector registers of the other wave size have no name here: "VGPR0"
     must not stand for both 1536 and 2560. */
  amddwarf_amdgpu_register info;
  if (amddwarf_amdgpu_register_info(reg, &info) != AMDDWARF_OK ||
      (info.wave_size != 0 && info.wave_size != target->wave_size))
    return false;
  return amddwarf_amdgpu_register_name(reg, AMDDWARF_REGISTER_DWARF_NAME, buf, size) ==
         AMDDWARF_OK;
}

static bool amdgpu_aspace_valid(const amddwarf_cfi_target *target, uint64_t aspace)
{
  (void)target;
  return aspace <= 3 || aspace == 5 || aspace == 6 || (aspace >= 0x20 && aspace <= 0x5f);
}

static uint8_t amdgpu_aspace_address_size(const amddwarf_cfi_target *target, uint64_t aspace)
{
  if (aspace == 0 || aspace == 1)
    return target->address_size;
  return 4;
}

#define AMDGPU_TARGET(wave, pc, addr)                                                         \
  {                                                                                           \
    sizeof(amddwarf_cfi_target), "amdgpu", addr, AMDDWARF_CFI_RULE_SAME_VALUE, pc, 4, 4,      \
        AMDDWARF_DIALECT_AUTO, wave, amdgpu_register_bits, amdgpu_register_name,              \
        amdgpu_aspace_valid, amdgpu_aspace_address_size, NULL, UINT32_MAX                     \
  }

static const amddwarf_cfi_target amdgpu_targets[4] = {
    AMDGPU_TARGET(64, 16, 8),
    AMDGPU_TARGET(32, 16, 8),
    AMDGPU_TARGET(64, 0, 4),
    AMDGPU_TARGET(32, 0, 4),
};

const amddwarf_cfi_target *amddwarf_cfi_target_amdgpu(unsigned wave_size)
{
  return &amdgpu_targets[wave_size == 32 ? 1 : 0];
}

const amddwarf_cfi_target *amddwarf_cfi_target_amdgpu32(unsigned wave_size)
{
  return &amdgpu_targets[wave_size == 32 ? 3 : 2];
}

static const char *const x86_64_gpr_names[17] = {
    "RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP", "R8",
    "R9",  "R10", "R11", "R12", "R13", "R14", "R15", "RIP",
};

static uint32_t x86_64_register_bits(const amddwarf_cfi_target *target, uint32_t reg)
{
  (void)target;
  if (reg <= 16)
    return 64;
  if (reg <= 32)
    return 128;
  if (reg <= 40)
    return 80;
  if (reg <= 48)
    return 64;
  return 0;
}

static bool x86_64_register_name(const amddwarf_cfi_target *target, uint32_t reg, char *buf,
                                 size_t size)
{
  (void)target;
  int n;
  if (reg <= 16)
    n = snprintf(buf, size, "%s", x86_64_gpr_names[reg]);
  else if (reg <= 32)
    n = snprintf(buf, size, "XMM%u", (unsigned)(reg - 17));
  else if (reg <= 40)
    n = snprintf(buf, size, "ST%u", (unsigned)(reg - 33));
  else if (reg <= 48)
    n = snprintf(buf, size, "MM%u", (unsigned)(reg - 41));
  else
    return false;
  return n >= 0 && (size_t)n < size;
}

static bool x86_64_aspace_valid(const amddwarf_cfi_target *target, uint64_t aspace)
{
  (void)target;
  return aspace == 0;
}

static uint8_t x86_64_aspace_address_size(const amddwarf_cfi_target *target, uint64_t aspace)
{
  (void)aspace;
  return target->address_size;
}

static const amddwarf_cfi_target x86_64_target = {
    sizeof(amddwarf_cfi_target), "x86-64", 8, AMDDWARF_CFI_RULE_UNDEFINED, 16, 1, -8,
    AMDDWARF_DIALECT_AUTO, 0, x86_64_register_bits, x86_64_register_name,
    x86_64_aspace_valid, x86_64_aspace_address_size, NULL, 7,
};

const amddwarf_cfi_target *amddwarf_cfi_target_x86_64(void)
{
  return &x86_64_target;
}

void amddwarf_cfi_register_name(const amddwarf_cfi_target *target, uint32_t reg, char *buf,
                                size_t size)
{
  if (size == 0)
    return;
  if (target && target->register_name && target->register_name(target, reg, buf, size))
    return;
  snprintf(buf, size, "reg%u", (unsigned)reg);
}

void amddwarf__cfi_dump_register_name(const amddwarf_cfi_target *target, uint32_t reg, char *buf,
                                     size_t size)
{
  amddwarf_cfi_register_name(target, reg, buf, size);
  /* AMDGPU (a wave size): the name llvm-dwarfdump-19 prints for a register
     the target has (PC_REG, EXEC, SGPR32), so the two dumps agree. */
  if (target != NULL && target->wave_size != 0 && target->register_name != NULL &&
      target->register_name(target, reg, buf, size))
    amddwarf_amdgpu_register_name(reg, AMDDWARF_REGISTER_LLVM_NAME, buf, size);
}

static const char *const rule_kind_names[] = {
    "undefined", "same_value", "offset", "val_offset",
    "register",  "expression", "val_expression", "architectural",
};
_Static_assert(sizeof rule_kind_names / sizeof rule_kind_names[0] == AMDDWARF_CFI_RULE_KIND_COUNT,
               "one name per rule kind");

const char *amddwarf_cfi_rule_kind_name(amddwarf_cfi_rule_kind kind)
{
  if ((unsigned)kind >= AMDDWARF_CFI_RULE_KIND_COUNT)
    return "unknown";
  return rule_kind_names[kind];
}
