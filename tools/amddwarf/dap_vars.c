/* amddwarf dap: values. scopes (Locals, Arguments, Registers, Lanes),
 * variables (the value tree of amddwarf_valobj_child, paged, and each value's
 * lanes grouped by amddwarf_valobj_read_lanes), evaluate (paths and the REPL
 * commands), setVariable and setExpression (amddwarf_valobj_assign).
 *
 * A variablesReference names what to list (a scope of a frame, or a path's
 * children or lanes), not a value read once: every request reads the stop as
 * it is, so references stay valid across writes and focus changes, and the
 * same descriptor always gets the same reference. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dap.h"
#include "object_cli.h"

enum {
  /* Elements listed for a variables request without a start/count. */
  UNPAGED_ELEMENTS = 1000,
};

/* ---- References ---- */

void dap_handles_clear(dap_session *s)
{
  for (size_t i = 0; i < s->handle_count; i++)
    free(s->handles[i].path);
  s->handle_count = 0;
}

/* The reference of the descriptor, made when new. 0 when out of memory. */
static json_int_t handle_ref(dap_session *s, dap_handle_kind kind, size_t thread, size_t frame,
                             size_t var, const char *path)
{
  /* Recent references are the likely ones: search from the end. */
  for (size_t i = s->handle_count; i-- > 0;) {
    const dap_handle *h = &s->handles[i];
    if (h->kind == kind && h->thread == thread && h->frame == frame && h->var == var &&
        (h->path == path || (h->path && path && strcmp(h->path, path) == 0)))
      return (json_int_t)i + 1;
  }
  if (s->handle_count == s->handle_capacity) {
    size_t cap = s->handle_capacity ? s->handle_capacity * 2 : 64;
    dap_handle *grown = realloc(s->handles, cap * sizeof *grown);
    if (!grown)
      return 0;
    s->handles = grown;
    s->handle_capacity = cap;
  }
  char *copy = path ? strdup(path) : NULL;
  if (path && !copy)
    return 0;
  s->handles[s->handle_count] = (dap_handle){kind, thread, frame, copy, var};
  return (json_int_t)++s->handle_count;
}

/* Copies the handle that the request's variablesReference names into OUT: a
   copy, because listing makes new handles, which may move the array. */
static bool handle_arg(dap_session *s, const json_t *args, dap_reply *reply, dap_handle *out)
{
  uint64_t ref = 0;
  if (!dap_arg_index(reply, args, "variablesReference", true, (uint64_t)INT64_MAX, &ref))
    return false;
  if (ref == 0 || ref > s->handle_count)
    return dap_fail(reply, "variablesReference %llu names nothing listed",
                    (unsigned long long)ref);
  *out = s->handles[ref - 1];
  s->current_thread = out->thread;
  return true;
}

void dap_invalidate(dap_session *s, size_t thread)
{
  json_t *b = json_object();
  json_t *areas = json_array();
  json_array_append_new(areas, json_string("variables"));
  json_object_set_new(b, "areas", areas);
  json_object_set_new(b, "threadId", json_integer((json_int_t)thread + 1));
  dap_send_event(s, "invalidated", b);
}

/* ---- Values ---- */

/* The value of PATH; VAR (dap_handle.var) nonzero: PATH applied to
   variable VAR - 1 of the frame (amddwarf_valobj_new_indexed). */
static amddwarf_status value_open(dap_session *s, size_t thread, size_t frame, size_t var,
                                  const char *path, amddwarf_valobj **out, amddwarf_error *err)
{
  amddwarf_wave *wave = s->threads[thread].wave;
  amddwarf_error_clear(err);
  return var == 0 ? amddwarf_valobj_new(wave, frame, path, out, err)
                  : amddwarf_valobj_new_indexed(wave, frame, var - 1, path, out, err);
}

/* dap_handle.var of VALUE: its variable's place when a path cannot name it. */
static size_t value_var(dap_session *s, size_t thread, size_t frame, const amddwarf_valobj *value)
{
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  amddwarf_error err;
  if (!info->shadowed ||
      amddwarf_wave_variables(s->threads[thread].wave, frame, &vars, &count, &err) != AMDDWARF_OK)
    return 0;
  return (size_t)(info->variable - vars) + 1;
}

