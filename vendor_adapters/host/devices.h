// Lifecycle and discovery: initialize() reads the settings (TORCH_HAL_HOST_*) and makes the simulated
// devices; their count, properties and memory.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace host_adapter {

hal_status_t initialize();
void shutdown();
const char* get_last_error();
hal_status_t device_count(int32_t* count);
hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props);
hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes);

}  // namespace host_adapter
