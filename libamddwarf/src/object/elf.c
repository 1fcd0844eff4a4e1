/* Code objects: the ELF layer. Header and ISA (e_flags), sections (read
 * through elf_image.c), the NT_AMDGPU_METADATA note, symbols, and RELA
 * relocations (the rules of relocs.def) applied to the debug sections of
 * relocatable objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include <amddwarf/target.h>

#include "common/checked.h"
#include "common/mem.h"
#include "elf/elf_image.h"
#include "object/internal.h"

#define AMDDWARF_EM_AMDGPU 224
#define AMDDWARF_NT_AMDGPU_METADATA 32
#define AMDDWARF_EF_MACH_MASK 0xffu
#define AMDDWARF_EF_XNACK_V3 0x100u
#define AMDDWARF_EF_SRAMECC_V3 0x200u
#define AMDDWARF_EF_XNACK_V4_MASK 0x300u
#define AMDDWARF_EF_SRAMECC_V4_MASK 0xc00u
#define AMDDWARF_MAX_SECTIONS 65535u
#define AMDDWARF_MAX_NOTE_KERNELS 100000u
#define AMDDWARF_SHN_AMDGPU_LDS 0xff00u /* LDS variables the loader allocates */

/* ---- ISA ---- */

static void decode_isa(amddwarf_object_info *info)
{
  amddwarf_isa_info isa;
  info->mach = info->e_flags & AMDDWARF_EF_MACH_MASK;
  info->processor = "gfx?";
  info->isa_wave_size = 64;
  if (amddwarf_isa_info_by_mach(info->mach, &isa) == AMDDWARF_OK) {
    info->processor = isa.name;
    info->isa_wave_size = isa.default_wave_size;
    info->isa_major = isa.major;
    /* Flat scratch: what clang-19 generates for gfx940-gfx950 (architected
       flat scratch) and for gfx11 and later; MUBUF scratch before. */
    info->flat_scratch = (uint8_t)(isa.major >= 11 || strncmp(isa.name, "gfx94", 5) == 0 ||
                                   strcmp(isa.name, "gfx950") == 0);
  }
  /* ABI version 0 = code object v2, 1 = v3, 2 = v4, 3 = v5, 4 = v6. */
  info->code_object_version = info->os_abi == 64 && info->abi_version <= 4
                                  ? (uint32_t)info->abi_version + 2u
                                  : 0u;
  if (info->code_object_version >= 4) {
    static const amddwarf_target_feature v4[4] = {AMDDWARF_FEATURE_UNSUPPORTED,
                                                  AMDDWARF_FEATURE_ANY, AMDDWARF_FEATURE_OFF,
                                                  AMDDWARF_FEATURE_ON};
    info->xnack = v4[(info->e_flags & AMDDWARF_EF_XNACK_V4_MASK) >> 8];
    info->sramecc = v4[(info->e_flags & AMDDWARF_EF_SRAMECC_V4_MASK) >> 10];
  } else {
    info->xnack = (info->e_flags & AMDDWARF_EF_XNACK_V3) ? AMDDWARF_FEATURE_ON
                                                          : AMDDWARF_FEATURE_ANY;
    info->sramecc = (info->e_flags & AMDDWARF_EF_SRAMECC_V3) ? AMDDWARF_FEATURE_ON
                                                              : AMDDWARF_FEATURE_ANY;
  }
  info->wave_size = info->isa_wave_size;
}

/* ---- relocations ---- */

/* The string at NAME of string table section STRTAB, or NULL when it is not
   inside the table or runs into its end. */
static const char *elf_string(const amddwarf_object *object, uint64_t strtab, uint32_t name)
{
  if (strtab == 0 || strtab >= object->section_count)
    return NULL;
  const amddwarf_section *t = &object->sections[strtab];
  if (t->data == NULL || name >= t->size ||
      memchr(t->data + name, '\0', (size_t)(t->size - name)) == NULL)
    return NULL;
  return (const char *)t->data + name;
}

/* Whether SYM has no address in this object, and why: undefined, an LDS
   variable the loader allocates (SHN_AMDGPU_LDS), or a common symbol. */
static bool symbol_has_no_address(const amddwarf_object *object, const Elf64_Sym *sym,
                                  amddwarf_unknown_reason *reason)
{
  if (sym->st_shndx == SHN_UNDEF)
    *reason = object->info.elf_type == ET_REL ? AMDDWARF_UNKNOWN_UNDEFINED
                                              : AMDDWARF_UNKNOWN_LINK_UNDEFINED;
  else if (sym->st_shndx == AMDDWARF_SHN_AMDGPU_LDS)
    *reason = AMDDWARF_UNKNOWN_LDS;
  else if (sym->st_shndx == SHN_COMMON)
    *reason = AMDDWARF_UNKNOWN_COMMON;
  else
    return false;
  return true;
}

/* The name of symbol INDEX of SYMTAB for messages: its own, else "#INDEX". */
static const char *symbol_label(amddwarf_object *object, const amddwarf_section *symtab,
                                const Elf64_Sym *sym, size_t index)
{
  const char *name = elf_string(object, symtab->link, sym->st_name);
  if (name != NULL && name[0] != '\0')
    return name;
  char label[32];
  int n = snprintf(label, sizeof label, "#%zu", index);
  return amddwarf__arena_strndup(&object->arena, label, (size_t)n);
}

