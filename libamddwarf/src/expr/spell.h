/* A location expression's bytes as one line of text, in the spelling of
 * llvm-dwarfdump (amddwarf_expr_spell, <amddwarf/expr.h>), appended to a
 * growing text for the layers that build longer texts around it. */
#ifndef AMDDWARF_EXPR_SPELL_H
#define AMDDWARF_EXPR_SPELL_H

#include <amddwarf/expr.h>

#include "common/text.h"

/* Appends expression BYTES (SIZE), decoded under FORMAT, as
   amddwarf_expr_spell spells it. Returns the decoding status, or
   E_NO_MEMORY when the operations could not be decoded for lack of memory. */
amddwarf_status amddwarf__expr_spell_append(amddwarf_text *out, const amddwarf_expr_format *format,
                                           const uint8_t *bytes, size_t size);

#endif
