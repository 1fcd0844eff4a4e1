/* The DWARF builder API: units, DIEs and their attributes, location and range
 * lists, line rows. The section bytes are made by dwarf_writer.c. */
#include <amddwarf/dwarf.h>
#include <amddwarf/produce.h>

#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "produce/dwarf_model.h"
#include "produce/produce_internal.h"


void amddwarf_dwarf_options_init(amddwarf_dwarf_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->version = 5;
  options->offset_size = 4;
  options->dialect = AMDDWARF_DIALECT_USER;
  options->wave_size = 64;
}

amddwarf_status amddwarf_dwarf_builder_new(const amddwarf_dwarf_options *options,
                                           const amddwarf_allocator *alloc,
                                           amddwarf_dwarf_builder **out)
{
  if (!out)
    return AMDDWARF_E_INVALID_ARGUMENT;
  *out = NULL;
  amddwarf_dwarf_options opts;
  amddwarf_dwarf_options_init(&opts);
  if (options) {
    if (options->struct_size < sizeof opts)
      return AMDDWARF_E_INVALID_ARGUMENT;
    opts = *options;
  }
  if ((opts.version != 4 && opts.version != 5) ||
      (opts.offset_size != 4 && opts.offset_size != 8) ||
      (opts.wave_size != 32 && opts.wave_size != 64) || opts.dialect >= AMDDWARF_DIALECT_COUNT)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_allocator a = amddwarf__allocator_resolve(alloc);
  amddwarf_dwarf_builder *b = amddwarf__mem_calloc(&a, 1, sizeof *b);
  if (!b)
    return AMDDWARF_E_NO_MEMORY;
  b->alloc = a;
  b->options = opts;
  *out = b;
  return AMDDWARF_OK;
}

static void free_str(amddwarf_dwarf_builder *b, char *s)
{
  if (s)
    amddwarf__mem_free(&b->alloc, s, strlen(s) + 1);
}

void amddwarf_dwarf_builder_free(amddwarf_dwarf_builder *b)
{
  if (!b)
    return;
  amddwarf_allocator *a = &b->alloc;
  for (size_t i = 0; i < b->die_count; i++) {
    dw_die *d = &b->dies[i];
    for (size_t k = 0; k < d->attr_count; k++) {
      dw_attr *at = &d->attrs[k];
      amddwarf__mem_free(a, at->str, at->str_size);
      amddwarf_expr_builder_free(at->expr);
      amddwarf__mem_free(a, at->bytes, at->byte_size);
    }
    amddwarf__mem_free(a, d->attrs, d->attr_capacity * sizeof *d->attrs);
  }
  amddwarf__mem_free(a, b->dies, b->die_capacity * sizeof *b->dies);
  for (size_t i = 0; i < b->unit_count; i++) {
    dw_unit *u = &b->units[i];
    free_str(b, u->name);
    free_str(b, u->comp_dir);
    for (size_t k = 0; k < u->file_count; k++) {
      free_str(b, u->files[k].name);
      free_str(b, u->files[k].dir);
    }
    amddwarf__mem_free(a, u->files, u->file_capacity * sizeof *u->files);
    amddwarf__mem_free(a, u->rows, u->row_capacity * sizeof *u->rows);
    amddwarf__mem_free(a, u->addrs, u->addr_capacity * sizeof *u->addrs);
  }
  amddwarf__mem_free(a, b->units, b->unit_capacity * sizeof *b->units);
  for (size_t i = 0; i < b->loclist_count; i++) {
    dw_loclist *l = &b->loclists[i];
    for (size_t k = 0; k < l->count; k++)
      amddwarf_expr_builder_free(l->entries[k].expr);
    amddwarf__mem_free(a, l->entries, l->capacity * sizeof *l->entries);
  }
  amddwarf__mem_free(a, b->loclists, b->loclist_capacity * sizeof *b->loclists);
  for (size_t i = 0; i < b->rangelist_count; i++) {
    dw_rangelist *r = &b->rangelists[i];
    amddwarf__mem_free(a, r->starts, r->count * sizeof *r->starts);
    amddwarf__mem_free(a, r->ends, r->count * sizeof *r->ends);
  }
  amddwarf__mem_free(a, b->rangelists, b->rangelist_capacity * sizeof *b->rangelists);
  amddwarf_allocator copy = b->alloc;
  amddwarf__mem_free(&copy, b, sizeof *b);
}

