/* The lane-PC generator: from a tree of structured control-flow regions, the
 * DWARF procedures and location lists of the seed's "AMDGPU
 * DW_AT_LLVM_lane_pc" and "AMDGPU DW_AT_LLVM_active_lane" sections.
 *
 * Per unit (once):
 *   __uint64 (__uint32 for wave32)  DW_TAG_base_type, DW_ATE_unsigned
 *   __active_lane_pc     DW_OP_regx PC_64; DW_OP_LLVM_extend 64, W;
 *                        DW_OP_regval_type EXEC, __uintW;
 *                        DW_OP_LLVM_select_bit_piece 64, W
 *   __divergent_lane_pc  DW_OP_LLVM_undefined; DW_OP_LLVM_extend 64, W
 * Per region N with enclosing procedure P and saved mask variable V
 * (__lex_N_save_exec, artificial, under the subprogram):
 *   __divergent_lane_pc_N_then  P; DW_OP_addr START; DW_OP_stack_value;
 *   __divergent_lane_pc_N_else  P; DW_OP_addr END; ...
 *   __divergent_lane_pc_N_loop  P; DW_OP_addr END; ...
 *       each continuing DW_OP_LLVM_extend 64, W; DW_OP_call_ref V;
 *       DW_OP_deref_type W/8, __uintW; DW_OP_LLVM_select_bit_piece 64, W
 * The lane-PC list maps each PC to "DW_OP_call_ref <innermost procedure>;
 * DW_OP_call_ref __active_lane_pc"; inside a whole-wave region the active
 * lanes come from the saved mask instead of EXEC, and DW_AT_LLVM_active_lane
 * says so (EXEC elsewhere). */
#include <amddwarf/dwarf.h>
#include <amddwarf/produce.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "produce/dwarf_model.h"
#include "produce/produce_internal.h"

enum {
  REG_PC_64 = 16,
  REG_EXEC_MASK_32 = 1,
  REG_EXEC_MASK_64 = 17,
  MAX_REGION_DEPTH = 64,
  MAX_REGIONS = 4096,
};

typedef struct gen {
  amddwarf_dwarf_builder *b;
  amddwarf_die_id unit, subprogram;
  dw_unit *u;
  unsigned wave;
  amddwarf_die_id type;
  amddwarf_expr_format format;
  amddwarf_error *err;
  /* per region, in preorder: the generated DIEs */
  struct region_dies {
    const amddwarf_region *region;
    amddwarf_die_id save, then_proc, else_proc, parent_proc;
  } *dies;
  size_t count, capacity;
  uint64_t *points;
  size_t point_count, point_capacity;
} gen;

static amddwarf_status bad_region(gen *g, const amddwarf_region *r, const char *why)
{
  return amddwarf__fail(g->err, AMDDWARF_E_PRODUCE_BAD_REGION, AMDDWARF_NO_OFFSET,
                       "region '%s' [0x%llx, 0x%llx): %s", r->name ? r->name : "?",
                       (unsigned long long)r->start, (unsigned long long)r->end, why);
}

