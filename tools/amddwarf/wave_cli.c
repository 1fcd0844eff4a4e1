/* Opening the wave of a --state snapshot over its code objects. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wave_cli.h"

amddwarf_status cli_open_listed(const amddwarf_loaded_code_object *entry, size_t count,
                                const char *path, const amddwarf_selection *selection,
                                const amddwarf_object_options *options,
                                amddwarf_object **object, uint8_t **data, amddwarf_error *err)
{
  *data = NULL;
  if (path == NULL)
    return amddwarf_object_open_uri(entry->uri, options, object, err);
  /* PATH stands for a list of one when it holds one code object (or the
     one SELECTION chooses). */
  int chosen = selection != NULL && (selection->target != NULL || selection->index >= 0);
  if (count == 1 || chosen) {
    amddwarf_status st = amddwarf_object_open_input(path, selection, options, object, err);
    if (st != AMDDWARF_E_CONTAINER_AMBIGUOUS || chosen)
      return st;
  }
  /* Else PATH is read in place of the URI's file: the same range of it. */
  amddwarf_uri uri;
  amddwarf_status st = amddwarf_uri_parse(entry->uri, NULL, &uri, err);
  if (st != AMDDWARF_OK)
    return st;
  if (uri.kind != AMDDWARF_URI_FILE || !uri.has_size) {
    /* Process memory is not in PATH; a URI without a size names its
       whole file. */
    amddwarf_uri_free(&uri, NULL);
    return uri.kind != AMDDWARF_URI_FILE
               ? amddwarf_object_open_uri(entry->uri, options, object, err)
               : amddwarf_object_open_input(path, NULL, options, object, err);
  }
  size_t n = amddwarf_uri_format_file(path, uri.offset, uri.size, NULL, 0);
  char *moved = malloc(n + 1);
  if (moved == NULL)
    st = AMDDWARF_E_NO_MEMORY;
  else {
    amddwarf_uri_format_file(path, uri.offset, uri.size, moved, n + 1);
    st = amddwarf_object_open_uri(moved, options, object, err);
  }
  free(moved);
  amddwarf_uri_free(&uri, NULL);
  return st;
}

/* The snapshot of STATE, loaded into W; 0 or the exit status. */
static int load_snapshot(const char *command, bool json, const char *state, cli_wave *w)
{
  uint8_t *text = NULL;
  size_t size = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  if (cli_read_input(command, json, state, &text, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_status st = amddwarf_snapshot_load((const char *)text, size, NULL, &w->snap, &err);
  free(text);
  if (st != AMDDWARF_OK)
    return cli_report_error(command, json, st, &err);
  amddwarf_snapshot_target(w->snap, &w->raw);
  return 0;
}

int cli_wave_load(const char *command, cli_object_args *args, const char *state, cli_wave *w)
{
  memset(w, 0, sizeof *w);
  int rc = load_snapshot(command, args->json, state, w);
  if (rc != 0)
    return rc;
  size_t listed = 0;
  const amddwarf_loaded_code_object *list = amddwarf_snapshot_code_objects(w->snap, &listed);
  size_t count = list != NULL ? listed : 1;
  if (list == NULL && args->path == NULL)
    return cli_usage_error(command, "missing OBJECT (the snapshot lists no code_objects)");
  if (list != NULL && listed == 0)
    return cli_report(command, args->json, AMDDWARF_E_PC_NOT_LOADED,
                      "the snapshot's code_objects list is empty: no code object is loaded");
  w->objects = calloc(count, sizeof *w->objects);
  w->data = calloc(count, sizeof *w->data);
  if (list != NULL)
    w->load_addresses = calloc(count, sizeof *w->load_addresses);
  if (w->objects == NULL || w->data == NULL || (list != NULL && w->load_addresses == NULL)) {
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    return cli_report_error(command, args->json, AMDDWARF_E_NO_MEMORY, &err);
  }
  w->count = count;
  if (list == NULL) {
    rc = cli_object_open(command, args, &w->objects[0]);
    /* The bytes are the object's now: released with it. */
    w->data[0] = args->data;
    args->data = NULL;
    return rc;
  }
  amddwarf_object_options options;
  amddwarf_selection selection;
  if ((rc = cli_object_options(command, args, &options, &selection)) != 0)
    return rc;
  if ((args->target != NULL || args->object != NULL) && (args->path == NULL || count > 1))
    return cli_usage_error(command, "--target and --object choose the code object of OBJECT "
                           "standing for the snapshot's one listed code object");
  for (size_t i = 0; i < count; ++i) {
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    w->load_addresses[i] = list[i].load_address;
    amddwarf_status st =
        cli_open_listed(&list[i], count, args->path, &selection, &options, &w->objects[i],
                        &w->data[i], &err);
    if (st != AMDDWARF_OK) {
      /* Which listed code object, unless the message names its URI already. */
      if (strstr(err.message, list[i].uri) == NULL) {
        char message[2 * sizeof err.message];
        int n = snprintf(message, sizeof message, "code object %zu (%s): %s", i, list[i].uri,
                         err.message);
        if (n > 0)
          snprintf(err.message, sizeof err.message, "%.*s", (int)(sizeof err.message - 1),
                   message);
      }
      return cli_report_error(command, args->json, st, &err);
    }
  }
  return 0;
}

int cli_wave_start(const char *command, bool json, cli_wave *w, amddwarf_wave_options *options)
{
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  if (w->load_addresses != NULL) {
    options->load_addresses = w->load_addresses;
    options->architecture = amddwarf_snapshot_architecture(w->snap);
  }
  amddwarf_status st = amddwarf_wave_open((const amddwarf_object *const *)w->objects, w->count,
                                          &w->raw, options, &w->wave, &err);
  if (st == AMDDWARF_OK)
    return 0;
  int rc = cli_report_error(command, json, st, &err);
  if (st == AMDDWARF_E_PC_NOT_LOADED && !json) {
    size_t listed = 0;
    const amddwarf_loaded_code_object *list = amddwarf_snapshot_code_objects(w->snap, &listed);
    for (size_t i = 0; i < listed; ++i)
      fprintf(stderr, "amddwarf %s: note: code object %zu is %s at 0x%" PRIx64 "\n", command,
              i, list[i].uri, list[i].load_address);
  }
  return rc;
}

void cli_wave_close(cli_wave *w)
{
  amddwarf_wave_close(w->wave);
  for (size_t i = 0; i < w->count; ++i) {
    amddwarf_object_close(w->objects[i]);
    free(w->data[i]);
  }
  free(w->objects);
  free(w->data);
  free(w->load_addresses);
  amddwarf_snapshot_free(w->snap);
  memset(w, 0, sizeof *w);
}
