/* Containers of code objects (specs/containers.md), from inputs written here
 * byte by byte after the documented layouts (ClangOffloadBundler.rst, the
 * CompressedOffloadBundle header of OffloadBundler.cpp, OffloadBinary.h,
 * AMDGPUUsage's URI and target-ID grammars): what each reader lists, and
 * the error, offset and message of each malformed input. */
#define _DEFAULT_SOURCE /* mkstemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <zlib.h>
#include <zstd.h>

#include <amddwarf/amddwarf.h>

#include "elf_build.h"

/* ---- writing inputs ---- */

typedef struct blob {
  uint8_t *data;
  size_t len, cap;
} blob;

static void put(blob *b, const void *bytes, size_t n)
{
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2 + 64;
    b->data = realloc(b->data, b->cap);
    assert_non_null(b->data);
  }
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
}

static void put_le(blob *b, uint64_t v, unsigned n)
{
  uint8_t bytes[8];
  for (unsigned i = 0; i < n; ++i)
    bytes[i] = (uint8_t)(v >> (8 * i));
  put(b, bytes, n);
}

static void put_zeros(blob *b, size_t n)
{
  static const uint8_t zero[64];
  while (n > 0) {
    size_t k = n < sizeof zero ? n : sizeof zero;
    put(b, zero, k);
    n -= k;
  }
}

typedef struct entry_spec {
  const char *id;
  const char *bytes; /* NULL: size 0 */
} entry_spec;

/* An offload bundle: magic, count, (offset, size, id size, id) records,
   then each entry's bytes at an 8-aligned offset after the table. */
