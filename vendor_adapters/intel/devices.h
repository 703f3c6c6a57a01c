// Which Level Zero devices the adapter serves, and what it reads about each once at initialization.
//
// Every GPU of every Level Zero driver, as the driver numbers its root devices (a driver that exposes tiles as
// devices, ZE_FLAT_HIERARCHY=FLAT on newer ones, gives one hal device a tile). Other device types (CPUs, FPGAs)
// are left out: the host device and other adapters serve them. Where there is none, the reason says what is
// missing and how to get it: the driver (zeInit fails without one), permissions, or the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "level_zero_api.h"
#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {

struct DeviceInfo {
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  std::string name;
  uint32_t vendor_id = 0, device_id = 0;  // PCI ids
  bool integrated = false;                // shares the host's memory (its allocations are still device memory)
  uint32_t eu_count = 0, eu_simd_width = 0, clock_mhz = 0;
  uint64_t max_alloc_bytes = 0;
  uint32_t max_group_size = 0, shared_local_memory_bytes = 0;
  uint64_t memory_bytes = 0;
  uint32_t memory_clock_mhz = 0, memory_bus_width_bits = 0;
  double memory_bandwidth_gbps = 0;  // the driver's design figure, where it gives one
  bool fp16 = false, fp64 = false, bf16 = false;
  uint64_t timer_resolution_ns = 0;  // one tick of zeCommandListAppendWriteGlobalTimestamp
  uint32_t timestamp_valid_bits = 0;
  uint32_t compute_ordinal = 0;  // the command queue group that runs kernels (and, here, copies)
  bool relaxed_allocation_limits = false;  // the driver allows allocations past max_alloc_bytes
  std::string pci_bus_id, uuid;            // empty where the driver does not say
};

struct Discovery {
  std::vector<DeviceInfo> devices;
  std::string why_none;  // where devices is empty: the cause and the fix
};

Discovery discover_devices(const LevelZeroApi& ze);

// An Intel GPU (PCI vendor 0x8086), as opposed to another vendor's device behind a Level Zero driver.
bool is_intel(const DeviceInfo& d);

// The table's lifecycle and discovery entries: get_device_properties is defined here, the others by the SPIR-V
// shell (../spirv_shell/lifecycle.cpp) in this namespace.
HAL_ABI_DEVICE_ENTRIES;
const char* get_last_error();

}  // namespace hal_level_zero
