#include "hal/caching_allocator.h"
#include "hal/fork_guard.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "allocator_config.h"
#include "allocator_trace.h"
#include "hal/device_activity.h"
#include "hal/device_registry.h"
#include "hal/error.h"
#include "hal/event.h"
#include "memory_stats.h"
#include "per_device.h"

namespace hal {

struct Block;

namespace {
// The free blocks of a pool, by stream, then size, then address: the best fit for a stream is a lower_bound.
struct BySizeThenAddress {
  bool operator()(const Block* a, const Block* b) const;
};
using BlockPool = std::set<Block*, BySizeThenAddress>;
}  // namespace

// A piece of a segment (one device allocation). Blocks of a segment form an address-ordered list
// through prev/next; a segment belongs to the stream it was first allocated for, and so do its blocks.
struct Block {
  int device;
  StreamId stream;
  size_t size;
  void* ptr;
  bool is_large;              // which pool
  size_t requested = 0;       // what the caller asked for (allocated blocks)
  bool allocated = false;
  bool in_pool = false;       // free and reusable (not waiting on events)
  BlockPool::iterator pool_position;  // where it is in its pool, while in_pool: erased without a search
  bool counted_inactive_split = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::set<StreamId> stream_uses;  // other streams that used it (record_stream)
  std::string context;

  Block(int d, StreamId s, size_t sz, void* p, bool large) : device(d), stream(s), size(sz), ptr(p), is_large(large) {}
  bool is_split() const { return prev != nullptr || next != nullptr; }
};

namespace {

constexpr size_t kMinBlockSize = 512;             // every size is a multiple of this
constexpr size_t kSmallSize = size_t{1} << 20;     // largest request served by the small pool
constexpr size_t kSmallBuffer = size_t{2} << 20;   // segment size of the small pool
constexpr size_t kRoundLarge = size_t{2} << 20;    // large segments are multiples of this
constexpr size_t kLargeBuffer = size_t{20} << 20;  // slack that max_split_size still lets a big block serve
constexpr size_t kMaxRequest = size_t{1} << 60;    // larger sizes would overflow the rounding

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// The size of the segment new_segment() requests for a block of `rounded` bytes.
size_t segment_size_for(size_t rounded, bool large) { return large ? round_up(rounded, kRoundLarge) : kSmallBuffer; }

size_t round_size(size_t size) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const size_t divisions = allocator_config().roundup_power2_divisions;
  if (divisions > 1 && size > kSmallSize) {
    // Round to one of `divisions` steps between the surrounding powers of two: fewer distinct sizes,
    // so blocks are reused more often by slightly different requests.
    size_t lower = size_t{1} << (63 - __builtin_clzll(size));
    size_t step = std::max(lower / divisions, kMinBlockSize);
    return round_up(size, step);
  }
  return round_up(size, kMinBlockSize);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

bool BySizeThenAddress::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}
struct ByAddress {
  bool operator()(const Block* a, const Block* b) const {
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};
std::atomic<ContextRecorder> g_context_recorder{nullptr};

// A freed block that other streams used: it waits here until the events recorded on them complete.
struct PendingFree {
  Block* block;
  std::vector<std::unique_ptr<Event>> events;
};

class DeviceAllocator;
// The allocator whose lock this thread holds (innermost), to recognize a call that comes back into it.
thread_local DeviceAllocator* tls_locked_allocator = nullptr;

class DeviceAllocator {
 public:
  explicit DeviceAllocator(int device)
      : device_(DeviceRegistry::instance().device(device)), limit_(device_.properties.total_memory_bytes) {
    spare_nodes_.reserve(kSpares);
    spare_blocks_.reserve(kSpares);
  }
  ~DeviceAllocator() {
    for (Block* b : spare_blocks_) delete b;
  }

