/* LLVM's C disassembler for AMDGPU code objects, shared by `amddwarf disasm`
 * and `amddwarf dap`'s disassemble request: the executable sections of the
 * code object and a disassembler for the object's processor and features.
 * Without LLVM (AMDDWARF_WITH_DISASM unset) disasm_open says so. */
#ifndef AMDDWARF_DISASM_LLVM_H
#define AMDDWARF_DISASM_LLVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/amddwarf.h>

enum { DISASM_MAX_SECTIONS = 64 };

typedef struct exec_section {
  uint32_t index;
  char name[64];
  uint64_t address;
  uint64_t offset;               /* in the file */
  uint64_t size;
  const uint8_t *data;           /* the section's bytes (the object's) */
} exec_section;

typedef struct disasm_context disasm_context;

/* A disassembler for OBJECT's processor and xnack/sramecc settings (its
   image and sections are read now). NULL with ERROR filled when LLVM has no
   disassembler for it, the object's flags name no processor, or this build
   has none. */
disasm_context *disasm_open(const amddwarf_object *object, char *error, size_t error_size);
void disasm_close(disasm_context *c);
/* The processor ("gfx900"). */
const char *disasm_processor(const disasm_context *c);
/* The executable sections found. */
const exec_section *disasm_sections(const disasm_context *c, int *count);
/* The image bytes of section S at ADDRESS (inside it). */
const uint8_t *disasm_bytes(const disasm_context *c, const exec_section *s, uint64_t address);
/* Decodes one instruction of at most SIZE bytes at PC into TEXT (leading
   blanks removed). Returns its length, or 0 when the bytes do not decode. */
size_t disasm_one(disasm_context *c, const uint8_t *bytes, size_t size, uint64_t pc, char *text,
                  size_t text_size);
bool disasm_built(void);

/* The address a branch reaches: for the instruction TEXT (as disasm_one
   writes it) at PC, when it is s_branch, an s_cbranch_* or s_call_b64 with
   an immediate, PC + 4 + 4 * SIMM16 (SOPP/SOPK; the immediate printed as
   its unsigned 16 bits). False for other instructions and register
   targets (s_setpc_b64, s_cbranch_join). */
bool disasm_branch_target(const char *text, uint64_t pc, uint64_t *target);

#endif
