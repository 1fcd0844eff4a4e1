/* What the statistics files of src/object share: one DIE's facts as the
 * statistics read them, read through the unit's compact index, and the
 * handle's contents. */
#ifndef AMDDWARF_OBJECT_STATS_INTERNAL_H
#define AMDDWARF_OBJECT_STATS_INTERNAL_H

#include <amddwarf/stats.h>

#include "object/internal.h"

/* DW_CC_LLVM_OpenCLKernel: clang's calling convention of a kernel. */
#define AMDDWARF_DW_CC_LLVM_OPENCL_KERNEL 0xb3

/* The attributes of one DIE that the statistics look at (own attributes;
   stats_die_find follows origins for the inherited ones). */
typedef struct stats_die {
  uint64_t offset;
  uint32_t cu_index;
  uint16_t tag;
  bool has_name, has_linkage, has_decl_file, has_decl_line, has_type;
  bool artificial, declaration, has_inline, has_call_file, has_call_line;
  bool has_const_value, has_location, has_ranges, has_cc;
  const char *name, *linkage;
  uint64_t decl_file, decl_line, call_line, cc;
  amddwarf_attr_value location;  /* EXPR or LIST (else has_location with no value) */
  uint64_t origin, specification;/* absolute offsets, 0 when absent */
  uint64_t origin_raw;           /* DW_AT_abstract_origin as encoded (unit-relative for ref1-8) */
  bool has_origin;
  amddwarf_pc_pair pc;
  uint16_t ranges_form;
  uint64_t ranges_value;
} stats_die;

/* Reads the DIE at OFFSET of unit CU_INDEX (whose index is built). */
amddwarf_status amddwarf__stats_die_read(const amddwarf_object *object, size_t cu_index,
                                         uint64_t offset, stats_die *out, amddwarf_error *err);
/* Reads the DIE at absolute OFFSET in whatever unit holds it: false when
   no DIE starts there. */
bool amddwarf__stats_die_at(const amddwarf_object *object, uint64_t offset, stats_die *out);

/* Which attribute stats_die_find looks for. */
typedef enum stats_inherited {
  STATS_NAME, STATS_LINKAGE, STATS_DECL_FILE, STATS_DECL_LINE, STATS_TYPE,
} stats_inherited;
/* Like LLVM's findRecursively: the DIE itself, then what its
   DW_AT_specification and DW_AT_abstract_origin name (8 steps at most).
   Returns the DIE that has it (for its unit): DIE itself, or SCRATCH read
   from elsewhere; NULL when none. */
const stats_die *amddwarf__stats_die_find(const amddwarf_object *object, const stats_die *die,
                                          stats_inherited what, stats_die *scratch);

/* The ranges of DIE (low/high pc or DW_AT_ranges), appended to *RANGES
   (COUNT, CAPACITY; the object's allocator). False when its range list
   cannot be read. */
bool amddwarf__stats_die_ranges(const amddwarf_object *object, const stats_die *die,
                                amddwarf_range **ranges, size_t *count, size_t *capacity);

/* Each unit's file names, read on first use. */
typedef struct stats_files {
  const amddwarf_allocator *allocator;
  const char *const **files;     /* by unit */
  size_t *counts;
  uint8_t *known;
  size_t unit_count;
} stats_files;

bool amddwarf__stats_files_init(stats_files *cache, const amddwarf_object *object);
void amddwarf__stats_files_free(stats_files *cache);
/* The path of file FILE of unit CU_INDEX's line table, or NULL. The unit's
   file names are read once (without its rows). */
const char *amddwarf__stats_file_name(stats_files *cache, const amddwarf_object *object,
                                      size_t cu_index, uint64_t file);
/* Reads the file names of every unit now. */
void amddwarf__stats_files_load_all(stats_files *cache, const amddwarf_object *object);
/* Notes the file names of unit CU_INDEX (valid until the object closes). */
void amddwarf__stats_note_files(stats_files *cache, size_t cu_index, const char *const *files,
                                size_t count);

/* ---- the GPU coverage (stats_coverage.c), fed by a walk over the DIEs ----
 *
 * One walk gives both parts: the walk of the llvm-dwarfdump keys
 * (stats_llvm.c) tells the coverage each concrete function, scope and
 * variable it reads, so that no DIE is read twice; without the keys the
 * coverage walks the units itself (amddwarf__stats_coverage). */
typedef struct stats_cov stats_cov;

/* Where a variable is: the ranges of its innermost scope that has ranges
   (the arena's copy), and the inlined subroutine it is in. */
typedef struct stats_cov_scope {
  const amddwarf_range *ranges;
  size_t count;
  uint16_t inline_depth;
  const char *inlined_from;      /* NULL when not inlined */
  const char *inlined_decl_file;
  uint32_t inlined_decl_line, call_line;
} stats_cov_scope;

/* A coverage builder for STATS. FILES: the walk's cache of file names, or
   NULL for one of its own. NULL when memory runs out. */
stats_cov *amddwarf__stats_cov_new(const amddwarf_object *object, amddwarf_stats *stats,
                                   uint32_t flags, stats_files *files, amddwarf_error *err);
