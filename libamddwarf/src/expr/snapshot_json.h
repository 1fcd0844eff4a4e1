/* The snapshot loader's entry for a document already parsed: a stop
 * (stop.c) holds each wave's snapshot as a member of its own document, and
 * hands that member over instead of printing and parsing it again. */
#ifndef AMDDWARF_EXPR_SNAPSHOT_JSON_H
#define AMDDWARF_EXPR_SNAPSHOT_JSON_H

#include <jansson.h>

#include <amddwarf/allocator.h>
#include <amddwarf/snapshot.h>

/* As amddwarf_snapshot_load, from the snapshot object ROOT (specs/snapshot.md). */
amddwarf_status amddwarf__snapshot_load_json(const json_t *root,
                                            const amddwarf_allocator *allocator,
                                            amddwarf_snapshot **out, amddwarf_error *err);

/* Whether a write went through the snapshot's target since it was loaded:
   a stop keeps such a wave parsed (amddwarf_stop_wave_unload). */
int amddwarf__snapshot_written(const amddwarf_snapshot *s);

#endif
