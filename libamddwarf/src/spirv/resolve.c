/* Resolving an instruction index to its instruction, line and source text;
 * the #line rule over embedded source text (specs/spirv-instruction-index.md,
 * "Source line text"). */
#include <string.h>

#include "common/error.h"
#include "spirv/module.h"

/* ---- #line directives ---------------------------------------------------- */

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Parses LINE (LENGTH bytes, no line end) as `#line N` or `#line N "file"`
   (whitespace allowed around '#', at least one blank after "line", the file
   name between the first quote and the last one on the line, with at least
   one character). Returns true and fills D (text_line untouched). */
static bool parse_directive(const char *line, size_t length, amddwarf_spirv_directive *d)
{
  size_t i = 0;
  while (i < length && is_space(line[i]))
    i++;
  if (i == length || line[i] != '#')
    return false;
  i++;
  while (i < length && is_space(line[i]))
    i++;
  if (length - i < 4 || memcmp(line + i, "line", 4) != 0)
    return false;
  i += 4;
  size_t blanks = i;
  while (i < length && is_space(line[i]))
    i++;
  if (i == blanks || i == length || line[i] < '0' || line[i] > '9')
    return false;
  uint64_t number = 0;
  while (i < length && line[i] >= '0' && line[i] <= '9') {
    number = number * 10 + (uint64_t)(line[i] - '0');
    if (number > UINT32_MAX)
      return false;
    i++;
  }
  d->number = (uint32_t)number;
  d->file = NULL;
  d->file_length = 0;
  size_t gap = i;
  while (i < length && is_space(line[i]))
    i++;
  if (i > gap && i < length && line[i] == '"') {
    size_t last = length;
    while (last > i + 1 && line[last - 1] != '"')
      last--;
    /* last - 1 is the closing quote; it must leave one character inside. */
    if (last - 1 > i + 1) {
      d->file = line + i + 1;
      d->file_length = last - 1 - (i + 1);
    }
  }
  return true;
}

