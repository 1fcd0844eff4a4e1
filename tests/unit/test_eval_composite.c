/* Composite properties over many random cases (fixed seeds, reproducible):
 * canonicalization is idempotent and preserves every bit; what is written
 * through any composite reads back, bits outside the write are untouched, and
 * a failing write leaves nothing half-written; an incomplete composite moved by
 * DW_OP_swap, DW_OP_rot and DW_OP_drop. Also the address-space, swizzle and
 * processor tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint64_t rnd_below(uint64_t n)
{
  return n ? rnd() % n : 0;
}

static const char WAVE[] =
    "{\"architecture\": \"gfx1030\", \"wave_size\": 32, \"lane\": 3,"
    " \"registers\": {\"s0\": \"0x03020100\", \"s1\": \"0x13121110\", \"s2\": \"0x23222120\","
    "   \"s3\": \"0x33323130\", \"s4\": \"0x43424140\", \"s5\": \"0x53525150\", \"s6\": \"0x63626160\","
    "   \"s7\": \"0x73727170\", \"v0\": [1, 2, 3, 4, 5, 6, 7, 8]},"
    " \"memory\": [{\"address\": \"0x1000\", \"bytes\": \"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\"},"
    "   {\"address_space\": \"private_lane\", \"lane\": 3, \"address\": \"0x40\", \"bytes\": \"8081828384858687\"}]}";

static int setup(void **state)
{
  return fx_setup(state, WAVE);
}

/* A random readable leaf (register, memory, implicit) of at most 32 bits. */
static amddwarf_location random_leaf(uint64_t *bits, const uint8_t *implicit_bytes)
{
  amddwarf_location loc;
  memset(&loc, 0, sizeof loc);
  uint64_t size = 1 + rnd_below(32);
  uint64_t off = rnd_below(33 - size);
  switch (rnd_below(4)) {
  case 0:
    loc.kind = AMDDWARF_LOCATION_REGISTER;
    loc.u.reg.regno = 32 + (uint32_t)rnd_below(8);
    break;
  case 1:
    loc.kind = AMDDWARF_LOCATION_MEMORY;
    loc.u.memory.aspace = 0;
    off += 8 * (0x1000 + rnd_below(56));
    break;
  case 2:
    loc.kind = AMDDWARF_LOCATION_MEMORY;
    loc.u.memory.aspace = 5;
    off += 8 * (0x40 + rnd_below(4));
    break;
  default:
    loc.kind = AMDDWARF_LOCATION_IMPLICIT;
    loc.u.implicit.bytes = implicit_bytes;
    loc.u.implicit.bit_size = 64;
    break;
  }
  loc.byte_offset = off / 8;
  loc.bit = (uint8_t)(off % 8);
  *bits = size;
  return loc;
}

static uint64_t parts_bits(const amddwarf_composite_part *parts, size_t n)
{
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += parts[i].bit_size;
  return total;
}

static amddwarf_location composite_of(const amddwarf_composite_part *parts, size_t n)
{
  amddwarf_location c;
  memset(&c, 0, sizeof c);
  c.kind = AMDDWARF_LOCATION_COMPOSITE;
  c.u.composite.parts = parts;
  c.u.composite.count = (uint32_t)n;
  c.u.composite.bit_size = parts_bits(parts, n);
  return c;
}

