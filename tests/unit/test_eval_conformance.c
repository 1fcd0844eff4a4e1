/* Runs the conformance vectors of specs/conformance/ (every .json file) (format in
 * specs/conformance/README.md): each case evaluates an expression against a
 * snapshot and compares the fields of the result struct that "expect" names
 * (exactly), the error status, and reads through the resulting location. The
 * result is compared field by field, not rendered: the test shares no
 * printing code with the CLI. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

/* ---- comparing a result with "expect" ----
 *
 * Each member of "expect" names a field of the library's result struct
 * (amddwarf_location, amddwarf_value), or the name that the library gives a
 * field's number (aspace_name, register_name), and is compared with it
 * exactly. A member that names no field of the result's kind is a mismatch.
 * The parts of a composite are compared in full: each part's location must
 * name every member of its kind. */

enum { WHY_SIZE = 256 };

static int mismatch(char *why, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, WHY_SIZE, fmt, ap);
  va_end(ap);
  return 0;
}

static int hex_digit(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* J as an unsigned 64-bit number: a non-negative integer, or "0x" and up to
   16 hex digits (for values past INT64_MAX). */
static int json_u64(const json_t *j, uint64_t *out)
{
  if (json_is_integer(j)) {
    if (json_integer_value(j) < 0)
      return 0;
    *out = (uint64_t)json_integer_value(j);
    return 1;
  }
  const char *text = json_string_value(j);
  if (!text || strncmp(text, "0x", 2) != 0 || !text[2] || strlen(text) > 18)
    return 0;
  uint64_t v = 0;
  for (const char *p = text + 2; *p; p++) {
    int digit = hex_digit(*p);
    if (digit < 0)
      return 0;
    v = v << 4 | (uint64_t)digit;
  }
  *out = v;
  return 1;
}

static int u64_matches(const char *member, const json_t *expect, uint64_t actual, char *why)
{
  uint64_t want;
  if (!json_u64(expect, &want))
    return mismatch(why, "%s: not an unsigned number", member);
  if (want != actual)
    return mismatch(why, "%s is %llu, expected %llu", member, (unsigned long long)actual,
                    (unsigned long long)want);
  return 1;
}

static int s64_matches(const char *member, const json_t *expect, int64_t actual, char *why)
{
  if (!json_is_integer(expect))
    return mismatch(why, "%s: not an integer", member);
  if (json_integer_value(expect) != actual)
    return mismatch(why, "%s is %lld, expected %lld", member, (long long)actual,
                    (long long)json_integer_value(expect));
  return 1;
}

static int string_matches(const char *member, const json_t *expect, const char *actual, char *why)
{
  if (!json_is_string(expect) || strcmp(json_string_value(expect), actual) != 0)
    return mismatch(why, "%s is \"%s\"", member, actual);
  return 1;
}

/* TEXT's pairs of hex digits into OUT; -1 for anything else or too many. */
static int hex_bytes(const char *text, uint8_t *out, size_t cap, size_t *n)
{
  *n = 0;
  for (const char *p = text; *p; p += 2) {
    int high = hex_digit(p[0]), low = p[1] ? hex_digit(p[1]) : -1;
    if (high < 0 || low < 0 || *n >= cap)
      return -1;
    out[(*n)++] = (uint8_t)(high << 4 | low);
  }
  return 0;
}

static int bytes_match(const char *member, const json_t *expect, const uint8_t *actual,
                       size_t size, char *why)
{
  uint8_t want[1024];
  size_t n = 0;
  if (!json_is_string(expect) || hex_bytes(json_string_value(expect), want, sizeof want, &n) != 0)
    return mismatch(why, "%s: not a hex string", member);
  if (n != size || memcmp(want, actual, size) != 0)
    return mismatch(why, "%s differ (%zu bytes, expected %zu)", member, size, n);
  return 1;
}

/* Every member a location of KIND has. */
static const char *const *location_members(amddwarf_location_kind kind)
{
  static const char *const undefined[] = {"kind", NULL};
  static const char *const memory[] = {"kind", "aspace", "aspace_name", "byte_offset", "bit", NULL};
  static const char *const reg[] = {"kind", "regno", "register_name", "byte_offset", "bit", NULL};
  static const char *const implicit[] = {"kind", "bytes", "byte_offset", "bit", NULL};
  static const char *const implicit_pointer[] = {"kind", "die", "displacement", "aspace", NULL};
  static const char *const composite[] = {"kind", "byte_offset", "bit", "parts", NULL};
  switch (kind) {
  case AMDDWARF_LOCATION_UNDEFINED: return undefined;
  case AMDDWARF_LOCATION_MEMORY: return memory;
  case AMDDWARF_LOCATION_REGISTER: return reg;
  case AMDDWARF_LOCATION_IMPLICIT: return implicit;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER: return implicit_pointer;
  case AMDDWARF_LOCATION_COMPOSITE: return composite;
  }
  return undefined;
}

static int location_matches(const json_t *expect, const amddwarf_location *loc, int in_full,
                            char *why);

static int parts_match(const json_t *expect, const amddwarf_location *loc, char *why)
{
  if (!json_is_array(expect))
    return mismatch(why, "parts: not an array");
  if (json_array_size(expect) != loc->u.composite.count)
    return mismatch(why, "%u parts, expected %zu", (unsigned)loc->u.composite.count,
                    json_array_size(expect));
  size_t i;
  const json_t *part;
  json_array_foreach(expect, i, part) {
    const amddwarf_composite_part *p = &loc->u.composite.parts[i];
    char inner[WHY_SIZE];
    if (json_object_size(part) != 2 || !json_object_get(part, "location"))
      return mismatch(why, "part %zu: expected exactly bit_size and location", i);
    if (!u64_matches("bit_size", json_object_get(part, "bit_size"), p->bit_size, inner) ||
        !location_matches(json_object_get(part, "location"), &p->location, 1, inner))
      return mismatch(why, "part %zu: %s", i, inner);
  }
  return 1;
}

static int location_member_matches(const char *member, const json_t *expect,
                                   const amddwarf_location *loc, char *why)
{
  char name[64];
  amddwarf_location_kind kind = loc->kind;
  int has_offset = kind != AMDDWARF_LOCATION_UNDEFINED &&
                   kind != AMDDWARF_LOCATION_IMPLICIT_POINTER;
  if (strcmp(member, "kind") == 0)
    return string_matches(member, expect, amddwarf_location_kind_name(kind), why);
  if (has_offset && strcmp(member, "byte_offset") == 0)
    return u64_matches(member, expect, loc->byte_offset, why);
  if (has_offset && strcmp(member, "bit") == 0)
    return u64_matches(member, expect, loc->bit, why);
  if (kind == AMDDWARF_LOCATION_MEMORY && strcmp(member, "aspace") == 0)
    return u64_matches(member, expect, loc->u.memory.aspace, why);
  if (kind == AMDDWARF_LOCATION_MEMORY && strcmp(member, "aspace_name") == 0) {
    amddwarf_aspace_name(loc->u.memory.aspace, name, sizeof name);
    return string_matches(member, expect, name, why);
  }
  if (kind == AMDDWARF_LOCATION_REGISTER && strcmp(member, "regno") == 0)
    return u64_matches(member, expect, loc->u.reg.regno, why);
  if (kind == AMDDWARF_LOCATION_REGISTER && strcmp(member, "register_name") == 0) {
    amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name,
                                  sizeof name);
    return string_matches(member, expect, name, why);
  }
  if (kind == AMDDWARF_LOCATION_IMPLICIT && strcmp(member, "bytes") == 0)
    return bytes_match(member, expect, loc->u.implicit.bytes,
                       (size_t)((loc->u.implicit.bit_size + 7) / 8), why);
  if (kind == AMDDWARF_LOCATION_IMPLICIT_POINTER && strcmp(member, "die") == 0)
    return u64_matches(member, expect, loc->u.implicit_pointer.die, why);
  if (kind == AMDDWARF_LOCATION_IMPLICIT_POINTER && strcmp(member, "displacement") == 0)
    return s64_matches(member, expect, loc->u.implicit_pointer.displacement, why);
  if (kind == AMDDWARF_LOCATION_IMPLICIT_POINTER && strcmp(member, "aspace") == 0)
    return u64_matches(member, expect, loc->u.implicit_pointer.aspace, why);
  if (kind == AMDDWARF_LOCATION_COMPOSITE && strcmp(member, "parts") == 0)
    return parts_match(expect, loc, why);
  return mismatch(why, "a %s location has no member %s", amddwarf_location_kind_name(kind),
                  member);
}

