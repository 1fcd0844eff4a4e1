/* Reading a value for one lane (value.h): the variable's location, the
 * plan's steps over it (members, indexes, pointers), the read, whose bits
 * a composite may describe only in part, the text, and where each bit came
 * from. */
#include <stdio.h>
#include <string.h>
#include <amddwarf/amdgpu.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/value.h"

enum { MAX_VALUE_BYTES = 65536 };

void amddwarf__debug_lane_fail(amddwarf_debug_lane_read *r, amddwarf_status status,
                              const amddwarf_error *err)
{
  r->status = status;
  r->state = status == AMDDWARF_E_EVAL_OPTIMIZED_OUT ? AMDDWARF_LANE_OPTIMIZED_OUT
             : status == AMDDWARF_E_EVAL_UNAVAILABLE || status == AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT
                 ? AMDDWARF_LANE_UNAVAILABLE
                 : AMDDWARF_LANE_ERROR;
  /* the reason by the status alone; the readers below refine it */
  r->reason = status == AMDDWARF_E_EVAL_OPTIMIZED_OUT   ? AMDDWARF_UNAVAILABLE_OPTIMIZED_OUT_AT_PC
              : status == AMDDWARF_E_EVAL_UNAVAILABLE ? AMDDWARF_UNAVAILABLE_SNAPSHOT_MEMORY
              : status == AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT
                  ? AMDDWARF_UNAVAILABLE_NO_PRIVATE_SEGMENT
                  : AMDDWARF_UNAVAILABLE_NONE;
  amddwarf__text_reset(&r->message);
  amddwarf__text_printf(&r->message, "%s",
                       err && err->message[0] ? err->message : amddwarf_status_message(status));
}

/* ---- explaining ---- */

static void explain_register(amddwarf_text *b, const amddwarf_location *loc, uint64_t bit,
                             uint64_t bits)
{
  char name[32];
  amddwarf_amdgpu_register info;
  uint64_t first = loc->byte_offset * 8 + loc->bit + bit, last = first + bits - 1;
  amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name,
                                sizeof name);
  if (amddwarf_amdgpu_register_info(loc->u.reg.regno, &info) == AMDDWARF_OK && info.lanes &&
      info.lane_bits && first / info.lane_bits == last / info.lane_bits) {
    /* A vector register: one dword per lane. */
    amddwarf__text_printf(b, "register %s lane %llu bits %llu-%llu", name,
                         (unsigned long long)(first / info.lane_bits),
                         (unsigned long long)(first % info.lane_bits),
                         (unsigned long long)(last % info.lane_bits));
    return;
  }
  amddwarf__text_printf(b, "register %s bits %llu-%llu", name, (unsigned long long)first,
                       (unsigned long long)last);
}

static void explain_memory(amddwarf_text *b, const amddwarf_location *loc, uint64_t bit,
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
    amddwarf__text_printf(b, "generic 0x%llx = ", (unsigned long long)address);
    amddwarf_generic_to_segment(address, shared, private_, &aspace, &address);
  }
  amddwarf__text_printf(b, "%s memory", amddwarf__debug_aspace_label(aspace, label, sizeof label));
  if (aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE)
    amddwarf__text_printf(b, " of lane %u", request->lane);
  amddwarf__text_printf(b, " at 0x%llx", (unsigned long long)address);
  if (first % 8 == 0 && bits % 8 == 0)
    amddwarf__text_printf(b, ", %llu byte%s", (unsigned long long)(bits / 8),
                         bits == 8 ? "" : "s");
  else
    amddwarf__text_printf(b, " bits %llu-%llu", (unsigned long long)(first % 8),
                         (unsigned long long)(first % 8 + bits - 1));
}

static void explain_composite(amddwarf_text *b, const amddwarf_location *loc, uint64_t bit,
                              uint64_t bits, const amddwarf_eval_request *request)
{
  uint64_t start = 0, from = loc->byte_offset * 8 + loc->bit + bit, to = from + bits;
  const char *separator = "";
  for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
    const amddwarf_composite_part *part = &loc->u.composite.parts[i];
    uint64_t end = start + part->bit_size;
    uint64_t lo = from > start ? from : start, hi = to < end ? to : end;
    if (lo < hi) {
      amddwarf__text_printf(b, "%sbits %llu-%llu: ", separator, (unsigned long long)(lo - from),
                           (unsigned long long)(hi - from - 1));
      amddwarf__debug_explain_bits(b, &part->location, lo - start, hi - lo, request);
      separator = "; ";
    }
    start = end;
  }
  /* Bits past the last piece are described by nothing. */
  if (to > start) {
    uint64_t lo = from > start ? from : start;
    amddwarf__text_printf(b, "%sbits %llu-%llu: past the last piece", separator,
                         (unsigned long long)(lo - from), (unsigned long long)(to - from - 1));
  }
}

