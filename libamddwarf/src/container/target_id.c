/* Target IDs and bundle entry IDs: parsing, matching and spelling
 * (AMDGPUUsage "Code Object Target Identification"; ClangOffloadBundler
 * "Bundle Entry ID"). */
#include <stdio.h>
#include <string.h>

#include "container/internal.h"

/* The features a target ID may name, in the order the spelling uses. */
static const struct {
  const char *name;
  size_t offset;
} target_features[] = {
    {"sramecc", offsetof(amddwarf_target_id, sramecc)},
    {"xnack", offsetof(amddwarf_target_id, xnack)},
};
#define FEATURE_COUNT (sizeof target_features / sizeof target_features[0])

static amddwarf_target_feature *feature_field(amddwarf_target_id *id, size_t i)
{
  return (amddwarf_target_feature *)((char *)id + target_features[i].offset);
}

static const amddwarf_target_feature *feature_value(const amddwarf_target_id *id, size_t i)
{
  return (const amddwarf_target_feature *)((const char *)id + target_features[i].offset);
}

static bool processor_char(char ch)
{
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
}

amddwarf_status amddwarf_target_id_parse(const char *text, size_t size, amddwarf_target_id *out,
                                         amddwarf_error *err)
{
  if (text == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_target_id_parse: NULL argument");
  if (size == SIZE_MAX)
    size = strlen(text);
  memset(out, 0, sizeof *out);
  out->sramecc = out->xnack = AMDDWARF_FEATURE_ANY;
  size_t n = 0;
  while (n < size && text[n] != ':')
    ++n;
  if (n == 0 || n >= sizeof out->processor)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, 0,
                          "target ID '%.*s': the processor name is %s", (int)size, text,
                          n == 0 ? "empty" : "too long");
  for (size_t i = 0; i < n; ++i)
    if (!processor_char(text[i]))
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, i,
                            "target ID '%.*s': character %zu of the processor name is not a "
                            "lower-case letter, digit, '-' or '_'",
                            (int)size, text, i);
  memcpy(out->processor, text, n);
  size_t pos = n;
  while (pos < size) {
    size_t start = pos + 1, end = start;
    while (end < size && text[end] != ':')
      ++end;
    size_t length = end - start;
    char sign = length > 0 ? text[end - 1] : 0;
    size_t f = 0;
    while (f < FEATURE_COUNT && !(length == strlen(target_features[f].name) + 1 &&
                                  memcmp(text + start, target_features[f].name, length - 1) == 0))
      ++f;
    if (f == FEATURE_COUNT || (sign != '+' && sign != '-'))
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, start,
                            "target ID '%.*s': '%.*s' at offset %zu is not sramecc+, sramecc-, "
                            "xnack+ or xnack-",
                            (int)size, text, (int)length, text + start, start);
    amddwarf_target_feature *field = feature_field(out, f);
    if (*field != AMDDWARF_FEATURE_ANY)
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, start,
                            "target ID '%.*s': %s is named twice", (int)size, text,
                            target_features[f].name);
    *field = sign == '+' ? AMDDWARF_FEATURE_ON : AMDDWARF_FEATURE_OFF;
    pos = end;
  }
  return AMDDWARF_OK;
}

int amddwarf_target_id_matches(const amddwarf_target_id *want, const amddwarf_target_id *have)
{
  if (want == NULL || have == NULL || strcmp(want->processor, have->processor) != 0)
    return 0;
  for (size_t f = 0; f < FEATURE_COUNT; ++f) {
    amddwarf_target_feature w = *feature_value(want, f), h = *feature_value(have, f);
    bool want_set = w == AMDDWARF_FEATURE_ON || w == AMDDWARF_FEATURE_OFF;
    bool have_set = h == AMDDWARF_FEATURE_ON || h == AMDDWARF_FEATURE_OFF;
    if (want_set && have_set && w != h)
      return 0;
  }
  return 1;
}

size_t amddwarf_target_id_format(const amddwarf_target_id *id, char *buf, size_t size)
{
  char text[sizeof id->processor + 32];
  size_t n = (size_t)snprintf(text, sizeof text, "%s", id->processor);
  for (size_t f = 0; f < FEATURE_COUNT; ++f) {
    amddwarf_target_feature v = *feature_value(id, f);
    if (v == AMDDWARF_FEATURE_ON || v == AMDDWARF_FEATURE_OFF)
      n += (size_t)snprintf(text + n, sizeof text - n, ":%s%c", target_features[f].name,
                            v == AMDDWARF_FEATURE_ON ? '+' : '-');
  }
  if (size > 0)
    snprintf(buf, size, "%s", text);
  return n;
}

/* The end of the dash-separated field that starts at POS. */
static size_t field_end(const char *id, size_t size, size_t pos)
{
  while (pos < size && id[pos] != '-')
    ++pos;
  return pos;
}

amddwarf_status amddwarf_entry_id_split(const char *id, size_t size, amddwarf_entry_id_parts *out,
                                        amddwarf_error *err)
{
  if (id == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_entry_id_split: NULL argument");
  memset(out, 0, sizeof *out);
  /* kind, arch, vendor, os: four fields that must be there */
  size_t starts[4], pos = 0;
  for (int f = 0; f < 4; ++f) {
    if (f > 0) {
      if (pos >= size)
        return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, pos,
                              "bundle entry ID '%.*s' has %d dash-separated fields, not at least "
                              "4 (KIND-ARCH-VENDOR-OS)",
                              (int)size, id, f);
      ++pos; /* the dash */
    }
    starts[f] = pos;
    pos = field_end(id, size, pos);
    if (pos == starts[f])
      return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_TARGET_ID, pos,
                            "bundle entry ID '%.*s': field %d is empty", (int)size, id, f + 1);
  }
  out->kind = id;
  out->kind_size = starts[1] - 1;
  out->triple = id + starts[1];
  size_t triple_end = pos;
  out->target_id = id + size;
  if (pos < size) {
    size_t env = pos + 1, env_end = field_end(id, size, env);
    if (env_end - env >= 3 && memcmp(id + env, "gfx", 3) == 0) {
      /* a three-field triple followed by the target ID */
      out->target_id = id + env;
    } else {
      if (env_end > env)
        triple_end = env_end;
      if (env_end < size)
        out->target_id = id + env_end + 1;
    }
  }
  out->triple_size = triple_end - starts[1];
  out->target_id_size = (size_t)(id + size - out->target_id);
  return AMDDWARF_OK;
}
