// free_device for the SPIR-V adapters, in the adapter's namespace (spirv_traits.h): the allocation leaves the
// device's records, then the adapter's release_device_memory() waits for the device and frees it (neither
// runtime's free waits for the commands that use the memory).
#include <string>

#include "spirv_traits.h"

hal_status_t hal_spirv_shell::adapter::free_device(int32_t device, void* ptr) {
  if (!dev(device).records.forget_allocation(ptr)) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "free_device: not an allocation of device " + std::to_string(device));
  }
  return release_device_memory(device, ptr);
}
