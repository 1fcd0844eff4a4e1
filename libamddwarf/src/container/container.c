/* Containers: recognizing the input by its content, the host ELF sections
 * that hold offloaded code, the entry list and the bytes of one entry. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, fstat, mmap */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/internal.h"
#include "elf/elf_image.h"

static const char *const kind_names[] = {"code_object", "host_elf", "bundle",
                                         "compressed_bundle", "offload_binary"};

const char *amddwarf_container_kind_name(amddwarf_container_kind kind)
{
  return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : NULL;
}

void amddwarf_container_options_init(amddwarf_container_options *options)
{
  if (options == NULL)
    return;
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->max_decompressed = AMDDWARF_CONTAINER_DEFAULT_MAX_DECOMPRESSED;
}

amddwarf_status amddwarf__container_add(amddwarf_container *c, const amddwarf__place *place,
                                        const char *id, size_t id_size, uint64_t offset,
                                        uint64_t size, amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&c->allocator, (void **)&c->entries, &c->capacity, c->count + 1,
                            sizeof *c->entries) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "container entries");
  amddwarf__entry *e = &c->entries[c->count];
  memset(e, 0, sizeof *e);
  amddwarf_container_entry *pub = &e->pub;
  pub->index = (uint32_t)c->count;
  pub->entry_id = amddwarf__arena_strndup(&c->arena, id, id_size);
  pub->section = place->section;
  pub->size = size;
  e->ccob = place->ccob;
  if (place->ccob >= 0) {
    const amddwarf__ccob *ccob = &c->ccobs[place->ccob];
    pub->offset = offset;
    pub->bundle_offset = ccob->offset + c->file_base;
    pub->bundle_size = ccob->size;
    pub->compressed = 1;
    pub->compression_method = (uint8_t)ccob->method;
    pub->compression_version = ccob->version;
  } else {
    pub->offset = offset + c->file_base;
    pub->bundle_offset = place->offset + c->file_base;
    pub->bundle_size = place->size;
  }
  amddwarf_entry_id_parts parts;
  const char *triple = "", *target = "";
  size_t triple_size = 0, target_size = 0;
  if (id_size > 0 && amddwarf_entry_id_split(id, id_size, &parts, NULL) == AMDDWARF_OK) {
    triple = parts.triple;
    triple_size = parts.triple_size;
    target = parts.target_id;
    target_size = parts.target_id_size;
  }
  pub->triple = amddwarf__arena_strndup(&c->arena, triple, triple_size);
  pub->target_id = amddwarf__arena_strndup(&c->arena, target, target_size);
  if (amddwarf_target_id_parse(target, target_size, &pub->target, NULL) != AMDDWARF_OK)
    memset(&pub->target, 0, sizeof pub->target);
  if (c->path != NULL) {
    uint64_t uri_offset = pub->compressed ? pub->bundle_offset : pub->offset;
    uint64_t uri_size = pub->compressed ? pub->bundle_size : pub->size;
    size_t n = amddwarf_uri_format_file(c->path, uri_offset, uri_size, NULL, 0);
    char *uri = amddwarf__arena_alloc(&c->arena, n + 1, 1);
    if (uri != NULL)
      amddwarf_uri_format_file(c->path, uri_offset, uri_size, uri, n + 1);
    pub->uri = uri;
  }
  if (pub->entry_id == NULL || pub->triple == NULL || pub->target_id == NULL ||
      (c->path != NULL && pub->uri == NULL))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "container entry");
  ++c->count;
  return AMDDWARF_OK;
}

/* The sections of a host ELF file that hold offloaded code, by name. */
typedef enum section_role { ROLE_FATBIN, ROLE_BUNDLE_SECTION, ROLE_OFFLOADING } section_role;

