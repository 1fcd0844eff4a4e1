/* amddwarf lines: not available in this build yet. */
#include "cli.h"

int cli_lines_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf lines: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
