/* Internals of the call frame information reader: the handle, the
 * instruction table generated from cfa.def, and the pieces the parser, the
 * instruction decoder and the row machine share. */
#ifndef AMDDWARF_CFI_INTERNAL_H
#define AMDDWARF_CFI_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/cfi.h>

#include "common/arena.h"
#include "common/reader.h"
#include "common/text.h"

/* DW_EH_PE pointer encodings (LSB Core, "DWARF Extensions": .eh_frame). */
enum {
  AMDDWARF_EH_PE_absptr = 0x00,
  AMDDWARF_EH_PE_uleb128 = 0x01,
  AMDDWARF_EH_PE_udata2 = 0x02,
  AMDDWARF_EH_PE_udata4 = 0x03,
  AMDDWARF_EH_PE_udata8 = 0x04,
  AMDDWARF_EH_PE_signed = 0x08,
  AMDDWARF_EH_PE_sleb128 = 0x09,
  AMDDWARF_EH_PE_sdata2 = 0x0a,
  AMDDWARF_EH_PE_sdata4 = 0x0b,
  AMDDWARF_EH_PE_sdata8 = 0x0c,
  AMDDWARF_EH_PE_pcrel = 0x10,
  AMDDWARF_EH_PE_textrel = 0x20,
  AMDDWARF_EH_PE_datarel = 0x30,
  AMDDWARF_EH_PE_funcrel = 0x40,
  AMDDWARF_EH_PE_aligned = 0x50,
  AMDDWARF_EH_PE_indirect = 0x80,
  AMDDWARF_EH_PE_omit = 0xff,
};

/* What the row machine does for an instruction (the action column of cfa.def). */
typedef enum amddwarf_cfa_action {
  CFA_ACT_NOP,
  CFA_ACT_SET_LOC,
  CFA_ACT_ADVANCE,
  CFA_ACT_OFFSET_UF,
  CFA_ACT_OFFSET_SF,
  CFA_ACT_OFFSET_NEG,
  CFA_ACT_VAL_OFFSET_UF,
  CFA_ACT_VAL_OFFSET_SF,
  CFA_ACT_RESTORE,
  CFA_ACT_UNDEFINED,
  CFA_ACT_SAME_VALUE,
  CFA_ACT_REGISTER,
  CFA_ACT_REMEMBER,
  CFA_ACT_RESTORE_STATE,
  CFA_ACT_DEF_CFA,
  CFA_ACT_DEF_CFA_SF,
  CFA_ACT_DEF_CFA_REG,
  CFA_ACT_DEF_CFA_OFF,
  CFA_ACT_DEF_CFA_OFF_SF,
  CFA_ACT_DEF_CFA_EXPR,
  CFA_ACT_DEF_CFA_ASPACE,
  CFA_ACT_DEF_ASPACE_CFA,
  CFA_ACT_DEF_ASPACE_CFA_SF,
  CFA_ACT_EXPRESSION,
  CFA_ACT_VAL_EXPRESSION,
  CFA_ACT_ARGS_SIZE,
  CFA_ACT_REJECT,
} amddwarf_cfa_action;

typedef enum amddwarf_cfa_operand {
  CFA_OPND_NONE,
  CFA_OPND_LOW6_DELTA,
  CFA_OPND_LOW6_REG,
  CFA_OPND_DELTA8,
  CFA_OPND_DELTA16,
  CFA_OPND_DELTA32,
  CFA_OPND_DELTA64,
  CFA_OPND_UOFF,
  CFA_OPND_UFACT,
  CFA_OPND_SFACT,
  CFA_OPND_ASPACE,
  CFA_OPND_REG,
  CFA_OPND_ADDR,
  CFA_OPND_BLOCK,
} amddwarf_cfa_operand;

typedef enum amddwarf_cfa_dialects {
  CFA_DIALECTS_ALL,
  CFA_DIALECTS_DRAFT,
  CFA_DIALECTS_NOT_DRAFT,
} amddwarf_cfa_dialects;

typedef struct amddwarf_cfa_desc {
  amddwarf_cfa_info info;
  amddwarf_cfa_dialects dialects;
  amddwarf_cfa_action action;
  amddwarf_cfa_operand operands[3];
} amddwarf_cfa_desc;

/* The table, indexed by kind. */
extern const amddwarf_cfa_desc amddwarf__cfa_table[AMDDWARF_CFA_KIND_COUNT];

/* Per-FDE cache slot: the computed row table, or the error that stopped it. */
typedef struct amddwarf_cfi_rows {
  const amddwarf_cfi_row *rows;
  uint32_t count;
  atomic_bool done;         /* computed (successfully or not); set last, with
                               release order, so a reader that sees it set
                               sees the rest */
  amddwarf_status status;   /* outcome once done */
  amddwarf_error *error;    /* in the arena, when status is an error */
} amddwarf_cfi_rows;

/* One index entry: FDEs sorted by initial location. */
typedef struct amddwarf_cfi_index_entry {
  uint64_t start, end;
  uint32_t fde;
  bool overlaps; /* another FDE's range meets this one's */
} amddwarf_cfi_index_entry;

