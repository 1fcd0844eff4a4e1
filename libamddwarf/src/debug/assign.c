/* Assigning to a value (debug.h): the text parsed strictly by the value's
 * type, every lane's location found and checked and its old bits read,
 * then every lane written; a failed write restores the lanes written
 * before it, so the assignment happens for all lanes or for none. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/value.h"

/* The bits to write, as the value's type reads them. */
typedef struct new_bits {
  uint8_t bytes[8];
  uint64_t bits;
} new_bits;

/* One lane's storage, checked, and what it held. */
typedef struct lane_storage {
  uint32_t lane;
  amddwarf_location loc;           /* composite parts: PARTS below */
  amddwarf_composite_part *parts;
  uint32_t part_count;
  uint64_t bit;
  uint8_t old[8];
} lane_storage;

/* ---- parsing the text ---- */

static amddwarf_status bad_text(amddwarf_valobj *v, amddwarf_error *err, const char *text,
                                const char *why)
{
  return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                       "cannot assign '%.100s' to '%.200s' (%s): %s", text, v->path_text,
                       v->plan.type_name, why);
}

/* A character literal: 'A', '\n', '\0', '\\', '\''. */
static int parse_char(const char *text, int64_t *out)
{
  static const char escapes[][2] = {{'a', '\a'}, {'b', '\b'}, {'f', '\f'}, {'n', '\n'},
                                    {'r', '\r'}, {'t', '\t'}, {'v', '\v'}, {'\\', '\\'},
                                    {'\'', '\''}, {'0', '\0'}};
  size_t n = strlen(text);
  if (n == 3 && text[0] == '\'' && text[2] == '\'' && text[1] != '\\') {
    *out = (unsigned char)text[1];
    return 0;
  }
  if (n != 4 || text[0] != '\'' || text[1] != '\\' || text[3] != '\'')
    return -1;
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; ++i)
    if (text[2] == escapes[i][0]) {
      *out = (unsigned char)escapes[i][1];
      return 0;
    }
  return -1;
}

/* An integer in C syntax (decimal, 0x hex, 0 octal), maybe negative: the
   magnitude in *MAGNITUDE and the sign in *NEGATIVE. */
static int parse_integer(const char *text, uint64_t *magnitude, int *negative)
{
  char *end = NULL;
  *negative = text[0] == '-';
  const char *digits = text + *negative;
  if (*digits < '0' || *digits > '9')
    return -1;
  errno = 0;
  *magnitude = strtoull(digits, &end, 0);
  return errno == ERANGE || *end != '\0' ? -1 : 0;
}

/* TEXT as an integer of WIDTH bits (signed when SIGNED_), two's complement. */
static int integer_bits(const char *text, uint64_t width, int signed_, uint64_t *out)
{
  uint64_t magnitude = 0;
  int negative = 0;
  int64_t c = 0;
  if (parse_char(text, &c) == 0) {
    magnitude = (uint64_t)c;
  } else if (parse_integer(text, &magnitude, &negative) != 0) {
    return -1;
  }
  uint64_t max = width >= 64 ? UINT64_MAX : (1ull << width) - 1;
  if (signed_) {
    uint64_t limit = 1ull << (width - 1); /* -limit .. limit - 1 */
    if (negative ? magnitude > limit : magnitude >= limit)
      return -2;
  } else if ((negative && magnitude != 0) || magnitude > max) {
    return -2;
  }
  *out = (negative ? 0 - magnitude : magnitude) & max;
  return 0;
}

/* Double to IEEE binary16, rounding to nearest even; -1 when out of range. */
static int double_to_half(double d, uint16_t *out)
{
  uint16_t sign = signbit(d) ? 0x8000 : 0;
  double a = fabs(d);
  int exponent = 0;
  if (isnan(d)) {
    *out = 0x7e00;
    return 0;
  }
  if (isinf(d)) {
    *out = sign | 0x7c00;
    return 0;
  }
  if (a == 0) {
    *out = sign;
    return 0;
  }
  frexp(a, &exponent); /* a = m * 2^exponent, m in [0.5, 1) */
  int e = exponent - 1; /* a = 1.f * 2^e */
  if (e < -14) {
    double units = nearbyint(ldexp(a, 24)); /* subnormal: units of 2^-24 */
    *out = sign | (uint16_t)units;          /* 1024 units carry into the exponent */
    return 0;
  }
  double mantissa = nearbyint(ldexp(a, 10 - e)); /* 1024 .. 2048 */
  if (mantissa >= 2048) {
    mantissa /= 2;
    ++e;
  }
  if (e > 15)
    return -1;
  *out = sign | (uint16_t)((e + 15) << 10) | (uint16_t)((uint64_t)mantissa & 0x3ff);
  return 0;
}

