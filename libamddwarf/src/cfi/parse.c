/* Parsing .debug_frame and .eh_frame: CIE and FDE headers, augmentations,
 * DW_EH_PE pointer encodings, and the FDE index.
 *
 * Formats: DWARF 5 section 6.4.1 (CIE versions 1, 3 and 4; 32- and 64-bit
 * initial lengths; address and segment selector sizes in version 4), the
 * seed's `[amd:vX.Y]` augmentation, and the LSB's .eh_frame (CIE id 0, CIE
 * pointers relative to their own field, "z" augmentation data with R, P, L,
 * S, and the old "eh" pointer).
 *
 * Open walks the section twice: the first pass parses every CIE and notes
 * where each FDE starts, the second resolves every FDE's CIE (a pointer that
 * does not land on a CIE, including one to an FDE or to itself, is an error,
 * so CIE chains cannot loop) and decodes its header. */
/* pthread_mutexattr_settype and PTHREAD_MUTEX_RECURSIVE are X/Open. */
#define _XOPEN_SOURCE 700
#include <sched.h>
#include <string.h>

#include "cfi/cfi_internal.h"
#include "common/checked.h"
#include "common/error.h"
#include "common/mem.h"

/* An entry of the section, framed (read_entry): an FDE before it is parsed. */
typedef struct raw_fde {
  uint64_t offset, length, header, end, cie_offset, cie_pointer;
  bool dwarf64;
} raw_fde;

void amddwarf_cfi_options_init(amddwarf_cfi_options *options)
{
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->kind = AMDDWARF_CFI_DEBUG_FRAME;
  options->max_remember_depth = 64;
  options->max_rules_per_fde = 4000000;
  options->max_register = 65535;
}

bool amddwarf__cfi_encoding_valid(uint8_t encoding)
{
  uint8_t format = encoding & 0x0f, app = encoding & 0x70;
  if (format == 0x05 || format == 0x06 || format == 0x07 || format >= 0x0d)
    return false;
  return app <= AMDDWARF_EH_PE_aligned;
}

static amddwarf_status section_fail(amddwarf_error *err, amddwarf_status status,
                                    const amddwarf_cfi *cfi, uint64_t offset, const char *what)
{
  return amddwarf__fail(err, status, offset, "%s at offset 0x%llx: %s",
                       cfi->options.kind == AMDDWARF_CFI_EH_FRAME ? ".eh_frame" : ".debug_frame",
                       (unsigned long long)offset, what);
}

amddwarf_status amddwarf__cfi_read_encoded(const amddwarf_cfi *cfi, amddwarf_reader *r,
                                          uint8_t encoding, uint8_t address_size,
                                          uint64_t func_base, uint64_t *out,
                                          amddwarf_error *err)
{
  size_t start = r->pos;
  uint64_t value = 0;
  amddwarf_status st = AMDDWARF_OK;
  if (!amddwarf__cfi_encoding_valid(encoding))
    return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_POINTER_ENCODING, start,
                         "pointer encoding 0x%02x at offset 0x%zx is not a DW_EH_PE encoding",
                         encoding, start);
  uint8_t app = encoding & 0x70;
  if (app == AMDDWARF_EH_PE_aligned) {
    size_t aligned = (r->pos + address_size - 1) / address_size * address_size;
    if (aligned > r->size)
      return section_fail(err, AMDDWARF_E_TRUNCATED, cfi, start, "aligned pointer truncated");
    r->pos = aligned;
  }
  size_t field = r->pos;
  switch (encoding & 0x0f) {
  case AMDDWARF_EH_PE_absptr: st = amddwarf__read_uint(r, address_size, &value); break;
  case AMDDWARF_EH_PE_uleb128: st = amddwarf_read_uleb(r, &value); break;
  case AMDDWARF_EH_PE_udata2: st = amddwarf__read_uint(r, 2, &value); break;
  case AMDDWARF_EH_PE_udata4: st = amddwarf__read_uint(r, 4, &value); break;
  case AMDDWARF_EH_PE_udata8: st = amddwarf__read_uint(r, 8, &value); break;
  case AMDDWARF_EH_PE_signed: {
    int64_t s = 0;
    st = amddwarf__read_sint(r, address_size, &s);
    value = (uint64_t)s;
    break;
  }
  case AMDDWARF_EH_PE_sleb128: {
    int64_t s = 0;
    st = amddwarf__read_sleb(r, &s);
    value = (uint64_t)s;
    break;
  }
  case AMDDWARF_EH_PE_sdata2:
  case AMDDWARF_EH_PE_sdata4:
  case AMDDWARF_EH_PE_sdata8: {
    static const unsigned sizes[3] = {2, 4, 8};
    int64_t s = 0;
    st = amddwarf__read_sint(r, sizes[(encoding & 0x0f) - AMDDWARF_EH_PE_sdata2], &s);
    value = (uint64_t)s;
    break;
  }
  default: break;
  }
  if (st != AMDDWARF_OK) {
    r->pos = start;
    return amddwarf__fail(err, st, start, "encoded pointer (0x%02x) at offset 0x%zx: %s",
                         encoding, start, amddwarf_status_message(st));
  }
  switch (app) {
  case AMDDWARF_EH_PE_pcrel: value += cfi->options.section_address + field; break;
  case AMDDWARF_EH_PE_textrel:
    if (!cfi->options.have_text_base)
      goto no_base;
    value += cfi->options.text_base;
    break;
  case AMDDWARF_EH_PE_datarel:
    if (!cfi->options.have_data_base)
      goto no_base;
    value += cfi->options.data_base;
    break;
  case AMDDWARF_EH_PE_funcrel: value += func_base; break;
  default: break;
  }
  if (address_size < 8)
    value &= (UINT64_C(1) << (8 * address_size)) - 1;
  if (encoding & AMDDWARF_EH_PE_indirect) {
    uint8_t bytes[8];
    uint64_t target = 0;
    if (!cfi->options.read_memory)
      return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, start,
                           "indirect pointer (0x%02x) at offset 0x%zx needs target memory",
                           encoding, start);
    st = cfi->options.read_memory(cfi->options.read_memory_user, value, bytes, address_size);
    if (st != AMDDWARF_OK)
      return amddwarf__fail(err, st, start,
                           "indirect pointer at offset 0x%zx: reading 0x%llx failed", start,
                           (unsigned long long)value);
    for (unsigned i = 0; i < address_size; i++) {
      unsigned byte = cfi->options.big_endian ? i : address_size - 1 - i;
      target = target << 8 | bytes[byte];
    }
    value = target;
  }
  *out = value;
  return AMDDWARF_OK;
