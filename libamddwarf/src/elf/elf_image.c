/* The library's one ELF reader: header, section headers, names and the
 * relocation rules (see elf_image.h). */
#include "elf/elf_image.h"

#include <inttypes.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/reader.h"

static amddwarf_status elf_fail(amddwarf_error *err, amddwarf_status st, uint64_t offset,
                                const char *what)
{
  return amddwarf__fail(err, st, offset, "ELF: %s (file offset 0x%" PRIx64 ")", what, offset);
}

static amddwarf_status read_at(const amddwarf_elf_image *elf, uint64_t offset, unsigned size,
                               uint64_t *out)
{
  amddwarf_reader r;
  amddwarf_reader_init(&r, elf->data, elf->size);
  r.big_endian = elf->big_endian;
  if (offset > elf->size)
    return AMDDWARF_E_TRUNCATED;
  r.pos = (size_t)offset;
  return amddwarf__read_uint(&r, size, out);
}

amddwarf_status amddwarf__elf_section_at(const amddwarf_elf_image *elf, uint32_t index,
                                        amddwarf_elf_section *s, amddwarf_error *err)
{
  memset(s, 0, sizeof *s);
  uint64_t base;
  if (amddwarf_mul_overflow_u64(index, elf->shentsize, &base) ||
      amddwarf_add_overflow_u64(base, elf->shoff, &base) ||
      !amddwarf_range_fits(base, elf->shentsize, elf->size))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, elf->shoff, "section header table truncated");
  /* sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link,
     sh_info, sh_addralign, sh_entsize */
  static const unsigned off64[10] = {0, 4, 8, 16, 24, 32, 40, 44, 48, 56};
  static const unsigned sz64[10] = {4, 4, 8, 8, 8, 8, 4, 4, 8, 8};
  static const unsigned off32[10] = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36};
  uint64_t v[10];
  for (int i = 0; i < 10; i++) {
    unsigned o = elf->is64 ? off64[i] : off32[i], n = elf->is64 ? sz64[i] : 4;
    if (read_at(elf, base + o, n, &v[i]) != AMDDWARF_OK)
      return elf_fail(err, AMDDWARF_E_TRUNCATED, base, "section header truncated");
  }
  s->name = (uint32_t)v[0];
  s->type = (uint32_t)v[1];
  s->flags = v[2];
  s->addr = v[3];
  s->offset = v[4];
  s->size = v[5];
  s->link = v[6];
  s->info = v[7];
  s->entsize = v[9];
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__elf_image_open(amddwarf_elf_image *elf, const uint8_t *data,
                                        size_t size, amddwarf_error *err)
{
  memset(elf, 0, sizeof *elf);
  elf->data = data;
  elf->size = size;
  if (size < 16 || memcmp(data, "\177ELF", 4) != 0)
    return elf_fail(err, AMDDWARF_E_MALFORMED, 0, "not an ELF file");
  if ((data[4] != 1 && data[4] != 2) || (data[5] != 1 && data[5] != 2))
    return elf_fail(err, AMDDWARF_E_MALFORMED, 4, "bad ELF class or data encoding");
  elf->is64 = data[4] == 2;
  elf->big_endian = data[5] == 2;
  elf->os_abi = data[7];
  elf->abi_version = data[8];
  uint64_t type, machine, flags, shoff, shentsize, shnum, shstrndx;
  unsigned shoff_at = elf->is64 ? 40 : 32, word = elf->is64 ? 8 : 4;
  unsigned rest = elf->is64 ? 58 : 46;
  if (read_at(elf, 16, 2, &type) || read_at(elf, 18, 2, &machine) ||
      read_at(elf, shoff_at, word, &shoff) || read_at(elf, shoff_at + word, 4, &flags) ||
      read_at(elf, rest, 2, &shentsize) || read_at(elf, rest + 2, 2, &shnum) ||
      read_at(elf, rest + 4, 2, &shstrndx))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, 0, "ELF header truncated");
  elf->type = (uint16_t)type;
  elf->machine = (uint16_t)machine;
  elf->e_flags = (uint32_t)flags;
  elf->shoff = shoff;
  elf->shentsize = (uint16_t)shentsize;
  elf->shnum = (uint32_t)shnum;
  elf->shstrndx = (uint32_t)shstrndx;
  if (shoff == 0)
    return AMDDWARF_OK;
  if (shentsize < (elf->is64 ? 64u : 40u))
    return elf_fail(err, AMDDWARF_E_MALFORMED, rest, "section header entry size too small");
  if (elf->shnum == 0 || elf->shstrndx == 0xffff) {
    amddwarf_elf_section zero;
    amddwarf_status st = amddwarf__elf_section_at(elf, 0, &zero, err);
    if (st != AMDDWARF_OK)
      return st;
    if (elf->shnum == 0)
      elf->shnum = zero.size > UINT32_MAX ? UINT32_MAX : (uint32_t)zero.size;
    if (elf->shstrndx == 0xffff)
      elf->shstrndx = (uint32_t)zero.link;
  }
  return AMDDWARF_OK;
}

