/* The difference of two builds' statistics: functions matched by name,
 * declaration file (its base name) and line; variables within them by name,
 * declaration file and line, and the inlined subroutine they are in. Every
 * instance of one match (inlined copies, out-of-line copies) is summed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "object/stats_internal.h"

typedef struct diff_key {
  const char *function;
  const char *fn_file;       /* base names */
  uint32_t fn_line;
  const char *name;          /* NULL for the function itself */
  const char *file;
  uint32_t line;
  const char *inlined_from;
  uint64_t scope, covered, lane_correct;
  const char *function_file_full, *file_full;
} diff_key;

typedef struct diff_state {
  amddwarf_allocator copy;   /* the base statistics' allocator */
  const amddwarf_allocator *allocator; /* &copy */
  amddwarf_arena arena;
  amddwarf_diff_var *vars;
  size_t var_count, var_capacity;
  amddwarf_diff_function *functions;
  size_t function_count, function_capacity;
} diff_state;

static const char *base_name(const char *path)
{
  const char *slash = path != NULL ? strrchr(path, '/') : NULL;
  return slash != NULL ? slash + 1 : path != NULL ? path : "";
}

static int str_cmp(const char *a, const char *b)
{
  return strcmp(a != NULL ? a : "", b != NULL ? b : "");
}

static bool same_function(const diff_key *a, const diff_key *b)
{
  return str_cmp(a->function, b->function) == 0 && str_cmp(a->fn_file, b->fn_file) == 0 &&
         a->fn_line == b->fn_line;
}

static int key_cmp(const void *pa, const void *pb)
{
  const diff_key *a = pa, *b = pb;
  int c;
  if ((c = str_cmp(a->function, b->function)) != 0 || (c = str_cmp(a->fn_file, b->fn_file)) != 0)
    return c;
  if (a->fn_line != b->fn_line)
    return a->fn_line < b->fn_line ? -1 : 1;
  if ((a->name == NULL) != (b->name == NULL))
    return a->name == NULL ? -1 : 1;
  if ((c = str_cmp(a->name, b->name)) != 0 || (c = str_cmp(a->file, b->file)) != 0)
    return c;
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return str_cmp(a->inlined_from, b->inlined_from);
}

/* Every variable of STATS as keys, under the function it belongs to (the
   inlined one for a variable of an inlined subroutine), and a key of no
   variable (NAME NULL) for every concrete function; sorted, and the
   instances of one key summed. */
