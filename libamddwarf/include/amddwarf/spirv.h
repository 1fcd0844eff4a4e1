/* SPIR-V module index and source-line resolution.
 *
 * amddwarf_spirv_module_open reads a SPIR-V binary once (header in either
 * byte order, every instruction bounds-checked) and builds an index from the
 * instruction index that a GPU-assisted-validation record carries to the
 * instruction it names and the debug location that applies to it: OpLine /
 * OpNoLine and the NonSemantic.Shader.DebugInfo.100 DebugLine / DebugNoLine,
 * with OpString file names and the source text of OpSource + OpSourceContinued
 * or DebugSource + DebugSourceContinued. specs/spirv-instruction-index.md
 * says exactly how the index is counted and how a source line is found. */
#ifndef AMDDWARF_SPIRV_H
#define AMDDWARF_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* How an instruction index is counted (specs/spirv-instruction-index.md). */
typedef enum amddwarf_spirv_index_mode {
  /* As SPIRV-Tools' instrumentation passes count it (2020-2023 releases,
     including Debian's 2023.1): the default. */
  AMDDWARF_SPIRV_INDEX_INSTRUMENT = 0,
  /* The plain ordinal of the instruction after the 5-word header, counting
     every instruction (what the validation layer's own scan counts). */
  AMDDWARF_SPIRV_INDEX_POSITION = 1,
} amddwarf_spirv_index_mode;

/* Options of amddwarf_spirv_module_open; NULL means all defaults. */
typedef struct amddwarf_spirv_options {
  size_t size; /* sizeof(amddwarf_spirv_options) */
  /* NULL: malloc. Copied; its user pointer must outlive the module. */
  const amddwarf_allocator *allocator;
  /* Largest number of instructions accepted (0: 64 Mi). */
  uint32_t max_instructions;
  /* AMDDWARF_SPIRV_OPEN_BORROW: use DATA in place instead of copying it when
     it is little-endian and 4-byte aligned; the caller must then keep DATA
     unchanged until the module is closed. Other bits must be 0. */
  uint32_t flags;
} amddwarf_spirv_options;

#define AMDDWARF_SPIRV_OPEN_BORROW 1u

typedef struct amddwarf_spirv_header {
  uint32_t magic;     /* 0x07230203 as read in the module's byte order */
  uint32_t version;   /* 0x00MMmm00 */
  uint32_t generator;
  uint32_t bound;
  uint32_t schema;
  bool big_endian;    /* the words were stored byte-swapped */
} amddwarf_spirv_header;

typedef struct amddwarf_spirv_module amddwarf_spirv_module;

/* Reads the SPIR-V binary DATA of SIZE bytes (a multiple of 4) and indexes
   it. Unless OPTIONS asks to borrow DATA (AMDDWARF_SPIRV_OPEN_BORROW), the
   module keeps no pointer into DATA and the caller may free it once the call
   returns. On success *OUT owns everything and must be closed with
   amddwarf_spirv_module_close. Errors: AMDDWARF_E_SPIRV_BAD_MAGIC,
   _BAD_HEADER (size not a multiple of 4, shorter than the header, version
   with nonzero high/low bytes, bound 0), _BAD_INSTRUCTION (word count 0 or
   running past the end; offset = byte offset of the instruction),
   _BAD_OPERAND (OpString/OpSource/OpLine/DebugLine/DebugSource shorter than
   its operands, or a string without its NUL), AMDDWARF_E_LIMIT,
   AMDDWARF_E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_spirv_module_open(const void *data, size_t size,
                                                        const amddwarf_spirv_options *options,
                                                        amddwarf_spirv_module **out,
                                                        amddwarf_error *err);

/* Releases MODULE and every string and location obtained from it. NULL is a no-op. */
AMDDWARF_API void amddwarf_spirv_module_close(amddwarf_spirv_module *module);

/* The header; valid until the module is closed. */
AMDDWARF_API const amddwarf_spirv_header *amddwarf_spirv_module_header(
    const amddwarf_spirv_module *module);

/* An OpEntryPoint of the module. */
typedef struct amddwarf_spirv_entry_point {
  uint32_t execution_model; /* SPIR-V ExecutionModel: 4 Fragment, 5 GLCompute, ... */
  uint32_t function_id;
  const char *name;         /* valid until the module is closed */
} amddwarf_spirv_entry_point;

/* The module's entry points, in module order; INDEX past the count gives NULL.
   Valid until the module is closed. */
