/* Code objects: line tables (DWARF 2-5 line-number programs) read once into
 * compact rows, and PC -> row lookup. The programs are run here rather than
 * by libdwarf: Debian's libdwarf 20210528 renumbers the file indexes of
 * DWARF 5 rows (file 1 is reported as 0), so the rows could not be compared
 * with other tools or joined with DW_AT_decl_file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/reader.h"
#include "object/internal.h"


static const char *join_path(amddwarf_object *object, const char *dir, const char *name)
{
  if (name == NULL)
    return NULL;
  if (name[0] == '/' || dir == NULL || dir[0] == '\0')
    return amddwarf__arena_strndup(&object->arena, name, strlen(name));
  size_t dl = strlen(dir), nl = strlen(name);
  char *out = amddwarf__arena_alloc(&object->arena, dl + nl + 2, 1);
  if (out == NULL)
    return NULL;
  memcpy(out, dir, dl);
  size_t at = dl;
  if (dl > 0 && dir[dl - 1] != '/')
    out[at++] = '/';
  memcpy(out + at, name, nl);
  out[at + nl] = '\0';
  return out;
}

/* The state of one line-number program (DWARF 5 section 6.2). */
typedef struct line_header {
  uint64_t offset;         /* of the unit in .debug_line */
  uint16_t version;
  uint8_t offset_size, address_size;
  uint8_t min_inst_length, max_ops, default_is_stmt, line_range, opcode_base;
  int8_t line_base;
  const uint8_t *opcode_lengths;
  size_t program_start, end;
} line_header;

/* A table keeps every LINE_CHECKPOINT_ROWS-th row and where the program
   goes on after it; the rows between are read again from there. */
#define LINE_CHECKPOINT_ROWS 32u

/* What a unit's table keeps of its header to run its program again. */
struct amddwarf_line_program {
  line_header h;
  uint8_t reset_flags;
};

/* Growable arrays held while one table is read. */
typedef struct line_buf {
  amddwarf_line_row *rows;
  size_t count, capacity;
  uint32_t *marks;         /* program offset after each checkpoint row */
  size_t mark_count, mark_capacity;
  const char **names;      /* directories, then files */
  size_t name_count, name_capacity;
} line_buf;

static amddwarf_status line_fail(amddwarf_error *err, amddwarf_status st, uint64_t offset,
                                 const char *what)
{
  return amddwarf__fail(err, st, offset, ".debug_line at offset 0x%llx: %s",
                       (unsigned long long)offset, what);
}

static amddwarf_status push_name(amddwarf_object *object, line_buf *b, const char *name,
                                 amddwarf_error *err)
{
  if (amddwarf__mem_reserve(&object->allocator, (void **)&b->names, &b->name_capacity,
                           b->name_count + 1, sizeof *b->names) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "line table names");
  b->names[b->name_count++] = name;
  return AMDDWARF_OK;
}

/* A string-valued form of a DWARF 5 entry format. */
static amddwarf_status read_form_string(amddwarf_object *object, amddwarf_reader *r,
                                        const line_header *h, uint64_t form, const char **out,
                                        amddwarf_error *err)
{
  amddwarf_status st;
  uint64_t off = 0;
  const amddwarf_section *s = NULL;
  size_t len = 0;
  switch (form) {
  case DW_FORM_string:
    return amddwarf__read_cstr(r, out, &len);
  case DW_FORM_line_strp:
  case DW_FORM_strp:
    st = amddwarf__read_uint(r, h->offset_size, &off);
    if (st != AMDDWARF_OK)
      return st;
    s = form == DW_FORM_line_strp ? object->sec_line_str : object->sec_str;
    if (s == NULL || off >= s->size) {
      *out = NULL;
      return line_fail(err, AMDDWARF_E_OBJECT_DWARF, r->pos,
                       "string offset outside .debug_line_str/.debug_str");
    }
    {
      const char *p = (const char *)s->data + off;
      if (memchr(p, '\0', (size_t)(s->size - off)) == NULL)
        return line_fail(err, AMDDWARF_E_OBJECT_DWARF, r->pos, "unterminated string");
      *out = p;
    }
    return AMDDWARF_OK;
  default:
    return line_fail(err, AMDDWARF_E_UNSUPPORTED, r->pos, "string form not supported in a "
                                                          "line table header");
  }
}

/* Skips or reads a value of FORM; *VALUE receives constants. */
static amddwarf_status read_form_value(amddwarf_reader *r, const line_header *h, uint64_t form,
                                       uint64_t *value)
{
  amddwarf_status st;
  uint64_t len = 0;
  const uint8_t *bytes = NULL;
  *value = 0;
  switch (form) {
  case DW_FORM_data1: return amddwarf__read_uint(r, 1, value);
  case DW_FORM_data2: return amddwarf__read_uint(r, 2, value);
  case DW_FORM_data4: return amddwarf__read_uint(r, 4, value);
  case DW_FORM_data8: return amddwarf__read_uint(r, 8, value);
  case DW_FORM_udata: return amddwarf_read_uleb(r, value);
  case DW_FORM_data16: return amddwarf__read_bytes(r, 16, &bytes);
  case DW_FORM_block:
    st = amddwarf_read_uleb(r, &len);
    return st != AMDDWARF_OK ? st : amddwarf__read_bytes(r, len, &bytes);
  case DW_FORM_string: {
    const char *s = NULL;
    size_t n = 0;
    return amddwarf__read_cstr(r, &s, &n);
  }
  case DW_FORM_line_strp:
  case DW_FORM_strp:
  case DW_FORM_sec_offset:
    return amddwarf__read_uint(r, h->offset_size, value);
  default:
    return AMDDWARF_E_UNSUPPORTED;
  }
}

