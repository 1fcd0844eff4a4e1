/* amddwarf cfi: not available in this build yet. */
#include "cli.h"

int cli_cfi_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "amddwarf cfi: unsupported: not implemented yet\n");
  return CLI_EXIT_USAGE;
}
