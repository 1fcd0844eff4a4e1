/* amddwarf objects: the code objects inside host executables and libraries,
 * offload bundles (compressed or not), relocatable objects and URIs, and
 * writing them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/container.h>

#include "object_cli.h"

static const char objects_help[] =
    "usage: amddwarf objects FILE... [--extract DIR] [--json]\n"
    "\n"
    "Lists every AMDGPU code object inside each FILE, recognized by its content:\n"
    "a code object itself, a host ELF executable, library or object of any machine\n"
    "(every clang offload bundle in .hip_fatbin, __CLANG_OFFLOAD_BUNDLE__ sections,\n"
    "OffloadBinary images of kind ELF in .llvm.offloading), an offload bundle, a\n"
    "compressed offload bundle (CCOB versions 1-3, zlib or zstd), an OffloadBinary,\n"
    "or a URI file://PATH#offset=N&size=M. Host entries are not listed.\n"
    "\n"
    "Columns: INDEX (what --object N of the other commands takes), ENTRY ID (the\n"
    "bundle entry ID), TARGET (the target ID), SIZE (bytes of the code object),\n"
    "COMPRESSED (zstd or zlib and the CCOB version, or no), URI (for an\n"
    "uncompressed code object the one roc-obj-ls prints; for a compressed one the\n"
    "compressed bundle holding it, which --target or --object then chooses from).\n"
    "\n"
    "  --extract DIR   write each code object to DIR, named as roc-obj-extract names\n"
    "                  them: FILE-offsetN-sizeM.co for an uncompressed one; a\n"
    "                  compressed one FILE-offsetN-sizeM-ENTRYID.co after its\n"
    "                  bundle's range; prints the paths written\n"
    "  --json          {\"files\": [{\"file\", \"kind\", \"objects\": [...]}]}\n"
    "                  (specs/json.md)\n"
    "\n"
    "Exit status: 0 listed, 1 a file is malformed or cannot be read or written,\n"
    "2 usage.\n"
    "\n"
    "Examples:\n"
    "  amddwarf objects ./vadd\n"
    "  amddwarf objects libkernels.so --json\n"
    "  amddwarf objects ./vadd --extract out/\n"
    "  amddwarf lines ./vadd --target gfx90a --all\n";

static const char *compression_text(const amddwarf_container_entry *e, char *buf, size_t size)
{
  if (!e->compressed)
    return "no";
  snprintf(buf, size, "%s-v%u", e->compression_method == 0 ? "zlib" : "zstd",
           (unsigned)e->compression_version);
  return buf;
}

/* The file name roc-obj-extract gives entry E of the file at PATH. */
static char *extract_name(const char *dir, const char *path, const amddwarf_container_entry *e)
{
  /* a URI's file ends at its parameters (its %-escapes are kept) */
  const char *end = strstr(path, "://") != NULL ? strpbrk(path, "#?") : NULL;
  if (end == NULL)
    end = path + strlen(path);
  const char *base = end;
  while (base > path && base[-1] != '/')
    --base;
  int base_size = (int)(end - base);
  size_t cap = strlen(dir) + (size_t)base_size + strlen(e->entry_id) + 96;
  char *name = malloc(cap);
  if (name == NULL)
    return NULL;
  const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
  if (!e->compressed) {
    snprintf(name, cap, "%s%s%.*s-offset%llu-size%llu.co", dir, sep, base_size, base,
             (unsigned long long)e->offset, (unsigned long long)e->size);
  } else {
    int n = snprintf(name, cap, "%s%s%.*s-offset%llu-size%llu-", dir, sep, base_size, base,
                     (unsigned long long)e->bundle_offset, (unsigned long long)e->bundle_size);
    for (const char *p = e->entry_id; *p && (size_t)n + 4 < cap; ++p)
      name[n++] = *p == '/' ? '_' : *p;
    snprintf(name + n, cap - (size_t)n, ".co");
  }
  return name;
}

static json_t *entry_json(const amddwarf_container_entry *e)
{
  json_t *o = json_object();
  json_object_set_new(o, "index", json_integer(e->index));
  json_object_set_new(o, "entry_id", json_string(e->entry_id));
  json_object_set_new(o, "triple", json_string(e->triple));
  json_object_set_new(o, "target_id", json_string(e->target_id));
  json_object_set_new(o, "section", e->section[0] ? json_string(e->section) : json_null());
  json_object_set_new(o, "offset", cli_json_addr(e->offset));
  json_object_set_new(o, "size", json_integer((json_int_t)e->size));
  json_object_set_new(o, "bundle_offset", cli_json_addr(e->bundle_offset));
  json_object_set_new(o, "bundle_size", json_integer((json_int_t)e->bundle_size));
  json_object_set_new(o, "compressed", json_boolean(e->compressed));
  if (e->compressed) {
    json_t *c = json_object();
    json_object_set_new(c, "method", json_string(e->compression_method == 0 ? "zlib" : "zstd"));
    json_object_set_new(c, "version", json_integer(e->compression_version));
    json_object_set_new(o, "compression", c);
  } else {
    json_object_set_new(o, "compression", json_null());
  }
  json_object_set_new(o, "uri", e->uri ? json_string(e->uri) : json_null());
  return o;
}

