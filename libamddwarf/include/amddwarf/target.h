/* The target interface: how the evaluator reaches registers, memory, lanes,
 * frames and debugging information entries, plus the AMDGPU address-space,
 * address-class and ISA tables that give those accesses their meaning.
 *
 * A target is a struct of callbacks and one USER pointer (the style of
 * libdwfl's callbacks and amd-dbgapi's process operations). The library
 * copies nothing out of it: the struct and everything USER points to must
 * stay valid while an evaluation, read or write that uses it runs.
 *
 * The contract, for every callback:
 *  - It returns AMDDWARF_OK, or one of the statuses below; what the library
 *    makes of each:
 *      E_EVAL_UNAVAILABLE  the storage exists but cannot be read or written
 *                          now: a register the target does not have or did
 *                          not save, memory not mapped or not captured. The
 *                          debugger layer shows the lane <unavailable> and,
 *                          for a register, names it (specs/debug-api.md).
 *                          This is THE answer for a missing register.
 *      E_EVAL_OPTIMIZED_OUT a register an unwound frame does not restore (the
 *                          CFI's undefined rule): the lane is <optimized out>.
 *      NOT_FOUND           only where a callback below says so (a DIE or base
 *                          type that does not exist). From read_register it is
 *                          NOT "no such register": it reaches the caller as a
 *                          per-lane <error> ("no matching entry").
 *      E_UNSUPPORTED       the callback cannot answer at all (no EXEC mask, no
 *                          apertures, no frame base): the same as a NULL
 *                          callback, an error naming what is missing; for
 *                          apertures, generic addresses are then passed on
 *                          as generic.
 *      anything else       passed through to the caller unchanged.
 *  - It must not call back into libamddwarf (no re-entrant evaluation).
 *  - A NULL callback means "not provided": an operation that needs it fails
 *    with AMDDWARF_E_UNSUPPORTED naming the callback; nothing crashes.
 *  - Sizes and offsets are in bytes; memory and register bytes are
 *    little-endian (AMDGPU), lane 0 in the least significant bytes of a
 *    vector register (lane L's dword at offset 4 * L).
 *  - A read fills all SIZE bytes or fails; a write writes all or nothing.
 *  - Lanes: the library never asks a target to write an inactive lane's
 *    storage (a vector register's dword, private_lane memory, a private_wave
 *    dword of that lane) unless its caller asked for it
 *    (AMDDWARF_ASSIGN_INACTIVE: amddwarf_valobj_assign_lanes,
 *    amddwarf_wave_write_register, amddwarf_wave_write_memory).
 *  - Private memory comes in two views of the same bytes: private_lane (one
 *    lane's, lane address A) and private_wave (the wave's scratch, swizzled:
 *    lane L's address A is wave address (A / 4) * wave_size * 4 + L * 4 +
 *    A % 4, amddwarf_private_lane_to_wave). Reads of whole objects (a 256-byte
 *    array in private_wave, one read for all lanes of a dword) arrive as one
 *    private_wave call spanning many lanes' dwords; a target that stores
 *    per-lane memory must serve them by the swizzle (the snapshot target does,
 *    dword by dword). examples/backend/backend.c implements both views over
 *    one scratch array.
 *
 * Callbacks and what each may return besides OK (the fields below say more):
 *   read_register, write_register   E_EVAL_UNAVAILABLE, E_EVAL_OPTIMIZED_OUT
 *   register_size                   NOT_FOUND (no such register)
 *   read_memory, write_memory       E_EVAL_UNAVAILABLE
 *   focused_lane                    E_UNSUPPORTED (then lane 0)
 *   wave_size                       E_UNSUPPORTED (then the code object's wave size)
 *   exec_mask                       E_UNSUPPORTED (the debugger layer then counts
 *                                   every lane as active)
 *   apertures                       E_UNSUPPORTED (generic stays generic)
 *   frame_base, cfa, object_address E_UNSUPPORTED
 *   tls_address, address_index      E_UNSUPPORTED, E_EVAL_UNAVAILABLE
 *   address_index_err               as address_index, with a message in ERR
 *   base_type, die                  NOT_FOUND (no such DIE)
 *   read_entry_register             E_EVAL_UNAVAILABLE, E_UNSUPPORTED
 * Register numbers are DWARF numbers (AMDGPU: amddwarf_amdgpu_register_info,
 * whose kind_id is an amddwarf_register_kind); address spaces are DW_ASPACE_*
 * (below). */
