/* An example debugger backend on <amddwarf/debug.h>: CODE_OBJECT WAVE_SNAPSHOT.json
 * 1. dbg_wave: a stand-in for a debugger API such as amd-dbgapi, served from a snapshot;
 * 2. raw_*: the raw amddwarf_target over that API, the only code a real backend writes;
 * 3. the debugger: the backtrace (inlined subroutines are frames), then the locals per PC. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <amddwarf/amddwarf.h>

/* ===== 1. The debugger API stand-in ======================================== */
typedef struct dbg_wave { /* amd_dbgapi_wave_id_t */
  amddwarf_snapshot *snapshot;
  amddwarf_target hw;     /* the snapshot's accessors play the hardware */
} dbg_wave;
static int dbg_wave_stop(const char *path, dbg_wave *w)
{
  FILE *f = fopen(path, "rb");
  long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  char *text = n > 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n) : NULL;
  amddwarf_error err = {0};
  if (text && fread(text, 1, (size_t)n, f) == (size_t)n &&
      amddwarf_snapshot_load(text, (size_t)n, NULL, &w->snapshot, &err) == AMDDWARF_OK)
    amddwarf_snapshot_target(w->snapshot, &w->hw);
  else
    fprintf(stderr, "%s: %s\n", path, err.status ? err.message : "cannot read the file");
  if (f)
    fclose(f);
  free(text);
  return w->snapshot ? 0 : -1;
}
/* ===== 2. The raw target: amd_dbgapi_read_register (by DWARF number),
   amd_dbgapi_read_memory (by address space and lane), wave size, EXEC ===== */
static amddwarf_status raw_register(void *u, uint32_t reg, uint64_t off, uint64_t n, void *buf)
{ dbg_wave *w = u; return w->hw.read_register(w->hw.user, reg, off, n, buf); }
static amddwarf_status raw_memory(void *u, uint32_t space, uint32_t lane, uint64_t addr,
                                  uint64_t n, void *buf)
{ dbg_wave *w = u; return w->hw.read_memory(w->hw.user, space, lane, addr, n, buf); }
static amddwarf_status raw_wave_size(void *u, uint32_t *size) /* wave_get_info(LANE_COUNT) */
{ return *size = amddwarf_snapshot_wave_size(((dbg_wave *)u)->snapshot), AMDDWARF_OK; }
static amddwarf_status raw_exec(void *u, uint64_t *mask) /* EXEC_MASK_32 is register 1, _64 17 */
{ uint32_t lanes = amddwarf_snapshot_wave_size(((dbg_wave *)u)->snapshot);
  return *mask = 0, raw_register(u, lanes == 32 ? 1 : 17, 0, lanes / 8, mask); }
/* ===== 3. The debugger ===================================================== */
static const char *lane_set(uint64_t mask, char *buf) /* "lanes 0-1,3", "lane 5" */
{
  char *p = buf + sprintf(buf, mask & (mask - 1) ? "lanes " : "lane ");
  for (unsigned l = 0, e; l < 64; l = e + 1) {
    for (e = l; (mask >> l & 1) && e < 63 && (mask >> (e + 1) & 1); e++) {}
    if (mask >> l & 1)
      p += sprintf(p, e > l ? "%s%u-%u" : "%s%u", p[-1] == ' ' ? "" : ",", l, e);
  }
  return buf;
}
/* Every frame of WAVE (#N 0xPC in FUNCTION () at FILE:LINE) with, for the
   lanes of MASK, its locals: a line per set of lanes whose values agree. */
static void print_frames(amddwarf_wave *wave, uint64_t mask)
{
  static const char *const state[] = {"", "<optimized out>", "<unavailable>", "<error>"};
  const amddwarf_frame *f;
  const amddwarf_frame_var *vars;
  amddwarf_value_group g[64];
  amddwarf_error err = {0};
  amddwarf_status st;
  char set[200];
  size_t i = 0, count = 0, n = 0;
  for (; (st = amddwarf_wave_frame(wave, i, &f, &err)) == AMDDWARF_OK; i++, count = 0) {
    const char *slash = f->file ? strrchr(f->file, '/') : NULL, *fn = f->function_name;
    printf("  #%zu 0x%016" PRIx64 " in %s ()", i, f->pc, fn ? fn : "??");
    printf(f->file ? " at %s:%u\n" : "\n", slash ? slash + 1 : f->file, (unsigned)f->line);
    amddwarf_wave_variables(wave, i, &vars, &count, NULL); /* none on error */
    for (size_t k = 0; mask && k < count; k++, n = 0) {
      const char *name = vars[k].name;
      amddwarf_valobj *v = NULL;
      if (!name || vars[k].global)
        continue; /* unnamed, or a global (its scope is the unit DIE) */
      if (amddwarf_valobj_new(wave, i, name, &v, &err) ||
          amddwarf_valobj_read_lanes(v, mask, g, 64, &n, &err))
        printf("    %s = <error: %s>\n", name, err.message);
      for (size_t j = 0; j < n; j++) {
        const amddwarf_lane_value *lv = &g[j].value;
        int why = lv->detailed || lv->state == AMDDWARF_LANE_ERROR;
        printf("    %s = %s%s%s%s  [%s]\n", name, lv->state ? state[lv->state & 3] : lv->text,
               why ? " (" : "", why ? lv->message : "", why ? ")" : "", lane_set(g[j].mask, set));
      }
      amddwarf_valobj_free(v);
    }
  }
  if (st != AMDDWARF_END) /* as at a kernel, whose FDE has no CFA rule */
    printf("  (unwinding stopped at frame #%zu: %s)\n", i, err.message);
}

int main(int argc, char **argv)
{
  dbg_wave hw = {0};
  amddwarf_target raw = {.struct_size = sizeof raw, .user = &hw, .read_register = raw_register,
                         .read_memory = raw_memory, .wave_size = raw_wave_size,
                         .exec_mask = raw_exec};
  amddwarf_object *obj = NULL;
  const amddwarf_object *objects[1] = {NULL};
  amddwarf_wave *wave = NULL;
  const amddwarf_lanes *lanes;
  amddwarf_error err = {0};
  amddwarf_arch arch;
  amddwarf_status st;
  amddwarf_wave_options o = {.struct_size = sizeof o, .has_pc = 1}; /* other fields: defaults */
  amddwarf_lane_group groups[64];
  size_t n = 0;
  char set[200];
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
  /* Each group of lanes at one PC (after divergence, DW_AT_LLVM_lane_pc) is
     shown through a wave stopped at that PC. */
  amddwarf_lanes_group_by_pc(lanes, groups, 64, &n);
  for (size_t i = 0; i < n; i++) {
    amddwarf_wave *at = NULL;
    printf("%s%s", lane_set(groups[i].mask, set), groups[i].pc_known ? "" : ": no PC (inactive)\n");
    if (!groups[i].pc_known)
      continue;
    printf(" at pc 0x%" PRIx64 "%s:\n", (o.lanes_at_pc = groups[i].mask, o.pc = groups[i].pc),
           groups[i].mask & lanes->active_mask ? "" : " (waiting, not in EXEC)");
    if (amddwarf_wave_open(objects, 1, &raw, &o, &at, &err))
      printf("  <error: %s>\n", err.message);
    else
      print_frames(at, groups[i].mask);
    amddwarf_wave_close(at);
  }
  st = AMDDWARF_OK;
done:
  amddwarf_wave_close(wave);
  amddwarf_object_close(obj);
  amddwarf_snapshot_free(hw.snapshot);
  return st == AMDDWARF_OK ? 0 : 1;
}
