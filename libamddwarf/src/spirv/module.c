/* SPIR-V module reader: header, bounds-checked instruction walk, and the
 * one-pass index from instruction index to instruction and line scope.
 * The counting rules are in specs/spirv-instruction-index.md. */
#include <stddef.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"
#include "spirv/module.h"

/* ---- opcode table ---------------------------------------------------- */

/* Names in table order, for amddwarf_spirv_opcode_name. */
typedef struct opcode_row {
  const char *name;
  uint16_t value;
} opcode_row;

static const opcode_row opcode_rows[] = {
#define AMDDWARF_SPIRV_OP(name, value, kind, result, guard) {"Op" #name, value},
#include "spirv/opcodes.def"
#undef AMDDWARF_SPIRV_OP
};

enum {
#define AMDDWARF_SPIRV_OP(name, value, kind, result, guard) OPCODE_ROW_##name,
#include "spirv/opcodes.def"
#undef AMDDWARF_SPIRV_OP
  OPCODE_ROW_COUNT
};
_Static_assert(sizeof(opcode_rows) / sizeof(opcode_rows[0]) == OPCODE_ROW_COUNT,
               "opcode table size");
_Static_assert(OPCODE_ROW_COUNT > 100 && OPCODE_ROW_COUNT < 255, "rows fit a byte");

/* Per listed opcode, by value (0: not listed): kind + 1 in the low nibble,
   the result layout in bits 4-5 and the guard in bits 6-7; and the row + 1
   of its name. The
   designated initializers reject a value past the limit; a value listed
   twice is caught by the unit test that finds every row by its value. */
enum { OPCODE_DENSE_LIMIT = 5634 };
static const uint8_t opcode_dense[OPCODE_DENSE_LIMIT] = {
#define AMDDWARF_SPIRV_OP(name, value, kind, result, guard) \
  [value] = (uint8_t)((AMDDWARF_SPIRV_KIND_##kind + 1) | (result) << 4 | \
                      AMDDWARF_SPIRV_GUARD_##guard << 6),
#include "spirv/opcodes.def"
#undef AMDDWARF_SPIRV_OP
};
static const uint8_t opcode_row_of[OPCODE_DENSE_LIMIT] = {
#define AMDDWARF_SPIRV_OP(name, value, kind, result, guard) [value] = OPCODE_ROW_##name + 1,
#include "spirv/opcodes.def"
#undef AMDDWARF_SPIRV_OP
};
_Static_assert(AMDDWARF_SPIRV_KIND_TERM + 1 < 16, "kinds fit a nibble");

/* Opcodes that define something the index keeps (note_definitions). */
#define DEFINES(value)                                                                        \
  ((value) == 2 || (value) == 3 || (value) == 7 || (value) == 8 || (value) == 11 ||           \
   (value) == 12 || (value) == 15 || (value) == 43)

/* Per listed opcode, what the walk asks of it in one read: its kind + 1
   (0 for an unlisted opcode, a plain BLOCK one), whether it defines
   something (DEFINES), and whether inside a block it is not a plain
   instruction (walk_plain): it defines something, or its kind is not one of
   BLOCK, HEAD and TYPEVAL (all BLOCK inside a block). */
enum { OPCODE_KIND = 15, OPCODE_NOT_PLAIN = 16, OPCODE_DEFINES = 32 };
static const uint8_t opcode_walk[OPCODE_DENSE_LIMIT] = {
#define AMDDWARF_SPIRV_OP(name, value, kind, result, guard)                                   \
  [value] = (AMDDWARF_SPIRV_KIND_##kind + 1) |                                                \
            (DEFINES(value) ? OPCODE_DEFINES | OPCODE_NOT_PLAIN : 0) |                        \
            (AMDDWARF_SPIRV_KIND_##kind != AMDDWARF_SPIRV_KIND_BLOCK &&                       \
                     AMDDWARF_SPIRV_KIND_##kind != AMDDWARF_SPIRV_KIND_HEAD &&                \
                     AMDDWARF_SPIRV_KIND_##kind != AMDDWARF_SPIRV_KIND_TYPEVAL                \
                 ? OPCODE_NOT_PLAIN                                                           \
                 : 0),
#include "spirv/opcodes.def"
#undef AMDDWARF_SPIRV_OP
};

static bool is_plain(uint32_t opcode)
{
  return opcode >= OPCODE_DENSE_LIMIT || !(opcode_walk[opcode] & OPCODE_NOT_PLAIN);
}

unsigned amddwarf__spirv_opcode_result(uint32_t opcode)
{
  return opcode < OPCODE_DENSE_LIMIT ? (unsigned)(opcode_dense[opcode] >> 4 & 3) : 0;
}

amddwarf_spirv_guard amddwarf__spirv_opcode_guard(uint32_t opcode)
{
  return opcode < OPCODE_DENSE_LIMIT ? (amddwarf_spirv_guard)(opcode_dense[opcode] >> 6)
                                     : AMDDWARF_SPIRV_GUARD_NONE;
}

const char *amddwarf_spirv_opcode_name(uint32_t opcode)
{
  unsigned row = opcode < OPCODE_DENSE_LIMIT ? opcode_row_of[opcode] : 0;
  return row ? opcode_rows[row - 1].name : NULL;
}

/* ---- id map ---------------------------------------------------------- */

static uint32_t id_hash(uint32_t id)
{
  return id * 0x9e3779b1u;
}

const amddwarf_spirv_identry *amddwarf__spirv_id_find(const amddwarf_spirv_module *m, uint32_t id)
{
  if (id == 0 || m->id_capacity == 0)
    return NULL;
  uint32_t mask = m->id_capacity - 1;
  for (uint32_t i = id_hash(id) & mask;; i = (i + 1) & mask) {
    if (m->ids[i].id == id)
      return &m->ids[i];
    if (m->ids[i].id == 0)
      return NULL;
  }
}

static int id_slot_insert(amddwarf_spirv_identry *table, uint32_t capacity,
                          const amddwarf_spirv_identry *e)
{
  uint32_t mask = capacity - 1;
  for (uint32_t i = id_hash(e->id) & mask;; i = (i + 1) & mask) {
    if (table[i].id == 0 || table[i].id == e->id) {
      int fresh = table[i].id == 0;
      table[i] = *e;
      return fresh;
    }
  }
}

/* Records ID; a later definition of the same id replaces the earlier one. */
static int id_insert(amddwarf_spirv_module *m, uint32_t id, uint32_t kind, uint32_t value)
{
  if (id == 0)
    return 0;
  if ((uint64_t)(m->id_used + 1) * 10 > (uint64_t)m->id_capacity * 7) {
    uint32_t capacity = m->id_capacity ? m->id_capacity * 2 : 64;
    if (capacity == 0 || capacity > (UINT32_C(1) << 28))
      return -1;
    amddwarf_spirv_identry *table =
        amddwarf__mem_calloc(&m->allocator, capacity, sizeof(*table));
    if (!table)
      return -1;
    for (uint32_t i = 0; i < m->id_capacity; i++)
      if (m->ids[i].id)
        id_slot_insert(table, capacity, &m->ids[i]);
    amddwarf__mem_free(&m->allocator, m->ids, sizeof(*m->ids) * m->id_capacity);
    m->ids = table;
    m->id_capacity = capacity;
  }
  amddwarf_spirv_identry e = {id, kind, value};
  m->id_used += (uint32_t)id_slot_insert(m->ids, m->id_capacity, &e);
  return 0;
}

/* ---- strings and sources --------------------------------------------- */

/* Decodes the literal string in words [FIRST, WC) of the instruction at AT.
   Returns 0 with TEXT and LENGTH set to a fresh arena copy, or -1 when the
   string has no NUL inside the instruction, or -2 when memory ran out. */
static int decode_string(amddwarf_spirv_module *m, uint32_t at, uint32_t wc, uint32_t first,
                         const char **text, size_t *length)
{
  if (first >= wc)
    return -1;
  size_t max = (size_t)(wc - first) * 4;
  size_t n = 0;
  const uint32_t *w = m->words + at + first;
  while (n < max && ((w[n / 4] >> (8 * (n % 4))) & 0xff) != 0)
    n++;
  if (n == max)
    return -1;
  char *copy = amddwarf__arena_alloc(&m->arena, n + 1, 1);
  if (!copy)
    return -2;
  for (size_t i = 0; i < n; i++)
    copy[i] = (char)((w[i / 4] >> (8 * (i % 4))) & 0xff);
  copy[n] = '\0';
  *text = copy;
  *length = n;
  return 0;
}

const struct amddwarf_spirv_string *amddwarf__spirv_string_of(const amddwarf_spirv_module *m,
                                                             uint32_t id)
{
  const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, id);
  if (!e || e->kind != AMDDWARF_SPIRV_ID_STRING)
    return NULL;
  return &m->strings[e->value];
}

const char *amddwarf_spirv_module_string(const amddwarf_spirv_module *m, uint32_t id)
{
  const struct amddwarf_spirv_string *s = m ? amddwarf__spirv_string_of(m, id) : NULL;
  return s ? s->text : NULL;
}

/* Appends a decoded string to strings[]; its index is string_count - 1. */
static int string_add(amddwarf_spirv_module *m, const char *text, size_t length)
{
  size_t cap = m->string_capacity;
  void *items = m->strings;
  if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)m->string_count + 1,
                           sizeof(*m->strings)) != 0)
    return -1;
  m->strings = items;
  m->string_capacity = (uint32_t)cap;
  m->strings[m->string_count].text = text;
  m->strings[m->string_count].length = length;
  m->string_count++;
  return 0;
}

