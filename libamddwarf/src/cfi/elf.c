/* Finding .debug_frame or .eh_frame in an ELF image, with relocations
 * applied, so that CFI can be read without the code object layer.
 *
 * A deliberately small reader (ELF gABI): the ELF header, the section header
 * table (with the extended section count and string table index of section
 * 0), section names, and REL/RELA relocations that target the frame section
 * in relocatable files, for the relocation types AMDGPU and x86-64 producers
 * put there: R_AMDGPU_ABS32_LO (1), ABS32_HI (2), ABS64 (3), REL32 (4),
 * REL64 (5), ABS32 (6); R_X86_64_64 (1), PC32 (2), 32 (10), 32S (11), PC64
 * (24). Every read is bounds-checked. */
#include <inttypes.h>
#include <string.h>

#include "cfi/cfi_internal.h"
#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"

enum {
  ELF_EM_X86_64 = 62,
  ELF_EM_AMDGPU = 224,
  ELF_SHT_SYMTAB = 2,
  ELF_SHT_RELA = 4,
  ELF_SHT_NOBITS = 8,
  ELF_SHT_REL = 9,
  ELF_SHF_COMPRESSED = 0x800,
};

typedef struct elf_section {
  uint32_t name, type;
  uint64_t flags, addr, offset, size, link, info, entsize;
} elf_section;

typedef struct elf_image {
  const uint8_t *data;
  size_t size;
  bool is64, big_endian;
  uint16_t machine, type;
  uint64_t shoff;
  uint32_t shnum, shstrndx;
  uint16_t shentsize;
} elf_image;

static amddwarf_status elf_fail(amddwarf_error *err, amddwarf_status st, uint64_t offset,
                                const char *what)
{
  return amddwarf_fail(err, st, offset, "ELF: %s (file offset 0x%" PRIx64 ")", what, offset);
}

static amddwarf_status read_at(const elf_image *elf, uint64_t offset, unsigned size,
                               uint64_t *out)
{
  amddwarf_reader r;
  amddwarf_reader_init(&r, elf->data, elf->size);
  r.big_endian = elf->big_endian;
  if (offset > elf->size)
    return AMDDWARF_E_TRUNCATED;
  r.pos = (size_t)offset;
  return amddwarf_read_uint(&r, size, out);
}

static amddwarf_status section_at(const elf_image *elf, uint32_t index, elf_section *s,
                                  amddwarf_error *err)
{
  memset(s, 0, sizeof *s);
  uint64_t base;
  if (amddwarf_mul_overflow_u64(index, elf->shentsize, &base) ||
      amddwarf_add_overflow_u64(base, elf->shoff, &base) ||
      !amddwarf_range_fits(base, elf->shentsize, elf->size))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, elf->shoff, "section header table truncated");
  uint64_t v[10];
  static const unsigned off64[10] = {0, 4, 8, 16, 24, 32, 40, 44, 48, 56};
  static const unsigned sz64[10] = {4, 4, 8, 8, 8, 8, 4, 4, 8, 8};
  static const unsigned off32[10] = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36};
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

