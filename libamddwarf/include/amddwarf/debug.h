/* The debugger layer: a stopped wave over one or more code objects and the
 * raw target of the stop; its lanes; its frames, inlined subroutines
 * included, each an evaluation context; the variables of a frame; and typed
 * values of C-subset paths per lane, with their children, text, structure,
 * explanation and writes (specs/debug-api.md).
 *
 * It is to <amddwarf/object.h>, <amddwarf/eval.h> and <amddwarf/cfi.h> what
 * libdwfl is to libdw: a debugger backend gives it registers and memory
 * (through an amddwarf_target holding only the "raw" callbacks: registers,
 * memory, focused lane, wave size, EXEC, apertures) and the code objects; the
 * layer supplies the rest of the target itself (DIEs, base types,
 * .debug_addr, the frame base, the CFA and entry values of each frame).
 *
 * Threads: an amddwarf_object may be shared by any number of waves on any
 * number of threads. An amddwarf_wave, and every value made from it, belongs
 * to one thread at a time; separate waves are independent.
 *
 * Lifetimes: the objects and the raw target (and what its user pointer
 * reaches) are borrowed and must outlive the wave. Frames, variables and
 * lane tables returned by the wave live until amddwarf_wave_close. Texts and
 * bytes of a value read stay valid until the next read of the same value or
 * amddwarf_valobj_free.
 *
 * Writes: a write through the layer (amddwarf_valobj_assign_lanes,
 * amddwarf_wave_write_register, amddwarf_wave_write_memory) may change
 * what the lanes and frames are computed from, so the wave computes them
 * again on next use: amddwarf_wave_lanes' table is updated in place, and
 * amddwarf_wave_frame and the lists made from frames give new ones. What
 * was obtained before stays valid until close and describes the wave as it
 * was (a value keeps reading through the frame it was made in); ask again
 * for the wave as it is. */
#ifndef AMDDWARF_DEBUG_H
#define AMDDWARF_DEBUG_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/cfi.h>
#include <amddwarf/eval.h>
#include <amddwarf/export.h>
#include <amddwarf/object.h>
#include <amddwarf/stats.h>
#include <amddwarf/status.h>
#include <amddwarf/target.h>

AMDDWARF_BEGIN_DECLS

enum { AMDDWARF_MAX_LANES = 64 };

/* ---- A stopped wave ------------------------------------------------------ */

typedef struct amddwarf_wave amddwarf_wave;

typedef struct amddwarf_wave_options {
  uint32_t struct_size;      /* sizeof(amddwarf_wave_options) */
  uint32_t max_frames;       /* physical frames unwound at most [256] */
  int has_pc;                /* nonzero: PC below is frame 0's PC, not the target's PC_64 */
  uint64_t pc;
  /* The call frame information to unwind with (borrowed, outlives the
     wave); NULL: that of the object holding the PC (amddwarf_object_cfi). */
  amddwarf_cfi *cfi;
  /* The evaluator of every evaluation the wave makes (borrowed, outlives
     the wave, used by one thread at a time); NULL: the wave makes its own.
     A backend visiting many waves in turn saves making one per wave. */
  amddwarf_eval *eval;
  const amddwarf_allocator *allocator; /* NULL: malloc */
  /* Optional: the caller's registers as the backend knows them, for frames
     whose rows are synthesized from prologues (amddwarf_unwinder_options'
     caller_register, which says how it is called); they take precedence
     over the synthesized rules and the frame is marked backend_registers. */
  amddwarf_status (*caller_register)(void *user, size_t index, uint64_t pc, uint32_t regno,
                                     uint64_t offset, uint64_t size, void *buf);
  void *caller_register_user;
  /* Where the code objects are loaded in the process (borrowed, read at
     open): LOAD_ADDRESSES[i] is the process address of OBJECTS[i]'s
     address 0, as amd-dbgapi reports it. NULL: the objects are not loaded
     and every PC is an object address (the first object holding it). With
     them every PC of the wave (the target's, options.pc, return addresses,
     lane PCs) is a process address: the object is the one whose loaded
     extent (amddwarf_object_extent) holds it, and the wave and its frames
     map to object addresses for the DWARF and the CFI, and back. */
  const uint64_t *load_addresses;
  /* The wave's processor ("gfx90a"; NULL or "": unknown). With
     LOAD_ADDRESSES, a processor other than the wave's object's is refused
     (E_WAVE_MISMATCH). */
  const char *architecture;
  /* Lanes that stand at the wave's PC though inactive: a debugger showing a
     group of diverged lanes where they wait opens a wave at their lane PC
     (HAS_PC) and names them here; a backend that knows its code does not
     diverge names the masked lanes. They are read there (and marked
     inactive). 0: only the lanes whose lane PC is the wave's PC. */
  uint64_t lanes_at_pc;
} amddwarf_wave_options;

AMDDWARF_API void amddwarf_wave_options_init(amddwarf_wave_options *options);

/* Opens the wave that RAW describes, in the code objects OBJECTS[0..COUNT)
   (borrowed; COUNT >= 1). The object whose subprograms contain the wave's
   PC is the wave's object (the first one when none does). RAW's DIE,
   frame-base, CFA, base-type, address-index and entry-register callbacks
   are ignored: the layer provides them. OPTIONS may be NULL. Errors:
   E_INVALID_ARGUMENT, E_NO_MEMORY, the target's error reading the PC
   (E_UNSUPPORTED when it has no read_register); E_WAVE_MISMATCH when the
   target's wave size is one the code of the object holding the PC cannot
   run at (amddwarf_object_check_wave); with load addresses, also
   E_PC_NOT_LOADED (the PC lies in no object's loaded extent: the message
   lists them) and E_WAVE_MISMATCH when options.architecture is not that
   object's processor. */
AMDDWARF_API amddwarf_status amddwarf_wave_open(const amddwarf_object *const *objects,
                                                size_t count, const amddwarf_target *raw,
                                                const amddwarf_wave_options *options,
                                                amddwarf_wave **out, amddwarf_error *err);
/* Releases WAVE and everything obtained from it but values (free those
   first). NULL is allowed. */
AMDDWARF_API void amddwarf_wave_close(amddwarf_wave *wave);

typedef struct amddwarf_wave_info {
  uint64_t pc;                   /* frame 0's PC */
  uint32_t wave_size;            /* 32 or 64 */
  uint64_t exec;                 /* EXEC (all lanes when the target has none) */
  const amddwarf_object *object; /* the object holding the PC */
  size_t object_index;           /* its index in OBJECTS */
  uint64_t load_address;         /* where OBJECT is loaded (0 without load addresses) */
  uint64_t object_pc;            /* PC - LOAD_ADDRESS: the PC in OBJECT's addresses */
} amddwarf_wave_info;

AMDDWARF_API const amddwarf_wave_info *amddwarf_wave_get_info(const amddwarf_wave *wave);

