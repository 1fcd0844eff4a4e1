/* Values of paths (debug.h): making one (parse, find the variable, plan),
 * what it is (type, kind, sizes, location, children), reading it for one
 * lane or a set of lanes grouped by result, and its children. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/mem.h"
#include "debug/value.h"
#include "expr/spell.h"

/* ---- making a value ---- */

static amddwarf_value_kind kind_of(const amddwarf_object *object, const amddwarf_debug_plan *plan)
{
  static const struct {
    amddwarf_dw_tag tag;
    amddwarf_value_kind kind;
  } kinds[] = {
      {AMDDWARF_DW_TAG_base_type, AMDDWARF_VALUE_KIND_SCALAR},
      {AMDDWARF_DW_TAG_enumeration_type, AMDDWARF_VALUE_KIND_ENUM},
      {AMDDWARF_DW_TAG_pointer_type, AMDDWARF_VALUE_KIND_POINTER},
      {AMDDWARF_DW_TAG_reference_type, AMDDWARF_VALUE_KIND_POINTER},
      {AMDDWARF_DW_TAG_rvalue_reference_type, AMDDWARF_VALUE_KIND_POINTER},
      {AMDDWARF_DW_TAG_structure_type, AMDDWARF_VALUE_KIND_STRUCT},
      {AMDDWARF_DW_TAG_class_type, AMDDWARF_VALUE_KIND_STRUCT},
      {AMDDWARF_DW_TAG_union_type, AMDDWARF_VALUE_KIND_UNION},
  };
  amddwarf_die_fields t, array;
  if (plan->is_address)
    return AMDDWARF_VALUE_KIND_POINTER;
  if (amddwarf__debug_fields(object, amddwarf__debug_type_array(object, plan->result), &array))
    return array.flags & AMDDWARF_DIE_GNU_VECTOR ? AMDDWARF_VALUE_KIND_VECTOR
                                                 : AMDDWARF_VALUE_KIND_ARRAY;
  amddwarf__debug_strip_fields(object, plan->result.die, &t);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
    if ((uint32_t)kinds[i].tag == t.tag)
      return kinds[i].kind;
  return AMDDWARF_VALUE_KIND_OTHER;
}

/* Base types the assignment parser knows: integers, chars, bools and
   floats of 1, 2, 4 or 8 bytes, one element. */
static int scalar_assignable(const amddwarf_die_fields *t, uint64_t size)
{
  return t->vector_size <= 1 && (size == 1 || size == 2 || size == 4 || size == 8) &&
         t->encoding != AMDDWARF_ATE_ADDRESS && t->encoding < AMDDWARF_ATE_LO_USER;
}

/* Children, and whether the value can be assigned. */
static amddwarf_status describe_children(amddwarf_valobj *v)
{
  amddwarf_valobj_info *info = &v->info;
  const amddwarf_debug_plan *plan = &v->plan;
  amddwarf_die_fields t;
  amddwarf_die_ref array = amddwarf__debug_type_array(v->object, plan->result);
  uint64_t size = 0;
  amddwarf__debug_strip_fields(v->object, plan->result.die, &t);
  if (info->kind == AMDDWARF_VALUE_KIND_STRUCT || info->kind == AMDDWARF_VALUE_KIND_UNION) {
    size_t count = amddwarf__debug_named_members(v->object, t.die, NULL, 0);
    v->members = amddwarf__mem_calloc(&v->wave->allocator, count ? count : 1, sizeof *v->members);
    if (v->members == NULL)
      return AMDDWARF_E_NO_MEMORY;
    v->member_capacity = count;
    v->member_count = amddwarf__debug_named_members(v->object, t.die, v->members, count);
    info->named_children = v->member_count;
  } else if (plan->is_address) {
    info->named_children = 1; /* *&x */
  } else if (info->kind == AMDDWARF_VALUE_KIND_POINTER) {
    amddwarf_debug_type pointee = {t.type, 0};
    info->named_children = amddwarf_die_ref_valid(t.type) &&
                           amddwarf__debug_type_size(v->object, pointee, &size) == AMDDWARF_OK;
  } else if (amddwarf_die_ref_valid(array)) {
    amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
    amddwarf__debug_array_dims(v->object, array, dims);
    info->indexed_children = dims[plan->result.dims_used].known
                                 ? (size_t)dims[plan->result.dims_used].count
                                 : 0;
  }
  info->assignable =
      !plan->is_address &&
      (plan->bit_size < plan->byte_size * 8 || info->kind == AMDDWARF_VALUE_KIND_ENUM ||
       (info->kind == AMDDWARF_VALUE_KIND_POINTER && t.tag == AMDDWARF_DW_TAG_pointer_type) ||
       (info->kind == AMDDWARF_VALUE_KIND_SCALAR && scalar_assignable(&t, plan->byte_size)));
  return AMDDWARF_OK;
}

