// Device memory (hipMalloc), pinned host memory (hipHostMalloc), and fills and copies on streams.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

HAL_ABI_MEMORY_ENTRIES;

}  // namespace hal_amd