const amddwarf_allocator *amddwarf__dwarf_builder_allocator(const amddwarf_dwarf_builder *b)
{
  return &b->alloc;
}

uint16_t amddwarf__dwarf_builder_version(const amddwarf_dwarf_builder *b)
{
  return b->options.version;
}

void amddwarf_dwarf_builder_expr_format(const amddwarf_dwarf_builder *b,
                                        amddwarf_expr_format *format)
{
  amddwarf_expr_format_init(format);
  format->dialect = b->options.dialect;
  format->address_size = 8;
  format->offset_size = b->options.offset_size;
  format->version = b->options.version;
}

uint16_t amddwarf_dwarf_ext_attr_code(const amddwarf_dwarf_builder *b, amddwarf_ext_attr attr)
{
  int old = b && b->options.old_attribute_codes;
  switch (attr) {
  case AMDDWARF_EXT_AT_LANES:
    return old ? AMDDWARF_DW_AT_LLVM_lanes_old : AMDDWARF_DW_AT_LLVM_lanes;
  case AMDDWARF_EXT_AT_LANE_PC:
    return old ? AMDDWARF_DW_AT_LLVM_lane_pc_old : AMDDWARF_DW_AT_LLVM_lane_pc;
  case AMDDWARF_EXT_AT_VECTOR_SIZE:
    return old ? AMDDWARF_DW_AT_LLVM_vector_size_old : AMDDWARF_DW_AT_LLVM_vector_size;
  case AMDDWARF_EXT_AT_ACTIVE_LANE:
    return AMDDWARF_DW_AT_LLVM_active_lane; /* never renumbered: no newer code exists */
  case AMDDWARF_EXT_AT_AUGMENTATION:
    return AMDDWARF_DW_AT_LLVM_augmentation;
  case AMDDWARF_EXT_AT_ADDRESS_SPACE:
    return AMDDWARF_DW_AT_LLVM_address_space;
  case AMDDWARF_EXT_AT_MEMORY_SPACE:
    return AMDDWARF_DW_AT_LLVM_memory_space;
  }
  return 0;
}

char *amddwarf__dwarf_strdup(amddwarf_dwarf_builder *b, const char *s, size_t *size)
{
  size_t n = strlen(s) + 1;
  char *copy = amddwarf__mem_alloc(&b->alloc, n);
  if (copy)
    memcpy(copy, s, n);
  if (size)
    *size = n;
  return copy;
}

dw_die *amddwarf__dwarf_die_get(const amddwarf_dwarf_builder *b, amddwarf_die_id id)
{
  if (!b || id == 0 || id > b->die_count)
    return NULL;
  return &b->dies[id - 1];
}

dw_attr *amddwarf__dwarf_die_attr(const dw_die *die, uint16_t at)
{
  for (size_t i = 0; i < die->attr_count; i++)
    if (die->attrs[i].at == at)
      return &die->attrs[i];
  return NULL;
}

