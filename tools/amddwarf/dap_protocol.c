/* The DAP base protocol: framing, reading and writing messages, base64. */
#include "dap_protocol.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void dap_reader_init(dap_reader *r)
{
  memset(r, 0, sizeof *r);
}

void dap_reader_free(dap_reader *r)
{
  text_buf_free(&r->bytes);
  memset(r, 0, sizeof *r);
}

int dap_reader_feed(dap_reader *r, const void *data, size_t n)
{
  if (r->skip > 0) {
    size_t drop = n < r->skip ? n : r->skip;
    r->skip -= drop;
    data = (const char *)data + drop;
    n -= drop;
  }
  return text_buf_append(&r->bytes, data, n);
}

/* The end of the header block (the index just past "\r\n\r\n"), or 0. */
static size_t header_end(const dap_reader *r)
{
  for (size_t i = 0; i + 4 <= r->bytes.len; i++)
    if (memcmp(r->bytes.data + i, "\r\n\r\n", 4) == 0)
      return i + 4;
  return 0;
}

static int same_name(const char *a, const char *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
      return 0;
  return 1;
}

/* Finds "Content-Length: N" among the header lines of DATA[0..SIZE).
   Returns 0 with *LENGTH, or -1 with ERROR filled. */
static int content_length(const char *data, size_t size, size_t *length, char *error,
                          size_t error_size)
{
  int found = 0;
  size_t i = 0;
  while (i < size) {
    const char *line = data + i;
    const char *end = memchr(line, '\r', size - i);
    size_t n = end ? (size_t)(end - line) : size - i;
    i += n + 2;
    if (n == 0)
      break;
    const char *colon = memchr(line, ':', n);
    if (!colon) {
      snprintf(error, error_size, "malformed header line '%.*s': expected 'Name: value'",
               (int)(n > 60 ? 60 : n), line);
      return -1;
    }
    size_t name_len = (size_t)(colon - line);
    if (name_len != 14 || !same_name(line, "Content-Length", 14))
      continue; /* other headers (Content-Type) are allowed and ignored */
    const char *v = colon + 1;
    const char *v_end = line + n;
    while (v < v_end && *v == ' ')
      v++;
    uint64_t value = 0;
    if (v == v_end) {
      snprintf(error, error_size, "Content-Length has no value");
      return -1;
    }
    for (; v < v_end; v++) {
      if (!isdigit((unsigned char)*v)) {
        snprintf(error, error_size, "Content-Length '%.*s' is not a decimal number",
                 (int)(v_end - colon - 1 > 40 ? 40 : v_end - colon - 1), colon + 1);
        return -1;
      }
      if (value <= UINT64_MAX / 16)
        value = value * 10 + (uint64_t)(*v - '0');
    }
    *length = value > SIZE_MAX ? SIZE_MAX : (size_t)value;
    found = 1;
  }
  if (!found) {
    snprintf(error, error_size, "the header block has no Content-Length");
    return -1;
  }
  return 0;
}

dap_read_result dap_reader_next(dap_reader *r, json_t **message, int64_t *seq, char *error,
                                size_t error_size)
{
  *message = NULL;
  *seq = 0;
  if (error_size > 0)
    error[0] = '\0';
  /* Bytes before a header (blank lines between messages) are skipped. */
  size_t lead = 0;
  while (lead < r->bytes.len && (r->bytes.data[lead] == '\r' || r->bytes.data[lead] == '\n'))
    lead++;
  if (lead > 0)
    text_buf_consume(&r->bytes, lead);
  if (r->bytes.len == 0)
    return DAP_READ_NEED_MORE;
  size_t head = header_end(r);
  if (head == 0) {
    if (r->bytes.len <= DAP_MAX_HEADER)
      return DAP_READ_NEED_MORE;
    snprintf(error, error_size, "a header block longer than %d bytes without a blank line",
             DAP_MAX_HEADER);
    r->bytes.len = 0;
    return DAP_READ_ERROR;
  }
  if (head > DAP_MAX_HEADER) {
    snprintf(error, error_size, "a header block longer than %d bytes", DAP_MAX_HEADER);
    text_buf_consume(&r->bytes, head);
    return DAP_READ_ERROR;
  }
  size_t length = 0;
  if (content_length(r->bytes.data, head, &length, error, error_size) != 0) {
    text_buf_consume(&r->bytes, head);
    return DAP_READ_ERROR;
  }
  if (length > DAP_MAX_BODY) {
    snprintf(error, error_size, "Content-Length %zu is larger than %d bytes", length,
             DAP_MAX_BODY);
    text_buf_consume(&r->bytes, head);
    size_t drop = r->bytes.len < length ? r->bytes.len : length;
    text_buf_consume(&r->bytes, drop);
    r->skip = length - drop;
    return DAP_READ_ERROR;
  }
  if (r->bytes.len - head < length)
    return DAP_READ_NEED_MORE;
  json_error_t jerr;
  json_t *body = json_loadb(r->bytes.data + head, length, JSON_REJECT_DUPLICATES, &jerr);
  text_buf_consume(&r->bytes, head + length);
  if (!body) {
    snprintf(error, error_size, "the message body is not JSON: line %d column %d: %s",
             jerr.line, jerr.column, jerr.text);
    return DAP_READ_ERROR;
  }
  if (!json_is_object(body)) {
    json_decref(body);
    snprintf(error, error_size, "the message body is not a JSON object");
    return DAP_READ_ERROR;
  }
  json_t *s = json_object_get(body, "seq");
  if (json_is_integer(s))
    *seq = json_integer_value(s);
  *message = body;
  return DAP_READ_MESSAGE;
}