no_base:
  r->pos = start;
  return amddwarf__fail(err, AMDDWARF_E_UNSUPPORTED, start,
                       "%s pointer (0x%02x) at offset 0x%zx needs a base address",
                       app == AMDDWARF_EH_PE_textrel ? "textrel" : "datarel", encoding, start);
}

/* Parses "[amd:vX.Y]". */
static bool parse_amd_augmentation(const char *text, uint32_t *major, uint32_t *minor)
{
  const char *prefix = "[amd:v";
  size_t n = strlen(prefix);
  if (strncmp(text, prefix, n) != 0)
    return false;
  const char *p = text + n;
  uint32_t values[2] = {0, 0};
  for (int part = 0; part < 2; part++) {
    if (*p < '0' || *p > '9')
      return false;
    while (*p >= '0' && *p <= '9') {
      if (values[part] > 100000)
        return false;
      values[part] = values[part] * 10 + (uint32_t)(*p - '0');
      p++;
    }
    if (*p != (part == 0 ? '.' : ']'))
      return false;
    p++;
  }
  if (*p != '\0')
    return false;
  *major = values[0];
  *minor = values[1];
  return true;
}

/* Reads an initial length at R: *LENGTH, *DWARF64. */
static amddwarf_status read_initial_length(amddwarf_cfi *cfi, amddwarf_reader *r,
                                           uint64_t *length, bool *dwarf64, amddwarf_error *err)
{
  size_t start = r->pos;
  uint32_t len32;
  if (amddwarf__read_u32(r, &len32) != AMDDWARF_OK)
    return section_fail(err, AMDDWARF_E_TRUNCATED, cfi, start, "entry length truncated");
  *dwarf64 = false;
  if (len32 == 0xffffffffu) {
    if (amddwarf__read_u64(r, length) != AMDDWARF_OK) {
      r->pos = start;
      return section_fail(err, AMDDWARF_E_TRUNCATED, cfi, start, "64-bit length truncated");
    }
    *dwarf64 = true;
  } else if (len32 >= 0xfffffff0u) {
    r->pos = start;
    return section_fail(err, AMDDWARF_E_MALFORMED, cfi, start,
                        "reserved initial length value");
  } else {
    *length = len32;
  }
  return AMDDWARF_OK;
}

