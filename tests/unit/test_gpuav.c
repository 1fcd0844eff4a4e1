/* Unit tests of src/gpuav: buffer layouts and format detection, the record
 * scan and its robustness rules, every error code and every stage in each
 * format, the seed's worked message, debug-printf rendering, and the seed's
 * descriptor input buffer example and the layer's layouts with and without
 * sizes, the streaming reader and its consistency checks, records against
 * their module, and what an instrumented module says (specs/gpuav-records.md).
 *
 * Buffers are built word by word from the documented layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/gpuav.h>

#include "spirv_build.h"

typedef struct buf {
  uint8_t b[4096];
  size_t n; /* bytes */
} buf;

static void put(buf *b, uint32_t w)
{
  b->b[b->n++] = (uint8_t)w;
  b->b[b->n++] = (uint8_t)(w >> 8);
  b->b[b->n++] = (uint8_t)(w >> 16);
  b->b[b->n++] = (uint8_t)(w >> 24);
}

static void words(buf *b, size_t count, ...)
{
  va_list ap;
  va_start(ap, count);
  for (size_t i = 0; i < count; i++)
    put(b, va_arg(ap, uint32_t));
  va_end(ap);
}

static uint32_t fbits(float f)
{
  uint32_t w;
  memcpy(&w, &f, sizeof(w));
  return w;
}

static void parse_ok(const buf *b, amddwarf_gpuav_format format, amddwarf_gpuav_buffer *out)
{
  amddwarf_error err;
  amddwarf_status st = amddwarf_gpuav_buffer_parse(b->b, b->n, format, out, &err);
  if (st != AMDDWARF_OK)
    fail_msg("parse: %s", err.message);
}

static void next_ok(const buf *b, const amddwarf_gpuav_buffer *h, uint32_t *cursor,
                    amddwarf_gpuav_record *r)
{
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_gpuav_buffer_next(b->b, b->n, h, cursor, r, &err), AMDDWARF_OK);
  if (r->problem != AMDDWARF_OK)
    fail_msg("record problem: %s", err.message);
}

static void describe_is(const amddwarf_gpuav_buffer *h, const amddwarf_gpuav_record *r,
                        const char *name, const amddwarf_spirv_location *loc, const char *want)
{
  char text[1024];
  size_t n = amddwarf_gpuav_describe(h, r, name, loc, text, sizeof(text));
  assert_int_equal(n, strlen(text));
  assert_string_equal(text, want);
  /* snprintf semantics: a short buffer gets a truncated, terminated prefix. */
  char small[8];
  assert_int_equal(amddwarf_gpuav_describe(h, r, name, loc, small, sizeof(small)), n);
  assert_int_equal(strlen(small), 7);
  assert_memory_equal(small, want, 7);
  assert_int_equal(amddwarf_gpuav_describe(h, r, name, loc, NULL, 0), n);
}

/* The seed's example: an image descriptor bounds error in a fragment shader,
   record size 9, written starting at Data[0]. */
static void test_seed_example_message(void **state)
{
  (void)state;
  buf b = {{0}, 0};
  words(&b, 10, 9u, 9u, 5u, 108u, 4u, fbits(419.5f), fbits(254.5f), 0u, 6u, 6u);
  words(&b, 3, 0u, 0u, 0u);
  amddwarf_gpuav_buffer h;
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_AUTO, &h);
  assert_int_equal(h.format, AMDDWARF_GPUAV_FORMAT_SEED);
  assert_int_equal(h.written_length, 9);
  assert_int_equal(h.data_offset, 1);
  assert_int_equal(h.data_words, 12);
  assert_false(h.overflow);
  uint32_t cursor = 0;
  amddwarf_gpuav_record r;
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.data_index, 0);
  assert_int_equal(r.size, 9);
  assert_int_equal(r.shader_id, 5);
  assert_int_equal(r.instruction_index, 108);
  assert_int_equal(r.stage, 4);
  assert_int_equal(r.stage_word_count, 2);
  assert_int_equal(r.payload_words, 3);
  assert_int_equal(amddwarf_gpuav_record_word(&r, 0), 0);
  assert_int_equal(amddwarf_gpuav_record_word(&r, 2), 6);
  assert_int_equal(amddwarf_gpuav_record_word(&r, 3), 0);
  assert_int_equal(cursor, 9);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, NULL), AMDDWARF_END);

  amddwarf_spirv_location loc;
  memset(&loc, 0, sizeof(loc));
  static const char src[] = "    uFragColor = light * texture(tex[tex_ind], texcoord.xy);";
  loc.has_line = true;
  loc.file = "/home/user/src/Vulkan-ValidationLayers/external/Vulkan-Tools/cube/cube.frag";
  loc.line = 45;
  loc.source_line = src;
  loc.source_line_length = strlen(src);
  describe_is(&h, &r, "cube.spv", &loc,
              "Index of 6 used to index descriptor array of length 6.  Shader Module "
              "(cube.spv, shader ID 5). Shader Instruction Index = 108.  Stage = Fragment.  "
              "Fragment coord (x,y) = (419.5, 254.5). Shader validation error occurred in file: "
              "/home/user/src/Vulkan-ValidationLayers/external/Vulkan-Tools/cube/cube.frag at "
              "line 45.\n45:     uFragColor = light * texture(tex[tex_ind], texcoord.xy);");
  /* No file: only the line; a column when nonzero; no line information. */
  loc.file = NULL;
  loc.source_line = NULL;
  loc.column = 7;
  describe_is(&h, &r, NULL, &loc,
              "Index of 6 used to index descriptor array of length 6.  Shader ID = 5. Shader "
              "Instruction Index = 108.  Stage = Fragment.  Fragment coord (x,y) = (419.5, "
              "254.5). Shader validation error occurred at line 45, column 7.");
  loc.has_line = false;
  describe_is(&h, &r, NULL, &loc,
              "Index of 6 used to index descriptor array of length 6.  Shader ID = 5. Shader "
              "Instruction Index = 108.  Stage = Fragment.  Fragment coord (x,y) = (419.5, "
              "254.5). Unable to find SPIR-V OpLine for source information.  Build shader with "
              "debug info to get source information.");
  /* A file name longer than any fixed piece of the message is written whole
     and counted whole, so a caller sizing a second call gets all of it. */
  char file[701];
  memset(file, 'f', sizeof file - 1);
  file[sizeof file - 1] = '\0';
  loc.has_line = true;
  loc.column = 0;
  loc.file = file;
  char want[2048];
  snprintf(want, sizeof want,
           "Index of 6 used to index descriptor array of length 6.  Shader ID = 5. Shader "
           "Instruction Index = 108.  Stage = Fragment.  Fragment coord (x,y) = (419.5, "
           "254.5). Shader validation error occurred in file: %s at line 45.",
           file);
  char text[2048];
  assert_int_equal(amddwarf_gpuav_describe(&h, &r, NULL, &loc, text, sizeof text),
                   strlen(want));
  assert_string_equal(text, want);
  assert_int_equal(amddwarf_gpuav_describe(&h, &r, NULL, &loc, NULL, 0), strlen(want));
}

typedef struct stage_case {
  uint32_t stage;
  uint32_t w[3];
  const char *seed;
  const char *v2;
} stage_case;

