/* Stops: the waves of a stopped GPU as snapshots with their places
 * (<amddwarf/stop.h>, specs/stop.md). Each wave's snapshot is loaded by the
 * snapshot loader from its own member, so the two formats have one reader
 * each. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include <amddwarf/stop.h>

#include "common/error.h"
#include "common/mem.h"

struct amddwarf_stop {
  amddwarf_allocator alloc;
  amddwarf_stop_wave *waves;
  size_t count, capacity;
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

static void wave_release(amddwarf_stop *stop, amddwarf_stop_wave *w)
{
  amddwarf_snapshot_free(w->snapshot);
  if (w->origin)
    amddwarf__mem_free(&stop->alloc, (void *)w->origin, strlen(w->origin) + 1);
}

void amddwarf_stop_free(amddwarf_stop *stop)
{
  if (!stop)
    return;
  for (size_t i = 0; i < stop->count; i++)
    wave_release(stop, &stop->waves[i]);
  amddwarf__mem_free(&stop->alloc, stop->waves, stop->capacity * sizeof *stop->waves);
  amddwarf_allocator alloc = stop->alloc;
  amddwarf__mem_free(&alloc, stop, sizeof *stop);
}

size_t amddwarf_stop_wave_count(const amddwarf_stop *stop)
{
  return stop ? stop->count : 0;
}

const amddwarf_stop_wave *amddwarf_stop_wave_get(const amddwarf_stop *stop, size_t index)
{
  return stop && index < stop->count ? &stop->waves[index] : NULL;
}

/* An id of the place: a JSON integer in [0, 2^32). */
static int place_u32(const json_t *j, uint32_t *out)
{
  if (!json_is_integer(j) || json_integer_value(j) < 0 ||
      json_integer_value(j) > (json_int_t)UINT32_MAX)
    return -1;
  *out = (uint32_t)json_integer_value(j);
  return 0;
}

static char *copy_text(amddwarf_stop *stop, const char *text)
{
  size_t n = strlen(text) + 1;
  char *copy = amddwarf__mem_alloc(&stop->alloc, n);
  if (copy)
    memcpy(copy, text, n);
  return copy;
}

/* Loads one wave: SNAPSHOT is the snapshot's JSON object, PLACE the entry
   holding the place members (NULL for a bare snapshot document). WHERE
   prefixes messages ("stop.json waves[3]"). */
static amddwarf_status load_wave(amddwarf_stop *stop, const json_t *place, const json_t *snapshot,
                                 const char *where, amddwarf_stop_wave *w, amddwarf_error *err)
{
  memset(w, 0, sizeof *w);
  if (place) {
    const json_t *wg = json_object_get(place, "work_group");
    if (wg) {
      if (!json_is_array(wg) || json_array_size(wg) < 1 || json_array_size(wg) > 3)
        return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                             "%s.work_group must be an array of 1 to 3 ids", where);
      for (size_t i = 0; i < json_array_size(wg); i++)
        if (place_u32(json_array_get(wg, i), &w->work_group[i]) != 0)
          return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                               "%s.work_group[%zu] must be an integer in [0, 2^32)", where, i);
      w->has_work_group = 1;
    }
    const json_t *id = json_object_get(place, "wave_id");
    if (id) {
      if (place_u32(id, &w->wave_id) != 0)
        return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                             "%s.wave_id must be an integer in [0, 2^32)", where);
      w->has_wave_id = 1;
    }
    if (!json_is_object(snapshot))
      return amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "%s.snapshot must be a snapshot object (specs/snapshot.md)", where);
  }
  char *text = json_dumps(snapshot, JSON_COMPACT);
  if (!text)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_error inner;
  amddwarf_error_clear(&inner);
  amddwarf_status st = amddwarf_snapshot_load(text, strlen(text), &stop->alloc, &w->snapshot,
                                              &inner);
  free(text);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "%s%s: %s", where,
                         place ? ".snapshot" : "", inner.message);
  if (!(w->origin = copy_text(stop, where))) {
    amddwarf_snapshot_free(w->snapshot);
    w->snapshot = NULL;
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
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
  if (n > AMDDWARF_STOP_MAX_WAVES - stop->count) {
    st = amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                       "%s: more than %d waves in the stop", name, AMDDWARF_STOP_MAX_WAVES);
    goto done;
  }
  if (amddwarf__mem_reserve(&stop->alloc, (void **)&stop->waves, &stop->capacity,
                           stop->count + n, sizeof *stop->waves) != 0) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < n && st == AMDDWARF_OK; i++) {
    char where[512];
    if (waves) {
      const json_t *entry = json_array_get(waves, i);
      snprintf(where, sizeof where, "%s waves[%zu]", name, i);
      if (!json_is_object(entry))
        st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, AMDDWARF_NO_OFFSET,
                           "%s must be an object {\"snapshot\": ...}", where);
      else
        st = load_wave(stop, entry, json_object_get(entry, "snapshot"), where,
                       &stop->waves[stop->count], err);
    } else {
      snprintf(where, sizeof where, "%s", name);
      st = load_wave(stop, NULL, root, where, &stop->waves[stop->count], err);
    }
    if (st == AMDDWARF_OK)
      stop->count++;
  }
  if (st != AMDDWARF_OK)
    while (stop->count > first)
      wave_release(stop, &stop->waves[--stop->count]);
