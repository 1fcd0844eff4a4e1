/* Debug output buffers of GPU-assisted validation: the layout, error and
 * stage tables, the header and its format detection, the record rules the
 * memory scan and the streaming reader (reader.c) share, and the validation
 * message (specs/gpuav-records.md). */
#include <amddwarf/gpuav.h>

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"
#include "gpuav/gpuav_internal.h"
#include "spirv/module.h"

/* ---- tables ---------------------------------------------------------------- */

static const amddwarf_gpuav_layout layouts[] = {
#define AMDDWARF_GPUAV_LAYOUT(format, flags, length, data, stage) \
  {AMDDWARF_GPUAV_FORMAT_##format, flags, length, data, stage},
#include "gpuav/layouts.def"
#undef AMDDWARF_GPUAV_LAYOUT
};
_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS,
               "one layout per record format but auto");

enum { FORMAT_SEED_BIT = 1, FORMAT_V2_BIT = 2, FORMAT_V2N_BIT = 4 };
#define GPUAV_FORMATS_SEED FORMAT_SEED_BIT
#define GPUAV_FORMATS_V2 FORMAT_V2_BIT
#define GPUAV_FORMATS_V2N FORMAT_V2N_BIT
#define GPUAV_FORMATS_V2_ANY (FORMAT_V2_BIT | FORMAT_V2N_BIT)
/* GUARDS column: bits indexed by amddwarf_spirv_guard. */
#define GPUAV_GUARDS_IMAGE (1u << AMDDWARF_SPIRV_GUARD_IMAGE)
#define GPUAV_GUARDS_MEMORY (1u << AMDDWARF_SPIRV_GUARD_MEMORY)
#define GPUAV_GUARDS_ANY (GPUAV_GUARDS_IMAGE | GPUAV_GUARDS_MEMORY)

