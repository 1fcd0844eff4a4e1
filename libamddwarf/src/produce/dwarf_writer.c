/* The DWARF section writer: chooses forms and abbreviations, lays out
 * .debug_info until the DIE offsets that expressions refer to settle, then
 * writes .debug_info, .debug_abbrev, .debug_str, .debug_line, the location
 * and range lists (.debug_loc/.debug_ranges in DWARF 4, .debug_loclists/
 * .debug_rnglists in DWARF 5) and .debug_addr (DWARF 5). Addresses are
 * written as TEXT_BASE + text offset. */
#include <amddwarf/dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "produce/dwarf_model.h"
#include "produce/produce_internal.h"

enum {
  LAYOUT_ROUNDS = 16,
};

typedef struct abbrev {
  uint16_t tag;
  uint8_t children;
  size_t count;
  uint16_t at[64];
  uint16_t form[64];
} abbrev;

typedef struct writer {
  amddwarf_dwarf_builder *b;
  const amddwarf_allocator *alloc;
  uint64_t text_base, text_size;
  unsigned osz;
  uint16_t version;
  abbrev *abbrevs;
  size_t abbrev_count, abbrev_capacity;
  amddwarf_error *err;
} writer;

static unsigned uleb_size(uint64_t v)
{
  unsigned n = 1;
  while (v >>= 7)
    n++;
  return n;
}

static unsigned sleb_size(int64_t v)
{
  unsigned n = 1;
  for (;;) {
    uint8_t byte = (uint8_t)(v & 0x7f);
    v = v < 0 ? ~(~v >> 7) : v >> 7;
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
      return n;
    n++;
  }
}

/* ---- preparation: unit ranges, automatic attributes, address tables ---- */

static amddwarf_status addr_index(writer *w, dw_unit *u, uint64_t text_offset, uint64_t *index)
{
  uint64_t address = w->text_base + text_offset;
  for (size_t i = 0; i < u->addr_count; i++)
    if (u->addrs[i] == address) {
      *index = i;
      return AMDDWARF_OK;
    }
  if (amddwarf__mem_reserve(w->alloc, (void **)&u->addrs, &u->addr_capacity, u->addr_count + 1,
                           sizeof *u->addrs) != 0)
    return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  u->addrs[u->addr_count] = address;
  *index = u->addr_count++;
  return AMDDWARF_OK;
}

static void unit_extent(const amddwarf_dwarf_builder *b, uint32_t unit_index, uint64_t *low,
                        uint64_t *high)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < b->die_count; i++) {
    const dw_die *d = &b->dies[i];
    if (d->unit != unit_index || d->parent == 0)
      continue;
    const dw_attr *l = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_low_pc);
    const dw_attr *h = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_high_pc);
    if (l && h && l->kind == VALUE_ADDR && h->kind == VALUE_UDATA) {
      if (l->u < lo)
        lo = l->u;
      if (l->u + h->u > hi)
        hi = l->u + h->u;
    }
    const dw_attr *r = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_ranges);
    if (r && r->kind == VALUE_RANGES) {
      const dw_rangelist *rl = &b->rangelists[r->u];
      for (size_t k = 0; k < rl->count; k++) {
        if (rl->starts[k] < lo)
          lo = rl->starts[k];
        if (rl->ends[k] > hi)
          hi = rl->ends[k];
      }
    }
  }
  for (size_t i = 0; i < b->loclist_count; i++) {
    const dw_loclist *l = &b->loclists[i];
    if (l->unit != unit_index || l->count == 0)
      continue;
    if (l->entries[0].start < lo)
      lo = l->entries[0].start;
    for (size_t k = 0; k < l->count; k++)
      if (l->entries[k].end > hi)
        hi = l->entries[k].end;
  }
  *low = lo;
  *high = hi;
}

/* Every address the unit's DIEs and lists name must lie in .text, and the
   lists of a unit must lie in the unit's range (DWARF 4 lists are offsets
   from its base address). */
