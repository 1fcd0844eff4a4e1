/* Producers: expression and CFI builders, lane-PC procedures, code-object writer.
 *
 * Everything a compiler needs to emit the AMDGPU DWARF extensions, and what
 * `amddwarf build` uses to turn a JSON description (specs/build.md) into an
 * AMDGPU ELF code object:
 *
 *   amddwarf_expr_builder   DWARF expressions op by op (any dialect), labels,
 *                           symbolic DIE references, the seed's idioms
 *   amddwarf_cfi_builder    .debug_frame CIEs and FDEs (AMDGPU conventions)
 *   amddwarf_dwarf_builder  units, DIEs, attributes, location and range
 *                           lists, line rows; lane-PC procedures from a tree
 *                           of structured control-flow regions
 *   amddwarf_object_write   the ELF code object with every debug section
 *
 * Ownership: every handle is created by its _new and released by its _free;
 * byte buffers returned by _write and _build functions are allocated with the
 * handle's allocator (or malloc when none was given) and released by the
 * caller with amddwarf_produce_free_bytes. Builders copy what they are given
 * (strings, expressions, bytes): the caller's copies may go right away.
 * Specification of the JSON description and of the generated lane-PC DWARF:
 * specs/build.md. */
#ifndef AMDDWARF_PRODUCE_H
#define AMDDWARF_PRODUCE_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/export.h>
#include <amddwarf/expr.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

/* ---- Expression builder ------------------------------------------------ */

typedef struct amddwarf_expr_builder amddwarf_expr_builder;

/* A branch label of one builder (0 is never a label). */
typedef uint32_t amddwarf_label;

/* A DIE of an amddwarf_dwarf_builder (0 is "no DIE"). Expressions refer to
   DIEs symbolically; the writer replaces them by offsets when it lays out
   .debug_info. */
typedef uint32_t amddwarf_die_id;

/* Resolves the symbolic operands of an expression when it is encoded.
   DIE: the .debug_info offset of the DIE (for DIE_REF operands) and the
   offset relative to its unit (for TYPE operands and call2/call4). TEXT_BASE
   is added to every address appended with amddwarf_expr_builder_text_addr. */
typedef struct amddwarf_expr_resolver {
  void *user;
  amddwarf_status (*die)(void *user, amddwarf_die_id die, uint64_t *section_offset,
                         uint64_t *unit_offset);
  uint64_t text_base;
} amddwarf_expr_resolver;

/* Creates an empty builder producing bytes in FORMAT (NULL: the defaults of
   amddwarf_expr_format_init). ALLOC may be NULL (malloc). *OUT is released
   with amddwarf_expr_builder_free. Errors: E_INVALID_ARGUMENT, E_NO_MEMORY. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_new(const amddwarf_expr_format *format,
                                                       const amddwarf_allocator *alloc,
                                                       amddwarf_expr_builder **out);
AMDDWARF_API void amddwarf_expr_builder_free(amddwarf_expr_builder *b);

/* Removes every operation and label; the format stays. */
AMDDWARF_API void amddwarf_expr_builder_reset(amddwarf_expr_builder *b);

/* The builder's format (valid while B lives). */
AMDDWARF_API const amddwarf_expr_format *amddwarf_expr_builder_format(
    const amddwarf_expr_builder *b);

/* Number of operations appended so far. */
AMDDWARF_API size_t amddwarf_expr_builder_count(const amddwarf_expr_builder *b);