static amddwarf_status parse_cie(amddwarf_cfi *cfi, amddwarf_reader *r, amddwarf_cfi_cie *cie,
                                 uint64_t end, amddwarf_error *err)
{
  bool eh = cfi->options.kind == AMDDWARF_CFI_EH_FRAME;
  uint64_t at = r->pos;
  const char *aug = NULL;
  size_t aug_len = 0;
  amddwarf_status st;
  if (amddwarf_read_u8(r, &cie->version) != AMDDWARF_OK)
    goto truncated;
  if (cie->version != 1 && cie->version != 3 && cie->version != 4)
    return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_VERSION, at,
                         "CIE at offset 0x%llx: version %u (expected 1, 3 or 4)",
                         (unsigned long long)cie->offset, cie->version);
  at = r->pos;
  if (amddwarf__read_cstr(r, &aug, &aug_len) != AMDDWARF_OK)
    goto truncated;
  cie->augmentation = aug;
  cie->address_size = cfi->target->address_size;
  cie->fde_encoding = AMDDWARF_EH_PE_absptr;
  cie->lsda_encoding = AMDDWARF_EH_PE_omit;
  cie->personality_encoding = AMDDWARF_EH_PE_omit;
  cie->augmentation_known = true;
  if (!eh && aug[0] != '\0' && aug[0] != 'z') {
    cie->amd_augmentation = parse_amd_augmentation(aug, &cie->amd_major, &cie->amd_minor);
    cie->augmentation_known = cie->amd_augmentation;
  }
  if (eh && strcmp(aug, "eh") == 0) {
    if (amddwarf__reader_skip(r, cie->address_size) != AMDDWARF_OK)
      goto truncated;
  }
  if (cie->version == 4) {
    at = r->pos;
    if (amddwarf_read_u8(r, &cie->address_size) != AMDDWARF_OK ||
        amddwarf_read_u8(r, &cie->segment_selector_size) != AMDDWARF_OK)
      goto truncated;
    if (cie->address_size != 2 && cie->address_size != 4 && cie->address_size != 8)
      return amddwarf__fail(err, AMDDWARF_E_MALFORMED, at,
                           "CIE at offset 0x%llx: address size %u (expected 2, 4 or 8)",
                           (unsigned long long)cie->offset, cie->address_size);
    if (cie->segment_selector_size > 8)
      return amddwarf__fail(err, AMDDWARF_E_MALFORMED, at,
                           "CIE at offset 0x%llx: segment selector size %u (at most 8)",
                           (unsigned long long)cie->offset, cie->segment_selector_size);
  }
  /* With an augmentation this reader does not know, only the header fields
     up to here can be read (the address size is needed for the FDEs). */
  if (!cie->augmentation_known)
    return AMDDWARF_OK;
  at = r->pos;
  if ((st = amddwarf_read_uleb(r, &cie->code_alignment_factor)) != AMDDWARF_OK ||
      (st = amddwarf__read_sleb(r, &cie->data_alignment_factor)) != AMDDWARF_OK)
    goto bad_field;
  if (cie->version == 1) {
    uint8_t ra;
    if (amddwarf_read_u8(r, &ra) != AMDDWARF_OK)
      goto truncated;
    cie->return_address_register = ra;
  } else if ((st = amddwarf_read_uleb(r, &cie->return_address_register)) != AMDDWARF_OK) {
    goto bad_field;
  }
  if (aug[0] == 'z') {
    at = r->pos;
    if ((st = amddwarf_read_uleb(r, &cie->augmentation_data_size)) != AMDDWARF_OK)
      goto bad_field;
    if (!amddwarf_range_fits(r->pos, cie->augmentation_data_size, end))
      goto truncated;
    cie->augmentation_data = r->data + r->pos;
    amddwarf_reader data = *r;
    data.size = r->pos + (size_t)cie->augmentation_data_size;
    r->pos = data.size;
    for (const char *p = aug + 1; *p; p++) {
      at = data.pos;
      if (*p == 'R' || *p == 'L' || *p == 'P') {
        uint8_t enc;
        if (amddwarf_read_u8(&data, &enc) != AMDDWARF_OK)
          goto truncated;
        if (enc != AMDDWARF_EH_PE_omit && !amddwarf__cfi_encoding_valid(enc))
          return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_POINTER_ENCODING, at,
                               "CIE at offset 0x%llx: '%c' encoding 0x%02x is not a DW_EH_PE "
                               "encoding", (unsigned long long)cie->offset, *p, enc);
        if (*p == 'R')
          cie->fde_encoding = enc;
        else if (*p == 'L')
          cie->lsda_encoding = enc;
        else {
          cie->personality_encoding = enc;
          /* Without target memory, an indirect personality stays the
             address of the pointer rather than failing the section. */
          if (enc != AMDDWARF_EH_PE_omit && (enc & AMDDWARF_EH_PE_indirect) &&
              !cfi->options.read_memory) {
            enc &= (uint8_t)~AMDDWARF_EH_PE_indirect;
            cie->personality_indirect = true;
          }
          if (enc != AMDDWARF_EH_PE_omit &&
              (st = amddwarf__cfi_read_encoded(cfi, &data, enc, cie->address_size, 0,
                                              &cie->personality, err)) != AMDDWARF_OK)
            return st;
        }
      } else if (*p == 'S') {
        cie->signal_frame = true;
      } else {
        /* B, G and letters this reader does not know carry no data or only
           data the "z" length lets us skip. */
        break;
      }
    }
  } else if (eh && aug[0] != '\0' && strcmp(aug, "eh") != 0) {
    return amddwarf__fail(err, AMDDWARF_E_CFI_BAD_AUGMENTATION, at,
                         "CIE at offset 0x%llx: unknown augmentation \"%s\"",
                         (unsigned long long)cie->offset, aug);
  }
  cie->instructions = r->data + r->pos;
  cie->instructions_offset = r->pos;
  cie->instructions_size = end - r->pos;
  return AMDDWARF_OK;
truncated:
  return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, at,
                       "CIE at offset 0x%llx: field at offset 0x%llx runs past the entry",
                       (unsigned long long)cie->offset, (unsigned long long)at);
bad_field:
  return amddwarf__fail(err, st, at,
                       "CIE at offset 0x%llx: field at offset 0x%llx: %s",
                       (unsigned long long)cie->offset, (unsigned long long)at,
                       amddwarf_status_message(st));
}

