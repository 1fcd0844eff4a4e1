/* Compressed offload bundles (clang/lib/Driver/OffloadBundler.cpp,
 * CompressedOffloadBundle): "CCOB", a 16-bit version and method, then
 *   version 1: 32-bit uncompressed size, 64-bit hash            (20 bytes)
 *   version 2: 32-bit total size, 32-bit uncompressed size, hash (24 bytes)
 *   version 3: 64-bit total size, 64-bit uncompressed size, hash (32 bytes)
 * followed by the payload: a zlib stream (method 0) or a zstd frame
 * (method 1) of an uncompressed bundle. The hash is the first 8 bytes of
 * the MD5 digest of the uncompressed bundle. The total size, where the
 * version has one, bounds the bundle; a version 1 zstd bundle ends with its
 * frame, a version 1 zlib bundle with what holds it.
 *
 * Opening reads only the entry table (a prefix of the payload, decoded by
 * streaming); the whole bundle is decoded when an entry's bytes are asked
 * for, into a buffer that grows with what really comes out (never past the
 * header's claim), so a header that lies costs neither time nor memory. */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "container/internal.h"

enum { METHOD_ZLIB = 0, METHOD_ZSTD = 1 };

static const char *method_name(uint16_t method)
{
  return method == METHOD_ZLIB ? "zlib" : "zstd";
}

/* Streaming decoder of one payload into a caller's buffer. */
typedef struct decoder {
  uint16_t method;
  z_stream z;
  ZSTD_DStream *zstd;
  const uint8_t *in;
  size_t in_size, in_pos;
  bool ready, done, borrowed;
} decoder;

/* KEEP (may be NULL) is a zstd stream to reuse (its buffers stay
   allocated from one bundle to the next), else the decoder makes its own. */
static amddwarf_status decoder_init(decoder *d, uint16_t method, const uint8_t *in,
                                    size_t in_size, ZSTD_DStream *keep)
{
  memset(d, 0, sizeof *d);
  d->method = method;
  d->in = in;
  d->in_size = in_size;
  if (method == METHOD_ZLIB) {
    if (inflateInit(&d->z) != Z_OK)
      return AMDDWARF_E_NO_MEMORY;
  } else {
    d->zstd = keep ? keep : ZSTD_createDStream();
    d->borrowed = keep != NULL;
    if (d->zstd == NULL || ZSTD_isError(ZSTD_DCtx_reset(d->zstd, ZSTD_reset_session_only)))
      return AMDDWARF_E_NO_MEMORY;
  }
  d->ready = true;
  return AMDDWARF_OK;
}

static void decoder_end(decoder *d)
{
  if (d->ready && d->method == METHOD_ZLIB)
    inflateEnd(&d->z);
  if (!d->borrowed)
    ZSTD_freeDStream(d->zstd);
  d->ready = false;
}

void amddwarf__ccob_release(amddwarf_container *c)
{
  ZSTD_freeDStream(c->zstd);
  c->zstd = NULL;
}

/* Decodes into OUT[*FILLED, CAPACITY): returns 0, or a negative value with
   WHY set on a corrupt stream. Sets d->done at the end of the stream. */
static int decoder_run(decoder *d, uint8_t *out, size_t capacity, size_t *filled,
                       const char **why)
{
  if (d->method == METHOD_ZLIB) {
    while (*filled < capacity && !d->done) {
      size_t in_left = d->in_size - d->in_pos;
      d->z.next_in = (Bytef *)(uintptr_t)(d->in + d->in_pos);
      d->z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
      size_t out_left = capacity - *filled;
      d->z.next_out = out + *filled;
      d->z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
      uInt in_before = d->z.avail_in, out_before = d->z.avail_out;
      int rc = inflate(&d->z, Z_NO_FLUSH);
      d->in_pos += in_before - d->z.avail_in;
      *filled += out_before - d->z.avail_out;
      if (rc == Z_STREAM_END) {
        d->done = true;
      } else if (rc == Z_BUF_ERROR && in_before == d->z.avail_in &&
                 out_before == d->z.avail_out) {
        *why = "the zlib stream ends early";
        return -1;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        *why = d->z.msg ? d->z.msg : "corrupt zlib stream";
        return -1;
      }
    }
    return 0;
  }
  while (*filled < capacity && !d->done) {
    ZSTD_inBuffer input = {d->in, d->in_size, d->in_pos};
    ZSTD_outBuffer output = {out, capacity, *filled};
    size_t rc = ZSTD_decompressStream(d->zstd, &output, &input);
    bool progress = input.pos != d->in_pos || output.pos != *filled;
    d->in_pos = input.pos;
    *filled = output.pos;
    if (ZSTD_isError(rc)) {
      *why = ZSTD_getErrorName(rc);
      return -1;
    }
    if (rc == 0) {
      d->done = true;
    } else if (!progress) {
      *why = "the zstd frame ends early";
      return -1;
    }
  }
  return 0;
}

