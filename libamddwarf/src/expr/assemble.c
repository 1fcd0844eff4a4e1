/* The expression assembler: text -> operations -> bytes.
 *
 * Syntax (specs/encodings.md, "Assembler syntax"):
 *   text      := statement { (';' | ',' | newline) statement }
 *   statement := { LABEL ':' } [ [DW_OP_LLVM_user] NAME { operand } ]
 * NAME is an operation name, with or without its "DW_OP_" prefix. Operands:
 *   integers   decimal, 0x hex or 0b binary, with an optional sign
 *   registers  a number or an AMDGPU name (v3, VGPR3, s33, exec, pc), where
 *              a "_W32"/"_W64" suffix picks the wave size (VGPR3_W32);
 *              DW_OP_bregx/DW_OP_LLVM_aspace_bregx also take "REG+N"/"REG-N"
 *              (aspace_bregx's ULEB displacement: "REG-N" is 2^64 - N, what
 *              the printer shows as REG-N)
 *   branches   a LABEL defined anywhere in the same text (a label after the
 *              last operation is the end of the expression), or the signed
 *              displacement in bytes the printer writes ("+2", "-3")
 *   blocks     hex bytes ("0x2a000000", "2a000000"; "0x" is empty), the
 *              printer's length and bytes ("0x2 0x2a 0x00"), or a
 *              parenthesized sub-expression assembled in the same format:
 *              DW_OP_entry_value(DW_OP_regx s33)
 * DW_OP_reg<n> may name its register and DW_OP_breg<n> prefix its offset
 * with it ("DW_OP_breg0 PC_32-1"), as the printer does. The text "<empty>"
 * is the empty expression. What amddwarf_expr_print writes assembles to the
 * bytes it was decoded from, in the same dialect (LEB128s minimal).
 * With references (amddwarf__expr_assemble_references), an integer operand
 * may also be "@NAME[+N|-N]": it is encoded as 0 and recorded as a fixup.
 * Errors are AMDDWARF_E_EXPR_SYNTAX (or the encoder's) with ERR.offset the
 * character offset in the text. */
#include "expr/codec.h"

#include <ctype.h>
#include <string.h>

#include <amddwarf/amdgpu.h>

#include "common/error.h"
#include "common/mem.h"
#include "common/text.h"

typedef struct token {
  size_t start;
  size_t length;
} token;

typedef struct label_def {
  token name;
  size_t index; /* operation the label stands before */
} label_def;

typedef struct label_use {
  token name;
  size_t op;
  bool is_displacement; /* NAME is a displacement in bytes, not a label */
  int64_t displacement;
} label_use;

typedef struct block_ref {
  size_t op;
  size_t pool_offset;
} block_ref;

typedef struct assembler {
  const char *text;
  size_t pos;
  size_t base; /* offset of TEXT within the outermost text, for errors */
  const amddwarf_expr_format *format;
  unsigned wave_size;
  amddwarf_error *err;
  amddwarf_op *ops;
  size_t *op_text; /* character offset of each operation */
  size_t op_count, op_capacity, op_text_capacity;
  label_def *labels;
  size_t label_count, label_capacity;
  label_use *uses;
  size_t use_count, use_capacity;
  block_ref *blocks;
  size_t block_count, block_capacity;
  uint8_t *pool;
  size_t pool_size, pool_capacity;
  unsigned depth;
  amddwarf_expr_references *refs; /* NULL: "@NAME" is not an operand */
  amddwarf_expr_fixup *fixups;
  size_t fixup_count, fixup_capacity;
} assembler;

enum { MAX_NESTING = 8 };

static amddwarf_status assemble_text(const char *text, size_t length, size_t base,
                                     const amddwarf_expr_format *format, unsigned wave_size,
                                     unsigned depth, uint8_t **out, size_t *size,
                                     amddwarf_error *err);

static amddwarf_status syntax(assembler *a, size_t at, const char *what, token t)
{
  return amddwarf__fail(a->err, AMDDWARF_E_EXPR_SYNTAX, a->base + at,
                       "at character %llu: %s '%.*s'", (unsigned long long)(a->base + at), what,
                       (int)(t.length > 40 ? 40 : t.length), a->text + t.start);
}

