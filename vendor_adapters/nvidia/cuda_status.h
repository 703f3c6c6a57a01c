// Turning CUDA runtime errors into hal_status_t plus the per-thread message that get_last_error() returns
// (kept by adapter_support/abi_boundary.h, whose guarded() keeps C++ exceptions from crossing the C ABI). Every
// file of the adapter reports errors through here.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "abi_boundary.h"

#include "kernels/op_call.h"  // hal_gpu::fail, declared for the kernel library

namespace hal_nvidia {

// The message of the last failure on this thread (what the table's get_last_error() returns).
const char* last_error();

hal_status_t fail(hal_status_t status, const std::string& message);

// The status a CUDA error stands for. `out_of_memory` is what cudaErrorMemoryAllocation means at this call
// site: OUT_OF_DEVICE_MEMORY for device allocations, OUT_OF_HOST_MEMORY for pinned host memory.
hal_status_t status_of(cudaError_t error, hal_status_t out_of_memory = HAL_STATUS_OUT_OF_DEVICE_MEMORY);

// Records "<what>: cudaErrorName: description" and returns the matching status. It also clears the
// runtime's own per-thread error (cudaGetLastError) unless the error is sticky, so that a failure reported
// here is not reported a second time by a later call on this thread.
hal_status_t cuda_fail(cudaError_t error, const std::string& what,
                       hal_status_t out_of_memory = HAL_STATUS_OUT_OF_DEVICE_MEMORY);

// A kernel launch, memset or memcpy that failed to queue: cuda_fail(), except that an invalid argument is
// reported as a device error (a launch error is never the caller's argument mistake).
hal_status_t queue_failure(cudaError_t error, const std::string& what);

// SUCCESS for cudaSuccess, otherwise queue_failure(): check() for kernel launches, memsets and memcpys.
inline hal_status_t check_queued(cudaError_t error, const char* what) {
  return error == cudaSuccess ? HAL_STATUS_SUCCESS : queue_failure(error, what);
}

// SUCCESS for cudaSuccess, otherwise cuda_fail(). For the common "call, then return on error" pattern.
inline hal_status_t check(cudaError_t error, const char* what) {
  return error == cudaSuccess ? HAL_STATUS_SUCCESS : cuda_fail(error, what);
}

}  // namespace hal_nvidia
