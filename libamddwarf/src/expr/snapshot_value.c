/* A snapshot's JSON values from a tree or from checked text
 * (snapshot_value.h). From text, nothing is built: an object's members are
 * found by walking its text once per table of names, an array's elements
 * one after the other, and a string's characters are read in place unless
 * it has an escape. */
#include "expr/snapshot_value.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/error.h"
#include "common/json_int.h"
#include "common/mem.h"
#include "expr/snapshot_text.h"

void amddwarf__snapshot_scratch_release(snapshot_scratch *s)
{
  amddwarf__mem_free(s->alloc, s->bytes, s->capacity);
  s->bytes = NULL;
  s->capacity = 0;
}

static char *scratch_room(snapshot_scratch *s, size_t n)
{
  if (amddwarf__mem_reserve(s->alloc, (void **)&s->bytes, &s->capacity, n, 1) != 0)
    return NULL;
  return s->bytes;
}

void amddwarf__snapshot_value_json(const json_t *j, snapshot_value *out)
{
  memset(out, 0, sizeof *out);
  out->json = j;
  if (j == NULL)
    out->kind = SNAPSHOT_MISSING;
  else if (json_is_object(j))
    out->kind = SNAPSHOT_OBJECT;
  else if (json_is_array(j))
    out->kind = SNAPSHOT_ARRAY;
  else if (json_is_string(j))
    out->kind = SNAPSHOT_STRING;
  else if (json_is_integer(j))
    out->kind = SNAPSHOT_INTEGER;
  else if (json_is_real(j))
    out->kind = SNAPSHOT_REAL;
  else if (json_is_true(j))
    out->kind = SNAPSHOT_TRUE;
  else if (json_is_false(j))
    out->kind = SNAPSHOT_FALSE;
  else
    out->kind = SNAPSHOT_NULL;
}

void amddwarf__snapshot_prefetch(const snapshot_value *v)
{
  if (v->json != NULL || v->index == NULL)
    return;
  const json_text_container *own = amddwarf__json_text_container(v->index, v->begin);
  if (own == NULL)
    return;
  const json_text_container *last = v->index->containers + v->index->count;
  for (const json_text_container *c = own + 1; c < last && c->begin < v->end; c++) {
    __builtin_prefetch(v->text + c->begin);
    __builtin_prefetch(v->text + c->end - 1);
  }
}

void amddwarf__snapshot_value_text(const char *text, const json_text_index *index, size_t begin,
                                  size_t end, snapshot_value *out)
{
  memset(out, 0, sizeof *out);
  out->index = index;
  begin = amddwarf__json_text_space(text, begin, end);
  /* White space after the value, and the NUL jansson loses after a number
     or a word (snapshot_text.c), are not the value's. */
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' ||
                         text[end - 1] == '\n' || text[end - 1] == '\r' ||
                         (text[end - 1] == '\0' && text[begin] != '"')))
    end--;
  out->text = text;
  out->begin = begin;
  out->end = end;
  char c = text[begin];
  if (c == '{')
    out->kind = SNAPSHOT_OBJECT;
  else if (c == '[')
    out->kind = SNAPSHOT_ARRAY;
  else if (c == '"')
    out->kind = SNAPSHOT_STRING;
  else if (c == 't')
    out->kind = SNAPSHOT_TRUE;
  else if (c == 'f')
    out->kind = SNAPSHOT_FALSE;
  else if (c == 'n')
    out->kind = SNAPSHOT_NULL;
  else {
    /* A number: a real has a fraction or an exponent (the text is checked). */
    out->kind = SNAPSHOT_INTEGER;
    for (size_t p = begin; p < end; p++)
      if (text[p] == '.' || text[p] == 'e' || text[p] == 'E')
        out->kind = SNAPSHOT_REAL;
  }
}

/* ---- Walking text ---- */

/* The next element or member of the container W walks, from text: the
   range of its name (member) and of its value. Returns 0 at the end. */
