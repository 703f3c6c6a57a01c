// The OpenCL adapter: any OpenCL device that takes SPIR-V and has shared virtual memory, as hal devices.
//
// Memory is coarse-grained SVM (clSVMAlloc): pointers the core's caching allocator can split and offset, as
// it does device pointers of CUDA. A hal stream is an in-order command queue with profiling (for event
// timing); an event is a marker command on such a queue. Copies with pageable host memory block, as CUDA's
// do; with pinned memory (malloc_host) they are asynchronous in stream order.
//
// Native kernels come from the kernel library's SPIR-V modules (opencl_kernels.h): today the elementwise ops
// on contiguous float32 tensors; every other op runs through the core's counted CPU fallback. Device choice:
// opencl_devices.h.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "opencl_api.h"
#include "opencl_devices.h"
#include "opencl_kernels.h"
#include "abi_boundary.h"
#include "torch_hal/adapter.h"

struct hal_stream_impl {
  int32_t device;
  hal_opencl::cl_command_queue queue;
};
struct hal_event_impl {
  int32_t device;
  bool timing;
  hal_opencl::cl_event marker = nullptr;  // the last record's marker; none before the first record
};

namespace hal_opencl {
namespace {

constexpr size_t kPinnedAlignment = 4096;

// One device: its context, its default queue, the streams made on it, and what is allocated on it.
struct Device {
  DeviceInfo info;
  cl_context context = nullptr;
  cl_command_queue default_queue = nullptr;
  std::unique_ptr<DeviceKernels> kernels;
  std::mutex mutex;  // guards streams and allocations
  std::set<hal_stream_t> streams;
  std::unordered_map<void*, uint64_t> allocations;
  uint64_t allocated_bytes = 0;
};

struct State {
  const OpenClApi* cl = nullptr;
  std::vector<std::unique_ptr<Device>> devices;
  std::mutex pinned_mutex;
  std::unordered_map<void*, uint64_t> pinned;  // malloc_host's allocations and their sizes

  ~State() {
    for (auto& d : devices) {
      for (hal_stream_t s : d->streams) {
        cl->ReleaseCommandQueue(s->queue);
        delete s;
      }
      for (auto& [ptr, size] : d->allocations) cl->SVMFree(d->context, ptr);
      d->kernels.reset();  // its program and kernels belong to the context
      if (d->default_queue) cl->ReleaseCommandQueue(d->default_queue);
      if (d->context) cl->ReleaseContext(d->context);
    }
    for (auto& [ptr, size] : pinned) std::free(ptr);
  }
};

std::mutex g_lifecycle_mutex;
std::unique_ptr<State> g_state;
int g_initializations = 0;

hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, "opencl: " + std::move(message));
}

hal_status_t cl_fail(const char* what, cl_int code) {
  const hal_status_t status = code == CL_OUT_OF_HOST_MEMORY ? HAL_STATUS_OUT_OF_HOST_MEMORY
                              : code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES
                                  ? HAL_STATUS_OUT_OF_DEVICE_MEMORY
                                  : HAL_STATUS_DEVICE_ERROR;
  return fail(status, std::string(what) + " failed: " + cl_error_name(code));
}

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

const OpenClApi& cl() { return *g_state->cl; }
Device& dev(int32_t device) { return *g_state->devices[device]; }
cl_command_queue queue_of(int32_t device, hal_stream_t stream) {
  return stream != nullptr ? stream->queue : dev(device).default_queue;
}

bool is_pinned(const void* p, uint64_t size) {
  std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
  const auto* byte = static_cast<const char*>(p);
  for (const auto& [base, bytes] : g_state->pinned) {
    const auto* b = static_cast<const char*>(base);
    if (byte >= b && byte + size <= b + bytes) return true;
  }
  return false;
}

// Commands start once the queue is flushed; without it an OpenCL runtime may hold them until a wait.
hal_status_t submitted(const char* what, cl_int code, cl_command_queue queue) {
  if (code != CL_SUCCESS) return cl_fail(what, code);
  if (cl_int flushed = cl().Flush(queue); flushed != CL_SUCCESS) return cl_fail("clFlush", flushed);
  return HAL_STATUS_SUCCESS;
}

// An in-order queue with profiling, which event timing reads.
cl_command_queue new_queue(const OpenClApi& api, const Device& d, cl_int* error) {
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  return api.CreateCommandQueueWithProperties(d.context, d.info.id, properties, error);
}