/* A shadowed variable's path names the inner one: it has no evaluate-name. */
static void set_evaluate_name(json_t *j, const amddwarf_valobj *value)
{
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  if (!info->shadowed)
    json_object_set_new(j, "evaluateName", json_string(info->path));
}

/* "memoryReference" of a value in memory (amddwarf_valobj_address), in the
   syntax readMemory takes: THREAD/SPACE:[LANE:]ADDRESS. */
static void set_memory_reference(size_t thread, amddwarf_valobj *value, uint32_t lane, json_t *j)
{
  uint32_t aspace = 0, at_lane = AMDDWARF_NO_LANE;
  uint64_t address = 0;
  char space[32], ref[96], lane_part[16] = "";
  if (amddwarf_valobj_address(value, lane, &aspace, &at_lane, &address, NULL) != AMDDWARF_OK ||
      amddwarf_aspace_name(aspace, space, sizeof space) != AMDDWARF_OK)
    return;
  if (at_lane != AMDDWARF_NO_LANE)
    snprintf(lane_part, sizeof lane_part, "%u:", at_lane);
  snprintf(ref, sizeof ref, "%zu/%s:%s0x%" PRIx64, thread + 1, space, lane_part, address);
  json_object_set_new(j, "memoryReference", json_string(ref));
}

/* Fills J (a Variable or an evaluate body) with VALUE's text in LANE
   (AMDDWARF_NO_LANE: the focused lane), type and children. VALUE_KEY is
   "value" or "result". */
static void describe_lane(dap_session *s, size_t thread, size_t frame, amddwarf_valobj *value,
                          uint32_t lane, json_t *j, const char *value_key)
{
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  text_buf text = {0};
  cli_buf_value(&text, AMDDWARF_OK, value, lane, &err);
  json_object_set_new(j, value_key, json_string(text.data ? text.data : ""));
  text_buf_free(&text);
  json_object_set_new(j, "type", json_string(info->type_name));
  set_memory_reference(thread, value, lane, j);
  json_object_set_new(j, "variablesReference",
                      json_integer(handle_ref(s, DAP_HANDLE_VALUE, thread, frame,
                                              value_var(s, thread, frame, value), info->path)));
  json_object_set_new(j, "namedVariables", json_integer((json_int_t)info->named_children + 1));
  if (info->indexed_children > 0)
    json_object_set_new(j, "indexedVariables",
                        json_integer((json_int_t)info->indexed_children));
}

static void describe(dap_session *s, size_t thread, size_t frame, amddwarf_valobj *value,
                     json_t *j, const char *value_key)
{
  describe_lane(s, thread, frame, value, AMDDWARF_NO_LANE, j, value_key);
}

/* A Variable for PATH (of variable VAR, dap_handle.var) named NAME, or one
   that says why PATH has no value. */
static json_t *variable_json(dap_session *s, size_t thread, size_t frame, const char *name,
                             size_t var, const char *path)
{
  json_t *j = json_object();
  json_object_set_new(j, "name", json_string(name));
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = value_open(s, thread, frame, var, path, &value, &err);
  if (st != AMDDWARF_OK) {
    text_buf text = {0};
    cli_buf_value(&text, st, NULL, 0, &err);
    json_object_set_new(j, "value", json_string(text.data));
    text_buf_free(&text);
    json_object_set_new(j, "variablesReference", json_integer(0));
  } else {
    describe(s, thread, frame, value, j, "value");
    set_evaluate_name(j, value);
  }
  amddwarf_valobj_free(value);
  return j;
}

/* The name a child shows: its path without the parent's ("x" for "s.x",
   "[3]" for "a[3]"), else its whole path ("*p"). */
