/* amddwarf dap: memory and code. readMemory and writeMemory through
 * amddwarf_wave_read_memory/write_memory (the evaluator's address mapping and
 * lane checks), with memory references naming an address space and, for a
 * per-lane space, a lane (specs/dap.md, "Memory references"); disassemble
 * through the library's disassembler (amddwarf_disasm, as `amddwarf disasm`),
 * each instruction with its source line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dap.h"
#include "cli.h"
#include "dap_protocol.h"

enum { MAX_MEMORY_REQUEST = 1 << 20, MAX_INSTRUCTIONS = 10000 };

/* ---- Memory references: [SPACE:[LANE:]]ADDRESS ---- */

typedef struct memory_ref {
  uint32_t aspace;               /* DW_ASPACE_* as named */
  uint32_t lane;                 /* AMDDWARF_NO_LANE for a space without lanes */
  uint64_t address;
} memory_ref;

static bool parse_memory_ref(dap_session *s, const char *text, memory_ref *out, dap_reply *reply)
{
  /* "THREAD/" first names the wave; without it, the current thread. The
     rest is the library's syntax (amddwarf_memory_ref_parse). */
  const char *whole = text, *slash = strchr(text, '/');
  amddwarf_error err;
  if (slash) {
    char id[24];
    uint64_t thread;
    if ((size_t)(slash - text) >= sizeof id)
      return dap_fail(reply, "memoryReference '%s': no thread before '/'", text);
    snprintf(id, sizeof id, "%.*s", (int)(slash - text), text);
    if (cli_parse_u64(id, &thread) != 0 || thread == 0 || thread > s->thread_count ||
        !s->threads[thread - 1].wave)
      return dap_fail(reply, "memoryReference '%s': '%s' is not a thread (1-%zu)", text, id,
                      s->thread_count);
    s->current_thread = (size_t)thread - 1;
    text = slash + 1;
  }
  amddwarf_error_clear(&err);
  if (amddwarf_memory_ref_parse(text, &out->aspace, &out->lane, &out->address, &err) !=
      AMDDWARF_OK)
    return dap_fail(reply, "memoryReference '%.200s': %s", whole, err.message);
  if (!s->threads[s->current_thread].wave)
    return dap_fail(reply, "memoryReference '%s': thread %zu has no wave: %s", whole,
                    s->current_thread + 1, s->threads[s->current_thread].open_error);
  return true;
}

/* The reference REF moved by OFFSET bytes; false when it wraps. */
static bool offset_ref(memory_ref *ref, const json_t *args, dap_reply *reply)
{
  const json_t *o = json_object_get(args, "offset");
  if (!o)
    return true;
  if (!json_is_integer(o))
    return dap_fail(reply, "'offset' must be an integer");
  json_int_t d = json_integer_value(o);
  if ((d < 0 && ref->address < (uint64_t)-(d + 1) + 1) ||
      (d > 0 && ref->address > UINT64_MAX - (uint64_t)d))
    return dap_fail(reply, "'offset' %lld moves the address out of the address space",
                    (long long)d);
  ref->address += (uint64_t)d;
  return true;
}

