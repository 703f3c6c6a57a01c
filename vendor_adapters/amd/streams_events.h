// Streams, events (HIP's own: a hal stream or event is the HIP handle) and device-wide synchronization.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_amd {

hal_status_t stream_create(int32_t device, int32_t priority, hal_stream_t* stream);
hal_status_t stream_destroy(int32_t device, hal_stream_t stream);
hal_status_t stream_synchronize(int32_t device, hal_stream_t stream);
hal_status_t stream_query(int32_t device, hal_stream_t stream);
hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle);
hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event);
hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event);
hal_status_t event_destroy(int32_t device, hal_event_t event);
hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream);
hal_status_t event_query(int32_t device, hal_event_t event);
hal_status_t event_synchronize(int32_t device, hal_event_t event);
hal_status_t event_elapsed_ms(int32_t device, hal_event_t start, hal_event_t end, float* ms);
hal_status_t device_synchronize(int32_t device);

}  // namespace hal_amd
