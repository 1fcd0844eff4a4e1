/* Operations that make or use locations: registers, memory and its
 * dereference, addresses from the target, address spaces, offsets and
 * implicit locations (the seed's "Register", "Memory", "Implicit" and
 * "Offset" location operations and the AMDGPU address-space ones). */
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "expr/eval_internal.h"
#include "expr/machine_rules.h"

/* Pops the DW_ASPACE_* number an operation takes from the stack. */
static amddwarf_status pop_dwarf_aspace(machine *m, uint32_t base, uint32_t *aspace)
{
  uint64_t x;
  int64_t sx;
  amddwarf_status st = amddwarf__stack_pop_integral_u64(m, base, &x, &sx);
  if (st != AMDDWARF_OK)
    return st;
  if (!amddwarf__aspace_of_number(x, aspace))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                        "%llu is not one of the DW_ASPACE_* values", (unsigned long long)x);
  return AMDDWARF_OK;
}

/* DW_OP_deref*: reads BITS bits at LOC as a value of TYPE, with the implicit
   pointer rules. */
static amddwarf_status deref(machine *m, const amddwarf_location *loc, uint32_t bits,
                             const amddwarf_base_type *type, bool zero_extend_to_type)
{
  const amddwarf_location *ip = NULL;
  if (loc->kind == AMDDWARF_LOCATION_IMPLICIT_POINTER) {
    if (loc->byte_offset == 0 && loc->bit == 0 && bits == loc->u.implicit_pointer.bit_size)
      ip = loc;
    else
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "implicit pointer storage is dereferenced partially (%u bits)",
                          (unsigned)bits);
  } else if (loc->kind == AMDDWARF_LOCATION_COMPOSITE) {
    uint64_t off, pos = 0;
    if (amddwarf__loc_bit_offset(loc, &off)) {
      for (uint32_t i = 0; i < loc->u.composite.count; i++) {
        const amddwarf_composite_part *p = &loc->u.composite.parts[i];
        if (off < pos + p->bit_size) {
          if (p->location.kind == AMDDWARF_LOCATION_IMPLICIT_POINTER && off == pos &&
              p->bit_size == p->location.u.implicit_pointer.bit_size &&
              bits == p->bit_size && p->location.byte_offset == 0 && p->location.bit == 0)
            ip = &p->location;
          break;
        }
        pos += p->bit_size;
      }
    }
  }
  if (ip) {
    amddwarf_value v;
    memset(&v, 0, sizeof v);
    v.is_implicit_pointer = 1;
    v.pointer = *ip;
    if (ip->u.implicit_pointer.aspace == AMDDWARF_ASPACE_NONE) {
      v.type.bit_size = machine_generic_bits(m);
    } else {
      v.type.encoding = AMDDWARF_ATE_UNSIGNED;
      v.type.bit_size = ip->u.implicit_pointer.bit_size;
    }
    v.type.count = 1;
    return amddwarf__stack_push_value(m, &v);
  }
  uint8_t buf[AMDDWARF_VALUE_MAX_BYTES];
  size_t size = zero_extend_to_type ? ((size_t)type->bit_size * type->count + 7) / 8 : (bits + 7) / 8;
  memset(buf, 0, size > (bits + 7) / 8 ? size : (bits + 7) / 8);
  amddwarf_status st = amddwarf__access_read(m, loc, 0, bits, buf, 0);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = amddwarf__stack_push(m);
  if (!e)
    return AMDDWARF_E_LIMIT;
  e->kind = AMDDWARF_ENTRY_VALUE;
  st = amddwarf__value_from_bytes(m, &e->value, type, buf, size);
  if (st != AMDDWARF_OK)
    m->sp--;
  return st;
}

