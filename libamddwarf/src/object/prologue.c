/* The prologue analyzer (prologue.h).
 *
 * The AMDGPU calling convention (AMDGPUUsage, "Call Convention" and "Frame
 * Layout") says where a callee finds its caller's state: the return address
 * in s[30:31], the stack pointer s32 and frame pointer s33 as wave-scaled
 * byte offsets into private_wave, s0-s29 and most VGPRs caller-saved,
 * s30-s105 (but s32) and v40-47, v56-63, ... callee-saved. A function
 * that changes a callee-saved register first copies it away: the FP into
 * another SGPR or through a VGPR into scratch, s30/s31 and other SGPRs into
 * lanes of a VGPR with v_writelane_b32, VGPRs into scratch with
 * buffer_store_dword (under an all-lanes EXEC for the whole register).
 *
 * One pass over the function in address order follows where each of the
 * caller's values lives ("its home"), and after every instruction that moves
 * one writes the call frame instructions ROCm's compiler writes for the same
 * code (llvm/test/CodeGen/AMDGPU/debug-frame.ll): DW_CFA_LLVM_def_aspace_cfa
 * SGPR32 0 private_wave, DW_CFA_expression PC_64 as a register pair or
 * VGPR lanes, DW_CFA_register / lane expressions / DW_CFA_offset for the
 * FP, DW_CFA_offset for whole VGPRs, DW_CFA_undefined for every caller-saved
 * register the function or its callees may write. One rule more than ROCm
 * writes: SGPR32 is DW_CFA_val_offset 0 (the caller's SP is the CFA), which
 * ROCm leaves implied.
 *
 * An instruction that overwrites the only copy of a caller's value, a stack
 * pointer the CFA depends on that moves by an unknown amount, code that
 * does not decode or that follows the return: the analysis stops there with
 * E_CFI_PROLOGUE, naming the instruction and its address. */
#include "object/prologue.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/reader.h"

enum {
  SGPRS = 106,
  VGPRS = 256,
  MAX_OPERANDS = 8,
  OPERAND_CHARS = 40,
  /* DWARF numbers (amdgpu-usage.txt, "Register Mapping"). */
  DW_PC_64 = 16,
  DW_EXEC_32 = 1,
  DW_EXEC_64 = 17,
  DW_ASPACE_PRIVATE_WAVE = 6,
  SP = 32,
  FP = 33,
  RA_LO = 30,
  RA_HI = 31,
};

/* DW_CFA and DW_OP codes written here. */
enum {
  CFA_advance_loc4 = 0x04,
  CFA_offset_extended_sf = 0x11,
  CFA_undefined = 0x07,
  CFA_same_value = 0x08,
  CFA_register = 0x09,
  CFA_def_cfa_register = 0x0d,
  CFA_def_cfa_expression = 0x0f,
  CFA_expression = 0x10,
  CFA_val_offset = 0x14,
  CFA_LLVM_def_aspace_cfa = 0x30,
  CFA_LLVM_def_aspace_cfa_sf = 0x31,
  OP_lit0 = 0x30,
  OP_lit6 = 0x36,
  OP_regx = 0x90,
  OP_piece = 0x93,
  OP_bit_piece = 0x9d,
  OP_swap = 0x16,
  OP_deref_size = 0x94,
  OP_LLVM_user = 0xe9,
  LLVM_form_aspace_address = 0x02,
  LLVM_offset_uconst = 0x05,
  LLVM_call_frame_entry_reg = 0x07,
  LLVM_undefined = 0x08,
  LLVM_select_bit_piece = 0x0c,
};

/* ---- decoded operands ---- */

typedef enum reg_class { REG_NONE, REG_SGPR, REG_VGPR, REG_AGPR, REG_EXEC, REG_OTHER } reg_class;

typedef struct reg_ref {
  reg_class cls;
  unsigned first, count;
} reg_ref;

typedef struct insn {
  char mnemonic[48];
  char ops[MAX_OPERANDS][OPERAND_CHARS];
  int op_count;
} insn;

/* Splits TEXT into its mnemonic and operands (commas and blanks separate;
   "offset:20" and "glc" are operands too). */
static void split(const char *text, insn *out)
{
  memset(out, 0, sizeof *out);
  int field = -1;
  size_t len = 0;
  for (const char *c = text;; c++) {
    bool sep = *c == '\0' || *c == ' ' || *c == ',' || *c == '\t';
    if (!sep) {
      if (len == 0) {
        field++;
        if (field > MAX_OPERANDS)
          return;
      }
      char *dst = field == 0 ? out->mnemonic : out->ops[field - 1];
      size_t cap = field == 0 ? sizeof out->mnemonic : OPERAND_CHARS;
      if (len + 1 < cap)
        dst[len] = *c, dst[len + 1] = '\0';
      len++;
      continue;
    }
    len = 0;
    if (*c == '\0')
      break;
  }
  out->op_count = field < 1 ? 0 : field;
}

static bool parse_number(const char *s, unsigned *out, const char **end)
{
  if (*s < '0' || *s > '9')
    return false;
  unsigned long v = strtoul(s, (char **)end, 10);
  if (v > 4096)
    return false;
  *out = (unsigned)v;
  return true;
}

