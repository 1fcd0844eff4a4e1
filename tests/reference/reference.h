/* The reference evaluator: the general machine of libamddwarf as it stood
 * before its evaluation paths were merged (tests/reference/expr/, copied
 * unchanged), built alone with its symbols prefixed reference_ (rename.h)
 * and the fast path taken out (general_only.c). Tests compare the library's
 * evaluator, with every path it has, against it: an oracle that does not
 * move with the code under test. A context made here must be used only
 * with these functions. */
#ifndef AMDDWARF_TESTS_REFERENCE_H
#define AMDDWARF_TESTS_REFERENCE_H

#include <amddwarf/eval.h>

#include <stdbool.h>

/* A context of the reference evaluator, general machine only. */
amddwarf_status reference_eval_new(amddwarf_eval **out);

/* Whether two results (of the library and of the reference) are the same:
   the same kind, storage, offsets, bits, composite parts one by one,
   implicit bytes, value type and bytes. */
bool reference_same_location(const amddwarf_location *a, const amddwarf_location *b);
bool reference_same_entry(const amddwarf_entry *a, const amddwarf_entry *b);

#ifndef AMDDWARF_REFERENCE_RENAME_H
/* Their meaning is that of the library functions of the same name without
   the prefix. */
void reference_amddwarf_eval_free(amddwarf_eval *ev);
amddwarf_status reference_amddwarf_eval_expr(amddwarf_eval *ev,
                                             const amddwarf_eval_request *request,
                                             const uint8_t *bytes, size_t size,
                                             amddwarf_entry *result, amddwarf_error *err);
amddwarf_status reference_amddwarf_eval_read(amddwarf_eval *ev,
                                             const amddwarf_eval_request *request,
                                             const uint8_t *bytes, size_t size,
                                             uint64_t bit_offset, uint64_t bit_size, void *buf,
                                             amddwarf_error *err);
amddwarf_status reference_amddwarf_location_read(amddwarf_eval *ev,
                                                 const amddwarf_eval_request *request,
                                                 const amddwarf_location *loc,
                                                 uint64_t bit_offset, uint64_t bit_size,
                                                 void *buf, amddwarf_error *err);
#endif

#endif
