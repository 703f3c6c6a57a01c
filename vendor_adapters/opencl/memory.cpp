#include "memory.h"

#include <cstdlib>
#include <mutex>
#include <string>

#include "adapter_state.h"

namespace hal_opencl {
namespace {

constexpr size_t kPinnedAlignment = 4096;

bool is_pinned(const void* p, uint64_t size) {
  std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
  const auto* byte = static_cast<const char*>(p);
  for (const auto& [base, bytes] : g_state->pinned) {
    const auto* b = static_cast<const char*>(base);
    if (byte >= b && byte + size <= b + bytes) return true;
  }
  return false;
}

}  // namespace

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    Device& d = dev(device);
    void* p = size > 0 ? cl().SVMAlloc(d.context, CL_MEM_READ_WRITE, size, 0) : nullptr;
    if (p != nullptr) {
      d.records.add_allocation(p, size);  // given back by free_device (../spirv_shell/memory.cpp), or at shutdown
      *ptr = p;
      return HAL_STATUS_SUCCESS;
    }
    // Zero bytes included: clSVMAlloc has no allocation of size 0 to give.
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "clSVMAlloc of " + std::to_string(size) + " bytes on " + d.info.name +
                                                     " failed (" + std::to_string(d.records.allocated_bytes()) +
                                                     " bytes allocated of " + std::to_string(d.info.memory_bytes) + ")");
  });
}

hal_status_t release_device_memory(int32_t device, void* ptr) {
  Device& d = dev(device);
  // clSVMFree does not wait for the commands that use the memory: wait for every queue of the device first
  // (the core frees device memory rarely: empty_cache, or to retry an allocation).
  if (hal_status_t st = finish_all(d)) return st;
  cl().SVMFree(d.context, ptr);
  return HAL_STATUS_SUCCESS;
}

hal_status_t malloc_host(uint64_t size, void** ptr) {
  return guarded("malloc_host", [&]() -> hal_status_t {
    const uint64_t bytes = (size + kPinnedAlignment - 1) / kPinnedAlignment * kPinnedAlignment;
    void* p = bytes >= size ? std::aligned_alloc(kPinnedAlignment, bytes ? bytes : kPinnedAlignment) : nullptr;
    if (p == nullptr) {
      return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes left");
    }
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    g_state->pinned.emplace(p, size);
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_host(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    if (g_state->pinned.erase(ptr) == 0) return fail(HAL_STATUS_INVALID_ARGUMENT, "free_host: not from malloc_host");
  }
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- commands ----------------------------------------------------------------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  const unsigned char pattern = static_cast<unsigned char>(value);  // copied by the call
  cl_command_queue q = stream_of(device, stream);
  return submitted("clEnqueueSVMMemFill", cl().EnqueueSVMMemFill(q, ptr, &pattern, 1, size, 0, nullptr, nullptr), q);
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  // Pageable host memory may be reused as soon as the call returns, so such a copy completes before it does.
  const bool blocking = (kind == HAL_COPY_HOST_TO_DEVICE && !is_pinned(src, size)) ||
                        (kind == HAL_COPY_DEVICE_TO_HOST && !is_pinned(dst, size));
  cl_command_queue q = stream_of(device, stream);
  const cl_int code = cl().EnqueueSVMMemcpy(q, blocking ? 1 : 0, dst, src, size, 0, nullptr, nullptr);
  return submitted("clEnqueueSVMMemcpy", code, q);
}

// Each device has a context of its own, so SVM pointers of one mean nothing to another: the core stages
// such copies through host memory.
hal_status_t memcpy_peer_async(int32_t, void*, int32_t, const void*, uint64_t, hal_stream_t) {
  return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: devices do not share memory");
}

}  // namespace hal_opencl