/* The producer quirk the variable's location is read through. */
static amddwarf_quirk variable_quirk(const amddwarf_valobj *v)
{
  const amddwarf_var_ref *var = &v->var->ref;
  if (v->var->has_const_value || !var->available || var->size == 0)
    return AMDDWARF_QUIRK_NONE;
  return amddwarf_object_expr_quirk(v->object, v->cu, AMDDWARF_ROLE_LOCATION, var->expr,
                                    var->size);
}

/* What V says of itself. A value of a variable's name alone that is not an
   aggregate (whose members it lists) takes it from the answer KEPT for
   every wave at the variable's scope when there is one, and keeps it when
   it is the first. */
static amddwarf_status describe(amddwarf_valobj *v, const struct amddwarf_debug_var_answer *kept)
{
  amddwarf_valobj_info *info = &v->info;
  amddwarf_status st = AMDDWARF_OK;
  amddwarf__debug_path_spell(&v->path, v->path.count, v->path_text, sizeof v->path_text);
  info->path = v->path_text;
  info->type_name = v->plan.type_name;
  info->byte_size = v->plan.is_address ? 8 : v->plan.byte_size;
  info->bit_size = v->plan.is_address ? 64 : v->plan.bit_size;
  info->variable = v->var;
  if (kept != NULL) {
    info->kind = kept->kind;
    info->named_children = kept->named_children;
    info->indexed_children = kept->indexed_children;
    info->assignable = kept->assignable;
    info->quirk = kept->quirk;
  } else {
    info->kind = kind_of(v->object, &v->plan);
    info->quirk = variable_quirk(v);
    st = describe_children(v);
    if (st == AMDDWARF_OK && v->path.count == 0 && v->members == NULL) {
      struct amddwarf_debug_var_answer answer = {
          .fields = v->die, .plan = v->plan, .kind = info->kind,
          .named_children = info->named_children, .indexed_children = info->indexed_children,
          .assignable = info->assignable, .quirk = info->quirk};
      amddwarf__debug_var_answer_keep(v->frame, v->var, &answer);
    }
  }
  info->quirk_name =
      info->quirk != AMDDWARF_QUIRK_NONE ? amddwarf_quirk_get(info->quirk)->name : NULL;
  return st;
}

/* A value of PATH (parsed) in frame FRAME: of the variable VAR when given
   (one of the frame's, PATH's name being its own), else of the innermost
   variable PATH names. */
