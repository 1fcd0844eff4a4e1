/* GPU-aware coverage: every concrete function (kernels and device
 * functions), the variables and parameters in it (those of its inlined
 * subroutines included), and for each the bytes of its scope covered by
 * each kind of location, correctly for every lane or not, through a quirk,
 * or from an address the object leaves undefined; whether the function
 * has call frame information. A builder fed DIE by DIE: by the walk of
 * the llvm-dwarfdump keys (stats_llvm.c), so that each DIE is read once,
 * or by the coverage's own walk below when the keys are not wanted. */
#include <stdlib.h>
#include <string.h>

#include <amddwarf/cfi.h>

#include "common/mem.h"
#include "object/stats_internal.h"

/* One function being read: its arrays grow here and are copied into the
   statistics' arena when it ends. */
typedef struct fn_builder {
  amddwarf_stats_function fn;
  amddwarf_range *inlined;
  size_t inlined_count, inlined_capacity;
  amddwarf_stats_var *vars;
  size_t var_count, var_capacity;
  amddwarf_stats_segment *segments; /* every variable's, in variable order */
  size_t segment_count, segment_capacity;
  size_t *first_segment;            /* per variable */
  size_t first_capacity;
} fn_builder;

/* Expressions classified in the current unit, by their bytes: a unit's
   variables share a few expressions (a frame offset, a register), and the
   classification depends only on the unit and the bytes. Direct-mapped;
   expressions longer than CLASS_KEY_BYTES are classified each time. */
enum { CLASS_CACHE_SLOTS = 1024, CLASS_KEY_BYTES = 22 };
typedef struct class_slot {
  uint8_t size;                     /* 0: empty (an empty expression is not kept) */
  uint8_t bytes[CLASS_KEY_BYTES];
  amddwarf_loc_class class;
} class_slot;

struct stats_cov {
  const amddwarf_object *object;
  amddwarf_stats *stats;
  amddwarf_error *err;
  amddwarf_status status;
  bool keep_vars;
  bool analyze_prologues;
  bool in_function;
  fn_builder b;                     /* the current function */
  fn_builder *suspended;            /* the functions B is nested in (rare) */
  size_t suspended_count, suspended_capacity;
  stats_files own_files, *files;    /* each unit's file names */
  uint64_t *kernels;                /* kernel entry addresses, sorted */
  size_t kernel_count, kernel_capacity;
  /* the strings copied so far, by their address in the object */
  const char **interned_from, **interned_to;
  size_t intern_mask, intern_count;
  const amddwarf_cu *class_unit;    /* the unit of CLASSES */
  class_slot *classes;
  /* the coverage's own walk: the ranges being read */
  amddwarf_range *ranges;
  size_t range_count, range_capacity;
};
typedef stats_cov cov_walk;

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
  stats_die scratch;
  const stats_die *from = amddwarf__stats_die_find(w->object, die, what, &scratch);
  if (from == NULL)
    return NULL;
  return what == STATS_LINKAGE ? from->linkage : from->name;
}