static const amddwarf_gpuav_error_row error_rows[] = {
#define AMDDWARF_GPUAV_ERROR(code, formats, name, id, params, guards, rule, text)       \
  {{code, name, id, params}, GPUAV_FORMATS_##formats, GPUAV_GUARDS_##guards,            \
   AMDDWARF_GPUAV_RULE_##rule, text},
#include "gpuav/errors.def"
#undef AMDDWARF_GPUAV_ERROR
};

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

const amddwarf_gpuav_layout *amddwarf__gpuav_layout_of(amddwarf_gpuav_format format)
{
  for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
    if (layouts[i].format == format)
      return &layouts[i];
  return NULL;
}

amddwarf_status amddwarf_gpuav_format_from_name(const char *name, amddwarf_gpuav_format *format)
{
  if (name == NULL || format == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (int f = AMDDWARF_GPUAV_FORMAT_AUTO; f <= AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS; f++)
    if (strcmp(name, amddwarf_gpuav_format_name((amddwarf_gpuav_format)f)) == 0) {
      *format = (amddwarf_gpuav_format)f;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
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

const amddwarf_gpuav_error_row *amddwarf__gpuav_error_row_of(const amddwarf_gpuav_error_info *info)
{
  /* INFO is the first member of its row. */
  return info ? (const amddwarf_gpuav_error_row *)(const void *)info : NULL;
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

uint32_t amddwarf_gpuav_input_word(const void *data, size_t size, uint32_t index)
{
  if (!data || index >= size / 4)
    return 0;
  return amddwarf_gpuav_le32((const uint8_t *)data + (size_t)index * 4);
}

uint32_t amddwarf_gpuav_record_word(const amddwarf_gpuav_record *record, uint32_t i)
{
  if (!record || !record->payload || i >= record->payload_words)
    return 0;
  return amddwarf_gpuav_le32(record->payload + (size_t)i * 4);
}

/* ---- header and format detection ---------------------------------------------- */

/* Why the buffer whose first HEAD_WORDS words are at HEAD (of TOTAL_WORDS)
   cannot have layout L, written into WHY; NULL when it can. The first record
   of a buffer with records must look like one: its size between the fixed
   words plus the error code and the largest record, inside the written
   length and the buffer (a shader writes only records that fit), and its
   stage a known execution model. A first record that did not fit leaves
   Data[0] zero and the written length past the buffer. */
static const char *implausible(const uint8_t *head, size_t head_words, uint64_t total_words,
                               const amddwarf_gpuav_layout *l, char *why, size_t why_size)
{
#define WORD(i) amddwarf_gpuav_le32(head + (size_t)(i) * 4)
  if (head_words <= l->length_word || total_words <= l->data_word)
    return "no room for the header and a record";
  if (l->flags_word >= 0 && (WORD(l->flags_word) & ~AMDDWARF_GPUAV_KNOWN_FLAGS)) {
    snprintf(why, why_size,
             "word %d (flags) is 0x%x, but only bit 0 (buffer bounds checks) is defined",
             l->flags_word, WORD(l->flags_word));
    return why;
  }
  uint32_t written = WORD(l->length_word);
  uint64_t data_words = total_words - l->data_word;
  uint32_t first = data_words && head_words > l->data_word ? WORD(l->data_word) : 0;
  if (written == 0) {
    if (first == 0)
      return NULL;
    snprintf(why, why_size, "the written length (word %u) is 0 but Data[0] (word %u) is %u",
             l->length_word, l->data_word, first);
    return why;
  }
  if (first == 0) {
    if (written > data_words)
      return NULL;
    snprintf(why, why_size,
             "the written length (word %u) is %u but Data[0] (word %u) holds no record",
             l->length_word, written, l->data_word);
    return why;
  }
  uint32_t fixed = amddwarf_gpuav_fixed_words(l);
  if (first <= fixed || first > AMDDWARF_GPUAV_MAX_RECORD_WORDS || first > written ||
      first > data_words) {
    snprintf(why, why_size,
             "the first record (word %u) claims %u words, %s %u", l->data_word, first,
             first <= fixed                            ? "but a record has at least"
             : first > AMDDWARF_GPUAV_MAX_RECORD_WORDS ? "but a record has at most"
             : first > written                         ? "more than the written length"
                                                       : "more than the buffer's data words",
             first <= fixed                            ? fixed + 1
             : first > AMDDWARF_GPUAV_MAX_RECORD_WORDS ? AMDDWARF_GPUAV_MAX_RECORD_WORDS
             : first > written                         ? written
                                                       : (uint32_t)data_words);
    return why;
  }
  if (head_words > l->data_word + 3 && !stage_find(WORD(l->data_word + 3))) {
    snprintf(why, why_size,
             "the first record's stage (word %u) is %u, no execution model the "
             "instrumentation writes",
             l->data_word + 3, WORD(l->data_word + 3));
    return why;
  }
  return NULL;
#undef WORD
}

amddwarf_status amddwarf__gpuav_header_parse(const uint8_t *head, size_t head_bytes,
                                            uint64_t total_bytes, amddwarf_gpuav_format format,
                                            amddwarf_gpuav_buffer *out, amddwarf_error *err)
{
  size_t head_words = head_bytes / 4;
  uint64_t total_words = total_bytes / 4;
  char why[3][200];
  if (format == AMDDWARF_GPUAV_FORMAT_AUTO) {
    const amddwarf_gpuav_layout *v2 = amddwarf__gpuav_layout_of(AMDDWARF_GPUAV_FORMAT_V2);
    const amddwarf_gpuav_layout *v2n = amddwarf__gpuav_layout_of(AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS);
    const amddwarf_gpuav_layout *seed = amddwarf__gpuav_layout_of(AMDDWARF_GPUAV_FORMAT_SEED);
    const char *no_v2 = implausible(head, head_words, total_words, v2, why[0], sizeof why[0]);
    const char *no_v2n = implausible(head, head_words, total_words, v2n, why[1], sizeof why[1]);
    const char *no_seed = implausible(head, head_words, total_words, seed, why[2], sizeof why[2]);
    /* A flags word of 0 or 1 with a plausible first record is V2; a
       length-first buffer whose first record has more than the seed's
       largest record (9 words) is V2 without flags, else seed. */
    if (!no_v2)
      format = AMDDWARF_GPUAV_FORMAT_V2;
    else if (!no_v2n && head_words > 1 && amddwarf_gpuav_le32(head + 4) > 9)
      format = AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS;
    else if (!no_seed)
      format = AMDDWARF_GPUAV_FORMAT_SEED;
    else if (!no_v2n)
      format = AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS;
    else if (total_words < 2)
      return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, 0,
                           "debug output buffer of %llu bytes has no room for a header",
                           (unsigned long long)total_bytes);
    else if (head_words > 0 && amddwarf_gpuav_le32(head) <= AMDDWARF_GPUAV_KNOWN_FLAGS)
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_FORMAT, 0,
                           "not a GPU-AV debug output buffer: read as v2 (word 0 flags, word 1 "
                           "written length), %s",
                           no_v2);
    else
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_FORMAT, 0,
                           "not a GPU-AV debug output buffer: word 0 (0x%x) is no v2 flags word, "
                           "and read as a written length, %s",
                           head_words > 0 ? amddwarf_gpuav_le32(head) : 0, no_v2n);
  }
  const amddwarf_gpuav_layout *l = amddwarf__gpuav_layout_of(format);
  if (!l)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "unknown debug output format %d", (int)format);
  if (total_words < l->data_word || head_words < l->data_word)
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, 0,
                         "debug output buffer of %llu bytes has no room for the %s header",
                         (unsigned long long)total_bytes, amddwarf_gpuav_format_name(format));
  uint32_t flags = l->flags_word >= 0 ? amddwarf_gpuav_le32(head + (size_t)l->flags_word * 4) : 0;
  if (flags & ~AMDDWARF_GPUAV_KNOWN_FLAGS)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_FORMAT, (uint64_t)l->flags_word * 4,
                         "not a %s debug output buffer: word %d (flags) is 0x%x, but only bit 0 "
                         "(buffer bounds checks) is defined",
                         amddwarf_gpuav_format_name(format), l->flags_word, flags);
  memset(out, 0, sizeof(*out));
  out->format = format;
  out->flags = flags;
  out->written_length = amddwarf_gpuav_le32(head + (size_t)l->length_word * 4);
  out->data_offset = l->data_word;
  uint64_t data_words = total_words - l->data_word;
  out->data_words = data_words > UINT32_MAX ? UINT32_MAX : (uint32_t)data_words;
  out->overflow = out->written_length > out->data_words;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_buffer_parse(const void *data, size_t size,
                                            amddwarf_gpuav_format format,
                                            amddwarf_gpuav_buffer *out, amddwarf_error *err)
{
  if (!out || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_buffer_parse: NULL argument");
  return amddwarf__gpuav_header_parse(data, size, size, format, out, err);
}

/* ---- records ------------------------------------------------------------------- */

uint32_t amddwarf__gpuav_record_decode(const amddwarf_gpuav_buffer *buffer, const uint8_t *words,
                                      uint32_t readable, uint32_t at, uint32_t limit,
                                      amddwarf_gpuav_record *record, bool *stop,
                                      amddwarf_error *err)
{
  const amddwarf_gpuav_layout *l = amddwarf__gpuav_layout_of(buffer->format);
  uint32_t rsize = amddwarf_gpuav_le32(words);
  memset(record, 0, sizeof(*record));
  *stop = false;
  record->data_index = at;
  record->size = rsize;
  record->stage_word_count = l->stage_words;
  uint32_t fixed = amddwarf_gpuav_fixed_words(l);
  if (readable > rsize)
    readable = rsize;
  uint32_t fields[7] = {0};
  for (uint32_t i = 0; i < fixed && i < readable; i++)
    fields[i] = amddwarf_gpuav_le32(words + (size_t)i * 4);
  record->shader_id = fields[1];
  record->instruction_index = fields[2];
  record->stage = fields[3];
  for (uint32_t i = 0; i < l->stage_words; i++)
    record->stage_words[i] = fields[4 + i];
  if (readable > fixed) {
    record->payload = words + (size_t)fixed * 4;
    record->payload_words = readable - fixed;
  }
  uint64_t byte_offset = ((uint64_t)buffer->data_offset + at) * 4;
  if ((uint64_t)at + rsize > limit) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    *stop = true;
    amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset,
                  "record at byte offset %llu claims %u words but only %u remain before the "
                  "end of the %s",
                  (unsigned long long)byte_offset, rsize, limit - at,
                  limit == buffer->data_words ? "buffer" : "written data");
    return limit;
  }
  if (rsize > AMDDWARF_GPUAV_MAX_RECORD_WORDS) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    *stop = true;
    amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset,
                  "record at byte offset %llu claims %u words, more than the largest record "
                  "the instrumentation writes (%u words); the scan stops",
                  (unsigned long long)byte_offset, rsize, AMDDWARF_GPUAV_MAX_RECORD_WORDS);
    return limit;
  }
  if (rsize <= fixed) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset,
                  "record at byte offset %llu has %u words, fewer than the %u common and stage "
                  "words and the error code of a %s record",
                  (unsigned long long)byte_offset, rsize, fixed + 1,
                  amddwarf_gpuav_format_name(buffer->format));
    return at + rsize;
  }
  if (!stage_find(record->stage)) {
    record->problem = AMDDWARF_E_GPUAV_BAD_RECORD;
    amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, byte_offset + 12,
                  "record at byte offset %llu: stage %u is not an execution model the "
                  "instrumentation writes",
                  (unsigned long long)byte_offset, record->stage);
  }
  return at + rsize;
}