AMDDWARF_API size_t amddwarf_spirv_module_entry_point_count(const amddwarf_spirv_module *module);
AMDDWARF_API const amddwarf_spirv_entry_point *amddwarf_spirv_module_entry_point(
    const amddwarf_spirv_module *module, size_t index);

/* Number of instructions after the header (line and scope instructions included). */
AMDDWARF_API uint32_t amddwarf_spirv_module_instruction_count(const amddwarf_spirv_module *module);

/* One past the largest instruction index MODE can name. */
AMDDWARF_API uint32_t amddwarf_spirv_module_index_limit(const amddwarf_spirv_module *module,
                                                        amddwarf_spirv_index_mode mode);

/* The instruction an index names and the debug location in effect for it. */
typedef struct amddwarf_spirv_location {
  uint32_t index;        /* the index that was looked up */
  uint32_t position;     /* ordinal of the instruction after the header */
  uint32_t word_offset;  /* word offset of the instruction in the module */
  uint16_t opcode;       /* SPIR-V opcode */
  uint16_t word_count;
  /* Instruction of an extended set (OpExtInst): the set's import name and
     the instruction number; otherwise NULL and UINT32_MAX. */
  const char *ext_set;
  uint32_t ext_opcode;
  uint32_t result_id;    /* 0 when the instruction has no result */
  const char *opname;    /* "OpImageSampleImplicitLod", or NULL if not in our table */

  bool has_line;         /* a line instruction is in effect */
  uint32_t line_position;/* ordinal of that OpLine / DebugLine; UINT32_MAX without one */
  uint32_t file_id;      /* OpString id (OpLine) or DebugSource id (DebugLine) */
  const char *file;      /* file name from OpString, or NULL */
  uint32_t line, end_line, column, end_column; /* OpLine: end_* equal line/column */

  /* Text of the source line found by the #line rule, without its line end,
     or NULL when the module holds no text for the file or the rule finds no
     line. Not NUL-terminated at source_line_length; use the length. */
  const char *source_line;
  size_t source_line_length;
  uint32_t source_text_line; /* 1-based line number within the embedded text, or 0 */
} amddwarf_spirv_location;

/* Resolves INDEX counted as MODE. Returns AMDDWARF_OK and fills *OUT (its
   strings live until the module is closed), or AMDDWARF_NOT_FOUND (with ERR
   filled) when no instruction has that index: past the end, or an index
   that the counting assigns to a copy of a line instruction rather than to
   an instruction. Look-ups are O(1) and do not rescan the module. */
AMDDWARF_API amddwarf_status amddwarf_spirv_module_resolve(const amddwarf_spirv_module *module,
                                                           uint32_t index,
                                                           amddwarf_spirv_index_mode mode,
                                                           amddwarf_spirv_location *out,
                                                           amddwarf_error *err);

/* Resolves COUNT indexes at once into OUT[COUNT] (and, when STATUSES is not
   NULL, STATUSES[COUNT]: AMDDWARF_OK or AMDDWARF_NOT_FOUND; a location not
   found has only its index set). Same results as COUNT calls of
   amddwarf_spirv_module_resolve, faster for many records: the look-ups are
   staged so that their memory accesses overlap. Returns the number resolved. */
AMDDWARF_API size_t amddwarf_spirv_module_resolve_batch(const amddwarf_spirv_module *module,
                                                        const uint32_t *indexes, size_t count,
                                                        amddwarf_spirv_index_mode mode,
                                                        amddwarf_spirv_location *out,
                                                        amddwarf_status *statuses);

/* The string of OpString ID, or NULL. Valid until the module is closed. */
AMDDWARF_API const char *amddwarf_spirv_module_string(const amddwarf_spirv_module *module,
                                                      uint32_t id);

/* Name of OPCODE ("OpLoad") for the opcodes the module table knows, else NULL. */
AMDDWARF_API const char *amddwarf_spirv_opcode_name(uint32_t opcode);

/* Applies the #line rule to TEXT (LENGTH bytes): the line of TEXT that holds
   source line LINE of file FILE (may be NULL). Returns AMDDWARF_OK with the
   line's start, length and 1-based text line number, or AMDDWARF_NOT_FOUND.
   Exposed for tools and tests; the resolver uses the same rule. */
AMDDWARF_API amddwarf_status amddwarf_spirv_find_source_line(const char *text, size_t length,
                                                             const char *file, uint32_t line,
                                                             const char **line_start,
                                                             size_t *line_length,
                                                             uint32_t *text_line);

AMDDWARF_END_DECLS

#endif
