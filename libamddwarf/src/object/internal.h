/* Internal state of an opened code object, shared by the files of src/object.
 * Only src/object includes libdwarf; ELF is read by elf_image.c. */
#ifndef AMDDWARF_OBJECT_INTERNAL_H
#define AMDDWARF_OBJECT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <amddwarf/object.h>

#include "common/arena.h"
#include "common/error.h"
#include "common/reader.h"
#include "elf/elf_image.h"
#include "object/memo.h"

/* The LLVM/AMDGPU attributes are <amddwarf/dwarf.h>'s (DESIGN.md section 6).
   AMDDWARF_DW_AT_LLVM_active_lane and _augmentation (0x3e08, 0x3e09) have no
   newer codes and LLVM reuses them for other attributes, so they are only
   read as these when the unit otherwise uses the extension convention. */

/* One section as handed to libdwarf: index 0 is the ELF null section. */
typedef struct amddwarf_section {
  const char *name;
  uint64_t address;
  uint64_t size;
  uint64_t type, flags;
  uint64_t file_offset;   /* sh_offset */
  uint64_t memory_size;   /* sh_size, also of SHT_NOBITS: the bytes it takes when loaded */
  uint64_t link, info, entsize;
  const uint8_t *data;    /* file bytes, or the relocated copy */
  uint8_t *owned;         /* the relocated copy (object allocator), or NULL */
  bool is_debug;
} amddwarf_section;

/* Limits that the summaries and the DIE references share, so that both
   read the same DIEs. */
#define AMDDWARF_MAX_DIE_DEPTH 512u     /* nesting of DIEs in a unit */
#define AMDDWARF_MAX_ORIGIN_STEPS 8     /* abstract origins / specifications followed */
#define AMDDWARF_MAX_SCOPE_DEPTH 256    /* scopes at a PC, the unit DIE included */

/* ---- abbreviations and forms (forms.c) ---- */

typedef struct amddwarf_abbrev_attr {
  uint16_t at;
  uint16_t form;
  bool loc;            /* amddwarf__object_is_location_attribute(at) */
  int64_t implicit_const;
} amddwarf_abbrev_attr;

/* What the open-time scan must look at in a DIE of an abbreviation. */
enum {
  AMDDWARF_ABBREV_EXTENSION_ATTR = 1u << 0, /* an LLVM/AMDGPU extension attribute */
  AMDDWARF_ABBREV_FRAME_OR_LOCATION = 1u << 1, /* DW_AT_location or DW_AT_frame_base */
};

typedef struct amddwarf_abbrev {
  uint64_t code;
  uint16_t tag;
  uint8_t children;
  uint8_t scan_flags;  /* AMDDWARF_ABBREV_* */
  int32_t fixed_size;  /* the attributes' bytes when every form has a fixed
                          size under the table's size_key, else -1 */
  uint32_t count;
  const amddwarf_abbrev_attr *attrs;
} amddwarf_abbrev;

/* The abbreviations of one .debug_abbrev offset; codes 1..N are usually
   dense, so DENSE[code] finds them; others are searched in ALL. */
typedef struct amddwarf_abbrev_table {
  uint64_t offset;
  amddwarf_abbrev *all;
  size_t count;
  size_t capacity;
  amddwarf_abbrev **dense;
  size_t dense_count;
  uint32_t size_key;   /* the unit shape fixed_size was computed for */
} amddwarf_abbrev_table;

/* What attribute values are read against. */
typedef struct amddwarf_form_reader {
  amddwarf_object *object;
  const amddwarf_cu *cu;
  const amddwarf_section *str_offsets;
  amddwarf_error *err;
} amddwarf_form_reader;

/* ---- addresses the object does not know (unknown_addr.c) ---- */

/* Why a symbol gives no address (specs/code-objects.md, "Addresses the
   object does not know"). */
typedef enum amddwarf_unknown_reason {
  AMDDWARF_UNKNOWN_UNDEFINED = 0,  /* SHN_UNDEF in a relocatable object */
  AMDDWARF_UNKNOWN_LINK_UNDEFINED, /* SHN_UNDEF in a linked object */
  AMDDWARF_UNKNOWN_LDS,            /* SHN_AMDGPU_LDS: the loader allocates it */
  AMDDWARF_UNKNOWN_COMMON,         /* SHN_COMMON: no address before the link */
} amddwarf_unknown_reason;

/* An address field of a debug section (a .debug_addr entry, a DW_OP_addr
   operand) whose value comes from a symbol without an address. */
