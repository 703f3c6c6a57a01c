// Device memory (coarse-grained SVM), pinned host memory, and fills and copies on streams.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

// free_device is the SPIR-V shell's (../spirv_shell/memory.cpp); the rest are here (memory.cpp).
HAL_ABI_MEMORY_ENTRIES;

// free_device's second half, once the allocation has left the device's records: finishes every queue of the
// device (clSVMFree does not wait for the commands that use the memory), then frees.
hal_status_t release_device_memory(int32_t device, void* ptr);

}  // namespace hal_opencl
