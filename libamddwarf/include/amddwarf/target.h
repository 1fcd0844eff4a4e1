/* The target interface: how the evaluator reaches registers, memory, lanes and DIEs. */
#ifndef AMDDWARF_TARGET_H
#define AMDDWARF_TARGET_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
