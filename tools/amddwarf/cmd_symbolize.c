/* amddwarf symbolize: not available in this build yet. */
#include "cli.h"

int cli_symbolize_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf symbolize: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
