/* Text of values (format.h). Scalars go through a table by DW_ATE_*
 * encoding, everything else through a table by DW_TAG_*. */
#include "debug/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <amddwarf/debug.h>
#include <amddwarf/expr.h>

#include <amddwarf/dwarf.h>

enum {
  MAX_DEPTH = 16,    /* nested aggregates printed before "{...}" */
  MAX_ELEMENTS = 64, /* array elements printed per dimension before "..." */
};

static const char optimized_out[] = "<optimized out>";

int amddwarf__debug_bits_valid(const uint8_t *valid, uint64_t first, uint64_t bits)
{
  for (uint64_t i = first; valid != NULL && i < first + bits; ++i)
    if (!((valid[i / 8] >> (i % 8)) & 1))
      return 0;
  return 1;
}

const char *amddwarf__debug_aspace_label(uint32_t aspace, char *buf, size_t size)
{
  if (amddwarf_aspace_name(aspace, buf, size) != AMDDWARF_OK)
    snprintf(buf, size, "aspace%u", aspace);
  return buf;
}

void amddwarf__debug_format_pointer(amddwarf_text *out, const char *type_name, uint32_t aspace,
                                   uint64_t address)
{
  char label[32];
  amddwarf__text_printf(out, "(%s) 0x%llx", type_name, (unsigned long long)address);
  if (aspace != AMDDWARF_ASPACE_AMDGPU_GENERIC)
    amddwarf__text_printf(out, " [%s]", amddwarf__debug_aspace_label(aspace, label, sizeof label));
}

/* ---- scalars by encoding ---- */

static void print_hex(amddwarf_text *out, const uint8_t *b, size_t size)
{
  amddwarf__text_printf(out, "0x");
  for (size_t i = size; i-- > 0;)
    amddwarf__text_printf(out, "%02x", b[i]);
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

static void print_float(amddwarf_text *out, const uint8_t *b, size_t size)
{
  if (size == 4) {
    float f;
    memcpy(&f, b, 4);
    amddwarf__text_printf(out, "%.9g", (double)f);
  } else if (size == 8) {
    double d;
    memcpy(&d, b, 8);
    amddwarf__text_printf(out, "%.17g", d);
  } else if (size == 2) {
    amddwarf__text_printf(out, "%.5g", half_to_double((uint16_t)amddwarf__debug_load_uint(b, 2)));
  } else {
    print_hex(out, b, size);
  }
}

static void print_signed(amddwarf_text *out, const uint8_t *b, size_t size)
{
  if (size > 8) {
    print_hex(out, b, size);
    return;
  }
  amddwarf__text_int(
      out, (int64_t)amddwarf__debug_extend_bits(amddwarf__debug_load_uint(b, size), size * 8, 1));
}

static void print_unsigned(amddwarf_text *out, const uint8_t *b, size_t size)
{
  if (size > 8) {
    print_hex(out, b, size);
    return;
  }
  amddwarf__text_uint(out, amddwarf__debug_load_uint(b, size));
}

static void print_bool(amddwarf_text *out, const uint8_t *b, size_t size)
{
  uint64_t v = amddwarf__debug_load_uint(b, size);
  if (v <= 1)
    amddwarf__text_printf(out, "%s", v ? "true" : "false");
  else
    amddwarf__text_uint(out, v);
}

/* A character as C writes it: 'A', '\n', '\0', '\377'. */
static void print_char_literal(amddwarf_text *out, uint64_t c)
{
  static const char escapes[][2] = {{'\a', 'a'}, {'\b', 'b'}, {'\f', 'f'}, {'\n', 'n'},
                                    {'\r', 'r'}, {'\t', 't'}, {'\v', 'v'}, {'\\', '\\'},
                                    {'\'', '\''}};
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; ++i)
    if (c == (unsigned char)escapes[i][0]) {
      amddwarf__text_printf(out, "'\\%c'", escapes[i][1]);
      return;
    }
  if (c >= 0x20 && c < 0x7f)
    amddwarf__text_printf(out, "'%c'", (int)c);
  else
    amddwarf__text_printf(out, "'\\%o'", (unsigned)(c & 0xff));
}

