/* placeholder */
#include "object/stats_internal.h"
amddwarf_status amddwarf__stats_coverage(const amddwarf_object *object, amddwarf_stats *stats,
                                         amddwarf_error *err)
{
  (void)object; (void)stats; (void)err;
  return AMDDWARF_OK;
}
void amddwarf_loc_classify(const amddwarf_object *object, const amddwarf_cu *cu,
                           const uint8_t *bytes, size_t size, amddwarf_loc_class *out)
{
  (void)object; (void)cu; (void)bytes; (void)size; (void)out;
}
amddwarf_status amddwarf_stats_why(const amddwarf_object *object, const char *name,
                                   uint64_t pc, amddwarf_why *out, amddwarf_error *err)
{
  (void)object; (void)name; (void)pc; (void)out; (void)err;
  return AMDDWARF_OK;
}
amddwarf_status amddwarf_stats_diff_compute(const amddwarf_stats *base,
                                            const amddwarf_stats *new_stats,
                                            amddwarf_stats_diff **out, amddwarf_error *err)
{
  (void)base; (void)new_stats; (void)out; (void)err;
  return AMDDWARF_OK;
}
void amddwarf_stats_diff_free(amddwarf_stats_diff *diff) { (void)diff; }
