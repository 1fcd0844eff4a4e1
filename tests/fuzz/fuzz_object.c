/* Fuzz target: opening a code object from memory (ELF, relocations, notes,
 * the open-time pass over every DIE) and loading and walking what it holds:
 * each unit's DIE summaries, lists and line table, attributes of every DIE,
 * variables in scope at every line-table address, and the static checker. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
  size_t sink = 0;
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
    amddwarf_type_name(object, d->type, name, sizeof name, NULL);
    uint64_t bytes = 0;
    if (amddwarf_type_byte_size(object, d->type, &bytes) == AMDDWARF_OK)
      sink += (size_t)bytes;
  }
  amddwarf_var vars[64];
  for (size_t c = 0; c < amddwarf_object_cu_count(object); ++c) {
    const amddwarf_line_table *t = amddwarf_object_line_table(object, c);
    for (size_t r = 0; t != NULL && r < t->row_count && r < 256; ++r) {
      size_t count = 0;
      const amddwarf_line_table *lt = NULL;
      const amddwarf_line_row *row = NULL;
      amddwarf_object_vars_at(object, t->rows[r].address, vars, 64, &count);
      amddwarf_object_line_at(object, t->rows[r].address, &lt, &row);
      sink += count;
    }
  }
  amddwarf_object_check(object, count_problem, &sink, NULL, &err);
  amddwarf_object_close(object);
  free(copy);
  return sink == 1 ? 0 : 0;
}