static amddwarf_status new_die(amddwarf_dwarf_builder *b, amddwarf_die_id parent, uint32_t unit,
                               uint16_t tag, amddwarf_die_id *out, amddwarf_error *err)
{
  if (b->die_count >= UINT32_MAX - 1 ||
      amddwarf__mem_reserve(&b->alloc, (void **)&b->dies, &b->die_capacity, b->die_count + 1,
                           sizeof *b->dies) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_die *d = &b->dies[b->die_count];
  memset(d, 0, sizeof *d);
  d->tag = tag;
  d->unit = unit;
  d->parent = parent;
  amddwarf_die_id id = (amddwarf_die_id)++b->die_count;
  if (parent) {
    dw_die *p = &b->dies[parent - 1];
    if (p->last_child)
      b->dies[p->last_child - 1].next_sibling = id;
    else
      p->first_child = id;
    p->last_child = id;
  }
  *out = id;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_die_new(amddwarf_dwarf_builder *b, amddwarf_die_id parent,
                                       uint16_t tag, amddwarf_die_id *die, amddwarf_error *err)
{
  if (!b || !die)
    return AMDDWARF_E_INVALID_ARGUMENT;
  dw_die *p = amddwarf__dwarf_die_get(b, parent);
  if (!p)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "parent DIE %u does not exist", (unsigned)parent);
  if (tag == 0 || tag == AMDDWARF_DW_TAG_compile_unit)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "tag 0x%x cannot be a child DIE (use amddwarf_dwarf_unit_new)",
                         (unsigned)tag);
  return new_die(b, parent, p->unit, tag, die, err);
}

amddwarf_status amddwarf__dwarf_attr_add(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                        uint16_t at, value_kind kind, dw_attr **out,
                                        amddwarf_error *err)
{
  dw_die *d = amddwarf__dwarf_die_get(b, die);
  if (!d)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "DIE %u does not exist", (unsigned)die);
  if (at == 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "attribute code 0 on DIE %u", (unsigned)die);
  if (amddwarf__dwarf_die_attr(d, at))
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_DUPLICATE_ATTRIBUTE, AMDDWARF_NO_OFFSET,
                         "DIE %u (tag 0x%x) already has attribute 0x%x", (unsigned)die,
                         (unsigned)d->tag, (unsigned)at);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&d->attrs, &d->attr_capacity, d->attr_count + 1,
                           sizeof *d->attrs) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_attr *a = &d->attrs[d->attr_count++];
  memset(a, 0, sizeof *a);
  a->at = at;
  a->kind = kind;
  *out = a;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_attr_udata(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                          uint16_t at, uint64_t value, amddwarf_error *err)
{
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_UDATA, &a, err);
  if (st == AMDDWARF_OK)
    a->u = value;
  return st;
}

amddwarf_status amddwarf_dwarf_attr_sdata(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                          uint16_t at, int64_t value, amddwarf_error *err)
{
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_SDATA, &a, err);
  if (st == AMDDWARF_OK)
    a->u = (uint64_t)value;
  return st;
}

amddwarf_status amddwarf_dwarf_attr_string(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                           uint16_t at, const char *value, amddwarf_error *err)
{
  if (!value)
    return AMDDWARF_E_INVALID_ARGUMENT;
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_STRING, &a, err);
  if (st != AMDDWARF_OK)
    return st;
  a->str = amddwarf__dwarf_strdup(b, value, &a->str_size);
  if (!a->str) {
    a->str_size = 0;
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_attr_flag(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                         uint16_t at, amddwarf_error *err)
{
  dw_attr *a = NULL;
  return amddwarf__dwarf_attr_add(b, die, at, VALUE_FLAG, &a, err);
}

amddwarf_status amddwarf_dwarf_attr_ref(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                        uint16_t at, amddwarf_die_id target, amddwarf_error *err)
{
  if (!amddwarf__dwarf_die_get(b, target))
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "attribute 0x%x of DIE %u refers to DIE %u, which does not exist",
                         (unsigned)at, (unsigned)die, (unsigned)target);
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_REF, &a, err);
  if (st == AMDDWARF_OK)
    a->u = target;
  return st;
}

amddwarf_status amddwarf_dwarf_attr_text_addr(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                              uint16_t at, uint64_t text_offset,
                                              amddwarf_error *err)
{
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_ADDR, &a, err);
  if (st == AMDDWARF_OK)
    a->u = text_offset;
  return st;
}