static int parse_float(const char *text, uint64_t size, new_bits *nb)
{
  char *end = NULL;
  if (text[0] == '\0' || text[0] == ' ')
    return -1;
  errno = 0;
  double d = strtod(text, &end);
  if (*end != '\0')
    return -1;
  if (errno == ERANGE && isinf(d))
    return -2;
  if (size == 8) {
    memcpy(nb->bytes, &d, 8);
  } else if (size == 4) {
    float f = (float)d;
    if (isinf(f) && !isinf(d))
      return -2;
    memcpy(nb->bytes, &f, 4);
  } else {
    uint16_t h = 0;
    if (double_to_half(d, &h) != 0)
      return -2;
    nb->bytes[0] = (uint8_t)h;
    nb->bytes[1] = (uint8_t)(h >> 8);
  }
  return 0;
}

/* The enumerator of enumeration T named TEXT, as WIDTH bits in *VALUE:
   0, -1 (no such enumerator) or -2 (its value does not fit WIDTH bits). */
static int enumerator(const amddwarf_object *object, const amddwarf_die_fields *t,
                      const char *text, uint64_t width, uint64_t *value)
{
  amddwarf_die_fields e;
  for (amddwarf_die_ref c = t->first_child; amddwarf__debug_fields(object, c, &e);
       c = e.next_sibling)
    if (e.name && e.const_value.kind != AMDDWARF_ATTR_NONE && strcmp(e.name, text) == 0) {
      uint64_t v = e.const_value.u;
      if (amddwarf__debug_extend_bits(v, width, 1) != v &&
          amddwarf__debug_extend_bits(v, width, 0) != v)
        return -2;
      *value = amddwarf__debug_extend_bits(v, width, 0);
      return 0;
    }
  return -1;
}

static amddwarf_status parse_text(amddwarf_valobj *v, const char *text, new_bits *nb,
                                  amddwarf_error *err)
{
  const amddwarf_debug_plan *plan = &v->plan;
  amddwarf_die_fields tf;
  const amddwarf_die_fields *t = &tf;
  amddwarf__debug_strip_fields(v->object, plan->result.die, &tf);
  int is_bool = t->tag == AMDDWARF_DW_TAG_base_type && t->encoding == AMDDWARF_ATE_BOOLEAN;
  int signed_ = amddwarf__debug_type_is_signed(v->object, t->die);
  uint64_t n = 0, width = plan->bit_size;
  int rc = 0;
  memset(nb, 0, sizeof *nb);
  nb->bits = width;
  if (t->tag == AMDDWARF_DW_TAG_base_type && t->encoding == AMDDWARF_ATE_FLOAT &&
      width == plan->byte_size * 8) {
    rc = parse_float(text, plan->byte_size, nb);
    return rc == 0    ? AMDDWARF_OK
           : rc == -1 ? bad_text(v, err, text, "not a number")
                      : bad_text(v, err, text, "out of the type's range");
  }
  if (is_bool && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
    nb->bytes[0] = text[0] == 't';
    return AMDDWARF_OK;
  }
  if (t->tag == AMDDWARF_DW_TAG_enumeration_type &&
      (rc = enumerator(v->object, t, text, width, &n)) != -1) {
    if (rc != 0)
      return bad_text(v, err, text, "the enumerator's value does not fit the bitfield");
  } else {
    rc = integer_bits(text, width, signed_, &n);
    if (rc == -1)
      return bad_text(v, err, text,
                      t->tag == AMDDWARF_DW_TAG_enumeration_type
                          ? "neither an enumerator nor an integer"
                      : is_bool ? "not true, false or an integer"
                                : "not an integer");
    if (rc == -2) {
      char why[96];
      snprintf(why, sizeof why, "out of the range of %s %llu bits",
               signed_ ? "signed" : "unsigned", (unsigned long long)width);
      return bad_text(v, err, text, why);
    }
  }
  for (size_t i = 0; i < 8; ++i)
    nb->bytes[i] = (uint8_t)(n >> (8 * i));
  return AMDDWARF_OK;
}

/* ---- the lanes' storage ---- */

