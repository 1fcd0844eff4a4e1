/* C++ names as a debugger shows them: symbols demangled by the C++
 * runtime's demangler, the name of a function DIE as llvm-symbolizer shows
 * it, and finding functions by any of their names, with the nearest names
 * when none matches.
 *
 * The demangler is the Itanium C++ ABI's __cxa_demangle from libstdc++ (the
 * one GCC, gdb's libiberty and every C++ program on the system share; it is
 * extern "C", so C calls it by declaring it). No demangling is written here.
 *
 * Names are computed on first use and kept for the object's life: under
 * the object's load lock, since the arena they live in grows under it. */
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/text.h"
#include "object/internal.h"

/* libstdc++ (cxxabi.h): a malloc'ed demangled name, or NULL with *STATUS
   -1 (no memory), -2 (not a mangled name), -3 (bad argument). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *length, int *status);

/* Longer symbols are not demangled: the demangler's recursion grows with
   the nesting of a name, and no real function name comes near this. */
enum { MAX_MANGLED = 4096 };

/* A name the Itanium ABI mangled: "_Z..." (or "__Z..." as some platforms
   spell it). */
static int is_mangled(const char *name)
{
  return name != NULL && (strncmp(name, "_Z", 2) == 0 || strncmp(name, "__Z", 3) == 0) &&
         strlen(name) <= MAX_MANGLED;
}

amddwarf_status amddwarf_demangle(const char *symbol, char *buf, size_t size, size_t *length)
{
  if (symbol == NULL || (buf == NULL && size > 0))
    return AMDDWARF_E_INVALID_ARGUMENT;
  if (!is_mangled(symbol))
    return AMDDWARF_NOT_FOUND;
  int status = 0;
  char *text = __cxa_demangle(symbol, NULL, NULL, &status);
  if (text == NULL)
    return status == -1 ? AMDDWARF_E_NO_MEMORY : AMDDWARF_NOT_FOUND;
  size_t n = strlen(text);
  if (length != NULL)
    *length = n;
  if (size > 0) {
    size_t copy = n < size - 1 ? n : size - 1;
    memcpy(buf, text, copy);
    buf[copy] = '\0';
  }
  free(text);
  return AMDDWARF_OK;
}

/* SYMBOL demangled, copied into the object's arena; NAME itself when it is
   not mangled (or cannot be demangled). Under the load lock. */
static const char *display_of(amddwarf_object *object, const char *name)
{
  int status = 0;
  if (!is_mangled(name))
    return name;
  char *text = __cxa_demangle(name, NULL, NULL, &status);
  if (text == NULL)
    return name;
  size_t n = strlen(text);
  char *copy = amddwarf__arena_alloc(&object->arena, n + 1, 1);
  if (copy != NULL)
    memcpy(copy, text, n + 1);
  free(text);
  return copy != NULL ? copy : name;
}

/* The cached display name of KEY, an address the object owns (a DIE, or the
   name string of a symbol or a DIE's linkage name), computing it from NAME on first use: open addressing by the
   key's address. Under the load lock. */
static const char *cached(amddwarf_object *object, const void *key, const char *name)
{
  amddwarf_name_cache *c = &object->names;
  if (c->count * 2 >= c->capacity) {
    size_t capacity = c->capacity ? 2 * c->capacity : 64;
    amddwarf_name_slot *slots = amddwarf__mem_calloc(&object->allocator, capacity, sizeof *slots);
    if (slots == NULL)
      return name;
    for (size_t i = 0; i < c->capacity; ++i) {
      if (c->slots[i].key == NULL)
        continue;
      size_t k = ((uintptr_t)c->slots[i].key >> 3) & (capacity - 1);
      while (slots[k].key != NULL)
        k = (k + 1) & (capacity - 1);
      slots[k] = c->slots[i];
    }
    amddwarf__mem_free(&object->allocator, c->slots, c->capacity * sizeof *c->slots);
    c->slots = slots;
    c->capacity = capacity;
  }
  size_t k = ((uintptr_t)key >> 3) & (c->capacity - 1);
  while (c->slots[k].key != NULL && c->slots[k].key != key)
    k = (k + 1) & (c->capacity - 1);
  if (c->slots[k].key == NULL) {
    c->slots[k].key = key;
    c->slots[k].name = display_of(object, name);
    c->count++;
  }
  return c->slots[k].name;
}

