/* A tiny SPIR-V assembler for unit tests; see spirv_build.h. */
#include "spirv_build.h"

#include <stdarg.h>
#include <string.h>

void mod_init(mod *m)
{
  m->n = 0;
  m->w[m->n++] = 0x07230203;
  m->w[m->n++] = 0x00010300;
  m->w[m->n++] = 0;
  m->w[m->n++] = 100; /* bound */
  m->w[m->n++] = 0;
}

void inst(mod *m, uint32_t opcode, size_t count, ...)
{
  va_list ap;
  va_start(ap, count);
  m->w[m->n++] = (uint32_t)((count + 1) << 16) | opcode;
  for (size_t i = 0; i < count; i++)
    m->w[m->n++] = va_arg(ap, uint32_t);
  va_end(ap);
}

void inst_str(mod *m, uint32_t opcode, const uint32_t *pre, size_t npre, const char *s,
              const uint32_t *post, size_t npost)
{
  size_t len = strlen(s) + 1, sw = (len + 3) / 4;
  m->w[m->n++] = (uint32_t)((1 + npre + sw + npost) << 16) | opcode;
  for (size_t i = 0; i < npre; i++)
    m->w[m->n++] = pre[i];
  uint32_t *dst = &m->w[m->n];
  memset(dst, 0, sw * 4);
  for (size_t i = 0; i < len; i++)
    dst[i / 4] |= (uint32_t)(unsigned char)s[i] << (8 * (i % 4));
  m->n += sw;
  for (size_t i = 0; i < npost; i++)
    m->w[m->n++] = post[i];
}
