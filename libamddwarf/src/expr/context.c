/* The evaluation context (fixed-capacity buffers allocated once) and the
 * public reads and writes through a location description. */
#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "expr/eval_internal.h"

/* ---- context ---------------------------------------------------------------- */

amddwarf_status amddwarf_eval_new(const amddwarf_eval_options *options, amddwarf_eval **out,
                                  amddwarf_error *err)
{
  amddwarf_eval_options o;
  memset(&o, 0, sizeof o);
  if (!out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no output");
  *out = NULL;
  if (options) {
    size_t n = options->struct_size < sizeof o ? options->struct_size : sizeof o;
    if (n < sizeof(uint32_t))
      return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                           "amddwarf_eval_options.struct_size is not set");
    memcpy(&o, options, n);
  }
  if (!o.max_stack) o.max_stack = 64;
  if (!o.max_steps) o.max_steps = 100000;
  if (!o.max_call_depth) o.max_call_depth = 16;
  if (!o.max_parts) o.max_parts = 1024;
  if (!o.max_ops) o.max_ops = 65536;
  if (!o.pool_bytes) o.pool_bytes = 8192;
  if (o.max_stack > (1u << 20) || o.max_parts > (1u << 24) || o.pool_bytes > (1u << 28))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "evaluation limits are too large");
  amddwarf_allocator alloc = amddwarf__allocator_resolve(o.allocator);
  amddwarf_eval *ev = amddwarf__mem_alloc(&alloc, sizeof *ev);
  if (!ev)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  /* The decode caches (50 KB, first in the struct) are not cleared: a slot
     is read only once its key matches, and a key of 0 matches nothing, so
     a fresh context (one per wave and unwound frame) clears the keys alone. */
  _Static_assert(offsetof(struct amddwarf_eval, cache) == 0 &&
                     offsetof(struct amddwarf_eval, ops_plan) <
                         offsetof(struct amddwarf_eval, cache_bytes),
                 "the caches come first");
  memset(&ev->cache_bytes, 0, sizeof *ev - offsetof(struct amddwarf_eval, cache_bytes));
  for (unsigned i = 0; i < EVAL_CACHE_ENTRIES; i++) {
    ev->cache[i].bytes = NULL;
    ev->cache[i].size = 0;
    ev->cache[i].format_key = 0;
  }
  ev->ops_plan.count = 0;
  ev->alloc = alloc;
  ev->stack_cap = o.max_stack;
  ev->max_steps = o.max_steps;
  ev->max_call_depth = o.max_call_depth;
  ev->ops_max = o.max_ops;
  ev->ops_cap = o.max_ops < 256 ? o.max_ops : 256;
  ev->parts_cap = o.max_parts;
  ev->pool_cap = o.pool_bytes;
  /* Working buffers, each entry written before it is read: not cleared. */
  ev->stack = amddwarf__mem_alloc(&alloc, (size_t)ev->stack_cap * sizeof *ev->stack);
  ev->ops = amddwarf__mem_alloc(&alloc, ev->ops_cap * sizeof *ev->ops);
  ev->parts = amddwarf__mem_alloc(&alloc, (size_t)ev->parts_cap * sizeof *ev->parts);
  ev->pool = amddwarf__mem_alloc(&alloc, ev->pool_cap);
  if (!ev->stack || !ev->ops || !ev->parts || !ev->pool) {
    amddwarf_eval_free(ev);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  }
  *out = ev;
  return AMDDWARF_OK;
}

void amddwarf_eval_free(amddwarf_eval *ev)
{
  if (!ev)
    return;
  amddwarf_allocator alloc = ev->alloc;
  amddwarf__eval_lanes_free(ev);
  amddwarf__mem_free(&alloc, ev->stack, (size_t)ev->stack_cap * sizeof *ev->stack);
  amddwarf__mem_free(&alloc, ev->ops, ev->ops_cap * sizeof *ev->ops);
  amddwarf__mem_free(&alloc, ev->parts, (size_t)ev->parts_cap * sizeof *ev->parts);
  amddwarf__mem_free(&alloc, ev->pool, ev->pool_cap);
  amddwarf__mem_free(&alloc, ev, sizeof *ev);
}

void amddwarf_eval_request_init(amddwarf_eval_request *request, const amddwarf_target *target)
{
  memset(request, 0, sizeof *request);
  request->struct_size = sizeof *request;
  request->target = target;
  amddwarf_expr_format_init(&request->format);
  request->lane = AMDDWARF_NO_LANE;
  request->required = AMDDWARF_RESULT_LOCATION;
  request->xderef = AMDDWARF_XDEREF_DWARF;
}

/* ---- public read / write ------------------------------------------------------------ */

amddwarf_status amddwarf_location_storage_bits(amddwarf_eval *ev,
                                               const amddwarf_eval_request *request,
                                               const amddwarf_location *loc, uint64_t *bits,
                                               amddwarf_error *err)
{
  machine m;
  amddwarf_status st = amddwarf__machine_begin(ev, request, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  storage_size size;
  st = amddwarf__loc_storage_size(&m, loc, &size);
  if (st != AMDDWARF_OK)
    return st;
  if (size.unbounded)
    *bits = UINT64_MAX;
  else if (size.memory)
    *bits = size.last_byte >= (UINT64_MAX >> 3) ? UINT64_MAX : (size.last_byte + 1) * 8;
  else
    *bits = size.bits;
  return AMDDWARF_OK;
}

/* Starts a read or a write of BIT_SIZE bits of LOC through BUF. */
static amddwarf_status begin_access(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                    const amddwarf_location *loc, uint64_t bit_size,
                                    const void *buf, amddwarf_error *err, machine *m)
{
  amddwarf_status st = amddwarf__machine_begin(ev, request, err, m);
  if (st == AMDDWARF_OK && (!loc || (!buf && bit_size)))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET, "no location or buffer");
  return st;
}

amddwarf_status amddwarf_location_read(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                       const amddwarf_location *loc, uint64_t bit_offset,
                                       uint64_t bit_size, void *buf, amddwarf_error *err)
{
  machine m;
  amddwarf_status st = begin_access(ev, request, loc, bit_size, buf, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  return machine_read(&m, loc, bit_offset, bit_size, buf);
}

amddwarf_status amddwarf_location_write(amddwarf_eval *ev, const amddwarf_eval_request *request,
                                        const amddwarf_location *loc, uint64_t bit_offset,
                                        uint64_t bit_size, const void *buf, amddwarf_error *err)
{
  machine m;
  amddwarf_status st = begin_access(ev, request, loc, bit_size, buf, err, &m);
  if (st != AMDDWARF_OK)
    return st;
  return amddwarf__access_write(&m, loc, bit_offset, bit_size, buf);
}
