#include "adapter_context.h"

#include <memory>

#include "abi_boundary.h"

namespace hal_amd {
namespace {

std::unique_ptr<DeviceState[]> g_devices;

}  // namespace

int g_device_count = 0;

const HipApi& hip() { return *hip_api(nullptr); }

void create_device_states(int count) { g_devices = std::make_unique<DeviceState[]>(count); }
void destroy_device_states() { g_devices.reset(); }
DeviceState& device_state(int device) { return g_devices[device]; }

RocblasHandle::~RocblasHandle() {
  if (handle_) (void)api_->destroy_handle(handle_);  // cleanup: a failure only leaks
}

rocblas_handle RocblasHandle::get(const RocblasApi& api, std::string* why) {
  if (handle_) return handle_;
  const rocblas_status status = api.create_handle(&handle_);
  if (status != kRocblasSuccess) {
    handle_ = nullptr;
    if (why) *why = std::string("rocblas_create_handle: ") + api.status_to_string(status);
    return nullptr;
  }
  api_ = &api;
  return handle_;
}

hal_status_t use_device(int device) {
  int current = -1;
  if (hip().GetDevice(&current) == hipSuccess && current == device) return HAL_STATUS_SUCCESS;
  return check(hip().SetDevice(device), "hipSetDevice(" + std::to_string(device) + ")");
}

hal_status_t use(int32_t device) {
  if (device < 0 || device >= g_device_count) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "AMD GPU " + std::to_string(device) + " does not exist");
  }
  return use_device(device);
}

// The thread's message lives in the adapter's own copy of adapter_support/abi_boundary.cpp.
hal_status_t fail(hal_status_t status, const std::string& message) {
  try {
    hal_abi_boundary::thread_error() = message;
  } catch (...) {
    // No memory for the message: the status still says what happened.
  }
  return status;
}

const char* last_error() { return hal_abi_boundary::thread_error().c_str(); }

hal_status_t check(hipError_t error, const std::string& what) {
  if (error == hipSuccess) return HAL_STATUS_SUCCESS;
  const hal_status_t status = error == hipErrorOutOfMemory ? HAL_STATUS_OUT_OF_DEVICE_MEMORY
                              : error == hipErrorNotReady  ? HAL_STATUS_NOT_READY
                                                           : HAL_STATUS_DEVICE_ERROR;
  if (status == HAL_STATUS_NOT_READY) return status;
  return fail(status, what + ": " + hip_error_text(error));
}

}  // namespace hal_amd