/* "s5", "s[4:5]", "v6", "v[2:3]", "a1", "exec", "vcc", ... */
static reg_ref parse_reg(const char *s)
{
  reg_ref r = {REG_NONE, 0, 0};
  if (strncmp(s, "exec", 4) == 0) {
    r.cls = REG_EXEC;
    return r;
  }
  static const char *const others[] = {"vcc", "m0", "scc", "flat_scratch", "ttmp", "xnack",
                                       "null", "tba", "tma", "src_"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    if (strncmp(s, others[i], strlen(others[i])) == 0) {
      r.cls = REG_OTHER;
      return r;
    }
  reg_class cls = s[0] == 's' ? REG_SGPR : s[0] == 'v' ? REG_VGPR : s[0] == 'a' ? REG_AGPR
                                                                                : REG_NONE;
  if (cls == REG_NONE)
    return r;
  const char *end = NULL;
  unsigned lo, hi;
  if (s[1] == '[') {
    if (!parse_number(s + 2, &lo, &end) || *end != ':' || !parse_number(end + 1, &hi, &end) ||
        *end != ']' || hi < lo)
      return r;
  } else {
    if (!parse_number(s + 1, &lo, &end) || *end != '\0')
      return r;
    hi = lo;
  }
  unsigned limit = cls == REG_SGPR ? SGPRS : VGPRS;
  if (hi >= limit)
    return r;
  r.cls = cls;
  r.first = lo;
  r.count = hi - lo + 1;
  return r;
}

static bool starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Instructions whose first operand is not written (stores, compares,
   control flow, waits). */
static const char *const no_destination[] = {
    "s_waitcnt",    "s_nop",        "s_branch",      "s_cbranch_",    "s_endpgm",
    "s_setpc_b64",  "s_cmp",        "s_bitcmp",      "s_barrier",     "s_sendmsg",
    "s_sleep",      "s_setprio",    "s_code_end",    "s_clause",      "s_delay_alu",
    "s_inst_prefetch", "s_set_inst_prefetch", "s_dcache_", "s_icache_", "s_trap",
    "s_ttrace",     "s_setreg",     "s_denorm_mode", "s_round_mode",  "s_setkill",
    "s_wait_",      "s_store_",     "s_buffer_store", "s_scratch_store", "buffer_store",
    "global_store", "flat_store",   "scratch_store", "ds_write",      "ds_store",
    "exp",          "buffer_wbinvl1", "buffer_gl",   "s_incperflevel", "s_decperflevel",
    "s_setvskip",   "v_cmpx_",      "s_set_gpr_idx", "v_nop",         "s_endpgm_saved",
};

/* Operand index of a second destination: the carry-out SGPRs of VOP3b. */
static bool writes_second(const char *m)
{
  return strstr(m, "_co_") != NULL || strstr(m, "_co_ci") != NULL ||
         starts_with(m, "v_mad_u64_u32") || starts_with(m, "v_mad_i64_i32") ||
         starts_with(m, "v_div_scale") || starts_with(m, "v_swap");
}

/* ---- where the caller's values are ---- */

typedef enum home_kind {
  HOME_SELF,          /* in its own register */
  HOME_SGPR,          /* copied into SGPR `reg` */
  HOME_LANE,          /* in lane `lane` of VGPR `reg` */
  HOME_MEMORY,        /* at CFA + offset in private_wave (every lane) */
  HOME_MEMORY_MASKED, /* at CFA + offset in the lanes of the caller's EXEC */
  HOME_MEMORY_INACTIVE, /* at CFA + offset in the lanes outside the caller's EXEC;
                           the others clobbered (a caller-saved VGPR) */
} home_kind;

/* What EXEC holds: the caller's, all lanes (s_or_saveexec -1) or the
   caller's inactive lanes (s_xor_saveexec -1). */
typedef enum exec_mode { EXEC_CALLER, EXEC_ALL, EXEC_INVERTED } exec_mode;

typedef struct home {
  home_kind kind;
  unsigned reg, lane;
  int64_t offset;
  /* A copy in every lane of VGPR uniform_copy - 1 (v_mov_b32 from the SGPR
     home), on its way to scratch; 0 for none. */
  unsigned uniform_copy;
} home;

typedef struct buffer {
  uint8_t *data;
  size_t capacity, len;
} buffer;

typedef struct analysis {
  const amddwarf__prologue_params *p;
  amddwarf_error *err;
  buffer out;
  home sgpr[SGPRS];
  home vgpr[VGPRS];
  bool sgpr_dirty[SGPRS], vgpr_dirty[VGPRS], pc_dirty, cfa_dirty;
  bool dirty;                    /* any of the above */
  bool clobbered_all;            /* a call, or an instruction whose writes are unknown */
  bool sgpr_written[SGPRS], vgpr_written[VGPRS], agpr_written[VGPRS];
  /* s32 - CFA and s33 - CFA in wave-scaled bytes, when known. */
  bool sp_known, fp_known;
  int64_t sp_delta, fp_delta;
  unsigned cfa_reg;              /* SP or FP */
  exec_mode exec;
  bool returned;
  uint64_t loc;                  /* address the emitted instructions have reached */
  /* The scalar values whose home is not their own register (those a write
     can lose), refreshed after every transition. */
  unsigned moved[SGPRS];
  unsigned moved_count;
  /* Each distinct instruction text parsed once (decoders share the text of
     repeated words): SLOTS maps the text pointer to an entry of DECODED. */
  struct decoded *decoded;
  size_t decoded_count, decoded_capacity;
  uint32_t *slots;
  size_t slot_count;
} analysis;

static void put(buffer *b, uint8_t byte)
{
  if (b->len < b->capacity)
    b->data[b->len] = byte;
  b->len++;
}

static void put_uleb(buffer *b, uint64_t v)
{
  uint8_t tmp[16];
  size_t n = amddwarf__encode_uleb(v, tmp);
  for (size_t i = 0; i < n; i++)
    put(b, tmp[i]);
}

static void put_sleb(buffer *b, int64_t v)
{
  uint8_t tmp[16];
  size_t n = amddwarf__encode_sleb(v, tmp);
  for (size_t i = 0; i < n; i++)
    put(b, tmp[i]);
}

static uint32_t sgpr_dwarf(unsigned n)
{
  return n < 64 ? 32 + n : 1088 + (n - 64);
}

static uint32_t vgpr_dwarf(const analysis *a, unsigned n)
{
  return (a->p->wave_size == 32 ? 1536 : 2560) + n;
}

static uint32_t agpr_dwarf(const analysis *a, unsigned n)
{
  return (a->p->wave_size == 32 ? 2048 : 3072) + n;
}

/* Callee-saved VGPRs/AGPRs: 40-47, 56-63, ..., 248-255 (AGPRs: 32-255). */
static bool vgpr_callee_saved(unsigned n)
{
  return n >= 40 && (n - 40) % 16 < 8;
}

static bool sgpr_callee_saved(unsigned n)
{
  return n >= 30 && n != SP;
}

static amddwarf_status stop(analysis *a, const amddwarf__prologue_insn *at, const char *why,
                            unsigned reg_index, char reg_prefix)
{
  char reg[16] = "";
  if (reg_prefix)
    snprintf(reg, sizeof reg, "%c%u", reg_prefix, reg_index);
  return amddwarf__fail(a->err, AMDDWARF_E_CFI_PROLOGUE, AMDDWARF_NO_OFFSET,
                       "prologue analysis of the function at 0x%" PRIx64
                       ": instruction at 0x%" PRIx64 " `%s`: %s%s%s",
                       a->p->start, at->address, at->text, why, reg[0] ? " " : "", reg);
}

/* ---- rules ---- */

/* DW_OP pieces that read the 32-bit value at H (for a scalar's rule). */
static bool put_scalar_piece(analysis *a, unsigned self, const home *h, bool as_piece)
{
  buffer *b = &a->out;
  switch (h->kind) {
  case HOME_SELF:
  case HOME_SGPR:
    put(b, OP_regx);
    put_uleb(b, sgpr_dwarf(h->kind == HOME_SELF ? self : h->reg));
    if (as_piece) {
      put(b, OP_piece);
      put_uleb(b, 4);
    }
    return true;
  case HOME_LANE:
    put(b, OP_regx);
    put_uleb(b, vgpr_dwarf(a, h->reg));
    if (as_piece) {
      put(b, OP_bit_piece);
      put_uleb(b, 32);
      put_uleb(b, 32u * h->lane);
    } else {
      put(b, OP_LLVM_user);
      put(b, LLVM_offset_uconst);
      put_uleb(b, 4u * h->lane);
    }
    return true;
  default:
    return false;
  }
}

/* Writes an expression block: its length is not known until written, so
   it goes to a scratch buffer first. */
typedef struct block_mark {
  size_t start;
} block_mark;

static block_mark block_begin(analysis *a)
{
  block_mark m = {a->out.len};
  put(&a->out, 0); /* length, patched (expressions stay below 128 bytes) */
  return m;
}

static void block_end(analysis *a, block_mark m)
{
  size_t n = a->out.len - m.start - 1;
  if (m.start < a->out.capacity)
    a->out.data[m.start] = (uint8_t)n;
}

static void rule_pc(analysis *a, const amddwarf__prologue_insn *at, amddwarf_status *st)
{
  const home *lo = &a->sgpr[RA_LO], *hi = &a->sgpr[RA_HI];
  put(&a->out, CFA_expression);
  put_uleb(&a->out, DW_PC_64);
  block_mark m = block_begin(a);
  if (!put_scalar_piece(a, RA_LO, lo, true) || !put_scalar_piece(a, RA_HI, hi, true))
    *st = stop(a, at, "the return address moves to memory, which the analyzer does not follow",
               0, 0);
  block_end(a, m);
}

static uint32_t clobber_rule(const analysis *a, bool written)
{
  return a->clobbered_all || written ? CFA_undefined : CFA_same_value;
}

static void rule_sgpr(analysis *a, unsigned n, const amddwarf__prologue_insn *at,
                      amddwarf_status *st)
{
  const home *h = &a->sgpr[n];
  buffer *b = &a->out;
  uint32_t reg = sgpr_dwarf(n);
  switch (h->kind) {
  case HOME_SELF:
    put(b, n < RA_LO ? (uint8_t)clobber_rule(a, a->sgpr_written[n]) : CFA_same_value);
    put_uleb(b, reg);
    return;
  case HOME_SGPR:
    put(b, CFA_register);
    put_uleb(b, reg);
    put_uleb(b, sgpr_dwarf(h->reg));
    return;
  case HOME_LANE: {
    put(b, CFA_expression);
    put_uleb(b, reg);
    block_mark m = block_begin(a);
    put_scalar_piece(a, n, h, false);
    block_end(a, m);
    return;
  }
  case HOME_MEMORY:
    put(b, CFA_offset_extended_sf);
    put_uleb(b, reg);
    put_sleb(b, h->offset / a->p->data_alignment);
    return;
  default:
    *st = stop(a, at, "no rule describes where this instruction leaves the caller's", n, 's');
    return;
  }
}

static void rule_vgpr(analysis *a, unsigned n)
{
  const home *h = &a->vgpr[n];
  buffer *b = &a->out;
  uint32_t reg = vgpr_dwarf(a, n);
  if (h->kind == HOME_SELF) {
    put(b, vgpr_callee_saved(n) ? CFA_same_value
                                : (uint8_t)clobber_rule(a, a->vgpr_written[n]));
    put_uleb(b, reg);
  } else if (h->kind == HOME_MEMORY) {
    put(b, CFA_offset_extended_sf);
    put_uleb(b, reg);
    put_sleb(b, h->offset / a->p->data_alignment);
  } else {
    /* HOME_MEMORY_MASKED: spilled in the lanes of the caller's EXEC, the
       others kept their value (ROCm's .cfi_llvm_vector_offset): a
       composite selecting by the entry EXEC between the register (bit
       clear) and memory (bit set). HOME_MEMORY_INACTIVE: memory where
       the bit is clear, undefined where it is set. */
    bool w32 = a->p->wave_size == 32;
    bool inactive = h->kind == HOME_MEMORY_INACTIVE;
    put(b, CFA_expression);
    put_uleb(b, reg);
    block_mark m = block_begin(a);
    if (!inactive) {
      put(b, OP_regx);
      put_uleb(b, reg);
      put(b, OP_swap);
    }
    put(b, OP_LLVM_user);
    put(b, LLVM_offset_uconst);
    put_uleb(b, (uint64_t)h->offset);
    if (inactive) {
      put(b, OP_LLVM_user);
      put(b, LLVM_undefined);
    }
    put(b, OP_LLVM_user);
    put(b, LLVM_call_frame_entry_reg);
    put_uleb(b, w32 ? DW_EXEC_32 : DW_EXEC_64);
    put(b, OP_deref_size);
    put(b, w32 ? 4 : 8);
    put(b, OP_LLVM_user);
    put(b, LLVM_select_bit_piece);
    put_uleb(b, 32);
    put_uleb(b, a->p->wave_size);
    block_end(a, m);
  }
}

static void rule_cfa(analysis *a)
{
  int64_t delta = a->cfa_reg == FP ? a->fp_delta : a->sp_delta;
  /* The CFA is the pointer minus how far it moved since the entry. */
  if (delta <= 0) {
    put(&a->out, CFA_LLVM_def_aspace_cfa);
    put_uleb(&a->out, sgpr_dwarf(a->cfa_reg));
    put_uleb(&a->out, (uint64_t)-delta);
  } else {
    put(&a->out, CFA_LLVM_def_aspace_cfa_sf);
    put_uleb(&a->out, sgpr_dwarf(a->cfa_reg));
    put_sleb(&a->out, -delta / a->p->data_alignment);
  }
  put_uleb(&a->out, DW_ASPACE_PRIVATE_WAVE);
}

/* Rows from the address after AT: the rules of what changed. */
static amddwarf_status flush(analysis *a, const amddwarf__prologue_insn *at)
{
  amddwarf_status st = AMDDWARF_OK;
  if (!a->dirty && !a->cfa_dirty)
    return AMDDWARF_OK;
  uint64_t next = at->address + at->size;
  if (next > a->loc) {
    put(&a->out, CFA_advance_loc4);
    uint64_t delta = (next - a->loc) / a->p->code_alignment;
    for (int i = 0; i < 4; i++)
      put(&a->out, (uint8_t)(delta >> (8 * i)));
    a->loc = next;
  }
  if (a->cfa_dirty)
    rule_cfa(a);
  if (a->pc_dirty)
    rule_pc(a, at, &st);
  for (unsigned i = 0; i < SGPRS; i++)
    if (a->sgpr_dirty[i] && i != RA_LO && i != RA_HI)
      rule_sgpr(a, i, at, &st);
  for (unsigned i = 0; i < VGPRS; i++)
    if (a->vgpr_dirty[i])
      rule_vgpr(a, i);
  a->pc_dirty = a->cfa_dirty = a->dirty = false;
  memset(a->sgpr_dirty, 0, sizeof a->sgpr_dirty);
  memset(a->vgpr_dirty, 0, sizeof a->vgpr_dirty);
  return st;
}

static void mark_vgpr(analysis *a, unsigned n)
{
  a->vgpr_dirty[n] = a->dirty = true;
}

static void mark_sgpr(analysis *a, unsigned n)
{
  a->dirty = true;
  if (n == RA_LO || n == RA_HI)
    a->pc_dirty = true;
  else
    a->sgpr_dirty[n] = true;
}

/* ---- what an instruction writes ---- */

typedef struct writes {
  reg_ref regs[2];
  int count;
  bool exec;
  bool call;
  bool unknown;
} writes;

static void written_by(const insn *in, writes *w)
{
  memset(w, 0, sizeof *w);
  const char *m = in->mnemonic;
  for (size_t i = 0; i < sizeof no_destination / sizeof no_destination[0]; i++)
    if (starts_with(m, no_destination[i])) {
      w->exec = starts_with(m, "v_cmpx_");
      return;
    }
  w->call = starts_with(m, "s_swappc") || starts_with(m, "s_call");
  w->exec = strstr(m, "saveexec") != NULL || strstr(m, "wrexec") != NULL;
  for (int i = 0; i < in->op_count && i < 2; i++) {
    if (i == 1 && !writes_second(m))
      break;
    reg_ref r = parse_reg(in->ops[i]);
    if (r.cls == REG_EXEC)
      w->exec = true;
    else if (r.cls == REG_SGPR || r.cls == REG_VGPR || r.cls == REG_AGPR)
      w->regs[w->count++] = r;
    else if (i == 0 && r.cls == REG_NONE && in->ops[i][0] != '\0' && m[0] != 's' &&
             m[0] != 'v')
      w->unknown = true;
  }
}

/* What the transitions look for, found once per distinct instruction. */
typedef enum insn_kind {
  KIND_OTHER, KIND_RETURN, KIND_PADDING, KIND_WRITELANE, KIND_READLANE, KIND_SMOV, KIND_VMOV,
  KIND_STORE, KIND_LOAD,
} insn_kind;

typedef struct decoded {
  const char *text;
  insn in;
  writes w;
  insn_kind kind;
  reg_ref dst, src;    /* the first two operands as registers */
} decoded;

static insn_kind kind_of(const char *m)
{
  static const struct {
    const char *mnemonic;
    insn_kind kind;
  } kinds[] = {
      {"s_setpc_b64", KIND_RETURN},          {"s_nop", KIND_PADDING},
      {"s_code_end", KIND_PADDING},          {"v_writelane_b32", KIND_WRITELANE},
      {"v_readlane_b32", KIND_READLANE},     {"s_mov_b32", KIND_SMOV},
      {"v_mov_b32_e32", KIND_VMOV},          {"buffer_store_dword", KIND_STORE},
      {"buffer_load_dword", KIND_LOAD},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(m, kinds[i].mnemonic) == 0)
      return kinds[i].kind;
  return KIND_OTHER;
}

/* The parse of TEXT, made on first sight. NULL when out of memory. */
static const decoded *decode(analysis *a, const char *text)
{
  size_t mask = a->slot_count - 1;
  size_t h = ((uintptr_t)text >> 3) * 0x9e3779b97f4a7c15u >> 7;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    uint32_t k = a->slots[i];
    if (k == 0)
      break;
    if (a->decoded[k - 1].text == text)
      return &a->decoded[k - 1];
    h = i;
  }
  if (a->decoded_count == a->decoded_capacity) {
    size_t cap = a->decoded_capacity ? 2 * a->decoded_capacity : 64;
    decoded *grown = realloc(a->decoded, cap * sizeof *grown);
    if (grown == NULL)
      return NULL;
    a->decoded = grown;
    a->decoded_capacity = cap;
  }
  decoded *d = &a->decoded[a->decoded_count++];
  d->text = text;
  split(text, &d->in);
  written_by(&d->in, &d->w);
  d->kind = kind_of(d->in.mnemonic);
  d->dst = parse_reg(d->in.ops[0]);
  d->src = parse_reg(d->in.ops[1]);
  for (size_t i = h & mask;; i = (i + 1) & mask)
    if (a->slots[i] == 0) {
      a->slots[i] = (uint32_t)a->decoded_count;
      break;
    }
  return d;
}