void amddwarf__debug_explain_bits(amddwarf_text *b, const amddwarf_location *loc, uint64_t bit,
                                 uint64_t bits, const amddwarf_eval_request *request)
{
  switch (loc->kind) {
  case AMDDWARF_LOCATION_MEMORY:
    explain_memory(b, loc, bit, bits, request);
    return;
  case AMDDWARF_LOCATION_REGISTER:
    explain_register(b, loc, bit, bits);
    return;
  case AMDDWARF_LOCATION_IMPLICIT:
    amddwarf__text_printf(b, "implicit value bits %llu-%llu",
                         (unsigned long long)(loc->byte_offset * 8 + loc->bit + bit),
                         (unsigned long long)(loc->byte_offset * 8 + loc->bit + bit + bits - 1));
    return;
  case AMDDWARF_LOCATION_UNDEFINED:
    amddwarf__text_printf(b, "undefined");
    return;
  case AMDDWARF_LOCATION_COMPOSITE:
    explain_composite(b, loc, bit, bits, request);
    return;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    break;
  }
  amddwarf__text_printf(b, "%s", amddwarf_location_kind_name(loc->kind));
}

/* ---- why a lane has no value ---- */

/* The first register the expression BYTES names (as a location or a base;
   DW_OP_fbreg: those of the frame base, DEPTH limiting that to one level)
   whose read through V's frame's registers gives STATUS: OK with *REGNO,
   else NOT_FOUND. */
static amddwarf_status named_register(const amddwarf_valobj *v, const uint8_t *bytes,
                                      size_t size, int depth, amddwarf_status status,
                                      uint32_t *regno)
{
  const amddwarf_cu *cu = v->cu != NULL ? v->cu : v->frame->cu;
  const amddwarf_target *t = v->frame->registers;
  const amddwarf_target *full = &v->frame->target;
  if (cu == NULL || t == NULL || t->read_register == NULL || size == 0 || size > 64)
    return AMDDWARF_NOT_FOUND;
  amddwarf_op ops[64];
  size_t count = 0;
  amddwarf_expr_decode(bytes, size, &cu->format, ops, 64, &count, NULL);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t *base = NULL;
    size_t base_size = 0;
    if (ops[i].kind == AMDDWARF_OP_fbreg && depth == 0 && full->frame_base != NULL &&
        full->frame_base(full->user, &base, &base_size) == AMDDWARF_OK &&
        named_register(v, base, base_size, 1, status, regno) == AMDDWARF_OK)
      return AMDDWARF_OK;
    if (ops[i].kind == AMDDWARF_OP_regx || ops[i].kind == AMDDWARF_OP_bregx)
      *regno = (uint32_t)ops[i].operands[0];
    else if ((ops[i].kind >= AMDDWARF_OP_reg0 && ops[i].kind <= AMDDWARF_OP_reg31) ||
             (ops[i].kind >= AMDDWARF_OP_breg0 && ops[i].kind <= AMDDWARF_OP_breg31))
      *regno = (uint32_t)ops[i].operands[1];
    else
      continue;
    uint8_t word[4];
    if (t->read_register(t->user, *regno, 0, sizeof word, word) == status)
      return AMDDWARF_OK;
  }
  return AMDDWARF_NOT_FOUND;
}

/* named_register over V's variable's location expression. */
static amddwarf_status expression_register(const amddwarf_valobj *v, amddwarf_status status,
                                           uint32_t *regno)
{
  const amddwarf_var_ref *var = &v->var->ref;
  if (!var->available)
    return AMDDWARF_NOT_FOUND;
  return named_register(v, var->expr, var->size, 0, status, regno);
}

/* Whether a register of V's variable reads as undefined through the
   frame's registers: the CFI says the caller's register is not restored.
   Only caller frames can. */
static bool register_not_restored(const amddwarf_valobj *v)
{
  uint32_t regno;
  return v->frame_index != 0 &&
         expression_register(v, AMDDWARF_E_EVAL_OPTIMIZED_OUT, &regno) == AMDDWARF_OK;
}

/* The register of LOC (a register, or a composite's register part) that
   the target cannot read, else one the expression names: OK with *REGNO. */
