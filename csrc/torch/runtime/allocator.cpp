#include "runtime/allocator.h"

#include <c10/core/CachingDeviceAllocator.h>
// The host allocator interface as PyTorch 2.13 has it (checked there); PyTorch 2.11, the GPU machine's, is told
// apart by its lack of the graph interface of 2.12 (and keeps the plain pinned allocator).
#if __has_include(<ATen/core/CachingHostAllocator.h>) && __has_include(<ATen/core/GraphImplInterface.h>)
#include <ATen/core/CachingHostAllocator.h>
#define TORCH_HAL_HAS_HOST_ALLOCATOR 1
#else
#define TORCH_HAL_HAS_HOST_ALLOCATOR 0
#endif

#include <cstring>
#include <iterator>
#include <tuple>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/pinned_memory.h"
#include "runtime/hal_context.h"
#include "runtime/python_gil.h"

namespace torch_hal {
namespace {

// c10's device statistics from the core's: the same fields by the same names (hal/memory_stats.h's one list).
c10::CachingDeviceAllocator::DeviceStats to_c10_stats(const hal::DeviceStats& stats) {
  c10::CachingDeviceAllocator::DeviceStats out;
  auto copy = [](const hal::StatArray& from, c10::CachingDeviceAllocator::StatArray& to) {
    static_assert(std::tuple_size_v<c10::CachingDeviceAllocator::StatArray> == std::size(hal::kStatPoolNames));
    for (size_t pool = 0; pool < from.pools.size(); ++pool) {
      to[pool].current = from.pools[pool].current;
      to[pool].peak = from.pools[pool].peak;
      to[pool].allocated = from.pools[pool].allocated;
      to[pool].freed = from.pools[pool].freed;
    }
  };
#define HAL_COPY_STAT_ARRAY(name) copy(stats.name, out.name);
  HAL_DEVICE_STAT_ARRAYS(HAL_COPY_STAT_ARRAY)
#undef HAL_COPY_STAT_ARRAY
#define HAL_COPY_STAT_COUNTER(name) out.name = stats.name;
  HAL_DEVICE_STAT_COUNTERS(HAL_COPY_STAT_COUNTER)
#undef HAL_COPY_STAT_COUNTER
  out.max_split_size = stats.max_split_size;
  return out;
}

// A c10::DeviceAllocator, so that device-generic code (torch.accelerator.memory_allocated(), empty_cache(),
// memory_stats(), get_memory_info(); libraries written against torch.accelerator) works on hal as on cuda.
struct HalDeviceAllocator final : public c10::DeviceAllocator {
  c10::DataPtr allocate(size_t nbytes) override { return allocate_on(current_device(), nbytes); }

  bool initialized() override { return true; }
  // hal has no private pools (CUDA graphs' pools): any mempool id empties the one cache.
  void emptyCache(c10::MempoolId_t /*mempool_id*/) override { empty_device_cache(); }
  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override {
    record_data_ptr_on_stream(ptr, stream.id());
  }
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex index) override {
    device(index);  // a clear error for an index that does not exist
    GilReleasedAroundCoreLock no_gil;
    return to_c10_stats(call_core([&] { return hal::device_stats(index); }));
  }
  void resetAccumulatedStats(c10::DeviceIndex index) override {
    device(index);
    GilReleasedAroundCoreLock no_gil;
    call_core([&] { hal::reset_accumulated_stats(index); });
  }
  void resetPeakStats(c10::DeviceIndex index) override {
    device(index);
    GilReleasedAroundCoreLock no_gil;
    call_core([&] { hal::reset_peak_stats(index); });
  }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex index) override {
    const auto [free_bytes, total_bytes] = memory_info(index);
    return {static_cast<size_t>(free_bytes), static_cast<size_t>(total_bytes)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }  // context != data: no raw API

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    const auto index = current_device();
    call_core([&] {
      hal::copy_device_to_device(index, dest, index, src, count, hal::current_stream(index), false);
    });
  }
};

HalDeviceAllocator g_device_allocator;

void free_pinned_block(void* ctx) {
  // ctx packs the device the memory came from; data is the pinned pointer.
  auto* owner = static_cast<std::pair<int, void*>*>(ctx);
  hal::free_pinned(owner->first, owner->second);
  delete owner;
}

// Pinned host memory from the core's cache (hal/pinned_memory.h). Where PyTorch has a host allocator interface
// (torch.accelerator.empty_host_cache() and host_memory_stats() call it through getHostAllocator; without one
// registered for PrivateUse1, PyTorch 2.13 dereferences null), it is hal's host allocator too.
#if TORCH_HAL_HAS_HOST_ALLOCATOR
using PinnedAllocatorBase = at::HostAllocator;
#else
using PinnedAllocatorBase = c10::Allocator;
#endif

