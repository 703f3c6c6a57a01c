// Streams (immediate command lists, command_list.h), events (Level Zero events from event_pool.h) and
// device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

HAL_ABI_STREAM_EVENT_ENTRIES;
hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle);

}  // namespace hal_level_zero
