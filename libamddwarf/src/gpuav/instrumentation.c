/* What an instrumented module says about the buffers it writes and reads
 * (specs/gpuav-records.md, "What the instrumented module says").
 *
 * SPIRV-Tools' passes name what they add: the output buffer block
 * "inst_<pass>_OutputBuffer" (members flags, written_count, data since
 * October 2022; written_count, data before), the record writer
 * "inst_<pass>_stream_write_N" (N arguments: the instruction index and the
 * N - 1 validation words), whose first two constant stores are the record
 * size and the shader id, and the input buffer readers
 * "inst_bindless_direct_read_N", which read Data[...Data[Data[a0] + a1]... +
 * aN-1] for their N arguments. The first argument of each call says which
 * part of the input buffer the module reads:
 *   direct_read_2(1 + set, binding)           the sizes (array lengths);
 *   direct_read_4(0, set, binding, index)     the written flags, through word 0;
 *   direct_read_3(1 + set, binding, index)    the written flags of a buffer
 *                                             without sizes (2023 buffer
 *                                             bounds checks alone). */
#include <amddwarf/gpuav.h>

#include <string.h>

#include "common/error.h"
#include "gpuav/gpuav_internal.h"
#include "spirv/module.h"

enum { OP_NAME = 5, OP_TYPE_STRUCT = 30, OP_FUNCTION = 54, OP_FUNCTION_PARAMETER = 55,
       OP_FUNCTION_END = 56, OP_FUNCTION_CALL = 57, OP_STORE = 62, OP_DECORATE = 71,
       DECORATION_DESCRIPTOR_SET = 34 };

/* Ids the instrumentation named; a handful per module. */
typedef enum named_kind { NAMED_OUTPUT_TYPE, NAMED_OUTPUT_VAR, NAMED_WRITER, NAMED_READER } named_kind;

typedef struct named {
  uint32_t id;
  named_kind kind;
  uint32_t arity; /* the N of _stream_write_N / _direct_read_N */
} named;

enum { MAX_NAMED = 64 };

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
  size_t k = strlen(prefix);
  return n >= k && memcmp(s, prefix, k) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
  size_t k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The N of a name ending in MARKER followed by digits, or 0. */
static uint32_t arity_after(const char *s, size_t n, const char *marker)
{
  size_t k = strlen(marker);
  for (size_t i = 0; i + k < n; i++) {
    if (memcmp(s + i, marker, k) != 0)
      continue;
    uint32_t value = 0;
    size_t j = i + k;
    if (j == n)
      return 0;
    for (; j < n; j++) {
      if (s[j] < '0' || s[j] > '9' || value > 1000)
        return 0;
      value = value * 10 + (uint32_t)(s[j] - '0');
    }
    return value;
  }
  return 0;
}

/* Classifies the OpName of ID NAME (LENGTH bytes, not NUL-terminated). */
static bool classify(const char *name, size_t length, uint32_t id, named *out)
{
  if (!has_prefix(name, length, "inst_"))
    return false;
  out->id = id;
  out->arity = 0;
  if (has_suffix(name, length, "_OutputBuffer")) {
    out->kind = NAMED_OUTPUT_TYPE;
  } else if (has_suffix(name, length, "_output_buffer")) {
    out->kind = NAMED_OUTPUT_VAR;
  } else if ((out->arity = arity_after(name, length, "_stream_write_")) != 0) {
    out->kind = NAMED_WRITER;
  } else if ((out->arity = arity_after(name, length, "_direct_read_")) != 0) {
    out->kind = NAMED_READER;
  } else {
    return false;
  }
  return true;
}

static const named *find_named(const named *list, size_t count, uint32_t id, named_kind kind)
{
  for (size_t i = 0; i < count; i++)
    if (list[i].id == id && list[i].kind == kind)
      return &list[i];
  return NULL;
}

static bool constant_of(const amddwarf_spirv_module *m, uint32_t id, uint32_t *value)
{
  const amddwarf_spirv_identry *e = amddwarf__spirv_id_find(m, id);
  if (!e || e->kind != AMDDWARF_SPIRV_ID_CONSTANT)
    return false;
  *value = e->value;
  return true;
}