/* Every stage of stages.def, in both record shapes. */
static void test_every_stage(void **state)
{
  (void)state;
  static const stage_case cases[] = {
      {0, {11, 12, 13}, "Stage = Vertex.  Vertex ID = 11, Instance ID = 12.",
       "Stage = Vertex.  Vertex Index = 11, Instance Index = 12."},
      {1, {11, 12, 13}, "Stage = TessCtrl.  Invocation ID = 11.",
       "Stage = TessCtrl.  Invocation ID = 11, Primitive ID = 12."},
      {2, {11, 0x3f000000, 0x3e800000}, "Stage = TessEval.  Invocation ID = 11.",
       "Stage = TessEval.  Primitive ID = 11, TessCoord (u, v) = (0.5, 0.25)."},
      {3, {11, 12, 13}, "Stage = Geometry.  Primitive ID = 11, Invocation ID = 12.",
       "Stage = Geometry.  Primitive ID = 11, Invocation ID = 12."},
      {4, {0x3fc00000, 0x40200000, 0}, "Stage = Fragment.  Fragment coord (x,y) = (1.5, 2.5).",
       "Stage = Fragment.  Fragment coord (x,y) = (1.5, 2.5)."},
      {5, {11, 12, 13}, "Stage = Compute.  Global invocation ID = 11.",
       "Stage = Compute.  Global invocation ID (x, y, z) = (11, 12, 13)."},
      {5267, {1, 2, 3}, "Stage = TaskNV.  Global invocation ID = 1.",
       "Stage = TaskNV.  Global invocation ID (x, y, z) = (1, 2, 3)."},
      {5268, {1, 2, 3}, "Stage = MeshNV.  Global invocation ID = 1.",
       "Stage = MeshNV.  Global invocation ID (x, y, z) = (1, 2, 3)."},
      {5313, {1, 2, 3}, "Stage = RayGenerationNV.  Launch ID (x, y) = (1, 2).",
       "Stage = RayGenerationNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5314, {1, 2, 3}, "Stage = IntersectionNV.  Launch ID (x, y) = (1, 2).",
       "Stage = IntersectionNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5315, {1, 2, 3}, "Stage = AnyHitNV.  Launch ID (x, y) = (1, 2).",
       "Stage = AnyHitNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5316, {1, 2, 3}, "Stage = ClosestHitNV.  Launch ID (x, y) = (1, 2).",
       "Stage = ClosestHitNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5317, {1, 2, 3}, "Stage = MissNV.  Launch ID (x, y) = (1, 2).",
       "Stage = MissNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5318, {1, 2, 3}, "Stage = CallableNV.  Launch ID (x, y) = (1, 2).",
       "Stage = CallableNV.  Launch ID (x, y, z) = (1, 2, 3)."},
      {5364, {1, 2, 3}, "Stage = TaskEXT.  Global invocation ID = 1.",
       "Stage = TaskEXT.  Global invocation ID (x, y, z) = (1, 2, 3)."},
      {5365, {1, 2, 3}, "Stage = MeshEXT.  Global invocation ID = 1.",
       "Stage = MeshEXT.  Global invocation ID (x, y, z) = (1, 2, 3)."},
      {77, {1, 2, 3}, "Stage = 77.  Stage words = (1, 2).",
       "Stage = 77.  Stage words = (1, 2, 3)."},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const stage_case *c = &cases[i];
    for (int v2 = 0; v2 < 2; v2++) {
      buf b = {{0}, 0};
      if (v2) {
        words(&b, 2, 0u, 11u);
        words(&b, 11, 11u, 23u, 40u, c->stage, c->w[0], c->w[1], c->w[2], 1u, 3u, 0u, 0u);
      } else {
        words(&b, 1, 9u);
        words(&b, 9, 9u, 23u, 40u, c->stage, c->w[0], c->w[1], 1u, 3u, 0u);
      }
      amddwarf_gpuav_buffer h;
      parse_ok(&b, v2 ? AMDDWARF_GPUAV_FORMAT_V2 : AMDDWARF_GPUAV_FORMAT_SEED, &h);
      uint32_t cursor = 0;
      amddwarf_gpuav_record r;
      if (c->stage != 77) {
        next_ok(&b, &h, &cursor, &r);
      } else {
        /* No execution model: reported with the record, which still renders. */
        amddwarf_error err;
        assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, &err), AMDDWARF_OK);
        assert_int_equal(r.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
        assert_int_equal(err.offset, 4 * h.data_offset + 12);
        assert_string_equal(err.message, v2 ? "record at byte offset 8: stage 77 is not an "
                                              "execution model the instrumentation writes"
                                            : "record at byte offset 4: stage 77 is not an "
                                              "execution model the instrumentation writes");
        assert_int_equal(cursor, v2 ? 11 : 9);
      }
      char want[400];
      snprintf(want, sizeof(want),
               "Descriptor index 3 is uninitialized.  Shader ID = 23. Shader Instruction Index "
               "= 40.  %s",
               v2 ? c->v2 : c->seed);
      describe_is(&h, &r, NULL, NULL, want);
      if (c->stage != 77)
        assert_non_null(amddwarf_gpuav_stage_name(c->stage));
      else
        assert_null(amddwarf_gpuav_stage_name(c->stage));
    }
  }
}

typedef struct error_case {
  amddwarf_gpuav_format format;
  uint32_t code;
  uint32_t params[3];
  uint32_t param_count;
  const char *name;
  const char *text;
} error_case;

/* Every error code of errors.def (and unknown ones), in V2 records of a
   compute shader (stage words 1, 2, 3). */
static void test_every_error_code(void **state)
{
  (void)state;
  static const error_case cases[] = {
      {AMDDWARF_GPUAV_FORMAT_V2, 0, {7, 4, 0}, 2, "descriptor_index_out_of_bounds",
       "Index of 7 used to index descriptor array of length 4."},
      {AMDDWARF_GPUAV_FORMAT_V2, 1, {7, 0, 0}, 2, "descriptor_uninitialized",
       "Descriptor index 7 is uninitialized."},
      {AMDDWARF_GPUAV_FORMAT_V2, 2, {0x89abcdef, 0x1234, 0}, 2, "device_address_unallocated",
       "Device address 0x123489abcdef access out of bounds."},
      {AMDDWARF_GPUAV_FORMAT_V2, 3, {2, 100, 64}, 3, "buffer_out_of_bounds",
       "Descriptor index 2 access out of bounds. Descriptor size is 64 and highest byte "
       "accessed was 100."},
      {AMDDWARF_GPUAV_FORMAT_V2, 4, {2, 100, 64}, 3, "uniform_buffer_out_of_bounds",
       "Descriptor index 2 access out of bounds. Descriptor size is 64 and highest byte "
       "accessed was 100."},
      {AMDDWARF_GPUAV_FORMAT_V2, 5, {0, 16, 8}, 3, "storage_buffer_out_of_bounds",
       "Descriptor index 0 access out of bounds. Descriptor size is 8 and highest byte "
       "accessed was 16."},
      {AMDDWARF_GPUAV_FORMAT_V2, 6, {1, 9, 5}, 3, "uniform_texel_buffer_out_of_bounds",
       "Descriptor index 1 access out of bounds. Descriptor size is 5 texels and highest "
       "texel accessed was 9."},
      {AMDDWARF_GPUAV_FORMAT_V2, 7, {1, 9, 5}, 3, "storage_texel_buffer_out_of_bounds",
       "Descriptor index 1 access out of bounds. Descriptor size is 5 texels and highest "
       "texel accessed was 9."},
      {AMDDWARF_GPUAV_FORMAT_V2, 8, {1, 2, 3}, 3, NULL, "Error code 8, parameters (1, 2, 3)."},
      {AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS, 3, {2, 100, 64}, 3, "buffer_out_of_bounds",
       "Descriptor index 2 access out of bounds. Descriptor size is 64 and highest byte "
       "accessed was 100."},
      {AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS, 4, {2, 100, 64}, 3, NULL,
       "Error code 4, parameters (2, 100, 64)."},
      /* A known code whose parameters are missing. */
      {AMDDWARF_GPUAV_FORMAT_V2, 5, {9, 0, 0}, 1, "storage_buffer_out_of_bounds",
       "Error code 5 (storage_buffer_out_of_bounds) with 1 of its 3 parameter words, "
       "parameters (9)."},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const error_case *c = &cases[i];
    buf b = {{0}, 0};
    uint32_t size = 7 + 1 + c->param_count;
    if (c->format == AMDDWARF_GPUAV_FORMAT_V2)
      put(&b, 0);
    put(&b, size);
    words(&b, 7, size, 23u, 40u, 5u, 1u, 2u, 3u);
    put(&b, c->code);
    for (uint32_t k = 0; k < c->param_count; k++)
      put(&b, c->params[k]);
    amddwarf_gpuav_buffer h;
    parse_ok(&b, c->format, &h);
    uint32_t cursor = 0;
    amddwarf_gpuav_record r;
    next_ok(&b, &h, &cursor, &r);
    char want[400];
    snprintf(want, sizeof(want),
             "%s  Shader ID = 23. Shader Instruction Index = 40.  Stage = Compute.  Global "
             "invocation ID (x, y, z) = (1, 2, 3).",
             c->text);
    describe_is(&h, &r, NULL, NULL, want);
    const amddwarf_gpuav_error_info *info = amddwarf_gpuav_error_lookup(c->format, c->code);
    if (c->name) {
      assert_non_null(info);
      assert_string_equal(info->name, c->name);
    } else {
      assert_null(info);
    }
  }
  /* The seed knows codes 0 and 1 only. */
  assert_non_null(amddwarf_gpuav_error_lookup(AMDDWARF_GPUAV_FORMAT_SEED, 1));
  assert_null(amddwarf_gpuav_error_lookup(AMDDWARF_GPUAV_FORMAT_SEED, 2));
  assert_string_equal(amddwarf_gpuav_error_lookup(AMDDWARF_GPUAV_FORMAT_SEED, 0)->message_id,
                      "UNASSIGNED-Image descriptor index out of bounds");
}

