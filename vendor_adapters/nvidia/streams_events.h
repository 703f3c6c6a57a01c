// Streams, events and device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

HAL_ABI_STREAM_EVENT_ENTRIES;
hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle);

}  // namespace hal_nvidia