/* DWARF 5 directory or file entries: paths (and directory indexes) into
   NAMES, the directory index of each into DIRS (files only). */
static amddwarf_status read_entries(amddwarf_object *object, amddwarf_reader *r,
                                    const line_header *h, line_buf *b, uint32_t *dirs,
                                    uint64_t *count_out, uint64_t max, amddwarf_error *err)
{
  uint8_t format_count = 0;
  uint64_t formats[32][2];
  uint64_t count = 0;
  amddwarf_status st = amddwarf_read_u8(r, &format_count);
  if (st != AMDDWARF_OK)
    return st;
  if (format_count > 32)
    return line_fail(err, AMDDWARF_E_LIMIT, h->offset, "more than 32 entry formats");
  for (unsigned i = 0; i < format_count; ++i)
    if ((st = amddwarf_read_uleb(r, &formats[i][0])) != AMDDWARF_OK ||
        (st = amddwarf_read_uleb(r, &formats[i][1])) != AMDDWARF_OK)
      return st;
  if ((st = amddwarf_read_uleb(r, &count)) != AMDDWARF_OK)
    return st;
  if (count > max)
    return line_fail(err, AMDDWARF_E_LIMIT, h->offset, "too many directory or file entries");
  for (uint64_t e = 0; e < count; ++e) {
    const char *path = NULL;
    uint64_t dir = 0;
    for (unsigned i = 0; i < format_count; ++i) {
      uint64_t v = 0;
      if (formats[i][0] == 1 /* DW_LNCT_path */) {
        st = read_form_string(object, r, h, formats[i][1], &path, err);
      } else {
        st = read_form_value(r, h, formats[i][1], &v);
        if (st == AMDDWARF_E_UNSUPPORTED)
          return line_fail(err, st, r->pos, "entry form not supported");
        if (formats[i][0] == 2 /* DW_LNCT_directory_index */)
          dir = v;
      }
      if (st != AMDDWARF_OK)
        return st;
    }
    if (dirs != NULL)
      dirs[e] = (uint32_t)dir;
    if ((st = push_name(object, b, path, err)) != AMDDWARF_OK)
      return st;
  }
  *count_out = count;
  return AMDDWARF_OK;
}

/* Where the rows of a running program go: every row into BUF (reading the
   table), or, running again from a checkpoint, past SKIP rows the next
   WANT into OUT (the run then ends with AMDDWARF_END), or every row to
   VISIT and nowhere else. */
typedef struct line_sink {
  amddwarf_object *object;
  line_buf *buf;
  size_t skip;
  amddwarf_line_row *out;
  size_t want, got;
  void (*visit)(void *user, const amddwarf_line_row *row);
  void *user;
} line_sink;

/* Takes ROW, emitted by the operation that ends at program offset POS. */
static amddwarf_status emit_row(line_sink *sink, const amddwarf_line_row *row, size_t pos,
                                amddwarf_error *err)
{
  if (sink->visit != NULL) { /* amddwarf__object_visit_lines: nothing kept */
    sink->visit(sink->user, row);
    return AMDDWARF_OK;
  }
  amddwarf_object *object = sink->object;
  line_buf *b = sink->buf;
  if (b == NULL) {
    if (sink->skip > 0) {
      --sink->skip;
      return AMDDWARF_OK;
    }
    sink->out[sink->got++] = *row;
    return sink->got == sink->want ? AMDDWARF_END : AMDDWARF_OK;
  }
  if (b->count % LINE_CHECKPOINT_ROWS == 0) {
    if (pos > UINT32_MAX)
      return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, pos,
                           ".debug_line at 0x%zx: a line program past 4 GiB", pos);
    if (amddwarf__mem_reserve(&object->allocator, (void **)&b->marks, &b->mark_capacity,
                             b->mark_count + 1, sizeof *b->marks) != 0)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "line table rows");
    b->marks[b->mark_count++] = (uint32_t)pos;
  }
  if (b->count >= 50000000u)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "more than 50000000 line table rows");
  if (b->count >= b->capacity &&
      amddwarf__mem_reserve(&object->allocator, (void **)&b->rows, &b->capacity, b->count + 1,
                           sizeof *b->rows) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "line table rows");
  b->rows[b->count++] = *row;
  return AMDDWARF_OK;
}

/* The registers at the start of a sequence (DWARF 5 table 6.4). */
static void line_reset(amddwarf_line_row *row, uint8_t flags)
{
  memset(row, 0, sizeof *row);
  row->file = 1;
  row->line = 1;
  row->flags = flags;
}

/* The registers after ROW was emitted (DWARF 5 section 6.2.5). */
static void after_row(amddwarf_line_row *row, uint8_t reset_flags)
{
  if (row->flags & AMDDWARF_LINE_END_SEQUENCE) {
    line_reset(row, reset_flags);
    return;
  }
  row->discriminator = 0;
  row->flags &= (uint8_t)~(AMDDWARF_LINE_BASIC_BLOCK | AMDDWARF_LINE_PROLOGUE_END |
                           AMDDWARF_LINE_EPILOGUE_BEGIN);
}

