/* The one-pass index of a stop document (stop_scan.h). The top-level
 * object and each element of "waves" are read member by member; every other
 * value is skipped by matching its brackets and strings, the strings found
 * with memchr, so the pass costs little more than reading the bytes. Each
 * wave's snapshot is checked by the strict reader of snapshot_text.c as
 * soon as the pass reaches its end, while its bytes are in the caches; the
 * long strings of hex digits alone in it (its memory), which this pass
 * checks and records, the strict check passes over. */
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include <amddwarf/allocator.h>

#include "common/error.h"
#include "common/mem.h"
#include "expr/stop_scan.h"

/* Deeper nesting is refused, as jansson refuses it (its parser's limit). */
enum { SCAN_MAX_DEPTH = 2048 };

typedef struct scanner {
  const char *text;
  size_t size, at;
  const char *name;
  amddwarf_error *err;
  /* The last member name read, its escapes decoded (at most 15 bytes: no
     longer name is one the index reads). */
  char key[16];
  size_t key_length;
  /* While a wave's snapshot is passed over: where its long strings of hex
     digits alone are recorded (NULL otherwise). */
  stop_scan_result *hex;
  const amddwarf_allocator *alloc;
} scanner;

static amddwarf_status scan_fail(scanner *s, size_t offset, const char *what)
{
  return amddwarf__fail(s->err, AMDDWARF_E_BAD_JSON, offset, "%s: byte %zu: %s", s->name, offset,
                        what);
}

static void skip_space(scanner *s)
{
  while (s->at < s->size) {
    char c = s->text[s->at];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      return;
    s->at++;
  }
}

/* S->at is on a '"': moves past the closing quote. */
static amddwarf_status skip_string(scanner *s)
{
  size_t open = s->at;
  size_t from = s->at + 1;
  if (s->hex != NULL) {
    /* In a snapshot, a string's leading hex digits (a memory region's)
       are passed as the strict check passes them; a long string that is
       nothing else is recorded. Hex digits hold no quote. */
    from = amddwarf__json_text_hex_run(s->text, from, s->size);
    if (from < s->size && s->text[from] == '"' && from + 1 - open >= JSON_TEXT_LONG_STRING) {
      stop_scan_result *r = s->hex;
      if (amddwarf__mem_reserve(s->alloc, (void **)&r->hex_strings, &r->hex_capacity,
                                r->hex_count + 1, sizeof *r->hex_strings) != 0)
        return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
      r->hex_strings[r->hex_count++] = (json_text_range){open, from + 1};
      s->at = from + 1;
      return AMDDWARF_OK;
    }
  }
  for (;;) {
    const char *q = from < s->size ? memchr(s->text + from, '"', s->size - from) : NULL;
    if (!q)
      return scan_fail(s, open, "a string that does not end");
    size_t quote = (size_t)(q - s->text);
    /* The quote ends the string unless an odd run of backslashes escapes it. */
    size_t slashes = 0;
    while (quote - slashes > open + 1 && s->text[quote - slashes - 1] == '\\')
      slashes++;
    from = quote + 1;
    if (slashes % 2 == 0) {
      s->at = from;
      return AMDDWARF_OK;
    }
  }
}

static int is_scalar_end(char c)
{
  return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == '"' || c == '[' || c == '{' || c == ':';
}

/* Moves S->at past one value, starting at it (no space before it). */
static amddwarf_status skip_value(scanner *s)
{
  if (s->at >= s->size)
    return scan_fail(s, s->at, "a value is missing (the document ends)");
  char c = s->text[s->at];
  if (c == '"')
    return skip_string(s);
  if (c != '[' && c != '{') {
    size_t begin = s->at;
    while (s->at < s->size && !is_scalar_end(s->text[s->at]))
      s->at++;
    return s->at > begin ? AMDDWARF_OK : scan_fail(s, begin, "a value is expected here");
  }
  char open[SCAN_MAX_DEPTH];
  size_t depth = 0;
  while (s->at < s->size) {
    c = s->text[s->at];
    if (c == '"') {
      amddwarf_status st = skip_string(s);
      if (st != AMDDWARF_OK)
        return st;
      continue;
    }
    if (c == '[' || c == '{') {
      if (depth == SCAN_MAX_DEPTH)
        return scan_fail(s, s->at, "brackets nested too deeply");
      open[depth++] = c;
    } else if (c == ']' || c == '}') {
      if (depth == 0 || open[depth - 1] != (c == ']' ? '[' : '{'))
        return scan_fail(s, s->at, "a closing bracket that matches no opening one");
      if (--depth == 0) {
        s->at++;
        return AMDDWARF_OK;
      }
    }
    s->at++;
  }
  return scan_fail(s, s->at, "an array or object that does not end");
}

