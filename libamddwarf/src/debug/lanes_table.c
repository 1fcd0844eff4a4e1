/* The lanes of a wave as a debugger's `lanes` command shows them
 * (debug.h): which lanes are active, then the lanes grouped by PC with the
 * source line and function of each PC. */
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "debug/debug_internal.h"

static amddwarf_status render(amddwarf_wave *w, const amddwarf_lanes *lanes, amddwarf_text *out)
{
  amddwarf__text_printf(out, "wave%u at pc 0x%llx; active lanes from %s, lane PCs from %s\n",
                       lanes->wave_size, (unsigned long long)w->info.pc, amddwarf_active_from_text(lanes->active_from),
                       amddwarf_lane_pc_from_text(lanes->pc_from));
  amddwarf__text_printf(out, "lanes 0-%u: ", lanes->wave_size - 1);
  for (uint32_t l = 0; l < lanes->wave_size; ++l)
    amddwarf__text_append(out, lanes->lanes[l].active ? "#" : ".", 1);
  amddwarf__text_append(out, "\n", 1);
  amddwarf_lane_group groups[AMDDWARF_MAX_LANES];
  size_t count = 0;
  amddwarf_lanes_group_by_pc(lanes, groups, AMDDWARF_MAX_LANES, &count);
  for (size_t g = 0; g < count && g < AMDDWARF_MAX_LANES; ++g) {
    char list[AMDDWARF_MAX_LANES * 4];
    unsigned n = (unsigned)__builtin_popcountll(groups[g].mask);
    const char *plural = n == 1 ? " " : "s";
    amddwarf_lanes_spell(groups[g].mask, lanes->wave_size, list, sizeof list);
    if (groups[g].pc_known) {
      char pc[24], place[512];
      snprintf(pc, sizeof pc, "0x%llx", (unsigned long long)groups[g].pc);
      amddwarf_wave_place_text(w, groups[g].pc, 0, place, sizeof place);
      amddwarf__text_printf(out, "  %-8s %-28s %2u lane%s: %s\n", pc, place, n, plural, list);
    } else {
      amddwarf__text_printf(out, "  %-36s %2u lane%s: %s\n", "- (inactive, PC unknown)", n,
                           plural, list);
    }
  }
  return amddwarf__text_status(out);
}

amddwarf_status amddwarf_wave_lanes_table(amddwarf_wave *wave, char *buf, size_t buf_size,
                                          size_t *length, amddwarf_error *err)
{
  const amddwarf_lanes *lanes = NULL;
  amddwarf_status st = amddwarf_wave_lanes(wave, &lanes, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_text t;
  amddwarf__text_init(&t, &wave->allocator);
  st = render(wave, lanes, &t);
  if (st != AMDDWARF_OK) {
    amddwarf__text_free(&t);
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "lanes table: out of memory");
  }
  if (length != NULL)
    *length = t.len;
  if (buf_size > 0) {
    size_t n = t.len < buf_size - 1 ? t.len : buf_size - 1;
    memcpy(buf, amddwarf__text_str(&t), n);
    buf[n] = '\0';
  }
  amddwarf__text_free(&t);
  return AMDDWARF_OK;
}
