/* Buffers read in chunks, shared by `amddwarf printf` and `amddwarf
 * symbolize`: a regular file read at offsets (pread) is the read callback of
 * amddwarf_printf_reader_open_stream and amddwarf_gpuav_reader_open_stream,
 * so buffers of any size are read with bounded memory. */
#ifndef AMDDWARF_CLI_STREAM_H
#define AMDDWARF_CLI_STREAM_H

#include "cli.h"

typedef struct cli_file {
  int fd;
  uint64_t size;
} cli_file;

/* Opens PATH, a regular file. Returns 0, or -1 after reporting it with
   cli_file_error (JSON on stdout when JSON; FILE->fd is then -1). */
int cli_file_open(const char *command, bool json, const char *path, cli_file *file);
/* Closes FILE; safe on one that did not open. */
void cli_file_close(cli_file *file);
/* The read callback of the stream readers; USER is a cli_file. */
amddwarf_status cli_file_read_at(void *user, uint64_t offset, void *destination, size_t size);

/* Rewrites ERR's message as "PREFIX: message" (truncated to fit). */
void cli_error_prefix(amddwarf_error *err, const char *prefix);

#endif