static void test_canonical_form_idempotent_and_bit_exact(void **state)
{
  eval_fixture *fx = *state;
  static const uint8_t implicit_bytes[8] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67};
  rng_state = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 500; round++) {
    /* An inner composite, referenced by some outer parts. */
    amddwarf_composite_part inner[6];
    size_t inner_n = 1 + rnd_below(6);
    for (size_t i = 0; i < inner_n; i++)
      inner[i].location = random_leaf(&inner[i].bit_size, implicit_bytes);
    amddwarf_location inner_loc = composite_of(inner, inner_n);
    amddwarf_composite_part parts[64];
    size_t n = 1 + rnd_below(8);
    for (size_t i = 0; i < n; i++) {
      uint64_t r = rnd_below(10);
      if (r < 2) {
        /* A slice of the inner composite. */
        uint64_t size = 1 + rnd_below(inner_loc.u.composite.bit_size);
        uint64_t off = rnd_below(inner_loc.u.composite.bit_size - size + 1);
        parts[i].location = inner_loc;
        parts[i].location.byte_offset = off / 8;
        parts[i].location.bit = (uint8_t)(off % 8);
        parts[i].bit_size = size;
      } else if (r < 3) {
        parts[i].location = random_leaf(&parts[i].bit_size, implicit_bytes);
        parts[i].bit_size = 0; /* an empty part */
      } else if (r < 5 && i > 0 && parts[i - 1].location.kind != AMDDWARF_LOCATION_COMPOSITE &&
                 parts[i - 1].location.kind != AMDDWARF_LOCATION_IMPLICIT) {
        /* Continue the previous part contiguously: must merge. */
        parts[i].location = parts[i - 1].location;
        uint64_t pos = parts[i].location.byte_offset * 8 + parts[i].location.bit + parts[i - 1].bit_size;
        parts[i].location.byte_offset = pos / 8;
        parts[i].location.bit = (uint8_t)(pos % 8);
        parts[i].bit_size = 1 + rnd_below(4);
        if (parts[i].location.kind == AMDDWARF_LOCATION_REGISTER && pos + parts[i].bit_size > 32)
          parts[i].bit_size = 0;
      } else {
        parts[i].location = random_leaf(&parts[i].bit_size, implicit_bytes);
      }
    }
    amddwarf_composite_part original[64];
    memcpy(original, parts, sizeof parts);
    size_t once = 0, twice = 0;
    assert_int_equal(amddwarf_composite_canonicalize(parts, n, 64, &once), AMDDWARF_OK);
    /* Canonical: no composite part, no empty part, no mergeable neighbours. */
    for (size_t i = 0; i < once; i++) {
      assert_int_not_equal(parts[i].location.kind, AMDDWARF_LOCATION_COMPOSITE);
      assert_true(parts[i].bit_size > 0);
    }
    amddwarf_composite_part again[64];
    memcpy(again, parts, sizeof parts);
    assert_int_equal(amddwarf_composite_canonicalize(again, once, 64, &twice), AMDDWARF_OK);
    assert_int_equal(once, twice);
    assert_memory_equal(again, parts, once * sizeof *parts);
    /* Every bit reads the same through both forms. */
    uint64_t bits = parts_bits(original, n);
    assert_int_equal(bits, parts_bits(parts, once));
    if (bits == 0)
      continue;
    amddwarf_location a = composite_of(original, n), b = composite_of(parts, once);
    uint8_t ra[64] = {0}, rb[64] = {0};
    uint64_t off = rnd_below(bits), len = 1 + rnd_below(bits - off);
    assert_int_equal(amddwarf_location_read(fx->ev, &fx->req, &a, off, len, ra, &fx->err), AMDDWARF_OK);
    assert_int_equal(amddwarf_location_read(fx->ev, &fx->req, &b, off, len, rb, &fx->err), AMDDWARF_OK);
    assert_memory_equal(ra, rb, (size_t)((len + 7) / 8));
  }
}

static void test_canonicalize_reports_room_needed(void **state)
{
  (void)state;
  amddwarf_composite_part inner[3];
  memset(inner, 0, sizeof inner);
  for (int i = 0; i < 3; i++) {
    inner[i].bit_size = 8;
    inner[i].location.kind = AMDDWARF_LOCATION_REGISTER;
    inner[i].location.u.reg.regno = 32 + (uint32_t)i * 2;
  }
  amddwarf_composite_part parts[2];
  memset(parts, 0, sizeof parts);
  parts[0].bit_size = 24;
  parts[0].location = composite_of(inner, 3);
  size_t n = 0;
  assert_int_equal(amddwarf_composite_canonicalize(parts, 1, 2, &n), AMDDWARF_E_NO_SPACE);
  assert_int_equal(n, 3);
}

/* Builds a random composite over disjoint storage as an expression: SGPRs,
   8-byte global slots, the lane's dword of v0 and a private_lane slot, each
   used at most once so that no two parts alias. */
