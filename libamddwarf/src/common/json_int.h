/* The one reader of integers in JSON input (snapshots, stops, build and
 * printf-build descriptions): specs/json.md, section 6. An integer is a JSON
 * integer, or a string of "0x" and hex digits, or of decimal digits; nothing
 * else (no sign, space, octal or trailing text in a string, no fraction), and
 * it must fit the range the caller asks for. A failure is reported as
 * "PATH: WHY" with the status the caller gives, PATH being the member's JSON
 * path ("waves[3].pc", "buffer.entries[2].args[0]"). */
#ifndef AMDDWARF_COMMON_JSON_INT_H
#define AMDDWARF_COMMON_JSON_INT_H

#include <stdint.h>

#include <jansson.h>

#include <amddwarf/status.h>

/* An unsigned integer in [0, MAX]. VALUE NULL is "missing". */
amddwarf_status amddwarf__json_uint(const json_t *value, uint64_t max, const char *path,
                                   amddwarf_status status, amddwarf_error *err, uint64_t *out);

/* The string TEXT (an object's key) read as an unsigned integer in [0, MAX]. */
amddwarf_status amddwarf__json_uint_text(const char *text, uint64_t max, const char *path,
                                        amddwarf_status status, amddwarf_error *err,
                                        uint64_t *out);

/* A signed integer in [MIN, MAX]; a string holds a value >= 0. */
amddwarf_status amddwarf__json_int(const json_t *value, int64_t min, int64_t max,
                                  const char *path, amddwarf_status status, amddwarf_error *err,
                                  int64_t *out);

/* A BITS-wide (1..64) value read either way: [-2^(BITS-1), 2^BITS - 1], a
   negative one stored as its two's complement in BITS bits. */
amddwarf_status amddwarf__json_bits(const json_t *value, unsigned bits, const char *path,
                                   amddwarf_status status, amddwarf_error *err, uint64_t *out);

#endif
