// The caching allocator of pinned host memory, and the registry of live pinned ranges behind is_pinned().
//
// Why a cache and not malloc_host/free_host per tensor: a pinned tensor may be dropped by Python while a
// non_blocking copy still reads (H2D) or writes (D2H) it on a device stream. Handing the memory back to the
// adapter then lets the next allocation reuse it under the copy: wrong values, or a crash in the adapter's
// worker. As torch.cuda's CachingHostAllocator does, every asynchronous copy records an event on the stream
// that uses the block (record_pinned_use), and a freed block is reused, or returned to the adapter, only
// once all those events have completed.
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/error.h"
#include "hal/event.h"
#include "hal/fork_guard.h"
#include "hal/pinned_memory.h"

namespace hal {
namespace {

// Larger requests are no real size (the core validates sizes, adapters may assume sane ones), and a
// range registered with such a size would make is_pinned() true for most of the address space.
constexpr size_t kMaxPinnedBytes = size_t{1} << 60;

struct PinnedBlock {
  void* ptr = nullptr;
  size_t size = 0;  // the rounded size asked of the adapter
  int device = -1;  // whose adapter allocated it, and so must free it
  bool in_use = false;
  std::vector<std::unique_ptr<Event>> pending_uses;  // copies queued on this block, not yet known complete

  // Drops the uses that have completed; true when none is left.
  bool uses_completed() {
    std::erase_if(pending_uses, [](const std::unique_ptr<Event>& e) { return e->query(); });
    return pending_uses.empty();
  }
};

// Power-of-two size classes, as torch.cuda's host allocator: a freed block serves every later request of
// its class, so loops that pin tensors of one size reuse a handful of blocks.
size_t round_size(size_t nbytes) {
  size_t size = 4096;
  while (size < nbytes) size <<= 1;
  return size;
}

struct PinnedCache {
  std::mutex mutex;
  std::map<uintptr_t, std::unique_ptr<PinnedBlock>> blocks;  // every block the cache owns, by address
  std::multimap<std::pair<int, size_t>, PinnedBlock*> free_blocks;  // (device, size) -> freed blocks
  PinnedMemoryStats stats;

  PinnedBlock* block_containing(const void* ptr) {
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    auto it = blocks.upper_bound(p);
    if (it == blocks.begin()) return nullptr;
    --it;
    return p < it->first + it->second->size ? it->second.get() : nullptr;
  }

  // A freed block of the class whose copies have all completed, taken off the free list; null if none.
  PinnedBlock* take_free_block(int device, size_t size) {
    auto [first, last] = free_blocks.equal_range({device, size});
    for (auto it = first; it != last; ++it) {
      PinnedBlock* block = it->second;
      if (block->uses_completed()) {
        free_blocks.erase(it);
        return block;
      }
    }
    return nullptr;
  }

  void hand_out(PinnedBlock* block) {
    block->in_use = true;
    stats.active_requests.increase(1);
    stats.active_bytes.increase(static_cast<int64_t>(block->size));
  }

