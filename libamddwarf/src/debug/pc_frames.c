/* What a physical frame at a PC of a code object expands into (debug.h's
 * frames): the scopes at the PC, a frame per inlined subroutine there,
 * innermost first, then the function's own frame, each with its function,
 * the name a debugger shows and its source position. All of it depends on
 * the object and the PC alone, so it is kept with the object
 * (object/memo.h) when a wave first stands there: the thousands of waves
 * of a stop, at a few PCs, read the DIEs, names and lines once. */
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/debug_internal.h"

#define MEMO_PC_FRAMES UINT64_C(0x70636672616d6573) /* "pcframes" */

enum { MAX_SCOPES = 1024, SCOPES_NEARBY = 16 };

/* The scopes at OBJECT_PC, innermost first, into *SCOPES (the wave's
   allocator; NULL when there are none) and *DEPTH. One look-up for the
   usual few, a second for a deeper nest. */
static amddwarf_status scopes_at(amddwarf_wave *w, const amddwarf_object *object,
                                 uint64_t object_pc, amddwarf_die_ref **scopes, size_t *depth,
                                 amddwarf_error *err)
{
  amddwarf_die_ref nearby[SCOPES_NEARBY];
  size_t full = 0;
  *scopes = NULL;
  *depth = 0;
  if (amddwarf_object_scope_refs_at(object, object_pc, nearby, SCOPES_NEARBY, depth, NULL) !=
          AMDDWARF_OK ||
      *depth == 0) {
    *depth = 0;
    return AMDDWARF_OK;
  }
  if (*depth > MAX_SCOPES)
    *depth = MAX_SCOPES;
  *scopes = amddwarf__mem_alloc(&w->allocator, *depth * sizeof **scopes);
  if (*scopes == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "scopes");
  if (*depth <= SCOPES_NEARBY)
    memcpy(*scopes, nearby, *depth * sizeof **scopes);
  else
    amddwarf_object_scope_refs_at(object, object_pc, *scopes, *depth, &full, NULL);
  return AMDDWARF_OK;
}

/* The frames of the scopes SCOPES[0..DEPTH) into FRAMES (room for DEPTH + 1),
   their count returned: one per inlined subroutine up to the subprogram,
   whose frame's scopes run on to the unit DIE; one frame without a
   function when no function holds the PC. *SUBPROGRAM: the subprogram. */
static size_t chain_of(const amddwarf_object *object, const amddwarf_die_ref *scopes,
                       size_t depth, amddwarf_pc_frame *frames, amddwarf_die_ref *subprogram)
{
  size_t count = 0, start = 0;
  uint32_t inlines = 0;
  for (size_t i = 0; i < depth; ++i)
    inlines += amddwarf__debug_die_tag(object, scopes[i]) == AMDDWARF_DW_TAG_inlined_subroutine;
  *subprogram = (amddwarf_die_ref){0, 0, 0};
  for (size_t i = 0; i < depth && !amddwarf_die_ref_valid(*subprogram); ++i) {
    unsigned tag = amddwarf__debug_die_tag(object, scopes[i]);
    if (tag != AMDDWARF_DW_TAG_inlined_subroutine && tag != AMDDWARF_DW_TAG_subprogram)
      continue;
    if (tag == AMDDWARF_DW_TAG_subprogram)
      *subprogram = scopes[i];
    amddwarf_pc_frame *f = &frames[count++];
    memset(f, 0, sizeof *f);
    f->function = scopes[i];
    f->scope_base = start;
    f->scope_count = (amddwarf_die_ref_valid(*subprogram) ? depth : i + 1) - start;
    f->inline_depth = amddwarf_die_ref_valid(*subprogram) ? 0 : inlines--;
    start = i + 1;
  }
  if (count == 0) {
    memset(&frames[0], 0, sizeof frames[0]);
    frames[0].scope_count = depth;
    count = 1;
  }
  return count;
}

const char *amddwarf__debug_symbol_name_at(const amddwarf_object *object, uint64_t pc)
{
  amddwarf_symbol s;
  return amddwarf_object_function_symbol_at(object, pc, &s) == AMDDWARF_OK
             ? amddwarf_object_symbol_name(object, &s)
             : NULL;
}

