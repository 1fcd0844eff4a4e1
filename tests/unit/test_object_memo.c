/* The answers kept with an object (object/memo.h): what is published is
 * found by its whole key and only by it, by every thread; one answer is
 * kept for a key; the object keeps AMDDWARF_OBJECT_MEMOS_MAX of each kind,
 * and the one past that stays its caller's. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "object/internal.h"
#include "object/memo.h"
#include "object_fixture.h"

typedef struct counted {
  amddwarf_object_memo memo;
  uint64_t value;
} counted;

static counted *publish(const amddwarf_object *object, const uint64_t key[4], uint64_t value)
{
  counted *c = (counted *)amddwarf__object_memo_new(object, key, sizeof *c);
  assert_non_null(c);
  c->value = value;
  const amddwarf_object_memo *kept = amddwarf__object_memo_publish(object, &c->memo);
  if (kept != &c->memo)
    amddwarf__object_memo_free(object, &c->memo);
  return (counted *)kept;
}

static amddwarf_object *open_sample(uint8_t *image)
{
  static dwarf5_sample d;
  size_t size = dwarf5_sample_object(&d, image, TEST_IMAGE_SIZE);
  amddwarf_object *object = NULL;
  amddwarf_error err;
  assert_int_equal(open_test_object(image, size, &object, &err), AMDDWARF_OK);
  return object;
}

/* Keys that differ in one word only, PCs a byte apart among them, find
   their own memo; a key never published finds none. */
static void test_found_by_the_whole_key(void **state)
{
  (void)state;
  static uint8_t image[TEST_IMAGE_SIZE];
  amddwarf_object *object = open_sample(image);
  for (uint64_t pc = 0x1000; pc < 0x1000 + 300; ++pc) {
    const uint64_t key[4] = {7, pc, pc & 3, 0};
    assert_non_null(publish(object, key, pc * 3));
  }
  /* The keys spread over the lists: a look-up reads a few memos, not all. */
  unsigned used = 0;
  for (unsigned i = 0; i < AMDDWARF_OBJECT_MEMO_LISTS; ++i)
    used += atomic_load(&object->memos[i]) != NULL;
  assert_true(used >= AMDDWARF_OBJECT_MEMO_LISTS * 3 / 4);
  for (uint64_t pc = 0x1000; pc < 0x1000 + 300; ++pc) {
    const uint64_t key[4] = {7, pc, pc & 3, 0};
    const counted *c = (const counted *)amddwarf__object_memo_find(object, key);
    assert_non_null(c);
    assert_int_equal(c->value, pc * 3);
    const uint64_t other_kind[4] = {8, pc, pc & 3, 0};
    const uint64_t other_word[4] = {7, pc, (pc & 3) ^ 1, 0};
    assert_null(amddwarf__object_memo_find(object, other_kind));
    assert_null(amddwarf__object_memo_find(object, other_word));
  }
  amddwarf_object_close(object);
}

/* A key published again keeps the first answer, counted in the object's
   memory once; the second is its caller's. */
static void test_one_answer_a_key(void **state)
{
  (void)state;
  static uint8_t image[TEST_IMAGE_SIZE];
  amddwarf_object *object = open_sample(image);
  const uint64_t key[4] = {5, 0x1234, 0, 0};
  size_t before = amddwarf_object_memory_used(object);
  counted *first = publish(object, key, 1);
  assert_int_equal(amddwarf_object_memory_used(object), before + sizeof *first);
  counted *second = (counted *)amddwarf__object_memo_new(object, key, sizeof *second);
  assert_non_null(second);
  second->value = 2;
  assert_ptr_equal(amddwarf__object_memo_publish(object, &second->memo), &first->memo);
  amddwarf__object_memo_free(object, &second->memo);
  assert_int_equal(amddwarf_object_memory_used(object), before + sizeof *first);
  const counted *found = (const counted *)amddwarf__object_memo_find(object, key);
  assert_ptr_equal(found, first);
  assert_int_equal(found->value, 1);
  amddwarf_object_close(object);
}

/* amddwarf__object_memo_keep settles a memo: a second of a key gives way
   to the first (and is freed: ASan sees a leak otherwise); past the
   object's quota the memo is the caller's when asked for, else none is
   kept. */
