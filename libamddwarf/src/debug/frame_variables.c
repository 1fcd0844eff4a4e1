/* The variables a frame lists (debug.h, amddwarf_wave_frame_variables):
 * locals, arguments and globals of amddwarf_wave_variables, each under a
 * name that is distinct in the list ("x", and "x @ file.cl:12" for one an
 * inner variable of its name shadows), plus the variables and parameters an
 * inlined routine declares only in its abstract origin, listed as optimized
 * out (as gdb lists them). The list is made once per frame: names are
 * compared after one sort, not pairwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "common/text.h"
#include "debug/debug_internal.h"

/* A name and where it stands in the list: sorted by name, then place
   (inner first), without state outside the array. */
typedef struct keyed {
  const char *key;
  size_t index;
} keyed;

struct amddwarf_frame_listing {
  amddwarf_listed_variable *items;
  size_t count;
  keyed *by_name;    /* ITEMS' listed names, sorted */
  char *names;       /* every text ITEMS point into */
  size_t names_size;
};

/* One entry while the list is made: texts are offsets into one growing
   text; the declaration names a shadowed variable. */
typedef struct draft {
  amddwarf_listed_variable item;
  size_t name_at, missing_at; /* offsets in the text; missing_at SIZE_MAX: none */
  uint32_t cu_index, decl_file, decl_line;
} draft;

static amddwarf_listed_kind kind_of(const amddwarf_frame_var *var)
{
  if (var->global)
    return AMDDWARF_LISTED_GLOBAL;
  return var->tag == AMDDWARF_DW_TAG_formal_parameter ? AMDDWARF_LISTED_ARGUMENT
                                                      : AMDDWARF_LISTED_LOCAL;
}

typedef struct builder {
  amddwarf_wave *wave;
  draft *drafts;
  size_t count, capacity;
  amddwarf_text text;
} builder;

/* Adds ITEM, described by VAR (its name, declaration and unit). */
static int add(builder *b, const amddwarf_listed_variable *item, const amddwarf_frame_var *var,
               const char *missing)
{
  if (amddwarf__mem_reserve(&b->wave->allocator, (void **)&b->drafts, &b->capacity,
                           b->count + 1, sizeof *b->drafts) != 0)
    return -1;
  draft *d = &b->drafts[b->count++];
  d->item = *item;
  d->name_at = 0;
  d->missing_at = (size_t)-1;
  d->cu_index = var->ref.die.cu_index;
  d->decl_file = var->decl_file;
  d->decl_line = var->decl_line;
  if (missing != NULL) {
    d->missing_at = b->text.len;
    amddwarf__text_puts(&b->text, missing);
    amddwarf__text_write(&b->text, NULL, '\0', 1);
  }
  return 0;
}

/* Variable V of VARS (amddwarf_wave_variables), in the frame's scope SCOPE;
   an unnamed one is not listed. */
static int add_var(builder *b, const amddwarf_frame_var *vars, size_t v, uint32_t scope)
{
  if (vars[v].name == NULL)
    return 0;
  amddwarf_listed_variable item = {0};
  item.path_name = vars[v].name;
  item.kind = kind_of(&vars[v]);
  item.die = vars[v].ref.die;
  item.var = &vars[v];
  item.var_index = v;
  item.scope = scope;
  return add(b, &item, &vars[v], NULL);
}

static int by_offset(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The abstract origins of SCOPE's children, sorted, into *OUT (freed by the
   caller); -1 when out of memory. */
static int concrete_origins(builder *b, const amddwarf_object *object, amddwarf_die_ref scope,
                            uint64_t **out, size_t *count, size_t *capacity)
{
  amddwarf_die_links links;
  *count = 0;
  if (amddwarf_object_die_links(object, scope, &links, NULL) != AMDDWARF_OK)
    return 0;
  for (amddwarf_die_ref c = links.first_child; amddwarf_die_ref_valid(c); c = links.next_sibling) {
    amddwarf_die_ref origin = amddwarf_object_die_reference(object, c, AMDDWARF_DW_AT_abstract_origin);
    if (amddwarf_die_ref_valid(origin)) {
      if (amddwarf__mem_reserve(&b->wave->allocator, (void **)out, capacity, *count + 1,
                               sizeof **out) != 0)
        return -1;
      (*out)[(*count)++] = origin.offset;
    }
    if (amddwarf_object_die_links(object, c, &links, NULL) != AMDDWARF_OK)
      break;
  }
  qsort(*out, *count, sizeof **out, by_offset);
  return 0;
}

/* The variables SCOPE's abstract origin declares that SCOPE itself does not
   (an inlined routine whose optimized code kept no trace of them). */