static bool is_word_char(char c)
{
  return c != '\0' && !isspace((unsigned char)c) && c != ';' && c != ',' && c != ':' &&
         c != '(' && c != ')';
}

static void skip_blanks(assembler *a)
{
  while (a->text[a->pos] == ' ' || a->text[a->pos] == '\t' || a->text[a->pos] == '\r')
    a->pos++;
}

/* The next word (empty at a separator or the end), without consuming it. */
static token peek_word(assembler *a)
{
  skip_blanks(a);
  token t = {a->pos, 0};
  while (is_word_char(a->text[t.start + t.length]))
    t.length++;
  return t;
}

/* The next word, consumed. */
static token take_word(assembler *a)
{
  token t = peek_word(a);
  a->pos = t.start + t.length;
  return t;
}

static bool token_is(const assembler *a, token t, const char *s)
{
  return strlen(s) == t.length && memcmp(a->text + t.start, s, t.length) == 0;
}

static bool token_equal(const assembler *a, token x, token y)
{
  return x.length == y.length && memcmp(a->text + x.start, a->text + y.start, x.length) == 0;
}

/* Parses an integer token: [+-] then decimal, 0x hex or 0b binary digits.
   *VALUE gets the two's-complement pattern; *NEGATIVE says whether a '-' was
   given. Returns false for anything else or a magnitude above 2^64-1 (2^63
   when negative). */
static bool parse_integer(const char *s, size_t n, uint64_t *value, bool *negative)
{
  size_t i = 0;
  *negative = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    *negative = s[i] == '-';
    i++;
  }
  unsigned radix = 10;
  if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    radix = 16;
    i += 2;
  } else if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
    radix = 2;
    i += 2;
  }
  if (i >= n)
    return false;
  uint64_t v = 0;
  for (; i < n; i++) {
    int digit = amddwarf__hex_digit(s[i]);
    unsigned d = (unsigned)digit;
    if (digit < 0 || d >= radix || v > (UINT64_MAX - d) / radix)
      return false;
    v = v * radix + d;
  }
  if (*negative) {
    if (v > (uint64_t)INT64_MAX + 1)
      return false;
    v = (uint64_t)0 - v;
  }
  *value = v;
  return true;
}

static amddwarf_status no_memory(assembler *a)
{
  return amddwarf__fail(a->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                       "expression assembler: out of memory");
}

/* An integer operand of KIND from token T. */
static amddwarf_status integer_operand(assembler *a, token t, amddwarf_operand_kind kind,
                                       uint64_t *value)
{
  bool negative;
  bool is_signed = amddwarf__expr_operand_shapes[kind].integer.is_signed;
  if (t.length == 0)
    return syntax(a, t.start, "missing operand", t);
  if (!parse_integer(a->text + t.start, t.length, value, &negative))
    return syntax(a, t.start, "expected an integer, got", t);
  if (negative && !is_signed)
    return syntax(a, t.start, "negative value for an unsigned operand", t);
  if (!negative && is_signed && *value > (uint64_t)INT64_MAX &&
      kind != AMDDWARF_OPERAND_S64)
    return syntax(a, t.start, "value out of range for a signed operand", t);
  return AMDDWARF_OK;
}

/* A register operand: a number or an AMDGPU register name. */
static amddwarf_status register_operand(assembler *a, token t, uint64_t *value)
{
  bool negative;
  char name[32];
  if (t.length == 0)
    return syntax(a, t.start, "missing register", t);
  if (parse_integer(a->text + t.start, t.length, value, &negative)) {
    if (negative)
      return syntax(a, t.start, "negative register number", t);
    return AMDDWARF_OK;
  }
  uint32_t dwarf;
  if (t.length >= sizeof name)
    return syntax(a, t.start, "unknown register", t);
  memcpy(name, a->text + t.start, t.length);
  name[t.length] = '\0';
  /* The printer's wave-qualified spelling: VGPR3_W32, AGPR3_W64. */
  unsigned wave = a->wave_size;
  if (t.length > 4 && name[t.length - 4] == '_' &&
      (name[t.length - 3] == 'w' || name[t.length - 3] == 'W') &&
      (strcmp(name + t.length - 2, "32") == 0 || strcmp(name + t.length - 2, "64") == 0)) {
    wave = name[t.length - 2] == '3' ? 32 : 64;
    name[t.length - 4] = '\0';
  }
  if (amddwarf_amdgpu_register_lookup(name, wave, &dwarf) != AMDDWARF_OK)
    return syntax(a, t.start, "unknown register", t);
  *value = dwarf;
  return AMDDWARF_OK;
}

