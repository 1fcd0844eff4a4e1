/* Debug printf: format-string metadata and printf buffers. */
#ifndef AMDDWARF_PRINTF_H
#define AMDDWARF_PRINTF_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