static void decl_of(cov_walk *w, const stats_die *die, const char **file, uint32_t *line)
{
  stats_die scratch;
  const stats_die *from = amddwarf__stats_die_find(w->object, die, STATS_DECL_FILE, &scratch);
  *file = "";
  *line = 0;
  if (from != NULL)
    *file = intern(w, amddwarf__stats_file_name(w->files, w->object, from->cu_index,
                                                from->decl_file));
  if ((from = amddwarf__stats_die_find(w->object, die, STATS_DECL_LINE, &scratch)) != NULL)
    *line = (uint32_t)from->decl_line;
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

/* Counts [LOW, HIGH) of VAR's scope as located by CLASS. */
static void cover(stats_cov_var *v, uint64_t low, uint64_t high, const amddwarf_loc_class *class)
{
  cov_walk *w = v->cov;
  const amddwarf_range *scope = v->scope->ranges;
  for (size_t i = 0; i < v->scope->count; ++i) {
    uint64_t lo = low > scope[i].low ? low : scope[i].low;
    uint64_t hi = high < scope[i].high ? high : scope[i].high;
    if (lo >= hi)
      continue;
    uint64_t n = hi - lo;
    amddwarf_stats_coverage *c = &v->var.coverage;
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

/* amddwarf_loc_classify, through the unit's cache. */
static void classify(cov_walk *w, const amddwarf_cu *cu, const uint8_t *bytes, size_t size,
                     amddwarf_loc_class *out)
{
  if (size == 0 || size > CLASS_KEY_BYTES || w->classes == NULL) {
    amddwarf_loc_classify(w->object, cu, bytes, size, out);
    return;
  }
  if (w->class_unit != cu) {
    memset(w->classes, 0, CLASS_CACHE_SLOTS * sizeof *w->classes);
    w->class_unit = cu;
  }
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i)
    h = (h ^ bytes[i]) * 1099511628211ull;
  class_slot *slot = &w->classes[(h ^ (h >> 29)) & (CLASS_CACHE_SLOTS - 1)];
  if (slot->size == size && memcmp(slot->bytes, bytes, size) == 0) {
    *out = slot->class;
    return;
  }
  amddwarf_loc_classify(w->object, cu, bytes, size, out);
  slot->size = (uint8_t)size;
  memcpy(slot->bytes, bytes, size);
  slot->class = *out;
}

void amddwarf__stats_cov_var_begin(stats_cov *w, const stats_die *die,
                                   const stats_cov_scope *scope, stats_cov_var *v)
{
  memset(&v->var, 0, sizeof v->var);
  v->cov = w;
  v->cu = &w->object->cus[die->cu_index];
  v->scope = scope;
  v->first_segment = w->b.segment_count;
  amddwarf_stats_coverage *c = &v->var.coverage;
  for (size_t i = 0; i < scope->count; ++i)
    c->scope += scope->ranges[i].high - scope->ranges[i].low;
  v->var.has_location = die->has_const_value ||
                        (die->has_location && (die->location.kind == AMDDWARF_ATTR_EXPR ||
                                               die->location.kind == AMDDWARF_ATTR_LIST));
  if (die->has_const_value) {
    amddwarf_loc_class value = {AMDDWARF_LOC_IMPLICIT, AMDDWARF_LANE_UNIFORM, 0, 0};
    cover(v, 0, UINT64_MAX, &value);
  } else if (die->has_location && die->location.kind == AMDDWARF_ATTR_EXPR) {
    amddwarf_loc_class class;
    classify(w, v->cu, die->location.bytes, die->location.size, &class);
    cover(v, 0, UINT64_MAX, &class);
  }
}

bool amddwarf__stats_cov_var_entry(void *var, const amddwarf_loc_entry *e)
{
  stats_cov_var *v = var;
  amddwarf_loc_class class;
  classify(v->cov, v->cu, e->expr, e->size, &class);
  cover(v, e->low, e->high, &class);
  return v->cov->status == AMDDWARF_OK;
}

void amddwarf__stats_cov_var_end(stats_cov_var *v, const stats_die *die)
{
  cov_walk *w = v->cov;
  fn_builder *b = &w->b;
  amddwarf_stats_var *var = &v->var;
  amddwarf_stats_coverage *c = &var->coverage;
  /* overlapping entries: a variable covers at most its scope, and each
     part of its coverage at most what it covers */
  uint64_t *parts[] = {&c->covered, &c->lane_correct, &c->legacy, &c->lane_missing, &c->quirk,
                       &c->unknown_address};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i)
    if (*parts[i] > c->scope)
      *parts[i] = c->scope;
  amddwarf_stats_coverage_add(&b->fn.coverage, c);
  ++b->fn.var_count;
  if (!w->keep_vars)
    return;
  var->name = intern(w, inherited_name(w, die, STATS_NAME));
  decl_of(w, die, &var->decl_file, &var->decl_line);
  var->is_param = die->tag == DW_TAG_formal_parameter;
  const stats_cov_scope *in = v->scope;
  var->inline_depth = in->inline_depth;
  var->inlined_from = in->inlined_from;
  var->inlined_decl_file = in->inlined_decl_file != NULL ? in->inlined_decl_file : "";
  var->inlined_decl_line = in->inlined_decl_line;
  var->call_line = in->call_line;
  var->die_offset = die->offset;
  /* the segments are placed when the function ends */
  var->scope = in->ranges;
  var->scope_count = in->count;
  var->segment_count = b->segment_count - v->first_segment;
  if (!grow(w, (void **)&b->vars, &b->var_capacity, b->var_count + 1, sizeof *b->vars) ||
      !grow(w, (void **)&b->first_segment, &b->first_capacity, b->var_count + 1,
            sizeof *b->first_segment))
    return;
  b->first_segment[b->var_count] = v->first_segment;
  b->vars[b->var_count++] = *var;
}

/* ---- functions and scopes ---- */

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

static void builder_free(cov_walk *w, fn_builder *b)
{
  const amddwarf_allocator *a = &w->stats->allocator;
  amddwarf__mem_free(a, b->inlined, b->inlined_capacity * sizeof *b->inlined);
  amddwarf__mem_free(a, b->vars, b->var_capacity * sizeof *b->vars);
  amddwarf__mem_free(a, b->segments, b->segment_capacity * sizeof *b->segments);
  amddwarf__mem_free(a, b->first_segment, b->first_capacity * sizeof *b->first_segment);
  memset(b, 0, sizeof *b);
}

bool amddwarf__stats_cov_function_begin(stats_cov *w, const stats_die *die,
                                        const amddwarf_range *ranges_in, size_t count,
                                        stats_cov_scope *scope)
{
  memset(scope, 0, sizeof *scope);
  if (count == 0 || w->status != AMDDWARF_OK)
    return false;
  /* scopes point at ranges that stay where they are: the arena copy */
  const amddwarf_range *ranges = keep_ranges(w, ranges_in, count);
  if (ranges == NULL)
    return false;
  if (w->in_function) {
    if (!grow(w, (void **)&w->suspended, &w->suspended_capacity, w->suspended_count + 1,
              sizeof *w->suspended))
      return false;
    w->suspended[w->suspended_count++] = w->b;
    memset(&w->b, 0, sizeof w->b);
  }
  w->in_function = true;
  amddwarf_stats_function *fn = &w->b.fn;
  fn->name = intern(w, inherited_name(w, die, STATS_NAME));
  const char *linkage = inherited_name(w, die, STATS_LINKAGE);
  fn->linkage_name = linkage != NULL ? intern(w, linkage) : NULL;
  decl_of(w, die, &fn->decl_file, &fn->decl_line);
  fn->cu_index = die->cu_index;
  fn->die_offset = die->offset;
  fn->ranges = ranges;
  fn->range_count = count;
  for (size_t i = 0; i < count; ++i)
    fn->bytes += ranges[i].high - ranges[i].low;
  fn->is_kernel = (die->has_cc && die->cc == AMDDWARF_DW_CC_LLVM_OPENCL_KERNEL) ||
                  is_kernel_entry(w, ranges[0].low);
  fn->cfi = (uint8_t)function_cfi(w->object, ranges[0].low, w->analyze_prologues);
  scope->ranges = ranges;
  scope->count = count;
  return true;
}

/* Places the function's variables and segments in the arena. */
static bool finish_function(cov_walk *w)
{
  fn_builder *b = &w->b;
  amddwarf_stats_function *fn = &b->fn;
  fn->inlined = keep_ranges(w, b->inlined, b->inlined_count);
  fn->inlined_count = b->inlined_count;
  if (w->status != AMDDWARF_OK)
    return false;
  if (w->keep_vars && b->var_count > 0) {
    amddwarf_stats_var *vars =
        amddwarf__arena_alloc(&w->stats->arena, b->var_count * sizeof *vars, 8);
    amddwarf_stats_segment *segments =
        b->segment_count ? amddwarf__arena_alloc(&w->stats->arena,
                                                 b->segment_count * sizeof *segments, 8)
                         : NULL;
    if (vars == NULL || (b->segment_count && segments == NULL))
      return oom(w);
    if (b->segment_count)
      memcpy(segments, b->segments, b->segment_count * sizeof *segments);
    for (size_t i = 0; i < b->var_count; ++i) {
      vars[i] = b->vars[i];
      vars[i].segments = vars[i].segment_count ? segments + b->first_segment[i] : NULL;
    }
    fn->vars = vars;
  }
  amddwarf_stats *stats = w->stats;
  if (!grow(w, (void **)&stats->functions, &stats->function_capacity, stats->function_count + 1,
            sizeof *stats->functions))
    return false;
  stats->functions[stats->function_count++] = *fn;
  return true;
}

void amddwarf__stats_cov_function_end(stats_cov *w)
{
  if (!w->in_function)
    return;
  (void)finish_function(w);
  builder_free(w, &w->b);
  w->in_function = w->suspended_count > 0;
  if (w->in_function)
    w->b = w->suspended[--w->suspended_count];
}

bool amddwarf__stats_cov_enter(stats_cov *w, const stats_die *die, const amddwarf_range *ranges,
                               size_t count, stats_cov_scope *scope)
{
  fn_builder *b = &w->b;
  const amddwarf_range *own = NULL;
  if (count > 0) {
    own = keep_ranges(w, ranges, count);
    if (own == NULL)
      return false;
    scope->ranges = own;
    scope->count = count;
  }
  if (die->tag != DW_TAG_inlined_subroutine)
    return true;
  for (size_t i = 0; i < count; ++i) {
    if (!grow(w, (void **)&b->inlined, &b->inlined_capacity, b->inlined_count + 1,
              sizeof *b->inlined))
      return false;
    b->inlined[b->inlined_count++] = own[i];
  }
  ++scope->inline_depth;
  if (w->keep_vars) {
    scope->inlined_from = intern(w, inherited_name(w, die, STATS_NAME));
    decl_of(w, die, &scope->inlined_decl_file, &scope->inlined_decl_line);
  }
  scope->call_line = (uint32_t)die->call_line;
  return true;
}

/* ---- the builder ---- */

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

stats_cov *amddwarf__stats_cov_new(const amddwarf_object *object, amddwarf_stats *stats,
                                   uint32_t flags, stats_files *files, amddwarf_error *err)
{
  cov_walk *w = amddwarf__mem_calloc(&stats->allocator, 1, sizeof *w);
  if (w == NULL) {
    amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "coverage");
    return NULL;
  }
  w->object = object;
  w->stats = stats;
  w->err = err;
  w->keep_vars = (flags & AMDDWARF_STATS_VARIABLES) != 0;
  w->analyze_prologues = (flags & AMDDWARF_STATS_ANALYZE_PROLOGUES) != 0;
  w->files = files;
  if (files == NULL) {
    w->files = &w->own_files;
    if (!amddwarf__stats_files_init(&w->own_files, object)) {
      w->files = NULL;
      oom(w);
    }
  }
  w->classes = amddwarf__mem_calloc(&stats->allocator, CLASS_CACHE_SLOTS, sizeof *w->classes);
  struct amddwarf_cfi *cfi = NULL; /* loaded now, before a walk needs it */
  (void)amddwarf_object_cfi(object, &cfi, NULL);
  size_t symbols = amddwarf_object_symbol_count(object);
  w->kernel_capacity = symbols ? symbols : 1;
  w->kernels = amddwarf__mem_alloc(&stats->allocator, w->kernel_capacity * sizeof *w->kernels);
  if (w->kernels == NULL)
    oom(w);
  for (size_t i = 0; w->kernels != NULL && i < symbols; ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    if (s->kind == AMDDWARF_SYMBOL_KERNEL)
      w->kernels[w->kernel_count++] = s->address;
  }
  if (w->kernels != NULL)
    qsort(w->kernels, w->kernel_count, sizeof *w->kernels, compare_u64);
  if (w->status != AMDDWARF_OK) {
    amddwarf__stats_cov_free(w);
    return NULL;
  }
  return w;
}

