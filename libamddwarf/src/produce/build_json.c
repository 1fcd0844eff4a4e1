/* The JSON build description (specs/build.md) -> a code object, through the
 * builders: the document (DWARF options, .text, symbols) and the helpers its
 * halves share (build_json.h); the units are read in build_json_dwarf.c, the
 * CFI in build_json_cfi.c. */
#include "produce/build_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"

amddwarf_status amddwarf__desc_fail(desc_ctx *c, const char *member, const char *fmt, const char *detail)
{
  char what[160];
  snprintf(what, sizeof what, fmt, detail ? detail : "");
  return amddwarf__fail(c->err, AMDDWARF_E_PRODUCE_DESCRIPTION, AMDDWARF_NO_OFFSET, "%s%s%s: %s",
                       c->path, member && c->path[0] ? "." : "", member ? member : "", what);
}

/* Path helpers: set the path to PARENT[INDEX] or PARENT.NAME. */
void amddwarf__desc_path_index(desc_ctx *c, const char *base, const char *member, size_t index)
{
  char tmp[200];
  snprintf(tmp, sizeof tmp, "%s%s%s[%zu]", base, base[0] ? "." : "", member, index);
  memcpy(c->path, tmp, sizeof tmp);
}

/* The JSON path of member KEY of the current item. */
void amddwarf__desc_member_path(const desc_ctx *c, const char *key, char path[256])
{
  snprintf(path, 256, "%s%s%s", c->path, c->path[0] ? "." : "", key);
}

/* An unsigned member in [0, MAX] (common/json_int.h); DEF when it is absent
   and not REQUIRED. */
amddwarf_status amddwarf__desc_u64(desc_ctx *c, json_t *obj, const char *key, int required, uint64_t def,
                         uint64_t max, uint64_t *out)
{
  json_t *v = json_object_get(obj, key);
  char path[256];
  *out = def;
  if (!v && !required)
    return AMDDWARF_OK;
  amddwarf__desc_member_path(c, key, path);
  return amddwarf__json_uint(v, max, path, AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, out);
}

/* A signed member (required). */
amddwarf_status amddwarf__desc_i64(desc_ctx *c, json_t *obj, const char *key, int64_t *out)
{
  char path[256];
  amddwarf__desc_member_path(c, key, path);
  return amddwarf__json_int(json_object_get(obj, key), INT64_MIN, INT64_MAX, path,
                           AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, out);
}

const char *amddwarf__desc_str(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

int amddwarf__desc_bool(json_t *obj, const char *key)
{
  return json_is_true(json_object_get(obj, key));
}

/* ---- expressions -------------------------------------------------------- */

static int resolve_name(void *user, const char *name, amddwarf_die_id *die)
{
  desc_ctx *c = user;
  *die = amddwarf__dwarf_find_named(c->b, c->unit, name);
  return *die ? 0 : -1;
}

amddwarf_status amddwarf__desc_assemble(desc_ctx *c, const char *member, const char *text,
                              amddwarf_expr_builder **out)
{
  amddwarf_expr_builder *e = NULL;
  amddwarf_status st =
      amddwarf_expr_builder_new(&c->format, amddwarf__dwarf_builder_allocator(c->b), &e);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(c->err, st, AMDDWARF_NO_OFFSET, "out of memory");
  st = amddwarf_expr_builder_assemble(e, text, c->wave, resolve_name, c, c->err);
  if (st != AMDDWARF_OK) {
    amddwarf_expr_builder_free(e);
    if (c->err) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
      memcpy(inner, c->err->message, sizeof inner);
      amddwarf__fail(c->err, st, c->err->offset, "%s.%s: %s", c->path, member, inner);
    }
    return st;
  }
  *out = e;
  return AMDDWARF_OK;
}

/* ---- the document ------------------------------------------------------------ */

