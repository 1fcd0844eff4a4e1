/* Test helper: a wave over a program built from a description
 * (amddwarf_build_json) and a snapshot, both given as JSON text by the test,
 * for the debugger-layer tests whose expected values come from that text. */
#ifndef AMDDWARF_TEST_WAVE_FIXTURE_H
#define AMDDWARF_TEST_WAVE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/amddwarf.h>

typedef struct wave_fixture {
  uint8_t *image;
  size_t size;
  amddwarf_object *object;
  amddwarf_snapshot *snap;
  amddwarf_target target;
  amddwarf_wave *wave;
} wave_fixture;

/* Builds PROGRAM, loads SNAPSHOT and opens the wave over them; a cmocka
   assertion fails (naming the library's message) when any step does. */
wave_fixture *wave_fixture_open(const char *program, size_t program_size, const char *snapshot,
                                size_t snapshot_size);
void wave_fixture_close(wave_fixture *fx);

#endif
