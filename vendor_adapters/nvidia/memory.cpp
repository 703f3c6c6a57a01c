#include "memory.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "adapter_state.h"
#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {
namespace {

std::string bytes_text(uint64_t bytes) {
  char text[64];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(text, sizeof(text), "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  } else {
    std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  }
  return text;
}

// Lets `dst_device` read `src_device`'s memory directly (NVLink or PCIe peer-to-peer), decided once per
// pair. Without it cudaMemcpyPeerAsync still works (the driver stages through host memory), so a refusal
// only costs speed and is not an error.
void enable_peer_access_once(int32_t dst_device, int32_t src_device) {
  DeviceState& d = device_state(dst_device);
  std::lock_guard<std::mutex> lock(d.peer_mutex);
  DeviceState::Peer& peer = d.peer[src_device];
  if (peer != DeviceState::Peer::Unknown) return;
  int can = 0;
  peer = DeviceState::Peer::Unavailable;
  if (cudaDeviceCanAccessPeer(&can, dst_device, src_device) == cudaSuccess && can) {
    // Acts on the current device, dst_device (the caller made it current).
    const cudaError_t error = cudaDeviceEnablePeerAccess(src_device, 0);
    if (error == cudaSuccess || error == cudaErrorPeerAccessAlreadyEnabled) peer = DeviceState::Peer::Enabled;
  }
  (void)cudaGetLastError();  // "already enabled" and refusals are recorded by the runtime; none is ours to report
}

}  // namespace

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // cudaMalloc(0) returns NULL; a request of 0 bytes still gets a distinct pointer, as the ABI expects.
  const cudaError_t error = cudaMalloc(ptr, std::max<uint64_t>(size, 1));
  if (error == cudaSuccess) return HAL_STATUS_SUCCESS;
  // cuda_fail clears the runtime's record of the failure, so the next allocation or launch on this thread
  // is not reported as failed because of this one.
  std::string what = "cudaMalloc of " + bytes_text(size) + " on NVIDIA GPU " + std::to_string(device);
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      what += " (" + bytes_text(free_b) + " free of " + bytes_text(total_b) + ")";
    }
  }
  return cuda_fail(error, what);
}

hal_status_t free_device(int32_t device, void* ptr) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return check(cudaFree(ptr), "cudaFree");
}

hal_status_t malloc_host(uint64_t size, void** ptr) {
  // Portable: pinned for every GPU's DMA engines, not only the current device's.
  const cudaError_t error = cudaHostAlloc(ptr, std::max<uint64_t>(size, 1), cudaHostAllocPortable);
  if (error == cudaSuccess) return HAL_STATUS_SUCCESS;
  return cuda_fail(error, "cudaHostAlloc of " + bytes_text(size) + " of pinned host memory",
                   HAL_STATUS_OUT_OF_HOST_MEMORY);
}

hal_status_t free_host(void* ptr) { return check(cudaFreeHost(ptr), "cudaFreeHost"); }

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return check(cudaMemsetAsync(ptr, value, size, s), "cudaMemsetAsync");
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream) {
  cudaMemcpyKind cuda_kind;
  switch (kind) {
    case HAL_COPY_HOST_TO_DEVICE: cuda_kind = cudaMemcpyHostToDevice; break;
    case HAL_COPY_DEVICE_TO_HOST: cuda_kind = cudaMemcpyDeviceToHost; break;
    case HAL_COPY_DEVICE_TO_DEVICE: cuda_kind = cudaMemcpyDeviceToDevice; break;
    default: return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return check(cudaMemcpyAsync(dst, src, size, cuda_kind, s), "cudaMemcpyAsync");
}

hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(dst_device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(dst_device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  if (dst_device != src_device) enable_peer_access_once(dst_device, src_device);
  return check(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, size, s), "cudaMemcpyPeerAsync");
}

}  // namespace hal_nvidia
