// Pinned host memory: a cache over the adapters' malloc_host/free_host that never reuses or frees a block
// while an asynchronous copy may still use it (see pinned_memory.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hal/memory_stats.h"
#include "hal/streams.h"

namespace hal {

// Microseconds spent in the adapters' malloc_host or free_host, as host_memory_stats() reports them.
struct DurationStat {
  double total = 0, max = 0, min = 0;
  int64_t count = 0;
  void add(double us) {
    min = count == 0 ? us : (us < min ? us : min);
    max = us > max ? us : max;
    total += us;
    ++count;
  }
};

// Named as torch.cuda.host_memory_stats() names them.
struct PinnedMemoryStats {
  Stat allocations, allocated_bytes;     // blocks the cache owns (in use and cached), and their bytes
  Stat active_requests, active_bytes;    // blocks handed out and not yet freed, and their bytes
  int64_t num_host_alloc = 0, num_host_free = 0;
  DurationStat alloc_time_us, free_time_us;
};

// Pinned host memory from the adapter of hal:`device`, or a cached block of the same size class whose
// copies have completed (RAII owners live in the glue's allocator).
void* allocate_pinned(int device, size_t nbytes);
// Returns the block to the cache; it is reused only after the copies recorded on it have completed.
void free_pinned(int device, void* ptr);
// Called by the copy engine for each asynchronous copy that reads or writes pinned memory at `ptr` on
// (device, stream). Pointers the cache does not own are ignored.
void record_pinned_use(const void* ptr, int device, StreamId stream);
// Waits for the copies of every cached (freed) block and returns those blocks to their adapters.
void empty_pinned_cache();
// True when ptr lies inside a block the cache owns (any device).
bool is_pinned(const void* ptr);

PinnedMemoryStats pinned_memory_stats();
void reset_peak_pinned_memory_stats();
void reset_accumulated_pinned_memory_stats();

}  // namespace hal
