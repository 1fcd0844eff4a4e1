/* Code objects: the table of producer quirks (quirks.def) and how a unit's
 * expression is matched against it (specs/conventions.md, "Producer
 * quirks"). Which quirks a unit may use is decided once, from its
 * DW_AT_producer, when its convention is chosen (amddwarf_cu.quirks); an
 * expression uses one only when its operations are the quirk's pattern,
 * whole and exactly. The corrected operations are written in the extension
 * convention, for normalize.c to encode. */
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/mem.h"
#include "object/internal.h"

/* ---- producers ---- */

enum {
#define AMDDWARF_QUIRK_PRODUCER(id, prefix, major_min, major_max, evidence) QUIRK_PRODUCER_INDEX_##id,
#define AMDDWARF_QUIRK(id, name, matcher, producers, pattern, reading, why)
#include "object/quirks.def"
#undef AMDDWARF_QUIRK
#undef AMDDWARF_QUIRK_PRODUCER
  QUIRK_PRODUCER_COUNT
};

enum {
#define AMDDWARF_QUIRK_PRODUCER(id, prefix, major_min, major_max, evidence) \
  QUIRK_PRODUCER_##id = 1u << QUIRK_PRODUCER_INDEX_##id,
#define AMDDWARF_QUIRK(id, name, matcher, producers, pattern, reading, why)
#include "object/quirks.def"
#undef AMDDWARF_QUIRK
#undef AMDDWARF_QUIRK_PRODUCER
};

typedef struct quirk_producer {
  const char *prefix;
  unsigned major_min, major_max;
  const char *evidence;
} quirk_producer;

static const quirk_producer quirk_producers[] = {
#define AMDDWARF_QUIRK_PRODUCER(id, prefix, major_min, major_max, evidence) \
  {prefix, major_min, major_max, evidence},
#define AMDDWARF_QUIRK(id, name, matcher, producers, pattern, reading, why)
#include "object/quirks.def"
#undef AMDDWARF_QUIRK
#undef AMDDWARF_QUIRK_PRODUCER
};
_Static_assert(sizeof quirk_producers / sizeof quirk_producers[0] == QUIRK_PRODUCER_COUNT,
               "quirks.def producers");

/* Whether PRODUCER is P's: its prefix, then a major version in P's range
   followed by '.' ("Debian clang version 19.1.7 (3~deb12u1)"). */
static bool producer_matches(const quirk_producer *p, const char *producer)
{
  size_t n = strlen(p->prefix);
  if (strncmp(producer, p->prefix, n) != 0)
    return false;
  const char *s = producer + n;
  unsigned major = 0, digits = 0;
  while (*s >= '0' && *s <= '9' && digits < 4) {
    major = major * 10u + (unsigned)(*s++ - '0');
    ++digits;
  }
  return digits > 0 && *s == '.' && major >= p->major_min && major <= p->major_max;
}

/* ---- patterns ---- */

/* A matcher: whether OPS[0..COUNT) is the quirk's pattern, whole; if so it
   writes the corrected operations at RES (room for 8) and their number to
   *N. */
typedef bool quirk_matcher(const amddwarf_op *ops, size_t count, amddwarf_op *res, size_t *n);
static quirk_matcher amddwarf__quirk_match_register, amddwarf__quirk_match_constant;

/* "DW_OP_lit1, DW_OP_swap, DW_OP_xderef" at OPS: the legacy private suffix. */
static bool private_suffix(const amddwarf_op *ops)
{
  return ops[0].kind == AMDDWARF_OP_lit1 && ops[1].kind == AMDDWARF_OP_swap &&
         ops[2].kind == AMDDWARF_OP_xderef;
}

static bool amddwarf__quirk_match_register(const amddwarf_op *ops, size_t count, amddwarf_op *res,
                                          size_t *n)
{
  uint64_t regno;
  amddwarf_amdgpu_register info;
  if (count != 4 || !private_suffix(&ops[1]))
    return false;
  if (ops[0].kind == AMDDWARF_OP_bregx)
    regno = ops[0].operands[0];
  else if (ops[0].kind >= AMDDWARF_OP_breg0 && ops[0].kind <= AMDDWARF_OP_breg31)
    regno = ops[0].operands[1];
  else
    return false;
  int64_t offset = ops[0].kind == AMDDWARF_OP_bregx ? (int64_t)ops[0].operands[1]
                                                    : (int64_t)ops[0].operands[0];
  if (offset != 0 || regno > UINT32_MAX ||
      amddwarf_amdgpu_register_info((uint32_t)regno, &info) != AMDDWARF_OK)
    return false;
  if (info.lanes > 0) {
    /* A vector register: the lane's dword, as the legacy convention reads
       "DW_OP_regx VGPRn" alone. */
    *n = amddwarf__normalize_lane_register(regno, res);
  } else if (info.kind_id == AMDDWARF_REGISTER_KIND_SGPR) {
    *n = 0;
    res[(*n)++] = amddwarf__normalize_op(AMDDWARF_OP_regx, regno, 0);
  } else {
    return false;
  }
  res[(*n)++] = amddwarf__normalize_op(AMDDWARF_OP_piece, 4, 0);
  return true;
}

