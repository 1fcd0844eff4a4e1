/* Evaluator benchmark: typical AMDGPU variable locations evaluated for every
 * lane of a wave, each including the read of its 4-8 byte value, as a
 * debugger does for each visible variable of a stopped MI60 wave.
 *
 *   bench_eval [BENCH_DIR]           our times (target: < 150 ns each)
 *   bench_eval --peer RESULTS        also the gimli peer's times (bench/peer_gimli.sh)
 *
 * The peer evaluates the standard-subset equivalents (bench/gimli/src/main.rs):
 * gimli has no lane operations, so for the VGPR lane select it evaluates
 * DW_OP_regx and the caller picks the lane's dword; the fbreg case evaluates
 * the frame base expression and DW_OP_fbreg; the SGPR pair is the same
 * DW_OP_regx/DW_OP_piece expression. Each is one amddwarf_eval_read call
 * (evaluation and read with one set-up), as a debugger reads a variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/target.h>

#include "common/bytes.h"

#include "bench.h"

enum { LANES = 64, ITERATIONS = 200000, REPEATS = 9 };

typedef struct wave {
  uint32_t sgpr[64];           /* DWARF 32 .. 95 */
  uint32_t vgpr[8][LANES];     /* wave64 VGPR0-7: DWARF 2560 .. 2567 */
  uint8_t private_mem[LANES][64];
  uint32_t lane;
} wave;

static amddwarf_status read_register(void *user, uint32_t regno, uint64_t offset, uint64_t size,
                                     void *buf)
{
  wave *w = user;
  const uint8_t *base;
  uint64_t limit;
  if (regno >= 32 && regno < 96) {
    base = (const uint8_t *)&w->sgpr[regno - 32];
    limit = 4;
  } else if (regno >= 2560 && regno < 2568) {
    base = (const uint8_t *)w->vgpr[regno - 2560];
    limit = 4 * LANES;
  } else {
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  }
  if (offset > limit || size > limit - offset)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  amddwarf__copy_small(buf, base + offset, size); /* a dword or a qword in one move */
  return AMDDWARF_OK;
}

static amddwarf_status read_memory(void *user, uint32_t aspace, uint32_t lane, uint64_t address,
                                   uint64_t size, void *buf)
{
  wave *w = user;
  if (aspace != AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE || lane >= LANES || address > 64 ||
      size > 64 - address)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  amddwarf__copy_small(buf, w->private_mem[lane] + address, size);
  return AMDDWARF_OK;
}

static amddwarf_status wave_size(void *user, uint32_t *size)
{
  (void)user;
  *size = LANES;
  return AMDDWARF_OK;
}

/* DW_AT_frame_base: DW_OP_regx s33; DW_OP_deref_size 4; DW_OP_lit5 (private_lane);
   DW_OP_LLVM_form_aspace_address. */
static const uint8_t frame_base_expr[] = {0x90, 0x41, 0x94, 0x04, 0x35, 0xe9, 0x02};

static amddwarf_status frame_base(void *user, const uint8_t **expr, size_t *size)
{
  (void)user;
  *expr = frame_base_expr;
  *size = sizeof frame_base_expr;
  return AMDDWARF_OK;
}

typedef struct workload {
  const char *name;
  const char *key;      /* the peer's name for it */
  const uint8_t *bytes;
  size_t size;
  uint32_t read_bits;
  const amddwarf_op *ops; /* pre-decoded variant when set */
  size_t op_count;
  /* filled per run */
  amddwarf_eval *ev;
  amddwarf_eval_request *req;
  wave *w;
  uint64_t failures;
} workload;

static void run_workload(void *arg)
{
  workload *wl = arg;
  amddwarf_entry result;
  uint64_t sum = 0;
  for (unsigned i = 0; i < ITERATIONS; i++) {
    uint8_t value[8] = {0};
    wl->req->lane = i % LANES;
    amddwarf_status st;
    if (wl->ops) {
      st = amddwarf_eval_ops(wl->ev, wl->req, wl->ops, wl->op_count, &result, NULL);
      if (st == AMDDWARF_OK)
        st = amddwarf_location_read(wl->ev, wl->req, &result.location, 0, wl->read_bits, value,
                                    NULL);
    } else {
      st = amddwarf_eval_read(wl->ev, wl->req, wl->bytes, wl->size, 0, wl->read_bits, value,
                              NULL);
    }
    if (st != AMDDWARF_OK)
      wl->failures++;
    uint64_t v;
    memcpy(&v, value, 8);
    sum += v;
  }
  bench_consume(sum);
}