amddwarf_status amddwarf_gpuav_buffer_next(const void *data, size_t size,
                                           const amddwarf_gpuav_buffer *buffer, uint32_t *cursor,
                                           amddwarf_gpuav_record *record, amddwarf_error *err)
{
  if (!buffer || !cursor || !record || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_buffer_next: NULL argument");
  const amddwarf_gpuav_layout *l = amddwarf__gpuav_layout_of(buffer->format);
  if (!l || (uint64_t)buffer->data_offset + buffer->data_words > size / 4)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "buffer header does not describe this buffer");
  const uint8_t *base = (const uint8_t *)data + (size_t)buffer->data_offset * 4;
  /* Records end at the written length, or at the end of the buffer when the
     shaders ran out of room (whatever the caller's overflow flag says). */
  uint32_t limit = amddwarf_gpuav_record_limit(buffer);
  uint32_t at = *cursor;
  if (at >= limit || amddwarf_gpuav_le32(base + (size_t)at * 4) == 0)
    return AMDDWARF_END;
  bool stop;
  *cursor = amddwarf__gpuav_record_decode(buffer, base + (size_t)at * 4, buffer->data_words - at,
                                         at, limit, record, &stop, err);
  return AMDDWARF_OK; /* a record with a problem is returned with it */
}

