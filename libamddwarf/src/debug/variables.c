/* The variables of a frame (debug.h): those of the frame's own scopes at
 * its lookup PC, innermost first, then the unit's globals. */
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"

/* Whether VAR (from amddwarf_object_vars_at, its depth counting the
   physical frame's scopes) belongs to FRAME: declared in one of the frame's
   own scopes, or a global of the unit. */
static int belongs(const amddwarf_debug_frame *frame, const amddwarf_var *var)
{
  if (var->scope->tag == AMDDWARF_DW_TAG_compile_unit)
    return 1;
  size_t first = frame->pub.scope_base;
  return var->depth >= first && var->depth < first + frame->pub.scope_count;
}

static amddwarf_status load_variables(amddwarf_debug_frame *f, amddwarf_error *err)
{
  const amddwarf_object *object = f->pub.object;
  amddwarf_var *all = NULL;
  size_t count = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (object == NULL || !amddwarf_die_ref_valid(f->pub.function))
    goto done; /* no DWARF: no variables */
  st = amddwarf_object_vars_at(object, f->pub.object_pc, NULL, 0, &count);
  if (st != AMDDWARF_OK) {
    size_t unit = 0;
    if (amddwarf_object_pc_unit(object, f->pub.object_pc, &unit) == AMDDWARF_OK &&
        (st = amddwarf_object_load_unit(object, unit, err)) != AMDDWARF_OK)
      goto done;
    st = amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                       "no subprogram contains pc 0x%llx",
                       (unsigned long long)f->pub.lookup_pc);
    goto done;
  }
  all = amddwarf__mem_calloc(&f->wave->allocator, count ? count : 1, sizeof *all);
  if (all == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "variables");
    goto done;
  }
  amddwarf_object_vars_at(object, f->pub.object_pc, all, count, &count);
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i)
    if (belongs(f, &all[i]))
      all[kept++] = all[i];
  f->vars = all;
  f->var_count = kept;
  all = NULL;
  /* The array keeps its full size for the free. */
  f->var_capacity = count ? count : 1;
done:
  f->vars_status = st;
  f->vars_done = 1;
  return st;
}

amddwarf_status amddwarf_wave_variables(amddwarf_wave *wave, size_t frame,
                                        const amddwarf_var **vars, size_t *count,
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
static const amddwarf_var *listed(amddwarf_wave *wave, size_t frame, const char *name)
{
  const amddwarf_var *vars = NULL;
  size_t count = 0;
  if (amddwarf_wave_variables(wave, frame, &vars, &count, NULL) != AMDDWARF_OK)
    return NULL;
  for (size_t i = 0; i < count; ++i)
    if (vars[i].die->name != NULL && strcmp(vars[i].die->name, name) == 0)
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
                                            const amddwarf_var **out, amddwarf_error *err)
{
  const amddwarf_var *vars = NULL;
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
