/* DWARF type DIEs as a C debugger sees them: arrays by dimension (a partly
 * indexed array is a type of its own), struct members with their bit
 * layout, sizes, signedness and C spellings. */
#ifndef AMDDWARF_DEBUG_TYPES_H
#define AMDDWARF_DEBUG_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/object.h>

enum { AMDDWARF_DEBUG_MAX_DIMS = 16 };

/* A type as a path sees it: the reference of its DIE as written (typedefs
   kept for its name) and, for an array, how many leading dimensions were
   indexed already ("m[1]" of int m[3][4] is DIE int[3][4] with DIMS_USED
   1). A DIE that is not valid (amddwarf_die_ref_valid) is void. */
typedef struct amddwarf_debug_type {
  amddwarf_die_ref die;
  unsigned dims_used;
} amddwarf_debug_type;

/* One dimension of an array (amddwarf_type_array_dims). */
typedef amddwarf_array_dim amddwarf_debug_dim;

/* DIE's fields (amddwarf_object_die_fields): 1, or 0 (*OUT zeroed) for an
   invalid reference and a DIE that cannot be read. Children are walked as
   for (c = t.first_child; amddwarf__debug_fields(o, c, &m); c = m.next_sibling). */
int amddwarf__debug_fields(const amddwarf_object *object, amddwarf_die_ref die,
                          amddwarf_die_fields *out);

/* The fields of TYPE past its typedefs and qualifiers: 1, or 0 for void. */
int amddwarf__debug_strip_fields(const amddwarf_object *object, amddwarf_die_ref type,
                                amddwarf_die_fields *out);

/* The dimensions of array type ARRAY into DIMS (at most
   AMDDWARF_DEBUG_MAX_DIMS); returns how many. */
size_t amddwarf__debug_array_dims(const amddwarf_object *object, amddwarf_die_ref array,
                                 amddwarf_debug_dim *dims);

/* The stripped DIE of TYPE when it is an array with dimensions left, else
   a reference that is not valid. */
amddwarf_die_ref amddwarf__debug_type_array(const amddwarf_object *object,
                                           amddwarf_debug_type type);

/* The type of an element of array TYPE (the next row, or the element type). */
amddwarf_debug_type amddwarf__debug_type_element(const amddwarf_object *object,
                                                amddwarf_debug_type type);

/* The byte size of TYPE (remaining dimensions of a partly indexed array).
   AMDDWARF_OK or AMDDWARF_NOT_FOUND. */
amddwarf_status amddwarf__debug_type_size(const amddwarf_object *object, amddwarf_debug_type type,
                                         uint64_t *size);

/* The C spelling of TYPE into BUF ("int[4]" for a row of int[3][4]). */
void amddwarf__debug_type_spell(const amddwarf_object *object, amddwarf_debug_type type,
                               char *buf, size_t size);

/* Struct, union or class (T stripped; NULL: no). */
int amddwarf__debug_is_aggregate(const amddwarf_die_fields *t);
/* A member or base class that takes storage (not a static member). */
int amddwarf__debug_is_data_member(const amddwarf_die_fields *m);

/* Where a member (or inheritance) DIE lives in its aggregate. */
typedef struct amddwarf_debug_member_layout {
  uint64_t bit_offset; /* from the aggregate's start */
  uint64_t bit_size;   /* a bitfield's width, else 0 */
} amddwarf_debug_member_layout;

/* MEMBER's layout. AMDDWARF_OK, or E_UNSUPPORTED (a member location that is
   neither a constant nor DW_OP_plus_uconst) or E_MALFORMED (a DWARF 2/3
   bitfield outside its storage unit) with MESSAGE (SIZE bytes). */
amddwarf_status amddwarf__debug_member_layout_get(const amddwarf_object *object,
                                                 const amddwarf_die_fields *member,
                                                 amddwarf_debug_member_layout *layout,
                                                 char *message, size_t size);

/* Sign-extends the low BITS bits of V when SIGNED_ is nonzero, else masks them. */
uint64_t amddwarf__debug_extend_bits(uint64_t v, uint64_t bits, int signed_);

/* Whether base or enumeration TYPE holds signed values. */
int amddwarf__debug_type_is_signed(const amddwarf_object *object, amddwarf_die_ref type);

/* The little-endian unsigned value of the first min(SIZE, 8) bytes at BYTES. */
uint64_t amddwarf__debug_load_uint(const uint8_t *bytes, size_t size);

#endif
