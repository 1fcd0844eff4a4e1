/* Fuzz target: opening a code object from memory (ELF, relocations, notes,
 * the open-time pass over every DIE) and loading and walking what it holds:
 * each unit's DIE summaries, lists and line table, attributes of every DIE,
 * variables in scope at every line-table address, and the static checker;
 * before any of that, the same DIEs and variables through DIE references,
 * which read the section without the summaries' checks of references. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libdwarf/dwarf.h> /* DW_AT_* */

#include <amddwarf/amddwarf.h>

static int count_attribute(void *user, const amddwarf_attribute *attribute)
{
  size_t *n = user;
  *n += attribute->attribute;
  return 0;
}

static int count_problem(void *user, const amddwarf_check_problem *problem)
{
  size_t *n = user;
  *n += (size_t)problem->kind + 1;
  return 0;
}

/* The function holding an address, found first by searching .symtab in
   place (nothing read yet), then through the symbol table read whole.
   Whatever either returns must hold the address. The addresses probed are
   the first unit's line rows (an end of sequence is a function's end) and
   words from the input. */
enum { PROBES = 48 };

static size_t probe_addresses(const amddwarf_object *object, const uint8_t *data, size_t size,
                              uint64_t *addresses)
{
  size_t count = 0;
  const amddwarf_line_table *t =
      amddwarf_object_cu_count(object) > 0 ? amddwarf_object_line_table(object, 0) : NULL;
  for (size_t r = 0; t != NULL && r < t->row_count && count < PROBES / 2; ++r) {
    amddwarf_line_row row;
    if (amddwarf_object_line_row(object, t, r, &row) == AMDDWARF_OK)
      addresses[count++] = row.address;
  }
  for (size_t at = 0; at + 8 <= size && count < PROBES; at += size / 16 + 8) {
    uint64_t word;
    memcpy(&word, data + at, 8);
    addresses[count++] = word;
  }
  return count;
}

static bool holds(const amddwarf_symbol *s, uint64_t address)
{
  return address >= s->address && address - s->address < (s->size ? s->size : 1);
}

static size_t probe_function_symbols(const amddwarf_object *object, const uint8_t *data,
                                     size_t size)
{
  uint64_t addresses[PROBES];
  size_t count = probe_addresses(object, data, size, addresses), sink = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t p = 0; p < count; ++p) {
      amddwarf_symbol s;
      if (amddwarf_object_function_symbol_at(object, addresses[p], &s) != AMDDWARF_OK)
        continue;
      if (!holds(&s, addresses[p]))
        abort();
      sink += s.name != NULL;
    }
    if (amddwarf_object_symbol_count(object) == 0)
      break; /* the table could not be read, or holds nothing */
  }
  return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every DIE (the first 5000) and the variables at line-table addresses
   through references. */
