#include "devices.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"
#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {

// Peak FLOPs per clock per SM, by architecture. A fused multiply-add counts as 2 FLOPs. "bf16" is the
// dense (no 2:4 sparsity) tensor-core rate with FP32 accumulation, which is what GEMMs run at.
// Sources: NVIDIA's architecture whitepapers and product specifications; each figure reproduces the
// published peak as SMs x boost clock x the value below:
//   8.0  A100 (GA100):  64 FP32 lanes/SM -> 128;  312 TFLOPS bf16 / (108 SMs x 1.41 GHz) -> 2048
//   8.6  GA10x:        128 FP32 lanes/SM -> 256;  A6000: 154.8 TFLOPS / (84 x 1.80 GHz) -> 1024
//   8.9  Ada (AD10x):  128 FP32 lanes/SM -> 256;  L40S / RTX 6000 Ada: ~362 TFLOPS / (142 x 2.5 GHz) -> 1024
//   9.0  H100 (GH100): 128 FP32 lanes/SM -> 256;  989 TFLOPS / (132 SMs x 1.83 GHz) -> 4096
//   10.x B200/B300:    128 FP32 lanes/SM -> 256;  2.25 PFLOPS / (148 SMs x ~1.86 GHz) -> 8192
//   12.x RTX 50xx/RTX PRO Blackwell: 128 FP32 lanes/SM -> 256; RTX 5090: 419 TFLOPS fp16 / (170 x 2.41 GHz) -> 1024
// GeForce boards of 8.6, 8.9 and 12.x run FP32-accumulating tensor math at half the rate above (a product
// limit, not an architectural one), and real clocks under load are often below the boost clock the driver
// reports: these are upper bounds for roofline plots, not predictions.
ArchThroughput arch_throughput(int cc_major, int cc_minor) {
  if (cc_major == 8 && cc_minor == 0) return {128, 2048};
  if (cc_major == 8 && cc_minor == 6) return {256, 1024};
  if (cc_major == 8 && cc_minor == 9) return {256, 1024};
  if (cc_major == 9 && cc_minor == 0) return {256, 4096};
  if (cc_major == 10) return {256, 8192};
  if (cc_major == 12) return {256, 1024};
  return {0, 0};  // unknown architecture (e.g. embedded 8.7): reported as unknown rather than guessed
}

