/* The numbers of `llvm-dwarfdump-19 --statistics` (LLVM 19's
 * llvm/tools/llvm-dwarfdump/Statistics.cpp, statistics version 9), computed
 * from the DIE references: the same walk over each unit's tree, the same
 * identifiers for functions and variables, the same scope bytes, coverage
 * buckets, line-table and section counts. Where LLVM's rules are odd they
 * are kept, because equal numbers are the point (specs/stats.md lists
 * them): a DW_AT_abstract_origin is compared as encoded (unit-relative for
 * DW_FORM_ref4) with absolute DIE offsets, lexical-block and parameter
 * indexes are written as one byte in hex, a variable's list entries are
 * clipped to its parent DIE's own ranges. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "object/stats_internal.h"

enum { COVERAGE_BUCKETS = 12 };


/* ---- what is counted ---- */

typedef struct fn_stats {
  uint64_t inlined, out_of_line, abstract_origins, vars_with_loc, constant_members;
  uint64_t artificial, vars_in_function;
  bool is_function, has_source_location;
  uint64_t params, param_src, param_types, param_locs;
  uint64_t locals, local_src, local_types, local_locs;
} fn_stats;

typedef struct loc_buckets {
  uint64_t all[COVERAGE_BUCKETS], params[COVERAGE_BUCKETS], locals[COVERAGE_BUCKETS];
} loc_buckets;

/* An abstract subprogram's variables (LLVM's AbstractOriginVarsTyMap),
   keyed by the subprogram's absolute offset. */
typedef struct origin_fn {
  uint64_t offset;
  uint32_t cu_index;
  size_t first, count;   /* into walk.origin_vars */
} origin_fn;

typedef struct u64_vec {
  uint64_t *items;
  size_t count, capacity;
} u64_vec;

/* A growable text. */
typedef struct text {
  char *data;
  size_t len, cap;
} text;

typedef struct walk {
  const amddwarf_object *object;
  amddwarf_stats *stats;
  amddwarf_error *err;
  amddwarf_status status;
  str_table fn_ids, var_ids;
  fn_stats *fns;
  size_t fn_count, fn_capacity;
  /* global stats */
  uint64_t total_covered, scope_covered, scope_bytes, scope_entry;
  uint64_t param_covered, param_bytes, param_entry;
  uint64_t local_covered, local_bytes, local_entry;
  uint64_t call_site_entries, call_site_dies, call_site_params, function_size, inline_size;
  /* location statistics */
  loc_buckets with_entry, without_entry;
  uint64_t num_var_param, num_param, num_var;
  /* abstract origins, and their indexes + 1 by offset (open addressing) */
  origin_fn *origins;
  size_t origin_count, origin_capacity;
  uint32_t *origin_slots;
  size_t origin_mask;
  u64_vec origin_vars;
  u64_vec pending;       /* this unit's DIEs whose origin was not seen yet */
  u64_vec cross_cu;      /* pairs (unit, DIE offset) */
  stats_cov *cov;        /* the GPU coverage, fed by this walk; or NULL */
  stats_files files;     /* each unit's file names (the first walk's) */
  stats_files *names;    /* the file names it reads: its own, or the first walk's */
  amddwarf_arena arena;   /* the identifiers' copies, released at the end */
  /* scratch */
  text id;               /* the identifier being made */
  amddwarf_range *ranges;
  size_t range_count, range_capacity;
  char *buf;
  size_t buf_capacity;
} walk;

static bool oom(walk *w)
{
  if (w->status == AMDDWARF_OK)
    w->status = amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics");
  return false;
}

static bool vec_push(walk *w, u64_vec *v, uint64_t value)
{
  if (amddwarf__mem_reserve(&w->object->allocator, (void **)&v->items, &v->capacity,
                            v->count + 1, sizeof *v->items) != 0)
    return oom(w);
  v->items[v->count++] = value;
  return true;
}

static void vec_erase(u64_vec *v, uint64_t value)
{
  size_t k = 0;
  for (size_t i = 0; i < v->count; ++i)
    if (v->items[i] != value)
      v->items[k++] = v->items[i];
  v->count = k;
}

static void vec_free(walk *w, u64_vec *v)
{
  amddwarf__mem_free(&w->object->allocator, v->items, v->capacity * sizeof *v->items);
  memset(v, 0, sizeof *v);
}

static size_t origin_slot(uint64_t offset, size_t mask)
{
  return (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 17) & mask;
}

static const origin_fn *origin_find(const walk *w, uint64_t offset)
{
  if (w->origin_slots == NULL)
    return NULL;
  for (size_t h = origin_slot(offset, w->origin_mask); w->origin_slots[h] != 0;
       h = (h + 1) & w->origin_mask)
    if (w->origins[w->origin_slots[h] - 1].offset == offset)
      return &w->origins[w->origin_slots[h] - 1];
  return NULL;
}

/* Appends FN to the abstract subprograms (each offset once: every DIE is
   visited once). */
static void origin_add(walk *w, const origin_fn *fn)
{
  const amddwarf_allocator *a = &w->object->allocator;
  if (amddwarf__mem_reserve(a, (void **)&w->origins, &w->origin_capacity, w->origin_count + 1,
                            sizeof *w->origins) != 0) {
    oom(w);
    return;
  }
  if ((w->origin_count + 1) * 2 > (w->origin_slots ? w->origin_mask + 1 : 0)) {
    size_t cap = w->origin_slots ? (w->origin_mask + 1) * 2 : 64;
    uint32_t *slots = amddwarf__mem_calloc(a, cap, sizeof *slots);
    if (slots == NULL) {
      oom(w);
      return;
    }
    for (size_t i = 0; i < w->origin_count; ++i) {
      size_t h = origin_slot(w->origins[i].offset, cap - 1);
      while (slots[h] != 0)
        h = (h + 1) & (cap - 1);
      slots[h] = (uint32_t)i + 1;
    }
    if (w->origin_slots)
      amddwarf__mem_free(a, w->origin_slots, (w->origin_mask + 1) * sizeof *slots);
    w->origin_slots = slots;
    w->origin_mask = cap - 1;
  }
  size_t h = origin_slot(fn->offset, w->origin_mask);
  while (w->origin_slots[h] != 0)
    h = (h + 1) & w->origin_mask;
  w->origins[w->origin_count++] = *fn;
  w->origin_slots[h] = (uint32_t)w->origin_count;
}

/* The index of the FnStatMap entry of ID (created empty), or UINT32_MAX
   when memory runs out. */
static uint32_t fn_entry(walk *w, const char *id)
{
  bool added;
  uint32_t index = amddwarf__stats_table_get(&w->fn_ids, 0, id, strlen(id), (uint32_t)w->fn_count, &added);
  if (index == UINT32_MAX) {
    oom(w);
    return UINT32_MAX;
  }
  if (added) {
    if (amddwarf__mem_reserve(&w->object->allocator, (void **)&w->fns, &w->fn_capacity,
                              w->fn_count + 1, sizeof *w->fns) != 0) {
      oom(w);
      return UINT32_MAX;
    }
    memset(&w->fns[w->fn_count++], 0, sizeof *w->fns);
  }
  return index;
}

/* ---- identifiers ---- */

