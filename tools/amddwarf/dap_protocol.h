/* The Debug Adapter Protocol's base protocol for `amddwarf dap`: messages
 * framed by a "Content-Length: N" header block and a blank line, each a JSON
 * object (specs/dap.md, "Framing"). The reader works on bytes in memory, so
 * the same code serves stdin and the fuzz target (tests/fuzz/fuzz_dap.c).
 * Depends on jansson and the C library only. */
#ifndef AMDDWARF_DAP_PROTOCOL_H
#define AMDDWARF_DAP_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "text_buf.h"

enum {
  DAP_MAX_HEADER = 8192,         /* bytes of one header block */
  DAP_MAX_BODY = 64 << 20,       /* bytes of one message body */
};

typedef struct dap_reader {
  text_buf bytes;                /* buffered bytes not yet consumed */
  size_t skip;                   /* body bytes still to discard (an oversized message) */
} dap_reader;

typedef enum dap_read_result {
  DAP_READ_MESSAGE = 0,          /* *MESSAGE is a JSON object (the caller's reference) */
  DAP_READ_NEED_MORE = 1,        /* the buffered bytes end inside a message */
  DAP_READ_ERROR = 2,            /* a malformed message was consumed; ERROR says why,
                                    *SEQ is its "seq" when the body had one, else 0 */
} dap_read_result;

void dap_reader_init(dap_reader *r);
void dap_reader_free(dap_reader *r);
/* Appends N bytes. Returns 0, or -1 when out of memory. */
int dap_reader_feed(dap_reader *r, const void *data, size_t n);
/* Takes the next message out of the buffered bytes. After DAP_READ_ERROR the
   reader has moved past the bad message (or the bad header block), so the
   next call continues with what follows. */
dap_read_result dap_reader_next(dap_reader *r, json_t **message, int64_t *seq, char *error,
                                size_t error_size);

/* VALUE as jansson prints it with JSON_COMPACT | JSON_PRESERVE_ORDER (byte
   for byte: the same escapes, numbers and member order), into TEXT, which is emptied first and
   NUL-terminated. Returns 0, or -1 when out of memory or for a string that
   is not UTF-8 (which jansson refuses to print too). */
int dap_json_text(const json_t *value, text_buf *text);
/* Writes MESSAGE framed to OUT and flushes; BUFFER holds its text. Returns 0
   or -1. */
int dap_write_message(FILE *out, const json_t *message, text_buf *buffer);

/* Base64 (RFC 4648, with padding) of SIZE bytes, as a new JSON string. */
json_t *dap_base64_encode(const uint8_t *data, size_t size);
/* Decodes TEXT into a malloc'ed buffer. Returns 0, or -1 for a character or
   length that is not base64 (or no memory). */
int dap_base64_decode(const char *text, uint8_t **data, size_t *size);

#endif