/* DW_OP_xderef*: A on top, AS below; as swap; form_aspace_address. */
static amddwarf_status xderef_location(machine *m, uint32_t base, amddwarf_location *out)
{
  amddwarf_value a, as;
  amddwarf_status st = amddwarf__stack_pop_integral(m, base, &a);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_pop_integral(m, base, &as);
  if (st != AMDDWARF_OK)
    return st;
  uint32_t aspace;
  if (amddwarf_aspace_from_xderef(m->req->xderef, amddwarf__value_u64(&as), &aspace) != AMDDWARF_OK)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                        "%llu is not an address space in the %s numbering",
                        (unsigned long long)amddwarf__value_u64(&as),
                        m->req->xderef == AMDDWARF_XDEREF_LEGACY ? "legacy" : "DW_ASPACE");
  uint64_t address;
  amddwarf__aspace_address(m, aspace, amddwarf__value_u64(&a), &address); /* a listed space */
  memory_location(out, aspace, address);
  return AMDDWARF_OK;
}

static amddwarf_status frame_base(machine *m, int64_t disp)
{
  const uint8_t *bytes = NULL;
  size_t size = 0;
  amddwarf_location loc;
  if (!TARGET_HAS(m->t, frame_base))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no frame base");
  amddwarf_status st = m->t->frame_base(m->t->user, &bytes, &size);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "frame base: %s", amddwarf_status_message(st));
  st = amddwarf__eval_own_frame(m, bytes, size, "DW_AT_frame_base", &loc);
  if (st != AMDDWARF_OK)
    return st;
  if (loc.kind == AMDDWARF_LOCATION_REGISTER) {
    /* The register-location rule: DW_OP_deref gives a default-space address.
       A register narrower than the generic type is read whole, zero-extended. */
    uint64_t x;
    if (loc.byte_offset != 0 || loc.bit != 0)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_FRAME_BASE, "frame base register location has a bit offset");
    st = amddwarf__register_number(m, loc.u.reg.regno, 0, machine_generic_bits(m) / 8, false, &x);
    if (st != AMDDWARF_OK)
      return st;
    memory_location(&loc, AMDDWARF_ASPACE_NONE, x & bits_mask(machine_generic_bits(m)));
  } else if (loc.kind != AMDDWARF_LOCATION_MEMORY) {
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_FRAME_BASE, "the frame base is a %s location description",
                        amddwarf_location_kind_name(loc.kind));
  }
  if (!amddwarf__memory_move(m, loc.u.memory.aspace, loc.byte_offset, disp, &loc.byte_offset))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE,
                                  "the frame base moved by %lld bytes leaves address space %u",
                                  (long long)disp, (unsigned)loc.u.memory.aspace);
  return amddwarf__stack_push_location(m, &loc);
}

static amddwarf_status target_address(machine *m, const char *what,
                                      amddwarf_status (*fn)(void *, uint32_t *, uint64_t *))
{
  uint32_t aspace = 0;
  uint64_t address = 0;
  if (!fn)
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no %s", what);
  amddwarf_status st = fn(m->t->user, &aspace, &address);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "%s: %s", what, amddwarf_status_message(st));
  if (amddwarf__aspace_address_bytes(m, aspace) == 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE, "%s in address space %u", what,
                        (unsigned)aspace);
  amddwarf_location loc;
  memory_location(&loc, aspace, address);
  return amddwarf__stack_push_location(m, &loc);
}

/* ---- registers ------------------------------------------------------------------ */

/* regx, bregx, LLVM_aspace_bregx and fbreg: what each pushes is its row of
   plan_lower.def (register_based). LLVM_aspace_bregx's offset is
   unsigned (specs/encodings.md), added modulo the address size. */
amddwarf_status amddwarf__op_register_based(machine *m, op_step *s)
{
  const amddwarf_op *op = s->op;
  register_based what = (register_based)amddwarf__lowering_parameter(op);
  uint32_t aspace = AMDDWARF_ASPACE_NONE;
  uint64_t address;
  if (what == FRAME_BASE_ADDRESS)
    return frame_base(m, (int64_t)op->operands[0]);
  if (what == REGISTER_ADDRESS_POPPED_SPACE) {
    amddwarf_status st = pop_dwarf_aspace(m, s->base, &aspace);
    if (st != AMDDWARF_OK)
      return st;
  }
  if (op->operands[0] > UINT32_MAX)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_REGISTER, "register %llu",
                                  (unsigned long long)op->operands[0]);
  if (what == REGISTER_LOCATION)
    return amddwarf__stack_push_register(m, (uint32_t)op->operands[0]);
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  if (n == 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE,
                                  "address space %u is not one of DW_ASPACE_*", (unsigned)aspace);
  amddwarf_status st = amddwarf__register_address(m, (uint32_t)op->operands[0], 0,
                                                  op->operands[1], n, false, &address);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__stack_push_memory(m, aspace, address);
}

