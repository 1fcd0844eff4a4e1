/* Debug printf: format-string metadata and printf buffers.
 *
 * A shader's DebugPrintf writes an entry into a printf buffer: a 64-bit entry
 * header (16-bit size in dwords including the header, 48-bit format-string id)
 * followed by the packed arguments. The format strings themselves live in the
 * PAL metadata of the pipeline ELF (`amdpal.format_strings`, in the
 * NT_AMDGPU_METADATA note). This header offers:
 *
 *   - a format-string table, filled from PAL metadata (msgpack), a JSON file
 *     or an ELF note, merging several pipelines and reporting id collisions;
 *   - a buffer reader that walks entries from memory or from a read callback
 *     with bounded memory, reporting bad entries at their byte offsets;
 *   - a renderer with C printf semantics that never hands an untrusted format
 *     string to the C library;
 *   - producers: PAL metadata, a minimal ELF carrying it, and buffers, built
 *     from a JSON description (specs/printf.md).
 *
 * The formats are specified in specs/printf.md. */
#ifndef AMDDWARF_PRINTF_H
#define AMDDWARF_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* Limits of the formats. */
#define AMDDWARF_PRINTF_ID_MAX ((UINT64_C(1) << 48) - 1)
#define AMDDWARF_PRINTF_HEADER_SIZE 16u       /* PrintfBufferHeader */
#define AMDDWARF_PRINTF_ENTRY_HEADER_SIZE 8u  /* PrintfBufferEntryHeader */
#define AMDDWARF_PRINTF_MAX_ENTRY_DWORDS 65535u
/* The shader clamps its write offset so that entries stay inside the first
   2 GiB after the header. */
#define AMDDWARF_PRINTF_CLAMP_BYTES (UINT64_C(1) << 31)
/* Largest argument count an entry can carry (65535 dwords minus the header). */
#define AMDDWARF_PRINTF_MAX_ARGUMENTS 65533u
/* Largest field width or precision the renderer accepts. */
#define AMDDWARF_PRINTF_MAX_WIDTH 4096

/* ---- Format-string table ------------------------------------------------ */

/* One format string. Owned by its table; valid until amddwarf_printf_table_free. */
typedef struct amddwarf_printf_string {
  uint64_t id;               /* 48-bit format-string id (.index) */
  const char *format;        /* .string, NUL-terminated (may contain NULs: use length) */
  size_t format_length;
  uint32_t argument_count;   /* .argument_count */
  const uint64_t *mask64;    /* .64bit_arguments: bit i%64 of word i/64 = argument i is 64-bit */
  size_t mask_words;         /* words in mask64; missing words count as 0 */
  const char *origin;        /* name of the pipeline that defined it (as given when added) */
} amddwarf_printf_string;

/* The same id defined twice with a different string or argument layout. The
   table keeps the first definition. Valid until amddwarf_printf_table_free. */
typedef struct amddwarf_printf_collision {
  uint64_t id;
  const amddwarf_printf_string *kept;     /* first definition (in the table) */
  const char *other_origin;               /* pipeline of the rejected definition */
  const char *other_format;               /* its string, NUL-terminated */
  uint32_t other_argument_count;
} amddwarf_printf_collision;

typedef struct amddwarf_printf_table amddwarf_printf_table;

/* Creates an empty table. ALLOCATOR may be NULL (malloc). */
AMDDWARF_API amddwarf_status amddwarf_printf_table_new(const amddwarf_allocator *allocator,
                                                       amddwarf_printf_table **out,
                                                       amddwarf_error *err);
/* Releases TABLE and every string and collision it handed out. NULL is fine. */
AMDDWARF_API void amddwarf_printf_table_free(amddwarf_printf_table *table);

/* Adds the strings of one input. DATA is (auto-detected) an ELF file (its
   NT_AMDGPU_METADATA notes are read), a JSON document, or a MessagePack
   document. The document's root is the PAL metadata map holding
   "amdpal.format_strings", or that map itself. ORIGIN names the input in
   collisions and messages (copied). DATA need not outlive the call.
   Returns AMDDWARF_OK, AMDDWARF_NOT_FOUND when the input carries no
   amdpal.format_strings (nothing added), or an error naming the key or the
   byte offset; on error the table is unchanged (except after
   AMDDWARF_E_NO_MEMORY, when some strings may have been added). Collisions
   are not errors:
   they are recorded (amddwarf_printf_table_collision). */