static amddwarf_status check_expr_format(const amddwarf_dwarf_builder *b,
                                         const amddwarf_expr_builder *expr, amddwarf_error *err)
{
  const amddwarf_expr_format *f = amddwarf_expr_builder_format(expr);
  if (!f || f->offset_size != b->options.offset_size || f->version != b->options.version ||
      f->address_size != 8 || f->dialect != b->options.dialect)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "expression format differs from the builder's (use "
                         "amddwarf_dwarf_builder_expr_format)");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_attr_expr(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                         uint16_t at, const amddwarf_expr_builder *expr,
                                         amddwarf_error *err)
{
  if (!b || !expr)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_status st = check_expr_format(b, expr, err);
  if (st != AMDDWARF_OK)
    return st;
  amddwarf_expr_builder *copy = NULL;
  st = amddwarf__produce_expr_copy(expr, &b->alloc, &copy, err);
  if (st != AMDDWARF_OK)
    return st;
  dw_attr *a = NULL;
  st = amddwarf__dwarf_attr_add(b, die, at, VALUE_EXPR, &a, err);
  if (st != AMDDWARF_OK) {
    amddwarf_expr_builder_free(copy);
    return st;
  }
  a->expr = copy;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_attr_ranges(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                           const uint64_t *starts, const uint64_t *ends,
                                           size_t count, amddwarf_error *err)
{
  if (!b || (count && (!starts || !ends)))
    return AMDDWARF_E_INVALID_ARGUMENT;
  dw_die *d = amddwarf__dwarf_die_get(b, die);
  if (!d)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "DIE %u does not exist", (unsigned)die);
  if (count == 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "DIE %u: an empty range set", (unsigned)die);
  for (size_t i = 0; i < count; i++)
    if (ends[i] <= starts[i])
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "DIE %u: range %zu [0x%llx, 0x%llx) is empty or inverted",
                           (unsigned)die, i, (unsigned long long)starts[i],
                           (unsigned long long)ends[i]);
  dw_attr *a = NULL;
  amddwarf_status st;
  if (count == 1) {
    st = amddwarf__dwarf_attr_add(b, die, AMDDWARF_DW_AT_low_pc, VALUE_ADDR, &a, err);
    if (st != AMDDWARF_OK)
      return st;
    a->u = starts[0];
    st = amddwarf__dwarf_attr_add(b, die, AMDDWARF_DW_AT_high_pc, VALUE_UDATA, &a, err);
    if (st == AMDDWARF_OK)
      a->u = ends[0] - starts[0];
    return st;
  }
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->rangelists, &b->rangelist_capacity,
                           b->rangelist_count + 1, sizeof *b->rangelists) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_rangelist *r = &b->rangelists[b->rangelist_count];
  memset(r, 0, sizeof *r);
  r->unit = d->unit;
  r->starts = amddwarf__mem_alloc(&b->alloc, count * sizeof *r->starts);
  r->ends = amddwarf__mem_alloc(&b->alloc, count * sizeof *r->ends);
  if (!r->starts || !r->ends) {
    amddwarf__mem_free(&b->alloc, r->starts, count * sizeof *r->starts);
    amddwarf__mem_free(&b->alloc, r->ends, count * sizeof *r->ends);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  memcpy(r->starts, starts, count * sizeof *starts);
  memcpy(r->ends, ends, count * sizeof *ends);
  r->count = count;
  b->rangelist_count++;
  st = amddwarf__dwarf_attr_add(b, die, AMDDWARF_DW_AT_ranges, VALUE_RANGES, &a, err);
  if (st == AMDDWARF_OK)
    a->u = b->rangelist_count - 1;
  return st;
}

