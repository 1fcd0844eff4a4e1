/* Unit tests of src/object's ELF side: the header and ISA, the metadata note,
 * relocation of debug sections, and addresses that come from symbols without
 * an address.
 *
 * Objects are assembled in memory (support/elf_build.h, dwarf_build.h);
 * every expected value is derived from what is written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "object_fixture.h"

static uint8_t image[TEST_IMAGE_SIZE];

/* ---- header and ISA ---- */

/* Opens IMAGE, which succeeds whatever its note holds (the note is read on
   first use), and reads the metadata: its status. A note that cannot be read
   leaves no kernel and no symbol. */
static amddwarf_status open_reading_metadata(const uint8_t *bytes, size_t n, amddwarf_error *err)
{
  amddwarf_object *o = NULL;
  amddwarf_status st = open_test_object(bytes, n, &o, err);
  assert_int_equal(st, AMDDWARF_OK);
  st = amddwarf_object_load_metadata(o, err);
  if (st != AMDDWARF_OK) {
    assert_int_equal(amddwarf_object_kernel_count(o), 0);
    assert_int_equal(amddwarf_object_symbol_count(o), 0);
  }
  amddwarf_object_close(o);
  return st;
}

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
  elf_params p = {TEST_ET_DYN, 62 /* EM_X86_64 */, 2, 0};
  amddwarf_object *o = NULL;
  amddwarf_error err;
  size_t n = elf_build(image, sizeof image, &p, NULL, 0);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_NOT_AMDGPU);
  assert_int_equal(err.offset, 18);
  assert_non_null(strstr(err.message, "e_machine is 62"));
}

static void test_isa_from_flags(void **state)
{
  (void)state;
  amddwarf_object *o = NULL;
  amddwarf_error err;
  /* Code object v4 (ABI version 2): gfx90a (0x3f), xnack on (0x300), sramecc off (0x800). */
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 2, 0x3f | 0x300 | 0x800};
  size_t n = elf_build(image, sizeof image, &p, NULL, 0);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
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
  elf_params p3 = {TEST_ET_REL, TEST_EM_AMDGPU, 1, 0x36 | 0x100};
  n = elf_build(image, sizeof image, &p3, NULL, 0);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  info = amddwarf_object_get_info(o);
  assert_string_equal(info->processor, "gfx1030");
  assert_int_equal(info->code_object_version, 3);
  assert_int_equal(info->xnack, AMDDWARF_FEATURE_ON);
  assert_int_equal(info->sramecc, AMDDWARF_FEATURE_ANY);
  assert_int_equal(info->isa_wave_size, 32);
  amddwarf_object_close(o);
  /* An unknown mach is not an error. */
  elf_params pu = {TEST_ET_DYN, TEST_EM_AMDGPU, 3, 0xfe};
  n = elf_build(image, sizeof image, &pu, NULL, 0);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  assert_string_equal(amddwarf_object_get_info(o)->processor, "gfx?");
  amddwarf_object_close(o);
}

static void test_section_outside_file(void **state)
{
  (void)state;
  uint8_t data[16] = {0};
  elf_sec s = {".debug_info", TEST_SHT_PROGBITS, data, sizeof data, 0, 0, 0, 0};
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 2, 0x2c};
  amddwarf_object *o = NULL;
  amddwarf_error err;
  size_t n = elf_build(image, sizeof image, &p, &s, 1);
  /* Make the section's size (sh_size) reach past the end of the file. */
  uint64_t huge = 1u << 20;
  memcpy(elf_section_header(image, 1) + 32, &huge, 8);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_ELF);
  assert_non_null(strstr(err.message, ".debug_info"));
}

/* ---- the metadata note ---- */

static void bb_msgpack_str(byte_buf *b, const char *s)
{
  size_t n = strlen(s);
  if (n < 32) {
    bb_u8(b, 0xa0 | n); /* fixstr */
  } else {
    bb_u8(b, 0xd9); /* str 8 */
    bb_u8(b, n);
  }
  bb_bytes(b, s, n);
}

