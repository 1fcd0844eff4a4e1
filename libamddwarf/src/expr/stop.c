/* Stops: the waves of a stopped GPU as snapshots with their places
 * (<amddwarf/stop.h>, specs/stop.md). The document is parsed once; each
 * wave's snapshot member is handed, parsed, to the snapshot loader, so the
 * two formats have one reader each. An indexed document (a stop of
 * thousands of waves) is not parsed whole: stop_scan.c finds each wave's
 * members in one pass, and a wave's snapshot is read on first use straight
 * from the text (snapshot_text.c checks it, snapshot.c decodes it in place
 * through snapshot_value.h, with the same member decoders as a tree). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/stop.h>

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"
#include "common/text.h"
#include "expr/snapshot_json.h"
#include "expr/snapshot_text.h"
#include "expr/stop_scan.h"

/* A document added with amddwarf_stop_add_indexed: the caller's text and
   its "code_objects" parsed (or NULL). */
typedef struct indexed_document {
  const char *text;
  json_t *code_objects;
} indexed_document;

/* A wave, and where its snapshot lies when it is parsed on first use. */
typedef struct stop_entry {
  amddwarf_stop_wave wave;       /* WAVE.snapshot NULL: not parsed yet */
  size_t document;               /* into DOCUMENTS; NOT_INDEXED: parsed when added */
  size_t begin, end;             /* the snapshot member's value in the document */
  /* The strict check of the snapshot's text, made by the document's
     index (stop_scan.h): the index each parse walks, or the fault that
     refuses the wave when it is read. */
  stop_scan_check check;
} stop_entry;

enum { NOT_INDEXED = -1 };

struct amddwarf_stop {
  amddwarf_allocator alloc;
  stop_entry *waves;
  size_t count, capacity;
  indexed_document *documents;
  size_t document_count, document_capacity;
};

amddwarf_status amddwarf_stop_new(const amddwarf_allocator *allocator, amddwarf_stop **out,
                                  amddwarf_error *err)
{
  if (!out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no output");
  amddwarf_allocator alloc = amddwarf__allocator_resolve(allocator);
  amddwarf_stop *stop = amddwarf__mem_calloc(&alloc, 1, sizeof *stop);
  if (!stop)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  stop->alloc = alloc;
  *out = stop;
  return AMDDWARF_OK;
}

static void wave_release(amddwarf_stop *stop, stop_entry *e)
{
  amddwarf_snapshot_free(e->wave.snapshot);
  if (e->wave.origin)
    amddwarf__mem_free(&stop->alloc, (void *)e->wave.origin, strlen(e->wave.origin) + 1);
  amddwarf__json_text_index_release(&e->check.index);
}

void amddwarf_stop_free(amddwarf_stop *stop)
{
  if (!stop)
    return;
  for (size_t i = 0; i < stop->count; i++)
    wave_release(stop, &stop->waves[i]);
  amddwarf__mem_free(&stop->alloc, stop->waves, stop->capacity * sizeof *stop->waves);
  for (size_t i = 0; i < stop->document_count; i++)
    json_decref(stop->documents[i].code_objects);
  amddwarf__mem_free(&stop->alloc, stop->documents,
                     stop->document_capacity * sizeof *stop->documents);
  amddwarf_allocator alloc = stop->alloc;
  amddwarf__mem_free(&alloc, stop, sizeof *stop);
}

size_t amddwarf_stop_wave_count(const amddwarf_stop *stop)
{
  return stop ? stop->count : 0;
}

const amddwarf_stop_wave *amddwarf_stop_wave_get(const amddwarf_stop *stop, size_t index)
{
  return stop && index < stop->count ? &stop->waves[index].wave : NULL;
}

/* An id of the place, in [0, 2^32), read as every integer of the document
   (common/json_int.h); PATH names it in a message. */
static amddwarf_status place_u32(const json_t *j, const char *path, amddwarf_error *err,
                                 uint32_t *out)
{
  uint64_t value = 0;
  amddwarf_status st =
      amddwarf__json_uint(j, UINT32_MAX, path, AMDDWARF_E_SNAPSHOT_SCHEMA, err, &value);
  *out = (uint32_t)value;
  return st;
}

static char *copy_text(amddwarf_stop *stop, const char *text)
{
  size_t n = strlen(text) + 1;
  char *copy = amddwarf__mem_alloc(&stop->alloc, n);
  if (copy)
    memcpy(copy, text, n);
  return copy;
}

/* The place members of a wave: WG (its "work_group", or NULL) and ID (its
   "wave_id", or NULL). WHERE prefixes messages ("stop.json waves[3]"). */
static amddwarf_status load_place(const json_t *wg, const json_t *id, const char *where,
                                  amddwarf_stop_wave *w, amddwarf_error *err)
{
  if (wg) {
    if (!json_is_array(wg) || json_array_size(wg) < 1 || json_array_size(wg) > 3)
      return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "%s.work_group must be an array of 1 to 3 ids", where);
    for (size_t i = 0; i < json_array_size(wg); i++) {
      char path[600];
      snprintf(path, sizeof path, "%s.work_group[%zu]", where, i);
      amddwarf_status st = place_u32(json_array_get(wg, i), path, err, &w->work_group[i]);
      if (st != AMDDWARF_OK)
        return st;
    }
    w->has_work_group = 1;
  }
  if (id) {
    char path[600];
    snprintf(path, sizeof path, "%s.wave_id", where);
    amddwarf_status st = place_u32(id, path, err, &w->wave_id);
    if (st != AMDDWARF_OK)
      return st;
    w->has_wave_id = 1;
  }
  return AMDDWARF_OK;
}