static amddwarf_status unreadable_register(const amddwarf_valobj *v, const amddwarf_location *loc,
                                           uint32_t *regno)
{
  const amddwarf_target *t = v->frame->registers;
  uint8_t word[4];
  if (loc != NULL && loc->kind == AMDDWARF_LOCATION_REGISTER) {
    *regno = loc->u.reg.regno;
    return AMDDWARF_OK;
  }
  if (loc != NULL && loc->kind == AMDDWARF_LOCATION_COMPOSITE && t != NULL &&
      t->read_register != NULL)
    for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
      const amddwarf_location *part = &loc->u.composite.parts[i].location;
      if (part->kind == AMDDWARF_LOCATION_REGISTER &&
          t->read_register(t->user, part->u.reg.regno, 0, sizeof word, word) ==
              AMDDWARF_E_EVAL_UNAVAILABLE) {
        *regno = part->u.reg.regno;
        return AMDDWARF_OK;
      }
    }
  return expression_register(v, AMDDWARF_E_EVAL_UNAVAILABLE, regno);
}

/* R's reason after a failure to locate or read: a register of a caller
   frame the CFI does not restore, a register or memory the target lacks
   (LOC: where the read was, NULL when locating failed). A register the
   target lacks is named in the message, which a debugger's explanation
   shows. */
static void refine_reason(const amddwarf_valobj *v, const amddwarf_location *loc,
                          amddwarf_debug_lane_read *r)
{
  uint32_t regno = 0;
  char name[32];
  if (r->status == AMDDWARF_E_EVAL_OPTIMIZED_OUT && register_not_restored(v))
    r->reason = AMDDWARF_UNAVAILABLE_REGISTER_NOT_RESTORED;
  else if (r->status == AMDDWARF_E_EVAL_UNAVAILABLE && loc != NULL &&
           loc->kind == AMDDWARF_LOCATION_MEMORY)
    r->reason = AMDDWARF_UNAVAILABLE_SNAPSHOT_MEMORY;
  else if (r->status == AMDDWARF_E_EVAL_UNAVAILABLE) {
    r->reason = AMDDWARF_UNAVAILABLE_SNAPSHOT_REGISTER;
    if (!r->detailed && unreadable_register(v, loc, &regno) == AMDDWARF_OK &&
        amddwarf_amdgpu_register_name(regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name) ==
            AMDDWARF_OK) {
      amddwarf__text_reset(&r->message);
      amddwarf__text_printf(&r->message, "the target cannot read register %s (DWARF %u)", name,
                           regno);
    }
  }
}

/* ---- walking ---- */

static bool private_aspace(uint32_t aspace)
{
  return aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ||
         aspace == AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE ||
         (aspace >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0 &&
          aspace <= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE63);
}

/* Whether any bit of LOC is in a private address space. */
static bool in_private_memory(const amddwarf_location *loc)
{
  if (loc->kind == AMDDWARF_LOCATION_MEMORY)
    return private_aspace(loc->u.memory.aspace);
  if (loc->kind == AMDDWARF_LOCATION_COMPOSITE)
    for (uint32_t i = 0; i < loc->u.composite.count; ++i)
      if (in_private_memory(&loc->u.composite.parts[i].location))
        return true;
  return false;
}

static int has_location(void *user, const amddwarf_loc_entry *entry)
{
  *(bool *)user = entry->size > 0 && entry->low < entry->high;
  return *(bool *)user;
}

/* Whether the variable's location (its own, else its origin's) is a list
   with an entry that has a location somewhere. */
static bool location_listed(const amddwarf_valobj *v)
{
  amddwarf_attribute a;
  amddwarf_die_ref holder = v->var->ref.die;
  bool listed = false;
  if (amddwarf_object_die_attribute(v->object, holder, AMDDWARF_DW_AT_location, 0, &a, NULL) !=
          AMDDWARF_OK &&
      amddwarf_die_ref_valid(v->die.origin))
    holder = v->die.origin;
  amddwarf_object_die_list_entries(v->object, holder, AMDDWARF_DW_AT_location, has_location,
                                   &listed, NULL);
  return listed;
}

/* The variable's location for the lane: its expression evaluated, or its
   DW_AT_const_value as implicit storage. */
