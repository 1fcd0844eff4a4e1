/* amddwarf_printf_build_json: PAL metadata, an ELF carrying it, and a printf
 * buffer, from the JSON description specified in specs/printf.md. Tests and
 * users describe what a shader would have written; nobody writes bytes by
 * hand. Errors name the JSON path of the bad item ("buffer.entries[3].args[1]"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/arena.h"
#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"
#include "printf/build_internal.h"
#include "printf/printf_internal.h"

typedef struct arg_kind_desc {
  const char *name;
  amddwarf_printf_arg_kind kind;
  unsigned bits;
  bool is_float;
} arg_kind_desc;

static const arg_kind_desc arg_kinds[] = {
    {"i8", AMDDWARF_PRINTF_ARG_I8, 8, false},    {"u8", AMDDWARF_PRINTF_ARG_I8, 8, false},
    {"i16", AMDDWARF_PRINTF_ARG_I16, 16, false}, {"u16", AMDDWARF_PRINTF_ARG_I16, 16, false},
    {"i32", AMDDWARF_PRINTF_ARG_I32, 32, false}, {"u32", AMDDWARF_PRINTF_ARG_I32, 32, false},
    {"i64", AMDDWARF_PRINTF_ARG_I64, 64, false}, {"u64", AMDDWARF_PRINTF_ARG_I64, 64, false},
    {"f16", AMDDWARF_PRINTF_ARG_F16, 16, true},  {"f32", AMDDWARF_PRINTF_ARG_F32, 32, true},
    {"f64", AMDDWARF_PRINTF_ARG_F64, 64, true},
};

/* Finds a kind by name; NAME may carry a vector suffix "x2".."x4" (when
   VECTOR is not NULL). */
static const arg_kind_desc *find_kind(const char *name, unsigned *vector)
{
  char base[8];
  size_t length = strlen(name);
  if (vector)
    *vector = 1;
  if (vector && length >= 3 && name[length - 2] == 'x' && name[length - 1] >= '2' &&
      name[length - 1] <= '4' && length - 2 < sizeof base) {
    *vector = (unsigned)(name[length - 1] - '0');
    memcpy(base, name, length - 2);
    base[length - 2] = '\0';
    name = base;
  }
  for (size_t i = 0; i < sizeof arg_kinds / sizeof arg_kinds[0]; i++)
    if (strcmp(arg_kinds[i].name, name) == 0)
      return &arg_kinds[i];
  return NULL;
}

static uint16_t float_to_half(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exponent = (int32_t)((x >> 23) & 0xff);
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff)
    return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0));
  int32_t e = exponent - 127 + 15;
  if (e >= 0x1f)
    return (uint16_t)(sign | 0x7c00u);
  uint32_t half, rest, halfway;
  if (e <= 0) {
    if (e < -10)
      return (uint16_t)sign;
    mantissa |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    half = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    half = ((uint32_t)e << 10) | (mantissa >> 13);
    rest = mantissa & 0x1fffu;
    halfway = 0x1000u;
  }
  if (rest > halfway || (rest == halfway && (half & 1)))
    half++; /* a carry into the exponent is the correct rounding */
  return (uint16_t)(sign | half);
}

typedef struct builder {
  amddwarf_error *err;
  json_t *strings; /* the description's "strings", NULL when it has none */
  char path[128];
} builder;

static amddwarf_status bad(builder *b, const char *what)
{
  return amddwarf__fail(b->err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET, "%s: %s", b->path, what);
}

/* An integer in [0, MAX] at the current path (common/json_int.h). */
static amddwarf_status json_uint(builder *b, json_t *value, uint64_t max, uint64_t *out)
{
  return amddwarf__json_uint(value, max, b->path, AMDDWARF_E_BAD_JSON, b->err, out);
}