static const char *child_name(const char *parent, const char *child)
{
  size_t n = strlen(parent);
  if (strncmp(parent, child, n) == 0 && child[n] == '.')
    return child + n + 1;
  if (strncmp(parent, child, n) == 0 && child[n] == '[')
    return child + n;
  return child;
}

/* ---- scopes ---- */

bool dap_scopes(dap_session *s, const json_t *args, dap_reply *reply)
{
  size_t thread, frame;
  if (!dap_frame_arg(s, args, true, reply, &thread, &frame))
    return false;
  const amddwarf_frame *f = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_frame(s->threads[thread].wave, frame, &f, &err);
  if (st != AMDDWARF_OK)
    return st == AMDDWARF_END ? dap_fail(reply, "thread %zu has no frame %zu", thread + 1, frame)
                              : dap_fail_status(reply, "scopes", st, &err);
  static const struct {
    const char *name, *hint;
    dap_handle_kind kind;
  } scopes[] = {{"Locals", "locals", DAP_HANDLE_LOCALS},
                {"Arguments", "arguments", DAP_HANDLE_ARGUMENTS},
                {"Globals", NULL, DAP_HANDLE_GLOBALS},
                {"Registers", "registers", DAP_HANDLE_REGISTERS},
                {"Lanes", NULL, DAP_HANDLE_LANES_SCOPE}};
  json_t *list = json_array();
  for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++) {
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(scopes[i].name));
    if (scopes[i].hint)
      json_object_set_new(j, "presentationHint", json_string(scopes[i].hint));
    json_object_set_new(j, "variablesReference",
                        json_integer(handle_ref(s, scopes[i].kind, thread, frame, 0, NULL)));
    json_object_set_new(j, "expensive", json_boolean(scopes[i].kind == DAP_HANDLE_REGISTERS));
    json_array_append_new(list, j);
  }
  reply->body = json_object();
  json_object_set_new(reply->body, "scopes", list);
  return true;
}

/* ---- variables ---- */

static json_t *plain_variable(const char *name, const char *value)
{
  json_t *j = json_object();
  json_object_set_new(j, "name", json_string(name));
  json_object_set_new(j, "value", json_string(value));
  json_object_set_new(j, "variablesReference", json_integer(0));
  return j;
}

/* The listed kind that scope list H shows. */
static amddwarf_listed_kind listed_kind(const dap_handle *h)
{
  return h->kind == DAP_HANDLE_ARGUMENTS ? AMDDWARF_LISTED_ARGUMENT
         : h->kind == DAP_HANDLE_GLOBALS ? AMDDWARF_LISTED_GLOBAL
                                         : AMDDWARF_LISTED_LOCAL;
}

static bool list_frame_variables(dap_session *s, const dap_handle *h, json_t *list,
                                 dap_reply *reply)
{
  const amddwarf_listed_variable *vars = NULL;
  size_t count = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st =
      amddwarf_wave_frame_variables(s->threads[h->thread].wave, h->frame, &vars, &count, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "variables", st, &err);
  for (size_t i = 0; i < count; i++) {
    const amddwarf_listed_variable *v = &vars[i];
    if (v->kind != listed_kind(h))
      continue;
    if (v->missing != NULL) {
      text_buf text = {0};
      text_buf_printf(&text, "%s (%s)", amddwarf_lane_state_text(AMDDWARF_LANE_OPTIMIZED_OUT),
                     v->missing);
      json_array_append_new(list, plain_variable(v->name, text.data));
      text_buf_free(&text);
      continue;
    }
    /* A shadowed variable is reached through its index, not its name. */
    json_array_append_new(list, variable_json(s, h->thread, h->frame, v->name,
                                              v->shadowed ? v->var_index + 1 : 0,
                                              v->path_name));
  }
  return true;
}


/* The wave's registers (amddwarf_wave_register_get) as frame H->frame
   sees them; a vector register's value is the focused lane's. */
