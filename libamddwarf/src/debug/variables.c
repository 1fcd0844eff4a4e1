/* The variables of a frame (debug.h): those of the frame's own scopes at
 * its lookup PC, innermost first, then the unit's globals. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"
#include "debug/plan.h"
#include "debug/value.h"
#include "object/memo.h"

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

/* ---- a scope's variables, kept with the object ---- */

/* The variables of a frame's scopes at its PC are the same for every wave
   of the object there (a stop's thousands of waves stand at a few PCs), and
   so is what making a value of a variable's name alone reads of the object:
   both are kept with the object (object/memo.h), the list when first made,
   each variable's answer when a value of it is first made. */
#define MEMO_SCOPE_VARIABLES UINT64_C(0x7363706576617273) /* "scpevars" */

typedef struct scope_variables {
  amddwarf_object_memo memo;    /* first: the block is the memo's */
  size_t count;
  amddwarf_frame_var *vars;     /* COUNT, in the same block */
  _Atomic(struct amddwarf_debug_var_answer *) *answers; /* COUNT, in the same block */
} scope_variables;

static void release_answers(const amddwarf_object *object, amddwarf_object_memo *memo)
{
  scope_variables *scope = (scope_variables *)memo;
  for (size_t i = 0; i < scope->count; ++i) {
    struct amddwarf_debug_var_answer *a =
        atomic_load_explicit(&scope->answers[i], memory_order_acquire);
    if (a != NULL)
      amddwarf__object_memo_block_free(object, a, sizeof *a);
  }
}

/* The kept list of F's scopes made of the COUNT variables VARS: published
   with the object, or F's own when the object keeps no more (NULL when out
   of memory). */
static scope_variables *keep_scope(amddwarf_debug_frame *f, const uint64_t key[4],
                                   const amddwarf_frame_var *vars, size_t count)
{
  const amddwarf_object *object = f->pub.object;
  size_t size = sizeof(scope_variables) + count * sizeof *vars +
                count * sizeof(_Atomic(struct amddwarf_debug_var_answer *));
  scope_variables *scope = (scope_variables *)amddwarf__object_memo_new(object, key, size);
  if (scope == NULL)
    return NULL;
  scope->count = count;
  scope->vars = (amddwarf_frame_var *)(scope + 1);
  scope->answers = (_Atomic(struct amddwarf_debug_var_answer *) *)(scope->vars + count);
  if (count > 0)
    memcpy(scope->vars, vars, count * sizeof *vars);
  for (size_t i = 0; i < count; ++i)
    atomic_init(&scope->answers[i], NULL);
  scope->memo.release = release_answers;
  bool own;
  scope = (scope_variables *)amddwarf__object_memo_keep(object, &scope->memo, &own);
  f->scope_own = own;
  return scope;
}

/* The variables of F's own scopes (and the unit's globals), read from the
   DIEs of the subprogram holding its PC. */
static amddwarf_status read_variables(amddwarf_debug_frame *f, const uint64_t key[4],
                                      amddwarf_error *err)
{
  const amddwarf_object *object = f->pub.object;
  amddwarf_var_ref *refs = NULL;
  amddwarf_frame_var *all = NULL;
  size_t count = 0, kept = 0;
  amddwarf_status st = amddwarf_object_var_refs_at(object, f->pub.object_pc, NULL, 0, &count, err);
  if (st == AMDDWARF_NOT_FOUND)
    st = amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                        "no subprogram contains pc 0x%llx",
                        (unsigned long long)f->pub.lookup_pc);
  if (st != AMDDWARF_OK)
    return st;
  size_t capacity = count ? count : 1;
  refs = amddwarf__mem_calloc(&f->wave->allocator, capacity, sizeof *refs);
  all = amddwarf__mem_calloc(&f->wave->allocator, capacity, sizeof *all);
  if (refs == NULL || all == NULL)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "variables");
  else
    st = amddwarf_object_var_refs_at(object, f->pub.object_pc, refs, count, &count, err);
  for (size_t i = 0; st == AMDDWARF_OK && i < count; ++i) {
    amddwarf_frame_var *v = &all[kept];
    memset(v, 0, sizeof *v);
    v->ref = refs[i];
    v->global = v->ref.scope.offset == f->cu->die_offset;
    if (!belongs(f, v))
      continue;
    amddwarf__debug_describe_var(object, f->cu, v);
    ++kept;
  }
  if (st == AMDDWARF_OK && (f->scope = keep_scope(f, key, all, kept)) == NULL)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "variables");
  amddwarf__mem_free(&f->wave->allocator, refs, capacity * sizeof *refs);
  amddwarf__mem_free(&f->wave->allocator, all, capacity * sizeof *all);
  return st;
}

static amddwarf_status load_variables(amddwarf_debug_frame *f, amddwarf_error *err)
{
  const amddwarf_object *object = f->pub.object;
  amddwarf_status st = AMDDWARF_OK;
  if (object != NULL && amddwarf_die_ref_valid(f->pub.function) && f->cu != NULL) {
    /* The frame's scopes are those of its PC, from SCOPE_BASE: an inline
       frame and its caller at one PC keep lists of their own. */
    const uint64_t key[4] = {MEMO_SCOPE_VARIABLES, f->pub.object_pc, f->pub.scope_base,
                             f->pub.scope_count};
    f->scope = (scope_variables *)amddwarf__object_memo_find(object, key);
    f->scope_own = 0;
    if (f->scope == NULL)
      st = read_variables(f, key, err);
  } /* else no DWARF: no variables */
  f->vars = f->scope != NULL ? f->scope->vars : NULL;
  f->var_count = f->scope != NULL ? f->scope->count : 0;
  f->vars_status = st;
  f->vars_done = 1;
  return st;
}

/* The index of VAR among F's variables, or -1 for another variable. */
static ptrdiff_t index_of(const amddwarf_debug_frame *f, const amddwarf_frame_var *var)
{
  uintptr_t at = (uintptr_t)var, first = (uintptr_t)f->vars;
  if (f->scope == NULL || at < first)
    return -1;
  size_t i = (at - first) / sizeof *var;
  return i < f->var_count ? (ptrdiff_t)i : -1;
}

const struct amddwarf_debug_var_answer *amddwarf__debug_var_answer(const amddwarf_debug_frame *f,
                                                                  const amddwarf_frame_var *var)
{
  ptrdiff_t i = index_of(f, var);
  return i < 0 ? NULL : atomic_load_explicit(&f->scope->answers[i], memory_order_acquire);
}

void amddwarf__debug_var_answer_keep(amddwarf_debug_frame *f, const amddwarf_frame_var *var,
                                     const struct amddwarf_debug_var_answer *answer)
{
  ptrdiff_t i = index_of(f, var);
  if (i < 0)
    return;
  const amddwarf_object *object = f->pub.object;
  struct amddwarf_debug_var_answer *copy = amddwarf__object_memo_block(object, sizeof *copy);
  if (copy == NULL)
    return; /* the next value asks the object again */
  *copy = *answer;
  struct amddwarf_debug_var_answer *none = NULL;
  /* Another wave may have kept the same answer meanwhile: the first stays. */
  if (!atomic_compare_exchange_strong_explicit(&f->scope->answers[i], &none, copy,
                                               memory_order_release, memory_order_relaxed))
    amddwarf__object_memo_block_free(object, copy, sizeof *copy);
}

void amddwarf__debug_scope_release(amddwarf_debug_frame *f)
{
  if (f->scope != NULL && f->scope_own)
    amddwarf__object_memo_free(f->pub.object, &f->scope->memo);
  f->scope = NULL;
  f->vars = NULL;
  f->var_count = 0;
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