static amddwarf_status read_options(desc_ctx *c, json_t *root, amddwarf_dwarf_options *o)
{
  amddwarf_dwarf_options_init(o);
  json_t *d = json_object_get(root, "dwarf");
  snprintf(c->path, sizeof c->path, "dwarf");
  if (!d)
    return AMDDWARF_OK;
  if (!json_is_object(d))
    return amddwarf__desc_fail(c, NULL, "an object expected", NULL);
  uint64_t v;
  amddwarf_status st = amddwarf__desc_u64(c, d, "version", 0, 5, 0xffff, &v);
  if (st != AMDDWARF_OK)
    return st;
  if (v != 4 && v != 5)
    return amddwarf__desc_fail(c, "version", "DWARF version 4 or 5", NULL);
  o->version = (uint16_t)v;
  const char *format = amddwarf__desc_str(d, "format");
  if (format && strcmp(format, "dwarf64") == 0)
    o->offset_size = 8;
  else if (format && strcmp(format, "dwarf32") != 0)
    return amddwarf__desc_fail(c, "format", "\"dwarf32\" or \"dwarf64\"", NULL);
  const char *dialect = amddwarf__desc_str(d, "dialect");
  if (dialect && amddwarf_dialect_from_name(dialect, &o->dialect) != AMDDWARF_OK)
    return amddwarf__desc_fail(c, "dialect", "unknown dialect '%s'", dialect);
  const char *codes = amddwarf__desc_str(d, "attribute_codes");
  if (codes && strcmp(codes, "old") == 0)
    o->old_attribute_codes = 1;
  else if (codes && strcmp(codes, "current") != 0)
    return amddwarf__desc_fail(c, "attribute_codes", "\"old\" or \"current\"", NULL);
  st = amddwarf__desc_u64(c, d, "wave_size", 0, 64, 64, &v);
  if (st == AMDDWARF_OK && v != 32 && v != 64)
    st = amddwarf__desc_fail(c, "wave_size", "32 or 64", NULL);
  o->wave_size = (unsigned)v;
  return st;
}

static int feature_value(const char *s)
{
  static const char *const names[] = {"unsupported", "any", "off", "on"};
  for (int i = 0; i < 4; i++)
    if (s && strcmp(s, names[i]) == 0)
      return i;
  return -1;
}