/* The bit pattern of VALUE as an argument of KIND. */
static amddwarf_status arg_bits(builder *b, const arg_kind_desc *kind, json_t *value,
                                uint64_t *bits)
{
  if (json_is_string(value) && kind->is_float) {
    const char *text = json_string_value(value);
    double special = strcmp(text, "nan") == 0    ? NAN
                     : strcmp(text, "inf") == 0  ? INFINITY
                     : strcmp(text, "-inf") == 0 ? -INFINITY
                                                 : 0.0;
    if (strcmp(text, "nan") != 0 && strcmp(text, "inf") != 0 && strcmp(text, "-inf") != 0)
      return json_uint(b, value, UINT64_MAX >> (64 - kind->bits), bits); /* a bit pattern */
    if (kind->bits == 64) {
      memcpy(bits, &special, sizeof special);
    } else {
      float f = (float)special;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      *bits = kind->bits == 16 ? float_to_half(f) : u;
    }
    return AMDDWARF_OK;
  }
  if (kind->is_float) {
    if (!json_is_number(value))
      return bad(b, "expected a number, \"nan\", \"inf\", \"-inf\" or a bit pattern string");
    double d = json_number_value(value);
    if (kind->bits == 64) {
      memcpy(bits, &d, sizeof d);
    } else {
      float f = (float)d;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      *bits = kind->bits == 16 ? float_to_half(f) : u;
    }
    return AMDDWARF_OK;
  }
  /* Either reading of the kind's bits: an i8 may be -128 or 255. */
  return amddwarf__json_bits(value, kind->bits, b->path, AMDDWARF_E_BAD_JSON, b->err, bits);
}

/* Appends one argument {"kind": value-or-array} to DWORDS. */
static amddwarf_status build_arg(builder *b, json_t *arg, printf_bytes *dwords)
{
  const char *key;
  json_t *value;
  if (!json_is_object(arg) || json_object_size(arg) != 1)
    return bad(b, "an argument is an object with one member, {\"i32\": 5}");
  json_object_foreach(arg, key, value) {
    const arg_kind_desc *kind = find_kind(key, NULL);
    if (!kind)
      return bad(b, "unknown argument kind (i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64)");
    size_t components = json_is_array(value) ? json_array_size(value) : 1;
    if (json_is_array(value) && (components < 2 || components > 4))
      return bad(b, "a vector argument has 2 to 4 components");
    for (size_t i = 0; i < components; i++) {
      uint64_t bits;
      uint32_t packed[2];
      unsigned count;
      amddwarf_status status =
          arg_bits(b, kind, json_is_array(value) ? json_array_get(value, i) : value, &bits);
      if (status != AMDDWARF_OK)
        return status;
      (void)amddwarf_printf_pack(kind->kind, bits, packed, &count);
      for (unsigned k = 0; k < count; k++)
        if (amddwarf__printf_bytes_le(dwords, packed[k], 4) != AMDDWARF_OK)
          return amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
    }
  }
  return AMDDWARF_OK;
}

/* Arguments in a list of kinds, read one at a time: a string's "args"
   ("f32x3" is three) or an entry's ({"f32": [1, 2, 3]} is three). The lists
   have been checked when the cursor walks them. */
typedef struct kind_cursor {
  json_t *list;
  int entry; /* the list is an entry's */
  size_t item;
  unsigned component;
} kind_cursor;

/* The next argument's kind, or NULL at the end of the list. */
static const arg_kind_desc *next_kind(kind_cursor *c)
{
  while (c->item < json_array_size(c->list)) {
    json_t *item = json_array_get(c->list, c->item);
    const arg_kind_desc *kind;
    unsigned components;
    if (c->entry) {
      json_t *value = json_object_iter_value(json_object_iter(item));
      kind = find_kind(json_object_iter_key(json_object_iter(item)), NULL);
      components = json_is_array(value) ? (unsigned)json_array_size(value) : 1;
    } else {
      kind = find_kind(json_string_value(item), &components);
    }
    if (c->component < components) {
      c->component++;
      return kind;
    }
    c->item++;
    c->component = 0;
  }
  return NULL;
}

/* The "strings" member with ID; NULL when none has it. */
static json_t *described_string(const builder *b, uint64_t id)
{
  size_t i;
  json_t *desc;
  json_array_foreach(b->strings, i, desc)
  {
    uint64_t other;
    if (amddwarf__json_uint(json_object_get(desc, "id"), AMDDWARF_PRINTF_ID_MAX, "", 0, NULL,
                           &other) == AMDDWARF_OK &&
        other == id)
      return desc;
  }
  return NULL;
}

/* An entry's ARGS against the arguments its string declares with "args":
   the same number, each of the same width. */