typedef struct amddwarf_unknown_addr {
  uint32_t section;            /* index into object->sections */
  uint8_t reason;              /* amddwarf_unknown_reason */
  uint8_t local;               /* the variable using it is in the local (LDS) space */
  uint64_t offset;             /* of the field in the section */
  const char *symbol;          /* the symbol's name */
  uint8_t variable;            /* a variable's location uses it */
} amddwarf_unknown_addr;

/* A symbol of a linked object without an address, by name. */
typedef struct amddwarf_unresolved_symbol {
  const char *name;
  uint8_t reason;              /* amddwarf_unknown_reason */
} amddwarf_unresolved_symbol;

/* ---- units ---- */

typedef enum amddwarf_unit_state {
  AMDDWARF_UNIT_UNLOADED = 0, /* scanned at open: counts, ranges, convention */
  AMDDWARF_UNIT_WALKED,       /* DIEs summarized, references being resolved */
  AMDDWARF_UNIT_READY,
  AMDDWARF_UNIT_FAILED,       /* FAILURE says why */
} amddwarf_unit_state;

/* A unit's line table with its sequences indexed by address. */
typedef struct amddwarf_line_sequence {
  uint64_t low, high;         /* [low, high): first row to end_sequence */
  uint32_t first_row, end_row;/* rows [first_row, end_row) before the end row */
} amddwarf_line_sequence;

/* What a unit's table keeps of its line program (lines.c). */
struct amddwarf_line_program;

/* One DIE of a unit's compact index (die_index.c): its tree links without
   its attributes, which are read from the section when asked for. */
typedef struct amddwarf_die_record {
  uint32_t offset;            /* from the unit's header */
  uint32_t abbrev;            /* index into its abbreviation table's ALL */
  uint32_t parent;            /* index in the unit; AMDDWARF_NO_RECORD for the unit DIE */
  uint32_t sibling;           /* the next sibling's index, or AMDDWARF_NO_RECORD */
} amddwarf_die_record;
#define AMDDWARF_NO_RECORD UINT32_MAX

/* A DW_TAG_variable child of the unit DIE, found by the open-time scan. */
typedef struct amddwarf_unit_global {
  uint32_t offset;            /* from the unit's header */
  uint32_t index;             /* in the unit */
} amddwarf_unit_global;

/* Scope index entry: a subprogram's range, found by the scan. */
typedef struct amddwarf_scope_entry {
  uint64_t low, high;
  uint64_t die_offset;
  uint32_t cu_index;
  uint32_t die_index;          /* the subprogram's index in its unit */
} amddwarf_scope_entry;

/* What the object knows of one unit beyond its public amddwarf_cu. The DIE
   summaries are made the first time the unit is asked for. */
typedef struct amddwarf_unit {
  uint64_t end;               /* .debug_info offset after the unit */
  size_t abbrev_table;        /* index into object->abbrev_tables */
  size_t first_die;           /* index of its unit DIE among all DIEs, once
                                 every unit is scanned (amddwarf__object_scan_all) */
  uint32_t die_count;         /* counted by the scan */
  /* The unit's scan (unit_scan.c), on first use: DIE_COUNT, the scope
     index, GLOBALS and the convention are valid once it is READY (FAILED:
     FAILURE says why, and no DIE of the unit can be read). */
  _Atomic unsigned char scan_state;
  amddwarf_scope_entry *scopes;  /* its subprograms' ranges, by low address */
  uint64_t *scope_max_high;      /* prefix maximum of scopes[].high */
  size_t scope_count, scope_capacity;
  _Atomic unsigned char state;/* amddwarf_unit_state */
  _Atomic unsigned char lines_state;
  amddwarf_die_info *dies;    /* DIE_COUNT summaries in offset order (public API only) */
  void *pending;              /* references being resolved (die_reader.c) */
  size_t pending_count, pending_capacity;
  amddwarf_error failure;
  amddwarf_line_table lines;
  amddwarf_error lines_failure;
  amddwarf_line_sequence *sequences; /* by low address */
  /* Every 32nd row, and the program offset after it: the rows between are
     read again from there (lines.c). */
  const struct amddwarf_line_program *program;
  amddwarf_line_row *checkpoints;
  uint32_t *checkpoint_pos;
  size_t checkpoint_count;
  size_t sequence_count;
  /* The unit's variables' address fields the object does not know, by
     (section, offset); found on first use (UNKNOWN_STATE READY). */
  _Atomic unsigned char unknown_state;
  const amddwarf_unknown_addr *unknown;
  size_t unknown_count;
  /* Whether every DIE of the unit can be read (unit_verify.c): an
     amddwarf_unit_state, FAILED with VERIFY_FAILURE. */
  _Atomic unsigned char verify_state;
  amddwarf_error verify_failure;
  /* The compact index (die_index.c), built on first use of a DIE reference
     of the unit; INDEX_STATE is an amddwarf_unit_state (READY or FAILED). */
  _Atomic unsigned char index_state;
  amddwarf_die_record *records;  /* DIE_COUNT records in offset order: an array of
                                    its own (RECORDS_OWNED), or in object->records */
  bool records_owned;
  amddwarf_error index_failure;
  amddwarf_unit_global *globals; /* the unit DIE's variables, from the scan */
  size_t global_count, global_capacity;
} amddwarf_unit;

