/* Call frame information against elfutils (libdw: dwarf_getcfi_elf,
 * dwarf_cfi_addrframe, dwarf_frame_cfa, dwarf_frame_register) on the same
 * x86-64 .eh_frame:
 *   - row look-up with the index built (rows of the touched FDEs computed in
 *     a warm-up pass), for PCs in 256 hot functions (what the waves of one
 *     stop share) and for PCs spread over 4096 FDEs of the file (cold caches);
 *   - the cached row (the same PC again);
 *   - one step's rule look-ups (row, CFA, return address and frame pointer
 *     rules), and a real amddwarf_unwinder_step over a synthetic thread
 *     (creation and release of the unwinder amortized over its steps);
 *   - building the FDE index over more than 10 MB of .eh_frame;
 *   - AMDGPU rows synthesized from a prologue (an FDE without instructions,
 *     as clang emits) next to the same rules as real CFI (ROCm's directives)
 *     in the same run: the first analysis of a 10,000-instruction function
 *     (decoding included) against the first row computation of the real
 *     FDE, and an unwind step through either frame (bench/gen_prologue.sh).
 *
 * Input: the largest .eh_frame among a few large shared libraries of this
 * machine (or the file given as the second argument). For the 10 MB index
 * target, two .eh_frame sections are concatenated into one section of more
 * than 10 MB (CIE pointers are relative, so every FDE still finds its CIE;
 * the PCs of the second part are shifted, which does not matter for the index). */
#define _POSIX_C_SOURCE 200809L
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amddwarf/cfi.h>
#include <amddwarf/object.h>

#include "bench.h"

enum { PC_COUNT = 4096 };

static const char *const candidates[] = {
    "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.19.1",
    "/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1",
    "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
    "/usr/bin/node",
    "/usr/bin/cmake",
    "/usr/bin/gdb",
};

static uint8_t *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)n : 0;
  return data;
}

typedef struct ctx {
  amddwarf_cfi *cfi;
  Dwarf_CFI *peer;
  uint64_t pcs[PC_COUNT];
  uint64_t all_pcs[PC_COUNT]; /* one PC in each of 4096 FDEs spread over the file */
  uint64_t hot_pcs[PC_COUNT]; /* PCs in 256 FDEs: the functions a stop's waves are in */
  const uint8_t *big;
  size_t big_size;
} ctx;

static void ours_lookup(void *arg)
{
  ctx *c = arg;
  for (int i = 0; i < PC_COUNT; i++) {
    const amddwarf_cfi_row *row;
    /* Alternate far-apart PCs so the one-entry cache never hits. */
    uint64_t pc = c->pcs[(i * 2053) % PC_COUNT];
    if (amddwarf_cfi_find_row(c->cfi, pc, &row, NULL) == AMDDWARF_OK)
      bench_consume(row->cfa.reg);
  }
}

static void ours_cached(void *arg)
{
  ctx *c = arg;
  uint64_t pc = c->pcs[7];
  for (int i = 0; i < PC_COUNT; i++) {
    const amddwarf_cfi_row *row;
    if (amddwarf_cfi_find_row(c->cfi, pc, &row, NULL) == AMDDWARF_OK)
      bench_consume(row->cfa.reg);
  }
}

/* One step's rule look-ups: the row, the CFA rule and the return address
   and frame pointer rules (what an unwinder consults per frame). */
static void ours_step(void *arg)
{
  ctx *c = arg;
  for (int i = 0; i < PC_COUNT; i++) {
    const amddwarf_cfi_row *row;
    uint64_t pc = c->pcs[(i * 2053) % PC_COUNT];
    if (amddwarf_cfi_find_row(c->cfi, pc, &row, NULL) != AMDDWARF_OK)
      continue;
    amddwarf_cfi_rule ra, fp;
    amddwarf_cfi_row_rule(c->cfi, row, 16, &ra);
    amddwarf_cfi_row_rule(c->cfi, row, 6, &fp);
    bench_consume((uint64_t)row->cfa.offset + (uint64_t)ra.offset + fp.kind);
  }
}

