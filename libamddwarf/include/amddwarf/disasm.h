/* AMDGPU instruction decoding: LLVM's C disassembler over the executable
 * sections of a code object, for the prologue analyzer that synthesizes call
 * frame rows, `amddwarf disasm` and the debug adapter's disassemble request.
 *
 * The library opens LLVM's AMDGPU disassembler (libLLVM, with dlopen) when
 * the first handle is opened, when it was built with it (CMake option
 * AMDDWARF_DISASM). Without it, or when libLLVM cannot be loaded,
 * amddwarf_disasm_open returns AMDDWARF_E_UNSUPPORTED with the reason and
 * amddwarf_disasm_available is false.
 *
 * A handle is not safe to use from several threads at once (LLVM's
 * disassembler context is not); distinct handles are independent. */
#ifndef AMDDWARF_DISASM_H
#define AMDDWARF_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/export.h>
#include <amddwarf/object.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* One executable PROGBITS section of the object. DATA is the object's
   bytes: valid until amddwarf_object_close. */
typedef struct amddwarf_disasm_section {
  uint32_t index;                /* section header index */
  char name[64];
  uint64_t address;
  uint64_t offset;               /* in the file */
  uint64_t size;
  const uint8_t *data;
} amddwarf_disasm_section;

typedef struct amddwarf_disasm amddwarf_disasm;

/* True when this library was built with LLVM's disassembler and its library
   is present (checked without loading it). */
AMDDWARF_API bool amddwarf_disasm_available(void);

/* A disassembler for OBJECT's processor and xnack/sramecc settings, over its
   executable sections (at most 64). OBJECT must outlive the handle.
   Errors: E_UNSUPPORTED (built without LLVM, or LLVM has no disassembler for
   the processor), the errors of amddwarf_arch_from_e_flags (the flags name no
   processor), E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_disasm_open(const amddwarf_object *object,
                                                  amddwarf_disasm **out, amddwarf_error *err);
/* NULL is allowed. */
AMDDWARF_API void amddwarf_disasm_close(amddwarf_disasm *disasm);

/* The processor ("gfx90a"): static storage. */
AMDDWARF_API const char *amddwarf_disasm_processor(const amddwarf_disasm *disasm);

/* The executable sections, in section order; *COUNT gets their number. */
AMDDWARF_API const amddwarf_disasm_section *amddwarf_disasm_sections(
    const amddwarf_disasm *disasm, size_t *count);

/* The section holding ADDRESS, or NULL. */
AMDDWARF_API const amddwarf_disasm_section *amddwarf_disasm_section_at(
    const amddwarf_disasm *disasm, uint64_t address);

/* Decodes one instruction of at most SIZE bytes at BYTES, whose address is
   PC, into TEXT as LLVM prints it with leading blanks removed ("s_mov_b32
   s33, s32"), NUL-terminated (truncated to TEXT_SIZE - 1). Returns its length
   in bytes, or 0 when the bytes do not decode (TEXT is then ""). */
AMDDWARF_API size_t amddwarf_disasm_one(amddwarf_disasm *disasm, const uint8_t *bytes,
                                        size_t size, uint64_t pc, char *text,
                                        size_t text_size);

/* The address a branch reaches: for the instruction TEXT (as
   amddwarf_disasm_one writes it) at PC, when it is s_branch, an s_cbranch_*
   or s_call_b64 with an immediate, PC + 4 + 4 * SIMM16 (the immediate
   printed as its unsigned 16 bits). False for other instructions and for
   register targets (s_setpc_b64, s_swappc_b64, s_cbranch_join). */
AMDDWARF_API bool amddwarf_disasm_branch_target(const char *text, uint64_t pc,
                                                uint64_t *target);

AMDDWARF_END_DECLS

#endif
