/* Debug-information quality: what llvm-dwarfdump --statistics counts, and
 * what it cannot say about GPU code (specs/stats.md).
 *
 * amddwarf_stats_compute walks every unit of an opened code object once,
 * through its DIE references (16 bytes a DIE; no DIE summaries), and keeps:
 *
 *  - the keys and values `llvm-dwarfdump-19 --statistics` prints for the
 *    same file (all but "version", "file" and "format"), by LLVM 19's
 *    definitions, in its order (amddwarf_stats_llvm_*);
 *  - per function (kernels and device functions apart) and per variable:
 *    the bytes of its scope covered by each kind of location (SGPR,
 *    VGPR/AGPR, memory by address space, implicit, composite, undefined),
 *    the bytes covered correctly for every lane, the bytes read by the
 *    legacy convention, through a producer quirk, or from an address the
 *    object leaves undefined; the segments of PC range by kind; whether the
 *    function has call frame information (amddwarf_stats_function).
 *
 * amddwarf_stats_why says why one variable is unavailable at one PC, by a
 * fixed set of reasons (<amddwarf/unavailable.def>) that `eval --explain`
 * and the debugger layer report too. amddwarf_stats_diff matches two
 * builds' functions and variables.
 *
 * Everything returned is owned by the amddwarf_stats (or diff) handle and
 * valid until it is freed; the handle does not need the object afterwards. */
#ifndef AMDDWARF_STATS_H
#define AMDDWARF_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/export.h>
#include <amddwarf/object.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* ---- reasons a variable is unavailable ---- */

typedef enum amddwarf_unavailable {
#define AMDDWARF_UNAVAILABLE(kind, name, description) AMDDWARF_UNAVAILABLE_##kind,
#include <amddwarf/unavailable.def>
#undef AMDDWARF_UNAVAILABLE
  AMDDWARF_UNAVAILABLE_COUNT
} amddwarf_unavailable;

/* "no_location", ... and a sentence; NULL when out of range. Static. */
AMDDWARF_API const char *amddwarf_unavailable_name(amddwarf_unavailable reason);
AMDDWARF_API const char *amddwarf_unavailable_description(amddwarf_unavailable reason);

/* ---- kinds of location ---- */

typedef enum amddwarf_loc_kind {
#define AMDDWARF_LOC_KIND(kind, name, colour, description) AMDDWARF_LOC_##kind,
#include <amddwarf/loc_kinds.def>
#undef AMDDWARF_LOC_KIND
  AMDDWARF_LOC_KIND_COUNT
} amddwarf_loc_kind;

/* "vgpr", ...; "#2ca02c", ...; NULL when out of range. Static. */
AMDDWARF_API const char *amddwarf_loc_kind_name(amddwarf_loc_kind kind);
AMDDWARF_API const char *amddwarf_loc_kind_colour(amddwarf_loc_kind kind);

/* How a location serves a value that differs per lane. */
typedef enum amddwarf_lane_status {
  AMDDWARF_LANE_UNIFORM = 0,  /* a scalar register, memory, a value: right for every lane */
  AMDDWARF_LANE_SELECTED,     /* a vector register with a lane select (DW_OP_LLVM_push_lane) */
  AMDDWARF_LANE_LEGACY,       /* a vector register without a lane, in a legacy unit: the
                                 upstream convention reads the current lane's dword */
  AMDDWARF_LANE_MISSING,      /* a vector register without a lane where the unit's
                                 convention requires one: not correct per lane */
  AMDDWARF_LANE_NONE,         /* no value (undefined) */
} amddwarf_lane_status;

/* Name of LANE: "uniform", "selected", "legacy", "missing", "none"; NULL
   if unknown. */
AMDDWARF_API const char *amddwarf_lane_status_name(amddwarf_lane_status lane);

/* Flags of amddwarf_loc_class.flags and amddwarf_stats_segment.flags. */
enum {
  AMDDWARF_LOC_UNKNOWN_ADDRESS = 1u << 0, /* an address the object leaves undefined */
  AMDDWARF_LOC_QUIRK = 1u << 1,           /* read through a producer quirk */
  AMDDWARF_LOC_ENTRY_VALUE = 1u << 2,     /* uses DW_OP_entry_value */
  AMDDWARF_LOC_UNDECODABLE = 1u << 3,     /* the expression does not decode */
};

