#include "devices.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "adapter_context.h"
#include "code_objects.h"

namespace hal_amd {
namespace {

int attribute(int device, HipAttribute which) {
  int value = 0;
  return hip().DeviceGetAttribute(&value, which, device) == hipSuccess ? value : 0;
}

}  // namespace

hal_status_t initialize() {
  std::string why;
  const HipApi* api = hip_api(&why);
  if (!api) return fail(HAL_STATUS_UNAVAILABLE, why);
  const hipError_t init = api->Init(0);
  int count = 0;
  const hipError_t counted = init == hipSuccess ? api->GetDeviceCount(&count) : init;
  if (counted != hipSuccess || count == 0) {
    return fail(HAL_STATUS_UNAVAILABLE,
                "no AMD GPU (" + hip_error_text(counted == hipSuccess ? hipErrorNoDevice : counted) +
                    "): this machine has the HIP runtime but no usable AMD GPU or amdgpu driver");
  }
  for (int device = 0; device < count; ++device) {
    if (device_architecture(*api, device, &why).empty()) return fail(HAL_STATUS_UNAVAILABLE, why);
  }
  create_device_states(count);
  g_device_count = count;
  return HAL_STATUS_SUCCESS;
}

void shutdown() noexcept {
  destroy_device_states();  // the scratch buffers, freed while the runtime is still up
  g_device_count = 0;
}

hal_status_t device_count(int32_t* count) {
  *count = g_device_count;
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* p) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  std::snprintf(p->vendor, sizeof(p->vendor), "amd");
  if (hal_status_t s = check(hip().DeviceGetName(p->name, sizeof(p->name), device), "hipDeviceGetName");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  std::string why;
  std::snprintf(p->arch_name, sizeof(p->arch_name), "%s", device_architecture(hip(), device, &why).c_str());
  std::snprintf(p->pci_bus_id, sizeof(p->pci_bus_id), "%04x:%02x:%02x.0", attribute(device, kAttrPciDomainId),
                attribute(device, kAttrPciBusId), attribute(device, kAttrPciDeviceId));
  size_t total = 0;
  if (hal_status_t s = check(hip().DeviceTotalMem(&total, device), "hipDeviceTotalMem"); s != HAL_STATUS_SUCCESS) {
    return s;
  }
  p->total_memory_bytes = total;
  p->compute_units = attribute(device, kAttrMultiprocessorCount);
  p->compute_capability_major = attribute(device, kAttrComputeCapabilityMajor);
  p->compute_capability_minor = attribute(device, kAttrComputeCapabilityMinor);
  p->max_threads_per_block = attribute(device, kAttrMaxThreadsPerBlock);
  p->shared_memory_per_block_bytes = static_cast<uint64_t>(attribute(device, kAttrMaxSharedMemoryPerBlock));
  p->clock_rate_khz = attribute(device, kAttrClockRate);
  p->memory_clock_rate_khz = attribute(device, kAttrMemoryClockRate);
  p->memory_bus_width_bits = attribute(device, kAttrMemoryBusWidth);
  // Every architecture the adapter is built for (gfx90a and newer) has fp16, bf16 and fp64.
  p->flags = HAL_DEVICE_FLAG_FP16 | HAL_DEVICE_FLAG_BF16 | HAL_DEVICE_FLAG_FP64 | HAL_DEVICE_FLAG_PEER_ACCESS;
  if (std::strcmp(p->arch_name, "gfx942") == 0) p->flags |= HAL_DEVICE_FLAG_FP8;
  // Double data rate memory: bytes per second = clock * 2 * bus width / 8.
  p->memory_bandwidth_gbps = p->memory_clock_rate_khz * 1e3 * 2.0 * p->memory_bus_width_bits / 8.0 / 1e9;
  // CDNA and RDNA: 128 FP32 FLOPs per CU per clock (64 lanes, fused multiply-add).
  p->peak_fp32_tflops = p->compute_units * 128.0 * p->clock_rate_khz * 1e3 / 1e12;
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  size_t free_now = 0, total = 0;
  hal_status_t s = check(hip().MemGetInfo(&free_now, &total), "hipMemGetInfo");
  *free_bytes = free_now;
  *total_bytes = total;
  return s;
}

}  // namespace hal_amd