static int add_origin_only(builder *b, const amddwarf_frame *frame, amddwarf_die_ref scope,
                           uint32_t index)
{
  const amddwarf_object *object = frame->object;
  unsigned scope_tag = amddwarf__debug_die_tag(object, scope);
  amddwarf_die_ref origin = amddwarf_object_die_reference(object, scope, AMDDWARF_DW_AT_abstract_origin);
  amddwarf_attribute a;
  /* A DW_AT_specification leads to a declaration, whose parameters are
     not the definition's: only an abstract origin counts. */
  if (!amddwarf_die_ref_valid(origin) || scope_tag == AMDDWARF_DW_TAG_compile_unit ||
      amddwarf_object_die_attribute(object, origin, AMDDWARF_DW_AT_declaration, 0, &a, NULL) ==
          AMDDWARF_OK)
    return 0;
  const char *origin_name = amddwarf_object_die_string(object, origin, AMDDWARF_DW_AT_name);
  char why[320];
  snprintf(why, sizeof why,
           "declared only in the abstract origin (DIE 0x%llx%s%s%s): the optimized code "
           "keeps no location for it",
           (unsigned long long)origin.offset, origin_name != NULL ? ", " : "",
           origin_name != NULL && scope_tag == AMDDWARF_DW_TAG_inlined_subroutine ? "inlined "
                                                                                   : "",
           origin_name != NULL ? origin_name : "");
  uint64_t *concrete = NULL;
  size_t concrete_count = 0, concrete_capacity = 0;
  int failed = concrete_origins(b, object, scope, &concrete, &concrete_count,
                                &concrete_capacity);
  amddwarf_die_links links;
  const amddwarf_cu *cu = amddwarf_object_cu(object, origin.cu_index);
  if (!failed && amddwarf_object_die_links(object, origin, &links, NULL) == AMDDWARF_OK) {
    for (amddwarf_die_ref c = links.first_child; !failed && amddwarf_die_ref_valid(c);
         c = links.next_sibling) {
      amddwarf_frame_var var = {0};
      var.ref.die = c;
      var.ref.scope = origin;
      if (cu != NULL)
        amddwarf__debug_describe_var(object, cu, &var);
      int is_variable =
          var.tag == AMDDWARF_DW_TAG_variable || var.tag == AMDDWARF_DW_TAG_formal_parameter;
      if (is_variable && var.name != NULL &&
          bsearch(&c.offset, concrete, concrete_count, sizeof *concrete, by_offset) == NULL) {
        amddwarf_listed_variable item = {0};
        item.path_name = var.name;
        item.kind = kind_of(&var); /* never a global: VAR's scope is the origin */
        item.die = c;
        item.var_index = (size_t)-1;
        item.scope = index;
        failed = add(b, &item, &var, why) != 0;
      }
      if (amddwarf_object_die_links(object, c, &links, NULL) != AMDDWARF_OK)
        break;
    }
  }
  amddwarf__mem_free(&b->wave->allocator, concrete, concrete_capacity * sizeof *concrete);
  return failed ? -1 : 0;
}

