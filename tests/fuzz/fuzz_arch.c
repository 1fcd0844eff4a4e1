/* Fuzz target: target-ID and e_flags parsing of the architecture queries.
 *
 * The input is a target ID (made NUL-terminated); its first four bytes are
 * also read as e_flags with the fifth as the ABI version. A parsed target ID
 * is printed back with amddwarf_arch_target_id and must parse again to the
 * same processor, features and wave size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 256)
    return 0;
  char text[257];
  memcpy(text, data, size);
  text[size] = '\0';
  amddwarf_arch a, b;
  amddwarf_error err;
  if (amddwarf_arch_from_name(text, &a, &err) == AMDDWARF_OK) {
    char id[128];
    if (amddwarf_arch_target_id(&a, id, sizeof id) != AMDDWARF_OK)
      abort();
    if (amddwarf_arch_from_name(id, &b, &err) != AMDDWARF_OK || strcmp(a.processor, b.processor) != 0 ||
        a.xnack != b.xnack || a.sramecc != b.sramecc || a.wave_size != b.wave_size)
      abort();
  }
  if (size >= 5) {
    uint32_t flags = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                     (uint32_t)data[3] << 24;
    if (amddwarf_arch_from_e_flags(flags, data[4], &a, &err) == AMDDWARF_OK &&
        (a.breakpoint_size != 4 || a.major < 9 || a.major > 12))
      abort();
  }
  return 0;
}
