/* Internal layout of an indexed SPIR-V module, shared by the reader
 * (module.c), the resolver (resolve.c) and the record symbolizer (src/gpuav).
 *
 * The index keeps the walk's state (specs/spirv-instruction-index.md section
 * 2) every checkpoint_interval instructions; a look-up replays the walk from
 * the checkpoint before the instruction it wants, with the same step function
 * the build uses. Ids that debug locations refer to (OpString, 32-bit
 * OpConstant, DebugSource, OpExtInstImport) are in one hash map. */
#ifndef AMDDWARF_SPIRV_MODULE_H
#define AMDDWARF_SPIRV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amddwarf/spirv.h>
#include "common/arena.h"

#define AMDDWARF_SPIRV_MAGIC 0x07230203u
#define AMDDWARF_SPIRV_NONE UINT32_MAX

/* Instruction kinds of opcodes.def. */
typedef enum amddwarf_spirv_kind {
  AMDDWARF_SPIRV_KIND_BLOCK = 0,
  AMDDWARF_SPIRV_KIND_HEAD,
  AMDDWARF_SPIRV_KIND_TYPEVAL,
  AMDDWARF_SPIRV_KIND_LINE,
  AMDDWARF_SPIRV_KIND_NOLINE,
  AMDDWARF_SPIRV_KIND_FUNC,
  AMDDWARF_SPIRV_KIND_PARAM,
  AMDDWARF_SPIRV_KIND_LABEL,
  AMDDWARF_SPIRV_KIND_FEND,
  AMDDWARF_SPIRV_KIND_TERM,
} amddwarf_spirv_kind;

/* What GPU-assisted-validation instrumentation checks at an instruction
   (opcodes.def GUARD column). */
typedef enum amddwarf_spirv_guard {
  AMDDWARF_SPIRV_GUARD_NONE = 0,
  AMDDWARF_SPIRV_GUARD_IMAGE = 1,  /* image instructions */
  AMDDWARF_SPIRV_GUARD_MEMORY = 2, /* OpLoad / OpStore */
} amddwarf_spirv_guard;

/* Extended instruction sets the reader distinguishes. */
typedef enum amddwarf_spirv_set {
  AMDDWARF_SPIRV_SET_OTHER = 0,
  AMDDWARF_SPIRV_SET_SHADER_DEBUG,  /* NonSemantic.Shader.DebugInfo.100 */
  AMDDWARF_SPIRV_SET_OPENCL_DEBUG,  /* OpenCL.DebugInfo.100 */
  AMDDWARF_SPIRV_SET_DEBUGINFO,     /* DebugInfo */
  AMDDWARF_SPIRV_SET_PRINTF,        /* NonSemantic.DebugPrintf */
  AMDDWARF_SPIRV_SET_NONSEMANTIC,   /* any other NonSemantic.* set */
} amddwarf_spirv_set;

/* Instruction numbers within the debug-info sets (same in all three). */
enum {
  AMDDWARF_SPIRV_DEBUG_SCOPE = 23,
  AMDDWARF_SPIRV_DEBUG_NO_SCOPE = 24,
  AMDDWARF_SPIRV_DEBUG_DECLARE = 28,
  AMDDWARF_SPIRV_DEBUG_VALUE = 29,
  AMDDWARF_SPIRV_DEBUG_SOURCE = 35,
  /* NonSemantic.Shader.DebugInfo.100 only */
  AMDDWARF_SPIRV_DEBUG_FUNCTION_DEFINITION = 101,
  AMDDWARF_SPIRV_DEBUG_SOURCE_CONTINUED = 102,
  AMDDWARF_SPIRV_DEBUG_LINE = 103,
  AMDDWARF_SPIRV_DEBUG_NO_LINE = 104,
  /* NonSemantic.DebugPrintf */
  AMDDWARF_SPIRV_DEBUG_PRINTF = 1,
};

/* Hash map entry: id -> what defines it. */
typedef enum amddwarf_spirv_idkind {
  AMDDWARF_SPIRV_ID_STRING = 1,   /* value: index into strings[] */
  AMDDWARF_SPIRV_ID_CONSTANT,     /* value: the constant's first literal word */
  AMDDWARF_SPIRV_ID_SOURCE,       /* value: index into sources[] (DebugSource) */
  AMDDWARF_SPIRV_ID_IMPORT,       /* value: strings[] index of the name << 8 | amddwarf_spirv_set */
} amddwarf_spirv_idkind;

typedef struct amddwarf_spirv_identry {
  uint32_t id;    /* 0 = empty slot */
  uint32_t kind;
  uint32_t value;
} amddwarf_spirv_identry;

typedef struct amddwarf_spirv_directive {
  uint32_t text_line; /* 1-based line of TEXT holding the #line directive */
  uint32_t number;    /* its line number */
  const char *file;   /* its quoted file name, or NULL */
  size_t file_length;
} amddwarf_spirv_directive;

/* A source text: OpSource (+ OpSourceContinued) or DebugSource
   (+ DebugSourceContinued). */
typedef struct amddwarf_spirv_source {
  uint32_t file_string_id; /* OpString id of the file name, or 0 */
  uint32_t debug_source_id;/* DebugSource result id, or 0 for OpSource */
  char *text;              /* arena, NUL-terminated; NULL when there is no text */
  size_t text_length;
  uint32_t *line_starts;   /* offsets of each line's first byte */
  uint32_t line_count;
  amddwarf_spirv_directive *directives;
  uint32_t directive_count;
} amddwarf_spirv_source;

/* What the walk carries from one instruction to the next, as it stands
   before the instruction at a checkpoint: the counter, the line scope and
   where the walk is. Written once per checkpoint_interval instructions. */
