/* LLVM's C disassembler API, loaded on first use.
 *
 * Mapping libLLVM costs a one-shot command about 40 MB of resident memory
 * and its relocation time, and only decoding instructions needs it: so the
 * library opens it with dlopen when a disassembler is first asked for,
 * instead of linking it. */
#ifndef AMDDWARF_OBJECT_LLVM_DISASM_API_H
#define AMDDWARF_OBJECT_LLVM_DISASM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Disassembler.h>

typedef struct llvm_disasm_api {
  void (*initialize_target_info)(void);
  void (*initialize_target_mc)(void);
  void (*initialize_disassembler)(void);
  LLVMDisasmContextRef (*create)(const char *triple, const char *cpu, const char *features,
                                 void *info, int tag_type, LLVMOpInfoCallback get_op_info,
                                 LLVMSymbolLookupCallback symbol_lookup);
  size_t (*instruction)(LLVMDisasmContextRef context, uint8_t *bytes, uint64_t size,
                        uint64_t pc, char *text, size_t text_size);
  void (*dispose)(LLVMDisasmContextRef context);
} llvm_disasm_api;

/* The API, with the AMDGPU target initialized; loaded once per process and
   kept. NULL when the library cannot be loaded: then *WHY says what failed
   (a static string or the loader's message). Thread-safe. */
const llvm_disasm_api *amddwarf__llvm_disasm_api(const char **why);

/* Whether the library is present, without loading it. */
bool amddwarf__llvm_disasm_present(void);

#endif