/* Name of the flag FLAG (one AMDDWARF_LOC_* bit): "unknown_address",
   "quirk", "entry_value", "undecodable"; NULL for anything else. */
AMDDWARF_API const char *amddwarf_loc_flag_name(uint32_t flag);

/* What a location expression is, statically. */
typedef struct amddwarf_loc_class {
  amddwarf_loc_kind kind;
  amddwarf_lane_status lane;
  uint32_t flags;                /* AMDDWARF_LOC_* */
  uint32_t regno;                /* the register of a register location, else 0 */
} amddwarf_loc_class;

/* Classifies the expression BYTES (SIZE) of unit CU of OBJECT, under the
   unit's convention and format. BYTES must be bytes the object returned
   (an attribute, a list entry) for undefined addresses to be found. An
   expression that does not decode is UNDEFINED with
   AMDDWARF_LOC_UNDECODABLE. */
AMDDWARF_API void amddwarf_loc_classify(const amddwarf_object *object, const amddwarf_cu *cu,
                                        const uint8_t *bytes, size_t size,
                                        amddwarf_loc_class *out);

/* Whether a lane status counts as correct for every lane. */
static inline int amddwarf_lane_status_correct(amddwarf_lane_status lane)
{
  return lane == AMDDWARF_LANE_UNIFORM || lane == AMDDWARF_LANE_SELECTED ||
         lane == AMDDWARF_LANE_LEGACY;
}

/* ---- statistics ---- */

typedef struct amddwarf_stats amddwarf_stats;

enum {
  AMDDWARF_STATS_NO_LLVM = 1u << 0,     /* skip the llvm-dwarfdump keys */
  AMDDWARF_STATS_NO_COVERAGE = 1u << 1, /* skip functions and variables */
  /* Keep every variable (amddwarf_stats_function.vars) and its segments;
     without it a function keeps its sums only (VARS NULL). */
  AMDDWARF_STATS_VARIABLES = 1u << 2,
  /* Compute on the calling thread only (by default the line tables and
     the walk of the last units are on a second thread; the results are
     the same; the keys and the coverage are one walk over the DIEs either
     way). */
  AMDDWARF_STATS_ONE_THREAD = 1u << 3,
  /* Run the prologue analyzer on every function whose FDE has no
     instructions, to tell SYNTHESIZED from NONE (it disassembles the
     function's code: milliseconds a function). Without it such a function
     is NONE: its CFI alone does not unwind it. */
  AMDDWARF_STATS_ANALYZE_PROLOGUES = 1u << 4,
};

typedef struct amddwarf_stats_options {
  uint32_t struct_size;                 /* sizeof(amddwarf_stats_options) */
  uint32_t flags;                       /* AMDDWARF_STATS_* */
} amddwarf_stats_options;

AMDDWARF_API void amddwarf_stats_options_init(amddwarf_stats_options *options);

/* Computes the statistics of OBJECT (OPTIONS may be NULL). Builds the
   compact index of every unit and reads every line table. Errors: a unit
   whose structure cannot be read (its error), E_NO_MEMORY,
   E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_stats_compute(const amddwarf_object *object,
                                                    const amddwarf_stats_options *options,
                                                    amddwarf_stats **out, amddwarf_error *err);
AMDDWARF_API void amddwarf_stats_free(amddwarf_stats *stats);

/* One key of llvm-dwarfdump-19 --statistics. */
typedef struct amddwarf_stats_key {
  const char *key;               /* "#functions", "#bytes in .debug_info", ... */
  uint64_t value;                /* UINT64_MAX: "overflowed" */
} amddwarf_stats_key;

AMDDWARF_API size_t amddwarf_stats_llvm_count(const amddwarf_stats *stats);
/* The value of the key named KEY (as llvm-dwarfdump spells it), 0 when
   STATS has none. */
AMDDWARF_API uint64_t amddwarf_stats_llvm_value(const amddwarf_stats *stats, const char *key);
/* Key INDEX in llvm-dwarfdump's order, or NULL. */
AMDDWARF_API const amddwarf_stats_key *amddwarf_stats_llvm_key(const amddwarf_stats *stats,
                                                              size_t index);

