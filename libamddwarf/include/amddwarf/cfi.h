/* Call frame information: CIEs, FDEs, call frame instructions and the rule
 * table (".debug_frame" and ".eh_frame"), with the AMDGPU extensions.
 *
 * The machinery is target-independent: what a target decides (the default
 * rule of every column, register sizes and names, valid address spaces) comes
 * from an amddwarf_cfi_target description. Two are built in: AMDGPU (default
 * rule "same value", return address in PC_64 or PC_32, alignment factors 4)
 * and x86-64 (default rule "undefined", System V register numbering).
 *
 * Typical use:
 *
 *   amddwarf_cfi_options o;
 *   amddwarf_cfi_options_init(&o);
 *   o.kind = AMDDWARF_CFI_DEBUG_FRAME; o.data = bytes; o.size = size;
 *   o.target = amddwarf_cfi_target_amdgpu(64);
 *   amddwarf_cfi *cfi;
 *   if (amddwarf_cfi_open(&o, &cfi, &err) == AMDDWARF_OK) {
 *     const amddwarf_cfi_row *row;
 *     if (amddwarf_cfi_find_row(cfi, pc, &row, &err) == AMDDWARF_OK) ...
 *     amddwarf_cfi_close(cfi);
 *   }
 *
 * A handle is not safe to use from several threads at once: row look-ups fill
 * a per-handle cache. Distinct handles are independent. */
#ifndef AMDDWARF_CFI_H
#define AMDDWARF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/eval.h>
#include <amddwarf/export.h>
#include <amddwarf/expr.h>
#include <amddwarf/status.h>
#include <amddwarf/target.h>

AMDDWARF_BEGIN_DECLS

/* ---- Call frame instructions --------------------------------------------- */

/* One enumerator per row of cfa.def (AMDDWARF_CFA_def_cfa, ...). */
typedef enum amddwarf_cfa_kind {
#define AMDDWARF_CFA(kind, name, code, dialects, action, a, b, c) AMDDWARF_CFA_##kind,
#include <amddwarf/cfa.def>
#undef AMDDWARF_CFA
  AMDDWARF_CFA_KIND_COUNT
} amddwarf_cfa_kind;

/* Static description of an instruction: its name ("DW_CFA_def_cfa") and
   opcode (0x40/0x80/0xc0 for the three with an operand in the low 6 bits).
   NULL when KIND is out of range. */
typedef struct amddwarf_cfa_info {
  amddwarf_cfa_kind kind;
  const char *name;
  uint8_t code;
  uint8_t operand_count;
} amddwarf_cfa_info;
AMDDWARF_API const amddwarf_cfa_info *amddwarf_cfa_info_get(amddwarf_cfa_kind kind);

/* One decoded instruction. Operands in table order: registers, deltas
   (unfactored as encoded: multiply by the CIE's code alignment factor),
   offsets (as encoded; signed ones hold the two's-complement bit pattern),
   address spaces. BLOCK operands (expressions) have their length in the
   operand and EXPR pointing into the section bytes. */
typedef struct amddwarf_cfa_insn {
  amddwarf_cfa_kind kind;
  uint8_t opcode;     /* raw opcode byte */
  uint64_t offset;    /* section offset of the opcode */
  uint32_t size;      /* encoded size, opcode included */
  uint64_t operands[3];
  const uint8_t *expr;
} amddwarf_cfa_insn;

/* ---- Targets ------------------------------------------------------------- */

typedef enum amddwarf_cfi_rule_kind {
  AMDDWARF_CFI_RULE_UNDEFINED = 0,
  AMDDWARF_CFI_RULE_SAME_VALUE,
  AMDDWARF_CFI_RULE_OFFSET,         /* saved at CFA + offset */
  AMDDWARF_CFI_RULE_VAL_OFFSET,     /* value is CFA + offset */
  AMDDWARF_CFI_RULE_REGISTER,       /* saved in register `reg` */
  AMDDWARF_CFI_RULE_EXPRESSION,     /* saved at the location expr computes */
  AMDDWARF_CFI_RULE_VAL_EXPRESSION, /* value is what expr computes */
  AMDDWARF_CFI_RULE_ARCHITECTURAL,  /* defined by the target */
  AMDDWARF_CFI_RULE_KIND_COUNT
} amddwarf_cfi_rule_kind;

