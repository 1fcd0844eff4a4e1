/* The strict JSON reader of a wave's snapshot (snapshot_text.h). The check
 * is one pass with an explicit stack of the containers open; the bytes of
 * a string are passed 8 at a time while none of them needs a look (a quote,
 * a backslash, a control character or a byte of a multibyte character), so
 * the hex of a snapshot's memory costs a few instructions per 8 digits. */
#include "expr/snapshot_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* As jansson's parser (JSON_PARSER_MAX_DEPTH): a value inside this many
   arrays and objects is refused, the containers counting themselves. */
enum { CHECK_MAX_DEPTH = 2048 };


/* A member name of an object open: its bytes in the text, or (ESCAPED) in
   the decoded names. */
typedef struct check_key {
  size_t begin, length;
  int escaped;
} check_key;

typedef struct checker {
  const char *text;
  size_t end;
  const amddwarf_allocator *alloc;
  check_key *keys;
  size_t key_count, key_capacity;
  char *decoded; /* the escaped names, decoded */
  size_t decoded_length, decoded_capacity;
  json_text_index *index;
  const json_text_range *hex; /* strings known to be hex digits alone, in order */
  size_t hex_count, hex_next;
  size_t fault;
  const char *why;
} checker;

static int fail(checker *c, size_t at, const char *why)
{
  c->fault = at;
  c->why = why;
  return -1;
}

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }
static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

size_t amddwarf__json_text_space(const char *text, size_t at, size_t end)
{
  while (at < end && is_space(text[at]))
    at++;
  return at;
}

/* Bitwise tests on 8 bytes at once: a byte that is zero, or below N. */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static inline uint64_t has_zero(uint64_t w) { return (w - ONES) & ~w & HIGHS; }

/* Whether one of 8 string bytes needs a look of its own. */
static inline int needs_look(uint64_t w)
{
  return ((w & HIGHS) | has_zero(w ^ (ONES * '"')) | has_zero(w ^ (ONES * '\\')) |
          ((w - ONES * 0x20) & ~w & HIGHS)) != 0;
}

static int hex4(const char *p, uint32_t *value)
{
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char ch = p[i];
    int d = ch >= '0' && ch <= '9'   ? ch - '0'
            : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                     : -1;
    if (d < 0)
      return -1;
    v = v << 4 | (uint32_t)d;
  }
  *value = v;
  return 0;
}

/* The UTF-8 character at P (END bounds it): its length, 0 when invalid
   (overlong, a surrogate, past U+10FFFF, a bad continuation byte). */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
  unsigned char b = p[0];
  size_t n = b >= 0xc2 && b <= 0xdf   ? 2
             : b >= 0xe0 && b <= 0xef ? 3
             : b >= 0xf0 && b <= 0xf4 ? 4
                                      : 0;
  if (n == 0 || (size_t)(end - p) < n)
    return 0;
  uint32_t v = b & (0x7f >> n);
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80)
      return 0;
    v = v << 6 | (p[i] & 0x3f);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
    return 0;
  return n;
}

/* The escape at P (a backslash): its length in the text, 0 when invalid;
   *WHY says why. */
static size_t escape_length(const char *p, const char *end, const char **why)
{
  *why = "invalid escape";
  if (end - p < 2)
    return 0;
  if (p[1] != 'u')
    return strchr("\"\\/bfnrt", p[1]) != NULL && p[1] != '\0' ? 2 : 0;
  uint32_t v, low;
  if (end - p < 6 || hex4(p + 2, &v) != 0)
    return 0;
  *why = "\\u0000 is not allowed in a string";
  if (v == 0)
    return 0;
  *why = "invalid Unicode escape (a lone surrogate)";
  if (v >= 0xdc00 && v <= 0xdfff)
    return 0;
  if (v < 0xd800 || v > 0xdbff)
    return 6;
  if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &low) != 0 || low < 0xdc00 ||
      low > 0xdfff)
    return 0;
  return 12;
}

/* P past the string bytes from P on that need no look of their own,
   sixteen (SSE2) or eight at a time; stops short of END. */
static size_t plain_run(const char *text, size_t p, size_t end)
{
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                space = _mm_set1_epi8(0x20);
  while (p + 16 <= end) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(text + p));
    /* Signed: a byte from 0x80 up is negative, so below 0x20 too. */
    __m128i look =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                     _mm_cmplt_epi8(x, space));
    int mask = _mm_movemask_epi8(look);
    if (mask != 0)
      return p + (size_t)__builtin_ctz((unsigned)mask);
    p += 16;
  }
