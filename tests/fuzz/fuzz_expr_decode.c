/* Fuzz target of the expression codec: decode, encode, decode again; the two
 * decodings must agree operation by operation, and printing must succeed.
 *
 * The first input byte picks the format: bits 0-1 the dialect, bit 2 a
 * 4-byte address size (else 8), bit 3 64-bit DWARF, bits 4-5 the DWARF
 * version minus 2. The rest is the expression. */
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

static void same_ops(const amddwarf_op *a, const amddwarf_op *b, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    const amddwarf_op_info *info = amddwarf_op_info_get(a[i].kind);
    check(info != NULL);
    check(a[i].kind == b[i].kind);
    check(a[i].opcode == b[i].opcode);
    check(a[i].subop == b[i].subop);
    /* A branch's displacement changes when LEB128 padding goes away; its
       target operation does not. */
    check(info->operands[0] == AMDDWARF_OPERAND_BRANCH || a[i].operands[0] == b[i].operands[0]);
    check(a[i].operands[1] == b[i].operands[1]);
    check(a[i].target == b[i].target);
    for (unsigned k = 0; k < 2; k++)
      if (info->operands[k] == AMDDWARF_OPERAND_BLOCK ||
          info->operands[k] == AMDDWARF_OPERAND_BLOCK_U8)
        check(a[i].operands[k] == 0 ||
              memcmp(a[i].block, b[i].block, (size_t)a[i].operands[k]) == 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  amddwarf_expr_format format;
  amddwarf_expr_format_init(&format);
  format.dialect = (amddwarf_dialect)(data[0] & 3);
  format.address_size = (data[0] & 4) ? 4 : 8;
  format.offset_size = (data[0] & 8) ? 8 : 4;
  format.version = (uint16_t)(2 + ((data[0] >> 4) & 3));
  const uint8_t *bytes = data + 1;
  size_t length = size - 1;

  size_t capacity = length ? length : 1;
  amddwarf_op *ops = calloc(capacity, sizeof *ops);
  amddwarf_op *again = calloc(capacity, sizeof *again);
  uint8_t *encoded = malloc(capacity);
  char *text = NULL;
  check(ops && again && encoded);

  size_t count = 0;
  amddwarf_error err;
  amddwarf_status st = amddwarf_expr_decode(bytes, length, &format, ops, capacity, &count, &err);
  if (st != AMDDWARF_OK) {
    /* Errors name an offset inside the input and keep what came before. */
    check(st < 0);
    check(err.offset == AMDDWARF_NO_OFFSET || err.offset <= length);
    check(count <= capacity);
    for (size_t i = 0; i < count; i++)
      check(ops[i].offset < length && ops[i].offset + ops[i].size <= length);
    goto done;
  }
  check(count <= length);

  /* Printing always succeeds and reports its full length. */
  size_t text_length = 0;
  st = amddwarf_expr_print(ops, count, &format, AMDDWARF_PRINT_DEFAULT, NULL, 0, &text_length);
  check(st == AMDDWARF_E_NO_SPACE && text_length > 0);
  text = malloc(text_length + 1);
  check(text != NULL);
  check(amddwarf_expr_print(ops, count, &format, data[0] >> 6 & 1, text, text_length + 1,
                            &text_length) == AMDDWARF_OK);

  /* Minimal re-encoding is never longer than the input. */
  size_t encoded_size = 0;
  st = amddwarf_expr_encode(ops, count, &format, encoded, capacity, &encoded_size, &err);
  check(st == AMDDWARF_OK);
  check(encoded_size <= length);
  size_t count2 = 0;
  st = amddwarf_expr_decode(encoded, encoded_size, &format, again, capacity, &count2, &err);
  check(st == AMDDWARF_OK);
  check(count2 == count);
  same_ops(ops, again, count);

done:
  free(text);
  free(encoded);
  free(again);
  free(ops);
  return 0;
}