static blob bundle(const entry_spec *entries, size_t count)
{
  blob b = {0};
  put(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
  put_le(&b, count, 8);
  size_t table = 32;
  for (size_t i = 0; i < count; ++i)
    table += 24 + strlen(entries[i].id);
  size_t at = (table + 7) & ~(size_t)7;
  for (size_t i = 0; i < count; ++i) {
    size_t size = entries[i].bytes ? strlen(entries[i].bytes) : 0;
    put_le(&b, at, 8);
    put_le(&b, size, 8);
    put_le(&b, strlen(entries[i].id), 8);
    put(&b, entries[i].id, strlen(entries[i].id));
    at = (at + size + 7) & ~(size_t)7;
  }
  for (size_t i = 0; i < count; ++i) {
    put_zeros(&b, ((b.len + 7) & ~(size_t)7) - b.len);
    if (entries[i].bytes)
      put(&b, entries[i].bytes, strlen(entries[i].bytes));
  }
  return b;
}

/* A compressed bundle of version VERSION and METHOD (0 zlib, 1 zstd)
   holding PLAIN; the hash is the first 8 bytes of PLAIN's MD5. */
static blob ccob(const blob *plain, unsigned version, unsigned method)
{
  size_t cap = plain->len * 2 + 1024;
  uint8_t *packed = malloc(cap);
  size_t packed_size = cap;
  if (method == 0) {
    uLongf n = cap;
    assert_int_equal(compress2(packed, &n, plain->data, plain->len, 9), Z_OK);
    packed_size = n;
  } else {
    packed_size = ZSTD_compress(packed, cap, plain->data, plain->len, 3);
    assert_false(ZSTD_isError(packed_size));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned digest_size = 0;
  assert_int_equal(EVP_Digest(plain->data, plain->len, digest, &digest_size, EVP_md5(), NULL), 1);
  static const unsigned header_sizes[] = {0, 20, 24, 32};
  size_t total = header_sizes[version] + packed_size;
  blob b = {0};
  put(&b, "CCOB", 4);
  put_le(&b, version, 2);
  put_le(&b, method, 2);
  if (version == 1) {
    put_le(&b, plain->len, 4);
  } else if (version == 2) {
    put_le(&b, total, 4);
    put_le(&b, plain->len, 4);
  } else {
    put_le(&b, total, 8);
    put_le(&b, plain->len, 8);
  }
  put(&b, digest, 8);
  put(&b, packed, packed_size);
  free(packed);
  return b;
}

static amddwarf_container *open_ok(const blob *b)
{
  amddwarf_container *c = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_container_open_memory(b->data, b->len, "input", NULL, &c, &err);
  if (st != AMDDWARF_OK)
    fail_msg("open: %s: %s", amddwarf_status_name(st), err.message);
  return c;
}

/* Opening B fails with STATUS, at OFFSET, with a message holding TEXT. */
static void open_fails(const blob *b, amddwarf_status status, uint64_t offset, const char *text)
{
  amddwarf_container *c = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_container_open_memory(b->data, b->len, "input", NULL, &c, &err);
  if (st == AMDDWARF_OK) {
    /* a compressed bundle's payload fails when its bytes are asked for */
    const uint8_t *bytes;
    size_t size;
    st = amddwarf_container_entry_bytes(c, 0, &bytes, &size, &err);
    amddwarf_container_close(c);
  }
  if (st != status || err.offset != offset || strstr(err.message, text) == NULL)
    fail_msg("want %s at %llu with '%s'; got %s at %llu: %s", amddwarf_status_name(status),
             (unsigned long long)offset, text, amddwarf_status_name(st),
             (unsigned long long)err.offset, err.message);
}

static void assert_entry(amddwarf_container *c, size_t index, const char *id, const char *target,
                         const char *bytes)
{
  const amddwarf_container_entry *e = amddwarf_container_entry_at(c, index);
  assert_non_null(e);
  assert_int_equal(e->index, index);
  assert_string_equal(e->entry_id, id);
  assert_string_equal(e->target_id, target);
  const uint8_t *data = NULL;
  size_t size = 0;
  amddwarf_error err;
  amddwarf_status st = amddwarf_container_entry_bytes(c, index, &data, &size, &err);
  if (st != AMDDWARF_OK)
    fail_msg("entry %zu: %s", index, err.message);
  assert_int_equal(size, strlen(bytes));
  assert_memory_equal(data, bytes, size);
}

/* ---- entry IDs and target IDs ---- */

static void test_entry_id_split(void **state)
{
  (void)state;
  static const struct {
    const char *id, *kind, *triple, *target;
  } cases[] = {
      {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4", "amdgcn-amd-amdhsa", "gfx90a:xnack-"},
      {"hip-amdgcn-amd-amdhsa-gfx906", "hip", "amdgcn-amd-amdhsa", "gfx906"},
      {"hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", "hipv4", "amdgcn-amd-amdhsa", "gfx10-3-generic"},
      {"hip-amdgcn-amd-amdhsa-gfx10-3-generic", "hip", "amdgcn-amd-amdhsa", "gfx10-3-generic"},
      {"host-x86_64-unknown-linux-gnu", "host", "x86_64-unknown-linux-gnu", ""},
      {"host-x86_64-unknown-linux", "host", "x86_64-unknown-linux", ""},
      {"openmp-amdgcn-amd-amdhsa-gnu-gfx90a:sramecc+:xnack+", "openmp", "amdgcn-amd-amdhsa-gnu",
       "gfx90a:sramecc+:xnack+"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    amddwarf_entry_id_parts p;
    assert_int_equal(amddwarf_entry_id_split(cases[i].id, strlen(cases[i].id), &p, NULL),
                     AMDDWARF_OK);
    char kind[64], triple[64], target[64];
    snprintf(kind, sizeof kind, "%.*s", (int)p.kind_size, p.kind);
    snprintf(triple, sizeof triple, "%.*s", (int)p.triple_size, p.triple);
    snprintf(target, sizeof target, "%.*s", (int)p.target_id_size, p.target_id);
    assert_string_equal(kind, cases[i].kind);
    assert_string_equal(triple, cases[i].triple);
    assert_string_equal(target, cases[i].target);
  }
  amddwarf_entry_id_parts p;
  amddwarf_error err;
  assert_int_equal(amddwarf_entry_id_split("hip-amdgcn-amd", 14, &p, &err),
                   AMDDWARF_E_CONTAINER_BAD_TARGET_ID);
  assert_non_null(strstr(err.message, "3 dash-separated fields"));
  assert_int_equal(amddwarf_entry_id_split("hip--amd-amdhsa", 15, &p, &err),
                   AMDDWARF_E_CONTAINER_BAD_TARGET_ID);
}

static amddwarf_target_id tid(const char *text)
{
  amddwarf_target_id id;
  amddwarf_error err;
  if (amddwarf_target_id_parse(text, SIZE_MAX, &id, &err) != AMDDWARF_OK)
    fail_msg("%s: %s", text, err.message);
  return id;
}

static void test_target_ids(void **state)
{
  (void)state;
  amddwarf_target_id a = tid("gfx90a:sramecc-:xnack+");
  assert_string_equal(a.processor, "gfx90a");
  assert_int_equal(a.sramecc, AMDDWARF_FEATURE_OFF);
  assert_int_equal(a.xnack, AMDDWARF_FEATURE_ON);
  char text[64];
  /* the canonical order is sramecc before xnack, whatever the input's */
  amddwarf_target_id b = tid("gfx90a:xnack+:sramecc-");
  assert_int_equal(amddwarf_target_id_format(&b, text, sizeof text), 22);
  assert_string_equal(text, "gfx90a:sramecc-:xnack+");
  /* the matching rules of the issue and of clang's isCodeObjectCompatible */
  amddwarf_target_id any = tid("gfx90a"), minus = tid("gfx90a:xnack-"), plus = tid("gfx90a:xnack+");
  assert_true(amddwarf_target_id_matches(&any, &minus));
  assert_false(amddwarf_target_id_matches(&plus, &minus));
  assert_true(amddwarf_target_id_matches(&plus, &any));
  assert_true(amddwarf_target_id_matches(&minus, &minus));
  amddwarf_target_id other = tid("gfx908");
  assert_false(amddwarf_target_id_matches(&other, &any));
  amddwarf_target_id generic = tid("gfx10-3-generic");
  assert_string_equal(generic.processor, "gfx10-3-generic");
  static const struct {
    const char *text, *message;
    uint64_t offset;
  } bad[] = {
      {"gfx90a:foo+", "'foo+' at offset 7 is not", 7},
      {"gfx90a:xnack", "'xnack' at offset 7", 7},
      {"gfx90a:xnack+:xnack-", "xnack is named twice", 14},
      {":xnack+", "the processor name is empty", 0},
      {"GFX90A", "character 0 of the processor", 0},
      {"gfx90a:", "'' at offset 7", 7},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    amddwarf_target_id id;
    amddwarf_error err;
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_target_id_parse(bad[i].text, SIZE_MAX, &id, &err),
                     AMDDWARF_E_CONTAINER_BAD_TARGET_ID);
    if (strstr(err.message, bad[i].message) == NULL || err.offset != bad[i].offset)
      fail_msg("%s: %s (offset %llu)", bad[i].text, err.message, (unsigned long long)err.offset);
  }
}

/* ---- URIs ---- */

static void test_uri_parse(void **state)
{
  (void)state;
  amddwarf_uri uri;
  amddwarf_error err;
  assert_int_equal(amddwarf_uri_parse("file:///a/b%20c%23d#offset=0x10&size=020", NULL, &uri, &err),
                   AMDDWARF_OK);
  assert_int_equal(uri.kind, AMDDWARF_URI_FILE);
  assert_string_equal(uri.path, "/a/b c#d");
  assert_int_equal(uri.offset, 16);
  assert_int_equal(uri.size, 16); /* 020 is octal */
  assert_true(uri.has_offset && uri.has_size);
  amddwarf_uri_free(&uri, NULL);
  assert_int_equal(amddwarf_uri_parse("file://rel/x?size=7&offset=9", NULL, &uri, &err),
                   AMDDWARF_OK);
  assert_string_equal(uri.path, "rel/x");
  assert_int_equal(uri.offset, 9);
  assert_int_equal(uri.size, 7);
  amddwarf_uri_free(&uri, NULL);
  assert_int_equal(amddwarf_uri_parse("file:///x", NULL, &uri, &err), AMDDWARF_OK);
  assert_false(uri.has_offset || uri.has_size);
  amddwarf_uri_free(&uri, NULL);
  assert_int_equal(amddwarf_uri_parse("memory://4242#offset=0x7f0000001000&size=4096", NULL, &uri,
                                      &err),
                   AMDDWARF_OK);
  assert_int_equal(uri.kind, AMDDWARF_URI_MEMORY);
  assert_int_equal(uri.pid, 4242);
  assert_int_equal(uri.offset, 0x7f0000001000ull);
  assert_null(uri.path);
  static const struct {
    const char *text, *message;
    uint64_t offset;
  } bad[] = {
      {"file://#offset=1", "no path after the scheme", 7},
      {"file:///x#offset=12z", "'z' at offset 19, not a base-10 digit", 19},
      {"file:///x#offset=0x", "no digits", 17},
      {"file:///x#offset=09", "'9' at offset 18, not a base-8 digit", 18},
      {"file:///x#foo=1", "unknown parameter 'foo' at offset 10", 10},
      {"file:///x#offset", "unknown parameter 'offset' at offset 10", 10},
      {"file:///x#offset=1&offset=2", "parameter offset at offset 19 is given twice", 19},
      {"file:///x#offset=99999999999999999999", "does not fit 64 bits", 17},
      {"file:///x#offset=1&", "'&' at offset 18 ends the URI", 18},
      {"file:///x#", "has no parameter after it", 9},
      {"file:///x%2", "'%' at offset 9 is not followed by two hex digits", 9},
      {"file:///x%00y", "'%' at offset 9", 9},
      {"http://host/x", "the scheme is not file:// or memory://", 0},
      {"memory://#offset=1", "no process ID", 9},
      {"memory://12a#offset=1", "not a base-10 digit", 11},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    amddwarf_error_clear(&err);
    assert_int_equal(amddwarf_uri_parse(bad[i].text, NULL, &uri, &err),
                     AMDDWARF_E_CONTAINER_BAD_URI);
    assert_null(uri.path);
    if (strstr(err.message, bad[i].message) == NULL || err.offset != bad[i].offset)
      fail_msg("%s: %s (offset %llu)", bad[i].text, err.message, (unsigned long long)err.offset);
  }
}

static void test_uri_format(void **state)
{
  (void)state;
  char text[128];
  size_t n = amddwarf_uri_format_file("/tmp/a b#c/x.so", 4096, 29728, text, sizeof text);
  assert_string_equal(text, "file:///tmp/a%20b%23c/x.so#offset=4096&size=29728");
  assert_int_equal(n, strlen(text));
  /* too small a buffer: truncated, NUL-terminated, full length returned */
  char small[10];
  assert_int_equal(amddwarf_uri_format_file("/x", 1, 2, small, sizeof small), 25);
  assert_string_equal(small, "file:///x");
  amddwarf_uri uri;
  assert_int_equal(amddwarf_uri_parse(text, NULL, &uri, NULL), AMDDWARF_OK);
  assert_string_equal(uri.path, "/tmp/a b#c/x.so");
  assert_int_equal(uri.offset, 4096);
  assert_int_equal(uri.size, 29728);
  amddwarf_uri_free(&uri, NULL);
}

/* ---- bundles ---- */

static const entry_spec two_targets[] = {
    {"host-x86_64-unknown-linux-gnu", NULL},
    {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "code object for gfx90a"},
    {"hipv4-amdgcn-amd-amdhsa--gfx1030", "code object for gfx1030!"},
};

static void test_bundle(void **state)
{
  (void)state;
  blob b = bundle(two_targets, 3);
  amddwarf_container *c = open_ok(&b);
  assert_int_equal(amddwarf_container_get_kind(c), AMDDWARF_CONTAINER_BUNDLE);
  assert_int_equal(amddwarf_container_count(c), 2); /* the host entry is not listed */
  assert_entry(c, 0, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "gfx90a:xnack-",
               "code object for gfx90a");
  assert_entry(c, 1, "hipv4-amdgcn-amd-amdhsa--gfx1030", "gfx1030", "code object for gfx1030!");
  const amddwarf_container_entry *e = amddwarf_container_entry_at(c, 0);
  /* table: 32 + (24 + 29) + (24 + 38) + (24 + 32) = 203, aligned to 208 */
  assert_int_equal(e->offset, 208);
  assert_int_equal(e->target.xnack, AMDDWARF_FEATURE_OFF);
  assert_false(e->compressed);
  assert_null(e->uri); /* opened from memory */
  assert_null(amddwarf_container_entry_at(c, 2));
  amddwarf_container_close(c);
  free(b.data);
}

static void test_bundle_errors(void **state)
{
  (void)state;
  blob b = bundle(two_targets, 3);
  /* a count the bytes cannot hold */
  blob t = {0};
  put(&t, b.data, 32 + 24);
  t.data[24] = 3;
  open_fails(&t, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 24,
             "the entry table of 3 entries is truncated: the bundle has 56 bytes");
  /* the table ends inside the second record */
  t.len = 0;
  put(&t, b.data, 32 + 24 + 29 + 30);
  put_zeros(&t, 24);
  open_fails(&t, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 101, "entry 1's ID of 38 bytes runs past");
  /* an entry past the end */
  blob p = {0};
  put(&p, b.data, b.len);
  p.data[32 + 53 + 8] = 0xff; /* entry 1's size */
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 85,
             "entry 1 (hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-) at [208, 463) runs past the end");
  /* size 0 of a device entry */
  memcpy(p.data, b.data, b.len);
  memset(p.data + 32 + 53 + 8, 0, 8);
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 93, "has size 0");
  /* overlapping entries: entry 2 starts inside entry 1 */
  memcpy(p.data, b.data, b.len);
  p.data[32 + 53 + 62] = 208 + 8;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 147, "overlaps the entry at [208, 230)");
  /* an entry inside the table */
  memcpy(p.data, b.data, b.len);
  p.data[32 + 53] = 40;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 85, "starts at 40, inside the entry table");
  free(p.data);
  free(t.data);
  free(b.data);
}

