/* Filling amddwarf_error: the one way the library reports a failure.
 *
 * Both functions return STATUS so a caller writes
 *   return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, offset, "...", ...);
 * ERR may be NULL, in which case only the status is returned. The message
 * should name what failed and where (section, operation) in one line. */
#ifndef AMDDWARF_COMMON_ERROR_H
#define AMDDWARF_COMMON_ERROR_H

#include <amddwarf/status.h>

#if defined(__GNUC__) || defined(__clang__)
#define AMDDWARF_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define AMDDWARF_PRINTF_LIKE(fmt, args)
#endif

amddwarf_status amddwarf__fail(amddwarf_error *err, amddwarf_status status, uint64_t offset,
                              const char *format, ...) AMDDWARF_PRINTF_LIKE(4, 5);

/* As amddwarf__fail, also recording the opcode and sub-opcode (or AMDDWARF_NO_OPCODE). */
amddwarf_status amddwarf__fail_op(amddwarf_error *err, amddwarf_status status, uint64_t offset,
                                 int32_t opcode, int32_t subop, const char *format, ...)
    AMDDWARF_PRINTF_LIKE(6, 7);

#endif