/* Loads the snapshot of wave W: SNAPSHOT is the snapshot's JSON object,
   IN_STOP whether it is a member of a stop's wave (not a bare snapshot
   document). CODE_OBJECTS, the stop's own list (or NULL), is the wave's when
   its snapshot lists none. AT, the snapshot's byte offset in its document
   (AMDDWARF_NO_OFFSET: unknown), is ERR.offset of the snapshot's errors. */
static amddwarf_status load_snapshot(const amddwarf_stop *stop, const snapshot_value *snapshot,
                                     int in_stop, const snapshot_value *code_objects,
                                     const char *where, uint64_t at, amddwarf_stop_wave *w,
                                     amddwarf_error *err)
{
  if (in_stop && snapshot->kind != SNAPSHOT_OBJECT)
    return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, at,
                         "%s.snapshot must be a snapshot object (specs/snapshot.md)", where);
  amddwarf_error inner;
  amddwarf_error_clear(&inner);
  amddwarf_status st = amddwarf__snapshot_load_value(snapshot, code_objects, &stop->alloc,
                                                     &w->snapshot, &inner);
  if (st != AMDDWARF_OK) {
    if (at != AMDDWARF_NO_OFFSET)
      return amddwarf__fail(err, st, at, "%s.snapshot (at byte %llu): %s", where,
                           (unsigned long long)at, inner.message);
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "%s%s: %s", where,
                         in_stop ? ".snapshot" : "", inner.message);
  }
  return AMDDWARF_OK;
}

/* Loads one wave: SNAPSHOT is the snapshot's JSON object, PLACE the entry
   holding the place members (NULL for a bare snapshot document). WHERE
   prefixes messages ("stop.json waves[3]"). CODE_OBJECTS, the stop's own
   list (or NULL), is the wave's when its snapshot lists none. */
