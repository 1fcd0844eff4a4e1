/* Unit tests of the evaluation trace (amddwarf_eval_request.trace): one OP
 * event per executed operation with the stack after it, one access event per
 * target register or memory access (with lane, address space, address, size,
 * the bytes and the callback's status), nested depths, and no events when
 * the callback is unset or the request predates the trace fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/eval_fixture.h"

enum { MAX_EVENTS = 64 };

typedef struct recorded {
  amddwarf_trace_kind kind;
  uint32_t depth;
  uint64_t op_offset;
  amddwarf_op_kind op;
  uint32_t stack_size;
  amddwarf_entry top; /* copied: the stack is only valid during the callback */
  uint32_t regno, aspace, lane;
  uint64_t address, size;
  uint8_t bytes[8];
  int has_bytes;
  amddwarf_status status;
} recorded;

typedef struct recorder {
  recorded events[MAX_EVENTS];
  unsigned count;
} recorder;

static void record(void *user, const amddwarf_trace_event *e)
{
  recorder *r = user;
  assert_true(r->count < MAX_EVENTS);
  recorded *x = &r->events[r->count++];
  memset(x, 0, sizeof *x);
  x->kind = e->kind;
  x->depth = e->depth;
  x->op_offset = e->op_offset;
  if (e->kind == AMDDWARF_TRACE_OP) {
    x->op = e->op->kind;
    x->stack_size = e->stack_size;
    if (e->stack_size)
      x->top = e->stack[e->stack_size - 1];
    return;
  }
  x->regno = e->regno;
  x->aspace = e->aspace;
  x->lane = e->lane;
  x->address = e->address;
  x->size = e->size;
  x->status = e->status;
  x->has_bytes = e->bytes != NULL;
  if (e->bytes)
    memcpy(x->bytes, e->bytes, e->size < 8 ? (size_t)e->size : 8);
}

static const char wave[] =
    "{\"architecture\": \"gfx90a\", \"lane\": 5, \"exec\": \"0x55\","
    " \"registers\": {\"v1\": [256, 257, 258, 259, 260, 261], \"s33\": \"0x40\"},"
    " \"memory\": [{\"address_space\": \"private_lane\", \"lane\": 5, \"address\": \"0x40\","
    " \"bytes\": \"efbeadde11223344\"}],"
    " \"frame_base\": \"DW_OP_regx s33; DW_OP_deref_size 4; DW_OP_lit5;"
    " DW_OP_LLVM_form_aspace_address\"}";

static void test_ops_and_stack(void **state)
{
  (void)state;
  eval_fixture fx;
  recorder r;
  memset(&r, 0, sizeof r);
  fx_init(&fx, wave);
  fx.req.trace = record;
  fx.req.trace_user = &r;
  fx.req.lane = 3;
  assert_int_equal(fx_eval(&fx, "DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul;"
                                " DW_OP_LLVM_offset"),
                   AMDDWARF_OK);
  /* Five operations, no target access (a location is not read). */
  assert_int_equal(r.count, 5);
  static const uint32_t sizes[] = {1, 2, 3, 2, 1};
  for (unsigned i = 0; i < 5; i++) {
    assert_int_equal(r.events[i].kind, AMDDWARF_TRACE_OP);
    assert_int_equal(r.events[i].depth, 0);
    assert_int_equal(r.events[i].stack_size, sizes[i]);
  }
  assert_int_equal(r.events[0].op, AMDDWARF_OP_regx);
  assert_int_equal(r.events[0].op_offset, 0);
  /* After push_lane the top is the generic value 3. */
  assert_int_equal(r.events[1].top.kind, AMDDWARF_ENTRY_VALUE);
  assert_int_equal(amddwarf_value_bytes(&r.events[1].top.value)[0], 3);
  /* After offset: VGPR1 at bit 96 (lane 3's dword). */
  assert_int_equal(r.events[4].top.kind, AMDDWARF_ENTRY_LOCATION);
  assert_int_equal(r.events[4].top.location.kind, AMDDWARF_LOCATION_REGISTER);
  assert_int_equal(r.events[4].top.location.byte_offset, 12);

  /* Reading through the result: one register access outside the evaluation. */
  r.count = 0;
  uint8_t out[4];
  assert_int_equal(fx_read(&fx, 0, 32, out), AMDDWARF_OK);
  assert_int_equal(r.count, 1);
  assert_int_equal(r.events[0].kind, AMDDWARF_TRACE_READ_REGISTER);
  assert_int_equal(r.events[0].regno, 2561);
  assert_int_equal(r.events[0].address, 12);
  assert_int_equal(r.events[0].size, 4);
  assert_int_equal(r.events[0].op_offset, AMDDWARF_NO_OFFSET);
  assert_true(r.events[0].has_bytes);
  assert_int_equal(r.events[0].bytes[0], 0x03);
  assert_int_equal(r.events[0].bytes[1], 0x01);
  fx_free(&fx);
}

