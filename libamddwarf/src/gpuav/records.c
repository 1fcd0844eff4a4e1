/* Debug output buffers of GPU-assisted validation: header, record scan,
 * error and stage tables, the validation message, and the descriptor input
 * buffer (specs/gpuav-records.md). */
#include <amddwarf/gpuav.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "gpuav/text.h"

/* ---- bounded text (text.h) ------------------------------------------------- */

void amddwarf_gpuav_text_init(amddwarf_gpuav_text *t, char *out, size_t size)
{
  t->out = size ? out : NULL;
  t->size = out ? size : 0;
  t->length = 0;
  if (t->size)
    t->out[0] = '\0';
}

void amddwarf_gpuav_text_append(amddwarf_gpuav_text *t, const char *s, size_t n)
{
  if (t->length < t->size) {
    size_t room = t->size - 1 - t->length;
    size_t copy = n < room ? n : room;
    memcpy(t->out + t->length, s, copy);
    t->out[t->length + copy] = '\0';
  }
  t->length += n;
}

void amddwarf_gpuav_text_puts(amddwarf_gpuav_text *t, const char *s)
{
  amddwarf_gpuav_text_append(t, s, strlen(s));
}

void amddwarf_gpuav_text_printf(amddwarf_gpuav_text *t, const char *format, ...)
{
  char buffer[512];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  if (n < 0)
    return;
  amddwarf_gpuav_text_append(t, buffer, (size_t)n < sizeof(buffer) ? (size_t)n : sizeof(buffer) - 1);
}


/* ---- tables ---------------------------------------------------------------- */

typedef struct layout_row {
  amddwarf_gpuav_format format;
  int flags_word;
  uint32_t length_word;
  uint32_t data_word;
  uint32_t stage_words;
} layout_row;

static const layout_row layouts[] = {
#define AMDDWARF_GPUAV_LAYOUT(format, flags, length, data, stage) \
  {AMDDWARF_GPUAV_FORMAT_##format, flags, length, data, stage},
#include "gpuav/layouts.def"
#undef AMDDWARF_GPUAV_LAYOUT
};
_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == 3, "one layout per record format");

enum { FORMAT_SEED_BIT = 1, FORMAT_V2_BIT = 2, FORMAT_V2N_BIT = 4 };
#define GPUAV_FORMATS_SEED FORMAT_SEED_BIT
#define GPUAV_FORMATS_V2 FORMAT_V2_BIT
#define GPUAV_FORMATS_V2N FORMAT_V2N_BIT
#define GPUAV_FORMATS_V2_ANY (FORMAT_V2_BIT | FORMAT_V2N_BIT)

typedef struct error_row {
  amddwarf_gpuav_error_info info;
  unsigned formats;
  const char *template_text;
} error_row;

