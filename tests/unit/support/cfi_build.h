/* Test helper: building .debug_frame / .eh_frame sections byte by byte. */
#ifndef AMDDWARF_TEST_CFI_BUILD_H
#define AMDDWARF_TEST_CFI_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buf.h"

/* A section being written; byte_buf.h writes its bytes. */
typedef byte_buf cfi_sec;

/* .debug_frame CIE version 4 (32-bit DWARF, address size 8, augmentation "")
   with INSNS (N bytes); returns its offset. */
size_t cfi_cie4(cfi_sec *s, uint64_t caf, int64_t daf, uint64_t ra, const uint8_t *insns, size_t n);
/* .debug_frame FDE of CIE with 8-byte START and RANGE; returns its offset. */
size_t cfi_fde8(cfi_sec *s, size_t cie, uint64_t start, uint64_t range, const uint8_t *insns, size_t n);

#endif