amddwarf_status amddwarf__stats_cov_status(const stats_cov *cov)
{
  return cov->status;
}

amddwarf_status amddwarf__stats_cov_free(stats_cov *w)
{
  if (w == NULL)
    return AMDDWARF_OK;
  const amddwarf_allocator *a = &w->stats->allocator;
  while (w->in_function) { /* a walk that stopped on an error */
    builder_free(w, &w->b);
    w->in_function = w->suspended_count > 0;
    if (w->in_function)
      w->b = w->suspended[--w->suspended_count];
  }
  amddwarf__mem_free(a, w->suspended, w->suspended_capacity * sizeof *w->suspended);
  amddwarf__mem_free(a, w->kernels, w->kernel_capacity * sizeof *w->kernels);
  amddwarf__mem_free(a, w->classes, CLASS_CACHE_SLOTS * sizeof *w->classes);
  amddwarf__mem_free(a, w->ranges, w->range_capacity * sizeof *w->ranges);
  if (w->files == &w->own_files)
    amddwarf__stats_files_free(&w->own_files);
  if (w->intern_mask) {
    amddwarf__mem_free(a, w->interned_from, (w->intern_mask + 1) * sizeof *w->interned_from);
    amddwarf__mem_free(a, w->interned_to, (w->intern_mask + 1) * sizeof *w->interned_to);
  }
  amddwarf_status st = w->status;
  amddwarf__mem_free(a, w, sizeof *w);
  return st;
}

