/* amddwarf expr: decode, encode (assemble) and evaluate DWARF expressions. */
#include "cli.h"
#include "json_out.h"

#include <stdlib.h>
#include <string.h>

static const char expr_help[] =
    "Usage: amddwarf expr decode [OPTIONS] HEX...\n"
    "       amddwarf expr decode [OPTIONS] --lines FILE\n"
    "       amddwarf expr encode [OPTIONS] TEXT...\n"
    "       amddwarf expr eval [OPTIONS] TEXT | --hex HEX...\n"
    "\n"
    "Decodes DWARF expression bytes into the text llvm-dwarfdump-19 prints, assembles\n"
    "text into bytes, and evaluates expressions against a wave snapshot, including\n"
    "the AMDGPU extension operations in each of their encodings (dialects):\n"
    "  auto    0xe9 is DW_OP_LLVM_user + sub-opcode, 0xe1-0xe8 and 0xea-0xec the\n"
    "          vendor range (the default, what current ROCgdb reads)\n"
    "  user    only DW_OP_LLVM_user 0xe9 + ULEB sub-opcode (current LLVM and ROCm)\n"
    "  vendor  0xe1-0xec (older ROCm, libdwarf)\n"
    "  draft   the seed spec's draft: form_aspace_address 0xe7, offset 0xe9,\n"
    "          push_lane 0xea, nothing else\n"
    "\n"
    "Examples:\n"
    "  amddwarf expr decode 91 7f                    -> DW_OP_fbreg -1\n"
    "  amddwarf expr decode 9083 14e903 9304         (bytes may be grouped anyhow)\n"
    "  amddwarf expr decode --asm-names 90 41         -> DW_OP_regx s33\n"
    "  amddwarf expr encode 'DW_OP_regx v3; DW_OP_LLVM_push_lane; DW_OP_piece 4'\n"
    "                                                -> 90 83 14 e9 03 93 04\n"
    "  amddwarf expr encode --dialect vendor DW_OP_LLVM_push_lane   -> e2\n"
    "\n"
    "'amddwarf expr decode --help' and 'amddwarf expr encode --help' say more;\n"
    "specs/encodings.md has the tables and the text syntax.\n";

static const char decode_help[] =
    "Usage: amddwarf expr decode [OPTIONS] HEX...\n"
    "       amddwarf expr decode [OPTIONS] --lines FILE\n"
    "\n"
    "Decodes one DWARF expression, given as hex bytes (\"91 7f\", \"917f\", \"0x91,0x7f\";\n"
    "all HEX arguments together are one expression), and prints it on one line as\n"
    "llvm-dwarfdump-19 does, except that AMDGPU registers are named by the whole\n"
    "register the DWARF number means (SGPR33, VGPR3, VGPR3_W32 for wave32, EXEC, PC)\n"
    "where llvm-dwarfdump-19 names a 16-bit part (SGPR33_LO16).\n"
    "With --lines, FILE (or - for stdin) holds one expression per line; each gives\n"
    "one output line, an undecodable one \"error: MESSAGE\" (and exit status 1).\n"
    "\n"
    "Options:\n"
    "  --dialect D         auto (default), user, vendor or draft\n"
    "  --addr-size N       size of DW_OP_addr operands: 2, 4 or 8 (default 8)\n"
    "  --dwarf64           64-bit DWARF: 8-byte DW_OP_call_ref/implicit_pointer refs\n"
    "  --dwarf-version N   version of the containing unit, 2-5 (default 5)\n"
    "  --asm-names         print registers as s33, v3, exec, pc\n"
    "  --json              print {\"ops\": [{offset, size, opcode, subop, op,\n"
    "                      operands, ...}], \"text\": ...} instead (specs/json.md)\n"
    "\n"
    "Errors name the byte offset and the opcode of the operation that failed;\n"
    "exit status 1 for undecodable bytes, 2 for a bad command line.\n"
    "\n"
    "Examples:\n"
    "  amddwarf expr decode 90 83 14 e9 03 93 04\n"
    "      DW_OP_regx VGPR3, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_piece 0x4\n"
    "  amddwarf expr decode --dialect vendor 90 83 14 e2 93 04\n"
    "      DW_OP_regx VGPR3, DW_OP_LLVM_push_lane, DW_OP_piece 0x4\n"
    "  amddwarf expr decode 91 10 31 16 18\n"
    "      DW_OP_fbreg +16, DW_OP_lit1, DW_OP_swap, DW_OP_xderef\n";

