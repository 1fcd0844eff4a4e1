/* A location expression's bytes as one line of text, in the spelling of
 * llvm-dwarfdump (amddwarf_expr_spell, amddwarf_expr_print, <amddwarf/expr.h>), appended to a
 * growing text for the layers that build longer texts around it. */
#ifndef AMDDWARF_EXPR_SPELL_H
#define AMDDWARF_EXPR_SPELL_H

#include <amddwarf/expr.h>

#include "common/text.h"

/* Appends OPS as amddwarf_expr_print prints them; E_INVALID_ARGUMENT (and
   nothing appended) where amddwarf_expr_print would refuse them. */
amddwarf_status amddwarf__expr_print_append(amddwarf_text *out, const amddwarf_op *ops,
                                           size_t count, const amddwarf_expr_format *format,
                                           unsigned flags);

/* Appends expression BYTES (SIZE), decoded under FORMAT, as
   amddwarf_expr_spell spells it. Returns the decoding status, or
   E_NO_MEMORY when the operations could not be decoded for lack of memory. */
amddwarf_status amddwarf__expr_spell_append(amddwarf_text *out, const amddwarf_expr_format *format,
                                           const uint8_t *bytes, size_t size);

#endif
