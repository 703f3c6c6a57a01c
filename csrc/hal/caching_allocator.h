// The caching allocator shared by every adapter: per device, a small pool (blocks <= 1 MiB, carved from
// 2 MiB segments) and a large pool (segments rounded to 2 MiB, or exact sizes above 10 MiB); blocks are
// split on allocation and merged with free neighbours on release. A freed block is reusable at once on the
// stream that allocated it; if it was used on other streams (record_stream), only after events recorded on
// those streams complete. On a failed device allocation the cache is released and the allocation retried
// once before out-of-memory is raised.
//
// Configuration: PYTORCH_HAL_ALLOC_CONF, shaped like PYTORCH_CUDA_ALLOC_CONF:
// "max_split_size_mb:N,garbage_collection_threshold:F,roundup_power2_divisions:N".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hal/allocator_trace.h"
#include "hal/memory_stats.h"
#include "hal/streams.h"

namespace hal {

struct Block;  // opaque outside the allocator

struct Allocation {
  void* ptr = nullptr;
  Block* block = nullptr;  // pass to free_block(); nullptr for zero-size allocations
};

// Allocates `size` bytes on hal:`device` for use on `stream`. Zero bytes gives {nullptr, nullptr}.
// Throws hal::Error(OutOfDeviceMemory) with a message that says how much was asked, how much is
// allocated, reserved and free on the device, the memory-fraction cap if any, and what to try
// (torch.hal.empty_cache(), smaller batch, PYTORCH_HAL_ALLOC_CONF=max_split_size_mb:...).
Allocation allocate(int device, size_t size, StreamId stream);

// Returns a block to its pool. Safe to call from any thread; nullptr is ignored.
void free_block(Block* block);

// The block is used on `stream` too: its reuse waits for that stream's work issued so far.
void record_stream(Block* block, StreamId stream);

// The allocated block whose memory holds `ptr`, on any device, or nullptr. It searches under each device's
// lock: for the rare frees that come with a pointer but without its block (the glue's raw CPU allocations).
Block* allocated_block_containing(const void* ptr);

// The device allocation (segment) around `ptr`, which lies in an allocated block: its base, exactly as the
// adapter's malloc_device returned it, and its size. Inter-process sharing exports whole allocations (an
// adapter can only name what it allocated), so a block is shared as its segment plus an offset, as
// torch.cuda shares a block of its caching allocator. False when no allocated block holds `ptr`.
struct Segment {
  int device = -1;
  void* base = nullptr;
  size_t size = 0;
};
bool segment_containing(const void* ptr, Segment* out);

int block_device(const Block* block);
size_t block_size(const Block* block);

// Releases every cached, fully free segment of every device back to its adapter.
void empty_cache();

// Caps this process's reserved memory on `device` at fraction * total memory (0 < fraction <= 1).
void set_memory_fraction(int device, double fraction);
double memory_fraction(int device);

// Statistics with the keys of torch.cuda.memory_stats(): "allocated_bytes.all.current",
// "allocated_bytes.all.peak", "allocated_bytes.all.allocated", "allocated_bytes.all.freed", the same for
// "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes", "allocation", "segment",
// "active", "inactive_split" each over "all", "small_pool", "large_pool"; plus "num_alloc_retries",
// "num_ooms", "num_device_alloc", "num_device_free", "max_split_size".
std::map<std::string, int64_t> memory_stats(int device);
// The same statistics as memory_stats.h's struct (what c10's DeviceStats is made from).
DeviceStats device_stats(int device);
void reset_peak_stats(int device);
void reset_accumulated_stats(int device);

// One record per segment, with its blocks (torch.cuda.memory_snapshot()-like).
struct BlockInfo {
  uint64_t address;
  size_t size;
  size_t requested_size;
  bool allocated;
  std::string context;  // who allocated it (the glue stores a Python stack here when asked)
};
struct SegmentInfo {
  int device;
  uint64_t address;
  size_t total_size;
  size_t allocated_size;
  StreamId stream;
  bool is_large;
  std::vector<BlockInfo> blocks;
};
std::vector<SegmentInfo> memory_snapshot();

// Each device's allocator actions since tracing began (hal/allocator_trace.h; set_trace_capacity turns
// it on), oldest first, by hal index.
std::map<int, std::vector<TraceEntry>> memory_trace();
void clear_memory_trace();

// Called at allocation time to fill BlockInfo::context; the glue installs one that returns the Python
// stack when torch.hal.memory._record_memory_history() is on. nullptr turns recording off.
using ContextRecorder = std::string (*)();
void set_context_recorder(ContextRecorder recorder);

}  // namespace hal
