// hal_device_properties_t of an NVIDIA GPU, read from the driver.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_nvidia {

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props);

// Peak throughput per SM per clock cycle of one architecture (0: unknown), see device_properties.cpp.
struct ArchThroughput {
  double fp32_flops_per_clock_per_sm;
  double bf16_dense_flops_per_clock_per_sm;
};
ArchThroughput arch_throughput(int cc_major, int cc_minor);

}  // namespace hal_nvidia
