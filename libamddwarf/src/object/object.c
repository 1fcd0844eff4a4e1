/* Code objects: opening, closing and the accessors of an opened object. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/mem.h"
#include "object/internal.h"

#define AMDDWARF_MAX_FILE_SIZE ((uint64_t)1 << 34)

void amddwarf_object_options_init(amddwarf_object_options *options)
{
  if (options == NULL)
    return;
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->convention = AMDDWARF_CONVENTION_AUTO;
  options->dialect = AMDDWARF_DIALECT_AUTO;
}

void amddwarf_object_close(amddwarf_object *object)
{
  if (object == NULL)
    return;
  amddwarf_allocator a = object->allocator;
  /* The memos first: what their owners hung on them may point into the
     rest. */
  amddwarf__object_free_memos(object);
  amddwarf__object_free_lines(object);
  amddwarf__object_free_cfi(object);
  amddwarf__object_finish_dwarf(object);
  amddwarf__object_free_abbrevs(object);
  amddwarf__object_free_unknown(object);
  amddwarf__object_free_names(object);
  for (size_t i = 0; i < object->section_count && object->sections != NULL; ++i)
    if (object->sections[i].owned != NULL)
      amddwarf__mem_free(&a, object->sections[i].owned, (size_t)object->sections[i].size);
  if (object->lock_ready)
    pthread_mutex_destroy(&object->load_lock);
  amddwarf__arena_release(&object->arena);
  amddwarf__mem_free(&a, object->owned_block, object->owned_block_size);
  if (object->mapped_data != NULL)
    munmap(object->mapped_data, object->mapped_size);
  amddwarf__mem_free(&a, object, sizeof *object);
}

amddwarf_status amddwarf_object_open_memory(const void *data, size_t size,
                                            const amddwarf_object_options *options,
                                            amddwarf_object **out, amddwarf_error *err)
{
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  if (out == NULL || (data == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_open_memory: NULL argument");
  *out = NULL;
  if (options != NULL) {
    if (options->struct_size < sizeof(uint32_t) || options->struct_size > sizeof opts)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "amddwarf_object_options.struct_size %u is not one this library "
                           "knows (%zu)",
                           options->struct_size, sizeof opts);
    memcpy(&opts, options, options->struct_size);
    opts.struct_size = sizeof opts;
    if ((unsigned)opts.convention >= AMDDWARF_CONVENTION_COUNT ||
        (unsigned)opts.dialect >= AMDDWARF_DIALECT_COUNT)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "amddwarf_object_options: convention %d or dialect %d out of range",
                           (int)opts.convention, (int)opts.dialect);
  }
  amddwarf_allocator a = amddwarf__allocator_resolve(opts.allocator);
  amddwarf_object *object = amddwarf__mem_calloc(&a, 1, sizeof *object);
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "object handle");
  object->allocator = a;
  object->options = opts;
  object->options.allocator = NULL;
  amddwarf__arena_init(&object->arena, &object->allocator);
  object->data = data;
  object->size = size;
  amddwarf_status st = AMDDWARF_OK;
  /* Recursive: loading a unit may need another unit's scan, or the
     metadata, while the lock is held. */
  pthread_mutexattr_t lock_kind;
  if (pthread_mutexattr_init(&lock_kind) != 0 ||
      pthread_mutexattr_settype(&lock_kind, PTHREAD_MUTEX_RECURSIVE) != 0 ||
      pthread_mutex_init(&object->load_lock, &lock_kind) != 0)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "object lock");
  pthread_mutexattr_destroy(&lock_kind);
  object->lock_ready = st == AMDDWARF_OK;
  if (st == AMDDWARF_OK)
    st = amddwarf__object_read_elf(object, err);
  if (st == AMDDWARF_OK)
    st = amddwarf__object_scan_dwarf(object, err);
  if (st == AMDDWARF_OK && (opts.flags & AMDDWARF_OBJECT_LOAD_ALL))
    st = amddwarf_object_load_metadata(object, err);
  if (st == AMDDWARF_OK && (opts.flags & AMDDWARF_OBJECT_LOAD_ALL))
    st = amddwarf_object_load_all(object, err);
  if (st != AMDDWARF_OK) {
    amddwarf_object_close(object);
    return st;
  }
  *out = object;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_open_file(const char *path, const amddwarf_object_options *options,
                                          amddwarf_object **out, amddwarf_error *err)
{
  amddwarf_object_options opts;
  amddwarf_object_options_init(&opts);
  if (path == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_open_file: NULL argument");
  if (options != NULL && options->struct_size >= sizeof(uint32_t) + sizeof(void *) &&
      options->struct_size <= sizeof opts)
    memcpy(&opts, options, options->struct_size);
  /* A regular file is mapped: its pages are read when a query touches them,
     so one question about a large object keeps little of it resident. */
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: cannot open", path);
  struct stat st_file;
  if (fstat(fd, &st_file) != 0 || !S_ISREG(st_file.st_mode) || st_file.st_size < 0 ||
      (uint64_t)st_file.st_size > AMDDWARF_MAX_FILE_SIZE) {
    close(fd);
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET,
                         "%s: not a regular file, or larger than 16 GiB", path);
  }
  size_t length = (size_t)st_file.st_size;
  void *map = length > 0 ? mmap(NULL, length, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
  close(fd);
  if (map == MAP_FAILED)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: cannot map %zu bytes",
                         path, length);
  amddwarf_status st = amddwarf_object_open_memory(map, length, options, out, err);
  if (st != AMDDWARF_OK) {
    if (map != NULL)
      munmap(map, length);
    return st;
  }
  (*out)->mapped_data = map;
  (*out)->mapped_size = length;
  return AMDDWARF_OK;
}

