/* Code objects: addresses the object does not know. A location's address
 * (a .debug_addr entry, a DW_OP_addr operand) that comes from a symbol
 * without an address (undefined, an LDS variable the loader places, a
 * common symbol) holds whatever the relocation or the link wrote there, 0
 * for an undefined symbol: a made-up answer. Relocatable objects say so in
 * their relocations (elf.c notes them); linked objects keep only the
 * undefined symbol in their symbol tables, which a unit's variables are
 * matched with by name the first time the unit's addresses are asked about
 * (through DIE references: no DIE summary is made). specs/code-objects.md,
 * "Addresses the object does not know". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/target.h>

#include "common/checked.h"
#include "common/mem.h"
#include "object/internal.h"

#define NAME_BYTES 1024 /* longest candidate symbol name tried */

/* ---- noting ---- */

amddwarf_status amddwarf__object_note_unknown_reloc(amddwarf_object *object, uint32_t section,
                                                   uint64_t offset, const char *name,
                                                   amddwarf_unknown_reason reason,
                                                   amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&object->allocator, (void **)&object->unknown_relocs,
                           &object->unknown_reloc_capacity, object->unknown_reloc_count + 1,
                           sizeof *object->unknown_relocs) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "relocations without an address");
  amddwarf_unknown_addr *u = &object->unknown_relocs[object->unknown_reloc_count++];
  memset(u, 0, sizeof *u);
  u->section = section;
  u->offset = offset;
  u->symbol = name;
  u->reason = (uint8_t)reason;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__object_note_unresolved(amddwarf_object *object, const char *name,
                                                amddwarf_unknown_reason reason,
                                                amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&object->allocator, (void **)&object->unresolved,
                           &object->unresolved_capacity, object->unresolved_count + 1,
                           sizeof *object->unresolved) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "symbols without an address");
  amddwarf_unresolved_symbol *grown = object->unresolved;
  object->unresolved = grown;
  grown[object->unresolved_count].name = name;
  grown[object->unresolved_count].reason = (uint8_t)reason;
  object->unresolved_count++;
  return AMDDWARF_OK;
}