  // `report`, when given (a profiler observes), receives the event for report_memory_activity(), which
  // the caller makes once this allocator's lock is released.
  Allocation allocate(size_t size, StreamId stream, MemoryActivity* report);
  void free(Block* block, MemoryActivity* report);
  void record_stream(Block* block, StreamId stream);
  void empty_cache();
  void set_fraction(double fraction);
  double fraction() {
    Lock lock(*this);
    return fraction_;
  }
  DeviceStats stats() {
    Lock lock(*this);
    flush_recent();
    size_t max_split = allocator_config().max_split_size;
    DeviceStats out = stats_;
    out.max_split_size = max_split == SIZE_MAX ? -1 : static_cast<int64_t>(max_split);
    return out;
  }
  void reset_peak() {
    Lock lock(*this);
    stats_.reset_peak();
  }
  void reset_accumulated() {
    Lock lock(*this);
    stats_.reset_accumulated();
  }
  void snapshot(std::vector<SegmentInfo>& out);
  bool segment_containing(const void* ptr, Segment* out);
  std::vector<TraceEntry> trace() {
    Lock lock(*this);
    return trace_.entries();
  }
  int index() const { return device_.index; }
  void clear_trace() {
    Lock lock(*this);
    trace_.clear();
  }
  Block* allocated_block_containing(const void* ptr);

 private:
  // The lock of every public operation. An adapter call made under it can come back: a Python backend's
  // allocate_memory (or event query) may run Python's garbage collector, which frees a tensor of this device on
  // this same thread. Such a free neither waits for the lock (a deadlock) nor changes the pools in the middle of
  // the operation that called the adapter: it waits in reentrant_frees_ until that operation ends. Any other
  // operation coming back raises instead of deadlocking.
  class Lock {
   public:
    explicit Lock(DeviceAllocator& a) : allocator_(a), previous_(tls_locked_allocator) {
      if (previous_ == &a) a.throw_reentered();
      a.mutex_.lock();
      tls_locked_allocator = &a;
    }
    ~Lock() {
      if (!allocator_.reentrant_frees_.empty()) allocator_.free_reentrant();
      tls_locked_allocator = previous_;
      allocator_.mutex_.unlock();
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    DeviceAllocator& allocator_;
    DeviceAllocator* previous_;
  };
  [[noreturn, gnu::noinline, gnu::cold]] void throw_reentered() const;
  [[gnu::noinline]] void free_reentrant() noexcept;
  void free_locked(Block* block, MemoryActivity* report);

  // Everything below runs with mutex_ held.
  BlockPool& pool_for(bool large) { return large ? large_ : small_; }
  void pool_insert(Block* block);
  void pool_erase(Block* block);
  // Every allocation splits a free block and every free merges it back: a pool node and a Block come and go
  // each time. They are kept for reuse instead of going back to the heap (a few hundred ns a pair).
  Block* make_block(StreamId stream, size_t size, void* ptr, bool large);
  void recycle_block(Block* block);
  Block* find_free(size_t rounded, bool large, StreamId stream);
  // A segment of `segment_size` bytes from the adapter, holding one free block; nullptr when the device (or
  // the memory-fraction cap) has no room for it.
  Block* new_segment(size_t segment_size, bool large, StreamId stream);
  void retire(Block* block);  // a freed block is no longer active (its stream work is done)
  void return_to_pool(Block* block);  // retire, then merge with free neighbours and cache
  void merge_into_pool(Block* block);
  // The recently freed small blocks (see recent_): keep a retired one, take one back for an allocation, or
  // merge them all into the pool before anything looks at the pool as a whole.
  void keep_recent(Block* block);
  Block* take_recent(size_t rounded, StreamId stream);
  void flush_recent();
  Allocation hand_out(Block* block, size_t size, MemoryActivity* report);
  // allocate() and free() take a short path for the common case (a kept block of the size asked for; a block no
  // other stream used): a training step allocates and frees dozens of small buffers, and every byte of code on
  // that path competes with PyTorch's own for the instruction cache. Everything else is out of line.
  [[gnu::noinline]] Allocation allocate_from_pool(size_t size, StreamId stream, MemoryActivity* report);
  [[gnu::noinline]] void free_after_other_streams(Block* block, MemoryActivity* report);
  [[noreturn, gnu::noinline, gnu::cold]] static void throw_double_free();
  // Where an allocation came from, while memory history records contexts.
  [[gnu::noinline]] static void record_context(Block* block, ContextRecorder recorder) { block->context = recorder(); }
  void mark_free(Block* block, MemoryActivity* report);
  void process_pending(bool wait);
  void release_cached();
  [[noreturn]] void throw_oom(size_t requested);
  void fill_report(MemoryActivity* report, const Block* block, int64_t bytes) const;

