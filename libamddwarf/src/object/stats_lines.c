/* The line-table numbers of llvm-dwarfdump-19 --statistics: the bytes
 * with line information and with line-0 locations, the rows, the is_stmt
 * rows, and the unique (line, column, file) keys, by LLVM 19's rules: a
 * sequence's rows count only when the sequence ends after it starts; a
 * row's file is numbered over every unit by its path; a unit without file
 * names has no rows counted. Each unit's line program is streamed
 * (amddwarf__object_visit_lines): its rows are never kept. Reads the
 * object only: it may run while another thread walks the DIEs. */
#include <string.h>

#include "common/mem.h"
#include "object/stats_internal.h"

/* A row's (line, column, file) as LLVM keeps it: the column in 16 bits,
   the file numbered over every unit in 16 bits; one 64-bit key. */
static uint64_t line_key(uint32_t line, uint32_t column, uint32_t file)
{
  return (uint64_t)line << 32 | (uint64_t)(uint16_t)column << 16 | (uint16_t)file;
}

/* A set of line keys (open addressing by a multiplicative hash's high
   bits; slot value KEY + 1, 0 empty, so the key of all zeros fits). */
typedef struct line_set {
  uint64_t *slots;
  size_t count;
  size_t zero_lines;     /* keys with line 0 */
  unsigned bits;         /* 1 << bits slots, 0 before the first insert */
} line_set;

struct line_stats {
  const amddwarf_allocator *allocator;
  const amddwarf_object *object;
  stats_files *names;    /* notes each unit's file names, or NULL */
  bool failed;           /* memory ran out */
  uint64_t bytes, zero_bytes, entries, stmt_entries;
 line_set unique;       /* unique non-0: its keys without those of line 0 */
  str_table files;       /* path -> index over every unit */
  uint32_t *map;         /* the unit's file index -> index over every unit */
  size_t map_count, map_capacity;
  bool counted;          /* the unit has file names: LLVM counts its rows */
  size_t cu_index;
  /* the sequence being read: its rows' keys, and what it adds */
  uint64_t *keys;
  size_t key_count, key_capacity;
  uint64_t first_address, last_address;
  uint64_t seq_stmt, seq_zero_bytes;
  bool last_zero;        /* the last row has line 0 */
};
typedef struct line_stats line_stats;

static bool oom(line_stats *ls)
{
  ls->failed = true;
  return false;
}