static amddwarf_status variable_location(amddwarf_valobj *v, const amddwarf_eval_request *req,
                                         amddwarf_location *loc, amddwarf_debug_lane_read *r)
{
  const amddwarf_var_ref *var = &v->var->ref;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  memset(loc, 0, sizeof *loc);
  if (v->die.const_value.kind != AMDDWARF_ATTR_NONE) {
    uint64_t size = 0;
    loc->u.implicit.bytes = amddwarf__debug_const_bytes(v->object, &v->die, v->const_bytes, &size);
    loc->kind = AMDDWARF_LOCATION_IMPLICIT;
    loc->u.implicit.bit_size = size * 8;
    return AMDDWARF_OK;
  }
  if (!var->available || var->size == 0) {
    r->status = AMDDWARF_E_EVAL_OPTIMIZED_OUT;
    r->state = AMDDWARF_LANE_OPTIMIZED_OUT;
    bool listed = location_listed(v);
    r->reason = var->available ? AMDDWARF_UNAVAILABLE_OPTIMIZED_OUT_AT_PC
                : listed       ? AMDDWARF_UNAVAILABLE_NO_ENTRY_AT_PC
                               : AMDDWARF_UNAVAILABLE_NO_LOCATION;
    amddwarf__text_printf(&r->message, "no location at this pc");
    return r->status;
  }
  /* An address the object leaves undefined is unavailable, with the reason:
     evaluating would read whatever the field holds. */
  const amddwarf_cu *cu = v->cu != NULL ? v->cu : v->frame->cu;
  amddwarf_status st =
      v->object != NULL && cu != NULL
          ? amddwarf_object_expr_addresses_known(v->object, cu, var->expr, var->size, &err)
          : AMDDWARF_OK;
  if (st != AMDDWARF_OK) {
    amddwarf__debug_lane_fail(r, st, &err);
    r->reason = AMDDWARF_UNAVAILABLE_UNDEFINED_ADDRESS;
    r->detailed = 1;
    return st;
  }
  st = amddwarf__debug_eval_location_request(v->frame, v->cu, req, var->expr, var->size, loc, &err);
  /* Private memory where the kernel has none: unavailable, and never read. */
  if (st == AMDDWARF_OK && v->object != NULL && in_private_memory(loc)) {
    st = amddwarf_object_private_possible(v->object, v->frame->pub.lookup_pc, &err);
    if (st != AMDDWARF_OK)
      r->detailed = 1;
  }
  if (st != AMDDWARF_OK) {
    amddwarf__debug_lane_fail(r, st, &err);
    refine_reason(v, NULL, r);
  }
  return st;
}

/* Reads the pointer at (LOC, BIT) and moves there. */
static amddwarf_status follow_pointer(amddwarf_valobj *v, const amddwarf_eval_request *req,
                                      const amddwarf_debug_step *step, amddwarf_location *loc,
                                      uint64_t *bit, amddwarf_debug_lane_read *r)
{
  uint8_t bytes[8] = {0};
  char name[512], label[32];
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_location_read(v->wave->ev, req, loc, *bit,
                                              step->pointer_bytes * 8ull, bytes, &err);
  if (st != AMDDWARF_OK || !r->bytes_only)
    amddwarf__debug_path_spell(&v->path, step->op, name, sizeof name);
  if (st != AMDDWARF_OK) {
    amddwarf__debug_explain_bits(&r->explain, loc, *bit, step->pointer_bytes * 8ull, req);
    amddwarf__debug_lane_fail(r, st, &err);
    if (st == AMDDWARF_E_EVAL_UNAVAILABLE) {
      amddwarf__text_reset(&r->message);
      amddwarf__text_printf(&r->message, "the pointer '%.200s' is not in the snapshot", name);
      r->detailed = 1;
    }
    return st;
  }
  uint64_t value = amddwarf__debug_load_uint(bytes, step->pointer_bytes);
  if (!r->bytes_only)
    amddwarf__text_printf(&r->explain, "through %s = 0x%llx [%s]: ", name,
                         (unsigned long long)value,
                         amddwarf__debug_aspace_label(step->aspace, label, sizeof label));
  memset(loc, 0, sizeof *loc);
  loc->kind = AMDDWARF_LOCATION_MEMORY;
  loc->byte_offset = value + (uint64_t)step->displacement;
  loc->u.memory.aspace = step->aspace;
  *bit = 0;
  return AMDDWARF_OK;
}

/* amddwarf__debug_value_locate with REQ, the request of R's lane. */
static amddwarf_status locate(amddwarf_valobj *v, const amddwarf_eval_request *req,
                              amddwarf_location *loc, uint64_t *bit,
                              const amddwarf_debug_step **last_load, amddwarf_debug_lane_read *r)
{
  amddwarf_status st = variable_location(v, req, loc, r);
  *bit = 0;
  *last_load = NULL;
  for (size_t i = 0; i < v->plan.count && st == AMDDWARF_OK; ++i) {
    const amddwarf_debug_step *step = &v->plan.steps[i];
    if (step->kind == AMDDWARF_DEBUG_STEP_ADD_BITS) {
      *bit += step->bits;
    } else if (step->kind == AMDDWARF_DEBUG_STEP_LOAD_POINTER) {
      st = follow_pointer(v, req, step, loc, bit, r);
      *last_load = step;
    }
  }
  return st;
}