static int text_next(snapshot_walk *w, size_t *name_begin, size_t *name_end, snapshot_value *out)
{
  const snapshot_value *c = w->container;
  const char *text = c->text;
  size_t at = amddwarf__json_text_space(text, w->at, c->end);
  if (at >= c->end || text[at] == ']' || text[at] == '}')
    return 0;
  if (c->kind == SNAPSHOT_OBJECT) {
    *name_begin = at;
    *name_end = at = amddwarf__json_text_string_end(text, at, c->end);
    at = amddwarf__json_text_space(text, at, c->end) + 1; /* the ':' */
    at = amddwarf__json_text_space(text, at, c->end);
  }
  size_t value_end = amddwarf__json_text_skip(text, at, c->end, c->index, &w->hint);
  amddwarf__snapshot_value_text(text, c->index, at, value_end, out);
  at = amddwarf__json_text_space(text, value_end, c->end);
  w->at = at < c->end && text[at] == ',' ? at + 1 : at;
  w->index++;
  return 1;
}

/* The name at TEXT[BEGIN, END) (quotes included) into NAME, cut to fit. */
static void text_name(const char *text, size_t begin, size_t end, char *name, size_t name_size)
{
  size_t n = amddwarf__json_text_unescape(text, begin, end, name, name_size - 1);
  name[n] = '\0';
}

void amddwarf__snapshot_walk_init(const snapshot_value *container, snapshot_walk *w)
{
  memset(w, 0, sizeof *w);
  w->container = container;
  if (container->json == NULL) {
    w->at = container->begin + 1;
    /* The container's own entry: its values' entries follow it. */
    const json_text_container *own = amddwarf__json_text_container(container->index,
                                                                  container->begin);
    w->hint = own != NULL ? (size_t)(own - container->index->containers) : 0;
  }
  else if (container->kind == SNAPSHOT_OBJECT)
    w->member = json_object_iter((json_t *)container->json);
}

int amddwarf__snapshot_next_element(snapshot_walk *w, snapshot_value *out)
{
  const snapshot_value *c = w->container;
  if (c->kind != SNAPSHOT_ARRAY)
    return 0;
  if (c->json == NULL) {
    size_t unused_begin, unused_end;
    return text_next(w, &unused_begin, &unused_end, out);
  }
  if (w->index >= json_array_size(c->json))
    return 0;
  amddwarf__snapshot_value_json(json_array_get(c->json, w->index++), out);
  return 1;
}

int amddwarf__snapshot_next_small_uint(snapshot_walk *w, uint64_t max, uint64_t *out)
{
  const snapshot_value *c = w->container;
  if (c->kind != SNAPSHOT_ARRAY)
    return 0;
  if (c->json != NULL) {
    const json_t *e = json_array_get(c->json, w->index);
    if (!json_is_integer(e) || json_integer_value(e) < 0 ||
        (uint64_t)json_integer_value(e) > max)
      return 0;
    *out = (uint64_t)json_integer_value(e);
    w->index++;
    return 1;
  }
  const char *text = c->text;
  size_t at = amddwarf__json_text_space(text, w->at, c->end), p = at;
  uint64_t value = 0;
  /* At most 19 digits: the text is checked, so the value is below 2^63. */
  while (p < c->end && text[p] >= '0' && text[p] <= '9')
    value = value * 10 + (uint64_t)(text[p++] - '0');
  if (p == at || p >= c->end || value > max ||
      (text[p] != ',' && text[p] != ']' && text[p] != ' ' && text[p] != '\n' &&
       text[p] != '\t' && text[p] != '\r'))
    return 0;
  p = amddwarf__json_text_space(text, p, c->end);
  w->at = p < c->end && text[p] == ',' ? p + 1 : p;
  w->index++;
  *out = value;
  return 1;
}

int amddwarf__snapshot_next_member(snapshot_walk *w, char *name, size_t name_size,
                                  snapshot_value *out)
{
  const snapshot_value *c = w->container;
  if (c->kind != SNAPSHOT_OBJECT)
    return 0;
  if (c->json == NULL) {
    size_t name_begin, name_end;
    if (!text_next(w, &name_begin, &name_end, out))
      return 0;
    text_name(c->text, name_begin, name_end, name, name_size);
    return 1;
  }
  if (w->member == NULL)
    return 0;
  const char *key = json_object_iter_key(w->member);
  size_t n = strlen(key) < name_size - 1 ? strlen(key) : name_size - 1;
  memcpy(name, key, n);
  name[n] = '\0';
  amddwarf__snapshot_value_json(json_object_iter_value(w->member), out);
  w->member = json_object_iter_next((json_t *)c->json, w->member);
  w->index++;
  return 1;
}

