/* Test helper: ELF images; see elf_build.h. */
#include "elf_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

enum { MAX_SECTIONS = 32 };

static void put(uint8_t *at, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; ++i)
    at[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *at, unsigned n)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= (uint64_t)at[i] << (8 * i);
  return v;
}

static void write_section_header(uint8_t *h, uint32_t name, const elf_sec *s, uint64_t offset)
{
  put(h, name, 4);
  put(h + 4, s->type, 4);
  put(h + 16, s->addr, 8);
  put(h + 24, offset, 8);
  put(h + 32, s->size, 8);
  put(h + 40, s->link, 4);
  put(h + 44, s->info, 4);
  put(h + 56, s->entsize, 8);
}

size_t elf_build(uint8_t *out, size_t cap, const elf_params *p, const elf_sec *secs, size_t n)
{
  assert_true(n + 2 <= MAX_SECTIONS);
  uint64_t offsets[MAX_SECTIONS];
  uint32_t names[MAX_SECTIONS];
  byte_buf shstr = {.len = 0};
  memset(out, 0, cap);
  bb_u8(&shstr, 0);
  size_t pos = TEST_ELF_HEADER_SIZE;
  for (size_t i = 0; i < n; ++i) {
    pos = (pos + 7) & ~(size_t)7;
    assert_true(pos + secs[i].size <= cap);
    offsets[i] = pos;
    if (secs[i].size)
      memcpy(out + pos, secs[i].data, secs[i].size);
    pos += secs[i].size;
    names[i] = (uint32_t)shstr.len;
    bb_str(&shstr, secs[i].name);
  }
  uint32_t shstr_name = (uint32_t)shstr.len;
  bb_str(&shstr, ".shstrtab");
  uint64_t shstr_offset = pos;
  assert_true(pos + shstr.len <= cap);
  memcpy(out + pos, shstr.data, shstr.len);
  pos = (pos + shstr.len + 7) & ~(size_t)7;
  uint64_t shoff = pos;
  size_t count = n + 2;
  assert_true(shoff + count * TEST_ELF_SHDR_SIZE <= cap);

  memcpy(out, "\177ELF", 4);
  out[4] = 2;  /* ELFCLASS64 */
  out[5] = 1;  /* ELFDATA2LSB */
  out[6] = 1;  /* EV_CURRENT */
  out[7] = 64; /* ELFOSABI_AMDGPU_HSA */
  out[8] = p->abi_version;
  put(out + 16, p->type, 2);
  put(out + 18, p->machine, 2);
  put(out + 20, 1, 4); /* e_version */
  put(out + 40, shoff, 8);
  put(out + 48, p->flags, 4);
  put(out + 52, TEST_ELF_HEADER_SIZE, 2);
  put(out + 58, TEST_ELF_SHDR_SIZE, 2);
  put(out + 60, count, 2);
  put(out + 62, count - 1, 2); /* e_shstrndx: the last */

  /* Header 0 stays null. */
  for (size_t i = 0; i < n; ++i)
    write_section_header(out + shoff + (i + 1) * TEST_ELF_SHDR_SIZE, names[i], &secs[i],
                         offsets[i]);
  elf_sec strtab = {".shstrtab", TEST_SHT_STRTAB, shstr.data, shstr.len, 0, 0, 0, 0};
  write_section_header(out + shoff + (n + 1) * TEST_ELF_SHDR_SIZE, shstr_name, &strtab,
                       shstr_offset);
  return shoff + count * TEST_ELF_SHDR_SIZE;
}

uint8_t *elf_section_header(uint8_t *image, size_t index)
{
  return image + get(image + 40, 8) + index * TEST_ELF_SHDR_SIZE;
}

uint64_t elf_section_offset(const uint8_t *image, size_t index)
{
  return get(image + get(image + 40, 8) + index * TEST_ELF_SHDR_SIZE + 24, 8);
}

void elf_sym(byte_buf *symtab, uint32_t name, uint8_t info, uint16_t shndx, uint64_t value,
             uint64_t size)
{
  bb_uint(symtab, name, 4);
  bb_u8(symtab, info);
  bb_u8(symtab, 0); /* st_other */
  bb_uint(symtab, shndx, 2);
  bb_uint(symtab, value, 8);
  bb_uint(symtab, size, 8);
}

void elf_rela(byte_buf *rela, uint64_t offset, uint32_t type, uint32_t symbol, int64_t addend)
{
  bb_uint(rela, offset, 8);
  bb_uint(rela, ((uint64_t)symbol << 32) | type, 8);
  bb_uint(rela, (uint64_t)addend, 8);
}