/* Checks R against the range [LO, HI) it must lie in, and its children. */
static amddwarf_status check_region(gen *g, const amddwarf_region *r, uint64_t lo, uint64_t hi,
                                    int depth, size_t *total)
{
  if (depth > MAX_REGION_DEPTH)
    return bad_region(g, r, "regions nest deeper than 64");
  if (++*total > MAX_REGIONS)
    return bad_region(g, r, "more than 4096 regions");
  if (!r->name || !r->name[0] || strlen(r->name) > 64)
    return bad_region(g, r, "a region needs a name of 1-64 characters");
  if (!r->save_exec)
    return bad_region(g, r, "no location for the saved EXEC mask");
  uint64_t else_start = r->kind == AMDDWARF_REGION_IF ? r->else_start : r->end;
  if (!(r->start <= r->body && r->body <= else_start && else_start <= r->end &&
        r->body < r->end))
    return bad_region(g, r, "offsets are not start <= body <= else <= end with body < end");
  if (r->start < lo || r->end > hi)
    return bad_region(g, r, "not inside its enclosing region part or the subprogram");
  if (r->kind == AMDDWARF_REGION_WHOLE_WAVE && r->child_count)
    return bad_region(g, r, "a whole-wave region cannot contain regions");
  if (r->kind > AMDDWARF_REGION_WHOLE_WAVE)
    return bad_region(g, r, "unknown region kind");
  for (size_t i = 0; i < r->child_count; i++) {
    const amddwarf_region *c = &r->children[i];
    uint64_t clo = r->body, chi = else_start;
    if (r->kind == AMDDWARF_REGION_IF && c->start >= else_start) {
      clo = else_start;
      chi = r->end;
    }
    amddwarf_status st = check_region(g, c, clo, chi, depth + 1, total);
    if (st != AMDDWARF_OK)
      return st;
    if (i > 0 && c->start < r->children[i - 1].end)
      return bad_region(g, c, "overlaps or precedes its previous sibling");
  }
  return AMDDWARF_OK;
}

static amddwarf_status new_expr(gen *g, amddwarf_expr_builder **e)
{
  amddwarf_status st =
      amddwarf_expr_builder_new(&g->format, amddwarf__dwarf_builder_allocator(g->b), e);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(g->err, st, AMDDWARF_NO_OFFSET, "out of memory");
  return AMDDWARF_OK;
}

/* A DIE under PARENT with TAG, DW_AT_name NAME, and DW_AT_location E. */
static amddwarf_status located_die(gen *g, amddwarf_die_id parent, uint16_t tag,
                                   const char *name, const amddwarf_expr_builder *e,
                                   amddwarf_die_id *out)
{
  amddwarf_status st = amddwarf_dwarf_die_new(g->b, parent, tag, out, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_string(g->b, *out, AMDDWARF_DW_AT_name, name, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_expr(g->b, *out, AMDDWARF_DW_AT_location, e, g->err);
  return st;
}

/* Appends "mask of the saved EXEC of V": DW_OP_call_ref V; DW_OP_deref_type. */
static amddwarf_status saved_mask(gen *g, amddwarf_expr_builder *e, amddwarf_die_id v)
{
  amddwarf_status st = amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_call_ref, v, 0, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_deref_type, g->type, g->wave / 8, g->err);
  return st;
}

static amddwarf_status exec_mask(gen *g, amddwarf_expr_builder *e)
{
  return amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_regval_type, g->type,
                                       g->wave == 64 ? REG_EXEC_MASK_64 : REG_EXEC_MASK_32,
                                       g->err);
}