/* A PC range over which a variable has one kind of location. */
typedef struct amddwarf_stats_segment {
  uint64_t low, high;            /* [low, high), within the variable's scope */
  uint8_t kind;                  /* amddwarf_loc_kind */
  uint8_t lane;                  /* amddwarf_lane_status */
  uint16_t flags;                /* AMDDWARF_LOC_* */
} amddwarf_stats_segment;

/* Byte counts of a variable's scope (sums over a function's variables). */
typedef struct amddwarf_stats_coverage {
  uint64_t scope;                /* bytes of the scope */
  uint64_t covered;              /* by a location that is not undefined */
  uint64_t kind[AMDDWARF_LOC_KIND_COUNT]; /* by kind (UNDEFINED included) */
  uint64_t lane_correct;         /* covered correctly for every lane */
  uint64_t legacy;               /* of LANE_CORRECT, by the legacy convention */
  uint64_t lane_missing;         /* a vector register without a lane */
  uint64_t quirk;                /* through a producer quirk (not in LANE_CORRECT) */
  uint64_t unknown_address;      /* an address the object leaves undefined */
} amddwarf_stats_coverage;

typedef struct amddwarf_stats_var {
  const char *name;              /* own, else the origin's; "" when none */
  const char *decl_file;         /* the file's path, or "" */
  uint32_t decl_line;
  uint8_t is_param;
  uint8_t has_location;          /* DW_AT_location or DW_AT_const_value */
  uint16_t inline_depth;         /* inlined subroutines between it and its function */
  uint64_t die_offset;
  const char *inlined_from;      /* the innermost inlined subroutine's name, or NULL */
  const char *inlined_decl_file; /* its declaration ("" when not inlined) */
  uint32_t inlined_decl_line;
  uint32_t call_line;            /* its DW_AT_call_line, 0 when not inlined */
  amddwarf_stats_coverage coverage;
  const amddwarf_range *scope;   /* the ranges of its enclosing scope */
  size_t scope_count;
  const amddwarf_stats_segment *segments; /* by address */
  size_t segment_count;
} amddwarf_stats_var;

/* Call frame information of a function. */
typedef enum amddwarf_stats_cfi {
  AMDDWARF_STATS_CFI_NONE = 0,   /* no FDE, or an FDE without instructions:
                                    a debugger cannot unwind its frames */
  AMDDWARF_STATS_CFI_REAL,       /* an FDE with instructions */
  AMDDWARF_STATS_CFI_SYNTHESIZED,/* rows synthesized from the prologue */
} amddwarf_stats_cfi;

AMDDWARF_API const char *amddwarf_stats_cfi_name(amddwarf_stats_cfi cfi);

typedef struct amddwarf_stats_function {
  const char *name;              /* DW_AT_name (own or origin's), or "" */
  const char *linkage_name;      /* or NULL */
  const char *decl_file;
  uint32_t decl_line;
  uint8_t is_kernel;             /* DW_CC_LLVM_OpenCLKernel, or a kernel symbol at its entry */
  uint8_t cfi;                   /* amddwarf_stats_cfi */
  uint32_t cu_index;
  uint64_t die_offset;
  const amddwarf_range *ranges;
  size_t range_count;
  uint64_t bytes;
  const amddwarf_range *inlined; /* its inlined subroutines' ranges (any depth) */
  size_t inlined_count;
  const amddwarf_stats_var *vars;/* in DIE order; NULL without AMDDWARF_STATS_VARIABLES */
  size_t var_count;              /* its variables and parameters, kept or not */
  amddwarf_stats_coverage coverage; /* sums over VARS */
} amddwarf_stats_function;

AMDDWARF_API size_t amddwarf_stats_function_count(const amddwarf_stats *stats);
AMDDWARF_API const amddwarf_stats_function *amddwarf_stats_function_at(const amddwarf_stats *stats,
                                                                      size_t index);

/* Sums over the functions of a statistics, kernels and device functions
   apart (`amddwarf stats`'s "totals", specs/stats.md). */
