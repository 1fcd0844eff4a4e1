/* A wave state loaded from JSON (specs/snapshot.md) and served through the
 * target interface (saving it back: snapshot_save.c): registers (per-lane arrays for vector registers), memory
 * regions per address space (per lane for private memory, with private_wave
 * reached through the swizzle), apertures, frame data, base types and DIEs
 * whose expressions are written as assembler text or hex. */
#include <amddwarf/snapshot.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/eval.h>
#include <amddwarf/expr.h>

#include "amdgpu/swizzle.h"
#include "common/arena.h"
#include "common/bytes.h"
#include "common/error.h"
#include "common/json_int.h"
#include "common/text.h"
#include "common/mem.h"
#include "expr/snapshot_internal.h"
#include "expr/snapshot_json.h"
#include "expr/snapshot_value.h"

enum { SNAPSHOT_MAX_BYTES = 1 << 30 };

/* ---- parsing helpers --------------------------------------------------------- */

/* The members are read through snapshot_value.h, from a jansson tree or
   from checked text alike: every rule below is the format's one rule. */
typedef struct loader {
  amddwarf_snapshot *s;
  amddwarf_error *err;
  uint64_t total_bytes;
  snapshot_scratch scratch; /* decoded strings */
  /* The last address space name looked up and its value: a wave's memory
     regions name a few spaces over and over. */
  char aspace_name[48];
  size_t aspace_length; /* 0: none yet */
  uint32_t aspace_value;
} loader;

static amddwarf_status schema(loader *l, const char *format, const char *member)
{
  return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET, format, member);
}

static amddwarf_status no_memory(loader *l)
{
  return amddwarf__fail(l->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
}

/* An integer member in [0, MAX] (common/json_int.h); PATH names it. */
static amddwarf_status integer(loader *l, const snapshot_value *v, uint64_t max, const char *path,
                               uint64_t *out)
{
  return amddwarf__snapshot_uint(v, max, path, AMDDWARF_E_SNAPSHOT_SCHEMA, l->err, out);
}

/* As integer, the path (at most PATH_SIZE bytes, as FORMAT makes it) made
   only for a message: lanes and regions are many. */
static amddwarf_status integer_at(loader *l, const snapshot_value *v, uint64_t max, uint64_t *out,
                                  size_t path_size, const char *format, ...)
    AMDDWARF_PRINTF_LIKE(6, 7);
static amddwarf_status integer_at(loader *l, const snapshot_value *v, uint64_t max, uint64_t *out,
                                  size_t path_size, const char *format, ...)
{
  if (amddwarf__snapshot_uint(v, max, "", AMDDWARF_E_SNAPSHOT_SCHEMA, NULL, out) == AMDDWARF_OK)
    return AMDDWARF_OK;
  char path[128];
  va_list args;
  va_start(args, format);
  vsnprintf(path, path_size < sizeof path ? path_size : sizeof path, format, args);
  va_end(args);
  return integer(l, v, max, path, out);
}

/* A string's characters, NUL-terminated; V must be a string. */
static const char *string_of(loader *l, const snapshot_value *v, size_t *length)
{
  return amddwarf__snapshot_string(v, &l->scratch, length);
}

/* Hex string ("0a 0b", "0x0a0b") into arena bytes. */
static amddwarf_status parse_hex(loader *l, const snapshot_value *v, const char *member,
                                 uint8_t **out, size_t *size)
{
  if (v->kind != SNAPSHOT_STRING)
    return schema(l, "%s must be a hex string", member);
  uint8_t *bytes =
      amddwarf__arena_alloc(&l->s->arena, amddwarf__snapshot_string_bound(v) / 2 + 1, 1);
  if (!bytes)
    return no_memory(l);
  size_t got = 0;
  snapshot_hex_status hex = amddwarf__snapshot_hex_value(v, &l->scratch, bytes, &got);
  if (hex == SNAPSHOT_HEX_NO_MEMORY)
    return no_memory(l);
  if (hex == SNAPSHOT_HEX_NOT_A_DIGIT) {
    size_t at = amddwarf__snapshot_hex_fault(v);
    if (at == SIZE_MAX)
      return schema(l, "%s has a character that is not a hex digit", member);
    unsigned char ch = (unsigned char)v->text[at];
    return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                         ch >= 0x20 && ch < 0x7f
                             ? "%s has a character that is not a hex digit ('%c' at byte %zu)"
                             : "%s has a character that is not a hex digit (0x%02x at byte %zu)",
                         member, ch, at);
  }
  if (hex == SNAPSHOT_HEX_ODD)
    return schema(l, "%s has an odd number of hex digits", member);
  l->total_bytes += got;
  if (l->total_bytes > SNAPSHOT_MAX_BYTES)
    return amddwarf__fail(l->err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "snapshot contents exceed %d bytes", SNAPSHOT_MAX_BYTES);
  *out = bytes;
  *size = got;
  return AMDDWARF_OK;
}

/* An expression: assembler text, or {"hex": "..."}. */
static amddwarf_status parse_expr(loader *l, const snapshot_value *v, const char *member,
                                  uint8_t **out, size_t *size)
{
  if (v->kind == SNAPSHOT_OBJECT) {
    static const char *const names[] = {"hex"};
    snapshot_value hex;
    amddwarf__snapshot_members(v, names, 1, &hex, NULL, 0);
    if (hex.kind == SNAPSHOT_MISSING)
      return schema(l, "%s must be assembler text or {\"hex\": ...}", member);
    return parse_hex(l, &hex, member, out, size);
  }
  if (v->kind != SNAPSHOT_STRING)
    return schema(l, "%s must be assembler text or {\"hex\": ...}", member);
  size_t length;
  const char *text = string_of(l, v, &length);
  if (!text)
    return no_memory(l);
  uint8_t buf[4096];
  size_t n = 0;
  amddwarf_error aerr;
  amddwarf_status st = amddwarf_expr_assemble(text, &l->s->format, l->s->wave_size, buf,
                                              sizeof buf, &n, &aerr);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                         "%s: %s (at character %llu)", member, aerr.message,
                         (unsigned long long)aerr.offset);
  uint8_t *bytes = amddwarf__arena_alloc(&l->s->arena, n ? n : 1, 1);
  if (!bytes)
    return no_memory(l);
  memcpy(bytes, buf, n);
  *out = bytes;
  *size = n;
  return AMDDWARF_OK;
}

/* An address space, by name or number; MEMBER names it in a message (NULL:
   no message, the caller names it when it asks again). */