static amddwarf_status source_index_text(amddwarf_spirv_module *m, amddwarf_spirv_source *s,
                                         amddwarf_error *err)
{
  uint32_t lines = 1;
  for (const char *p = s->text, *end = s->text + s->text_length;
       (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
    lines++;
  s->line_starts = amddwarf__arena_calloc(&m->arena, lines, sizeof(uint32_t));
  if (!s->line_starts)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "out of memory while indexing source text");
  uint32_t n = 0, directives = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s->text_length; i++) {
    if (i == s->text_length || s->text[i] == '\n') {
      s->line_starts[n++] = (uint32_t)start;
      amddwarf_spirv_directive d;
      if (parse_directive(s->text + start, i - start, &d))
        directives++;
      start = i + 1;
    }
  }
  s->line_count = n;
  if (directives == 0)
    return AMDDWARF_OK;
  s->directives = amddwarf__arena_calloc(&m->arena, directives, sizeof(*s->directives));
  if (!s->directives)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "out of memory while indexing #line directives");
  for (uint32_t k = 0; k < n; k++) {
    size_t begin = s->line_starts[k];
    size_t end = k + 1 < n ? s->line_starts[k + 1] - 1 : s->text_length;
    amddwarf_spirv_directive d;
    if (parse_directive(s->text + begin, end - begin, &d)) {
      d.text_line = k + 1;
      s->directives[s->directive_count++] = d;
    }
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__spirv_sources_finish(amddwarf_spirv_module *m, amddwarf_error *err)
{
  for (uint32_t i = 0; i < m->source_count; i++) {
    amddwarf_spirv_source *s = &m->sources[i];
    if (!s->text)
      continue;
    if (s->text_length >= UINT32_MAX)
      return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                           "source text of %zu bytes is too large", s->text_length);
    amddwarf_status st = source_index_text(m, s, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

static bool same_name(const char *a, size_t alen, const char *b, size_t blen)
{
  if (!a || !b || a == b)
    return a == b && alen == blen;
  return alen == blen && memcmp(a, b, alen) == 0;
}

/* The #line rule: returns the 1-based text line holding source line LINE of
   FILE, or 0. With NAMED_ONLY (the text is another file's) only directives
   in the scope of a directive that names FILE count, and there is no
   implicit start. */
static uint32_t rule_text_line(const amddwarf_spirv_directive *dirs, uint32_t count,
                               uint32_t text_lines, const char *file, size_t file_length,
                               uint32_t line, bool named_only)
{
  const char *current = named_only ? NULL : file;
  size_t current_length = named_only ? 0 : file_length;
  bool found = false;
  uint32_t best_number = 0, best_text = 0;
  for (uint32_t i = 0; i < count; i++) {
    const amddwarf_spirv_directive *d = &dirs[i];
    if (d->file) {
      current = d->file;
      current_length = d->file_length;
    }
    if (!current || !same_name(current, current_length, file, file_length) ||
        line < d->number)
      continue;
    if (!found || line - d->number <= line - best_number) {
      found = true;
      best_number = d->number;
      best_text = d->text_line;
    }
  }
  if (!found && named_only)
    return 0;
  uint64_t target = found ? (uint64_t)best_text + 1 + (line - best_number) : line;
  if (target == 0 || target > text_lines)
    return 0;
  return (uint32_t)target;
}

static void text_line_span(const amddwarf_spirv_source *s, uint32_t text_line,
                           const char **start, size_t *length)
{
  size_t begin = s->line_starts[text_line - 1];
  size_t end = text_line < s->line_count ? s->line_starts[text_line] - 1 : s->text_length;
  if (end > begin && s->text[end - 1] == '\r')
    end--;
  *start = s->text + begin;
  *length = end - begin;
}

amddwarf_status amddwarf_spirv_find_source_line(const char *text, size_t length,
                                                const char *file, uint32_t line,
                                                const char **line_start, size_t *line_length,
                                                uint32_t *text_line)
{
  if (!text || !line_start || !line_length)
    return AMDDWARF_E_INVALID_ARGUMENT;
  size_t file_length = file ? strlen(file) : 0;
  const char *current = file;
  size_t current_length = file_length;
  bool found = false;
  uint32_t best_number = 0, best_text = 0, k = 0, lines = 0;
  size_t start = 0;
  /* One pass: directives and line count. */
  for (size_t i = 0; i <= length; i++) {
    if (i != length && text[i] != '\n')
      continue;
    k++;
    amddwarf_spirv_directive d;
    if (parse_directive(text + start, i - start, &d)) {
      if (d.file) {
        current = d.file;
        current_length = d.file_length;
      }
      if (same_name(current, current_length, file, file_length) && line >= d.number &&
          (!found || line - d.number <= line - best_number)) {
        found = true;
        best_number = d.number;
        best_text = k;
      }
    }
    start = i + 1;
  }
  lines = k;
  uint64_t target = found ? (uint64_t)best_text + 1 + (line - best_number) : line;
  if (target == 0 || target > lines)
    return AMDDWARF_NOT_FOUND;
  /* Second pass to the target line. */
  uint32_t n = 1;
  start = 0;
  for (size_t i = 0; n < target; i++)
    if (text[i] == '\n') {
      n++;
      start = i + 1;
    }
  size_t end = start;
  while (end < length && text[end] != '\n')
    end++;
  if (end > start && text[end - 1] == '\r')
    end--;
  *line_start = text + start;
  *line_length = end - start;
  if (text_line)
    *text_line = (uint32_t)target;
  return AMDDWARF_OK;
}

/* ---- resolving ------------------------------------------------------------- */

static uint32_t constant_value(const amddwarf_spirv_module *m, uint32_t id)
{
  const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, id);
  return e && e->kind == AMDDWARF_SPIRV_ID_CONSTANT ? e->value : 0;
}

static const char *set_name(const amddwarf_spirv_module *m, uint32_t set_id)
{
  const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, set_id);
  if (!e || e->kind != AMDDWARF_SPIRV_ID_IMPORT)
    return "?";
  return m->strings[e->value >> 8].text;
}

static void fill_line(const amddwarf_spirv_module *m, uint32_t line_pos, uint32_t line_word_offset,
                      amddwarf_spirv_location *out)
{
  const uint32_t *w = m->words + line_word_offset;
  const amddwarf_spirv_source *source = NULL;
  uint32_t file_string = 0;
  bool named_only = false;
  out->has_line = true;
  out->line_position = line_pos;
  if ((w[0] & 0xffff) == 8) { /* OpLine */
    out->file_id = w[1];
    out->line = out->end_line = w[2];
    out->column = out->end_column = w[3];
    file_string = w[1];
    for (uint32_t i = 0; i < m->source_count; i++)
      if (m->sources[i].file_string_id == w[1] && m->sources[i].text &&
          (!source || source->debug_source_id != 0))
        source = &m->sources[i];
    /* A file named only by a #line directive has no OpSource of its own:
       its lines are in the text of the OpSource that holds the directive,
       which the #line rule finds by the file name. */
    for (uint32_t i = 0; !source && i < m->source_count; i++)
      if (m->sources[i].text && m->sources[i].debug_source_id == 0) {
        source = &m->sources[i];
        named_only = true;
      }
  } else { /* DebugLine: source, line start, line end, column start, column end */
    out->file_id = w[5];
    out->line = constant_value(m, w[6]);
    out->end_line = constant_value(m, w[7]);
    out->column = constant_value(m, w[8]);
    out->end_column = constant_value(m, w[9]);
    const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, w[5]);
    if (e && e->kind == AMDDWARF_SPIRV_ID_SOURCE) {
      source = &m->sources[e->value];
      file_string = source->file_string_id;
      if (!source->text)
        source = NULL;
    }
  }
  const struct amddwarf_spirv_string *name = amddwarf__spirv_string_of(m, file_string);
  out->file = name ? name->text : NULL;
  if (!source)
    return;
  uint32_t text_line = rule_text_line(source->directives, source->directive_count,
                                      source->line_count, name ? name->text : NULL,
                                      name ? name->length : 0, out->line, named_only);
  if (text_line) {
    text_line_span(source, text_line, &out->source_line, &out->source_line_length);
    out->source_text_line = text_line;
  }
}

