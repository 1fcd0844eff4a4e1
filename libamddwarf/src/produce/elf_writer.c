/* The code-object writer: an AMDGPU ELF (relocatable or shared) holding .text,
 * symbols and the debug sections, written with libelf (to an anonymous
 * temporary file, since libelf writes through a file descriptor) and handed
 * back as bytes.
 *
 * Layout (ELF_F_LAYOUT, offsets chosen here): ELF header, the PT_LOAD
 * program header (shared objects), .text at 0x100 (relocatable, address 0)
 * or at 0x1000 (shared, address 0x1000), the debug sections, .symtab,
 * .strtab, .shstrtab, then the section headers. Addresses in the DWARF are
 * final: no relocation sections are written. */
#define _POSIX_C_SOURCE 200809L
#include <amddwarf/produce.h>

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <amddwarf/target.h>

#include "common/error.h"
#include "common/mem.h"
#include "produce/produce_internal.h"

enum {
  EM_AMDGPU_ = 224,
  ELFOSABI_AMDGPU_HSA_ = 64,
  ELFABIVERSION_AMDGPU_HSA_V5 = 3,
  TEXT_OFFSET_REL = 0x100,
  TEXT_BASE_SHARED = 0x1000,
  MAX_SECTIONS = 16,
};

void amddwarf_write_options_init(amddwarf_write_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->processor = "gfx900";
}

uint64_t amddwarf_write_text_base(const amddwarf_write_options *options)
{
  return options && options->shared ? TEXT_BASE_SHARED : 0;
}

void amddwarf_produce_free_bytes(const amddwarf_allocator *alloc, uint8_t *bytes, size_t size)
{
  amddwarf_allocator a = amddwarf__allocator_resolve(alloc);
  amddwarf__mem_free(&a, bytes, size);
}

typedef struct out_section {
  const char *name;
  uint32_t type;
  uint64_t flags;
  const uint8_t *data;
  size_t size;
  uint64_t align;
  uint64_t entsize;
  uint64_t offset, addr;
  uint32_t link, info;
  size_t name_offset;
} out_section;

static amddwarf_status elf_failure(amddwarf_error *err, const char *what)
{
  return amddwarf__fail(err, AMDDWARF_E_PRODUCE_ELF, AMDDWARF_NO_OFFSET, "libelf: %s: %s", what,
                       elf_errmsg(-1));
}

static uint64_t align_up(uint64_t value, uint64_t align)
{
  return align > 1 ? (value + align - 1) / align * align : value;
}

/* Writes the sections through libelf to FD. */
static amddwarf_status write_elf(int fd, const amddwarf_write_options *o, uint32_t e_flags,
                                 out_section *secs, size_t count, uint64_t shoff,
                                 size_t shstrndx, amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
  if (!elf)
    return elf_failure(err, "elf_begin");
  GElf_Ehdr ehdr;
  if (!gelf_newehdr(elf, ELFCLASS64)) {
    st = elf_failure(err, "gelf_newehdr");
    goto cleanup;
  }
  gelf_getehdr(elf, &ehdr);
  ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
  ehdr.e_ident[EI_OSABI] = ELFOSABI_AMDGPU_HSA_;
  ehdr.e_ident[EI_ABIVERSION] = ELFABIVERSION_AMDGPU_HSA_V5;
  ehdr.e_type = o->shared ? ET_DYN : ET_REL;
  ehdr.e_machine = EM_AMDGPU_;
  ehdr.e_version = EV_CURRENT;
  ehdr.e_flags = e_flags;
  ehdr.e_shoff = shoff;
  ehdr.e_shstrndx = (GElf_Half)shstrndx;
  if (o->shared) {
    if (!gelf_newphdr(elf, 1)) {
      st = elf_failure(err, "gelf_newphdr");
      goto cleanup;
    }
    ehdr.e_phoff = 64;
    ehdr.e_phnum = 1;
    ehdr.e_phentsize = (GElf_Half)gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT);
  }
  if (!gelf_update_ehdr(elf, &ehdr)) {
    st = elf_failure(err, "gelf_update_ehdr");
    goto cleanup;
  }
  for (size_t i = 1; i < count; i++) {
    Elf_Scn *scn = elf_newscn(elf);
    Elf_Data *data = scn ? elf_newdata(scn) : NULL;
    GElf_Shdr shdr;
    if (!data || !gelf_getshdr(scn, &shdr)) {
      st = elf_failure(err, secs[i].name);
      goto cleanup;
    }
    data->d_buf = (void *)(uintptr_t)secs[i].data;
    data->d_size = secs[i].size;
    data->d_type = ELF_T_BYTE;
    data->d_align = secs[i].align;
    data->d_off = 0;
    data->d_version = EV_CURRENT;
    shdr.sh_name = (GElf_Word)secs[i].name_offset;
    shdr.sh_type = secs[i].type;
    shdr.sh_flags = secs[i].flags;
    shdr.sh_addr = secs[i].addr;
    shdr.sh_offset = secs[i].offset;
    shdr.sh_size = secs[i].size;
    shdr.sh_link = secs[i].link;
    shdr.sh_info = secs[i].info;
    shdr.sh_addralign = secs[i].align;
    shdr.sh_entsize = secs[i].entsize;
    if (!gelf_update_shdr(scn, &shdr)) {
      st = elf_failure(err, secs[i].name);
      goto cleanup;
    }
  }
  if (o->shared) {
    GElf_Phdr phdr;
    memset(&phdr, 0, sizeof phdr);
    phdr.p_type = PT_LOAD;
    phdr.p_flags = PF_R | PF_X;
    phdr.p_offset = secs[1].offset;
    phdr.p_vaddr = phdr.p_paddr = secs[1].addr;
    phdr.p_filesz = phdr.p_memsz = secs[1].size;
    phdr.p_align = 0x1000;
    if (!gelf_update_phdr(elf, 0, &phdr)) {
      st = elf_failure(err, "gelf_update_phdr");
      goto cleanup;
    }
  }
  elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
  if (elf_update(elf, ELF_C_WRITE) < 0)
    st = elf_failure(err, "elf_update");
