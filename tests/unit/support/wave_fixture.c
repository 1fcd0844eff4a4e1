/* Test helper: a wave over a described program and a snapshot (wave_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "wave_fixture.h"

wave_fixture *wave_fixture_open(const char *program, size_t program_size, const char *snapshot,
                                size_t snapshot_size)
{
  wave_fixture *fx = calloc(1, sizeof *fx);
  amddwarf_error err;
  assert_non_null(fx);
  amddwarf_status st = amddwarf_build_json(program, program_size, NULL, &fx->image, &fx->size,
                                           &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_build_json: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(amddwarf_object_open_memory(fx->image, fx->size, NULL, &fx->object, &err),
                   AMDDWARF_OK);
  st = amddwarf_snapshot_load(snapshot, snapshot_size, NULL, &fx->snap, &err);
  if (st != AMDDWARF_OK)
    print_error("amddwarf_snapshot_load: %s\n", err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf_snapshot_target(fx->snap, &fx->target);
  const amddwarf_object *objects[1] = {fx->object};
  assert_int_equal(amddwarf_wave_open(objects, 1, &fx->target, NULL, &fx->wave, &err),
                   AMDDWARF_OK);
  return fx;
}

void wave_fixture_close(wave_fixture *fx)
{
  amddwarf_wave_close(fx->wave);
  amddwarf_snapshot_free(fx->snap);
  amddwarf_object_close(fx->object);
  amddwarf_produce_free_bytes(NULL, fx->image, fx->size);
  free(fx);
}