/* The register REG names, which must be NUMBER: DW_OP_reg<n> and
   DW_OP_breg<n> name their register in the printer's spelling. */
static amddwarf_status implied_register(assembler *a, token t, uint64_t number)
{
  uint64_t named = 0;
  amddwarf_status st = register_operand(a, t, &named);
  if (st == AMDDWARF_OK && named != number)
    return syntax(a, t.start, "the register does not match the operation:", t);
  return st;
}

static amddwarf_status pool_append(assembler *a, const uint8_t *bytes, size_t n)
{
  if (amddwarf__mem_reserve(NULL, (void **)&a->pool, &a->pool_capacity, a->pool_size + n + 1,
                           1) != 0)
    return no_memory(a);
  if (n)
    memcpy(a->pool + a->pool_size, bytes, n);
  a->pool_size += n;
  return AMDDWARF_OK;
}

/* A block operand: hex bytes, or a parenthesized sub-expression. Sets the
   length in *VALUE and records where the bytes are in the pool. */
static amddwarf_status block_operand(assembler *a, uint64_t *value)
{
  amddwarf_status st;
  skip_blanks(a);
  block_ref ref = {a->op_count, a->pool_size};
  if (a->text[a->pos] == '(') {
    size_t open = a->pos;
    int level = 0;
    size_t end = open;
    for (; a->text[end]; end++) {
      if (a->text[end] == '(')
        level++;
      else if (a->text[end] == ')' && --level == 0)
        break;
    }
    if (level != 0) {
      token t = {open, 1};
      return syntax(a, open, "unbalanced parenthesis", t);
    }
    if (a->depth + 1 > MAX_NESTING) {
      token t = {open, 1};
      return syntax(a, open, "sub-expressions nested too deeply at", t);
    }
    uint8_t *bytes = NULL;
    size_t n = 0;
    st = assemble_text(a->text + open + 1, end - open - 1, a->base + open + 1, a->format,
                       a->wave_size, a->depth + 1, &bytes, &n, a->err);
    if (st == AMDDWARF_OK)
      st = pool_append(a, bytes, n);
    amddwarf__mem_free(NULL, bytes, n);
    if (st != AMDDWARF_OK)
      return st;
    a->pos = end + 1;
    *value = n;
  } else {
    token t = take_word(a);
    size_t i = 0;
    uint64_t length;
    bool negative;
    token next = peek_word(a);
    a->pos = t.start;
    if (t.length >= 2 && a->text[t.start] == '0' &&
        (a->text[t.start + 1] == 'x' || a->text[t.start + 1] == 'X'))
      i = 2;
    bool is_length = parse_integer(a->text + t.start, t.length, &length, &negative) && !negative;
    /* A lone "0x0" (odd digits: not bytes) is the printer's empty block. */
    if (is_length && (next.length > 0 || (length == 0 && (t.length - i) % 2 != 0))) {
      /* The printer's spelling: the length, then each byte as an integer. */
      a->pos = t.start + t.length;
      for (uint64_t k = 0; k < length; k++) {
        token b = peek_word(a);
        uint64_t byte;
        if (b.length == 0)
          return syntax(a, b.start, "the block has fewer bytes than its length; got", b);
        if (!parse_integer(a->text + b.start, b.length, &byte, &negative) || negative ||
            byte > 0xff)
          return syntax(a, b.start, "expected a byte of the block, got", b);
        uint8_t b8 = (uint8_t)byte;
        st = pool_append(a, &b8, 1);
        if (st != AMDDWARF_OK)
          return st;
        a->pos = b.start + b.length;
      }
      *value = length;
      goto recorded;
    }
    if (t.length == 0 || (t.length - i) % 2 != 0)
      return syntax(a, t.start, "expected hex bytes or a (sub-expression), got", t);
    for (; i < t.length; i += 2) {
      int hi = amddwarf__hex_digit(a->text[t.start + i]);
      int lo = amddwarf__hex_digit(a->text[t.start + i + 1]);
      if (hi < 0 || lo < 0)
        return syntax(a, t.start, "bad hex byte in block", t);
      uint8_t byte = (uint8_t)(hi << 4 | lo);
      st = pool_append(a, &byte, 1);
      if (st != AMDDWARF_OK)
        return st;
    }
    a->pos = t.start + t.length;
    *value = a->pool_size - ref.pool_offset;
  }
recorded:
  if (amddwarf__mem_reserve(NULL, (void **)&a->blocks, &a->block_capacity, a->block_count + 1,
                           sizeof *a->blocks) != 0)
    return no_memory(a);
  a->blocks[a->block_count++] = ref;
  return AMDDWARF_OK;
}

