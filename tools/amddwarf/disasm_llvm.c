/* The names `amddwarf disasm` and `amddwarf dap` use for the library's
 * instruction decoder (amddwarf/disasm.h). */
#include "disasm_llvm.h"

#include <stdio.h>

bool disasm_built(void)
{
  return amddwarf_disasm_available();
}

disasm_context *disasm_open(const amddwarf_object *object, char *error, size_t error_size)
{
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_disasm *d = NULL;
  if (amddwarf_disasm_open(object, &d, &err) != AMDDWARF_OK) {
    snprintf(error, error_size, "%s", err.message);
    return NULL;
  }
  return d;
}

void disasm_close(disasm_context *c)
{
  amddwarf_disasm_close(c);
}

const char *disasm_processor(const disasm_context *c)
{
  return amddwarf_disasm_processor(c);
}

const exec_section *disasm_sections(const disasm_context *c, int *count)
{
  size_t n = 0;
  const exec_section *s = amddwarf_disasm_sections(c, &n);
  *count = (int)n;
  return s;
}

const uint8_t *disasm_bytes(const disasm_context *c, const exec_section *s, uint64_t address)
{
  (void)c;
  return s->data + (address - s->address);
}

size_t disasm_one(disasm_context *c, const uint8_t *bytes, size_t size, uint64_t pc, char *text,
                  size_t text_size)
{
  return amddwarf_disasm_one(c, bytes, size, pc, text, text_size);
}

bool disasm_branch_target(const char *text, uint64_t pc, uint64_t *target)
{
  return amddwarf_disasm_branch_target(text, pc, target);
}