/* ---- the coverage's own walk (without the llvm-dwarfdump keys) ---- */

static uint32_t first_child(const amddwarf_unit *unit, uint32_t index)
{
  uint32_t next = index + 1;
  return next < unit->die_count && unit->records[next].parent == index ? next
                                                                       : AMDDWARF_NO_RECORD;
}

static unsigned record_tag(const amddwarf_object *object, const amddwarf_unit *unit,
                           uint32_t index)
{
  return object->abbrev_tables[unit->abbrev_table].all[unit->records[index].abbrev].tag;
}

static bool read_die(cov_walk *w, size_t cu_index, uint32_t index, stats_die *die)
{
  const amddwarf_object *object = w->object;
  amddwarf_status st = amddwarf__stats_die_read(
      object, cu_index, object->cus[cu_index].offset + object->units[cu_index].records[index].offset,
      die, w->err);
  if (st != AMDDWARF_OK && w->status == AMDDWARF_OK)
    w->status = st;
  return st == AMDDWARF_OK;
}

static void walk_scope(cov_walk *w, size_t cu_index, uint32_t index, const stats_cov_scope *scope);

/* The children of record INDEX in SCOPE. */
static void walk_children(cov_walk *w, size_t cu_index, uint32_t index,
                          const stats_cov_scope *scope)
{
  const amddwarf_unit *unit = &w->object->units[cu_index];
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling)
    walk_scope(w, cu_index, c, scope);
}

