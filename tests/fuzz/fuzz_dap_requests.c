/* Fuzz target of `amddwarf dap`'s request handlers (tools/amddwarf/cmd_dap.c
 * and the dap_*.c files it dispatches to), over the two-wave stop of the
 * client tests (tests/dap/stop.json, its code object built from
 * tests/dap/program.json once per process).
 *
 * Each input is a session: initialize, launch, configurationDone, then one
 * request per few bytes. A request's first byte chooses the command, the
 * next ones its arguments from a table of what the handlers read (thread
 * and frame ids, variablesReference, lane lists, memory references, values
 * to write, expressions), each taken from a list of meaningful values
 * (valid ones, edges, and references the adapter handed out in this
 * session) or made of the input's bytes. Checked after every request: the
 * adapter wrote exactly one response to it, with its request_seq and
 * command, `success` a boolean, a failure carrying a message, and every
 * message framed and a JSON object; the session then goes on. */
#define _GNU_SOURCE /* open_memstream, mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dap.h"
#include "dap_protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char object_path[4200], stop_path[4200];

/* The code object of tests/dap/program.json, written once into a scratch
   directory, which is also the working directory: a REPL `save FILE` the
   input makes writes there. */
static void setup(void)
{
  char program[4096];
  snprintf(program, sizeof program, "%s/tests/dap/program.json", AMDDWARF_SOURCE_DIR);
  snprintf(stop_path, sizeof stop_path, "%s/tests/dap/stop.json", AMDDWARF_SOURCE_DIR);
  FILE *f = fopen(program, "rb");
  if (!f)
    abort();
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text, f);
  fclose(f);
  uint8_t *object = NULL;
  size_t object_size = 0;
  if (amddwarf_build_json(text, n, NULL, &object, &object_size, NULL) != AMDDWARF_OK)
    abort();
  char dir[] = "/tmp/fuzz_dap_requests.XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0)
    abort();
  snprintf(object_path, sizeof object_path, "%s/dap.elf", dir);
  f = fopen(object_path, "wb");
  if (!f || fwrite(object, 1, object_size, f) != object_size || fclose(f) != 0)
    abort();
  amddwarf_produce_free_bytes(NULL, object, object_size);
}

/* The input, read a byte at a time (0 past its end). */
typedef struct input {
  const uint8_t *data;
  size_t size, at;
} input;

static uint8_t next(input *in)
{
  return in->at < in->size ? in->data[in->at++] : 0;
}

/* References the adapter handed out in this session. */
enum { POOL = 16 };
typedef struct pool {
  json_int_t numbers[POOL];
  size_t count;
  char *texts[POOL];
  size_t text_count;
} pool;

static void remember_number(pool *p, json_int_t n)
{
  p->numbers[p->count++ % POOL] = n;
}

static void remember_text(pool *p, const char *text)
{
  size_t i = p->text_count++ % POOL;
  free(p->texts[i]);
  p->texts[i] = strdup(text);
}

/* Every variablesReference and memoryReference anywhere in J. */
static void harvest(pool *p, const json_t *j)
{
  if (json_is_object(j)) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)j, key, v) {
      if (json_is_integer(v) && (strcmp(key, "variablesReference") == 0 ||
                                 strcmp(key, "id") == 0 || strcmp(key, "frameId") == 0))
        remember_number(p, json_integer_value(v));
      else if (json_is_string(v) && (strcmp(key, "memoryReference") == 0 ||
                                     strcmp(key, "evaluateName") == 0 ||
                                     strcmp(key, "instructionPointerReference") == 0))
        remember_text(p, json_string_value(v));
      else
        harvest(p, v);
    }
  } else if (json_is_array(j)) {
    for (size_t i = 0; i < json_array_size(j); i++)
      harvest(p, json_array_get(j, i));
  }
}

static const json_int_t numbers[] = {
    0, 1, 2, 3, 4, 7, 8, 63, 64, 4095, 4096, 4097, 4098, 4099, 8193, 8194,
    -1, 1000, 100000, INT32_MAX, (json_int_t)1 << 40, INT64_MAX, INT64_MIN,
};

static const char *const texts[] = {
    "lane_id", "s", "s.x", "s.y", "arr", "arr[3]", "arr[9]", "arr[10]", "*s", "n", "total",
    "lane_id @lanes 0-3", "s @lanes all", "arr[1] @lanes active", "n @lanes 0,2-5,63",
    "lane 3", "lane 9", "lane 64", "lane", "lanes", "lane_id @lanes", "s.z", "arr[-1]",
    "0x1000", "local:0x100", "private_lane:5:0x40", "private_lane5:0x40", "private_wave:0x800",
    "2/local:0x100", "3/0x0", "private_lane:64:0", "global:0xffffffffffffffff", "generic:0x10",
    "region:0", "0x1120", "0x1084", "5", "-5", "1.5", "1e99", "true", "0x7fffffff", "[0-7]",
    "[0]", "x", "y", "pc", "exec", "s8", "v1 [lane 3]", "lanes", "active", "focus", "",
    "AAAA", "AQIDBA==", "!!", "watch", "repl", "hover", "named", "indexed", "variables",
    "registers",
};

static const char *const commands[] = {
    "threads", "stackTrace", "scopes", "variables", "evaluate", "setVariable", "setExpression",
    "readMemory", "writeMemory", "disassemble", "amdgpu/lanes", "setBreakpoints", "continue",
    "pause", "setExceptionBreakpoints", "initialize", "configurationDone", "nonsense",
};

