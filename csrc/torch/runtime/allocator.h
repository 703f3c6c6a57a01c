// c10 allocators over the HAL core: device memory from the core's caching allocator, pinned host memory
// from the adapters.
#pragma once

#include <c10/core/Allocator.h>

#include <cstdint>
#include <utility>

#include "hal/streams.h"

namespace torch_hal {

// The deleter of every DataPtr that owns a block of the core's caching allocator (its context).
void free_hal_block(void* block);

// The allocator registered for the hal device type (c10::GetAllocator(PrivateUse1)).
c10::Allocator* device_allocator();
// torch.hal.empty_cache(): every device's unused cached blocks go back to their adapters.
void empty_device_cache();
// (free, total) bytes of hal:index as its adapter reports them (torch.hal.mem_get_info).
std::pair<uint64_t, uint64_t> memory_info(c10::DeviceIndex index);
// Allocates on hal:device, on that device's current stream.
c10::DataPtr allocate_on(c10::DeviceIndex device, size_t nbytes);
// Defers reuse of the memory until `stream`'s current work is done (Tensor.record_stream).
void record_data_ptr_on_stream(const c10::DataPtr& data_ptr, hal::StreamId stream);

// Pinned host memory for pin_memory("hal") and non_blocking copies.
c10::Allocator* pinned_allocator();

}  // namespace torch_hal