/* Appends operation KIND with OPERAND0 and OPERAND1 (in ops.def order;
   signed kinds take the two's-complement bit pattern; unused operands must
   be 0). For reg0-31/breg0-31 pass the register in the family name and,
   for breg, the offset as OPERAND0. Errors: E_EXPR_NOT_IN_DIALECT when the
   builder's dialect has no encoding for KIND, E_EXPR_BAD_OPERAND for an
   operand that does not fit its encoding or a kind that needs another call
   (blocks, branches), E_NO_MEMORY. Nothing is appended on error. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_op(amddwarf_expr_builder *b,
                                                      amddwarf_op_kind kind, uint64_t operand0,
                                                      uint64_t operand1, amddwarf_error *err);

/* Appends an operation with a block operand: implicit_value, entry_value,
   GNU_entry_value (BYTES are the block), const_type/GNU_const_type
   (OPERAND0 is the type offset, BYTES the constant). The bytes are copied. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_block(amddwarf_expr_builder *b,
                                                         amddwarf_op_kind kind,
                                                         uint64_t operand0,
                                                         const uint8_t *bytes, size_t size,
                                                         amddwarf_error *err);

/* Labels: a new, unplaced label; placing it before the next operation
   appended (or at the end). Branches to a label never placed fail at
   encoding with E_EXPR_BAD_BRANCH. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_label_new(amddwarf_expr_builder *b,
                                                             amddwarf_label *label,
                                                             amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_expr_builder_label_place(amddwarf_expr_builder *b,
                                                               amddwarf_label label,
                                                               amddwarf_error *err);
/* Appends DW_OP_skip or DW_OP_bra (KIND) to LABEL. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_branch(amddwarf_expr_builder *b,
                                                          amddwarf_op_kind kind,
                                                          amddwarf_label label,
                                                          amddwarf_error *err);

/* Appends KIND whose DIE reference (DIE_REF or TYPE operand, or the offset
   of call2/call4) names DIE symbolically; OTHER is its other operand (the
   displacement of implicit_pointer, the register of regval_type, the size
   of deref_type). Errors: E_EXPR_BAD_OPERAND when KIND has no reference
   operand or DIE is 0. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_die_ref(amddwarf_expr_builder *b,
                                                           amddwarf_op_kind kind,
                                                           amddwarf_die_id die, uint64_t other,
                                                           amddwarf_error *err);

/* Appends DW_OP_addr of the address TEXT_OFFSET bytes into .text (the
   resolver's text_base is added when encoded). */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_text_addr(amddwarf_expr_builder *b,
                                                             uint64_t text_offset,
                                                             amddwarf_error *err);

/* Names used in assembler text: "@NAME" in a reference operand stands for
   the DIE NAME resolves to. RESOLVE returns 0 and sets *DIE, or -1. */
typedef int (*amddwarf_expr_name_resolver)(void *user, const char *name, amddwarf_die_id *die);

/* Assembles TEXT (the codec's syntax, specs/encodings.md) and appends its
   operations (labels stay local to TEXT). "@NAME" may replace the operand of
   a DIE_REF or TYPE operand when RESOLVE is given (USER is passed to it);
   "@text+N" as the operand of DW_OP_addr is the address N bytes into .text.
   Errors (ERR.offset a character offset of TEXT): the assembler's
   (E_EXPR_SYNTAX), E_PRODUCE_UNKNOWN_NAME for a name RESOLVE does not know
   (or any name when RESOLVE is NULL), E_EXPR_BAD_OPERAND for "@text"
   elsewhere than DW_OP_addr or a DIE name in another operand.
   On error nothing of TEXT stays appended. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_assemble(amddwarf_expr_builder *b,
                                                            const char *text, unsigned wave_size,
                                                            amddwarf_expr_name_resolver resolve,
                                                            void *user, amddwarf_error *err);

/* Encodes the expression into OUT (CAPACITY bytes); *SIZE receives its length
   (also with E_NO_SPACE; OUT may be NULL when CAPACITY is 0). RESOLVER may be
   NULL when no symbolic operand was appended (else E_PRODUCE_UNRESOLVED).
   Errors: the encoder's, E_EXPR_BAD_BRANCH for an unplaced label. */
AMDDWARF_API amddwarf_status amddwarf_expr_builder_encode(const amddwarf_expr_builder *b,
                                                          const amddwarf_expr_resolver *resolver,
                                                          uint8_t *out, size_t capacity,
                                                          size_t *size, amddwarf_error *err);

/* --- The seed's idioms (each appends a complete location description). ---
   Register numbers are DWARF numbers (amdgpu.h); WAVE_SIZE is 32 or 64. */