static void list_registers(dap_session *s, const dap_handle *h, json_t *list)
{
  amddwarf_wave *wave = s->threads[h->thread].wave;
  uint32_t lane = amddwarf_wave_focus(wave);
  char name[48], value[64];
  size_t count = amddwarf_wave_register_count(wave);
  for (size_t i = 0; i < count; i++) {
    amddwarf_wave_register reg;
    if (amddwarf_wave_register_get(wave, i, &reg) != AMDDWARF_OK)
      continue;
    if (amddwarf_wave_register_text(wave, h->frame, &reg, lane, value, sizeof value, NULL) !=
        AMDDWARF_OK) {
      if (!reg.always_listed)
        continue;
      snprintf(value, sizeof value, "<unavailable>");
    }
    snprintf(name, sizeof name, reg.per_lane ? "%s [lane %u]" : "%s", reg.name, lane);
    json_array_append_new(list, plain_variable(name, value));
  }
}

/* setVariable in the Registers scope: NAME as listed ("s33", "v1 [lane 3]":
   that lane's dword, whichever lane has the focus now), TEXT an unsigned
   integer of its size (amddwarf_wave_register_assign, which refuses
   inactive lanes); the answer is the register read back. */
static bool set_register(dap_session *s, const dap_handle *h, const char *name, const char *text,
                         dap_reply *reply)
{
  amddwarf_wave *wave = s->threads[h->thread].wave;
  amddwarf_wave_register reg;
  char base[32], value[64] = "<unavailable>";
  amddwarf_error err;
  size_t base_length = strcspn(name, " ");
  snprintf(base, sizeof base, "%.*s", (int)base_length, name);
  unsigned lane = AMDDWARF_NO_LANE;
  int end = 0;
  bool listed = amddwarf_wave_register_find(wave, base, &reg) == AMDDWARF_OK;
  /* A vector register is listed with its lane, as list_registers names it. */
  if (listed && reg.per_lane)
    listed = sscanf(name + base_length, " [lane %u]%n", &lane, &end) == 1 &&
             name[base_length + (size_t)end] == '\0' &&
             lane < amddwarf_wave_get_info(wave)->wave_size;
  else if (listed)
    listed = name[base_length] == '\0';
  if (!listed)
    return dap_fail(reply, "setVariable: no register '%s' is listed here", name);
  amddwarf_error_clear(&err);
  amddwarf_status st = amddwarf_wave_register_assign(wave, h->frame, &reg, lane, text, 0, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "setVariable", st, &err);
  amddwarf_wave_register_text(wave, h->frame, &reg, lane, value, sizeof value, NULL);
  reply->body = json_pack("{s:s}", "value", value);
  dap_invalidate(s, h->thread);
  return true;
}

static bool list_lanes_scope(dap_session *s, const dap_handle *h, json_t *list, dap_reply *reply)
{
  amddwarf_wave *wave = s->threads[h->thread].wave;
  const amddwarf_lanes *lanes = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_lanes(wave, &lanes, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "lanes", st, &err);
  char text[800], lanes_text[256], where[512];
  amddwarf_lanes_spell(lanes->active_mask, lanes->wave_size, lanes_text, sizeof lanes_text);
  snprintf(text, sizeof text, "0x%" PRIx64 " (%u of %u lanes: %s; from %s)", lanes->active_mask,
           lanes->active_count, lanes->wave_size, lanes_text[0] ? lanes_text : "none",
           amddwarf_active_from_text(lanes->active_from));
  json_array_append_new(list, plain_variable("active", text));
  snprintf(text, sizeof text, "%u", amddwarf_wave_focus(wave));
  json_array_append_new(list, plain_variable("focus", text));
  amddwarf_lane_group groups[AMDDWARF_MAX_LANES];
  size_t count = 0;
  amddwarf_lanes_group_by_pc(lanes, groups, AMDDWARF_MAX_LANES, &count);
  for (size_t g = 0; g < count; g++) {
    char name[280];
    amddwarf_lanes_spell(groups[g].mask, lanes->wave_size, lanes_text, sizeof lanes_text);
    snprintf(name, sizeof name, "[%s]", lanes_text);
    if (groups[g].pc_known) {
      /* As a row of the `lanes` table. */
      amddwarf_wave_place_text(wave, groups[g].pc, 0, where, sizeof where);
      snprintf(text, sizeof text, "0x%" PRIx64 " %s", groups[g].pc, where);
    } else {
      snprintf(text, sizeof text, "- (inactive, PC unknown)");
    }
    json_array_append_new(list, plain_variable(name, text));
  }
  return true;
}

