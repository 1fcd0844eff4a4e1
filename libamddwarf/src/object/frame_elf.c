/* amddwarf_cfi_open_elf: .debug_frame or .eh_frame of any ELF file, found
 * and relocated by the ELF reader (elf_image.c) and handed to the CFI reader
 * as bytes. Unlike a code object, the file may be 32-bit, big-endian or
 * x86-64. */
#include <string.h>

#include <amddwarf/cfi.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "elf/elf_image.h"

/* Reads initialized bytes of the image at a virtual address, through the
   allocated sections. */
static amddwarf_status elf_read_memory(void *user, uint64_t address, void *buf, size_t size)
{
  const amddwarf_elf_image *elf = user;
  for (uint32_t i = 1; i < elf->shnum; i++) {
    amddwarf_elf_section s;
    if (amddwarf__elf_section_at(elf, i, &s, NULL) != AMDDWARF_OK)
      return AMDDWARF_E_IO;
    if (s.type == AMDDWARF_ELF_SHT_NOBITS || !(s.flags & AMDDWARF_ELF_SHF_ALLOC) ||
        address < s.addr || address - s.addr >= s.size)
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

/* The target e_machine names, for options without one. */
static amddwarf_status default_target(const amddwarf_elf_image *elf,
                                      const amddwarf_cfi_target **target, amddwarf_error *err)
{
  if (elf->machine == AMDDWARF_ELF_EM_AMDGPU)
    *target = elf->is64 ? amddwarf_cfi_target_amdgpu(64) : amddwarf_cfi_target_amdgpu32(64);
  else if (elf->machine == AMDDWARF_ELF_EM_X86_64)
    *target = amddwarf_cfi_target_x86_64();
  else
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, 18,
                         "ELF: no call frame target description for e_machine %u",
                         elf->machine);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__cfi_open_elf_image(const amddwarf_elf_image *image,
                                            amddwarf_cfi_section_kind kind,
                                            const amddwarf_cfi_options *options,
                                            amddwarf_cfi **out, amddwarf_error *err)
{
  /* A copy: the memory reader below is handed its address. */
  amddwarf_elf_image elf = *image;
  amddwarf_status st;
  amddwarf_cfi_options o;
  if (options)
    o = *options;
  else
    amddwarf_cfi_options_init(&o);
  o.kind = kind;
  o.big_endian = elf.big_endian;
  if (!o.target && (st = default_target(&elf, &o.target, err)) != AMDDWARF_OK)
    return st;
  uint32_t index = 0;
  amddwarf_elf_section sec;
  const char *name = kind == AMDDWARF_CFI_EH_FRAME ? ".eh_frame" : ".debug_frame";
  st = amddwarf__elf_find_section(&elf, name, &index, &sec, err);
  if (st != AMDDWARF_OK)
    return st;
  if (sec.type == AMDDWARF_ELF_SHT_NOBITS)
    return AMDDWARF_NOT_FOUND;
  if (sec.flags & AMDDWARF_ELF_SHF_COMPRESSED)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, sec.offset,
                         "ELF: section %s is compressed", name);
  if (!amddwarf_range_fits(sec.offset, sec.size, elf.size) || sec.size > SIZE_MAX)
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, sec.offset,
                         "ELF: frame section runs past the file (file offset 0x%llx)",
                         (unsigned long long)sec.offset);
  uint32_t other_index;
  amddwarf_elf_section other;
  if (amddwarf__elf_find_section(&elf, ".text", &other_index, &other, NULL) == AMDDWARF_OK) {
    o.have_text_base = true;
    o.text_base = other.addr;
  }
  if (amddwarf__elf_find_section(&elf, ".got", &other_index, &other, NULL) == AMDDWARF_OK) {
    o.have_data_base = true;
    o.data_base = other.addr;
  }
  /* The relocated copy is handed over as bytes the handle copies again:
     frame sections are small next to the rows computed from them. */
  amddwarf_allocator a = amddwarf__allocator_resolve(o.allocator);
  size_t bytes_size = (size_t)sec.size, alloc_size = bytes_size ? bytes_size : 1;
  uint8_t *bytes = amddwarf__mem_alloc(&a, alloc_size);
  if (!bytes)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, sec.offset, "ELF: section copy");
  memcpy(bytes, elf.data + sec.offset, bytes_size);
  st = amddwarf__elf_relocate(&elf, index, &sec, bytes, err);
  if (st == AMDDWARF_OK) {
    bool own_memory = !o.read_memory;
    o.data = bytes;
    o.size = bytes_size;
    o.copy_data = true;
    o.section_address = sec.addr;
    if (own_memory) {
      /* Indirect pointers read while opening; the image is not kept, so
         later ones are unsupported. */
      o.read_memory = elf_read_memory;
      o.read_memory_user = &elf;
    }
    st = amddwarf_cfi_open(&o, out, err);
    if (st == AMDDWARF_OK && own_memory)
      amddwarf_cfi_set_read_memory(*out, NULL, NULL);
  }
  amddwarf__mem_free(&a, bytes, alloc_size);
  return st;
}

amddwarf_status amddwarf_cfi_open_elf(const uint8_t *image, size_t size,
                                      amddwarf_cfi_section_kind kind,
                                      const amddwarf_cfi_options *options, amddwarf_cfi **out,
                                      amddwarf_error *err)
{
  amddwarf_elf_image elf;
  amddwarf_status st = amddwarf__elf_image_open(&elf, image, size, err);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__cfi_open_elf_image(&elf, kind, options, out, err);
}
