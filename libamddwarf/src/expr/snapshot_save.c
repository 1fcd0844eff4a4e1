/* Saving a snapshot (amddwarf_snapshot_save): its state, writes included,
 * as a document that amddwarf_snapshot_load reads back (specs/snapshot.md). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/eval.h>
#include <amddwarf/expr.h>

#include "common/error.h"
#include "common/text.h"
#include "expr/snapshot_internal.h"

/* ---- saving ------------------------------------------------------------------ */

/* The saved document is written into one growable text (common/text.h),
   handed over trimmed to its length. Every string it writes comes from the
   library's tables or is hex, so nothing needs escaping. */
static void w_str(amddwarf_text *w, const char *s) { amddwarf__text_append(w, s, strlen(s)); }

static void w_u64(amddwarf_text *w, uint64_t v)
{
  amddwarf__text_printf(w, "\"0x%llx\"", (unsigned long long)v);
}

static void w_hex(amddwarf_text *w, const uint8_t *bytes, uint64_t size)
{
  static const char digits[] = "0123456789abcdef";
  w_str(w, "\"");
  for (uint64_t i = 0; i < size; i++) {
    char pair[2] = {digits[bytes[i] >> 4], digits[bytes[i] & 15]};
    amddwarf__text_append(w, pair, 2);
  }
  w_str(w, "\"");
}

/* An address space as its short name when the name reads back as the same
   value, else as its DW_ASPACE_* number. */
static void w_aspace(amddwarf_text *w, uint32_t aspace)
{
  char name[64];
  uint32_t back;
  if (amddwarf_aspace_name(aspace, name, sizeof name) == AMDDWARF_OK &&
      amddwarf_aspace_lookup(name, &back) == AMDDWARF_OK && back == aspace)
    amddwarf__text_printf(w, "\"%s\"", name);
  else
    amddwarf__text_printf(w, "%u", (unsigned)aspace);
}

/* One register: the assembler name when it reads back as the same number
   under the wave size, else the DWARF number. Vector registers of 32-bit
   lanes are lane arrays (trailing zero lanes left out, they load as 0),
   other registers of at most 8 bytes integers (as are registers outside the
   map of 8 bytes, the size an integer gives them), the rest {"bytes": hex}. */
static void w_register(const amddwarf_snapshot *s, amddwarf_text *w, const snap_register *r)
{
  char name[64];
  uint32_t back;
  amddwarf_amdgpu_register info;
  int known = amddwarf_amdgpu_register_info(r->regno, &info) == AMDDWARF_OK &&
              info.bit_size / 8 == r->size;
  if (known &&
      amddwarf_amdgpu_register_name(r->regno, AMDDWARF_REGISTER_ASM_NAME, name, sizeof name) ==
          AMDDWARF_OK &&
      amddwarf_amdgpu_register_lookup(name, s->wave_size, &back) == AMDDWARF_OK &&
      back == r->regno)
    amddwarf__text_printf(w, "\"%s\": ", name);
  else
    amddwarf__text_printf(w, "\"%u\": ", (unsigned)r->regno);
  if (known && info.lanes && info.lane_bits == 32) {
    uint64_t lanes = r->size / 4;
    while (lanes > 1 && !memcmp(r->bytes + (lanes - 1) * 4, "\0\0\0\0", 4))
      lanes--;
    w_str(w, "[");
    for (uint64_t k = 0; k < lanes; k++) {
      const uint8_t *b = r->bytes + k * 4;
      amddwarf__text_printf(w, "%s%lu", k ? ", " : "",
            (unsigned long)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                            (uint32_t)b[3] << 24));
    }
    w_str(w, "]");
  } else if (r->size <= 8 && (known || r->size == 8)) {
    uint64_t v = 0;
    for (uint64_t b = 0; b < r->size; b++)
      v |= (uint64_t)r->bytes[b] << (8 * b);
    w_u64(w, v);
  } else {
    w_str(w, "{\"bytes\": ");
    w_hex(w, r->bytes, r->size);
    w_str(w, "}");
  }
}

static void w_registers(const amddwarf_snapshot *s, amddwarf_text *w, const char *member,
                        const snap_register *regs, size_t count)
{
  amddwarf__text_printf(w, ",\n  \"%s\": {", member);
  for (size_t i = 0; i < count; i++) {
    w_str(w, i ? ",\n    " : "\n    ");
    w_register(s, w, &regs[i]);
  }
  w_str(w, count ? "\n  }" : "}");
}

static void w_addr(amddwarf_text *w, const char *member, const snap_addr *a)
{
  if (!a->present)
    return;
  amddwarf__text_printf(w, ",\n  \"%s\": {\"address_space\": ", member);
  w_aspace(w, a->aspace);
  w_str(w, ", \"address\": ");
  w_u64(w, a->address);
  w_str(w, "}");
}