static void print_signed_char(amddwarf_text *out, const uint8_t *b, size_t size)
{
  print_signed(out, b, size);
  if (size == 1) {
    amddwarf__text_printf(out, " ");
    print_char_literal(out, b[0]);
  }
}

static void print_unsigned_char(amddwarf_text *out, const uint8_t *b, size_t size)
{
  print_unsigned(out, b, size);
  if (size == 1) {
    amddwarf__text_printf(out, " ");
    print_char_literal(out, b[0]);
  }
}

static void print_address(amddwarf_text *out, const uint8_t *b, size_t size)
{
  amddwarf__text_printf(out, "0x%llx", (unsigned long long)amddwarf__debug_load_uint(b, size));
}

typedef void (*scalar_printer)(amddwarf_text *out, const uint8_t *b, size_t size);

/* DW_ATE_* -> printer; encodings not listed print in hex. */
static const struct {
  uint32_t encoding;
  scalar_printer print;
} scalar_printers[] = {
    {AMDDWARF_ATE_ADDRESS, print_address},
    {AMDDWARF_ATE_BOOLEAN, print_bool},
    {AMDDWARF_ATE_FLOAT, print_float},
    {AMDDWARF_ATE_SIGNED, print_signed},
    {AMDDWARF_ATE_SIGNED_CHAR, print_signed_char},
    {AMDDWARF_ATE_UNSIGNED, print_unsigned},
    {AMDDWARF_ATE_UNSIGNED_CHAR, print_unsigned_char},
    {AMDDWARF_DW_ATE_signed_fixed, print_signed},
    {AMDDWARF_DW_ATE_unsigned_fixed, print_unsigned},
    {AMDDWARF_ATE_UTF, print_unsigned},
};

/* ---- by tag ---- */

typedef struct printer {
  amddwarf_text *out;
  const amddwarf_object *object;
} printer;

/* A value of SIZE bytes at B, whose bit i is known when bit FIRST_VALID + i
   of VALID is set. */
typedef struct piece {
  const uint8_t *b;
  size_t size;
  const uint8_t *valid;
  uint64_t first_valid;
} piece;

static piece sub_piece(piece v, uint64_t byte_offset, size_t size)
{
  piece s = {v.b + byte_offset, size, v.valid, v.first_valid + byte_offset * 8};
  return s;
}

static int piece_valid(piece v)
{
  return amddwarf__debug_bits_valid(v.valid, v.first_valid, (uint64_t)v.size * 8);
}

static void print_typed(printer *p, amddwarf_debug_type type, piece v, int depth);

static void print_base_tag(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  amddwarf_die_fields t;
  amddwarf__debug_strip_fields(p->object, type.die, &t);
  scalar_printer print = print_hex;
  unsigned count = t.vector_size > 1 ? t.vector_size : 1; /* DW_AT_LLVM_vector_size */
  size_t elem = v.size / count;
  (void)depth;
  for (size_t i = 0; i < sizeof scalar_printers / sizeof scalar_printers[0]; ++i)
    if (scalar_printers[i].encoding == t.encoding)
      print = scalar_printers[i].print;
  if (count > 1)
    amddwarf__text_printf(p->out, "{");
  for (unsigned i = 0; i < count; ++i) {
    piece e = sub_piece(v, i * elem, elem);
    if (i)
      amddwarf__text_printf(p->out, ", ");
    if (piece_valid(e))
      print(p->out, e.b, e.size);
    else
      amddwarf__text_printf(p->out, "%s", optimized_out);
  }
  if (count > 1)
    amddwarf__text_printf(p->out, "}");
}

