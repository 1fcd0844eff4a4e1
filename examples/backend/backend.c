/* An example debugger backend on <amddwarf/debug.h>: CODE_OBJECT WAVE_SNAPSHOT.json. 1. dbg_wave:
 * a stand-in for a debugger API such as amd-dbgapi; 2. raw_*: the raw amddwarf_target over it,
 * the code a real backend writes (target.h); 3. the debugger: backtrace, locals per PC. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <amddwarf/amddwarf.h>
enum { REGS = 3328, SCRATCH = 1 << 18, TEXT = 1 << 20 };
typedef struct dbg_wave { /* 1. The API stand-in: amd_dbgapi_wave_id_t */
  uint32_t lanes;
  uint8_t regs[REGS][256]; /* by DWARF number (amd_dbgapi_dwarf_register_to_register) */
  uint16_t size[REGS];     /* bytes; 0: the wave has no such register */
  uint8_t scratch[SCRATCH];           /* the lanes' private memory, swizzled (private_wave) */
} dbg_wave;
static int dbg_wave_stop(const char *path, dbg_wave *w) /* the wave's state at a stop */
{
  static char text[TEXT];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(text, 1, TEXT, f) : 0;
  amddwarf_snapshot *snap = NULL;
  amddwarf_target hw;
  amddwarf_amdgpu_register info;
  amddwarf_error err = {0};
  if (!f || fclose(f) || amddwarf_snapshot_load(text, n, NULL, &snap, &err) != AMDDWARF_OK)
    return fprintf(stderr, "%s: %s\n", path, err.status ? err.message : "cannot read it"), -1;
  amddwarf_snapshot_target(snap, &hw);
  w->lanes = amddwarf_snapshot_wave_size(snap);
  for (uint32_t r = 0; r < REGS; r++)
    w->size[r] = amddwarf_amdgpu_register_info(r, &info) || hw.read_register(hw.user, r, 0,
                 info.bit_size / 8, w->regs[r]) ? 0 : (uint16_t)(info.bit_size / 8);
  for (uint32_t a = 0; a < SCRATCH; a += 4) /* what the snapshot lacks stays 0 */
    hw.read_memory(hw.user, AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE, AMDDWARF_NO_LANE, a, 4,
                   w->scratch + a);
  amddwarf_snapshot_free(snap);
  return 0;
}
/* 2. The raw target over dbg_wave's arrays (target.h: what each callback answers) */
static amddwarf_status raw_register(void *u, uint32_t r, uint64_t off, uint64_t n, void *buf)
{
  dbg_wave *w = u;
  if (r >= REGS || off > w->size[r] || n > w->size[r] - off)
    return AMDDWARF_E_EVAL_UNAVAILABLE; /* a register it lacks: <unavailable>, not an error */
  return memcpy(buf, w->regs[r] + off, n), AMDDWARF_OK;
}
static amddwarf_status raw_memory(void *u, uint32_t space, uint32_t lane, uint64_t a,
                                  uint64_t n, void *buf)
{ /* private_lane L at A is scratch byte amddwarf_private_lane_to_wave(A, L); no other memory */
  dbg_wave *w = u;
  for (uint64_t i = 0, at = a; i < n; at = a + ++i) {
    if ((space == AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE ? amddwarf_private_lane_to_wave(a + i, lane,
         w->lanes, &at) != 0 : space != AMDDWARF_ASPACE_AMDGPU_PRIVATE_WAVE) || at >= SCRATCH)
      return AMDDWARF_E_EVAL_UNAVAILABLE;
    ((uint8_t *)buf)[i] = w->scratch[at];
  }
  return AMDDWARF_OK;
}
static amddwarf_status raw_wave_size(void *u, uint32_t *size)
{ return *size = ((dbg_wave *)u)->lanes, AMDDWARF_OK; }
static amddwarf_status raw_exec(void *u, uint64_t *m) /* EXEC_MASK_32 is 1, _64 is 17 */
{ dbg_wave *w = u; return *m = 0, raw_register(u, w->lanes == 32 ? 1 : 17, 0, w->lanes / 8, m); }
static const char *lane_set(uint64_t mask, char *buf) /* 3. The debugger. "lanes 0-1,3" */
{ return amddwarf_lanes_spell(mask, 64, buf + sprintf(buf, mask & (mask - 1) ? "lanes " : "lane "),
                              192), buf; }
/* Every frame of WAVE (#N 0xPC in FUNCTION () at FILE:LINE) with, for the lanes of MASK,
   its locals as the layer lists them: a line per set of lanes whose values agree. */