size_t amddwarf__snapshot_count(const snapshot_value *container)
{
  if (container->json != NULL)
    return container->kind == SNAPSHOT_ARRAY    ? json_array_size(container->json)
           : container->kind == SNAPSHOT_OBJECT ? json_object_size(container->json)
                                                : 0;
  if (container->kind != SNAPSHOT_ARRAY && container->kind != SNAPSHOT_OBJECT)
    return 0;
  const json_text_container *known =
      amddwarf__json_text_container(container->index, container->begin);
  if (known != NULL)
    return known->count;
  snapshot_walk w;
  snapshot_value unused;
  size_t name_begin, name_end;
  amddwarf__snapshot_walk_init(container, &w);
  while (text_next(&w, &name_begin, &name_end, &unused))
    ;
  return w.index;
}

/* Whether the member name at TEXT[BEGIN, END) (quotes included) is NAME;
   ESCAPED: whether the name has an escape. */
static int text_name_is(const char *text, size_t begin, size_t end, int escaped,
                        const char *name)
{
  size_t n = strlen(name);
  if (!escaped)
    return end - begin - 2 == n && memcmp(text + begin + 1, name, n) == 0;
  char decoded[64];
  text_name(text, begin, end, decoded, sizeof decoded);
  return n < sizeof decoded - 1 && strcmp(decoded, name) == 0;
}

int amddwarf__snapshot_members(const snapshot_value *object, const char *const *names,
                              size_t count, snapshot_value *out, char *unknown,
                              size_t unknown_size)
{
  int found_unknown = 0;
  for (size_t i = 0; i < count; i++)
    amddwarf__snapshot_value_json(NULL, &out[i]);
  if (object->kind != SNAPSHOT_OBJECT)
    return 0;
  if (object->json != NULL) {
    for (size_t i = 0; i < count; i++)
      amddwarf__snapshot_value_json(json_object_get(object->json, names[i]), &out[i]);
    if (unknown == NULL)
      return 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)object->json, key, value) {
      size_t i = 0;
      while (i < count && strcmp(key, names[i]) != 0)
        i++;
      if (i == count) {
        size_t n = strlen(key) < unknown_size - 1 ? strlen(key) : unknown_size - 1;
        memcpy(unknown, key, n);
        unknown[n] = '\0';
        return 1;
      }
    }
    return 0;
  }
  snapshot_walk w;
  snapshot_value value;
  size_t name_begin, name_end;
  amddwarf__snapshot_walk_init(object, &w);
  while (text_next(&w, &name_begin, &name_end, &value)) {
    int escaped = memchr(object->text + name_begin, '\\', name_end - name_begin) != NULL;
    size_t i = 0;
    while (i < count && !text_name_is(object->text, name_begin, name_end, escaped, names[i]))
      i++;
    if (i < count) {
      out[i] = value;
    } else if (!found_unknown && unknown != NULL) {
      text_name(object->text, name_begin, name_end, unknown, unknown_size);
      found_unknown = 1;
    }
  }
  return found_unknown;
}

size_t amddwarf__snapshot_string_bound(const snapshot_value *v)
{
  return v->json != NULL ? json_string_length(v->json) : v->end - v->begin - 2;
}

snapshot_hex_status amddwarf__snapshot_hex_value(const snapshot_value *v,
                                                snapshot_scratch *scratch, uint8_t *out,
                                                size_t *size)
{
  if (v->json != NULL)
    return amddwarf__snapshot_hex(json_string_value(v->json), json_string_length(v->json), out,
                                  size);
  const char *raw = v->text + v->begin + 1;
  size_t n = v->end - v->begin - 2;
  snapshot_hex_status st = amddwarf__snapshot_hex(raw, n, out, size);
  /* A backslash is no digit: only then is the string decoded, and read again. */
  if (st != SNAPSHOT_HEX_NOT_A_DIGIT || memchr(raw, '\\', n) == NULL)
    return st;
  size_t length;
  const char *decoded = amddwarf__snapshot_string(v, scratch, &length);
  return decoded ? amddwarf__snapshot_hex(decoded, length, out, size) : SNAPSHOT_HEX_NO_MEMORY;
}

const char *amddwarf__snapshot_string(const snapshot_value *v, snapshot_scratch *scratch,
                                     size_t *length)
{
  if (v->json != NULL) {
    *length = json_string_length(v->json);
    return json_string_value(v->json);
  }
  char *out = scratch_room(scratch, v->end - v->begin + 1);
  if (out == NULL)
    return NULL;
  *length = amddwarf__json_text_unescape(v->text, v->begin, v->end, out, v->end - v->begin);
  out[*length] = '\0';
  return out;
}

