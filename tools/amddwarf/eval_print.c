/* Printing values by type for `amddwarf eval` (eval_print.h). Scalars go
 * through a table by DW_ATE_* encoding, everything else by DW_TAG_*. */
#include "eval_print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
  MAX_DEPTH = 16,        /* nested aggregates printed before "{...}" */
  MAX_ELEMENTS = 64,     /* array elements printed per dimension before "..." */
};

uint64_t eval_load_uint(const uint8_t *bytes, size_t size)
{
  uint64_t v = 0;
  for (size_t i = 0; i < size && i < 8; ++i)
    v |= (uint64_t)bytes[i] << (8 * i);
  return v;
}

const char *eval_aspace_label(uint32_t aspace, char *buf, size_t size)
{
  if (amddwarf_aspace_name(aspace, buf, size) != AMDDWARF_OK)
    snprintf(buf, size, "aspace%u", aspace);
  return buf;
}

void eval_print_pointer(cli_buf *out, const char *type_name, uint32_t aspace, uint64_t address)
{
  char label[32];
  cli_buf_printf(out, "(%s) 0x%llx", type_name, (unsigned long long)address);
  if (aspace != AMDDWARF_ASPACE_AMDGPU_GENERIC)
    cli_buf_printf(out, " [%s]", eval_aspace_label(aspace, label, sizeof label));
}

/* ---- scalars by encoding ---- */

static void print_hex(cli_buf *out, const uint8_t *b, size_t size)
{
  cli_buf_printf(out, "0x");
  for (size_t i = size; i-- > 0;)
    cli_buf_printf(out, "%02x", b[i]);
}

/* IEEE binary16 to double. */
static double half_to_double(uint16_t h)
{
  int exponent = (h >> 10) & 0x1f;
  double mantissa = h & 0x3ff;
  double v = exponent == 0    ? ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? NAN : INFINITY)
                              : ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

static void print_float(cli_buf *out, const uint8_t *b, size_t size)
{
  if (size == 4) {
    float f;
    memcpy(&f, b, 4);
    cli_buf_printf(out, "%.9g", (double)f);
  } else if (size == 8) {
    double d;
    memcpy(&d, b, 8);
    cli_buf_printf(out, "%.17g", d);
  } else if (size == 2) {
    cli_buf_printf(out, "%.5g", half_to_double((uint16_t)eval_load_uint(b, 2)));
  } else {
    print_hex(out, b, size);
  }
}

static void print_signed(cli_buf *out, const uint8_t *b, size_t size)
{
  if (size > 8) {
    print_hex(out, b, size);
    return;
  }
  cli_buf_printf(out, "%lld", (long long)eval_extend_bits(eval_load_uint(b, size), size * 8, 1));
}

static void print_unsigned(cli_buf *out, const uint8_t *b, size_t size)
{
  if (size > 8) {
    print_hex(out, b, size);
    return;
  }
  cli_buf_printf(out, "%llu", (unsigned long long)eval_load_uint(b, size));
}

static void print_bool(cli_buf *out, const uint8_t *b, size_t size)
{
  uint64_t v = eval_load_uint(b, size);
  if (v <= 1)
    cli_buf_printf(out, "%s", v ? "true" : "false");
  else
    cli_buf_printf(out, "%llu", (unsigned long long)v);
}

/* A character as C writes it: 'A', '\n', '\0', '\377'. */
static void print_char_literal(cli_buf *out, uint64_t c)
{
  static const char escapes[][2] = {{'\a', 'a'}, {'\b', 'b'}, {'\f', 'f'}, {'\n', 'n'},
                                    {'\r', 'r'}, {'\t', 't'}, {'\v', 'v'}, {'\\', '\\'},
                                    {'\'', '\''}};
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; ++i)
    if (c == (unsigned char)escapes[i][0]) {
      cli_buf_printf(out, "'\\%c'", escapes[i][1]);
      return;
    }
  if (c >= 0x20 && c < 0x7f)
    cli_buf_printf(out, "'%c'", (int)c);
  else
    cli_buf_printf(out, "'\\%o'", (unsigned)(c & 0xff));
}

static void print_signed_char(cli_buf *out, const uint8_t *b, size_t size)
{
  print_signed(out, b, size);
  if (size == 1) {
    cli_buf_printf(out, " ");
    print_char_literal(out, b[0]);
  }
}

static void print_unsigned_char(cli_buf *out, const uint8_t *b, size_t size)
{
  print_unsigned(out, b, size);
  if (size == 1) {
    cli_buf_printf(out, " ");
    print_char_literal(out, b[0]);
  }
}

static void print_address(cli_buf *out, const uint8_t *b, size_t size)
{
  cli_buf_printf(out, "0x%llx", (unsigned long long)eval_load_uint(b, size));
}

