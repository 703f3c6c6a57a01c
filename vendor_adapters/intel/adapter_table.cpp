// The Intel adapter: Intel GPUs through Level Zero, the runtime loaded with dlopen (level_zero_api.h).
//
// Devices are every Level Zero GPU (level_zero_devices.h), with one context per driver, so that devices of
// one driver can copy to each other and wait for each other's events. Memory is device memory
// (zeMemAllocDevice); pinned host memory is zeMemAllocHost's. A hal stream is an immediate command list
// (level_zero_stream.h); a hal event is a Level Zero event that a barrier, or a global timestamp write for
// timing events, signals (level_zero_events.h). Copies with pageable host memory block, as CUDA's do, and go
// through a staging buffer of host memory the device can reach; with pinned memory they are asynchronous in
// stream order.
//
// Native kernels are the shared SPIR-V modules and launch plans (level_zero_kernels.h); every other op runs
// through the core's counted CPU fallback.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "level_zero_api.h"
#include "level_zero_devices.h"
#include "level_zero_events.h"
#include "level_zero_handles.h"
#include "level_zero_kernels.h"
#include "level_zero_stream.h"
#include "abi_boundary.h"
#include "torch_hal/adapter.h"

struct hal_stream_impl {
  hal_stream_impl(int32_t d, const hal_level_zero::LevelZeroApi& ze, std::shared_ptr<hal_level_zero::EventCache> e)
      : device(d), stream(ze, std::move(e)) {}
  int32_t device;
  hal_level_zero::Stream stream;
};
struct hal_event_impl {
  int32_t device;
  bool timing;
  std::mutex mutex;
  std::shared_ptr<hal_level_zero::Signal> recorded;  // the last record's; none before the first record
};

namespace hal_level_zero {
namespace {

constexpr size_t kDeviceAlignment = 256;           // what CUDA guarantees, and the core's blocks assume
constexpr size_t kHostAlignment = 4096;
constexpr uint64_t kStagingBytes = 4u << 20;       // pageable copies go through this much at a time

// One context per driver: its devices share memory addresses and events.
struct DriverContext {
  Context context;
  std::shared_ptr<EventCache> events;
};

struct Device {
  // Declared first, destroyed last: every handle below belongs to the context.
  std::shared_ptr<DriverContext> driver;
  DeviceInfo info;
  Memory staging;  // made at the first pageable copy
  std::mutex staging_mutex;
  std::unique_ptr<Stream> default_stream;
  std::unique_ptr<DeviceKernels> kernels;
  std::mutex mutex;  // guards streams and allocations
  std::set<hal_stream_t> streams;
  std::unordered_map<void*, uint64_t> allocations;
  uint64_t allocated_bytes = 0;

  ze_context_handle_t context() const { return driver->context.get(); }
};

struct Pinned {
  uint64_t size;
  ze_context_handle_t context;
};

struct State {
  const LevelZeroApi* ze = nullptr;
  std::vector<std::unique_ptr<Device>> devices;
  std::mutex pinned_mutex;
  std::map<void*, Pinned> pinned;  // malloc_host's allocations

  ~State() {
    std::string ignored;
    for (auto& d : devices) {
      // Nothing may still use a command list, memory or event that goes below.
      if (d->default_stream) d->default_stream->synchronize(&ignored);
      for (hal_stream_t s : d->streams) {
        s->stream.synchronize(&ignored);
        delete s;
      }
      d->streams.clear();
      for (auto& [ptr, size] : d->allocations) ze->zeMemFree(d->context(), ptr);
    }
    for (auto& [ptr, p] : pinned) ze->zeMemFree(p.context, ptr);
  }
};

std::mutex g_lifecycle_mutex;
// Between the first initialize() and the last shutdown(); never destroyed at exit. The driver was loaded after
// this library, so its static objects are destroyed before this library's: a destructor calling into it then
// (the null driver showed it) corrupts the heap. The end of the process frees everything anyway.
State* g_state = nullptr;
int g_initializations = 0;

hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, "intel: " + std::move(message));
}

