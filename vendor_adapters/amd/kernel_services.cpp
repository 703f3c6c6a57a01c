// The services the GPU kernel library (kernels/adapter_services.h) asks of the adapter it is compiled into,
// over the HIP runtime loaded with dlopen, and the launch itself through the code objects this adapter
// registered (code_objects.h).
#include <string>

#include "adapter_context.h"
#include "code_objects.h"
#include "kernels/adapter_services.h"
#include "kernels/kernel_launch.h"
#include "kernels/stream_scratch_cache.h"

namespace hal_gpu {

using hal_amd::hip;
using hal_amd::hip_error_text;
using hal_amd::hipSuccess;

hal_status_t fail(hal_status_t status, const char* message) { return hal_amd::fail(status, message); }

int multiprocessor_count(int32_t device) {
  int count = 0;
  return hip().DeviceGetAttribute(&count, hal_amd::kAttrMultiprocessorCount, device) == hipSuccess ? count : 0;
}

hal_status_t memset_async(void* ptr, int value, size_t bytes, cudaStream_t stream, const char* what) {
  const int error = hip().MemsetAsync(ptr, value, bytes, reinterpret_cast<hal_amd::hipStream_t>(stream));
  return error == hipSuccess ? HAL_STATUS_SUCCESS : fail(HAL_STATUS_DEVICE_ERROR, (std::string(what) + ": " + hip_error_text(error)).c_str());
}

hal_status_t copy_device_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what) {
  const int error = hip().MemcpyAsync(dst, src, bytes, hal_amd::kMemcpyDefault, reinterpret_cast<hal_amd::hipStream_t>(stream));
  return error == hipSuccess ? HAL_STATUS_SUCCESS : fail(HAL_STATUS_DEVICE_ERROR, (std::string(what) + ": " + hip_error_text(error)).c_str());
}

// Scratch memory for the per-stream cache (kernels/stream_scratch_cache.h). HIP 5 has no stream-ordered
// allocator everywhere, so a buffer grows with hipMalloc and goes with hipFree, which waits for the device
// (and so for the kernels queued with it); the cache makes both rare.
void* scratch_allocate(size_t bytes, cudaStream_t /*stream*/) {
  void* ptr = nullptr;
  return hip().Malloc(&ptr, bytes) == hipSuccess ? ptr : nullptr;
}

void scratch_free(void* ptr, cudaStream_t /*stream*/) { (void)hip().Free(ptr); }  // cleanup: a failure only leaks

StreamScratchCache& scratch_cache(int32_t device) { return hal_amd::device_state(device).scratch; }

namespace launch_detail {

hal_status_t launch(FunctionCache& cache, const void* kernel, const char* name, int32_t device, dim3 grid, dim3 block,
                    size_t shared_bytes, cudaStream_t stream, void** args) {
  void* cached = device >= 0 && device < kMaxCachedDevices ? cache.per_device[device].load() : nullptr;
  if (!cached) {
    std::string why;
    cached = hal_amd::kernel_function(hip(), kernel, device, &why);
    if (!cached) return fail(HAL_STATUS_NOT_SUPPORTED, (std::string(name) + ": " + why).c_str());
    if (device >= 0 && device < kMaxCachedDevices) cache.per_device[device].store(cached);
  }
  const int error = hip().ModuleLaunchKernel(static_cast<hal_amd::hipFunction_t>(cached), grid.x, grid.y, grid.z,
                                             block.x, block.y, block.z, static_cast<unsigned>(shared_bytes),
                                             reinterpret_cast<hal_amd::hipStream_t>(stream), args, nullptr);
  return error == hipSuccess ? HAL_STATUS_SUCCESS
                             : fail(HAL_STATUS_DEVICE_ERROR, (std::string("launching ") + name + ": " + hip_error_text(error)).c_str());
}

}  // namespace launch_detail
}  // namespace hal_gpu
