/* The value printer of `amddwarf eval`: bytes read from a location, printed
 * by their DWARF type the way a debugger does (specs/eval-paths.md). */
#ifndef AMDDWARF_EVAL_PRINT_H
#define AMDDWARF_EVAL_PRINT_H

#include "eval_type.h"
#include "object_cli.h"

/* Appends the value of TYPE held in the SIZE bytes at BYTES (little-endian). */
void eval_print_value(cli_buf *out, const amddwarf_object *object, eval_type type,
                      const uint8_t *bytes, size_t size);

/* Appends a pointer value: "(TYPE_NAME) 0xADDRESS", then " [SPACE]" unless
   ASPACE is the generic space. */
void eval_print_pointer(cli_buf *out, const char *type_name, uint32_t aspace, uint64_t address);

/* The short name of DW_ASPACE ASPACE into BUF ("aspace<N>" when unknown). */
const char *eval_aspace_label(uint32_t aspace, char *buf, size_t size);

/* The little-endian unsigned value of the first min(SIZE, 8) bytes at BYTES. */
uint64_t eval_load_uint(const uint8_t *bytes, size_t size);

#endif