/* Whether UNIT failed at open: none of its DIEs can be read, by summary or
   by reference (its error is unit->failure). */
static inline bool amddwarf__unit_failed_at_open(const amddwarf_unit *unit)
{
  return atomic_load_explicit(&unit->state, memory_order_acquire) == AMDDWARF_UNIT_FAILED &&
         unit->die_count == 0;
}

/* Whether attribute A names the DIE whose attributes A's DIE inherits. */
static inline bool amddwarf__is_origin_attribute(const amddwarf_attribute *a)
{
  return (a->attribute == DW_AT_abstract_origin || a->attribute == DW_AT_specification) &&
         a->value.kind == AMDDWARF_ATTR_REF;
}

/* Display names (demangle.c): open addressing by the address of the DIE
   or symbol they name. */
typedef struct amddwarf_name_slot {
  const void *key;
  const char *name;
} amddwarf_name_slot;

typedef struct amddwarf_name_cache {
  amddwarf_name_slot *slots;
  size_t capacity, count;     /* CAPACITY a power of two, or 0 */
} amddwarf_name_cache;
struct amddwarf_object {
  amddwarf_allocator allocator;
  amddwarf_object_options options;
  amddwarf_arena arena;
  pthread_mutex_t load_lock;  /* serializes the loading of units and lines */
  bool lock_ready;
  const uint8_t *data;
  size_t size;
  void *mapped_data;      /* open_file's mapping of the file, or NULL */
  size_t mapped_size;
  /* A block holding DATA that the object owns (a decompressed bundle,
     amddwarf_object_open_input), freed with its size; or NULL. */
  void *owned_block;
  size_t owned_block_size;
  amddwarf_elf_image elf; /* the ELF header, read once; borrows DATA */
  amddwarf_object_info info;

  amddwarf_section *sections;
  size_t section_count;
  size_t owned_bytes;     /* relocated copies */

  /* The symbols, then the metadata note with the kernels' wave size
     (elf.c), each read on first use: an amddwarf_unit_state (UNLOADED,
     READY or FAILED). */
  _Atomic unsigned char symbols_state, elf_tables_state;
  amddwarf_error symbols_failure, elf_tables_failure;
  bool one_wave_size;     /* the processor runs one wave size (gfx8, gfx9): the
                             note is not needed for it */
  amddwarf_kernel *kernels;
  size_t kernel_count;
  amddwarf_symbol *symbols;
  size_t symbol_count;
  /* Relocatable objects: the debug-section fields relocated against a symbol
     without an address, by (section, offset). Linked objects: the names of
     the symbols without an address (open addressing, index + 1, 0 empty). */
  amddwarf_unknown_addr *unknown_relocs;
  size_t unknown_reloc_count, unknown_reloc_capacity;
  amddwarf_unresolved_symbol *unresolved;
  size_t unresolved_count, unresolved_capacity;
  uint32_t *unresolved_slots;
  size_t unresolved_mask;

