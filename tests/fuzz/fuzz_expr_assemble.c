/* Fuzz target of the expression assembler: any text either fails with an
 * error whose offset lies inside the text, or assembles into bytes that
 * decode without error in the same format. The first byte picks the
 * dialect (bits 0-1) and the wave size (bit 2). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/expr.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int condition)
{
  if (!condition)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1 || size > 4096)
    return 0;
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  format.dialect = (amddwarf_dialect)(data[0] & 3);
  unsigned wave = (data[0] & 4) ? 32 : 64;
  char *text = malloc(size);
  check(text != NULL);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  size_t length = strlen(text);

  amddwarf_error err;
  size_t needed = 0;
  amddwarf_status st = amddwarf_expr_assemble(text, &format, wave, NULL, 0, &needed, &err);
  if (st != AMDDWARF_OK && st != AMDDWARF_E_NO_SPACE) {
    check(st < 0);
    check(err.offset == AMDDWARF_NO_OFFSET || err.offset <= length);
    free(text);
    return 0;
  }
  uint8_t *bytes = malloc(needed ? needed : 1);
  amddwarf_op *ops = calloc(needed ? needed : 1, sizeof *ops);
  check(bytes && ops);
  size_t written = 0, count = 0;
  check(amddwarf_expr_assemble(text, &format, wave, bytes, needed, &written, &err) ==
        AMDDWARF_OK);
  check(written == needed);
  check(amddwarf_expr_decode(bytes, written, &format, ops, needed ? needed : 1, &count, &err) ==
        AMDDWARF_OK);
  free(ops);
  free(bytes);
  free(text);
  return 0;
}