static uint64_t wave_lanes_mask(amddwarf_wave *wave)
{
  uint32_t n = amddwarf_wave_get_info(wave)->wave_size;
  return n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

static bool list_value_lanes(dap_session *s, const dap_handle *h, json_t *list, dap_reply *reply)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = value_open(s, h->thread, h->frame, h->var, h->path, &value, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, h->path, st, &err);
  amddwarf_wave *wave = s->threads[h->thread].wave;
  uint32_t wave_size = amddwarf_wave_get_info(wave)->wave_size;
  amddwarf_value_group groups[AMDDWARF_MAX_LANES];
  size_t count = 0;
  st = amddwarf_valobj_read_lanes(value, wave_lanes_mask(wave), groups, AMDDWARF_MAX_LANES,
                                  &count, &err);
  if (st != AMDDWARF_OK) {
    amddwarf_valobj_free(value);
    return dap_fail_status(reply, h->path, st, &err);
  }
  for (size_t g = 0; g < count && g < AMDDWARF_MAX_LANES; g++) {
    char lanes[256], name[264];
    amddwarf_lanes_spell(groups[g].mask, wave_size, lanes, sizeof lanes);
    snprintf(name, sizeof name, "[%s]", lanes);
    text_buf text = {0}, eval_name = {0};
    cli_buf_lane_value(&text, &groups[g].value, 0);
    text_buf_printf(&eval_name, "%s @lanes %s", h->path, lanes);
    json_t *j = plain_variable(name, text.data ? text.data : "");
    if (h->var == 0)
      json_object_set_new(j, "evaluateName", json_string(eval_name.data));
    json_array_append_new(list, j);
    text_buf_free(&text);
    text_buf_free(&eval_name);
  }
  amddwarf_valobj_free(value);
  return true;
}

static bool list_children(dap_session *s, const dap_handle *h, const json_t *args, json_t *list,
                          dap_reply *reply)
{
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = value_open(s, h->thread, h->frame, h->var, h->path, &value, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, h->path, st, &err);
  const amddwarf_valobj_info *info = amddwarf_valobj_get_info(value);
  const json_t *filter = json_object_get(args, "filter");
  const char *which = json_is_string(filter) ? json_string_value(filter) : "";
  bool named = strcmp(which, "indexed") != 0, indexed = strcmp(which, "named") != 0;
  uint64_t start = 0, count = 0;
  bool ok = dap_arg_index(reply, args, "start", false, (uint64_t)INT64_MAX, &start) &&
            dap_arg_index(reply, args, "count", false, (uint64_t)INT64_MAX, &count);
  /* Paging counts within the filtered kind; without a filter, named first. */
  size_t first = 0, end = info->named_children + 1 + info->indexed_children;
  if (!named)
    first = info->named_children + 1;
  if (!indexed)
    end = info->named_children + 1;
  size_t from = first + (size_t)(start < end - first ? start : end - first);
  size_t to = count > 0 && count < end - from ? from + (size_t)count : end;
  if (count == 0 && to - from > UNPAGED_ELEMENTS + info->named_children + 1)
    to = from + UNPAGED_ELEMENTS + info->named_children + 1;
  for (size_t i = from; ok && i < to; i++) {
    if (i == 0) {
      json_t *j = json_object();
      char text[64];
      snprintf(text, sizeof text, "%u lanes", amddwarf_wave_get_info(s->threads[h->thread].wave)->wave_size);
      json_object_set_new(j, "name", json_string("lanes"));
      json_object_set_new(j, "value", json_string(text));
      json_object_set_new(j, "presentationHint", json_pack("{s:s}", "kind", "virtual"));
      json_object_set_new(
          j, "variablesReference",
          json_integer(handle_ref(s, DAP_HANDLE_VALUE_LANES, h->thread, h->frame, h->var,
                                              h->path)));
      json_array_append_new(list, j);
      continue;
    }
    amddwarf_valobj *child = NULL;
    amddwarf_error_clear(&err);
    st = amddwarf_valobj_child(value, i - 1, &child, &err);
    if (st != AMDDWARF_OK) {
      ok = dap_fail_status(reply, h->path, st, &err);
      break;
    }
    const char *path = amddwarf_valobj_get_info(child)->path;
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(child_name(info->path, path)));
    describe(s, h->thread, h->frame, child, j, "value");
    set_evaluate_name(j, child);
    json_array_append_new(list, j);
    amddwarf_valobj_free(child);
  }
  amddwarf_valobj_free(value);
  return ok;
}