static diff_key *collect(diff_state *d, const amddwarf_stats *stats, size_t *count,
                         size_t *bytes)
{
  size_t n = 0;
  for (size_t f = 0; f < stats->function_count; ++f)
    n += 1 + (stats->functions[f].vars != NULL ? stats->functions[f].var_count : 0);
  diff_key *keys = amddwarf__mem_calloc(d->allocator, n ? n : 1, sizeof *keys);
  if (keys == NULL)
    return NULL;
  size_t k = 0;
  for (size_t f = 0; f < stats->function_count; ++f) {
    const amddwarf_stats_function *fn = &stats->functions[f];
    diff_key fk = {fn->name, base_name(fn->decl_file), fn->decl_line, NULL, NULL, 0, NULL,
                   0, 0, 0, fn->decl_file, NULL};
    keys[k++] = fk;
    for (size_t v = 0; fn->vars != NULL && v < fn->var_count; ++v) {
      const amddwarf_stats_var *var = &fn->vars[v];
      diff_key vk = fk;
      if (var->inlined_from != NULL) {
        vk.function = var->inlined_from;
        vk.fn_file = base_name(var->inlined_decl_file);
        vk.fn_line = var->inlined_decl_line;
        vk.function_file_full = var->inlined_decl_file;
      }
      vk.name = var->name;
      vk.file = base_name(var->decl_file);
      vk.line = var->decl_line;
      vk.scope = var->coverage.scope;
      vk.covered = var->coverage.covered;
      vk.lane_correct = var->coverage.lane_correct;
      vk.file_full = var->decl_file;
      keys[k++] = vk;
    }
  }
  qsort(keys, k, sizeof *keys, key_cmp);
  size_t out = 0;
  for (size_t i = 0; i < k; ++i) {
    if (out > 0 && key_cmp(&keys[out - 1], &keys[i]) == 0) {
      keys[out - 1].scope += keys[i].scope;
      keys[out - 1].covered += keys[i].covered;
      keys[out - 1].lane_correct += keys[i].lane_correct;
    } else {
      keys[out++] = keys[i];
    }
  }
  /* every group of one function headed by a key of no variable (a function
     seen only inlined gets one), which sums its variables' keys */
  size_t groups = 0;
  for (size_t i = 0; i < out; ++i)
    groups += i == 0 || !same_function(&keys[i - 1], &keys[i]);
  diff_key *headed = amddwarf__mem_calloc(d->allocator, out + groups + 1, sizeof *headed);
  if (headed == NULL) {
    amddwarf__mem_free(d->allocator, keys, (n ? n : 1) * sizeof *keys);
    return NULL;
  }
  size_t h = 0;
  for (size_t i = 0; i < out;) {
    size_t head = h++;
    headed[head] = keys[i];
    headed[head].name = NULL;
    headed[head].file = headed[head].file_full = headed[head].inlined_from = NULL;
    headed[head].line = 0;
    headed[head].scope = headed[head].covered = headed[head].lane_correct = 0;
    size_t j = i;
    for (; j < out && same_function(&keys[i], &keys[j]); ++j) {
      if (keys[j].name == NULL)
        continue;
      headed[head].scope += keys[j].scope;
      headed[head].covered += keys[j].covered;
      headed[head].lane_correct += keys[j].lane_correct;
      headed[h++] = keys[j];
    }
    i = j;
  }
  amddwarf__mem_free(d->allocator, keys, (n ? n : 1) * sizeof *keys);
  *count = h;
  *bytes = (out + groups + 1) * sizeof *headed;
  return headed;
}


static int32_t per_mille(uint64_t part, uint64_t whole)
{
  return whole ? (int32_t)((part * 1000 + whole / 2) / whole) : 0;
}

static const char *keep(diff_state *d, const char *s)
{
  if (s == NULL)
    return NULL;
  return amddwarf__arena_strndup(&d->arena, s, strlen(s));
}

static bool emit(diff_state *d, const diff_key *b, const diff_key *n)
{
  const diff_key *k = b != NULL ? b : n;
  uint8_t status = b != NULL && n != NULL ? AMDDWARF_DIFF_MATCHED
                   : b != NULL            ? AMDDWARF_DIFF_DISAPPEARED
                                          : AMDDWARF_DIFF_APPEARED;
  int32_t bc = b ? per_mille(b->covered, b->scope) : 0, nc = n ? per_mille(n->covered, n->scope) : 0;
  int32_t bl = b ? per_mille(b->lane_correct, b->scope) : 0;
  int32_t nl = n ? per_mille(n->lane_correct, n->scope) : 0;
  if (k->name == NULL) {
    if (amddwarf__mem_reserve(d->allocator, (void **)&d->functions, &d->function_capacity,
                              d->function_count + 1, sizeof *d->functions) != 0)
      return false;
    amddwarf_diff_function *f = &d->functions[d->function_count++];
    f->name = keep(d, k->function);
    f->decl_file = keep(d, k->function_file_full);
    f->decl_line = k->fn_line;
    f->status = status;
    f->base_covered = bc;
    f->new_covered = nc;
    f->base_lane_correct = bl;
    f->new_lane_correct = nl;
    return f->name != NULL;
  }
  if (amddwarf__mem_reserve(d->allocator, (void **)&d->vars, &d->var_capacity, d->var_count + 1,
                            sizeof *d->vars) != 0)
    return false;
  amddwarf_diff_var *v = &d->vars[d->var_count++];
  v->function = keep(d, k->function);
  v->name = keep(d, k->name);
  v->decl_file = keep(d, k->file_full);
  v->decl_line = k->line;
  v->inlined_from = keep(d, k->inlined_from);
  v->status = status;
  v->base_covered = bc;
  v->new_covered = nc;
  v->base_lane_correct = bl;
  v->new_lane_correct = nl;
  return v->function != NULL && v->name != NULL;
}

