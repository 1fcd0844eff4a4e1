/* A bounded window over a buffer of any size: the one way src/printf and
 * src/gpuav walk GPU-written buffers.
 *
 * The buffer is either in caller memory (an mmap, say: every range is
 * handed out in place) or read through a callback into one allocation of a
 * fixed capacity, so memory stays bounded whatever the buffer's size. Ranges
 * handed out stay valid until the next call on the window. */
#ifndef AMDDWARF_COMMON_WINDOW_H
#define AMDDWARF_COMMON_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include <amddwarf/allocator.h>
#include <amddwarf/status.h>

/* Reads SIZE bytes at byte OFFSET of the buffer into DESTINATION; returns
   AMDDWARF_OK or an error. The same contract as amddwarf_printf_read_fn and
   amddwarf_gpuav_read_fn, which are this type under public names. */
typedef amddwarf_status (*amddwarf_window_read_fn)(void *user, uint64_t offset,
                                                   void *destination, size_t size);

typedef struct amddwarf_window {
  amddwarf_allocator allocator;
  const uint8_t *memory;        /* memory mode: the whole buffer */
  amddwarf_window_read_fn read; /* stream mode */
  void *user;
  uint64_t size;                /* bytes of the whole buffer */
  uint8_t *buffer;              /* stream mode: [capacity] */
  size_t capacity;
  uint64_t offset;              /* buffer offset of buffer[0] */
  size_t length;                /* bytes of the buffer held */
} amddwarf_window;

/* A window over SIZE bytes at DATA (not copied). Never fails. */
void amddwarf__window_init_memory(amddwarf_window *w, const void *data, size_t size);

/* A window of CAPACITY bytes (allocated with ALLOCATOR, NULL: malloc) over a
   buffer of SIZE bytes read through READ(USER, ...). Returns AMDDWARF_OK or
   AMDDWARF_E_NO_MEMORY (W is then safe to finish). */
amddwarf_status amddwarf__window_init_stream(amddwarf_window *w,
                                            const amddwarf_allocator *allocator,
                                            amddwarf_window_read_fn read, void *user,
                                            uint64_t size, size_t capacity);

/* Releases the window's allocation. Safe on a zeroed or memory window. */
void amddwarf__window_fini(amddwarf_window *w);

/* Points *OUT at LENGTH bytes at buffer offset OFFSET. OFFSET + LENGTH must
   not pass LIMIT (at most the buffer size), and LENGTH must not exceed the
   capacity of a stream window. When the range is not held, the window reads
   as much as fits from OFFSET up to LIMIT. Returns AMDDWARF_OK, the read
   callback's error, or AMDDWARF_E_INVALID_ARGUMENT for a range the window
   cannot hold. */
amddwarf_status amddwarf__window_get(amddwarf_window *w, uint64_t offset, size_t length,
                                    uint64_t limit, const uint8_t **out);

#endif