typedef struct amddwarf_spirv_checkpoint {
  uint32_t word_offset;  /* of the instruction at the checkpoint */
  uint32_t slot;         /* the next instrumentation index */
  uint32_t active_position, active_word_offset; /* line in effect (propagated), or NONE */
  uint32_t pending;      /* line instructions since the last other instruction */
  uint32_t pending_position, pending_word_offset; /* the last of them; NONE for a no-line */
  uint32_t region;       /* 0 module level, 1 function outside blocks, 2 in a block */
} amddwarf_spirv_checkpoint;

/* The set of an OpExtInst as the build classified it, kept only for modules
   that define or redefine a set's import after an OpExtInst (invalid SPIR-V),
   where the final id map could classify differently. */
typedef struct amddwarf_spirv_ext_set {
  uint32_t position;
  uint32_t set; /* amddwarf_spirv_set */
} amddwarf_spirv_ext_set;

/* One instruction as a look-up finds it. */
typedef struct amddwarf_spirv_inst {
  uint32_t position;
  uint32_t word_offset;
  uint32_t line_position;    /* line instruction in effect, or NONE */
  uint32_t line_word_offset;
} amddwarf_spirv_inst;

/* Checkpoints a look-up by instrumentation index starts from: per
   AMDDWARF_SPIRV_GUIDE_STEP indexes, the last checkpoint at or before it. */
enum { AMDDWARF_SPIRV_GUIDE_STEP = 64 };

/* A checkpoint every 16 instructions: two bytes of index per instruction,
   and a look-up replays at most 15 steps. */
enum { AMDDWARF_SPIRV_CHECKPOINT_SHIFT = 4 };

struct amddwarf_spirv_module {
  amddwarf_allocator allocator;
  amddwarf_arena arena;
  amddwarf_spirv_header header;
  const uint32_t *words;    /* host-order words of the module */
  uint32_t *owned_words;    /* the copy WORDS points to, or NULL when borrowed */
  size_t word_count;
  uint32_t count;           /* instructions after the header */
  uint32_t slot_limit;      /* instrumentation indexes: the count's final n */
  uint32_t checkpoint_shift; /* checkpoint every 1 << shift instructions */
  amddwarf_spirv_checkpoint *checkpoints; /* [checkpoint_count] */
  uint32_t checkpoint_count;
  size_t checkpoint_capacity;
  uint32_t *guide;          /* [guide_count] checkpoint of index j * GUIDE_STEP */
  uint32_t guide_count;
  size_t guide_capacity;
  amddwarf_spirv_ext_set *ext_sets; /* by position; see amddwarf_spirv_ext_set */
  uint32_t ext_set_count;
  size_t ext_set_capacity;
  amddwarf_spirv_identry *ids; /* open addressing, id_capacity a power of two */
  uint32_t id_capacity;
  uint32_t id_used;
  struct amddwarf_spirv_string {
    const char *text; /* arena, NUL-terminated */
    size_t length;
  } *strings;
  uint32_t string_count;
  uint32_t string_capacity;
  amddwarf_spirv_source *sources;
  uint32_t source_count;
  uint32_t source_capacity;
  amddwarf_spirv_entry_point *entry_points; /* names in the arena */
  uint32_t entry_point_count;
  size_t entry_point_capacity;
};

/* Looks ID up; returns the entry or NULL. */
const amddwarf_spirv_identry *amddwarf__spirv_id_find(const amddwarf_spirv_module *module,
                                                     uint32_t id);

/* Result layout of OPCODE (opcodes.def RESULT column; 0 when not listed). */
unsigned amddwarf__spirv_opcode_result(uint32_t opcode);

/* GUARD column of OPCODE; NONE when not listed. */
amddwarf_spirv_guard amddwarf__spirv_opcode_guard(uint32_t opcode);

/* The OpString of ID, or NULL. */
const struct amddwarf_spirv_string *amddwarf__spirv_string_of(const amddwarf_spirv_module *module,
                                                             uint32_t id);

/* The instruction at POSITION (< count). */
void amddwarf__spirv_inst_at(const amddwarf_spirv_module *module, uint32_t position,
                             amddwarf_spirv_inst *out);

/* The instruction instrumentation index INDEX (< slot_limit) names; false
   when the index names a counted copy of a line instruction. */
bool amddwarf__spirv_inst_of_index(const amddwarf_spirv_module *module, uint32_t index,
                                   amddwarf_spirv_inst *out);

/* Staging of many look-ups, so that their memory accesses overlap instead
   of each look-up waiting for its own: the first asks the processor for the
   checkpoints a look-up of INDEX searches; the second, once those have
   arrived, for the words its replay reads and the line in effect at its
   checkpoint. Neither changes anything a look-up returns. */
void amddwarf__spirv_prefetch_search(const amddwarf_spirv_module *module, uint32_t index,
                                     amddwarf_spirv_index_mode mode);
void amddwarf__spirv_prefetch_replay(const amddwarf_spirv_module *module, uint32_t index,
                                     amddwarf_spirv_index_mode mode);

/* amddwarf_spirv_module_open with a checkpoint every 1 << SHIFT instructions
   (the tests make replays cross many checkpoints with small intervals). */
amddwarf_status amddwarf__spirv_module_open_every(const void *data, size_t size,
                                                  const amddwarf_spirv_options *options,
                                                  uint32_t shift, amddwarf_spirv_module **out,
                                                  amddwarf_error *err);

/* Builds line starts and #line directives of every source text. */
amddwarf_status amddwarf__spirv_sources_finish(amddwarf_spirv_module *module, amddwarf_error *err);

#endif