/* Splits "REG+N" / "REG-N" at the sign; false when there is none. */
static bool split_offset(const assembler *a, token t, token *reg, token *offset)
{
  for (size_t i = 1; i < t.length; i++) {
    char c = a->text[t.start + i];
    if (c == '+' || c == '-') {
      reg->start = t.start;
      reg->length = i;
      offset->start = t.start + i;
      offset->length = t.length - i;
      return true;
    }
  }
  return false;
}

static bool is_name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$';
}

/* "@NAME", "@NAME+N" or "@NAME-N" in token T for OPERAND of INFO: a fixup
   (the operand stays 0). */
static amddwarf_status reference_operand(assembler *a, token t, const amddwarf_op_info *info,
                                         unsigned operand)
{
  const char *at = a->text + t.start;
  size_t name_length = 0;
  while (name_length + 1 < t.length && is_name_char(at[1 + name_length]))
    name_length++;
  if (name_length == 0)
    return syntax(a, t.start, "'@' without a name:", t);
  amddwarf_expr_fixup f;
  memset(&f, 0, sizeof f);
  f.op_index = a->op_count;
  f.op_kind = info->kind;
  f.operand = operand;
  f.encoding = info->operands[operand];
  f.text_offset = a->base + t.start;
  f.name = at + 1;
  f.name_length = name_length;
  token addend = {t.start + 1 + name_length, t.length - 1 - name_length};
  if (addend.length > 0) {
    uint64_t v;
    bool negative;
    char sign = a->text[addend.start];
    if ((sign != '+' && sign != '-') ||
        !parse_integer(a->text + addend.start, addend.length, &v, &negative))
      return syntax(a, addend.start, "expected +N or -N after the name, got", addend);
    f.addend = (int64_t)v;
  }
  if (a->refs->check != NULL) {
    amddwarf_status st = a->refs->check(a->refs->user, &f, a->err);
    if (st != AMDDWARF_OK)
      return st;
  }
  if (amddwarf__mem_reserve(NULL, (void **)&a->fixups, &a->fixup_capacity, a->fixup_count + 1,
                           sizeof *a->fixups) != 0)
    return no_memory(a);
  a->fixups[a->fixup_count++] = f;
  return AMDDWARF_OK;
}

