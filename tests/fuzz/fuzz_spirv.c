/* Fuzz target of the SPIR-V module reader and resolver: open the input as a
 * module (with a small instruction limit), then resolve every index in both
 * counting modes and check the location's invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/spirv.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* Borrowing: used in place when aligned, copied otherwise. */
  amddwarf_spirv_options options = {sizeof(options), NULL, 1 << 16, AMDDWARF_SPIRV_OPEN_BORROW};
  amddwarf_spirv_module *module = NULL;
  amddwarf_error err;
  if (amddwarf_spirv_module_open(data, size, &options, &module, &err) != AMDDWARF_OK)
    return 0;
  uint32_t count = amddwarf_spirv_module_instruction_count(module);
  for (int mode = 0; mode < 2; mode++) {
    uint32_t limit = amddwarf_spirv_module_index_limit(module, (amddwarf_spirv_index_mode)mode);
    for (uint32_t i = 0; i <= limit && i < 4096; i++) {
      amddwarf_spirv_location loc;
      amddwarf_status st =
          amddwarf_spirv_module_resolve(module, i, (amddwarf_spirv_index_mode)mode, &loc, &err);
      if (st == AMDDWARF_NOT_FOUND)
        continue;
      if (st != AMDDWARF_OK || loc.position >= count || loc.word_offset * 4 >= size)
        abort();
      if (loc.source_line && loc.source_line_length > 0 &&
          memchr(loc.source_line, '\n', loc.source_line_length))
        abort();
      if (loc.file)
        (void)strlen(loc.file);
    }
  }
  /* The #line rule on the raw input as text. */
  const char *start;
  size_t length;
  uint32_t text_line;
  (void)amddwarf_spirv_find_source_line((const char *)data, size, "a", 3, &start, &length,
                                        &text_line);
  amddwarf_spirv_module_close(module);
  return 0;
}