static const error_row error_rows[] = {
#define AMDDWARF_GPUAV_ERROR(code, formats, name, id, params, text) \
  {{code, name, id, params}, GPUAV_FORMATS_##formats, text},
#include "gpuav/errors.def"
#undef AMDDWARF_GPUAV_ERROR
};
_Static_assert(sizeof(error_rows) / sizeof(error_rows[0]) == 10, "error code table size");

typedef struct stage_row {
  uint32_t value;
  const char *name;
  const char *seed_words;
  const char *v2_words;
} stage_row;

static const stage_row stage_rows[] = {
#define AMDDWARF_GPUAV_STAGE(value, name, seed, v2) {value, name, seed, v2},
#include "gpuav/stages.def"
#undef AMDDWARF_GPUAV_STAGE
};
_Static_assert(sizeof(stage_rows) / sizeof(stage_rows[0]) == 16, "stage table size");

static const layout_row *layout_of(amddwarf_gpuav_format format)
{
  for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
    if (layouts[i].format == format)
      return &layouts[i];
  return NULL;
}

const char *amddwarf_gpuav_format_name(amddwarf_gpuav_format format)
{
  switch (format) {
  case AMDDWARF_GPUAV_FORMAT_AUTO:
    return "auto";
  case AMDDWARF_GPUAV_FORMAT_SEED:
    return "seed";
  case AMDDWARF_GPUAV_FORMAT_V2:
    return "v2";
  case AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS:
    return "v2-noflags";
  }
  return NULL;
}

const amddwarf_gpuav_error_info *amddwarf_gpuav_error_lookup(amddwarf_gpuav_format format,
                                                             uint32_t code)
{
  unsigned bit = format == AMDDWARF_GPUAV_FORMAT_SEED         ? FORMAT_SEED_BIT
                 : format == AMDDWARF_GPUAV_FORMAT_V2         ? FORMAT_V2_BIT
                 : format == AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS ? FORMAT_V2N_BIT
                                                              : 0;
  for (size_t i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++)
    if (error_rows[i].info.code == code && (error_rows[i].formats & bit))
      return &error_rows[i].info;
  return NULL;
}

static const stage_row *stage_find(uint32_t stage)
{
  for (size_t i = 0; i < sizeof(stage_rows) / sizeof(stage_rows[0]); i++)
    if (stage_rows[i].value == stage)
      return &stage_rows[i];
  return NULL;
}

const char *amddwarf_gpuav_stage_name(uint32_t stage)
{
  const stage_row *row = stage_find(stage);
  return row ? row->name : NULL;
}

/* ---- words ----------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t amddwarf_gpuav_input_word(const void *data, size_t size, uint32_t index)
{
  if (!data || index >= size / 4)
    return 0;
  return le32((const uint8_t *)data + (size_t)index * 4);
}

uint32_t amddwarf_gpuav_record_word(const amddwarf_gpuav_record *record, uint32_t i)
{
  if (!record || !record->payload || i >= record->payload_words)
    return 0;
  return le32(record->payload + (size_t)i * 4);
}

/* ---- header and scan ---------------------------------------------------------- */

static bool looks_like(const uint8_t *bytes, size_t words, const layout_row *l)
{
  if (words <= l->length_word)
    return false;
  if (l->flags_word >= 0 && le32(bytes + (size_t)l->flags_word * 4) > 1)
    return false;
  uint32_t written = le32(bytes + (size_t)l->length_word * 4);
  if (written == 0)
    return true;
  if (words <= l->data_word)
    return false;
  uint32_t first_size = le32(bytes + (size_t)l->data_word * 4);
  return first_size >= 4 + l->stage_words + 1 && first_size <= written;
}

amddwarf_status amddwarf_gpuav_buffer_parse(const void *data, size_t size,
                                            amddwarf_gpuav_format format,
                                            amddwarf_gpuav_buffer *out, amddwarf_error *err)
{
  if (!out || (!data && size))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_buffer_parse: NULL argument");
  const uint8_t *bytes = data;
  size_t words = size / 4;
  if (words > UINT32_MAX)
    words = UINT32_MAX;
  if (format == AMDDWARF_GPUAV_FORMAT_AUTO) {
    /* A flags word of 0 or 1 with a plausible first record is V2; a
       length-first buffer whose first record has more than the seed's
       largest record (9 words) is V2 without flags, else seed. */
    if (looks_like(bytes, words, layout_of(AMDDWARF_GPUAV_FORMAT_V2)))
      format = AMDDWARF_GPUAV_FORMAT_V2;
    else if (looks_like(bytes, words, layout_of(AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS)) &&
             words > 1 && le32(bytes + 4) > 9)
      format = AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS;
    else if (looks_like(bytes, words, layout_of(AMDDWARF_GPUAV_FORMAT_SEED)))
      format = AMDDWARF_GPUAV_FORMAT_SEED;
    else if (words < 2)
      return amddwarf_fail(err, AMDDWARF_E_TRUNCATED, 0,
                           "debug output buffer of %zu bytes has no room for a header", size);
    else
      return amddwarf_fail(err, AMDDWARF_E_GPUAV_BAD_FORMAT, 0,
                           "debug output buffer starts with words 0x%x 0x%x: neither a V2 "
                           "header (flags 0 or 1, written length) nor a seed one (written "
                           "length, then a record size of at least 7 words)",
                           le32(bytes), le32(bytes + 4));
  }
  const layout_row *l = layout_of(format);
  if (!l)
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "unknown debug output format %d", (int)format);
  if (words < l->data_word)
    return amddwarf_fail(err, AMDDWARF_E_TRUNCATED, 0,
                         "debug output buffer of %zu bytes has no room for the %s header",
                         size, amddwarf_gpuav_format_name(format));
  memset(out, 0, sizeof(*out));
  out->format = format;
  out->flags = l->flags_word >= 0 ? le32(bytes + (size_t)l->flags_word * 4) : 0;
  out->written_length = le32(bytes + (size_t)l->length_word * 4);
  out->data_offset = l->data_word;
  out->data_words = (uint32_t)(words - l->data_word);
  out->overflow = out->written_length > out->data_words;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_buffer_next(const void *data, size_t size,
                                           const amddwarf_gpuav_buffer *buffer, uint32_t *cursor,
                                           amddwarf_gpuav_record *record, amddwarf_error *err)
{
  if (!buffer || !cursor || !record || (!data && size))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_buffer_next: NULL argument");
  const layout_row *l = layout_of(buffer->format);
  if (!l || (uint64_t)buffer->data_offset + buffer->data_words > size / 4)
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "buffer header does not describe this buffer");
  const uint8_t *base = (const uint8_t *)data + (size_t)buffer->data_offset * 4;
  /* Records end at the written length, or at the end of the buffer when the
     shaders ran out of room (whatever the caller's overflow flag says). */
  uint32_t limit = buffer->written_length < buffer->data_words ? buffer->written_length
                                                               : buffer->data_words;
  uint32_t at = *cursor;
  if (at >= limit)
    return AMDDWARF_END;
  uint32_t rsize = le32(base + (size_t)at * 4);
  if (rsize == 0)
    return AMDDWARF_END;
  memset(record, 0, sizeof(*record));
  record->data_index = at;
  record->size = rsize;
  record->stage_word_count = l->stage_words;
  uint32_t fixed = 4 + l->stage_words;
  uint32_t readable = buffer->data_words - at; /* words of this record inside the buffer */
  if (readable > rsize)
    readable = rsize;
  uint32_t fields[7] = {0};
  for (uint32_t i = 0; i < fixed && i < readable; i++)
    fields[i] = le32(base + ((size_t)at + i) * 4);
  record->shader_id = fields[1];
  record->instruction_index = fields[2];
  record->stage = fields[3];
  for (uint32_t i = 0; i < l->stage_words; i++)
    record->stage_words[i] = fields[4 + i];
  if (readable > fixed) {
    record->payload = base + ((size_t)at + fixed) * 4;
    record->payload_words = readable - fixed;
  }
  uint64_t byte_offset = ((uint64_t)buffer->data_offset + at) * 4;
  if ((uint64_t)at + rsize > limit) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    *cursor = limit;
    amddwarf_fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset,
                  "record at byte offset %llu claims %u words but only %u remain before the "
                  "end of the %s",
                  (unsigned long long)byte_offset, rsize, limit - at,
                  limit == buffer->data_words ? "buffer" : "written data");
    return AMDDWARF_OK; /* the record is returned with its problem */
  }
  *cursor = at + rsize;
  if (rsize <= fixed) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    amddwarf_fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset,
                  "record at byte offset %llu has %u words, fewer than the %u common and stage "
                  "words and the error code of a %s record",
                  (unsigned long long)byte_offset, rsize, fixed + 1,
                  amddwarf_gpuav_format_name(buffer->format));
    return AMDDWARF_OK; /* the record is returned with its problem */
  }
  return AMDDWARF_OK;
}