/* What the generic machinery needs to know about a target. All fields are
   read-only for the library; the struct must outlive every handle using it. */
typedef struct amddwarf_cfi_target {
  uint32_t struct_size;           /* sizeof(amddwarf_cfi_target) */
  const char *name;               /* "amdgpu", "x86-64" */
  uint8_t address_size;           /* default address size (CIE versions 1 and 3, .eh_frame) */
  amddwarf_cfi_rule_kind default_rule; /* rule of a column no instruction set */
  uint32_t return_address_column; /* the ABI's return-address column */
  uint64_t code_alignment;        /* the ABI's factors (informational; the CIE decides) */
  int64_t data_alignment;
  amddwarf_dialect dialect;       /* encoding of extension operations and DW_CFA 0x2f */
  unsigned wave_size;             /* AMDGPU: 32 or 64; 0 elsewhere */
  /* Size in bits of DWARF register REG, or 0 when the target has no such
     register (then no size check is made). */
  uint32_t (*register_bits)(const struct amddwarf_cfi_target *target, uint32_t reg);
  /* Name of REG into BUF (NUL-terminated); false when it has none. */
  bool (*register_name)(const struct amddwarf_cfi_target *target, uint32_t reg, char *buf,
                        size_t size);
  /* True when ASPACE is an address space identifier of the target. */
  bool (*aspace_valid)(const struct amddwarf_cfi_target *target, uint64_t aspace);
  /* Address size in bytes of ASPACE (0: the default address size). */
  uint8_t (*aspace_address_size)(const struct amddwarf_cfi_target *target, uint64_t aspace);
  const void *user;
  /* The register whose value in the caller is the CFA's address when no
     instruction gives it a rule (x86-64: RSP, 7), or UINT32_MAX for none
     (AMDGPU: the stack pointer is described by explicit rules). */
  uint32_t stack_pointer_column;
} amddwarf_cfi_target;

/* AMDGPU, for waves of WAVE_SIZE lanes (32 or 64; anything else means 64):
   default rule "same value", return address PC_64, factors 4, dialect auto.
   Static storage. */
AMDDWARF_API const amddwarf_cfi_target *amddwarf_cfi_target_amdgpu(unsigned wave_size);
/* AMDGPU for 32-bit processes: as above, return address PC_32, 4-byte addresses. */
AMDDWARF_API const amddwarf_cfi_target *amddwarf_cfi_target_amdgpu32(unsigned wave_size);
/* x86-64 System V: default rule "undefined", return address column 16 (RIP),
   code alignment 1, data alignment -8, register names as llvm-dwarfdump. */
AMDDWARF_API const amddwarf_cfi_target *amddwarf_cfi_target_x86_64(void);

/* Name of REG under TARGET into BUF: the target's name, else "reg<N>".
   Always NUL-terminates when SIZE > 0. */
AMDDWARF_API void amddwarf_cfi_register_name(const amddwarf_cfi_target *target, uint32_t reg,
                                             char *buf, size_t size);

/* ---- Opening a section --------------------------------------------------- */

typedef enum amddwarf_cfi_section_kind {
  AMDDWARF_CFI_DEBUG_FRAME = 0,
  AMDDWARF_CFI_EH_FRAME = 1,
} amddwarf_cfi_section_kind;

/* Reads SIZE bytes of target memory at ADDRESS (DW_EH_PE_indirect pointers).
   Returns AMDDWARF_OK or an error. Must not call back into the library. */
typedef amddwarf_status (*amddwarf_cfi_read_memory_fn)(void *user, uint64_t address, void *buf,
                                                       size_t size);