/* A synthetic x86-64 thread: RIP and RSP in frame 0; every 8-byte memory
   read returns a return address inside one of the hot functions, so each
   step finds a row, computes the CFA and reads the return address. */
enum { UNWIND_STEPS = 16 };

static amddwarf_status x_read_register(void *user, uint32_t regno, uint64_t offset,
                                       uint64_t size, void *buf)
{
  ctx *c = user;
  uint64_t v = regno == 16 ? c->pcs[3] : regno == 7 ? 0x7fff0000 : regno == 6 ? 0x7fff8000 : 0;
  if (regno > 16 || offset + size > 8)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, (uint8_t *)&v + offset, (size_t)size);
  return AMDDWARF_OK;
}

static amddwarf_status x_read_memory(void *user, uint32_t aspace, uint32_t lane,
                                     uint64_t address, uint64_t size, void *buf)
{
  ctx *c = user;
  (void)aspace;
  (void)lane;
  uint64_t v = c->pcs[(address * 0x9e3779b97f4a7c15u >> 52) % PC_COUNT] + 1;
  if (size > 8)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, &v, (size_t)size);
  return AMDDWARF_OK;
}

/* The target of the x86-64 walks: C's registers and stack. */
static void x_target(ctx *c, amddwarf_target *t)
{
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->user = c;
  t->read_register = x_read_register;
  t->read_memory = x_read_memory;
}

static void ours_unwind(void *arg)
{
  ctx *c = arg;
  amddwarf_target t;
  x_target(c, &t);
  for (int k = 0; k < 64; k++) {
    amddwarf_unwinder *u;
    if (amddwarf_unwinder_new(c->cfi, &t, NULL, &u, NULL) != AMDDWARF_OK)
      return;
    for (int i = 0; i < UNWIND_STEPS; i++)
      if (amddwarf_unwinder_step(u, NULL) != AMDDWARF_OK)
        break;
    bench_consume(amddwarf_unwinder_frame_count(u));
    amddwarf_unwinder_free(u);
  }
}

/* The same walks by one unwinder, reset for each (the unwinder a debugger
   keeps per thread). */
static void ours_unwind_reset(void *arg)
{
  ctx *c = arg;
  amddwarf_target t;
  x_target(c, &t);
  amddwarf_unwinder *u;
  if (amddwarf_unwinder_new(c->cfi, &t, NULL, &u, NULL) != AMDDWARF_OK)
    return;
  for (int k = 0; k < 64; k++) {
    if (k > 0 && amddwarf_unwinder_reset(u, &t, NULL, NULL) != AMDDWARF_OK)
      break;
    for (int i = 0; i < UNWIND_STEPS; i++)
      if (amddwarf_unwinder_step(u, NULL) != AMDDWARF_OK)
        break;
    bench_consume(amddwarf_unwinder_frame_count(u));
  }
  amddwarf_unwinder_free(u);
}

static void peer_lookup(void *arg)
{
  ctx *c = arg;
  for (int i = 0; i < PC_COUNT; i++) {
    Dwarf_Frame *frame = NULL;
    uint64_t pc = c->pcs[(i * 2053) % PC_COUNT];
    if (dwarf_cfi_addrframe(c->peer, pc, &frame) == 0) {
      Dwarf_Op *ops;
      size_t nops;
      dwarf_frame_cfa(frame, &ops, &nops);
      bench_consume(nops);
      free(frame);
    }
  }
}

static void peer_cached(void *arg)
{
  ctx *c = arg;
  uint64_t pc = c->pcs[7];
  for (int i = 0; i < PC_COUNT; i++) {
    Dwarf_Frame *frame = NULL;
    if (dwarf_cfi_addrframe(c->peer, pc, &frame) == 0) {
      Dwarf_Op *ops;
      size_t nops;
      dwarf_frame_cfa(frame, &ops, &nops);
      bench_consume(nops);
      free(frame);
    }
  }
}

