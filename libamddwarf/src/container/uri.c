/* Code-object URIs (AMDGPUUsage, "Loaded Code Object Path URI"):
 *   file://PATH[(#|?)offset=N[&size=M]]   memory://PID(#|?)offset=N&size=M
 * Numbers are C integer literals; the path is %-escaped. */
#include <stdio.h>
#include <string.h>

#include "container/internal.h"
#include "common/text.h"

/* A C integer literal in TEXT[START, END): decimal, 0x hexadecimal or 0
   octal, fitting 64 bits. */
static amddwarf_status parse_number(const char *text, size_t start, size_t end, const char *what,
                                    uint64_t *out, amddwarf_error *err)
{
  unsigned base = 10;
  size_t pos = start;
  if (end - pos >= 2 && text[pos] == '0' && (text[pos + 1] == 'x' || text[pos + 1] == 'X')) {
    base = 16;
    pos += 2;
  } else if (end - pos > 1 && text[pos] == '0') {
    base = 8;
    pos += 1;
  }
  if (pos == end)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, start,
                          "URI '%s': %s at offset %zu has no digits", text, what, start);
  uint64_t value = 0;
  for (; pos < end; ++pos) {
    int digit = amddwarf__hex_digit(text[pos]);
    if (digit < 0 || (unsigned)digit >= base)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, pos,
                            "URI '%s': %s has '%c' at offset %zu, not a base-%u digit", text,
                            what, text[pos], pos, base);
    if (value > (UINT64_MAX - (uint64_t)digit) / base)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, start,
                            "URI '%s': %s at offset %zu does not fit 64 bits", text, what, start);
    value = value * base + (uint64_t)digit;
  }
  *out = value;
  return AMDDWARF_OK;
}

/* Reads "offset=N&size=M" (either, both, any order, each once) from
   TEXT[POS, end). */
static amddwarf_status parse_params(const char *text, size_t pos, amddwarf_uri *uri,
                                    amddwarf_error *err)
{
  size_t length = strlen(text);
  while (pos < length) {
    size_t end = pos;
    while (end < length && text[end] != '&')
      ++end;
    size_t eq = pos;
    while (eq < end && text[eq] != '=')
      ++eq;
    bool is_offset = eq - pos == 6 && memcmp(text + pos, "offset", 6) == 0;
    bool is_size = eq - pos == 4 && memcmp(text + pos, "size", 4) == 0;
    if (eq == end || (!is_offset && !is_size))
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, pos,
                            "URI '%s': unknown parameter '%.*s' at offset %zu (offset=N and "
                            "size=N are known)",
                            text, (int)(eq - pos), text + pos, pos);
    uint8_t *seen = is_offset ? &uri->has_offset : &uri->has_size;
    if (*seen)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, pos,
                            "URI '%s': parameter %s at offset %zu is given twice", text,
                            is_offset ? "offset" : "size", pos);
    amddwarf_status st = parse_number(text, eq + 1, end, is_offset ? "offset" : "size",
                                      is_offset ? &uri->offset : &uri->size, err);
    if (st != AMDDWARF_OK)
      return st;
    *seen = 1;
    pos = end < length ? end + 1 : end;
    if (end < length && pos == length)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, end,
                            "URI '%s': '&' at offset %zu ends the URI", text, end);
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_uri_parse(const char *text, const amddwarf_allocator *allocator,
                                   amddwarf_uri *out, amddwarf_error *err)
{
  if (text == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_uri_parse: NULL argument");
  memset(out, 0, sizeof *out);
  size_t length = strlen(text), pos;
  if (strncmp(text, "file://", 7) == 0) {
    out->kind = AMDDWARF_URI_FILE;
    pos = 7;
  } else if (strncmp(text, "memory://", 9) == 0) {
    out->kind = AMDDWARF_URI_MEMORY;
    pos = 9;
  } else {
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, 0,
                          "URI '%s': the scheme is not file:// or memory://", text);
  }
  size_t end = pos;
  while (end < length && text[end] != '#' && text[end] != '?')
    ++end;
  if (end == pos)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, pos,
                          "URI '%s': no %s after the scheme (offset %zu)", text,
                          out->kind == AMDDWARF_URI_FILE ? "path" : "process ID", pos);
  amddwarf_status st = AMDDWARF_OK;
  if (out->kind == AMDDWARF_URI_MEMORY) {
    st = parse_number(text, pos, end, "process ID", &out->pid, err);
  } else {
    amddwarf_allocator a = amddwarf__allocator_resolve(allocator);
    char *path = amddwarf__mem_alloc(&a, end - pos + 1);
    if (path == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "URI path");
    size_t n = 0;
    for (size_t i = pos; i < end && st == AMDDWARF_OK; ++i) {
      if (text[i] != '%') {
        path[n++] = text[i];
        continue;
      }
      int hi = i + 2 < end ? amddwarf__hex_digit(text[i + 1]) : -1;
      int lo = i + 2 < end ? amddwarf__hex_digit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
        st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, i,
                            "URI '%s': '%%' at offset %zu is not followed by two hex digits "
                            "(other than 00)",
                            text, i);
      else
        path[n++] = (char)(hi << 4 | lo);
      i += 2;
    }
    path[n] = 0;
    out->path = path;
  }
  if (st == AMDDWARF_OK && end < length)
    st = parse_params(text, end + 1, out, err);
  if (st == AMDDWARF_OK && end + 1 == length)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, end,
                        "URI '%s': '%c' at offset %zu has no parameter after it", text,
                        text[end], end);
  if (st != AMDDWARF_OK)
    amddwarf_uri_free(out, allocator);
  return st;
}

void amddwarf_uri_free(amddwarf_uri *uri, const amddwarf_allocator *allocator)
{
  if (uri == NULL || uri->path == NULL)
    return;
  amddwarf_allocator a = amddwarf__allocator_resolve(allocator);
  amddwarf__mem_free(&a, uri->path, strlen(uri->path) + 1);
  uri->path = NULL;
}

size_t amddwarf_uri_format_file(const char *path, uint64_t offset, uint64_t size, char *buf,
                                size_t buf_size)
{
  static const char keep[] = "/-._~";
  size_t n = 0;
#define PUT(ch)                                                                                   \
  do {                                                                                            \
    if (n + 1 < buf_size)                                                                         \
      buf[n] = (ch);                                                                              \
    ++n;                                                                                          \
  } while (0)
  for (const char *p = "file://"; *p; ++p)
    PUT(*p);
  for (const unsigned char *p = (const unsigned char *)path; *p; ++p) {
    bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= '0' && *p <= '9') || strchr(keep, *p) != NULL;
    if (plain) {
      PUT((char)*p);
    } else {
      static const char hex[] = "0123456789ABCDEF";
      PUT('%');
      PUT(hex[*p >> 4]);
      PUT(hex[*p & 15]);
    }
  }
#undef PUT
  char tail[64];
  int t = snprintf(tail, sizeof tail, "#offset=%llu&size=%llu", (unsigned long long)offset,
                   (unsigned long long)size);
  for (int i = 0; i < t; ++i) {
    if (n + 1 < buf_size)
      buf[n] = tail[i];
    ++n;
  }
  if (buf_size > 0)
    buf[n < buf_size ? n : buf_size - 1] = 0;
  return n;
}
