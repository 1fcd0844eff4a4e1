/* What users hold around AMDGPU code objects (specs/containers.md).
 *
 * A container is a file (or bytes) recognized by its content, never by its
 * name:
 *   - an AMDGPU code object (one entry: the whole input);
 *   - a host ELF file of any machine: every clang offload bundle in its
 *     .hip_fatbin section (zero padding between bundles skipped), its
 *     __CLANG_OFFLOAD_BUNDLE__<entry-id> sections (a relocatable .o) and the
 *     OffloadBinary images of kind ELF in its .llvm.offloading section;
 *   - a clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__" magic);
 *   - a compressed offload bundle ("CCOB", versions 1 to 3, zlib or zstd);
 *   - an OffloadBinary image (magic 10 FF 10 AD).
 * amddwarf_container_open lists the code objects (device entries; host
 * entries are skipped) with their bundle entry ID, target ID, place and URI.
 * A compressed bundle is read only as far as its entry table at open;
 * amddwarf_container_entry_bytes decompresses the one bundle that holds the
 * entry asked for, checks its hash, and keeps it.
 *
 * Code-object URIs (llvm/docs/AMDGPUUsage.rst, "Loaded Code Object Path
 * URI") name a file and a byte range of it: file://PATH#offset=N&size=M.
 *
 * amddwarf_object_open_input (below) is the one entry point a tool uses to
 * open what the user has (a path or a URI) as one code object. */
#ifndef AMDDWARF_CONTAINER_H
#define AMDDWARF_CONTAINER_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/object.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* ---- target IDs ---- */

/* A parsed target ID: "gfx90a:sramecc+:xnack-" (AMDGPUUsage, "Code Object
   Target Identification"). A feature the ID does not name is
   AMDDWARF_FEATURE_ANY. */
typedef struct amddwarf_target_id {
  char processor[32];            /* "gfx90a", "gfx10-3-generic" */
  amddwarf_target_feature sramecc;
  amddwarf_target_feature xnack;
} amddwarf_target_id;

/* Parses TEXT (SIZE bytes, or up to its NUL when SIZE is SIZE_MAX): a
   processor name of letters, digits, '-' and '_' followed by ":sramecc+",
   ":sramecc-", ":xnack+" or ":xnack-", each feature at most once.
   E_CONTAINER_BAD_TARGET_ID names what is wrong. */
AMDDWARF_API amddwarf_status amddwarf_target_id_parse(const char *text, size_t size,
                                                      amddwarf_target_id *out,
                                                      amddwarf_error *err);

/* Whether a code object built for HAVE is what WANT asks for: the same
   processor, and every feature WANT sets on or off is not set the other
   way by HAVE (a feature either leaves as "any" matches). So "gfx90a"
   matches "gfx90a:xnack-" and "gfx90a:xnack+" does not. */
AMDDWARF_API int amddwarf_target_id_matches(const amddwarf_target_id *want,
                                            const amddwarf_target_id *have);

/* Writes the canonical spelling ("gfx90a:sramecc-:xnack+") into BUF (SIZE
   bytes, NUL-terminated when SIZE > 0); returns the full length. */
AMDDWARF_API size_t amddwarf_target_id_format(const amddwarf_target_id *id, char *buf,
                                              size_t size);

/* A bundle entry ID split the way clang's offload bundler splits it:
   KIND-ARCH-VENDOR-OS[-ENV][-TARGETID]. "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
   has kind "hipv4", triple "amdgcn-amd-amdhsa" (its environment is empty)
   and target ID "gfx90a:xnack-"; the older three-field "hip-amdgcn-amd-amdhsa-gfx906"
   has triple "amdgcn-amd-amdhsa" and target ID "gfx906"; a processor may
   hold dashes ("gfx10-3-generic"): an environment that starts with "gfx"
   is the target ID of a three-field triple. Each part points into ID, with its
   length; the target ID is empty (length 0) for a host entry. */
