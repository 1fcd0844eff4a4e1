/* Test helper: a fixed-size little-endian byte buffer for writing binary
 * sections (DWARF, ELF, notes) byte by byte. Overrunning it fails the test. */
#ifndef AMDDWARF_TEST_BYTE_BUF_H
#define AMDDWARF_TEST_BYTE_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct byte_buf {
  uint8_t data[8192];
  size_t len;
} byte_buf;

void bb_bytes(byte_buf *b, const void *bytes, size_t n);
void bb_u8(byte_buf *b, uint64_t v);
/* V as an N-byte little-endian integer (N up to 16; bytes past 8 are 0). */
void bb_uint(byte_buf *b, uint64_t v, unsigned n);
void bb_uleb(byte_buf *b, uint64_t v);
void bb_sleb(byte_buf *b, int64_t v);
/* S with its terminating NUL. */
void bb_str(byte_buf *b, const char *s);
void bb_patch32(byte_buf *b, size_t at, uint32_t v);

/* A 4-byte length field: bb_length_begin writes a placeholder and returns
   where it is; bb_length_end sets it to the bytes written after it. */
size_t bb_length_begin(byte_buf *b);
void bb_length_end(byte_buf *b, size_t at);

#endif