done:
  json_decref(root);
  return st;
}

/* ---- Saving ---- */

typedef struct out_buf {
  const amddwarf_allocator *alloc;
  char *data;
  size_t len, cap;
  int failed;
} out_buf;

static void out_put(out_buf *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (n + 1 > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 4096;
    while (n + 1 > cap - b->len) {
      if (cap > SIZE_MAX / 2) {
        b->failed = 1;
        return;
      }
      cap *= 2;
    }
    char *grown = amddwarf__mem_realloc(b->alloc, b->data, b->cap, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void out_str(out_buf *b, const char *s)
{
  out_put(b, s, strlen(s));
}

amddwarf_status amddwarf_stop_save(const amddwarf_stop *stop, char **text, size_t *size,
                                   amddwarf_error *err)
{
  if (!stop || !text || !size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no stop or no output");
  *text = NULL;
  *size = 0;
  out_buf b = {&stop->alloc, NULL, 0, 0, 0};
  amddwarf_status st = AMDDWARF_OK;
  out_str(&b, "{\"waves\": [");
  for (size_t i = 0; i < stop->count && st == AMDDWARF_OK; i++) {
    const amddwarf_stop_wave *w = &stop->waves[i];
    char place[128];
    int n = 0;
    out_str(&b, i ? ",\n  {" : "\n  {");
    if (w->has_work_group)
      n += snprintf(place + n, sizeof place - (size_t)n, "\"work_group\": [%u, %u, %u], ",
                    w->work_group[0], w->work_group[1], w->work_group[2]);
    if (w->has_wave_id)
      snprintf(place + n, sizeof place - (size_t)n, "\"wave_id\": %u, ", w->wave_id);
    out_str(&b, w->has_work_group || w->has_wave_id ? place : "");
    out_str(&b, "\"snapshot\": ");
    char *snap = NULL;
    size_t snap_size = 0;
    st = amddwarf_snapshot_save(w->snapshot, &snap, &snap_size, err);
    if (st == AMDDWARF_OK) {
      /* The snapshot document ends with a newline: drop it inside the array. */
      size_t n_out = snap_size;
      while (n_out > 0 && snap[n_out - 1] == '\n')
        n_out--;
      out_put(&b, snap, n_out);
      amddwarf__mem_free(&stop->alloc, snap, snap_size + 1);
      out_str(&b, "}");
    }
  }
  out_str(&b, stop->count ? "\n]}\n" : "]}\n");
  if (st == AMDDWARF_OK && b.failed)
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(&stop->alloc, b.data, b.cap);
    return st;
  }
  /* Shrink to SIZE + 1, the size the caller frees. */
  char *exact = amddwarf__mem_realloc(&stop->alloc, b.data, b.cap, b.len + 1);
  if (!exact) {
    amddwarf__mem_free(&stop->alloc, b.data, b.cap);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  *text = exact;
  *size = b.len;
  return AMDDWARF_OK;
}
