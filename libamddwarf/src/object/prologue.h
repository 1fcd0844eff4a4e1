/* The prologue analyzer: from a function's decoded instructions, the call
 * frame instructions the AMDGPU calling convention implies (the rows ROCm's
 * compiler writes for the same code), for FDEs that say nothing. */
#ifndef AMDDWARF_OBJECT_PROLOGUE_H
#define AMDDWARF_OBJECT_PROLOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/status.h>

/* One instruction: its address, encoded length and text as LLVM's
   disassembler prints it ("s_mov_b32 s33, s32"; "" when undecodable). */
typedef struct amddwarf__prologue_insn {
  uint64_t address;
  uint32_t size;
  const char *text;
} amddwarf__prologue_insn;

typedef struct amddwarf__prologue_params {
  unsigned wave_size;          /* 32 or 64 */
  bool has_agprs;              /* gfx908, gfx90a, gfx942, gfx950 */
  bool kernel;                 /* the outermost frame: no caller */
  uint64_t start, end;         /* the function's [start, end) (the FDE's) */
  uint64_t code_alignment;     /* the CIE's factors */
  int64_t data_alignment;
} amddwarf__prologue_params;

/* Writes the call frame instructions for the function P describes, whose
   code is INSNS[0..COUNT) in address order, into BUF (CAPACITY bytes);
   *SIZE gets their full length (more than CAPACITY: call again with a
   larger buffer). Returns AMDDWARF_OK or E_CFI_PROLOGUE with ERR naming
   the instruction and its address where a rule cannot be proven. */
amddwarf_status amddwarf__prologue_analyze(const amddwarf__prologue_params *p,
                                          const amddwarf__prologue_insn *insns, size_t count,
                                          uint8_t *buf, size_t capacity, size_t *size,
                                          amddwarf_error *err);

#endif