/* ---- messages ----------------------------------------------------------------- */

static float word_as_float(uint32_t w)
{
  float f;
  memcpy(&f, &w, sizeof(f));
  return f;
}

/* Expands a template of errors.def or stages.def over WORDS (COUNT of them). */
static void expand(amddwarf_gpuav_text *t, const char *tmpl, const uint32_t *words, uint32_t count)
{
  const char *p = tmpl;
  while (*p) {
    const char *pct = strchr(p, '%');
    if (!pct) {
      amddwarf_gpuav_text_puts(t, p);
      return;
    }
    amddwarf_gpuav_text_append(t, p, (size_t)(pct - p));
    uint32_t n = (uint32_t)(pct[1] - '0');
    char conv = pct[2];
    uint32_t w = n < count ? words[n] : 0;
    if (conv == 'u')
      amddwarf_gpuav_text_printf(t, "%u", w);
    else if (conv == 'f')
      amddwarf_gpuav_text_printf(t, "%g", (double)word_as_float(w));
    else if (conv == 'L')
      amddwarf_gpuav_text_printf(t, "%llx",
                           (unsigned long long)(((uint64_t)(n + 1 < count ? words[n + 1] : 0)
                                                 << 32) |
                                                w));
    p = pct + 3;
  }
}

size_t amddwarf_gpuav_describe(const amddwarf_gpuav_buffer *buffer,
                               const amddwarf_gpuav_record *record, const char *shader_name,
                               const amddwarf_spirv_location *location, char *out,
                               size_t out_size)
{
  amddwarf_gpuav_text t;
  amddwarf_gpuav_text_init(&t, out, out_size);
  if (!buffer || !record)
    return 0;
  uint32_t payload[8] = {0};
  uint32_t count = record->payload_words < 8 ? record->payload_words : 8;
  for (uint32_t i = 0; i < count; i++)
    payload[i] = amddwarf_gpuav_record_word(record, i);
  const amddwarf_gpuav_error_info *info =
      count ? amddwarf_gpuav_error_lookup(buffer->format, payload[0]) : NULL;
  if (count == 0) {
    amddwarf_gpuav_text_puts(&t, "Record without an error code.");
  } else if (info && count >= 1 + info->param_count) {
    size_t row = (size_t)((const error_row *)(const void *)info - error_rows);
    expand(&t, error_rows[row].template_text, payload + 1, count - 1);
  } else {
    amddwarf_gpuav_text_printf(&t, "Error code %u", payload[0]);
    if (info)
      amddwarf_gpuav_text_printf(&t, " (%s) with %u of its %u parameter words", info->name,
                           count - 1, info->param_count);
    amddwarf_gpuav_text_puts(&t, ", parameters (");
    for (uint32_t i = 1; i < count; i++)
      amddwarf_gpuav_text_printf(&t, "%s%u", i > 1 ? ", " : "", payload[i]);
    amddwarf_gpuav_text_puts(&t, ").");
  }
  if (shader_name)
    amddwarf_gpuav_text_printf(&t, "  Shader Module (%s, shader ID %u).", shader_name,
                         record->shader_id);
  else
    amddwarf_gpuav_text_printf(&t, "  Shader ID = %u.", record->shader_id);
  amddwarf_gpuav_text_printf(&t, " Shader Instruction Index = %u.  ", record->instruction_index);
  const stage_row *stage = stage_find(record->stage);
  if (stage) {
    amddwarf_gpuav_text_printf(&t, "Stage = %s.  ", stage->name);
    expand(&t, buffer->format == AMDDWARF_GPUAV_FORMAT_SEED ? stage->seed_words : stage->v2_words,
           record->stage_words, record->stage_word_count);
  } else {
    amddwarf_gpuav_text_printf(&t, "Stage = %u.  Stage words = (", record->stage);
    for (uint32_t i = 0; i < record->stage_word_count; i++)
      amddwarf_gpuav_text_printf(&t, "%s%u", i ? ", " : "", record->stage_words[i]);
    amddwarf_gpuav_text_puts(&t, ").");
  }
  if (location && location->has_line) {
    if (location->file)
      amddwarf_gpuav_text_printf(&t, " Shader validation error occurred in file: %s at line %u",
                           location->file, location->line);
    else
      amddwarf_gpuav_text_printf(&t, " Shader validation error occurred at line %u", location->line);
    if (location->column)
      amddwarf_gpuav_text_printf(&t, ", column %u", location->column);
    amddwarf_gpuav_text_puts(&t, ".");
    if (location->source_line) {
      amddwarf_gpuav_text_printf(&t, "\n%u: ", location->line);
      amddwarf_gpuav_text_append(&t, location->source_line, location->source_line_length);
    }
  } else if (location) {
    amddwarf_gpuav_text_puts(&t, " Unable to find SPIR-V OpLine for source information.  Build shader "
                           "with debug info to get source information.");
  }
  return t.length;
}

