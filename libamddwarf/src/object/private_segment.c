/* Code objects: where private (scratch) memory cannot exist
 * (specs/conventions.md, "Locations in private memory that cannot be").
 *
 * A kernel's descriptor (NAME.kd, the 64 bytes the command processor reads
 * to launch it) says how much private memory each of its work-items gets:
 * PRIVATE_SEGMENT_FIXED_SIZE bytes (byte 4), plus a dynamic stack when
 * KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK (bit 11 of the properties at byte
 * 56; code object v5, where calls the compiler could not size make one) is
 * set. The metadata note repeats both as .private_segment_fixed_size and
 * .uses_dynamic_stack; the descriptor is read because it is the one the
 * hardware uses, and because it is found without reading the note (113 MB
 * for 80,000 kernels). A kernel with neither has no private segment:
 * nothing of its own code is in private memory, and a location there is a
 * reading that cannot be right.
 * Only the kernel's own code is judged (its symbol's range, which inlined
 * code is part of): a function's callers are not known from the object
 * (clang's DW_TAG_call_site entries name a register, not a callee), so
 * whether every kernel reaching it lacks private memory cannot be proved. */
#include <inttypes.h>

#include "common/reader.h"
#include "object/internal.h"

enum {
  DESCRIPTOR_PRIVATE_SEGMENT_FIXED_SIZE = 4,   /* uint32 */
  DESCRIPTOR_KERNEL_CODE_PROPERTIES = 56,      /* uint16 */
  PROPERTY_USES_DYNAMIC_STACK = 1u << 11,
};

amddwarf_status amddwarf_object_private_possible(const amddwarf_object *object, uint64_t pc,
                                                 amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_private_possible: NULL object");
  amddwarf__function_at kernel;
  /* A kernel must be found with its descriptor, and both fields must say
     "none": anything less tells nothing. */
  if (!amddwarf__object_function_at(object, pc, &kernel) || kernel.descriptor == NULL)
    return AMDDWARF_OK;
  /* Little-endian, as every AMDGPU code object; the bytes are all there. */
  amddwarf_reader r;
  amddwarf_reader_init(&r, kernel.descriptor, AMDDWARF_KERNEL_DESCRIPTOR_SIZE);
  uint32_t fixed = 0;
  uint16_t properties = 0;
  r.pos = DESCRIPTOR_PRIVATE_SEGMENT_FIXED_SIZE;
  (void)amddwarf__read_u32(&r, &fixed);
  r.pos = DESCRIPTOR_KERNEL_CODE_PROPERTIES;
  (void)amddwarf__read_u16(&r, &properties);
  if (fixed != 0 || (properties & PROPERTY_USES_DYNAMIC_STACK) != 0)
    return AMDDWARF_OK;
  return amddwarf__fail(err, AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT, AMDDWARF_NO_OFFSET,
                       "kernel %s has no private memory (.private_segment_fixed_size 0, "
                       ".uses_dynamic_stack false): a location in private memory at pc 0x%" PRIx64
                       " cannot be right",
                       kernel.symbol.name, pc);
}