namespace {

void copy_string(char* dst, size_t capacity, const std::string& src) {
  std::snprintf(dst, capacity, "%s", src.c_str());
}

std::string uuid_text(const cudaUUID_t& uuid) {
  // 8-4-4-4-12 lower-case hex, as nvidia-smi prints it after its "GPU-" prefix and torch.cuda prints it.
  char text[37];
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  std::snprintf(text, sizeof(text), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

bool can_access_any_peer(int32_t device) {
  const int32_t count = static_cast<int32_t>(state().devices.size());
  bool any = false;
  for (int32_t other = 0; other < count && !any; ++other) {
    int can = 0;
    any = other != device && cudaDeviceCanAccessPeer(&can, device, other) == cudaSuccess && can;
  }
  (void)cudaGetLastError();  // a failed query only means "no"
  return any;
}

}  // namespace

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  cudaDeviceProp dp{};
  if (hal_status_t s = check(cudaGetDeviceProperties(&dp, device), "cudaGetDeviceProperties");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  // Clock rates were removed from cudaDeviceProp in CUDA 13; the attributes remain.
  int clock_khz = 0, memory_clock_khz = 0;
  if (hal_status_t s = check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device),
                             "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (hal_status_t s = check(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device),
                             "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) != cudaSuccess) {
    (void)cudaGetLastError();
    bus_id[0] = '\0';  // not a PCI device (integrated): empty, as adapter.h asks
  }
  for (char* c = bus_id; *c; ++c) *c = static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));

  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  copy_string(p.name, sizeof(p.name), dp.name);
  copy_string(p.vendor, sizeof(p.vendor), "nvidia");  // adapter.h: the lower-case vendor key
  copy_string(p.arch_name, sizeof(p.arch_name), "sm_" + std::to_string(dp.major) + std::to_string(dp.minor));
  copy_string(p.pci_bus_id, sizeof(p.pci_bus_id), bus_id);
  copy_string(p.uuid, sizeof(p.uuid), uuid_text(dp.uuid));
  p.total_memory_bytes = dp.totalGlobalMem;
  p.compute_units = dp.multiProcessorCount;
  p.compute_capability_major = dp.major;
  p.compute_capability_minor = dp.minor;
  p.max_threads_per_block = dp.maxThreadsPerBlock;
  p.shared_memory_per_block_bytes = dp.sharedMemPerBlock;
  p.clock_rate_khz = clock_khz;
  p.memory_clock_rate_khz = memory_clock_khz;
  p.memory_bus_width_bits = dp.memoryBusWidth;

  // Every GPU CUDA 13 supports (7.5 and newer) has FP16 and FP64 arithmetic; BF16 arrived with Ampere
  // (8.0), FP8 with Ada (8.9). A discrete GPU's memory is not host-accessible.
  p.flags = HAL_DEVICE_FLAG_FP16 | HAL_DEVICE_FLAG_FP64;
  if (dp.major >= 8) p.flags |= HAL_DEVICE_FLAG_BF16;
  if (dp.major > 8 || (dp.major == 8 && dp.minor >= 9)) p.flags |= HAL_DEVICE_FLAG_FP8;
  if (can_access_any_peer(device)) p.flags |= HAL_DEVICE_FLAG_PEER_ACCESS;

  const ArchThroughput t = arch_throughput(dp.major, dp.minor);
  const double sm_clocks_per_s = static_cast<double>(dp.multiProcessorCount) * clock_khz * 1e3;
  p.peak_fp32_tflops = sm_clocks_per_s * t.fp32_flops_per_clock_per_sm / 1e12;
  p.peak_bf16_tflops = sm_clocks_per_s * t.bf16_dense_flops_per_clock_per_sm / 1e12;
  // The reported memory clock is the base rate; data moves on both edges (DDR), so bytes/s =
  // clock x 2 x bus width / 8. H100 SXM: 2619 MHz x 2 x 5120 bit / 8 = 3352 GB/s, its published 3.35 TB/s.
  p.memory_bandwidth_gbps = static_cast<double>(memory_clock_khz) * 1e3 * 2.0 * dp.memoryBusWidth / 8.0 / 1e9;

  // Fill no more than the caller's struct holds: a core built against an older minor may pass less.
  const uint32_t size = std::min<uint32_t>(props->struct_size, sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

// ---- lifecycle ------------------------------------------------------------------------------------

namespace {

std::mutex g_lifecycle_mutex;
AdapterState* g_state = nullptr;  // between the first initialize() and the last shutdown()
int g_initializations = 0;         // initialize()/shutdown() pairs may nest

std::string version_text(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

bool driver_library_present() {
  void* library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!library) return false;
  dlclose(library);
  return true;
}

// Why the CUDA runtime could not start, and what to do about it.
std::string unavailable_reason(cudaError_t error) {
  const std::string code = std::string(" (") + cudaGetErrorName(error) + ")";
  switch (error) {
    case cudaErrorInsufficientDriver: {
      if (!driver_library_present()) {
        return "no NVIDIA driver (libcuda.so.1 not found): install the NVIDIA driver" + code;
      }
      int driver = 0;
      (void)cudaDriverGetVersion(&driver);
      return "the NVIDIA driver supports CUDA " + version_text(driver) + ", older than the CUDA " +
             version_text(CUDART_VERSION) + " runtime this adapter was built with: update the NVIDIA driver" + code;
    }
    case cudaErrorNoDevice:
      return "the driver found no NVIDIA GPU: check nvidia-smi, and CUDA_VISIBLE_DEVICES if it is set" + code;
    case cudaErrorDevicesUnavailable:
      return "every NVIDIA GPU is busy or unavailable (exclusive-process compute mode? see nvidia-smi -q)" + code;
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return "the NVIDIA driver's user-space library does not match its kernel module: reinstall the driver or "
             "reboot after an upgrade" + code;
    default:
      return std::string("the CUDA runtime failed to start: ") + cudaGetErrorName(error) + ": " +
             cudaGetErrorString(error);
  }
}

hal_status_t make_device(int32_t index, int32_t count, std::unique_ptr<DeviceState>* out) {
  auto d = std::make_unique<DeviceState>();
  d->index = index;
  d->peer.assign(static_cast<size_t>(count), DeviceState::Peer::Unknown);
  if (hal_status_t s = check(cudaDeviceGetAttribute(&d->cc_major, cudaDevAttrComputeCapabilityMajor, index),
                             "cudaDeviceGetAttribute(compute capability)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (hal_status_t s = check(cudaDeviceGetAttribute(&d->cc_minor, cudaDevAttrComputeCapabilityMinor, index),
                             "cudaDeviceGetAttribute(compute capability)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  *out = std::move(d);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

AdapterState& state() { return *g_state; }

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  // The static CUDA runtime loads libcuda.so.1 itself here; without a driver it returns an error (it
  // never aborts), so a machine without an NVIDIA GPU only sees this adapter as unavailable.
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(HAL_STATUS_UNAVAILABLE, unavailable_reason(error));
  }
  if (count == 0) return fail(HAL_STATUS_UNAVAILABLE, unavailable_reason(cudaErrorNoDevice));

  auto s = std::make_unique<AdapterState>();
  for (int32_t i = 0; i < count; ++i) {
    std::unique_ptr<DeviceState> d;
    if (hal_status_t st = make_device(i, count, &d); st != HAL_STATUS_SUCCESS) {
      return fail(HAL_STATUS_UNAVAILABLE, std::string("NVIDIA GPU ") + std::to_string(i) +
                                              " cannot be queried: " + last_error());
    }
    s->devices.push_back(std::move(d));
  }
  g_state = s.release();
  g_initializations = 1;
  return HAL_STATUS_SUCCESS;
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  // Each device's handles are released with that device current (cuBLAS destroys on the current one).
  for (auto& d : g_state->devices) {
    if (use_device(d->index) == HAL_STATUS_SUCCESS) d.reset();
  }
  delete g_state;  // what is left could not make its device current: released without it
  g_state = nullptr;
}

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

// ---- discovery ------------------------------------------------------------------------------------

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  size_t free_b = 0, total_b = 0;
  if (hal_status_t s = check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"); s != HAL_STATUS_SUCCESS) return s;
  *free_bytes = free_b;
  *total_bytes = total_b;
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_nvidia