/* Worst first: the largest loss of coverage, then of lane correctness. */
static int worse_var(const void *pa, const void *pb)
{
  const amddwarf_diff_var *a = pa, *b = pb;
  int32_t da = a->new_covered - a->base_covered, db = b->new_covered - b->base_covered;
  if (da != db)
    return da < db ? -1 : 1;
  da = a->new_lane_correct - a->base_lane_correct;
  db = b->new_lane_correct - b->base_lane_correct;
  if (da != db)
    return da < db ? -1 : 1;
  int c = str_cmp(a->function, b->function);
  return c != 0 ? c : str_cmp(a->name, b->name);
}

static int worse_function(const void *pa, const void *pb)
{
  const amddwarf_diff_function *a = pa, *b = pb;
  int32_t da = a->new_covered - a->base_covered, db = b->new_covered - b->base_covered;
  if (da != db)
    return da < db ? -1 : 1;
  return str_cmp(a->name, b->name);
}

amddwarf_status amddwarf_stats_diff_compute(const amddwarf_stats *base,
                                            const amddwarf_stats *new_stats,
                                            amddwarf_stats_diff **out, amddwarf_error *err)
{
  if (out != NULL)
    *out = NULL;
  if (base == NULL || new_stats == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_stats_diff_compute: NULL argument");
  const amddwarf_allocator *a = &base->allocator;
  diff_state *d = amddwarf__mem_calloc(a, 1, sizeof *d);
  if (d == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics diff");
  d->copy = base->allocator;
  d->allocator = a = &d->copy;
  amddwarf__arena_init(&d->arena, a);
  amddwarf_stats_diff *diff = amddwarf__mem_calloc(a, 1, sizeof *diff);
  size_t nb = 0, nn = 0, kb_size = 0, kn_size = 0;
  diff_key *kb = NULL, *kn = NULL;
  bool ok = diff != NULL;
  if (ok) {
    diff->internal = d;
    kb = collect(d, base, &nb, &kb_size);
    kn = collect(d, new_stats, &nn, &kn_size);
    ok = kb != NULL && kn != NULL;
  }
  for (size_t i = 0, j = 0; ok && (i < nb || j < nn);) {
    int c = i == nb ? 1 : j == nn ? -1 : key_cmp(&kb[i], &kn[j]);
    const diff_key *b = c <= 0 ? &kb[i] : NULL, *n = c >= 0 ? &kn[j] : NULL;
    ok = emit(d, b, n);
    i += c <= 0;
    j += c >= 0;
  }

  amddwarf__mem_free(a, kb, kb != NULL ? kb_size : 0);
  amddwarf__mem_free(a, kn, kn != NULL ? kn_size : 0);
  if (!ok) {
    if (diff != NULL) {
      amddwarf_stats_diff_free(diff);
    } else {
      amddwarf__arena_release(&d->arena);
      amddwarf_allocator copy = d->copy;
      amddwarf__mem_free(&copy, d, sizeof *d);
    }
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics diff");
  }
  if (d->var_count > 0)
    qsort(d->vars, d->var_count, sizeof *d->vars, worse_var);
  if (d->function_count > 0)
    qsort(d->functions, d->function_count, sizeof *d->functions, worse_function);
  diff->vars = d->vars;
  diff->var_count = d->var_count;
  diff->functions = d->functions;
  diff->function_count = d->function_count;
  diff->internal = d;
  *out = diff;
  return AMDDWARF_OK;
}

void amddwarf_stats_diff_free(amddwarf_stats_diff *diff)
{
  if (diff == NULL)
    return;
  diff_state *d = diff->internal;
  amddwarf_allocator copy = d->copy;
  amddwarf__mem_free(&copy, d->vars, d->var_capacity * sizeof *d->vars);
  amddwarf__mem_free(&copy, d->functions, d->function_capacity * sizeof *d->functions);
  amddwarf__arena_release(&d->arena);
  amddwarf__mem_free(&copy, d, sizeof *d);
  amddwarf__mem_free(&copy, diff, sizeof *diff);
}