/* The lane in focus (the target's focused lane at open, 0 without one), and
   changing it: E_INVALID_ARGUMENT for a lane at or past the wave size. */
AMDDWARF_API uint32_t amddwarf_wave_focus(const amddwarf_wave *wave);
AMDDWARF_API amddwarf_status amddwarf_wave_set_focus(amddwarf_wave *wave, uint32_t lane);

/* Sends every operation and target access of the evaluations the wave makes
   from now on (lanes, frames' rules, values) to TRACE (NULL: none), as
   amddwarf_eval_request.trace does. */
AMDDWARF_API void amddwarf_wave_set_trace(amddwarf_wave *wave, amddwarf_trace_fn trace,
                                          void *user);

/* ---- Loaded code objects ------------------------------------------------ */

/* The object among OBJECTS[0..COUNT), OBJECTS[i] loaded at
   LOAD_ADDRESSES[i], whose loaded extent (amddwarf_object_extent moved by
   its load address) holds the process address ADDRESS: its index in
   *INDEX and ADDRESS in its own addresses in *OBJECT_ADDRESS. The first
   such object when extents overlap. AMDDWARF_NOT_FOUND when none holds it;
   E_INVALID_ARGUMENT for a NULL argument. */
AMDDWARF_API amddwarf_status amddwarf_loaded_object_at(const amddwarf_object *const *objects,
                                                       const uint64_t *load_addresses,
                                                       size_t count, uint64_t address,
                                                       size_t *index,
                                                       uint64_t *object_address);

/* Whether a wave of processor ARCHITECTURE (a name amddwarf_isa_info_by_name
   knows; NULL or "": unknown) and WAVE_SIZE lanes (0: unknown) can run
   OBJECT's code. E_WAVE_MISMATCH, the message naming both: another
   processor (not checked when the ISA table does not know the object's,
   such as a generic target); a wave size the object has no code for
   (processors before GFX10 run wave64 only; later ones the
   .wavefront_size of the object's kernels, either when it has none). */
AMDDWARF_API amddwarf_status amddwarf_object_check_wave(const amddwarf_object *object,
                                                        const char *architecture,
                                                        uint32_t wave_size,
                                                        amddwarf_error *err);

/* The wave's object holding PC (a process address when the wave has load
   addresses): its index among the wave's objects and the PC in its own
   addresses. Without load addresses, the first object whose subprograms
   contain PC, and *OBJECT_PC = PC. AMDDWARF_NOT_FOUND when none. A
   debugger maps every PC it shows a place for (lane PCs, return addresses)
   through it. */
AMDDWARF_API amddwarf_status amddwarf_wave_object_at(const amddwarf_wave *wave, uint64_t pc,
                                                     size_t *index, uint64_t *object_pc);

/* Where a PC is in the source, as every view of a wave shows it. */
typedef struct amddwarf_place {
  const amddwarf_object *object; /* the object holding the PC */
  size_t object_index;           /* its index among the wave's objects */
  uint64_t object_pc;            /* the PC in OBJECT's own addresses */
  const char *function;          /* the innermost function at the PC
                                    (amddwarf_object_function_name), NULL unknown */
  int inlined;                   /* FUNCTION is an inlined subroutine */
  int has_row;                   /* a line-table row covers the PC: */
  const char *file;              /* its file as the table names it (NULL unknown), */
  uint32_t line, column;         /* line (0: code no source line produced) and column */
} amddwarf_place;

/* The place of PC (a process address when the wave has load addresses):
   in the object loaded where PC is; without load addresses, in the first
   of the wave's objects whose line table covers PC or whose functions hold
   it. NOT_FOUND (and *OUT zeroed) when no object knows PC;
   E_INVALID_ARGUMENT for NULL arguments. */
AMDDWARF_API amddwarf_status amddwarf_wave_place(const amddwarf_wave *wave, uint64_t pc,
                                                 amddwarf_place *out);

/* The last component of PLACE's file ("histo.cl"), or NULL when unknown. */
AMDDWARF_API const char *amddwarf_place_file_name(const amddwarf_place *place);

/* ---- Lanes --------------------------------------------------------------- */

typedef struct amddwarf_lane {
  uint8_t active;                /* in the active mask */
  uint8_t pc_known;              /* PC below is known */
  uint64_t pc;
  amddwarf_status pc_status;     /* why the PC is not known: E_EVAL_OPTIMIZED_OUT
                                    (inactive and no lane_pc), or the evaluation's error */
} amddwarf_lane;

/* Where the active lanes come from. */
typedef enum amddwarf_active_from {
  AMDDWARF_ACTIVE_FROM_EXEC = 0,        /* the wave's EXEC register */
  AMDDWARF_ACTIVE_FROM_ACTIVE_LANE = 1  /* the innermost DW_AT_LLVM_active_lane */
} amddwarf_active_from;

/* Where the lane PCs come from. */
typedef enum amddwarf_lane_pc_from {
  AMDDWARF_LANE_PC_FROM_WAVE_PC = 0,    /* active lanes stand at the wave PC */
  AMDDWARF_LANE_PC_FROM_LANE_PC = 1     /* the innermost DW_AT_LLVM_lane_pc, per lane */
} amddwarf_lane_pc_from;

typedef struct amddwarf_lanes {
  uint32_t wave_size;
  uint32_t active_count;         /* lanes in ACTIVE_MASK: the one count every view shows */
  uint64_t active_mask;
  amddwarf_active_from active_from;
  amddwarf_lane_pc_from pc_from;
  amddwarf_lane lanes[AMDDWARF_MAX_LANES];
} amddwarf_lanes;

/* Names of a source. TEXT is for people ("EXEC", "DW_AT_LLVM_active_lane",
   "the wave PC", "DW_AT_LLVM_lane_pc"); KEY is the enumeration name of the
   JSON output ("exec", "DW_AT_LLVM_active_lane", "wave_pc",
   "DW_AT_LLVM_lane_pc"). Static strings; "?" for a value outside the enum. */
AMDDWARF_API const char *amddwarf_active_from_text(amddwarf_active_from from);
AMDDWARF_API const char *amddwarf_active_from_key(amddwarf_active_from from);
AMDDWARF_API const char *amddwarf_lane_pc_from_text(amddwarf_lane_pc_from from);
AMDDWARF_API const char *amddwarf_lane_pc_from_key(amddwarf_lane_pc_from from);

/* Where every lane is: the DW_AT_LLVM_lane_pc (under its old or new code)
   of the innermost scope at the PC that has one, evaluated per lane, else
   the wave PC for active lanes; active lanes from the innermost
   DW_AT_LLVM_active_lane, else EXEC. Computed on first use and again after
   a write through the layer (the table is updated in place), valid until
   close. Errors: E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_wave_lanes(amddwarf_wave *wave,
                                                 const amddwarf_lanes **out,
                                                 amddwarf_error *err);

/* Forgets the lanes amddwarf_wave_lanes computed, so that the next call
   reads them again: after a write that a backend made through its own
   target, outside the layer, that may change them (EXEC, a register or
   memory DW_AT_LLVM_active_lane or DW_AT_LLVM_lane_pc reads). The layer's
   own writes do this themselves. Frames are not recomputed. Errors:
   E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_wave_lanes_refresh(amddwarf_wave *wave,
                                                         amddwarf_error *err);

/* Lanes that share a PC: MASK holds them; PC_KNOWN 0 groups the lanes whose
   PC is unknown. */
