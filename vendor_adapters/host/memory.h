// Device memory (64-byte-aligned regions within each device's capacity), pinned host memory, and fills and
// copies on streams.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace host_adapter {

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr);
hal_status_t free_device(int32_t device, void* ptr);
hal_status_t malloc_host(uint64_t size, void** ptr);
hal_status_t free_host(void* ptr);
hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream);
hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream);
hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream);

}  // namespace host_adapter