static void expect_format(const buf *b, amddwarf_gpuav_format want)
{
  amddwarf_gpuav_buffer h;
  amddwarf_error err;
  amddwarf_status st = amddwarf_gpuav_buffer_parse(b->b, b->n, AMDDWARF_GPUAV_FORMAT_AUTO, &h, &err);
  if (want == AMDDWARF_GPUAV_FORMAT_AUTO) {
    assert_int_equal(st, AMDDWARF_E_GPUAV_BAD_FORMAT);
    assert_int_equal(err.offset, 0);
    return;
  }
  assert_int_equal(st, AMDDWARF_OK);
  assert_int_equal(h.format, want);
}

static void test_format_detection(void **state)
{
  (void)state;
  buf b = {{0}, 0};
  words(&b, 13, 1u, 10u, 10u, 23u, 1u, 5u, 0u, 0u, 0u, 0u, 1u, 2u, 0u);
  expect_format(&b, AMDDWARF_GPUAV_FORMAT_V2); /* flags 1 */
  b.n = 0;
  words(&b, 12, 10u, 10u, 23u, 1u, 5u, 0u, 0u, 0u, 0u, 1u, 2u, 0u);
  expect_format(&b, AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS); /* first record of 10 words */
  b.n = 0;
  words(&b, 10, 9u, 9u, 23u, 1u, 4u, 0u, 0u, 0u, 1u, 2u);
  expect_format(&b, AMDDWARF_GPUAV_FORMAT_SEED);
  b.n = 0;
  words(&b, 4, 0u, 0u, 0u, 0u);
  expect_format(&b, AMDDWARF_GPUAV_FORMAT_V2); /* empty */
  b.n = 0;
  words(&b, 4, 7u, 3u, 0u, 0u);
  expect_format(&b, AMDDWARF_GPUAV_FORMAT_AUTO); /* record of 3 words: nothing fits */
  b.n = 0;
  words(&b, 1, 5u);
  amddwarf_gpuav_buffer h;
  assert_int_equal(amddwarf_gpuav_buffer_parse(b.b, b.n, AMDDWARF_GPUAV_FORMAT_AUTO, &h, NULL),
                   AMDDWARF_E_TRUNCATED);
  assert_int_equal(amddwarf_gpuav_buffer_parse(b.b, b.n, AMDDWARF_GPUAV_FORMAT_V2, &h, NULL),
                   AMDDWARF_E_TRUNCATED);
  assert_string_equal(amddwarf_gpuav_format_name(AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS), "v2-noflags");
  /* The reverse, by the names specs/gpuav-records.md gives the formats. */
  amddwarf_gpuav_format format = AMDDWARF_GPUAV_FORMAT_AUTO;
  assert_int_equal(amddwarf_gpuav_format_from_name("v2-noflags", &format), AMDDWARF_OK);
  assert_int_equal(format, AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS);
  assert_int_equal(amddwarf_gpuav_format_from_name("seed", &format), AMDDWARF_OK);
  assert_int_equal(format, AMDDWARF_GPUAV_FORMAT_SEED);
  assert_int_equal(amddwarf_gpuav_format_from_name("v3", &format), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_gpuav_format_from_name(NULL, &format), AMDDWARF_E_INVALID_ARGUMENT);
}

/* Size 0 ends the scan; a record past the written length is reported and
   ends it; earlier records are kept; a short record is skipped. */
static void test_scan_robustness(void **state)
{
  (void)state;
  amddwarf_error err;
  amddwarf_gpuav_buffer h;
  amddwarf_gpuav_record r;
  uint32_t cursor;
  /* Two good seed records, then a zero size before the written length. */
  buf b = {{0}, 0};
  words(&b, 1, 30u);
  words(&b, 9, 9u, 1u, 10u, 5u, 0u, 0u, 0u, 1u, 2u);
  words(&b, 9, 9u, 1u, 11u, 5u, 0u, 0u, 0u, 1u, 2u);
  words(&b, 12, 0u, 9u, 9u, 9u, 9u, 9u, 9u, 9u, 9u, 9u, 9u, 9u);
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_SEED, &h);
  cursor = 0;
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.instruction_index, 10);
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.instruction_index, 11);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, NULL), AMDDWARF_END);

  /* A record that runs past the written length (written 14, second record
     of 9 words at Data[9]). */
  b.n = 0;
  words(&b, 1, 14u);
  words(&b, 9, 9u, 1u, 10u, 5u, 0u, 0u, 0u, 1u, 2u);
  words(&b, 9, 9u, 1u, 12u, 5u, 0u, 0u, 0u, 1u, 2u);
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_SEED, &h);
  cursor = 0;
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.instruction_index, 10);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, &err), AMDDWARF_OK);
  assert_int_equal(r.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
  assert_int_equal(r.instruction_index, 12); /* what could be read is kept */
  assert_int_equal(err.status, AMDDWARF_E_GPUAV_BAD_RECORD);
  assert_int_equal(err.offset, 40);
  assert_non_null(strstr(err.message, "written data"));
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, NULL), AMDDWARF_END);

  /* Written length beyond the buffer: overflow, the fitting records are read,
     a record cut by the end of the buffer is reported. */
  b.n = 0;
  words(&b, 2, 0u, 500u);
  words(&b, 10, 10u, 1u, 10u, 5u, 0u, 0u, 0u, 0u, 1u, 2u);
  words(&b, 4, 10u, 1u, 11u, 5u);
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_V2, &h);
  assert_true(h.overflow);
  assert_int_equal(h.data_words, 14);
  cursor = 0;
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.instruction_index, 10);
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, &err), AMDDWARF_OK);
  assert_int_equal(r.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
  assert_int_equal(r.instruction_index, 11);
  assert_int_equal(r.payload_words, 0);
  assert_int_equal(err.offset, 48);
  assert_non_null(strstr(err.message, "buffer"));
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, NULL), AMDDWARF_END);

  /* A record shorter than its fixed words is reported and skipped. */
  b.n = 0;
  words(&b, 2, 0u, 13u);
  words(&b, 3, 3u, 1u, 2u);
  words(&b, 10, 10u, 1u, 10u, 5u, 0u, 0u, 0u, 0u, 1u, 2u);
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_V2, &h);
  cursor = 0;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, &err), AMDDWARF_OK);
  assert_int_equal(r.problem, AMDDWARF_E_GPUAV_BAD_RECORD);
  assert_int_equal(err.offset, 8);
  assert_int_equal(cursor, 3);
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(r.instruction_index, 10);
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, &cursor, &r, NULL), AMDDWARF_END);

  /* Bad arguments. */
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &h, NULL, &r, NULL),
                   AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_gpuav_buffer lying = h;
  lying.data_words = 1000;
  cursor = 0;
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &lying, &cursor, &r, NULL),
                   AMDDWARF_E_INVALID_ARGUMENT);
  /* A header whose written length exceeds the buffer without the overflow
     flag still stops at the end of the buffer. */
  lying = h;
  lying.written_length = 1000;
  lying.overflow = false;
  cursor = 13;
  assert_int_equal(amddwarf_gpuav_buffer_next(b.b, b.n, &lying, &cursor, &r, NULL), AMDDWARF_END);
}