static amddwarf_spirv_source *source_new(amddwarf_spirv_module *m)
{
  size_t cap = m->source_capacity;
  void *items = m->sources;
  if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)m->source_count + 1,
                           sizeof(amddwarf_spirv_source)) != 0)
    return NULL;
  m->sources = items;
  m->source_capacity = (uint32_t)cap;
  amddwarf_spirv_source *s = &m->sources[m->source_count++];
  memset(s, 0, sizeof(*s));
  return s;
}

/* Appends TEXT to source S; the text buffer is malloc'ed through the
   module's allocator (capacity kept in line_count until finish). */
static int source_append(amddwarf_spirv_module *m, amddwarf_spirv_source *s, const char *text,
                         size_t length)
{
  size_t old = s->text ? s->text_length + 1 : 0;
  size_t needed;
  if (amddwarf_add_overflow_size(s->text_length, length + 1, &needed))
    return -1;
  char *grown = amddwarf__mem_realloc(&m->allocator, s->text, old, needed);
  if (!grown)
    return -1;
  memcpy(grown + s->text_length, text, length);
  grown[s->text_length + length] = '\0';
  s->text = grown;
  s->text_length += length;
  return 0;
}

static amddwarf_spirv_set classify_set(const char *name)
{
  if (strcmp(name, "NonSemantic.Shader.DebugInfo.100") == 0)
    return AMDDWARF_SPIRV_SET_SHADER_DEBUG;
  if (strcmp(name, "OpenCL.DebugInfo.100") == 0)
    return AMDDWARF_SPIRV_SET_OPENCL_DEBUG;
  if (strcmp(name, "DebugInfo") == 0)
    return AMDDWARF_SPIRV_SET_DEBUGINFO;
  if (strcmp(name, "NonSemantic.DebugPrintf") == 0)
    return AMDDWARF_SPIRV_SET_PRINTF;
  if (strncmp(name, "NonSemantic.", 12) == 0)
    return AMDDWARF_SPIRV_SET_NONSEMANTIC;
  return AMDDWARF_SPIRV_SET_OTHER;
}

static bool set_is_debuginfo(uint32_t set)
{
  return set == AMDDWARF_SPIRV_SET_SHADER_DEBUG || set == AMDDWARF_SPIRV_SET_OPENCL_DEBUG ||
         set == AMDDWARF_SPIRV_SET_DEBUGINFO;
}

/* ---- definitions ------------------------------------------------------ */

/* What the build remembers besides the count: the sources that continued
   text appends to, and whether an OpExtInst's set could be classified
   differently by the final id map than by the map as the build saw it. */
typedef struct definitions {
  amddwarf_spirv_source *last_op_source;
  amddwarf_spirv_source *last_debug_source;
  bool ext_inst_seen;  /* an OpExtInst's set has been classified */
  bool sets_unstable;  /* and an import was defined or replaced after that */
  bool record_sets;    /* keep each OpExtInst's set (module.h, amddwarf_spirv_ext_set) */
} definitions;

static amddwarf_status fail_operand(amddwarf_error *err, uint32_t at, uint32_t opcode,
                                    const char *what)
{
  return amddwarf__fail_op(err, AMDDWARF_E_SPIRV_BAD_OPERAND, (uint64_t)at * 4, (int32_t)opcode,
                          AMDDWARF_NO_OPCODE, "SPIR-V %s at byte offset %llu: %s",
                          amddwarf_spirv_opcode_name(opcode) ? amddwarf_spirv_opcode_name(opcode)
                                                             : "instruction",
                          (unsigned long long)at * 4, what);
}