/* The pre-pass: which caller-saved registers the function may write. */
static amddwarf_status scan_writes(analysis *a, const amddwarf__prologue_insn *insns,
                                   size_t count)
{
  for (size_t i = 0; i < count; i++) {
    if (insns[i].text[0] == '\0')
      return stop(a, &insns[i], "the bytes do not decode as an instruction", 0, 0);
    const decoded *d = decode(a, insns[i].text);
    if (d == NULL)
      return amddwarf__fail(a->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET,
                           "prologue analysis");
    const writes *w = &d->w;
    a->clobbered_all |= w->call || w->unknown;
    for (int k = 0; k < w->count; k++) {
      bool *set = w->regs[k].cls == REG_SGPR   ? a->sgpr_written
                  : w->regs[k].cls == REG_VGPR ? a->vgpr_written
                                               : a->agpr_written;
      for (unsigned r = 0; r < w->regs[k].count; r++)
        set[w->regs[k].first + r] = true;
    }
  }
  return AMDDWARF_OK;
}

/* ---- the transitions ---- */

static bool imm32(const char *s, int64_t *out)
{
  char *end = NULL;
  long long v = strtoll(s, &end, 0);
  if (end == s || *end != '\0')
    return false;
  *out = (int32_t)(uint32_t)(unsigned long long)v;
  return true;
}

