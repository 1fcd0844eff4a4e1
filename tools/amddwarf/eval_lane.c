/* The per-lane walk of `amddwarf eval` (eval_lane.h). */
#include "eval_lane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VALUE_BYTES = 65536, MAX_EXPR_BYTES = 512 };

static void lane_fail(eval_lane_result *r, amddwarf_status st, const amddwarf_error *err)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s",
           err && err->message[0] ? err->message : amddwarf_status_message(st));
}

/* ---- explaining ---- */

static void explain_register(cli_buf *b, const amddwarf_location *loc, uint64_t bit,
                             uint64_t bits)
{
  char name[32];
  amddwarf_amdgpu_register info;
  uint64_t first = loc->byte_offset * 8 + loc->bit + bit, last = first + bits - 1;
  amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
  if (amddwarf_amdgpu_register_info(loc->u.reg.regno, &info) == AMDDWARF_OK && info.lanes &&
      info.lane_bits && first / info.lane_bits == last / info.lane_bits) {
    /* A vector register: one dword per lane. */
    cli_buf_printf(b, "register %s lane %llu bits %llu-%llu", name,
                   (unsigned long long)(first / info.lane_bits),
                   (unsigned long long)(first % info.lane_bits),
                   (unsigned long long)(last % info.lane_bits));
    return;
  }
  cli_buf_printf(b, "register %s bits %llu-%llu", name, (unsigned long long)first,
                 (unsigned long long)last);
}

static void explain_memory(cli_buf *b, const amddwarf_location *loc, uint64_t bit,
                           uint64_t bits, const amddwarf_eval_request *request)
{
  char label[32];
  uint64_t first = loc->bit + bit, shared = 0, private_ = 0;
  uint64_t address = loc->byte_offset + first / 8;
  uint32_t aspace = loc->u.memory.aspace;
  const amddwarf_target *t = request->target;
  if (aspace == AMDDWARF_ASPACE_AMDGPU_GENERIC && t->apertures != NULL &&
      t->apertures(t->user, &shared, &private_) == AMDDWARF_OK) {
    /* Name the space a flat address lands in, as the target will read it. */
    cli_buf_printf(b, "generic 0x%llx = ", (unsigned long long)address);
    amddwarf_generic_to_segment(address, shared, private_, &aspace, &address);
  }
  cli_buf_printf(b, "%s memory", eval_aspace_label(aspace, label, sizeof label));
  if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE)
    cli_buf_printf(b, " of lane %u", request->lane);
  cli_buf_printf(b, " at 0x%llx", (unsigned long long)address);
  if (first % 8 == 0 && bits % 8 == 0)
    cli_buf_printf(b, ", %llu byte%s", (unsigned long long)(bits / 8), bits == 8 ? "" : "s");
  else
    cli_buf_printf(b, " bits %llu-%llu", (unsigned long long)(first % 8),
                   (unsigned long long)(first % 8 + bits - 1));
}

/* Where BITS bits at BIT past LOC's own offset come from, part by part. */
static void explain_bits(cli_buf *b, const amddwarf_location *loc, uint64_t bit, uint64_t bits,
                         const amddwarf_eval_request *request)
{
  switch (loc->kind) {
  case AMDDWARF_LOCATION_MEMORY:
    explain_memory(b, loc, bit, bits, request);
    return;
  case AMDDWARF_LOCATION_REGISTER:
    explain_register(b, loc, bit, bits);
    return;
  case AMDDWARF_LOCATION_IMPLICIT:
    cli_buf_printf(b, "implicit value bits %llu-%llu",
                   (unsigned long long)(loc->byte_offset * 8 + loc->bit + bit),
                   (unsigned long long)(loc->byte_offset * 8 + loc->bit + bit + bits - 1));
    return;
  case AMDDWARF_LOCATION_UNDEFINED:
    cli_buf_printf(b, "undefined");
    return;
  case AMDDWARF_LOCATION_COMPOSITE: {
    uint64_t start = 0, from = loc->byte_offset * 8 + loc->bit + bit, to = from + bits;
    int first = 1;
    for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
      const amddwarf_composite_part *part = &loc->u.composite.parts[i];
      uint64_t end = start + part->bit_size;
      uint64_t lo = from > start ? from : start, hi = to < end ? to : end;
      if (lo < hi) {
        cli_buf_printf(b, "%sbits %llu-%llu: ", first ? "" : "; ",
                       (unsigned long long)(lo - from), (unsigned long long)(hi - from - 1));
        explain_bits(b, &part->location, lo - start, hi - lo, request);
        first = 0;
      }
      start = end;
    }
    return;
  }
  default:
    cli_buf_printf(b, "%s", amddwarf_location_kind_name(loc->kind));
    return;
  }
}

