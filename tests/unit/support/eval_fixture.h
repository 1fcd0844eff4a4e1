/* Test helpers for the evaluator: a snapshot-backed target built from JSON
 * text, expressions in assembler syntax, and a fault-injecting wrapper. */
#ifndef AMDDWARF_TEST_EVAL_FIXTURE_H
#define AMDDWARF_TEST_EVAL_FIXTURE_H

#include <stdint.h>
#include <amddwarf/amdgpu.h>
#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

typedef struct eval_fixture {
  amddwarf_snapshot *snap;
  amddwarf_target snap_target; /* the snapshot's callbacks */
  amddwarf_target target;      /* what evaluations use: the snapshot's, wrapped */
  amddwarf_eval *ev;
  amddwarf_eval_request req;
  amddwarf_entry result;
  amddwarf_error err;
  /* Fault injection: a write to FAIL_WRITE_REGNO (when nonzero) fails with
     E_EVAL_UNAVAILABLE; counts of target writes. */
  uint32_t fail_write_regno;
  unsigned writes;
  uint8_t bytes[2048]; /* the last expression fx_eval assembled */
} eval_fixture;

/* Loads JSON (a snapshot document; "{}" for an empty wave); asserts success. */
void fx_init(eval_fixture *fx, const char *json);
void fx_free(eval_fixture *fx);
/* A cmocka setup: *STATE becomes a fixture of JSON (fx_init); fx_teardown
   frees it. */
int fx_setup(void **state, const char *json);
int fx_teardown(void **state);
/* Switches the evaluations to a wrapper of the snapshot with only register,
   memory and wave-size callbacks, whose writes can be made to fail. */
void fx_inject_faults(eval_fixture *fx);
/* Assembles TEXT with the request's format and evaluates it. */
amddwarf_status fx_eval(eval_fixture *fx, const char *text);
amddwarf_status fx_eval_bytes(eval_fixture *fx, const uint8_t *bytes, size_t size);
/* Assembles TEXT into OUT (asserts success); returns the size. */
size_t fx_assemble(eval_fixture *fx, const char *text, uint8_t *out, size_t capacity);
/* Reads N bytes through the result location into OUT. */
amddwarf_status fx_read(eval_fixture *fx, uint64_t bit_offset, uint64_t bits, void *out);
/* The result value as an unsigned integer (asserts a value result of <= 8 bytes). */
uint64_t fx_value_u64(const eval_fixture *fx);

#endif