static void peer_step(void *arg)
{
  ctx *c = arg;
  for (int i = 0; i < PC_COUNT; i++) {
    Dwarf_Frame *frame = NULL;
    uint64_t pc = c->pcs[(i * 2053) % PC_COUNT];
    if (dwarf_cfi_addrframe(c->peer, pc, &frame) != 0)
      continue;
    Dwarf_Op *ops, ops_mem[3];
    size_t nops;
    dwarf_frame_cfa(frame, &ops, &nops);
    dwarf_frame_register(frame, 16, ops_mem, &ops, &nops);
    dwarf_frame_register(frame, 6, ops_mem, &ops, &nops);
    bench_consume(nops);
    free(frame);
  }
}

static void ours_index(void *arg)
{
  ctx *c = arg;
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.kind = AMDDWARF_CFI_EH_FRAME;
  o.data = c->big;
  o.size = c->big_size;
  o.target = amddwarf_cfi_target_x86_64();
  o.read_memory = NULL;
  amddwarf_cfi *cfi;
  amddwarf_error err;
  if (amddwarf_cfi_open(&o, &cfi, &err) != AMDDWARF_OK) {
    fprintf(stderr, "index: %s\n", err.message);
    return;
  }
  bench_consume(amddwarf_cfi_fde_count(cfi));
  amddwarf_cfi_close(cfi);
}

/* ---- AMDGPU: rows synthesized from a prologue against real CFI ---- */

typedef struct prologue_ctx {
  uint8_t *image[2];            /* synth.o, real.o */
  size_t size[2];
  amddwarf_object *object[2];
  amddwarf_cfi *cfi[2];
  uint64_t body_pc;
  int which;
  double first_ns;
} prologue_ctx;

/* Frame 0 in the callee's body: FP s33, SP s32, the return address in
   lanes 0 and 1 of v40. */
static amddwarf_status p_read_register(void *user, uint32_t regno, uint64_t offset,
                                       uint64_t size, void *buf)
{
  const prologue_ctx *p = user;
  uint8_t bytes[256];
  memset(bytes, 0, sizeof bytes);
  uint64_t v = regno == 16 ? p->body_pc : regno == 64 ? 0x500 : regno == 65 ? 0x100 : 0;
  if (regno == 2600) {
    uint32_t lo = 0x10, hi = 0;
    memcpy(bytes, &lo, 4);
    memcpy(bytes + 4, &hi, 4);
  } else {
    memcpy(bytes, &v, 8);
  }
  if (offset + size > sizeof bytes)
    return AMDDWARF_E_EVAL_UNAVAILABLE;
  memcpy(buf, bytes + offset, (size_t)size);
  return AMDDWARF_OK;
}

static void prologue_step(void *arg)
{
  prologue_ctx *p = arg;
  amddwarf_target t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.user = p;
  t.read_register = p_read_register;
  for (int k = 0; k < 4096; k++) {
    amddwarf_unwinder *u;
    if (amddwarf_unwinder_new(p->cfi[p->which], &t, NULL, &u, NULL) != AMDDWARF_OK)
      return;
    amddwarf_status st = amddwarf_unwinder_step(u, NULL);
    amddwarf_frame_info f;
    amddwarf_unwinder_frame(u, 1, &f);
    bench_consume(f.pc + f.cfa + (uint64_t)st);
    amddwarf_unwinder_free(u);
  }
}

/* The first row look-up of a fresh object: the analysis (synth) or the row
   machine over the FDE's instructions (real). Opening is not timed. */
