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

/* The kinds of AMDGPU DWARF registers (src/amdgpu/regs.def). */
typedef enum amddwarf_register_kind {
  AMDDWARF_REGISTER_KIND_PC = 0,    /* PC_32 (0), PC_64 (16) */
  AMDDWARF_REGISTER_KIND_EXEC = 1,  /* EXEC_MASK_32 (1), EXEC_MASK_64 (17) */
  AMDDWARF_REGISTER_KIND_SGPR = 2,  /* scalar: 32-95, 1088-1129 */
  AMDDWARF_REGISTER_KIND_VGPR = 3,  /* vector, one dword per lane: 1536+ (wave32), 2560+ (wave64) */
  AMDDWARF_REGISTER_KIND_AGPR = 4,  /* accumulation: 2048+ (wave32), 3072+ (wave64) */
} amddwarf_register_kind;

typedef struct amddwarf_amdgpu_register {
  uint32_t dwarf;        /* DWARF register number */
  const char *kind;      /* "PC_64", "SGPR", "VGPR", ... (static) */
  const char *asm_kind;  /* "pc", "s", "v", ... (static) */
  uint32_t index;        /* register index within its kind (SGPR40 -> 40) */
  uint32_t lane_bits;    /* bits per lane, or of the register when lanes == 0 */
  uint32_t lanes;        /* 0: scalar; 32 or 64: one dword per lane */
  uint32_t bit_size;     /* total size in bits: lane_bits * max(lanes, 1) */
  uint32_t wave_size;    /* 32 or 64 if only meaningful in that wave mode, else 0 */
  /* KIND as a closed set, to switch on instead of comparing strings. Added
     at the end: a caller compiled against an older header must not pass a
     struct of the old size (rebuild; the source is unchanged). */
  amddwarf_register_kind kind_id;
} amddwarf_amdgpu_register;

