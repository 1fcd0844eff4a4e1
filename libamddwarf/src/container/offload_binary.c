/* OffloadBinary images (llvm/include/llvm/Object/OffloadBinary.h), as the
 * new offload driver puts them in .llvm.offloading sections, one after the
 * other, each 8-byte aligned. Little-endian:
 *   header (32 bytes): magic 10 FF 10 AD, u32 version, u64 size (of the
 *     whole image), u64 entry offset, u64 entry size
 *   entry (40 bytes): u16 image kind, u16 offload kind, u32 flags,
 *     u64 string table offset, u64 string count, u64 image offset,
 *     u64 image size
 *   string entry (16 bytes): u64 key offset, u64 value offset (of
 *     NUL-terminated strings)
 * Offsets are from the start of the image. Version 1 holds one entry. Only
 * images of kind 1 (IMG_Object: an ELF file) are code objects. */
#include <stdio.h>
#include <string.h>

#include "container/internal.h"

static const uint8_t offload_magic[4] = {0x10, 0xFF, 0x10, 0xAD};

enum { HEADER_SIZE = 32, ENTRY_SIZE = 40, STRING_ENTRY_SIZE = 16, IMAGE_KIND_OBJECT = 1 };

/* Offload kinds by number, as entry IDs spell them: LLVM 19 numbers them
   1, 2, 3 (OpenMP, CUDA, HIP), later LLVM as bits 1, 2, 4, 8 (SYCL). */
static const char *const offload_kinds[] = {"none", "openmp", "cuda", "hip", "hip",
                                            NULL,   NULL,     NULL,   "sycl"};

/* The NUL-terminated string at OFFSET of IMAGE (SIZE bytes), or NULL. */
static const char *image_string(const uint8_t *image, uint64_t size, uint64_t offset)
{
  if (offset >= size || memchr(image + offset, 0, (size_t)(size - offset)) == NULL)
    return NULL;
  return (const char *)image + offset;
}

/* Reads the image at POS (REST bytes left); *END gets its end. */
static amddwarf_status read_image(amddwarf_container *c, const char *section, uint64_t pos,
                                  uint64_t rest, uint64_t *end, amddwarf_error *err)
{
  const uint8_t *image = c->data + pos;
  uint64_t at = pos + c->file_base;
#define BAD(field_offset, ...)                                                                    \
  amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_OFFLOAD_BINARY, at + (field_offset), __VA_ARGS__)
  if (rest < HEADER_SIZE)
    return BAD(0, "%s: offset %llu: OffloadBinary header truncated (%llu bytes)", c->name,
               (unsigned long long)at, (unsigned long long)rest);
  uint32_t version = amddwarf__le32(image + 4);
  uint64_t size = amddwarf__le64(image + 8), entry_offset = amddwarf__le64(image + 16);
  uint64_t entry_size = amddwarf__le64(image + 24);
  if (version != 1)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, at + 4,
                          "%s: offset %llu: OffloadBinary version %u is not one this library "
                          "reads (1)",
                          c->name, (unsigned long long)(at + 4), version);
  if (size < HEADER_SIZE || size > rest)
    return BAD(8, "%s: offset %llu: OffloadBinary size %llu is %s (%llu bytes left)", c->name,
               (unsigned long long)(at + 8), (unsigned long long)size,
               size < HEADER_SIZE ? "smaller than its header" : "past the end",
               (unsigned long long)rest);
  if (entry_size < ENTRY_SIZE || entry_offset > size || entry_size > size - entry_offset)
    return BAD(16, "%s: offset %llu: OffloadBinary entry [%llu, +%llu) is not inside the "
                   "image's %llu bytes",
               c->name, (unsigned long long)(at + 16), (unsigned long long)entry_offset,
               (unsigned long long)entry_size, (unsigned long long)size);
  const uint8_t *entry = image + entry_offset;
  uint16_t image_kind = amddwarf__le16(entry), offload_kind = amddwarf__le16(entry + 2);
  uint64_t strings = amddwarf__le64(entry + 8), string_count = amddwarf__le64(entry + 16);
  uint64_t body = amddwarf__le64(entry + 24), body_size = amddwarf__le64(entry + 32);
  if (body > size || body_size > size - body || body_size == 0)
    return BAD(entry_offset + 24,
               "%s: offset %llu: OffloadBinary image [%llu, +%llu) is %s the %llu bytes of its "
               "binary",
               c->name, (unsigned long long)(at + entry_offset + 24), (unsigned long long)body,
               (unsigned long long)body_size, body_size == 0 ? "empty, not inside" : "not inside",
               (unsigned long long)size);
  if (strings > size || string_count > (size - strings) / STRING_ENTRY_SIZE)
    return BAD(entry_offset + 8, "%s: offset %llu: OffloadBinary string table of %llu entries "
                                 "at %llu runs past the image",
               c->name, (unsigned long long)(at + entry_offset + 8),
               (unsigned long long)string_count, (unsigned long long)strings);
  const char *triple = "", *arch = "";
  for (uint64_t i = 0; i < string_count; ++i) {
    const uint8_t *s = image + strings + i * STRING_ENTRY_SIZE;
    const char *key = image_string(image, size, amddwarf__le64(s));
    const char *value = image_string(image, size, amddwarf__le64(s + 8));
    if (key == NULL || value == NULL)
      return BAD(strings + i * STRING_ENTRY_SIZE,
                 "%s: offset %llu: OffloadBinary string %llu is not a NUL-terminated string "
                 "inside the image",
                 c->name, (unsigned long long)(at + strings + i * STRING_ENTRY_SIZE),
                 (unsigned long long)i);
    if (strcmp(key, "triple") == 0)
      triple = value;
    else if (strcmp(key, "arch") == 0)
      arch = value;
  }
#undef BAD
  *end = pos + size;
  if (image_kind != IMAGE_KIND_OBJECT)
    return AMDDWARF_OK; /* bitcode, PTX, ...: no code object */
  char id[512];
  const char *kind = offload_kind < sizeof offload_kinds / sizeof offload_kinds[0]
                         ? offload_kinds[offload_kind]
                         : NULL;
  if (kind == NULL)
    kind = "unknown";
  int n = snprintf(id, sizeof id, "%s-%s--%s", kind, triple, arch);
  amddwarf__place place = {section, pos, size, -1};
  return amddwarf__container_add(c, &place, id, n < (int)sizeof id ? (size_t)n : sizeof id - 1,
                                 pos + body, body_size, err);
}

amddwarf_status amddwarf__offload_binary_scan(amddwarf_container *c, const char *section,
                                              uint64_t offset, uint64_t size,
                                              amddwarf_error *err)
{
  uint64_t pos = offset, stop = offset + size;
  while (pos < stop) {
    if (c->data[pos] == 0) { /* alignment padding */
      ++pos;
      continue;
    }
    if (stop - pos < 4 || memcmp(c->data + pos, offload_magic, 4) != 0)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_OFFLOAD_BINARY, pos + c->file_base,
                            "%s: offset %llu%s%s: no OffloadBinary magic (10 FF 10 AD) here",
                            c->name, (unsigned long long)(pos + c->file_base),
                            section[0] ? " in " : "", section);
    uint64_t end = 0;
    amddwarf_status st = read_image(c, section, pos, stop - pos, &end, err);
    if (st != AMDDWARF_OK)
      return st;
    pos = end;
  }
  return AMDDWARF_OK;
}