static amddwarf_status parse_fde(amddwarf_cfi *cfi, const raw_fde *raw,
                                 const amddwarf_cfi_cie *cie, amddwarf_cfi_fde *fde,
                                 amddwarf_error *err)
{
  bool eh = cfi->options.kind == AMDDWARF_CFI_EH_FRAME;
  amddwarf_reader r;
  amddwarf_reader_init(&r, cfi->options.data, (size_t)raw->end);
  r.big_endian = cfi->options.big_endian;
  r.pos = (size_t)raw->header;
  amddwarf_status st;
  fde->offset = raw->offset;
  fde->length = raw->length;
  fde->dwarf64 = raw->dwarf64;
  fde->cie_pointer = raw->cie_pointer;
  fde->cie = cie;
  if (!eh) {
    if (cie->segment_selector_size &&
        (st = amddwarf__read_uint(&r, cie->segment_selector_size, &fde->segment_selector)) !=
            AMDDWARF_OK)
      goto fail;
    if ((st = amddwarf__read_uint(&r, cie->address_size, &fde->initial_location)) !=
            AMDDWARF_OK ||
        (st = amddwarf__read_uint(&r, cie->address_size, &fde->address_range)) != AMDDWARF_OK)
      goto fail;
  } else {
    if ((st = amddwarf__cfi_read_encoded(cfi, &r, cie->fde_encoding, cie->address_size, 0,
                                        &fde->initial_location, err)) != AMDDWARF_OK)
      return st;
    if ((st = amddwarf__cfi_read_encoded(cfi, &r, cie->fde_encoding & 0x0f, cie->address_size,
                                        0, &fde->address_range, err)) != AMDDWARF_OK)
      return st;
    if (cie->augmentation[0] == 'z') {
      uint64_t size;
      if ((st = amddwarf_read_uleb(&r, &size)) != AMDDWARF_OK)
        goto fail;
      if (!amddwarf_range_fits(r.pos, size, r.size)) {
        st = AMDDWARF_E_TRUNCATED;
        goto fail;
      }
      amddwarf_reader data = r;
      data.size = r.pos + (size_t)size;
      r.pos = data.size;
      if (cie->lsda_encoding != AMDDWARF_EH_PE_omit && size > 0) {
        if ((st = amddwarf__cfi_read_encoded(cfi, &data, cie->lsda_encoding, cie->address_size,
                                            fde->initial_location, &fde->lsda, err)) !=
            AMDDWARF_OK)
          return st;
        fde->has_lsda = true;
      }
    }
  }
  fde->instructions = r.data + r.pos;
  fde->instructions_offset = r.pos;
  fde->instructions_size = raw->end - r.pos;
  return AMDDWARF_OK;
fail:
  return amddwarf__fail(err, st, r.pos, "FDE at offset 0x%llx: header field at offset 0x%zx: %s",
                       (unsigned long long)raw->offset, r.pos, amddwarf_status_message(st));
}

static int index_compare(const void *a, const void *b)
{
  const amddwarf_cfi_index_entry *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->fde < y->fde ? -1 : (x->fde > y->fde);
}

/* End of the ascending run of V that starts at A. */
static size_t run_end(const amddwarf_cfi_index_entry *v, size_t a, size_t n)
{
  size_t j = a + 1;
  while (j < n && index_compare(&v[j - 1], &v[j]) <= 0)
    j++;
  return j;
}

/* Sorts the N entries of V with a natural merge sort: linkers lay FDEs out
   in a few ascending runs (one per input section group), so a handful of
   merging passes do what a general sort would do in log2(N). Returns -1 when
   the scratch buffer cannot be allocated. */
static int sort_index(amddwarf_cfi *cfi, amddwarf_cfi_index_entry *v, size_t n)
{
  amddwarf_cfi_index_entry *tmp = amddwarf__mem_alloc(&cfi->allocator, n * sizeof *tmp);
  if (!tmp)
    return -1;
  amddwarf_cfi_index_entry *src = v, *dst = tmp;
  for (;;) {
    size_t runs = 0, i = 0;
    while (i < n) {
      size_t m = run_end(src, i, n);
      size_t b = m < n ? run_end(src, m, n) : n;
      size_t x = i, y = m, k = i;
      while (x < m && y < b)
        dst[k++] = index_compare(&src[y], &src[x]) < 0 ? src[y++] : src[x++];
      while (x < m)
        dst[k++] = src[x++];
      while (y < b)
        dst[k++] = src[y++];
      runs++;
      i = b;
    }
    amddwarf_cfi_index_entry *t = src;
    src = dst;
    dst = t;
    if (runs <= 1)
      break;
  }
  if (src != v)
    memcpy(v, src, n * sizeof *v);
  amddwarf__mem_free(&cfi->allocator, tmp, n * sizeof *tmp);
  return 0;
}

static const amddwarf_cfi_cie *find_cie(const amddwarf_cfi *cfi, uint64_t offset)
{
  size_t lo = 0, hi = cfi->cie_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cfi->cies[mid].offset < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < cfi->cie_count && cfi->cies[lo].offset == offset ? &cfi->cies[lo] : NULL;
}

/* Sorts the N entries of cfi->index (SORTED: already in order) and makes
   the search helpers. */
static amddwarf_status build_index(amddwarf_cfi *cfi, size_t n, bool sorted, amddwarf_error *err)
{
  if (!sorted && sort_index(cfi, cfi->index, n) != 0)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "FDE index");
  cfi->index_count = n;
  cfi->top_count = (n + AMDDWARF_CFI_INDEX_BLOCK - 1) / AMDDWARF_CFI_INDEX_BLOCK;
  cfi->starts = amddwarf__mem_alloc_bulk(&cfi->allocator, (n ? n : 1) * sizeof *cfi->starts);
  cfi->top = amddwarf__mem_alloc(&cfi->allocator,
                                (cfi->top_count ? cfi->top_count : 1) * sizeof *cfi->top);
  if (!cfi->starts || !cfi->top)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "FDE index");
  /* In start order, an entry meets an earlier one when it starts before
     the furthest end so far, and a later one when it ends after the next
     start. */
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++) {
    amddwarf_cfi_index_entry *e = &cfi->index[i];
    cfi->starts[i] = e->start;
    e->overlaps = (i > 0 && e->start < end) || (i + 1 < n && e->end > cfi->index[i + 1].start);
    end = e->end > end ? e->end : end;
  }
  for (size_t j = 0; j < cfi->top_count; j++)
    cfi->top[j] = cfi->index[j * AMDDWARF_CFI_INDEX_BLOCK].start;
  return AMDDWARF_OK;
}

