/* Code objects: ELF, DWARF DIEs, types, variables and line tables.
 *
 * amddwarf_object_open_* reads an AMDGPU code object (relocatable .o or
 * linked shared object): the ELF header and ISA, the sections (every
 * note's size checked), relocations applied to the debug sections of
 * relocatable objects, and each unit's header and unit DIE. Everything else
 * is read the first time a question needs it (specs/code-objects.md): the
 * symbols, the NT_AMDGPU_METADATA note (amddwarf_object_load_metadata says
 * why it cannot be read), a unit's scan (its DIE count, structure check,
 * convention and PC -> scope index; a PC is looked up in the units whose
 * ranges hold it first), its line table (every 32nd row kept) and its
 * compact DIE index. DIEs are read through references (amddwarf_die_ref,
 * below): 16 bytes a DIE, and the variables at a PC from the subprogram's
 * DIEs alone. A malformed unit keeps its error (amddwarf_object_load_unit
 * checks a unit through its references) and the other units stay readable.
 * amddwarf_object_load_all (or the AMDDWARF_OBJECT_LOAD_ALL flag) checks
 * every unit at once. The DIE summaries (amddwarf_die_info) are made from
 * the references, per unit, only for the functions that hand them out
 * (amddwarf_object_die, _die_at, _scopes_at, _vars_at).
 *
 * Everything returned by the query functions is `const`, lives in the handle
 * and stays valid until amddwarf_object_close, unless said otherwise. The
 * query functions may be called from several threads at once: what is read
 * on first use is made once, under a lock inside the handle.
 *
 * Expression bytes (DW_AT_location, DW_AT_frame_base, location list entries,
 * DW_AT_LLVM_lane_pc, ...) are returned raw; decode them with
 * amddwarf_expr_decode using the unit's `format`. How each unit's addresses
 * spaces and frame bases are read (its "convention") is detected per unit and
 * documented in specs/conventions.md. */
#ifndef AMDDWARF_OBJECT_H
#define AMDDWARF_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/dwarf.h>
#include <amddwarf/export.h>
#include <amddwarf/expr.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

typedef struct amddwarf_object amddwarf_object;

/* How a unit's address spaces and frame base are read (specs/conventions.md). */
typedef enum amddwarf_convention {
  AMDDWARF_CONVENTION_AUTO = 0,   /* detect per unit (options only) */
  AMDDWARF_CONVENTION_LEGACY,     /* upstream clang: DW_OP_xderef with 1 = private,
                                     2 = local; DW_AT_address_class in the same
                                     numbering; plain DW_OP_fbreg is private */
  AMDDWARF_CONVENTION_EXTENSION,  /* DW_ASPACE_AMDGPU_* / DW_ADDR_AMDGPU_* and the
                                     DW_OP_LLVM_* operations of the seed spec */
  AMDDWARF_CONVENTION_COUNT
} amddwarf_convention;

/* "auto", "legacy", "extension"; NULL when out of range. */
AMDDWARF_API const char *amddwarf_convention_name(amddwarf_convention convention);
/* Reverse of amddwarf_convention_name: AMDDWARF_OK or AMDDWARF_NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_convention_from_name(const char *name,
                                                           amddwarf_convention *convention);

typedef struct amddwarf_object_options {
  uint32_t struct_size;                /* sizeof(amddwarf_object_options) */
  const amddwarf_allocator *allocator; /* NULL: malloc; copied by open */
  amddwarf_convention convention;      /* AUTO: detect per unit */
  amddwarf_dialect dialect;            /* AUTO: per unit (auto, or user when the
                                          extension convention is detected) */
  uint32_t max_dies;                   /* 0: 50 million; a hard limit */
  uint32_t flags;                      /* AMDDWARF_OBJECT_* below */
} amddwarf_object_options;

enum {
  /* amddwarf_object_die_attributes lists attributes as libdwarf decodes them
     (through libdwarf's object-access interface over the same relocated
     sections) instead of with the library's own reader: a cross-check of
     the two decoders. libdwarf 20210528 is not robust against malformed
     input (it double-frees on some bad .debug_rnglists): do not use this on
     untrusted objects. */
  AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES = 1u << 0,
  /* Load every unit's DIEs and line table at open (amddwarf_object_load_all):
     open then fails on anything a unit's loading would report. */
  AMDDWARF_OBJECT_LOAD_ALL = 1u << 1,
  /* Read every expression literally: no producer quirk applies
     (amddwarf_cu.quirks is 0; specs/conventions.md, "Producer quirks"). */
  AMDDWARF_OBJECT_NO_QUIRKS = 1u << 8,
};

/* Defaults: malloc, detected conventions, auto dialect. */
AMDDWARF_API void amddwarf_object_options_init(amddwarf_object_options *options);

/* Opens the code object in the SIZE bytes at DATA. The bytes are borrowed:
   they must stay unchanged until amddwarf_object_close, and are never written.
   OPTIONS may be NULL. On success *OUT owns everything the object returns.
   Errors: E_INVALID_ARGUMENT, E_OBJECT_NOT_ELF, E_OBJECT_NOT_AMDGPU,
   E_OBJECT_BAD_ELF, E_OBJECT_BAD_NOTE, E_OBJECT_BAD_RELOCATION, E_LIMIT
   (options.max_dies), E_NO_MEMORY; with AMDDWARF_OBJECT_LOAD_ALL also the
   errors of amddwarf_object_load_all (E_OBJECT_DWARF, E_OBJECT_BAD_LIST,
   E_OBJECT_BAD_REFERENCE, ...). */
AMDDWARF_API amddwarf_status amddwarf_object_open_memory(const void *data, size_t size,
                                                         const amddwarf_object_options *options,
                                                         amddwarf_object **out,
                                                         amddwarf_error *err);

/* Reads the file at PATH and opens it like amddwarf_object_open_memory; the
   object owns the bytes. Additionally E_IO. */
AMDDWARF_API amddwarf_status amddwarf_object_open_file(const char *path,
                                                       const amddwarf_object_options *options,
                                                       amddwarf_object **out,
                                                       amddwarf_error *err);

/* Releases OBJECT and everything returned from it. NULL is allowed. */
AMDDWARF_API void amddwarf_object_close(amddwarf_object *object);

/* ---- ELF, ISA, metadata, symbols ---- */

typedef enum amddwarf_target_feature {
  AMDDWARF_FEATURE_UNSUPPORTED = 0, /* the processor has no such feature */
  AMDDWARF_FEATURE_ANY,             /* code runs with it on or off */
  AMDDWARF_FEATURE_OFF,
  AMDDWARF_FEATURE_ON,
} amddwarf_target_feature;

