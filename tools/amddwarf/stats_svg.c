/* amddwarf stats --svg: each function a horizontal band over its PC range,
 * one row per variable coloured by location kind, gaps where the variable
 * has no location, inlined subroutines marked under the function's name.
 * The geometry is fixed (specs/stats.md, "The picture") so that a test can
 * find a segment's pixels from its addresses. */
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

static const amddwarf_stats_function *find_match(const amddwarf_stats *stats,
                                                 const amddwarf_stats_function *fn)
{
  for (size_t i = 0; i < amddwarf_stats_function_count(stats); ++i) {
    const amddwarf_stats_function *g = amddwarf_stats_function_at(stats, i);
    if (strcmp(g->name, fn->name) == 0 && g->decl_line == fn->decl_line)
      return g;
  }
  return NULL;
}

void cli_stats_svg(FILE *out, const stats_input *input, const stats_input *new_input)
{
  const amddwarf_stats *base = input->stats;
  size_t n = amddwarf_stats_function_count(base);
  int height = 0;
  for (size_t i = 0; i < n; ++i) {
    const amddwarf_stats_function *fn = amddwarf_stats_function_at(base, i);
    height += band_height(fn);
    if (new_input != NULL) {
      const amddwarf_stats_function *g = find_match(new_input->stats, fn);
      height += g != NULL ? band_height(g) : SVG_TITLE + SVG_GAP;
    }
  }
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\">\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
          "fill=\"#ffffff\"/>\n",
          SVG_WIDTH, height > 0 ? height : 1, SVG_WIDTH, height > 0 ? height : 1, SVG_WIDTH,
          height > 0 ? height : 1);
  int y = 0;
  for (size_t i = 0; i < n; ++i) {
    const amddwarf_stats_function *fn = amddwarf_stats_function_at(base, i);
    y += draw_band(out, fn, new_input != NULL ? "base" : NULL, y);
    if (new_input == NULL)
      continue;
    const amddwarf_stats_function *g = find_match(new_input->stats, fn);
    if (g != NULL) {
      y += draw_band(out, g, "new", y);
    } else {
      fprintf(out, "<text x=\"4\" y=\"%d\" font-size=\"12\">new: ", y + 14);
      xml_text(out, fn->name);
      fputs(" (no such function)</text>\n", out);
      y += SVG_TITLE + SVG_GAP;
    }
  }
  fputs("</svg>\n", out);
}