  /* DWARF */
  Dwarf_Obj_Access_Interface dw_interface;
  Dwarf_Obj_Access_Methods dw_methods;
  Dwarf_Debug dbg;
  const amddwarf_section *sec_info, *sec_abbrev, *sec_addr, *sec_loc, *sec_loclists,
      *sec_ranges, *sec_rnglists, *sec_line, *sec_str, *sec_line_str, *sec_str_offsets;
  amddwarf_cu *cus;           /* by unit index, in .debug_info order */
  amddwarf_unit *units;       /* parallel to cus */
  size_t cu_count, cu_capacity;
  size_t die_count;           /* every DIE of the units scanned so far */
  /* Every unit's index records, unit by unit (die_index.c): one mapping
     made by amddwarf_object_index_all for the units not indexed yet. */
  amddwarf_die_record *records;
  _Atomic bool all_scanned;   /* every unit scanned, first_die set */
  size_t loaded_die_bytes;    /* summaries made so far */
  size_t indexed_die_bytes;   /* compact index records made so far */
  amddwarf_abbrev_table *abbrev_tables;
  size_t abbrev_table_count, abbrev_table_capacity;
  size_t *abbrev_slots;       /* open addressing by offset: table index + 1 */
  size_t abbrev_slot_count;   /* a power of two, or 0 */
  uint64_t abbrev_bytes_read; /* for the overlap limit (forms.c) */
  /* Open-addressing set of the shared constant attribute values. */
  const amddwarf_attr_value **constants;
  size_t constant_count, constant_capacity;
  /* Call frame information (cfi.c), opened on first use under load_lock;
     once CFI_DONE is set (release), CFI and CFI_STATUS are read without it. */
  struct amddwarf_cfi *cfi;
  _Atomic bool cfi_done;
  amddwarf_status cfi_status;
  amddwarf_error cfi_error;
  /* The decoder of the prologue analyzer (cfi.c), opened on the first FDE
     without instructions; used only under the CFI handle's rows lock. */
  struct amddwarf_disasm *prologue_disasm;
  bool prologue_disasm_done;
  amddwarf_status prologue_disasm_status;
  amddwarf_error prologue_disasm_error;
  amddwarf_name_cache names;     /* demangled names, made under load_lock */
  /* Answers kept for the object's life (memo.c): lists that only grow, a
     list for each hash of the key. */
  _Atomic(struct amddwarf_object_memo *) memos[AMDDWARF_OBJECT_MEMO_LISTS];
  /* The kinds of memos kept (KEY[0], 0: a free entry) and how many of each. */
  _Atomic uint64_t memo_kinds[AMDDWARF_OBJECT_MEMO_KINDS];
  atomic_size_t memo_counts[AMDDWARF_OBJECT_MEMO_KINDS];
  atomic_size_t memo_bytes;      /* of the memos published and their blocks */
  bool memo_limited;             /* MEMO_LIMIT replaces AMDDWARF_OBJECT_MEMOS_MAX */
  size_t memo_limit;
};

/* What attribute values of unit CU are read against. */
static inline amddwarf_form_reader amddwarf_form_reader_make(amddwarf_object *object,
                                                             const amddwarf_cu *cu,
                                                             amddwarf_error *err)
{
  amddwarf_form_reader fr = {object, cu, object->sec_str_offsets, err};
  return fr;
}

/* demangle.c */
void amddwarf__object_free_names(amddwarf_object *object);

/* cfi.c */
void amddwarf__object_free_cfi(amddwarf_object *object);

/* elf.c */
amddwarf_status amddwarf__object_read_elf(amddwarf_object *object, amddwarf_error *err);
const amddwarf_section *amddwarf__object_find_section(const amddwarf_object *object,
                                                     const char *name);
/* Reads the symbol table once. */
amddwarf_status amddwarf__object_ensure_symbols(const amddwarf_object *object,
                                               amddwarf_error *err);
/* The function symbol holding an address (kind KERNEL when it has a NAME.kd
   descriptor), and for a kernel its descriptor's bytes. */
enum { AMDDWARF_KERNEL_DESCRIPTOR_SIZE = 64 };
typedef struct amddwarf__function_at {
  amddwarf_symbol symbol;
  const uint8_t *descriptor;     /* AMDDWARF_KERNEL_DESCRIPTOR_SIZE bytes, or NULL */
} amddwarf__function_at;
/* amddwarf_object_function_symbol_at with the descriptor. */
bool amddwarf__object_function_at(const amddwarf_object *object, uint64_t address,
                                  amddwarf__function_at *out);
void amddwarf__object_free_memos(amddwarf_object *object);
/* Reads the metadata note (and the symbols) once (amddwarf_object_load_metadata). */
amddwarf_status amddwarf__object_ensure_elf_tables(const amddwarf_object *object,
                                                  amddwarf_error *err);
/* The object's info with its wave size and frame base divisor final:
   without reading the note when the processor runs one wave size. */
const amddwarf_object_info *amddwarf__object_wave_info(const amddwarf_object *object);