/* The arguments any handler reads. */
static const char *const keys[] = {
    "threadId", "frameId", "variablesReference", "startFrame", "levels", "filter", "start",
    "count", "name", "value", "expression", "context", "memoryReference", "offset",
    "instructionOffset", "instructionCount", "resolveSymbols", "data", "allowPartial",
    "breakpoints",
};

static json_t *make_value(input *in, pool *p)
{
  uint8_t kind = next(in);
  uint8_t pick = next(in);
  switch (kind % 8) {
  case 0:
  case 1:
    return json_integer(numbers[pick % (sizeof numbers / sizeof numbers[0])]);
  case 2:
    return json_integer(p->count ? p->numbers[pick % (p->count < POOL ? p->count : POOL)] : pick);
  case 3:
  case 4:
    return json_string(texts[pick % (sizeof texts / sizeof texts[0])]);
  case 5:
    if (p->text_count)
      return json_string(p->texts[pick % (p->text_count < POOL ? p->text_count : POOL)]);
    return json_string("");
  case 6: {
    /* Text made of the input's bytes. */
    char text[64];
    size_t n = pick % sizeof text;
    for (size_t i = 0; i < n; i++)
      text[i] = (char)(' ' + next(in) % 95); /* printable ASCII, as a client sends */
    return json_stringn(text, n);
  }
  default:
    return pick % 3 == 0 ? json_null() : pick % 3 == 1 ? json_true() : json_array();
  }
}

/* The responses and events written since AT: framed, JSON objects, and
   exactly one response, to SEQ's COMMAND. */
static void check_output(char *out, size_t size, size_t *at, int64_t seq, const char *command,
                         pool *p)
{
  dap_reader r;
  dap_reader_init(&r);
  if (dap_reader_feed(&r, out + *at, size - *at) != 0)
    abort();
  *at = size;
  int responses = 0;
  for (;;) {
    json_t *m = NULL;
    int64_t mseq = 0;
    char error[256];
    dap_read_result rr = dap_reader_next(&r, &m, &mseq, error, sizeof error);
    if (rr == DAP_READ_ERROR)
      abort();
    if (rr != DAP_READ_MESSAGE)
      break;
    const char *type = json_string_value(json_object_get(m, "type"));
    if (!type)
      abort();
    if (strcmp(type, "response") == 0) {
      responses++;
      const json_t *success = json_object_get(m, "success");
      const char *cmd = json_string_value(json_object_get(m, "command"));
      if (json_integer_value(json_object_get(m, "request_seq")) != seq || !json_is_boolean(success) ||
          !cmd || strcmp(cmd, command) != 0)
        abort();
      if (json_is_false(success) && !json_is_string(json_object_get(m, "message")))
        abort();
      harvest(p, json_object_get(m, "body"));
    } else if (strcmp(type, "event") != 0 || !json_is_string(json_object_get(m, "event"))) {
      abort();
    }
    json_decref(m);
  }
  /* Nothing left half written. */
  json_t *rest = NULL;
  int64_t rseq = 0;
  char error[64];
  if (dap_reader_next(&r, &rest, &rseq, error, sizeof error) != DAP_READ_NEED_MORE)
    abort();
  dap_reader_free(&r);
  if (responses != 1)
    abort();
}

static void request(dap_session *s, FILE *out, char **buf, size_t *size, size_t *at,
                    int64_t seq, const char *command, json_t *args, pool *p)
{
  json_t *m = json_pack("{s:I,s:s,s:s}", "seq", (json_int_t)seq, "type", "request", "command",
                        command);
  if (!m)
    abort();
  if (args)
    json_object_set_new(m, "arguments", args);
  dap_handle_message(s, m, seq);
  json_decref(m);
  fflush(out);
  check_output(*buf, *size, at, seq, command, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int ready;
  if (!ready) {
    setup();
    ready = 1;
  }
  char *buf = NULL;
  size_t buf_size = 0, at = 0;
  FILE *out = open_memstream(&buf, &buf_size);
  if (!out)
    abort();
  dap_session s;
  memset(&s, 0, sizeof s);
  s.out = out;
  pool p;
  memset(&p, 0, sizeof p);
  int64_t seq = 0;
  request(&s, out, &buf, &buf_size, &at, ++seq, "initialize",
          json_pack("{s:s}", "adapterID", "amddwarf"), &p);
  request(&s, out, &buf, &buf_size, &at, ++seq, "launch",
          json_pack("{s:s,s:s}", "program", object_path, "stop", stop_path), &p);
  if (!s.launched)
    abort();
  request(&s, out, &buf, &buf_size, &at, ++seq, "configurationDone", NULL, &p);
  input in = {data, size, 0};
  for (int n = 0; in.at < in.size && n < 64 && !s.done; n++) {
    const char *command = commands[next(&in) % (sizeof commands / sizeof commands[0])];
    uint8_t count = next(&in) % 6;
    json_t *args = json_object();
    for (uint8_t k = 0; k < count; k++) {
      const char *key = keys[next(&in) % (sizeof keys / sizeof keys[0])];
      json_object_set_new(args, key, make_value(&in, &p));
    }
    request(&s, out, &buf, &buf_size, &at, ++seq, command, args, &p);
  }
  request(&s, out, &buf, &buf_size, &at, ++seq, "disconnect", NULL, &p);
  dap_session_release(&s);
  fclose(out);
  free(buf);
  for (size_t i = 0; i < POOL; i++)
    free(p.texts[i]);
  return 0;
}