/* The enumerator whose value equals the value's low bytes, else the number. */
static void print_enum(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  amddwarf_die_fields t, e;
  uint64_t bits = v.size >= 8 ? 64 : v.size * 8;
  uint64_t n = amddwarf__debug_load_uint(v.b, v.size);
  (void)depth;
  amddwarf__debug_strip_fields(p->object, type.die, &t);
  for (amddwarf_die_ref c = t.first_child; amddwarf__debug_fields(p->object, c, &e);
       c = e.next_sibling)
    if (e.const_value.kind != AMDDWARF_ATTR_NONE && e.name &&
        amddwarf__debug_extend_bits(e.const_value.u, bits, 0) == n) {
      amddwarf__text_printf(p->out, "%s", e.name);
      return;
    }
  if (amddwarf__debug_type_is_signed(p->object, t.die))
    amddwarf__text_int(p->out, (int64_t)amddwarf__debug_extend_bits(n, bits, 1));
  else
    amddwarf__text_uint(p->out, n);
}

static void print_pointer_tag(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  char name[256];
  amddwarf_die_ref t = amddwarf_type_strip(p->object, type.die);
  (void)depth;
  amddwarf__debug_type_spell(p->object, type, name, sizeof name);
  amddwarf__debug_format_pointer(p->out, name, amddwarf_type_pointer_aspace(p->object, t),
                                amddwarf__debug_load_uint(v.b, v.size));
}

/* A bitfield: its bits, extended by its type's signedness, as a value of
   its type's size. */
static void print_bitfield(printer *p, const amddwarf_die_fields *m,
                           amddwarf_debug_member_layout layout, piece v, int depth)
{
  uint8_t bytes[8];
  uint64_t n = 0, type_size = 0;
  amddwarf_debug_type type = {m->type, 0};
  if (amddwarf__debug_type_size(p->object, type, &type_size) != AMDDWARF_OK || type_size > 8 ||
      layout.bit_size > 64 || layout.bit_offset + layout.bit_size > v.size * 8) {
    amddwarf__text_printf(p->out, "<bitfield outside its struct>");
    return;
  }
  if (!amddwarf__debug_bits_valid(v.valid, v.first_valid + layout.bit_offset, layout.bit_size)) {
    amddwarf__text_printf(p->out, "%s", optimized_out);
    return;
  }
  for (uint64_t i = 0; i < layout.bit_size; ++i) {
    uint64_t bit = layout.bit_offset + i;
    n |= (uint64_t)((v.b[bit / 8] >> (bit % 8)) & 1) << i;
  }
  n = amddwarf__debug_extend_bits(n, layout.bit_size, amddwarf__debug_type_is_signed(p->object, m->type));
  for (size_t i = 0; i < 8; ++i)
    bytes[i] = (uint8_t)(n >> (8 * i));
  piece whole = {bytes, (size_t)type_size, NULL, 0};
  print_typed(p, type, whole, depth + 1);
}

static void print_aggregate(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  amddwarf_die_fields t, f;
  const amddwarf_die_fields *m = &f;
  int first = 1;
  amddwarf__debug_strip_fields(p->object, type.die, &t);
  amddwarf__text_printf(p->out, "{");
  for (amddwarf_die_ref c = t.first_child; amddwarf__debug_fields(p->object, c, &f);
       c = f.next_sibling) {
    amddwarf_debug_member_layout layout;
    char message[256];
    uint64_t msize = 0;
    if (!amddwarf__debug_is_data_member(m))
      continue;
    amddwarf__text_printf(p->out, "%s", first ? "" : ", ");
    first = 0;
    if (m->tag == AMDDWARF_DW_TAG_inheritance) {
      char base[256];
      amddwarf_type_name(p->object, m->type, base, sizeof base, NULL);
      amddwarf__text_printf(p->out, "<%s> = ", base);
    } else if (m->name) {
      amddwarf__text_printf(p->out, "%s = ", m->name);
    }
    if (amddwarf__debug_member_layout_get(p->object, m, &layout, message, sizeof message) !=
        AMDDWARF_OK) {
      amddwarf__text_printf(p->out, "<%s>", message);
      continue;
    }
    if (layout.bit_size) {
      print_bitfield(p, m, layout, v, depth);
      continue;
    }
    if (amddwarf__debug_type_size(p->object, (amddwarf_debug_type){m->type, 0}, &msize) !=
            AMDDWARF_OK ||
        layout.bit_offset % 8 || layout.bit_offset / 8 > v.size ||
        msize > v.size - layout.bit_offset / 8) {
      amddwarf__text_printf(p->out, "<outside its struct>");
      continue;
    }
    print_typed(p, (amddwarf_debug_type){m->type, 0},
                sub_piece(v, layout.bit_offset / 8, (size_t)msize), depth + 1);
  }
  amddwarf__text_printf(p->out, "}");
}