// Passes SUCCESS and NOT_READY through; anything else keeps `error` as the thread's message.
hal_status_t reported(hal_status_t status, const std::string& error) {
  if (status == HAL_STATUS_SUCCESS || status == HAL_STATUS_NOT_READY) return status;
  return fail(status, error);
}

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

const LevelZeroApi& ze() { return *g_state->ze; }
Device& dev(int32_t device) { return *g_state->devices[device]; }
Stream& stream_of(int32_t device, hal_stream_t stream) {
  return stream != nullptr ? stream->stream : *dev(device).default_stream;
}

// Pinned memory of this context (other contexts' host memory is not theirs to read).
bool is_pinned(const void* p, uint64_t size, ze_context_handle_t context) {
  std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
  const auto* byte = static_cast<const char*>(p);
  auto it = g_state->pinned.upper_bound(const_cast<void*>(p));
  if (it == g_state->pinned.begin()) return false;
  --it;
  const auto* base = static_cast<const char*>(it->first);
  return it->second.context == context && byte + size <= base + it->second.size;
}

// Waits for every stream of the device: the default one and each created one.
hal_status_t synchronize_all(Device& d) {
  std::vector<Stream*> streams{d.default_stream.get()};
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    for (hal_stream_t s : d.streams) streams.push_back(&s->stream);
  }
  std::string error;
  for (Stream* s : streams) {
    if (hal_status_t st = s->synchronize(&error)) return fail(st, error);
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t append_copy(Stream& s, void* dst, const void* src, uint64_t size) {
  std::string error;
  return reported(s.append("zeCommandListAppendMemoryCopy",
                           [&](ze_command_list_handle_t list) {
                             return ze().zeCommandListAppendMemoryCopy(list, dst, src, size, nullptr, 0, nullptr);
                           },
                           &error),
                  error);
}

// ---- lifecycle ---------------------------------------------------------------------------------

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

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  return guarded("initialize", [&]() -> hal_status_t {
    std::string why;
    const LevelZeroApi* api = level_zero_api(&why);
    if (api == nullptr) return fail(HAL_STATUS_UNAVAILABLE, why);
    Discovery discovery = discover_devices(*api);
    if (discovery.devices.empty()) return fail(HAL_STATUS_UNAVAILABLE, discovery.why_none);
    auto state = std::make_unique<State>();
    state->ze = api;
    if (hal_status_t st = open_devices(*state, std::move(discovery))) return st;
    g_state = state.release();
    g_initializations = 1;
    return HAL_STATUS_SUCCESS;
  });
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  delete g_state;
  g_state = nullptr;
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
  std::snprintf(p.name, sizeof(p.name), "%s", info.name.c_str());
  // Another vendor's GPU behind a Level Zero driver is not counted as Intel's.
  std::snprintf(p.vendor, sizeof(p.vendor), "%s", is_intel(info) ? "intel" : "level_zero");
  // The PCI ids name the GPU's architecture (the IP-version query is newer than API 1.4).
  std::snprintf(p.arch_name, sizeof(p.arch_name), "pci %04x:%04x", info.vendor_id, info.device_id);
  std::snprintf(p.pci_bus_id, sizeof(p.pci_bus_id), "%s", info.pci_bus_id.c_str());
  std::snprintf(p.uuid, sizeof(p.uuid), "%s", info.uuid.c_str());
  p.total_memory_bytes = info.memory_bytes;
  p.compute_units = static_cast<int32_t>(info.eu_count);
  p.max_threads_per_block = static_cast<int32_t>(info.max_group_size);
  p.shared_memory_per_block_bytes = info.shared_local_memory_bytes;
  p.clock_rate_khz = static_cast<int32_t>(info.clock_mhz * 1000);
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
  const uint32_t size = props->struct_size < sizeof(p) ? props->struct_size : static_cast<uint32_t>(sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

// Free device memory needs Sysman (zesMemoryGetState, enabled only by ZES_ENABLE_SYSMAN=1 before zeInit): what
// is not allocated through this adapter counts as free.
hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  Device& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  *total_bytes = d.info.memory_bytes;
  *free_bytes = d.allocated_bytes < *total_bytes ? *total_bytes - d.allocated_bytes : 0;
  return HAL_STATUS_SUCCESS;
}

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    Device& d = dev(device);
    if (size == 0) {
      *ptr = nullptr;
      return HAL_STATUS_SUCCESS;
    }
    ze_device_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    ze_relaxed_allocation_limits_exp_desc_t relaxed{};
    relaxed.stype = ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC;
    relaxed.flags = ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE;
    if (size > d.info.max_alloc_bytes && d.info.relaxed_allocation_limits) desc.pNext = &relaxed;
    void* p = nullptr;
    const ze_result_t r = ze().zeMemAllocDevice(d.context(), &desc, size, kDeviceAlignment, d.info.device, &p);
    if (r != ZE_RESULT_SUCCESS) {
      std::string error;
      const hal_status_t st = failed("zeMemAllocDevice", r, &error);
      return fail(st, error + " for " + std::to_string(size) + " bytes on " + d.info.name + " (" +
                          std::to_string(d.allocated_bytes) + " bytes allocated of " +
                          std::to_string(d.info.memory_bytes) + "; one allocation may have at most " +
                          std::to_string(d.info.max_alloc_bytes) + ")");
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
  // zeMemFree does not wait for the commands that use the memory: wait for every stream of the device first
  // (the core frees device memory rarely: empty_cache, or to retry an allocation).
  if (hal_status_t st = synchronize_all(d)) return st;
  std::string error;
  if (ze_result_t r = ze().zeMemFree(d.context(), ptr); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeMemFree", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

// Host memory of the first device's context, which its driver's devices read directly.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  return guarded("malloc_host", [&]() -> hal_status_t {
    ze_context_handle_t context = dev(0).context();
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void* p = nullptr;
    if (ze_result_t r = ze().zeMemAllocHost(context, &desc, size ? size : 1, kHostAlignment, &p);
        r != ZE_RESULT_SUCCESS) {
      std::string error;
      failed("zeMemAllocHost", r, &error);
      return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, error + " for " + std::to_string(size) + " bytes");
    }
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    g_state->pinned.emplace(p, Pinned{size, context});
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_host(void* ptr) {
  Pinned p{};
  {
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    auto it = g_state->pinned.find(ptr);
    if (it == g_state->pinned.end()) return fail(HAL_STATUS_INVALID_ARGUMENT, "free_host: not from malloc_host");
    p = it->second;
    g_state->pinned.erase(it);
  }
  std::string error;
  if (ze_result_t r = ze().zeMemFree(p.context, ptr); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeMemFree (host)", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

// ---- commands ----------------------------------------------------------------------------------

// Fill patterns by value: the pattern's memory stays valid however late the driver reads it.
const unsigned char* byte_pattern(int32_t value) {
  static const auto table = [] {
    std::vector<unsigned char> t(256);
    for (int i = 0; i < 256; ++i) t[i] = static_cast<unsigned char>(i);
    return t;
  }();
  return &table[static_cast<unsigned char>(value)];
}

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  const unsigned char* pattern = byte_pattern(value);
  std::string error;
  return reported(stream_of(device, stream).append(
                      "zeCommandListAppendMemoryFill",
                      [&](ze_command_list_handle_t list) {
                        return ze().zeCommandListAppendMemoryFill(list, ptr, pattern, 1, size, nullptr, 0, nullptr);
                      },
                      &error),
                  error);
}

// Pageable host memory is not the device's to read (only host allocations of its context are), and may be
// reused once the call returns: it goes through the device's staging buffer, a chunk at a time, each waited
// for. The core sends large pageable copies through its own ring of pinned buffers, so this path is rare.
hal_status_t staged_copy(Device& d, Stream& s, void* dst, const void* src, uint64_t size, bool to_device) {
  std::lock_guard<std::mutex> lock(d.staging_mutex);
  if (d.staging.get() == nullptr) {
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void* p = nullptr;
    if (ze_result_t r = ze().zeMemAllocHost(d.context(), &desc, kStagingBytes, kHostAlignment, &p);
        r != ZE_RESULT_SUCCESS) {
      std::string error;
      return fail(failed("zeMemAllocHost (staging buffer)", r, &error), error);
    }
    d.staging = Memory(d.context(), p, ze().zeMemFree);
  }
  auto* staging = static_cast<char*>(d.staging.get());
  std::string error;
  for (uint64_t done = 0; done < size;) {
    const uint64_t n = std::min(kStagingBytes, size - done);
    if (to_device) std::memcpy(staging, static_cast<const char*>(src) + done, n);
    void* to = to_device ? static_cast<char*>(dst) + done : staging;
    const void* from = to_device ? static_cast<const void*>(staging) : static_cast<const char*>(src) + done;
    if (hal_status_t st = append_copy(s, to, from, n)) return st;
    if (hal_status_t st = s.synchronize(&error)) return fail(st, error);
    if (!to_device) std::memcpy(static_cast<char*>(dst) + done, staging, n);
    done += n;
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  return guarded("memcpy_async", [&]() -> hal_status_t {
    Device& d = dev(device);
    Stream& s = stream_of(device, stream);
    if (kind == HAL_COPY_HOST_TO_DEVICE && !is_pinned(src, size, d.context())) {
      return staged_copy(d, s, dst, src, size, true);
    }
    if (kind == HAL_COPY_DEVICE_TO_HOST && !is_pinned(dst, size, d.context())) {
      return staged_copy(d, s, dst, src, size, false);
    }
    return append_copy(s, dst, src, size);
  });
}

// Devices of one driver share a context, so one can copy from the other where the driver says it can reach
// its memory. Otherwise the core stages the copy through host memory.
hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream) {
  Device& to = dev(dst_device);
  Device& from = dev(src_device);
  if (to.context() != from.context()) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: the devices belong to different Level Zero drivers");
  }
  ze_bool_t reachable = false;
  if (ze().zeDeviceCanAccessPeer(to.info.device, from.info.device, &reachable) != ZE_RESULT_SUCCESS || !reachable) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: " + to.info.name + " cannot reach the memory of " +
                                              from.info.name);
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  return append_copy(stream_of(dst_device, stream), dst, src, size);
}

hal_status_t stream_create(int32_t device, int32_t priority, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    Device& d = dev(device);
    auto s = std::make_unique<hal_stream_impl>(device, ze(), d.driver->events);
    std::string error;
    if (hal_status_t st = s->stream.open(d.context(), d.info.device, d.info.compute_ordinal, priority, &error)) {
      return fail(st, error);
    }
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.insert(s.get());
    *stream = s.release();
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
  // A command list must not be destroyed while the device still runs its commands.
  std::string error;
  const hal_status_t st = stream->stream.synchronize(&error);
  delete stream;
  return reported(st, error);
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  std::string error;
  return reported(stream_of(device, stream).synchronize(&error), error);
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  std::string error;
  return reported(stream_of(device, stream).query(&error), error);
}

// The event's last record and the device it was recorded on, read together.
std::shared_ptr<Signal> recorded_of(hal_event_t event, int32_t* device = nullptr) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (device != nullptr) *device = event->device;
  return event->recorded;
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  return guarded("stream_wait_event", [&]() -> hal_status_t {
    int32_t recorded_on = device;
    std::shared_ptr<Signal> signal = recorded_of(event, &recorded_on);
    if (signal == nullptr) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
    std::string error;
    if (dev(recorded_on).context() != dev(device).context()) {
      // Another driver's event cannot be waited for on this device: the host waits.
      if (ze_result_t r = ze().zeEventHostSynchronize(signal->event, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
        return fail(failed("zeEventHostSynchronize", r, &error), error);
      }
      return HAL_STATUS_SUCCESS;
    }
    return reported(stream_of(device, stream).wait(std::move(signal), &error), error);
  });
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    auto* e = new hal_event_impl;
    e->device = device;
    e->timing = (flags & HAL_EVENT_FLAG_TIMING) != 0;
    *event = e;
    return HAL_STATUS_SUCCESS;
  });
}

