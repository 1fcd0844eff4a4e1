/* Call frame information and virtual unwinding. */
#ifndef AMDDWARF_CFI_H
#define AMDDWARF_CFI_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