static amddwarf_status check_entry_args(builder *b, json_t *args, json_t *desc, uint64_t id)
{
  kind_cursor want = {json_object_get(desc, "args"), 0, 0, 0};
  kind_cursor got = {args, 1, 0, 0};
  size_t index = 0, wanted = 0, given = 0;
  const arg_kind_desc *w, *g;
  for (;; index++) {
    w = next_kind(&want);
    g = next_kind(&got);
    if (!w || !g)
      break;
    if ((w->bits == 64) != (g->bits == 64))
      return amddwarf__fail(b->err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET,
                           "%s: argument %zu is %s, the string with id 0x%llx declares %s", b->path,
                           index, g->bits == 64 ? "64-bit" : "32-bit", (unsigned long long)id,
                           w->bits == 64 ? "a 64-bit one" : "a 32-bit one");
  }
  for (wanted = given = index; w; w = next_kind(&want))
    wanted++;
  for (; g; g = next_kind(&got))
    given++;
  if (wanted != given)
    return amddwarf__fail(b->err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET,
                         "%s: the entry has %zu argument%s, the string with id 0x%llx takes %zu",
                         b->path, given, given == 1 ? "" : "s", (unsigned long long)id, wanted);
  return AMDDWARF_OK;
}

static amddwarf_status build_entry(builder *b, json_t *entry, printf_bytes *out,
                                   const amddwarf_allocator *allocator)
{
  amddwarf_status status = AMDDWARF_OK;
  printf_bytes payload = {.allocator = *allocator};
  size_t path_length = strlen(b->path);
  json_t *raw = json_object_get(entry, "raw");
  if (!json_is_object(entry))
    return bad(b, "an entry is an object");
  if (raw) {
    if (!json_is_array(raw))
      return bad(b, "raw is an array of dwords");
    for (size_t i = 0; i < json_array_size(raw) && status == AMDDWARF_OK; i++) {
      uint64_t dword;
      snprintf(b->path + path_length, sizeof b->path - path_length, ".raw[%zu]", i);
      status = json_uint(b, json_array_get(raw, i), UINT32_MAX, &dword);
      if (status == AMDDWARF_OK && amddwarf__printf_bytes_le(out, dword, 4) != AMDDWARF_OK)
        status = amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
    }
    return status;
  }
  uint64_t id = 0, size = 0, pad = 0;
  json_t *args = json_object_get(entry, "args");
  snprintf(b->path + path_length, sizeof b->path - path_length, ".id");
  if ((status = json_uint(b, json_object_get(entry, "id"), AMDDWARF_PRINTF_ID_MAX, &id)) !=
      AMDDWARF_OK)
    goto done;
  /* With the strings in the same description, an entry must match one; a
     buffer described alone may hold anything (bad entries are described so). */
  json_t *string = b->strings ? described_string(b, id) : NULL;
  if (b->strings && !string) {
    status = amddwarf__fail(b->err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET,
                           "%s: no member of \"strings\" has the id 0x%llx", b->path,
                           (unsigned long long)id);
    goto done;
  }
  if (args && !json_is_array(args)) {
    snprintf(b->path + path_length, sizeof b->path - path_length, ".args");
    status = bad(b, "args is an array");
    goto done;
  }
  for (size_t i = 0; args && i < json_array_size(args); i++) {
    snprintf(b->path + path_length, sizeof b->path - path_length, ".args[%zu]", i);
    if ((status = build_arg(b, json_array_get(args, i), &payload)) != AMDDWARF_OK)
      goto done;
  }
  /* "size" describes a bad entry on purpose; so does a string given by its
     argument_count. */
  snprintf(b->path + path_length, sizeof b->path - path_length, ".args");
  if (string && json_object_get(string, "args") && !json_object_get(entry, "size")) {
    json_t *none = json_array();
    status = check_entry_args(b, args ? args : none, string, id);
    json_decref(none);
    if (status != AMDDWARF_OK)
      goto done;
  }
  snprintf(b->path + path_length, sizeof b->path - path_length, ".pad");
  if (json_object_get(entry, "pad") &&
      (status = json_uint(b, json_object_get(entry, "pad"), AMDDWARF_PRINTF_MAX_ENTRY_DWORDS,
                          &pad)) != AMDDWARF_OK)
    goto done;
  if (amddwarf__printf_bytes_zeros(&payload, (size_t)pad * 4) != AMDDWARF_OK) {
    status = amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
    goto done;
  }
  size = 2 + payload.size / 4;
  snprintf(b->path + path_length, sizeof b->path - path_length, ".size");
  if (json_object_get(entry, "size")) {
    if ((status = json_uint(b, json_object_get(entry, "size"), AMDDWARF_PRINTF_MAX_ENTRY_DWORDS,
                            &size)) != AMDDWARF_OK)
      goto done;
  } else if (size > AMDDWARF_PRINTF_MAX_ENTRY_DWORDS) {
    status = bad(b, "the entry's payload exceeds 65533 dwords");
    goto done;
  }
  if (amddwarf__printf_bytes_le(out, size | id << 16, 8) != AMDDWARF_OK ||
      amddwarf__printf_bytes_append(out, payload.data, payload.size) != AMDDWARF_OK)
    status = amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
done:
  amddwarf__printf_bytes_release(&payload);
  b->path[path_length] = '\0';
  return status;
}

