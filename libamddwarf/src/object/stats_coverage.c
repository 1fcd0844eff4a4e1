/* GPU-aware coverage: every concrete function (kernels and device
 * functions), the variables and parameters in it (those of its inlined
 * subroutines included), and for each the bytes of its scope covered by
 * each kind of location, correctly for every lane or not, through a quirk,
 * or from an address the object leaves undefined; whether the function
 * has call frame information. Read through the DIE references. */
#include <stdlib.h>
#include <string.h>

#include <amddwarf/cfi.h>

#include "common/mem.h"
#include "object/stats_internal.h"

/* One function being read: its arrays grow here and are copied into the
   statistics' arena when it ends. */
typedef struct fn_builder {
  amddwarf_stats_function fn;
  amddwarf_range *ranges, *inlined;
  size_t range_count, range_capacity, inlined_count, inlined_capacity;
  amddwarf_stats_var *vars;
  size_t var_count, var_capacity;
  amddwarf_stats_segment *segments; /* every variable's, in variable order */
  size_t segment_count, segment_capacity;
  size_t *first_segment;            /* per variable */
  size_t first_capacity;
} fn_builder;

typedef struct cov_walk {
  const amddwarf_object *object;
  amddwarf_stats *stats;
  amddwarf_error *err;
  amddwarf_status status;
  bool keep_vars;
  bool analyze_prologues;
  fn_builder b;
  stats_files files;                /* each unit's file names */
  uint64_t *kernels;                /* kernel entry addresses, sorted */
  size_t kernel_count;
  /* the strings copied so far, by their address in the object */
  const char **interned_from, **interned_to;
  size_t intern_mask, intern_count;
} cov_walk;

static bool oom(cov_walk *w)
{
  if (w->status == AMDDWARF_OK)
    w->status = amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "coverage");
  return false;
}

static bool grow(cov_walk *w, void **items, size_t *capacity, size_t needed, size_t size)
{
  if (amddwarf__mem_reserve(&w->stats->allocator, items, capacity, needed, size) != 0)
    return oom(w);
  return true;
}

