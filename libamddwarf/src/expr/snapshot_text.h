/* A strict JSON reader over a byte range of a document, for a stop's waves
 * read on first use (snapshot_value.h reads a snapshot through it). One
 * pass checks the range as jansson's parser does (RFC 8259 syntax, UTF-8,
 * escapes, no "\u0000", no duplicate member, integers that fit 64 signed
 * bits, reals that do not overflow, nesting up to 2048): what it accepts,
 * jansson accepts, and the other way round. The text checked, the other
 * functions walk it without checking again. */
#ifndef AMDDWARF_EXPR_SNAPSHOT_TEXT_H
#define AMDDWARF_EXPR_SNAPSHOT_TEXT_H

#include <stddef.h>

#include <amddwarf/allocator.h>
#include <amddwarf/status.h>

/* Where the check found each array and object, and each long string, in
   the order they begin (so by BEGIN): walking the text then skips them, or
   counts a container's elements, without reading them again. */
typedef struct json_text_container {
  size_t begin, end; /* its brackets or quotes: TEXT[BEGIN] and TEXT[END - 1] */
  size_t count;      /* a container's elements or members */
  int hex_digits;    /* a string of hex digits alone (a snapshot's memory) */
} json_text_container;

/* Strings at least this long (quotes included) are recorded in the index. */
enum { JSON_TEXT_LONG_STRING = 256 };

/* A byte range [BEGIN, END) of the text. */
typedef struct json_text_range {
  size_t begin, end;
} json_text_range;

typedef struct json_text_index {
  json_text_container *containers;
  size_t count, capacity;
  const amddwarf_allocator *alloc;
} json_text_index;

/* Checks that TEXT[BEGIN, END) is one JSON value, with white space around
   it, and fills INDEX (allocated with ALLOC; release it with
   amddwarf__json_text_index_release, also after a failure). On a fault
   returns E_BAD_JSON, *FAULT its byte offset in TEXT and *WHY what is
   wrong; E_NO_MEMORY when the member names of an object (kept for the
   duplicate check) or INDEX could not grow. */
amddwarf_status amddwarf__json_text_check(const char *text, size_t begin, size_t end,
                                         const amddwarf_allocator *alloc, json_text_index *index,
                                         size_t *fault, const char **why);
/* As amddwarf__json_text_check, where HEX[HEX_COUNT] (in order, or NULL)
   are strings of the range known to be long and of hex digits alone (the
   quotes included: a stop's index found them so, stop_scan.h): they are
   passed over at once, not read again. */
amddwarf_status amddwarf__json_text_check_known(const char *text, size_t begin, size_t end,
                                               const json_text_range *hex, size_t hex_count,
                                               const amddwarf_allocator *alloc,
                                               json_text_index *index, size_t *fault,
                                               const char **why);
void amddwarf__json_text_index_release(json_text_index *index);
/* Lets go of INDEX's unused capacity (an index kept for long); INDEX stays
   as it is when that cannot be done. */
void amddwarf__json_text_index_shrink(json_text_index *index);

/* The container or long string that begins at AT, or NULL (not in INDEX). */
const json_text_container *amddwarf__json_text_container(const json_text_index *index, size_t at);

/* AT past the hex digits ([0-9a-fA-F]) from AT on, sixteen at a time;
   stops short of END. The check passes a string's leading run of them
   with this (the hex of a snapshot's memory), recording a long string that
   is nothing else as HEX_DIGITS. */
size_t amddwarf__json_text_hex_run(const char *text, size_t at, size_t end);

/* ---- Walking checked text ---- */

/* AT past white space; END bounds the text. */
size_t amddwarf__json_text_space(const char *text, size_t at, size_t end);

/* The end of the value that starts at AT (a checked value within END);
   INDEX (or NULL) gives a container's or a long string's end at once.
   *HINT, a place in INDEX at or before AT's entry (0 to start), is moved
   on: a walk in order looks up its values in a step or two each. */
size_t amddwarf__json_text_skip(const char *text, size_t at, size_t end,
                               const json_text_index *index, size_t *hint);

/* The end of the string whose opening quote is at AT (past the closing one). */
size_t amddwarf__json_text_string_end(const char *text, size_t at, size_t end);

/* Decodes the string at [BEGIN, END) (quotes included) into OUT, at most
   ROOM bytes (cut before a character that does not fit; a decoded string
   is never longer than its text); returns the bytes written. No NUL is
   appended. */
size_t amddwarf__json_text_unescape(const char *text, size_t begin, size_t end, char *out,
                                   size_t room);

#endif
