/* The code object's call frame information (amddwarf_object_cfi): the
 * relocated .debug_frame handed to the CFI reader, opened once, with the
 * prologue analyzer (prologue.c) as the synthesizer of FDEs that say
 * nothing. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/amdgpu.h>
#include <amddwarf/cfi.h>
#include <amddwarf/disasm.h>

#include "common/error.h"
#include "object/internal.h"
#include "object/prologue.h"

enum { INSN_TEXT = 128, KEY_BYTES = 12 };

/* One entry of the decoding cache of decode_function. */
typedef struct decode_slot {
  uint8_t key[KEY_BYTES];
  uint8_t key_len, len;
  const char *text;
} decode_slot;

static uint64_t key_hash(const uint8_t *bytes, size_t n)
{
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ bytes[i]) * 1099511628211u;
  return h ^ (h >> 29);
}

/* Storage for the texts of distinct instructions: chunks that never move. */
typedef struct text_pool {
  struct text_chunk *chunks;
  size_t used;                 /* in the first chunk */
} text_pool;

typedef struct text_chunk {
  struct text_chunk *next;
  char bytes[65536 - sizeof(void *)];
} text_chunk;

/* Room for one instruction's text, or NULL. */
static char *pool_take(text_pool *pool)
{
  if (pool->chunks == NULL || pool->used + INSN_TEXT > sizeof pool->chunks->bytes) {
    text_chunk *c = malloc(sizeof *c);
    if (c == NULL)
      return NULL;
    c->next = pool->chunks;
    pool->chunks = c;
    pool->used = 0;
  }
  char *at = pool->chunks->bytes + pool->used;
  return at;
}

static void pool_free(text_pool *pool)
{
  while (pool->chunks != NULL) {
    text_chunk *next = pool->chunks->next;
    free(pool->chunks);
    pool->chunks = next;
  }
}

/* Decodes [P->start, P->end) into *INSNS (texts in POOL). */
static amddwarf_status decode_function(amddwarf_object *object, const amddwarf__prologue_params *p,
                                       amddwarf__prologue_insn **insns, text_pool *pool,
                                       size_t *count, amddwarf_error *err)
{
  if (!object->prologue_disasm_done) {
    amddwarf_error_clear(&object->prologue_disasm_error);
    object->prologue_disasm_status =
        amddwarf_disasm_open(object, &object->prologue_disasm, &object->prologue_disasm_error);
    object->prologue_disasm_done = true;
  }
  if (object->prologue_disasm_status != AMDDWARF_OK)
    return amddwarf__fail(err, object->prologue_disasm_status, AMDDWARF_NO_OFFSET,
                         "prologue analysis of the function at 0x%" PRIx64
                         " needs the instruction decoder: %s",
                         p->start, object->prologue_disasm_error.message);
  amddwarf_disasm *d = object->prologue_disasm;
  const amddwarf_disasm_section *sec = amddwarf_disasm_section_at(d, p->start);
  if (sec == NULL || p->end - sec->address > sec->size)
    return amddwarf__fail(err, AMDDWARF_E_CFI_PROLOGUE, AMDDWARF_NO_OFFSET,
                         "prologue analysis: the function [0x%" PRIx64 ", 0x%" PRIx64
                         ") is not inside an executable section",
                         p->start, p->end);
  size_t cap = (size_t)((p->end - p->start) / 4) + 1;
  *insns = malloc(cap * sizeof **insns);
  if (*insns == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "prologue analysis");
  /* Decoding is a function of the instruction's bytes, and its length of
     its first dword (the encoding, and a literal operand): an instruction
     seen before (s_waitcnt, s_nop, the same move) reuses its text. Each is
     kept under its own bytes, 4, 8 or 12, and looked up under each length. */
  size_t slots = 64;
  while (slots < 2 * cap && slots < 16384)
    slots *= 2;
  decode_slot *table = calloc(slots, sizeof *table);
  if (table == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "prologue analysis");
  size_t n = 0;
  for (uint64_t pc = p->start; pc < p->end && n < cap; n++) {
    const uint8_t *bytes = sec->data + (pc - sec->address);
    size_t avail = (size_t)(p->end - pc);
    size_t len = 0;
    const char *text = NULL;
    for (size_t key_len = 4; key_len <= KEY_BYTES && key_len <= avail && text == NULL;
         key_len += 4) {
      const decode_slot *slot = &table[key_hash(bytes, key_len) & (slots - 1)];
      if (slot->text != NULL && slot->key_len == key_len &&
          memcmp(slot->key, bytes, key_len) == 0) {
        len = slot->len;
        text = slot->text;
      }
    }
    if (text == NULL) {
      char *own = pool_take(pool);
      if (own == NULL) {
        free(table);
        return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                             "prologue analysis");
      }
      len = amddwarf_disasm_one(d, bytes, avail, pc, own, INSN_TEXT);
      pool->used += strlen(own) + 1;
      text = own;
      if (len != 0 && len % 4 == 0 && len <= KEY_BYTES) {
        decode_slot *slot = &table[key_hash(bytes, len) & (slots - 1)];
        memcpy(slot->key, bytes, len);
        slot->key_len = (uint8_t)len;
        slot->len = (uint8_t)len;
        slot->text = own;
      }
    }
    (*insns)[n] = (amddwarf__prologue_insn){pc, (uint32_t)(len ? len : 4), text};
    pc += len ? len : 4;
  }
  free(table);
  *count = n;
  return AMDDWARF_OK;
}

