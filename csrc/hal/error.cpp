#include "hal/error.h"

namespace hal {

ErrorCode error_code_from_status(hal_status_t status) {
  switch (status) {
    case HAL_STATUS_INVALID_ARGUMENT: return ErrorCode::InvalidArgument;
    case HAL_STATUS_OUT_OF_DEVICE_MEMORY: return ErrorCode::OutOfDeviceMemory;
    case HAL_STATUS_OUT_OF_HOST_MEMORY: return ErrorCode::OutOfHostMemory;
    case HAL_STATUS_NOT_SUPPORTED: return ErrorCode::NotSupported;
    case HAL_STATUS_UNAVAILABLE: return ErrorCode::Unavailable;
    case HAL_STATUS_DEVICE_ERROR: return ErrorCode::Device;
    // NOT_READY is not an error for query functions; anywhere else it is the core's bug.
    default: return ErrorCode::Internal;
  }
}

const char* status_name(hal_status_t status) {
  switch (status) {
    case HAL_STATUS_SUCCESS: return "HAL_STATUS_SUCCESS";
    case HAL_STATUS_INVALID_ARGUMENT: return "HAL_STATUS_INVALID_ARGUMENT";
    case HAL_STATUS_OUT_OF_DEVICE_MEMORY: return "HAL_STATUS_OUT_OF_DEVICE_MEMORY";
    case HAL_STATUS_OUT_OF_HOST_MEMORY: return "HAL_STATUS_OUT_OF_HOST_MEMORY";
    case HAL_STATUS_NOT_SUPPORTED: return "HAL_STATUS_NOT_SUPPORTED";
    case HAL_STATUS_UNAVAILABLE: return "HAL_STATUS_UNAVAILABLE";
    case HAL_STATUS_NOT_READY: return "HAL_STATUS_NOT_READY";
    case HAL_STATUS_DEVICE_ERROR: return "HAL_STATUS_DEVICE_ERROR";
    case HAL_STATUS_INTERNAL_ERROR: return "HAL_STATUS_INTERNAL_ERROR";
    default: return "HAL_STATUS_<unknown>";
  }
}

void throw_on_failure(const hal_adapter_t& adapter, hal_status_t status, const char* what) {
  if (status == HAL_STATUS_SUCCESS) return;
  // Read the per-thread message right away: any later adapter call on this thread may overwrite it.
  const char* detail = adapter.get_last_error ? adapter.get_last_error() : nullptr;
  std::string message = std::string(adapter.name ? adapter.name : "<adapter>") + ": " + what +
                        " failed: " + status_name(status);
  if (detail && *detail) message += std::string(": ") + detail;
  throw Error(error_code_from_status(status), message);
}

}  // namespace hal