/* forms.c */
/* The table of .debug_abbrev OFFSET, read once and shared by the units
   that use it: *INDEX into object->abbrev_tables. */
amddwarf_status amddwarf__abbrev_table_get(amddwarf_object *object, uint64_t offset, size_t *index,
                                          amddwarf_error *err);
const amddwarf_abbrev *amddwarf__abbrev_find(const amddwarf_abbrev_table *table, uint64_t code);
/* Computes the abbreviations' fixed_size for units of CU's shape. */
void amddwarf__abbrev_table_prepare(amddwarf_abbrev_table *table, const amddwarf_cu *cu);

void amddwarf__object_free_abbrevs(amddwarf_object *object);
/* Reads the value of attribute SPEC at R into OUT. BASES_ONLY: strings and
   indexed addresses are left unresolved (the unit's bases are not known yet). */
amddwarf_status amddwarf__form_read(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                   const amddwarf_abbrev_attr *spec, amddwarf_attribute *out,
                                   uint64_t die_offset, bool bases_only);
/* Steps R over attribute SPEC without resolving it (fixed sizes in one step). */
amddwarf_status amddwarf__form_skip(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                   const amddwarf_abbrev_attr *spec, uint64_t die_offset);
/* Steps R over the attributes of AB without decoding them. */
amddwarf_status amddwarf__form_skip_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev *ab, uint64_t die_offset);
/* Reads the attributes of AB at R in their encoded order, VISIT seeing
   each until it returns non-zero (then AMDDWARF_END). */
amddwarf_status amddwarf__form_read_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev *ab, uint64_t die_offset,
                                       int (*visit)(void *user, const amddwarf_attribute *a),
                                       void *user);
/* Steps R over the attributes of AB from TABLE: in one step when the
   table's fixed sizes were computed for the shape of FR's unit (tables are
   prepared at open only), else attribute by attribute. */
amddwarf_status amddwarf__form_step_die(const amddwarf_form_reader *fr, amddwarf_reader *r,
                                       const amddwarf_abbrev_table *table,
                                       const amddwarf_abbrev *ab, uint64_t die_offset);
/* Member-wise zeroing of an attribute before a read. */
void amddwarf__attribute_clear(amddwarf_attribute *a, uint16_t at);

/* What a DIE's DW_AT_low_pc and DW_AT_high_pc say. */
typedef struct amddwarf_pc_pair {
  uint64_t low, high;
  bool has_low, has_high, high_is_offset;
} amddwarf_pc_pair;
/* Notes A when it is DW_AT_low_pc or DW_AT_high_pc. */
void amddwarf__pc_pair_note(amddwarf_pc_pair *pc, const amddwarf_attribute *a);
/* What a DIE says of its PCs: its low/high pair and its DW_AT_ranges. */
typedef struct amddwarf_pc_attributes {
  amddwarf_pc_pair pair;
  bool has_ranges;
  uint16_t ranges_form;
  uint64_t ranges_value;
} amddwarf_pc_attributes;
/* An attribute visitor (USER: a zeroed amddwarf_pc_attributes) noting the
   PC attributes. Returns 0: the read goes on. */
int amddwarf__pc_attributes_note(void *user, const amddwarf_attribute *a);
/* The range [low, high) of a DIE of TAG: false when it has none (a label
   with only a low_pc covers one byte). */
bool amddwarf__pc_pair_range(const amddwarf_pc_pair *pc, unsigned tag, amddwarf_range *out);

/* unknown_addr.c */
/* Notes that field OFFSET of section SECTION is relocated against the
   symbol NAME, which has no address for REASON (elf.c, while relocating). */
amddwarf_status amddwarf__object_note_unknown_reloc(amddwarf_object *object, uint32_t section,
                                                   uint64_t offset, const char *name,
                                                   amddwarf_unknown_reason reason,
                                                   amddwarf_error *err);
/* Notes the symbol NAME of a linked object, which has no address for REASON. */
amddwarf_status amddwarf__object_note_unresolved(amddwarf_object *object, const char *name,
                                                amddwarf_unknown_reason reason,
                                                amddwarf_error *err);
/* Sorts and indexes what the two calls above noted (end of amddwarf__object_read_elf). */
amddwarf_status amddwarf__object_index_unknown(amddwarf_object *object, amddwarf_error *err);
/* Finds, once, the variables of unit CU_INDEX whose location starts with
   an address the object does not know (unit->unknown), on DIE references. */
