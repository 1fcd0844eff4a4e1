/* DWARF type DIEs as a C debugger sees them: arrays by dimension (a partly
 * indexed array is a type of its own), struct members with their bit
 * layout, sizes, signedness and C spellings. */
#ifndef AMDDWARF_DEBUG_TYPES_H
#define AMDDWARF_DEBUG_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/object.h>

enum { AMDDWARF_DEBUG_MAX_DIMS = 16 };

/* A type as a path sees it: DIE as written (typedefs kept for its name)
   and, for an array, how many leading dimensions were indexed already
   ("m[1]" of int m[3][4] is DIE int[3][4] with DIMS_USED 1). DIE NULL is
   void. */
typedef struct amddwarf_debug_type {
  const amddwarf_die_info *die;
  unsigned dims_used;
} amddwarf_debug_type;

/* One dimension of an array: valid indexes LOWER .. LOWER + COUNT - 1;
   KNOWN 0 when the count is not a constant (a flexible array). */
typedef struct amddwarf_debug_dim {
  int64_t lower;
  uint64_t count;
  int known;
} amddwarf_debug_dim;

/* The dimensions of array type ARRAY (stripped) into DIMS; returns how many
   (at most AMDDWARF_DEBUG_MAX_DIMS). OBJECT (may be NULL) gives the unit's
   language for the default lower bound. */
size_t amddwarf__debug_array_dims(const amddwarf_object *object, const amddwarf_die_info *array,
                                 amddwarf_debug_dim *dims);

/* The stripped DIE of TYPE when it is an array with dimensions left, else NULL. */
const amddwarf_die_info *amddwarf__debug_type_array(amddwarf_debug_type type);

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

/* Struct, union or class (T stripped). */
int amddwarf__debug_is_aggregate(const amddwarf_die_info *t);
/* A member or base class that takes storage (not a static member). */
int amddwarf__debug_is_data_member(const amddwarf_die_info *m);

/* Where a member (or inheritance) DIE lives in its aggregate. */
typedef struct amddwarf_debug_member_layout {
  uint64_t bit_offset; /* from the aggregate's start */
  uint64_t bit_size;   /* a bitfield's width, else 0 */
} amddwarf_debug_member_layout;

/* MEMBER's layout. AMDDWARF_OK, or E_UNSUPPORTED (a member location that is
   neither a constant nor DW_OP_plus_uconst) or E_MALFORMED (a DWARF 2/3
   bitfield outside its storage unit) with MESSAGE (SIZE bytes). */
amddwarf_status amddwarf__debug_member_layout_get(const amddwarf_object *object,
                                                 const amddwarf_die_info *member,
                                                 amddwarf_debug_member_layout *layout,
                                                 char *message, size_t size);

/* Sign-extends the low BITS bits of V when SIGNED_ is nonzero, else masks them. */
uint64_t amddwarf__debug_extend_bits(uint64_t v, uint64_t bits, int signed_);

/* Whether base or enumeration TYPE holds signed values. */
int amddwarf__debug_type_is_signed(const amddwarf_die_info *type);

/* The little-endian unsigned value of the first min(SIZE, 8) bytes at BYTES. */
uint64_t amddwarf__debug_load_uint(const uint8_t *bytes, size_t size);

#endif