/* An object for processor MACH (e_flags) whose .note holds DESC. */
static size_t note_object_for(const byte_buf *desc, uint32_t mach)
{
  static byte_buf note;
  note.len = 0;
  bb_uint(&note, 7, 4); /* namesz */
  bb_uint(&note, desc->len, 4);
  bb_uint(&note, 32, 4); /* NT_AMDGPU_METADATA */
  bb_bytes(&note, "AMDGPU\0\0", 8);
  bb_bytes(&note, desc->data, desc->len);
  while (note.len % 4)
    bb_u8(&note, 0);
  elf_sec s[] = {ELF_SEC(".note", TEST_SHT_NOTE, &note)};
  elf_params p = {TEST_ET_DYN, TEST_EM_AMDGPU, 2, mach};
  return elf_build(image, sizeof image, &p, s, 1);
}

static size_t note_object(const byte_buf *desc)
{
  return note_object_for(desc, 0x2c); /* gfx900 */
}

static void test_metadata_note(void **state)
{
  (void)state;
  static byte_buf m;
  m.len = 0;
  bb_u8(&m, 0x82); /* map of 2 */
  bb_msgpack_str(&m, "amdhsa.target");
  bb_msgpack_str(&m, "amdgcn-amd-amdhsa--gfx900");
  bb_msgpack_str(&m, "amdhsa.kernels");
  bb_u8(&m, 0x91); /* array of 1 */
  bb_u8(&m, 0x85); /* map of 5 */
  bb_msgpack_str(&m, ".name");
  bb_msgpack_str(&m, "k");
  bb_msgpack_str(&m, ".symbol");
  bb_msgpack_str(&m, "k.kd");
  bb_msgpack_str(&m, ".wavefront_size");
  size_t wave_at = m.len;
  bb_u8(&m, 32);
  bb_msgpack_str(&m, ".sgpr_count");
  bb_u8(&m, 10);
  bb_msgpack_str(&m, ".vgpr_spill_count");
  bb_u8(&m, 0xcc); /* uint8 */
  bb_u8(&m, 200);
  size_t n = note_object(&m);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  const amddwarf_object_info *info = amddwarf_object_get_info(o);
  assert_string_equal(info->target, "amdgcn-amd-amdhsa--gfx900");
  /* gfx900 runs wave64 only (isa.def): a kernel that says 32 does not
     change the object's wave size. */
  assert_int_equal(info->isa_wave_size, 64);
  assert_int_equal(info->wave_size, 64);
  assert_int_equal(info->frame_base_divisor, 64);
  assert_int_equal(amddwarf_object_kernel_count(o), 1);
  const amddwarf_kernel *k = amddwarf_object_kernel(o, 0);
  assert_string_equal(k->name, "k");
  assert_string_equal(k->symbol, "k.kd");
  assert_int_equal(k->sgpr_count, 10);
  assert_int_equal(k->vgpr_spill_count, 200);
  assert_int_equal(k->vgpr_count, UINT32_MAX); /* absent */
  amddwarf_object_close(o);
  /* gfx1030 runs both: its kernels' wave size (64) wins over its default
     of 32, and sets the frame base divisor (MUBUF scratch). */
  m.data[wave_at] = 64;
  n = note_object_for(&m, 0x36);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  info = amddwarf_object_get_info(o);
  assert_int_equal(info->isa_wave_size, 32);
  assert_int_equal(info->wave_size, 64);
  assert_int_equal(info->frame_base_divisor, 64);
  amddwarf_object_close(o);
  /* An array that claims 2^32-1 elements in 5 bytes is refused before
     anything is allocated for it. */
  m.len = 0;
  bb_u8(&m, 0xdd); /* array 32 */
  bb_uint(&m, 0xffffffffu, 4);
  n = note_object(&m);
  assert_int_equal(open_reading_metadata(image, n, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "NT_AMDGPU_METADATA"));
  /* A note whose descriptor runs past its section. */
  m.len = 0;
  bb_u8(&m, 0x80);
  n = note_object(&m);
  image[elf_section_offset(image, 1) + 4] = 0x40; /* descsz 64 */
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "overruns"));
}

/* A kernel's fields are read in place: integers of every format, values of
   the wrong type, the .args it does not keep; an entry that is not a map
   is named in the error. */