amddwarf_status amddwarf__op_regval_type(machine *m, op_step *s)
{
  amddwarf_base_type type;
  amddwarf_location loc;
  amddwarf_status st = amddwarf__type_lookup(m, s->op->operands[1], &type);
  if (st != AMDDWARF_OK)
    return st;
  register_location(&loc, (uint32_t)s->op->operands[0]);
  return deref(m, &loc, type.bit_size * type.count, &type, false);
}

/* ---- addresses ------------------------------------------------------------------ */

/* addr and LLVM_undefined: the kind of location is their row of
   plan_lower.def. */
amddwarf_status amddwarf__op_fixed_location(machine *m, op_step *s)
{
  amddwarf_location loc;
  if (amddwarf__lowering_parameter(s->op) == AMDDWARF_LOCATION_MEMORY)
    memory_location(&loc, AMDDWARF_ASPACE_NONE, s->op->operands[0]);
  else
    undefined_location(&loc);
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__op_encoded_addr(machine *m, op_step *s)
{
  if ((s->op->operands[0] & 0x70) != 0)
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED,
                        "DW_OP_GNU_encoded_addr with a relative encoding 0x%02x",
                        (unsigned)s->op->operands[0]);
  return amddwarf__stack_push_memory(m, AMDDWARF_ASPACE_NONE, s->op->operands[1]);
}

/* DW_OP_addrx and DW_OP_constx (and their GNU forms): a .debug_addr entry
   as an address or a constant. */
amddwarf_status amddwarf__op_address_index(machine *m, op_step *s)
{
  const amddwarf_op *op = s->op;
  amddwarf_status st;
  uint64_t x;
  amddwarf_error why;
  amddwarf_error_clear(&why);
  if (TARGET_HAS(m->t, address_index_err))
    st = m->t->address_index_err(m->t->user, op->operands[0], &x, &why);
  else if (TARGET_HAS(m->t, address_index))
    st = m->t->address_index(m->t->user, op->operands[0], &x);
  else
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no .debug_addr");
  if (st != AMDDWARF_OK && why.message[0] != '\0')
    return amddwarf__machine_fail(m, st, "%s", why.message);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, ".debug_addr entry %llu: %s", (unsigned long long)op->operands[0],
                        amddwarf_status_message(st));
  if (op->kind == AMDDWARF_OP_constx || op->kind == AMDDWARF_OP_GNU_const_index)
    return amddwarf__stack_push_generic(m, x);
  return amddwarf__stack_push_memory(m, AMDDWARF_ASPACE_NONE, x);
}

amddwarf_status amddwarf__op_push_object_address(machine *m, op_step *s)
{
  (void)s;
  if (m->in_entry_value)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_IN_CONTEXT,
                        "DW_OP_push_object_address inside DW_OP_entry_value");
  return target_address(m, "object address",
                        TARGET_HAS(m->t, object_address) ? m->t->object_address : NULL);
}

amddwarf_status amddwarf__op_call_frame_cfa(machine *m, op_step *s)
{
  (void)s;
  return target_address(m, "CFA", TARGET_HAS(m->t, cfa) ? m->t->cfa : NULL);
}

