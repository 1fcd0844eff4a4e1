/* amddwarf dap: the stop. launch (code objects and a stop file or directory),
 * threads (one per wave), stackTrace (the debugger layer's frames, inlined
 * subroutines included) and the lanes of a wave (the amdgpu/lanes request). */
#define _POSIX_C_SOURCE 200809L /* opendir, mmap */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dap.h"
#include "wave_cli.h"

/* ---- Launch ---- */

/* Stops of at most this many waves are read whole at launch, so every
   thread is named with its lanes and line from the start; the waves of a
   larger one are read on first use (specs/dap.md, "Large stops"). */
enum { DAP_READ_AT_LAUNCH = 64 };

/* At most this many waves are open between requests (about 300 KB each
   with their snapshot); after a request opened more, the least recently
   used are let go (dap_close_spare_waves), to be read again when a request
   names them (specs/dap.md, "Large stops"). */
enum { DAP_OPEN_WAVES = 64 };

/* A stop file's bytes, mapped for as long as the stop reads its waves from
   them (amddwarf_stop_add_indexed): the file is read once, at launch, and
   each wave's part of it again when the wave is first used. */
struct dap_stop_text {
  void *data;
  size_t size;
};

static void release_stop_texts(dap_session *s)
{
  for (size_t i = 0; i < s->stop_text_count; i++)
    if (s->stop_texts[i].size > 0)
      munmap(s->stop_texts[i].data, s->stop_texts[i].size);
  free(s->stop_texts);
  s->stop_texts = NULL;
  s->stop_text_count = 0;
}

void dap_session_release(dap_session *s)
{
  dap_handles_clear(s);
  free(s->handles);
  dap_disasm_release(s);
  for (size_t i = 0; i < s->thread_count; i++) {
    amddwarf_wave_close(s->threads[i].wave);
    free(s->threads[i].objects);
    free(s->threads[i].load_addresses);
  }
  free(s->threads);
  text_buf_free(&s->message_text);
  for (size_t i = 0; i < s->listed_count; i++) {
    amddwarf_object_close(s->listed[i].object);
    free(s->listed[i].data);
    free(s->listed[i].uri);
  }
  free(s->listed);
  s->listed = NULL;
  s->listed_count = 0;
  amddwarf_stop_free(s->stop);
  release_stop_texts(s);
  for (size_t i = 0; i < s->object_count; i++) {
    amddwarf_object_close(s->objects[i]);
    free(s->object_paths[i]);
  }
  free(s->objects);
  free(s->object_paths);
  free(s->stop_path);
  s->threads = NULL;
  s->thread_count = 0;
  s->stop = NULL;
  s->objects = NULL;
  s->object_paths = NULL;
  s->object_count = 0;
  s->stop_path = NULL;
  s->launched = false;
}

static int compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Maps PATH read-only into *TEXT: 0 or an errno. */
static int map_file(const char *path, struct dap_stop_text *text)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return errno;
  struct stat st;
  int error = fstat(fd, &st) != 0 ? errno : 0;
  text->data = NULL;
  text->size = error == 0 ? (size_t)st.st_size : 0;
  if (error == 0 && text->size > 0) {
    text->data = mmap(NULL, text->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (text->data == MAP_FAILED) {
      error = errno;
      text->data = NULL;
      text->size = 0;
    }
  }
  close(fd);
  return error;
}

static bool add_file(dap_session *s, const char *path, dap_reply *reply)
{
  struct dap_stop_text *grown =
      realloc(s->stop_texts, (s->stop_text_count + 1) * sizeof *s->stop_texts);
  if (!grown)
    return dap_fail(reply, "launch: out of memory");
  s->stop_texts = grown;
  struct dap_stop_text *text = &s->stop_texts[s->stop_text_count];
  int error = map_file(path, text);
  if (error != 0)
    return dap_fail(reply, "launch: cannot read stop file '%s': %s", path, strerror(error));
  s->stop_text_count++;
  /* The waves are indexed; each is parsed when a request first needs it. */
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st =
      amddwarf_stop_add_indexed(s->stop, (const char *)text->data, text->size, path, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "launch: the stop does not load", st, &err);
  return true;
}

/* Adds STOP: a stop or snapshot file, or a directory whose *.json files are
   added in name order. */
