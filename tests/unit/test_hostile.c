/* Hostile input: every parser and the evaluator given input built to make it
 * loop, recurse, allocate without bound or read out of bounds. Each case must
 * end with its documented error status and (where the entry point takes an
 * allocator) with a bounded peak of live memory. A case that hangs is caught
 * by ctest's timeout for the suite, not by measuring time here.
 *
 * The limits relied on are the documented defaults: eval.h (max_stack 64,
 * max_steps 100000, max_call_depth 16, max_parts 1024), cfi.h
 * (max_remember_depth 64, max_rules_per_fde, CIE pointer checks), spirv.h
 * (max_instructions), printf.h (2 GiB clamp, entry bounds), gpuav.h (records
 * bounded by the buffer, not the written length), object.h (ELF tables
 * bounded by the file). specs/robustness.md lists them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/amddwarf.h>

#include "support/cfi_build.h"
#include "support/eval_fixture.h"

/* ---- Bounds: memory ------------------------------------------------------- */

/* An allocator that tracks the live and peak bytes it handed out. */
typedef struct counting {
  size_t live, peak, calls;
} counting;

static void *count_alloc(void *user, size_t size)
{
  counting *c = user;
  void *p = malloc(size ? size : 1);
  if (p != NULL) {
    c->live += size;
    c->calls++;
    if (c->live > c->peak)
      c->peak = c->live;
  }
  return p;
}

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
  counting *c = user;
  void *p = realloc(ptr, new_size ? new_size : 1);
  if (p != NULL) {
    c->live = c->live - old_size + new_size;
    c->calls++;
    if (c->live > c->peak)
      c->peak = c->live;
  }
  return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
  counting *c = user;
  if (ptr != NULL)
    c->live -= size;
  free(ptr);
}

static amddwarf_allocator counting_allocator(counting *c)
{
  memset(c, 0, sizeof *c);
  amddwarf_allocator a = {count_alloc, count_realloc, count_free, c};
  return a;
}

/* ---- Evaluator ------------------------------------------------------------- */

/* Evaluates BYTES in a fresh context with default limits whose allocations
   are counted; checks STATUS, the time bound, a peak below 1 MiB and that
   everything was released. Returns the error's offset. */
static uint64_t eval_hostile(eval_fixture *fx, const uint8_t *bytes, size_t size,
                             amddwarf_status status)
{
  counting c;
  amddwarf_allocator a = counting_allocator(&c);
  amddwarf_eval_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.allocator = &a;
  amddwarf_eval *ev = NULL;
  assert_int_equal(amddwarf_eval_new(&options, &ev, NULL), AMDDWARF_OK);
  amddwarf_error err;
  memset(&err, 0, sizeof err);
  amddwarf_status st = amddwarf_eval_expr(ev, &fx->req, bytes, size, &fx->result, &err);
  if (st != status)
    fprintf(stderr, "status %d (%s), expected %d\n", st, err.message, status);
  assert_int_equal(st, status);
  assert_true(c.peak < (1u << 20));
  assert_true(err.message[0] != '\0');
  amddwarf_eval_free(ev);
  assert_int_equal(c.live, 0);
  return err.offset;
}

static uint64_t eval_hostile_text(eval_fixture *fx, const char *text, amddwarf_status status)
{
  static uint8_t bytes[65536];
  size_t n = fx_assemble(fx, text, bytes, sizeof bytes);
  return eval_hostile(fx, bytes, n, status);
}

/* DW_OP_skip -3: jumps back to itself forever. */
static void test_eval_skip_loop(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{}");
  static const uint8_t skip_self[] = {0x2f, 0xfd, 0xff};
  assert_int_equal(eval_hostile(&fx, skip_self, sizeof skip_self, AMDDWARF_E_LIMIT), 0);
  /* DW_OP_lit1; DW_OP_bra -4: a conditional loop that keeps the stack flat. */
  static const uint8_t bra_loop[] = {0x31, 0x28, 0xfc, 0xff};
  (void)eval_hostile(&fx, bra_loop, sizeof bra_loop, AMDDWARF_E_LIMIT);
  /* DW_OP_lit0; DW_OP_skip -4: a loop that grows the stack until max_stack. */
  static const uint8_t grow_loop[] = {0x30, 0x2f, 0xfc, 0xff};
  assert_int_equal(eval_hostile(&fx, grow_loop, sizeof grow_loop, AMDDWARF_E_LIMIT), 0);
  fx_free(&fx);
}

