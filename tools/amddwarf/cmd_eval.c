/* amddwarf eval: evaluates a source variable (with member, index and
 * dereference paths) of a code object against a wave snapshot, for one lane
 * or several, and prints it the way a debugger does. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "object_cli.h"
#include "trace_print.h"

static const char *const usage =
    "usage: amddwarf eval OBJECT --state SNAPSHOT [--pc ADDR] [--lane N | --lanes all|LIST]\n"
    "                     [--json] [--explain] [--convention C] [--trace] [--stats] EXPR\n"
    "\n"
    "Finds the variable or parameter EXPR names in the scopes containing the PC\n"
    "(innermost first), evaluates its location for each lane of the wave in\n"
    "SNAPSHOT (a JSON wave state, specs/snapshot.md), reads it and prints its\n"
    "value by its type: integers, floats, bools, chars, enums, pointers with\n"
    "their address space, arrays, structs and vectors. <optimized out> means\n"
    "no location applies at the PC; <unavailable> that the snapshot lacks the\n"
    "register or memory.\n"
    "\n"
    "  EXPR           NAME, then any of .MEMBER  [INDEX]  ->MEMBER, or *NAME:\n"
    "                 s.x   tile[3]   p->y   *q   m[1][2]\n"
    "  --pc ADDR      code address (default: the snapshot's pc)\n"
    "  --lane N       one lane (default: the snapshot's lane)\n"
    "  --lanes L      several lanes, printed as a table: all, or 0,2,5-7\n"
    "  --explain      also print each lane's location description: address\n"
    "                 space and address, or register, and the bit offset\n"
    "  --json         JSON output\n"
    "  --trace        print on stderr, per lane, every operation with the stack\n"
    "                 after it and every target access (also AMDDWARF_TRACE=1)\n"
    "  --stats        print counts and times per phase on stderr\n"
    "\n"
    "Locations are read under the unit's convention (specs/conventions.md):\n"
    "for upstream clang output the frame base is SGPR33 divided by the wave\n"
    "size on MUBUF-scratch processors, and \"lit1, swap, xderef\" is the private\n"
    "(lane) address space.\n"
    "\n"
    "example: amddwarf eval k.o --state wave.json --lanes 0-3 s.x\n";

#define MAX_PATH 16
#define MAX_VALUE_BYTES 65536

typedef enum step_kind { STEP_MEMBER, STEP_INDEX, STEP_ARROW } step_kind;

typedef struct step {
  step_kind kind;
  char name[64];
  uint64_t index;
} step;

typedef struct var_path {
  unsigned derefs;
  char name[128];
  step steps[MAX_PATH];
  size_t count;
} var_path;

static int parse_path(const char *text, var_path *p)
{
  memset(p, 0, sizeof *p);
  while (*text == '*') {
    p->derefs++;
    text++;
  }
  size_t n = 0;
  while (isalnum((unsigned char)text[n]) || text[n] == '_')
    ++n;
  if (n == 0 || n >= sizeof p->name)
    return -1;
  memcpy(p->name, text, n);
  text += n;
  while (*text) {
    if (p->count >= MAX_PATH)
      return -1;
    step *s = &p->steps[p->count++];
    if (*text == '.' || (text[0] == '-' && text[1] == '>')) {
      s->kind = *text == '.' ? STEP_MEMBER : STEP_ARROW;
      text += *text == '.' ? 1 : 2;
      n = 0;
      while (isalnum((unsigned char)text[n]) || text[n] == '_')
        ++n;
      if (n == 0 || n >= sizeof s->name)
        return -1;
      memcpy(s->name, text, n);
      text += n;
    } else if (*text == '[') {
      char *end = NULL;
      s->kind = STEP_INDEX;
      s->index = strtoull(text + 1, &end, 0);
      if (end == text + 1 || *end != ']')
        return -1;
      text = end + 1;
    } else {
      return -1;
    }
  }
  return 0;
}

/* ---- types ---- */

