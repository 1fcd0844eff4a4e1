/* amddwarf printf: not available in this build yet. */
#include "cli.h"

int cli_printf_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf printf: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
