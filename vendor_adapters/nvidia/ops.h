// The adapter's native kernels: which family owns an op id, and the launch entry points of the table.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

HAL_ABI_OP_ENTRIES;

}  // namespace hal_nvidia
