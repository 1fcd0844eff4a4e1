/* Format strings: compiling a printf format into directives once, and
 * rendering a payload with C printf semantics (C11 7.21.6.1).
 *
 * Format strings come from shader metadata and are untrusted, so they are
 * never given to the C library. Integers, characters and '%' are formatted
 * here. Floating-point values are formatted by snprintf, but with a format
 * this file builds itself from validated pieces: '%', the flags the directive
 * carried (each one of "-+ #0"), "*.*" and the conversion letter, with width
 * and precision passed as int arguments (precision -1 meaning "absent", as C
 * specifies for a negative precision argument). That keeps glibc's correctly
 * rounded decimal conversion without exposing it to hostile text.
 *
 * Extensions and choices, also in specs/printf.md:
 *   - argument widths come from the metadata mask, not from length modifiers:
 *     a 32-bit argument is an int32/uint32/float, a 64-bit one an
 *     int64/uint64/double; hh and h truncate as C's conversions do, l ll j z t
 *     and L are accepted and change nothing;
 *   - "%vNc" (N = 2..4, written after the flags or after the precision:
 *     "%v3.2f" or "%.2v3f") prints N components with the same directive,
 *     joined by ", ", as the Vulkan validation layers' DebugPrintf does;
 *   - '*' width and precision consume an argument (a negative width means '-');
 *   - widths and precisions above AMDDWARF_PRINTF_MAX_WIDTH are errors;
 *   - %s %p %n, positional arguments and unknown conversions are errors. */
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "common/text.h"
#include "printf/printf_internal.h"

typedef enum printf_class {
  PRINTF_CLASS_NONE,
  PRINTF_CLASS_SIGNED,
  PRINTF_CLASS_UNSIGNED,
  PRINTF_CLASS_CHAR,
  PRINTF_CLASS_FLOAT,
  PRINTF_CLASS_PERCENT,
  PRINTF_CLASS_REJECTED,
} printf_class;

static const uint8_t conversion_class[128] = {
#define AMDDWARF_PRINTF_CONV(ch, cls, description) [ch] = PRINTF_CLASS_##cls,
#include "printf/conversions.def"
#undef AMDDWARF_PRINTF_CONV
};

typedef struct conversion_desc {
  char ch;
  const char *description;
} conversion_desc;

static const conversion_desc conversion_descs[] = {
#define AMDDWARF_PRINTF_CONV(ch, cls, description) {ch, description},
#include "printf/conversions.def"
#undef AMDDWARF_PRINTF_CONV
};
enum {
  PRINTF_CONVERSION_COUNT = 0
#define AMDDWARF_PRINTF_CONV(ch, cls, description) +1
#include "printf/conversions.def"
#undef AMDDWARF_PRINTF_CONV
};
_Static_assert(sizeof conversion_descs / sizeof conversion_descs[0] == PRINTF_CONVERSION_COUNT,
               "one description per conversion");
/* Every conversion is a printable ASCII character (conversion_class is indexed by it). */
#define AMDDWARF_PRINTF_CONV(ch, cls, description) \
  _Static_assert((ch) > 0x20 && (ch) < 0x7f, "conversion characters are printable ASCII");
#include "printf/conversions.def"
#undef AMDDWARF_PRINTF_CONV

static const char *conversion_description(char ch)
{
  for (size_t i = 0; i < sizeof conversion_descs / sizeof conversion_descs[0]; i++)
    if (conversion_descs[i].ch == ch)
      return conversion_descs[i].description;
  return "unknown";
}

static printf_class class_of(char ch)
{
  unsigned char c = (unsigned char)ch;
  return c < 128 ? (printf_class)conversion_class[c] : PRINTF_CLASS_NONE;
}

/* ---- Compiling ---- */

typedef struct compiler {
  const char *format;
  size_t length;
  size_t pos;
  amddwarf_error *err;
} compiler;

static bool at(const compiler *c, char ch)
{
  return c->pos < c->length && c->format[c->pos] == ch;
}