#ifndef AMDDWARF_TARGET_H
#define AMDDWARF_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/dwarf.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* "No lane": the address space does not depend on a lane. */
#define AMDDWARF_NO_LANE UINT32_MAX

/* ---- Base types ---------------------------------------------------------- */

/* DW_ATE_* encodings the evaluator interprets. Encoding 0 with DIE 0 is the
   generic type (integral, address-sized, unspecified signedness). */
enum {
  AMDDWARF_ATE_GENERIC = 0x00,
  AMDDWARF_ATE_ADDRESS = AMDDWARF_DW_ATE_address,
  AMDDWARF_ATE_BOOLEAN = AMDDWARF_DW_ATE_boolean,
  AMDDWARF_ATE_FLOAT = AMDDWARF_DW_ATE_float,
  AMDDWARF_ATE_SIGNED = AMDDWARF_DW_ATE_signed,
  AMDDWARF_ATE_SIGNED_CHAR = AMDDWARF_DW_ATE_signed_char,
  AMDDWARF_ATE_UNSIGNED = AMDDWARF_DW_ATE_unsigned,
  AMDDWARF_ATE_UNSIGNED_CHAR = AMDDWARF_DW_ATE_unsigned_char,
  AMDDWARF_ATE_UTF = AMDDWARF_DW_ATE_UTF,
  AMDDWARF_ATE_LO_USER = 0x80,
  AMDDWARF_ATE_HI_USER = 0xff
};

/* A base type: the DW_TAG_base_type DIE a typed operation names, or the
   generic type (die == 0, encoding AMDDWARF_ATE_GENERIC). */
typedef struct amddwarf_base_type {
  uint64_t die;          /* CU-relative offset of the DIE; 0 = generic type */
  uint32_t bit_size;     /* bits of one element (DW_AT_byte_size * 8 or DW_AT_bit_size) */
  uint32_t count;        /* DW_AT_LLVM_vector_size, 1 for a scalar; never 0 */
  uint8_t encoding;      /* DW_ATE_* */
} amddwarf_base_type;

/* ---- DIEs reached by DW_OP_call*, implicit pointers ---------------------- */

typedef enum amddwarf_die_ref_kind {
  AMDDWARF_DIE_REF_UNIT = 0,    /* DW_OP_call2/call4: offset within the current unit */
  AMDDWARF_DIE_REF_SECTION = 1, /* DW_OP_call_ref, implicit pointers: .debug_info offset */
} amddwarf_die_ref_kind;

typedef enum amddwarf_die_value_kind {
  AMDDWARF_DIE_NO_VALUE = 0,    /* neither DW_AT_location nor DW_AT_const_value */
  AMDDWARF_DIE_LOCATION = 1,    /* BYTES is the DW_AT_location expression for the current PC */
  AMDDWARF_DIE_CONST_VALUE = 2, /* BYTES is the DW_AT_const_value block */
} amddwarf_die_value_kind;

/* What a DIE lookup answers. BYTES stays owned by the target and must stay
   valid until the evaluation that asked returns. Expressions are decoded with
   the format of the calling expression. */
typedef struct amddwarf_die {
  int is_dwarf_procedure;        /* nonzero for DW_TAG_dwarf_procedure */
  amddwarf_die_value_kind value; /* which attribute BYTES holds */
  const uint8_t *bytes;
  size_t size;
} amddwarf_die;

/* ---- The callbacks -------------------------------------------------------- */

