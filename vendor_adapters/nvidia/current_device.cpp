#include "current_device.h"

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_status.h"

namespace hal_nvidia {

// Why not a private thread_local cache of the device: the current device is the driver's per-thread
// current context, which every CUDA runtime in the process shares (PyTorch's libcudart as well as the
// static one linked here). Code outside this adapter (torch.cuda.set_device, a cuBLAS call, a user's
// extension) can change it between two calls of ours, and a private cache would then send our
// allocations and launches to the wrong GPU. cudaGetDevice reads that shared state (a thread-local read in
// the driver, no lock, no context creation), so asking it is as cheap as a cache and never stale;
// cudaSetDevice, which can be costly, still runs only when the device actually changes.
hal_status_t use_device(int32_t device) {
  int current = -1;
  cudaError_t error = cudaGetDevice(&current);
  if (error == cudaSuccess && current == device) return HAL_STATUS_SUCCESS;
  error = cudaSetDevice(device);
  if (error == cudaSuccess) return HAL_STATUS_SUCCESS;
  return cuda_fail(error, "cudaSetDevice(" + std::to_string(device) + ")");
}

}  // namespace hal_nvidia
