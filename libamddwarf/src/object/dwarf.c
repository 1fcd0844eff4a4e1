/* Code objects: libdwarf. With AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES the
 * (relocated) sections are handed to libdwarf through its object-access
 * interface (Debian's libdwarf cannot relocate AMDGPU objects itself),
 * opened on first use, and amddwarf_object_die_attributes lists what libdwarf
 * decodes: an independent decoder to check die_reader.c against. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "object/internal.h"

/* ---- libdwarf object access ---- */

static int access_section_info(void *obj, Dwarf_Half index, Dwarf_Obj_Access_Section *out,
                               int *error)
{
  const amddwarf_object *object = obj;
  (void)error;
  if (index >= object->section_count)
    return DW_DLV_NO_ENTRY;
  const amddwarf_section *s = &object->sections[index];
  memset(out, 0, sizeof *out);
  out->addr = s->address;
  out->type = s->type;
  out->size = s->size;
  out->name = s->name ? s->name : "";
  /* Relocations are already applied: hide the links so libdwarf does not
     look for them. */
  out->link = s->type == SHT_RELA ? 0 : s->link;
  out->info = s->type == SHT_RELA ? 0 : s->info;
  out->entrysize = s->entsize;
  return DW_DLV_OK;
}

static Dwarf_Endianness access_byte_order(void *obj)
{
  (void)obj;
  return DW_OBJECT_LSB;
}

static Dwarf_Small access_length_size(void *obj)
{
  (void)obj;
  return 4;
}

static Dwarf_Small access_pointer_size(void *obj)
{
  (void)obj;
  return 8;
}

static Dwarf_Unsigned access_section_count(void *obj)
{
  const amddwarf_object *object = obj;
  return object->section_count;
}

static int access_load_section(void *obj, Dwarf_Half index, Dwarf_Small **data, int *error)
{
  const amddwarf_object *object = obj;
  (void)error;
  if (index >= object->section_count)
    return DW_DLV_NO_ENTRY;
  const amddwarf_section *s = &object->sections[index];
  if (s->data == NULL)
    return DW_DLV_NO_ENTRY;
  /* libdwarf only reads section data. */
  *data = (Dwarf_Small *)(uintptr_t)s->data;
  return DW_DLV_OK;
}

amddwarf_status amddwarf__object_dwarf_fail(amddwarf_object *object, Dwarf_Error derr,
                                           amddwarf_error *err, uint64_t offset,
                                           const char *what)
{
  const char *msg = derr ? dwarf_errmsg(derr) : "no entry";
  amddwarf_status st = amddwarf__fail(err, AMDDWARF_E_OBJECT_DWARF, offset, "%s: libdwarf: %s",
                                     what, msg ? msg : "unknown error");
  /* An error of a failed dwarf_object_init_b has no Dwarf_Debug: libdwarf
     frees those with a NULL one. */
  if (derr)
    dwarf_dealloc(object->dbg, derr, DW_DLA_ERROR);
  return st;
}

/* ---- attributes ---- */

/* Reads one attribute into OUT. Lists and ranges are left as their raw
   offsets (kind LIST with offset/u and count 0; the caller resolves them). */