  const Device& device_;
  std::mutex mutex_;
  std::vector<Block*> reentrant_frees_;  // frees that came back into an operation of this thread (see Lock)
  BlockPool small_, large_;
  std::set<Block*, ByAddress> segments_;  // first block of each segment
  std::deque<PendingFree> pending_;
  static constexpr size_t kSpares = 64;
  std::vector<BlockPool::node_type> spare_nodes_;
  std::vector<Block*> spare_blocks_;
  // A training step frees and allocates the same small shapes over and over. The last freed small blocks stay
  // whole here (not merged into their segments, in no pool), and an allocation of the same rounded size on the
  // same stream takes the newest back: no search, no split and no merge, a short path through little code.
  // Statistics, snapshots, empty_cache and a failed search merge them back first, so that nothing outside sees
  // them apart from a lower peak of inactive split blocks. A forward allocates a few dozen buffers that its
  // backward frees, hence the count; size and stream sit beside each block, so a search reads one short array.
  struct RecentBlock {
    size_t size;
    StreamId stream;
    Block* block;
  };
  static constexpr size_t kRecentBlocks = 32;
  std::array<RecentBlock, kRecentBlocks> recent_{};
  size_t recent_count_ = 0;
  DeviceStats stats_;
  AllocatorTrace trace_;
  double fraction_ = 1.0;
  uint64_t limit_;            // fraction_ * total memory; reserved never exceeds it
  bool capped_by_fraction_ = false;  // the last failed segment request hit limit_, not the device
};

void DeviceAllocator::pool_insert(Block* block) {
  BlockPool& pool = pool_for(block->is_large);
  if (spare_nodes_.empty()) {
    block->pool_position = pool.insert(block).first;
  } else {
    BlockPool::node_type node = std::move(spare_nodes_.back());
    spare_nodes_.pop_back();
    node.value() = block;
    block->pool_position = pool.insert(std::move(node)).position;
  }
  block->in_pool = true;
  if (block->is_split()) {
    // A free piece of a segment that is partly in use: the fragmentation torch.cuda reports.
    block->counted_inactive_split = true;
    stats_.inactive_split.increase(block->is_large, 1);
    stats_.inactive_split_bytes.increase(block->is_large, static_cast<int64_t>(block->size));
  }
}

void DeviceAllocator::pool_erase(Block* block) {
  BlockPool::node_type node = pool_for(block->is_large).extract(block->pool_position);
  if (spare_nodes_.size() < kSpares) spare_nodes_.push_back(std::move(node));  // reserved: no allocation
  block->in_pool = false;
  if (block->counted_inactive_split) {
    block->counted_inactive_split = false;
    stats_.inactive_split.decrease(block->is_large, 1);
    stats_.inactive_split_bytes.decrease(block->is_large, static_cast<int64_t>(block->size));
  }
}

Block* DeviceAllocator::make_block(StreamId stream, size_t size, void* ptr, bool large) {
  if (spare_blocks_.empty()) return new Block(device_.index, stream, size, ptr, large);
  Block* block = spare_blocks_.back();
  spare_blocks_.pop_back();
  *block = Block(device_.index, stream, size, ptr, large);
  return block;
}

void DeviceAllocator::recycle_block(Block* block) {
  if (spare_blocks_.size() < kSpares) {
    spare_blocks_.push_back(block);  // reserved: no allocation
  } else {
    delete block;
  }
}

Block* DeviceAllocator::find_free(size_t rounded, bool large, StreamId stream) {
  BlockPool& pool = pool_for(large);
  Block key(device_.index, stream, rounded, nullptr, large);
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  const size_t max_split = allocator_config().max_split_size;
  // Oversize blocks are kept for oversize requests, and those must not waste much of a bigger block. A
  // block no larger than the segment this request would get anyway is no waste: without that exception
  // a request just under max_split (or any small-pool request with max_split_size_mb:2), whose own
  // segment rounds up to max_split or beyond, could never reuse its freed segment and would reserve a
  // new one on every allocation.
  if (rounded < max_split && block->size >= max_split && block->size > segment_size_for(rounded, large)) {
    return nullptr;
  }
  if (rounded >= max_split && block->size >= rounded + kLargeBuffer) return nullptr;
  pool_erase(block);
  return block;
}

Block* DeviceAllocator::new_segment(size_t segment_size, bool large, StreamId stream) {
  if (limit_ > 0 && static_cast<uint64_t>(stats_.reserved_bytes.current()) + segment_size > limit_) {
    capped_by_fraction_ = fraction_ < 1.0;  // at 1.0 the cap is the device itself: nothing to mention
    return nullptr;
  }
  capped_by_fraction_ = false;
  void* ptr = nullptr;
  const hal_adapter_t& t = device_.table();
  hal_status_t st = t.malloc_device(device_.local_index, segment_size, &ptr);
  if (st == HAL_STATUS_OUT_OF_DEVICE_MEMORY) return nullptr;
  throw_on_failure(t, st, "malloc_device");
  Block* block = nullptr;
  try {
    block = new Block(device_.index, stream, segment_size, ptr, large);
    segments_.insert(block);
  } catch (...) {
    delete block;
    t.free_device(device_.local_index, ptr);  // the device memory must not outlive a failed bookkeeping
    throw;
  }
  stats_.segment.increase(large, 1);
  stats_.reserved_bytes.increase(large, static_cast<int64_t>(segment_size));
  ++stats_.num_device_alloc;
  trace_.record(TraceAction::SegmentAlloc, reinterpret_cast<uint64_t>(ptr), segment_size, stream);
  return block;
}

void DeviceAllocator::fill_report(MemoryActivity* report, const Block* block, int64_t bytes) const {
  if (!report) return;
  *report = MemoryActivity{device_.index, block->ptr, bytes, stats_.allocated_bytes.current(),
                           stats_.reserved_bytes.current(), block->stream};
}

Allocation DeviceAllocator::allocate(size_t size, StreamId stream, MemoryActivity* report) {
  Lock lock(*this);
  if (!pending_.empty()) process_pending(false);
  if (size <= kSmallSize) {
    if (Block* kept = take_recent(round_size(size), stream)) return hand_out(kept, size, report);
  }
  return allocate_from_pool(size, stream, report);
}

// No kept block serves the request (allocate() looked, after the completed pending frees came back).
Allocation DeviceAllocator::allocate_from_pool(size_t size, StreamId stream, MemoryActivity* report) {
  if (size > kMaxRequest) {
    ++stats_.num_ooms;
    throw_oom(size);
  }
  const size_t rounded = round_size(size);
  const bool large = rounded > kSmallSize;
  Block* block = find_free(rounded, large, stream);
  if (!block && recent_count_ > 0) {
    flush_recent();  // the kept blocks may merge into what this request needs
    block = find_free(rounded, large, stream);
  }
  if (!block) {
    const double gc = allocator_config().garbage_collection_threshold;
    if (gc > 0.0 && limit_ > 0 && static_cast<double>(stats_.reserved_bytes.current()) > gc * static_cast<double>(limit_)) {
      release_cached();
    }
    block = new_segment(segment_size_for(rounded, large), large, stream);
  }
  if (!block) {
    // Cached but unused segments may be what stands in the way: give them back and try once more.
    ++stats_.num_alloc_retries;
    release_cached();
    block = new_segment(segment_size_for(rounded, large), large, stream);
  }
  if (!block && segment_size_for(rounded, large) > rounded) {
    // A nearly full (or tiny) device may have less left than a whole segment but enough for the request
    // itself: a segment of just that size, rather than an out-of-memory error for 12 bytes that says
    // 1 MiB is free.
    block = new_segment(rounded, large, stream);
  }
  if (!block) {
    ++stats_.num_ooms;
    throw_oom(size);
  }

  const size_t remaining = block->size - rounded;
  const bool split = large ? (rounded < allocator_config().max_split_size && remaining > kSmallSize)
                           : remaining >= kMinBlockSize;
  if (split) {
    Block* rest = nullptr;
    try {
      rest = make_block(stream, remaining, static_cast<char*>(block->ptr) + rounded, large);
    } catch (...) {
      pool_insert(block);  // back to the cache rather than lost
      throw;
    }
    rest->prev = block;
    rest->next = block->next;
    if (rest->next) rest->next->prev = rest;
    block->next = rest;
    block->size = rounded;
    pool_insert(rest);
  }
  return hand_out(block, size, report);
}

Allocation DeviceAllocator::hand_out(Block* block, size_t size, MemoryActivity* report) {
  const bool large = block->is_large;
  block->allocated = true;
  block->requested = size;
  if (ContextRecorder recorder = g_context_recorder.load(std::memory_order_relaxed)) record_context(block, recorder);
  trace_.record(TraceAction::Alloc, reinterpret_cast<uint64_t>(block->ptr), block->size, block->stream,
                block->context);
  stats_.allocation.increase(large, 1);
  stats_.allocated_bytes.increase(large, static_cast<int64_t>(block->size));
  stats_.active.increase(large, 1);
  stats_.active_bytes.increase(large, static_cast<int64_t>(block->size));
  stats_.requested_bytes.increase(large, static_cast<int64_t>(size));
  fill_report(report, block, static_cast<int64_t>(block->size));
  return Allocation{block->ptr, block};
}

void DeviceAllocator::keep_recent(Block* block) {
  if (recent_count_ == kRecentBlocks) {
    // Full: the oldest goes to the pool.
    Block* oldest = recent_[0].block;
    std::copy(recent_.begin() + 1, recent_.end(), recent_.begin());
    --recent_count_;
    merge_into_pool(oldest);
  }
  recent_[recent_count_++] = RecentBlock{block->size, block->stream, block};
}

Block* DeviceAllocator::take_recent(size_t rounded, StreamId stream) {
  for (size_t i = recent_count_; i-- > 0;) {  // newest first: its memory is the likeliest still in cache
    if (recent_[i].size == rounded && recent_[i].stream == stream) {
      Block* block = recent_[i].block;
      std::copy(recent_.begin() + i + 1, recent_.begin() + recent_count_, recent_.begin() + i);
      --recent_count_;
      return block;
    }
  }
  return nullptr;
}

void DeviceAllocator::flush_recent() {
  for (size_t i = 0; i < recent_count_; ++i) merge_into_pool(recent_[i].block);
  recent_count_ = 0;
}

void DeviceAllocator::free(Block* block, MemoryActivity* report) {
  if (tls_locked_allocator == this) {  // a garbage collection inside an adapter call of this thread's operation
    reentrant_frees_.push_back(block);
    return;
  }
  Lock lock(*this);
  free_locked(block, report);
}

void DeviceAllocator::free_reentrant() noexcept {
  // Taken one at a time: freeing one may record events through the adapter, which can collect garbage again.
  while (!reentrant_frees_.empty()) {
    Block* block = reentrant_frees_.back();
    reentrant_frees_.pop_back();
    try {
      free_locked(block, nullptr);
    } catch (const std::exception& e) {
      // The block stays allocated (its memory is not reused): a leak, never a corruption.
      std::fprintf(stderr, "torch_hal: a block of hal:%d freed during an allocator call could not be freed: %s\n",
                   device_.index, e.what());
    }
  }
}

void DeviceAllocator::throw_reentered() const {
  throw Error(ErrorCode::Internal,
              "hal caching allocator of hal:" + std::to_string(device_.index) +
                  ": called again from inside one of its own calls on the same thread (a Python backend's "
                  "allocate_memory or event hook that allocates on, or inspects, the same device). Make the hook "
                  "return plain buffers without creating hal tensors of that device");
}

void DeviceAllocator::free_locked(Block* block, MemoryActivity* report) {
  if (!block->allocated) throw_double_free();
  if (!block->stream_uses.empty()) return free_after_other_streams(block, report);
  mark_free(block, report);
  retire(block);
  if (block->is_large) {
    merge_into_pool(block);
  } else {
    keep_recent(block);
  }
}

void DeviceAllocator::throw_double_free() {
  throw Error(ErrorCode::Internal, "hal caching allocator: block freed twice");
}

void DeviceAllocator::mark_free(Block* block, MemoryActivity* report) {
  block->allocated = false;
  trace_.record(TraceAction::FreeRequested, reinterpret_cast<uint64_t>(block->ptr), block->size, block->stream,
                block->context);
  stats_.allocation.decrease(block->is_large, 1);
  stats_.allocated_bytes.decrease(block->is_large, static_cast<int64_t>(block->size));
  stats_.requested_bytes.decrease(block->is_large, static_cast<int64_t>(block->requested));
  fill_report(report, block, -static_cast<int64_t>(block->size));
  block->context.clear();
}

void DeviceAllocator::free_after_other_streams(Block* block, MemoryActivity* report) {
  // Other streams may still be reading or writing it: mark where they are now, and reuse it after that.
  // The events are recorded before anything changes, so that a failing record leaves the block allocated
  // (the caller gets the error and may free it again) instead of neither cached nor pending: lost, with
  // its segment never releasable.
  std::vector<std::unique_ptr<Event>> events;
  events.reserve(block->stream_uses.size());
  for (StreamId s : block->stream_uses) {
    auto event = std::make_unique<Event>();
    event->record(device_.index, s);
    events.push_back(std::move(event));
  }
  pending_.push_back(PendingFree{block, {}});  // may throw: nothing changed yet
  mark_free(block, report);
  pending_.back().events = std::move(events);
  block->stream_uses.clear();
}

void DeviceAllocator::retire(Block* block) {
  trace_.record(TraceAction::FreeCompleted, reinterpret_cast<uint64_t>(block->ptr), block->size, block->stream);
  stats_.active.decrease(block->is_large, 1);
  stats_.active_bytes.decrease(block->is_large, static_cast<int64_t>(block->size));
}

void DeviceAllocator::return_to_pool(Block* block) {
  retire(block);
  merge_into_pool(block);
}

void DeviceAllocator::merge_into_pool(Block* block) {
  // The lower block of a pair always absorbs the upper one, so that a segment's first block (the key in
  // segments_) survives every merge.
  const auto absorb_next = [this](Block* lower) {
    Block* upper = lower->next;
    lower->size += upper->size;
    lower->next = upper->next;
    if (lower->next) lower->next->prev = lower;
    recycle_block(upper);
  };
  if (block->prev && block->prev->in_pool) {
    block = block->prev;
    pool_erase(block);
    absorb_next(block);
  }
  if (block->next && block->next->in_pool) {
    pool_erase(block->next);
    absorb_next(block);
  }
  pool_insert(block);
}

void DeviceAllocator::record_stream(Block* block, StreamId stream) {
  native_stream(device_.index, stream);  // validates the id
  Lock lock(*this);
  if (stream != block->stream) block->stream_uses.insert(stream);
}

void DeviceAllocator::process_pending(bool wait) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    bool done = true;
    for (const auto& event : it->events) {
      if (wait) {
        event->synchronize();
      } else if (!event->query()) {
        done = false;
        break;
      }
    }
    if (!done) {
      ++it;
      continue;
    }
    Block* block = it->block;
    it = pending_.erase(it);  // destroys the events
    return_to_pool(block);
  }
}

void DeviceAllocator::release_cached() {
  process_pending(true);
  flush_recent();
  std::vector<Block*> whole;
  for (Block* head : segments_) {
    if (head->in_pool && !head->is_split()) whole.push_back(head);
  }
  if (whole.empty()) return;
  // Work queued on the segment's stream before its blocks were freed may still touch the memory, and
  // free_device is not stream-ordered (cudaFree synchronizes implicitly; adapters need not).
  const hal_adapter_t& t = device_.table();
  throw_on_failure(t, t.device_synchronize(device_.local_index), "device_synchronize");
  for (Block* block : whole) {
    // A segment the adapter did not free is still reserved: it stays cached and counted (reserved must
    // keep covering what the device holds for us), and the error is raised.
    throw_on_failure(t, t.free_device(device_.local_index, block->ptr), "free_device");
    pool_erase(block);
    segments_.erase(block);
    stats_.segment.decrease(block->is_large, 1);
    stats_.reserved_bytes.decrease(block->is_large, static_cast<int64_t>(block->size));
    ++stats_.num_device_free;
    trace_.record(TraceAction::SegmentFree, reinterpret_cast<uint64_t>(block->ptr), block->size, block->stream);
    delete block;
  }
}

void DeviceAllocator::empty_cache() {
  Lock lock(*this);
  release_cached();
}

void DeviceAllocator::set_fraction(double fraction) {
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw Error(ErrorCode::InvalidArgument, "memory fraction " + std::to_string(fraction) +
                                                " for hal:" + std::to_string(device_.index) + " must be in (0, 1]");
  }
  Lock lock(*this);
  fraction_ = fraction;
  limit_ = static_cast<uint64_t>(fraction * static_cast<double>(device_.properties.total_memory_bytes));
}

