/* Internal state of an opened code object, shared by the files of src/object.
 * Only src/object includes libelf and libdwarf. */
#ifndef AMDDWARF_OBJECT_INTERNAL_H
#define AMDDWARF_OBJECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <amddwarf/object.h>

#include "common/arena.h"
#include "common/error.h"

/* LLVM/AMDGPU DWARF extension constants (DESIGN.md section 6). */
#define AMDDWARF_DW_AT_LLVM_ACTIVE_LANE_OLD 0x3e08
#define AMDDWARF_DW_AT_LLVM_AUGMENTATION_OLD 0x3e09
#define AMDDWARF_DW_AT_LLVM_LANES_OLD 0x3e0a
#define AMDDWARF_DW_AT_LLVM_LANE_PC_OLD 0x3e0b
#define AMDDWARF_DW_AT_LLVM_VECTOR_SIZE_OLD 0x3e0c
#define AMDDWARF_DW_AT_LLVM_MEMORY_SPACE 0x3e0f
#define AMDDWARF_DW_AT_LLVM_ADDRESS_SPACE 0x3e10
#define AMDDWARF_DW_AT_LLVM_LANES 0x3e11
#define AMDDWARF_DW_AT_LLVM_LANE_PC 0x3e12
#define AMDDWARF_DW_AT_LLVM_VECTOR_SIZE 0x3e13
/* Current codes of active_lane and augmentation are not assigned by the seed;
   LLVM reuses 0x3e08/0x3e09 for other attributes, so they are only read as
   these when the unit otherwise uses the extension convention. */

/* One section as handed to libdwarf: index 0 is the ELF null section. */
typedef struct amddwarf_section {
  const char *name;
  uint64_t address;
  uint64_t size;
  uint64_t type;
  uint64_t link, info, entsize;
  const uint8_t *data;    /* file bytes, or the relocated copy */
  uint8_t *owned;         /* the relocated copy (object allocator), or NULL */
  bool is_debug;
} amddwarf_section;

/* Scope index entry: a subprogram's range (top-level scopes only). */
typedef struct amddwarf_scope_entry {
  uint64_t low, high;
  const amddwarf_die_info *die;
} amddwarf_scope_entry;

/* A unit-level variable found by the walk, with its unit's index. */
typedef struct amddwarf_unit_global {
  const amddwarf_die_info *die;
  size_t cu_index;
} amddwarf_unit_global;

struct amddwarf_object {
  amddwarf_allocator allocator;
  amddwarf_object_options options;
  amddwarf_arena arena;
  const uint8_t *data;
  size_t size;
  uint8_t *owned_data;    /* open_file's copy */
  Elf *elf;
  amddwarf_object_info info;

  amddwarf_section *sections;
  size_t section_count;
  size_t owned_bytes;     /* relocated copies */

  amddwarf_kernel *kernels;
  size_t kernel_count;
  amddwarf_symbol *symbols;
  size_t symbol_count;

