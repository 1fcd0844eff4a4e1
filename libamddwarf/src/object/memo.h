/* Answers derived from an object and kept with it for its life, shared by
 * every wave and thread that reads the object (the debugger layer keeps the
 * variables of a scope at a PC here: the 2,560 waves of a stop at one PC
 * ask the same question). A memo is immutable once published, except for
 * what its owner publishes into it with atomics of its own; readers never
 * wait. No libdwarf here: the debugger layer includes this header. */
#ifndef AMDDWARF_OBJECT_MEMO_H
#define AMDDWARF_OBJECT_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amddwarf/object.h>

/* The header of a memo; its owner's data follows in the same block. */
typedef struct amddwarf_object_memo {
  struct amddwarf_object_memo *next;
  uint64_t key[4];  /* what the memo answers: KEY[0] names the kind of question */
  size_t size;      /* bytes of the block, header included */
  /* Frees what the owner hung on the memo (blocks of
     amddwarf__object_memo_block), or NULL. */
  void (*release)(const amddwarf_object *object, struct amddwarf_object_memo *memo);
} amddwarf_object_memo;

/* The newest memo of OBJECT published with KEY, or NULL. */
const amddwarf_object_memo *amddwarf__object_memo_find(const amddwarf_object *object,
                                                       const uint64_t key[4]);

/* A zeroed block of SIZE bytes (at least the header) for a memo of KEY,
   from OBJECT's allocator; NULL when out of memory. */
amddwarf_object_memo *amddwarf__object_memo_new(const amddwarf_object *object,
                                                const uint64_t key[4], size_t size);

/* Publishes MEMO (made by amddwarf__object_memo_new and filled) unless a
   memo of its key is published already: returns the memo readers find from
   now on, MEMO or the one published before it (MEMO is then the caller's
   to free). Two threads answering one question at once thus keep one
   answer. NULL when OBJECT keeps as many memos of MEMO's kind (KEY[0]) as
   it may (AMDDWARF_OBJECT_MEMOS_MAX), so that no kind crowds the others
   out, or as many kinds: MEMO is then the caller's, to use and to free with
   amddwarf__object_memo_free. */
const amddwarf_object_memo *amddwarf__object_memo_publish(const amddwarf_object *object,
                                                          amddwarf_object_memo *memo);

/* amddwarf__object_memo_publish with what becomes of MEMO settled: the
   memo readers find from now on is returned, MEMO or the one published
   before it (MEMO is then freed). When the object keeps no more, MEMO is
   returned with *OWN set, the caller's to use and to free with
   amddwarf__object_memo_free; with OWN NULL it is freed and NULL returned. */
const amddwarf_object_memo *amddwarf__object_memo_keep(const amddwarf_object *object,
                                                       amddwarf_object_memo *memo, bool *own);

/* OBJECT keeps at most LIMIT memos of each kind from now on (tests: 0
   makes every answer its caller's own). */
void amddwarf__object_memo_limit(const amddwarf_object *object, size_t limit);

/* Frees MEMO, one that was not published. */
void amddwarf__object_memo_free(const amddwarf_object *object, amddwarf_object_memo *memo);

/* A block of SIZE bytes from OBJECT's allocator for a memo's owner to hang
   on it (freed by the memo's release), and its free; NULL when out of
   memory. */
void *amddwarf__object_memo_block(const amddwarf_object *object, size_t size);
void amddwarf__object_memo_block_free(const amddwarf_object *object, void *block, size_t size);

/* At most AMDDWARF_OBJECT_MEMOS_MAX memos of each of at most
   AMDDWARF_OBJECT_MEMO_KINDS kinds, in AMDDWARF_OBJECT_MEMO_LISTS lists by
   the hash of their key: a look-up reads one list. */
enum {
  AMDDWARF_OBJECT_MEMOS_MAX = 1024,
  AMDDWARF_OBJECT_MEMO_KINDS = 8,
  AMDDWARF_OBJECT_MEMO_LISTS = 64,
};

#endif