static amddwarf_status load_wave(amddwarf_stop *stop, const json_t *place, const json_t *snapshot,
                                 const json_t *code_objects, const char *where,
                                 amddwarf_stop_wave *w, amddwarf_error *err)
{
  memset(w, 0, sizeof *w);
  amddwarf_status st = AMDDWARF_OK;
  if (place)
    st = load_place(json_object_get(place, "work_group"), json_object_get(place, "wave_id"),
                    where, w, err);
  snapshot_value snapshot_v, code_objects_v;
  amddwarf__snapshot_value_json(snapshot, &snapshot_v);
  amddwarf__snapshot_value_json(code_objects, &code_objects_v);
  if (st == AMDDWARF_OK)
    st = load_snapshot(stop, &snapshot_v, place != NULL, code_objects ? &code_objects_v : NULL,
                       where, AMDDWARF_NO_OFFSET, w, err);
  if (st != AMDDWARF_OK)
    return st;
  if (!(w->origin = copy_text(stop, where))) {
    amddwarf_snapshot_free(w->snapshot);
    w->snapshot = NULL;
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  return AMDDWARF_OK;
}

/* Room in STOP for N more waves: refused past AMDDWARF_STOP_MAX_WAVES. */
static amddwarf_status reserve_waves(amddwarf_stop *stop, size_t n, const char *name,
                                     amddwarf_error *err)
{
  if (n > AMDDWARF_STOP_MAX_WAVES - stop->count)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "%s: more than %d waves in the stop", name, AMDDWARF_STOP_MAX_WAVES);
  if (amddwarf__mem_reserve(&stop->alloc, (void **)&stop->waves, &stop->capacity,
                           stop->count + n, sizeof *stop->waves) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_stop_add(amddwarf_stop *stop, const char *text, size_t size,
                                  const char *name, amddwarf_error *err)
{
  if (!stop || (!text && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop or no text");
  if (!name)
    name = "stop";
  json_error_t jerr;
  json_t *root = json_loadb(text ? text : "", size, JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return amddwarf__fail(err, AMDDWARF_E_BAD_JSON, (uint64_t)jerr.position,
                         "%s line %d column %d: %s", name, jerr.line, jerr.column, jerr.text);
  amddwarf_status st = AMDDWARF_OK;
  size_t first = stop->count;
  const json_t *waves = json_is_object(root) ? json_object_get(root, "waves") : NULL;
  const json_t *code_objects = waves ? json_object_get(root, "code_objects") : NULL;
  size_t n = waves ? json_array_size(waves) : 1;
  if (!json_is_object(root)) {
    st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                       "%s must be a JSON object: a stop {\"waves\": [...]} or a snapshot", name);
    goto done;
  }
  if (waves && !json_is_array(waves)) {
    st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                       "%s: waves must be an array", name);
    goto done;
  }
  if ((st = reserve_waves(stop, n, name, err)) != AMDDWARF_OK)
    goto done;
  for (size_t i = 0; i < n && st == AMDDWARF_OK; i++) {
    char where[512];
    memset(&stop->waves[stop->count], 0, sizeof stop->waves[stop->count]);
    if (waves) {
      const json_t *entry = json_array_get(waves, i);
      snprintf(where, sizeof where, "%s waves[%zu]", name, i);
      if (!json_is_object(entry))
        st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "%s must be an object {\"snapshot\": ...}", where);
      else
        st = load_wave(stop, entry, json_object_get(entry, "snapshot"), code_objects, where,
                       &stop->waves[stop->count].wave, err);
    } else {
      snprintf(where, sizeof where, "%s", name);
      st = load_wave(stop, NULL, root, NULL, where, &stop->waves[stop->count].wave, err);
    }
    if (st == AMDDWARF_OK)
      stop->waves[stop->count++].document = (size_t)NOT_INDEXED;
  }
  if (st != AMDDWARF_OK)
    while (stop->count > first)
      wave_release(stop, &stop->waves[--stop->count]);
done:
  json_decref(root);
  return st;
}

/* ---- Indexed documents: each wave's snapshot parsed on first use ---- */

/* The JSON value at RANGE of TEXT, or NULL with ERR set (the member's
   byte offset and what is wrong there). */
static json_t *parse_range(const char *text, stop_scan_range range, const char *what,
                           amddwarf_error *err)
{
  json_error_t jerr;
  json_t *j = json_loadb(text + range.begin, range.end - range.begin,
                         JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
  if (!j) {
    uint64_t at = (uint64_t)range.begin + (uint64_t)jerr.position;
    amddwarf__fail(err, AMDDWARF_E_BAD_JSON, at, "%s (at byte %zu): byte %llu: %s", what,
                   range.begin, (unsigned long long)at, jerr.text);
  }
  return j;
}

/* The place of indexed wave W of document TEXT, WHERE naming it. */
static amddwarf_status index_place(const char *text, const stop_scan_wave *w, const char *where,
                                   amddwarf_stop_wave *out, amddwarf_error *err)
{
  char what[600];
  json_t *wg = NULL, *id = NULL;
  amddwarf_status st = AMDDWARF_OK;
  if (w->work_group.end > w->work_group.begin) {
    snprintf(what, sizeof what, "%s.work_group", where);
    if (!(wg = parse_range(text, w->work_group, what, err)))
      st = AMDDWARF_E_BAD_JSON;
  }
  if (st == AMDDWARF_OK && w->wave_id.end > w->wave_id.begin) {
    snprintf(what, sizeof what, "%s.wave_id", where);
    if (!(id = parse_range(text, w->wave_id, what, err)))
      st = AMDDWARF_E_BAD_JSON;
  }
  if (st == AMDDWARF_OK)
    st = load_place(wg, id, where, out, err);
  json_decref(wg);
  json_decref(id);
  return st;
}

amddwarf_status amddwarf_stop_add_indexed(amddwarf_stop *stop, const char *text, size_t size,
                                          const char *name, amddwarf_error *err)
{
  if (!stop || (!text && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop or no text");
  if (!name)
    name = "stop";
  stop_scan_result scan;
  amddwarf_status st = amddwarf__stop_scan(text ? text : "", size, name, &stop->alloc, &scan, err);
  if (st != AMDDWARF_OK)
    return st;
  /* A bare snapshot is one wave: nothing to defer. */
  if (!scan.has_waves) {
    amddwarf__stop_scan_release(&stop->alloc, &scan);
    return amddwarf_stop_add(stop, text, size, name, err);
  }
  size_t first = stop->count;
  json_t *code_objects = NULL;
  st = reserve_waves(stop, scan.count, name, err);
  if (st == AMDDWARF_OK &&
      amddwarf__mem_reserve(&stop->alloc, (void **)&stop->documents, &stop->document_capacity,
                            stop->document_count + 1, sizeof *stop->documents) != 0)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (st == AMDDWARF_OK && scan.code_objects.end > scan.code_objects.begin) {
    char what[600];
    snprintf(what, sizeof what, "%s: code_objects", name);
    if (!(code_objects = parse_range(text, scan.code_objects, what, err)))
      st = AMDDWARF_E_BAD_JSON;
  }
  for (size_t i = 0; i < scan.count && st == AMDDWARF_OK; i++) {
    const stop_scan_wave *sw = &scan.waves[i];
    stop_entry *e = &stop->waves[stop->count];
    char where[512];
    snprintf(where, sizeof where, "%s waves[%zu]", name, i);
    memset(e, 0, sizeof *e);
    if (sw->snapshot.end == sw->snapshot.begin)
      st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, sw->entry.begin,
                         "%s (at byte %zu).snapshot must be a snapshot object (specs/snapshot.md)",
                         where, sw->entry.begin);
    else
      st = index_place(text, sw, where, &e->wave, err);
    if (st == AMDDWARF_OK && !(e->wave.origin = copy_text(stop, where)))
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
    if (st != AMDDWARF_OK)
      break;
    e->document = stop->document_count;
    e->begin = sw->snapshot.begin;
    e->end = sw->snapshot.end;
    e->check = sw->check;
    memset(&scan.waves[i].check, 0, sizeof scan.waves[i].check); /* the entry's now */
    stop->count++;
  }
  amddwarf__stop_scan_release(&stop->alloc, &scan);
  if (st != AMDDWARF_OK) {
    while (stop->count > first)
      wave_release(stop, &stop->waves[--stop->count]);
    json_decref(code_objects);
    return st;
  }
  stop->documents[stop->document_count++] = (indexed_document){text, code_objects};
  return AMDDWARF_OK;
}

/* Parses the snapshot of indexed entry E into OUT->snapshot (OUT is E's wave
   or a copy of it): its text, checked when the document was indexed, read
   in place (snapshot_text.h, snapshot_value.h), no tree built. */
static amddwarf_status parse_entry(const amddwarf_stop *stop, const stop_entry *e,
                                   amddwarf_stop_wave *out, amddwarf_error *err)
{
  const indexed_document *doc = &stop->documents[e->document];
  if (e->check.status != AMDDWARF_OK)
    return amddwarf__fail(err, e->check.status, e->check.fault,
                         "%s.snapshot (at byte %zu): byte %zu: %s", e->wave.origin, e->begin,
                         e->check.fault, e->check.why);
  snapshot_value snapshot, code_objects;
  amddwarf__snapshot_value_text(doc->text, &e->check.index, e->begin, e->end, &snapshot);
  amddwarf__snapshot_value_json(doc->code_objects, &code_objects);
  return load_snapshot(stop, &snapshot, 1, doc->code_objects ? &code_objects : NULL,
                       e->wave.origin, (uint64_t)e->begin, out, err);
}

amddwarf_status amddwarf_stop_wave_load(amddwarf_stop *stop, size_t index,
                                        const amddwarf_stop_wave **out, amddwarf_error *err)
{
  if (!stop || !out || index >= stop->count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop, no output, or wave %zu past the stop's %zu", index,
                         stop ? stop->count : 0);
  *out = NULL;
  stop_entry *e = &stop->waves[index];
  if (e->wave.snapshot == NULL) {
    amddwarf_status st = parse_entry(stop, e, &e->wave, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  *out = &e->wave;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_stop_wave_unload(amddwarf_stop *stop, size_t index, amddwarf_error *err)
{
  if (!stop || index >= stop->count)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop, or wave %zu past the stop's %zu", index, stop ? stop->count : 0);
  stop_entry *e = &stop->waves[index];
  if (e->wave.snapshot == NULL)
    return AMDDWARF_OK;
  if (e->document == (size_t)NOT_INDEXED)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s was parsed whole (amddwarf_stop_add): it stays", e->wave.origin);
  if (amddwarf__snapshot_written(e->wave.snapshot))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "%s was written through its target: it stays", e->wave.origin);
  amddwarf_snapshot_free(e->wave.snapshot);
  e->wave.snapshot = NULL;
  return AMDDWARF_OK;
}

/* ---- Saving ---- */

amddwarf_status amddwarf_stop_save(const amddwarf_stop *stop, char **text, size_t *size,
                                   amddwarf_error *err)
{
  if (!stop || !text || !size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop or no output");
  *text = NULL;
  *size = 0;
  amddwarf_text b;
  amddwarf__text_init(&b, &stop->alloc);
  b.max = SIZE_MAX / 2; /* up to AMDDWARF_STOP_MAX_WAVES saved snapshots */
  amddwarf_status st = AMDDWARF_OK;
  amddwarf__text_puts(&b, "{\"waves\": [");
  for (size_t i = 0; i < stop->count && st == AMDDWARF_OK; i++) {
    const amddwarf_stop_wave *w = &stop->waves[i].wave;
    /* A wave not parsed yet is parsed for the save and let go again. */
    amddwarf_stop_wave parsed = *w;
    if (w->snapshot == NULL) {
      parsed.snapshot = NULL;
      st = parse_entry(stop, &stop->waves[i], &parsed, err);
      if (st != AMDDWARF_OK)
        break;
      w = &parsed;
    }
    amddwarf__text_puts(&b, i ? ",\n  {" : "\n  {");
    if (w->has_work_group)
      amddwarf__text_printf(&b, "\"work_group\": [%u, %u, %u], ", w->work_group[0],
                            w->work_group[1], w->work_group[2]);
    if (w->has_wave_id)
      amddwarf__text_printf(&b, "\"wave_id\": %u, ", w->wave_id);
    amddwarf__text_puts(&b, "\"snapshot\": ");
    char *snap = NULL;
    size_t snap_size = 0;
    st = amddwarf_snapshot_save(w->snapshot, &snap, &snap_size, err);
    if (st == AMDDWARF_OK) {
      /* The snapshot document ends with a newline: drop it inside the array. */
      size_t n_out = snap_size;
      while (n_out > 0 && snap[n_out - 1] == '\n')
        n_out--;
      amddwarf__text_append(&b, snap, n_out);
      amddwarf__mem_free(&stop->alloc, snap, snap_size + 1);
      amddwarf__text_puts(&b, "}");
    }
    if (w == &parsed)
      amddwarf_snapshot_free(parsed.snapshot);
  }
  amddwarf__text_puts(&b, stop->count ? "\n]}\n" : "]}\n");
  if (st != AMDDWARF_OK) {
    amddwarf__text_free(&b);
    return st;
  }
  /* Handed over trimmed to SIZE + 1, the size the caller frees. */
  if (amddwarf__text_take(&b, text, size) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  return AMDDWARF_OK;
}
