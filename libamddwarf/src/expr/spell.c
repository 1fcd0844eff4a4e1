/* Expressions spelled from their bytes (spell.h): decode, then print; what
 * does not decode is named after what did. */
#include "expr/spell.h"

#include <string.h>

#include "common/error.h"
#include "common/mem.h"

amddwarf_status amddwarf__expr_spell_append(amddwarf_text *out, const amddwarf_expr_format *format,
                                           const uint8_t *bytes, size_t size)
{
  amddwarf_allocator a = amddwarf__allocator_resolve(out->allocator);
  amddwarf_error err;
  size_t count = 0, length = 0;
  char small[1];
  amddwarf_error_clear(&err);
  if (size == 0)
    return AMDDWARF_OK;
  amddwarf_op *ops = amddwarf__mem_calloc(&a, size, sizeof *ops);
  char *text = NULL;
  if (ops == NULL)
    return AMDDWARF_E_NO_MEMORY;
  amddwarf_status st = amddwarf_expr_decode(bytes, size, format, ops, size, &count, &err);
  if (count > 0) {
    amddwarf_expr_print(ops, count, format, AMDDWARF_PRINT_DEFAULT, small, 1, &length);
    text = amddwarf__mem_alloc(&a, length + 1);
    if (text != NULL) {
      amddwarf_expr_print(ops, count, format, AMDDWARF_PRINT_DEFAULT, text, length + 1, &length);
      amddwarf__text_append(out, text, length);
      amddwarf__mem_free(&a, text, length + 1);
    }
  }
  if (st != AMDDWARF_OK)
    amddwarf__text_printf(out, "%s<error: %s>", count ? ", " : "",
                         err.message[0] ? err.message : amddwarf_status_message(st));
  amddwarf__mem_free(&a, ops, size * sizeof *ops);
  return st;
}

amddwarf_status amddwarf_expr_spell(const amddwarf_expr_format *format, const uint8_t *bytes,
                                    size_t size, char *buf, size_t buf_size, size_t *length)
{
  amddwarf_text t;
  amddwarf__text_init(&t, NULL);
  amddwarf_status st = amddwarf__expr_spell_append(&t, format, bytes, size);
  if (amddwarf__text_status(&t) != AMDDWARF_OK)
    st = AMDDWARF_E_NO_MEMORY;
  if (length != NULL)
    *length = t.len;
  if (buf_size > 0) {
    size_t n = t.len < buf_size - 1 ? t.len : buf_size - 1;
    memcpy(buf, amddwarf__text_str(&t), n);
    buf[n] = '\0';
  }
  amddwarf__text_free(&t);
  return st;
}