static const char encode_help[] =
    "Usage: amddwarf expr encode [OPTIONS] TEXT...\n"
    "\n"
    "Assembles expression text (all TEXT arguments joined by spaces) and prints the\n"
    "bytes in hex. Syntax:\n"
    "  - operations are separated by ';', ',' or newlines; the DW_OP_ prefix is\n"
    "    optional: 'DW_OP_lit1; plus_uconst 8'\n"
    "  - operands follow the name: integers in decimal, 0x hex or 0b binary with an\n"
    "    optional sign: 'DW_OP_consts -8', 'DW_OP_bit_piece 32 0'\n"
    "  - registers by DWARF number or AMDGPU name: v3, VGPR3, VGPR3_W32, s33,\n"
    "    SGPR33, a0, exec, exec_lo, pc; 'DW_OP_bregx s33+16' or 'DW_OP_bregx s33 16'\n"
    "  - branch targets are labels: 'DW_OP_bra done; DW_OP_lit0; done:'\n"
    "    (a label after the last operation is the end of the expression), or\n"
    "    byte displacements as decode prints them: 'DW_OP_skip -3'\n"
    "  - blocks are hex bytes, a length and its bytes as decode prints them, or a\n"
    "    parenthesized sub-expression: 'DW_OP_implicit_value 0x2a000000',\n"
    "    'DW_OP_implicit_value 0x2 0x2a 0x00', 'DW_OP_entry_value(DW_OP_regx s33)'\n"
    "  - what 'expr decode' prints encodes back to the same bytes\n"
    "  - 'DW_OP_LLVM_user DW_OP_LLVM_push_lane' forces the user encoding\n"
    "\n"
    "Options:\n"
    "  --dialect D         auto (default), user, vendor or draft; an operation the\n"
    "                      dialect cannot encode is an error\n"
    "  --wave N            32 or 64 (default): which VGPR range v3 means, and exec\n"
    "  --addr-size N, --dwarf64, --dwarf-version N   as for decode\n"
    "  --json              print {\"hex\": ..., \"size\": N}\n"
    "\n"
    "Examples:\n"
    "  amddwarf expr encode 'DW_OP_regx v3; DW_OP_LLVM_push_lane; DW_OP_piece 4'\n"
    "      90 83 14 e9 03 93 04\n"
    "  amddwarf expr encode --dialect vendor --wave 32 'DW_OP_regx v3; DW_OP_LLVM_push_lane'\n"
    "      90 83 0c e2\n"
    "  amddwarf expr encode 'DW_OP_lit1; DW_OP_bra end; DW_OP_lit2; end:'\n"
    "      31 28 01 00 32\n";

typedef struct expr_options {
  amddwarf_expr_format format;
  unsigned wave;
  bool json;
  bool asm_names;
  const char *lines;
} expr_options;

/* Parses the options shared by decode and encode at argv[*i]; returns 1 when
   one was consumed, 0 when argv[*i] is not one, or an exit status < 0 as
   -(CLI_EXIT_USAGE). */
static int common_option(const char *command, int argc, char **argv, int *i, expr_options *o)
{
  const char *dialect = NULL, *addr_size = NULL, *version = NULL, *wave = NULL;
  bool dwarf64 = false;
  const cli_option options[] = {
      CLI_VALUE("--dialect", &dialect),       CLI_VALUE("--addr-size", &addr_size),
      CLI_VALUE("--dwarf-version", &version), CLI_VALUE("--wave", &wave),
      CLI_VALUE("--lines", &o->lines),        CLI_FLAG("--dwarf64", &dwarf64),
      CLI_FLAG("--json", &o->json),           CLI_FLAG("--asm-names", &o->asm_names)};
  int r = cli_table_arg(command, argc, argv, i, CLI_OPTIONS(options));
  uint64_t n = 0;
  if (dwarf64)
    o->format.offset_size = 8;
  if (dialect != NULL && amddwarf_dialect_from_name(dialect, &o->format.dialect) != AMDDWARF_OK)
    return -cli_usage_error(command, "unknown dialect '%s' (auto, user, vendor, draft)", dialect);
  if (addr_size != NULL && (cli_parse_u64(addr_size, &n) != 0 || (n != 2 && n != 4 && n != 8)))
    return -cli_usage_error(command, "--addr-size must be 2, 4 or 8, not '%s'", addr_size);
  if (version != NULL && (cli_parse_u64(version, &n) != 0 || n < 2 || n > 5))
    return -cli_usage_error(command, "--dwarf-version must be 2 to 5, not '%s'", version);
  if (wave != NULL && (cli_parse_u64(wave, &n) != 0 || (n != 32 && n != 64)))
    return -cli_usage_error(command, "--wave must be 32 or 64, not '%s'", wave);
  if (addr_size != NULL)
    o->format.address_size = (uint8_t)n;
  if (version != NULL)
    o->format.version = (uint16_t)n;
  if (wave != NULL)
    o->wave = (unsigned)n;
  return r;
}

