/* Fuzz target of `amddwarf dap`'s message reader (tools/amddwarf/dap_protocol.c):
 * framing, header parsing, JSON bodies, and the recovery after a malformed
 * message, plus the base64 decoder of writeMemory.
 *
 * Input layout: the first byte chooses a chunk size (1 + byte % 64; 0 feeds
 * everything at once), the rest is the byte stream of stdin. The stream is
 * fed chunk by chunk, taking every message out after each chunk, as the
 * adapter's loop does. Every message read must be a JSON object; every error
 * must consume bytes (no call may return an error twice without progress);
 * the reader must end holding at most one unfinished message. The bodies'
 * "data" strings are base64-decoded, and what decodes must encode back to
 * the same text. Every message, and the input's bytes as one string (UTF-8
 * or not), print as jansson's json_dumps prints them (dap_json_text, the
 * writer of the adapter's responses). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dap_protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_base64(const json_t *message)
{
  const json_t *args = json_object_get(message, "arguments");
  const json_t *d = json_is_object(args) ? json_object_get(args, "data") : NULL;
  if (!json_is_string(d))
    return;
  uint8_t *bytes = NULL;
  size_t n = 0;
  if (dap_base64_decode(json_string_value(d), &bytes, &n) != 0)
    return;
  json_t *again = dap_base64_encode(bytes, n);
  if (!again || strcmp(json_string_value(again), json_string_value(d)) != 0) {
    /* Only canonical padding round-trips; a non-zero tail in the last
       character decodes too, so compare the decoded bytes instead. */
    uint8_t *twice = NULL;
    size_t m = 0;
    if (!again || dap_base64_decode(json_string_value(again), &twice, &m) != 0 || m != n ||
        memcmp(twice, bytes, n) != 0)
      abort();
    free(twice);
  }
  json_decref(again);
  free(bytes);
}

/* dap_json_text prints VALUE as jansson does, or refuses what it refuses. */
static void check_text(const json_t *value, text_buf *text)
{
  char *expected = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER);
  int rc = dap_json_text(value, text);
  if ((expected == NULL) != (rc != 0) ||
      (expected && (strlen(expected) != text->len || memcmp(expected, text->data, text->len))))
    abort();
  free(expected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  size_t chunk = data[0] == 0 ? size : (size_t)(1 + data[0] % 64);
  data++;
  size--;
  text_buf text = {0};
  json_t *raw = json_pack("{s:o}", "s", json_stringn_nocheck((const char *)data, size));
  if (raw)
    check_text(raw, &text);
  json_decref(raw);
  dap_reader r;
  dap_reader_init(&r);
  for (size_t at = 0; at < size;) {
    size_t n = size - at < chunk ? size - at : chunk;
    if (dap_reader_feed(&r, data + at, n) != 0)
      abort();
    at += n;
    for (;;) {
      json_t *message = NULL;
      int64_t seq = 0;
      char error[512];
      size_t before = r.bytes.len;
      dap_read_result result = dap_reader_next(&r, &message, &seq, error, sizeof error);
      if (result == DAP_READ_NEED_MORE)
        break;
      if (result == DAP_READ_MESSAGE) {
        if (!json_is_object(message))
          abort();
        check_base64(message);
        check_text(message, &text);
        json_decref(message);
      } else if (error[0] == '\0' || (r.bytes.len >= before && r.skip == 0)) {
        abort(); /* an error names its cause and consumes what it rejects */
      }
    }
  }
  dap_reader_free(&r);
  text_buf_free(&text);
  return 0;
}
