/* AMDGPU instruction decoding (disasm.h): LLVM's C disassembler for the
 * object's processor and features, over its executable sections. */
#include <amddwarf/amdgpu.h>
#include <amddwarf/disasm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "object/internal.h"

#ifdef AMDDWARF_WITH_DISASM
#include "object/llvm_disasm_api.h"
#endif

enum { MAX_SECTIONS = 64, SECTION_PROGBITS = 1, SECTION_EXECINSTR = 0x4 };

struct amddwarf_disasm {
  amddwarf_disasm_section sections[MAX_SECTIONS];
  size_t section_count;
  const char *processor;
#ifdef AMDDWARF_WITH_DISASM
  const llvm_disasm_api *api;
  LLVMDisasmContextRef llvm;
#endif
};

bool amddwarf_disasm_available(void)
{
#ifdef AMDDWARF_WITH_DISASM
  return amddwarf__llvm_disasm_present();
#else
  return false;
#endif
}

#ifdef AMDDWARF_WITH_DISASM
/* The executable PROGBITS sections of OBJECT into D. */
static void find_sections(const amddwarf_object *object, amddwarf_disasm *d)
{
  size_t count = amddwarf_object_section_count(object);
  for (size_t i = 1; i < count && d->section_count < MAX_SECTIONS; i++) {
    amddwarf_object_section sec;
    if (amddwarf_object_section_at(object, i, &sec, NULL) != AMDDWARF_OK ||
        sec.type != SECTION_PROGBITS || !(sec.flags & SECTION_EXECINSTR) || sec.data == NULL)
      continue;
    amddwarf_disasm_section *s = &d->sections[d->section_count++];
    s->index = sec.index;
    s->address = sec.address;
    s->offset = sec.file_offset;
    s->size = sec.size;
    s->data = sec.data;
    snprintf(s->name, sizeof s->name, "%s", sec.name);
  }
}
#endif

amddwarf_status amddwarf_disasm_open(const amddwarf_object *object, amddwarf_disasm **out,
                                     amddwarf_error *err)
{
  if (object == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_disasm_open: NULL argument");
  *out = NULL;
#ifndef AMDDWARF_WITH_DISASM
  return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                       "this libamddwarf was built without LLVM's C disassembler API");
#else
  /* The ELF header's fields only: amddwarf_object_get_info would read the
     metadata note, which decoding does not need. */
  const amddwarf_object_info *info = &object->info;
  amddwarf_arch arch;
  amddwarf_status st = amddwarf_arch_from_e_flags(info->e_flags, info->abi_version, &arch, err);
  if (st != AMDDWARF_OK)
    return st;
  const char *why = NULL;
  const llvm_disasm_api *api = amddwarf__llvm_disasm_api(&why);
  if (api == NULL)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "LLVM's disassembler library cannot be loaded: %s", why);
  amddwarf_disasm *d = calloc(1, sizeof *d);
  if (d == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  d->processor = arch.processor;
  d->api = api;
  find_sections(object, d);
  bool xnack = arch.xnack == AMDDWARF_ARCH_FEATURE_ON;
  bool sramecc = arch.sramecc == AMDDWARF_ARCH_FEATURE_ON;
  char features[64];
  snprintf(features, sizeof features, "%s%s%s", xnack ? "+xnack" : "",
           xnack && sramecc ? "," : "", sramecc ? "+sramecc" : "");
  d->llvm = api->create("amdgcn-amd-amdhsa", arch.processor, features, NULL, 0, NULL, NULL);
  if (d->llvm == NULL) {
    free(d);
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "LLVM has no disassembler for %s", arch.processor);
  }
  *out = d;
  return AMDDWARF_OK;
#endif
}

void amddwarf_disasm_close(amddwarf_disasm *d)
{
  if (d == NULL)
    return;
#ifdef AMDDWARF_WITH_DISASM
  d->api->dispose(d->llvm);
#endif
  free(d);
}

const char *amddwarf_disasm_processor(const amddwarf_disasm *d)
{
  return d->processor;
}

const amddwarf_disasm_section *amddwarf_disasm_sections(const amddwarf_disasm *d, size_t *count)
{
  *count = d->section_count;
  return d->sections;
}

const amddwarf_disasm_section *amddwarf_disasm_section_at(const amddwarf_disasm *d,
                                                          uint64_t address)
{
  for (size_t i = 0; i < d->section_count; i++)
    if (address >= d->sections[i].address &&
        address - d->sections[i].address < d->sections[i].size)
      return &d->sections[i];
  return NULL;
}

size_t amddwarf_disasm_one(amddwarf_disasm *d, const uint8_t *bytes, size_t size, uint64_t pc,
                           char *text, size_t text_size)
{
  size_t len = 0;
  const char *t = "";
#ifdef AMDDWARF_WITH_DISASM
  char raw[256];
  len = d->api->instruction(d->llvm, (uint8_t *)(uintptr_t)bytes, size, pc, raw, sizeof raw);
  if (len != 0) {
    t = raw;
    while (*t == ' ' || *t == '\t')
      t++;
  }
#else
  (void)d;
  (void)bytes;
  (void)size;
  (void)pc;
#endif
  if (text_size > 0)
    snprintf(text, text_size, "%s", t);
  return len;
}

bool amddwarf_disasm_branch_target(const char *text, uint64_t pc, uint64_t *target)
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