static void text_add(walk *w, text *t, const char *s, size_t n)
{
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap < t->len + n + 1)
      cap *= 2;
    char *d = amddwarf__mem_realloc(&w->object->allocator, t->data, t->cap, cap);
    if (d == NULL) {
      oom(w);
      return;
    }
    t->data = d;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

static void text_free(walk *w, text *t)
{
  amddwarf__mem_free(&w->object->allocator, t->data, t->cap);
}

/* LLVM's getName(LinkageName): the linkage name, else the name, each
   found through origins; "" when none. */
static const char *die_linkage_or_name(const walk *w, const stats_die *die)
{
  stats_die scratch;
  const stats_die *from = amddwarf__stats_die_find(w->object, die, STATS_LINKAGE, &scratch);
  if (from != NULL && from->linkage != NULL)
    return from->linkage;
  from = amddwarf__stats_die_find(w->object, die, STATS_NAME, &scratch);
  if (from != NULL && from->name != NULL)
    return from->name;
  return "";
}

/* constructDieID: PREFIX NAME, and for functions and globals ":FILE:LINE". */
static void die_id(walk *w, const stats_die *die, const char *prefix, text *out)
{
  out->len = 0;
  text_add(w, out, prefix, strlen(prefix));
  const char *name = die_linkage_or_name(w, die);
  text_add(w, out, name, strlen(name));
  if (prefix[0] != '\0' && strcmp(prefix, "g") != 0)
    return;
  stats_die scratch;
  const stats_die *from = amddwarf__stats_die_find(w->object, die, STATS_DECL_FILE, &scratch);
  const char *file = NULL;
  if (from != NULL) {
    file = amddwarf__stats_file_name(w->names, w->object, from->cu_index, from->decl_file);
    if (file != NULL) {
      const char *slash = strrchr(file, '/');
      file = slash != NULL ? slash + 1 : file;
    }
  }
  text_add(w, out, ":", 1);
  if (file == NULL || file[0] == '\0')
    file = "/";
  text_add(w, out, file, strlen(file));
  uint64_t line = 0;
  if ((from = amddwarf__stats_die_find(w->object, die, STATS_DECL_LINE, &scratch)) != NULL)
    line = from->decl_line;
  char num[32];
  int n = snprintf(num, sizeof num, ":%llu", (unsigned long long)line);
  text_add(w, out, num, (size_t)n);
}

/* ---- one variable ---- */

static unsigned bucket_of(uint64_t covered, uint64_t scope)
{
  if (covered == 0)
    return 0;
  if (covered >= scope)
    return COVERAGE_BUCKETS - 1;
  unsigned bucket = (unsigned)(100 * (double)covered / (double)scope);
  return bucket / 10 + 1;
}

static void count_bucket(loc_buckets *b, unsigned bucket, bool param, bool local)
{
  ++b->all[bucket];
  if (param)
    ++b->params[bucket];
  else if (local)
    ++b->locals[bucket];
}

/* Whether the expression has DW_OP_entry_value or DW_OP_GNU_entry_value:
   LLVM looks at each operation, the first that does not decode included. */
static bool is_entry_value(const amddwarf_object *object, const amddwarf_cu *cu,
                           const uint8_t *bytes, size_t size)
{
  amddwarf_op local[64];
  amddwarf_op *ops = local;
  size_t capacity = sizeof local / sizeof local[0];
  if (size > capacity) {
    ops = amddwarf__mem_alloc(&object->allocator, size * sizeof *ops);
    if (ops == NULL)
      return false;
    capacity = size;
  }
  size_t count = 0;
  amddwarf_status st = amddwarf_expr_decode(bytes, size, &cu->format, ops, capacity, &count, NULL);
  bool found = false;
  for (size_t i = 0; i < count && !found; ++i)
    found = ops[i].opcode == 0xa3 || ops[i].opcode == 0xf3;
  if (!found && st != AMDDWARF_OK) {
    size_t pos = count ? (size_t)(ops[count - 1].offset + ops[count - 1].size) : 0;
    found = pos < size && (bytes[pos] == 0xa3 || bytes[pos] == 0xf3);
  }
  if (ops != local)
    amddwarf__mem_free(&object->allocator, ops, capacity * sizeof *ops);
  return found;
}

typedef struct loc_sum {
  const amddwarf_object *object;
  const amddwarf_cu *cu;
  const amddwarf_range *scope;
  size_t scope_count;
  bool has_default;
  uint64_t total, covered, entry;
  stats_cov_var *cov;    /* the variable's coverage, or NULL */
} loc_sum;

static bool sum_entry(void *user, const amddwarf_loc_entry *e)
{
  loc_sum *s = user;
  if (s->cov != NULL && !amddwarf__stats_cov_var_entry(s->cov, e))
    return false;
  if (e->is_default) {
    s->has_default = true;
    return true;
  }
  s->total += e->high - e->low;
  uint64_t in_scope = 0;
  for (size_t i = 0; i < s->scope_count; ++i) {
    uint64_t lo = e->low > s->scope[i].low ? e->low : s->scope[i].low;
    uint64_t hi = e->high < s->scope[i].high ? e->high : s->scope[i].high;
    if (lo < hi)
      in_scope += hi - lo;
  }
  s->covered += in_scope;
  if (is_entry_value(s->object, s->cu, e->expr, e->size))
    s->entry += in_scope;
  return true;
}

/* collectStatsForDie: DIE (record INDEX of unit CU_INDEX) in the function
   of FnStatMap entry FN_INDEX, with variable prefix PREFIX. COV, when not
   NULL, receives the entries of its location list. */