typedef struct amddwarf_target {
  uint32_t struct_size; /* sizeof(amddwarf_target); shorter structs leave the tail NULL */
  void *user;           /* passed to every callback; not owned */

  /* Registers by DWARF number: SIZE bytes at byte OFFSET within the register
     (for a vector register, lane L's dword is at offset 4*L). A register the
     target does not have, or cannot read now, is E_EVAL_UNAVAILABLE: the
     debugger layer shows the lane as <unavailable> and names the register
     (specs/debug-api.md); NOT_FOUND is not the answer for a missing
     register, it reaches the caller as a per-lane error.
     E_EVAL_OPTIMIZED_OUT is for a register an unwound frame does not
     restore (the CFI's undefined rule). Writes follow the same rules; the
     layer never asks a target to write an inactive lane unless its caller
     asked for it (AMDDWARF_ASSIGN_INACTIVE). */
  amddwarf_status (*read_register)(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                   void *buf);
  amddwarf_status (*write_register)(void *user, uint32_t regno, uint64_t offset,
                                    uint64_t size, const void *buf);
  /* Optional: the register's size in bytes; NOT_FOUND for a register the
     target does not have. When NULL the AMDGPU register map is used. */
  amddwarf_status (*register_size)(void *user, uint32_t regno, uint64_t *size);

  /* Memory: SIZE bytes at ADDRESS of address space ASPACE (DW_ASPACE_*
     numbering). The library normalizes before calling: DW_ASPACE_AMDGPU_
     private_lane<N> arrive as private_lane with LANE = N, private_lane with
     the evaluation's lane, generic (flat) addresses are converted to
     global/local/private_lane when `apertures` is provided (and arrive as
     generic otherwise); every other space has LANE == AMDDWARF_NO_LANE. */
  amddwarf_status (*read_memory)(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                 uint64_t size, void *buf);
  amddwarf_status (*write_memory)(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                  uint64_t size, const void *buf);

  /* The wave: the focused lane (used when the evaluation names none), the
     wave size (32 or 64) and the EXEC mask. */
  amddwarf_status (*focused_lane)(void *user, uint32_t *lane);
  amddwarf_status (*wave_size)(void *user, uint32_t *wave_size);
  amddwarf_status (*exec_mask)(void *user, uint64_t *mask);

  /* Flat-address apertures: the generic address ranges (4 GiB each, given by
     their base) that map to the local (LDS) and private (scratch) spaces. */
  amddwarf_status (*apertures)(void *user, uint64_t *shared_base, uint64_t *private_base);

  /* The current function's DW_AT_frame_base expression for the current PC
     (the evaluator evaluates it, applying the register-location rule). */
  amddwarf_status (*frame_base)(void *user, const uint8_t **expr, size_t *size);
  /* The canonical frame address, from CFI: a memory location. */
  amddwarf_status (*cfa)(void *user, uint32_t *aspace, uint64_t *address);
  /* DW_OP_push_object_address: the object being evaluated, a memory location. */
  amddwarf_status (*object_address)(void *user, uint32_t *aspace, uint64_t *address);
  /* DW_OP_form_tls_address: the default-address-space address of TLS offset OFFSET. */
  amddwarf_status (*tls_address)(void *user, uint64_t offset, uint64_t *address);
  /* DW_OP_addrx / DW_OP_constx: entry INDEX of .debug_addr for the unit. */
  amddwarf_status (*address_index)(void *user, uint64_t index, uint64_t *value);

  /* Base type DIE DIE (unit-relative, never 0). NOT_FOUND when DIE is not a
     DW_TAG_base_type. */
  amddwarf_status (*base_type)(void *user, uint64_t die, amddwarf_base_type *out);
  /* DIE at REF (interpreted per KIND). NOT_FOUND when there is no such DIE. */
  amddwarf_status (*die)(void *user, amddwarf_die_ref_kind kind, uint64_t ref,
                         amddwarf_die *out);

  /* Register values on entry to the current subprogram (DW_OP_entry_value,
     DW_OP_LLVM_call_frame_entry_reg), typically from virtual unwinding. */
  amddwarf_status (*read_entry_register)(void *user, uint32_t regno, uint64_t offset,
                                         uint64_t size, void *buf);

  /* Optional, used instead of address_index when set: the same, and when it
     fails, ERR (never NULL, cleared) may say why; the evaluator reports that
     message as is. E_EVAL_UNAVAILABLE for an entry whose value the object
     does not know (amddwarf_object_address_index). */
  amddwarf_status (*address_index_err)(void *user, uint64_t index, uint64_t *value,
                                       amddwarf_error *err);
} amddwarf_target;

/* ---- AMDGPU address spaces (src/amdgpu/aspaces.def) ---------------------- */

enum {
  AMDDWARF_ASPACE_NONE = 0x00,            /* global, the default address space */
  AMDDWARF_ASPACE_AMDGPU_GENERIC = 0x01,  /* flat */
  AMDDWARF_ASPACE_AMDGPU_REGION = 0x02,   /* GDS */
  AMDDWARF_ASPACE_AMDGPU_LOCAL = 0x03,    /* LDS, of the focused wave */
  AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE = 0x05,
  AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE = 0x06,
  AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 = 0x20, /* .. private_lane63 = 0x5f */
  AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63 = 0x5f
};

/* How DW_OP_xderef* operands name address spaces. */
typedef enum amddwarf_xderef_numbering {
  AMDDWARF_XDEREF_DWARF = 0,  /* DW_ASPACE_* values, as the seed spec */
  AMDDWARF_XDEREF_LEGACY = 1, /* upstream clang: 1 = private (lane), 2 = local */
} amddwarf_xderef_numbering;

