/* Fuzz target of the snapshot JSON loader and the target it serves.
 *
 * Input layout: JSON text, optionally followed by a NUL byte and raw
 * expression bytes. The text is loaded with amddwarf_snapshot_load; when it
 * loads, a few fixed expressions that reach every kind of snapshot data
 * (registers of every lane, memory of several address spaces, the frame base,
 * the CFA, TLS, .debug_addr, DIEs through DW_OP_call4, entry values) are
 * evaluated for the focused lane and for the last lane of the wave, and up to
 * 64 bits are read (and written back) through each location result. The
 * bytes after the NUL, if any, are evaluated the same way. Last, the state
 * (with those writes) is saved; the saved document must load, and saving
 * that load must give the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>
#include <amddwarf/target.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Fixed expressions in the DWARF 5 encoding (no vendor opcodes, so every
   dialect decodes them). */
static const uint8_t expr_regx_v1[] = {0x90, 0x81, 0x14};         /* DW_OP_regx 2561 (v1, wave64) */
static const uint8_t expr_regx_v1_32[] = {0x90, 0x81, 0x0c};      /* DW_OP_regx 1537 (v1, wave32) */
static const uint8_t expr_regx_s33[] = {0x90, 0x41};              /* DW_OP_regx 65 (s33) */
static const uint8_t expr_fbreg[] = {0x91, 0x08};                 /* DW_OP_fbreg 8 */
static const uint8_t expr_cfa[] = {0x9c, 0x23, 0x04};             /* call_frame_cfa; plus_uconst 4 */
static const uint8_t expr_addr[] = {0x0c, 0x40, 0, 0, 0, 0x06};   /* const4u 0x40; deref */
static const uint8_t expr_addrx[] = {0xa1, 0x00, 0x06};           /* addrx 0; deref */
static const uint8_t expr_tls[] = {0x30, 0x9b};                   /* lit0; form_tls_address */
static const uint8_t expr_call[] = {0x99, 0x10, 0x01, 0, 0};      /* DW_OP_call4 0x110 */
static const uint8_t expr_object[] = {0x97};                      /* push_object_address */
static const uint8_t expr_entry[] = {0xa3, 0x02, 0x90, 0x41};   /* entry_value(regx s33) */
static const uint8_t expr_stack_value[] = {0x92, 0x41, 0x00, 0x9f}; /* bregx s33 0; stack_value */

static void evaluate(amddwarf_eval *ev, amddwarf_eval_request *request, const uint8_t *bytes,
                     size_t size)
{
  amddwarf_entry result;
  amddwarf_error err;
  for (int required = 0; required < 2; required++) {
    request->required = (amddwarf_result_required)required;
    if (amddwarf_eval_expr(ev, request, bytes, size, &result, &err) != AMDDWARF_OK)
      continue;
    if (result.kind != AMDDWARF_ENTRY_LOCATION) {
      if (amddwarf_value_size(&result.value) > AMDDWARF_VALUE_MAX_BYTES * 8)
        abort();
      (void)amddwarf_value_bytes(&result.value);
      continue;
    }
    uint8_t buf[8];
    uint64_t bits = 0;
    if (amddwarf_location_storage_bits(ev, request, &result.location, &bits, &err) !=
        AMDDWARF_OK)
      bits = 64;
    uint64_t want = bits < 64 ? bits : 64;
    if (amddwarf_location_read(ev, request, &result.location, 0, want, buf, &err) ==
        AMDDWARF_OK)
      (void)amddwarf_location_write(ev, request, &result.location, 0, want, buf, &err);
  }
}

/* save(load(save(S))) == save(S), and the saved document loads. */
static void save_round_trip(const amddwarf_snapshot *snapshot)
{
  char *first = NULL, *second = NULL;
  size_t first_size, second_size;
  amddwarf_snapshot *again = NULL;
  amddwarf_error err;
  if (amddwarf_snapshot_save(snapshot, &first, &first_size, &err) != AMDDWARF_OK)
    return; /* out of memory */
  if (amddwarf_snapshot_load(first, first_size, NULL, &again, &err) != AMDDWARF_OK)
    abort();
  if (amddwarf_snapshot_save(again, &second, &second_size, &err) == AMDDWARF_OK &&
      (second_size != first_size || memcmp(first, second, first_size) != 0))
    abort();
  free(first);
  free(second);
  amddwarf_snapshot_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const struct {
    const uint8_t *bytes;
    size_t size;
  } fixed[] = {
      {expr_regx_v1, sizeof expr_regx_v1},   {expr_regx_s33, sizeof expr_regx_s33},
      {expr_regx_v1_32, sizeof expr_regx_v1_32}, {expr_fbreg, sizeof expr_fbreg},
      {expr_cfa, sizeof expr_cfa},           {expr_addr, sizeof expr_addr},
      {expr_addrx, sizeof expr_addrx},       {expr_tls, sizeof expr_tls},
      {expr_call, sizeof expr_call},         {expr_object, sizeof expr_object},
      {expr_entry, sizeof expr_entry},       {expr_stack_value, sizeof expr_stack_value},
  };
  const uint8_t *nul = memchr(data, 0, size);
  size_t text_size = nul ? (size_t)(nul - data) : size;
  amddwarf_snapshot *snapshot = NULL;
  amddwarf_error err;
  if (amddwarf_snapshot_load((const char *)data, text_size, NULL, &snapshot, &err) !=
      AMDDWARF_OK) {
    if (snapshot != NULL)
      abort(); /* nothing may be returned on failure */
    return 0;
  }
  uint32_t wave_size = amddwarf_snapshot_wave_size(snapshot);
  if ((wave_size != 32 && wave_size != 64) || amddwarf_snapshot_lane(snapshot) >= wave_size)
    abort();
  (void)strlen(amddwarf_snapshot_architecture(snapshot));

  amddwarf_target target;
  amddwarf_snapshot_target(snapshot, &target);
  amddwarf_eval_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.max_steps = 20000;
  amddwarf_eval *ev = NULL;
  if (amddwarf_eval_new(&options, &ev, &err) != AMDDWARF_OK)
    goto done;
  amddwarf_eval_request request;
  amddwarf_eval_request_init(&request, &target);
  request.format.address_size = (uint8_t)amddwarf_snapshot_address_size(snapshot);
  const uint32_t lanes[2] = {AMDDWARF_NO_LANE, wave_size - 1};
  for (int l = 0; l < 2; l++) {
    request.lane = lanes[l];
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
      evaluate(ev, &request, fixed[i].bytes, fixed[i].size);
    if (nul != NULL)
      evaluate(ev, &request, nul + 1, size - text_size - 1);
  }
done:
  amddwarf_eval_free(ev);
  save_round_trip(snapshot);
  amddwarf_snapshot_free(snapshot);
  return 0;
}
