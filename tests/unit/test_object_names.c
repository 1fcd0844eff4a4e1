/* C++ names of a code object (src/object/demangle.c, <amddwarf/object.h>):
 * demangling, finding function symbols by any of their names, and the
 * nearest names when none matches. The demangled names are the Itanium C++
 * ABI's, worked out by hand from the mangling grammar (_Z <length><name>
 * <parameter types>; P pointer, f float, i int, v void, N...E nested). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amddwarf/object.h>
#include <amddwarf/produce.h>

/* Five functions of 64 bytes each, from .text offset 0: two overloads of
   step, advance, a member function in a namespace, and a C function. */
static const char program[] =
    "{\"dwarf\": {\"version\": 5, \"wave_size\": 64},"
    " \"object\": {\"type\": \"shared\", \"processor\": \"gfx90a\", \"text_size\": 320},"
    " \"symbols\": [{\"name\": \"_Z4stepP8ParticlePfif\", \"offset\": 0, \"size\": 64},"
    "   {\"name\": \"_Z4stepi\", \"offset\": 64, \"size\": 64},"
    "   {\"name\": \"_Z7advanceP8ParticlePfif\", \"offset\": 128, \"size\": 64},"
    "   {\"name\": \"_ZN2ns6Solver5solveEv\", \"offset\": 192, \"size\": 64},"
    "   {\"name\": \"plain_c\", \"offset\": 256, \"size\": 64}],"
    " \"units\": [{\"name\": \"n.hip\", \"producer\": \"test\", \"files\": [{\"name\": \"n.hip\"}],"
    "   \"functions\": [{\"name\": \"plain_c\", \"low\": 256, \"high\": 320}]}]}";

typedef struct fixture {
  uint8_t *image;
  size_t size;
  amddwarf_object *object;
} fixture;

static int setup(void **state)
{
  static fixture fx;
  amddwarf_error err;
  if (amddwarf_build_json(program, strlen(program), NULL, &fx.image, &fx.size, &err) !=
          AMDDWARF_OK ||
      amddwarf_object_open_memory(fx.image, fx.size, NULL, &fx.object, &err) != AMDDWARF_OK) {
    fprintf(stderr, "setup: %s\n", err.message);
    return -1;
  }
  *state = &fx;
  return 0;
}

static int teardown(void **state)
{
  fixture *fx = *state;
  amddwarf_object_close(fx->object);
  amddwarf_produce_free_bytes(NULL, fx->image, fx->size);
  return 0;
}

static void test_demangle(void **state)
{
  (void)state;
  char buf[64];
  size_t length = 0;
  assert_int_equal(amddwarf_demangle("_Z4stepP8ParticlePfif", buf, sizeof buf, &length),
                   AMDDWARF_OK);
  assert_string_equal(buf, "step(Particle*, float*, int, float)");
  assert_int_equal(length, strlen("step(Particle*, float*, int, float)"));
  assert_int_equal(amddwarf_demangle("_ZN2ns6Solver5solveEv", buf, sizeof buf, NULL),
                   AMDDWARF_OK);
  assert_string_equal(buf, "ns::Solver::solve()");
  /* A short buffer holds what fits; the length is the whole name's. */
  assert_int_equal(amddwarf_demangle("_Z4stepi", buf, 5, &length), AMDDWARF_OK);
  assert_string_equal(buf, "step");
  assert_int_equal(length, strlen("step(int)"));
  assert_int_equal(amddwarf_demangle("_Z4stepi", NULL, 0, &length), AMDDWARF_OK);
  assert_int_equal(length, 9);
  /* Not mangled, or not a valid mangling. */
  assert_int_equal(amddwarf_demangle("step", buf, sizeof buf, NULL), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_demangle("_Z", buf, sizeof buf, NULL), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_demangle("_Z9st", buf, sizeof buf, NULL), AMDDWARF_NOT_FOUND);
  assert_int_equal(amddwarf_demangle(NULL, buf, sizeof buf, NULL), AMDDWARF_E_INVALID_ARGUMENT);
}