static amddwarf_status parse_aspace(loader *l, const snapshot_value *v, const char *member,
                                    uint32_t *aspace)
{
  uint64_t number;
  amddwarf_aspace_info info;
  if (v->kind == SNAPSHOT_STRING) {
    size_t length;
    const char *name = string_of(l, v, &length);
    if (!name)
      return no_memory(l);
    if (length && length == l->aspace_length && memcmp(name, l->aspace_name, length) == 0) {
      *aspace = l->aspace_value;
      return AMDDWARF_OK;
    }
    if (amddwarf_aspace_lookup(name, aspace) == AMDDWARF_OK) {
      if (length < sizeof l->aspace_name && memchr(name, '\0', length) == NULL) {
        memcpy(l->aspace_name, name, length);
        l->aspace_length = length;
        l->aspace_value = *aspace;
      }
      return AMDDWARF_OK;
    }
  }
  if (amddwarf__snapshot_uint(v, UINT32_MAX, "", AMDDWARF_E_SNAPSHOT_SCHEMA, NULL, &number) ==
          AMDDWARF_OK &&
      amddwarf_aspace_info_get((uint32_t)number, &info) == AMDDWARF_OK) {
    *aspace = (uint32_t)number;
    return AMDDWARF_OK;
  }
  if (member == NULL)
    return AMDDWARF_E_SNAPSHOT_SCHEMA;
  return schema(l, "%s is not an address space name or DW_ASPACE_* value", member);
}

static amddwarf_status parse_register_name(loader *l, const char *key, uint32_t *regno)
{
  uint64_t v;
  if (amddwarf__json_uint_text(key, UINT32_MAX, key, AMDDWARF_E_SNAPSHOT_SCHEMA, NULL, &v) ==
      AMDDWARF_OK) {
    *regno = (uint32_t)v;
    return AMDDWARF_OK;
  }
  if (amddwarf_amdgpu_register_lookup(key, l->s->wave_size, regno) == AMDDWARF_OK)
    return AMDDWARF_OK;
  return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_UNKNOWN_REGISTER, AMDDWARF_NO_OFFSET,
                       "register \"%s\" is not in the AMDGPU register map", key);
}

static int compare_regs(const void *a, const void *b)
{
  const snap_register *x = a, *y = b;
  return x->regno < y->regno ? -1 : x->regno > y->regno;
}

/* A register's value (KEY names it): {"bytes": hex}, a lane array of
   32-bit values, or one integer. */
static amddwarf_status parse_register_value(loader *l, const snapshot_value *value,
                                            const char *member, const char *key,
                                            snap_register *r)
{
  amddwarf_amdgpu_register info;
  int known = amddwarf_amdgpu_register_info(r->regno, &info) == AMDDWARF_OK;
  uint64_t size = known ? info.bit_size / 8 : 8;
  amddwarf_status st;
  if (value->kind == SNAPSHOT_OBJECT) {
    static const char *const names[] = {"bytes"};
    snapshot_value bytes;
    size_t got;
    amddwarf__snapshot_members(value, names, 1, &bytes, NULL, 0);
    if ((st = parse_hex(l, &bytes, key, &r->bytes, &got)) != AMDDWARF_OK)
      return st;
    if (got != size && known)
      return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "register %s has %zu bytes, the register has %llu", key, got,
                           (unsigned long long)size);
    r->size = got;
    return AMDDWARF_OK;
  }
  r->bytes = amddwarf__arena_calloc(&l->s->arena, size, 1);
  if (!r->bytes)
    return no_memory(l);
  r->size = size;
  uint64_t v;
  if (value->kind == SNAPSHOT_ARRAY) {
    size_t lanes = amddwarf__snapshot_count(value);
    if (lanes * 4 > size)
      return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "register %s: %zu lane values, room for %llu", key, lanes,
                           (unsigned long long)(size / 4));
    snapshot_walk walk;
    snapshot_value lane;
    amddwarf__snapshot_walk_init(value, &walk);
    for (size_t k = 0;; k++) {
      if (!amddwarf__snapshot_next_small_uint(&walk, UINT32_MAX, &v)) {
        if (!amddwarf__snapshot_next_element(&walk, &lane))
          break;
        if ((st = integer_at(l, &lane, UINT32_MAX, &v, 96, "%s.%s[%zu]", member, key, k)) !=
            AMDDWARF_OK)
          return st;
      }
      for (unsigned b = 0; b < 4; b++)
        r->bytes[k * 4 + b] = (uint8_t)(v >> (8 * b));
    }
    return AMDDWARF_OK;
  }
  if (value->kind != SNAPSHOT_INTEGER && value->kind != SNAPSHOT_STRING)
    return schema(l, "register %s must be an integer, a lane array or {\"bytes\": hex}", key);
  if ((st = integer_at(l, value, size < 8 ? (UINT64_C(1) << (size * 8)) - 1 : UINT64_MAX, &v, 96,
                       "%s.%s", member, key)) != AMDDWARF_OK)
    return st;
  for (unsigned b = 0; b < size && b < 8; b++)
    r->bytes[b] = (uint8_t)(v >> (8 * b));
  return AMDDWARF_OK;
}