typedef struct amddwarf_entry_id_parts {
  const char *kind;
  size_t kind_size;
  const char *triple;
  size_t triple_size;
  const char *target_id;
  size_t target_id_size;
} amddwarf_entry_id_parts;

/* E_CONTAINER_BAD_TARGET_ID when ID (SIZE bytes) has fewer than four
   dash-separated fields. */
AMDDWARF_API amddwarf_status amddwarf_entry_id_split(const char *id, size_t size,
                                                     amddwarf_entry_id_parts *out,
                                                     amddwarf_error *err);

/* ---- code-object URIs ---- */

typedef enum amddwarf_uri_kind {
  AMDDWARF_URI_FILE = 0,         /* file://PATH */
  AMDDWARF_URI_MEMORY = 1,       /* memory://PID */
} amddwarf_uri_kind;

typedef struct amddwarf_uri {
  amddwarf_uri_kind kind;
  char *path;                    /* file: the path, %-escapes decoded (NUL-terminated) */
  uint64_t pid;                  /* memory: the process ID */
  uint64_t offset;               /* 0 when the URI has none */
  uint64_t size;                 /* 0 when the URI has none */
  uint8_t has_offset, has_size;
} amddwarf_uri;

/* Parses TEXT (NUL-terminated):
     file://PATH[(#|?)PARAM(&PARAM)*]   memory://PID(#|?)PARAM(&PARAM)*
   PARAM is offset=NUMBER or size=NUMBER, each at most once; NUMBER is a C
   integer literal (decimal, 0x hexadecimal, 0 octal) that fits 64 bits;
   PATH is %-escaped (%XX with two hex digits). On success OUT->path (file
   URIs) is allocated with ALLOCATOR (NULL: malloc): release it with
   amddwarf_uri_free. E_CONTAINER_BAD_URI names the byte offset in TEXT and
   what is wrong (an unknown scheme or parameter, a bad number, a missing
   path or pid, a bad escape). */
AMDDWARF_API amddwarf_status amddwarf_uri_parse(const char *text,
                                                const amddwarf_allocator *allocator,
                                                amddwarf_uri *out, amddwarf_error *err);
AMDDWARF_API void amddwarf_uri_free(amddwarf_uri *uri, const amddwarf_allocator *allocator);

/* Writes "file://PATH#offset=OFFSET&size=SIZE" (decimal numbers, PATH
   %-escaped except for letters, digits and "/-._~") as roc-obj-ls prints
   it, into BUF (SIZE bytes, NUL-terminated when BUF_SIZE > 0); returns the
   full length. */
AMDDWARF_API size_t amddwarf_uri_format_file(const char *path, uint64_t offset, uint64_t size,
                                             char *buf, size_t buf_size);

/* ---- containers ---- */

typedef struct amddwarf_container amddwarf_container;

typedef enum amddwarf_container_kind {
  AMDDWARF_CONTAINER_CODE_OBJECT = 0, /* an AMDGPU ELF file itself */
  AMDDWARF_CONTAINER_HOST_ELF,        /* another ELF file with bundles or images */
  AMDDWARF_CONTAINER_BUNDLE,          /* an offload bundle file */
  AMDDWARF_CONTAINER_COMPRESSED,      /* a compressed offload bundle file */
  AMDDWARF_CONTAINER_OFFLOAD_BINARY,  /* an OffloadBinary file */
} amddwarf_container_kind;

/* "code_object", "host_elf", "bundle", "compressed_bundle", "offload_binary";
   NULL when out of range. */
AMDDWARF_API const char *amddwarf_container_kind_name(amddwarf_container_kind kind);

/* One code object of a container. Strings are NUL-terminated and live in
   the container. */
