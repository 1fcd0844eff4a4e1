/* A minimal ELF note finder: just enough of the ELF format (System V gABI,
 * "Sections" and "Note Section") to find the NT_AMDGPU_METADATA note that
 * carries PAL metadata, so that the printf module needs nothing but common/.
 *
 * Sections of type SHT_NOTE are searched; a file without section headers is
 * searched through its PT_NOTE program headers. Both ELF classes and both byte
 * orders are read; every offset and size goes through the bounds-checked
 * reader and checked arithmetic. */
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/reader.h"
#include "printf/printf_internal.h"

enum {
  ELF_CLASS32 = 1,
  ELF_CLASS64 = 2,
  ELF_DATA_LSB = 1,
  ELF_DATA_MSB = 2,
  ELF_SHT_NOTE = 7,
  ELF_PT_NOTE = 4,
  /* Hostile section counts are bounded by the file size anyway; this bound
     keeps the walk short. */
  ELF_MAX_HEADERS = 65536,
};

static const char amdgpu_note_name[] = "AMDGPU";

bool amddwarf__printf_is_elf(const uint8_t *data, size_t size)
{
  return size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F';
}

typedef struct elf_file {
  const uint8_t *data;
  size_t size;
  bool is64;
  bool big_endian;
} elf_file;

static void elf_reader_at(const elf_file *elf, amddwarf_reader *r, uint64_t offset)
{
  amddwarf_reader_init(r, elf->data, elf->size);
  r->big_endian = elf->big_endian;
  r->pos = offset <= elf->size ? (size_t)offset : elf->size;
}

/* Reads a class-sized word (4 or 8 bytes). */
static amddwarf_status elf_read_word(const elf_file *elf, amddwarf_reader *r, uint64_t *out)
{
  return amddwarf__read_uint(r, elf->is64 ? 8 : 4, out);
}

/* Walks the notes of [OFFSET, OFFSET + SIZE) with the given alignment. */
static amddwarf_status elf_walk_notes(const elf_file *elf, uint64_t offset, uint64_t size,
                                      uint64_t align, printf_note_fn fn, void *user,
                                      size_t *found, amddwarf_error *err)
{
  if (!amddwarf_range_fits(offset, size, elf->size))
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, offset,
                         "ELF note region at offset %llu (%llu bytes) lies outside the file "
                         "(%zu bytes)",
                         (unsigned long long)offset, (unsigned long long)size, elf->size);
  amddwarf_reader r;
  amddwarf_reader_init(&r, elf->data + offset, (size_t)size);
  r.big_endian = elf->big_endian;
  while (!amddwarf_reader_at_end(&r)) {
    size_t note_start = r.pos;
    uint32_t namesz, descsz, type;
    const uint8_t *name, *desc;
    uint64_t name_padded = 0, desc_padded = 0;
    if (amddwarf__read_u32(&r, &namesz) != AMDDWARF_OK ||
        amddwarf__read_u32(&r, &descsz) != AMDDWARF_OK ||
        amddwarf__read_u32(&r, &type) != AMDDWARF_OK)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, offset + note_start,
                           "ELF note header at offset %llu is truncated",
                           (unsigned long long)(offset + note_start));
    name_padded = ((uint64_t)namesz + align - 1) / align * align;
    desc_padded = ((uint64_t)descsz + align - 1) / align * align;
    if (amddwarf__read_bytes(&r, namesz, &name) != AMDDWARF_OK ||
        amddwarf__reader_skip(&r, name_padded - namesz) != AMDDWARF_OK)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, offset + note_start,
                           "ELF note at offset %llu: name of %u bytes runs past its section",
                           (unsigned long long)(offset + note_start), namesz);
    size_t desc_start = r.pos;
    if (amddwarf__read_bytes(&r, descsz, &desc) != AMDDWARF_OK)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, offset + note_start,
                           "ELF note at offset %llu: descriptor of %u bytes runs past its section",
                           (unsigned long long)(offset + note_start), descsz);
    /* The last descriptor's padding may be missing at the end of a section. */
    uint64_t pad = desc_padded - descsz;
    if (pad > amddwarf_reader_remaining(&r))
      pad = amddwarf_reader_remaining(&r);
    (void)amddwarf__reader_skip(&r, pad);
    if (type == PRINTF_NT_AMDGPU_METADATA && namesz == sizeof amdgpu_note_name &&
        memcmp(name, amdgpu_note_name, sizeof amdgpu_note_name) == 0) {
      if (found)
        (*found)++;
      amddwarf_status status = fn(user, desc, descsz, offset + desc_start, err);
      if (status != AMDDWARF_OK)
        return status;
    }
  }
  return AMDDWARF_OK;
}

/* Reads the table of NUM headers of ENTSIZE bytes at OFFSET; for each note
   header calls elf_walk_notes. SECTIONS picks section or program headers. */
