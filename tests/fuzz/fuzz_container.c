/* Fuzz target: containers of code objects read from memory (offload
 * bundles, compressed bundles, OffloadBinary images, host ELF sections):
 * listing, then every entry's bytes (decompressing each compressed bundle,
 * hash checked). Every listed entry must be non-empty and its bytes of the
 * listed size, inside the input when it is not compressed. Decompression
 * is limited to 64 MiB so that a hostile header cannot take the memory a
 * real one may. Anything else aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/container.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  amddwarf_container_options options;
  amddwarf_container_options_init(&options);
  options.max_decompressed = (uint64_t)64 << 20;
  amddwarf_container *c = NULL;
  amddwarf_error err;
  if (amddwarf_container_open_memory(data, size, "fuzz", &options, &c, &err) != AMDDWARF_OK) {
    if (c != NULL || strlen(err.message) == 0)
      abort();
    return 0;
  }
  for (size_t i = 0; i < amddwarf_container_count(c); ++i) {
    const amddwarf_container_entry *e = amddwarf_container_entry_at(c, i);
    if (e == NULL || e->index != i || e->size == 0 || e->entry_id == NULL ||
        e->target_id == NULL || e->triple == NULL)
      abort();
    if (!e->compressed && (e->offset > size || e->size > size - e->offset))
      abort();
    const uint8_t *bytes = NULL;
    size_t n = 0;
    amddwarf_status st = amddwarf_container_entry_bytes(c, i, &bytes, &n, &err);
    if (st == AMDDWARF_OK && (n != e->size || bytes == NULL))
      abort();
    if (st == AMDDWARF_OK && !e->compressed && bytes != data + e->offset)
      abort();
    if (st != AMDDWARF_OK && (!e->compressed || strlen(err.message) == 0))
      abort();
  }
  amddwarf_container_close(c);
  return 0;
}