static bool is_digit(char ch)
{
  return ch >= '0' && ch <= '9';
}

/* Reads a width or precision: '*', digits, or nothing (ABSENT, or 0 after '.'). */
static amddwarf_status compile_number(compiler *c, size_t directive, const char *what,
                                      bool after_dot, int32_t *out)
{
  if (at(c, '*')) {
    c->pos++;
    *out = PRINTF_FROM_ARGUMENT;
    return AMDDWARF_OK;
  }
  int64_t value = after_dot ? 0 : PRINTF_ABSENT;
  size_t start = c->pos;
  while (c->pos < c->length && is_digit(c->format[c->pos])) {
    value = (value < 0 ? 0 : value) * 10 + (c->format[c->pos++] - '0');
    if (value > AMDDWARF_PRINTF_MAX_WIDTH)
      return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                           "%s at format offset %zu of the directive at offset %zu exceeds %d",
                           what, start, directive, AMDDWARF_PRINTF_MAX_WIDTH);
  }
  if (at(c, '$'))
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "positional argument in the directive at format offset %zu is not "
                         "supported",
                         directive);
  *out = (int32_t)value;
  return AMDDWARF_OK;
}

/* The %vN extension: "v2".."v4" after the flags or after the precision. */
static amddwarf_status compile_vector(compiler *c, size_t directive, printf_spec *spec)
{
  if (!at(c, 'v'))
    return AMDDWARF_OK;
  c->pos++;
  if (c->pos >= c->length || c->format[c->pos] < '2' || c->format[c->pos] > '4')
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "vector directive at format offset %zu needs a count of 2, 3 or 4 "
                         "after 'v'",
                         directive);
  spec->vector = (uint8_t)(c->format[c->pos++] - '0');
  return AMDDWARF_OK;
}

