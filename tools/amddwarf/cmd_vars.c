/* amddwarf vars: not available in this build yet. */
#include "cli.h"

int cli_vars_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf vars: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