static amddwarf_status make_value(amddwarf_wave *wave, size_t frame,
                                  const amddwarf_frame_var *var,
                                  const amddwarf_debug_path *path, amddwarf_valobj **out,
                                  amddwarf_error *err)
{
  amddwarf_debug_frame *f = NULL;
  const amddwarf_frame_var *innermost = NULL;
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
  amddwarf_valobj *v = NULL;
  amddwarf_status st = amddwarf__debug_frame_get(wave, frame, &f, err);
  if (st == AMDDWARF_END)
    st = amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET, "the wave has no frame %zu",
                       frame);
  if (st != AMDDWARF_OK)
    goto done;
  if ((st = amddwarf_wave_find_variable(wave, frame, path->name, &innermost, err)) !=
      AMDDWARF_OK)
    goto done;
  if (var == NULL)
    var = innermost;
  v = wave->spare_value;
  wave->spare_value = NULL;
  if (v == NULL)
    v = amddwarf__mem_alloc(&wave->allocator, sizeof *v);
  if (v == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "value of '%s'",
                       path->name);
    goto done;
  }
  /* Values are made by the thousand: only the small fields are zeroed, and
     only the operators the path has are copied. */
  memset(v, 0, offsetof(amddwarf_valobj, path));
  v->path_text[0] = '\0';
  v->wave = wave;
  v->frame = f;
  v->frame_index = frame;
  v->object = f->pub.object;
  v->cu = amddwarf_object_cu(v->object, var->ref.die.cu_index);
  v->var = var;
  /* The type layer reads the variable's DIE through its reference, unless
     a value of the variable's name alone was made at this scope before. */
  const struct amddwarf_debug_var_answer *kept =
      path->count == 0 ? amddwarf__debug_var_answer(f, var) : NULL;
  amddwarf_status die_status = AMDDWARF_OK;
  if (kept != NULL)
    v->die = kept->fields;
  else
    die_status = amddwarf_object_die_fields(v->object, var->ref.die, &v->die, err);
  v->info.shadowed = var != innermost;
  v->active_mask = wave->info.exec;
  if (amddwarf_wave_lanes(wave, &v->lanes, NULL) == AMDDWARF_OK)
    v->active_mask = v->lanes->active_mask;
  else
    v->lanes = NULL;
  /* An inactive lane whose lane PC is the wave's stands here: it is read
     (and marked). */
  v->readable_mask = v->active_mask | wave->lanes_at_pc;
  for (uint32_t l = 0; v->lanes != NULL && l < v->lanes->wave_size; ++l)
    if (v->lanes->lanes[l].pc_known && v->lanes->lanes[l].pc == wave->info.pc)
      v->readable_mask |= 1ull << l;
  memcpy(v->path.name, path->name, sizeof path->name);
  memcpy(v->path.ops, path->ops, path->count * sizeof *path->ops);
  v->path.count = path->count;
  amddwarf__text_init(&v->location_text, &wave->allocator);
  if ((st = die_status) != AMDDWARF_OK)
    goto done;
  if (v->cu == NULL) {
    st = amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                       "the unit of '%s' cannot be read", path->name);
    goto done;
  }
  message[0] = '\0';
  if (kept != NULL)
    v->plan = kept->plan;
  else
    st = amddwarf__debug_plan_build(v->object, v->die.type, path, &v->plan, message,
                                    sizeof message);
  if (st != AMDDWARF_OK) {
    st = amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "%s", message);
    goto done;
  }
  if ((st = describe(v, kept)) != AMDDWARF_OK)
    st = amddwarf__fail(err, st, AMDDWARF_NO_OFFSET, "value of '%s'", v->path_text);
done:
  if (st != AMDDWARF_OK) {
    amddwarf_valobj_free(v);
    v = NULL;
  }
  *out = v;
  return st;
}

amddwarf_status amddwarf_valobj_new(amddwarf_wave *wave, size_t frame, const char *path,
                                    amddwarf_valobj **out, amddwarf_error *err)
{
  amddwarf_debug_path parsed;
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
  size_t offset = 0;
  if (out != NULL)
    *out = NULL;
  if (wave == NULL || path == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_new: NULL argument");
  if (amddwarf__debug_path_parse(path, &parsed, message, sizeof message, &offset) != 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset, "%s", message);
  return make_value(wave, frame, NULL, &parsed, out, err);
}

/* Whether VAR is one of the variables of frame FRAME (amddwarf_wave_variables). */
static amddwarf_status check_frame_variable(amddwarf_wave *wave, size_t frame,
                                            const amddwarf_frame_var *var, amddwarf_error *err)
{
  const amddwarf_frame_var *vars = NULL;
  size_t count = 0;
  amddwarf_status st = amddwarf_wave_variables(wave, frame, &vars, &count, err);
  if (st != AMDDWARF_OK)
    return st;
  for (size_t i = 0; i < count; ++i)
    if (&vars[i] == var)
      return var->name != NULL
                 ? AMDDWARF_OK
                 : amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                                  "the variable at DIE 0x%llx has no name",
                                  (unsigned long long)var->ref.die.offset);
  return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                       "amddwarf_valobj_new_var: the variable is not one that "
                       "amddwarf_wave_variables gave for frame %zu",
                       frame);
}

