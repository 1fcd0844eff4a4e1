/* Fuzz target for the JSON build description: parsing, the builders it
 * drives (expressions in assembler text with @names, types, scopes, location
 * lists, lane-PC regions, CFI) and the ELF writer. Everything is in memory
 * (libelf writes through an anonymous temporary file) and released before
 * returning. */
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/produce.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint8_t *object = NULL;
  size_t object_size = 0;
  amddwarf_error err;
  if (amddwarf_build_json((const char *)data, size, NULL, &object, &object_size, &err) ==
      AMDDWARF_OK)
    amddwarf_produce_free_bytes(NULL, object, object_size);
  return 0;
}