void DeviceAllocator::throw_oom(size_t requested) {
  uint64_t free_bytes = 0, total_bytes = device_.properties.total_memory_bytes;
  const bool known = device_.table().get_memory_info(device_.local_index, &free_bytes, &total_bytes) == HAL_STATUS_SUCCESS;
  trace_.record(TraceAction::Oom, free_bytes, requested, StreamId{});  // address: the device's free bytes
  std::string msg = "hal:" + std::to_string(device_.index) + " (" + device_.properties.name +
                    ") out of memory: tried to allocate " + format_bytes(static_cast<double>(requested)) + "; " +
                    format_bytes(static_cast<double>(stats_.allocated_bytes.current())) +
                    " already allocated by tensors, " +
                    format_bytes(static_cast<double>(stats_.reserved_bytes.current())) +
                    " reserved by the caching allocator, ";
  msg += known ? format_bytes(static_cast<double>(free_bytes)) + " free of " +
                     format_bytes(static_cast<double>(total_bytes)) + " total"
               : "free memory unknown";
  if (capped_by_fraction_) {
    char fraction[32];
    std::snprintf(fraction, sizeof(fraction), "%g", fraction_);
    msg += "; this process may reserve at most " + format_bytes(static_cast<double>(limit_)) +
           " (memory fraction " + fraction + ", see torch.hal.set_per_process_memory_fraction)";
  }
  msg += ". Free tensors you no longer need, call torch.hal.empty_cache(), use a smaller batch, or set "
         "PYTORCH_HAL_ALLOC_CONF=max_split_size_mb:<N> against fragmentation.";
  throw Error(ErrorCode::OutOfDeviceMemory, msg);
}