static amddwarf_status apply_rela(amddwarf_object *object, size_t rela_index,
                                  amddwarf_error *err)
{
  const amddwarf_section *rela = &object->sections[rela_index];
  amddwarf_section *target;
  const amddwarf_section *symtab;
  if (rela->info == 0 || rela->info >= object->section_count)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, AMDDWARF_NO_OFFSET,
                         "%s: sh_info %llu names no section", rela->name,
                         (unsigned long long)rela->info);
  target = &object->sections[rela->info];
  if (!target->is_debug || target->size == 0)
    return AMDDWARF_OK;
  if (rela->link == 0 || rela->link >= object->section_count ||
      object->sections[rela->link].type != SHT_SYMTAB)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, AMDDWARF_NO_OFFSET,
                         "%s: sh_link %llu is not a symbol table", rela->name,
                         (unsigned long long)rela->link);
  symtab = &object->sections[rela->link];
  if (rela->size % sizeof(Elf64_Rela) != 0)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, AMDDWARF_NO_OFFSET,
                         "%s: size %llu is not a multiple of 24", rela->name,
                         (unsigned long long)rela->size);
  if (target->owned == NULL) {
    target->owned = amddwarf__mem_alloc(&object->allocator, (size_t)target->size);
    if (target->owned == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                           "copying %s for relocation", target->name);
    memcpy(target->owned, target->data, (size_t)target->size);
    target->data = target->owned;
    object->owned_bytes += (size_t)target->size;
  }
  size_t count = (size_t)(rela->size / sizeof(Elf64_Rela));
  size_t symbol_count = (size_t)(symtab->size / sizeof(Elf64_Sym));
  for (size_t i = 0; i < count; ++i) {
    Elf64_Rela r;
    Elf64_Sym sym;
    uint64_t at = (uint64_t)i * sizeof r;
    memcpy(&r, rela->data + at, sizeof r);
    uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info);
    uint32_t symbol = (uint32_t)ELF64_R_SYM(r.r_info);
    const amddwarf_elf_reloc_rule *row = amddwarf__elf_reloc_find(AMDDWARF_ELF_EM_AMDGPU, type);
    if (row == NULL)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, at,
                           "%s: entry %zu: unknown AMDGPU relocation type %u", rela->name, i,
                           type);
    if (row->how == AMDDWARF_RELOC_NONE)
      continue;
    if (row->how == AMDDWARF_RELOC_GOT)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, at,
                           "%s: entry %zu: %s needs a global offset table", rela->name, i,
                           row->name);
    if (symbol >= symbol_count)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, at,
                           "%s: entry %zu: symbol %u is outside %s (%zu symbols)", rela->name,
                           i, symbol, symtab->name, symbol_count);
    if (!amddwarf_range_fits(r.r_offset, row->bytes, target->size))
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_RELOCATION, at,
                           "%s: entry %zu: %s at offset 0x%llx overruns %s (%llu bytes)",
                           rela->name, i, row->name, (unsigned long long)r.r_offset,
                           target->name, (unsigned long long)target->size);
    memcpy(&sym, symtab->data + (size_t)symbol * sizeof sym, sizeof sym);
    amddwarf_unknown_reason reason;
    if (symbol != 0 && symbol_has_no_address(object, &sym, &reason)) {
      /* The field is still written (S is the symbol's value, 0 when
         undefined) but it is no address: the table says so. */
      const char *name = symbol_label(object, symtab, &sym, symbol);
      amddwarf_status st =
          name == NULL ? amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, at, "symbol name")
                       : amddwarf__object_note_unknown_reloc(object, (uint32_t)rela->info,
                                                            r.r_offset, name, reason, err);
      if (st != AMDDWARF_OK)
        return st;
    }
    uint64_t s = sym.st_value;
    if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < object->section_count)
      s += object->sections[sym.st_shndx].address;
    uint64_t a = (uint64_t)r.r_addend;
    uint64_t p = target->address + r.r_offset;
    amddwarf__elf_reloc_write(row, target->owned + r.r_offset,
                             amddwarf__elf_reloc_value(row, s, a, p), false);
    object->info.relocations_applied++;
  }
  return AMDDWARF_OK;
}

/* ---- metadata note ---- */

static bool mp_key_is(const msgpack_object *key, const char *name)
{
  size_t n = strlen(name);
  return key->type == MSGPACK_OBJECT_STR && key->via.str.size == n &&
         memcmp(key->via.str.ptr, name, n) == 0;
}

static const char *mp_strdup(amddwarf_object *object, const msgpack_object *value)
{
  if (value->type != MSGPACK_OBJECT_STR)
    return NULL;
  return amddwarf__arena_strndup(&object->arena, value->via.str.ptr, value->via.str.size);
}

static uint32_t mp_u32(const msgpack_object *value)
{
  if (value->type == MSGPACK_OBJECT_POSITIVE_INTEGER && value->via.u64 <= UINT32_MAX)
    return (uint32_t)value->via.u64;
  return UINT32_MAX;
}

/* Checks that the msgpack document at BYTES is well-formed and that every
   container's element count fits in the bytes that follow (each element takes
   at least one byte): before msgpack-c allocates for the counts it reads,
   and as the only check of the kernel entries read in place. */
static bool msgpack_skip(const uint8_t *bytes, size_t size, size_t pos, size_t *end)
{
  uint64_t pending = 1; /* elements still to read */
  while (pending > 0) {
    if (pos >= size || pending > size - pos)
      return false;
    uint8_t t = bytes[pos++];
    uint64_t skip = 0, add = 0;
    unsigned len_bytes = 0;
    --pending;
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
      /* fixint, nil, bool */
    } else if (t >= 0x80 && t <= 0x8f) {
      add = 2u * (t & 0x0fu);
    } else if (t >= 0x90 && t <= 0x9f) {
      add = t & 0x0fu;
    } else if (t >= 0xa0 && t <= 0xbf) {
      skip = t & 0x1fu;
    } else {
      switch (t) {
      case 0xc4: case 0xd9: len_bytes = 1; break;            /* bin8, str8 */
      case 0xc5: case 0xda: len_bytes = 2; break;            /* bin16, str16 */
      case 0xc6: case 0xdb: len_bytes = 4; break;            /* bin32, str32 */
      case 0xc7: len_bytes = 1; skip = 1; break;             /* ext8: + type */
      case 0xc8: len_bytes = 2; skip = 1; break;
      case 0xc9: len_bytes = 4; skip = 1; break;
      case 0xca: skip = 4; break;
      case 0xcb: skip = 8; break;
      case 0xcc: case 0xd0: skip = 1; break;
      case 0xcd: case 0xd1: skip = 2; break;
      case 0xce: case 0xd2: skip = 4; break;
      case 0xcf: case 0xd3: skip = 8; break;
      case 0xd4: skip = 2; break;
      case 0xd5: skip = 3; break;
      case 0xd6: skip = 5; break;
      case 0xd7: skip = 9; break;
      case 0xd8: skip = 17; break;
      case 0xdc: case 0xde: len_bytes = 2; break;            /* array16, map16 */
      case 0xdd: case 0xdf: len_bytes = 4; break;            /* array32, map32 */
      default: return false;                                 /* 0xc1: never used */
      }
    }
    if (len_bytes) {
      uint64_t n = 0;
      if (len_bytes > size - pos)
        return false;
      for (unsigned i = 0; i < len_bytes; ++i)
        n = n << 8 | bytes[pos + i];
      pos += len_bytes;
      if (t == 0xdc || t == 0xdd)
        add = n;
      else if (t == 0xde || t == 0xdf)
        add = 2 * n;
      else
        skip += n;
    }
    if (skip > size - pos)
      return false;
    pos += (size_t)skip;
    pending += add;
  }
  *end = pos;
  return true;
}

/* The element count and first element of the array (or map: MAP) at POS. */
static bool msgpack_container(const uint8_t *bytes, size_t size, size_t pos, bool map,
                              uint64_t *count, size_t *first)
{
  if (pos >= size)
    return false;
  uint8_t t = bytes[pos];
  unsigned len_bytes = 0;
  if (map ? (t >= 0x80 && t <= 0x8f) : (t >= 0x90 && t <= 0x9f)) {
    *count = t & 0x0fu;
  } else if (t == (map ? 0xde : 0xdc)) {
    len_bytes = 2;
  } else if (t == (map ? 0xdf : 0xdd)) {
    len_bytes = 4;
  } else {
    return false;
  }
  if (len_bytes > size - pos - 1)
    return false;
  if (len_bytes) {
    *count = 0;
    for (unsigned i = 0; i < len_bytes; ++i)
      *count = *count << 8 | bytes[pos + 1 + i];
  }
  *first = pos + 1 + len_bytes;
  return true;
}