/* A concrete subprogram: one function of the statistics. */
static void walk_function(cov_walk *w, size_t cu_index, uint32_t index, const stats_die *die)
{
  w->range_count = 0;
  stats_cov_scope scope;
  if (amddwarf__stats_die_ranges(w->object, die, &w->ranges, &w->range_count,
                                 &w->range_capacity) &&
      amddwarf__stats_cov_function_begin(w, die, w->ranges, w->range_count, &scope)) {
    walk_children(w, cu_index, index, &scope);
    amddwarf__stats_cov_function_end(w);
  }
}

/* DIE INDEX inside a function: a scope or a variable. */
static void walk_scope(cov_walk *w, size_t cu_index, uint32_t index, const stats_cov_scope *scope)
{
  const amddwarf_object *object = w->object;
  unsigned tag = record_tag(object, &object->units[cu_index], index);
  if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter &&
      tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine &&
      tag != DW_TAG_subprogram)
    return;
  stats_die die;
  if (!read_die(w, cu_index, index, &die))
    return;
  if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
    if (die.declaration)
      return;
    stats_cov_var v;
    amddwarf__stats_cov_var_begin(w, &die, scope, &v);
    if (die.has_location && die.location.kind == AMDDWARF_ATTR_LIST)
      (void)amddwarf__object_visit_loclist((amddwarf_object *)(uintptr_t)object,
                                           &object->cus[cu_index], die.location.form,
                                           die.location.u, amddwarf__stats_cov_var_entry, &v,
                                           NULL);
    amddwarf__stats_cov_var_end(&v, &die);
    return;
  }
  if (tag == DW_TAG_subprogram) {
    if (!die.declaration && !die.has_inline)
      walk_function(w, cu_index, index, &die);
    return;
  }
  if (die.declaration) /* a scope that is a declaration holds nothing that counts */
    return;
  w->range_count = 0;
  if (!amddwarf__stats_die_ranges(object, &die, &w->ranges, &w->range_count, &w->range_capacity))
    return;
  stats_cov_scope inner = *scope;
  if (!amddwarf__stats_cov_enter(w, &die, w->ranges, w->range_count, &inner))
    return;
  walk_children(w, cu_index, index, &inner);
}

/* Outside functions: finds the concrete subprograms. */
static void walk_outside(cov_walk *w, size_t cu_index, uint32_t index)
{
  const amddwarf_object *object = w->object;
  const amddwarf_unit *unit = &object->units[cu_index];
  unsigned tag = record_tag(object, unit, index);
  if (tag == DW_TAG_subprogram) {
    stats_die die;
    if (read_die(w, cu_index, index, &die) && !die.declaration && !die.has_inline)
      walk_function(w, cu_index, index, &die);
    return;
  }
  if (amddwarf__stats_cov_skips_outside(tag))
    return;
  for (uint32_t c = first_child(unit, index); c != AMDDWARF_NO_RECORD && w->status == AMDDWARF_OK;
       c = unit->records[c].sibling)
    walk_outside(w, cu_index, c);
}

bool amddwarf__stats_cov_skips_outside(unsigned tag)
{
  return tag == DW_TAG_subroutine_type || tag == DW_TAG_structure_type ||
         tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type ||
         tag == DW_TAG_array_type || tag == DW_TAG_base_type || tag == DW_TAG_pointer_type ||
         tag == DW_TAG_typedef;
}

amddwarf_status amddwarf__stats_coverage(const amddwarf_object *object, amddwarf_stats *stats,
                                         uint32_t flags, amddwarf_error *err)
{
  cov_walk *w = amddwarf__stats_cov_new(object, stats, flags, NULL, err);
  if (w == NULL)
    return AMDDWARF_E_NO_MEMORY;
  for (size_t u = 0; u < object->cu_count && w->status == AMDDWARF_OK; ++u)
    if (object->units[u].records != NULL && object->units[u].die_count > 0)
      walk_outside(w, u, 0);
  return amddwarf__stats_cov_free(w);
}
