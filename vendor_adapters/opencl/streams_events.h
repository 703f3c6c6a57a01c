// Streams (in-order command queues with profiling), events (marker commands) and device-wide synchronization.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

// stream_destroy is the SPIR-V shell's (../spirv_shell/streams.cpp); the rest are here (streams_events.cpp).
HAL_ABI_STREAM_EVENT_ENTRIES;

// stream_destroy's second half, once the stream has left the device's records: releases its queue (OpenCL keeps
// it until its commands complete) and deletes it.
hal_status_t release_stream(hal_stream_t stream);

}  // namespace hal_opencl
