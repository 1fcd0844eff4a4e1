/* Code objects: location lists (.debug_loc, .debug_loclists) and range lists
 * (.debug_ranges, .debug_rnglists), read from the relocated section bytes
 * with the bounds-checked reader. Expression bytes stay raw: libdwarf's own
 * location-list reader decodes the expressions and rejects the operations it
 * does not know, which includes the AMDGPU extensions. */
#include <string.h>

#include "common/checked.h"
#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"

#define AMDDWARF_MAX_LIST_ENTRIES 1000000u

amddwarf_status amddwarf__object_read_addrx(const amddwarf_object *object, const amddwarf_cu *cu,
                                           uint64_t index, uint64_t *address,
                                           amddwarf_error *err)
{
  const amddwarf_section *s = object->sec_addr;
  uint64_t at;
  if (s == NULL)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, AMDDWARF_NO_OFFSET,
                         "address index %llu: the object has no .debug_addr",
                         (unsigned long long)index);
  if (amddwarf_mul_overflow_u64(index, cu->address_size, &at) ||
      amddwarf_add_overflow_u64(at, cu->addr_base, &at) ||
      !amddwarf_range_fits(at, cu->address_size, s->size))
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, cu->addr_base,
                         "address index %llu is outside .debug_addr (base 0x%llx, %llu bytes)",
                         (unsigned long long)index, (unsigned long long)cu->addr_base,
                         (unsigned long long)s->size);
  amddwarf_reader r;
  amddwarf_reader_init(&r, s->data + at, cu->address_size);
  return amddwarf__read_uint(&r, cu->address_size, address);
}

/* Resolves a DW_FORM_loclistx / DW_FORM_rnglistx index through the offsets
   table at BASE: the list starts at BASE + table[INDEX]. */
static amddwarf_status list_index(const amddwarf_section *s, const amddwarf_cu *cu, uint64_t base,
                                  uint64_t index, uint64_t *offset, amddwarf_error *err)
{
  uint64_t at, rel = 0;
  if (amddwarf_mul_overflow_u64(index, cu->offset_size, &at) ||
      amddwarf_add_overflow_u64(at, base, &at) || !amddwarf_range_fits(at, cu->offset_size, s->size))
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, base,
                         "%s: list index %llu is outside the offsets table at 0x%llx", s->name,
                         (unsigned long long)index, (unsigned long long)base);
  amddwarf_reader r;
  amddwarf_reader_init(&r, s->data + at, cu->offset_size);
  amddwarf_status st = amddwarf__read_uint(&r, cu->offset_size, &rel);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf_add_overflow_u64(base, rel, offset))
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, at, "%s: list offset overflows",
                         s->name);
  return AMDDWARF_OK;
}

/* A growable array of entries, copied to the arena at the end. */
typedef struct entry_buf {
  amddwarf_loc_entry *items;
  size_t count, capacity;
} entry_buf;

static amddwarf_status fail_at(amddwarf_error *err, amddwarf_status st, const amddwarf_section *s,
                               uint64_t pos, const char *what)
{
  return amddwarf__fail(err, st, pos, "%s at offset 0x%llx: %s", s->name,
                       (unsigned long long)pos, what);
}

static amddwarf_status read_expr(amddwarf_reader *r, bool v5, const uint8_t **bytes,
                                 size_t *size)
{
  uint64_t len = 0;
  amddwarf_status st;
  if (v5) {
    st = amddwarf_read_uleb(r, &len);
  } else {
    uint16_t l16 = 0;
    st = amddwarf__read_u16(r, &l16);
    len = l16;
  }
  if (st != AMDDWARF_OK)
    return st;
  st = amddwarf__read_bytes(r, len, bytes);
  *size = (size_t)len;
  return st;
}