typedef void (*scalar_printer)(cli_buf *out, const uint8_t *b, size_t size);

/* DW_ATE_* -> printer; encodings not listed print in hex. */
static const struct {
  uint32_t encoding;
  scalar_printer print;
} scalar_printers[] = {
    {0x01, print_address},       /* DW_ATE_address */
    {0x02, print_bool},          /* DW_ATE_boolean */
    {0x04, print_float},         /* DW_ATE_float */
    {0x05, print_signed},        /* DW_ATE_signed */
    {0x06, print_signed_char},   /* DW_ATE_signed_char */
    {0x07, print_unsigned},      /* DW_ATE_unsigned */
    {0x08, print_unsigned_char}, /* DW_ATE_unsigned_char */
    {0x0d, print_signed},        /* DW_ATE_signed_fixed */
    {0x0e, print_unsigned},      /* DW_ATE_unsigned_fixed */
    {0x10, print_unsigned},      /* DW_ATE_UTF */
};

static void print_base(cli_buf *out, const amddwarf_die_info *t, const uint8_t *b, size_t size)
{
  scalar_printer print = print_hex;
  unsigned count = t->vector_size > 1 ? t->vector_size : 1; /* DW_AT_LLVM_vector_size */
  size_t elem = size / count;
  for (size_t i = 0; i < sizeof scalar_printers / sizeof scalar_printers[0]; ++i)
    if (scalar_printers[i].encoding == t->encoding)
      print = scalar_printers[i].print;
  if (count > 1)
    cli_buf_printf(out, "{");
  for (unsigned i = 0; i < count; ++i) {
    if (i)
      cli_buf_printf(out, ", ");
    print(out, b + i * elem, elem);
  }
  if (count > 1)
    cli_buf_printf(out, "}");
}

/* ---- by tag ---- */

typedef struct printer {
  cli_buf *out;
  const amddwarf_object *object;
} printer;

static void print_typed(printer *p, eval_type type, const uint8_t *b, size_t size, int depth);

static void print_base_tag(printer *p, eval_type type, const uint8_t *b, size_t size, int depth)
{
  (void)depth;
  print_base(p->out, amddwarf_type_strip(type.die), b, size);
}

/* The enumerator whose value equals the value's SIZE low bytes, else the number. */
static void print_enum(printer *p, eval_type type, const uint8_t *b, size_t size, int depth)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  uint64_t bits = size >= 8 ? 64 : size * 8;
  uint64_t v = eval_load_uint(b, size);
  (void)depth;
  for (const amddwarf_die_info *e = t->first_child; e; e = e->next_sibling)
    if (e->const_value && e->name && eval_extend_bits(e->const_value->u, bits, 0) == v) {
      cli_buf_printf(p->out, "%s", e->name);
      return;
    }
  if (eval_type_is_signed(t))
    cli_buf_printf(p->out, "%lld", (long long)eval_extend_bits(v, bits, 1));
  else
    cli_buf_printf(p->out, "%llu", (unsigned long long)v);
}

static void print_pointer_tag(printer *p, eval_type type, const uint8_t *b, size_t size,
                              int depth)
{
  char name[256];
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  (void)depth;
  eval_type_spell(p->object, type, name, sizeof name);
  eval_print_pointer(p->out, name, eval_pointer_aspace(p->object, t), eval_load_uint(b, size));
}

/* A bitfield: its bits, extended by its type's signedness, as a value of
   its type's size. */
static void print_bitfield(printer *p, const amddwarf_die_info *m, eval_member_layout layout,
                           const uint8_t *b, size_t size, int depth)
{
  uint8_t bytes[8];
  uint64_t v = 0, type_size = 0;
  if (eval_type_size(p->object, (eval_type){m->type, 0}, &type_size) != AMDDWARF_OK ||
      type_size > 8 || layout.bit_size > 64 || layout.bit_offset + layout.bit_size > size * 8) {
    cli_buf_printf(p->out, "<bitfield outside its struct>");
    return;
  }
  for (uint64_t i = 0; i < layout.bit_size; ++i) {
    uint64_t bit = layout.bit_offset + i;
    v |= (uint64_t)((b[bit / 8] >> (bit % 8)) & 1) << i;
  }
  v = eval_extend_bits(v, layout.bit_size, eval_type_is_signed(m->type));
  for (size_t i = 0; i < 8; ++i)
    bytes[i] = (uint8_t)(v >> (8 * i));
  print_typed(p, (eval_type){m->type, 0}, bytes, (size_t)type_size, depth + 1);
}

