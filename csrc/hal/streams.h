// Streams as PyTorch sees them: per device, id 0 is the default stream (the adapter's NULL handle) and
// ids 1.. are adapter streams created on demand and kept for the life of the process (like CUDA's
// pool, so that a Stream id can be stored anywhere and stays valid). The current stream is per thread
// and per device.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal {

using StreamId = int64_t;
constexpr StreamId kDefaultStreamId = 0;

// The adapter handle of stream `id` of hal:`device` (NULL for the default stream). Throws
// InvalidArgument for an id that was never handed out.
hal_stream_t native_stream(int device, StreamId id);

// The vendor runtime's handle of stream `id` (a cudaStream_t, a hipStream_t), the default stream's too;
// NULL where the adapter has no vendor streams (the host device, ABI 1.1 adapters).
void* vendor_stream_handle(int device, StreamId id);

// A stream from the pool of hal:`device`: round-robin over a fixed number of adapter streams per
// priority, created lazily (like torch.cuda's getStreamFromPool).
StreamId stream_from_pool(int device, int priority = 0);

// A brand-new adapter stream that nobody else receives (torch.hal.Stream()).
StreamId create_stream(int device, int priority = 0);

StreamId current_stream(int device);
void set_current_stream(int device, StreamId id);

void synchronize_stream(int device, StreamId id);
bool query_stream(int device, StreamId id);     // true when all work is done
void synchronize_device(int device);

}  // namespace hal