typedef struct amddwarf_cfi_options {
  uint32_t struct_size;            /* sizeof(amddwarf_cfi_options) */
  amddwarf_cfi_section_kind kind;
  /* The section contents: borrowed, must stay valid and unchanged until
     amddwarf_cfi_close. Relocations must already be applied. */
  const uint8_t *data;
  size_t size;
  bool big_endian;
  /* Address of the section when loaded (DW_EH_PE_pcrel), and the bases of
     DW_EH_PE_textrel and DW_EH_PE_datarel; HAVE_* false makes such
     pointers AMDDWARF_E_UNSUPPORTED. */
  uint64_t section_address;
  bool have_text_base, have_data_base;
  uint64_t text_base, data_base;
  /* DW_EH_PE_indirect: NULL makes such pointers AMDDWARF_E_UNSUPPORTED. */
  amddwarf_cfi_read_memory_fn read_memory;
  void *read_memory_user;
  /* Target description (NULL: AMDGPU wave64). */
  const amddwarf_cfi_target *target;
  /* Limits: remember_state nesting (default 64), rules stored per FDE row
     table (default 4,000,000), largest register number (default 65535). */
  uint32_t max_remember_depth;
  uint32_t max_rules_per_fde;
  uint32_t max_register;
  const amddwarf_allocator *allocator; /* NULL: malloc */
  /* true: the handle copies DATA (with ALLOCATOR) and frees the copy on
     close, so DATA need only live during amddwarf_cfi_open. */
  bool copy_data;
} amddwarf_cfi_options;

/* Defaults: .debug_frame, no data, AMDGPU wave64, the limits above. */
AMDDWARF_API void amddwarf_cfi_options_init(amddwarf_cfi_options *options);

typedef struct amddwarf_cfi amddwarf_cfi;

/* Parses every CIE and FDE header of the section and builds the FDE index
   (sorted by initial location). Instructions are decoded later, on demand.
   Errors (ERR names the section offset): AMDDWARF_E_TRUNCATED (an entry or
   field runs past the section or its entry), E_MALFORMED (reserved initial
   length, bad sizes), E_CFI_BAD_VERSION, E_CFI_BAD_CIE_POINTER (an FDE whose
   CIE pointer does not reach a CIE, including pointers to FDEs and cycles),
   E_CFI_BAD_AUGMENTATION (in .eh_frame), E_CFI_BAD_POINTER_ENCODING,
   E_UNSUPPORTED (indirect/textrel/datarel without a base), E_NO_MEMORY.
   On success *OUT is a new handle, freed by amddwarf_cfi_close. */
AMDDWARF_API amddwarf_status amddwarf_cfi_open(const amddwarf_cfi_options *options,
                                               amddwarf_cfi **out, amddwarf_error *err);

/* Opens the ".debug_frame" (KIND = AMDDWARF_CFI_DEBUG_FRAME) or ".eh_frame"
   section of the ELF file IMAGE, as read by the code object module's ELF
   reader (a program with the section bytes alone uses amddwarf_cfi_open) (SIZE bytes, 32- or 64-bit, either byte
   order). The section is copied and the REL/RELA relocations of relocatable
   files applied to the copy (every AMDGPU type but the GOT ones, and the
   x86-64 types producers use in frame sections), so IMAGE need only
   live during the call. OPTIONS may be NULL; its kind, data, size,
   big_endian and section_address are replaced; when its target is NULL the
   target follows e_machine (EM_AMDGPU: AMDGPU wave64, EM_X86_64: x86-64).
   The text base is .text's address and the data base .got's, when present;
   DW_EH_PE_indirect pointers are read from the image's allocated sections
   while opening (later ones, in DW_CFA_set_loc, are unsupported).
   Returns AMDDWARF_OK, AMDDWARF_NOT_FOUND (no such section), the errors of
   amddwarf_cfi_open, E_MALFORMED (not ELF), E_UNSUPPORTED (compressed
   section, unknown machine or relocation type). */
AMDDWARF_API amddwarf_status amddwarf_cfi_open_elf(const uint8_t *image, size_t size,
                                                   amddwarf_cfi_section_kind kind,
                                                   const amddwarf_cfi_options *options,
                                                   amddwarf_cfi **out, amddwarf_error *err);

/* Replaces the DW_EH_PE_indirect callback of options.read_memory for later
   reads (DW_CFA_set_loc); NULL makes them AMDDWARF_E_UNSUPPORTED. Not while
   other threads use CFI. */
AMDDWARF_API void amddwarf_cfi_set_read_memory(amddwarf_cfi *cfi,
                                              amddwarf_cfi_read_memory_fn read_memory,
                                              void *user);

