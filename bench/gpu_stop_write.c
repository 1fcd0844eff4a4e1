/* gpu_stop_write: writes the whole-GPU-stop workload (gpu_stop_workload.h)
 * as files `amddwarf dap` and the other stop readers load: DIR/gpu_stop.elf,
 * the program's code object, and DIR/gpu_stop.json, a stop (specs/stop.md)
 * of its 2,560 waves (or --waves N), wave W at work-group (W / 4, 0, 0) as
 * wave W % 4 of it: work-groups of 256 work-items. Each wave's snapshot is
 * what amddwarf_snapshot_save gives after gpu_stop_load_wave, with "exec"
 * set to its EXEC register (the template's is 0). Each wave is added to an
 * amddwarf_stop, which writes the document (amddwarf_stop_save).
 *
 * usage: gpu_stop_write DIR [--waves N] */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amddwarf/snapshot.h>
#include <amddwarf/stop.h>

#include "gpu_stop_workload.h"

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
  amddwarf_stop *doc = NULL;
  if (rc == 0 && amddwarf_stop_new(NULL, &doc, &err) != AMDDWARF_OK) {
    fprintf(stderr, "gpu_stop_write: %s\n", err.message);
    rc = 1;
  }
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
    /* The wave as a stop of one wave, added to the whole stop. */
    json_t *entry = json_pack("{s:[{s:[i,i,i],s:i,s:o}]}", "waves", "work_group",
                              (json_int_t)(w / 4), 0, 0, "wave_id", (json_int_t)(w % 4),
                              "snapshot", snapshot);
    char *one = entry ? json_dumps(entry, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(entry);
    if (!one || amddwarf_stop_add(doc, one, strlen(one), "gpu_stop_write", &err) != AMDDWARF_OK) {
      fprintf(stderr, "gpu_stop_write: wave %lu: %s\n", w, one ? err.message : "out of memory");
      rc = 1;
    }
    free(one);
  }
  char *text = NULL;
  size_t size = 0;
  if (rc == 0 && amddwarf_stop_save(doc, &text, &size, &err) != AMDDWARF_OK) {
    fprintf(stderr, "gpu_stop_write: %s\n", err.message);
    rc = 1;
  }
  if (rc == 0)
    rc = write_file(dir, "gpu_stop.json", text, size) == 0 ? 0 : 1;
  if (rc == 0)
    printf("wrote %s/gpu_stop.elf and %s/gpu_stop.json (%lu waves, %zu bytes)\n", dir, dir, waves,
           size);
  free(text);
  amddwarf_stop_free(doc);
  gpu_stop_free(stop);
  return rc;
}