/* Decodes and prints one expression. Returns the status; on failure ERR is
   filled. *TEXT_OUT receives the printed line (malloc'ed) when not NULL. */
static amddwarf_status decode_one(const uint8_t *bytes, size_t size, const expr_options *o,
                                  json_t **json_out, char **text_out, amddwarf_error *err)
{
  amddwarf_op *ops = calloc(size ? size : 1, sizeof *ops);
  char *text = NULL;
  size_t count = 0, length = 0;
  unsigned flags = o->asm_names ? AMDDWARF_PRINT_ASM_REGISTERS : AMDDWARF_PRINT_DEFAULT;
  amddwarf_status st;
  if (!ops) {
    st = AMDDWARF_E_NO_MEMORY;
    goto done;
  }
  st = amddwarf_expr_decode(bytes, size, &o->format, ops, size, &count, err);
  if (st != AMDDWARF_OK)
    goto done;
  amddwarf_expr_print(ops, count, &o->format, flags, NULL, 0, &length);
  text = malloc(length + 1);
  if (!text) {
    st = AMDDWARF_E_NO_MEMORY;
    goto done;
  }
  amddwarf_expr_print(ops, count, &o->format, flags, text, length + 1, NULL);
  if (json_out) {
    json_t *list = json_array();
    for (size_t i = 0; i < count; i++)
      json_array_append_new(list, cli_json_op(&ops[i], true));
    json_t *root = json_object();
    json_object_set_new(root, "dialect", json_string(amddwarf_dialect_name(o->format.dialect)));
    json_object_set_new(root, "size", json_integer((json_int_t)size));
    json_object_set_new(root, "ops", list);
    json_object_set_new(root, "text", json_string(text));
    *json_out = root;
  }
  if (text_out) {
    *text_out = text;
    text = NULL;
  }
done:
  free(text);
  free(ops);
  return st;
}

/* --lines: one expression per line, one output line (or JSON entry) each. */
static int decode_lines(const char *command, const expr_options *o)
{
  uint8_t *data = NULL;
  size_t size = 0;
  if (cli_read_input(command, o->json, o->lines, &data, &size) != 0)
    return CLI_EXIT_BAD_INPUT;
  int exit_status = CLI_EXIT_OK;
  json_t *all = o->json ? json_array() : NULL;
  size_t start = 0, number = 0;
  while (start < size) {
    size_t end = start;
    while (end < size && data[end] != '\n')
      end++;
    number++;
    char *line = malloc(end - start + 1);
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    char *text = NULL;
    json_t *json = NULL;
    amddwarf_error err = AMDDWARF_ERROR_INIT;
    if (!line) {
      exit_status = cli_report_error(command, o->json, AMDDWARF_E_NO_MEMORY, NULL);
      break;
    }
    memcpy(line, data + start, end - start);
    line[end - start] = '\0';
    start = end + 1;
    amddwarf_status st = AMDDWARF_E_INVALID_ARGUMENT;
    if (cli_append_hex(line, &bytes, &nbytes) != 0) {
      err.status = st;
      snprintf(err.message, sizeof err.message, "line %zu: bad hex digits", number);
    } else {
      st = decode_one(bytes, nbytes, o, all ? &json : NULL, &text, &err);
    }
    if (st != AMDDWARF_OK) {
      exit_status = CLI_EXIT_BAD_INPUT;
      const char *message = err.message[0] ? err.message : amddwarf_status_message(st);
      if (all) {
        json = json_object();
        json_object_set_new(json, "error", cli_json_error(st, &err));
      } else {
        printf("error: %s (%s)\n", message, amddwarf_status_name(st));
      }
    } else if (!all) {
      printf("%s\n", text);
    }
    if (all && json)
      json_array_append_new(all, json);
    free(text);
    free(bytes);
    free(line);
  }
  free(data);
  if (all) {
    json_t *root = json_object();
    json_object_set_new(root, "expressions", all);
    cli_print_json(root);
  }
  return exit_status;
}

static bool wave_given(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], "--wave", 6) == 0)
      return true;
  return false;
}

static void init_options(expr_options *o)
{
  memset(o, 0, sizeof *o);
  amddwarf_expr_format_init(&o->format);
  o->wave = 64;
}

