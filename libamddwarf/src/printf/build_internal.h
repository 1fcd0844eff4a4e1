/* Shared by the printf producers (build.c, build_json.c). */
#ifndef AMDDWARF_PRINTF_BUILD_INTERNAL_H
#define AMDDWARF_PRINTF_BUILD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <amddwarf/printf.h>

/* A growable byte vector; zero-initialise with the allocator set. */
typedef struct printf_bytes {
  amddwarf_allocator allocator;
  uint8_t *data;
  size_t size, capacity;
} printf_bytes;

/* Each returns AMDDWARF_OK or AMDDWARF_E_NO_MEMORY (the vector unchanged). */
amddwarf_status amddwarf__printf_bytes_append(printf_bytes *b, const void *data, size_t size);
amddwarf_status amddwarf__printf_bytes_le(printf_bytes *b, uint64_t value, unsigned size);
amddwarf_status amddwarf__printf_bytes_zeros(printf_bytes *b, size_t count);
/* Moves the contents into an exactly sized allocator block owned by the caller. */
amddwarf_status amddwarf__printf_bytes_take(printf_bytes *b, uint8_t **out, size_t *size);
void amddwarf__printf_bytes_release(printf_bytes *b);

/* IEEE binary16 to binary32, exactly (NaN payloads kept). */
float amddwarf__printf_half_to_float(uint16_t half);

#endif