  /* DWARF */
  Dwarf_Obj_Access_Interface dw_interface;
  Dwarf_Obj_Access_Methods dw_methods;
  Dwarf_Debug dbg;
  const amddwarf_section *sec_info, *sec_abbrev, *sec_addr, *sec_loc, *sec_loclists,
      *sec_ranges, *sec_rnglists, *sec_line, *sec_str, *sec_line_str;
  amddwarf_cu *cus;
  size_t cu_count, cu_capacity;
  amddwarf_die_info **dies;    /* in offset order */
  size_t die_count, die_capacity;
  uint64_t *die_offsets;      /* dies[i]->offset, a compact search key */
  size_t die_offset_capacity;
  /* References recorded by the walk, resolved once every DIE exists. */
  void *pending_refs;
  size_t pending_ref_count, pending_ref_capacity;
  /* The DW_TAG_subprogram DIEs, in offset order (the scope index's input). */
  const amddwarf_die_info **subprograms;
  size_t subprogram_count, subprogram_capacity;
  /* The DW_TAG_variable children of unit DIEs, in offset order. */
  amddwarf_unit_global *globals;
  size_t global_count, global_capacity;
  /* The walked unit's DIE indexes by offset - its first DIE's offset
     (UINT32_MAX: no DIE starts there): references resolve in one load. */
  uint32_t *unit_map;
  size_t unit_map_capacity;
  /* Open-addressing set of the shared constant attribute values. */
  const amddwarf_attr_value **constants;
  size_t constant_count, constant_capacity;
  void *abbrev_tables;        /* die_reader.c's tables, kept for attribute listing */
  size_t abbrev_table_count, abbrev_table_capacity;
  size_t *cu_abbrev;          /* by unit index: index into abbrev_tables */
  size_t cu_abbrev_capacity;
  amddwarf_line_table *lines; /* by unit index (rows NULL when none) */
  size_t lines_count, lines_capacity;
  amddwarf_scope_entry *scopes;
  uint64_t *scope_max_high; /* prefix maximum of scopes[].high */
  /* Per unit: the variables that are direct children of the unit DIE. */
  const amddwarf_die_info ***unit_vars;
  size_t *unit_var_counts;
  size_t scope_count;
};

/* elf.c */
amddwarf_status amddwarf_object_read_elf(amddwarf_object *object, amddwarf_error *err);
const amddwarf_section *amddwarf_object_find_section(const amddwarf_object *object,
                                                     const char *name);

/* die_reader.c */
amddwarf_status amddwarf_object_read_dwarf(amddwarf_object *object, amddwarf_error *err);

void amddwarf_object_free_abbrevs(amddwarf_object *object);
/* Releases the walk's temporary tables (pending references, subprograms). */
void amddwarf_object_free_walk_state(amddwarf_object *object);
/* Completes an attribute read for listing: a reference gets its DIE, a
   location list the entries already decoded for DIE. */
void amddwarf_object_link_attribute(const amddwarf_object *object, const amddwarf_die_info *die,
                                    amddwarf_attribute *a);
amddwarf_status amddwarf_object_native_attributes(
    const amddwarf_object *object, const amddwarf_die_info *die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);

/* dwarf.c */
amddwarf_status amddwarf_object_libdwarf_attributes(
    const amddwarf_object *object, const amddwarf_die_info *die,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err);
/* Attributes whose block or list forms are location expressions. */
bool amddwarf_object_is_location_attribute(unsigned at);
void amddwarf_object_finish_dwarf(amddwarf_object *object);
/* Fills ERR from a libdwarf error, names WHAT, and releases the error. */
amddwarf_status amddwarf_object_dwarf_fail(amddwarf_object *object, Dwarf_Error derr,
                                           amddwarf_error *err, uint64_t offset,
                                           const char *what);

/* lists.c: location and range lists, read from the relocated sections. */
amddwarf_status amddwarf_object_read_loclist(amddwarf_object *object, const amddwarf_cu *cu,
                                             uint16_t form, uint64_t value,
                                             amddwarf_attr_value *out, amddwarf_error *err);
amddwarf_status amddwarf_object_read_ranges(amddwarf_object *object, const amddwarf_cu *cu,
                                            uint16_t form, uint64_t value,
                                            const amddwarf_range **ranges, size_t *count,
                                            amddwarf_error *err);
amddwarf_status amddwarf_object_read_addrx(const amddwarf_object *object, const amddwarf_cu *cu,
                                           uint64_t index, uint64_t *address,
                                           amddwarf_error *err);

/* lines.c */
amddwarf_status amddwarf_object_read_lines(amddwarf_object *object, amddwarf_cu *cu,
                                           amddwarf_error *err);

/* scope.c */
amddwarf_status amddwarf_object_build_scopes(amddwarf_object *object, amddwarf_error *err);

#endif
