/* Fuzz target of the indexed stop (amddwarf_stop_add_indexed: the one-pass
 * index of src/expr/stop_scan.c, and each wave parsed on first use).
 *
 * The input is a stop document. Checked against amddwarf_stop_add, which
 * parses the whole document: where it accepts the document, the index must
 * too, every wave must load, read the same memory at a few places (a
 * wave's memory read in place is decoded on its first read), and the stop
 * saved must be the same bytes (the save decodes the rest).
 * Where the index accepts what the whole parse refuses (it reads only the
 * members it needs), loading the waves must fail or succeed without harm.
 * Every error must carry a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/snapshot.h>
#include <amddwarf/stop.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *saved(const amddwarf_stop *stop, size_t *size)
{
  char *text = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  if (amddwarf_stop_save(stop, &text, size, &err) != AMDDWARF_OK) {
    if (!err.message[0])
      abort();
    return NULL;
  }
  return text;
}

/* Reads through A's and B's targets at a few places give the same statuses
   and bytes. */
static void compare_memory(amddwarf_snapshot *a, amddwarf_snapshot *b)
{
  static const uint64_t addresses[] = {0, 1, 0x40, 0x1000};
  static const uint32_t spaces[][2] = {
      {AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE},
      {AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0},
      {AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE},
  };
  amddwarf_target ta, tb;
  amddwarf_snapshot_target(a, &ta);
  amddwarf_snapshot_target(b, &tb);
  for (size_t s = 0; s < sizeof spaces / sizeof spaces[0]; s++)
    for (size_t i = 0; i < sizeof addresses / sizeof addresses[0]; i++) {
      uint8_t x[4] = {0}, y[4] = {0};
      amddwarf_status sa = ta.read_memory(ta.user, spaces[s][0], spaces[s][1], addresses[i], 4, x);
      amddwarf_status sb = tb.read_memory(tb.user, spaces[s][0], spaces[s][1], addresses[i], 4, y);
      if (sa != sb || (sa == AMDDWARF_OK && memcmp(x, y, 4) != 0))
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* The index keeps pointers into the text: a copy that lives as long. */
  char *text = malloc(size ? size : 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  amddwarf_stop *whole = NULL, *indexed = NULL;
  if (amddwarf_stop_new(NULL, &whole, NULL) != AMDDWARF_OK ||
      amddwarf_stop_new(NULL, &indexed, NULL) != AMDDWARF_OK)
    abort();
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status whole_st = amddwarf_stop_add(whole, text, size, "f.json", &err);
  amddwarf_error_clear(&err);
  amddwarf_status indexed_st = amddwarf_stop_add_indexed(indexed, text, size, "f.json", &err);
  if (indexed_st != AMDDWARF_OK && !err.message[0])
    abort();
  if (whole_st == AMDDWARF_OK && indexed_st != AMDDWARF_OK)
    abort();
  size_t loaded = 0, count = amddwarf_stop_wave_count(indexed);
  for (size_t i = 0; i < count; i++) {
    const amddwarf_stop_wave *w = NULL;
    amddwarf_error_clear(&err);
    amddwarf_status st = amddwarf_stop_wave_load(indexed, i, &w, &err);
    if (st == AMDDWARF_OK && (!w || !w->snapshot))
      abort();
    if (st != AMDDWARF_OK && (!err.message[0] || whole_st == AMDDWARF_OK))
      abort();
    loaded += st == AMDDWARF_OK;
  }
  if (whole_st == AMDDWARF_OK) {
    if (count != amddwarf_stop_wave_count(whole) || loaded != count)
      abort();
    for (size_t i = 0; i < count; i++)
      compare_memory(amddwarf_stop_wave_get(whole, i)->snapshot,
                     amddwarf_stop_wave_get(indexed, i)->snapshot);
    size_t a_size = 0, b_size = 0;
    char *a = saved(whole, &a_size), *b = saved(indexed, &b_size);
    if ((a == NULL) != (b == NULL) || (a && (a_size != b_size || memcmp(a, b, a_size) != 0)))
      abort();
    free(a);
    free(b);
  }
  amddwarf_stop_free(whole);
  amddwarf_stop_free(indexed);
  free(text);
  return 0;
}