static void stats_for_die(walk *w, size_t cu_index, uint32_t index, const stats_die *die,
                          uint32_t fn_index, const char *prefix, uint64_t scope_bytes,
                          u64_vec *origin_vars, stats_cov_var *cov)
{
  const amddwarf_object *object = w->object;
  if (die->tag == DW_TAG_compile_unit)
    return;
  fn_stats *fn = &w->fns[fn_index];
  bool param = die->tag == DW_TAG_formal_parameter;
  bool local = die->tag == DW_TAG_variable;
  bool constant_member = die->tag == DW_TAG_member && die->has_const_value;
  if (die->tag == DW_TAG_call_site || die->tag == DW_TAG_GNU_call_site) {
    amddwarf__stats_sat_add(&w->call_site_dies, 1);
    return;
  }
  if (die->tag == DW_TAG_call_site_parameter || die->tag == DW_TAG_GNU_call_site_parameter) {
    amddwarf__stats_sat_add(&w->call_site_params, 1);
    return;
  }
  if (!param && !local && !constant_member)
    return;
  if (local && die->declaration)
    return;
  stats_die scratch;
  bool has_src = amddwarf__stats_die_find(object, die, STATS_DECL_FILE, &scratch) &&
                 amddwarf__stats_die_find(object, die, STATS_DECL_LINE, &scratch);
  bool has_type = amddwarf__stats_die_find(object, die, STATS_TYPE, &scratch);
  bool defer = false;
  if (die->has_origin) {
    if (die->has_location || die->has_const_value) {
      if (origin_vars != NULL)
        vec_erase(origin_vars, die->origin_raw);
    } else {
      defer = true;
    }
  }
  bool has_loc = false;
  uint64_t total = 0, covered = 0, entry = 0;
  const amddwarf_cu *cu = &object->cus[cu_index];
  if (die->has_const_value) {
    has_loc = true;
    covered = total = scope_bytes;
  } else if (die->has_location && die->location.kind == AMDDWARF_ATTR_EXPR) {
    has_loc = true;
    covered = total = scope_bytes;
  } else if (die->has_location && die->location.kind == AMDDWARF_ATTR_LIST) {
    /* the parent DIE's own ranges */
    const amddwarf_unit *unit = &object->units[cu_index];
    uint32_t parent = unit->records[index].parent;
    w->range_count = 0;
    if (parent != AMDDWARF_NO_RECORD) {
      stats_die p;
      if (amddwarf__stats_die_read(object, cu_index, cu->offset + unit->records[parent].offset,
                                   &p, NULL) == AMDDWARF_OK)
        (void)amddwarf__stats_die_ranges(object, &p, &w->ranges, &w->range_count,
                                         &w->range_capacity);
    }
    loc_sum s = {object, cu, w->ranges, w->range_count, false, 0, 0, 0, cov};
    amddwarf_status st = amddwarf__object_visit_loclist((amddwarf_object *)(uintptr_t)object, cu,
                                                        die->location.form, die->location.u,
                                                        sum_entry, &s, NULL);
    if (st == AMDDWARF_OK) {
      has_loc = true;
      if (s.has_default) {
        covered = total = scope_bytes;
      } else {
        total = s.total;
        covered = s.covered;
        entry = s.entry;
      }
    }
  }
  if (scope_bytes && !defer) {
    amddwarf__stats_sat_add(&w->num_var_param, 1);
    if (param)
      amddwarf__stats_sat_add(&w->num_param, 1);
    else if (local)
      amddwarf__stats_sat_add(&w->num_var, 1);
    count_bucket(&w->with_entry, bucket_of(covered, scope_bytes), param, local);
    count_bucket(&w->without_entry, bucket_of(covered - entry, scope_bytes), param, local);
  }
  stats_die origin;
  const stats_die *id_die = die;
  if (die->has_origin && amddwarf__stats_die_at(object, die->origin, &origin))
    id_die = &origin;
  text *id = &w->id;
  die_id(w, id_die, prefix, id);
  if (id->data != NULL) {
    /* VarsInFunction: one set per function, its index the owner */
    bool added = false;
    if (amddwarf__stats_table_get(&w->var_ids, (uint32_t)(fn - w->fns), id->data, id->len, 0, &added) ==
        UINT32_MAX)
      oom(w);
    if (added)
      ++fn->vars_in_function;
  }
  amddwarf__stats_sat_add(&w->total_covered, total);
  if (scope_bytes) {
    amddwarf__stats_sat_add(&w->scope_covered, covered);
    amddwarf__stats_sat_add(&w->scope_bytes, scope_bytes);
    amddwarf__stats_sat_add(&w->scope_entry, entry);
    if (param) {
      amddwarf__stats_sat_add(&w->param_covered, covered);
      amddwarf__stats_sat_add(&w->param_bytes, scope_bytes);
      amddwarf__stats_sat_add(&w->param_entry, entry);
    } else if (local) {
      amddwarf__stats_sat_add(&w->local_covered, covered);
      amddwarf__stats_sat_add(&w->local_bytes, scope_bytes);
      amddwarf__stats_sat_add(&w->local_entry, entry);
    }
  }
  if (constant_member) {
    ++fn->constant_members;
    return;
  }
  fn->vars_with_loc += has_loc;
  if (id_die->artificial) {
    ++fn->artificial;
    return;
  }
  if (param) {
    ++fn->params;
    fn->param_types += has_type;
    fn->param_src += has_src;
    fn->param_locs += has_loc;
  } else if (local) {
    ++fn->locals;
    fn->local_types += has_type;
    fn->local_src += has_src;
    fn->local_locs += has_loc;
  }
}

/* ---- the walk over a unit's tree ---- */

static uint32_t first_child(const amddwarf_unit *unit, uint32_t index)
{
  uint32_t next = index + 1;
  return next < unit->die_count && unit->records[next].parent == index ? next
                                                                       : AMDDWARF_NO_RECORD;
}

static uint64_t record_offset(const walk *w, size_t cu_index, uint32_t index)
{
  return w->object->cus[cu_index].offset + w->object->units[cu_index].records[index].offset;
}

/* collectAbstractOriginFnInfo: the variables of abstract subprogram INDEX. */
static void collect_origin_vars(walk *w, size_t cu_index, uint32_t index)
{
  const amddwarf_unit *unit = &w->object->units[cu_index];
  const amddwarf_abbrev *abbrevs = w->object->abbrev_tables[unit->abbrev_table].all;
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD;
       c = unit->records[c].sibling) {
    unsigned tag = abbrevs[unit->records[c].abbrev].tag;
    if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable)
      vec_push(w, &w->origin_vars, record_offset(w, cu_index, c));
    else if (tag == DW_TAG_lexical_block)
      collect_origin_vars(w, cu_index, c);
  }
}

/* The tag of the DIE at OFFSET in unit CU_INDEX, or 0 when none starts there. */
static unsigned tag_in_unit(const walk *w, size_t cu_index, uint64_t offset)
{
  amddwarf_die_ref ref;
  if (amddwarf_object_die_ref_at(w->object, offset, &ref, NULL) != AMDDWARF_OK ||
      ref.cu_index != cu_index)
    return 0;
  const amddwarf_unit *unit = &w->object->units[cu_index];
  return w->object->abbrev_tables[unit->abbrev_table].all[unit->records[ref.index].abbrev].tag;
}

static void count_zero_coverage(walk *w, size_t cu_index, const u64_vec *vars)
{
  for (size_t i = 0; i < vars->count; ++i) {
    amddwarf__stats_sat_add(&w->num_var_param, 1);
    ++w->with_entry.all[0];
    unsigned tag = tag_in_unit(w, cu_index, vars->items[i]);
    if (tag == DW_TAG_formal_parameter) {
      amddwarf__stats_sat_add(&w->num_param, 1);
      ++w->with_entry.params[0];
    } else if (tag == DW_TAG_variable) {
      amddwarf__stats_sat_add(&w->num_var, 1);
      ++w->with_entry.locals[0];
    }
  }
}

static bool copy_origin_vars(walk *w, const origin_fn *fn, u64_vec *out)
{
  for (size_t i = 0; i < fn->count; ++i)
    if (!vec_push(w, out, w->origin_vars.items[fn->first + i]))
      return false;
  return true;
}

static void hex_index(char *out, unsigned index)
{
  static const char digits[] = "0123456789ABCDEF";
  out[0] = digits[(index >> 4) & 0xf];
  out[1] = digits[index & 0xf];
  out[2] = '.';
  out[3] = '\0';
}

/* Whether a DIE of AB can count: a scope, a variable, a parameter, a call
   site or its parameter, a member with a constant value. The others are
   only looked through (as LLVM returns from collectStatsForDie for them,
   and skips DW_TAG_subroutine_type's children: it holds no scope). */
static bool needs_attributes(const amddwarf_abbrev *ab)
{
  switch (ab->tag) {
  case DW_TAG_subprogram: case DW_TAG_lexical_block: case DW_TAG_inlined_subroutine:
  case DW_TAG_variable: case DW_TAG_formal_parameter: case DW_TAG_call_site:
  case DW_TAG_GNU_call_site: case DW_TAG_call_site_parameter:
  case DW_TAG_GNU_call_site_parameter: case DW_TAG_subroutine_type:
    return true;
  case DW_TAG_member:
    for (uint32_t i = 0; i < ab->count; ++i)
      if (ab->attrs[i].at == DW_AT_const_value)
        return true;
    return false;
  default:
    return false;
  }
}

