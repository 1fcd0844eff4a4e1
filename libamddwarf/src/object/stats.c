/* Debug-information statistics: the handle, the names of its tables, and
 * one DIE's facts as the statistics read them (through the unit's compact
 * index and the attribute reader of forms.c, without DIE summaries). */
#include <string.h>

#include "common/mem.h"
#include "common/reader.h"
#include "object/stats_internal.h"

/* ---- names ---- */

static const struct {
  const char *name, *description;
} unavailable_rows[] = {
#define AMDDWARF_UNAVAILABLE(kind, name, description) {name, description},
#include <amddwarf/unavailable.def>
#undef AMDDWARF_UNAVAILABLE
};
_Static_assert(sizeof unavailable_rows / sizeof unavailable_rows[0] == AMDDWARF_UNAVAILABLE_COUNT,
               "one row per reason");

static const struct {
  const char *name, *colour;
} kind_rows[] = {
#define AMDDWARF_LOC_KIND(kind, name, colour, description) {name, colour},
#include <amddwarf/loc_kinds.def>
#undef AMDDWARF_LOC_KIND
};
_Static_assert(sizeof kind_rows / sizeof kind_rows[0] == AMDDWARF_LOC_KIND_COUNT,
               "one row per kind");

const char *amddwarf_unavailable_name(amddwarf_unavailable reason)
{
  return (unsigned)reason < AMDDWARF_UNAVAILABLE_COUNT ? unavailable_rows[reason].name : NULL;
}

const char *amddwarf_unavailable_description(amddwarf_unavailable reason)
{
  return (unsigned)reason < AMDDWARF_UNAVAILABLE_COUNT ? unavailable_rows[reason].description
                                                       : NULL;
}

const char *amddwarf_loc_kind_name(amddwarf_loc_kind kind)
{
  return (unsigned)kind < AMDDWARF_LOC_KIND_COUNT ? kind_rows[kind].name : NULL;
}

const char *amddwarf_loc_kind_colour(amddwarf_loc_kind kind)
{
  return (unsigned)kind < AMDDWARF_LOC_KIND_COUNT ? kind_rows[kind].colour : NULL;
}

const char *amddwarf_stats_cfi_name(amddwarf_stats_cfi cfi)
{
  static const char *const names[] = {"none", "real", "synthesized"};
  return (unsigned)cfi < sizeof names / sizeof names[0] ? names[cfi] : NULL;
}

const char *amddwarf_lane_status_name(amddwarf_lane_status lane)
{
  static const char *const names[] = {"uniform", "selected", "legacy", "missing", "none"};
  return (unsigned)lane < sizeof names / sizeof names[0] ? names[lane] : NULL;
}

const char *amddwarf_loc_flag_name(uint32_t flag)
{
  /* Bit k of the flags is names[k]. */
  static const char *const names[] = {"unknown_address", "quirk", "entry_value", "undecodable"};
  for (unsigned k = 0; k < sizeof names / sizeof names[0]; ++k)
    if (flag == 1u << k)
      return names[k];
  return NULL;
}

const char *amddwarf_diff_status_name(amddwarf_diff_status status)
{
  static const char *const names[] = {"matched", "disappeared", "appeared"};
  return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : NULL;
}

/* ---- one DIE's facts ---- */

typedef struct fact_reader {
  stats_die *die;
  const amddwarf_cu *cu;
} fact_reader;