/* Billions of composite parts requested in one operation. */
static void test_eval_extend_billions(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"registers\": {\"s33\": 1, \"s34\": 2}}");
  /* Undefined storage repeated: contiguous parts of one storage merge, so the
     result is one undefined part of 4e9 bits, made in constant time. */
  assert_int_equal(fx_eval(&fx, "DW_OP_LLVM_undefined; DW_OP_LLVM_extend 1 4000000000"),
                   AMDDWARF_OK);
  assert_int_equal(fx.result.kind, AMDDWARF_ENTRY_LOCATION);
  assert_int_equal(fx.result.location.kind, AMDDWARF_LOCATION_COMPOSITE);
  assert_int_equal(fx.result.location.u.composite.count, 1);
  assert_int_equal(fx.result.location.u.composite.bit_size, 4000000000u);
  assert_int_equal(fx.result.location.u.composite.parts[0].location.kind,
                   AMDDWARF_LOCATION_UNDEFINED);
  /* Parts that cannot merge: 8e9 of them are asked for. */
  assert_int_equal(eval_hostile_text(&fx,
                                     "DW_OP_LLVM_undefined; DW_OP_piece 1; DW_OP_regx s33; "
                                     "DW_OP_piece 1; DW_OP_LLVM_piece_end; "
                                     "DW_OP_LLVM_extend 16 4000000000",
                                     AMDDWARF_E_LIMIT),
                   10);
  assert_int_equal(
      eval_hostile_text(&fx, "DW_OP_regx s33; DW_OP_LLVM_extend 1 4294967295", AMDDWARF_E_LIMIT), 2);
  fx_free(&fx);
}

/* Composites of composites: each level multiplies the part count, so the
   flattened result passes max_parts (1024) at the third level. */
static void test_eval_nested_composites(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"registers\": {\"s33\": 1, \"s34\": 2}}");
  (void)eval_hostile_text(&fx,
                          "DW_OP_regx s33; DW_OP_piece 4; DW_OP_regx s34; DW_OP_piece 4; "
                          "DW_OP_LLVM_piece_end; DW_OP_LLVM_extend 64 32; "
                          "DW_OP_LLVM_extend 2048 32",
                          AMDDWARF_E_LIMIT);
  /* 1025 alternating pieces in a single composite. */
  static char text[65536];
  size_t n = 0;
  for (int i = 0; i < 1025; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "DW_OP_regx %s; DW_OP_piece 1; ",
                          i % 2 ? "s34" : "s33");
  text[n - 2] = '\0';
  (void)eval_hostile_text(&fx, text, AMDDWARF_E_LIMIT);
  /* 65 pushes pass max_stack (64). */
  n = 0;
  for (int i = 0; i < 65; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "DW_OP_lit1; ");
  text[n - 2] = '\0';
  assert_int_equal(eval_hostile_text(&fx, text, AMDDWARF_E_LIMIT), 64);
  fx_free(&fx);
}

/* DW_OP_call4 of a DWARF procedure that calls itself, and two procedures
   calling each other: max_call_depth (16) stops both. */
static void test_eval_recursive_call(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"dies\": ["
               "{\"offset\": \"0x110\", \"procedure\": true, \"location\": \"DW_OP_call4 0x110\"},"
               "{\"offset\": \"0x120\", \"procedure\": true, \"location\": \"DW_OP_lit1; DW_OP_call4 0x130\"},"
               "{\"offset\": \"0x130\", \"procedure\": true, \"location\": \"DW_OP_call4 0x120\"},"
               "{\"offset\": \"0x140\", \"procedure\": true, \"location\": \"DW_OP_call_ref 0x140\"}"
               "]}");
  (void)eval_hostile_text(&fx, "DW_OP_call4 0x110", AMDDWARF_E_LIMIT);
  (void)eval_hostile_text(&fx, "DW_OP_call2 0x120", AMDDWARF_E_LIMIT);
  (void)eval_hostile_text(&fx, "DW_OP_call_ref 0x140", AMDDWARF_E_LIMIT);
  fx_free(&fx);
}