cleanup:
  elf_end(elf);
  return st;
}

static amddwarf_status read_back(FILE *file, const amddwarf_allocator *alloc, uint8_t **out,
                                 size_t *size, amddwarf_error *err)
{
  if (fseek(file, 0, SEEK_END) != 0)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "temporary file: seek failed");
  long length = ftell(file);
  if (length <= 0 || fseek(file, 0, SEEK_SET) != 0)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "temporary file: empty");
  uint8_t *bytes = amddwarf__mem_alloc(alloc, (size_t)length);
  if (!bytes)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (fread(bytes, 1, (size_t)length, file) != (size_t)length) {
    amddwarf__mem_free(alloc, bytes, (size_t)length);
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "temporary file: short read");
  }
  *out = bytes;
  *size = (size_t)length;
  return AMDDWARF_OK;
}

static void sym(amddwarf_buf *symtab, uint32_t name, uint8_t info, uint16_t shndx,
                uint64_t value, uint64_t size)
{
  amddwarf__buf_uint(symtab, name, 4);
  amddwarf__buf_u8(symtab, info);
  amddwarf__buf_u8(symtab, 0);
  amddwarf__buf_uint(symtab, shndx, 2);
  amddwarf__buf_uint(symtab, value, 8);
  amddwarf__buf_uint(symtab, size, 8);
}

