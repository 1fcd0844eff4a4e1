/* GPU-assisted-validation debug output records.
 *
 * Instrumented shaders append records to a debug output buffer; this API
 * splits such a buffer into records (every format that has existed, see
 * specs/gpuav-records.md), renders each as the validation layer words it,
 * with the source location from an indexed SPIR-V module (amddwarf/spirv.h),
 * renders debug-printf records with their format strings, and decodes the
 * descriptor "input buffer" the layer gives bindless checks.
 *
 * Buffers are little-endian arrays of 32-bit words, as the GPU writes them;
 * nothing here keeps a pointer into a caller's buffer past the call unless
 * said so. */
#ifndef AMDDWARF_GPUAV_H
#define AMDDWARF_GPUAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* Name of FORMAT: "auto", "seed", "v2", "v2-noflags"; NULL if unknown. */
AMDDWARF_API const char *amddwarf_gpuav_format_name(amddwarf_gpuav_format format);

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
   whole words are ignored). With AUTO the format is chosen from the content.
   Returns AMDDWARF_OK, AMDDWARF_E_TRUNCATED (no room for the header) or
   AMDDWARF_E_GPUAV_BAD_FORMAT (AUTO could not decide). A written length larger
   than the buffer is not an error: OUT->overflow is set and records are read
   up to the end of the buffer. */
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
     the written length or the buffer, or is shorter than its fixed words; the
     record is reported with what could be read and then skipped. */
  amddwarf_status problem;
} amddwarf_gpuav_record;

/* Word I of the record's payload; 0 past its end. */
AMDDWARF_API uint32_t amddwarf_gpuav_record_word(const amddwarf_gpuav_record *record, uint32_t i);

/* Reads the record at *CURSOR (a word index into Data[], start with 0) and
   advances *CURSOR past it. Returns AMDDWARF_OK with *RECORD filled (check
   RECORD->problem; ERR then describes it with the byte offset), or
   AMDDWARF_END at a record size of 0, at the written length or at the end of
   the buffer. A record whose size runs past the written data ends the scan
   after it is returned; earlier records are unaffected. */
AMDDWARF_API amddwarf_status amddwarf_gpuav_buffer_next(const void *data, size_t size,
                                                        const amddwarf_gpuav_buffer *buffer,
                                                        uint32_t *cursor,
                                                        amddwarf_gpuav_record *record,
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
   (one word per 32-bit scalar, two words low first for 64-bit ones (%l...),
   vectors component by component (%v2f ... %v4u)). Conversions: d i u x X
   o c f F e E g G a A %% with flags, width and precision (up to 999; a
   conversion that is not understood, or wider, prints as written and takes
   no argument). Missing argument words render as "<missing>"; *PROBLEM (may be NULL) is then set to
   AMDDWARF_E_GPUAV_BAD_RECORD, else AMDDWARF_OK. Return value and OUT as for
   amddwarf_gpuav_describe. */
AMDDWARF_API size_t amddwarf_gpuav_printf_render(const char *format,
                                                 const amddwarf_gpuav_record *record,
                                                 char *out, size_t out_size,
                                                 amddwarf_status *problem);

/* One (set, binding) of the descriptor input buffer of bindless checks. */
typedef struct amddwarf_gpuav_descriptor {
  uint32_t set;
  uint32_t binding;
  uint32_t array_size;      /* from the sizes array: 1 for a non-array, 0 for no descriptor */
  uint32_t written_index;   /* word index of its first written flag, or 0 when none */
} amddwarf_gpuav_descriptor;

/* Decodes the input buffer DATA (SIZE bytes of words: sets_to_bindings
   index, sets_to_sizes, sizes, sets_to_bindings, bindings_to_written,
   written) into one row per (set, binding), in order. Writes up to CAPACITY
   rows to OUT (may be NULL when CAPACITY is 0) and the number of rows to
   *COUNT. Returns AMDDWARF_OK, AMDDWARF_E_NO_SPACE (rows did not fit; *COUNT
   says how many are needed), AMDDWARF_E_TRUNCATED, or
   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER (an index points outside the buffer or
   the arrays overlap; ERR names the word). Written flags are read with
   amddwarf_gpuav_input_word(data, size, row.written_index + i). */
AMDDWARF_API amddwarf_status amddwarf_gpuav_input_buffer_decode(const void *data, size_t size,
                                                                amddwarf_gpuav_descriptor *out,
                                                                size_t capacity, size_t *count,
                                                                amddwarf_error *err);

/* Word INDEX of a little-endian word buffer, 0 past its end. */
AMDDWARF_API uint32_t amddwarf_gpuav_input_word(const void *data, size_t size, uint32_t index);

AMDDWARF_END_DECLS

#endif