amddwarf_status amddwarf__object_ensure_unknown(const amddwarf_object *object, size_t cu_index,
                                               amddwarf_error *err);
/* The unknown address field of unit CU at OFFSET of SECTION, or NULL. */
const amddwarf_unknown_addr *amddwarf__object_unknown_at(const amddwarf_object *object,
                                                        const amddwarf_cu *cu, uint32_t section,
                                                        uint64_t offset);
/* The unknown address that operation OP of expression BYTES of unit CU
   uses (DW_OP_addr, DW_OP_addrx, DW_OP_constx and their GNU forms), or
   NULL. BYTES must point into a section of OBJECT for DW_OP_addr. */
const amddwarf_unknown_addr *amddwarf__object_unknown_of_op(const amddwarf_object *object,
                                                           const amddwarf_cu *cu,
                                                           const uint8_t *bytes,
                                                           const amddwarf_op *op);
/* Writes why U is not known into BUF: "WHAT comes from the symbol ..." */
void amddwarf__object_describe_unknown(const amddwarf_object *object,
                                      const amddwarf_unknown_addr *u, const char *what, char *buf,
                                      size_t size);
/* The same with WHAT naming the field operation OP uses. */
void amddwarf__object_describe_unknown_op(const amddwarf_object *object,
                                         const amddwarf_unknown_addr *u, const amddwarf_op *op,
                                         char *buf, size_t size);
void amddwarf__object_free_unknown(amddwarf_object *object);

/* unit_verify.c: whether every DIE of unit CU_INDEX can be read (its
   lists, the DIEs its references name), on DIE references; kept. */
amddwarf_status amddwarf__object_verify_unit(const amddwarf_object *object, size_t cu_index,
                                            amddwarf_error *err);

/* unit_scan.c: the open-time pass over .debug_info. */
amddwarf_status amddwarf__object_scan_dwarf(amddwarf_object *object, amddwarf_error *err);
/* Whether an expression or list value uses an extension operation. */
bool amddwarf__object_value_has_extension_op(const amddwarf_object *object, const amddwarf_cu *cu,
                                            const amddwarf_attr_value *v);

/* die_reader.c: the DIE summaries of a unit, made on first use. */
/* The state of unit CU_INDEX, which loading fills in (the object is const to
   its readers, its units are not), or NULL after failing with "unit N does
   not exist". */
amddwarf_unit *amddwarf__object_unit(const amddwarf_object *object, size_t cu_index,
                                     amddwarf_error *err);
amddwarf_status amddwarf__object_ensure_unit(const amddwarf_object *object, size_t cu_index,
                                            amddwarf_error *err);
/* STEP for every unit in order; stops at the first that fails. CALLER
   names the public function for a NULL OBJECT. */
amddwarf_status amddwarf__object_each_unit(const amddwarf_object *object, const char *caller,
                                          amddwarf_status (*step)(const amddwarf_object *object,
                                                                  size_t cu_index,
                                                                  amddwarf_error *err),
                                          amddwarf_error *err);
/* The error of a pass over a unit that finds other DIEs than the open-time
   pass counted (an internal error, still reported). */
amddwarf_status amddwarf__object_unit_changed(amddwarf_error *err, uint64_t off);
/* The unit whose .debug_info range holds OFFSET, or SIZE_MAX. */
size_t amddwarf__object_unit_at(const amddwarf_object *object, uint64_t offset);
/* The DIE at OFFSET of loaded unit CU_INDEX, or NULL. */
const amddwarf_die_info *amddwarf__object_unit_die_at(const amddwarf_object *object,
                                                     size_t cu_index, uint64_t offset);
void amddwarf__object_free_units(amddwarf_object *object);
/* Completes an attribute read for listing: a reference gets its DIE, a
   location list the entries already decoded for DIE. */
void amddwarf__object_link_attribute(const amddwarf_object *object, const amddwarf_die_info *die,
                                    amddwarf_attribute *a);

/* dwarf.c */
/* The attributes of the DIE at OFFSET of unit CU_INDEX in encoded order, as
   libdwarf decodes them. */
amddwarf_status amddwarf__object_libdwarf_attributes(
    const amddwarf_object *object, size_t cu_index, uint64_t offset,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);
/* The same as listed for a caller: by libdwarf with
   AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES, else by the library's reader. */
amddwarf_status amddwarf__object_listed_attributes(
    const amddwarf_object *object, size_t cu_index, uint64_t offset,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);
/* Attributes whose block or list forms are location expressions and lists
   (attribute_class.def). */