typedef struct amddwarf_lane_group {
  uint64_t mask;
  uint8_t pc_known;
  uint64_t pc;
} amddwarf_lane_group;

/* Groups LANES by PC in the order of each group's lowest lane. Writes at
   most CAPACITY groups, the number of groups to *COUNT (at most 64). */
AMDDWARF_API void amddwarf_lanes_group_by_pc(const amddwarf_lanes *lanes,
                                             amddwarf_lane_group *groups, size_t capacity,
                                             size_t *count);

/* Parses a lane list as a user writes it: comma-separated items, each a
   lane ("7"), a range ("0-3"), "all" (every lane of the wave) or "active"
   (LANES->active_mask), spaces allowed around items ("0-3, 7, active").
   Sets *MASK to the union. Errors: E_INVALID_ARGUMENT with ERR naming the
   item and ERR.offset its byte offset in TEXT: an item that is none of
   these, a lane at or past the wave size, a backwards range, or a list
   that names no lane (AMDDWARF_NO_OFFSET; "active" when none is). */
AMDDWARF_API amddwarf_status amddwarf_lanes_parse(const amddwarf_lanes *lanes, const char *text,
                                                  uint64_t *mask, amddwarf_error *err);

/* Spells the lanes of MASK below WAVE_SIZE as amddwarf_lanes_parse reads
   them: runs as ranges, in lane order ("0-3,8,10-12"; "" for none). Writes
   at most BUF_SIZE bytes to BUF (NUL-terminated when BUF_SIZE > 0; 256
   always suffice) and returns the full length. */
AMDDWARF_API size_t amddwarf_lanes_spell(uint64_t mask, uint32_t wave_size, char *buf,
                                         size_t buf_size);

/* The lanes of WAVE as a debugger's `lanes` command prints them: a header
   naming the wave size, PC and the sources of amddwarf_wave_lanes, one
   character per lane ('#' active, '.' inactive), then one line per group
   of amddwarf_lanes_group_by_pc with the PC, "FILE:LINE:COLUMN in
   FUNCTION" (from the first of the wave's objects whose line table covers
   the PC), the lane count and the lanes (amddwarf_lanes_spell); lanes
   whose PC is unknown last as "- (inactive, PC unknown)". Writes at most
   BUF_SIZE bytes to BUF (NUL-terminated when BUF_SIZE > 0) and the full
   length to *LENGTH (may be NULL). Errors: those of amddwarf_wave_lanes,
   E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_wave_lanes_table(amddwarf_wave *wave, char *buf,
                                                       size_t buf_size, size_t *length,
                                                       amddwarf_error *err);

/* ---- Frames -------------------------------------------------------------- */

/* A frame as a debugger shows it: a physical frame of the CFI unwind, or
   one of the inlined subroutines it is executing (those come first, the
   innermost inline first, and share the physical frame's registers). */
typedef struct amddwarf_frame {
  size_t index;                  /* 0 = innermost */
  size_t physical;               /* index of the physical (CFI) frame */
  uint32_t inline_depth;         /* 0: the physical frame's function; N: the Nth
                                    inlined subroutine counted from the function */
  uint64_t pc;                   /* frame 0: its PC; callers: the return address */
  uint64_t lookup_pc;            /* PC for locations and lines: pc, or pc - 1 for
                                    callers (the call site) */
  /* The CFA and the CFI row are computed on first use:
     amddwarf_wave_frame_cfa, amddwarf_wave_frame_row. */
  const amddwarf_object *object; /* the object holding lookup_pc, or NULL */
  amddwarf_die_ref function;     /* DW_TAG_subprogram or DW_TAG_inlined_subroutine;
                                    not valid (amddwarf_die_ref_valid) when no DWARF
                                    covers the PC */
  const char *function_name;     /* its name as a debugger shows it
                                    (amddwarf_object_function_name: the demangled
                                    linkage name, else DW_AT_name; the origin's for
                                    inlines); without DWARF, the function or kernel
                                    symbol holding the PC (demangled); else NULL */
  /* The source position: for the innermost frame of a physical frame, the
     line row at lookup_pc; for an outer frame of the inline chain, the call
     site of the inlined subroutine it called. FILE is NULL when unknown. */
  const char *file;
  uint32_t line, column;
  /* The scopes of this frame in amddwarf_object_scope_refs_at order:
     SCOPES[0..SCOPE_COUNT), innermost first, ending at FUNCTION for an
     inline's frame and at the unit DIE for the function's own frame. */
  const amddwarf_die_ref *scopes;
  size_t scope_count;
  size_t scope_base;             /* the index of SCOPES[0] among the physical frame's
                                    scopes: amddwarf_var.depth counts from there */
  /* How this frame was found: ROW->synthesized (its own rules come from the
     prologue analyzer, specs/cfi.md), and whether its caller-facing
     registers came from the callee's synthesized rules (unwound_by_prologue)
     or from the backend's caller_register callback (backend_registers). */
  bool unwound_by_prologue;
  bool backend_registers;
  /* LOOKUP_PC in OBJECT's own addresses: the address of every DWARF and CFI
     look-up (scopes, lines, location lists). PC and LOOKUP_PC are process
     addresses when the wave's objects are loaded (load addresses given),
     and then OBJECT_PC = LOOKUP_PC - LOAD_ADDRESS; without, the same. */
  uint64_t object_pc;
  uint64_t load_address;         /* where OBJECT is loaded (0 without load addresses) */
} amddwarf_frame;

/* Frame INDEX, unwinding as far as needed. AMDDWARF_OK with *OUT;
   AMDDWARF_END when the wave has fewer frames (the walk ended normally: the
   outermost return address is undefined); an unwinding error (ERR says why:
   E_CFI_NO_FDE, E_CFI_UNWIND_LOOP, E_CFI_UNEVALUABLE, E_LIMIT) when the walk
   stopped before INDEX. *OUT is valid until close. */
AMDDWARF_API amddwarf_status amddwarf_wave_frame(amddwarf_wave *wave, size_t index,
                                                 const amddwarf_frame **out,
                                                 amddwarf_error *err);

/* Reads SIZE bytes at byte OFFSET of register REGNO as frame INDEX sees it
   (frame 0 and its inlines: the target's; callers: unwound). Errors:
   E_EVAL_UNAVAILABLE (the CFI does not restore the register: it never reads
   as the inner frame's value), NOT_FOUND (no such frame), the unwinder's. */
