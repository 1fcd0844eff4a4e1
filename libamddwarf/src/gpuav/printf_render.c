/* Rendering debug-printf records with their format strings
 * (specs/gpuav-records.md, "Debug printf records"). */
#include <amddwarf/gpuav.h>

#include <stdio.h>
#include <string.h>

#include "gpuav/text.h"

/* One parsed conversion: "%-08.3v4lf". */
typedef struct conversion {
  char flags[8];
  unsigned flag_count;
  char width[12];
  char precision[12]; /* includes the '.', or empty */
  unsigned vector;    /* 0 for a scalar, else 2..4 */
  bool wide;          /* 'l' / "ll": a 64-bit argument */
  char conv;
} conversion;

static bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* Parses after a '%' at *P; returns false for an unsupported conversion. */
static bool parse_conversion(const char **p, conversion *c)
{
  const char *s = *p;
  memset(c, 0, sizeof(*c));
  while (*s && strchr("-+ #0", *s) && c->flag_count < sizeof(c->flags) - 1)
    c->flags[c->flag_count++] = *s++;
  size_t n = 0;
  while (is_digit(*s)) {
    if (n < sizeof(c->width) - 1)
      c->width[n++] = *s;
    s++;
  }
  if (*s == '.') {
    n = 0;
    c->precision[n++] = *s++;
    while (is_digit(*s)) {
      if (n < sizeof(c->precision) - 1)
        c->precision[n++] = *s;
      s++;
    }
  }
  for (int pass = 0; pass < 2; pass++) {
    if (*s == 'v' && s[1] >= '2' && s[1] <= '4') {
      c->vector = (unsigned)(s[1] - '0');
      s += 2;
    }
    if (*s == 'l') {
      c->wide = true;
      s++;
      if (*s == 'l')
        s++;
    }
  }
  if (!*s || !strchr("diuxXocfFeEgGaA", *s))
    return false;
  /* Widths and precisions above 999 are not rendered (they would only
     produce padding, and cost time): the conversion prints as written. */
  if (strlen(c->width) > 3 || strlen(c->precision) > 4)
    return false;
  c->conv = *s++;
  *p = s;
  return true;
}

static double float_from_bits(uint64_t bits, bool wide)
{
  if (wide) {
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
  }
  uint32_t b32 = (uint32_t)bits;
  float f;
  memcpy(&f, &b32, sizeof(f));
  return (double)f;
}

static void render_value(amddwarf_gpuav_text *t, const conversion *c, uint64_t bits)
{
  char spec[48];
  bool is_float = strchr("fFeEgGaA", c->conv) != NULL;
  snprintf(spec, sizeof(spec), "%%%s%s%s%s%c", c->flags, c->width, c->precision,
           is_float || c->conv == 'c' ? "" : "ll", c->conv);
  char buffer[512];
  if (is_float) {
    snprintf(buffer, sizeof(buffer), spec, float_from_bits(bits, c->wide));
  } else if (c->conv == 'c') {
    snprintf(buffer, sizeof(buffer), spec, (int)(unsigned char)bits);
  } else if (c->conv == 'd' || c->conv == 'i') {
    int64_t v = c->wide ? (int64_t)bits : (int64_t)(int32_t)(uint32_t)bits;
    snprintf(buffer, sizeof(buffer), spec, (long long)v);
  } else {
    uint64_t v = c->wide ? bits : (uint32_t)bits;
    snprintf(buffer, sizeof(buffer), spec, (unsigned long long)v);
  }
  amddwarf_gpuav_text_puts(t, buffer);
}

size_t amddwarf_gpuav_printf_render(const char *format, const amddwarf_gpuav_record *record,
                                    char *out, size_t out_size, amddwarf_status *problem)
{
  amddwarf_gpuav_text t;
  amddwarf_gpuav_text_init(&t, out, out_size);
  if (problem)
    *problem = AMDDWARF_OK;
  if (!format || !record)
    return 0;
  uint32_t next = 1; /* payload word 0 is the format string id */
  const char *p = format;
  while (*p) {
    const char *pct = strchr(p, '%');
    if (!pct) {
      amddwarf_gpuav_text_puts(&t, p);
      break;
    }
    amddwarf_gpuav_text_append(&t, p, (size_t)(pct - p));
    p = pct + 1;
    if (*p == '%') {
      amddwarf_gpuav_text_append(&t, "%", 1);
      p++;
      continue;
    }
    conversion c;
    const char *start = p;
    if (!parse_conversion(&p, &c)) {
      /* Not a conversion we know: print it as written. */
      amddwarf_gpuav_text_append(&t, "%", 1);
      p = start;
      continue;
    }
    unsigned components = c.vector ? c.vector : 1;
    for (unsigned k = 0; k < components; k++) {
      if (k)
        amddwarf_gpuav_text_puts(&t, ", ");
      uint32_t need = c.wide ? 2 : 1;
      if (next + need > record->payload_words) {
        amddwarf_gpuav_text_puts(&t, "<missing>");
        if (problem)
          *problem = AMDDWARF_E_GPUAV_BAD_RECORD;
        next = record->payload_words;
        continue;
      }
      uint64_t bits = amddwarf_gpuav_record_word(record, next);
      if (c.wide)
        bits |= (uint64_t)amddwarf_gpuav_record_word(record, next + 1) << 32;
      next += need;
      render_value(&t, &c, bits);
    }
  }
  return t.length;
}
