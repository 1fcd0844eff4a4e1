/* A tiny SPIR-V assembler for unit tests: modules are written word by word
 * (test_spirv.c, test_gpuav.c). */
#ifndef AMDDWARF_TEST_SPIRV_BUILD_H
#define AMDDWARF_TEST_SPIRV_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct mod {
  uint32_t w[4096];
  size_t n;
} mod;

/* The 5-word header: SPIR-V 1.3, bound 100. */
void mod_init(mod *m);

/* Instruction OPCODE with COUNT operand words. */
void inst(mod *m, uint32_t opcode, size_t count, ...);

/* Instruction OPCODE with PRE operand words, a literal string, then POST words. */
void inst_str(mod *m, uint32_t opcode, const uint32_t *pre, size_t npre, const char *s,
              const uint32_t *post, size_t npost);

#endif