/* Frees CFI and everything obtained from it. NULL is allowed. */
AMDDWARF_API void amddwarf_cfi_close(amddwarf_cfi *cfi);

/* The target description the handle uses. */
AMDDWARF_API const amddwarf_cfi_target *amddwarf_cfi_get_target(const amddwarf_cfi *cfi);

/* ---- CIEs and FDEs (valid until amddwarf_cfi_close) ---------------------- */

typedef struct amddwarf_cfi_cie {
  uint64_t offset;                  /* section offset of the length field */
  uint64_t length;                  /* the length field's value */
  bool dwarf64;
  uint8_t version;                  /* 1, 3 or 4 */
  const char *augmentation;         /* points into the section */
  uint8_t address_size;
  uint8_t segment_selector_size;
  uint64_t code_alignment_factor;
  int64_t data_alignment_factor;
  uint64_t return_address_register;
  /* The `[amd:vX.Y]` augmentation of .debug_frame. */
  bool amd_augmentation;
  uint32_t amd_major, amd_minor;
  /* false for an augmentation this reader does not know: only the header
     fields are valid then and rows cannot be computed. */
  bool augmentation_known;
  /* .eh_frame "z" data and what it says. */
  const uint8_t *augmentation_data;
  uint64_t augmentation_data_size;
  uint8_t fde_encoding;             /* 'R' (DW_EH_PE_*), absptr by default */
  uint8_t lsda_encoding;            /* 'L', DW_EH_PE_omit when absent */
  uint8_t personality_encoding;     /* 'P', DW_EH_PE_omit when absent */
  uint64_t personality;             /* 'P' pointer */
  /* The 'P' encoding is DW_EH_PE_indirect but no memory reader was given:
     PERSONALITY is the address where the pointer is stored. */
  bool personality_indirect;
  bool signal_frame;                /* 'S' */
  const uint8_t *instructions;      /* initial instructions, into the section */
  uint64_t instructions_size;
  uint64_t instructions_offset;     /* their section offset */
} amddwarf_cfi_cie;

typedef struct amddwarf_cfi_fde {
  uint64_t offset;                  /* section offset of the length field */
  uint64_t length;
  bool dwarf64;
  uint64_t cie_pointer;             /* the field as encoded */
  const amddwarf_cfi_cie *cie;
  uint64_t segment_selector;
  uint64_t initial_location;        /* decoded (pcrel etc. applied) */
  uint64_t address_range;
  bool has_lsda;
  uint64_t lsda;
  const uint8_t *instructions;
  uint64_t instructions_size;
  uint64_t instructions_offset;
} amddwarf_cfi_fde;

/* Counts and entries in section order. Index out of range: NULL. */
AMDDWARF_API size_t amddwarf_cfi_cie_count(const amddwarf_cfi *cfi);
AMDDWARF_API const amddwarf_cfi_cie *amddwarf_cfi_cie_at(const amddwarf_cfi *cfi, size_t index);
AMDDWARF_API size_t amddwarf_cfi_fde_count(const amddwarf_cfi *cfi);
AMDDWARF_API const amddwarf_cfi_fde *amddwarf_cfi_fde_at(const amddwarf_cfi *cfi, size_t index);

/* The FDE whose [initial_location, initial_location + address_range)
   contains PC: AMDDWARF_OK, or AMDDWARF_NOT_FOUND. Binary search. */
AMDDWARF_API amddwarf_status amddwarf_cfi_find_fde(const amddwarf_cfi *cfi, uint64_t pc,
                                                   const amddwarf_cfi_fde **out);

/* Decodes the instruction at *POS within BYTES (SIZE bytes, at section offset
   BASE_OFFSET) of an entry using CIE, and advances *POS. Returns AMDDWARF_OK,
   AMDDWARF_END at the end of BYTES, or an error (ERR names the section offset
   and opcode): E_TRUNCATED, E_CFI_UNKNOWN_INSTRUCTION, E_LEB_OVERFLOW,
   E_LEB_OVERLONG, E_CFI_BAD_POINTER_ENCODING. */