typedef struct amddwarf_container_entry {
  uint32_t index;                /* 0, 1, ...: the order of the file */
  const char *entry_id;          /* bundle entry ID; for an OffloadBinary image
                                    "KIND-TRIPLE--ARCH" made from its strings;
                                    "" for a bare code object */
  const char *triple;            /* "amdgcn-amd-amdhsa" ("" when unknown) */
  const char *target_id;         /* "gfx90a:xnack-" ("" when unknown) */
  amddwarf_target_id target;     /* parsed target_id (processor "" when unknown) */
  const char *section;           /* the host ELF section holding it, or "" */
  /* Where its bytes are: for an uncompressed entry, OFFSET and SIZE in the
     file; for a compressed one, in the decompressed bundle. */
  uint64_t offset, size;
  /* The bundle (or image) holding it, in the file: for a compressed entry
     the compressed bundle. */
  uint64_t bundle_offset, bundle_size;
  uint8_t compressed;            /* 1: inside a compressed bundle */
  uint8_t compression_method;    /* 0 zlib, 1 zstd (when compressed) */
  uint16_t compression_version;  /* 1..3 (when compressed) */
  /* file://PATH#offset=N&size=M: for an uncompressed entry the code object
     itself (roc-obj-ls prints the same); for a compressed entry the
     compressed bundle, which amddwarf_object_open_input opens with a
     target or index selection. NULL when the container was opened from
     memory. */
  const char *uri;
} amddwarf_container_entry;

/* Options of amddwarf_container_open_*. */
typedef struct amddwarf_container_options {
  uint32_t struct_size;                /* sizeof(amddwarf_container_options) */
  const amddwarf_allocator *allocator; /* NULL: malloc; copied by open */
  /* The largest decompressed bundle accepted: 0 means
     AMDDWARF_CONTAINER_DEFAULT_MAX_DECOMPRESSED. A header claiming more is
     refused before anything is allocated, and decompression never writes
     more than the header claims. */
  uint64_t max_decompressed;
  uint32_t flags;                      /* AMDDWARF_CONTAINER_* below */
} amddwarf_container_options;

#define AMDDWARF_CONTAINER_DEFAULT_MAX_DECOMPRESSED ((uint64_t)1 << 31) /* 2 GiB */

enum {
  /* Do not compute and compare a compressed bundle's MD5 hash (clang itself
     checks it only with -verbose). */
  AMDDWARF_CONTAINER_NO_HASH_CHECK = 1u << 0,
};

AMDDWARF_API void amddwarf_container_options_init(amddwarf_container_options *options);

/* Recognizes the SIZE bytes at DATA and lists their code objects. The bytes
   are borrowed: they must stay unchanged until amddwarf_container_close.
   NAME (may be NULL) names the input in messages and, when it is a path,
   in the entries' URIs. OPTIONS may be NULL. A container with no code
   object opens (count 0). Errors: E_INVALID_ARGUMENT, E_OBJECT_NOT_ELF
   (nothing recognized), E_OBJECT_BAD_ELF (a host ELF's section table),
   E_CONTAINER_BAD_BUNDLE, E_CONTAINER_BAD_COMPRESSED,
   E_CONTAINER_BAD_OFFLOAD_BINARY, E_LIMIT (max_decompressed), E_NO_MEMORY;
   ERR names the file, the byte offset and what is wrong. */
AMDDWARF_API amddwarf_status amddwarf_container_open_memory(
    const void *data, size_t size, const char *name, const amddwarf_container_options *options,
    amddwarf_container **out, amddwarf_error *err);

/* Maps the file at PATH and opens it like amddwarf_container_open_memory;
   the container owns the mapping. Additionally E_IO. */
AMDDWARF_API amddwarf_status amddwarf_container_open_file(
    const char *path, const amddwarf_container_options *options, amddwarf_container **out,
    amddwarf_error *err);

/* Opens INPUT: a path (amddwarf_container_open_file), or a file:// URI,
   whose range (the whole file without offset and size; the rest of the
   file with an offset only) is read as a container of its own, entry
   offsets and URIs still counted from the start of the file. A memory://
   URI is refused with E_CONTAINER_NEEDS_PROCESS: the bytes live in a
   process, which a live process or a core file provides. Additionally
   E_CONTAINER_BAD_URI. */