/* The length of the UTF-8 sequence at S (at most N bytes), or 0 when it is
   not one jansson accepts: no overlong forms, surrogates or code points
   past U+10FFFF. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
  unsigned c = s[0];
  size_t length = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (length <= 1 || length > n)
    return length > n ? 0 : length;
  uint32_t code = c & (0x7Fu >> length);
  for (size_t i = 1; i < length; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    code = code << 6 | (s[i] & 0x3Fu);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
    return 0;
  return length;
}

/* S (N bytes) quoted: '"' and '\' escaped, the control characters with a
   letter where JSON has one, the others as \u00XX. */
static int text_string(text_buf *t, const char *s, size_t n)
{
  if (text_buf_reserve(t, n + 2) != 0)
    return -1;
  t->data[t->len++] = '"';
  const unsigned char *u = (const unsigned char *)s;
  size_t plain = 0; /* start of the characters not yet copied */
  for (size_t i = 0; i < n;) {
    unsigned c = u[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      i++;
      continue;
    }
    size_t length = utf8_length(u + i, n - i);
    if (length == 0)
      return -1;
    if (c >= 0x80) {
      i += length;
      continue;
    }
    if (text_buf_append(t, s + plain, i - plain) != 0)
      return -1;
    static const char letters[] = "btn\0fr"; /* \b 8, \t 9, \n 10, \f 12, \r 13 */
    char escape[8];
    size_t m;
    if (c == '"' || c == '\\')
      escape[0] = '\\', escape[1] = (char)c, m = 2;
    else if (c >= 8 && c <= 13 && letters[c - 8])
      escape[0] = '\\', escape[1] = letters[c - 8], m = 2;
    else
      m = (size_t)snprintf(escape, sizeof escape, "\\u%04X", c);
    if (text_buf_append(t, escape, m) != 0)
      return -1;
    plain = ++i;
  }
  return text_buf_append(t, s + plain, n - plain) != 0 || text_buf_append(t, "\"", 1) != 0 ? -1 : 0;
}

static int text_value(const json_t *v, text_buf *t)
{
  char number[32];
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    if (text_buf_append(t, "{", 1) != 0)
      return -1;
    int first = 1;
    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it), first = 0) {
      if ((!first && text_buf_append(t, ",", 1) != 0) ||
          text_string(t, json_object_iter_key(it), json_object_iter_key_len(it)) != 0 ||
          text_buf_append(t, ":", 1) != 0 || text_value(json_object_iter_value(it), t) != 0)
        return -1;
    }
    return text_buf_append(t, "}", 1);
  }
  case JSON_ARRAY: {
    if (text_buf_append(t, "[", 1) != 0)
      return -1;
    for (size_t i = 0; i < json_array_size(v); i++)
      if ((i > 0 && text_buf_append(t, ",", 1) != 0) || text_value(json_array_get(v, i), t) != 0)
        return -1;
    return text_buf_append(t, "]", 1);
  }
  case JSON_STRING:
    return text_string(t, json_string_value(v), json_string_length(v));
  case JSON_INTEGER: {
    int n = snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return text_buf_append(t, number, (size_t)n);
  }
  case JSON_REAL: {
    /* jansson's own shortest round-trip text. */
    char *real = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    int rc = real ? text_buf_append(t, real, strlen(real)) : -1;
    free(real);
    return rc;
  }
  case JSON_TRUE:
    return text_buf_append(t, "true", 4);
  case JSON_FALSE:
    return text_buf_append(t, "false", 5);
  case JSON_NULL:
    return text_buf_append(t, "null", 4);
  }
  return -1;
}

int dap_json_text(const json_t *value, text_buf *text)
{
  text->len = 0; /* every value appends, and text_buf_append ends it with a NUL */
  return text_value(value, text);
}

int dap_write_message(FILE *out, const json_t *message, text_buf *buffer)
{
  if (dap_json_text(message, buffer) != 0)
    return -1;
  size_t n = buffer->len;
  return fprintf(out, "Content-Length: %zu\r\n\r\n", n) < 0 ||
                 fwrite(buffer->data, 1, n, out) != n || fflush(out) != 0
             ? -1
             : 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

json_t *dap_base64_encode(const uint8_t *data, size_t size)
{
  char *text = malloc((size + 2) / 3 * 4 + 1);
  if (!text)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16;
    if (i + 1 < size)
      v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < size)
      v |= data[i + 2];
    text[o++] = b64[v >> 18 & 63];
    text[o++] = b64[v >> 12 & 63];
    text[o++] = i + 1 < size ? b64[v >> 6 & 63] : '=';
    text[o++] = i + 2 < size ? b64[v & 63] : '=';
  }
  text[o] = '\0';
  json_t *s = json_string(text);
  free(text);
  return s;
}

int dap_base64_decode(const char *text, uint8_t **data, size_t *size)
{
  size_t n = strlen(text);
  *data = NULL;
  *size = 0;
  if (n % 4 != 0)
    return -1;
  uint8_t *out = malloc(n / 4 * 3 + 1);
  if (!out)
    return -1;
  size_t o = 0;
  for (size_t i = 0; i < n; i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      char c = text[i + (size_t)k];
      const char *p = c ? strchr(b64, c) : NULL;
      if (c == '=' && i + 4 == n && k >= 2) {
        pad++;
        v <<= 6;
        continue;
      }
      if (!p || pad) {
        free(out);
        return -1;
      }
      v = v << 6 | (uint32_t)(p - b64);
    }
    out[o++] = (uint8_t)(v >> 16);
    if (pad < 2)
      out[o++] = (uint8_t)(v >> 8);
    if (pad < 1)
      out[o++] = (uint8_t)v;
  }
  *data = out;
  *size = o;
  return 0;
}
