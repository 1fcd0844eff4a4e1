/* Test helper: code objects shared by the object tests (test_object_*.c),
 * assembled in memory with elf_build.h and dwarf_build.h. Every expected
 * value in the tests is derived from what is written here. */
#ifndef AMDDWARF_TEST_OBJECT_FIXTURE_H
#define AMDDWARF_TEST_OBJECT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/amddwarf.h>

#include "byte_buf.h"
#include "dwarf_build.h"
#include "elf_build.h"

/* Room for every image the object tests write. */
enum { TEST_IMAGE_SIZE = 65536 };

/* amddwarf_object_open_memory with default options, ERR cleared first. */
amddwarf_status open_test_object(const uint8_t *image, size_t size, amddwarf_object **out,
                                 amddwarf_error *err);

/* A DWARF 5 gfx900 object with two units.
 *
 * Unit 0 (legacy convention, DW_LANG_LLVM_HIP, low_pc 0x1000): types int,
 * struct S {int a; int b;}, const S, a local (address class 2) pointer to
 * const S, int[2][3] (count 2, upper bound 2), int[] with an expression bound,
 * typedef myint, float; subprogram "kern" (low_pc by addrx 0, 0x200 long,
 * frame base DW_OP_regx 65) with variable x (loclistx 0), parameter y (list
 * at .debug_loclists offset LIST_Y) and a lexical block (rnglistx 0) holding
 * z (fbreg +4, lit1, swap, xderef).
 *
 * Unit 1 (DW_LANG_HIP, low_pc 0x5000): variable "lanes" with the old code of
 * DW_AT_LLVM_lane_pc (0x3e0b), which makes it an extension unit.
 *
 * .debug_addr holds 0x1000 0x1100 0x1200 0x1300.
 * List x: base_addressx 1 (0x1100); offset_pair 0x10-0x20 reg0; startx_endx
 *   0..2 (0x1000-0x1200) reg1; startx_length 3 + 0x8 reg2; default lit1
 *   stack_value.
 * List y: base_address 0x2000; offset_pair 0-4 fbreg 8; start_end
 *   0x3000-0x3010 reg3; start_length 0x4000 + 0x20 with an empty expression.
 * Range list 0: startx_length 0 + 0x40; offset_pair 0x80-0x90 from the unit's
 *   low_pc.
 * Line program (DWARF 5, /src, files a.cl and inc/b.h): 0x1000 a.cl:10:7;
 *   0x1008 b.h:11:7 prologue_end; 0x1020 b.h:11:7 not a statement; end at
 *   0x1100. */
typedef struct dwarf5_sample {
  dwb dies;
  byte_buf addr, loclists, rnglists, line, line_str;
  size_t off_int, off_struct, off_ptr, off_arr, off_arr_expr, off_typedef, off_const, off_vec;
  size_t off_sub, off_block, off_x, off_y, off_z, off_ext_var;
  size_t list_x, list_y; /* offsets of the lists in .debug_loclists */
  size_t image_size;     /* of the object dwarf5_sample_object wrote */
} dwarf5_sample;

/* Writes the sections of the sample into D. */
void dwarf5_sample_build(dwarf5_sample *d);
/* Writes D's sections as an ET_DYN object into IMAGE; returns its size. */
size_t dwarf5_sample_image(const dwarf5_sample *d, uint8_t *image, size_t cap);
/* Both: builds D and writes the object into IMAGE. */
size_t dwarf5_sample_object(dwarf5_sample *d, uint8_t *image, size_t cap);
/* dwarf5_sample_object, then the object opened from IMAGE (asserting success). */
amddwarf_object *dwarf5_sample_open(dwarf5_sample *d, uint8_t *image, size_t cap);

#endif