static amddwarf_status parse_operands(assembler *a, amddwarf_op *op,
                                      const amddwarf_op_info *info)
{
  amddwarf_status st = AMDDWARF_OK;
  for (unsigned i = 0; i < 2 && st == AMDDWARF_OK; i++) {
    amddwarf_operand_kind kind = info->operands[i];
    if (kind == AMDDWARF_OPERAND_NONE)
      break;
    if (kind == AMDDWARF_OPERAND_BLOCK || kind == AMDDWARF_OPERAND_BLOCK_U8) {
      st = block_operand(a, &op->operands[i]);
      continue;
    }
    token t = take_word(a);
    token reg, offset;
    if (info->kind >= AMDDWARF_OP_breg0 && info->kind <= AMDDWARF_OP_breg31 &&
        split_offset(a, t, &reg, &offset)) {
      /* The printer's "NAME+N" of a named register. */
      st = implied_register(a, reg, op->operands[1]);
      if (st == AMDDWARF_OK)
        st = integer_operand(a, offset, kind, &op->operands[i]);
      continue;
    }
    switch (kind) {
    case AMDDWARF_OPERAND_REG: {
      bool joined = info->operands[1] == AMDDWARF_OPERAND_SLEB ||
                    info->kind == AMDDWARF_OP_LLVM_aspace_bregx;
      if (i == 0 && joined && split_offset(a, t, &reg, &offset)) {
        st = register_operand(a, reg, &op->operands[0]);
        /* Signed either way: a negative displacement of aspace_bregx is
           its two's complement. */
        if (st == AMDDWARF_OK)
          st = integer_operand(a, offset, AMDDWARF_OPERAND_SLEB, &op->operands[1]);
        return st;
      }
      st = register_operand(a, t, &op->operands[i]);
      break;
    }
    case AMDDWARF_OPERAND_BRANCH: {
      if (t.length == 0)
        return syntax(a, t.start, "missing branch label", t);
      label_use use = {t, a->op_count, false, 0};
      uint64_t v;
      bool negative;
      if (parse_integer(a->text + t.start, t.length, &v, &negative)) {
        int64_t d = (int64_t)v;
        if ((negative && d < INT16_MIN) || (!negative && v > INT16_MAX))
          return syntax(a, t.start, "branch displacement does not fit 16 bits:", t);
        use.is_displacement = true;
        use.displacement = d;
      }
      if (amddwarf__mem_reserve(NULL, (void **)&a->uses, &a->use_capacity, a->use_count + 1,
                               sizeof *a->uses) != 0)
        return no_memory(a);
      a->uses[a->use_count++] = use;
      break;
    }
    case AMDDWARF_OPERAND_ENCODED_ADDR: {
      st = integer_operand(a, t, AMDDWARF_OPERAND_U8, &op->operands[0]);
      if (st == AMDDWARF_OK) {
        token v = take_word(a);
        st = integer_operand(a, v, AMDDWARF_OPERAND_S64, &op->operands[1]);
      }
      return st;
    }
    default:
      if (a->refs != NULL && t.length > 0 && a->text[t.start] == '@')
        st = reference_operand(a, t, info, i);
      else
        st = integer_operand(a, t, kind, &op->operands[i]);
      break;
    }
  }
  return st;
}

static const amddwarf_op_info *lookup_name(const assembler *a, token t)
{
  char name[64];
  size_t prefix = 0;
  if (t.length + 7 >= sizeof name)
    return NULL;
  if (!(t.length > 6 && memcmp(a->text + t.start, "DW_OP_", 6) == 0)) {
    memcpy(name, "DW_OP_", 6);
    prefix = 6;
  }
  memcpy(name + prefix, a->text + t.start, t.length);
  name[prefix + t.length] = '\0';
  return amddwarf_op_info_by_name(name);
}

