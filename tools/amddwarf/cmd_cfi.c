/* amddwarf cfi: CIEs, FDEs, call frame instructions and row tables of an ELF
 * file's .debug_frame and .eh_frame, printed as llvm-dwarfdump-19
 * --debug-frame/--eh-frame prints them (AMDGPU address spaces shown as
 * "in addrspaceN"), or as JSON. */
#include "cli.h"
#include "json_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char cfi_help[] =
    "usage: amddwarf cfi OBJECT [--pc ADDR] [--debug-frame | --eh-frame]\n"
    "                    [--target amdgpu|amdgpu-wave32|x86-64] [--dialect NAME]\n"
    "                    [--synthesize] [--json]\n"
    "\n"
    "Prints the call frame information of the ELF file OBJECT: every CIE\n"
    "(version, augmentation, alignment factors, return-address column, initial\n"
    "instructions), every FDE (its CIE, PC range, instructions) and the rule\n"
    "table each FDE produces: one row per address range, with the CFA rule\n"
    "(register+offset, in an address space when DW_CFA_LLVM_def_aspace_cfa set\n"
    "one, or an expression) and the rule of every register an instruction set.\n"
    "Other registers keep the target's default rule (AMDGPU: same value).\n"
    "\n"
    "Rule spelling (as llvm-dwarfdump-19): [CFA+8] saved at CFA+8 (offset),\n"
    "CFA+8 value is CFA+8 (val_offset), [expr] saved where expr points\n"
    "(expression), expr value of expr (val_expression), REG in register REG,\n"
    "same, undefined.\n"
    "\n"
    "  --pc ADDR        only the FDE covering ADDR, and the row that holds there\n"
    "                   (none covers it: an error)\n"
    "  --debug-frame, --eh-frame   only these sections (default: both)\n"
    "  --target T       register names and defaults (default: from e_machine)\n"
    "  --dialect NAME   encoding of extension operations and DW_CFA 0x2f:\n"
    "                   auto (default), draft (0x2f = DW_CFA_LLVM_def_cfa_aspace),\n"
    "                   vendor, user\n"
    "  --synthesize     AMDGPU code objects: FDEs without instructions (clang's)\n"
    "                   get the rows the prologue analyzer synthesizes from the\n"
    "                   function's code (specs/cfi.md), marked (synthesized); a\n"
    "                   function it cannot prove is reported with the\n"
    "                   instruction and address where it stopped\n"
    "  --json           one JSON document (specs/json.md)\n"
    "\n"
    "Exit status: 0 ok, 1 malformed CFI (reported where it occurs) or no FDE\n"
    "covers --pc, 2 usage.\n"
    "Example: amddwarf cfi kernel.o --pc 0x1c\n";

typedef struct cfi_cli {
  bool json;
  bool have_pc;
  uint64_t pc;
  bool covered; /* with --pc: an FDE of some section covers it */
  int failures;
  amddwarf_cfi *cfi;
  const char *section;
  bool synthesize;          /* --synthesize: the object's CFI with its analyzer */
  amddwarf_object *object;  /* its owner then */
} cfi_cli;

static void report_inline(cfi_cli *c, json_t *into, amddwarf_status st,
                          const amddwarf_error *err)
{
  c->failures++;
  const char *message = err->message[0] ? err->message : amddwarf_status_message(st);
  if (into) {
    json_object_set_new(into, "error", cli_json_error(st, err));
  } else {
    printf("  error: %s (%s)\n", message, amddwarf_status_name(st));
  }
}

/* Prints or collects the instructions of BYTES; stops at the first error. */
static void instructions(cfi_cli *c, const amddwarf_cfi_cie *cie, const uint8_t *bytes,
                         uint64_t size, uint64_t offset, uint64_t loc, json_t *entry)
{
  json_t *list = entry ? json_array() : NULL;
  size_t pos = 0;
  char text[1024];
  for (;;) {
    amddwarf_cfa_insn insn;
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    amddwarf_status st =
        amddwarf_cfi_decode_insn(c->cfi, cie, bytes, (size_t)size, offset, &pos, &insn, &err);
    if (st == AMDDWARF_END)
      break;
    if (st != AMDDWARF_OK) {
      report_inline(c, entry, st, &err);
      break;
    }
    amddwarf_cfi_insn_print(c->cfi, cie, &insn, &loc, text, sizeof text);
    if (list) {
      json_t *i = json_object();
      json_object_set_new(i, "offset", cli_json_addr(insn.offset));
      json_object_set_new(i, "text", json_string(text));
      json_array_append_new(list, i);
    } else {
      printf("  %s\n", text);
    }
  }
  if (list)
    json_object_set_new(entry, "instructions", list);
}