amddwarf_status amddwarf_dwarf_attr_loclist(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                            uint16_t at, amddwarf_loclist_id *list,
                                            amddwarf_error *err)
{
  if (!b || !list)
    return AMDDWARF_E_INVALID_ARGUMENT;
  dw_die *d = amddwarf__dwarf_die_get(b, die);
  if (!d)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "DIE %u does not exist", (unsigned)die);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->loclists, &b->loclist_capacity,
                           b->loclist_count + 1, sizeof *b->loclists) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_attr *a = NULL;
  amddwarf_status st = amddwarf__dwarf_attr_add(b, die, at, VALUE_LOCLIST, &a, err);
  if (st != AMDDWARF_OK)
    return st;
  dw_loclist *l = &b->loclists[b->loclist_count];
  memset(l, 0, sizeof *l);
  l->unit = d->unit;
  a->u = b->loclist_count;
  *list = (amddwarf_loclist_id)b->loclist_count++;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_loclist_add(amddwarf_dwarf_builder *b, amddwarf_loclist_id list,
                                           uint64_t start, uint64_t end,
                                           const amddwarf_expr_builder *expr,
                                           amddwarf_error *err)
{
  if (!b || !expr || list >= b->loclist_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no location list %u", (unsigned)list);
  if (end <= start)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "location list %u: range [0x%llx, 0x%llx) is empty or inverted",
                         (unsigned)list, (unsigned long long)start, (unsigned long long)end);
  amddwarf_status st = check_expr_format(b, expr, err);
  if (st != AMDDWARF_OK)
    return st;
  dw_loclist *l = &b->loclists[list];
  /* entries stay sorted by start: only the neighbours can overlap */
  size_t at = l->count;
  while (at > 0 && l->entries[at - 1].start > start)
    at--;
  const dw_loc_entry *before = at > 0 ? &l->entries[at - 1] : NULL;
  const dw_loc_entry *after = at < l->count ? &l->entries[at] : NULL;
  const dw_loc_entry *hit = (before && before->end > start) ? before
                            : (after && after->start < end) ? after
                                                            : NULL;
  if (hit)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "location list %u: [0x%llx, 0x%llx) overlaps [0x%llx, 0x%llx)",
                         (unsigned)list, (unsigned long long)start, (unsigned long long)end,
                         (unsigned long long)hit->start, (unsigned long long)hit->end);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&l->entries, &l->capacity, l->count + 1,
                           sizeof *l->entries) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_expr_builder *copy = NULL;
  st = amddwarf__produce_expr_copy(expr, &b->alloc, &copy, err);
  if (st != AMDDWARF_OK)
    return st;
  memmove(&l->entries[at + 1], &l->entries[at], (l->count - at) * sizeof *l->entries);
  l->entries[at] = (dw_loc_entry){start, end, copy};
  l->count++;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_unit_new(amddwarf_dwarf_builder *b, const char *name,
                                        const char *comp_dir, const char *producer,
                                        uint32_t language, const char *augmentation,
                                        amddwarf_die_id *unit, amddwarf_error *err)
{
  if (!b || !unit)
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (amddwarf__mem_reserve(&b->alloc, (void **)&b->units, &b->unit_capacity, b->unit_count + 1,
                           sizeof *b->units) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_unit *u = &b->units[b->unit_count];
  memset(u, 0, sizeof *u);
  amddwarf_die_id die = 0;
  amddwarf_status st = new_die(b, 0, (uint32_t)b->unit_count, AMDDWARF_DW_TAG_compile_unit, &die, err);
  if (st != AMDDWARF_OK)
    return st;
  u->die = die;
  u->name = amddwarf__dwarf_strdup(b, name ? name : "", NULL);
  u->comp_dir = amddwarf__dwarf_strdup(b, comp_dir ? comp_dir : ".", NULL);
  b->unit_count++;
  if (!u->name || !u->comp_dir)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (producer)
    st = amddwarf_dwarf_attr_string(b, die, AMDDWARF_DW_AT_producer, producer, err);
  if (st == AMDDWARF_OK && language)
    st = amddwarf_dwarf_attr_udata(b, die, AMDDWARF_DW_AT_language, language, err);
  if (st == AMDDWARF_OK && name)
    st = amddwarf_dwarf_attr_string(b, die, AMDDWARF_DW_AT_name, name, err);
  if (st == AMDDWARF_OK && comp_dir)
    st = amddwarf_dwarf_attr_string(b, die, AMDDWARF_DW_AT_comp_dir, comp_dir, err);
  if (st == AMDDWARF_OK && augmentation)
    st = amddwarf_dwarf_attr_string(
        b, die, amddwarf_dwarf_ext_attr_code(b, AMDDWARF_EXT_AT_AUGMENTATION), augmentation, err);
  if (st == AMDDWARF_OK)
    *unit = die;
  return st;
}

static dw_unit *unit_of(amddwarf_dwarf_builder *b, amddwarf_die_id unit, amddwarf_error *err,
                        amddwarf_status *st)
{
  dw_die *d = amddwarf__dwarf_die_get(b, unit);
  if (!d || d->tag != AMDDWARF_DW_TAG_compile_unit || d->parent) {
    *st = amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                        "DIE %u is not a compilation unit", (unsigned)unit);
    return NULL;
  }
  *st = AMDDWARF_OK;
  return &b->units[d->unit];
}

