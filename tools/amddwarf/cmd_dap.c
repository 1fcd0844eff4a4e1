/* amddwarf dap: a Debug Adapter Protocol server on stdin/stdout over a stop
 * (specs/dap.md, specs/stop.md): the loop that reads requests, dispatches
 * them and answers, and the requests that only touch the session. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, poll */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dap.h"
#include "dap_protocol.h"

static const char usage[] =
    "usage: amddwarf dap\n"
    "\n"
    "Serves the Debug Adapter Protocol on stdin and stdout, for editors and\n"
    "other DAP clients: a launch request names the code objects and a stop\n"
    "(specs/stop.md: waves as snapshots, one file or a directory of them); the\n"
    "client then sees one thread per wave, its frames, scopes, variables and\n"
    "per-lane values, evaluates paths, writes values and memory, and\n"
    "disassembles. specs/dap.md lists the requests, the REPL commands, memory\n"
    "references and the amdgpu/lanes extension.\n"
    "\n"
    "launch.json:\n"
    "  {\"type\": \"amddwarf\", \"request\": \"launch\", \"name\": \"stop\",\n"
    "   \"program\": \"kernel.elf\", \"stop\": \"stop.json\"}\n"
    "\n"
    "example: an editor starts `amddwarf dap` and sends the launch request above\n";

bool dap_fail(dap_reply *reply, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  vsnprintf(reply->message, sizeof reply->message, format, ap);
  va_end(ap);
  reply->failed = true;
  if (reply->body) {
    json_decref(reply->body);
    reply->body = NULL;
  }
  return false;
}

bool dap_fail_status(dap_reply *reply, const char *what, amddwarf_status status,
                     const amddwarf_error *err)
{
  const char *message = err && err->message[0] ? err->message : amddwarf_status_message(status);
  return dap_fail(reply, "%s: %s (%s)", what, message, amddwarf_status_name(status));
}

bool dap_arg_index(dap_reply *reply, const json_t *args, const char *name, bool required,
                   uint64_t max, uint64_t *out)
{
  const json_t *v = args ? json_object_get(args, name) : NULL;
  if (!v) {
    if (required)
      return dap_fail(reply, "missing argument '%s'", name);
    return true;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 ||
      (uint64_t)json_integer_value(v) > max)
    return dap_fail(reply, "argument '%s' must be an integer from 0 to %llu", name,
                    (unsigned long long)max);
  *out = (uint64_t)json_integer_value(v);
  return true;
}

static void send(dap_session *s, json_t *message)
{
  json_object_set_new(message, "seq", json_integer(++s->seq));
  dap_write_message(s->out, message, &s->message_text);
  json_decref(message);
}

void dap_send_event(dap_session *s, const char *event, json_t *body)
{
  json_t *m = json_object();
  json_object_set_new(m, "type", json_string("event"));
  json_object_set_new(m, "event", json_string(event));
  if (body)
    json_object_set_new(m, "body", body);
  send(s, m);
}

static void send_response(dap_session *s, int64_t request_seq, const char *command,
                          dap_reply *reply)
{
  json_t *m = json_object();
  json_object_set_new(m, "type", json_string("response"));
  json_object_set_new(m, "request_seq", json_integer(request_seq));
  json_object_set_new(m, "success", json_boolean(!reply->failed));
  json_object_set_new(m, "command", json_string(command));
  if (reply->failed) {
    json_object_set_new(m, "message", json_string(reply->message));
    json_object_set_new(m, "body", json_pack("{s:{s:i,s:s,s:b}}", "error", "id", 1, "format",
                                             reply->message, "showUser", 1));
  } else if (reply->body) {
    json_object_set_new(m, "body", reply->body);
    reply->body = NULL;
  }
  send(s, m);
}

/* ---- Requests about the session ---- */

