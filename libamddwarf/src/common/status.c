/* Status names and messages, generated from status.def. */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct status_entry {
  amddwarf_status status;
  const char *name;
  const char *message;
} status_entry;

static const status_entry status_table[] = {
#define AMDDWARF_STATUS(ENUM, value, name, message) {AMDDWARF_##ENUM, name, message},
#include <amddwarf/status.def>
#undef AMDDWARF_STATUS
};

static const status_entry *status_find(amddwarf_status status)
{
  for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
    if (status_table[i].status == status)
      return &status_table[i];
  return NULL;
}

const char *amddwarf_status_name(amddwarf_status status)
{
  const status_entry *entry = status_find(status);
  return entry ? entry->name : "unknown";
}

const char *amddwarf_status_message(amddwarf_status status)
{
  const status_entry *entry = status_find(status);
  return entry ? entry->message : "unknown status";
}

int amddwarf_status_from_name(const char *name, amddwarf_status *status)
{
  for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++) {
    if (strcmp(status_table[i].name, name) == 0) {
      *status = status_table[i].status;
      return 0;
    }
  }
  return -1;
}

void amddwarf_error_clear(amddwarf_error *err)
{
  if (!err)
    return;
  err->status = AMDDWARF_OK;
  err->offset = AMDDWARF_NO_OFFSET;
  err->opcode = AMDDWARF_NO_OPCODE;
  err->subop = AMDDWARF_NO_OPCODE;
  err->message[0] = '\0';
}

amddwarf_status amddwarf__fail_op(amddwarf_error *err, amddwarf_status status, uint64_t offset,
                                 int32_t opcode, int32_t subop, const char *format, ...)
{
  if (!err)
    return status;
  err->status = status;
  err->offset = offset;
  err->opcode = opcode;
  err->subop = subop;
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof err->message, format, args);
  va_end(args);
  return status;
}

amddwarf_status amddwarf__fail(amddwarf_error *err, amddwarf_status status, uint64_t offset,
                              const char *format, ...)
{
  if (!err)
    return status;
  err->status = status;
  err->offset = offset;
  err->opcode = AMDDWARF_NO_OPCODE;
  err->subop = AMDDWARF_NO_OPCODE;
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof err->message, format, args);
  va_end(args);
  return status;
}