void DeviceAllocator::snapshot(std::vector<SegmentInfo>& out) {
  Lock lock(*this);
  flush_recent();
  for (Block* head : segments_) {
    SegmentInfo seg{device_.index, reinterpret_cast<uint64_t>(head->ptr), 0, 0, head->stream, head->is_large, {}};
    for (Block* b = head; b; b = b->next) {
      seg.total_size += b->size;
      if (b->allocated) seg.allocated_size += b->size;
      seg.blocks.push_back(BlockInfo{reinterpret_cast<uint64_t>(b->ptr), b->size, b->requested, b->allocated, b->context});
    }
    out.push_back(std::move(seg));
  }
}

Block* DeviceAllocator::allocated_block_containing(const void* ptr) {
  Lock lock(*this);
  Block probe(device_.index, StreamId{}, 0, const_cast<void*>(ptr), false);
  auto it = segments_.upper_bound(&probe);  // the first segment that starts after ptr
  if (it == segments_.begin()) return nullptr;
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  for (Block* b = *std::prev(it); b; b = b->next) {
    const auto start = reinterpret_cast<uintptr_t>(b->ptr);
    if (address >= start && address < start + b->size) return b->allocated ? b : nullptr;
  }
  return nullptr;  // past the end of that segment
}

bool DeviceAllocator::segment_containing(const void* ptr, Segment* out) {
  Lock lock(*this);
  Block probe(device_.index, StreamId{}, 0, const_cast<void*>(ptr), false);
  auto it = segments_.upper_bound(&probe);
  if (it == segments_.begin()) return false;
  Block* head = *std::prev(it);
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  bool inside_allocated = false;
  size_t size = 0;
  for (Block* b = head; b; b = b->next) {
    const auto start = reinterpret_cast<uintptr_t>(b->ptr);
    if (address >= start && address < start + b->size) inside_allocated = b->allocated;
    size += b->size;
  }
  if (!inside_allocated) return false;
  *out = Segment{device_.index, head->ptr, size};
  return true;
}