static const struct {
  const char *name;
  bool prefix;
  section_role role;
} offload_sections[] = {
    {".hip_fatbin", false, ROLE_FATBIN},
    {"__CLANG_OFFLOAD_BUNDLE__", true, ROLE_BUNDLE_SECTION},
    {".llvm.offloading", false, ROLE_OFFLOADING},
};

amddwarf_status amddwarf__host_elf_scan(amddwarf_container *c, amddwarf_error *err)
{
  amddwarf_elf_image elf;
  amddwarf_status st = amddwarf__elf_image_open(&elf, c->data, c->size, err);
  for (uint32_t i = 1; st == AMDDWARF_OK && i < elf.shnum; ++i) {
    amddwarf_elf_section s;
    st = amddwarf__elf_section_at(&elf, i, &s, err);
    const char *name = st == AMDDWARF_OK ? amddwarf__elf_section_name(&elf, &s) : NULL;
    if (name == NULL || s.type == AMDDWARF_ELF_SHT_NOBITS || s.size == 0)
      continue;
    size_t k = 0;
    while (k < sizeof offload_sections / sizeof offload_sections[0] &&
           !(offload_sections[k].prefix
                 ? strncmp(name, offload_sections[k].name, strlen(offload_sections[k].name)) == 0
                 : strcmp(name, offload_sections[k].name) == 0))
      ++k;
    if (k == sizeof offload_sections / sizeof offload_sections[0])
      continue;
    if (s.offset > c->size || s.size > c->size - s.offset) {
      st = amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_ELF, c->file_base + s.offset,
                          "%s: section %s at [%llu, +%llu) runs past the end of the file (%zu "
                          "bytes)",
                          c->name, name, (unsigned long long)s.offset, (unsigned long long)s.size,
                          c->size);
      break;
    }
    const char *section = amddwarf__arena_strndup(&c->arena, name, strlen(name));
    if (section == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "section name");
      break;
    }
    switch (offload_sections[k].role) {
    case ROLE_FATBIN:
      st = amddwarf__bundles_scan(c, section, s.offset, s.size, err);
      break;
    case ROLE_OFFLOADING:
      st = amddwarf__offload_binary_scan(c, section, s.offset, s.size, err);
      break;
    case ROLE_BUNDLE_SECTION: {
      /* a relocatable object's bundle: the section is one entry, its name
         the entry ID */
      const char *id = name + strlen(offload_sections[k].name);
      if (strncmp(id, "host-", 5) != 0) {
        amddwarf__place place = {section, s.offset, s.size, -1};
        st = amddwarf__container_add(c, &place, id, strlen(id), s.offset, s.size, err);
      }
      break;
    }
    }
  }
  return st;
}

/* What the first bytes of an input say it is. */
static amddwarf_status recognize(amddwarf_container *c, amddwarf_error *err)
{
  const uint8_t *p = c->data;
  size_t n = c->size;
  if (n >= 4 && memcmp(p, "\177ELF", 4) == 0) {
    /* e_machine: the same two bytes in both classes (little-endian) */
    bool amdgpu = n >= 20 && p[5] == 1 && amddwarf__le16(p + 18) == AMDDWARF_ELF_EM_AMDGPU;
    if (amdgpu) {
      c->kind = AMDDWARF_CONTAINER_CODE_OBJECT;
      amddwarf__place place = {"", 0, n, -1};
      return amddwarf__container_add(c, &place, "", 0, 0, n, err);
    }
    c->kind = AMDDWARF_CONTAINER_HOST_ELF;
    return amddwarf__host_elf_scan(c, err);
  }
  if (n >= AMDDWARF_BUNDLE_MAGIC_SIZE && memcmp(p, AMDDWARF_BUNDLE_MAGIC, AMDDWARF_BUNDLE_MAGIC_SIZE) == 0) {
    c->kind = AMDDWARF_CONTAINER_BUNDLE;
    return amddwarf__bundles_scan(c, "", 0, n, err);
  }
  if (n >= 4 && memcmp(p, AMDDWARF_CCOB_MAGIC, 4) == 0) {
    c->kind = AMDDWARF_CONTAINER_COMPRESSED;
    return amddwarf__bundles_scan(c, "", 0, n, err);
  }
  if (n >= 4 && p[0] == 0x10 && p[1] == 0xFF && p[2] == 0x10 && p[3] == 0xAD) {
    c->kind = AMDDWARF_CONTAINER_OFFLOAD_BINARY;
    return amddwarf__offload_binary_scan(c, "", 0, n, err);
  }
  return amddwarf__fail(err, AMDDWARF_E_OBJECT_NOT_ELF, c->file_base,
                        "%s: not an ELF file, an offload bundle, a compressed bundle (CCOB) or an "
                        "OffloadBinary: no known magic at offset %llu",
                        c->name, (unsigned long long)c->file_base);
}