static bool load_stop(dap_session *s, const char *path, dap_reply *reply)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return dap_fail(reply, "launch: the stop '%s' does not exist", path);
  if (!S_ISDIR(st.st_mode))
    return add_file(s, path, reply);
  DIR *dir = opendir(path);
  if (!dir)
    return dap_fail(reply, "launch: cannot read the stop directory '%s'", path);
  char **names = NULL;
  size_t count = 0;
  struct dirent *e;
  bool ok = true;
  while ((e = readdir(dir)) != NULL && ok) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 || e->d_name[0] == '.')
      continue;
    char **grown = realloc(names, (count + 1) * sizeof *names);
    size_t len = strlen(path) + n + 2;
    char *full = grown ? malloc(len) : NULL;
    if (!full) {
      names = grown ? grown : names;
      ok = false;
      break;
    }
    names = grown;
    snprintf(full, len, "%s/%s", path, e->d_name);
    names[count++] = full;
  }
  closedir(dir);
  if (ok && count == 0)
    ok = dap_fail(reply, "launch: the stop directory '%s' has no .json file", path);
  else if (!ok)
    dap_fail(reply, "launch: out of memory listing '%s'", path);
  if (ok)
    qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; i++) {
    if (ok)
      ok = add_file(s, names[i], reply);
    free(names[i]);
  }
  free(names);
  return ok;
}

static bool open_object(dap_session *s, const json_t *j, dap_reply *reply)
{
  if (!json_is_string(j))
    return dap_fail(reply, "launch: 'program' must be a code object path or an array of them");
  const char *path = json_string_value(j);
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_object *object = NULL;
  amddwarf_status st = amddwarf_object_open_input(path, NULL, NULL, &object, &err);
  if (st != AMDDWARF_OK) {
    char what[600];
    snprintf(what, sizeof what, "launch: the code object '%s' does not open", path);
    return dap_fail_status(reply, what, st, &err);
  }
  s->objects[s->object_count] = object;
  s->object_paths[s->object_count++] = strdup(path);
  return true;
}

/* The listed code object ENTRY (one of the COUNT its wave's snapshot
   lists), opened once per session. */
static amddwarf_status listed_object(dap_session *s, const amddwarf_loaded_code_object *entry,
                                     size_t count, amddwarf_object **out, amddwarf_error *err)
{
  for (size_t i = 0; i < s->listed_count; i++)
    if (strcmp(s->listed[i].uri, entry->uri) == 0) {
      *out = s->listed[i].object;
      return AMDDWARF_OK;
    }
  dap_listed_object *grown = realloc(s->listed, (s->listed_count + 1) * sizeof *grown);
  if (grown == NULL)
    return AMDDWARF_E_NO_MEMORY;
  s->listed = grown;
  dap_listed_object *l = &s->listed[s->listed_count];
  memset(l, 0, sizeof *l);
  amddwarf_object_options options;
  amddwarf_object_options_init(&options);
  amddwarf_status st =
      cli_open_listed(entry, count, NULL, NULL, &options, &l->object, &l->data, err);
  if (st == AMDDWARF_OK && (l->uri = strdup(entry->uri)) == NULL)
    st = AMDDWARF_E_NO_MEMORY;
  if (st != AMDDWARF_OK) {
    amddwarf_object_close(l->object);
    free(l->data);
    return st;
  }
  s->listed_count++;
  *out = l->object;
  return AMDDWARF_OK;
}

/* The code objects of thread T: the programs when its snapshot lists no
   code object; else the listed ones at their load addresses, the one
   program standing for a list of one. */
static amddwarf_status thread_objects(dap_session *s, dap_thread *t, amddwarf_error *err)
{
  size_t count = 0;
  const amddwarf_loaded_code_object *list =
      amddwarf_snapshot_code_objects(t->place->snapshot, &count);
  if (list == NULL)
    count = s->object_count;
  if (count == 0) {
    cli_error_printf(err, AMDDWARF_E_PC_NOT_LOADED,
                     "the snapshot's code_objects list is empty: no code object is loaded");
    return AMDDWARF_E_PC_NOT_LOADED;
  }
  t->objects = calloc(count, sizeof *t->objects);
  if (t->objects == NULL)
    return AMDDWARF_E_NO_MEMORY;
  t->object_count = count;
  if (list == NULL) {
    memcpy(t->objects, s->objects, count * sizeof *t->objects);
    return AMDDWARF_OK;
  }
  if ((t->load_addresses = calloc(count, sizeof *t->load_addresses)) == NULL)
    return AMDDWARF_E_NO_MEMORY;
  for (size_t i = 0; i < count; i++) {
    t->load_addresses[i] = list[i].load_address;
    amddwarf_status st = AMDDWARF_OK;
    if (count == 1 && s->object_count == 1)
      t->objects[i] = s->objects[0];
    else
      st = listed_object(s, &list[i], count, &t->objects[i], err);
    if (st != AMDDWARF_OK)
      return st;
  }
  return AMDDWARF_OK;
}