static amddwarf_status build_buffer(builder *b, json_t *desc, const amddwarf_allocator *allocator,
                                    amddwarf_printf_build_output *out)
{
  amddwarf_status status = AMDDWARF_OK;
  printf_bytes data = {.allocator = *allocator};
  printf_bytes buffer = {.allocator = *allocator};
  json_t *entries = json_object_get(desc, "entries");
  snprintf(b->path, sizeof b->path, "buffer");
  if (!json_is_object(desc))
    return bad(b, "buffer is an object");
  if (entries && !json_is_array(entries))
    return bad(b, "buffer.entries is an array");
  for (size_t i = 0; entries && i < json_array_size(entries) && status == AMDDWARF_OK; i++) {
    snprintf(b->path, sizeof b->path, "buffer.entries[%zu]", i);
    status = build_entry(b, json_array_get(entries, i), &data, allocator);
  }
  uint64_t offset = data.size / 4, capacity = data.size, reserved[2] = {0, 0};
  json_t *value;
  if (status == AMDDWARF_OK && (value = json_object_get(desc, "buffer_offset"))) {
    snprintf(b->path, sizeof b->path, "buffer.buffer_offset");
    status = json_uint(b, value, UINT64_MAX, &offset);
  }
  if (status == AMDDWARF_OK && (value = json_object_get(desc, "capacity"))) {
    snprintf(b->path, sizeof b->path, "buffer.capacity");
    status = json_uint(b, value, UINT64_C(1) << 30, &capacity);
    if (status == AMDDWARF_OK && capacity < data.size)
      status = bad(b, "capacity must hold the entries");
  }
  if (status == AMDDWARF_OK && (value = json_object_get(desc, "reserved"))) {
    snprintf(b->path, sizeof b->path, "buffer.reserved");
    if (!json_is_array(value) || json_array_size(value) != 2)
      status = bad(b, "reserved is an array of two dwords");
    for (size_t i = 0; i < 2 && status == AMDDWARF_OK; i++)
      status = json_uint(b, json_array_get(value, i), UINT32_MAX, &reserved[i]);
  }
  if (status == AMDDWARF_OK &&
      (amddwarf__printf_bytes_le(&buffer, offset, 8) != AMDDWARF_OK ||
       amddwarf__printf_bytes_le(&buffer, reserved[0], 4) != AMDDWARF_OK ||
       amddwarf__printf_bytes_le(&buffer, reserved[1], 4) != AMDDWARF_OK ||
       amddwarf__printf_bytes_append(&buffer, data.data, data.size) != AMDDWARF_OK ||
       amddwarf__printf_bytes_zeros(&buffer, (size_t)(capacity - data.size)) != AMDDWARF_OK ||
       amddwarf__printf_bytes_take(&buffer, &out->buffer, &out->buffer_size) != AMDDWARF_OK))
    status = amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                           "no memory for the buffer");
  amddwarf__printf_bytes_release(&data);
  amddwarf__printf_bytes_release(&buffer);
  return status;
}

/* A string described with "args" is one the renderer accepts, consuming
   exactly those arguments (bad metadata is described with argument_count). */