amddwarf_status amddwarf_object_write(amddwarf_dwarf_builder *b,
                                      const amddwarf_write_options *options, uint8_t **out,
                                      size_t *size, amddwarf_error *err)
{
  if (!options || !out || !size || options->struct_size < sizeof *options ||
      (options->text_size && !options->text) ||
      (options->symbol_count && !options->symbols))
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  *size = 0;
  const amddwarf_allocator *alloc = b ? amddwarf__dwarf_builder_allocator(b) : NULL;
  amddwarf_allocator fallback = amddwarf__allocator_resolve(NULL);
  if (!alloc)
    alloc = &fallback;
  amddwarf_isa_info isa;
  if (!options->processor || amddwarf_isa_info_by_name(options->processor, &isa) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_UNKNOWN_PROCESSOR, AMDDWARF_NO_OFFSET,
                         "unknown AMDGPU processor '%s'",
                         options->processor ? options->processor : "(none)");
  if (options->xnack < 0 || options->xnack > 3 || options->sramecc < 0 || options->sramecc > 3)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "xnack/sramecc settings are 0-3 (unsupported, any, off, on)");
  uint32_t e_flags = isa.mach | ((uint32_t)options->xnack << 8) | ((uint32_t)options->sramecc << 10);
  uint64_t text_base = amddwarf_write_text_base(options);

  amddwarf_status st = AMDDWARF_OK;
  amddwarf_dwarf_sections dw;
  memset(&dw, 0, sizeof dw);
  int have_dwarf = 0;
  uint8_t *frame = NULL, *result = NULL;
  size_t frame_size = 0, result_size = 0;
  amddwarf_buf symtab, strtab, shstrtab;
  amddwarf__buf_init(&symtab, alloc);
  amddwarf__buf_init(&strtab, alloc);
  amddwarf__buf_init(&shstrtab, alloc);
  FILE *file = NULL;
  if (b) {
    st = amddwarf__dwarf_write_sections(b, text_base, options->text_size, &dw, err);
    if (st != AMDDWARF_OK)
      goto cleanup;
    have_dwarf = 1;
  }
  int dwarf_sections = have_dwarf && dw.info.size > 0;
  if (options->cfi) {
    st = amddwarf_cfi_builder_write(options->cfi, text_base, &frame, &frame_size, err);
    if (st != AMDDWARF_OK)
      goto cleanup;
  }
  int v5 = b && amddwarf__dwarf_builder_version(b) >= 5;
  out_section secs[MAX_SECTIONS];
  memset(secs, 0, sizeof secs);
  size_t count = 1;
  secs[count++] = (out_section){".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, options->text,
                                options->text_size, 256, 0, 0, 0, 0, 0, 0};
  if (dwarf_sections) {
    struct {
      const char *name;
      amddwarf_buf *buf;
    } debug[] = {
        {".debug_abbrev", &dw.abbrev},
        {".debug_info", &dw.info},
        {".debug_str", &dw.str},
        {".debug_line", &dw.line},
        {v5 ? ".debug_loclists" : ".debug_loc", &dw.loc},
        {v5 ? ".debug_rnglists" : ".debug_ranges", &dw.ranges},
        {".debug_addr", &dw.addr},
    };
    for (size_t i = 0; i < sizeof debug / sizeof debug[0]; i++)
      if (debug[i].buf->size)
        secs[count++] = (out_section){debug[i].name, SHT_PROGBITS, 0, debug[i].buf->data,
                                      debug[i].buf->size, 1, 0, 0, 0, 0, 0, 0};
    for (size_t i = 2; i < count; i++)
      if (strcmp(secs[i].name, ".debug_str") == 0) {
        secs[i].flags = SHF_MERGE | SHF_STRINGS;
        secs[i].entsize = 1;
      }
  }
  if (frame_size)
    secs[count++] = (out_section){".debug_frame", SHT_PROGBITS, 0, frame, frame_size, 8, 0,
                                  0, 0, 0, 0, 0};
  /* symbols: null, .text section symbol, locals, globals */
  amddwarf__buf_u8(&strtab, 0);
  sym(&symtab, 0, 0, 0, 0, 0);
  sym(&symtab, 0, GELF_ST_INFO(STB_LOCAL, STT_SECTION), 1, text_base, 0);
  uint32_t first_global = 2;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < options->symbol_count; i++) {
      const amddwarf_symbol_desc *s = &options->symbols[i];
      if ((pass == 0) != (s->is_local != 0))
        continue;
      if (!s->name || s->text_offset > options->text_size) {
        st = amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "symbol %zu ('%s') lies outside .text", i,
                           s->name ? s->name : "(null)");
        goto cleanup;
      }
      uint32_t name = (uint32_t)strtab.size;
      amddwarf__buf_cstr(&strtab, s->name);
      sym(&symtab,
          name, GELF_ST_INFO(s->is_local ? STB_LOCAL : STB_GLOBAL,
                             s->is_object ? STT_OBJECT : STT_FUNC),
          1, text_base + s->text_offset, s->size);
      if (pass == 0)
        first_global++;
    }
  size_t symtab_index = count;
  secs[count++] = (out_section){".symtab", SHT_SYMTAB, 0, symtab.data, symtab.size, 8, 24,
                                0, 0, (uint32_t)symtab_index + 1, first_global, 0};
  secs[count++] = (out_section){".strtab", SHT_STRTAB, 0, strtab.data, strtab.size, 1, 0, 0,
                                0, 0, 0, 0};
  size_t shstrndx = count;
  secs[count++] = (out_section){".shstrtab", SHT_STRTAB, 0, NULL, 0, 1, 0, 0, 0, 0, 0, 0};
  amddwarf__buf_u8(&shstrtab, 0);
  for (size_t i = 1; i < count; i++) {
    secs[i].name_offset = shstrtab.size;
    amddwarf__buf_cstr(&shstrtab, secs[i].name);
  }
  if (symtab.failed || strtab.failed || shstrtab.failed) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
    goto cleanup;
  }
  secs[shstrndx].data = shstrtab.data;
  secs[shstrndx].size = shstrtab.size;
  /* layout */
  uint64_t offset = options->shared ? TEXT_BASE_SHARED : TEXT_OFFSET_REL;
  secs[1].offset = offset;
  secs[1].addr = text_base;
  offset += options->text_size;
  for (size_t i = 2; i < count; i++) {
    offset = align_up(offset, secs[i].align);
    secs[i].offset = offset;
    offset += secs[i].size;
  }
  uint64_t shoff = align_up(offset, 8);
  if (elf_version(EV_CURRENT) == EV_NONE) {
    st = elf_failure(err, "elf_version");
    goto cleanup;
  }
  file = tmpfile();
  if (!file) {
    st = amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET,
                       "cannot create a temporary file for libelf");
    goto cleanup;
  }
  st = write_elf(fileno(file), options, e_flags, secs, count, shoff, shstrndx, err);
  if (st == AMDDWARF_OK)
    st = read_back(file, alloc, &result, &result_size, err);
  if (st == AMDDWARF_OK) {
    *out = result;
    *size = result_size;
  }
cleanup:
  if (file)
    fclose(file);
  if (have_dwarf)
    amddwarf__dwarf_sections_free(&dw);
  if (frame)
    amddwarf__mem_free(amddwarf__cfi_builder_allocator(options->cfi), frame, frame_size);
  amddwarf__buf_free(&symtab);
  amddwarf__buf_free(&strtab);
  amddwarf__buf_free(&shstrtab);
  return st;
}