typedef struct amddwarf_stats_totals {
  size_t kernels, device_functions;
  size_t cfi[3];                 /* functions by amddwarf_stats_cfi */
  amddwarf_stats_coverage kernel_coverage, device_coverage; /* sums of their coverage */
} amddwarf_stats_totals;

AMDDWARF_API void amddwarf_stats_totals_get(const amddwarf_stats *stats,
                                            amddwarf_stats_totals *out);
/* Adds every count of C to SUM. */
AMDDWARF_API void amddwarf_stats_coverage_add(amddwarf_stats_coverage *sum,
                                              const amddwarf_stats_coverage *c);

/* ---- why a variable is unavailable at a PC ---- */

typedef struct amddwarf_why {
  amddwarf_unavailable reason;
  uint64_t die_offset;           /* the variable, 0 for NOT_IN_SCOPE */
  uint64_t pc;
  amddwarf_loc_class location;   /* of the expression at PC, when one applies */
  /* NO_ENTRY_AT_PC: the nearest list entries before and after PC that have
     a location (HAS_BEFORE / HAS_AFTER say whether there are). */
  int has_before, has_after;
  amddwarf_range before, after;
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
} amddwarf_why;

/* Why the variable NAME innermost in scope at PC has no value there, or
   reason NONE when it has a location. AMDDWARF_OK with *OUT filled
   (NOT_IN_SCOPE when no such variable is in scope); errors: those of
   amddwarf_object_var_refs_at other than NOT_FOUND, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_stats_why(const amddwarf_object *object, const char *name,
                                                uint64_t pc, amddwarf_why *out,
                                                amddwarf_error *err);

/* ---- the difference of two builds ---- */

typedef enum amddwarf_diff_status {
  AMDDWARF_DIFF_MATCHED = 0,
  AMDDWARF_DIFF_DISAPPEARED,     /* in BASE only */
  AMDDWARF_DIFF_APPEARED,        /* in NEW only */
} amddwarf_diff_status;

/* Name of STATUS: "matched", "disappeared", "appeared"; NULL if unknown. */
AMDDWARF_API const char *amddwarf_diff_status_name(amddwarf_diff_status status);

typedef struct amddwarf_diff_var {
  const char *function;          /* the function's name */
  const char *name;
  const char *decl_file;
  uint32_t decl_line;
  const char *inlined_from;      /* NULL when not inlined */
  uint8_t status;                /* amddwarf_diff_status */
  /* Coverage in per mille of the scope (0-1000) in BASE and NEW (0 for the
     side the variable is missing from), and of lane-correct coverage. */
  int32_t base_covered, new_covered;
  int32_t base_lane_correct, new_lane_correct;
} amddwarf_diff_var;

typedef struct amddwarf_diff_function {
  const char *name;
  const char *decl_file;
  uint32_t decl_line;
  uint8_t status;                /* amddwarf_diff_status */
  int32_t base_covered, new_covered; /* per mille of its variables' scopes */
  int32_t base_lane_correct, new_lane_correct;
} amddwarf_diff_function;

typedef struct amddwarf_stats_diff {
  /* Worst first: the largest loss of coverage, then of lane correctness;
     disappeared variables count as a loss of their whole coverage. */
  const amddwarf_diff_var *vars;
  size_t var_count;
  const amddwarf_diff_function *functions; /* worst first */
  size_t function_count;
  void *internal;
} amddwarf_stats_diff;

/* Matches the functions of BASE and NEW by name, declaration file (base
   name) and line, and the variables in them by name, declaration file and
   line. A variable of an inlined subroutine belongs to the function
   inlined (its name and declaration), not to the function it was inlined
   into: the instances of one match, inlined or out of line, are summed,
   and a function's coverage is that of all its variables' instances.
   Both statistics need AMDDWARF_STATS_VARIABLES. *OUT is freed with amddwarf_stats_diff_free. Errors:
   E_NO_MEMORY, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_stats_diff_compute(const amddwarf_stats *base,
                                                         const amddwarf_stats *new_stats,
                                                         amddwarf_stats_diff **out,
                                                         amddwarf_error *err);
AMDDWARF_API void amddwarf_stats_diff_free(amddwarf_stats_diff *diff);

AMDDWARF_END_DECLS

#endif