static amddwarf_status check_addresses(writer *w)
{
  amddwarf_dwarf_builder *b = w->b;
  /* children first: a unit's range derives from theirs */
  for (size_t n = 0; n < 2 * b->die_count; n++) {
    size_t i = n % b->die_count;
    const dw_die *d = &b->dies[i];
    if ((n < b->die_count) == (d->parent == 0))
      continue;
    const dw_attr *l = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_low_pc);
    const dw_attr *h = amddwarf__dwarf_die_attr(d, AMDDWARF_DW_AT_high_pc);
    uint64_t end = l && l->kind == VALUE_ADDR ? l->u : 0;
    if (l && h && l->kind == VALUE_ADDR && h->kind == VALUE_UDATA)
      end = l->u + h->u;
    if (end > w->text_size || (l && l->kind == VALUE_ADDR && l->u > w->text_size))
      return amddwarf__fail(w->err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "DIE %zu (tag 0x%x): its range ends at 0x%llx, past .text (0x%llx "
                           "bytes)",
                           i + 1, (unsigned)d->tag, (unsigned long long)end,
                           (unsigned long long)w->text_size);
  }
  for (size_t i = 0; i < b->loclist_count; i++) {
    const dw_loclist *l = &b->loclists[i];
    const dw_unit *u = &b->units[l->unit];
    for (size_t k = 0; k < l->count; k++)
      if (l->entries[k].end > w->text_size || l->entries[k].start < u->low)
        return amddwarf__fail(w->err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                             "location list %zu: [0x%llx, 0x%llx) is outside .text or "
                             "before its unit's low_pc 0x%llx",
                             i, (unsigned long long)l->entries[k].start,
                             (unsigned long long)l->entries[k].end,
                             (unsigned long long)u->low);
  }
  for (size_t i = 0; i < b->rangelist_count; i++) {
    const dw_rangelist *r = &b->rangelists[i];
    const dw_unit *u = &b->units[r->unit];
    for (size_t k = 0; k < r->count; k++)
      if (r->ends[k] > w->text_size || r->starts[k] < u->low)
        return amddwarf__fail(w->err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                             "range list %zu: [0x%llx, 0x%llx) is outside .text or before "
                             "its unit's low_pc 0x%llx",
                             i, (unsigned long long)r->starts[k],
                             (unsigned long long)r->ends[k], (unsigned long long)u->low);
  }
  return AMDDWARF_OK;
}

static amddwarf_status prepare(writer *w)
{
  amddwarf_dwarf_builder *b = w->b;
  amddwarf_status st = AMDDWARF_OK;
  dw_attr *a;
  for (size_t ui = 0; ui < b->unit_count && st == AMDDWARF_OK; ui++) {
    dw_unit *u = &b->units[ui];
    dw_die *cu = amddwarf__dwarf_die_get(b, u->die);
    u->addr_count = 0;
    const dw_attr *l = amddwarf__dwarf_die_attr(cu, AMDDWARF_DW_AT_low_pc);
    const dw_attr *h = amddwarf__dwarf_die_attr(cu, AMDDWARF_DW_AT_high_pc);
    if (l && l->kind == VALUE_ADDR) {
      u->low = l->u;
      u->high = h && h->kind == VALUE_UDATA ? l->u + h->u : l->u;
    } else if (!amddwarf__dwarf_die_attr(cu, AMDDWARF_DW_AT_ranges)) {
      unit_extent(b, (uint32_t)ui, &u->low, &u->high);
      if (u->low >= u->high) {
        u->low = 0;
        u->high = w->text_size;
      }
      st = amddwarf__dwarf_attr_add(b, u->die, AMDDWARF_DW_AT_low_pc, VALUE_ADDR, &a, w->err);
      if (st == AMDDWARF_OK)
        a->u = u->low;
      if (st == AMDDWARF_OK)
        st = amddwarf__dwarf_attr_add(b, u->die, AMDDWARF_DW_AT_high_pc, VALUE_UDATA, &a, w->err);
      if (st == AMDDWARF_OK)
        a->u = u->high - u->low;
    } else {
      /* DW_AT_ranges on the unit: DW_AT_low_pc is the base address of its
         lists, the start of .text */
      u->low = 0;
      u->high = w->text_size;
      st = amddwarf__dwarf_attr_add(b, u->die, AMDDWARF_DW_AT_low_pc, VALUE_ADDR, &a, w->err);
      if (st == AMDDWARF_OK)
        a->u = 0;
    }
    if (st == AMDDWARF_OK && (u->file_count || u->row_count) &&
        !amddwarf__dwarf_die_attr(cu, AMDDWARF_DW_AT_stmt_list))
      st = amddwarf__dwarf_attr_add(b, u->die, AMDDWARF_DW_AT_stmt_list, VALUE_LINE, &a, w->err);
    if (st == AMDDWARF_OK && w->version >= 5 && !amddwarf__dwarf_die_attr(cu, AMDDWARF_DW_AT_addr_base))
      st = amddwarf__dwarf_attr_add(b, u->die, AMDDWARF_DW_AT_addr_base, VALUE_ADDR_BASE, &a, w->err);
  }
  /* Address indices (DWARF 5): attributes in DIE order, then lists. */
  if (w->version >= 5) {
    for (size_t i = 0; i < b->die_count && st == AMDDWARF_OK; i++) {
      dw_die *d = &b->dies[i];
      for (size_t k = 0; k < d->attr_count && st == AMDDWARF_OK; k++)
        if (d->attrs[k].kind == VALUE_ADDR)
          st = addr_index(w, &b->units[d->unit], d->attrs[k].u, &d->attrs[k].index);
    }
    uint64_t ignored;
    for (size_t i = 0; i < b->loclist_count && st == AMDDWARF_OK; i++)
      for (size_t k = 0; k < b->loclists[i].count && st == AMDDWARF_OK; k++)
        st = addr_index(w, &b->units[b->loclists[i].unit], b->loclists[i].entries[k].start,
                        &ignored);
    for (size_t i = 0; i < b->rangelist_count && st == AMDDWARF_OK; i++)
      for (size_t k = 0; k < b->rangelists[i].count && st == AMDDWARF_OK; k++)
        st = addr_index(w, &b->units[b->rangelists[i].unit], b->rangelists[i].starts[k],
                        &ignored);
  }
  return st;
}