static int note_fact(void *user, const amddwarf_attribute *a)
{
  fact_reader *f = user;
  stats_die *d = f->die;
  const amddwarf_attr_value *v = &a->value;
  switch (a->attribute) {
  case DW_AT_name:
    d->has_name = true;
    d->name = v->kind == AMDDWARF_ATTR_STRING ? v->string : NULL;
    break;
  case DW_AT_linkage_name:
  case DW_AT_MIPS_linkage_name:
    d->has_linkage = true;
    d->linkage = v->kind == AMDDWARF_ATTR_STRING ? v->string : NULL;
    break;
  case DW_AT_decl_file: d->has_decl_file = true; d->decl_file = v->u; break;
  case DW_AT_decl_line: d->has_decl_line = true; d->decl_line = v->u; break;
  case DW_AT_call_file: d->has_call_file = true; break;
  case DW_AT_call_line: d->has_call_line = true; d->call_line = v->u; break;
  case DW_AT_type: d->has_type = true; break;
  case DW_AT_artificial: d->artificial = true; break;
  case DW_AT_declaration: d->declaration = true; break;
  case DW_AT_inline: d->has_inline = true; break;
  case DW_AT_const_value: d->has_const_value = true; break;
  case DW_AT_calling_convention: d->has_cc = true; d->cc = v->u; break;
  case DW_AT_location:
    d->has_location = true;
    d->location = *v;
    break;
  case DW_AT_abstract_origin:
    if (v->kind == AMDDWARF_ATTR_REF) {
      d->has_origin = true;
      d->origin = v->offset;
      d->origin_raw = a->form == DW_FORM_ref_addr ? v->offset : v->offset - f->cu->offset;
    }
    break;
  case DW_AT_specification:
    if (v->kind == AMDDWARF_ATTR_REF)
      d->specification = v->offset;
    break;
  case DW_AT_low_pc:
  case DW_AT_high_pc:
    amddwarf__pc_pair_note(&d->pc, a);
    break;
  case DW_AT_ranges:
    d->has_ranges = true;
    d->ranges_form = a->form;
    d->ranges_value = v->u;
    break;
  default:
    break;
  }
  return 0;
}

/* How the facts use an attribute: its value (note_fact reads it), only
   that the DIE has it (note_fact sets a flag whatever the value), or not
   at all. Must agree with note_fact. */
typedef enum fact_use { FACT_NONE, FACT_PRESENCE, FACT_VALUE } fact_use;

static fact_use fact_use_of(unsigned at)
{
  switch (at) {
  case DW_AT_name: case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name:
  case DW_AT_decl_file: case DW_AT_decl_line: case DW_AT_call_line:
  case DW_AT_calling_convention: case DW_AT_location: case DW_AT_abstract_origin:
  case DW_AT_specification: case DW_AT_low_pc: case DW_AT_high_pc: case DW_AT_ranges:
    return FACT_VALUE;
  case DW_AT_call_file: case DW_AT_type: case DW_AT_artificial: case DW_AT_declaration:
  case DW_AT_inline: case DW_AT_const_value:
    return FACT_PRESENCE;
  default:
    return FACT_NONE;
  }
}

static uint64_t load_le(const uint8_t *p, unsigned size)
{
  uint64_t v = 0;
  for (unsigned i = size; i-- > 0;)
    v = v << 8 | p[i];
  return v;
}

/* The value of attribute SPEC at R, as amddwarf__form_read gives it: the
   constant, reference and expression forms a DIE's facts mostly meet are
   decoded here (they need neither a string table nor an address table),
   the others by the form reader. */