static const amddwarf_die_info *find_member(const amddwarf_die_info *type, const char *name)
{
  type = amddwarf_type_strip(type);
  if (type == NULL)
    return NULL;
  for (const amddwarf_die_info *m = type->first_child; m; m = m->next_sibling)
    if (m->tag == 0x0d /* DW_TAG_member */ && m->name && strcmp(m->name, name) == 0)
      return m;
  return NULL;
}

static uint64_t member_offset(const amddwarf_die_info *m)
{
  if (m->data_member_location && (m->data_member_location->kind == AMDDWARF_ATTR_UNSIGNED ||
                                  m->data_member_location->kind == AMDDWARF_ATTR_SIGNED))
    return m->data_member_location->u;
  return 0;
}

static const char *aspace_label(uint32_t aspace, char *buf, size_t size)
{
  if (amddwarf_aspace_name(aspace, buf, size) != AMDDWARF_OK)
    snprintf(buf, size, "aspace%u", aspace);
  return buf;
}

/* The address space a pointer type's values point into (legacy numbering for
   upstream clang units; DW_ADDR_AMDGPU_* for extension units). */
static uint32_t pointer_aspace(const amddwarf_cu *cu, const amddwarf_die_info *ptr)
{
  if (ptr->flags & AMDDWARF_DIE_HAS_ADDRESS_SPACE)
    return ptr->address_space;
  if (!(ptr->flags & AMDDWARF_DIE_HAS_ADDRESS_CLASS))
    return AMDDWARF_ASPACE_AMDGPU_GENERIC;
  if (cu->convention == AMDDWARF_CONVENTION_LEGACY) {
    uint32_t a = 0;
    if (amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_LEGACY, ptr->address_class, &a) == AMDDWARF_OK)
      return a == AMDDWARF_ASPACE_NONE ? AMDDWARF_ASPACE_AMDGPU_GENERIC : a;
    return AMDDWARF_ASPACE_AMDGPU_GENERIC;
  }
  amddwarf_address_class_info info;
  if (amddwarf_address_class_info_get(ptr->address_class, &info) == AMDDWARF_OK)
    return info.aspace;
  return AMDDWARF_ASPACE_AMDGPU_GENERIC;
}

/* ---- printing values ---- */

