// The AMD adapter: hal devices for AMD GPUs over the HIP runtime, loaded with dlopen (hip_api.cpp) so the
// library loads everywhere and says why AMD GPUs are unavailable (no ROCm runtime, no AMD GPU, an
// architecture it holds no code for). Native kernels come from the GPU kernel library, compiled by hipcc
// into code objects for several gfx architectures (code_objects.h); GEMMs go to rocBLAS, also loaded with
// dlopen (gemm.cpp).
#include <cstdio>
#include <cstring>
#include <string>

#include "adapter_context.h"
#include "code_objects.h"
#include "rccl_collectives.h"
#include "kernels/op_call.h"
#include "torch_hal/adapter.h"

namespace hal_amd {
namespace {

int g_device_count = 0;

hipStream_t stream_of(hal_stream_t stream) { return reinterpret_cast<hipStream_t>(stream); }
hipEvent_t event_of(hal_event_t event) { return reinterpret_cast<hipEvent_t>(event); }

hal_status_t use(int32_t device) {
  if (device < 0 || device >= g_device_count) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "AMD GPU " + std::to_string(device) + " does not exist");
  }
  return use_device(device);
}

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

int attribute(int device, HipAttribute which) {
  int value = 0;
  return hip().DeviceGetAttribute(&value, which, device) == hipSuccess ? value : 0;
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

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().Malloc(ptr, size), "hipMalloc of " + std::to_string(size) + " bytes");
}
hal_status_t free_device(int32_t device, void* ptr) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().Free(ptr), "hipFree");
}
hal_status_t malloc_host(uint64_t size, void** ptr) {
  const hipError_t error = hip().HostMalloc(ptr, size, 0);
  if (error == hipErrorOutOfMemory) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "hipHostMalloc: out of pinned host memory");
  return check(error, "hipHostMalloc");
}
hal_status_t free_host(void* ptr) { return check(hip().HostFree(ptr), "hipHostFree"); }

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemsetAsync(ptr, value, size, stream_of(stream)), "hipMemsetAsync");
}
hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t /*kind*/,
                          hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemcpyAsync(dst, src, size, kMemcpyDefault, stream_of(stream)), "hipMemcpyAsync");
}
hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream) {
  if (hal_status_t s = use(src_device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().MemcpyPeerAsync(dst, dst_device, src, src_device, size, stream_of(stream)), "hipMemcpyPeerAsync");
}

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  hipStream_t created = nullptr;
  hal_status_t s = check(hip().StreamCreateWithFlags(&created, kStreamNonBlocking), "hipStreamCreateWithFlags");
  *stream = reinterpret_cast<hal_stream_t>(created);
  return s;
}
hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  // The stream's scratch goes first: a stream made later may get the same handle.
  device_state(device).scratch.forget(reinterpret_cast<cudaStream_t>(stream));
  return check(hip().StreamDestroy(stream_of(stream)), "hipStreamDestroy");
}
hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamSynchronize(stream_of(stream)), "hipStreamSynchronize");
}
hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamQuery(stream_of(stream)), "hipStreamQuery");
}
// A hal stream is the hipStream_t itself (NULL: HIP's null stream, the device's default).
hal_status_t stream_native_handle(int32_t /*device*/, hal_stream_t stream, void** handle) {
  *handle = stream_of(stream);
  return HAL_STATUS_SUCCESS;
}
hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamWaitEvent(stream_of(stream), event_of(event), 0), "hipStreamWaitEvent");
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  hipEvent_t created = nullptr;
  const unsigned hip_flags = (flags & HAL_EVENT_FLAG_TIMING) ? 0u : kEventDisableTiming;
  hal_status_t s = check(hip().EventCreateWithFlags(&created, hip_flags), "hipEventCreateWithFlags");
  *event = reinterpret_cast<hal_event_t>(created);
  return s;
}
hal_status_t event_destroy(int32_t device, hal_event_t event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().EventDestroy(event_of(event)), "hipEventDestroy");
}
hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().EventRecord(event_of(event), stream_of(stream)), "hipEventRecord");
}
hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return check(hip().EventQuery(event_of(event)), "hipEventQuery");
}
hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  return check(hip().EventSynchronize(event_of(event)), "hipEventSynchronize");
}
hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  return check(hip().EventElapsedTime(ms, event_of(start), event_of(end)), "hipEventElapsedTime");
}
hal_status_t device_synchronize(int32_t device) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().DeviceSynchronize(), "hipDeviceSynchronize");
}

