/* Fuzz target of the debug output record decoder: parse the input as a
 * buffer in every format, scan all records, render each as a validation
 * message and as a printf record, read it again with the streaming reader
 * and its end checks, and decode it as a descriptor input buffer in every
 * layout. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/gpuav.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char text[256];
  for (int f = 0; f <= 3; f++) {
    amddwarf_gpuav_buffer buffer;
    amddwarf_error err;
    if (amddwarf_gpuav_buffer_parse(data, size, (amddwarf_gpuav_format)f, &buffer, &err) !=
        AMDDWARF_OK)
      continue;
    uint32_t cursor = 0, previous = 0;
    for (int n = 0; n < 100000; n++) {
      amddwarf_gpuav_record record;
      if (amddwarf_gpuav_buffer_next(data, size, &buffer, &cursor, &record, &err) != AMDDWARF_OK)
        break;
      if (n > 0 && cursor <= previous)
        abort(); /* the scan always advances */
      previous = cursor;
      amddwarf_spirv_location loc;
      memset(&loc, 0, sizeof(loc));
      loc.has_line = (record.size & 1) != 0;
      loc.line = record.instruction_index;
      size_t need = amddwarf_gpuav_describe(&buffer, &record, "m", &loc, text, sizeof(text));
      if (strlen(text) != (need < sizeof(text) ? need : sizeof(text) - 1))
        abort();
      char format[64];
      size_t k = 0;
      for (; k + 1 < sizeof(format) && k < record.payload_words * 4 && k < 40; k++)
        format[k] = (char)(record.payload[k] ? record.payload[k] : '%');
      format[k] = '\0';
      amddwarf_status rendered =
          amddwarf_gpuav_printf_render(format, &record, text, sizeof(text), &need, NULL);
      if ((rendered == AMDDWARF_OK && need >= sizeof(text)) ||
          (rendered == AMDDWARF_E_NO_SPACE && need < sizeof(text)))
        abort();
    }
  }
  for (int f = 0; f <= 3; f++) {
    amddwarf_gpuav_reader *reader = NULL;
    if (amddwarf_gpuav_reader_open_memory(data, size, (amddwarf_gpuav_format)f, NULL, &reader,
                                          NULL) != AMDDWARF_OK)
      continue;
    amddwarf_gpuav_record record;
    uint32_t previous = 0;
    int n = 0;
    while (amddwarf_gpuav_reader_next(reader, &record, NULL) == AMDDWARF_OK) {
      if (n++ > 0 && amddwarf_gpuav_reader_position(reader) <= previous)
        abort(); /* the scan always advances */
      previous = amddwarf_gpuav_reader_position(reader);
    }
    (void)amddwarf_gpuav_reader_finish(reader, NULL);
    amddwarf_gpuav_reader_close(reader);
  }
  amddwarf_gpuav_descriptor rows[16];
  size_t count;
  for (int l = 0; l <= 3; l++)
    (void)amddwarf_gpuav_input_buffer_decode_layout(data, size, (amddwarf_gpuav_input_layout)l,
                                                    rows, 16, &count, NULL, NULL);
  return 0;
}