static amddwarf_status read_value(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                  const amddwarf_abbrev_attr *spec, amddwarf_attribute *a,
                                  uint64_t die_offset)
{
  amddwarf__attribute_clear(a, spec->at);
  amddwarf_attr_value *v = &a->value;
  size_t left = r->size - r->pos;
  const uint8_t *p = r->data + r->pos;
  unsigned size = 0;
  switch (r->big_endian ? 0 : spec->form) {
  case DW_FORM_data1: size = 1; break;
  case DW_FORM_data2: size = 2; break;
  case DW_FORM_data4: size = 4; break;
  case DW_FORM_ref4: size = 4; break;
  case DW_FORM_exprloc: {
    uint64_t n = 0;
    amddwarf_reader e = *r;
    if (amddwarf_read_uleb(&e, &n) != AMDDWARF_OK || n > e.size - e.pos)
      break;
    a->form = v->form = DW_FORM_exprloc;
    v->kind = AMDDWARF_ATTR_EXPR;
    v->bytes = e.data + e.pos;
    v->size = (size_t)n;
    r->pos = e.pos + (size_t)n;
    return AMDDWARF_OK;
  }
  default: break;
  }
  /* a location in data4 (DWARF 2/3) is a list: the form reader says so */
  if (size == 0 || size > left || spec->loc)
    return amddwarf__form_read(fr, r, spec, a, die_offset, false);
  uint64_t u = load_le(p, size);
  r->pos += size;
  a->form = v->form = spec->form;
  if (spec->form == DW_FORM_ref4) {
    v->kind = AMDDWARF_ATTR_REF;
    v->offset = fr->cu->offset + u;
  } else {
    v->kind = AMDDWARF_ATTR_UNSIGNED;
    v->u = u;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__stats_die_read(const amddwarf_object *object, size_t cu_index,
                                         uint64_t offset, stats_die *out, amddwarf_error *err)
{
  memset(out, 0, sizeof *out);
  out->offset = offset;
  out->cu_index = (uint32_t)cu_index;
  fact_reader f = {out, &object->cus[cu_index]};
  amddwarf_reader r;
  const amddwarf_abbrev *ab = NULL;
  amddwarf_status st = amddwarf__object_die_abbrev(object, cu_index, offset, &r, &ab, err);
  if (st != AMDDWARF_OK)
    return st;
  out->tag = ab->tag;
  amddwarf_form_reader fr =
      amddwarf_form_reader_make((amddwarf_object *)(uintptr_t)object, f.cu, err);
  /* Only the values the facts use are decoded; the other attributes are
     stepped over (their bounds checked, strings and addresses not
     resolved), as llvm-dwarfdump reads only what it asks for. */
  for (uint32_t i = 0; i < ab->count; ++i) {
    const amddwarf_abbrev_attr *spec = &ab->attrs[i];
    fact_use use = fact_use_of(spec->at);
    amddwarf_attribute a;
    if (use == FACT_VALUE) {
      st = read_value(&fr, &r, spec, &a, offset);
    } else {
      st = amddwarf__form_skip(&fr, &r, spec, offset);
      if (use == FACT_PRESENCE) {
        amddwarf__attribute_clear(&a, spec->at);
        a.form = spec->form;
      }
    }
    if (st != AMDDWARF_OK)
      return st;
    if (use != FACT_NONE)
      note_fact(&f, &a);
  }
  return AMDDWARF_OK;
}

bool amddwarf__stats_die_at(const amddwarf_object *object, uint64_t offset, stats_die *out)
{
  amddwarf_die_ref ref;
  if (offset == 0 || amddwarf_object_die_ref_at(object, offset, &ref, NULL) != AMDDWARF_OK)
    return false;
  return amddwarf__stats_die_read(object, ref.cu_index, offset, out, NULL) == AMDDWARF_OK;
}

static bool die_has(const stats_die *d, stats_inherited what)
{
  switch (what) {
  case STATS_NAME: return d->has_name;
  case STATS_LINKAGE: return d->has_linkage;
  case STATS_DECL_FILE: return d->has_decl_file;
  case STATS_DECL_LINE: return d->has_decl_line;
  case STATS_TYPE: return d->has_type;
  }
  return false;
}

const stats_die *amddwarf__stats_die_find(const amddwarf_object *object, const stats_die *die,
                                          stats_inherited what, stats_die *scratch)
{
  /* LLVM's worklist takes the last reference pushed first: the
     specification before the abstract origin. */
  if (die_has(die, what))
    return die;
  uint64_t next = die->specification ? die->specification : die->origin;
  stats_die *cur = scratch;
  for (int step = 0; step < AMDDWARF_MAX_ORIGIN_STEPS; ++step) {
    if (next == 0 || !amddwarf__stats_die_at(object, next, cur))
      return NULL;
    if (die_has(cur, what))
      return cur;
    next = cur->specification ? cur->specification : cur->origin;
    if (next == cur->offset)
      return NULL;
  }
  return NULL;
}

typedef struct range_sink {
  const amddwarf_allocator *allocator;
  amddwarf_range **ranges;
  size_t *count, *capacity;
  bool failed;
} range_sink;

static bool append_range(void *user, const amddwarf_range *range)
{
  range_sink *s = user;
  if (amddwarf__mem_reserve(s->allocator, (void **)s->ranges, s->capacity, *s->count + 1,
                            sizeof **s->ranges) != 0) {
    s->failed = true;
    return false;
  }
  (*s->ranges)[(*s->count)++] = *range;
  return true;
}

bool amddwarf__stats_die_ranges(const amddwarf_object *object, const stats_die *die,
                                amddwarf_range **ranges, size_t *count, size_t *capacity)
{
  range_sink s = {&object->allocator, ranges, count, capacity, false};
  amddwarf_range one;
  if (die->pc.has_low && die->pc.has_high && amddwarf__pc_pair_range(&die->pc, die->tag, &one))
    return append_range(&s, &one);
  if (!die->has_ranges)
    return true;
  amddwarf_object *o = (amddwarf_object *)(uintptr_t)object;
  amddwarf_status st = amddwarf__object_visit_ranges(o, &object->cus[die->cu_index],
                                                    die->ranges_form, die->ranges_value,
                                                    append_range, &s, NULL);
  return st == AMDDWARF_OK && !s.failed;
}

bool amddwarf__stats_files_init(stats_files *cache, const amddwarf_object *object)
{
  size_t n = amddwarf_object_cu_count(object) + 1;
  cache->allocator = &object->allocator;
  cache->unit_count = n - 1;
  cache->files = amddwarf__mem_calloc(cache->allocator, n, sizeof *cache->files);
  cache->counts = amddwarf__mem_calloc(cache->allocator, n, sizeof *cache->counts);
  cache->known = amddwarf__mem_calloc(cache->allocator, n, 1);
  if (cache->files == NULL || cache->counts == NULL || cache->known == NULL) {
    amddwarf__stats_files_free(cache);
    return false;
  }
  return true;
}

void amddwarf__stats_files_free(stats_files *cache)
{
  size_t n = cache->unit_count + 1;
  amddwarf__mem_free(cache->allocator, (void *)(uintptr_t)cache->files, n * sizeof *cache->files);
  amddwarf__mem_free(cache->allocator, cache->counts, n * sizeof *cache->counts);
  amddwarf__mem_free(cache->allocator, cache->known, n);
  cache->files = NULL;
  cache->counts = NULL;
  cache->known = NULL;
}

void amddwarf__stats_files_load_all(stats_files *cache, const amddwarf_object *object)
{
  for (size_t u = 0; u < cache->unit_count; ++u)
    (void)amddwarf__stats_file_name(cache, object, u, 0);
}

void amddwarf__stats_note_files(stats_files *cache, size_t cu_index, const char *const *files,
                                size_t count)
{
  if (cu_index >= cache->unit_count || cache->known == NULL)
    return;
  cache->files[cu_index] = files;
  cache->counts[cu_index] = count;
  cache->known[cu_index] = 1;
}

typedef struct files_note {
  stats_files *cache;
  size_t cu_index;
} files_note;

static void note_files(void *user, const char *const *files, size_t count)
{
  files_note *n = user;
  amddwarf__stats_note_files(n->cache, n->cu_index, files, count);
}

const char *amddwarf__stats_file_name(stats_files *cache, const amddwarf_object *object,
                                      size_t cu_index, uint64_t file)
{
  if (cu_index >= cache->unit_count || cache->known == NULL)
    return NULL;
  if (!cache->known[cu_index]) {
    files_note n = {cache, cu_index};
    cache->known[cu_index] = 1; /* a table that cannot be read has none */
    (void)amddwarf__object_visit_lines(object, cu_index, note_files, NULL, &n, NULL);
  }
  if (file >= cache->counts[cu_index])
    return NULL;
  return cache->files[cu_index][file];
}

/* ---- a table keyed by (owner, string) ---- */

static uint64_t hash_key(uint32_t owner, const char *s, size_t n)
{
  uint64_t h = 1469598103934665603ull ^ ((uint64_t)owner * 0x9e3779b97f4a7c15ull);
  for (size_t i = 0; i < n; ++i)
    h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h ^ (h >> 31);
}

static bool table_grow(str_table *t)
{
  size_t cap = t->mask ? (t->mask + 1) * 2 : 64;
  str_slot *slots = amddwarf__mem_calloc(t->allocator, cap, sizeof *slots);
  if (slots == NULL)
    return false;
  for (size_t i = 0; t->mask && i <= t->mask; ++i) {
    if (t->slots[i].key == NULL)
      continue;
    size_t s = t->slots[i].hash & (cap - 1);
    while (slots[s].key != NULL)
      s = (s + 1) & (cap - 1);
    slots[s] = t->slots[i];
  }
  if (t->mask)
    amddwarf__mem_free(t->allocator, t->slots, (t->mask + 1) * sizeof *t->slots);
  t->slots = slots;
  t->mask = cap - 1;
  return true;
}

uint32_t amddwarf__stats_table_get(str_table *t, uint32_t owner, const char *key, size_t n,
                          uint32_t new_value, bool *added)
{
  *added = false;
  if ((t->count + 1) * 2 > t->mask + 1 && !table_grow(t)) {
    t->failed = true;
    return UINT32_MAX;
  }
  uint64_t h = hash_key(owner, key, n);
  size_t s = h & t->mask;
  for (; t->slots[s].key != NULL; s = (s + 1) & t->mask)
    if (t->slots[s].hash == h && t->slots[s].owner == owner &&
        strncmp(t->slots[s].key, key, n) == 0 && t->slots[s].key[n] == '\0')
      return t->slots[s].value;
  char *copy = amddwarf__arena_strndup(t->arena, key, n);
  if (copy == NULL) {
    t->failed = true;
    return UINT32_MAX;
  }
  t->slots[s].key = copy;
  t->slots[s].hash = h;
  t->slots[s].owner = owner;
  t->slots[s].value = new_value;
  ++t->count;
  *added = true;
  return new_value;
}

void amddwarf__stats_table_free(str_table *t)
{
  if (t->mask)
    amddwarf__mem_free(t->allocator, t->slots, (t->mask + 1) * sizeof *t->slots);
}

/* ---- the handle ---- */

void amddwarf_stats_options_init(amddwarf_stats_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

amddwarf_status amddwarf__stats_add_key(amddwarf_stats *stats, const char *key, uint64_t value,
                                        amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&stats->allocator, (void **)&stats->keys, &stats->key_capacity,
                            stats->key_count + 1, sizeof *stats->keys) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics keys");
  char *copy = amddwarf__arena_strndup(&stats->key_arena, key, strlen(key));
  if (copy == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics keys");
  stats->keys[stats->key_count].key = copy;
  stats->keys[stats->key_count++].value = value;
  return AMDDWARF_OK;
}

/* One walk over the DIEs gives the keys and the coverage (the keys' walk
   feeds the coverage); the coverage alone has a walk of its own, which
   reads only the DIEs inside functions. */
static amddwarf_status run_walk(const amddwarf_object *object, amddwarf_stats *stats,
                                uint32_t flags, amddwarf_error *err)
{
  if (!(flags & AMDDWARF_STATS_NO_LLVM))
    return amddwarf__stats_llvm(object, stats, flags, err);
  if (!(flags & AMDDWARF_STATS_NO_COVERAGE))
    return amddwarf__stats_coverage(object, stats, flags, err);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_stats_compute(const amddwarf_object *object,
                                       const amddwarf_stats_options *options,
                                       amddwarf_stats **out, amddwarf_error *err)
{
  if (out != NULL)
    *out = NULL;
  if (object == NULL || out == NULL ||
      (options != NULL && options->struct_size < sizeof(amddwarf_stats_options)))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_stats_compute: NULL object or out, or an old options size");
  uint32_t flags = options != NULL ? options->flags : 0;
  amddwarf_stats *stats = amddwarf__mem_calloc(&object->allocator, 1, sizeof *stats);
  if (stats == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "statistics");
  stats->allocator = object->allocator;
  amddwarf__arena_init(&stats->arena, &stats->allocator);
  amddwarf__arena_init(&stats->key_arena, &stats->allocator);
  amddwarf__arena_init(&stats->part_arena, &stats->allocator);
  /* Every unit's DIE index, made in the pass of its scan, then the first
     unit that cannot be indexed fails the statistics (as index_all). */
  amddwarf__object_scan_all_indexed(object);
  amddwarf_status st = amddwarf__object_each_unit(object, "amddwarf_stats_compute",
                                                  amddwarf__object_ensure_index, err);
  if (st == AMDDWARF_OK)
    st = run_walk(object, stats, flags, err);
  if (st != AMDDWARF_OK) {
    amddwarf_stats_free(stats);
    return st;
  }
  *out = stats;
  return AMDDWARF_OK;
}

void amddwarf_stats_free(amddwarf_stats *stats)
{
  if (stats == NULL)
    return;
  amddwarf_allocator a = stats->allocator;
  amddwarf__mem_free(&a, stats->keys, stats->key_capacity * sizeof *stats->keys);
  amddwarf__mem_free(&a, stats->functions, stats->function_capacity * sizeof *stats->functions);
  amddwarf__arena_release(&stats->arena);
  amddwarf__arena_release(&stats->key_arena);
  amddwarf__arena_release(&stats->part_arena);
  amddwarf__mem_free(&a, stats, sizeof *stats);
}

size_t amddwarf_stats_llvm_count(const amddwarf_stats *stats)
{
  return stats != NULL ? stats->key_count : 0;
}

const amddwarf_stats_key *amddwarf_stats_llvm_key(const amddwarf_stats *stats, size_t index)
{
  return stats != NULL && index < stats->key_count ? &stats->keys[index] : NULL;
}

uint64_t amddwarf_stats_llvm_value(const amddwarf_stats *stats, const char *key)
{
  for (size_t i = 0; i < amddwarf_stats_llvm_count(stats); ++i)
    if (strcmp(stats->keys[i].key, key) == 0)
      return stats->keys[i].value;
  return 0;
}

void amddwarf_stats_coverage_add(amddwarf_stats_coverage *sum, const amddwarf_stats_coverage *c)
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

void amddwarf_stats_totals_get(const amddwarf_stats *stats, amddwarf_stats_totals *out)
{
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < amddwarf_stats_function_count(stats); ++i) {
    const amddwarf_stats_function *fn = &stats->functions[i];
    ++*(fn->is_kernel ? &out->kernels : &out->device_functions);
    ++out->cfi[fn->cfi < 3 ? fn->cfi : AMDDWARF_STATS_CFI_NONE];
    amddwarf_stats_coverage_add(fn->is_kernel ? &out->kernel_coverage : &out->device_coverage,
                                &fn->coverage);
  }
}

size_t amddwarf_stats_function_count(const amddwarf_stats *stats)
{
  return stats != NULL ? stats->function_count : 0;
}

const amddwarf_stats_function *amddwarf_stats_function_at(const amddwarf_stats *stats,
                                                         size_t index)
{
  return stats != NULL && index < stats->function_count ? &stats->functions[index] : NULL;
}
