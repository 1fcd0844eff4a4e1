/* The JSON build description (specs/build.md) -> a code object, through the
 * builders. Every error names the member that is wrong ("units[0].functions[1]
 * .variables[2].location: ..."). */
#include <amddwarf/produce.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"
#include "produce/produce_internal.h"

enum {
  DW_TAG_array_type = 0x01,
  DW_TAG_enumeration_type = 0x04,
  DW_TAG_formal_parameter = 0x05,
  DW_TAG_lexical_block = 0x0b,
  DW_TAG_member = 0x0d,
  DW_TAG_pointer_type = 0x0f,
  DW_TAG_structure_type = 0x13,
  DW_TAG_typedef = 0x16,
  DW_TAG_union_type = 0x17,
  DW_TAG_subrange_type = 0x21,
  DW_TAG_enumerator = 0x28,
  DW_TAG_base_type = 0x24,
  DW_TAG_const_type = 0x26,
  DW_TAG_subprogram = 0x2e,
  DW_TAG_variable = 0x34,
  DW_TAG_dwarf_procedure = 0x36,
  DW_AT_location = 0x02,
  DW_AT_name = 0x03,
  DW_AT_byte_size = 0x0b,
  DW_AT_bit_size = 0x0d,
  DW_AT_const_value = 0x1c,
  DW_AT_upper_bound = 0x2f,
  DW_AT_address_class = 0x33,
  DW_AT_artificial = 0x34,
  DW_AT_lower_bound = 0x22,
  DW_AT_count = 0x37,
  DW_AT_data_member_location = 0x38,
  DW_AT_decl_file = 0x3a,
  DW_AT_decl_line = 0x3b,
  DW_AT_encoding = 0x3e,
  DW_AT_external = 0x3f,
  DW_AT_frame_base = 0x40,
  DW_AT_type = 0x49,
  DW_AT_data_bit_offset = 0x6b,
  MAX_DEPTH = 32,
  MAX_REGION_NODES = 4096,
};

typedef struct ctx {
  amddwarf_dwarf_builder *b;
  amddwarf_cfi_builder *cfi;
  amddwarf_expr_format format;
  unsigned wave;
  amddwarf_die_id unit;
  json_t *types; /* the unit's "types" array: ids -> DIEs */
  amddwarf_die_id *type_dies;
  size_t type_count;
  amddwarf_error *err;
  char path[200];
} ctx;

static amddwarf_status bad(ctx *c, const char *member, const char *fmt, const char *detail)
{
  char what[160];
  snprintf(what, sizeof what, fmt, detail ? detail : "");
  return amddwarf_fail(c->err, AMDDWARF_E_PRODUCE_DESCRIPTION, AMDDWARF_NO_OFFSET, "%s%s%s: %s",
                       c->path, member && c->path[0] ? "." : "", member ? member : "", what);
}

/* Path helpers: set the path to PARENT[INDEX] or PARENT.NAME. */
static void path_index(ctx *c, const char *base, const char *member, size_t index)
{
  char tmp[200];
  snprintf(tmp, sizeof tmp, "%s%s%s[%zu]", base, base[0] ? "." : "", member, index);
  memcpy(c->path, tmp, sizeof tmp);
}

/* The JSON path of member KEY of the current item. */
static void member_path(const ctx *c, const char *key, char path[256])
{
  snprintf(path, 256, "%s%s%s", c->path, c->path[0] ? "." : "", key);
}

/* An unsigned member in [0, MAX] (common/json_int.h); DEF when it is absent
   and not REQUIRED. */
static amddwarf_status get_u64(ctx *c, json_t *obj, const char *key, int required,
                               uint64_t def, uint64_t max, uint64_t *out)
{
  json_t *v = json_object_get(obj, key);
  char path[256];
  *out = def;
  if (!v && !required)
    return AMDDWARF_OK;
  member_path(c, key, path);
  return amddwarf_json_uint(v, max, path, AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, out);
}

/* A signed member (required). */
static amddwarf_status get_i64(ctx *c, json_t *obj, const char *key, int64_t *out)
{
  char path[256];
  member_path(c, key, path);
  return amddwarf_json_int(json_object_get(obj, key), INT64_MIN, INT64_MAX, path,
                           AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, out);
}

static const char *get_str(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static int get_bool(json_t *obj, const char *key)
{
  return json_is_true(json_object_get(obj, key));
}

/* ---- expressions -------------------------------------------------------- */

typedef struct name_ctx {
  ctx *c;
} name_ctx;

static int resolve_name(void *user, const char *name, amddwarf_die_id *die)
{
  ctx *c = user;
  *die = amddwarf_dwarf_find_named(c->b, c->unit, name);
  return *die ? 0 : -1;
}

static amddwarf_status assemble(ctx *c, const char *member, const char *text,
                                amddwarf_expr_builder **out)
{
  amddwarf_expr_builder *e = NULL;
  amddwarf_status st =
      amddwarf_expr_builder_new(&c->format, amddwarf_dwarf_builder_allocator(c->b), &e);
  if (st != AMDDWARF_OK)
    return amddwarf_fail(c->err, st, AMDDWARF_NO_OFFSET, "out of memory");
  st = amddwarf_expr_builder_assemble(e, text, c->wave, resolve_name, c, c->err);
  if (st != AMDDWARF_OK) {
    amddwarf_expr_builder_free(e);
    if (c->err) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
      memcpy(inner, c->err->message, sizeof inner);
      amddwarf_fail(c->err, st, c->err->offset, "%s.%s: %s", c->path, member, inner);
    }
    return st;
  }
  *out = e;
  return AMDDWARF_OK;
}