/* Where the coverage is along the walk: outside functions, inside one (in
   a scope), or nowhere (in a type, a declaration, a call site, or without
   coverage). */
typedef enum cov_mode { COV_OFF, COV_OUTSIDE, COV_INSIDE } cov_mode;
typedef struct cov_place {
  cov_mode mode;
  stats_cov_scope scope;  /* COV_INSIDE */
} cov_place;

/* Where the children of a DIE of TAG that is neither a function, a scope
   nor a variable are, for the coverage. */
static cov_place children_place(const cov_place *cov, unsigned tag)
{
  cov_place inner = {COV_OFF, {0}};
  if (cov->mode == COV_OUTSIDE && !amddwarf__stats_cov_skips_outside(tag))
    inner.mode = COV_OUTSIDE;
  return inner;
}

static void walk_die(walk *w, size_t cu_index, uint32_t index, uint32_t fn_index,
                     const char *prefix, uint64_t scope_bytes, uint32_t inline_depth,
                     u64_vec *origin_vars, const cov_place *cov);

/* The children of record INDEX, each with its variable prefix. */
static void walk_children(walk *w, size_t cu_index, uint32_t index, uint32_t fn_index,
                          const char *prefix, uint64_t scope_bytes, uint32_t inline_depth,
                          u64_vec *origin_vars, const cov_place *cov)
{
  const amddwarf_object *object = w->object;
  const amddwarf_unit *unit = &object->units[cu_index];
  const amddwarf_abbrev *abbrevs = object->abbrev_tables[unit->abbrev_table].all;
  unsigned blocks = 0, params = 0;
  size_t base = strlen(prefix);
  char local[256];
  char *child_prefix = base + 8 <= sizeof local
                           ? local
                           : amddwarf__mem_alloc(&object->allocator, base + 8);
  if (child_prefix == NULL) {
    oom(w);
    return;
  }
  memcpy(child_prefix, prefix, base + 1);
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling) {
    unsigned tag = abbrevs[unit->records[c].abbrev].tag;
    child_prefix[base] = '\0';
    if (tag == DW_TAG_lexical_block) {
      hex_index(child_prefix + base, blocks++);
    } else if (tag == DW_TAG_formal_parameter) {
      child_prefix[base] = 'p';
      hex_index(child_prefix + base + 1, params++);
    }
    walk_die(w, cu_index, c, fn_index, child_prefix, scope_bytes, inline_depth, origin_vars, cov);
  }
  if (child_prefix != local)
    amddwarf__mem_free(&object->allocator, child_prefix, base + 8);
}

/* collectStatsRecursive for record INDEX of unit CU_INDEX, and the
   coverage of what is at COV. */
static void walk_die(walk *w, size_t cu_index, uint32_t index, uint32_t fn_index,
                     const char *prefix, uint64_t scope_bytes, uint32_t inline_depth,
                     u64_vec *origin_vars, const cov_place *cov)
{
  if (w->status != AMDDWARF_OK)
    return;
  if (cov->mode != COV_OFF && amddwarf__stats_cov_status(w->cov) != AMDDWARF_OK) {
    w->status = amddwarf__stats_cov_status(w->cov);
    return;
  }
  const amddwarf_object *object = w->object;
  const amddwarf_unit *unit = &object->units[cu_index];
  const amddwarf_abbrev *ab =
      &object->abbrev_tables[unit->abbrev_table].all[unit->records[index].abbrev];
  if (!needs_attributes(ab)) {
    /* nothing of this DIE counts (a type, a member without a constant, ...):
       its children may */
    cov_place inner = children_place(cov, ab->tag);
    walk_children(w, cu_index, index, fn_index, prefix, scope_bytes, inline_depth, origin_vars,
                  &inner);
    return;
  }
  stats_die die;
  amddwarf_status st = amddwarf__stats_die_read(object, cu_index,
                                                record_offset(w, cu_index, index), &die, w->err);
  if (st != AMDDWARF_OK) {
    w->status = st;
    return;
  }
  if (die.tag == DW_TAG_subroutine_type)
    return;
  bool is_function = die.tag == DW_TAG_subprogram;
  bool is_block = die.tag == DW_TAG_lexical_block;
  bool is_inlined = die.tag == DW_TAG_inlined_subroutine;
  bool candidate = is_inlined || (is_function && die.has_origin);
  u64_vec own_vars = {NULL, 0, 0};
  cov_place inner = children_place(cov, die.tag);
  bool cov_function = false;
  if (candidate && die.has_origin) {
    const origin_fn *o = origin_find(w, die.origin_raw);
    if (o != NULL && o->cu_index == cu_index) {
      copy_origin_vars(w, o, &own_vars);
      origin_vars = &own_vars;
    } else {
      vec_push(w, &w->pending, die.offset);
      origin_vars = NULL;
    }
  }
  if (is_function || is_inlined || is_block) {
    if (is_function || is_inlined)
      prefix = "v";
    if (die.declaration)
      goto done;
    if (die.has_call_file && die.has_call_line)
      amddwarf__stats_sat_add(&w->call_site_entries, 1);
    w->range_count = 0;
    if (!amddwarf__stats_die_ranges(object, &die, &w->ranges, &w->range_count,
                                    &w->range_capacity))
      goto done;
    uint64_t bytes = 0;
    for (size_t i = 0; i < w->range_count; ++i)
      bytes += w->ranges[i].high - w->ranges[i].low;
    if (!is_block) {
      if (die.has_inline) {
        origin_fn fn = {die.offset, (uint32_t)cu_index, w->origin_vars.count, 0};
        collect_origin_vars(w, cu_index, index);
        fn.count = w->origin_vars.count - fn.first;
        origin_add(w, &fn);
        goto done;
      }
      die_id(w, &die, "", &w->id);
      if (w->id.data == NULL)
        goto done;
      fn_index = fn_entry(w, w->id.data);
      if (fn_index == UINT32_MAX)
        goto done;
      fn_stats *fn = &w->fns[fn_index];
      fn->is_function = true;
      if (is_inlined) {
        ++fn->inlined;
        if (die.has_origin || die.specification != 0) {
          stats_die s;
          /* findRecursively(DW_AT_abstract_origin): own, or through a specification */
          bool found = die.has_origin;
          for (uint64_t next = die.specification; !found && next != 0;
               next = s.specification) {
            if (!amddwarf__stats_die_at(object, next, &s))
              break;
            found = s.has_origin;
          }
          fn->abstract_origins += found;
        }
      } else {
        ++fn->out_of_line;
      }
      stats_die scratch;
      if (amddwarf__stats_die_find(object, &die, STATS_DECL_FILE, &scratch) &&
          amddwarf__stats_die_find(object, &die, STATS_DECL_LINE, &scratch))
        fn->has_source_location = true;
    }
    if (bytes) {
      scope_bytes = bytes;
      if (is_function)
        amddwarf__stats_sat_add(&w->function_size, bytes);
      else if (is_inlined && inline_depth == 0)
        amddwarf__stats_sat_add(&w->inline_size, bytes);
    }
    if (is_function && cov->mode != COV_OFF) {
      cov_function = amddwarf__stats_cov_function_begin(w->cov, &die, w->ranges,
                                                         w->range_count, &inner.scope);
      inner.mode = cov_function ? COV_INSIDE : COV_OFF;
    } else if (cov->mode == COV_INSIDE) {
      inner = *cov;
      if (!amddwarf__stats_cov_enter(w->cov, &die, w->ranges, w->range_count, &inner.scope))
        inner.mode = COV_OFF;
    }
  } else if (cov->mode == COV_INSIDE && !die.declaration &&
             (die.tag == DW_TAG_variable || die.tag == DW_TAG_formal_parameter)) {
    stats_cov_var var;
    amddwarf__stats_cov_var_begin(w->cov, &die, &cov->scope, &var);
    stats_for_die(w, cu_index, index, &die, fn_index, prefix, scope_bytes, origin_vars, &var);
    amddwarf__stats_cov_var_end(&var, &die);
  } else {
    stats_for_die(w, cu_index, index, &die, fn_index, prefix, scope_bytes, origin_vars, NULL);
  }
  if (is_function)
    inline_depth = 0;
  else if (is_inlined)
    ++inline_depth;
  walk_children(w, cu_index, index, fn_index, prefix, scope_bytes, inline_depth, origin_vars,
                &inner);
  if (cov_function)
    amddwarf__stats_cov_function_end(w->cov);
  if (candidate)
    count_zero_coverage(w, cu_index, &own_vars);
done:
  vec_free(w, &own_vars);
}