static json_t *row_json(cfi_cli *c, const amddwarf_cfi_row *row)
{
  char text[16384], name[64], in_name[64];
  const amddwarf_cfi_target *target = amddwarf_cfi_get_target(c->cfi);
  json_t *r = json_object();
  json_object_set_new(r, "start", cli_json_addr(row->start));
  json_object_set_new(r, "end", cli_json_addr(row->end));
  amddwarf_cfi_row_print(c->cfi, row, text, sizeof text);
  json_object_set_new(r, "text", json_string(text));
  if (row->synthesized)
    json_object_set_new(r, "synthesized", json_true());
  json_t *cfa = json_object();
  static const char *const cfa_kinds[] = {"unspecified", "register_offset", "expression"};
  json_object_set_new(cfa, "kind", json_string(cfa_kinds[row->cfa.kind]));
  if (row->cfa.kind == AMDDWARF_CFA_RULE_REG_OFFSET) {
    amddwarf_cfi_register_name(target, row->cfa.reg, name, sizeof name);
    cli_json_set_register(cfa, "register", row->cfa.reg, name);
    json_object_set_new(cfa, "displacement", json_integer(row->cfa.offset));
    json_object_set_new(cfa, "address_space", cli_json_aspace(row->cfa.aspace));
  } else if (row->cfa.kind == AMDDWARF_CFA_RULE_EXPRESSION) {
    json_object_set_new(cfa, "expression", cli_json_hex(row->cfa.expr, (size_t)row->cfa.expr_size));
  }
  json_object_set_new(r, "cfa", cfa);
  json_t *rules = json_array();
  for (uint32_t i = 0; i < row->rule_count; i++) {
    const amddwarf_cfi_rule *rule = &row->rules[i];
    json_t *j = json_object();
    amddwarf_cfi_register_name(target, rule->column, name, sizeof name);
    cli_json_set_register(j, "register", rule->column, name);
    json_object_set_new(j, "rule", json_string(amddwarf_cfi_rule_kind_name(rule->kind)));
    if (rule->kind == AMDDWARF_CFI_RULE_OFFSET || rule->kind == AMDDWARF_CFI_RULE_VAL_OFFSET)
      json_object_set_new(j, "displacement", json_integer(rule->offset));
    if (rule->kind == AMDDWARF_CFI_RULE_REGISTER) {
      amddwarf_cfi_register_name(target, rule->reg, in_name, sizeof in_name);
      cli_json_set_register(j, "in_register", rule->reg, in_name);
    }
    if (rule->kind == AMDDWARF_CFI_RULE_EXPRESSION ||
        rule->kind == AMDDWARF_CFI_RULE_VAL_EXPRESSION)
      json_object_set_new(j, "expression", cli_json_hex(rule->expr, (size_t)rule->expr_size));
    json_array_append_new(rules, j);
  }
  json_object_set_new(r, "rules", rules);
  return r;
}