static void test_metadata_kernel_fields(void **state)
{
  (void)state;
  static byte_buf m;
  static const uint8_t int8_5[] = {0xd0, 0x05}, int16_minus2[] = {0xd1, 0xff, 0xfe},
                       uint64_big[] = {0xcf, 0, 0, 0, 1, 0, 0, 0, 0},
                       uint16_300[] = {0xcd, 0x01, 0x2c};
  m.len = 0;
  bb_u8(&m, 0x81); /* map of 1 */
  bb_msgpack_str(&m, "amdhsa.kernels");
  bb_u8(&m, 0x91); /* array of 1 */
  bb_u8(&m, 0x87); /* map of 7 */
  bb_msgpack_str(&m, ".args");
  bb_u8(&m, 0x92); /* two argument maps, stepped over; the second holds 40
                      nested arrays, deeper than msgpack-c unpacks */
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, ".size");
  bb_u8(&m, 8);
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, ".deep");
  for (int i = 0; i < 40; ++i)
    bb_u8(&m, 0x91);
  bb_u8(&m, 1);
  bb_msgpack_str(&m, ".sgpr_count");
  bb_bytes(&m, int8_5, sizeof int8_5);
  bb_msgpack_str(&m, ".vgpr_count");
  bb_bytes(&m, int16_minus2, sizeof int16_minus2);
  bb_msgpack_str(&m, ".agpr_count");
  bb_bytes(&m, uint64_big, sizeof uint64_big);
  bb_msgpack_str(&m, ".kernarg_segment_size");
  bb_bytes(&m, uint16_300, sizeof uint16_300);
  bb_msgpack_str(&m, ".symbol");
  bb_u8(&m, 7); /* not a string */
  bb_msgpack_str(&m, ".name");
  bb_msgpack_str(&m, "kern");
  size_t n = note_object(&m);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  const amddwarf_kernel *k = amddwarf_object_kernel(o, 0);
  assert_string_equal(k->name, "kern");
  assert_null(k->symbol);
  assert_int_equal(k->sgpr_count, 5);
  assert_int_equal(k->vgpr_count, UINT32_MAX); /* negative */
  assert_int_equal(k->agpr_count, UINT32_MAX); /* 2^32 */
  assert_int_equal(k->kernarg_segment_size, 300);
  amddwarf_object_close(o);
  /* The second kernel entry is an array. */
  m.len = 0;
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, "amdhsa.kernels");
  bb_u8(&m, 0x92);
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, ".name");
  bb_msgpack_str(&m, "k0");
  bb_u8(&m, 0x93);
  bb_u8(&m, 1);
  bb_u8(&m, 2);
  bb_u8(&m, 3);
  n = note_object(&m);
  assert_int_equal(open_reading_metadata(image, n, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "has a kernel entry that is not a map: kernel 1 at byte"));
  /* A kernel without a name, and one cut short. */
  m.len = 0;
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, "amdhsa.kernels");
  bb_u8(&m, 0x91);
  bb_u8(&m, 0x81);
  bb_msgpack_str(&m, ".sgpr_count");
  bb_u8(&m, 1);
  n = note_object(&m);
  assert_int_equal(open_reading_metadata(image, n, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "has a kernel without a .name string: kernel 0"));
  m.len -= 2; /* the last key's value and a byte of the key */
  n = note_object(&m);
  assert_int_equal(open_reading_metadata(image, n, &err), AMDDWARF_E_OBJECT_BAD_NOTE);
  assert_non_null(strstr(err.message, "is not well-formed msgpack"));
}

/* ---- a DWARF 4 relocatable object ---- */

enum {
  R_AMDGPU_ABS32_LO = 1,
  R_AMDGPU_ABS32_HI = 2,
  R_AMDGPU_ABS64 = 3,
  R_AMDGPU_REL32 = 4,
  R_AMDGPU_ABS32 = 6,
  R_AMDGPU_GOTPCREL = 7,
  STB_GLOBAL_STT_NOTYPE = 0x10,
  STB_GLOBAL_STT_FUNC = 0x12,
  SHN_AMDGPU_LDS = 0xff00,
  SHN_COMMON = 0xfff2,
  TEXT_SECTION = 1, /* .text is the first section */
};

typedef struct rela_entry {
  uint64_t offset;
  uint32_t type, symbol;
  int64_t addend;
} rela_entry;

/* A unit "u.cl" with a subprogram "f"; both have low_pc 0 (DW_FORM_addr) and
   high_pc (DW_FORM_data4) 0x1000 and 0. Returns the .debug_info offsets of
   f's low_pc and high_pc. */
