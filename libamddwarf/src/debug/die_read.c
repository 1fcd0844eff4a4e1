/* What the debugger layer reads of a DIE, through its reference
 * (object.h, amddwarf_die_ref): the tag, a constant attribute, the
 * expression an attribute gives at a PC. Every frame, scope and variable
 * of a wave is a reference; nothing here loads a unit's summaries. */
#include <amddwarf/dwarf.h>

#include "debug/debug_internal.h"

unsigned amddwarf__debug_die_tag(const amddwarf_object *object, amddwarf_die_ref die)
{
  amddwarf_die_links links;
  if (!amddwarf_die_ref_valid(die) ||
      amddwarf_object_die_links(object, die, &links, NULL) != AMDDWARF_OK)
    return 0;
  return links.tag;
}

int amddwarf__debug_die_is_function(const amddwarf_object *object, amddwarf_die_ref die)
{
  unsigned tag = amddwarf__debug_die_tag(object, die);
  return tag == AMDDWARF_DW_TAG_subprogram || tag == AMDDWARF_DW_TAG_inlined_subroutine;
}

int amddwarf__debug_die_udata(const amddwarf_object *object, amddwarf_die_ref die, unsigned at,
                              uint64_t *out)
{
  amddwarf_attribute a;
  if (amddwarf_object_die_attribute(object, die, at, 0, &a, NULL) != AMDDWARF_OK)
    return 0;
  switch (a.value.kind) {
  case AMDDWARF_ATTR_UNSIGNED: *out = a.value.u; return 1;
  case AMDDWARF_ATTR_SIGNED: *out = (uint64_t)a.value.s; return 1;
  default: return 0;
  }
}

int amddwarf__debug_die_has_lane_pc(const amddwarf_object *object, amddwarf_die_ref die)
{
  amddwarf_attribute a;
  return amddwarf_object_die_attribute(object, die, AMDDWARF_DW_AT_LLVM_lane_pc, 0, &a, NULL) ==
             AMDDWARF_OK ||
         amddwarf_object_die_attribute(object, die, AMDDWARF_DW_AT_LLVM_lane_pc_old, 0, &a,
                                       NULL) == AMDDWARF_OK;
}

int amddwarf__debug_die_has_active_lane(const amddwarf_object *object, amddwarf_die_ref die)
{
  /* Only an expression or list form makes 0x3e08 the active-lane attribute
     (LLVM now uses the number for a flag). */
  amddwarf_attribute a;
  return amddwarf_object_die_attribute(object, die, AMDDWARF_DW_AT_LLVM_active_lane, 0, &a,
                                       NULL) == AMDDWARF_OK &&
         (a.value.kind == AMDDWARF_ATTR_EXPR || a.value.kind == AMDDWARF_ATTR_LIST);
}

amddwarf_status amddwarf__debug_die_lane_expr_at(const amddwarf_object *object,
                                                amddwarf_die_ref die, int lane_pc, uint64_t pc,
                                                const uint8_t **bytes, size_t *size)
{
  if (!lane_pc)
    return amddwarf_object_die_expr_at(object, die, AMDDWARF_DW_AT_LLVM_active_lane, pc, bytes,
                                       size, NULL, NULL);
  amddwarf_status st = amddwarf_object_die_expr_at(object, die, AMDDWARF_DW_AT_LLVM_lane_pc, pc,
                                                   bytes, size, NULL, NULL);
  amddwarf_attribute a;
  if (st == AMDDWARF_NOT_FOUND &&
      amddwarf_object_die_attribute(object, die, AMDDWARF_DW_AT_LLVM_lane_pc, 0, &a, NULL) !=
          AMDDWARF_OK)
    st = amddwarf_object_die_expr_at(object, die, AMDDWARF_DW_AT_LLVM_lane_pc_old, pc, bytes,
                                     size, NULL, NULL);
  return st;
}
