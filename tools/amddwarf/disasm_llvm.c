/* LLVM's C disassembler over the executable sections of an AMDGPU code
 * object, for `amddwarf disasm` and `amddwarf dap`. */
#include "disasm_llvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AMDDWARF_WITH_DISASM
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

enum { SHT_PROGBITS = 1, SHF_EXECINSTR = 0x4 };

/* The executable PROGBITS sections of OBJECT, at most CAP; returns the count. */
static int exec_sections(const amddwarf_object *object, exec_section *out, int cap)
{
  int n = 0;
  size_t count = amddwarf_object_section_count(object);
  for (size_t i = 1; i < count && n < cap; i++) {
    amddwarf_object_section sec;
    if (amddwarf_object_section_at(object, i, &sec, NULL) != AMDDWARF_OK ||
        sec.type != SHT_PROGBITS || !(sec.flags & SHF_EXECINSTR) || sec.data == NULL)
      continue;
    exec_section *s = &out[n++];
    s->index = sec.index;
    s->address = sec.address;
    s->offset = sec.file_offset;
    s->size = sec.size;
    s->data = sec.data;
    snprintf(s->name, sizeof s->name, "%s", sec.name);
  }
  return n;
}
#endif

struct disasm_context {
  exec_section sections[DISASM_MAX_SECTIONS];
  int section_count;
  const char *processor;
#ifdef AMDDWARF_WITH_DISASM
  LLVMDisasmContextRef llvm;
#endif
};

bool disasm_built(void)
{
#ifdef AMDDWARF_WITH_DISASM
  return true;
#else
  return false;
#endif
}

disasm_context *disasm_open(const amddwarf_object *object, char *error, size_t error_size)
{
#ifndef AMDDWARF_WITH_DISASM
  (void)object;
  snprintf(error, error_size, "this amddwarf was built without LLVM's C disassembler API");
  return NULL;
#else
  const amddwarf_object_info *info = amddwarf_object_get_info(object);
  amddwarf_arch arch;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  if (amddwarf_arch_from_e_flags(info->e_flags, info->abi_version, &arch, &err) != AMDDWARF_OK) {
    snprintf(error, error_size, "%s", err.message);
    return NULL;
  }
  disasm_context *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  c->processor = arch.processor;
  c->section_count = exec_sections(object, c->sections, DISASM_MAX_SECTIONS);
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUDisassembler();
  char features[64];
  snprintf(features, sizeof features, "%s%s%s",
           arch.xnack == AMDDWARF_ARCH_FEATURE_ON ? "+xnack" : "",
           arch.xnack == AMDDWARF_ARCH_FEATURE_ON && arch.sramecc == AMDDWARF_ARCH_FEATURE_ON
               ? ","
               : "",
           arch.sramecc == AMDDWARF_ARCH_FEATURE_ON ? "+sramecc" : "");
  c->llvm = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", arch.processor, features, NULL, 0,
                                        NULL, NULL);
  if (!c->llvm) {
    snprintf(error, error_size, "LLVM has no disassembler for %s", arch.processor);
    free(c);
    return NULL;
  }
  return c;
#endif
}

void disasm_close(disasm_context *c)
{
  if (!c)
    return;
#ifdef AMDDWARF_WITH_DISASM
  LLVMDisasmDispose(c->llvm);
#endif
  free(c);
}

const char *disasm_processor(const disasm_context *c)
{
  return c->processor;
}

const exec_section *disasm_sections(const disasm_context *c, int *count)
{
  *count = c->section_count;
  return c->sections;
}

const uint8_t *disasm_bytes(const disasm_context *c, const exec_section *s, uint64_t address)
{
  (void)c;
  return s->data + (address - s->address);
}

size_t disasm_one(disasm_context *c, const uint8_t *bytes, size_t size, uint64_t pc, char *text,
                  size_t text_size)
{
#ifdef AMDDWARF_WITH_DISASM
  char raw[256];
  size_t len = LLVMDisasmInstruction(c->llvm, (uint8_t *)(uintptr_t)bytes, size, pc, raw,
                                     sizeof raw);
  const char *t = raw;
  while (*t == ' ' || *t == '\t')
    t++;
  snprintf(text, text_size, "%s", len ? t : "");
  return len;
#else
  (void)c;
  (void)bytes;
  (void)size;
  (void)pc;
  snprintf(text, text_size, "%s", "");
  return 0;
#endif
}

bool disasm_branch_target(const char *text, uint64_t pc, uint64_t *target)
{
  size_t name = strcspn(text, " \t");
  bool branch = (name == 8 && strncmp(text, "s_branch", 8) == 0) ||
                (name > 10 && strncmp(text, "s_cbranch_", 10) == 0) ||
                (name == 10 && strncmp(text, "s_call_b64", 10) == 0);
  if (!branch || text[name] == '\0')
    return false;
  /* The immediate is the last operand. */
  const char *last = strrchr(text, ' ');
  const char *comma = strrchr(text, ',');
  if (comma != NULL && comma > last)
    last = comma;
  last++;
  char *end = NULL;
  unsigned long long v = strtoull(last, &end, 0);
  if (end == last || *end != '\0' || v > 0xffff)
    return false;
  int16_t simm = (int16_t)(uint16_t)v;
  *target = pc + 4 + (uint64_t)((int64_t)simm * 4);
  return true;
}
