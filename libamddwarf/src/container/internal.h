/* Containers of code objects: the handle and the readers of each format
 * (specs/containers.md). Every reader checks each field against the bytes
 * it has before it uses it, and names the input, the byte offset and what
 * is wrong when it refuses. */
#ifndef AMDDWARF_CONTAINER_INTERNAL_H
#define AMDDWARF_CONTAINER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/container.h>

#include "common/arena.h"
#include "common/error.h"
#include "common/mem.h"

#define AMDDWARF_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define AMDDWARF_BUNDLE_MAGIC_SIZE 24
#define AMDDWARF_CCOB_MAGIC "CCOB"

/* A compressed bundle found in the input. */
typedef struct amddwarf__ccob {
  uint64_t offset;               /* of its magic, in the container's bytes */
  uint64_t size;                 /* header and payload (the total size, or the
                                    rest of what holds it for version 1) */
  uint16_t version, method;
  uint32_t header_size;          /* 20, 24 or 32 */
  uint64_t uncompressed_size;
  uint8_t hash[8];               /* the first 8 bytes of the MD5 digest */
  uint8_t *bytes;                /* decompressed on first use, or NULL */
} amddwarf__ccob;

/* One listed entry and where its bytes come from. */
typedef struct amddwarf__entry {
  amddwarf_container_entry pub;
  int32_t ccob;                  /* index into ccobs, or -1: a slice of data */
} amddwarf__entry;

struct amddwarf_container {
  amddwarf_allocator allocator;
  amddwarf_container_options options;
  const uint8_t *data;
  size_t size;
  void *mapping;                 /* the file's mapping (open_file), or NULL */
  size_t mapping_size;
  int fd;                        /* the mapped file, kept open to map an entry
                                    for an object (take_bytes); -1 when none */
  const char *name;              /* for messages */
  const char *path;              /* for URIs, or NULL */
  uint64_t file_base;            /* file offset of data[0] */
  amddwarf_container_kind kind;
  amddwarf_arena arena;
  amddwarf__entry *entries;
  size_t count, capacity;
  amddwarf__ccob *ccobs;
  size_t ccob_count, ccob_capacity;
  void *zstd;                    /* a ZSTD_DStream kept for reading entry tables */
};

/* Where a bundle (or image) was found, for its entries. */
typedef struct amddwarf__place {
  const char *section;           /* host ELF section name, or "" */
  uint64_t offset;               /* the bundle's offset in the container's bytes */
  uint64_t size;                 /* its size */
  int32_t ccob;                  /* the compressed bundle it was inside, or -1 */
} amddwarf__place;

/* Appends a device entry with ID (SIZE bytes) whose bytes are at OFFSET,
   SIZE (in the container's bytes, or in the decompressed bundle PLACE->ccob). */
amddwarf_status amddwarf__container_add(amddwarf_container *c, const amddwarf__place *place,
                                        const char *id, size_t id_size, uint64_t offset,
                                        uint64_t size, amddwarf_error *err);

/* Reads the uncompressed bundle at BYTES (SIZE bytes; AVAIL of them present,
   AVAIL <= SIZE: a compressed bundle's decoded prefix) and adds its device
   entries. POS_BASE is added to offsets in messages. *NEED is set (and
   AMDDWARF_END returned) when the entry table runs past AVAIL but not past
   SIZE: call again with at least *NEED bytes. *END gets the end of the
   bundle's last entry or table. */
amddwarf_status amddwarf__bundle_read(amddwarf_container *c, const amddwarf__place *place,
                                      const uint8_t *bytes, uint64_t size, uint64_t avail,
                                      uint64_t pos_base, uint64_t *need, uint64_t *end,
                                      amddwarf_error *err);

/* Reads the compressed bundle at OFFSET of the container's bytes (at most
   LIMIT bytes: the rest of its section or file), records it and adds the
   entries of the bundle inside it (decoding only its entry table). *END
   gets the offset after it. */
amddwarf_status amddwarf__ccob_read(amddwarf_container *c, const char *section, uint64_t offset,
                                    uint64_t limit, uint64_t *end, amddwarf_error *err);

/* Frees what the compressed-bundle reader keeps in C (its zstd stream). */
void amddwarf__ccob_release(amddwarf_container *c);

/* Decompresses compressed bundle INDEX (once) and checks its hash. */
amddwarf_status amddwarf__ccob_decompress(amddwarf_container *c, size_t index,
                                          amddwarf_error *err);

/* Reads the bundles laid one after the other (zero padding between them)
   in [OFFSET, OFFSET + SIZE) of the container's bytes, plain or compressed. */
amddwarf_status amddwarf__bundles_scan(amddwarf_container *c, const char *section,
                                       uint64_t offset, uint64_t size, amddwarf_error *err);

/* Reads the OffloadBinary images in [OFFSET, OFFSET + SIZE) and adds the
   ELF ones. */
amddwarf_status amddwarf__offload_binary_scan(amddwarf_container *c, const char *section,
                                              uint64_t offset, uint64_t size,
                                              amddwarf_error *err);

/* Reads a host ELF file's sections and everything offloaded in them. */
amddwarf_status amddwarf__host_elf_scan(amddwarf_container *c, amddwarf_error *err);

/* Hands the bytes of entry INDEX to the caller: *BLOCK (*BLOCK_SIZE bytes)
   holds *DATA (*SIZE bytes). A compressed entry's decompressed bundle moves
   out of the container (its other entries then decompress it again): a
   block of the container's allocator, *MAPPED false. An uncompressed entry
   of a file is mapped again on its own (*MAPPED true: the caller munmaps
   the block), so an object keeps only the pages it reads and outlives the
   container; one of memory is copied. */
amddwarf_status amddwarf__container_take_bytes(amddwarf_container *c, size_t index, void **block,
                                               size_t *block_size, bool *mapped,
                                               const uint8_t **data, size_t *size,
                                               amddwarf_error *err);

/* Opens [OFFSET, OFFSET + SIZE) of the file at PATH, mapped (WHOLE: all of
   it, OFFSET and SIZE ignored). */
amddwarf_status amddwarf__container_open_range(const char *path, bool whole, uint64_t offset,
                                               uint64_t size,
                                               const amddwarf_container_options *options,
                                               amddwarf_container **out, amddwarf_error *err);

/* Little-endian loads (callers check the bounds first). */
static inline uint16_t amddwarf__le16(const uint8_t *b)
{
  return (uint16_t)(b[0] | b[1] << 8);
}
static inline uint32_t amddwarf__le32(const uint8_t *b)
{
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t amddwarf__le64(const uint8_t *b)
{
  return (uint64_t)amddwarf__le32(b) | (uint64_t)amddwarf__le32(b + 4) << 32;
}

#endif
