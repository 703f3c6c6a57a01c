// The part of get_device_properties that the SPIR-V adapters answer alike: both runtimes report a device's PCI
// bus id and UUID (where it says), memory, and work-group limits, which hal_device_properties_t names in CUDA's
// words (a work-group is a block, its local memory a block's shared memory, a compute unit or EU a multiprocessor).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "torch_hal/adapter.h"

namespace hal_spirv_shell {

struct CommonProperties {
  const std::string& pci_bus_id;
  const std::string& uuid;  // both empty where the device does not say
  uint64_t memory_bytes;
  uint32_t compute_units, max_group_size;
  uint64_t local_memory_bytes;
  uint32_t clock_mhz;
};

inline void set_common_properties(hal_device_properties_t* props, const CommonProperties& c) {
  std::snprintf(props->pci_bus_id, sizeof(props->pci_bus_id), "%s", c.pci_bus_id.c_str());
  std::snprintf(props->uuid, sizeof(props->uuid), "%s", c.uuid.c_str());
  props->total_memory_bytes = c.memory_bytes;
  props->compute_units = static_cast<int32_t>(c.compute_units);
  props->max_threads_per_block = static_cast<int32_t>(c.max_group_size);
  props->shared_memory_per_block_bytes = c.local_memory_bytes;
  props->clock_rate_khz = static_cast<int32_t>(c.clock_mhz * 1000);
}

}  // namespace hal_spirv_shell