static void dwarf4_unit(dwb *w, size_t *low_at, size_t *high_at)
{
  dwb_init(w);
  dwb_abbrev(w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4, 0);
  dwb_abbrev(w, "subprogram", DW_TAG_subprogram, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4, 0);
  dwb_unit_begin(w, 4);
  dwb_die(w, "cu", NULL);
  dwb_str(w, DW_AT_name, "u.cl");
  dwb_u(w, DW_AT_low_pc, 0);
  dwb_u(w, DW_AT_high_pc, 0x1000);
  dwb_die(w, "subprogram", NULL);
  dwb_str(w, DW_AT_name, "f");
  *low_at = dwb_u(w, DW_AT_low_pc, 0);
  *high_at = dwb_u(w, DW_AT_high_pc, 0);
  dwb_end_children(w);
  dwb_unit_end(w);
  dwb_finish(w);
}

/* The DWARF 4 unit in an ET_REL object whose .rela.debug_info holds REL;
   symbol 1 is "func" in .text at 0x40, 0x30 long. */
static size_t build_reloc_object(const rela_entry *rel, size_t nrel, size_t *low_at,
                                 size_t *high_at)
{
  static dwb dies;
  static byte_buf rela, symtab;
  static const uint8_t strtab[] = "\0func\0";
  static uint8_t text[0x200];
  size_t lo, hi;
  dwarf4_unit(&dies, &lo, &hi);
  if (low_at) *low_at = lo;
  if (high_at) *high_at = hi;
  symtab.len = 0;
  elf_sym(&symtab, 0, 0, 0, 0, 0);
  elf_sym(&symtab, 1, STB_GLOBAL_STT_FUNC, TEXT_SECTION, 0x40, 0x30);
  rela.len = 0;
  for (size_t i = 0; i < nrel; ++i)
    elf_rela(&rela, rel[i].offset, rel[i].type, rel[i].symbol, rel[i].addend);
  elf_sec s[] = {
      {".text", TEST_SHT_PROGBITS, text, sizeof text, 0, 0, 0, 0},
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &dies.abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &dies.info),
      /* link .symtab (5), applies to .debug_info (3) */
      {".rela.debug_info", TEST_SHT_RELA, rela.data, rela.len, 5, 3, 24, 0},
      {".symtab", TEST_SHT_SYMTAB, symtab.data, symtab.len, 6, 1, 24, 0},
      {".strtab", TEST_SHT_STRTAB, strtab, sizeof strtab, 0, 0, 0, 0},
  };
  elf_params p = {TEST_ET_REL, TEST_EM_AMDGPU, 2, 0x2c};
  return elf_build(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
}

static void test_relocations_applied(void **state)
{
  (void)state;
  size_t lo, hi;
  build_reloc_object(NULL, 0, &lo, &hi);
  /* ABS64 func + 0x10 at low_pc; ABS32 func + 0x20 at high_pc (an offset
     from low_pc: 0x60). */
  rela_entry r[] = {{lo, R_AMDGPU_ABS64, 1, 0x10}, {hi, R_AMDGPU_ABS32, 1, 0x20}};
  size_t n = build_reloc_object(r, 2, NULL, NULL);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
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
  memcpy(&raw, image + elf_section_offset(image, 3) + lo, 8);
  assert_int_equal(raw, 0);
  const amddwarf_die_info *scopes[4];
  size_t depth = 0;
  assert_int_equal(amddwarf_object_scopes_at(o, 0x60, scopes, 4, &depth), AMDDWARF_OK);
  assert_int_equal(depth, 2);
  assert_ptr_equal(scopes[0], f);
  assert_int_equal(amddwarf_object_scopes_at(o, 0x50 + 0x60, scopes, 4, &depth),
                   AMDDWARF_NOT_FOUND);
  /* The function holding an address, before the symbol table is read
     (.symtab searched in place; "func" at 0x40 of .text, whose address in
     the relocatable object is its section's) and after (the table): on a
     fresh object, since opening and relocating leave the table unread. */
  amddwarf_object_close(o);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  uint64_t text = 0;
  for (size_t i = 1; i < amddwarf_object_section_count(o); ++i) {
    amddwarf_object_section sec;
    if (amddwarf_object_section_at(o, i, &sec, NULL) == AMDDWARF_OK &&
        strcmp(sec.name, ".text") == 0)
      text = sec.address;
  }
  for (int pass = 0; pass < 2; ++pass) {
    amddwarf_symbol sym;
    assert_int_equal(amddwarf_object_function_symbol_at(o, text + 0x40 + 0x2f, &sym), AMDDWARF_OK);
    assert_string_equal(sym.name, "func");
    assert_int_equal(sym.address, text + 0x40);
    assert_int_equal(sym.size, 0x30);
    assert_int_equal(sym.kind, AMDDWARF_SYMBOL_FUNCTION);
    assert_int_equal(amddwarf_object_function_symbol_at(o, text + 0x40 + 0x30, &sym),
                     AMDDWARF_NOT_FOUND);
    assert_int_equal(amddwarf_object_function_symbol_at(o, text + 0x3f, &sym), AMDDWARF_NOT_FOUND);
    /* The symbol is a function, not a kernel (no .kd). */
    assert_int_equal(amddwarf_object_symbol_count(o), 1);
    assert_int_equal(amddwarf_object_symbol(o, 0)->kind, AMDDWARF_SYMBOL_FUNCTION);
  }
  amddwarf_object_close(o);
}