amddwarf_status amddwarf__debug_value_locate(amddwarf_valobj *v, amddwarf_location *loc,
                                            uint64_t *bit,
                                            const amddwarf_debug_step **last_load,
                                            amddwarf_debug_lane_read *r)
{
  amddwarf_eval_request req;
  amddwarf__debug_request_init(v->frame, v->cu, r->lane, &req);
  return locate(v, &req, loc, bit, last_load, r);
}

/* ---- reading ---- */

static int reserve(amddwarf_valobj *v, amddwarf_debug_lane_read *r, size_t size)
{
  amddwarf_allocator *a = &v->wave->allocator;
  if (size <= r->capacity)
    return 0;
  uint8_t *bytes = amddwarf__mem_alloc(a, size), *valid = amddwarf__mem_alloc(a, size);
  if (bytes == NULL || valid == NULL) {
    amddwarf__mem_free(a, bytes, size);
    amddwarf__mem_free(a, valid, size);
    return -1;
  }
  amddwarf__mem_free(a, r->bytes, r->capacity);
  amddwarf__mem_free(a, r->valid, r->capacity);
  r->bytes = bytes;
  r->valid = valid;
  r->capacity = size;
  return 0;
}

static void amddwarf__copy_bits(uint8_t *dst, uint64_t dst_bit, const uint8_t *src, uint64_t bits,
                      uint8_t *valid)
{
  for (uint64_t i = 0; i < bits; ++i) {
    uint64_t d = dst_bit + i;
    uint8_t one = (uint8_t)(1u << (d % 8));
    dst[d / 8] = (uint8_t)((dst[d / 8] & ~one) | (((src[i / 8] >> (i % 8)) & 1) << (d % 8)));
    valid[d / 8] |= one;
  }
}

/* Reads the BITS bits at BIT of composite LOC part by part into R: an
   undefined part, or bits past the last part, stay unknown. Returns OK, or
   the first error of a part other than E_EVAL_OPTIMIZED_OUT. */
static amddwarf_status read_parts(amddwarf_valobj *v, const amddwarf_eval_request *req,
                                  const amddwarf_location *loc, uint64_t bit, uint64_t bits,
                                  amddwarf_debug_lane_read *r, amddwarf_error *err)
{
  uint64_t start = 0, from = loc->byte_offset * 8 + loc->bit + bit, to = from + bits;
  memset(r->valid, 0, (size_t)((bits + 7) / 8));
  for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
    const amddwarf_composite_part *part = &loc->u.composite.parts[i];
    uint64_t end = start + part->bit_size;
    uint64_t lo = from > start ? from : start, hi = to < end ? to : end;
    start = end;
    if (lo >= hi || part->location.kind == AMDDWARF_LOCATION_UNDEFINED)
      continue;
    size_t need = (size_t)((hi - lo + 7) / 8);
    if (need > v->scratch_size) {
      uint8_t *grown = amddwarf__mem_realloc(&v->wave->allocator, v->scratch, v->scratch_size,
                                            need);
      if (grown == NULL)
        return AMDDWARF_E_NO_MEMORY;
      v->scratch = grown;
      v->scratch_size = need;
    }
    amddwarf_status st = amddwarf_location_read(v->wave->ev, req, &part->location,
                                                lo - (end - part->bit_size), hi - lo,
                                                v->scratch, err);
    if (st == AMDDWARF_E_EVAL_OPTIMIZED_OUT)
      continue;
    if (st != AMDDWARF_OK)
      return st;
    amddwarf__copy_bits(r->bytes, lo - from, v->scratch, hi - lo, r->valid);
  }
  return AMDDWARF_OK;
}

/* Reads the plan's bits at (LOC, BIT) into R->bytes, marking the known
   ones in R->valid. OK when some are known. */
static amddwarf_status read_bits(amddwarf_valobj *v, const amddwarf_eval_request *req,
                                 const amddwarf_location *loc, uint64_t bit,
                                 amddwarf_debug_lane_read *r, int *whole, amddwarf_error *err)
{
  uint64_t bits = v->plan.bit_size;
  amddwarf_error part_err;
  amddwarf_status st = amddwarf_location_read(v->wave->ev, req, loc, bit, bits, r->bytes, err);
  *whole = st == AMDDWARF_OK;
  if (st == AMDDWARF_OK) {
    memset(r->valid, 0xff, (size_t)v->plan.byte_size);
    return AMDDWARF_OK;
  }
  /* A composite may describe some of the bits: those are read, the rest
     are optimized out. */
  if (loc->kind != AMDDWARF_LOCATION_COMPOSITE ||
      (st != AMDDWARF_E_EVAL_OPTIMIZED_OUT && st != AMDDWARF_E_EVAL_OUT_OF_BOUNDS))
    return st;
  amddwarf_error_clear(&part_err);
  memset(r->bytes, 0, (size_t)v->plan.byte_size);
  amddwarf_status part_st = read_parts(v, req, loc, bit, bits, r, &part_err);
  if (part_st != AMDDWARF_OK) {
    *err = part_err;
    return part_st;
  }
  *whole = amddwarf__debug_bits_valid(r->valid, 0, bits);
  for (uint64_t i = 0; i < (bits + 7) / 8; ++i)
    if (r->valid[i] != 0)
      return AMDDWARF_OK;
  if (st == AMDDWARF_E_EVAL_OUT_OF_BOUNDS)
    return amddwarf__fail(err, AMDDWARF_E_EVAL_OPTIMIZED_OUT, AMDDWARF_NO_OFFSET,
                         "no piece of the location describes these bits");
  return st;
}

