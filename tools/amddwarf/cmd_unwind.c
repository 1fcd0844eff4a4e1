/* amddwarf unwind: not available in this build yet. */
#include "cli.h"

int cli_unwind_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf unwind: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
