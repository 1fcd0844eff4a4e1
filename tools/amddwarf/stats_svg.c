/* amddwarf stats --svg: each function a horizontal band over its PC range,
 * one row per variable coloured by location kind, gaps where the variable
 * has no location, inlined subroutines marked under the function's name.
 * With --diff, BASE's band above NEW's; a function one build lacks gets a
 * grey title row on that side (BASE-only ones in BASE's order, NEW-only
 * ones after them).
 * The geometry is fixed (specs/stats.md, "The picture") so that a test can
 * find a segment's pixels from its addresses. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats_cli.h"

enum {
  SVG_WIDTH = 1000,
  SVG_LEFT = 200,      /* the bands start here; names are written left of it */
  SVG_BAND = 780,      /* width of a band: the function's PC range */
  SVG_TITLE = 20,      /* a function's title row */
  SVG_ROW = 12,        /* a variable's row; its bar is SVG_BAR high */
  SVG_BAR = 10,
  SVG_GAP = 8,         /* after each band */
};
/* the bar of a title row whose function the other build lacks */
#define SVG_MISSING_COLOUR "#bbbbbb"

static void xml_text(FILE *out, const char *s)
{
  for (; s != NULL && *s; ++s) {
    switch (*s) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out); break;
    }
  }
}

/* The span of FN's PC ranges. */
static void fn_span(const amddwarf_stats_function *fn, uint64_t *low, uint64_t *high)
{
  *low = UINT64_MAX;
  *high = 0;
  for (size_t i = 0; i < fn->range_count; ++i) {
    if (fn->ranges[i].low < *low)
      *low = fn->ranges[i].low;
    if (fn->ranges[i].high > *high)
      *high = fn->ranges[i].high;
  }
}

static double x_of(uint64_t pc, uint64_t low, uint64_t high)
{
  if (high <= low)
    return (double)SVG_LEFT;
  if (pc < low)
    pc = low;
  if (pc > high)
    pc = high;
  return (double)SVG_LEFT + (double)(pc - low) * (double)SVG_BAND / (double)(high - low);
}

static int band_height(const amddwarf_stats_function *fn)
{
  return SVG_TITLE + (int)fn->var_count * SVG_ROW + SVG_GAP;
}

/* One band at Y; returns the height used. */
static int draw_band(FILE *out, const amddwarf_stats_function *fn, const char *label, int y)
{
  uint64_t low, high;
  fn_span(fn, &low, &high);
  fprintf(out, "<text x=\"4\" y=\"%d\" font-size=\"12\">", y + 14);
  if (label != NULL)
    fprintf(out, "%s: ", label);
  xml_text(out, fn->name);
  fprintf(out, " (%s)</text>\n", fn->is_kernel ? "kernel" : "device");
  /* the function's own range, a thin line; its inlined subroutines below it */
  for (size_t i = 0; i < fn->range_count; ++i)
    fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"2\" fill=\"#000000\"/>\n",
            x_of(fn->ranges[i].low, low, high), y + 6,
            x_of(fn->ranges[i].high, low, high) - x_of(fn->ranges[i].low, low, high));
  for (size_t i = 0; i < fn->inlined_count; ++i)
    fprintf(out,
            "<rect class=\"inlined\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"6\" "
            "fill=\"#ffbb00\"/>\n",
            x_of(fn->inlined[i].low, low, high), y + 10,
            x_of(fn->inlined[i].high, low, high) - x_of(fn->inlined[i].low, low, high));
  int row = y + SVG_TITLE;
  for (size_t v = 0; fn->vars != NULL && v < fn->var_count; ++v, row += SVG_ROW) {
    const amddwarf_stats_var *var = &fn->vars[v];
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">", SVG_LEFT - 4,
            row + 9);
    xml_text(out, var->name);
    if (var->inlined_from != NULL) {
      fputs(" [", out);
      xml_text(out, var->inlined_from);
      fputc(']', out);
    }
    fputs("</text>\n", out);
    for (size_t s = 0; s < var->segment_count; ++s) {
      const amddwarf_stats_segment *seg = &var->segments[s];
      double x0 = x_of(seg->low, low, high), x1 = x_of(seg->high, low, high);
      fprintf(out,
              "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
              "<title>%s [0x%llx, 0x%llx)</title></rect>\n",
              x0, row, x1 - x0, SVG_BAR, amddwarf_loc_kind_colour((amddwarf_loc_kind)seg->kind),
              amddwarf_loc_kind_name((amddwarf_loc_kind)seg->kind),
              (unsigned long long)seg->low, (unsigned long long)seg->high);
    }
  }
  return band_height(fn);
}

