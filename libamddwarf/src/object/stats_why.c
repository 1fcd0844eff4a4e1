/* Why one variable has no value at one PC, statically (from the object
 * alone): the reasons of <amddwarf/unavailable.def> that the object can
 * decide. The reasons that need a frame or a snapshot (a register the CFI
 * does not restore in a caller frame: it depends on where the callee is
 * stopped; missing snapshot memory or registers) are decided by the
 * debugger layer, with the same enumeration; no reader reports
 * lane_inactive (specs/stats.md, section 3). */
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "object/stats_internal.h"

#define MAX_VARS 4096

typedef struct nearest {
  uint64_t pc;
  bool has_before, has_after;
  amddwarf_range before, after;
} nearest;

static bool note_nearest(void *user, const amddwarf_loc_entry *e)
{
  nearest *n = user;
  if (e->size == 0 || e->low >= e->high)
    return true; /* an entry without a location is no place to look */
  if (e->high <= n->pc && (!n->has_before || e->high > n->before.high)) {
    n->has_before = true;
    n->before.low = e->low;
    n->before.high = e->high;
  }
  if (e->low > n->pc && (!n->has_after || e->low < n->after.low)) {
    n->has_after = true;
    n->after.low = e->low;
    n->after.high = e->high;
  }
  return true;
}

static void append(char *buf, size_t size, size_t *len, const char *text)
{
  size_t n = strlen(text);
  if (*len + 1 >= size)
    return;
  if (n > size - 1 - *len)
    n = size - 1 - *len;
  memcpy(buf + *len, text, n);
  *len += n;
  buf[*len] = '\0';
}

/* The reason and its message: the reason's description, then DETAIL. */
static void set_reason(amddwarf_why *out, amddwarf_unavailable reason, const char *detail)
{
  size_t len = 0;
  out->reason = reason;
  out->message[0] = '\0';
  append(out->message, sizeof out->message, &len, amddwarf_unavailable_description(reason));
  if (detail != NULL && detail[0] != '\0') {
    append(out->message, sizeof out->message, &len, ": ");
    append(out->message, sizeof out->message, &len, detail);
  }
}