/* Why (LOC, BIT, BITS) cannot be written: OK, E_EVAL_WRITE_UNDEFINED or
   E_EVAL_WRITE_READONLY. */
static amddwarf_status writable(const amddwarf_location *loc, uint64_t bit, uint64_t bits)
{
  if (loc->kind == AMDDWARF_LOCATION_UNDEFINED)
    return AMDDWARF_E_EVAL_WRITE_UNDEFINED;
  if (loc->kind == AMDDWARF_LOCATION_IMPLICIT || loc->kind == AMDDWARF_LOCATION_IMPLICIT_POINTER)
    return AMDDWARF_E_EVAL_WRITE_READONLY;
  if (loc->kind != AMDDWARF_LOCATION_COMPOSITE)
    return AMDDWARF_OK;
  uint64_t start = 0, from = loc->byte_offset * 8 + loc->bit + bit, to = from + bits;
  for (uint32_t i = 0; i < loc->u.composite.count; ++i) {
    const amddwarf_composite_part *part = &loc->u.composite.parts[i];
    uint64_t end = start + part->bit_size;
    if (from < end && to > start) {
      amddwarf_status st = writable(&part->location, 0, 0);
      if (st != AMDDWARF_OK)
        return st;
    }
    start = end;
  }
  return to > start ? AMDDWARF_E_EVAL_WRITE_UNDEFINED : AMDDWARF_OK;
}

/* Finds lane S->lane's storage, checks it and reads its old bits; the
   location is copied out of the evaluator, which the next lane reuses. */
static amddwarf_status prepare_lane(amddwarf_valobj *v, lane_storage *s,
                                    amddwarf_debug_lane_read *r, amddwarf_error *err)
{
  const amddwarf_debug_step *last_load = NULL;
  amddwarf_eval_request req;
  amddwarf_error e;
  uint64_t bits = v->plan.bit_size;
  amddwarf_error_clear(&e);
  amddwarf__debug_request_init(v->frame, v->cu, s->lane, &req);
  r->lane = s->lane;
  r->status = AMDDWARF_OK;
  amddwarf__text_reset(&r->message);
  amddwarf__text_reset(&r->explain);
  if (amddwarf__debug_value_locate(v, &s->loc, &s->bit, &last_load, r) != AMDDWARF_OK)
    return amddwarf__fail(err, r->status, AMDDWARF_NO_OFFSET, "lane %u: '%.200s': %s", s->lane,
                         v->path_text, amddwarf__text_str(&r->message));
  amddwarf_status st = writable(&s->loc, s->bit, bits);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "lane %u: '%.200s' cannot be written: %s",
                         s->lane, v->path_text,
                         st == AMDDWARF_E_EVAL_WRITE_READONLY ? "it is not in storage"
                                                              : "some of its bits are undefined");
  st = amddwarf_location_read(v->wave->ev, &req, &s->loc, s->bit, bits, s->old, &e);
  if (st != AMDDWARF_OK)
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "lane %u: reading '%.200s' first: %s",
                         s->lane, v->path_text, e.message[0] ? e.message : amddwarf_status_message(st));
  if (s->loc.kind == AMDDWARF_LOCATION_COMPOSITE) {
    size_t size = s->loc.u.composite.count * sizeof *s->parts;
    s->parts = amddwarf__mem_alloc(&v->wave->allocator, size ? size : 1);
    if (s->parts == NULL)
      return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "lane %u", s->lane);
    memcpy(s->parts, s->loc.u.composite.parts, size);
    s->part_count = s->loc.u.composite.count;
    s->loc.u.composite.parts = s->parts;
  }
  return AMDDWARF_OK;
}

static amddwarf_status write_lane(amddwarf_valobj *v, const lane_storage *s, const void *bytes,
                                  amddwarf_error *e)
{
  amddwarf_eval_request req;
  amddwarf__debug_request_init(v->frame, v->cu, s->lane, &req);
  return amddwarf_location_write(v->wave->ev, &req, &s->loc, s->bit, v->plan.bit_size, bytes, e);
}

/* Writes every lane of STORAGE[0..COUNT); on a failure, the lanes written
   before it get their old bits back. */