/* ---- a kernel's fields, read in place ----

   A kernel entry is a map of about twenty keys, most of its bytes in
   `.args`, which the object does not keep. The entry is walked in place:
   every key and value is stepped over with msgpack_skip (which checks it),
   and only the values of the keys below are decoded. */

typedef struct kernel_field {
  const char *key;
  size_t offset;     /* in amddwarf_kernel */
  bool string;       /* a string (kept in the arena), else a uint32_t */
} kernel_field;

static const kernel_field kernel_fields[] = {
    {".name", offsetof(amddwarf_kernel, name), true},
    {".symbol", offsetof(amddwarf_kernel, symbol), true},
    {".wavefront_size", offsetof(amddwarf_kernel, wavefront_size), false},
    {".sgpr_count", offsetof(amddwarf_kernel, sgpr_count), false},
    {".vgpr_count", offsetof(amddwarf_kernel, vgpr_count), false},
    {".agpr_count", offsetof(amddwarf_kernel, agpr_count), false},
    {".sgpr_spill_count", offsetof(amddwarf_kernel, sgpr_spill_count), false},
    {".vgpr_spill_count", offsetof(amddwarf_kernel, vgpr_spill_count), false},
    {".private_segment_fixed_size", offsetof(amddwarf_kernel, private_segment_fixed_size), false},
    {".group_segment_fixed_size", offsetof(amddwarf_kernel, group_segment_fixed_size), false},
    {".kernarg_segment_size", offsetof(amddwarf_kernel, kernarg_segment_size), false},
    {".uses_dynamic_stack", offsetof(amddwarf_kernel, uses_dynamic_stack), false},
};

static uint64_t big_endian(const uint8_t *bytes, unsigned n)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v = v << 8 | bytes[i];
  return v;
}

/* The string in [POS, END) of BYTES (fixstr, str8, str16, str32), which
   msgpack_skip has checked: false for another type. */
static bool raw_string(const uint8_t *bytes, size_t pos, size_t end, const uint8_t **str,
                       size_t *len)
{
  uint8_t t = bytes[pos];
  unsigned header = t >= 0xa0 && t <= 0xbf ? 1 : t == 0xd9 ? 2 : t == 0xda ? 3 : t == 0xdb ? 5 : 0;
  if (header == 0)
    return false;
  *str = bytes + pos + header;
  *len = end - pos - header;
  return true;
}

/* The non-negative integer in [POS, END) as msgpack-c's positive integer
   reads it (any integer format), a boolean as 0 or 1, or UINT32_MAX for
   another type or a larger value. */
static uint32_t raw_u32(const uint8_t *bytes, size_t pos, size_t end)
{
  uint8_t t = bytes[pos];
  uint64_t v;
  if (t <= 0x7f)
    return t;
  if (t == 0xc2 || t == 0xc3)
    return t == 0xc3;
  if ((t >= 0xcc && t <= 0xcf) || (t >= 0xd0 && t <= 0xd3)) {
    unsigned n = (unsigned)(end - pos - 1);
    v = big_endian(bytes + pos + 1, n);
    if (t >= 0xd0 && (v >> (8 * n - 1)) != 0) /* a negative signed integer */
      return UINT32_MAX;
    return v <= UINT32_MAX ? (uint32_t)v : UINT32_MAX;
  }
  return UINT32_MAX;
}

/* Sets K's field named by the key in [KEY, KEY_END) from the value in
   [KEY_END, VALUE_END). */
static amddwarf_status note_kernel_field(amddwarf_object *object, const uint8_t *bytes, size_t key,
                                         size_t key_end, size_t value_end, amddwarf_kernel *k)
{
  const uint8_t *name;
  size_t len;
  if (!raw_string(bytes, key, key_end, &name, &len))
    return AMDDWARF_OK;
  for (size_t f = 0; f < sizeof kernel_fields / sizeof kernel_fields[0]; ++f) {
    const kernel_field *field = &kernel_fields[f];
    if (strlen(field->key) != len || memcmp(field->key, name, len) != 0)
      continue;
    void *slot = (char *)k + field->offset;
    const uint8_t *str;
    size_t str_len;
    if (!field->string) {
      *(uint32_t *)slot = raw_u32(bytes, key_end, value_end);
    } else if (!raw_string(bytes, key_end, value_end, &str, &str_len)) {
      *(const char **)slot = NULL;
    } else if ((*(const char **)slot = amddwarf__arena_strndup(&object->arena, (const char *)str,
                                                               str_len)) == NULL) {
      return AMDDWARF_E_NO_MEMORY;
    }
    return AMDDWARF_OK;
  }
  return AMDDWARF_OK;
}

/* Reads the kernel entry at POS of BYTES (SIZE) into K; *END gets the
   position after it. AMDDWARF_E_OBJECT_BAD_NOTE (or E_NO_MEMORY for its
   strings) with *WHY, a phrase that follows "NT_AMDGPU_METADATA ...". */
static amddwarf_status read_kernel(amddwarf_object *object, const uint8_t *bytes, size_t size,
                                   size_t pos, size_t *end, amddwarf_kernel *k, const char **why)
{
  uint64_t pairs = 0;
  size_t at = 0;
  memset(k, 0xff, sizeof *k);
  k->name = NULL;
  k->symbol = NULL;
  k->code_size = 0;
  *why = "is not well-formed msgpack (or declares more elements than it has bytes)";
  if (!msgpack_container(bytes, size, pos, true, &pairs, &at)) {
    if (msgpack_skip(bytes, size, pos, end))
      *why = "has a kernel entry that is not a map";
    return AMDDWARF_E_OBJECT_BAD_NOTE;
  }
  for (uint64_t i = 0; i < pairs; ++i) {
    size_t key_end = 0, value_end = 0;
    if (!msgpack_skip(bytes, size, at, &key_end) || !msgpack_skip(bytes, size, key_end, &value_end))
      return AMDDWARF_E_OBJECT_BAD_NOTE;
    amddwarf_status st = note_kernel_field(object, bytes, at, key_end, value_end, k);
    if (st != AMDDWARF_OK) {
      *why = "has more kernel strings than memory";
      return st;
    }
    at = value_end;
  }
  *end = at;
  if (k->name == NULL) {
    *why = "has a kernel without a .name string";
    return AMDDWARF_E_OBJECT_BAD_NOTE;
  }
  return AMDDWARF_OK;
}

/* Unpacks the one object in [BEGIN, END) of BYTES with msgpack-c into MSG
   (which releases what it held). */
static bool msgpack_unpack_range(msgpack_unpacked *msg, const uint8_t *bytes, size_t begin,
                                 size_t end)
{
  size_t off = 0;
  return msgpack_unpack_next(msg, (const char *)bytes + begin, end - begin, &off) ==
         MSGPACK_UNPACK_SUCCESS;
}