static int by_key_then_place(const void *a, const void *b)
{
  const keyed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Marks every draft that an earlier one of its name shadows, with N log N
   comparisons, and writes each listed name into the text. KEYS has room for
   every draft. */
static int name_drafts(builder *b, const amddwarf_frame *frame, keyed *keys)
{
  for (size_t i = 0; i < b->count; ++i)
    keys[i] = (keyed){b->drafts[i].item.path_name, i};
  qsort(keys, b->count, sizeof *keys, by_key_then_place);
  for (size_t k = 1; k < b->count; ++k)
    if (strcmp(keys[k].key, keys[k - 1].key) == 0)
      b->drafts[keys[k].index].item.shadowed = 1;
  for (size_t i = 0; i < b->count; ++i) {
    draft *d = &b->drafts[i];
    d->name_at = b->text.len;
    amddwarf__text_puts(&b->text, d->item.path_name);
    if (d->item.shadowed) {
      const amddwarf_line_table *t =
          frame->object != NULL ? amddwarf_object_line_table(frame->object, d->cu_index) : NULL;
      const char *file = t != NULL && d->decl_file < t->file_count ? t->files[d->decl_file]
                                                                   : NULL;
      const char *base = file != NULL ? strrchr(file, '/') : NULL;
      if (d->decl_line != 0)
        amddwarf__text_printf(&b->text, " @ %s:%u",
                              base != NULL ? base + 1 : file != NULL ? file : "?",
                              d->decl_line);
      else
        amddwarf__text_printf(&b->text, " @ scope %u", d->item.scope);
    }
    amddwarf__text_write(&b->text, NULL, '\0', 1);
  }
  return amddwarf__text_status(&b->text) == AMDDWARF_OK ? 0 : -1;
}

static void listing_free(amddwarf_wave *wave, struct amddwarf_frame_listing *l)
{
  if (l == NULL)
    return;
  amddwarf__mem_free(&wave->allocator, l->items, (l->count ? l->count : 1) * sizeof *l->items);
  amddwarf__mem_free(&wave->allocator, l->by_name, (l->count ? l->count : 1) * sizeof *l->by_name);
  amddwarf__mem_free(&wave->allocator, l->names, l->names_size);
  amddwarf__mem_free(&wave->allocator, l, sizeof *l);
}

void amddwarf__frame_listing_free(amddwarf_wave *wave, struct amddwarf_frame_listing *listing)
{
  listing_free(wave, listing);
}

static amddwarf_status make_listing(amddwarf_wave *wave, amddwarf_debug_frame *f,
                                    const amddwarf_frame_var *vars, size_t var_count,
                                    amddwarf_error *err)
{
  const amddwarf_frame *frame = &f->pub;
  builder b = {wave, NULL, 0, 0, {0}};
  amddwarf__text_init(&b.text, &wave->allocator);
  struct amddwarf_frame_listing *l = amddwarf__mem_calloc(&wave->allocator, 1, sizeof *l);
  int failed = l == NULL;
  /* The frame's scopes innermost first; each one's variables, then those
     only its abstract origin declares; the unit's globals last. */
  size_t v = 0;
  for (uint32_t s = 0; !failed && s < frame->scope_count; ++s) {
    for (; !failed && v < var_count && vars[v].ref.depth == frame->scope_base + s; ++v)
      failed = add_var(&b, vars, v, s) != 0;
    if (!failed)
      failed = add_origin_only(&b, frame, frame->scopes[s], s) != 0;
  }
  for (; !failed && v < var_count; ++v)
    failed = add_var(&b, vars, v, (uint32_t)(vars[v].ref.depth - frame->scope_base)) != 0;
  size_t n = b.count ? b.count : 1;
  if (!failed) {
    l->items = amddwarf__mem_calloc(&wave->allocator, n, sizeof *l->items);
    l->by_name = amddwarf__mem_calloc(&wave->allocator, n, sizeof *l->by_name);
    failed = l->items == NULL || l->by_name == NULL || name_drafts(&b, frame, l->by_name) != 0;
  }
  if (!failed) {
    char *names = NULL;
    size_t length = 0;
    failed = amddwarf__text_take(&b.text, &names, &length) != AMDDWARF_OK;
    l->names = names;
    l->names_size = length + 1;
    l->count = b.count;
    for (size_t i = 0; !failed && i < b.count; ++i) {
      l->items[i] = b.drafts[i].item;
      l->items[i].name = names + b.drafts[i].name_at;
      if (b.drafts[i].missing_at != (size_t)-1)
        l->items[i].missing = names + b.drafts[i].missing_at;
    }
  }
  if (!failed) {
    /* The names as listed, sorted for amddwarf_wave_frame_variable_find. */
    for (size_t i = 0; i < b.count; ++i)
      l->by_name[i] = (keyed){l->items[i].name, i};
    qsort(l->by_name, b.count, sizeof *l->by_name, by_key_then_place);
  }
  amddwarf__text_free(&b.text);
  amddwarf__mem_free(&wave->allocator, b.drafts, b.capacity * sizeof *b.drafts);
  if (failed) {
    listing_free(wave, l);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "the variables of frame %zu", frame->index);
  }
  f->listing = l;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_wave_frame_variables(amddwarf_wave *wave, size_t frame,
                                              const amddwarf_listed_variable **list,
                                              size_t *count, amddwarf_error *err)
{
  if (wave == NULL || list == NULL || count == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_frame_variables: NULL argument");
  *list = NULL;
  *count = 0;
  const amddwarf_frame_var *vars = NULL;
  size_t var_count = 0;
  amddwarf_status st = amddwarf_wave_variables(wave, frame, &vars, &var_count, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_debug_frame *f = wave->frames[frame];
  if (f->listing == NULL && (st = make_listing(wave, f, vars, var_count, err)) != AMDDWARF_OK)
    return st;
  *list = f->listing->items;
  *count = f->listing->count;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_wave_frame_variable_find(amddwarf_wave *wave, size_t frame,
                                                  const char *listed_name,
                                                  const amddwarf_listed_variable **out,
                                                  amddwarf_error *err)
{
  const amddwarf_listed_variable *list = NULL;
  size_t count = 0;
  if (listed_name == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_frame_variable_find: NULL argument");
  amddwarf_status st = amddwarf_wave_frame_variables(wave, frame, &list, &count, err);
  if (st != AMDDWARF_OK)
    return st;
  const struct amddwarf_frame_listing *l = wave->frames[frame]->listing;
  size_t low = 0, high = count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (strcmp(l->by_name[mid].key, listed_name) < 0)
      low = mid + 1;
    else
      high = mid;
  }
  if (low < count && strcmp(l->by_name[low].key, listed_name) == 0) {
    *out = &list[l->by_name[low].index];
    return AMDDWARF_OK;
  }
  return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                       "frame %zu lists no variable '%s'", frame, listed_name);
}

amddwarf_status amddwarf_valobj_new_indexed(amddwarf_wave *wave, size_t frame, size_t var_index,
                                            const char *path, amddwarf_valobj **out,
                                            amddwarf_error *err)
{
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  amddwarf_status st = amddwarf_wave_variables(wave, frame, &vars, &count, err);
  if (st != AMDDWARF_OK)
    return st;
  if (var_index >= count)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "frame %zu has no variable %zu", frame, var_index);
  return amddwarf_valobj_new_var(wave, frame, &vars[var_index], path, out, err);
}
