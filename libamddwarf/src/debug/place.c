/* Where a PC of a wave is in the source (debug.h, amddwarf_wave_place):
 * the one reading of "PC to place" for the lanes table, the CLI's lanes and
 * the debug adapter's threads and lanes. */
#include <string.h>

#include "debug/debug_internal.h"

/* The innermost function (subprogram or inlined subroutine) of OBJECT at
   PC, or NULL; *INLINED whether it is an inlined subroutine. */
static const char *innermost_function(const amddwarf_object *object, uint64_t pc, int *inlined)
{
  amddwarf_die_ref scopes[64];
  size_t depth = 0;
  if (amddwarf_object_scope_refs_at(object, pc, scopes, 64, &depth, NULL) != AMDDWARF_OK)
    return NULL;
  for (size_t k = 0; k < depth && k < 64; ++k) {
    unsigned tag = amddwarf__debug_die_tag(object, scopes[k]);
    if (tag == AMDDWARF_DW_TAG_subprogram || tag == AMDDWARF_DW_TAG_inlined_subroutine) {
      *inlined = tag == AMDDWARF_DW_TAG_inlined_subroutine;
      return amddwarf_object_die_function_name(object, scopes[k]);
    }
  }
  return NULL;
}

static amddwarf_status locate_place(const amddwarf_wave *wave, uint64_t pc, amddwarf_place *out)
{
  memset(out, 0, sizeof *out);
  size_t first = 0, end = wave->object_count;
  uint64_t object_pc = pc;
  if (wave->load_addresses != NULL) {
    if (amddwarf__debug_locate(wave, pc, &first, &object_pc) != AMDDWARF_OK)
      return AMDDWARF_NOT_FOUND;
    end = first + 1;
  }
  /* Without load addresses the objects share one address space: the first
     that knows the PC (a line row or a function) is the one. */
  for (size_t i = first; i < end; ++i) {
    const amddwarf_object *object = wave->objects[i];
    const amddwarf_line_table *table = NULL;
    amddwarf_line_row row;
    int inlined = 0;
    const char *function = innermost_function(object, object_pc, &inlined);
    int has_row = amddwarf_object_line_at(object, object_pc, &table, &row) == AMDDWARF_OK;
    if (!has_row && function == NULL)
      continue;
    out->object = object;
    out->object_index = i;
    out->object_pc = object_pc;
    out->function = function;
    out->inlined = inlined;
    out->has_row = has_row;
    if (has_row) {
      out->file = row.file < table->file_count ? table->files[row.file] : NULL;
      out->line = row.line;
      out->column = row.column;
    }
    return AMDDWARF_OK;
  }
  return AMDDWARF_NOT_FOUND;
}

amddwarf_status amddwarf_wave_place(const amddwarf_wave *wave, uint64_t pc, amddwarf_place *out)
{
  if (wave == NULL || out == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  /* The memo is the wave's own cache, not part of what it answers: a wave
     belongs to one thread at a time (debug.h). */
  amddwarf_wave *memo = (amddwarf_wave *)wave;
  if (!memo->place_memo_valid || memo->place_memo_pc != pc) {
    memo->place_memo_status = locate_place(wave, pc, &memo->place_memo);
    memo->place_memo_pc = pc;
    memo->place_memo_valid = 1;
  }
  *out = memo->place_memo;
  return memo->place_memo_status;
}

const char *amddwarf_place_file_name(const amddwarf_place *place)
{
  if (place == NULL || place->file == NULL)
    return NULL;
  const char *slash = strrchr(place->file, '/');
  return slash != NULL ? slash + 1 : place->file;
}