static void test_symbol_names(void **state)
{
  fixture *fx = *state;
  const amddwarf_symbol *s = NULL;
  for (size_t i = 0; i < amddwarf_object_symbol_count(fx->object); ++i)
    if (strcmp(amddwarf_object_symbol(fx->object, i)->name, "_Z7advanceP8ParticlePfif") == 0)
      s = amddwarf_object_symbol(fx->object, i);
  assert_non_null(s);
  const char *name = amddwarf_object_symbol_name(fx->object, s);
  assert_string_equal(name, "advance(Particle*, float*, int, float)");
  /* Made once: the same string again. */
  assert_ptr_equal(amddwarf_object_symbol_name(fx->object, s), name);
}

/* The addresses of the functions NAME finds, in order; their count. */
static size_t find(const fixture *fx, const char *name, uint64_t *addresses)
{
  const amddwarf_symbol *found[8];
  size_t count = 0;
  amddwarf_status st = amddwarf_object_find_functions(fx->object, name, found, 8, &count);
  assert_int_equal(st, count > 0 ? AMDDWARF_OK : AMDDWARF_NOT_FOUND);
  for (size_t i = 0; i < count && i < 8; ++i)
    addresses[i] = found[i]->address;
  return count;
}

static void test_find_functions(void **state)
{
  fixture *fx = *state;
  uint64_t at[8];
  uint64_t text = 0;
  assert_int_equal(find(fx, "_Z4stepP8ParticlePfif", at), 1);
  text = at[0];
  /* Both overloads by the name alone, in address order. */
  assert_int_equal(find(fx, "step", at), 2);
  assert_int_equal(at[0], text);
  assert_int_equal(at[1], text + 64);
  assert_int_equal(find(fx, "step(int)", at), 1);
  assert_int_equal(at[0], text + 64);
  assert_int_equal(find(fx, "step(Particle*, float*, int, float)", at), 1);
  assert_int_equal(at[0], text);
  assert_int_equal(find(fx, "ns::Solver::solve", at), 1);
  assert_int_equal(at[0], text + 192);
  assert_int_equal(find(fx, "solve", at), 1);
  assert_int_equal(find(fx, "ns::Solver::solve()", at), 1);
  assert_int_equal(find(fx, "plain_c", at), 1);
  assert_int_equal(at[0], text + 256);
  /* Parts that are no name: none. */
  assert_int_equal(find(fx, "Solver::solve", at), 0);
  assert_int_equal(find(fx, "ste", at), 0);
  assert_int_equal(find(fx, "", at), 0);
  size_t count = 9;
  assert_int_equal(amddwarf_object_find_functions(fx->object, "step", NULL, 0, &count),
                   AMDDWARF_OK);
  assert_int_equal(count, 2);
}

static void test_suggestions(void **state)
{
  fixture *fx = *state;
  const amddwarf_symbol *near[AMDDWARF_MAX_SUGGESTIONS];
  /* "stpe" is 2 edits from "step" (the limit for 4 bytes: max(2, 4 / 3)). */
  size_t n = amddwarf_object_suggest_functions(fx->object, "stpe", near, 16);
  assert_int_equal(n, 2);
  assert_string_equal(near[0]->name, "_Z4stepP8ParticlePfif");
  assert_string_equal(near[1]->name, "_Z4stepi");
  /* The nearest first: advanc is 1 edit from advance. */
  n = amddwarf_object_suggest_functions(fx->object, "advanc", near, 16);
  assert_int_equal(n, 1);
  assert_string_equal(near[0]->name, "_Z7advanceP8ParticlePfif");
  n = amddwarf_object_suggest_functions(fx->object, "plain_d", near, 16);
  assert_int_equal(n, 1);
  assert_string_equal(near[0]->name, "plain_c");
  n = amddwarf_object_suggest_functions(fx->object, "sovle", near, 16);
  assert_int_equal(n, 1);
  assert_string_equal(near[0]->name, "_ZN2ns6Solver5solveEv");
  /* Capacity 1 keeps the nearest. */
  n = amddwarf_object_suggest_functions(fx->object, "stepp", near, 1);
  assert_int_equal(n, 1);
  assert_string_equal(near[0]->name, "_Z4stepP8ParticlePfif");
  assert_int_equal(amddwarf_object_suggest_functions(fx->object, "zzzzzzzzz", near, 16), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demangle),
      cmocka_unit_test(test_symbol_names),
      cmocka_unit_test(test_find_functions),
      cmocka_unit_test(test_suggestions),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
