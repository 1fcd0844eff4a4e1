/* Fuzz target: random expression bytes evaluated against a small random wave.
 *
 * Input layout: byte 0 picks the wave size, the dialect, the result kind and
 * the xderef numbering; byte 1 is the lane (its bit 7 also installs a trace
 * callback that reads every event's stack and bytes); bytes 2-3 seed the register and
 * memory contents; the rest is the expression. DIEs named by DW_OP_call* and
 * implicit pointers, and the frame base, are slices of the input itself, so
 * procedures, recursion and nested evaluation are reachable. After a location
 * result, up to 64 bits are read through it and written back.
 *
 * Before the write, the reference evaluator (tests/reference: the general
 * machine, frozen, without the fast path) evaluates the same request: the
 * status, the error offset, the result and the bytes read must be its own,
 * and so must those of amddwarf_eval_read of whole bytes. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/target.h>

#include "reference.h"

typedef struct fuzz_wave {
  const uint8_t *data;
  size_t size;
  uint32_t wave_size;
  uint32_t lane;
  uint8_t contents[1024];
  uint8_t memory[256];
} fuzz_wave;

static amddwarf_status read_register(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                     void *buf)
{
  fuzz_wave *w = user;
  if (regno % 13 == 7)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  for (uint64_t i = 0; i < size; i++)
    ((uint8_t *)buf)[i] = w->contents[(regno * 4 + offset + i) % sizeof w->contents];
  return AMDDWARF_OK;
}

static amddwarf_status write_register(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                      const void *buf)
{
  fuzz_wave *w = user;
  for (uint64_t i = 0; i < size; i++)
    w->contents[(regno * 4 + offset + i) % sizeof w->contents] = ((const uint8_t *)buf)[i];
  return AMDDWARF_OK;
}

static amddwarf_status read_memory(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                   uint64_t size, void *buf)
{
  fuzz_wave *w = user;
  if (address >= sizeof w->memory || size > sizeof w->memory - address)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  for (uint64_t i = 0; i < size; i++)
    ((uint8_t *)buf)[i] = (uint8_t)(w->memory[address + i] ^ aspace ^ (lane & 0xff));
  return AMDDWARF_OK;
}

static amddwarf_status write_memory(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                    uint64_t size, const void *buf)
{
  fuzz_wave *w = user;
  if (address >= sizeof w->memory || size > sizeof w->memory - address)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  for (uint64_t i = 0; i < size; i++)
    w->memory[address + i] = (uint8_t)(((const uint8_t *)buf)[i] ^ aspace ^ (lane & 0xff));
  return AMDDWARF_OK;
}

static amddwarf_status focused_lane(void *user, uint32_t *lane)
{
  *lane = ((fuzz_wave *)user)->lane;
  return AMDDWARF_OK;
}

static amddwarf_status wave_size(void *user, uint32_t *size)
{
  *size = ((fuzz_wave *)user)->wave_size;
  return AMDDWARF_OK;
}

static amddwarf_status apertures(void *user, uint64_t *shared, uint64_t *priv)
{
  (void)user;
  *shared = UINT64_C(0x1000000000000);
  *priv = UINT64_C(0x2000000000000);
  return AMDDWARF_OK;
}

static amddwarf_status frame_base(void *user, const uint8_t **expr, size_t *size)
{
  fuzz_wave *w = user;
  *expr = w->data;
  *size = w->size < 6 ? w->size : 6;
  return AMDDWARF_OK;
}

static amddwarf_status cfa(void *user, uint32_t *aspace, uint64_t *address)
{
  (void)user;
  *aspace = 6;
  *address = 0x10;
  return AMDDWARF_OK;
}

static amddwarf_status tls(void *user, uint64_t offset, uint64_t *address)
{
  (void)user;
  *address = offset + 0x20;
  return AMDDWARF_OK;
}

static amddwarf_status base_type(void *user, uint64_t die, amddwarf_base_type *out)
{
  (void)user;
  static const uint8_t encodings[] = {0x02, 0x04, 0x05, 0x07, 0x08, 0x10, 0x99};
  static const uint32_t sizes[] = {8, 16, 32, 64};
  if (die % 11 == 3)
    return AMDDWARF_NOT_FOUND;
  out->encoding = encodings[die % sizeof encodings];
  out->bit_size = sizes[(die / 7) % 4];
  out->count = die % 5 == 0 ? 4 : 1;
  return AMDDWARF_OK;
}

static amddwarf_status die(void *user, amddwarf_die_ref_kind kind, uint64_t ref, amddwarf_die *out)
{
  fuzz_wave *w = user;
  (void)kind;
  if (w->size == 0 || ref % 17 == 5)
    return AMDDWARF_NOT_FOUND;
  size_t start = (size_t)(ref % w->size);
  out->is_dwarf_procedure = (int)(ref & 1);
  out->value = (amddwarf_die_value_kind)(ref % 3);
  out->bytes = w->data + start;
  out->size = w->size - start < 12 ? w->size - start : 12;
  return AMDDWARF_OK;
}

static amddwarf_status address_index(void *user, uint64_t index, uint64_t *value)
{
  (void)user;
  *value = index * 8;
  return AMDDWARF_OK;
}

static amddwarf_status cfa_like(void *user, uint32_t *aspace, uint64_t *address)
{
  (void)user;
  *aspace = 0;
  *address = 0x40;
  return AMDDWARF_OK;
}

/* Trace callback: touches every byte the event exposes, so out-of-bounds
   stack views or access buffers show up under ASan. */
