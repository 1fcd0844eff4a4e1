/* The adapter's own time per request, in process: `amddwarf dap`'s request
 * handlers (tools/amddwarf) driven directly on the 2,560-wave stop that
 * gpu_stop_write writes, with the request sequence of tests/dap/bench.test.js.
 * A request's time runs from the call to the moment its response is
 * written out (the session's stream is a cookie stream that notes the time
 * of each write); what the adapter does after its response (closing spare
 * waves) is not a request's. The client, the pipe and the scheduler's
 * wake-ups are left out: this is the part of a round trip the adapter owns.
 *
 *   dap_service DIR      (DIR holds gpu_stop.elf and gpu_stop.json)
 */
#define _GNU_SOURCE /* fopencookie */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "dap.h"

enum { REQUESTS = 1000, WAVES = 2560 };

static uint64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The session's output: the time of the first write since the last reset,
   and the last message's text (for the references a response hands out). */
typedef struct sink {
  uint64_t first_write;
  char text[1 << 20];
  size_t length;
} sink;

static ssize_t sink_write(void *cookie, const char *bytes, size_t size)
{
  sink *k = cookie;
  if (k->first_write == 0)
    k->first_write = now_ns();
  if (k->length + size < sizeof k->text) {
    memcpy(k->text + k->length, bytes, size);
    k->length += size;
  }
  return (ssize_t)size;
}

/* Sends COMMAND with ARGUMENTS (JSON text) and returns the time to its
   response in ns; the response's body, parsed, into *BODY when asked. */
static uint64_t request(dap_session *s, sink *k, const char *command, const char *arguments,
                        json_t **body)
{
  static int64_t seq;
  char text[8192];
  int n = snprintf(text, sizeof text, "{\"seq\":%lld,\"type\":\"request\",\"command\":\"%s\","
                   "\"arguments\":%s}", (long long)++seq, command, arguments);
  json_t *message = n > 0 && (size_t)n < sizeof text ? json_loads(text, 0, NULL) : NULL;
  if (message == NULL)
    abort();
  k->first_write = 0;
  k->length = 0;
  uint64_t start = now_ns();
  dap_handle_message(s, message, seq);
  uint64_t took = k->first_write - start;
  json_decref(message);
  if (body != NULL) {
    /* The response is the first message written: after its header. */
    k->text[k->length < sizeof k->text ? k->length : sizeof k->text - 1] = '\0';
    const char *json = strstr(k->text, "\r\n\r\n");
    json_t *response = json ? json_loadb(json + 4, strlen(json + 4), JSON_DISABLE_EOF_CHECK, NULL)
                            : NULL;
    *body = json_incref(json_object_get(response, "body"));
    json_decref(response);
  }
  return took;
}

static int by_value(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static const char *quantiles(uint64_t *times, size_t n, char *out, size_t size)
{
  qsort(times, n, sizeof *times, by_value);
  snprintf(out, size, "%.3f/%.3f/%.3f", times[n / 2] / 1e6, times[n * 9 / 10] / 1e6,
           times[n - 1] / 1e6);
  return out;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: dap_service DIR (gpu_stop_write's output)\n");
    return 2;
  }
  static sink k;
  cookie_io_functions_t io = {.write = sink_write};
  dap_session s;
  memset(&s, 0, sizeof s);
  s.out = fopencookie(&k, "w", io);
  char arguments[4096];
  request(&s, &k, "initialize", "{\"adapterID\":\"amddwarf\"}", NULL);
  int length = snprintf(arguments, sizeof arguments,
                        "{\"program\":\"%s/gpu_stop.elf\",\"stop\":\"%s/gpu_stop.json\"}",
                        argv[1], argv[1]);
  if (length < 0 || (size_t)length >= sizeof arguments) {
    fprintf(stderr, "dap_service: %s: the directory's name is too long\n", argv[1]);
    return 2;
  }
  uint64_t launch = request(&s, &k, "launch", arguments, NULL);
  request(&s, &k, "configurationDone", "{}", NULL);

  static const char *const kinds[] = {"stackTrace", "scopes", "locals", "evaluate", "outer", "lanes"};
  enum { KINDS = 6 };
  static uint64_t times[2][KINDS][REQUESTS], all[2][REQUESTS];
  size_t counts[2][KINDS] = {{0}};
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < REQUESTS; i++) {
      size_t n = pass == 0 ? i : REQUESTS - 50 + i % 50;
      size_t wave = n * 37 % WAVES, kind = i % KINDS;
      unsigned long long thread = wave + 1, frame = wave * 4096 + 1;
      uint64_t took = 0;
      if (kind == 0) {
        snprintf(arguments, sizeof arguments, "{\"threadId\":%llu}", thread);
        took = request(&s, &k, "stackTrace", arguments, NULL);
      } else if (kind == 1 || kind == 2) {
        json_t *body = NULL;
        snprintf(arguments, sizeof arguments, "{\"frameId\":%llu}", frame);
        took = request(&s, &k, "scopes", arguments, kind == 2 ? &body : NULL);
        if (kind == 2) {
          json_t *locals = json_object_get(json_array_get(json_object_get(body, "scopes"), 0),
                                           "variablesReference");
          snprintf(arguments, sizeof arguments, "{\"variablesReference\":%lld}",
                   (long long)json_integer_value(locals));
          json_decref(body);
          took = request(&s, &k, "variables", arguments, NULL);
        }
      } else if (kind == 3 || kind == 4) {
        snprintf(arguments, sizeof arguments,
                 "{\"expression\":\"%s\",\"frameId\":%llu,\"context\":\"%s\"}",
                 kind == 3 ? "lane_id" : "lane_id @lanes all", frame, kind == 3 ? "watch" : "repl");
        took = request(&s, &k, "evaluate", arguments, NULL);
      } else {
        snprintf(arguments, sizeof arguments, "{\"threadId\":%llu}", thread);
        took = request(&s, &k, "amdgpu/lanes", arguments, NULL);
      }
      times[pass][kind][counts[pass][kind]++] = took;
      all[pass][i] = took;
    }
  }
  char q[64];
  printf("# amddwarf dap in process, 2,560-wave stop: launch %.1f ms; median/p90/max ms of the time "
         "to each response\n", launch / 1e6);
  for (int pass = 0; pass < 2; pass++) {
    size_t over = 0;
    for (size_t i = 0; i < REQUESTS; i++)
      over += all[pass][i] > 320000;
    printf("%s: all %s, %zu over 0.32 ms;", pass == 0 ? "new waves" : "open waves",
           quantiles(all[pass], REQUESTS, q, sizeof q), over);
    for (size_t kind = 0; kind < KINDS; kind++)
      printf(" %s %s;", kinds[kind], quantiles(times[pass][kind], counts[pass][kind], q, sizeof q));
    printf("\n");
  }
  request(&s, &k, "disconnect", "{}", NULL);
  dap_session_release(&s);
  fclose(s.out);
  return 0;
}
