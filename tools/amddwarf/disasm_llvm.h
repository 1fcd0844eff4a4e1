/* The library's instruction decoder (amddwarf/disasm.h) under the names
 * `amddwarf disasm` and `amddwarf dap`'s disassemble request use: an open
 * that reports its error as text, and the section and byte helpers. */
#ifndef AMDDWARF_DISASM_LLVM_H
#define AMDDWARF_DISASM_LLVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/amddwarf.h>

typedef amddwarf_disasm_section exec_section;
typedef amddwarf_disasm disasm_context;

/* A disassembler for OBJECT; NULL with ERROR filled when the library has
   none for it (amddwarf_disasm_open's message). */
disasm_context *disasm_open(const amddwarf_object *object, char *error, size_t error_size);
void disasm_close(disasm_context *c);
const char *disasm_processor(const disasm_context *c);
const exec_section *disasm_sections(const disasm_context *c, int *count);
/* The image bytes of section S at ADDRESS (inside it). */
const uint8_t *disasm_bytes(const disasm_context *c, const exec_section *s, uint64_t address);
size_t disasm_one(disasm_context *c, const uint8_t *bytes, size_t size, uint64_t pc, char *text,
                  size_t text_size);
bool disasm_built(void);
bool disasm_branch_target(const char *text, uint64_t pc, uint64_t *target);

#endif