/* FORMAT rendered with ARGS: WANT exactly, or for an error status a part of
   its message. */
static void printf_is(const char *format, const uint32_t *args, uint32_t count, const char *want,
                      amddwarf_status want_status)
{
  buf b = {{0}, 0};
  words(&b, 2, 0u, 8 + count);
  words(&b, 8, 8 + count, 23u, 40u, 5u, 1u, 2u, 3u, 99u);
  for (uint32_t i = 0; i < count; i++)
    put(&b, args[i]);
  amddwarf_gpuav_buffer h;
  parse_ok(&b, AMDDWARF_GPUAV_FORMAT_V2, &h);
  uint32_t cursor = 0;
  amddwarf_gpuav_record r;
  next_ok(&b, &h, &cursor, &r);
  assert_int_equal(amddwarf_gpuav_record_word(&r, 0), 99);
  char out[512];
  size_t n = 0;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_gpuav_printf_render(format, &r, out, sizeof(out), &n, &err);
  if (st != want_status)
    fail_msg("'%s': %d (%s), want %d", format, (int)st, err.message, (int)want_status);
  if (want_status != AMDDWARF_OK) {
    assert_string_equal(out, "");
    assert_non_null(strstr(err.message, want));
    return;
  }
  assert_string_equal(out, want);
  assert_int_equal(n, strlen(want));
  /* A short output is truncated, terminated, and tells the full length. */
  char small[4];
  assert_int_equal(amddwarf_gpuav_printf_render(format, &r, small, sizeof(small), &n, NULL),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(n, strlen(want));
  assert_memory_equal(small, want, strlen(want) < 3 ? strlen(want) + 1 : 3);
}

static void test_printf_rendering(void **state)
{
  (void)state;
  {
    uint32_t a[] = {7, 0xfffffffe, fbits(2.5f), fbits(3.0f), fbits(1.0f)};
    printf_is("i=%u n=%d f=%f v=%v2f\n", a, 5, "i=7 n=-2 f=2.500000 v=3.000000, 1.000000\n",
              AMDDWARF_OK);
  }
  {
    uint32_t a[] = {255, 255, 8, 65, 0xffffffff};
    printf_is("%x %X %o %c %i %%", a, 5, "ff FF 10 A -1 %", AMDDWARF_OK);
  }
  {
    uint32_t a[] = {fbits(1234.5f), fbits(0.5f), fbits(1.0f), fbits(-2.25f)};
    printf_is("%e|%g|%a|%8.3f|", a, 4, "1.234500e+03|0.5|0x1p+0|  -2.250|", AMDDWARF_OK);
  }
  {
    /* 64-bit arguments: two words, low first. */
    uint32_t a[] = {0x00000001, 0x00000002, 0xffffffff, 0xffffffff, 0, 0x3ff80000};
    printf_is("%lu %ld %lf", a, 6, "8589934593 -1 1.500000", AMDDWARF_OK);
  }
  {
    uint32_t a[] = {1, 2, 3, 4};
    printf_is("(%v3u) %05d", a, 4, "(1, 2, 3) 00004", AMDDWARF_OK);
  }
  {
    /* '*' takes a 32-bit argument, 'hh' truncates as C does. */
    uint32_t a[] = {6, 0x1ff, 0x1ff, 3, 0, 0x40000000};
    printf_is("[%*d] %hhu %.*lf", a, 6, "[   511] 255 2.000", AMDDWARF_OK);
  }
  {
    /* The record ends before the arguments the format consumes. */
    uint32_t a[] = {1};
    printf_is("%d %d %lu", a, 1, "shorter than the 16 bytes the 3 arguments",
              AMDDWARF_E_PRINTF_SHORT_PAYLOAD);
  }
  /* Formats the renderer rejects are errors, never printed as written. */
  printf_is("50%q done", NULL, 0, "unknown conversion 'q'", AMDDWARF_E_PRINTF_BAD_FORMAT);
  printf_is("name %s", NULL, 0, "conversion '%s' at format offset 5 is not supported",
            AMDDWARF_E_PRINTF_BAD_FORMAT);
  printf_is("done %", NULL, 0, "ends with the format string", AMDDWARF_E_PRINTF_BAD_FORMAT);
}

/* The seed's worked input buffer: set 0 bindings 0 (array of 3), 1
   (non-array), 3 (array of 2); set 1 bindings 2 (array of 4) and 3 (array
   of 5); S1B2I0 not written. */
static void test_input_buffer_seed_example(void **state)
{
  (void)state;
  static const uint32_t input[36] = {
      11, 3, 7,                   /* sets_to_bindings at 11; sizes of set 0 at 3, set 1 at 7 */
      3, 1, 0, 2, 0, 0, 4, 5,     /* sizes */
      13, 17,                     /* sets_to_bindings */
      21, 24, 0, 25, 0, 0, 27, 31, /* bindings_to_written */
      1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1}; /* written */
  buf b = {{0}, 0};
  for (size_t i = 0; i < 36; i++)
    put(&b, input[i]);
  /* The seed's size formula: 1 + sets * 2 + bindings * 2 + descriptors. */
  assert_int_equal(1 + 2 * 2 + 8 * 2 + 15, 36);
  amddwarf_gpuav_descriptor rows[8];
  size_t count = 0;
  amddwarf_error err;
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(b.b, b.n, NULL, 0, &count, &err),
                   AMDDWARF_E_NO_SPACE);
  assert_int_equal(count, 8);
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(b.b, b.n, rows, 8, &count, &err),
                   AMDDWARF_OK);
  static const uint32_t want[8][4] = {{0, 0, 3, 21}, {0, 1, 1, 24}, {0, 2, 0, 0}, {0, 3, 2, 25},
                                      {1, 0, 0, 0},  {1, 1, 0, 0},  {1, 2, 4, 27}, {1, 3, 5, 31}};
  for (size_t i = 0; i < 8; i++) {
    assert_int_equal(rows[i].set, want[i][0]);
    assert_int_equal(rows[i].binding, want[i][1]);
    assert_int_equal(rows[i].array_size, want[i][2]);
    assert_int_equal(rows[i].written_index, want[i][3]);
  }
  /* The seed's formula for "not initialized": Input[i + Input[b + Input[s + Input[0]]]] == 0. */
  for (uint32_t s = 0; s < 2; s++)
    for (uint32_t bd = 0; bd < 4; bd++) {
      const amddwarf_gpuav_descriptor *d = &rows[s * 4 + bd];
      for (uint32_t i = 0; d->written_index && i < d->array_size; i++)
        assert_int_equal(amddwarf_gpuav_input_word(b.b, b.n, d->written_index + i),
                         input[i + input[bd + input[s + input[0]]]]);
    }
  assert_int_equal(amddwarf_gpuav_input_word(b.b, b.n, 27), 0); /* S1B2I0 */
  assert_int_equal(amddwarf_gpuav_input_word(b.b, b.n, 36), 0);

  /* Error paths, each naming the word. */
  buf bad = b;
  bad.b[0] = 40; /* sets_to_bindings start past the end */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(bad.b, bad.n, rows, 8, &count, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 0);
  bad = b;
  bad.b[4 * 2] = 2; /* set 1 sizes start before set 0's */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(bad.b, bad.n, rows, 8, &count, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  bad = b;
  bad.b[4 * 12] = 34; /* set 1 bindings_to_written runs past the end */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(bad.b, bad.n, rows, 8, &count, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 48);
  bad = b;
  bad.b[4 * 20] = 33; /* S1B3's 5 flags from word 33 run past the end */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(bad.b, bad.n, rows, 8, &count, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 80);
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(b.b, 4, rows, 8, &count, &err),
                   AMDDWARF_E_TRUNCATED);
}

