/* The texts every view of a wave shows (<amddwarf/debug.h>): a lane's read
 * with its explanation, the lanes of a value as a table of runs, a place,
 * and the frame to point to when a path's variable is not in scope.
 * `amddwarf eval`, `amddwarf lanes` and the debug adapter print these, so
 * one question gets one answer in all of them. */
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/path.h"
#include "debug/value.h"

/* VALUE's text (amddwarf_lane_value_text) and, with EXPLAIN, where its
   bits come from and why a lane has none, appended to T. */
static void describe(amddwarf_text *t, const amddwarf_lane_value *value, unsigned flags)
{
  char small[256];
  size_t n = amddwarf_lane_value_text(value, small, sizeof small);
  char *big = n < sizeof small ? NULL : amddwarf__mem_alloc(t->allocator, n + 1);
  if (big != NULL)
    amddwarf_lane_value_text(value, big, n + 1);
  if (n >= sizeof small && big == NULL)
    t->failed = 1;
  else
    amddwarf__text_puts(t, big != NULL ? big : small);
  if (big != NULL)
    amddwarf__mem_free(t->allocator, big, n + 1);
  if (!(flags & AMDDWARF_LANE_TEXT_EXPLAIN))
    return;
  if (value->explain != NULL && value->explain[0] != '\0')
    amddwarf__text_printf(t, "    [%s]", value->explain);
  if (value->reason == AMDDWARF_UNAVAILABLE_NONE)
    return;
  /* A message the text does not show already says which register or
     memory the location needs. */
  if (!value->detailed && value->message != NULL && value->message[0] != '\0')
    amddwarf__text_printf(t, "    [why: %s: %s]", amddwarf_unavailable_name(value->reason),
                         value->message);
  else
    amddwarf__text_printf(t, "    [why: %s]", amddwarf_unavailable_name(value->reason));
}

size_t amddwarf_lane_value_describe(const amddwarf_lane_value *value, unsigned flags, char *buf,
                                    size_t buf_size)
{
  amddwarf_text t;
  amddwarf__text_init_fixed(&t, buf, buf_size);
  describe(&t, value, flags);
  return t.len;
}

/* One lane's read kept past the next read: what runs are compared by. */
typedef struct kept_lane {
  amddwarf_lane_value value;
  amddwarf_text text, message, explain;
} kept_lane;

static void keep(kept_lane *k, const amddwarf_lane_value *v)
{
  amddwarf__text_reset(&k->text);
  amddwarf__text_reset(&k->message);
  amddwarf__text_reset(&k->explain);
  amddwarf__text_puts(&k->text, v->text ? v->text : "");
  amddwarf__text_puts(&k->message, v->message ? v->message : "");
  amddwarf__text_puts(&k->explain, v->explain ? v->explain : "");
  k->value = *v;
  k->value.text = amddwarf__text_str(&k->text);
  k->value.message = amddwarf__text_str(&k->message);
  k->value.explain = amddwarf__text_str(&k->explain);
  k->value.bytes = NULL;
  k->value.size = 0;
}

/* Whether lane V continues the run of K: the same read and, with EXPLAIN,
   the same explanation. */
static int same_run(const kept_lane *k, const amddwarf_lane_value *v, unsigned flags)
{
  return amddwarf_lane_values_equal(&k->value, v) &&
         (!(flags & AMDDWARF_LANE_TEXT_EXPLAIN) ||
          strcmp(k->value.explain, v->explain ? v->explain : "") == 0);
}

/* A row: the run "FIRST" or "FIRST-LAST" right-aligned in 5 columns, two
   spaces, the lane's text. */
static void add_row(amddwarf_text *t, uint32_t first, uint32_t last, const kept_lane *k,
                    unsigned flags)
{
  size_t width = first >= 10 ? 2 : 1;
  if (last > first)
    width += 1 + (last >= 10 ? 2 : 1);
  if (width < 5)
    amddwarf__text_fill(t, ' ', 5 - width);
  amddwarf__text_uint(t, first);
  if (last > first) {
    amddwarf__text_append(t, "-", 1);
    amddwarf__text_uint(t, last);
  }
  amddwarf__text_append(t, "  ", 2);
  describe(t, &k->value, flags);
  amddwarf__text_append(t, "\n", 1);
}

/* The table of LANES (not 0) into T; a read's failure stops it. Without
   explanations, the lanes a plain location gives whole are evaluated and
   read together, and their text is made from their bytes. */