/* Names and source positions of E's frames at OBJECT_PC: the line row at
   the PC for the innermost, the call site of the inline below for the
   others; a frame without a function is named by the function or kernel
   symbol holding the PC, as a symbolizer names a PC no DWARF covers. */
static void describe(const amddwarf_object *object, uint64_t object_pc, amddwarf_pc_frames *e)
{
  for (size_t k = 0; k < e->frame_count; ++k) {
    amddwarf_pc_frame *f = &e->frames[k];
    f->function_name = amddwarf_die_ref_valid(f->function)
                           ? amddwarf_object_die_function_name(object, f->function)
                           : amddwarf__debug_symbol_name_at(object, object_pc);
    if (k > 0) {
      amddwarf_die_ref callee = e->frames[k - 1].function;
      if (amddwarf_die_ref_valid(callee))
        amddwarf__debug_call_site(object, callee, &f->file, &f->line, &f->column);
      continue;
    }
    const amddwarf_line_table *t = NULL;
    amddwarf_line_row r;
    if (amddwarf_object_line_at(object, object_pc, &t, &r) == AMDDWARF_OK) {
      f->file = r.file < t->file_count ? t->files[r.file] : NULL;
      f->line = r.line;
      f->column = r.column;
    }
  }
}

/* The expansion at OBJECT_PC made: published with the object, or the
   caller's (*OWN) when the object keeps no more. */
static const amddwarf_pc_frames *expand(amddwarf_wave *w, const amddwarf_object *object,
                                        uint64_t object_pc, const uint64_t key[4],
                                        amddwarf_pc_frames **own, amddwarf_error *err)
{
  amddwarf_die_ref *scopes = NULL;
  amddwarf_pc_frame *chain = NULL;
  amddwarf_pc_frames *e = NULL;
  size_t depth = 0;
  amddwarf_status st = scopes_at(w, object, object_pc, &scopes, &depth, err);
  if (st == AMDDWARF_OK &&
      (chain = amddwarf__mem_alloc(&w->allocator, (depth + 1) * sizeof *chain)) == NULL)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frames");
  if (st == AMDDWARF_OK) {
    amddwarf_die_ref subprogram;
    size_t count = chain_of(object, scopes, depth, chain, &subprogram);
    e = (amddwarf_pc_frames *)amddwarf__object_memo_new(
        object, key, sizeof *e + count * sizeof *chain + depth * sizeof *scopes);
    if (e == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "frames");
    } else {
      e->subprogram = subprogram;
      e->frame_count = count;
      e->scope_count = depth;
      e->frames = (amddwarf_pc_frame *)(e + 1);
      e->scopes = (amddwarf_die_ref *)(e->frames + count);
      memcpy(e->frames, chain, count * sizeof *chain);
      if (depth > 0)
        memcpy(e->scopes, scopes, depth * sizeof *scopes);
      describe(object, object_pc, e);
      bool kept_by_caller;
      e = (amddwarf_pc_frames *)amddwarf__object_memo_keep(object, &e->memo, &kept_by_caller);
      *own = kept_by_caller ? e : NULL;
    }
  }
  if (chain != NULL)
    amddwarf__mem_free(&w->allocator, chain, (depth + 1) * sizeof *chain);
  if (scopes != NULL)
    amddwarf__mem_free(&w->allocator, scopes, depth * sizeof *scopes);
  return e;
}

const amddwarf_pc_frames *amddwarf__debug_pc_frames(amddwarf_wave *w,
                                                    const amddwarf_object *object,
                                                    uint64_t object_pc, amddwarf_pc_frames **own,
                                                    amddwarf_error *err)
{
  const uint64_t key[4] = {MEMO_PC_FRAMES, object_pc, 0, 0};
  const amddwarf_pc_frames *e =
      (const amddwarf_pc_frames *)amddwarf__object_memo_find(object, key);
  *own = NULL;
  return e != NULL ? e : expand(w, object, object_pc, key, own, err);
}

void amddwarf__debug_pc_frames_free(const amddwarf_object *object, amddwarf_pc_frames *own)
{
  if (own != NULL)
    amddwarf__object_memo_free(object, &own->memo);
}