/* ---- forms and abbreviations --------------------------------------------- */

static uint16_t choose_form(const writer *w, const dw_die *d, const dw_attr *a)
{
  switch (a->kind) {
  case VALUE_UDATA:
    return AMDDWARF_DW_FORM_udata;
  case VALUE_SDATA:
    return AMDDWARF_DW_FORM_sdata;
  case VALUE_STRING:
    return AMDDWARF_DW_FORM_strp;
  case VALUE_FLAG:
    return AMDDWARF_DW_FORM_flag_present;
  case VALUE_REF: {
    const dw_die *t = amddwarf__dwarf_die_get(w->b, (amddwarf_die_id)a->u);
    return t && t->unit == d->unit ? AMDDWARF_DW_FORM_ref4 : AMDDWARF_DW_FORM_ref_addr;
  }
  case VALUE_ADDR:
    return w->version >= 5 ? AMDDWARF_DW_FORM_addrx : AMDDWARF_DW_FORM_addr;
  case VALUE_EXPR:
    return AMDDWARF_DW_FORM_exprloc;
  default: /* lists, line, addr_base */
    return AMDDWARF_DW_FORM_sec_offset;
  }
}

static amddwarf_status assign_abbrevs(writer *w)
{
  amddwarf_dwarf_builder *b = w->b;
  for (size_t i = 0; i < b->die_count; i++) {
    dw_die *d = &b->dies[i];
    if (d->attr_count > 64)
      return amddwarf__fail(w->err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                           "DIE %zu has %zu attributes, more than 64", i + 1, d->attr_count);
    abbrev ab;
    memset(&ab, 0, sizeof ab);
    ab.tag = d->tag;
    ab.children = d->first_child != 0;
    ab.count = d->attr_count;
    for (size_t k = 0; k < d->attr_count; k++) {
      d->attrs[k].form = choose_form(w, d, &d->attrs[k]);
      ab.at[k] = d->attrs[k].at;
      ab.form[k] = d->attrs[k].form;
    }
    size_t found = w->abbrev_count;
    for (size_t k = 0; k < w->abbrev_count; k++) {
      const abbrev *o = &w->abbrevs[k];
      if (o->tag == ab.tag && o->children == ab.children && o->count == ab.count &&
          memcmp(o->at, ab.at, ab.count * sizeof ab.at[0]) == 0 &&
          memcmp(o->form, ab.form, ab.count * sizeof ab.form[0]) == 0) {
        found = k;
        break;
      }
    }
    if (found == w->abbrev_count) {
      if (amddwarf__mem_reserve(w->alloc, (void **)&w->abbrevs, &w->abbrev_capacity,
                               w->abbrev_count + 1, sizeof *w->abbrevs) != 0)
        return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
      w->abbrevs[w->abbrev_count++] = ab;
    }
    d->abbrev = (uint32_t)found + 1;
  }
  return AMDDWARF_OK;
}

/* ---- expressions ------------------------------------------------------------ */

static amddwarf_status resolve_die(void *user, amddwarf_die_id id, uint64_t *section_offset,
                                   uint64_t *unit_offset)
{
  const amddwarf_dwarf_builder *b = user;
  const dw_die *d = amddwarf__dwarf_die_get(b, id);
  if (!d)
    return AMDDWARF_E_PRODUCE_BAD_DIE;
  *section_offset = d->offset;
  *unit_offset = d->offset - b->units[d->unit].offset;
  return AMDDWARF_OK;
}

static amddwarf_status encode_attr_expr(writer *w, dw_die *d, dw_attr *a)
{
  amddwarf_expr_resolver r = {w->b, resolve_die, w->text_base};
  uint8_t *bytes = NULL;
  size_t size = 0;
  amddwarf_status st = amddwarf__produce_expr_bytes(a->expr, &r, w->alloc, &bytes, &size, w->err);
  if (st != AMDDWARF_OK) {
    if (w->err) {
      char inner[AMDDWARF_ERROR_MESSAGE_SIZE];
      memcpy(inner, w->err->message, sizeof inner);
      amddwarf__fail(w->err, st, w->err->offset, "DIE tag 0x%x attribute 0x%x: %s",
                    (unsigned)d->tag, (unsigned)a->at, inner);
    }
    return st;
  }
  amddwarf__mem_free(w->alloc, a->bytes, a->byte_size);
  a->bytes = bytes;
  a->byte_size = size;
  return AMDDWARF_OK;
}