AMDDWARF_API amddwarf_status amddwarf_wave_read_register(amddwarf_wave *wave, size_t frame,
                                                         uint32_t regno, uint64_t offset,
                                                         uint64_t size, void *buf,
                                                         amddwarf_error *err);

/* Writes SIZE bytes of BUF at byte OFFSET of register REGNO of frame INDEX
   (the innermost physical frame and its inlines: the target's registers).
   A vector register's dwords of inactive lanes (lane L's at L * 4) are
   refused (E_INVALID_ARGUMENT naming the lanes) unless FLAGS has
   AMDDWARF_ASSIGN_INACTIVE. Writing the PC (DWARF 16) or the wave's EXEC
   (17 in a wave64, 1 in a wave32) moves the wave: amddwarf_wave_get_info
   gives the new pc and exec, and its object, frames and lanes follow
   (specs/debug-api.md, "Writing pc and exec"). Errors: E_UNSUPPORTED (a
   caller's frame, whose registers the CFI places; pc_32, or exec_lo of a
   wave64; a target without write_register), E_INVALID_ARGUMENT (bytes past
   the register; EXEC naming lanes past the wave), E_PC_NOT_LOADED (a PC no
   loaded object holds), E_WAVE_MISMATCH (a PC in an object of another wave
   size), NOT_FOUND (no such frame or register), the target's. Once the
   target is called, the lanes and frames are computed again on next use
   (see "Writes" above). */
AMDDWARF_API amddwarf_status amddwarf_wave_write_register(amddwarf_wave *wave, size_t frame,
                                                          uint32_t regno, uint64_t offset,
                                                          uint64_t size, const void *buf,
                                                          unsigned flags, amddwarf_error *err);

/* One register of the set a debugger shows for a wave. */
typedef struct amddwarf_wave_register {
  uint32_t regno;      /* DWARF number, in the wave size's EXEC and VGPR ranges */
  char name[16];       /* assembler name: "pc", "exec", "s33", "v7" */
  uint32_t size;       /* bytes of one value: 8 for pc and wave64's exec, else 4 */
  int per_lane;        /* a vector register: lane L's value at byte offset L * SIZE */
  int always_listed;   /* pc and exec: shown even when the target cannot read them;
                          a debugger lists the others only when they read */
} amddwarf_wave_register;

/* The registers a debugger shows for WAVE, by INDEX below
   amddwarf_wave_register_count: pc, exec, s0-s105, v0-v255, numbered by
   the AMDGPU DWARF register map for the wave's size. Read them with
   amddwarf_wave_read_register. NOT_FOUND past the end. */
AMDDWARF_API size_t amddwarf_wave_register_count(const amddwarf_wave *wave);
AMDDWARF_API amddwarf_status amddwarf_wave_register_get(const amddwarf_wave *wave, size_t index,
                                                        amddwarf_wave_register *out);

/* Frame INDEX's canonical frame address, computed on first call (it needs
   the frame's CFI row, and a function whose FDE has no rules gets its row
   synthesized from the prologue, which loads the instruction decoder).
   Errors: those of amddwarf_wave_frame; E_EVAL_UNAVAILABLE when no CFI row
   covers the frame's PC or its CFA rule cannot be evaluated. */
AMDDWARF_API amddwarf_status amddwarf_wave_frame_cfa(amddwarf_wave *wave, size_t index,
                                                     uint32_t *aspace, uint64_t *cfa,
                                                     amddwarf_error *err);

/* Frame INDEX's CFI row at its lookup_pc, looked up on first call; NULL when
   there is no such frame or no row covers the PC. Valid until close. */
AMDDWARF_API const amddwarf_cfi_row *amddwarf_wave_frame_row(amddwarf_wave *wave, size_t index);

/* The full target of frame INDEX (raw callbacks, unwound registers, the
   frame's DIEs, frame base, CFA and entry values), for evaluating its
   expressions with amddwarf_eval_expr; its location lists apply at the
   frame's lookup_pc. NULL when there is no such frame. Valid until close. */
AMDDWARF_API const amddwarf_target *amddwarf_wave_frame_target(amddwarf_wave *wave,
                                                               size_t frame);

/* ---- Variables ----------------------------------------------------------- */

/* A variable or parameter of a frame: its DIE reference and location at
   the frame's lookup PC (amddwarf_object_var_refs_at), and what a debugger
   lists of it, read from its DIE (and its DW_AT_abstract_origin or
   DW_AT_specification chain for the name and declaration, as a DIE
   summary inherits them). */
typedef struct amddwarf_frame_var {
  amddwarf_var_ref ref;          /* die, scope, depth, available, expr/size, entry */
  const char *name;              /* DW_AT_name, NULL when none; valid until close */
  uint16_t tag;                  /* DW_TAG_variable or DW_TAG_formal_parameter */
  uint8_t global;                /* declared in the unit DIE */
  uint8_t has_const_value;       /* its own DW_AT_const_value */
  uint32_t decl_file, decl_line; /* 0 when unknown; DECL_FILE indexes the line
                                    table of the unit of REF.die */
} amddwarf_frame_var;

/* The variables and parameters visible in frame INDEX at its lookup_pc:
   those of its own scopes, innermost first, then the unit's globals (as
   amddwarf_object_var_refs_at, whose depth indexes the physical frame's
   scopes). Reads the DIEs of the subprogram holding the PC, never the
   unit's summaries. *VARS is valid until close. Errors: as
   amddwarf_wave_frame, and the unit's read errors. A frame without DWARF
   has no variables (OK, 0). */
AMDDWARF_API amddwarf_status amddwarf_wave_variables(amddwarf_wave *wave, size_t frame,
                                                     const amddwarf_frame_var **vars,
                                                     size_t *count, amddwarf_error *err);

/* The innermost variable named NAME of frame INDEX: OK with *OUT, or
   NOT_FOUND with ERR naming the PC and, when an outer frame of the same
   inline chain has one (amddwarf_wave_variable_frame), that frame: "no
   variable 'pr' in scope at pc 0x1234; frame 1 (hip_kernel) has one". */
/* The nearest frame outside FRAME, among the frames of FRAME's inline chain
   (the ones sharing its physical frame: no unwinding), that lists a
   variable named NAME: OK with *FOUND, else NOT_FOUND. A debugger points
   there when NAME is not in scope at an inlined PC. */
AMDDWARF_API amddwarf_status amddwarf_wave_variable_frame(amddwarf_wave *wave, size_t frame,
                                                          const char *name, size_t *found);

AMDDWARF_API amddwarf_status amddwarf_wave_find_variable(amddwarf_wave *wave, size_t frame,
                                                         const char *name,
                                                         const amddwarf_frame_var **out,
                                                         amddwarf_error *err);

/* ---- The variables a frame lists ------------------------------------------ */

/* Which list of a debugger a variable belongs to. */
typedef enum amddwarf_listed_kind {
  AMDDWARF_LISTED_LOCAL = 0,     /* DW_TAG_variable of one of the frame's scopes */
  AMDDWARF_LISTED_ARGUMENT = 1,  /* DW_TAG_formal_parameter */
  AMDDWARF_LISTED_GLOBAL = 2,    /* a variable of the frame's unit */
} amddwarf_listed_kind;