bool dap_launch(dap_session *s, const json_t *args, dap_reply *reply)
{
  if (s->launched)
    return dap_fail(reply, "launch: a stop is already loaded");
  const json_t *program = json_object_get(args, "program");
  const json_t *stop = json_object_get(args, "stop");
  if (!program)
    return dap_fail(reply, "launch: missing 'program' (a code object or an array of them)");
  if (!json_is_string(stop))
    return dap_fail(reply, "launch: missing 'stop' (a stop file or a directory of snapshots)");
  size_t n = json_is_array(program) ? json_array_size(program) : 1;
  if (n == 0)
    return dap_fail(reply, "launch: 'program' is an empty array");
  s->objects = calloc(n, sizeof *s->objects);
  s->object_paths = calloc(n, sizeof *s->object_paths);
  bool ok = s->objects && s->object_paths;
  if (!ok)
    dap_fail(reply, "launch: out of memory");
  for (size_t i = 0; i < n && ok; i++)
    ok = open_object(s, json_is_array(program) ? json_array_get(program, i) : program, reply);
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st;
  if (ok && (st = amddwarf_stop_new(NULL, &s->stop, &err)) != AMDDWARF_OK)
    ok = dap_fail_status(reply, "launch", st, &err);
  if (ok)
    ok = load_stop(s, json_string_value(stop), reply);
  if (ok && amddwarf_stop_wave_count(s->stop) == 0)
    ok = dap_fail(reply, "launch: the stop '%s' has no wave", json_string_value(stop));
  if (ok) {
    s->thread_count = amddwarf_stop_wave_count(s->stop);
    s->threads = calloc(s->thread_count, sizeof *s->threads);
    if (!s->threads) {
      s->thread_count = 0;
      ok = dap_fail(reply, "launch: out of memory");
    }
  }
  for (size_t i = 0; ok && i < s->thread_count; i++)
    s->threads[i].place = amddwarf_stop_wave_get(s->stop, i);
  /* A small stop is read whole; of a larger one, the first thread, the one
     `stopped` names. A snapshot read now that does not load fails the
     launch; one read later leaves its thread saying why. */
  size_t now = s->thread_count <= DAP_READ_AT_LAUNCH ? s->thread_count : 1;
  for (size_t i = 0; ok && i < now; i++) {
    amddwarf_error_clear(&err);
    const amddwarf_stop_wave *loaded = NULL;
    st = amddwarf_stop_wave_load(s->stop, i, &loaded, &err);
    if (st != AMDDWARF_OK)
      ok = dap_fail_status(reply, "launch: the stop does not load", st, &err);
    else
      dap_thread_open(s, i);
  }
  if (!ok) {
    dap_session_release(s);
    return false;
  }
  s->stop_path = strdup(json_string_value(stop));
  s->launched = true;
  return true;
}

static void thread_name(dap_session *s, size_t i, char *buf, size_t size);

/* The open waves are kept in a list in the order of their use, so that the
   least recently used is found without looking at every thread. */

/* Takes thread T out of the use list. */
static void use_unlink(dap_session *s, size_t thread)
{
  dap_thread *t = &s->threads[thread];
  if (t->used_before)
    s->threads[t->used_before - 1].used_after = t->used_after;
  else if (s->used_first == thread + 1)
    s->used_first = t->used_after;
  if (t->used_after)
    s->threads[t->used_after - 1].used_before = t->used_before;
  else if (s->used_last == thread + 1)
    s->used_last = t->used_before;
  t->used_before = t->used_after = 0;
}

/* Puts open thread T at the most recently used end of the list. */
static void use_touch(dap_session *s, size_t thread)
{
  if (s->used_last == thread + 1)
    return;
  use_unlink(s, thread);
  dap_thread *t = &s->threads[thread];
  t->used_before = s->used_last;
  if (s->used_last)
    s->threads[s->used_last - 1].used_after = thread + 1;
  else
    s->used_first = thread + 1;
  s->used_last = thread + 1;
}

/* Closes thread T's wave and lets go of its snapshot (a written one stays:
   amddwarf_stop_wave_unload refuses it); its focus and name are kept. */
