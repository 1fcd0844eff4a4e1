/* Fuzz target: the debug-information statistics of a code object (the
 * llvm-dwarfdump keys, coverage by kind with every variable and segment
 * kept, on one thread and on two), why each variable in scope at each
 * line-table address is unavailable there, and the diff of the object
 * with itself, which must lose nothing. The coverage the keys' walk feeds
 * must equal the coverage's own walk (AMDDWARF_STATS_NO_LLVM) whenever
 * both succeed: the same functions, variables and counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amddwarf.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t why_everywhere(const amddwarf_object *object)
{
  size_t sink = 0;
  amddwarf_error err;
  amddwarf_var_ref vars[16];
  for (size_t c = 0; c < amddwarf_object_cu_count(object) && c < 8; ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    amddwarf_line_row rows[64];
    size_t row_count = t != NULL ? (t->row_count < 64 ? t->row_count : 64) : 0;
    if (row_count > 0 && amddwarf_object_line_rows(object, t, 0, rows, row_count) != AMDDWARF_OK)
      row_count = 0;
    for (size_t r = 0; r < row_count; ++r) {
      size_t count = 0;
      if (amddwarf_object_var_refs_at(object, rows[r].address, vars, 16, &count, &err) !=
          AMDDWARF_OK)
        continue;
      for (size_t v = 0; v < count && v < 16; ++v) {
        amddwarf_attribute name;
        amddwarf_why why;
        if (amddwarf_object_die_attribute(object, vars[v].die, 3 /* DW_AT_name */,
                                          AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &name,
                                          &err) != AMDDWARF_OK ||
            name.value.kind != AMDDWARF_ATTR_STRING || name.value.string == NULL)
          continue;
        if (amddwarf_stats_why(object, name.value.string, rows[r].address, &why, &err) ==
            AMDDWARF_OK) {
          if ((unsigned)why.reason >= AMDDWARF_UNAVAILABLE_COUNT ||
              amddwarf_unavailable_name(why.reason) == NULL)
            abort();
          sink += why.reason;
        }
      }
    }
  }
  return sink;
}

/* The coverage's own walk gives what the keys' walk fed it (STATS). */
static void same_coverage(const amddwarf_object *object, const amddwarf_stats *stats)
{
  amddwarf_stats_options so;
  amddwarf_stats_options_init(&so);
  so.flags = AMDDWARF_STATS_VARIABLES | AMDDWARF_STATS_NO_LLVM;
  amddwarf_stats *own = NULL;
  amddwarf_error err;
  if (amddwarf_stats_compute(object, &so, &own, &err) != AMDDWARF_OK)
    return; /* it reads fewer DIEs, but may fail where the other did not */
  if (amddwarf_stats_function_count(own) != amddwarf_stats_function_count(stats))
    abort();
  for (size_t f = 0; f < amddwarf_stats_function_count(own); ++f) {
    const amddwarf_stats_function *a = amddwarf_stats_function_at(own, f);
    const amddwarf_stats_function *b = amddwarf_stats_function_at(stats, f);
    if (a->die_offset != b->die_offset || a->var_count != b->var_count ||
        memcmp(&a->coverage, &b->coverage, sizeof a->coverage) != 0)
      abort();
    for (size_t v = 0; v < a->var_count && a->vars != NULL; ++v)
      if (a->vars[v].die_offset != b->vars[v].die_offset ||
          a->vars[v].segment_count != b->vars[v].segment_count ||
          memcmp(&a->vars[v].coverage, &b->vars[v].coverage, sizeof a->vars[v].coverage) != 0)
        abort();
  }
  amddwarf_stats_free(own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  amddwarf_object *object = NULL;
  amddwarf_object_options options;
  amddwarf_error err;
  uint8_t *copy = malloc(size ? size : 1); /* the object borrows its input */
  if (copy == NULL)
    return 0;
  memcpy(copy, data, size);
  amddwarf_object_options_init(&options);
  options.max_dies = 200000;
  if (amddwarf_object_open_memory(copy, size, &options, &object, &err) != AMDDWARF_OK) {
    free(copy);
    return 0;
  }
  size_t sink = 0;
  amddwarf_stats_options so;
  amddwarf_stats_options_init(&so);
  so.flags = AMDDWARF_STATS_VARIABLES | (size & 1 ? AMDDWARF_STATS_ONE_THREAD : 0);
  amddwarf_stats *stats = NULL;
  if (amddwarf_stats_compute(object, &so, &stats, &err) == AMDDWARF_OK) {
    same_coverage(object, stats);
    for (size_t i = 0; i < amddwarf_stats_llvm_count(stats); ++i)
      sink += (size_t)amddwarf_stats_llvm_key(stats, i)->value;
    for (size_t f = 0; f < amddwarf_stats_function_count(stats); ++f) {
      const amddwarf_stats_function *fn = amddwarf_stats_function_at(stats, f);
      for (size_t v = 0; v < fn->var_count && fn->vars != NULL; ++v) {
        const amddwarf_stats_var *var = &fn->vars[v];
        if (var->coverage.covered > var->coverage.scope ||
            var->coverage.lane_correct > var->coverage.covered)
          abort(); /* a variable covers at most its scope, correctly at most what it covers */
        for (size_t s = 0; s < var->segment_count; ++s)
          if (var->segments[s].low >= var->segments[s].high ||
              var->segments[s].kind >= AMDDWARF_LOC_KIND_COUNT)
            abort();
      }
    }
    amddwarf_stats_diff *diff = NULL;
    if (amddwarf_stats_diff_compute(stats, stats, &diff, &err) == AMDDWARF_OK) {
      for (size_t i = 0; i < diff->var_count; ++i)
        if (diff->vars[i].status != AMDDWARF_DIFF_MATCHED ||
            diff->vars[i].base_covered != diff->vars[i].new_covered)
          abort(); /* an object against itself */
      amddwarf_stats_diff_free(diff);
    }
    amddwarf_stats_free(stats);
  }
  sink += why_everywhere(object);
  amddwarf_object_close(object);
  free(copy);
  return sink == 1 ? 0 : 0;
}