/* ---- format detection of what is no buffer -------------------------------- */

/* A buffer's words read as FORMAT: the status, and the message exactly (or,
   for STATUS OK, the format found and whether it overflowed). */
typedef struct parse_case {
  uint32_t words[12];
  size_t count;
  amddwarf_gpuav_format format;
  amddwarf_status status;
  const char *message;       /* exact, or a part of it when PARTIAL */
  bool partial;
  amddwarf_gpuav_format found; /* status OK */
  bool overflow;
} parse_case;

static void test_not_a_buffer(void **state)
{
  (void)state;
  static const parse_case cases[] = {
      /* Bytes of no layout: word 0 no flags word, and as a written length, the
         first record claims more than any record. */
      {{0x8c3f1a22u, 0x7a6b5c4du, 0x12345678u, 0x9abcdef0u, 1u, 2u, 3u, 4u}, 8,
       AMDDWARF_GPUAV_FORMAT_AUTO, AMDDWARF_E_GPUAV_BAD_FORMAT,
       "not a GPU-AV debug output buffer: word 0 (0x8c3f1a22) is no v2 flags word, and read as "
       "a written length, the first record (word 1) claims 2053856333 words, but a record has "
       "at most 524240",
       false, 0, false},
      /* Flags 0 with a first record whose stage is no execution model. */
      {{0u, 10u, 10u, 23u, 60u, 77u, 0u, 0u, 0u, 0u, 9u, 6u}, 12, AMDDWARF_GPUAV_FORMAT_AUTO,
       AMDDWARF_E_GPUAV_BAD_FORMAT,
       "not a GPU-AV debug output buffer: read as v2 (word 0 flags, word 1 written length), the "
       "first record's stage (word 5) is 77, no execution model the instrumentation writes",
       false, 0, false},
      /* A written length with no record at Data[0] inside the buffer. */
      {{0u, 10u}, 12, AMDDWARF_GPUAV_FORMAT_AUTO, AMDDWARF_E_GPUAV_BAD_FORMAT, "holds no record",
       true, 0, false},
      /* ... which is fine when the first record did not fit (overflow). */
      {{0u, 30u}, 6, AMDDWARF_GPUAV_FORMAT_AUTO, AMDDWARF_OK, NULL, false,
       AMDDWARF_GPUAV_FORMAT_V2, true},
      /* A given format still checks the flags word. */
      {{2u}, 4, AMDDWARF_GPUAV_FORMAT_V2, AMDDWARF_E_GPUAV_BAD_FORMAT,
       "not a v2 debug output buffer: word 0 (flags) is 0x2, but only bit 0 (buffer bounds "
       "checks) is defined",
       false, 0, false},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const parse_case *c = &cases[i];
    buf b = {{0}, 0};
    for (size_t k = 0; k < c->count; k++)
      put(&b, c->words[k]);
    amddwarf_gpuav_buffer h;
    amddwarf_error err;
    amddwarf_error_clear(&err);
    amddwarf_status st = amddwarf_gpuav_buffer_parse(b.b, b.n, c->format, &h, &err);
    if (st != c->status)
      fail_msg("case %zu: %d, want %d (%s)", i, (int)st, (int)c->status, err.message);
    if (c->status == AMDDWARF_OK) {
      assert_int_equal(h.format, c->found);
      assert_int_equal(h.overflow, c->overflow);
    } else {
      assert_int_equal(err.offset, 0);
      if (c->partial)
        assert_non_null(strstr(err.message, c->message));
      else
        assert_string_equal(err.message, c->message);
    }
  }
}

/* ---- the streaming reader ---------------------------------------------------- */

/* A buffer of SIZE bytes that exists only as a rule: WORDS at its start, a
   word DIRTY (when not 0) at byte DIRTY_AT, zeros elsewhere. Records every
   read, and fails reads past FAIL_AT. */
typedef struct virtual_buffer {
  const buf *head;
  uint64_t size;
  uint64_t dirty_at;
  uint32_t dirty;
  uint64_t fail_at;
  size_t largest_read;
  uint64_t bytes_read;
} virtual_buffer;

static amddwarf_status virtual_read(void *user, uint64_t offset, void *destination, size_t size)
{
  virtual_buffer *v = user;
  if (offset + size > v->size || offset + size > v->fail_at)
    return AMDDWARF_E_IO;
  uint8_t *out = destination;
  memset(out, 0, size);
  for (size_t i = 0; i < size; i++) {
    uint64_t at = offset + i;
    if (at < v->head->n)
      out[i] = v->head->b[at];
    if (v->dirty && at >= v->dirty_at && at < v->dirty_at + 4)
      out[i] = (uint8_t)(v->dirty >> (8 * (at - v->dirty_at)));
  }
  if (size > v->largest_read)
    v->largest_read = size;
  v->bytes_read += size;
  return AMDDWARF_OK;
}

static amddwarf_gpuav_reader *open_virtual(virtual_buffer *v)
{
  amddwarf_gpuav_reader *reader = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_gpuav_reader_open_stream(
      virtual_read, v, v->size, AMDDWARF_GPUAV_FORMAT_AUTO, 0, NULL, &reader, &err);
  if (st != AMDDWARF_OK)
    fail_msg("open: %s", err.message);
  return reader;
}

/* Records come from a 64 MiB buffer, read in windows of 4 MiB at most,
   exactly as from memory; finishing reads the rest and finds it clear; a
   word that is not zero past the records, records that end before the
   written length and a failed read are each reported. */