static void thread_close(dap_session *s, size_t thread)
{
  dap_thread *t = &s->threads[thread];
  if (t->wave != NULL) {
    char name[sizeof t->name];
    thread_name(s, thread, name, sizeof name); /* kept in T->name */
    t->focus = amddwarf_wave_focus(t->wave);
    t->has_focus = true;
    amddwarf_wave_close(t->wave);
    t->wave = NULL;
    s->open_count--;
    use_unlink(s, thread);
  }
  free(t->objects);
  free(t->load_addresses);
  t->objects = NULL;
  t->load_addresses = NULL;
  t->object_count = 0;
  amddwarf_stop_wave_unload(s->stop, thread, NULL);
  t->place = amddwarf_stop_wave_get(s->stop, thread);
  t->open_error[0] = '\0';
  t->tried = false;
}

void dap_close_spare_waves(dap_session *s)
{
  while (s->open_count > DAP_OPEN_WAVES) {
    /* At most one step: the current thread is passed over. */
    size_t oldest = s->used_first;
    while (oldest && oldest - 1 == s->current_thread)
      oldest = s->threads[oldest - 1].used_after;
    if (oldest == 0)
      return;
    thread_close(s, oldest - 1);
  }
}

bool dap_thread_open(dap_session *s, size_t thread)
{
  dap_thread *t = &s->threads[thread];
  if (t->tried) {
    if (t->wave != NULL)
      use_touch(s, thread);
    return t->wave != NULL;
  }
  t->tried = true;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  const amddwarf_stop_wave *loaded = NULL;
  amddwarf_status st = amddwarf_stop_wave_load(s->stop, thread, &loaded, &err);
  if (st == AMDDWARF_OK) {
    t->place = loaded;
    amddwarf_snapshot_target(t->place->snapshot, &t->raw);
    st = thread_objects(s, t, &err);
  }
  if (st == AMDDWARF_OK) {
    amddwarf_wave_options options;
    amddwarf_wave_options_init(&options);
    options.load_addresses = t->load_addresses;
    options.architecture = amddwarf_snapshot_architecture(t->place->snapshot);
    st = amddwarf_wave_open((const amddwarf_object *const *)t->objects, t->object_count, &t->raw,
                            &options, &t->wave, &err);
  }
  if (st == AMDDWARF_OK) {
    s->open_count++;
    use_touch(s, thread);
    if (t->has_focus)
      amddwarf_wave_set_focus(t->wave, t->focus);
    return true;
  }
  /* The thread stays, and says why it has no frames. */
  t->wave = NULL;
  if (t->place->snapshot != NULL)
    snprintf(t->open_error, sizeof t->open_error, "%s: %s (%s)", t->place->origin,
             err.message[0] ? err.message : amddwarf_status_message(st),
             amddwarf_status_name(st));
  else /* the message names the wave */
    snprintf(t->open_error, sizeof t->open_error, "%s (%s)",
             err.message[0] ? err.message : amddwarf_status_message(st),
             amddwarf_status_name(st));
  return false;
}

/* ---- Threads ---- */

static void thread_name(dap_session *s, size_t i, char *buf, size_t size)
{
  dap_thread *t = &s->threads[i];
  char place[96] = "";
  if (t->place->has_work_group && t->place->has_wave_id)
    snprintf(place, sizeof place, "wg(%u,%u,%u) wave %u", t->place->work_group[0],
             t->place->work_group[1], t->place->work_group[2], t->place->wave_id);
  else if (t->place->has_work_group)
    snprintf(place, sizeof place, "wg(%u,%u,%u)", t->place->work_group[0],
             t->place->work_group[1], t->place->work_group[2]);
  else if (t->place->has_wave_id)
    snprintf(place, sizeof place, "wave %u", t->place->wave_id);
  else
    snprintf(place, sizeof place, "wave #%zu", i + 1);
  if (!t->tried) {
    /* Its snapshot is read when a request first needs it: a stop of
       thousands of waves lists its threads without reading them all. A
       wave let go keeps the name it had. */
    if (t->name[0])
      snprintf(buf, size, "%s", t->name);
    else
      snprintf(buf, size, "%s (not read yet)", place);
    return;
  }
  const char *isa = t->place->snapshot ? amddwarf_snapshot_architecture(t->place->snapshot) : "";
  if (!t->wave) {
    snprintf(buf, size, "%s %s (not opened)", place, isa[0] ? isa : "");
    return;
  }
  const amddwarf_wave_info *info = amddwarf_wave_get_info(t->wave);
  if (!isa[0] && info->object)
    isa = amddwarf_object_get_wave_info(info->object)->processor;
  /* The count of the Lanes scope: DW_AT_LLVM_active_lane where the code
     has one, else EXEC. */
  const amddwarf_lanes *lanes = NULL;
  char active[16] = "?";
  if (amddwarf_wave_lanes(t->wave, &lanes, NULL) == AMDDWARF_OK)
    snprintf(active, sizeof active, "%u", lanes->active_count);
  char where[256];
  amddwarf_wave_place_text(t->wave, info->pc, AMDDWARF_PLACE_TEXT_LINE, where, sizeof where);
  snprintf(buf, size, "%s %s %s/%u lanes at %s", place, isa, active, info->wave_size,
           where[0] ? where : "??");
  snprintf(t->name, sizeof t->name, "%s", buf);
}