static void trace_event(void *user, const amddwarf_trace_event *e)
{
  unsigned *sum = user;
  if (e->kind == AMDDWARF_TRACE_OP) {
    *sum += e->op->opcode;
    for (uint32_t i = 0; i < e->stack_size; i++) {
      const amddwarf_entry *x = &e->stack[i];
      if (x->kind == AMDDWARF_ENTRY_VALUE) {
        const uint8_t *b = amddwarf_value_bytes(&x->value);
        size_t n = amddwarf_value_size(&x->value);
        for (size_t j = 0; b && j < n; j++)
          *sum += b[j];
      } else if (x->location.kind == AMDDWARF_LOCATION_COMPOSITE) {
        for (uint32_t j = 0; j < x->location.u.composite.count; j++)
          *sum += (unsigned)x->location.u.composite.parts[j].bit_size;
      }
    }
  } else if (e->bytes) {
    for (uint64_t i = 0; i < e->size; i++)
      *sum += e->bytes[i];
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const amddwarf_dialect dialects[] = {AMDDWARF_DIALECT_AUTO, AMDDWARF_DIALECT_DRAFT,
                                              AMDDWARF_DIALECT_VENDOR, AMDDWARF_DIALECT_USER};
  if (size < 4)
    return 0;
  fuzz_wave w;
  memset(&w, 0, sizeof w);
  w.wave_size = data[0] & 1 ? 32 : 64;
  w.lane = data[1] % 70; /* sometimes outside the wave */
  for (size_t i = 0; i < sizeof w.contents; i++)
    w.contents[i] = (uint8_t)(data[2] * i + data[3]);
  for (size_t i = 0; i < sizeof w.memory; i++)
    w.memory[i] = (uint8_t)(data[3] * i + data[2]);
  w.data = data + 4;
  w.size = size - 4;

  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = &w;
  t.read_register = read_register;
  t.write_register = write_register;
  t.read_memory = read_memory;
  t.write_memory = write_memory;
  t.focused_lane = focused_lane;
  t.wave_size = wave_size;
  t.apertures = data[0] & 32 ? apertures : NULL;
  t.frame_base = frame_base;
  t.cfa = cfa;
  t.object_address = cfa_like;
  t.tls_address = tls;
  t.address_index = address_index;
  t.base_type = base_type;
  t.die = die;
  t.read_entry_register = read_register;

  amddwarf_eval_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.max_steps = 20000;
  options.max_parts = 256;
  amddwarf_eval *ev = NULL;
  if (amddwarf_eval_new(&options, &ev, NULL) != AMDDWARF_OK)
    return 0;
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &t);
  req.format.dialect = dialects[(data[0] >> 1) & 3];
  req.required = data[0] & 8 ? AMDDWARF_RESULT_VALUE : AMDDWARF_RESULT_LOCATION;
  req.xderef = data[0] & 16 ? AMDDWARF_XDEREF_LEGACY : AMDDWARF_XDEREF_DWARF;
  req.format.address_size = data[0] & 64 ? 4 : 8;
  req.lane = data[0] & 128 ? AMDDWARF_NO_LANE : w.lane;
  unsigned trace_sum = 0;
  if (data[1] & 128) { /* lane bit 7: with a trace callback */
    req.trace = trace_event;
    req.trace_user = &trace_sum;
  }
  amddwarf_eval *reference = NULL;
  if (reference_eval_new(&reference) != AMDDWARF_OK) {
    amddwarf_eval_free(ev);
    return 0;
  }
  amddwarf_entry result, expected;
  amddwarf_error err, expected_err;
  amddwarf_status st = amddwarf_eval_expr(ev, &req, w.data, w.size, &result, &err);
  amddwarf_status want =
      reference_amddwarf_eval_expr(reference, &req, w.data, w.size, &expected, &expected_err);
  /* The step limit is the reference's too; the stack, part and pool
     limits are other (the reference has the defaults). */
  bool limited = st == AMDDWARF_E_LIMIT || want == AMDDWARF_E_LIMIT ||
                 st == AMDDWARF_E_NO_MEMORY || want == AMDDWARF_E_NO_MEMORY;
  if (!limited && (st != want || (st != AMDDWARF_OK && err.offset != expected_err.offset) ||
                   (st == AMDDWARF_OK && !reference_same_entry(&result, &expected))))
    __builtin_trap();
  if (st == AMDDWARF_OK && result.kind == AMDDWARF_ENTRY_LOCATION) {
    uint8_t buf[8] = {0}, expected_buf[8] = {0};
    uint64_t bits = data[2] % 65, bit_offset = data[3] % 16;
    uint64_t storage = 0;
    (void)amddwarf_location_storage_bits(ev, &req, &result.location, &storage, NULL);
    st = amddwarf_location_read(ev, &req, &result.location, bit_offset, bits, buf, &err);
    if (!limited) {
      want = reference_amddwarf_location_read(reference, &req, &expected.location, bit_offset,
                                              bits, expected_buf, &expected_err);
      if (st != want || (st == AMDDWARF_OK && memcmp(buf, expected_buf, (bits + 7) / 8)))
        __builtin_trap();
    }
    if (st == AMDDWARF_OK) {
      /* Whole bytes through amddwarf_eval_read, which has paths of its own. */
      if (req.required == AMDDWARF_RESULT_LOCATION && !limited) {
        uint64_t bytes_bits = bits / 8 * 8, bytes_offset = bit_offset / 8 * 8;
        memset(buf, 0, sizeof buf);
        memset(expected_buf, 0, sizeof expected_buf);
        st = amddwarf_eval_read(ev, &req, w.data, w.size, bytes_offset, bytes_bits, buf, &err);
        want = reference_amddwarf_eval_read(reference, &req, w.data, w.size, bytes_offset,
                                            bytes_bits, expected_buf, &expected_err);
        if (st != want || (st != AMDDWARF_OK && err.offset != expected_err.offset) ||
            (st == AMDDWARF_OK && memcmp(buf, expected_buf, bytes_bits / 8)))
          __builtin_trap();
        /* Evaluated again: that read may have reused the parts and bytes
           the result points to. */
        st = amddwarf_eval_expr(ev, &req, w.data, w.size, &result, &err);
        if (st == AMDDWARF_OK)
          st = amddwarf_location_read(ev, &req, &result.location, bit_offset, bits, buf, &err);
      }
      if (st == AMDDWARF_OK)
        (void)amddwarf_location_write(ev, &req, &result.location, bit_offset, bits, buf, &err);
    }
  } else if (st == AMDDWARF_OK) {
    (void)amddwarf_value_bytes(&result.value);
  }
  reference_amddwarf_eval_free(reference);
  amddwarf_eval_free(ev);
  return 0;
}
