/* The values and the document shape of `--json` (specs/json.md), shared by
 * every subcommand: positions and bit patterns as "0x..." strings, DWARF
 * enumerations by name, registers as a number and a name, and documents
 * written whole or streamed element by element. */
#ifndef AMDDWARF_JSON_OUT_H
#define AMDDWARF_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <amddwarf/expr.h>

/* An address, an offset or a bit pattern: "0x%llx" (all 64 bits kept). */
json_t *cli_json_addr(uint64_t value);

/* Lower-case hex of SIZE bytes, as a new JSON string. */
json_t *cli_json_hex(const uint8_t *bytes, size_t size);

/* An enumeration value: NAME when the tables have one, else the hex string
   of CODE. */
json_t *cli_json_code(const char *name, uint64_t code);

/* A DW_ASPACE_* value by its DW name ("DW_ASPACE_AMDGPU_private_wave",
   "DW_ASPACE_AMDGPU_private_lane7"), or its hex code when it has none. */
json_t *cli_json_aspace(uint32_t value);

/* Sets KEY to the DWARF register number REGNO and KEY "_name" to NAME (the
   AMDGPU name of REGNO when NAME is NULL) in OBJECT. */
void cli_json_set_register(json_t *object, const char *key, uint32_t regno, const char *name);

/* One decoded operation: {"op": name, "operands": [...]}, with
   "register"/"register_name" when it names a register (regx, bregx, the
   reg<n>/breg<n> families). Operands as specs/json.md says: unsigned kinds
   (constants, addresses, DIE and type offsets) hex strings, signed kinds and
   branch displacements numbers, register numbers numbers, blocks hex bytes.
   With DETAIL: {"offset", "size", "opcode", "subop"} first and "target"
   (the index of the operation a branch reaches) last. */
json_t *cli_json_op(const amddwarf_op *op, bool detail);

/* Writes VALUE (released) on stdout as cli_print_json does but for the
   final newline, the lines after the first indented by INDENT more spaces:
   a member or an element of a document written piece by piece. */
void cli_json_put(json_t *value, int indent);

/* A JSON document written as it is produced (specs/json.md, section 1): with
   LINES false, one indented object whose array members are written element
   by element, byte for byte what cli_print_json prints for the same
   document; with LINES true, JSON Lines: every member and every array
   element is one compact line {"NAME": VALUE}. */
typedef struct cli_json_stream {
  bool lines;
  bool members;        /* a member was written: the next needs a comma */
  bool in_array;
  bool array_open;     /* the array's '[' was written */
  const char *element; /* the line name of the open array's elements */
} cli_json_stream;

void cli_json_stream_begin(cli_json_stream *s, bool lines);
/* Writes member NAME = VALUE (released). */
void cli_json_stream_member(cli_json_stream *s, const char *name, json_t *value);
/* Opens array member NAME, whose elements are lines named ELEMENT. */
void cli_json_stream_array_begin(cli_json_stream *s, const char *name, const char *element);
/* Writes one element (released) of the open array. */
void cli_json_stream_element(cli_json_stream *s, json_t *value);
void cli_json_stream_array_end(cli_json_stream *s);
void cli_json_stream_end(cli_json_stream *s);

#endif