static void print_frames(amddwarf_wave *wave, uint64_t mask)
{
  const amddwarf_frame *f;
  const amddwarf_listed_variable *vars;
  amddwarf_value_group g[64];
  amddwarf_error err = {0};
  amddwarf_status st;
  char set[200], text[512];
  size_t i = 0, count = 0, n = 0;
  for (; (st = amddwarf_wave_frame(wave, i, &f, &err)) == AMDDWARF_OK; i++, count = 0) {
    const char *slash = f->file ? strrchr(f->file, '/') : NULL, *fn = f->function_name;
    printf("  #%zu 0x%016" PRIx64 " in %s ()", i, f->pc, fn ? fn : "??");
    printf(f->file ? " at %s:%u\n" : "\n", slash ? slash + 1 : f->file, (unsigned)f->line);
    amddwarf_wave_frame_variables(wave, i, &vars, &count, NULL); /* none on error */
    for (size_t k = 0; mask && k < count; k++, n = 0) {
      amddwarf_valobj *v = NULL;
      if (vars[k].kind == AMDDWARF_LISTED_GLOBAL) /* the unit's */
        continue;
      if (!vars[k].var) /* declared only in an inlined routine's abstract origin */
        printf("    %s = <optimized out> (%s)\n", vars[k].name, vars[k].missing);
      else if (amddwarf_valobj_new_indexed(wave, i, vars[k].var_index, NULL, &v, &err) ||
               amddwarf_valobj_read_lanes(v, mask, g, 64, &n, &err))
        printf("    %s = <error: %s>\n", vars[k].name, err.message);
      for (size_t j = 0; j < n && amddwarf_lane_value_text(&g[j].value, text, 512); j++)
        printf("    %s = %s  [%s]\n", vars[k].name, text, lane_set(g[j].mask, set));
      amddwarf_valobj_free(v);
    }
  }
  if (st != AMDDWARF_END) /* as at a kernel, whose FDE has no CFA rule */
    printf("  (unwinding stopped at frame #%zu: %s)\n", i, err.message);
}
int main(int argc, char **argv)
{
  static dbg_wave hw;
  amddwarf_target raw = {.struct_size = sizeof raw, .user = &hw, .read_register = raw_register,
                         .read_memory = raw_memory, .wave_size = raw_wave_size,
                         .exec_mask = raw_exec};
  amddwarf_object *obj = NULL;
  const amddwarf_object *objects[1] = {NULL}; /* the wave's code objects */
  amddwarf_wave *wave = NULL;
  const amddwarf_lanes *lanes;
  amddwarf_error err = {0};
  amddwarf_arch arch;
  amddwarf_status st;
  amddwarf_wave_options o = {.struct_size = sizeof o, .has_pc = 1}; /* other fields: defaults */
  amddwarf_lane_group groups[64];
  char set[200];
  size_t n = 0;
  if (argc != 3)
    return fprintf(stderr, "usage: %s CODE_OBJECT WAVE_SNAPSHOT.json\n", argv[0]), 2;
  if (dbg_wave_stop(argv[2], &hw) != 0)
    return 1;
  if ((st = amddwarf_object_open_file(argv[1], NULL, &obj, &err)) ||
      (st = amddwarf_arch_from_e_flags(amddwarf_object_get_info(obj)->e_flags,
                                       amddwarf_object_get_info(obj)->abi_version, &arch, &err)) ||
      (objects[0] = obj, st = amddwarf_wave_open(objects, 1, &raw, NULL, &wave, &err)) ||
      (st = amddwarf_wave_lanes(wave, &lanes, &err))) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    goto done;
  }
  const amddwarf_wave_info *info = amddwarf_wave_get_info(wave);
  printf("wave: %s, %u lanes, pc 0x%" PRIx64 ", exec 0x%" PRIx64 "\nbreakpoint instruction: %u "
         "bytes, pc adjust %u\nbacktrace:\n", arch.processor, (unsigned)info->wave_size, info->pc,
         info->exec, (unsigned)arch.breakpoint_size, (unsigned)arch.breakpoint_pc_adjust);
  print_frames(wave, 0);
  /* Each group of lanes at one PC (DW_AT_LLVM_lane_pc) through a wave stopped there. */
  amddwarf_lanes_group_by_pc(lanes, groups, 64, &n);
  for (size_t i = 0; i < n; i++) {
    amddwarf_wave *at = NULL;
    printf("%s%s", lane_set(groups[i].mask, set), groups[i].pc_known ? "" : ": no PC (inactive)\n");
    if (!groups[i].pc_known)
      continue;
    printf(" at pc 0x%" PRIx64 "%s:\n", (o.lanes_at_pc = groups[i].mask, o.pc = groups[i].pc),
           groups[i].mask & lanes->active_mask ? "" : " (waiting, not in EXEC)");
    if (amddwarf_wave_open(objects, 1, &raw, &o, &at, &err) == AMDDWARF_OK)
      print_frames(at, groups[i].mask);
    else
      printf("  <error: %s>\n", err.message);
    amddwarf_wave_close(at);
  }
done: /* ST is OK once the wave is open */
  amddwarf_wave_close(wave);
  amddwarf_object_close(obj);
  return st == AMDDWARF_OK ? 0 : 1;
}