// Waits for every queue of the device: the default one and each stream's.
hal_status_t finish_all(Device& d) {
  std::vector<cl_command_queue> queues{d.default_queue};
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    for (hal_stream_t s : d.streams) queues.push_back(s->queue);
  }
  for (cl_command_queue q : queues) {
    if (cl_int e = cl().Finish(q); e != CL_SUCCESS) return cl_fail("clFinish", e);
  }
  return HAL_STATUS_SUCCESS;
}

// ---- lifecycle ---------------------------------------------------------------------------------

hal_status_t open_devices(State& state, Discovery discovery) {
  for (DeviceInfo& info : discovery.devices) {
    auto d = std::make_unique<Device>();
    d->info = std::move(info);
    cl_int error = CL_SUCCESS;
    d->context = state.cl->CreateContext(nullptr, 1, &d->info.id, nullptr, nullptr, &error);
    if (error != CL_SUCCESS) return cl_fail(("clCreateContext for " + d->info.name).c_str(), error);
    state.devices.push_back(std::move(d));  // released by ~State from here on
    Device& added = *state.devices.back();
    added.default_queue = new_queue(*state.cl, added, &error);
    if (error != CL_SUCCESS) {
      return cl_fail(("clCreateCommandQueueWithProperties for " + added.info.name).c_str(), error);
    }
    added.kernels = std::make_unique<DeviceKernels>(*state.cl, added.context, added.info.id);
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  return guarded("initialize", [&]() -> hal_status_t {
    std::string why;
    const OpenClApi* api = opencl_api(&why);
    if (api == nullptr) return fail(HAL_STATUS_UNAVAILABLE, why);
    Discovery discovery = discover_devices(*api);
    if (!discovery.config_error.empty()) return fail(HAL_STATUS_INVALID_ARGUMENT, discovery.config_error);
    if (discovery.devices.empty()) {
      return fail(HAL_STATUS_UNAVAILABLE, "no OpenCL device to serve: " + discovery.skipped);
    }
    auto state = std::make_unique<State>();
    state->cl = api;
    if (hal_status_t st = open_devices(*state, std::move(discovery))) return st;
    g_state = std::move(state);
    g_initializations = 1;
    return HAL_STATUS_SUCCESS;
  });
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  g_state.reset();
}

const char* get_last_error() { return hal_abi_boundary::thread_error().c_str(); }

// ---- discovery ---------------------------------------------------------------------------------

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  const DeviceInfo& info = dev(device).info;
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  std::snprintf(p.name, sizeof(p.name), "%s (OpenCL, %s)", info.name.c_str(), info.platform_name.c_str());
  // Not the silicon's vendor: the devices of this adapter are told apart from those other adapters serve.
  std::snprintf(p.vendor, sizeof(p.vendor), "opencl");
  const char* kind = (info.type & CL_DEVICE_TYPE_CPU)   ? "cpu"
                     : (info.type & CL_DEVICE_TYPE_GPU) ? "gpu"
                                                        : "accelerator";
  std::snprintf(p.arch_name, sizeof(p.arch_name), "opencl-%s", kind);
  std::snprintf(p.pci_bus_id, sizeof(p.pci_bus_id), "%s", info.pci_bus_id.c_str());
  std::snprintf(p.uuid, sizeof(p.uuid), "%s", info.uuid.c_str());
  p.total_memory_bytes = info.global_memory_bytes;
  p.compute_units = static_cast<int32_t>(info.compute_units);
  p.max_threads_per_block = static_cast<int32_t>(info.max_work_group_size);
  p.shared_memory_per_block_bytes = info.local_memory_bytes;
  p.clock_rate_khz = static_cast<int32_t>(info.clock_mhz * 1000);
  // Coarse-grained SVM: the host may touch it only between map and unmap, so the core copies, never
  // dereferences.
  p.flags = (info.fp16 ? HAL_DEVICE_FLAG_FP16 : 0u) | (info.fp64 ? HAL_DEVICE_FLAG_FP64 : 0u);
  const uint32_t size = props->struct_size < sizeof(p) ? props->struct_size : static_cast<uint32_t>(sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

// OpenCL has no query of free memory: what is not allocated through this adapter counts as free.
hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  Device& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  *total_bytes = d.info.global_memory_bytes;
  *free_bytes = d.allocated_bytes < *total_bytes ? *total_bytes - d.allocated_bytes : 0;
  return HAL_STATUS_SUCCESS;
}

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    Device& d = dev(device);
    void* p = size > 0 ? cl().SVMAlloc(d.context, CL_MEM_READ_WRITE, size, 0) : nullptr;
    if (p == nullptr) {
      return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "clSVMAlloc of " + std::to_string(size) + " bytes on " +
                                                       d.info.name + " failed (" + std::to_string(d.allocated_bytes) +
                                                       " bytes allocated of " +
                                                       std::to_string(d.info.global_memory_bytes) + ")");
    }
    std::lock_guard<std::mutex> lock(d.mutex);
    d.allocations.emplace(p, size);
    d.allocated_bytes += size;
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_device(int32_t device, void* ptr) {
  Device& d = dev(device);
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    auto it = d.allocations.find(ptr);
    if (it == d.allocations.end()) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, "free_device: not an allocation of device " + std::to_string(device));
    }
    d.allocated_bytes -= it->second;
    d.allocations.erase(it);
  }
  // clSVMFree does not wait for the commands that use the memory: wait for every queue of the device first
  // (the core frees device memory rarely: empty_cache, or to retry an allocation).
  if (hal_status_t st = finish_all(d)) return st;
  cl().SVMFree(d.context, ptr);
  return HAL_STATUS_SUCCESS;
}