/* A frame base that uses DW_OP_fbreg: evaluating it needs itself. */
static void test_eval_recursive_frame_base(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{\"frame_base\": \"DW_OP_fbreg 4\"}");
  (void)eval_hostile_text(&fx, "DW_OP_fbreg 0", AMDDWARF_E_LIMIT);
  fx_free(&fx);
}

/* Truncated expressions and operand claims beyond the bytes. */
static void test_eval_truncated(void **state)
{
  (void)state;
  eval_fixture fx;
  fx_init(&fx, "{}");
  /* DW_OP_implicit_value claiming 2^32 bytes. */
  static const uint8_t implicit_big[] = {0x9e, 0x80, 0x80, 0x80, 0x80, 0x10, 1};
  assert_int_equal(eval_hostile(&fx, implicit_big, sizeof implicit_big, AMDDWARF_E_TRUNCATED), 0);
  /* DW_OP_const8u with 3 of its 8 bytes. */
  static const uint8_t const8[] = {0x0e, 1, 2, 3};
  assert_int_equal(eval_hostile(&fx, const8, sizeof const8, AMDDWARF_E_TRUNCATED), 0);
  /* DW_OP_entry_value whose block claims 2^32 - 1 bytes. */
  static const uint8_t entry_big[] = {0xa3, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x30};
  assert_int_equal(eval_hostile(&fx, entry_big, sizeof entry_big, AMDDWARF_E_TRUNCATED), 0);
  fx_free(&fx);
}

/* ---- Snapshot JSON ------------------------------------------------------- */

static void test_snapshot_hostile(void **state)
{
  (void)state;
  /* 100000 nested arrays: the JSON parser's depth limit, not the C stack. */
  size_t depth = 100000;
  char *text = malloc(2 * depth + 16);
  assert_non_null(text);
  size_t n = (size_t)sprintf(text, "{\"dies\": ");
  for (size_t i = 0; i < depth; i++)
    text[n++] = '[';
  for (size_t i = 0; i < depth; i++)
    text[n++] = ']';
  text[n++] = '}';
  counting c;
  amddwarf_allocator a = counting_allocator(&c);
  amddwarf_snapshot *snap = NULL;
  amddwarf_error err;
  assert_int_equal(amddwarf_snapshot_load(text, n, &a, &snap, &err), AMDDWARF_E_BAD_JSON);
  assert_null(snap);
  assert_int_equal(c.live, 0);
  free(text);
  /* A vector register of 2^32 lanes cannot be written in JSON; values that
     claim huge sizes or lanes are schema errors. */
  static const char *const bad[] = {
      "{\"wave_size\": 4294967296}",
      "{\"lane\": 4294967295}",
      "{\"registers\": {\"s33\": \"0x10000000000000000\"}}",
      "{\"memory\": [{\"address\": \"0xffffffffffffffff\", \"bytes\": \"0102\"}]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snap = NULL;
    amddwarf_status st = amddwarf_snapshot_load(bad[i], strlen(bad[i]), &a, &snap, &err);
    if (st != AMDDWARF_E_SNAPSHOT_SCHEMA)
      fprintf(stderr, "case %zu: %d %s\n", i, st, err.message);
    assert_int_equal(st, AMDDWARF_E_SNAPSHOT_SCHEMA);
    assert_null(snap);
    assert_int_equal(c.live, 0);
  }
}

/* ---- CFI ------------------------------------------------------------------- */

static amddwarf_status cfi_open_counted(const cfi_sec *s, amddwarf_cfi_section_kind kind,
                                        counting *c, amddwarf_allocator *a, amddwarf_cfi **out,
                                        amddwarf_error *err)
{
  *a = counting_allocator(c);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.kind = kind;
  o.data = s->data;
  o.size = s->len;
  o.allocator = a;
  *out = NULL;
  return amddwarf_cfi_open(&o, out, err);
}

static const uint8_t cie_insns[] = {0x0c, 0x20, 0x00}; /* DW_CFA_def_cfa r32, 0 */