/* The document is walked with msgpack_skip, which checks every count
   against the bytes left before msgpack-c sees them (msgpack-c allocates
   whatever a count asks for). msgpack-c unpacks the top-level keys and the
   target and version; the kernel entries are read in place (read_kernel),
   so a note of many kernels is never held as an object tree, and an entry
   nested deeper than msgpack-c's 32 levels is still read. */
static amddwarf_status read_metadata(amddwarf_object *object, const uint8_t *desc, size_t size,
                                     uint64_t note_offset, amddwarf_error *err)
{
  amddwarf_status status = AMDDWARF_OK;
  msgpack_unpacked msg;
  uint64_t pairs = 0;
  size_t pos = 0;
  if (!msgpack_container(desc, size, 0, true, &pairs, &pos))
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_NOTE, note_offset,
                         "NT_AMDGPU_METADATA at file offset 0x%llx is not a msgpack map",
                         (unsigned long long)note_offset);
  msgpack_unpacked_init(&msg);
  for (uint64_t i = 0; i < pairs && status == AMDDWARF_OK; ++i) {
    size_t key_end = 0, value_end = 0;
    if (!msgpack_skip(desc, size, pos, &key_end) || !msgpack_unpack_range(&msg, desc, pos, key_end) ||
        /* The kernels are stepped over one by one below: not twice. */
        (!mp_key_is(&msg.data, "amdhsa.kernels") &&
         !msgpack_skip(desc, size, key_end, &value_end))) {
      status = amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_NOTE, note_offset,
                             "NT_AMDGPU_METADATA at offset 0x%llx is not well-formed msgpack (or "
                             "declares more elements than it has bytes): map entry %llu at byte "
                             "%zu",
                             (unsigned long long)note_offset, (unsigned long long)i, pos);
      break;
    }
    size_t value = key_end;
    pos = value_end;
    if (mp_key_is(&msg.data, "amdhsa.kernels")) {
      uint64_t n = 0;
      size_t element = 0;
      /* Every kernel takes at least a byte: a count beyond the bytes left is
         refused before the table is allocated. */
      if (!msgpack_container(desc, size, value, false, &n, &element) ||
          n > AMDDWARF_MAX_NOTE_KERNELS || n > size - element) {
        status = amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_NOTE, note_offset,
                               "NT_AMDGPU_METADATA: amdhsa.kernels is not an array (or has "
                               "more than %u entries)",
                               AMDDWARF_MAX_NOTE_KERNELS);
        break;
      }
      object->kernels = amddwarf__arena_calloc(&object->arena, n ? (size_t)n : 1,
                                              sizeof(amddwarf_kernel));
      if (object->kernels == NULL) {
        status = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "kernel table");
        break;
      }
      for (uint64_t k = 0; k < n && status == AMDDWARF_OK; ++k) {
        size_t element_end = 0;
        const char *why = NULL;
        status = read_kernel(object, desc, size, element, &element_end, &object->kernels[k], &why);
        if (status != AMDDWARF_OK) {
          status = amddwarf__fail(err, status, note_offset,
                                 "NT_AMDGPU_METADATA at offset 0x%llx %s: kernel %llu at byte %zu",
                                 (unsigned long long)note_offset, why, (unsigned long long)k,
                                 element);
          break;
        }
        element = element_end;
        object->kernel_count = (size_t)k + 1;
      }
      pos = element; /* the next map entry follows the last kernel */
    } else if (mp_key_is(&msg.data, "amdhsa.target")) {
      if (msgpack_unpack_range(&msg, desc, value, value_end))
        object->info.target = mp_strdup(object, &msg.data);
    } else if (mp_key_is(&msg.data, "amdhsa.version")) {
      const msgpack_object *v = &msg.data;
      if (msgpack_unpack_range(&msg, desc, value, value_end) && v->type == MSGPACK_OBJECT_ARRAY &&
          v->via.array.size == 2) {
        object->info.metadata_version[0] = mp_u32(&v->via.array.ptr[0]);
        object->info.metadata_version[1] = mp_u32(&v->via.array.ptr[1]);
      }
    }
  }
  msgpack_unpacked_destroy(&msg);
  return status;
}

/* Steps over the notes of SEC, checking that each fits; with PARSE, reads
   the NT_AMDGPU_METADATA note. */
static amddwarf_status read_notes(amddwarf_object *object, const amddwarf_section *sec, bool parse,
                                  amddwarf_error *err)
{
  uint64_t pos = 0;
  while (pos + 12 <= sec->size) {
    uint32_t namesz, descsz, type;
    memcpy(&namesz, sec->data + pos, 4);
    memcpy(&descsz, sec->data + pos + 4, 4);
    memcpy(&type, sec->data + pos + 8, 4);
    uint64_t name_at = pos + 12;
    uint64_t desc_at = name_at + (((uint64_t)namesz + 3) & ~(uint64_t)3);
    uint64_t next = desc_at + (((uint64_t)descsz + 3) & ~(uint64_t)3);
    if (next > sec->size || desc_at > sec->size)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_NOTE, pos,
                           "%s: note at offset 0x%llx overruns the section (%llu bytes)",
                           sec->name, (unsigned long long)pos, (unsigned long long)sec->size);
    if (parse && type == AMDDWARF_NT_AMDGPU_METADATA && namesz == 7 &&
        memcmp(sec->data + name_at, "AMDGPU", 7) == 0) {
      amddwarf_status st = read_metadata(object, sec->data + desc_at, descsz, pos, err);
      if (st != AMDDWARF_OK)
        return st;
    }
    pos = next;
  }
  return AMDDWARF_OK;
}

/* ---- symbols ---- */

static int symbol_order(const void *a, const void *b)
{
  const amddwarf_symbol *x = a, *y = b;
  if (x->address != y->address)
    return x->address < y->address ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Sorts the N symbols of V by symbol_order, stably: by address with a
   radix sort (a byte a pass, the passes whose byte is the same in every
   address skipped), then each run of one address by name. A linked
   object's table is in hash order and has a symbol a function: comparison
   sorting it was a visible part of the statistics' start. False when the
   scratch array cannot be had (V is then unchanged). */
static bool sort_symbols(const amddwarf_allocator *allocator, amddwarf_symbol *v, size_t n)
{
  if (n < 2)
    return true;
  amddwarf_symbol *tmp = amddwarf__mem_alloc(allocator, n * sizeof *tmp);
  if (tmp == NULL)
    return false;
  size_t counts[8][256];
  memset(counts, 0, sizeof counts);
  for (size_t i = 0; i < n; ++i)
    for (unsigned b = 0; b < 8; ++b)
      ++counts[b][(v[i].address >> (8 * b)) & 0xff];
  amddwarf_symbol *from = v, *to = tmp;
  for (unsigned b = 0; b < 8; ++b) {
    if (counts[b][(v[0].address >> (8 * b)) & 0xff] == n)
      continue; /* this byte is the same in every address */
    size_t at = 0;
    for (unsigned d = 0; d < 256; ++d) {
      size_t c = counts[b][d];
      counts[b][d] = at;
      at += c;
    }
    for (size_t i = 0; i < n; ++i)
      to[counts[b][(from[i].address >> (8 * b)) & 0xff]++] = from[i];
    amddwarf_symbol *swap = from;
    from = to;
    to = swap;
  }
  if (from != v)
    memcpy(v, from, n * sizeof *v);
  amddwarf__mem_free(allocator, tmp, n * sizeof *tmp);
  /* equal addresses: by name, keeping the table's order among equal names */
  for (size_t i = 1; i < n; ++i) {
    amddwarf_symbol s = v[i];
    size_t j = i;
    while (j > 0 && v[j - 1].address == s.address && strcmp(v[j - 1].name, s.name) > 0) {
      v[j] = v[j - 1];
      --j;
    }
    v[j] = s;
  }
  return true;
}

/* Symbols by name: an open-addressing table of indexes into the symbols,
   for joining descriptors and metadata kernels with their functions. */
typedef struct name_index {
  uint32_t *slots;      /* symbol index + 1, 0 when empty */
  size_t mask;
} name_index;

static uint64_t name_hash(const char *name, size_t len)
{
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < len; ++i)
    h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
  return h;
}