/* Dimension TYPE.dims_used of an array, each element a row of the
   dimensions after it. */
static void print_array(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  amddwarf_die_ref array = amddwarf__debug_type_array(p->object, type);
  amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
  uint64_t elem = 0;
  if (!amddwarf_die_ref_valid(array)) {
    amddwarf__text_printf(p->out, "<array without dimensions>");
    return;
  }
  amddwarf__debug_array_dims(p->object, array, dims);
  amddwarf_debug_type row = amddwarf__debug_type_element(p->object, type);
  if (amddwarf__debug_type_size(p->object, row, &elem) != AMDDWARF_OK || elem == 0) {
    amddwarf__text_printf(p->out, "<array of elements of unknown size>");
    return;
  }
  uint64_t count = dims[type.dims_used].known ? dims[type.dims_used].count : v.size / elem;
  amddwarf__text_printf(p->out, "{");
  for (uint64_t i = 0; i < count && (i + 1) * elem <= v.size; ++i) {
    if (i)
      amddwarf__text_printf(p->out, ", ");
    if (i >= MAX_ELEMENTS) {
      amddwarf__text_printf(p->out, "...");
      break;
    }
    print_typed(p, row, sub_piece(v, i * elem, (size_t)elem), depth + 1);
  }
  amddwarf__text_printf(p->out, "}");
}

static void print_hex_tag(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  (void)type;
  (void)depth;
  print_hex(p->out, v.b, v.size);
}

typedef void (*typed_printer)(printer *p, amddwarf_debug_type type, piece v, int depth);

/* DW_TAG_* of the stripped type -> printer, and whether the value prints
   part by part (else one unknown bit makes it <optimized out>); other tags
   print in hex. */
static const struct {
  amddwarf_dw_tag tag;
  typed_printer print;
  int has_parts;
} typed_printers[] = {
    {AMDDWARF_DW_TAG_base_type, print_base_tag, 1},
    {AMDDWARF_DW_TAG_enumeration_type, print_enum, 0},
    {AMDDWARF_DW_TAG_pointer_type, print_pointer_tag, 0},
    {AMDDWARF_DW_TAG_reference_type, print_pointer_tag, 0},
    {AMDDWARF_DW_TAG_rvalue_reference_type, print_pointer_tag, 0},
    {AMDDWARF_DW_TAG_structure_type, print_aggregate, 1},
    {AMDDWARF_DW_TAG_union_type, print_aggregate, 1},
    {AMDDWARF_DW_TAG_class_type, print_aggregate, 1},
    {AMDDWARF_DW_TAG_array_type, print_array, 1},
};

/* The printer of stripped type T (tag 0: void, none). */
static size_t printer_index(const amddwarf_die_fields *t)
{
  size_t n = sizeof typed_printers / sizeof typed_printers[0];
  for (size_t i = 0; i < n; ++i)
    if ((uint32_t)typed_printers[i].tag == t->tag)
      return i;
  return n;
}