AMDDWARF_API amddwarf_status amddwarf_cfi_decode_insn(const amddwarf_cfi *cfi,
                                                      const amddwarf_cfi_cie *cie,
                                                      const uint8_t *bytes, size_t size,
                                                      uint64_t base_offset, size_t *pos,
                                                      amddwarf_cfa_insn *out,
                                                      amddwarf_error *err);

/* Prints INSN in llvm-dwarfdump-19's spelling ("DW_CFA_def_cfa: SGPR32 +0",
   "DW_CFA_advance_loc: 4 to 0x8") into BUF, NUL-terminated. *LOC is the
   current location, advanced by row-creation instructions (NULL: the "to"
   part is left out). Returns the full length without the NUL (output is
   truncated to SIZE - 1 bytes). */
AMDDWARF_API size_t amddwarf_cfi_insn_print(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                            const amddwarf_cfa_insn *insn, uint64_t *loc,
                                            char *buf, size_t size);

/* ---- Rules and rows ------------------------------------------------------ */

typedef enum amddwarf_cfa_rule_kind {
  AMDDWARF_CFA_RULE_UNSPECIFIED = 0, /* no CFA instruction ran yet */
  AMDDWARF_CFA_RULE_REG_OFFSET,      /* memory at reg + offset in aspace */
  AMDDWARF_CFA_RULE_EXPRESSION,      /* the memory location expr computes */
} amddwarf_cfa_rule_kind;

typedef struct amddwarf_cfa_rule {
  amddwarf_cfa_rule_kind kind;
  uint32_t reg;
  int64_t offset;       /* bytes, already multiplied by the data alignment */
  uint64_t aspace;      /* address space of the CFA (0 when not given) */
  bool aspace_given;    /* set by DW_CFA_LLVM_def_aspace_cfa(_sf) or def_cfa_aspace */
  const uint8_t *expr;  /* EXPRESSION: into the section */
  uint64_t expr_size;
} amddwarf_cfa_rule;

typedef struct amddwarf_cfi_rule {
  uint32_t column;      /* register number */
  amddwarf_cfi_rule_kind kind;
  int64_t offset;       /* OFFSET, VAL_OFFSET: bytes */
  uint32_t reg;         /* REGISTER */
  const uint8_t *expr;  /* EXPRESSION, VAL_EXPRESSION: into the section */
  uint64_t expr_size;
} amddwarf_cfi_rule;

/* One row of the table: the rules that hold for PCs in [start, end).
   RULES lists the columns an instruction set, sorted by column; every other
   column has the target's default rule (amddwarf_cfi_row_rule). */
typedef struct amddwarf_cfi_row {
  uint64_t start, end;
  amddwarf_cfa_rule cfa;
  const amddwarf_cfi_rule *rules;
  uint32_t rule_count;
  uint32_t args_size_set;   /* DW_CFA_GNU_args_size seen */
  uint64_t args_size;
  const amddwarf_cfi_fde *fde;
  /* The row comes from instructions a synthesizer made for an FDE without
     any (amddwarf_cfi_set_synthesizer), not from the section. */
  bool synthesized;
} amddwarf_cfi_row;

/* The row that holds at PC. Rows of an FDE are computed on first use and
   cached; the last row found is returned again without a search.
   *OUT is valid until amddwarf_cfi_close. Returns AMDDWARF_OK,
   AMDDWARF_NOT_FOUND (no FDE covers PC), or the errors of
   amddwarf_cfi_fde_rows. */
AMDDWARF_API amddwarf_status amddwarf_cfi_find_row(amddwarf_cfi *cfi, uint64_t pc,
                                                   const amddwarf_cfi_row **out,
                                                   amddwarf_error *err);

/* Every row of FDE (cached), in address order; the first starts at its
   initial location and the last ends at initial location + address range.
   *ROWS stays valid until amddwarf_cfi_close. Errors (ERR names the section
   offset and opcode): those of amddwarf_cfi_decode_insn, and
   E_CFI_BAD_AUGMENTATION (unknown augmentation), E_CFI_NO_CFA_RULE
   (def_cfa_register/offset without a register-based CFA),
   E_CFI_REMEMBER_DEPTH, E_CFI_RESTORE_EMPTY, E_CFI_BAD_LOCATION (a location
   that moves backwards or leaves the FDE), E_CFI_BAD_REGISTER,
   E_CFI_BAD_ASPACE, E_CFI_REGISTER_SIZE (register(R) between registers of
   different sizes), E_CFI_EXPR_NOT_ALLOWED, E_CFI_NOT_IN_CIE (a row or
   restore instruction among a CIE's initial instructions),
   E_CFI_UNSUPPORTED_INSTRUCTION (DW_CFA_GNU_window_save), E_LIMIT. */