static bool name_equals(const char *symbol, const char *name, size_t len)
{
  return strncmp(symbol, name, len) == 0 && symbol[len] == '\0';
}

static bool name_index_build(amddwarf_object *object, const amddwarf_symbol *symbols, size_t count,
                             name_index *index)
{
  size_t cap = 16;
  while (cap < 2 * count)
    cap *= 2;
  index->slots = amddwarf__mem_calloc(&object->allocator, cap, sizeof *index->slots);
  index->mask = cap - 1;
  if (index->slots == NULL)
    return false;
  for (size_t i = 0; i < count; ++i) {
    size_t k = (size_t)name_hash(symbols[i].name, strlen(symbols[i].name)) & index->mask;
    while (index->slots[k] != 0)
      k = (k + 1) & index->mask;
    index->slots[k] = (uint32_t)i + 1;
  }
  return true;
}

/* Calls VISIT for every symbol named by the LEN bytes of NAME. */
static void name_index_each(const name_index *index, amddwarf_symbol *symbols, const char *name,
                            size_t len, void (*visit)(amddwarf_symbol *symbol, void *user),
                            void *user)
{
  for (size_t k = (size_t)name_hash(name, len) & index->mask; index->slots[k] != 0;
       k = (k + 1) & index->mask)
    if (name_equals(symbols[index->slots[k] - 1].name, name, len))
      visit(&symbols[index->slots[k] - 1], user);
}

static void mark_kernel_entry(amddwarf_symbol *symbol, void *user)
{
  (void)user;
  if (symbol->kind == AMDDWARF_SYMBOL_FUNCTION)
    symbol->kind = AMDDWARF_SYMBOL_KERNEL;
}

static void join_descriptor(amddwarf_symbol *symbol, void *user)
{
  amddwarf_kernel *kernel = user;
  if (kernel->descriptor_address == UINT64_MAX || symbol->address < kernel->descriptor_address)
    kernel->descriptor_address = symbol->address;
}

static void join_code(amddwarf_symbol *symbol, void *user)
{
  amddwarf_kernel *kernel = user;
  /* Of several, the highest address, as in the address-sorted listing. */
  if (symbol->kind != AMDDWARF_SYMBOL_DESCRIPTOR &&
      (kernel->code_address == UINT64_MAX || symbol->address >= kernel->code_address)) {
    kernel->code_address = symbol->address;
    kernel->code_size = symbol->size;
  }
}

/* SYM's address: its value, plus its section's address in a relocatable
   object (whose sections the object lays out). */
static uint64_t symbol_address(const amddwarf_object *object, const Elf64_Sym *sym)
{
  uint64_t address = sym->st_value;
  if (sym->st_shndx != SHN_UNDEF && sym->st_shndx < object->section_count &&
      object->info.elf_type == ET_REL)
    address += object->sections[sym->st_shndx].address;
  return address;
}

static amddwarf_status read_symbols(amddwarf_object *object, const amddwarf_section *symtab,
                                    amddwarf_error *err)
{
  if (symtab->link >= object->section_count)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, AMDDWARF_NO_OFFSET,
                         "%s: sh_link %llu names no string table", symtab->name,
                         (unsigned long long)symtab->link);
  const amddwarf_section *strtab = &object->sections[symtab->link];
  size_t n = (size_t)(symtab->size / sizeof(Elf64_Sym));
  amddwarf_symbol *out = amddwarf__arena_calloc(&object->arena, n ? n : 1, sizeof *out);
  if (out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "symbol table");
  size_t count = 0;
  for (size_t i = 1; i < n; ++i) {
    Elf64_Sym sym;
    memcpy(&sym, symtab->data + i * sizeof sym, sizeof sym);
    unsigned kind = ELF64_ST_TYPE(sym.st_info);
    if (kind != STT_FUNC && kind != STT_OBJECT)
      continue;
    if (sym.st_name >= strtab->size)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, i * sizeof sym,
                           "%s: symbol %zu: name offset %u is outside %s", symtab->name, i,
                           sym.st_name, strtab->name);
    const char *name = (const char *)strtab->data + sym.st_name;
    const char *nul = memchr(name, '\0', (size_t)(strtab->size - sym.st_name));
    size_t len = nul ? (size_t)(nul - name) : (size_t)(strtab->size - sym.st_name);
    amddwarf_symbol *s = &out[count++];
    /* Names are used in place; only one running into the end of an
       unterminated string table is copied. */
    s->name = nul != NULL ? name : amddwarf__arena_strndup(&object->arena, name, len);
    if (s->name == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "symbol names");
    s->address = symbol_address(object, &sym);
    s->size = sym.st_size;
    s->section = sym.st_shndx;
    s->kind = kind == STT_FUNC ? AMDDWARF_SYMBOL_FUNCTION : AMDDWARF_SYMBOL_OBJECT;
    if (kind == STT_OBJECT && len > 3 && strcmp(name + len - 3, ".kd") == 0)
      s->kind = AMDDWARF_SYMBOL_DESCRIPTOR;
  }
  /* A function with a NAME.kd descriptor is a kernel entry; metadata kernels
     join their symbols by name. */
  name_index index;
  if (!name_index_build(object, out, count, &index))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "symbol names");
  for (size_t i = 0; i < count; ++i)
    if (out[i].kind == AMDDWARF_SYMBOL_DESCRIPTOR)
      name_index_each(&index, out, out[i].name, strlen(out[i].name) - 3, mark_kernel_entry, NULL);
  amddwarf__mem_free(&object->allocator, index.slots, (index.mask + 1) * sizeof *index.slots);
  if (!sort_symbols(&object->allocator, out, count))
    qsort(out, count, sizeof *out, symbol_order);
  object->symbols = out;
  object->symbol_count = count;
  return AMDDWARF_OK;
}