/* Reads one list. RANGES: a range list (no expressions). */
static amddwarf_status read_list(amddwarf_object *object, const amddwarf_cu *cu,
                                 const amddwarf_section *s, uint64_t offset, bool ranges,
                                 entry_buf *out, amddwarf_error *err)
{
  bool v5 = cu->version >= 5;
  uint64_t base = cu->low_pc;
  amddwarf_reader r;
  amddwarf_status st = AMDDWARF_OK;
  unsigned asz = cu->address_size;
  uint64_t max_addr = asz >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * asz)) - 1;
  if (offset >= s->size)
    return fail_at(err, AMDDWARF_E_OBJECT_BAD_LIST, s, offset, "list starts past the end");
  amddwarf_reader_init(&r, s->data, (size_t)s->size);
  r.pos = (size_t)offset;
  for (;;) {
    uint64_t pos = r.pos;
    amddwarf_loc_entry e;
    memset(&e, 0, sizeof e);
    e.offset = pos;
    bool emit = false;
    if (out->count >= AMDDWARF_MAX_LIST_ENTRIES)
      return fail_at(err, AMDDWARF_E_LIMIT, s, pos, "more than 1000000 list entries");
    if (v5) {
      uint8_t kind = 0;
      uint64_t a = 0, b = 0;
      if ((st = amddwarf_read_u8(&r, &kind)) != AMDDWARF_OK)
        goto truncated;
      e.kind = kind;
      /* DW_LLE_* and DW_RLE_* share 0-4; ranges have no default_location, so
         base_address is 5 there and start_end/start_length shift down. */
      if (ranges && kind >= 5)
        kind = (uint8_t)(kind + 1);
      switch (kind) {
      case 0: /* end_of_list */
        return AMDDWARF_OK;
      case 1: /* base_addressx */
        if ((st = amddwarf_read_uleb(&r, &a)) != AMDDWARF_OK)
          goto truncated;
        if ((st = amddwarf__object_read_addrx(object, cu, a, &base, err)) != AMDDWARF_OK)
          return st;
        continue;
      case 2: /* startx_endx */
        if ((st = amddwarf_read_uleb(&r, &a)) != AMDDWARF_OK ||
            (st = amddwarf_read_uleb(&r, &b)) != AMDDWARF_OK)
          goto truncated;
        if ((st = amddwarf__object_read_addrx(object, cu, a, &e.low, err)) != AMDDWARF_OK ||
            (st = amddwarf__object_read_addrx(object, cu, b, &e.high, err)) != AMDDWARF_OK)
          return st;
        break;
      case 3: /* startx_length */
        if ((st = amddwarf_read_uleb(&r, &a)) != AMDDWARF_OK ||
            (st = amddwarf_read_uleb(&r, &b)) != AMDDWARF_OK)
          goto truncated;
        if ((st = amddwarf__object_read_addrx(object, cu, a, &e.low, err)) != AMDDWARF_OK)
          return st;
        e.high = e.low + b;
        break;
      case 4: /* offset_pair */
        if ((st = amddwarf_read_uleb(&r, &a)) != AMDDWARF_OK ||
            (st = amddwarf_read_uleb(&r, &b)) != AMDDWARF_OK)
          goto truncated;
        e.low = base + a;
        e.high = base + b;
        break;
      case 5: /* default_location (location lists only) */
        e.low = 0;
        e.high = UINT64_MAX;
        e.is_default = 1;
        break;
      case 6: /* base_address */
        if ((st = amddwarf__read_uint(&r, asz, &base)) != AMDDWARF_OK)
          goto truncated;
        continue;
      case 7: /* start_end */
        if ((st = amddwarf__read_uint(&r, asz, &e.low)) != AMDDWARF_OK ||
            (st = amddwarf__read_uint(&r, asz, &e.high)) != AMDDWARF_OK)
          goto truncated;
        break;
      case 8: /* start_length */
        if ((st = amddwarf__read_uint(&r, asz, &e.low)) != AMDDWARF_OK ||
            (st = amddwarf_read_uleb(&r, &b)) != AMDDWARF_OK)
          goto truncated;
        e.high = e.low + b;
        break;
      default:
        return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, pos,
                             "%s at offset 0x%llx: unknown entry kind 0x%02x", s->name,
                             (unsigned long long)pos, e.kind);
      }
      emit = true;
      if (!ranges && (st = read_expr(&r, true, &e.expr, &e.size)) != AMDDWARF_OK)
        goto truncated;
    } else {
      uint64_t a = 0, b = 0;
      e.kind = 0xff;
      if ((st = amddwarf__read_uint(&r, asz, &a)) != AMDDWARF_OK ||
          (st = amddwarf__read_uint(&r, asz, &b)) != AMDDWARF_OK)
        goto truncated;
      if (a == 0 && b == 0)
        return AMDDWARF_OK;
      if (a == max_addr) {
        base = b;
        continue;
      }
      e.low = base + a;
      e.high = base + b;
      emit = true;
      if (!ranges && (st = read_expr(&r, false, &e.expr, &e.size)) != AMDDWARF_OK)
        goto truncated;
    }
    if (emit) {
      if (amddwarf__mem_reserve(&object->allocator, (void **)&out->items, &out->capacity,
                               out->count + 1, sizeof *out->items) != 0)
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, pos, "list entries");
      out->items[out->count++] = e;
    }
  }