typedef struct amddwarf_object_info {
  uint16_t elf_type;             /* ET_REL (1) or ET_DYN (3), ... */
  uint8_t os_abi;                /* e_ident[EI_OSABI] (64 = AMDGPU HSA) */
  uint8_t abi_version;           /* e_ident[EI_ABIVERSION] */
  uint32_t code_object_version;  /* 2..6 from the ABI version, 0 when unknown */
  uint32_t e_flags;
  uint32_t mach;                 /* e_flags & 0xff */
  const char *processor;         /* "gfx900"; "gfx?" for an unknown mach */
  amddwarf_target_feature xnack;
  amddwarf_target_feature sramecc;
  unsigned isa_wave_size;        /* the processor's default wave size: 32 or 64 */
  unsigned wave_size;            /* the kernels' .wavefront_size when they agree,
                                    else isa_wave_size */
  const char *target;            /* metadata amdhsa.target, or NULL */
  uint32_t metadata_version[2];  /* amdhsa.version, {0,0} without metadata */
  uint32_t isa_major;            /* 8..12, 0 for an unknown processor */
  /* Private (scratch) memory as the code addresses it: 0 = swizzled MUBUF
     scratch, whose stack and frame registers (SGPR32/SGPR33) hold a
     wave-scaled offset, so a lane's private address is the register value
     divided by the wave size; 1 = flat scratch (gfx940-gfx950, gfx11 and
     later), whose registers hold the lane's private address. See
     specs/conventions.md. */
  uint8_t flat_scratch;
  unsigned frame_base_divisor;   /* wave_size (MUBUF) or 1 (flat scratch) */
  uint64_t debug_bytes;          /* total size of the .debug_* sections */
  uint32_t relocations_applied;  /* RELA entries applied to debug sections */
} amddwarf_object_info;

/* Valid until amddwarf_object_close. */
AMDDWARF_API const amddwarf_object_info *amddwarf_object_get_info(const amddwarf_object *object);
/* amddwarf_object_get_info without reading the metadata note where the
   processor runs one wave size (gfx8, gfx9): every field is final except
   target and metadata_version, empty until the note is read. For a caller
   that needs the processor, the ISA or the wave size of one big object. */
AMDDWARF_API const amddwarf_object_info *amddwarf_object_get_wave_info(
    const amddwarf_object *object);

/* The ELF file's bytes as opened (not relocated) and their size: valid
   until amddwarf_object_close. */
AMDDWARF_API const uint8_t *amddwarf_object_image(const amddwarf_object *object, size_t *size);

/* The addresses OBJECT takes when loaded: [*LOW, *HIGH), the union of its
   SHF_ALLOC sections (SHT_NOBITS ones included) in the object's own
   addresses. A loader places it at a load address L, where object address
   A becomes process address L + A. AMDDWARF_NOT_FOUND when no section is
   allocated (a relocatable object has addresses 0 in every section; then
   the extent is that of its largest section at 0). */
AMDDWARF_API amddwarf_status amddwarf_object_extent(const amddwarf_object *object,
                                                    uint64_t *low, uint64_t *high);

/* One ELF section of a code object, as the object reads it. */
typedef struct amddwarf_object_section {
  uint32_t index;                /* section header index (1 and up) */
  const char *name;              /* "" when the name table has none */
  uint32_t type;                 /* sh_type */
  uint64_t flags;                /* sh_flags */
  uint64_t address;              /* sh_addr */
  uint64_t file_offset;          /* sh_offset */
  uint64_t size;                 /* bytes at DATA: 0 for SHT_NOBITS and SHT_NULL */
  /* The contents: the relocated copy for the debug sections of a
     relocatable object, else the image's bytes; NULL when SIZE is 0 */
  const uint8_t *data;
} amddwarf_object_section;

/* The number of section headers, the null section 0 included. */
AMDDWARF_API size_t amddwarf_object_section_count(const amddwarf_object *object);

/* Section INDEX (1 to count - 1) in *OUT, valid until amddwarf_object_close.
   AMDDWARF_E_INVALID_ARGUMENT for index 0 or one past the table. */
AMDDWARF_API amddwarf_status amddwarf_object_section_at(const amddwarf_object *object,
                                                        size_t index,
                                                        amddwarf_object_section *out,
                                                        amddwarf_error *err);

/* A kernel from the metadata note, joined with its symbols. Fields the note
   does not carry are UINT32_MAX. */
typedef struct amddwarf_kernel {
  const char *name;              /* .name */
  const char *symbol;            /* .symbol ("k.kd") */
  uint64_t descriptor_address;   /* value of the .kd symbol, UINT64_MAX if absent */
  uint64_t code_address;         /* value of the code symbol, UINT64_MAX if absent */
  uint64_t code_size;
  uint32_t wavefront_size;
  uint32_t sgpr_count, vgpr_count, agpr_count;
  uint32_t sgpr_spill_count, vgpr_spill_count;
  uint32_t private_segment_fixed_size, group_segment_fixed_size;
  uint32_t kernarg_segment_size;
  uint32_t uses_dynamic_stack;   /* .uses_dynamic_stack: 0 or 1 */
} amddwarf_kernel;

/* Reads the NT_AMDGPU_METADATA note and the symbol table now. Open only
   checks that every note fits its section; the note's contents (a 113 MB
   note for 80,000 kernels) and the symbols are read the first time a
   kernel, a symbol or amddwarf_object_get_info (whose wave_size comes from
   the kernels) is asked for, or by this call, which says why they cannot
   be read: E_OBJECT_BAD_NOTE, E_OBJECT_BAD_ELF, E_NO_MEMORY. After a
   failure the object has no kernels and no symbols, and its info keeps the
   processor's wave size. */
AMDDWARF_API amddwarf_status amddwarf_object_load_metadata(const amddwarf_object *object,
                                                           amddwarf_error *err);

AMDDWARF_API size_t amddwarf_object_kernel_count(const amddwarf_object *object);
/* The INDEX-th kernel, or NULL when out of range. */
AMDDWARF_API const amddwarf_kernel *amddwarf_object_kernel(const amddwarf_object *object,
                                                           size_t index);

typedef enum amddwarf_symbol_kind {
  AMDDWARF_SYMBOL_FUNCTION = 0,  /* STT_FUNC, not a kernel entry */
  AMDDWARF_SYMBOL_KERNEL,        /* STT_FUNC with a matching .kd descriptor */
  AMDDWARF_SYMBOL_DESCRIPTOR,    /* the kernel descriptor object (NAME.kd) */
  AMDDWARF_SYMBOL_OBJECT,        /* another STT_OBJECT */
} amddwarf_symbol_kind;

typedef struct amddwarf_symbol {
  const char *name;
  uint64_t address;
  uint64_t size;
  amddwarf_symbol_kind kind;
  uint32_t section;              /* st_shndx */
} amddwarf_symbol;

/* The function or kernel symbol whose range holds ADDRESS (a kernel's
   when several do), by value: AMDDWARF_OK, AMDDWARF_NOT_FOUND, or
   E_INVALID_ARGUMENT. Before the symbol table has been read, .symtab is
   searched in place, without reading every symbol. */
AMDDWARF_API amddwarf_status amddwarf_object_function_symbol_at(const amddwarf_object *object,
                                                                uint64_t address,
                                                                amddwarf_symbol *out);

/* Function and object symbols, sorted by address then name. */
AMDDWARF_API size_t amddwarf_object_symbol_count(const amddwarf_object *object);
AMDDWARF_API const amddwarf_symbol *amddwarf_object_symbol(const amddwarf_object *object,
                                                           size_t index);

/* ---- DWARF units and DIEs ---- */

typedef struct amddwarf_range {
  uint64_t low, high;            /* [low, high) */
} amddwarf_range;

/* One entry of a location list, addresses resolved to absolute ones. */
typedef struct amddwarf_loc_entry {
  uint64_t low, high;            /* [low, high); the default entry has 0, UINT64_MAX */
  const uint8_t *expr;           /* raw expression bytes (points into the object) */
  size_t size;
  uint64_t offset;               /* section offset of the entry */
  uint8_t kind;                  /* DW_LLE_* (DWARF 5), or 0xff for a DWARF 4 pair */
  uint8_t is_default;            /* DW_LLE_default_location */
} amddwarf_loc_entry;

