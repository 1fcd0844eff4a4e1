/* Producers: argument packing, PAL metadata (MessagePack, written with
 * msgpack-c so that our reader is checked against an independent writer),
 * and a minimal ELF file carrying the NT_AMDGPU_METADATA note. */
#include <string.h>

#include <msgpack.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "printf/build_internal.h"

/* ---- Growable byte vector ---- */

amddwarf_status amddwarf__printf_bytes_append(printf_bytes *b, const void *data, size_t size)
{
  size_t needed;
  if (amddwarf_add_overflow_size(b->size, size, &needed) ||
      amddwarf__mem_reserve(&b->allocator, (void **)&b->data, &b->capacity, needed, 1) != 0)
    return AMDDWARF_E_NO_MEMORY;
  if (size)
    memcpy(b->data + b->size, data, size);
  b->size = needed;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__printf_bytes_le(printf_bytes *b, uint64_t value, unsigned size)
{
  uint8_t bytes[8];
  for (unsigned i = 0; i < size; i++)
    bytes[i] = (uint8_t)(value >> (8 * i));
  return amddwarf__printf_bytes_append(b, bytes, size);
}

amddwarf_status amddwarf__printf_bytes_zeros(printf_bytes *b, size_t count)
{
  static const uint8_t zeros[64];
  amddwarf_status status = AMDDWARF_OK;
  while (count > 0 && status == AMDDWARF_OK) {
    size_t n = count < sizeof zeros ? count : sizeof zeros;
    status = amddwarf__printf_bytes_append(b, zeros, n);
    count -= n;
  }
  return status;
}

void amddwarf__printf_bytes_release(printf_bytes *b)
{
  amddwarf__mem_free(&b->allocator, b->data, b->capacity);
  b->data = NULL;
  b->size = b->capacity = 0;
}

/* Hands the bytes over: *OUT gets an exactly sized block (allocator memory). */
static amddwarf_status bytes_take(printf_bytes *b, uint8_t **out, size_t *size)
{
  if (b->capacity != b->size) {
    uint8_t *exact = amddwarf__mem_realloc(&b->allocator, b->data, b->capacity,
                                          b->size ? b->size : 1);
    if (!exact)
      return AMDDWARF_E_NO_MEMORY;
    b->data = exact;
    b->capacity = b->size ? b->size : 1;
  }
  *out = b->data;
  *size = b->size;
  b->data = NULL;
  b->size = b->capacity = 0;
  return AMDDWARF_OK;
}

/* ---- Packing ---- */

float amddwarf__printf_half_to_float(uint16_t half)
{
  uint32_t sign = (uint32_t)(half >> 15) << 31;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13); /* inf, NaN (payload kept) */
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else { /* subnormal half: normalise */
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      exponent--;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

amddwarf_status amddwarf_printf_pack(amddwarf_printf_arg_kind kind, uint64_t bits,
                                     uint32_t out[2], unsigned *count)
{
  switch (kind) {
  case AMDDWARF_PRINTF_ARG_I8:
    out[0] = (uint32_t)(bits & 0xff);
    *count = 1;
    return AMDDWARF_OK;
  case AMDDWARF_PRINTF_ARG_I16:
    out[0] = (uint32_t)(bits & 0xffff);
    *count = 1;
    return AMDDWARF_OK;
  case AMDDWARF_PRINTF_ARG_I32:
  case AMDDWARF_PRINTF_ARG_F32:
    out[0] = (uint32_t)bits;
    *count = 1;
    return AMDDWARF_OK;
  case AMDDWARF_PRINTF_ARG_F16: {
    float f = amddwarf__printf_half_to_float((uint16_t)bits);
    memcpy(&out[0], &f, sizeof f);
    *count = 1;
    return AMDDWARF_OK;
  }
  case AMDDWARF_PRINTF_ARG_I64:
  case AMDDWARF_PRINTF_ARG_F64:
    out[0] = (uint32_t)bits;
    out[1] = (uint32_t)(bits >> 32);
    *count = 2;
    return AMDDWARF_OK;
  }
  return AMDDWARF_E_INVALID_ARGUMENT;
}

/* ---- PAL metadata ---- */

static void pack_key(msgpack_packer *pk, const char *key)
{
  size_t length = strlen(key);
  msgpack_pack_str(pk, length);
  msgpack_pack_str_body(pk, key, length);
}

amddwarf_status amddwarf_printf_metadata_encode(const amddwarf_printf_string *strings,
                                                size_t count, const amddwarf_allocator *allocator,
                                                uint8_t **out, size_t *size, amddwarf_error *err)
{
  if ((!strings && count) || !out || !size || count > UINT32_MAX)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "strings and outputs are required");
  msgpack_sbuffer sbuf;
  msgpack_packer pk;
  msgpack_sbuffer_init(&sbuf);
  msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
  msgpack_pack_map(&pk, 2);
  pack_key(&pk, "amdpal.version");
  msgpack_pack_array(&pk, 2);
  msgpack_pack_uint32(&pk, 3);
  msgpack_pack_uint32(&pk, 0);
  pack_key(&pk, "amdpal.format_strings");
  msgpack_pack_map(&pk, 2);
  pack_key(&pk, ".version");
  msgpack_pack_uint32(&pk, 1);
  pack_key(&pk, ".strings");
  msgpack_pack_array(&pk, count);
  for (size_t i = 0; i < count; i++) {
    const amddwarf_printf_string *s = &strings[i];
    msgpack_pack_map(&pk, 4);
    pack_key(&pk, ".index");
    msgpack_pack_uint64(&pk, s->id);
    pack_key(&pk, ".string");
    msgpack_pack_str(&pk, s->format_length);
    msgpack_pack_str_body(&pk, s->format, s->format_length);
    pack_key(&pk, ".argument_count");
    msgpack_pack_uint32(&pk, s->argument_count);
    pack_key(&pk, ".64bit_arguments");
    msgpack_pack_array(&pk, s->mask_words);
    for (size_t w = 0; w < s->mask_words; w++)
      msgpack_pack_uint64(&pk, s->mask64[w]);
  }
  amddwarf_status status = AMDDWARF_OK;
  amddwarf_allocator resolved = amddwarf__allocator_resolve(allocator);
  uint8_t *copy = amddwarf__mem_alloc(&resolved, sbuf.size ? sbuf.size : 1);
  if (!copy || !sbuf.data) {
    amddwarf__mem_free(&resolved, copy, sbuf.size ? sbuf.size : 1);
    status = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                           "no memory for the metadata document");
  } else {
    memcpy(copy, sbuf.data, sbuf.size);
    *out = copy;
    *size = sbuf.size;
  }
  msgpack_sbuffer_destroy(&sbuf);
  return status;
}