/* Frames the entry at R's position into *RAW (its CIE id read into
   cie_pointer, *IS_CIE said) and moves R past it. RAW->length 0: a padding
   entry of .debug_frame, to be skipped. AMDDWARF_END at the end of the
   section or at .eh_frame's terminator; else the framing error. */
static amddwarf_status read_entry(amddwarf_cfi *cfi, amddwarf_reader *r, bool eh, raw_fde *raw,
                                  bool *is_cie, amddwarf_error *err)
{
  if (amddwarf_reader_at_end(r))
    return AMDDWARF_END;
  memset(raw, 0, sizeof *raw);
  raw->offset = r->pos;
  amddwarf_status st = read_initial_length(cfi, r, &raw->length, &raw->dwarf64, err);
  if (st != AMDDWARF_OK)
    return st;
  if (raw->length == 0)
    return eh ? AMDDWARF_END : AMDDWARF_OK; /* .eh_frame's terminator */
  raw->header = r->pos; /* the CIE id or pointer, until it is read */
  if (!amddwarf_range_fits(raw->header, raw->length, r->size))
    return amddwarf__fail(err, AMDDWARF_E_TRUNCATED, raw->offset,
                          "%s entry at offset 0x%llx: length 0x%llx runs past the end of the "
                          "section (size 0x%zx)", eh ? ".eh_frame" : ".debug_frame",
                          (unsigned long long)raw->offset, (unsigned long long)raw->length,
                          r->size);
  raw->end = raw->header + raw->length;
  amddwarf_reader entry = *r;
  entry.size = (size_t)raw->end;
  uint64_t id = 0;
  if ((st = amddwarf__read_uint(&entry, raw->dwarf64 ? 8 : 4, &id)) != AMDDWARF_OK)
    return section_fail(err, AMDDWARF_E_TRUNCATED, cfi, raw->header, "CIE id truncated");
  *is_cie = eh ? id == 0 : id == (raw->dwarf64 ? UINT64_MAX : 0xffffffffu);
  raw->cie_pointer = id;
  /* .eh_frame: relative to the pointer field; .debug_frame: a section offset. */
  raw->cie_offset = eh ? raw->header - id : id;
  if (eh && id > raw->header)
    raw->cie_offset = UINT64_MAX;
  raw->header = entry.pos; /* what follows the CIE id or pointer */
  r->pos = (size_t)raw->end;
  return AMDDWARF_OK;
}

/* Whether the entries of CFI can be framed in place: .debug_frame in
   little-endian byte order on a little-endian host. */
static bool frames_in_place(const amddwarf_cfi *cfi)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return cfi->options.kind == AMDDWARF_CFI_DEBUG_FRAME && !cfi->options.big_endian;
#else
  (void)cfi;
  return false;
#endif
}

/* The 32-bit FDE at POS, framed in place: its end and CIE pointer. False
   for anything else (a CIE, padding, a 64-bit or bad length), which
   read_entry frames and reports. */
static bool fde_in_place(const amddwarf_cfi *cfi, size_t pos, size_t *end, uint32_t *cie)
{
  const uint8_t *d = cfi->options.data;
  size_t size = cfi->options.size;
  uint32_t length, id;
  if (size - pos < 8)
    return false;
  memcpy(&length, d + pos, 4);
  if (length < 4 || length >= 0xfffffff0u || length > size - pos - 4)
    return false;
  memcpy(&id, d + pos + 4, 4);
  if (id == 0xffffffffu)
    return false;
  *end = pos + 4 + length;
  *cie = id;
  return true;
}

/* The second pass over the usual .debug_frame (frames_in_place, CIEs
   without segment selectors): each FDE's address fields read in place
   instead of parsed (a big object has one FDE per function, and the index
   is built before the first unwind). False leaves the general pass to do
   it (and to report what is wrong); *INDEXED and *SORTED as it sets them. */