/* ---- messages ----------------------------------------------------------------- */

static float word_as_float(uint32_t w)
{
  float f;
  memcpy(&f, &w, sizeof(f));
  return f;
}

/* Expands a template of errors.def or stages.def over WORDS (COUNT of them). */
static void expand(amddwarf_text *t, const char *tmpl, const uint32_t *words, uint32_t count)
{
  const char *p = tmpl;
  while (*p) {
    const char *pct = strchr(p, '%');
    if (!pct) {
      amddwarf__text_puts(t, p);
      return;
    }
    amddwarf__text_append(t, p, (size_t)(pct - p));
    uint32_t n = (uint32_t)(pct[1] - '0');
    char conv = pct[2];
    uint32_t w = n < count ? words[n] : 0;
    if (conv == 'u')
      amddwarf__text_printf(t, "%u", w);
    else if (conv == 'f')
      amddwarf__text_printf(t, "%g", (double)word_as_float(w));
    else if (conv == 'L')
      amddwarf__text_printf(t, "%llx",
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
  amddwarf_text t;
  amddwarf__text_init_fixed(&t, out, out_size);
  if (!buffer || !record)
    return 0;
  uint32_t payload[8] = {0};
  uint32_t count = record->payload_words < 8 ? record->payload_words : 8;
  for (uint32_t i = 0; i < count; i++)
    payload[i] = amddwarf_gpuav_record_word(record, i);
  const amddwarf_gpuav_error_info *info =
      count ? amddwarf_gpuav_error_lookup(buffer->format, payload[0]) : NULL;
  if (count == 0) {
    amddwarf__text_puts(&t, "Record without an error code.");
  } else if (info && count >= 1 + info->param_count) {
    expand(&t, amddwarf__gpuav_error_row_of(info)->template_text, payload + 1, count - 1);
  } else {
    amddwarf__text_printf(&t, "Error code %u", payload[0]);
    if (info)
      amddwarf__text_printf(&t, " (%s) with %u of its %u parameter words", info->name,
                           count - 1, info->param_count);
    amddwarf__text_puts(&t, ", parameters (");
    for (uint32_t i = 1; i < count; i++)
      amddwarf__text_printf(&t, "%s%u", i > 1 ? ", " : "", payload[i]);
    amddwarf__text_puts(&t, ").");
  }
  if (shader_name)
    amddwarf__text_printf(&t, "  Shader Module (%s, shader ID %u).", shader_name,
                         record->shader_id);
  else
    amddwarf__text_printf(&t, "  Shader ID = %u.", record->shader_id);
  amddwarf__text_printf(&t, " Shader Instruction Index = %u.  ", record->instruction_index);
  const stage_row *stage = stage_find(record->stage);
  if (stage) {
    amddwarf__text_printf(&t, "Stage = %s.  ", stage->name);
    expand(&t, buffer->format == AMDDWARF_GPUAV_FORMAT_SEED ? stage->seed_words : stage->v2_words,
           record->stage_words, record->stage_word_count);
  } else {
    amddwarf__text_printf(&t, "Stage = %u.  Stage words = (", record->stage);
    for (uint32_t i = 0; i < record->stage_word_count; i++)
      amddwarf__text_printf(&t, "%s%u", i ? ", " : "", record->stage_words[i]);
    amddwarf__text_puts(&t, ").");
  }
  if (location && location->has_line) {
    if (location->file)
      amddwarf__text_printf(&t, " Shader validation error occurred in file: %s at line %u",
                           location->file, location->line);
    else
      amddwarf__text_printf(&t, " Shader validation error occurred at line %u", location->line);
    if (location->column)
      amddwarf__text_printf(&t, ", column %u", location->column);
    amddwarf__text_puts(&t, ".");
    if (location->source_line) {
      amddwarf__text_printf(&t, "\n%u: ", location->line);
      amddwarf__text_append(&t, location->source_line, location->source_line_length);
    }
  } else if (location) {
    amddwarf__text_puts(&t, " Unable to find SPIR-V OpLine for source information.  Build shader "
                           "with debug info to get source information.");
  }
  return t.len;
}

