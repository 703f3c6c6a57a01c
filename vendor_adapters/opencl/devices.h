// Which OpenCL devices the adapter serves, and what it reads about each once at initialization.
//
// A device qualifies when it takes SPIR-V (the kernel library's form for OpenCL and Level Zero) and has
// coarse-grained shared virtual memory (device memory the core can address by pointer, as it does CUDA's).
// TORCH_HAL_OPENCL_DEVICES chooses among the qualified ones:
//   unset or "gpu"  GPUs and accelerators that no other adapter serves better (not NVIDIA's or AMD's GPUs,
//                   which the nvidia and amd adapters drive natively);
//   "cpu"           CPU devices only (the host CPU is otherwise the host reference device's);
//   "all"           every qualified device;
//   "none"          no device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opencl_api.h"
#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_bitfield type = 0;
  std::string name, vendor, platform_name, version;
  uint64_t memory_bytes = 0, local_memory_bytes = 0;
  uint32_t compute_units = 0, max_work_group_size = 0, clock_mhz = 0;
  bool fp16 = false, fp64 = false;
  std::string pci_bus_id, uuid;  // empty where the device does not say
};

struct Discovery {
  std::vector<DeviceInfo> devices;
  std::string config_error;  // TORCH_HAL_OPENCL_DEVICES did not parse
  std::string skipped;       // the devices left out and why, for the message where none is served
};

Discovery discover_devices(const OpenClApi& cl);

// Lifecycle and discovery, as the table exposes them (all but get_device_properties: ../spirv_shell/lifecycle.cpp).
HAL_ABI_DEVICE_ENTRIES;
const char* get_last_error();

}  // namespace hal_opencl