AMDDWARF_API amddwarf_status amddwarf_container_open_input(
    const char *input, const amddwarf_container_options *options, amddwarf_container **out,
    amddwarf_error *err);

AMDDWARF_API void amddwarf_container_close(amddwarf_container *container);

AMDDWARF_API amddwarf_container_kind amddwarf_container_get_kind(
    const amddwarf_container *container);
AMDDWARF_API size_t amddwarf_container_count(const amddwarf_container *container);
/* Entry INDEX, valid until amddwarf_container_close; NULL when out of range. */
AMDDWARF_API const amddwarf_container_entry *amddwarf_container_entry_at(
    const amddwarf_container *container, size_t index);

/* The bytes of entry INDEX in *DATA and *SIZE: for an uncompressed entry a
   slice of the input, for a compressed one its bundle decompressed (once;
   later calls reuse it) with its hash checked. Valid until
   amddwarf_container_close. Errors: E_INVALID_ARGUMENT,
   E_CONTAINER_BAD_COMPRESSED, E_CONTAINER_BAD_HASH, E_LIMIT, E_NO_MEMORY.
   Not thread-safe. */
AMDDWARF_API amddwarf_status amddwarf_container_entry_bytes(amddwarf_container *container,
                                                            size_t index, const uint8_t **data,
                                                            size_t *size, amddwarf_error *err);

/* ---- opening what the user has ---- */

/* Which code object of an input to open. */
typedef struct amddwarf_selection {
  const char *target;            /* a target ID to match, or NULL */
  int64_t index;                 /* an entry index, or -1 */
} amddwarf_selection;

/* Opens INPUT (a path, or a code-object URI: "file://..." or "memory://...")
   as one code object. A URI's range is read as a container of its own.
   SELECTION (may be NULL: no selection) chooses among its code objects:
   an index picks that entry, a target keeps the entries whose target ID
   matches (amddwarf_target_id_matches); a file that holds exactly one code
   object (after the target filter) needs neither. The object owns its
   bytes. Errors: E_CONTAINER_AMBIGUOUS (several candidates: ERR's message
   lists them, "N ENTRY-ID" each, as far as it holds; list them all with
   amddwarf_container_open_file), E_CONTAINER_NO_MATCH, E_CONTAINER_NO_CODE_OBJECT,
   E_CONTAINER_NEEDS_PROCESS (a memory:// URI), E_CONTAINER_BAD_URI, E_IO,
   and those of amddwarf_container_open_file, amddwarf_container_entry_bytes
   and amddwarf_object_open_memory. */
AMDDWARF_API amddwarf_status amddwarf_object_open_input(const char *input,
                                                        const amddwarf_selection *selection,
                                                        const amddwarf_object_options *options,
                                                        amddwarf_object **out,
                                                        amddwarf_error *err);

/* The selection step of amddwarf_object_open_input on a container already
   open (from memory, say): the chosen entry's bytes are copied, so the
   object outlives CONTAINER. NAME names the input in messages. Errors: as
   amddwarf_object_open_input's after the container is open. */
AMDDWARF_API amddwarf_status amddwarf_object_open_container(amddwarf_container *container,
                                                            const char *name,
                                                            const amddwarf_selection *selection,
                                                            const amddwarf_object_options *options,
                                                            amddwarf_object **out,
                                                            amddwarf_error *err);

/* Opens the code object URI names: amddwarf_object_open_input with no
   selection, refusing input that is not a URI (E_CONTAINER_BAD_URI). */
AMDDWARF_API amddwarf_status amddwarf_object_open_uri(const char *uri,
                                                      const amddwarf_object_options *options,
                                                      amddwarf_object **out,
                                                      amddwarf_error *err);

AMDDWARF_END_DECLS

#endif