typedef struct amddwarf_listed_variable {
  const char *name;              /* as listed, distinct in the frame: the DIE's name,
                                    or for one that an earlier (inner) listed variable
                                    of its name shadows, "x @ file.cl:12" (the base
                                    name of its DW_AT_decl_file and its decl line;
                                    "x @ scope N" without a decl line) */
  const char *path_name;         /* the DIE's name, as a path spells it */
  amddwarf_listed_kind kind;
  amddwarf_die_ref die;          /* the variable's DIE: for one declared only in an
                                    abstract origin, the origin's */
  const amddwarf_frame_var *var; /* its entry of amddwarf_wave_variables (for
                                    amddwarf_valobj_new_var), or NULL when the frame's
                                    scope does not declare it (MISSING says why) */
  size_t var_index;              /* VAR's index there; SIZE_MAX when VAR is NULL */
  uint32_t scope;                /* index in the frame's SCOPES */
  int shadowed;                  /* a path's NAME finds another variable: reach this
                                    one through VAR */
  const char *missing;           /* NULL, or why it has no value: an inlined routine
                                    declares it only in its abstract origin (the
                                    optimized code kept no trace of it) and a debugger
                                    shows it as <optimized out> */
} amddwarf_listed_variable;

/* The variables frame FRAME lists, in the order a debugger shows them: the
   frame's scopes innermost first, each with its variables and parameters in
   DIE order and then those its abstract origin declares that it does not
   (as gdb lists them: optimized out), then the unit's globals. Unnamed
   variables are left out. *LIST is valid until close. Errors: those of
   amddwarf_wave_variables, E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_wave_frame_variables(amddwarf_wave *wave, size_t frame,
                                                           const amddwarf_listed_variable **list,
                                                           size_t *count, amddwarf_error *err);

/* The variable that frame FRAME lists as LISTED_NAME ("x", "x @ k.cl:12"):
   OK with *OUT, or NOT_FOUND ("frame 0 lists no variable 'y'"); the errors
   of amddwarf_wave_frame_variables. O(log n) after the first listing. */
AMDDWARF_API amddwarf_status amddwarf_wave_frame_variable_find(
    amddwarf_wave *wave, size_t frame, const char *listed_name,
    const amddwarf_listed_variable **out, amddwarf_error *err);

/* ---- Memory --------------------------------------------------------------- */

/* Reads SIZE bytes at ADDRESS of address space ASPACE (DW_ASPACE_*) of
   WAVE's target, mapped as the evaluator maps a location's address:
   private_lane<N> is private_lane of lane N; a generic address goes through
   the target's apertures (when it gives them) to global, local or
   private_lane; private_lane reads lane LANE (AMDDWARF_NO_LANE: the focused
   lane); private_wave is the swizzled view of every lane's private memory
   (target.h). LANE is AMDDWARF_NO_LANE for a space without lanes. Reading
   an inactive lane's memory is allowed: memory does not depend on the PC.
   OK with all SIZE bytes; else the status of the failed read, ERR naming
   the space as given and as mapped ("generic 0x2000000000001000 =
   private_lane memory of lane 3 at 0x1000: the target reads 4 of 16 bytes
   (E_EVAL_UNAVAILABLE)"), with the readable prefix in BUF and its length in
   *READABLE (may be NULL). Errors: E_INVALID_ARGUMENT (no such space, a
   lane given for a space without lanes, or two different lanes),
   E_AMDGPU_BAD_LANE (a lane past the wave), E_UNSUPPORTED (the target has
   no read_memory), the target's. */
AMDDWARF_API amddwarf_status amddwarf_wave_read_memory(amddwarf_wave *wave, uint32_t aspace,
                                                       uint32_t lane, uint64_t address,
                                                       uint64_t size, void *buf,
                                                       uint64_t *readable, amddwarf_error *err);

/* Parses an address-space-qualified address, "[SPACE:[LANE:]]ADDRESS"
   (specs/dap.md, "Memory references"): "0x1000" (global), "local:0x100",
   "private_lane:5:0x40", "private_lane5:0x40", "private_wave:0x800"; SPACE
   a name of amddwarf_aspace_lookup, numbers decimal or 0x hex. *ASPACE is
   the space as named (private_lane<N> stays private_lane<N>), *LANE the
   lane given for a per-lane space, else AMDDWARF_NO_LANE: arguments for
   amddwarf_wave_read_memory, which checks the lane against a wave.
   E_INVALID_ARGUMENT, ERR saying what is wrong ("private_lane memory needs
   a lane: private_lane:LANE:ADDRESS", "no address space 'lds' (...)"). */
AMDDWARF_API amddwarf_status amddwarf_memory_ref_parse(const char *text, uint32_t *aspace,
                                                       uint32_t *lane, uint64_t *address,
                                                       amddwarf_error *err);

/* Writes SIZE bytes of BUF as amddwarf_wave_read_memory reads them. The
   memory of an inactive lane (private_lane of that lane, or a private_wave
   dword that belongs to it) is refused with E_INVALID_ARGUMENT naming the
   lanes unless FLAGS has AMDDWARF_ASSIGN_INACTIVE, as for values: the lane
   stands at its own PC and may keep what the caller means elsewhere.
   Nothing is written on an error. Errors: as the read, E_UNSUPPORTED (no
   write_memory), the target's. Once the target is called, the lanes and
   frames are computed again on next use (see "Writes" above). */
AMDDWARF_API amddwarf_status amddwarf_wave_write_memory(amddwarf_wave *wave, uint32_t aspace,
                                                        uint32_t lane, uint64_t address,
                                                        uint64_t size, const void *buf,
                                                        unsigned flags, amddwarf_error *err);

/* ---- Values -------------------------------------------------------------- */

/* The DW_AT_const_value of DIE (a variable or parameter of OBJECT) printed
   by DIE's type, as a value read from it prints (`amddwarf eval`): "2" for
   a float constant whose bits are 0x40000000, "{1, 2}" for a block holding
   an int[2]; a string form quoted. Writes at most BUF_SIZE bytes to BUF
   (NUL-terminated when BUF_SIZE > 0) and returns the full length; 0 (and
   "") when DIE has no DW_AT_const_value. */
AMDDWARF_API size_t amddwarf_const_value_text(const amddwarf_object *object,
                                              amddwarf_die_ref die, char *buf,
                                              size_t buf_size);

typedef struct amddwarf_valobj amddwarf_valobj;

