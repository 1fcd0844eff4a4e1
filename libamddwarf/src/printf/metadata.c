/* The format-string table: amdpal.format_strings read from PAL metadata
 * (debug-printf seed, "ELF extension"), merged over several pipelines.
 *
 * Each input is parsed into a document tree, checked against the key table
 * (metadata_keys.def) and collected into a scratch list; only when the whole
 * input is valid are its strings copied into the table, so a failed add leaves
 * the table unchanged. Ids are looked up through an open-addressing hash. */
#include <stdio.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "printf/printf_internal.h"

typedef enum printf_key_id {
#define AMDDWARF_PRINTF_KEY(id, key, level, type) PRINTF_KEY_##id,
#include "printf/metadata_keys.def"
#undef AMDDWARF_PRINTF_KEY
  PRINTF_KEY_COUNT
} printf_key_id;

typedef enum printf_key_level { PRINTF_LEVEL_ROOT, PRINTF_LEVEL_STRING } printf_key_level;

typedef struct printf_key_desc {
  const char *name;
  printf_key_level level;
  printf_doc_kind type;
} printf_key_desc;

static const printf_key_desc printf_keys[] = {
#define AMDDWARF_PRINTF_KEY(id, key, level, type) {key, PRINTF_LEVEL_##level, PRINTF_DOC_##type},
#include "printf/metadata_keys.def"
#undef AMDDWARF_PRINTF_KEY
};
_Static_assert(sizeof printf_keys / sizeof printf_keys[0] == PRINTF_KEY_COUNT,
               "one descriptor per metadata key");

static const char format_strings_key[] = "amdpal.format_strings";
enum { PRINTF_METADATA_VERSION = 1 };

struct amddwarf_printf_table {
  amddwarf_allocator allocator;
  amddwarf_arena arena;
  printf_record **records; /* insertion order */
  size_t count, capacity;
  printf_record **hash;    /* open addressing, hash_size a power of two */
  size_t hash_size;
  amddwarf_printf_collision **collisions;
  size_t collision_count, collision_capacity;
};

static size_t hash_id(uint64_t id, size_t mask)
{
  id ^= id >> 29;
  id *= UINT64_C(0xbf58476d1ce4e5b9);
  id ^= id >> 32;
  return (size_t)id & mask;
}

amddwarf_status amddwarf_printf_table_new(const amddwarf_allocator *allocator,
                                          amddwarf_printf_table **out, amddwarf_error *err)
{
  amddwarf_allocator resolved = amddwarf__allocator_resolve(allocator);
  amddwarf_printf_table *table = amddwarf__mem_calloc(&resolved, 1, sizeof *table);
  if (!table)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for a printf table");
  table->allocator = resolved;
  amddwarf__arena_init(&table->arena, &resolved);
  *out = table;
  return AMDDWARF_OK;
}

void amddwarf_printf_table_free(amddwarf_printf_table *table)
{
  if (!table)
    return;
  amddwarf_allocator a = table->allocator;
  amddwarf__mem_free(&a, table->records, table->capacity * sizeof *table->records);
  amddwarf__mem_free(&a, table->hash, table->hash_size * sizeof *table->hash);
  amddwarf__mem_free(&a, table->collisions,
                    table->collision_capacity * sizeof *table->collisions);
  amddwarf__arena_release(&table->arena);
  amddwarf__mem_free(&a, table, sizeof *table);
}

size_t amddwarf_printf_table_count(const amddwarf_printf_table *table)
{
  return table ? table->count : 0;
}

const amddwarf_printf_string *amddwarf_printf_table_string(const amddwarf_printf_table *table,
                                                           size_t index)
{
  return table && index < table->count ? &table->records[index]->pub : NULL;
}

static printf_record *table_lookup(const amddwarf_printf_table *table, uint64_t id)
{
  if (!table || table->hash_size == 0)
    return NULL;
  size_t mask = table->hash_size - 1;
  for (size_t slot = hash_id(id, mask);; slot = (slot + 1) & mask) {
    printf_record *record = table->hash[slot];
    if (!record || record->pub.id == id)
      return record;
  }
}

const amddwarf_printf_string *amddwarf_printf_table_find(const amddwarf_printf_table *table,
                                                         uint64_t id)
{
  printf_record *record = table_lookup(table, id);
  return record ? &record->pub : NULL;
}