/* Runs the program at R from the registers START (NULL: a sequence's
   start) to H->end, or until SINK ends the run (AMDDWARF_END). */
static amddwarf_status run_program(line_sink *sink, amddwarf_reader *r, const line_header *h,
                                   const amddwarf_line_row *start, amddwarf_error *err)
{
  amddwarf_line_row row;
  amddwarf_status st = AMDDWARF_OK;
  const uint8_t reset_flags = h->default_is_stmt ? AMDDWARF_LINE_IS_STMT : 0;
  /* A special opcode's advances without a division a row: ADJUSTED /
     LINE_RANGE is (ADJUSTED * RECIPROCAL) >> 16, exact for both below 256
     (the error ADJUSTED * (RECIPROCAL * LINE_RANGE - 2^16) stays below
     2^16; every pair is checked in tests/unit/test_object_stats.c). */
  const uint32_t reciprocal = amddwarf__line_reciprocal(h->line_range);
  if (start != NULL)
    row = *start;
  else
    line_reset(&row, reset_flags);
  while (r->pos < h->end) {
    uint8_t op = 0;
    uint64_t u = 0;
    int64_t sv = 0;
    size_t at = r->pos;
    if ((st = amddwarf_read_u8(r, &op)) != AMDDWARF_OK)
      break;
    if (op >= h->opcode_base) {
      unsigned adjusted = (unsigned)(op - h->opcode_base);
      unsigned operation_advance = (adjusted * reciprocal) >> 16;
      unsigned line_advance = adjusted - operation_advance * h->line_range;
      row.address += (uint64_t)h->min_inst_length * operation_advance;
      row.line = (uint32_t)((int64_t)row.line + h->line_base + (int64_t)line_advance);
      if ((st = emit_row(sink, &row, r->pos, err)) != AMDDWARF_OK)
        return st;
      after_row(&row, reset_flags);
      continue;
    }
    switch (op) {
    case 0: { /* extended */
      uint64_t len = 0;
      uint8_t sub = 0;
      if ((st = amddwarf_read_uleb(r, &len)) != AMDDWARF_OK)
        goto out;
      size_t ext_end = r->pos + (size_t)len;
      if (len == 0 || len > h->end - r->pos)
        return line_fail(err, AMDDWARF_E_OBJECT_DWARF, at, "extended opcode overruns the unit");
      if ((st = amddwarf_read_u8(r, &sub)) != AMDDWARF_OK)
        goto out;
      if (sub == 1) { /* end_sequence */
        row.flags |= AMDDWARF_LINE_END_SEQUENCE;
        if ((st = emit_row(sink, &row, ext_end, err)) != AMDDWARF_OK)
          return st;
        after_row(&row, reset_flags);
      } else if (sub == 2) { /* set_address */
        unsigned n = (unsigned)(len - 1);
        if (n == 0 || n > 8)
          return line_fail(err, AMDDWARF_E_OBJECT_DWARF, at, "DW_LNE_set_address size");
        if ((st = amddwarf__read_uint(r, n, &row.address)) != AMDDWARF_OK)
          goto out;
      } else if (sub == 4) { /* set_discriminator */
        if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
          goto out;
        row.discriminator = (uint32_t)u;
      }
      r->pos = ext_end; /* define_file and unknown ones are skipped */
      break;
    }
    case 1: /* copy */
      if ((st = emit_row(sink, &row, r->pos, err)) != AMDDWARF_OK)
        return st;
      after_row(&row, reset_flags);
      break;
    case 2: /* advance_pc */
      if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
        goto out;
      row.address += u * h->min_inst_length;
      break;
    case 3: /* advance_line */
      if ((st = amddwarf__read_sleb(r, &sv)) != AMDDWARF_OK)
        goto out;
      row.line = (uint32_t)((int64_t)row.line + sv);
      break;
    case 4: /* set_file */
      if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
        goto out;
      row.file = (uint32_t)u;
      break;
    case 5: /* set_column */
      if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
        goto out;
      row.column = (uint32_t)u;
      break;
    case 6: row.flags ^= AMDDWARF_LINE_IS_STMT; break;
    case 7: row.flags |= AMDDWARF_LINE_BASIC_BLOCK; break;
    case 8: /* const_add_pc */
      row.address += (uint64_t)h->min_inst_length * ((255u - h->opcode_base) / h->line_range);
      break;
    case 9: { /* fixed_advance_pc */
      uint16_t d = 0;
      if ((st = amddwarf__read_u16(r, &d)) != AMDDWARF_OK)
        goto out;
      row.address += d;
      break;
    }
    case 10: row.flags |= AMDDWARF_LINE_PROLOGUE_END; break;
    case 11: row.flags |= AMDDWARF_LINE_EPILOGUE_BEGIN; break;
    case 12: /* set_isa */
      if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
        goto out;
      row.isa = (uint8_t)u;
      break;
    default: /* an opcode this version does not define: skip its operands */
      for (unsigned i = 0; i < h->opcode_lengths[op - 1]; ++i)
        if ((st = amddwarf_read_uleb(r, &u)) != AMDDWARF_OK)
          goto out;
      break;
    }
  }
out:
  if (st != AMDDWARF_OK)
    return line_fail(err, st == AMDDWARF_E_TRUNCATED ? AMDDWARF_E_OBJECT_DWARF : st, r->pos,
                     "line program operation runs past the end of the unit");
  return AMDDWARF_OK;
}