static void print_cie(cfi_cli *c, const amddwarf_cfi_cie *cie, json_t *list)
{
  bool eh = strcmp(c->section, ".eh_frame") == 0;
  uint64_t id = eh ? 0 : (cie->dwarf64 ? UINT64_MAX : 0xffffffffu);
  json_t *j = list ? json_object() : NULL;
  if (j) {
    json_object_set_new(j, "offset", cli_json_addr(cie->offset));
    json_object_set_new(j, "length", json_integer((json_int_t)cie->length));
    json_object_set_new(j, "format", json_string(cie->dwarf64 ? "DWARF64" : "DWARF32"));
    json_object_set_new(j, "version", json_integer(cie->version));
    json_object_set_new(j, "augmentation", json_string(cie->augmentation));
    if (cie->amd_augmentation) {
      char v[32];
      snprintf(v, sizeof v, "%u.%u", (unsigned)cie->amd_major, (unsigned)cie->amd_minor);
      json_object_set_new(j, "amd_version", json_string(v));
    }
    json_object_set_new(j, "address_size", json_integer(cie->address_size));
    json_object_set_new(j, "segment_selector_size", json_integer(cie->segment_selector_size));
    json_object_set_new(j, "code_alignment_factor",
                        json_integer((json_int_t)cie->code_alignment_factor));
    json_object_set_new(j, "data_alignment_factor", json_integer(cie->data_alignment_factor));
    json_object_set_new(j, "return_address_register",
                        json_integer((json_int_t)cie->return_address_register));
    json_array_append_new(list, j);
  } else {
    int w = cie->dwarf64 ? 16 : 8;
    printf("%08" PRIx64 " %0*" PRIx64 " %0*" PRIx64 " CIE\n", cie->offset, w, cie->length, w,
           id);
    printf("  Format:                %s\n", cie->dwarf64 ? "DWARF64" : "DWARF32");
    printf("  Version:               %u\n", cie->version);
    printf("  Augmentation:          \"%s\"\n", cie->augmentation);
    if (cie->amd_augmentation)
      printf("  AMDGPU extensions:     v%u.%u\n", (unsigned)cie->amd_major,
             (unsigned)cie->amd_minor);
    if (cie->version >= 4) {
      printf("  Address size:          %u\n", cie->address_size);
      printf("  Segment desc size:     %u\n", cie->segment_selector_size);
    }
    if (!cie->augmentation_known) {
      printf("  (unknown augmentation: the rest of this CIE cannot be read)\n\n");
      return;
    }
    printf("  Code alignment factor: %" PRIu64 "\n", cie->code_alignment_factor);
    printf("  Data alignment factor: %" PRId64 "\n", cie->data_alignment_factor);
    printf("  Return address column: %" PRIu64 "\n", cie->return_address_register);
    if (cie->personality_encoding != 0xff)
      printf("  Personality Address: %016" PRIx64 "\n", cie->personality);
    if (cie->augmentation_data_size) {
      printf("  Augmentation data:    ");
      for (uint64_t i = 0; i < cie->augmentation_data_size; i++)
        printf(" %02X", cie->augmentation_data[i]);
      printf("\n");
    }
    printf("\n");
  }
  if (!cie->augmentation_known)
    return;
  instructions(c, cie, cie->instructions, cie->instructions_size, cie->instructions_offset, 0,
               j);
  const amddwarf_cfi_row *row;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_cfi_cie_row(c->cfi, cie, &row, &err);
  if (st != AMDDWARF_OK) {
    if (!j)
      printf("\n");
    report_inline(c, j, st, &err);
  } else if (j) {
    json_object_set_new(j, "initial_row", row_json(c, row));
  } else if (row->cfa.kind != AMDDWARF_CFA_RULE_UNSPECIFIED || row->rule_count) {
    char text[2048];
    amddwarf_cfi_row_print(c->cfi, row, text, sizeof text);
    printf("\n  %s\n", text);
  }
  if (!j)
    printf("\n");
}

static void print_fde(cfi_cli *c, const amddwarf_cfi_fde *fde, json_t *list)
{
  json_t *j = list ? json_object() : NULL;
  uint64_t end = fde->initial_location + fde->address_range;
  if (j) {
    json_object_set_new(j, "offset", cli_json_addr(fde->offset));
    json_object_set_new(j, "length", json_integer((json_int_t)fde->length));
    json_object_set_new(j, "format", json_string(fde->dwarf64 ? "DWARF64" : "DWARF32"));
    json_object_set_new(j, "cie", cli_json_addr(fde->cie->offset));
    json_object_set_new(j, "pc_begin", cli_json_addr(fde->initial_location));
    json_object_set_new(j, "pc_end", cli_json_addr(end));
    if (fde->has_lsda)
      json_object_set_new(j, "lsda", cli_json_addr(fde->lsda));
    json_array_append_new(list, j);
  } else {
    int w = fde->dwarf64 ? 16 : 8;
    printf("%08" PRIx64 " %0*" PRIx64 " %0*" PRIx64 " FDE cie=%08" PRIx64 " pc=%08" PRIx64
           "...%08" PRIx64 "\n",
           fde->offset, w, fde->length, w, fde->cie_pointer, fde->cie->offset,
           fde->initial_location, end);
    printf("  Format:       %s\n", fde->dwarf64 ? "DWARF64" : "DWARF32");
    if (fde->has_lsda)
      printf("  LSDA Address: %016" PRIx64 "\n", fde->lsda);
  }
  if (!fde->cie->augmentation_known) {
    if (!j)
      printf("  (instructions not shown: unknown CIE augmentation)\n\n");
    return;
  }
  instructions(c, fde->cie, fde->instructions, fde->instructions_size,
               fde->instructions_offset, fde->initial_location, j);
  const amddwarf_cfi_row *rows;
  size_t count;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_cfi_fde_rows(c->cfi, fde, &rows, &count, &err);
  if (!j)
    printf("\n");
  if (st != AMDDWARF_OK) {
    report_inline(c, j, st, &err);
    if (!j)
      printf("\n");
    return;
  }
  json_t *rj = j ? json_array() : NULL;
  char text[16384];
  for (size_t i = 0; i < count; i++) {
    if (c->have_pc && (c->pc < rows[i].start || c->pc >= rows[i].end))
      continue;
    if (rj) {
      json_array_append_new(rj, row_json(c, &rows[i]));
    } else {
      /* A last row that says nothing (no CFA, no rule: an FDE without
         instructions, or one ending in an empty row) is not shown, as
         llvm-dwarfdump does not; --pc and the JSON show it, as its PCs have it. */
      if (!c->have_pc && i + 1 == count && !rows[i].synthesized &&
          rows[i].cfa.kind == AMDDWARF_CFA_RULE_UNSPECIFIED && rows[i].rule_count == 0)
        continue;
      amddwarf_cfi_row_print(c->cfi, &rows[i], text, sizeof text);
      printf("  0x%" PRIx64 ": %s%s\n", rows[i].start, text,
             rows[i].synthesized ? " (synthesized)" : "");
    }
  }
  if (rj)
    json_object_set_new(j, "rows", rj);
  else
    printf("\n");
}

