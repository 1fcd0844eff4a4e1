/* Rows of a text table without printf (table_text.h): `amddwarf stats`
 * prints a row for each function of an object, 160,000 on a big one, each
 * with five percentages, and printf's floating-point formatting of them
 * took most of the command's time after the statistics themselves. */
#include <string.h>

#include "table_text.h"

void table_init(table_text *t, FILE *out)
{
  t->out = out;
  t->length = 0;
}

void table_flush(table_text *t)
{
  fwrite(t->text, 1, t->length, t->out);
  t->length = 0;
}

void table_bytes(table_text *t, const char *bytes, size_t n)
{
  if (n > sizeof t->text - t->length) {
    table_flush(t);
    if (n > sizeof t->text) {
      fwrite(bytes, 1, n, t->out);
      return;
    }
  }
  memcpy(t->text + t->length, bytes, n);
  t->length += n;
}

static void spaces(table_text *t, size_t n)
{
  static const char blank[] = "                                ";
  for (size_t k; n > 0; n -= k) {
    k = n < sizeof blank - 1 ? n : sizeof blank - 1;
    table_bytes(t, blank, k);
  }
}

/* TEXT padded to WIDTH: on the right when LEFT ("%-*s"), else the left. */
static void padded(table_text *t, const char *text, size_t n, int width, int left)
{
  size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
  if (!left)
    spaces(t, pad);
  table_bytes(t, text, n);
  if (left)
    spaces(t, pad);
}

void table_string(table_text *t, const char *s, int width)
{
  padded(t, s, strlen(s), width, 1);
}

void table_uint(table_text *t, uint64_t v, int width)
{
  char digits[24];
  size_t n = sizeof digits;
  do
    digits[--n] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  padded(t, digits + n, sizeof digits - n, width, 0);
}

double table_pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The quotient is rounded in integers. For WHOLE below 2^32 and PART at
   most WHOLE, the double 100.0 * PART / WHOLE is nearer the exact quotient
   than any point halfway between two printed values is (the distance is
   at least 1 / (20 * WHOLE) of a unit, the double's error below 1e-13),
   so printf, rounding the double, prints the digits the exact quotient
   rounds to, except when the quotient is exactly halfway: printf then
   rounds the double to even, and those cases (and the others) are left to
   printf itself. */
void table_percent(table_text *t, uint64_t part, uint64_t whole, int width, int decimals)
{
  char text[64];
  uint64_t scale = decimals ? 1000 : 100; /* printed units in 100 * PART / WHOLE */
  if (whole == 0 || part > whole || whole >= (UINT64_C(1) << 32) ||
      (2 * scale * part % whole == 0 && 2 * scale * part / whole % 2 == 1)) {
    int n = snprintf(text, sizeof text, "%*.*f%%", width, decimals, table_pct(part, whole));
    table_bytes(t, text, n > 0 ? (size_t)n : 0);
    return;
  }
  uint64_t units = (2 * scale * part + whole) / (2 * whole);
  size_t n = sizeof text;
  text[--n] = '%';
  if (decimals) {
    text[--n] = (char)('0' + units % 10);
    text[--n] = '.';
    units /= 10;
  }
  do
    text[--n] = (char)('0' + units % 10);
  while ((units /= 10) != 0);
  /* WIDTH counts the digits and the point, not the '%'. */
  padded(t, text + n, sizeof text - n, width + 1, 0);
}