/* ---- walking ---- */

/* The variable's location for this lane: its expression evaluated, or its
   DW_AT_const_value as implicit storage (CONST_BYTES holds it). */
static amddwarf_status variable_location(const eval_lane_input *in, uint8_t *const_bytes,
                                         size_t const_capacity, amddwarf_location *loc,
                                         eval_lane_result *r)
{
  const amddwarf_var *var = in->var;
  const amddwarf_cu *cu = amddwarf_object_cu(in->object, var->die->cu_index);
  const amddwarf_attr_value *cv = var->die->const_value;
  amddwarf_error err;
  amddwarf_entry result;
  uint8_t expr[MAX_EXPR_BYTES];
  size_t expr_size = 0;
  amddwarf_error_clear(&err);
  memset(loc, 0, sizeof *loc);
  if (cv != NULL) {
    uint64_t size = 0;
    if (cv->kind == AMDDWARF_ATTR_BLOCK && cv->bytes != NULL) {
      loc->u.implicit.bytes = cv->bytes;
      size = cv->size;
    } else {
      if (eval_type_size(in->object, (eval_type){var->die->type, 0}, &size) != AMDDWARF_OK ||
          size > const_capacity)
        size = const_capacity;
      for (size_t i = 0; i < const_capacity; ++i)
        const_bytes[i] = (uint8_t)(i < 8 ? cv->u >> (8 * i) : 0);
      loc->u.implicit.bytes = const_bytes;
    }
    loc->kind = AMDDWARF_LOCATION_IMPLICIT;
    loc->u.implicit.bit_size = size * 8;
    return AMDDWARF_OK;
  }
  if (!var->available || var->size == 0) {
    r->status = AMDDWARF_E_EVAL_OPTIMIZED_OUT;
    snprintf(r->message, sizeof r->message, "no location at this pc");
    return r->status;
  }
  amddwarf_status st = amddwarf_object_normalize_expr(in->object, cu, AMDDWARF_ROLE_LOCATION,
                                                      var->expr, var->size, expr, sizeof expr,
                                                      &expr_size, &err);
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_expr(in->ev, in->request, expr, expr_size, &result, &err);
  if (st == AMDDWARF_OK && result.kind != AMDDWARF_ENTRY_LOCATION) {
    st = AMDDWARF_E_EVAL_NOT_LOCATION;
    amddwarf_error_clear(&err);
  }
  if (st != AMDDWARF_OK) {
    lane_fail(r, st, &err);
    return st;
  }
  *loc = result.location;
  return AMDDWARF_OK;
}

/* Reads the pointer at (LOC, BIT) and moves there. */
static amddwarf_status follow_pointer(const eval_lane_input *in, const eval_step *step,
                                      amddwarf_location *loc, uint64_t *bit,
                                      eval_lane_result *r)
{
  uint8_t bytes[8] = {0};
  char name[512], label[32];
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_location_read(in->ev, in->request, loc, *bit,
                                              step->pointer_bytes * 8ull, bytes, &err);
  eval_path_spell(in->path, step->op, name, sizeof name);
  if (st != AMDDWARF_OK) {
    explain_bits(&r->explain, loc, *bit, step->pointer_bytes * 8ull, in->request);
    lane_fail(r, st, &err);
    if (st == AMDDWARF_E_EVAL_UNAVAILABLE)
      snprintf(r->message, sizeof r->message, "the pointer '%.200s' is not in the snapshot", name);
    r->show_message = st == AMDDWARF_E_EVAL_UNAVAILABLE;
    return st;
  }
  uint64_t value = eval_load_uint(bytes, step->pointer_bytes);
  cli_buf_printf(&r->explain, "through %s = 0x%llx [%s]: ", name, (unsigned long long)value,
                 eval_aspace_label(step->aspace, label, sizeof label));
  memset(loc, 0, sizeof *loc);
  loc->kind = AMDDWARF_LOCATION_MEMORY;
  loc->byte_offset = value + (uint64_t)step->displacement;
  loc->u.memory.aspace = step->aspace;
  *bit = 0;
  return AMDDWARF_OK;
}

