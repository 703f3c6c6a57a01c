// Lifecycle and discovery: initialize() loads the HIP runtime (hip_api.h) and checks that every AMD GPU has code
// among the embedded architectures (code_objects.h); the devices' count, properties and memory.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_amd {

hal_status_t initialize();
void shutdown() noexcept;
hal_status_t device_count(int32_t* count);
hal_status_t get_device_properties(int32_t device, hal_device_properties_t* p);
hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes);

}  // namespace hal_amd
