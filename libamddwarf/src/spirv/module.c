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

static amddwarf_spirv_kind opcode_kind(uint32_t opcode)
{
  return opcode < OPCODE_DENSE_LIMIT && (opcode_dense[opcode] & 15)
             ? (amddwarf_spirv_kind)((opcode_dense[opcode] & 15) - 1)
             : AMDDWARF_SPIRV_KIND_BLOCK;
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

/* ---- the walk ---------------------------------------------------------- */

typedef struct walk_state {
  uint32_t n;               /* next instrumentation index */
  uint32_t pending;         /* line instructions since the last other instruction */
  uint32_t pending_last;    /* position of the last of them */
  bool pending_is_noline;
  uint32_t active;          /* line in effect (propagated), or NONE */
  int region;               /* 0 module level, 1 function outside blocks, 2 in a block */
  amddwarf_spirv_source *last_op_source;
  amddwarf_spirv_source *last_debug_source;
  uint32_t cached_set_id;
  uint32_t cached_set;
} walk_state;

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

/* Records what debug locations need from one instruction. */
static amddwarf_status note_definitions(amddwarf_spirv_module *m, walk_state *ws, uint32_t at,
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
        id_insert(m, w[1], AMDDWARF_SPIRV_ID_STRING, m->string_count - 1) != 0)
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
      ws->last_op_source = s;
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
    if (ws->last_op_source && source_append(m, ws->last_op_source, text, length) != 0)
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
        id_insert(m, w[1], AMDDWARF_SPIRV_ID_IMPORT,
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
    if (wc >= 4 && id_insert(m, w[2], AMDDWARF_SPIRV_ID_CONSTANT, w[3]) != 0)
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
      ws->last_debug_source = s;
      if (id_insert(m, w[2], AMDDWARF_SPIRV_ID_SOURCE, m->source_count - 1) != 0)
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
        if (str && ws->last_debug_source &&
            source_append(m, ws->last_debug_source, str->text, str->length) != 0)
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

/* The kind of one instruction in the instrumentation count. */
static amddwarf_spirv_kind kind_of(amddwarf_spirv_module *m, walk_state *ws, uint32_t at,
                                   uint32_t wc, uint32_t opcode, uint32_t *set_out,
                                   bool *skip, amddwarf_error *err, amddwarf_status *st)
{
  amddwarf_spirv_kind kind = opcode_kind(opcode);
  *skip = false;
  *set_out = AMDDWARF_SPIRV_SET_OTHER;
  if (opcode != 12) {
    if (ws->region != 0 && (kind == AMDDWARF_SPIRV_KIND_HEAD || kind == AMDDWARF_SPIRV_KIND_TYPEVAL))
      kind = AMDDWARF_SPIRV_KIND_BLOCK; /* function-scope OpVariable, OpUndef, ... */
    if (ws->region == 0 && kind == AMDDWARF_SPIRV_KIND_BLOCK)
      kind = AMDDWARF_SPIRV_KIND_TYPEVAL;
    return kind;
  }
  if (wc < 5) {
    *st = fail_operand(err, at, opcode, "OpExtInst lacks its set or instruction number");
    return kind;
  }
  const uint32_t *w = m->words + at;
  uint32_t set;
  if (w[3] == ws->cached_set_id) {
    set = ws->cached_set;
  } else {
    const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, w[3]);
    set = e && e->kind == AMDDWARF_SPIRV_ID_IMPORT ? (e->value & 0xff) : AMDDWARF_SPIRV_SET_OTHER;
    ws->cached_set_id = w[3];
    ws->cached_set = set;
  }
  *set_out = set;
  if (set_is_debuginfo(set)) {
    uint32_t op = w[4];
    if (op == AMDDWARF_SPIRV_DEBUG_SCOPE || op == AMDDWARF_SPIRV_DEBUG_NO_SCOPE) {
      *skip = true;
      return AMDDWARF_SPIRV_KIND_BLOCK;
    }
    if (set == AMDDWARF_SPIRV_SET_SHADER_DEBUG && op == AMDDWARF_SPIRV_DEBUG_LINE)
      return AMDDWARF_SPIRV_KIND_LINE;
    if (set == AMDDWARF_SPIRV_SET_SHADER_DEBUG && op == AMDDWARF_SPIRV_DEBUG_NO_LINE)
      return AMDDWARF_SPIRV_KIND_NOLINE;
    if (ws->region == 0)
      return AMDDWARF_SPIRV_KIND_HEAD;
    return AMDDWARF_SPIRV_KIND_BLOCK;
  }
  return ws->region == 0 ? AMDDWARF_SPIRV_KIND_TYPEVAL : AMDDWARF_SPIRV_KIND_BLOCK;
}

/* Whether OPCODE, inside a block, is an instruction of kind BLOCK that
   note_definitions ignores (kind_of turns HEAD and TYPEVAL into BLOCK there). */
static bool is_plain_in_block(uint32_t opcode)
{
  if (opcode <= 12 || opcode == 15 || opcode == 43)
    return false;
  amddwarf_spirv_kind kind = opcode_kind(opcode);
  return kind == AMDDWARF_SPIRV_KIND_BLOCK || kind == AMDDWARF_SPIRV_KIND_HEAD ||
         kind == AMDDWARF_SPIRV_KIND_TYPEVAL;
}

/* Makes room for one more instruction and TWO more slots. */
static int grow(amddwarf_spirv_module *m, uint32_t count, uint32_t slots)
{
  if (count >= m->inst_capacity) {
    size_t cap = m->inst_capacity;
    void *items = m->insts;
    if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)count + 1,
                             sizeof(amddwarf_spirv_inst)) != 0)
      return -1;
    m->insts = items;
    m->inst_capacity = cap;
  }
  if ((size_t)slots + 2 > m->slot_capacity) {
    size_t cap = m->slot_capacity;
    void *items = m->slots;
    if (amddwarf__mem_reserve(&m->allocator, &items, &cap, (size_t)slots + 2, sizeof(uint32_t)) !=
        0)
      return -1;
    m->slots = items;
    m->slot_capacity = cap;
  }
  return 0;
}

