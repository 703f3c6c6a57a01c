// Streams (a worker thread each, work_queue.h), events (markers in a stream's queue) and device-wide
// synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace host_adapter {

HAL_ABI_STREAM_EVENT_ENTRIES;

}  // namespace host_adapter