/* Joins the metadata's kernels with their descriptor and code symbols. */
static amddwarf_status join_kernels(amddwarf_object *object, amddwarf_error *err)
{
  name_index index;
  if (object->kernel_count == 0)
    return AMDDWARF_OK;
  if (!name_index_build(object, object->symbols, object->symbol_count, &index))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "symbol names");
  for (size_t k = 0; k < object->kernel_count; ++k) {
    amddwarf_kernel *kernel = &object->kernels[k];
    if (kernel->symbol != NULL)
      name_index_each(&index, object->symbols, kernel->symbol, strlen(kernel->symbol),
                      join_descriptor, kernel);
    name_index_each(&index, object->symbols, kernel->name, strlen(kernel->name), join_code,
                    kernel);
  }
  amddwarf__mem_free(&object->allocator, index.slots, (index.mask + 1) * sizeof *index.slots);
  return AMDDWARF_OK;
}

/* The symbols of a linked object that have no address (undefined ones,
   SHN_AMDGPU_LDS, common), from every symbol table: a stripped object keeps
   only .dynsym. */
static amddwarf_status read_unresolved(amddwarf_object *object, const amddwarf_section *symtab,
                                       amddwarf_error *err)
{
  size_t n = (size_t)(symtab->size / sizeof(Elf64_Sym));
  for (size_t i = 1; i < n; ++i) {
    Elf64_Sym sym;
    amddwarf_unknown_reason reason;
    memcpy(&sym, symtab->data + i * sizeof sym, sizeof sym);
    unsigned kind = ELF64_ST_TYPE(sym.st_info);
    if (kind == STT_SECTION || kind == STT_FILE || !symbol_has_no_address(object, &sym, &reason))
      continue;
    const char *name = elf_string(object, symtab->link, sym.st_name);
    if (name == NULL || name[0] == '\0')
      continue;
    amddwarf_status st = amddwarf__object_note_unresolved(object, name, reason, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* ---- sections ---- */

const amddwarf_section *amddwarf__object_find_section(const amddwarf_object *object,
                                                     const char *name)
{
  for (size_t i = 1; i < object->section_count; ++i)
    if (object->sections[i].name != NULL && strcmp(object->sections[i].name, name) == 0)
      return &object->sections[i];
  return NULL;
}

size_t amddwarf_object_section_count(const amddwarf_object *object)
{
  return object->section_count;
}

amddwarf_status amddwarf_object_section_at(const amddwarf_object *object, size_t index,
                                           amddwarf_object_section *out, amddwarf_error *err)
{
  if (object == NULL || out == NULL || index == 0 || index >= object->section_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_section_at: no section %zu", index);
  const amddwarf_section *s = &object->sections[index];
  out->index = (uint32_t)index;
  out->name = s->name;
  out->type = (uint32_t)s->type;
  out->flags = s->flags;
  out->address = s->address;
  out->file_offset = s->file_offset;
  out->size = s->size;
  out->data = s->size != 0 ? s->data : NULL;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_extent(const amddwarf_object *object, uint64_t *low,
                                      uint64_t *high)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 1; i < object->section_count; ++i) {
    const amddwarf_section *s = &object->sections[i];
    uint64_t end;
    if (!(s->flags & AMDDWARF_ELF_SHF_ALLOC) || s->memory_size == 0)
      continue;
    /* A section that wraps around cannot be loaded: it is no part of the
       extent. */
    if (amddwarf_add_overflow_u64(s->address, s->memory_size, &end))
      continue;
    lo = s->address < lo ? s->address : lo;
    hi = end > hi ? end : hi;
  }
  if (lo >= hi)
    return AMDDWARF_NOT_FOUND;
  *low = lo;
  *high = hi;
  return AMDDWARF_OK;
}

static amddwarf_status read_sections(amddwarf_object *object, const amddwarf_elf_image *elf,
                                     amddwarf_error *err)
{
  size_t count = elf->shoff != 0 ? elf->shnum : 0;
  /* A corrupt header table must not look like an object without debug
     information. */
  if (elf->shoff != 0) {
    uint64_t table_bytes;
    if (count == 0 || amddwarf_mul_overflow_u64(count, elf->shentsize, &table_bytes) ||
        !amddwarf_range_fits(elf->shoff, table_bytes, object->size))
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, elf->shoff,
                           "ELF section header table (%zu entries of %u bytes at 0x%llx) "
                           "is not inside the file (%zu bytes)",
                           count, (unsigned)elf->shentsize, (unsigned long long)elf->shoff,
                           object->size);
  }
  if (count > AMDDWARF_MAX_SECTIONS)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "%zu sections: more than the limit of %u", count,
                         AMDDWARF_MAX_SECTIONS);
  object->sections = amddwarf__arena_calloc(&object->arena, count ? count : 1,
                                           sizeof(amddwarf_section));
  if (object->sections == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "section table");
  object->section_count = count ? count : 1;
  for (size_t i = 1; i < count; ++i) {
    amddwarf_elf_section shdr;
    amddwarf_section *s = &object->sections[i];
    amddwarf_error why;
    if (amddwarf__elf_section_at(elf, (uint32_t)i, &shdr, &why) != AMDDWARF_OK)
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, why.offset, "section %zu header: %s",
                           i, why.message);
    const char *name = amddwarf__elf_section_name(elf, &shdr);
    s->name = name ? name : "";
    s->address = shdr.addr;
    s->type = shdr.type;
    s->flags = shdr.flags;
    s->file_offset = shdr.offset;
    s->link = shdr.link;
    s->info = shdr.info;
    s->entsize = shdr.entsize;
    s->is_debug = strncmp(s->name, ".debug_", 7) == 0;
    s->memory_size = shdr.type == SHT_NULL ? 0 : shdr.size;
    if (shdr.type == SHT_NOBITS || shdr.type == SHT_NULL) {
      s->size = 0;
      continue;
    }
    if (!amddwarf_range_fits(shdr.offset, shdr.size, object->size))
      return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, shdr.offset,
                           "section %s: bytes 0x%llx+0x%llx are outside the file (%zu bytes)",
                           s->name, (unsigned long long)shdr.offset,
                           (unsigned long long)shdr.size, object->size);
    if ((shdr.flags & SHF_COMPRESSED) != 0 && s->is_debug)
      return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, shdr.offset,
                           "section %s is compressed; decompress it first (llvm-objcopy "
                           "--decompress-debug-sections)",
                           s->name);
    s->data = object->data + shdr.offset;
    s->size = shdr.size;
    if (s->is_debug)
      object->info.debug_bytes += s->size;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__object_read_elf(amddwarf_object *object, amddwarf_error *err)
{
  const uint8_t *d = object->data;
  if (object->size < 64 || memcmp(d, "\177ELF", 4) != 0)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_NOT_ELF, 0, "no ELF magic in the first bytes");
  if (d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_NOT_AMDGPU, EI_CLASS,
                         "ELF class %u / data encoding %u: AMDGPU code objects are 64-bit "
                         "little-endian",
                         d[EI_CLASS], d[EI_DATA]);
  uint16_t machine = (uint16_t)(d[18] | (d[19] << 8));
  if (machine != AMDDWARF_EM_AMDGPU)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_NOT_AMDGPU, 18,
                         "e_machine is %u, not EM_AMDGPU (224)", machine);
  const amddwarf_elf_image *elf = &object->elf;
  amddwarf_error why;
  if (amddwarf__elf_image_open(&object->elf, object->data, object->size, &why) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, why.offset, "%s", why.message);
  object->info.elf_type = elf->type;
  object->info.os_abi = elf->os_abi;
  object->info.abi_version = elf->abi_version;
  object->info.e_flags = elf->e_flags;
  decode_isa(&object->info);
  amddwarf_isa_info isa;
  object->one_wave_size = amddwarf_isa_info_by_mach(object->info.mach, &isa) == AMDDWARF_OK &&
                          isa.wave32 != isa.wave64;

  amddwarf_status st = read_sections(object, elf, err);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t i = 1; i < object->section_count; ++i) {
    const amddwarf_section *s = &object->sections[i];
    if (s->type == SHT_NOTE) {
      st = read_notes(object, s, false, err);
      if (st != AMDDWARF_OK)
        return st;
    }
  }
  if (object->info.elf_type != ET_REL) {
    for (size_t i = 1; i < object->section_count; ++i) {
      const amddwarf_section *s = &object->sections[i];
      if ((s->type == SHT_SYMTAB || s->type == SHT_DYNSYM) && s->data != NULL &&
          (st = read_unresolved(object, s, err)) != AMDDWARF_OK)
        return st;
    }
  }
  if (object->info.elf_type == ET_REL) {
    for (size_t i = 1; i < object->section_count; ++i) {
      if (object->sections[i].type == SHT_RELA) {
        st = apply_rela(object, i, err);
        if (st != AMDDWARF_OK)
          return st;
      } else if (object->sections[i].type == SHT_REL && object->sections[i].info != 0 &&
                 object->sections[i].info < object->section_count &&
                 object->sections[object->sections[i].info].is_debug) {
        return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                             "%s: SHT_REL relocations (without addends) are not used by "
                             "AMDGPU and not supported",
                             object->sections[i].name);
      }
    }
  }
  if ((st = amddwarf__object_index_unknown(object, err)) != AMDDWARF_OK)
    return st;
  object->info.frame_base_divisor = object->info.flat_scratch ? 1u : object->info.wave_size;
  return AMDDWARF_OK;
}