static void random_composite_text(char *text, size_t size)
{
  int used_regs = 0, used_slots = 0, used_lane = 0, used_private = 0;
  text[0] = '\0';
  int n = 1 + (int)rnd_below(6);
  for (int i = 0; i < n; i++) {
    char piece[160];
    unsigned long long bits = 1 + rnd_below(32), off = rnd_below(33 - bits);
    int kind = (int)rnd_below(4);
    if (kind == 2 && used_lane)
      kind = 0;
    if (kind == 3 && used_private)
      kind = 1;
    if (kind == 0 && used_regs < 8) {
      snprintf(piece, sizeof piece, "DW_OP_regx s%d; DW_OP_bit_piece %llu %llu; ", used_regs++, bits, off);
    } else if (kind == 2) {
      used_lane = 1;
      snprintf(piece, sizeof piece, "DW_OP_regx v0; DW_OP_LLVM_push_lane; DW_OP_lit4; DW_OP_mul;"
                                    " DW_OP_LLVM_offset; DW_OP_bit_piece %llu %llu; ", bits, off);
    } else if (kind == 3) {
      used_private = 1;
      snprintf(piece, sizeof piece, "DW_OP_const1u 0x40; DW_OP_lit5; DW_OP_LLVM_form_aspace_address;"
                                    " DW_OP_bit_piece %llu %llu; ", bits, off);
    } else if (used_slots < 7) {
      snprintf(piece, sizeof piece, "DW_OP_addr 0x%x; DW_OP_bit_piece %llu %llu; ",
               0x1000 + 8 * used_slots++, bits, off);
    } else {
      continue;
    }
    strncat(text, piece, size - strlen(text) - 1);
  }
}

static void test_read_after_write_through_composites(void **state)
{
  eval_fixture *fx = *state;
  rng_state = 0x1234567890abcdefull;
  for (int round = 0; round < 400; round++) {
    char text[1024];
    random_composite_text(text, sizeof text);
    amddwarf_status st = fx_eval(fx, text);
    if (st != AMDDWARF_OK)
      print_error("%s: %s\n", text, fx->err.message);
    assert_int_equal(st, AMDDWARF_OK);
    amddwarf_location loc = fx->result.location;
    assert_int_equal(loc.kind, AMDDWARF_LOCATION_COMPOSITE);
    uint64_t total = loc.u.composite.bit_size;
    uint8_t before[32] = {0}, after[32] = {0}, data[32], back[32] = {0};
    assert_int_equal(fx_read(fx, 0, total, before), AMDDWARF_OK);
    uint64_t off = rnd_below(total), len = 1 + rnd_below(total - off);
    for (size_t i = 0; i < sizeof data; i++)
      data[i] = (uint8_t)rnd();
    assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &loc, off, len, data, &fx->err),
                     AMDDWARF_OK);
    assert_int_equal(fx_read(fx, off, len, back), AMDDWARF_OK);
    for (uint64_t b = 0; b < len; b++)
      assert_int_equal((back[b / 8] >> (b % 8)) & 1, (data[b / 8] >> (b % 8)) & 1);
    /* Bits outside [off, off + len) are unchanged. */
    assert_int_equal(fx_read(fx, 0, total, after), AMDDWARF_OK);
    for (uint64_t b = 0; b < total; b++)
      if (b < off || b >= off + len)
        assert_int_equal((after[b / 8] >> (b % 8)) & 1, (before[b / 8] >> (b % 8)) & 1);
    /* Restore, so that the next round starts from known contents. */
    assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &loc, 0, total, before, &fx->err),
                     AMDDWARF_OK);
  }
}

static void test_failed_write_rolls_back(void **state)
{
  eval_fixture *fx = *state;
  fx_inject_faults(fx);
  fx->fail_write_regno = 33; /* s1 */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s0; DW_OP_piece 4; DW_OP_addr 0x1000; DW_OP_piece 2;"
                               " DW_OP_regx s1; DW_OP_piece 4"), AMDDWARF_OK);
  amddwarf_location loc = fx->result.location;
  uint8_t before[10], after[10], data[10];
  memset(data, 0xee, sizeof data);
  assert_int_equal(fx_read(fx, 0, 80, before), AMDDWARF_OK);
  assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &loc, 0, 80, data, &fx->err),
                   AMDDWARF_E_EVAL_UNAVAILABLE);
  assert_true(strstr(fx->err.message, "register 33") != NULL);
  assert_int_equal(fx_read(fx, 0, 80, after), AMDDWARF_OK);
  assert_memory_equal(before, after, sizeof before);
  /* s0 and memory were written, then restored: 2 writes + 2 restores. */
  assert_int_equal(fx->writes, 4);
  fx->fail_write_regno = 0;
}