struct HalPinnedAllocator final : public PinnedAllocatorBase {
  c10::DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return {nullptr, nullptr, &free_pinned_block, c10::Device(c10::DeviceType::CPU)};
    const int index = current_device();
    void* ptr = call_core([&] { return hal::allocate_pinned(index, nbytes); });
    return {ptr, new std::pair<int, void*>(index, ptr), &free_pinned_block, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }

#if TORCH_HAL_HAS_HOST_ALLOCATOR
  // A use of the block on `stream`: the cache reuses it only after that stream's work (the copy engine records
  // its own copies; this is for users' record_stream on pinned tensors).
  bool record_event(void* ptr, void* /*ctx*/, c10::Stream stream) override {
    call_core([&] { hal::record_pinned_use(ptr, stream.device_index(), stream.id()); });
    return true;
  }
  void empty_cache() override {
    GilReleasedAroundCoreLock no_gil;
    call_core([] { hal::empty_pinned_cache(); });
  }
  at::HostStats get_stats() override {
    const hal::PinnedMemoryStats s = call_core([] { return hal::pinned_memory_stats(); });
    at::HostStats out;
    copy_stat(s.active_requests, out.active_requests);
    copy_stat(s.active_bytes, out.active_bytes);
    copy_stat(s.allocations, out.allocations);
    copy_stat(s.allocated_bytes, out.allocated_bytes);
    copy_duration(s.alloc_time_us, out.host_alloc_time);
    copy_duration(s.free_time_us, out.host_free_time);
    out.num_host_alloc = s.num_host_alloc;
    out.num_host_free = s.num_host_free;
    return out;
  }
  void reset_accumulated_stats() override {
    call_core([] { hal::reset_accumulated_pinned_memory_stats(); });
  }
  void reset_peak_stats() override {
    call_core([] { hal::reset_peak_pinned_memory_stats(); });
  }

 private:
  static void copy_stat(const hal::Stat& from, c10::CachingAllocator::Stat& to) {
    to.current = from.current;
    to.peak = from.peak;
    to.allocated = from.allocated;
    to.freed = from.freed;
  }
  static void copy_duration(const hal::DurationStat& from, c10::CachingAllocator::DurationStat& to) {
    to.total = static_cast<int64_t>(from.total);
    to.max = static_cast<int64_t>(from.max);
    to.min = static_cast<int64_t>(from.min);
    to.count = from.count;
  }
#endif
};

HalPinnedAllocator g_pinned_allocator;

#if TORCH_HAL_HAS_HOST_ALLOCATOR
REGISTER_HOST_ALLOCATOR(at::kPrivateUse1, &g_pinned_allocator)
#endif

}  // namespace

// The DataPtr's context is the core's Block; freeing returns it to the cache.
void free_hal_block(void* block) {
  GilReleasedAroundCoreLock no_gil;
  hal::free_block(static_cast<hal::Block*>(block));
}

c10::Allocator* device_allocator() { return &g_device_allocator; }

void empty_device_cache() {
  GilReleasedAroundCoreLock no_gil;
  call_core([] { hal::empty_cache(); });
}

std::pair<uint64_t, uint64_t> memory_info(c10::DeviceIndex index) {
  const auto& d = device(index);
  uint64_t free_bytes = 0, total_bytes = 0;
  GilReleasedAroundCoreLock no_gil;
  call_core([&] {
    hal::throw_on_failure(d.table(), d.table().get_memory_info(d.local_index, &free_bytes, &total_bytes),
                          "get_memory_info");
  });
  return {free_bytes, total_bytes};
}
c10::Allocator* pinned_allocator() { return &g_pinned_allocator; }

c10::DataPtr allocate_on(c10::DeviceIndex index, size_t nbytes) {
  const c10::Device where(kHal, index);
  if (nbytes == 0) return {nullptr, nullptr, &free_hal_block, where};
  const auto allocation = call_core([&] {
    GilReleasedAroundCoreLock no_gil;
    return hal::allocate(index, nbytes, hal::current_stream(index));
  });
  return {allocation.ptr, allocation.block, &free_hal_block, where};
}

void record_data_ptr_on_stream(const c10::DataPtr& data_ptr, hal::StreamId stream) {
  // Only memory of the caching allocator has a block to record (not an empty or foreign DataPtr).
  if (data_ptr.get_deleter() != &free_hal_block || data_ptr.get_context() == nullptr) return;
  call_core([&] {
    GilReleasedAroundCoreLock no_gil;
    hal::record_stream(static_cast<hal::Block*>(data_ptr.get_context()), stream);
  });
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_device_allocator);

}  // namespace torch_hal