static amddwarf_status fail_memory(amddwarf_error *err)
{
  return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                       "out of memory while indexing the SPIR-V module");
}

/* id_insert, noting when the insert changes how an OpExtInst walked
   before it would classify its set. */
static int note_id(amddwarf_spirv_module *m, definitions *defs, uint32_t id, uint32_t kind,
                   uint32_t value)
{
  if (defs->ext_inst_seen && !defs->sets_unstable) {
    const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, id);
    defs->sets_unstable =
        kind == AMDDWARF_SPIRV_ID_IMPORT || (e && e->kind == AMDDWARF_SPIRV_ID_IMPORT);
  }
  return id_insert(m, id, kind, value);
}

/* Records what debug locations need from one instruction. */
static amddwarf_status note_definitions(amddwarf_spirv_module *m, definitions *defs, uint32_t at,
                                        uint32_t wc, uint32_t opcode, uint32_t set,
                                        amddwarf_error *err)
{
  const uint32_t *w = m->words + at;
  const char *text;
  size_t length;
  int rc;
  switch (opcode) {
  case 7: /* OpString */
    if (wc < 3)
      return fail_operand(err, at, opcode, "missing result id or string");
    rc = decode_string(m, at, wc, 2, &text, &length);
    if (rc == -1)
      return fail_operand(err, at, opcode, "string has no terminating NUL");
    if (rc == -2)
      return fail_memory(err);
    if (string_add(m, text, length) != 0 ||
        note_id(m, defs, w[1], AMDDWARF_SPIRV_ID_STRING, m->string_count - 1) != 0)
      return fail_memory(err);
    return AMDDWARF_OK;
  case 3: /* OpSource: language, version, [file], [text] */
    if (wc < 3)
      return fail_operand(err, at, opcode, "missing language or version");
    {
      amddwarf_spirv_source *s = source_new(m);
      if (!s)
        return fail_memory(err);
      s->file_string_id = wc > 3 ? w[3] : 0;
      defs->last_op_source = s;
      if (wc > 4) {
        rc = decode_string(m, at, wc, 4, &text, &length);
        if (rc == -1)
          return fail_operand(err, at, opcode, "source text has no terminating NUL");
        if (rc == -2 || source_append(m, s, text, length) != 0)
          return fail_memory(err);
      }
    }
    return AMDDWARF_OK;
  case 2: /* OpSourceContinued */
    if (wc < 2)
      return fail_operand(err, at, opcode, "missing continued text");
    rc = decode_string(m, at, wc, 1, &text, &length);
    if (rc == -1)
      return fail_operand(err, at, opcode, "continued text has no terminating NUL");
    if (rc == -2)
      return fail_memory(err);
    if (defs->last_op_source && source_append(m, defs->last_op_source, text, length) != 0)
      return fail_memory(err);
    return AMDDWARF_OK;
  case 8: /* OpLine */
    if (wc != 4)
      return fail_operand(err, at, opcode, "OpLine takes file, line and column");
    return AMDDWARF_OK;
  case 11: /* OpExtInstImport */
    if (wc < 3)
      return fail_operand(err, at, opcode, "missing result id or name");
    rc = decode_string(m, at, wc, 2, &text, &length);
    if (rc == -1)
      return fail_operand(err, at, opcode, "set name has no terminating NUL");
    if (rc == -2 || m->string_count >= (UINT32_C(1) << 24) || string_add(m, text, length) != 0 ||
        note_id(m, defs, w[1], AMDDWARF_SPIRV_ID_IMPORT,
                  ((m->string_count - 1) << 8) | (uint32_t)classify_set(text)) != 0)
      return fail_memory(err);
    return AMDDWARF_OK;
  case 15: /* OpEntryPoint: execution model, function, name, interface */
    if (wc < 4)
      return fail_operand(err, at, opcode, "missing execution model, function or name");
    rc = decode_string(m, at, wc, 3, &text, &length);
    if (rc == -1)
      return fail_operand(err, at, opcode, "entry point name has no terminating NUL");
    if (rc == -2)
      return fail_memory(err);
    {
      void *items = m->entry_points;
      size_t cap = m->entry_point_capacity;
      if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)m->entry_point_count + 1,
                               sizeof(amddwarf_spirv_entry_point)) != 0)
        return fail_memory(err);
      m->entry_points = items;
      m->entry_point_capacity = cap;
      amddwarf_spirv_entry_point *e = &m->entry_points[m->entry_point_count++];
      e->execution_model = w[1];
      e->function_id = w[2];
      e->name = text;
    }
    return AMDDWARF_OK;
  case 43: /* OpConstant */
    if (wc >= 4 && note_id(m, defs, w[2], AMDDWARF_SPIRV_ID_CONSTANT, w[3]) != 0)
      return fail_memory(err);
    return AMDDWARF_OK;
  case 12: /* OpExtInst */
    if (set != AMDDWARF_SPIRV_SET_SHADER_DEBUG && set != AMDDWARF_SPIRV_SET_OPENCL_DEBUG)
      return AMDDWARF_OK;
    if (w[4] == AMDDWARF_SPIRV_DEBUG_SOURCE) {
      if (wc < 6)
        return fail_operand(err, at, opcode, "DebugSource lacks its file operand");
      amddwarf_spirv_source *s = source_new(m);
      if (!s)
        return fail_memory(err);
      s->file_string_id = w[5];
      s->debug_source_id = w[2];
      defs->last_debug_source = s;
      if (note_id(m, defs, w[2], AMDDWARF_SPIRV_ID_SOURCE, m->source_count - 1) != 0)
        return fail_memory(err);
      if (wc > 6) {
        const struct amddwarf_spirv_string *str = amddwarf__spirv_string_of(m, w[6]);
        if (str && source_append(m, s, str->text, str->length) != 0)
          return fail_memory(err);
      }
    } else if (set == AMDDWARF_SPIRV_SET_SHADER_DEBUG) {
      if (w[4] == AMDDWARF_SPIRV_DEBUG_SOURCE_CONTINUED) {
        if (wc < 6)
          return fail_operand(err, at, opcode, "DebugSourceContinued lacks its text operand");
        const struct amddwarf_spirv_string *str = amddwarf__spirv_string_of(m, w[5]);
        if (str && defs->last_debug_source &&
            source_append(m, defs->last_debug_source, str->text, str->length) != 0)
          return fail_memory(err);
      } else if (w[4] == AMDDWARF_SPIRV_DEBUG_LINE && wc < 10) {
        return fail_operand(err, at, opcode,
                            "DebugLine takes source, line start and end, column start and end");
      }
    }
    return AMDDWARF_OK;
  default:
    return AMDDWARF_OK;
  }
}