typedef enum amddwarf_attr_value_kind {
  AMDDWARF_ATTR_NONE = 0,
  AMDDWARF_ATTR_UNSIGNED,       /* u */
  AMDDWARF_ATTR_SIGNED,         /* s (DW_FORM_sdata, implicit_const) */
  AMDDWARF_ATTR_EXPR,           /* bytes/size: exprloc, or a DWARF 2/3 block */
  AMDDWARF_ATTR_LIST,           /* entries/count; offset: its section offset */
  AMDDWARF_ATTR_BLOCK,          /* bytes/size: a block constant (const_value) */
  AMDDWARF_ATTR_REF,            /* ref: a DIE reference (bounds, counts) */
  AMDDWARF_ATTR_STRING,         /* string */
} amddwarf_attr_value_kind;

/* The value of an attribute that can be a constant, an expression, a
   location list or a reference (DW_AT_location, DW_AT_const_value,
   DW_AT_upper_bound, DW_AT_data_member_location, DW_AT_LLVM_lane_pc, ...). */
typedef struct amddwarf_attr_value {
  amddwarf_attr_value_kind kind;
  uint16_t attribute;            /* DW_AT_* as found (old or new code) */
  uint16_t form;                 /* DW_FORM_* */
  uint64_t u;
  int64_t s;
  const uint8_t *bytes;
  size_t size;
  const amddwarf_loc_entry *entries;
  size_t count;
  uint64_t offset;
  const struct amddwarf_die_info *ref;
  const char *string;
} amddwarf_attr_value;

typedef struct amddwarf_cu {
  uint32_t index;
  uint64_t offset;               /* unit header offset in .debug_info */
  uint64_t die_offset;
  uint16_t version;              /* 2..5 */
  uint8_t unit_type;             /* DW_UT_* (DW_UT_compile for DWARF 4) */
  uint8_t address_size;
  uint8_t offset_size;
  uint32_t language;             /* DW_AT_language (0x8100 DW_LANG_LLVM_HIP, 0x30 DW_LANG_HIP) */
  const char *name;
  const char *producer;
  const char *comp_dir;
  const char *augmentation;      /* DW_AT_LLVM_augmentation / "[llvm:v0.0]", or NULL */
  amddwarf_convention convention;/* never AUTO */
  const char *convention_reason; /* why: "no extension attribute, operation or
                                    augmentation" ... (static) */
  amddwarf_expr_format format;   /* how to decode this unit's expressions */
  uint64_t low_pc;               /* DW_AT_low_pc or 0: base of its lists */
  uint64_t addr_base, loclists_base, rnglists_base, str_offsets_base;
  const amddwarf_range *ranges;  /* the unit's PC ranges */
  size_t range_count;
  uint64_t line_offset;          /* DW_AT_stmt_list, UINT64_MAX when absent */
  size_t first_die;              /* index of the unit DIE for amddwarf_object_die,
                                    set when every unit is scanned
                                    (amddwarf_object_die_count) */
  size_t die_count;              /* the unit's DIEs, counted by its scan
                                    (amddwarf_object_cu scans the unit) */
  /* The producer quirks this unit's expressions may use
     (AMDDWARF_QUIRK_BIT of each): those whose producers match its
     DW_AT_producer, in a legacy unit; 0 with AMDDWARF_OBJECT_NO_QUIRKS.
     Set by the unit's scan, as die_count. */
  uint32_t quirks;
} amddwarf_cu;

AMDDWARF_API size_t amddwarf_object_cu_count(const amddwarf_object *object);
AMDDWARF_API const amddwarf_cu *amddwarf_object_cu(const amddwarf_object *object, size_t index);

/* Flags of amddwarf_die_info.flags. */
enum {
  AMDDWARF_DIE_EXTERNAL = 1u << 0,
  AMDDWARF_DIE_DECLARATION = 1u << 1,
  AMDDWARF_DIE_ARTIFICIAL = 1u << 2,
  AMDDWARF_DIE_HAS_BYTE_SIZE = 1u << 3,
  AMDDWARF_DIE_HAS_BIT_SIZE = 1u << 4,
  AMDDWARF_DIE_HAS_DATA_BIT_OFFSET = 1u << 5,
  AMDDWARF_DIE_GNU_VECTOR = 1u << 6,         /* DW_AT_GNU_vector on an array */
  AMDDWARF_DIE_HAS_ADDRESS_CLASS = 1u << 7,
  AMDDWARF_DIE_HAS_ADDRESS_SPACE = 1u << 8,  /* DW_AT_LLVM_address_space */
  AMDDWARF_DIE_HAS_MEMORY_SPACE = 1u << 9,   /* DW_AT_LLVM_memory_space */
  AMDDWARF_DIE_OLD_LLVM_CODES = 1u << 10,    /* lanes/lane_pc/vector_size/active_lane
                                                found under their old numbers */
};

/* One DIE, summarized at open. Attributes the summary does not keep are
   reachable with amddwarf_object_die_attributes. */
typedef struct amddwarf_die_info {
  uint64_t offset;               /* .debug_info offset */
  uint16_t tag;                  /* DW_TAG_* */
  uint16_t depth;                /* 0 for a unit DIE */
  uint32_t cu_index;
  uint32_t flags;                /* AMDDWARF_DIE_* */
  const struct amddwarf_die_info *parent, *first_child, *next_sibling;
  const char *name;              /* own name, else the origin's; NULL if none */
  const char *linkage_name;
  const struct amddwarf_die_info *type;   /* DW_AT_type (own, else the origin's) */
  const struct amddwarf_die_info *origin; /* DW_AT_abstract_origin or DW_AT_specification */
  uint32_t decl_file, decl_line;
  uint32_t call_file, call_line, call_column;
  uint64_t byte_size, bit_size, data_bit_offset;
  uint32_t encoding;             /* DW_ATE_* of a base type */
  uint32_t address_class;        /* valid with HAS_ADDRESS_CLASS */
  uint32_t address_space;        /* valid with HAS_ADDRESS_SPACE */
  uint32_t memory_space;         /* valid with HAS_MEMORY_SPACE */
  uint32_t vector_size;          /* DW_AT_LLVM_vector_size, 0 when absent */
  uint32_t lanes;                /* DW_AT_LLVM_lanes, 0 when absent */
  const amddwarf_range *ranges;  /* low_pc/high_pc or DW_AT_ranges, absolute */
  size_t range_count;
  /* Present attributes of the kinds that may be expressions or lists;
     NULL when absent. */
  const amddwarf_attr_value *location, *frame_base, *const_value;
  const amddwarf_attr_value *data_member_location;
  const amddwarf_attr_value *lower_bound, *upper_bound, *count;
  const amddwarf_attr_value *lane_pc, *active_lane;
} amddwarf_die_info;

/* Loads unit CU_INDEX now: checks, through its DIE references, that every
   DIE of it can be read (the location and range lists its attributes name,
   the DIEs its DW_AT_type, DW_AT_abstract_origin, DW_AT_specification and
   reference bounds name, and the units those lie in, one unit deep), and
   reads its line table. No DIE summary is made: the accessors below make
   a unit's summaries on their first call. This call is for knowing why a
   unit cannot be read (an accessor returns NULL then). A unit that failed
   keeps failing with the same error. Errors: E_OBJECT_DWARF,
   E_OBJECT_BAD_REFERENCE, E_OBJECT_BAD_LIST, E_LIMIT, E_NO_MEMORY,
   E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_load_unit(const amddwarf_object *object,
                                                       size_t cu_index, amddwarf_error *err);

/* Loads every unit; stops at the first that fails. */
AMDDWARF_API amddwarf_status amddwarf_object_load_all(const amddwarf_object *object,
                                                      amddwarf_error *err);

