/* Strict integers in JSON input (json_int.h). */
#include "common/json_int.h"

#include <stdio.h>

#include "common/error.h"

/* An integer as read: its sign and magnitude, and whether it was written in
   hex (messages repeat it the way it was written). */
typedef struct reading {
  int negative;
  int hex;
  uint64_t magnitude;
} reading;

static int digit_value(char c, unsigned base)
{
  unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
               : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                      : 99u;
  return d < base ? (int)d : -1;
}

/* The string, shortened and with unprintable bytes as '?', for a message. */
static void quote(const char *text, char out[44])
{
  size_t n = 0;
  for (; text[n] && n < 40; n++)
    out[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
  if (text[n]) {
    out[n - 3] = out[n - 2] = out[n - 1] = '.';
  }
  out[n] = '\0';
}

static amddwarf_status fail(const char *path, amddwarf_status status, amddwarf_error *err,
                            const char *why)
{
  return amddwarf__fail(err, status, AMDDWARF_NO_OFFSET, "%s: %s", path, why);
}

/* Reads the string TEXT into R; on failure reports why. */
static amddwarf_status read_text(const char *text, const char *path, amddwarf_status status,
                                 amddwarf_error *err, reading *r)
{
  unsigned base = 10;
  const char *p = text;
  if (p[0] == '0' && p[1] == 'x') {
    base = 16;
    p += 2;
    r->hex = 1;
  }
  char shown[44];
  quote(text, shown);
  /* "010" would be octal to strtoull and decimal to a reader: neither. */
  int bad = *p == '\0' || (base == 10 && p[0] == '0' && p[1] != '\0');
  for (const char *q = p; !bad && *q; q++) {
    int d = digit_value(*q, base);
    if (d < 0)
      bad = 1;
    else if (r->magnitude > (UINT64_MAX - (unsigned)d) / base)
      return amddwarf__fail(err, status, AMDDWARF_NO_OFFSET, "%s: \"%s\" does not fit 64 bits",
                           path, shown);
    else
      r->magnitude = r->magnitude * base + (unsigned)d;
  }
  if (bad)
    return amddwarf__fail(err, status, AMDDWARF_NO_OFFSET,
                         "%s: \"%s\" is not an integer (a string holds \"0x\" and hex digits, "
                         "or decimal digits without a leading 0; no sign or space)",
                         path, shown);
  return AMDDWARF_OK;
}

/* Reads VALUE into R; on failure reports why. */
static amddwarf_status read_integer(const json_t *value, const char *path,
                                    amddwarf_status status, amddwarf_error *err, reading *r)
{
  r->negative = r->hex = 0;
  r->magnitude = 0;
  if (value == NULL)
    return fail(path, status, err, "missing");
  if (json_is_integer(value)) {
    json_int_t v = json_integer_value(value);
    r->negative = v < 0;
    r->magnitude = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    return AMDDWARF_OK;
  }
  if (!json_is_string(value))
    return fail(path, status, err,
                json_is_real(value) ? "not an integer (it has a fraction or an exponent)"
                                    : "not an integer (a JSON integer, or a string of \"0x\" "
                                      "and hex digits or of decimal digits)");
  return read_text(json_string_value(value), path, status, err, r);
}

/* "PATH: V is below/above the LIMIT" in the base V was written in. */
static amddwarf_status out_of_range(const char *path, amddwarf_status status,
                                    amddwarf_error *err, const reading *r, const char *which,
                                    int limit_negative, uint64_t limit)
{
  char value[32], bound[32];
  const char *form = r->hex ? "%s0x%llx" : "%s%llu";
  snprintf(value, sizeof value, form, r->negative ? "-" : "", (unsigned long long)r->magnitude);
  snprintf(bound, sizeof bound, form, limit_negative ? "-" : "", (unsigned long long)limit);
  return amddwarf__fail(err, status, AMDDWARF_NO_OFFSET, "%s: %s is %s %s", path, value, which,
                       bound);
}

amddwarf_status amddwarf__json_uint(const json_t *value, uint64_t max, const char *path,
                                   amddwarf_status status, amddwarf_error *err, uint64_t *out)
{
  reading r;
  amddwarf_status st = read_integer(value, path, status, err, &r);
  if (st != AMDDWARF_OK)
    return st;
  if (r.negative)
    return out_of_range(path, status, err, &r, "below the minimum", 0, 0);
  if (r.magnitude > max)
    return out_of_range(path, status, err, &r, "above the maximum", 0, max);
  *out = r.magnitude;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__json_uint_text(const char *text, uint64_t max, const char *path,
                                        amddwarf_status status, amddwarf_error *err,
                                        uint64_t *out)
{
  reading r = {0, 0, 0};
  amddwarf_status st = read_text(text, path, status, err, &r);
  if (st != AMDDWARF_OK)
    return st;
  if (r.magnitude > max)
    return out_of_range(path, status, err, &r, "above the maximum", 0, max);
  *out = r.magnitude;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__json_int(const json_t *value, int64_t min, int64_t max,
                                  const char *path, amddwarf_status status, amddwarf_error *err,
                                  int64_t *out)
{
  reading r;
  amddwarf_status st = read_integer(value, path, status, err, &r);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t min_magnitude = min < 0 ? 0 - (uint64_t)min : 0;
  if (r.negative && (min >= 0 || r.magnitude > min_magnitude))
    return out_of_range(path, status, err, &r, "below the minimum", min < 0,
                        min < 0 ? min_magnitude : (uint64_t)min);
  if (!r.negative && (max < 0 || r.magnitude > (uint64_t)max))
    return out_of_range(path, status, err, &r, "above the maximum", max < 0,
                        max < 0 ? 0 - (uint64_t)max : (uint64_t)max);
  if (!r.negative && min > 0 && r.magnitude < (uint64_t)min)
    return out_of_range(path, status, err, &r, "below the minimum", 0, (uint64_t)min);
  *out = r.negative ? (int64_t)(0 - r.magnitude) : (int64_t)r.magnitude;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__json_bits(const json_t *value, unsigned bits, const char *path,
                                   amddwarf_status status, amddwarf_error *err, uint64_t *out)
{
  reading r;
  amddwarf_status st = read_integer(value, path, status, err, &r);
  if (st != AMDDWARF_OK)
    return st;
  uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  uint64_t lowest = UINT64_C(1) << (bits - 1); /* magnitude of -2^(BITS-1) */
  if (r.negative && r.magnitude > lowest)
    return out_of_range(path, status, err, &r, "below the minimum", 1, lowest);
  if (!r.negative && r.magnitude > mask)
    return out_of_range(path, status, err, &r, "above the maximum", 0, mask);
  *out = (r.negative ? 0 - r.magnitude : r.magnitude) & mask;
  return AMDDWARF_OK;
}
