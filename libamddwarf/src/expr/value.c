/* Values on the DWARF stack: the generic type and base types (integral up to
 * 64 bits, IEEE binary32/binary64, vectors of any element as opaque bytes),
 * arithmetic, comparisons and DW_OP_convert / DW_OP_reinterpret. */
#include <math.h>
#include <string.h>

#include "expr/eval_internal.h"

uint8_t *amddwarf__pool_alloc(machine *m, size_t size)
{
  size_t aligned = (size + 7u) & ~(size_t)7u;
  if (aligned > m->ev->pool_cap - m->pool_used) {
    amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "more than %u bytes of computed values",
                 (unsigned)m->ev->pool_cap);
    return NULL;
  }
  uint8_t *p = m->ev->pool + m->pool_used;
  m->pool_used += (uint32_t)aligned;
  return p;
}

const uint8_t *amddwarf_value_bytes(const amddwarf_value *value)
{
  return value->pooled ? value->pooled : value->inline_bytes;
}

/* The bytes a value of TYPE takes. */
static size_t type_bytes(const amddwarf_base_type *type)
{
  return ((size_t)type->bit_size * type->count + 7u) / 8u;
}

size_t amddwarf_value_size(const amddwarf_value *value)
{
  return type_bytes(&value->type);
}

void amddwarf__value_set_bits(amddwarf_value *v, const amddwarf_base_type *type, uint64_t x)
{
  v->type = *type;
  v->pooled = NULL;
  v->is_implicit_pointer = 0;
  x &= bits_mask(type->bit_size);
  for (unsigned i = 0; i < 8; i++)
    v->inline_bytes[i] = (uint8_t)(x >> (8 * i));
  memset(v->inline_bytes + 8, 0, sizeof v->inline_bytes - 8);
}

/* The generic type: the address size, no DIE. */
static amddwarf_base_type generic_type(const machine *m)
{
  amddwarf_base_type generic = {0, machine_generic_bits(m), 1, AMDDWARF_ATE_GENERIC};
  return generic;
}

void amddwarf__value_set_generic(machine *m, amddwarf_value *v, uint64_t x)
{
  amddwarf_base_type generic = generic_type(m);
  amddwarf__value_set_bits(v, &generic, x);
}

bool amddwarf__type_is_integral(const amddwarf_base_type *type)
{
  if (type->count != 1 || type->bit_size > 64)
    return false;
  switch (type->encoding) {
  case AMDDWARF_ATE_GENERIC:
  case AMDDWARF_ATE_BOOLEAN:
  case AMDDWARF_ATE_SIGNED:
  case AMDDWARF_ATE_SIGNED_CHAR:
  case AMDDWARF_ATE_UNSIGNED:
  case AMDDWARF_ATE_UNSIGNED_CHAR:
  case AMDDWARF_ATE_UTF:
    return true;
  default:
    return type->encoding >= AMDDWARF_ATE_LO_USER;
  }
}

static bool type_is_signed(const amddwarf_base_type *type)
{
  return type->encoding == AMDDWARF_ATE_SIGNED || type->encoding == AMDDWARF_ATE_SIGNED_CHAR;
}

static bool type_is_float(const amddwarf_base_type *type)
{
  return type->encoding == AMDDWARF_ATE_FLOAT && type->count == 1 &&
         (type->bit_size == 32 || type->bit_size == 64);
}

bool amddwarf__type_equal(const amddwarf_base_type *a, const amddwarf_base_type *b)
{
  return a->encoding == b->encoding && a->bit_size == b->bit_size && a->count == b->count &&
         (a->die == b->die || a->encoding == AMDDWARF_ATE_GENERIC);
}

uint64_t amddwarf__value_u64(const amddwarf_value *v)
{
  /* Integral values (<= 64 bits) are always inline, zero-padded. */
  if (!v->pooled)
    return amddwarf__load_le64(v->inline_bytes) & bits_mask(v->type.bit_size);
  const uint8_t *b = v->pooled;
  size_t n = amddwarf_value_size(v);
  uint64_t x = 0;
  for (size_t i = 0; i < n && i < 8; i++)
    x |= (uint64_t)b[i] << (8 * i);
  return x & bits_mask(v->type.bit_size);
}

