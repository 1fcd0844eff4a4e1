/* A record against the SPIR-V module given for its shader
 * (specs/gpuav-records.md, "Records against their module"): the instruction
 * index must name an instruction the instrumentation checks, the stage must
 * be the execution model of one of the module's entry points, a printf
 * record's format string must be one of its OpStrings, and a validation
 * record's error code must be one its instruction can report, with
 * parameters that the failed check implies. */
#include <amddwarf/gpuav.h>

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "gpuav/gpuav_internal.h"
#include "spirv/module.h"

static const char *const printf_set = "NonSemantic.DebugPrintf";

static void instruction_text(const amddwarf_spirv_location *loc, char *out, size_t size)
{
  if (loc->ext_set)
    snprintf(out, size, "OpExtInst %s %u", loc->ext_set, loc->ext_opcode);
  else if (loc->opname)
    snprintf(out, size, "%s", loc->opname);
  else
    snprintf(out, size, "instruction of opcode %u", loc->opcode);
}

static const char *guard_text(unsigned guards)
{
  return guards == (1u << AMDDWARF_SPIRV_GUARD_IMAGE)    ? "image instructions"
         : guards == (1u << AMDDWARF_SPIRV_GUARD_MEMORY) ? "OpLoad and OpStore"
                                                         : "image instructions, OpLoad and OpStore";
}

/* "main (Fragment), vert (Vertex)" into OUT. */
static void entry_points_text(const amddwarf_spirv_module *module, char *out, size_t size)
{
  size_t n = amddwarf_spirv_module_entry_point_count(module), used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n && used + 1 < size; i++) {
    const amddwarf_spirv_entry_point *e = amddwarf_spirv_module_entry_point(module, i);
    const char *model = amddwarf_gpuav_stage_name(e->execution_model);
    int k = model ? snprintf(out + used, size - used, "%s%s (%s)", i ? ", " : "", e->name, model)
                  : snprintf(out + used, size - used, "%s%s (execution model %u)", i ? ", " : "",
                             e->name, e->execution_model);
    if (k < 0)
      break;
    used += (size_t)k < size - used ? (size_t)k : size - used - 1;
  }
}

