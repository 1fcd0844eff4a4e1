/* Buffers read in chunks; see cli_stream.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_file_open(const char *command, bool json, const char *path, cli_file *file)
{
  struct stat st;
  const char *problem = NULL;
  file->size = 0;
  file->fd = open(path, O_RDONLY);
  if (file->fd < 0 || fstat(file->fd, &st) != 0)
    problem = strerror(errno);
  else if (S_ISDIR(st.st_mode))
    problem = strerror(EISDIR);
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  if (problem) {
    cli_file_error(command, json, path, problem);
    cli_file_close(file);
    return -1;
  }
  file->size = (uint64_t)st.st_size;
  return 0;
}

void cli_file_close(cli_file *file)
{
  if (file->fd >= 0)
    close(file->fd);
  file->fd = -1;
}

amddwarf_status cli_file_read_at(void *user, uint64_t offset, void *destination, size_t size)
{
  cli_file *file = user;
  uint8_t *out = destination;
  while (size > 0) {
    ssize_t got = pread(file->fd, out, size, (off_t)offset);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return AMDDWARF_E_IO;
    out += got;
    offset += (uint64_t)got;
    size -= (size_t)got;
  }
  return AMDDWARF_OK;
}

void cli_error_prefix(amddwarf_error *err, const char *prefix)
{
  char message[sizeof err->message + 512];
  snprintf(message, sizeof message, "%s: %s", prefix, err->message);
  memcpy(err->message, message, sizeof err->message - 1);
  err->message[sizeof err->message - 1] = '\0';
}