static bool initialize(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)s;
  (void)args;
  /* The capabilities announced; DISASM: when the library decodes instructions. */
  enum { OFF, ON, DISASM };
  static const struct {
    const char *name;
    int value;
  } capabilities[] = {
      {"supportsConfigurationDoneRequest", ON}, {"supportsEvaluateForHovers", ON},
      {"supportsSetVariable", ON},              {"supportsSetExpression", ON},
      {"supportsReadMemoryRequest", ON},        {"supportsWriteMemoryRequest", ON},
      {"supportsDisassembleRequest", DISASM},   {"supportsSteppingGranularity", OFF},
      {"supportsInstructionBreakpoints", OFF},  {"supportsValueFormattingOptions", OFF},
      {"supportsTerminateRequest", ON},         {"supportsAmdgpuLanesRequest", ON}};
  reply->body = json_object();
  for (size_t i = 0; i < sizeof capabilities / sizeof capabilities[0]; i++)
    json_object_set_new(reply->body, capabilities[i].name,
                        json_boolean(capabilities[i].value == DISASM ? dap_disasm_available()
                                                                     : capabilities[i].value));
  return true;
}

static void maybe_stopped(dap_session *s)
{
  if (!s->launched || !s->configured || s->stopped_sent || s->thread_count == 0)
    return;
  s->stopped_sent = true;
  dap_send_event(s, "stopped",
                 json_pack("{s:s,s:s,s:i,s:b}", "reason", "pause", "description",
                           "the waves of the stop", "threadId", 1, "allThreadsStopped", 1));
}

static bool configuration_done(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)args;
  (void)reply;
  s->configured = true;
  return true;
}

static bool disconnect(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)args;
  (void)reply;
  s->done = true;
  return true;
}

static bool set_breakpoints(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)s;
  const json_t *bps = json_object_get(args, "breakpoints");
  json_t *list = json_array();
  for (size_t i = 0; i < json_array_size(bps); i++) {
    json_t *bp = json_object();
    json_object_set_new(bp, "verified", json_false());
    json_object_set_new(bp, "message",
                        json_string("a stop is a snapshot of stopped waves: they do not run"));
    json_array_append_new(list, bp);
  }
  reply->body = json_object();
  json_object_set_new(reply->body, "breakpoints", list);
  return true;
}

static bool no_op(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)s;
  (void)args;
  (void)reply;
  return true;
}

static bool not_running(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)s;
  (void)args;
  return dap_fail(reply, "the waves of a stop cannot run: the stop is a snapshot");
}

typedef struct request {
  const char *command;
  bool needs_launch;
  bool (*handle)(dap_session *s, const json_t *args, dap_reply *reply);
} request;

static const request requests[] = {
    {"initialize", false, initialize},
    {"launch", false, dap_launch},
    {"attach", false, dap_launch},
    {"configurationDone", false, configuration_done},
    {"disconnect", false, disconnect},
    {"terminate", false, disconnect},
    {"setBreakpoints", false, set_breakpoints},
    {"setExceptionBreakpoints", false, no_op},
    {"setFunctionBreakpoints", false, set_breakpoints},
    {"threads", false, dap_threads},
    {"stackTrace", true, dap_stack_trace},
    {"scopes", true, dap_scopes},
    {"variables", true, dap_variables},
    {"evaluate", true, dap_evaluate},
    {"setVariable", true, dap_set_variable},
    {"setExpression", true, dap_set_expression},
    {"readMemory", true, dap_read_memory},
    {"writeMemory", true, dap_write_memory},
    {"disassemble", true, dap_disassemble},
    {"amdgpu/lanes", true, dap_lanes_request},
    {"continue", true, not_running},
    {"next", true, not_running},
    {"stepIn", true, not_running},
    {"stepOut", true, not_running},
    {"stepBack", true, not_running},
    {"reverseContinue", true, not_running},
    {"pause", true, no_op},
};

/* The waves of a large stop are opened on first use and let go when many
   are open (dap_thread_open): a request naming a thread through a
   variablesReference or a memory reference "THREAD/..." has it opened
   before its handler runs; threadId and frameId arguments open theirs. */
static void open_named_thread(dap_session *s, const json_t *args)
{
  const json_t *ref = json_object_get(args, "variablesReference");
  if (json_is_integer(ref) && json_integer_value(ref) >= 1 &&
      (uint64_t)json_integer_value(ref) <= s->handle_count) {
    size_t thread = s->handles[json_integer_value(ref) - 1].thread;
    if (thread < s->thread_count)
      dap_thread_open(s, thread);
  }
  const char *memory = json_string_value(json_object_get(args, "memoryReference"));
  if (memory && memory[0] >= '1' && memory[0] <= '9') {
    char *end = NULL;
    unsigned long long thread = strtoull(memory, &end, 10);
    if (end && *end == '/' && thread >= 1 && thread <= s->thread_count)
      dap_thread_open(s, (size_t)thread - 1);
  }
}

