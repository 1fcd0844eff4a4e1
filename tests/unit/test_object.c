/* Unit tests of src/object: ELF header and ISA, relocation of debug
 * sections, DWARF 5 units with every DW_LLE kind, range lists, types, scopes,
 * the line program, conventions, the static checker, and error paths.
 *
 * Objects are assembled in memory by the small ELF and DWARF writer below;
 * every expected value is derived from the bytes written here. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

/* ---- byte buffer ---- */

typedef struct buf {
  uint8_t data[8192];
  size_t len;
} buf;

static void b_u8(buf *b, uint64_t v) { b->data[b->len++] = (uint8_t)v; }
static void b_uint(buf *b, uint64_t v, int n)
{
  for (int i = 0; i < n; ++i)
    b_u8(b, i < 8 ? v >> (8 * i) : 0);
}
static void b_uleb(buf *b, uint64_t v)
{
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    b_u8(b, byte | (v ? 0x80 : 0));
  } while (v);
}
static void b_sleb(buf *b, int64_t v)
{
  for (;;) {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
      b_u8(b, byte);
      return;
    }
    b_u8(b, byte | 0x80);
  }
}
static void b_str(buf *b, const char *s)
{
  size_t n = strlen(s) + 1;
  memcpy(b->data + b->len, s, n);
  b->len += n;
}
static void b_bytes(buf *b, const uint8_t *p, size_t n)
{
  memcpy(b->data + b->len, p, n);
  b->len += n;
}
static void b_patch32(buf *b, size_t at, uint32_t v)
{
  for (int i = 0; i < 4; ++i)
    b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* ---- ELF writer ---- */

typedef struct sec {
  const char *name;
  uint32_t type;
  const uint8_t *data;
  size_t size;
  uint32_t link, info;
  uint64_t entsize, addr;
} sec;

typedef struct elf_params {
  uint16_t type;      /* ET_REL 1, ET_DYN 3 */
  uint16_t machine;   /* 224 */
  uint8_t abi_version;
  uint32_t flags;
} elf_params;

/* Writes an ELF64 LE image: header, section contents, .shstrtab, section
   headers (index 0 null, then SECS in order, then .shstrtab). */
static size_t build_elf(uint8_t *out, size_t cap, const elf_params *p, const sec *secs, size_t n)
{
  size_t pos = 64;
  uint64_t offsets[32];
  char shstr[1024];
  size_t shlen = 1;
  uint32_t names[32];
  shstr[0] = '\0';
  memset(out, 0, cap);
  for (size_t i = 0; i < n; ++i) {
    pos = (pos + 7) & ~(size_t)7;
    offsets[i] = pos;
    if (secs[i].size)
      memcpy(out + pos, secs[i].data, secs[i].size);
    pos += secs[i].size;
    names[i] = (uint32_t)shlen;
    memcpy(shstr + shlen, secs[i].name, strlen(secs[i].name) + 1);
    shlen += strlen(secs[i].name) + 1;
  }
  uint32_t shstr_name = (uint32_t)shlen;
  memcpy(shstr + shlen, ".shstrtab", 10);
  shlen += 10;
  uint64_t shstr_off = pos;
  memcpy(out + pos, shstr, shlen);
  pos += shlen;
  pos = (pos + 7) & ~(size_t)7;
  uint64_t shoff = pos;
  size_t count = n + 2;
  /* header */
  memcpy(out, "\177ELF", 4);
  out[4] = 2; /* ELFCLASS64 */
  out[5] = 1; /* ELFDATA2LSB */
  out[6] = 1;
  out[7] = 64; /* ELFOSABI_AMDGPU_HSA */
  out[8] = p->abi_version;
  out[16] = (uint8_t)p->type;
  out[18] = (uint8_t)p->machine;
  out[19] = (uint8_t)(p->machine >> 8);
  out[20] = 1;
  memcpy(out + 40, &shoff, 8);
  memcpy(out + 48, &p->flags, 4);
  out[52] = 64;
  out[58] = 64; /* e_shentsize */
  out[60] = (uint8_t)count;
  out[62] = (uint8_t)(count - 1);
  /* section headers */
  for (size_t i = 0; i < count; ++i) {
    uint8_t *h = out + shoff + i * 64;
    uint32_t name = 0, type = 0, link = 0, info = 0;
    uint64_t off = 0, size = 0, ent = 0, addr = 0;
    if (i >= 1 && i <= n) {
      const sec *s = &secs[i - 1];
      name = names[i - 1];
      type = s->type;
      off = offsets[i - 1];
      size = s->size;
      link = s->link;
      info = s->info;
      ent = s->entsize;
      addr = s->addr;
    } else if (i == n + 1) {
      name = shstr_name;
      type = 3; /* SHT_STRTAB */
      off = shstr_off;
      size = shlen;
    }
    memcpy(h, &name, 4);
    memcpy(h + 4, &type, 4);
    memcpy(h + 16, &addr, 8);
    memcpy(h + 24, &off, 8);
    memcpy(h + 32, &size, 8);
    memcpy(h + 40, &link, 4);
    memcpy(h + 44, &info, 4);
    memcpy(h + 56, &ent, 8);
  }
  pos = shoff + count * 64;
  assert_true(pos <= cap);
  return pos;
}

static uint8_t image[65536];

static amddwarf_status open_image(size_t size, amddwarf_object **out, amddwarf_error *err)
{
  amddwarf_error_clear(err);
  amddwarf_status st = amddwarf_object_open_memory(image, size, NULL, out, err);
  return st;
}

/* ---- header and ISA ---- */

static void test_not_elf(void **state)
{
  (void)state;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  memset(image, 'x', 100);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_open_memory(image, 100, NULL, &o, &err),
                   AMDDWARF_E_OBJECT_NOT_ELF);
  assert_null(o);
  assert_int_equal(err.offset, 0);
  assert_int_equal(amddwarf_object_open_memory(image, 10, NULL, &o, &err),
                   AMDDWARF_E_OBJECT_NOT_ELF);
}

static void test_not_amdgpu(void **state)
{
  (void)state;
  elf_params p = {3, 62, 2, 0};
  amddwarf_object *o = NULL;
  amddwarf_error err;
  size_t n = build_elf(image, sizeof image, &p, NULL, 0);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_NOT_AMDGPU);
  assert_int_equal(err.offset, 18);
  assert_non_null(strstr(err.message, "e_machine is 62"));
}

static void test_isa_from_flags(void **state)
{
  (void)state;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  /* Code object v4 (ABI version 2): gfx90a (0x3f), xnack on (0x300), sramecc off (0x800). */
  elf_params p = {3, 224, 2, 0x3f | 0x300 | 0x800};
  size_t n = build_elf(image, sizeof image, &p, NULL, 0);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_object_info *info = amddwarf_object_get_info(o);
  assert_string_equal(info->processor, "gfx90a");
  assert_int_equal(info->code_object_version, 4);
  assert_int_equal(info->xnack, AMDDWARF_FEATURE_ON);
  assert_int_equal(info->sramecc, AMDDWARF_FEATURE_OFF);
  assert_int_equal(info->wave_size, 64);
  assert_int_equal(info->flat_scratch, 0);
  assert_int_equal(info->frame_base_divisor, 64);
  assert_int_equal(amddwarf_object_cu_count(o), 0);
  amddwarf_object_close(o);
  /* v3 (ABI version 1): gfx1030 (0x36) with the v3 xnack bit; wave32. */
  elf_params p3 = {1, 224, 1, 0x36 | 0x100};
  n = build_elf(image, sizeof image, &p3, NULL, 0);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  info = amddwarf_object_get_info(o);
  assert_string_equal(info->processor, "gfx1030");
  assert_int_equal(info->code_object_version, 3);
  assert_int_equal(info->xnack, AMDDWARF_FEATURE_ON);
  assert_int_equal(info->sramecc, AMDDWARF_FEATURE_ANY);
  assert_int_equal(info->isa_wave_size, 32);
  amddwarf_object_close(o);
  /* An unknown mach is not an error. */
  elf_params pu = {3, 224, 3, 0xfe};
  n = build_elf(image, sizeof image, &pu, NULL, 0);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_string_equal(amddwarf_object_get_info(o)->processor, "gfx?");
  amddwarf_object_close(o);
}

static void test_section_outside_file(void **state)
{
  (void)state;
  uint8_t data[16] = {0};
  sec s = {".debug_info", 1, data, sizeof data, 0, 0, 0, 0};
  elf_params p = {3, 224, 2, 0x2c};
  amddwarf_object *o = NULL;
  amddwarf_error err;
  size_t n = build_elf(image, sizeof image, &p, &s, 1);
  /* Make the section's size reach past the end of the file. */
  uint64_t shoff;
  memcpy(&shoff, image + 40, 8);
  uint64_t huge = 1u << 20;
  memcpy(image + shoff + 64 + 32, &huge, 8);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_ELF);
  assert_non_null(strstr(err.message, ".debug_info"));
}

/* ---- the metadata note ---- */

static void b_mpstr(buf *b, const char *s)
{
  size_t n = strlen(s);
  if (n < 32) {
    b_u8(b, 0xa0 | n);
  } else {
    b_u8(b, 0xd9);
    b_u8(b, n);
  }
  b_bytes(b, (const uint8_t *)s, n);
}

static size_t note_object(const buf *desc)
{
  static buf note;
  note.len = 0;
  b_uint(&note, 7, 4);
  b_uint(&note, desc->len, 4);
  b_uint(&note, 32, 4); /* NT_AMDGPU_METADATA */
  b_bytes(&note, (const uint8_t *)"AMDGPU\0\0", 8);
  b_bytes(&note, desc->data, desc->len);
  while (note.len % 4)
    b_u8(&note, 0);
  sec s[] = {{".note", 7 /* SHT_NOTE */, note.data, note.len, 0, 0, 0, 0}};
  elf_params p = {3, 224, 2, 0x2c};
  return build_elf(image, sizeof image, &p, s, 1);
}