AMDDWARF_API amddwarf_status amddwarf_cfi_fde_rows(amddwarf_cfi *cfi,
                                                   const amddwarf_cfi_fde *fde,
                                                   const amddwarf_cfi_row **rows,
                                                   size_t *count, amddwarf_error *err);

/* The row CIE's initial instructions produce (start = end = 0). Cached. */
AMDDWARF_API amddwarf_status amddwarf_cfi_cie_row(amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                                  const amddwarf_cfi_row **out,
                                                  amddwarf_error *err);

/* The rule of COLUMN in ROW: the one an instruction set, else the target's
   default rule. Returns true when an instruction set it. */
AMDDWARF_API bool amddwarf_cfi_row_rule(const amddwarf_cfi *cfi, const amddwarf_cfi_row *row,
                                        uint32_t column, amddwarf_cfi_rule *out);

/* Prints ROW as llvm-dwarfdump-19 does ("CFA=RSP+8: RIP=[CFA-8]", "CFA=SGPR32+16 in
   addrspace6", expressions in brackets), without the address and newline.
   Returns the full length without the NUL. */
AMDDWARF_API size_t amddwarf_cfi_row_print(const amddwarf_cfi *cfi, const amddwarf_cfi_row *row,
                                           char *buf, size_t size);

/* Checks that the DWARF expression EXPR (SIZE bytes) may appear in CFI: it
   decodes, and uses none of the operations the seed forbids there
   (DW_OP_addrx, call2, call4, call_ref, const_type, constx, convert,
   deref_type, regval_type, reinterpret, push_object_address,
   call_frame_cfa, entry_value and their GNU forms). Returns AMDDWARF_OK,
   E_CFI_EXPR_NOT_ALLOWED (ERR names the operation), or a decoding error. */
AMDDWARF_API amddwarf_status amddwarf_cfi_check_expression(const amddwarf_cfi *cfi,
                                                           const uint8_t *expr, size_t size,
                                                           amddwarf_error *err);

/* ---- Rows synthesized from code -------------------------------------------

   Producers such as clang-15/19 emit, for every AMDGPU function, an FDE with
   no instructions under a CIE with none: no CFA, so no caller. A synthesizer
   (the code object's prologue analyzer, object.h) writes the call frame
   instructions the producer should have written for such an FDE; the rows
   are computed from them as from the section's, cached with the FDE's, and
   marked `synthesized`. */

/* Writes into BUF (CAPACITY bytes) the call frame instructions for FDE, to
   run from its CIE's row, and sets *SIZE to their length. Returns
   AMDDWARF_OK (also when *SIZE > CAPACITY: nothing need be written then, and
   it is called again with a larger buffer), or an error with ERR naming the
   cause (it then becomes the FDE's error). Called at most once per FDE
   (plus retries), serialized with the computing of rows; it must not call
   back into CFI. */
typedef amddwarf_status (*amddwarf_cfi_synthesize_fn)(void *user, const amddwarf_cfi_fde *fde,
                                                      uint8_t *buf, size_t capacity,
                                                      size_t *size, amddwarf_error *err);

/* Installs SYNTHESIZE (NULL: none) for FDEs whose own and CIE's
   instructions set no CFA rule and that have no instructions but DW_CFA_nop.
   Call before the first row look-up; not while other threads use CFI. */
AMDDWARF_API void amddwarf_cfi_set_synthesizer(amddwarf_cfi *cfi,
                                               amddwarf_cfi_synthesize_fn synthesize,
                                               void *user);