int64_t amddwarf__value_s64(const amddwarf_value *v)
{
  return rule_sign_extend(amddwarf__value_u64(v), v->type.bit_size);
}

amddwarf_status amddwarf__value_from_bytes(machine *m, amddwarf_value *v, const amddwarf_base_type *type,
                                 const uint8_t *bytes, size_t size)
{
  amddwarf__value_set_bits(v, type, 0);
  if (size > AMDDWARF_VALUE_MAX_BYTES)
    return amddwarf__machine_fail(m, AMDDWARF_E_LIMIT, "a value of %zu bytes is larger than %d",
                        size, AMDDWARF_VALUE_MAX_BYTES);
  if (size <= AMDDWARF_VALUE_INLINE_BYTES) {
    memcpy(v->inline_bytes, bytes, size);
    if (type->bit_size % 8 && size > 0 && type->count == 1)
      v->inline_bytes[size - 1] &= (uint8_t)((1u << (type->bit_size % 8)) - 1);
    return AMDDWARF_OK;
  }
  uint8_t *p = amddwarf__pool_alloc(m, size);
  if (!p)
    return AMDDWARF_E_LIMIT;
  memcpy(p, bytes, size);
  v->pooled = p;
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__type_lookup(machine *m, uint64_t die, amddwarf_base_type *out)
{
  if (die == 0) {
    *out = generic_type(m);
    return AMDDWARF_OK;
  }
  if (!TARGET_HAS(m->t, base_type))
    return amddwarf__machine_fail(m, AMDDWARF_E_UNSUPPORTED, "the target cannot look up base type DIE 0x%llx",
                        (unsigned long long)die);
  amddwarf_status st = m->t->base_type(m->t->user, die, out);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_TYPE, "DIE 0x%llx is not a base type",
                        (unsigned long long)die);
  if (st != AMDDWARF_OK)
    return amddwarf__machine_fail(m, st, "base type DIE 0x%llx: %s", (unsigned long long)die,
                        amddwarf_status_message(st));
  out->die = die;
  if (out->count == 0 || out->bit_size == 0 ||
      (uint64_t)out->bit_size * out->count > 8u * AMDDWARF_VALUE_MAX_BYTES ||
      out->encoding == AMDDWARF_ATE_GENERIC)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_TYPE,
                        "base type DIE 0x%llx: %u bits x %u elements, encoding %u is not usable",
                        (unsigned long long)die, (unsigned)out->bit_size, (unsigned)out->count,
                        (unsigned)out->encoding);
  return AMDDWARF_OK;
}

static double float_of(const amddwarf_value *v)
{
  uint64_t x = amddwarf__value_u64(v);
  if (v->type.bit_size == 32) {
    float f;
    uint32_t u = (uint32_t)x;
    memcpy(&f, &u, 4);
    return f;
  }
  double d;
  memcpy(&d, &x, 8);
  return d;
}

static void float_set(amddwarf_value *v, const amddwarf_base_type *type, double d)
{
  uint64_t x;
  if (type->bit_size == 32) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    x = u;
  } else {
    memcpy(&x, &d, 8);
  }
  amddwarf__value_set_bits(v, type, x);
}