/* A copy of S in the statistics' arena, made once per string of the object. */
static const char *intern(cov_walk *w, const char *s)
{
  if (s == NULL)
    return "";
  if ((w->intern_count + 1) * 2 > w->intern_mask + 1) {
    size_t cap = w->intern_mask ? (w->intern_mask + 1) * 2 : 256;
    const char **from = amddwarf__mem_calloc(&w->stats->allocator, cap, sizeof *from);
    const char **to = amddwarf__mem_calloc(&w->stats->allocator, cap, sizeof *to);
    if (from == NULL || to == NULL) {
      amddwarf__mem_free(&w->stats->allocator, from, cap * sizeof *from);
      amddwarf__mem_free(&w->stats->allocator, to, cap * sizeof *to);
      oom(w);
      return "";
    }
    for (size_t i = 0; w->intern_mask && i <= w->intern_mask; ++i) {
      if (w->interned_from[i] == NULL)
        continue;
      size_t h = ((uintptr_t)w->interned_from[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
      while (from[h] != NULL)
        h = (h + 1) & (cap - 1);
      from[h] = w->interned_from[i];
      to[h] = w->interned_to[i];
    }
    if (w->intern_mask) {
      amddwarf__mem_free(&w->stats->allocator, w->interned_from,
                         (w->intern_mask + 1) * sizeof *from);
      amddwarf__mem_free(&w->stats->allocator, w->interned_to, (w->intern_mask + 1) * sizeof *to);
    }
    w->interned_from = from;
    w->interned_to = to;
    w->intern_mask = cap - 1;
  }
  size_t h = ((uintptr_t)s * 0x9e3779b97f4a7c15ull >> 20) & w->intern_mask;
  for (; w->interned_from[h] != NULL; h = (h + 1) & w->intern_mask)
    if (w->interned_from[h] == s)
      return w->interned_to[h];
  char *copy = amddwarf__arena_strndup(&w->stats->arena, s, strlen(s));
  if (copy == NULL) {
    oom(w);
    return "";
  }
  w->interned_from[h] = s;
  w->interned_to[h] = copy;
  ++w->intern_count;
  return copy;
}

static const char *inherited_name(cov_walk *w, const stats_die *die, stats_inherited what)
{
  stats_die from;
  if (!amddwarf__stats_die_find(w->object, die, what, &from))
    return NULL;
  return what == STATS_LINKAGE ? from.linkage : from.name;
}

static void decl_of(cov_walk *w, const stats_die *die, const char **file, uint32_t *line)
{
  stats_die from;
  *file = "";
  *line = 0;
  if (amddwarf__stats_die_find(w->object, die, STATS_DECL_FILE, &from))
    *file = intern(w, amddwarf__stats_file_name(&w->files, w->object, from.cu_index,
                                                from.decl_file));
  if (amddwarf__stats_die_find(w->object, die, STATS_DECL_LINE, &from))
    *line = (uint32_t)from.decl_line;
}

/* ---- call frame information ---- */

/* Whether a debugger can unwind the frames of the function entered at
   LOW: REAL when an FDE covering LOW has a call frame instruction other
   than DW_CFA_nop (0x00, so any byte not zero); SYNTHESIZED when it has
   none but the object's prologue analyzer synthesizes its rows (the row at
   LOW says so; only with ANALYZE); NONE otherwise: no FDE, one the
   analyzer refuses, or one it was not asked about. */
static amddwarf_stats_cfi function_cfi(const amddwarf_object *object, uint64_t low, bool analyze)
{
  struct amddwarf_cfi *cfi = NULL;
  const amddwarf_cfi_fde *fde = NULL;
  const amddwarf_cfi_row *row = NULL;
  if (amddwarf_object_cfi(object, &cfi, NULL) != AMDDWARF_OK ||
      amddwarf_cfi_find_fde(cfi, low, &fde) != AMDDWARF_OK)
    return AMDDWARF_STATS_CFI_NONE;
  for (uint64_t i = 0; i < fde->instructions_size; ++i)
    if (fde->instructions[i] != 0)
      return AMDDWARF_STATS_CFI_REAL;
  if (analyze && amddwarf_cfi_find_row(cfi, low, &row, NULL) == AMDDWARF_OK && row->synthesized)
    return AMDDWARF_STATS_CFI_SYNTHESIZED;
  return AMDDWARF_STATS_CFI_NONE;
}

/* ---- variables ---- */

static void add_coverage(amddwarf_stats_coverage *sum, const amddwarf_stats_coverage *c)
{
  sum->scope += c->scope;
  sum->covered += c->covered;
  for (int k = 0; k < AMDDWARF_LOC_KIND_COUNT; ++k)
    sum->kind[k] += c->kind[k];
  sum->lane_correct += c->lane_correct;
  sum->legacy += c->legacy;
  sum->lane_missing += c->lane_missing;
  sum->quirk += c->quirk;
  sum->unknown_address += c->unknown_address;
}

/* The inlined subroutine a variable is in. */
typedef struct inline_info {
  uint16_t depth;
  const char *name, *decl_file;
  uint32_t decl_line, call_line;
} inline_info;

typedef struct var_reader {
  cov_walk *w;
  const amddwarf_cu *cu;
  const amddwarf_range *scope;
  size_t scope_count;
  amddwarf_stats_coverage *c;
} var_reader;

/* Counts [LOW, HIGH) of the scope as located by CLASS. */
static void cover(var_reader *v, uint64_t low, uint64_t high, const amddwarf_loc_class *class)
{
  cov_walk *w = v->w;
  for (size_t i = 0; i < v->scope_count; ++i) {
    uint64_t lo = low > v->scope[i].low ? low : v->scope[i].low;
    uint64_t hi = high < v->scope[i].high ? high : v->scope[i].high;
    if (lo >= hi)
      continue;
    uint64_t n = hi - lo;
    amddwarf_stats_coverage *c = v->c;
    c->kind[class->kind] += n;
    if (class->kind != AMDDWARF_LOC_UNDEFINED) {
      c->covered += n;
      if (class->flags & AMDDWARF_LOC_UNKNOWN_ADDRESS)
        c->unknown_address += n;
      else if (class->flags & AMDDWARF_LOC_QUIRK)
        c->quirk += n;
      else if (amddwarf_lane_status_correct(class->lane)) {
        c->lane_correct += n;
        if (class->lane == AMDDWARF_LANE_LEGACY)
          c->legacy += n;
      }
      if (class->lane == AMDDWARF_LANE_MISSING)
        c->lane_missing += n;
    }
    if (!w->keep_vars)
      continue;
    fn_builder *b = &w->b;
    if (!grow(w, (void **)&b->segments, &b->segment_capacity, b->segment_count + 1,
              sizeof *b->segments))
      return;
    amddwarf_stats_segment *s = &b->segments[b->segment_count++];
    s->low = lo;
    s->high = hi;
    s->kind = (uint8_t)class->kind;
    s->lane = (uint8_t)class->lane;
    s->flags = (uint16_t)class->flags;
  }
}

static bool cover_entry(void *user, const amddwarf_loc_entry *e)
{
  var_reader *v = user;
  amddwarf_loc_class class;
  amddwarf_loc_classify(v->w->object, v->cu, e->expr, e->size, &class);
  cover(v, e->low, e->high, &class);
  return v->w->status == AMDDWARF_OK;
}

static void add_var(cov_walk *w, const stats_die *die, const amddwarf_range *scope,
                    size_t scope_count, const inline_info *in)
{
  fn_builder *b = &w->b;
  amddwarf_stats_var var;
  memset(&var, 0, sizeof var);
  amddwarf_stats_coverage *c = &var.coverage;
  for (size_t i = 0; i < scope_count; ++i)
    c->scope += scope[i].high - scope[i].low;
  const amddwarf_cu *cu = &w->object->cus[die->cu_index];
  var_reader v = {w, cu, scope, scope_count, c};
  size_t first = b->segment_count;
  var.has_location = die->has_const_value ||
                     (die->has_location && (die->location.kind == AMDDWARF_ATTR_EXPR ||
                                            die->location.kind == AMDDWARF_ATTR_LIST));
  if (die->has_const_value) {
    amddwarf_loc_class value = {AMDDWARF_LOC_IMPLICIT, AMDDWARF_LANE_UNIFORM, 0, 0};
    cover(&v, 0, UINT64_MAX, &value);
  } else if (die->has_location && die->location.kind == AMDDWARF_ATTR_EXPR) {
    amddwarf_loc_class class;
    amddwarf_loc_classify(w->object, cu, die->location.bytes, die->location.size, &class);
    cover(&v, 0, UINT64_MAX, &class);
  } else if (die->has_location && die->location.kind == AMDDWARF_ATTR_LIST) {
    (void)amddwarf__object_visit_loclist((amddwarf_object *)(uintptr_t)w->object, cu,
                                         die->location.form, die->location.u, cover_entry, &v,
                                         NULL);
  }
  /* overlapping entries: a variable covers at most its scope, and each
     part of its coverage at most what it covers */
  uint64_t *parts[] = {&c->covered, &c->lane_correct, &c->legacy, &c->lane_missing, &c->quirk,
                       &c->unknown_address};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i)
    if (*parts[i] > c->scope)
      *parts[i] = c->scope;
  add_coverage(&b->fn.coverage, c);
  ++b->fn.var_count;
  if (!w->keep_vars)
    return;
  const char *name = inherited_name(w, die, STATS_NAME);
  var.name = intern(w, name);
  decl_of(w, die, &var.decl_file, &var.decl_line);
  var.is_param = die->tag == DW_TAG_formal_parameter;
  var.inline_depth = in->depth;
  var.inlined_from = in->name;
  var.inlined_decl_file = in->decl_file != NULL ? in->decl_file : "";
  var.inlined_decl_line = in->decl_line;
  var.call_line = in->call_line;
  var.die_offset = die->offset;
  /* the scope and segments are placed when the function ends */
  var.scope = scope;
  var.scope_count = scope_count;
  var.segment_count = b->segment_count - first;
  if (!grow(w, (void **)&b->vars, &b->var_capacity, b->var_count + 1, sizeof *b->vars) ||
      !grow(w, (void **)&b->first_segment, &b->first_capacity, b->var_count + 1,
            sizeof *b->first_segment))
    return;
  b->first_segment[b->var_count] = first;
  b->vars[b->var_count++] = var;
}

/* ---- the walk ---- */

static uint32_t first_child(const amddwarf_unit *unit, uint32_t index)
{
  uint32_t next = index + 1;
  return next < unit->die_count && unit->records[next].parent == index ? next
                                                                       : AMDDWARF_NO_RECORD;
}

/* A copy of RANGES in the arena. */
static const amddwarf_range *keep_ranges(cov_walk *w, const amddwarf_range *ranges, size_t count)
{
  if (count == 0)
    return NULL;
  amddwarf_range *copy = amddwarf__arena_alloc(&w->stats->arena, count * sizeof *copy, 8);
  if (copy == NULL) {
    oom(w);
    return NULL;
  }
  memcpy(copy, ranges, count * sizeof *copy);
  return copy;
}

static void walk_scope(cov_walk *w, size_t cu_index, uint32_t index,
                       const amddwarf_range *scope, size_t scope_count, inline_info in);

static bool is_kernel_entry(const cov_walk *w, uint64_t pc)
{
  size_t lo = 0, hi = w->kernel_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->kernels[mid] < pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < w->kernel_count && w->kernels[lo] == pc;
}

/* A concrete subprogram: one function of the statistics. */
static void walk_function(cov_walk *w, size_t cu_index, uint32_t index, const stats_die *die)
{
  fn_builder saved = w->b; /* a function nested in another (rare) */
  memset(&w->b, 0, sizeof w->b);
  fn_builder *b = &w->b;
  if (!amddwarf__stats_die_ranges(w->object, die, &b->ranges, &b->range_count,
                                  &b->range_capacity) ||
      b->range_count == 0)
    goto done;
  /* scopes point at ranges that stay where they are: the arena copy */
  const amddwarf_range *ranges = keep_ranges(w, b->ranges, b->range_count);
  if (ranges == NULL)
    goto done;
  amddwarf_stats_function *fn = &b->fn;
  fn->name = intern(w, inherited_name(w, die, STATS_NAME));
  const char *linkage = inherited_name(w, die, STATS_LINKAGE);
  fn->linkage_name = linkage != NULL ? intern(w, linkage) : NULL;
  decl_of(w, die, &fn->decl_file, &fn->decl_line);
  fn->cu_index = die->cu_index;
  fn->die_offset = die->offset;
  fn->ranges = ranges;
  fn->range_count = b->range_count;
  for (size_t i = 0; i < b->range_count; ++i)
    fn->bytes += ranges[i].high - ranges[i].low;
  fn->is_kernel = (die->has_cc && die->cc == AMDDWARF_DW_CC_LLVM_OPENCL_KERNEL) ||
                  is_kernel_entry(w, ranges[0].low);
  fn->cfi = (uint8_t)function_cfi(w->object, ranges[0].low, w->analyze_prologues);
  const amddwarf_unit *unit = &w->object->units[cu_index];
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling)
  {
    inline_info none = {0, NULL, NULL, 0, 0};
    walk_scope(w, cu_index, c, ranges, b->range_count, none);
  }
  if (w->status != AMDDWARF_OK)
    goto done;
  fn->inlined = keep_ranges(w, b->inlined, b->inlined_count);
  fn->inlined_count = b->inlined_count;
  if (w->keep_vars && b->var_count > 0) {
    amddwarf_stats_var *vars =
        amddwarf__arena_alloc(&w->stats->arena, b->var_count * sizeof *vars, 8);
    amddwarf_stats_segment *segments =
        b->segment_count ? amddwarf__arena_alloc(&w->stats->arena,
                                                 b->segment_count * sizeof *segments, 8)
                         : NULL;
    if (vars == NULL || (b->segment_count && segments == NULL)) {
      oom(w);
      goto done;
    }
    if (b->segment_count)
      memcpy(segments, b->segments, b->segment_count * sizeof *segments);
    for (size_t i = 0; i < b->var_count; ++i) {
      vars[i] = b->vars[i];
      vars[i].segments = vars[i].segment_count ? segments + b->first_segment[i] : NULL;
    }
    fn->vars = vars;
  }
  amddwarf_stats *stats = w->stats;
  if (grow(w, (void **)&stats->functions, &stats->function_capacity, stats->function_count + 1,
           sizeof *stats->functions))
    stats->functions[stats->function_count++] = *fn;
done:
  amddwarf__mem_free(&w->stats->allocator, b->ranges, b->range_capacity * sizeof *b->ranges);
  amddwarf__mem_free(&w->stats->allocator, b->inlined, b->inlined_capacity * sizeof *b->inlined);
  amddwarf__mem_free(&w->stats->allocator, b->vars, b->var_capacity * sizeof *b->vars);
  amddwarf__mem_free(&w->stats->allocator, b->segments,
                     b->segment_capacity * sizeof *b->segments);
  amddwarf__mem_free(&w->stats->allocator, b->first_segment,
                     b->first_capacity * sizeof *b->first_segment);
  w->b = saved;
}