static uint64_t load_uint(const uint8_t *b, size_t n)
{
  uint64_t v = 0;
  for (size_t i = 0; i < n && i < 8; ++i)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

static void print_value(cli_buf *out, const amddwarf_object *o, const amddwarf_die_info *type,
                        const uint8_t *b, size_t size, int depth);

static void print_base(cli_buf *out, const amddwarf_die_info *t, const uint8_t *b, size_t size)
{
  size_t elem = t->vector_size > 1 ? size / t->vector_size : size;
  unsigned count = t->vector_size > 1 ? t->vector_size : 1;
  if (count > 1)
    cli_buf_printf(out, "{");
  for (unsigned i = 0; i < count; ++i) {
    const uint8_t *p = b + i * elem;
    uint64_t u = load_uint(p, elem);
    if (i)
      cli_buf_printf(out, ", ");
    switch (t->encoding) {
    case 0x04: /* float */
      if (elem == 4) {
        float f;
        memcpy(&f, p, 4);
        cli_buf_printf(out, "%g", (double)f);
      } else if (elem == 8) {
        double d;
        memcpy(&d, p, 8);
        cli_buf_printf(out, "%g", d);
      } else {
        cli_buf_printf(out, "0x%llx", (unsigned long long)u);
      }
      break;
    case 0x02: /* boolean */
      cli_buf_printf(out, "%s", u ? "true" : "false");
      break;
    case 0x05: /* signed */
    case 0x06: { /* signed_char */
      int64_t s = elem < 8 && (u >> (8 * elem - 1)) ? (int64_t)(u | (~0ull << (8 * elem))) : (int64_t)u;
      if (t->encoding == 0x06 && s >= 32 && s < 127)
        cli_buf_printf(out, "%lld '%c'", (long long)s, (int)s);
      else
        cli_buf_printf(out, "%lld", (long long)s);
      break;
    }
    case 0x08: /* unsigned_char */
      if (u >= 32 && u < 127)
        cli_buf_printf(out, "%llu '%c'", (unsigned long long)u, (int)u);
      else
        cli_buf_printf(out, "%llu", (unsigned long long)u);
      break;
    default:
      cli_buf_printf(out, "%llu", (unsigned long long)u);
      break;
    }
  }
  if (count > 1)
    cli_buf_printf(out, "}");
}

static void print_value(cli_buf *out, const amddwarf_object *o, const amddwarf_die_info *type,
                        const uint8_t *b, size_t size, int depth)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type);
  char name[256];
  if (t == NULL || depth > 8) {
    cli_buf_printf(out, "<no type>");
    return;
  }
  switch (t->tag) {
  case 0x24: /* base_type */
    print_base(out, t, b, size);
    return;
  case 0x04: { /* enumeration_type */
    uint64_t u = load_uint(b, size);
    for (const amddwarf_die_info *e = t->first_child; e; e = e->next_sibling)
      if (e->const_value && e->const_value->u == u && e->name) {
        cli_buf_printf(out, "%s", e->name);
        return;
      }
    cli_buf_printf(out, "%llu", (unsigned long long)u);
    return;
  }
  case 0x0f: /* pointer_type */
  case 0x10: /* reference_type */ {
    char as[32];
    const amddwarf_cu *cu = amddwarf_object_cu(o, t->cu_index);
    amddwarf_type_name(o, t, name, sizeof name, NULL);
    cli_buf_printf(out, "(%s) 0x%llx", name, (unsigned long long)load_uint(b, size));
    uint32_t a = pointer_aspace(cu, t);
    if (a != AMDDWARF_ASPACE_AMDGPU_GENERIC)
      cli_buf_printf(out, " [%s]", aspace_label(a, as, sizeof as));
    return;
  }
  case 0x13: /* structure_type */
  case 0x17: /* union_type */
  case 0x02: { /* class_type */
    int first = 1;
    cli_buf_printf(out, "{");
    for (const amddwarf_die_info *m = t->first_child; m; m = m->next_sibling) {
      uint64_t msize = 0;
      if (m->tag != 0x0d)
        continue;
      uint64_t off = member_offset(m);
      if (amddwarf_type_byte_size(o, m->type, &msize) != AMDDWARF_OK || off + msize > size)
        continue;
      cli_buf_printf(out, "%s%s = ", first ? "" : ", ", m->name ? m->name : "?");
      print_value(out, o, m->type, b + off, (size_t)msize, depth + 1);
      first = 0;
    }
    cli_buf_printf(out, "}");
    return;
  }
  case 0x01: { /* array_type */
    uint64_t esize = 0;
    if (amddwarf_type_byte_size(o, t->type, &esize) != AMDDWARF_OK || esize == 0) {
      cli_buf_printf(out, "<array of unknown element size>");
      return;
    }
    /* Nested dimensions print as nested braces by the row size. */
    uint64_t row = esize, count0 = 0;
    int dims = 0;
    for (const amddwarf_die_info *s = t->first_child; s; s = s->next_sibling)
      if (s->tag == 0x21)
        ++dims;
    uint64_t total = 0;
    if (amddwarf_type_byte_size(o, t, &total) != AMDDWARF_OK)
      total = size;
    count0 = total / (dims > 1 ? total / (t->first_child && t->first_child->count ?
                                          t->first_child->count->u : 1) : esize);
    if (dims > 1)
      row = total / (count0 ? count0 : 1);
    cli_buf_printf(out, "{");
    for (uint64_t i = 0; i < count0 && (i + 1) * row <= size; ++i) {
      if (i)
        cli_buf_printf(out, ", ");
      if (i >= 64) {
        cli_buf_printf(out, "...");
        break;
      }
      if (dims > 1) {
        /* print one row as a flat list of elements */
        cli_buf_printf(out, "{");
        for (uint64_t j = 0; j < row / esize; ++j) {
          if (j)
            cli_buf_printf(out, ", ");
          print_value(out, o, t->type, b + i * row + j * esize, (size_t)esize, depth + 1);
        }
        cli_buf_printf(out, "}");
      } else {
        print_value(out, o, t->type, b + i * esize, (size_t)esize, depth + 1);
      }
    }
    cli_buf_printf(out, "}");
    return;
  }
  default:
    for (size_t i = 0; i < size && i < 64; ++i)
      cli_buf_printf(out, "%s%02x", i ? " " : "0x", b[i]);
    return;
  }
}