static void print_aggregate(printer *p, eval_type type, const uint8_t *b, size_t size, int depth)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  int first = 1;
  cli_buf_printf(p->out, "{");
  for (const amddwarf_die_info *m = t->first_child; m; m = m->next_sibling) {
    eval_member_layout layout;
    char message[256];
    uint64_t msize = 0;
    if ((m->tag != EVAL_TAG_MEMBER && m->tag != EVAL_TAG_INHERITANCE) ||
        (m->flags & AMDDWARF_DIE_DECLARATION))
      continue;
    cli_buf_printf(p->out, "%s", first ? "" : ", ");
    first = 0;
    if (m->tag == EVAL_TAG_INHERITANCE) {
      char base[256];
      amddwarf_type_name(p->object, m->type, base, sizeof base, NULL);
      cli_buf_printf(p->out, "<%s> = ", base);
    } else if (m->name) {
      cli_buf_printf(p->out, "%s = ", m->name);
    }
    if (eval_member_layout_get(p->object, m, &layout, message, sizeof message) != AMDDWARF_OK) {
      cli_buf_printf(p->out, "<%s>", message);
      continue;
    }
    if (layout.bit_size) {
      print_bitfield(p, m, layout, b, size, depth);
      continue;
    }
    if (eval_type_size(p->object, (eval_type){m->type, 0}, &msize) != AMDDWARF_OK ||
        layout.bit_offset % 8 || layout.bit_offset / 8 > size || msize > size - layout.bit_offset / 8) {
      cli_buf_printf(p->out, "<outside its struct>");
      continue;
    }
    print_typed(p, (eval_type){m->type, 0}, b + layout.bit_offset / 8, (size_t)msize, depth + 1);
  }
  cli_buf_printf(p->out, "}");
}

/* Dimension TYPE.dims_used of an array, each element a row of the
   dimensions after it. */
static void print_array(printer *p, eval_type type, const uint8_t *b, size_t size, int depth)
{
  const amddwarf_die_info *array = eval_type_array(type);
  eval_dim dims[EVAL_MAX_DIMS];
  uint64_t elem = 0;
  if (array == NULL) {
    cli_buf_printf(p->out, "<array without dimensions>");
    return;
  }
  size_t n = eval_array_dims(p->object, array, dims);
  eval_type row = {type.die, type.dims_used + 1};
  if (type.dims_used + 1 >= n)
    row = (eval_type){array->type, 0};
  if (eval_type_size(p->object, row, &elem) != AMDDWARF_OK || elem == 0) {
    cli_buf_printf(p->out, "<array of elements of unknown size>");
    return;
  }
  uint64_t count = dims[type.dims_used].known ? dims[type.dims_used].count : size / elem;
  cli_buf_printf(p->out, "{");
  for (uint64_t i = 0; i < count && (i + 1) * elem <= size; ++i) {
    if (i)
      cli_buf_printf(p->out, ", ");
    if (i >= MAX_ELEMENTS) {
      cli_buf_printf(p->out, "...");
      break;
    }
    print_typed(p, row, b + i * elem, (size_t)elem, depth + 1);
  }
  cli_buf_printf(p->out, "}");
}

typedef void (*typed_printer)(printer *p, eval_type type, const uint8_t *b, size_t size,
                              int depth);

/* DW_TAG_* of the stripped type -> printer; other tags print in hex. */
static const struct {
  uint16_t tag;
  typed_printer print;
} typed_printers[] = {
    {EVAL_TAG_BASE, print_base_tag},
    {EVAL_TAG_ENUMERATION, print_enum},
    {EVAL_TAG_POINTER, print_pointer_tag},
    {EVAL_TAG_REFERENCE, print_pointer_tag},
    {EVAL_TAG_RVALUE_REFERENCE, print_pointer_tag},
    {EVAL_TAG_STRUCTURE, print_aggregate},
    {EVAL_TAG_UNION, print_aggregate},
    {EVAL_TAG_CLASS, print_aggregate},
    {EVAL_TAG_ARRAY, print_array},
};

static void print_typed(printer *p, eval_type type, const uint8_t *b, size_t size, int depth)
{
  const amddwarf_die_info *t = amddwarf_type_strip(type.die);
  if (t == NULL) {
    cli_buf_printf(p->out, "<no type>");
    return;
  }
  if (depth > MAX_DEPTH) {
    cli_buf_printf(p->out, "{...}");
    return;
  }
  for (size_t i = 0; i < sizeof typed_printers / sizeof typed_printers[0]; ++i)
    if (typed_printers[i].tag == t->tag) {
      typed_printers[i].print(p, type, b, size, depth);
      return;
    }
  print_hex(p->out, b, size);
}

void eval_print_value(cli_buf *out, const amddwarf_object *object, eval_type type,
                      const uint8_t *bytes, size_t size)
{
  printer p = {out, object};
  print_typed(&p, type, bytes, size, 0);
}