static void test_metadata_note(void **state)
{
  (void)state;
  static buf m;
  m.len = 0;
  b_u8(&m, 0x82); /* map of 2 */
  b_mpstr(&m, "amdhsa.target");
  b_mpstr(&m, "amdgcn-amd-amdhsa--gfx900");
  b_mpstr(&m, "amdhsa.kernels");
  b_u8(&m, 0x91); /* array of 1 */
  b_u8(&m, 0x85); /* map of 5 */
  b_mpstr(&m, ".name");
  b_mpstr(&m, "k");
  b_mpstr(&m, ".symbol");
  b_mpstr(&m, "k.kd");
  b_mpstr(&m, ".wavefront_size");
  b_u8(&m, 32);
  b_mpstr(&m, ".sgpr_count");
  b_u8(&m, 10);
  b_mpstr(&m, ".vgpr_spill_count");
  b_u8(&m, 0xcc); /* uint8 */
  b_u8(&m, 200);
  size_t n = note_object(&m);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_object_info *info = amddwarf_object_get_info(o);
  assert_string_equal(info->target, "amdgcn-amd-amdhsa--gfx900");
  /* The kernels' wave size wins over gfx900's default of 64. */
  assert_int_equal(info->isa_wave_size, 64);
  assert_int_equal(info->wave_size, 32);
  assert_int_equal(info->frame_base_divisor, 32);
  assert_int_equal(amddwarf_object_kernel_count(o), 1);
  const amddwarf_kernel *k = amddwarf_object_kernel(o, 0);
  assert_string_equal(k->name, "k");
  assert_string_equal(k->symbol, "k.kd");
  assert_int_equal(k->sgpr_count, 10);
  assert_int_equal(k->vgpr_spill_count, 200);
  assert_int_equal(k->vgpr_count, UINT32_MAX); /* absent */
  amddwarf_object_close(o);
  /* An array that claims 2^32-1 elements in 5 bytes is refused before
     anything is allocated for it. */
  m.len = 0;
  b_u8(&m, 0xdd);
  b_uint(&m, 0xffffffffu, 4);
  n = note_object(&m);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "NT_AMDGPU_METADATA"));
  /* A note whose descriptor runs past its section. */
  m.len = 0;
  b_u8(&m, 0x80);
  n = note_object(&m);
  uint64_t shoff;
  memcpy(&shoff, image + 40, 8);
  uint64_t off;
  memcpy(&off, image + shoff + 64 + 24, 8);
  image[off + 4] = 0x40; /* descsz 64 */
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "overruns"));
}

/* ---- a DWARF 4 relocatable object ---- */

/* abbrev 1: compile_unit (children): name string, low_pc addr, high_pc data4
   abbrev 2: subprogram: name string, low_pc addr, high_pc data4 */
static size_t dwarf4_abbrev(buf *a)
{
  a->len = 0;
  b_uleb(a, 1); b_uleb(a, 0x11); b_u8(a, 1);
  b_uleb(a, 0x03); b_uleb(a, 0x08);
  b_uleb(a, 0x11); b_uleb(a, 0x01);
  b_uleb(a, 0x12); b_uleb(a, 0x06);
  b_u8(a, 0); b_u8(a, 0);
  b_uleb(a, 2); b_uleb(a, 0x2e); b_u8(a, 0);
  b_uleb(a, 0x03); b_uleb(a, 0x08);
  b_uleb(a, 0x11); b_uleb(a, 0x01);
  b_uleb(a, 0x12); b_uleb(a, 0x06);
  b_u8(a, 0); b_u8(a, 0);
  b_u8(a, 0);
  return a->len;
}

/* Returns the offsets of the subprogram's low_pc and high_pc fields. */
static void dwarf4_info(buf *d, size_t *low_at, size_t *high_at)
{
  d->len = 0;
  b_uint(d, 0, 4); /* length, patched */
  b_uint(d, 4, 2);
  b_uint(d, 0, 4);
  b_u8(d, 8);
  b_uleb(d, 1);
  b_str(d, "u.cl");
  b_uint(d, 0, 8);
  b_uint(d, 0x1000, 4);
  b_uleb(d, 2);
  b_str(d, "f");
  *low_at = d->len;
  b_uint(d, 0, 8);
  *high_at = d->len;
  b_uint(d, 0, 4);
  b_u8(d, 0);
  b_patch32(d, 0, (uint32_t)(d->len - 4));
}

typedef struct rela_entry {
  uint64_t offset;
  uint32_t type, symbol;
  int64_t addend;
} rela_entry;

static size_t build_reloc_object(const rela_entry *rel, size_t nrel, size_t *low_at,
                                 size_t *high_at)
{
  static buf abbrev, info, rela, symtab;
  static const uint8_t strtab[] = "\0func\0";
  static uint8_t text[0x200];
  size_t lo, hi;
  dwarf4_abbrev(&abbrev);
  dwarf4_info(&info, &lo, &hi);
  if (low_at) *low_at = lo;
  if (high_at) *high_at = hi;
  /* symbols: 0 null, 1 "func" in .text (section 1) at 0x40 size 0x30 */
  symtab.len = 0;
  b_uint(&symtab, 0, 24);
  b_uint(&symtab, 1, 4);
  b_u8(&symtab, 0x12); /* STB_GLOBAL, STT_FUNC */
  b_u8(&symtab, 0);
  b_uint(&symtab, 1, 2);
  b_uint(&symtab, 0x40, 8);
  b_uint(&symtab, 0x30, 8);
  rela.len = 0;
  for (size_t i = 0; i < nrel; ++i) {
    b_uint(&rela, rel[i].offset, 8);
    b_uint(&rela, ((uint64_t)rel[i].symbol << 32) | rel[i].type, 8);
    b_uint(&rela, (uint64_t)rel[i].addend, 8);
  }
  sec s[] = {
      {".text", 1, text, sizeof text, 0, 0, 0, 0},
      {".debug_abbrev", 1, abbrev.data, abbrev.len, 0, 0, 0, 0},
      {".debug_info", 1, info.data, info.len, 0, 0, 0, 0},
      {".rela.debug_info", 4, rela.data, rela.len, 5, 3, 24, 0},
      {".symtab", 2, symtab.data, symtab.len, 6, 1, 24, 0},
      {".strtab", 3, strtab, sizeof strtab, 0, 0, 0, 0},
  };
  elf_params p = {1, 224, 2, 0x2c};
  return build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_relocations_applied(void **state)
{
  (void)state;
  size_t lo, hi;
  build_reloc_object(NULL, 0, &lo, &hi);
  /* R_AMDGPU_ABS64 (3) func + 0x10 at low_pc; R_AMDGPU_ABS32 (6) func + 0x20 at
     high_pc (an offset from low_pc: 0x60). */
  rela_entry r[] = {{lo, 3, 1, 0x10}, {hi, 6, 1, 0x20}};
  size_t n = build_reloc_object(r, 2, NULL, NULL);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_get_info(o)->relocations_applied, 2);
  assert_int_equal(amddwarf_object_cu_count(o), 1);
  const amddwarf_cu *cu = amddwarf_object_cu(o, 0);
  assert_int_equal(cu->version, 4);
  assert_string_equal(cu->name, "u.cl");
  assert_int_equal(cu->convention, AMDDWARF_CONVENTION_LEGACY);
  const amddwarf_die_info *f = amddwarf_object_die_at(o, cu->die_offset)->first_child;
  assert_non_null(f);
  assert_string_equal(f->name, "f");
  assert_int_equal(f->range_count, 1);
  assert_int_equal(f->ranges[0].low, 0x50);
  assert_int_equal(f->ranges[0].high, 0x50 + 0x60);
  /* The input image is untouched: relocations go to a copy. */
  uint64_t raw;
  uint64_t shoff;
  memcpy(&shoff, image + 40, 8);
  uint64_t info_off;
  memcpy(&info_off, image + shoff + 3 * 64 + 24, 8);
  memcpy(&raw, image + info_off + lo, 8);
  assert_int_equal(raw, 0);
  const amddwarf_die_info *scopes[4];
  size_t depth = 0;
  assert_int_equal(amddwarf_object_scopes_at(o, 0x60, scopes, 4, &depth), AMDDWARF_OK);
  assert_int_equal(depth, 2);
  assert_ptr_equal(scopes[0], f);
  assert_int_equal(amddwarf_object_scopes_at(o, 0x50 + 0x60, scopes, 4, &depth),
                   AMDDWARF_NOT_FOUND);
  /* The symbol is a function, not a kernel (no .kd). */
  assert_int_equal(amddwarf_object_symbol_count(o), 1);
  assert_int_equal(amddwarf_object_symbol(o, 0)->kind, AMDDWARF_SYMBOL_FUNCTION);
  amddwarf_object_close(o);
}

static void test_relocation_rel32_and_halves(void **state)
{
  (void)state;
  size_t lo, hi;
  build_reloc_object(NULL, 0, &lo, &hi);
  /* ABS32_LO (1) and ABS32_HI (2) of func + 0x1_0000_0000 split over low_pc;
     REL32 (4) at high_pc: S + A - P with P = hi (section address 0). */
  rela_entry r[] = {{lo, 1, 1, 0x100000000}, {lo + 4, 2, 1, 0x100000000}, {hi, 4, 1, 0x200}};
  size_t n = build_reloc_object(r, 3, NULL, NULL);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_die_info *f =
      amddwarf_object_die_at(o, amddwarf_object_cu(o, 0)->die_offset)->first_child;
  assert_int_equal(f->ranges[0].low, 0x100000040);
  assert_int_equal(f->ranges[0].high, 0x100000040 + (0x40 + 0x200 - hi));
  amddwarf_object_close(o);
}

static void test_relocation_errors(void **state)
{
  (void)state;
  size_t lo, hi;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  build_reloc_object(NULL, 0, &lo, &hi);
  /* unknown type 99 in entry 1: the error names the entry's offset (24) */
  rela_entry unknown[] = {{lo, 3, 1, 0}, {hi, 99, 1, 0}};
  size_t n = build_reloc_object(unknown, 2, NULL, NULL);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_int_equal(err.offset, 24);
  assert_non_null(strstr(err.message, "unknown AMDGPU relocation type 99"));
  /* symbol out of range */
  rela_entry badsym[] = {{lo, 3, 7, 0}};
  n = build_reloc_object(badsym, 1, NULL, NULL);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "symbol 7"));
  /* a 64-bit field that overruns .debug_info */
  rela_entry overrun[] = {{hi, 3, 1, 0}};
  n = build_reloc_object(overrun, 1, NULL, NULL);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "overruns .debug_info"));
  /* GOT-relative relocations have no meaning in a debug section */
  rela_entry got[] = {{lo, 7, 1, 0}};
  n = build_reloc_object(got, 1, NULL, NULL);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "R_AMDGPU_GOTPCREL"));
  assert_null(o);
}

/* ---- addresses from symbols without an address ---- */

/* A DWARF 4 unit: subprogram "k" with variables "a" (DW_OP_addr, lit2, swap,
   xderef: a __local array) and "g" (DW_OP_addr), and the symbols func (in
   .text) and k.a, whose section index is A_SHNDX (0: undefined). TYPE 1
   relocates a's address against k.a and g's against func + 0x10; TYPE 3 is
   the linked form: no relocations, the addresses hold 0 and 0x50. */