size_t amddwarf_printf_table_collision_count(const amddwarf_printf_table *table)
{
  return table ? table->collision_count : 0;
}

const amddwarf_printf_collision *
amddwarf_printf_table_collision(const amddwarf_printf_table *table, size_t index)
{
  return table && index < table->collision_count ? table->collisions[index] : NULL;
}

/* ---- Schema walk ---- */

/* A string as read from one input, pointing into the document. */
typedef struct scratch_string {
  uint64_t id;
  const char *format;
  size_t format_length;
  uint32_t argument_count;
  uint64_t *mask64;
  size_t mask_words;
} scratch_string;

/* Gets KEY of MAP (PATH names MAP in messages), checking its type. */
static amddwarf_status schema_get(const printf_doc *map, printf_key_id key, const char *path,
                                  const printf_doc **out, amddwarf_error *err)
{
  const printf_key_desc *desc = &printf_keys[key];
  const printf_doc *value = amddwarf__printf_doc_get(map, desc->name);
  if (!value)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_MISSING_KEY, map->offset,
                         "%s has no %s key", path, desc->name);
  if (value->kind != desc->type)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, value->offset,
                         "%s.%s is a %s, expected a %s", path, desc->name + 1,
                         amddwarf__printf_doc_kind_name(value->kind), amddwarf__printf_doc_kind_name(desc->type));
  *out = value;
  return AMDDWARF_OK;
}

/* Rejects a map that repeats one of the keys of LEVEL (the document would be
   ambiguous). Linear in the map's size: other keys are not compared, so a
   hostile map of many keys costs no more than reading it. */
static amddwarf_status schema_unique_keys(const printf_doc *map, printf_key_level level,
                                          const char *path, amddwarf_error *err)
{
  for (size_t k = 0; k < PRINTF_KEY_COUNT; k++) {
    if (printf_keys[k].level != level)
      continue;
    size_t length = strlen(printf_keys[k].name);
    bool seen = false;
    for (uint32_t i = 0; i < map->count; i++) {
      const printf_doc *key = &map->v.items[2 * i];
      if (key->kind != PRINTF_DOC_STR || key->v.s.length != length ||
          memcmp(key->v.s.ptr, printf_keys[k].name, length) != 0)
        continue;
      if (seen)
        return amddwarf__fail(err, AMDDWARF_E_PRINTF_DUPLICATE_KEY, key->offset,
                             "%s repeats the key \"%s\"", path, printf_keys[k].name);
      seen = true;
    }
  }
  return AMDDWARF_OK;
}

static amddwarf_status schema_string(amddwarf_arena *scratch, const printf_doc *item,
                                     uint32_t index, scratch_string *out, amddwarf_error *err)
{
  char path[64];
  const printf_doc *id, *string, *count, *mask;
  amddwarf_status status;
  snprintf(path, sizeof path, "amdpal.format_strings.strings[%u]", index);
  if (item->kind != PRINTF_DOC_MAP)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, item->offset,
                         "%s is a %s, expected a map", path, amddwarf__printf_doc_kind_name(item->kind));
  if ((status = schema_unique_keys(item, PRINTF_LEVEL_STRING, path, err)) != AMDDWARF_OK ||
      (status = schema_get(item, PRINTF_KEY_INDEX, path, &id, err)) != AMDDWARF_OK ||
      (status = schema_get(item, PRINTF_KEY_STRING, path, &string, err)) != AMDDWARF_OK ||
      (status = schema_get(item, PRINTF_KEY_ARGUMENT_COUNT, path, &count, err)) != AMDDWARF_OK ||
      (status = schema_get(item, PRINTF_KEY_MASK64, path, &mask, err)) != AMDDWARF_OK)
    return status;
  if (id->v.u > AMDDWARF_PRINTF_ID_MAX)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, id->offset,
                         "%s.index 0x%llx does not fit in 48 bits", path,
                         (unsigned long long)id->v.u);
  if (count->v.u > AMDDWARF_PRINTF_MAX_ARGUMENTS)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, count->offset,
                         "%s.argument_count %llu exceeds %u, the most an entry can carry", path,
                         (unsigned long long)count->v.u, AMDDWARF_PRINTF_MAX_ARGUMENTS);
  out->id = id->v.u;
  out->format = string->v.s.ptr;
  out->format_length = string->v.s.length;
  out->argument_count = (uint32_t)count->v.u;
  out->mask_words = mask->count;
  out->mask64 = mask->count ? amddwarf__arena_calloc(scratch, mask->count, sizeof(uint64_t)) : NULL;
  if (mask->count && !out->mask64)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, mask->offset, "no memory for %s", path);
  for (uint32_t w = 0; w < mask->count; w++) {
    const printf_doc *word = &mask->v.items[w];
    if (word->kind != PRINTF_DOC_UINT)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, word->offset,
                           "%s.64bit_arguments[%u] is a %s, expected a unsigned integer", path, w,
                           amddwarf__printf_doc_kind_name(word->kind));
    out->mask64[w] = word->v.u;
  }
  return AMDDWARF_OK;
}

