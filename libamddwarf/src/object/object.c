/* Code objects: opening, closing and the accessors of an opened object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  amddwarf__object_free_lines(object);
  amddwarf__object_free_cfi(object);
  amddwarf__object_finish_dwarf(object);
  amddwarf__object_free_abbrevs(object);
  amddwarf__object_free_unknown(object);
  for (size_t i = 0; i < object->section_count && object->sections != NULL; ++i)
    if (object->sections[i].owned != NULL)
      amddwarf__mem_free(&a, object->sections[i].owned, (size_t)object->sections[i].size);
  amddwarf__mem_free(&a, object->scopes, object->scope_capacity * sizeof *object->scopes);
  if (object->lock_ready)
    pthread_mutex_destroy(&object->load_lock);
  amddwarf__arena_release(&object->arena);
  amddwarf__mem_free(&a, object->owned_data, object->size);
  amddwarf__mem_free(&a, object->owned_block, object->owned_block_size);
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
  if (pthread_mutex_init(&object->load_lock, NULL) != 0)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "object lock");
  object->lock_ready = st == AMDDWARF_OK;
  if (st == AMDDWARF_OK)
    st = amddwarf__object_read_elf(object, err);
  if (st == AMDDWARF_OK)
    st = amddwarf__object_scan_dwarf(object, err);
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
  amddwarf_allocator a = amddwarf__allocator_resolve(opts.allocator);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: cannot open", path);
  uint8_t *buf = NULL;
  long length = -1;
  if (fseek(f, 0, SEEK_END) == 0)
    length = ftell(f);
  if (length < 0 || (uint64_t)length > AMDDWARF_MAX_FILE_SIZE || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET,
                         "%s: cannot determine the size (or larger than 16 GiB)", path);
  }
  buf = amddwarf__mem_alloc(&a, length > 0 ? (size_t)length : 1);
  if (buf == NULL) {
    fclose(f);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "%s: %ld bytes", path,
                         length);
  }
  size_t got = length > 0 ? fread(buf, 1, (size_t)length, f) : 0;
  fclose(f);
  if (got != (size_t)length) {
    amddwarf__mem_free(&a, buf, length > 0 ? (size_t)length : 1);
    return amddwarf__fail(err, AMDDWARF_E_IO, AMDDWARF_NO_OFFSET, "%s: short read", path);
  }
  amddwarf_status st = amddwarf_object_open_memory(buf, (size_t)length, options, out, err);
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(&a, buf, length > 0 ? (size_t)length : 1);
    return st;
  }
  (*out)->owned_data = buf;
  return AMDDWARF_OK;
}

const amddwarf_object_info *amddwarf_object_get_info(const amddwarf_object *object)
{
  return object ? &object->info : NULL;
}

size_t amddwarf_object_kernel_count(const amddwarf_object *object)
{
  return object ? object->kernel_count : 0;
}

const amddwarf_kernel *amddwarf_object_kernel(const amddwarf_object *object, size_t index)
{
  return object && index < object->kernel_count ? &object->kernels[index] : NULL;
}

size_t amddwarf_object_symbol_count(const amddwarf_object *object)
{
  return object ? object->symbol_count : 0;
}

const amddwarf_symbol *amddwarf_object_symbol(const amddwarf_object *object, size_t index)
{
  return object && index < object->symbol_count ? &object->symbols[index] : NULL;
}

size_t amddwarf_object_cu_count(const amddwarf_object *object)
{
  return object ? object->cu_count : 0;
}

const amddwarf_cu *amddwarf_object_cu(const amddwarf_object *object, size_t index)
{
  return object && index < object->cu_count ? &object->cus[index] : NULL;
}

size_t amddwarf_object_memory_used(const amddwarf_object *object)
{
  if (object == NULL)
    return 0;
  size_t lines = 0;
  for (size_t i = 0; i < object->cu_count; ++i)
    lines += object->units[i].lines.row_count * sizeof(amddwarf_line_row);
  return object->arena.bytes_reserved + object->owned_bytes + object->loaded_die_bytes +
         object->indexed_die_bytes + lines +
         object->cu_capacity * (sizeof(amddwarf_cu) + sizeof(amddwarf_unit)) +
         object->scope_capacity * sizeof *object->scopes +
         object->abbrev_table_capacity * sizeof *object->abbrev_tables +
         object->unit_map_capacity * sizeof *object->unit_map +
         object->constant_capacity * sizeof *object->constants +
         object->unknown_reloc_capacity * sizeof *object->unknown_relocs +
         object->unresolved_capacity * sizeof *object->unresolved + sizeof *object;
}

const uint8_t *amddwarf_object_image(const amddwarf_object *object, size_t *size)
{
  *size = object->size;
  return object->data;
}