truncated:
  return amddwarf__fail(err, st == AMDDWARF_E_TRUNCATED ? AMDDWARF_E_OBJECT_BAD_LIST : st, r.pos,
                       "%s at offset 0x%llx: list entry runs past the end of the section (%s)",
                       s->name, (unsigned long long)r.pos, amddwarf_status_name(st));
}

static amddwarf_status list_start(const amddwarf_object *object, const amddwarf_cu *cu,
                                  bool ranges, uint16_t form, uint64_t value,
                                  const amddwarf_section **sec, uint64_t *offset,
                                  amddwarf_error *err)
{
  bool v5 = cu->version >= 5;
  const char *name = ranges ? (v5 ? ".debug_rnglists" : ".debug_ranges")
                            : (v5 ? ".debug_loclists" : ".debug_loc");
  *sec = ranges ? (v5 ? object->sec_rnglists : object->sec_ranges)
                : (v5 ? object->sec_loclists : object->sec_loc);
  if (*sec == NULL || (*sec)->size == 0)
    return amddwarf__fail(err, AMDDWARF_E_OBJECT_BAD_LIST, value,
                         "a list at 0x%llx needs %s, which the object does not have",
                         (unsigned long long)value, name);
  if (form == DW_FORM_loclistx || form == DW_FORM_rnglistx)
    return list_index(*sec, cu, ranges ? cu->rnglists_base : cu->loclists_base, value, offset,
                      err);
  *offset = value;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_range_list_offset(const amddwarf_object *object,
                                                  size_t cu_index, unsigned form,
                                                  uint64_t value, uint64_t *offset,
                                                  amddwarf_error *err)
{
  if (object == NULL || offset == NULL || cu_index >= object->cu_count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, 0, "range list: no such unit");
  const amddwarf_section *s = NULL;
  return list_start(object, &object->cus[cu_index], true, (uint16_t)form, value, &s, offset,
                    err);
}

amddwarf_status amddwarf__object_loclist_offset(const amddwarf_object *object,
                                               const amddwarf_cu *cu, uint16_t form,
                                               uint64_t value, uint64_t *offset,
                                               amddwarf_error *err)
{
  const amddwarf_section *s = NULL;
  return list_start(object, cu, false, form, value, &s, offset, err);
}

/* Reads the list of FORM/VALUE (a range list when RANGES) into BUF, which
   the caller frees; *OFFSET gets where it starts. */
static amddwarf_status read_list_of(amddwarf_object *object, const amddwarf_cu *cu, bool ranges,
                                    uint16_t form, uint64_t value, entry_buf *buf,
                                    uint64_t *offset, amddwarf_error *err)
{
  const amddwarf_section *s = NULL;
  amddwarf_status st = list_start(object, cu, ranges, form, value, &s, offset, err);
  return st == AMDDWARF_OK ? read_list(object, cu, s, *offset, ranges, buf, err) : st;
}

amddwarf_status amddwarf__object_read_loclist(amddwarf_object *object, const amddwarf_cu *cu,
                                             uint16_t form, uint64_t value,
                                             amddwarf_attr_value *out, amddwarf_error *err)
{
  uint64_t offset = 0;
  entry_buf buf = {NULL, 0, 0};
  amddwarf_status st = read_list_of(object, cu, false, form, value, &buf, &offset, err);
  if (st == AMDDWARF_OK) {
    amddwarf_loc_entry *kept = amddwarf__arena_alloc(
        &object->arena, (buf.count ? buf.count : 1) * sizeof *kept, 8);
    if (kept == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "location list");
    } else {
      if (buf.count)
        memcpy(kept, buf.items, buf.count * sizeof *kept);
      out->kind = AMDDWARF_ATTR_LIST;
      out->entries = kept;
      out->count = buf.count;
      out->offset = offset;
    }
  }
  amddwarf__mem_free(&object->allocator, buf.items, buf.capacity * sizeof *buf.items);
  return st;
}

