/* Code objects: the passes over .debug_info that find units and scopes.
 *
 * Opening reads every unit header and unit DIE (names, bases, the unit's
 * PC ranges, its line table offset) and nothing else. The first time a
 * unit is asked for, one pass (the unit's "scan") steps over its other
 * DIEs without summarizing them: an abbreviation whose forms all have
 * fixed sizes is skipped in one step. The scan keeps what is small: the
 * unit's DIE count, its subprograms' PC ranges (the unit's PC -> scope
 * index), its variables and its convention. A PC is looked up in the units
 * whose ranges hold it first, as llvm-dwarfdump --lookup does, so one
 * question about a large object scans one unit. DIEs are then read
 * through references and each unit's compact index (die_index.c).
 *
 * The scan checks the structure of every DIE of its unit (abbreviation
 * codes, forms, nesting, unit bounds): a malformed unit keeps its error;
 * what the scan steps over (references, strings, most lists) is checked
 * when the unit is loaded (unit_verify.c). */
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"

#define AMDDWARF_DEFAULT_MAX_DIES 50000000u
#define AMDDWARF_MAX_EXTENSION_SCAN 4096u

/* ---- the convention of a unit ---- */

/* Scans an expression for extension operations: the raw opcodes 0xe0 and
   above that no standard or GNU operation uses (DESIGN.md section 6). */
static bool bytes_have_extension_op(const amddwarf_cu *cu, const uint8_t *bytes, size_t size)
{
  amddwarf_op ops[64];
  size_t count = 0;
  if (size == 0 || size > AMDDWARF_MAX_EXTENSION_SCAN)
    return false;
  bool candidate = false;
  for (size_t i = 0; i < size && !candidate; ++i)
    candidate = bytes[i] >= 0xe0;
  if (!candidate)
    return false;
  amddwarf_op *use = size > 64 ? malloc(size * sizeof *use) : ops;
  if (use == NULL)
    return false;
  amddwarf_expr_format f = cu->format;
  f.dialect = AMDDWARF_DIALECT_AUTO;
  bool found = false;
  amddwarf_expr_decode(bytes, size, &f, use, size, &count, NULL);
  for (size_t i = 0; i < count && !found; ++i) {
    const amddwarf_op_info *info = amddwarf_op_info_get(use[i].kind);
    found = info != NULL && info->code < 0;
  }
  if (use != ops)
    free(use);
  return found;
}

bool amddwarf__object_value_has_extension_op(const amddwarf_object *object, const amddwarf_cu *cu,
                                            const amddwarf_attr_value *v)
{
  (void)object;
  if (v == NULL)
    return false;
  if (v->kind == AMDDWARF_ATTR_EXPR)
    return bytes_have_extension_op(cu, v->bytes, v->size);
  if (v->kind == AMDDWARF_ATTR_LIST)
    for (size_t i = 0; i < v->count; ++i)
      if (bytes_have_extension_op(cu, v->entries[i].expr, v->entries[i].size))
        return true;
  return false;
}

typedef struct extension_search {
  const amddwarf_cu *cu;
  bool found;
} extension_search;

static bool entry_has_extension_op(void *user, const amddwarf_loc_entry *entry)
{
  extension_search *s = user;
  s->found = bytes_have_extension_op(s->cu, entry->expr, entry->size);
  return !s->found;
}

static void choose_convention(const amddwarf_object *object, amddwarf_cu *cu, bool saw_extension,
                              bool saw_extension_op)
{
  const char *reason;
  bool ext = true;
  if (cu->augmentation != NULL)
    reason = "the unit has a DW_AT_LLVM_augmentation string";
  else if (saw_extension)
    reason = "the unit uses DW_AT_LLVM_* extension attributes";
  else if (saw_extension_op)
    reason = "a location uses DW_OP_LLVM_* extension operations";
  else {
    ext = false;
    reason = "no extension attribute, operation or augmentation: upstream clang conventions";
  }
  cu->convention = ext ? AMDDWARF_CONVENTION_EXTENSION : AMDDWARF_CONVENTION_LEGACY;
  if (object->options.convention != AMDDWARF_CONVENTION_AUTO) {
    cu->convention = object->options.convention;
    reason = "chosen by the caller";
  }
  cu->convention_reason = reason;
  /* The producer quirks apply to legacy units only: an extension unit says
     what it means with the extension's own operations. */
  cu->quirks = cu->convention == AMDDWARF_CONVENTION_LEGACY &&
                       !(object->options.flags & AMDDWARF_OBJECT_NO_QUIRKS)
                   ? amddwarf_quirks_of_producer(cu->producer)
                   : 0;
  if (object->options.dialect != AMDDWARF_DIALECT_AUTO)
    cu->format.dialect = object->options.dialect;
}