  // Returns a freed block to its adapter. The caller holds the mutex and has made sure no copy uses it.
  void release(PinnedBlock* block) {
    const Device& d = DeviceRegistry::instance().device(block->device);
    const auto start = std::chrono::steady_clock::now();
    hal_status_t st = d.table().free_host(block->ptr);
    stats.free_time_us.add(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    stats.allocations.decrease(1);
    stats.allocated_bytes.decrease(static_cast<int64_t>(block->size));
    ++stats.num_host_free;
    blocks.erase(reinterpret_cast<uintptr_t>(block->ptr));  // destroys the block
    throw_on_failure(d.table(), st, "free_host");
  }
};

PinnedCache& cache() {
  static auto* c = new PinnedCache();  // leaked: tensors holding pinned blocks may be freed at exit
  return *c;
}

}  // namespace

void* allocate_pinned(int device, size_t nbytes) {
  check_fork_safety();
  const Device& d = DeviceRegistry::instance().device(device);
  if (nbytes == 0) return nullptr;
  if (nbytes > kMaxPinnedBytes) {
    throw Error(ErrorCode::OutOfHostMemory, "allocate_pinned(hal:" + std::to_string(device) + "): " +
                                                std::to_string(nbytes) + " bytes of pinned host memory cannot exist");
  }
  const size_t size = round_size(nbytes);
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (PinnedBlock* reused = c.take_free_block(device, size)) {
    c.hand_out(reused);
    return reused->ptr;
  }
  void* ptr = nullptr;
  const auto start = std::chrono::steady_clock::now();
  throw_on_failure(d.table(), d.table().malloc_host(size, &ptr), "malloc_host");
  c.stats.alloc_time_us.add(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  auto block = std::make_unique<PinnedBlock>();
  block->ptr = ptr;
  block->size = size;
  block->device = device;
  PinnedBlock* raw = block.get();
  try {
    c.blocks.emplace(reinterpret_cast<uintptr_t>(ptr), std::move(block));
  } catch (...) {
    d.table().free_host(ptr);
    throw;
  }
  c.stats.allocations.increase(1);
  c.stats.allocated_bytes.increase(static_cast<int64_t>(size));
  ++c.stats.num_host_alloc;
  c.hand_out(raw);
  return ptr;
}

void free_pinned(int device, void* ptr) {
  if (!ptr || in_bad_fork()) return;  // as free_block: the cache's lock may belong to a thread not copied
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.blocks.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == c.blocks.end() || !it->second->in_use) {
    throw Error(ErrorCode::InvalidArgument, "free_pinned(hal:" + std::to_string(device) +
                                                "): pointer was not returned by allocate_pinned, or was freed already");
  }
  PinnedBlock* block = it->second.get();
  block->in_use = false;
  c.stats.active_requests.decrease(1);
  c.stats.active_bytes.decrease(static_cast<int64_t>(block->size));
  c.free_blocks.emplace(std::make_pair(block->device, block->size), block);
}

void record_pinned_use(const void* ptr, int device, StreamId stream) {
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  PinnedBlock* block = c.block_containing(ptr);
  if (!block) return;  // not ours (pinned by someone else, or not pinned at all): nothing to protect
  auto use = std::make_unique<Event>();
  use->record(device, stream);
  block->uses_completed();  // keeps the list short in loops that reuse one block
  block->pending_uses.push_back(std::move(use));
}

// The entries below take the cache's lock or wait for copies: in a bad fork they raise (fork_guard.h).
void empty_pinned_cache() {
  throw_if_bad_fork();
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.free_blocks.begin(); it != c.free_blocks.end();) {
    PinnedBlock* block = it->second;
    for (auto& use : block->pending_uses) use->synchronize();
    block->pending_uses.clear();
    it = c.free_blocks.erase(it);
    c.release(block);
  }
}

PinnedMemoryStats pinned_memory_stats() {
  throw_if_bad_fork();
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

void reset_peak_pinned_memory_stats() {
  throw_if_bad_fork();
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (Stat* s : {&c.stats.allocations, &c.stats.allocated_bytes, &c.stats.active_requests, &c.stats.active_bytes}) {
    s->peak = s->current;
  }
}

void reset_accumulated_pinned_memory_stats() {
  throw_if_bad_fork();
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (Stat* s : {&c.stats.allocations, &c.stats.allocated_bytes, &c.stats.active_requests, &c.stats.active_bytes}) {
    s->allocated = 0;
    s->freed = 0;
  }
  c.stats.num_host_alloc = c.stats.num_host_free = 0;
  c.stats.alloc_time_us = c.stats.free_time_us = DurationStat{};
}

bool is_pinned(const void* ptr) {
  // PyTorch asks this of CPU tensors too (Tensor.is_pinned, DataLoader workers): in a bad fork the answer is
  // no (nothing there can use pinned memory) rather than a wait for a lock a parent thread may have held.
  if (in_bad_fork()) return false;
  PinnedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.block_containing(ptr) != nullptr;
}

}  // namespace hal