amddwarf_status amddwarf_valobj_new_var(amddwarf_wave *wave, size_t frame,
                                        const amddwarf_frame_var *var, const char *path,
                                        amddwarf_valobj **out, amddwarf_error *err)
{
  amddwarf_debug_path parsed;
  char message[AMDDWARF_ERROR_MESSAGE_SIZE];
  size_t offset = 0;
  if (out != NULL)
    *out = NULL;
  if (wave == NULL || var == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_new_var: NULL argument");
  amddwarf_status st = check_frame_variable(wave, frame, var, err);
  if (st != AMDDWARF_OK)
    return st;
  if (path == NULL)
    path = var->name;
  if (amddwarf__debug_path_parse(path, &parsed, message, sizeof message, &offset) != 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, offset, "%s", message);
  if (strcmp(parsed.name, var->name) != 0)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, 0,
                         "path '%s' starts at '%s', not at the variable '%s'", path,
                         parsed.name, var->name);
  return make_value(wave, frame, var, &parsed, out, err);
}

void amddwarf_valobj_free(amddwarf_valobj *value)
{
  if (value == NULL)
    return;
  amddwarf_allocator *a = &value->wave->allocator;
  for (size_t i = 0; i < value->read_count; ++i) {
    amddwarf_debug_lane_read *r = &value->reads[i];
    amddwarf__text_free(&r->text);
    amddwarf__text_free(&r->message);
    amddwarf__text_free(&r->explain);
    amddwarf__mem_free(a, r->bytes, r->capacity);
    amddwarf__mem_free(a, r->valid, r->capacity);
  }
  amddwarf__mem_free(a, value->reads, value->read_count * sizeof *value->reads);
  amddwarf__mem_free(a, value->members, (value->member_capacity ? value->member_capacity : 1) *
                                           sizeof *value->members);
  amddwarf__mem_free(a, value->scratch, value->scratch_size);
  amddwarf__text_free(&value->location_text);
  /* The wave keeps one value's memory for the next value. */
  if (value->wave->spare_value == NULL) {
    value->wave->spare_value = value;
    value->wave->spare_value_size = sizeof *value;
  } else {
    amddwarf__mem_free(a, value, sizeof *value);
  }
}

const amddwarf_valobj_info *amddwarf_valobj_get_info(const amddwarf_valobj *value)
{
  return value != NULL ? &value->info : NULL;
}

const char *amddwarf_valobj_location(const amddwarf_valobj *value)
{
  if (value == NULL)
    return "";
  /* A value belongs to one thread: spelling its location here is safe. */
  amddwarf_valobj *v = (amddwarf_valobj *)value;
  const amddwarf_var_ref *var = &v->var->ref;
  if (v->location_text.len == 0 && amddwarf__text_status(&v->location_text) == AMDDWARF_OK) {
    if (v->var->has_const_value)
      amddwarf__text_puts(&v->location_text, "DW_AT_const_value");
    else if (!var->available || var->size == 0)
      amddwarf__text_printf(&v->location_text, "no location at pc 0x%llx",
                           (unsigned long long)v->frame->pub.lookup_pc);
    else
      amddwarf__expr_spell_append(&v->location_text, &v->cu->format, var->expr, var->size);
  }
  return amddwarf__text_status(&v->location_text) == AMDDWARF_OK
             ? amddwarf__text_str(&v->location_text)
             : "";
}