static void test_sub_byte_writes_keep_neighbours(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(fx_eval(fx, "DW_OP_regx s0; DW_OP_lit3; DW_OP_LLVM_bit_offset"), AMDDWARF_OK);
  uint8_t v = 0x1f, back[4];
  assert_int_equal(amddwarf_location_write(fx->ev, &fx->req, &fx->result.location, 0, 5, &v, &fx->err),
                   AMDDWARF_OK);
  assert_int_equal(fx_eval(fx, "DW_OP_regx s0"), AMDDWARF_OK);
  assert_int_equal(fx_read(fx, 0, 32, back), AMDDWARF_OK);
  /* 0x03020100 with bits 3..7 set: byte 0 becomes 0xf8. */
  assert_memory_equal(back, "\xf8\x01\x02\x03", 4);
}

/* Stack operations that copy nothing move an incomplete composite
   (specs/evaluator.md): ROCgdb's gdb.dwarf2/dw2-llvm-piece-end.exp builds an
   8-byte array from three levels of composites with "DW_OP_piece 1;
   DW_OP_swap" and expects {<optimized out>, the register's 4 bytes,
   <optimized out>, the first 2 bytes of memory}. */
static void test_incomplete_composite_moved(void **state)
{
  eval_fixture *fx = *state;
  assert_int_equal(fx_eval(fx, "DW_OP_addr 0x1000; DW_OP_piece 2; DW_OP_LLVM_piece_end;"
                               " DW_OP_LLVM_undefined; DW_OP_piece 1; DW_OP_LLVM_piece_end;"
                               " DW_OP_piece 1; DW_OP_swap; DW_OP_piece 2; DW_OP_LLVM_piece_end;"
                               " DW_OP_regx s0; DW_OP_piece 4; DW_OP_LLVM_piece_end;"
                               " DW_OP_LLVM_undefined; DW_OP_piece 1; DW_OP_LLVM_piece_end;"
                               " DW_OP_piece 1; DW_OP_swap; DW_OP_piece 4; DW_OP_LLVM_piece_end;"
                               " DW_OP_piece 5; DW_OP_swap; DW_OP_piece 3; DW_OP_LLVM_piece_end"),
                   AMDDWARF_OK);
  const amddwarf_location *c = &fx->result.location;
  assert_int_equal(c->kind, AMDDWARF_LOCATION_COMPOSITE);
  assert_int_equal(c->u.composite.bit_size, 64);
  assert_int_equal(c->u.composite.count, 4);
  const amddwarf_composite_part *parts = c->u.composite.parts;
  assert_int_equal(parts[0].location.kind, AMDDWARF_LOCATION_UNDEFINED);
  assert_int_equal(parts[0].bit_size, 8);
  assert_int_equal(parts[1].location.kind, AMDDWARF_LOCATION_REGISTER);
  assert_int_equal(parts[1].location.u.reg.regno, 32);
  assert_int_equal(parts[1].bit_size, 32);
  assert_int_equal(parts[2].location.kind, AMDDWARF_LOCATION_UNDEFINED);
  assert_int_equal(parts[2].bit_size, 8);
  assert_int_equal(parts[3].location.kind, AMDDWARF_LOCATION_MEMORY);
  assert_int_equal(parts[3].location.byte_offset, 0x1000);
  assert_int_equal(parts[3].bit_size, 16);
  uint8_t buf[4];
  assert_int_equal(fx_read(fx, 8, 32, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x01\x02\x03", 4);
  assert_int_equal(fx_read(fx, 48, 16, buf), AMDDWARF_OK);
  assert_memory_equal(buf, "\x00\x01", 2);
  assert_int_equal(fx_read(fx, 0, 8, buf), AMDDWARF_E_EVAL_OPTIMIZED_OUT);
  assert_int_equal(fx_read(fx, 40, 8, buf), AMDDWARF_E_EVAL_OPTIMIZED_OUT);
  /* rot moves it down and drop discards the entries above it: the
     composite left on top is completed at the end. */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s1; DW_OP_piece 4; DW_OP_lit1; DW_OP_lit2; DW_OP_rot;"
                               " DW_OP_drop"), AMDDWARF_OK);
  assert_int_equal(fx->result.location.kind, AMDDWARF_LOCATION_COMPOSITE);
  assert_int_equal(fx->result.location.u.composite.count, 1);
  assert_int_equal(fx->result.location.u.composite.parts[0].location.u.reg.regno, 33);
  /* A piece under a moved incomplete composite extends it, not a new one. */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s1; DW_OP_piece 4; DW_OP_regx s2; DW_OP_swap;"
                               " DW_OP_swap; DW_OP_piece 2"), AMDDWARF_OK);
  assert_int_equal(fx->result.location.u.composite.count, 2);
  assert_int_equal(fx->result.location.u.composite.bit_size, 48);
  /* drop discards an incomplete composite like any entry. */
  assert_int_equal(fx_eval(fx, "DW_OP_regx s3; DW_OP_regx s1; DW_OP_piece 4; DW_OP_drop"),
                   AMDDWARF_OK);
  assert_int_equal(fx->result.location.kind, AMDDWARF_LOCATION_REGISTER);
  assert_int_equal(fx->result.location.u.reg.regno, 35);
}

