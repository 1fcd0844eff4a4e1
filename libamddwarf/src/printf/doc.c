/* MessagePack and JSON documents as one small tree (printf_doc), so that a
 * single schema walker checks amdpal.format_strings whatever the input.
 *
 * The MessagePack reader follows the MessagePack specification's type table
 * (https://github.com/msgpack/msgpack/blob/master/spec.md); it is built on the
 * bounds-checked reader in big-endian mode. Hostile counts cannot make it
 * allocate more than the input justifies: an array of N items needs at least
 * N bytes, a map of N pairs at least 2N. */
#include <string.h>

#include <jansson.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/reader.h"
#include "printf/printf_internal.h"

static const char *const doc_kind_names[] = {
    [PRINTF_DOC_NIL] = "nil",
    [PRINTF_DOC_BOOL] = "boolean",
    [PRINTF_DOC_UINT] = "unsigned integer",
    [PRINTF_DOC_NINT] = "negative integer",
    [PRINTF_DOC_FLOAT] = "floating-point number",
    [PRINTF_DOC_STR] = "string",
    [PRINTF_DOC_BIN] = "binary",
    [PRINTF_DOC_ARRAY] = "array",
    [PRINTF_DOC_MAP] = "map",
    [PRINTF_DOC_EXT] = "extension",
};
_Static_assert(sizeof doc_kind_names / sizeof doc_kind_names[0] == PRINTF_DOC_EXT + 1,
               "one name per document kind");

const char *amddwarf__printf_doc_kind_name(printf_doc_kind kind)
{
  return (unsigned)kind <= PRINTF_DOC_EXT ? doc_kind_names[kind] : "unknown";
}

const printf_doc *amddwarf__printf_doc_get(const printf_doc *map, const char *key)
{
  if (!map || map->kind != PRINTF_DOC_MAP)
    return NULL;
  size_t key_length = strlen(key);
  for (uint32_t i = 0; i < map->count; i++) {
    const printf_doc *k = &map->v.items[2 * i];
    if (k->kind == PRINTF_DOC_STR && k->v.s.length == key_length &&
        memcmp(k->v.s.ptr, key, key_length) == 0)
      return &map->v.items[2 * i + 1];
  }
  return NULL;
}

/* ---- MessagePack ---- */

typedef struct msgpack_parser {
  amddwarf_reader r;
  amddwarf_arena *arena;
  uint64_t base;
  amddwarf_error *err;
} msgpack_parser;

static amddwarf_status mp_truncated(msgpack_parser *p, size_t start, const char *what)
{
  return amddwarf__fail(p->err, AMDDWARF_E_PRINTF_BAD_MSGPACK, p->base + start,
                       "MessagePack %s at offset %zu runs past the end of the document (%zu bytes)",
                       what, start, p->r.size);
}

static amddwarf_status mp_read_length(msgpack_parser *p, unsigned size, size_t start,
                                      const char *what, uint64_t *length)
{
  if (amddwarf__read_uint(&p->r, size, length) != AMDDWARF_OK)
    return mp_truncated(p, start, what);
  return AMDDWARF_OK;
}

static amddwarf_status mp_parse_value(msgpack_parser *p, printf_doc *node, unsigned depth);

static amddwarf_status mp_parse_container(msgpack_parser *p, printf_doc *node, uint64_t count,
                                          bool is_map, size_t start, unsigned depth)
{
  uint64_t items = is_map ? count * 2 : count;
  if (items > amddwarf_reader_remaining(&p->r) || count > UINT32_MAX)
    return amddwarf__fail(p->err, AMDDWARF_E_PRINTF_BAD_MSGPACK, p->base + start,
                         "MessagePack %s at offset %zu claims %llu %s but only %zu bytes follow",
                         is_map ? "map" : "array", start, (unsigned long long)count,
                         is_map ? "pairs" : "items", amddwarf_reader_remaining(&p->r));
  if (depth >= PRINTF_DOC_MAX_DEPTH)
    return amddwarf__fail(p->err, AMDDWARF_E_LIMIT, p->base + start,
                         "MessagePack nesting at offset %zu exceeds %d levels", start,
                         PRINTF_DOC_MAX_DEPTH);
  node->kind = is_map ? PRINTF_DOC_MAP : PRINTF_DOC_ARRAY;
  node->count = (uint32_t)count;
  node->v.items = NULL;
  if (items == 0)
    return AMDDWARF_OK;
  node->v.items = amddwarf__arena_calloc(p->arena, (size_t)items, sizeof(printf_doc));
  if (!node->v.items)
    return amddwarf__fail(p->err, AMDDWARF_E_NO_MEMORY, p->base + start,
                         "no memory for a MessagePack container of %llu items",
                         (unsigned long long)items);
  for (uint64_t i = 0; i < items; i++) {
    amddwarf_status status = mp_parse_value(p, &node->v.items[i], depth + 1);
    if (status != AMDDWARF_OK)
      return status;
  }
  return AMDDWARF_OK;
}