bool dap_read_memory(dap_session *s, const json_t *args, dap_reply *reply)
{
  const json_t *r = json_object_get(args, "memoryReference");
  uint64_t count = 0;
  memory_ref ref;
  if (!json_is_string(r))
    return dap_fail(reply, "readMemory: missing 'memoryReference'");
  if (!parse_memory_ref(s, json_string_value(r), &ref, reply) || !offset_ref(&ref, args, reply) ||
      !dap_arg_index(reply, args, "count", true, MAX_MEMORY_REQUEST, &count))
    return false;
  uint8_t *buf = malloc(count ? count : 1);
  if (!buf)
    return dap_fail(reply, "readMemory: out of memory");
  /* The readable prefix: bytes past it are unreadableBytes, not an error. */
  uint64_t got = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_read_memory(s->threads[s->current_thread].wave, ref.aspace,
                                                 ref.lane, ref.address, count, buf, &got, &err);
  if (st != AMDDWARF_OK && got == 0 && st != AMDDWARF_E_EVAL_UNAVAILABLE) {
    free(buf);
    return dap_fail_status(reply, "readMemory", st, &err);
  }
  reply->body = json_object();
  char address[32];
  snprintf(address, sizeof address, "0x%" PRIx64, ref.address);
  json_object_set_new(reply->body, "address", json_string(address));
  json_object_set_new(reply->body, "data", dap_base64_encode(buf, (size_t)got));
  if (got < count)
    json_object_set_new(reply->body, "unreadableBytes", json_integer((json_int_t)(count - got)));
  free(buf);
  return true;
}

bool dap_write_memory(dap_session *s, const json_t *args, dap_reply *reply)
{
  const json_t *r = json_object_get(args, "memoryReference"), *d = json_object_get(args, "data");
  memory_ref ref;
  if (!json_is_string(r) || !json_is_string(d))
    return dap_fail(reply, "writeMemory: 'memoryReference' and 'data' must be strings");
  if (!parse_memory_ref(s, json_string_value(r), &ref, reply) || !offset_ref(&ref, args, reply))
    return false;
  uint8_t *data = NULL;
  size_t size = 0;
  if (dap_base64_decode(json_string_value(d), &data, &size) != 0)
    return dap_fail(reply, "writeMemory: 'data' is not base64");
  /* "inactiveLanes": true asks for the memory of inactive lanes too. */
  unsigned flags = json_is_true(json_object_get(args, "inactiveLanes")) ? AMDDWARF_ASSIGN_INACTIVE
                                                                        : 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_write_memory(s->threads[s->current_thread].wave, ref.aspace,
                                                  ref.lane, ref.address, size, data, flags, &err);
  free(data);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "writeMemory", st, &err);
  reply->body = json_object();
  json_object_set_new(reply->body, "bytesWritten", json_integer((json_int_t)size));
  json_t *ev = json_object();
  json_object_set_new(ev, "memoryReference", json_string(json_string_value(r)));
  json_object_set_new(ev, "offset", json_integer(json_integer_value(json_object_get(args, "offset"))));
  json_object_set_new(ev, "count", json_integer((json_int_t)size));
  dap_send_event(s, "memory", ev);
  dap_invalidate(s, s->current_thread);
  return true;
}

/* ---- Disassembly ---- */

/* The instruction boundaries of one executable section, decoded once. */
typedef struct section_code {
  const amddwarf_object *object;
  amddwarf_disasm *dc;
  const amddwarf_disasm_section *section;
  uint64_t *starts;              /* instruction addresses in order */
  size_t count;
} section_code;

typedef struct disasm_state {
  amddwarf_disasm **contexts;    /* per object; NULL when it did not open */
  section_code *sections;
  size_t section_count;
} disasm_state;

bool dap_disasm_available(void)
{
  return amddwarf_disasm_available();
}

void dap_disasm_release(dap_session *s)
{
  disasm_state *d = s->disasm;
  if (!d)
    return;
  for (size_t i = 0; i < s->object_count; i++)
    amddwarf_disasm_close(d->contexts[i]);
  for (size_t i = 0; i < d->section_count; i++)
    free(d->sections[i].starts);
  free(d->contexts);
  free(d->sections);
  free(d);
  s->disasm = NULL;
}

