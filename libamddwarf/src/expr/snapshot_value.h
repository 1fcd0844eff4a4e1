/* One JSON value of a snapshot, read either from a jansson tree (a document
 * parsed whole) or straight from checked text (a stop's wave read on first
 * use, snapshot_text.h). The snapshot loader (snapshot.c) decodes the
 * members through these functions only, so that the format's rules (member
 * names, sizes, checks, messages) are written once for both. */
#ifndef AMDDWARF_EXPR_SNAPSHOT_VALUE_H
#define AMDDWARF_EXPR_SNAPSHOT_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <amddwarf/allocator.h>
#include <amddwarf/status.h>

#include "expr/snapshot_text.h"

typedef enum snapshot_kind {
  SNAPSHOT_MISSING, /* a member the object does not have */
  SNAPSHOT_NULL,
  SNAPSHOT_FALSE,
  SNAPSHOT_TRUE,
  SNAPSHOT_INTEGER,
  SNAPSHOT_REAL,
  SNAPSHOT_STRING,
  SNAPSHOT_ARRAY,
  SNAPSHOT_OBJECT,
} snapshot_kind;

typedef struct snapshot_value {
  snapshot_kind kind;
  const json_t *json; /* from a tree; NULL from text */
  const char *text;   /* from text: the value is TEXT[BEGIN, END) */
  size_t begin, end;
  const json_text_index *index; /* from text: its containers, or NULL */
} snapshot_value;

/* A growing buffer for decoded strings; each string returned stays until
   the next call with the same buffer. Released with
   amddwarf__snapshot_scratch_release. */
typedef struct snapshot_scratch {
  const amddwarf_allocator *alloc;
  char *bytes;
  size_t capacity;
} snapshot_scratch;

void amddwarf__snapshot_scratch_release(snapshot_scratch *s);

/* Asks the CPU to fetch the first and last bytes of every container and
   long string inside V (from text with an index; else nothing): a wave's
   memory regions lie kilobytes apart in its text, out of the caches, and a
   walk that reads them one after the other would wait for each in turn. */
void amddwarf__snapshot_prefetch(const snapshot_value *v);

/* J (NULL: missing) as a value. */
void amddwarf__snapshot_value_json(const json_t *j, snapshot_value *out);

/* The value at TEXT[BEGIN, END), which amddwarf__json_text_check accepted
   (white space around it allowed) and indexed in INDEX (or NULL), which
   must outlive the value. */
void amddwarf__snapshot_value_text(const char *text, const json_text_index *index, size_t begin,
                                  size_t end, snapshot_value *out);

/* The members NAMES[COUNT] of OBJECT into OUT[COUNT], SNAPSHOT_MISSING where
   absent (all of them when OBJECT is not an object). Returns 1 when OBJECT
   has a member not in NAMES, the first one's name copied into UNKNOWN
   (UNKNOWN_SIZE bytes, NUL-terminated, cut if longer), else 0; UNKNOWN
   NULL: other members are not looked for. */
int amddwarf__snapshot_members(const snapshot_value *object, const char *const *names,
                              size_t count, snapshot_value *out, char *unknown,
                              size_t unknown_size);

/* The elements of an array or the members of an object; 0 for another value. */
size_t amddwarf__snapshot_count(const snapshot_value *container);

/* Walking an array's elements or an object's members, in order. */
typedef struct snapshot_walk {
  const snapshot_value *container;
  size_t index, at;
  size_t hint;  /* from text: where its values are in the text's index */
  void *member; /* a tree's object iterator */
} snapshot_walk;

void amddwarf__snapshot_walk_init(const snapshot_value *container, snapshot_walk *w);
/* The next element into OUT: 1, or 0 at the end. */
int amddwarf__snapshot_next_element(snapshot_walk *w, snapshot_value *out);
/* The next element when it is a JSON integer in [0, MAX] (digits only, no
   fraction or exponent): 1 and its value in *OUT. Else 0, W not moved: the
   caller takes the element with amddwarf__snapshot_next_element and reads
   it the general way (a lane array's thousand values read at once). */
int amddwarf__snapshot_next_small_uint(snapshot_walk *w, uint64_t max, uint64_t *out);
/* The next member into OUT, its name into NAME (NAME_SIZE bytes,
   NUL-terminated, cut if longer): 1, or 0 at the end. */
int amddwarf__snapshot_next_member(snapshot_walk *w, char *name, size_t name_size,
                                  snapshot_value *out);

/* A string's characters, NUL-terminated, and their count in *LENGTH; NULL
   when out of memory. V must be a string. */
const char *amddwarf__snapshot_string(const snapshot_value *v, snapshot_scratch *scratch,
                                     size_t *length);

/* An unsigned integer in [0, MAX] by the rules of common/json_int.h
   (amddwarf__json_uint: a JSON integer or a string of digits), PATH naming
   it in a message. */
amddwarf_status amddwarf__snapshot_uint(const snapshot_value *v, uint64_t max, const char *path,
                                       amddwarf_status status, amddwarf_error *err,
                                       uint64_t *out);

/* Hex text into bytes (specs/snapshot.md): an optional "0x" or "0X", then
   pairs of hex digits, with ' ' and '_' anywhere between digits ignored. */
typedef enum snapshot_hex_status {
  SNAPSHOT_HEX_OK,
  SNAPSHOT_HEX_NOT_A_DIGIT, /* a character other than a digit, ' ' or '_' */
  SNAPSHOT_HEX_ODD,         /* an odd number of digits */
  SNAPSHOT_HEX_NO_MEMORY,
} snapshot_hex_status;

/* Decodes CHARS[N] into OUT, which has room for N / 2 bytes; *SIZE is the
   count decoded. */
snapshot_hex_status amddwarf__snapshot_hex(const char *chars, size_t n, uint8_t *out,
                                          size_t *size);

/* At least the count of characters of string V (its text's length). */
size_t amddwarf__snapshot_string_bound(const snapshot_value *v);

/* String V as hex into OUT, which has room for
   amddwarf__snapshot_string_bound(V) / 2 bytes; *SIZE is the count
   decoded. Read in place in the text unless an escape is met.
   SNAPSHOT_HEX_NO_MEMORY when an escaped string could not be decoded. */
snapshot_hex_status amddwarf__snapshot_hex_value(const snapshot_value *v,
                                                snapshot_scratch *scratch, uint8_t *out,
                                                size_t *size);

/* Whether string V, read from checked text, is hex digits alone (after an
   optional "0x"), an even count of them: then 1, *DIGITS and *COUNT
   giving them in the text, where amddwarf__snapshot_hex decodes them later
   with no fault possible (a stop's memory decoded on first read). 0 for a
   value from a tree, or a string with anything else (a separator, an
   escape, a bad or odd digit): decode it at once. */
int amddwarf__snapshot_hex_deferred(const snapshot_value *v, const char **digits, size_t *count);

/* The byte offset in its text of the first character of string V that
   cannot be in hex text, or SIZE_MAX (a value from a tree, a string with
   an escape, or none): the place of a SNAPSHOT_HEX_NOT_A_DIGIT fault. */
size_t amddwarf__snapshot_hex_fault(const snapshot_value *v);

#endif
