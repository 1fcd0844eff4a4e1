/* Library version. */
#ifndef AMDDWARF_VERSION_H
#define AMDDWARF_VERSION_H

#include <amddwarf/export.h>

AMDDWARF_BEGIN_DECLS

#define AMDDWARF_VERSION_MAJOR 0
#define AMDDWARF_VERSION_MINOR 1
#define AMDDWARF_VERSION_PATCH 0

/* "0.1.0"; static string of the library actually linked. */
AMDDWARF_API const char *amddwarf_version(void);

AMDDWARF_END_DECLS

#endif