/* What a value is, by its type (typedefs and qualifiers stripped). */
typedef enum amddwarf_value_kind {
  AMDDWARF_VALUE_KIND_SCALAR = 0,   /* base type */
  AMDDWARF_VALUE_KIND_ENUM,
  AMDDWARF_VALUE_KIND_POINTER,      /* pointers, and "&E" results */
  AMDDWARF_VALUE_KIND_STRUCT,       /* struct, class */
  AMDDWARF_VALUE_KIND_UNION,
  AMDDWARF_VALUE_KIND_ARRAY,
  AMDDWARF_VALUE_KIND_VECTOR,       /* an ext_vector_type array */
  AMDDWARF_VALUE_KIND_OTHER,
} amddwarf_value_kind;

typedef struct amddwarf_valobj_info {
  const char *path;              /* the path, normalized ("s.x", "a[3]") */
  const char *type_name;         /* C spelling ("int *", "float4") */
  amddwarf_value_kind kind;
  uint64_t byte_size;            /* of the value read */
  uint64_t bit_size;             /* bits read: byte_size * 8, or a bitfield's width */
  const amddwarf_frame_var *variable; /* the variable the path starts from */
  /* Children: struct members (NAMED_CHILDREN), array elements
     (INDEXED_CHILDREN, the count of the outer dimension; 0 for an array of
     unknown extent), the pointee of a pointer (1 named child "*"). */
  size_t named_children;
  size_t indexed_children;
  int assignable;                /* a scalar, enum, pointer or bitfield */
  int shadowed;                  /* VARIABLE is hidden by an inner variable of its
                                    name: PATH given to amddwarf_valobj_new names
                                    that one (amddwarf_valobj_new_var) */
  /* The producer quirk the variable's location at the PC is read through
     (amddwarf_object_expr_quirk), AMDDWARF_QUIRK_NONE when it is read as
     written; QUIRK_NAME is amddwarf_quirk_get(QUIRK)->name, or NULL. */
  amddwarf_quirk quirk;
  const char *quirk_name;
} amddwarf_valobj_info;

/* The value of PATH (specs/eval-paths.md: NAME, .M, ->M, [I], *, &, (),
   vector components) in frame FRAME of WAVE. Its types are checked now,
   before any lane is read. Errors: E_INVALID_ARGUMENT (PATH does not parse:
   ERR.offset is the byte offset in PATH where it stops; or an operator its
   operand's type does not allow, or an index out of bounds: ERR.offset is
   AMDDWARF_NO_OFFSET and the message names the subexpression), NOT_FOUND
   (no such frame, variable or member), E_UNSUPPORTED, the errors of
   amddwarf_wave_variables. */
AMDDWARF_API amddwarf_status amddwarf_valobj_new(amddwarf_wave *wave, size_t frame,
                                                 const char *path, amddwarf_valobj **out,
                                                 amddwarf_error *err);
/* The value of VAR, one of the variables amddwarf_wave_variables gave for
   frame FRAME of WAVE: the way to reach a variable that an inner one of the
   same name shadows, which a path's NAME never finds. PATH NULL: VAR
   itself; else a path as for amddwarf_valobj_new whose NAME is VAR's
   ("s.x" for VAR s), its operators applied to VAR. The value's children
   (amddwarf_valobj_child) are VAR's too. Errors: E_INVALID_ARGUMENT (VAR is
   not one of the frame's variables or has no name, PATH does not parse or
   starts at another name), those of amddwarf_valobj_new. */
AMDDWARF_API amddwarf_status amddwarf_valobj_new_var(amddwarf_wave *wave, size_t frame,
                                                     const amddwarf_frame_var *var,
                                                     const char *path, amddwarf_valobj **out,
                                                     amddwarf_error *err);
/* amddwarf_valobj_new_var for variable VAR_INDEX of amddwarf_wave_variables
   (amddwarf_listed_variable.var_index): for a debugger that keeps an index
   where it cannot keep a pointer. Errors: NOT_FOUND (the frame has fewer
   variables), those of amddwarf_valobj_new_var. */
AMDDWARF_API amddwarf_status amddwarf_valobj_new_indexed(amddwarf_wave *wave, size_t frame,
                                                         size_t var_index, const char *path,
                                                         amddwarf_valobj **out,
                                                         amddwarf_error *err);
/* Where VALUE's first byte is in memory for LANE (AMDDWARF_NO_LANE: the
   focused lane): *ASPACE (DW_ASPACE_*, as the location names it: a generic
   address stays generic; private_lane<N> becomes private_lane with
   *ADDRESS_LANE N), *ADDRESS_LANE (the lane of a private_lane address, else
   AMDDWARF_NO_LANE) and *ADDRESS, ready for amddwarf_wave_read_memory.
   Errors: NOT_FOUND (the value is in a register, implicit, composite or a
   bit field: "'x' is not at a byte in memory in lane 0 (its location is
   register)"), E_INVALID_ARGUMENT (no such lane), the lane's location
   error (optimized out, unavailable). */
AMDDWARF_API amddwarf_status amddwarf_valobj_address(amddwarf_valobj *value, uint32_t lane,
                                                     uint32_t *aspace, uint32_t *address_lane,
                                                     uint64_t *address, amddwarf_error *err);
AMDDWARF_API void amddwarf_valobj_free(amddwarf_valobj *value);
/* Valid until amddwarf_valobj_free. */
AMDDWARF_API const amddwarf_valobj_info *amddwarf_valobj_get_info(const amddwarf_valobj *value);
/* The variable's location at the frame's PC as the unit spells it
   ("DW_OP_regx VGPR1, ..."), "DW_AT_const_value", or "no location at pc
   0x..."; "" when out of memory. Spelled on the first call (a debugger
   lists values by the thousand and shows few locations); valid until
   amddwarf_valobj_free. */
AMDDWARF_API const char *amddwarf_valobj_location(const amddwarf_valobj *value);

/* What one lane's read gave. OPTIMIZED_OUT and UNAVAILABLE are results, not
   failures of the call. */
typedef enum amddwarf_lane_state {
  AMDDWARF_LANE_VALUE = 0,          /* TEXT and BYTES hold the value */
  AMDDWARF_LANE_OPTIMIZED_OUT = 1,  /* no location at the PC, or undefined storage */
  AMDDWARF_LANE_UNAVAILABLE = 2,    /* the target cannot read the storage, or
                                       (STATUS E_EVAL_NO_PRIVATE_SEGMENT) it is
                                       private memory in a kernel that has none:
                                       not read (amddwarf_object_private_possible) */
  AMDDWARF_LANE_ERROR = 3,          /* STATUS and MESSAGE say why */
  AMDDWARF_LANE_INACTIVE = 4,       /* the lane is not active (amddwarf_wave_lanes)
                                       and stands at its own lane PC, not the
                                       wave's, where the frame's location need not
                                       be the variable's (specs/debug-api.md,
                                       "Inactive lanes"); not read. MESSAGE gives
                                       the lane's PC */
} amddwarf_lane_state;

/* What stands for a lane without a value, as every view shows it:
   "<optimized out>", "<unavailable>", "<error>", "<inactive>"; "" for
   AMDDWARF_LANE_VALUE and "?" outside the enum. Static strings. */
AMDDWARF_API const char *amddwarf_lane_state_text(amddwarf_lane_state state);