static amddwarf_status read_object(desc_ctx *c, json_t *root, amddwarf_write_options *o,
                                   uint8_t **text, size_t *text_size,
                                   amddwarf_symbol_desc **symbols)
{
  const amddwarf_allocator *alloc = amddwarf__dwarf_builder_allocator(c->b);
  amddwarf_write_options_init(o);
  json_t *obj = json_object_get(root, "object");
  snprintf(c->path, sizeof c->path, "object");
  if (!json_is_object(obj))
    return amddwarf__desc_fail(c, NULL, "missing or not an object", NULL);
  const char *type = amddwarf__desc_str(obj, "type");
  if (type && strcmp(type, "shared") == 0)
    o->shared = 1;
  else if (type && strcmp(type, "relocatable") != 0)
    return amddwarf__desc_fail(c, "type", "\"relocatable\" or \"shared\"", NULL);
  if (amddwarf__desc_str(obj, "processor"))
    o->processor = amddwarf__desc_str(obj, "processor");
  if (json_object_get(obj, "xnack") && (o->xnack = feature_value(amddwarf__desc_str(obj, "xnack"))) < 0)
    return amddwarf__desc_fail(c, "xnack", "\"unsupported\", \"any\", \"off\" or \"on\"", NULL);
  if (json_object_get(obj, "sramecc") &&
      (o->sramecc = feature_value(amddwarf__desc_str(obj, "sramecc"))) < 0)
    return amddwarf__desc_fail(c, "sramecc", "\"unsupported\", \"any\", \"off\" or \"on\"", NULL);
  /* .text: "text": "hex bytes" or "text_size": N (filled with s_nop 0) */
  const char *hex = amddwarf__desc_str(obj, "text");
  uint64_t size = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (hex) {
    size_t digits = 0;
    for (const char *p = hex; *p; p++)
      digits += *p != ' ';
    size = digits / 2;
  } else {
    st = amddwarf__desc_u64(c, obj, "text_size", 1, 0, 64u << 20, &size);
    if (st != AMDDWARF_OK)
      return st;
  }
  if (size == 0 || size > (64u << 20))
    return amddwarf__desc_fail(c, "text", ".text of 1 byte to 64 MiB expected", NULL);
  *text = amddwarf__mem_alloc(alloc, (size_t)size);
  if (!*text)
    return amddwarf__fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  *text_size = (size_t)size;
  if (hex) {
    size_t n = 0;
    int high = -1;
    for (const char *p = hex; *p; p++) {
      if (*p == ' ')
        continue;
      int v = (*p >= '0' && *p <= '9')   ? *p - '0'
              : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
              : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10
                                         : -1;
      if (v < 0)
        return amddwarf__desc_fail(c, "text", "not hex", NULL);
      if (high < 0) {
        high = v;
      } else {
        (*text)[n++] = (uint8_t)(high << 4 | v);
        high = -1;
      }
    }
    if (high >= 0)
      return amddwarf__desc_fail(c, "text", "an odd number of hex digits", NULL);
  } else {
    static const uint8_t s_nop[4] = {0x00, 0x00, 0x80, 0xbf}; /* s_nop 0 */
    for (size_t i = 0; i < *text_size; i++)
      (*text)[i] = s_nop[i % 4];
  }
  o->text = *text;
  o->text_size = *text_size;
  json_t *syms = json_object_get(root, "symbols");
  size_t n = json_array_size(syms);
  *symbols = amddwarf__mem_calloc(alloc, n ? n : 1, sizeof **symbols);
  if (!*symbols)
    return amddwarf__fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  size_t i;
  json_t *s;
  json_array_foreach(syms, i, s)
  {
    amddwarf__desc_path_index(c, "", "symbols", i);
    amddwarf_symbol_desc *d = &(*symbols)[i];
    d->name = amddwarf__desc_str(s, "name");
    if (!d->name)
      return amddwarf__desc_fail(c, "name", "missing", NULL);
    st = amddwarf__desc_u64(c, s, "offset", 1, 0, UINT64_MAX, &d->text_offset);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, s, "size", 0, 0, UINT64_MAX, &d->size);
    if (st != AMDDWARF_OK)
      return st;
    const char *kind = amddwarf__desc_str(s, "kind");
    d->is_object = kind && strcmp(kind, "object") == 0;
    const char *binding = amddwarf__desc_str(s, "binding");
    d->is_local = binding && strcmp(binding, "local") == 0;
  }
  o->symbols = *symbols;
  o->symbol_count = n;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_build_json(const char *text, size_t size,
                                    const amddwarf_allocator *alloc, uint8_t **out,
                                    size_t *out_size, amddwarf_error *err)
{
  if (!text || !out || !out_size)
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  *out_size = 0;
  json_error_t jerr;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)jerr.position,
                         "build description, line %d column %d: %s", jerr.line, jerr.column,
                         jerr.text);
  desc_ctx c;
  memset(&c, 0, sizeof c);
  c.err = err;
  amddwarf_dwarf_options dopts;
  amddwarf_write_options wopts;
  uint8_t *text_bytes = NULL;
  size_t text_size = 0;
  amddwarf_symbol_desc *symbols = NULL;
  size_t symbol_count = json_array_size(json_object_get(root, "symbols"));
  amddwarf_status st = AMDDWARF_OK;
  if (!json_is_object(root))
    st = amddwarf__desc_fail(&c, NULL, "the description is a JSON object", NULL);
  if (st == AMDDWARF_OK)
    st = read_options(&c, root, &dopts);
  if (st == AMDDWARF_OK) {
    st = amddwarf_dwarf_builder_new(&dopts, alloc, &c.b);
    if (st != AMDDWARF_OK)
      st = amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "cannot create the DWARF builder");
  }
  if (st == AMDDWARF_OK) {
    amddwarf_dwarf_builder_expr_format(c.b, &c.format);
    c.wave = dopts.wave_size;
    st = read_object(&c, root, &wopts, &text_bytes, &text_size, &symbols);
  }
  json_t *units = json_object_get(root, "units");
  if (st == AMDDWARF_OK && units && !json_is_array(units))
    st = amddwarf__desc_fail(&c, "units", "an array expected", NULL);
  size_t i;
  json_t *u;
  json_array_foreach(units, i, u)
  {
    if (st != AMDDWARF_OK)
      break;
    st = amddwarf__desc_build_unit(&c, u, i);
  }
  json_t *cfi = json_object_get(root, "cfi");
  if (st == AMDDWARF_OK && cfi)
    st = amddwarf__desc_build_cfi(&c, cfi, &dopts);
  if (st == AMDDWARF_OK) {
    wopts.cfi = c.cfi;
    st = amddwarf_object_write(json_array_size(units) ? c.b : NULL, &wopts, out, out_size, err);
  }
  if (c.b) {
    const amddwarf_allocator *a = amddwarf__dwarf_builder_allocator(c.b);
    amddwarf__mem_free(a, text_bytes, text_size);
    amddwarf__mem_free(a, symbols, (symbol_count ? symbol_count : 1) * sizeof *symbols);
    amddwarf__mem_free(a, c.type_dies, (c.type_count ? c.type_count : 1) * sizeof *c.type_dies);
  }
  amddwarf_cfi_builder_free(c.cfi);
  amddwarf_dwarf_builder_free(c.b);
  json_decref(root);
  return st;
}