static amddwarf_status mp_parse_bytes(msgpack_parser *p, printf_doc *node, printf_doc_kind kind,
                                      uint64_t length, size_t start)
{
  const uint8_t *bytes;
  if (amddwarf__read_bytes(&p->r, length, &bytes) != AMDDWARF_OK)
    return mp_truncated(p, start, kind == PRINTF_DOC_STR ? "string" : "binary or extension");
  node->kind = kind;
  node->v.s.ptr = (const char *)bytes;
  node->v.s.length = (size_t)length;
  return AMDDWARF_OK;
}

static amddwarf_status mp_parse_value(msgpack_parser *p, printf_doc *node, unsigned depth)
{
  size_t start = p->r.pos;
  uint8_t tag;
  uint64_t value = 0;
  amddwarf_status status;
  node->offset = p->base + start;
  if (amddwarf_read_u8(&p->r, &tag) != AMDDWARF_OK)
    return mp_truncated(p, start, "value");
  if (tag <= 0x7f || tag >= 0xe0) {
    if (tag <= 0x7f) {
      node->kind = PRINTF_DOC_UINT;
      node->v.u = tag;
    } else {
      node->kind = PRINTF_DOC_NINT;
      node->v.i = (int8_t)tag;
    }
    return AMDDWARF_OK;
  }
  if (tag >= 0x80 && tag <= 0x8f)
    return mp_parse_container(p, node, tag & 0x0f, true, start, depth);
  if (tag >= 0x90 && tag <= 0x9f)
    return mp_parse_container(p, node, tag & 0x0f, false, start, depth);
  if (tag >= 0xa0 && tag <= 0xbf)
    return mp_parse_bytes(p, node, PRINTF_DOC_STR, tag & 0x1f, start);
  switch (tag) {
  case 0xc0:
    node->kind = PRINTF_DOC_NIL;
    return AMDDWARF_OK;
  case 0xc2:
  case 0xc3:
    node->kind = PRINTF_DOC_BOOL;
    node->v.b = tag == 0xc3;
    return AMDDWARF_OK;
  case 0xc4: case 0xc5: case 0xc6:
    status = mp_read_length(p, 1u << (tag - 0xc4), start, "binary", &value);
    return status != AMDDWARF_OK ? status : mp_parse_bytes(p, node, PRINTF_DOC_BIN, value, start);
  case 0xc7: case 0xc8: case 0xc9:
    status = mp_read_length(p, 1u << (tag - 0xc7), start, "extension", &value);
    if (status == AMDDWARF_OK)
      status = amddwarf_add_overflow_u64(value, 1, &value)
                   ? mp_truncated(p, start, "extension")
                   : mp_parse_bytes(p, node, PRINTF_DOC_EXT, value, start);
    return status;
  case 0xca:
  case 0xcb: {
    if (amddwarf__read_uint(&p->r, tag == 0xca ? 4 : 8, &value) != AMDDWARF_OK)
      return mp_truncated(p, start, "float");
    node->kind = PRINTF_DOC_FLOAT;
    if (tag == 0xca) {
      uint32_t bits = (uint32_t)value;
      float f;
      memcpy(&f, &bits, sizeof f);
      node->v.f = f;
    } else {
      memcpy(&node->v.f, &value, sizeof node->v.f);
    }
    return AMDDWARF_OK;
  }
  case 0xcc: case 0xcd: case 0xce: case 0xcf:
    if (amddwarf__read_uint(&p->r, 1u << (tag - 0xcc), &value) != AMDDWARF_OK)
      return mp_truncated(p, start, "unsigned integer");
    node->kind = PRINTF_DOC_UINT;
    node->v.u = value;
    return AMDDWARF_OK;
  case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
    int64_t signed_value;
    if (amddwarf__read_sint(&p->r, 1u << (tag - 0xd0), &signed_value) != AMDDWARF_OK)
      return mp_truncated(p, start, "signed integer");
    if (signed_value >= 0) {
      node->kind = PRINTF_DOC_UINT;
      node->v.u = (uint64_t)signed_value;
    } else {
      node->kind = PRINTF_DOC_NINT;
      node->v.i = signed_value;
    }
    return AMDDWARF_OK;
  }
  case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
    return mp_parse_bytes(p, node, PRINTF_DOC_EXT, 1 + (1u << (tag - 0xd4)), start);
  case 0xd9: case 0xda: case 0xdb:
    status = mp_read_length(p, 1u << (tag - 0xd9), start, "string", &value);
    return status != AMDDWARF_OK ? status : mp_parse_bytes(p, node, PRINTF_DOC_STR, value, start);
  case 0xdc: case 0xdd:
    status = mp_read_length(p, tag == 0xdc ? 2 : 4, start, "array", &value);
    return status != AMDDWARF_OK ? status
                                 : mp_parse_container(p, node, value, false, start, depth);
  case 0xde: case 0xdf:
    status = mp_read_length(p, tag == 0xde ? 2 : 4, start, "map", &value);
    return status != AMDDWARF_OK ? status
                                 : mp_parse_container(p, node, value, true, start, depth);
  default: /* 0xc1 is never used */
    return amddwarf__fail(p->err, AMDDWARF_E_PRINTF_BAD_MSGPACK, p->base + start,
                         "MessagePack tag 0x%02x at offset %zu is never used", tag, start);
  }
}