/* ---- one unit ---- */

typedef struct scan {
  amddwarf_object *object;
  amddwarf_cu *cu;
  amddwarf_unit *unit;
  amddwarf_form_reader fr;
  const amddwarf_abbrev_table *abbrevs;
  amddwarf_error *err;
  uint32_t max_dies;
  uint32_t die_index;    /* of the DIE being read, in the unit */
  bool saw_extension;    /* an LLVM/AMDGPU extension attribute */
  bool saw_extension_op; /* a location or frame base with an extension operation */
  amddwarf_unit_records *index; /* when not NULL, the unit's index is filled too */
} scan;

/* The error of a DIE at OFF whose abbreviation CODE is not in the unit's table. */
static amddwarf_status unknown_abbrev(const scan *s, uint64_t off, uint64_t code)
{
  return amddwarf__fail(s->err, AMDDWARF_E_OBJECT_DWARF, off,
                       ".debug_info at 0x%llx: abbreviation code %llu is not in the table at "
                       ".debug_abbrev 0x%llx",
                       (unsigned long long)off, (unsigned long long)code,
                       (unsigned long long)s->abbrevs->offset);
}

static amddwarf_status add_scope(scan *s, uint64_t low, uint64_t high, uint64_t die_offset)
{
  amddwarf_unit *unit = s->unit;
  if (high <= low)
    return AMDDWARF_OK;
  if (amddwarf__mem_reserve(&s->object->allocator, (void **)&unit->scopes, &unit->scope_capacity,
                           unit->scope_count + 1, sizeof *unit->scopes) != 0)
    return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, die_offset, "scope index");
  amddwarf_scope_entry *e = &unit->scopes[unit->scope_count++];
  e->low = low;
  e->high = high;
  e->die_offset = die_offset;
  e->cu_index = s->cu->index;
  e->die_index = s->die_index;
  return AMDDWARF_OK;
}

/* Notes the unit DIE's variable at OFF, for the variables in scope at a PC
   (amddwarf_object_var_refs_at) without walking the unit. */
static amddwarf_status add_global(scan *s, uint64_t off)
{
  amddwarf_unit *unit = s->unit;
  if (amddwarf__mem_reserve(&s->object->allocator, (void **)&unit->globals,
                           &unit->global_capacity, unit->global_count + 1,
                           sizeof *unit->globals) != 0)
    return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, off, "unit variables");
  amddwarf_unit_global *g = &unit->globals[unit->global_count++];
  g->offset = (uint32_t)(off - s->cu->offset);
  g->index = s->die_index;
  return AMDDWARF_OK;
}

/* The unit DIE's bases (addr_base, str_offsets_base, ...) first: its other
   attributes may need them. */