/* Reads unit CU's table: its files into TABLE, every row into *ROWS_OUT
   (TABLE->row_count of them; NULL when none), the program offsets after
   every LINE_CHECKPOINT_ROWS-th row into *MARKS_OUT, the header into *H_OUT. */
static amddwarf_status read_lines(amddwarf_object *object, const amddwarf_cu *cu,
                                  amddwarf_line_row **rows_out, uint32_t **marks_out,
                                  line_header *h_out, amddwarf_line_table *table,
                                  void (*begin)(void *user, const char *const *files,
                                                size_t file_count),
                                  void (*visit)(void *user, const amddwarf_line_row *row),
                                  void *user, amddwarf_error *err)
{
  const amddwarf_section *s = object->sec_line;
  amddwarf_reader r;
  line_header h;
  line_buf b;
  amddwarf_status st = AMDDWARF_OK;
  uint64_t unit_length = 0, header_length = 0;
  uint32_t len32 = 0;
  uint32_t *file_dirs = NULL;
  uint64_t dir_count = 0, file_count = 0;
  size_t file_dirs_size = 0;
  memset(&b, 0, sizeof b);
  memset(&h, 0, sizeof h);
  table->cu_index = cu->index;
  table->offset = cu->line_offset;
  if (s == NULL || cu->line_offset >= s->size)
    return line_fail(err, AMDDWARF_E_OBJECT_DWARF, cu->line_offset,
                     "DW_AT_stmt_list points outside .debug_line");
  amddwarf_reader_init(&r, s->data, (size_t)s->size);
  r.pos = (size_t)cu->line_offset;
  h.offset = cu->line_offset;
  if ((st = amddwarf__read_u32(&r, &len32)) != AMDDWARF_OK)
    goto truncated;
  h.offset_size = 4;
  unit_length = len32;
  if (len32 == 0xffffffffu) {
    h.offset_size = 8;
    if ((st = amddwarf__read_u64(&r, &unit_length)) != AMDDWARF_OK)
      goto truncated;
  } else if (len32 >= 0xfffffff0u) {
    return line_fail(err, AMDDWARF_E_OBJECT_DWARF, cu->line_offset, "reserved unit length");
  }
  if (unit_length > s->size - r.pos)
    return line_fail(err, AMDDWARF_E_OBJECT_DWARF, cu->line_offset,
                     "unit length runs past the end of the section");
  h.end = r.pos + (size_t)unit_length;
  r.size = h.end;
  if ((st = amddwarf__read_u16(&r, &h.version)) != AMDDWARF_OK)
    goto truncated;
  if (h.version < 2 || h.version > 5)
    return line_fail(err, AMDDWARF_E_UNSUPPORTED, cu->line_offset, "line table version not 2-5");
  h.address_size = cu->address_size;
  if (h.version >= 5) {
    uint8_t seg = 0;
    if ((st = amddwarf_read_u8(&r, &h.address_size)) != AMDDWARF_OK ||
        (st = amddwarf_read_u8(&r, &seg)) != AMDDWARF_OK)
      goto truncated;
  }
  if ((st = amddwarf__read_uint(&r, h.offset_size, &header_length)) != AMDDWARF_OK)
    goto truncated;
  if (header_length > h.end - r.pos)
    return line_fail(err, AMDDWARF_E_OBJECT_DWARF, cu->line_offset,
                     "header length runs past the unit");
  h.program_start = r.pos + (size_t)header_length;
  h.max_ops = 1;
  if ((st = amddwarf_read_u8(&r, &h.min_inst_length)) != AMDDWARF_OK)
    goto truncated;
  if (h.version >= 4 && (st = amddwarf_read_u8(&r, &h.max_ops)) != AMDDWARF_OK)
    goto truncated;
  {
    uint8_t lb = 0;
    if ((st = amddwarf_read_u8(&r, &h.default_is_stmt)) != AMDDWARF_OK ||
        (st = amddwarf_read_u8(&r, &lb)) != AMDDWARF_OK ||
        (st = amddwarf_read_u8(&r, &h.line_range)) != AMDDWARF_OK ||
        (st = amddwarf_read_u8(&r, &h.opcode_base)) != AMDDWARF_OK)
      goto truncated;
    h.line_base = (int8_t)lb;
  }
  if (h.line_range == 0 || h.opcode_base == 0)
    return line_fail(err, AMDDWARF_E_OBJECT_DWARF, cu->line_offset,
                     "line_range or opcode_base is 0");
  if ((st = amddwarf__read_bytes(&r, h.opcode_base - 1u, &h.opcode_lengths)) != AMDDWARF_OK)
    goto truncated;
  table->version = h.version;
  if (h.version >= 5) {
    if ((st = read_entries(object, &r, &h, &b, NULL, &dir_count, 100000, err)) != AMDDWARF_OK)
      goto done;
    /* Files: names follow the directories in B.names. */
    size_t mark = r.pos;
    uint8_t fc = 0;
    uint64_t pairs = 0, n = 0;
    if ((st = amddwarf_read_u8(&r, &fc)) != AMDDWARF_OK)
      goto truncated;
    for (unsigned i = 0; i < 2u * fc; ++i)
      if ((st = amddwarf_read_uleb(&r, &pairs)) != AMDDWARF_OK)
        goto truncated;
    if ((st = amddwarf_read_uleb(&r, &n)) != AMDDWARF_OK)
      goto truncated;
    if (n > 1000000) { /* the directories' names are held: through the cleanup */
      st = line_fail(err, AMDDWARF_E_LIMIT, cu->line_offset, "more than 1000000 files");
      goto done;
    }
    r.pos = mark;
    file_dirs_size = (size_t)(n ? n : 1) * sizeof *file_dirs;
    file_dirs = amddwarf__mem_alloc(&object->allocator, file_dirs_size);
    if (file_dirs == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table files");
      goto done;
    }
    if ((st = read_entries(object, &r, &h, &b, file_dirs, &file_count, n, err)) != AMDDWARF_OK)
      goto done;
  } else {
    /* include_directories (index 1..), then file_names (index 1..). */
    for (;;) {
      const char *d = NULL;
      size_t n = 0;
      if ((st = amddwarf__read_cstr(&r, &d, &n)) != AMDDWARF_OK)
        goto truncated;
      if (n == 0)
        break;
      if ((st = push_name(object, &b, d, err)) != AMDDWARF_OK)
        goto done;
      ++dir_count;
    }
    size_t cap = 0;
    for (;;) {
      const char *f = NULL;
      size_t n = 0;
      uint64_t dir = 0, skip = 0;
      if ((st = amddwarf__read_cstr(&r, &f, &n)) != AMDDWARF_OK)
        goto truncated;
      if (n == 0)
        break;
      if ((st = amddwarf_read_uleb(&r, &dir)) != AMDDWARF_OK ||
          (st = amddwarf_read_uleb(&r, &skip)) != AMDDWARF_OK ||
          (st = amddwarf_read_uleb(&r, &skip)) != AMDDWARF_OK)
        goto truncated;
      if (amddwarf__mem_reserve(&object->allocator, (void **)&file_dirs, &cap, file_count + 1,
                               sizeof *file_dirs) != 0) {
        st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table files");
        goto done;
      }
      file_dirs_size = cap * sizeof *file_dirs;
      file_dirs[file_count++] = (uint32_t)dir;
      if ((st = push_name(object, &b, f, err)) != AMDDWARF_OK)
        goto done;
    }
  }
  {
    /* Full paths. DWARF 5: files and directories from 0, directory 0 is the
       compilation directory. DWARF 2-4: from 1, directory 0 = comp_dir. */
    size_t base = h.version >= 5 ? 0 : 1;
    size_t total = (size_t)file_count + base;
    const char **files = amddwarf__arena_calloc(&object->arena, total ? total : 1, sizeof *files);
    if (files == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table files");
      goto done;
    }
    for (size_t i = 0; i < file_count; ++i) {
      const char *name = b.names[dir_count + i];
      const char *dir = NULL;
      uint32_t d = file_dirs[i];
      if (h.version >= 5) {
        if (d < dir_count)
          dir = b.names[d];
      } else {
        dir = d == 0 ? cu->comp_dir : (d <= dir_count ? b.names[d - 1] : NULL);
      }
      /* A relative directory is relative to the compilation directory:
         directory 0 in DWARF 5, DW_AT_comp_dir before. */
      const char *base_dir = h.version >= 5 ? (dir_count ? b.names[0] : NULL) : cu->comp_dir;
      if (dir != NULL && dir[0] != '/' && base_dir != NULL && !(h.version >= 5 && d == 0))
        dir = join_path(object, base_dir, dir);
      files[i + base] = join_path(object, dir, name);
    }
    table->files = files;
    table->file_count = total;
    if (begin != NULL)
      begin(user, files, total);
    if (begin != NULL && visit == NULL)
      goto done; /* the files only */
  }
  r.pos = h.program_start;
  /* A row takes at least one byte of program (a special opcode), typically
     three or four: reserve for that, so the rows are rarely copied. */
  if (h.end > h.program_start && visit == NULL) {
    size_t estimate = (h.end - h.program_start) / 3 + 16;
    if (estimate > ((size_t)1 << 20))
      estimate = (size_t)1 << 20; /* beyond this, grow as rows come */
    if (amddwarf__mem_reserve(&object->allocator, (void **)&b.rows, &b.capacity, estimate,
                             sizeof *b.rows) != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table rows");
      goto done;
    }
  }
  line_sink sink = {object, &b, 0, NULL, 0, 0, visit, user};
  st = run_program(&sink, &r, &h, NULL, err);
  if (visit != NULL)
    goto done; /* the rows went to VISIT */
  if (st == AMDDWARF_OK) {
    *h_out = h;
    *marks_out = NULL;
    if (b.mark_count > 0) { /* ceil(count / LINE_CHECKPOINT_ROWS) of them */
      *marks_out = amddwarf__mem_alloc(&object->allocator, b.mark_count * sizeof *b.marks);
      if (*marks_out == NULL) {
        st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table rows");
        goto done;
      }
      memcpy(*marks_out, b.marks, b.mark_count * sizeof *b.marks);
    }
  }
  if (st == AMDDWARF_OK && b.count > 0) {
    /* Keep the buffer, trimmed: freed by amddwarf_object_close. */
    amddwarf_line_row *kept = amddwarf__mem_realloc(
        &object->allocator, b.rows, b.capacity * sizeof *b.rows, b.count * sizeof *b.rows);
    if (kept == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, cu->line_offset, "line table rows");
      goto done;
    }
    *rows_out = kept;
    table->row_count = b.count;
    b.rows = NULL;
    b.capacity = 0;
    goto done;
  }
  if (st == AMDDWARF_OK) { /* no rows: an empty table, still present */
    *rows_out = NULL;
    table->row_count = 0;
  }
  goto done;
