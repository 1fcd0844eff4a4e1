/* amddwarf printf-build: write PAL format-string metadata, an ELF carrying
 * it, and printf buffers from a JSON description. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char command[] = "printf-build";

static void print_help(void)
{
  printf("Usage: amddwarf printf-build DESCRIPTION.json [--metadata OUT.msgpack]\n"
         "                             [--elf OUT.elf] [--buffer OUT.bin]\n"
         "\n"
         "Writes what a pipeline compiler and its shaders would have written for\n"
         "debug printf, from a JSON description (full format in specs/printf.md):\n"
         "\n"
         "  {\"strings\": [{\"id\": 4660, \"format\": \"x=%%d y=%%f\\n\", \"args\": [\"i32\", \"f32\"]}],\n"
         "   \"buffer\":  {\"entries\": [{\"id\": 4660, \"args\": [{\"i32\": -5}, {\"f32\": 1.5}]}]}}\n"
         "\n"
         "Outputs:\n"
         "  --metadata FILE  the PAL metadata MessagePack document holding\n"
         "                   amdpal.format_strings (from \"strings\")\n"
         "  --elf FILE       a minimal AMDGPU ELF whose NT_AMDGPU_METADATA note holds\n"
         "                   that document (llvm-readelf --notes shows it)\n"
         "  --buffer FILE    the printf buffer: header and entries (from \"buffer\"),\n"
         "                   arguments packed as DebugPrintf packs them\n"
         "Each file written is reported as \"wrote FILE (N bytes)\".\n"
         "\n"
         "example: amddwarf printf-build desc.json --elf meta.elf --buffer buf.bin\n"
         "         amddwarf printf --elf meta.elf --buffer buf.bin\n"
         "\n"
         "Exit status: 0 written, 1 bad description or write error, 2 bad usage.\n");
}

static int write_output(const char *path, const uint8_t *data, size_t size, const char *what)
{
  if (!data) {
    return cli_report(command, false, AMDDWARF_E_INVALID_ARGUMENT,
                      "the description has no \"%s\" to write to %s", what, path);
  }
  if (cli_write_file(command, false, path, data, size) != 0)
    return CLI_EXIT_BAD_INPUT;
  printf("wrote %s (%zu bytes)\n", path, size);
  return CLI_EXIT_OK;
}

int cli_printf_build_main(int argc, char **argv)
{
  const char *description = NULL, *metadata = NULL, *elf = NULL, *buffer = NULL;
  const cli_option options[] = {
      CLI_VALUE("--metadata", &metadata), CLI_VALUE("--elf", &elf), CLI_VALUE("--buffer", &buffer)};
  int scanned = cli_scan_single(command, argc, argv, print_help, CLI_OPTIONS(options),
                                "description", &description);
  if (scanned >= 0)
    return scanned;
  if (!description)
    return cli_usage_error(command, "a DESCRIPTION.json is required");
  if (!metadata && !elf && !buffer)
    return cli_usage_error(command, "nothing to write: give --metadata, --elf or --buffer");
  uint8_t *text = NULL;
  size_t size = 0;
  if (cli_read_file(command, description, &text, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_printf_build_output out;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status status = amddwarf_printf_build_json((const char *)text, size, NULL, &out, &err);
  free(text);
  if (status != AMDDWARF_OK)
    return cli_report_error(command, false, status, &err);
  int result = CLI_EXIT_OK;
  if (metadata && result == CLI_EXIT_OK)
    result = write_output(metadata, out.metadata, out.metadata_size, "strings");
  if (elf && result == CLI_EXIT_OK)
    result = write_output(elf, out.elf, out.elf_size, "strings");
  if (buffer && result == CLI_EXIT_OK)
    result = write_output(buffer, out.buffer, out.buffer_size, "buffer");
  amddwarf_printf_build_free(&out);
  return result;
}