static amddwarf_status read_attribute(amddwarf_object *object, const amddwarf_cu *cu,
                                      Dwarf_Attribute attr, amddwarf_attribute *out,
                                      uint64_t die_offset, amddwarf_error *err)
{
  Dwarf_Error derr = NULL;
  Dwarf_Half at = 0, form = 0;
  memset(out, 0, sizeof *out);
  if (dwarf_whatattr(attr, &at, &derr) != DW_DLV_OK ||
      dwarf_whatform(attr, &form, &derr) != DW_DLV_OK)
    return amddwarf__object_dwarf_fail(object, derr, err, die_offset, "attribute of a DIE");
  out->attribute = at;
  out->form = form;
  out->value.attribute = at;
  out->value.form = form;
  enum Dwarf_Form_Class cls = dwarf_get_form_class(cu->version, at, cu->offset_size, form);
  bool loc = amddwarf__object_is_location_attribute(at);
  int rc = DW_DLV_OK;
  switch (cls) {
  case DW_FORM_CLASS_ADDRESS: {
    Dwarf_Addr a = 0;
    rc = dwarf_formaddr(attr, &a, &derr);
    out->value.kind = AMDDWARF_ATTR_UNSIGNED;
    out->value.u = a;
    break;
  }
  case DW_FORM_CLASS_EXPRLOC: {
    Dwarf_Unsigned len = 0;
    Dwarf_Ptr ptr = NULL;
    rc = dwarf_formexprloc(attr, &len, &ptr, &derr);
    out->value.kind = AMDDWARF_ATTR_EXPR;
    out->value.bytes = ptr;
    out->value.size = (size_t)len;
    break;
  }
  case DW_FORM_CLASS_BLOCK: {
    Dwarf_Block *block = NULL;
    rc = dwarf_formblock(attr, &block, &derr);
    if (rc == DW_DLV_OK) {
      out->value.kind = loc ? AMDDWARF_ATTR_EXPR : AMDDWARF_ATTR_BLOCK;
      out->value.bytes = block->bl_data;
      out->value.size = (size_t)block->bl_len;
      dwarf_dealloc(object->dbg, block, DW_DLA_BLOCK);
    }
    break;
  }
  case DW_FORM_CLASS_FLAG: {
    Dwarf_Bool flag = 0;
    rc = dwarf_formflag(attr, &flag, &derr);
    out->value.kind = AMDDWARF_ATTR_UNSIGNED;
    out->value.u = flag ? 1 : 0;
    break;
  }
  case DW_FORM_CLASS_STRING: {
    char *s = NULL;
    rc = dwarf_formstring(attr, &s, &derr);
    out->value.kind = AMDDWARF_ATTR_STRING;
    out->value.string = s;
    break;
  }
  case DW_FORM_CLASS_REFERENCE: {
    Dwarf_Off off = 0;
    if (form == DW_FORM_ref_sig8) {
      Dwarf_Sig8 sig;
      rc = dwarf_formsig8(attr, &sig, &derr);
      uint64_t v = 0;
      memcpy(&v, sig.signature, 8);
      out->value.kind = AMDDWARF_ATTR_UNSIGNED;
      out->value.u = v;
      break;
    }
    rc = dwarf_global_formref(attr, &off, &derr);
    out->value.kind = AMDDWARF_ATTR_REF;
    out->value.offset = off;
    break;
  }
  case DW_FORM_CLASS_LOCLISTPTR:
  case DW_FORM_CLASS_LOCLIST:
  case DW_FORM_CLASS_LOCLISTSPTR:
  case DW_FORM_CLASS_RANGELISTPTR:
  case DW_FORM_CLASS_RNGLIST:
  case DW_FORM_CLASS_RNGLISTSPTR:
  case DW_FORM_CLASS_LINEPTR:
  case DW_FORM_CLASS_MACPTR:
  case DW_FORM_CLASS_MACROPTR:
  case DW_FORM_CLASS_ADDRPTR:
  case DW_FORM_CLASS_STROFFSETSPTR:
  case DW_FORM_CLASS_FRAMEPTR: {
    Dwarf_Unsigned u = 0;
    if (form == DW_FORM_sec_offset) {
      Dwarf_Off off = 0;
      rc = dwarf_global_formref(attr, &off, &derr);
      u = off;
    } else {
      rc = dwarf_formudata(attr, &u, &derr);
    }
    bool list = cls == DW_FORM_CLASS_LOCLISTPTR || cls == DW_FORM_CLASS_LOCLIST ||
                cls == DW_FORM_CLASS_LOCLISTSPTR;
    out->value.kind = list && loc ? AMDDWARF_ATTR_LIST : AMDDWARF_ATTR_UNSIGNED;
    out->value.u = u;
    out->value.offset = u;
    /* A location list's offset through the unit's offsets table, as the
       library's reader gives it (forms.c). */
    if (list && loc && form == DW_FORM_loclistx)
      (void)amddwarf__object_loclist_offset(object, cu, (uint16_t)form, u, &out->value.offset,
                                           NULL);
    break;
  }
  case DW_FORM_CLASS_CONSTANT:
  default: {
    if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
      Dwarf_Signed s = 0;
      rc = dwarf_formsdata(attr, &s, &derr);
      out->value.kind = AMDDWARF_ATTR_SIGNED;
      out->value.s = s;
      out->value.u = (uint64_t)s;
    } else if (form == DW_FORM_data16) {
      Dwarf_Form_Data16 d16;
      rc = dwarf_formdata16(attr, &d16, &derr);
      out->value.kind = AMDDWARF_ATTR_BLOCK;
      out->value.size = 16;
      out->value.bytes = NULL; /* not kept */
    } else {
      Dwarf_Unsigned u = 0;
      rc = dwarf_formudata(attr, &u, &derr);
      out->value.kind = AMDDWARF_ATTR_UNSIGNED;
      out->value.u = u;
      out->value.s = (int64_t)u;
    }
    break;
  }
  }
  if (rc == DW_DLV_ERROR) {
    char what[96];
    snprintf(what, sizeof what, "DIE 0x%llx attribute 0x%x form 0x%x",
             (unsigned long long)die_offset, at, form);
    return amddwarf__object_dwarf_fail(object, derr, err, die_offset, what);
  }
  if (rc == DW_DLV_NO_ENTRY)
    out->value.kind = AMDDWARF_ATTR_NONE;
  return AMDDWARF_OK;
}