// Its Level Zero event goes back to the cache once its command signaled it, and once no stream's queued wait
// names it.
hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  return guarded("event_record", [&]() -> hal_status_t {
    std::string error;
    std::shared_ptr<Signal> signal = dev(device).driver->events->acquire(&error);
    if (signal == nullptr) return fail(HAL_STATUS_DEVICE_ERROR, error);
    if (hal_status_t st = stream_of(device, stream).record(signal, event->timing, &error)) return fail(st, error);
    std::lock_guard<std::mutex> lock(event->mutex);
    event->recorded = std::move(signal);
    event->device = device;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  std::shared_ptr<Signal> signal = recorded_of(event);
  if (signal == nullptr) return HAL_STATUS_SUCCESS;
  const ze_result_t r = ze().zeEventQueryStatus(signal->event);
  if (r == ZE_RESULT_NOT_READY) return HAL_STATUS_NOT_READY;
  std::string error;
  return r == ZE_RESULT_SUCCESS ? HAL_STATUS_SUCCESS : fail(failed("zeEventQueryStatus", r, &error), error);
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  std::shared_ptr<Signal> signal = recorded_of(event);
  if (signal == nullptr) return HAL_STATUS_SUCCESS;
  std::string error;
  if (ze_result_t r = ze().zeEventHostSynchronize(signal->event, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeEventHostSynchronize", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  int32_t first_device = -1, last_device = -1;
  std::shared_ptr<Signal> first = recorded_of(start, &first_device), last = recorded_of(end, &last_device);
  if (first == nullptr || last == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  if (first_device != last_device) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: the events were recorded on different devices, "
                                             "whose clocks are not comparable");
  }
  for (const auto& s : {first, last}) {
    const ze_result_t r = ze().zeEventQueryStatus(s->event);
    if (r == ZE_RESULT_NOT_READY) return fail(HAL_STATUS_NOT_READY, "event_elapsed_ms: an event has not completed yet");
    std::string error;
    if (r != ZE_RESULT_SUCCESS) return fail(failed("zeEventQueryStatus", r, &error), error);
  }
  const DeviceInfo& info = dev(first_device).info;
  if (info.timer_resolution_ns == 0) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "event_elapsed_ms: " + info.name + " reports no timer resolution");
  }
  // The counter wraps at timestampValidBits: the difference is taken modulo that.
  const uint64_t mask = info.timestamp_valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << info.timestamp_valid_bits) - 1;
  const uint64_t ticks = (*last->timestamp - *first->timestamp) & mask;
  *ms = static_cast<float>(static_cast<double>(ticks) * static_cast<double>(info.timer_resolution_ns) / 1e6);
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) { return synchronize_all(dev(device)); }

hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle) {
  *handle = stream_of(device, stream).list();  // a ze_command_list_handle_t (immediate)
  return HAL_STATUS_SUCCESS;
}

// ---- native kernels ----------------------------------------------------------------------------

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t stream, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  return guarded("launch_op", [&]() -> hal_status_t {
    std::string error;
    const hal_status_t st = dev(device).kernels->launch(stream_of(device, stream), op, inputs, num_inputs, outputs,
                                                        num_outputs, scalars, num_scalars, &error);
    return st == HAL_STATUS_SUCCESS || error.empty() ? st : fail(st, error);
  });
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "intel";
    a.description = "Intel GPUs through Level Zero (libze_loader.so.1), kernels from SPIR-V";
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
    a.stream_native_handle = stream_native_handle;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace hal_level_zero

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  (void)max_abi_version;  // returned to any core: its abi_version lets a core of another major refuse by name
  return hal_level_zero::table();
}
