// Lifecycle and discovery: initialize() starts the CUDA runtime and makes the devices' state (adapter_state.h),
// shutdown() releases it; the device count, hal_device_properties_t of an NVIDIA GPU (read from the driver) and
// its memory.
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

HAL_ABI_DEVICE_ENTRIES;

// Peak throughput per SM per clock cycle of one architecture (0: unknown), see devices.cpp.
struct ArchThroughput {
  double fp32_flops_per_clock_per_sm;
  double bf16_dense_flops_per_clock_per_sm;
};
ArchThroughput arch_throughput(int cc_major, int cc_minor);

}  // namespace hal_nvidia