hal_status_t malloc_host(uint64_t size, void** ptr) {
  return guarded("malloc_host", [&]() -> hal_status_t {
    const uint64_t bytes = (size + kPinnedAlignment - 1) / kPinnedAlignment * kPinnedAlignment;
    void* p = bytes >= size ? std::aligned_alloc(kPinnedAlignment, bytes ? bytes : kPinnedAlignment) : nullptr;
    if (p == nullptr) {
      return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes left");
    }
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    g_state->pinned.emplace(p, size);
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_host(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    if (g_state->pinned.erase(ptr) == 0) return fail(HAL_STATUS_INVALID_ARGUMENT, "free_host: not from malloc_host");
  }
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- commands ----------------------------------------------------------------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  const unsigned char pattern = static_cast<unsigned char>(value);  // copied by the call
  cl_command_queue q = queue_of(device, stream);
  return submitted("clEnqueueSVMMemFill", cl().EnqueueSVMMemFill(q, ptr, &pattern, 1, size, 0, nullptr, nullptr), q);
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  // Pageable host memory may be reused as soon as the call returns, so such a copy completes before it does.
  const bool blocking = (kind == HAL_COPY_HOST_TO_DEVICE && !is_pinned(src, size)) ||
                        (kind == HAL_COPY_DEVICE_TO_HOST && !is_pinned(dst, size));
  cl_command_queue q = queue_of(device, stream);
  const cl_int code = cl().EnqueueSVMMemcpy(q, blocking ? 1 : 0, dst, src, size, 0, nullptr, nullptr);
  return submitted("clEnqueueSVMMemcpy", code, q);
}

// Each device has a context of its own, so SVM pointers of one mean nothing to another: the core stages
// such copies through host memory.
hal_status_t memcpy_peer_async(int32_t, void*, int32_t, const void*, uint64_t, hal_stream_t) {
  return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: devices do not share memory");
}

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    Device& d = dev(device);
    cl_int error = CL_SUCCESS;
    cl_command_queue q = new_queue(cl(), d, &error);
    if (error != CL_SUCCESS) return cl_fail("clCreateCommandQueueWithProperties", error);
    auto* s = new hal_stream_impl{device, q};
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.insert(s);
    *stream = s;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (stream == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  }
  Device& d = dev(device);
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.erase(stream);
  }
  cl().ReleaseCommandQueue(stream->queue);  // its commands still complete (OpenCL keeps the queue until then)
  delete stream;
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  if (cl_int e = cl().Finish(queue_of(device, stream)); e != CL_SUCCESS) return cl_fail("clFinish", e);
  return HAL_STATUS_SUCCESS;
}

cl_int execution_status(cl_event e, cl_int* status) {
  return cl().GetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(*status), status, nullptr);
}