bool dap_variables(dap_session *s, const json_t *args, dap_reply *reply)
{
  dap_handle copy = {0}; /* filled by handle_arg when it succeeds */
  if (!handle_arg(s, args, reply, &copy))
    return false;
  const dap_handle *h = &copy;
  if (!s->threads[h->thread].wave)
    return dap_fail(reply, "thread %zu has no frames", h->thread + 1);
  json_t *list = json_array();
  bool ok = true;
  switch (h->kind) {
  case DAP_HANDLE_LOCALS:
  case DAP_HANDLE_ARGUMENTS:
  case DAP_HANDLE_GLOBALS:
    ok = list_frame_variables(s, h, list, reply);
    break;
  case DAP_HANDLE_REGISTERS:
    list_registers(s, h, list);
    break;
  case DAP_HANDLE_LANES_SCOPE:
    ok = list_lanes_scope(s, h, list, reply);
    break;
  case DAP_HANDLE_VALUE:
    ok = list_children(s, h, args, list, reply);
    break;
  case DAP_HANDLE_VALUE_LANES:
    ok = list_value_lanes(s, h, list, reply);
    break;
  }
  if (!ok) {
    json_decref(list);
    return false;
  }
  reply->body = json_object();
  json_object_set_new(reply->body, "variables", list);
  return true;
}

/* ---- evaluate and the REPL ---- */

/* "PATH @lanes LIST": the value's lanes in LIST as `amddwarf eval --lanes`
   prints them (amddwarf_valobj_lanes_table). */
static bool evaluate_lanes(dap_session *s, size_t thread, size_t frame, char *expr, char *at,
                           dap_reply *reply)
{
  const char *list = at + strlen("@lanes");
  *at = '\0';
  for (char *e = at; e > expr && e[-1] == ' '; e--)
    e[-1] = '\0';
  uint64_t mask = 0;
  text_buf table = {0};
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = amddwarf_wave_lanes_parse(s->threads[thread].wave, list, &mask, &err);
  if (st != AMDDWARF_OK)
    return dap_fail(reply, "%s", err.message);
  st = value_open(s, thread, frame, 0, expr, &value, &err);
  if (st == AMDDWARF_OK)
    st = cli_buf_value_lanes(&table, value, mask, 0, &err);
  amddwarf_valobj_free(value);
  if (st == AMDDWARF_OK)
    reply->body = json_pack("{s:s,s:i}", "result", table.data, "variablesReference", 0);
  text_buf_free(&table);
  return st == AMDDWARF_OK || dap_fail_status(reply, expr, st, &err);
}

static bool repl_save(dap_session *s, const char *file, dap_reply *reply)
{
  while (*file == ' ')
    file++;
  if (!*file)
    return dap_fail(reply, "save: give a file name: save FILE");
  char *text = NULL;
  size_t size = 0;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_stop_save(s->stop, &text, &size, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "save", st, &err);
  FILE *f = fopen(file, "wb");
  bool ok = f && fwrite(text, 1, size, f) == size;
  if (f && fclose(f) != 0)
    ok = false;
  free(text);
  if (!ok)
    return dap_fail(reply, "save: cannot write '%s'", file);
  char result[1200];
  snprintf(result, sizeof result, "saved the stop (%zu waves) to %s", s->thread_count, file);
  reply->body = json_object();
  json_object_set_new(reply->body, "result", json_string(result));
  json_object_set_new(reply->body, "variablesReference", json_integer(0));
  return true;
}