/* Releases the section's handle (or the object that owns it). */
static void close_cfi(cfi_cli *c)
{
  if (c->object != NULL)
    amddwarf_object_close(c->object);
  else
    amddwarf_cfi_close(c->cfi);
  c->object = NULL;
  c->cfi = NULL;
}

static int dump_section(cfi_cli *c, const uint8_t *image, size_t size,
                        amddwarf_cfi_section_kind kind, const amddwarf_cfi_options *options,
                        json_t *root)
{
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  c->section = kind == AMDDWARF_CFI_EH_FRAME ? ".eh_frame" : ".debug_frame";
  amddwarf_status st;
  if (c->synthesize && kind == AMDDWARF_CFI_DEBUG_FRAME) {
    /* The code object's own handle, whose FDEs without instructions the
       prologue analyzer fills; owned by the object. */
    st = amddwarf_object_open_memory(image, size, NULL, &c->object, &err);
    if (st == AMDDWARF_OK)
      st = amddwarf_object_cfi(c->object, &c->cfi, &err);
  } else {
    st = amddwarf_cfi_open_elf(image, size, kind, options, &c->cfi, &err);
  }
  if (!root)
    printf("%s contents:\n\n", c->section);
  if (st == AMDDWARF_NOT_FOUND) {
    close_cfi(c);
    if (!root)
      printf("\n");
    return 0;
  }
  if (st != AMDDWARF_OK) {
    close_cfi(c);
    cli_report_error("cfi", root != NULL, st, &err);
    return -1;
  }
  json_t *sec = root ? json_object() : NULL;
  json_t *cies = sec ? json_array() : NULL, *fdes = sec ? json_array() : NULL;
  if (sec) {
    json_object_set_new(sec, "target", json_string(amddwarf_cfi_get_target(c->cfi)->name));
    json_object_set_new(sec, "cies", cies);
    json_object_set_new(sec, "fdes", fdes);
    json_object_set_new(root, c->section, sec);
  }
  const amddwarf_cfi_fde *only = NULL;
  if (c->have_pc && amddwarf_cfi_find_fde(c->cfi, c->pc, &only) != AMDDWARF_OK) {
    if (!root)
      printf("no FDE covers 0x%" PRIx64 "\n\n", c->pc);
    close_cfi(c);
    return 0;
  }
  c->covered = true;
  /* Entries in section order, as llvm-dwarfdump prints them. */
  size_t ci = 0, fi = 0, nc = amddwarf_cfi_cie_count(c->cfi), nf = amddwarf_cfi_fde_count(c->cfi);
  while (ci < nc || fi < nf) {
    const amddwarf_cfi_cie *cie = ci < nc ? amddwarf_cfi_cie_at(c->cfi, ci) : NULL;
    const amddwarf_cfi_fde *fde = fi < nf ? amddwarf_cfi_fde_at(c->cfi, fi) : NULL;
    if (cie && (!fde || cie->offset < fde->offset)) {
      if (!only || only->cie == cie)
        print_cie(c, cie, cies);
      ci++;
    } else {
      if (!only || only == fde)
        print_fde(c, fde, fdes);
      fi++;
    }
  }
  close_cfi(c);
  return 0;
}