void amddwarf__object_finish_dwarf(amddwarf_object *object)
{
  if (object->dbg != NULL) {
    dwarf_object_finish(object->dbg, NULL);
    object->dbg = NULL;
  }
  amddwarf__object_free_units(object);
  amddwarf__mem_free(&object->allocator, object->cus, object->cu_capacity * sizeof(amddwarf_cu));
  object->cus = NULL;
}

/* Opens libdwarf on the object's (relocated) sections, once. */
static amddwarf_status dwarf_init_lazily(amddwarf_object *object, amddwarf_error *err)
{
  Dwarf_Error derr = NULL;
  if (object->dbg != NULL)
    return AMDDWARF_OK;
  object->dw_methods.get_section_info = access_section_info;
  object->dw_methods.get_byte_order = access_byte_order;
  object->dw_methods.get_length_size = access_length_size;
  object->dw_methods.get_pointer_size = access_pointer_size;
  object->dw_methods.get_section_count = access_section_count;
  object->dw_methods.load_section = access_load_section;
  object->dw_methods.relocate_a_section = NULL;
  object->dw_interface.object = object;
  object->dw_interface.methods = &object->dw_methods;
  int rc = dwarf_object_init_b(&object->dw_interface, NULL, NULL, DW_GROUPNUMBER_ANY,
                               &object->dbg, &derr);
  if (rc != DW_DLV_OK) {
    object->dbg = NULL;
    return amddwarf__object_dwarf_fail(object, rc == DW_DLV_ERROR ? derr : NULL, err, 0,
                                      "opening the DWARF sections with libdwarf");
  }
  return AMDDWARF_OK;
}

/* ---- raw attribute walk ---- */

amddwarf_status amddwarf__object_libdwarf_attributes(
    const amddwarf_object *cobject, size_t cu_index, uint64_t offset,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err)
{
  amddwarf_object *object = (amddwarf_object *)(uintptr_t)cobject;
  Dwarf_Error derr = NULL;
  Dwarf_Die ddie = NULL;
  Dwarf_Attribute *attrs = NULL;
  Dwarf_Signed n = 0;
  amddwarf_status st = dwarf_init_lazily(object, err);
  if (st != AMDDWARF_OK)
    return st;
  const amddwarf_cu *cu = &object->cus[cu_index];
  if (dwarf_offdie_b(object->dbg, offset, 1, &ddie, &derr) != DW_DLV_OK)
    return amddwarf__object_dwarf_fail(object, derr, err, offset, "DIE by offset");
  int rc = dwarf_attrlist(ddie, &attrs, &n, &derr);
  if (rc == DW_DLV_ERROR) {
    st = amddwarf__object_dwarf_fail(object, derr, err, offset, "DIE attribute list");
    goto cleanup;
  }
  for (Dwarf_Signed i = 0; i < n; ++i) {
    amddwarf_attribute a;
    if (st == AMDDWARF_OK)
      st = read_attribute(object, cu, attrs[i], &a, offset, err);
    dwarf_dealloc_attribute(attrs[i]);
    if (st != AMDDWARF_OK)
      continue;
    if (visit(user, &a) != 0) {
      st = AMDDWARF_END;
      for (Dwarf_Signed j = i + 1; j < n; ++j)
        dwarf_dealloc_attribute(attrs[j]);
      break;
    }
  }
  if (attrs)
    dwarf_dealloc(object->dbg, attrs, DW_DLA_LIST);
cleanup:
  dwarf_dealloc_die(ddie);
  return st;
}

amddwarf_status amddwarf__object_listed_attributes(
    const amddwarf_object *object, size_t cu_index, uint64_t offset,
    int (*visit)(void *user, const amddwarf_attribute *attribute), void *user,
    amddwarf_error *err)
{
  if (object->options.flags & AMDDWARF_OBJECT_LIBDWARF_ATTRIBUTES)
    return amddwarf__object_libdwarf_attributes(object, cu_index, offset, visit, user, err);
  return amddwarf__object_read_die(object, cu_index, offset, visit, user, err);
}

