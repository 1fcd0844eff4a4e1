/* Evaluator test helpers (eval_fixture.h). */
#include "eval_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static amddwarf_status fx_write_register(void *user, uint32_t regno, uint64_t offset,
                                         uint64_t size, const void *buf)
{
  eval_fixture *fx = user;
  if (fx->fail_write_regno && regno == fx->fail_write_regno)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  fx->writes++;
  return fx->snap_target.write_register(fx->snap_target.user, regno, offset, size, buf);
}

static amddwarf_status fx_write_memory(void *user, uint32_t aspace, uint32_t lane,
                                       uint64_t address, uint64_t size, const void *buf)
{
  eval_fixture *fx = user;
  fx->writes++;
  return fx->snap_target.write_memory(fx->snap_target.user, aspace, lane, address, size, buf);
}

void fx_init(eval_fixture *fx, const char *json)
{
  memset(fx, 0, sizeof *fx);
  amddwarf_status st = amddwarf_snapshot_load(json, strlen(json), NULL, &fx->snap, &fx->err);
  if (st != AMDDWARF_OK)
    print_error("snapshot: %s\n", fx->err.message);
  assert_int_equal(st, AMDDWARF_OK);
  amddwarf_snapshot_target(fx->snap, &fx->snap_target);
  fx->target = fx->snap_target;
  assert_int_equal(amddwarf_eval_new(NULL, &fx->ev, NULL), AMDDWARF_OK);
  amddwarf_eval_request_init(&fx->req, &fx->target);
  fx->req.format.address_size = (uint8_t)amddwarf_snapshot_address_size(fx->snap);
}

void fx_free(eval_fixture *fx)
{
  amddwarf_eval_free(fx->ev);
  amddwarf_snapshot_free(fx->snap);
  memset(fx, 0, sizeof *fx);
}

int fx_setup(void **state, const char *json)
{
  eval_fixture *fx = test_malloc(sizeof *fx);
  fx_init(fx, json);
  *state = fx;
  return 0;
}

int fx_teardown(void **state)
{
  fx_free(*state);
  test_free(*state);
  return 0;
}

static amddwarf_status fx_read_register(void *user, uint32_t regno, uint64_t offset,
                                        uint64_t size, void *buf)
{
  eval_fixture *fx = user;
  return fx->snap_target.read_register(fx->snap_target.user, regno, offset, size, buf);
}

static amddwarf_status fx_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                      uint64_t address, uint64_t size, void *buf)
{
  eval_fixture *fx = user;
  return fx->snap_target.read_memory(fx->snap_target.user, aspace, lane, address, size, buf);
}

static amddwarf_status fx_wave_size(void *user, uint32_t *wave_size)
{
  eval_fixture *fx = user;
  return fx->snap_target.wave_size(fx->snap_target.user, wave_size);
}

void fx_inject_faults(eval_fixture *fx)
{
  memset(&fx->target, 0, sizeof fx->target);
  fx->target.struct_size = sizeof fx->target;
  fx->target.user = fx;
  fx->target.read_register = fx_read_register;
  fx->target.write_register = fx_write_register;
  fx->target.read_memory = fx_read_memory;
  fx->target.write_memory = fx_write_memory;
  fx->target.wave_size = fx_wave_size;
}

size_t fx_assemble(eval_fixture *fx, const char *text, uint8_t *out, size_t capacity)
{
  size_t size = 0;
  amddwarf_error err;
  amddwarf_status st = amddwarf_expr_assemble(text, &fx->req.format,
                                              amddwarf_snapshot_wave_size(fx->snap), out,
                                              capacity, &size, &err);
  if (st != AMDDWARF_OK)
    print_error("assembling '%s': %s\n", text, err.message);
  assert_int_equal(st, AMDDWARF_OK);
  return size;
}

amddwarf_status fx_eval_bytes(eval_fixture *fx, const uint8_t *bytes, size_t size)
{
  return amddwarf_eval_expr(fx->ev, &fx->req, bytes, size, &fx->result, &fx->err);
}

amddwarf_status fx_eval(eval_fixture *fx, const char *text)
{
  /* The bytes live in the fixture: results may point into them
     (DW_OP_implicit_value) until the next evaluation. */
  size_t size = fx_assemble(fx, text, fx->bytes, sizeof fx->bytes);
  return fx_eval_bytes(fx, fx->bytes, size);
}

amddwarf_status fx_read(eval_fixture *fx, uint64_t bit_offset, uint64_t bits, void *out)
{
  return amddwarf_location_read(fx->ev, &fx->req, &fx->result.location, bit_offset, bits, out,
                                &fx->err);
}

uint64_t fx_value_u64(const eval_fixture *fx)
{
  assert_int_equal(fx->result.kind, AMDDWARF_ENTRY_VALUE);
  size_t n = amddwarf_value_size(&fx->result.value);
  assert_true(n <= 8);
  const uint8_t *b = amddwarf_value_bytes(&fx->result.value);
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++)
    x |= (uint64_t)b[i] << (8 * i);
  return x;
}
