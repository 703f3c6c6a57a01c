// Lifecycle and discovery: initialize() reads the settings (TORCH_HAL_HOST_*) and makes the simulated
// devices; their count, properties and memory.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace host_adapter {

HAL_ABI_DEVICE_ENTRIES;
const char* get_last_error();

}  // namespace host_adapter