/* Reads and checks the header at OFFSET (LIMIT bytes available). */
static amddwarf_status read_header(amddwarf_container *c, uint64_t offset, uint64_t limit,
                                   amddwarf__ccob *out, amddwarf_error *err)
{
  const uint8_t *p = c->data + offset;
  uint64_t at = offset + c->file_base;
  memset(out, 0, sizeof *out);
  out->offset = offset;
  if (limit < 8)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                          "%s: offset %llu: compressed bundle header truncated (%llu bytes)",
                          c->name, (unsigned long long)at, (unsigned long long)limit);
  out->version = amddwarf__le16(p + 4);
  out->method = amddwarf__le16(p + 6);
  /* the version decides the header's size: refuse an unknown one first */
  static const uint32_t header_sizes[] = {0, 20, 24, 32};
  if (out->version < 1 || out->version > 3)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, at + 4,
                          "%s: offset %llu: compressed bundle version %u is not one this library "
                          "reads (1, 2, 3)",
                          c->name, (unsigned long long)(at + 4), out->version);
  out->header_size = header_sizes[out->version];
  if (limit < out->header_size)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                          "%s: offset %llu: version %u compressed bundle header needs %u bytes, "
                          "%llu are left",
                          c->name, (unsigned long long)at, out->version, out->header_size,
                          (unsigned long long)limit);
  if (out->method != METHOD_ZLIB && out->method != METHOD_ZSTD)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, at + 6,
                          "%s: offset %llu: compression method %u is neither zlib (0) nor zstd "
                          "(1)",
                          c->name, (unsigned long long)(at + 6), out->method);
  out->size = limit;
  if (out->version == 1) {
    out->uncompressed_size = amddwarf__le32(p + 8);
  } else {
    uint64_t total = out->version == 2 ? amddwarf__le32(p + 8) : amddwarf__le64(p + 8);
    out->uncompressed_size = out->version == 2 ? amddwarf__le32(p + 12) : amddwarf__le64(p + 16);
    if (total < out->header_size || total > limit)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at + 8,
                            "%s: offset %llu: compressed bundle total size %llu is %s (%llu bytes "
                            "are left)",
                            c->name, (unsigned long long)(at + 8), (unsigned long long)total,
                            total < out->header_size ? "smaller than its header"
                                                     : "past the end of what holds it",
                            (unsigned long long)limit);
    out->size = total;
  }
  memcpy(out->hash, p + out->header_size - 8, 8);
  uint64_t max = c->options.max_decompressed;
  if (out->uncompressed_size > max)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, at,
                          "%s: offset %llu: compressed bundle claims %llu bytes uncompressed, more "
                          "than the limit of %llu (amddwarf_container_options.max_decompressed)",
                          c->name, (unsigned long long)at,
                          (unsigned long long)out->uncompressed_size, (unsigned long long)max);
  if (out->uncompressed_size < AMDDWARF_BUNDLE_MAGIC_SIZE + 8)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                          "%s: offset %llu: compressed bundle claims %llu bytes uncompressed, "
                          "too few for a bundle",
                          c->name, (unsigned long long)at,
                          (unsigned long long)out->uncompressed_size);
  const uint8_t *payload = p + out->header_size;
  size_t payload_size = (size_t)(out->size - out->header_size);
  if (out->method == METHOD_ZSTD) {
    /* the frame's own content size, when it records one, must agree */
    unsigned long long content = ZSTD_getFrameContentSize(payload, payload_size);
    if (content == ZSTD_CONTENTSIZE_ERROR)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at + out->header_size,
                            "%s: offset %llu: the payload is not a zstd frame", c->name,
                            (unsigned long long)(at + out->header_size));
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != out->uncompressed_size)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                            "%s: offset %llu: compressed bundle header claims %llu bytes "
                            "uncompressed, its zstd frame holds %llu",
                            c->name, (unsigned long long)at,
                            (unsigned long long)out->uncompressed_size, content);
    if (out->version == 1) {
      size_t frame = ZSTD_findFrameCompressedSize(payload, payload_size);
      if (ZSTD_isError(frame))
        return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at + out->header_size,
                              "%s: offset %llu: the zstd frame is truncated (%s)", c->name,
                              (unsigned long long)(at + out->header_size),
                              ZSTD_getErrorName(frame));
      out->size = out->header_size + frame;
    }
  } else if (out->uncompressed_size / 1032 > payload_size + 1) {
    /* deflate expands at most 1032 times */
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                          "%s: offset %llu: compressed bundle claims %llu bytes uncompressed from "
                          "%zu bytes of zlib data, more than zlib can produce",
                          c->name, (unsigned long long)at,
                          (unsigned long long)out->uncompressed_size, payload_size);
  }
  return AMDDWARF_OK;
}

