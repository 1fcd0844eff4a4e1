/* Decoding typical AMDGPU location expressions: libamddwarf's
 * amddwarf_expr_decode against libdwarf's dwarf_loclist_from_expr_c plus a
 * dwarf_get_location_op_value_c loop over the same bytes.
 *
 * Workloads are the shapes clang-19 and the AMDGPU extensions produce:
 * DW_OP_regx VGPRn + DW_OP_LLVM_push_lane + pieces (user encoding; libdwarf
 * of Debian 12 has no DW_OP_LLVM_* and is not measured there), frame-base
 * offsets, bregx + deref, and expressions taken from clang-19 -O2 output for
 * gfx900/gfx1030 (location lists with bregx VGPR, legacy xderef address
 * spaces, SGPR pieces). Target: at least 100 million operations per second
 * on one core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdwarf/libdwarf.h>

#include <amddwarf/expr.h>

#include "bench.h"

typedef struct workload {
  const char *name;
  const char *hex[8];
  int libdwarf_can_decode;
} workload;

static const workload workloads[] = {
    {"regx VGPRn + push_lane + piece (x4, user)",
     {"908014e9039304 908114e9039304 908214e9039304 908314e9039304", NULL},
     0},
    {"fbreg + legacy private xderef (clang -O0)",
     {"91103116 18", "9108311618", "91203116189f", "917c"},
     1},
    {"bregx + deref, bregx + plus_uconst",
     {"92c100080694 04", "928014002308 06", "92a00c7006", "9241 10"},
     1},
    {"clang-19 -O2 location lists (corpus)",
     {"92a80c00311618", "92aa0c00311618", "1100311618 9f", "928c0c00311618",
      "92840c0092800c0022311618 9f", "903e9304903f9304", "9040", "38311618 9f"},
     1},
};

enum { MAX_EXPRS = 8, MAX_BYTES = 64 };

/* libdwarf decodes only bytes that lie inside a section it has loaded, so
   every expression lives inside the .debug_info of a small in-memory object
   (after its one unit's DIE), and both decoders read them there. */
static uint8_t info_section[4096] = {0, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0, 1};
static size_t info_size = 13;

typedef struct prepared {
  const uint8_t *bytes[MAX_EXPRS];
  size_t size[MAX_EXPRS];
  size_t count;
  size_t ops_per_pass; /* operations in one pass over all expressions */
  amddwarf_op ops[MAX_BYTES];
  Dwarf_Debug dbg;
} prepared;

enum { PASSES = 50000 };

static void prepare(const workload *w, prepared *p)
{
  memset(p, 0, sizeof *p);
  for (size_t i = 0; i < MAX_EXPRS && w->hex[i]; i++) {
    size_t n = 0;
    uint8_t *bytes = info_section + info_size;
    for (const char *s = w->hex[i]; *s;) {
      if (*s == ' ') {
        s++;
        continue;
      }
      unsigned v;
      if (sscanf(s, "%2x", &v) != 1)
        abort();
      if (info_size + n >= sizeof info_section)
        abort();
      bytes[n++] = (uint8_t)v;
      s += 2;
    }
    info_size += n;
    p->bytes[i] = bytes;
    p->size[i] = n;
    size_t count = 0;
    amddwarf_error err;
    if (amddwarf_expr_decode(bytes, n, NULL, p->ops, MAX_BYTES, &count, &err) != 0) {
      fprintf(stderr, "bench_expr_decode: %s: %s\n", w->name, err.message);
      exit(1);
    }
    p->ops_per_pass += count;
    p->count++;
  }
}

static void run_ours(void *arg)
{
  prepared *p = arg;
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  uint64_t sum = 0;
  for (unsigned pass = 0; pass < PASSES; pass++) {
    for (size_t i = 0; i < p->count; i++) {
      size_t count = 0;
      amddwarf_expr_decode(p->bytes[i], p->size[i], &format, p->ops, MAX_BYTES, &count, NULL);
      sum += count + p->ops[count - 1].operands[0];
    }
  }
  bench_consume(sum);
}

/* libdwarf: decode, then fetch every operation as a consumer does. */
static uint64_t libdwarf_decode(prepared *p, size_t i, int *ok)
{
  Dwarf_Loc_Head_c head = NULL;
  Dwarf_Unsigned lists = 0, ops = 0, sum = 0;
  Dwarf_Error error = NULL;
  Dwarf_Small lle, source;
  Dwarf_Addr low, high;
  Dwarf_Locdesc_c desc;
  Dwarf_Unsigned expr_offset, desc_offset;
  *ok = 0;
  if (dwarf_loclist_from_expr_c(p->dbg, (Dwarf_Ptr)p->bytes[i], p->size[i], 8, 4, 5, &head, &lists,
                                &error) != DW_DLV_OK)
    return 0;
  if (dwarf_get_locdesc_entry_c(head, 0, &lle, &low, &high, &ops, &desc, &source, &expr_offset,
                                &desc_offset, &error) == DW_DLV_OK) {
    for (Dwarf_Unsigned k = 0; k < ops; k++) {
      Dwarf_Small atom;
      Dwarf_Unsigned a, b, c, branch;
      if (dwarf_get_location_op_value_c(desc, k, &atom, &a, &b, &c, &branch, &error) !=
          DW_DLV_OK)
        break;
      sum += atom + a;
    }
    *ok = (int)ops;
  }
  dwarf_loc_head_c_dealloc(head);
  return sum;
}

