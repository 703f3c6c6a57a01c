#include "kernels/kernel_launch.h"

#include <cuda.h>  // the driver's types only: cuLaunchKernel is reached through the runtime's entry points

#include <string>

#include "cuda_status.h"

namespace hal_gpu::launch_detail {

using namespace hal_nvidia;  // cuda_status.h
namespace {

using DriverLaunch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  CUstream, void**, void**);

// cuLaunchKernel as of CUDA 12's ABI, or nullptr when the driver does not provide it.
DriverLaunch driver_launch() {
  static const DriverLaunch fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<DriverLaunch>(p);
  }();
  return fn;
}

// The kernel's handle in the current context (that of `device`), resolved once.
CUfunction function_of(FunctionCache& cache, const void* kernel, int32_t device) {
  if (device < 0 || device >= kMaxCachedDevices) return nullptr;
  void* f = cache.per_device[device].load(std::memory_order_acquire);
  if (f == nullptr) {
    cudaFunction_t resolved = nullptr;
    if (cudaGetFuncBySymbol(&resolved, kernel) != cudaSuccess) {
      (void)cudaGetLastError();  // the runtime launch below reports the reason
      return nullptr;
    }
    f = resolved;
    cache.per_device[device].store(f, std::memory_order_release);
  }
  return static_cast<CUfunction>(f);
}

}  // namespace

hal_status_t launch(FunctionCache& cache, const void* kernel, const char* name, int32_t device, dim3 grid, dim3 block,
                    size_t shared_bytes, cudaStream_t stream, void** args) {
  const DriverLaunch driver = driver_launch();
  const CUfunction function = driver ? function_of(cache, kernel, device) : nullptr;
  if (function != nullptr &&
      driver(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, static_cast<unsigned>(shared_bytes),
             static_cast<CUstream>(stream), args, nullptr) == CUDA_SUCCESS) {
    return HAL_STATUS_SUCCESS;
  }
  // A failed launch queues nothing, so the runtime may try the same launch: it makes the device's context
  // current on a thread that has none yet, and otherwise fails with the error to report.
  const cudaError_t error = cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
  return error == cudaSuccess ? HAL_STATUS_SUCCESS : queue_failure(error, std::string("launching ") + name);
}

}  // namespace hal_gpu::launch_detail