/* The caller's scalar values whose home is SGPR S (or S itself). */
static void for_values_in_sgpr(analysis *a, unsigned s, home to)
{
  for (unsigned n = RA_LO; n < SGPRS; n++) {
    home *h = &a->sgpr[n];
    bool here = (h->kind == HOME_SELF && n == s && sgpr_callee_saved(n)) ||
                (h->kind == HOME_SGPR && h->reg == s);
    if (!here)
      continue;
    *h = (to.kind == HOME_SGPR && to.reg == n) ? (home){HOME_SELF, 0, 0, 0, 0} : to;
    mark_sgpr(a, n);
  }
}

/* s33 is about to change while the CFA is based on it. */
static amddwarf_status leave_fp(analysis *a, const amddwarf__prologue_insn *at)
{
  a->fp_known = false;
  if (a->cfa_reg != FP)
    return AMDDWARF_OK;
  if (!a->sp_known)
    return stop(a, at, "the CFA was based on s33, which changes while s32's offset from the "
                       "CFA is unknown", 0, 0);
  a->cfa_reg = SP;
  a->cfa_dirty = true;
  return AMDDWARF_OK;
}

/* Frame setup and teardown through s32/s33; true when AT was one. */
static bool stack_step(analysis *a, const insn *in, reg_ref d, amddwarf_status *st,
                       const amddwarf__prologue_insn *at)
{
  const char *m = in->mnemonic;
  if (d.cls != REG_SGPR || d.count != 1 || (d.first != SP && d.first != FP))
    return false;
  int64_t imm;
  if (d.first == SP) {
    bool addk = strcmp(m, "s_addk_i32") == 0 && in->op_count == 2;
    bool add3 = (strcmp(m, "s_add_i32") == 0 || strcmp(m, "s_add_u32") == 0 ||
                 strcmp(m, "s_sub_i32") == 0 || strcmp(m, "s_sub_u32") == 0) &&
                in->op_count == 3 && strcmp(in->ops[1], "s32") == 0;
    if ((addk && imm32(in->ops[1], &imm)) || (add3 && imm32(in->ops[2], &imm))) {
      if (addk)
        imm = (int16_t)(uint16_t)(uint32_t)imm;
      if (strstr(m, "sub"))
        imm = -imm;
      a->sp_delta += imm;
      a->cfa_dirty |= a->cfa_reg == SP;
      return true;
    }
    if (strcmp(m, "s_mov_b32") == 0 && strcmp(in->ops[1], "s33") == 0 && a->fp_known) {
      a->sp_delta = a->fp_delta;
      a->sp_known = true;
      a->cfa_dirty |= a->cfa_reg == SP;
      return true;
    }
    if (a->cfa_reg == SP)
      *st = stop(a, at, "moves the stack pointer the CFA is based on by an unknown amount, "
                        "before a frame pointer is set up", 0, 0);
    a->sp_known = false;
    return true;
  }
  /* s33: the FP becomes the SP, or is restored from its copy. */
  if (a->sgpr[FP].kind == HOME_SELF)
    return false; /* the caller's FP is lost: the generic check says so */
  if (strcmp(m, "s_mov_b32") == 0 && strcmp(in->ops[1], "s32") == 0 && a->sp_known) {
    a->fp_delta = a->sp_delta;
    a->fp_known = true;
    a->cfa_reg = FP;
    a->cfa_dirty = true;
    return true;
  }
  *st = leave_fp(a, at);
  return false;
}