hal_status_t status_of(cl_event e, const char* what) {
  cl_int status = CL_COMPLETE;
  if (cl_int error = execution_status(e, &status); error != CL_SUCCESS) return cl_fail(what, error);
  if (status < 0) return cl_fail(what, status);  // a command of the queue failed
  return status == CL_COMPLETE ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  cl_command_queue q = queue_of(device, stream);
  cl_event marker = nullptr;
  if (cl_int e = cl().EnqueueMarkerWithWaitList(q, 0, nullptr, &marker); e != CL_SUCCESS) {
    return cl_fail("clEnqueueMarkerWithWaitList", e);
  }
  cl().Flush(q);
  const hal_status_t st = status_of(marker, "stream_query");
  cl().ReleaseEvent(marker);
  return st;
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  if (event->marker == nullptr) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
  if (event->device != device) {
    // Another device's context: its events cannot enter this queue's wait list, so the host waits.
    if (cl_int e = cl().WaitForEvents(1, &event->marker); e != CL_SUCCESS) return cl_fail("clWaitForEvents", e);
    return HAL_STATUS_SUCCESS;
  }
  cl_command_queue q = queue_of(device, stream);
  return submitted("clEnqueueBarrierWithWaitList", cl().EnqueueBarrierWithWaitList(q, 1, &event->marker, nullptr), q);
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    *event = new hal_event_impl{device, (flags & HAL_EVENT_FLAG_TIMING) != 0};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  if (event->marker != nullptr) cl().ReleaseEvent(event->marker);
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  cl_command_queue q = queue_of(device, stream);
  cl_event marker = nullptr;
  const cl_int code = cl().EnqueueMarkerWithWaitList(q, 0, nullptr, &marker);
  if (hal_status_t st = submitted("clEnqueueMarkerWithWaitList", code, q)) {
    return st;
  }
  if (event->marker != nullptr) cl().ReleaseEvent(event->marker);
  event->marker = marker;
  event->device = device;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return event->marker == nullptr ? HAL_STATUS_SUCCESS : status_of(event->marker, "event_query");
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  if (event->marker == nullptr) return HAL_STATUS_SUCCESS;
  if (cl_int e = cl().WaitForEvents(1, &event->marker); e != CL_SUCCESS) return cl_fail("clWaitForEvents", e);
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (start->marker == nullptr || end->marker == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  for (hal_event_t e : {start, end}) {
    if (hal_status_t st = status_of(e->marker, "event_elapsed_ms")) {
      return st == HAL_STATUS_NOT_READY ? fail(st, "event_elapsed_ms: an event has not completed yet") : st;
    }
  }
  cl_ulong t0 = 0, t1 = 0;
  cl_int e0 = cl().GetEventProfilingInfo(start->marker, CL_PROFILING_COMMAND_END, sizeof(t0), &t0, nullptr);
  cl_int e1 = cl().GetEventProfilingInfo(end->marker, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr);
  if (e0 != CL_SUCCESS || e1 != CL_SUCCESS) return cl_fail("clGetEventProfilingInfo", e0 != CL_SUCCESS ? e0 : e1);
  *ms = static_cast<float>((static_cast<double>(t1) - static_cast<double>(t0)) / 1e6);
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) { return finish_all(dev(device)); }

// ---- native kernels ----------------------------------------------------------------------------

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  return guarded("launch_op", [&]() -> hal_status_t {
    std::string error;
    const hal_status_t st = dev(device).kernels->launch(queue_of(device, stream), op, inputs, num_inputs, outputs,
                                                        num_outputs, scalars, num_scalars, &error);
    return st == HAL_STATUS_SUCCESS || error.empty() ? st : fail(st, error);
  });
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "opencl";
    a.description = "OpenCL devices that take SPIR-V (OpenCL 2.0+ with shared virtual memory)";
    a.initialize = initialize;
    a.shutdown = shutdown;
    a.get_last_error = get_last_error;
    a.device_count = device_count;
    a.get_device_properties = get_device_properties;
    a.get_memory_info = get_memory_info;
    a.malloc_device = malloc_device;
    a.free_device = free_device;
    a.malloc_host = malloc_host;
    a.free_host = free_host;
    a.memset_async = memset_async;
    a.memcpy_async = memcpy_async;
    a.memcpy_peer_async = memcpy_peer_async;
    a.stream_create = stream_create;
    a.stream_destroy = stream_destroy;
    a.stream_synchronize = stream_synchronize;
    a.stream_query = stream_query;
    a.stream_wait_event = stream_wait_event;
    a.event_create = event_create;
    a.event_destroy = event_destroy;
    a.event_record = event_record;
    a.event_query = event_query;
    a.event_synchronize = event_synchronize;
    a.event_elapsed_ms = event_elapsed_ms;
    a.device_synchronize = device_synchronize;
    a.op_supported = hal_spirv::op_supported;
    a.launch_op = launch_op;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace hal_opencl

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  (void)max_abi_version;  // returned to any core: its abi_version lets a core of another major refuse by name
  return hal_opencl::table();
}