typedef struct amddwarf_lane_value {
  uint32_t lane;
  amddwarf_lane_state state;
  amddwarf_status status;           /* OK, or the status behind STATE */
  const char *text;                 /* the value printed as `amddwarf eval` does
                                       ("{x = 1, y = <optimized out>}"), or "" */
  const char *message;              /* why, when STATE is not VALUE ("" for VALUE) */
  int detailed;                     /* nonzero: MESSAGE says more than STATE itself
                                       (a debugger shows "<unavailable> (MESSAGE)");
                                       zero: STATE alone is what to show */
  const char *explain;              /* where each bit came from */
  const uint8_t *bytes;             /* BYTE_SIZE bytes read (NULL unless VALUE) */
  size_t size;
  /* Why the lane has no value, by the reasons `amddwarf stats --why` gives
     (<amddwarf/unavailable.def>): NONE for a value and for an ERROR that is
     no reason of the data (a bad expression, memory exhausted). */
  amddwarf_unavailable reason;
  /* The lane is inactive: STATE INACTIVE (not read), or, when its lane PC
     is the wave's PC (a wave opened at a diverged lane's PC), read there
     and marked. */
  int inactive;
} amddwarf_lane_value;

/* The one text of a lane's read, which `amddwarf eval`, `amddwarf vars`
   and the debug adapter show: the value's TEXT; STATE's text
   (amddwarf_lane_state_text) alone, or followed by " (MESSAGE)" when
   DETAILED; for ERROR, "<error: MESSAGE (STATUS)>" with the status's name;
   then " <inactive>" for a lane read although INACTIVE is set.
   Writes at most BUF_SIZE bytes to BUF (NUL-terminated when BUF_SIZE > 0)
   and returns the full length, as snprintf. */
AMDDWARF_API size_t amddwarf_lane_value_text(const amddwarf_lane_value *value, char *buf,
                                             size_t buf_size);

/* Reads the value for LANE (AMDDWARF_NO_LANE: the focused lane). Returns OK
   with *OUT (also for OPTIMIZED_OUT, UNAVAILABLE and per-lane ERROR), or
   E_INVALID_ARGUMENT (no such lane), E_NO_MEMORY. *OUT's strings and bytes
   are valid until the next read of VALUE. */
AMDDWARF_API amddwarf_status amddwarf_valobj_read(amddwarf_valobj *value, uint32_t lane,
                                                  amddwarf_lane_value *out,
                                                  amddwarf_error *err);

/* The bytes of VALUE for every lane of LANES, read as amddwarf_valobj_read
   reads them but without making any text: for a backend that wants the raw
   values of many lanes (a whole-GPU stop, a watch comparing them) and
   prints few. Lane L's BYTE_SIZE bytes (amddwarf_valobj_info) go to
   BYTES + L * STRIDE, zeros for a lane that does not read as a value;
   STATES[L] (STATES NULL: not wanted; else AMDDWARF_MAX_LANES entries)
   receives the lane's state, and amddwarf_valobj_read of that lane says
   why. The bits a partly known aggregate lacks read as zeros. Errors:
   E_INVALID_ARGUMENT (BYTES NULL, STRIDE below BYTE_SIZE, a lane past the
   wave size), E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_valobj_read_bytes(amddwarf_valobj *value, uint64_t lanes,
                                                        void *bytes, size_t stride,
                                                        amddwarf_lane_state *states,
                                                        amddwarf_error *err);

/* Whether two lane reads show the same thing: the same state, status,
   detail, inactive mark and text, and the same message where amddwarf_lane_value_text
   shows it (ERROR, or DETAILED); not the lane, bytes or explanation. The one
   rule by which lanes are grouped by value (amddwarf_valobj_read_lanes,
   `amddwarf eval --lanes`, the adapter's per-lane nodes). */
AMDDWARF_API int amddwarf_lane_values_equal(const amddwarf_lane_value *a,
                                            const amddwarf_lane_value *b);

/* A set of lanes whose reads agree (amddwarf_lane_values_equal). */
typedef struct amddwarf_value_group {
  uint64_t mask;
  amddwarf_lane_value value;        /* the lowest lane's */
} amddwarf_value_group;

/* Reads every lane of LANES and groups equal results, in the order of each
   group's lowest lane. Writes at most CAPACITY groups and the count to
   *COUNT (at most 64). Valid until the next read of VALUE. */
AMDDWARF_API amddwarf_status amddwarf_valobj_read_lanes(amddwarf_valobj *value, uint64_t lanes,
                                                        amddwarf_value_group *groups,
                                                        size_t capacity, size_t *count,
                                                        amddwarf_error *err);

/* Child INDEX of VALUE: named children first (in declaration order), then
   indexed ones. *OUT is a new value (free it); its path is VALUE's with the
   member, index or "*" applied ("s.x", "a[3]", "*p"): a debugger's
   evaluate-name. Errors: E_INVALID_ARGUMENT (no such child), those of
   amddwarf_valobj_new. */
AMDDWARF_API amddwarf_status amddwarf_valobj_child(amddwarf_valobj *value, size_t index,
                                                   amddwarf_valobj **out, amddwarf_error *err);

/* Flags of amddwarf_valobj_assign_lanes. */
enum {
  /* Write inactive lanes too (amddwarf_wave_lanes): the storage the frame's
     location names for them, which the lane reads when it runs this code. */
  AMDDWARF_ASSIGN_INACTIVE = 1u << 0,
};

/* Assigns TEXT to VALUE for every lane of LANES: an integer (decimal, 0x,
   negative), a float for float types, true/false, an enumerator's name, or
   a pointer's address. All-or-nothing: every lane's location is evaluated
   and checked first, and a failed target write restores what was written.
   Errors: E_INVALID_ARGUMENT (TEXT does not fit the type, the value is not
   assignable), E_EVAL_WRITE_UNDEFINED / E_EVAL_WRITE_READONLY (the location
   cannot be written), E_EVAL_OPTIMIZED_OUT, the target's write errors.
   An inactive lane in LANES is refused (E_INVALID_ARGUMENT, naming the
   lanes) unless FLAGS has AMDDWARF_ASSIGN_INACTIVE. Once a lane is written,
   the wave's lanes and frames are computed again on next use (see "Writes"
   above); VALUE still reads through its frame, the new value included. */
AMDDWARF_API amddwarf_status amddwarf_valobj_assign_lanes(amddwarf_valobj *value,
                                                          uint64_t lanes, const char *text,
                                                          unsigned flags,
                                                          amddwarf_error *err);
/* amddwarf_valobj_assign_lanes with FLAGS 0: active lanes only. */
AMDDWARF_API amddwarf_status amddwarf_valobj_assign(amddwarf_valobj *value, uint64_t lanes,
                                                    const char *text, amddwarf_error *err);

/* ---- Registers as a debugger's register list shows them ----------------- */

