/* Runs the conformance vectors of specs/conformance/ (every .json file) (format in
 * specs/conformance/README.md): each case evaluates an expression against a
 * snapshot and compares the result (in the JSON shape of specs/eval-json.md,
 * members given in "expect" must match exactly), the error status, and reads
 * through the resulting location. */
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

static json_t *location_json(const amddwarf_location *loc);

static json_t *hex_json(const uint8_t *bytes, size_t size)
{
  char *text = malloc(size * 2 + 1);
  for (size_t i = 0; i < size; i++)
    snprintf(text + 2 * i, 3, "%02x", bytes[i]);
  text[size * 2] = '\0';
  json_t *j = json_string(text);
  free(text);
  return j;
}

static json_t *location_json(const amddwarf_location *loc)
{
  json_t *o = json_object();
  char name[64];
  json_object_set_new(o, "kind", json_string(amddwarf_location_kind_name(loc->kind)));
  json_int_t bit_offset = (json_int_t)(loc->byte_offset * 8 + loc->bit);
  switch (loc->kind) {
  case AMDDWARF_LOCATION_UNDEFINED:
    break;
  case AMDDWARF_LOCATION_MEMORY:
    amddwarf_aspace_name(loc->u.memory.aspace, name, sizeof name);
    json_object_set_new(o, "address_space", json_integer(loc->u.memory.aspace));
    json_object_set_new(o, "address_space_name", json_string(name));
    json_object_set_new(o, "bit_offset", json_integer(bit_offset));
    break;
  case AMDDWARF_LOCATION_REGISTER:
    amddwarf_amdgpu_register_name(loc->u.reg.regno, AMDDWARF_REGISTER_DWARF_NAME, name, sizeof name);
    json_object_set_new(o, "register", json_integer(loc->u.reg.regno));
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "bit_offset", json_integer(bit_offset));
    break;
  case AMDDWARF_LOCATION_IMPLICIT:
    json_object_set_new(o, "bytes", hex_json(loc->u.implicit.bytes,
                                             (size_t)((loc->u.implicit.bit_size + 7) / 8)));
    json_object_set_new(o, "bit_offset", json_integer(bit_offset));
    break;
  case AMDDWARF_LOCATION_IMPLICIT_POINTER:
    json_object_set_new(o, "die", json_integer((json_int_t)loc->u.implicit_pointer.die));
    json_object_set_new(o, "displacement", json_integer(loc->u.implicit_pointer.displacement));
    json_object_set_new(o, "address_space", json_integer(loc->u.implicit_pointer.aspace));
    break;
  case AMDDWARF_LOCATION_COMPOSITE: {
    json_object_set_new(o, "bit_offset", json_integer(bit_offset));
    json_t *parts = json_array();
    for (uint32_t i = 0; i < loc->u.composite.count; i++) {
      json_t *p = json_object();
      json_object_set_new(p, "bit_size", json_integer((json_int_t)loc->u.composite.parts[i].bit_size));
      json_object_set_new(p, "location", location_json(&loc->u.composite.parts[i].location));
      json_array_append_new(parts, p);
    }
    json_object_set_new(o, "parts", parts);
    break;
  }
  }
  return o;
}

static json_t *value_json(const amddwarf_value *v)
{
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(v->is_implicit_pointer ? "implicit_pointer_value" : "value"));
  json_t *type = json_object();
  json_object_set_new(type, "encoding", json_string(amddwarf_encoding_name(v->type.encoding)));
  json_object_set_new(type, "bit_size", json_integer(v->type.bit_size));
  json_object_set_new(type, "vector", json_integer(v->type.count));
  json_object_set_new(o, "type", type);
  if (!v->is_implicit_pointer)
    json_object_set_new(o, "bytes", hex_json(amddwarf_value_bytes(v), amddwarf_value_size(v)));
  return o;
}

/* Every member of EXPECT equals the same member of ACTUAL (recursively for
   objects; arrays and scalars compare exactly). */
static int matches(const json_t *expect, const json_t *actual)
{
  if (json_is_object(expect)) {
    const char *key;
    json_t *value;
    if (!json_is_object(actual))
      return 0;
    json_object_foreach((json_t *)expect, key, value) {
      if (!matches(value, json_object_get(actual, key)))
        return 0;
    }
    return 1;
  }
  return json_equal(expect, actual);
}

static int hex_bytes(const char *text, uint8_t *out, size_t cap, size_t *n)
{
  *n = 0;
  for (const char *p = text; p[0] && p[1]; p += 2) {
    unsigned v;
    if (sscanf(p, "%2x", &v) != 1 || *n >= cap)
      return -1;
    out[(*n)++] = (uint8_t)v;
  }
  return 0;
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
  json_t *actual = result.kind == AMDDWARF_ENTRY_LOCATION ? location_json(&result.location)
                                                         : value_json(&result.value);
  const json_t *expect = json_object_get(c, "expect");
  if (expect && !matches(expect, actual)) {
    char *a = json_dumps(actual, JSON_COMPACT);
    fail_case(file, name, "result %s", a);
    free(a);
  }
  json_decref(actual);
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
    json_t *got = hex_json(buf, (size_t)((bits + 7) / 8));
    if (!json_equal(got, json_object_get(rd, "hex")))
      fail_case(file, name, "read at %llu gave %s", (unsigned long long)off, json_string_value(got));
    json_decref(got);
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