static amddwarf_status read_unit_bases(scan *s, amddwarf_reader r, const amddwarf_abbrev *ab,
                                       uint64_t die_offset)
{
  amddwarf_cu *cu = s->cu;
  uint64_t low_index = UINT64_MAX;
  cu->line_offset = UINT64_MAX;
  for (uint32_t i = 0; i < ab->count; ++i) {
    amddwarf_attribute a;
    amddwarf__attribute_clear(&a, ab->attrs[i].at);
    amddwarf_status st = amddwarf__form_read(&s->fr, &r, &ab->attrs[i], &a, die_offset, true);
    if (st != AMDDWARF_OK)
      return st;
    switch (a.attribute) {
    case DW_AT_addr_base:
    case DW_AT_GNU_addr_base: cu->addr_base = a.value.u; break;
    case DW_AT_loclists_base: cu->loclists_base = a.value.u; break;
    case DW_AT_rnglists_base: cu->rnglists_base = a.value.u; break;
    case DW_AT_str_offsets_base: cu->str_offsets_base = a.value.u; break;
    case DW_AT_stmt_list: cu->line_offset = a.value.u; break;
    case DW_AT_language: cu->language = (uint32_t)a.value.u; break;
    case DW_AT_low_pc:
      if (a.form == DW_FORM_addr)
        cu->low_pc = a.value.u;
      else
        low_index = a.value.u; /* an address index, resolved below */
      break;
    default: break;
    }
  }
  /* DWARF 5 without DW_AT_str_offsets_base: the first table, after its header. */
  if (cu->version >= 5 && cu->str_offsets_base == 0 && s->fr.str_offsets != NULL)
    cu->str_offsets_base = cu->offset_size == 8 ? 16 : 8;
  if (low_index != UINT64_MAX)
    return amddwarf__object_read_addrx(s->object, cu, low_index, &cu->low_pc, s->err);
  return AMDDWARF_OK;
}

/* The unit DIE: names, augmentation and PC ranges of the unit. */
static amddwarf_status read_unit_die(scan *s, amddwarf_reader *r, const amddwarf_abbrev *ab,
                                     uint64_t die_offset)
{
  amddwarf_cu *cu = s->cu;
  amddwarf_pc_pair pc;
  memset(&pc, 0, sizeof pc);
  amddwarf_status st = read_unit_bases(s, *r, ab, die_offset);
  for (uint32_t i = 0; st == AMDDWARF_OK && i < ab->count; ++i) {
    amddwarf_attribute a;
    amddwarf__attribute_clear(&a, ab->attrs[i].at);
    st = amddwarf__form_read(&s->fr, r, &ab->attrs[i], &a, die_offset, false);
    if (st != AMDDWARF_OK)
      break;
    amddwarf__pc_pair_note(&pc, &a);
    switch (a.attribute) {
    case DW_AT_name: cu->name = a.value.string; break;
    case DW_AT_producer: cu->producer = a.value.string; break;
    case DW_AT_comp_dir: cu->comp_dir = a.value.string; break;
    case AMDDWARF_DW_AT_LLVM_augmentation:
      if (a.value.kind == AMDDWARF_ATTR_STRING && ab->tag == DW_TAG_compile_unit)
        cu->augmentation = a.value.string;
      break;
    case DW_AT_ranges:
      st = amddwarf__object_read_ranges(s->object, cu, a.form, a.value.u, &cu->ranges,
                                       &cu->range_count, s->err);
      break;
    default: break;
    }
  }
  amddwarf_range one;
  if (st == AMDDWARF_OK && cu->ranges == NULL && amddwarf__pc_pair_range(&pc, ab->tag, &one)) {
    amddwarf_range *kept = amddwarf__arena_alloc(&s->object->arena, sizeof *kept, 8);
    if (kept == NULL)
      return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, die_offset, "unit ranges");
    *kept = one;
    cu->ranges = kept;
    cu->range_count = 1;
  }
  return st;
}

/* A DIE the pass must read: a subprogram (its ranges go to the scope
   index), or a location or frame base that may decide the convention. */