/* Collects the strings of ROOT into *STRINGS. AMDDWARF_NOT_FOUND when ROOT
   has no amdpal.format_strings. */
static amddwarf_status schema_document(amddwarf_arena *scratch, const printf_doc *root,
                                       scratch_string **strings, size_t *count,
                                       amddwarf_error *err)
{
  const printf_doc *map, *version, *list;
  amddwarf_status status;
  if (root->kind != PRINTF_DOC_MAP)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, root->offset,
                         "the metadata document is a %s, expected a map",
                         amddwarf__printf_doc_kind_name(root->kind));
  map = amddwarf__printf_doc_get(root, format_strings_key);
  if (!map) {
    if (!amddwarf__printf_doc_get(root, printf_keys[PRINTF_KEY_STRINGS].name) &&
        !amddwarf__printf_doc_get(root, printf_keys[PRINTF_KEY_VERSION].name))
      return AMDDWARF_NOT_FOUND;
    map = root; /* a standalone amdpal.format_strings map */
  }
  if (map->kind != PRINTF_DOC_MAP)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_WRONG_TYPE, map->offset,
                         "%s is a %s, expected a map", format_strings_key,
                         amddwarf__printf_doc_kind_name(map->kind));
  if ((status = schema_unique_keys(map, PRINTF_LEVEL_ROOT, format_strings_key, err)) !=
          AMDDWARF_OK ||
      (status = schema_get(map, PRINTF_KEY_VERSION, format_strings_key, &version, err)) !=
          AMDDWARF_OK)
    return status;
  if (version->v.u != PRINTF_METADATA_VERSION)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_VERSION, version->offset,
                         "%s.version is %llu; only version %d is supported", format_strings_key,
                         (unsigned long long)version->v.u, PRINTF_METADATA_VERSION);
  if ((status = schema_get(map, PRINTF_KEY_STRINGS, format_strings_key, &list, err)) !=
      AMDDWARF_OK)
    return status;
  *count = list->count;
  *strings = list->count ? amddwarf__arena_calloc(scratch, list->count, sizeof **strings) : NULL;
  if (list->count && !*strings)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, list->offset, "no memory for strings");
  for (uint32_t i = 0; i < list->count; i++)
    if ((status = schema_string(scratch, &list->v.items[i], i, &(*strings)[i], err)) !=
        AMDDWARF_OK)
      return status;
  return AMDDWARF_OK;
}

/* ---- Merging ---- */

static bool same_definition(const printf_record *a, const scratch_string *b)
{
  if (a->pub.format_length != b->format_length || a->pub.argument_count != b->argument_count ||
      memcmp(a->pub.format, b->format, b->format_length) != 0)
    return false;
  for (uint32_t i = 0; i < b->argument_count; i++)
    if (printf_arg_is_64(a->pub.mask64, a->pub.mask_words, i) !=
        printf_arg_is_64(b->mask64, b->mask_words, i))
      return false;
  return true;
}

static amddwarf_status table_grow_hash(amddwarf_printf_table *table, size_t needed)
{
  if (needed * 2 <= table->hash_size)
    return AMDDWARF_OK;
  size_t size = table->hash_size ? table->hash_size : 64;
  while (size < needed * 2)
    size *= 2;
  printf_record **hash = amddwarf__mem_calloc(&table->allocator, size, sizeof *hash);
  if (!hash)
    return AMDDWARF_E_NO_MEMORY;
  for (size_t i = 0; i < table->count; i++) {
    size_t slot = hash_id(table->records[i]->pub.id, size - 1);
    while (hash[slot])
      slot = (slot + 1) & (size - 1);
    hash[slot] = table->records[i];
  }
  amddwarf__mem_free(&table->allocator, table->hash, table->hash_size * sizeof *table->hash);
  table->hash = hash;
  table->hash_size = size;
  return AMDDWARF_OK;
}