/* ---- compressed bundles ---- */

static void test_compressed_versions(void **state)
{
  (void)state;
  blob plain = bundle(two_targets, 3);
  for (unsigned version = 1; version <= 3; ++version)
    for (unsigned method = 0; method <= 1; ++method) {
      blob z = ccob(&plain, version, method);
      amddwarf_container *c = open_ok(&z);
      assert_int_equal(amddwarf_container_get_kind(c), AMDDWARF_CONTAINER_COMPRESSED);
      assert_int_equal(amddwarf_container_count(c), 2);
      const amddwarf_container_entry *e = amddwarf_container_entry_at(c, 1);
      assert_true(e->compressed);
      assert_int_equal(e->compression_version, version);
      assert_int_equal(e->compression_method, method);
      assert_int_equal(e->bundle_size, z.len);
      assert_entry(c, 0, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "gfx90a:xnack-",
                   "code object for gfx90a");
      assert_entry(c, 1, "hipv4-amdgcn-amd-amdhsa--gfx1030", "gfx1030",
                   "code object for gfx1030!");
      amddwarf_container_close(c);
      free(z.data);
    }
  free(plain.data);
}

static void test_compressed_errors(void **state)
{
  (void)state;
  blob plain = bundle(two_targets, 3);
  blob z = ccob(&plain, 2, 1);
  /* an unknown version is refused from its first 8 bytes alone */
  blob t = {0};
  put(&t, z.data, 8);
  t.data[4] = 4;
  open_fails(&t, AMDDWARF_E_UNSUPPORTED, 4, "compressed bundle version 4 is not one");
  /* a known version with its header cut */
  t.data[4] = 3;
  open_fails(&t, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, 0,
             "version 3 compressed bundle header needs 32 bytes, 8 are left");
  /* an unknown method */
  blob p = {0};
  put(&p, z.data, z.len);
  p.data[6] = 2;
  open_fails(&p, AMDDWARF_E_UNSUPPORTED, 6, "compression method 2");
  /* a total size past the end */
  memcpy(p.data, z.data, z.len);
  p.data[8] += 1;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, 8, "past the end of what holds it");
  /* a hash that is not the MD5 of the contents */
  memcpy(p.data, z.data, z.len);
  p.data[16] ^= 1;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_HASH, 16, "is not the MD5 of its 256 decompressed");
  /* a zstd header claiming another size than its frame */
  memcpy(p.data, z.data, z.len);
  p.data[12] += 1;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, 0,
             "claims 257 bytes uncompressed, its zstd frame holds 256");
  free(p.data);
  free(t.data);
  free(z.data);
  free(plain.data);
}