/* The current lane's dword of vector register VGPR (a wave32 or wave64 VGPR
   DWARF number), BYTE_OFFSET bytes into the dword:
   DW_OP_regx VGPR; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul;
   [DW_OP_plus_uconst BYTE_OFFSET;] DW_OP_LLVM_offset */
AMDDWARF_API amddwarf_status amddwarf_expr_build_vgpr_lane(amddwarf_expr_builder *b,
                                                           uint32_t vgpr, uint32_t byte_offset,
                                                           amddwarf_error *err);

/* A scalar register spilled into lane LANE of VGPR:
   DW_OP_regx VGPR; DW_OP_LLVM_offset_uconst LANE*4 (draft dialect:
   DW_OP_constu LANE*4; DW_OP_LLVM_offset). */
AMDDWARF_API amddwarf_status amddwarf_expr_build_sgpr_in_vgpr_lane(amddwarf_expr_builder *b,
                                                                   uint32_t vgpr, uint32_t lane,
                                                                   amddwarf_error *err);

/* A vector register VGPR spilled under the EXEC mask to private_wave memory
   at the dword-aligned private_lane address held in BASE_REG plus
   LANE_OFFSET (the seed's CFI idiom): lanes whose EXEC bit is set are read
   from memory, the others from VGPR itself:
   DW_OP_regx VGPR; DW_OP_bregx BASE_REG LANE_OFFSET; DW_OP_constu WAVE_SIZE;
   DW_OP_mul; DW_OP_lit6 (private_wave); DW_OP_LLVM_form_aspace_address;
   DW_OP_bregx EXEC 0; DW_OP_LLVM_select_bit_piece 32 WAVE_SIZE */
AMDDWARF_API amddwarf_status amddwarf_expr_build_vgpr_spill(amddwarf_expr_builder *b,
                                                            uint32_t vgpr, uint32_t base_reg,
                                                            int64_t lane_offset,
                                                            unsigned wave_size,
                                                            amddwarf_error *err);

/* A frame base that is a private_lane address: the wave-scaled scratch
   offset in FRAME_REG divided by WAVE_SIZE (when WAVE_SCALED) in
   private_lane memory:
   DW_OP_bregx FRAME_REG 0; [DW_OP_lit6 (wave64) or DW_OP_lit5; DW_OP_shr;]
   DW_OP_lit5; DW_OP_LLVM_form_aspace_address */
AMDDWARF_API amddwarf_status amddwarf_expr_build_private_frame_base(amddwarf_expr_builder *b,
                                                                    uint32_t frame_reg,
                                                                    int wave_scaled,
                                                                    unsigned wave_size,
                                                                    amddwarf_error *err);

/* A variable in private_lane memory OFFSET bytes off a frame base built with
   amddwarf_expr_build_private_frame_base: DW_OP_fbreg OFFSET. */
AMDDWARF_API amddwarf_status amddwarf_expr_build_private_lane_var(amddwarf_expr_builder *b,
                                                                  int64_t offset,
                                                                  amddwarf_error *err);

/* A variable at a fixed ADDRESS of address space ASPACE (for example
   DW_ASPACE_AMDGPU_local 3): ADDRESS; ASPACE; DW_OP_LLVM_form_aspace_address,
   each constant as DW_OP_litN when below 32, else DW_OP_constu. */
AMDDWARF_API amddwarf_status amddwarf_expr_build_aspace_address(amddwarf_expr_builder *b,
                                                                uint64_t address,
                                                                uint32_t aspace,
                                                                amddwarf_error *err);

/* ---- CFI builder (.debug_frame) ----------------------------------------- */

typedef struct amddwarf_cfi_builder amddwarf_cfi_builder;

/* One call frame instruction: the DW_CFA code (as in cfa.def: 0x40/0x80/0xc0
   for the three primary instructions) and up to three operands in cfa.def
   order. Factored operands (SFACT, UFACT, code deltas) are given already
   factored. EXPR (BLOCK operands) is copied. */
