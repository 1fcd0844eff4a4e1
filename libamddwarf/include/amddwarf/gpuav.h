/* GPU-assisted-validation debug output records. */
#ifndef AMDDWARF_GPUAV_H
#define AMDDWARF_GPUAV_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