/* ---- .debug_info layout and emission ------------------------------------ */

static unsigned header_size(const writer *w)
{
  unsigned length = w->osz == 8 ? 12 : 4;
  return length + 2 + (w->version >= 5 ? 2 : 1) + w->osz;
}

static uint64_t attr_size(const writer *w, const dw_attr *a)
{
  switch (a->form) {
  case AMDDWARF_DW_FORM_addr:
    return 8;
  case AMDDWARF_DW_FORM_addrx:
    return uleb_size(a->index);
  case AMDDWARF_DW_FORM_udata:
    return uleb_size(a->u);
  case AMDDWARF_DW_FORM_sdata:
    return sleb_size((int64_t)a->u);
  case AMDDWARF_DW_FORM_flag_present:
    return 0;
  case AMDDWARF_DW_FORM_ref4:
    return 4;
  case AMDDWARF_DW_FORM_exprloc:
    return uleb_size(a->byte_size) + a->byte_size;
  default: /* strp, ref_addr, sec_offset */
    return w->osz;
  }
}

/* Walks the DIEs of a unit in preorder; VISIT is called on entry with
   LEAVING 0, and after the last child of a DIE with children with 1. */
typedef amddwarf_status (*visit_fn)(writer *w, dw_die *d, int leaving, void *state);

static amddwarf_status walk(writer *w, amddwarf_die_id root, visit_fn visit, void *state)
{
  amddwarf_dwarf_builder *b = w->b;
  amddwarf_die_id cur = root;
  for (;;) {
    dw_die *d = amddwarf__dwarf_die_get(b, cur);
    amddwarf_status st = visit(w, d, 0, state);
    if (st != AMDDWARF_OK)
      return st;
    if (d->first_child) {
      cur = d->first_child;
      continue;
    }
    for (;;) {
      if (cur == root)
        return AMDDWARF_OK;
      d = amddwarf__dwarf_die_get(b, cur);
      if (d->next_sibling) {
        cur = d->next_sibling;
        break;
      }
      cur = d->parent;
      st = visit(w, amddwarf__dwarf_die_get(b, cur), 1, state);
      if (st != AMDDWARF_OK)
        return st;
    }
  }
}

typedef struct layout_state {
  uint64_t offset;
  int changed;
} layout_state;

static amddwarf_status layout_visit(writer *w, dw_die *d, int leaving, void *state)
{
  layout_state *s = state;
  if (leaving) {
    s->offset += 1;
    return AMDDWARF_OK;
  }
  uint64_t size = uleb_size(d->abbrev);
  for (size_t k = 0; k < d->attr_count; k++) {
    dw_attr *a = &d->attrs[k];
    if (a->kind == VALUE_EXPR) {
      amddwarf_status st = encode_attr_expr(w, d, a);
      if (st != AMDDWARF_OK)
        return st;
    }
    size += attr_size(w, a);
  }
  if (d->offset != s->offset || d->size != size)
    s->changed = 1;
  d->offset = s->offset;
  d->size = size;
  s->offset += size;
  return AMDDWARF_OK;
}

static amddwarf_status layout(writer *w)
{
  amddwarf_dwarf_builder *b = w->b;
  for (int round = 0; round < LAYOUT_ROUNDS; round++) {
    layout_state s = {0, 0};
    for (size_t ui = 0; ui < b->unit_count; ui++) {
      dw_unit *u = &b->units[ui];
      if (u->offset != s.offset)
        s.changed = 1;
      u->offset = s.offset;
      s.offset += header_size(w);
      amddwarf_status st = walk(w, u->die, layout_visit, &s);
      if (st != AMDDWARF_OK)
        return st;
    }
    if (!s.changed && round > 0)
      return AMDDWARF_OK;
  }
  return amddwarf__fail(w->err, AMDDWARF_E_PRODUCE_LAYOUT, AMDDWARF_NO_OFFSET,
                       "DIE offsets did not settle after %d layout rounds", LAYOUT_ROUNDS);
}

typedef struct emit_state {
  amddwarf_buf *info, *str;
} emit_state;