typedef struct amddwarf_cfa_build_insn {
  uint8_t code;
  uint64_t operands[3];
  const uint8_t *expr;
  size_t expr_size;
} amddwarf_cfa_build_insn;

typedef struct amddwarf_cfi_build_options {
  uint32_t struct_size;        /* sizeof(amddwarf_cfi_build_options) */
  uint8_t version;             /* CIE version: 1, 3 or 4 (AMDGPU: 4) */
  uint8_t offset_size;         /* 4 (32-bit DWARF) or 8 */
  uint8_t address_size;        /* 8 for amdgcn */
  int draft_dialect;           /* 0x2f is DW_CFA_LLVM_def_cfa_aspace */
} amddwarf_cfi_build_options;

/* Defaults: version 4, 32-bit DWARF, 8-byte addresses, not draft. */
AMDDWARF_API void amddwarf_cfi_build_options_init(amddwarf_cfi_build_options *options);

AMDDWARF_API amddwarf_status amddwarf_cfi_builder_new(const amddwarf_cfi_build_options *options,
                                                      const amddwarf_allocator *alloc,
                                                      amddwarf_cfi_builder **out);
AMDDWARF_API void amddwarf_cfi_builder_free(amddwarf_cfi_builder *b);

/* Adds a CIE with AUGMENTATION (NULL: "", AMDGPU code objects may use
   "[amd:v0.0]"), code alignment CODE_ALIGN, data alignment DATA_ALIGN and
   return-address column RA_COLUMN; *CIE receives its index. The AMDGPU
   conventions are CODE_ALIGN 4, DATA_ALIGN 4, RA_COLUMN 16 (PC_64). */
AMDDWARF_API amddwarf_status amddwarf_cfi_builder_cie(amddwarf_cfi_builder *b,
                                                      const char *augmentation,
                                                      uint64_t code_align, int64_t data_align,
                                                      uint64_t ra_column, uint32_t *cie,
                                                      amddwarf_error *err);
/* Adds an FDE of CIE for [START, START+LENGTH) (text offsets; the writer adds
   the text base); *FDE receives its index. */
AMDDWARF_API amddwarf_status amddwarf_cfi_builder_fde(amddwarf_cfi_builder *b, uint32_t cie,
                                                      uint64_t start, uint64_t length,
                                                      uint32_t *fde, amddwarf_error *err);
/* Appends an instruction to CIE's initial instructions (IS_CIE) or to FDE's
   instructions. Errors: E_CFI_UNKNOWN_INSTRUCTION for a code not in cfa.def
   (or not in the chosen dialect), E_EXPR_BAD_OPERAND for an operand that does
   not fit (a primary instruction's 6-bit field), E_CFI_NOT_IN_CIE for
   location instructions in a CIE. */
AMDDWARF_API amddwarf_status amddwarf_cfi_builder_insn(amddwarf_cfi_builder *b, int is_cie,
                                                       uint32_t index,
                                                       const amddwarf_cfa_build_insn *insn,
                                                       amddwarf_error *err);
/* Appends the instruction named NAME ("DW_CFA_def_cfa") with operands. */
AMDDWARF_API amddwarf_status amddwarf_cfi_builder_insn_named(amddwarf_cfi_builder *b,
                                                             int is_cie, uint32_t index,
                                                             const char *name,
                                                             const uint64_t operands[3],
                                                             const uint8_t *expr,
                                                             size_t expr_size,
                                                             amddwarf_error *err);
/* Writes .debug_frame: CIEs then FDEs, each padded with DW_CFA_nop to a
   multiple of the address size; FDE addresses are TEXT_BASE + start.
   *OUT is released with amddwarf_produce_free_bytes. */
AMDDWARF_API amddwarf_status amddwarf_cfi_builder_write(const amddwarf_cfi_builder *b,
                                                        uint64_t text_base, uint8_t **out,
                                                        size_t *size, amddwarf_error *err);

/* ---- DWARF builder ------------------------------------------------------- */

typedef struct amddwarf_dwarf_builder amddwarf_dwarf_builder;