/* A header claiming 4 GiB over a few bytes fails at once, allocating
   nothing: over the default limit, and under a limit raised for it the
   claim is still more than zlib can produce from the payload, or not what
   the zstd frame holds. */
static void test_compressed_lying_sizes(void **state)
{
  (void)state;
  blob plain = bundle(two_targets, 3);
  for (unsigned method = 0; method <= 1; ++method) {
    blob z = ccob(&plain, 3, method);
    uint64_t claim = (uint64_t)4 << 30;
    for (int i = 0; i < 8; ++i)
      z.data[16 + i] = (uint8_t)(claim >> (8 * i));
    clock_t start = clock();
    open_fails(&z, AMDDWARF_E_LIMIT, 0, "claims 4294967296 bytes uncompressed, more than the limit");
    amddwarf_container_options options;
    amddwarf_container_options_init(&options);
    options.max_decompressed = (uint64_t)8 << 30;
    amddwarf_container *c = NULL;
    amddwarf_error err;
    assert_int_equal(amddwarf_container_open_memory(z.data, z.len, "input", &options, &c, &err),
                     AMDDWARF_E_CONTAINER_BAD_COMPRESSED);
    assert_non_null(strstr(err.message, method == 0 ? "more than zlib can produce"
                                                    : "its zstd frame holds 256"));
    assert_true((double)(clock() - start) / CLOCKS_PER_SEC < 1.0);
    free(z.data);
  }
  /* a zlib payload that ends before its claim: the buffer grows with what
     comes out, and the error says how much did */
  blob z = ccob(&plain, 2, 0);
  uint32_t claim = 256 * 100;
  for (int i = 0; i < 4; ++i)
    z.data[12 + i] = (uint8_t)(claim >> (8 * i));
  open_fails(&z, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, 0,
             "claims 25600 bytes uncompressed, the zlib payload decodes to 256");
  free(z.data);
  free(plain.data);
}