static amddwarf_status unit_procedures(gen *g)
{
  dw_unit *u = g->u;
  int slot = g->wave == 64 ? 1 : 0;
  amddwarf_status st = AMDDWARF_OK;
  amddwarf_expr_builder *e = NULL;
  if (!u->lane_types[slot]) {
    amddwarf_die_id t;
    st = amddwarf_dwarf_die_new(g->b, g->unit, AMDDWARF_DW_TAG_base_type, &t, g->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_string(g->b, t, AMDDWARF_DW_AT_name, slot ? "__uint64" : "__uint32",
                                      g->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(g->b, t, AMDDWARF_DW_AT_byte_size, g->wave / 8, g->err);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_attr_udata(g->b, t, AMDDWARF_DW_AT_encoding, AMDDWARF_DW_ATE_unsigned, g->err);
    if (st != AMDDWARF_OK)
      return st;
    u->lane_types[slot] = t;
  }
  g->type = u->lane_types[slot];
  if (u->active_lane_pc)
    return AMDDWARF_OK;
  st = new_expr(g, &e);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_regx, REG_PC_64, 0, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_extend, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = exec_mask(g, e);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_select_bit_piece, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = located_die(g, g->unit, AMDDWARF_DW_TAG_dwarf_procedure, "__active_lane_pc", e,
                     &u->active_lane_pc);
  if (st == AMDDWARF_OK) {
    amddwarf_expr_builder_reset(e);
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_undefined, 0, 0, g->err);
  }
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_extend, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = located_die(g, g->unit, AMDDWARF_DW_TAG_dwarf_procedure, "__divergent_lane_pc", e,
                     &u->divergent_lane_pc);
  amddwarf_expr_builder_free(e);
  return st;
}

/* __divergent_lane_pc_<NAME>_<SUFFIX>: PARENT's lane PCs, with the lanes of
   the saved mask V at the text offset AT. */
static amddwarf_status region_procedure(gen *g, const char *name, const char *suffix,
                                        amddwarf_die_id parent, uint64_t at, amddwarf_die_id v,
                                        amddwarf_die_id *out)
{
  char full[128];
  snprintf(full, sizeof full, "__divergent_lane_pc_%s_%s", name, suffix);
  amddwarf_expr_builder *e = NULL;
  amddwarf_status st = new_expr(g, &e);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_call_ref, parent, 0, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_text_addr(e, at, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_stack_value, 0, 0, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_extend, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = saved_mask(g, e, v);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_select_bit_piece, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = located_die(g, g->unit, AMDDWARF_DW_TAG_dwarf_procedure, full, e, out);
  amddwarf_expr_builder_free(e);
  return st;
}

static amddwarf_status add_point(gen *g, uint64_t p)
{
  if (amddwarf__mem_reserve(amddwarf__dwarf_builder_allocator(g->b), (void **)&g->points,
                           &g->point_capacity, g->point_count + 1, sizeof *g->points) != 0)
    return amddwarf__fail(g->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  g->points[g->point_count++] = p;
  return AMDDWARF_OK;
}

static amddwarf_status generate(gen *g, const amddwarf_region *r, amddwarf_die_id parent_proc)
{
  const amddwarf_allocator *alloc = amddwarf__dwarf_builder_allocator(g->b);
  if (amddwarf__mem_reserve(alloc, (void **)&g->dies, &g->capacity, g->count + 1,
                           sizeof *g->dies) != 0)
    return amddwarf__fail(g->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  size_t index = g->count++;
  struct region_dies rd = {r, 0, 0, 0, parent_proc};
  g->dies[index] = rd;
  char name[128];
  snprintf(name, sizeof name, "__lex_%s_save_exec", r->name);
  amddwarf_status st = located_die(g, g->subprogram, AMDDWARF_DW_TAG_variable, name, r->save_exec,
                                   &rd.save);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_flag(g->b, rd.save, AMDDWARF_DW_AT_artificial, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_dwarf_attr_ref(g->b, rd.save, AMDDWARF_DW_AT_type, g->type, g->err);
  if (st != AMDDWARF_OK)
    return st;
  if (r->kind == AMDDWARF_REGION_IF) {
    st = region_procedure(g, r->name, "then", parent_proc, r->start, rd.save, &rd.then_proc);
    if (st == AMDDWARF_OK && r->else_start < r->end)
      st = region_procedure(g, r->name, "else", parent_proc, r->end, rd.save, &rd.else_proc);
  } else if (r->kind == AMDDWARF_REGION_LOOP) {
    st = region_procedure(g, r->name, "loop", parent_proc, r->end, rd.save, &rd.then_proc);
  }
  if (st == AMDDWARF_OK)
    st = add_point(g, r->start);
  if (st == AMDDWARF_OK)
    st = add_point(g, r->body);
  if (st == AMDDWARF_OK)
    st = add_point(g, r->kind == AMDDWARF_REGION_IF ? r->else_start : r->end);
  if (st == AMDDWARF_OK)
    st = add_point(g, r->end);
  if (st != AMDDWARF_OK)
    return st;
  g->dies[index] = rd;
  for (size_t i = 0; i < r->child_count && st == AMDDWARF_OK; i++) {
    uint64_t else_start = r->kind == AMDDWARF_REGION_IF ? r->else_start : r->end;
    const amddwarf_region *c = &r->children[i];
    amddwarf_die_id enclosing = (r->kind == AMDDWARF_REGION_IF && c->start >= else_start)
                                    ? rd.else_proc
                                    : rd.then_proc;
    st = generate(g, c, enclosing);
  }
  return st;
}

/* What holds over [X, next point): the innermost region part containing X. */
typedef struct piece {
  amddwarf_die_id proc;       /* divergent procedure */
  amddwarf_die_id whole_wave; /* saved mask variable of a whole-wave region, or 0 */
} piece;

static piece classify(const gen *g, uint64_t x)
{
  piece p = {g->u->divergent_lane_pc, 0};
  for (size_t i = 0; i < g->count; i++) { /* preorder: later matches are deeper */
    const struct region_dies *rd = &g->dies[i];
    const amddwarf_region *r = rd->region;
    if (x < r->body || x >= r->end)
      continue;
    if (r->kind == AMDDWARF_REGION_WHOLE_WAVE) {
      p.proc = rd->parent_proc;
      p.whole_wave = rd->save;
    } else if (r->kind == AMDDWARF_REGION_LOOP || x < r->else_start) {
      p.proc = rd->then_proc;
      p.whole_wave = 0;
    } else {
      p.proc = rd->else_proc;
      p.whole_wave = 0;
    }
  }
  return p;
}

static int u64_less(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static amddwarf_status lane_pc_expr(gen *g, piece p, amddwarf_expr_builder *e)
{
  amddwarf_status st = amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_call_ref, p.proc, 0, g->err);
  if (st != AMDDWARF_OK || !p.whole_wave)
    return st == AMDDWARF_OK ? amddwarf_expr_builder_die_ref(e, AMDDWARF_OP_call_ref,
                                                             g->u->active_lane_pc, 0, g->err)
                             : st;
  st = amddwarf_expr_builder_op(e, AMDDWARF_OP_regx, REG_PC_64, 0, g->err);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_extend, 64, g->wave, g->err);
  if (st == AMDDWARF_OK)
    st = saved_mask(g, e, p.whole_wave);
  if (st == AMDDWARF_OK)
    st = amddwarf_expr_builder_op(e, AMDDWARF_OP_LLVM_select_bit_piece, 64, g->wave, g->err);
  return st;
}

static amddwarf_status emit_lists(gen *g, uint64_t low, uint64_t high, int any_whole_wave)
{
  amddwarf_status st = add_point(g, low);
  if (st == AMDDWARF_OK)
    st = add_point(g, high);
  if (st != AMDDWARF_OK)
    return st;
  qsort(g->points, g->point_count, sizeof *g->points, u64_less);
  amddwarf_loclist_id lane_list, active_list = 0;
  st = amddwarf_dwarf_attr_loclist(
      g->b, g->subprogram, amddwarf_dwarf_ext_attr_code(g->b, AMDDWARF_EXT_AT_LANE_PC),
      &lane_list, g->err);
  if (st == AMDDWARF_OK && any_whole_wave)
    st = amddwarf_dwarf_attr_loclist(
        g->b, g->subprogram, amddwarf_dwarf_ext_attr_code(g->b, AMDDWARF_EXT_AT_ACTIVE_LANE),
        &active_list, g->err);
  amddwarf_expr_builder *e = NULL;
  if (st == AMDDWARF_OK)
    st = new_expr(g, &e);
  size_t i = 0;
  while (st == AMDDWARF_OK && i + 1 < g->point_count) {
    uint64_t from = g->points[i];
    if (from >= high)
      break;
    if (from < low || from == g->points[i + 1]) {
      i++;
      continue;
    }
    piece p = classify(g, from);
    size_t j = i + 1;
    /* merge following intervals with the same piece */
    while (j + 1 < g->point_count && g->points[j] < high) {
      if (g->points[j] == g->points[j + 1]) {
        j++;
        continue;
      }
      piece q = classify(g, g->points[j]);
      if (q.proc != p.proc || q.whole_wave != p.whole_wave)
        break;
      j++;
    }
    uint64_t to = g->points[j] < high ? g->points[j] : high;
    amddwarf_expr_builder_reset(e);
    st = lane_pc_expr(g, p, e);
    if (st == AMDDWARF_OK)
      st = amddwarf_dwarf_loclist_add(g->b, lane_list, from, to, e, g->err);
    if (st == AMDDWARF_OK && any_whole_wave) {
      amddwarf_expr_builder_reset(e);
      st = p.whole_wave ? saved_mask(g, e, p.whole_wave) : exec_mask(g, e);
      if (st == AMDDWARF_OK)
        st = amddwarf_dwarf_loclist_add(g->b, active_list, from, to, e, g->err);
    }
    i = j;
  }
  amddwarf_expr_builder_free(e);
  return st;
}

amddwarf_status amddwarf_dwarf_lane_pc(amddwarf_dwarf_builder *b, amddwarf_die_id unit,
                                       amddwarf_die_id subprogram, uint64_t low, uint64_t high,
                                       const amddwarf_region *regions, size_t count,
                                       amddwarf_error *err)
{
  if (!b || (count && !regions))
    return AMDDWARF_E_INVALID_ARGUMENT;
  dw_die *cu = amddwarf__dwarf_die_get(b, unit);
  dw_die *sp = amddwarf__dwarf_die_get(b, subprogram);
  if (!cu || cu->parent || !sp || sp->unit != cu->unit)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_DIE, AMDDWARF_NO_OFFSET,
                         "lane PCs need a unit DIE and a subprogram DIE of that unit");
  if (low >= high)
    return amddwarf__fail(err, AMDDWARF_E_PRODUCE_BAD_REGION, AMDDWARF_NO_OFFSET,
                         "subprogram range [0x%llx, 0x%llx) is empty", (unsigned long long)low,
                         (unsigned long long)high);
  gen g;
  memset(&g, 0, sizeof g);
  g.b = b;
  g.unit = unit;
  g.subprogram = subprogram;
  g.u = &b->units[cu->unit];
  g.wave = b->options.wave_size;
  g.err = err;
  amddwarf_dwarf_builder_expr_format(b, &g.format);
  amddwarf_status st = AMDDWARF_OK;
  size_t total = 0;
  int any_whole_wave = 0;
  for (size_t i = 0; i < count && st == AMDDWARF_OK; i++) {
    st = check_region(&g, &regions[i], low, high, 1, &total);
    if (st == AMDDWARF_OK && i > 0 && regions[i].start < regions[i - 1].end)
      st = bad_region(&g, &regions[i], "overlaps or precedes its previous sibling");
  }
  if (st == AMDDWARF_OK)
    st = unit_procedures(&g);
  for (size_t i = 0; i < count && st == AMDDWARF_OK; i++)
    st = generate(&g, &regions[i], g.u->divergent_lane_pc);
  for (size_t i = 0; i < g.count && st == AMDDWARF_OK; i++)
    any_whole_wave |= g.dies[i].region->kind == AMDDWARF_REGION_WHOLE_WAVE;
  if (st == AMDDWARF_OK)
    st = emit_lists(&g, low, high, any_whole_wave);
  const amddwarf_allocator *alloc = amddwarf__dwarf_builder_allocator(b);
  amddwarf__mem_free(alloc, g.dies, g.capacity * sizeof *g.dies);
  amddwarf__mem_free(alloc, g.points, g.point_capacity * sizeof *g.points);
  return st;
}