/* The member name at S->at (a string), as a range of the text without its
   quotes, then past the ':' and the space after it. */
static amddwarf_status member_name(scanner *s, stop_scan_range *key)
{
  if (s->at >= s->size || s->text[s->at] != '"')
    return scan_fail(s, s->at, "a member name (a string) is expected here");
  key->begin = s->at + 1;
  amddwarf_status st = skip_string(s);
  if (st != AMDDWARF_OK)
    return st;
  key->end = s->at - 1;
  size_t n = key->end - key->begin;
  s->key_length = SIZE_MAX;
  if (memchr(s->text + key->begin, '\\', n) == NULL) {
    if (n < sizeof s->key) {
      memcpy(s->key, s->text + key->begin, n);
      s->key_length = n;
    }
  } else {
    /* An escaped name ("w\u0061ves") is the name it decodes to. */
    json_t *decoded = json_loadb(s->text + key->begin - 1, n + 2, JSON_DECODE_ANY, NULL);
    if (!decoded)
      return scan_fail(s, key->begin - 1, "a member name that is not a valid string");
    if (json_string_length(decoded) < sizeof s->key) {
      s->key_length = json_string_length(decoded);
      memcpy(s->key, json_string_value(decoded), s->key_length);
    }
    json_decref(decoded);
  }
  skip_space(s);
  if (s->at >= s->size || s->text[s->at] != ':')
    return scan_fail(s, s->at, "':' is expected after a member name");
  s->at++;
  skip_space(s);
  return AMDDWARF_OK;
}

/* Whether the last member name read is NAME. */
static int key_is(const scanner *s, const char *name)
{
  size_t n = strlen(name);
  return s->key_length == n && memcmp(s->key, name, n) == 0;
}

/* After a member's value: ',' (true in *MORE) or the object's '}'. */
static amddwarf_status member_separator(scanner *s, char close, int *more)
{
  skip_space(s);
  if (s->at < s->size && s->text[s->at] == ',') {
    s->at++;
    skip_space(s);
    *more = 1;
    return AMDDWARF_OK;
  }
  if (s->at < s->size && s->text[s->at] == close) {
    s->at++;
    *more = 0;
    return AMDDWARF_OK;
  }
  return scan_fail(s, s->at, close == '}' ? "',' or '}' is expected here"
                                          : "',' or ']' is expected here");
}

/* The value of a member the index keeps: its range, refused when the
   object has the member twice (the document's parser refuses duplicates). */
static amddwarf_status keep_value(scanner *s, stop_scan_range key, stop_scan_range *out)
{
  if (out->end != out->begin)
    return amddwarf__fail(s->err, AMDDWARF_E_BAD_JSON, key.begin - 1,
                          "%s: byte %zu: duplicate member '%.*s'", s->name, key.begin - 1,
                          (int)(key.end - key.begin), s->text + key.begin);
  out->begin = s->at;
  amddwarf_status st = skip_value(s);
  out->end = s->at;
  return st;
}

/* The strict check of W's snapshot, whose long hex strings R holds. */
static amddwarf_status check_snapshot(scanner *s, stop_scan_result *r, stop_scan_wave *w)
{
  stop_scan_check *c = &w->check;
  c->status = amddwarf__json_text_check_known(
      s->text, w->snapshot.begin, w->snapshot.end, r->hex_count ? r->hex_strings : NULL,
      r->hex_count, s->alloc, &c->index, &c->fault, &c->why);
  r->hex_count = 0;
  if (c->status == AMDDWARF_OK) {
    amddwarf__json_text_index_shrink(&c->index);
    return AMDDWARF_OK;
  }
  amddwarf__json_text_index_release(&c->index);
  if (c->status == AMDDWARF_E_NO_MEMORY)
    return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
  return AMDDWARF_OK;
}