static bool index_in_place(amddwarf_cfi *cfi, size_t fde_total, size_t *indexed, bool *sorted)
{
  if (!frames_in_place(cfi))
    return false;
  const uint8_t *d = cfi->options.data;
  size_t size = cfi->options.size, pos = 0, count = 0, n = 0;
  bool in_order = true;
  const amddwarf_cfi_cie *last = NULL;
  while (count < fde_total && size - pos >= 4) {
    uint32_t length;
    memcpy(&length, d + pos, 4);
    if (length == 0) { /* padding */
      pos += 4;
      continue;
    }
    size_t end;
    uint32_t id;
    if (!fde_in_place(cfi, pos, &end, &id)) {
      /* A CIE: step over it; anything else goes to the general pass. */
      if (size - pos < 8 || length >= 0xfffffff0u || length > size - pos - 4)
        return false;
      pos += 4 + (size_t)length;
      continue;
    }
    const amddwarf_cfi_cie *cie = last && last->offset == id ? last : find_cie(cfi, id);
    if (cie == NULL || cie->segment_selector_size != 0 ||
        (cie->address_size != 4 && cie->address_size != 8) ||
        end - pos < 8 + 2 * (size_t)cie->address_size)
      return false;
    last = cie;
    uint64_t location = 0, range = 0, stop;
    memcpy(&location, d + pos + 8, cie->address_size);
    memcpy(&range, d + pos + 8 + cie->address_size, cie->address_size);
    if (range != 0) {
      if (amddwarf_add_overflow_u64(location, range, &stop))
        stop = UINT64_MAX;
      amddwarf_cfi_index_entry e = {location, stop, (uint32_t)count, false};
      if (n > 0 && index_compare(&cfi->index[n - 1], &e) > 0)
        in_order = false;
      cfi->index[n++] = e;
    }
    cfi->fde_offsets[count++] = pos;
    pos = end;
  }
  if (count != fde_total)
    return false;
  cfi->fde_count = count;
  *indexed = n;
  *sorted = in_order;
  return true;
}

amddwarf_status amddwarf_cfi_open(const amddwarf_cfi_options *options, amddwarf_cfi **out,
                                  amddwarf_error *err)
{
  amddwarf_status st = AMDDWARF_OK;
  if (!options || !out || options->struct_size < sizeof *options ||
      (!options->data && options->size))
    return amddwarf__fail(err, AMDDWARF_E_INVALID_ARGUMENT, AMDDWARF_NO_OFFSET,
                         "amddwarf_cfi_open: bad options");
  amddwarf_allocator a = amddwarf__allocator_resolve(options->allocator);
  amddwarf_cfi *cfi = amddwarf__mem_calloc(&a, 1, sizeof *cfi);
  if (!cfi)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "CFI handle");
  cfi->allocator = a;
  cfi->options = *options;
  cfi->options.allocator = NULL;
  cfi->target = options->target ? options->target : amddwarf_cfi_target_amdgpu(64);
  cfi->options.target = cfi->target;
  amddwarf__arena_init(&cfi->arena, &cfi->allocator);
  pthread_mutexattr_t lock_attr;
  if (pthread_mutexattr_init(&lock_attr) == 0) {
    cfi->rows_lock_ready =
        pthread_mutexattr_settype(&lock_attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
        pthread_mutex_init(&cfi->rows_lock, &lock_attr) == 0;
    pthread_mutexattr_destroy(&lock_attr);
  }
  bool eh = options->kind == AMDDWARF_CFI_EH_FRAME;
  if (options->copy_data && options->size > 0) {
    cfi->owned_data = amddwarf__mem_alloc(&cfi->allocator, options->size);
    if (!cfi->owned_data) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "CFI section copy");
      goto fail;
    }
    cfi->owned_size = options->size;
    memcpy(cfi->owned_data, options->data, options->size);
    cfi->options.data = cfi->owned_data;
  }

  /* Two passes over the entries: the CIEs and a count of the FDEs, then
     each FDE parsed into its final place (a big section's FDEs are never
     held twice). */
  amddwarf_reader r;
  amddwarf_reader_init(&r, cfi->options.data, options->size);
  r.big_endian = options->big_endian;
  size_t fde_total = 0;
  raw_fde raw;
  bool is_cie = false;
  bool in_place = frames_in_place(cfi);
  for (;;) {
    size_t fde_end;
    uint32_t fde_cie;
    /* FDEs are only counted here: framed in place when they can be. */
    if (in_place && fde_in_place(cfi, r.pos, &fde_end, &fde_cie)) {
      fde_total++;
      r.pos = fde_end;
      continue;
    }
    if ((st = read_entry(cfi, &r, eh, &raw, &is_cie, err)) != AMDDWARF_OK)
      break;
    if (raw.length == 0)
      continue;
    if (!is_cie) {
      fde_total++;
      continue;
    }
    if (amddwarf__mem_reserve(&cfi->allocator, (void **)&cfi->cies, &cfi->cie_capacity,
                             cfi->cie_count + 1, sizeof *cfi->cies) != 0) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, raw.offset, "CIE table");
      goto fail;
    }
    amddwarf_cfi_cie *cie = &cfi->cies[cfi->cie_count];
    memset(cie, 0, sizeof *cie);
    cie->offset = raw.offset;
    cie->length = raw.length;
    cie->dwarf64 = raw.dwarf64;
    amddwarf_reader entry;
    amddwarf_reader_init(&entry, cfi->options.data, (size_t)raw.end);
    entry.big_endian = options->big_endian;
    entry.pos = (size_t)raw.header;
    if ((st = parse_cie(cfi, &entry, cie, raw.end, err)) != AMDDWARF_OK)
      goto fail;
    cfi->cie_count++;
  }
  if (st != AMDDWARF_END)
    goto fail;
  st = AMDDWARF_OK;

  if (fde_total) {
    /* Parsed, and their rows made, on first use: only the slots of the FDEs
       a question touches become resident. */
    cfi->fdes = amddwarf__mem_calloc_sparse(&cfi->allocator, fde_total, sizeof *cfi->fdes);
    cfi->fde_capacity = fde_total; /* the size every array below is freed with */
    cfi->fde_offsets =
        amddwarf__mem_alloc_bulk(&cfi->allocator, fde_total * sizeof *cfi->fde_offsets);
    cfi->fde_ready =
        amddwarf__mem_calloc_sparse(&cfi->allocator, fde_total, sizeof *cfi->fde_ready);
    if (!cfi->fdes || !cfi->fde_offsets || !cfi->fde_ready) {
      st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "FDE table");
      goto fail;
    }
  }
  /* The index arrays are written whole in one pass: bulk mappings, which
     take a page fault per 2 MiB where huge pages are available. */
  cfi->index = amddwarf__mem_alloc_bulk(&cfi->allocator,
                                       (fde_total ? fde_total : 1) * sizeof *cfi->index);
  if (!cfi->index) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "FDE index");
    goto fail;
  }
  size_t indexed = 0;
  bool sorted = true;
  const amddwarf_cfi_cie *last_cie = NULL;
  r.pos = 0;
  if (index_in_place(cfi, fde_total, &indexed, &sorted))
    r.pos = r.size; /* done */
  while (cfi->fde_count < fde_total &&
         (st = read_entry(cfi, &r, eh, &raw, &is_cie, err)) == AMDDWARF_OK) {
    if (raw.length == 0 || is_cie)
      continue;
    /* Neighbouring FDEs usually share their CIE. */
    const amddwarf_cfi_cie *cie = last_cie && last_cie->offset == raw.cie_offset
                                      ? last_cie
                                      : find_cie(cfi, raw.cie_offset);
    last_cie = cie;
    if (!cie) {
      st = amddwarf__fail(err, AMDDWARF_E_CFI_BAD_CIE_POINTER,
                         raw.header - (raw.dwarf64 ? 8 : 4),
                         "FDE at offset 0x%llx: CIE pointer 0x%llx does not reach a CIE",
                         (unsigned long long)raw.offset, (unsigned long long)raw.cie_pointer);
      goto fail;
    }
    amddwarf_cfi_fde fde;
    if ((st = parse_fde(cfi, &raw, cie, &fde, err)) != AMDDWARF_OK)
      goto fail;
    if (fde.address_range != 0) {
      uint64_t end;
      if (amddwarf_add_overflow_u64(fde.initial_location, fde.address_range, &end))
        end = UINT64_MAX;
      amddwarf_cfi_index_entry e = {fde.initial_location, end, (uint32_t)cfi->fde_count, false};
      if (indexed > 0 && index_compare(&cfi->index[indexed - 1], &e) > 0)
        sorted = false;
      cfi->index[indexed++] = e;
    }
    cfi->fde_offsets[cfi->fde_count++] = raw.offset;
  }
  if (st != AMDDWARF_OK && st != AMDDWARF_END)
    goto fail;
  if ((st = build_index(cfi, indexed, sorted, err)) != AMDDWARF_OK)
    goto fail;
  cfi->fde_rows = amddwarf__mem_calloc_sparse(&cfi->allocator,
                                             cfi->fde_count ? cfi->fde_count : 1,
                                             sizeof *cfi->fde_rows);
  cfi->cie_rows = amddwarf__mem_calloc(&cfi->allocator, cfi->cie_count ? cfi->cie_count : 1,
                                      sizeof *cfi->cie_rows);
  if (!cfi->fde_rows || !cfi->cie_rows) {
    st = amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "row cache");
    goto fail;
  }
  *out = cfi;
  return AMDDWARF_OK;