static amddwarf_status parse_statement(assembler *a)
{
  amddwarf_status st;
  for (;;) {
    token t = take_word(a);
    skip_blanks(a);
    if (t.length == 0) {
      if (a->text[a->pos] == ':' || a->text[a->pos] == '(' || a->text[a->pos] == ')') {
        token c = {a->pos, 1};
        return syntax(a, a->pos, "unexpected", c);
      }
      return AMDDWARF_OK; /* empty statement */
    }
    if (a->text[a->pos] == ':') {
      a->pos++;
      for (size_t i = 0; i < a->label_count; i++)
        if (token_equal(a, a->labels[i].name, t))
          return syntax(a, t.start, "label defined twice:", t);
      if (amddwarf__mem_reserve(NULL, (void **)&a->labels, &a->label_capacity,
                               a->label_count + 1, sizeof *a->labels) != 0)
        return no_memory(a);
      a->labels[a->label_count++] = (label_def){t, a->op_count};
      continue;
    }
    bool user = false;
    size_t op_start = t.start;
    if (token_is(a, t, "DW_OP_LLVM_user")) {
      if (!amddwarf_expr_dialect_has_user(a->format->dialect))
        return amddwarf__fail(a->err, AMDDWARF_E_EXPR_NOT_IN_DIALECT, a->base + t.start,
                             "at character %llu: DW_OP_LLVM_user has no encoding in the %s "
                             "dialect",
                             (unsigned long long)(a->base + t.start),
                             amddwarf_dialect_name(a->format->dialect));
      user = true;
      t = take_word(a);
    }
    const amddwarf_op_info *info = lookup_name(a, t);
    if (!info)
      return syntax(a, t.start, "unknown operation", t);
    if (user && info->user_subop <= 0)
      return amddwarf__fail(a->err, AMDDWARF_E_EXPR_NOT_IN_DIALECT, a->base + t.start,
                           "at character %llu: %s has no DW_OP_LLVM_user sub-opcode",
                           (unsigned long long)(a->base + t.start), info->name);
    if (amddwarf__mem_reserve(NULL, (void **)&a->ops, &a->op_capacity, a->op_count + 1,
                             sizeof *a->ops) != 0 ||
        amddwarf__mem_reserve(NULL, (void **)&a->op_text, &a->op_text_capacity,
                             a->op_count + 1, sizeof *a->op_text) != 0)
      return no_memory(a);
    amddwarf_op *op = &a->ops[a->op_count];
    memset(op, 0, sizeof *op);
    op->kind = info->kind;
    if (user)
      op->subop = (uint32_t)info->user_subop;
    /* reg<n> and breg<n>: the register, as the decoder gives it. */
    uint64_t regno;
    if (amddwarf__expr_opcode_register(info->kind, &regno))
      op->operands[1] = regno;
    st = parse_operands(a, op, info);
    if (st != AMDDWARF_OK)
      return st;
    if (info->kind >= AMDDWARF_OP_reg0 && info->kind <= AMDDWARF_OP_reg31) {
      token name = peek_word(a);
      if (name.length > 0) {
        st = implied_register(a, name, op->operands[1]);
        if (st != AMDDWARF_OK)
          return st;
        a->pos = name.start + name.length;
      }
    }
    a->op_text[a->op_count] = op_start;
    a->op_count++;
    token extra = peek_word(a);
    if (extra.length > 0 || a->text[a->pos] == '(' || a->text[a->pos] == ')' ||
        a->text[a->pos] == ':') {
      if (extra.length == 0)
        extra.length = 1;
      return syntax(a, extra.start, "unexpected operand", extra);
    }
    return AMDDWARF_OK;
  }
}

/* Turns the displacements of branches into the operations they reach. When
   the operations cannot be sized (an encoder error), the targets are left
   alone: encoding reports that error. */
static amddwarf_status resolve_displacements(assembler *a)
{
  bool any = false;
  for (size_t u = 0; u < a->use_count; u++)
    any = any || a->uses[u].is_displacement;
  if (!any)
    return AMDDWARF_OK;
  uint64_t *offsets = amddwarf__mem_calloc(NULL, a->op_count + 1, sizeof *offsets);
  if (!offsets)
    return no_memory(a);
  amddwarf_status st = AMDDWARF_OK;
  if (amddwarf__expr_encode_offsets(a->ops, a->op_count, a->format, offsets, NULL) ==
      AMDDWARF_OK) {
    for (size_t u = 0; u < a->use_count && st == AMDDWARF_OK; u++) {
      const label_use *use = &a->uses[u];
      if (!use->is_displacement)
        continue;
      /* The displacement counts from the end of the 3-byte branch. */
      int64_t to = (int64_t)offsets[use->op + 1] + use->displacement;
      size_t k = 0;
      while (k <= a->op_count && (int64_t)offsets[k] != to)
        k++;
      if (k > a->op_count)
        st = amddwarf__fail(a->err, AMDDWARF_E_EXPR_BAD_BRANCH, a->base + use->name.start,
                           "at character %llu: displacement %lld reaches offset %lld, which "
                           "is not the start of an operation or the end",
                           (unsigned long long)(a->base + use->name.start),
                           (long long)use->displacement, (long long)to);
      else
        a->ops[use->op].target = (uint32_t)k;
    }
  }
  amddwarf__mem_free(NULL, offsets, (a->op_count + 1) * sizeof *offsets);
  return st;
}