typedef struct amddwarf_aspace_info {
  uint32_t value;            /* DW_ASPACE_* */
  const char *name;          /* "DW_ASPACE_AMDGPU_private_lane" (static) */
  const char *short_name;    /* "private_lane" (static) */
  uint8_t address_size_64;   /* address bytes in a 64-bit process */
  uint8_t address_size_32;   /* address bytes in a 32-bit process */
  uint8_t per_lane;          /* nonzero: the storage depends on a lane */
} amddwarf_aspace_info;

/* Describes DW_ASPACE value VALUE. private_lane0-63 share one description
   (name "DW_ASPACE_AMDGPU_private_lane", short_name "private_lane"); use
   amddwarf_aspace_name for "private_lane7". Returns OK or NOT_FOUND (reserved
   values 0x04, 0x07-0x1f, and everything above 0x5f). */
AMDDWARF_API amddwarf_status amddwarf_aspace_info_get(uint32_t value,
                                                      amddwarf_aspace_info *out);
/* Short name of VALUE into BUF ("private_lane", "private_lane7", "global"
   for DW_ASPACE_none). Returns OK, NOT_FOUND ("aspace<N>") or E_NO_SPACE. */
AMDDWARF_API amddwarf_status amddwarf_aspace_name(uint32_t value, char *buf, size_t size);
/* Finds an address space by short or full name ("local", "DW_ASPACE_AMDGPU_local",
   "private_lane3", "global"/"none"). Returns OK or NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_aspace_lookup(const char *name, uint32_t *value);
/* Maps an xderef address-space operand AS under NUMBERING to DW_ASPACE_*.
   Returns OK or AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE. */
AMDDWARF_API amddwarf_status amddwarf_aspace_from_xderef(amddwarf_xderef_numbering numbering,
                                                         uint64_t as, uint32_t *value);

/* Private swizzle (seed, "Address Space Mapping"): lane address -> wave address
   ((A / 4) * wave_size * 4 + lane * 4 + A % 4), and back (*LANE receives the
   lane). Overflow is AMDDWARF_E_OVERFLOW. */
AMDDWARF_API amddwarf_status amddwarf_private_lane_to_wave(uint64_t lane_address,
                                                           uint32_t lane, uint32_t wave_size,
                                                           uint64_t *wave_address);
AMDDWARF_API amddwarf_status amddwarf_private_wave_to_lane(uint64_t wave_address,
                                                           uint32_t wave_size, uint32_t *lane,
                                                           uint64_t *lane_address);

/* Generic (flat) address -> (address space, address) given the aperture
   bases: an address in the 4 GiB window of SHARED_BASE is local, in that of
   PRIVATE_BASE is private_lane, anything else is global. A base of 0 means
   "no such aperture". Never fails. */
AMDDWARF_API void amddwarf_generic_to_segment(uint64_t address, uint64_t shared_base,
                                              uint64_t private_base, uint32_t *aspace,
                                              uint64_t *segment_address);

/* DW_AT_address_class values (DW_ADDR_AMDGPU_*). */
typedef struct amddwarf_address_class_info {
  uint32_t value;      /* DW_ADDR_* */
  const char *name;    /* "DW_ADDR_AMDGPU_local" (static) */
  uint32_t aspace;     /* the DW_ASPACE_* a pointer of this class dereferences in */
} amddwarf_address_class_info;
AMDDWARF_API amddwarf_status amddwarf_address_class_info_get(uint32_t value,
                                                             amddwarf_address_class_info *out);

/* ---- AMDGPU processors (src/amdgpu/isa.def) ------------------------------ */

typedef struct amddwarf_isa_info {
  uint32_t mach;            /* EF_AMDGPU_MACH_AMDGCN_* (e_flags & 0xff) */
  const char *name;         /* "gfx90a" (static) */
  uint32_t major;           /* 8 .. 12 */
  uint32_t default_wave_size;
  uint8_t wave32;           /* supports wave32 */
  uint8_t wave64;           /* supports wave64 */
  uint8_t has_agprs;        /* accumulation VGPRs (MI100 and later CDNA) */
} amddwarf_isa_info;

/* Looks up e_flags' EF_AMDGPU_MACH field (MACH & 0xff is used). OK or NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_isa_info_by_mach(uint32_t mach, amddwarf_isa_info *out);
/* Looks up a processor by name ("gfx1030"). OK or NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_isa_info_by_name(const char *name,
                                                       amddwarf_isa_info *out);

AMDDWARF_END_DECLS

#endif
