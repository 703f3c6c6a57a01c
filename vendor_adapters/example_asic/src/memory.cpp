#include "memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapter_state.h"

namespace example_asic {
namespace {

std::string range_text(const void* p, uint64_t size) {
  char text[64];
  std::snprintf(text, sizeof(text), "[%p, +%llu bytes)", p, static_cast<unsigned long long>(size));
  return text;
}

// Device-side ranges are checked on every copy: a pointer that is not this chip's memory is refused
// with its address, as a real DMA engine's fault would be reported.
hal_status_t check_device_range(int32_t device, const void* p, uint64_t size, const char* what) {
  if (size == 0 || arena(device).contains(p, size)) return HAL_STATUS_SUCCESS;
  return fail(HAL_STATUS_INVALID_ARGUMENT, std::string(what) + ": " + range_text(p, size) +
                                               " is not inside an allocation of device " + std::to_string(device));
}

}  // namespace

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    void* p = arena(device).allocate(size);
    if (!p) {
      return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY,
                  "device " + std::to_string(device) + " has no free range of " + std::to_string(size) + " bytes (" +
                      std::to_string(arena(device).used()) + " of " + std::to_string(arena(device).capacity()) +
                      " bytes in use; EXAMPLE_ASIC_MEMORY sets the size)");
    }
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_device(int32_t device, void* ptr) {
  if (arena(device).free(ptr)) return HAL_STATUS_SUCCESS;
  return fail(HAL_STATUS_INVALID_ARGUMENT,
              "free_device: " + range_text(ptr, 0) + " is not an allocation of device " + std::to_string(device));
}

// Pinned host memory: what the chip's DMA engine would read from. Here, aligned host memory.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  const uint64_t bytes = (size + DeviceArena::kAlignment - 1) / DeviceArena::kAlignment * DeviceArena::kAlignment;
  void* p = bytes >= size ? std::aligned_alloc(DeviceArena::kAlignment, bytes ? bytes : DeviceArena::kAlignment) : nullptr;
  if (!p) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes of RAM left");
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_host(void* ptr) {
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- commands (run at submission, in order; see the top of this file) ---------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t /*stream*/) {
  if (hal_status_t st = check_device_range(device, ptr, size, "memset_async")) return st;
  std::memset(ptr, value, size);
  return HAL_STATUS_SUCCESS;
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t /*stream*/) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (kind != HAL_COPY_DEVICE_TO_HOST) {
    if (hal_status_t st = check_device_range(device, dst, size, "memcpy_async (destination)")) return st;
  }
  if (kind != HAL_COPY_HOST_TO_DEVICE) {
    if (hal_status_t st = check_device_range(device, src, size, "memcpy_async (source)")) return st;
  }
  std::memmove(dst, src, size);  // device to device may overlap
  return HAL_STATUS_SUCCESS;
}

hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t /*stream*/) {
  if (hal_status_t st = check_device_range(dst_device, dst, size, "memcpy_peer_async (destination)")) return st;
  if (hal_status_t st = check_device_range(src_device, src, size, "memcpy_peer_async (source)")) return st;
  std::memcpy(dst, src, size);  // two chips' memories never overlap
  return HAL_STATUS_SUCCESS;
}

}  // namespace example_asic