static amddwarf_status bool_result(machine *m, amddwarf_value *out, bool b)
{
  amddwarf__value_set_generic(m, out, b ? 1 : 0);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__value_binary(machine *m, amddwarf_op_kind kind, const amddwarf_value *a,
                             const amddwarf_value *b, amddwarf_value *out)
{
  const amddwarf_base_type *type = &a->type;
  bool shift = kind == AMDDWARF_OP_shl || kind == AMDDWARF_OP_shr || kind == AMDDWARF_OP_shra;
  if (a->is_implicit_pointer || b->is_implicit_pointer)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "an implicit pointer value cannot be an arithmetic operand");
  if (shift) {
    if (!amddwarf__type_is_integral(&a->type) || !amddwarf__type_is_integral(&b->type))
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL, "shift operands must be integral");
  } else if (!amddwarf__type_equal(&a->type, &b->type)) {
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_TYPE_MISMATCH,
                        "operands have different types (%s %u bits, %s %u bits)",
                        amddwarf_encoding_name(a->type.encoding), (unsigned)a->type.bit_size,
                        amddwarf_encoding_name(b->type.encoding), (unsigned)b->type.bit_size);
  }
  if (type_is_float(type) && !shift) {
    double x = float_of(a), y = float_of(b);
    switch (kind) {
    case AMDDWARF_OP_plus: float_set(out, type, x + y); return AMDDWARF_OK;
    case AMDDWARF_OP_minus: float_set(out, type, x - y); return AMDDWARF_OK;
    case AMDDWARF_OP_mul: float_set(out, type, x * y); return AMDDWARF_OK;
    case AMDDWARF_OP_div: float_set(out, type, x / y); return AMDDWARF_OK;
    case AMDDWARF_OP_eq: return bool_result(m, out, x == y);
    case AMDDWARF_OP_ne: return bool_result(m, out, x != y);
    case AMDDWARF_OP_lt: return bool_result(m, out, x < y);
    case AMDDWARF_OP_le: return bool_result(m, out, x <= y);
    case AMDDWARF_OP_gt: return bool_result(m, out, x > y);
    case AMDDWARF_OP_ge: return bool_result(m, out, x >= y);
    default:
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL,
                          "the operation needs integral operands, not floating point");
    }
  }
  if (!amddwarf__type_is_integral(type))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL, "the operation needs integral operands");
  /* The generic type has unspecified signedness: DWARF uses signed division
     and signed comparisons for it. */
  bool is_signed = type_is_signed(type) || type->encoding == AMDDWARF_ATE_GENERIC;
  uint32_t bits = type->bit_size;
  uint64_t x = amddwarf__value_u64(a), y = amddwarf__value_u64(b);
  int64_t sx = rule_sign_extend(x, bits), sy = rule_sign_extend(y, bits);
  uint64_t r = 0;
  if (kind != AMDDWARF_OP_eq && kind != AMDDWARF_OP_ne &&
      amddwarf__integer_arithmetic(kind, x, y, bits, &r)) {
    amddwarf__value_set_bits(out, type, r);
    return AMDDWARF_OK;
  }
  switch (kind) {
  case AMDDWARF_OP_div:
    if (y == 0)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_DIVISION_BY_ZERO, "DW_OP_div by zero");
    if (is_signed) {
      if (sy == -1)
        r = (uint64_t)0 - (uint64_t)sx; /* also INT_MIN / -1 without overflow */
      else
        r = (uint64_t)(sx / sy);
    } else {
      r = x / y;
    }
    break;
  case AMDDWARF_OP_mod:
    if (y == 0)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_DIVISION_BY_ZERO, "DW_OP_mod by zero");
    if (type_is_signed(type)) {
      r = sy == -1 ? 0 : (uint64_t)(sx % sy);
    } else {
      r = x % y;
    }
    break;
  case AMDDWARF_OP_shra: {
    int64_t s = sx;
    if (y >= bits)
      r = s < 0 ? UINT64_MAX : 0;
    else
      r = s < 0 ? ~(~(uint64_t)s >> y) : (uint64_t)s >> y;
    break;
  }
  case AMDDWARF_OP_eq: return bool_result(m, out, x == y);
  case AMDDWARF_OP_ne: return bool_result(m, out, x != y);
  case AMDDWARF_OP_lt: return bool_result(m, out, is_signed ? sx < sy : x < y);
  case AMDDWARF_OP_le: return bool_result(m, out, is_signed ? sx <= sy : x <= y);
  case AMDDWARF_OP_gt: return bool_result(m, out, is_signed ? sx > sy : x > y);
  case AMDDWARF_OP_ge: return bool_result(m, out, is_signed ? sx >= sy : x >= y);
  default:
    return amddwarf__machine_fail(m, AMDDWARF_E_INVALID_ARGUMENT, "not a binary operation");
  }
  amddwarf__value_set_bits(out, type, r);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__value_unary(machine *m, amddwarf_op_kind kind, amddwarf_value *v)
{
  amddwarf_base_type type = v->type;
  if (v->is_implicit_pointer)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "an implicit pointer value cannot be an arithmetic operand");
  if (type_is_float(&type) && kind != AMDDWARF_OP_not) {
    double d = float_of(v);
    float_set(v, &type, kind == AMDDWARF_OP_neg ? -d : fabs(d));
    return AMDDWARF_OK;
  }
  if (!amddwarf__type_is_integral(&type))
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_NOT_INTEGRAL, "the operation needs an integral operand");
  /* abs of an unsigned value is the value; the generic type is signed. */
  bool is_signed = type_is_signed(&type) || type.encoding == AMDDWARF_ATE_GENERIC;
  uint64_t r = amddwarf__value_u64(v);
  if ((kind != AMDDWARF_OP_abs || is_signed) &&
      !amddwarf__integer_arithmetic(kind, r, 0, type.bit_size, &r))
    return amddwarf__machine_fail(m, AMDDWARF_E_INVALID_ARGUMENT, "not a unary operation");
  amddwarf__value_set_bits(v, &type, r);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf__value_convert(machine *m, amddwarf_value *v, const amddwarf_base_type *to,
                              bool reinterpret)
{
  if (v->is_implicit_pointer)
    return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_IMPLICIT_POINTER,
                        "an implicit pointer value cannot be converted");
  size_t from_size = amddwarf_value_size(v);
  size_t to_size = type_bytes(to);
  if (reinterpret) {
    if (from_size != to_size || v->type.bit_size * v->type.count != to->bit_size * to->count)
      return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_SIZE,
                          "DW_OP_reinterpret from %zu to %zu bytes: sizes must be equal", from_size,
                          to_size);
    uint8_t bytes[AMDDWARF_VALUE_MAX_BYTES];
    memcpy(bytes, amddwarf_value_bytes(v), from_size);
    return amddwarf__value_from_bytes(m, v, to, bytes, to_size);
  }
  bool from_int = amddwarf__type_is_integral(&v->type), to_int = amddwarf__type_is_integral(to);
  bool from_float = type_is_float(&v->type), to_float = type_is_float(to);
  amddwarf_value sv = *v;
  if (sv.type.encoding == AMDDWARF_ATE_GENERIC)
    sv.type.encoding = AMDDWARF_ATE_UNSIGNED;
  if (from_int && to_int) {
    uint64_t x = type_is_signed(&sv.type) ? (uint64_t)amddwarf__value_s64(&sv) : amddwarf__value_u64(&sv);
    amddwarf__value_set_bits(v, to, x);
    return AMDDWARF_OK;
  }
  if (from_int && to_float) {
    double d = type_is_signed(&sv.type) ? (double)amddwarf__value_s64(&sv) : (double)amddwarf__value_u64(&sv);
    float_set(v, to, d);
    return AMDDWARF_OK;
  }
  if (from_float && to_float) {
    float_set(v, to, float_of(v));
    return AMDDWARF_OK;
  }
  if (from_float && to_int) {
    double d = float_of(v);
    if (!(d > -9.3e18 && d < 1.8e19))
      return amddwarf__machine_fail(m, AMDDWARF_E_OVERFLOW, "floating-point value does not fit the integer type");
    uint64_t x = d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
    amddwarf__value_set_bits(v, to, x);
    return AMDDWARF_OK;
  }
  return amddwarf__machine_fail(m, AMDDWARF_E_EVAL_BAD_TYPE,
                      "DW_OP_convert from %s %u-bit x%u to %s %u-bit x%u is not defined",
                      amddwarf_encoding_name(v->type.encoding), (unsigned)v->type.bit_size,
                      (unsigned)v->type.count, amddwarf_encoding_name(to->encoding),
                      (unsigned)to->bit_size, (unsigned)to->count);
}

const char *amddwarf_encoding_name(uint8_t encoding)
{
  switch (encoding) {
  case AMDDWARF_ATE_GENERIC: return "generic";
  case AMDDWARF_ATE_ADDRESS: return "address";
  case AMDDWARF_ATE_BOOLEAN: return "boolean";
  case AMDDWARF_ATE_FLOAT: return "float";
  case AMDDWARF_ATE_SIGNED: return "signed";
  case AMDDWARF_ATE_SIGNED_CHAR: return "signed_char";
  case AMDDWARF_ATE_UNSIGNED: return "unsigned";
  case AMDDWARF_ATE_UNSIGNED_CHAR: return "unsigned_char";
  case AMDDWARF_ATE_UTF: return "UTF";
  default: return encoding >= AMDDWARF_ATE_LO_USER ? "user" : "unknown";
  }
}