/* ---- one lane ---- */

typedef struct lane_result {
  amddwarf_status status;
  char message[256];
  cli_buf text;
  cli_buf explain;
} lane_result;

static void explain_location(cli_buf *b, const amddwarf_location *loc, uint64_t extra_bits)
{
  char as[32], reg[32];
  switch (loc->kind) {
  case AMDDWARF_LOCATION_MEMORY:
    cli_buf_printf(b, "memory %s 0x%llx", aspace_label(loc->u.memory.aspace, as, sizeof as),
                   (unsigned long long)(loc->byte_offset + extra_bits / 8));
    break;
  case AMDDWARF_LOCATION_REGISTER:
    amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, reg, sizeof reg);
    cli_buf_printf(b, "register %s bit %llu", reg,
                   (unsigned long long)(loc->byte_offset * 8 + loc->bit + extra_bits));
    break;
  case AMDDWARF_LOCATION_IMPLICIT:
    cli_buf_printf(b, "implicit value (%llu bits)", (unsigned long long)loc->u.implicit.bit_size);
    break;
  case AMDDWARF_LOCATION_UNDEFINED:
    cli_buf_printf(b, "undefined");
    break;
  case AMDDWARF_LOCATION_COMPOSITE:
    cli_buf_printf(b, "composite of %u parts:", loc->u.composite.count);
    for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
      cli_buf_printf(b, " [%llu bits: ", (unsigned long long)loc->u.composite.parts[i].bit_size);
      explain_location(b, &loc->u.composite.parts[i].location, 0);
      cli_buf_printf(b, "]");
    }
    break;
  default:
    cli_buf_printf(b, "%s", amddwarf_location_kind_name(loc->kind));
    break;
  }
}

static void lane_fail(lane_result *r, amddwarf_status st, const amddwarf_error *err)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s",
           err && err->message[0] ? err->message : amddwarf_status_message(st));
}