truncated:
  st = line_fail(err, AMDDWARF_E_OBJECT_DWARF, r.pos, "header runs past the end of the unit");
done:
  if (b.rows != NULL)
    amddwarf__mem_free(&object->allocator, b.rows, b.capacity * sizeof *b.rows);
  amddwarf__mem_free(&object->allocator, b.marks, b.mark_capacity * sizeof *b.marks);
  amddwarf__mem_free(&object->allocator, b.names, b.name_capacity * sizeof *b.names);
  amddwarf__mem_free(&object->allocator, file_dirs, file_dirs_size);
  return st;
}

/* The sequences of TABLE by address, for amddwarf_object_line_at. */
static amddwarf_status index_sequences(amddwarf_object *object, amddwarf_unit *unit,
                                       const amddwarf_line_row *rows, amddwarf_error *err)
{
  const amddwarf_line_table *t = &unit->lines;
  size_t n = 0;
  for (size_t i = 0; i < t->row_count; ++i)
    n += (rows[i].flags & AMDDWARF_LINE_END_SEQUENCE) != 0;
  unit->sequences = amddwarf__arena_alloc(&object->arena, (n ? n : 1) * sizeof *unit->sequences, 8);
  if (unit->sequences == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, t->offset, "line sequences");
  size_t k = 0, start = 0;
  for (size_t i = 0; i < t->row_count; ++i) {
    if (!(rows[i].flags & AMDDWARF_LINE_END_SEQUENCE))
      continue;
    if (i > start) {
      amddwarf_line_sequence *q = &unit->sequences[k++];
      q->low = rows[start].address;
      q->high = rows[i].address;
      q->first_row = (uint32_t)start;
      q->end_row = (uint32_t)i;
    }
    start = i + 1;
  }
  /* Sequences are seldom out of order: insertion sort keeps this linear then. */
  for (size_t i = 1; i < k; ++i) {
    amddwarf_line_sequence q = unit->sequences[i];
    size_t j = i;
    for (; j > 0 && unit->sequences[j - 1].low > q.low; --j)
      unit->sequences[j] = unit->sequences[j - 1];
    unit->sequences[j] = q;
  }
  unit->sequence_count = k;
  return AMDDWARF_OK;
}