static void run_libdwarf(void *arg)
{
  prepared *p = arg;
  uint64_t sum = 0;
  int ok;
  for (unsigned pass = 0; pass < PASSES; pass++)
    for (size_t i = 0; i < p->count; i++)
      sum += libdwarf_decode(p, i, &ok);
  bench_consume(sum);
}

/* ---- A Dwarf_Debug over an in-memory object with one tiny unit --------- */

static const uint8_t abbrev_section[] = {1, 0x11, 0, 0, 0, 0};

static int get_section_info(void *obj, Dwarf_Half index, Dwarf_Obj_Access_Section *section,
                            int *error)
{
  (void)obj;
  (void)error;
  memset(section, 0, sizeof *section);
  switch (index) {
  case 0:
    section->name = "";
    return DW_DLV_OK;
  case 1:
    section->name = ".debug_info";
    section->size = info_size;
    return DW_DLV_OK;
  case 2:
    section->name = ".debug_abbrev";
    section->size = sizeof abbrev_section;
    return DW_DLV_OK;
  default:
    return DW_DLV_NO_ENTRY;
  }
}

static Dwarf_Endianness get_byte_order(void *obj)
{
  (void)obj;
  return DW_OBJECT_LSB;
}

static Dwarf_Small get_length_size(void *obj)
{
  (void)obj;
  return 4;
}

static Dwarf_Small get_pointer_size(void *obj)
{
  (void)obj;
  return 8;
}

static Dwarf_Unsigned get_section_count(void *obj)
{
  (void)obj;
  return 3;
}

static int load_section(void *obj, Dwarf_Half index, Dwarf_Small **data, int *error)
{
  (void)obj;
  (void)error;
  if (index == 1)
    *data = (Dwarf_Small *)info_section;
  else if (index == 2)
    *data = (Dwarf_Small *)abbrev_section;
  else
    return DW_DLV_NO_ENTRY;
  return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods methods = {
    get_section_info, get_byte_order, get_length_size, get_pointer_size, get_section_count,
    load_section, NULL};

int main(void)
{
  enum { WORKLOADS = sizeof workloads / sizeof workloads[0] };
  static prepared prepared_workloads[WORKLOADS];
  for (size_t w = 0; w < WORKLOADS; w++)
    prepare(&workloads[w], &prepared_workloads[w]);
  /* The unit's length now that the expressions are in place. */
  info_section[0] = (uint8_t)(info_size - 4);
  info_section[1] = (uint8_t)((info_size - 4) >> 8);

  Dwarf_Obj_Access_Interface interface = {NULL, &methods};
  Dwarf_Debug dbg = NULL;
  Dwarf_Error error = NULL;
  if (dwarf_object_init_b(&interface, NULL, NULL, DW_GROUPNUMBER_ANY, &dbg, &error) !=
      DW_DLV_OK) {
    fprintf(stderr, "bench_expr_decode: libdwarf could not open the in-memory object\n");
    dbg = NULL;
  } else {
    /* Reading the unit header loads .debug_info. */
    Dwarf_Unsigned header_length, abbrev_offset, type_offset, next;
    Dwarf_Half version, address_size, length_size, extension_size, header_type;
    Dwarf_Sig8 signature;
    if (dwarf_next_cu_header_d(dbg, 1, &header_length, &version, &abbrev_offset, &address_size,
                               &length_size, &extension_size, &signature, &type_offset, &next,
                               &header_type, &error) != DW_DLV_OK) {
      fprintf(stderr, "bench_expr_decode: libdwarf could not read the unit\n");
      dwarf_object_finish(dbg, &error);
      dbg = NULL;
    }
  }
  bench_print_header("Expression decoding (one core)");
  double total_ops = 0, total_ns = 0, peer_ops = 0, peer_ns = 0, ours_on_peer_ns = 0;
  for (size_t w = 0; w < WORKLOADS; w++) {
    prepared *p = &prepared_workloads[w];
    p->dbg = dbg;
    double ops = (double)p->ops_per_pass * PASSES;
    double ours = bench_median_ns(run_ours, p, 15) / ops;
    double peer = -1;
    if (dbg && workloads[w].libdwarf_can_decode) {
      /* Check that libdwarf sees the same operations before timing it. */
      size_t seen = 0;
      for (size_t i = 0; i < p->count; i++) {
        int n;
        libdwarf_decode(p, i, &n);
        seen += (size_t)n;
      }
      if (seen == p->ops_per_pass)
        peer = bench_median_ns(run_libdwarf, p, 5) / ops;
      else
        fprintf(stderr, "bench_expr_decode: libdwarf saw %zu operations, we %zu (%s)\n", seen,
                p->ops_per_pass, workloads[w].name);
    }
    bench_print_row(workloads[w].name, ours, "libdwarf loclist_from_expr_c", peer, "op");
    total_ops += ops;
    total_ns += ours * ops;
    if (peer > 0) {
      peer_ops += ops;
      peer_ns += peer * ops;
      ours_on_peer_ns += ours * ops;
    }
  }
  printf("\nours, all workloads: %.0f million operations per second (target: 100)\n",
         total_ops / total_ns * 1e3);
  if (peer_ops > 0)
    printf("on the workloads libdwarf decodes: ours %.0f, libdwarf %.1f million operations per "
           "second\n",
           peer_ops / ours_on_peer_ns * 1e3, peer_ops / peer_ns * 1e3);
  if (dbg)
    dwarf_object_finish(dbg, &error);
  return 0;
}
