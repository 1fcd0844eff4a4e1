/* Text of values: bytes read from a location printed by their DWARF type
 * the way a debugger does (specs/eval-paths.md), bits no location describes
 * as <optimized out>; and pointer values. */
#ifndef AMDDWARF_DEBUG_FORMAT_H
#define AMDDWARF_DEBUG_FORMAT_H

#include "common/text.h"
#include "debug/types.h"

/* Appends the value of TYPE held in the SIZE bytes at BYTES (little-endian).
   VALID marks the bits known (bit i of the value is bit i % 8 of
   VALID[i / 8]; NULL: all of them): a scalar, pointer or bitfield with a
   bit not known prints "<optimized out>", aggregates and arrays print their
   known parts. */
void amddwarf__debug_format_value(amddwarf_text *out, const amddwarf_object *object,
                                 amddwarf_debug_type type, const uint8_t *bytes,
                                 const uint8_t *valid, size_t size);

/* The bytes of DIE's DW_AT_const_value as a value of DIE's type: a block's
   own bytes, else the constant's in little-endian order written to BUF
   (16 bytes; the type's size, at most 16, in *SIZE). */
const uint8_t *amddwarf__debug_const_bytes(const amddwarf_object *object,
                                          const amddwarf_die_fields *die, uint8_t buf[16],
                                          uint64_t *size);

/* Whether the BITS bits of VALID from bit FIRST are all set (VALID NULL: yes). */
int amddwarf__debug_bits_valid(const uint8_t *valid, uint64_t first, uint64_t bits);

/* Whether TYPE prints its parts one by one (an aggregate or an array), so
   that some can be known and others not. */
int amddwarf__debug_type_has_parts(const amddwarf_object *object, amddwarf_debug_type type);

/* Appends a pointer value: "(TYPE_NAME) 0xADDRESS", then " [SPACE]" unless
   ASPACE is the generic space. */
void amddwarf__debug_format_pointer(amddwarf_text *out, const char *type_name, uint32_t aspace,
                                   uint64_t address);

/* The short name of DW_ASPACE ASPACE into BUF ("aspace<N>" when unknown). */
const char *amddwarf__debug_aspace_label(uint32_t aspace, char *buf, size_t size);

#endif