/* ---- the symbols and the metadata, read on first use ---- */

/* Runs READ once under the load lock, keeping its status in *STATE and
   FAILURE (an amddwarf_unit_state: UNLOADED, READY or FAILED). */
static amddwarf_status run_once(amddwarf_object *object, _Atomic unsigned char *state,
                                amddwarf_error *failure,
                                amddwarf_status (*read)(amddwarf_object *object,
                                                        amddwarf_error *err),
                                amddwarf_error *err)
{
  unsigned now = atomic_load_explicit(state, memory_order_acquire);
  if (now == AMDDWARF_UNIT_UNLOADED) {
    pthread_mutex_lock(&object->load_lock);
    now = atomic_load_explicit(state, memory_order_acquire);
    if (now == AMDDWARF_UNIT_UNLOADED) {
      amddwarf_status st = read(object, failure);
      failure->status = st;
      now = st == AMDDWARF_OK ? AMDDWARF_UNIT_READY : AMDDWARF_UNIT_FAILED;
      atomic_store_explicit(state, (unsigned char)now, memory_order_release);
    }
    pthread_mutex_unlock(&object->load_lock);
  }
  if (now == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  if (err != NULL)
    *err = *failure;
  return failure->status;
}

static amddwarf_status read_symbol_table(amddwarf_object *object, amddwarf_error *err)
{
  for (size_t i = 1; i < object->section_count; ++i)
    if (object->sections[i].type == SHT_SYMTAB) {
      amddwarf_status st = read_symbols(object, &object->sections[i], err);
      if (st != AMDDWARF_OK)
        object->symbol_count = 0; /* what was read before the error is not handed out */
      return st;
    }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__object_ensure_symbols(const amddwarf_object *cobject,
                                               amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  return run_once(object, &object->symbols_state, &object->symbols_failure, read_symbol_table,
                  err);
}

/* The 64 bytes of a kernel descriptor in section SHNDX at ADDRESS (as
   symbol_address gives it), or NULL. */
static const uint8_t *descriptor_bytes(const amddwarf_object *object, uint32_t shndx,
                                       uint64_t address)
{
  if (shndx == SHN_UNDEF || shndx >= object->section_count)
    return NULL;
  const amddwarf_section *sec = &object->sections[shndx];
  if (address < sec->address)
    return NULL;
  uint64_t offset = address - sec->address;
  if (sec->type == SHT_NOBITS || sec->data == NULL || offset > sec->size ||
      sec->size - offset < AMDDWARF_KERNEL_DESCRIPTOR_SIZE)
    return NULL;
  return sec->data + offset;
}

/* Searches .symtab in place (two passes, nothing kept) for the function
   holding ADDRESS and its NAME.kd descriptor: the rule of read_symbols
   applied to a few symbols, for a question about one function that should
   not read every symbol. Returns 1 with *OUT, 0 when no function holds
   ADDRESS, -1 when the table must be read whole to tell (no .symtab to
   search in place, or a name running into the end of its string table). */
static int find_function_in_place(const amddwarf_object *object, uint64_t address,
                                  amddwarf__function_at *out)
{
  const amddwarf_section *symtab = NULL;
  for (size_t i = 1; i < object->section_count && symtab == NULL; ++i)
    if (object->sections[i].type == SHT_SYMTAB)
      symtab = &object->sections[i];
  if (symtab == NULL)
    return 0;
  if (symtab->link >= object->section_count)
    return -1;
  const amddwarf_section *strtab = &object->sections[symtab->link];
  size_t n = (size_t)(symtab->size / sizeof(Elf64_Sym));
  enum { MAX_HOLDERS = 4 }; /* functions holding ADDRESS: one, or a few aliases */
  amddwarf_symbol holders[MAX_HOLDERS];
  size_t lengths[MAX_HOLDERS], count = 0;
  for (size_t i = 1; i < n && count < MAX_HOLDERS; ++i) {
    Elf64_Sym sym;
    memcpy(&sym, symtab->data + i * sizeof sym, sizeof sym);
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC)
      continue;
    uint64_t start = symbol_address(object, &sym);
    if (address < start || address - start >= (sym.st_size ? sym.st_size : 1))
      continue;
    if (sym.st_name >= strtab->size)
      return -1;
    const char *name = (const char *)strtab->data + sym.st_name;
    const char *nul = memchr(name, '\0', (size_t)(strtab->size - sym.st_name));
    if (nul == NULL)
      return -1;
    holders[count] = (amddwarf_symbol){name, start, sym.st_size, AMDDWARF_SYMBOL_FUNCTION,
                                       sym.st_shndx};
    lengths[count++] = (size_t)(nul - name);
  }
  if (count == 0)
    return 0;
  *out = (amddwarf__function_at){holders[0], NULL};
  for (size_t i = 1; i < n; ++i) {
    Elf64_Sym sym;
    memcpy(&sym, symtab->data + i * sizeof sym, sizeof sym);
    if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_name >= strtab->size)
      continue;
    const char *name = (const char *)strtab->data + sym.st_name;
    size_t room = (size_t)(strtab->size - sym.st_name);
    for (size_t h = 0; h < count; ++h)
      if (room >= lengths[h] + 4 && memcmp(name, holders[h].name, lengths[h]) == 0 &&
          memcmp(name + lengths[h], ".kd", 4) == 0) {
        *out = (amddwarf__function_at){
            holders[h], descriptor_bytes(object, sym.st_shndx, symbol_address(object, &sym))};
        out->symbol.kind = AMDDWARF_SYMBOL_KERNEL;
        return 1;
      }
  }
  return 1;
}

