/* `amddwarf dap`: a Debug Adapter Protocol server over a stop (specs/dap.md).
 * The session is split by concern: cmd_dap.c (the loop and dispatch),
 * dap_protocol.c (framing), dap_stop.c (launch, threads, frames, lanes),
 * dap_vars.c (scopes, variables, evaluate, writes, the REPL) and
 * dap_memory.c (memory and disassembly). Every debugger rule is the
 * library's (<amddwarf/debug.h>, <amddwarf/stop.h>): these files translate. */
#ifndef AMDDWARF_DAP_H
#define AMDDWARF_DAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <amddwarf/amddwarf.h>

#include "dap_protocol.h"

/* One thread of the protocol: a wave of the stop. */
typedef struct dap_thread {
  const amddwarf_stop_wave *place;
  bool tried;                    /* opened, or failed to (WAVE, OPEN_ERROR): a wave is
                                    read and opened on first use (dap_thread_open) */
  /* The open waves in the order of their last use (dap_session.used_first):
     1 + the index of the thread used just before and just after this one,
     0 at either end; both 0 while the wave is not open. */
  size_t used_before, used_after;
  uint32_t focus;                /* the focused lane, kept while the wave is let go */
  bool has_focus;
  char name[512];                /* its name in `threads` once opened, kept likewise */
  amddwarf_target raw;           /* the wave's snapshot target */
  amddwarf_wave *wave;           /* NULL when it did not open (OPEN_ERROR says why) */
  char open_error[1024];
  /* The wave's code objects (borrowed from the session: the programs, or
     the code objects its snapshot lists) and, when it lists them, their
     load addresses (owned; NULL: the PCs are object addresses). */
  amddwarf_object **objects;
  size_t object_count;
  uint64_t *load_addresses;
} dap_thread;

/* A code object a stop lists by URI, opened once for every wave naming it. */
typedef struct dap_listed_object {
  char *uri;
  amddwarf_object *object;
  uint8_t *data;                 /* the bytes OBJECT reads, or NULL */
} dap_listed_object;

typedef enum dap_handle_kind {
  DAP_HANDLE_LOCALS,
  DAP_HANDLE_ARGUMENTS,
  DAP_HANDLE_REGISTERS,
  DAP_HANDLE_LANES_SCOPE,
  DAP_HANDLE_VALUE,              /* PATH's children */
  DAP_HANDLE_VALUE_LANES,        /* PATH's value per lane group */
  DAP_HANDLE_GLOBALS,
} dap_handle_kind;

/* What a variablesReference stands for. */
typedef struct dap_handle {
  dap_handle_kind kind;
  size_t thread;                 /* index into the threads */
  size_t frame;
  char *path;                    /* VALUE, VALUE_LANES */
  size_t var;                    /* VALUE, VALUE_LANES: 1 + the index among the frame's
                                    variables of a shadowed one, which PATH's name does
                                    not reach; 0: PATH's name finds the variable */
} dap_handle;

typedef struct dap_session {
  FILE *out;
  int64_t seq;                   /* of the last message sent */
  text_buf message_text;         /* the text of the message being sent */
  bool launched, configured, stopped_sent, done;
  amddwarf_object **objects;
  size_t object_count;
  char **object_paths;
  dap_listed_object *listed;     /* code objects the stop lists, by URI */
  size_t listed_count;
  amddwarf_stop *stop;
  char *stop_path;
  struct dap_stop_text *stop_texts; /* the stop files, mapped while the stop reads them */
  size_t stop_text_count;
  size_t open_count;             /* threads whose wave is open */
  size_t used_first, used_last;  /* 1 + the index of the open thread used least and most
                                    recently, 0 when none is open */
  dap_thread *threads;
  size_t thread_count;
  size_t current_thread;         /* the thread memory requests read (specs/dap.md) */
  dap_handle *handles;           /* variablesReference N is handles[N - 1] */
  size_t handle_count, handle_capacity;
  void *disasm;                  /* dap_memory.c's disassembler state, or NULL */
} dap_session;

/* The result of a request handler: BODY (may be NULL) on success, or a
   message (the caller's error response). */
typedef struct dap_reply {
  json_t *body;
  char message[1024];
  bool failed;
} dap_reply;

/* Fills REPLY as failed with a formatted message; returns false. */
bool dap_fail(dap_reply *reply, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An error of the library, ERR's message or STATUS's, after WHAT. */
bool dap_fail_status(dap_reply *reply, const char *what, amddwarf_status status,
                     const amddwarf_error *err);

/* Answers MESSAGE (sequence number SEQ) on S->out: its response, then any
   event it causes (cmd_dap.c; the request fuzz target drives it too). */
void dap_handle_message(dap_session *s, const json_t *message, int64_t seq);

/* Sends event EVENT with BODY (stolen; may be NULL). */
void dap_send_event(dap_session *s, const char *event, json_t *body);

/* Arguments: ARGS's member NAME as an integer in [0, MAX], or the default. */
bool dap_arg_index(dap_reply *reply, const json_t *args, const char *name, bool required,
                   uint64_t max, uint64_t *out);

/* ---- dap_stop.c ---- */
bool dap_launch(dap_session *s, const json_t *args, dap_reply *reply);
void dap_session_release(dap_session *s);
bool dap_threads(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_stack_trace(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_lanes_request(dap_session *s, const json_t *args, dap_reply *reply);
/* Reads and opens THREAD's wave on first use: true when it opened (else
   its OPEN_ERROR says why). */
bool dap_thread_open(dap_session *s, size_t thread);
/* Closes the least recently used waves (never the current thread's) until
   at most DAP_OPEN_WAVES are open: run after a response is sent, so that
   no request waits for the waves it let go. */
void dap_close_spare_waves(dap_session *s);
/* The thread of a threadId argument (1-based) that opened; sets current_thread. */
bool dap_thread_arg(dap_session *s, const json_t *args, dap_reply *reply, size_t *thread);
/* frameId = thread * DAP_FRAME_STRIDE + frame + 1. */
enum { DAP_FRAME_STRIDE = 4096 };
bool dap_frame_arg(dap_session *s, const json_t *args, bool required, dap_reply *reply,
                   size_t *thread, size_t *frame);
/* A DAP Source for FILE: its last component as name, FILE as path. */
json_t *dap_source_json(const char *file);

/* ---- dap_vars.c ---- */
bool dap_scopes(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_variables(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_evaluate(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_set_variable(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_set_expression(dap_session *s, const json_t *args, dap_reply *reply);
/* Forgets every variablesReference and tells the client to read again. */
void dap_invalidate(dap_session *s, size_t thread);
void dap_handles_clear(dap_session *s);

/* ---- dap_memory.c ---- */
bool dap_read_memory(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_write_memory(dap_session *s, const json_t *args, dap_reply *reply);
bool dap_disassemble(dap_session *s, const json_t *args, dap_reply *reply);
void dap_disasm_release(dap_session *s);
bool dap_disasm_available(void);

#endif