#endif
  while (p + 8 <= end) {
    uint64_t w;
    memcpy(&w, text + p, 8);
    if (needs_look(w))
      break;
    p += 8;
  }
  return p;
}

static int is_hex_digit(char ch)
{
  return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

size_t amddwarf__json_text_hex_run(const char *text, size_t at, size_t end)
{
#if defined(__SSE2__)
  while (at + 16 <= end) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(text + at));
    __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
    /* Signed compares: a byte from 0x80 up is negative, in neither range. */
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                   _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
    unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(digit, letter));
    if (mask != 0xffff)
      return at + (size_t)__builtin_ctz(~mask);
    at += 16;
  }
#endif
  while (at < end && is_hex_digit(text[at]))
    at++;
  return at;
}

/* The string at C->text[AT] (its quote): its end, or SIZE_MAX (C's fault).
   A long one is recorded in the index, so that walking skips it at once.
   Hex digits need no look of their own: a string that starts with them is
   passed over that run first, which also tells whether it is hex alone. */
static size_t check_string(checker *c, size_t at)
{
  const char *text = c->text;
  while (c->hex_next < c->hex_count && c->hex[c->hex_next].begin < at)
    c->hex_next++;
  size_t p = c->hex_next < c->hex_count && c->hex[c->hex_next].begin == at
                 ? c->hex[c->hex_next].end - 1 /* known: its closing quote */
                 : amddwarf__json_text_hex_run(text, at + 1, c->end);
  int hex_digits = p < c->end && text[p] == '"';
  for (;;) {
    p = plain_run(text, p, c->end);
    if (p >= c->end)
      return fail(c, at, "a string that does not end"), SIZE_MAX;
    unsigned char ch = (unsigned char)text[p];
    size_t n = 1;
    if (ch == '"') {
      if (p + 1 - at >= JSON_TEXT_LONG_STRING) {
        json_text_index *index = c->index;
        if (amddwarf__mem_reserve(c->alloc, (void **)&index->containers, &index->capacity,
                                  index->count + 1, sizeof *index->containers) != 0)
          return fail(c, at, "out of memory"), SIZE_MAX;
        index->containers[index->count++] = (json_text_container){at, p + 1, 0, hex_digits};
      }
      return p + 1;
    }
    if (ch == '\\') {
      const char *why;
      if ((n = escape_length(text + p, text + c->end, &why)) == 0)
        return fail(c, p, why), SIZE_MAX;
    } else if (ch < 0x20) {
      return fail(c, p, "a control character in a string"), SIZE_MAX;
    } else if (ch >= 0x80) {
      const unsigned char *bytes = (const unsigned char *)text;
      if ((n = utf8_length(bytes + p, bytes + c->end)) == 0)
        return fail(c, p, "invalid UTF-8"), SIZE_MAX;
    }
    p += n;
  }
}

/* Whether DIGITS (COUNT, no leading zero) fit a 64-bit signed integer. */
static int fits_int64(const char *digits, size_t count, int negative)
{
  const char *limit = negative ? "9223372036854775808" : "9223372036854775807";
  return count < 19 || (count == 19 && memcmp(digits, limit, 19) <= 0);
}

/* The number at AT: its end, or SIZE_MAX. */
static size_t check_number(checker *c, size_t at)
{
  const char *text = c->text;
  size_t p = at, end = c->end;
  int negative = text[p] == '-', real = 0;
  p += (size_t)negative;
  size_t digits = p;
  if (p >= end || !is_digit(text[p]))
    return fail(c, at, "invalid number"), SIZE_MAX;
  if (text[p] == '0')
    p++;
  else
    while (p < end && is_digit(text[p]))
      p++;
  size_t digit_count = p - digits;
  if (p < end && text[p] == '.') {
    real = 1;
    if (++p >= end || !is_digit(text[p]))
      return fail(c, p, "invalid number: a digit must follow '.'"), SIZE_MAX;
    while (p < end && is_digit(text[p]))
      p++;
  }
  if (p < end && (text[p] == 'e' || text[p] == 'E')) {
    real = 1;
    p++;
    if (p < end && (text[p] == '+' || text[p] == '-'))
      p++;
    if (p >= end || !is_digit(text[p]))
      return fail(c, p, "invalid number: a digit must follow the exponent"), SIZE_MAX;
    while (p < end && is_digit(text[p]))
      p++;
  }
  if (!real)
    return fits_int64(text + digits, digit_count, negative)
               ? p
               : (fail(c, at, "an integer that does not fit 64 signed bits"), SIZE_MAX);
  /* A real that overflows a double is refused, as by jansson. */
  char small[64];
  size_t n = p - at;
  char *copy = n < sizeof small ? small : amddwarf__mem_alloc(c->alloc, n + 1);
  if (copy == NULL)
    return fail(c, at, "out of memory"), SIZE_MAX;
  memcpy(copy, text + at, n);
  copy[n] = '\0';
  errno = 0;
  double v = strtod(copy, NULL);
  int overflow = errno == ERANGE && (v > 1.0 || v < -1.0);
  if (copy != small)
    amddwarf__mem_free(c->alloc, copy, n + 1);
  return overflow ? (fail(c, at, "a real number that overflows"), SIZE_MAX) : p;
}

