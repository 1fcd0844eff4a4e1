/* The build description's units (specs/build.md): files, lines, types,
 * procedures, variables and functions with their scopes and lane-PC regions,
 * through the DWARF builder. */
#include <amddwarf/dwarf.h>
#include "produce/build_json.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"

enum {
  MAX_DEPTH = 32,
  MAX_REGION_NODES = 4096,
};
/* A location: "TEXT" (exprloc) or [{"low","high","expr"}] (location list). */
static amddwarf_status location_attr(desc_ctx *c, amddwarf_die_id die, uint16_t at,
                                     const char *member, json_t *value)
{
  amddwarf_expr_builder *e = NULL;
  amddwarf_status st;
  if (json_is_string(value)) {
    st = amddwarf__desc_assemble(c, member, json_string_value(value), &e);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_expr(c->b, die, at, e, c->err);
    amddwarf_expr_builder_free(e);
    return st;
  }
  if (!json_is_array(value))
    return amddwarf__desc_fail(c, member, "a location is an expression string or a list of entries", NULL);
  amddwarf_loclist_id list;
  st = amddwarf_dwarf_attr_loclist(c->b, die, at, &list, c->err);
  size_t i;
  json_t *entry;
  json_array_foreach(value, i, entry)
  {
    if (st != AMDDWARF_OK)
      break;
    uint64_t low, high;
    const char *text = amddwarf__desc_str(entry, "expr");
    st = amddwarf__desc_u64(c, entry, "low", 1, 0, UINT64_MAX, &low);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, entry, "high", 1, 0, UINT64_MAX, &high);
    if (st == AMDDWARF_OK && !text)
      st = amddwarf__desc_fail(c, member, "entry without an \"expr\" string", NULL);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_assemble(c, member, text, &e);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_loclist_add(c->b, list, low, high, e, c->err);
    amddwarf_expr_builder_free(e);
    e = NULL;
  }
  return st;
}

/* ---- types ---------------------------------------------------------------- */

static amddwarf_status type_ref(desc_ctx *c, json_t *obj, const char *key, amddwarf_die_id *die)
{
  const char *id = amddwarf__desc_str(obj, key);
  *die = 0;
  if (!id)
    return amddwarf__desc_fail(c, key, "missing or not a type id", NULL);
  size_t i;
  json_t *t;
  json_array_foreach(c->types, i, t)
  {
    const char *tid = amddwarf__desc_str(t, "id");
    if (!tid)
      tid = amddwarf__desc_str(t, "name");
    if (tid && strcmp(tid, id) == 0) {
      *die = c->type_dies[i];
      return AMDDWARF_OK;
    }
  }
  return amddwarf__desc_fail(c, key, "no type with id '%s'", id);
}