fail:
  amddwarf_cfi_close(cfi);
  return st;
}

void amddwarf_cfi_close(amddwarf_cfi *cfi)
{
  if (!cfi)
    return;
  amddwarf_allocator a = cfi->allocator;
  amddwarf__arena_release(&cfi->arena);
  amddwarf__mem_free(&a, cfi->cies, cfi->cie_capacity * sizeof *cfi->cies);
  amddwarf__mem_free_bulk(&a, cfi->fdes, cfi->fde_capacity * sizeof *cfi->fdes);
  amddwarf__mem_free_bulk(&a, cfi->fde_offsets, cfi->fde_capacity * sizeof *cfi->fde_offsets);
  amddwarf__mem_free_bulk(&a, cfi->fde_ready, cfi->fde_capacity * sizeof *cfi->fde_ready);
  amddwarf__mem_free_bulk(&a, cfi->index,
                          (cfi->fde_capacity ? cfi->fde_capacity : 1) * sizeof *cfi->index);
  amddwarf__mem_free_bulk(&a, cfi->starts, (cfi->index_count ? cfi->index_count : 1) *
                                              sizeof *cfi->starts);
  amddwarf__mem_free(&a, cfi->top, (cfi->top_count ? cfi->top_count : 1) * sizeof *cfi->top);
  amddwarf__mem_free_bulk(&a, cfi->fde_rows, (cfi->fde_count ? cfi->fde_count : 1) *
                                                sizeof *cfi->fde_rows);
  amddwarf__mem_free(&a, cfi->cie_rows, (cfi->cie_count ? cfi->cie_count : 1) *
                                           sizeof *cfi->cie_rows);
  amddwarf__mem_free(&a, cfi->owned_data, cfi->owned_size);
  if (cfi->rows_lock_ready)
    pthread_mutex_destroy(&cfi->rows_lock);
  amddwarf__mem_free(&a, cfi, sizeof *cfi);
}