typedef struct amddwarf_dwarf_options {
  uint32_t struct_size;        /* sizeof(amddwarf_dwarf_options) */
  uint16_t version;            /* 4 or 5 */
  uint8_t offset_size;         /* 4 (32-bit DWARF) or 8 (64-bit DWARF) */
  amddwarf_dialect dialect;    /* encoding of the extension operations */
  int old_attribute_codes;     /* DW_AT_LLVM_lanes/lane_pc/vector_size as
                                  0x3e0a-0x3e0c instead of 0x3e11-0x3e13 */
  unsigned wave_size;          /* 32 or 64 */
} amddwarf_dwarf_options;

/* Defaults: DWARF 5, 32-bit, user dialect, current codes, wave64. */
AMDDWARF_API void amddwarf_dwarf_options_init(amddwarf_dwarf_options *options);

AMDDWARF_API amddwarf_status amddwarf_dwarf_builder_new(const amddwarf_dwarf_options *options,
                                                        const amddwarf_allocator *alloc,
                                                        amddwarf_dwarf_builder **out);
AMDDWARF_API void amddwarf_dwarf_builder_free(amddwarf_dwarf_builder *b);

/* The expression format of B's units (for amddwarf_expr_builder_new). */
AMDDWARF_API void amddwarf_dwarf_builder_expr_format(const amddwarf_dwarf_builder *b,
                                                     amddwarf_expr_format *format);

/* The attribute code of an AMDGPU extension attribute in B's numbering. */
typedef enum amddwarf_ext_attr {
  AMDDWARF_EXT_AT_LANES,
  AMDDWARF_EXT_AT_LANE_PC,
  AMDDWARF_EXT_AT_VECTOR_SIZE,
  AMDDWARF_EXT_AT_ACTIVE_LANE,
  AMDDWARF_EXT_AT_AUGMENTATION,
  AMDDWARF_EXT_AT_ADDRESS_SPACE,
  AMDDWARF_EXT_AT_MEMORY_SPACE
} amddwarf_ext_attr;
AMDDWARF_API uint16_t amddwarf_dwarf_ext_attr_code(const amddwarf_dwarf_builder *b,
                                                   amddwarf_ext_attr attr);

/* A new compilation unit DIE (DW_TAG_compile_unit with DW_AT_producer,
   DW_AT_language, DW_AT_name, DW_AT_comp_dir when not NULL/0, and
   DW_AT_LLVM_augmentation when AUGMENTATION is not NULL). The unit's
   DW_AT_low_pc/high_pc or DW_AT_ranges and DW_AT_stmt_list are added by
   the writer. */
AMDDWARF_API amddwarf_status amddwarf_dwarf_unit_new(amddwarf_dwarf_builder *b,
                                                     const char *name, const char *comp_dir,
                                                     const char *producer, uint32_t language,
                                                     const char *augmentation,
                                                     amddwarf_die_id *unit, amddwarf_error *err);

/* A new DIE with TAG, the last child of PARENT. */
AMDDWARF_API amddwarf_status amddwarf_dwarf_die_new(amddwarf_dwarf_builder *b,
                                                    amddwarf_die_id parent, uint16_t tag,
                                                    amddwarf_die_id *die, amddwarf_error *err);