bool dap_evaluate(dap_session *s, const json_t *args, dap_reply *reply)
{
  const json_t *e = json_object_get(args, "expression");
  if (!json_is_string(e))
    return dap_fail(reply, "evaluate: missing 'expression'");
  size_t thread, frame;
  if (!dap_frame_arg(s, args, false, reply, &thread, &frame))
    return false;
  char *expr = strdup(json_string_value(e));
  if (!expr)
    return dap_fail(reply, "evaluate: out of memory");
  char *p = expr;
  while (*p == ' ')
    p++;
  bool ok;
  char *at = strstr(p, "@lanes");
  amddwarf_wave *wave = s->threads[thread].wave;
  if (strncmp(p, "lane ", 5) == 0 || strcmp(p, "lane") == 0) {
    char *end;
    unsigned long lane = strtoul(p + 4, &end, 10);
    while (*end == ' ')
      end++;
    if (end == p + 4 || *end)
      ok = dap_fail(reply, "lane: give a lane number: lane N");
    else if (amddwarf_wave_set_focus(wave, lane > UINT32_MAX ? UINT32_MAX : (uint32_t)lane) !=
             AMDDWARF_OK)
      ok = dap_fail(reply, "lane: the wave has lanes 0 to %u, not %lu",
                    amddwarf_wave_get_info(wave)->wave_size - 1, lane);
    else {
      char result[96];
      snprintf(result, sizeof result, "focus: lane %lu of thread %zu", lane, thread + 1);
      reply->body = json_pack("{s:s,s:i}", "result", result, "variablesReference", 0);
      dap_invalidate(s, thread);
      ok = true;
    }
  } else if (strcmp(p, "lanes") == 0) {
    text_buf table = {0};
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    amddwarf_status st = cli_buf_wave_lanes(&table, wave, &err);
    ok = st == AMDDWARF_OK || dap_fail_status(reply, "lanes", st, &err);
    if (ok)
      reply->body = json_pack("{s:s,s:i}", "result", table.data, "variablesReference", 0);
    text_buf_free(&table);
  } else if (strncmp(p, "save ", 5) == 0 || strcmp(p, "save") == 0) {
    ok = repl_save(s, p + 4, reply);
  } else if (at) {
    ok = evaluate_lanes(s, thread, frame, p, at, reply);
  } else {
    amddwarf_valobj *value = NULL;
    amddwarf_error err;
    amddwarf_status st = value_open(s, thread, frame, 0, p, &value, &err);
    if (st != AMDDWARF_OK) {
      ok = dap_fail_status(reply, p, st, &err);
    } else {
      reply->body = json_object();
      describe(s, thread, frame, value, reply->body, "result");
      ok = true;
    }
    amddwarf_valobj_free(value);
  }
  free(expr);
  return ok;
}

/* ---- writes ---- */

/* Assigns TEXT to PATH for LANES (0: the focused lane), then answers with
   the new value (of the lowest lane written) and tells the client to read
   again. Inactive lanes are refused by the layer. */
static bool assign(dap_session *s, size_t thread, size_t frame, size_t var, const char *path,
                   uint64_t lanes, const char *text, dap_reply *reply)
{
  amddwarf_wave *wave = s->threads[thread].wave;
  if (lanes == 0)
    lanes = UINT64_C(1) << amddwarf_wave_focus(wave);
  amddwarf_valobj *value = NULL;
  amddwarf_error err;
  amddwarf_status st = value_open(s, thread, frame, var, path, &value, &err);
  if (st == AMDDWARF_OK) {
    amddwarf_error_clear(&err);
    st = amddwarf_valobj_assign(value, lanes, text, &err);
  }
  if (st != AMDDWARF_OK) {
    amddwarf_valobj_free(value);
    char what[512];
    snprintf(what, sizeof what, "cannot assign '%s' to %s", text, path);
    return dap_fail_status(reply, what, st, &err);
  }
  uint32_t lowest = 0;
  while (!(lanes >> lowest & 1))
    lowest++;
  reply->body = json_object();
  describe_lane(s, thread, frame, value, lowest, reply->body, "value");
  amddwarf_valobj_free(value);
  dap_invalidate(s, thread);
  return true;
}