/* ---- Virtual unwinding ----------------------------------------------------

   An unwinder walks the frames of one wave (or thread) from frame 0, whose
   registers and memory a target interface gives, outwards. Frames are lazy:
   a step finds the caller's PC (the return address column) and CFA; a
   register of frame N+1 is computed only when read, by evaluating frame N's
   rule for it -- through memory in any address space, other registers of
   frame N, or DWARF expressions (composites, DW_OP_LLVM_* operations, and
   DW_OP_LLVM_call_frame_entry_reg, which reads the caller's frame). The CFA
   and row of a caller are looked up at its return address minus 1 (the
   seed: the call site, not the instruction after it). */

typedef struct amddwarf_unwinder amddwarf_unwinder;

typedef struct amddwarf_unwinder_options {
  uint32_t struct_size;         /* sizeof(amddwarf_unwinder_options) */
  uint32_t max_frames;          /* frames kept; a longer walk is E_LIMIT [256] */
  uint32_t max_rule_depth;      /* rules evaluated inside one another [16] */
  amddwarf_xderef_numbering xderef;
  const amddwarf_allocator *allocator; /* NULL: malloc */
  /* Optional: receives every operation and target access of the rule
     evaluations (eval.h); TRACE_USER is passed back, not owned. */
  amddwarf_trace_fn trace;
  void *trace_user;
  /* Optional: a backend that knows more than the code says (one that
     tracks call sites itself) gives the caller's registers. For the
     caller of frame INDEX, whose PC is PC, fill BUF with SIZE bytes at byte
     OFFSET of register REGNO and return AMDDWARF_OK, or return
     AMDDWARF_NOT_FOUND when it does not know (the row's rule applies); any
     other status is the read's error. Consulted only for frames whose row
     is synthesized (amddwarf_cfi_row.synthesized): it takes precedence over
     the synthesized rule, never over the section's CFI. A frame whose
     registers it answered has backend_registers set. Must not call back
     into the library. */
  amddwarf_status (*caller_register)(void *user, size_t index, uint64_t pc, uint32_t regno,
                                     uint64_t offset, uint64_t size, void *buf);
  void *caller_register_user;
  /* Where the CFI's code is loaded: the target's PCs are PC_BIAS above the
     addresses the CFI gives (a code object at a load address). Rows are
     found at PC - PC_BIAS; the frames' PCs stay the target's. [0] */
  uint64_t pc_bias;
} amddwarf_unwinder_options;

AMDDWARF_API void amddwarf_unwinder_options_init(amddwarf_unwinder_options *options);

/* Starts unwinding the frames TARGET describes, with the rules of CFI.
   Frame 0's PC is TARGET's register in the return-address column of the
   CFI target (AMDGPU PC_64, x86-64 RIP). CFI, TARGET (and what its user
   pointer reaches) must stay valid until amddwarf_unwinder_free. OPTIONS may
   be NULL. Errors: E_NO_MEMORY, E_INVALID_ARGUMENT, and the target's error
   reading the PC. */
AMDDWARF_API amddwarf_status amddwarf_unwinder_new(amddwarf_cfi *cfi,
                                                   const amddwarf_target *target,
                                                   const amddwarf_unwinder_options *options,
                                                   amddwarf_unwinder **out,
                                                   amddwarf_error *err);
AMDDWARF_API void amddwarf_unwinder_free(amddwarf_unwinder *unwinder);

/* Starts a new walk with the same CFI, of the frames TARGET describes, as
   amddwarf_unwinder_new would, with OPTIONS (NULL: the defaults; their
   allocator is ignored: the unwinder keeps its own). The walk before it
   ends: its frames and their targets are gone. What walks have in common
   is kept: the evaluation contexts, with the rules' expressions decoded
   and compiled once. A debugger unwinding the waves of a stop one after
   another resets one unwinder per thread rather than making one per wave.
   Errors: E_INVALID_ARGUMENT (a NULL unwinder or target: the walk before
   is left as it was), else as amddwarf_unwinder_new's, after which the
   unwinder has no frame and every step returns that error. */
AMDDWARF_API amddwarf_status amddwarf_unwinder_reset(amddwarf_unwinder *unwinder,
                                                     const amddwarf_target *target,
                                                     const amddwarf_unwinder_options *options,
                                                     amddwarf_error *err);