static void read_address(amddwarf_valobj *v, const amddwarf_eval_request *req,
                         const amddwarf_location *loc, uint64_t bit, amddwarf_debug_lane_read *r)
{
  char name[512];
  size_t operand = v->path.count;
  uint64_t bits = v->plan.byte_size ? v->plan.byte_size * 8 : 8;
  while (operand > 0 && v->path.ops[operand - 1].kind != AMDDWARF_DEBUG_PATH_ADDRESS)
    --operand;
  /* The operand of the last '&' names the object. */
  if (!r->bytes_only)
    amddwarf__debug_explain_bits(&r->explain, loc, bit, bits, req);
  if (loc->kind != AMDDWARF_LOCATION_MEMORY || (loc->bit + bit) % 8 != 0) {
    amddwarf__debug_path_spell(&v->path, operand > 0 ? operand - 1 : 0, name, sizeof name);
    r->status = AMDDWARF_E_INVALID_ARGUMENT;
    r->state = AMDDWARF_LANE_ERROR;
    amddwarf__text_printf(&r->message, "'%.200s' has no address: it is %s, not memory", name,
                         loc->kind == AMDDWARF_LOCATION_REGISTER    ? "in a register"
                         : loc->kind == AMDDWARF_LOCATION_COMPOSITE ? "in pieces"
                         : loc->kind == AMDDWARF_LOCATION_IMPLICIT  ? "an implicit value"
                         : loc->kind == AMDDWARF_LOCATION_MEMORY    ? "not at a byte boundary"
                                                                    : "not stored");
    return;
  }
  uint64_t address = loc->byte_offset + (loc->bit + bit) / 8;
  if (reserve(v, r, 8) != 0) {
    amddwarf__debug_lane_fail(r, AMDDWARF_E_NO_MEMORY, NULL);
    return;
  }
  for (size_t i = 0; i < 8; ++i)
    r->bytes[i] = (uint8_t)(address >> (8 * i));
  memset(r->valid, 0xff, 8);
  r->size = 8;
  if (!r->bytes_only)
    amddwarf__debug_format_pointer(&r->text, v->plan.type_name, loc->u.memory.aspace, address);
}

/* The unavailable memory a pointer of the path leads to, named. */
static void unavailable_pointee(amddwarf_valobj *v, const amddwarf_location *loc, uint64_t bit,
                                const amddwarf_debug_step *last_load,
                                amddwarf_debug_lane_read *r)
{
  char name[512], label[32];
  amddwarf__debug_path_spell(&v->path, last_load->op, name, sizeof name);
  amddwarf__text_reset(&r->message);
  amddwarf__text_printf(&r->message, "the target cannot read %s memory at 0x%llx, where '%.200s' points",
                       amddwarf__debug_aspace_label(loc->u.memory.aspace, label, sizeof label),
                       (unsigned long long)(loc->byte_offset + (loc->bit + bit) / 8), name);
  r->detailed = 1;
}

/* A bitfield read: its bits extended to its type's size. */
static void extend_bitfield(const amddwarf_debug_plan *plan, uint8_t *bytes)
{
  uint64_t n = amddwarf__debug_extend_bits(amddwarf__debug_load_uint(bytes, (size_t)plan->byte_size),
                                          plan->bit_size,
                                          plan->result_signed);
  for (size_t i = 0; i < plan->byte_size; ++i)
    bytes[i] = (uint8_t)(n >> (8 * i));
}

/* An inactive lane stands at its own PC, not the frame's: the location the
   frame's PC selects may name storage the lane never wrote, so it is not
   read (specs/debug-api.md, "Inactive lanes"). */
static void mark_inactive(const amddwarf_valobj *v, amddwarf_debug_lane_read *r)
{
  const amddwarf_lane *lane = v->lanes != NULL ? &v->lanes->lanes[r->lane] : NULL;
  r->state = AMDDWARF_LANE_INACTIVE;
  if (lane != NULL && lane->pc_known)
    amddwarf__text_printf(&r->message, "inactive, at its lane PC 0x%llx",
                         (unsigned long long)lane->pc);
  else
    amddwarf__text_puts(&r->message, "inactive, its PC unknown");
}