const char *amddwarf__elf_section_name(const amddwarf_elf_image *elf,
                                      const amddwarf_elf_section *s)
{
  amddwarf_elf_section strtab;
  if (elf->shstrndx == 0 || elf->shstrndx >= elf->shnum ||
      amddwarf__elf_section_at(elf, elf->shstrndx, &strtab, NULL) != AMDDWARF_OK ||
      !amddwarf_range_fits(strtab.offset, strtab.size, elf->size) || s->name >= strtab.size)
    return NULL;
  const char *name = (const char *)elf->data + strtab.offset + s->name;
  if (memchr(name, '\0', (size_t)(strtab.size - s->name)) == NULL)
    return NULL;
  return name;
}

amddwarf_status amddwarf__elf_find_section(const amddwarf_elf_image *elf, const char *name,
                                          uint32_t *index, amddwarf_elf_section *out,
                                          amddwarf_error *err)
{
  if (elf->shoff == 0 || elf->shstrndx >= elf->shnum)
    return AMDDWARF_NOT_FOUND;
  amddwarf_elf_section strtab;
  amddwarf_status st = amddwarf__elf_section_at(elf, elf->shstrndx, &strtab, err);
  if (st != AMDDWARF_OK)
    return st;
  if (!amddwarf_range_fits(strtab.offset, strtab.size, elf->size))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, strtab.offset, "section name table truncated");
  size_t want = strlen(name) + 1;
  for (uint32_t i = 1; i < elf->shnum; i++) {
    amddwarf_elf_section s;
    if ((st = amddwarf__elf_section_at(elf, i, &s, err)) != AMDDWARF_OK)
      return st;
    if (s.name >= strtab.size || strtab.size - s.name < want)
      continue;
    if (memcmp(elf->data + strtab.offset + s.name, name, want) == 0) {
      *index = i;
      *out = s;
      return AMDDWARF_OK;
    }
  }
  return AMDDWARF_NOT_FOUND;
}

/* ---- relocations ---- */

static const amddwarf_elf_reloc_rule amdgpu_rules[] = {
#define AMDDWARF_RELOC(name, type, bytes, how) {#name, type, bytes, AMDDWARF_RELOC_##how},
#include "elf/relocs.def"
#undef AMDDWARF_RELOC
};

static const amddwarf_elf_reloc_rule x86_64_rules[] = {
#define AMDDWARF_RELOC(name, type, bytes, how) {#name, type, bytes, AMDDWARF_RELOC_##how},
#include "elf/relocs_x86_64.def"
#undef AMDDWARF_RELOC
};

const amddwarf_elf_reloc_rule *amddwarf__elf_reloc_find(uint16_t machine, uint32_t type)
{
  const amddwarf_elf_reloc_rule *rules = NULL;
  size_t count = 0;
  if (machine == AMDDWARF_ELF_EM_AMDGPU) {
    rules = amdgpu_rules;
    count = sizeof amdgpu_rules / sizeof amdgpu_rules[0];
  } else if (machine == AMDDWARF_ELF_EM_X86_64) {
    rules = x86_64_rules;
    count = sizeof x86_64_rules / sizeof x86_64_rules[0];
  }
  for (size_t i = 0; i < count; ++i)
    if (rules[i].type == type)
      return &rules[i];
  return NULL;
}

uint64_t amddwarf__elf_reloc_value(const amddwarf_elf_reloc_rule *rule, uint64_t s, uint64_t a,
                                  uint64_t p)
{
  uint64_t v = s + a;
  switch (rule->how) {
  case AMDDWARF_RELOC_ABS_LO: return v & 0xffffffffu;
  case AMDDWARF_RELOC_ABS_HI: return v >> 32;
  case AMDDWARF_RELOC_REL: return v - p;
  case AMDDWARF_RELOC_REL_LO: return (v - p) & 0xffffffffu;
  case AMDDWARF_RELOC_REL_HI: return (v - p) >> 32;
  case AMDDWARF_RELOC_RELATIVE: return a;
  default: return v;
  }
}

