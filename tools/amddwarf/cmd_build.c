/* amddwarf build: not available in this build yet. */
#include "cli.h"

int cli_build_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf build: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