static amddwarf_status check_lost(analysis *a, const amddwarf__prologue_insn *at,
                                  const writes *w, int skip_lane_vgpr, unsigned skip_lane)
{
  for (int k = 0; k < w->count; k++) {
    reg_ref r = w->regs[k];
    for (unsigned i = r.first; i < r.first + r.count; i++) {
      if (r.cls == REG_SGPR) {
        if (sgpr_callee_saved(i) && a->sgpr[i].kind == HOME_SELF)
          return stop(a, at, "overwrites the caller's", i, 's');
        for (unsigned m = 0; m < a->moved_count; m++) {
          unsigned n = a->moved[m];
          if ((a->sgpr[n].kind == HOME_SGPR) && a->sgpr[n].reg == i)
            return stop(a, at, "overwrites the copy of the caller's callee-saved register in",
                        i, 's');
        }
      } else if (r.cls == REG_VGPR) {
        if (vgpr_callee_saved(i) && a->vgpr[i].kind == HOME_SELF)
          return stop(a, at, "overwrites the caller's", i, 'v');
        for (unsigned m = 0; m < a->moved_count; m++) {
          unsigned n = a->moved[m];
          const home *h = &a->sgpr[n];
          if (h->uniform_copy == i + 1)
            a->sgpr[n].uniform_copy = 0; /* the copy is gone; the home stays */
          if (h->kind == HOME_LANE && h->reg == i &&
              !((int)i == skip_lane_vgpr && h->kind == HOME_LANE && h->lane != skip_lane))
            return stop(a, at, "overwrites the lanes that hold the caller's registers in", i,
                        'v');
        }
      } else if (r.cls == REG_AGPR && i >= 32) {
        return stop(a, at, "writes a callee-saved AGPR, which the analyzer does not follow", i,
                    'a');
      }
    }
  }
  return AMDDWARF_OK;
}