static amddwarf_status compile_directive(compiler *c, printf_spec *spec, uint32_t *arguments)
{
  size_t directive = c->pos;
  amddwarf_status status;
  c->pos++; /* '%' */
  spec->format_offset = (uint32_t)directive;
  for (;; c->pos++) {
    uint8_t flag = at(c, '-')   ? PRINTF_FLAG_MINUS
                   : at(c, '+') ? PRINTF_FLAG_PLUS
                   : at(c, ' ') ? PRINTF_FLAG_SPACE
                   : at(c, '#') ? PRINTF_FLAG_HASH
                   : at(c, '0') ? PRINTF_FLAG_ZERO
                                : 0;
    if (!flag)
      break;
    spec->flags |= flag;
  }
  if ((status = compile_vector(c, directive, spec)) != AMDDWARF_OK)
    return status;
  if ((status = compile_number(c, directive, "width", false, &spec->width)) != AMDDWARF_OK)
    return status;
  spec->precision = PRINTF_ABSENT;
  if (at(c, '.')) {
    c->pos++;
    if ((status = compile_number(c, directive, "precision", true, &spec->precision)) !=
        AMDDWARF_OK)
      return status;
  }
  if (!spec->vector && (status = compile_vector(c, directive, spec)) != AMDDWARF_OK)
    return status;
  if (at(c, 'h')) {
    c->pos++;
    spec->length = at(c, 'h') ? (c->pos++, PRINTF_LENGTH_HH) : PRINTF_LENGTH_H;
  } else if (at(c, 'l')) {
    c->pos++;
    spec->length = at(c, 'l') ? (c->pos++, PRINTF_LENGTH_LL) : PRINTF_LENGTH_L;
  } else if (at(c, 'j') || at(c, 'z') || at(c, 't') || at(c, 'L')) {
    char m = c->format[c->pos++];
    spec->length = m == 'j' ? PRINTF_LENGTH_J
                   : m == 'z' ? PRINTF_LENGTH_Z
                   : m == 't' ? PRINTF_LENGTH_T
                              : PRINTF_LENGTH_BIG_L;
  }
  if (c->pos >= c->length)
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "the directive at format offset %zu ends with the format string",
                         directive);
  char conv = c->format[c->pos++];
  printf_class cls = class_of(conv);
  if (cls == PRINTF_CLASS_NONE) {
    unsigned char u = (unsigned char)conv;
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         u >= 0x20 && u < 0x7f
                             ? "unknown conversion '%c' in the directive at format offset %zu"
                             : "unknown conversion byte 0x%02x in the directive at format "
                               "offset %zu",
                         u >= 0x20 && u < 0x7f ? conv : (int)u, directive);
  }
  if (cls == PRINTF_CLASS_REJECTED)
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "conversion '%%%c' at format offset %zu is not supported: %s", conv,
                         directive, conversion_description(conv));
  if (spec->length == PRINTF_LENGTH_BIG_L && cls != PRINTF_CLASS_FLOAT)
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "length 'L' applies to floating-point conversions only (directive at "
                         "format offset %zu)",
                         directive);
  if (cls == PRINTF_CLASS_PERCENT &&
      (spec->vector || spec->width == PRINTF_FROM_ARGUMENT ||
       spec->precision == PRINTF_FROM_ARGUMENT))
    return amddwarf__fail(c->err, AMDDWARF_E_PRINTF_BAD_FORMAT, directive,
                         "'%%%%' at format offset %zu takes no argument", directive);
  spec->conversion = conv;
  if (cls != PRINTF_CLASS_PERCENT) {
    uint32_t used = (spec->vector ? spec->vector : 1u) +
                    (spec->width == PRINTF_FROM_ARGUMENT) +
                    (spec->precision == PRINTF_FROM_ARGUMENT);
    *arguments += used;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__printf_compile(amddwarf_arena *arena, const char *format, size_t length,
                               printf_compiled *out, amddwarf_error *err)
{
  compiler c = {.format = format, .length = length, .err = err};
  size_t directives = 0;
  memset(out, 0, sizeof *out);
  if (length > UINT32_MAX)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "format string of %zu bytes is too long", length);
  for (size_t i = 0; i < length; i++)
    if (format[i] == '%')
      directives++;
  /* At most one directive per '%', plus the trailing literal. */
  printf_spec *specs = amddwarf__arena_calloc(arena, directives + 1, sizeof *specs);
  if (!specs)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "no memory for a compiled format string");
  size_t count = 0;
  uint32_t arguments = 0;
  for (;;) {
    printf_spec *spec = &specs[count];
    const char *percent = c.pos < length ? memchr(format + c.pos, '%', length - c.pos) : NULL;
    size_t literal_end = percent ? (size_t)(percent - format) : length;
    spec->literal_start = (uint32_t)c.pos;
    spec->literal_length = (uint32_t)(literal_end - c.pos);
    c.pos = literal_end;
    count++;
    if (!percent)
      break;
    amddwarf_status status = compile_directive(&c, spec, &arguments);
    if (status != AMDDWARF_OK)
      return status;
  }
  out->specs = specs;
  out->count = count;
  out->arguments = arguments;
  return AMDDWARF_OK;
}

/* ---- Rendering ---- */

typedef struct arg_cursor {
  const uint8_t *payload;
  size_t pos;
  uint32_t index;
  const uint64_t *mask64;
  size_t mask_words;
} arg_cursor;

