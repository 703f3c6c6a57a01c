#include "memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"

namespace host_adapter {
namespace {

// Bytes charged for a request of `size`, rounded up to the alignment; false when that overflows or
// exceeds what any object may span (PTRDIFF_MAX): such a request is out of memory, never a wrapped size.
bool aligned_size(uint64_t size, uint64_t* out) {
  const uint64_t n = std::max<uint64_t>(size, 1);
  if (n > static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()) - (kAlignment - 1)) return false;
  *out = (n + kAlignment - 1) / kAlignment * kAlignment;
  return true;
}

}  // namespace

// ---- memory -----------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  HostDevice& d = dev(device);
  uint64_t charged = 0;
  const bool representable = aligned_size(size, &charged);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!representable || charged > d.capacity - d.used) {
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY,
                "host device " + std::to_string(device) + ": cannot allocate " + std::to_string(size) + " bytes: " +
                    std::to_string(d.used) + " of its capacity of " + std::to_string(d.capacity) +
                    " bytes are in use (the capacity is set by TORCH_HAL_HOST_MEMORY, e.g. TORCH_HAL_HOST_MEMORY=8G)");
  }
  // Page-aligned, so beyond the ABI's alignment; shareable with other processes (shared_memory.h).
  std::unique_ptr<Region> region = Region::allocate(charged);
  if (!region) {
    // The simulated device memory is the machine's RAM, so RAM running out is this device's OOM.
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "host device " + std::to_string(device) + ": the system has no " +
                                                     std::to_string(size) + " bytes of RAM left for device memory");
  }
  void* p = region->data();
  try {
    d.allocations.emplace(p, HostDevice::Allocation{charged, std::move(region)});
  } catch (...) {
    return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_device: no host memory left for the allocation table");
  }
  d.used += charged;
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_device(int32_t device, void* ptr) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.allocations.find(ptr);
  if (it == d.allocations.end()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "host device " + std::to_string(device) +
                                                 ": free_device of a pointer this device did not allocate");
  }
  d.used -= it->second.charged;
  d.allocations.erase(it);  // unmaps; a process that opened it keeps its own mapping of the memory
  return HAL_STATUS_SUCCESS;
}

// Host memory is what the CPU reads anyway: "pinned" memory is a plain aligned allocation.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  uint64_t bytes = 0;
  void* p = aligned_size(size, &bytes) ? std::aligned_alloc(kAlignment, bytes) : nullptr;
  if (!p) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes of RAM left");
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_host(void* ptr) {
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  return guarded("memset_async", [&] {
    queue_of(device, stream).enqueue([=] { std::memset(ptr, value, size); });
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t /*kind*/,
                          hal_stream_t stream) {
  // Every direction is a host memcpy here; a real adapter picks its driver's call by `kind`.
  return guarded("memcpy_async", [&] {
    queue_of(device, stream).enqueue([=] { std::memcpy(dst, src, size); });
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t /*src_device*/, const void* src, uint64_t size,
                               hal_stream_t stream) {
  return guarded("memcpy_peer_async", [&] {
    queue_of(dst_device, stream).enqueue([=] { std::memcpy(dst, src, size); });
    return HAL_STATUS_SUCCESS;
  });
}

}  // namespace host_adapter