/* ---- reading ---- */

amddwarf_status amddwarf__debug_value_reads(amddwarf_valobj *v, size_t count,
                                           amddwarf_error *err)
{
  if (count <= v->read_count)
    return AMDDWARF_OK;
  amddwarf_debug_lane_read *reads =
      amddwarf__mem_calloc(&v->wave->allocator, count, sizeof *reads);
  if (reads == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "reading '%s'",
                         v->path_text);
  if (v->read_count > 0)
    memcpy(reads, v->reads, v->read_count * sizeof *reads);
  for (size_t i = v->read_count; i < count; ++i) {
    amddwarf__text_init(&reads[i].text, &v->wave->allocator);
    amddwarf__text_init(&reads[i].message, &v->wave->allocator);
    amddwarf__text_init(&reads[i].explain, &v->wave->allocator);
  }
  amddwarf__mem_free(&v->wave->allocator, v->reads, v->read_count * sizeof *v->reads);
  v->reads = reads;
  v->read_count = count;
  return AMDDWARF_OK;
}

/* A read whose text could not be held is a failure of the call. */
static amddwarf_status read_status(const amddwarf_valobj *v, const amddwarf_debug_lane_read *r,
                                   amddwarf_error *err)
{
  if (amddwarf__text_status(&r->text) != AMDDWARF_OK ||
      amddwarf__text_status(&r->message) != AMDDWARF_OK ||
      amddwarf__text_status(&r->explain) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "the text of '%s' for lane %u", v->path_text, r->lane);
  return AMDDWARF_OK;
}

static void lane_value(const amddwarf_debug_lane_read *r, amddwarf_lane_value *out)
{
  memset(out, 0, sizeof *out);
  out->lane = r->lane;
  out->state = r->state;
  out->status = r->status;
  out->text = amddwarf__text_str(&r->text);
  out->message = amddwarf__text_str(&r->message);
  out->detailed = r->detailed;
  out->inactive = r->state == AMDDWARF_LANE_INACTIVE || r->inactive;
  out->reason = r->state == AMDDWARF_LANE_VALUE ? AMDDWARF_UNAVAILABLE_NONE : r->reason;
  out->explain = amddwarf__text_str(&r->explain);
  out->bytes = r->state == AMDDWARF_LANE_VALUE ? r->bytes : NULL;
  out->size = r->state == AMDDWARF_LANE_VALUE ? r->size : 0;
}

const char *amddwarf_lane_state_text(amddwarf_lane_state state)
{
  static const char *const texts[] = {
      [AMDDWARF_LANE_VALUE] = "",
      [AMDDWARF_LANE_OPTIMIZED_OUT] = "<optimized out>",
      [AMDDWARF_LANE_UNAVAILABLE] = "<unavailable>",
      [AMDDWARF_LANE_ERROR] = "<error>",
      [AMDDWARF_LANE_INACTIVE] = "<inactive>",
  };
  return (unsigned)state < sizeof texts / sizeof texts[0] ? texts[state] : "?";
}

size_t amddwarf_lane_value_text(const amddwarf_lane_value *value, char *buf, size_t buf_size)
{
  amddwarf_text t;
  amddwarf__text_init_fixed(&t, buf, buf_size);
  if (value->state == AMDDWARF_LANE_VALUE)
    amddwarf__text_puts(&t, value->text ? value->text : "");
  else if (value->state == AMDDWARF_LANE_ERROR)
    amddwarf__text_printf(&t, "<error: %s (%s)>", value->message ? value->message : "",
                         amddwarf_status_name(value->status));
  else if (value->detailed && value->message != NULL && value->message[0] != '\0')
    amddwarf__text_printf(&t, "%s (%s)", amddwarf_lane_state_text(value->state),
                         value->message);
  else
    amddwarf__text_puts(&t, amddwarf_lane_state_text(value->state));
  /* A lane read where it stands although inactive is marked. */
  if (value->inactive && value->state != AMDDWARF_LANE_INACTIVE)
    amddwarf__text_puts(&t, " <inactive>");
  return t.len;
}