static void test_cfi_cyclic_cie_pointers(void **state)
{
  (void)state;
  counting c;
  amddwarf_allocator a;
  amddwarf_cfi *cfi;
  amddwarf_error err;
  /* .debug_frame: an FDE whose CIE pointer is its own offset. */
  cfi_sec s = {.len = 0};
  size_t cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  size_t fde = cfi_fde8(&s, cie, 0x1000, 0x10, NULL, 0);
  bb_patch32(&s, fde + 4, (uint32_t)fde);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  assert_int_equal(err.offset, fde + 4); /* the CIE pointer field */
  assert_null(cfi);
  assert_int_equal(c.live, 0);
  /* Two FDEs pointing at each other. */
  s.len = 0;
  cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  size_t f1 = cfi_fde8(&s, cie, 0x1000, 0x10, NULL, 0);
  size_t f2 = cfi_fde8(&s, cie, 0x2000, 0x10, NULL, 0);
  bb_patch32(&s, f1 + 4, (uint32_t)f2);
  bb_patch32(&s, f2 + 4, (uint32_t)f1);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  assert_int_equal(c.live, 0);
  /* .eh_frame: a CIE pointer (relative to its own field) pointing back at
     the FDE's start. */
  s.len = 0;
  bb_uint(&s, 20, 4);       /* length */
  bb_uint(&s, 4, 4);        /* CIE pointer: field offset 4 - 4 = 0, the FDE itself */
  bb_uint(&s, 0x1000, 8);
  bb_uint(&s, 0x10, 8);
  bb_uint(&s, 0, 4);        /* terminator */
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_EH_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_CFI_BAD_CIE_POINTER);
  assert_null(cfi);
  assert_int_equal(c.live, 0);
}

static void test_cfi_length_claims(void **state)
{
  (void)state;
  counting c;
  amddwarf_allocator a;
  amddwarf_cfi *cfi;
  amddwarf_error err;
  cfi_sec s = {.len = 0};
  /* 32-bit length of 2^32 - 17 in a 16-byte section. */
  bb_uint(&s, 0xffffffefu, 4);
  bb_uint(&s, 0xffffffffu, 4);
  bb_uint(&s, 0, 8);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(err.offset, 0);
  /* Reserved initial length. */
  s.len = 0;
  bb_uint(&s, 0xfffffff0u, 4);
  bb_uint(&s, 0, 8);
  bb_uint(&s, 0, 4);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_MALFORMED);
  /* 64-bit DWARF length of 2^63. */
  s.len = 0;
  bb_uint(&s, 0xffffffffu, 4);
  bb_uint(&s, UINT64_C(1) << 63, 8);
  bb_uint(&s, 0, 8);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);
  /* A valid CIE followed by a truncated FDE (cut in its address range). */
  s.len = 0;
  size_t cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  size_t fde = cfi_fde8(&s, cie, 0x1000, 0x10, NULL, 0);
  s.len -= 4;
  bb_patch32(&s, fde, (uint32_t)(s.len - fde - 4));
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_E_TRUNCATED);
  assert_null(cfi);
  assert_int_equal(c.live, 0);
}

static void test_cfi_rule_limits(void **state)
{
  (void)state;
  counting c;
  amddwarf_allocator a;
  amddwarf_cfi *cfi;
  amddwarf_error err;
  /* 65 nested DW_CFA_remember_state: max_remember_depth is 64. */
  cfi_sec s = {.len = 0};
  uint8_t insns[1024];
  memset(insns, 0x0a, 65);
  size_t cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  (void)cfi_fde8(&s, cie, 0x1000, 0x10, insns, 65);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_OK);
  const amddwarf_cfi_row *row = NULL;
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x1000, &row, &err), AMDDWARF_E_CFI_REMEMBER_DEPTH);
  amddwarf_cfi_close(cfi);
  assert_int_equal(c.live, 0);

  /* 300 rows of 3 rules each in an FDE limited to 100 rules. */
  s.len = 0;
  size_t n = 0;
  for (int i = 0; i < 300; i++) {
    insns[n++] = 0x41;                      /* DW_CFA_advance_loc 1 */
    insns[n++] = (uint8_t)(0x80 | (i % 3)); /* DW_CFA_offset r(i%3), 1 */
    insns[n++] = 1;
  }
  cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  (void)cfi_fde8(&s, cie, 0x1000, 0x1000, insns, n);
  a = counting_allocator(&c);
  amddwarf_cfi_options o;
  amddwarf_cfi_options_init(&o);
  o.data = s.data;
  o.size = s.len;
  o.allocator = &a;
  o.max_rules_per_fde = 100;
  assert_int_equal(amddwarf_cfi_open(&o, &cfi, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x1000, &row, &err), AMDDWARF_E_LIMIT);
  amddwarf_cfi_close(cfi);
  assert_int_equal(c.live, 0);

  /* A register number of 2^32 - 1 in DW_CFA_offset_extended. */
  s.len = 0;
  static const uint8_t big_reg[] = {0x05, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
  cie = cfi_cie4(&s, 4, -4, 16, cie_insns, sizeof cie_insns);
  (void)cfi_fde8(&s, cie, 0x1000, 0x10, big_reg, sizeof big_reg);
  assert_int_equal(cfi_open_counted(&s, AMDDWARF_CFI_DEBUG_FRAME, &c, &a, &cfi, &err),
                   AMDDWARF_OK);
  assert_int_equal(amddwarf_cfi_find_row(cfi, 0x1000, &row, &err), AMDDWARF_E_CFI_BAD_REGISTER);
  amddwarf_cfi_close(cfi);
  assert_int_equal(c.live, 0);
}