static amddwarf_status read_scanned_die(scan *s, amddwarf_reader *r, const amddwarf_abbrev *ab,
                                        uint64_t die_offset)
{
  amddwarf_pc_pair pc;
  const amddwarf_range *ranges = NULL;
  size_t range_count = 0;
  bool subprogram = ab->tag == DW_TAG_subprogram;
  memset(&pc, 0, sizeof pc);
  for (uint32_t i = 0; i < ab->count; ++i) {
    const amddwarf_abbrev_attr *spec = &ab->attrs[i];
    bool wanted = spec->at == DW_AT_location || spec->at == DW_AT_frame_base ||
                  (subprogram && (spec->at == DW_AT_low_pc || spec->at == DW_AT_high_pc ||
                                  spec->at == DW_AT_ranges));
    amddwarf_status st;
    if (!wanted) { /* stepped over: no string or address is resolved */
      if ((st = amddwarf__form_skip(&s->fr, r, spec, die_offset)) != AMDDWARF_OK)
        return st;
      continue;
    }
    amddwarf_attribute a;
    amddwarf__attribute_clear(&a, spec->at);
    if ((st = amddwarf__form_read(&s->fr, r, spec, &a, die_offset, false)) != AMDDWARF_OK)
      return st;
    amddwarf__pc_pair_note(&pc, &a);
    if (subprogram && a.attribute == DW_AT_ranges) {
      st = amddwarf__object_read_ranges(s->object, s->cu, a.form, a.value.u, &ranges,
                                       &range_count, s->err);
    } else if ((a.attribute == DW_AT_location || a.attribute == DW_AT_frame_base) &&
               !s->saw_extension_op) {
      if (a.value.kind == AMDDWARF_ATTR_EXPR) {
        s->saw_extension_op = bytes_have_extension_op(s->cu, a.value.bytes, a.value.size);
      } else if (a.value.kind == AMDDWARF_ATTR_LIST) {
        extension_search search = {s->cu, false};
        st = amddwarf__object_visit_loclist(s->object, s->cu, a.form, a.value.u,
                                           entry_has_extension_op, &search, s->err);
        s->saw_extension_op = search.found;
      }
    }
    if (st != AMDDWARF_OK)
      return st;
  }
  if (!subprogram)
    return AMDDWARF_OK;
  amddwarf_status st = AMDDWARF_OK;
  amddwarf_range one;
  if (ranges == NULL && amddwarf__pc_pair_range(&pc, ab->tag, &one))
    st = add_scope(s, one.low, one.high, die_offset);
  for (size_t i = 0; st == AMDDWARF_OK && i < range_count; ++i)
    st = add_scope(s, ranges[i].low, ranges[i].high, die_offset);
  return st;
}

/* Appends the index record of the DIE at OFF of abbreviation AB (the
   unit's DIE S->die_index, at DEPTH) to S->index, linking it to its parent
   and previous sibling as die_index.c's own pass does. */
static amddwarf_status add_record(scan *s, uint64_t off, const amddwarf_abbrev *ab,
                                  uint32_t depth)
{
  amddwarf_unit_records *index = s->index;
  uint32_t self = s->die_index;
  if (amddwarf__mem_reserve(&s->object->allocator, (void **)&index->records, &index->capacity,
                            (size_t)self + 1, sizeof *index->records) != 0)
    return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, off, "the DIE index");
  amddwarf_die_record *rec = &index->records[self];
  rec->offset = (uint32_t)(off - s->cu->offset);
  rec->abbrev = (uint32_t)(ab - s->abbrevs->all);
  rec->parent = depth ? index->open[depth - 1] : AMDDWARF_NO_RECORD;
  rec->sibling = AMDDWARF_NO_RECORD;
  if (depth) {
    if (index->last[depth] != AMDDWARF_NO_RECORD)
      index->records[index->last[depth]].sibling = self;
    index->last[depth] = self;
  }
  if (ab->children && depth < AMDDWARF_MAX_DIE_DEPTH) {
    index->open[depth] = self;
    index->last[depth + 1] = AMDDWARF_NO_RECORD;
  }
  return AMDDWARF_OK;
}