/* A location: "TEXT" (exprloc) or [{"low","high","expr"}] (location list). */
static amddwarf_status location_attr(ctx *c, amddwarf_die_id die, uint16_t at,
                                     const char *member, json_t *value)
{
  amddwarf_expr_builder *e = NULL;
  amddwarf_status st;
  if (json_is_string(value)) {
    st = assemble(c, member, json_string_value(value), &e);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_expr(c->b, die, at, e, c->err);
    amddwarf_expr_builder_free(e);
    return st;
  }
  if (!json_is_array(value))
    return bad(c, member, "a location is an expression string or a list of entries", NULL);
  amddwarf_loclist_id list;
  st = amddwarf_dwarf_attr_loclist(c->b, die, at, &list, c->err);
  size_t i;
  json_t *entry;
  json_array_foreach(value, i, entry)
  {
    if (st != AMDDWARF_OK)
      break;
    uint64_t low, high;
    const char *text = get_str(entry, "expr");
    st = get_u64(c, entry, "low", 1, 0, UINT64_MAX, &low);
    if (st == AMDDWARF_OK)
      st = get_u64(c, entry, "high", 1, 0, UINT64_MAX, &high);
    if (st == AMDDWARF_OK && !text)
      st = bad(c, member, "entry without an \"expr\" string", NULL);
    if (st == AMDDWARF_OK)
      st = assemble(c, member, text, &e);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_loclist_add(c->b, list, low, high, e, c->err);
    amddwarf_expr_builder_free(e);
    e = NULL;
  }
  return st;
}

/* ---- types ---------------------------------------------------------------- */

static amddwarf_status type_ref(ctx *c, json_t *obj, const char *key, amddwarf_die_id *die)
{
  const char *id = get_str(obj, key);
  *die = 0;
  if (!id)
    return bad(c, key, "missing or not a type id", NULL);
  size_t i;
  json_t *t;
  json_array_foreach(c->types, i, t)
  {
    const char *tid = get_str(t, "id");
    if (!tid)
      tid = get_str(t, "name");
    if (tid && strcmp(tid, id) == 0) {
      *die = c->type_dies[i];
      return AMDDWARF_OK;
    }
  }
  return bad(c, key, "no type with id '%s'", id);
}

static const struct {
  const char *name;
  uint8_t tag;
} type_kinds[] = {
    {"base", DW_TAG_base_type},       {"pointer", DW_TAG_pointer_type},
    {"struct", DW_TAG_structure_type}, {"array", DW_TAG_array_type},
    {"typedef", DW_TAG_typedef},       {"const", DW_TAG_const_type},
    {"union", DW_TAG_union_type},      {"enum", DW_TAG_enumeration_type},
};

static const struct {
  const char *name;
  uint8_t value;
} encodings[] = {
    {"address", 0x01}, {"boolean", 0x02}, {"float", 0x04},         {"signed", 0x05},
    {"signed_char", 0x06}, {"unsigned", 0x07}, {"unsigned_char", 0x08},
};


/* An array's dimensions: "count" is one number or an array of them (one
   DW_TAG_subrange_type each, outermost first); "lower_bound", when given, is
   one signed number or an array of the same length (DW_AT_lower_bound). */