/* Attributes (AT is the attribute code; each DIE takes an attribute once:
   E_PRODUCE_DUPLICATE_ATTRIBUTE otherwise). Forms are chosen by the writer:
   udata/sdata (data1-8 for DW_AT_language/encoding etc. where DWARF demands
   a constant class), strp, flag_present, ref4/ref_addr, addr/addrx, exprloc,
   sec_offset (lists). */
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_udata(amddwarf_dwarf_builder *b,
                                                       amddwarf_die_id die, uint16_t at,
                                                       uint64_t value, amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_sdata(amddwarf_dwarf_builder *b,
                                                       amddwarf_die_id die, uint16_t at,
                                                       int64_t value, amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_string(amddwarf_dwarf_builder *b,
                                                        amddwarf_die_id die, uint16_t at,
                                                        const char *value, amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_flag(amddwarf_dwarf_builder *b,
                                                      amddwarf_die_id die, uint16_t at,
                                                      amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_ref(amddwarf_dwarf_builder *b,
                                                     amddwarf_die_id die, uint16_t at,
                                                     amddwarf_die_id target, amddwarf_error *err);
/* An address TEXT_OFFSET bytes into .text. */
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_text_addr(amddwarf_dwarf_builder *b,
                                                           amddwarf_die_id die, uint16_t at,
                                                           uint64_t text_offset,
                                                           amddwarf_error *err);
/* An exprloc; the expression is copied (EXPR stays the caller's). */
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_expr(amddwarf_dwarf_builder *b,
                                                      amddwarf_die_id die, uint16_t at,
                                                      const amddwarf_expr_builder *expr,
                                                      amddwarf_error *err);
/* The PC ranges of DIE: one range becomes DW_AT_low_pc/DW_AT_high_pc,
   several DW_AT_ranges. STARTS/ENDS are text offsets. */
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_ranges(amddwarf_dwarf_builder *b,
                                                        amddwarf_die_id die,
                                                        const uint64_t *starts,
                                                        const uint64_t *ends, size_t count,
                                                        amddwarf_error *err);

/* Location lists: a new empty list attached to DIE as attribute AT; entries
   [START, END) (text offsets, in any order, not overlapping) with a copy of
   EXPR. An empty list is written as an empty location list. */
typedef uint32_t amddwarf_loclist_id;
AMDDWARF_API amddwarf_status amddwarf_dwarf_attr_loclist(amddwarf_dwarf_builder *b,
                                                         amddwarf_die_id die, uint16_t at,
                                                         amddwarf_loclist_id *list,
                                                         amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_loclist_add(amddwarf_dwarf_builder *b,
                                                        amddwarf_loclist_id list,
                                                        uint64_t start, uint64_t end,
                                                        const amddwarf_expr_builder *expr,
                                                        amddwarf_error *err);

/* Line table of UNIT: files (index 1 upward in DWARF 4; the writer also
   emits the DWARF 5 file 0 as the unit's name) and rows. Rows are sorted by
   address when written; a sequence ends at the end of .text. */
AMDDWARF_API amddwarf_status amddwarf_dwarf_line_file(amddwarf_dwarf_builder *b,
                                                      amddwarf_die_id unit, const char *name,
                                                      const char *directory, uint32_t *file,
                                                      amddwarf_error *err);
AMDDWARF_API amddwarf_status amddwarf_dwarf_line_row(amddwarf_dwarf_builder *b,
                                                     amddwarf_die_id unit, uint64_t text_offset,
                                                     uint32_t file, uint32_t line,
                                                     uint32_t column, int is_stmt,
                                                     amddwarf_error *err);

/* ---- Lane-PC generator ---------------------------------------------------- */

typedef enum amddwarf_region_kind {
  AMDDWARF_REGION_IF,         /* IF/THEN[/ELSE]: the seed's nest */
  AMDDWARF_REGION_LOOP,       /* a loop: inactive lanes have left it */
  AMDDWARF_REGION_WHOLE_WAVE  /* EXEC widened for a whole-wave operation */
} amddwarf_region_kind;

/* A structured control-flow region, with text offsets as in the seed's
   linearized MIR: START is where EXEC is first changed ($lex_N_start),
   BODY where the THEN part (or the loop body, or the whole-wave code) begins
   ($lex_N_then), ELSE where the ELSE part begins ($lex_N_else; equal to END
   when there is none; ignored for loops and whole-wave regions), END where
   EXEC has been restored ($lex_N_end). SAVE_EXEC is the location of the EXEC
   mask saved before START (the artificial variable's DW_AT_location), valid
   over [START, END). CHILDREN nest inside the THEN, ELSE or loop body. */
typedef struct amddwarf_region {
  amddwarf_region_kind kind;
  const char *name;                 /* suffix of the generated names: "1", "1_1" */
  uint64_t start, body, else_start, end;
  const amddwarf_expr_builder *save_exec;
  const struct amddwarf_region *children;
  size_t child_count;
} amddwarf_region;

/* Generates, for subprogram SUBPROGRAM of UNIT covering [LOW, HIGH):
   the base type "__uint64" (or "__uint32" for wave32), the procedures
   __active_lane_pc and __divergent_lane_pc (once per unit),
   __divergent_lane_pc_N_then/_else/_loop per region, the artificial
   variables __lex_N_save_exec under SUBPROGRAM, the DW_AT_LLVM_lane_pc
   location list and, when a whole-wave region exists, the
   DW_AT_LLVM_active_lane location list (specs/build.md, "Lane PCs").
   Errors: E_PRODUCE_BAD_REGION (regions that overlap, do not nest, or
   whose offsets are out of order), the expression builder's (a dialect
   without DW_OP_LLVM_extend/select_bit_piece). */
AMDDWARF_API amddwarf_status amddwarf_dwarf_lane_pc(amddwarf_dwarf_builder *b,
                                                    amddwarf_die_id unit,
                                                    amddwarf_die_id subprogram,
                                                    uint64_t low, uint64_t high,
                                                    const amddwarf_region *regions,
                                                    size_t count, amddwarf_error *err);

/* ---- Code-object writer --------------------------------------------------- */

typedef struct amddwarf_symbol_desc {
  const char *name;
  uint64_t text_offset;
  uint64_t size;
  int is_object;                    /* STT_OBJECT (e.g. a .kd) instead of STT_FUNC */
  int is_local;                     /* STB_LOCAL instead of STB_GLOBAL */
} amddwarf_symbol_desc;

typedef struct amddwarf_write_options {
  uint32_t struct_size;             /* sizeof(amddwarf_write_options) */
  int shared;                       /* ET_DYN (text at 0x1000, PT_LOAD) vs ET_REL */
  const char *processor;            /* "gfx900", ...: e_flags EF_AMDGPU_MACH */
  int xnack, sramecc;               /* e_flags feature fields (code object v4+):
                                       0 unsupported, 1 any, 2 off, 3 on */
  const uint8_t *text;              /* .text bytes */
  size_t text_size;
  const amddwarf_symbol_desc *symbols;
  size_t symbol_count;
  const amddwarf_cfi_builder *cfi;  /* NULL: no .debug_frame */
} amddwarf_write_options;

AMDDWARF_API void amddwarf_write_options_init(amddwarf_write_options *options);

/* The text base the writer uses for OPTIONS (0 for ET_REL, 0x1000 shared). */
AMDDWARF_API uint64_t amddwarf_write_text_base(const amddwarf_write_options *options);

/* Writes the ELF code object holding B's DWARF (B may be NULL: no DWARF).
   *OUT (released with amddwarf_produce_free_bytes) and *SIZE receive it.
   Errors: E_PRODUCE_UNKNOWN_PROCESSOR, E_PRODUCE_LAYOUT (DIE references
   that do not settle, a reference to a DIE of no unit), E_PRODUCE_ELF
   (libelf failures), expression errors (ERR names the DIE and attribute). */
AMDDWARF_API amddwarf_status amddwarf_object_write(amddwarf_dwarf_builder *b,
                                                   const amddwarf_write_options *options,
                                                   uint8_t **out, size_t *size,
                                                   amddwarf_error *err);

/* Builds a code object from a JSON DESCRIPTION (specs/build.md). */
AMDDWARF_API amddwarf_status amddwarf_build_json(const char *text, size_t size,
                                                 const amddwarf_allocator *alloc,
                                                 uint8_t **out, size_t *out_size,
                                                 amddwarf_error *err);

/* Releases bytes returned by the _write and _build functions (ALLOC is the
   allocator given to the builder, or NULL). */
AMDDWARF_API void amddwarf_produce_free_bytes(const amddwarf_allocator *alloc, uint8_t *bytes,
                                              size_t size);

AMDDWARF_END_DECLS

#endif