amddwarf_status amddwarf__snapshot_uint(const snapshot_value *v, uint64_t max, const char *path,
                                       amddwarf_status status, amddwarf_error *err,
                                       uint64_t *out)
{
  if (v->json != NULL || v->kind == SNAPSHOT_MISSING)
    return amddwarf__json_uint(v->json, max, path, status, err, out);
  const char *text = v->text;
  /* The common forms read here; every other (and every failure) by
     common/json_int.c over the value parsed alone, for its exact message. */
  if (v->kind == SNAPSHOT_INTEGER && text[v->begin] != '-') {
    uint64_t value = 0;
    for (size_t p = v->begin; p < v->end; p++)
      value = value * 10 + (uint64_t)(text[p] - '0'); /* checked: below 2^63 */
    if (value <= max) {
      *out = value;
      return AMDDWARF_OK;
    }
  } else if (v->kind == SNAPSHOT_STRING && v->end - v->begin < 66 &&
             memchr(text + v->begin + 1, '\\', v->end - v->begin - 2) == NULL) {
    char copy[66];
    memcpy(copy, text + v->begin + 1, v->end - v->begin - 2);
    copy[v->end - v->begin - 2] = '\0';
    return amddwarf__json_uint_text(copy, max, path, status, err, out);
  }
  json_t *alone = json_loadb(text + v->begin, v->end - v->begin, JSON_DECODE_ANY, NULL);
  if (alone == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  amddwarf_status st = amddwarf__json_uint(alone, max, path, status, err, out);
  json_decref(alone);
  return st;
}

/* ---- Hex ---- */

/* A character's meaning in hex text: HEX_DIGIT | its value, HEX_SKIP, or 0
   (not allowed). */
enum { HEX_DIGIT = 0x10, HEX_SKIP = 0x20 };
static const uint8_t hex_table[256] = {
    ['0'] = HEX_DIGIT | 0,  ['1'] = HEX_DIGIT | 1,  ['2'] = HEX_DIGIT | 2,
    ['3'] = HEX_DIGIT | 3,  ['4'] = HEX_DIGIT | 4,  ['5'] = HEX_DIGIT | 5,
    ['6'] = HEX_DIGIT | 6,  ['7'] = HEX_DIGIT | 7,  ['8'] = HEX_DIGIT | 8,
    ['9'] = HEX_DIGIT | 9,  ['a'] = HEX_DIGIT | 10, ['b'] = HEX_DIGIT | 11,
    ['c'] = HEX_DIGIT | 12, ['d'] = HEX_DIGIT | 13, ['e'] = HEX_DIGIT | 14,
    ['f'] = HEX_DIGIT | 15, ['A'] = HEX_DIGIT | 10, ['B'] = HEX_DIGIT | 11,
    ['C'] = HEX_DIGIT | 12, ['D'] = HEX_DIGIT | 13, ['E'] = HEX_DIGIT | 14,
    ['F'] = HEX_DIGIT | 15, [' '] = HEX_SKIP,       ['_'] = HEX_SKIP,
};

#define HEX_ONES UINT64_C(0x0101010101010101)
#define HEX_HIGHS UINT64_C(0x8080808080808080)

/* Bytes of W in [LO, HI], as the high bit of each byte (every byte of W
   below 0x80, so that no sum carries into the next byte). */
static inline uint64_t bytes_within(uint64_t w, unsigned lo, unsigned hi)
{
  return (w + HEX_ONES * (0x80 - lo)) & ~(w + HEX_ONES * (0x7f - hi)) & HEX_HIGHS;
}

/* Eight hex digits at P into four bytes at OUT, all eight bytes at once:
   0 (nothing written) when one of them is not a digit. The value of a
   digit is its low four bits, plus 9 for a letter (0x40 set). */
static inline int hex8(const unsigned char *p, uint8_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t w;
  memcpy(&w, p, 8);
  uint64_t lower = w | HEX_ONES * 0x20;
  if ((w & HEX_HIGHS) != 0 ||
      (bytes_within(w, '0', '9') | bytes_within(lower, 'a', 'f')) != HEX_HIGHS)
    return 0;
  uint64_t nibbles = (w & HEX_ONES * 0x0f) + 9 * ((w >> 6) & HEX_ONES);
  /* Byte 2i becomes digit 2i << 4 | digit 2i+1; then bytes 0, 2, 4, 6 packed. */
  uint64_t pairs = ((nibbles << 4) | (nibbles >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
  pairs = (pairs | pairs >> 8) & UINT64_C(0x0000ffff0000ffff);
  pairs = (pairs | pairs >> 16) & UINT64_C(0xffffffff);
  uint32_t four = (uint32_t)pairs;
  memcpy(out, &four, 4);
  return 1;
#else
  uint8_t t[8];
  for (int i = 0; i < 8; i++)
    t[i] = hex_table[p[i]];
  if ((t[0] & t[1] & t[2] & t[3] & t[4] & t[5] & t[6] & t[7] & HEX_DIGIT) == 0)
    return 0;
  for (int i = 0; i < 4; i++)
    out[i] = (uint8_t)((t[2 * i] & 15) << 4 | (t[2 * i + 1] & 15));
  return 1;
#endif
}

/* Sixteen hex digits at P into eight bytes at OUT (SSE2; else as two
   times eight): 0 (nothing written) when one of them is not a digit. */
static inline int hex16(const unsigned char *p, uint8_t *out)
{
#if defined(__SSE2__)
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
  __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
  /* Signed compares: a byte from 0x80 up is negative, in neither range. */
  __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                 _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
  if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff)
    return 0;
  __m128i nibbles = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
                                 _mm_and_si128(letter, _mm_set1_epi8(9)));
  /* Each 16-bit lane holds a pair, its first digit in the low byte. */
  __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibbles, _mm_set1_epi16(0xff)), 4),
                               _mm_srli_epi16(nibbles, 8));
  _mm_storel_epi64((__m128i *)(void *)out, _mm_packus_epi16(pairs, pairs));
  return 1;