static amddwarf_status walk(amddwarf_spirv_module *m, uint32_t max_instructions,
                            amddwarf_error *err)
{
  walk_state ws;
  memset(&ws, 0, sizeof(ws));
  ws.active = AMDDWARF_SPIRV_NONE;
  ws.cached_set_id = 0;
  const uint32_t *words = m->words;
  const size_t end = m->word_count;
  size_t at = 5;
  uint32_t p = 0;
  for (; at < end; p++) {
    uint32_t wc = words[at] >> 16, opcode = words[at] & 0xffff;
    if (wc == 0 || wc > end - at)
      return amddwarf__fail_op(err, AMDDWARF_E_SPIRV_BAD_INSTRUCTION, (uint64_t)at * 4,
                              (int32_t)opcode, AMDDWARF_NO_OPCODE,
                              "SPIR-V instruction %u (opcode %u) at byte offset %llu: word count "
                              "%u %s",
                              p, opcode, (unsigned long long)at * 4, wc,
                              wc == 0 ? "is zero" : "runs past the end of the module");
    if (p == max_instructions)
      return amddwarf__fail(err, AMDDWARF_E_LIMIT, (uint64_t)at * 4,
                           "SPIR-V module has more than %u instructions", max_instructions);
    if ((p >= m->inst_capacity || (size_t)ws.n + 2 > m->slot_capacity) && grow(m, p, ws.n) != 0)
      return fail_memory(err);
    amddwarf_spirv_inst *in = &m->insts[p];
    in->word_offset = (uint32_t)at;
    if (ws.region == 2 && ws.pending == 0 && is_plain_in_block(opcode)) {
      /* Most of a module: an instruction inside a block that defines
         nothing the index keeps. The rules below give it the line in
         effect, and the copy of that line the slot before its own. */
      in->line_ref = ws.active;
      if (ws.active != AMDDWARF_SPIRV_NONE)
        m->slots[ws.n++] = AMDDWARF_SPIRV_NONE;
      m->slots[ws.n++] = p;
      at += wc;
      continue;
    }
    amddwarf_status st = AMDDWARF_OK;
    uint32_t set;
    bool skip;
    amddwarf_spirv_kind kind = kind_of(m, &ws, (uint32_t)at, wc, opcode, &set, &skip, err, &st);
    if (st != AMDDWARF_OK)
      return st;
    if (opcode <= 12 || opcode == 15 || opcode == 43) {
      st = note_definitions(m, &ws, (uint32_t)at, wc, opcode, set, err);
      if (st != AMDDWARF_OK)
        return st;
    }
    at += wc;
    if (skip) { /* DebugScope / DebugNoScope: not an instruction to the count */
      in->line_ref = ws.pending ? (ws.pending_is_noline ? AMDDWARF_SPIRV_NONE : ws.pending_last)
                                : ws.active;
      continue;
    }
    if (kind == AMDDWARF_SPIRV_KIND_LINE || kind == AMDDWARF_SPIRV_KIND_NOLINE) {
      ws.pending++;
      ws.pending_last = p;
      ws.pending_is_noline = kind == AMDDWARF_SPIRV_KIND_NOLINE;
      in->line_ref = ws.pending_is_noline ? AMDDWARF_SPIRV_NONE : p;
      continue;
    }
    /* Line instructions attached to this instruction, and the line in effect. */
    uint32_t attached, effective;
    if (ws.pending) {
      attached = ws.pending;
      effective = ws.pending_is_noline ? AMDDWARF_SPIRV_NONE : ws.pending_last;
      ws.active = effective;
      ws.pending = 0;
    } else {
      attached = ws.active != AMDDWARF_SPIRV_NONE ? 1 : 0;
      effective = ws.active;
    }
    in->line_ref = effective;
    bool counts_lines = false, has_slot = true;
    switch (kind) {
    case AMDDWARF_SPIRV_KIND_TYPEVAL:
    case AMDDWARF_SPIRV_KIND_PARAM: /* parameters count their lines too */
      counts_lines = true;
      break;
    case AMDDWARF_SPIRV_KIND_FUNC:
      ws.region = 1;
      break;
    case AMDDWARF_SPIRV_KIND_LABEL:
      ws.region = 2;
      break;
    case AMDDWARF_SPIRV_KIND_FEND:
      ws.region = 0;
      ws.active = AMDDWARF_SPIRV_NONE;
      break;
    case AMDDWARF_SPIRV_KIND_TERM:
    case AMDDWARF_SPIRV_KIND_BLOCK:
      if (ws.region == 2) {
        counts_lines = true;
        if (kind == AMDDWARF_SPIRV_KIND_TERM) {
          ws.region = 1;
          ws.active = AMDDWARF_SPIRV_NONE;
        }
      } else if (opcode == 12 && ws.region == 1) {
        /* DebugDeclare/DebugValue between OpFunction and the first label
           belong to the function header, which the count skips. */
        has_slot = false;
      }
      break;
    default: /* HEAD */
      break;
    }
    if (!has_slot)
      continue;
    if (counts_lines && attached) {
      /* The copies of line instructions take the slots before this one. */
      if ((size_t)ws.n + attached + 1 > m->slot_capacity && grow(m, p, ws.n + attached) != 0)
        return fail_memory(err);
      for (uint32_t k = 0; k < attached; k++)
        m->slots[ws.n++] = AMDDWARF_SPIRV_NONE;
    }
    m->slots[ws.n++] = p;
  }
  m->count = p;
  m->slot_limit = ws.n;
  return AMDDWARF_OK;
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

amddwarf_status amddwarf_spirv_module_open(const void *data, size_t size,
                                           const amddwarf_spirv_options *options,
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
  /* Typical modules average four words per instruction. */
  if (grow(m, (uint32_t)((m->word_count - 5) / 4), (uint32_t)((m->word_count - 5) / 2)) != 0) {
    st = fail_memory(err);
    goto fail;
  }
  st = walk(m, max_instructions, err);
  if (st != AMDDWARF_OK)
    goto fail;
  st = amddwarf__spirv_sources_finish(m, err);
  if (st != AMDDWARF_OK)
    goto fail;
  *out = m;
  return AMDDWARF_OK;
fail:
  amddwarf_spirv_module_close(m);
  return st;
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
  amddwarf__mem_free(&a, m->slots, sizeof(uint32_t) * m->slot_capacity);
  amddwarf__mem_free(&a, m->insts, sizeof(amddwarf_spirv_inst) * m->inst_capacity);
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