void amddwarf__object_free_names(amddwarf_object *object)
{
  amddwarf__mem_free(&object->allocator, object->names.slots,
                     object->names.capacity * sizeof *object->names.slots);
  memset(&object->names, 0, sizeof object->names);
}

/* KEY's display name, its source being NAME (a symbol's name or a DIE's
   linkage name). */
static const char *display_name(const amddwarf_object *cobject, const void *key,
                                const char *name)
{
  if (!is_mangled(name))
    return name;
  /* The cache is the object's own state, made under its lock. */
  amddwarf_object *object = (amddwarf_object *)cobject;
  pthread_mutex_lock(&object->load_lock);
  const char *result = cached(object, key, name);
  pthread_mutex_unlock(&object->load_lock);
  return result;
}

const char *amddwarf_object_function_name(const amddwarf_object *object,
                                          const amddwarf_die_info *die)
{
  if (object == NULL || die == NULL)
    return NULL;
  /* The summary gives an inlined subroutine or a definition its origin's
     or declaration's linkage name when it has none of its own. */
  if (die->linkage_name != NULL) {
    const char *name = display_name(object, die, die->linkage_name);
    if (name != die->linkage_name)
      return name;
  }
  return die->name != NULL ? die->name : die->linkage_name;
}

const char *amddwarf_object_die_function_name(const amddwarf_object *object,
                                              amddwarf_die_ref die)
{
  if (object == NULL)
    return NULL;
  const char *linkage = amddwarf_object_die_string(object, die, AMDDWARF_DW_AT_linkage_name);
  if (linkage == NULL)
    linkage = amddwarf_object_die_string(object, die, AMDDWARF_DW_AT_MIPS_linkage_name);
  /* The linkage string lives as long as the object: it keys the cache. */
  if (linkage != NULL) {
    const char *shown = display_name(object, linkage, linkage);
    if (shown != linkage)
      return shown;
  }
  const char *name = amddwarf_object_die_string(object, die, AMDDWARF_DW_AT_name);
  return name != NULL ? name : linkage;
}

const char *amddwarf_object_symbol_name(const amddwarf_object *object,
                                        const amddwarf_symbol *symbol)
{
  if (object == NULL || symbol == NULL)
    return NULL;
  return display_name(object, symbol->name, symbol->name);
}

/* ---- Finding functions by name ---- */

static int is_function_symbol(const amddwarf_symbol *s)
{
  return s->kind == AMDDWARF_SYMBOL_FUNCTION || s->kind == AMDDWARF_SYMBOL_KERNEL;
}

/* The length of DISPLAY without its parameter list and what follows it
   ("step(Particle*, int)" -> 4, "ns::f<int>(int) const" -> 10): up to the
   '(' matching the last ')'. The whole length when it has none. */
static size_t base_length(const char *display)
{
  size_t n = strlen(display);
  size_t close = n;
  while (close > 0 && display[close - 1] != ')')
    --close;
  if (close == 0)
    return n;
  int depth = 0;
  for (size_t i = close; i-- > 0;) {
    if (display[i] == ')')
      ++depth;
    else if (display[i] == '(' && --depth == 0)
      return i;
  }
  return n;
}

/* Where the unqualified name starts in the first BASE bytes of DISPLAY:
   after the last "::" outside template arguments and parentheses
   ("ns::Solver<a::b>::step" -> "step"). */
static size_t unqualified_start(const char *display, size_t base)
{
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < base; ++i) {
    char c = display[i];
    if (c == '<' || c == '(')
      ++depth;
    else if ((c == '>' || c == ')') && depth > 0)
      --depth;
    else if (c == ':' && display[i + 1] == ':' && depth == 0)
      start = i + 2;
  }
  return start;
}

