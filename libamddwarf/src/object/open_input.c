/* Opening what the user has (a path or a code-object URI, of a code object
 * or a container of them) as one code object, chosen by a selection. */
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "object/internal.h"
#include <amddwarf/container.h>

/* Whether entry E is one SELECTION keeps (WANT: its parsed target, or NULL). */
static bool selected(const amddwarf_container_entry *e, const amddwarf_selection *selection,
                     const amddwarf_target_id *want)
{
  if (selection != NULL && selection->index >= 0 && (uint64_t)selection->index != e->index)
    return false;
  return want == NULL || amddwarf_target_id_matches(want, &e->target);
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

amddwarf_status amddwarf_object_open_input(const char *input, const amddwarf_selection *selection,
                                           const amddwarf_object_options *options,
                                           amddwarf_object **out, amddwarf_error *err)
{
  if (input == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                          "amddwarf_object_open_input: NULL argument");
  *out = NULL;
  amddwarf_target_id want;
  bool has_target = selection != NULL && selection->target != NULL;
  if (has_target) {
    amddwarf_status st = amddwarf_target_id_parse(selection->target, SIZE_MAX, &want, err);
    if (st != AMDDWARF_OK)
      return st;
  }
  amddwarf_container_options copts;
  amddwarf_container_options_init(&copts);
  if (options != NULL && options->struct_size >= sizeof(uint32_t) + sizeof(void *))
    copts.allocator = options->allocator;
  amddwarf_container *c = NULL;
  amddwarf_status st = amddwarf_container_open_input(input, &copts, &c, err);
  if (st != AMDDWARF_OK)
    return st;
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
                        input);
  else if (matches == 0)
    st = amddwarf__fail(err, AMDDWARF_E_CONTAINER_NO_MATCH, AMDDWARF_NO_OFFSET,
                        "no code object of %s is %s%s%s%lld (it holds %zu: see `amddwarf "
                        "objects`)",
                        input, has_target ? "for target " : "", has_target ? selection->target : "",
                        has_target ? " with index " : "number ",
                        selection && selection->index >= 0 ? (long long)selection->index : -1LL,
                        count);
  else if (matches > 1)
    st = ambiguous(input, c, selection, has_target ? &want : NULL, matches, err);
  const uint8_t *bytes = NULL;
  size_t size = 0;
  if (st == AMDDWARF_OK)
    st = amddwarf_container_entry_bytes(c, chosen, &bytes, &size, err);
  uint8_t *copy = NULL;
  amddwarf_allocator a = amddwarf__allocator_resolve(copts.allocator);
  if (st == AMDDWARF_OK) {
    /* the object owns a copy, so that the container (and its mapping of
       the whole file) goes now */
    copy = amddwarf__mem_alloc(&a, size ? size : 1);
    if (copy == NULL)
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "code object of %zu bytes",
                          size);
    else
      memcpy(copy, bytes, size);
  }
  amddwarf_container_close(c);
  if (st == AMDDWARF_OK)
    st = amddwarf_object_open_memory(copy, size, options, out, err);
  if (st != AMDDWARF_OK) {
    if (copy != NULL)
      amddwarf__mem_free(&a, copy, size ? size : 1);
    return st;
  }
  (*out)->owned_data = copy;
  return AMDDWARF_OK;
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