/* The DIE at .debug_info OFFSET, or NULL (none starts there, or its unit
   cannot be loaded). The unit DIE of unit C is at
   amddwarf_object_cu(object, C)->die_offset. */
AMDDWARF_API const amddwarf_die_info *amddwarf_object_die_at(const amddwarf_object *object,
                                                        uint64_t offset);

/* Every DIE in .debug_info order (unit DIEs included); the count scans
   every unit (once) and numbers the DIEs (amddwarf_cu.first_die); a DIE is
   NULL when its unit cannot be loaded. */
AMDDWARF_API size_t amddwarf_object_die_count(const amddwarf_object *object);
AMDDWARF_API const amddwarf_die_info *amddwarf_object_die(const amddwarf_object *object, size_t index);

/* One raw attribute, for printing every attribute of a DIE. */
typedef struct amddwarf_attribute {
  uint16_t attribute;            /* DW_AT_* */
  uint16_t form;                 /* DW_FORM_* (indirect resolved) */
  amddwarf_attr_value value;          /* EXPR for exprloc/blocks of location attributes,
                                    LIST for list offsets, REF with ref for
                                    references, STRING, UNSIGNED or SIGNED */
} amddwarf_attribute;

/* Calls VISIT for every attribute of DIE in the order they are encoded,
   decoded by the library's reader (or by libdwarf with
   AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES). The attribute and what it points to
   are valid during the call only (strings and expression bytes until close).
   Location lists come resolved, as in the DIE's summary. A non-zero return
   from VISIT stops the walk and is returned as AMDDWARF_END. Errors:
   E_OBJECT_DWARF, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_die_attributes(
    const amddwarf_object *object, const amddwarf_die_info *die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);

/* Where the range list of a DW_AT_ranges attribute of unit CU_INDEX with
   FORM and raw VALUE starts: the .debug_rnglists (.debug_ranges for DWARF 4)
   offset, through the unit's offsets table for DW_FORM_rnglistx. The
   ranges themselves are the DIE's `ranges`. Errors: E_OBJECT_BAD_LIST,
   E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_range_list_offset(const amddwarf_object *object,
                                                               size_t cu_index, unsigned form,
                                                               uint64_t value, uint64_t *offset,
                                                               amddwarf_error *err);

/* ---- C++ names ---- */

/* Demangles the Itanium C++ ABI symbol SYMBOL ("_Z4stepP8ParticlePfif" ->
   "step(Particle*, float*, int, float)") with the C++ runtime's demangler
   (libstdc++'s __cxa_demangle). Writes at most SIZE bytes to BUF
   (NUL-terminated when SIZE > 0) and the full length to *LENGTH (may be
   NULL). AMDDWARF_NOT_FOUND: SYMBOL is not a mangled name (it does not
   start with _Z, is longer than 4096 bytes, or the demangler refuses it);
   E_NO_MEMORY; E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_demangle(const char *symbol, char *buf, size_t size,
                                               size_t *length);

/* The name a debugger shows for the function DIE (a DW_TAG_subprogram or
   DW_TAG_inlined_subroutine), as llvm-symbolizer and gdb's backtrace show
   it: its linkage name (its own, else its abstract origin's or
   specification's) demangled, else its DW_AT_name; NULL when it has
   neither. Valid until amddwarf_object_close; any thread. */
AMDDWARF_API const char *amddwarf_object_function_name(const amddwarf_object *object,
                                                       const amddwarf_die_info *die);

/* SYMBOL's name demangled ("step(Particle*, float*, int, float)"), or its
   name when it is not a mangled one. SYMBOL may be a copy (one of
   amddwarf_object_function_symbol_at). Valid until close; any thread. */
AMDDWARF_API const char *amddwarf_object_symbol_name(const amddwarf_object *object,
                                                     const amddwarf_symbol *symbol);

/* The function and kernel symbols NAME names: by their symbol name
   ("_Z4stepP8ParticlePfif"), their demangled name ("step(Particle*,
   float*, int, float)"), that name without its parameter list
   ("ns::Solver::step") or without its qualifiers too ("step"), every
   overload of it; in address order. Writes at
   most CAPACITY of them to OUT and their number to *COUNT.
   AMDDWARF_NOT_FOUND when none; E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_find_functions(const amddwarf_object *object,
                                                            const char *name,
                                                            const amddwarf_symbol **out,
                                                            size_t capacity, size_t *count);

/* The function and kernel symbols nearest to NAME when none matches it, to
   suggest: those one of whose names (as amddwarf_object_find_functions
   reads them) is within an edit distance (Levenshtein: insertions,
   deletions and substitutions of bytes) of max(2, length of NAME / 3),
   nearest first, ties in address order. Writes at most CAPACITY (no more
   than AMDDWARF_MAX_SUGGESTIONS) to OUT; returns how many. */
enum { AMDDWARF_MAX_SUGGESTIONS = 16 };
AMDDWARF_API size_t amddwarf_object_suggest_functions(const amddwarf_object *object,
                                                      const char *name,
                                                      const amddwarf_symbol **out,
                                                      size_t capacity);

/* ---- scopes, variables ---- */

/* The scopes containing PC, innermost first: lexical blocks, inlined
   subroutines, the subprogram, then the unit DIE. Writes at most CAPACITY
   into SCOPES and the full depth to *COUNT. AMDDWARF_NOT_FOUND when no
   subprogram contains PC (*COUNT is 0); the unit's loading error when the
   unit holding PC cannot be loaded (amddwarf_object_load_unit says why). */
AMDDWARF_API amddwarf_status amddwarf_object_scopes_at(const amddwarf_object *object, uint64_t pc,
                                                       const amddwarf_die_info **scopes,
                                                       size_t capacity, size_t *count);

/* The unit of the subprogram containing PC (known without loading it):
   AMDDWARF_OK with *CU_INDEX, or AMDDWARF_NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_object_pc_unit(const amddwarf_object *object, uint64_t pc,
                                                     size_t *cu_index);

typedef struct amddwarf_var {
  const amddwarf_die_info *die;       /* DW_TAG_variable or DW_TAG_formal_parameter */
  const amddwarf_die_info *scope;     /* the scope it was found in */
  uint32_t depth;                /* index of SCOPE in amddwarf_object_scopes_at */
  /* The location at PC: AVAILABLE 1 with EXPR/SIZE (SIZE may be 0: an empty
     expression, "optimized out"), or 0 when no entry of its list covers PC
     or it has no location; CONST_VALUE when it has DW_AT_const_value. */
  int available;
  const uint8_t *expr;
  size_t size;
  const amddwarf_loc_entry *entry; /* the list entry used, or NULL */
} amddwarf_var;

/* The variables and parameters visible at PC, innermost scope first, each in
   DIE order, then the unit's globals. Names shadowed by an inner scope are
   still listed (DEPTH tells them apart). Writes at most CAPACITY, the total
   to *COUNT. AMDDWARF_NOT_FOUND as amddwarf_object_scopes_at. */
AMDDWARF_API amddwarf_status amddwarf_object_vars_at(const amddwarf_object *object, uint64_t pc,
                                                     amddwarf_var *vars, size_t capacity,
                                                     size_t *count);