static void test_frame_base_depth_and_memory(void **state)
{
  (void)state;
  eval_fixture fx;
  recorder r;
  memset(&r, 0, sizeof r);
  fx_init(&fx, wave);
  fx.req.trace = record;
  fx.req.trace_user = &r;
  assert_int_equal(fx_eval(&fx, "DW_OP_fbreg 4"), AMDDWARF_OK);
  /* Frame base: regx (op), register read (during deref_size), deref_size,
     lit5, form_aspace_address, all at depth 1; then fbreg at depth 0. */
  assert_int_equal(r.count, 6);
  assert_int_equal(r.events[0].kind, AMDDWARF_TRACE_OP);
  assert_int_equal(r.events[0].depth, 1);
  assert_int_equal(r.events[1].kind, AMDDWARF_TRACE_READ_REGISTER);
  assert_int_equal(r.events[1].depth, 1);
  assert_int_equal(r.events[1].regno, 65);
  assert_int_equal(r.events[1].size, 4);
  assert_int_equal(r.events[1].op_offset, 2);
  assert_int_equal(r.events[1].bytes[0], 0x40);
  assert_int_equal(r.events[4].depth, 1);
  assert_int_equal(r.events[5].kind, AMDDWARF_TRACE_OP);
  assert_int_equal(r.events[5].depth, 0);
  assert_int_equal(r.events[5].op, AMDDWARF_OP_fbreg);

  r.count = 0;
  uint8_t out[4];
  assert_int_equal(fx_read(&fx, 0, 32, out), AMDDWARF_OK);
  assert_int_equal(r.count, 1);
  assert_int_equal(r.events[0].kind, AMDDWARF_TRACE_READ_MEMORY);
  assert_int_equal(r.events[0].aspace, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE);
  assert_int_equal(r.events[0].lane, 5);
  assert_int_equal(r.events[0].address, 0x44);
  assert_int_equal(r.events[0].size, 4);
  assert_int_equal(r.events[0].bytes[0], 0x11);

  /* A refused access is reported with the target's status and no bytes. */
  r.count = 0;
  assert_int_equal(fx_eval(&fx, "DW_OP_addr 0x2000; DW_OP_deref"), AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_int_equal(r.count, 2);
  assert_int_equal(r.events[1].kind, AMDDWARF_TRACE_READ_MEMORY);
  assert_int_equal(r.events[1].status, AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_false(r.events[1].has_bytes);
  assert_int_equal(r.events[1].lane, AMDDWARF_NO_LANE);
  assert_int_equal(r.events[1].address, 0x2000);
  fx_free(&fx);
}

static void test_writes_are_traced(void **state)
{
  (void)state;
  eval_fixture fx;
  recorder r;
  memset(&r, 0, sizeof r);
  fx_init(&fx, wave);
  assert_int_equal(fx_eval(&fx, "DW_OP_regx s33"), AMDDWARF_OK);
  fx.req.trace = record;
  fx.req.trace_user = &r;
  uint8_t v[4] = {1, 2, 3, 4};
  assert_int_equal(amddwarf_location_write(fx.ev, &fx.req, &fx.result.location, 0, 32, v, NULL),
                   AMDDWARF_OK);
  assert_true(r.count >= 1);
  assert_int_equal(r.events[r.count - 1].kind, AMDDWARF_TRACE_WRITE_REGISTER);
  assert_int_equal(r.events[r.count - 1].regno, 65);
  assert_int_equal(r.events[r.count - 1].bytes[3], 4);
  fx_free(&fx);
}

static void test_no_callback_no_events(void **state)
{
  (void)state;
  eval_fixture fx;
  recorder r;
  memset(&r, 0, sizeof r);
  fx_init(&fx, wave);
  fx.req.trace = NULL;
  fx.req.trace_user = &r;
  fx.req.required = AMDDWARF_RESULT_VALUE;
  assert_int_equal(fx_eval(&fx, "DW_OP_regx s33; DW_OP_deref_size 4"), AMDDWARF_OK);
  assert_int_equal(fx_value_u64(&fx), 0x40);
  /* A request whose struct_size ends before the trace fields is not traced. */
  fx.req.trace = record;
  fx.req.struct_size = (uint32_t)offsetof(amddwarf_eval_request, trace);
  assert_int_equal(fx_eval(&fx, "DW_OP_regx s33; DW_OP_deref_size 4"), AMDDWARF_OK);
  assert_int_equal(r.count, 0);
  /* Shorter than that is an invalid request. */
  fx.req.struct_size = (uint32_t)offsetof(amddwarf_eval_request, initial_count);
  assert_int_equal(fx_eval(&fx, "DW_OP_lit1"), AMDDWARF_E_INVALID_ARGUMENT);
  fx_free(&fx);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ops_and_stack),
      cmocka_unit_test(test_frame_base_depth_and_memory),
      cmocka_unit_test(test_writes_are_traced),
      cmocka_unit_test(test_no_callback_no_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