static int expr_decode_main(int argc, char **argv)
{
  const char *command = "expr decode";
  expr_options o;
  init_options(&o);
  uint8_t *bytes = NULL;
  size_t size = 0;
  int given = 0, status = CLI_EXIT_OK;
  for (int i = 1; i < argc; i++) {
    if (cli_help_arg(argv[i], decode_help)) {
      free(bytes);
      return CLI_EXIT_OK;
    }
    int r = common_option(command, argc, argv, &i, &o);
    if (r < 0 || (r == 0 && argv[i][0] == '-' && argv[i][1] == '-')) {
      free(bytes);
      return r < 0 ? CLI_EXIT_USAGE : cli_usage_error(command, "unknown option '%s'", argv[i]);
    }
    if (r > 0)
      continue;
    if (cli_append_hex(argv[i], &bytes, &size) != 0) {
      free(bytes);
      return cli_usage_error(command, "'%s' is not hex bytes", argv[i]);
    }
    given++;
  }
  if (o.wave != 64 || wave_given(argc, argv)) {
    free(bytes);
    return cli_usage_error(command, "--wave is an option of 'expr encode'");
  }
  if (o.lines) {
    free(bytes);
    if (given)
      return cli_usage_error(command, "give either --lines FILE or HEX bytes, not both");
    return decode_lines(command, &o);
  }
  if (!given)
    return cli_usage_error(command, "no expression bytes given");
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  json_t *json = NULL;
  char *text = NULL;
  amddwarf_status st = decode_one(bytes, size, &o, o.json ? &json : NULL, &text, &err);
  if (st != AMDDWARF_OK)
    status = cli_report_error(command, o.json, st, &err);
  else if (json)
    cli_print_json(json);
  else
    printf("%s\n", text);
  free(text);
  free(bytes);
  return status;
}

static int expr_encode_main(int argc, char **argv)
{
  const char *command = "expr encode";
  expr_options o;
  init_options(&o);
  char *text = NULL;
  size_t text_length = 0;
  int status = CLI_EXIT_OK;
  for (int i = 1; i < argc; i++) {
    if (cli_help_arg(argv[i], encode_help)) {
      free(text);
      return CLI_EXIT_OK;
    }
    int r = common_option(command, argc, argv, &i, &o);
    if (r < 0 || (r == 0 && argv[i][0] == '-' && argv[i][1] == '-')) {
      free(text);
      return r < 0 ? CLI_EXIT_USAGE : cli_usage_error(command, "unknown option '%s'", argv[i]);
    }
    if (r > 0)
      continue;
    size_t n = strlen(argv[i]);
    char *grown = realloc(text, text_length + n + 2);
    if (!grown) {
      free(text);
      return cli_report_error(command, o.json, AMDDWARF_E_NO_MEMORY, NULL);
    }
    text = grown;
    if (text_length)
      text[text_length++] = ' ';
    memcpy(text + text_length, argv[i], n + 1);
    text_length += n;
  }
  if (o.asm_names || o.lines) {
    free(text);
    return cli_usage_error(command, "--asm-names and --lines are options of 'expr decode'");
  }
  if (!text)
    return cli_usage_error(command, "no expression text given");
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  size_t size = 0;
  amddwarf_status st = amddwarf_expr_assemble(text, &o.format, o.wave, NULL, 0, &size, &err);
  uint8_t *bytes = NULL;
  if (st == AMDDWARF_E_NO_SPACE || (st == AMDDWARF_OK && size == 0)) {
    bytes = malloc(size ? size : 1);
    st = bytes ? amddwarf_expr_assemble(text, &o.format, o.wave, bytes, size, &size, &err)
               : AMDDWARF_E_NO_MEMORY;
  }
  if (st != AMDDWARF_OK) {
    status = cli_report_error(command, o.json, st, &err);
  } else if (o.json) {
    json_t *root = json_object();
    json_object_set_new(root, "dialect", json_string(amddwarf_dialect_name(o.format.dialect)));
    json_object_set_new(root, "hex", cli_json_hex(bytes, size));
    json_object_set_new(root, "size", json_integer((json_int_t)size));
    cli_print_json(root);
  } else {
    for (size_t i = 0; i < size; i++)
      printf(i ? " %02x" : "%02x", bytes[i]);
    printf("\n");
  }
  free(bytes);
  free(text);
  return status;
}

int cli_expr_main(int argc, char **argv)
{
  if (argc < 2 || cli_is_flag(argv[1], "--help") || cli_is_flag(argv[1], "-h") ||
      cli_is_flag(argv[1], "help")) {
    fputs(expr_help, argc < 2 ? stderr : stdout);
    return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "decode") == 0)
    return expr_decode_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "encode") == 0)
    return expr_encode_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "eval") == 0)
    return cli_expr_eval_main(argc - 1, argv + 1);
  return cli_usage_error("expr", "unknown sub-command '%s' (decode, encode, eval)", argv[1]);
}