/* Frees COV; returns the first error it met (or AMDDWARF_OK). */
amddwarf_status amddwarf__stats_cov_free(stats_cov *cov);
amddwarf_status amddwarf__stats_cov_status(const stats_cov *cov);

/* The concrete subprogram DIE, whose ranges are RANGES, begins (a
   function nested in another suspends it): false when it has no ranges,
   and then it is no function of the statistics and nothing in it counts.
   *SCOPE is the scope of its children. */
bool amddwarf__stats_cov_function_begin(stats_cov *cov, const stats_die *die,
                                        const amddwarf_range *ranges, size_t count,
                                        stats_cov_scope *scope);
/* The function begun last ends: it is added to the statistics. */
void amddwarf__stats_cov_function_end(stats_cov *cov);
/* A lexical block or inlined subroutine DIE, whose own ranges are RANGES,
   inside *SCOPE: *SCOPE becomes the scope of its children. False when
   memory runs out. */
bool amddwarf__stats_cov_enter(stats_cov *cov, const stats_die *die, const amddwarf_range *ranges,
                               size_t count, stats_cov_scope *scope);

/* One variable or parameter of the current function, being counted. */
typedef struct stats_cov_var {
  stats_cov *cov;
  const amddwarf_cu *cu;
  const stats_cov_scope *scope;
  size_t first_segment;
  amddwarf_stats_var var;
} stats_cov_var;

/* DIE (not a declaration) in SCOPE: counts its constant or single
   expression; a location list's entries are then given one by one to
   amddwarf__stats_cov_var_entry (by the walk that visits the list), and
   amddwarf__stats_cov_var_end adds the variable. */
void amddwarf__stats_cov_var_begin(stats_cov *cov, const stats_die *die,
                                   const stats_cov_scope *scope, stats_cov_var *var);
bool amddwarf__stats_cov_var_entry(void *var, const amddwarf_loc_entry *entry);
void amddwarf__stats_cov_var_end(stats_cov_var *var, const stats_die *die);

/* Whether the coverage looks past a DIE of TAG outside functions (no
   concrete function is inside a type). */
bool amddwarf__stats_cov_skips_outside(unsigned tag);

/* TOTAL + VALUE, staying at UINT64_MAX ("overflowed") once there. */
static inline void amddwarf__stats_sat_add(uint64_t *total, uint64_t value)
{
  if (*total != UINT64_MAX)
    *total = *total < UINT64_MAX - value ? *total + value : UINT64_MAX;
}

/* A table keyed by (owner, string): the identifiers of functions and
   variables, the paths of line tables (stats.c). */
typedef struct str_slot {
  const char *key;       /* NULL: empty */
  uint64_t hash;
  uint32_t owner, value;
} str_slot;

typedef struct str_table {
  const amddwarf_allocator *allocator;
  amddwarf_arena *arena;
  str_slot *slots;
  size_t mask, count;
  bool failed;
} str_table;

/* The value of (OWNER, KEY of N bytes); when absent, inserts it (KEY
   copied into the table's arena) with NEW_VALUE and sets *ADDED.
   UINT32_MAX when memory runs out (and FAILED is set). */
uint32_t amddwarf__stats_table_get(str_table *t, uint32_t owner, const char *key, size_t n,
                                   uint32_t new_value, bool *added);
void amddwarf__stats_table_free(str_table *t);

/* The line-table numbers of llvm-dwarfdump --statistics (stats_lines.c). */
typedef struct stats_line_counts {
  uint64_t bytes, zero_bytes, entries, stmt_entries, unique, unique_nonzero;
} stats_line_counts;
/* Counts the line table of every unit into *OUT (a unit whose table
   cannot be read is left out, as LLVM does). FILES, when not NULL, notes
   each unit's file names. Errors: E_NO_MEMORY. */
amddwarf_status amddwarf__stats_lines(const amddwarf_object *object, stats_files *files,
                                      stats_line_counts *out, amddwarf_error *err);

/* Computes the llvm-dwarfdump keys into STATS (stats_llvm.c), and unless
   FLAGS has AMDDWARF_STATS_NO_COVERAGE the coverage in the same walk. */
amddwarf_status amddwarf__stats_llvm(const amddwarf_object *object, amddwarf_stats *stats,
                                     uint32_t flags, amddwarf_error *err);
/* Computes the functions and variables into STATS without the keys: the
   coverage's own walk (stats_coverage.c). */
amddwarf_status amddwarf__stats_coverage(const amddwarf_object *object, amddwarf_stats *stats,
                                         uint32_t flags, amddwarf_error *err);

struct amddwarf_stats {
  amddwarf_allocator allocator;
  amddwarf_arena arena;
  amddwarf_stats_key *keys;
  size_t key_count, key_capacity;
  amddwarf_stats_function *functions;
  size_t function_count, function_capacity;
  amddwarf_arena key_arena;      /* the keys' names: the llvm pass's own */
  amddwarf_arena part_arena;     /* the strings of the functions walked on a second thread */
};

/* Appends KEY = VALUE (KEY copied into the arena). */
amddwarf_status amddwarf__stats_add_key(amddwarf_stats *stats, const char *key, uint64_t value,
                                        amddwarf_error *err);

#endif