static void prologue_first(void *arg)
{
  prologue_ctx *p = arg;
  amddwarf_object *object;
  amddwarf_cfi *cfi;
  const amddwarf_cfi_row *row;
  if (amddwarf_object_open_memory(p->image[p->which], p->size[p->which], NULL, &object, NULL) !=
      AMDDWARF_OK)
    return;
  if (amddwarf_object_cfi(object, &cfi, NULL) == AMDDWARF_OK) {
    uint64_t t0 = bench_now_ns();
    if (amddwarf_cfi_find_row(cfi, p->body_pc, &row, NULL) == AMDDWARF_OK)
      bench_consume(row->rule_count);
    p->first_ns = (double)(bench_now_ns() - t0);
  }
  amddwarf_object_close(object);
}

static double prologue_first_median(prologue_ctx *p, int which)
{
  double samples[15];
  p->which = which;
  for (int i = 0; i < 15; i++) {
    prologue_first(p);
    samples[i] = p->first_ns;
  }
  return bench_median(samples, 15);
}

static void prologue_bench(const char *here)
{
  char cmd[4096], line[4096], synth[2048], real[2048];
  const char *tmp = getenv("TMPDIR");
  snprintf(cmd, sizeof cmd, "%s/gen_prologue.sh %s/amddwarf-bench-prologue 10000", here,
           tmp ? tmp : "/tmp");
  FILE *f = popen(cmd, "r");
  prologue_ctx p;
  memset(&p, 0, sizeof p);
  if (f == NULL || fgets(line, sizeof line, f) == NULL ||
      sscanf(line, "%2047s %2047s %" SCNx64, synth, real, &p.body_pc) != 3) {
    printf("bench_cfi: %s failed: no prologue rows measured\n", cmd);
    if (f)
      pclose(f);
    return;
  }
  pclose(f);
  const char *paths[2] = {synth, real};
  for (int i = 0; i < 2; i++) {
    p.image[i] = read_file(paths[i], &p.size[i]);
    amddwarf_error err;
    if (p.image[i] == NULL ||
        amddwarf_object_open_memory(p.image[i], p.size[i], NULL, &p.object[i], &err) !=
            AMDDWARF_OK ||
        amddwarf_object_cfi(p.object[i], &p.cfi[i], &err) != AMDDWARF_OK) {
      printf("bench_cfi: %s: cannot open\n", paths[i]);
      return;
    }
  }
  double first_synth = prologue_first_median(&p, 0);
  double first_real = prologue_first_median(&p, 1);
  /* Rows cached from here on. */
  const amddwarf_cfi_row *row;
  for (int i = 0; i < 2; i++)
    if (amddwarf_cfi_find_row(p.cfi[i], p.body_pc, &row, NULL) != AMDDWARF_OK ||
        row->synthesized != (i == 0)) {
      printf("bench_cfi: %s: no %s row at 0x%" PRIx64 "\n", paths[i],
             i ? "real" : "synthesized", p.body_pc);
      return;
    }
  /* The two alternate, in thread CPU time: the machine's other load falls
     on both alike. */
  double samples[2][31];
  for (int r = 0; r < 31; r++)
    for (int i = 0; i < 2; i++) {
      p.which = i;
      uint64_t t0 = bench_thread_cpu_ns();
      prologue_step(&p);
      samples[i][r] = (double)(bench_thread_cpu_ns() - t0) / 4096;
    }
  double step_synth = bench_median(samples[0], 31);
  double step_real = bench_median(samples[1], 31);
  bench_print_header("AMDGPU rows synthesized from a prologue vs real CFI (gfx900, 10,000 "
                     "instructions)");
  bench_print_row("first analysis (decode + rows) vs first rows of real CFI", first_synth,
                  "real CFI rows", first_real, "function");
  bench_print_row("unwind step through the frame (new+step+free), rows cached", step_synth,
                  "real CFI", step_real, "step");
  printf("\nfirst analysis of a 10,000-instruction function: %.3f ms (target <= 1 ms)\n",
         first_synth / 1e6);
  printf("step through a synthesized frame / through real CFI: %.2fx (target <= 1.2x)\n",
         step_synth / step_real);
  for (int i = 0; i < 2; i++) {
    amddwarf_object_close(p.object[i]);
    free(p.image[i]);
  }
}