static void test_address_space_tables(void **state)
{
  (void)state;
  amddwarf_aspace_info info;
  char name[32];
  uint32_t v;
  assert_int_equal(amddwarf_aspace_info_get(0x00, &info), AMDDWARF_OK);
  assert_int_equal(info.address_size_64, 8);
  assert_int_equal(info.address_size_32, 4);
  assert_int_equal(amddwarf_aspace_info_get(0x01, &info), AMDDWARF_OK);
  assert_int_equal(info.address_size_64, 8);
  assert_int_equal(amddwarf_aspace_info_get(0x03, &info), AMDDWARF_OK);
  assert_int_equal(info.address_size_64, 4);
  assert_string_equal(info.short_name, "local");
  assert_int_equal(amddwarf_aspace_info_get(0x04, &info), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_aspace_info_get(0x07, &info), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_aspace_info_get(0x1f, &info), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_aspace_info_get(0x5f, &info), AMDDWARF_OK);
  assert_true(info.per_lane);
  assert_int_equal(amddwarf_aspace_info_get(0x60, &info), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_aspace_name(0x2a, name, sizeof name), AMDDWARF_OK);
  assert_string_equal(name, "private_lane10");
  assert_int_equal(amddwarf_aspace_lookup("private_lane63", &v), AMDDWARF_OK);
  assert_int_equal(v, 0x5f);
  assert_int_equal(amddwarf_aspace_lookup("private_lane64", &v), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_aspace_lookup("DW_ASPACE_AMDGPU_private_wave", &v), AMDDWARF_OK);
  assert_int_equal(v, 6);
  assert_int_equal(amddwarf_aspace_lookup("global", &v), AMDDWARF_OK);
  assert_int_equal(v, 0);
  assert_int_equal(amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_LEGACY, 1, &v), AMDDWARF_OK);
  assert_int_equal(v, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE);
  assert_int_equal(amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_LEGACY, 2, &v), AMDDWARF_OK);
  assert_int_equal(v, AMDDWARF_ASPACE_AMDGPU_LOCAL);
  assert_int_equal(amddwarf_aspace_from_xderef(AMDDWARF_XDEREF_DWARF, 2, &v), AMDDWARF_OK);
  assert_int_equal(v, AMDDWARF_ASPACE_AMDGPU_REGION);
  amddwarf_address_class_info ac;
  assert_int_equal(amddwarf_address_class_info_get(0, &ac), AMDDWARF_OK);
  assert_int_equal(ac.aspace, AMDDWARF_ASPACE_AMDGPU_GENERIC);
  assert_int_equal(amddwarf_address_class_info_get(4, &ac), AMDDWARF_OK);
  assert_string_equal(ac.name, "DW_ADDR_AMDGPU_constant");
  assert_int_equal(ac.aspace, AMDDWARF_ASPACE_NONE);
  assert_int_equal(amddwarf_address_class_info_get(6, &ac), AMDDWARF_NOT_FOUND);
}

