/* LLVM's C disassembler over the executable sections of an AMDGPU code
 * object, for `amddwarf disasm` and `amddwarf dap`. */
#include "disasm_llvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/reader.h"

enum { SHT_PROGBITS = 1, SHF_EXECINSTR = 0x4 };


/* Positions R at OFFSET; false when OFFSET is past the end. */
static bool seek(amddwarf_reader *r, uint64_t offset)
{
  if (offset > r->size)
    return false;
  r->pos = (size_t)offset;
  return true;
}

/* Finds the executable PROGBITS sections of the ELF64 file DATA. Returns the
   count (at most CAP), or -1 for a malformed header (message printed). */
int disasm_exec_sections(const uint8_t *data, size_t size, exec_section *out, int cap)
{
  amddwarf_reader r;
  uint64_t shoff, shentsize, shnum, shstrndx;
  amddwarf_reader_init(&r, data, size);
  if (!seek(&r, 0x28) || amddwarf_read_uint(&r, 8, &shoff) != AMDDWARF_OK || !seek(&r, 0x3a) ||
      amddwarf_read_uint(&r, 2, &shentsize) != AMDDWARF_OK ||
      amddwarf_read_uint(&r, 2, &shnum) != AMDDWARF_OK ||
      amddwarf_read_uint(&r, 2, &shstrndx) != AMDDWARF_OK || shentsize < 64 ||
      shstrndx >= shnum || shoff > size || shnum * shentsize > size - shoff)
    goto bad;
  uint64_t strtab_off = 0, strtab_size = 0;
  if (!seek(&r, shoff + shstrndx * shentsize + 0x18) || amddwarf_read_uint(&r, 8, &strtab_off) != AMDDWARF_OK ||
      amddwarf_read_uint(&r, 8, &strtab_size) != AMDDWARF_OK || strtab_off > size ||
      strtab_size > size - strtab_off)
    goto bad;
  int n = 0;
  for (uint64_t i = 0; i < shnum && n < cap; i++) {
    uint64_t name, type, flags, addr, off, sz;
    if (!seek(&r, shoff + i * shentsize) || amddwarf_read_uint(&r, 4, &name) != AMDDWARF_OK ||
        amddwarf_read_uint(&r, 4, &type) != AMDDWARF_OK ||
        amddwarf_read_uint(&r, 8, &flags) != AMDDWARF_OK ||
        amddwarf_read_uint(&r, 8, &addr) != AMDDWARF_OK ||
        amddwarf_read_uint(&r, 8, &off) != AMDDWARF_OK ||
        amddwarf_read_uint(&r, 8, &sz) != AMDDWARF_OK)
      goto bad;
    if (type != SHT_PROGBITS || !(flags & SHF_EXECINSTR))
      continue;
    if (off > size || sz > size - off || name >= strtab_size)
      goto bad;
    exec_section *s = &out[n++];
    s->index = (uint32_t)i;
    s->address = addr;
    s->offset = off;
    s->size = sz;
    const char *nm = (const char *)data + strtab_off + name;
    const void *nul = memchr(nm, '\0', (size_t)(strtab_size - name));
    size_t len = nul ? (size_t)((const char *)nul - nm) : (size_t)(strtab_size - name);
    if (len >= sizeof s->name)
      len = sizeof s->name - 1;
    memcpy(s->name, nm, len);
    s->name[len] = '\0';
  }
  return n;
bad:
  return -1;
}


#ifdef AMDDWARF_WITH_DISASM
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#endif

struct disasm_context {
  const uint8_t *image;
  size_t size;
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
  c->image = amddwarf_object_image(object, &c->size);
  c->processor = arch.processor;
  c->section_count = disasm_exec_sections(c->image, c->size, c->sections, DISASM_MAX_SECTIONS);
  if (c->section_count < 0) {
    snprintf(error, error_size, "malformed ELF section headers");
    free(c);
    return NULL;
  }
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
  return c->image + s->offset + (address - s->address);
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