static amddwarf_status parse_registers(loader *l, const snapshot_value *obj, const char *member,
                                       snap_register **out, size_t *count)
{
  if (obj->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (obj->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s must be an object", member);
  size_t n = amddwarf__snapshot_count(obj), i = 0;
  snap_register *regs = amddwarf__arena_calloc(&l->s->arena, n ? n : 1, sizeof *regs);
  if (!regs)
    return no_memory(l);
  /* Longer than any register name or number: a name cut to this is still none. */
  char key[256];
  snapshot_walk walk;
  snapshot_value value;
  amddwarf__snapshot_walk_init(obj, &walk);
  while (amddwarf__snapshot_next_member(&walk, key, sizeof key, &value)) {
    snap_register *r = &regs[i];
    amddwarf_status st = parse_register_name(l, key, &r->regno);
    if (st == AMDDWARF_OK)
      st = parse_register_value(l, &value, member, key, r);
    if (st != AMDDWARF_OK)
      return st;
    for (size_t k = 0; k < i; k++)
      if (regs[k].regno == r->regno)
        return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                             "register %s is given twice", key);
    i++;
  }
  qsort(regs, i, sizeof *regs, compare_regs);
  *out = regs;
  *count = i;
  return AMDDWARF_OK;
}

/* The first region of the chain a region of ASPACE and LANE is in. */
static size_t *chain_of(amddwarf_snapshot *s, uint32_t aspace, uint32_t lane)
{
  return aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE && lane < SNAP_LANES
             ? &s->first_of_lane[lane]
             : &s->first_shared;
}

/* The "bytes" V of memory region I into R. Hex digits alone in a stop's
   text are checked now and decoded on the first access
   (amddwarf__snapshot_region_bytes): a wave read for one request seldom
   reads all of its memory. Other hex
   (separators, escapes, a tree's string) is decoded at once. */
static amddwarf_status parse_region_bytes(loader *l, const snapshot_value *v, size_t i,
                                          snap_region *r)
{
  const char *digits;
  size_t count;
  if (amddwarf__snapshot_hex_deferred(v, &digits, &count)) {
    r->size = count / 2;
    l->total_bytes += r->size;
    if (l->total_bytes > SNAPSHOT_MAX_BYTES)
      return amddwarf__fail(l->err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                           "snapshot contents exceed %d bytes", SNAPSHOT_MAX_BYTES);
    if (!(r->bytes = amddwarf__arena_alloc(&l->s->arena, r->size + 1, 1)))
      return no_memory(l);
    atomic_init(&r->pending, r->size ? digits : NULL);
    return AMDDWARF_OK;
  }
  atomic_init(&r->pending, NULL);
  char member[64];
  snprintf(member, sizeof member, "memory[%zu].bytes", i);
  size_t size;
  amddwarf_status st = parse_hex(l, v, member, &r->bytes, &size);
  r->size = size;
  return st;
}

/* One entry of "memory" (I its index) into R. */
static amddwarf_status parse_region(loader *l, const snapshot_value *item, size_t i,
                                    snap_region *r)
{
  static const char *const names[] = {"address_space", "address", "bytes", "lane"};
  enum { ASPACE, ADDRESS, BYTES, LANE };
  snapshot_value m[4];
  uint32_t aspace = 0;
  amddwarf_status st;
  char path[64];
  if (item->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s entries must be objects", "memory");
  amddwarf__snapshot_members(item, names, 4, m, NULL, 0);
  if (m[ASPACE].kind != SNAPSHOT_MISSING &&
      parse_aspace(l, &m[ASPACE], NULL, &aspace) != AMDDWARF_OK) {
    snprintf(path, sizeof path, "memory[%zu].address_space", i);
    return parse_aspace(l, &m[ASPACE], path, &aspace);
  }
  if ((st = integer_at(l, &m[ADDRESS], UINT64_MAX, &r->address, 64, "memory[%zu].address", i)) !=
      AMDDWARF_OK)
    return st;
  if ((st = parse_region_bytes(l, &m[BYTES], i, r)) != AMDDWARF_OK)
    return st;
  if (r->size && r->address > UINT64_MAX - (r->size - 1))
    return schema(l, "%s wraps around the address space", "memory[]");
  r->lane = AMDDWARF_NO_LANE;
  if (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
      aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63) {
    r->lane = aspace - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0;
    aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
  } else if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE) {
    uint64_t lane;
    if ((st = integer_at(l, &m[LANE], l->s->wave_size - 1, &lane, 64, "memory[%zu].lane", i)) !=
        AMDDWARF_OK)
      return st;
    r->lane = (uint32_t)lane;
  } else if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE) {
    return schema(l, "%s: give private memory per lane (private_lane); private_wave is derived",
                  "memory[]");
  }
  r->aspace = aspace;
  return AMDDWARF_OK;
}