bool dap_threads(dap_session *s, const json_t *args, dap_reply *reply)
{
  (void)args;
  json_t *list = json_array();
  for (size_t i = 0; i < s->thread_count; i++) {
    char name[512];
    thread_name(s, i, name, sizeof name);
    json_t *t = json_object();
    json_object_set_new(t, "id", json_integer((json_int_t)i + 1));
    json_object_set_new(t, "name", json_string(name));
    json_array_append_new(list, t);
  }
  reply->body = json_pack("{s:o}", "threads", list);
  return true;
}

bool dap_thread_arg(dap_session *s, const json_t *args, dap_reply *reply, size_t *thread)
{
  uint64_t id = 0;
  const json_t *v = args ? json_object_get(args, "threadId") : NULL;
  if (!v)
    return dap_fail(reply, "missing argument 'threadId'");
  if (!json_is_integer(v) || json_integer_value(v) < 1 ||
      (uint64_t)json_integer_value(v) > s->thread_count)
    return dap_fail(reply, "argument 'threadId' must be a thread id from 1 to %zu",
                    s->thread_count);
  id = (uint64_t)json_integer_value(v);
  *thread = (size_t)id - 1;
  if (!dap_thread_open(s, *thread))
    return dap_fail(reply, "thread %llu has no frames: %s", (unsigned long long)id,
                    s->threads[*thread].open_error);
  s->current_thread = *thread;
  return true;
}

bool dap_frame_arg(dap_session *s, const json_t *args, bool required, dap_reply *reply,
                   size_t *thread, size_t *frame)
{
  uint64_t id = 0;
  *thread = s->current_thread;
  *frame = 0;
  if (!dap_arg_index(reply, args, "frameId", required, (uint64_t)INT64_MAX, &id))
    return false;
  if (id != 0) {
    uint64_t t = (id - 1) / DAP_FRAME_STRIDE;
    if (t >= s->thread_count)
      return dap_fail(reply, "frameId %llu names no frame", (unsigned long long)id);
    *thread = (size_t)t;
    *frame = (size_t)((id - 1) % DAP_FRAME_STRIDE);
  } else if (required) {
    return dap_fail(reply, "frameId 0 names no frame");
  }
  if (*thread >= s->thread_count || !dap_thread_open(s, *thread))
    return dap_fail(reply, "thread %zu has no frames: %s", *thread + 1,
                    *thread < s->thread_count ? s->threads[*thread].open_error : "no thread");
  s->current_thread = *thread;
  return true;
}

/* ---- Frames ---- */

json_t *dap_source_json(const char *file)
{
  json_t *src = json_object();
  const char *base = strrchr(file, '/');
  json_object_set_new(src, "name", json_string(base ? base + 1 : file));
  json_object_set_new(src, "path", json_string(file));
  return src;
}