static void test_streaming_reader(void **state)
{
  (void)state;
  buf head = {{0}, 0};
  words(&head, 2, 0u, 31u);
  words(&head, 10, 10u, 23u, 60u, 4u, fbits(0.5f), fbits(1.5f), 0u, 0u, 9u, 6u);
  words(&head, 11, 11u, 23u, 61u, 5u, 1u, 2u, 3u, 5u, 0u, 40u, 32u);
  words(&head, 10, 10u, 24u, 62u, 4u, 0u, 0u, 0u, 1u, 3u, 0u);
  virtual_buffer v = {&head, 64u << 20, 0, 0, UINT64_MAX, 0, 0};

  /* From memory: the same records. */
  amddwarf_gpuav_reader *memory = NULL;
  assert_int_equal(amddwarf_gpuav_reader_open_memory(head.b, head.n, AMDDWARF_GPUAV_FORMAT_AUTO,
                                                     NULL, &memory, NULL),
                   AMDDWARF_OK);
  amddwarf_gpuav_reader *reader = open_virtual(&v);
  const amddwarf_gpuav_buffer *h = amddwarf_gpuav_reader_buffer(reader);
  assert_int_equal(h->format, AMDDWARF_GPUAV_FORMAT_V2);
  assert_int_equal(h->written_length, 31);
  assert_int_equal(h->data_words, (64u << 20) / 4 - 2);
  assert_false(h->overflow);
  static const uint32_t indexes[] = {60, 61, 62};
  amddwarf_gpuav_record r, m;
  amddwarf_error err;
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(amddwarf_gpuav_reader_next(reader, &r, &err), AMDDWARF_OK);
    assert_int_equal(amddwarf_gpuav_reader_next(memory, &m, &err), AMDDWARF_OK);
    assert_int_equal(r.problem, AMDDWARF_OK);
    assert_int_equal(r.instruction_index, indexes[i]);
    assert_int_equal(r.data_index, m.data_index);
    assert_int_equal(r.size, m.size);
    assert_int_equal(r.payload_words, m.payload_words);
    assert_memory_equal(r.payload, m.payload, (size_t)r.payload_words * 4);
  }
  assert_int_equal(amddwarf_gpuav_reader_next(reader, &r, &err), AMDDWARF_END);
  assert_int_equal(amddwarf_gpuav_reader_next(memory, &m, &err), AMDDWARF_END);
  assert_int_equal(amddwarf_gpuav_reader_position(reader), 31);
  assert_int_equal(amddwarf_gpuav_reader_finish(reader, &err), AMDDWARF_OK);
  assert_int_equal(amddwarf_gpuav_reader_finish(memory, &err), AMDDWARF_OK);
  assert_true(v.largest_read <= (4u << 20));
  assert_true(v.bytes_read >= (64u << 20) - 8);
  amddwarf_gpuav_reader_close(reader);
  amddwarf_gpuav_reader_close(memory);

  /* A word past the records that is not zero, at the very end. */
  v.dirty_at = (64u << 20) - 4;
  v.dirty = 0xdeadu;
  reader = open_virtual(&v);
  while (amddwarf_gpuav_reader_next(reader, &r, NULL) == AMDDWARF_OK)
    ;
  assert_int_equal(amddwarf_gpuav_reader_finish(reader, &err), AMDDWARF_E_GPUAV_BAD_LENGTH);
  assert_int_equal(err.offset, (64u << 20) - 4);
  assert_non_null(strstr(err.message, "is 0xdead, past the last record at Data[31]"));
  amddwarf_gpuav_reader_close(reader);

  /* Records that end (a size of 0) before the written length. */
  v.dirty = 0;
  buf longer = head;
  longer.b[4] = 40;
  v.head = &longer;
  reader = open_virtual(&v);
  while (amddwarf_gpuav_reader_next(reader, &r, NULL) == AMDDWARF_OK)
    ;
  assert_int_equal(amddwarf_gpuav_reader_finish(reader, &err), AMDDWARF_E_GPUAV_BAD_LENGTH);
  assert_int_equal(err.offset, 8 + 31 * 4);
  assert_string_equal(err.message,
                      "the records end at Data[31] (byte offset 132, a record size of 0) but the "
                      "written length is 40 words: the buffer holds fewer words than the "
                      "shaders wrote");
  /* Finishing before the end is a usage error. */
  amddwarf_gpuav_reader_close(reader);
  reader = open_virtual(&v);
  assert_int_equal(amddwarf_gpuav_reader_finish(reader, NULL), AMDDWARF_E_INVALID_ARGUMENT);
  amddwarf_gpuav_reader_close(reader);

  /* A read that fails while the records are read. */
  v.head = &head;
  v.fail_at = 64;
  reader = open_virtual(&v);
  assert_int_equal(amddwarf_gpuav_reader_next(reader, &r, &err), AMDDWARF_E_IO);
  assert_int_equal(amddwarf_gpuav_reader_next(reader, &r, &err), AMDDWARF_END);
  assert_int_equal(amddwarf_gpuav_reader_finish(reader, &err), AMDDWARF_OK); /* reported */
  amddwarf_gpuav_reader_close(reader);
}

/* ---- records against their module ------------------------------------------ */

enum {
  OP_CAPABILITY = 17, OP_EXT_INST_IMPORT = 11, OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15,
  OP_STRING = 7, OP_TYPE_VOID = 19, OP_TYPE_FUNCTION = 33, OP_TYPE_FLOAT = 22,
  OP_TYPE_VECTOR = 23, OP_FUNCTION = 54, OP_LABEL = 248, OP_LOAD = 61, OP_SAMPLE = 87,
  OP_EXT_INST = 12, OP_FADD = 129, OP_STORE = 62, OP_RETURN = 253, OP_FUNCTION_END = 56,
};

/* A fragment shader without line information, so that each instruction
   index is the instruction's position:
     9 OpFunction, 10 OpLabel, 11 OpLoad, 12 OpImageSampleImplicitLod,
     13 OpExtInst NonSemantic.DebugPrintf 1 (format %21), 14 OpFAdd, 15 OpStore. */
static amddwarf_spirv_module *fragment_module(void)
{
  mod m;
  mod_init(&m);
  inst(&m, OP_CAPABILITY, 1, 1u);
  uint32_t import[] = {20u};
  inst_str(&m, OP_EXT_INST_IMPORT, import, 1, "NonSemantic.DebugPrintf", NULL, 0);
  inst(&m, OP_MEMORY_MODEL, 2, 0u, 1u);
  uint32_t entry[] = {4u, 5u};
  inst_str(&m, OP_ENTRY_POINT, entry, 2, "main", NULL, 0);
  uint32_t string[] = {21u};
  inst_str(&m, OP_STRING, string, 1, "x=%u", NULL, 0);
  inst(&m, OP_TYPE_VOID, 1, 1u);
  inst(&m, OP_TYPE_FUNCTION, 2, 2u, 1u);
  inst(&m, OP_TYPE_FLOAT, 2, 3u, 32u);
  inst(&m, OP_TYPE_VECTOR, 3, 4u, 3u, 4u);
  inst(&m, OP_FUNCTION, 4, 1u, 5u, 0u, 2u);
  inst(&m, OP_LABEL, 1, 6u);
  inst(&m, OP_LOAD, 3, 4u, 8u, 7u);
  inst(&m, OP_SAMPLE, 4, 4u, 9u, 8u, 8u);
  inst(&m, OP_EXT_INST, 6, 1u, 22u, 20u, 1u, 21u, 8u);
  inst(&m, OP_FADD, 4, 4u, 23u, 9u, 9u);
  inst(&m, OP_STORE, 2, 7u, 23u);
  inst(&m, OP_RETURN, 0);
  inst(&m, OP_FUNCTION_END, 0);
  amddwarf_spirv_module *module = NULL;
  amddwarf_error err;
  if (amddwarf_spirv_module_open(m.w, m.n * 4, NULL, &module, &err) != AMDDWARF_OK)
    fail_msg("module: %s", err.message);
  return module;
}

typedef struct check_case {
  uint32_t index, stage;
  uint32_t payload[4];
  uint32_t payload_words;
  unsigned flags;
  amddwarf_status want;
  const char *message; /* exact, or NULL for OK */
} check_case;

