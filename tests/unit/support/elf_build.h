/* Test helper: writing small AMDGPU ELF64 images in memory, with their
 * symbol tables and relocations. */
#ifndef AMDDWARF_TEST_ELF_BUILD_H
#define AMDDWARF_TEST_ELF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buf.h"

enum {
  TEST_ET_REL = 1,
  TEST_ET_EXEC = 2,
  TEST_ET_DYN = 3,
  TEST_EM_AMDGPU = 224,
  TEST_ELF_HEADER_SIZE = 64,
  TEST_ELF_SHDR_SIZE = 64,
  TEST_SHT_PROGBITS = 1,
  TEST_SHT_SYMTAB = 2,
  TEST_SHT_STRTAB = 3,
  TEST_SHT_RELA = 4,
  TEST_SHT_NOTE = 7,
};

typedef struct elf_sec {
  const char *name;
  uint32_t type; /* SHT_* */
  const uint8_t *data;
  size_t size;
  uint32_t link, info;
  uint64_t entsize, addr;
} elf_sec;

/* A section holding B's bytes. */
#define ELF_SEC(name, type, b) {(name), (type), (b)->data, (b)->len, 0, 0, 0, 0}

typedef struct elf_params {
  uint16_t type;    /* TEST_ET_* */
  uint16_t machine; /* TEST_EM_AMDGPU */
  uint8_t abi_version;
  uint32_t flags;
} elf_params;

/* Writes an ELF64 little-endian image (OS ABI AMDGPU_HSA) into OUT: the
   header, the sections' contents 8-byte aligned, .shstrtab, then the section
   headers (index 0 null, then SECS in order, then .shstrtab). Returns its size. */
size_t elf_build(uint8_t *out, size_t cap, const elf_params *p, const elf_sec *secs, size_t n);

/* The section header of section INDEX (0 is the null section) in IMAGE. */
uint8_t *elf_section_header(uint8_t *image, size_t index);
/* The file offset of section INDEX's contents. */
uint64_t elf_section_offset(const uint8_t *image, size_t index);

/* Appends an Elf64_Sym and an Elf64_Rela. */
void elf_sym(byte_buf *symtab, uint32_t name, uint8_t info, uint16_t shndx, uint64_t value,
             uint64_t size);
void elf_rela(byte_buf *rela, uint64_t offset, uint32_t type, uint32_t symbol, int64_t addend);

#endif
