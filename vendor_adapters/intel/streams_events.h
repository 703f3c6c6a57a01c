// Streams (immediate command lists, command_list.h), events (Level Zero events from event_pool.h) and
// device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

// stream_destroy is the SPIR-V shell's (../spirv_shell/streams.cpp); the rest are here (streams_events.cpp).
HAL_ABI_STREAM_EVENT_ENTRIES;
hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle);

// stream_destroy's second half, once the stream has left the device's records: waits for its command list, which
// must not be destroyed while the device still runs its commands, then deletes it.
hal_status_t release_stream(hal_stream_t stream);

}  // namespace hal_level_zero
