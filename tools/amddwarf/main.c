/* amddwarf: the command-line tool. Dispatches to the subcommands listed in
 * commands.def; each lives in a file of its own. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
#define AMDDWARF_COMMAND(id, name, function, summary) {name, function, summary},
#include "commands.def"
#undef AMDDWARF_COMMAND
};

static void print_help(FILE *out)
{
  fprintf(out,
          "Usage: amddwarf COMMAND [OPTIONS] [ARGS]\n"
          "\n"
          "Reads, evaluates, checks and produces AMDGPU DWARF: expressions with the\n"
          "DW_OP_LLVM_* extensions, locations of variables for any lane of a wave,\n"
          "call frames, SPIR-V source lines and GPU debug buffers.\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fprintf(out,
          "\n"
          "Examples:\n"
          "  amddwarf eval kernel.o --state wave.json --lanes 0-3 s.x\n"
          "  amddwarf lanes kernel.o --state wave.json\n"
          "  amddwarf expr decode 90 81 14 e9 03\n"
          "\n"
          "'amddwarf COMMAND --help' describes a command and its options.\n"
          "Exit status: 0 success, 1 bad input or problems found, 2 bad usage.\n");
}

static void print_version(void)
{
  printf("amddwarf %s\n", amddwarf_version());
#ifdef AMDDWARF_WITH_DISASM
  printf("disassembler: LLVM C API (AMDGPU)\n");
#else
  printf("disassembler: not built (LLVM development files were not found)\n");
#endif
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    print_help(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (cli_is_flag(name, "--help") || cli_is_flag(name, "-h") || cli_is_flag(name, "help")) {
    if (argc > 2 && strcmp(name, "help") == 0) {
      char help_flag[] = "--help";
      char *help_argv[] = {argv[2], help_flag, NULL};
      for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, argv[2]) == 0)
          return commands[i].run(2, help_argv);
      fprintf(stderr, "amddwarf: unknown command '%s'\n", argv[2]);
      return CLI_EXIT_USAGE;
    }
    print_help(stdout);
    return CLI_EXIT_OK;
  }
  if (cli_is_flag(name, "--version")) {
    print_version();
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "amddwarf: unknown command '%s'\nTry 'amddwarf --help'.\n", name);
  return CLI_EXIT_USAGE;
}