static amddwarf_status parse_header(elf_image *elf, amddwarf_error *err)
{
  const uint8_t *d = elf->data;
  if (elf->size < 16 || memcmp(d, "\177ELF", 4) != 0)
    return elf_fail(err, AMDDWARF_E_MALFORMED, 0, "not an ELF file");
  if ((d[4] != 1 && d[4] != 2) || (d[5] != 1 && d[5] != 2))
    return elf_fail(err, AMDDWARF_E_MALFORMED, 4, "bad ELF class or data encoding");
  elf->is64 = d[4] == 2;
  elf->big_endian = d[5] == 2;
  uint64_t type, machine, shoff, shentsize, shnum, shstrndx;
  unsigned shoff_at = elf->is64 ? 40 : 32, shoff_size = elf->is64 ? 8 : 4;
  unsigned rest = elf->is64 ? 58 : 46;
  if (read_at(elf, 16, 2, &type) || read_at(elf, 18, 2, &machine) ||
      read_at(elf, shoff_at, shoff_size, &shoff) || read_at(elf, rest, 2, &shentsize) ||
      read_at(elf, rest + 2, 2, &shnum) || read_at(elf, rest + 4, 2, &shstrndx))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, 0, "ELF header truncated");
  elf->type = (uint16_t)type;
  elf->machine = (uint16_t)machine;
  elf->shoff = shoff;
  elf->shentsize = (uint16_t)shentsize;
  elf->shnum = (uint32_t)shnum;
  elf->shstrndx = (uint32_t)shstrndx;
  if (shoff == 0)
    return AMDDWARF_OK;
  if (shentsize < (elf->is64 ? 64u : 40u))
    return elf_fail(err, AMDDWARF_E_MALFORMED, rest, "section header entry size too small");
  if (elf->shnum == 0 || elf->shstrndx == 0xffff) {
    elf_section zero;
    amddwarf_status st = section_at(elf, 0, &zero, err);
    if (st != AMDDWARF_OK)
      return st;
    if (elf->shnum == 0)
      elf->shnum = zero.size > UINT32_MAX ? UINT32_MAX : (uint32_t)zero.size;
    if (elf->shstrndx == 0xffff)
      elf->shstrndx = (uint32_t)zero.link;
  }
  return AMDDWARF_OK;
}

