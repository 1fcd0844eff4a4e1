/* GPU-assisted-validation debug output records.
 *
 * Instrumented shaders append records to a debug output buffer; this API
 * splits such a buffer into records (every format that has existed, see
 * specs/gpuav-records.md), from memory or streamed with bounded memory,
 * checks each against the SPIR-V module given for its shader, renders each
 * as the validation layer words it, with the source location from an
 * indexed SPIR-V module (amddwarf/spirv.h), renders debug-printf records
 * with their format strings, reads what an instrumented module says about
 * its buffers, and decodes the descriptor "input buffer" the layer gives
 * bindless checks, in each of its layouts.
 *
 * Buffers are little-endian arrays of 32-bit words, as the GPU writes them;
 * nothing here keeps a pointer into a caller's buffer past the call unless
 * said so. */
#ifndef AMDDWARF_GPUAV_H
#define AMDDWARF_GPUAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/spirv.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

typedef enum amddwarf_gpuav_format {
  /* Decide from the buffer's first words (specs/gpuav-records.md, "Telling
     the formats apart"). */
  AMDDWARF_GPUAV_FORMAT_AUTO = 0,
  /* The seed's: word 0 written length, records from word 1 with two stage
     words (SPIRV-Tools 2018-2019). */
  AMDDWARF_GPUAV_FORMAT_SEED = 1,
  /* SPIRV-Tools 2019-2023 records (three stage words) in the buffer of
     October 2022 onwards, which Debian's 2023.1 writes: word 0 flags, word 1
     written length, records from word 2. */
  AMDDWARF_GPUAV_FORMAT_V2 = 2,
  /* The same records in the buffer of 2019 to October 2022: word 0 written
     length, records from word 1. */
  AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS = 3,
} amddwarf_gpuav_format;

/* Largest record the instrumentation writes, in words: the 4 common and 3
   stage words, a debug printf's format-string id and its arguments, at most
   65529 (an OpExtInst of 65535 words) of at most 8 words each (a vector of
   four 64-bit values). A record claiming more is malformed. */
#define AMDDWARF_GPUAV_MAX_RECORD_WORDS (8u + 65529u * 8u)

/* Name of FORMAT: "auto", "seed", "v2", "v2-noflags"; NULL if unknown. */
AMDDWARF_API const char *amddwarf_gpuav_format_name(amddwarf_gpuav_format format);
/* The format named NAME: AMDDWARF_OK, NOT_FOUND, or E_INVALID_ARGUMENT (a
   NULL argument). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_format_from_name(const char *name,
                                                             amddwarf_gpuav_format *format);

/* The buffer header. */
typedef struct amddwarf_gpuav_buffer {
  amddwarf_gpuav_format format; /* never AUTO once parsed */
  uint32_t flags;               /* V2: word 0 (bit 0: buffer bounds checks on); seed: 0 */
  uint32_t written_length;      /* words the shaders attempted to write */
  uint32_t data_offset;         /* word index of Data[0] in the buffer */
  uint32_t data_words;          /* words of Data[] the buffer holds */
  bool overflow;                /* written_length > data_words */
} amddwarf_gpuav_buffer;

/* Reads the header of the buffer DATA of SIZE bytes (trailing bytes beyond
   whole words are ignored). With AUTO the format is chosen from the content,
   which must look like a debug output buffer: a flags word of 0 or 1 (v2),
   and, when the written length is not 0, a plausible first record (size,
   stage) at Data[0] (specs/gpuav-records.md, "Telling the formats apart").
   Returns AMDDWARF_OK, AMDDWARF_E_TRUNCATED (no room for the header) or
   AMDDWARF_E_GPUAV_BAD_FORMAT (AUTO found no plausible format: ERR says why
   for each layout; or a v2 flags word with undefined bits). A written length
   larger than the buffer is not an error: OUT->overflow is set and records
   are read up to the end of the buffer. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_buffer_parse(const void *data, size_t size,
                                                         amddwarf_gpuav_format format,
                                                         amddwarf_gpuav_buffer *out,
                                                         amddwarf_error *err);

/* Words of records taken from the buffer; WORDS points into the caller's
   buffer and stays valid while it does. Read them with
   amddwarf_gpuav_record_word (they are little-endian and may be unaligned). */
