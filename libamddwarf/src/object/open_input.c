/* Opening what the user has (a path or a code-object URI, of a code object
 * or a container of them) as one code object, chosen by a selection. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "common/mem.h"
#include "container/internal.h"
#include "object/internal.h"
#include <amddwarf/container.h>

/* Whether entry E is one SELECTION keeps (WANT: its parsed target, or NULL). */
static bool selected(const amddwarf_container_entry *e, const amddwarf_selection *selection,
                     const amddwarf_target_id *want)
{
  if (selection != NULL && selection->index >= 0 && (uint64_t)selection->index != e->index)
    return false;
  /* a bare code object's target is known once it is open (below) */
  return want == NULL || e->target.processor[0] == 0 ||
         amddwarf_target_id_matches(want, &e->target);
}

/* The error that lists the candidates (as many as the message holds). */
static amddwarf_status ambiguous(const char *input, const amddwarf_container *c,
                                 const amddwarf_selection *selection,
                                 const amddwarf_target_id *want, size_t matches,
                                 amddwarf_error *err)
{
  char list[AMDDWARF_ERROR_MESSAGE_SIZE];
  size_t n = 0;
  for (size_t i = 0; i < amddwarf_container_count(c) && n < sizeof list; ++i) {
    const amddwarf_container_entry *e = amddwarf_container_entry_at(c, i);
    if (selected(e, selection, want))
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%u %s", n ? ", " : "", e->index,
                            e->entry_id);
  }
  return amddwarf__fail(err, AMDDWARF_E_CONTAINER_AMBIGUOUS, AMDDWARF_NO_OFFSET,
                        "%s holds %zu code objects%s; choose one with --target ID or --object N: "
                        "%s",
                        input, matches, want ? " of that target" : "", list);
}

/* The allocator of OPTIONS (which may be NULL or short). */
static const amddwarf_allocator *options_allocator(const amddwarf_object_options *options)
{
  if (options != NULL && options->struct_size >= sizeof(uint32_t) + sizeof(void *))
    return options->allocator;
  return NULL;
}

amddwarf_status amddwarf_object_open_container(amddwarf_container *c, const char *name,
                                               const amddwarf_selection *selection,
                                               const amddwarf_object_options *options,
                                               amddwarf_object **out, amddwarf_error *err)
{
  if (c == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_object_open_container: NULL argument");
  *out = NULL;
  if (name == NULL)
    name = "the input";
  amddwarf_target_id want;
  bool has_target = selection != NULL && selection->target != NULL;
  if (has_target) {
    amddwarf_status st = amddwarf_target_id_parse(selection->target, SIZE_MAX, &want, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  amddwarf_status st = AMDDWARF_OK;
  size_t matches = 0, chosen = 0, count = amddwarf_container_count(c);
  for (size_t i = 0; i < count; ++i)
    if (selected(amddwarf_container_entry_at(c, i), selection, has_target ? &want : NULL)) {
      if (matches++ == 0)
        chosen = i;
    }
  if (count == 0)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NO_CODE_OBJECT, AMDDWARF_NO_OFFSET,
                        "%s holds no AMDGPU code object (no .hip_fatbin bundle, offload bundle "
                        "section or .llvm.offloading image with a device entry)",
                        name);
  else if (matches == 0 && selection != NULL && selection->index >= 0 &&
           (uint64_t)selection->index >= count)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NO_MATCH, AMDDWARF_NO_OFFSET,
                        "%s has no code object %lld: it holds %zu (0 to %zu)", name,
                        (long long)selection->index, count, count - 1);
  else if (matches == 0)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NO_MATCH, AMDDWARF_NO_OFFSET,
                        "no code object of %s is for target %s%s (see `amddwarf objects`)", name,
                        has_target ? selection->target : "?",
                        selection != NULL && selection->index >= 0 ? " at that index" : "");
  else if (matches > 1)
    st = ambiguous(name, c, selection, has_target ? &want : NULL, matches, err);
  /* the object owns its bytes (a decompressed bundle moves to it, a code
     object in a file is mapped on its own, one in memory is copied), so the
     container (and its mapping of the whole file) may go now */
  const uint8_t *bytes = NULL;
  size_t size = 0, block_size = 0;
  void *block = NULL;
  bool mapped = false;
  if (st == AMDDWARF_OK)
    st = amddwarf__container_take_bytes(c, chosen, &block, &block_size, &mapped, &bytes, &size,
                                        err);
  amddwarf_allocator a = amddwarf__allocator_resolve(options_allocator(options));
  if (st == AMDDWARF_OK && !mapped &&
      (c->allocator.alloc != a.alloc || c->allocator.free != a.free ||
       c->allocator.user != a.user)) {
    /* the container's allocator is not the object's: a copy of the object's */
    void *copy = amddwarf__mem_alloc(&a, size ? size : 1);
    if (copy == NULL)
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                          "code object of %zu bytes", size);
    else
      memcpy(copy, bytes, size);
    amddwarf__mem_free(&c->allocator, block, block_size);
    block = copy;
    block_size = size ? size : 1;
    bytes = copy;
  }
  if (st == AMDDWARF_OK)
    st = amddwarf_object_open_memory(bytes, size, options, out, err);
  if (st != AMDDWARF_OK) {
    if (mapped)
      munmap(block, block_size);
    else
      amddwarf__mem_free(&a, block, block_size);
    return st;
  }
  if (mapped) {
    (*out)->mapped_data = block;
    (*out)->mapped_size = block_size;
  } else {
    (*out)->owned_block = block;
    (*out)->owned_block_size = block_size;
  }
  if (has_target && amddwarf_container_entry_at(c, chosen)->target.processor[0] == 0) {
    const amddwarf_object_info *info = amddwarf_object_get_info(*out);
    amddwarf_target_id have;
    memset(&have, 0, sizeof have);
    snprintf(have.processor, sizeof have.processor, "%s", info->processor);
    have.xnack = info->xnack;
    have.sramecc = info->sramecc;
    if (!amddwarf_target_id_matches(&want, &have)) {
      st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NO_MATCH, AMDDWARF_NO_OFFSET,
                          "%s is a code object for %s, not for target %s", name, have.processor,
                          selection->target);
      amddwarf_object_close(*out);
      *out = NULL;
      return st;
    }
  }
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_object_open_input(const char *input, const amddwarf_selection *selection,
                                           const amddwarf_object_options *options,
                                           amddwarf_object **out, amddwarf_error *err)
{
  if (input == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_object_open_input: NULL argument");
  *out = NULL;
  if (selection != NULL && selection->target != NULL) { /* a bad target fails first */
    amddwarf_target_id want;
    amddwarf_status st = amddwarf_target_id_parse(selection->target, SIZE_MAX, &want, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  amddwarf_container_options copts;
  amddwarf_container_options_init(&copts);
  copts.allocator = options_allocator(options);
  amddwarf_container *c = NULL;
  amddwarf_status st = amddwarf_container_open_input(input, &copts, &c, err);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_open_container(c, input, selection, options, out, err);
  amddwarf_container_close(c);
  return st;
}

amddwarf_status amddwarf_object_open_uri(const char *uri, const amddwarf_object_options *options,
                                         amddwarf_object **out, amddwarf_error *err)
{
  if (uri == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_object_open_uri: NULL argument");
  *out = NULL;
  if (strstr(uri, "://") == NULL)
    return amddwarf__fail(err, AMDDWARF_E_CONTAINER_BAD_URI, 0,
                          "'%s' is not a URI (file://PATH#offset=N&size=M)", uri);
  return amddwarf_object_open_input(uri, NULL, options, out, err);
}