/* Reads lane REQ->lane into R with REQ, the lane's request. */
static void read_lane(amddwarf_valobj *v, const amddwarf_eval_request *req,
                      amddwarf_debug_lane_read *r)
{
  const amddwarf_debug_plan *plan = &v->plan;
  const amddwarf_debug_step *last_load = NULL;
  amddwarf_location loc;
  amddwarf_error err;
  uint64_t bit = 0;
  r->lane = req->lane;
  r->state = AMDDWARF_LANE_VALUE;
  r->status = AMDDWARF_OK;
  r->detailed = 0;
  r->reason = AMDDWARF_UNAVAILABLE_NONE;
  r->size = 0;
  amddwarf__text_reset(&r->text);
  amddwarf__text_reset(&r->message);
  amddwarf__text_reset(&r->explain);
  amddwarf_error_clear(&err);
  r->inactive = !(v->active_mask >> req->lane & 1);
  if (!(v->readable_mask >> req->lane & 1)) {
    mark_inactive(v, r);
    return;
  }
  if (locate(v, req, &loc, &bit, &last_load, r) != AMDDWARF_OK)
    return;
  if (plan->is_address) {
    read_address(v, req, &loc, bit, r);
    return;
  }
  if (!r->bytes_only)
    amddwarf__debug_explain_bits(&r->explain, &loc, bit, plan->bit_size, req);
  if (plan->byte_size > MAX_VALUE_BYTES) {
    r->status = AMDDWARF_E_LIMIT;
    r->state = AMDDWARF_LANE_ERROR;
    amddwarf__text_printf(&r->message, "the value has %llu bytes, more than the %d printed",
                         (unsigned long long)plan->byte_size, MAX_VALUE_BYTES);
    return;
  }
  if (reserve(v, r, (size_t)plan->byte_size) != 0) {
    amddwarf__debug_lane_fail(r, AMDDWARF_E_NO_MEMORY, NULL);
    return;
  }
  memset(r->bytes, 0, (size_t)plan->byte_size);
  int whole = 0;
  amddwarf_status st = read_bits(v, req, &loc, bit, r, &whole, &err);
  if (st != AMDDWARF_OK) {
    amddwarf__debug_lane_fail(r, st, &err);
    refine_reason(v, &loc, r);
    if (st == AMDDWARF_E_EVAL_UNAVAILABLE && last_load != NULL)
      unavailable_pointee(v, &loc, bit, last_load, r);
    return;
  }
  if (!whole && !amddwarf__debug_type_has_parts(v->object, plan->result)) {
    /* A scalar is known whole or not at all. */
    amddwarf__fail(&err, AMDDWARF_E_EVAL_OPTIMIZED_OUT, AMDDWARF_NO_OFFSET,
                  "the location's pieces describe only some of its bits");
    amddwarf__debug_lane_fail(r, AMDDWARF_E_EVAL_OPTIMIZED_OUT, &err);
    return;
  }
  if (plan->bit_size < plan->byte_size * 8 && plan->byte_size <= 8) {
    extend_bitfield(plan, r->bytes);
    memset(r->valid, 0xff, (size_t)plan->byte_size);
  }
  r->size = (size_t)plan->byte_size;
  if (!r->bytes_only)
    amddwarf__debug_format_value(&r->text, v->object, plan->result, r->bytes,
                                whole ? NULL : r->valid, r->size);
}

void amddwarf__debug_value_read(amddwarf_valobj *v, uint32_t lane, amddwarf_debug_lane_read *r)
{
  /* One request serves the lane's evaluation, pointers and read. */
  amddwarf_eval_request req;
  amddwarf__debug_request_init(v->frame, v->cu, lane, &req);
  read_lane(v, &req, r);
}

/* Whether VALUE's lanes can be read as bytes by evaluating the variable's
   location and reading the plan's bits there, nothing else: a location
   expression (not a constant), steps that only move further into the
   location (members, indexes), no address taken, no bitfield. *BIT: where
   the bits start. */
static int plain_read(const amddwarf_valobj *v, uint64_t *bit)
{
  const amddwarf_debug_plan *plan = &v->plan;
  const amddwarf_var_ref *var = &v->var->ref;
  *bit = 0;
  if (plan->is_address || plan->bit_size != plan->byte_size * 8 ||
      plan->byte_size > MAX_VALUE_BYTES || v->die.const_value.kind != AMDDWARF_ATTR_NONE || !var->available ||
      var->size == 0)
    return 0;
  for (size_t i = 0; i < plan->count; ++i) {
    if (plan->steps[i].kind != AMDDWARF_DEBUG_STEP_ADD_BITS)
      return 0;
    *bit += plan->steps[i].bits;
  }
  return 1;
}