amddwarf_status amddwarf__object_read_ranges(amddwarf_object *object, const amddwarf_cu *cu,
                                            uint16_t form, uint64_t value,
                                            const amddwarf_range **ranges, size_t *count,
                                            amddwarf_error *err)
{
  uint64_t offset = 0;
  entry_buf buf = {NULL, 0, 0};
  amddwarf_status st = read_list_of(object, cu, true, form, value, &buf, &offset, err);
  if (st == AMDDWARF_OK) {
    amddwarf_range *kept =
        amddwarf__arena_alloc(&object->arena, (buf.count ? buf.count : 1) * sizeof *kept, 8);
    if (kept == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, offset, "range list");
    } else {
      for (size_t i = 0; i < buf.count; ++i) {
        kept[i].low = buf.items[i].low;
        kept[i].high = buf.items[i].high;
      }
      *ranges = kept;
      *count = buf.count;
    }
  }
  amddwarf__mem_free(&object->allocator, buf.items, buf.capacity * sizeof *buf.items);
  return st;
}

amddwarf_status amddwarf__object_visit_ranges(amddwarf_object *object, const amddwarf_cu *cu,
                                             uint16_t form, uint64_t value,
                                             bool (*visit)(void *user, const amddwarf_range *range),
                                             void *user, amddwarf_error *err)
{
  uint64_t offset = 0;
  entry_buf buf = {NULL, 0, 0};
  amddwarf_status st = read_list_of(object, cu, true, form, value, &buf, &offset, err);
  for (size_t i = 0; st == AMDDWARF_OK && i < buf.count; ++i) {
    amddwarf_range range = {buf.items[i].low, buf.items[i].high};
    if (!visit(user, &range))
      break;
  }
  amddwarf__mem_free(&object->allocator, buf.items, buf.capacity * sizeof *buf.items);
  return st;
}

amddwarf_status amddwarf__object_loclist_at(amddwarf_object *object, const amddwarf_cu *cu,
                                           uint16_t form, uint64_t value, uint64_t pc,
                                           amddwarf_loc_entry *entry, bool *found,
                                           amddwarf_error *err)
{
  uint64_t offset = 0;
  entry_buf buf = {NULL, 0, 0};
  *found = false;
  amddwarf_status st = read_list_of(object, cu, false, form, value, &buf, &offset, err);
  if (st == AMDDWARF_OK) {
    amddwarf_attr_value list;
    memset(&list, 0, sizeof list);
    list.kind = AMDDWARF_ATTR_LIST;
    list.entries = buf.items;
    list.count = buf.count;
    const uint8_t *bytes;
    size_t size;
    const amddwarf_loc_entry *chosen = NULL;
    *found = amddwarf_attr_value_expr_at(&list, pc, &bytes, &size, &chosen) == AMDDWARF_OK;
    if (*found)
      *entry = *chosen;
  }
  amddwarf__mem_free(&object->allocator, buf.items, buf.capacity * sizeof *buf.items);
  return st;
}

amddwarf_status amddwarf__object_visit_loclist(amddwarf_object *object, const amddwarf_cu *cu,
                                              uint16_t form, uint64_t value,
                                              bool (*visit)(void *user,
                                                            const amddwarf_loc_entry *entry),
                                              void *user, amddwarf_error *err)
{
  uint64_t offset = 0;
  entry_buf buf = {NULL, 0, 0};
  amddwarf_status st = read_list_of(object, cu, false, form, value, &buf, &offset, err);
  for (size_t i = 0; st == AMDDWARF_OK && i < buf.count; ++i)
    if (!visit(user, &buf.items[i]))
      break;
  amddwarf__mem_free(&object->allocator, buf.items, buf.capacity * sizeof *buf.items);
  return st;
}