static amddwarf_status render(amddwarf_valobj *value, uint64_t lanes, unsigned flags,
                              amddwarf_text *t, amddwarf_error *err)
{
  kept_lane k;
  amddwarf_status st = AMDDWARF_OK;
  uint32_t first = 0, last = 0;
  int open = 0;
  uint8_t whole_bytes[AMDDWARF_MAX_LANES * 64];
  size_t size = (size_t)value->info.byte_size;
  uint64_t whole = !(flags & AMDDWARF_LANE_TEXT_EXPLAIN) && size > 0 && size <= 64
                       ? amddwarf__debug_value_read_whole(value, lanes, whole_bytes, size)
                       : 0;
  memset(&k, 0, sizeof k);
  amddwarf__text_init(&k.text, &value->wave->allocator);
  amddwarf__text_init(&k.message, &value->wave->allocator);
  amddwarf__text_init(&k.explain, &value->wave->allocator);
  amddwarf__text_printf(t, "%s (%s) at pc 0x%llx\nlanes  value\n", value->info.path,
                       value->info.type_name, (unsigned long long)value->frame->pub.pc);
  for (uint32_t lane = 0; lane < AMDDWARF_MAX_LANES && st == AMDDWARF_OK; ++lane) {
    amddwarf_lane_value v;
    if (!(lanes >> lane & 1))
      continue;
    const uint8_t *bytes = whole >> lane & 1 ? whole_bytes + (size_t)lane * size : NULL;
    if ((st = amddwarf__valobj_read_lane(value, lane, bytes, &v, err)) != AMDDWARF_OK)
      break;
    /* A run is consecutive lanes: a lane left out of LANES ends it. */
    if (open && lane == last + 1 && same_run(&k, &v, flags)) {
      last = lane;
      continue;
    }
    if (open)
      add_row(t, first, last, &k, flags);
    keep(&k, &v);
    first = last = lane;
    open = 1;
  }
  if (st == AMDDWARF_OK && open)
    add_row(t, first, last, &k, flags);
  if (st == AMDDWARF_OK && amddwarf__text_status(&k.text) == AMDDWARF_OK &&
      amddwarf__text_status(&k.message) == AMDDWARF_OK)
    st = amddwarf__text_status(&k.explain);
  amddwarf__text_free(&k.text);
  amddwarf__text_free(&k.message);
  amddwarf__text_free(&k.explain);
  return st;
}

amddwarf_status amddwarf_valobj_lanes_table(amddwarf_valobj *value, uint64_t lanes,
                                            unsigned flags, char *buf, size_t buf_size,
                                            size_t *length, amddwarf_error *err)
{
  if (value == NULL || (buf == NULL && buf_size > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_lanes_table: NULL argument");
  uint32_t size = value->wave->info.wave_size;
  if (lanes == 0 || (lanes & ~(size >= 64 ? ~0ull : (1ull << size) - 1)) != 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane mask 0x%llx names no lane or lanes past the wave's %u",
                         (unsigned long long)lanes, size);
  amddwarf_text t;
  amddwarf__text_init(&t, &value->wave->allocator);
  amddwarf_status st = render(value, lanes, flags, &t, err);
  if (st == AMDDWARF_OK && (st = amddwarf__text_status(&t)) != AMDDWARF_OK)
    amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "the lanes table of '%s': out of memory",
                  value->path_text);
  if (st == AMDDWARF_OK && length != NULL)
    *length = t.len;
  if (st == AMDDWARF_OK && buf_size > 0) {
    size_t n = t.len < buf_size - 1 ? t.len : buf_size - 1;
    memcpy(buf, amddwarf__text_str(&t), n);
    buf[n] = '\0';
  }
  amddwarf__text_free(&t);
  return st;
}

size_t amddwarf_wave_place_text(const amddwarf_wave *wave, uint64_t pc, unsigned flags,
                                char *buf, size_t buf_size)
{
  amddwarf_text t;
  amddwarf_place place;
  amddwarf__text_init_fixed(&t, buf, buf_size);
  if (wave == NULL || amddwarf_wave_place(wave, pc, &place) != AMDDWARF_OK)
    memset(&place, 0, sizeof place);
  const char *file = place.has_row ? amddwarf_place_file_name(&place) : NULL;
  if (flags & AMDDWARF_PLACE_TEXT_LINE) {
    /* Line 0 is no source line (compiler-generated code): the file alone. */
    if (place.has_row && place.line == 0)
      amddwarf__text_puts(&t, file ? file : "?");
    else if (place.has_row)
      amddwarf__text_printf(&t, "%s:%u", file ? file : "?", place.line);
    return t.len;
  }
  if (place.has_row)
    amddwarf__text_printf(&t, "%s:%u:%u", file ? file : "?", place.line, place.column);
  else
    amddwarf__text_puts(&t, "??");
  amddwarf__text_printf(&t, " in %s", place.function ? place.function : "??");
  return t.len;
}

amddwarf_status amddwarf_wave_path_frame(amddwarf_wave *wave, size_t frame, const char *path,
                                         size_t *found)
{
  amddwarf_debug_path parsed;
  char message[160];
  size_t offset = 0;
  if (path == NULL ||
      amddwarf__debug_path_parse(path, &parsed, message, sizeof message, &offset) != 0)
    return AMDDWARF_NOT_FOUND;
  return amddwarf_wave_variable_frame(wave, frame, parsed.name, found);
}