DeviceAllocator& allocator_of(int device) { return per_device_state<DeviceAllocator>().get(device); }

}  // namespace

Allocation allocate(int device, size_t size, StreamId stream) {
  native_stream(device, stream);  // validates device and stream before anything is reserved
  if (size == 0) return {};
  if (!activity_observed()) return allocator_of(device).allocate(size, stream, nullptr);
  MemoryActivity report{};
  const Allocation allocation = allocator_of(device).allocate(size, stream, &report);
  report_memory_activity(report);
  return allocation;
}

void free_block(Block* block) {
  // In a bad fork the allocator's lock may be held by a thread that does not exist here: the child's copy
  // of the memory is left alone (it goes with the process).
  if (!block || in_bad_fork()) return;
  if (!activity_observed()) return allocator_of(block->device).free(block, nullptr);
  MemoryActivity report{};
  allocator_of(block->device).free(block, &report);
  report_memory_activity(report);
}

void record_stream(Block* block, StreamId stream) {
  throw_if_bad_fork();
  if (block) allocator_of(block->device).record_stream(block, stream);
}

Block* allocated_block_containing(const void* ptr) {
  Block* found = nullptr;
  per_device_state<DeviceAllocator>().for_each([&](DeviceAllocator& a) {
    if (!found) found = a.allocated_block_containing(ptr);
  });
  return found;
}

