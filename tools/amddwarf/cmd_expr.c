/* amddwarf expr: placeholder until the codec lands. */
#include "cli.h"

int cli_expr_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf expr: unsupported\n");
  return CLI_EXIT_USAGE;
}
