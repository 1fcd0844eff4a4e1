/* Fuzz target of the C++ name rules (src/object/demangle.c): the input is a
 * name a user types and, after a NUL byte, a symbol name. The symbol is put
 * in a built code object next to a few fixed C++ symbols; the input name is
 * demangled, looked up among them (amddwarf_object_find_functions) and its
 * nearest names listed (amddwarf_object_suggest_functions); every symbol's
 * display name is made. A symbol the look-up finds must be one of the
 * object's, a demangled name as long as its reported length allows. (A
 * symbol name that is not UTF-8 cannot be written in the build description:
 * the object is then built without it.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <amddwarf/object.h>
#include <amddwarf/produce.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_NAME = 512 };

/* The object with SYMBOL among the fixed symbols; NULL when it cannot be built. */
static amddwarf_object *object_with(const char *symbol, uint8_t **image, size_t *image_size)
{
  static const char *const fixed[] = {"_Z4stepP8ParticlePfif", "_Z4stepi",
                                      "_ZN2ns6SolverIiE5solveEv", "plain_c"};
  json_t *root = json_pack("{s:{s:i,s:i},s:{s:s,s:s,s:i},s:[]}", "dwarf", "version", 5,
                           "wave_size", 64, "object", "type", "shared", "processor", "gfx90a",
                           "text_size", 320, "symbols");
  json_t *symbols = json_object_get(root, "symbols");
  for (size_t i = 0; i < 4; ++i)
    json_array_append_new(symbols, json_pack("{s:s,s:i,s:i}", "name", fixed[i], "offset",
                                             (int)(64 * i), "size", 64));
  json_array_append_new(symbols, json_pack("{s:s,s:i,s:i}", "name", symbol, "offset", 256,
                                           "size", 64));
  char *text = json_dumps(root, 0);
  json_decref(root);
  amddwarf_object *object = NULL;
  if (text != NULL &&
      amddwarf_build_json(text, strlen(text), NULL, image, image_size, NULL) == AMDDWARF_OK &&
      amddwarf_object_open_memory(*image, *image_size, NULL, &object, NULL) != AMDDWARF_OK)
    object = NULL;
  free(text);
  return object;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char name[MAX_NAME + 1], symbol[MAX_NAME + 1] = "fuzzed";
  size_t n = 0;
  while (n < size && n < MAX_NAME && data[n] != 0)
    ++n;
  memcpy(name, data, n);
  name[n] = '\0';
  if (n < size && data[n] == 0) {
    size_t m = 0;
    while (n + 1 + m < size && m < MAX_NAME && data[n + 1 + m] != 0)
      ++m;
    if (m > 0) {
      memcpy(symbol, data + n + 1, m);
      symbol[m] = '\0';
    }
  }
  char demangled[64];
  size_t length = 0;
  if (amddwarf_demangle(name, demangled, sizeof demangled, &length) == AMDDWARF_OK &&
      strlen(demangled) != (length < sizeof demangled ? length : sizeof demangled - 1))
    abort();
  uint8_t *image = NULL;
  size_t image_size = 0;
  amddwarf_object *object = object_with(symbol, &image, &image_size);
  if (object != NULL) {
    const amddwarf_symbol *found[AMDDWARF_MAX_SUGGESTIONS];
    size_t count = 0;
    if (amddwarf_object_find_functions(object, name, found, AMDDWARF_MAX_SUGGESTIONS, &count) ==
        AMDDWARF_OK) {
      for (size_t i = 0; i < count && i < AMDDWARF_MAX_SUGGESTIONS; ++i)
        if (found[i] < amddwarf_object_symbol(object, 0) ||
            found[i] > amddwarf_object_symbol(object, amddwarf_object_symbol_count(object) - 1))
          abort();
    }
    size_t near = amddwarf_object_suggest_functions(object, name, found, AMDDWARF_MAX_SUGGESTIONS);
    if (near > AMDDWARF_MAX_SUGGESTIONS)
      abort();
    for (size_t i = 0; i < amddwarf_object_symbol_count(object); ++i)
      (void)amddwarf_object_symbol_name(object, amddwarf_object_symbol(object, i));
    amddwarf_object_close(object);
  }
  amddwarf_produce_free_bytes(NULL, image, image_size);
  return 0;
}
