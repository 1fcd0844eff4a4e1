/* Snapshot-backed target: a JSON wave state (format: specs/snapshot.md)
 * serving the target interface of <amddwarf/target.h>, for the CLI, tests,
 * fuzzing and benchmarks.
 *
 * A snapshot owns copies of everything it loaded; writes through its target
 * change those copies (so assignment can be tested). Reads through its
 * target may run on several threads at once (a stop's wave decodes a memory
 * region on its first read, under a lock: specs/stop.md); a write must not
 * run alongside another access. */
#ifndef AMDDWARF_SNAPSHOT_H
#define AMDDWARF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>
#include <amddwarf/target.h>

AMDDWARF_BEGIN_DECLS

typedef struct amddwarf_snapshot amddwarf_snapshot;

/* Parses the JSON document TEXT (SIZE bytes). ALLOCATOR may be NULL.
   Errors: AMDDWARF_E_BAD_JSON (not JSON; ERR.offset is the byte position),
   AMDDWARF_E_SNAPSHOT_SCHEMA (a member has the wrong type or value; the
   message names it), AMDDWARF_E_SNAPSHOT_UNKNOWN_REGISTER, E_NO_MEMORY,
   E_LIMIT (more than 1 GiB of memory contents). */
AMDDWARF_API amddwarf_status amddwarf_snapshot_load(const char *text, size_t size,
                                                    const amddwarf_allocator *allocator,
                                                    amddwarf_snapshot **out,
                                                    amddwarf_error *err);

/* Releases SNAPSHOT (may be NULL); targets made from it become invalid. */
AMDDWARF_API void amddwarf_snapshot_free(amddwarf_snapshot *snapshot);

/* Fills *TARGET with callbacks reading and writing SNAPSHOT (valid until
   amddwarf_snapshot_free). Every callback but register_size (the AMDGPU map
   applies) and apertures (NULL when the snapshot has none, so generic
   addresses are read as global) is provided; those whose data the snapshot
   lacks return AMDDWARF_E_UNSUPPORTED. */
AMDDWARF_API void amddwarf_snapshot_target(amddwarf_snapshot *snapshot,
                                           amddwarf_target *target);

/* Writes SNAPSHOT as a JSON document (specs/snapshot.md, "Saving") holding
   its current state, writes through its target included, which
   amddwarf_snapshot_load reads back to the same state; saving what that load
   gives reproduces the document byte for byte. Expressions are written as
   {"hex": ...}. *TEXT receives the NUL-terminated document and *SIZE its
   length without the NUL. *TEXT is allocated with the allocator given to
   amddwarf_snapshot_load: with none (NULL), release it with free(); with
   one, with that allocator's free(user, *TEXT, *SIZE + 1). It is the
   caller's and outlives SNAPSHOT. On error *TEXT is NULL and *SIZE 0.
   Errors: E_INVALID_ARGUMENT (a NULL argument), E_NO_MEMORY (also when the
   document would not fit in half the address space). */
AMDDWARF_API amddwarf_status amddwarf_snapshot_save(const amddwarf_snapshot *snapshot,
                                                    char **text, size_t *size,
                                                    amddwarf_error *err);

/* Facts of the snapshot. */
AMDDWARF_API uint32_t amddwarf_snapshot_wave_size(const amddwarf_snapshot *snapshot);
AMDDWARF_API uint32_t amddwarf_snapshot_lane(const amddwarf_snapshot *snapshot);
/* Address bytes of the process (8 or 4). */
AMDDWARF_API uint32_t amddwarf_snapshot_address_size(const amddwarf_snapshot *snapshot);
/* The processor name from "architecture", or "" when absent (static or owned by SNAPSHOT). */
AMDDWARF_API const char *amddwarf_snapshot_architecture(const amddwarf_snapshot *snapshot);
/* The wave's PC: the PC_64 register (DWARF 16), which "pc" sets unless
   "registers" gives it; into *PC (may be NULL). AMDDWARF_NOT_FOUND when the
   snapshot has neither (a debugger must be told where the wave is). */
AMDDWARF_API amddwarf_status amddwarf_snapshot_pc(const amddwarf_snapshot *snapshot,
                                                  uint64_t *pc);

/* The loaded code objects of the process, as amd-dbgapi reports them
   (member "code_objects", specs/snapshot.md): the code object's URI
   ("file://PATH#offset=N&size=M") and its load address. With them the
   snapshot's PCs are process addresses. */
typedef struct amddwarf_loaded_code_object {
  const char *uri;               /* NUL-terminated, owned by the snapshot */
  uint64_t load_address;
} amddwarf_loaded_code_object;

enum { AMDDWARF_SNAPSHOT_MAX_CODE_OBJECTS = 1 << 16 };

/* The snapshot's code objects: *COUNT of them, valid until
   amddwarf_snapshot_free; NULL (and *COUNT 0) when it lists none (its PCs
   are then object addresses). */
AMDDWARF_API const amddwarf_loaded_code_object *
amddwarf_snapshot_code_objects(const amddwarf_snapshot *snapshot, size_t *count);

AMDDWARF_END_DECLS

#endif