typedef struct unknown_obj {
  size_t a_loc, g_loc; /* .debug_info offsets of the two expressions */
} unknown_obj;

static size_t build_unknown_object(uint16_t type, uint16_t a_shndx, unknown_obj *out)
{
  static buf abbrev, info, rela, symtab;
  static const uint8_t strtab[] = "\0func\0k.a\0";
  static uint8_t text[0x200];
  abbrev.len = 0;
  b_uleb(&abbrev, 1); b_uleb(&abbrev, 0x11); b_u8(&abbrev, 1);
  b_uleb(&abbrev, 0x03); b_uleb(&abbrev, 0x08); b_u8(&abbrev, 0); b_u8(&abbrev, 0);
  b_uleb(&abbrev, 2); b_uleb(&abbrev, 0x2e); b_u8(&abbrev, 1);
  b_uleb(&abbrev, 0x03); b_uleb(&abbrev, 0x08); b_u8(&abbrev, 0); b_u8(&abbrev, 0);
  b_uleb(&abbrev, 3); b_uleb(&abbrev, 0x34); b_u8(&abbrev, 0);
  b_uleb(&abbrev, 0x03); b_uleb(&abbrev, 0x08);
  b_uleb(&abbrev, 0x02); b_uleb(&abbrev, 0x18);
  b_u8(&abbrev, 0); b_u8(&abbrev, 0);
  b_u8(&abbrev, 0);
  info.len = 0;
  b_uint(&info, 0, 4);
  b_uint(&info, 4, 2);
  b_uint(&info, 0, 4);
  b_u8(&info, 8);
  b_uleb(&info, 1);
  b_str(&info, "u.cl");
  b_uleb(&info, 2);
  b_str(&info, "k");
  b_uleb(&info, 3);
  b_str(&info, "a");
  b_uleb(&info, 12);
  out->a_loc = info.len;
  b_u8(&info, 0x03);
  b_uint(&info, 0, 8);
  b_u8(&info, 0x32); /* lit2 */
  b_u8(&info, 0x16); /* swap */
  b_u8(&info, 0x18); /* xderef */
  b_uleb(&info, 3);
  b_str(&info, "g");
  b_uleb(&info, 9);
  out->g_loc = info.len;
  b_u8(&info, 0x03);
  b_uint(&info, type == 1 ? 0 : 0x50, 8);
  b_u8(&info, 0);
  b_u8(&info, 0);
  b_patch32(&info, 0, (uint32_t)(info.len - 4));
  symtab.len = 0;
  b_uint(&symtab, 0, 24);
  b_uint(&symtab, 1, 4); /* func */
  b_u8(&symtab, 0x12);
  b_u8(&symtab, 0);
  b_uint(&symtab, 1, 2);
  b_uint(&symtab, 0x40, 8);
  b_uint(&symtab, 0x30, 8);
  b_uint(&symtab, 6, 4); /* k.a: STB_GLOBAL, STT_NOTYPE */
  b_u8(&symtab, 0x10);
  b_u8(&symtab, 0);
  b_uint(&symtab, a_shndx, 2);
  b_uint(&symtab, a_shndx == 0xff00 ? 4 : 0, 8); /* an LDS symbol's value is its alignment */
  b_uint(&symtab, 64, 8);
  rela.len = 0;
  b_uint(&rela, out->a_loc + 1, 8);
  b_uint(&rela, ((uint64_t)2 << 32) | 3, 8); /* R_AMDGPU_ABS64 k.a */
  b_uint(&rela, 0, 8);
  b_uint(&rela, out->g_loc + 1, 8);
  b_uint(&rela, ((uint64_t)1 << 32) | 3, 8); /* R_AMDGPU_ABS64 func + 0x10 */
  b_uint(&rela, 0x10, 8);
  sec s[] = {
      {".text", 1, text, sizeof text, 0, 0, 0, 0},
      {".debug_abbrev", 1, abbrev.data, abbrev.len, 0, 0, 0, 0},
      {".debug_info", 1, info.data, info.len, 0, 0, 0, 0},
      {type == 1 ? ".rela.debug_info" : ".comment", type == 1 ? 4 : 1, rela.data,
       type == 1 ? rela.len : 0, type == 1 ? 5 : 0, type == 1 ? 3 : 0, 24, 0},
      {".symtab", 2, symtab.data, symtab.len, 6, 1, 24, 0},
      {".strtab", 3, strtab, sizeof strtab, 0, 0, 0, 0},
  };
  elf_params p = {type, 224, 2, 0x2c};
  return build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

typedef struct problems {
  amddwarf_check_problem items[8];
  size_t count;
} problems;

static int keep_problem(void *user, const amddwarf_check_problem *p)
{
  problems *ps = user;
  if (ps->count < 8)
    ps->items[ps->count++] = *p;
  return 0;
}

/* Opens the object of TYPE and A_SHNDX and checks that a's address is
   unknown, for the reason WHY, and g's is known. */
static void expect_unknown(uint16_t type, uint16_t a_shndx, const char *why)
{
  unknown_obj u;
  size_t n = build_unknown_object(type, a_shndx, &u);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_cu *cu = amddwarf_object_cu(o, 0);
  const amddwarf_die_info *k = amddwarf_object_die_at(o, cu->die_offset)->first_child;
  const amddwarf_die_info *a = k->first_child, *g = a->next_sibling;
  assert_string_equal(a->name, "a");
  assert_string_equal(g->name, "g");
  /* a's address is the field's value as written (0), which is no address. */
  assert_int_equal(a->location->kind, AMDDWARF_ATTR_EXPR);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_expr_addresses_known(o, cu, a->location->bytes,
                                                        a->location->size, &err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(err.offset, 0);
  assert_int_equal(err.opcode, 0x03);
  assert_non_null(strstr(err.message, "the address operand of DW_OP_addr comes from the symbol k.a, "));
  assert_non_null(strstr(err.message, why));
  assert_non_null(strstr(err.message, "this local (LDS) variable"));
  /* g's symbol is defined: the relocated value is right. */
  assert_int_equal(amddwarf_object_expr_addresses_known(o, cu, g->location->bytes,
                                                        g->location->size, &err),
                   AMDDWARF_OK);
  /* A copy of the bytes is no place in a section: nothing to say of it. */
  uint8_t copy[16];
  memcpy(copy, a->location->bytes, a->location->size);
  assert_int_equal(amddwarf_object_expr_addresses_known(o, cu, copy, a->location->size, &err),
                   AMDDWARF_OK);
  problems ps = {.count = 0};
  size_t count = 0;
  assert_int_equal(amddwarf_object_check(o, keep_problem, &ps, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 1);
  assert_int_equal(ps.items[0].kind, AMDDWARF_CHECK_UNDEFINED_ADDRESS);
  assert_int_equal(ps.items[0].die_offset, a->offset);
  assert_int_equal(ps.items[0].op_offset, 0);
  assert_non_null(strstr(ps.items[0].message, why));
  amddwarf_object_close(o);
}

static void test_unknown_addresses(void **state)
{
  (void)state;
  expect_unknown(1, 0, "which is undefined in this relocatable object");
  expect_unknown(1, 0xff00, "an LDS symbol (SHN_AMDGPU_LDS) that the loader places");
  expect_unknown(1, 0xfff2, "a common symbol");
  /* Linked: the symbol table still lists k.a as undefined, and "k.a" is
     clang's name for a in k. */
  expect_unknown(3, 0, "which the link left undefined");
  /* A defined k.a says nothing against a's address. */
  unknown_obj u;
  size_t n = build_unknown_object(1, 1, &u);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  size_t count = 99;
  assert_int_equal(amddwarf_object_check(o, NULL, NULL, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 0);
  amddwarf_object_close(o);
}

/* ---- a DWARF 5 object: lists, types, scopes, lines, conventions ---- */

typedef struct dwarf5 {
  buf abbrev, info, addr, loclists, rnglists, line, line_str;
  size_t off_int, off_struct, off_ptr, off_arr, off_arr_expr, off_typedef, off_const, off_vec;
  size_t off_sub, off_block, off_x, off_y, off_z, off_ext_var;
  size_t list_y;    /* offset of y's list in .debug_loclists */
} dwarf5;

static void abbrev(buf *a, unsigned code, unsigned tag, int children, const unsigned *pairs,
                   size_t n)
{
  b_uleb(a, code);
  b_uleb(a, tag);
  b_u8(a, (uint64_t)children);
  for (size_t i = 0; i < n; ++i)
    b_uleb(a, pairs[i]);
  b_u8(a, 0);
  b_u8(a, 0);
}

#define PAIRS(...) (const unsigned[]){__VA_ARGS__}, sizeof((const unsigned[]){__VA_ARGS__}) / sizeof(unsigned)

static void build_dwarf5(dwarf5 *d)
{
  buf *a = &d->abbrev;
  memset(d, 0, sizeof *d);
  abbrev(a, 1, 0x11, 1, PAIRS(0x25, 0x08, 0x13, 0x05, 0x03, 0x08, 0x1b, 0x08, 0x11, 0x01, 0x12,
                              0x06, 0x73, 0x17, 0x8c, 0x17, 0x74, 0x17, 0x10, 0x17));
  abbrev(a, 2, 0x24, 0, PAIRS(0x03, 0x08, 0x3e, 0x0b, 0x0b, 0x0b));
  abbrev(a, 3, 0x0f, 0, PAIRS(0x49, 0x13, 0x33, 0x0b));
  abbrev(a, 4, 0x13, 1, PAIRS(0x03, 0x08, 0x0b, 0x0b));
  abbrev(a, 5, 0x0d, 0, PAIRS(0x03, 0x08, 0x49, 0x13, 0x38, 0x0b));
  abbrev(a, 6, 0x01, 1, PAIRS(0x49, 0x13));
  abbrev(a, 7, 0x21, 0, PAIRS(0x37, 0x0b));
  abbrev(a, 8, 0x21, 0, PAIRS(0x2f, 0x0b));
  abbrev(a, 9, 0x21, 0, PAIRS(0x2f, 0x18));
  abbrev(a, 10, 0x2e, 1, PAIRS(0x03, 0x08, 0x11, 0x1b, 0x12, 0x06, 0x40, 0x18));
  abbrev(a, 11, 0x34, 0, PAIRS(0x03, 0x08, 0x49, 0x13, 0x02, 0x22));
  abbrev(a, 12, 0x0b, 1, PAIRS(0x55, 0x23));
  abbrev(a, 13, 0x34, 0, PAIRS(0x03, 0x08, 0x49, 0x13, 0x02, 0x18));
  abbrev(a, 14, 0x05, 0, PAIRS(0x03, 0x08, 0x49, 0x13, 0x02, 0x17));
  abbrev(a, 15, 0x16, 0, PAIRS(0x03, 0x08, 0x49, 0x13));
  abbrev(a, 16, 0x26, 0, PAIRS(0x49, 0x13));
  abbrev(a, 17, 0x24, 0, PAIRS(0x03, 0x08, 0x3e, 0x0b, 0x0b, 0x0b, 0x3e13, 0x0b));
  abbrev(a, 18, 0x34, 0, PAIRS(0x03, 0x08, 0x02, 0x18, 0x3e0b, 0x18));
  b_u8(a, 0);

  /* .debug_addr: header (8 bytes) then 4 addresses: 0x1000 0x1100 0x1200 0x1300 */
  buf *ad = &d->addr;
  b_uint(ad, 4 + 4 * 8, 4);
  b_uint(ad, 5, 2);
  b_u8(ad, 8);
  b_u8(ad, 0);
  for (int i = 0; i < 4; ++i)
    b_uint(ad, 0x1000 + 0x100 * (uint64_t)i, 8);

  /* .debug_loclists: header (12), offsets table with 1 entry (4), lists. */
  buf *ll = &d->loclists;
  b_uint(ll, 0, 4);
  b_uint(ll, 5, 2);
  b_u8(ll, 8);
  b_u8(ll, 0);
  b_uint(ll, 1, 4);
  size_t table = ll->len;
  b_uint(ll, 0, 4);
  /* list x (loclistx 0): base_addressx 1 (0x1100); offset_pair 0x10-0x20;
     startx_endx 0..2 (0x1000-0x1200); startx_length 3 + 0x8; default */
  size_t list_x = ll->len;
  b_patch32(ll, table, (uint32_t)(list_x - 12));
  b_u8(ll, 1); b_uleb(ll, 1);
  b_u8(ll, 4); b_uleb(ll, 0x10); b_uleb(ll, 0x20); b_uleb(ll, 1); b_u8(ll, 0x50); /* reg0 */
  b_u8(ll, 2); b_uleb(ll, 0); b_uleb(ll, 2); b_uleb(ll, 1); b_u8(ll, 0x51);
  b_u8(ll, 3); b_uleb(ll, 3); b_uleb(ll, 8); b_uleb(ll, 1); b_u8(ll, 0x52);
  b_u8(ll, 5); b_uleb(ll, 2); b_u8(ll, 0x31); b_u8(ll, 0x9f); /* lit1 stack_value */
  b_u8(ll, 0);
  /* list y (by offset): base_address 0x2000; offset_pair 0-4; start_end
     0x3000-0x3010; start_length 0x4000 + 0x20 with an empty expression */
  d->list_y = ll->len;
  b_u8(ll, 6); b_uint(ll, 0x2000, 8);
  b_u8(ll, 4); b_uleb(ll, 0); b_uleb(ll, 4); b_uleb(ll, 2); b_u8(ll, 0x91); b_u8(ll, 0x08);
  b_u8(ll, 7); b_uint(ll, 0x3000, 8); b_uint(ll, 0x3010, 8); b_uleb(ll, 1); b_u8(ll, 0x53);
  b_u8(ll, 8); b_uint(ll, 0x4000, 8); b_uleb(ll, 0x20); b_uleb(ll, 0);
  b_u8(ll, 0);
  b_patch32(ll, 0, (uint32_t)(ll->len - 4));

  /* .debug_rnglists: header, 1 offset, list: startx_length 0 + 0x40,
     offset_pair from base (CU low_pc 0x1000) 0x80-0x90, end */
  buf *rl = &d->rnglists;
  b_uint(rl, 0, 4);
  b_uint(rl, 5, 2);
  b_u8(rl, 8);
  b_u8(rl, 0);
  b_uint(rl, 1, 4);
  b_uint(rl, 4, 4);
  b_u8(rl, 3); b_uleb(rl, 0); b_uleb(rl, 0x40);
  b_u8(rl, 4); b_uleb(rl, 0x80); b_uleb(rl, 0x90);
  b_u8(rl, 0);
  b_patch32(rl, 0, (uint32_t)(rl->len - 4));

  /* .debug_line (DWARF 5): two files, both used by rows. */
  buf *ls = &d->line_str;
  b_str(ls, "/src");
  b_str(ls, "a.cl");
  b_str(ls, "inc/b.h");
  buf *ln = &d->line;
  b_uint(ln, 0, 4);
  b_uint(ln, 5, 2);
  b_u8(ln, 8);
  b_u8(ln, 0);
  size_t hl = ln->len;
  b_uint(ln, 0, 4);
  size_t hstart = ln->len;
  b_u8(ln, 4);   /* min_inst_length */
  b_u8(ln, 1);   /* max ops */
  b_u8(ln, 1);   /* default_is_stmt */
  b_u8(ln, (uint8_t)-5);
  b_u8(ln, 14);  /* line_range */
  b_u8(ln, 13);  /* opcode_base */
  static const uint8_t lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
  b_bytes(ln, lengths, 12);
  b_u8(ln, 1); b_uleb(ln, 1); b_uleb(ln, 0x1f);   /* dirs: path line_strp */
  b_uleb(ln, 1); b_uint(ln, 0, 4);
  b_u8(ln, 2); b_uleb(ln, 1); b_uleb(ln, 0x1f); b_uleb(ln, 2); b_uleb(ln, 0x0b);
  b_uleb(ln, 2);
  b_uint(ln, 5, 4); b_u8(ln, 0);                  /* file 0: a.cl in dir 0 */
  b_uint(ln, 10, 4); b_u8(ln, 0);                 /* file 1: inc/b.h */
  b_patch32(ln, hl, (uint32_t)(ln->len - hstart));
  b_u8(ln, 0); b_uleb(ln, 9); b_u8(ln, 2); b_uint(ln, 0x1000, 8); /* set_address */
  b_u8(ln, 4); b_uleb(ln, 0);                     /* file 0 */
  b_u8(ln, 5); b_uleb(ln, 7);                     /* column 7 */
  b_u8(ln, 3); b_sleb(ln, 9);                     /* line 10 */
  b_u8(ln, 1);                                    /* copy: 0x1000 a.cl:10:7 */
  b_u8(ln, 4); b_uleb(ln, 1);                     /* file 1 */
  b_u8(ln, 10);                                   /* prologue_end */
  /* special opcode: address += 4*2, line += 1: adjusted = 2*14 + (1 - -5) = 34 */
  b_u8(ln, 13 + 34);                              /* 0x1008 b.h:11:7 */
  b_u8(ln, 6);                                    /* negate_stmt */
  b_u8(ln, 2); b_uleb(ln, 6);                     /* advance 24 */
  b_u8(ln, 1);                                    /* 0x1020 b.h:11:7, not stmt */
  b_u8(ln, 2); b_uleb(ln, 0x38);                  /* to 0x1100 */
  b_u8(ln, 0); b_uleb(ln, 1); b_u8(ln, 1);        /* end_sequence */
  b_patch32(ln, 0, (uint32_t)(ln->len - 4));

  /* .debug_info: unit 0 (legacy) */
  buf *di = &d->info;
  b_uint(di, 0, 4);
  b_uint(di, 5, 2);
  b_u8(di, 1);
  b_u8(di, 8);
  b_uint(di, 0, 4);
  b_uleb(di, 1);
  b_str(di, "test producer");
  b_uint(di, 0x8100, 2); /* DW_LANG_LLVM_HIP */
  b_str(di, "a.cl");
  b_str(di, "/src");
  b_uint(di, 0x1000, 8);
  b_uint(di, 0x1000, 4);
  b_uint(di, 8, 4);  /* addr_base */
  b_uint(di, 12, 4); /* loclists_base */
  b_uint(di, 12, 4); /* rnglists_base */
  b_uint(di, 0, 4);  /* stmt_list */
  d->off_int = di->len;
  b_uleb(di, 2); b_str(di, "int"); b_u8(di, 5); b_u8(di, 4);
  d->off_struct = di->len;
  b_uleb(di, 4); b_str(di, "S"); b_u8(di, 8);
  b_uleb(di, 5); b_str(di, "a"); b_uint(di, d->off_int, 4); b_u8(di, 0);
  b_uleb(di, 5); b_str(di, "b"); b_uint(di, d->off_int, 4); b_u8(di, 4);
  b_u8(di, 0);
  d->off_const = di->len;
  b_uleb(di, 16); b_uint(di, d->off_struct, 4);
  d->off_ptr = di->len;
  b_uleb(di, 3); b_uint(di, d->off_const, 4); b_u8(di, 2);
  d->off_arr = di->len;
  b_uleb(di, 6); b_uint(di, d->off_int, 4);
  b_uleb(di, 7); b_u8(di, 2);
  b_uleb(di, 8); b_u8(di, 2); /* upper bound 2: 3 elements */
  b_u8(di, 0);
  d->off_arr_expr = di->len;
  b_uleb(di, 6); b_uint(di, d->off_int, 4);
  b_uleb(di, 9); b_uleb(di, 2); b_u8(di, 0x91); b_u8(di, 0x10); /* fbreg +16 */
  b_u8(di, 0);
  d->off_typedef = di->len;
  b_uleb(di, 15); b_str(di, "myint"); b_uint(di, d->off_int, 4);
  d->off_vec = di->len;
  b_uleb(di, 2); b_str(di, "float"); b_u8(di, 4); b_u8(di, 4);
  d->off_sub = di->len;
  b_uleb(di, 10); b_str(di, "kern"); b_uleb(di, 0); b_uint(di, 0x200, 4);
  b_uleb(di, 2); b_u8(di, 0x90); b_u8(di, 0x41);
  d->off_x = di->len;
  b_uleb(di, 11); b_str(di, "x"); b_uint(di, d->off_ptr, 4); b_uleb(di, 0);
  d->off_y = di->len;
  b_uleb(di, 14); b_str(di, "y"); b_uint(di, d->off_arr, 4); b_uint(di, d->list_y, 4);
  d->off_block = di->len;
  b_uleb(di, 12); b_uleb(di, 0);
  d->off_z = di->len;
  b_uleb(di, 13); b_str(di, "z"); b_uint(di, d->off_typedef, 4);
  b_uleb(di, 5); b_u8(di, 0x91); b_u8(di, 0x04); b_u8(di, 0x31); b_u8(di, 0x16); b_u8(di, 0x18);
  b_u8(di, 0); /* end of block */
  b_u8(di, 0); /* end of subprogram */
  b_u8(di, 0); /* end of unit */
  b_patch32(di, 0, (uint32_t)(di->len - 4));
  /* unit 1: an old-code DW_AT_LLVM_lane_pc makes it an extension unit */
  size_t u1 = di->len;
  b_uint(di, 0, 4);
  b_uint(di, 5, 2);
  b_u8(di, 1);
  b_u8(di, 8);
  b_uint(di, 0, 4);
  b_uleb(di, 1);
  b_str(di, "test producer");
  b_uint(di, 0x30, 2); /* DW_LANG_HIP */
  b_str(di, "b.hip");
  b_str(di, "/src");
  b_uint(di, 0x5000, 8);
  b_uint(di, 0x100, 4);
  b_uint(di, 8, 4);
  b_uint(di, 12, 4);
  b_uint(di, 12, 4);
  b_uint(di, 0, 4);
  d->off_ext_var = di->len;
  b_uleb(di, 18); b_str(di, "lanes"); b_uleb(di, 1); b_u8(di, 0x50);
  b_uleb(di, 5); b_u8(di, 0x10); b_uleb(di, 0x4567); b_u8(di, 0x9f); /* 3-byte ULEB */
  b_u8(di, 0);
  b_patch32(di, u1, (uint32_t)(di->len - u1 - 4));
}

static size_t build_dwarf5_object(dwarf5 *d)
{
  build_dwarf5(d);
  sec s[] = {
      {".debug_abbrev", 1, d->abbrev.data, d->abbrev.len, 0, 0, 0, 0},
      {".debug_info", 1, d->info.data, d->info.len, 0, 0, 0, 0},
      {".debug_addr", 1, d->addr.data, d->addr.len, 0, 0, 0, 0},
      {".debug_loclists", 1, d->loclists.data, d->loclists.len, 0, 0, 0, 0},
      {".debug_rnglists", 1, d->rnglists.data, d->rnglists.len, 0, 0, 0, 0},
      {".debug_line", 1, d->line.data, d->line.len, 0, 0, 0, 0},
      {".debug_line_str", 1, d->line_str.data, d->line_str.len, 0, 0, 0, 0},
  };
  elf_params p = {3, 224, 3, 0x2c};
  return build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_loclists_every_kind(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_die_info *x = amddwarf_object_die_at(o, d.off_x);
  assert_non_null(x);
  assert_string_equal(x->name, "x");
  assert_non_null(x->location);
  assert_int_equal(x->location->kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(x->location->count, 4);
  const amddwarf_loc_entry *e = x->location->entries;
  assert_int_equal(e[0].kind, 4);
  assert_int_equal(e[0].low, 0x1110);
  assert_int_equal(e[0].high, 0x1120);
  assert_int_equal(e[0].expr[0], 0x50);
  assert_int_equal(e[1].kind, 2);
  assert_int_equal(e[1].low, 0x1000);
  assert_int_equal(e[1].high, 0x1200);
  assert_int_equal(e[2].kind, 3);
  assert_int_equal(e[2].low, 0x1300);
  assert_int_equal(e[2].high, 0x1308);
  assert_int_equal(e[3].kind, 5);
  assert_true(e[3].is_default);
  assert_int_equal(e[3].size, 2);
  /* The entry that applies at a PC: first match, else the default. */
  const uint8_t *bytes;
  size_t size;
  const amddwarf_loc_entry *used;
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x1118, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[0]);
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x1304, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[2]);
  assert_int_equal(amddwarf_attr_value_expr_at(x->location, 0x9000, &bytes, &size, &used),
                   AMDDWARF_OK);
  assert_ptr_equal(used, &e[3]);
  assert_int_equal(bytes[0], 0x31);

  const amddwarf_die_info *y = amddwarf_object_die_at(o, d.off_y);
  assert_int_equal(y->location->kind, AMDDWARF_ATTR_LIST);
  assert_int_equal(y->location->offset, d.list_y);
  assert_int_equal(y->location->count, 3);
  e = y->location->entries;
  assert_int_equal(e[0].low, 0x2000);
  assert_int_equal(e[0].high, 0x2004);
  assert_int_equal(e[1].kind, 7);
  assert_int_equal(e[1].low, 0x3000);
  assert_int_equal(e[1].high, 0x3010);
  assert_int_equal(e[2].kind, 8);
  assert_int_equal(e[2].low, 0x4000);
  assert_int_equal(e[2].high, 0x4020);
  assert_int_equal(e[2].size, 0);
  assert_int_equal(amddwarf_attr_value_expr_at(y->location, 0x2004, &bytes, &size, &used),
                   AMDDWARF_NOT_FOUND);
  amddwarf_object_close(o);
}

static void test_types(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  char name[128];
  uint64_t size = 0;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_die_info *ptr = amddwarf_object_die_at(o, d.off_ptr);
  assert_int_equal(ptr->tag, 0x0f);
  assert_true(ptr->flags & AMDDWARF_DIE_HAS_ADDRESS_CLASS);
  assert_int_equal(ptr->address_class, 2);
  assert_int_equal(amddwarf_type_name(o, ptr, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "const S *");
  /* Address class 2 of a legacy unit is local (LDS): 4-byte pointers. */
  assert_int_equal(amddwarf_type_pointer_aspace(o, ptr), AMDDWARF_ASPACE_AMDGPU_LOCAL);
  assert_int_equal(amddwarf_type_byte_size(o, ptr, &size), AMDDWARF_OK);
  assert_int_equal(size, 4);
  const amddwarf_die_info *st = amddwarf_object_die_at(o, d.off_struct);
  assert_int_equal(amddwarf_type_byte_size(o, st, &size), AMDDWARF_OK);
  assert_int_equal(size, 8);
  const amddwarf_die_info *b = st->first_child->next_sibling;
  assert_string_equal(b->name, "b");
  assert_int_equal(b->data_member_location->kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(b->data_member_location->u, 4);
  /* int[2][3]: count 2, upper bound 2 */
  const amddwarf_die_info *arr = amddwarf_object_die_at(o, d.off_arr);
  assert_int_equal(amddwarf_type_name(o, arr, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "int[2][3]");
  assert_int_equal(amddwarf_type_byte_size(o, arr, &size), AMDDWARF_OK);
  assert_int_equal(size, 24);
  /* A bound that is an expression: no constant size. */
  const amddwarf_die_info *arre = amddwarf_object_die_at(o, d.off_arr_expr);
  assert_int_equal(arre->first_child->upper_bound->kind, AMDDWARF_ATTR_EXPR);
  assert_int_equal(arre->first_child->upper_bound->size, 2);
  assert_int_equal(amddwarf_type_byte_size(o, arre, &size), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_type_name(o, arre, name, sizeof name, NULL), AMDDWARF_OK);
  assert_string_equal(name, "int[]");
  const amddwarf_die_info *td = amddwarf_object_die_at(o, d.off_typedef);
  assert_ptr_equal(amddwarf_type_strip(td), amddwarf_object_die_at(o, d.off_int));
  assert_int_equal(amddwarf_type_byte_size(o, td, &size), AMDDWARF_OK);
  assert_int_equal(size, 4);
  /* Truncation reports the full length. */
  size_t length = 0;
  assert_int_equal(amddwarf_type_name(o, ptr, name, 4, &length), AMDDWARF_E_NO_SPACE);
  assert_int_equal(length, strlen("const S *"));
  assert_string_equal(name, "con");
  amddwarf_object_close(o);
}

static void test_scopes_ranges_and_vars(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_die_info *sub = amddwarf_object_die_at(o, d.off_sub);
  assert_int_equal(sub->ranges[0].low, 0x1000); /* low_pc addrx 0 */
  assert_int_equal(sub->ranges[0].high, 0x1200);
  const amddwarf_die_info *blk = amddwarf_object_die_at(o, d.off_block);
  assert_int_equal(blk->range_count, 2);
  assert_int_equal(blk->ranges[0].low, 0x1000);
  assert_int_equal(blk->ranges[0].high, 0x1040);
  assert_int_equal(blk->ranges[1].low, 0x1080);
  assert_int_equal(blk->ranges[1].high, 0x1090);
  const amddwarf_die_info *scopes[8];
  size_t depth = 0;
  assert_int_equal(amddwarf_object_scopes_at(o, 0x1084, scopes, 8, &depth), AMDDWARF_OK);
  assert_int_equal(depth, 3);
  assert_ptr_equal(scopes[0], blk);
  assert_ptr_equal(scopes[1], sub);
  assert_int_equal(scopes[2]->tag, 0x11);
  /* Outside the block (0x1050): only the subprogram's variables. */
  amddwarf_var vars[8];
  size_t count = 0;
  assert_int_equal(amddwarf_object_vars_at(o, 0x1050, vars, 8, &count), AMDDWARF_OK);
  assert_int_equal(count, 2);
  assert_string_equal(vars[0].die->name, "x");
  assert_true(vars[0].available); /* startx_endx 0x1000-0x1200 */
  assert_int_equal(vars[0].expr[0], 0x51);
  assert_string_equal(vars[1].die->name, "y");
  assert_false(vars[1].available);
  /* Inside the block: z first (depth 0). */
  assert_int_equal(amddwarf_object_vars_at(o, 0x1084, vars, 8, &count), AMDDWARF_OK);
  assert_int_equal(count, 3);
  assert_string_equal(vars[0].die->name, "z");
  assert_int_equal(vars[0].depth, 0);
  assert_int_equal(vars[0].size, 5);
  /* The capacity limits what is written, not the count. */
  assert_int_equal(amddwarf_object_vars_at(o, 0x1084, vars, 1, &count), AMDDWARF_OK);
  assert_int_equal(count, 3);
  /* The unit: language and convention. */
  const amddwarf_cu *cu = amddwarf_object_cu(o, 0);
  assert_int_equal(cu->language, 0x8100);
  assert_string_equal(amddwarf_dw_lang_name(cu->language), "DW_LANG_LLVM_HIP");
  assert_int_equal(cu->convention, AMDDWARF_CONVENTION_LEGACY);
  amddwarf_object_close(o);
}

static void test_line_program(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  const amddwarf_line_table *t = amddwarf_object_line_table(o, 0);
  assert_non_null(t);
  assert_int_equal(t->version, 5);
  assert_int_equal(t->file_count, 2);
  assert_string_equal(t->files[0], "/src/a.cl");
  assert_string_equal(t->files[1], "/src/inc/b.h");
  assert_int_equal(t->row_count, 4);
  assert_int_equal(t->rows[0].address, 0x1000);
  assert_int_equal(t->rows[0].line, 10);
  assert_int_equal(t->rows[0].column, 7);
  assert_int_equal(t->rows[0].file, 0);
  assert_int_equal(t->rows[0].flags, AMDDWARF_LINE_IS_STMT);
  assert_int_equal(t->rows[1].address, 0x1008);
  assert_int_equal(t->rows[1].line, 11);
  assert_int_equal(t->rows[1].file, 1); /* file 1 stays 1 */
  assert_int_equal(t->rows[1].flags, AMDDWARF_LINE_IS_STMT | AMDDWARF_LINE_PROLOGUE_END);
  assert_int_equal(t->rows[2].address, 0x1020);
  assert_int_equal(t->rows[2].flags, 0);
  assert_int_equal(t->rows[3].address, 0x1100);
  assert_true(t->rows[3].flags & AMDDWARF_LINE_END_SEQUENCE);
  const amddwarf_line_table *lt;
  const amddwarf_line_row *row;
  assert_int_equal(amddwarf_object_line_at(o, 0x1010, &lt, &row), AMDDWARF_OK);
  assert_ptr_equal(row, &t->rows[1]);
  assert_int_equal(amddwarf_object_line_at(o, 0x1100, &lt, &row), AMDDWARF_NOT_FOUND);
  amddwarf_object_close(o);
}

static void test_extension_unit_old_codes(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  const amddwarf_cu *cu = amddwarf_object_cu(o, 1);
  assert_int_equal(cu->language, 0x30);
  assert_int_equal(cu->convention, AMDDWARF_CONVENTION_EXTENSION);
  assert_non_null(strstr(cu->convention_reason, "DW_AT_LLVM_"));
  const amddwarf_die_info *v = amddwarf_object_die_at(o, d.off_ext_var);
  assert_true(v->flags & AMDDWARF_DIE_OLD_LLVM_CODES);
  assert_non_null(v->lane_pc);
  assert_int_equal(v->lane_pc->kind, AMDDWARF_ATTR_EXPR);
  assert_int_equal(v->lane_pc->size, 5);
  assert_string_equal(amddwarf_dw_at_name(0x3e0b), "DW_AT_LLVM_lane_pc");
  assert_string_equal(amddwarf_dw_at_name(0x3e12), "DW_AT_LLVM_lane_pc");
  amddwarf_object_close(o);
  /* Forcing a convention applies to every unit. */
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  opts.convention = AMDDWARF_CONVENTION_LEGACY;
  assert_int_equal(amddwarf_object_open_memory(image, n, &opts, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu(o, 1)->convention, AMDDWARF_CONVENTION_LEGACY);
  assert_string_equal(amddwarf_object_cu(o, 1)->convention_reason, "chosen by the caller");
  amddwarf_object_close(o);
}

static void test_bad_loclist_kind(void **state)
{
  (void)state;
  static dwarf5 d;
  build_dwarf5(&d);
  /* Corrupt the first entry kind of list x (after base_addressx 1). */
  size_t list_x = 12 + 4;
  d.loclists.data[list_x] = 0x0e;
  sec s[] = {
      {".debug_abbrev", 1, d.abbrev.data, d.abbrev.len, 0, 0, 0, 0},
      {".debug_info", 1, d.info.data, d.info.len, 0, 0, 0, 0},
      {".debug_addr", 1, d.addr.data, d.addr.len, 0, 0, 0, 0},
      {".debug_loclists", 1, d.loclists.data, d.loclists.len, 0, 0, 0, 0},
      {".debug_rnglists", 1, d.rnglists.data, d.rnglists.len, 0, 0, 0, 0},
      {".debug_line", 1, d.line.data, d.line.len, 0, 0, 0, 0},
      {".debug_line_str", 1, d.line_str.data, d.line_str.len, 0, 0, 0, 0},
  };
  elf_params p = {3, 224, 3, 0x2c};
  size_t n = build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  /* Open reads the lists of the legacy unit (its convention depends on
     them): the unit keeps the error; the object still opens. */
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_LIST);
  assert_int_equal(err.offset, list_x);
  assert_non_null(strstr(err.message, "unknown entry kind 0x0e"));
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  assert_int_equal(amddwarf_object_cu(o, 0)->die_count, 0); /* none of it can be read */
  assert_int_equal(amddwarf_object_die_count(o), amddwarf_object_cu(o, 1)->die_count);
  assert_null(amddwarf_object_die_at(o, amddwarf_object_cu(o, 0)->die_offset));
  assert_int_equal(amddwarf_object_load_unit(o, 1, &err), AMDDWARF_OK); /* the other unit */
  amddwarf_object_close(o);
  /* An address index past .debug_addr. */
  build_dwarf5(&d);
  d.loclists.data[list_x + 1] = 0x7f; /* base_addressx 127 */
  n = build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_LIST);
  assert_non_null(strstr(err.message, "address index 127"));
  amddwarf_object_close(o);
}

/* ---- conventions ---- */

static void normalized(const amddwarf_object *o, size_t unit, amddwarf_expr_role role,
                       const uint8_t *in, size_t n, const uint8_t *want, size_t want_size)
{
  uint8_t out[64];
  size_t size = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_object_normalize_expr(o, amddwarf_object_cu(o, unit), role, in, n,
                                                  out, sizeof out, &size, &err),
                   AMDDWARF_OK);
  assert_int_equal(size, want_size);
  assert_memory_equal(out, want, want_size);
}

static void test_normalize_legacy(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  /* Unit 0 is legacy: "lit1, swap, xderef" (private) becomes DW_ASPACE 5 and
     DW_OP_LLVM_form_aspace_address (DW_OP_LLVM_user 0xe9, sub-op 0x02). */
  const uint8_t priv[] = {0x91, 0x08, 0x31, 0x16, 0x18};
  const uint8_t priv_n[] = {0x91, 0x08, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, priv, sizeof priv, priv_n, sizeof priv_n);
  /* "lit2" is local: DW_ASPACE_AMDGPU_local 3 */
  const uint8_t local[] = {0xa1, 0x00, 0x32, 0x16, 0x18};
  const uint8_t local_n[] = {0xa1, 0x00, 0x33, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, local, sizeof local, local_n, sizeof local_n);
  /* Before DW_OP_stack_value the suffix is dropped: the value is the constant. */
  const uint8_t cst[] = {0x11, 0x00, 0x31, 0x16, 0x18, 0x9f};
  const uint8_t cst_n[] = {0x11, 0x00, 0x9f};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, cst, sizeof cst, cst_n, sizeof cst_n);
  /* HIP's bare DW_OP_fbreg is private */
  const uint8_t bare[] = {0x91, 0x08};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, bare, sizeof bare, priv_n, sizeof priv_n);
  /* -O2 "bregx VGPR40+8, lit1, swap, xderef": the focused lane's dword of
     VGPR40 (DWARF 2600) plus 8 is a private address. */
  const uint8_t vgpr[] = {0x92, 0xa8, 0x14, 0x08, 0x31, 0x16, 0x18};
  const uint8_t vgpr_n[] = {0x90, 0xa8, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x94,
                            0x04, 0x23, 0x08, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, vgpr, sizeof vgpr, vgpr_n, sizeof vgpr_n);
  const uint8_t vgpr_neg[] = {0x92, 0xa8, 0x14, 0x78, 0x31, 0x16, 0x18}; /* -8 */
  const uint8_t vgpr_neg_n[] = {0x90, 0xa8, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x94,
                                0x04, 0x11, 0x78, 0x22, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, vgpr_neg, sizeof vgpr_neg, vgpr_neg_n,
             sizeof vgpr_neg_n);
  /* A scalar base register is read whole, as written. */
  const uint8_t sgpr[] = {0x92, 0x21, 0x00, 0x31, 0x16, 0x18};
  const uint8_t sgpr_n[] = {0x92, 0x21, 0x00, 0x35, 0xe9, 0x02};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, sgpr, sizeof sgpr, sgpr_n, sizeof sgpr_n);
  /* -O2 "regx VGPR37" (DWARF 2597): the value is the focused lane's dword,
     the register location at byte offset lane * 4 (push_lane 0xe9 0x03, lit4,
     mul, offset 0xe9 0x04) as a 4-byte piece (0x93 0x04); read whole, the
     register would start with lane 0's dword. */
  const uint8_t reg_v37[] = {0x90, 0xa5, 0x14};
  const uint8_t reg_v37_n[] = {0x90, 0xa5, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_v37, sizeof reg_v37, reg_v37_n,
             sizeof reg_v37_n);
  /* The wave32 number of VGPR37 (1573) and AGPR5 (wave64, 3077) too. */
  const uint8_t reg_w32[] = {0x90, 0xa5, 0x0c};
  const uint8_t reg_w32_n[] = {0x90, 0xa5, 0x0c, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_w32, sizeof reg_w32, reg_w32_n,
             sizeof reg_w32_n);
  const uint8_t reg_a5[] = {0x90, 0x85, 0x18};
  const uint8_t reg_a5_n[] = {0x90, 0x85, 0x18, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_a5, sizeof reg_a5, reg_a5_n, sizeof reg_a5_n);
  /* A 64-bit pointer in a VGPR pair: "regx v0, piece 4, regx v1, piece 4";
     each piece is its lane's dword. */
  const uint8_t pair[] = {0x90, 0x80, 0x14, 0x93, 0x04, 0x90, 0x81, 0x14, 0x93, 0x04};
  const uint8_t pair_n[] = {0x90, 0x80, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04,
                            0x90, 0x81, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, pair, sizeof pair, pair_n, sizeof pair_n);
  /* Scalar registers, by regx and by DW_OP_reg1 (DW_OP_reg0-31 name no vector
     register), are copied. */
  const uint8_t reg_s33[] = {0x90, 0x41, 0x93, 0x04, 0x51, 0x93, 0x04};
  normalized(o, 0, AMDDWARF_ROLE_LOCATION, reg_s33, sizeof reg_s33, reg_s33, sizeof reg_s33);
  /* The frame base register's value divided by the wave size (gfx900: 64). */
  const uint8_t fb[] = {0x90, 0x41};
  const uint8_t fb_n[] = {0x92, 0x41, 0x00, 0x36, 0x25};
  normalized(o, 0, AMDDWARF_ROLE_FRAME_BASE, fb, sizeof fb, fb_n, sizeof fb_n);
  /* Unit 1 uses the extension convention: copied as is. */
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, priv, sizeof priv, priv, sizeof priv);
  /* ... a VGPR location too: there "regx VGPR37" is the whole register, and
     a lane's dword is selected with DW_OP_LLVM_push_lane where meant. */
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, reg_v37, sizeof reg_v37, reg_v37, sizeof reg_v37);
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, pair, sizeof pair, pair, sizeof pair);
  normalized(o, 1, AMDDWARF_ROLE_LOCATION, vgpr, sizeof vgpr, vgpr, sizeof vgpr);
  /* Too little room says how much is needed. */
  uint8_t small[2];
  size_t size = 0;
  assert_int_equal(amddwarf_object_normalize_expr(o, amddwarf_object_cu(o, 0),
                                                  AMDDWARF_ROLE_LOCATION, priv, sizeof priv, small,
                                                  sizeof small, &size, &err),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(size, 5);
  /* .debug_addr entries */
  uint64_t a = 0;
  assert_int_equal(amddwarf_object_address_index(o, amddwarf_object_cu(o, 0), 2, &a, &err),
                   AMDDWARF_OK);
  assert_int_equal(a, 0x1200);
  assert_int_equal(amddwarf_object_address_index(o, amddwarf_object_cu(o, 0), 4, &a, &err),
                   AMDDWARF_E_OBJECT_BAD_LIST);
  amddwarf_object_close(o);
}