static size_t walk_references(const amddwarf_object *object)
{
  size_t sink = 0;
  amddwarf_error err;
  size_t dies = amddwarf_object_die_count(object);
  for (size_t i = 0; i < dies && i < 5000; ++i) {
    amddwarf_die_ref ref, at;
    amddwarf_die_links links;
    amddwarf_attribute a;
    if (amddwarf_object_die_ref(object, i, &ref, &err) != AMDDWARF_OK)
      continue;
    sink += (size_t)amddwarf_object_die_links(object, ref, &links, &err);
    amddwarf_object_die_ref_attributes(object, ref, count_attribute, &sink, &err);
    if (amddwarf_object_die_attribute(object, ref, DW_AT_type, AMDDWARF_ATTRIBUTE_FOLLOW_ORIGIN,
                                      &a, &err) == AMDDWARF_OK &&
        a.value.kind == AMDDWARF_ATTR_REF &&
        amddwarf_object_die_ref_at(object, a.value.offset, &at, &err) == AMDDWARF_OK)
      sink += at.index;
  }
  amddwarf_var_ref vars[64];
  amddwarf_die_ref scopes[16];
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    for (size_t r = 0; t != NULL && r < t->row_count && r < 256; ++r) {
      size_t count = 0;
      amddwarf_die_links links;
      amddwarf_line_row at;
      if (amddwarf_object_line_row(object, t, r, &at) != AMDDWARF_OK)
        abort();
      if (amddwarf_object_var_refs_at(object, at.address, vars, 64, &count, &err) ==
          AMDDWARF_OK)
        for (size_t v = 0; v < count && v < 64; ++v) /* what a query hands out can be read */
          if (amddwarf_object_die_links(object, vars[v].die, &links, &err) != AMDDWARF_OK ||
              amddwarf_object_die_links(object, vars[v].scope, &links, &err) != AMDDWARF_OK)
            abort();
      if (amddwarf_object_scope_refs_at(object, at.address, scopes, 16, &count, &err) ==
          AMDDWARF_OK)
        for (size_t s = 0; s < count && s < 16; ++s)
          if (amddwarf_object_die_links(object, scopes[s], &links, &err) != AMDDWARF_OK)
            abort();
      sink += count;
    }
  }
  return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  amddwarf_object *object = NULL;
  amddwarf_object_options options;
  amddwarf_error err;
  /* The input is borrowed by the object: keep a private copy alive. */
  uint8_t *copy = malloc(size ? size : 1);
  if (copy == NULL)
    return 0;
  memcpy(copy, data, size);
  amddwarf_object_options_init(&options);
  options.max_dies = 200000;
  if (amddwarf_object_open_memory(copy, size, &options, &object, &err) != AMDDWARF_OK) {
    free(copy);
    return 0;
  }
  size_t sink = probe_function_symbols(object, data, size);
  sink += walk_references(object);
  /* Units are loaded in a data-dependent order: the last one first, so
     references between units are resolved from both sides. */
  size_t units = amddwarf_object_cu_count(object);
  if (units > 0)
    sink += (size_t)amddwarf_object_load_unit(object, units - 1, &err);
  size_t dies = amddwarf_object_die_count(object);
  for (size_t i = 0; i < dies && i < 5000; ++i) {
    const amddwarf_die_info *d = amddwarf_object_die(object, i);
    char name[128];
    if (d == NULL) /* its unit cannot be loaded */
      continue;
    amddwarf_object_die_attributes(object, d, count_attribute, &sink, &err);
    /* The type helpers read the DIE through its reference. */
    amddwarf_die_ref ref;
    amddwarf_die_fields fields;
    if (amddwarf_object_die_ref(object, i, &ref, NULL) != AMDDWARF_OK ||
        amddwarf_object_die_fields(object, ref, &fields, NULL) != AMDDWARF_OK)
      continue;
    amddwarf_type_name(object, fields.type, name, sizeof name, NULL);
    uint64_t bytes = 0;
    if (amddwarf_type_byte_size(object, fields.type, &bytes) == AMDDWARF_OK)
      sink += (size_t)bytes;
    amddwarf_array_dim dims[4];
    sink += amddwarf_type_array_dims(object, amddwarf_type_strip(object, fields.type), dims, 4);
  }
  amddwarf_var vars[64];
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    for (size_t r = 0; t != NULL && r < t->row_count && r < 256; ++r) {
      size_t count = 0;
      const amddwarf_line_table *lt = NULL;
      amddwarf_line_row row, covering;
      if (amddwarf_object_line_row(object, t, r, &row) != AMDDWARF_OK)
        abort();
      amddwarf_object_vars_at(object, row.address, vars, 64, &count);
      amddwarf_object_line_at(object, row.address, &lt, &covering);
      sink += count;
    }
  }
  amddwarf_object_check(object, count_problem, &sink, NULL, &err);
  amddwarf_object_close(object);
  free(copy);
  return sink == 1 ? 0 : 0;
}