amddwarf_status amddwarf_gpuav_instrumentation_inspect(const amddwarf_spirv_module *m,
                                                       amddwarf_gpuav_instrumentation *out,
                                                       amddwarf_error *err)
{
  if (!m || !out)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_instrumentation_inspect: NULL argument");
  memset(out, 0, sizeof *out);
  out->format = AMDDWARF_GPUAV_FORMAT_AUTO;
  out->shader_id = UINT32_MAX;
  out->descriptor_set = UINT32_MAX;
  out->input_layout = AMDDWARF_GPUAV_INPUT_AUTO;
  named list[MAX_NAMED];
  size_t count = 0;
  uint32_t output_members = 0, writer_arity = 0, constant_stores = 0, record_size = 0;
  const named *in_function = NULL; /* the writer whose body we are in */
  bool writer_seen = false;
  /* The module's word counts were checked when it was opened. */
  for (size_t at = 5; at < m->word_count; at += m->words[at] >> 16) {
    const uint32_t *w = m->words + at;
    uint32_t wc = w[0] >> 16, opcode = w[0] & 0xffff;
    switch (opcode) {
    case OP_NAME:
      if (wc >= 3 && count < MAX_NAMED) {
        /* String bytes are packed low byte first in each (host-order) word. */
        char name[64];
        size_t max = (size_t)(wc - 2) * 4, n = 0;
        while (n < max && n < sizeof name - 1 && (char)(w[2 + n / 4] >> (8 * (n % 4))) != '\0') {
          name[n] = (char)(w[2 + n / 4] >> (8 * (n % 4)));
          n++;
        }
        if (classify(name, n, w[1], &list[count]))
          count++;
      }
      break;
    case OP_TYPE_STRUCT:
      if (wc >= 2 && find_named(list, count, w[1], NAMED_OUTPUT_TYPE))
        output_members = wc - 2;
      break;
    case OP_DECORATE:
      if (wc >= 4 && w[2] == DECORATION_DESCRIPTOR_SET &&
          find_named(list, count, w[1], NAMED_OUTPUT_VAR))
        out->descriptor_set = w[3];
      break;
    case OP_FUNCTION:
      in_function = wc >= 3 && !writer_seen ? find_named(list, count, w[2], NAMED_WRITER) : NULL;
      constant_stores = 0;
      break;
    case OP_FUNCTION_END:
      if (in_function)
        writer_seen = true;
      in_function = NULL;
      break;
    case OP_STORE:
      if (in_function && wc >= 3 && constant_stores < 2) {
        uint32_t value;
        if (constant_of(m, w[2], &value)) {
          if (constant_stores++ == 0) {
            record_size = value;
            writer_arity = in_function->arity;
          } else {
            out->shader_id = value;
          }
        }
      }
      break;
    case OP_FUNCTION_CALL:
      if (wc >= 5) {
        const named *reader = find_named(list, count, w[3], NAMED_READER);
        uint32_t first;
        if (!reader || !constant_of(m, w[4], &first))
          break;
        if (reader->arity == 2 && first >= 1)
          out->input_reads |= AMDDWARF_GPUAV_READS_SIZES;
        else if (reader->arity == 4 && first == 0)
          out->input_reads |= AMDDWARF_GPUAV_READS_WRITTEN_WORD0;
        else if (reader->arity == 3 && first >= 1)
          out->input_reads |= AMDDWARF_GPUAV_READS_WRITTEN_DIRECT;
        else
          out->input_reads |= AMDDWARF_GPUAV_READS_OTHER;
      }
      break;
    default:
      break;
    }
  }
  if (record_size && writer_arity && record_size >= 4 + writer_arity - 1) {
    uint32_t stage_words = record_size - 4 - (writer_arity - 1);
    if (output_members == 3 && stage_words == 3)
      out->format = AMDDWARF_GPUAV_FORMAT_V2;
    else if (output_members == 2 && stage_words == 3)
      out->format = AMDDWARF_GPUAV_FORMAT_V2_NOFLAGS;
    else if (output_members == 2 && stage_words == 2)
      out->format = AMDDWARF_GPUAV_FORMAT_SEED;
  }
  unsigned reads = out->input_reads;
  if (reads & AMDDWARF_GPUAV_READS_WRITTEN_DIRECT)
    out->input_layout = AMDDWARF_GPUAV_INPUT_WRITTEN;
  else if (reads & (AMDDWARF_GPUAV_READS_SIZES | AMDDWARF_GPUAV_READS_WRITTEN_WORD0))
    out->input_layout = AMDDWARF_GPUAV_INPUT_AUTO; /* word 0 of the buffer says */
  if (count == 0 || (!writer_seen && reads == 0))
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "the module has no GPU-assisted-validation instrumentation (no "
                         "inst_*_stream_write_N or inst_bindless_direct_read_N function)");
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_gpuav_input_layout_select(const amddwarf_gpuav_instrumentation *info,
                                                   const void *data, size_t size,
                                                   amddwarf_gpuav_input_layout *layout,
                                                   amddwarf_error *err)
{
  if (!info || !layout || (!data && size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_input_layout_select: NULL argument");
  unsigned reads = info->input_reads;
  bool sizes = reads & AMDDWARF_GPUAV_READS_SIZES;
  bool word0 = reads & AMDDWARF_GPUAV_READS_WRITTEN_WORD0;
  bool direct = reads & AMDDWARF_GPUAV_READS_WRITTEN_DIRECT;
  if (!sizes && !word0 && !direct)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "the instrumented module reads no descriptor input buffer (it calls no "
                         "inst_bindless_direct_read_N)");
  if (direct && (sizes || word0))
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "the instrumented module reads both Data[1 + set] as the start of the "
                         "written flags and the sizes or word 0: no input buffer layout has both");
  if (direct) {
    *layout = AMDDWARF_GPUAV_INPUT_WRITTEN;
    return AMDDWARF_OK;
  }
  if (size < 8)
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, 0,
                         "input buffer of %zu bytes has no word 0 and no start of set 0", size);
  uint32_t first = amddwarf_gpuav_input_word(data, size, 0);
  if (first >= 2) {
    *layout = AMDDWARF_GPUAV_INPUT_SIZES;
    return AMDDWARF_OK;
  }
  if (first == 1 && !sizes) {
    *layout = AMDDWARF_GPUAV_INPUT_WRITTEN;
    return AMDDWARF_OK;
  }
  if (first == 0 && !word0) {
    *layout = AMDDWARF_GPUAV_INPUT_LENGTHS;
    return AMDDWARF_OK;
  }
  return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_INPUT_BUFFER, 0,
                       first == 1 ? "input buffer word 0 is 1, the layout without sizes, but the "
                                    "instrumented module reads descriptor array sizes "
                                    "(Data[Data[1 + set] + binding]): the layer wrote it for a "
                                    "device without descriptor indexing, or for another module"
                                  : "input buffer word 0 is 0, but the instrumented module reads "
                                    "the written flags through it (Data[set + Data[0]]): the "
                                    "buffer is not the one the layer wrote for this module");
}
