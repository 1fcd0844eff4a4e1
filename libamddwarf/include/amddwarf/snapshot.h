/* Snapshot-backed target: a JSON wave state serving the target interface. */
#ifndef AMDDWARF_SNAPSHOT_H
#define AMDDWARF_SNAPSHOT_H

#include <amddwarf/export.h>
#include <amddwarf/status.h>

AMDDWARF_BEGIN_DECLS

AMDDWARF_END_DECLS

#endif