int cli_cfi_main(int argc, char **argv)
{
  cfi_cli c;
  memset(&c, 0, sizeof c);
  const char *path = NULL, *value = NULL;
  bool debug_frame = false, eh_frame = false;
  amddwarf_cfi_options options;
  amddwarf_cfi_options_init(&options);
  static amddwarf_cfi_target custom;
  bool have_dialect = false;
  amddwarf_dialect dialect = AMDDWARF_DIALECT_AUTO;
  const cli_option flags[] = {CLI_FLAG("--json", &c.json),
                              CLI_FLAG("--synthesize", &c.synthesize),
                              CLI_FLAG("--debug-frame", &debug_frame),
                              CLI_FLAG("--eh-frame", &eh_frame)};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_help_arg(argv[i], cfi_help)) {
      return CLI_EXIT_OK;
    } else if (cli_table_arg("cfi", argc, argv, &i, CLI_OPTIONS(flags)) != 0) {
      continue;
    } else if ((r = cli_option_value("cfi", argc, argv, &i, "--pc", &value)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      if (cli_parse_u64(value, &c.pc) != 0)
        return cli_usage_error("cfi", "bad address '%s'", value);
      c.have_pc = true;
    } else if ((r = cli_option_value("cfi", argc, argv, &i, "--target", &value)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      if (strcmp(value, "amdgpu") == 0)
        options.target = amddwarf_cfi_target_amdgpu(64);
      else if (strcmp(value, "amdgpu-wave32") == 0)
        options.target = amddwarf_cfi_target_amdgpu(32);
      else if (strcmp(value, "x86-64") == 0)
        options.target = amddwarf_cfi_target_x86_64();
      else
        return cli_usage_error("cfi", "unknown target '%s'", value);
    } else if ((r = cli_option_value("cfi", argc, argv, &i, "--dialect", &value)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      if (amddwarf_dialect_from_name(value, &dialect) != AMDDWARF_OK)
        return cli_usage_error("cfi", "unknown dialect '%s'", value);
      have_dialect = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("cfi", "unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error("cfi", "more than one OBJECT");
    }
  }
  if (!path)
    return cli_usage_error("cfi", "missing OBJECT");
  if (!debug_frame && !eh_frame)
    debug_frame = eh_frame = true;
  uint8_t *image = NULL;
  size_t size = 0;
  if (cli_read_input("cfi", c.json, path, &image, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  json_t *root = c.json ? json_object() : NULL;
  int status = CLI_EXIT_OK;
  for (int pass = 0; pass < 2; pass++) {
    amddwarf_cfi_section_kind kind = pass ? AMDDWARF_CFI_EH_FRAME : AMDDWARF_CFI_DEBUG_FRAME;
    if ((pass == 0 && !debug_frame) || (pass == 1 && !eh_frame))
      continue;
    amddwarf_cfi_options o = options;
    if (have_dialect) {
      /* The dialect lives in the target description: use a modified copy. */
      if (!o.target) {
        amddwarf_cfi *probe = NULL;
        if (amddwarf_cfi_open_elf(image, size, kind, NULL, &probe, NULL) == AMDDWARF_OK) {
          o.target = amddwarf_cfi_get_target(probe);
          custom = *o.target;
          amddwarf_cfi_close(probe);
        } else {
          custom = *amddwarf_cfi_target_amdgpu(64);
        }
      } else {
        custom = *o.target;
      }
      custom.dialect = dialect;
      o.target = &custom;
    }
    if (dump_section(&c, image, size, kind, &o, root) != 0) {
      status = CLI_EXIT_BAD_INPUT;
      break;
    }
  }
  free(image);
  if (status == CLI_EXIT_OK && c.have_pc && !c.covered) {
    /* Like lines and vars: an address nothing describes is an error. */
    status = cli_report("cfi", c.json, AMDDWARF_E_CFI_NO_FDE, "no FDE of %s covers 0x%" PRIx64,
                        debug_frame && eh_frame ? ".debug_frame or .eh_frame"
                        : debug_frame           ? ".debug_frame"
                                                : ".eh_frame",
                        c.pc);
  }
  if (root) {
    if (status == CLI_EXIT_OK)
      cli_print_json(root);
    else
      json_decref(root);
  }
  if (status == CLI_EXIT_OK && c.failures)
    status = CLI_EXIT_BAD_INPUT;
  return status;
}