/* Decodes the first WANT bytes of the payload of CCOB into OUT: *FILLED
   gets how many came out, fewer only when the stream ended (*ENDED). */
static amddwarf_status decode_prefix(amddwarf_container *c, const amddwarf__ccob *ccob,
                                     uint8_t *out, size_t want, size_t *filled, bool *ended,
                                     amddwarf_error *err)
{
  decoder d;
  const uint8_t *payload = c->data + ccob->offset + ccob->header_size;
  if (ccob->method == METHOD_ZSTD && c->zstd == NULL)
    c->zstd = ZSTD_createDStream();
  amddwarf_status st = decoder_init(&d, ccob->method, payload,
                                    (size_t)(ccob->size - ccob->header_size), c->zstd);
  const char *why = NULL;
  uint64_t at = ccob->offset + c->file_base;
  *filled = 0;
  if (st != AMDDWARF_OK)
    st = amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "%s decoder", method_name(ccob->method));
  else if (decoder_run(&d, out, want, filled, &why) != 0)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                        "%s: offset %llu: the %s payload of the compressed bundle does not "
                        "decode after %zu bytes: %s",
                        c->name, (unsigned long long)at, method_name(ccob->method), *filled, why);
  *ended = d.done;
  decoder_end(&d);
  return st;
}

amddwarf_status amddwarf__ccob_read(amddwarf_container *c, const char *section, uint64_t offset,
                                    uint64_t limit, uint64_t *end, amddwarf_error *err)
{
  amddwarf__ccob ccob;
  amddwarf_status st = read_header(c, offset, limit, &ccob, err);
  if (st != AMDDWARF_OK)
    return st;
  if (amddwarf__mem_reserve(&c->allocator, (void **)&c->ccobs, &c->ccob_capacity,
                            c->ccob_count + 1, sizeof *c->ccobs) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "compressed bundles");
  int32_t index = (int32_t)c->ccob_count;
  c->ccobs[c->ccob_count++] = ccob;
  /* decode a growing prefix until the entry table is in it */
  uint64_t want = ccob.uncompressed_size < 4096 ? ccob.uncompressed_size : 4096;
  amddwarf__place place = {section, 0, ccob.uncompressed_size, index};
  for (;;) {
    uint8_t *prefix = malloc((size_t)want);
    if (prefix == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "bundle prefix");
    uint64_t need = 0, bundle_end = 0;
    size_t first = c->count, filled = 0;
    bool ended = false;
    st = decode_prefix(c, &ccob, prefix, (size_t)want, &filled, &ended, err);
    if (st == AMDDWARF_OK && filled < AMDDWARF_BUNDLE_MAGIC_SIZE)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, offset + c->file_base,
                          "%s: offset %llu: the compressed bundle decodes to %zu bytes, too few "
                          "for a bundle",
                          c->name, (unsigned long long)(offset + c->file_base), filled);
    else if (st == AMDDWARF_OK &&
             memcmp(prefix, AMDDWARF_BUNDLE_MAGIC, AMDDWARF_BUNDLE_MAGIC_SIZE) != 0)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, offset + c->file_base,
                          "%s: offset %llu: the compressed bundle does not hold an offload "
                          "bundle (no __CLANG_OFFLOAD_BUNDLE__ magic after decoding)",
                          c->name, (unsigned long long)(offset + c->file_base));
    if (st == AMDDWARF_OK)
      st = amddwarf__bundle_read(c, &place, prefix, ccob.uncompressed_size, filled,
                                 offset + c->file_base, &need, &bundle_end, err);
    free(prefix);
    if (st == AMDDWARF_END && (ended || want == ccob.uncompressed_size))
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, offset + c->file_base,
                          "%s: offset %llu: compressed bundle header claims %llu bytes "
                          "uncompressed, the %s payload decodes to %zu, which end inside the "
                          "entry table",
                          c->name, (unsigned long long)(offset + c->file_base),
                          (unsigned long long)ccob.uncompressed_size, method_name(ccob.method),
                          filled);
    if (st == AMDDWARF_END) {
      c->count = first;
      want = need > want * 2 ? need : want * 2;
      if (want > ccob.uncompressed_size)
        want = ccob.uncompressed_size;
      continue;
    }
    break;
  }
  *end = offset + c->ccobs[index].size;
  return st;
}