static amddwarf_status check_format(builder *b, const amddwarf_printf_string *s, uint64_t count,
                                    const amddwarf_allocator *allocator, size_t path_length)
{
  amddwarf_arena arena;
  amddwarf_error why;
  printf_compiled compiled;
  amddwarf_error_clear(&why);
  amddwarf__arena_init(&arena, allocator);
  amddwarf_status status = amddwarf__printf_compile(&arena, s->format, s->format_length, &compiled, &why);
  amddwarf__arena_release(&arena);
  snprintf(b->path + path_length, sizeof b->path - path_length, ".format");
  if (status == AMDDWARF_E_NO_MEMORY)
    return amddwarf__fail(b->err, status, AMDDWARF_NO_OFFSET, "no memory");
  if (status != AMDDWARF_OK)
    return bad(b, why.message);
  if (compiled.arguments != count)
    return amddwarf__fail(b->err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET,
                         "%s: the format consumes %u arguments, args lists %llu", b->path,
                         compiled.arguments, (unsigned long long)count);
  snprintf(b->path + path_length, sizeof b->path - path_length, ".args");
  return AMDDWARF_OK;
}

/* Reads one string description into S; MASK has room for the words. */
static amddwarf_status build_string(builder *b, json_t *desc, amddwarf_printf_string *s,
                                    uint64_t **mask, const amddwarf_allocator *allocator)
{
  amddwarf_status status;
  size_t path_length = strlen(b->path);
  json_t *args = json_object_get(desc, "args");
  json_t *format = json_object_get(desc, "format");
  if (!json_is_object(desc))
    return bad(b, "a string is an object");
  snprintf(b->path + path_length, sizeof b->path - path_length, ".id");
  if ((status = json_uint(b, json_object_get(desc, "id"), AMDDWARF_PRINTF_ID_MAX, &s->id)) !=
      AMDDWARF_OK)
    return status;
  snprintf(b->path + path_length, sizeof b->path - path_length, ".format");
  if (!json_is_string(format))
    return bad(b, "format is a string");
  s->format = json_string_value(format);
  s->format_length = json_string_length(format);
  uint64_t count = 0;
  size_t words = 1;
  snprintf(b->path + path_length, sizeof b->path - path_length, ".args");
  if (args) {
    if (!json_is_array(args))
      return bad(b, "args is an array of kind names (\"i32\", \"f32x3\", ...)");
    for (size_t i = 0; i < json_array_size(args); i++) {
      unsigned vector;
      const arg_kind_desc *kind = json_is_string(json_array_get(args, i))
                                      ? find_kind(json_string_value(json_array_get(args, i)),
                                                  &vector)
                                      : NULL;
      if (!kind)
        return bad(b, "unknown argument kind name");
      count += vector;
    }
    if (count > AMDDWARF_PRINTF_MAX_ARGUMENTS)
      return bad(b, "too many arguments");
    if ((status = check_format(b, s, count, allocator, path_length)) != AMDDWARF_OK)
      return status;
    words = (size_t)(count + 63) / 64;
  } else {
    json_t *mask_json = json_object_get(desc, "64bit_arguments");
    snprintf(b->path + path_length, sizeof b->path - path_length, ".argument_count");
    if ((status = json_uint(b, json_object_get(desc, "argument_count"), UINT32_MAX, &count)) !=
        AMDDWARF_OK)
      return status;
    snprintf(b->path + path_length, sizeof b->path - path_length, ".64bit_arguments");
    if (!json_is_array(mask_json))
      return bad(b, "without args, argument_count and 64bit_arguments are required");
    words = json_array_size(mask_json);
  }
  *mask = amddwarf__mem_calloc(allocator, words ? words : 1, sizeof(uint64_t));
  if (!*mask)
    return amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
  if (args) {
    uint32_t index = 0;
    for (size_t i = 0; i < json_array_size(args); i++) {
      unsigned vector;
      const arg_kind_desc *kind = find_kind(json_string_value(json_array_get(args, i)), &vector);
      for (unsigned k = 0; k < vector; k++, index++)
        if (kind->bits == 64)
          (*mask)[index / 64] |= UINT64_C(1) << (index % 64);
    }
  } else {
    json_t *mask_json = json_object_get(desc, "64bit_arguments");
    for (size_t w = 0; w < words; w++) {
      snprintf(b->path + path_length, sizeof b->path - path_length, ".64bit_arguments[%zu]", w);
      if ((status = json_uint(b, json_array_get(mask_json, w), UINT64_MAX, &(*mask)[w])) !=
          AMDDWARF_OK)
        return status;
    }
  }
  s->argument_count = (uint32_t)count;
  s->mask64 = *mask;
  s->mask_words = words;
  b->path[path_length] = '\0';
  return AMDDWARF_OK;
}