static amddwarf_status elf_walk_headers(const elf_file *elf, uint64_t table, uint64_t num,
                                        uint64_t entsize, bool sections, printf_note_fn fn,
                                        void *user, size_t *found, amddwarf_error *err)
{
  uint64_t table_size;
  uint64_t min_entsize = sections ? (elf->is64 ? 64 : 40) : (elf->is64 ? 56 : 32);
  if (num > ELF_MAX_HEADERS || entsize < min_entsize ||
      amddwarf_mul_overflow_u64(num, entsize, &table_size) ||
      !amddwarf_range_fits(table, table_size, elf->size))
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, table,
                         "ELF %s header table at offset %llu (%llu entries of %llu bytes) does "
                         "not fit in the file (%zu bytes)",
                         sections ? "section" : "program", (unsigned long long)table,
                         (unsigned long long)num, (unsigned long long)entsize, elf->size);
  for (uint64_t i = 0; i < num; i++) {
    amddwarf_reader r;
    uint64_t type, offset = 0, size = 0, align = 0, word;
    elf_reader_at(elf, &r, table + i * entsize);
    if (sections) {
      /* sh_name u32, sh_type u32, sh_flags W, sh_addr W, sh_offset W, sh_size W,
         sh_link u32, sh_info u32, sh_addralign W */
      uint32_t name, type32, link, info;
      (void)amddwarf__read_u32(&r, &name);
      (void)amddwarf__read_u32(&r, &type32);
      type = type32;
      (void)elf_read_word(elf, &r, &word);
      (void)elf_read_word(elf, &r, &word);
      (void)elf_read_word(elf, &r, &offset);
      (void)elf_read_word(elf, &r, &size);
      (void)amddwarf__read_u32(&r, &link);
      (void)amddwarf__read_u32(&r, &info);
      (void)elf_read_word(elf, &r, &align);
      if (type != ELF_SHT_NOTE)
        continue;
    } else if (elf->is64) {
      /* p_type u32, p_flags u32, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align */
      uint32_t type32, flags;
      (void)amddwarf__read_u32(&r, &type32);
      (void)amddwarf__read_u32(&r, &flags);
      type = type32;
      (void)amddwarf__read_u64(&r, &offset);
      (void)amddwarf__read_u64(&r, &word);
      (void)amddwarf__read_u64(&r, &word);
      (void)amddwarf__read_u64(&r, &size);
      (void)amddwarf__read_u64(&r, &word);
      (void)amddwarf__read_u64(&r, &align);
      if (type != ELF_PT_NOTE)
        continue;
    } else {
      /* p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align */
      (void)amddwarf__read_uint(&r, 4, &type);
      (void)amddwarf__read_uint(&r, 4, &offset);
      (void)amddwarf__read_uint(&r, 4, &word);
      (void)amddwarf__read_uint(&r, 4, &word);
      (void)amddwarf__read_uint(&r, 4, &size);
      (void)amddwarf__read_uint(&r, 4, &word);
      (void)amddwarf__read_uint(&r, 4, &word);
      (void)amddwarf__read_uint(&r, 4, &align);
      if (type != ELF_PT_NOTE)
        continue;
    }
    amddwarf_status status =
        elf_walk_notes(elf, offset, size, align == 8 ? 8 : 4, fn, user, found, err);
    if (status != AMDDWARF_OK)
      return status;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__printf_elf_metadata_notes(const uint8_t *data, size_t size, printf_note_fn fn,
                                          void *user, size_t *found, amddwarf_error *err)
{
  size_t count = 0;
  if (found)
    *found = 0;
  if (!amddwarf__printf_is_elf(data, size) || size < 16)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, 0, "not an ELF file (bad magic or size)");
  elf_file elf = {.data = data, .size = size};
  if (data[4] != ELF_CLASS32 && data[4] != ELF_CLASS64)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, 4, "ELF class %u is neither 1 nor 2",
                         data[4]);
  if (data[5] != ELF_DATA_LSB && data[5] != ELF_DATA_MSB)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, 5, "ELF data encoding %u is neither 1 nor 2",
                         data[5]);
  elf.is64 = data[4] == ELF_CLASS64;
  elf.big_endian = data[5] == ELF_DATA_MSB;
  if (size < (elf.is64 ? 64u : 52u))
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, 0,
                         "ELF header is truncated (%zu bytes)", size);
  /* e_type u16, e_machine u16, e_version u32, e_entry W, e_phoff W, e_shoff W,
     e_flags u32, e_ehsize u16, e_phentsize u16, e_phnum u16, e_shentsize u16,
     e_shnum u16, e_shstrndx u16 */
  amddwarf_reader r;
  uint64_t entry, phoff, shoff;
  uint16_t half, phentsize, phnum, shentsize, shnum;
  uint32_t word32;
  elf_reader_at(&elf, &r, 16);
  (void)amddwarf__read_u16(&r, &half);
  (void)amddwarf__read_u16(&r, &half);
  (void)amddwarf__read_u32(&r, &word32);
  (void)elf_read_word(&elf, &r, &entry);
  (void)elf_read_word(&elf, &r, &phoff);
  (void)elf_read_word(&elf, &r, &shoff);
  (void)amddwarf__read_u32(&r, &word32);
  (void)amddwarf__read_u16(&r, &half);
  (void)amddwarf__read_u16(&r, &phentsize);
  (void)amddwarf__read_u16(&r, &phnum);
  (void)amddwarf__read_u16(&r, &shentsize);
  (void)amddwarf__read_u16(&r, &shnum);
  amddwarf_status status = AMDDWARF_OK;
  uint64_t sections = shnum;
  if (shoff != 0 && shnum == 0) {
    /* More than 0xff00 sections: the count is sh_size of section 0. */
    amddwarf_reader s;
    uint64_t word;
    elf_reader_at(&elf, &s, shoff);
    if (amddwarf__reader_skip(&s, elf.is64 ? 32 : 20) != AMDDWARF_OK ||
        elf_read_word(&elf, &s, &word) != AMDDWARF_OK)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_ELF, shoff,
                           "ELF section header 0 at offset %llu is truncated",
                           (unsigned long long)shoff);
    sections = word;
  }
  if (shoff != 0 && sections != 0)
    status = elf_walk_headers(&elf, shoff, sections, shentsize, true, fn, user, &count, err);
  else if (phoff != 0 && phnum != 0)
    status = elf_walk_headers(&elf, phoff, phnum, phentsize, false, fn, user, &count, err);
  if (found)
    *found = count;
  return status;
}