static amddwarf_status build_subranges(ctx *c, amddwarf_die_id array, json_t *t)
{
  json_t *counts = json_object_get(t, "count"), *lowers = json_object_get(t, "lower_bound");
  size_t n = json_is_array(counts) ? json_array_size(counts) : 1;
  if (n == 0 || n > 16)
    return bad(c, "count", "1 to 16 dimensions expected", NULL);
  if (lowers && (json_is_array(lowers) != json_is_array(counts) ||
                 (json_is_array(lowers) && json_array_size(lowers) != n)))
    return bad(c, "lower_bound", "one per dimension of count expected", NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *one = json_object();
    uint64_t count = 0;
    int64_t lower = 0;
    amddwarf_die_id sub;
    /* Each dimension read as a {"count", "lower_bound"} of its own. */
    if (one == NULL)
      return bad(c, "count", "out of memory", NULL);
    json_object_set(one, "count", json_is_array(counts) ? json_array_get(counts, i) : counts);
    if (lowers)
      json_object_set(one, "lower_bound", json_is_array(lowers) ? json_array_get(lowers, i) : lowers);
    amddwarf_status st = get_u64(c, one, "count", 1, 0, UINT64_MAX, &count);
    if (st == AMDDWARF_OK && lowers)
      st = get_i64(c, one, "lower_bound", &lower);
    json_decref(one);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_die_new(c->b, array, DW_TAG_subrange_type, &sub, c->err);
    if (st == AMDDWARF_OK && lowers)
      st = amddwarf_dwarf_attr_sdata(c->b, sub, DW_AT_lower_bound, lower, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, sub, DW_AT_count, count, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}
/* The members of a struct or union: "offset" in bytes
   (DW_AT_data_member_location), or a bitfield's "bit_size" with its
   "data_bit_offset" in bits. */
static amddwarf_status build_members(ctx *c, amddwarf_die_id aggregate, json_t *t)
{
  size_t k;
  json_t *m;
  json_array_foreach(json_object_get(t, "members"), k, m)
  {
    amddwarf_die_id md, mt;
    uint64_t v = 0, bits = 0;
    const char *mname = get_str(m, "name");
    int bitfield = json_object_get(m, "bit_size") != NULL;
    if (!mname)
      return bad(c, "members", "a member without a name", NULL);
    amddwarf_status st = amddwarf_dwarf_die_new(c->b, aggregate, DW_TAG_member, &md, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(c->b, md, DW_AT_name, mname, c->err);
    if (st == AMDDWARF_OK)
      st = type_ref(c, m, "type", &mt);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_ref(c->b, md, DW_AT_type, mt, c->err);
    if (st == AMDDWARF_OK && bitfield)
      st = get_u64(c, m, "bit_size", 1, 0, UINT64_MAX, &bits);
    if (st == AMDDWARF_OK && bitfield)
      st = amddwarf_dwarf_attr_udata(c->b, md, DW_AT_bit_size, bits, c->err);
    if (st == AMDDWARF_OK)
      st = get_u64(c, m, bitfield ? "data_bit_offset" : "offset", 1, 0, UINT64_MAX, &v);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, md,
                                     bitfield ? DW_AT_data_bit_offset : DW_AT_data_member_location,
                                     v, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* The enumerators of an enumeration: [{"name", "value" (signed)}]. */
static amddwarf_status build_enumerators(ctx *c, amddwarf_die_id enumeration, json_t *t)
{
  size_t k;
  json_t *e;
  json_array_foreach(json_object_get(t, "enumerators"), k, e)
  {
    amddwarf_die_id ed;
    int64_t value = 0;
    const char *ename = get_str(e, "name");
    if (!ename)
      return bad(c, "enumerators", "an enumerator without a name", NULL);
    amddwarf_status st = get_i64(c, e, "value", &value);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_die_new(c->b, enumeration, DW_TAG_enumerator, &ed, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(c->b, ed, DW_AT_name, ename, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_sdata(c->b, ed, DW_AT_const_value, value, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

static amddwarf_status build_types(ctx *c, const char *base)
{
  amddwarf_dwarf_builder *b = c->b;
  size_t n = json_array_size(c->types);
  c->type_count = n;
  c->type_dies = amddwarf_mem_calloc(amddwarf_dwarf_builder_allocator(b), n ? n : 1,
                                     sizeof *c->type_dies);
  if (!c->type_dies)
    return amddwarf_fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_status st = AMDDWARF_OK;
  size_t i;
  json_t *t;
  json_array_foreach(c->types, i, t)
  {
    path_index(c, base, "types", i);
    const char *kind = get_str(t, "kind");
    uint8_t tag = 0;
    for (size_t k = 0; kind && k < sizeof type_kinds / sizeof type_kinds[0]; k++)
      if (strcmp(kind, type_kinds[k].name) == 0)
        tag = type_kinds[k].tag;
    if (!tag)
      return bad(c, "kind", "unknown type kind '%s'", kind ? kind : "(none)");
    st = amddwarf_dwarf_die_new(b, c->unit, tag, &c->type_dies[i], c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(c->types, i, t)
  {
    path_index(c, base, "types", i);
    amddwarf_die_id die = c->type_dies[i];
    const char *kind = get_str(t, "kind");
    const char *name = get_str(t, "name");
    uint64_t v;
    if (name)
      st = amddwarf_dwarf_attr_string(b, die, DW_AT_name, name, c->err);
    if (st == AMDDWARF_OK && json_object_get(t, "byte_size")) {
      st = get_u64(c, t, "byte_size", 1, 0, UINT64_MAX, &v);
      if (st == AMDDWARF_OK)
        st = amddwarf_dwarf_attr_udata(b, die, DW_AT_byte_size, v, c->err);
    }
    if (st != AMDDWARF_OK)
      return st;
    if (strcmp(kind, "base") == 0) {
      json_t *enc = json_object_get(t, "encoding");
      uint64_t code = 0;
      if (json_is_string(enc)) {
        for (size_t k = 0; k < sizeof encodings / sizeof encodings[0]; k++)
          if (strcmp(json_string_value(enc), encodings[k].name) == 0)
            code = encodings[k].value;
        if (!code)
          return bad(c, "encoding", "unknown encoding '%s'", json_string_value(enc));
      } else if ((st = get_u64(c, t, "encoding", 1, 0, 0xff, &code)) != AMDDWARF_OK) {
        return st;
      }
      st = amddwarf_dwarf_attr_udata(b, die, DW_AT_encoding, code, c->err);
      if (st == AMDDWARF_OK && json_object_get(t, "vector_size")) {
        st = get_u64(c, t, "vector_size", 1, 0, UINT64_MAX, &v);
        if (st == AMDDWARF_OK)
          st = amddwarf_dwarf_attr_udata(
              b, die, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_VECTOR_SIZE), v, c->err);
      }
    } else {
      amddwarf_die_id target = 0;
      int aggregate = strcmp(kind, "struct") == 0 || strcmp(kind, "union") == 0;
      /* An enumeration's underlying type is optional (DWARF 2-4 have none). */
      if (json_object_get(t, "type") || (!aggregate && strcmp(kind, "enum") != 0)) {
        st = type_ref(c, t, "type", &target);
        if (st == AMDDWARF_OK)
          st = amddwarf_dwarf_attr_ref(b, die, DW_AT_type, target, c->err);
      }
      if (st == AMDDWARF_OK && strcmp(kind, "pointer") == 0) {
        if (json_object_get(t, "address_class")) {
          st = get_u64(c, t, "address_class", 1, 0, UINT32_MAX, &v);
          if (st == AMDDWARF_OK)
            st = amddwarf_dwarf_attr_udata(b, die, DW_AT_address_class, v, c->err);
        }
        if (st == AMDDWARF_OK && json_object_get(t, "address_space")) {
          st = get_u64(c, t, "address_space", 1, 0, UINT32_MAX, &v);
          if (st == AMDDWARF_OK)
            st = amddwarf_dwarf_attr_udata(
                b, die, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_ADDRESS_SPACE), v,
                c->err);
        }
      }
      if (st == AMDDWARF_OK && strcmp(kind, "array") == 0)
        st = build_subranges(c, die, t);
      if (st == AMDDWARF_OK && aggregate)
        st = build_members(c, die, t);
      if (st == AMDDWARF_OK && strcmp(kind, "enum") == 0)
        st = build_enumerators(c, die, t);
    }
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* ---- variables, blocks, functions ------------------------------------------ */

static amddwarf_status build_variable(ctx *c, amddwarf_die_id parent, json_t *v, uint16_t tag)
{
  const char *name = get_str(v, "name");
  if (!name)
    return bad(c, "name", "missing", NULL);
  amddwarf_die_id die, type;
  amddwarf_status st = amddwarf_dwarf_die_new(c->b, parent, tag, &die, c->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_string(c->b, die, DW_AT_name, name, c->err);
  if (st == AMDDWARF_OK && json_object_get(v, "type")) {
    st = type_ref(c, v, "type", &type);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_ref(c->b, die, DW_AT_type, type, c->err);
  }
  if (st == AMDDWARF_OK && json_object_get(v, "line")) {
    uint64_t line, file;
    st = get_u64(c, v, "line", 1, 0, UINT32_MAX, &line);
    if (st == AMDDWARF_OK)
      st = get_u64(c, v, "file", 0, 1, UINT32_MAX, &file);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, die, DW_AT_decl_file, file, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, die, DW_AT_decl_line, line, c->err);
  }
  if (st == AMDDWARF_OK && get_bool(v, "artificial"))
    st = amddwarf_dwarf_attr_flag(c->b, die, DW_AT_artificial, c->err);
  if (st == AMDDWARF_OK && json_object_get(v, "location"))
    st = location_attr(c, die, DW_AT_location, "location", json_object_get(v, "location"));
  if (st == AMDDWARF_OK && json_object_get(v, "const_value")) {
    int64_t value = 0;
    st = get_i64(c, v, "const_value", &value);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_sdata(c->b, die, DW_AT_const_value, value, c->err);
  }
  return st;
}

/* "ranges": [[low, high], ...] or "low"/"high". */
static amddwarf_status build_ranges(ctx *c, amddwarf_die_id die, json_t *obj, uint64_t *low,
                                    uint64_t *high)
{
  uint64_t starts[64], ends[64];
  size_t n = 0;
  json_t *ranges = json_object_get(obj, "ranges");
  amddwarf_status st = AMDDWARF_OK;
  if (ranges) {
    size_t i;
    json_t *r;
    if (!json_is_array(ranges) || json_array_size(ranges) == 0 || json_array_size(ranges) > 64)
      return bad(c, "ranges", "1-64 [low, high] pairs expected", NULL);
    json_array_foreach(ranges, i, r)
    {
      char path[256], low_path[280], high_path[280];
      if (!json_is_array(r) || json_array_size(r) != 2)
        return bad(c, "ranges", "each range is [low, high]", NULL);
      member_path(c, "ranges", path);
      snprintf(low_path, sizeof low_path, "%s[%zu][0]", path, i);
      snprintf(high_path, sizeof high_path, "%s[%zu][1]", path, i);
      if ((st = amddwarf_json_uint(json_array_get(r, 0), UINT64_MAX, low_path,
                                   AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, &starts[n])) !=
              AMDDWARF_OK ||
          (st = amddwarf_json_uint(json_array_get(r, 1), UINT64_MAX, high_path,
                                   AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, &ends[n])) !=
              AMDDWARF_OK)
        return st;
      n++;
    }
  } else {
    st = get_u64(c, obj, "low", 1, 0, UINT64_MAX, &starts[0]);
    if (st == AMDDWARF_OK)
      st = get_u64(c, obj, "high", 1, 0, UINT64_MAX, &ends[0]);
    n = 1;
  }
  if (st != AMDDWARF_OK)
    return st;
  *low = UINT64_MAX;
  *high = 0;
  for (size_t i = 0; i < n; i++) {
    if (starts[i] < *low)
      *low = starts[i];
    if (ends[i] > *high)
      *high = ends[i];
  }
  return amddwarf_dwarf_attr_ranges(c->b, die, starts, ends, n, c->err);
}

static amddwarf_status build_scope(ctx *c, amddwarf_die_id die, json_t *obj, int depth);

static amddwarf_status build_children(ctx *c, amddwarf_die_id die, json_t *obj, int depth)
{
  char saved[200];
  memcpy(saved, c->path, sizeof saved);
  amddwarf_status st = AMDDWARF_OK;
  static const struct {
    const char *member;
    uint16_t tag;
  } lists[] = {{"parameters", DW_TAG_formal_parameter}, {"variables", DW_TAG_variable}};
  for (size_t l = 0; l < 2 && st == AMDDWARF_OK; l++) {
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(obj, lists[l].member), i, v)
    {
      path_index(c, saved, lists[l].member, i);
      st = build_variable(c, die, v, lists[l].tag);
      if (st != AMDDWARF_OK)
        break;
    }
  }
  size_t i;
  json_t *blk;
  json_array_foreach(json_object_get(obj, "blocks"), i, blk)
  {
    if (st != AMDDWARF_OK)
      break;
    path_index(c, saved, "blocks", i);
    amddwarf_die_id bd;
    st = amddwarf_dwarf_die_new(c->b, die, DW_TAG_lexical_block, &bd, c->err);
    if (st == AMDDWARF_OK)
      st = build_scope(c, bd, blk, depth + 1);
  }
  memcpy(c->path, saved, sizeof saved);
  return st;
}

static amddwarf_status build_scope(ctx *c, amddwarf_die_id die, json_t *obj, int depth)
{
  if (depth > MAX_DEPTH)
    return bad(c, NULL, "scopes nest deeper than 32", NULL);
  uint64_t low, high;
  amddwarf_status st = build_ranges(c, die, obj, &low, &high);
  if (st == AMDDWARF_OK)
    st = build_children(c, die, obj, depth);
  return st;
}

/* Regions: parsed into a tree of amddwarf_region allocated in NODES. */
typedef struct region_pool {
  amddwarf_region *nodes;
  amddwarf_expr_builder **exprs;
  size_t count, capacity;
} region_pool;

static amddwarf_status parse_regions(ctx *c, json_t *list, region_pool *pool, size_t *first,
                                     size_t *count, int depth)
{
  if (!json_is_array(list))
    return bad(c, "regions", "an array of regions expected", NULL);
  if (depth > MAX_DEPTH)
    return bad(c, "regions", "regions nest deeper than 32", NULL);
  size_t n = json_array_size(list);
  if (pool->count + n > pool->capacity)
    return bad(c, "regions", "more than 4096 regions", NULL);
  *first = pool->count;
  *count = n;
  pool->count += n; /* siblings are contiguous */
  size_t i;
  json_t *r;
  json_array_foreach(list, i, r)
  {
    amddwarf_region *node = &pool->nodes[*first + i];
    const char *kind = get_str(r, "kind");
    if (!kind || strcmp(kind, "if") == 0)
      node->kind = AMDDWARF_REGION_IF;
    else if (strcmp(kind, "loop") == 0)
      node->kind = AMDDWARF_REGION_LOOP;
    else if (strcmp(kind, "whole_wave") == 0)
      node->kind = AMDDWARF_REGION_WHOLE_WAVE;
    else
      return bad(c, "regions", "unknown region kind '%s'", kind);
    node->name = get_str(r, "name");
    if (!node->name)
      return bad(c, "regions", "a region without a \"name\"", NULL);
    amddwarf_status st = get_u64(c, r, "start", 1, 0, UINT64_MAX, &node->start);
    if (st == AMDDWARF_OK)
      st = get_u64(c, r, "body", 1, 0, UINT64_MAX, &node->body);
    if (st == AMDDWARF_OK)
      st = get_u64(c, r, "end", 1, 0, UINT64_MAX, &node->end);
    if (st == AMDDWARF_OK)
      st = get_u64(c, r, "else", 0, node->end, UINT64_MAX, &node->else_start);
    const char *save = get_str(r, "save_exec");
    if (st == AMDDWARF_OK && !save)
      st = bad(c, "regions", "region '%s' has no \"save_exec\" location", node->name);
    if (st == AMDDWARF_OK)
      st = assemble(c, "save_exec", save, &pool->exprs[*first + i]);
    if (st != AMDDWARF_OK)
      return st;
    node->save_exec = pool->exprs[*first + i];
    json_t *children = json_object_get(r, "children");
    if (children) {
      size_t cf = 0, cn = 0;
      st = parse_regions(c, children, pool, &cf, &cn, depth + 1);
      if (st != AMDDWARF_OK)
        return st;
      node->children = &pool->nodes[cf];
      node->child_count = cn;
    }
  }
  return AMDDWARF_OK;
}

static amddwarf_status build_lane_pc(ctx *c, amddwarf_die_id fn, uint64_t low, uint64_t high,
                                     json_t *regions)
{
  const amddwarf_allocator *alloc = amddwarf_dwarf_builder_allocator(c->b);
  region_pool pool = {NULL, NULL, 0, MAX_REGION_NODES};
  pool.nodes = amddwarf_mem_calloc(alloc, pool.capacity, sizeof *pool.nodes);
  pool.exprs = amddwarf_mem_calloc(alloc, pool.capacity, sizeof *pool.exprs);
  amddwarf_status st = AMDDWARF_OK;
  if (!pool.nodes || !pool.exprs)
    st = amddwarf_fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  size_t first = 0, count = 0;
  if (st == AMDDWARF_OK)
    st = parse_regions(c, regions, &pool, &first, &count, 0);
  if (st == AMDDWARF_OK) {
    st = amddwarf_dwarf_lane_pc(c->b, c->unit, fn, low, high, pool.nodes + first, count, c->err);
    if (st != AMDDWARF_OK && c->err) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
      memcpy(inner, c->err->message, sizeof inner);
      amddwarf_fail(c->err, st, c->err->offset, "%s.regions: %s", c->path, inner);
    }
  }
  if (pool.exprs)
    for (size_t i = 0; i < pool.capacity; i++)
      amddwarf_expr_builder_free(pool.exprs[i]);
  amddwarf_mem_free(alloc, pool.nodes, pool.capacity * sizeof *pool.nodes);
  amddwarf_mem_free(alloc, pool.exprs, pool.capacity * sizeof *pool.exprs);
  return st;
}

static amddwarf_status build_function(ctx *c, json_t *f)
{
  const char *name = get_str(f, "name");
  if (!name)
    return bad(c, "name", "missing", NULL);
  amddwarf_die_id fn;
  amddwarf_dwarf_builder *b = c->b;
  uint64_t low = 0, high = 0, v;
  amddwarf_status st = amddwarf_dwarf_die_new(b, c->unit, DW_TAG_subprogram, &fn, c->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_string(b, fn, DW_AT_name, name, c->err);
  if (st == AMDDWARF_OK && get_bool(f, "external"))
    st = amddwarf_dwarf_attr_flag(b, fn, DW_AT_external, c->err);
  if (st == AMDDWARF_OK)
    st = build_ranges(c, fn, f, &low, &high);
  if (st == AMDDWARF_OK && json_object_get(f, "frame_base"))
    st = location_attr(c, fn, DW_AT_frame_base, "frame_base", json_object_get(f, "frame_base"));
  if (st == AMDDWARF_OK && json_object_get(f, "lanes")) {
    st = get_u64(c, f, "lanes", 1, 0, UINT32_MAX, &v);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(b, fn, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANES),
                                     v, c->err);
  }
  if (st == AMDDWARF_OK && json_object_get(f, "lane_pc"))
    st = location_attr(c, fn, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_LANE_PC),
                       "lane_pc", json_object_get(f, "lane_pc"));
  if (st == AMDDWARF_OK && json_object_get(f, "active_lane"))
    st = location_attr(c, fn, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_ACTIVE_LANE),
                       "active_lane", json_object_get(f, "active_lane"));
  if (st == AMDDWARF_OK)
    st = build_children(c, fn, f, 0);
  if (st == AMDDWARF_OK && json_object_get(f, "regions"))
    st = build_lane_pc(c, fn, low, high, json_object_get(f, "regions"));
  return st;
}

static amddwarf_status build_unit(ctx *c, json_t *u, size_t index)
{
  amddwarf_dwarf_builder *b = c->b;
  path_index(c, "", "units", index);
  char base[200];
  memcpy(base, c->path, sizeof base);
  uint64_t language;
  amddwarf_status st =
      get_u64(c, u, "language", 0, 0x0015 /* DW_LANG_OpenCL */, 0xffff, &language);
  if (st != AMDDWARF_OK)
    return st;
  json_t *aug = json_object_get(u, "augmentation");
  const char *augmentation = aug ? (json_is_null(aug) ? NULL : json_string_value(aug))
                                 : "[amd:v0.0]";
  if (aug && !json_is_null(aug) && !json_is_string(aug))
    return bad(c, "augmentation", "a string or null", NULL);
  st = amddwarf_dwarf_unit_new(b, get_str(u, "name"), get_str(u, "comp_dir"),
                               get_str(u, "producer") ? get_str(u, "producer") : "amddwarf build",
                               (uint32_t)language, augmentation, &c->unit, c->err);
  if (st != AMDDWARF_OK)
    return st;
  size_t i;
  json_t *item;
  json_array_foreach(json_object_get(u, "files"), i, item)
  {
    path_index(c, base, "files", i);
    uint32_t file;
    const char *name = get_str(item, "name");
    if (!name)
      return bad(c, "name", "missing", NULL);
    st = amddwarf_dwarf_line_file(b, c->unit, name, get_str(item, "dir"), &file, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(json_object_get(u, "lines"), i, item)
  {
    path_index(c, base, "lines", i);
    uint64_t offset, file, line, column;
    st = get_u64(c, item, "offset", 1, 0, UINT64_MAX, &offset);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "file", 0, 1, UINT32_MAX, &file);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "line", 1, 0, UINT32_MAX, &line);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "column", 0, 0, UINT32_MAX, &column);
    json_t *is_stmt = json_object_get(item, "is_stmt");
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_line_row(b, c->unit, offset, (uint32_t)file, (uint32_t)line,
                                   (uint32_t)column, is_stmt ? json_is_true(is_stmt) : 1, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  c->types = json_object_get(u, "types");
  st = build_types(c, base);
  json_array_foreach(json_object_get(u, "procedures"), i, item)
  {
    if (st != AMDDWARF_OK)
      break;
    path_index(c, base, "procedures", i);
    amddwarf_die_id p;
    const char *name = get_str(item, "name");
    json_t *loc = json_object_get(item, "location");
    if (!name || !loc)
      return bad(c, NULL, "a procedure has a \"name\" and a \"location\"", NULL);
    st = amddwarf_dwarf_die_new(b, c->unit, DW_TAG_dwarf_procedure, &p, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(b, p, DW_AT_name, name, c->err);
    if (st == AMDDWARF_OK)
      st = location_attr(c, p, DW_AT_location, "location", loc);
  }
  json_array_foreach(json_object_get(u, "variables"), i, item)
  {
    if (st != AMDDWARF_OK)
      break;
    path_index(c, base, "variables", i);
    st = build_variable(c, c->unit, item, DW_TAG_variable);
  }
  json_array_foreach(json_object_get(u, "functions"), i, item)
  {
    if (st != AMDDWARF_OK)
      break;
    path_index(c, base, "functions", i);
    st = build_function(c, item);
  }
  amddwarf_mem_free(amddwarf_dwarf_builder_allocator(b), c->type_dies,
                    (c->type_count ? c->type_count : 1) * sizeof *c->type_dies);
  c->type_dies = NULL;
  return st;
}

/* ---- CFI ------------------------------------------------------------------------ */

static amddwarf_status build_insns(ctx *c, int is_cie, uint32_t index, json_t *list)
{
  size_t i;
  json_t *insn;
  char base[200];
  memcpy(base, c->path, sizeof base);
  json_array_foreach(list, i, insn)
  {
    path_index(c, base, "instructions", i);
    const char *op = get_str(insn, "op");
    if (!op)
      return bad(c, "op", "missing", NULL);
    uint64_t operands[3] = {0, 0, 0};
    json_t *ops = json_object_get(insn, "operands");
    size_t k;
    json_t *o;
    json_array_foreach(ops, k, o)
    {
      char path[256], item[280];
      if (k >= 3)
        return bad(c, "operands", "up to three integers", NULL);
      /* A signed operand (DW_CFA_*_sf) is given negative and kept as its bits. */
      member_path(c, "operands", path);
      snprintf(item, sizeof item, "%s[%zu]", path, k);
      amddwarf_status st = amddwarf_json_bits(o, 64, item, AMDDWARF_E_PRODUCE_DESCRIPTION,
                                              c->err, &operands[k]);
      if (st != AMDDWARF_OK)
        return st;
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    amddwarf_status st = AMDDWARF_OK;
    const char *text = get_str(insn, "expr");
    if (text) {
      amddwarf_expr_builder *e = NULL;
      st = assemble(c, "expr", text, &e);
      if (st == AMDDWARF_OK)
        st = amddwarf_produce_expr_bytes(e, NULL, amddwarf_dwarf_builder_allocator(c->b), &bytes,
                                         &size, c->err);
      amddwarf_expr_builder_free(e);
    }
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_insn_named(c->cfi, is_cie, index, op, operands, bytes, size,
                                           c->err);
    amddwarf_mem_free(amddwarf_dwarf_builder_allocator(c->b), bytes, size);
    if (st != AMDDWARF_OK) {
      if (c->err && st != AMDDWARF_E_PRODUCE_DESCRIPTION) {
        char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
        memcpy(inner, c->err->message, sizeof inner);
        amddwarf_fail(c->err, st, c->err->offset, "%s: %s", c->path, inner);
      }
      return st;
    }
  }
  return AMDDWARF_OK;
}

static amddwarf_status build_cfi(ctx *c, json_t *cfi, const amddwarf_dwarf_options *dopts)
{
  amddwarf_cfi_build_options o;
  amddwarf_cfi_build_options_init(&o);
  o.offset_size = dopts->offset_size;
  o.draft_dialect = dopts->dialect == AMDDWARF_DIALECT_DRAFT;
  uint64_t version;
  snprintf(c->path, sizeof c->path, "cfi");
  amddwarf_status st = get_u64(c, cfi, "version", 0, 4, 0xffff, &version);
  if (st != AMDDWARF_OK)
    return st;
  o.version = (uint8_t)version;
  if (version != 1 && version != 3 && version != 4)
    return bad(c, "version", "CIE version 1, 3 or 4", NULL);
  st = amddwarf_cfi_builder_new(&o, amddwarf_dwarf_builder_allocator(c->b), &c->cfi);
  if (st != AMDDWARF_OK)
    return amddwarf_fail(c->err, st, AMDDWARF_NO_OFFSET, "out of memory");
  size_t i;
  json_t *item;
  json_array_foreach(json_object_get(cfi, "cies"), i, item)
  {
    path_index(c, "cfi", "cies", i);
    uint64_t code_align, ra;
    int64_t data_align = 4;
    uint32_t index;
    st = get_u64(c, item, "code_align", 0, 4, UINT64_MAX, &code_align);
    if (st == AMDDWARF_OK && json_object_get(item, "data_align"))
      st = get_i64(c, item, "data_align", &data_align);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "ra_column", 0, 16, UINT32_MAX, &ra);
    json_t *aug = json_object_get(item, "augmentation");
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_cie(c->cfi, json_is_string(aug) ? json_string_value(aug) : "",
                                    code_align, data_align, ra, &index, c->err);
    if (st == AMDDWARF_OK)
      st = build_insns(c, 1, index, json_object_get(item, "instructions"));
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(json_object_get(cfi, "fdes"), i, item)
  {
    path_index(c, "cfi", "fdes", i);
    uint64_t cie, start, length;
    uint32_t index;
    st = get_u64(c, item, "cie", 0, 0, UINT32_MAX, &cie);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "start", 1, 0, UINT64_MAX, &start);
    if (st == AMDDWARF_OK)
      st = get_u64(c, item, "length", 1, 0, UINT64_MAX, &length);
    if (st == AMDDWARF_OK)
      st = amddwarf_cfi_builder_fde(c->cfi, (uint32_t)cie, start, length, &index, c->err);
    if (st == AMDDWARF_OK)
      st = build_insns(c, 0, index, json_object_get(item, "instructions"));
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* ---- the document ------------------------------------------------------------ */

static amddwarf_status read_options(ctx *c, json_t *root, amddwarf_dwarf_options *o)
{
  amddwarf_dwarf_options_init(o);
  json_t *d = json_object_get(root, "dwarf");
  snprintf(c->path, sizeof c->path, "dwarf");
  if (!d)
    return AMDDWARF_OK;
  if (!json_is_object(d))
    return bad(c, NULL, "an object expected", NULL);
  uint64_t v;
  amddwarf_status st = get_u64(c, d, "version", 0, 5, 0xffff, &v);
  if (st != AMDDWARF_OK)
    return st;
  if (v != 4 && v != 5)
    return bad(c, "version", "DWARF version 4 or 5", NULL);
  o->version = (uint16_t)v;
  const char *format = get_str(d, "format");
  if (format && strcmp(format, "dwarf64") == 0)
    o->offset_size = 8;
  else if (format && strcmp(format, "dwarf32") != 0)
    return bad(c, "format", "\"dwarf32\" or \"dwarf64\"", NULL);
  const char *dialect = get_str(d, "dialect");
  if (dialect && amddwarf_dialect_from_name(dialect, &o->dialect) != AMDDWARF_OK)
    return bad(c, "dialect", "unknown dialect '%s'", dialect);
  const char *codes = get_str(d, "attribute_codes");
  if (codes && strcmp(codes, "old") == 0)
    o->old_attribute_codes = 1;
  else if (codes && strcmp(codes, "current") != 0)
    return bad(c, "attribute_codes", "\"old\" or \"current\"", NULL);
  st = get_u64(c, d, "wave_size", 0, 64, 64, &v);
  if (st == AMDDWARF_OK && v != 32 && v != 64)
    st = bad(c, "wave_size", "32 or 64", NULL);
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

static amddwarf_status read_object(ctx *c, json_t *root, amddwarf_write_options *o,
                                   uint8_t **text, size_t *text_size,
                                   amddwarf_symbol_desc **symbols)
{
  const amddwarf_allocator *alloc = amddwarf_dwarf_builder_allocator(c->b);
  amddwarf_write_options_init(o);
  json_t *obj = json_object_get(root, "object");
  snprintf(c->path, sizeof c->path, "object");
  if (!json_is_object(obj))
    return bad(c, NULL, "missing or not an object", NULL);
  const char *type = get_str(obj, "type");
  if (type && strcmp(type, "shared") == 0)
    o->shared = 1;
  else if (type && strcmp(type, "relocatable") != 0)
    return bad(c, "type", "\"relocatable\" or \"shared\"", NULL);
  if (get_str(obj, "processor"))
    o->processor = get_str(obj, "processor");
  if (json_object_get(obj, "xnack") && (o->xnack = feature_value(get_str(obj, "xnack"))) < 0)
    return bad(c, "xnack", "\"unsupported\", \"any\", \"off\" or \"on\"", NULL);
  if (json_object_get(obj, "sramecc") &&
      (o->sramecc = feature_value(get_str(obj, "sramecc"))) < 0)
    return bad(c, "sramecc", "\"unsupported\", \"any\", \"off\" or \"on\"", NULL);
  /* .text: "text": "hex bytes" or "text_size": N (filled with s_nop 0) */
  const char *hex = get_str(obj, "text");
  uint64_t size = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (hex) {
    size_t digits = 0;
    for (const char *p = hex; *p; p++)
      digits += *p != ' ';
    size = digits / 2;
  } else {
    st = get_u64(c, obj, "text_size", 1, 0, 64u << 20, &size);
    if (st != AMDDWARF_OK)
      return st;
  }
  if (size == 0 || size > (64u << 20))
    return bad(c, "text", ".text of 1 byte to 64 MiB expected", NULL);
  *text = amddwarf_mem_alloc(alloc, (size_t)size);
  if (!*text)
    return amddwarf_fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
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
        return bad(c, "text", "not hex", NULL);
      if (high < 0) {
        high = v;
      } else {
        (*text)[n++] = (uint8_t)(high << 4 | v);
        high = -1;
      }
    }
    if (high >= 0)
      return bad(c, "text", "an odd number of hex digits", NULL);
  } else {
    static const uint8_t s_nop[4] = {0x00, 0x00, 0x80, 0xbf}; /* s_nop 0 */
    for (size_t i = 0; i < *text_size; i++)
      (*text)[i] = s_nop[i % 4];
  }
  o->text = *text;
  o->text_size = *text_size;
  json_t *syms = json_object_get(root, "symbols");
  size_t n = json_array_size(syms);
  *symbols = amddwarf_mem_calloc(alloc, n ? n : 1, sizeof **symbols);
  if (!*symbols)
    return amddwarf_fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  size_t i;
  json_t *s;
  json_array_foreach(syms, i, s)
  {
    path_index(c, "", "symbols", i);
    amddwarf_symbol_desc *d = &(*symbols)[i];
    d->name = get_str(s, "name");
    if (!d->name)
      return bad(c, "name", "missing", NULL);
    st = get_u64(c, s, "offset", 1, 0, UINT64_MAX, &d->text_offset);
    if (st == AMDDWARF_OK)
      st = get_u64(c, s, "size", 0, 0, UINT64_MAX, &d->size);
    if (st != AMDDWARF_OK)
      return st;
    const char *kind = get_str(s, "kind");
    d->is_object = kind && strcmp(kind, "object") == 0;
    const char *binding = get_str(s, "binding");
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
    return amddwarf_fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)jerr.position,
                         "build description, line %d column %d: %s", jerr.line, jerr.column,
                         jerr.text);
  ctx c;
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
    st = bad(&c, NULL, "the description is a JSON object", NULL);
  if (st == AMDDWARF_OK)
    st = read_options(&c, root, &dopts);
  if (st == AMDDWARF_OK) {
    st = amddwarf_dwarf_builder_new(&dopts, alloc, &c.b);
    if (st != AMDDWARF_OK)
      st = amddwarf_fail(err, st, AMDDWARF_NO_OFFSET, "cannot create the DWARF builder");
  }
  if (st == AMDDWARF_OK) {
    amddwarf_dwarf_builder_expr_format(c.b, &c.format);
    c.wave = dopts.wave_size;
    st = read_object(&c, root, &wopts, &text_bytes, &text_size, &symbols);
  }
  json_t *units = json_object_get(root, "units");
  if (st == AMDDWARF_OK && units && !json_is_array(units))
    st = bad(&c, "units", "an array expected", NULL);
  size_t i;
  json_t *u;
  json_array_foreach(units, i, u)
  {
    if (st != AMDDWARF_OK)
      break;
    st = build_unit(&c, u, i);
  }
  json_t *cfi = json_object_get(root, "cfi");
  if (st == AMDDWARF_OK && cfi)
    st = build_cfi(&c, cfi, &dopts);
  if (st == AMDDWARF_OK) {
    wopts.cfi = c.cfi;
    st = amddwarf_object_write(json_array_size(units) ? c.b : NULL, &wopts, out, out_size, err);
  }
  if (c.b) {
    const amddwarf_allocator *a = amddwarf_dwarf_builder_allocator(c.b);
    amddwarf_mem_free(a, text_bytes, text_size);
    amddwarf_mem_free(a, symbols, (symbol_count ? symbol_count : 1) * sizeof *symbols);
    amddwarf_mem_free(a, c.type_dies, (c.type_count ? c.type_count : 1) * sizeof *c.type_dies);
  }
  amddwarf_cfi_builder_free(c.cfi);
  amddwarf_dwarf_builder_free(c.b);
  json_decref(root);
  return st;
}
