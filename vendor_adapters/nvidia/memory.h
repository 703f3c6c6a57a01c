// Device and pinned host memory, and copies and fills on streams.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

HAL_ABI_MEMORY_ENTRIES;

}  // namespace hal_nvidia
