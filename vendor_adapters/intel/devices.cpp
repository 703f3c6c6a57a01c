#include "devices.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "adapter_state.h"
#include "device_properties.h"
#include "../spirv_shell/device_properties.h"

namespace hal_level_zero {
namespace {

constexpr uint32_t kIntelPciVendor = 0x8086;

// The extensions a driver lists. The bfloat16 one is named by later headers than Debian's (API 1.4), so it
// is matched by its name.
struct Extensions {
  bool eu_count = false, pci = false, memory_properties = false, relaxed_allocation = false, bf16 = false;
};

Extensions extensions_of(const LevelZeroApi& ze, ze_driver_handle_t driver) {
  uint32_t count = 0;
  Extensions out;
  if (ze.zeDriverGetExtensionProperties(driver, &count, nullptr) != ZE_RESULT_SUCCESS || count == 0) return out;
  std::vector<ze_driver_extension_properties_t> list(count);
  if (ze.zeDriverGetExtensionProperties(driver, &count, list.data()) != ZE_RESULT_SUCCESS) return out;
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) names.insert(list[i].name);
  out.eu_count = names.count(ZE_EU_COUNT_EXT_NAME) > 0;
  out.pci = names.count(ZE_PCI_PROPERTIES_EXT_NAME) > 0;
  out.memory_properties = names.count(ZE_DEVICE_MEMORY_PROPERTIES_EXT_NAME) > 0;
  out.relaxed_allocation = names.count(ZE_RELAXED_ALLOCATION_LIMITS_EXP_NAME) > 0;
  out.bf16 = names.count("ZE_extension_bfloat16_conversions") > 0;
  return out;
}

std::string uuid_text(const uint8_t* u) {
  char text[40];
  std::snprintf(text, sizeof(text), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  return text;
}

// Total memory, its clock and bus width (the widest), and the design bandwidth where the driver gives it in
// bytes per nanosecond (GB/s).
void read_memory(const LevelZeroApi& ze, const Extensions& ext, DeviceInfo* d) {
  uint32_t count = 0;
  if (ze.zeDeviceGetMemoryProperties(d->device, &count, nullptr) != ZE_RESULT_SUCCESS || count == 0) return;
  std::vector<ze_device_memory_properties_t> memories(count);
  std::vector<ze_device_memory_ext_properties_t> details(count);
  for (uint32_t i = 0; i < count; ++i) {
    memories[i] = {};
    memories[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    details[i] = {};
    details[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_EXT_PROPERTIES;
    // Chained only where the driver lists the extension: an unknown structure may be refused.
    if (ext.memory_properties) memories[i].pNext = &details[i];
  }
  if (ze.zeDeviceGetMemoryProperties(d->device, &count, memories.data()) != ZE_RESULT_SUCCESS) return;
  for (uint32_t i = 0; i < count; ++i) {
    d->memory_bytes += memories[i].totalSize;
    if (memories[i].maxBusWidth > d->memory_bus_width_bits) {
      d->memory_bus_width_bits = memories[i].maxBusWidth;
      d->memory_clock_mhz = memories[i].maxClockRate;
    }
    if (ext.memory_properties && details[i].bandwidthUnit == ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC) {
      d->memory_bandwidth_gbps += details[i].readBandwidth;
    }
  }
}

// The first command queue group that runs kernels. Copies go to the same group, so that one immediate command
// list is one stream, in order; a separate copy engine would need events between two lists.
bool find_compute_group(const LevelZeroApi& ze, DeviceInfo* d) {
  uint32_t count = 0;
  if (ze.zeDeviceGetCommandQueueGroupProperties(d->device, &count, nullptr) != ZE_RESULT_SUCCESS) return false;
  std::vector<ze_command_queue_group_properties_t> groups(count);
  for (auto& g : groups) {
    g = {};
    g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  }
  if (ze.zeDeviceGetCommandQueueGroupProperties(d->device, &count, groups.data()) != ZE_RESULT_SUCCESS) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      d->compute_ordinal = i;
      return true;
    }
  }
  return false;
}

// Why the device cannot be read, or empty.
std::string read_device(const LevelZeroApi& ze, const Extensions& ext, DeviceInfo* d) {
  ze_device_properties_t p{};
  // The 1.0 form of the structure: its timerResolution is in nanoseconds (the 1.2 form gives cycles/s).
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ze_eu_count_ext_t eus{};
  eus.stype = ZE_STRUCTURE_TYPE_EU_COUNT_EXT;
  if (ext.eu_count) p.pNext = &eus;
  if (ze_result_t r = ze.zeDeviceGetProperties(d->device, &p); r != ZE_RESULT_SUCCESS) {
    return "zeDeviceGetProperties failed: " + ze_result_name(r);
  }
  if (p.type != ZE_DEVICE_TYPE_GPU) return std::string(p.name) + ": not a GPU";
  d->name = p.name;
  d->vendor_id = p.vendorId;
  d->device_id = p.deviceId;
  d->integrated = (p.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
  d->clock_mhz = p.coreClockRate;
  d->max_alloc_bytes = p.maxMemAllocSize;
  d->eu_simd_width = p.physicalEUSimdWidth;
  // The extension counts the EUs that exist; the product is the most the slices could hold (some are fused
  // off on smaller parts).
  d->eu_count = ext.eu_count && eus.numTotalEUs > 0 ? eus.numTotalEUs
                                                    : p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice;
  d->timer_resolution_ns = p.timerResolution;
  d->timestamp_valid_bits = p.timestampValidBits;
  d->uuid = uuid_text(p.uuid.id);

  ze_device_compute_properties_t compute{};
  compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  if (ze.zeDeviceGetComputeProperties(d->device, &compute) == ZE_RESULT_SUCCESS) {
    d->max_group_size = compute.maxTotalGroupSize;
    d->shared_local_memory_bytes = compute.maxSharedLocalMemory;
  }
  ze_device_module_properties_t module{};
  module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  if (ze.zeDeviceGetModuleProperties(d->device, &module) == ZE_RESULT_SUCCESS) {
    d->fp16 = (module.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0;
    d->fp64 = (module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
  }
  d->bf16 = ext.bf16;
  d->relaxed_allocation_limits = ext.relaxed_allocation;
  read_memory(ze, ext, d);
  if (ext.pci && ze.zeDevicePciGetPropertiesExt != nullptr) {
    ze_pci_ext_properties_t pci{};
    pci.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES;
    if (ze.zeDevicePciGetPropertiesExt(d->device, &pci) == ZE_RESULT_SUCCESS) {
      char text[32];
      std::snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", pci.address.domain, pci.address.bus, pci.address.device,
                    pci.address.function);
      d->pci_bus_id = text;
    }
  }
  if (!find_compute_group(ze, d)) return d->name + ": no command queue group runs kernels";
  return {};
}

}  // namespace

Discovery discover_devices(const LevelZeroApi& ze) {
  Discovery out;
  if (ze_result_t r = ze.zeInit(ZE_INIT_FLAG_GPU_ONLY); r != ZE_RESULT_SUCCESS) {
    out.why_none = "no Level Zero driver: zeInit returned " + ze_result_name(r) +
                   ". Install Intel's GPU driver on a machine with an Intel GPU (Debian 12: intel-opencl-icd, which "
                   "holds libze_intel_gpu.so.1; newer Debian and Ubuntu: libze-intel-gpu1; Intel's repositories: "
                   "intel-level-zero-gpu), and let this user open /dev/dri/renderD* (the render group)";
    return out;
  }
  uint32_t driver_count = 0;
  if (ze_result_t r = ze.zeDriverGet(&driver_count, nullptr); r != ZE_RESULT_SUCCESS || driver_count == 0) {
    out.why_none = "the Level Zero loader found no GPU driver (zeDriverGet: " + ze_result_name(r) +
                   ", " + std::to_string(driver_count) + " drivers): install Intel's GPU driver";
    return out;
  }
  std::vector<ze_driver_handle_t> drivers(driver_count);
  ze.zeDriverGet(&driver_count, drivers.data());
  std::string skipped;
  for (ze_driver_handle_t driver : drivers) {
    const Extensions ext = extensions_of(ze, driver);
    uint32_t n = 0;
    if (ze.zeDeviceGet(driver, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) continue;
    std::vector<ze_device_handle_t> handles(n);
    if (ze.zeDeviceGet(driver, &n, handles.data()) != ZE_RESULT_SUCCESS) continue;
    for (ze_device_handle_t handle : handles) {
      DeviceInfo d;
      d.driver = driver;
      d.device = handle;
      const std::string why = read_device(ze, ext, &d);
      if (why.empty()) {
        out.devices.push_back(std::move(d));
      } else {
        skipped += (skipped.empty() ? "" : "; ") + why;
      }
    }
  }
  if (out.devices.empty()) {
    out.why_none = "the Level Zero drivers (" + std::to_string(driver_count) + ") have no GPU device" +
                   (skipped.empty() ? std::string() : " to serve: " + skipped);
  }
  return out;
}

bool is_intel(const DeviceInfo& d) { return d.vendor_id == kIntelPciVendor; }

namespace {

// Modules that may address allocations past the driver's single-allocation limit (4 GiB on many GPUs) must be
// built for it; that costs some speed, so only devices whose memory exceeds the limit, and whose driver
// allows such allocations, get it.
std::string build_flags_for(const DeviceInfo& info) {
  const bool large = info.relaxed_allocation_limits && info.max_alloc_bytes < info.memory_bytes;
  return large ? "-ze-opt-greater-than-4GB-buffer-required" : "";
}

hal_status_t open_devices(State& state, Discovery discovery) {
  std::map<ze_driver_handle_t, std::shared_ptr<DriverContext>> contexts;
  std::string error;
  for (DeviceInfo& info : discovery.devices) {
    std::shared_ptr<DriverContext>& driver = contexts[info.driver];
    if (!driver) {
      ze_context_desc_t desc{};
      desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
      ze_context_handle_t context = nullptr;
      if (ze_result_t r = state.ze->zeContextCreate(info.driver, &desc, &context); r != ZE_RESULT_SUCCESS) {
        return fail(failed("zeContextCreate for " + info.name, r, &error), error);
      }
      driver = std::make_shared<DriverContext>();
      driver->context = Context(context, state.ze->zeContextDestroy);
      driver->events = std::make_shared<EventCache>(*state.ze, context);
    }
    auto d = std::make_unique<Device>();
    d->driver = driver;
    d->info = std::move(info);
    d->default_stream = std::make_unique<Stream>(*state.ze, driver->events);
    if (hal_status_t st = d->default_stream->open(d->context(), d->info.device, d->info.compute_ordinal, 0, &error)) {
      return fail(st, d->info.name + ": " + error);
    }
    d->kernels = std::make_unique<DeviceKernels>(*state.ze, d->context(), d->info.device, build_flags_for(d->info));
    state.devices.push_back(std::move(d));
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace

// ---- lifecycle (the shell's initialize and shutdown count the calls) -------------------------------

hal_status_t open_state() {
  std::string why;
  const LevelZeroApi* api = level_zero_api(&why);
  // No loader is one more reason for no device: `why` says which library was tried and what to install.
  Discovery discovery = api != nullptr ? discover_devices(*api) : Discovery{{}, why};
  if (discovery.devices.empty()) return fail(HAL_STATUS_UNAVAILABLE, discovery.why_none);
  auto state = std::make_unique<State>();
  state->ze = api;
  if (hal_status_t st = open_devices(*state, std::move(discovery))) return st;
  g_state = state.release();
  return HAL_STATUS_SUCCESS;
}

void close_state() {
  delete g_state;
  g_state = nullptr;
}

// ---- discovery ---------------------------------------------------------------------------------

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  const DeviceInfo& info = dev(device).info;
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  std::snprintf(p.name, sizeof(p.name), "%s", info.name.c_str());
  // Another vendor's GPU behind a Level Zero driver is not counted as Intel's.
  std::snprintf(p.vendor, sizeof(p.vendor), "%s", is_intel(info) ? "intel" : "level_zero");
  // The PCI ids name the GPU's architecture (the IP-version query is newer than API 1.4).
  std::snprintf(p.arch_name, sizeof(p.arch_name), "pci %04x:%04x", info.vendor_id, info.device_id);
  hal_spirv_shell::set_common_properties(&p, {info.pci_bus_id, info.uuid, info.memory_bytes, info.eu_count,
                                              info.max_group_size, info.shared_local_memory_bytes, info.clock_mhz});
  p.memory_clock_rate_khz = static_cast<int32_t>(info.memory_clock_mhz * 1000);
  p.memory_bus_width_bits = static_cast<int32_t>(info.memory_bus_width_bits);
  // Device memory: the host never dereferences it, even on an integrated GPU (only shared allocations would
  // allow that), so the core copies.
  p.flags = (info.fp16 ? uint32_t{HAL_DEVICE_FLAG_FP16} : 0u) | (info.bf16 ? uint32_t{HAL_DEVICE_FLAG_BF16} : 0u) |
            (info.fp64 ? uint32_t{HAL_DEVICE_FLAG_FP64} : 0u);
  // Each EU's FP32 unit is physicalEUSimdWidth lanes wide, each lane a fused multiply-add (2 FLOPs) a clock,
  // at the maximum core clock. The matrix engines' (XMX) bf16 rate is not in the API: 0, unknown.
  p.peak_fp32_tflops = 2.0 * info.eu_count * info.eu_simd_width * info.clock_mhz * 1e6 / 1e12;
  p.memory_bandwidth_gbps = info.memory_bandwidth_gbps;
  return hal_adapter_support::answer_properties(p, props);
}

}  // namespace hal_level_zero