amddwarf_status amddwarf__printf_msgpack_parse(amddwarf_arena *arena, const uint8_t *data, size_t size,
                                     uint64_t base, printf_doc **root, amddwarf_error *err)
{
  msgpack_parser p = {.arena = arena, .base = base, .err = err};
  amddwarf_reader_init(&p.r, data, size);
  p.r.big_endian = true;
  printf_doc *node = amddwarf__arena_calloc(arena, 1, sizeof *node);
  if (!node)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, base, "no memory for a MessagePack document");
  amddwarf_status status = mp_parse_value(&p, node, 0);
  if (status != AMDDWARF_OK)
    return status;
  for (size_t i = p.r.pos; i < size; i++)
    if (data[i] != 0)
      return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_MSGPACK, base + i,
                           "unexpected byte 0x%02x at offset %zu after the MessagePack document "
                           "(which ends at offset %zu)",
                           data[i], i, p.r.pos);
  *root = node;
  return AMDDWARF_OK;
}

/* ---- JSON ---- */

static amddwarf_status json_convert(amddwarf_arena *arena, json_t *json, printf_doc *node,
                                    unsigned depth, amddwarf_error *err)
{
  node->offset = AMDDWARF_NO_OFFSET;
  if (depth >= PRINTF_DOC_MAX_DEPTH)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "JSON nesting exceeds %d levels", PRINTF_DOC_MAX_DEPTH);
  switch (json_typeof(json)) {
  case JSON_NULL:
    node->kind = PRINTF_DOC_NIL;
    return AMDDWARF_OK;
  case JSON_TRUE:
  case JSON_FALSE:
    node->kind = PRINTF_DOC_BOOL;
    node->v.b = json_is_true(json);
    return AMDDWARF_OK;
  case JSON_INTEGER: {
    json_int_t value = json_integer_value(json);
    if (value >= 0) {
      node->kind = PRINTF_DOC_UINT;
      node->v.u = (uint64_t)value;
    } else {
      node->kind = PRINTF_DOC_NINT;
      node->v.i = (int64_t)value;
    }
    return AMDDWARF_OK;
  }
  case JSON_REAL:
    node->kind = PRINTF_DOC_FLOAT;
    node->v.f = json_real_value(json);
    return AMDDWARF_OK;
  case JSON_STRING: {
    size_t length = json_string_length(json);
    char *copy = amddwarf__arena_strndup(arena, json_string_value(json), length);
    if (!copy)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for a string");
    node->kind = PRINTF_DOC_STR;
    node->v.s.ptr = copy;
    node->v.s.length = length;
    return AMDDWARF_OK;
  }
  case JSON_ARRAY: {
    size_t count = json_array_size(json);
    node->kind = PRINTF_DOC_ARRAY;
    node->count = (uint32_t)count;
    node->v.items = count ? amddwarf__arena_calloc(arena, count, sizeof(printf_doc)) : NULL;
    if (count && !node->v.items)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for an array");
    for (size_t i = 0; i < count; i++) {
      amddwarf_status status =
          json_convert(arena, json_array_get(json, i), &node->v.items[i], depth + 1, err);
      if (status != AMDDWARF_OK)
        return status;
    }
    return AMDDWARF_OK;
  }
  case JSON_OBJECT: {
    size_t count = json_object_size(json), i = 0;
    node->kind = PRINTF_DOC_MAP;
    node->count = (uint32_t)count;
    node->v.items = count ? amddwarf__arena_calloc(arena, count * 2, sizeof(printf_doc)) : NULL;
    if (count && !node->v.items)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for a map");
    const char *key;
    json_t *value;
    json_object_foreach(json, key, value) {
      printf_doc *k = &node->v.items[2 * i];
      k->kind = PRINTF_DOC_STR;
      k->offset = AMDDWARF_NO_OFFSET;
      k->v.s.length = strlen(key);
      k->v.s.ptr = amddwarf__arena_strndup(arena, key, k->v.s.length);
      if (!k->v.s.ptr)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for a key");
      amddwarf_status status = json_convert(arena, value, &node->v.items[2 * i + 1], depth + 1, err);
      if (status != AMDDWARF_OK)
        return status;
      i++;
    }
    return AMDDWARF_OK;
  }
  }
  return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, AMDDWARF_NO_OFFSET, "unknown JSON value type");
}

amddwarf_status amddwarf__printf_json_parse(amddwarf_arena *arena, const char *text, size_t size,
                                  printf_doc **root, amddwarf_error *err)
{
  json_error_t json_error;
  json_t *json = json_loadb(text, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &json_error);
  if (!json)
    return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)json_error.position,
                         "JSON line %d column %d: %s", json_error.line, json_error.column,
                         json_error.text);
  amddwarf_status status = AMDDWARF_OK;
  printf_doc *node = amddwarf__arena_calloc(arena, 1, sizeof *node);
  if (!node)
    status = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "no memory for JSON");
  else
    status = json_convert(arena, json, node, 0, err);
  json_decref(json);
  if (status == AMDDWARF_OK)
    *root = node;
  return status;
}