/* Finds the section called NAME; AMDDWARF_NOT_FOUND if none. */
static amddwarf_status find_section(const elf_image *elf, const char *name, uint32_t *index,
                                    elf_section *out, amddwarf_error *err)
{
  if (elf->shoff == 0 || elf->shstrndx >= elf->shnum)
    return AMDDWARF_NOT_FOUND;
  elf_section strtab;
  amddwarf_status st = section_at(elf, elf->shstrndx, &strtab, err);
  if (st != AMDDWARF_OK)
    return st;
  if (!amddwarf_range_fits(strtab.offset, strtab.size, elf->size))
    return elf_fail(err, AMDDWARF_E_TRUNCATED, strtab.offset, "section name table truncated");
  size_t want = strlen(name) + 1;
  for (uint32_t i = 1; i < elf->shnum; i++) {
    elf_section s;
    if ((st = section_at(elf, i, &s, err)) != AMDDWARF_OK)
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

/* Size in bytes and kind of relocation TYPE: 0 for unknown. */
static unsigned reloc_size(uint16_t machine, uint32_t type, bool *pcrel, bool *high)
{
  *pcrel = false;
  *high = false;
  if (machine == ELF_EM_AMDGPU) {
    switch (type) {
    case 1: return 4;
    case 2: *high = true; return 4;
    case 3: return 8;
    case 4: *pcrel = true; return 4;
    case 5: *pcrel = true; return 8;
    case 6: return 4;
    default: return 0;
    }
  }
  if (machine == ELF_EM_X86_64) {
    switch (type) {
    case 1: return 8;
    case 2: *pcrel = true; return 4;
    case 10: case 11: return 4;
    case 24: *pcrel = true; return 8;
    default: return 0;
    }
  }
  return 0;
}

static amddwarf_status apply_relocations(const elf_image *elf, uint32_t target,
                                         const elf_section *sec, uint8_t *bytes,
                                         amddwarf_error *err)
{
  amddwarf_status st;
  for (uint32_t i = 1; i < elf->shnum; i++) {
    elf_section rel, symtab;
    if ((st = section_at(elf, i, &rel, err)) != AMDDWARF_OK)
      return st;
    if ((rel.type != ELF_SHT_RELA && rel.type != ELF_SHT_REL) || rel.info != target)
      continue;
    bool rela = rel.type == ELF_SHT_RELA;
    unsigned entsize = elf->is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
    unsigned word = elf->is64 ? 8 : 4;
    if (rel.link >= elf->shnum || (st = section_at(elf, (uint32_t)rel.link, &symtab, err)))
      return st ? st : elf_fail(err, AMDDWARF_E_MALFORMED, rel.offset, "bad symbol table link");
    if (!amddwarf_range_fits(rel.offset, rel.size, elf->size) ||
        !amddwarf_range_fits(symtab.offset, symtab.size, elf->size))
      return elf_fail(err, AMDDWARF_E_TRUNCATED, rel.offset, "relocation section truncated");
    unsigned symsize = elf->is64 ? 24 : 16, value_at = elf->is64 ? 8 : 4;
    for (uint64_t at = rel.offset; at + entsize <= rel.offset + rel.size; at += entsize) {
      uint64_t offset, info, addend = 0, sym_value = 0;
      if (read_at(elf, at, word, &offset) || read_at(elf, at + word, word, &info) ||
          (rela && read_at(elf, at + 2 * word, word, &addend)))
        return elf_fail(err, AMDDWARF_E_TRUNCATED, at, "relocation truncated");
      if (!elf->is64 && rela)
        addend = (uint64_t)(int64_t)(int32_t)addend;
      uint64_t sym = elf->is64 ? info >> 32 : info >> 8;
      uint32_t type = (uint32_t)(elf->is64 ? info & 0xffffffffu : info & 0xff);
      if (sym != 0) {
        uint64_t s_at = symtab.offset + sym * symsize;
        if (sym >= symtab.size / symsize || read_at(elf, s_at + value_at, word, &sym_value))
          return elf_fail(err, AMDDWARF_E_MALFORMED, at, "relocation symbol out of range");
      }
      bool pcrel, high;
      unsigned size = reloc_size(elf->machine, type, &pcrel, &high);
      if (size == 0)
        return amddwarf_fail(err, AMDDWARF_E_UNSUPPORTED, at,
                             "ELF: relocation type %u for machine %u at file offset 0x%" PRIx64
                             " is not supported", type, elf->machine, at);
      if (!amddwarf_range_fits(offset, size, sec->size))
        return elf_fail(err, AMDDWARF_E_MALFORMED, at, "relocation outside its section");
      if (!rela) {
        amddwarf_reader r;
        amddwarf_reader_init(&r, bytes, (size_t)sec->size);
        r.big_endian = elf->big_endian;
        r.pos = (size_t)offset;
        if (amddwarf_read_uint(&r, size, &addend) != AMDDWARF_OK)
          return elf_fail(err, AMDDWARF_E_TRUNCATED, at, "relocation target truncated");
      }
      uint64_t value = sym_value + addend;
      if (pcrel)
        value -= sec->addr + offset;
      if (high)
        value >>= 32;
      for (unsigned b = 0; b < size; b++) {
        unsigned shift = 8 * (elf->big_endian ? size - 1 - b : b);
        bytes[offset + b] = (uint8_t)(value >> shift);
      }
    }
  }
  return AMDDWARF_OK;
}

typedef struct elf_memory {
  const elf_image *elf;
} elf_memory;

/* Reads initialized bytes of the image at a virtual address, through the
   allocated sections. */
static amddwarf_status elf_read_memory(void *user, uint64_t address, void *buf, size_t size)
{
  const elf_memory *m = user;
  const elf_image *elf = m->elf;
  for (uint32_t i = 1; i < elf->shnum; i++) {
    elf_section s = {0};
    if (section_at(elf, i, &s, NULL) != AMDDWARF_OK)
      return AMDDWARF_E_IO;
    if (s.type == ELF_SHT_NOBITS || !(s.flags & 2) || address < s.addr ||
        address - s.addr >= s.size)
      continue;
    uint64_t within = address - s.addr;
    if (!amddwarf_range_fits(within, size, s.size) ||
        !amddwarf_range_fits(s.offset + within, size, elf->size))
      return AMDDWARF_E_IO;
    memcpy(buf, elf->data + s.offset + within, size);
    return AMDDWARF_OK;
  }
  return AMDDWARF_E_IO;
}

amddwarf_status amddwarf_cfi_open_elf(const uint8_t *image, size_t size,
                                      amddwarf_cfi_section_kind kind,
                                      const amddwarf_cfi_options *options, amddwarf_cfi **out,
                                      amddwarf_error *err)
{
  elf_image elf;
  memset(&elf, 0, sizeof elf);
  elf.data = image;
  elf.size = size;
  amddwarf_status st = parse_header(&elf, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_cfi_options o;
  if (options)
    o = *options;
  else
    amddwarf_cfi_options_init(&o);
  o.kind = kind;
  o.big_endian = elf.big_endian;
  if (!o.target) {
    if (elf.machine == ELF_EM_AMDGPU)
      o.target = elf.is64 ? amddwarf_cfi_target_amdgpu(64) : amddwarf_cfi_target_amdgpu32(64);
    else if (elf.machine == ELF_EM_X86_64)
      o.target = amddwarf_cfi_target_x86_64();
    else
      return amddwarf_fail(err, AMDDWARF_E_UNSUPPORTED, 18,
                           "ELF: no call frame target description for e_machine %u",
                           elf.machine);
  }
  uint32_t index = 0;
  elf_section sec;
  const char *name = kind == AMDDWARF_CFI_EH_FRAME ? ".eh_frame" : ".debug_frame";
  st = find_section(&elf, name, &index, &sec, err);
  if (st != AMDDWARF_OK)
    return st;
  if (sec.type == ELF_SHT_NOBITS)
    return AMDDWARF_NOT_FOUND;
  if (sec.flags & ELF_SHF_COMPRESSED)
    return amddwarf_fail(err, AMDDWARF_E_UNSUPPORTED, sec.offset,
                         "ELF: section %s is compressed", name);
  if (!amddwarf_range_fits(sec.offset, sec.size, size) || sec.size > SIZE_MAX)
    return elf_fail(err, AMDDWARF_E_TRUNCATED, sec.offset, "frame section runs past the file");
  uint32_t text_index;
  elf_section other;
  if (find_section(&elf, ".text", &text_index, &other, NULL) == AMDDWARF_OK) {
    o.have_text_base = true;
    o.text_base = other.addr;
  }
  if (find_section(&elf, ".got", &text_index, &other, NULL) == AMDDWARF_OK) {
    o.have_data_base = true;
    o.data_base = other.addr;
  }
  amddwarf_allocator a = amddwarf_allocator_resolve(o.allocator);
  size_t bytes_size = (size_t)sec.size;
  uint8_t *bytes = amddwarf_mem_alloc(&a, bytes_size ? bytes_size : 1);
  if (!bytes)
    return amddwarf_fail(err, AMDDWARF_E_NO_MEMORY, sec.offset, "ELF: section copy");
  memcpy(bytes, image + sec.offset, bytes_size);
  st = apply_relocations(&elf, index, &sec, bytes, err);
  if (st != AMDDWARF_OK) {
    amddwarf_mem_free(&a, bytes, bytes_size ? bytes_size : 1);
    return st;
  }
  elf_memory memory = {&elf};
  o.data = bytes;
  o.size = bytes_size;
  o.section_address = sec.addr;
  if (!o.read_memory) {
    o.read_memory = elf_read_memory;
    o.read_memory_user = &memory;
  }
  st = amddwarf_cfi_open(&o, out, err);
  if (st != AMDDWARF_OK) {
    amddwarf_mem_free(&a, bytes, bytes_size ? bytes_size : 1);
    return st;
  }
  (*out)->owned_data = bytes;
  (*out)->owned_size = bytes_size ? bytes_size : 1;
  if ((*out)->options.read_memory == elf_read_memory) {
    /* The image is not kept: later indirect pointers are unsupported. */
    (*out)->options.read_memory = NULL;
    (*out)->options.read_memory_user = NULL;
  }
  return AMDDWARF_OK;
}