static void print_address(const eval_lane_input *in, const amddwarf_location *loc, uint64_t bit,
                          eval_lane_result *r)
{
  char name[512];
  size_t operand = in->path->count;
  uint64_t bits = in->plan->byte_size ? in->plan->byte_size * 8 : 8;
  while (operand > 0 && in->path->ops[operand - 1].kind != EVAL_OP_ADDRESS)
    --operand;
  /* The operand of the last '&' names the object. */
  eval_path_spell(in->path, operand > 0 ? operand - 1 : 0, name, sizeof name);
  explain_bits(&r->explain, loc, bit, bits, in->request);
  if (loc->kind != AMDDWARF_LOCATION_MEMORY || (loc->bit + bit) % 8 != 0) {
    r->status = AMDDWARF_E_INVALID_ARGUMENT;
    snprintf(r->message, sizeof r->message, "'%.200s' has no address: it is %s, not memory", name,
             loc->kind == AMDDWARF_LOCATION_REGISTER    ? "in a register"
             : loc->kind == AMDDWARF_LOCATION_COMPOSITE ? "in pieces"
             : loc->kind == AMDDWARF_LOCATION_IMPLICIT  ? "an implicit value"
             : loc->kind == AMDDWARF_LOCATION_MEMORY    ? "not at a byte boundary"
                                                        : "not stored");
    return;
  }
  eval_print_pointer(&r->text, in->plan->type_name, loc->u.memory.aspace,
                     loc->byte_offset + (loc->bit + bit) / 8);
}

void eval_lane_run(const eval_lane_input *in, eval_lane_result *r)
{
  const eval_plan *plan = in->plan;
  amddwarf_location loc;
  uint8_t const_bytes[16];
  uint64_t bit = 0;
  const eval_step *last_load = NULL;
  if (variable_location(in, const_bytes, sizeof const_bytes, &loc, r) != AMDDWARF_OK)
    return;
  for (size_t i = 0; i < plan->count; ++i) {
    const eval_step *step = &plan->steps[i];
    switch (step->kind) {
    case EVAL_STEP_ADD_BITS:
      bit += step->bits;
      break;
    case EVAL_STEP_LOAD_POINTER:
      if (follow_pointer(in, step, &loc, &bit, r) != AMDDWARF_OK)
        return;
      last_load = step;
      break;
    case EVAL_STEP_ADDRESS:
      print_address(in, &loc, bit, r);
      return;
    }
  }
  explain_bits(&r->explain, &loc, bit, plan->bit_size, in->request);
  if (plan->byte_size > MAX_VALUE_BYTES) {
    r->status = AMDDWARF_E_LIMIT;
    snprintf(r->message, sizeof r->message, "the value has %llu bytes, more than the %d printed",
             (unsigned long long)plan->byte_size, MAX_VALUE_BYTES);
    return;
  }
  uint8_t *buf = calloc(1, (size_t)plan->byte_size);
  amddwarf_error err;
  amddwarf_error_clear(&err);
  if (buf == NULL) {
    lane_fail(r, AMDDWARF_E_NO_MEMORY, NULL);
    return;
  }
  amddwarf_status st = amddwarf_location_read(in->ev, in->request, &loc, bit, plan->bit_size,
                                              buf, &err);
  if (st == AMDDWARF_OK) {
    if (plan->bit_size < plan->byte_size * 8 && plan->byte_size <= 8) {
      /* A bitfield: extend its bits to its type's size. */
      uint64_t v = eval_extend_bits(eval_load_uint(buf, (size_t)plan->byte_size),
                                    plan->bit_size, eval_type_is_signed(plan->result.die));
      for (size_t i = 0; i < plan->byte_size; ++i)
        buf[i] = (uint8_t)(v >> (8 * i));
    }
    eval_print_value(&r->text, in->object, plan->result, buf, (size_t)plan->byte_size);
  } else {
    lane_fail(r, st, &err);
    if (st == AMDDWARF_E_EVAL_UNAVAILABLE && last_load != NULL) {
      char name[512], label[32];
      eval_path_spell(in->path, last_load->op, name, sizeof name);
      snprintf(r->message, sizeof r->message,
               "the snapshot has no %s memory at 0x%llx, where '%.200s' points",
               eval_aspace_label(loc.u.memory.aspace, label, sizeof label),
               (unsigned long long)(loc.byte_offset + (loc.bit + bit) / 8), name);
      r->show_message = 1;
    }
  }
  free(buf);
}

void eval_lane_result_free(eval_lane_result *r)
{
  cli_buf_free(&r->text);
  cli_buf_free(&r->explain);
}