static const char *key_bytes(const checker *c, const check_key *k)
{
  return k->escaped ? c->decoded + k->begin : c->text + k->begin;
}

/* Records the member name at [BEGIN, END) (its quotes) of the object whose
   names start at FIRST; refuses one the object has already. */
static int add_key(checker *c, size_t first, size_t begin, size_t end)
{
  check_key k = {begin + 1, end - begin - 2, 0};
  if (memchr(c->text + k.begin, '\\', k.length) != NULL) {
    if (amddwarf__mem_reserve(c->alloc, (void **)&c->decoded, &c->decoded_capacity,
                              c->decoded_length + (end - begin), 1) != 0)
      return fail(c, begin, "out of memory");
    k.escaped = 1;
    k.begin = c->decoded_length;
    k.length = amddwarf__json_text_unescape(c->text, begin, end, c->decoded + c->decoded_length,
                                            end - begin);
    c->decoded_length += k.length;
  }
  for (size_t i = first; i < c->key_count; i++)
    if (c->keys[i].length == k.length &&
        memcmp(key_bytes(c, &c->keys[i]), key_bytes(c, &k), k.length) == 0)
      return fail(c, begin, "duplicate member");
  if (amddwarf__mem_reserve(c->alloc, (void **)&c->keys, &c->key_capacity, c->key_count + 1,
                            sizeof *c->keys) != 0)
    return fail(c, begin, "out of memory");
  c->keys[c->key_count++] = k;
  return 0;
}

/* One open array or object: its bracket and where its names start. */
typedef struct open_container {
  char close;
  size_t first_key, decoded_length;
  size_t record; /* its entry in the index */
} open_container;

/* jansson's lexer reads one byte past a number or a word to find its end,
   and loses that byte when it puts back a NUL: "[1\0]" is [1] to it. The
   whole-document parse accepts such a document, so this reader does too. */
static size_t past_lost_nul(const checker *c, size_t end)
{
  return end != SIZE_MAX && end < c->end && c->text[end] == '\0' ? end + 1 : end;
}

/* The scalar at AT: its end, or SIZE_MAX. */
static size_t check_scalar(checker *c, size_t at)
{
  static const char *const literals[] = {"true", "false", "null"};
  char ch = c->text[at];
  if (ch == '"')
    return check_string(c, at);
  if (ch == '-' || is_digit(ch))
    return past_lost_nul(c, check_number(c, at));
  /* A word is read whole, as jansson's lexer reads it; a fault is placed
     after what was read (the word, or the one character), as it places it. */
  size_t word = at;
  while (word < c->end && ((c->text[word] >= 'a' && c->text[word] <= 'z') ||
                           (c->text[word] >= 'A' && c->text[word] <= 'Z')))
    word++;
  for (size_t i = 0; i < 3; i++)
    if (word - at == strlen(literals[i]) && memcmp(c->text + at, literals[i], word - at) == 0)
      return past_lost_nul(c, word);
  return fail(c, word > at ? word : at + 1, "invalid token"), SIZE_MAX;
}

