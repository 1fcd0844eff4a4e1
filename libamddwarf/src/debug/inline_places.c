/* The places of a PC through its inlined subroutines (<amddwarf/debug.h>,
 * amddwarf_object_inline_places): the innermost function at the line row
 * of the PC, each caller at the call site of the inlined subroutine it
 * called, as `amddwarf lines`, llvm-symbolizer --inlining and a backtrace
 * show them. */
#include <string.h>

#include "debug/debug_internal.h"

enum { MAX_SCOPES = 256 };

/* File FILE of the line table of unit CU_INDEX, or NULL. */
static const char *table_file(const amddwarf_object *object, uint32_t cu_index, uint64_t file)
{
  const amddwarf_line_table *t = amddwarf_object_line_table(object, cu_index);
  return t != NULL && file < t->file_count ? t->files[file] : NULL;
}

void amddwarf__debug_call_site(const amddwarf_object *object, amddwarf_die_ref die,
                               const char **file, uint32_t *line, uint32_t *column)
{
  uint64_t index = 0, at_line = 0, at_column = 0;
  int has_file = amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_call_file, &index);
  amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_call_line, &at_line);
  amddwarf__debug_die_udata(object, die, AMDDWARF_DW_AT_call_column, &at_column);
  *file = has_file ? table_file(object, die.cu_index, index) : NULL;
  *line = (uint32_t)at_line;
  *column = (uint32_t)at_column;
}

amddwarf_status amddwarf_object_inline_places(const amddwarf_object *object, uint64_t pc,
                                              amddwarf_place *places, size_t capacity,
                                              size_t *count)
{
  amddwarf_die_ref scopes[MAX_SCOPES];
  const amddwarf_line_table *table = NULL;
  amddwarf_line_row row;
  size_t depth = 0, n = 0;
  if (object == NULL || count == NULL || (places == NULL && capacity > 0))
    return AMDDWARF_E_INVALID_ARGUMENT;
  *count = 0;
  /* The position the next place takes: the row's, then a call site's. */
  amddwarf_place at;
  memset(&at, 0, sizeof at);
  at.object = object;
  at.object_pc = pc;
  if (amddwarf_object_line_at(object, pc, &table, &row) == AMDDWARF_OK) {
    at.has_row = 1;
    at.file = row.file < table->file_count ? table->files[row.file] : NULL;
    at.line = row.line;
    at.column = row.column;
  }
  if (amddwarf_object_scope_refs_at(object, pc, scopes, MAX_SCOPES, &depth, NULL) != AMDDWARF_OK)
    depth = 0;
  for (size_t i = 0; i < depth && i < MAX_SCOPES; ++i) {
    unsigned tag = amddwarf__debug_die_tag(object, scopes[i]);
    if (tag != AMDDWARF_DW_TAG_inlined_subroutine && tag != AMDDWARF_DW_TAG_subprogram)
      continue;
    at.function = amddwarf_object_die_function_name(object, scopes[i]);
    at.inlined = tag == AMDDWARF_DW_TAG_inlined_subroutine;
    if (n < capacity)
      places[n] = at;
    ++n;
    if (!at.inlined)
      break;
    /* The caller stands at the call site. */
    amddwarf__debug_call_site(object, scopes[i], &at.file, &at.line, &at.column);
  }
  /* A PC no function holds has its row alone. */
  if (n == 0 && at.has_row) {
    if (capacity > 0)
      places[0] = at;
    n = 1;
  }
  *count = n;
  return n > 0 ? AMDDWARF_OK : AMDDWARF_NOT_FOUND;
}