/* ---- host ELF files ---- */

/* An x86-64 ELF file whose .hip_fatbin holds a bundle, zero padding, and a
   compressed bundle; and one __CLANG_OFFLOAD_BUNDLE__ section. */
static void test_host_elf(void **state)
{
  (void)state;
  static const entry_spec second[] = {
      {"host-x86_64-unknown-linux-gnu", NULL},
      {"hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "second translation unit"},
  };
  blob first = bundle(two_targets, 3), plain = bundle(second, 2);
  blob z = ccob(&plain, 3, 1);
  byte_buf fatbin = {0};
  bb_bytes(&fatbin, first.data, first.len);
  while (fatbin.len % 4096)
    bb_u8(&fatbin, 0);
  bb_bytes(&fatbin, z.data, z.len);
  byte_buf rel = {0};
  bb_bytes(&rel, "device code", 11);
  elf_sec secs[] = {
      ELF_SEC(".hip_fatbin", TEST_SHT_PROGBITS, &fatbin),
      ELF_SEC("__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa-gfx906", TEST_SHT_PROGBITS, &rel),
      ELF_SEC("__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu", TEST_SHT_PROGBITS, &rel),
  };
  elf_params params = {TEST_ET_EXEC, 62, 0, 0};
  blob image = {0};
  image.cap = 65536;
  image.data = malloc(image.cap);
  image.len = elf_build(image.data, image.cap, &params, secs, 3);
  amddwarf_container *c = open_ok(&image);
  assert_int_equal(amddwarf_container_get_kind(c), AMDDWARF_CONTAINER_HOST_ELF);
  assert_int_equal(amddwarf_container_count(c), 4);
  assert_entry(c, 0, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "gfx90a:xnack-",
               "code object for gfx90a");
  assert_entry(c, 1, "hipv4-amdgcn-amd-amdhsa--gfx1030", "gfx1030", "code object for gfx1030!");
  assert_entry(c, 2, "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-",
               "second translation unit");
  assert_entry(c, 3, "hip-amdgcn-amd-amdhsa-gfx906", "gfx906", "device code");
  const amddwarf_container_entry *e0 = amddwarf_container_entry_at(c, 0);
  const amddwarf_container_entry *e2 = amddwarf_container_entry_at(c, 2);
  assert_string_equal(e0->section, ".hip_fatbin");
  assert_int_equal(e0->bundle_offset, 64); /* the first section's contents */
  assert_int_equal(e0->offset, 64 + 208);
  assert_true(e2->compressed);
  assert_int_equal(e2->bundle_offset, 64 + 4096);
  assert_int_equal(e2->bundle_size, z.len);
  amddwarf_container_close(c);
  /* garbage instead of padding after the first bundle */
  image.data[64 + 4000] = 0x55;
  open_fails(&image, AMDDWARF_E_CONTAINER_BAD_BUNDLE, 64 + 4000,
             "offset 4064 in .hip_fatbin: neither an offload bundle nor a compressed bundle");
  free(image.data);
  free(z.data);
  free(plain.data);
  free(first.data);
}

/* ---- OffloadBinary ---- */

/* An OffloadBinary image: header, entry, two string entries, the strings,
   the image bytes. */
static blob offload_binary(uint16_t image_kind, uint16_t offload_kind, const char *arch,
                           const char *bytes)
{
  blob b = {0};
  size_t strings_at = 32 + 40, text_at = strings_at + 32;
  size_t arch_at = text_at + 7, triple_value_at = arch_at + 5;
  size_t arch_value_at = triple_value_at + 18;
  size_t image_at = (arch_value_at + strlen(arch) + 1 + 7) & ~(size_t)7;
  size_t total = image_at + strlen(bytes);
  put(&b, "\x10\xff\x10\xad", 4);
  put_le(&b, 1, 4);
  put_le(&b, total, 8);
  put_le(&b, 32, 8);
  put_le(&b, 40, 8);
  put_le(&b, image_kind, 2);
  put_le(&b, offload_kind, 2);
  put_le(&b, 0, 4);
  put_le(&b, strings_at, 8);
  put_le(&b, 2, 8);
  put_le(&b, image_at, 8);
  put_le(&b, strlen(bytes), 8);
  put_le(&b, text_at, 8);  /* "triple" */
  put_le(&b, triple_value_at, 8);
  put_le(&b, arch_at, 8);  /* "arch" */
  put_le(&b, arch_value_at, 8);
  put(&b, "triple", 7);
  put(&b, "arch", 5);
  put(&b, "amdgcn-amd-amdhsa", 18);
  put(&b, arch, strlen(arch) + 1);
  put_zeros(&b, image_at - b.len);
  put(&b, bytes, strlen(bytes));
  return b;
}

static void test_offload_binary(void **state)
{
  (void)state;
  blob a = offload_binary(1, 4, "gfx90a:xnack+", "an ELF image");
  blob bitcode = offload_binary(2, 4, "gfx90a", "bitcode");
  blob both = {0};
  put(&both, a.data, a.len);
  put_zeros(&both, ((both.len + 7) & ~(size_t)7) - both.len);
  put(&both, bitcode.data, bitcode.len);
  amddwarf_container *c = open_ok(&both);
  assert_int_equal(amddwarf_container_get_kind(c), AMDDWARF_CONTAINER_OFFLOAD_BINARY);
  assert_int_equal(amddwarf_container_count(c), 1); /* bitcode is no code object */
  assert_entry(c, 0, "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx90a:xnack+", "an ELF image");
  amddwarf_container_close(c);
  /* the image runs past the binary */
  blob p = {0};
  put(&p, a.data, a.len);
  p.data[32 + 32] += 1;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_OFFLOAD_BINARY, 32 + 24,
             "OffloadBinary image [152, +13) is not inside");
  /* a size larger than the input */
  memcpy(p.data, a.data, a.len);
  p.data[8] += 1;
  open_fails(&p, AMDDWARF_E_CONTAINER_BAD_OFFLOAD_BINARY, 8, "is past the end");
  /* an unknown version */
  memcpy(p.data, a.data, a.len);
  p.data[4] = 2;
  open_fails(&p, AMDDWARF_E_UNSUPPORTED, 4, "OffloadBinary version 2");
  free(p.data);
  free(both.data);
  free(bitcode.data);
  free(a.data);
}