/* buffer_store_dword / buffer_load_dword VDATA, off, s[0:3], sR [offset:X]:
   the wave-scaled offset from the CFA, when sR is s32 or s33 and known. */
static bool scratch_slot(const analysis *a, const insn *in, int64_t *offset)
{
  if (in->op_count < 4 || strcmp(in->ops[1], "off") != 0)
    return false;
  reg_ref base = parse_reg(in->ops[3]);
  if (base.cls != REG_SGPR || base.count != 1)
    return false;
  int64_t delta;
  if (base.first == SP && a->sp_known)
    delta = a->sp_delta;
  else if (base.first == FP && a->fp_known)
    delta = a->fp_delta;
  else
    return false;
  int64_t imm = 0;
  for (int i = 4; i < in->op_count; i++) {
    if (strncmp(in->ops[i], "offset:", 7) == 0) {
      if (!imm32(in->ops[i] + 7, &imm))
        return false;
    } else {
      return false; /* idxen, offen, glc, ...: not a spill slot */
    }
  }
  *offset = delta + imm * (int64_t)a->p->wave_size;
  return true;
}

static void refresh_moved(analysis *a)
{
  a->moved_count = 0;
  for (unsigned n = RA_LO; n < SGPRS; n++)
    if (a->sgpr[n].kind != HOME_SELF)
      a->moved[a->moved_count++] = n;
}

