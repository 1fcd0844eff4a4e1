/* Clang offload bundles (clang/docs/ClangOffloadBundler.rst, the binary
 * format): the 24-byte magic, a 64-bit entry count, then per entry a 64-bit
 * offset and size (from the start of the bundle), a 64-bit ID length and
 * the ID; every integer little-endian. Host entries (kind "host") are
 * skipped; a device entry must be non-empty, inside the bundle, after the
 * entry table and apart from every other entry. */
#include <stdlib.h>
#include <string.h>

#include "container/internal.h"

typedef struct span {
  uint64_t offset, size;
  uint64_t table_pos; /* where its table record starts, for messages */
} span;

static int span_order(const void *a, const void *b)
{
  const span *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Refuses entries that overlap: SPANS sorted by offset. */
static amddwarf_status check_overlaps(const amddwarf_container *c, span *spans, size_t count,
                                      uint64_t pos_base, amddwarf_error *err)
{
  if (count > 1) /* an empty table may come with no SPANS array at all */
    qsort(spans, count, sizeof *spans, span_order);
  for (size_t i = 1; i < count; ++i)
    if (spans[i].offset < spans[i - 1].offset + spans[i - 1].size)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + spans[i].table_pos,
                            "%s: offset %llu: bundle entry at [%llu, %llu) overlaps the entry at "
                            "[%llu, %llu) (offsets from the bundle at %llu)",
                            c->name, (unsigned long long)(pos_base + spans[i].table_pos),
                            (unsigned long long)spans[i].offset,
                            (unsigned long long)(spans[i].offset + spans[i].size),
                            (unsigned long long)spans[i - 1].offset,
                            (unsigned long long)(spans[i - 1].offset + spans[i - 1].size),
                            (unsigned long long)pos_base);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__bundle_read(amddwarf_container *c, const amddwarf__place *place,
                                      const uint8_t *bytes, uint64_t size, uint64_t avail,
                                      uint64_t pos_base, uint64_t *need, uint64_t *end,
                                      amddwarf_error *err)
{
  const char *name = c->name;
  if (size < AMDDWARF_BUNDLE_MAGIC_SIZE + 8)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base,
                          "%s: offset %llu: offload bundle of %llu bytes ends before its entry "
                          "count",
                          name, (unsigned long long)pos_base, (unsigned long long)size);
  if (avail < AMDDWARF_BUNDLE_MAGIC_SIZE + 8) {
    *need = AMDDWARF_BUNDLE_MAGIC_SIZE + 8;
    return AMDDWARF_END;
  }
  uint64_t count = amddwarf__le64(bytes + AMDDWARF_BUNDLE_MAGIC_SIZE);
  uint64_t pos = AMDDWARF_BUNDLE_MAGIC_SIZE + 8;
  /* every record takes at least 24 bytes: a count the bundle cannot hold is
     refused before anything is allocated for it */
  if (count > (size - pos) / 24)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + pos - 8,
                          "%s: offset %llu: the entry table of %llu entries is truncated: the "
                          "bundle has %llu bytes",
                          name, (unsigned long long)(pos_base + pos - 8),
                          (unsigned long long)count, (unsigned long long)size);
  /* first pass: the whole table must be present and valid before any entry
     is added */
  span *spans = count ? calloc((size_t)count, sizeof *spans) : NULL;
  if (count && spans == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "bundle entries");
  size_t span_count = 0;
  amddwarf_status st = AMDDWARF_OK;
  uint64_t table_end = pos;
  for (uint64_t i = 0; i < count && st == AMDDWARF_OK; ++i) {
    uint64_t record = table_end;
    if (size - record < 24) {
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + record,
                          "%s: offset %llu: the entry table is truncated at entry %llu of %llu",
                          name, (unsigned long long)(pos_base + record), (unsigned long long)i,
                          (unsigned long long)count);
      break;
    }
    if (avail - record < 24) {
      *need = record + 24;
      st = AMDDWARF_END;
      break;
    }
    uint64_t id_size = amddwarf__le64(bytes + record + 16);
    if (id_size > size - record - 24) {
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + record + 16,
                          "%s: offset %llu: entry %llu's ID of %llu bytes runs past the bundle's "
                          "%llu bytes",
                          name, (unsigned long long)(pos_base + record + 16),
                          (unsigned long long)i, (unsigned long long)id_size,
                          (unsigned long long)size);
      break;
    }
    if (avail - record - 24 < id_size) {
      *need = record + 24 + id_size;
      st = AMDDWARF_END;
      break;
    }
    table_end = record + 24 + id_size;
  }
  for (uint64_t i = 0, record = pos; i < count && st == AMDDWARF_OK; ++i) {
    uint64_t offset = amddwarf__le64(bytes + record), entry_size = amddwarf__le64(bytes + record + 8);
    uint64_t id_size = amddwarf__le64(bytes + record + 16);
    const char *id = (const char *)bytes + record + 24;
    bool host = id_size >= 5 && memcmp(id, "host-", 5) == 0;
    if (offset > size || entry_size > size - offset)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + record,
                          "%s: offset %llu: entry %llu (%.*s) at [%llu, %llu) runs past the end "
                          "of the bundle (%llu bytes)",
                          name, (unsigned long long)(pos_base + record), (unsigned long long)i,
                          (int)(id_size > 80 ? 80 : id_size), id, (unsigned long long)offset,
                          (unsigned long long)offset + entry_size, (unsigned long long)size);
    else if (entry_size == 0 && !host)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + record + 8,
                          "%s: offset %llu: entry %llu (%.*s) has size 0", name,
                          (unsigned long long)(pos_base + record + 8), (unsigned long long)i,
                          (int)(id_size > 80 ? 80 : id_size), id);
    else if (entry_size > 0 && offset < table_end)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos_base + record,
                          "%s: offset %llu: entry %llu (%.*s) starts at %llu, inside the entry "
                          "table (which ends at %llu)",
                          name, (unsigned long long)(pos_base + record), (unsigned long long)i,
                          (int)(id_size > 80 ? 80 : id_size), id, (unsigned long long)offset,
                          (unsigned long long)table_end);
    else if (entry_size > 0)
      spans[span_count++] = (span){offset, entry_size, record};
    record += 24 + id_size;
  }
  if (st == AMDDWARF_OK)
    st = check_overlaps(c, spans, span_count, pos_base, err);
  uint64_t last = table_end;
  for (size_t i = 0; i < span_count; ++i)
    if (spans[i].offset + spans[i].size > last)
      last = spans[i].offset + spans[i].size;
  free(spans);
  for (uint64_t i = 0, record = pos; i < count && st == AMDDWARF_OK; ++i) {
    uint64_t offset = amddwarf__le64(bytes + record), entry_size = amddwarf__le64(bytes + record + 8);
    uint64_t id_size = amddwarf__le64(bytes + record + 16);
    const char *id = (const char *)bytes + record + 24;
    if (!(id_size >= 5 && memcmp(id, "host-", 5) == 0))
      st = amddwarf__container_add(c, place, id, (size_t)id_size, place->offset + offset,
                                   entry_size, err);
    record += 24 + id_size;
  }
  if (st == AMDDWARF_OK)
    *end = last;
  return st;
}