amddwarf_status amddwarf_gpuav_record_check(const amddwarf_gpuav_buffer *buffer,
                                            const amddwarf_gpuav_record *record,
                                            const amddwarf_spirv_module *module,
                                            amddwarf_spirv_index_mode mode,
                                            const char *module_name, unsigned flags,
                                            amddwarf_error *err)
{
  if (!buffer || !record || !module)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_gpuav_record_check: NULL argument");
  const char *name = module_name ? module_name : "the module";
  uint64_t offset = ((uint64_t)buffer->data_offset + record->data_index) * 4;
  amddwarf_spirv_location loc;
  amddwarf_error lerr;
  amddwarf_error_clear(&lerr);
  if (amddwarf_spirv_module_resolve(module, record->instruction_index, mode, &loc, &lerr) !=
      AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 8,
                         "instruction index %u of shader %u names no instruction of %s (%s): is "
                         "this the module that produced the buffer?",
                         record->instruction_index, record->shader_id, name, lerr.message);

  size_t entry_points = amddwarf_spirv_module_entry_point_count(module);
  bool stage_found = entry_points == 0; /* a module without entry points cannot tell */
  for (size_t i = 0; i < entry_points && !stage_found; i++)
    stage_found = amddwarf_spirv_module_entry_point(module, i)->execution_model == record->stage;
  if (!stage_found) {
    char list[256];
    entry_points_text(module, list, sizeof list);
    const char *stage = amddwarf_gpuav_stage_name(record->stage);
    char number[24];
    snprintf(number, sizeof number, "%u", record->stage);
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 12,
                         "stage %s of shader %u is the execution model of no entry point of %s "
                         "(it has %s): is this the module that produced the buffer?",
                         stage ? stage : number, record->shader_id, name, list);
  }

  char what[96];
  instruction_text(&loc, what, sizeof what);
  bool is_printf = (flags & AMDDWARF_GPUAV_CHECK_PRINTF) ||
                   (loc.ext_set && strcmp(loc.ext_set, printf_set) == 0);
  if (is_printf) {
    if (!loc.ext_set)
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 8,
                           "instruction index %u of shader %u is an %s, not the OpExtInst of a "
                           "debug printf: is %s the module that produced the buffer?",
                           record->instruction_index, record->shader_id, what, name);
    uint32_t string_id = amddwarf_gpuav_record_word(record, 0);
    if (record->payload_words == 0 || !amddwarf_spirv_module_string(module, string_id))
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 28,
                           "the debug-printf record of shader %u at instruction index %u names "
                           "format string %%%u, which is no OpString of %s: is this the module "
                           "that produced the buffer?",
                           record->shader_id, record->instruction_index, string_id, name);
    return AMDDWARF_OK;
  }

  amddwarf_spirv_guard guard = amddwarf__spirv_opcode_guard(loc.ext_set ? 12 : loc.opcode);
  if (guard == AMDDWARF_SPIRV_GUARD_NONE)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 8,
                         "instruction index %u of shader %u is an %s, not an instruction the "
                         "validation layer checks: is %s the module that produced the buffer?",
                         record->instruction_index, record->shader_id, what, name);
  uint32_t code = amddwarf_gpuav_record_word(record, 0);
  const amddwarf_gpuav_error_info *info = amddwarf_gpuav_error_lookup(buffer->format, code);
  if (!info || record->payload_words == 0)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, offset + 4 * (4 + record->stage_word_count),
                         "record at byte offset %llu: error code %u is none the %s format has",
                         (unsigned long long)offset, code,
                         amddwarf_gpuav_format_name(buffer->format));
  const amddwarf_gpuav_error_row *row = amddwarf__gpuav_error_row_of(info);
  if (!(row->guards & (1u << guard)))
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_WRONG_MODULE, offset + 8,
                         "instruction index %u of shader %u is an %s, but error %u (%s) is "
                         "reported only at %s: is %s the module that produced the buffer?",
                         record->instruction_index, record->shader_id, what, code, info->name,
                         guard_text(row->guards), name);
  if (record->payload_words < 1 + info->param_count)
    return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, offset,
                         "record at byte offset %llu: error %u (%s) has %u of its %u parameter "
                         "words",
                         (unsigned long long)offset, code, info->name, record->payload_words - 1,
                         info->param_count);
  uint32_t p0 = amddwarf_gpuav_record_word(record, 1), p1 = amddwarf_gpuav_record_word(record, 2),
           p2 = amddwarf_gpuav_record_word(record, 3);
  switch (row->rule) {
  case AMDDWARF_GPUAV_RULE_INDEX_PAST_LENGTH:
    if (p0 < p1)
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, offset,
                           "record at byte offset %llu: error %u (%s) with index %u inside the "
                           "array length %u, but the check fails only for an index at or past "
                           "the length",
                           (unsigned long long)offset, code, info->name, p0, p1);
    break;
  case AMDDWARF_GPUAV_RULE_ACCESS_PAST_SIZE:
    if (p1 < p2)
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, offset,
                           "record at byte offset %llu: error %u (%s) with highest access %u "
                           "inside the size %u, but the check fails only for an access at or "
                           "past the size",
                           (unsigned long long)offset, code, info->name, p1, p2);
    break;
  case AMDDWARF_GPUAV_RULE_UNUSED_ZERO:
    if (record->payload_words > 2 && p1 != 0)
      return amddwarf__fail(err, AMDDWARF_E_GPUAV_BAD_RECORD, offset,
                           "record at byte offset %llu: error %u (%s) has %u in its unused word, "
                           "which the instrumentation writes as 0",
                           (unsigned long long)offset, code, info->name, p1);
    break;
  case AMDDWARF_GPUAV_RULE_NONE:
    break;
  }
  return AMDDWARF_OK;
}
