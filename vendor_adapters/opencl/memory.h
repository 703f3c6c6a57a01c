// Device memory (coarse-grained SVM), pinned host memory, and fills and copies on streams.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

HAL_ABI_MEMORY_ENTRIES;

}  // namespace hal_opencl
