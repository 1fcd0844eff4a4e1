/* amddwarf check: not available in this build yet. */
#include "cli.h"

int cli_check_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf check: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