void amddwarf__elf_reloc_write(const amddwarf_elf_reloc_rule *rule, uint8_t *field,
                              uint64_t value, bool big_endian)
{
  for (unsigned b = 0; b < rule->bytes; b++) {
    unsigned shift = 8 * (big_endian ? rule->bytes - 1 - b : b);
    field[b] = (uint8_t)(value >> shift);
  }
}

/* Applies one REL or RELA section, REL, to BYTES. */
static amddwarf_status apply_section(const amddwarf_elf_image *elf,
                                     const amddwarf_elf_section *rel,
                                     const amddwarf_elf_section *sec, uint8_t *bytes,
                                     amddwarf_error *err)
{
  amddwarf_elf_section symtab;
  amddwarf_status st;
  bool rela = rel->type == AMDDWARF_ELF_SHT_RELA;
  unsigned word = elf->is64 ? 8 : 4, entsize = (rela ? 3 : 2) * word;
  if (rel->link >= elf->shnum ||
      (st = amddwarf__elf_section_at(elf, (uint32_t)rel->link, &symtab, err)) != AMDDWARF_OK)
    return rel->link >= elf->shnum
               ? elf_fail(err, AMDDWARF_E_MALFORMED, rel->offset, "bad symbol table link")
               : st;
  if (!amddwarf_range_fits(rel->offset, rel->size, elf->size) ||
      !amddwarf_range_fits(symtab.offset, symtab.size, elf->size))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, rel->offset, "relocation section truncated");
  unsigned symsize = elf->is64 ? 24 : 16, value_at = elf->is64 ? 8 : 4;
  for (uint64_t at = rel->offset; at + entsize <= rel->offset + rel->size; at += entsize) {
    uint64_t offset, info, addend = 0, sym_value = 0;
    if (read_at(elf, at, word, &offset) || read_at(elf, at + word, word, &info) ||
        (rela && read_at(elf, at + 2 * word, word, &addend)))
      return elf_fail(err, AMDDWARF_E_TRUNCATED, at, "relocation truncated");
    if (!elf->is64 && rela)
      addend = (uint64_t)(int64_t)(int32_t)addend;
    uint64_t sym = elf->is64 ? info >> 32 : info >> 8;
    uint32_t type = (uint32_t)(elf->is64 ? info & 0xffffffffu : info & 0xff);
    const amddwarf_elf_reloc_rule *rule = amddwarf__elf_reloc_find(elf->machine, type);
    if (rule == NULL || rule->how == AMDDWARF_RELOC_GOT)
      return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, at,
                           "ELF: relocation type %u for machine %u at file offset 0x%" PRIx64
                           " is not supported", type, elf->machine, at);
    if (rule->how == AMDDWARF_RELOC_NONE)
      continue;
    if (sym != 0) {
      uint64_t s_at = symtab.offset + sym * symsize;
      if (sym >= symtab.size / symsize || read_at(elf, s_at + value_at, word, &sym_value))
        return elf_fail(err, AMDDWARF_E_MALFORMED, at, "relocation symbol out of range");
    }
    if (!amddwarf_range_fits(offset, rule->bytes, sec->size))
      return elf_fail(err, AMDDWARF_E_MALFORMED, at, "relocation outside its section");
    if (!rela) {
      amddwarf_reader r;
      amddwarf_reader_init(&r, bytes, (size_t)sec->size);
      r.big_endian = elf->big_endian;
      r.pos = (size_t)offset;
      if (amddwarf__read_uint(&r, rule->bytes, &addend) != AMDDWARF_OK)
        return elf_fail(err, AMDDWARF_E_TRUNCATED, at, "relocation target truncated");
    }
    uint64_t value = amddwarf__elf_reloc_value(rule, sym_value, addend, sec->addr + offset);
    amddwarf__elf_reloc_write(rule, bytes + offset, value, elf->big_endian);
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__elf_relocate(const amddwarf_elf_image *elf, uint32_t target,
                                      const amddwarf_elf_section *sec, uint8_t *bytes,
                                      amddwarf_error *err)
{
  for (uint32_t i = 1; i < elf->shnum; i++) {
    amddwarf_elf_section rel;
    amddwarf_status st = amddwarf__elf_section_at(elf, i, &rel, err);
    if (st != AMDDWARF_OK)
      return st;
    if ((rel.type == AMDDWARF_ELF_SHT_RELA || rel.type == AMDDWARF_ELF_SHT_REL) &&
        rel.info == target && (st = apply_section(elf, &rel, sec, bytes, err)) != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}