/* Whether the bytes at P (AVAIL of them) start with MAGIC. */
static bool has_magic(const uint8_t *p, uint64_t avail, const char *magic, size_t size)
{
  return avail >= size && memcmp(p, magic, size) == 0;
}

amddwarf_status amddwarf__bundles_scan(amddwarf_container *c, const char *section,
                                       uint64_t offset, uint64_t size, amddwarf_error *err)
{
  uint64_t pos = offset, stop = offset + size;
  while (pos < stop) {
    if (c->data[pos] == 0) { /* padding up to the next bundle's alignment */
      ++pos;
      continue;
    }
    const uint8_t *p = c->data + pos;
    uint64_t rest = stop - pos, end = 0, need = 0;
    amddwarf_status st;
    if (has_magic(p, rest, AMDDWARF_BUNDLE_MAGIC, AMDDWARF_BUNDLE_MAGIC_SIZE)) {
      amddwarf__place place = {section, pos, rest, -1};
      size_t first = c->count;
      st = amddwarf__bundle_read(c, &place, p, rest, rest, pos + c->file_base, &need, &end, err);
      if (st == AMDDWARF_END) /* cannot happen: everything is present */
        st = AMDDWARF_E_CONTAINER_BAD_BUNDLE;
      for (size_t i = first; i < c->count; ++i) /* the bundle ends with its last entry */
        c->entries[i].pub.bundle_size = end;
      end += pos;
    } else if (has_magic(p, rest, AMDDWARF_CCOB_MAGIC, 4)) {
      st = amddwarf__ccob_read(c, section, pos, rest, &end, err);
    } else {
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_BUNDLE, pos + c->file_base,
                          "%s: offset %llu%s%s: neither an offload bundle nor a compressed bundle "
                          "starts here (nor zero padding)",
                          c->name, (unsigned long long)(pos + c->file_base),
                          section[0] ? " in " : "", section);
    }
    if (st != AMDDWARF_OK)
      return st;
    pos = end;
  }
  return AMDDWARF_OK;
}