/* ---- opening one code object from a container ---- */

static char *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  data[n] = 0;
  *size = (size_t)n;
  return data;
}

static void test_open_input(void **state)
{
  (void)state;
  size_t size = 0;
  char *elf = read_file(AMDDWARF_SOURCE_DIR "/tests/fuzz/corpus/object/hip-gfx1030-O0.elf", &size);
  /* a bundle with the code object twice (the second one padded) */
  blob b = {0};
  put(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
  put_le(&b, 2, 8);
  const char *ids[] = {"hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1030:xnack-"};
  size_t at = 4096;
  for (int i = 0; i < 2; ++i) {
    put_le(&b, at, 8);
    put_le(&b, size, 8);
    put_le(&b, strlen(ids[i]), 8);
    put(&b, ids[i], strlen(ids[i]));
    at = (at + size + 4095) & ~(size_t)4095;
  }
  for (int i = 0; i < 2; ++i) {
    put_zeros(&b, ((b.len + 4095) & ~(size_t)4095) - b.len);
    put(&b, elf, size);
  }
  char path[] = "/tmp/amddwarf-container-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
  close(fd);
  amddwarf_object *o = NULL;
  amddwarf_error err;
  amddwarf_error_clear(&err);
  assert_int_equal(amddwarf_object_open_input(path, NULL, NULL, &o, &err),
                   AMDDWARF_E_CONTAINER_AMBIGUOUS);
  assert_non_null(strstr(err.message, "holds 2 code objects; choose one with --target ID or "
                                      "--object N: 0 hipv4-amdgcn-amd-amdhsa--gfx1030, 1 "
                                      "hipv4-amdgcn-amd-amdhsa--gfx1030:xnack-"));
  amddwarf_selection minus = {"gfx1030:xnack-", -1};
  assert_int_equal(amddwarf_object_open_input(path, &minus, NULL, &o, &err),
                   AMDDWARF_E_CONTAINER_AMBIGUOUS); /* gfx1030 (any) matches too */
  amddwarf_selection one = {NULL, 1};
  assert_int_equal(amddwarf_object_open_input(path, &one, NULL, &o, &err), AMDDWARF_OK);
  assert_string_equal(amddwarf_object_get_info(o)->processor, "gfx1030");
  size_t image_size = 0;
  const uint8_t *image = amddwarf_object_image(o, &image_size);
  assert_int_equal(image_size, size);
  assert_memory_equal(image, elf, size);
  amddwarf_object_close(o);
  amddwarf_selection wrong = {"gfx90a", -1};
  assert_int_equal(amddwarf_object_open_input(path, &wrong, NULL, &o, &err),
                   AMDDWARF_E_CONTAINER_NO_MATCH);
  amddwarf_selection past = {NULL, 2};
  assert_int_equal(amddwarf_object_open_input(path, &past, NULL, &o, &err),
                   AMDDWARF_E_CONTAINER_NO_MATCH);
  assert_non_null(strstr(err.message, "has no code object 2: it holds 2 (0 to 1)"));
  /* the URI of the second code object opens it alone */
  char uri[512];
  amddwarf_uri_format_file(path, 16384, size, uri, sizeof uri);
  assert_int_equal(amddwarf_object_open_uri(uri, NULL, &o, &err), AMDDWARF_OK);
  amddwarf_object_close(o);
  assert_int_equal(amddwarf_object_open_uri("memory://77#offset=4096&size=10", NULL, &o, &err),
                   AMDDWARF_E_CONTAINER_NEEDS_PROCESS);
  assert_non_null(strstr(err.message, "process 77"));
  assert_int_equal(amddwarf_object_open_uri(path, NULL, &o, &err), AMDDWARF_E_CONTAINER_BAD_URI);
  amddwarf_uri_format_file(path, 16384, 1u << 30, uri, sizeof uri);
  assert_int_equal(amddwarf_object_open_uri(uri, NULL, &o, &err), AMDDWARF_E_IO);
  assert_non_null(strstr(err.message, "past the end of the file"));
  unlink(path);
  free(b.data);
  free(elf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_entry_id_split),
      cmocka_unit_test(test_target_ids),
      cmocka_unit_test(test_uri_parse),
      cmocka_unit_test(test_uri_format),
      cmocka_unit_test(test_bundle),
      cmocka_unit_test(test_bundle_errors),
      cmocka_unit_test(test_compressed_versions),
      cmocka_unit_test(test_compressed_errors),
      cmocka_unit_test(test_compressed_lying_sizes),
      cmocka_unit_test(test_host_elf),
      cmocka_unit_test(test_offload_binary),
      cmocka_unit_test(test_open_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