static amddwarf_status resolve_labels(assembler *a)
{
  for (size_t u = 0; u < a->use_count; u++) {
    const label_use *use = &a->uses[u];
    if (use->is_displacement)
      continue;
    size_t l = 0;
    while (l < a->label_count && !token_equal(a, a->labels[l].name, use->name))
      l++;
    if (l == a->label_count)
      return syntax(a, use->name.start, "undefined label", use->name);
    a->ops[use->op].target = (uint32_t)a->labels[l].index;
  }
  for (size_t b = 0; b < a->block_count; b++)
    a->ops[a->blocks[b].op].block = a->pool ? a->pool + a->blocks[b].pool_offset : NULL;
  return resolve_displacements(a);
}

static void assembler_free(assembler *a)
{
  amddwarf__mem_free(NULL, a->ops, a->op_capacity * sizeof *a->ops);
  amddwarf__mem_free(NULL, a->op_text, a->op_text_capacity * sizeof *a->op_text);
  amddwarf__mem_free(NULL, a->labels, a->label_capacity * sizeof *a->labels);
  amddwarf__mem_free(NULL, a->uses, a->use_capacity * sizeof *a->uses);
  amddwarf__mem_free(NULL, a->blocks, a->block_capacity * sizeof *a->blocks);
  amddwarf__mem_free(NULL, a->pool, a->pool_capacity);
  amddwarf__mem_free(NULL, a->fixups, a->fixup_capacity * sizeof *a->fixups);
}

/* Parses TEXT into A's operations (labels resolved, blocks pointing into the
   pool). */
static amddwarf_status parse_all(assembler *a)
{
  amddwarf_status st = AMDDWARF_OK;
  /* The printer's spelling of the empty expression. */
  skip_blanks(a);
  if (strncmp(a->text + a->pos, "<empty>", 7) == 0) {
    size_t end = a->pos + 7;
    while (a->text[end] && isspace((unsigned char)a->text[end]))
      end++;
    if (a->text[end] == '\0')
      return AMDDWARF_OK;
  }
  for (;;) {
    st = parse_statement(a);
    if (st != AMDDWARF_OK)
      return st;
    skip_blanks(a);
    char c = a->text[a->pos];
    if (c == '\0')
      break;
    if (c == ';' || c == ',' || c == '\n') {
      a->pos++;
      continue;
    }
    token t = {a->pos, 1};
    return syntax(a, a->pos, "unexpected", t);
  }
  return resolve_labels(a);
}

/* Encodes the parsed operations; an encoder error's operation index becomes
   the character offset of that operation. */
static amddwarf_status encode_all(assembler *a, uint8_t *out, size_t capacity, size_t *size)
{
  amddwarf_status st =
      amddwarf_expr_encode(a->ops, a->op_count, a->format, out, capacity, size, a->err);
  if (st != AMDDWARF_OK && st != AMDDWARF_E_NO_SPACE && a->err &&
      a->err->offset < a->op_count) {
    char message[AMDDWARF_ERROR_MESSAGE_SIZE];
    uint64_t at = a->base + a->op_text[a->err->offset];
    memcpy(message, a->err->message, sizeof message);
    amddwarf__fail_op(a->err, st, at, a->err->opcode, a->err->subop, "at character %llu: %s",
                     (unsigned long long)at, message);
  }
  return st;
}

/* Encodes the parsed operations into a new buffer *OUT of *SIZE bytes
   (default allocator); nothing stays allocated on failure. */
static amddwarf_status encode_new(assembler *a, uint8_t **out, size_t *size)
{
  size_t needed = 0;
  amddwarf_status st = encode_all(a, NULL, 0, &needed);
  if (st != AMDDWARF_OK && st != AMDDWARF_E_NO_SPACE)
    return st;
  *out = amddwarf__mem_alloc(NULL, needed ? needed : 1);
  if (!*out)
    return no_memory(a);
  st = encode_all(a, *out, needed, size);
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(NULL, *out, needed ? needed : 1);
    *out = NULL;
    *size = 0;
  }
  return st;
}

/* An assembler of TEXT, nothing parsed yet. */
static void assembler_init(assembler *a, const char *text, const amddwarf_expr_format *format,
                           unsigned wave_size, amddwarf_error *err)
{
  memset(a, 0, sizeof *a);
  a->text = text;
  a->format = format;
  a->wave_size = wave_size;
  a->err = err;
}

