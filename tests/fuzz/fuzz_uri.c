/* Fuzz target: code-object URIs, target IDs and bundle entry IDs.
 *
 * The input (cut at its first NUL) is read three ways. A URI that parses
 * formats back (file URIs with offset and size) to a URI that parses to the
 * same path and numbers; a target ID that parses spells back to one that
 * parses to the same ID; an entry ID that splits has parts inside it that
 * cover it. Every error names an offset inside the text (or none) and has a
 * message. Anything else aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/container.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_uri(const char *text, size_t length)
{
  amddwarf_uri uri, again;
  amddwarf_error err;
  if (amddwarf_uri_parse(text, NULL, &uri, &err) != AMDDWARF_OK) {
    if (uri.path != NULL || err.message[0] == 0 ||
        (err.offset != AMDDWARF_NO_OFFSET && err.offset > length))
      abort();
    return;
  }
  if (uri.kind == AMDDWARF_URI_FILE) {
    size_t n = amddwarf_uri_format_file(uri.path, uri.offset, uri.size, NULL, 0);
    char *formatted = malloc(n + 1);
    if (formatted == NULL)
      abort();
    if (amddwarf_uri_format_file(uri.path, uri.offset, uri.size, formatted, n + 1) != n ||
        strlen(formatted) != n)
      abort();
    if (amddwarf_uri_parse(formatted, NULL, &again, &err) != AMDDWARF_OK ||
        strcmp(again.path, uri.path) != 0 || again.offset != uri.offset ||
        again.size != uri.size)
      abort();
    amddwarf_uri_free(&again, NULL);
    free(formatted);
  }
  amddwarf_uri_free(&uri, NULL);
}

static void check_target_id(const char *text, size_t length)
{
  amddwarf_target_id id, again;
  amddwarf_error err;
  if (amddwarf_target_id_parse(text, length, &id, &err) != AMDDWARF_OK) {
    if (err.message[0] == 0 || (err.offset != AMDDWARF_NO_OFFSET && err.offset > length))
      abort();
    return;
  }
  char spelled[128];
  size_t n = amddwarf_target_id_format(&id, spelled, sizeof spelled);
  if (n >= sizeof spelled || amddwarf_target_id_parse(spelled, n, &again, NULL) != AMDDWARF_OK ||
      memcmp(&id, &again, sizeof id) != 0 || !amddwarf_target_id_matches(&id, &again))
    abort();
}

static void check_entry_id(const char *text, size_t length)
{
  amddwarf_entry_id_parts parts;
  if (amddwarf_entry_id_split(text, length, &parts, NULL) != AMDDWARF_OK)
    return;
  if (parts.kind != text || parts.triple < text || parts.triple + parts.triple_size > text + length ||
      parts.target_id < text || parts.target_id + parts.target_id_size != text + length ||
      parts.kind_size == 0 || parts.triple_size == 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = 0;
  size_t length = strlen(text);
  check_uri(text, length);
  check_target_id(text, length);
  check_entry_id(text, length);
  free(text);
  return 0;
}