amddwarf_status amddwarf_stats_why(const amddwarf_object *object, const char *name,
                                   uint64_t pc, amddwarf_why *out, amddwarf_error *err)
{
  if (out != NULL)
    memset(out, 0, sizeof *out);
  if (object == NULL || name == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_stats_why: NULL argument");
  out->pc = pc;
  amddwarf_var_ref *vars = amddwarf__mem_alloc(&object->allocator, MAX_VARS * sizeof *vars);
  if (vars == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "variables");
  size_t count = 0;
  amddwarf_status st = amddwarf_object_var_refs_at(object, pc, vars, MAX_VARS, &count, err);
  const amddwarf_var_ref *found = NULL;
  for (size_t i = 0; st == AMDDWARF_OK && i < count && i < MAX_VARS && found == NULL; ++i) {
    amddwarf_attribute a;
    if (amddwarf_object_die_attribute(object, vars[i].die, DW_AT_name,
                                      AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN, &a, NULL) == AMDDWARF_OK &&
        a.value.kind == AMDDWARF_ATTR_STRING && a.value.string != NULL &&
        strcmp(a.value.string, name) == 0)
      found = &vars[i];
  }
  if (st == AMDDWARF_NOT_FOUND || (st == AMDDWARF_OK && found == NULL)) {
    char detail[160];
    snprintf(detail, sizeof detail, "%s at 0x%llx", name, (unsigned long long)pc);
    set_reason(out, AMDDWARF_UNAVAILABLE_NOT_IN_SCOPE, detail);
    st = AMDDWARF_OK;
    goto done;
  }
  if (st != AMDDWARF_OK)
    goto done;
  out->die_offset = found->die.offset;
  const amddwarf_cu *cu = amddwarf_object_cu(object, found->die.cu_index);
  stats_die die;
  if ((st = amddwarf__stats_die_read(object, found->die.cu_index, found->die.offset, &die,
                                     err)) != AMDDWARF_OK)
    goto done;
  if (found->available) {
    amddwarf_loc_classify(object, cu, found->expr, found->size, &out->location);
    amddwarf_error why;
    amddwarf_error_clear(&why);
    if (out->location.flags & AMDDWARF_LOC_UNKNOWN_ADDRESS) {
      (void)amddwarf_object_expr_addresses_known(object, cu, found->expr, found->size, &why);
      set_reason(out, AMDDWARF_UNAVAILABLE_UNDEFINED_ADDRESS, why.message);
    } else if (out->location.kind == AMDDWARF_LOC_UNDEFINED) {
      set_reason(out, AMDDWARF_UNAVAILABLE_OPTIMIZED_OUT_AT_PC,
                 found->size == 0 ? "the expression is empty" : "DW_OP_LLVM_undefined");
    } else if (out->location.kind == AMDDWARF_LOC_MEMORY_PRIVATE &&
               amddwarf_object_private_possible(object, pc, &why) != AMDDWARF_OK) {
      set_reason(out, AMDDWARF_UNAVAILABLE_NO_PRIVATE_SEGMENT, why.message);
    } else if (out->location.flags & AMDDWARF_LOC_QUIRK) {
      const amddwarf_quirk_info *q = amddwarf_quirk_get(
          amddwarf_object_expr_quirk(object, cu, AMDDWARF_ROLE_LOCATION, found->expr, found->size));
      set_reason(out, AMDDWARF_UNAVAILABLE_QUIRK, q != NULL ? q->name : NULL);
    } else if (out->location.lane == AMDDWARF_LANE_MISSING) {
      set_reason(out, AMDDWARF_UNAVAILABLE_NO_LANE, NULL);
    } else {
      set_reason(out, AMDDWARF_UNAVAILABLE_NONE, NULL);
    }
    goto done;
  }
  if (die.has_const_value) {
    out->location.kind = AMDDWARF_LOC_IMPLICIT;
    out->location.lane = AMDDWARF_LANE_UNIFORM;
    set_reason(out, AMDDWARF_UNAVAILABLE_NONE, "DW_AT_const_value");
    goto done;
  }
  /* the location list, own or the origin's */
  stats_die holder = die;
  if (!die.has_location && die.has_origin && !amddwarf__stats_die_at(object, die.origin, &holder))
    holder = die;
  if (!holder.has_location || holder.location.kind != AMDDWARF_ATTR_LIST) {
    set_reason(out, AMDDWARF_UNAVAILABLE_NO_LOCATION, NULL);
    goto done;
  }
  nearest n = {pc, false, false, {0, 0}, {0, 0}};
  st = amddwarf__object_visit_loclist((amddwarf_object *)(uintptr_t)object,
                                      &object->cus[holder.cu_index], holder.location.form,
                                      holder.location.u, note_nearest, &n, err);
  if (st != AMDDWARF_OK)
    goto done;
  if (!n.has_before && !n.has_after) {
    set_reason(out, AMDDWARF_UNAVAILABLE_NO_LOCATION, "its location list has no entry with a location");
    goto done;
  }
  out->has_before = n.has_before;
  out->has_after = n.has_after;
  out->before = n.before;
  out->after = n.after;
  char detail[200] = "";
  size_t len = 0;
  if (n.has_before)
    len += (size_t)snprintf(detail, sizeof detail, "nearest before [0x%llx, 0x%llx)",
                            (unsigned long long)n.before.low, (unsigned long long)n.before.high);
  if (n.has_after)
    snprintf(detail + len, sizeof detail - len, "%snearest after [0x%llx, 0x%llx)",
             len ? ", " : "", (unsigned long long)n.after.low, (unsigned long long)n.after.high);
  set_reason(out, AMDDWARF_UNAVAILABLE_NO_ENTRY_AT_PC, detail);
done:
  amddwarf__mem_free(&object->allocator, vars, MAX_VARS * sizeof *vars);
  return st;
}