/* Both attribute readers agree on every DIE of the DWARF 5 object. */
typedef struct attr_list {
  amddwarf_attribute items[64];
  size_t count;
} attr_list;

static int collect_attr(void *user, const amddwarf_attribute *a)
{
  attr_list *l = user;
  if (l->count < 64)
    l->items[l->count++] = *a;
  return 0;
}

static void test_native_and_libdwarf_attributes(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *native = NULL, *viaelf = NULL;
  amddwarf_object_options opts;
  amddwarf_error err;
  amddwarf_object_options_init(&opts);
  opts.flags = AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES;
  assert_int_equal(amddwarf_object_open_memory(image, n, NULL, &native, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_open_memory(image, n, &opts, &viaelf, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_count(native), amddwarf_object_die_count(viaelf));
  for (size_t i = 0; i < amddwarf_object_die_count(native); ++i) {
    static attr_list a, b;
    a.count = b.count = 0;
    assert_int_equal(amddwarf_object_die_attributes(native, amddwarf_object_die(native, i),
                                                    collect_attr, &a, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_object_die_attributes(viaelf, amddwarf_object_die(viaelf, i),
                                                    collect_attr, &b, &err), AMDDWARF_OK);
    assert_int_equal(a.count, b.count);
    for (size_t k = 0; k < a.count; ++k) {
      assert_int_equal(a.items[k].attribute, b.items[k].attribute);
      assert_int_equal(a.items[k].form, b.items[k].form);
      assert_int_equal(a.items[k].value.kind, b.items[k].value.kind);
      if (a.items[k].value.kind == AMDDWARF_ATTR_STRING)
        assert_string_equal(a.items[k].value.string, b.items[k].value.string);
      else if (a.items[k].value.kind == AMDDWARF_ATTR_REF)
        assert_int_equal(a.items[k].value.offset, b.items[k].value.offset);
      else if (a.items[k].value.kind == AMDDWARF_ATTR_EXPR)
        assert_memory_equal(a.items[k].value.bytes, b.items[k].value.bytes, a.items[k].value.size);
      else if (a.items[k].value.kind != AMDDWARF_ATTR_LIST)
        assert_int_equal(a.items[k].value.u, b.items[k].value.u);
    }
  }
  amddwarf_object_close(native);
  amddwarf_object_close(viaelf);
}

/* ---- checker ---- */

typedef struct kinds {
  unsigned seen[AMDDWARF_CHECK_KIND_COUNT];
  uint64_t op_offset;
} kinds;

static int collect(void *user, const amddwarf_check_problem *p)
{
  kinds *k = user;
  k->seen[p->kind]++;
  k->op_offset = p->op_offset;
  return 0;
}

static size_t check_bytes(const uint8_t *bytes, size_t size, kinds *k)
{
  size_t count = 0;
  amddwarf_error err;
  memset(k, 0, sizeof *k);
  assert_int_equal(amddwarf_object_check_expr(NULL, NULL, bytes, size, collect, k, &count, &err),
                   AMDDWARF_OK);
  return count;
}

/* ---- references between DIEs ---- */

/* Two DWARF 4 units. Unit A: a variable whose type is a later DIE (forward
   reference), one whose type is an earlier DIE (backward), one with only
   DW_AT_abstract_origin (inherits name and type), and a struct whose two
   members have DW_AT_data_member_location 0 and 4. Unit B: a variable whose
   DW_FORM_ref_addr type is in unit A, and a member at offset 4 again.
   BAD_TARGET, when non-zero, replaces the backward reference's target. */
typedef struct ref_units {
  buf abbrev, info;
  size_t off_fwd, off_int, off_back, off_inherit, off_long, off_m0, off_m1;
  size_t off_cross, off_n0, unit_b;
} ref_units;

static void build_ref_units(ref_units *d, uint32_t bad_target)
{
  memset(d, 0, sizeof *d);
  buf *a = &d->abbrev;
  abbrev(a, 1, 0x11, 1, PAIRS(0x03, 0x08));                   /* compile_unit: name */
  abbrev(a, 2, 0x24, 0, PAIRS(0x03, 0x08, 0x0b, 0x0b));       /* base_type: name, byte_size */
  abbrev(a, 3, 0x34, 0, PAIRS(0x03, 0x08, 0x49, 0x13));       /* variable: name, type ref4 */
  abbrev(a, 4, 0x34, 0, PAIRS(0x03, 0x08, 0x49, 0x10));       /* variable: type ref_addr */
  abbrev(a, 5, 0x34, 0, PAIRS(0x31, 0x13));                   /* variable: abstract_origin */
  abbrev(a, 6, 0x13, 1, PAIRS(0x03, 0x08, 0x0b, 0x0b));       /* structure_type */
  abbrev(a, 7, 0x0d, 0, PAIRS(0x03, 0x08, 0x38, 0x0b));       /* member: data_member_location */
  b_u8(a, 0);
  buf *di = &d->info;
  /* unit A: DWARF 4 header (length, version, abbrev offset, address size) */
  b_uint(di, 0, 4);
  b_uint(di, 4, 2);
  b_uint(di, 0, 4);
  b_u8(di, 8);
  b_uleb(di, 1); b_str(di, "a.cl");
  d->off_fwd = di->len;
  size_t fwd_type = di->len + 1 + 4; /* after the abbreviation code and "fwd"; patched below */
  b_uleb(di, 3); b_str(di, "fwd"); b_uint(di, 0, 4);
  d->off_int = di->len;
  b_uleb(di, 2); b_str(di, "int"); b_u8(di, 4);
  d->off_back = di->len;
  b_uleb(di, 3); b_str(di, "back"); b_uint(di, bad_target ? bad_target : d->off_int, 4);
  d->off_inherit = di->len;
  b_uleb(di, 5); b_uint(di, d->off_fwd, 4);
  d->off_long = di->len;
  b_uleb(di, 2); b_str(di, "long"); b_u8(di, 8);
  b_uleb(di, 6); b_str(di, "S"); b_u8(di, 8);
  d->off_m0 = di->len;
  b_uleb(di, 7); b_str(di, "m0"); b_u8(di, 0);
  d->off_m1 = di->len;
  b_uleb(di, 7); b_str(di, "m1"); b_u8(di, 4);
  b_u8(di, 0); /* end of struct */
  b_u8(di, 0); /* end of unit */
  b_patch32(di, fwd_type, (uint32_t)d->off_long);
  b_patch32(di, 0, (uint32_t)(di->len - 4));
  /* unit B */
  size_t ub = di->len;
  d->unit_b = ub;
  b_uint(di, 0, 4);
  b_uint(di, 4, 2);
  b_uint(di, 0, 4);
  b_u8(di, 8);
  b_uleb(di, 1); b_str(di, "b.cl");
  d->off_cross = di->len;
  b_uleb(di, 4); b_str(di, "cross"); b_uint(di, d->off_int, 4); /* .debug_info offset */
  b_uleb(di, 6); b_str(di, "T"); b_u8(di, 8);
  d->off_n0 = di->len;
  b_uleb(di, 7); b_str(di, "n0"); b_u8(di, 4);
  b_u8(di, 0);
  b_u8(di, 0);
  b_patch32(di, ub, (uint32_t)(di->len - ub - 4));
}

static size_t build_ref_object(ref_units *d, uint32_t bad_target)
{
  build_ref_units(d, bad_target);
  sec s[] = {
      {".debug_abbrev", 1, d->abbrev.data, d->abbrev.len, 0, 0, 0, 0},
      {".debug_info", 1, d->info.data, d->info.len, 0, 0, 0, 0},
  };
  elf_params p = {3, 224, 3, 0x2c};
  return build_elf(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_references(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_cu_count(o), 2);
  assert_int_equal(amddwarf_object_die_count(o), 13);
  for (size_t i = 0; i < amddwarf_object_die_count(o); ++i) {
    const amddwarf_die_info *die = amddwarf_object_die(o, i);
    assert_ptr_equal(amddwarf_object_die_at(o, die->offset), die);
    assert_null(amddwarf_object_die_at(o, die->offset + 1)); /* no DIE is one byte long */
  }
  assert_null(amddwarf_object_die_at(o, 0));
  assert_null(amddwarf_object_die_at(o, d.info.len));
  const amddwarf_die_info *in = amddwarf_object_die_at(o, d.off_int);
  const amddwarf_die_info *lg = amddwarf_object_die_at(o, d.off_long);
  const amddwarf_die_info *fwd = amddwarf_object_die_at(o, d.off_fwd);
  assert_non_null(in);
  assert_non_null(lg);
  assert_non_null(fwd);
  assert_string_equal(in->name, "int");
  assert_string_equal(lg->name, "long");
  assert_int_equal(lg->byte_size, 8);
  assert_ptr_equal(fwd->type, lg);                                   /* forward */
  assert_ptr_equal(amddwarf_object_die_at(o, d.off_back)->type, in); /* backward */
  const amddwarf_die_info *inh = amddwarf_object_die_at(o, d.off_inherit);
  assert_ptr_equal(inh->origin, fwd);
  assert_string_equal(inh->name, "fwd");
  assert_ptr_equal(inh->type, lg);
  const amddwarf_die_info *cross = amddwarf_object_die_at(o, d.off_cross);
  assert_int_equal(cross->cu_index, 1);
  assert_ptr_equal(cross->type, in); /* DW_FORM_ref_addr into unit A */
  const amddwarf_die_info *m0 = amddwarf_object_die_at(o, d.off_m0);
  const amddwarf_die_info *m1 = amddwarf_object_die_at(o, d.off_m1);
  const amddwarf_die_info *n0 = amddwarf_object_die_at(o, d.off_n0);
  assert_int_equal(m0->data_member_location->kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(m0->data_member_location->u, 0);
  assert_int_equal(m0->data_member_location->form, 0x0b);
  assert_int_equal(m0->data_member_location->attribute, 0x38);
  assert_int_equal(m1->data_member_location->u, 4);
  assert_int_equal(n0->data_member_location->kind, AMDDWARF_ATTR_UNSIGNED);
  assert_int_equal(n0->data_member_location->u, 4);
  assert_int_equal(n0->cu_index, 1);
  amddwarf_object_close(o);

  /* A reference to where no DIE starts (inside "int"'s name) is an error
     naming the referring DIE and the target: when the unit is loaded, and
     again each time it is asked for. */
  n = build_ref_object(&d, (uint32_t)(d.off_int + 2));
  char expect[128];
  snprintf(expect, sizeof expect, "DIE 0x%zx refers to 0x%zx, where no DIE starts", d.off_back,
           d.off_int + 2);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_die_count(o), 9 + 4); /* counted at open */
  assert_null(amddwarf_object_die_at(o, d.off_back));
  for (int attempt = 0; attempt < 2; ++attempt) {
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_object_load_unit(o, 0, &err), AMDDWARF_E_OBJECT_BAD_REFERENCE);
    assert_int_equal(err.offset, d.off_back);
    assert_non_null(strstr(err.message, expect));
  }
  /* Unit B refers into unit A: it cannot be loaded either, and says why. */
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_load_unit(o, 1, &err), AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_non_null(strstr(err.message, "in a unit that cannot be read"));
  assert_non_null(strstr(err.message, expect));
  assert_null(amddwarf_object_die_at(o, d.off_cross));
  amddwarf_object_close(o);

  /* With AMDDWARF_OBJECT_LOAD_ALL, open reports it. */
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  opts.flags = AMDDWARF_OBJECT_LOAD_ALL;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_open_memory(image, n, &opts, &o, &err),
                   AMDDWARF_E_OBJECT_BAD_REFERENCE);
  assert_null(o);
  assert_int_equal(err.offset, d.off_back);
  assert_non_null(strstr(err.message, expect));
}

/* Units are summarized on first use: open counts DIEs per unit, and a
   reference from unit B into unit A loads A along with B. */
static void test_units_load_on_first_use(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  size_t at_open = amddwarf_object_memory_used(o);
  const amddwarf_cu *a = amddwarf_object_cu(o, 0), *b = amddwarf_object_cu(o, 1);
  assert_int_equal(a->first_die, 0);
  assert_int_equal(a->die_count, 9);
  assert_int_equal(b->first_die, 9);
  assert_int_equal(b->die_count, 4);
  assert_string_equal(b->name, "b.cl"); /* from the unit DIE, read at open */
  const amddwarf_die_info *cross = amddwarf_object_die_at(o, d.off_cross);
  assert_non_null(cross);
  assert_true(amddwarf_object_memory_used(o) > at_open);
  assert_ptr_equal(cross->type, amddwarf_object_die_at(o, d.off_int));
  assert_string_equal(cross->type->name, "int");
  assert_ptr_equal(amddwarf_object_die(o, b->first_die), amddwarf_object_die_at(o, b->die_offset));
  assert_null(amddwarf_object_die(o, 13));
  assert_int_equal(amddwarf_object_load_all(o, &err), AMDDWARF_OK);
  amddwarf_object_close(o);
}

typedef struct die_walk {
  const amddwarf_object *object;
  const amddwarf_die_info *seen[13];
} die_walk;

static void *walk_dies_backwards(void *arg)
{
  die_walk *w = arg;
  for (size_t i = 13; i-- > 0;)
    w->seen[i] = amddwarf_object_die(w->object, i);
  return NULL;
}

/* Threads asking for DIEs of units not loaded yet all get the same
   summaries. */
static void test_units_load_from_threads(void **state)
{
  (void)state;
  static ref_units d;
  size_t n = build_ref_object(&d, 0);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  static die_walk walks[4];
  pthread_t threads[4];
  for (int t = 0; t < 4; ++t) {
    walks[t].object = o;
    assert_int_equal(pthread_create(&threads[t], NULL, walk_dies_backwards, &walks[t]), 0);
  }
  for (int t = 0; t < 4; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  for (size_t i = 0; i < 13; ++i) {
    const amddwarf_die_info *die = amddwarf_object_die(o, i);
    assert_non_null(die);
    for (int t = 0; t < 4; ++t)
      assert_ptr_equal(walks[t].seen[i], die);
  }
  amddwarf_object_close(o);
}

static void test_check_expressions(void **state)
{
  (void)state;
  kinds k;
  /* clang's private variable: clean */
  const uint8_t ok[] = {0x91, 0x08, 0x31, 0x16, 0x18};
  assert_int_equal(check_bytes(ok, sizeof ok, &k), 0);
  /* swap with one entry */
  const uint8_t under[] = {0x31, 0x16};
  assert_int_equal(check_bytes(under, sizeof under, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_STACK_UNDERFLOW], 1);
  assert_int_equal(k.op_offset, 1);
  /* underflow on only one path: lit0 bra +1 (skips lit1) then plus */
  const uint8_t path[] = {0x30, 0x30, 0x28, 0x01, 0x00, 0x31, 0x22};
  assert_int_equal(check_bytes(path, sizeof path, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_STACK_UNDERFLOW], 1);
  /* legacy xderef address space 3 does not exist */
  const uint8_t aspace[] = {0x91, 0x08, 0x33, 0x16, 0x18};
  assert_int_equal(check_bytes(aspace, sizeof aspace, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_ADDRESS_SPACE], 1);
  /* register 5 is not in the map; wave32 VGPR0 (1536) in a wave64 object */
  const uint8_t reg[] = {0x90, 0x05};
  assert_int_equal(check_bytes(reg, sizeof reg, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_REGISTER], 1);
  const uint8_t wave[] = {0x90, 0x80, 0x0c};
  assert_int_equal(check_bytes(wave, sizeof wave, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_WAVE_REGISTER], 1);
  /* an 8-byte piece of a 32-bit SGPR; a 4-byte piece of a 2-byte implicit value */
  const uint8_t piece[] = {0x90, 0x20, 0x93, 0x08};
  assert_int_equal(check_bytes(piece, sizeof piece, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_PIECE_OVERRUN], 1);
  const uint8_t implicit[] = {0x9e, 0x02, 0xaa, 0xbb, 0x93, 0x04};
  assert_int_equal(check_bytes(implicit, sizeof implicit, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_PIECE_OVERRUN], 1);
  const uint8_t piece_ok[] = {0x90, 0x20, 0x93, 0x04, 0x90, 0x21, 0x93, 0x04};
  assert_int_equal(check_bytes(piece_ok, sizeof piece_ok, &k), 0);
  /* nothing left on the stack */
  const uint8_t empty[] = {0x31, 0x13};
  assert_int_equal(check_bytes(empty, sizeof empty, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_EMPTY_RESULT], 1);
  /* decode errors: unknown opcode, branch past the end */
  const uint8_t bad_op[] = {0x31, 0xff};
  assert_int_equal(check_bytes(bad_op, sizeof bad_op, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_DECODE], 1);
  const uint8_t bad_branch[] = {0x2f, 0x05, 0x00, 0x30};
  assert_int_equal(check_bytes(bad_branch, sizeof bad_branch, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_DECODE], 1);
  /* DW_OP_pick 3 with two entries */
  const uint8_t pick[] = {0x30, 0x31, 0x15, 0x03};
  assert_int_equal(check_bytes(pick, sizeof pick, &k), 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_STACK_OP], 1);
  /* a loop terminates the analysis: lit1, skip -3 back to itself is a cycle */
  const uint8_t loop[] = {0x31, 0x2f, 0xfd, 0xff};
  check_bytes(loop, sizeof loop, &k);
  assert_string_equal(amddwarf_check_kind_name(AMDDWARF_CHECK_LIST_OVERLAP), "list_overlap");
  assert_null(amddwarf_check_kind_name(AMDDWARF_CHECK_KIND_COUNT));
}

static void test_check_object_lists(void **state)
{
  (void)state;
  static dwarf5 d;
  size_t n = build_dwarf5_object(&d);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  kinds k;
  size_t count = 0;
  memset(&k, 0, sizeof k);
  assert_int_equal(open_image(n, &o, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_object_check(o, collect, &k, &count, &err), AMDDWARF_OK);
  /* list x: [0x1110,0x1120) lies inside [0x1000,0x1200): one overlap.
     x's DW_OP_reg0..2 name PC_32, EXEC_MASK_32 (a wave32 register in this
     wave64 object) and register 2 (reserved); y's DW_OP_reg3 is reserved. */
  assert_int_equal(k.seen[AMDDWARF_CHECK_LIST_OVERLAP], 1);
  assert_int_equal(k.seen[AMDDWARF_CHECK_BAD_REGISTER], 2);
  assert_int_equal(k.seen[AMDDWARF_CHECK_WAVE_REGISTER], 1);
  assert_int_equal(count, 4);
  amddwarf_object_close(o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_not_elf),
      cmocka_unit_test(test_not_amdgpu),
      cmocka_unit_test(test_isa_from_flags),
      cmocka_unit_test(test_section_outside_file),
      cmocka_unit_test(test_metadata_note),
      cmocka_unit_test(test_relocations_applied),
      cmocka_unit_test(test_relocation_rel32_and_halves),
      cmocka_unit_test(test_relocation_errors),
      cmocka_unit_test(test_unknown_addresses),
      cmocka_unit_test(test_loclists_every_kind),
      cmocka_unit_test(test_types),
      cmocka_unit_test(test_scopes_ranges_and_vars),
      cmocka_unit_test(test_line_program),
      cmocka_unit_test(test_extension_unit_old_codes),
      cmocka_unit_test(test_bad_loclist_kind),
      cmocka_unit_test(test_normalize_legacy),
      cmocka_unit_test(test_native_and_libdwarf_attributes),
      cmocka_unit_test(test_references),
      cmocka_unit_test(test_units_load_on_first_use),
      cmocka_unit_test(test_units_load_from_threads),
      cmocka_unit_test(test_check_expressions),
      cmocka_unit_test(test_check_object_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
