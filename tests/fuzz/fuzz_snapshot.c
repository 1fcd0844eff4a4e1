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
 * that load must give the same bytes.
 *
 * The text is also read the way a stop's wave is read on first use
 * (src/expr/snapshot_text.c and snapshot_value.c), checked against jansson,
 * the independent oracle: the strict reader accepts the text exactly when
 * jansson does, and the snapshot read in place loads exactly when the one
 * read through jansson's tree loads, with the same status, reads the same
 * memory (its hex decoded on the first read) and saves the same bytes (the
 * save decodes the regions not read). The hex decoder is checked on the
 * text against a plain reading of the rule (specs/snapshot.md), pair by
 * pair with strtoul. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>
#include <amddwarf/target.h>

#include <ctype.h>
#include <jansson.h>

#include "common/mem.h"
#include "expr/snapshot_json.h"
#include "expr/snapshot_text.h"
#include "expr/snapshot_value.h"

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

/* The hex rule read plainly: "0x" or "0X" first, ' ' and '_' ignored, other
   characters hex digits, their count even, each pair read by strtoul. */
static snapshot_hex_status hex_reference(const char *text, size_t n, uint8_t *out, size_t *size)
{
  char digits[2];
  size_t count = 0, i = n >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 2 : 0;
  *size = 0;
  for (; i < n; i++) {
    if (text[i] == ' ' || text[i] == '_')
      continue;
    if (!isxdigit((unsigned char)text[i]))
      return SNAPSHOT_HEX_NOT_A_DIGIT;
    digits[count++ % 2] = text[i];
    if (count % 2 == 0) {
      char pair[3] = {digits[0], digits[1], '\0'};
      out[(*size)++] = (uint8_t)strtoul(pair, NULL, 16);
    }
  }
  return count % 2 ? SNAPSHOT_HEX_ODD : SNAPSHOT_HEX_OK;
}

static void check_hex(const char *text, size_t n)
{
  uint8_t *fast = malloc(n / 2 + 1), *plain = malloc(n / 2 + 1);
  size_t fast_size = 0, plain_size = 0;
  if (!fast || !plain)
    abort();
  snapshot_hex_status a = amddwarf__snapshot_hex(text, n, fast, &fast_size);
  snapshot_hex_status b = hex_reference(text, n, plain, &plain_size);
  if (a != b || (a != SNAPSHOT_HEX_NOT_A_DIGIT &&
                 (fast_size != plain_size || memcmp(fast, plain, fast_size) != 0)))
    abort();
  free(fast);
  free(plain);
}

/* The save of S (or NULL), compared whole by the caller. */
static char *saved(const amddwarf_snapshot *s, size_t *size)
{
  char *text = NULL;
  amddwarf_error err;
  *size = 0;
  if (s == NULL || amddwarf_snapshot_save(s, &text, size, &err) != AMDDWARF_OK)
    return NULL;
  return text;
}

/* Reads through A's and B's targets at a few places of every address space
   give the same statuses and bytes: memory read in place is decoded on its
   first read, the tree's at load. */
static void compare_memory(const amddwarf_snapshot *a, const amddwarf_snapshot *b)
{
  static const uint64_t addresses[] = {0, 1, 4, 0x40, 0x100, 0x1000, 0x1004, 0x2000};
  static const uint32_t spaces[][2] = {
      {AMDDWARF_ASPACE_NONE, AMDDWARF_NO_LANE},
      {AMDDWARF_ASPACE_AMDGPU_LOCAL, AMDDWARF_NO_LANE},
      {AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 0},
      {AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE, 1},
      {AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE},
  };
  amddwarf_target ta, tb;
  amddwarf_snapshot_target((amddwarf_snapshot *)a, &ta);
  amddwarf_snapshot_target((amddwarf_snapshot *)b, &tb);
  for (size_t s = 0; s < sizeof spaces / sizeof spaces[0]; s++)
    for (size_t i = 0; i < sizeof addresses / sizeof addresses[0]; i++) {
      uint8_t x[8] = {0}, y[8] = {0};
      amddwarf_status sa = ta.read_memory(ta.user, spaces[s][0], spaces[s][1], addresses[i], 8, x);
      amddwarf_status sb = tb.read_memory(tb.user, spaces[s][0], spaces[s][1], addresses[i], 8, y);
      if (sa != sb || (sa == AMDDWARF_OK && memcmp(x, y, 8) != 0))
        abort();
    }
}

/* TEXT read in place against TREE_ST and TREE, the load through jansson. */
static void check_text_reader(const char *text, size_t size, amddwarf_status tree_st,
                              const amddwarf_snapshot *tree)
{
  json_t *j = json_loadb(text, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
  json_text_index index;
  size_t fault = 0;
  const char *why = NULL;
  amddwarf_allocator alloc = amddwarf__allocator_resolve(NULL);
  amddwarf_status check = amddwarf__json_text_check(text, 0, size, &alloc, &index, &fault, &why);
  if ((check == AMDDWARF_OK) != (j != NULL) || (check != AMDDWARF_OK && (!why || fault > size)))
    abort();
  if (check == AMDDWARF_OK && json_is_object(j)) {
    snapshot_value root;
    amddwarf_snapshot *in_place = NULL;
    amddwarf_error err;
    amddwarf__snapshot_value_text(text, &index, 0, size, &root);
    amddwarf_status st = amddwarf__snapshot_load_value(&root, NULL, NULL, &in_place, &err);
    /* amddwarf_snapshot_load refuses a document that is no object or
       array as bad JSON; an object it reads as this does. */
    if (st != tree_st)
      abort();
    if (st == AMDDWARF_OK)
      compare_memory(tree, in_place);
    size_t a_size, b_size;
    char *a = saved(tree, &a_size), *b = saved(in_place, &b_size);
    if ((a == NULL) != (b == NULL) || (a && (a_size != b_size || memcmp(a, b, a_size) != 0)))
      abort();
    free(a);
    free(b);
    amddwarf_snapshot_free(in_place);
  }
  amddwarf__json_text_index_release(&index);
  json_decref(j);
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
  check_hex((const char *)data, text_size);
  amddwarf_status loaded =
      amddwarf_snapshot_load((const char *)data, text_size, NULL, &snapshot, &err);
  check_text_reader((const char *)data, text_size, loaded, snapshot);
  if (loaded != AMDDWARF_OK) {
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