/* A title row for the side a function is missing from: its name, and a
   grey bar over the whole band. Returns the height used. */
static int draw_missing(FILE *out, const amddwarf_stats_function *fn, const char *label, int y)
{
  fprintf(out, "<text x=\"4\" y=\"%d\" font-size=\"12\">%s: ", y + 14, label);
  xml_text(out, fn->name);
  fputs(" (no such function)</text>\n", out);
  fprintf(out,
          "<rect class=\"missing\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"6\" "
          "fill=\"" SVG_MISSING_COLOUR "\"/>\n",
          SVG_LEFT, y + 4, SVG_BAND);
  return SVG_TITLE + SVG_GAP;
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* The function of STATS that FN is, as the diff matches them (name,
   declaration file's base name and line), not yet TAKEN; or SIZE_MAX. */
static size_t find_match(const amddwarf_stats *stats, const amddwarf_stats_function *fn,
                         const bool *taken)
{
  for (size_t i = 0; i < amddwarf_stats_function_count(stats); ++i) {
    const amddwarf_stats_function *g = amddwarf_stats_function_at(stats, i);
    if (!taken[i] && strcmp(g->name, fn->name) == 0 && g->decl_line == fn->decl_line &&
        strcmp(base_name(g->decl_file), base_name(fn->decl_file)) == 0)
      return i;
  }
  return SIZE_MAX;
}

/* The rows of the picture, in order: each BASE function with its NEW
   match under it (or a missing row), then each NEW function that matched
   none, a missing row above it. Returns the height; writes only with
   WRITE. TAKEN: one flag per NEW function. */
static int draw_all(FILE *out, const amddwarf_stats *base, const amddwarf_stats *new_stats,
                    bool *taken, bool write)
{
  size_t n = amddwarf_stats_function_count(base);
  size_t m = new_stats != NULL ? amddwarf_stats_function_count(new_stats) : 0;
  for (size_t i = 0; i < m; ++i)
    taken[i] = false;
  int y = 0;
  for (size_t i = 0; i < n; ++i) {
    const amddwarf_stats_function *fn = amddwarf_stats_function_at(base, i);
    y += write ? draw_band(out, fn, new_stats != NULL ? "base" : NULL, y) : band_height(fn);
    if (new_stats == NULL)
      continue;
    size_t k = find_match(new_stats, fn, taken);
    if (k != SIZE_MAX) {
      taken[k] = true;
      const amddwarf_stats_function *g = amddwarf_stats_function_at(new_stats, k);
      y += write ? draw_band(out, g, "new", y) : band_height(g);
    } else {
      y += write ? draw_missing(out, fn, "new", y) : SVG_TITLE + SVG_GAP;
    }
  }
  for (size_t k = 0; k < m; ++k) {
    if (taken[k])
      continue;
    const amddwarf_stats_function *g = amddwarf_stats_function_at(new_stats, k);
    y += write ? draw_missing(out, g, "base", y) : SVG_TITLE + SVG_GAP;
    y += write ? draw_band(out, g, "new", y) : band_height(g);
  }
  return y;
}

int cli_stats_svg(FILE *out, const stats_input *input, const stats_input *new_input)
{
  const amddwarf_stats *base = input->stats;
  const amddwarf_stats *new_stats = new_input != NULL ? new_input->stats : NULL;
  size_t m = new_stats != NULL ? amddwarf_stats_function_count(new_stats) : 0;
  bool *taken = calloc(m ? m : 1, sizeof *taken);
  if (taken == NULL)
    return -1;
  int height = draw_all(out, base, new_stats, taken, false);
  if (height <= 0)
    height = 1;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\">\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
          "fill=\"#ffffff\"/>\n",
          SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH, height);
  (void)draw_all(out, base, new_stats, taken, true);
  fputs("</svg>\n", out);
  free(taken);
  return 0;
}