amddwarf_status amddwarf__op_tls_address(machine *m, op_step *s)
{
  amddwarf_value a;
  uint64_t address;
  amddwarf_status st = amddwarf__stack_pop_integral(m, s->base, &a);
  if (st != AMDDWARF_OK)
    return st;
  if (!TARGET_HAS(m->t, tls_address))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target has no thread-local storage");
  st = m->t->tls_address(m->t->user, amddwarf__value_u64(&a), &address);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "TLS offset 0x%llx: %s", (unsigned long long)amddwarf__value_u64(&a),
                        amddwarf_status_message(st));
  return amddwarf__stack_push_memory(m, AMDDWARF_ASPACE_NONE, address);
}

/* ---- dereference ------------------------------------------------------------------ */

/* DW_OP_deref, DW_OP_deref_size, DW_OP_xderef_size and DW_OP_xderef: a
   generic value zero-extended from the bytes read. */
amddwarf_status amddwarf__op_deref_size(machine *m, op_step *s)
{
  amddwarf_op_kind kind = s->op->kind;
  amddwarf_location loc;
  amddwarf_base_type type;
  bool extended = kind == AMDDWARF_OP_xderef_size || kind == AMDDWARF_OP_xderef;
  amddwarf_status st = extended ? xderef_location(m, s->base, &loc)
                                : amddwarf__stack_pop_location(m, s->base, &loc);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t bytes = kind == AMDDWARF_OP_xderef ? machine_generic_bits(m) / 8
                                              : amddwarf__deref_bytes(s->op, machine_generic_bits(m));
  if (bytes * 8 > machine_generic_bits(m))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE, "%u bytes is larger than the generic type",
                        (unsigned)bytes);
  amddwarf__type_lookup(m, 0, &type);
  return deref(m, &loc, (uint32_t)bytes * 8, &type, true);
}

amddwarf_status amddwarf__op_deref_type(machine *m, op_step *s)
{
  const amddwarf_op *op = s->op;
  amddwarf_location loc;
  amddwarf_base_type type;
  amddwarf_status st = amddwarf__type_lookup(m, op->operands[1], &type);
  if (st != AMDDWARF_OK)
    return st;
  if ((uint64_t)type.bit_size * type.count != op->operands[0] * 8)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE,
                        "size operand %llu does not match the %u-bit base type",
                        (unsigned long long)op->operands[0],
                        (unsigned)(type.bit_size * type.count));
  st = op->kind == AMDDWARF_OP_xderef_type ? xderef_location(m, s->base, &loc)
                                            : amddwarf__stack_pop_location(m, s->base, &loc);
  if (st != AMDDWARF_OK)
    return st;
  return deref(m, &loc, (uint32_t)op->operands[0] * 8, &type, false);
}

/* ---- lanes and offsets ------------------------------------------------------------ */

amddwarf_status amddwarf__op_push_lane(machine *m, op_step *s)
{
  (void)s;
  if (!amddwarf__machine_has_lane(m, m->lane))
    return amddwarf__machine_fail(m, AMDDWARF_E_AMDGPU_BAD_LANE, "lane %u is not in a wave of %u lanes",
                        (unsigned)m->lane, (unsigned)amddwarf__machine_wave_size(m));
  return amddwarf__stack_push_generic(m, m->lane);
}

/* DW_OP_LLVM_offset, DW_OP_LLVM_bit_offset and DW_OP_LLVM_offset_uconst:
   the location moves by the value above it (bytes; bits for bit_offset) or
   by the operand (offset_uconst: bytes, at most 2^63 - 1). A complete
   location moves in place. */
amddwarf_status amddwarf__op_offset(machine *m, op_step *s)
{
  bool uconst = s->op->kind == AMDDWARF_OP_LLVM_offset_uconst;
  amddwarf_location loc, *at = &loc;
  uint64_t ux = s->op->operands[0];
  int64_t sx = (int64_t)ux;
  amddwarf_status st = uconst ? AMDDWARF_OK : amddwarf__stack_pop_integral_u64(m, s->base, &ux, &sx);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_need(m, s->base, 1);
  amddwarf_entry *e = st == AMDDWARF_OK ? stack_top(m, 0) : NULL;
  if (e && e->kind == AMDDWARF_ENTRY_LOCATION && !e->incomplete)
    at = &e->location;
  else if (e)
    st = amddwarf__stack_pop_location(m, s->base, &loc);
  if (st != AMDDWARF_OK)
    return st;
  if (uconst && ux > INT64_MAX)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_OFFSET_OUT_OF_RANGE, "displacement %llu",
                                  (unsigned long long)ux);
  st = s->op->kind == AMDDWARF_OP_LLVM_bit_offset ? amddwarf__loc_add_bits(m, at, sx)
                                                  : amddwarf__loc_add_bytes(m, at, sx);
  return st == AMDDWARF_OK && at == &loc ? amddwarf__stack_push_location(m, &loc) : st;
}