static bool amddwarf__quirk_match_constant(const amddwarf_op *ops, size_t count, amddwarf_op *res,
                                          size_t *n)
{
  if (count != 5 || !private_suffix(&ops[1]) || ops[4].kind != AMDDWARF_OP_stack_value)
    return false;
  amddwarf_op_kind k = ops[0].kind;
  if (!(k >= AMDDWARF_OP_lit0 && k <= AMDDWARF_OP_lit31) && k != AMDDWARF_OP_consts &&
      k != AMDDWARF_OP_constu)
    return false;
  res[0] = ops[0];
  res[1] = amddwarf__normalize_op(AMDDWARF_OP_stack_value, 0, 0);
  *n = 2;
  return true;
}

/* ---- the table ---- */

typedef struct quirk_entry {
  amddwarf_quirk_info info;
  quirk_matcher *match;
} quirk_entry;

/* Index 0 is AMDDWARF_QUIRK_NONE. */
static const quirk_entry quirk_table[] = {
    {{"none", "", "", "", 0}, NULL},
#define AMDDWARF_QUIRK_PRODUCER(id, prefix, major_min, major_max, evidence)
#define AMDDWARF_QUIRK(id, name, matcher, producers, pattern, reading, why) \
  {{name, pattern, reading, why, producers}, matcher},
#include "object/quirks.def"
#undef AMDDWARF_QUIRK
#undef AMDDWARF_QUIRK_PRODUCER
};
enum { QUIRK_COUNT = sizeof quirk_table / sizeof quirk_table[0] - 1 };
_Static_assert(QUIRK_COUNT <= 32, "amddwarf_cu.quirks is a 32-bit mask");

size_t amddwarf_quirk_count(void)
{
  return QUIRK_COUNT;
}

const amddwarf_quirk_info *amddwarf_quirk_get(amddwarf_quirk quirk)
{
  return quirk == AMDDWARF_QUIRK_NONE || quirk > QUIRK_COUNT ? NULL : &quirk_table[quirk].info;
}

amddwarf_status amddwarf_quirk_from_name(const char *name, amddwarf_quirk *quirk)
{
  for (amddwarf_quirk q = 1; name != NULL && q <= QUIRK_COUNT; ++q)
    if (strcmp(quirk_table[q].info.name, name) == 0) {
      *quirk = q;
      return AMDDWARF_OK;
    }
  return AMDDWARF_NOT_FOUND;
}

size_t amddwarf_quirk_producer_count(void)
{
  return QUIRK_PRODUCER_COUNT;
}

amddwarf_status amddwarf_quirk_producer(size_t index, amddwarf_quirk_producer_info *out)
{
  if (index >= QUIRK_PRODUCER_COUNT || out == NULL)
    return AMDDWARF_E_INVALID_ARGUMENT;
  const quirk_producer *p = &quirk_producers[index];
  *out = (amddwarf_quirk_producer_info){p->prefix, p->major_min, p->major_max, p->evidence};
  return AMDDWARF_OK;
}

uint32_t amddwarf_quirks_of_producer(const char *producer)
{
  uint32_t producers = 0, quirks = 0;
  for (size_t i = 0; producer != NULL && i < QUIRK_PRODUCER_COUNT; ++i)
    if (producer_matches(&quirk_producers[i], producer))
      producers |= 1u << i;
  for (amddwarf_quirk q = 1; q <= QUIRK_COUNT; ++q)
    if (quirk_table[q].info.producers & producers)
      quirks |= AMDDWARF_QUIRK_BIT(q);
  return quirks;
}

amddwarf_quirk amddwarf__quirk_rewrite(const amddwarf_cu *cu, const amddwarf_op *ops,
                                      size_t count, amddwarf_op *res, size_t *n)
{
  if (cu->convention != AMDDWARF_CONVENTION_LEGACY || cu->quirks == 0)
    return AMDDWARF_QUIRK_NONE;
  for (amddwarf_quirk q = 1; q <= QUIRK_COUNT; ++q)
    if ((cu->quirks & AMDDWARF_QUIRK_BIT(q)) && quirk_table[q].match(ops, count, res, n))
      return q;
  return AMDDWARF_QUIRK_NONE;
}

amddwarf_quirk amddwarf_object_expr_quirk(const amddwarf_object *object, const amddwarf_cu *cu,
                                          amddwarf_expr_role role, const uint8_t *bytes,
                                          size_t size)
{
  enum { MAX_PATTERN = 8 };
  amddwarf_op ops[MAX_PATTERN], res[AMDDWARF_QUIRK_MAX_OPS];
  size_t count = 0, n = 0;
  (void)object;
  if (cu == NULL || role != AMDDWARF_ROLE_LOCATION || bytes == NULL || size == 0 ||
      cu->quirks == 0 || cu->convention != AMDDWARF_CONVENTION_LEGACY)
    return AMDDWARF_QUIRK_NONE;
  /* Every pattern is a handful of operations: a longer expression (the
     decoder stops with E_NO_SPACE) matches none. */
  if (amddwarf_expr_decode(bytes, size, &cu->format, ops, MAX_PATTERN, &count, NULL) !=
      AMDDWARF_OK)
    return AMDDWARF_QUIRK_NONE;
  return amddwarf__quirk_rewrite(cu, ops, count, res, &n);
}
