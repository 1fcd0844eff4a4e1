/* The variables of a frame (debug.h): those of the frame's own scopes at
 * its lookup PC, innermost first, then the unit's globals. */
#include <stdint.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"
#include "debug/plan.h"

/* Whether VAR (from amddwarf_object_var_refs_at, its depth counting the
   physical frame's scopes) belongs to FRAME: declared in one of the frame's
   own scopes, or a global of the unit (the last scope, the unit DIE). */
static int belongs(const amddwarf_debug_frame *frame, const amddwarf_frame_var *var)
{
  if (var->global)
    return 1;
  size_t first = frame->pub.scope_base;
  return var->ref.depth >= first && var->ref.depth < first + frame->pub.scope_count;
}

/* What a debugger lists of VAR, read from its DIE (debug_internal.h). */
void amddwarf__debug_describe_var(const amddwarf_object *object, const amddwarf_cu *cu,
                                  amddwarf_frame_var *var)
{
  amddwarf_die_ref die = var->ref.die;
  amddwarf_attribute a;
  uint64_t line = 0, file = 0;
  var->name = amddwarf_object_die_string(object, die, AMDDWARF_DW_AT_name);
  var->tag = (uint16_t)amddwarf__debug_die_tag(object, die);
  var->global = var->ref.scope.offset == cu->die_offset;
  var->has_const_value = amddwarf_object_die_attribute(object, die, AMDDWARF_DW_AT_const_value,
                                                       0, &a, NULL) == AMDDWARF_OK;
  /* The declaration comes as one: the first of the chain with a line. */
  amddwarf_die_ref at = die;
  for (int step = 0; step <= 8 && amddwarf_die_ref_valid(at); ++step) {
    if (amddwarf__debug_die_udata(object, at, AMDDWARF_DW_AT_decl_line, &line) && line) {
      amddwarf__debug_die_udata(object, at, AMDDWARF_DW_AT_decl_file, &file);
      break;
    }
    line = 0;
    amddwarf_die_ref next = amddwarf_object_die_reference(object, at,
                                                          AMDDWARF_DW_AT_abstract_origin);
    at = amddwarf_die_ref_valid(next)
             ? next
             : amddwarf_object_die_reference(object, at, AMDDWARF_DW_AT_specification);
  }
  var->decl_line = (uint32_t)line;
  var->decl_file = line ? (uint32_t)file : 0;
}

static amddwarf_status load_variables(amddwarf_debug_frame *f, amddwarf_error *err)
{
  const amddwarf_object *object = f->pub.object;
  amddwarf_var_ref *refs = NULL;
  amddwarf_frame_var *all = NULL;
  size_t count = 0, kept = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (object == NULL || !amddwarf_die_ref_valid(f->pub.function) || f->cu == NULL)
    goto done; /* no DWARF: no variables */
  st = amddwarf_object_var_refs_at(object, f->pub.object_pc, NULL, 0, &count, err);
  if (st == AMDDWARF_NOT_FOUND)
    st = amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                        "no subprogram contains pc 0x%llx",
                        (unsigned long long)f->pub.lookup_pc);
  if (st != AMDDWARF_OK)
    goto done;
  refs = amddwarf__mem_calloc(&f->wave->allocator, count ? count : 1, sizeof *refs);
  all = amddwarf__mem_calloc(&f->wave->allocator, count ? count : 1, sizeof *all);
  if (refs == NULL || all == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "variables");
    goto done;
  }
  if ((st = amddwarf_object_var_refs_at(object, f->pub.object_pc, refs, count, &count, err)) !=
      AMDDWARF_OK)
    goto done;
  for (size_t i = 0; i < count; ++i) {
    amddwarf_frame_var *v = &all[kept];
    memset(v, 0, sizeof *v);
    v->ref = refs[i];
    v->global = v->ref.scope.offset == f->cu->die_offset;
    if (!belongs(f, v))
      continue;
    amddwarf__debug_describe_var(object, f->cu, v);
    ++kept;
  }
  f->vars = all;
  f->var_count = kept;
  /* The array keeps its full size for the free. */
  f->var_capacity = count ? count : 1;
  all = NULL;
done:
  amddwarf__mem_free(&f->wave->allocator, refs, (count ? count : 1) * sizeof *refs);
  if (all != NULL)
    amddwarf__mem_free(&f->wave->allocator, all, (count ? count : 1) * sizeof *all);
  f->vars_status = st;
  f->vars_done = 1;
  return st;
}

struct amddwarf_debug_var_fields {
  amddwarf_die_fields fields;
  int known;
  amddwarf_debug_plan *plan; /* of the variable's name alone, or NULL */
};

/* VAR's entry in F's cache, made on first use; NULL for a variable that is
   not one of F's (or no memory: the caller reads without the cache). */
static struct amddwarf_debug_var_fields *cached(amddwarf_debug_frame *f,
                                                const amddwarf_frame_var *var)
{
  uintptr_t at = (uintptr_t)var, first = (uintptr_t)f->vars;
  size_t i = (at - first) / sizeof *var;
  if (f->vars == NULL || at < first || i >= f->var_count)
    return NULL;
  if (f->var_fields == NULL)
    f->var_fields = amddwarf__mem_calloc(&f->wave->allocator, f->var_capacity,
                                         sizeof *f->var_fields);
  return f->var_fields != NULL ? &f->var_fields[i] : NULL;
}

