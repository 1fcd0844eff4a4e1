/* amddwarf spirv-line: not available in this build yet. */
#include "cli.h"

int cli_spirv_line_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf spirv-line: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
