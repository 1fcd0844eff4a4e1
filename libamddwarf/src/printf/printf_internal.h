/* Internals of the debug-printf module: a small document tree that both the
 * MessagePack and the JSON readers produce (so one schema walker checks the
 * metadata), the ELF note finder, and compiled format strings. */
#ifndef AMDDWARF_PRINTF_INTERNAL_H
#define AMDDWARF_PRINTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/printf.h>
#include "common/arena.h"

/* ---- Document tree (doc.c) ---- */

typedef enum printf_doc_kind {
  PRINTF_DOC_NIL,
  PRINTF_DOC_BOOL,
  PRINTF_DOC_UINT,  /* non-negative integer */
  PRINTF_DOC_NINT,  /* negative integer */
  PRINTF_DOC_FLOAT,
  PRINTF_DOC_STR,
  PRINTF_DOC_BIN,
  PRINTF_DOC_ARRAY,
  PRINTF_DOC_MAP,
  PRINTF_DOC_EXT,
} printf_doc_kind;

typedef struct printf_doc printf_doc;
struct printf_doc {
  printf_doc_kind kind;
  uint32_t count;  /* items of an array, key/value pairs of a map */
  uint64_t offset; /* byte offset of the item in its input, or AMDDWARF_NO_OFFSET */
  union {
    bool b;
    uint64_t u;
    int64_t i;
    double f;
    struct {
      const char *ptr; /* not NUL-terminated */
      size_t length;
    } s;
    printf_doc *items; /* arrays: count items; maps: key0, value0, key1, ... */
  } v;
};

/* Nesting deeper than this is an error (metadata is four levels deep). */
enum { PRINTF_DOC_MAX_DEPTH = 32 };

/* Parses one MessagePack document of SIZE bytes (trailing bytes other than
   zero padding are an error). Nodes live in ARENA; strings point into DATA.
   Offsets in errors and nodes are BASE + the position in DATA. */
amddwarf_status amddwarf__printf_msgpack_parse(amddwarf_arena *arena, const uint8_t *data, size_t size,
                                     uint64_t base, printf_doc **root, amddwarf_error *err);
/* Parses a JSON document; nodes and strings live in ARENA, offsets are
   AMDDWARF_NO_OFFSET (errors give jansson's position). */
amddwarf_status amddwarf__printf_json_parse(amddwarf_arena *arena, const char *text, size_t size,
                                  printf_doc **root, amddwarf_error *err);
/* The value of KEY (a string key) in MAP, or NULL. */
const printf_doc *amddwarf__printf_doc_get(const printf_doc *map, const char *key);
/* Human name of a kind ("unsigned integer"). */
const char *amddwarf__printf_doc_kind_name(printf_doc_kind kind);

/* ---- ELF notes (elf_note.c) ---- */

enum { PRINTF_NT_AMDGPU_METADATA = 32 };

/* Calls FN for the descriptor of every "AMDGPU" note of type
   NT_AMDGPU_METADATA in the ELF file DATA (SIZE bytes): DESC_OFFSET is the
   descriptor's file offset. A non-OK return of FN stops the walk and is
   returned. *FOUND (may be NULL) receives the number of such notes. */
typedef amddwarf_status (*printf_note_fn)(void *user, const uint8_t *desc, size_t desc_size,
                                          uint64_t desc_offset, amddwarf_error *err);
amddwarf_status amddwarf__printf_elf_metadata_notes(const uint8_t *data, size_t size, printf_note_fn fn,
                                          void *user, size_t *found, amddwarf_error *err);
bool amddwarf__printf_is_elf(const uint8_t *data, size_t size);

/* ---- Compiled format strings (format.c) ---- */

enum {
  PRINTF_FLAG_MINUS = 1,
  PRINTF_FLAG_PLUS = 2,
  PRINTF_FLAG_SPACE = 4,
  PRINTF_FLAG_HASH = 8,
  PRINTF_FLAG_ZERO = 16,
};

typedef enum printf_length {
  PRINTF_LENGTH_NONE,
  PRINTF_LENGTH_HH,
  PRINTF_LENGTH_H,
  PRINTF_LENGTH_L,
  PRINTF_LENGTH_LL,
  PRINTF_LENGTH_J,
  PRINTF_LENGTH_Z,
  PRINTF_LENGTH_T,
  PRINTF_LENGTH_BIG_L,
} printf_length;

enum { PRINTF_FROM_ARGUMENT = -2, PRINTF_ABSENT = -1 };

/* Literal text, then (unless conversion is 0) one directive. */
typedef struct printf_spec {
  uint32_t literal_start;
  uint32_t literal_length;
  uint32_t format_offset; /* offset of the directive's '%' */
  char conversion;        /* 0: the trailing literal only */
  uint8_t flags;          /* PRINTF_FLAG_* */
  uint8_t length;         /* printf_length */
  uint8_t vector;         /* 0, or 2..4 for the %vN extension */
  int32_t width;          /* PRINTF_ABSENT, PRINTF_FROM_ARGUMENT or 0..MAX_WIDTH */
  int32_t precision;      /* likewise */
} printf_spec;

typedef struct printf_compiled {
  printf_spec *specs; /* count entries, the last with conversion 0 */
  size_t count;
  uint32_t arguments; /* arguments the directives consume */
} printf_compiled;

/* Compiles FORMAT into *OUT, its specs allocated from ARENA. Errors
   (AMDDWARF_E_PRINTF_BAD_FORMAT, offset = the directive's offset in FORMAT). */
amddwarf_status amddwarf__printf_compile(amddwarf_arena *arena, const char *format, size_t length,
                               printf_compiled *out, amddwarf_error *err);

/* Renders with a compiled format. PAYLOAD_CHECKED says the caller verified
   that PAYLOAD holds the arguments the format consumes; otherwise they are
   checked here. PAYLOAD_BASE is added to payload offsets in errors. Output
   contract as amddwarf_printf_render. */
amddwarf_status amddwarf__printf_render_compiled(const printf_compiled *compiled, const char *format,
                                       const uint64_t *mask64, size_t mask_words,
                                       const uint8_t *payload, size_t payload_size,
                                       bool payload_checked, uint64_t payload_base, char *out,
                                       size_t out_size, size_t *length, amddwarf_error *err);

/* Bytes the first COUNT arguments take in a payload. */
size_t amddwarf__printf_layout_bytes(const uint64_t *mask64, size_t mask_words, uint32_t count);

/* Argument I is 64-bit per MASK64. */
static inline bool printf_arg_is_64(const uint64_t *mask64, size_t mask_words, uint32_t i)
{
  return (size_t)(i / 64) < mask_words && ((mask64[i / 64] >> (i % 64)) & 1u) != 0;
}

/* ---- Table internals shared with the renderer (metadata.c) ---- */

/* A table's string with its compiled format; the public part comes first so
   that a const amddwarf_printf_string * from a table converts back. */
typedef struct printf_record {
  amddwarf_printf_string pub;
  printf_compiled compiled;
  size_t payload_bytes;          /* bytes of the .argument_count arguments */
  amddwarf_error *compile_error; /* non-NULL when the format does not compile */
} printf_record;

#endif