bool amddwarf__object_is_location_attribute(unsigned at);
/* Whether A is DW_AT_LLVM_active_lane: 0x3e08 only in an expression or list
   form (LLVM now uses the number for a flag). */
bool amddwarf__is_active_lane_attribute(const amddwarf_attribute *a);
void amddwarf__object_finish_dwarf(amddwarf_object *object);
/* Fills ERR from a libdwarf error, names WHAT, and releases the error. */
amddwarf_status amddwarf__object_dwarf_fail(amddwarf_object *object, Dwarf_Error derr,
                                           amddwarf_error *err, uint64_t offset,
                                           const char *what);

/* lists.c: location and range lists, read from the relocated sections. */
amddwarf_status amddwarf__object_read_loclist(amddwarf_object *object, const amddwarf_cu *cu,
                                             uint16_t form, uint64_t value,
                                             amddwarf_attr_value *out, amddwarf_error *err);
amddwarf_status amddwarf__object_read_ranges(amddwarf_object *object, const amddwarf_cu *cu,
                                            uint16_t form, uint64_t value,
                                            const amddwarf_range **ranges, size_t *count,
                                            amddwarf_error *err);
/* The entry of the location list of FORM/VALUE that applies at PC, by
   amddwarf_attr_value_expr_at's rule, without keeping the list: *FOUND
   false when none applies. */
amddwarf_status amddwarf__object_loclist_at(amddwarf_object *object, const amddwarf_cu *cu,
                                           uint16_t form, uint64_t value, uint64_t pc,
                                           amddwarf_loc_entry *entry, bool *found,
                                           amddwarf_error *err);
/* Reads the location list of FORM/VALUE without keeping it: VISIT sees each
   entry until it returns false. */
amddwarf_status amddwarf__object_visit_loclist(amddwarf_object *object, const amddwarf_cu *cu,
                                              uint16_t form, uint64_t value,
                                              bool (*visit)(void *user,
                                                            const amddwarf_loc_entry *entry),
                                              void *user, amddwarf_error *err);
amddwarf_status amddwarf__object_read_addrx(const amddwarf_object *object, const amddwarf_cu *cu,
                                           uint64_t index, uint64_t *address,
                                           amddwarf_error *err);

/* Where the location list of FORM/VALUE starts in its section (through
   the unit's offsets table for DW_FORM_loclistx). */
amddwarf_status amddwarf__object_loclist_offset(const amddwarf_object *object,
                                               const amddwarf_cu *cu, uint16_t form,
                                               uint64_t value, uint64_t *offset,
                                               amddwarf_error *err);
/* Reads the range list of FORM/VALUE without keeping it: VISIT sees each
   range until it returns false. */
amddwarf_status amddwarf__object_visit_ranges(amddwarf_object *object, const amddwarf_cu *cu,
                                             uint16_t form, uint64_t value,
                                             bool (*visit)(void *user, const amddwarf_range *range),
                                             void *user, amddwarf_error *err);

/* die_index.c: DIE references and each unit's compact index. */
/* The unit whose DIEs include DIE INDEX (among all DIEs), or SIZE_MAX. */
size_t amddwarf__object_unit_of_die(const amddwarf_object *object, size_t index);
amddwarf_status amddwarf__object_ensure_index(const amddwarf_object *object, size_t cu_index,
                                             amddwarf_error *err);
/* Positions R just after the abbreviation code of the DIE at OFFSET of unit
   CU_INDEX (bounded by the unit's end) and finds its abbreviation: the one
   place a DIE's start is read. E_OBJECT_DWARF when the code is truncated or
   names no abbreviation. */
amddwarf_status amddwarf__object_die_abbrev(const amddwarf_object *object, size_t cu_index,
                                           uint64_t offset, amddwarf_reader *r,
                                           const amddwarf_abbrev **abbrev, amddwarf_error *err);
/* Decodes the attributes of the DIE at OFFSET of unit CU_INDEX in their
   encoded order, VISIT seeing each (a reference with its target's offset,
   a list with its section offset, neither resolved further) until
   it returns non-zero (then AMDDWARF_END). */
amddwarf_status amddwarf__object_read_die(const amddwarf_object *object, size_t cu_index,
                                         uint64_t offset,
                                         int (*visit)(void *user, const amddwarf_attribute *a),
                                         void *user, amddwarf_error *err);