static amddwarf_status transition(analysis *a, const amddwarf__prologue_insn *at,
                                  const decoded *dec);

static amddwarf_status step(analysis *a, const amddwarf__prologue_insn *at)
{
  const decoded *dec = decode(a, at->text);
  if (dec == NULL)
    return amddwarf__fail(a->err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "prologue analysis");
  amddwarf_status st = transition(a, at, dec);
  /* Only the transitions of these kinds move a value's home. */
  if (dec->kind != KIND_OTHER)
    refresh_moved(a);
  return st;
}

static amddwarf_status transition(analysis *a, const amddwarf__prologue_insn *at,
                                  const decoded *dec)
{
  const insn *in = &dec->in;
  const char *m = in->mnemonic;
  if (a->returned) {
    if (dec->kind == KIND_PADDING)
      return AMDDWARF_OK;
    return stop(a, at, "code after the return: the analyzer follows one epilogue at the end "
                       "of the function", 0, 0);
  }
  const writes w = dec->w;
  amddwarf_status st = AMDDWARF_OK;
  reg_ref d = dec->dst, s = dec->src;
  int64_t slot;

  if (dec->kind == KIND_RETURN) {
    a->returned = true;
    return AMDDWARF_OK;
  }
  if (w.exec) {
    /* Any other write to EXEC (divergent control flow) leaves the lanes of
       the caller's EXEC or fewer, never ones it lacks. */
    bool minus_one = in->op_count > 0 && strcmp(in->ops[in->op_count - 1], "-1") == 0;
    a->exec = minus_one && starts_with(m, "s_or_saveexec_b")    ? EXEC_ALL
              : minus_one && starts_with(m, "s_xor_saveexec_b") ? EXEC_INVERTED
                                                                : EXEC_CALLER;
  }
  if (dec->kind == KIND_WRITELANE && d.cls == REG_VGPR && s.cls == REG_SGPR &&
      in->op_count == 3) {
    int64_t lane;
    if (!imm32(in->ops[2], &lane) || lane < 0 || lane >= (int64_t)a->p->wave_size)
      return stop(a, at, "a lane the analyzer cannot read", 0, 0);
    if ((st = check_lost(a, at, &w, (int)d.first, (unsigned)lane)) != AMDDWARF_OK)
      return st;
    for_values_in_sgpr(a, s.first, (home){HOME_LANE, d.first, (unsigned)lane, 0, 0});
    return AMDDWARF_OK;
  }
  if (dec->kind == KIND_READLANE && d.cls == REG_SGPR && s.cls == REG_VGPR &&
      in->op_count == 3) {
    int64_t lane;
    if (!imm32(in->ops[2], &lane))
      return stop(a, at, "a lane the analyzer cannot read", 0, 0);
    /* A value restored into its own register is home again. */
    for (unsigned n = RA_LO; n < SGPRS; n++) {
      home *h = &a->sgpr[n];
      if (h->kind == HOME_LANE && h->reg == s.first && h->lane == (unsigned)lane) {
        *h = n == d.first ? (home){HOME_SELF, 0, 0, 0, 0} : (home){HOME_SGPR, d.first, 0, 0, 0};
        mark_sgpr(a, n);
        if (n == FP && n == d.first && (st = leave_fp(a, at)) != AMDDWARF_OK)
          return st;
        return AMDDWARF_OK;
      }
    }
  }
  if (dec->kind == KIND_SMOV && d.cls == REG_SGPR && s.cls == REG_SGPR) {
    /* The FP restored from its copy: the CFA goes back to s32 first. */
    if (d.first == FP && a->sgpr[FP].kind == HOME_SGPR && a->sgpr[FP].reg == s.first) {
      if ((st = leave_fp(a, at)) != AMDDWARF_OK)
        return st;
      a->sgpr[FP] = (home){HOME_SELF, 0, 0, 0, 0};
      mark_sgpr(a, FP);
      return AMDDWARF_OK;
    }
    if (d.first != SP && d.first != FP) {
      if ((st = check_lost(a, at, &w, -1, 0)) != AMDDWARF_OK)
        return st;
      for_values_in_sgpr(a, s.first, (home){HOME_SGPR, d.first, 0, 0, 0});
      return AMDDWARF_OK;
    }
  }
  if (dec->kind == KIND_VMOV && d.cls == REG_VGPR && s.cls == REG_SGPR) {
    if ((st = check_lost(a, at, &w, -1, 0)) != AMDDWARF_OK)
      return st;
    for (unsigned n = RA_LO; n < SGPRS; n++) {
      home *h = &a->sgpr[n];
      if (h->uniform_copy == d.first + 1)
        h->uniform_copy = 0;
      if (h->kind == HOME_SGPR && h->reg == s.first)
        h->uniform_copy = d.first + 1;
    }
    return AMDDWARF_OK;
  }
  if (dec->kind == KIND_STORE && d.cls == REG_VGPR && d.count == 1 &&
      scratch_slot(a, in, &slot)) {
    bool uniform_value = false;
    for (unsigned n = RA_LO; n < SGPRS; n++) {
      home *h = &a->sgpr[n];
      if (h->uniform_copy == d.first + 1) {
        if (a->exec != EXEC_ALL)
          return stop(a, at, "stores a copy of the caller's register without an all-lanes "
                             "EXEC, so lane 0's slot may not be written", n, 's');
        *h = (home){HOME_MEMORY, 0, 0, slot, 0};
        mark_sgpr(a, n);
        uniform_value = true;
      }
    }
    home *v = &a->vgpr[d.first];
    bool callee_saved = vgpr_callee_saved(d.first);
    home_kind kind = a->exec == EXEC_ALL                        ? HOME_MEMORY
                     : a->exec == EXEC_INVERTED && !callee_saved ? HOME_MEMORY_INACTIVE
                     : a->exec == EXEC_CALLER && callee_saved    ? HOME_MEMORY_MASKED
                                                                 : HOME_SELF;
    if (!uniform_value && v->kind == HOME_SELF && kind != HOME_SELF) {
      *v = (home){kind, 0, 0, slot, 0};
      mark_vgpr(a, d.first);
    }
    return AMDDWARF_OK;
  }
  if (dec->kind == KIND_LOAD && d.cls == REG_VGPR && d.count == 1 &&
      scratch_slot(a, in, &slot)) {
    home *v = &a->vgpr[d.first];
    if (v->kind != HOME_SELF && v->offset == slot) {
      *v = (home){HOME_SELF, 0, 0, 0, 0};
      mark_vgpr(a, d.first);
      return check_lost(a, at, &(writes){{{REG_NONE, 0, 0}}, 0, false, false, false}, -1, 0);
    }
  }
  bool handled = stack_step(a, in, d, &st, at);
  if (st != AMDDWARF_OK || handled)
    return st;
  return check_lost(a, at, &w, -1, 0);
}