bool dap_stack_trace(dap_session *s, const json_t *args, dap_reply *reply)
{
  size_t thread = 0;
  uint64_t start = 0, levels = 0;
  if (!dap_thread_arg(s, args, reply, &thread) ||
      !dap_arg_index(reply, args, "startFrame", false, DAP_FRAME_STRIDE, &start) ||
      !dap_arg_index(reply, args, "levels", false, DAP_FRAME_STRIDE, &levels))
    return false;
  amddwarf_wave *wave = s->threads[thread].wave;
  json_t *frames = json_array();
  size_t total = 0;
  char stopped[512] = "";
  for (size_t i = 0; i < DAP_FRAME_STRIDE - 1; i++) {
    const amddwarf_frame *f = NULL;
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    amddwarf_status st = amddwarf_wave_frame(wave, i, &f, &err);
    if (st == AMDDWARF_END)
      break;
    if (st != AMDDWARF_OK) {
      snprintf(stopped, sizeof stopped, "<unwinding stopped: %s (%s)>",
               err.message[0] ? err.message : amddwarf_status_message(st),
               amddwarf_status_name(st));
      break;
    }
    total = i + 1;
    if (i < start || (levels > 0 && i >= start + levels))
      continue;
    json_t *j = json_object();
    char name[320], pc[32];
    snprintf(pc, sizeof pc, "0x%" PRIx64, f->pc);
    /* A caller found through rows synthesized from its callee's prologue,
       or through the backend's registers, says so where the user looks. */
    const char *how = f->physical == 0 || f->inline_depth > 0 ? ""
                      : f->backend_registers                  ? " [backend registers]"
                      : f->unwound_by_prologue                ? " [unwound from prologue]"
                                                              : "";
    if (f->function_name)
      snprintf(name, sizeof name, "%s%s%s", f->function_name,
               f->inline_depth > 0 ? " [inlined]" : "", how);
    else
      snprintf(name, sizeof name, "?? (%s)%s", pc, how);
    json_object_set_new(j, "id", json_integer((json_int_t)(thread * DAP_FRAME_STRIDE + i + 1)));
    json_object_set_new(j, "name", json_string(name));
    if (f->file)
      json_object_set_new(j, "source", dap_source_json(f->file));
    json_object_set_new(j, "line", json_integer(f->file ? f->line : 0));
    json_object_set_new(j, "column", json_integer(f->file ? (f->column ? f->column : 1) : 0));
    json_object_set_new(j, "instructionPointerReference", json_string(pc));
    if (f->inline_depth > 0)
      json_object_set_new(j, "presentationHint", json_string("subtle"));
    json_array_append_new(frames, j);
  }
  if (stopped[0] && (levels == 0 || total < start + levels) && total >= start) {
    json_array_append_new(frames, json_pack("{s:I,s:s,s:i,s:i,s:s}", "id",
                                            (json_int_t)(thread * DAP_FRAME_STRIDE + total + 1),
                                            "name", stopped, "line", 0, "column", 0,
                                            "presentationHint", "label"));
  }
  /* The label frame that says why unwinding stopped is one of the frames. */
  reply->body = json_pack("{s:o,s:I}", "stackFrames", frames, "totalFrames",
                          (json_int_t)(total + (stopped[0] ? 1 : 0)));
  return true;
}

/* ---- Lanes ---- */

bool dap_lanes_request(dap_session *s, const json_t *args, dap_reply *reply)
{
  size_t thread = 0;
  if (!dap_thread_arg(s, args, reply, &thread))
    return false;
  const amddwarf_lanes *lanes = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_wave_lanes(s->threads[thread].wave, &lanes, &err);
  if (st != AMDDWARF_OK)
    return dap_fail_status(reply, "amdgpu/lanes", st, &err);
  char text[64];
  json_t *list = json_array();
  for (uint32_t l = 0; l < lanes->wave_size; l++) {
    const amddwarf_lane *lane = &lanes->lanes[l];
    json_t *j = json_object();
    json_object_set_new(j, "lane", json_integer(l));
    json_object_set_new(j, "active", json_boolean(lane->active));
    if (lane->pc_known) {
      snprintf(text, sizeof text, "0x%" PRIx64, lane->pc);
      json_object_set_new(j, "pc", json_string(text));
      amddwarf_place place;
      if (amddwarf_wave_place(s->threads[thread].wave, lane->pc, &place) == AMDDWARF_OK &&
          place.has_row) {
        if (place.file != NULL)
          json_object_set_new(j, "source", dap_source_json(place.file));
        json_object_set_new(j, "line", json_integer(place.line));
        json_object_set_new(j, "column", json_integer(place.column));
      }
    } else {
      json_object_set_new(j, "pc", json_null());
      json_object_set_new(j, "reason", json_string(amddwarf_status_name(lane->pc_status)));
    }
    json_array_append_new(list, j);
  }
  snprintf(text, sizeof text, "0x%" PRIx64, lanes->active_mask);
  reply->body = json_pack("{s:i,s:s,s:i,s:s,s:s,s:o}", "waveSize", (int)lanes->wave_size,
                          "activeMask", text, "focusLane",
                          (int)amddwarf_wave_focus(s->threads[thread].wave), "activeFrom",
                          amddwarf_active_from_text(lanes->active_from), "pcFrom",
                          amddwarf_lane_pc_from_text(lanes->pc_from), "lanes", list);
  return true;
}