/* The instruction INDEX names; false with ERR filled when it names none. */
static bool find_inst(const amddwarf_spirv_module *m, uint32_t index,
                      amddwarf_spirv_index_mode mode, amddwarf_spirv_inst *inst,
                      amddwarf_error *err)
{
  if (mode == AMDDWARF_SPIRV_INDEX_POSITION) {
    if (index < m->count) {
      amddwarf__spirv_inst_at(m, index, inst);
      return true;
    }
    amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                  "instruction index %u is past the module's %u instructions", index, m->count);
    return false;
  }
  if (index >= m->slot_limit) {
    amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                  "instruction index %u is past the last index %u of the module", index,
                  m->slot_limit ? m->slot_limit - 1 : 0);
    return false;
  }
  if (amddwarf__spirv_inst_of_index(m, index, inst))
    return true;
  amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                "instruction index %u names a copy of a line instruction, not an instruction",
                index);
  return false;
}

static void fill_location(const amddwarf_spirv_module *m, uint32_t index,
                          const amddwarf_spirv_inst *in, amddwarf_spirv_location *out)
{
  const uint32_t *w = m->words + in->word_offset;
  memset(out, 0, sizeof(*out));
  out->index = index;
  out->position = in->position;
  out->word_offset = in->word_offset;
  out->opcode = (uint16_t)(w[0] & 0xffff);
  out->word_count = (uint16_t)(w[0] >> 16);
  unsigned result = amddwarf__spirv_opcode_result(out->opcode);
  if (result == 1 && out->word_count >= 2)
    out->result_id = w[1];
  else if (result == 2 && out->word_count >= 3)
    out->result_id = w[2];
  out->opname = amddwarf_spirv_opcode_name(out->opcode);
  out->ext_opcode = UINT32_MAX;
  if (out->opcode == 12 && out->word_count >= 5) {
    out->ext_set = set_name(m, w[3]);
    out->ext_opcode = w[4];
  }
  out->line_position = AMDDWARF_SPIRV_NONE;
  if (in->line_position != AMDDWARF_SPIRV_NONE)
    fill_line(m, in->line_position, in->line_word_offset, out);
}

amddwarf_status amddwarf_spirv_module_resolve(const amddwarf_spirv_module *m, uint32_t index,
                                              amddwarf_spirv_index_mode mode,
                                              amddwarf_spirv_location *out, amddwarf_error *err)
{
  if (!m || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_spirv_module_resolve: NULL argument");
  /* The checkpoints searched, then the words replayed, each fetched in
     parallel rather than one cache line after the other. */
  amddwarf__spirv_prefetch_search(m, index, mode);
  amddwarf__spirv_prefetch_replay(m, index, mode);
  amddwarf_spirv_inst inst;
  if (!find_inst(m, index, mode, &inst, err))
    return AMDDWARF_NOT_FOUND;
  fill_location(m, index, &inst, out);
  return AMDDWARF_OK;
}

/* Many look-ups in stages over chunks, so that the memory accesses of
   different look-ups (the checkpoints searched, then the words the replays
   read) overlap instead of each look-up waiting for its own. */
enum { BATCH_CHUNK = 32 };

size_t amddwarf_spirv_module_resolve_batch(const amddwarf_spirv_module *m,
                                           const uint32_t *indexes, size_t count,
                                           amddwarf_spirv_index_mode mode,
                                           amddwarf_spirv_location *out,
                                           amddwarf_status *statuses)
{
  if (!m || (count && (!indexes || !out)))
    return 0;
  size_t resolved = 0;
  for (size_t base = 0; base < count; base += BATCH_CHUNK) {
    size_t n = count - base < BATCH_CHUNK ? count - base : BATCH_CHUNK;
    for (size_t k = 0; k < n; k++)
      amddwarf__spirv_prefetch_search(m, indexes[base + k], mode);
    for (size_t k = 0; k < n; k++)
      amddwarf__spirv_prefetch_replay(m, indexes[base + k], mode);
    for (size_t k = base; k < base + n; k++) {
      amddwarf_status st = AMDDWARF_NOT_FOUND;
      amddwarf_spirv_inst inst;
      if (find_inst(m, indexes[k], mode, &inst, NULL)) {
        fill_location(m, indexes[k], &inst, &out[k]);
        st = AMDDWARF_OK;
        resolved++;
      } else {
        memset(&out[k], 0, sizeof(out[k]));
        out[k].index = indexes[k];
        out[k].line_position = AMDDWARF_SPIRV_NONE;
      }
      if (statuses)
        statuses[k] = st;
    }
  }
  return resolved;
}