/* Steps over the DIEs of one unit (R is bounded by the unit). */
static amddwarf_status scan_unit_dies(scan *s, amddwarf_reader *r)
{
  amddwarf_object *object = s->object;
  uint32_t depth = 0, count = 0;
  bool root_seen = false;
  amddwarf_status st0;
  while (r->pos < r->size) {
    uint64_t off = r->pos, code = 0;
    if (amddwarf_read_uleb(r, &code) != AMDDWARF_OK)
      return amddwarf__fail(s->err, AMDDWARF_E_OBJECT_DWARF, off,
                           ".debug_info at 0x%llx: truncated abbreviation code",
                           (unsigned long long)off);
    if (code == 0) {
      if (depth == 0) /* padding after the unit DIE's children */
        continue;
      if (--depth == 0)
        break;
      continue;
    }
    const amddwarf_abbrev *ab = amddwarf__abbrev_find(s->abbrevs, code);
    if (ab == NULL)
      return unknown_abbrev(s, off, code);
    if (root_seen && depth == 0)
      return amddwarf__fail(s->err, AMDDWARF_E_OBJECT_DWARF, off,
                           ".debug_info at 0x%llx: a second top-level DIE in the unit",
                           (unsigned long long)off);
    if (object->die_count + count >= s->max_dies)
      return amddwarf__fail(s->err, AMDDWARF_E_LIMIT, off, "more than %u DIEs (options.max_dies)",
                           s->max_dies);
    s->die_index = count++;
    if (s->index != NULL && (st0 = add_record(s, off, ab, depth)) != AMDDWARF_OK)
      return st0;
    if (depth == 1 && ab->tag == DW_TAG_variable && (st0 = add_global(s, off)) != AMDDWARF_OK)
      return st0;
    if (ab->scan_flags & AMDDWARF_ABBREV_EXTENSION_ATTR)
      s->saw_extension = true;
    amddwarf_status st;
    if (!root_seen) {
      root_seen = true; /* read at open (read_unit_root) */
      st = amddwarf__form_skip_die(&s->fr, r, ab, off);
    } else if (ab->tag == DW_TAG_subprogram ||
               ((ab->scan_flags & AMDDWARF_ABBREV_FRAME_OR_LOCATION) && !s->saw_extension &&
                !s->saw_extension_op && s->cu->augmentation == NULL)) {
      st = read_scanned_die(s, r, ab, off);
    } else {
      st = amddwarf__form_skip_die(&s->fr, r, ab, off);
    }
    if (st != AMDDWARF_OK)
      return st;
    if (ab->children) {
      if (depth >= AMDDWARF_MAX_DIE_DEPTH)
        return amddwarf__fail(s->err, AMDDWARF_E_LIMIT, off, "DIE 0x%llx: nesting deeper than %u",
                             (unsigned long long)off, AMDDWARF_MAX_DIE_DEPTH);
      ++depth;
    } else if (depth == 0) {
      break;
    }
  }
  s->unit->die_count = count;
  s->cu->die_count = count;
  object->die_count += count;
  return AMDDWARF_OK;
}

/* Reads the unit DIE at R (after any padding), which open keeps: the
   unit's names, bases, ranges and line table offset. */
static amddwarf_status read_unit_root(scan *s, amddwarf_reader *r)
{
  while (r->pos < r->size) {
    uint64_t off = r->pos, code = 0;
    if (amddwarf_read_uleb(r, &code) != AMDDWARF_OK)
      break;
    if (code == 0)
      continue; /* padding before the unit DIE */
    const amddwarf_abbrev *ab = amddwarf__abbrev_find(s->abbrevs, code);
    if (ab == NULL)
      return unknown_abbrev(s, off, code);
    s->cu->die_offset = off;
    return read_unit_die(s, r, ab, off);
  }
  return amddwarf__fail(s->err, AMDDWARF_E_OBJECT_DWARF, r->pos,
                       ".debug_info at 0x%llx: truncated abbreviation code",
                       (unsigned long long)r->pos);
}

/* Reads the header of the unit at R (positioned at its start) into CU and
   UNIT; R is left at the unit DIE. */
