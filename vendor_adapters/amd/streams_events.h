// Streams, events (HIP's own: a hal stream or event is the HIP handle) and device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

HAL_ABI_STREAM_EVENT_ENTRIES;
hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle);

}  // namespace hal_amd
