/* A stop: the waves of a stopped GPU (or of a part of it) as wave snapshots
 * (<amddwarf/snapshot.h>), each with the place it runs at: its work-group
 * and wave ids when known. The document format is in specs/stop.md; a
 * debugger front end (`amddwarf dap`) and a core-dump reader load one, and
 * save it back after writes through the snapshots' targets.
 *
 * A stop owns its snapshots; a wave's snapshot lives until amddwarf_stop_free. */
#ifndef AMDDWARF_STOP_H
#define AMDDWARF_STOP_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/snapshot.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

typedef struct amddwarf_stop amddwarf_stop;

typedef struct amddwarf_stop_wave {
  amddwarf_snapshot *snapshot;   /* owned by the stop */
  int has_work_group;            /* WORK_GROUP below is known */
  uint32_t work_group[3];        /* x, y, z */
  int has_wave_id;               /* WAVE_ID below is known */
  uint32_t wave_id;              /* the wave's index in its work-group */
  const char *origin;            /* "NAME" or "NAME waves[I]": the document it came
                                    from (the NAME given to amddwarf_stop_add) */
} amddwarf_stop_wave;

/* An empty stop. ALLOCATOR may be NULL (malloc). Errors: E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_stop_new(const amddwarf_allocator *allocator,
                                               amddwarf_stop **out, amddwarf_error *err);
AMDDWARF_API void amddwarf_stop_free(amddwarf_stop *stop);

/* Adds the waves of the JSON document TEXT (SIZE bytes): a stop document
   ({"waves": [...]}, specs/stop.md) or one wave snapshot (specs/snapshot.md).
   NAME (copied; e.g. the file name) is put in front of every error message
   and in each wave's ORIGIN. All or nothing: on error the stop is unchanged.
   Errors: E_BAD_JSON (ERR.offset is the byte position), E_SNAPSHOT_SCHEMA
   (a member of the stop or of a wave's snapshot is wrong: the message names
   it, "waves[3].work_group"), the errors of amddwarf_snapshot_load, E_LIMIT
   (more than AMDDWARF_STOP_MAX_WAVES waves), E_NO_MEMORY. */
enum { AMDDWARF_STOP_MAX_WAVES = 1 << 20 };
AMDDWARF_API amddwarf_status amddwarf_stop_add(amddwarf_stop *stop, const char *text,
                                               size_t size, const char *name,
                                               amddwarf_error *err);

/* As amddwarf_stop_add, without parsing each wave's snapshot: one pass over
   TEXT finds every wave's members and reads its place (work_group,
   wave_id); the snapshot is parsed by amddwarf_stop_wave_load on first use
   (specs/stop.md, "Large stops"). TEXT must stay unchanged until
   amddwarf_stop_free (e.g. a mapped file): the stop keeps pointers into it.
   A document without "waves" (one snapshot) is parsed at once. All or
   nothing for what the pass reads. Errors: as amddwarf_stop_add; E_BAD_JSON
   and E_SNAPSHOT_SCHEMA set ERR.offset to the byte of the document where
   the fault is; a wave's snapshot is checked only when it is loaded. */
AMDDWARF_API amddwarf_status amddwarf_stop_add_indexed(amddwarf_stop *stop, const char *text,
                                                       size_t size, const char *name,
                                                       amddwarf_error *err);

/* Wave INDEX with its snapshot parsed: a wave added by amddwarf_stop_add is
   returned as it is, one added by amddwarf_stop_add_indexed is parsed the
   first time. Errors: E_INVALID_ARGUMENT (INDEX past the end), and those of
   amddwarf_snapshot_load with the wave in front of the message
   ("stop.json waves[7].snapshot (at byte 1234): ...") and ERR.offset the
   byte of the document: of the JSON fault, else the snapshot's first byte.
   A wave that fails stays unparsed (loading it again fails again). */
AMDDWARF_API amddwarf_status amddwarf_stop_wave_load(amddwarf_stop *stop, size_t index,
                                                     const amddwarf_stop_wave **out,
                                                     amddwarf_error *err);

/* Lets go of the parsed snapshot of wave INDEX, added by
   amddwarf_stop_add_indexed, so that a debugger keeps a bounded number of
   waves parsed; the next amddwarf_stop_wave_load parses it again. Every
   pointer into the snapshot (its target, a wave opened over it) must be
   dropped first. A wave not loaded is left as it is. Errors:
   E_INVALID_ARGUMENT (INDEX past the end; a wave added by amddwarf_stop_add;
   a wave written through its target since it was loaded, whose state the
   document no longer holds: it stays parsed). */
AMDDWARF_API amddwarf_status amddwarf_stop_wave_unload(amddwarf_stop *stop, size_t index,
                                                       amddwarf_error *err);

AMDDWARF_API size_t amddwarf_stop_wave_count(const amddwarf_stop *stop);
/* Wave INDEX in the order added, or NULL past the end; valid until
   amddwarf_stop_free or the next add. Its SNAPSHOT is NULL while an
   indexed wave is not loaded (amddwarf_stop_wave_load); its place and
   ORIGIN are always set. */
AMDDWARF_API const amddwarf_stop_wave *amddwarf_stop_wave_get(const amddwarf_stop *stop,
                                                              size_t index);

/* Writes the stop as one stop document holding every wave's current state
   (amddwarf_snapshot_save, writes included) and place; loading it gives the
   same waves. *TEXT (NUL-terminated, *SIZE bytes without the NUL) is
   malloc'ed when the stop has no allocator (indexed waves not loaded are
   parsed for the save, and errors of that parse are returned), else allocated with it (release
   with free(user, *TEXT, *SIZE + 1)). Errors: E_INVALID_ARGUMENT,
   E_NO_MEMORY, those of amddwarf_snapshot_save. */
AMDDWARF_API amddwarf_status amddwarf_stop_save(const amddwarf_stop *stop, char **text,
                                                size_t *size, amddwarf_error *err);

AMDDWARF_END_DECLS

#endif