amddwarf_status amddwarf__prologue_analyze(const amddwarf__prologue_params *p,
                                          const amddwarf__prologue_insn *insns, size_t count,
                                          uint8_t *buf, size_t capacity, size_t *size,
                                          amddwarf_error *err)
{
  analysis *a = calloc(1, sizeof *a);
  if (a == NULL)
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "prologue analysis");
  a->p = p;
  a->err = err;
  a->slot_count = 64;
  while (a->slot_count < 2 * count)
    a->slot_count *= 2;
  a->slots = calloc(a->slot_count, sizeof *a->slots);
  if (a->slots == NULL) {
    free(a);
    return amddwarf__fail(err, AMDDWARF_E_NO_MEMORY, AMDDWARF_NO_OFFSET, "prologue analysis");
  }
  a->out = (buffer){buf, capacity, 0};
  a->loc = p->start;
  amddwarf_status st = AMDDWARF_OK;
  if (p->kernel) {
    /* The outermost frame (ROCm: the kernel's CFA is address 0 in
       private_wave, its return address undefined). */
    put(&a->out, CFA_def_cfa_expression);
    put_uleb(&a->out, 4);
    put(&a->out, OP_lit0);
    put(&a->out, OP_lit6);
    put(&a->out, OP_LLVM_user);
    put(&a->out, LLVM_form_aspace_address);
    put(&a->out, CFA_undefined);
    put_uleb(&a->out, DW_PC_64);
    goto done;
  }
  if ((st = scan_writes(a, insns, count)) != AMDDWARF_OK)
    goto done;
  /* The entry row: CFA = s32 in private_wave, return address in s[30:31],
     the caller's SP is the CFA, every caller-saved register written here
     or in a callee undefined. */
  a->sp_known = true;
  a->cfa_reg = SP;
  rule_cfa(a);
  amddwarf__prologue_insn entry = {p->start, 0, ""};
  rule_pc(a, &entry, &st);
  put(&a->out, CFA_val_offset);
  put_uleb(&a->out, sgpr_dwarf(SP));
  put_uleb(&a->out, 0);
  for (unsigned n = 0; n < VGPRS; n++)
    if (!vgpr_callee_saved(n) && (a->clobbered_all || a->vgpr_written[n])) {
      put(&a->out, CFA_undefined);
      put_uleb(&a->out, vgpr_dwarf(a, n));
    }
  for (unsigned n = 0; p->has_agprs && n < 32; n++)
    if (a->clobbered_all || a->agpr_written[n]) {
      put(&a->out, CFA_undefined);
      put_uleb(&a->out, agpr_dwarf(a, n));
    }
  for (unsigned n = 0; n < RA_LO; n++)
    if (a->clobbered_all || a->sgpr_written[n]) {
      put(&a->out, CFA_undefined);
      put_uleb(&a->out, sgpr_dwarf(n));
    }
  for (size_t i = 0; i < count && st == AMDDWARF_OK; i++) {
    if (insns[i].address < p->start || insns[i].address >= p->end)
      continue;
    st = step(a, &insns[i]);
    if (st == AMDDWARF_OK)
      st = flush(a, &insns[i]);
  }
done:
  *size = a->out.len;
  free(a->slots);
  free(a->decoded);
  free(a);
  return st;
}
