#include "memory.h"

#include <string>

#include "adapter_context.h"

namespace hal_amd {

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().Malloc(ptr, size), "hipMalloc of " + std::to_string(size) + " bytes");
}
hal_status_t free_device(int32_t device, void* ptr) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().Free(ptr), "hipFree");
}
hal_status_t malloc_host(uint64_t size, void** ptr) {
  const hipError_t error = hip().HostMalloc(ptr, size, 0);
  if (error == hipErrorOutOfMemory) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "hipHostMalloc: out of pinned host memory");
  return check(error, "hipHostMalloc");
}
hal_status_t free_host(void* ptr) { return check(hip().HostFree(ptr), "hipHostFree"); }

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemsetAsync(ptr, value, size, stream_of(stream)), "hipMemsetAsync");
}
hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t /*kind*/,
                          hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemcpyAsync(dst, src, size, kMemcpyDefault, stream_of(stream)), "hipMemcpyAsync");
}
hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream) {
  if (hal_status_t s = use(src_device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemcpyPeerAsync(dst, dst_device, src, src_device, size, stream_of(stream)), "hipMemcpyPeerAsync");
}

}  // namespace hal_amd