/* updateVarsWithAbstractOriginLocCovInfo */
static void drop_vars_with_location(walk *w, size_t cu_index, uint32_t index, u64_vec *vars)
{
  const amddwarf_unit *unit = &w->object->units[cu_index];
  const amddwarf_abbrev *abbrevs = w->object->abbrev_tables[unit->abbrev_table].all;
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD;
       c = unit->records[c].sibling) {
    unsigned tag = abbrevs[unit->records[c].abbrev].tag;
    if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
      stats_die d;
      if (amddwarf__stats_die_read(w->object, cu_index, record_offset(w, cu_index, c), &d,
                                   NULL) == AMDDWARF_OK &&
          (d.has_location || d.has_const_value) && d.has_origin)
        vec_erase(vars, d.origin_raw);
    } else if (tag == DW_TAG_lexical_block) {
      drop_vars_with_location(w, cu_index, c, vars);
    }
  }
}

/* The zero coverage of the variables of DIE OFFSET of unit CU_INDEX (an
   inlined or concrete instance) whose abstract origin's variables FN lists. */
static void resolve_instance(walk *w, size_t cu_index, uint64_t offset, const origin_fn *fn,
                             size_t tag_unit)
{
  amddwarf_die_ref ref;
  if (amddwarf_object_die_ref_at(w->object, offset, &ref, NULL) != AMDDWARF_OK)
    return;
  u64_vec vars = {NULL, 0, 0};
  if (fn != NULL && copy_origin_vars(w, fn, &vars)) {
    drop_vars_with_location(w, cu_index, ref.index, &vars);
    count_zero_coverage(w, tag_unit, &vars);
  }
  vec_free(w, &vars);
}

/* collectZeroLocCovForVarsWithAbstractOrigin, then the rest to CROSS_CU. */
static void resolve_pending(walk *w, size_t cu_index)
{
  for (size_t i = 0; i < w->pending.count; ++i) {
    stats_die d;
    uint64_t offset = w->pending.items[i];
    if (amddwarf__stats_die_read(w->object, cu_index, offset, &d, NULL) != AMDDWARF_OK ||
        !d.has_origin)
      continue;
    const origin_fn *fn = origin_find(w, d.origin_raw);
    if (fn != NULL && fn->cu_index == cu_index) {
      resolve_instance(w, cu_index, offset, fn, cu_index);
      continue;
    }
    vec_push(w, &w->cross_cu, cu_index);
    vec_push(w, &w->cross_cu, offset);
  }
  w->pending.count = 0;
}

static void resolve_cross_cu(walk *w)
{
  for (size_t i = 0; i + 1 < w->cross_cu.count; i += 2) {
    size_t cu_index = (size_t)w->cross_cu.items[i];
    uint64_t offset = w->cross_cu.items[i + 1];
    stats_die d;
    if (amddwarf__stats_die_read(w->object, cu_index, offset, &d, NULL) != AMDDWARF_OK ||
        !d.has_origin)
      continue;
    const origin_fn *fn = origin_find(w, d.origin_raw);
    if (fn != NULL)
      resolve_instance(w, cu_index, offset, fn, fn->cu_index);
  }
}

/* ---- the keys ---- */

static void add_key(walk *w, const char *key, uint64_t value)
{
  if (w->status == AMDDWARF_OK)
    w->status = amddwarf__stats_add_key(w->stats, key, value, w->err);
}

static void add_buckets(walk *w, const char *what, const uint64_t *b)
{
  char key[160];
  snprintf(key, sizeof key, "%s with 0%% of parent scope covered by DW_AT_location", what);
  add_key(w, key, b[0]);
  snprintf(key, sizeof key, "%s with (0%%,10%%) of parent scope covered by DW_AT_location", what);
  add_key(w, key, b[1]);
  for (unsigned i = 2; i < COVERAGE_BUCKETS - 1; ++i) {
    snprintf(key, sizeof key, "%s with [%u%%,%u%%) of parent scope covered by DW_AT_location",
             what, (i - 1) * 10, i * 10);
    add_key(w, key, b[i]);
  }
  snprintf(key, sizeof key, "%s with 100%% of parent scope covered by DW_AT_location", what);
  add_key(w, key, b[COVERAGE_BUCKETS - 1]);
}

static bool is_debug_section(const char *name)
{
  return strncmp(name, ".debug", 6) == 0 || strncmp(name, ".zdebug", 7) == 0 ||
         strcmp(name, ".gdb_index") == 0;
}

static void add_section_sizes(walk *w)
{
  const amddwarf_object *object = w->object;
  size_t n = amddwarf_object_section_count(object);
  for (size_t i = 1; i < n; ++i) {
    amddwarf_object_section s;
    if (amddwarf_object_section_at(object, i, &s, NULL) != AMDDWARF_OK ||
        !is_debug_section(s.name))
      continue;
    bool seen = false; /* sizes add up by name */
    for (size_t k = 0; k < i && !seen; ++k) {
      amddwarf_object_section e;
      seen = k > 0 && amddwarf_object_section_at(object, k, &e, NULL) == AMDDWARF_OK &&
             strcmp(e.name, s.name) == 0;
    }
    if (seen)
      continue;
    uint64_t size = 0;
    for (size_t k = i; k < n; ++k) {
      amddwarf_object_section e;
      if (amddwarf_object_section_at(object, k, &e, NULL) == AMDDWARF_OK &&
          strcmp(e.name, s.name) == 0)
        size += object->sections[k].size;
    }
    char key[300];
    snprintf(key, sizeof key, "#bytes in %s", s.name);
    add_key(w, key, size);
  }
}