/* IN_FULL: EXPECT must also name every member of LOC's kind. */
static int location_matches(const json_t *expect, const amddwarf_location *loc, int in_full,
                            char *why)
{
  if (!json_is_object(expect))
    return mismatch(why, "the expected location is not an object");
  const char *member;
  json_t *value;
  json_object_foreach((json_t *)expect, member, value) {
    if (!location_member_matches(member, value, loc, why))
      return 0;
  }
  for (const char *const *m = location_members(loc->kind); in_full && *m; m++)
    if (!json_object_get(expect, *m))
      return mismatch(why, "%s location: member %s not given",
                      amddwarf_location_kind_name(loc->kind), *m);
  return 1;
}

static int type_matches(const json_t *expect, const amddwarf_base_type *type, char *why)
{
  if (!json_is_object(expect))
    return mismatch(why, "type: not an object");
  const char *member;
  json_t *value;
  json_object_foreach((json_t *)expect, member, value) {
    int ok;
    if (strcmp(member, "encoding") == 0)
      ok = u64_matches("type.encoding", value, type->encoding, why);
    else if (strcmp(member, "bit_size") == 0)
      ok = u64_matches("type.bit_size", value, type->bit_size, why);
    else if (strcmp(member, "count") == 0)
      ok = u64_matches("type.count", value, type->count, why);
    else
      ok = mismatch(why, "a type has no member %s", member);
    if (!ok)
      return 0;
  }
  return 1;
}

