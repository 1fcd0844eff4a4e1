/* Debug-printf records (specs/gpuav-records.md, "Debug printf records"):
 * the record's argument words handed to the printf renderer, which owns
 * every formatting rule (specs/printf.md, section 4). */
#include <amddwarf/gpuav.h>
#include <amddwarf/printf.h>

#include <string.h>

#include "common/error.h"

amddwarf_status amddwarf_gpuav_printf_render(const char *format,
                                             const amddwarf_gpuav_record *record, char *out,
                                             size_t out_size, size_t *length,
                                             amddwarf_error *err)
{
  if (length)
    *length = 0;
  if (!format || !record || (!out && out_size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "format, record and output are required");
  /* Payload word 0 is the format string's id; the arguments follow. */
  const uint8_t *arguments = record->payload_words > 1 ? record->payload + 4 : NULL;
  size_t size = record->payload_words > 1 ? (size_t)(record->payload_words - 1) * 4 : 0;
  return amddwarf_printf_render_by_length(format, strlen(format), arguments, size, out,
                                          out_size, length, err);
}
