/* The code object's call frame information (amddwarf_object_cfi): the
 * relocated .debug_frame handed to the CFI reader, opened once. */
#include <string.h>

#include <amddwarf/cfi.h>

#include "common/error.h"
#include "object/internal.h"

/* Opens .debug_frame from the relocated section bytes, else .eh_frame
   through the object's ELF image (frame_elf.c knows its pointer bases). */
static amddwarf_status open_cfi(const amddwarf_object *object, amddwarf_cfi **out,
                                amddwarf_error *err)
{
  amddwarf_cfi_options options;
  amddwarf_cfi_options_init(&options);
  options.target = amddwarf_cfi_target_amdgpu(amddwarf__object_wave_info(object)->wave_size);
  options.allocator = &object->allocator;
  const amddwarf_section *frame = amddwarf__object_find_section(object, ".debug_frame");
  if (frame != NULL) {
    options.kind = AMDDWARF_CFI_DEBUG_FRAME;
    options.data = frame->data;
    options.size = (size_t)frame->size;
    options.section_address = frame->address;
    return amddwarf_cfi_open(&options, out, err);
  }
  amddwarf_status st =
      amddwarf__cfi_open_elf_image(&object->elf, AMDDWARF_CFI_EH_FRAME, &options, out, err);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "the code object has no .debug_frame or .eh_frame");
  return st;
}

amddwarf_status amddwarf_object_cfi(const amddwarf_object *cobject, amddwarf_cfi **out,
                                    amddwarf_error *err)
{
  if (cobject == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_cfi: NULL argument");
  /* The handle is made once; the object is otherwise read-only to callers. */
  amddwarf_object *object = (amddwarf_object *)cobject;
  pthread_mutex_lock(&object->load_lock);
  if (!object->cfi_done) {
    amddwarf_error_clear(&object->cfi_error);
    object->cfi_status = open_cfi(object, &object->cfi, &object->cfi_error);
    object->cfi_done = true;
  }
  amddwarf_status st = object->cfi_status;
  *out = st == AMDDWARF_OK ? object->cfi : NULL;
  if (st != AMDDWARF_OK && err != NULL)
    *err = object->cfi_error;
  pthread_mutex_unlock(&object->load_lock);
  return st;
}

void amddwarf__object_free_cfi(amddwarf_object *object)
{
  amddwarf_cfi_close(object->cfi);
  object->cfi = NULL;
}
