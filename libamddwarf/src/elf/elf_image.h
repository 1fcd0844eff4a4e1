/* The library's one ELF reader (ELF gABI): the header, the section header
 * table (with the extended section count and string table index of section
 * 0), section names, and the relocation rules of relocs.def (AMDGPU) and
 * relocs_x86_64.def. Any class and byte order; every read is bounds-checked.
 * The code object layer (elf.c) and the ELF entry of the CFI reader
 * (frame_elf.c) read through it; it keeps no state beyond the caller's
 * amddwarf_elf_image, which borrows the file bytes. */
#ifndef AMDDWARF_ELF_ELF_IMAGE_H
#define AMDDWARF_ELF_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/cfi.h>
#include <amddwarf/status.h>

enum {
  AMDDWARF_ELF_EM_X86_64 = 62,
  AMDDWARF_ELF_EM_AMDGPU = 224,
  AMDDWARF_ELF_ET_REL = 1,
  AMDDWARF_ELF_SHT_NULL = 0,
  AMDDWARF_ELF_SHT_PROGBITS = 1,
  AMDDWARF_ELF_SHT_SYMTAB = 2,
  AMDDWARF_ELF_SHT_RELA = 4,
  AMDDWARF_ELF_SHT_NOBITS = 8,
  AMDDWARF_ELF_SHT_REL = 9,
  AMDDWARF_ELF_SHF_ALLOC = 0x2,
  AMDDWARF_ELF_SHF_EXECINSTR = 0x4,
  AMDDWARF_ELF_SHF_COMPRESSED = 0x800,
};

typedef struct amddwarf_elf_section {
  uint32_t name, type;
  uint64_t flags, addr, offset, size, link, info, entsize;
} amddwarf_elf_section;

typedef struct amddwarf_elf_image {
  const uint8_t *data;
  size_t size;
  bool is64, big_endian;
  uint16_t machine, type;
  uint8_t os_abi, abi_version;
  uint32_t e_flags;
  uint64_t shoff;
  uint32_t shnum, shstrndx;
  uint16_t shentsize;
} amddwarf_elf_image;

/* Reads the ELF header of DATA (SIZE bytes, borrowed). E_MALFORMED (no ELF
   magic, bad class or encoding, section header entries too small),
   E_TRUNCATED; ERR names the file offset. */
amddwarf_status amddwarf__elf_image_open(amddwarf_elf_image *elf, const uint8_t *data,
                                        size_t size, amddwarf_error *err);

/* The header of section INDEX (below elf->shnum). E_TRUNCATED. */
amddwarf_status amddwarf__elf_section_at(const amddwarf_elf_image *elf, uint32_t index,
                                        amddwarf_elf_section *out, amddwarf_error *err);

/* The name of S from the section name table, or NULL when it is not inside
   the table or runs into its end. */
const char *amddwarf__elf_section_name(const amddwarf_elf_image *elf,
                                      const amddwarf_elf_section *s);

/* The section called NAME: AMDDWARF_NOT_FOUND when there is none. */
amddwarf_status amddwarf__elf_find_section(const amddwarf_elf_image *elf, const char *name,
                                          uint32_t *index, amddwarf_elf_section *out,
                                          amddwarf_error *err);

/* ---- relocations ---- */

typedef enum amddwarf_elf_reloc_how {
  AMDDWARF_RELOC_NONE,
  AMDDWARF_RELOC_ABS,
  AMDDWARF_RELOC_ABS_LO,
  AMDDWARF_RELOC_ABS_HI,
  AMDDWARF_RELOC_REL,
  AMDDWARF_RELOC_REL_LO,
  AMDDWARF_RELOC_REL_HI,
  AMDDWARF_RELOC_RELATIVE,
  AMDDWARF_RELOC_GOT,
} amddwarf_elf_reloc_how;

typedef struct amddwarf_elf_reloc_rule {
  const char *name;
  uint32_t type;
  uint32_t bytes;               /* size of the patched field */
  amddwarf_elf_reloc_how how;
} amddwarf_elf_reloc_rule;

/* The rule of relocation TYPE for e_machine MACHINE, or NULL when the table
   has none. */
const amddwarf_elf_reloc_rule *amddwarf__elf_reloc_find(uint16_t machine, uint32_t type);

/* The value RULE writes for symbol value S, addend A and place P (RULE is
   neither NONE nor GOT). */
uint64_t amddwarf__elf_reloc_value(const amddwarf_elf_reloc_rule *rule, uint64_t s, uint64_t a,
                                  uint64_t p);

/* Writes the low RULE->bytes bytes of VALUE at FIELD in the given order. */
void amddwarf__elf_reloc_write(const amddwarf_elf_reloc_rule *rule, uint8_t *field,
                              uint64_t value, bool big_endian);

/* Applies the REL and RELA sections that target section TARGET (header SEC)
   to BYTES, a copy of its SEC->size bytes. Symbol values are taken as they
   are (a relocatable file's sections load at 0). E_UNSUPPORTED names a
   relocation type the tables do not have or one needing a GOT; E_MALFORMED,
   E_TRUNCATED name the entry's file offset. */
amddwarf_status amddwarf__elf_relocate(const amddwarf_elf_image *elf, uint32_t target,
                                      const amddwarf_elf_section *sec, uint8_t *bytes,
                                      amddwarf_error *err);

/* amddwarf_cfi_open_elf on an image already read (frame_elf.c): the code
   object's .eh_frame is opened through the object's own image. */
amddwarf_status amddwarf__cfi_open_elf_image(const amddwarf_elf_image *image,
                                            amddwarf_cfi_section_kind kind,
                                            const amddwarf_cfi_options *options,
                                            amddwarf_cfi **out, amddwarf_error *err);

#endif
