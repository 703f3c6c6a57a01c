// Device memory (zeMemAllocDevice), pinned host memory (zeMemAllocHost), and fills and copies on streams;
// copies with pageable host memory go through a staging buffer.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

// free_device is the SPIR-V shell's (../spirv_shell/memory.cpp); the rest are here (memory.cpp).
HAL_ABI_MEMORY_ENTRIES;

// free_device's second half, once the allocation has left the device's records: waits for every stream of the
// device (zeMemFree does not wait for the commands that use the memory), then frees.
hal_status_t release_device_memory(int32_t device, void* ptr);

}  // namespace hal_level_zero
