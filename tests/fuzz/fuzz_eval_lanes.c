/* Fuzz target: the whole-wave evaluator against the one-lane evaluator.
 *
 * The wave is a snapshot made once: s0-s7, v0-v3 (v4 is missing), the
 * private_lane bytes 0-0x1ff of every lane but those with lane % 7 == 3,
 * local and global memory, a frame base in private_lane. Input layout:
 * byte 0 picks the read (bit offset, bit size) and the dialect; bytes 1-8
 * are the lanes asked for; byte 9 seeds EXEC; the rest is the expression.
 * amddwarf_eval_read_lanes must give every lane asked for the bytes and
 * status of amddwarf_eval_expr + amddwarf_location_read of that lane;
 * anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

#include "one_lane.h"

enum { LANES = 64, STRIDE = 16, REG_EXEC = 17 };

typedef struct fuzz_state {
  amddwarf_snapshot *snapshot;
  amddwarf_target target;
  amddwarf_eval *batch, *single;
} fuzz_state;

static uint32_t next_byte(uint32_t *seed)
{
  *seed = *seed * 1103515245u + 12345u;
  return (*seed >> 16) & 0xff;
}

static void append(char **p, char *end, const char *text)
{
  size_t n = strlen(text);
  if ((size_t)(end - *p) <= n)
    abort();
  memcpy(*p, text, n + 1);
  *p += n;
}

static void append_hex(char **p, char *end, uint32_t *seed, size_t count)
{
  static const char digits[] = "0123456789abcdef";
  if ((size_t)(end - *p) <= 2 * count)
    abort();
  for (size_t i = 0; i < count; i++) {
    uint32_t b = next_byte(seed);
    *(*p)++ = digits[b >> 4];
    *(*p)++ = digits[b & 15];
  }
  **p = '\0';
}

static char *wave_json(void)
{
  size_t size = 1 << 17;
  char *json = malloc(size), *p = json, *end = json + size, item[128];
  uint32_t seed = 1;
  if (!json)
    abort();
  append(&p, end, "{\"wave_size\": 64, \"exec\": \"0xffffffffffffffff\", \"dialect\": \"user\", "
                  "\"frame_base\": \"DW_OP_bregx s4 0; DW_OP_lit6; DW_OP_shr; DW_OP_lit5; "
                  "DW_OP_LLVM_form_aspace_address\", \"registers\": {");
  static const char *const scalars[8] = {"16", "64", "256", "2048", "4096", "32768", "3",
                                         "4294967280"};
  for (int s = 0; s < 8; s++) {
    snprintf(item, sizeof item, "\"s%d\": %s, ", s, scalars[s]);
    append(&p, end, item);
  }
  for (int v = 0; v < 4; v++) {
    snprintf(item, sizeof item, "%s\"v%d\": [", v ? ", " : "", v);
    append(&p, end, item);
    for (int lane = 0; lane < LANES; lane++) {
      snprintf(item, sizeof item, "%s%u", lane ? ", " : "",
               (unsigned)(next_byte(&seed) << 24 | next_byte(&seed) << 8 | (unsigned)lane));
      append(&p, end, item);
    }
    append(&p, end, "]");
  }
  append(&p, end, "}, \"memory\": [");
  for (int lane = 0; lane < LANES; lane++) {
    if (lane % 7 == 3)
      continue;
    snprintf(item, sizeof item,
             "{\"address_space\": \"private_lane\", \"lane\": %d, \"address\": 0, \"bytes\": \"",
             lane);
    append(&p, end, item);
    append_hex(&p, end, &seed, 0x200);
    append(&p, end, "\"}, ");
  }
  append(&p, end, "{\"address_space\": \"local\", \"address\": 0, \"bytes\": \"");
  append_hex(&p, end, &seed, 0x400);
  append(&p, end, "\"}, {\"address\": 0, \"bytes\": \"");
  append_hex(&p, end, &seed, 0x2000);
  append(&p, end, "\"}]}");
  return json;
}

static fuzz_state *state(void)
{
  static fuzz_state s;
  if (s.snapshot)
    return &s;
  char *json = wave_json();
  if (amddwarf_snapshot_load(json, strlen(json), NULL, &s.snapshot, NULL) != AMDDWARF_OK ||
      amddwarf_eval_new(NULL, &s.batch, NULL) != AMDDWARF_OK ||
      amddwarf_eval_new(NULL, &s.single, NULL) != AMDDWARF_OK)
    abort();
  free(json);
  amddwarf_snapshot_target(s.snapshot, &s.target);
  return &s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const uint64_t bit_sizes[8] = {32, 64, 8, 16, 96, 128, 0, 12};
  static const uint64_t bit_offsets[4] = {0, 0, 32, 8};
  if (size < 10)
    return 0;
  fuzz_state *f = state();
  uint64_t bit_size = bit_sizes[data[0] & 7], bit_offset = bit_offsets[(data[0] >> 3) & 3];
  uint64_t lanes = 0;
  for (int i = 0; i < 8; i++)
    lanes |= (uint64_t)data[1 + i] << (8 * i);
  uint8_t exec[8];
  for (int i = 0; i < 8; i++)
    exec[i] = (uint8_t)(data[9] * (i + 1) ^ (data[9] >> i));
  if (f->target.write_register(f->target.user, REG_EXEC, 0, 8, exec) != AMDDWARF_OK)
    abort();

  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &f->target);
  req.format.dialect = data[0] & 0x20 ? AMDDWARF_DIALECT_USER : AMDDWARF_DIALECT_AUTO;
  const uint8_t *expr = data + 10;
  size_t expr_size = size - 10;
  uint8_t values[LANES][STRIDE], expected[STRIDE];
  amddwarf_status statuses[LANES];
  uint64_t batched = 0;
  memset(values, 0xa5, sizeof values);
  if (amddwarf_eval_read_lanes(f->batch, &req, expr, expr_size, lanes, bit_offset, bit_size,
                               values, STRIDE, statuses, &batched, NULL) != AMDDWARF_OK ||
      (batched & ~lanes) != 0)
    abort();
  size_t n = (size_t)((bit_size + 7) / 8);
  for (uint32_t lane = 0; lane < LANES; lane++) {
    if (!(lanes >> lane & 1))
      continue;
    amddwarf_status st = one_lane_read(f->single, &req, lane, expr, expr_size, bit_offset,
                                       bit_size, expected, sizeof expected);
    if (statuses[lane] != st || memcmp(values[lane], expected, n) != 0) {
      fprintf(stderr, "lane %u: status %d, one-lane status %d%s\n", lane, (int)statuses[lane],
              (int)st, statuses[lane] == st ? " (bytes differ)" : "");
      abort();
    }
  }
  return 0;
}
