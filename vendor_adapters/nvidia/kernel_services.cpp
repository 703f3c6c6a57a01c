// The services the GPU kernel library (vendor_adapters/gpu_kernels, kernels/adapter_services.h) asks of
// the adapter it is compiled into, over the CUDA runtime. StreamScratch is in stream_scratch.cpp and the
// launch itself in kernel_launch.cpp.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda_status.h"
#include "kernels/adapter_services.h"

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

}  // namespace hal_gpu