static amddwarf_status read_unit_header(amddwarf_object *object, amddwarf_reader *r,
                                        amddwarf_cu *cu, amddwarf_unit *unit,
                                        uint64_t *abbrev_offset, amddwarf_error *err)
{
  const amddwarf_section *info = object->sec_info;
  uint64_t unit_offset = r->pos, length = 0;
  uint32_t len32 = 0;
  uint16_t version = 0;
  uint8_t unit_type = DW_UT_compile, address_size = 0, offset_size = 4;
  if (amddwarf__read_u32(r, &len32) != AMDDWARF_OK)
    goto truncated;
  length = len32;
  if (len32 == 0xffffffffu) {
    offset_size = 8;
    if (amddwarf__read_u64(r, &length) != AMDDWARF_OK)
      goto truncated;
  } else if (len32 >= 0xfffffff0u) {
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: reserved unit length 0x%x",
                         (unsigned long long)unit_offset, len32);
  }
  if (length > info->size - r->pos)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: unit length 0x%llx runs past the section",
                         (unsigned long long)unit_offset, (unsigned long long)length);
  unit->end = r->pos + length;
  if (length > UINT32_MAX - 16) /* DIE references hold offsets in the unit in 32 bits */
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, unit_offset,
                         ".debug_info at 0x%llx: a unit of 4 GiB or more",
                         (unsigned long long)unit_offset);
  if (amddwarf__read_u16(r, &version) != AMDDWARF_OK)
    goto truncated;
  if (version < 2 || version > 5)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, unit_offset,
                         ".debug_info at 0x%llx: DWARF version %u", (unsigned long long)unit_offset,
                         version);
  if (version >= 5) {
    if (amddwarf_read_u8(r, &unit_type) != AMDDWARF_OK ||
        amddwarf_read_u8(r, &address_size) != AMDDWARF_OK ||
        amddwarf__read_uint(r, offset_size, abbrev_offset) != AMDDWARF_OK)
      goto truncated;
    /* Skeleton and split units carry a DWO id; type units a signature and
       the offset of their type. */
    size_t extra = unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile ? 8
                   : unit_type == DW_UT_type || unit_type == DW_UT_split_type      ? 8u + offset_size
                                                                                   : 0;
    const uint8_t *skipped = NULL;
    if (extra > 0 && amddwarf__read_bytes(r, extra, &skipped) != AMDDWARF_OK)
      goto truncated;
  } else {
    if (amddwarf__read_uint(r, offset_size, abbrev_offset) != AMDDWARF_OK ||
        amddwarf_read_u8(r, &address_size) != AMDDWARF_OK)
      goto truncated;
  }
  if (address_size != 4 && address_size != 8 && address_size != 2)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, unit_offset,
                         ".debug_info at 0x%llx: address size %u", (unsigned long long)unit_offset,
                         address_size);
  if (r->pos > unit->end)
    goto truncated;
  cu->offset = unit_offset;
  cu->die_offset = r->pos;
  cu->version = version;
  cu->unit_type = unit_type;
  cu->address_size = address_size;
  cu->offset_size = offset_size;
  amddwarf_expr_format_init(&cu->format);
  cu->format.address_size = address_size;
  cu->format.offset_size = offset_size;
  cu->format.version = version;
  return AMDDWARF_OK;
truncated:
  return amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, r->pos,
                       ".debug_info at 0x%zx: unit header runs past the section", r->pos);
}

static amddwarf_status add_unit(amddwarf_object *object, uint64_t offset, amddwarf_cu **cu,
                                amddwarf_unit **unit, amddwarf_error *err)
{
  size_t n = object->cu_count, cu_capacity = object->cu_capacity;
  if (amddwarf__mem_reserve(&object->allocator, (void **)&object->cus, &object->cu_capacity, n + 1,
                           sizeof *object->cus) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "unit table");
  /* The units table follows the capacity of the cus table. */
  if (object->cu_capacity != cu_capacity) {
    void *grown = amddwarf__mem_realloc(&object->allocator, object->units,
                                       cu_capacity * sizeof *object->units,
                                       object->cu_capacity * sizeof *object->units);
    if (grown == NULL) {
      object->cu_capacity = cu_capacity; /* the cus table is only larger than needed */
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "unit table");
    }
    object->units = grown;
  }
  *cu = &object->cus[n];
  *unit = &object->units[n];
  memset(*cu, 0, sizeof **cu);
  memset(*unit, 0, sizeof **unit);
  (*cu)->index = (uint32_t)n;
  /* What a unit whose header cannot be read still says of itself. */
  (*cu)->offset = offset;
  (*cu)->die_offset = offset;
  (*cu)->line_offset = UINT64_MAX;
  amddwarf_expr_format_init(&(*cu)->format);
  object->cu_count = n + 1;
  return AMDDWARF_OK;
}

/* A unit whose header or DIEs are malformed: no DIE of it can be read; its
   line table still can when its unit DIE gave DW_AT_stmt_list. */