void dap_handle_message(dap_session *s, const json_t *message, int64_t seq)
{
  dap_reply reply;
  memset(&reply, 0, sizeof reply);
  const json_t *type = json_object_get(message, "type");
  const json_t *command = json_object_get(message, "command");
  const char *name = json_is_string(command) ? json_string_value(command) : "";
  if (!json_is_string(type) || strcmp(json_string_value(type), "request") != 0) {
    if (json_is_string(type) && strcmp(json_string_value(type), "response") == 0)
      return; /* answers to reverse requests: none are sent */
    dap_fail(&reply, "a message of type %s%s%s: only requests are served",
             json_is_string(type) ? "'" : "",
             json_is_string(type) ? json_string_value(type) : "(missing)",
             json_is_string(type) ? "'" : "");
    send_response(s, seq, name, &reply);
    return;
  }
  if (!json_is_string(command)) {
    dap_fail(&reply, "a request without a 'command' string");
    send_response(s, seq, "", &reply);
    return;
  }
  const json_t *args = json_object_get(message, "arguments");
  if (args && !json_is_object(args)) {
    dap_fail(&reply, "%s: 'arguments' must be an object", name);
    send_response(s, seq, name, &reply);
    return;
  }
  const request *r = NULL;
  for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
    if (strcmp(requests[i].command, name) == 0)
      r = &requests[i];
  if (!r)
    dap_fail(&reply, "unknown request '%s'", name);
  else if (r->needs_launch && !s->launched)
    dap_fail(&reply, "%s: no stop is loaded: send launch first", name);
  else {
    if (s->launched && json_is_object(args))
      open_named_thread(s, args);
    r->handle(s, args, &reply);
  }
  send_response(s, seq, name, &reply);
  if (r && !reply.failed && r->handle == initialize)
    dap_send_event(s, "initialized", NULL);
  if (r && !reply.failed && (r->handle == dap_launch || r->handle == configuration_done))
    maybe_stopped(s);
  /* A write may change which lanes are active (the layer computes them
     again): the thread written is named anew. */
  if (r && !reply.failed && s->launched && s->current_thread < s->thread_count &&
      (r->handle == dap_set_variable || r->handle == dap_set_expression ||
       r->handle == dap_write_memory))
    s->threads[s->current_thread].name[0] = '\0';
  if (r && r->handle == disconnect && strcmp(name, "terminate") == 0)
    dap_send_event(s, "terminated", NULL);
  dap_close_spare_waves(s);
}

/* Watches stdin for up to 0.2 ms before the caller sleeps in read(): an
   editor sends requests in bursts, and a core gone idle wakes slowly and at
   a low clock, which costs more than a request (specs/dap.md). */
static void watch_input(void)
{
  struct timespec start, now;
  struct pollfd in = {STDIN_FILENO, POLLIN, 0};
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    if (poll(&in, 1, 0) != 0)
      return;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + now.tv_nsec - start.tv_nsec < 200000);
}

int cli_dap_main(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (cli_help_arg(argv[i], usage))
      return CLI_EXIT_OK;
    return cli_usage_error("dap", "unexpected argument '%s'", argv[i]);
  }
  dap_session s;
  memset(&s, 0, sizeof s);
  s.out = stdout;
  dap_reader reader;
  dap_reader_init(&reader);
  char buf[65536];
  int rc = CLI_EXIT_OK;
  while (!s.done) {
    json_t *message = NULL;
    int64_t seq = 0;
    char error[512];
    dap_read_result r = dap_reader_next(&reader, &message, &seq, error, sizeof error);
    if (r == DAP_READ_MESSAGE) {
      dap_handle_message(&s, message, seq);
      json_decref(message);
      continue;
    }
    if (r == DAP_READ_ERROR) {
      dap_reply reply;
      memset(&reply, 0, sizeof reply);
      dap_fail(&reply, "malformed message: %s", error);
      send_response(&s, seq, "", &reply);
      continue;
    }
    watch_input();
    ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    if (dap_reader_feed(&reader, buf, (size_t)got) != 0) {
      fprintf(stderr, "amddwarf dap: error: out of memory\n");
      rc = CLI_EXIT_BAD_INPUT;
      break;
    }
  }
  dap_reader_free(&reader);
  dap_session_release(&s);
  return rc;
}