static amddwarf_status emit_visit(writer *w, dw_die *d, int leaving, void *state)
{
  emit_state *s = state;
  amddwarf_buf *out = s->info;
  if (leaving) {
    amddwarf__buf_u8(out, 0);
    return AMDDWARF_OK;
  }
  amddwarf_dwarf_builder *b = w->b;
  dw_unit *u = &b->units[d->unit];
  if (out->size != d->offset && !out->failed)
    return amddwarf__fail(w->err, AMDDWARF_E_PRODUCE_LAYOUT, d->offset,
                         ".debug_info: DIE at 0x%llx written at 0x%zx",
                         (unsigned long long)d->offset, out->size);
  amddwarf__buf_uleb(out, d->abbrev);
  for (size_t k = 0; k < d->attr_count; k++) {
    const dw_attr *a = &d->attrs[k];
    switch (a->form) {
    case AMDDWARF_DW_FORM_addr:
      amddwarf__buf_uint(out, w->text_base + a->u, 8);
      break;
    case AMDDWARF_DW_FORM_addrx:
      amddwarf__buf_uleb(out, a->index);
      break;
    case AMDDWARF_DW_FORM_udata:
      amddwarf__buf_uleb(out, a->u);
      break;
    case AMDDWARF_DW_FORM_sdata:
      amddwarf__buf_sleb(out, (int64_t)a->u);
      break;
    case AMDDWARF_DW_FORM_strp:
      amddwarf__buf_uint(out, s->str->size, w->osz);
      amddwarf__buf_cstr(s->str, a->str);
      break;
    case AMDDWARF_DW_FORM_flag_present:
      break;
    case AMDDWARF_DW_FORM_ref4: {
      const dw_die *t = amddwarf__dwarf_die_get(b, (amddwarf_die_id)a->u);
      amddwarf__buf_uint(out, t->offset - u->offset, 4);
      break;
    }
    case AMDDWARF_DW_FORM_ref_addr:
      amddwarf__buf_uint(out, amddwarf__dwarf_die_get(b, (amddwarf_die_id)a->u)->offset, w->osz);
      break;
    case AMDDWARF_DW_FORM_exprloc:
      amddwarf__buf_uleb(out, a->byte_size);
      amddwarf__buf_bytes(out, a->bytes, a->byte_size);
      break;
    default: { /* sec_offset */
      uint64_t value = 0;
      if (a->kind == VALUE_LOCLIST)
        value = b->loclists[a->u].offset;
      else if (a->kind == VALUE_RANGES)
        value = b->rangelists[a->u].offset;
      else if (a->kind == VALUE_LINE)
        value = u->line_offset;
      else if (a->kind == VALUE_ADDR_BASE)
        value = u->addr_base;
      amddwarf__buf_uint(out, value, w->osz);
      break;
    }
    }
  }
  return AMDDWARF_OK;
}

/* ---- lists -------------------------------------------------------------------- */

static uint64_t find_addr_index(const dw_unit *u, uint64_t address)
{
  for (size_t i = 0; i < u->addr_count; i++)
    if (u->addrs[i] == address)
      return i;
  return 0; /* every start was entered by prepare() */
}

static size_t list_header(writer *w, amddwarf_buf *out)
{
  size_t after = amddwarf__buf_begin_length(out, w->osz);
  amddwarf__buf_uint(out, 5, 2);
  amddwarf__buf_u8(out, 8);
  amddwarf__buf_u8(out, 0);
  amddwarf__buf_uint(out, 0, 4); /* offset_entry_count */
  return after;
}