typedef enum amddwarf_register_style {
  AMDDWARF_REGISTER_DWARF_NAME = 0, /* SGPR32, VGPR3, EXEC_MASK_64, PC_64 */
  AMDDWARF_REGISTER_ASM_NAME = 1,   /* s32, v3, exec, pc */
  /* The names llvm-dwarfdump-19 prints for AMDGPU (LLVM's MC registers:
     PC_REG, EXEC, EXEC_LO, SGPR32, VGPR3, AGPR3), which `amddwarf cfi`
     prints too; without LLVM's _LO16, which names the 16-bit sub-register
     LLVM happens to list first for the number. Where LLVM names no register
     (PC_32, the wave32 VGPR and AGPR numbers) the DWARF name. */
  AMDDWARF_REGISTER_LLVM_NAME = 2,
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

/* ---- Architectures: what a debugger backend needs per processor ---------- */

/* A target feature of a code object or target ID (xnack, sramecc). */
typedef enum amddwarf_arch_feature {
  AMDDWARF_ARCH_FEATURE_UNSUPPORTED = 0, /* the processor has no such feature */
  AMDDWARF_ARCH_FEATURE_ANY = 1,         /* code runs with it on or off */
  AMDDWARF_ARCH_FEATURE_OFF = 2,         /* "feature-" */
  AMDDWARF_ARCH_FEATURE_ON = 3,          /* "feature+" */
} amddwarf_arch_feature;

/* One processor as a debugger sees it: the values amd-dbgapi's
   amd_dbgapi_architecture_get_info reports for it, plus the wave sizes and
   target features (specs/architectures.md). Strings are static. */
typedef struct amddwarf_arch {
  const char *processor;          /* "gfx90a" */
  const char *family;             /* "gfx9", "gfx10", "gfx11", "gfx12" */
  uint32_t mach;                  /* EF_AMDGPU_MACH_AMDGCN_* */
  uint32_t major;                 /* 9 .. 12 */
  amddwarf_arch_feature xnack;    /* UNSUPPORTED, or the setting (ANY when not given) */
  amddwarf_arch_feature sramecc;
  uint32_t wave_size;             /* the chosen wave size, 0 when none was chosen */
  uint32_t default_wave_size;     /* 64 on gfx9, 32 on gfx10 and later */
  uint8_t wave32;                 /* supports wave32 */
  uint8_t wave64;                 /* supports wave64 */
  uint8_t has_agprs;              /* accumulation VGPRs (gfx908, gfx90a, gfx942, gfx950) */
  uint8_t breakpoint[8];          /* INFO_BREAKPOINT_INSTRUCTION, little-endian bytes */
  uint32_t breakpoint_size;       /* INFO_BREAKPOINT_INSTRUCTION_SIZE */
  const char *breakpoint_text;    /* "s_trap 7" */
  uint32_t breakpoint_pc_adjust;  /* INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST: subtract
                                     from a stopped wave's PC to get the breakpoint */
  uint32_t pc_regno;              /* INFO_PC_REGISTER as a DWARF number (PC_64 = 16) */
  uint32_t pc_size;               /* its size in bytes (8) */
  uint32_t largest_instruction_size;      /* INFO_LARGEST_INSTRUCTION_SIZE */
  uint32_t minimum_instruction_alignment; /* INFO_MINIMUM_INSTRUCTION_ALIGNMENT */
} amddwarf_arch;

/* Number of processors amd-dbgapi-style queries describe (gfx9 .. gfx12). */
AMDDWARF_API size_t amddwarf_arch_count(void);

/* Describes processor INDEX (0 .. amddwarf_arch_count() - 1, ordered by
   family, then name) with no target feature or wave size chosen.
   Returns AMDDWARF_OK or AMDDWARF_NOT_FOUND past the end. */
AMDDWARF_API amddwarf_status amddwarf_arch_get(size_t index, amddwarf_arch *out);

/* Describes a target ID: "gfx90a", "gfx90a:sramecc+:xnack-", the full
   "amdgcn-amd-amdhsa--gfx90a:xnack+", plus this library's own suffixes
   ":wave32" / ":wave64" choosing the wave size. Case-insensitive.
   Errors: E_AMDGPU_UNKNOWN_PROCESSOR (no such processor), E_UNSUPPORTED (a
   gfx8 processor, which amd-dbgapi does not support),
   E_AMDGPU_BAD_TARGET_FEATURE (a feature the processor lacks, a feature
   given twice, a malformed feature, a wave size it does not support). */
AMDDWARF_API amddwarf_status amddwarf_arch_from_name(const char *target_id, amddwarf_arch *out,
                                                     amddwarf_error *err);

/* Describes the processor and features of an AMDGPU ELF header: E_FLAGS and
   e_ident[EI_ABIVERSION] ABI_VERSION (0: code object v2, 1: v3, 2..: v4 and
   later; the xnack/sramecc bits differ between v3 and v4+). Errors:
   E_AMDGPU_UNKNOWN_PROCESSOR, E_UNSUPPORTED (gfx8). */
AMDDWARF_API amddwarf_status amddwarf_arch_from_e_flags(uint32_t e_flags, uint8_t abi_version,
                                                        amddwarf_arch *out,
                                                        amddwarf_error *err);

/* Writes ARCH's target ID into BUF: "gfx90a", "gfx90a:sramecc+:xnack-"
   (features in LLVM's alphabetical order, ANY omitted), then ":wave32" or
   ":wave64" when a wave size was chosen. Returns OK or E_NO_SPACE (BUF is
   then truncated, NUL-terminated when SIZE > 0). */
AMDDWARF_API amddwarf_status amddwarf_arch_target_id(const amddwarf_arch *arch, char *buf,
                                                     size_t size);

/* "unsupported", "any", "off", "on"; NULL when out of range. */
AMDDWARF_API const char *amddwarf_arch_feature_name(amddwarf_arch_feature feature);

AMDDWARF_END_DECLS

#endif