void amddwarf_cfi_set_read_memory(amddwarf_cfi *cfi, amddwarf_cfi_read_memory_fn read_memory,
                                  void *user)
{
  cfi->options.read_memory = read_memory;
  cfi->options.read_memory_user = read_memory ? user : NULL;
}

const amddwarf_cfi_target *amddwarf_cfi_get_target(const amddwarf_cfi *cfi)
{
  return cfi->target;
}

size_t amddwarf_cfi_cie_count(const amddwarf_cfi *cfi)
{
  return cfi->cie_count;
}

const amddwarf_cfi_cie *amddwarf_cfi_cie_at(const amddwarf_cfi *cfi, size_t index)
{
  return index < cfi->cie_count ? &cfi->cies[index] : NULL;
}

size_t amddwarf_cfi_fde_count(const amddwarf_cfi *cfi)
{
  return cfi->fde_count;
}

const amddwarf_cfi_fde *amddwarf__cfi_fde(const amddwarf_cfi *ccfi, size_t index)
{
  amddwarf_cfi *cfi = (amddwarf_cfi *)(uintptr_t)ccfi;
  if (atomic_load_explicit(&cfi->fde_ready[index], memory_order_acquire) == FDE_READY)
    return &cfi->fdes[index];
  /* Parsed without a lock (it reads only what the open made), so that
     threads asking for different FDEs never wait on each other. The first
     thread to claim the slot (FDE_WRITING) publishes its copy; another
     that parsed the same FDE at the same time waits for that copy, which
     is a struct assignment away. */
  amddwarf_cfi_fde parsed;
  memset(&parsed, 0, sizeof parsed);
  amddwarf_reader r;
  amddwarf_reader_init(&r, cfi->options.data, cfi->options.size);
  r.big_endian = cfi->options.big_endian;
  r.pos = (size_t)cfi->fde_offsets[index];
  raw_fde raw;
  bool is_cie = false;
  bool eh = cfi->options.kind == AMDDWARF_CFI_EH_FRAME;
  /* Framed, its CIE found and parsed at open: none of this fails now. */
  if (read_entry(cfi, &r, eh, &raw, &is_cie, NULL) == AMDDWARF_OK) {
    const amddwarf_cfi_cie *cie = find_cie(cfi, raw.cie_offset);
    if (cie != NULL)
      (void)parse_fde(cfi, &raw, cie, &parsed, NULL);
  }
  unsigned char unparsed = FDE_UNPARSED;
  if (atomic_compare_exchange_strong_explicit(&cfi->fde_ready[index], &unparsed, FDE_WRITING,
                                              memory_order_acquire, memory_order_acquire)) {
    cfi->fdes[index] = parsed;
    atomic_store_explicit(&cfi->fde_ready[index], FDE_READY, memory_order_release);
  } else {
    while (atomic_load_explicit(&cfi->fde_ready[index], memory_order_acquire) != FDE_READY)
      sched_yield();
  }
  return &cfi->fdes[index];
}

const amddwarf_cfi_fde *amddwarf_cfi_fde_at(const amddwarf_cfi *cfi, size_t index)
{
  return index < cfi->fde_count ? amddwarf__cfi_fde(cfi, index) : NULL;
}

/* Number of elements of V[0..N) that are <= KEY (V sorted). Branch-free
   halving (the comparison becomes a conditional move), since look-ups at
   unrelated PCs make the branches of a plain binary search unpredictable. */
static size_t upper_bound(const uint64_t *v, size_t n, uint64_t key)
{
  if (n == 0)
    return 0;
  const uint64_t *base = v;
  while (n > 1) {
    size_t half = n / 2;
    base = base[half] <= key ? base + half : base;
    n -= half;
  }
  return (size_t)(base - v) + (*base <= key);
}

size_t amddwarf__cfi_index_find(const amddwarf_cfi *cfi, uint64_t pc)
{
  if (!cfi->starts)
    return SIZE_MAX;
  /* The block whose first start is the last one <= PC, then within it. */
  size_t block = upper_bound(cfi->top, cfi->top_count, pc);
  if (block == 0)
    return SIZE_MAX;
  size_t first = (block - 1) * AMDDWARF_CFI_INDEX_BLOCK;
  size_t len = cfi->index_count - first;
  if (len > AMDDWARF_CFI_INDEX_BLOCK)
    len = AMDDWARF_CFI_INDEX_BLOCK;
  size_t lo = first + upper_bound(cfi->starts + first, len, pc);
  /* Overlapping FDEs are rare; look back a little past ones that end early. */
  for (size_t i = lo, steps = 0; i > 0 && steps < 4; i--, steps++)
    if (pc < cfi->index[i - 1].end)
      return i - 1;
  return SIZE_MAX;
}

amddwarf_status amddwarf_cfi_find_fde(const amddwarf_cfi *cfi, uint64_t pc,
                                      const amddwarf_cfi_fde **out)
{
  size_t i = amddwarf__cfi_index_find(cfi, pc);
  if (i == SIZE_MAX)
    return AMDDWARF_NOT_FOUND;
  *out = amddwarf__cfi_fde(cfi, cfi->index[i].fde);
  return AMDDWARF_OK;
}