/* The .eh_frame bytes and address of PATH (malloc'ed), or NULL. */
static uint8_t *eh_frame_of(const char *path, size_t *size, uint64_t *address)
{
  uint8_t *copy = NULL;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return NULL;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  size_t shstrndx;
  if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !copy; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr))
        continue;
      const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
      Elf_Data *data = name && strcmp(name, ".eh_frame") == 0 ? elf_getdata(scn, NULL) : NULL;
      if (data && data->d_size) {
        copy = malloc(data->d_size);
        memcpy(copy, data->d_buf, data->d_size);
        *size = data->d_size;
        *address = shdr.sh_addr;
      }
    }
  }
  if (elf)
    elf_end(elf);
  close(fd);
  return copy;
}

int main(int argc, char **argv)
{
  prologue_bench(argc > 1 ? argv[1] : "bench");
  const char *path = argc > 2 ? argv[2] : NULL;
  size_t best = 0;
  for (size_t i = 0; !path && i < sizeof candidates / sizeof candidates[0]; i++) {
    size_t s;
    uint64_t a;
    uint8_t *eh = eh_frame_of(candidates[i], &s, &a);
    if (eh && s > best) {
      best = s;
      path = candidates[i];
    }
    free(eh);
  }
  if (!path) {
    printf("bench_cfi: no x86-64 file with .eh_frame found\n");
    return 0;
  }
  size_t file_size = 0;
  uint8_t *image = read_file(path, &file_size);
  ctx c;
  memset(&c, 0, sizeof c);
  amddwarf_error err;
  uint64_t t0 = bench_now_ns();
  if (amddwarf_cfi_open_elf(image, file_size, AMDDWARF_CFI_EH_FRAME, NULL, &c.cfi, &err) !=
      AMDDWARF_OK) {
    printf("bench_cfi: %s: %s\n", path, err.message);
    return 1;
  }
  double open_ns = (double)(bench_now_ns() - t0);
  size_t fdes = amddwarf_cfi_fde_count(c.cfi);
  for (int i = 0; i < PC_COUNT; i++) {
    const amddwarf_cfi_fde *fde = amddwarf_cfi_fde_at(c.cfi, (size_t)i * 7919 % fdes);
    c.all_pcs[i] = fde->initial_location + (fde->address_range * (uint64_t)(i % 5)) / 5;
    fde = amddwarf_cfi_fde_at(c.cfi, (size_t)(i % 256) * 397 % fdes);
    c.hot_pcs[i] = fde->initial_location + (fde->address_range * (uint64_t)(i % 7)) / 7;
  }
  memcpy(c.pcs, c.hot_pcs, sizeof c.pcs);
  int fd = open(path, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  t0 = bench_now_ns();
  c.peer = dwarf_getcfi_elf(elf);
  Dwarf_Frame *first = NULL;
  dwarf_cfi_addrframe(c.peer, c.pcs[0], &first);
  double peer_open_ns = (double)(bench_now_ns() - t0);
  free(first);

  /* Warm-up: compute every row table the PCs touch, on both sides. */
  memcpy(c.pcs, c.all_pcs, sizeof c.pcs);
  ours_lookup(&c);
  peer_lookup(&c);
  memcpy(c.pcs, c.hot_pcs, sizeof c.pcs);
  ours_lookup(&c);
  peer_lookup(&c);

  char title[256];
  snprintf(title, sizeof title, "call frame information: %s (.eh_frame, %zu FDEs)", path, fdes);
  bench_print_header(title);
  bench_print_row("open ELF + FDE index (first use)", open_ns, "elfutils lazy, not comparable",
                  peer_open_ns, "file");
  bench_print_row("row look-up, 256 hot FDEs, index built",
                  bench_median_ns(ours_lookup, &c, 31) / PC_COUNT, "elfutils cfi_addrframe",
                  bench_median_ns(peer_lookup, &c, 31) / PC_COUNT, "lookup");
  bench_print_row("row look-up, cached row", bench_median_ns(ours_cached, &c, 31) / PC_COUNT,
                  "elfutils cfi_addrframe", bench_median_ns(peer_cached, &c, 31) / PC_COUNT,
                  "lookup");
  bench_print_row("rules of one step (row, CFA, RA, FP), hot",
                  bench_median_ns(ours_step, &c, 31) / PC_COUNT, "elfutils addrframe+register",
                  bench_median_ns(peer_step, &c, 31) / PC_COUNT, "step");
  {
    /* Frames actually produced per run, to divide by. */
    amddwarf_target t;
    x_target(&c, &t);
    size_t steps = 0;
    for (int k = 0; k < 64; k++) {
      amddwarf_unwinder *u;
      if (amddwarf_unwinder_new(c.cfi, &t, NULL, &u, NULL) != AMDDWARF_OK)
        break;
      for (int i = 0; i < UNWIND_STEPS; i++)
        if (amddwarf_unwinder_step(u, NULL) != AMDDWARF_OK)
          break;
      steps += amddwarf_unwinder_frame_count(u) - 1;
      amddwarf_unwinder_free(u);
    }
    if (steps)
      bench_print_row("amddwarf_unwinder_step (new+free amortized)",
                      bench_median_ns(ours_unwind, &c, 31) / (double)steps,
                      "elfutils addrframe+register", bench_median_ns(peer_step, &c, 31) / PC_COUNT,
                      "step");
    if (steps)
      bench_print_row("amddwarf_unwinder_step (one unwinder, reset)",
                      bench_median_ns(ours_unwind_reset, &c, 31) / (double)steps,
                      "elfutils addrframe+register", bench_median_ns(peer_step, &c, 31) / PC_COUNT,
                      "step");
  }
  memcpy(c.pcs, c.all_pcs, sizeof c.pcs);
  bench_print_row("row look-up, 4096 FDEs over the file (cold)",
                  bench_median_ns(ours_lookup, &c, 31) / PC_COUNT, "elfutils cfi_addrframe",
                  bench_median_ns(peer_lookup, &c, 31) / PC_COUNT, "lookup");
  bench_print_row("rules of one step, 4096 FDEs (cold)",
                  bench_median_ns(ours_step, &c, 31) / PC_COUNT, "elfutils addrframe+register",
                  bench_median_ns(peer_step, &c, 31) / PC_COUNT, "step");

  /* Index build over more than 10 MB of .eh_frame. */
  size_t s1 = 0, s2 = 0;
  uint64_t a1, a2;
  uint8_t *e1 = eh_frame_of(candidates[0], &s1, &a1);
  uint8_t *e2 = eh_frame_of(candidates[1], &s2, &a2);
  if (e1 && e2) {
    /* Drop the first section's zero terminator so the second part is read. */
    while (s1 >= 4 && memcmp(e1 + s1 - 4, "\0\0\0\0", 4) == 0)
      s1 -= 4;
    uint8_t *big = malloc(s1 + s2);
    memcpy(big, e1, s1);
    memcpy(big + s1, e2, s2);
    c.big = big;
    c.big_size = s1 + s2;
    double ns = bench_median_ns(ours_index, &c, 7);
    snprintf(title, sizeof title, "FDE index build, %.1f MB .eh_frame", (s1 + s2) / 1e6);
    bench_print_row(title, ns, "- (elfutils has no index)", -1, "build");
    printf("\nFDE index build over %.1f MB of .eh_frame: %.2f ms (target < 50 ms)\n",
           (s1 + s2) / 1e6, ns / 1e6);
    free(big);
  }
  free(e1);
  free(e2);
  dwarf_cfi_end(c.peer);
  elf_end(elf);
  close(fd);
  amddwarf_cfi_close(c.cfi);
  free(image);
  return 0;
}