/* ---- DIE references: DIEs without summaries ----

   The functions above hand out summaries, and a summary points to other
   summaries, so the first one of a unit makes every summary of the unit
   (240 bytes a DIE, plus its line table). A reference names a DIE without
   them: its tag and attributes are read from .debug_info when asked for,
   and its tree links come from the unit's compact index (16 bytes a DIE),
   built the first time a link, an index or an offset of the unit is looked
   up. amddwarf_object_var_refs_at needs neither: the open-time pass found
   the subprogram and the unit's variables, and the query reads the
   subprogram's DIEs only (and, for a variable whose location is its
   abstract origin's, the origin, checked through its unit's index). Both
   views agree (tests/corpus/die_tree_check.c,
   tests/unit/test_object_die_refs.c); a
   reference converts to a summary with amddwarf_object_die(object,
   amddwarf_object_cu(object, ref.cu_index)->first_die + ref.index). */

typedef struct amddwarf_die_ref {
  uint64_t offset;               /* .debug_info offset; 0: no DIE */
  uint32_t cu_index;
  uint32_t index;                /* among the unit's DIEs, in offset order */
} amddwarf_die_ref;

/* Whether REF names a DIE (links and look-ups give a zero REF for none). */
static inline int amddwarf_die_ref_valid(amddwarf_die_ref ref) { return ref.offset != 0; }

/* Builds the compact index of unit CU_INDEX (or of every unit) now; the
   functions below build what they need by themselves. Errors: the unit's
   error from open, E_OBJECT_DWARF, E_NO_MEMORY, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_index_unit(const amddwarf_object *object,
                                                        size_t cu_index, amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_object_index_all(const amddwarf_object *object,
                                                       amddwarf_error *err);

/* The DIE of INDEX among all DIEs (amddwarf_object_die's numbering), or
   the one starting at .debug_info OFFSET. AMDDWARF_NOT_FOUND when there is
   none; the unit's error when its index cannot be built. */