typedef struct amddwarf_gpuav_record {
  uint32_t data_index;        /* word index of the record within Data[] */
  uint32_t size;              /* word 0: words in the record, itself included */
  uint32_t shader_id;         /* word 1 */
  uint32_t instruction_index; /* word 2 */
  uint32_t stage;             /* word 3: SPIR-V execution model */
  uint32_t stage_words[3];    /* words 4..: seed 2, V2 3 (unused ones are 0) */
  uint32_t stage_word_count;
  const uint8_t *payload;     /* words after the stage words */
  uint32_t payload_words;
  /* AMDDWARF_OK, or AMDDWARF_E_GPUAV_BAD_RECORD when the record runs past
     the written length or the buffer, claims more than
     AMDDWARF_GPUAV_MAX_RECORD_WORDS (both end the scan), is shorter than its
     fixed words, or names a stage that is no execution model the
     instrumentation writes; the record is reported with what could be read
     and then skipped. */
  amddwarf_status problem;
} amddwarf_gpuav_record;

/* Word I of the record's payload; 0 past its end. */
AMDDWARF_API uint32_t amddwarf_gpuav_record_word(const amddwarf_gpuav_record *record, uint32_t i);

/* Reads the record at *CURSOR (a word index into Data[], start with 0) and
   advances *CURSOR past it. Returns AMDDWARF_OK with *RECORD filled (check
   RECORD->problem; ERR then describes it with the byte offset), or
   AMDDWARF_END at a record size of 0, at the written length or at the end of
   the buffer. A record whose size runs past the written data ends the scan
   after it is returned; earlier records are unaffected. This is the raw scan
   of a buffer in memory: amddwarf_gpuav_reader_* also streams and checks that
   the records agree with the written length. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_buffer_next(const void *data, size_t size,
                                                        const amddwarf_gpuav_buffer *buffer,
                                                        uint32_t *cursor,
                                                        amddwarf_gpuav_record *record,
                                                        amddwarf_error *err);

/* ---- Streaming ------------------------------------------------------------ */

/* Reads SIZE bytes at byte OFFSET of the buffer into DESTINATION; returns
   AMDDWARF_OK or an error (the reader then stops with that error). */
typedef amddwarf_status (*amddwarf_gpuav_read_fn)(void *user, uint64_t offset,
                                                  void *destination, size_t size);

typedef struct amddwarf_gpuav_reader amddwarf_gpuav_reader;

/* Reads the header of the SIZE-byte buffer at DATA (not copied: it must stay
   valid until amddwarf_gpuav_reader_close), as amddwarf_gpuav_buffer_parse
   does, with its errors. ALLOCATOR may be NULL (malloc). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_reader_open_memory(const void *data, size_t size,
                                                               amddwarf_gpuav_format format,
                                                               const amddwarf_allocator *allocator,
                                                               amddwarf_gpuav_reader **out,
                                                               amddwarf_error *err);
/* As above, for a buffer of TOTAL_SIZE bytes read through READ(USER, ...):
   memory stays below WINDOW_SIZE bytes (0: 4 MiB; at least the largest
   record, AMDDWARF_GPUAV_MAX_RECORD_WORDS * 4 bytes, is used). USER must
   stay valid until close. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_reader_open_stream(amddwarf_gpuav_read_fn read,
                                                               void *user, uint64_t total_size,
                                                               amddwarf_gpuav_format format,
                                                               size_t window_size,
                                                               const amddwarf_allocator *allocator,
                                                               amddwarf_gpuav_reader **out,
                                                               amddwarf_error *err);
AMDDWARF_API void amddwarf_gpuav_reader_close(amddwarf_gpuav_reader *reader);
/* The header; valid until close. */
AMDDWARF_API const amddwarf_gpuav_buffer *amddwarf_gpuav_reader_buffer(
    const amddwarf_gpuav_reader *reader);