/* One element of "waves", at S->at; R collects its snapshot's hex strings. */
static amddwarf_status scan_wave(scanner *s, size_t index, stop_scan_result *r,
                                 stop_scan_wave *w)
{
  memset(w, 0, sizeof *w);
  w->entry.begin = s->at;
  if (s->at >= s->size || s->text[s->at] != '{') {
    amddwarf_status st = skip_value(s);
    if (st != AMDDWARF_OK)
      return st;
    return amddwarf__fail(s->err, AMDDWARF_E_SNAPSHOT_SCHEMA, w->entry.begin,
                          "%s waves[%zu] (byte %zu) must be an object {\"snapshot\": ...}",
                          s->name, index, w->entry.begin);
  }
  s->at++;
  skip_space(s);
  int more = s->at < s->size && s->text[s->at] != '}';
  if (!more)
    s->at++;
  while (more) {
    stop_scan_range key;
    amddwarf_status st = member_name(s, &key);
    if (st == AMDDWARF_OK && key_is(s, "snapshot")) {
      r->hex_count = 0;
      s->hex = r;
      st = keep_value(s, key, &w->snapshot);
      s->hex = NULL;
      if (st == AMDDWARF_OK)
        st = check_snapshot(s, r, w);
    } else if (st == AMDDWARF_OK)
      st = key_is(s, "work_group") ? keep_value(s, key, &w->work_group)
           : key_is(s, "wave_id")    ? keep_value(s, key, &w->wave_id)
                                          : skip_value(s);
    if (st == AMDDWARF_OK)
      st = member_separator(s, '}', &more);
    if (st != AMDDWARF_OK)
      return st;
  }
  w->entry.end = s->at;
  return AMDDWARF_OK;
}

static amddwarf_status scan_waves(scanner *s, const amddwarf_allocator *alloc,
                                  stop_scan_result *r)
{
  size_t begin = s->at;
  if (s->at >= s->size || s->text[s->at] != '[') {
    amddwarf_status st = skip_value(s);
    return st != AMDDWARF_OK ? st
                             : amddwarf__fail(s->err, AMDDWARF_E_SNAPSHOT_SCHEMA, begin,
                                              "%s: waves (byte %zu) must be an array", s->name,
                                              begin);
  }
  s->at++;
  skip_space(s);
  int more = s->at < s->size && s->text[s->at] != ']';
  if (!more)
    s->at++;
  while (more) {
    if (amddwarf__mem_reserve(alloc, (void **)&r->waves, &r->capacity, r->count + 1,
                              sizeof *r->waves) != 0)
      return amddwarf__fail(s->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "out of memory");
    amddwarf_status st = scan_wave(s, r->count, r, &r->waves[r->count]);
    if (st != AMDDWARF_OK) {
      /* Its snapshot may have been checked before a later member failed. */
      amddwarf__json_text_index_release(&r->waves[r->count].check.index);
      return st;
    }
    r->count++;
    if ((st = member_separator(s, ']', &more)) != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__stop_scan(const char *text, size_t size, const char *name,
                                   const amddwarf_allocator *alloc, stop_scan_result *out,
                                   amddwarf_error *err)
{
  memset(out, 0, sizeof *out);
  scanner s;
  memset(&s, 0, sizeof s);
  s.text = text;
  s.size = size;
  s.name = name;
  s.err = err;
  s.alloc = alloc;
  stop_scan_range waves = {0, 0};
  amddwarf_status st = AMDDWARF_OK;
  skip_space(&s);
  if (s.at >= size || text[s.at] != '{') {
    st = amddwarf__fail(err, AMDDWARF_E_SNAPSHOT_SCHEMA, s.at,
                        "%s must be a JSON object: a stop {\"waves\": [...]} or a snapshot", name);
    goto done;
  }
  s.at++;
  skip_space(&s);
  int more = s.at < size && text[s.at] != '}';
  if (!more)
    s.at++;
  while (more && st == AMDDWARF_OK) {
    stop_scan_range key;
    st = member_name(&s, &key);
    if (st != AMDDWARF_OK)
      break;
    if (key_is(&s, "waves")) {
      if (out->has_waves)
        st = keep_value(&s, key, &waves); /* refuses the second one */
      else {
        out->has_waves = 1;
        waves.begin = s.at;
        st = scan_waves(&s, alloc, out);
        waves.end = s.at;
      }
    } else if (key_is(&s, "code_objects")) {
      st = keep_value(&s, key, &out->code_objects);
    } else {
      st = skip_value(&s);
    }
    if (st == AMDDWARF_OK)
      st = member_separator(&s, '}', &more);
  }
  if (st == AMDDWARF_OK) {
    skip_space(&s);
    if (s.at != size)
      st = scan_fail(&s, s.at, "text after the document's object");
  }
done:
  if (st != AMDDWARF_OK)
    amddwarf__stop_scan_release(alloc, out);
  return st;
}

void amddwarf__stop_scan_release(const amddwarf_allocator *alloc, stop_scan_result *r)
{
  for (size_t i = 0; i < r->count; i++)
    amddwarf__json_text_index_release(&r->waves[i].check.index);
  amddwarf__mem_free(alloc, r->waves, r->capacity * sizeof *r->waves);
  amddwarf__mem_free(alloc, r->hex_strings, r->hex_capacity * sizeof *r->hex_strings);
  memset(r, 0, sizeof *r);
}
