/* Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without
 * libFuzzer, so every build (gcc, sanitizers, valgrind) runs the seed corpus
 * and the regression inputs. Arguments are files or directories of files. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
  FILE *file = fopen(path, "rb");
  if (!file) {
    perror(path);
    return -1;
  }
  uint8_t *data = NULL;
  size_t size = 0, capacity = 0;
  for (;;) {
    if (size == capacity) {
      capacity = capacity ? capacity * 2 : 4096;
      uint8_t *grown = realloc(data, capacity);
      if (!grown) {
        free(data);
        fclose(file);
        return -1;
      }
      data = grown;
    }
    size_t got = fread(data + size, 1, capacity - size, file);
    if (got == 0)
      break;
    size += got;
  }
  fclose(file);
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 0;
}

static int replay_path(const char *path, unsigned *count)
{
  struct stat info;
  if (stat(path, &info) != 0) {
    perror(path);
    return -1;
  }
  if (!S_ISDIR(info.st_mode)) {
    *count += 1;
    return replay_file(path);
  }
  DIR *dir = opendir(path);
  if (!dir) {
    perror(path);
    return -1;
  }
  int result = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.')
      continue;
    size_t length = strlen(path) + strlen(entry->d_name) + 2;
    char *child = malloc(length);
    if (!child) {
      result = -1;
      break;
    }
    snprintf(child, length, "%s/%s", path, entry->d_name);
    if (replay_path(child, count) != 0)
      result = -1;
    free(child);
  }
  closedir(dir);
  return result;
}

int main(int argc, char **argv)
{
  unsigned count = 0;
  int result = 0;
  /* An empty input always runs, so a target with no seeds is still exercised. */
  LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
  for (int i = 1; i < argc; i++)
    if (replay_path(argv[i], &count) != 0)
      result = 1;
  printf("replayed %u inputs\n", count);
  return result;
}
