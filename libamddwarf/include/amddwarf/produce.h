/* Producers: expression and CFI builders, lane-PC procedures, code-object writer. */
#ifndef AMDDWARF_PRODUCE_H
#define AMDDWARF_PRODUCE_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