/* The next record, as amddwarf_gpuav_buffer_next returns it (RECORD->payload
   points into the reader's window and is valid until the next call on the
   reader), or AMDDWARF_END, or the read callback's error (then END). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_reader_next(amddwarf_gpuav_reader *reader,
                                                        amddwarf_gpuav_record *record,
                                                        amddwarf_error *err);

/* Data[] index where the scan stands (after the last record at the end). */
AMDDWARF_API uint32_t amddwarf_gpuav_reader_position(const amddwarf_gpuav_reader *reader);

/* After amddwarf_gpuav_reader_next returned AMDDWARF_END: checks that the
   records agree with the buffer. Returns AMDDWARF_OK, or
   AMDDWARF_E_GPUAV_BAD_LENGTH (ERR names the word) when the records end
   (a record size of 0) before the written length of a buffer that did not
   overflow, or when a word of Data[] after the last record is not zero
   (the layer clears the buffer, shaders write whole records). Reads the rest
   of the buffer, through the window. A scan cut by a bad record, or a
   failed read, was reported already: AMDDWARF_OK. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_reader_finish(amddwarf_gpuav_reader *reader,
                                                          amddwarf_error *err);

/* Validation error codes (word 6 of a seed record, word 7 of a V2 one). */
typedef struct amddwarf_gpuav_error_info {
  uint32_t code;
  const char *name;         /* "descriptor_index_out_of_bounds" */
  const char *message_id;   /* "UNASSIGNED-Descriptor index out of bounds" */
  uint32_t param_count;     /* words that follow the code */
} amddwarf_gpuav_error_info;

/* The error CODE means in FORMAT, or NULL when that format has no such code. */
AMDDWARF_API const amddwarf_gpuav_error_info *amddwarf_gpuav_error_lookup(
    amddwarf_gpuav_format format, uint32_t code);

/* Seed name of a SPIR-V execution model ("Fragment", "RayGenerationNV"), or NULL. */
AMDDWARF_API const char *amddwarf_gpuav_stage_name(uint32_t stage);

/* Renders the validation message of RECORD in the seed's wording:
     "Index of 6 used to index descriptor array of length 6.  Shader Module
     (NAME). Shader Instruction Index = 108.  Stage = Fragment.  Fragment coord
     (x,y) = (419.5, 254.5). Shader validation error occurred in file: F at
     line 45.\n45:    <source line>"
   SHADER_NAME may be NULL; LOCATION (from amddwarf_spirv_module_resolve) may
   be NULL when the shader is unknown or the index did not resolve. Unknown
   error codes and stages are printed as numbers. Writes at most OUT_SIZE
   bytes including a NUL (OUT may be NULL when OUT_SIZE is 0) and returns the
   length the whole text needs, as snprintf does. */
AMDDWARF_API size_t amddwarf_gpuav_describe(const amddwarf_gpuav_buffer *buffer,
                                            const amddwarf_gpuav_record *record,
                                            const char *shader_name,
                                            const amddwarf_spirv_location *location,
                                            char *out, size_t out_size);

/* Renders a debug-printf record: FORMAT (the OpString named by payload word
   0) applied to the argument words that follow, as SPIRV-Tools packs them
   (one word per 32-bit scalar, two words low first for a conversion with
   'l' or "ll", vectors component by component: %v2f ... %v4u). The printf
   renderer does the work (amddwarf_printf_render_by_length, specs/printf.md
   section 4): output, *LENGTH and errors are its own; among them
   AMDDWARF_E_PRINTF_BAD_FORMAT for a format it rejects (%s, an unknown
   conversion, ...), AMDDWARF_E_PRINTF_SHORT_PAYLOAD when the record has
   fewer argument words than the format consumes, and AMDDWARF_E_NO_SPACE
   when OUT is too small (*LENGTH is then the full length: call with
   OUT_SIZE 0 to measure). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_printf_render(const char *format,
                                                          const amddwarf_gpuav_record *record,
                                                          char *out, size_t out_size,
                                                          size_t *length, amddwarf_error *err);

/* ---- Records against their module ---------------------------------------- */

/* Flags of amddwarf_gpuav_record_check. */
#define AMDDWARF_GPUAV_CHECK_PRINTF 1u /* the record is a debug-printf record */