/* DIE INDEX inside a function: a scope or a variable. */
static void walk_scope(cov_walk *w, size_t cu_index, uint32_t index,
                       const amddwarf_range *scope, size_t scope_count, inline_info in)
{
  const amddwarf_object *object = w->object;
  const amddwarf_unit *unit = &object->units[cu_index];
  unsigned tag = object->abbrev_tables[unit->abbrev_table].all[unit->records[index].abbrev].tag;
  if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter &&
      tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine &&
      tag != DW_TAG_subprogram)
    return;
  stats_die die;
  amddwarf_status st = amddwarf__stats_die_read(
      object, cu_index, object->cus[cu_index].offset + unit->records[index].offset, &die, w->err);
  if (st != AMDDWARF_OK) {
    w->status = st;
    return;
  }
  if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
    if (!die.declaration)
      add_var(w, &die, scope, scope_count, &in);
    return;
  }
  if (tag == DW_TAG_subprogram) {
    if (!die.declaration && !die.has_inline)
      walk_function(w, cu_index, index, &die);
    return;
  }
  fn_builder *b = &w->b;
  size_t first = b->range_count;
  if (!amddwarf__stats_die_ranges(object, &die, &b->ranges, &b->range_count, &b->range_capacity))
    return;
  const amddwarf_range *own = NULL;
  if (b->range_count > first) {
    own = keep_ranges(w, b->ranges + first, b->range_count - first);
    if (own == NULL)
      return;
    scope = own;
    scope_count = b->range_count - first;
  }
  b->range_count = first;
  if (tag == DW_TAG_inlined_subroutine) {
    for (size_t i = 0; own != NULL && i < scope_count; ++i) {
      if (!grow(w, (void **)&b->inlined, &b->inlined_capacity, b->inlined_count + 1,
                sizeof *b->inlined))
        return;
      b->inlined[b->inlined_count++] = own[i];
    }
    ++in.depth;
    if (w->keep_vars) {
      in.name = intern(w, inherited_name(w, &die, STATS_NAME));
      decl_of(w, &die, &in.decl_file, &in.decl_line);
    }
    in.call_line = (uint32_t)die.call_line;
  }
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling)
    walk_scope(w, cu_index, c, scope, scope_count, in);
}