static void add_keys(walk *w, const stats_line_counts *ls)
{
  uint64_t var_total = 0, var_unique = 0, var_with_loc = 0, functions = 0, inlined = 0;
  uint64_t with_src = 0, origins = 0, params = 0, param_types = 0, param_locs = 0;
  uint64_t param_src = 0, locals = 0, local_types = 0, local_src = 0, local_locs = 0;
  for (size_t i = 0; i < w->fn_count; ++i) {
    const fn_stats *f = &w->fns[i];
    uint64_t total = f->vars_in_function * (f->inlined + f->out_of_line);
    if (!f->is_function)
      total = f->locals + f->constant_members + f->artificial;
    amddwarf__stats_sat_add(&var_with_loc, f->vars_with_loc + f->constant_members);
    amddwarf__stats_sat_add(&var_total, total);
    amddwarf__stats_sat_add(&var_unique, f->vars_in_function);
    functions += f->is_function;
    with_src += f->has_source_location;
    inlined += f->is_function * f->inlined;
    origins += f->is_function * f->abstract_origins;
    amddwarf__stats_sat_add(&params, f->params);
    amddwarf__stats_sat_add(&param_types, f->param_types);
    amddwarf__stats_sat_add(&param_locs, f->param_locs);
    amddwarf__stats_sat_add(&param_src, f->param_src);
    amddwarf__stats_sat_add(&locals, f->locals);
    amddwarf__stats_sat_add(&local_types, f->local_types);
    amddwarf__stats_sat_add(&local_locs, f->local_locs);
    amddwarf__stats_sat_add(&local_src, f->local_src);
  }
  add_key(w, "#functions", functions);
  add_key(w, "#functions with location", with_src);
  add_key(w, "#inlined functions", inlined);
  add_key(w, "#inlined functions with abstract origins", origins);
  add_key(w, "#unique source variables", var_unique);
  add_key(w, "#source variables", var_total);
  add_key(w, "#source variables with location", var_with_loc);
  add_key(w, "#call site entries", w->call_site_entries);
  add_key(w, "#call site DIEs", w->call_site_dies);
  add_key(w, "#call site parameter DIEs", w->call_site_params);
  add_key(w, "sum_all_variables(#bytes in parent scope)", w->scope_bytes);
  add_key(w, "sum_all_variables(#bytes in any scope covered by DW_AT_location)",
          w->total_covered);
  add_key(w, "sum_all_variables(#bytes in parent scope covered by DW_AT_location)",
          w->scope_covered);
  add_key(w, "sum_all_variables(#bytes in parent scope covered by DW_OP_entry_value)",
          w->scope_entry);
  add_key(w, "sum_all_params(#bytes in parent scope)", w->param_bytes);
  add_key(w, "sum_all_params(#bytes in parent scope covered by DW_AT_location)",
          w->param_covered);
  add_key(w, "sum_all_params(#bytes in parent scope covered by DW_OP_entry_value)",
          w->param_entry);
  add_key(w, "sum_all_local_vars(#bytes in parent scope)", w->local_bytes);
  add_key(w, "sum_all_local_vars(#bytes in parent scope covered by DW_AT_location)",
          w->local_covered);
  add_key(w, "sum_all_local_vars(#bytes in parent scope covered by DW_OP_entry_value)",
          w->local_entry);
  add_key(w, "#bytes within functions", w->function_size);
  add_key(w, "#bytes within inlined functions", w->inline_size);
  add_key(w, "#params", params);
  add_key(w, "#params with source location", param_src);
  add_key(w, "#params with type", param_types);
  add_key(w, "#params with binary location", param_locs);
  add_key(w, "#local vars", locals);
  add_key(w, "#local vars with source location", local_src);
  add_key(w, "#local vars with type", local_types);
  add_key(w, "#local vars with binary location", local_locs);
  add_section_sizes(w);
  add_key(w, "#variables processed by location statistics", w->num_var_param);
  add_buckets(w, "#variables", w->with_entry.all);
  add_buckets(w, "#variables - entry values", w->without_entry.all);
  add_key(w, "#params processed by location statistics", w->num_param);
  add_buckets(w, "#params", w->with_entry.params);
  add_buckets(w, "#params - entry values", w->without_entry.params);
  add_key(w, "#local vars processed by location statistics", w->num_var);
  add_buckets(w, "#local vars", w->with_entry.locals);
  add_buckets(w, "#local vars - entry values", w->without_entry.locals);
  add_key(w, "#bytes with line information", ls->bytes);
  add_key(w, "#bytes with line-0 locations", ls->zero_bytes);
  add_key(w, "#line entries", ls->entries);
  add_key(w, "#line entries (is_stmt)", ls->stmt_entries);
  add_key(w, "#line entries (unique)", ls->unique);
  add_key(w, "#line entries (unique non-0)", ls->unique_nonzero);
}

/* ---- the walk over the units, on one thread or two ---- */

static void walk_init(walk *w, const amddwarf_object *object, amddwarf_stats *stats,
                      amddwarf_error *err)
{
  memset(w, 0, sizeof *w);
  w->object = object;
  w->stats = stats;
  w->err = err;
  w->fn_ids.allocator = w->var_ids.allocator = &object->allocator;
  amddwarf__arena_init(&w->arena, &object->allocator);
  w->fn_ids.arena = w->var_ids.arena = &w->arena;
  w->names = &w->files;
}

/* Frees W; returns its first error, the coverage's included. */
static amddwarf_status walk_free(walk *w)
{
  const amddwarf_allocator *a = &w->object->allocator;
  amddwarf__stats_table_free(&w->fn_ids);
  amddwarf__stats_table_free(&w->var_ids);
  amddwarf__mem_free(a, w->fns, w->fn_capacity * sizeof *w->fns);
  amddwarf__mem_free(a, w->origins, w->origin_capacity * sizeof *w->origins);
  if (w->origin_slots != NULL)
    amddwarf__mem_free(a, w->origin_slots, (w->origin_mask + 1) * sizeof *w->origin_slots);
  amddwarf__mem_free(a, w->ranges, w->range_capacity * sizeof *w->ranges);
  vec_free(w, &w->origin_vars);
  vec_free(w, &w->pending);
  vec_free(w, &w->cross_cu);
  text_free(w, &w->id);
  amddwarf_status cov_status = amddwarf__stats_cov_free(w->cov);
  w->cov = NULL;
  if (w->names == &w->files)
    amddwarf__stats_files_free(&w->files);
  amddwarf__arena_release(&w->arena);
  return w->status != AMDDWARF_OK ? w->status : cov_status;
}

/* Units FIRST to END (exclusive), in order. */
/* The units left to walk on two threads: the first thread takes them from
   the front, the second (after the last unit, which is its own, and the
   line tables) from the back, one at a time, until they meet; so both end
   together whatever a unit and the line tables cost on this machine and
   object, and every object of two units or more is split. */
typedef struct unit_claims {
  pthread_mutex_t lock;
  size_t front, back;    /* the units [front, back) are not taken yet */
} unit_claims;

/* The next unit of CLAIMS from the front (FROM_BACK false) or the back,
   or SIZE_MAX when none is left. */
static size_t claim_unit(unit_claims *claims, bool from_back)
{
  size_t u = SIZE_MAX;
  pthread_mutex_lock(&claims->lock);
  if (claims->front < claims->back)
    u = from_back ? --claims->back : claims->front++;
  pthread_mutex_unlock(&claims->lock);
  return u;
}