amddwarf_status amddwarf__ccob_decompress(amddwarf_container *c, size_t index,
                                          amddwarf_error *err)
{
  amddwarf__ccob *ccob = &c->ccobs[index];
  if (ccob->bytes != NULL)
    return AMDDWARF_OK;
  uint64_t at = ccob->offset + c->file_base;
  size_t claim = (size_t)ccob->uncompressed_size;
  size_t payload_size = (size_t)(ccob->size - ccob->header_size);
  /* a zstd frame that records its size was checked against the claim: take
     it whole; otherwise grow with the output */
  size_t capacity = claim;
  if (ccob->method == METHOD_ZLIB ||
      ZSTD_getFrameContentSize(c->data + ccob->offset + ccob->header_size, payload_size) ==
          ZSTD_CONTENTSIZE_UNKNOWN)
    capacity = payload_size * 4 + 4096 < claim ? payload_size * 4 + 4096 : claim;
  uint8_t *out = amddwarf__mem_alloc(&c->allocator, capacity);
  if (out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                          "decompressed bundle of %zu bytes", capacity);
  decoder d;
  amddwarf_status st = decoder_init(&d, ccob->method, c->data + ccob->offset + ccob->header_size,
                                    payload_size, NULL);
  size_t filled = 0;
  const char *why = NULL;
  while (st == AMDDWARF_OK) {
    if (decoder_run(&d, out, capacity, &filled, &why) != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                          "%s: offset %llu: the %s payload of the compressed bundle does not "
                          "decode after %zu bytes: %s",
                          c->name, (unsigned long long)at, method_name(ccob->method), filled, why);
      break;
    }
    if (d.done || filled == claim)
      break;
    size_t grown = capacity * 2 < claim ? capacity * 2 : claim;
    uint8_t *bigger = amddwarf__mem_realloc(&c->allocator, out, capacity, grown);
    if (bigger == NULL) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                          "decompressed bundle of %zu bytes", grown);
      break;
    }
    out = bigger;
    capacity = grown;
  }
  /* the stream must end exactly at the claimed size */
  if (st == AMDDWARF_OK && filled == claim && !d.done) {
    uint8_t extra;
    size_t one = 0;
    if (decoder_run(&d, &extra, 1, &one, &why) != 0 || one > 0 || !d.done)
      filled = claim + 1;
  }
  decoder_end(&d);
  if (st == AMDDWARF_OK && filled != claim)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_COMPRESSED, at,
                        "%s: offset %llu: compressed bundle header claims %zu bytes "
                        "uncompressed, the %s payload decodes to %s%zu",
                        c->name, (unsigned long long)at, claim, method_name(ccob->method),
                        filled > claim ? "more than " : "", filled > claim ? claim : filled);
  if (st == AMDDWARF_OK && !(c->options.flags & AMDDWARF_CONTAINER_NO_HASH_CHECK)) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_size = 0;
    if (EVP_Digest(out, claim, digest, &digest_size, EVP_md5(), NULL) != 1 || digest_size < 8)
      st = amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, at, "%s: MD5 is not available",
                          c->name);
    else if (memcmp(digest, ccob->hash, 8) != 0)
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_HASH, at + ccob->header_size - 8,
                          "%s: offset %llu: compressed bundle hash %016llx is not the MD5 of its "
                          "%zu decompressed bytes (%016llx)",
                          c->name, (unsigned long long)(at + ccob->header_size - 8),
                          (unsigned long long)amddwarf__le64(ccob->hash), claim,
                          (unsigned long long)amddwarf__le64(digest));
  }
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(&c->allocator, out, capacity);
    return st;
  }
  ccob->bytes = out;
  return AMDDWARF_OK;
}