static void test_relocation_rel32_and_halves(void **state)
{
  (void)state;
  size_t lo, hi;
  build_reloc_object(NULL, 0, &lo, &hi);
  /* ABS32_LO and ABS32_HI of func + 0x1_0000_0000 split over low_pc; REL32
     at high_pc: S + A - P with P = hi (section address 0). */
  rela_entry r[] = {{lo, R_AMDGPU_ABS32_LO, 1, 0x100000000},
                    {lo + 4, R_AMDGPU_ABS32_HI, 1, 0x100000000},
                    {hi, R_AMDGPU_REL32, 1, 0x200}};
  size_t n = build_reloc_object(r, 3, NULL, NULL);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
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
  rela_entry unknown[] = {{lo, R_AMDGPU_ABS64, 1, 0}, {hi, 99, 1, 0}};
  size_t n = build_reloc_object(unknown, 2, NULL, NULL);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_int_equal(err.offset, 24);
  assert_non_null(strstr(err.message, "unknown AMDGPU relocation type 99"));
  /* symbol out of range */
  rela_entry badsym[] = {{lo, R_AMDGPU_ABS64, 7, 0}};
  n = build_reloc_object(badsym, 1, NULL, NULL);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "symbol 7"));
  /* a 64-bit field that overruns .debug_info */
  rela_entry overrun[] = {{hi, R_AMDGPU_ABS64, 1, 0}};
  n = build_reloc_object(overrun, 1, NULL, NULL);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "overruns .debug_info"));
  /* GOT-relative relocations have no meaning in a debug section */
  rela_entry got[] = {{lo, R_AMDGPU_GOTPCREL, 1, 0}};
  n = build_reloc_object(got, 1, NULL, NULL);
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_E_OBJECT_BAD_RELOCATION);
  assert_non_null(strstr(err.message, "R_AMDGPU_GOTPCREL"));
  assert_null(o);
}

/* ---- addresses from symbols without an address ---- */

/* A DWARF 4 unit: subprogram "k" with variables "a" (DW_OP_addr, lit2, swap,
   xderef: a __local array) and "g" (DW_OP_addr), and the symbols func (in
   .text) and k.a, whose section index is A_SHNDX (0: undefined). TYPE ET_REL
   relocates a's address against k.a and g's against func + 0x10; ET_DYN is
   the linked form: no relocations, the addresses hold 0 and 0x50. */
typedef struct unknown_obj {
  size_t a_loc, g_loc; /* .debug_info offsets of the two expressions */
} unknown_obj;