static amddwarf_status build_metadata(builder *b, json_t *list, const amddwarf_allocator *allocator,
                                      amddwarf_printf_build_output *out)
{
  amddwarf_status status = AMDDWARF_OK;
  snprintf(b->path, sizeof b->path, "strings");
  if (!json_is_array(list))
    return bad(b, "strings is an array");
  size_t count = json_array_size(list);
  amddwarf_printf_string *strings = amddwarf__mem_calloc(allocator, count ? count : 1,
                                                        sizeof *strings);
  uint64_t **masks = amddwarf__mem_calloc(allocator, count ? count : 1, sizeof *masks);
  if (!strings || !masks)
    status = amddwarf__fail(b->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory");
  for (size_t i = 0; i < count && status == AMDDWARF_OK; i++) {
    snprintf(b->path, sizeof b->path, "strings[%zu]", i);
    status = build_string(b, json_array_get(list, i), &strings[i], &masks[i], allocator);
  }
  if (status == AMDDWARF_OK)
    status = amddwarf_printf_metadata_encode(strings, count, allocator, &out->metadata,
                                             &out->metadata_size, b->err);
  if (status == AMDDWARF_OK)
    status = amddwarf_printf_elf_encode(out->metadata, out->metadata_size, allocator, &out->elf,
                                        &out->elf_size, b->err);
  for (size_t i = 0; masks && i < count; i++)
    if (masks[i])
      amddwarf__mem_free(allocator, masks[i],
                        (strings[i].mask_words ? strings[i].mask_words : 1) * sizeof(uint64_t));
  amddwarf__mem_free(allocator, masks, (count ? count : 1) * sizeof *masks);
  amddwarf__mem_free(allocator, strings, (count ? count : 1) * sizeof *strings);
  return status;
}

amddwarf_status amddwarf_printf_build_json(const char *text, size_t size,
                                           const amddwarf_allocator *allocator,
                                           amddwarf_printf_build_output *out, amddwarf_error *err)
{
  if (!text || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "description and output are required");
  memset(out, 0, sizeof *out);
  out->allocator = amddwarf__allocator_resolve(allocator);
  json_error_t json_error;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &json_error);
  if (!root)
    return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)json_error.position,
                         "description line %d column %d: %s", json_error.line,
                         json_error.column, json_error.text);
  builder b = {.err = err};
  if (json_is_object(root) && json_is_array(json_object_get(root, "strings")))
    b.strings = json_object_get(root, "strings");
  amddwarf_status status = AMDDWARF_OK;
  if (!json_is_object(root)) {
    snprintf(b.path, sizeof b.path, "(root)");
    status = bad(&b, "the description is an object with \"strings\" and/or \"buffer\"");
  }
  if (status == AMDDWARF_OK && json_object_get(root, "strings"))
    status = build_metadata(&b, json_object_get(root, "strings"), &out->allocator, out);
  if (status == AMDDWARF_OK && json_object_get(root, "buffer"))
    status = build_buffer(&b, json_object_get(root, "buffer"), &out->allocator, out);
  json_decref(root);
  if (status != AMDDWARF_OK)
    amddwarf_printf_build_free(out);
  return status;
}

void amddwarf_printf_build_free(amddwarf_printf_build_output *out)
{
  if (!out)
    return;
  amddwarf_allocator a = amddwarf__allocator_resolve(&out->allocator);
  amddwarf__mem_free(&a, out->metadata, out->metadata_size);
  amddwarf__mem_free(&a, out->elf, out->elf_size);
  amddwarf__mem_free(&a, out->buffer, out->buffer_size ? out->buffer_size : 1);
  out->metadata = out->elf = out->buffer = NULL;
  out->metadata_size = out->elf_size = out->buffer_size = 0;
}