/* Assembles LENGTH characters (a copy is made so that TEXT need not be
   terminated) into a new buffer *OUT of *SIZE bytes. */
static amddwarf_status assemble_text(const char *text, size_t length, size_t base,
                                     const amddwarf_expr_format *format, unsigned wave_size,
                                     unsigned depth, uint8_t **out, size_t *size,
                                     amddwarf_error *err)
{
  amddwarf_status st;
  assembler a;
  char *copy = amddwarf__mem_alloc(NULL, length + 1);
  *out = NULL;
  *size = 0;
  if (!copy)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "expression assembler: out of memory");
  memcpy(copy, text, length);
  copy[length] = '\0';
  assembler_init(&a, copy, format, wave_size, err);
  a.base = base;
  a.depth = depth;
  st = parse_all(&a);
  if (st == AMDDWARF_OK)
    st = encode_new(&a, out, size);
  assembler_free(&a);
  amddwarf__mem_free(NULL, copy, length + 1);
  return st;
}

amddwarf_status amddwarf_expr_assemble(const char *text, const amddwarf_expr_format *format,
                                       unsigned wave_size, uint8_t *out, size_t capacity,
                                       size_t *size, amddwarf_error *err)
{
  amddwarf_expr_format defaults;
  amddwarf_status st;
  assembler a;
  if (size)
    *size = 0;
  if (!text || !size || (!out && capacity))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_assemble: null argument");
  if (wave_size != 32 && wave_size != 64)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_assemble: wave size %u is not 32 or 64", wave_size);
  format = amddwarf_expr_format_check(format, &defaults);
  if (!format)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_expr_assemble: bad format");
  assembler_init(&a, text, format, wave_size, err);
  st = parse_all(&a);
  if (st == AMDDWARF_OK)
    st = encode_all(&a, out, capacity, size);
  assembler_free(&a);
  return st;
}

/* The byte offset of every fixup's operand in the encoded operations. */
static amddwarf_status place_fixups(assembler *a)
{
  if (a->fixup_count == 0)
    return AMDDWARF_OK;
  uint64_t *starts = amddwarf__mem_alloc(NULL, (a->op_count + 1) * sizeof *starts);
  if (!starts)
    return no_memory(a);
  amddwarf_status st = amddwarf__expr_encode_offsets(a->ops, a->op_count, a->format, starts,
                                                    a->err);
  for (size_t i = 0; i < a->fixup_count && st == AMDDWARF_OK; i++) {
    amddwarf_expr_fixup *f = &a->fixups[i];
    uint64_t within = 0;
    st = amddwarf__expr_operand_offset(&a->ops[f->op_index], f->operand, a->format, &within,
                                      a->err);
    f->byte_offset = starts[f->op_index] + within;
  }
  amddwarf__mem_free(NULL, starts, (a->op_count + 1) * sizeof *starts);
  return st;
}

amddwarf_status amddwarf__expr_assemble_references(const char *text,
                                                  const amddwarf_expr_format *format,
                                                  unsigned wave_size,
                                                  amddwarf_expr_references *refs, uint8_t **out,
                                                  size_t *size, amddwarf_error *err)
{
  amddwarf_expr_format defaults;
  assembler a;
  if (!text || !out || !size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf__expr_assemble_references: null argument");
  *out = NULL;
  *size = 0;
  format = amddwarf_expr_format_check(format, &defaults);
  if (!format || (wave_size != 32 && wave_size != 64))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf__expr_assemble_references: bad format or wave size");
  assembler_init(&a, text, format, wave_size, err);
  a.refs = refs;
  amddwarf_status st = parse_all(&a);
  if (st == AMDDWARF_OK)
    st = encode_new(&a, out, size);
  if (st == AMDDWARF_OK)
    st = place_fixups(&a);
  if (st != AMDDWARF_OK) {
    amddwarf__mem_free(NULL, *out, *size ? *size : 1);
    *out = NULL;
    *size = 0;
  } else if (refs != NULL) {
    refs->fixups = a.fixups;
    refs->fixup_count = a.fixup_count;
    refs->fixup_capacity = a.fixup_capacity;
    a.fixups = NULL;
    a.fixup_capacity = 0;
  }
  assembler_free(&a);
  return st;
}