static void walk_unit(walk *w, size_t u, uint32_t global, const cov_place *top)
{
  const amddwarf_unit *unit = &w->object->units[u];
  if (unit->records != NULL && unit->die_count > 0) {
    walk_die(w, u, 0, global, "g", 0, 0, NULL, top);
    resolve_pending(w, u);
  }
}

static void walk_units(walk *w, size_t first, size_t end, const cov_place *top)
{
  uint32_t global = fn_entry(w, "/"); /* the functions' "/" entry: globals */
  for (size_t u = first; u < end && w->status == AMDDWARF_OK; ++u)
    walk_unit(w, u, global, top);
  if (w->fn_ids.failed || w->var_ids.failed)
    oom(w);
}

/* Where the functions of one unit the second thread walked are in its
   handle's list (it walks the units last to first). */
typedef struct unit_functions {
  size_t first, count;
} unit_functions;

/* The second thread: the line tables' numbers, then the units it claims
   from the back (into a statistics handle of its own, PART). */
typedef struct second_job {
  const amddwarf_object *object;
  walk w;
  amddwarf_stats part;
  cov_place top;
  unit_claims claims;
  size_t own_unit;        /* the last unit, walked first; SIZE_MAX: none */
  unit_functions *blocks; /* one a unit walked, in the order walked */
  size_t block_count;
  amddwarf_error walk_err;
  stats_line_counts counts;
  amddwarf_status lines_status;
  amddwarf_error lines_err;
} second_job;

/* The second thread's walk of unit U, its functions noted as a block. */
static void walk_back_unit(second_job *job, size_t u, uint32_t global)
{
  size_t before = job->part.function_count;
  walk_unit(&job->w, u, global, &job->top);
  job->blocks[job->block_count].first = before;
  job->blocks[job->block_count++].count = job->part.function_count - before;
}

static void *run_second(void *user)
{
  second_job *job = user;
  walk *w = &job->w;
  uint32_t global = fn_entry(w, "/");
  if (job->own_unit != SIZE_MAX)
    walk_back_unit(job, job->own_unit, global);
  job->lines_status = amddwarf__stats_lines(job->object, NULL, &job->counts, &job->lines_err);
  for (size_t u; w->status == AMDDWARF_OK && (u = claim_unit(&job->claims, true)) != SIZE_MAX;)
    walk_back_unit(job, u, global);
  if (w->fn_ids.failed || w->var_ids.failed)
    oom(w);
  return NULL;
}

/* The first thread: the units it claims from the front. */
static void walk_front(walk *w, unit_claims *claims, const cov_place *top)
{
  uint32_t global = fn_entry(w, "/");
  for (size_t u; w->status == AMDDWARF_OK && (u = claim_unit(claims, false)) != SIZE_MAX;)
    walk_unit(w, u, global, top);
  if (w->fn_ids.failed || w->var_ids.failed)
    oom(w);
}

/* Adds the counts of W2 (the walk of later units) to W's. */
static bool merge_walk(walk *w, walk *w2)
{
  uint64_t *const sums[] = {
      &w->total_covered, &w->scope_covered, &w->scope_bytes, &w->scope_entry,
      &w->param_covered, &w->param_bytes,   &w->param_entry, &w->local_covered,
      &w->local_bytes,   &w->local_entry,   &w->call_site_entries, &w->call_site_dies,
      &w->call_site_params, &w->function_size, &w->inline_size, &w->num_var_param,
      &w->num_param,     &w->num_var};
  const uint64_t *const sums2[] = {
      &w2->total_covered, &w2->scope_covered, &w2->scope_bytes, &w2->scope_entry,
      &w2->param_covered, &w2->param_bytes,   &w2->param_entry, &w2->local_covered,
      &w2->local_bytes,   &w2->local_entry,   &w2->call_site_entries, &w2->call_site_dies,
      &w2->call_site_params, &w2->function_size, &w2->inline_size, &w2->num_var_param,
      &w2->num_param,     &w2->num_var};
  for (size_t i = 0; i < sizeof sums / sizeof sums[0]; ++i)
    amddwarf__stats_sat_add(sums[i], *sums2[i]);
  for (size_t i = 0; i < COVERAGE_BUCKETS; ++i) {
    w->with_entry.all[i] += w2->with_entry.all[i];
    w->with_entry.params[i] += w2->with_entry.params[i];
    w->with_entry.locals[i] += w2->with_entry.locals[i];
    w->without_entry.all[i] += w2->without_entry.all[i];
    w->without_entry.params[i] += w2->without_entry.params[i];
    w->without_entry.locals[i] += w2->without_entry.locals[i];
  }
  /* FnStatMap: entries by identifier; a function of both walks gets the
     union of its variables' identifiers (VarsInFunction is a set) */
  const amddwarf_allocator *a = &w->object->allocator;
  uint32_t *to = amddwarf__mem_alloc(a, (w2->fn_count ? w2->fn_count : 1) * sizeof *to);
  uint8_t *shared = amddwarf__mem_calloc(a, w2->fn_count ? w2->fn_count : 1, 1);
  bool ok = to != NULL && shared != NULL;
  size_t before = w->fn_count;
  for (size_t s = 0; ok && w2->fn_ids.mask && s <= w2->fn_ids.mask; ++s) {
    const str_slot *slot = &w2->fn_ids.slots[s];
    if (slot->key == NULL)
      continue;
    const fn_stats *f2 = &w2->fns[slot->value];
    uint32_t index = fn_entry(w, slot->key);
    if (index == UINT32_MAX) {
      ok = false;
      break;
    }
    fn_stats *f = &w->fns[index];
    to[slot->value] = index;
    shared[slot->value] = index < before;
    f->inlined += f2->inlined;
    f->out_of_line += f2->out_of_line;
    f->abstract_origins += f2->abstract_origins;
    f->vars_with_loc += f2->vars_with_loc;
    f->constant_members += f2->constant_members;
    f->artificial += f2->artificial;
    f->is_function |= f2->is_function;
    f->has_source_location |= f2->has_source_location;
    f->params += f2->params;
    f->param_src += f2->param_src;
    f->param_types += f2->param_types;
    f->param_locs += f2->param_locs;
    f->locals += f2->locals;
    f->local_src += f2->local_src;
    f->local_types += f2->local_types;
    f->local_locs += f2->local_locs;
    if (!shared[slot->value])
      f->vars_in_function = f2->vars_in_function;
  }
  for (size_t s = 0; ok && w2->var_ids.mask && s <= w2->var_ids.mask; ++s) {
    const str_slot *slot = &w2->var_ids.slots[s];
    if (slot->key == NULL || !shared[slot->owner])
      continue;
    bool added = false;
    uint32_t owner = to[slot->owner];
    if (amddwarf__stats_table_get(&w->var_ids, owner, slot->key, strlen(slot->key), 0, &added) ==
        UINT32_MAX)
      ok = false;
    else if (added)
      ++w->fns[owner].vars_in_function;
  }
  amddwarf__mem_free(a, to, (w2->fn_count ? w2->fn_count : 1) * sizeof *to);
  amddwarf__mem_free(a, shared, w2->fn_count ? w2->fn_count : 1);
  /* the abstract subprograms and the references still to resolve */
  size_t base = w->origin_vars.count;
  for (size_t i = 0; ok && i < w2->origin_vars.count; ++i)
    ok = vec_push(w, &w->origin_vars, w2->origin_vars.items[i]);
  for (size_t i = 0; ok && i < w2->origin_count; ++i) {
    origin_fn fn = w2->origins[i];
    fn.first += base;
    origin_add(w, &fn);
  }
  for (size_t i = 0; ok && i < w2->cross_cu.count; ++i)
    ok = vec_push(w, &w->cross_cu, w2->cross_cu.items[i]);
  return ok ? w->status == AMDDWARF_OK : oom(w);
}