static amddwarf_status table_commit(amddwarf_printf_table *table, const scratch_string *strings,
                                    size_t count, const char *origin, amddwarf_error *err)
{
  size_t needed;
  if (amddwarf_add_overflow_size(table->count, count, &needed) ||
      amddwarf__mem_reserve(&table->allocator, (void **)&table->records, &table->capacity, needed,
                           sizeof *table->records) != 0 ||
      table_grow_hash(table, needed) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for %zu more format strings", count);
  const char *origin_copy = amddwarf__arena_strndup(&table->arena, origin, strlen(origin));
  if (!origin_copy)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for a name");
  for (size_t i = 0; i < count; i++) {
    const scratch_string *s = &strings[i];
    printf_record *existing = table_lookup(table, s->id);
    if (existing) {
      if (same_definition(existing, s))
        continue;
      if (amddwarf__mem_reserve(&table->allocator, (void **)&table->collisions,
                               &table->collision_capacity, table->collision_count + 1,
                               sizeof *table->collisions) != 0)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
      amddwarf_printf_collision *c = amddwarf__arena_calloc(&table->arena, 1, sizeof *c);
      char *format = amddwarf__arena_strndup(&table->arena, s->format, s->format_length);
      if (!c || !format)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
      c->id = s->id;
      c->kept = &existing->pub;
      c->other_origin = origin_copy;
      c->other_format = format;
      c->other_argument_count = s->argument_count;
      table->collisions[table->collision_count++] = c;
      continue;
    }
    printf_record *record = amddwarf__arena_calloc(&table->arena, 1, sizeof *record);
    char *format = amddwarf__arena_strndup(&table->arena, s->format, s->format_length);
    uint64_t *mask = s->mask_words ? amddwarf__arena_calloc(&table->arena, s->mask_words,
                                                           sizeof(uint64_t))
                                   : NULL;
    if (!record || !format || (s->mask_words && !mask))
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
    if (s->mask_words)
      memcpy(mask, s->mask64, s->mask_words * sizeof *mask);
    record->pub.id = s->id;
    record->pub.format = format;
    record->pub.format_length = s->format_length;
    record->pub.argument_count = s->argument_count;
    record->pub.mask64 = mask;
    record->pub.mask_words = s->mask_words;
    record->pub.origin = origin_copy;
    record->payload_bytes = amddwarf__printf_layout_bytes(mask, s->mask_words, s->argument_count);
    amddwarf_error compile_error;
    amddwarf_error_clear(&compile_error);
    if (amddwarf__printf_compile(&table->arena, format, s->format_length, &record->compiled,
                       &compile_error) != AMDDWARF_OK) {
      record->compile_error = amddwarf__arena_alloc(&table->arena, sizeof compile_error, 8);
      if (!record->compile_error)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
      *record->compile_error = compile_error;
    }
    size_t slot = hash_id(s->id, table->hash_size - 1);
    while (table->hash[slot])
      slot = (slot + 1) & (table->hash_size - 1);
    table->hash[slot] = record;
    table->records[table->count++] = record;
  }
  return AMDDWARF_OK;
}

/* Adds the document ROOT; the scratch arena holds the document. */
static amddwarf_status table_add_document(amddwarf_printf_table *table, amddwarf_arena *scratch,
                                          const printf_doc *root, const char *origin,
                                          amddwarf_error *err)
{
  scratch_string *strings = NULL;
  size_t count = 0;
  amddwarf_status status = schema_document(scratch, root, &strings, &count, err);
  if (status != AMDDWARF_OK)
    return status;
  return table_commit(table, strings, count, origin, err);
}

static amddwarf_status check_args(amddwarf_printf_table *table, const void *data,
                                  const char *origin, amddwarf_error *err)
{
  if (!table || !data || !origin)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "printf table, data and origin are required");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_printf_table_add_msgpack(amddwarf_printf_table *table, const void *data,
                                                  size_t size, const char *origin,
                                                  amddwarf_error *err)
{
  amddwarf_status status = check_args(table, data, origin, err);
  if (status != AMDDWARF_OK)
    return status;
  amddwarf_arena scratch;
  printf_doc *root = NULL;
  amddwarf__arena_init(&scratch, &table->allocator);
  status = amddwarf__printf_msgpack_parse(&scratch, data, size, 0, &root, err);
  if (status == AMDDWARF_OK)
    status = table_add_document(table, &scratch, root, origin, err);
  amddwarf__arena_release(&scratch);
  return status;
}

amddwarf_status amddwarf_printf_table_add_json(amddwarf_printf_table *table, const char *text,
                                               size_t size, const char *origin,
                                               amddwarf_error *err)
{
  amddwarf_status status = check_args(table, text, origin, err);
  if (status != AMDDWARF_OK)
    return status;
  amddwarf_arena scratch;
  printf_doc *root = NULL;
  amddwarf__arena_init(&scratch, &table->allocator);
  status = amddwarf__printf_json_parse(&scratch, text, size, &root, err);
  if (status == AMDDWARF_OK)
    status = table_add_document(table, &scratch, root, origin, err);
  amddwarf__arena_release(&scratch);
  return status;
}

/* The notes of one ELF are gathered first, so that a bad second note leaves
   the table unchanged. */
typedef struct elf_notes {
  amddwarf_arena *scratch;
  const amddwarf_allocator *allocator;
  scratch_string *strings; /* growable, allocator memory */
  size_t count, capacity;
  bool any;
} elf_notes;

static amddwarf_status collect_note(void *user, const uint8_t *desc, size_t desc_size,
                                    uint64_t desc_offset, amddwarf_error *err)
{
  elf_notes *notes = user;
  printf_doc *root = NULL;
  scratch_string *strings = NULL;
  size_t count = 0, total;
  amddwarf_status status =
      amddwarf__printf_msgpack_parse(notes->scratch, desc, desc_size, desc_offset, &root, err);
  if (status == AMDDWARF_OK)
    status = schema_document(notes->scratch, root, &strings, &count, err);
  if (status == AMDDWARF_NOT_FOUND)
    return AMDDWARF_OK;
  if (status != AMDDWARF_OK)
    return status;
  notes->any = true;
  if (amddwarf_add_overflow_size(notes->count, count, &total) ||
      amddwarf__mem_reserve(notes->allocator, (void **)&notes->strings, &notes->capacity, total,
                           sizeof *notes->strings) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, desc_offset, "no memory for strings");
  if (count)
    memcpy(notes->strings + notes->count, strings, count * sizeof *strings);
  notes->count = total;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_printf_table_add_elf(amddwarf_printf_table *table, const void *data,
                                              size_t size, const char *origin, amddwarf_error *err)
{
  amddwarf_status status = check_args(table, data, origin, err);
  if (status != AMDDWARF_OK)
    return status;
  amddwarf_arena scratch;
  amddwarf__arena_init(&scratch, &table->allocator);
  elf_notes notes = {.scratch = &scratch, .allocator = &table->allocator};
  size_t found = 0;
  status = amddwarf__printf_elf_metadata_notes(data, size, collect_note, &notes, &found, err);
  if (status == AMDDWARF_OK && !notes.any)
    status = AMDDWARF_NOT_FOUND;
  if (status == AMDDWARF_OK)
    status = table_commit(table, notes.strings, notes.count, origin, err);
  amddwarf__mem_free(&table->allocator, notes.strings, notes.capacity * sizeof *notes.strings);
  amddwarf__arena_release(&scratch);
  return status;
}

amddwarf_status amddwarf_printf_table_add(amddwarf_printf_table *table, const void *data,
                                          size_t size, const char *origin, amddwarf_error *err)
{
  const uint8_t *bytes = data;
  size_t i = 0;
  if (bytes && amddwarf__printf_is_elf(bytes, size))
    return amddwarf_printf_table_add_elf(table, data, size, origin, err);
  while (bytes && i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' ||
                               bytes[i] == '\r'))
    i++;
  if (bytes && i < size && bytes[i] == '{')
    return amddwarf_printf_table_add_json(table, data, size, origin, err);
  return amddwarf_printf_table_add_msgpack(table, data, size, origin, err);
}
