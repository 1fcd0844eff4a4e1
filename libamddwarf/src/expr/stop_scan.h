/* The one-pass index of a stop document (stop_scan.c): where each wave's
 * members lie in the text, found without building the document's tree, so
 * that a stop of thousands of waves opens in the time of one read of its
 * bytes and each wave's snapshot is parsed on first use (stop.c). */
#ifndef AMDDWARF_EXPR_STOP_SCAN_H
#define AMDDWARF_EXPR_STOP_SCAN_H

#include <stddef.h>

#include <amddwarf/status.h>

#include "expr/snapshot_text.h"

/* A byte range [begin, end) of the document; begin == end: absent. */
typedef struct stop_scan_range {
  size_t begin, end;
} stop_scan_range;

/* The strict check of a wave's snapshot (snapshot_text.h): STATUS OK with
   INDEX (allocated with the scan's allocator), or E_BAD_JSON with FAULT (a
   byte offset) and WHY. */
typedef struct stop_scan_check {
  amddwarf_status status;
  size_t fault;
  const char *why;
  json_text_index index;
} stop_scan_check;

/* One element of "waves": the whole element and its members' values, and
   the check of its snapshot, made as the pass reaches the snapshot's end,
   while its bytes are in the CPU's caches. */
typedef struct stop_scan_wave {
  stop_scan_range entry, work_group, wave_id, snapshot;
  stop_scan_check check;
} stop_scan_wave;

typedef struct stop_scan_result {
  int has_waves;                  /* the document has a "waves" member */
  stop_scan_range code_objects;   /* the stop's "code_objects" value */
  stop_scan_wave *waves;          /* COUNT entries, allocated with the scan's allocator */
  size_t count, capacity;
  /* The long strings (JSON_TEXT_LONG_STRING) of hex digits alone in the
     snapshot being passed over, quotes included, in order: the pass reads
     them anyway, so the snapshot's check need not. */
  json_text_range *hex_strings;
  size_t hex_count, hex_capacity;
} stop_scan_result;

struct amddwarf_allocator;

/* Indexes TEXT (SIZE bytes): a JSON object whose "waves" member is an array
   of objects. Every value is checked as far as finding its end needs
   (strings, brackets, the characters of numbers and literals); values the
   index keeps are parsed fully when used. NAME prefixes messages; errors
   are E_BAD_JSON with ERR.offset the byte offset, E_SNAPSHOT_SCHEMA (a wave
   that is not an object, "waves" not an array; message and offset name it),
   E_NO_MEMORY. A snapshot that is not strict JSON is no error of the scan:
   its wave's check says so. On error *OUT is released. A caller may take a
   wave's CHECK (zeroing it) before the release. */
amddwarf_status amddwarf__stop_scan(const char *text, size_t size, const char *name,
                                   const struct amddwarf_allocator *alloc, stop_scan_result *out,
                                   amddwarf_error *err);
void amddwarf__stop_scan_release(const struct amddwarf_allocator *alloc, stop_scan_result *r);

#endif