/* ---- rows read again from checkpoints ---- */

/* Rows FIRST to FIRST + COUNT - 1 (COUNT > 0, all in the table) of UNIT's
   table into OUT: from the checkpoint at or before FIRST, the program run
   again once. */
static amddwarf_status rows_at(const amddwarf_object *object, const amddwarf_unit *unit,
                               size_t first, amddwarf_line_row *out, size_t count)
{
  size_t c = first / LINE_CHECKPOINT_ROWS;
  const struct amddwarf_line_program *p = unit->program;
  line_sink sink = {(amddwarf_object *)(uintptr_t)object, NULL, 0, out, count, 0, NULL, NULL};
  if (first % LINE_CHECKPOINT_ROWS == 0)
    out[sink.got++] = unit->checkpoints[c];
  else
    sink.skip = first - c * LINE_CHECKPOINT_ROWS - 1;
  if (sink.got == count)
    return AMDDWARF_OK;
  amddwarf_line_row start = unit->checkpoints[c];
  after_row(&start, p->reset_flags);
  amddwarf_reader r;
  amddwarf_reader_init(&r, object->sec_line->data, (size_t)object->sec_line->size);
  r.pos = unit->checkpoint_pos[c];
  amddwarf_status st = run_program(&sink, &r, &p->h, &start, NULL);
  /* The program ran past these rows when the table was read: anything
     else is a section changed under the object. */
  return st == AMDDWARF_END ? AMDDWARF_OK : AMDDWARF_E_OBJECT_DWARF;
}

static amddwarf_status row_at(const amddwarf_object *object, const amddwarf_unit *unit,
                              size_t i, amddwarf_line_row *out)
{
  return rows_at(object, unit, i, out, 1);
}

static uint64_t row_address(const amddwarf_object *object, const amddwarf_unit *unit, size_t i)
{
  amddwarf_line_row row;
  return row_at(object, unit, i, &row) == AMDDWARF_OK ? row.address : UINT64_MAX;
}

/* Keeps every LINE_CHECKPOINT_ROWS-th of the COUNT ROWS of UNIT's table,
   with MARKS (taken over) and its program's header H. */