/* ---- undefined and implicit locations -------------------------------------------- */

amddwarf_status amddwarf__op_implicit_value(machine *m, op_step *s)
{
  amddwarf_location loc;
  implicit_location(&loc, s->op->block, s->op->operands[0] * 8);
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__op_stack_value(machine *m, op_step *s)
{
  amddwarf_value a;
  amddwarf_location loc;
  amddwarf_status st = amddwarf__stack_pop_value(m, s->base, &a);
  if (st != AMDDWARF_OK)
    return st;
  if (a.is_implicit_pointer)
    return amddwarf__stack_push_location(m, &a.pointer);
  size_t n = amddwarf_value_size(&a);
  uint8_t *copy = amddwarf__pool_alloc(m, n ? n : 1);
  if (!copy)
    return AMDDWARF_E_LIMIT;
  memcpy(copy, amddwarf_value_bytes(&a), n);
  implicit_location(&loc, copy, (uint64_t)a.type.bit_size * a.type.count);
  return amddwarf__stack_push_location(m, &loc);
}

/* DW_OP_implicit_pointer, its GNU form and DW_OP_LLVM_aspace_implicit_pointer
   (which takes its address space from the stack). */
amddwarf_status amddwarf__op_implicit_pointer(machine *m, op_step *s)
{
  const amddwarf_op *op = s->op;
  uint32_t aspace = AMDDWARF_ASPACE_NONE;
  amddwarf_location loc;
  if (op->kind == AMDDWARF_OP_LLVM_aspace_implicit_pointer) {
    amddwarf_status st = pop_dwarf_aspace(m, s->base, &aspace);
    if (st != AMDDWARF_OK)
      return st;
  }
  memset(&loc, 0, sizeof loc);
  loc.kind = AMDDWARF_LOCATION_IMPLICIT_POINTER;
  loc.u.implicit_pointer.die = op->operands[0];
  loc.u.implicit_pointer.displacement = (int64_t)op->operands[1];
  loc.u.implicit_pointer.aspace = aspace;
  loc.u.implicit_pointer.bit_size = amddwarf__aspace_address_bytes(m, aspace) * 8;
  return amddwarf__stack_push_location(m, &loc);
}

amddwarf_status amddwarf__op_form_aspace_address(machine *m, op_step *s)
{
  uint32_t aspace, base = s->base;
  amddwarf_status st = pop_dwarf_aspace(m, base, &aspace);
  if (st == AMDDWARF_OK)
    st = amddwarf__stack_need(m, base, 1);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_entry *e = stack_top(m, 0);
  if (e->kind == AMDDWARF_ENTRY_VALUE && e->value.is_implicit_pointer) {
    amddwarf_location ip = e->value.pointer, out;
    if (ip.u.implicit_pointer.aspace != aspace)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                          "an implicit pointer value of address space %u used with address space %u",
                          (unsigned)ip.u.implicit_pointer.aspace, (unsigned)aspace);
    m->sp--;
    st = amddwarf__resolve_implicit_pointer(m, &ip, &out);
    if (st != AMDDWARF_OK)
      return st;
    return amddwarf__stack_push_location(m, &out);
  }
  uint64_t address;
  int64_t signed_address;
  st = amddwarf__stack_pop_integral_u64(m, base, &address, &signed_address);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf__aspace_address(m, aspace, address, &address); /* a listed space */
  return amddwarf__stack_push_memory(m, aspace, address);
}
