// Device memory (64-byte-aligned regions within each device's capacity), pinned host memory, and fills and
// copies on streams.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace host_adapter {

HAL_ABI_MEMORY_ENTRIES;

}  // namespace host_adapter
