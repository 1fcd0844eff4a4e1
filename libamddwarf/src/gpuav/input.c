/* The descriptor input buffer of bindless checks in its three layouts
 * (specs/gpuav-records.md, section 5).
 *
 * Every layout is a run of per-set start words ("sets_to_X"), then per-set
 * runs of per-binding words, then per-binding runs of per-element words.
 * The validation layer writes 0 for a set without bindings and for a binding
 * without descriptors, and fills every run in set and binding order, so the
 * first non-zero start word of a run of starts points just past that run:
 * the number of sets is read from it, and a set or binding ends where the
 * next non-zero start begins. */
#include <amddwarf/gpuav.h>

#include <string.h>

#include "common/error.h"
#include "gpuav/gpuav_internal.h"

typedef struct input {
  const void *data;
  size_t size;
  uint32_t words;
  amddwarf_gpuav_descriptor *out;
  size_t capacity;
  size_t rows;
  amddwarf_error *err;
} input;

#define WORD(in, i) amddwarf_gpuav_input_word((in)->data, (in)->size, (i))

static amddwarf_status bad(const input *in, uint32_t word, const char *what, uint32_t value,
                           uint64_t low, uint64_t high)
{
  return amddwarf__fail(in->err, AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER, (uint64_t)word * 4,
                       "input buffer word %u: %s %u is outside [%llu, %llu]", word, what, value,
                       (unsigned long long)low, (unsigned long long)high);
}

static void add_row(input *in, uint32_t set, uint32_t binding, uint32_t size, uint32_t written)
{
  if (in->rows < in->capacity) {
    in->out[in->rows].set = set;
    in->out[in->rows].binding = binding;
    in->out[in->rows].array_size = size;
    in->out[in->rows].written_index = written;
  }
  in->rows++;
}

/* The run of start words at FIRST: its length is the first non-zero start
   minus FIRST (a start points past the run); *COUNT is 0 when every word up
   to LIMIT is zero. */
static amddwarf_status run_length(const input *in, uint32_t first, uint32_t limit,
                                  const char *what, uint32_t *count)
{
  for (uint32_t k = first; k < limit; k++) {
    uint32_t v = WORD(in, k);
    if (v == 0)
      continue;
    if (v <= k || v > limit)
      return bad(in, k, what, v, (uint64_t)k + 1, limit);
    *count = v - first;
    return AMDDWARF_OK;
  }
  *count = 0;
  return AMDDWARF_OK;
}

/* End of the run that starts at word AT of the starts [FIRST, FIRST+N): the
   next non-zero start, or END; *WHERE (may be NULL) is that start's word, or
   AT when it is END. */
static uint32_t next_start(const input *in, uint32_t first, uint32_t n, uint32_t at, uint32_t end,
                           uint32_t *where)
{
  for (uint32_t k = at + 1; k < first + n; k++)
    if (WORD(in, k) != 0) {
      if (where)
        *where = k;
      return WORD(in, k);
    }
  if (where)
    *where = at;
  return end;
}

/* Sizes (and, with BINDINGS_BASE, written flags) of the layouts with a
   sets_to_sizes run at word 1: SIZES (BINDINGS_BASE = word 0) and LENGTHS
   (BINDINGS_BASE = 0: no written flags, sizes run to the end). */
static amddwarf_status decode_sizes(input *in, uint32_t bindings_base)
{
  uint32_t sizes_end = bindings_base ? bindings_base : in->words;
  uint32_t sets;
  amddwarf_status st = run_length(in, 1, sizes_end, "sizes start", &sets);
  if (st != AMDDWARF_OK)
    return st;
  if (sets == 0) /* no set has bindings: every word before sizes_end is a set */
    sets = sizes_end > 1 ? sizes_end - 1 : 0;
  uint32_t bindings_total = sizes_end - 1 - sets;
  uint32_t written_base = 0;
  if (bindings_base) {
    if ((uint64_t)bindings_base + sets + bindings_total > in->words)
      return bad(in, 0, "sets_to_bindings start", bindings_base, 1 + sets,
                 in->words - sets - bindings_total);
    written_base = bindings_base + sets + bindings_total;
  }
  uint32_t previous_end = 1 + sets, previous_written = bindings_base + sets;
  for (uint32_t s = 0; s < sets; s++) {
    uint32_t begin = WORD(in, 1 + s);
    uint32_t wb = bindings_base ? WORD(in, bindings_base + s) : 0;
    if (begin == 0) {
      if (wb != 0)
        return bad(in, bindings_base + s, "bindings_to_written start of a set without sizes",
                   wb, 0, 0);
      continue;
    }
    uint32_t next;
    uint32_t end = next_start(in, 1, sets, 1 + s, sizes_end, &next);
    if (begin != previous_end)
      return bad(in, 1 + s, "sizes start", begin, previous_end, previous_end);
    if (end < begin || end > sizes_end)
      return bad(in, next, "sizes start", end, begin, sizes_end);
    previous_end = end;
    uint32_t bindings = end - begin;
    if (bindings_base && (wb != previous_written || (uint64_t)wb + bindings > written_base))
      return bad(in, bindings_base + s, "bindings_to_written start", wb, previous_written,
                 previous_written);
    previous_written = wb + bindings;
    for (uint32_t b = 0; b < bindings; b++) {
      uint32_t array_size = WORD(in, begin + b);
      uint32_t written = wb ? WORD(in, wb + b) : 0;
      if (written != 0 && (written < written_base || (uint64_t)written + array_size > in->words))
        return bad(in, wb + b, "written start", written, written_base,
                   in->words > array_size ? in->words - array_size : 0);
      add_row(in, s, b, array_size, written);
    }
  }
  return AMDDWARF_OK;
}

