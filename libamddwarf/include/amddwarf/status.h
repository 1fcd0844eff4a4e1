/* Status codes and error details.
 *
 * Every fallible call returns an amddwarf_status: AMDDWARF_OK (0), a small
 * positive non-error outcome (AMDDWARF_END, AMDDWARF_NOT_FOUND), or a negative
 * error. Where a call takes an `amddwarf_error *err`, it may be NULL; when it is
 * not, a failing call fills it with the status, where the problem is and a
 * formatted one-line message. A successful call leaves *err untouched. */
#ifndef AMDDWARF_STATUS_H
#define AMDDWARF_STATUS_H

#include <stdint.h>
#include <amddwarf/export.h>

AMDDWARF_BEGIN_DECLS

typedef enum amddwarf_status {
#define AMDDWARF_STATUS(ENUM, value, name, message) AMDDWARF_##ENUM = value,
#include <amddwarf/status.def>
#undef AMDDWARF_STATUS
} amddwarf_status;

/* Value of amddwarf_error.offset when the error has no position. */
#define AMDDWARF_NO_OFFSET UINT64_MAX
/* Value of amddwarf_error.opcode when no opcode is involved. */
#define AMDDWARF_NO_OPCODE (-1)
#define AMDDWARF_ERROR_MESSAGE_SIZE 256

typedef struct amddwarf_error {
  amddwarf_status status;
  /* Byte offset of the failing item within its input (the expression, the
     section named in the message, the buffer), or AMDDWARF_NO_OFFSET. */
  uint64_t offset;
  /* Raw opcode of the failing operation or instruction, or AMDDWARF_NO_OPCODE. */
  int32_t opcode;
  /* Sub-opcode (DW_OP_LLVM_user), or AMDDWARF_NO_OPCODE. */
  int32_t subop;
  /* NUL-terminated description naming what failed and where. */
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
} amddwarf_error;

/* Stable lower-case name of STATUS ("truncated"), or "unknown" for a value not
   in the table. The string is static. */
AMDDWARF_API const char *amddwarf_status_name(amddwarf_status status);

/* One-line description of STATUS; static string, "unknown status" if unknown. */
AMDDWARF_API const char *amddwarf_status_message(amddwarf_status status);

/* Looks a status up by its name; returns 0 and sets *STATUS, or -1. */
AMDDWARF_API int amddwarf_status_from_name(const char *name, amddwarf_status *status);

/* Resets ERR to "no error". */
AMDDWARF_API void amddwarf_error_clear(amddwarf_error *err);
/* An error as amddwarf_error_clear leaves it, for an initializer:
   amddwarf_error err = AMDDWARF_ERROR_INIT; */
#define AMDDWARF_ERROR_INIT                                                                       \
  {AMDDWARF_OK, AMDDWARF_NO_OFFSET, AMDDWARF_NO_OPCODE, AMDDWARF_NO_OPCODE, ""}

AMDDWARF_END_DECLS

#endif