static amddwarf_status check_lanes(const amddwarf_valobj *v, uint64_t lanes, amddwarf_error *err)
{
  uint32_t size = v->wave->info.wave_size;
  uint64_t all = size >= 64 ? ~0ull : (1ull << size) - 1;
  if (lanes & ~all)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane mask 0x%llx names lanes past the wave's %u",
                         (unsigned long long)lanes, size);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_valobj_read(amddwarf_valobj *value, uint32_t lane,
                                     amddwarf_lane_value *out, amddwarf_error *err)
{
  if (value == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_read: NULL argument");
  if (lane == AMDDWARF_NO_LANE)
    lane = amddwarf_wave_focus(value->wave);
  if (lane >= value->wave->info.wave_size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "lane %u is not below the wave size %u", lane,
                         value->wave->info.wave_size);
  return amddwarf__valobj_read_lane(value, lane, NULL, out, err);
}

amddwarf_status amddwarf__valobj_read_lane(amddwarf_valobj *value, uint32_t lane,
                                          const uint8_t *whole_bytes, amddwarf_lane_value *out,
                                          amddwarf_error *err)
{
  amddwarf_status st = amddwarf__debug_value_reads(value, 1, err);
  if (st != AMDDWARF_OK)
    return st;
  if (whole_bytes != NULL)
    amddwarf__debug_value_from_bytes(value, lane, whole_bytes, &value->reads[0]);
  else
    amddwarf__debug_value_read(value, lane, &value->reads[0]);
  if ((st = read_status(value, &value->reads[0], err)) != AMDDWARF_OK)
    return st;
  lane_value(&value->reads[0], out);
  return AMDDWARF_OK;
}

amddwarf_status amddwarf_valobj_read_bytes(amddwarf_valobj *value, uint64_t lanes, void *bytes,
                                           size_t stride, amddwarf_lane_state *states,
                                           amddwarf_error *err)
{
  if (value == NULL || bytes == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_read_bytes: NULL argument");
  if (stride < value->info.byte_size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "a stride of %zu bytes holds no value of '%s' (%llu bytes)", stride,
                         value->path_text, (unsigned long long)value->info.byte_size);
  amddwarf_status st = check_lanes(value, lanes, err);
  if (st != AMDDWARF_OK)
    return st;
  /* A failed lane's message can run out of memory: it is not returned, the
     lane's state says enough. */
  return amddwarf__debug_value_read_bytes(value, lanes, bytes, stride, states, err);
}

int amddwarf_lane_values_equal(const amddwarf_lane_value *a, const amddwarf_lane_value *b)
{
  /* The message counts where it is shown (amddwarf_lane_value_text). */
  int shown = a->state == AMDDWARF_LANE_ERROR || a->detailed;
  return a->state == b->state && a->status == b->status && a->detailed == b->detailed &&
         a->inactive == b->inactive &&
         strcmp(a->text ? a->text : "", b->text ? b->text : "") == 0 &&
         (!shown || strcmp(a->message ? a->message : "", b->message ? b->message : "") == 0);
}

static int same_result(const amddwarf_debug_lane_read *a, const amddwarf_debug_lane_read *b)
{
  amddwarf_lane_value x, y;
  lane_value(a, &x);
  lane_value(b, &y);
  return amddwarf_lane_values_equal(&x, &y);
}

amddwarf_status amddwarf_valobj_read_lanes(amddwarf_valobj *value, uint64_t lanes,
                                           amddwarf_value_group *groups, size_t capacity,
                                           size_t *count, amddwarf_error *err)
{
  uint64_t masks[AMDDWARF_MAX_LANES];
  size_t n = 0;
  if (value == NULL || count == NULL || (groups == NULL && capacity > 0))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_read_lanes: NULL argument");
  amddwarf_status st = check_lanes(value, lanes, err);
  if (st == AMDDWARF_OK)
    st = amddwarf__debug_value_reads(value, AMDDWARF_MAX_LANES, err);
  if (st != AMDDWARF_OK)
    return st;
  /* The lanes a plain location gives whole are evaluated and read together
     (up to 64 bytes each: a stack buffer); their text is made from the
     bytes, and the first lane of a new group is read again whole for its
     explanation. */
  uint8_t whole_bytes[AMDDWARF_MAX_LANES * 64];
  size_t size = (size_t)value->info.byte_size;
  uint64_t whole = size > 0 && size <= 64
                       ? amddwarf__debug_value_read_whole(value, lanes, whole_bytes, size)
                       : 0;
  /* Each lane is read into the first free slot and kept there only when no
     earlier group has the same result. */
  for (uint32_t lane = 0; lane < AMDDWARF_MAX_LANES; ++lane) {
    size_t g = 0;
    if (!(lanes >> lane & 1))
      continue;
    if (whole >> lane & 1)
      amddwarf__debug_value_from_bytes(value, lane, whole_bytes + (size_t)lane * size,
                                      &value->reads[n]);
    else
      amddwarf__debug_value_read(value, lane, &value->reads[n]);
    if ((st = read_status(value, &value->reads[n], err)) != AMDDWARF_OK)
      return st;
    while (g < n && !same_result(&value->reads[g], &value->reads[n]))
      ++g;
    if (g == n) {
      if (whole >> lane & 1) {
        amddwarf__debug_value_read(value, lane, &value->reads[n]);
        if ((st = read_status(value, &value->reads[n], err)) != AMDDWARF_OK)
          return st;
      }
      masks[n++] = 0;
    }
    masks[g] |= 1ull << lane;
  }
  for (size_t g = 0; g < n && g < capacity; ++g) {
    groups[g].mask = masks[g];
    lane_value(&value->reads[g], &groups[g].value);
  }
  *count = n;
  return AMDDWARF_OK;
}

/* ---- children ---- */

amddwarf_status amddwarf_valobj_child(amddwarf_valobj *value, size_t index,
                                      amddwarf_valobj **out, amddwarf_error *err)
{
  amddwarf_debug_path path;
  const amddwarf_valobj_info *info = value ? &value->info : NULL;
  int pushed = -1;
  if (out != NULL)
    *out = NULL;
  if (value == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_valobj_child: NULL argument");
  if (index >= info->named_children + info->indexed_children)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "'%s' has no child %zu: it has %zu", value->path_text, index,
                         info->named_children + info->indexed_children);
  path = value->path;
  if (index < info->named_children && value->members != NULL) {
    pushed = amddwarf__debug_path_push(
        &path, AMDDWARF_DEBUG_PATH_MEMBER,
        amddwarf_object_die_string(value->object, value->members[index], AMDDWARF_DW_AT_name), 0);
  } else if (index < info->named_children) {
    pushed = amddwarf__debug_path_push(&path, AMDDWARF_DEBUG_PATH_DEREF, NULL, 0);
  } else {
    /* Elements are numbered from 0; their paths use the array's own bounds. */
    amddwarf_debug_dim dims[AMDDWARF_DEBUG_MAX_DIMS];
    amddwarf__debug_array_dims(value->object,
                              amddwarf__debug_type_array(value->object, value->plan.result), dims);
    int64_t lower = dims[value->plan.result.dims_used].lower;
    pushed = amddwarf__debug_path_push(&path, AMDDWARF_DEBUG_PATH_INDEX, NULL,
                                      lower + (int64_t)(index - info->named_children));
  }
  if (pushed != 0)
    return amddwarf__fail(err, AMDDWARF_E_LIMIT, AMDDWARF_NO_OFFSET,
                         "the path of a child of '%s' needs more than %d operators",
                         value->path_text, AMDDWARF_DEBUG_PATH_MAX_OPS);
  return make_value(value->wave, value->frame_index, value->var, &path, out, err);
}