/* Outside functions: finds the concrete subprograms. */
static void walk_outside(cov_walk *w, size_t cu_index, uint32_t index)
{
  const amddwarf_object *object = w->object;
  const amddwarf_unit *unit = &object->units[cu_index];
  unsigned tag = object->abbrev_tables[unit->abbrev_table].all[unit->records[index].abbrev].tag;
  if (tag == DW_TAG_subprogram) {
    stats_die die;
    amddwarf_status st = amddwarf__stats_die_read(
        object, cu_index, object->cus[cu_index].offset + unit->records[index].offset, &die,
        w->err);
    if (st != AMDDWARF_OK) {
      w->status = st;
      return;
    }
    if (!die.declaration && !die.has_inline)
      walk_function(w, cu_index, index, &die);
    return;
  }
  if (tag == DW_TAG_subroutine_type || tag == DW_TAG_structure_type ||
      tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_array_type ||
      tag == DW_TAG_base_type || tag == DW_TAG_pointer_type || tag == DW_TAG_typedef)
    return;
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling)
    walk_outside(w, cu_index, c);
}

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

amddwarf_status amddwarf__stats_coverage(const amddwarf_object *object, amddwarf_stats *stats,
                                         uint32_t flags, amddwarf_error *err)
{
  cov_walk w;
  memset(&w, 0, sizeof w);
  w.object = object;
  w.stats = stats;
  w.err = err;
  w.keep_vars = (flags & AMDDWARF_STATS_VARIABLES) != 0;
  w.analyze_prologues = (flags & AMDDWARF_STATS_ANALYZE_PROLOGUES) != 0;
  if (!amddwarf__stats_files_init(&w.files, object))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "coverage");
  size_t symbols = amddwarf_object_symbol_count(object);
  w.kernels = amddwarf__mem_alloc(&stats->allocator, (symbols ? symbols : 1) * sizeof *w.kernels);
  if (w.kernels == NULL) {
    amddwarf__stats_files_free(&w.files);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "coverage");
  }
  for (size_t i = 0; i < symbols; ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    if (s->kind == AMDDWARF_SYMBOL_KERNEL)
      w.kernels[w.kernel_count++] = s->address;
  }
  qsort(w.kernels, w.kernel_count, sizeof *w.kernels, compare_u64);
  for (size_t u = 0; u < object->cu_count && w.status == AMDDWARF_OK; ++u)
    if (object->units[u].records != NULL && object->units[u].die_count > 0)
      walk_outside(&w, u, 0);
  amddwarf__mem_free(&stats->allocator, w.kernels, (symbols ? symbols : 1) * sizeof *w.kernels);
  amddwarf__stats_files_free(&w.files);
  if (w.intern_mask) {
    amddwarf__mem_free(&stats->allocator, w.interned_from,
                       (w.intern_mask + 1) * sizeof *w.interned_from);
    amddwarf__mem_free(&stats->allocator, w.interned_to,
                       (w.intern_mask + 1) * sizeof *w.interned_to);
  }
  return w.status;
}