const amddwarf_object_info *amddwarf_object_get_info(const amddwarf_object *object)
{
  if (object == NULL)
    return NULL;
  amddwarf__object_ensure_elf_tables(object, NULL); /* the kernels' wave size */
  return &object->info;
}

size_t amddwarf_object_kernel_count(const amddwarf_object *object)
{
  if (object == NULL || amddwarf__object_ensure_elf_tables(object, NULL) != AMDDWARF_OK)
    return 0;
  return object->kernel_count;
}

const amddwarf_kernel *amddwarf_object_kernel(const amddwarf_object *object, size_t index)
{
  return index < amddwarf_object_kernel_count(object) ? &object->kernels[index] : NULL;
}

size_t amddwarf_object_symbol_count(const amddwarf_object *object)
{
  if (object == NULL || amddwarf__object_ensure_symbols(object, NULL) != AMDDWARF_OK)
    return 0;
  return object->symbol_count;
}

const amddwarf_symbol *amddwarf_object_symbol(const amddwarf_object *object, size_t index)
{
  return index < amddwarf_object_symbol_count(object) ? &object->symbols[index] : NULL;
}

size_t amddwarf_object_cu_count(const amddwarf_object *object)
{
  return object ? object->cu_count : 0;
}

const amddwarf_cu *amddwarf_object_cu(const amddwarf_object *object, size_t index)
{
  if (object == NULL || index >= object->cu_count)
    return NULL;
  amddwarf__object_ensure_scanned(object, index); /* its DIE count and convention */
  return &object->cus[index];
}

size_t amddwarf_object_memory_used(const amddwarf_object *object)
{
  if (object == NULL)
    return 0;
  size_t lines = amddwarf__object_line_bytes(object), scopes = 0;
  for (size_t i = 0; i < object->cu_count; ++i) {
    scopes += object->units[i].scope_capacity * sizeof(amddwarf_scope_entry);
  }
  return object->arena.bytes_reserved + object->owned_bytes + object->loaded_die_bytes +
         object->indexed_die_bytes + lines +
         object->cu_capacity * (sizeof(amddwarf_cu) + sizeof(amddwarf_unit)) +
         scopes +
         object->abbrev_table_capacity * sizeof *object->abbrev_tables +
         object->constant_capacity * sizeof *object->constants +
         object->unknown_reloc_capacity * sizeof *object->unknown_relocs +
         object->unresolved_capacity * sizeof *object->unresolved +
         atomic_load_explicit(&object->memo_bytes, memory_order_relaxed) + sizeof *object;
}

const uint8_t *amddwarf_object_image(const amddwarf_object *object, size_t *size)
{
  *size = object->size;
  return object->data;
}