void amddwarf__object_free_indexes(amddwarf_object *object);
/* What attribute A says of a DIE's fields (amddwarf_object_die_fields);
   DW_AT_type and the origin's offset go to *TYPE_AT and *ORIGIN_AT. The
   one reading of an attribute into a field, for references and summaries. */
void amddwarf__die_fields_apply(amddwarf_die_fields *f, const amddwarf_attribute *a,
                               uint64_t *type_at, uint64_t *origin_at);

/* The multiplier that divides by LINE_RANGE (1-255) a special opcode's
   adjusted value (0-255): N / LINE_RANGE == (N * it) >> 16 (lines.c). */
static inline uint32_t amddwarf__line_reciprocal(uint8_t line_range)
{
  return (65536u + line_range - 1u) / line_range;
}

/* lines.c: a unit's line table, read on first use. */
amddwarf_status amddwarf__object_ensure_lines(const amddwarf_object *object, size_t cu_index,
                                             amddwarf_error *err);
void amddwarf__object_free_lines(amddwarf_object *object);
/* Runs the line program of unit CU_INDEX without keeping its rows (a
   table already read is walked instead): BEGIN sees its file paths as
   amddwarf_line_table has them (valid until close), then VISIT each row in
   program order; VISIT NULL reads the header and files only. Nothing is
   called for a unit without a line table. */
amddwarf_status amddwarf__object_visit_lines(const amddwarf_object *object, size_t cu_index,
                                            void (*begin)(void *user, const char *const *files,
                                                          size_t file_count),
                                            void (*visit)(void *user,
                                                          const amddwarf_line_row *row),
                                            void *user, amddwarf_error *err);
/* The bytes the rows of the tables read so far take. */
size_t amddwarf__object_line_bytes(const amddwarf_object *object);

/* unit_scan.c: each unit's scan, on first use (the load lock is recursive:
   these may be called with it held). */
void amddwarf__object_ensure_scanned(const amddwarf_object *object, size_t cu_index);
/* Scans every unit, then numbers every DIE (first_die). */
void amddwarf__object_scan_all(const amddwarf_object *object);
/* The same, and each unit neither scanned nor indexed yet gets its compact
   DIE index in the pass of its scan (a whole walk over the DIEs saves the
   index's own pass over each unit). */
void amddwarf__object_scan_all_indexed(const amddwarf_object *object);
/* The records of one unit's index as its scan makes them (scratch reused
   from unit to unit), with the DIE whose children are read and its last
   child so far, per depth. */
typedef struct amddwarf_unit_records {
  amddwarf_die_record *records;
  size_t capacity;
  uint32_t open[AMDDWARF_MAX_DIE_DEPTH + 1];
  uint32_t last[AMDDWARF_MAX_DIE_DEPTH + 2];
} amddwarf_unit_records;
/* die_index.c: unit CU_INDEX, just scanned, takes a copy of RECORDS (its
   DIE_COUNT records) as its index, unless it has one; left without when
   memory runs out (its index is then built on first use). The load lock
   held. */
void amddwarf__object_adopt_index(amddwarf_object *object, size_t cu_index,
                                  const amddwarf_die_record *records);

/* scope.c */
/* Sorts UNIT's subprogram ranges into its PC -> scope index. */
amddwarf_status amddwarf__object_build_scopes(amddwarf_object *object, amddwarf_unit *unit,
                                             amddwarf_error *err);
/* The scope entry of the innermost subprogram range holding PC, or NULL. */
const amddwarf_scope_entry *amddwarf__object_scope_entry_at(const amddwarf_object *object,
                                                           uint64_t pc);

/* ---- conventions and producer quirks (normalize.c, quirks.c) ---- */

/* An operation of KIND with operands A and B (normalize.c). */
amddwarf_op amddwarf__normalize_op(amddwarf_op_kind kind, uint64_t a, uint64_t b);
/* "DW_OP_regx R" of a legacy unit for vector register R: the focused lane's
   dword as a register location (five operations at RES); returns their
   number. */
size_t amddwarf__normalize_lane_register(uint64_t regno, amddwarf_op *res);
/* The quirk of CU (amddwarf_cu.quirks) whose pattern OPS[0..COUNT) is:
   its corrected operations at RES (room for AMDDWARF_QUIRK_MAX_OPS), their
   number in *N; AMDDWARF_QUIRK_NONE when none applies. */
amddwarf_quirk amddwarf__quirk_rewrite(const amddwarf_cu *cu, const amddwarf_op *ops,
                                      size_t count, amddwarf_op *res, size_t *n);

#endif
