#include "cuda_status.h"

namespace hal_nvidia {

// The thread's message lives in the adapter's own copy of adapter_support/abi_boundary.cpp.
const char* last_error() { return hal_abi_boundary::thread_error().c_str(); }

hal_status_t fail(hal_status_t status, const std::string& message) {
  try {
    hal_abi_boundary::thread_error() = message;
  } catch (...) {
    // No memory for the message: the status still says what happened.
  }
  return status;
}

hal_status_t status_of(cudaError_t error, hal_status_t out_of_memory) {
  switch (error) {
    case cudaSuccess: return HAL_STATUS_SUCCESS;
    case cudaErrorMemoryAllocation: return out_of_memory;
    case cudaErrorNotReady: return HAL_STATUS_NOT_READY;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevice:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidResourceHandle: return HAL_STATUS_INVALID_ARGUMENT;
    case cudaErrorNotSupported: return HAL_STATUS_NOT_SUPPORTED;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice: return HAL_STATUS_UNAVAILABLE;
    default: return HAL_STATUS_DEVICE_ERROR;
  }
}

hal_status_t cuda_fail(cudaError_t error, const std::string& what, hal_status_t out_of_memory) {
  // Reading the last error resets it for non-sticky errors; a sticky one (the context is unusable) stays
  // and is reported by every later call, which is what the caller should see.
  (void)cudaGetLastError();
  return fail(status_of(error, out_of_memory),
              what + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

hal_status_t queue_failure(cudaError_t error, const std::string& what) {
  // The adapter checked the arguments before queueing anything: report the failure as the device's.
  const hal_status_t status = cuda_fail(error, what);
  return status == HAL_STATUS_INVALID_ARGUMENT ? HAL_STATUS_DEVICE_ERROR : status;
}

}  // namespace hal_nvidia