/* The names a user may give for symbol S: its symbol name, its demangled
   name, that name without its parameter list ("ns::Solver::step") and
   without its qualifiers ("step"), as byte ranges of the two names. */
typedef struct name_forms {
  const char *text[4];
  size_t length[4];
  size_t count;
} name_forms;

static name_forms forms_of(const amddwarf_object *object, const amddwarf_symbol *s)
{
  name_forms f = {{s->name}, {strlen(s->name)}, 1};
  const char *display = amddwarf_object_symbol_name(object, s);
  if (display == s->name)
    return f;
  size_t base = base_length(display), start = unqualified_start(display, base);
  f.text[1] = display;
  f.length[1] = strlen(display);
  f.text[2] = display;
  f.length[2] = base;
  f.text[3] = display + start;
  f.length[3] = base - start;
  f.count = start > 0 ? 4 : 3;
  return f;
}

/* Whether NAME is one of the names of symbol S. */
static int names(const amddwarf_object *object, const amddwarf_symbol *s, const char *name)
{
  name_forms f = forms_of(object, s);
  size_t n = strlen(name);
  for (size_t i = 0; i < f.count; ++i)
    if (f.length[i] == n && memcmp(f.text[i], name, n) == 0)
      return 1;
  return 0;
}

amddwarf_status amddwarf_object_find_functions(const amddwarf_object *object, const char *name,
                                               const amddwarf_symbol **out, size_t capacity,
                                               size_t *count)
{
  if (object == NULL || name == NULL || count == NULL || (out == NULL && capacity > 0))
    return AMDDWARF_E_INVALID_ARGUMENT;
  size_t found = 0;
  size_t symbol_count = amddwarf_object_symbol_count(object); /* read on first use */
  for (size_t i = 0; i < symbol_count; ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    if (!is_function_symbol(s) || !names(object, s, name))
      continue;
    if (found < capacity)
      out[found] = s;
    found++;
  }
  *count = found;
  return found > 0 ? AMDDWARF_OK : AMDDWARF_NOT_FOUND;
}

static size_t suggestion_limit(const char *name)
{
  size_t n = strlen(name);
  return n / 3 > 2 ? n / 3 : 2;
}

/* How far NAME is from symbol S: the least distance to any of its names. */
static size_t symbol_distance(const amddwarf_object *object, const amddwarf_symbol *s,
                              const char *name, size_t limit)
{
  name_forms f = forms_of(object, s);
  size_t best = limit + 1;
  for (size_t i = 0; i < f.count; ++i) {
    size_t d = amddwarf__edit_distance(f.text[i], f.length[i], name, limit);
    best = d < best ? d : best;
  }
  return best;
}

size_t amddwarf_object_suggest_functions(const amddwarf_object *object, const char *name,
                                         const amddwarf_symbol **out, size_t capacity)
{
  if (object == NULL || name == NULL || (out == NULL && capacity > 0))
    return 0;
  size_t limit = suggestion_limit(name), kept = 0;
  size_t distance[AMDDWARF_MAX_SUGGESTIONS];
  if (capacity > AMDDWARF_MAX_SUGGESTIONS)
    capacity = AMDDWARF_MAX_SUGGESTIONS;
  size_t symbol_count = amddwarf_object_symbol_count(object); /* read on first use */
  for (size_t i = 0; i < symbol_count; ++i) {
    const amddwarf_symbol *s = amddwarf_object_symbol(object, i);
    if (!is_function_symbol(s))
      continue;
    size_t d = symbol_distance(object, s, name, limit);
    if (d > limit)
      continue;
    /* Insertion by distance; symbols come in address order, which breaks
       ties. */
    size_t at = kept;
    while (at > 0 && distance[at - 1] > d)
      --at;
    if (at >= capacity)
      continue;
    size_t last = kept < capacity ? kept : capacity - 1;
    for (size_t k = last; k > at; --k) {
      out[k] = out[k - 1];
      distance[k] = distance[k - 1];
    }
    out[at] = s;
    distance[at] = d;
    if (kept < capacity)
      ++kept;
  }
  return kept;
}
