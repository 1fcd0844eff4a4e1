/* JSON values and documents by the convention of specs/json.md; see
 * json_out.h. */
#include "json_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amddwarf.h>

json_t *cli_json_addr(uint64_t value)
{
  char text[24];
  snprintf(text, sizeof text, "0x%llx", (unsigned long long)value);
  return json_string(text);
}

json_t *cli_json_hex(const uint8_t *bytes, size_t size)
{
  static const char digits[] = "0123456789abcdef";
  char *text = malloc(size * 2 + 1);
  if (!text)
    return json_null();
  for (size_t i = 0; i < size; i++) {
    text[2 * i] = digits[bytes[i] >> 4];
    text[2 * i + 1] = digits[bytes[i] & 15];
  }
  text[2 * size] = '\0';
  json_t *result = json_string(text);
  free(text);
  return result;
}

json_t *cli_json_code(const char *name, uint64_t code)
{
  return name != NULL ? json_string(name) : cli_json_addr(code);
}

json_t *cli_json_aspace(uint32_t value)
{
  amddwarf_aspace_info info;
  if (amddwarf_aspace_info_get(value, &info) != AMDDWARF_OK)
    return cli_json_addr(value);
  char text[64];
  if (value >= AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0)
    snprintf(text, sizeof text, "%s%u", info.name,
             (unsigned)(value - AMDDWARF_ASPACE_AMDGPU_PRIVATE_LANE0));
  else
    snprintf(text, sizeof text, "%s", info.name);
  return json_string(text);
}

void cli_json_set_register(json_t *object, const char *key, uint32_t regno, const char *name)
{
  char buf[64], member[64];
  if (name == NULL) {
    if (amddwarf_amdgpu_register_name(regno, AMDDWARF_REGISTER_DWARF_NAME, buf, sizeof buf) !=
        AMDDWARF_OK)
      snprintf(buf, sizeof buf, "reg%u", (unsigned)regno);
    name = buf;
  }
  snprintf(member, sizeof member, "%s_name", key);
  json_object_set_new(object, key, json_integer(regno));
  json_object_set_new(object, member, json_string(name));
}

/* ---- expression operations ---- */

static json_t *signed_json(uint64_t v)
{
  return json_integer((json_int_t)(v > INT64_MAX ? -(int64_t)(~v) - 1 : (int64_t)v));
}

json_t *cli_json_op(const amddwarf_op *op, bool detail)
{
  const amddwarf_op_info *info = amddwarf_op_info_get(op->kind);
  json_t *o = json_object();
  if (detail) {
    json_object_set_new(o, "offset", cli_json_addr(op->offset));
    json_object_set_new(o, "size", json_integer(op->size));
    json_object_set_new(o, "opcode", cli_json_addr(op->opcode));
    json_object_set_new(o, "subop", op->subop ? cli_json_addr(op->subop) : json_null());
  }
  json_object_set_new(o, "op", json_string(info ? info->name : "?"));
  bool family = (op->kind >= AMDDWARF_OP_reg0 && op->kind <= AMDDWARF_OP_reg31) ||
                (op->kind >= AMDDWARF_OP_breg0 && op->kind <= AMDDWARF_OP_breg31);
  if (family)
    cli_json_set_register(o, "register", (uint32_t)op->operands[1], NULL);
  json_t *operands = json_array();
  for (unsigned i = 0; info != NULL && i < 2 && !(family && i == 1); i++) {
    uint64_t v = op->operands[i];
    switch (info->operands[i]) {
    case AMDDWARF_OPERAND_NONE:
      break;
    case AMDDWARF_OPERAND_S8:
    case AMDDWARF_OPERAND_S16:
    case AMDDWARF_OPERAND_S32:
    case AMDDWARF_OPERAND_S64:
    case AMDDWARF_OPERAND_SLEB:
    case AMDDWARF_OPERAND_BRANCH:
      json_array_append_new(operands, signed_json(v));
      break;
    case AMDDWARF_OPERAND_REG:
      json_array_append_new(operands, json_integer((json_int_t)(uint32_t)v));
      if (i == 0 && v <= UINT32_MAX)
        cli_json_set_register(o, "register", (uint32_t)v, NULL);
      break;
    case AMDDWARF_OPERAND_BLOCK:
    case AMDDWARF_OPERAND_BLOCK_U8:
      json_array_append_new(operands, cli_json_hex(op->block, (size_t)v));
      break;
    case AMDDWARF_OPERAND_ENCODED_ADDR:
      json_array_append_new(operands, cli_json_addr(v));
      json_array_append_new(operands, cli_json_addr(op->operands[1]));
      i = 2;
      break;
    default:
      json_array_append_new(operands, cli_json_addr(v));
      break;
    }
  }
  json_object_set_new(o, "operands", operands);
  if (detail && info != NULL && info->operands[0] == AMDDWARF_OPERAND_BRANCH)
    json_object_set_new(o, "target", json_integer(op->target));
  return o;
}

/* ---- streamed documents ---- */

void cli_json_put(json_t *value, int indent)
{
  char *text = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  /* a line at a time: a large object's documents make hundreds of MB */
  for (const char *line = text; line != NULL && *line != '\0';) {
    const char *end = strchr(line, '\n');
    size_t n = end != NULL ? (size_t)(end - line) + 1 : strlen(line);
    fwrite(line, 1, n, stdout);
    if (end != NULL)
      fprintf(stdout, "%*s", indent, "");
    line += n;
  }
  free(text);
  json_decref(value);
}

static void put_line(const char *name, json_t *value)
{
  json_t *line = json_object();
  json_object_set_new(line, name, value);
  char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (text) {
    puts(text);
    free(text);
  }
  json_decref(line);
}

static void member_start(cli_json_stream *s, const char *name)
{
  json_t *key = json_string(name);
  char *quoted = json_dumps(key, JSON_ENCODE_ANY);
  printf("%s\n  %s: ", s->members ? "," : "", quoted ? quoted : "\"\"");
  free(quoted);
  json_decref(key);
  s->members = true;
}

void cli_json_stream_begin(cli_json_stream *s, bool lines)
{
  memset(s, 0, sizeof *s);
  s->lines = lines;
  if (!lines)
    fputs("{", stdout);
}

void cli_json_stream_member(cli_json_stream *s, const char *name, json_t *value)
{
  if (s->lines) {
    put_line(name, value);
    return;
  }
  member_start(s, name);
  cli_json_put(value, 2);
}

void cli_json_stream_array_begin(cli_json_stream *s, const char *name, const char *element)
{
  s->in_array = true;
  s->array_open = false;
  s->element = element;
  if (!s->lines)
    member_start(s, name);
}

void cli_json_stream_element(cli_json_stream *s, json_t *value)
{
  if (s->lines) {
    put_line(s->element, value);
    return;
  }
  fputs(s->array_open ? ",\n    " : "[\n    ", stdout);
  s->array_open = true;
  cli_json_put(value, 4);
}

void cli_json_stream_array_end(cli_json_stream *s)
{
  if (!s->lines)
    fputs(s->array_open ? "\n  ]" : "[]", stdout);
  s->in_array = false;
}

void cli_json_stream_end(cli_json_stream *s)
{
  if (!s->lines)
    fputs(s->members ? "\n}\n" : "}\n", stdout);
  fflush(stdout);
}