static int check(checker *c, size_t at)
{
  open_container *stack = amddwarf__mem_alloc(c->alloc, CHECK_MAX_DEPTH * sizeof *stack);
  size_t depth = 0;
  int rc = -1;
  if (stack == NULL)
    return fail(c, at, "out of memory");
  const char *text = c->text;
  at = amddwarf__json_text_space(text, at, c->end);
  for (;;) {
    /* A value at AT. */
    if (at >= c->end) {
      fail(c, at, "a value is expected (the text ends)");
      goto done;
    }
    if (depth + 1 > CHECK_MAX_DEPTH) {
      fail(c, at, "nested too deeply");
      goto done;
    }
    char ch = text[at];
    int opened = ch == '[' || ch == '{';
    json_text_index *index = c->index;
    if (depth > 0)
      index->containers[stack[depth - 1].record].count++;
    if (opened) {
      if (amddwarf__mem_reserve(c->alloc, (void **)&index->containers, &index->capacity,
                                index->count + 1, sizeof *index->containers) != 0) {
        fail(c, at, "out of memory");
        goto done;
      }
      index->containers[index->count] = (json_text_container){at, 0, 0, 0};
      stack[depth++] = (open_container){ch == '[' ? ']' : '}', c->key_count, c->decoded_length,
                                        index->count++};
      at = amddwarf__json_text_space(text, at + 1, c->end);
      if (at < c->end && text[at] == stack[depth - 1].close) {
        index->containers[stack[depth - 1].record].end = at + 1;
        at++;
        depth--;
        opened = 0;
      }
    } else if ((at = check_scalar(c, at)) == SIZE_MAX) {
      goto done;
    }
    /* After a value: a member name, the next element or member, or closing brackets. */
    for (;;) {
      if (!opened) {
        at = amddwarf__json_text_space(text, at, c->end);
        if (depth == 0) {
          if (at != c->end)
            fail(c, at, "text after the value");
          rc = at == c->end ? 0 : -1;
          goto done;
        }
        open_container *top = &stack[depth - 1];
        if (at < c->end && text[at] == top->close) {
          c->index->containers[top->record].end = at + 1;
          c->key_count = top->first_key;
          c->decoded_length = top->decoded_length;
          depth--;
          at++;
          continue;
        }
        if (at >= c->end || text[at] != ',') {
          fail(c, at, top->close == '}' ? "',' or '}' is expected" : "',' or ']' is expected");
          goto done;
        }
        at = amddwarf__json_text_space(text, at + 1, c->end);
      }
      if (stack[depth - 1].close == '}') {
        if (at >= c->end || text[at] != '"') {
          fail(c, at, "a member name (a string) is expected");
          goto done;
        }
        size_t key_end = check_string(c, at);
        if (key_end == SIZE_MAX || add_key(c, stack[depth - 1].first_key, at, key_end) != 0)
          goto done;
        at = amddwarf__json_text_space(text, key_end, c->end);
        if (at >= c->end || text[at] != ':') {
          fail(c, at, "':' is expected after a member name");
          goto done;
        }
        at = amddwarf__json_text_space(text, at + 1, c->end);
      }
      break;
    }
  }
done:
  amddwarf__mem_free(c->alloc, stack, CHECK_MAX_DEPTH * sizeof *stack);
  return rc;
}

amddwarf_status amddwarf__json_text_check(const char *text, size_t begin, size_t end,
                                         const amddwarf_allocator *alloc, json_text_index *index,
                                         size_t *fault, const char **why)
{
  return amddwarf__json_text_check_known(text, begin, end, NULL, 0, alloc, index, fault, why);
}

amddwarf_status amddwarf__json_text_check_known(const char *text, size_t begin, size_t end,
                                               const json_text_range *hex, size_t hex_count,
                                               const amddwarf_allocator *alloc,
                                               json_text_index *index, size_t *fault,
                                               const char **why)
{
  checker c;
  memset(&c, 0, sizeof c);
  c.hex = hex;
  c.hex_count = hex_count;
  memset(index, 0, sizeof *index);
  index->alloc = alloc;
  c.text = text;
  c.end = end;
  c.alloc = alloc;
  c.index = index;
  int rc = check(&c, begin);
  amddwarf__mem_free(alloc, c.keys, c.key_capacity * sizeof *c.keys);
  amddwarf__mem_free(alloc, c.decoded, c.decoded_capacity);
  if (rc == 0)
    return AMDDWARF_OK;
  *fault = c.fault;
  *why = c.why;
  return c.why && strcmp(c.why, "out of memory") == 0 ? AMDDWARF_E_NO_MEMORY : AMDDWARF_E_BAD_JSON;
}

