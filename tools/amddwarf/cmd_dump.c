/* amddwarf dump: not available in this build yet. */
#include "cli.h"

int cli_dump_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf dump: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
