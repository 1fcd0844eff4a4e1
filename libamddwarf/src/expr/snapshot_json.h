/* The snapshot loader's entry for a snapshot already found in a larger
 * document: a stop (stop.c) hands over each wave's snapshot member, parsed
 * (a jansson tree) or as checked text (snapshot_value.h), instead of
 * printing and parsing it again. */
#ifndef AMDDWARF_EXPR_SNAPSHOT_JSON_H
#define AMDDWARF_EXPR_SNAPSHOT_JSON_H

#include <amddwarf/allocator.h>
#include <amddwarf/snapshot.h>

#include "expr/snapshot_value.h"

/* As amddwarf_snapshot_load, from the snapshot object ROOT
   (specs/snapshot.md). CODE_OBJECTS (NULL: none), the list of the document
   around it, is the snapshot's when it has no "code_objects" of its own. */
amddwarf_status amddwarf__snapshot_load_value(const snapshot_value *root,
                                             const snapshot_value *code_objects,
                                             const amddwarf_allocator *allocator,
                                             amddwarf_snapshot **out, amddwarf_error *err);

/* Whether a write went through the snapshot's target since it was loaded:
   a stop keeps such a wave parsed (amddwarf_stop_wave_unload). */
int amddwarf__snapshot_written(const amddwarf_snapshot *s);

#endif
