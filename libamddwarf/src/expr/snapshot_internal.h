/* The snapshot's representation (snapshot.c loads it and serves it as a
 * target; snapshot_save.c writes it back as a document). */
#ifndef AMDDWARF_EXPR_SNAPSHOT_INTERNAL_H
#define AMDDWARF_EXPR_SNAPSHOT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <amddwarf/eval.h>
#include <amddwarf/expr.h>
#include <amddwarf/snapshot.h>

#include "common/arena.h"

typedef struct snap_register {
  uint32_t regno;
  uint8_t *bytes;
  uint64_t size;
} snap_register;

enum { SNAP_LANES = 64 }; /* the largest wave */
/* Registers numbered below this (every AMDGPU register up to the last AGPR)
   are found through a table, the others by a binary search. */
enum { SNAP_DIRECT_REGNOS = 3584 };

typedef struct snap_region {
  uint32_t aspace;   /* as the target receives it (private_lane<N> -> private_lane) */
  uint32_t lane;     /* AMDDWARF_NO_LANE unless private_lane */
  uint64_t address;
  uint64_t size;
  uint8_t *bytes; /* SIZE bytes; while PENDING is set, not decoded yet */
  /* A region read from a stop's text: its SIZE * 2 hex digits there,
     checked at load and decoded on the first access
     (amddwarf__snapshot_region_bytes); NULL
     once decoded, or when decoded at load. */
  _Atomic(const char *) pending;
  size_t next; /* 1 + index of the next region of its chain (below), 0 at the end */
} snap_region;

typedef struct snap_die {
  uint64_t offset;   /* .debug_info offset */
  int procedure;
  amddwarf_die_value_kind value;
  uint8_t *bytes;
  size_t size;
} snap_die;

typedef struct snap_addr {
  int present;
  uint32_t aspace;
  uint64_t address;
} snap_addr;

struct amddwarf_snapshot {
  amddwarf_allocator alloc;
  amddwarf_arena arena;
  char architecture[32];
  uint32_t wave_size;
  uint32_t address_size;
  uint32_t lane;
  amddwarf_expr_format format;
  snap_register *regs;
  size_t reg_count;
  /* [SNAP_DIRECT_REGNOS]: 1 + the index in regs of the register of that
     number, 0 when the snapshot has none; NULL: search regs instead. */
  uint16_t *reg_slot;
  snap_register *entry_regs;
  size_t entry_reg_count;
  snap_region *regions;
  size_t region_count;
  /* The regions in chains, in their order: each lane's private_lane regions,
     and the regions of every other space. 1 + the index of the first, 0:
     none. */
  size_t first_of_lane[SNAP_LANES];
  size_t first_shared;
  snap_die *dies;
  size_t die_count;
  amddwarf_base_type *types;
  size_t type_count;
  uint64_t *debug_addr;
  size_t debug_addr_count;
  int has_exec;
  uint64_t exec;
  int has_apertures;
  uint64_t shared_base, private_base;
  uint8_t *frame_base;
  size_t frame_base_size;
  int has_frame_base;
  snap_addr cfa, object;
  int has_tls;
  uint64_t tls_base;
  uint64_t unit_offset;
  amddwarf_loaded_code_object *code_objects; /* in the arena; URIs too */
  size_t code_object_count;
  int has_code_objects;
  int written;                   /* a write through the target succeeded: the document no
                                    longer holds this state (amddwarf__snapshot_written) */
  pthread_mutex_t decode_lock;   /* held while a region is decoded on first access */
};

/* Region R's bytes, its hex decoded on the first access (under the
   snapshot's decode lock). */
uint8_t *amddwarf__snapshot_region_bytes(const amddwarf_snapshot *s, snap_region *r);

#endif