static amddwarf_status keep_checkpoints(amddwarf_object *object, amddwarf_unit *unit,
                                        const amddwarf_line_row *rows, size_t count,
                                        uint32_t *marks, const line_header *h,
                                        amddwarf_error *err)
{
  size_t n = (count + LINE_CHECKPOINT_ROWS - 1) / LINE_CHECKPOINT_ROWS;
  unit->checkpoint_pos = marks;
  unit->checkpoint_count = n;
  struct amddwarf_line_program *p = amddwarf__arena_alloc(&object->arena, sizeof *p, 8);
  unit->checkpoints = n ? amddwarf__mem_alloc(&object->allocator, n * sizeof *rows) : NULL;
  if (p == NULL || (n > 0 && unit->checkpoints == NULL))
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, unit->lines.offset, "line table rows");
  p->h = *h;
  p->reset_flags = h->default_is_stmt ? AMDDWARF_LINE_IS_STMT : 0;
  unit->program = p;
  for (size_t k = 0; k < n; ++k)
    unit->checkpoints[k] = rows[k * LINE_CHECKPOINT_ROWS];
  return AMDDWARF_OK;
}

size_t amddwarf__object_line_bytes(const amddwarf_object *object)
{
  size_t bytes = 0;
  for (size_t i = 0; i < object->cu_count; ++i) {
    const amddwarf_unit *unit = &object->units[i];
    bytes += unit->checkpoint_count * (sizeof *unit->checkpoints + sizeof *unit->checkpoint_pos);
  }
  return bytes;
}