void amddwarf__json_text_index_release(json_text_index *index)
{
  if (index->alloc != NULL)
    amddwarf__mem_free(index->alloc, index->containers,
                       index->capacity * sizeof *index->containers);
  memset(index, 0, sizeof *index);
}

void amddwarf__json_text_index_shrink(json_text_index *index)
{
  if (index->alloc == NULL || index->count == index->capacity || index->count == 0)
    return;
  json_text_container *fit =
      amddwarf__mem_alloc(index->alloc, index->count * sizeof *index->containers);
  if (fit == NULL)
    return;
  memcpy(fit, index->containers, index->count * sizeof *index->containers);
  amddwarf__mem_free(index->alloc, index->containers, index->capacity * sizeof *index->containers);
  index->containers = fit;
  index->capacity = index->count;
}

const json_text_container *amddwarf__json_text_container(const json_text_index *index, size_t at)
{
  size_t lo = 0, hi = index ? index->count : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index->containers[mid].begin == at)
      return &index->containers[mid];
    if (index->containers[mid].begin < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* ---- Walking checked text ---- */

size_t amddwarf__json_text_string_end(const char *text, size_t at, size_t end)
{
  size_t from = at + 1;
  for (;;) {
    const char *q = memchr(text + from, '"', end - from);
    size_t quote = (size_t)(q - text);
    size_t slashes = 0;
    while (text[quote - slashes - 1] == '\\')
      slashes++;
    from = quote + 1;
    if (slashes % 2 == 0)
      return from;
  }
}

size_t amddwarf__json_text_skip(const char *text, size_t at, size_t end,
                               const json_text_index *index, size_t *hint)
{
  char ch = text[at];
  if (index != NULL && (ch == '[' || ch == '{' || ch == '"')) {
    size_t i = *hint;
    if (i >= index->count || index->containers[i].begin > at)
      i = 0; /* not a walk in order: from the start */
    while (i < index->count && index->containers[i].begin < at)
      i++;
    *hint = i;
    if (i < index->count && index->containers[i].begin == at)
      return index->containers[i].end;
  }
  if (ch == '"')
    return amddwarf__json_text_string_end(text, at, end);
  if (ch != '[' && ch != '{') {
    while (at < end && text[at] != ',' && text[at] != ']' && text[at] != '}' && !is_space(text[at]))
      at++;
    return at;
  }
  size_t depth = 0;
  for (;;) {
    ch = text[at];
    if (ch == '"') {
      at = amddwarf__json_text_string_end(text, at, end);
      continue;
    }
    if (ch == '[' || ch == '{')
      depth++;
    else if ((ch == ']' || ch == '}') && --depth == 0)
      return at + 1;
    at++;
  }
}

/* Appends code point V as UTF-8 at OUT; returns the bytes written. */
static size_t put_utf8(uint32_t v, char *out)
{
  if (v < 0x80) {
    out[0] = (char)v;
    return 1;
  }
  if (v < 0x800) {
    out[0] = (char)(0xc0 | v >> 6);
    out[1] = (char)(0x80 | (v & 0x3f));
    return 2;
  }
  if (v < 0x10000) {
    out[0] = (char)(0xe0 | v >> 12);
    out[1] = (char)(0x80 | (v >> 6 & 0x3f));
    out[2] = (char)(0x80 | (v & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | v >> 18);
  out[1] = (char)(0x80 | (v >> 12 & 0x3f));
  out[2] = (char)(0x80 | (v >> 6 & 0x3f));
  out[3] = (char)(0x80 | (v & 0x3f));
  return 4;
}

size_t amddwarf__json_text_unescape(const char *text, size_t begin, size_t end, char *out,
                                   size_t room)
{
  static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
  size_t n = 0;
  for (size_t p = begin + 1; p + 1 < end && n < room;) {
    if (text[p] != '\\') {
      out[n++] = text[p++];
      continue;
    }
    if (text[p + 1] != 'u') {
      out[n++] = meant[strchr(plain, text[p + 1]) - plain];
      p += 2;
      continue;
    }
    uint32_t v = 0, low = 0;
    hex4(text + p + 2, &v);
    p += 6;
    if (v >= 0xd800 && v <= 0xdbff) {
      hex4(text + p + 2, &low);
      v = 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00);
      p += 6;
    }
    char encoded[4];
    size_t length = put_utf8(v, encoded);
    if (length > room - n)
      break;
    memcpy(out + n, encoded, length);
    n += length;
  }
  return n;
}