/* ---- the walk ---------------------------------------------------------- */

/* The walk between two instructions: a checkpoint's state, where the walk
   is, the line in effect for the instruction just walked, and a one-entry
   cache of the last set classified. */
typedef struct walk_state {
  amddwarf_spirv_checkpoint carry; /* what a checkpoint keeps */
  uint32_t position;  /* of the next instruction, at carry.word_offset */
  uint32_t line_position, line_word_offset; /* line in effect for the instruction just walked */
  uint32_t cached_set_id, cached_set;
} walk_state;

/* The walk from checkpoint C of a module (C = 0 starts the module). */
static void walk_resume(const amddwarf_spirv_module *m, uint32_t c, walk_state *ws)
{
  static const amddwarf_spirv_checkpoint start = {5, 0, AMDDWARF_SPIRV_NONE, AMDDWARF_SPIRV_NONE,
                                                  0, AMDDWARF_SPIRV_NONE, AMDDWARF_SPIRV_NONE, 0};
  const amddwarf_spirv_checkpoint *cp = c < m->checkpoint_count ? &m->checkpoints[c] : &start;
  ws->carry = *cp;
  ws->position = c << m->checkpoint_shift;
  ws->line_position = ws->line_word_offset = AMDDWARF_SPIRV_NONE;
  ws->cached_set_id = 0; /* id 0 is never defined: the set is OTHER */
  ws->cached_set = AMDDWARF_SPIRV_SET_OTHER;
}

/* The set a replayed OpExtInst at POSITION had when the build walked it. */
static uint32_t recorded_set(const amddwarf_spirv_module *m, uint32_t position)
{
  uint32_t lo = 0, hi = m->ext_set_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (m->ext_sets[mid].position < position)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < m->ext_set_count && m->ext_sets[lo].position == position ? m->ext_sets[lo].set
                                                                       : AMDDWARF_SPIRV_SET_OTHER;
}

/* The set of the OpExtInst at the walk's position importing SET_ID. */
static inline uint32_t set_of(const amddwarf_spirv_module *m, walk_state *ws, uint32_t set_id,
                       bool replay)
{
  if (replay && m->ext_set_count)
    return recorded_set(m, ws->position);
  if (set_id != ws->cached_set_id) {
    const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, set_id);
    ws->cached_set_id = set_id;
    ws->cached_set =
        e && e->kind == AMDDWARF_SPIRV_ID_IMPORT ? (e->value & 0xff) : AMDDWARF_SPIRV_SET_OTHER;
  }
  return ws->cached_set;
}

/* The walk's kinds: those of opcodes.def, as opcode_walk has them (kind
   + 1; 0 for an unlisted opcode, a BLOCK one), and the kinds of OpExtInst
   by its set and instruction number. */
#define WALK(kind) (1 + AMDDWARF_SPIRV_KIND_##kind)
enum {
  KIND_UNLISTED = 0,
  KIND_EXT_SCOPE = WALK(TERM) + 1, /* DebugScope, DebugNoScope */
  KIND_EXT_DEBUG,  /* other debug-info instructions */
  KIND_EXT_OTHER,  /* instructions of other sets */
  STEP_KINDS
};

/* The count's rules (specs/spirv-instruction-index.md section 2), per kind
   and region: whether the instruction takes an index of its own (SLOT) and
   the copies of its attached lines before it (LINES), whether it ends the
   line scope, whether it is a line instruction, a no-line or a scope (not
   counted), and the region after it. */
enum {
  RULE_SLOT = 1,
  RULE_LINES = 2,
  RULE_ENDS_SCOPE = 4,
  RULE_LINE = 8,
  RULE_NO_LINE = 16,
  RULE_SCOPE = 32,
  RULE_REGION_SHIFT = 6,
};
/* The rules of a kind in the three regions, a byte each: the walk picks
   its byte by shifting, so the region it carries to the next instruction
   does not wait for a table read. */
#define TO(region) ((region) << RULE_REGION_SHIFT)
#define REGIONS(module, function, block) {module, function, block, 0}
#define COUNTED (RULE_SLOT | RULE_LINES)
static const uint8_t step_rules[STEP_KINDS][4] = {
    /* region:                     0 module level     1 function, no block  2 inside a block */
    [KIND_UNLISTED] = REGIONS(COUNTED | TO(0), RULE_SLOT | TO(1), COUNTED | TO(2)),
    [WALK(BLOCK)] = REGIONS(COUNTED | TO(0), RULE_SLOT | TO(1), COUNTED | TO(2)),
    [WALK(HEAD)] = REGIONS(RULE_SLOT | TO(0), RULE_SLOT | TO(1), COUNTED | TO(2)),
    [WALK(TYPEVAL)] = REGIONS(COUNTED | TO(0), RULE_SLOT | TO(1), COUNTED | TO(2)),
    [WALK(LINE)] = REGIONS(RULE_LINE | TO(0), RULE_LINE | TO(1), RULE_LINE | TO(2)),
    [WALK(NOLINE)] = REGIONS(RULE_NO_LINE | TO(0), RULE_NO_LINE | TO(1),
                                           RULE_NO_LINE | TO(2)),
    [WALK(FUNC)] = REGIONS(RULE_SLOT | TO(1), RULE_SLOT | TO(1), RULE_SLOT | TO(1)),
    /* parameters count their lines too */
    [WALK(PARAM)] = REGIONS(COUNTED | TO(0), COUNTED | TO(1), COUNTED | TO(2)),
    [WALK(LABEL)] = REGIONS(RULE_SLOT | TO(2), RULE_SLOT | TO(2), RULE_SLOT | TO(2)),
    [WALK(FEND)] = REGIONS(RULE_SLOT | RULE_ENDS_SCOPE | TO(0),
                                         RULE_SLOT | RULE_ENDS_SCOPE | TO(0),
                                         RULE_SLOT | RULE_ENDS_SCOPE | TO(0)),
    [WALK(TERM)] = REGIONS(RULE_SLOT | TO(0), RULE_SLOT | TO(1),
                                         COUNTED | RULE_ENDS_SCOPE | TO(1)),
    [KIND_EXT_SCOPE] = REGIONS(RULE_SCOPE | TO(0), RULE_SCOPE | TO(1), RULE_SCOPE | TO(2)),
    /* DebugDeclare/DebugValue between OpFunction and the first label belong
       to the function header, which the count skips. */
    [KIND_EXT_DEBUG] = REGIONS(RULE_SLOT | TO(0), TO(1), COUNTED | TO(2)),
    [KIND_EXT_OTHER] = REGIONS(COUNTED | TO(0), TO(1), COUNTED | TO(2)),
};
#undef COUNTED
#undef REGIONS
#undef TO

