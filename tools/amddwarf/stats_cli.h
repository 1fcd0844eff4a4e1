/* amddwarf stats: what its files share (cmd_stats.c prints text and JSON,
 * stats_svg.c draws the picture). */
#ifndef AMDDWARF_STATS_CLI_H
#define AMDDWARF_STATS_CLI_H

#include <stdio.h>

#include <amddwarf/stats.h>

/* One object's statistics, as opened for the command. */
typedef struct stats_input {
  const char *path;
  amddwarf_stats *stats;
} stats_input;

/* Writes the picture of INPUT (one band per function) to OUT; with NEW
   (diff mode) each function's BASE band is drawn above its NEW band.
   Layout in specs/stats.md, "The picture". */
int cli_stats_svg(FILE *out, const stats_input *input, const stats_input *new_input);

#endif
