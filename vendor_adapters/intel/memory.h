// Device memory (zeMemAllocDevice), pinned host memory (zeMemAllocHost), and fills and copies on streams;
// copies with pageable host memory go through a staging buffer.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

HAL_ABI_MEMORY_ENTRIES;

}  // namespace hal_level_zero