static int unknown_order(const void *a, const void *b)
{
  const amddwarf_unknown_addr *x = a, *y = b;
  if (x->section != y->section)
    return x->section < y->section ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint64_t name_hash(const char *name)
{
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (; *name; ++name)
    h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
  return h;
}

amddwarf_status amddwarf__object_index_unknown(amddwarf_object *object, amddwarf_error *err)
{
  if (object->unknown_reloc_count > 1)
    qsort(object->unknown_relocs, object->unknown_reloc_count, sizeof *object->unknown_relocs,
          unknown_order);
  if (object->unresolved_count == 0)
    return AMDDWARF_OK;
  size_t cap = 16;
  while (cap < 2 * object->unresolved_count)
    cap *= 2;
  object->unresolved_slots = amddwarf__arena_calloc(&object->arena, cap, sizeof(uint32_t));
  if (object->unresolved_slots == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "symbols without an address");
  object->unresolved_mask = cap - 1;
  for (size_t i = 0; i < object->unresolved_count; ++i) {
    size_t k = (size_t)name_hash(object->unresolved[i].name) & object->unresolved_mask;
    while (object->unresolved_slots[k] != 0)
      k = (k + 1) & object->unresolved_mask;
    object->unresolved_slots[k] = (uint32_t)i + 1;
  }
  return AMDDWARF_OK;
}

void amddwarf__object_free_unknown(amddwarf_object *object)
{
  amddwarf__mem_free(&object->allocator, object->unknown_relocs,
                    object->unknown_reloc_capacity * sizeof *object->unknown_relocs);
  object->unknown_relocs = NULL;
  object->unknown_reloc_count = object->unknown_reloc_capacity = 0;
  amddwarf__mem_free(&object->allocator, object->unresolved,
                    object->unresolved_capacity * sizeof *object->unresolved);
  object->unresolved = NULL;
  object->unresolved_count = object->unresolved_capacity = 0;
}

static bool knows_unknowns(const amddwarf_object *object)
{
  return object->unknown_reloc_count > 0 || object->unresolved_count > 0;
}

/* ---- where an operation's address lives ---- */

static bool is_address_op(amddwarf_op_kind kind)
{
  return kind == AMDDWARF_OP_addr || kind == AMDDWARF_OP_addrx || kind == AMDDWARF_OP_constx ||
         kind == AMDDWARF_OP_GNU_addr_index || kind == AMDDWARF_OP_GNU_const_index;
}

/* The section and offset of the address OP of BYTES (unit CU) uses: the
   operand of DW_OP_addr where BYTES lie, the .debug_addr entry of the
   indexed forms. False when it has none or it is not in a section. */
static bool address_field(const amddwarf_object *object, const amddwarf_cu *cu,
                          const uint8_t *bytes, const amddwarf_op *op, uint32_t *section,
                          uint64_t *offset)
{
  if (op->kind == AMDDWARF_OP_addr) {
    uintptr_t p = (uintptr_t)bytes + (uintptr_t)op->offset + 1;
    for (size_t i = 1; i < object->section_count; ++i) {
      const amddwarf_section *s = &object->sections[i];
      uintptr_t base = (uintptr_t)s->data;
      if (s->is_debug && s->data != NULL && p >= base && p - base < s->size) {
        *section = (uint32_t)i;
        *offset = (uint64_t)(p - base);
        return true;
      }
    }
    return false;
  }
  if (!is_address_op(op->kind) || object->sec_addr == NULL || cu == NULL)
    return false;
  uint64_t at;
  if (amddwarf_mul_overflow_u64(op->operands[0], cu->address_size, &at) ||
      amddwarf_add_overflow_u64(at, cu->addr_base, &at))
    return false;
  *section = (uint32_t)(object->sec_addr - object->sections);
  *offset = at;
  return true;
}

static const amddwarf_unknown_addr *search(const amddwarf_unknown_addr *table, size_t count,
                                           uint32_t section, uint64_t offset)
{
  amddwarf_unknown_addr key;
  memset(&key, 0, sizeof key);
  key.section = section;
  key.offset = offset;
  return count ? bsearch(&key, table, count, sizeof key, unknown_order) : NULL;
}

const amddwarf_unknown_addr *amddwarf__object_unknown_at(const amddwarf_object *object,
                                                        const amddwarf_cu *cu, uint32_t section,
                                                        uint64_t offset)
{
  const amddwarf_unknown_addr *u = NULL;
  if (!knows_unknowns(object))
    return NULL;
  /* The unit's own table names the variable; the relocations of a
     relocatable object cover every other use. */
  if (cu != NULL && amddwarf__object_ensure_unknown(object, cu->index, NULL) == AMDDWARF_OK) {
    const amddwarf_unit *unit = &object->units[cu->index];
    u = search(unit->unknown, unit->unknown_count, section, offset);
  }
  if (u == NULL)
    u = search(object->unknown_relocs, object->unknown_reloc_count, section, offset);
  return u;
}

const amddwarf_unknown_addr *amddwarf__object_unknown_of_op(const amddwarf_object *object,
                                                           const amddwarf_cu *cu,
                                                           const uint8_t *bytes,
                                                           const amddwarf_op *op)
{
  uint32_t section;
  uint64_t offset;
  if (object == NULL || !knows_unknowns(object) || !is_address_op(op->kind) ||
      !address_field(object, cu, bytes, op, &section, &offset))
    return NULL;
  return amddwarf__object_unknown_at(object, cu, section, offset);
}

/* ---- messages ---- */

void amddwarf__object_describe_unknown(const amddwarf_object *object,
                                      const amddwarf_unknown_addr *u, const char *what, char *buf,
                                      size_t size)
{
  (void)object;
  static const char *const why[] = {
      [AMDDWARF_UNKNOWN_UNDEFINED] = "which is undefined in this relocatable object",
      [AMDDWARF_UNKNOWN_LINK_UNDEFINED] = "which the link left undefined",
      [AMDDWARF_UNKNOWN_LDS] = "an LDS symbol (SHN_AMDGPU_LDS) that the loader places",
      [AMDDWARF_UNKNOWN_COMMON] = "a common symbol, which has no address before the link",
  };
  _Static_assert(sizeof why / sizeof why[0] == AMDDWARF_UNKNOWN_COMMON + 1,
                 "one description per reason");
  const char *reason = u->reason < sizeof why / sizeof why[0] ? why[u->reason] : "?";
  const char *subject = u->local ? "this local (LDS) variable"
                        : u->variable ? "this variable"
                                         : "what it locates";
  snprintf(buf, size, "%s comes from the symbol %s, %s: the object does not say where %s is",
           what, u->symbol, reason, subject);
}

void amddwarf__object_describe_unknown_op(const amddwarf_object *object,
                                         const amddwarf_unknown_addr *u, const amddwarf_op *op,
                                         char *buf, size_t size)
{
  char what[64];
  if (op->kind == AMDDWARF_OP_addr)
    snprintf(what, sizeof what, "the address operand of DW_OP_addr");
  else
    snprintf(what, sizeof what, ".debug_addr entry %llu", (unsigned long long)op->operands[0]);
  amddwarf__object_describe_unknown(object, u, what, buf, size);
}

/* ---- a unit's variables ---- */

/* Whether OPS[0..N) go on with an address-space conversion to the local
   (LDS) space: "lit<k>, swap, xderef" or "lit<k>, DW_OP_LLVM_form_aspace_address". */
static bool converts_to_local(const amddwarf_cu *cu, const amddwarf_op *ops, size_t n)
{
  uint64_t k;
  uint32_t aspace = UINT32_MAX;
  if (n < 3)
    return false;
  if (ops[1].kind >= AMDDWARF_OP_lit0 && ops[1].kind <= AMDDWARF_OP_lit31)
    k = (uint64_t)(ops[1].kind - AMDDWARF_OP_lit0);
  else if (ops[1].kind == AMDDWARF_OP_constu)
    k = ops[1].operands[0];
  else
    return false;
  if (ops[2].kind == AMDDWARF_OP_LLVM_form_aspace_address) {
    aspace = k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
  } else if (n >= 4 && ops[2].kind == AMDDWARF_OP_swap && ops[3].kind == AMDDWARF_OP_xderef) {
    amddwarf_xderef_numbering numbering = cu->convention == AMDDWARF_CONVENTION_LEGACY
                                              ? AMDDWARF_XDEREF_LEGACY
                                              : AMDDWARF_XDEREF_DWARF;
    if (amddwarf_aspace_from_xderef(numbering, k, &aspace) != AMDDWARF_OK)
      return false;
  }
  return aspace == AMDDWARF_ASPACE_AMDGPU_LOCAL;
}

static const amddwarf_unresolved_symbol *unresolved_named(const amddwarf_object *object,
                                                          const char *name)
{
  if (object->unresolved_slots == NULL || name == NULL || name[0] == '\0')
    return NULL;
  for (size_t k = (size_t)name_hash(name) & object->unresolved_mask;
       object->unresolved_slots[k] != 0; k = (k + 1) & object->unresolved_mask) {
    const amddwarf_unresolved_symbol *s = &object->unresolved[object->unresolved_slots[k] - 1];
    if (strcmp(s->name, name) == 0)
      return s;
  }
  return NULL;
}

/* The symbol a linked object would name variable DIE (its fields F) by,
   among those without an address: its linkage name; in a function F,
   "F.NAME" (clang's name for OpenCL __local and C static locals) and the
   Itanium "_ZZ<F's encoding>E<len>NAME" (C++ and HIP static locals,
   __shared__); outside any function, NAME. */
static const amddwarf_unresolved_symbol *variable_symbol(const amddwarf_object *object,
                                                         const amddwarf_die_fields *var)
{
  const amddwarf_unresolved_symbol *s = unresolved_named(object, var->linkage_name);
  char name[NAME_BYTES];
  if (s != NULL || var->name == NULL)
    return s;
  amddwarf_die_fields f;
  amddwarf_die_ref up = var->parent;
  bool in_function = false;
  while (!in_function && amddwarf_die_ref_valid(up) &&
         amddwarf_object_die_fields(object, up, &f, NULL) == AMDDWARF_OK) {
    in_function = f.tag == DW_TAG_subprogram;
    up = f.parent;
  }
  if (!in_function)
    return unresolved_named(object, var->name);
  if (f.name != NULL && (size_t)snprintf(name, sizeof name, "%s.%s", f.name, var->name) <
                            sizeof name &&
      (s = unresolved_named(object, name)) != NULL)
    return s;
  if (f.linkage_name != NULL && strncmp(f.linkage_name, "_Z", 2) == 0 &&
      (size_t)snprintf(name, sizeof name, "_ZZ%sE%zu%s", f.linkage_name + 2,
                       strlen(var->name), var->name) < sizeof name)
    s = unresolved_named(object, name);
  return s;
}

typedef struct marks {
  amddwarf_object *object;
  const amddwarf_cu *cu;
  const amddwarf_die_fields *var;
  amddwarf_unknown_addr *items;
  size_t count, capacity;
  amddwarf_status status;
  amddwarf_error *err;
} marks;

/* Looks at the first operations of expression BYTES (SIZE) of variable
   M->VAR. */
static amddwarf_status mark_expr(marks *m, const uint8_t *bytes, size_t size)
{
  amddwarf_object *object = m->object;
  const amddwarf_cu *cu = m->cu;
  amddwarf_op ops[4];
  size_t n = 0;
  uint32_t section;
  uint64_t offset;
  if (bytes == NULL || size == 0)
    return AMDDWARF_OK;
  /* Only the operations decoded before any failure (or a full array) count. */
  amddwarf_expr_decode(bytes, size, &cu->format, ops, sizeof ops / sizeof ops[0], &n, NULL);
  if (n == 0 || !is_address_op(ops[0].kind) ||
      !address_field(object, cu, bytes, &ops[0], &section, &offset))
    return AMDDWARF_OK;
  const amddwarf_unknown_addr *reloc =
      search(object->unknown_relocs, object->unknown_reloc_count, section, offset);
  const amddwarf_unresolved_symbol *sym = NULL;
  if (reloc == NULL && object->info.elf_type != ET_REL)
    sym = variable_symbol(object, m->var);
  if (reloc == NULL && sym == NULL)
    return AMDDWARF_OK;
  if (amddwarf__mem_reserve(&object->allocator, (void **)&m->items, &m->capacity, m->count + 1,
                           sizeof *m->items) != 0)
    return amddwarf__fail(m->err, AMDDWARF_E_NO_MEMORY, m->var->die.offset, "unknown addresses");
  amddwarf_unknown_addr *u = &m->items[m->count++];
  memset(u, 0, sizeof *u);
  u->section = section;
  u->offset = offset;
  u->symbol = reloc != NULL ? reloc->symbol : sym->name;
  u->reason = reloc != NULL ? reloc->reason : sym->reason;
  u->local = (uint8_t)converts_to_local(cu, ops, n);
  u->variable = 1;
  return AMDDWARF_OK;
}

static int mark_entry(void *user, const amddwarf_loc_entry *entry)
{
  marks *m = user;
  m->status = mark_expr(m, entry->expr, entry->size);
  return m->status != AMDDWARF_OK;
}

/* The variable DIE of the unit M->CU: its location's first address. */
static amddwarf_status mark_variable(marks *m, amddwarf_die_ref die)
{
  amddwarf_attribute a;
  amddwarf_die_fields var;
  amddwarf_status st = amddwarf_object_die_attribute(m->object, die, DW_AT_location, 0, &a, m->err);
  if (st == AMDDWARF_NOT_FOUND ||
      (st == AMDDWARF_OK && a.value.kind != AMDDWARF_ATTR_EXPR && a.value.kind != AMDDWARF_ATTR_LIST))
    return AMDDWARF_OK;
  if (st == AMDDWARF_OK)
    st = amddwarf_object_die_fields(m->object, die, &var, m->err);
  if (st != AMDDWARF_OK)
    return st;
  m->var = &var;
  if (a.value.kind == AMDDWARF_ATTR_EXPR)
    return mark_expr(m, a.value.bytes, a.value.size);
  m->status = AMDDWARF_OK;
  st = amddwarf_object_die_list_entries(m->object, die, DW_AT_location, mark_entry, m, m->err);
  return st == AMDDWARF_END ? m->status : st;
}

/* Finds the variables of unit CU_INDEX (indexed) whose location starts
   with an address the object does not know into M. */
static amddwarf_status mark_unit(marks *m, size_t cu_index)
{
  const amddwarf_unit *unit = &m->object->units[cu_index];
  const amddwarf_abbrev_table *abbrevs = &m->object->abbrev_tables[unit->abbrev_table];
  amddwarf_status st = AMDDWARF_OK;
  for (uint32_t i = 0; i < unit->die_count && st == AMDDWARF_OK; ++i) {
    const amddwarf_die_record *rec = &unit->records[i];
    if (abbrevs->all[rec->abbrev].tag != DW_TAG_variable)
      continue;
    amddwarf_die_ref die = {m->cu->offset + rec->offset, (uint32_t)cu_index, i};
    st = mark_variable(m, die);
  }
  return st;
}

amddwarf_status amddwarf__object_ensure_unknown(const amddwarf_object *cobject, size_t cu_index,
                                               amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = &object->units[cu_index];
  if (!knows_unknowns(object) ||
      atomic_load_explicit(&unit->unknown_state, memory_order_acquire) == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  amddwarf_status st = amddwarf__object_ensure_index(object, cu_index, err);
  if (st != AMDDWARF_OK)
    return st;
  pthread_mutex_lock(&object->load_lock);
  marks m = {object, &object->cus[cu_index], NULL, NULL, 0, 0, AMDDWARF_OK, err};
  if (atomic_load_explicit(&unit->unknown_state, memory_order_acquire) != AMDDWARF_UNIT_READY)
    st = mark_unit(&m, cu_index);
  if (st == AMDDWARF_OK && m.count > 0) {
    amddwarf_unknown_addr *kept = amddwarf__arena_alloc(&object->arena, m.count * sizeof *kept, 8);
    if (kept == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, m.cu->offset, "unknown addresses");
    } else {
      memcpy(kept, m.items, m.count * sizeof *kept);
      qsort(kept, m.count, sizeof *kept, unknown_order);
      unit->unknown = kept;
      unit->unknown_count = m.count;
    }
  }
  if (st == AMDDWARF_OK)
    atomic_store_explicit(&unit->unknown_state, AMDDWARF_UNIT_READY, memory_order_release);
  pthread_mutex_unlock(&object->load_lock);
  amddwarf__mem_free(&object->allocator, m.items, m.capacity * sizeof *m.items);
  return st;
}

/* ---- public ---- */

amddwarf_status amddwarf_object_address_index(const amddwarf_object *object,
                                              const amddwarf_cu *cu, uint64_t index,
                                              uint64_t *address, amddwarf_error *err)
{
  if (object == NULL || cu == NULL || address == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_address_index: NULL argument");
  amddwarf_status st = amddwarf__object_read_addrx(object, cu, index, address, err);
  if (st != AMDDWARF_OK || !knows_unknowns(object))
    return st;
  /* read_addrx checked that the entry is inside the section. */
  uint64_t at = cu->addr_base + index * cu->address_size;
  const amddwarf_unknown_addr *u = amddwarf__object_unknown_at(
      object, cu, (uint32_t)(object->sec_addr - object->sections), at);
  if (u == NULL)
    return AMDDWARF_OK;
  char what[64], message[AMDDWARF_ERROR_MESSAGE_SIZE];
  snprintf(what, sizeof what, ".debug_addr entry %llu", (unsigned long long)index);
  amddwarf__object_describe_unknown(object, u, what, message, sizeof message);
  return amddwarf__fail(err, AMDDWARF_E_EVAL_UNAVAILABLE, at, "%s", message);
}

amddwarf_status amddwarf_object_expr_addresses_known(const amddwarf_object *object,
                                                     const amddwarf_cu *cu, const uint8_t *bytes,
                                                     size_t size, amddwarf_error *err)
{
  enum { INLINE_OPS = 16 };
  amddwarf_op inline_ops[INLINE_OPS], *ops = inline_ops;
  size_t n = 0;
  if (object == NULL || cu == NULL || (bytes == NULL && size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_expr_addresses_known: NULL argument");
  if (!knows_unknowns(object) || size == 0)
    return AMDDWARF_OK;
  /* An expression of SIZE bytes has at most SIZE operations. */
  if (size > INLINE_OPS) {
    ops = amddwarf__mem_alloc(&object->allocator, size * sizeof *ops);
    if (ops == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "expression");
  }
  amddwarf_expr_decode(bytes, size, &cu->format, ops, size > INLINE_OPS ? size : INLINE_OPS, &n,
                       NULL);
  amddwarf_status st = AMDDWARF_OK;
  for (size_t i = 0; i < n; ++i) {
    const amddwarf_unknown_addr *u = amddwarf__object_unknown_of_op(object, cu, bytes, &ops[i]);
    if (u == NULL)
      continue;
    char message[AMDDWARF_ERROR_MESSAGE_SIZE];
    amddwarf__object_describe_unknown_op(object, u, &ops[i], message, sizeof message);
    st = amddwarf__fail_op(err, AMDDWARF_E_EVAL_UNAVAILABLE, ops[i].offset, ops[i].opcode,
                          (int32_t)ops[i].subop, "%s", message);
    break;
  }
  if (ops != inline_ops)
    amddwarf__mem_free(&object->allocator, ops, size * sizeof *ops);
  return st;
}