/* The state of one FDE's slot in amddwarf_cfi.fdes. */
typedef enum amddwarf_fde_state {
  FDE_UNPARSED = 0, /* zeroed: not parsed yet */
  FDE_READY = 1,    /* parsed and published */
  FDE_WRITING = 2,  /* claimed by the thread that writes it */
} amddwarf_fde_state;

struct amddwarf_cfi {
  amddwarf_allocator allocator;
  amddwarf_arena arena;          /* rows and rules */
  amddwarf_cfi_options options;  /* copy; options.target resolved */
  const amddwarf_cfi_target *target;
  uint8_t *owned_data;           /* the section copy of options.copy_data */
  size_t owned_size;
  amddwarf_cfi_cie *cies;
  size_t cie_count, cie_capacity;
  /* Every FDE is parsed at open (so a bad one fails open) but kept only as
     its offset and index entry; its amddwarf_cfi_fde is parsed again into
     FDES (zeroed pages until then) on first use, without a lock, and
     published by FDE_READY (an amddwarf_fde_state; the first thread to
     claim the slot writes it, release/acquire). A big .debug_frame keeps
     resident only the FDEs a question touched. */
  amddwarf_cfi_fde *fdes;
  size_t fde_count, fde_capacity;
  uint64_t *fde_offsets;         /* fde_count entries */
  _Atomic unsigned char *fde_ready;
  amddwarf_cfi_index_entry *index;
  size_t index_count;
  /* Search helpers: the start of every index entry, and of every
     AMDDWARF_CFI_INDEX_BLOCK-th one, so a look-up touches a few cache lines
     of a small table and one block of the large one. */
  uint64_t *starts;
  uint64_t *top;
  size_t top_count;
  amddwarf_cfi_rows *fde_rows;   /* fde_count slots */
  amddwarf_cfi_rows *cie_rows;   /* cie_count slots */
  /* Rows are computed under ROWS_LOCK (recursive: an FDE's rows compute
     its CIE's), so threads unwinding at once may share the handle. */
  pthread_mutex_t rows_lock;
  bool rows_lock_ready;
  /* The row found last, answered again for a PC inside it; never a row of
     an FDE that overlaps another, where the index picks one FDE of several
     that cover a PC and the row may be another's. */
  _Atomic(const amddwarf_cfi_row *) last_row;
  /* Instructions for FDEs without any (amddwarf_cfi_set_synthesizer). */
  amddwarf_cfi_synthesize_fn synthesize;
  void *synthesize_user;
};

enum { AMDDWARF_CFI_INDEX_BLOCK = 64 };

/* FDE INDEX (below fde_count), parsed again on first use: it was parsed
   at open, so this cannot fail. */
const amddwarf_cfi_fde *amddwarf__cfi_fde(const amddwarf_cfi *cfi, size_t index);

/* The register name the llvm-dwarfdump-19 spellings print
   (amddwarf_cfi_insn_print, amddwarf_cfi_row_print): for AMDGPU the names
   LLVM gives (AMDDWARF_REGISTER_LLVM_NAME: PC_REG, EXEC), else
   amddwarf_cfi_register_name's. */
void amddwarf__cfi_dump_register_name(const amddwarf_cfi_target *target, uint32_t reg, char *buf,
                                     size_t size);

/* Position in cfi->index of the entry covering PC, or SIZE_MAX. */
size_t amddwarf__cfi_index_find(const amddwarf_cfi *cfi, uint64_t pc);

/* Reads a DW_EH_PE-encoded pointer at R (FIELD_ADDRESS is the address of the
   field, for pcrel). FUNC_BASE is the function start for funcrel (0 if none).
   Offsets in ERR are section offsets. */
amddwarf_status amddwarf__cfi_read_encoded(const amddwarf_cfi *cfi, amddwarf_reader *r,
                                          uint8_t encoding, uint8_t address_size,
                                          uint64_t func_base, uint64_t *out,
                                          amddwarf_error *err);

/* True when ENCODING is a valid DW_EH_PE combination (omit excluded). */
bool amddwarf__cfi_encoding_valid(uint8_t encoding);

/* Decodes the DWARF expression EXPR (SIZE bytes) of an entry using CIE (NULL:
   the target's address size) into STACK_OPS when it fits, else into a heap
   array; *OPS is set either way and must be given to
   amddwarf__cfi_expr_release. */
amddwarf_status amddwarf__cfi_expr_decode(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                                         const uint8_t *expr, size_t size,
                                         amddwarf_op *stack_ops, size_t stack_capacity,
                                         amddwarf_op **ops, size_t *count, amddwarf_error *err);
void amddwarf__cfi_expr_release(const amddwarf_cfi *cfi, amddwarf_op *ops,
                               const amddwarf_op *stack_ops, size_t size);

/* Appends a DWARF expression with the target's register names to OUT. */
void amddwarf__cfi_expr_print(const amddwarf_cfi *cfi, const amddwarf_cfi_cie *cie,
                             const uint8_t *expr, uint64_t size, amddwarf_text *out);

#endif