static bool disasm_setup(dap_session *s, dap_reply *reply)
{
  if (s->disasm)
    return true;
  disasm_state *d = calloc(1, sizeof *d);
  if (!d || !(d->contexts = calloc(s->object_count, sizeof *d->contexts))) {
    free(d);
    return dap_fail(reply, "disassemble: out of memory");
  }
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  for (size_t i = 0; i < s->object_count; i++) {
    size_t n = 0;
    const amddwarf_disasm_section *sec =
        amddwarf_disasm_open(s->objects[i], &d->contexts[i], &err) == AMDDWARF_OK
            ? amddwarf_disasm_sections(d->contexts[i], &n)
            : NULL;
    for (size_t k = 0; k < n; k++) {
      section_code *grown = realloc(d->sections, (d->section_count + 1) * sizeof *grown);
      if (!grown)
        break;
      d->sections = grown;
      d->sections[d->section_count++] = (section_code){s->objects[i], d->contexts[i], &sec[k],
                                                        NULL, 0};
    }
  }
  s->disasm = d;
  if (d->section_count == 0) {
    dap_disasm_release(s);
    return dap_fail(reply, "disassemble: %s",
                    err.message[0] ? err.message : "no executable section");
  }
  return true;
}

/* Decodes SC's instruction starts once: undecodable bytes advance by 4. */
static bool section_starts(section_code *sc)
{
  if (sc->starts)
    return true;
  uint64_t lo = sc->section->address, hi = lo + sc->section->size;
  size_t cap = (size_t)(sc->section->size / 4) + 1;
  sc->starts = malloc(cap * sizeof *sc->starts);
  if (!sc->starts)
    return false;
  char text[256];
  for (uint64_t pc = lo; pc < hi && sc->count < cap;) {
    sc->starts[sc->count++] = pc;
    size_t len = amddwarf_disasm_one(sc->dc, sc->section->data + (pc - lo), (size_t)(hi - pc), pc,
                                     text, sizeof text);
    pc += len ? len : (hi - pc < 4 ? hi - pc : 4);
  }
  return true;
}

static json_t *invalid_instruction(uint64_t address)
{
  char a[32];
  snprintf(a, sizeof a, "0x%" PRIx64, address);
  return json_pack("{s:s,s:s,s:b}", "address", a, "instruction", "<no code>",
                   "presentationHint", "invalid");
}

