/* SPIR-V module index and source-line resolution. */
#ifndef AMDDWARF_SPIRV_H
#define AMDDWARF_SPIRV_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
