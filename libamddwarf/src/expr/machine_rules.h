/* The rules of rules.h that ask the machine, written once for the general
 * machine, the fast path (fast.c) and the whole-wave evaluator (lanes.c):
 * a leaf's storage, a register's value as a number and as an address, a
 * number as an address in a space (specs/evaluator.md, "One owner per
 * rule"). Inline: the fast paths ask them once per step. */
#ifndef AMDDWARF_EXPR_MACHINE_RULES_H
#define AMDDWARF_EXPR_MACHINE_RULES_H

#include "common/bytes.h"
#include "expr/eval_internal.h"

/* The register's size in bytes: FIXED (its size on the fixed AMDGPU map, as
   a plan carries it) unless 0 or the target sizes registers; else asked. */
static inline amddwarf_status register_size(machine *m, uint32_t regno, uint64_t fixed,
                                            uint64_t *bytes)
{
  if (fixed != 0 && !m->registers_sized_by_target) {
    *bytes = fixed;
    return AMDDWARF_OK;
  }
  return register_bytes(m, regno, bytes);
}

/* The storage of a leaf of KIND: memory of address space ID (not one:
   E_EVAL_BAD_ADDRESS_SPACE, unreported), register ID (FIXED as register_size
   takes it) or undefined storage. *OUT is set only on success. */
static inline __attribute__((always_inline)) amddwarf_status
amddwarf__storage_of(machine *m, amddwarf_location_kind kind, uint32_t id, uint64_t fixed,
                     storage_size *out)
{
  if (kind == AMDDWARF_LOCATION_MEMORY) {
    unsigned n = amddwarf__aspace_address_bytes(m, id);
    if (n == 0)
      return AMDDWARF_E_EVAL_BAD_ADDRESS_SPACE;
    *out = memory_storage(n);
    return AMDDWARF_OK;
  }
  if (kind == AMDDWARF_LOCATION_REGISTER) {
    uint64_t bytes;
    amddwarf_status st = register_size(m, id, fixed, &bytes);
    if (st != AMDDWARF_OK)
      return st;
    *out = sized_storage(bytes * 8);
    return AMDDWARF_OK;
  }
  *out = (storage_size){.unbounded = true};
  return AMDDWARF_OK;
}

/* The address-space rule (form_aspace_address, xderef): NUMBER as an
   address of ASPACE, its low 8 * (address bytes) bits; false when ASPACE is
   no address space. */
static inline bool amddwarf__aspace_address(const machine *m, uint32_t aspace, uint64_t number,
                                            uint64_t *address)
{
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  *address = number & rule_address_mask(n);
  return n != 0;
}

/* A memory location moved by a signed byte count within its storage
   (fbreg's frame base plus its offset, on every path): byte BYTE of
   address space ASPACE moved by DELTA bytes into *MOVED (set only when
   true); false when ASPACE is no address space or the move leaves it.
   rule_move_bytes for a space, its steps inline: through
   amddwarf__storage_of's status or an outlined rule_move_bytes the fast
   path pays instructions per evaluation. */
static inline __attribute__((always_inline)) bool
amddwarf__memory_move(const machine *m, uint32_t aspace, uint64_t byte, int64_t delta,
                      uint64_t *moved)
{
  unsigned n = amddwarf__aspace_address_bytes(m, aspace);
  storage_size storage = memory_storage(n);
  uint64_t to;
  if (n == 0 || !rule_moved_byte(byte, delta, &to) || !rule_inside(&storage, to, 0))
    return false;
  *moved = to;
  return true;
}

/* Register REGNO's value as a number (breg*, a register frame base): its
   first bytes, at most MAX_BYTES, little-endian. DIRECT (the fast path:
   never traced, never in an entry value) reads straight from the target
   and reports nothing; else amddwarf__access_read reads and reports. */
static inline __attribute__((always_inline)) amddwarf_status
amddwarf__register_number(machine *m, uint32_t regno, uint64_t fixed, unsigned max_bytes,
                          bool direct, uint64_t *out)
{
  uint64_t size;
  uint8_t buf[8] = {0};
  amddwarf_status st = register_size(m, regno, fixed, &size);
  if (st != AMDDWARF_OK)
    return st;
  if (size > max_bytes)
    size = max_bytes;
  if (direct) {
    const amddwarf_target *t = m->t;
    if (!TARGET_HAS(t, read_register))
      return AMDDWARF_E_UNSUPPORTED;
    if (size)
      st = t->read_register(t->user, regno, 0, size, buf);
  } else {
    amddwarf_location reg;
    register_location(&reg, regno);
    st = amddwarf__access_read(m, &reg, 0, size * 8, buf, 0);
  }
  *out = amddwarf__load_le64(buf);
  return st;
}

/* The breg family's address: register REGNO's value (8 bytes at most) plus
   OFFSET in a space of ADDRESS_BYTES-byte addresses. */
static inline __attribute__((always_inline)) amddwarf_status
amddwarf__register_address(machine *m, uint32_t regno, uint64_t fixed, uint64_t offset,
                           unsigned address_bytes, bool direct, uint64_t *address)
{
  uint64_t value;
  amddwarf_status st = amddwarf__register_number(m, regno, fixed, 8, direct, &value);
  *address = rule_register_address(value, offset, address_bytes);
  return st;
}

#endif
