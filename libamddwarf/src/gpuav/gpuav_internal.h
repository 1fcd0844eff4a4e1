/* Internals shared by the files of src/gpuav: the layout, error and stage
 * tables (records.c), the header and record rules that the memory scan
 * (records.c) and the streaming reader (reader.c) both apply, and the checks
 * of a record against its module (check.c). specs/gpuav-records.md states
 * every rule. */
#ifndef AMDDWARF_GPUAV_INTERNAL_H
#define AMDDWARF_GPUAV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/gpuav.h>

/* A row of layouts.def. */
typedef struct amddwarf_gpuav_layout {
  amddwarf_gpuav_format format;
  int flags_word;
  uint32_t length_word;
  uint32_t data_word;
  uint32_t stage_words;
} amddwarf_gpuav_layout;

const amddwarf_gpuav_layout *amddwarf__gpuav_layout_of(amddwarf_gpuav_format format);

/* Parameter invariants of an error code (errors.def RULE). */
typedef enum amddwarf_gpuav_rule {
  AMDDWARF_GPUAV_RULE_NONE = 0,
  AMDDWARF_GPUAV_RULE_INDEX_PAST_LENGTH, /* parameter 0 >= parameter 1 */
  AMDDWARF_GPUAV_RULE_ACCESS_PAST_SIZE,  /* parameter 1 >= parameter 2 */
  AMDDWARF_GPUAV_RULE_UNUSED_ZERO,       /* parameter 1, when present, is 0 */
} amddwarf_gpuav_rule;

typedef struct amddwarf_gpuav_error_row {
  amddwarf_gpuav_error_info info;
  unsigned formats;
  unsigned guards; /* bits 1 << amddwarf_spirv_guard of the instructions that report it */
  amddwarf_gpuav_rule rule;
  const char *template_text;
} amddwarf_gpuav_error_row;

/* The row behind INFO (from amddwarf_gpuav_error_lookup). */
const amddwarf_gpuav_error_row *amddwarf__gpuav_error_row_of(const amddwarf_gpuav_error_info *info);

/* Flag bits of the V2 flags word the instrumentation knows (kInstBufferOOBEnable). */
#define AMDDWARF_GPUAV_KNOWN_FLAGS 1u

/* Words of the fixed part of a record of LAYOUT: 4 common + stage words. */
static inline uint32_t amddwarf_gpuav_fixed_words(const amddwarf_gpuav_layout *l)
{
  return 4 + l->stage_words;
}

/* Little-endian word at P. */
static inline uint32_t amddwarf_gpuav_le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads the buffer header from HEAD (the first HEAD_BYTES bytes of a buffer
   of TOTAL_BYTES bytes). With AUTO the format is decided from the header and
   the first record, which must be plausible. Fills *OUT; errors as
   amddwarf_gpuav_buffer_parse. */
amddwarf_status amddwarf__gpuav_header_parse(const uint8_t *head, size_t head_bytes,
                                            uint64_t total_bytes, amddwarf_gpuav_format format,
                                            amddwarf_gpuav_buffer *out, amddwarf_error *err);

/* Decodes the record whose first word is at Data[AT] from WORDS, its first
   READABLE words (those inside the buffer and, for a stream, the window).
   LIMIT is where records end (the written length or the end of Data[]).
   Fills *RECORD and returns the Data[] index of the next record; a record
   with a problem has RECORD->problem set and ERR filled. *STOP is set when
   the scan cannot go on after this record. */
uint32_t amddwarf__gpuav_record_decode(const amddwarf_gpuav_buffer *buffer, const uint8_t *words,
                                      uint32_t readable, uint32_t at, uint32_t limit,
                                      amddwarf_gpuav_record *record, bool *stop,
                                      amddwarf_error *err);

/* Where records of BUFFER end: the written length, or the end of Data[] on overflow. */
static inline uint32_t amddwarf_gpuav_record_limit(const amddwarf_gpuav_buffer *b)
{
  return b->written_length < b->data_words ? b->written_length : b->data_words;
}

#endif