/* The kind of OpExtInst W (WC words, at least 5) at the walk's position. */
/* Inlined, as everything that takes the walk's state: the loops keep it in
   registers only while its address goes nowhere else. */
__attribute__((always_inline)) static inline unsigned ext_kind(const amddwarf_spirv_module *m,
                                                               walk_state *ws, const uint32_t *w,
                         bool replay, uint32_t *set_out)
{
  uint32_t set = set_of(m, ws, w[3], replay);
  *set_out = set;
  if (!set_is_debuginfo(set))
    return KIND_EXT_OTHER;
  uint32_t op = w[4];
  if (op == AMDDWARF_SPIRV_DEBUG_SCOPE || op == AMDDWARF_SPIRV_DEBUG_NO_SCOPE)
    return KIND_EXT_SCOPE;
  if (set == AMDDWARF_SPIRV_SET_SHADER_DEBUG && op == AMDDWARF_SPIRV_DEBUG_LINE)
    return WALK(LINE);
  if (set == AMDDWARF_SPIRV_SET_SHADER_DEBUG && op == AMDDWARF_SPIRV_DEBUG_NO_LINE)
    return WALK(NOLINE);
  return KIND_EXT_DEBUG;
}

/* The count's rules applied to the instruction at the walk's word offset
   (WC words) of kind KIND, the one place that applies them: takes its
   instrumentation indexes (the copies of its attached lines, then its own),
   moves the line scope and sets ws->line_* to the line in effect for it.
   Inlined into loops that keep the walk's state in registers. */
__attribute__((always_inline)) static inline void apply_rules(walk_state *ws, unsigned kind,
                                                              uint32_t wc)
{
  amddwarf_spirv_checkpoint *c = &ws->carry;
  uint32_t p = ws->position, at = c->word_offset;
  unsigned rule = step_rules[kind][c->region];
  ws->position = p + 1;
  c->word_offset = at + wc;
  c->region = rule >> RULE_REGION_SHIFT;
  if (rule & (RULE_LINE | RULE_NO_LINE)) {
    /* Not counted where it stands: attached to the next instruction. */
    bool line = (rule & RULE_LINE) != 0;
    c->pending++;
    c->pending_position = ws->line_position = line ? p : AMDDWARF_SPIRV_NONE;
    c->pending_word_offset = ws->line_word_offset = line ? at : AMDDWARF_SPIRV_NONE;
    return;
  }
  if (rule & RULE_SCOPE) { /* neither counted nor attached */
    ws->line_position = c->pending ? c->pending_position : c->active_position;
    ws->line_word_offset = c->pending ? c->pending_word_offset : c->active_word_offset;
    return;
  }
  /* Line instructions attached to this instruction: the pending ones, which
     then stay in effect, or a copy of the line in effect. */
  uint32_t attached = c->active_position != AMDDWARF_SPIRV_NONE ? 1 : 0;
  if (c->pending) {
    attached = c->pending;
    c->active_position = c->pending_position;
    c->active_word_offset = c->pending_word_offset;
    c->pending = 0;
  }
  ws->line_position = c->active_position;
  ws->line_word_offset = c->active_word_offset;
  c->slot += (rule & RULE_SLOT) + (rule & RULE_LINES ? attached : 0);
  if (rule & RULE_ENDS_SCOPE)
    c->active_position = c->active_word_offset = AMDDWARF_SPIRV_NONE;
}

/* One step of the count: the instruction at the walk's word offset
   (OPCODE, WC words, checked by the build) by its kind. The build (REPLAY
   false) classifies sets with the id map as it stands; a replay with the
   final map, or the sets the build recorded. SET_OUT: an OpExtInst's set.
   False for an OpExtInst without its set and instruction number. */
__attribute__((always_inline)) static inline bool walk_step(const amddwarf_spirv_module *m,
                                                            walk_state *ws, uint32_t opcode,
                                                            uint32_t wc, bool replay,
                                                            uint32_t *set_out)
{
  unsigned kind = opcode < OPCODE_DENSE_LIMIT ? opcode_walk[opcode] & OPCODE_KIND : KIND_UNLISTED;
  *set_out = AMDDWARF_SPIRV_SET_OTHER;
  if (opcode == 12) {
    if (wc < 5)
      return false;
    kind = ext_kind(m, ws, m->words + ws->carry.word_offset, replay, set_out);
  }
  apply_rules(ws, kind, wc);
  return true;
}

/* The rules' commonest case made a loop: a plain instruction inside a
   block with no line instruction pending takes the line in effect (a copy
   of it the index before its own) and changes nothing else. Walks such
   instructions from the walk's position up to position STOP; stops before
   any other instruction, at the end of the module and before a word count
   that is zero or runs past it (the build reports those). */
__attribute__((always_inline)) static inline void walk_plain(const amddwarf_spirv_module *m,
                                                             walk_state *ws, uint32_t stop)
{
  amddwarf_spirv_checkpoint *c = &ws->carry;
  if (c->region != 2 || c->pending != 0)
    return;
  const uint32_t *words = m->words;
  const size_t end = m->word_count;
  size_t at = c->word_offset;
  uint32_t p = ws->position;
  for (; p < stop && at < end; p++) {
    uint32_t word = words[at], wc = word >> 16;
    /* wc - 1 wraps for a word count of zero */
    if (!is_plain(word & 0xffff) || wc - 1 >= end - at)
      break;
    at += wc;
  }
  if (p == ws->position)
    return;
  c->slot += (p - ws->position) * (c->active_position != AMDDWARF_SPIRV_NONE ? 2 : 1);
  ws->line_position = c->active_position;
  ws->line_word_offset = c->active_word_offset;
  c->word_offset = (uint32_t)at;
  ws->position = p;
}

/* The build's walk between the instructions it must look at: from the
   walk's position up to position STOP, every instruction whose count needs
   nothing but its kind (not an OpExtInst, defining nothing the index keeps;
   an OpLine's only check is its word count). Stops before any other
   instruction, at the end of the module and before a word count that is
   zero or runs past it (the build reports those). */