/* Checks RECORD (of BUFFER, without a problem of its own) against MODULE,
   the module given for its shader (before instrumentation), its instruction
   index counted as MODE. MODULE_NAME names it in messages (may be NULL).
   Returns AMDDWARF_OK;
   AMDDWARF_E_GPUAV_WRONG_MODULE when the record cannot come from MODULE: the
   index names no instruction, or one the instrumentation does not check
   (checked: image instructions, OpLoad, OpStore, the DebugPrintf OpExtInst;
   not OpLabel, arithmetic, ...), or one that cannot report the record's
   error code; the stage is the execution model of none of its entry points;
   a printf record's format-string id is no OpString of it;
   AMDDWARF_E_GPUAV_BAD_RECORD when the record is malformed in a way only its
   instruction reveals: an unknown error code, missing parameter words, or
   parameters the failed check cannot produce (an index inside the array
   length, an access inside the size, a non-zero unused word).
   A record is a printf record when its instruction is a
   NonSemantic.DebugPrintf OpExtInst, or with AMDDWARF_GPUAV_CHECK_PRINTF.
   ERR's offset is the byte offset of the offending word in the buffer. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_record_check(const amddwarf_gpuav_buffer *buffer,
                                                         const amddwarf_gpuav_record *record,
                                                         const amddwarf_spirv_module *module,
                                                         amddwarf_spirv_index_mode mode,
                                                         const char *module_name, unsigned flags,
                                                         amddwarf_error *err);

/* ---- The descriptor input buffer ------------------------------------------ */

/* Layouts of the input buffer bindless checks read (binding 1 of the debug
   descriptor set; specs/gpuav-records.md, section 5). Data[] is its words. */
typedef enum amddwarf_gpuav_input_layout {
  /* From word 0: 0 LENGTHS, 1 WRITTEN, else SIZES. */
  AMDDWARF_GPUAV_INPUT_AUTO = 0,
  /* The seed's layout, written by the layer when descriptor indexing is on:
     [0] start of sets_to_bindings; sets_to_sizes from [1]; sizes;
     sets_to_bindings; bindings_to_written; written. SPIRV-Tools 2019-2023
     reads sizes as Data[Data[1 + set] + binding] and written flags as
     Data[index + Data[binding + Data[set + Data[0]]]]. */
  AMDDWARF_GPUAV_INPUT_SIZES = 1,
  /* Without descriptor indexing: [0] = 1; sets_to_bindings from [1];
     bindings_to_written; written. No sizes: a binding's element count is the
     distance to the next binding's flags (the last runs to the end of the
     buffer). SPIRV-Tools 2023.1's buffer bounds checks alone read
     Data[index + Data[binding + Data[1 + set]]]. */
  AMDDWARF_GPUAV_INPUT_WRITTEN = 2,
  /* SPIRV-Tools' first release (January 2019): [0] reserved (0);
     sets_to_sizes from [1]; sizes to the end. No written flags. */
  AMDDWARF_GPUAV_INPUT_LENGTHS = 3,
} amddwarf_gpuav_input_layout;

/* Name of LAYOUT: "auto", "sizes", "written", "lengths"; NULL if unknown. */
AMDDWARF_API const char *amddwarf_gpuav_input_layout_name(amddwarf_gpuav_input_layout layout);
/* The layout named NAME: AMDDWARF_OK, NOT_FOUND, or E_INVALID_ARGUMENT (a
   NULL argument). */
AMDDWARF_API amddwarf_status
amddwarf_gpuav_input_layout_from_name(const char *name, amddwarf_gpuav_input_layout *layout);

/* One (set, binding) of the descriptor input buffer of bindless checks. */
typedef struct amddwarf_gpuav_descriptor {
  uint32_t set;
  uint32_t binding;
  /* SIZES, LENGTHS: from the sizes array (1 for a non-array, 0 for no
     descriptor); WRITTEN: the number of written flags (0 for no descriptor). */
  uint32_t array_size;
  uint32_t written_index;   /* word index of its first written flag, or 0 when none */
} amddwarf_gpuav_descriptor;