/* ---- the descriptor input buffer ---------------------------------------------- */

static amddwarf_status bad(amddwarf_error *err, uint32_t word, const char *what, uint32_t value,
                           uint32_t limit)
{
  return amddwarf_fail(err, AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER, (uint64_t)word * 4,
                       "input buffer word %u: %s %u is outside [1, %u)", word, what, value,
                       limit);
}

amddwarf_status amddwarf_gpuav_input_buffer_decode(const void *data, size_t size,
                                                   amddwarf_gpuav_descriptor *out,
                                                   size_t capacity, size_t *count,
                                                   amddwarf_error *err)
{
  if (!count || (!data && size) || (!out && capacity))
    return amddwarf_fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_input_buffer_decode: NULL argument");
  *count = 0;
  size_t words64 = size / 4;
  uint32_t words = words64 > UINT32_MAX ? UINT32_MAX : (uint32_t)words64;
  if (words < 2)
    return amddwarf_fail(err, AMDDWARF_E_TRUNCATED, 0,
                         "input buffer of %zu bytes has no sets_to_bindings index and no "
                         "sets_to_sizes array",
                         size);
#define WORD(i) amddwarf_gpuav_input_word(data, size, (i))
  uint32_t bindings_base = WORD(0); /* start of sets_to_bindings */
  uint32_t sizes_base = WORD(1);    /* start of set 0's sizes = end of sets_to_sizes */
  if (bindings_base >= words || bindings_base < 2)
    return bad(err, 0, "sets_to_bindings start", bindings_base, words);
  if (sizes_base < 2 || sizes_base > bindings_base)
    return bad(err, 1, "first sizes start", sizes_base, bindings_base + 1);
  uint32_t sets = sizes_base - 1;
  if ((uint64_t)bindings_base + sets > words)
    return bad(err, 0, "sets_to_bindings end", bindings_base + sets, words + 1);
  size_t rows = 0;
  for (uint32_t s = 0; s < sets; s++) {
    uint32_t begin = WORD(1 + s);
    uint32_t end = s + 1 < sets ? WORD(2 + s) : bindings_base;
    if (begin < sizes_base || end > bindings_base || begin > end)
      return bad(err, 1 + s, "sizes start", begin, bindings_base);
    uint32_t bindings = end - begin;
    uint32_t written_base = WORD(bindings_base + s);
    if ((uint64_t)written_base + bindings > words || written_base < bindings_base + sets)
      return bad(err, bindings_base + s, "bindings_to_written start", written_base, words);
    for (uint32_t b = 0; b < bindings; b++) {
      uint32_t array_size = WORD(begin + b);
      uint32_t written = WORD(written_base + b);
      if (written != 0 && (written < written_base + bindings ||
                           (uint64_t)written + array_size > words))
        return bad(err, written_base + b, "written start", written, words);
      if (rows < capacity) {
        out[rows].set = s;
        out[rows].binding = b;
        out[rows].array_size = array_size;
        out[rows].written_index = written;
      }
      rows++;
    }
  }
#undef WORD
  *count = rows;
  if (rows > capacity)
    return amddwarf_fail(err, AMDDWARF_E_NO_SPACE, AMDDWARF_NO_OFFSET,
                         "input buffer describes %zu bindings, room for %zu", rows, capacity);
  return AMDDWARF_OK;
}
