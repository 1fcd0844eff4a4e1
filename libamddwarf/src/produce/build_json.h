/* The build description's reader (specs/build.md), shared by its three
 * files: build_json.c reads the document (options, .text, symbols) and owns
 * the helpers below, build_json_dwarf.c the units, build_json_cfi.c the CFI.
 * Every error names the member that is wrong by its JSON path
 * ("units[0].functions[1].variables[2].location: ..."). */
#ifndef AMDDWARF_PRODUCE_BUILD_JSON_H
#define AMDDWARF_PRODUCE_BUILD_JSON_H

#include <amddwarf/produce.h>

#include <jansson.h>

#include "produce/produce_internal.h"

typedef struct desc_ctx {
  amddwarf_dwarf_builder *b;
  amddwarf_cfi_builder *cfi;
  amddwarf_expr_format format;
  unsigned wave;
  amddwarf_die_id unit;
  json_t *types; /* the unit's "types" array: ids -> DIEs */
  amddwarf_die_id *type_dies;
  size_t type_count;
  amddwarf_error *err;
  char path[200];
} desc_ctx;

/* Fails with PRODUCE_DESCRIPTION: "PATH.MEMBER: FMT" (FMT may use DETAIL as %s). */
amddwarf_status amddwarf__desc_fail(desc_ctx *c, const char *member, const char *fmt, const char *detail);
/* Sets the path to BASE.MEMBER[INDEX]. */
void amddwarf__desc_path_index(desc_ctx *c, const char *base, const char *member, size_t index);
/* The JSON path of member KEY of the current item. */
void amddwarf__desc_member_path(const desc_ctx *c, const char *key, char path[256]);
/* An unsigned member in [0, MAX] (common/json_int.h); DEF when it is absent
   and not REQUIRED. */
amddwarf_status amddwarf__desc_u64(desc_ctx *c, json_t *obj, const char *key, int required, uint64_t def,
                         uint64_t max, uint64_t *out);
/* A signed member (required). */
amddwarf_status amddwarf__desc_i64(desc_ctx *c, json_t *obj, const char *key, int64_t *out);
/* A string member, or NULL. */
const char *amddwarf__desc_str(json_t *obj, const char *key);
/* A member that is true. */
int amddwarf__desc_bool(json_t *obj, const char *key);
/* Assembles TEXT (member MEMBER of the current item), resolving @names to
   the unit's DIEs. */
amddwarf_status amddwarf__desc_assemble(desc_ctx *c, const char *member, const char *text,
                              amddwarf_expr_builder **out);

/* Unit INDEX of "units" (build_json_dwarf.c). */
amddwarf_status amddwarf__desc_build_unit(desc_ctx *c, json_t *u, size_t index);
/* The "cfi" member (build_json_cfi.c). */
amddwarf_status amddwarf__desc_build_cfi(desc_ctx *c, json_t *cfi, const amddwarf_dwarf_options *dopts);

#endif