static inline void walk_run(const amddwarf_spirv_module *m, walk_state *ws, uint32_t stop)
{
  const uint32_t *words = m->words;
  const size_t end = m->word_count;
  walk_state s = *ws;
  for (;;) {
    walk_plain(m, &s, stop);
    uint32_t at = s.carry.word_offset;
    if (s.position >= stop || at >= end)
      break;
    uint32_t word = words[at], wc = word >> 16, opcode = word & 0xffff;
    unsigned flags = opcode < OPCODE_DENSE_LIMIT ? opcode_walk[opcode] : KIND_UNLISTED;
    /* wc - 1 wraps for a word count of zero */
    if (wc - 1 >= end - at || (opcode == 8 ? wc != 4 : (flags & OPCODE_DEFINES) != 0))
      break;
    apply_rules(&s, flags & OPCODE_KIND, wc);
  }
  /* The build has no use for the line in effect: left stale, its updates
     are dead code. */
  ws->carry = s.carry;
  ws->position = s.position;
}

/* Whether OPCODE defines something the index keeps (note_definitions). */
static bool defines(uint32_t opcode)
{
  return opcode < OPCODE_DENSE_LIMIT && (opcode_walk[opcode] & OPCODE_DEFINES);
}

/* Points the guide entries of the indexes below SLOT not yet guided at
   checkpoint C, the last whose indexes start at or before them. */
static int guide_up_to(amddwarf_spirv_module *m, uint32_t slot, uint32_t c)
{
  while ((uint64_t)m->guide_count * AMDDWARF_SPIRV_GUIDE_STEP < slot) {
    if (m->guide_count >= m->guide_capacity) {
      void *items = m->guide;
      size_t cap = m->guide_capacity;
      if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)m->guide_count + 1,
                               sizeof(uint32_t)) != 0)
        return -1;
      m->guide = items;
      m->guide_capacity = cap;
    }
    m->guide[m->guide_count++] = c;
  }
  return 0;
}

/* Keeps the walk's state before the instruction at ws->position, a
   multiple of the interval, and the guide entries it completes. */
static int save_checkpoint(amddwarf_spirv_module *m, const walk_state *ws)
{
  uint32_t c = ws->position >> m->checkpoint_shift;
  if (c >= m->checkpoint_capacity) {
    void *items = m->checkpoints;
    size_t cap = m->checkpoint_capacity;
    if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)c + 1,
                             sizeof(amddwarf_spirv_checkpoint)) != 0)
      return -1;
    m->checkpoints = items;
    m->checkpoint_capacity = cap;
  }
  amddwarf_spirv_checkpoint *cp = &m->checkpoints[c];
  *cp = ws->carry;
  m->checkpoint_count = c + 1;
  /* Indexes below this checkpoint's first are walked from the one before. */
  return guide_up_to(m, ws->carry.slot, c - 1);
}

static int record_set(amddwarf_spirv_module *m, uint32_t position, uint32_t set)
{
  void *items = m->ext_sets;
  size_t cap = m->ext_set_capacity;
  if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)m->ext_set_count + 1,
                           sizeof(amddwarf_spirv_ext_set)) != 0)
    return -1;
  m->ext_sets = items;
  m->ext_set_capacity = cap;
  m->ext_sets[m->ext_set_count].position = position;
  m->ext_sets[m->ext_set_count].set = set;
  m->ext_set_count++;
  return 0;
}

/* The build: checks every word count, keeps a checkpoint every interval and
   what debug locations need. */