AMDDWARF_API amddwarf_status amddwarf_object_die_ref(const amddwarf_object *object, size_t index,
                                                     amddwarf_die_ref *out, amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_object_die_ref_at(const amddwarf_object *object,
                                                        uint64_t offset, amddwarf_die_ref *out,
                                                        amddwarf_error *err);

typedef struct amddwarf_die_links {
  uint16_t tag;                  /* DW_TAG_* */
  uint16_t depth;                /* 0 for a unit DIE */
  amddwarf_die_ref parent, first_child, next_sibling; /* zero when none */
} amddwarf_die_links;

/* The tag, depth and tree links of DIE. */
AMDDWARF_API amddwarf_status amddwarf_object_die_links(const amddwarf_object *object,
                                                       amddwarf_die_ref die,
                                                       amddwarf_die_links *out,
                                                       amddwarf_error *err);

/* Flags of amddwarf_object_die_attribute. */
enum {
  /* When DIE lacks the attribute, look in its DW_AT_abstract_origin or
     DW_AT_specification, and theirs (8 steps at most), as a summary's
     name, type and declaration do. */
  AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN = 1u << 0,
};

/* Attribute AT (DW_AT_*) of DIE, decoded from .debug_info: AMDDWARF_OK
   with *OUT, or AMDDWARF_NOT_FOUND. A reference comes as REF with its
   target's offset in value.offset and value.ref NULL (amddwarf_object_die_ref_at
   names the target); a location list as LIST with its form, raw value
   (value.u) and section offset (value.offset), without entries. Strings and expression bytes stay valid until
   close. Errors: E_OBJECT_DWARF (and the list errors for lists),
   E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_die_attribute(const amddwarf_object *object,
                                                           amddwarf_die_ref die, unsigned at,
                                                           unsigned flags, amddwarf_attribute *out,
                                                           amddwarf_error *err);

/* String attribute AT of DIE (DW_AT_name, DW_AT_linkage_name...), its
   abstract origin's or specification's when DIE lacks it, as
   AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN finds it; NULL when there is none, it is
   not a string, or the DIE cannot be read. Valid until close. */
AMDDWARF_API const char *amddwarf_object_die_string(const amddwarf_object *object,
                                                    amddwarf_die_ref die, unsigned at);

/* The DIE that reference attribute AT of DIE itself (DW_AT_abstract_origin,
   DW_AT_specification, DW_AT_type...) names; a reference that is not
   valid (amddwarf_die_ref_valid) when DIE lacks AT or it names no DIE. */
AMDDWARF_API amddwarf_die_ref amddwarf_object_die_reference(const amddwarf_object *object,
                                                            amddwarf_die_ref die, unsigned at);

/* Calls VISIT for every attribute of DIE in encoded order, as
   amddwarf_object_die_attributes does for a summary (by libdwarf with
   AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES), with references and lists as
   amddwarf_object_die_attribute gives them. */
AMDDWARF_API amddwarf_status amddwarf_object_die_ref_attributes(
    const amddwarf_object *object, amddwarf_die_ref die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);

/* The expression attribute AT (DW_AT_location, DW_AT_frame_base,
   DW_AT_LLVM_lane_pc, ...) of DIE gives at PC: its expression, or
   the entry of its location list covering PC (by amddwarf_attr_value_expr_at's
   rule; *ENTRY, may be NULL, gets that entry). AMDDWARF_NOT_FOUND when DIE
   lacks AT, AT is of another kind, or no entry covers PC. Errors: as
   amddwarf_object_die_attribute, and the list errors. */
AMDDWARF_API amddwarf_status amddwarf_object_die_expr_at(const amddwarf_object *object,
                                                         amddwarf_die_ref die, unsigned at,
                                                         uint64_t pc, const uint8_t **bytes,
                                                         size_t *size, amddwarf_loc_entry *entry,
                                                         amddwarf_error *err);

/* What a debugger reads of one DIE, decoded from .debug_info in one pass
   through its reference (and its origins' for the inherited fields): the
   fields of its summary (amddwarf_die_info) without the pointers to other
   summaries, made on the caller's stack. */
typedef struct amddwarf_die_fields {
  amddwarf_die_ref die;
  uint16_t tag;                  /* DW_TAG_* */
  uint16_t depth;                /* 0 for a unit DIE */
  uint32_t flags;                /* AMDDWARF_DIE_* (as a summary's, no ranges) */
  amddwarf_die_ref parent, first_child, next_sibling; /* not valid when none */
  const char *name;              /* own, else the origin chain's; NULL if none */
  const char *linkage_name;      /* own, else the origin chain's */
  amddwarf_die_ref type;         /* DW_AT_type, own else the origin chain's;
                                    not valid when none (void) */
  amddwarf_die_ref origin;       /* DW_AT_abstract_origin or DW_AT_specification */
  uint32_t decl_file, decl_line; /* own, else the origin chain's */
  uint32_t call_file, call_line, call_column;
  uint64_t byte_size, bit_size, data_bit_offset;
  uint32_t encoding;             /* DW_ATE_* of a base type */
  uint32_t address_class, address_space, memory_space; /* with their HAS_ flags */
  uint32_t vector_size, lanes;   /* 0 when absent */
  /* Attributes that may be constants, expressions or references: kind
     AMDDWARF_ATTR_NONE when absent, else as amddwarf_object_die_attribute
     gives them (a reference as REF with the target's offset). */
  amddwarf_attr_value const_value, data_member_location;
  amddwarf_attr_value lower_bound, upper_bound, count;
} amddwarf_die_fields;

/* Reads DIE's fields into *OUT (zeroed first). Errors: E_OBJECT_DWARF,
   E_OBJECT_BAD_REFERENCE (its type or origin names no DIE),
   E_INVALID_ARGUMENT (DIE is not a reference of OBJECT). */
AMDDWARF_API amddwarf_status amddwarf_object_die_fields(const amddwarf_object *object,
                                                        amddwarf_die_ref die,
                                                        amddwarf_die_fields *out,
                                                        amddwarf_error *err);

/* Nonzero when the library evaluates attribute AT as a location: DW_AT_location,
   DW_AT_frame_base, DW_AT_data_member_location, DW_AT_LLVM_lane_pc (either
   code) and DW_AT_LLVM_active_lane. A unit's check reads the location lists
   of these, and `amddwarf dump` shows their entries. The other location
   attributes (DW_AT_string_length, DW_AT_static_link, ...) are decoded, and
   their lists left as offsets. */
AMDDWARF_API int amddwarf_object_attribute_is_evaluated(unsigned at);

/* Calls VISIT for each entry of the location list that attribute AT of DIE
   itself names, in list order, until VISIT returns nonzero (entries valid
   during the call). AMDDWARF_NOT_FOUND when DIE lacks AT or it is not a
   list. Errors: as amddwarf_object_die_attribute, and the list errors. */
AMDDWARF_API amddwarf_status amddwarf_object_die_list_entries(
    const amddwarf_object *object, amddwarf_die_ref die, unsigned at,
    int (*visit)(void *user, const amddwarf_loc_entry *entry), void *user,
    amddwarf_error *err);

/* Calls VISIT for each PC range of DIE (absolute, as a summary's `ranges`:
   its DW_AT_ranges list, else its DW_AT_low_pc / DW_AT_high_pc pair), in
   order, until VISIT returns nonzero. AMDDWARF_NOT_FOUND when it has none.
   Errors: as amddwarf_object_die_attribute, and the range list errors. */
AMDDWARF_API amddwarf_status amddwarf_object_die_ranges(
    const amddwarf_object *object, amddwarf_die_ref die,
    int (*visit)(void *user, const amddwarf_range *range), void *user, amddwarf_error *err);

/* The units whose DIE summaries (amddwarf_die_info) were made so far:
   every reader on references leaves it unchanged. */
AMDDWARF_API size_t amddwarf_object_summarized_units(const amddwarf_object *object);

/* amddwarf_object_function_name for a DIE reference, its attributes read
   from .debug_info (following DW_AT_abstract_origin and
   DW_AT_specification): what a caller on references, such as `amddwarf
   lines`, shows without the unit's summaries. */
AMDDWARF_API const char *amddwarf_object_die_function_name(const amddwarf_object *object,
                                                           amddwarf_die_ref die);

/* amddwarf_object_scopes_at with references: innermost first, the unit DIE
   last. Reads the DIEs of the subprogram containing PC only. */
AMDDWARF_API amddwarf_status amddwarf_object_scope_refs_at(const amddwarf_object *object,
                                                           uint64_t pc, amddwarf_die_ref *scopes,
                                                           size_t capacity, size_t *count,
                                                           amddwarf_error *err);

typedef struct amddwarf_var_ref {
  amddwarf_die_ref die;          /* DW_TAG_variable or DW_TAG_formal_parameter */
  amddwarf_die_ref scope;        /* the scope it was found in */
  uint32_t depth;                /* index of SCOPE in amddwarf_object_scope_refs_at */
  /* As amddwarf_var: AVAILABLE 1 with EXPR/SIZE, else 0. ENTRY is the list
     entry used when FROM_LIST is 1. */
  int available;
  int from_list;
  const uint8_t *expr;
  size_t size;
  amddwarf_loc_entry entry;
} amddwarf_var_ref;

/* amddwarf_object_vars_at with references: the same variables in the same
   order, reading the DIEs of the subprogram containing PC (and the
   abstract origins of variables without a location or constant of their
   own, which builds the index of the origin's unit). Variables past
   CAPACITY are counted, not read. */
AMDDWARF_API amddwarf_status amddwarf_object_var_refs_at(const amddwarf_object *object,
                                                         uint64_t pc, amddwarf_var_ref *vars,
                                                         size_t capacity, size_t *count,
                                                         amddwarf_error *err);

/* The expression of VALUE (EXPR or LIST) that applies at PC: AMDDWARF_OK with
   *BYTES and *SIZE (and *ENTRY for lists, may be NULL), or AMDDWARF_NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_attr_value_expr_at(const amddwarf_attr_value *value, uint64_t pc,
                                                    const uint8_t **bytes, size_t *size,
                                                    const amddwarf_loc_entry **entry);

/* ---- types, on DIE references ----

   A type is the reference of its DIE; a reference that is not valid
   (amddwarf_die_ref_valid) is void. */

/* Follows typedefs and cv-qualifiers (and DW_TAG_atomic_type) from TYPE;
   void stays void. */
AMDDWARF_API amddwarf_die_ref amddwarf_type_strip(const amddwarf_object *object,
                                                  amddwarf_die_ref type);

/* The DW_ASPACE_* a pointer or reference type POINTER points into: its
   DW_AT_LLVM_address_space, else its DW_AT_address_class read under its
   unit's convention (legacy units number classes like their xderef
   operands), else generic. */
AMDDWARF_API uint32_t amddwarf_type_pointer_aspace(const amddwarf_object *object,
                                                   amddwarf_die_ref pointer);

/* The size in bytes of TYPE (arrays: element size times the constant counts;
   pointers: their DW_AT_byte_size, else the size of an address in the
   address space they point into: 4 bytes for private and local pointers of
   64-bit code objects, as clang lays them out). AMDDWARF_OK, or
   AMDDWARF_NOT_FOUND when a dimension is not constant or the size is not
   known. */
AMDDWARF_API amddwarf_status amddwarf_type_byte_size(const amddwarf_object *object,
                                                     amddwarf_die_ref type, uint64_t *size);

/* Writes the C spelling of TYPE ("int[8]", "const S *", "float4") into BUF
   (SIZE bytes, NUL-terminated when SIZE > 0). *LENGTH (may be NULL) gets the
   full length. E_NO_SPACE when truncated. */
AMDDWARF_API amddwarf_status amddwarf_type_name(const amddwarf_object *object,
                                                amddwarf_die_ref type, char *buf, size_t size,
                                                size_t *length);

/* One dimension of an array: valid indexes LOWER .. LOWER + COUNT - 1;
   KNOWN 0 when the count is not a constant (a flexible array, a bound that
   is an expression, or an unsigned DW_FORM_data4 upper bound 0xffffffff,
   how old producers say "unknown"). */
typedef struct amddwarf_array_dim {
  int64_t lower;                 /* DW_AT_lower_bound, else the language's default
                                    (1 for Ada, Cobol, Fortran, Modula-2, Pascal,
                                    PL/I; 0 otherwise) */
  uint64_t count;
  int known;
} amddwarf_array_dim;

/* The dimensions of array type ARRAY (its DW_TAG_subrange_type children,
   and its DW_TAG_enumeration_type children, counts unknown), in order: writes at most CAPACITY to DIMS and returns how many there are (0
   when ARRAY is not an array or cannot be read). */
AMDDWARF_API size_t amddwarf_type_array_dims(const amddwarf_object *object,
                                             amddwarf_die_ref array, amddwarf_array_dim *dims,
                                             size_t capacity);

/* ---- lines ---- */

enum {
  AMDDWARF_LINE_IS_STMT = 1u << 0,
  AMDDWARF_LINE_BASIC_BLOCK = 1u << 1,
  AMDDWARF_LINE_END_SEQUENCE = 1u << 2,
  AMDDWARF_LINE_PROLOGUE_END = 1u << 3,
  AMDDWARF_LINE_EPILOGUE_BEGIN = 1u << 4,
};

typedef struct amddwarf_line_row {
  uint64_t address;
  uint32_t file;                 /* index into the table's files, as encoded */
  uint32_t line;
  uint32_t column;
  uint32_t discriminator;
  uint8_t isa;
  uint8_t flags;                 /* AMDDWARF_LINE_* */
} amddwarf_line_row;

typedef struct amddwarf_line_table {
  uint32_t cu_index;
  uint64_t offset;               /* .debug_line offset */
  uint16_t version;
  size_t row_count;              /* rows, in the order of the program:
                                    amddwarf_object_line_row */
  const char *const *files;      /* full paths, index as in rows[].file; an
                                    index with no entry is NULL */
  size_t file_count;
} amddwarf_line_table;

/* The line table of unit CU_INDEX (read on first use), or NULL when it has
   none or it cannot be read (amddwarf_object_load_unit says why). */
AMDDWARF_API const amddwarf_line_table *amddwarf_object_line_table(const amddwarf_object *object,
                                                                   size_t cu_index);

/* Row INDEX (below table->row_count) of TABLE, a table of OBJECT, in *OUT.
   A table keeps every 32nd row and the line program's offset after it; the
   rows between are read again by running the program from there (31 rows
   at most), so a row is handed out by value. E_INVALID_ARGUMENT for
   another object's table or an index past the end. */
AMDDWARF_API amddwarf_status amddwarf_object_line_row(const amddwarf_object *object,
                                                      const amddwarf_line_table *table,
                                                      size_t index, amddwarf_line_row *out);

/* Rows FIRST to FIRST + COUNT - 1 of TABLE into OUT (COUNT entries), the
   program run once: what a reader of every row uses, in chunks.
   E_INVALID_ARGUMENT as amddwarf_object_line_row, and for COUNT 0 or rows
   past the end. */
AMDDWARF_API amddwarf_status amddwarf_object_line_rows(const amddwarf_object *object,
                                                       const amddwarf_line_table *table,
                                                       size_t first, amddwarf_line_row *out,
                                                       size_t count);

/* Calls VISIT with every row of TABLE in program order (read in chunks by
   amddwarf_object_line_rows) until it returns nonzero. AMDDWARF_OK, or the
   error of amddwarf_object_line_rows; a NULL table has no rows. */
AMDDWARF_API amddwarf_status amddwarf_object_line_visit(
    const amddwarf_object *object, const amddwarf_line_table *table,
    int (*visit)(void *user, size_t index, const amddwarf_line_row *row), void *user);

/* The row covering PC (the last row at or before PC in a sequence whose end
   is after PC): AMDDWARF_OK with *TABLE and the row in *ROW, or
   AMDDWARF_NOT_FOUND. The table of the unit whose subprogram holds PC is
   searched first, then every table (reading those not read yet). */
AMDDWARF_API amddwarf_status amddwarf_object_line_at(const amddwarf_object *object, uint64_t pc,
                                                     const amddwarf_line_table **table,
                                                     amddwarf_line_row *row);

/* ---- conventions ---- */

typedef enum amddwarf_expr_role {
  AMDDWARF_ROLE_LOCATION = 0,   /* DW_AT_location (or a list entry's expression) */
  AMDDWARF_ROLE_FRAME_BASE = 1, /* DW_AT_frame_base */
} amddwarf_expr_role;

/* Rewrites the expression BYTES (SIZE) of unit CU, read under the unit's
   convention, into an expression with the same meaning under the extension
   convention, encoded in the DW_OP_LLVM_user dialect (specs/conventions.md
   section 5): in a legacy unit, an expression that is a producer quirk's
   pattern becomes the quirk's corrected reading (section 7), "lit<k>, swap,
   xderef" address-space suffixes become DW_OP_LLVM_form_aspace_address (a
   DW_OP_stack_value right after one is dropped: the location of the bytes
   the xderef reads), a bare DW_OP_fbreg gets the private_lane space, and a
   DW_OP_regx frame base becomes the register's value divided by
   info.frame_base_divisor. Other
   expressions, and every expression of an extension unit, are copied.
   Writes at most CAPACITY bytes to OUT and the full size to *OUT_SIZE
   (E_NO_SPACE when it did not fit). Evaluate the result with
   DW_ASPACE numbering and dialect user. Errors: the decoder's and encoder's. */
AMDDWARF_API amddwarf_status amddwarf_object_normalize_expr(
    const amddwarf_object *object, const amddwarf_cu *cu, amddwarf_expr_role role,
    const uint8_t *bytes, size_t size, uint8_t *out, size_t capacity, size_t *out_size,
    amddwarf_error *err);

/* ---- producer quirks (specs/conventions.md, "Producer quirks") ----

   A producer quirk is DWARF that a known producer writes with another
   meaning than it says (clang's promoted OpenCL variables keep the private
   address-space suffix of their alloca). The table is src/object/quirks.def;
   quirks are numbered 1 .. amddwarf_quirk_count(), 0 is none. A quirk
   applies to an expression of a legacy unit whose producer it lists, when
   the whole expression is its pattern; amddwarf_object_normalize_expr then
   gives the corrected reading. AMDDWARF_OBJECT_NO_QUIRKS gives the literal
   one. */

typedef uint32_t amddwarf_quirk;
enum { AMDDWARF_QUIRK_NONE = 0 };
#define AMDDWARF_QUIRK_BIT(quirk) (1u << ((quirk) - 1u))
/* The most operations a quirk's corrected reading has. */
#define AMDDWARF_QUIRK_MAX_OPS 8

typedef struct amddwarf_quirk_info {
  const char *name;              /* "promoted_register" (stable) */
  const char *pattern;           /* the operations it matches, spelled */
  const char *reading;           /* what they are read as */
  const char *why;               /* the producer's reason, with its evidence */
  uint32_t producers;            /* bit I: amddwarf_quirk_producer(I) */
} amddwarf_quirk_info;

typedef struct amddwarf_quirk_producer_info {
  const char *prefix;            /* DW_AT_producer starts with it, */
  unsigned major_min, major_max; /* then a major version in range, then '.' */
  const char *evidence;          /* where the pattern was seen */
} amddwarf_quirk_producer_info;

AMDDWARF_API size_t amddwarf_quirk_count(void);
/* Quirk QUIRK (1 .. count), static; NULL for NONE or out of range. */
AMDDWARF_API const amddwarf_quirk_info *amddwarf_quirk_get(amddwarf_quirk quirk);
/* The quirk named NAME: AMDDWARF_OK with *QUIRK, or AMDDWARF_NOT_FOUND. */
AMDDWARF_API amddwarf_status amddwarf_quirk_from_name(const char *name, amddwarf_quirk *quirk);
AMDDWARF_API size_t amddwarf_quirk_producer_count(void);
/* Producer INDEX of the table: E_INVALID_ARGUMENT past the end. */
AMDDWARF_API amddwarf_status amddwarf_quirk_producer(size_t index,
                                                     amddwarf_quirk_producer_info *out);
/* The quirks (AMDDWARF_QUIRK_BIT mask) a unit with DW_AT_producer PRODUCER
   (may be NULL: none) may use. */
AMDDWARF_API uint32_t amddwarf_quirks_of_producer(const char *producer);

/* The quirk that expression BYTES (SIZE) of unit CU, in ROLE, is read
   through: its number, or AMDDWARF_QUIRK_NONE (not a quirk's pattern, the
   unit's producer is not the quirk's, the unit is not legacy, or the object
   was opened with AMDDWARF_OBJECT_NO_QUIRKS). */
AMDDWARF_API amddwarf_quirk amddwarf_object_expr_quirk(const amddwarf_object *object,
                                                       const amddwarf_cu *cu,
                                                       amddwarf_expr_role role,
                                                       const uint8_t *bytes, size_t size);

/* ---- private memory ---- */

/* Whether code at PC can have private (scratch) memory. AMDDWARF_OK: it
   may, or the object cannot tell. AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT: PC is
   in the code of a kernel (its symbol's range) whose NT_AMDGPU_METADATA
   declares .private_segment_fixed_size 0 and .uses_dynamic_stack false, so
   no location there is in private memory; ERR names the kernel. Functions
   called from kernels are not judged (clang's call sites name no callee:
   which kernels reach a function cannot be proved from the object), and a
   kernel entry without both fields is not either. */
AMDDWARF_API amddwarf_status amddwarf_object_private_possible(const amddwarf_object *object,
                                                              uint64_t pc, amddwarf_error *err);

/* Entry INDEX of unit CU's .debug_addr table (DW_OP_addrx, DW_OP_constx).
   Errors: E_OBJECT_BAD_LIST when the index is outside the table;
   E_EVAL_UNAVAILABLE when the object does not know the entry's value: it
   comes from a symbol without an address (undefined in a relocatable
   object, left undefined by the link, an LDS symbol the loader places, a
   common symbol; specs/code-objects.md, "Addresses the object does not
   know"). ERR then names the symbol, and *ADDRESS holds what the field
   holds (0 for an undefined symbol), which is no address. */
AMDDWARF_API amddwarf_status amddwarf_object_address_index(const amddwarf_object *object,
                                                           const amddwarf_cu *cu, uint64_t index,
                                                           uint64_t *address,
                                                           amddwarf_error *err);

/* Whether every address expression BYTES (SIZE) of unit CU takes from the
   object is known: the operand of each DW_OP_addr and the .debug_addr entry
   of each DW_OP_addrx / DW_OP_constx (and their GNU forms), as
   amddwarf_object_address_index decides. BYTES must be bytes the object
   returned (a DIE's attribute, a location list entry), not a copy: a
   DW_OP_addr operand is known by its place in its section. Operations after
   one that does not decode are not looked at (evaluating reports it).
   AMDDWARF_OK, or E_EVAL_UNAVAILABLE with ERR naming the operation (its
   offset and opcode) and the symbol; E_INVALID_ARGUMENT, E_NO_MEMORY. A
   debugger calls this before evaluating a variable's location, so that the
   value shown is "<unavailable>" with the reason, not what the field holds. */
AMDDWARF_API amddwarf_status amddwarf_object_expr_addresses_known(const amddwarf_object *object,
                                                                  const amddwarf_cu *cu,
                                                                  const uint8_t *bytes,
                                                                  size_t size,
                                                                  amddwarf_error *err);

/* ---- static checks ---- */

/* What a problem found by amddwarf_object_check is (src/object/check.def). */
typedef enum amddwarf_check_kind {
#define AMDDWARF_CHECK(kind, name, description) AMDDWARF_CHECK_##kind,
#include <amddwarf/check.def>
#undef AMDDWARF_CHECK
  AMDDWARF_CHECK_KIND_COUNT
} amddwarf_check_kind;

/* Stable name ("stack_underflow") and description of KIND; NULL when out of
   range. Static strings. */
AMDDWARF_API const char *amddwarf_check_kind_name(amddwarf_check_kind kind);
AMDDWARF_API const char *amddwarf_check_kind_description(amddwarf_check_kind kind);
/* Nonzero when KIND is a warning (producer_quirk): reported to the callback
   but not counted as a problem of the object. */
AMDDWARF_API int amddwarf_check_kind_is_warning(amddwarf_check_kind kind);

typedef struct amddwarf_check_problem {
  amddwarf_check_kind kind;
  amddwarf_status status;        /* the decoder's or CFI reader's status, else 0 */
  uint64_t die_offset;           /* the DIE, or UINT64_MAX (CFI) */
  uint16_t attribute;            /* DW_AT_* of the expression, 0 for CFI */
  uint64_t entry_offset;         /* list entry / FDE section offset, or UINT64_MAX */
  uint64_t op_offset;            /* byte offset within the expression, or UINT64_MAX */
  int32_t opcode;                /* raw opcode, or AMDDWARF_NO_OPCODE */
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
  amddwarf_quirk quirk;          /* PRODUCER_QUIRK: which one; else NONE */
} amddwarf_check_problem;

/* Statically checks every location-like expression (DW_AT_location,
   frame_base, data_member_location, bounds, lane_pc, active_lane), every
   location list and every .debug_frame CIE/FDE program of OBJECT, under
   each unit's convention and the object's wave size. REPORT (may be NULL)
   is called once per problem; the problem is valid during the call; a
   non-zero return stops the check early. *COUNT (may be NULL) receives the
   number of problems, warnings not included. Returns AMDDWARF_OK whether or not problems were
   found; errors: those of amddwarf_object_load_all (a unit that cannot be
   read at all), E_NO_MEMORY and E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_object_check(
    const amddwarf_object *object,
    int (*report)(void *user, const amddwarf_check_problem *problem), void *user,
    size_t *count, amddwarf_error *err);

/* Checks one expression as amddwarf_object_check does, for unit CU of OBJECT
   (CU may be NULL: a legacy-convention DWARF 5 unit with 8-byte addresses
   and OBJECT's wave size, or 64 when OBJECT is NULL too). */
AMDDWARF_API amddwarf_status amddwarf_object_check_expr(
    const amddwarf_object *object, const amddwarf_cu *cu, const uint8_t *bytes, size_t size,
    int (*report)(void *user, const amddwarf_check_problem *problem), void *user,
    size_t *count, amddwarf_error *err);

/* ---- call frame information ---- */

struct amddwarf_cfi;

/* The call frame information of OBJECT: its .debug_frame (relocated), else
   its .eh_frame, opened on first use with the AMDGPU target of the object's
   wave size, and owned by OBJECT (valid until amddwarf_object_close). The
   handle may be shared by threads that unwind at once (its rows are
   computed under a lock). AMDDWARF_NOT_FOUND when the object has neither
   section; otherwise amddwarf_cfi_open's errors, kept and returned again by
   every later call. */
AMDDWARF_API amddwarf_status amddwarf_object_cfi(const amddwarf_object *object,
                                                 struct amddwarf_cfi **out, amddwarf_error *err);

/* ---- memory ---- */

/* Bytes held by OBJECT beyond the borrowed input (arenas, relocated section
   copies, the units loaded so far, the answers the debugger layer keeps
   with it; libdwarf's tables and the unwinders kept for the next wave not
   counted). */
AMDDWARF_API size_t amddwarf_object_memory_used(const amddwarf_object *object);

AMDDWARF_END_DECLS

#endif
