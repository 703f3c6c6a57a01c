// Streams (in-order command queues with profiling), events (marker commands) and device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

HAL_ABI_STREAM_EVENT_ENTRIES;

}  // namespace hal_opencl