static amddwarf_status walk(amddwarf_spirv_module *m, uint32_t max_instructions,
                            definitions *defs, amddwarf_error *err)
{
  walk_state ws;
  walk_resume(m, 0, &ws);
  const uint32_t *words = m->words;
  const size_t end = m->word_count;
  const uint64_t interval = UINT64_C(1) << m->checkpoint_shift;
  /* The next checkpoint's position, or the instruction past the limit. */
  uint32_t stop = 0;
  for (;;) {
    walk_run(m, &ws, stop);
    if (ws.carry.word_offset >= end)
      break;
    uint32_t at = ws.carry.word_offset, p = ws.position;
    uint32_t wc = words[at] >> 16, opcode = words[at] & 0xffff;
    if (wc - 1 >= end - at) /* wc - 1 wraps for a word count of zero */
      return amddwarf__fail_op(err, AMDDWARF_E_SPIRV_BAD_INSTRUCTION, (uint64_t)at * 4,
                              (int32_t)opcode, AMDDWARF_NO_OPCODE,
                              "SPIR-V instruction %u (opcode %u) at byte offset %llu: word count "
                              "%u %s",
                              p, opcode, (unsigned long long)at * 4, wc,
                              wc == 0 ? "is zero" : "runs past the end of the module");
    if (p == stop) {
      if (p == max_instructions)
        return amddwarf__fail(err, AMDDWARF_E_LIMIT, (uint64_t)at * 4,
                             "SPIR-V module has more than %u instructions", max_instructions);
      if (save_checkpoint(m, &ws) != 0)
        return fail_memory(err);
      stop = p + interval < max_instructions ? (uint32_t)(p + interval) : max_instructions;
      continue; /* the instruction may be one walk_run takes */
    }
    uint32_t set;
    if (!walk_step(m, &ws, opcode, wc, false, &set))
      return fail_operand(err, at, opcode, "OpExtInst lacks its set or instruction number");
    if (!defines(opcode))
      continue;
    /* The instruction's set is classified before its own definitions. */
    defs->ext_inst_seen |= opcode == 12;
    if (opcode == 12 && defs->record_sets && record_set(m, p, set) != 0)
      return fail_memory(err);
    amddwarf_status st = note_definitions(m, defs, at, wc, opcode, set, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  m->count = ws.position;
  m->slot_limit = ws.carry.slot;
  return guide_up_to(m, m->slot_limit, m->checkpoint_count - 1) != 0 ? fail_memory(err)
                                                                     : AMDDWARF_OK;
}

/* ---- look-ups: a replay from the checkpoint before ------------------------ */

static void inst_of_walk(const walk_state *ws, uint32_t position, uint32_t word_offset,
                         amddwarf_spirv_inst *out)
{
  out->position = position;
  out->word_offset = word_offset;
  out->line_position = ws->line_position;
  out->line_word_offset = ws->line_word_offset;
}

void amddwarf__spirv_inst_at(const amddwarf_spirv_module *m, uint32_t position,
                             amddwarf_spirv_inst *out)
{
  walk_state ws;
  walk_resume(m, position >> m->checkpoint_shift, &ws);
  for (;;) {
    walk_plain(m, &ws, position);
    uint32_t at = ws.carry.word_offset, p = ws.position, set;
    (void)walk_step(m, &ws, m->words[at] & 0xffff, m->words[at] >> 16, true, &set);
    if (p == position) {
      inst_of_walk(&ws, p, at, out);
      return;
    }
  }
}

/* The last checkpoint at or before instrumentation index INDEX. */
static uint32_t checkpoint_of_index(const amddwarf_spirv_module *m, uint32_t index)
{
  uint32_t j = index / AMDDWARF_SPIRV_GUIDE_STEP;
  uint32_t lo = m->guide[j];
  uint32_t hi = j + 1 < m->guide_count ? m->guide[j + 1] : m->checkpoint_count - 1;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (m->checkpoints[mid].slot <= index)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The checkpoint a look-up of INDEX starts from; false when INDEX is past
   the module's indexes. */
static bool replay_checkpoint(const amddwarf_spirv_module *m, uint32_t index,
                              amddwarf_spirv_index_mode mode, uint32_t *c)
{
  if (mode == AMDDWARF_SPIRV_INDEX_POSITION && index < m->count)
    *c = index >> m->checkpoint_shift;
  else if (mode != AMDDWARF_SPIRV_INDEX_POSITION && index < m->slot_limit)
    *c = checkpoint_of_index(m, index);
  else
    return false;
  return true;
}

void amddwarf__spirv_prefetch_search(const amddwarf_spirv_module *m, uint32_t index,
                                     amddwarf_spirv_index_mode mode)
{
  if (mode == AMDDWARF_SPIRV_INDEX_POSITION) {
    if (index < m->count)
      __builtin_prefetch(&m->checkpoints[index >> m->checkpoint_shift]);
    return;
  }
  if (index >= m->slot_limit)
    return;
  uint32_t j = index / AMDDWARF_SPIRV_GUIDE_STEP;
  uint32_t lo = m->guide[j];
  uint32_t hi = j + 1 < m->guide_count ? m->guide[j + 1] : m->checkpoint_count - 1;
  /* The search's candidates, a few cache lines in the usual module. */
  for (uint32_t c = lo; c <= hi && c - lo < 8; c++)
    __builtin_prefetch(&m->checkpoints[c]);
}

void amddwarf__spirv_prefetch_replay(const amddwarf_spirv_module *m, uint32_t index,
                                     amddwarf_spirv_index_mode mode)
{
  uint32_t c;
  if (!replay_checkpoint(m, index, mode, &c))
    return;
  const amddwarf_spirv_checkpoint *cp = &m->checkpoints[c];
  uint32_t end = c + 1 < m->checkpoint_count ? m->checkpoints[c + 1].word_offset
                                             : (uint32_t)m->word_count;
  for (uint32_t at = cp->word_offset; at < end; at += 16)
    __builtin_prefetch(&m->words[at]);
  /* The line in effect at the checkpoint, which the location reads. */
  if (cp->active_word_offset != AMDDWARF_SPIRV_NONE)
    __builtin_prefetch(&m->words[cp->active_word_offset]);
  if (cp->pending && cp->pending_word_offset != AMDDWARF_SPIRV_NONE)
    __builtin_prefetch(&m->words[cp->pending_word_offset]);
}

bool amddwarf__spirv_inst_of_index(const amddwarf_spirv_module *m, uint32_t index,
                                   amddwarf_spirv_inst *out)
{
  walk_state ws;
  walk_resume(m, checkpoint_of_index(m, index), &ws);
  for (;;) {
    /* Plain instructions take one index, or two with a line in effect:
       those whose indexes all come before INDEX. */
    uint64_t before =
        (index - ws.carry.slot) / (ws.carry.active_position != AMDDWARF_SPIRV_NONE ? 2 : 1);
    uint64_t stop = ws.position + before;
    walk_plain(m, &ws, stop < UINT32_MAX ? (uint32_t)stop : UINT32_MAX);
    uint32_t at = ws.carry.word_offset, p = ws.position, set;
    (void)walk_step(m, &ws, m->words[at] & 0xffff, m->words[at] >> 16, true, &set);
    if (ws.carry.slot > index) {
      /* The instruction's own index is its last; those before name copies. */
      if (ws.carry.slot - 1 != index)
        return false;
      inst_of_walk(&ws, p, at, out);
      return true;
    }
  }
}

/* ---- open / close -------------------------------------------------------- */

static uint32_t bswap32(uint32_t v)
{
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static bool host_is_little_endian(void)
{
  const uint32_t one = 1;
  uint8_t first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Opens a module with a checkpoint every 1 << SHIFT instructions; with
   RECORD_SETS, keeping each OpExtInst's set. *SETS_UNSTABLE: the module
   needs them (see amddwarf_spirv_ext_set). */
static amddwarf_status open_module(const void *data, size_t size,
                                   const amddwarf_spirv_options *options, uint32_t shift,
                                   bool record_sets, bool *sets_unstable,
                                   amddwarf_spirv_module **out, amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  amddwarf_spirv_module *m = NULL;
  if (!out || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_spirv_module_open: NULL argument");
  *out = NULL;
  const amddwarf_allocator *requested = NULL;
  uint32_t max_instructions = UINT32_C(64) << 20;
  if (options && options->size >= offsetof(amddwarf_spirv_options, max_instructions))
    requested = options->allocator;
  bool borrow = false;
  if (options && options->size >= offsetof(amddwarf_spirv_options, flags) &&
      options->max_instructions)
    max_instructions = options->max_instructions;
  if (options && options->size >= sizeof(amddwarf_spirv_options)) {
    if (options->flags & ~AMDDWARF_SPIRV_OPEN_BORROW)
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "unknown amddwarf_spirv_options flags 0x%x", options->flags);
    borrow = (options->flags & AMDDWARF_SPIRV_OPEN_BORROW) != 0;
  }
  if (size < 20 || size % 4 != 0)
    return amddwarf__fail(err, AMDDWARF_E_SPIRV_BAD_HEADER, 0,
                         "SPIR-V module of %zu bytes: needs a 20-byte header and whole words",
                         size);
  if (size / 4 > UINT32_MAX)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, 0, "SPIR-V module larger than 16 GiB");
  const uint8_t *bytes = data;
  uint32_t first = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
                   (uint32_t)bytes[3] << 24;
  bool big_endian;
  if (first == AMDDWARF_SPIRV_MAGIC)
    big_endian = false;
  else if (bswap32(first) == AMDDWARF_SPIRV_MAGIC)
    big_endian = true;
  else
    return amddwarf__fail(err, AMDDWARF_E_SPIRV_BAD_MAGIC, 0,
                         "not SPIR-V: first word 0x%08x is not the magic number 0x07230203",
                         first);

  amddwarf_allocator allocator = amddwarf__allocator_resolve(requested);
  m = amddwarf__mem_calloc(&allocator, 1, sizeof(*m));
  if (!m)
    return fail_memory(err);
  m->allocator = allocator;
  amddwarf__arena_init(&m->arena, &m->allocator);
  m->word_count = size / 4;
  bool in_place = !big_endian && host_is_little_endian();
  if (in_place && borrow && ((uintptr_t)data & 3) == 0) {
    m->words = data;
  } else if (!(m->owned_words = amddwarf__mem_alloc(&m->allocator, size))) {
    st = fail_memory(err);
    goto fail;
  } else if (in_place) {
    /* Host-order words: the module's words are little-endian unless swapped. */
    memcpy(m->owned_words, data, size);
    m->words = m->owned_words;
  } else {
    m->words = m->owned_words;
    const uint8_t *b = data;
    for (size_t i = 0; i < m->word_count; i++, b += 4) {
      uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                   (uint32_t)b[3] << 24;
      m->owned_words[i] = big_endian ? bswap32(v) : v;
    }
  }
  m->header.magic = m->words[0];
  m->header.version = m->words[1];
  m->header.generator = m->words[2];
  m->header.bound = m->words[3];
  m->header.schema = m->words[4];
  m->header.big_endian = big_endian;
  if ((m->header.version & 0xff0000ffu) != 0 || m->header.version < 0x00010000u) {
    st = amddwarf__fail(err, AMDDWARF_E_SPIRV_BAD_HEADER, 4,
                       "SPIR-V version word 0x%08x is not 0x00MMmm00 with major >= 1",
                       m->header.version);
    goto fail;
  }
  if (m->header.bound == 0) {
    st = amddwarf__fail(err, AMDDWARF_E_SPIRV_BAD_HEADER, 12, "SPIR-V id bound is 0");
    goto fail;
  }
  m->checkpoint_shift = shift;
  /* Typical modules average four words per instruction. */
  size_t checkpoints = ((m->word_count - 5) / 4 >> shift) + 1;
  void *items = NULL;
  if (amddwarf__mem_reserve(&m->allocator, &items, &m->checkpoint_capacity, checkpoints,
                           sizeof(amddwarf_spirv_checkpoint)) != 0) {
    st = fail_memory(err);
    goto fail;
  }
  m->checkpoints = items;
  definitions defs = {NULL, NULL, false, false, record_sets};
  st = walk(m, max_instructions, &defs, err);
  if (st != AMDDWARF_OK)
    goto fail;
  *sets_unstable = defs.sets_unstable;
  st = amddwarf__spirv_sources_finish(m, err);
  if (st != AMDDWARF_OK)
    goto fail;
  *out = m;
  return AMDDWARF_OK;
fail:
  amddwarf_spirv_module_close(m);
  return st;
}

amddwarf_status amddwarf__spirv_module_open_every(const void *data, size_t size,
                                                  const amddwarf_spirv_options *options,
                                                  uint32_t shift, amddwarf_spirv_module **out,
                                                  amddwarf_error *err)
{
  if (shift > 16)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "checkpoint interval 2^%u is too large", shift);
  bool sets_unstable = false;
  amddwarf_status st = open_module(data, size, options, shift, false, &sets_unstable, out, err);
  if (st == AMDDWARF_OK && sets_unstable) {
    /* A replay would classify with the final id map: walk again, keeping
       the sets as the walk sees them. */
    amddwarf_spirv_module_close(*out);
    *out = NULL;
    st = open_module(data, size, options, shift, true, &sets_unstable, out, err);
  }
  return st;
}

amddwarf_status amddwarf_spirv_module_open(const void *data, size_t size,
                                           const amddwarf_spirv_options *options,
                                           amddwarf_spirv_module **out, amddwarf_error *err)
{
  return amddwarf__spirv_module_open_every(data, size, options,
                                           AMDDWARF_SPIRV_CHECKPOINT_SHIFT, out, err);
}

void amddwarf_spirv_module_close(amddwarf_spirv_module *m)
{
  if (!m)
    return;
  amddwarf_allocator a = m->allocator;
  for (uint32_t i = 0; i < m->source_count; i++) {
    amddwarf_spirv_source *s = &m->sources[i];
    if (s->text)
      amddwarf__mem_free(&a, s->text, s->text_length + 1);
  }
  amddwarf__mem_free(&a, m->sources, sizeof(*m->sources) * m->source_capacity);
  amddwarf__mem_free(&a, m->entry_points, sizeof(*m->entry_points) * m->entry_point_capacity);
  amddwarf__mem_free(&a, m->strings, sizeof(*m->strings) * m->string_capacity);
  amddwarf__mem_free(&a, m->ids, sizeof(*m->ids) * m->id_capacity);
  amddwarf__mem_free(&a, m->ext_sets, sizeof(*m->ext_sets) * m->ext_set_capacity);
  amddwarf__mem_free(&a, m->guide, sizeof(*m->guide) * m->guide_capacity);
  amddwarf__mem_free(&a, m->checkpoints, sizeof(*m->checkpoints) * m->checkpoint_capacity);
  if (m->owned_words)
    amddwarf__mem_free(&a, m->owned_words, m->word_count * 4);
  amddwarf__arena_release(&m->arena);
  amddwarf__mem_free(&a, m, sizeof(*m));
}

const amddwarf_spirv_header *amddwarf_spirv_module_header(const amddwarf_spirv_module *m)
{
  return &m->header;
}

size_t amddwarf_spirv_module_entry_point_count(const amddwarf_spirv_module *m)
{
  return m ? m->entry_point_count : 0;
}

const amddwarf_spirv_entry_point *amddwarf_spirv_module_entry_point(
    const amddwarf_spirv_module *m, size_t index)
{
  return m && index < m->entry_point_count ? &m->entry_points[index] : NULL;
}

uint32_t amddwarf_spirv_module_instruction_count(const amddwarf_spirv_module *m)
{
  return m->count;
}

uint32_t amddwarf_spirv_module_index_limit(const amddwarf_spirv_module *m,
                                           amddwarf_spirv_index_mode mode)
{
  return mode == AMDDWARF_SPIRV_INDEX_POSITION ? m->count : m->slot_limit;
}