/* WRITTEN: sets_to_bindings at word 1, bindings_to_written, written flags.
   A binding's element count is the distance to the next binding's flags
   (the last binding's flags run to the end of the buffer). */
static amddwarf_status decode_written(input *in)
{
  uint32_t sets;
  amddwarf_status st = run_length(in, 1, in->words, "bindings_to_written start", &sets);
  if (st != AMDDWARF_OK || sets == 0)
    return st; /* no set has bindings */
  uint32_t first_binding = 1 + sets, written_base;
  st = run_length(in, first_binding, in->words, "written start", &written_base);
  if (st != AMDDWARF_OK)
    return st;
  if (written_base == 0)
    return bad(in, first_binding, "written start", 0, (uint64_t)first_binding + 1, in->words);
  written_base += first_binding;
  uint32_t previous_end = first_binding;
  for (uint32_t s = 0; s < sets; s++) {
    uint32_t begin = WORD(in, 1 + s);
    if (begin == 0)
      continue;
    uint32_t next;
    uint32_t end = next_start(in, 1, sets, 1 + s, written_base, &next);
    if (begin != previous_end)
      return bad(in, 1 + s, "bindings_to_written start", begin, previous_end, previous_end);
    if (end < begin || end > written_base)
      return bad(in, next, "bindings_to_written start", end, begin, written_base);
    previous_end = end;
    for (uint32_t b = 0; b < end - begin; b++) {
      uint32_t written = WORD(in, begin + b);
      if (written == 0) {
        add_row(in, s, b, 0, 0);
        continue;
      }
      uint32_t where;
      uint32_t flags_end = next_start(in, first_binding, written_base - first_binding, begin + b,
                                      in->words, &where);
      if (written < written_base || written > in->words)
        return bad(in, begin + b, "written start", written, written_base, in->words);
      if (flags_end < written || flags_end > in->words)
        return bad(in, where, "written start", flags_end, written, in->words);
      add_row(in, s, b, flags_end - written, written);
    }
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_input_layout_from_name(const char *name,
                                                      amddwarf_gpuav_input_layout *layout)
{
  if (name == NULL || layout == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  for (int l = AMDDWARF_GPUAV_INPUT_AUTO; l <= AMDDWARF_GPUAV_INPUT_LENGTHS; l++)
    if (strcmp(name, amddwarf_gpuav_input_layout_name((amddwarf_gpuav_input_layout)l)) == 0) {
      *layout = (amddwarf_gpuav_input_layout)l;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

const char *amddwarf_gpuav_input_layout_name(amddwarf_gpuav_input_layout layout)
{
  switch (layout) {
  case AMDDWARF_GPUAV_INPUT_AUTO:
    return "auto";
  case AMDDWARF_GPUAV_INPUT_SIZES:
    return "sizes";
  case AMDDWARF_GPUAV_INPUT_WRITTEN:
    return "written";
  case AMDDWARF_GPUAV_INPUT_LENGTHS:
    return "lengths";
  }
  return NULL;
}

amddwarf_status amddwarf_gpuav_input_buffer_decode_layout(
    const void *data, size_t size, amddwarf_gpuav_input_layout layout,
    amddwarf_gpuav_descriptor *out, size_t capacity, size_t *count,
    amddwarf_gpuav_input_layout *used, amddwarf_error *err)
{
  if (!count || (!data && size) || (!out && capacity))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_input_buffer_decode: NULL argument");
  *count = 0;
  size_t words64 = size / 4;
  input in = {data, size, words64 > UINT32_MAX ? UINT32_MAX : (uint32_t)words64, out, capacity,
              0, err};
  if (in.words < 2) /* the layer writes one only for a pipeline with sets */
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, 0,
                         "input buffer of %zu bytes has no word 0 and no start of set 0", size);
  uint32_t word0 = WORD(&in, 0);
  if (layout == AMDDWARF_GPUAV_INPUT_AUTO)
    layout = word0 == 0   ? AMDDWARF_GPUAV_INPUT_LENGTHS
             : word0 == 1 ? AMDDWARF_GPUAV_INPUT_WRITTEN
                          : AMDDWARF_GPUAV_INPUT_SIZES;
  if (used)
    *used = layout;
  amddwarf_status st;
  switch (layout) {
  case AMDDWARF_GPUAV_INPUT_SIZES:
    if (word0 < 1 || word0 > in.words)
      return bad(&in, 0, "sets_to_bindings start", word0, 1, in.words);
    st = decode_sizes(&in, word0);
    break;
  case AMDDWARF_GPUAV_INPUT_LENGTHS:
    st = decode_sizes(&in, 0);
    break;
  case AMDDWARF_GPUAV_INPUT_WRITTEN:
    st = decode_written(&in);
    break;
  default:
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "unknown input buffer layout %d", (int)layout);
  }
  if (st != AMDDWARF_OK)
    return st;
  *count = in.rows;
  if (in.rows > capacity)
    return amddwarf__fail(err, AMDDWARF_E_NO_SPACE, AMDDWARF_NO_OFFSET,
                         "input buffer describes %zu bindings, room for %zu", in.rows, capacity);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_input_buffer_decode(const void *data, size_t size,
                                                   amddwarf_gpuav_descriptor *out,
                                                   size_t capacity, size_t *count,
                                                   amddwarf_error *err)
{
  return amddwarf_gpuav_input_buffer_decode_layout(data, size, AMDDWARF_GPUAV_INPUT_AUTO, out,
                                                   capacity, count, NULL, err);
}