int main(int argc, char **argv)
{
  const char *peer_path = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc)
      peer_path = argv[++i];

  static wave w;
  for (int i = 0; i < 64; i++)
    w.sgpr[i] = 0x10000000u + (uint32_t)i;
  w.sgpr[33] = 0x20; /* s33: the frame, a private_lane address */
  for (int r = 0; r < 8; r++)
    for (int l = 0; l < LANES; l++)
      w.vgpr[r][l] = 0x100u * (uint32_t)r + (uint32_t)l;
  for (int l = 0; l < LANES; l++)
    for (int b = 0; b < 64; b++)
      w.private_mem[l][b] = (uint8_t)(l * 3 + b);

  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = &w;
  t.read_register = read_register;
  t.read_memory = read_memory;
  t.wave_size = wave_size;
  t.frame_base = frame_base;

  amddwarf_eval *ev = NULL;
  if (amddwarf_eval_new(NULL, &ev, NULL) != AMDDWARF_OK)
    return 1;
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &t);
  req.wave_size = LANES; /* as a debugger knows of the wave it stopped */

  /* DW_OP_regx v1; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul; DW_OP_LLVM_offset */
  static const uint8_t lane_select[] = {0x90, 0x81, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04};
  /* DW_OP_fbreg 8 */
  static const uint8_t fbreg[] = {0x91, 0x08};
  /* DW_OP_regx s40; DW_OP_piece 4; DW_OP_regx s41; DW_OP_piece 4 */
  static const uint8_t pair[] = {0x90, 0x48, 0x93, 0x04, 0x90, 0x49, 0x93, 0x04};

  amddwarf_op lane_select_ops[16];
  size_t lane_select_count = 0;
  if (amddwarf_expr_decode(lane_select, sizeof lane_select, &req.format, lane_select_ops, 16,
                           &lane_select_count, NULL) != AMDDWARF_OK)
    return 1;

  workload workloads[] = {
      {"VGPR lane select (push_lane) + 4-byte read", "vgpr_lane_select", lane_select,
       sizeof lane_select, 32, NULL, 0, NULL, NULL, NULL, 0},
      {"  same, pre-decoded, eval_ops + location_read", "", NULL, 0, 32, lane_select_ops, lane_select_count,
       NULL, NULL, NULL, 0},
      {"private_lane slot via fbreg + 4-byte read", "private_lane_fbreg", fbreg, sizeof fbreg, 32,
       NULL, 0, NULL, NULL, NULL, 0},
      {"SGPR pair pieces + 8-byte read", "sgpr_pieces", pair, sizeof pair, 64, NULL, 0, NULL,
       NULL, NULL, 0},
  };

  bench_print_header("DWARF expression evaluation, one lane, value read included");
  int failed = 0;
  const char *only = getenv("BENCH_EVAL_ONLY"); /* one workload by index, for profiling */
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
    workload *wl = &workloads[i];
    if (only && (size_t)atoi(only) != i)
      continue;
    wl->ev = ev;
    wl->req = &req;
    wl->w = &w;
    double ns = bench_median_ns(run_workload, wl, REPEATS) / ITERATIONS;
    double peer = wl->key[0] ? bench_peer_time(peer_path, wl->key) : -1;
    bench_print_row(wl->name, ns, peer >= 0 ? "gimli 0.27 Evaluation" : "-", peer, "op");
    if (wl->failures) {
      fprintf(stderr, "bench_eval: %s: %llu evaluations failed\n", wl->name,
              (unsigned long long)wl->failures);
      failed = 1;
    }
  }
  amddwarf_eval_free(ev);
  return failed;
}
