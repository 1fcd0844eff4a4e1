/* Bounded text output with snprintf semantics (implemented in records.c):
 * appends write what fits in the caller's buffer (always NUL-terminated when
 * it has room) and count the length the whole text needs. One printf append
 * renders at most 511 characters. */
#ifndef AMDDWARF_GPUAV_TEXT_H
#define AMDDWARF_GPUAV_TEXT_H

#include <stddef.h>
#include "common/error.h"

typedef struct amddwarf_gpuav_text {
  char *out;
  size_t size;   /* capacity of OUT including the NUL */
  size_t length; /* length the text needs so far */
} amddwarf_gpuav_text;

void amddwarf__gpuav_text_init(amddwarf_gpuav_text *t, char *out, size_t size);
void amddwarf__gpuav_text_append(amddwarf_gpuav_text *t, const char *s, size_t n);
void amddwarf__gpuav_text_puts(amddwarf_gpuav_text *t, const char *s);
void amddwarf__gpuav_text_printf(amddwarf_gpuav_text *t, const char *format, ...) AMDDWARF_PRINTF_LIKE(2, 3);

#endif