/* The register of amddwarf_wave_register_get named NAME ("s33", "v1",
   "exec"): OK with *OUT; NOT_FOUND; E_INVALID_ARGUMENT for NULL. */
AMDDWARF_API amddwarf_status amddwarf_wave_register_find(const amddwarf_wave *wave,
                                                         const char *name,
                                                         amddwarf_wave_register *out);

/* REG's value in frame FRAME (a vector register's in LANE;
   AMDDWARF_NO_LANE: the focused lane) as a register list shows it: "0x"
   and 2 * REG->size hex digits ("0x00002000"). Writes at most BUF_SIZE
   bytes to BUF (NUL-terminated when BUF_SIZE > 0). Errors: those of
   amddwarf_wave_read_register, E_INVALID_ARGUMENT. */
AMDDWARF_API amddwarf_status amddwarf_wave_register_text(amddwarf_wave *wave, size_t frame,
                                                         const amddwarf_wave_register *reg,
                                                         uint32_t lane, char *buf,
                                                         size_t buf_size, amddwarf_error *err);

/* Assigns TEXT, an unsigned integer (decimal or 0x hex) that fits REG's
   size, to REG in frame FRAME (a vector register's dword of LANE;
   AMDDWARF_NO_LANE: the focused lane) through amddwarf_wave_write_register
   with FLAGS. Errors: E_INVALID_ARGUMENT ("'0x100000000' is not a 4-byte
   unsigned integer"), those of amddwarf_wave_write_register. */
AMDDWARF_API amddwarf_status amddwarf_wave_register_assign(amddwarf_wave *wave, size_t frame,
                                                           const amddwarf_wave_register *reg,
                                                           uint32_t lane, const char *text,
                                                           unsigned flags, amddwarf_error *err);

/* ---- The texts every view shows ----------------------------------------- */

/* Flags of amddwarf_lane_value_describe and amddwarf_valobj_lanes_table. */
enum {
  /* Also where the value's bits come from, "    [EXPLAIN]", and for a lane
     without a value why, "    [why: REASON]" (amddwarf_unavailable_name),
     with ": MESSAGE" when the text does not show the message already. */
  AMDDWARF_LANE_TEXT_EXPLAIN = 1u << 0,
};

/* VALUE as every view shows one lane: amddwarf_lane_value_text, and with
   FLAGS AMDDWARF_LANE_TEXT_EXPLAIN its explanation and reason. Writes at
   most BUF_SIZE bytes to BUF (NUL-terminated when BUF_SIZE > 0) and
   returns the full length, as snprintf. */
AMDDWARF_API size_t amddwarf_lane_value_describe(const amddwarf_lane_value *value,
                                                 unsigned flags, char *buf, size_t buf_size);

/* The lanes LANES of VALUE as `amddwarf eval --lanes` and the debug
   adapter's `PATH @lanes LIST` print them: "PATH (TYPE) at pc 0xPC\n" (the
   value's normalized path and type, its frame's PC), "lanes  value\n",
   then one line per run of consecutive lanes of LANES whose reads agree
   (amddwarf_lane_values_equal, the rule of amddwarf_valobj_read_lanes;
   with AMDDWARF_LANE_TEXT_EXPLAIN, whose explanations agree too): the run
   ("0-3", "9") right-aligned in 5 columns, two spaces, and
   amddwarf_lane_value_describe of its first lane. Writes at most BUF_SIZE
   bytes to BUF (NUL-terminated when BUF_SIZE > 0) and the full length to
   *LENGTH (may be NULL). Errors: E_INVALID_ARGUMENT (no lane, or lanes
   past the wave size), E_NO_MEMORY, those of amddwarf_valobj_read. */
AMDDWARF_API amddwarf_status amddwarf_valobj_lanes_table(amddwarf_valobj *value, uint64_t lanes,
                                                         unsigned flags, char *buf,
                                                         size_t buf_size, size_t *length,
                                                         amddwarf_error *err);

/* Flags of amddwarf_wave_place_text. */
enum {
  /* "FILE:LINE" (a thread's name): FILE alone for line 0 (code no source
     line produced), "" without a line-table row. */
  AMDDWARF_PLACE_TEXT_LINE = 1u << 0,
};

/* The place of PC in WAVE (amddwarf_wave_place) as the views show it:
   "FILE:LINE:COLUMN in FUNCTION" (a row of amddwarf_wave_lanes_table), FILE
   the last component (amddwarf_place_file_name), "??" for an unknown
   position or function, "?" for an unknown file; with
   AMDDWARF_PLACE_TEXT_LINE the short form above. Writes at most BUF_SIZE
   bytes to BUF (NUL-terminated when BUF_SIZE > 0) and returns the full
   length, as snprintf. */
AMDDWARF_API size_t amddwarf_wave_place_text(const amddwarf_wave *wave, uint64_t pc,
                                             unsigned flags, char *buf, size_t buf_size);

/* The places of PC in OBJECT (an object address) through the inlined
   subroutines it executes, innermost first, as `amddwarf lines`,
   llvm-symbolizer --inlining and a backtrace give them: the innermost
   function (an inlined subroutine, INLINED set) at the line row of PC, then
   each caller at the call site (DW_AT_call_file, _line, _column; 0 where
   absent) of the inlined subroutine it called, up to the subprogram.
   HAS_ROW is whether a line-table row covers PC; a PC in no function gets
   its row alone (FUNCTION NULL). Writes at most CAPACITY places and the
   count to *COUNT. NOT_FOUND (count 0) when PC has neither a row nor a
   function; E_INVALID_ARGUMENT for NULL arguments. */
AMDDWARF_API amddwarf_status amddwarf_object_inline_places(const amddwarf_object *object,
                                                           uint64_t pc, amddwarf_place *places,
                                                           size_t capacity, size_t *count);

/* amddwarf_wave_variable_frame for the variable PATH (a path of
   amddwarf_valobj_new: "pr.x", "*p") starts from: the frame of FRAME's
   inline chain a view points to when PATH is not in scope at FRAME. OK
   with *FOUND; NOT_FOUND, also when PATH does not parse. */
AMDDWARF_API amddwarf_status amddwarf_wave_path_frame(amddwarf_wave *wave, size_t frame,
                                                      const char *path, size_t *found);

/* amddwarf_lanes_parse over WAVE's lanes (amddwarf_wave_lanes): a lane list
   as a user writes it for this wave ("0-3,7", "all", "active"). Errors:
   those of both. */
AMDDWARF_API amddwarf_status amddwarf_wave_lanes_parse(amddwarf_wave *wave, const char *text,
                                                       uint64_t *mask, amddwarf_error *err);

/* The format the layer evaluates CU's location expressions in, and a trace
   of them prints them in: the unit's, except that a legacy unit's
   expressions are normalized into the DW_OP_LLVM_user dialect first. */
AMDDWARF_API amddwarf_expr_format amddwarf_unit_eval_format(const amddwarf_cu *cu);

AMDDWARF_END_DECLS

#endif