static int value_matches(const json_t *expect, const amddwarf_value *v, char *why)
{
  if (!json_is_object(expect))
    return mismatch(why, "the expected value is not an object");
  const char *member;
  json_t *value;
  json_object_foreach((json_t *)expect, member, value) {
    int ok;
    if (strcmp(member, "is_implicit_pointer") == 0)
      ok = json_is_boolean(value) && json_is_true(value) == (v->is_implicit_pointer != 0)
               ? 1
               : mismatch(why, "is_implicit_pointer is %d", v->is_implicit_pointer);
    else if (strcmp(member, "type") == 0)
      ok = type_matches(value, &v->type, why);
    else if (strcmp(member, "bytes") == 0 && !v->is_implicit_pointer)
      ok = bytes_match(member, value, amddwarf_value_bytes(v), amddwarf_value_size(v), why);
    else
      ok = mismatch(why, "a value has no member %s", member);
    if (!ok)
      return 0;
  }
  return 1;
}

static int failures;

static void fail_case(const char *file, const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "FAIL %s: %s: ", file, name);
  vfprintf(stdout, fmt, ap);
  fprintf(stdout, "\n");
  va_end(ap);
  failures++;
}

static void run_case(const char *file, const json_t *snapshot, const json_t *c, unsigned *count)
{
  const char *name = json_string_value(json_object_get(c, "name"));
  json_t *snap_json = json_deep_copy(snapshot);
  json_t *patch = json_object_get(c, "snapshot_patch");
  if (patch)
    json_object_update(snap_json, patch);
  char *text = json_dumps(snap_json, 0);
  json_decref(snap_json);
  amddwarf_snapshot *snap = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_snapshot_load(text, strlen(text), NULL, &snap, &err);
  free(text);
  (*count)++;
  if (st != AMDDWARF_OK) {
    fail_case(file, name, "snapshot: %s", err.message);
    return;
  }
  amddwarf_target target;
  amddwarf_snapshot_target(snap, &target);
  amddwarf_eval_request req;
  amddwarf_eval_request_init(&req, &target);
  req.format.address_size = (uint8_t)amddwarf_snapshot_address_size(snap);
  const json_t *j;
  if ((j = json_object_get(c, "dialect")))
    assert_int_equal(amddwarf_dialect_from_name(json_string_value(j), &req.format.dialect), AMDDWARF_OK);
  if ((j = json_object_get(c, "lane")))
    req.lane = (uint32_t)json_integer_value(j);
  if ((j = json_object_get(c, "result")) && strcmp(json_string_value(j), "value") == 0)
    req.required = AMDDWARF_RESULT_VALUE;
  if ((j = json_object_get(c, "xderef")) && strcmp(json_string_value(j), "legacy") == 0)
    req.xderef = AMDDWARF_XDEREF_LEGACY;
  uint8_t bytes[4096];
  size_t size = 0;
  const json_t *expr = json_object_get(c, "expression");
  if (json_is_object(expr)) {
    if (hex_bytes(json_string_value(json_object_get(expr, "hex")), bytes, sizeof bytes, &size) != 0) {
      fail_case(file, name, "bad hex expression");
      goto done;
    }
  } else {
    st = amddwarf_expr_assemble(json_string_value(expr), &req.format,
                                amddwarf_snapshot_wave_size(snap), bytes, sizeof bytes, &size, &err);
    if (st != AMDDWARF_OK) {
      fail_case(file, name, "assembling: %s", err.message);
      goto done;
    }
  }
  amddwarf_eval *ev = NULL;
  assert_int_equal(amddwarf_eval_new(NULL, &ev, NULL), AMDDWARF_OK);
  amddwarf_entry result;
  st = amddwarf_eval_expr(ev, &req, bytes, size, &result, &err);
  const char *want_error = json_string_value(json_object_get(c, "error"));
  if (want_error) {
    if (st == AMDDWARF_OK || strcmp(amddwarf_status_name(st), want_error) != 0)
      fail_case(file, name, "expected error %s, got %s (%s)", want_error, amddwarf_status_name(st),
                st ? err.message : "");
    else if ((j = json_object_get(c, "error_offset")) && (json_int_t)err.offset != json_integer_value(j))
      fail_case(file, name, "error offset %llu, expected %lld", (unsigned long long)err.offset,
                (long long)json_integer_value(j));
    amddwarf_eval_free(ev);
    goto done;
  }
  if (st != AMDDWARF_OK) {
    fail_case(file, name, "%s: %s", amddwarf_status_name(st), err.message);
    amddwarf_eval_free(ev);
    goto done;
  }
  if (req.required == AMDDWARF_RESULT_VALUE && result.kind != AMDDWARF_ENTRY_VALUE)
    fail_case(file, name, "a value was required, the result is a location");
  const json_t *expect = json_object_get(c, "expect");
  char why[WHY_SIZE];
  if (expect && !(result.kind == AMDDWARF_ENTRY_LOCATION
                      ? location_matches(expect, &result.location, 0, why)
                      : value_matches(expect, &result.value, why)))
    fail_case(file, name, "result: %s", why);
  size_t i;
  const json_t *rd;
  json_array_foreach(json_object_get(c, "reads"), i, rd) {
    uint64_t off = (uint64_t)json_integer_value(json_object_get(rd, "bit_offset"));
    uint64_t bits = (uint64_t)json_integer_value(json_object_get(rd, "bits"));
    uint8_t buf[1024] = {0};
    assert_true(bits <= sizeof buf * 8);
    st = amddwarf_location_read(ev, &req, &result.location, off, bits, buf, &err);
    const char *rerr = json_string_value(json_object_get(rd, "error"));
    if (rerr) {
      if (st == AMDDWARF_OK || strcmp(amddwarf_status_name(st), rerr) != 0)
        fail_case(file, name, "read at %llu: expected %s, got %s", (unsigned long long)off, rerr,
                  amddwarf_status_name(st));
      continue;
    }
    if (st != AMDDWARF_OK) {
      fail_case(file, name, "read at %llu: %s", (unsigned long long)off, err.message);
      continue;
    }
    if (!bytes_match("bytes read", json_object_get(rd, "hex"), buf, (size_t)((bits + 7) / 8), why))
      fail_case(file, name, "read at %llu: %s", (unsigned long long)off, why);
  }
  amddwarf_eval_free(ev);
done:
  amddwarf_snapshot_free(snap);
}

static void test_conformance_vectors(void **state)
{
  (void)state;
  const char *dir_path = AMDDWARF_SOURCE_DIR "/specs/conformance";
  DIR *dir = opendir(dir_path);
  assert_non_null(dir);
  struct dirent *de;
  unsigned files = 0, cases = 0;
  while ((de = readdir(dir)) != NULL) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir_path, de->d_name);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
      fail_case(de->d_name, "(file)", "%s line %d", jerr.text, jerr.line);
      continue;
    }
    files++;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
      run_case(de->d_name, json_object_get(doc, "snapshot"), c, &cases);
    json_decref(doc);
  }
  closedir(dir);
  printf("conformance: %u files, %u cases, %d failures\n", files, cases, failures);
  assert_true(files >= 2);
  assert_int_equal(failures, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conformance_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