/* Appends the functions of PART (the second walk's, of later units,
   walked last to first: BLOCKS) to STATS in the units' order; STATS takes
   PART's arena. */
static bool merge_functions(amddwarf_stats *stats, amddwarf_stats *part,
                            const unit_functions *blocks, size_t block_count)
{
  size_t n = stats->function_count + part->function_count;
  if (part->function_count > 0 &&
      amddwarf__mem_reserve(&stats->allocator, (void **)&stats->functions,
                            &stats->function_capacity, n, sizeof *stats->functions) != 0)
    return false;
  for (size_t b = block_count; b-- > 0;) {
    if (blocks[b].count > 0)
      memcpy(stats->functions + stats->function_count, part->functions + blocks[b].first,
             blocks[b].count * sizeof *part->functions);
    stats->function_count += blocks[b].count;
  }
  amddwarf__mem_free(&part->allocator, part->functions,
                     part->function_capacity * sizeof *part->functions);
  part->functions = NULL;
  stats->part_arena = part->arena;
  amddwarf__arena_init(&part->arena, &part->allocator);
  return true;
}

/* The whole object on this thread, the line tables first (they note
   every unit's file names). */
static void walk_one_thread(walk *w, const cov_place *top, stats_line_counts *lines)
{
  amddwarf_error lines_err;
  amddwarf_status st = amddwarf__stats_lines(w->object, &w->files, lines, &lines_err);
  walk_units(w, 0, w->object->cu_count, top);
  resolve_cross_cu(w);
  if (w->status == AMDDWARF_OK && st != AMDDWARF_OK) {
    w->status = st;
    if (w->err != NULL)
      *w->err = lines_err;
  }
}

/* The first units on this thread, the others and the line tables on a
   second; false when the second thread cannot start. */
static bool walk_two_threads(walk *w, uint32_t flags, const cov_place *top,
                             stats_line_counts *lines)
{
  const amddwarf_object *object = w->object;
  /* What both read of the object is read before the second thread starts
     (the line tables are read under the object's loading lock): the file
     names of every unit, the CFI and symbols (amddwarf__stats_cov_new). */
  amddwarf__stats_files_load_all(&w->files, object);
  second_job *job = amddwarf__mem_calloc(&object->allocator, 1, sizeof *job);
  if (job == NULL)
    return false;
  job->object = object;
  job->top = *top;
  job->own_unit = object->cu_count > 1 ? object->cu_count - 1 : SIZE_MAX;
  job->claims.front = 0;
  job->claims.back = object->cu_count > 1 ? object->cu_count - 1 : object->cu_count;
  job->blocks = amddwarf__mem_calloc(&object->allocator, object->cu_count + 1,
                                     sizeof *job->blocks);
  if (job->blocks == NULL || pthread_mutex_init(&job->claims.lock, NULL) != 0) {
    amddwarf__mem_free(&object->allocator, job->blocks,
                       (object->cu_count + 1) * sizeof *job->blocks);
    amddwarf__mem_free(&object->allocator, job, sizeof *job);
    return false;
  }
  job->part.allocator = w->stats->allocator;
  amddwarf__arena_init(&job->part.arena, &job->part.allocator);
  amddwarf__arena_init(&job->part.key_arena, &job->part.allocator);
  walk_init(&job->w, object, w->stats, &job->walk_err);
  job->w.names = &w->files;
  job->w.stats = &job->part;
  bool started = false;
  if (w->cov != NULL) {
    job->w.cov = amddwarf__stats_cov_new(object, &job->part, flags, &w->files, &job->walk_err);
    if (job->w.cov == NULL)
      goto out;
  }
  pthread_t thread;
  started = pthread_create(&thread, NULL, run_second, job) == 0;
  if (!started)
    goto out;
  walk_front(w, &job->claims, top);
  pthread_join(thread, NULL);
  amddwarf_status second =
      job->w.cov != NULL ? amddwarf__stats_cov_status(job->w.cov) : AMDDWARF_OK;
  if (job->w.status != AMDDWARF_OK || second != AMDDWARF_OK) {
    /* the error of the first unit that fails, as one thread meets it */
    started = false;
    goto out;
  }
  if (w->status == AMDDWARF_OK && (!merge_walk(w, &job->w) ||
                                   !merge_functions(w->stats, &job->part, job->blocks,
                                                    job->block_count)))
    oom(w);
  resolve_cross_cu(w);
  *lines = job->counts;
  if (w->status == AMDDWARF_OK && job->lines_status != AMDDWARF_OK) {
    w->status = job->lines_status;
    if (w->err != NULL)
      *w->err = job->lines_err;
  }
out:
  (void)walk_free(&job->w);
  amddwarf__mem_free(&object->allocator, job->part.functions,
                     job->part.function_capacity * sizeof *job->part.functions);
  amddwarf__arena_release(&job->part.arena);
  amddwarf__arena_release(&job->part.key_arena);
  pthread_mutex_destroy(&job->claims.lock);
  amddwarf__mem_free(&object->allocator, job->blocks,
                     (object->cu_count + 1) * sizeof *job->blocks);
  amddwarf__mem_free(&object->allocator, job, sizeof *job);
  return started;
}

/* One run of the walk; *AGAIN when the two threads' walk met an error
   and the statistics must be made again on one thread. */
static amddwarf_status run_walks(const amddwarf_object *object, amddwarf_stats *stats,
                                 uint32_t flags, amddwarf_error *err, bool *again)
{
  walk w;
  walk_init(&w, object, stats, err);
  if (!amddwarf__stats_files_init(&w.files, object))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics");
  cov_place top = {COV_OFF, {0}};
  if (!(flags & AMDDWARF_STATS_NO_COVERAGE)) {
    w.cov = amddwarf__stats_cov_new(object, stats, flags, &w.files, err);
    if (w.cov == NULL) {
      (void)walk_free(&w);
      return AMDDWARF_E_NO_MEMORY;
    }
    top.mode = COV_OUTSIDE;
  }
  stats_line_counts lines;
  memset(&lines, 0, sizeof lines);
  if (flags & AMDDWARF_STATS_ONE_THREAD) {
    walk_one_thread(&w, &top, &lines);
  } else if (!walk_two_threads(&w, flags, &top, &lines)) {
    *again = true;
    (void)walk_free(&w);
    return AMDDWARF_OK;
  }
  add_keys(&w, &lines);
  return walk_free(&w);
}

amddwarf_status amddwarf__stats_llvm(const amddwarf_object *object, amddwarf_stats *stats,
                                     uint32_t flags, amddwarf_error *err)
{
  bool again = false;
  amddwarf_status st = run_walks(object, stats, flags, err, &again);
  if (!again)
    return st;
  /* Two threads cannot start, or a unit failed: one thread, which meets
     the first error in unit order. */
  stats->function_count = 0;
  return run_walks(object, stats, flags | AMDDWARF_STATS_ONE_THREAD, err, &again);
}
