/* amddwarf eval: not available in this build yet. */
#include "cli.h"

int cli_eval_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf eval: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