static amddwarf_status parse_memory(loader *l, const snapshot_value *arr)
{
  amddwarf_snapshot *s = l->s;
  if (arr->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (arr->kind != SNAPSHOT_ARRAY)
    return schema(l, "%s must be an array", "memory");
  s->region_count = amddwarf__snapshot_count(arr);
  s->regions = amddwarf__arena_calloc(&s->arena, s->region_count ? s->region_count : 1,
                                     sizeof *s->regions);
  if (!s->regions)
    return no_memory(l);
  snapshot_walk walk;
  snapshot_value item;
  amddwarf__snapshot_prefetch(arr);
  amddwarf__snapshot_walk_init(arr, &walk);
  for (size_t i = 0; amddwarf__snapshot_next_element(&walk, &item); i++) {
    amddwarf_status st = parse_region(l, &item, i, &s->regions[i]);
    if (st != AMDDWARF_OK)
      return st;
  }
  /* Each lane's private regions chained in order, and the other regions
     in order, so that a read walks neither every lane's regions nor, for
     another space, any of them. */
  for (size_t i = s->region_count; i-- > 0;) {
    snap_region *r = &s->regions[i];
    size_t *first = chain_of(s, r->aspace, r->lane);
    r->next = *first;
    *first = i + 1;
  }
  return AMDDWARF_OK;
}

static amddwarf_status parse_addr(loader *l, const snapshot_value *v, const char *member,
                                  snap_addr *out)
{
  static const char *const names[] = {"address_space", "address"};
  snapshot_value m[2];
  if (v->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (v->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s must be {\"address_space\": ..., \"address\": ...}", member);
  amddwarf__snapshot_members(v, names, 2, m, NULL, 0);
  out->aspace = 0;
  amddwarf_status st;
  if (m[0].kind != SNAPSHOT_MISSING && (st = parse_aspace(l, &m[0], member, &out->aspace)) !=
                                           AMDDWARF_OK)
    return st;
  if ((st = integer_at(l, &m[1], UINT64_MAX, &out->address, 64, "%s.address", member)) !=
      AMDDWARF_OK)
    return st;
  out->present = 1;
  return AMDDWARF_OK;
}

static uint8_t encoding_by_name(const char *name)
{
  static const uint8_t codes[] = {AMDDWARF_ATE_ADDRESS, AMDDWARF_ATE_BOOLEAN, AMDDWARF_ATE_FLOAT,
                                  AMDDWARF_ATE_SIGNED, AMDDWARF_ATE_SIGNED_CHAR,
                                  AMDDWARF_ATE_UNSIGNED, AMDDWARF_ATE_UNSIGNED_CHAR,
                                  AMDDWARF_ATE_UTF};
  for (size_t i = 0; i < sizeof codes; i++)
    if (strcmp(name, amddwarf_encoding_name(codes[i])) == 0)
      return codes[i];
  return 0;
}

/* One entry of "base_types" (I its index) into BT. */
static amddwarf_status parse_type(loader *l, const snapshot_value *t, size_t i,
                                  amddwarf_base_type *bt)
{
  static const char *const names[] = {"die", "encoding", "bit_size", "count"};
  enum { DIE, ENCODING, BIT_SIZE, COUNT };
  snapshot_value m[4];
  uint64_t die = 0, bits = 0, count = 1;
  amddwarf_status st;
  amddwarf__snapshot_members(t, names, 4, m, NULL, 0);
  if (t->kind == SNAPSHOT_OBJECT &&
      ((st = integer_at(l, &m[DIE], UINT64_MAX, &die, 48, "base_types[%zu].die", i)) !=
           AMDDWARF_OK ||
       (st = integer_at(l, &m[BIT_SIZE], 512, &bits, 48, "base_types[%zu].bit_size", i)) !=
           AMDDWARF_OK ||
       (m[COUNT].kind != SNAPSHOT_MISSING &&
        (st = integer_at(l, &m[COUNT], 64, &count, 48, "base_types[%zu].count", i)) !=
            AMDDWARF_OK)))
    return st;
  uint8_t encoding = 0;
  if (m[ENCODING].kind == SNAPSHOT_STRING) {
    size_t length;
    const char *name = string_of(l, &m[ENCODING], &length);
    if (!name)
      return no_memory(l);
    encoding = encoding_by_name(name);
  }
  if (t->kind != SNAPSHOT_OBJECT || die == 0 || bits == 0 || count == 0 || encoding == 0)
    return schema(l, "%s entries need \"die\" (> 0), \"encoding\" (a DW_ATE name without "
                     "prefix), \"bit_size\" and an optional \"count\"", "base_types");
  bt->die = die;
  bt->bit_size = (uint32_t)bits;
  bt->count = (uint32_t)count;
  bt->encoding = encoding;
  return AMDDWARF_OK;
}

static amddwarf_status parse_types(loader *l, const snapshot_value *arr)
{
  amddwarf_snapshot *s = l->s;
  if (arr->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (arr->kind != SNAPSHOT_ARRAY)
    return schema(l, "%s must be an array", "base_types");
  s->type_count = amddwarf__snapshot_count(arr);
  s->types = amddwarf__arena_calloc(&s->arena, s->type_count ? s->type_count : 1, sizeof *s->types);
  if (!s->types)
    return no_memory(l);
  snapshot_walk walk;
  snapshot_value t;
  amddwarf__snapshot_walk_init(arr, &walk);
  for (size_t i = 0; amddwarf__snapshot_next_element(&walk, &t); i++) {
    amddwarf_status st = parse_type(l, &t, i, &s->types[i]);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* One entry of "dies" (I its index) into DIE. */
static amddwarf_status parse_die(loader *l, const snapshot_value *d, size_t i, snap_die *die)
{
  static const char *const names[] = {"offset", "procedure", "location", "const_value"};
  enum { OFFSET, PROCEDURE, LOCATION, CONST_VALUE };
  snapshot_value m[4];
  amddwarf_status st;
  if (d->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s entries must be objects", "dies");
  amddwarf__snapshot_members(d, names, 4, m, NULL, 0);
  if ((st = integer_at(l, &m[OFFSET], UINT64_MAX, &die->offset, 48, "dies[%zu].offset", i)) !=
      AMDDWARF_OK)
    return st;
  die->procedure = m[PROCEDURE].kind == SNAPSHOT_TRUE;
  if (m[LOCATION].kind != SNAPSHOT_MISSING) {
    die->value = AMDDWARF_DIE_LOCATION;
    return parse_expr(l, &m[LOCATION], "dies[].location", &die->bytes, &die->size);
  }
  if (m[CONST_VALUE].kind != SNAPSHOT_MISSING) {
    die->value = AMDDWARF_DIE_CONST_VALUE;
    return parse_hex(l, &m[CONST_VALUE], "dies[].const_value", &die->bytes, &die->size);
  }
  die->value = AMDDWARF_DIE_NO_VALUE;
  return AMDDWARF_OK;
}

static amddwarf_status parse_dies(loader *l, const snapshot_value *arr)
{
  amddwarf_snapshot *s = l->s;
  if (arr->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (arr->kind != SNAPSHOT_ARRAY)
    return schema(l, "%s must be an array", "dies");
  s->die_count = amddwarf__snapshot_count(arr);
  s->dies = amddwarf__arena_calloc(&s->arena, s->die_count ? s->die_count : 1, sizeof *s->dies);
  if (!s->dies)
    return no_memory(l);
  snapshot_walk walk;
  snapshot_value d;
  amddwarf__snapshot_walk_init(arr, &walk);
  for (size_t i = 0; amddwarf__snapshot_next_element(&walk, &d); i++) {
    amddwarf_status st = parse_die(l, &d, i, &s->dies[i]);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* The DWARF number of the wave's EXEC register at its size (EXEC_MASK_32 or
   _64, as the register names read it). */
static uint32_t exec_register(const amddwarf_snapshot *s)
{
  uint32_t regno = 0;
  (void)amddwarf_amdgpu_register_lookup("exec", s->wave_size, &regno);
  return regno;
}

/* Sets register REGNO to the low bytes of VALUE unless the snapshot has it. */
static amddwarf_status default_register(loader *l, uint32_t regno, uint64_t value)
{
  amddwarf_snapshot *s = l->s;
  amddwarf_amdgpu_register info;
  for (size_t i = 0; i < s->reg_count; i++)
    if (s->regs[i].regno == regno)
      return AMDDWARF_OK;
  if (amddwarf_amdgpu_register_info(regno, &info) != AMDDWARF_OK)
    return AMDDWARF_OK;
  snap_register *regs = amddwarf__arena_calloc(&s->arena, s->reg_count + 1, sizeof *regs);
  uint8_t *bytes = amddwarf__arena_calloc(&s->arena, info.bit_size / 8, 1);
  if (!regs || !bytes)
    return no_memory(l);
  if (s->reg_count)
    memcpy(regs, s->regs, s->reg_count * sizeof *regs);
  for (unsigned b = 0; b < info.bit_size / 8 && b < 8; b++)
    bytes[b] = (uint8_t)(value >> (8 * b));
  regs[s->reg_count].regno = regno;
  regs[s->reg_count].bytes = bytes;
  regs[s->reg_count].size = info.bit_size / 8;
  s->regs = regs;
  s->reg_count++;
  qsort(s->regs, s->reg_count, sizeof *s->regs, compare_regs);
  return AMDDWARF_OK;
}

/* One entry of "code_objects" (I its index) into CO, its URI copied into
   the arena. */
static amddwarf_status parse_code_object(loader *l, const snapshot_value *entry, size_t i,
                                         amddwarf_loaded_code_object *co)
{
  static const char *const names[] = {"uri", "load_address"};
  snapshot_value m[2];
  char path[64];
  amddwarf__snapshot_members(entry, names, 2, m, NULL, 0);
  if (entry->kind != SNAPSHOT_OBJECT) {
    snprintf(path, sizeof path, "code_objects[%zu]", i);
    return schema(l, "%s must be an object {\"uri\": ..., \"load_address\": ...}", path);
  }
  size_t n = 0;
  const char *uri = NULL;
  if (m[0].kind == SNAPSHOT_STRING && !(uri = string_of(l, &m[0], &n)))
    return no_memory(l);
  if (uri == NULL || n == 0 || strlen(uri) != n) {
    snprintf(path, sizeof path, "code_objects[%zu].uri", i);
    return schema(l, "%s must be a code object URI (a non-empty string)", path);
  }
  char *copy = amddwarf__arena_alloc(&l->s->arena, n + 1, 1);
  if (copy == NULL)
    return no_memory(l);
  memcpy(copy, uri, n + 1);
  amddwarf_status st = integer_at(l, &m[1], UINT64_MAX, &co->load_address, 64,
                                  "code_objects[%zu].load_address", i);
  if (st != AMDDWARF_OK)
    return st;
  co->uri = copy;
  return AMDDWARF_OK;
}

/* "code_objects": [{"uri": "file://...", "load_address": N}, ...], as
   amd-dbgapi lists the loaded code objects of the process. The URIs are
   read when the objects are opened. */
static amddwarf_status parse_code_objects(loader *l, const snapshot_value *list)
{
  amddwarf_snapshot *s = l->s;
  if (list->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (list->kind != SNAPSHOT_ARRAY)
    return schema(l, "%s must be an array of {\"uri\": ..., \"load_address\": ...}",
                  "code_objects");
  size_t count = amddwarf__snapshot_count(list);
  if (count > AMDDWARF_SNAPSHOT_MAX_CODE_OBJECTS)
    return amddwarf__fail(l->err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "code_objects: %zu entries, more than the limit of %u", count,
                         (unsigned)AMDDWARF_SNAPSHOT_MAX_CODE_OBJECTS);
  s->has_code_objects = 1;
  s->code_object_count = count;
  s->code_objects = amddwarf__arena_calloc(&s->arena, count + 1, sizeof *s->code_objects);
  if (s->code_objects == NULL)
    return no_memory(l);
  snapshot_walk walk;
  snapshot_value entry;
  amddwarf__snapshot_walk_init(list, &walk);
  for (size_t i = 0; amddwarf__snapshot_next_element(&walk, &entry); i++) {
    amddwarf_status st = parse_code_object(l, &entry, i, &s->code_objects[i]);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* The members of a snapshot (specs/snapshot.md); any other is refused, so
   that a misspelt member is not silently ignored. */
#define SNAPSHOT_MEMBERS(X)                                                                      \
  X(ARCHITECTURE, "architecture") X(WAVE_SIZE, "wave_size") X(ADDRESS_SIZE, "address_size")      \
  X(DIALECT, "dialect") X(LANE, "lane") X(REGISTERS, "registers")                                \
  X(ENTRY_REGISTERS, "entry_registers") X(EXEC, "exec") X(PC, "pc") X(MEMORY, "memory")          \
  X(APERTURES, "apertures") X(FRAME_BASE, "frame_base") X(CFA, "cfa")                            \
  X(OBJECT_ADDRESS, "object_address") X(TLS_BASE, "tls_base") X(DEBUG_ADDR, "debug_addr")        \
  X(UNIT_OFFSET, "unit_offset") X(BASE_TYPES, "base_types") X(DIES, "dies")                      \
  X(CODE_OBJECTS, "code_objects")

enum {
#define MEMBER_INDEX(id, name) M_##id,
  SNAPSHOT_MEMBERS(MEMBER_INDEX)
#undef MEMBER_INDEX
  M_COUNT
};

static const char *const snapshot_members[] = {
#define MEMBER_NAME(id, name) name,
    SNAPSHOT_MEMBERS(MEMBER_NAME)
#undef MEMBER_NAME
};

/* The refusal of member KEY, not a snapshot member, naming the nearest
   known one. */
static amddwarf_status unknown_member(loader *l, const char *key)
{
  const char *nearest = snapshot_members[0];
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < M_COUNT; i++) {
    size_t d = amddwarf__edit_distance(key, strlen(key), snapshot_members[i],
                                       AMDDWARF_EDIT_DISTANCE_MAX);
    if (d < best) {
      best = d;
      nearest = snapshot_members[i];
    }
  }
  return amddwarf__fail(l->err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                        "'%.64s' is not a snapshot member; the nearest is '%s'", key, nearest);
}

static amddwarf_status parse_apertures(loader *l, const snapshot_value *ap)
{
  static const char *const names[] = {"shared", "private"};
  snapshot_value m[2];
  amddwarf_status st;
  if (ap->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (ap->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s must be {\"shared\": base, \"private\": base}", "apertures");
  amddwarf__snapshot_members(ap, names, 2, m, NULL, 0);
  if ((st = integer(l, &m[0], UINT64_MAX, "apertures.shared", &l->s->shared_base)) !=
          AMDDWARF_OK ||
      (st = integer(l, &m[1], UINT64_MAX, "apertures.private", &l->s->private_base)) !=
          AMDDWARF_OK)
    return st;
  l->s->has_apertures = 1;
  return AMDDWARF_OK;
}

static amddwarf_status parse_debug_addr(loader *l, const snapshot_value *da)
{
  amddwarf_snapshot *s = l->s;
  if (da->kind == SNAPSHOT_MISSING)
    return AMDDWARF_OK;
  if (da->kind != SNAPSHOT_ARRAY)
    return schema(l, "%s must be an array of integers", "debug_addr");
  s->debug_addr_count = amddwarf__snapshot_count(da);
  s->debug_addr = amddwarf__arena_calloc(&s->arena, s->debug_addr_count + 1, sizeof *s->debug_addr);
  if (!s->debug_addr)
    return no_memory(l);
  snapshot_walk walk;
  snapshot_value v;
  amddwarf__snapshot_walk_init(da, &walk);
  for (size_t i = 0; amddwarf__snapshot_next_element(&walk, &v); i++) {
    amddwarf_status st = integer_at(l, &v, UINT64_MAX, &s->debug_addr[i], 48, "debug_addr[%zu]", i);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* The wave-wide members: processor, sizes, dialect, focused lane. */
static amddwarf_status parse_wave(loader *l, const snapshot_value *m)
{
  amddwarf_snapshot *s = l->s;
  amddwarf_status st;
  uint64_t v;
  size_t length;
  if (m[M_ARCHITECTURE].kind != SNAPSHOT_MISSING) {
    amddwarf_isa_info isa;
    const char *name = m[M_ARCHITECTURE].kind == SNAPSHOT_STRING
                           ? string_of(l, &m[M_ARCHITECTURE], &length)
                           : NULL;
    if (m[M_ARCHITECTURE].kind == SNAPSHOT_STRING && !name)
      return no_memory(l);
    if (!name || amddwarf_isa_info_by_name(name, &isa) != AMDDWARF_OK)
      return schema(l, "%s must name a processor gfx801 .. gfx1201", "architecture");
    snprintf(s->architecture, sizeof s->architecture, "%s", isa.name);
    s->wave_size = isa.default_wave_size;
  }
  if (m[M_WAVE_SIZE].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_WAVE_SIZE], 64, "wave_size", &v)) != AMDDWARF_OK)
      return st;
    if (v != 32 && v != 64)
      return schema(l, "%s must be 32 or 64", "wave_size");
    s->wave_size = (uint32_t)v;
  }
  if (m[M_ADDRESS_SIZE].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_ADDRESS_SIZE], 8, "address_size", &v)) != AMDDWARF_OK)
      return st;
    if (v != 4 && v != 8)
      return schema(l, "%s must be 4 or 8", "address_size");
    s->address_size = (uint32_t)v;
  }
  s->format.address_size = (uint8_t)s->address_size;
  if (m[M_DIALECT].kind != SNAPSHOT_MISSING) {
    const char *name =
        m[M_DIALECT].kind == SNAPSHOT_STRING ? string_of(l, &m[M_DIALECT], &length) : NULL;
    if (m[M_DIALECT].kind == SNAPSHOT_STRING && !name)
      return no_memory(l);
    if (!name || amddwarf_dialect_from_name(name, &s->format.dialect) != AMDDWARF_OK)
      return schema(l, "%s must be auto, draft, vendor or user", "dialect");
  }
  if (m[M_LANE].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_LANE], s->wave_size - 1, "lane", &v)) != AMDDWARF_OK)
      return st;
    s->lane = (uint32_t)v;
  }
  return AMDDWARF_OK;
}

/* ROOT, a snapshot; CODE_OBJECTS (MISSING: none) is its list when it has
   none of its own. */
static amddwarf_status load(loader *l, const snapshot_value *root,
                            const snapshot_value *code_objects)
{
  amddwarf_snapshot *s = l->s;
  amddwarf_status st;
  uint64_t v;
  if (root->kind != SNAPSHOT_OBJECT)
    return schema(l, "%s must be a JSON object", "the snapshot");
  snapshot_value m[M_COUNT];
  /* Longer than the edit distance reads, so that a longer name stays so. */
  char unknown[AMDDWARF_EDIT_DISTANCE_MAX + 2];
  if (amddwarf__snapshot_members(root, snapshot_members, M_COUNT, m, unknown, sizeof unknown))
    return unknown_member(l, unknown);
  if (m[M_CODE_OBJECTS].kind == SNAPSHOT_MISSING && code_objects != NULL)
    m[M_CODE_OBJECTS] = *code_objects;
  if ((st = parse_wave(l, m)) != AMDDWARF_OK)
    return st;
  if ((st = parse_registers(l, &m[M_REGISTERS], "registers", &s->regs, &s->reg_count)) !=
      AMDDWARF_OK)
    return st;
  if ((st = parse_registers(l, &m[M_ENTRY_REGISTERS], "entry_registers", &s->entry_regs,
                            &s->entry_reg_count)) != AMDDWARF_OK)
    return st;
  if (m[M_EXEC].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_EXEC], s->wave_size == 32 ? UINT32_MAX : UINT64_MAX, "exec",
                      &s->exec)) != AMDDWARF_OK)
      return st;
    s->has_exec = 1;
    if ((st = default_register(l, exec_register(s), s->exec)) != AMDDWARF_OK)
      return st;
  }
  if (m[M_PC].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_PC], UINT64_MAX, "pc", &v)) != AMDDWARF_OK)
      return st;
    if ((st = default_register(l, 16, v)) != AMDDWARF_OK)
      return st;
  }
  if ((st = parse_memory(l, &m[M_MEMORY])) != AMDDWARF_OK ||
      (st = parse_apertures(l, &m[M_APERTURES])) != AMDDWARF_OK)
    return st;
  if (m[M_FRAME_BASE].kind != SNAPSHOT_MISSING) {
    if ((st = parse_expr(l, &m[M_FRAME_BASE], "frame_base", &s->frame_base,
                         &s->frame_base_size)) != AMDDWARF_OK)
      return st;
    s->has_frame_base = 1;
  }
  if ((st = parse_addr(l, &m[M_CFA], "cfa", &s->cfa)) != AMDDWARF_OK ||
      (st = parse_addr(l, &m[M_OBJECT_ADDRESS], "object_address", &s->object)) != AMDDWARF_OK)
    return st;
  if (m[M_TLS_BASE].kind != SNAPSHOT_MISSING) {
    if ((st = integer(l, &m[M_TLS_BASE], UINT64_MAX, "tls_base", &s->tls_base)) != AMDDWARF_OK)
      return st;
    s->has_tls = 1;
  }
  if ((st = parse_debug_addr(l, &m[M_DEBUG_ADDR])) != AMDDWARF_OK)
    return st;
  if (m[M_UNIT_OFFSET].kind != SNAPSHOT_MISSING &&
      (st = integer(l, &m[M_UNIT_OFFSET], UINT64_MAX, "unit_offset", &s->unit_offset)) !=
          AMDDWARF_OK)
    return st;
  if ((st = parse_types(l, &m[M_BASE_TYPES])) != AMDDWARF_OK ||
      (st = parse_code_objects(l, &m[M_CODE_OBJECTS])) != AMDDWARF_OK)
    return st;
  return parse_dies(l, &m[M_DIES]);
}