amddwarf_status amddwarf_dwarf_line_file(amddwarf_dwarf_builder *b, amddwarf_die_id unit,
                                         const char *name, const char *directory,
                                         uint32_t *file, amddwarf_error *err)
{
  if (!b || !name || !file)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_status st;
  dw_unit *u = unit_of(b, unit, err, &st);
  if (!u)
    return st;
  if (amddwarf__mem_reserve(&b->alloc, (void **)&u->files, &u->file_capacity, u->file_count + 1,
                           sizeof *u->files) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dw_file *f = &u->files[u->file_count];
  f->name = amddwarf__dwarf_strdup(b, name, NULL);
  f->dir = directory ? amddwarf__dwarf_strdup(b, directory, NULL) : NULL;
  if (!f->name || (directory && !f->dir)) {
    free_str(b, f->name);
    free_str(b, f->dir);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  *file = (uint32_t)++u->file_count;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_dwarf_line_row(amddwarf_dwarf_builder *b, amddwarf_die_id unit,
                                        uint64_t text_offset, uint32_t file, uint32_t line,
                                        uint32_t column, int is_stmt, amddwarf_error *err)
{
  if (!b)
    return AMDDWARF_E_INVALID_ARGUMENT;
  amddwarf_status st;
  dw_unit *u = unit_of(b, unit, err, &st);
  if (!u)
    return st;
  if (file == 0 || file > u->file_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "line row at 0x%llx names file %u of %zu",
                         (unsigned long long)text_offset, (unsigned)file, u->file_count);
  if (amddwarf__mem_reserve(&b->alloc, (void **)&u->rows, &u->row_capacity, u->row_count + 1,
                           sizeof *u->rows) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  u->rows[u->row_count] = (dw_row){text_offset, file, line, column, is_stmt != 0, u->row_count};
  u->row_count++;
  return AMDDWARF_OK;
}

amddwarf_die_id amddwarf__dwarf_find_named(const amddwarf_dwarf_builder *b, amddwarf_die_id unit,
                                          const char *name)
{
  const dw_die *u = amddwarf__dwarf_die_get(b, unit);
  if (!u)
    return 0;
  for (size_t i = 0; i < b->die_count; i++) {
    const dw_die *d = &b->dies[i];
    if (d->unit != u->unit)
      continue;
    const dw_attr *a = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_name);
    if (a && a->kind == VALUE_STRING && strcmp(a->str, name) == 0)
      return (amddwarf_die_id)(i + 1);
  }
  return 0;
}