uint64_t amddwarf__debug_value_read_whole(amddwarf_valobj *v, uint64_t lanes, uint8_t *bytes,
                                         size_t stride)
{
  uint64_t bit = 0, whole = 0;
  const uint8_t *expr = NULL;
  size_t expr_size = 0;
  const amddwarf_cu *cu = v->cu != NULL ? v->cu : v->frame->cu;
  amddwarf_eval_request req;
  amddwarf_status statuses[AMDDWARF_MAX_LANES];
  /* A location whose address the object leaves undefined takes the slow
     path, which reports it unavailable with the reason. */
  int plain = plain_read(v, &bit) && v->object != NULL && cu != NULL &&
              amddwarf_object_private_possible(v->object, v->frame->pub.lookup_pc, NULL) ==
                  AMDDWARF_OK &&
              amddwarf_object_expr_addresses_known(v->object, cu, v->var->ref.expr, v->var->ref.size,
                                                   NULL) == AMDDWARF_OK &&
              amddwarf__debug_normalized_location(v->frame, v->cu, v->var->ref.expr, v->var->ref.size,
                                                 &expr, &expr_size, NULL) == AMDDWARF_OK;
  lanes &= v->readable_mask;
  if (!plain || lanes == 0)
    return 0;
  amddwarf__debug_request_init(v->frame, v->cu, 0, &req);
  if (amddwarf_eval_read_lanes(v->wave->ev, &req, expr, expr_size, lanes, bit, v->plan.bit_size,
                               bytes, stride, statuses, NULL, NULL) != AMDDWARF_OK)
    return 0;
  for (uint32_t lane = 0; lane < AMDDWARF_MAX_LANES; ++lane)
    if ((lanes >> lane & 1) && statuses[lane] == AMDDWARF_OK)
      whole |= 1ull << lane;
  return whole;
}

void amddwarf__debug_value_from_bytes(amddwarf_valobj *v, uint32_t lane, const uint8_t *bytes,
                                     amddwarf_debug_lane_read *r)
{
  r->lane = lane;
  r->state = AMDDWARF_LANE_VALUE;
  r->status = AMDDWARF_OK;
  r->detailed = 0;
  r->inactive = !(v->active_mask >> lane & 1);
  r->reason = AMDDWARF_UNAVAILABLE_NONE;
  r->size = (size_t)v->plan.byte_size;
  amddwarf__text_reset(&r->text);
  amddwarf__text_reset(&r->message);
  amddwarf__text_reset(&r->explain);
  amddwarf__debug_format_value(&r->text, v->object, v->plan.result, bytes, NULL, r->size);
}

amddwarf_status amddwarf__debug_value_read_bytes(amddwarf_valobj *v, uint64_t lanes,
                                                uint8_t *bytes, size_t stride,
                                                amddwarf_lane_state *states,
                                                amddwarf_error *err)
{
  amddwarf_debug_lane_read *r = NULL;
  /* One request for every lane, only its lane changing. */
  amddwarf_eval_request req;
  size_t size = (size_t)v->info.byte_size;
  /* The lanes the location gives whole, evaluated and read together; any
     other lane goes through read_lane for its state. */
  uint64_t whole = amddwarf__debug_value_read_whole(v, lanes, bytes, stride);
  amddwarf__debug_request_init(v->frame, v->cu, 0, &req);
  for (uint32_t lane = 0; lane < AMDDWARF_MAX_LANES; ++lane) {
    if (!(lanes >> lane & 1))
      continue;
    uint8_t *out = bytes + (size_t)lane * stride;
    req.lane = lane;
    if (whole >> lane & 1) {
      if (states != NULL)
        states[lane] = AMDDWARF_LANE_VALUE;
      continue;
    }
    if (r == NULL) {
      amddwarf_status st = amddwarf__debug_value_reads(v, 1, err);
      if (st != AMDDWARF_OK)
        return st;
      r = &v->reads[0];
    }
    r->bytes_only = 1;
    read_lane(v, &req, r);
    r->bytes_only = 0;
    size_t n = r->state == AMDDWARF_LANE_VALUE && r->size < size ? r->size : size;
    if (r->state == AMDDWARF_LANE_VALUE)
      memcpy(out, r->bytes, n);
    else
      n = 0;
    memset(out + n, 0, size - n);
    if (states != NULL)
      states[lane] = r->state;
  }
  return AMDDWARF_OK;
}
