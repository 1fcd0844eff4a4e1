/* amddwarf stats: debug-information quality of code objects. */
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"

static const char *const usage = "usage: amddwarf stats OBJECT... [--json]\n";

static json_t *llvm_json(const amddwarf_stats *stats)
{
  json_t *o = json_object();
  for (size_t i = 0; i < amddwarf_stats_llvm_count(stats); ++i) {
    const amddwarf_stats_key *k = amddwarf_stats_llvm_key(stats, i);
    json_object_set_new(o, k->key, k->value == UINT64_MAX ? json_string("overflowed")
                                                         : json_integer((json_int_t)k->value));
  }
  return o;
}

int cli_stats_main(int argc, char **argv)
{
  cli_object_args args = {0};
  for (int i = 1; i < argc; ++i) {
    int taken = cli_object_arg("stats", usage, argc, argv, &i, &args);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    args.path = argv[i];
  }
  amddwarf_object *object = NULL;
  int rc = cli_object_open("stats", &args, &object);
  if (rc != 0)
    return rc;
  amddwarf_stats *stats = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_stats_compute(object, NULL, &stats, &err);
  if (st != AMDDWARF_OK) {
    cli_object_close(&args, object);
    return cli_report_error("stats", args.json, st, &err);
  }
  json_t *root = json_object();
  json_object_set_new(root, "llvm_dwarfdump", llvm_json(stats));
  cli_print_json(root);
  amddwarf_stats_free(stats);
  cli_object_close(&args, object);
  return 0;
}
