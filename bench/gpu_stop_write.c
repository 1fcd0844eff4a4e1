/* gpu_stop_write: writes the whole-GPU-stop workload (gpu_stop_workload.h)
 * as files `amddwarf dap` and the other stop readers load: DIR/gpu_stop.elf,
 * the program's code object, and DIR/gpu_stop.json, a stop (specs/stop.md)
 * of its 2,560 waves (or --waves N), wave W at work-group (W / 4, 0, 0) as
 * wave W % 4 of it: work-groups of 256 work-items. Each wave's snapshot is
 * what amddwarf_snapshot_save gives after gpu_stop_load_wave, with "exec"
 * set to its EXEC register (the template's is 0).
 *
 * usage: gpu_stop_write DIR [--waves N] */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/snapshot.h>

#include "gpu_stop_workload.h"

typedef struct buffer {
  char *data;
  size_t len, cap;
  int failed;
} buffer;

static void append(buffer *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (n > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 1 << 20;
    while (n > cap - b->len)
      cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "gpu_stop_write: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *dir = NULL;
  unsigned long waves = GPU_STOP_WAVES;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--waves") == 0 && i + 1 < argc)
      waves = strtoul(argv[++i], NULL, 10);
    else if (!dir && argv[i][0] != '-')
      dir = argv[i];
    else {
      fprintf(stderr, "usage: gpu_stop_write DIR [--waves N]\n");
      return 2;
    }
  }
  if (!dir || waves == 0 || waves > GPU_STOP_WAVES) {
    fprintf(stderr, "usage: gpu_stop_write DIR [--waves N] (1 <= N <= %d)\n", GPU_STOP_WAVES);
    return 2;
  }
  amddwarf_error err;
  amddwarf_error_clear(&err);
  gpu_stop *stop = NULL;
  if (gpu_stop_new(&stop, &err) != AMDDWARF_OK) {
    fprintf(stderr, "gpu_stop_write: %s\n", err.message);
    return 1;
  }
  size_t image_size = 0;
  const uint8_t *image = gpu_stop_code_object(stop, &image_size);
  int rc = write_file(dir, "gpu_stop.elf", image, image_size) == 0 ? 0 : 1;
  buffer doc = {NULL, 0, 0, 0};
  append(&doc, "{\"waves\": [\n", 12);
  for (unsigned long w = 0; w < waves && rc == 0; w++) {
    char *text = NULL;
    size_t size = 0;
    if (gpu_stop_load_wave(stop, (uint32_t)w, &err) != AMDDWARF_OK ||
        gpu_stop_save_wave(stop, &text, &size, &err) != AMDDWARF_OK) {
      fprintf(stderr, "gpu_stop_write: wave %lu: %s\n", w, err.message);
      rc = 1;
      break;
    }
    json_t *snapshot = json_loadb(text, size, 0, NULL);
    free(text);
    json_t *regs = snapshot ? json_object_get(snapshot, "registers") : NULL;
    json_t *exec = regs ? json_object_get(regs, "exec") : NULL;
    if (!exec) {
      fprintf(stderr, "gpu_stop_write: wave %lu: the saved snapshot has no EXEC register\n", w);
      json_decref(snapshot);
      rc = 1;
      break;
    }
    json_object_set(snapshot, "exec", exec);
    json_t *entry = json_pack("{s:[i,i,i],s:i,s:o}", "work_group", (json_int_t)(w / 4), 0, 0,
                              "wave_id", (json_int_t)(w % 4), "snapshot", snapshot);
    char *line = entry ? json_dumps(entry, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(entry);
    if (!line) {
      rc = 1;
      break;
    }
    if (w > 0)
      append(&doc, ",\n", 2);
    append(&doc, line, strlen(line));
    free(line);
  }
  append(&doc, "\n]}\n", 4);
  if (rc == 0 && doc.failed) {
    fprintf(stderr, "gpu_stop_write: out of memory\n");
    rc = 1;
  }
  if (rc == 0)
    rc = write_file(dir, "gpu_stop.json", doc.data, doc.len) == 0 ? 0 : 1;
  if (rc == 0)
    printf("wrote %s/gpu_stop.elf and %s/gpu_stop.json (%lu waves, %zu bytes)\n", dir, dir, waves,
           doc.len);
  free(doc.data);
  gpu_stop_free(stop);
  return rc;
}
