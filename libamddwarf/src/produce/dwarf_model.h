/* The DWARF builder's model: units, DIEs, attributes, lists and line rows,
 * shared by the builder API (dwarf_builder.c) and the section writer
 * (dwarf_writer.c). */
#ifndef AMDDWARF_PRODUCE_DWARF_MODEL_H
#define AMDDWARF_PRODUCE_DWARF_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/produce.h>

typedef enum value_kind {
  VALUE_UDATA,
  VALUE_SDATA,
  VALUE_STRING,
  VALUE_FLAG,
  VALUE_REF,
  VALUE_ADDR,    /* u: text offset */
  VALUE_EXPR,    /* expr */
  VALUE_LOCLIST, /* u: list index */
  VALUE_RANGES,  /* u: range list index */
  VALUE_LINE,    /* DW_AT_stmt_list of the unit */
  VALUE_ADDR_BASE
} value_kind;

typedef struct dw_attr {
  uint16_t at;
  uint16_t form;     /* chosen by the writer */
  value_kind kind;
  uint64_t u;
  char *str;
  size_t str_size;
  amddwarf_expr_builder *expr;
  uint8_t *bytes;    /* encoded expression during layout */
  size_t byte_size;
  uint64_t index;    /* .debug_addr index of a VALUE_ADDR (DWARF 5) */
} dw_attr;

typedef struct dw_die {
  uint16_t tag;
  uint32_t unit;                /* index into units */
  amddwarf_die_id parent, first_child, last_child, next_sibling;
  dw_attr *attrs;
  size_t attr_count, attr_capacity;
  uint32_t abbrev;
  uint64_t offset;              /* in .debug_info */
  uint64_t size;
} dw_die;

typedef struct dw_loc_entry {
  uint64_t start, end;
  amddwarf_expr_builder *expr;
} dw_loc_entry;

typedef struct dw_loclist {
  uint32_t unit;
  dw_loc_entry *entries;
  size_t count, capacity;
  uint64_t offset;
} dw_loclist;

typedef struct dw_rangelist {
  uint32_t unit;
  uint64_t *starts, *ends;
  size_t count;
  uint64_t offset;
} dw_rangelist;

typedef struct dw_file {
  char *name;
  char *dir;
} dw_file;

typedef struct dw_row {
  uint64_t address;
  uint32_t file, line, column;
  int is_stmt;
  size_t order;
} dw_row;

typedef struct dw_unit {
  amddwarf_die_id die;
  char *name, *comp_dir;
  dw_file *files;
  size_t file_count, file_capacity;
  dw_row *rows;
  size_t row_count, row_capacity;
  uint64_t *addrs;              /* .debug_addr table (v5) */
  size_t addr_count, addr_capacity;
  uint64_t offset;              /* of the unit header in .debug_info */
  uint64_t line_offset, addr_base;
  uint64_t low, high;           /* text offsets covered by the unit */
  amddwarf_die_id lane_types[2]; /* generated __uint32/__uint64 */
  amddwarf_die_id active_lane_pc, divergent_lane_pc;
} dw_unit;

struct amddwarf_dwarf_builder {
  amddwarf_allocator alloc;
  amddwarf_dwarf_options options;
  dw_die *dies;
  size_t die_count, die_capacity;
  dw_unit *units;
  size_t unit_count, unit_capacity;
  dw_loclist *loclists;
  size_t loclist_count, loclist_capacity;
  dw_rangelist *rangelists;
  size_t rangelist_count, rangelist_capacity;
};

/* The DIE of id ID or NULL. */
dw_die *amddwarf__dwarf_die_get(const amddwarf_dwarf_builder *b, amddwarf_die_id id);
/* The attribute AT of DIE or NULL. */
dw_attr *amddwarf__dwarf_die_attr(const dw_die *die, uint16_t at);
/* Adds a new attribute (checked for duplicates); *OUT points at it. */
amddwarf_status amddwarf__dwarf_attr_add(amddwarf_dwarf_builder *b, amddwarf_die_id die,
                                        uint16_t at, value_kind kind, dw_attr **out,
                                        amddwarf_error *err);
/* Copies a string with the builder's allocator. */
char *amddwarf__dwarf_strdup(amddwarf_dwarf_builder *b, const char *s, size_t *size);

#endif
