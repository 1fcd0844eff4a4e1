/* libamddwarf: AMDGPU DWARF extensions for heterogeneous debugging.
 * The umbrella header; each concern also has a header of its own. */
#ifndef AMDDWARF_H
#define AMDDWARF_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>
#include <amddwarf/allocator.h>
#include <amddwarf/version.h>
#include <amddwarf/amdgpu.h>
#include <amddwarf/dwarf.h>
#include <amddwarf/expr.h>
#include <amddwarf/target.h>
#include <amddwarf/eval.h>
#include <amddwarf/snapshot.h>
#include <amddwarf/stop.h>
#include <amddwarf/cfi.h>
#include <amddwarf/object.h>
#include <amddwarf/container.h>
#include <amddwarf/debug.h>
#include <amddwarf/spirv.h>
#include <amddwarf/gpuav.h>
#include <amddwarf/printf.h>
#include <amddwarf/disasm.h>
#include <amddwarf/produce.h>
#include <amddwarf/stats.h>

#endif