static size_t build_unknown_object(uint16_t type, uint16_t a_shndx, unknown_obj *out)
{
  static dwb dies;
  static byte_buf rela, symtab;
  static const uint8_t strtab[] = "\0func\0k.a\0";
  static uint8_t text[0x200];
  dwb *w = &dies;
  dwb_init(w);
  dwb_abbrev(w, "cu", DW_TAG_compile_unit, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string, 0);
  dwb_abbrev(w, "subprogram", DW_TAG_subprogram, DW_CHILDREN_yes, DW_AT_name, DW_FORM_string,
             0);
  dwb_abbrev(w, "variable", DW_TAG_variable, DW_CHILDREN_no, DW_AT_name, DW_FORM_string,
             DW_AT_location, DW_FORM_exprloc, 0);
  dwb_unit_begin(w, 4);
  dwb_die(w, "cu", NULL);
  dwb_str(w, DW_AT_name, "u.cl");
  dwb_die(w, "subprogram", NULL);
  dwb_str(w, DW_AT_name, "k");
  dwb_die(w, "variable", NULL);
  dwb_str(w, DW_AT_name, "a");
  const uint8_t a_loc[] = {DW_OP_addr, 0, 0, 0, 0, 0, 0, 0, 0, DW_OP_lit2, DW_OP_swap,
                           DW_OP_xderef};
  out->a_loc = dwb_block(w, DW_AT_location, a_loc, sizeof a_loc);
  dwb_die(w, "variable", NULL);
  dwb_str(w, DW_AT_name, "g");
  uint8_t g_loc[9] = {DW_OP_addr, type == TEST_ET_REL ? 0 : 0x50};
  out->g_loc = dwb_block(w, DW_AT_location, g_loc, sizeof g_loc);
  dwb_end_children(w); /* subprogram */
  dwb_end_children(w); /* unit */
  dwb_unit_end(w);
  dwb_finish(w);
  symtab.len = 0;
  elf_sym(&symtab, 0, 0, 0, 0, 0);
  elf_sym(&symtab, 1, STB_GLOBAL_STT_FUNC, TEXT_SECTION, 0x40, 0x30); /* func */
  /* k.a; an LDS symbol's value is its alignment */
  elf_sym(&symtab, 6, STB_GLOBAL_STT_NOTYPE, a_shndx, a_shndx == SHN_AMDGPU_LDS ? 4 : 0, 64);
  rela.len = 0;
  elf_rela(&rela, out->a_loc + 1, R_AMDGPU_ABS64, 2, 0);    /* k.a */
  elf_rela(&rela, out->g_loc + 1, R_AMDGPU_ABS64, 1, 0x10); /* func + 0x10 */
  int relocated = type == TEST_ET_REL;
  elf_sec s[] = {
      {".text", TEST_SHT_PROGBITS, text, sizeof text, 0, 0, 0, 0},
      ELF_SEC(".debug_abbrev", TEST_SHT_PROGBITS, &w->abbrev),
      ELF_SEC(".debug_info", TEST_SHT_PROGBITS, &w->info),
      {relocated ? ".rela.debug_info" : ".comment",
       relocated ? TEST_SHT_RELA : TEST_SHT_PROGBITS, rela.data, relocated ? rela.len : 0,
       relocated ? 5 : 0, relocated ? 3 : 0, 24, 0},
      {".symtab", TEST_SHT_SYMTAB, symtab.data, symtab.len, 6, 1, 24, 0},
      {".strtab", TEST_SHT_STRTAB, strtab, sizeof strtab, 0, 0, 0, 0},
  };
  elf_params p = {type, TEST_EM_AMDGPU, 2, 0x2c};
  return elf_build(image, sizeof image, &p, s, sizeof s / sizeof s[0]);
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
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
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
  assert_int_equal(err.opcode, DW_OP_addr);
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
  expect_unknown(TEST_ET_REL, 0, "which is undefined in this relocatable object");
  expect_unknown(TEST_ET_REL, SHN_AMDGPU_LDS,
                 "an LDS symbol (SHN_AMDGPU_LDS) that the loader places");
  expect_unknown(TEST_ET_REL, SHN_COMMON, "a common symbol");
  /* Linked: the symbol table still lists k.a as undefined, and "k.a" is
     clang's name for a in k. */
  expect_unknown(TEST_ET_DYN, 0, "which the link left undefined");
  /* A defined k.a says nothing against a's address. */
  unknown_obj u;
  size_t n = build_unknown_object(TEST_ET_REL, TEXT_SECTION, &u);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, n, &o, &err), AMDDWARF_OK);
  size_t count = 99;
  assert_int_equal(amddwarf_object_check(o, NULL, NULL, &count, &err), AMDDWARF_OK);
  assert_int_equal(count, 0);
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
      cmocka_unit_test(test_metadata_kernel_fields),
      cmocka_unit_test(test_relocations_applied),
      cmocka_unit_test(test_relocation_rel32_and_halves),
      cmocka_unit_test(test_relocation_errors),
      cmocka_unit_test(test_unknown_addresses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