static const struct {
  const char *name;
  uint8_t tag;
} type_kinds[] = {
    {"base", AMDDWARF_DW_TAG_base_type},       {"pointer", AMDDWARF_DW_TAG_pointer_type},
    {"struct", AMDDWARF_DW_TAG_structure_type}, {"array", AMDDWARF_DW_TAG_array_type},
    {"typedef", AMDDWARF_DW_TAG_typedef},       {"const", AMDDWARF_DW_TAG_const_type},
    {"union", AMDDWARF_DW_TAG_union_type},      {"enum", AMDDWARF_DW_TAG_enumeration_type},
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
static amddwarf_status build_subranges(desc_ctx *c, amddwarf_die_id array, json_t *t)
{
  json_t *counts = json_object_get(t, "count"), *lowers = json_object_get(t, "lower_bound");
  size_t n = json_is_array(counts) ? json_array_size(counts) : 1;
  if (n == 0 || n > 16)
    return amddwarf__desc_fail(c, "count", "1 to 16 dimensions expected", NULL);
  if (lowers && (json_is_array(lowers) != json_is_array(counts) ||
                 (json_is_array(lowers) && json_array_size(lowers) != n)))
    return amddwarf__desc_fail(c, "lower_bound", "one per dimension of count expected", NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *one = json_object();
    uint64_t count = 0;
    int64_t lower = 0;
    amddwarf_die_id sub;
    /* Each dimension read as a {"count", "lower_bound"} of its own. */
    if (one == NULL)
      return amddwarf__desc_fail(c, "count", "out of memory", NULL);
    json_object_set(one, "count", json_is_array(counts) ? json_array_get(counts, i) : counts);
    if (lowers)
      json_object_set(one, "lower_bound", json_is_array(lowers) ? json_array_get(lowers, i) : lowers);
    amddwarf_status st = amddwarf__desc_u64(c, one, "count", 1, 0, UINT64_MAX, &count);
    if (st == AMDDWARF_OK && lowers)
      st = amddwarf__desc_i64(c, one, "lower_bound", &lower);
    json_decref(one);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_die_new(c->b, array, AMDDWARF_DW_TAG_subrange_type, &sub, c->err);
    if (st == AMDDWARF_OK && lowers)
      st = amddwarf_dwarf_attr_sdata(c->b, sub, AMDDWARF_DW_AT_lower_bound, lower, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, sub, AMDDWARF_DW_AT_count, count, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}
/* The members of a struct or union: "offset" in bytes
   (DW_AT_data_member_location), or a bitfield's "bit_size" with its
   "data_bit_offset" in bits. */
static amddwarf_status build_members(desc_ctx *c, amddwarf_die_id aggregate, json_t *t)
{
  size_t k;
  json_t *m;
  json_array_foreach(json_object_get(t, "members"), k, m)
  {
    amddwarf_die_id md, mt;
    uint64_t v = 0, bits = 0;
    const char *mname = amddwarf__desc_str(m, "name");
    int bitfield = json_object_get(m, "bit_size") != NULL;
    if (!mname)
      return amddwarf__desc_fail(c, "members", "a member without a name", NULL);
    amddwarf_status st = amddwarf_dwarf_die_new(c->b, aggregate, AMDDWARF_DW_TAG_member, &md, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(c->b, md, AMDDWARF_DW_AT_name, mname, c->err);
    if (st == AMDDWARF_OK)
      st = type_ref(c, m, "type", &mt);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_ref(c->b, md, AMDDWARF_DW_AT_type, mt, c->err);
    if (st == AMDDWARF_OK && bitfield)
      st = amddwarf__desc_u64(c, m, "bit_size", 1, 0, UINT64_MAX, &bits);
    if (st == AMDDWARF_OK && bitfield)
      st = amddwarf_dwarf_attr_udata(c->b, md, AMDDWARF_DW_AT_bit_size, bits, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, m, bitfield ? "data_bit_offset" : "offset", 1, 0, UINT64_MAX, &v);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, md,
                                     bitfield ? AMDDWARF_DW_AT_data_bit_offset : AMDDWARF_DW_AT_data_member_location,
                                     v, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

/* The enumerators of an enumeration: [{"name", "value" (signed)}]. */
static amddwarf_status build_enumerators(desc_ctx *c, amddwarf_die_id enumeration, json_t *t)
{
  size_t k;
  json_t *e;
  json_array_foreach(json_object_get(t, "enumerators"), k, e)
  {
    amddwarf_die_id ed;
    int64_t value = 0;
    const char *ename = amddwarf__desc_str(e, "name");
    if (!ename)
      return amddwarf__desc_fail(c, "enumerators", "an enumerator without a name", NULL);
    amddwarf_status st = amddwarf__desc_i64(c, e, "value", &value);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_die_new(c->b, enumeration, AMDDWARF_DW_TAG_enumerator, &ed, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(c->b, ed, AMDDWARF_DW_AT_name, ename, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_sdata(c->b, ed, AMDDWARF_DW_AT_const_value, value, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

static amddwarf_status build_types(desc_ctx *c, const char *base)
{
  amddwarf_dwarf_builder *b = c->b;
  size_t n = json_array_size(c->types);
  c->type_count = n;
  c->type_dies = amddwarf__mem_calloc(amddwarf__dwarf_builder_allocator(b), n ? n : 1,
                                     sizeof *c->type_dies);
  if (!c->type_dies)
    return amddwarf__fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_status st = AMDDWARF_OK;
  size_t i;
  json_t *t;
  json_array_foreach(c->types, i, t)
  {
    amddwarf__desc_path_index(c, base, "types", i);
    const char *kind = amddwarf__desc_str(t, "kind");
    uint8_t tag = 0;
    for (size_t k = 0; kind && k < sizeof type_kinds / sizeof type_kinds[0]; k++)
      if (strcmp(kind, type_kinds[k].name) == 0)
        tag = type_kinds[k].tag;
    if (!tag)
      return amddwarf__desc_fail(c, "kind", "unknown type kind '%s'", kind ? kind : "(none)");
    st = amddwarf_dwarf_die_new(b, c->unit, tag, &c->type_dies[i], c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(c->types, i, t)
  {
    amddwarf__desc_path_index(c, base, "types", i);
    amddwarf_die_id die = c->type_dies[i];
    const char *kind = amddwarf__desc_str(t, "kind");
    const char *name = amddwarf__desc_str(t, "name");
    uint64_t v;
    if (name)
      st = amddwarf_dwarf_attr_string(b, die, AMDDWARF_DW_AT_name, name, c->err);
    if (st == AMDDWARF_OK && json_object_get(t, "byte_size")) {
      st = amddwarf__desc_u64(c, t, "byte_size", 1, 0, UINT64_MAX, &v);
      if (st == AMDDWARF_OK)
        st = amddwarf_dwarf_attr_udata(b, die, AMDDWARF_DW_AT_byte_size, v, c->err);
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
          return amddwarf__desc_fail(c, "encoding", "unknown encoding '%s'", json_string_value(enc));
      } else if ((st = amddwarf__desc_u64(c, t, "encoding", 1, 0, 0xff, &code)) != AMDDWARF_OK) {
        return st;
      }
      st = amddwarf_dwarf_attr_udata(b, die, AMDDWARF_DW_AT_encoding, code, c->err);
      if (st == AMDDWARF_OK && json_object_get(t, "vector_size")) {
        st = amddwarf__desc_u64(c, t, "vector_size", 1, 0, UINT64_MAX, &v);
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
          st = amddwarf_dwarf_attr_ref(b, die, AMDDWARF_DW_AT_type, target, c->err);
      }
      if (st == AMDDWARF_OK && strcmp(kind, "pointer") == 0) {
        if (json_object_get(t, "address_class")) {
          st = amddwarf__desc_u64(c, t, "address_class", 1, 0, UINT32_MAX, &v);
          if (st == AMDDWARF_OK)
            st = amddwarf_dwarf_attr_udata(b, die, AMDDWARF_DW_AT_address_class, v, c->err);
        }
        if (st == AMDDWARF_OK && json_object_get(t, "address_space")) {
          st = amddwarf__desc_u64(c, t, "address_space", 1, 0, UINT32_MAX, &v);
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

static amddwarf_status build_variable(desc_ctx *c, amddwarf_die_id parent, json_t *v, uint16_t tag)
{
  const char *name = amddwarf__desc_str(v, "name");
  if (!name)
    return amddwarf__desc_fail(c, "name", "missing", NULL);
  amddwarf_die_id die, type;
  amddwarf_status st = amddwarf_dwarf_die_new(c->b, parent, tag, &die, c->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_string(c->b, die, AMDDWARF_DW_AT_name, name, c->err);
  if (st == AMDDWARF_OK && json_object_get(v, "type")) {
    st = type_ref(c, v, "type", &type);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_ref(c->b, die, AMDDWARF_DW_AT_type, type, c->err);
  }
  if (st == AMDDWARF_OK && json_object_get(v, "line")) {
    uint64_t line, file;
    st = amddwarf__desc_u64(c, v, "line", 1, 0, UINT32_MAX, &line);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, v, "file", 0, 1, UINT32_MAX, &file);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, die, AMDDWARF_DW_AT_decl_file, file, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(c->b, die, AMDDWARF_DW_AT_decl_line, line, c->err);
  }
  if (st == AMDDWARF_OK && amddwarf__desc_bool(v, "artificial"))
    st = amddwarf_dwarf_attr_flag(c->b, die, AMDDWARF_DW_AT_artificial, c->err);
  if (st == AMDDWARF_OK && json_object_get(v, "location"))
    st = location_attr(c, die, AMDDWARF_DW_AT_location, "location", json_object_get(v, "location"));
  if (st == AMDDWARF_OK && json_object_get(v, "const_value")) {
    int64_t value = 0;
    st = amddwarf__desc_i64(c, v, "const_value", &value);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_sdata(c->b, die, AMDDWARF_DW_AT_const_value, value, c->err);
  }
  return st;
}

/* "ranges": [[low, high], ...] or "low"/"high". */
static amddwarf_status build_ranges(desc_ctx *c, amddwarf_die_id die, json_t *obj, uint64_t *low,
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
      return amddwarf__desc_fail(c, "ranges", "1-64 [low, high] pairs expected", NULL);
    json_array_foreach(ranges, i, r)
    {
      char path[256], low_path[sizeof path + 32], high_path[sizeof path + 32];
      if (!json_is_array(r) || json_array_size(r) != 2)
        return amddwarf__desc_fail(c, "ranges", "each range is [low, high]", NULL);
      amddwarf__desc_member_path(c, "ranges", path);
      snprintf(low_path, sizeof low_path, "%s[%zu][0]", path, i);
      snprintf(high_path, sizeof high_path, "%s[%zu][1]", path, i);
      if ((st = amddwarf__json_uint(json_array_get(r, 0), UINT64_MAX, low_path,
                                   AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, &starts[n])) !=
              AMDDWARF_OK ||
          (st = amddwarf__json_uint(json_array_get(r, 1), UINT64_MAX, high_path,
                                   AMDDWARF_E_PRODUCE_DESCRIPTION, c->err, &ends[n])) !=
              AMDDWARF_OK)
        return st;
      n++;
    }
  } else {
    st = amddwarf__desc_u64(c, obj, "low", 1, 0, UINT64_MAX, &starts[0]);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, obj, "high", 1, 0, UINT64_MAX, &ends[0]);
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

static amddwarf_status build_scope(desc_ctx *c, amddwarf_die_id die, json_t *obj, int depth);

static amddwarf_status build_children(desc_ctx *c, amddwarf_die_id die, json_t *obj, int depth)
{
  char saved[200];
  memcpy(saved, c->path, sizeof saved);
  amddwarf_status st = AMDDWARF_OK;
  static const struct {
    const char *member;
    uint16_t tag;
  } lists[] = {{"parameters", AMDDWARF_DW_TAG_formal_parameter}, {"variables", AMDDWARF_DW_TAG_variable}};
  for (size_t l = 0; l < 2 && st == AMDDWARF_OK; l++) {
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(obj, lists[l].member), i, v)
    {
      amddwarf__desc_path_index(c, saved, lists[l].member, i);
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
    amddwarf__desc_path_index(c, saved, "blocks", i);
    amddwarf_die_id bd;
    st = amddwarf_dwarf_die_new(c->b, die, AMDDWARF_DW_TAG_lexical_block, &bd, c->err);
    if (st == AMDDWARF_OK)
      st = build_scope(c, bd, blk, depth + 1);
  }
  memcpy(c->path, saved, sizeof saved);
  return st;
}

static amddwarf_status build_scope(desc_ctx *c, amddwarf_die_id die, json_t *obj, int depth)
{
  if (depth > MAX_DEPTH)
    return amddwarf__desc_fail(c, NULL, "scopes nest deeper than 32", NULL);
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

static amddwarf_status parse_regions(desc_ctx *c, json_t *list, region_pool *pool, size_t *first,
                                     size_t *count, int depth)
{
  if (!json_is_array(list))
    return amddwarf__desc_fail(c, "regions", "an array of regions expected", NULL);
  if (depth > MAX_DEPTH)
    return amddwarf__desc_fail(c, "regions", "regions nest deeper than 32", NULL);
  size_t n = json_array_size(list);
  if (pool->count + n > pool->capacity)
    return amddwarf__desc_fail(c, "regions", "more than 4096 regions", NULL);
  *first = pool->count;
  *count = n;
  pool->count += n; /* siblings are contiguous */
  size_t i;
  json_t *r;
  json_array_foreach(list, i, r)
  {
    amddwarf_region *node = &pool->nodes[*first + i];
    const char *kind = amddwarf__desc_str(r, "kind");
    if (!kind || strcmp(kind, "if") == 0)
      node->kind = AMDDWARF_REGION_IF;
    else if (strcmp(kind, "loop") == 0)
      node->kind = AMDDWARF_REGION_LOOP;
    else if (strcmp(kind, "whole_wave") == 0)
      node->kind = AMDDWARF_REGION_WHOLE_WAVE;
    else
      return amddwarf__desc_fail(c, "regions", "unknown region kind '%s'", kind);
    node->name = amddwarf__desc_str(r, "name");
    if (!node->name)
      return amddwarf__desc_fail(c, "regions", "a region without a \"name\"", NULL);
    amddwarf_status st = amddwarf__desc_u64(c, r, "start", 1, 0, UINT64_MAX, &node->start);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, r, "body", 1, 0, UINT64_MAX, &node->body);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, r, "end", 1, 0, UINT64_MAX, &node->end);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, r, "else", 0, node->end, UINT64_MAX, &node->else_start);
    const char *save = amddwarf__desc_str(r, "save_exec");
    if (st == AMDDWARF_OK && !save)
      st = amddwarf__desc_fail(c, "regions", "region '%s' has no \"save_exec\" location", node->name);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_assemble(c, "save_exec", save, &pool->exprs[*first + i]);
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

static amddwarf_status build_lane_pc(desc_ctx *c, amddwarf_die_id fn, uint64_t low, uint64_t high,
                                     json_t *regions)
{
  const amddwarf_allocator *alloc = amddwarf__dwarf_builder_allocator(c->b);
  region_pool pool = {NULL, NULL, 0, MAX_REGION_NODES};
  pool.nodes = amddwarf__mem_calloc(alloc, pool.capacity, sizeof *pool.nodes);
  pool.exprs = amddwarf__mem_calloc(alloc, pool.capacity, sizeof *pool.exprs);
  amddwarf_status st = AMDDWARF_OK;
  if (!pool.nodes || !pool.exprs)
    st = amddwarf__fail(c->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  size_t first = 0, count = 0;
  if (st == AMDDWARF_OK)
    st = parse_regions(c, regions, &pool, &first, &count, 0);
  if (st == AMDDWARF_OK) {
    st = amddwarf_dwarf_lane_pc(c->b, c->unit, fn, low, high, pool.nodes + first, count, c->err);
    if (st != AMDDWARF_OK && c->err) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
      memcpy(inner, c->err->message, sizeof inner);
      amddwarf__fail(c->err, st, c->err->offset, "%s.regions: %s", c->path, inner);
    }
  }
  if (pool.exprs)
    for (size_t i = 0; i < pool.capacity; i++)
      amddwarf_expr_builder_free(pool.exprs[i]);
  amddwarf__mem_free(alloc, pool.nodes, pool.capacity * sizeof *pool.nodes);
  amddwarf__mem_free(alloc, pool.exprs, pool.capacity * sizeof *pool.exprs);
  return st;
}

static amddwarf_status build_function(desc_ctx *c, json_t *f)
{
  const char *name = amddwarf__desc_str(f, "name");
  if (!name)
    return amddwarf__desc_fail(c, "name", "missing", NULL);
  amddwarf_die_id fn;
  amddwarf_dwarf_builder *b = c->b;
  uint64_t low = 0, high = 0, v;
  amddwarf_status st = amddwarf_dwarf_die_new(b, c->unit, AMDDWARF_DW_TAG_subprogram, &fn, c->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_string(b, fn, AMDDWARF_DW_AT_name, name, c->err);
  if (st == AMDDWARF_OK && amddwarf__desc_bool(f, "external"))
    st = amddwarf_dwarf_attr_flag(b, fn, AMDDWARF_DW_AT_external, c->err);
  if (st == AMDDWARF_OK)
    st = build_ranges(c, fn, f, &low, &high);
  if (st == AMDDWARF_OK && json_object_get(f, "frame_base"))
    st = location_attr(c, fn, AMDDWARF_DW_AT_frame_base, "frame_base", json_object_get(f, "frame_base"));
  if (st == AMDDWARF_OK && json_object_get(f, "lanes")) {
    st = amddwarf__desc_u64(c, f, "lanes", 1, 0, UINT32_MAX, &v);
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

amddwarf_status amddwarf__desc_build_unit(desc_ctx *c, json_t *u, size_t index)
{
  amddwarf_dwarf_builder *b = c->b;
  amddwarf__desc_path_index(c, "", "units", index);
  char base[200];
  memcpy(base, c->path, sizeof base);
  uint64_t language;
  amddwarf_status st =
      amddwarf__desc_u64(c, u, "language", 0, AMDDWARF_DW_LANG_OpenCL, 0xffff, &language);
  if (st != AMDDWARF_OK)
    return st;
  json_t *aug = json_object_get(u, "augmentation");
  const char *augmentation = aug ? (json_is_null(aug) ? NULL : json_string_value(aug))
                                 : "[amd:v0.0]";
  if (aug && !json_is_null(aug) && !json_is_string(aug))
    return amddwarf__desc_fail(c, "augmentation", "a string or null", NULL);
  st = amddwarf_dwarf_unit_new(b, amddwarf__desc_str(u, "name"), amddwarf__desc_str(u, "comp_dir"),
                               amddwarf__desc_str(u, "producer") ? amddwarf__desc_str(u, "producer") : "amddwarf build",
                               (uint32_t)language, augmentation, &c->unit, c->err);
  if (st != AMDDWARF_OK)
    return st;
  size_t i;
  json_t *item;
  json_array_foreach(json_object_get(u, "files"), i, item)
  {
    amddwarf__desc_path_index(c, base, "files", i);
    uint32_t file;
    const char *name = amddwarf__desc_str(item, "name");
    if (!name)
      return amddwarf__desc_fail(c, "name", "missing", NULL);
    st = amddwarf_dwarf_line_file(b, c->unit, name, amddwarf__desc_str(item, "dir"), &file, c->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  json_array_foreach(json_object_get(u, "lines"), i, item)
  {
    amddwarf__desc_path_index(c, base, "lines", i);
    uint64_t offset, file, line, column;
    st = amddwarf__desc_u64(c, item, "offset", 1, 0, UINT64_MAX, &offset);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "file", 0, 1, UINT32_MAX, &file);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "line", 1, 0, UINT32_MAX, &line);
    if (st == AMDDWARF_OK)
      st = amddwarf__desc_u64(c, item, "column", 0, 0, UINT32_MAX, &column);
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
    amddwarf__desc_path_index(c, base, "procedures", i);
    amddwarf_die_id p;
    const char *name = amddwarf__desc_str(item, "name");
    json_t *loc = json_object_get(item, "location");
    if (!name || !loc)
      return amddwarf__desc_fail(c, NULL, "a procedure has a \"name\" and a \"location\"", NULL);
    st = amddwarf_dwarf_die_new(b, c->unit, AMDDWARF_DW_TAG_dwarf_procedure, &p, c->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(b, p, AMDDWARF_DW_AT_name, name, c->err);
    if (st == AMDDWARF_OK)
      st = location_attr(c, p, AMDDWARF_DW_AT_location, "location", loc);
  }
  json_array_foreach(json_object_get(u, "variables"), i, item)
  {
    if (st != AMDDWARF_OK)
      break;
    amddwarf__desc_path_index(c, base, "variables", i);
    st = build_variable(c, c->unit, item, AMDDWARF_DW_TAG_variable);
  }
  json_array_foreach(json_object_get(u, "functions"), i, item)
  {
    if (st != AMDDWARF_OK)
      break;
    amddwarf__desc_path_index(c, base, "functions", i);
    st = build_function(c, item);
  }
  amddwarf__mem_free(amddwarf__dwarf_builder_allocator(b), c->type_dies,
                    (c->type_count ? c->type_count : 1) * sizeof *c->type_dies);
  c->type_dies = NULL;
  return st;
}