/* Fills reg_slot once the registers are final. Without memory for it the
   callbacks search instead: the answers are the same. */
static void index_registers(amddwarf_snapshot *s)
{
  if (s->reg_count >= UINT16_MAX)
    return;
  s->reg_slot = amddwarf__arena_calloc(&s->arena, SNAP_DIRECT_REGNOS, sizeof *s->reg_slot);
  for (size_t i = 0; s->reg_slot && i < s->reg_count; i++)
    if (s->regs[i].regno < SNAP_DIRECT_REGNOS)
      s->reg_slot[s->regs[i].regno] = (uint16_t)(i + 1);
}

amddwarf_status amddwarf__snapshot_load_value(const snapshot_value *root,
                                             const snapshot_value *code_objects,
                                             const amddwarf_allocator *allocator,
                                             amddwarf_snapshot **out, amddwarf_error *err)
{
  amddwarf_allocator alloc = amddwarf__allocator_resolve(allocator);
  amddwarf_snapshot *s = alloc.alloc(alloc.user, sizeof *s);
  *out = NULL;
  if (!s)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  memset(s, 0, sizeof *s);
  s->alloc = alloc;
  pthread_mutex_init(&s->decode_lock, NULL);
  amddwarf__arena_init(&s->arena, &alloc);
  s->wave_size = 64;
  s->address_size = 8;
  amddwarf_expr_format_init(&s->format);
  loader l = {.s = s, .err = err, .scratch = {&s->alloc, NULL, 0}};
  amddwarf_status st = load(&l, root, code_objects);
  amddwarf__snapshot_scratch_release(&l.scratch);
  if (st == AMDDWARF_OK)
    index_registers(s);
  if (st != AMDDWARF_OK) {
    amddwarf_snapshot_free(s);
    return st;
  }
  *out = s;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_snapshot_load(const char *text, size_t size,
                                       const amddwarf_allocator *allocator,
                                       amddwarf_snapshot **out, amddwarf_error *err)
{
  json_error_t jerr;
  if (!out || (!text && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no text or output");
  *out = NULL;
  json_t *root = json_loadb(text ? text : "", size, JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)jerr.position,
                         "snapshot line %d column %d: %s", jerr.line, jerr.column, jerr.text);
  snapshot_value value;
  amddwarf__snapshot_value_json(root, &value);
  amddwarf_status st = amddwarf__snapshot_load_value(&value, NULL, allocator, out, err);
  json_decref(root);
  return st;
}

int amddwarf__snapshot_written(const amddwarf_snapshot *s)
{
  return s != NULL && s->written;
}

void amddwarf_snapshot_free(amddwarf_snapshot *s)
{
  if (!s)
    return;
  amddwarf_allocator alloc = s->alloc;
  amddwarf__arena_release(&s->arena);
  pthread_mutex_destroy(&s->decode_lock);
  alloc.free(alloc.user, s, sizeof *s);
}

uint32_t amddwarf_snapshot_wave_size(const amddwarf_snapshot *s) { return s->wave_size; }
uint32_t amddwarf_snapshot_lane(const amddwarf_snapshot *s) { return s->lane; }
uint32_t amddwarf_snapshot_address_size(const amddwarf_snapshot *s) { return s->address_size; }
const char *amddwarf_snapshot_architecture(const amddwarf_snapshot *s) { return s->architecture; }

const amddwarf_loaded_code_object *amddwarf_snapshot_code_objects(const amddwarf_snapshot *s,
                                                                  size_t *count)
{
  *count = s->code_object_count;
  return s->has_code_objects ? s->code_objects : NULL;
}

/* ---- target callbacks ------------------------------------------------------------ */

static snap_register *find_register(snap_register *regs, size_t count, uint32_t regno)
{
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (regs[mid].regno == regno)
      return &regs[mid];
    if (regs[mid].regno < regno)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* The register REGNO of the snapshot, or NULL. */
static snap_register *snapshot_register(const amddwarf_snapshot *s, uint32_t regno)
{
  if (regno < SNAP_DIRECT_REGNOS && s->reg_slot) {
    uint16_t slot = s->reg_slot[regno];
    return slot ? &s->regs[slot - 1] : NULL;
  }
  return find_register(s->regs, s->reg_count, regno);
}

static amddwarf_status register_access(snap_register *r, uint64_t offset, uint64_t size,
                                       void *rbuf, const void *wbuf)
{
  if (!r || offset > r->size || size > r->size - offset)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  if (wbuf)
    amddwarf__copy_small(r->bytes + offset, wbuf, size);
  else if (rbuf)
    amddwarf__copy_small(rbuf, r->bytes + offset, size);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_snapshot_pc(const amddwarf_snapshot *s, uint64_t *pc)
{
  uint8_t bytes[8];
  if (register_access(snapshot_register(s, 16), 0, sizeof bytes, bytes, NULL) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  uint64_t value = 0;
  for (size_t i = 0; i < sizeof bytes; ++i)
    value |= (uint64_t)bytes[i] << (8 * i); /* registers are little-endian */
  if (pc != NULL)
    *pc = value;
  return AMDDWARF_OK;
}

static amddwarf_status cb_read_register(void *user, uint32_t regno, uint64_t offset,
                                        uint64_t size, void *buf)
{
  amddwarf_snapshot *s = user;
  return register_access(snapshot_register(s, regno), offset, size, buf, NULL);
}

static amddwarf_status cb_write_register(void *user, uint32_t regno, uint64_t offset,
                                         uint64_t size, const void *buf)
{
  amddwarf_snapshot *s = user;
  snap_register *r = snapshot_register(s, regno);
  amddwarf_status st = register_access(r, offset, size, NULL, buf);
  s->written |= st == AMDDWARF_OK;
  /* The wave's EXEC register is the EXEC that exec_mask gives. */
  if (st == AMDDWARF_OK && s->has_exec && regno == exec_register(s)) {
    s->exec = 0;
    for (uint64_t i = 0; i < r->size && i < 8; ++i)
      s->exec |= (uint64_t)r->bytes[i] << (8 * i);
  }
  return st;
}

static amddwarf_status cb_read_entry_register(void *user, uint32_t regno, uint64_t offset,
                                              uint64_t size, void *buf)
{
  amddwarf_snapshot *s = user;
  if (!s->entry_regs)
    return AMDDWARF_E_UNSUPPORTED;
  return register_access(find_register(s->entry_regs, s->entry_reg_count, regno), offset, size,
                         buf, NULL);
}

/* R's bytes, decoded from the document's hex on the first access. Reads
   may run on several threads (<amddwarf/snapshot.h>, specs/stop.md): one
   decodes under the lock, and publishes the bytes by clearing PENDING. */
uint8_t *amddwarf__snapshot_region_bytes(const amddwarf_snapshot *s, snap_region *r)
{
  if (atomic_load_explicit(&r->pending, memory_order_acquire) != NULL) {
    amddwarf_snapshot *owner = (amddwarf_snapshot *)s; /* the lock, not the state */
    pthread_mutex_lock(&owner->decode_lock);
    const char *digits = atomic_load_explicit(&r->pending, memory_order_relaxed);
    if (digits != NULL) {
      size_t got = 0;
      /* The digits were checked at load (amddwarf__snapshot_hex_deferred). */
      amddwarf__snapshot_hex(digits, (size_t)r->size * 2, r->bytes, &got);
      atomic_store_explicit(&r->pending, NULL, memory_order_release);
    }
    pthread_mutex_unlock(&owner->decode_lock);
  }
  return r->bytes;
}

/* The region of ASPACE and LANE that holds byte ADDRESS, NULL if none. */
static snap_region *region_at(amddwarf_snapshot *s, uint32_t aspace, uint32_t lane,
                              uint64_t address)
{
  /* I is 1 + the index of the next region to look at, along the chain of
     the lane's private regions or of the other spaces' regions. */
  for (size_t i = *chain_of(s, aspace, lane); i != 0;) {
    snap_region *r = &s->regions[i - 1];
    i = r->next;
    if (r->aspace == aspace && r->lane == lane && address >= r->address &&
        address - r->address < r->size)
      return r;
  }
  return NULL;
}

/* SIZE bytes at ADDRESS read into RBUF or written from WBUF (or neither:
   only found), from as many regions as hold them. */
static amddwarf_status region_span(amddwarf_snapshot *s, uint32_t aspace, uint32_t lane,
                                   uint64_t address, uint64_t size, uint8_t *rbuf,
                                   const uint8_t *wbuf)
{
  for (uint64_t done = 0, n; done < size; done += n) {
    snap_region *r = region_at(s, aspace, lane, address + done);
    if (r == NULL || address + done < address)
      return AMDDWARF_E_EVAL_UNAVAILABLE;
    uint64_t within = address + done - r->address;
    n = r->size - within < size - done ? r->size - within : size - done;
    if (wbuf)
      memcpy(amddwarf__snapshot_region_bytes(s, r) + within, wbuf + done, (size_t)n);
    else if (rbuf)
      memcpy(rbuf + done, amddwarf__snapshot_region_bytes(s, r) + within, (size_t)n);
  }
  return AMDDWARF_OK;
}

/* A byte range read into RBUF or written from WBUF: from the first region
   that holds all of it, else from adjacent regions that hold it together
   (a snapshot may list adjacent bytes in regions of their own; an access
   that spans them sees one memory). A write that reaches a missing byte
   writes nothing. */
static amddwarf_status region_access(amddwarf_snapshot *s, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, uint8_t *rbuf,
                                     const uint8_t *wbuf)
{
  size_t i = *chain_of(s, aspace, lane);
  while (i != 0) {
    snap_region *r = &s->regions[i - 1];
    i = r->next;
    if (r->aspace != aspace || r->lane != lane || address < r->address ||
        address - r->address > r->size || size > r->size - (address - r->address))
      continue;
    if (wbuf != NULL || rbuf != NULL) { /* a probe decodes nothing */
      uint8_t *at = amddwarf__snapshot_region_bytes(s, r) + (address - r->address);
      if (wbuf)
        amddwarf__copy_small(at, wbuf, size);
      else
        amddwarf__copy_small(rbuf, at, size);
    }
    return AMDDWARF_OK;
  }
  amddwarf_status st = region_span(s, aspace, lane, address, size, NULL, NULL);
  if (st == AMDDWARF_OK && (rbuf || wbuf))
    st = region_span(s, aspace, lane, address, size, rbuf, wbuf);
  return st;
}

/* SIZE bytes at ADDRESS of private_wave, across dwords: through the
   swizzle onto the lanes, where the bytes of one dword are one lane's
   consecutive bytes, moved together. */
static amddwarf_status private_wave_span(amddwarf_snapshot *s, uint64_t address, uint64_t size,
                                         uint8_t *rbuf, const uint8_t *wbuf)
{
  uint32_t l = 0;
  uint64_t la = 0;
  for (uint64_t i = 0, n; i < size; i += n) {
    n = 4 - (address + i) % 4;
    if (n > size - i)
      n = size - i;
    if (i > 0 && l + 1 < s->wave_size) {
      /* The next dword of the row: the next lane's same dword. */
      l++;
      la -= la % 4;
    } else { /* a snapshot's waves have 32 or 64 lanes (load_json) */
      amddwarf__private_wave_swizzle(address + i, s->wave_size, &l, &la);
    }
    amddwarf_status st = region_access(s, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, l, la, n,
                                       rbuf ? rbuf + i : NULL, wbuf ? wbuf + i : NULL);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

static amddwarf_status memory_access(amddwarf_snapshot *s, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, uint8_t *rbuf,
                                     const uint8_t *wbuf)
{
  if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE) {
    if (address % 4 + size > 4)
      return private_wave_span(s, address, size, rbuf, wbuf);
    /* Within one dword, one lane's (a spilled lane's value). */
    amddwarf__private_wave_swizzle(address, s->wave_size, &lane, &address);
    aspace = AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE;
  } else if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC && !s->has_apertures) {
    aspace = AMDDWARF_ASPACE_NONE;
  }
  return region_access(s, aspace, lane, address, size, rbuf, wbuf);
}

static amddwarf_status cb_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                      uint64_t address, uint64_t size, void *buf)
{
  return memory_access(user, aspace, lane, address, size, buf, NULL);
}

static amddwarf_status cb_write_memory(void *user, uint32_t aspace, uint32_t lane,
                                       uint64_t address, uint64_t size, const void *buf)
{
  amddwarf_status st = memory_access(user, aspace, lane, address, size, NULL, buf);
  ((amddwarf_snapshot *)user)->written |= st == AMDDWARF_OK;
  return st;
}

static amddwarf_status cb_focused_lane(void *user, uint32_t *lane)
{
  *lane = ((amddwarf_snapshot *)user)->lane;
  return AMDDWARF_OK;
}

static amddwarf_status cb_wave_size(void *user, uint32_t *wave_size)
{
  *wave_size = ((amddwarf_snapshot *)user)->wave_size;
  return AMDDWARF_OK;
}

static amddwarf_status cb_exec_mask(void *user, uint64_t *mask)
{
  amddwarf_snapshot *s = user;
  if (!s->has_exec)
    return AMDDWARF_E_UNSUPPORTED;
  *mask = s->exec;
  return AMDDWARF_OK;
}

static amddwarf_status cb_apertures(void *user, uint64_t *shared_base, uint64_t *private_base)
{
  amddwarf_snapshot *s = user;
  if (!s->has_apertures)
    return AMDDWARF_E_UNSUPPORTED;
  *shared_base = s->shared_base;
  *private_base = s->private_base;
  return AMDDWARF_OK;
}

static amddwarf_status cb_frame_base(void *user, const uint8_t **expr, size_t *size)
{
  amddwarf_snapshot *s = user;
  if (!s->has_frame_base)
    return AMDDWARF_E_UNSUPPORTED;
  *expr = s->frame_base;
  *size = s->frame_base_size;
  return AMDDWARF_OK;
}

static amddwarf_status addr_answer(const snap_addr *a, uint32_t *aspace, uint64_t *address)
{
  if (!a->present)
    return AMDDWARF_E_UNSUPPORTED;
  *aspace = a->aspace;
  *address = a->address;
  return AMDDWARF_OK;
}

static amddwarf_status cb_cfa(void *user, uint32_t *aspace, uint64_t *address)
{
  return addr_answer(&((amddwarf_snapshot *)user)->cfa, aspace, address);
}

static amddwarf_status cb_object_address(void *user, uint32_t *aspace, uint64_t *address)
{
  return addr_answer(&((amddwarf_snapshot *)user)->object, aspace, address);
}

static amddwarf_status cb_tls_address(void *user, uint64_t offset, uint64_t *address)
{
  amddwarf_snapshot *s = user;
  if (!s->has_tls)
    return AMDDWARF_E_UNSUPPORTED;
  *address = s->tls_base + offset;
  return AMDDWARF_OK;
}

static amddwarf_status cb_address_index(void *user, uint64_t index, uint64_t *value)
{
  amddwarf_snapshot *s = user;
  if (!s->debug_addr)
    return AMDDWARF_E_UNSUPPORTED;
  if (index >= s->debug_addr_count)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  *value = s->debug_addr[index];
  return AMDDWARF_OK;
}

static amddwarf_status cb_base_type(void *user, uint64_t die, amddwarf_base_type *out)
{
  amddwarf_snapshot *s = user;
  for (size_t i = 0; i < s->type_count; i++)
    if (s->types[i].die == die) {
      *out = s->types[i];
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

static amddwarf_status cb_die(void *user, amddwarf_die_ref_kind kind, uint64_t ref,
                              amddwarf_die *out)
{
  amddwarf_snapshot *s = user;
  uint64_t offset = kind == AMDDWARF_DIE_REF_UNIT ? s->unit_offset + ref : ref;
  for (size_t i = 0; i < s->die_count; i++)
    if (s->dies[i].offset == offset) {
      out->is_dwarf_procedure = s->dies[i].procedure;
      out->value = s->dies[i].value;
      out->bytes = s->dies[i].bytes;
      out->size = s->dies[i].size;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

void amddwarf_snapshot_target(amddwarf_snapshot *snapshot, amddwarf_target *t)
{
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = snapshot;
  t->read_register = cb_read_register;
  t->write_register = cb_write_register;
  t->read_memory = cb_read_memory;
  t->write_memory = cb_write_memory;
  t->focused_lane = cb_focused_lane;
  t->wave_size = cb_wave_size;
  t->exec_mask = cb_exec_mask;
  t->apertures = snapshot->has_apertures ? cb_apertures : NULL;
  t->frame_base = cb_frame_base;
  t->cfa = cb_cfa;
  t->object_address = cb_object_address;
  t->tls_address = cb_tls_address;
  t->address_index = cb_address_index;
  t->base_type = cb_base_type;
  t->die = cb_die;
  t->read_entry_register = cb_read_entry_register;
}
