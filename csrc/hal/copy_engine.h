// Byte copies between host memory and hal devices, and between hal devices (same adapter: the adapter's
// device or peer copy; different adapters: staged through pinned host memory).
//
// Host memory that is not pinned (pageable) goes through a ring of pinned staging buffers owned by the
// core: the transfer is cut into chunks, several in flight at once, so the host memcpy of one chunk
// overlaps the device transfer of the previous one. A pageable copy returns once the host memory may be
// reused (H2D) or holds the data (D2H), as in CUDA.
#pragma once

#include <cstddef>

#include "hal/pinned_memory.h"
#include "hal/streams.h"

namespace hal {

// All copies are issued on `stream` of the device side (the destination device for device-to-device).
// With non_blocking=false the call returns after the copy completed.
void copy_host_to_device(int device, void* dst, const void* src, size_t nbytes, StreamId stream,
                         bool src_is_pinned, bool non_blocking);
void copy_device_to_host(int device, void* dst, const void* src, size_t nbytes, StreamId stream,
                         bool dst_is_pinned, bool non_blocking);
void copy_device_to_device(int dst_device, void* dst, int src_device, const void* src, size_t nbytes,
                           StreamId stream, bool non_blocking);

// Sends pageable host memory through the staging ring even where the device could read it directly
// (HAL_DEVICE_FLAG_HOST_ACCESSIBLE), so that the ring is exercised on the host reference device. The
// initial value comes from TORCH_HAL_FORCE_STAGING=1 at the first copy.
void set_force_staging(bool force);
bool force_staging();


}  // namespace hal