/* ---- ELF ---- */

enum {
  ELF64_EHDR_SIZE = 64,
  ELF64_SHDR_SIZE = 64,
  ELF_ET_REL = 1,
  ELF_EM_AMDGPU = 224,
  ELF_OSABI_AMDGPU_PAL = 65,
  ELF_SHT_NOTE = 7,
  ELF_SHT_STRTAB = 3,
};

static const char elf_shstrtab[] = "\0.note\0.shstrtab"; /* offsets 1 and 7 */

static amddwarf_status elf_section_header(printf_bytes *b, uint32_t name, uint32_t type,
                                          uint64_t offset, uint64_t size, uint64_t align)
{
  amddwarf_status status = AMDDWARF_OK;
  const uint64_t fields[][2] = {
      {name, 4}, {type, 4}, {0, 8} /* flags */, {0, 8} /* addr */, {offset, 8}, {size, 8},
      {0, 4} /* link */, {0, 4} /* info */, {align, 8}, {0, 8} /* entsize */,
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0] && status == AMDDWARF_OK; i++)
    status = amddwarf__printf_bytes_le(b, fields[i][0], (unsigned)fields[i][1]);
  return status;
}

amddwarf_status amddwarf_printf_elf_encode(const uint8_t *note_desc, size_t size,
                                           const amddwarf_allocator *allocator, uint8_t **out,
                                           size_t *out_size, amddwarf_error *err)
{
  if ((!note_desc && size) || !out || !out_size || size > UINT32_MAX - 3)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "note descriptor and outputs are required (descriptor below 4 GiB)");
  printf_bytes b = {.allocator = amddwarf__allocator_resolve(allocator)};
  static const char name[] = "AMDGPU";
  uint64_t note_offset = ELF64_EHDR_SIZE;
  uint64_t note_size = 12 + 8 + ((uint64_t)size + 3) / 4 * 4;
  uint64_t strtab_offset = note_offset + note_size;
  uint64_t shdr_offset = (strtab_offset + sizeof elf_shstrtab + 7) / 8 * 8;
  static const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LSB */,
                                    1 /* EV_CURRENT */, ELF_OSABI_AMDGPU_PAL};
  amddwarf_status status = amddwarf__printf_bytes_append(&b, ident, sizeof ident);
  const uint64_t header[][2] = {
      {ELF_ET_REL, 2}, {ELF_EM_AMDGPU, 2}, {1, 4} /* version */, {0, 8} /* entry */,
      {0, 8} /* phoff */, {shdr_offset, 8}, {0, 4} /* flags */, {ELF64_EHDR_SIZE, 2},
      {0, 2} /* phentsize */, {0, 2} /* phnum */, {ELF64_SHDR_SIZE, 2}, {3, 2} /* shnum */,
      {2, 2} /* shstrndx */,
  };
  for (size_t i = 0; i < sizeof header / sizeof header[0] && status == AMDDWARF_OK; i++)
    status = amddwarf__printf_bytes_le(&b, header[i][0], (unsigned)header[i][1]);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_le(&b, sizeof name, 4);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_le(&b, size, 4);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_le(&b, 32 /* NT_AMDGPU_METADATA */, 4);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_append(&b, name, sizeof name);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_zeros(&b, 8 - sizeof name);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_append(&b, note_desc, size);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_zeros(&b, (4 - size % 4) % 4);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_append(&b, elf_shstrtab, sizeof elf_shstrtab);
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_bytes_zeros(&b, (size_t)(shdr_offset - b.size));
  if (status == AMDDWARF_OK)
    status = elf_section_header(&b, 0, 0, 0, 0, 0);
  if (status == AMDDWARF_OK)
    status = elf_section_header(&b, 1, ELF_SHT_NOTE, note_offset, note_size, 4);
  if (status == AMDDWARF_OK)
    status = elf_section_header(&b, 7, ELF_SHT_STRTAB, strtab_offset, sizeof elf_shstrtab, 1);
  if (status == AMDDWARF_OK)
    status = bytes_take(&b, out, out_size);
  if (status != AMDDWARF_OK) {
    amddwarf__printf_bytes_release(&b);
    return amddwarf__fail(err, status, AMDDWARF_NO_OFFSET, "no memory for the ELF file");
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__printf_bytes_take(printf_bytes *b, uint8_t **out, size_t *size)
{
  return bytes_take(b, out, size);
}
