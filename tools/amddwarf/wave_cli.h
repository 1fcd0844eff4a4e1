/* The wave of a --state snapshot, as the commands that take one (eval,
 * vars, lanes, unwind) open it: the snapshot, the code objects (OBJECT from
 * the command line, or those the snapshot's "code_objects" name by URI,
 * each at its load address) and the debugger layer's wave over them. */
#ifndef AMDDWARF_WAVE_CLI_H
#define AMDDWARF_WAVE_CLI_H

#include "object_cli.h"

typedef struct cli_wave {
  amddwarf_snapshot *snap;
  amddwarf_target raw;            /* the snapshot's target */
  amddwarf_object **objects;      /* COUNT, owned */
  uint8_t **data;                 /* the bytes OBJECTS[i] reads, owned (NULL: none) */
  size_t count;
  /* Where each object is loaded (the snapshot's code_objects), or NULL:
     the snapshot lists none, its PCs are object addresses. */
  uint64_t *load_addresses;
  amddwarf_wave *wave;            /* after cli_wave_start */
} cli_wave;

/* The one place a code object a snapshot lists is opened: ENTRY, one of
   the COUNT listed, from its URI (amddwarf_object_open_uri); or, with PATH
   (a file given on the command line; NULL: none), PATH itself when COUNT
   is 1 and it holds one code object or SELECTION (--target, --object; may
   be NULL) chooses one, else the same offset and size of PATH in place of
   the file a file:// URI names. *DATA receives bytes
   *OBJECT borrows (free after closing it; NULL when the object owns its
   bytes, as it does here). */
amddwarf_status cli_open_listed(const amddwarf_loaded_code_object *entry, size_t count,
                                const char *path, const amddwarf_selection *selection,
                                const amddwarf_object_options *options,
                                amddwarf_object **object, uint8_t **data, amddwarf_error *err);

/* Reads the snapshot STATE and opens its code objects: without a
   "code_objects" list, ARGS->path (required); with one, each listed URI,
   with ARGS->path (when given) read in place of the file the URI names
   (the same offset and size), or ARGS->path alone when it is one code
   object and the list has one entry. Reports errors itself; returns 0 or
   the exit status. Release with cli_wave_close, also after a failure. */
int cli_wave_load(const char *command, cli_object_args *args, const char *state, cli_wave *w);

/* Opens W's wave with OPTIONS (their load addresses and architecture are
   set here from the snapshot). Reports errors (naming each code object's
   URI and load address when the PC lies in none); 0 or the exit status. */
int cli_wave_start(const char *command, bool json, cli_wave *w, amddwarf_wave_options *options);

void cli_wave_close(cli_wave *w);

#endif