static void test_keep_settles_the_memo(void **state)
{
  (void)state;
  static uint8_t image[TEST_IMAGE_SIZE];
  amddwarf_object *object = open_sample(image);
  const uint64_t key[4] = {6, 0x40, 0, 0};
  counted *first = (counted *)amddwarf__object_memo_new(object, key, sizeof *first);
  counted *second = (counted *)amddwarf__object_memo_new(object, key, sizeof *second);
  assert_non_null(first);
  assert_non_null(second);
  bool own = true;
  assert_ptr_equal(amddwarf__object_memo_keep(object, &first->memo, &own), &first->memo);
  assert_false(own);
  assert_ptr_equal(amddwarf__object_memo_keep(object, &second->memo, NULL), &first->memo);
  amddwarf__object_memo_limit(object, 0);
  const uint64_t refused[4] = {6, 0x44, 0, 0};
  counted *mine = (counted *)amddwarf__object_memo_new(object, refused, sizeof *mine);
  assert_non_null(mine);
  assert_ptr_equal(amddwarf__object_memo_keep(object, &mine->memo, &own), &mine->memo);
  assert_true(own);
  assert_null(amddwarf__object_memo_find(object, refused));
  amddwarf__object_memo_free(object, &mine->memo);
  counted *dropped = (counted *)amddwarf__object_memo_new(object, refused, sizeof *dropped);
  assert_non_null(dropped);
  assert_null(amddwarf__object_memo_keep(object, &dropped->memo, NULL));
  amddwarf_object_close(object);
}

/* The object keeps AMDDWARF_OBJECT_MEMOS_MAX memos of a kind; the next of
   that kind is refused, stays the caller's and is not found, while another
   kind is still kept. */
static void test_each_kind_keeps_a_bounded_number(void **state)
{
  (void)state;
  static uint8_t image[TEST_IMAGE_SIZE];
  amddwarf_object *object = open_sample(image);
  for (uint64_t i = 0; i < AMDDWARF_OBJECT_MEMOS_MAX; ++i) {
    const uint64_t key[4] = {1, i, 0, 0};
    assert_non_null(publish(object, key, i));
  }
  const uint64_t past[4] = {1, AMDDWARF_OBJECT_MEMOS_MAX, 0, 0};
  counted *c = (counted *)amddwarf__object_memo_new(object, past, sizeof *c);
  assert_non_null(c);
  assert_null(amddwarf__object_memo_publish(object, &c->memo));
  assert_null(amddwarf__object_memo_find(object, past));
  amddwarf__object_memo_free(object, &c->memo);
  const uint64_t first[4] = {1, 0, 0, 0};
  assert_non_null(amddwarf__object_memo_find(object, first));
  const uint64_t other_kind[4] = {3, 0, 0, 0};
  assert_non_null(publish(object, other_kind, 9));
  amddwarf_object_close(object);
}

enum { THREADS = 4, PER_THREAD = 200 };

typedef struct job {
  const amddwarf_object *object;
  uint64_t thread;
  int missing;
} job;

/* Publishes this thread's memos, then finds every thread's that the
   others have published so far, and at the end its own. */
static void *publish_and_find(void *arg)
{
  job *j = arg;
  for (uint64_t i = 0; i < PER_THREAD; ++i) {
    const uint64_t key[4] = {2, j->thread, i, 0};
    counted *c = (counted *)amddwarf__object_memo_new(j->object, key, sizeof *c);
    if (c == NULL)
      return NULL;
    c->value = j->thread * 1000 + i;
    if (amddwarf__object_memo_publish(j->object, &c->memo) != &c->memo)
      amddwarf__object_memo_free(j->object, &c->memo);
    for (uint64_t t = 0; t < THREADS; ++t) {
      const uint64_t other[4] = {2, t, i / 2, 0};
      const counted *o = (const counted *)amddwarf__object_memo_find(j->object, other);
      if (o != NULL && o->value != t * 1000 + i / 2)
        j->missing++;
    }
  }
  for (uint64_t i = 0; i < PER_THREAD; ++i) {
    const uint64_t key[4] = {2, j->thread, i, 0};
    const counted *c = (const counted *)amddwarf__object_memo_find(j->object, key);
    if (c == NULL || c->value != j->thread * 1000 + i)
      j->missing++;
  }
  return NULL;
}

static void test_threads_publish_and_find(void **state)
{
  (void)state;
  static uint8_t image[TEST_IMAGE_SIZE];
  amddwarf_object *object = open_sample(image);
  pthread_t threads[THREADS];
  job jobs[THREADS];
  for (uint64_t t = 0; t < THREADS; ++t) {
    jobs[t] = (job){object, t, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, publish_and_find, &jobs[t]), 0);
  }
  for (size_t t = 0; t < THREADS; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(jobs[t].missing, 0);
  }
  amddwarf_object_close(object);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_found_by_the_whole_key),
      cmocka_unit_test(test_one_answer_a_key),
      cmocka_unit_test(test_keep_settles_the_memo),
      cmocka_unit_test(test_each_kind_keeps_a_bounded_number),
      cmocka_unit_test(test_threads_publish_and_find),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