/* A new handle over DATA with OPTIONS (checked). */
static amddwarf_status container_new(const void *data, size_t size, const char *name,
                                     const amddwarf_container_options *options,
                                     amddwarf_container **out, amddwarf_error *err)
{
  amddwarf_container_options opts;
  amddwarf_container_options_init(&opts);
  if (options != NULL) {
    if (options->struct_size < sizeof(uint32_t) || options->struct_size > sizeof opts)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                            "amddwarf_container_options.struct_size %u is not one this library "
                            "knows (%zu)",
                            options->struct_size, sizeof opts);
    memcpy(&opts, options, options->struct_size);
    opts.struct_size = sizeof opts;
    if (opts.max_decompressed == 0)
      opts.max_decompressed = AMDDWARF_CONTAINER_DEFAULT_MAX_DECOMPRESSED;
  }
  amddwarf_allocator a = amddwarf__allocator_resolve(opts.allocator);
  amddwarf_container *c = amddwarf__mem_calloc(&a, 1, sizeof *c);
  if (c == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "container handle");
  c->allocator = a;
  c->fd = -1;
  c->options = opts;
  c->options.allocator = NULL;
  amddwarf__arena_init(&c->arena, &c->allocator);
  c->data = data;
  c->size = size;
  c->name = amddwarf__arena_strndup(&c->arena, name ? name : "<memory>",
                                    strlen(name ? name : "<memory>"));
  if (c->name == NULL) {
    amddwarf_container_close(c);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "container name");
  }
  *out = c;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_container_open_memory(const void *data, size_t size, const char *name,
                                               const amddwarf_container_options *options,
                                               amddwarf_container **out, amddwarf_error *err)
{
  if (out == NULL || (data == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_container_open_memory: NULL argument");
  *out = NULL;
  amddwarf_container *c = NULL;
  amddwarf_status st = container_new(data, size, name, options, &c, err);
  if (st == AMDDWARF_OK)
    st = recognize(c, err);
  if (st != AMDDWARF_OK) {
    amddwarf_container_close(c);
    return st;
  }
  *out = c;
  return AMDDWARF_OK;
}

/* Opens [OFFSET, OFFSET + SIZE) of the file at PATH (SIZE 0 with WHOLE:
   all of it), mapped. */
amddwarf_status amddwarf__container_open_range(const char *path, bool whole, uint64_t offset,
                                               uint64_t size,
                                               const amddwarf_container_options *options,
                                               amddwarf_container **out, amddwarf_error *err)
{
  if (path == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_container_open_file: NULL argument");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "cannot read %s: %s", path,
                          strerror(errno));
  struct stat info;
  amddwarf_status st = AMDDWARF_OK;
  if (fstat(fd, &info) != 0)
    st = amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "cannot read %s: %s", path,
                        strerror(errno));
  else if (!S_ISREG(info.st_mode))
    st = amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "cannot read %s: %s", path,
                        strerror(S_ISDIR(info.st_mode) ? EISDIR : EINVAL));
  uint64_t file_size = st == AMDDWARF_OK ? (uint64_t)info.st_size : 0;
  if (st == AMDDWARF_OK && whole) {
    offset = 0;
    size = file_size;
  }
  if (st == AMDDWARF_OK && (offset > file_size || size > file_size - offset))
    st = amddwarf__fail(err, AMDDWARF_E_IO, offset,
                        "%s: the range [%llu, +%llu) is past the end of the file (%llu bytes)",
                        path, (unsigned long long)offset, (unsigned long long)size,
                        (unsigned long long)file_size);
  if (st == AMDDWARF_OK && size == 0)
    st = amddwarf__fail(err, AMDDWARF_E_IO, offset, "%s: %s is empty", path,
                        whole ? "the file" : "the range");
  void *mapping = NULL;
  size_t mapping_size = 0;
  uint64_t page_offset = 0;
  if (st == AMDDWARF_OK) {
    long page = sysconf(_SC_PAGESIZE);
    page_offset = offset % (uint64_t)(page > 0 ? page : 4096);
    mapping_size = (size_t)(size + page_offset);
    mapping = mmap(NULL, mapping_size, PROT_READ, MAP_PRIVATE, fd, (off_t)(offset - page_offset));
    if (mapping == MAP_FAILED) {
      mapping = NULL;
      st = amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: cannot map", path);
    }
  }
  if (st != AMDDWARF_OK) {
    close(fd);
    return st;
  }
  amddwarf_container *c = NULL;
  st = container_new((const uint8_t *)mapping + page_offset, (size_t)size, path, options, &c, err);
  if (st != AMDDWARF_OK) {
    munmap(mapping, mapping_size);
    close(fd);
    return st;
  }
  c->fd = fd;
  c->mapping = mapping;
  c->mapping_size = mapping_size;
  c->path = c->name;
  c->file_base = offset;
  st = recognize(c, err);
  if (st != AMDDWARF_OK) {
    amddwarf_container_close(c);
    return st;
  }
  *out = c;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_container_open_file(const char *path,
                                             const amddwarf_container_options *options,
                                             amddwarf_container **out, amddwarf_error *err)
{
  return amddwarf__container_open_range(path, true, 0, 0, options, out, err);
}

void amddwarf_container_close(amddwarf_container *c)
{
  if (c == NULL)
    return;
  amddwarf_allocator a = c->allocator;
  for (size_t i = 0; i < c->ccob_count; ++i)
    if (c->ccobs[i].bytes != NULL)
      amddwarf__mem_free(&a, c->ccobs[i].bytes, (size_t)c->ccobs[i].uncompressed_size);
  amddwarf__mem_free(&a, c->ccobs, c->ccob_capacity * sizeof *c->ccobs);
  amddwarf__ccob_release(c);
  amddwarf__mem_free(&a, c->entries, c->capacity * sizeof *c->entries);
  if (c->mapping != NULL)
    munmap(c->mapping, c->mapping_size);
  if (c->fd >= 0)
    close(c->fd);
  amddwarf__arena_release(&c->arena);
  amddwarf__mem_free(&a, c, sizeof *c);
}

amddwarf_container_kind amddwarf_container_get_kind(const amddwarf_container *c)
{
  return c->kind;
}

size_t amddwarf_container_count(const amddwarf_container *c)
{
  return c ? c->count : 0;
}

const amddwarf_container_entry *amddwarf_container_entry_at(const amddwarf_container *c,
                                                            size_t index)
{
  return c && index < c->count ? &c->entries[index].pub : NULL;
}

amddwarf_status amddwarf_container_entry_bytes(amddwarf_container *c, size_t index,
                                               const uint8_t **data, size_t *size,
                                               amddwarf_error *err)
{
  if (c == NULL || index >= c->count || data == NULL || size == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_container_entry_bytes: no entry %zu", index);
  const amddwarf__entry *e = &c->entries[index];
  if (e->ccob < 0) {
    *data = c->data + (e->pub.offset - c->file_base);
    *size = (size_t)e->pub.size;
    return AMDDWARF_OK;
  }
  amddwarf_status st = amddwarf__ccob_decompress(c, (size_t)e->ccob, err);
  if (st != AMDDWARF_OK)
    return st;
  *data = c->ccobs[e->ccob].bytes + e->pub.offset;
  *size = (size_t)e->pub.size;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_container_open_input(const char *input,
                                              const amddwarf_container_options *options,
                                              amddwarf_container **out, amddwarf_error *err)
{
  if (input == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_container_open_input: NULL argument");
  *out = NULL;
  if (strstr(input, "://") == NULL)
    return amddwarf_container_open_file(input, options, out, err);
  amddwarf_uri uri;
  amddwarf_status st = amddwarf_uri_parse(input, NULL, &uri, err);
  if (st != AMDDWARF_OK)
    return st;
  if (uri.kind == AMDDWARF_URI_MEMORY) {
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NEEDS_PROCESS, AMDDWARF_NO_OFFSET,
                        "%s: the code object is in the memory of process %llu: reading it needs "
                        "the live process or a core file of it, not a file",
                        input, (unsigned long long)uri.pid);
  } else if (!uri.has_size) {
    /* no size: from the offset to the end of the file */
    struct stat info;
    if (stat(uri.path, &info) != 0)
      st = amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: cannot open", uri.path);
    else if ((uint64_t)info.st_size < uri.offset)
      st = amddwarf__fail(err, AMDDWARF_E_IO, uri.offset,
                          "%s: offset %llu is past the end of the file (%llu bytes)", uri.path,
                          (unsigned long long)uri.offset, (unsigned long long)info.st_size);
    else
      st = amddwarf__container_open_range(uri.path, false, uri.offset,
                                          (uint64_t)info.st_size - uri.offset, options, out,
                                          err);
  } else {
    st = amddwarf__container_open_range(uri.path, false, uri.offset, uri.size, options, out,
                                        err);
  }
  amddwarf_uri_free(&uri, NULL);
  return st;
}

amddwarf_status amddwarf__container_take_bytes(amddwarf_container *c, size_t index, void **block,
                                               size_t *block_size, bool *mapped,
                                               const uint8_t **data, size_t *size,
                                               amddwarf_error *err)
{
  *mapped = false;
  amddwarf_status st = amddwarf_container_entry_bytes(c, index, data, size, err);
  if (st != AMDDWARF_OK)
    return st;
  const amddwarf__entry *e = &c->entries[index];
  if (e->ccob >= 0) {
    amddwarf__ccob *ccob = &c->ccobs[e->ccob];
    *block = ccob->bytes;
    *block_size = (size_t)ccob->uncompressed_size;
    ccob->bytes = NULL;
    return AMDDWARF_OK;
  }
  if (c->fd >= 0 && *size > 0) {
    uint64_t offset = e->pub.offset;
    long page = sysconf(_SC_PAGESIZE);
    uint64_t page_offset = offset % (uint64_t)(page > 0 ? page : 4096);
    size_t length = (size_t)(page_offset + *size);
    void *map = mmap(NULL, length, PROT_READ, MAP_PRIVATE, c->fd, (off_t)(offset - page_offset));
    if (map == MAP_FAILED)
      return amddwarf__fail(err, AMDDWARF_E_IO, offset, "%s: cannot map %zu bytes at %llu",
                            c->name, *size, (unsigned long long)offset);
    *block = map;
    *block_size = length;
    *mapped = true;
    *data = (const uint8_t *)map + page_offset;
    return AMDDWARF_OK;
  }
  uint8_t *copy = amddwarf__mem_alloc(&c->allocator, *size ? *size : 1);
  if (copy == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                          "code object of %zu bytes", *size);
  memcpy(copy, *data, *size);
  *block = copy;
  *block_size = *size ? *size : 1;
  *data = copy;
  return AMDDWARF_OK;
}