static void test_record_check(void **state)
{
  (void)state;
  amddwarf_spirv_module *module = fragment_module();
  static const check_case cases[] = {
      {12, 4, {0, 9, 6}, 3, 0, AMDDWARF_OK, NULL},
      {11, 4, {5, 0, 16, 16}, 4, 0, AMDDWARF_OK, NULL},
      {13, 4, {21, 7}, 2, 0, AMDDWARF_OK, NULL},
      {10, 4, {0, 9, 6}, 3, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 10 of shader 23 is an OpLabel, not an instruction the validation "
       "layer checks: is m.spv the module that produced the buffer?"},
      {14, 4, {0, 9, 6}, 3, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 14 of shader 23 is an OpFAdd, not an instruction the validation layer "
       "checks: is m.spv the module that produced the buffer?"},
      {99, 4, {0, 9, 6}, 3, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 99 of shader 23 names no instruction of m.spv (instruction index 99 "
       "is past the last index 17 of the module): is this the module that produced the buffer?"},
      {12, 5, {0, 9, 6}, 3, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "stage Compute of shader 23 is the execution model of no entry point of m.spv (it has "
       "main (Fragment)): is this the module that produced the buffer?"},
      {12, 4, {2, 1, 2}, 3, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 12 of shader 23 is an OpImageSampleImplicitLod, but error 2 "
       "(device_address_unallocated) is reported only at OpLoad and OpStore: is m.spv the "
       "module that produced the buffer?"},
      {11, 4, {6, 0, 9, 5}, 4, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 11 of shader 23 is an OpLoad, but error 6 "
       "(uniform_texel_buffer_out_of_bounds) is reported only at image instructions: is m.spv "
       "the module that produced the buffer?"},
      {13, 4, {22, 7}, 2, 0, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "the debug-printf record of shader 23 at instruction index 13 names format string %22, "
       "which is no OpString of m.spv: is this the module that produced the buffer?"},
      {12, 4, {21, 7}, 2, AMDDWARF_GPUAV_CHECK_PRINTF, AMDDWARF_E_GPUAV_WRONG_MODULE,
       "instruction index 12 of shader 23 is an OpImageSampleImplicitLod, not the OpExtInst of a "
       "debug printf: is m.spv the module that produced the buffer?"},
      {12, 4, {0, 3, 6}, 3, 0, AMDDWARF_E_GPUAV_BAD_RECORD,
       "record at byte offset 8: error 0 (descriptor_index_out_of_bounds) with index 3 inside "
       "the array length 6, but the check fails only for an index at or past the length"},
      {11, 4, {5, 0, 3, 16}, 4, 0, AMDDWARF_E_GPUAV_BAD_RECORD,
       "record at byte offset 8: error 5 (storage_buffer_out_of_bounds) with highest access 3 "
       "inside the size 16, but the check fails only for an access at or past the size"},
      {12, 4, {1, 3, 7}, 3, 0, AMDDWARF_E_GPUAV_BAD_RECORD,
       "record at byte offset 8: error 1 (descriptor_uninitialized) has 7 in its unused word, "
       "which the instrumentation writes as 0"},
      {12, 4, {9, 3, 7}, 3, 0, AMDDWARF_E_GPUAV_BAD_RECORD,
       "record at byte offset 8: error code 9 is none the v2 format has"},
      {11, 4, {5, 0}, 2, 0, AMDDWARF_E_GPUAV_BAD_RECORD,
       "record at byte offset 8: error 5 (storage_buffer_out_of_bounds) has 1 of its 3 "
       "parameter words"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const check_case *c = &cases[i];
    buf b = {{0}, 0};
    uint32_t size = 7 + c->payload_words;
    words(&b, 2, 0u, size);
    words(&b, 7, size, 23u, c->index, c->stage, 0u, 0u, 0u);
    for (uint32_t k = 0; k < c->payload_words; k++)
      put(&b, c->payload[k]);
    amddwarf_gpuav_buffer h;
    parse_ok(&b, AMDDWARF_GPUAV_FORMAT_V2, &h);
    uint32_t cursor = 0;
    amddwarf_gpuav_record r;
    next_ok(&b, &h, &cursor, &r);
    amddwarf_error err;
    amddwarf_error_clear(&err);
    amddwarf_status st = amddwarf_gpuav_record_check(&h, &r, module, AMDDWARF_SPIRV_INDEX_INSTRUMENT,
                                                     "m.spv", c->flags, &err);
    if (st != c->want)
      fail_msg("case %zu: %d, want %d (%s)", i, (int)st, (int)c->want, err.message);
    if (c->message)
      assert_string_equal(err.message, c->message);
  }
  amddwarf_spirv_module_close(module);
}

/* ---- the input buffer's layouts ---------------------------------------------- */

static void expect_rows(const buf *b, amddwarf_gpuav_input_layout layout,
                        amddwarf_gpuav_input_layout want_layout, const uint32_t (*want)[4],
                        size_t count)
{
  amddwarf_gpuav_descriptor rows[16];
  size_t n = 0;
  amddwarf_gpuav_input_layout used;
  amddwarf_error err;
  amddwarf_status st =
      amddwarf_gpuav_input_buffer_decode_layout(b->b, b->n, layout, rows, 16, &n, &used, &err);
  if (st != AMDDWARF_OK)
    fail_msg("decode: %s", err.message);
  assert_int_equal(used, want_layout);
  assert_int_equal(n, count);
  for (size_t i = 0; i < count; i++) {
    assert_int_equal(rows[i].set, want[i][0]);
    assert_int_equal(rows[i].binding, want[i][1]);
    assert_int_equal(rows[i].array_size, want[i][2]);
    assert_int_equal(rows[i].written_index, want[i][3]);
  }
}

/* The layer's buffers for sets 0 (no bindings), 1 (binding 0: one buffer of
   64 bytes, binding 4: one of 16), 2 (no bindings), 3 (binding 1: three
   elements, the second unwritten): with sizes (descriptor indexing) and
   without (word 0 = 1); and the first release's lengths-only layout. */
static void test_input_buffer_layouts(void **state)
{
  (void)state;
  buf sizes = {{0}, 0};
  words(&sizes, 28, 12u, 0u, 5u, 0u, 10u, /* sets_to_sizes */
        1u, 0u, 0u, 0u, 1u, 0u, 3u,         /* sizes: set 1 bindings 0-4, set 3 bindings 0-1 */
        0u, 16u, 0u, 21u,                  /* sets_to_bindings */
        23u, 0u, 0u, 0u, 24u, 0u, 25u,      /* bindings_to_written */
        64u, 16u, 1u, 0u, 1u);             /* written */
  static const uint32_t want_sizes[][4] = {{1, 0, 1, 23}, {1, 1, 0, 0}, {1, 2, 0, 0},
                                           {1, 3, 0, 0},  {1, 4, 1, 24}, {3, 0, 0, 0},
                                           {3, 1, 3, 25}};
  expect_rows(&sizes, AMDDWARF_GPUAV_INPUT_AUTO, AMDDWARF_GPUAV_INPUT_SIZES, want_sizes, 7);
  buf written = {{0}, 0};
  words(&written, 17, 1u, 0u, 5u, 0u, 10u, /* word 0, sets_to_bindings */
        12u, 0u, 0u, 0u, 13u, 0u, 14u,      /* bindings_to_written */
        64u, 16u, 1u, 0u, 1u);             /* written */
  static const uint32_t want_written[][4] = {{1, 0, 1, 12}, {1, 1, 0, 0}, {1, 2, 0, 0},
                                             {1, 3, 0, 0},  {1, 4, 1, 13}, {3, 0, 0, 0},
                                             {3, 1, 3, 14}};
  expect_rows(&written, AMDDWARF_GPUAV_INPUT_AUTO, AMDDWARF_GPUAV_INPUT_WRITTEN, want_written, 7);
  /* The seed-layout decoder of before read neither: word 1 (0) is no sizes
     start, and word 0 = 1 is no sets_to_bindings start. */
  buf lengths = {{0}, 0};
  words(&lengths, 10, 0u, 0u, 3u, 1u, 0u, 0u, 0u, 1u, 0u, 3u);
  static const uint32_t want_lengths[][4] = {{1, 0, 1, 0}, {1, 1, 0, 0}, {1, 2, 0, 0},
                                             {1, 3, 0, 0}, {1, 4, 1, 0}, {1, 5, 0, 0},
                                             {1, 6, 3, 0}};
  expect_rows(&lengths, AMDDWARF_GPUAV_INPUT_AUTO, AMDDWARF_GPUAV_INPUT_LENGTHS, want_lengths, 7);
  assert_string_equal(amddwarf_gpuav_input_layout_name(AMDDWARF_GPUAV_INPUT_WRITTEN), "written");
  assert_null(amddwarf_gpuav_input_layout_name((amddwarf_gpuav_input_layout)9));
  amddwarf_gpuav_input_layout layout = AMDDWARF_GPUAV_INPUT_AUTO;
  assert_int_equal(amddwarf_gpuav_input_layout_from_name("lengths", &layout), AMDDWARF_OK);
  assert_int_equal(layout, AMDDWARF_GPUAV_INPUT_LENGTHS);
  assert_int_equal(amddwarf_gpuav_input_layout_from_name("Sizes", &layout), AMDDWARF_NOT_FOUND);

  /* Errors name the word. */
  amddwarf_gpuav_descriptor rows[16];
  size_t n;
  amddwarf_error err;
  buf bad = written;
  bad.b[4 * 4] = 4; /* set 3's bindings start before set 1's */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode_layout(bad.b, bad.n,
                                                             AMDDWARF_GPUAV_INPUT_WRITTEN, rows,
                                                             16, &n, NULL, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 16);
  assert_string_equal(err.message,
                      "input buffer word 4: bindings_to_written start 4 is outside [5, 12]");
  bad = written;
  bad.b[4 * 11] = 40; /* set 3 binding 1's flags past the end */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode_layout(bad.b, bad.n,
                                                             AMDDWARF_GPUAV_INPUT_WRITTEN, rows,
                                                             16, &n, NULL, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 44);
  bad = sizes;
  bad.b[4 * 15] = 22; /* set 3's bindings_to_written not after set 1's */
  assert_int_equal(amddwarf_gpuav_input_buffer_decode(bad.b, bad.n, rows, 16, &n, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_int_equal(err.offset, 60);
}

/* ---- what an instrumented module says ---------------------------------------- */

enum { OP_NAME = 5, OP_TYPE_INT = 21, OP_TYPE_STRUCT = 30, OP_CONSTANT = 43,
       OP_FUNCTION_PARAMETER = 55, OP_FUNCTION_CALL = 57, OP_DECORATE = 71 };

/* What spirv-opt 2023.1 adds, reduced to what is read: the named output
   block of MEMBERS members in set 7, a stream_write_4 storing the record
   size SIZE and shader id 23 first, and calls of the direct readers with
   first arguments 1 (sizes: read_2) or 0 (written: read_4) or 1 (read_3). */
static amddwarf_spirv_module *instrumented_module(uint32_t members, uint32_t size, int reads)
{
  mod m;
  mod_init(&m);
  uint32_t id;
  id = 30u;
  inst_str(&m, OP_NAME, &id, 1, "inst_bindless_OutputBuffer", NULL, 0);
  id = 31u;
  inst_str(&m, OP_NAME, &id, 1, "inst_bindless_output_buffer", NULL, 0);
  id = 32u;
  inst_str(&m, OP_NAME, &id, 1, "inst_bindless_stream_write_4", NULL, 0);
  id = 33u;
  inst_str(&m, OP_NAME, &id, 1, reads == 2 ? "inst_bindless_direct_read_2"
                                : reads == 4 ? "inst_bindless_direct_read_4"
                                             : "inst_bindless_direct_read_3", NULL, 0);
  inst(&m, OP_DECORATE, 3, 31u, 34u, 7u);
  inst(&m, OP_TYPE_VOID, 1, 1u);
  inst(&m, OP_TYPE_INT, 3, 2u, 32u, 0u);
  inst(&m, OP_CONSTANT, 3, 2u, 10u, size);
  inst(&m, OP_CONSTANT, 3, 2u, 11u, 23u);
  inst(&m, OP_CONSTANT, 3, 2u, 12u, 0u);
  inst(&m, OP_CONSTANT, 3, 2u, 13u, 1u);
  if (members == 3)
    inst(&m, OP_TYPE_STRUCT, 4, 30u, 2u, 2u, 2u);
  else
    inst(&m, OP_TYPE_STRUCT, 3, 30u, 2u, 2u);
  inst(&m, OP_TYPE_FUNCTION, 2, 3u, 1u);
  inst(&m, OP_FUNCTION, 4, 1u, 40u, 0u, 3u);
  inst(&m, OP_LABEL, 1, 41u);
  inst(&m, OP_FUNCTION_CALL, reads == 2 ? 5 : reads == 4 ? 7 : 6, 2u, 42u, 33u,
       reads == 4 ? 12u : 13u, 12u, 12u, 12u);
  inst(&m, OP_RETURN, 0);
  inst(&m, OP_FUNCTION_END, 0);
  inst(&m, OP_FUNCTION, 4, 1u, 32u, 0u, 3u);
  inst(&m, OP_FUNCTION_PARAMETER, 2, 2u, 50u);
  inst(&m, OP_LABEL, 1, 51u);
  inst(&m, OP_STORE, 2, 52u, 10u);
  inst(&m, OP_STORE, 2, 53u, 11u);
  inst(&m, OP_STORE, 2, 54u, 50u);
  inst(&m, OP_RETURN, 0);
  inst(&m, OP_FUNCTION_END, 0);
  amddwarf_spirv_module *module = NULL;
  amddwarf_error err;
  if (amddwarf_spirv_module_open(m.w, m.n * 4, NULL, &module, &err) != AMDDWARF_OK)
    fail_msg("module: %s", err.message);
  return module;
}

static void test_instrumentation(void **state)
{
  (void)state;
  amddwarf_gpuav_instrumentation info;
  amddwarf_error err;
  amddwarf_gpuav_input_layout layout;
  static const uint32_t word0_is_1[] = {1, 0}, word0_is_5[] = {5, 0}, word0_is_0[] = {0, 0};
  /* 2023.1: flags member, records of 10 words for 3 validation words. */
  amddwarf_spirv_module *module = instrumented_module(3, 10, 2);
  assert_int_equal(amddwarf_gpuav_instrumentation_inspect(module, &info, &err), AMDDWARF_OK);
  assert_int_equal(info.format, AMDDWARF_GPUAV_FORMAT_V2);
  assert_int_equal(info.shader_id, 23);
  assert_int_equal(info.descriptor_set, 7);
  assert_int_equal(info.input_reads, AMDDWARF_GPUAV_READS_SIZES);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_5, 8, &layout, &err),
                   AMDDWARF_OK);
  assert_int_equal(layout, AMDDWARF_GPUAV_INPUT_SIZES);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_0, 8, &layout, &err),
                   AMDDWARF_OK);
  assert_int_equal(layout, AMDDWARF_GPUAV_INPUT_LENGTHS);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_1, 8, &layout, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  assert_non_null(strstr(err.message, "reads descriptor array sizes"));
  amddwarf_spirv_module_close(module);
  /* 2019-2022: no flags member. */
  module = instrumented_module(2, 10, 4);
  assert_int_equal(amddwarf_gpuav_instrumentation_inspect(module, &info, &err), AMDDWARF_OK);
  assert_int_equal(info.format, AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS);
  assert_int_equal(info.input_reads, AMDDWARF_GPUAV_READS_WRITTEN_WORD0);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_1, 8, &layout, &err),
                   AMDDWARF_OK);
  assert_int_equal(layout, AMDDWARF_GPUAV_INPUT_WRITTEN);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_0, 8, &layout, &err),
                   AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER);
  amddwarf_spirv_module_close(module);
  /* The seed's: two stage words (a 9-word record for 3 validation words);
     written flags read directly: the layout without sizes, whatever word 0. */
  module = instrumented_module(2, 9, 3);
  assert_int_equal(amddwarf_gpuav_instrumentation_inspect(module, &info, &err), AMDDWARF_OK);
  assert_int_equal(info.format, AMDDWARF_GPUAV_FORMAT_SEED);
  assert_int_equal(info.input_reads, AMDDWARF_GPUAV_READS_WRITTEN_DIRECT);
  assert_int_equal(info.input_layout, AMDDWARF_GPUAV_INPUT_WRITTEN);
  assert_int_equal(amddwarf_gpuav_input_layout_select(&info, word0_is_5, 8, &layout, &err),
                   AMDDWARF_OK);
  assert_int_equal(layout, AMDDWARF_GPUAV_INPUT_WRITTEN);
  amddwarf_spirv_module_close(module);
  /* A module without instrumentation. */
  module = fragment_module();
  assert_int_equal(amddwarf_gpuav_instrumentation_inspect(module, &info, &err),
                   AMDDWARF_NOT_FOUND);
  assert_int_equal(info.format, AMDDWARF_GPUAV_FORMAT_AUTO);
  amddwarf_spirv_module_close(module);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_example_message),
      cmocka_unit_test(test_every_stage),
      cmocka_unit_test(test_every_error_code),
      cmocka_unit_test(test_format_detection),
      cmocka_unit_test(test_scan_robustness),
      cmocka_unit_test(test_printf_rendering),
      cmocka_unit_test(test_input_buffer_seed_example),
      cmocka_unit_test(test_not_a_buffer),
      cmocka_unit_test(test_streaming_reader),
      cmocka_unit_test(test_record_check),
      cmocka_unit_test(test_input_buffer_layouts),
      cmocka_unit_test(test_instrumentation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
