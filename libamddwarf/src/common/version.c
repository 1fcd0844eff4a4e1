/* Library version. */
#include <amddwarf/version.h>

#include "amddwarf_config.h"

const char *amddwarf_version(void)
{
  return AMDDWARF_VERSION_STRING;
}