/* find_function_in_place over the symbol table read whole. */
static bool find_function_in_table(const amddwarf_object *object, uint64_t address,
                                   amddwarf__function_at *out)
{
  const amddwarf_symbol *found = NULL;
  for (size_t k = 0; k < object->symbol_count; ++k) {
    const amddwarf_symbol *s = &object->symbols[k];
    if ((s->kind == AMDDWARF_SYMBOL_FUNCTION || s->kind == AMDDWARF_SYMBOL_KERNEL) &&
        address >= s->address && address - s->address < (s->size ? s->size : 1) &&
        (found == NULL || (found->kind != AMDDWARF_SYMBOL_KERNEL &&
                           s->kind == AMDDWARF_SYMBOL_KERNEL)))
      found = s;
  }
  if (found == NULL)
    return false;
  *out = (amddwarf__function_at){*found, NULL};
  if (found->kind != AMDDWARF_SYMBOL_KERNEL)
    return true;
  size_t length = strlen(found->name);
  for (size_t d = 0; d < object->symbol_count; ++d) {
    const amddwarf_symbol *kd = &object->symbols[d];
    if (kd->kind == AMDDWARF_SYMBOL_DESCRIPTOR && strncmp(kd->name, found->name, length) == 0 &&
        strcmp(kd->name + length, ".kd") == 0) {
      out->descriptor = descriptor_bytes(object, kd->section, kd->address);
      break;
    }
  }
  return true;
}

/* The answers of the in-place search (a value read asks about its frame's
   PC for every variable: each search reads the whole .symtab twice), kept
   with the object (memo.h) until the symbol table is loaded. */
#define MEMO_SYMBOL_HIT UINT64_C(0x73796d626f6c6174) /* "symbolat" */

typedef struct symbol_hit {
  amddwarf_object_memo memo; /* first: the block is the memo's */
  int found;                 /* find_function_in_place's 1 or 0 */
  amddwarf__function_at answer;
} symbol_hit;

bool amddwarf__object_function_at(const amddwarf_object *object, uint64_t address,
                                  amddwarf__function_at *out)
{
  if (atomic_load_explicit(&object->symbols_state, memory_order_acquire) != AMDDWARF_UNIT_READY) {
    const uint64_t key[4] = {MEMO_SYMBOL_HIT, address, 0, 0};
    const symbol_hit *hit = (const symbol_hit *)amddwarf__object_memo_find(object, key);
    if (hit != NULL) {
      if (hit->found)
        *out = hit->answer;
      return hit->found == 1;
    }
    int found = find_function_in_place(object, address, out);
    if (found >= 0) {
      symbol_hit *kept = (symbol_hit *)amddwarf__object_memo_new(object, key, sizeof *kept);
      if (kept != NULL) {
        kept->found = found;
        if (found)
          kept->answer = *out;
        /* As many addresses asked as the object keeps answers for: the
           symbol table is worth loading, and answers every later one. */
        if (amddwarf__object_memo_keep(object, &kept->memo, NULL) == NULL)
          (void)amddwarf__object_ensure_symbols(object, NULL);
      }
      return found == 1;
    }
    if (amddwarf__object_ensure_symbols(object, NULL) != AMDDWARF_OK)
      return false;
  }
  return find_function_in_table(object, address, out);
}

amddwarf_status amddwarf_object_function_symbol_at(const amddwarf_object *object,
                                                   uint64_t address, amddwarf_symbol *out)
{
  if (object == NULL || out == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf__function_at found;
  if (!amddwarf__object_function_at(object, address, &found))
    return AMDDWARF_NOT_FOUND;
  *out = found.symbol;
  return AMDDWARF_OK;
}

const amddwarf_object_info *amddwarf_object_get_wave_info(const amddwarf_object *object)
{
  return object != NULL ? amddwarf__object_wave_info(object) : NULL;
}

/* Reads the metadata note, joins its kernels with the symbols, and takes
   the kernels' wave size when the processor has a choice. */
static amddwarf_status read_metadata_note(amddwarf_object *object, amddwarf_error *err)
{
  amddwarf_status st = amddwarf__object_ensure_symbols(object, err);
  for (size_t i = 1; i < object->section_count && st == AMDDWARF_OK; ++i)
    if (object->sections[i].type == SHT_NOTE)
      st = read_notes(object, &object->sections[i], true, err);
  if (st == AMDDWARF_OK)
    st = join_kernels(object, err);
  if (st != AMDDWARF_OK) {
    object->kernel_count = 0; /* what was read before the error is not handed out */
    return st;
  }
  if (object->one_wave_size)
    return AMDDWARF_OK;
  /* The object's wave size: the kernels' when they all agree. */
  unsigned wave = 0;
  for (size_t k = 0; k < object->kernel_count; ++k) {
    unsigned w = object->kernels[k].wavefront_size;
    if (w != 32 && w != 64)
      continue;
    if (wave == 0)
      wave = w;
    else if (wave != w)
      wave = UINT32_MAX;
  }
  if (wave == 32 || wave == 64)
    object->info.wave_size = wave;
  object->info.frame_base_divisor = object->info.flat_scratch ? 1u : object->info.wave_size;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__object_ensure_elf_tables(const amddwarf_object *cobject,
                                                  amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  return run_once(object, &object->elf_tables_state, &object->elf_tables_failure,
                  read_metadata_note, err);
}

const amddwarf_object_info *amddwarf__object_wave_info(const amddwarf_object *object)
{
  if (!object->one_wave_size)
    amddwarf__object_ensure_elf_tables(object, NULL);
  return &object->info;
}

amddwarf_status amddwarf_object_load_metadata(const amddwarf_object *object, amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_load_metadata: NULL object");
  return amddwarf__object_ensure_elf_tables(object, err);
}