static amddwarf_status write_loclists(writer *w, amddwarf_buf *out)
{
  amddwarf_dwarf_builder *b = w->b;
  amddwarf_expr_resolver r = {b, resolve_die, w->text_base};
  for (size_t ui = 0; ui < b->unit_count; ui++) {
    dw_unit *u = &b->units[ui];
    size_t after = 0;
    int any = 0;
    for (size_t li = 0; li < b->loclist_count; li++) {
      dw_loclist *l = &b->loclists[li];
      if (l->unit != ui)
        continue;
      if (!any && w->version >= 5)
        after = list_header(w, out);
      any = 1;
      l->offset = out->size;
      for (size_t k = 0; k < l->count; k++) {
        const dw_loc_entry *e = &l->entries[k];
        uint8_t *bytes = NULL;
        size_t size = 0;
        amddwarf_status st = amddwarf__produce_expr_bytes(e->expr, &r, w->alloc, &bytes, &size,
                                                         w->err);
        if (st != AMDDWARF_OK)
          return st;
        if (w->version >= 5) {
          amddwarf__buf_u8(out, AMDDWARF_DW_LLE_startx_length);
          amddwarf__buf_uleb(out, find_addr_index(u, w->text_base + e->start));
          amddwarf__buf_uleb(out, e->end - e->start);
          amddwarf__buf_uleb(out, size);
        } else {
          amddwarf__buf_uint(out, e->start - u->low, 8);
          amddwarf__buf_uint(out, e->end - u->low, 8);
          if (size > UINT16_MAX) {
            amddwarf__mem_free(w->alloc, bytes, size);
            return amddwarf__fail(w->err, AMDDWARF_E_LIMIT, out->size,
                                 ".debug_loc: an expression of %zu bytes exceeds 65535", size);
          }
          amddwarf__buf_uint(out, size, 2);
        }
        amddwarf__buf_bytes(out, bytes, size);
        amddwarf__mem_free(w->alloc, bytes, size);
      }
      if (w->version >= 5)
        amddwarf__buf_u8(out, AMDDWARF_DW_LLE_end_of_list);
      else
        amddwarf__buf_bytes(out, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    }
    if (any && w->version >= 5)
      amddwarf__buf_end_length(out, after, w->osz);
  }
  return AMDDWARF_OK;
}

static void write_rangelists(writer *w, amddwarf_buf *out)
{
  amddwarf_dwarf_builder *b = w->b;
  for (size_t ui = 0; ui < b->unit_count; ui++) {
    dw_unit *u = &b->units[ui];
    size_t after = 0;
    int any = 0;
    for (size_t ri = 0; ri < b->rangelist_count; ri++) {
      dw_rangelist *r = &b->rangelists[ri];
      if (r->unit != ui)
        continue;
      if (!any && w->version >= 5)
        after = list_header(w, out);
      any = 1;
      r->offset = out->size;
      for (size_t k = 0; k < r->count; k++) {
        if (w->version >= 5) {
          amddwarf__buf_u8(out, AMDDWARF_DW_RLE_startx_length);
          amddwarf__buf_uleb(out, find_addr_index(u, w->text_base + r->starts[k]));
          amddwarf__buf_uleb(out, r->ends[k] - r->starts[k]);
        } else {
          amddwarf__buf_uint(out, r->starts[k] - u->low, 8);
          amddwarf__buf_uint(out, r->ends[k] - u->low, 8);
        }
      }
      if (w->version >= 5)
        amddwarf__buf_u8(out, AMDDWARF_DW_RLE_end_of_list);
      else
        amddwarf__buf_bytes(out, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    }
    if (any && w->version >= 5)
      amddwarf__buf_end_length(out, after, w->osz);
  }
}

static void write_addr(writer *w, amddwarf_buf *out)
{
  for (size_t ui = 0; ui < w->b->unit_count; ui++) {
    dw_unit *u = &w->b->units[ui];
    size_t after = amddwarf__buf_begin_length(out, w->osz);
    amddwarf__buf_uint(out, 5, 2);
    amddwarf__buf_u8(out, 8);
    amddwarf__buf_u8(out, 0);
    u->addr_base = out->size;
    for (size_t k = 0; k < u->addr_count; k++)
      amddwarf__buf_uint(out, u->addrs[k], 8);
    amddwarf__buf_end_length(out, after, w->osz);
  }
}

/* ---- .debug_line ---------------------------------------------------------------- */

static int row_compare(const void *pa, const void *pb)
{
  const dw_row *a = pa, *b = pb;
  if (a->address != b->address)
    return a->address < b->address ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* Whether file K has a directory of its own (not the compilation one). */
static int own_dir(const dw_unit *u, size_t k)
{
  return u->files[k].dir && strcmp(u->files[k].dir, u->comp_dir) != 0;
}

/* The first file of U with the same directory as file K. */
static size_t first_with_dir(const dw_unit *u, size_t k)
{
  for (size_t j = 0; j < k; j++)
    if (u->files[j].dir && strcmp(u->files[j].dir, u->files[k].dir) == 0)
      return j;
  return k;
}

/* Directory index of every file in the header's table: 0 is the
   compilation directory, then the distinct directories of the files in
   order. DIRS has FILE_COUNT entries. */
static void dir_indices(const dw_unit *u, uint64_t *dirs)
{
  uint64_t count = 0;
  for (size_t k = 0; k < u->file_count; k++) {
    if (!own_dir(u, k)) {
      dirs[k] = 0;
      continue;
    }
    size_t first = first_with_dir(u, k);
    dirs[k] = first == k ? ++count : dirs[first];
  }
}

static void write_dirs(const dw_unit *u, amddwarf_buf *out)
{
  for (size_t k = 0; k < u->file_count; k++)
    if (own_dir(u, k) && first_with_dir(u, k) == k)
      amddwarf__buf_cstr(out, u->files[k].dir);
}

static size_t dir_count(const dw_unit *u)
{
  size_t n = 0;
  for (size_t k = 0; k < u->file_count; k++)
    n += own_dir(u, k) && first_with_dir(u, k) == k;
  return n;
}

static amddwarf_status write_line(writer *w, dw_unit *u, amddwarf_buf *out)
{
  static const uint8_t std_lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
  uint64_t *dirs = amddwarf__mem_calloc(w->alloc, u->file_count ? u->file_count : 1,
                                       sizeof *dirs);
  if (!dirs)
    return amddwarf__fail(w->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  dir_indices(u, dirs);
  u->line_offset = out->size;
  size_t after = amddwarf__buf_begin_length(out, w->osz);
  amddwarf__buf_uint(out, w->version, 2);
  if (w->version >= 5) {
    amddwarf__buf_u8(out, 8);
    amddwarf__buf_u8(out, 0);
  }
  amddwarf__buf_uint(out, 0, w->osz); /* header_length, patched below */
  size_t header_start = out->size;
  amddwarf__buf_u8(out, 1);           /* minimum_instruction_length */
  amddwarf__buf_u8(out, 1);           /* maximum_operations_per_instruction */
  amddwarf__buf_u8(out, 1);           /* default_is_stmt */
  amddwarf__buf_u8(out, (uint8_t)-5); /* line_base */
  amddwarf__buf_u8(out, 14);          /* line_range */
  amddwarf__buf_u8(out, 13);          /* opcode_base */
  amddwarf__buf_bytes(out, std_lengths, sizeof std_lengths);
  if (w->version >= 5) {
    amddwarf__buf_u8(out, 1);
    amddwarf__buf_uleb(out, AMDDWARF_DW_LNCT_path);
    amddwarf__buf_uleb(out, AMDDWARF_DW_FORM_string);
    amddwarf__buf_uleb(out, 1 + dir_count(u));
    amddwarf__buf_cstr(out, u->comp_dir);
    write_dirs(u, out);
    amddwarf__buf_u8(out, 2);
    amddwarf__buf_uleb(out, AMDDWARF_DW_LNCT_path);
    amddwarf__buf_uleb(out, AMDDWARF_DW_FORM_string);
    amddwarf__buf_uleb(out, AMDDWARF_DW_LNCT_directory_index);
    amddwarf__buf_uleb(out, AMDDWARF_DW_FORM_udata);
    amddwarf__buf_uleb(out, 1 + u->file_count);
    amddwarf__buf_cstr(out, u->name);
    amddwarf__buf_uleb(out, 0);
    for (size_t k = 0; k < u->file_count; k++) {
      amddwarf__buf_cstr(out, u->files[k].name);
      amddwarf__buf_uleb(out, dirs[k]);
    }
  } else {
    write_dirs(u, out);
    amddwarf__buf_u8(out, 0);
    for (size_t k = 0; k < u->file_count; k++) {
      amddwarf__buf_cstr(out, u->files[k].name);
      amddwarf__buf_uleb(out, dirs[k]);
      amddwarf__buf_uleb(out, 0);
      amddwarf__buf_uleb(out, 0);
    }
    amddwarf__buf_u8(out, 0);
  }
  amddwarf__buf_patch(out, header_start - w->osz, out->size - header_start, w->osz);
  amddwarf__mem_free(w->alloc, dirs, (u->file_count ? u->file_count : 1) * sizeof *dirs);
  /* rows, sorted by address, in the order given within an address */
  if (u->row_count > 1)
    qsort(u->rows, u->row_count, sizeof *u->rows, row_compare);
  if (u->row_count) {
    if (u->rows[u->row_count - 1].address >= w->text_size)
      return amddwarf__fail(w->err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "line row at 0x%llx is not inside .text (0x%llx bytes)",
                           (unsigned long long)u->rows[u->row_count - 1].address,
                           (unsigned long long)w->text_size);
    uint64_t address = u->rows[0].address;
    uint32_t file = 1, line = 1, column = 0;
    int is_stmt = 1;
    amddwarf__buf_u8(out, 0);
    amddwarf__buf_uleb(out, 9);
    amddwarf__buf_u8(out, AMDDWARF_DW_LNE_set_address);
    amddwarf__buf_uint(out, w->text_base + address, 8);
    for (size_t i = 0; i < u->row_count; i++) {
      const dw_row *r = &u->rows[i];
      if (r->file != file) {
        amddwarf__buf_u8(out, AMDDWARF_DW_LNS_set_file);
        amddwarf__buf_uleb(out, r->file);
        file = r->file;
      }
      if (r->column != column) {
        amddwarf__buf_u8(out, AMDDWARF_DW_LNS_set_column);
        amddwarf__buf_uleb(out, r->column);
        column = r->column;
      }
      if (r->line != line) {
        amddwarf__buf_u8(out, AMDDWARF_DW_LNS_advance_line);
        amddwarf__buf_sleb(out, (int64_t)r->line - (int64_t)line);
        line = r->line;
      }
      if (r->address != address) {
        amddwarf__buf_u8(out, AMDDWARF_DW_LNS_advance_pc);
        amddwarf__buf_uleb(out, r->address - address);
        address = r->address;
      }
      if (r->is_stmt != is_stmt) {
        amddwarf__buf_u8(out, AMDDWARF_DW_LNS_negate_stmt);
        is_stmt = r->is_stmt;
      }
      amddwarf__buf_u8(out, AMDDWARF_DW_LNS_copy);
    }
    uint64_t end = u->high > address ? u->high : w->text_size;
    if (end > address) {
      amddwarf__buf_u8(out, AMDDWARF_DW_LNS_advance_pc);
      amddwarf__buf_uleb(out, end - address);
    }
    amddwarf__buf_u8(out, 0);
    amddwarf__buf_uleb(out, 1);
    amddwarf__buf_u8(out, AMDDWARF_DW_LNE_end_sequence);
  }
  amddwarf__buf_end_length(out, after, w->osz);
  return AMDDWARF_OK;
}

/* ---- the whole ----------------------------------------------------------------- */

void amddwarf__dwarf_sections_free(amddwarf_dwarf_sections *s)
{
  amddwarf__buf_free(&s->info);
  amddwarf__buf_free(&s->abbrev);
  amddwarf__buf_free(&s->str);
  amddwarf__buf_free(&s->line);
  amddwarf__buf_free(&s->loc);
  amddwarf__buf_free(&s->ranges);
  amddwarf__buf_free(&s->addr);
}

amddwarf_status amddwarf__dwarf_write_sections(amddwarf_dwarf_builder *b, uint64_t text_base,
                                              uint64_t text_size, amddwarf_dwarf_sections *out,
                                              amddwarf_error *err)
{
  writer w;
  memset(&w, 0, sizeof w);
  w.b = b;
  w.alloc = &b->alloc;
  w.text_base = text_base;
  w.text_size = text_size;
  w.osz = b->options.offset_size;
  w.version = b->options.version;
  w.err = err;
  amddwarf_buf *bufs[] = {&out->info, &out->abbrev, &out->str, &out->line,
                          &out->loc,  &out->ranges, &out->addr};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    amddwarf__buf_init(bufs[i], &b->alloc);
  amddwarf_status st = prepare(&w);
  if (st == AMDDWARF_OK)
    st = check_addresses(&w);
  if (st == AMDDWARF_OK)
    st = assign_abbrevs(&w);
  if (st == AMDDWARF_OK)
    st = layout(&w);
  for (size_t ui = 0; ui < b->unit_count && st == AMDDWARF_OK; ui++)
    if (b->units[ui].file_count || b->units[ui].row_count)
      st = write_line(&w, &b->units[ui], &out->line);
  if (st == AMDDWARF_OK)
    st = write_loclists(&w, &out->loc);
  if (st == AMDDWARF_OK) {
    write_rangelists(&w, &out->ranges);
    if (w.version >= 5)
      write_addr(&w, &out->addr);
  }
  /* .debug_info */
  emit_state es = {&out->info, &out->str};
  for (size_t ui = 0; ui < b->unit_count && st == AMDDWARF_OK; ui++) {
    dw_unit *u = &b->units[ui];
    size_t after = amddwarf__buf_begin_length(&out->info, w.osz);
    amddwarf__buf_uint(&out->info, w.version, 2);
    if (w.version >= 5) {
      amddwarf__buf_u8(&out->info, AMDDWARF_DW_UT_compile);
      amddwarf__buf_u8(&out->info, 8);
      amddwarf__buf_uint(&out->info, 0, w.osz);
    } else {
      amddwarf__buf_uint(&out->info, 0, w.osz);
      amddwarf__buf_u8(&out->info, 8);
    }
    (void)u;
    st = walk(&w, u->die, emit_visit, &es);
    amddwarf__buf_end_length(&out->info, after, w.osz);
  }
  /* .debug_abbrev */
  for (size_t k = 0; k < w.abbrev_count && st == AMDDWARF_OK; k++) {
    const abbrev *ab = &w.abbrevs[k];
    amddwarf__buf_uleb(&out->abbrev, k + 1);
    amddwarf__buf_uleb(&out->abbrev, ab->tag);
    amddwarf__buf_u8(&out->abbrev, ab->children);
    for (size_t i = 0; i < ab->count; i++) {
      amddwarf__buf_uleb(&out->abbrev, ab->at[i]);
      amddwarf__buf_uleb(&out->abbrev, ab->form[i]);
    }
    amddwarf__buf_u8(&out->abbrev, 0);
    amddwarf__buf_u8(&out->abbrev, 0);
  }
  amddwarf__buf_u8(&out->abbrev, 0);
  amddwarf__mem_free(w.alloc, w.abbrevs, w.abbrev_capacity * sizeof *w.abbrevs);
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0] && st == AMDDWARF_OK; i++)
    if (bufs[i]->failed)
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (st != AMDDWARF_OK)
    amddwarf__dwarf_sections_free(out);
  return st;
}
