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
  size_t count = 0;
  amddwarf_error_clear(&err);
  if (size == 0)
    return AMDDWARF_OK;
  amddwarf_op *ops = amddwarf__mem_calloc(&a, size, sizeof *ops);
  if (ops == NULL)
    return AMDDWARF_E_NO_MEMORY;
  amddwarf_status st = amddwarf_expr_decode(bytes, size, format, ops, size, &count, &err);
  if (count > 0)
    amddwarf__expr_print_append(out, ops, count, format, AMDDWARF_PRINT_DEFAULT);
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
  amddwarf__text_init_fixed(&t, buf, buf_size);
  amddwarf_status st = amddwarf__expr_spell_append(&t, format, bytes, size);
  if (length != NULL)
    *length = t.len;
  return st;
}