/* Adds the caller of the outermost frame. Returns AMDDWARF_OK (one more
   frame), AMDDWARF_END (the outermost frame's return address rule is
   undefined: the walk is complete), or an error that ends the walk:
   E_CFI_NO_FDE (no FDE covers the outermost frame's PC), E_CFI_UNWIND_LOOP
   (the caller would repeat a frame's PC and CFA), E_CFI_UNEVALUABLE (the
   CFA or return address rule cannot be evaluated; ERR says why), E_LIMIT
   (max_frames), or a malformed-CFI error from computing rows. Once the walk
   has ended, every further step returns the same status and message. */
AMDDWARF_API amddwarf_status amddwarf_unwinder_step(amddwarf_unwinder *unwinder,
                                                    amddwarf_error *err);

AMDDWARF_API size_t amddwarf_unwinder_frame_count(const amddwarf_unwinder *unwinder);

typedef struct amddwarf_frame_info {
  uint64_t pc;                   /* frame 0: its PC; callers: the return address */
  uint64_t lookup_pc;            /* PC used for the row: pc, or pc - 1 for callers */
  const amddwarf_cfi_row *row;   /* NULL when no FDE covers lookup_pc */
  bool has_cfa;                  /* the CFA could be computed */
  uint32_t cfa_aspace;           /* DW_ASPACE_* of the CFA */
  uint64_t cfa;
  /* A register of this frame (its PC included) came from the options'
     caller_register callback rather than the callee's synthesized row. */
  bool backend_registers;
} amddwarf_frame_info;

/* Describes frame INDEX (0 = innermost). Computes its CFA if not done yet.
   Returns AMDDWARF_OK, AMDDWARF_NOT_FOUND (no such frame). */
AMDDWARF_API amddwarf_status amddwarf_unwinder_frame(amddwarf_unwinder *unwinder, size_t index,
                                                     amddwarf_frame_info *out);

/* Frame INDEX's pc, lookup_pc and backend_registers, as amddwarf_unwinder_frame
   gives them, without looking up its row or computing its CFA: finding the
   row of a function whose FDE has no rules synthesizes it from the
   prologue, which loads the instruction decoder. A frame's row is looked up
   when first needed (its CFA, a caller's register, the next step).
   Returns AMDDWARF_OK, AMDDWARF_NOT_FOUND (no such frame). */
AMDDWARF_API amddwarf_status amddwarf_unwinder_frame_pcs(const amddwarf_unwinder *unwinder,
                                                         size_t index, uint64_t *pc,
                                                         uint64_t *lookup_pc,
                                                         bool *backend_registers);

/* Reads SIZE bytes at byte OFFSET of register REGNO as frame INDEX sees it
   (frame 0: the target's register; frame N+1: frame N's rule for REGNO).
   Errors: AMDDWARF_NOT_FOUND (no such frame), E_EVAL_OPTIMIZED_OUT (the rule
   is undefined), E_CFI_NO_FDE (the callee frame has no row),
   E_CFI_UNEVALUABLE (a rule's expression failed or nests too deeply; ERR
   gives the cause), E_CFI_REGISTER_SIZE (a val_expression result whose size
   is not the register's), E_UNSUPPORTED (architectural rule), the target's
   and the evaluator's errors. */
AMDDWARF_API amddwarf_status amddwarf_unwinder_read_register(amddwarf_unwinder *unwinder,
                                                             size_t index, uint32_t regno,
                                                             uint64_t offset, uint64_t size,
                                                             void *buf, amddwarf_error *err);

/* A target interface for frame INDEX, for evaluating that frame's variable
   locations: registers read as amddwarf_unwinder_read_register does
   (writes are unsupported above frame 0), memory, lanes and DIEs pass
   through to the base target, `cfa` is the frame's CFA and
   `read_entry_register` reads the caller's (frame INDEX+1's) registers.
   NULL for no such frame; valid until amddwarf_unwinder_free. */
AMDDWARF_API const amddwarf_target *amddwarf_unwinder_frame_target(amddwarf_unwinder *unwinder,
                                                                   size_t index);

/* Names of rule kinds ("undefined", "same_value", "offset", ...). Static. */
AMDDWARF_API const char *amddwarf_cfi_rule_kind_name(amddwarf_cfi_rule_kind kind);

AMDDWARF_END_DECLS

#endif