static void test_swizzle(void **state)
{
  (void)state;
  uint64_t w, a;
  uint32_t lane;
  /* Seed formula: (A / 4) * wave * 4 + lane * 4 + A % 4. */
  assert_int_equal(amddwarf_private_lane_to_wave(0x0, 0, 64, &w), AMDDWARF_OK);
  assert_int_equal(w, 0);
  assert_int_equal(amddwarf_private_lane_to_wave(0x6, 5, 64, &w), AMDDWARF_OK);
  assert_int_equal(w, 1 * 256 + 20 + 2);
  assert_int_equal(amddwarf_private_lane_to_wave(0x10, 31, 32, &w), AMDDWARF_OK);
  assert_int_equal(w, 4 * 128 + 124);
  /* Dword-aligned lane 0: lane address * wave size. */
  assert_int_equal(amddwarf_private_lane_to_wave(0x40, 0, 64, &w), AMDDWARF_OK);
  assert_int_equal(w, 0x40 * 64);
  assert_int_equal(amddwarf_private_lane_to_wave(0, 64, 64, &w), AMDDWARF_E_AMDGPU_BAD_LANE);
  assert_int_equal(amddwarf_private_lane_to_wave(0, 0, 16, &w), AMDDWARF_E_AMDGPU_BAD_WAVE_SIZE);
  assert_int_equal(amddwarf_private_lane_to_wave(UINT64_MAX, 1, 64, &w), AMDDWARF_E_OVERFLOW);
  rng_state = 42;
  for (int i = 0; i < 1000; i++) {
    uint32_t wave = rnd_below(2) ? 32 : 64, l = (uint32_t)rnd_below(wave);
    uint64_t la = rnd_below(1u << 30);
    assert_int_equal(amddwarf_private_lane_to_wave(la, l, wave, &w), AMDDWARF_OK);
    assert_int_equal(amddwarf_private_wave_to_lane(w, wave, &lane, &a), AMDDWARF_OK);
    assert_int_equal(lane, l);
    assert_int_equal(a, la);
  }
  uint32_t as;
  amddwarf_generic_to_segment(0x1000000000010ull, 0x1000000000000ull, 0x2000000000000ull, &as, &a);
  assert_int_equal(as, AMDDWARF_ASPACE_AMDGPU_LOCAL);
  assert_int_equal(a, 0x10);
  amddwarf_generic_to_segment(0x20000ffffffffull, 0x1000000000000ull, 0x2000000000000ull, &as, &a);
  assert_int_equal(as, AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE);
  assert_int_equal(a, 0xffffffff);
  amddwarf_generic_to_segment(0x3000000000000ull, 0x1000000000000ull, 0x2000000000000ull, &as, &a);
  assert_int_equal(as, AMDDWARF_ASPACE_NONE);
  assert_int_equal(a, 0x3000000000000ull);
}

static void test_isa_table(void **state)
{
  (void)state;
  amddwarf_isa_info isa;
  assert_int_equal(amddwarf_isa_info_by_mach(0x3f, &isa), AMDDWARF_OK); /* EF_AMDGPU_MACH_AMDGCN_GFX90A */
  assert_string_equal(isa.name, "gfx90a");
  assert_true(isa.has_agprs);
  assert_int_equal(isa.default_wave_size, 64);
  assert_false(isa.wave32);
  assert_int_equal(amddwarf_isa_info_by_mach(0x40, &isa), AMDDWARF_NOT_FOUND); /* reserved */
  assert_int_equal(amddwarf_isa_info_by_mach(0x36, &isa), AMDDWARF_OK);
  assert_string_equal(isa.name, "gfx1030");
  assert_int_equal(isa.default_wave_size, 32);
  assert_true(isa.wave32 && isa.wave64);
  assert_false(isa.has_agprs);
  assert_int_equal(amddwarf_isa_info_by_name("gfx1201", &isa), AMDDWARF_OK);
  assert_int_equal(isa.mach, 0x4e);
  assert_int_equal(isa.major, 12);
  assert_int_equal(amddwarf_isa_info_by_name("gfx942", &isa), AMDDWARF_OK);
  assert_int_equal(isa.mach, 0x4c);
  assert_int_equal(amddwarf_isa_info_by_name("gfx803", &isa), AMDDWARF_OK);
  assert_int_equal(isa.mach, 0x2a);
  assert_int_equal(isa.major, 8);
  assert_int_equal(amddwarf_isa_info_by_name("gfx700", &isa), AMDDWARF_NOT_FOUND);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_canonical_form_idempotent_and_bit_exact, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_canonicalize_reports_room_needed, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_read_after_write_through_composites, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_failed_write_rolls_back, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_sub_byte_writes_keep_neighbours, setup, fx_teardown),
      cmocka_unit_test_setup_teardown(test_incomplete_composite_moved, setup, fx_teardown),
      cmocka_unit_test(test_address_space_tables),
      cmocka_unit_test(test_swizzle),
      cmocka_unit_test(test_isa_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