AMDDWARF_API amddwarf_status amddwarf_printf_table_add(amddwarf_printf_table *table,
                                                       const void *data, size_t size,
                                                       const char *origin, amddwarf_error *err);
/* As amddwarf_printf_table_add with the kind fixed. */
AMDDWARF_API amddwarf_status amddwarf_printf_table_add_msgpack(amddwarf_printf_table *table,
                                                               const void *data, size_t size,
                                                               const char *origin,
                                                               amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_printf_table_add_json(amddwarf_printf_table *table,
                                                            const char *text, size_t size,
                                                            const char *origin,
                                                            amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_printf_table_add_elf(amddwarf_printf_table *table,
                                                           const void *data, size_t size,
                                                           const char *origin,
                                                           amddwarf_error *err);

AMDDWARF_API size_t amddwarf_printf_table_count(const amddwarf_printf_table *table);
/* The INDEXth string in insertion order, or NULL past the end. */
AMDDWARF_API const amddwarf_printf_string *
amddwarf_printf_table_string(const amddwarf_printf_table *table, size_t index);
/* The string with id ID, or NULL. */
AMDDWARF_API const amddwarf_printf_string *
amddwarf_printf_table_find(const amddwarf_printf_table *table, uint64_t id);
AMDDWARF_API size_t amddwarf_printf_table_collision_count(const amddwarf_printf_table *table);
AMDDWARF_API const amddwarf_printf_collision *
amddwarf_printf_table_collision(const amddwarf_printf_table *table, size_t index);

/* ---- Buffer reader -------------------------------------------------------- */

/* What the buffer header says and how much of it can be decoded. */
typedef struct amddwarf_printf_buffer_info {
  uint64_t buffer_offset;   /* PrintfBufferHeader.bufferOffset, in dwords */
  uint32_t reserved0, reserved1;
  uint64_t total_size;      /* bytes of the buffer, header included */
  uint64_t requested_bytes; /* bufferOffset * 4, saturated at UINT64_MAX */
  uint64_t data_bytes;      /* bytes after the header that hold entries */
  uint64_t lost_bytes;      /* requested_bytes - data_bytes */
  bool past_clamp;          /* bufferOffset went beyond the 2 GiB clamp */
  bool past_buffer;         /* bufferOffset went beyond the buffer's end */
} amddwarf_printf_buffer_info;

/* One entry. PAYLOAD points into the reader's window (or the caller's memory)
   and is valid until the next call on the reader. */
typedef struct amddwarf_printf_entry {
  uint64_t index;         /* ordinal of the entry, from 0, bad entries included */
  uint64_t offset;        /* byte offset of its header from the start of the buffer */
  uint32_t size_dwords;   /* entrySize */
  uint64_t id;            /* formatStringId */
  const uint8_t *payload;
  size_t payload_size;    /* (size_dwords - 2) * 4 */
} amddwarf_printf_entry;

/* Reads SIZE bytes at byte OFFSET of the buffer into DESTINATION; returns
   AMDDWARF_OK or an error (the reader then stops with that error). */
typedef amddwarf_status (*amddwarf_printf_read_fn)(void *user, uint64_t offset,
                                                   void *destination, size_t size);

typedef struct amddwarf_printf_reader amddwarf_printf_reader;

/* Reads the header of the SIZE-byte buffer at DATA (not copied: it must stay
   valid until amddwarf_printf_reader_close). A buffer shorter than the header
   is AMDDWARF_E_TRUNCATED. */
AMDDWARF_API amddwarf_status amddwarf_printf_reader_open_memory(const void *data, size_t size,
                                                                const amddwarf_allocator *allocator,
                                                                amddwarf_printf_reader **out,
                                                                amddwarf_error *err);
/* As above, for a buffer of TOTAL_SIZE bytes read through READ(USER, ...) in
   chunks: memory stays below WINDOW_SIZE bytes (0: 1 MiB; at least twice the
   largest entry is used). USER must stay valid until close. */
AMDDWARF_API amddwarf_status amddwarf_printf_reader_open_stream(amddwarf_printf_read_fn read,
                                                                void *user, uint64_t total_size,
                                                                size_t window_size,
                                                                const amddwarf_allocator *allocator,
                                                                amddwarf_printf_reader **out,
                                                                amddwarf_error *err);
AMDDWARF_API void amddwarf_printf_reader_close(amddwarf_printf_reader *reader);
/* Header facts; valid until close. */
AMDDWARF_API const amddwarf_printf_buffer_info *
amddwarf_printf_reader_info(const amddwarf_printf_reader *reader);

/* Whether INFO (from amddwarf_printf_reader_info) is the header of a PAL
   printf buffer: the driver zeroes reserved0 and reserved1 and shaders never
   write them (specs/printf.md). Returns AMDDWARF_OK, or
   AMDDWARF_E_PRINTF_NOT_PAL_BUFFER (ERR names the word) for a buffer some
   other producer wrote, such as the debug output buffer of SPIR-V debug
   printf, whose words 2 and 3 are a record size and a shader id. The reader
   itself decodes any header. */
AMDDWARF_API amddwarf_status amddwarf_printf_buffer_check(const amddwarf_printf_buffer_info *info,
                                                          amddwarf_error *err);

/* Next entry: AMDDWARF_OK with *ENTRY filled, AMDDWARF_END after the last one,
   or an error about one bad entry (ERR names its byte offset, *ENTRY holds what
   its header said): AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE (size 0 or 1; the reader
   skips the 8-byte header and goes on; a run of all-zero headers is skipped
   whole as one bad entry), AMDDWARF_E_PRINTF_ENTRY_PAST_END (the
   rest of the data is skipped). Call again after an error to continue; after
   a read-callback failure the error is returned and then AMDDWARF_END. */
AMDDWARF_API amddwarf_status amddwarf_printf_reader_next(amddwarf_printf_reader *reader,
                                                         amddwarf_printf_entry *entry,
                                                         amddwarf_error *err);

/* Up to CAPACITY entries at once (the fast way to walk a buffer in memory):
   AMDDWARF_OK with *COUNT >= 1 good entries, AMDDWARF_END with *COUNT 0, or
   the error of one bad entry with *COUNT 0 and ENTRIES[0] holding what its
   header said, exactly as amddwarf_printf_reader_next reports it. Good entries
   before a bad one come in an OK batch; the bad one comes on the next call.
   Payload pointers are valid until the next call on the reader. */
AMDDWARF_API amddwarf_status amddwarf_printf_reader_next_batch(amddwarf_printf_reader *reader,
                                                               amddwarf_printf_entry *entries,
                                                               size_t capacity, size_t *count,
                                                               amddwarf_error *err);

/* ---- Rendering ------------------------------------------------------------ */

/* Renders ENTRY with the table's string for its id into OUT (OUT_SIZE bytes,
   always NUL-terminated when OUT_SIZE > 0). *LENGTH (may be NULL) receives the
   full length of the message; when it does not fit, the output is truncated
   and AMDDWARF_E_NO_SPACE is returned. Errors, with ERR's offset the entry's
   byte offset: AMDDWARF_E_PRINTF_UNKNOWN_ID, AMDDWARF_E_PRINTF_SHORT_PAYLOAD,
   AMDDWARF_E_PRINTF_BAD_FORMAT (the message names the directive's offset in
   the format); AMDDWARF_E_LIMIT when a '*' argument asks for a width or
   precision above AMDDWARF_PRINTF_MAX_WIDTH (offset: the directive's). The
   format string is never passed to the C library (specs/printf.md). */
AMDDWARF_API amddwarf_status amddwarf_printf_render_entry(const amddwarf_printf_table *table,
                                                          const amddwarf_printf_entry *entry,
                                                          char *out, size_t out_size,
                                                          size_t *length, amddwarf_error *err);

/* Renders FORMAT (FORMAT_LENGTH bytes) with the arguments packed in PAYLOAD,
   argument i being 64-bit when bit i of MASK64 is set (MASK_WORDS words).
   Output and errors as amddwarf_printf_render_entry (offsets are within the
   format for AMDDWARF_E_PRINTF_BAD_FORMAT, within the payload otherwise). */
AMDDWARF_API amddwarf_status amddwarf_printf_render(const char *format, size_t format_length,
                                                    const uint64_t *mask64, size_t mask_words,
                                                    const void *payload, size_t payload_size,
                                                    char *out, size_t out_size, size_t *length,
                                                    amddwarf_error *err);

/* As amddwarf_printf_render, with the arguments' widths given by the length
   modifiers instead of a mask, as SPIR-V NonSemantic.DebugPrintf packs them:
   a conversion written with 'l' or "ll" takes 64-bit arguments (two words,
   low first), a '*' and every other conversion 32-bit ones. */
AMDDWARF_API amddwarf_status amddwarf_printf_render_by_length(const char *format,
                                                              size_t format_length,
                                                              const void *payload,
                                                              size_t payload_size, char *out,
                                                              size_t out_size, size_t *length,
                                                              amddwarf_error *err);

/* ---- Producers ------------------------------------------------------------ */

/* Scalar kinds of DebugPrintf arguments, packed as the seed says. */
typedef enum amddwarf_printf_arg_kind {
  AMDDWARF_PRINTF_ARG_I8,  AMDDWARF_PRINTF_ARG_I16, AMDDWARF_PRINTF_ARG_I32,
  AMDDWARF_PRINTF_ARG_I64, AMDDWARF_PRINTF_ARG_F16, AMDDWARF_PRINTF_ARG_F32,
  AMDDWARF_PRINTF_ARG_F64
} amddwarf_printf_arg_kind;

/* Packs one scalar: BITS holds the value's bit pattern in its low bits (the
   kind's width). Integers are zero-extended to at least 32 bits, halves are
   widened to floats; the result is 1 or 2 little-endian dwords in OUT, and
   *COUNT receives how many. Returns AMDDWARF_E_INVALID_ARGUMENT for an unknown
   kind. */
AMDDWARF_API amddwarf_status amddwarf_printf_pack(amddwarf_printf_arg_kind kind, uint64_t bits,
                                                  uint32_t out[2], unsigned *count);

/* Encodes STRINGS (COUNT of them; origin ignored) as a PAL metadata msgpack
   document {"amdpal.version": [3, 0], "amdpal.format_strings": {...}}.
   *OUT is allocated with ALLOCATOR (NULL: malloc) and owned by the caller
   (free it with the same allocator, *SIZE bytes). */
AMDDWARF_API amddwarf_status amddwarf_printf_metadata_encode(const amddwarf_printf_string *strings,
                                                             size_t count,
                                                             const amddwarf_allocator *allocator,
                                                             uint8_t **out, size_t *size,
                                                             amddwarf_error *err);

/* Wraps NOTE_DESC (the msgpack document) into a minimal little-endian ELF64
   relocatable file for EM_AMDGPU with one SHT_NOTE section ".note" holding an
   "AMDGPU" note of type NT_AMDGPU_METADATA (32). Ownership as above. */
AMDDWARF_API amddwarf_status amddwarf_printf_elf_encode(const uint8_t *note_desc, size_t size,
                                                        const amddwarf_allocator *allocator,
                                                        uint8_t **out, size_t *out_size,
                                                        amddwarf_error *err);

/* What amddwarf_printf_build_json produces. Each buffer is malloc'ed through
   the allocator given to the call and released by amddwarf_printf_build_free;
   a NULL pointer means the description did not ask for that output. */
typedef struct amddwarf_printf_build_output {
  uint8_t *metadata;  size_t metadata_size;  /* msgpack PAL metadata */
  uint8_t *elf;       size_t elf_size;       /* ELF carrying the metadata note */
  uint8_t *buffer;    size_t buffer_size;    /* printf buffer */
  amddwarf_allocator allocator;
} amddwarf_printf_build_output;

/* Builds metadata, ELF and buffer from the JSON description TEXT (SIZE bytes;
   format in specs/printf.md). Errors name the JSON path of the bad item. */
AMDDWARF_API amddwarf_status amddwarf_printf_build_json(const char *text, size_t size,
                                                        const amddwarf_allocator *allocator,
                                                        amddwarf_printf_build_output *out,
                                                        amddwarf_error *err);
AMDDWARF_API void amddwarf_printf_build_free(amddwarf_printf_build_output *out);

AMDDWARF_END_DECLS

#endif