static void eval_lane(const amddwarf_object *o, const amddwarf_var *var, const var_path *path,
                      amddwarf_eval *ev, amddwarf_eval_request *req, cli_eval_ctx *ctx,
                      lane_result *r)
{
  amddwarf_error err;
  amddwarf_entry result;
  const amddwarf_cu *cu = amddwarf_object_cu(o, var->die->cu_index);
  const amddwarf_die_info *type = var->die->type;
  uint8_t expr[512];
  size_t expr_size = 0;
  amddwarf_location loc;
  uint64_t bit = 0;
  amddwarf_error_clear(&err);
  if (var->die->const_value != NULL) {
    uint64_t size = 0;
    uint8_t bytes[16] = {0};
    const amddwarf_attr_value *cv = var->die->const_value;
    if (amddwarf_type_byte_size(o, type, &size) != AMDDWARF_OK || size > 8 || path->count ||
        path->derefs) {
      lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
      snprintf(r->message, sizeof r->message, "paths into a DW_AT_const_value");
      return;
    }
    for (size_t i = 0; i < 8; ++i)
      bytes[i] = (uint8_t)(cv->u >> (8 * i));
    print_value(&r->text, o, type, cv->kind == AMDDWARF_ATTR_BLOCK && cv->bytes ? cv->bytes : bytes,
                (size_t)size, 0);
    cli_buf_printf(&r->explain, "DW_AT_const_value");
    return;
  }
  if (!var->available || var->size == 0) {
    r->status = AMDDWARF_E_EVAL_OPTIMIZED_OUT;
    snprintf(r->message, sizeof r->message, "no location at this pc");
    return;
  }
  amddwarf_status st = amddwarf_object_normalize_expr(o, cu, AMDDWARF_ROLE_LOCATION, var->expr,
                                                      var->size, expr, sizeof expr, &expr_size,
                                                      &err);
  if (st == AMDDWARF_OK)
    st = amddwarf_eval_expr(ev, req, expr, expr_size, &result, &err);
  if (st != AMDDWARF_OK) {
    lane_fail(r, st, &err);
    return;
  }
  if (result.kind != AMDDWARF_ENTRY_LOCATION) {
    lane_fail(r, AMDDWARF_E_EVAL_NOT_LOCATION, NULL);
    return;
  }
  loc = result.location;
  /* Dereferences and paths. */
  for (size_t i = 0; i <= path->count; ++i) {
    const step *s = i < path->count ? &path->steps[i] : NULL;
    int deref = (s && s->kind == STEP_ARROW) ||
                (s && s->kind == STEP_INDEX && amddwarf_type_strip(type) &&
                 amddwarf_type_strip(type)->tag == 0x0f) ||
                (!s && path->derefs);
    if (deref) {
      const amddwarf_die_info *pt = amddwarf_type_strip(type);
      uint64_t psize = 8;
      uint8_t pbuf[8] = {0};
      if (pt == NULL || (pt->tag != 0x0f && pt->tag != 0x10)) {
        lane_fail(r, AMDDWARF_E_INVALID_ARGUMENT, NULL);
        snprintf(r->message, sizeof r->message, "not a pointer");
        return;
      }
      amddwarf_type_byte_size(o, pt, &psize);
      st = amddwarf_location_read(ev, req, &loc, bit, psize * 8, pbuf, &err);
      if (st != AMDDWARF_OK) {
        lane_fail(r, st, &err);
        return;
      }
      memset(&loc, 0, sizeof loc);
      loc.kind = AMDDWARF_LOCATION_MEMORY;
      loc.byte_offset = load_uint(pbuf, (size_t)psize);
      loc.u.memory.aspace = pointer_aspace(cu, pt);
      bit = 0;
      type = pt->type;
      if (!s && path->derefs > 1) {
        lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
        snprintf(r->message, sizeof r->message, "more than one leading '*'");
        return;
      }
    }
    if (s == NULL)
      break;
    if (s->kind == STEP_MEMBER || s->kind == STEP_ARROW) {
      const amddwarf_die_info *m = find_member(type, s->name);
      if (m == NULL) {
        lane_fail(r, AMDDWARF_NOT_FOUND, NULL);
        snprintf(r->message, sizeof r->message, "no member '%s'", s->name);
        return;
      }
      bit += member_offset(m) * 8;
      type = m->type;
    } else if (deref) {
      /* p[i]: P was dereferenced above; step to element I. */
      uint64_t esize = 0;
      if (amddwarf_type_byte_size(o, type, &esize) != AMDDWARF_OK) {
        lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
        snprintf(r->message, sizeof r->message, "pointee size unknown");
        return;
      }
      bit += s->index * esize * 8;
    } else {
      const amddwarf_die_info *at = amddwarf_type_strip(type);
      uint64_t esize = 0, total = 0, n0 = 0;
      if (at != NULL && at->tag == 0x01) {
        if (amddwarf_type_byte_size(o, at->type, &esize) != AMDDWARF_OK) {
          lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
          snprintf(r->message, sizeof r->message, "array element size unknown");
          return;
        }
        /* One dimension at a time: the stride is the size of the rest. */
        const amddwarf_die_info *first = at->first_child;
        if (amddwarf_type_byte_size(o, at, &total) == AMDDWARF_OK && first && first->count &&
            first->count->u)
          n0 = first->count->u;
        uint64_t stride = n0 ? total / n0 : esize;
        if (n0 && s->index >= n0) {
          lane_fail(r, AMDDWARF_E_INVALID_ARGUMENT, NULL);
          snprintf(r->message, sizeof r->message, "index %llu is past the %llu elements",
                   (unsigned long long)s->index, (unsigned long long)n0);
          return;
        }
        bit += s->index * stride * 8;
        type = stride == esize ? at->type : at; /* multi-dimensional: keep the array */
        if (stride != esize) {
          lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
          snprintf(r->message, sizeof r->message, "indexing a multi-dimensional array");
          return;
        }
      } else {
        lane_fail(r, AMDDWARF_E_INVALID_ARGUMENT, NULL);
        snprintf(r->message, sizeof r->message, "not an array or pointer");
        return;
      }
    }
  }
  uint64_t size = 0;
  if (amddwarf_type_byte_size(o, type, &size) != AMDDWARF_OK || size == 0 ||
      size > MAX_VALUE_BYTES) {
    lane_fail(r, AMDDWARF_E_UNSUPPORTED, NULL);
    snprintf(r->message, sizeof r->message, "the type has no known size");
    return;
  }
  explain_location(&r->explain, &loc, bit);
  uint8_t *buf = calloc(1, (size_t)size);
  if (buf == NULL) {
    lane_fail(r, AMDDWARF_E_NO_MEMORY, NULL);
    return;
  }
  st = amddwarf_location_read(ev, req, &loc, bit, size * 8, buf, &err);
  if (st != AMDDWARF_OK)
    lane_fail(r, st, &err);
  else
    print_value(&r->text, o, type, buf, (size_t)size, 0);
  free(buf);
  (void)ctx;
}