template <auto Fn>
struct Guarded;
template <typename... Args, hal_status_t (*Fn)(Args...)>
struct Guarded<Fn> {
  static hal_status_t call(Args... args) noexcept {
    try {
      return Fn(args...);
    } catch (const std::exception& e) {
      return fail(HAL_STATUS_INTERNAL_ERROR, std::string("AMD adapter: ") + e.what());
    } catch (...) {
      return fail(HAL_STATUS_INTERNAL_ERROR, "AMD adapter: unknown exception");
    }
  }
};

const char* get_last_error_entry() noexcept { return last_error(); }

}  // namespace

// launch_op and op_supported (op_dispatch.cpp).
hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs, int32_t num_inputs,
                       hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars);
hal_status_t op_supported(int32_t device, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);

// Inter-process sharing through HIP IPC handles (ipc.cpp).
hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle);
hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base);
hal_status_t ipc_close(int32_t device, void* base);

// Names the architectures the embedded kernels run on, for `python -m torch_hal info` and the tests.
const char* description() {
  static const std::string text = [] {
    std::string archs;
    for (const std::string& arch : embedded_architectures()) archs += (archs.empty() ? "" : ", ") + arch;
    return "AMD GPUs through the HIP runtime (loaded with dlopen), with the portable kernel library for " +
           (archs.empty() ? std::string("no architecture (built without kernels)") : archs);
  }();
  return text.c_str();
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "amd";
    a.description = description();
    a.initialize = Guarded<initialize>::call;
    a.shutdown = shutdown;
    a.get_last_error = get_last_error_entry;
    a.device_count = Guarded<device_count>::call;
    a.get_device_properties = Guarded<get_device_properties>::call;
    a.get_memory_info = Guarded<get_memory_info>::call;
    a.malloc_device = Guarded<malloc_device>::call;
    a.free_device = Guarded<free_device>::call;
    a.malloc_host = Guarded<malloc_host>::call;
    a.free_host = Guarded<free_host>::call;
    a.memset_async = Guarded<memset_async>::call;
    a.memcpy_async = Guarded<memcpy_async>::call;
    a.memcpy_peer_async = Guarded<memcpy_peer_async>::call;
    a.stream_create = Guarded<stream_create>::call;
    a.stream_destroy = Guarded<stream_destroy>::call;
    a.stream_synchronize = Guarded<stream_synchronize>::call;
    a.stream_query = Guarded<stream_query>::call;
    a.stream_wait_event = Guarded<stream_wait_event>::call;
    a.stream_native_handle = Guarded<stream_native_handle>::call;
    a.event_create = Guarded<event_create>::call;
    a.event_destroy = Guarded<event_destroy>::call;
    a.event_record = Guarded<event_record>::call;
    a.event_query = Guarded<event_query>::call;
    a.event_synchronize = Guarded<event_synchronize>::call;
    a.event_elapsed_ms = Guarded<event_elapsed_ms>::call;
    a.device_synchronize = Guarded<device_synchronize>::call;
    a.op_supported = Guarded<op_supported>::call;
    a.launch_op = Guarded<launch_op>::call;
    a.collectives = rccl_collectives();  // ABI 1.3: RCCL, loaded at first use
    a.ipc_export = Guarded<ipc_export>::call;
    a.ipc_open = Guarded<ipc_open>::call;
    a.ipc_close = Guarded<ipc_close>::call;
    return a;
  }();
  return &t;
}

}  // namespace hal_amd

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t /*max_abi_version*/) {
  return hal_amd::table();
}