static size_t line_slot(uint64_t key, unsigned bits)
{
  return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static bool line_set_add(line_stats *ls, line_set *s, uint64_t key)
{
  if (s->bits == 0 || (s->count + 1) * 2 > ((size_t)1 << s->bits)) {
    unsigned bits = s->bits ? s->bits + 1 : 10;
    size_t cap = (size_t)1 << bits;
    uint64_t *slots = amddwarf__mem_calloc(ls->allocator, cap, sizeof *slots);
    if (slots == NULL)
      return oom(ls);
    size_t old = s->bits ? (size_t)1 << s->bits : 0;
    for (size_t i = 0; i < old; ++i) {
      if (s->slots[i] == 0)
        continue;
      size_t h = line_slot(s->slots[i] - 1, bits);
      while (slots[h] != 0)
        h = (h + 1) & (cap - 1);
      slots[h] = s->slots[i];
    }
    amddwarf__mem_free(ls->allocator, s->slots, old * sizeof *s->slots);
    s->slots = slots;
    s->bits = bits;
  }
  size_t mask = ((size_t)1 << s->bits) - 1;
  for (size_t h = line_slot(key, s->bits);; h = (h + 1) & mask) {
    if (s->slots[h] == 0) {
      s->slots[h] = key + 1;
      ++s->count;
      s->zero_lines += (key >> 32) == 0;
      return true;
    }
    if (s->slots[h] == key + 1)
      return true;
  }
}

/* Asks the cache for the slot where KEY's search starts: a sequence's
   keys go to the set one after the other, each to a slot the cache does
   not hold (the set of a large object is larger than it). */
static void line_set_prefetch(const line_set *s, uint64_t key)
{
#if defined(__GNUC__)
  if (s->bits != 0)
    __builtin_prefetch(&s->slots[line_slot(key, s->bits)]);
#else
  (void)s;
  (void)key;
#endif
}

/* How many keys ahead line_set_prefetch looks: enough for a load from
   memory to arrive while the keys between are added. */
enum { LINE_PREFETCH_AHEAD = 16 };

static void line_set_clear(line_stats *ls, line_set *s)
{
  size_t n = s->bits ? (size_t)1 << s->bits : 0;
  amddwarf__mem_free(ls->allocator, s->slots, n * sizeof *s->slots);
  memset(s, 0, sizeof *s);
}


static void line_files(void *user, const char *const *files, size_t file_count)
{
  line_stats *ls = user;
  if (ls->names != NULL)
    amddwarf__stats_note_files(ls->names, ls->cu_index, files, file_count);
  ls->map_count = 0;
  ls->counted = false;
  if (amddwarf__mem_reserve(ls->allocator, (void **)&ls->map, &ls->map_capacity,
                            file_count + 1, sizeof *ls->map) != 0) {
    oom(ls);
    return;
  }
  for (size_t f = 0; f < file_count; ++f) {
    ls->map[f] = 0; /* LLVM's DenseMap gives 0 for a file without a name */
    if (files[f] == NULL)
      continue;
    bool added;
    uint32_t g = amddwarf__stats_table_get(&ls->files, 0, files[f], strlen(files[f]), (uint32_t)ls->files.count,
                           &added);
    if (g == UINT32_MAX) {
      oom(ls);
      return;
    }
    ls->map[f] = g;
    ls->counted = true;
  }
  ls->map_count = file_count;
}

/* LLVM counts the rows of a sequence only when the sequence ends after it
   starts: each row's key and counts wait for the sequence's end. */
static void line_row(void *user, const amddwarf_line_row *row)
{
  line_stats *ls = user;
  if (!ls->counted)
    return;
  size_t n = ls->key_count;
  uint64_t address = row->address;
  if (n > 0 && ls->last_zero) /* the bytes of a line-0 row end here */
    amddwarf__stats_sat_add(&ls->seq_zero_bytes, address - ls->last_address);
  if (!(row->flags & AMDDWARF_LINE_END_SEQUENCE)) {
    if (n == ls->key_capacity &&
        amddwarf__mem_reserve(ls->allocator, (void **)&ls->keys, &ls->key_capacity,
                              n + 1, sizeof *ls->keys) != 0) {
      oom(ls);
      return;
    }
    if (n == 0) {
      ls->first_address = address;
      ls->seq_stmt = ls->seq_zero_bytes = 0;
    }
    uint32_t file = row->file < ls->map_count ? ls->map[row->file] : 0;
    uint64_t key = line_key(row->line, row->column, file);
    ls->seq_stmt += (row->flags & AMDDWARF_LINE_IS_STMT) != 0;
    ls->last_zero = row->line == 0;
    ls->last_address = address;
    ls->key_count = n + 1;
    ls->keys[n] = key; /* last: the stores above need no reload */
    return;
  }
  /* the end row is not an entry */
  ls->key_count = 0;
  uint64_t first = n > 0 ? ls->first_address : address;
  if (!(first < address))
    return;
  amddwarf__stats_sat_add(&ls->bytes, address - first);
  amddwarf__stats_sat_add(&ls->entries, n);
  amddwarf__stats_sat_add(&ls->stmt_entries, ls->seq_stmt);
  amddwarf__stats_sat_add(&ls->zero_bytes, ls->seq_zero_bytes);
  const uint64_t *keys = ls->keys;
  for (size_t r = 0; r < n; ++r) {
    if (r + LINE_PREFETCH_AHEAD < n)
      line_set_prefetch(&ls->unique, keys[r + LINE_PREFETCH_AHEAD]);
    if (r == 0 || keys[r] != keys[r - 1]) /* a key repeated at once is in */
      line_set_add(ls, &ls->unique, keys[r]);
  }
}

static void unit_lines(line_stats *ls, size_t cu_index)
{
  ls->key_count = 0;
  ls->counted = false;
  ls->cu_index = cu_index;
  /* A unit whose table cannot be read is left out of the counts. */
  uint64_t before[4] = {ls->bytes, ls->zero_bytes, ls->entries, ls->stmt_entries};
  if (amddwarf__object_visit_lines(ls->object, cu_index, line_files, line_row, ls, NULL) !=
      AMDDWARF_OK) {
    ls->bytes = before[0];
    ls->zero_bytes = before[1];
    ls->entries = before[2];
    ls->stmt_entries = before[3];
  }
}


amddwarf_status amddwarf__stats_lines(const amddwarf_object *object, stats_files *names,
                                      stats_line_counts *out, amddwarf_error *err)
{
  line_stats ls;
  memset(&ls, 0, sizeof ls);
  memset(out, 0, sizeof *out);
  amddwarf_arena arena;
  amddwarf__arena_init(&arena, &object->allocator);
  ls.allocator = &object->allocator;
  ls.object = object;
  ls.names = names;
  ls.files.allocator = &object->allocator;
  ls.files.arena = &arena;
  for (size_t u = 0; u < object->cu_count && !ls.failed; ++u)
    unit_lines(&ls, u);
  out->bytes = ls.bytes;
  out->zero_bytes = ls.zero_bytes;
  out->entries = ls.entries;
  out->stmt_entries = ls.stmt_entries;
  out->unique = ls.unique.count;
  out->unique_nonzero = ls.unique.count - ls.unique.zero_lines;
  bool failed = ls.failed || ls.files.failed;
  amddwarf__stats_table_free(&ls.files);
  line_set_clear(&ls, &ls.unique);
  amddwarf__mem_free(&object->allocator, ls.map, ls.map_capacity * sizeof *ls.map);
  amddwarf__mem_free(&object->allocator, ls.keys, ls.key_capacity * sizeof *ls.keys);
  amddwarf__arena_release(&arena);
  return failed ? amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "line tables")
                : AMDDWARF_OK;
}