static void fail_unit_at_open(amddwarf_object *object, amddwarf_cu *cu, amddwarf_unit *unit,
                              const amddwarf_error *why)
{
  unit->failure = *why;
  unit->global_count = 0;
  unit->die_count = 0;
  cu->die_count = 0;
  if (cu->convention == AMDDWARF_CONVENTION_AUTO)
    choose_convention(object, cu, false, false);
  atomic_store_explicit(&unit->state, AMDDWARF_UNIT_FAILED, memory_order_relaxed);
  atomic_store_explicit(&unit->scan_state, AMDDWARF_UNIT_FAILED, memory_order_release);
}

amddwarf_status amddwarf__object_scan_dwarf(amddwarf_object *object, amddwarf_error *err)
{
  static const struct {
    const char *name;
    size_t field;
  } sections[] = {
      {".debug_info", offsetof(amddwarf_object, sec_info)},
      {".debug_abbrev", offsetof(amddwarf_object, sec_abbrev)},
      {".debug_addr", offsetof(amddwarf_object, sec_addr)},
      {".debug_loc", offsetof(amddwarf_object, sec_loc)},
      {".debug_loclists", offsetof(amddwarf_object, sec_loclists)},
      {".debug_ranges", offsetof(amddwarf_object, sec_ranges)},
      {".debug_rnglists", offsetof(amddwarf_object, sec_rnglists)},
      {".debug_line", offsetof(amddwarf_object, sec_line)},
      {".debug_str", offsetof(amddwarf_object, sec_str)},
      {".debug_line_str", offsetof(amddwarf_object, sec_line_str)},
      {".debug_str_offsets", offsetof(amddwarf_object, sec_str_offsets)},
  };
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; ++i)
    *(const amddwarf_section **)((char *)object + sections[i].field) =
        amddwarf__object_find_section(object, sections[i].name);
  const amddwarf_section *info = object->sec_info;
  if (info == NULL || info->size == 0)
    return AMDDWARF_OK; /* no DWARF: an object with only ELF information */
  amddwarf_reader r;
  amddwarf_reader_init(&r, info->data, (size_t)info->size);
  while (r.pos < info->size) {
    amddwarf_cu *cu = NULL;
    amddwarf_unit *unit = NULL;
    uint64_t abbrev_offset = 0;
    amddwarf_error unit_err;
    amddwarf_error_clear(&unit_err);
    amddwarf_status st = add_unit(object, r.pos, &cu, &unit, err);
    if (st != AMDDWARF_OK)
      return st;
    st = read_unit_header(object, &r, cu, unit, &abbrev_offset, &unit_err);
    if (st == AMDDWARF_OK)
      st = amddwarf__abbrev_table_get(object, abbrev_offset, &unit->abbrev_table, &unit_err);
    if (st == AMDDWARF_OK) {
      amddwarf_abbrev_table *abbrevs = &object->abbrev_tables[unit->abbrev_table];
      amddwarf__abbrev_table_prepare(abbrevs, cu);
      scan s;
      memset(&s, 0, sizeof s);
      s.object = object;
      s.cu = cu;
      s.unit = unit;
      s.abbrevs = abbrevs;
      s.err = &unit_err;
      s.fr = amddwarf_form_reader_make(object, cu, &unit_err);
      amddwarf_reader ur = r;
      ur.size = (size_t)unit->end;
      st = read_unit_root(&s, &ur);
    }
    if (st == AMDDWARF_E_NO_MEMORY) {
      if (err != NULL)
        *err = unit_err;
      return st; /* the object as a whole is too large */
    }
    if (st != AMDDWARF_OK) {
      /* The other units stay readable: this one keeps its error. */
      unit_err.status = st;
      fail_unit_at_open(object, cu, unit, &unit_err);
      if (unit->end <= r.pos || unit->end > info->size)
        break; /* its length is unusable: the units after it cannot be found */
    }
    r.pos = (size_t)unit->end;
  }
  return AMDDWARF_OK;
}

/* ---- the scan of one unit, on first use ---- */

/* Scans unit CU_INDEX (the load lock held): its DIE count, scope index,
   variables and convention, or its failure; with INDEX, its compact DIE
   index in the same pass (die_index.c keeps it when the scan succeeds). */
