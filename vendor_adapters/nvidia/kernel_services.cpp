// The services the GPU kernel library (vendor_adapters/gpu_kernels, kernels/adapter_services.h) asks of
// the adapter it is compiled into, over the CUDA runtime: scratch memory ordered on its stream
// (cudaMallocAsync), so that growing a stream's buffer never waits for the device. The launch itself is in
// kernel_launch.cpp.
#include <cuda_runtime_api.h>

#include <string>

#include "adapter_state.h"
#include "cuda_status.h"
#include "kernels/adapter_services.h"
#include "kernels/stream_scratch_cache.h"

namespace hal_gpu {

hal_status_t fail(hal_status_t status, const char* message) { return hal_nvidia::fail(status, std::string(message)); }

int multiprocessor_count(int32_t device) {
  int count = 0;
  if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();  // a failed query leaves no sticky error behind
    return 0;
  }
  return count;
}

hal_status_t memset_async(void* ptr, int value, size_t bytes, cudaStream_t stream, const char* what) {
  return hal_nvidia::check_queued(cudaMemsetAsync(ptr, value, bytes, stream), what);
}

hal_status_t copy_device_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what) {
  return hal_nvidia::check_queued(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), what);
}

void* scratch_allocate(size_t bytes, cudaStream_t stream) {
  void* ptr = nullptr;
  if (cudaMallocAsync(&ptr, bytes, stream) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the failed allocation's error for the caller's next CUDA call
    return nullptr;
  }
  return ptr;
}

void scratch_free(void* ptr, cudaStream_t stream) {
  (void)cudaFreeAsync(ptr, stream);  // cleanup: a failed free only leaks
}

StreamScratchCache& scratch_cache(int32_t device) { return hal_nvidia::device_state(device).scratch; }

}  // namespace hal_gpu