/* ---- SPIR-V ---------------------------------------------------------------- */

static amddwarf_status spirv_open_words(const uint32_t *words, size_t count, uint32_t max,
                                        counting *c, amddwarf_error *err)
{
  amddwarf_allocator a = counting_allocator(c);
  amddwarf_spirv_options o = {sizeof o, &a, max, 0};
  amddwarf_spirv_module *m = NULL;
  amddwarf_status st = amddwarf_spirv_module_open(words, count * 4, &o, &m, err);
  if (st == AMDDWARF_OK) {
    assert_non_null(m);
    /* Resolving every index stays within the module. */
    uint32_t limit = amddwarf_spirv_module_index_limit(m, AMDDWARF_SPIRV_INDEX_POSITION);
    assert_true(limit <= count);
  } else {
    assert_null(m);
  }
  amddwarf_spirv_module_close(m);
  assert_int_equal(c->live, 0);
  return st;
}

static void test_spirv_claims(void **state)
{
  (void)state;
  counting c;
  amddwarf_error err;
  /* Bound 2^32 - 1: an id bound is a claim, not an allocation size. */
  uint32_t m1[] = {0x07230203, 0x00010300, 0, 0xffffffffu, 0, (1u << 16) | 0 /* OpNop */};
  assert_int_equal(spirv_open_words(m1, 6, 0, &c, &err), AMDDWARF_OK);
  assert_true(c.peak < (1u << 20));
  /* An instruction claiming 65535 words in a 7-word module. */
  uint32_t m2[] = {0x07230203, 0x00010300, 0, 8, 0, (1u << 16) | 0, (0xffffu << 16) | 7};
  assert_int_equal(spirv_open_words(m2, 7, 0, &c, &err), AMDDWARF_E_SPIRV_BAD_INSTRUCTION);
  assert_int_equal(err.offset, 24);
  /* A word count of 0 (which would never advance). */
  uint32_t m3[] = {0x07230203, 0x00010300, 0, 8, 0, 0u << 16 | 0};
  assert_int_equal(spirv_open_words(m3, 6, 0, &c, &err), AMDDWARF_E_SPIRV_BAD_INSTRUCTION);
  assert_int_equal(err.offset, 20);
  /* OpString (7) of 2 words whose string has no NUL. */
  uint32_t m4[] = {0x07230203, 0x00010300, 0, 8, 0, (3u << 16) | 7, 1, 0x61616161};
  assert_int_equal(spirv_open_words(m4, 8, 0, &c, &err), AMDDWARF_E_SPIRV_BAD_OPERAND);
  /* More instructions than max_instructions. */
  uint32_t m5[5 + 10] = {0x07230203, 0x00010300, 0, 8, 0};
  for (int i = 5; i < 15; i++)
    m5[i] = (1u << 16) | 0;
  assert_int_equal(spirv_open_words(m5, 15, 4, &c, &err), AMDDWARF_E_LIMIT);
  /* Truncated header. */
  assert_int_equal(spirv_open_words(m1, 4, 0, &c, &err), AMDDWARF_E_SPIRV_BAD_HEADER);
}

/* ---- printf buffers -------------------------------------------------------- */