static amddwarf_status write_lanes(amddwarf_valobj *v, const lane_storage *storage, size_t count,
                                   const new_bits *nb, amddwarf_error *err)
{
  amddwarf_error e;
  amddwarf_error_clear(&e);
  for (size_t i = 0; i < count; ++i) {
    amddwarf_status st = write_lane(v, &storage[i], nb->bytes, &e);
    if (st == AMDDWARF_OK)
      continue;
    amddwarf_status restored = AMDDWARF_OK;
    uint32_t unrestored = 0;
    for (size_t k = i; k-- > 0;) {
      amddwarf_error ignored;
      if (write_lane(v, &storage[k], storage[k].old, &ignored) != AMDDWARF_OK) {
        restored = AMDDWARF_E_EVAL_UNAVAILABLE;
        unrestored = storage[k].lane;
      }
    }
    if (restored != AMDDWARF_OK)
      return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                           "lane %u: writing '%.200s': %s; lane %u could not be restored",
                           storage[i].lane, v->path_text,
                           e.message[0] ? e.message : amddwarf_status_message(st), unrestored);
    return amddwarf__fail(err, st, AMDDWARF_NO_OFFSET,
                         "lane %u: writing '%.200s': %s (%zu lane%s before it restored)",
                         storage[i].lane, v->path_text,
                         e.message[0] ? e.message : amddwarf_status_message(st), i,
                         i == 1 ? "" : "s");
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_valobj_assign(amddwarf_valobj *value, uint64_t lanes,
                                       const char *text, amddwarf_error *err)
{
  return amddwarf_valobj_assign_lanes(value, lanes, text, 0, err);
}

amddwarf_status amddwarf_valobj_assign_lanes(amddwarf_valobj *value, uint64_t lanes,
                                             const char *text, unsigned flags,
                                             amddwarf_error *err)
{
  lane_storage storage[AMDDWARF_MAX_LANES];
  amddwarf_debug_lane_read scratch;
  new_bits nb;
  size_t count = 0;
  amddwarf_status st;
  if (value == NULL || text == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_assign: NULL argument");
  if (!value->info.assignable)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "'%.200s' (%s) cannot be assigned: only scalars, enums, pointers "
                         "and bitfields can",
                         value->path_text, value->plan.type_name);
  uint32_t size = value->wave->info.wave_size;
  if (lanes & ~(size >= 64 ? ~0ull : (1ull << size) - 1))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane mask 0x%llx names lanes past the wave's %u",
                         (unsigned long long)lanes, size);
  /* An inactive lane stands at its own PC: the frame's location may not be
     where it keeps the variable, so writing it is asked for explicitly. */
  uint64_t inactive = lanes & ~value->active_mask;
  if (inactive != 0 && !(flags & AMDDWARF_ASSIGN_INACTIVE)) {
    char spelled[256];
    amddwarf_lanes_spell(inactive, size, spelled, sizeof spelled);
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane%s %s %s inactive: %s at %s own PC, where '%.200s' may be "
                         "kept elsewhere; writing inactive lanes must be asked for explicitly",
                         (inactive & (inactive - 1)) ? "s" : "", spelled,
                         (inactive & (inactive - 1)) ? "are" : "is",
                         (inactive & (inactive - 1)) ? "they stand" : "it stands",
                         (inactive & (inactive - 1)) ? "their" : "its", value->path_text);
  }
  if ((st = parse_text(value, text, &nb, err)) != AMDDWARF_OK)
    return st;
  memset(&scratch, 0, sizeof scratch);
  amddwarf__text_init(&scratch.message, &value->wave->allocator);
  amddwarf__text_init(&scratch.explain, &value->wave->allocator);
  amddwarf__text_init(&scratch.text, &value->wave->allocator);
  memset(storage, 0, sizeof storage);
  for (uint32_t lane = 0; lane < AMDDWARF_MAX_LANES && st == AMDDWARF_OK; ++lane) {
    if (!(lanes >> lane & 1))
      continue;
    storage[count].lane = lane;
    st = prepare_lane(value, &storage[count++], &scratch, err);
  }
  if (st == AMDDWARF_OK) {
    st = write_lanes(value, storage, count, &nb, err);
    /* The registers and memory written may be what lanes and frames are
       computed from; VALUE keeps reading through its frame. */
    amddwarf__debug_wave_written(value->wave);
  }
  for (size_t i = 0; i < count; ++i)
    amddwarf__mem_free(&value->wave->allocator, storage[i].parts,
                      storage[i].part_count ? storage[i].part_count * sizeof *storage[i].parts
                                            : 1);
  amddwarf__text_free(&scratch.message);
  amddwarf__text_free(&scratch.explain);
  amddwarf__text_free(&scratch.text);
  return st;
}