/* Decodes the input buffer DATA (SIZE bytes of words) in LAYOUT (AUTO: from
   word 0) into one row per (set, binding) of the sets that have bindings, in
   order. A set without bindings has start words of 0 and no rows. Writes up
   to CAPACITY rows to OUT (may be NULL when CAPACITY is 0), the number of
   rows to *COUNT and, when USED is not NULL, the layout decoded to *USED.
   Returns AMDDWARF_OK, AMDDWARF_E_NO_SPACE (rows did not fit; *COUNT says
   how many are needed), AMDDWARF_E_TRUNCATED, or
   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER (a start points outside its array, the
   runs are out of order or overlap; ERR names the word). Written flags are
   read with amddwarf_gpuav_input_word(data, size, row.written_index + i). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_input_buffer_decode_layout(
    const void *data, size_t size, amddwarf_gpuav_input_layout layout,
    amddwarf_gpuav_descriptor *out, size_t capacity, size_t *count,
    amddwarf_gpuav_input_layout *used, amddwarf_error *err);

/* amddwarf_gpuav_input_buffer_decode_layout with AMDDWARF_GPUAV_INPUT_AUTO. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_input_buffer_decode(const void *data, size_t size,
                                                                amddwarf_gpuav_descriptor *out,
                                                                size_t capacity, size_t *count,
                                                                amddwarf_error *err);

/* ---- What an instrumented module says ------------------------------------- */

/* Parts of the input buffer an instrumented module reads. */
#define AMDDWARF_GPUAV_READS_SIZES 1u          /* Data[Data[1 + set] + binding] */
#define AMDDWARF_GPUAV_READS_WRITTEN_WORD0 2u  /* Data[i + Data[b + Data[s + Data[0]]]] */
#define AMDDWARF_GPUAV_READS_WRITTEN_DIRECT 4u /* Data[i + Data[b + Data[1 + s]]] */
#define AMDDWARF_GPUAV_READS_OTHER 8u          /* a read of no known shape */

typedef struct amddwarf_gpuav_instrumentation {
  /* The output buffer layout its record writer uses (V2: a flags member and
     three stage words; V2_NOFLAGS; SEED: two stage words); AUTO when the
     module writes no records or the writer was not recognized. */
  amddwarf_gpuav_format format;
  uint32_t shader_id;      /* the shader id its records carry, or UINT32_MAX */
  uint32_t descriptor_set; /* the debug descriptor set of its output buffer, or UINT32_MAX */
  unsigned input_reads;    /* AMDDWARF_GPUAV_READS_* */
  /* The input buffer layout those reads need: WRITTEN for direct reads,
     AUTO when word 0 of the buffer tells (see amddwarf_gpuav_input_layout_select). */
  amddwarf_gpuav_input_layout input_layout;
} amddwarf_gpuav_instrumentation;

/* Reads what MODULE, an instrumented module (AFTER instrumentation, as the
   driver gets it), says about its buffers: the functions SPIRV-Tools' passes
   add and name (inst_*_stream_write_N, inst_bindless_direct_read_N), its
   output buffer block and the constants it passes. Returns AMDDWARF_OK, or
   AMDDWARF_NOT_FOUND (ERR says so) when the module carries none. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_instrumentation_inspect(
    const amddwarf_spirv_module *module, amddwarf_gpuav_instrumentation *out,
    amddwarf_error *err);

/* The input buffer layout that the reads of INFO need for the buffer DATA
   (SIZE bytes): direct reads of the written flags need WRITTEN; reads
   through word 0 follow it (>= 2 SIZES, 1 WRITTEN); sizes alone follow it
   (>= 2 SIZES, 0 LENGTHS). Returns AMDDWARF_OK with *LAYOUT,
   AMDDWARF_NOT_FOUND when the module reads no input buffer, or
   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER when word 0 contradicts the reads (a
   buffer without sizes for a module that reads sizes, say). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_input_layout_select(
    const amddwarf_gpuav_instrumentation *info, const void *data, size_t size,
    amddwarf_gpuav_input_layout *layout, amddwarf_error *err);

/* Word INDEX of a little-endian word buffer, 0 past its end. */
AMDDWARF_API uint32_t amddwarf_gpuav_input_word(const void *data, size_t size, uint32_t index);

AMDDWARF_END_DECLS

#endif