static int has_parts(const amddwarf_die_fields *t)
{
  size_t i = printer_index(t);
  if (i == sizeof typed_printers / sizeof typed_printers[0] || !typed_printers[i].has_parts)
    return 0;
  /* A base type has parts only as a DW_AT_LLVM_vector_size vector. */
  return t->tag != AMDDWARF_DW_TAG_base_type || t->vector_size > 1;
}

int amddwarf__debug_type_has_parts(const amddwarf_object *object, amddwarf_debug_type type)
{
  amddwarf_die_fields t;
  return amddwarf__debug_strip_fields(object, type.die, &t) && has_parts(&t);
}

static void print_typed(printer *p, amddwarf_debug_type type, piece v, int depth)
{
  amddwarf_die_fields t;
  if (!amddwarf__debug_strip_fields(p->object, type.die, &t)) {
    amddwarf__text_printf(p->out, "<no type>");
    return;
  }
  size_t i = printer_index(&t);
  if (depth > MAX_DEPTH) {
    amddwarf__text_printf(p->out, "{...}");
    return;
  }
  if (!has_parts(&t) && !piece_valid(v)) {
    amddwarf__text_printf(p->out, "%s", optimized_out);
    return;
  }
  if (i == sizeof typed_printers / sizeof typed_printers[0])
    print_hex_tag(p, type, v, depth);
  else
    typed_printers[i].print(p, type, v, depth);
}

void amddwarf__debug_format_value(amddwarf_text *out, const amddwarf_object *object,
                                 amddwarf_debug_type type, const uint8_t *bytes,
                                 const uint8_t *valid, size_t size)
{
  printer p = {out, object};
  piece v = {bytes, size, valid, 0};
  print_typed(&p, type, v, 0);
}

const uint8_t *amddwarf__debug_const_bytes(const amddwarf_object *object,
                                          const amddwarf_die_fields *die, uint8_t buf[16],
                                          uint64_t *size)
{
  const amddwarf_attr_value *cv = &die->const_value;
  if (cv->kind == AMDDWARF_ATTR_BLOCK && cv->bytes != NULL) {
    *size = cv->size;
    return cv->bytes;
  }
  /* A constant form holds the value's bits (a float's too, DWARF 5
     section 2.19); the type gives their width. */
  amddwarf_debug_type type = {die->type, 0};
  if (amddwarf__debug_type_size(object, type, size) != AMDDWARF_OK || *size > 16)
    *size = 16;
  for (size_t i = 0; i < 16; ++i)
    buf[i] = (uint8_t)(i < 8 ? cv->u >> (8 * i) : 0);
  return buf;
}

size_t amddwarf_const_value_text(const amddwarf_object *object, amddwarf_die_ref die, char *buf,
                                 size_t buf_size)
{
  amddwarf_text t;
  amddwarf_die_fields f;
  amddwarf__text_init_fixed(&t, buf, buf_size);
  if (object == NULL || !amddwarf__debug_fields(object, die, &f) ||
      f.const_value.kind == AMDDWARF_ATTR_NONE)
    return 0;
  const amddwarf_attr_value *cv = &f.const_value;
  if (cv->kind == AMDDWARF_ATTR_STRING) {
    amddwarf__text_printf(&t, "\"%s\"", cv->string ? cv->string : "");
    return t.len;
  }
  uint8_t bytes[16];
  uint64_t size = 0;
  const uint8_t *value = amddwarf__debug_const_bytes(object, &f, bytes, &size);
  amddwarf_debug_type type = {f.type, 0};
  if (!amddwarf_die_ref_valid(f.type)) {
    /* No type: the constant as the form gives it. */
    if (cv->kind == AMDDWARF_ATTR_SIGNED)
      amddwarf__text_printf(&t, "%lld", (long long)cv->s);
    else
      amddwarf__text_printf(&t, "%llu", (unsigned long long)cv->u);
    return t.len;
  }
  amddwarf__debug_format_value(&t, object, type, value, NULL, (size_t)size);
  return t.len;
}