/* Lists (or extracts) the code objects of PATH; appends its JSON to FILES
   when JSON. Returns the exit status. */
static int list_file(const char *path, const char *extract, bool json, bool header,
                     json_t *files)
{
  amddwarf_container *c = NULL;
  amddwarf_error err = AMDDWARF_ERROR_INIT;
  amddwarf_status st = amddwarf_container_open_input(path, NULL, &c, &err);
  json_t *file = json ? json_object() : NULL;
  json_t *list = json ? json_array() : NULL;
  if (json)
    json_object_set_new(file, "file", json_string(path));
  if (st != AMDDWARF_OK) {
    if (json) {
      json_object_set_new(file, "error", cli_json_error(st, &err));
      json_array_append_new(files, file);
      json_decref(list);
    } else {
      fprintf(stderr, "amddwarf objects: error: %s (%s)\n", err.message,
              amddwarf_status_name(st));
    }
    return CLI_EXIT_BAD_INPUT;
  }
  if (json)
    json_object_set_new(file, "kind",
                        json_string(amddwarf_container_kind_name(amddwarf_container_get_kind(c))));
  if (header && !json)
    printf("%s:\n", path);
  if (!json && !extract)
    printf("%-5s  %-42s  %-16s  %8s  %-10s  %s\n", "INDEX", "ENTRY ID", "TARGET", "SIZE",
           "COMPRESSED", "URI");
  int rc = CLI_EXIT_OK;
  for (size_t i = 0; i < amddwarf_container_count(c) && rc == CLI_EXIT_OK; ++i) {
    const amddwarf_container_entry *e = amddwarf_container_entry_at(c, i);
    json_t *item = json ? entry_json(e) : NULL;
    if (extract) {
      const uint8_t *bytes = NULL;
      size_t size = 0;
      char *name = extract_name(extract, path, e);
      st = amddwarf_container_entry_bytes(c, i, &bytes, &size, &err);
      if (st != AMDDWARF_OK)
        rc = cli_report_error("objects", json, st, &err);
      else if (name == NULL)
        rc = CLI_EXIT_BAD_INPUT;
      else
        rc = cli_write_file("objects", json, name, bytes, size);
      if (rc == CLI_EXIT_OK && json)
        json_object_set_new(item, "extracted", json_string(name));
      else if (rc == CLI_EXIT_OK)
        printf("%s\n", name);
      free(name);
    } else if (!json) {
      char buf[32];
      printf("%-5u  %-42s  %-16s  %8llu  %-10s  %s\n", e->index,
             e->entry_id[0] ? e->entry_id : "(code object)", e->target_id[0] ? e->target_id : "-",
             (unsigned long long)e->size, compression_text(e, buf, sizeof buf),
             e->uri ? e->uri : "-");
    }
    if (json)
      json_array_append_new(list, item);
  }
  if (json) {
    json_object_set_new(file, "objects", list);
    json_array_append_new(files, file);
  }
  amddwarf_container_close(c);
  return rc;
}

int cli_objects_main(int argc, char **argv)
{
  const char *command = "objects", *extract = NULL;
  bool json = false;
  const cli_option options[] = {CLI_FLAG("--json", &json), CLI_VALUE("--extract", &extract)};
  const char **paths = calloc((size_t)argc, sizeof *paths);
  size_t count = 0;
  if (paths == NULL)
    return CLI_EXIT_BAD_INPUT;
  for (int i = 1; i < argc; i++) {
    if (cli_help_arg(argv[i], objects_help)) {
      free(paths);
      return CLI_EXIT_OK;
    }
    int r = cli_table_arg(command, argc, argv, &i, CLI_OPTIONS(options));
    if (r < 0) {
      free(paths);
      return CLI_EXIT_USAGE;
    }
    if (r > 0)
      continue;
    if (argv[i][0] == '-') {
      free(paths);
      return cli_usage_error(command, "unknown option '%s'", argv[i]);
    }
    paths[count++] = argv[i];
  }
  if (count == 0) {
    free(paths);
    return cli_usage_error(command, "no FILE given");
  }
  json_t *files = json ? json_array() : NULL;
  int rc = CLI_EXIT_OK;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 && !json && !extract)
      printf("\n");
    int one = list_file(paths[i], extract, json, count > 1, files);
    if (one != CLI_EXIT_OK)
      rc = one;
  }
  if (json) {
    json_t *root = json_object();
    json_object_set_new(root, "files", files);
    cli_print_json(root);
  }
  free(paths);
  return rc;
}