bool segment_containing(const void* ptr, Segment* out) {
  bool found = false;
  per_device_state<DeviceAllocator>().for_each([&](DeviceAllocator& a) {
    if (!found) found = a.segment_containing(ptr, out);
  });
  return found;
}

int block_device(const Block* block) { return block->device; }
size_t block_size(const Block* block) { return block->size; }

// The entries below take allocator locks: in a bad fork they raise instead (fork_guard.h).
void empty_cache() {
  throw_if_bad_fork();
  per_device_state<DeviceAllocator>().for_each([](DeviceAllocator& a) { a.empty_cache(); });
}

void set_memory_fraction(int device, double fraction) {
  throw_if_bad_fork();
  allocator_of(device).set_fraction(fraction);
}
double memory_fraction(int device) {
  throw_if_bad_fork();
  return allocator_of(device).fraction();
}

DeviceStats device_stats(int device) {
  throw_if_bad_fork();
  return allocator_of(device).stats();
}
std::map<std::string, int64_t> memory_stats(int device) { return device_stats(device).to_map(); }
void reset_peak_stats(int device) {
  throw_if_bad_fork();
  allocator_of(device).reset_peak();
}
void reset_accumulated_stats(int device) {
  throw_if_bad_fork();
  allocator_of(device).reset_accumulated();
}

std::vector<SegmentInfo> memory_snapshot() {
  throw_if_bad_fork();
  std::vector<SegmentInfo> out;
  per_device_state<DeviceAllocator>().for_each([&](DeviceAllocator& a) { a.snapshot(out); });
  return out;
}

std::map<int, std::vector<TraceEntry>> memory_trace() {
  throw_if_bad_fork();
  std::map<int, std::vector<TraceEntry>> out;
  per_device_state<DeviceAllocator>().for_each([&](DeviceAllocator& a) { out[a.index()] = a.trace(); });
  return out;
}

void clear_memory_trace() {
  throw_if_bad_fork();
  per_device_state<DeviceAllocator>().for_each([](DeviceAllocator& a) { a.clear_trace(); });
}

void set_context_recorder(ContextRecorder recorder) { g_context_recorder.store(recorder); }

}  // namespace hal
