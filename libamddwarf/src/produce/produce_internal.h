/* Internals shared by the producer files: a growable byte buffer for
 * sections, and expression helpers the DWARF writer needs. */
#ifndef AMDDWARF_PRODUCE_INTERNAL_H
#define AMDDWARF_PRODUCE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/produce.h>

/* A section being written. Writes after an allocation failure are dropped and
   remembered in FAILED, so a writer checks once at the end. */
typedef struct amddwarf_buf {
  const amddwarf_allocator *alloc;
  uint8_t *data;
  size_t size, capacity;
  int failed;
} amddwarf_buf;

void amddwarf__buf_init(amddwarf_buf *buf, const amddwarf_allocator *alloc);
void amddwarf__buf_free(amddwarf_buf *buf);
void amddwarf__buf_bytes(amddwarf_buf *buf, const void *bytes, size_t size);
void amddwarf__buf_u8(amddwarf_buf *buf, uint8_t value);
/* Little-endian unsigned of SIZE (1, 2, 4 or 8) bytes. */
void amddwarf__buf_uint(amddwarf_buf *buf, uint64_t value, unsigned size);
void amddwarf__buf_uleb(amddwarf_buf *buf, uint64_t value);
void amddwarf__buf_sleb(amddwarf_buf *buf, int64_t value);
void amddwarf__buf_cstr(amddwarf_buf *buf, const char *text);
/* Hands the contents to the caller as an exactly sized allocation (NULL for
   an empty buffer) and empties BUF; E_NO_MEMORY if a write failed. */
amddwarf_status amddwarf__buf_take(amddwarf_buf *buf, uint8_t **out, size_t *size,
                                  amddwarf_error *err);
/* Overwrites SIZE bytes at OFFSET (already written) with VALUE. */
void amddwarf__buf_patch(amddwarf_buf *buf, size_t offset, uint64_t value, unsigned size);
/* Writes a unit length field (0xffffffff + 8 bytes in 64-bit DWARF) to be
   patched by amddwarf__buf_end_length; returns the offset after the field. */
size_t amddwarf__buf_begin_length(amddwarf_buf *buf, unsigned offset_size);
void amddwarf__buf_end_length(amddwarf_buf *buf, size_t after_field, unsigned offset_size);

/* Encodes B into a new buffer of ALLOC (NULL when empty). */
amddwarf_status amddwarf__produce_expr_bytes(const amddwarf_expr_builder *b,
                                            const amddwarf_expr_resolver *resolver,
                                            const amddwarf_allocator *alloc, uint8_t **out,
                                            size_t *size, amddwarf_error *err);

/* A deep copy of SRC (operations, labels, blocks, symbolic operands). */
amddwarf_status amddwarf__produce_expr_copy(const amddwarf_expr_builder *src,
                                           const amddwarf_allocator *alloc,
                                           amddwarf_expr_builder **out, amddwarf_error *err);

/* The allocator of a DWARF builder (for expressions it creates). */
const amddwarf_allocator *amddwarf__dwarf_builder_allocator(const amddwarf_dwarf_builder *b);

/* The allocator of a CFI builder (the one its _write output comes from). */
const amddwarf_allocator *amddwarf__cfi_builder_allocator(const amddwarf_cfi_builder *b);

/* Looks up a DIE by its DW_AT_name under UNIT (for "@name" operands);
   0 when none. */
amddwarf_die_id amddwarf__dwarf_find_named(const amddwarf_dwarf_builder *b, amddwarf_die_id unit,
                                          const char *name);

/* Section contents the writer produced, for the ELF writer. */
typedef struct amddwarf_dwarf_sections {
  amddwarf_buf info, abbrev, str, line, loc, ranges, addr; /* loc/ranges: v4 .debug_loc/
                                                               .debug_ranges, v5 the lists */
} amddwarf_dwarf_sections;

amddwarf_status amddwarf__dwarf_write_sections(amddwarf_dwarf_builder *b, uint64_t text_base,
                                              uint64_t text_size, amddwarf_dwarf_sections *out,
                                              amddwarf_error *err);
void amddwarf__dwarf_sections_free(amddwarf_dwarf_sections *s);
uint16_t amddwarf__dwarf_builder_version(const amddwarf_dwarf_builder *b);

#endif