static const char *status_text(amddwarf_status st)
{
  if (st == AMDDWARF_E_EVAL_OPTIMIZED_OUT)
    return "<optimized out>";
  if (st == AMDDWARF_E_EVAL_UNAVAILABLE)
    return "<unavailable>";
  return NULL;
}

static int parse_lanes(const char *text, unsigned wave, uint64_t *mask)
{
  *mask = 0;
  if (strcmp(text, "all") == 0) {
    *mask = wave >= 64 ? ~0ull : ((1ull << wave) - 1);
    return 0;
  }
  while (*text) {
    char *end = NULL;
    unsigned long a = strtoul(text, &end, 10), b = a;
    if (end == text)
      return -1;
    if (*end == '-') {
      const char *t2 = end + 1;
      b = strtoul(t2, &end, 10);
      if (end == t2)
        return -1;
    }
    if (a > b || b >= wave)
      return -1;
    for (unsigned long l = a; l <= b; ++l)
      *mask |= 1ull << l;
    if (*end == ',')
      ++end;
    else if (*end)
      return -1;
    text = end;
  }
  return *mask ? 0 : -1;
}

int cli_eval_main(int argc, char **argv)
{
  cli_object_args args = {0};
  const char *state = NULL, *pc_text = NULL, *lane_text = NULL, *lanes_text = NULL, *expr = NULL;
  bool explain = false, trace = trace_env_enabled(), stats = false;
  for (int i = 1; i < argc; ++i) {
    int rc, taken = cli_object_arg("eval", usage, argc, argv, &i, &args);
    if (taken == CLI_ARG_TAKEN)
      continue;
    if (taken != CLI_ARG_NONE)
      return taken == CLI_ARG_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (cli_is_flag(argv[i], "--explain")) {
      explain = true;
      continue;
    }
    if (cli_is_flag(argv[i], "--trace") || cli_is_flag(argv[i], "--stats")) {
      *(cli_is_flag(argv[i], "--trace") ? &trace : &stats) = true;
      continue;
    }
    if ((rc = cli_option_value("eval", argc, argv, &i, "--state", &state)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--pc", &pc_text)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lane", &lane_text)) != 0 ||
        (rc = cli_option_value("eval", argc, argv, &i, "--lanes", &lanes_text)) != 0) {
      if (rc < 0)
        return CLI_EXIT_USAGE;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0' && argv[i][1] != '>')
      return cli_usage_error("eval", "unknown option '%s'", argv[i]);
    if (args.path == NULL)
      args.path = argv[i];
    else if (expr == NULL)
      expr = argv[i];
    else
      return cli_usage_error("eval", "unexpected argument '%s'", argv[i]);
  }
  var_path path;
  if (args.path == NULL || expr == NULL)
    return cli_usage_error("eval", "missing OBJECT or EXPR");
  if (state == NULL)
    return cli_usage_error("eval", "missing --state SNAPSHOT");
  if (lane_text && lanes_text)
    return cli_usage_error("eval", "--lane and --lanes exclude each other");
  if (parse_path(expr, &path) != 0)
    return cli_usage_error("eval", "cannot parse '%s' (NAME, .MEMBER, [INDEX], ->MEMBER, *NAME)",
                           expr);
  uint8_t *state_data = NULL;
  size_t state_size = 0;
  if (cli_read_file("eval", state, &state_data, &state_size) != 0)
    return CLI_EXIT_BAD_INPUT;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_snapshot *snap = NULL;
  amddwarf_status st = amddwarf_snapshot_load((const char *)state_data, state_size, NULL, &snap, &err);
  free(state_data);
  if (st != AMDDWARF_OK)
    return cli_report_error("eval", args.json, st, &err);
  amddwarf_object *object = NULL;
  int rc = cli_object_open("eval", &args, &object);
  amddwarf_eval *ev = NULL;
  amddwarf_var *vars = NULL;
  lane_result *results = NULL;
  if (rc != 0)
    goto cleanup;
  cli_eval_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  amddwarf_snapshot_target(snap, &ctx.snap);
  ctx.object = object;
  uint64_t pc = 0;
  if (pc_text != NULL) {
    if (cli_parse_u64(pc_text, &pc) != 0) {
      rc = cli_usage_error("eval", "--pc '%s' is not a number", pc_text);
      goto cleanup;
    }
  } else if (ctx.snap.read_register(ctx.snap.user, 16, 0, 8, &pc) != AMDDWARF_OK) {
    rc = cli_usage_error("eval", "the snapshot has no pc: give --pc");
    goto cleanup;
  }
  size_t count = 0;
  amddwarf_status found = amddwarf_object_vars_at(object, pc, NULL, 0, &count);
  if (found != AMDDWARF_OK) {
    rc = cli_report_no_scope("eval", args.json, object, args.path, pc, found);
    goto cleanup;
  }
  vars = calloc(count ? count : 1, sizeof *vars);
  if (vars == NULL) {
    rc = cli_report_error("eval", args.json, AMDDWARF_E_NO_MEMORY, NULL);
    goto cleanup;
  }
  amddwarf_object_vars_at(object, pc, vars, count, &count);
  const amddwarf_var *var = NULL;
  for (size_t i = 0; i < count && var == NULL; ++i)
    if (vars[i].die->name && strcmp(vars[i].die->name, path.name) == 0)
      var = &vars[i];
  if (var == NULL) {
    err.status = AMDDWARF_NOT_FOUND;
    snprintf(err.message, sizeof err.message, "no variable '%s' in scope at pc 0x%llx",
             path.name, (unsigned long long)pc);
    rc = cli_report_error("eval", args.json, AMDDWARF_NOT_FOUND, &err);
    goto cleanup;
  }
  ctx.cu = amddwarf_object_cu(object, var->die->cu_index);
  /* The frame base of the subprogram that contains the variable. */
  for (const amddwarf_die_info *s = var->scope; s != NULL; s = s->parent) {
    const uint8_t *fb = NULL;
    size_t fbs = 0;
    if (s->tag == 0x2e && s->frame_base != NULL &&
        amddwarf_attr_value_expr_at(s->frame_base, pc, &fb, &fbs, NULL) == AMDDWARF_OK &&
        amddwarf_object_normalize_expr(object, ctx.cu, AMDDWARF_ROLE_FRAME_BASE, fb, fbs,
                                       ctx.frame_base, sizeof ctx.frame_base,
                                       &ctx.frame_base_size, NULL) == AMDDWARF_OK) {
      ctx.has_frame_base = 1;
      break;
    }
  }
  amddwarf_target target;
  ctx.pc = pc;
  cli_eval_target_init(&ctx, &target);
  if ((st = amddwarf_eval_new(NULL, &ev, &err)) != AMDDWARF_OK) {
    rc = cli_report_error("eval", args.json, st, &err);
    goto cleanup;
  }
  unsigned wave = amddwarf_snapshot_wave_size(snap);
  uint64_t mask = 0;
  if (lanes_text != NULL) {
    if (parse_lanes(lanes_text, wave, &mask) != 0) {
      rc = cli_usage_error("eval", "--lanes '%s': all, or lanes below %u like 0,2,5-7",
                           lanes_text, wave);
      goto cleanup;
    }
  } else {
    uint64_t lane = amddwarf_snapshot_lane(snap);
    if (lane_text != NULL && (cli_parse_u64(lane_text, &lane) != 0 || lane >= wave)) {
      rc = cli_usage_error("eval", "--lane '%s' is not a lane below %u", lane_text, wave);
      goto cleanup;
    }
    mask = 1ull << lane;
  }
  results = calloc(64, sizeof *results);
  if (results == NULL) {
    rc = cli_report_error("eval", args.json, AMDDWARF_E_NO_MEMORY, NULL);
    goto cleanup;
  }
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &target);
  req.format = ctx.cu->format;
  req.format.dialect = ctx.cu->convention == AMDDWARF_CONVENTION_LEGACY ? AMDDWARF_DIALECT_USER
                                                                         : ctx.cu->format.dialect;
  req.required = AMDDWARF_RESULT_LOCATION;
  req.xderef = AMDDWARF_XDEREF_DWARF;
  trace_printer tp;
  trace_printer_init(&tp, stderr, &req.format, trace);
  if (trace || stats)
    trace_printer_attach(&tp, &req);
  char type_name[256];
  amddwarf_type_name(object, var->die->type, type_name, sizeof type_name, NULL);
  for (unsigned lane = 0; lane < 64; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    req.lane = lane;
    if (trace)
      fprintf(stderr, "lane %u:\n", lane);
    trace_phase_begin(&tp, "evaluate and read");
    eval_lane(object, var, &path, ev, &req, &ctx, &results[lane]);
    trace_phase_end(&tp);
  }
  if (stats)
    trace_print_stats(&tp, stderr);
  json_t *root = args.json ? json_object() : NULL;
  json_t *jl = args.json ? json_array() : NULL;
  bool multi = (mask & (mask - 1)) != 0;
  int failures = 0;
  if (root) {
    json_object_set_new(root, "pc", cli_json_addr(pc));
    json_object_set_new(root, "expression", json_string(expr));
    json_object_set_new(root, "variable", cli_json_addr(var->die->offset));
    json_object_set_new(root, "type", json_string(type_name));
  } else if (multi) {
    printf("%s (%s) at pc 0x%llx\nlane  value\n", expr, type_name, (unsigned long long)pc);
  }
  for (unsigned lane = 0; lane < 64; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    lane_result *r = &results[lane];
    const char *special = r->status != AMDDWARF_OK ? status_text(r->status) : NULL;
    if (r->status != AMDDWARF_OK && special == NULL)
      ++failures;
    if (root) {
      json_t *o = json_object();
      json_object_set_new(o, "lane", json_integer(lane));
      if (r->status == AMDDWARF_OK)
        json_object_set_new(o, "value", json_string(r->text.data ? r->text.data : ""));
      else
        json_object_set_new(o, "status", json_string(amddwarf_status_name(r->status)));
      if (r->status != AMDDWARF_OK)
        json_object_set_new(o, "message", json_string(r->message));
      if (r->explain.data)
        json_object_set_new(o, "location", json_string(r->explain.data));
      json_array_append_new(jl, o);
    } else {
      const char *shown = r->status == AMDDWARF_OK ? (r->text.data ? r->text.data : "")
                          : special ? special : r->message;
      if (multi)
        printf("%4u  %s", lane, shown);
      else
        printf("%s = %s", expr, shown);
      if (r->status != AMDDWARF_OK && special == NULL)
        printf(" (%s)", amddwarf_status_name(r->status));
      if (explain && r->explain.data)
        printf("    [%s]", r->explain.data);
      printf("\n");
    }
  }
  if (root) {
    json_object_set_new(root, "lanes", jl);
    cli_print_json(root);
  }
  rc = failures ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
cleanup:
  if (results != NULL) {
    for (unsigned l = 0; l < 64; ++l) {
      cli_buf_free(&results[l].text);
      cli_buf_free(&results[l].explain);
    }
    free(results);
  }
  free(vars);
  amddwarf_eval_free(ev);
  amddwarf_object_close(object);
  amddwarf_snapshot_free(snap);
  return rc;
}
