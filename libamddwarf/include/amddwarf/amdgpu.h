/* The AMDGPU target description: DWARF register map.
 *
 * Register numbers follow the AMDGPU DWARF register mapping: PC_32 (0),
 * EXEC_MASK_32 (1), PC_64 (16), EXEC_MASK_64 (17), SGPR0-63 (32-95),
 * SGPR64-105 (1088-1129), VGPR/AGPR 0-255 for wave32 (1536, 2048) and for
 * wave64 (2560, 3072). Vector registers hold one dword per lane, lane 0 in the
 * least significant bits. */
#ifndef AMDDWARF_AMDGPU_H
#define AMDDWARF_AMDGPU_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

typedef struct amddwarf_amdgpu_register {
  uint32_t dwarf;        /* DWARF register number */
  const char *kind;      /* "PC_64", "SGPR", "VGPR", ... (static) */
  const char *asm_kind;  /* "pc", "s", "v", ... (static) */
  uint32_t index;        /* register index within its kind (SGPR40 -> 40) */
  uint32_t lane_bits;    /* bits per lane, or of the register when lanes == 0 */
  uint32_t lanes;        /* 0: scalar; 32 or 64: one dword per lane */
  uint32_t bit_size;     /* total size in bits: lane_bits * max(lanes, 1) */
  uint32_t wave_size;    /* 32 or 64 if only meaningful in that wave mode, else 0 */
} amddwarf_amdgpu_register;

typedef enum amddwarf_register_style {
  AMDDWARF_REGISTER_DWARF_NAME = 0, /* SGPR32, VGPR3, EXEC_MASK_64, PC_64 */
  AMDDWARF_REGISTER_ASM_NAME = 1,   /* s32, v3, exec, pc */
} amddwarf_register_style;

/* Describes DWARF register DWARF. Returns AMDDWARF_OK, or AMDDWARF_NOT_FOUND
   for a reserved number (*OUT untouched). */
AMDDWARF_API amddwarf_status amddwarf_amdgpu_register_info(uint32_t dwarf,
                                                           amddwarf_amdgpu_register *out);

/* Writes the name of DWARF register DWARF in STYLE into BUF (always
   NUL-terminated when SIZE > 0). Returns AMDDWARF_OK, AMDDWARF_NOT_FOUND for
   a reserved number (BUF then holds "reg<N>"), or AMDDWARF_E_NO_SPACE. */
AMDDWARF_API amddwarf_status amddwarf_amdgpu_register_name(uint32_t dwarf,
                                                           amddwarf_register_style style,
                                                           char *buf, size_t size);

/* Finds the DWARF number of NAME in either style, case-insensitive ("v3",
   "VGPR3", "s105", "exec", "EXEC_MASK_32", "pc"). WAVE_SIZE (32 or 64) picks
   between the wave32 and wave64 vector ranges and the exec masks, and
   "pc" means PC_64. Returns AMDDWARF_OK or AMDDWARF_NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_amdgpu_register_lookup(const char *name,
                                                             unsigned wave_size,
                                                             uint32_t *dwarf);

AMDDWARF_END_DECLS

#endif
