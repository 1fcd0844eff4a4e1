/* Code objects: ELF, DWARF DIEs, types, variables and line tables. */
#ifndef AMDDWARF_OBJECT_H
#define AMDDWARF_OBJECT_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