bool dap_set_variable(dap_session *s, const json_t *args, dap_reply *reply)
{
  dap_handle copy = {0}; /* filled by handle_arg when it succeeds */
  const json_t *name = json_object_get(args, "name"), *value = json_object_get(args, "value");
  if (!handle_arg(s, args, reply, &copy))
    return false;
  const dap_handle *h = &copy;
  if (!json_is_string(name) || !json_is_string(value))
    return dap_fail(reply, "setVariable: 'name' and 'value' must be strings");
  const char *n = json_string_value(name), *v = json_string_value(value);
  if (!s->threads[h->thread].wave)
    return dap_fail(reply, "thread %zu has no frames", h->thread + 1);
  switch (h->kind) {
  case DAP_HANDLE_LOCALS:
  case DAP_HANDLE_ARGUMENTS:
  case DAP_HANDLE_GLOBALS: {
    const amddwarf_listed_variable *listed = NULL;
    amddwarf_error err;
    if (amddwarf_wave_frame_variable_find(s->threads[h->thread].wave, h->frame, n, &listed,
                                          &err) != AMDDWARF_OK ||
        listed->kind != listed_kind(h))
      return dap_fail(reply, "setVariable: no variable '%s' is listed here", n);
    if (listed->missing != NULL)
      return dap_fail(reply, "setVariable: '%s' is optimized out (%s)", n, listed->missing);
    return assign(s, h->thread, h->frame, listed->shadowed ? listed->var_index + 1 : 0,
                  listed->path_name, 0, v, reply);
  }
  case DAP_HANDLE_VALUE: {
    /* A child: "x" of a struct, "[3]" of an array, "*p" of a pointer. */
    text_buf path = {0};
    if (n[0] == '[' || n[0] == '*')
      text_buf_printf(&path, n[0] == '[' ? "%s%s" : "%.0s%s", h->path, n);
    else
      text_buf_printf(&path, "%s.%s", h->path, n);
    bool ok = assign(s, h->thread, h->frame, h->var, path.data, 0, v, reply);
    text_buf_free(&path);
    return ok;
  }
  case DAP_HANDLE_VALUE_LANES: {
    uint64_t lanes = 0;
    size_t len = strlen(n);
    char list[256];
    amddwarf_error err;
    if (len < 3 || n[0] != '[' || n[len - 1] != ']' || len - 2 >= sizeof list)
      return dap_fail(reply, "setVariable: '%s' is not a lane group '[0-7]'", n);
    snprintf(list, sizeof list, "%.*s", (int)(len - 2), n + 1);
    if (amddwarf_wave_lanes_parse(s->threads[h->thread].wave, list, &lanes, &err) != AMDDWARF_OK)
      return dap_fail(reply, "setVariable: %s", err.message);
    return assign(s, h->thread, h->frame, h->var, h->path, lanes, v, reply);
  }
  case DAP_HANDLE_REGISTERS:
    return set_register(s, h, n, v, reply);
  default:
    return dap_fail(reply, "setVariable: lanes cannot be written here; write a variable");
  }
}

bool dap_set_expression(dap_session *s, const json_t *args, dap_reply *reply)
{
  const json_t *e = json_object_get(args, "expression"), *v = json_object_get(args, "value");
  if (!json_is_string(e) || !json_is_string(v))
    return dap_fail(reply, "setExpression: 'expression' and 'value' must be strings");
  size_t thread, frame;
  if (!dap_frame_arg(s, args, false, reply, &thread, &frame))
    return false;
  return assign(s, thread, frame, 0, json_string_value(e), 0, json_string_value(v), reply);
}