amddwarf_status amddwarf__object_ensure_lines(const amddwarf_object *cobject, size_t cu_index,
                                             amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = amddwarf__object_unit(cobject, cu_index, err);
  if (unit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  const amddwarf_cu *cu = &object->cus[cu_index];
  if (atomic_load_explicit(&unit->lines_state, memory_order_acquire) == AMDDWARF_UNIT_READY)
    return AMDDWARF_OK;
  if (cu->line_offset == UINT64_MAX)
    return AMDDWARF_OK; /* no line table */
  amddwarf_status st = AMDDWARF_OK;
  pthread_mutex_lock(&object->load_lock);
  unsigned state = atomic_load_explicit(&unit->lines_state, memory_order_acquire);
  if (state == AMDDWARF_UNIT_FAILED) {
    if (err != NULL)
      *err = unit->lines_failure;
    st = unit->lines_failure.status;
  } else if (state != AMDDWARF_UNIT_READY) {
    amddwarf_error local;
    amddwarf_error *e = err != NULL ? err : &local;
    memset(&unit->lines, 0, sizeof unit->lines);
    unit->lines.cu_index = (uint32_t)cu_index;
    unit->lines.offset = cu->line_offset;
    amddwarf_line_row *rows = NULL;
    uint32_t *marks = NULL;
    line_header h;
    st = read_lines(object, cu, &rows, &marks, &h, &unit->lines, NULL, NULL, NULL, e);
    if (st == AMDDWARF_OK)
      st = index_sequences(object, unit, rows, e);
    if (st == AMDDWARF_OK) {
      st = keep_checkpoints(object, unit, rows, unit->lines.row_count, marks, &h, e);
      marks = NULL;
    }
    if (marks != NULL)
      amddwarf__mem_free(&object->allocator, marks,
                        ((unit->lines.row_count + LINE_CHECKPOINT_ROWS - 1) / LINE_CHECKPOINT_ROWS) *
                            sizeof *marks);
    if (rows != NULL)
      amddwarf__mem_free(&object->allocator, rows, unit->lines.row_count * sizeof *rows);
    if (st == AMDDWARF_OK) {
      atomic_store_explicit(&unit->lines_state, AMDDWARF_UNIT_READY, memory_order_release);
    } else {
      unit->lines_failure = *e;
      unit->lines_failure.status = st;
      atomic_store_explicit(&unit->lines_state, AMDDWARF_UNIT_FAILED, memory_order_release);
    }
  }
  pthread_mutex_unlock(&object->load_lock);
  return st;
}

/* A visitor of amddwarf__object_visit_lines, as amddwarf_object_line_visit
   calls it (visit_each_row). */
typedef struct each_row {
  void (*visit)(void *user, const amddwarf_line_row *row);
  void *user;
} each_row;

static int visit_each_row(void *user, size_t index, const amddwarf_line_row *row)
{
  (void)index;
  const each_row *each = user;
  each->visit(each->user, row);
  return 0;
}

amddwarf_status amddwarf__object_visit_lines(const amddwarf_object *cobject, size_t cu_index,
                                            void (*begin)(void *user, const char *const *files,
                                                          size_t file_count),
                                            void (*visit)(void *user,
                                                          const amddwarf_line_row *row),
                                            void *user, amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  amddwarf_unit *unit = amddwarf__object_unit(cobject, cu_index, err);
  if (unit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  const amddwarf_cu *cu = &object->cus[cu_index];
  if (cu->line_offset == UINT64_MAX)
    return AMDDWARF_OK;
  if (atomic_load_explicit(&unit->lines_state, memory_order_acquire) != AMDDWARF_UNIT_UNLOADED) {
    amddwarf_status st = amddwarf__object_ensure_lines(cobject, cu_index, err);
    if (st != AMDDWARF_OK)
      return st;
    begin(user, unit->lines.files, unit->lines.file_count);
    if (visit == NULL)
      return AMDDWARF_OK;
    each_row each = {visit, user};
    return amddwarf_object_line_visit(cobject, &unit->lines, visit_each_row, &each);
  }
  /* The files go to the object's arena, under the loading lock; the rows
     only to VISIT. */
  amddwarf_line_table table;
  memset(&table, 0, sizeof table);
  pthread_mutex_lock(&object->load_lock);
  amddwarf_status st = read_lines(object, cu, NULL, NULL, NULL, &table, begin, visit, user, err);
  pthread_mutex_unlock(&object->load_lock);
  return st;
}

void amddwarf__object_free_lines(amddwarf_object *object)
{
  for (size_t i = 0; i < object->cu_count && object->units != NULL; ++i) {
    amddwarf_unit *unit = &object->units[i];
    size_t n = unit->checkpoint_count;
    amddwarf__mem_free(&object->allocator, unit->checkpoints, n * sizeof *unit->checkpoints);
    amddwarf__mem_free(&object->allocator, unit->checkpoint_pos, n * sizeof *unit->checkpoint_pos);
    unit->checkpoints = NULL;
    unit->checkpoint_pos = NULL;
    unit->checkpoint_count = 0;
    unit->lines.row_count = 0;
  }
}

const amddwarf_line_table *amddwarf_object_line_table(const amddwarf_object *object,
                                                      size_t cu_index)
{
  if (amddwarf__object_ensure_lines(object, cu_index, NULL) != AMDDWARF_OK)
    return NULL;
  const amddwarf_line_table *t = &object->units[cu_index].lines;
  return atomic_load_explicit(&object->units[cu_index].lines_state, memory_order_acquire) ==
                 AMDDWARF_UNIT_READY
             ? t
             : NULL;
}

amddwarf_status amddwarf_object_line_rows(const amddwarf_object *object,
                                          const amddwarf_line_table *table, size_t first,
                                          amddwarf_line_row *out, size_t count)
{
  if (object == NULL || table == NULL || out == NULL || table->cu_index >= object->cu_count ||
      table != &object->units[table->cu_index].lines || first >= table->row_count ||
      count == 0 || count > table->row_count - first)
    return AMDDWARF_E_INVALID_ARGUMENT;
  return rows_at(object, &object->units[table->cu_index], first, out, count);
}

amddwarf_status amddwarf_object_line_row(const amddwarf_object *object,
                                         const amddwarf_line_table *table, size_t index,
                                         amddwarf_line_row *out)
{
  return amddwarf_object_line_rows(object, table, index, out, 1);
}

amddwarf_status amddwarf_object_line_visit(const amddwarf_object *object,
                                           const amddwarf_line_table *table,
                                           int (*visit)(void *user, size_t index,
                                                        const amddwarf_line_row *row),
                                           void *user)
{
  if (visit == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  enum { CHUNK = 256 }; /* rows read in one run of the program */
  amddwarf_line_row chunk[CHUNK];
  for (size_t first = 0; table != NULL && first < table->row_count; first += CHUNK) {
    size_t n = table->row_count - first < CHUNK ? table->row_count - first : CHUNK;
    amddwarf_status st = amddwarf_object_line_rows(object, table, first, chunk, n);
    if (st != AMDDWARF_OK)
      return st;
    for (size_t k = 0; k < n; ++k)
      if (visit(user, first + k, &chunk[k]) != 0)
        return AMDDWARF_OK;
  }
  return AMDDWARF_OK;
}

/* The index of the row of unit CU_INDEX covering PC, or SIZE_MAX. */
static size_t unit_row_at(const amddwarf_object *object, size_t cu_index, uint64_t pc)
{
  const amddwarf_line_table *t = amddwarf_object_line_table(object, cu_index);
  if (t == NULL)
    return SIZE_MAX;
  const amddwarf_unit *unit = &object->units[cu_index];
  /* Sequences may overlap (folded or discarded code): the one starting last
     at or before PC is tried first, then the earlier ones. */
  size_t lo = 0, hi = unit->sequence_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (unit->sequences[mid].low <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    const amddwarf_line_sequence *q = &unit->sequences[i];
    if (pc >= q->high)
      continue;
    size_t a = q->first_row, b = q->end_row; /* last row with address <= pc */
    while (b - a > 1) {
      size_t mid = a + (b - a) / 2;
      if (row_address(object, unit, mid) <= pc)
        a = mid;
      else
        b = mid;
    }
    return a;
  }
  return SIZE_MAX;
}

amddwarf_status amddwarf_object_line_at(const amddwarf_object *object, uint64_t pc,
                                        const amddwarf_line_table **table,
                                        amddwarf_line_row *row)
{
  if (object == NULL)
    return AMDDWARF_NOT_FOUND;
  const amddwarf_scope_entry *scope = amddwarf__object_scope_entry_at(object, pc);
  size_t first = scope != NULL ? scope->cu_index : SIZE_MAX;
  size_t hit = first != SIZE_MAX ? unit_row_at(object, first, pc) : SIZE_MAX;
  for (size_t c = 0; hit == SIZE_MAX && c < object->cu_count; ++c)
    if (c != first && (hit = unit_row_at(object, c, pc)) != SIZE_MAX)
      first = c;
  if (hit == SIZE_MAX)
    return AMDDWARF_NOT_FOUND;
  *table = &object->units[first].lines;
  return row_at(object, &object->units[first], hit, row) == AMDDWARF_OK ? AMDDWARF_OK
                                                                         : AMDDWARF_NOT_FOUND;
}