static void put_u64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void test_printf_claims(void **state)
{
  (void)state;
  counting c;
  amddwarf_allocator a = counting_allocator(&c);
  amddwarf_error err;
  amddwarf_printf_reader *r = NULL;
  amddwarf_printf_entry e;
  uint8_t buf[16 + 32];
  memset(buf, 0, sizeof buf);
  /* bufferOffset of 2^62 dwords in a 48-byte buffer; one entry claiming
     65535 dwords. */
  put_u64(buf, UINT64_C(1) << 62);
  put_u64(buf + 16, (UINT64_C(7) << 16) | 0xffff);
  assert_int_equal(amddwarf_printf_reader_open_memory(buf, sizeof buf, &a, &r, &err), AMDDWARF_OK);
  const amddwarf_printf_buffer_info *info = amddwarf_printf_reader_info(r);
  assert_int_equal(info->data_bytes, 32);
  assert_true(info->past_clamp);
  assert_true(info->past_buffer);
  assert_int_equal(info->requested_bytes, UINT64_MAX);
  assert_int_equal(amddwarf_printf_reader_next(r, &e, &err), AMDDWARF_E_PRINTF_ENTRY_PAST_END);
  assert_int_equal(err.offset, 16);
  assert_int_equal(amddwarf_printf_reader_next(r, &e, &err), AMDDWARF_END);
  amddwarf_printf_reader_close(r);
  /* Entries of size 0 everywhere: skipped as one bad run, then the end. */
  memset(buf, 0, sizeof buf);
  put_u64(buf, 8);
  assert_int_equal(amddwarf_printf_reader_open_memory(buf, sizeof buf, &a, &r, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_printf_reader_next(r, &e, &err), AMDDWARF_E_PRINTF_BAD_ENTRY_SIZE);
  assert_int_equal(amddwarf_printf_reader_next(r, &e, &err), AMDDWARF_END);
  amddwarf_printf_reader_close(r);
  /* Truncated header. */
  r = NULL;
  assert_int_equal(amddwarf_printf_reader_open_memory(buf, 15, &a, &r, &err), AMDDWARF_E_TRUNCATED);
  assert_null(r);
  assert_int_equal(c.live, 0);
}

/* ---- GPU-AV buffers -------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void test_gpuav_claims(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_gpuav_buffer b;
  amddwarf_gpuav_record rec;
  uint8_t buf[4 * 16];
  memset(buf, 0, sizeof buf);
  /* V2: flags 1, written length 2^32 - 1, one record claiming 2^32 - 1 words. */
  put_u32(buf, 1);
  put_u32(buf + 4, 0xffffffffu);
  put_u32(buf + 8, 0xffffffffu);
  assert_int_equal(amddwarf_gpuav_buffer_parse(buf, sizeof buf, AMDDWARF_GPUAV_FORMAT_V2, &b, &err),
                   AMDDWARF_OK);
  assert_true(b.overflow);
  assert_int_equal(b.written_length, 0xffffffffu);
  assert_int_equal(b.data_words, 14);
  uint32_t cursor = 0;
  assert_int_equal(amddwarf_gpuav_buffer_next(buf, sizeof buf, &b, &cursor, &rec, &err), AMDDWARF_OK);
  assert_int_equal(rec.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
  assert_int_equal(amddwarf_gpuav_buffer_next(buf, sizeof buf, &b, &cursor, &rec, &err), AMDDWARF_END);
  /* Records of 1 word (shorter than their fixed words) up to the end. */
  for (int i = 2; i < 16; i++)
    put_u32(buf + 4 * i, 1);
  assert_int_equal(amddwarf_gpuav_buffer_parse(buf, sizeof buf, AMDDWARF_GPUAV_FORMAT_V2, &b, &err),
                   AMDDWARF_OK);
  cursor = 0;
  int records = 0;
  amddwarf_status st;
  while ((st = amddwarf_gpuav_buffer_next(buf, sizeof buf, &b, &cursor, &rec, &err)) == AMDDWARF_OK) {
    assert_int_equal(rec.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
    assert_true(++records <= 14);
  }
  assert_int_equal(st, AMDDWARF_END);
  /* No room for the header. */
  assert_int_equal(amddwarf_gpuav_buffer_parse(buf, 7, AMDDWARF_GPUAV_FORMAT_V2, &b, &err),
                   AMDDWARF_E_TRUNCATED);
}

/* ---- Code objects ---------------------------------------------------------- */

typedef struct elf_image {
  uint8_t *bytes;
  size_t size;
} elf_image;

static elf_image load_object(void)
{
  const char *path = AMDDWARF_SOURCE_DIR "/tests/fuzz/corpus/object/opencl-gfx1030-O2.rel.elf";
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  elf_image im = {malloc(1 << 20), 0};
  assert_non_null(im.bytes);
  im.size = fread(im.bytes, 1, 1 << 20, f);
  fclose(f);
  assert_true(im.size > 64);
  return im;
}

static uint64_t get_le(const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static void set_le(uint8_t *p, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* The section header of the section called NAME. */
static uint8_t *find_section(const elf_image *im, const char *name)
{
  uint64_t shoff = get_le(im->bytes + 0x28, 8);
  unsigned shnum = (unsigned)get_le(im->bytes + 0x3c, 2);
  unsigned shstrndx = (unsigned)get_le(im->bytes + 0x3e, 2);
  const uint8_t *strtab = im->bytes + get_le(im->bytes + shoff + 64 * shstrndx + 24, 8);
  for (unsigned i = 0; i < shnum; i++) {
    uint8_t *sh = im->bytes + shoff + 64 * i;
    if (strcmp((const char *)strtab + get_le(sh, 4), name) == 0)
      return sh;
  }
  fail_msg("no section %s", name);
  return NULL;
}

static amddwarf_status open_object(const elf_image *im, size_t size, amddwarf_error *err)
{
  counting c;
  amddwarf_allocator a = counting_allocator(&c);
  amddwarf_object_options o;
  amddwarf_object_options_init(&o);
  o.allocator = &a;
  o.flags = AMDDWARF_OBJECT_LOAD_ALL; /* every unit's errors are open's */
  amddwarf_object *obj = NULL;
  amddwarf_status st = amddwarf_object_open_memory(im->bytes, size, &o, &obj, err);
  if (st == AMDDWARF_OK) {
    /* Walk what was read: lists are resolved per variable. */
    amddwarf_var vars[64];
    size_t count = 0;
    for (uint64_t pc = 0; pc < 0x200; pc += 4)
      (void)amddwarf_object_vars_at(obj, pc, vars, 64, &count);
  } else {
    assert_null(obj);
  }
  amddwarf_object_close(obj);
  assert_int_equal(c.live, 0);
  assert_true(c.peak < (64u << 20));
  return st;
}

/* Opens IM and requires status WANT. */
static void expect_object(const elf_image *im, size_t size, amddwarf_status want,
                          const char *what)
{
  amddwarf_error err;
  memset(&err, 0, sizeof err);
  amddwarf_status st = open_object(im, size, &err);
  if (st == want)
    return;
  fail_msg("%s: status %d (%s), expected %d", what, st, err.message, want);
}

static void test_object_unmodified(void **state)
{
  (void)state;
  elf_image im = load_object();
  amddwarf_error err;
  assert_int_equal(open_object(&im, im.size, &err), AMDDWARF_OK);
  free(im.bytes);
}

static void test_object_truncated(void **state)
{
  (void)state;
  elf_image im = load_object();
  /* The file cut inside the ELF header, and before its section headers. */
  expect_object(&im, 40, AMDDWARF_E_OBJECT_NOT_ELF, "cut at 40 bytes");
  expect_object(&im, im.size / 2, AMDDWARF_E_OBJECT_BAD_ELF, "cut before the section headers");
  /* .debug_info claiming more bytes than the file has. */
  uint8_t *sh = find_section(&im, ".debug_info");
  uint64_t saved = get_le(sh + 32, 8);
  set_le(sh + 32, im.size, 8);
  expect_object(&im, im.size, AMDDWARF_E_OBJECT_BAD_ELF, ".debug_info of the file's size");
  /* ... and 2^63 bytes. */
  set_le(sh + 32, UINT64_C(1) << 63, 8);
  expect_object(&im, im.size, AMDDWARF_E_OBJECT_BAD_ELF, ".debug_info of 2^63 bytes");
  set_le(sh + 32, saved, 8);
  /* The unit's own length claiming 2^32 - 17 bytes. */
  uint8_t *info = im.bytes + get_le(sh + 24, 8);
  uint32_t unit_length = (uint32_t)get_le(info, 4);
  set_le(info, 0xffffffefu, 4);
  amddwarf_error err;
  amddwarf_status st = open_object(&im, im.size, &err);
  if (st != AMDDWARF_E_OBJECT_DWARF && st != AMDDWARF_E_TRUNCATED)
    fail_msg("unit length claim: status %d (%s)", st, err.message);
  set_le(info, unit_length, 4);
  expect_object(&im, im.size, AMDDWARF_OK, "restored");
  free(im.bytes);
}

static void test_object_section_counts(void **state)
{
  (void)state;
  elf_image im = load_object();
  uint64_t shnum = get_le(im.bytes + 0x3c, 2);
  /* 65535 section headers in a file that holds a few dozen. */
  set_le(im.bytes + 0x3c, 0xffff, 2);
  expect_object(&im, im.size, AMDDWARF_E_OBJECT_BAD_ELF, "e_shnum 65535");
  /* The extended count: e_shnum 0 and section 0's sh_size 2^32 - 1. */
  set_le(im.bytes + 0x3c, 0, 2);
  uint8_t *sh0 = im.bytes + get_le(im.bytes + 0x28, 8);
  set_le(sh0 + 32, 0xffffffffu, 8);
  expect_object(&im, im.size, AMDDWARF_E_OBJECT_BAD_ELF, "extended section count 2^32 - 1");
  set_le(sh0 + 32, 0, 8);
  set_le(im.bytes + 0x3c, shnum, 2);
  /* Section header offset of 2^64 - 64. */
  uint64_t shoff = get_le(im.bytes + 0x28, 8);
  set_le(im.bytes + 0x28, UINT64_MAX - 63, 8);
  expect_object(&im, im.size, AMDDWARF_E_OBJECT_BAD_ELF, "e_shoff 2^64 - 64");
  set_le(im.bytes + 0x28, shoff, 8);
  expect_object(&im, im.size, AMDDWARF_OK, "restored");
  free(im.bytes);
}

/* Location lists that never end: every list entry after the header rewritten
   as DW_LLE_base_address (0x06) records, with no DW_LLE_end_of_list, and the
   offset table pointing back into the header. */
static void test_object_cyclic_loclists(void **state)
{
  (void)state;
  elf_image im = load_object();
  amddwarf_error err;
  uint8_t *sh = find_section(&im, ".debug_loclists");
  uint8_t *sec = im.bytes + get_le(sh + 24, 8);
  size_t size = (size_t)get_le(sh + 32, 8);
  uint32_t offset_entries = (uint32_t)get_le(sec + 8, 4);
  size_t body = 12 + 4 * (size_t)offset_entries;
  assert_true(body + 9 <= size);
  /* Unterminated: DW_LLE_base_address records running off the unit. */
  size_t i = body;
  for (; i + 9 <= size; i += 9) {
    sec[i] = 0x06;
    set_le(sec + i + 1, 0x100, 8);
  }
  memset(sec + i, 0x06, size - i);
  amddwarf_status st = open_object(&im, im.size, &err);
  if (st != AMDDWARF_E_OBJECT_BAD_LIST)
    fail_msg("unterminated list: status %d (%s)", st, err.message);
  /* Offsets (DW_FORM_loclistx) that claim 2^32 - 16 bytes past the table. */
  for (uint32_t k = 0; k < offset_entries; k++)
    set_le(sec + 12 + 4 * k, 0xfffffff0u, 4);
  st = open_object(&im, im.size, &err);
  if (st != AMDDWARF_E_OBJECT_BAD_LIST)
    fail_msg("offsets past the section: status %d (%s)", st, err.message);
  free(im.bytes);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_eval_skip_loop),
      cmocka_unit_test(test_eval_extend_billions),
      cmocka_unit_test(test_eval_nested_composites),
      cmocka_unit_test(test_eval_recursive_call),
      cmocka_unit_test(test_eval_recursive_frame_base),
      cmocka_unit_test(test_eval_truncated),
      cmocka_unit_test(test_snapshot_hostile),
      cmocka_unit_test(test_cfi_cyclic_cie_pointers),
      cmocka_unit_test(test_cfi_length_claims),
      cmocka_unit_test(test_cfi_rule_limits),
      cmocka_unit_test(test_spirv_claims),
      cmocka_unit_test(test_printf_claims),
      cmocka_unit_test(test_gpuav_claims),
      cmocka_unit_test(test_object_unmodified),
      cmocka_unit_test(test_object_truncated),
      cmocka_unit_test(test_object_section_counts),
      cmocka_unit_test(test_object_cyclic_loclists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