/* Next argument's bits and width; bounds were checked before rendering. */
static uint64_t next_arg(arg_cursor *a, bool *is64)
{
  const uint8_t *p = a->payload + a->pos;
  uint64_t value = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                   (uint64_t)p[3] << 24;
  *is64 = printf_arg_is_64(a->mask64, a->mask_words, a->index);
  if (*is64) {
    value |= (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
             (uint64_t)p[7] << 56;
    a->pos += 8;
  } else {
    a->pos += 4;
  }
  a->index++;
  return value;
}

static int64_t arg_as_signed(uint64_t bits, bool is64)
{
  if (is64)
    return bits <= INT64_MAX ? (int64_t)bits : -(int64_t)(~bits) - 1;
  uint32_t low = (uint32_t)bits;
  return low <= INT32_MAX ? (int64_t)low : (int64_t)low - (INT64_C(1) << 32);
}

static void render_integer(amddwarf_text *o, const printf_spec *spec, uint8_t flags, int32_t width,
                           int32_t precision, uint64_t bits, bool is64)
{
  char digits[32];
  char prefix[2];
  size_t ndigits = 0, nprefix = 0, zeros = 0;
  uint64_t magnitude;
  char conv = spec->conversion;
  if (class_of(conv) == PRINTF_CLASS_SIGNED) {
    int64_t value = arg_as_signed(bits, is64);
    if (spec->length == PRINTF_LENGTH_HH)
      value = (int8_t)(uint8_t)(uint64_t)value;
    else if (spec->length == PRINTF_LENGTH_H)
      value = (int16_t)(uint16_t)(uint64_t)value;
    magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    if (value < 0)
      prefix[nprefix++] = '-';
    else if (flags & PRINTF_FLAG_PLUS)
      prefix[nprefix++] = '+';
    else if (flags & PRINTF_FLAG_SPACE)
      prefix[nprefix++] = ' ';
  } else {
    magnitude = is64 ? bits : (uint32_t)bits;
    if (spec->length == PRINTF_LENGTH_HH)
      magnitude = (uint8_t)magnitude;
    else if (spec->length == PRINTF_LENGTH_H)
      magnitude = (uint16_t)magnitude;
  }
  unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
  const char *alphabet = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  /* Constant divisors: the compiler turns them into multiplications. */
  if (base == 10) {
    for (uint64_t v = magnitude; v != 0; v /= 10)
      digits[sizeof digits - 1 - ndigits++] = (char)('0' + v % 10);
  } else if (base == 16) {
    for (uint64_t v = magnitude; v != 0; v >>= 4)
      digits[sizeof digits - 1 - ndigits++] = alphabet[v & 15];
  } else {
    for (uint64_t v = magnitude; v != 0; v >>= 3)
      digits[sizeof digits - 1 - ndigits++] = (char)('0' + (v & 7));
  }
  size_t min_digits = precision < 0 ? 1 : (size_t)precision;
  if (ndigits < min_digits)
    zeros = min_digits - ndigits;
  if ((flags & PRINTF_FLAG_HASH) && conv == 'o' && zeros == 0 &&
      (ndigits == 0 || digits[sizeof digits - ndigits] != '0'))
    zeros = 1;
  if ((flags & PRINTF_FLAG_HASH) && base == 16 && magnitude != 0) {
    prefix[nprefix++] = '0';
    prefix[nprefix++] = conv;
  }
  size_t total = nprefix + zeros + ndigits;
  size_t pad = width > 0 && (size_t)width > total ? (size_t)width - total : 0;
  if (!(flags & PRINTF_FLAG_MINUS) && !((flags & PRINTF_FLAG_ZERO) && precision < 0))
    amddwarf__text_fill(o, ' ', pad);
  amddwarf__text_append(o, prefix, nprefix);
  if (!(flags & PRINTF_FLAG_MINUS) && (flags & PRINTF_FLAG_ZERO) && precision < 0)
    amddwarf__text_fill(o, '0', pad);
  amddwarf__text_fill(o, '0', zeros);
  amddwarf__text_append(o, digits + sizeof digits - ndigits, ndigits);
  if (flags & PRINTF_FLAG_MINUS)
    amddwarf__text_fill(o, ' ', pad);
}

static void render_char(amddwarf_text *o, uint8_t flags, int32_t width, uint64_t bits)
{
  char ch = (char)(uint8_t)bits;
  size_t pad = width > 1 ? (size_t)width - 1 : 0;
  if (!(flags & PRINTF_FLAG_MINUS))
    amddwarf__text_fill(o, ' ', pad);
  amddwarf__text_append(o, &ch, 1);
  if (flags & PRINTF_FLAG_MINUS)
    amddwarf__text_fill(o, ' ', pad);
}

static void render_float(amddwarf_text *o, char conv, uint8_t flags, int32_t width, int32_t precision,
                         uint64_t bits, bool is64)
{
  double value;
  if (is64) {
    memcpy(&value, &bits, sizeof value);
  } else {
    uint32_t low = (uint32_t)bits;
    float f;
    memcpy(&f, &low, sizeof f);
    value = f;
  }
  /* The format is built here from validated pieces only (see the file comment). */
  char format[12];
  size_t n = 0;
  format[n++] = '%';
  if (flags & PRINTF_FLAG_MINUS)
    format[n++] = '-';
  if (flags & PRINTF_FLAG_PLUS)
    format[n++] = '+';
  if (flags & PRINTF_FLAG_SPACE)
    format[n++] = ' ';
  if (flags & PRINTF_FLAG_HASH)
    format[n++] = '#';
  if (flags & PRINTF_FLAG_ZERO)
    format[n++] = '0';
  format[n++] = '*';
  format[n++] = '.';
  format[n++] = '*';
  format[n++] = conv;
  format[n] = '\0';
  amddwarf__text_printf(o, format, width < 0 ? 0 : width, precision, value);
}

size_t amddwarf__printf_layout_bytes(const uint64_t *mask64, size_t mask_words, uint32_t count)
{
  size_t bytes = 0;
  for (uint32_t i = 0; i < count; i++)
    bytes += printf_arg_is_64(mask64, mask_words, i) ? 8 : 4;
  return bytes;
}

/* Width or precision from an argument; C: a negative width is '-' plus its
   magnitude, a negative precision is absent. */
static amddwarf_status star_argument(arg_cursor *a, bool is_width, const printf_spec *spec,
                                     uint8_t *flags, int32_t *out, amddwarf_error *err)
{
  bool is64;
  uint64_t bits = next_arg(a, &is64);
  int64_t value = arg_as_signed(bits, is64);
  if (value < 0 && is_width) {
    *flags |= PRINTF_FLAG_MINUS;
    value = value == INT64_MIN ? INT64_MAX : -value;
  }
  if (value < 0) {
    *out = PRINTF_ABSENT;
    return AMDDWARF_OK;
  }
  if (value > AMDDWARF_PRINTF_MAX_WIDTH)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, spec->format_offset,
                         "%s argument %lld of the directive at format offset %u exceeds %d",
                         is_width ? "width" : "precision", (long long)value,
                         spec->format_offset, AMDDWARF_PRINTF_MAX_WIDTH);
  *out = (int32_t)value;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__printf_render_compiled(const printf_compiled *compiled, const char *format,
                                       const uint64_t *mask64, size_t mask_words,
                                       const uint8_t *payload, size_t payload_size,
                                       bool payload_checked, uint64_t payload_base, char *out,
                                       size_t out_size, size_t *length, amddwarf_error *err)
{
  amddwarf_text o;
  amddwarf__text_init_fixed(&o, out, out_size);
  size_t needed = payload_checked ? 0 : amddwarf__printf_layout_bytes(mask64, mask_words,
                                                            compiled->arguments);
  amddwarf_status status = AMDDWARF_OK;
  if (needed > payload_size) {
    status = amddwarf__fail(err, AMDDWARF_E_PRINTF_SHORT_PAYLOAD, payload_base,
                           "payload of %zu bytes at offset %llu is shorter than the %zu bytes "
                           "the %u arguments of its format string need",
                           payload_size, (unsigned long long)payload_base, needed,
                           compiled->arguments);
    goto done;
  }
  arg_cursor a = {.payload = payload, .mask64 = mask64, .mask_words = mask_words};
  for (size_t i = 0; i < compiled->count; i++) {
    const printf_spec *spec = &compiled->specs[i];
    amddwarf__text_append(&o, format + spec->literal_start, spec->literal_length);
    if (spec->conversion == 0)
      break;
    printf_class cls = class_of(spec->conversion);
    if (cls == PRINTF_CLASS_PERCENT) {
      amddwarf__text_append(&o, "%", 1);
      continue;
    }
    uint8_t flags = spec->flags;
    int32_t width = spec->width, precision = spec->precision;
    if (width == PRINTF_FROM_ARGUMENT &&
        (status = star_argument(&a, true, spec, &flags, &width, err)) != AMDDWARF_OK)
      goto done;
    if (precision == PRINTF_FROM_ARGUMENT &&
        (status = star_argument(&a, false, spec, &flags, &precision, err)) != AMDDWARF_OK)
      goto done;
    unsigned components = spec->vector ? spec->vector : 1;
    for (unsigned k = 0; k < components; k++) {
      bool is64;
      uint64_t bits = next_arg(&a, &is64);
      if (k > 0)
        amddwarf__text_append(&o, ", ", 2);
      if (cls == PRINTF_CLASS_FLOAT)
        render_float(&o, spec->conversion, flags, width, precision, bits, is64);
      else if (cls == PRINTF_CLASS_CHAR)
        render_char(&o, flags, width, bits);
      else
        render_integer(&o, spec, flags, width, precision, bits, is64);
    }
  }
  if (o.len >= out_size)
    status = amddwarf__fail(err, AMDDWARF_E_NO_SPACE, AMDDWARF_NO_OFFSET,
                           "the message needs %zu bytes and a NUL, the output has %zu",
                           o.len, out_size);
done:
  if (length)
    *length = o.len;
  return status;
}

/* The 64-bit arguments of COMPILED when the length modifiers decide: a
   conversion written with 'l' or "ll" takes 64-bit arguments, a '*' and
   every other conversion 32-bit ones (SPIR-V NonSemantic.DebugPrintf). */
static void mask_from_lengths(const printf_compiled *compiled, uint64_t *mask64)
{
  uint32_t index = 0;
  for (size_t i = 0; i < compiled->count && compiled->specs[i].conversion; i++) {
    const printf_spec *spec = &compiled->specs[i];
    if (class_of(spec->conversion) == PRINTF_CLASS_PERCENT)
      continue;
    index += (spec->width == PRINTF_FROM_ARGUMENT) + (spec->precision == PRINTF_FROM_ARGUMENT);
    bool wide = spec->length == PRINTF_LENGTH_L || spec->length == PRINTF_LENGTH_LL;
    for (unsigned k = 0; k < (spec->vector ? spec->vector : 1u); k++, index++)
      if (wide)
        mask64[index / 64] |= UINT64_C(1) << (index % 64);
  }
}

/* amddwarf_printf_render, and, when MASK64 is NULL, the widths the length
   modifiers give (amddwarf_printf_render_by_length). */
static amddwarf_status compile_and_render(const char *format, size_t format_length,
                                          const uint64_t *mask64, size_t mask_words,
                                          const void *payload, size_t payload_size, char *out,
                                          size_t out_size, size_t *length, amddwarf_error *err)
{
  if ((!format && format_length) || (!payload && payload_size) || (!out && out_size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "format, payload and output must not be NULL");
  if (length)
    *length = 0;
  if (out_size)
    out[0] = '\0'; /* terminated also when the format does not compile */
  amddwarf_arena arena;
  printf_compiled compiled;
  amddwarf__arena_init(&arena, NULL);
  amddwarf_status status = amddwarf__printf_compile(&arena, format ? format : "", format_length,
                                          &compiled, err);
  if (status == AMDDWARF_OK && mask64 == NULL) {
    mask_words = compiled.arguments / 64 + 1;
    uint64_t *by_length = amddwarf__arena_calloc(&arena, mask_words, sizeof *by_length);
    if (by_length)
      mask_from_lengths(&compiled, by_length);
    else
      status = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                             "no memory for the argument layout");
    mask64 = by_length;
  }
  if (status == AMDDWARF_OK)
    status = amddwarf__printf_render_compiled(&compiled, format, mask64, mask_words, payload,
                                    payload_size, false, 0, out, out_size, length, err);
  amddwarf__arena_release(&arena);
  return status;
}

amddwarf_status amddwarf_printf_render(const char *format, size_t format_length,
                                       const uint64_t *mask64, size_t mask_words,
                                       const void *payload, size_t payload_size, char *out,
                                       size_t out_size, size_t *length, amddwarf_error *err)
{
  static const uint64_t all_32bit[1] = {0};
  if (mask64 == NULL) /* no mask: every argument 32-bit, not "by length" */
    mask64 = all_32bit, mask_words = 0;
  return compile_and_render(format, format_length, mask64, mask_words, payload, payload_size,
                            out, out_size, length, err);
}

amddwarf_status amddwarf_printf_render_by_length(const char *format, size_t format_length,
                                                 const void *payload, size_t payload_size,
                                                 char *out, size_t out_size, size_t *length,
                                                 amddwarf_error *err)
{
  amddwarf_status status = compile_and_render(format, format_length, NULL, 0, payload,
                                              payload_size, out, out_size, length, err);
  /* A failed message is not shown in part. */
  if (status != AMDDWARF_OK && status != AMDDWARF_E_NO_SPACE &&
      status != AMDDWARF_E_INVALID_ARGUMENT && out_size)
    out[0] = '\0';
  return status;
}

amddwarf_status amddwarf_printf_render_entry(const amddwarf_printf_table *table,
                                             const amddwarf_printf_entry *entry, char *out,
                                             size_t out_size, size_t *length, amddwarf_error *err)
{
  if (!table || !entry || (!out && out_size) || (!entry->payload && entry->payload_size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "table, entry and output are required");
  if (length)
    *length = 0;
  if (out_size)
    out[0] = '\0';
  const amddwarf_printf_string *string = amddwarf_printf_table_find(table, entry->id);
  if (!string)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_UNKNOWN_ID, entry->offset,
                         "entry %llu at offset %llu: format-string id 0x%012llx is not in the "
                         "metadata",
                         (unsigned long long)entry->index, (unsigned long long)entry->offset,
                         (unsigned long long)entry->id);
  const printf_record *record = (const printf_record *)(const void *)string;
  if (record->compile_error)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_FORMAT, entry->offset,
                         "entry %llu at offset %llu: format string 0x%012llx: %s",
                         (unsigned long long)entry->index, (unsigned long long)entry->offset,
                         (unsigned long long)entry->id, record->compile_error->message);
  if (record->compiled.arguments > string->argument_count)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_BAD_FORMAT, entry->offset,
                         "entry %llu at offset %llu: format string 0x%012llx consumes %u "
                         "arguments but .argument_count is %u",
                         (unsigned long long)entry->index, (unsigned long long)entry->offset,
                         (unsigned long long)entry->id, record->compiled.arguments,
                         string->argument_count);
  size_t needed = record->payload_bytes;
  if (needed > entry->payload_size)
    return amddwarf__fail(err, AMDDWARF_E_PRINTF_SHORT_PAYLOAD, entry->offset,
                         "entry %llu at offset %llu: payload of %zu bytes is shorter than the "
                         "%zu bytes of the %u arguments of format string 0x%012llx",
                         (unsigned long long)entry->index, (unsigned long long)entry->offset,
                         entry->payload_size, needed, string->argument_count,
                         (unsigned long long)entry->id);
  /* The compiled format consumes at most .argument_count arguments, whose
     bytes were just checked. */
  return amddwarf__printf_render_compiled(&record->compiled, string->format, string->mask64,
                                string->mask_words, entry->payload, entry->payload_size, true,
                                entry->offset + AMDDWARF_PRINTF_ENTRY_HEADER_SIZE, out, out_size,
                                length, err);
}