static void scan_unit(amddwarf_object *object, size_t cu_index, amddwarf_unit_records *index)
{
  amddwarf_cu *cu = &object->cus[cu_index];
  amddwarf_unit *unit = &object->units[cu_index];
  amddwarf_error unit_err;
  amddwarf_error_clear(&unit_err);
  uint32_t max_dies =
      object->options.max_dies ? object->options.max_dies : AMDDWARF_DEFAULT_MAX_DIES;
  scan s;
  memset(&s, 0, sizeof s);
  s.object = object;
  s.cu = cu;
  s.unit = unit;
  s.abbrevs = &object->abbrev_tables[unit->abbrev_table];
  s.err = &unit_err;
  s.max_dies = max_dies;
  s.index = index;
  s.fr = amddwarf_form_reader_make(object, cu, &unit_err);
  amddwarf_reader r;
  amddwarf_reader_init(&r, object->sec_info->data, (size_t)unit->end);
  r.pos = (size_t)cu->die_offset;
  amddwarf_status st = scan_unit_dies(&s, &r);
  if (st == AMDDWARF_OK)
    st = amddwarf__object_build_scopes(object, unit, &unit_err);
  if (st == AMDDWARF_OK) {
    choose_convention(object, cu, s.saw_extension, s.saw_extension_op);
    if (index != NULL)
      amddwarf__object_adopt_index(object, cu_index, index->records);
  } else {
    unit_err.status = st;
    unit->scope_count = 0;
    fail_unit_at_open(object, cu, unit, &unit_err);
  }
  atomic_store_explicit(&unit->scan_state, st == AMDDWARF_OK ? AMDDWARF_UNIT_READY
                                                             : AMDDWARF_UNIT_FAILED,
                        memory_order_release);
}

void amddwarf__object_ensure_scanned(const amddwarf_object *cobject, size_t cu_index)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = &object->units[cu_index];
  if (atomic_load_explicit(&unit->scan_state, memory_order_acquire) != AMDDWARF_UNIT_UNLOADED)
    return;
  pthread_mutex_lock(&object->load_lock);
  if (atomic_load_explicit(&unit->scan_state, memory_order_acquire) == AMDDWARF_UNIT_UNLOADED)
    scan_unit(object, cu_index, NULL);
  pthread_mutex_unlock(&object->load_lock);
}

void amddwarf__object_scan_all(const amddwarf_object *cobject)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  if (atomic_load_explicit(&object->all_scanned, memory_order_acquire))
    return;
  pthread_mutex_lock(&object->load_lock);
  if (!atomic_load_explicit(&object->all_scanned, memory_order_acquire)) {
    size_t first = 0;
    for (size_t i = 0; i < object->cu_count; ++i) {
      amddwarf__object_ensure_scanned(object, i);
      object->units[i].first_die = first;
      object->cus[i].first_die = first;
      first += object->units[i].die_count;
    }
    atomic_store_explicit(&object->all_scanned, true, memory_order_release);
  }
  pthread_mutex_unlock(&object->load_lock);
}

void amddwarf__object_scan_all_indexed(const amddwarf_object *cobject)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  if (atomic_load_explicit(&object->all_scanned, memory_order_acquire))
    return;
  amddwarf_unit_records *index = amddwarf__mem_calloc(&object->allocator, 1, sizeof *index);
  pthread_mutex_lock(&object->load_lock);
  for (size_t i = 0; index != NULL && i < object->cu_count; ++i) {
    amddwarf_unit *unit = &object->units[i];
    if (atomic_load_explicit(&unit->scan_state, memory_order_acquire) == AMDDWARF_UNIT_UNLOADED &&
        atomic_load_explicit(&unit->index_state, memory_order_acquire) == AMDDWARF_UNIT_UNLOADED)
      scan_unit(object, i, index);
  }
  pthread_mutex_unlock(&object->load_lock);
  if (index != NULL)
    amddwarf__mem_free(&object->allocator, index->records, index->capacity * sizeof *index->records);
  amddwarf__mem_free(&object->allocator, index, sizeof *index);
  amddwarf__object_scan_all(object); /* the units scanned before, and the numbering */
}