/* The cfi handle's synthesizer: the prologue analyzer over FDE's code. */
static amddwarf_status synthesize_rows(void *user, const amddwarf_cfi_fde *fde, uint8_t *buf,
                                       size_t capacity, size_t *size, amddwarf_error *err)
{
  amddwarf_object *object = user;
  amddwarf__prologue_params p;
  memset(&p, 0, sizeof p);
  p.wave_size = object->info.wave_size == 32 ? 32 : 64;
  p.start = fde->initial_location;
  p.end = fde->initial_location + fde->address_range;
  p.code_alignment = fde->cie->code_alignment_factor ? fde->cie->code_alignment_factor : 1;
  p.data_alignment = fde->cie->data_alignment_factor ? fde->cie->data_alignment_factor : 1;
  amddwarf__function_at function;
  p.kernel = amddwarf__object_function_at(object, p.start, &function) &&
             function.symbol.kind == AMDDWARF_SYMBOL_KERNEL;
  amddwarf_arch arch;
  if (amddwarf_arch_from_e_flags(object->info.e_flags, object->info.abi_version, &arch, NULL) ==
      AMDDWARF_OK)
    p.has_agprs = arch.has_agprs;
  if (p.kernel)
    return amddwarf__prologue_analyze(&p, NULL, 0, buf, capacity, size, err);
  if (object->info.flat_scratch)
    return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, AMDDWARF_NO_OFFSET,
                         "prologue analysis of the function at 0x%" PRIx64
                         ": flat-scratch targets (unscaled stack pointers) are not supported",
                         p.start);
  amddwarf__prologue_insn *insns = NULL;
  text_pool pool = {NULL, 0};
  size_t count = 0;
  amddwarf_status st = decode_function(object, &p, &insns, &pool, &count, err);
  if (st == AMDDWARF_OK)
    st = amddwarf__prologue_analyze(&p, insns, count, buf, capacity, size, err);
  free(insns);
  pool_free(&pool);
  return st;
}

/* Opens .debug_frame from the relocated section bytes, else .eh_frame
   through the object's ELF image (frame_elf.c knows its pointer bases). */
static amddwarf_status open_cfi(const amddwarf_object *object, amddwarf_cfi **out,
                                amddwarf_error *err)
{
  amddwarf_cfi_options options;
  amddwarf_cfi_options_init(&options);
  options.target = amddwarf_cfi_target_amdgpu(amddwarf__object_wave_info(object)->wave_size);
  options.allocator = &object->allocator;
  const amddwarf_section *frame = amddwarf__object_find_section(object, ".debug_frame");
  if (frame != NULL) {
    options.kind = AMDDWARF_CFI_DEBUG_FRAME;
    options.data = frame->data;
    options.size = (size_t)frame->size;
    options.section_address = frame->address;
    return amddwarf_cfi_open(&options, out, err);
  }
  amddwarf_status st =
      amddwarf__cfi_open_elf_image(&object->elf, AMDDWARF_CFI_EH_FRAME, &options, out, err);
  if (st == AMDDWARF_NOT_FOUND)
    return amddwarf__fail(err, AMDDWARF_NOT_FOUND, AMDDWARF_NO_OFFSET,
                         "the code object has no .debug_frame or .eh_frame");
  return st;
}

amddwarf_status amddwarf_object_cfi(const amddwarf_object *cobject, amddwarf_cfi **out,
                                    amddwarf_error *err)
{
  if (cobject == NULL || out == NULL)
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_object_cfi: NULL argument");
  /* The handle is made once; the object is otherwise read-only to callers. */
  amddwarf_object *object = (amddwarf_object *)cobject;
  /* Opened once; after that, callers on any thread (the statistics ask for
     every function) read it without taking the loading lock, which another
     thread may hold for a whole unit's line program. */
  if (!atomic_load_explicit(&object->cfi_done, memory_order_acquire)) {
    pthread_mutex_lock(&object->load_lock);
    if (!atomic_load_explicit(&object->cfi_done, memory_order_relaxed)) {
      amddwarf_error_clear(&object->cfi_error);
      object->cfi_status = open_cfi(object, &object->cfi, &object->cfi_error);
      if (object->cfi_status == AMDDWARF_OK)
        amddwarf_cfi_set_synthesizer(object->cfi, synthesize_rows, object);
      atomic_store_explicit(&object->cfi_done, true, memory_order_release);
    }
    pthread_mutex_unlock(&object->load_lock);
  }
  amddwarf_status st = object->cfi_status;
  *out = st == AMDDWARF_OK ? object->cfi : NULL;
  if (st != AMDDWARF_OK && err != NULL)
    *err = object->cfi_error;
  return st;
}

void amddwarf__object_free_cfi(amddwarf_object *object)
{
  amddwarf_cfi_close(object->cfi);
  object->cfi = NULL;
  amddwarf_disasm_close(object->prologue_disasm);
  object->prologue_disasm = NULL;
}