#else
  uint8_t first[4];
  if (!hex8(p, first) || !hex8(p + 8, out + 4))
    return 0;
  memcpy(out, first, 4);
  return 1;
#endif
}

snapshot_hex_status amddwarf__snapshot_hex(const char *chars, size_t n, uint8_t *out,
                                          size_t *size)
{
  const unsigned char *p = (const unsigned char *)chars, *end = p + n;
  if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  size_t bytes = 0;
  int high = -1; /* the first digit of a pair, while the second is awaited */
  while (p < end) {
    /* Sixteen or eight digits at a time while no pair is half read. */
    while (high < 0 && end - p >= 16 && hex16(p, out + bytes)) {
      bytes += 8;
      p += 16;
    }
    while (high < 0 && end - p >= 8 && hex8(p, out + bytes)) {
      bytes += 4;
      p += 8;
    }
    if (p == end)
      break;
    uint8_t t = hex_table[*p++];
    if (t & HEX_DIGIT) {
      if (high < 0) {
        high = t & 15;
      } else {
        out[bytes++] = (uint8_t)(high << 4 | (t & 15));
        high = -1;
      }
    } else if (t != HEX_SKIP) {
      return SNAPSHOT_HEX_NOT_A_DIGIT;
    }
  }
  *size = bytes;
  return high < 0 ? SNAPSHOT_HEX_OK : SNAPSHOT_HEX_ODD;
}

int amddwarf__snapshot_hex_deferred(const snapshot_value *v, const char **digits, size_t *count)
{
  if (v->json != NULL || v->kind != SNAPSHOT_STRING)
    return 0;
  const char *p = v->text + v->begin + 1;
  size_t n = v->end - v->begin - 2;
  /* A long string of hex digits alone was found so by the check. */
  const json_text_container *known = amddwarf__json_text_container(v->index, v->begin);
  if (known == NULL || !known->hex_digits) {
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
      p += 2;
      n -= 2;
    }
    if (amddwarf__json_text_hex_run(p, 0, n) != n)
      return 0;
  }
  if (n % 2 != 0)
    return 0;
  *digits = p;
  *count = n;
  return 1;
}

size_t amddwarf__snapshot_hex_fault(const snapshot_value *v)
{
  if (v->json != NULL || v->kind != SNAPSHOT_STRING)
    return SIZE_MAX;
  const char *p = v->text + v->begin + 1;
  size_t n = v->end - v->begin - 2;
  if (memchr(p, '\\', n) != NULL)
    return SIZE_MAX; /* its characters are not its bytes in the text */
  size_t i = n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 2 : 0;
  for (; i < n; i++)
    if (hex_table[(unsigned char)p[i]] == 0)
      return v->begin + 1 + i;
  return SIZE_MAX;
}
