/* Code objects: where private (scratch) memory cannot exist
 * (specs/conventions.md, "Locations in private memory that cannot be").
 *
 * A kernel's NT_AMDGPU_METADATA says how much private memory each of its
 * work-items gets: .private_segment_fixed_size bytes, plus a dynamic stack
 * when .uses_dynamic_stack is true (calls the compiler could not size). A
 * kernel with neither has no private segment: nothing of its own code is in
 * private memory, and a location there is a reading that cannot be right.
 * Only the kernel's own code is judged (its symbol's range, which inlined
 * code is part of): a function's callers are not known from the object
 * (clang's DW_TAG_call_site entries name a register, not a callee), so
 * whether every kernel reaching it lacks private memory cannot be proved. */
#include <inttypes.h>

#include "object/internal.h"

/* The kernel whose code holds PC, or NULL. */
static const amddwarf_kernel *kernel_at(const amddwarf_object *object, uint64_t pc)
{
  size_t count = amddwarf_object_kernel_count(object); /* reads the note on first use */
  for (size_t k = 0; k < count; ++k) {
    const amddwarf_kernel *kernel = amddwarf_object_kernel(object, k);
    if (kernel->code_address != UINT64_MAX && pc >= kernel->code_address &&
        pc - kernel->code_address < kernel->code_size)
      return kernel;
  }
  return NULL;
}

amddwarf_status amddwarf_object_private_possible(const amddwarf_object *object, uint64_t pc,
                                                 amddwarf_error *err)
{
  if (object == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_private_possible: NULL object");
  const amddwarf_kernel *kernel = kernel_at(object, pc);
  /* Both fields must be there and say "none": a note without them tells
     nothing. */
  if (kernel == NULL || kernel->private_segment_fixed_size != 0 ||
      kernel->uses_dynamic_stack != 0)
    return AMDDWARF_OK;
  return amddwarf__fail(err, AMDDWARF_E_EVAL_NO_PRIVATE_SEGMENT, AMDDWARF_NO_OFFSET,
                       "kernel %s has no private memory (.private_segment_fixed_size 0, "
                       ".uses_dynamic_stack false): a location in private memory at pc 0x%" PRIx64
                       " cannot be right",
                       kernel->name ? kernel->name : "?", pc);
}