bool dap_disassemble(dap_session *s, const json_t *args, dap_reply *reply)
{
  const json_t *r = json_object_get(args, "memoryReference");
  const json_t *io = json_object_get(args, "instructionOffset");
  uint64_t count = 0, address;
  if (!json_is_string(r))
    return dap_fail(reply, "disassemble: missing 'memoryReference'");
  if (cli_parse_u64(json_string_value(r), &address) != 0)
    return dap_fail(reply, "disassemble: memoryReference '%s' is not a code address",
                    json_string_value(r));
  memory_ref ref = {0, AMDDWARF_NO_LANE, address};
  if (!offset_ref(&ref, args, reply) ||
      !dap_arg_index(reply, args, "instructionCount", true, MAX_INSTRUCTIONS, &count))
    return false;
  if (io && !json_is_integer(io))
    return dap_fail(reply, "disassemble: 'instructionOffset' must be an integer");
  json_int_t offset = io ? json_integer_value(io) : 0;
  if (offset < -MAX_INSTRUCTIONS || offset > MAX_INSTRUCTIONS)
    return dap_fail(reply, "disassemble: 'instructionOffset' is beyond %d instructions",
                    MAX_INSTRUCTIONS);
  if (!disasm_setup(s, reply))
    return false;
  /* A wave over loaded code objects names process addresses: the code is
     that of the object loaded there, shown at its load address (BIAS). */
  uint64_t bias = 0;
  const amddwarf_object *only = NULL;
  bool unloaded = false;
  const dap_thread *t = s->thread_count ? &s->threads[s->current_thread] : NULL;
  if (t != NULL && t->load_addresses != NULL && t->wave != NULL) {
    size_t at = 0;
    uint64_t object_address = 0;
    if (amddwarf_wave_object_at(t->wave, ref.address, &at, &object_address) == AMDDWARF_OK) {
      only = t->objects[at];
      bias = t->load_addresses[at];
      ref.address = object_address;
    } else {
      unloaded = true;
    }
  }
  disasm_state *d = s->disasm;
  section_code *sc = NULL;
  for (size_t i = 0; i < d->section_count && !sc && !unloaded; i++) {
    const amddwarf_disasm_section *sec = d->sections[i].section;
    if ((only == NULL || d->sections[i].object == only) && ref.address >= sec->address &&
        ref.address - sec->address < sec->size)
      sc = &d->sections[i];
  }
  json_t *list = json_array();
  reply->body = json_object();
  json_object_set_new(reply->body, "instructions", list);
  if (!sc) {
    /* Outside every section: addresses with no code, as the protocol asks
       for exactly instructionCount entries. */
    for (uint64_t k = 0; k < count; k++)
      json_array_append_new(list, invalid_instruction(bias + ref.address +
                                                      4 * (uint64_t)(offset + (json_int_t)k)));
    return true;
  }
  if (!section_starts(sc))
    return dap_fail(reply, "disassemble: out of memory");
  /* The instruction holding the address, then OFFSET instructions away. */
  size_t lo = 0, hi = sc->count;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (sc->starts[mid] <= ref.address)
      lo = mid;
    else
      hi = mid;
  }
  int64_t first = (int64_t)lo + offset;
  const amddwarf_line_table *last_table = NULL;
  amddwarf_line_row last_row_found;
  const amddwarf_line_row *last_row = NULL;
  for (uint64_t k = 0; k < count; k++) {
    int64_t index = first + (int64_t)k;
    uint64_t end = sc->section->address + sc->section->size;
    if (index < 0 || (uint64_t)index >= sc->count) {
      uint64_t a = index < 0 ? sc->section->address - 4 * (uint64_t)(-index)
                             : end + 4 * ((uint64_t)index - sc->count);
      json_array_append_new(list, invalid_instruction(bias + a));
      continue;
    }
    uint64_t pc = sc->starts[index];
    uint64_t next = (uint64_t)index + 1 < sc->count ? sc->starts[index + 1] : end;
    const uint8_t *bytes = sc->section->data + (pc - sc->section->address);
    char text[256], a[32], hex[64] = "";
    if (amddwarf_disasm_one(sc->dc, bytes, (size_t)(end - pc), pc, text, sizeof text) == 0)
      snprintf(text, sizeof text, "<unknown>");
    for (uint64_t b = 0; b < next - pc && b < 24; b++)
      snprintf(hex + 2 * b, sizeof hex - 2 * b, "%02x", bytes[b]);
    snprintf(a, sizeof a, "0x%" PRIx64, bias + pc);
    json_t *j = json_object();
    json_object_set_new(j, "address", json_string(a));
    json_object_set_new(j, "instructionBytes", json_string(hex));
    json_object_set_new(j, "instruction", json_string(text));
    amddwarf_symbol sym;
    if (amddwarf_object_function_symbol_at(sc->object, pc, &sym) == AMDDWARF_OK &&
        sym.address == pc)
      json_object_set_new(j, "symbol", json_string(sym.name));
    const amddwarf_line_table *table = NULL;
    amddwarf_line_row row_found;
    const amddwarf_line_row *row = &row_found;
    if (amddwarf_object_line_at(sc->object, pc, &table, &row_found) == AMDDWARF_OK) {
      /* The location is given where the source line changes. */
      if (table != last_table || !last_row || row->file != last_row->file ||
          row->line != last_row->line || k == 0) {
        if (row->file < table->file_count && table->files[row->file])
          json_object_set_new(j, "location", dap_source_json(table->files[row->file]));
      }
      json_object_set_new(j, "line", json_integer(row->line));
      json_object_set_new(j, "column", json_integer(row->column));
      last_table = table;
      last_row_found = *row;
      last_row = &last_row_found;
    }
    json_array_append_new(list, j);
  }
  return true;
}
