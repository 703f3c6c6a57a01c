// Lifecycle and discovery: initialize() starts the CUDA runtime and makes the devices' state (adapter_state.h),
// shutdown() releases it; the device count, hal_device_properties_t of an NVIDIA GPU (read from the driver) and
// its memory.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_nvidia {

hal_status_t initialize();
void shutdown();
hal_status_t device_count(int32_t* count);
hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props);
hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes);

// Peak throughput per SM per clock cycle of one architecture (0: unknown), see devices.cpp.
struct ArchThroughput {
  double fp32_flops_per_clock_per_sm;
  double bf16_dense_flops_per_clock_per_sm;
};
ArchThroughput arch_throughput(int cc_major, int cc_minor);

}  // namespace hal_nvidia