static void w_snapshot(const amddwarf_snapshot *s, amddwarf_text *w)
{
  w_str(w, "{\n");
  if (s->architecture[0])
    amddwarf__text_printf(w, "  \"architecture\": \"%s\",\n", s->architecture);
  amddwarf__text_printf(w, "  \"wave_size\": %u,\n  \"address_size\": %u", (unsigned)s->wave_size,
        (unsigned)s->address_size);
  if (s->format.dialect != AMDDWARF_DIALECT_AUTO)
    amddwarf__text_printf(w, ",\n  \"dialect\": \"%s\"", amddwarf_dialect_name(s->format.dialect));
  amddwarf__text_printf(w, ",\n  \"lane\": %u", (unsigned)s->lane);
  if (s->has_exec) {
    w_str(w, ",\n  \"exec\": ");
    w_u64(w, s->exec);
  }
  w_registers(s, w, "registers", s->regs, s->reg_count);
  if (s->entry_regs)
    w_registers(s, w, "entry_registers", s->entry_regs, s->entry_reg_count);
  if (s->region_count) {
    w_str(w, ",\n  \"memory\": [");
    for (size_t i = 0; i < s->region_count; i++) {
      snap_region *r = &s->regions[i];
      w_str(w, i ? ",\n    {\"address_space\": " : "\n    {\"address_space\": ");
      w_aspace(w, r->aspace);
      if (r->lane != AMDDWARF_NO_LANE)
        amddwarf__text_printf(w, ", \"lane\": %u", (unsigned)r->lane);
      w_str(w, ", \"address\": ");
      w_u64(w, r->address);
      w_str(w, ", \"bytes\": ");
      w_hex(w, amddwarf__snapshot_region_bytes(s, r), r->size);
      w_str(w, "}");
    }
    w_str(w, "\n  ]");
  }
  if (s->has_apertures) {
    w_str(w, ",\n  \"apertures\": {\"shared\": ");
    w_u64(w, s->shared_base);
    w_str(w, ", \"private\": ");
    w_u64(w, s->private_base);
    w_str(w, "}");
  }
  if (s->has_frame_base) {
    w_str(w, ",\n  \"frame_base\": {\"hex\": ");
    w_hex(w, s->frame_base, s->frame_base_size);
    w_str(w, "}");
  }
  w_addr(w, "cfa", &s->cfa);
  w_addr(w, "object_address", &s->object);
  if (s->has_tls) {
    w_str(w, ",\n  \"tls_base\": ");
    w_u64(w, s->tls_base);
  }
  if (s->debug_addr) {
    w_str(w, ",\n  \"debug_addr\": [");
    for (size_t i = 0; i < s->debug_addr_count; i++) {
      w_str(w, i ? ", " : "");
      w_u64(w, s->debug_addr[i]);
    }
    w_str(w, "]");
  }
  if (s->unit_offset) {
    w_str(w, ",\n  \"unit_offset\": ");
    w_u64(w, s->unit_offset);
  }
  if (s->type_count) {
    w_str(w, ",\n  \"base_types\": [");
    for (size_t i = 0; i < s->type_count; i++) {
      const amddwarf_base_type *t = &s->types[i];
      w_str(w, i ? ",\n    {\"die\": " : "\n    {\"die\": ");
      w_u64(w, t->die);
      amddwarf__text_printf(w, ", \"encoding\": \"%s\", \"bit_size\": %u, \"count\": %u}",
            amddwarf_encoding_name(t->encoding), (unsigned)t->bit_size, (unsigned)t->count);
    }
    w_str(w, "\n  ]");
  }
  if (s->die_count) {
    w_str(w, ",\n  \"dies\": [");
    for (size_t i = 0; i < s->die_count; i++) {
      const snap_die *d = &s->dies[i];
      w_str(w, i ? ",\n    {\"offset\": " : "\n    {\"offset\": ");
      w_u64(w, d->offset);
      w_str(w, d->procedure ? ", \"procedure\": true" : ", \"procedure\": false");
      if (d->value == AMDDWARF_DIE_LOCATION) {
        w_str(w, ", \"location\": {\"hex\": ");
        w_hex(w, d->bytes, d->size);
        w_str(w, "}");
      } else if (d->value == AMDDWARF_DIE_CONST_VALUE) {
        w_str(w, ", \"const_value\": ");
        w_hex(w, d->bytes, d->size);
      }
      w_str(w, "}");
    }
    w_str(w, "\n  ]");
  }
  if (s->has_code_objects) {
    w_str(w, ",\n  \"code_objects\": [");
    for (size_t i = 0; i < s->code_object_count; i++) {
      json_t *uri = json_string(s->code_objects[i].uri);
      char *quoted = uri ? json_dumps(uri, JSON_ENCODE_ANY) : NULL;
      w_str(w, i ? ",\n    {\"uri\": " : "\n    {\"uri\": ");
      w_str(w, quoted ? quoted : "\"\"");
      w_str(w, ", \"load_address\": ");
      w_u64(w, s->code_objects[i].load_address);
      w_str(w, "}");
      free(quoted);
      json_decref(uri);
    }
    w_str(w, s->code_object_count ? "\n  ]" : "]");
  }
  w_str(w, "\n}\n");
}

amddwarf_status amddwarf_snapshot_save(const amddwarf_snapshot *snapshot, char **text,
                                       size_t *size, amddwarf_error *err)
{
  if (!snapshot || !text || !size)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "no snapshot or output");
  *text = NULL;
  *size = 0;
  amddwarf_text w;
  amddwarf__text_init(&w, &snapshot->alloc);
  w.max = SIZE_MAX / 2; /* a snapshot holds up to SNAPSHOT_MAX_BYTES of contents, in hex */
  w_snapshot(snapshot, &w);
  if (amddwarf__text_take(&w, text, size) != AMDDWARF_OK)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                         "out of memory for the saved snapshot");
  return AMDDWARF_OK;
}
