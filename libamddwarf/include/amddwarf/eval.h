/* The DWARF expression evaluator: location descriptions, values, reads and writes. */
#ifndef AMDDWARF_EVAL_H
#define AMDDWARF_EVAL_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