amddwarf_status amddwarf__debug_var_fields(amddwarf_debug_frame *f, const amddwarf_frame_var *var,
                                          amddwarf_die_fields *out, amddwarf_error *err)
{
  struct amddwarf_debug_var_fields *c = cached(f, var);
  if (c == NULL)
    return amddwarf_object_die_fields(f->pub.object, var->ref.die, out, err);
  if (!c->known) {
    amddwarf_status st = amddwarf_object_die_fields(f->pub.object, var->ref.die, &c->fields, err);
    if (st != AMDDWARF_OK)
      return st;
    c->known = 1;
  }
  *out = c->fields;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__debug_var_plan(amddwarf_debug_frame *f, const amddwarf_frame_var *var,
                                        amddwarf_die_ref type, const amddwarf_debug_path *path,
                                        amddwarf_debug_plan *plan, char *message, size_t size)
{
  struct amddwarf_debug_var_fields *c = path->count == 0 ? cached(f, var) : NULL;
  if (c != NULL && c->plan != NULL) {
    *plan = *c->plan;
    return AMDDWARF_OK;
  }
  amddwarf_status st = amddwarf__debug_plan_build(f->pub.object, type, path, plan, message, size);
  if (st == AMDDWARF_OK && c != NULL &&
      (c->plan = amddwarf__mem_alloc(&f->wave->allocator, sizeof *c->plan)) != NULL)
    *c->plan = *plan;
  return st;
}

void amddwarf__debug_var_fields_free(amddwarf_debug_frame *f)
{
  for (size_t i = 0; f->var_fields != NULL && i < f->var_capacity; ++i)
    if (f->var_fields[i].plan != NULL)
      amddwarf__mem_free(&f->wave->allocator, f->var_fields[i].plan, sizeof *f->var_fields[i].plan);
  if (f->var_fields != NULL)
    amddwarf__mem_free(&f->wave->allocator, f->var_fields,
                       f->var_capacity * sizeof *f->var_fields);
  f->var_fields = NULL;
}

amddwarf_status amddwarf_wave_variables(amddwarf_wave *wave, size_t frame,
                                        const amddwarf_frame_var **vars, size_t *count,
                                        amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  if (wave == NULL || vars == NULL || count == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_wave_variables: NULL argument");
  amddwarf_status st = amddwarf__debug_frame_get(wave, frame, &f, err);
  if (st == AMDDWARF_END)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "the wave has no frame %zu", frame);
  if (st != AMDDWARF_OK)
    return st;
  /* A failed load is tried again, so the caller gets its error each time. */
  if (!f->vars_done || f->vars_status != AMDDWARF_OK)
    st = load_variables(f, err);
  *vars = f->vars;
  *count = f->var_count;
  return st;
}

/* The innermost of FRAME's variables named NAME, or NULL. */
static const amddwarf_frame_var *listed(amddwarf_wave *wave, size_t frame, const char *name)
{
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  if (amddwarf_wave_variables(wave, frame, &vars, &count, NULL) != AMDDWARF_OK)
    return NULL;
  for (size_t i = 0; i < count; ++i)
    if (vars[i].name != NULL && strcmp(vars[i].name, name) == 0)
      return &vars[i];
  return NULL;
}

amddwarf_status amddwarf_wave_variable_frame(amddwarf_wave *wave, size_t frame,
                                             const char *name, size_t *found)
{
  amddwarf_debug_frame *f = NULL;
  if (wave == NULL || name == NULL || found == NULL ||
      amddwarf__debug_frame_get(wave, frame, &f, NULL) != AMDDWARF_OK)
    return AMDDWARF_NOT_FOUND;
  /* The frames an inline chain adds share the physical frame: no unwinding. */
  for (size_t k = frame + 1; k <= frame + f->pub.inline_depth; ++k)
    if (listed(wave, k, name) != NULL) {
      *found = k;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_wave_find_variable(amddwarf_wave *wave, size_t frame, const char *name,
                                            const amddwarf_frame_var **out, amddwarf_error *err)
{
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0, outer = 0;
  amddwarf_status st = amddwarf_wave_variables(wave, frame, &vars, &count, err);
  if (st != AMDDWARF_OK)
    return st;
  if ((*out = listed(wave, frame, name)) != NULL)
    return AMDDWARF_OK;
  unsigned long long pc = (unsigned long long)wave->frames[frame]->pub.lookup_pc;
  if (amddwarf_wave_variable_frame(wave, frame, name, &outer) == AMDDWARF_OK) {
    const char *function = wave->frames[outer]->pub.function_name;
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "no variable '%s' in scope at pc 0x%llx; frame %zu (%s) has one", name,
                         pc, outer, function != NULL ? function : "??");
  }
  return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                       "no variable '%s' in scope at pc 0x%llx", name, pc);
}
