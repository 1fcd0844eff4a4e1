/* amddwarf lanes: not available in this build yet. */
#include "cli.h"

int cli_lanes_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf lanes: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
