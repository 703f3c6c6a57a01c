#include "adapter_context.h"

namespace hal_amd {
namespace {

thread_local std::string t_last_error;

}  // namespace

const HipApi& hip() { return *hip_api(nullptr); }

hal_status_t fail(hal_status_t status, const std::string& message) {
  try {
    t_last_error = message;
  } catch (...) {
    // No memory for the message: the status still says what happened.
  }
  return status;
}

const char* last_error() { return t_last_error.c_str(); }

hal_status_t check(hipError_t error, const std::string& what) {
  if (error == hipSuccess) return HAL_STATUS_SUCCESS;
  const hal_status_t status = error == hipErrorOutOfMemory ? HAL_STATUS_OUT_OF_DEVICE_MEMORY
                              : error == hipErrorNotReady  ? HAL_STATUS_NOT_READY
                                                           : HAL_STATUS_DEVICE_ERROR;
  if (status == HAL_STATUS_NOT_READY) return status;
  return fail(status, what + ": " + hip_error_text(error));
}

}  // namespace hal_amd
