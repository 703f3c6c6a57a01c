// The host reference adapter: a simulated accelerator whose "device memory" is 64-byte-aligned heap
// memory with a capacity limit, and whose streams are worker threads. It is what every adapter looks
// like: one exported entry point returning a function table, status codes, a per-thread error message,
// and no dependency beyond include/torch_hal/adapter.h. The core validates arguments before calling
// in, so the functions below only check what the core cannot know (capacity, handle contents).
//
// Environment:
//   TORCH_HAL_HOST_DEVICES  number of simulated devices (default 1)
//   TORCH_HAL_HOST_MEMORY   capacity of each device: bytes, or with a K/M/G/T suffix such as "8G"
//                           (default: half of the physical memory)
//   TORCH_HAL_HOST_ACCESSIBLE  "0" reports the memory as not host-accessible, so the glue treats this
//                           device as it treats a discrete GPU (copies, the counted CPU fallback): the way to
//                           test that path on a machine without one. Default "1".
// Unset or empty means the default; any other value that does not parse strictly makes initialize() fail
// with a message naming the variable and what it accepts (torch_hal.adapters() shows it as the reason).
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <new>
#include <memory>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "shared_memory.h"
#include "abi_boundary.h"
#include "torch_hal/adapter.h"
#include "work_queue.h"

// The opaque handles of adapter.h, defined here. A NULL stream is the device's default stream.
// The queue is shared: device_synchronize() holds a reference while it waits, so that a stream destroyed
// meanwhile on another thread is not freed under it.
struct hal_stream_impl {
  std::shared_ptr<host_adapter::WorkQueue> queue = std::make_shared<host_adapter::WorkQueue>();
};
struct hal_event_impl {
  std::shared_ptr<host_adapter::EventState> state;
};

namespace host_adapter {
namespace {

constexpr size_t kAlignment = 64;

struct HostDevice {
  uint64_t capacity = 0;
  std::mutex mutex;                                    // guards used, allocations, imported, streams
  uint64_t used = 0;
  struct Allocation {
    uint64_t charged;                // against the capacity
    std::unique_ptr<Region> region;
  };
  std::unordered_map<void*, Allocation> allocations;
  std::map<void*, std::unique_ptr<Region>> imported;   // other processes' memory (ipc_open): not charged
  std::set<hal_stream_impl*> streams;                  // created streams, for device_synchronize
  hal_stream_impl default_stream;
};

struct AdapterState {
  bool host_accessible = true;
  std::string cpu_model;
  std::string arch;
  // Streams and their worker threads go first at shutdown (they may still touch device memory).
  std::vector<std::unique_ptr<HostDevice>> devices;

  ~AdapterState() {
    for (auto& d : devices) {
      for (hal_stream_impl* s : d->streams) delete s;  // joins its worker
      d->streams.clear();
    }
    for (auto& d : devices) {
      d->default_stream.queue->synchronize();
      d->allocations.clear();
      d->imported.clear();
    }
  }
};

std::mutex g_lifecycle_mutex;
AdapterState* g_state = nullptr;  // between the first initialize() and the last shutdown()
int g_initializations = 0;         // initialize()/shutdown() pairs may nest (one library, several users)

hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, std::move(message));
}

HostDevice& dev(int32_t device) { return *g_state->devices[device]; }

WorkQueue& queue_of(int32_t device, hal_stream_t stream) {
  return stream ? *stream->queue : *dev(device).default_stream.queue;
}

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

// Bytes charged for a request of `size`, rounded up to the alignment; false when that overflows or
// exceeds what any object may span (PTRDIFF_MAX): such a request is out of memory, never a wrapped size.
bool aligned_size(uint64_t size, uint64_t* out) {
  const uint64_t n = std::max<uint64_t>(size, 1);
  if (n > static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()) - (kAlignment - 1)) return false;
  *out = (n + kAlignment - 1) / kAlignment * kAlignment;
  return true;
}

// A setting of this adapter: nullptr when unset or empty (empty means the default, as for the core's
// variables in csrc/hal/environment.h).
const char* setting(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// Whether `text` is a non-empty run of decimal digits and nothing else.
bool all_digits(const char* text) {
  if (!*text) return false;
  for (const char* p = text; *p; ++p) {
    if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
  }
  return true;
}

// A device count: plain digits, at most `max`. strtol alone would take " 3", "+3" and "3 " (and atoi
// "3abc"), so that a typo would silently mean something.
bool parse_count(const char* text, long max, long* out) {
  if (!all_digits(text) || std::strlen(text) > 9) return false;
  *out = std::strtol(text, nullptr, 10);
  return *out <= max;
}

// "8G", "512M", "1.5T", "8GiB", "64KB", "1073741824": digits with an optional fraction, then an optional
// K/M/G/T (binary multiples, optionally followed by "i"), then an optional "B". Nothing else: no sign,
// space, exponent, hexadecimal or trailing text, which strtod alone would take (" 8G", "0x10", "1e3").
bool parse_bytes(const char* text, uint64_t* out) {
  const char* p = text;
  const auto skip_digits = [&p] {
    const char* start = p;
    while (std::isdigit(static_cast<unsigned char>(*p))) ++p;
    return p > start;
  };
  if (!skip_digits()) return false;
  if (*p == '.' && (++p, !skip_digits())) return false;
  const std::string number(text, p);
  double scale = 1;
  switch (std::toupper(static_cast<unsigned char>(*p))) {
    case 'K': scale = 1024.0; break;
    case 'M': scale = 1024.0 * 1024; break;
    case 'G': scale = 1024.0 * 1024 * 1024; break;
    case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: scale = 0; break;
  }
  if (scale != 0) {
    ++p;
    if (*p == 'i' || *p == 'I') ++p;
  } else {
    scale = 1;
  }
  if (*p == 'B' || *p == 'b') ++p;
  if (*p != '\0') return false;
  const double bytes = std::round(std::strtod(number.c_str(), nullptr) * scale);
  // "99999999999999999999999G": not representable (the cast of it would be undefined), so not a size.
  if (!std::isfinite(bytes) || bytes >= 18446744073709551616.0 /* 2^64 */) return false;
  *out = static_cast<uint64_t>(bytes);
  return *out > 0;
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    // x86 says "model name", some ARM kernels "Model" or "Hardware".
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0 || line.rfind("Hardware", 0) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      if (!v.empty()) return v;
    }
  }
  return "";
}

void copy_string(char* dst, size_t capacity, const std::string& src) {
  std::snprintf(dst, capacity, "%s", src.c_str());
}

// ---- lifecycle --------------------------------------------------------------------------------

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }

  long count = 1;
  if (const char* env = setting("TORCH_HAL_HOST_DEVICES")) {
    // 127: the core numbers at most that many devices in a process (hal::DeviceRegistry::kMaxDevices,
    // bounded by PyTorch's 8-bit device index).
    if (!parse_count(env, 127, &count)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("TORCH_HAL_HOST_DEVICES='") + env +
                      "' is not a device count: use a whole number between 0 and 127 (plain digits), or unset it "
                      "for 1");
    }
  }
  uint64_t capacity = 0;
  if (const char* env = setting("TORCH_HAL_HOST_MEMORY")) {
    if (!parse_bytes(env, &capacity)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, std::string("TORCH_HAL_HOST_MEMORY='") + env +
                                                   "' is not a size: use a positive number of bytes, optionally with a K/M/G/T "
                                                   "suffix, e.g. 8G or 512M, or unset it for half the RAM");
    }
  } else {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    capacity = (pages > 0 && page_size > 0) ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2
                                            : uint64_t{4} << 30;
  }

  auto state = std::make_unique<AdapterState>();
  if (const char* env = setting("TORCH_HAL_HOST_ACCESSIBLE")) {
    if (std::strcmp(env, "0") != 0 && std::strcmp(env, "1") != 0) {
      return fail(HAL_STATUS_INVALID_ARGUMENT, std::string("TORCH_HAL_HOST_ACCESSIBLE='") + env +
                                                   "' must be 0 or 1 (or unset, which is 1)");
    }
    state->host_accessible = std::strcmp(env, "1") == 0;
  }
  struct utsname uts {};
  state->arch = uname(&uts) == 0 ? uts.machine : "unknown";
  state->cpu_model = cpu_model_name();
  if (state->cpu_model.empty()) state->cpu_model = state->arch;
  for (long i = 0; i < count; ++i) {
    state->devices.push_back(std::make_unique<HostDevice>());
    state->devices.back()->capacity = capacity;
  }
  g_state = state.release();
  g_initializations = 1;
  return HAL_STATUS_SUCCESS;
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  delete g_state;  // joins every worker, frees what is still allocated
  g_state = nullptr;
}

const char* get_last_error() { return hal_abi_boundary::thread_error().c_str(); }

// ---- discovery --------------------------------------------------------------------------------

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  // Fill no more than the caller's struct holds: a core built against an older minor may pass less.
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  copy_string(p.name, sizeof(p.name), "Host reference device (" + g_state->cpu_model + ")");
  copy_string(p.vendor, sizeof(p.vendor), "host");
  copy_string(p.arch_name, sizeof(p.arch_name), g_state->arch);
  // Stable per index, recognisable ("686f7374" is "host" in hex).
  std::snprintf(p.uuid, sizeof(p.uuid), "686f7374-0000-4000-8000-%012d", static_cast<int>(device));
  p.total_memory_bytes = dev(device).capacity;
  p.compute_units = static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
  p.max_threads_per_block = 1024;
  p.shared_memory_per_block_bytes = 48 * 1024;
  p.flags = HAL_DEVICE_FLAG_FP16 | HAL_DEVICE_FLAG_BF16 | HAL_DEVICE_FLAG_FP64;
  if (g_state->host_accessible) p.flags |= HAL_DEVICE_FLAG_HOST_ACCESSIBLE;
  // Peak throughput and bandwidth stay 0 (unknown): they are measured elsewhere, not guessed here.
  const uint32_t size = std::min<uint32_t>(props->struct_size, sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  *free_bytes = d.capacity - d.used;
  *total_bytes = d.capacity;
  return HAL_STATUS_SUCCESS;
}

// ---- memory -----------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  HostDevice& d = dev(device);
  uint64_t charged = 0;
  const bool representable = aligned_size(size, &charged);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!representable || charged > d.capacity - d.used) {
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY,
                "host device " + std::to_string(device) + ": cannot allocate " + std::to_string(size) + " bytes: " +
                    std::to_string(d.used) + " of its capacity of " + std::to_string(d.capacity) +
                    " bytes are in use (the capacity is set by TORCH_HAL_HOST_MEMORY, e.g. TORCH_HAL_HOST_MEMORY=8G)");
  }
  // Page-aligned, so beyond the ABI's alignment; shareable with other processes (shared_memory.h).
  std::unique_ptr<Region> region = Region::allocate(charged);
  if (!region) {
    // The simulated device memory is the machine's RAM, so RAM running out is this device's OOM.
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "host device " + std::to_string(device) + ": the system has no " +
                                                     std::to_string(size) + " bytes of RAM left for device memory");
  }
  void* p = region->data();
  try {
    d.allocations.emplace(p, HostDevice::Allocation{charged, std::move(region)});
  } catch (...) {
    return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_device: no host memory left for the allocation table");
  }
  d.used += charged;
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_device(int32_t device, void* ptr) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.allocations.find(ptr);
  if (it == d.allocations.end()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "host device " + std::to_string(device) +
                                                 ": free_device of a pointer this device did not allocate");
  }
  d.used -= it->second.charged;
  d.allocations.erase(it);  // unmaps; a process that opened it keeps its own mapping of the memory
  return HAL_STATUS_SUCCESS;
}

// Host memory is what the CPU reads anyway: "pinned" memory is a plain aligned allocation.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  uint64_t bytes = 0;
  void* p = aligned_size(size, &bytes) ? std::aligned_alloc(kAlignment, bytes) : nullptr;
  if (!p) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes of RAM left");
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_host(void* ptr) {
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- sharing memory with other processes (ABI 1.4) ------------------------------------------------

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.allocations.find(base);
  if (it == d.allocations.end()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_export: host device " + std::to_string(device) +
                                                 " did not allocate this pointer");
  }
  const Region& region = *it->second.region;
  if (!region.identity(handle->bytes)) {
    return fail(HAL_STATUS_NOT_SUPPORTED,
                "this block of host device memory was allocated when the process had no file descriptor to spare "
                "(raise the open-files limit, ulimit -n), so it cannot be shared");
  }
  handle->num_bytes = 16;
  handle->fd = region.fd();
  return HAL_STATUS_SUCCESS;
}

hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base) {
  if (handle->fd < 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_open: host device memory is shared through a file descriptor, "
                                             "and the handle carries none");
  }
  return guarded("ipc_open", [&]() -> hal_status_t {
    std::unique_ptr<Region> region = Region::map_exported(handle->fd, handle->allocation_size);
    if (!region) {
      return fail(HAL_STATUS_DEVICE_ERROR,
                  std::string("ipc_open: cannot map the shared host device memory: ") + std::strerror(errno));
    }
    HostDevice& d = dev(device);
    std::lock_guard<std::mutex> lock(d.mutex);
    *base = region->data();
    d.imported.emplace(*base, std::move(region));
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t ipc_close(int32_t device, void* base) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.imported.erase(base) == 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_close: not a pointer that ipc_open returned on host device " +
                                                 std::to_string(device));
  }
  return HAL_STATUS_SUCCESS;
}

// ---- work on streams ---------------------------------------------------------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  return guarded("memset_async", [&] {
    queue_of(device, stream).enqueue([=] { std::memset(ptr, value, size); });
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t /*kind*/,
                          hal_stream_t stream) {
  // Every direction is a host memcpy here; a real adapter picks its driver's call by `kind`.
  return guarded("memcpy_async", [&] {
    queue_of(device, stream).enqueue([=] { std::memcpy(dst, src, size); });
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t /*src_device*/, const void* src, uint64_t size,
                               hal_stream_t stream) {
  return guarded("memcpy_peer_async", [&] {
    queue_of(dst_device, stream).enqueue([=] { std::memcpy(dst, src, size); });
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_create(int32_t device, int32_t /*priority: one worker per stream, no priorities*/,
                           hal_stream_t* stream) {
  return guarded("stream_create", [&] {
    auto s = std::make_unique<hal_stream_impl>();
    HostDevice& d = dev(device);
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.insert(s.get());
    *stream = s.release();
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (!stream) return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  HostDevice& d = dev(device);
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.erase(stream);
  }
  // Queued work finishes first, as before: device_synchronize() may hold the last reference to the queue
  // (then the worker is joined there), but the work is done when this returns either way.
  stream->queue->synchronize();
  delete stream;
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  queue_of(device, stream).synchronize();
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  return queue_of(device, stream).idle() ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  // Wait for the record made before this call, not for later ones (CUDA semantics).
  const uint64_t generation = event->state->recorded();
  if (generation == 0) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
  std::shared_ptr<EventState> state = event->state;
  return guarded("stream_wait_event", [&] {
    queue_of(device, stream).enqueue([state, generation] { state->wait_for(generation); });
    return HAL_STATUS_SUCCESS;
  });
}

// ---- events -----------------------------------------------------------------------------------

hal_status_t event_create(int32_t /*device*/, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&] {
    *event = new hal_event_impl{std::make_shared<EventState>((flags & HAL_EVENT_FLAG_TIMING) != 0)};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;  // queued markers keep the state alive
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  std::shared_ptr<EventState> state = event->state;
  const uint64_t generation = state->next_generation();
  const hal_status_t status = guarded("event_record", [&] {
    queue_of(device, stream).enqueue_marker([state, generation] { state->complete(generation); });
    return HAL_STATUS_SUCCESS;
  });
  // A generation that no marker will complete would make every later wait on this event hang: the
  // record failed, so it counts as done (and the caller got the error).
  if (status != HAL_STATUS_SUCCESS) state->complete(generation);
  return status;
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return event->state->is_complete() ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  event->state->wait_for(event->state->recorded());
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->state->timing() || !end->state->timing()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  std::chrono::steady_clock::time_point t0, t1;
  if (start->state->recorded() == 0 || end->state->recorded() == 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  if (!start->state->completion_time(&t0) || !end->state->completion_time(&t1)) {
    return fail(HAL_STATUS_NOT_READY, "event_elapsed_ms: an event has not completed yet");
  }
  *ms = std::chrono::duration<float, std::milli>(t1 - t0).count();
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) {
  return guarded("device_synchronize", [&] {
    HostDevice& d = dev(device);
    // References, not handles: another thread may destroy a stream while this one waits for it.
    std::vector<std::shared_ptr<WorkQueue>> queues;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      queues.reserve(d.streams.size());
      for (hal_stream_impl* s : d.streams) queues.push_back(s->queue);
    }
    d.default_stream.queue->synchronize();
    for (const auto& q : queues) q->synchronize();
    return HAL_STATUS_SUCCESS;
  });
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "host";
    a.description = "Host reference device: CPU memory and worker threads behind the adapter ABI";
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
    a.ipc_export = ipc_export;
    a.ipc_open = ipc_open;
    a.ipc_close = ipc_close;
    // op_supported / launch_op stay NULL: the glue runs ATen's CPU kernels in place on this memory.
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace host_adapter

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  // The table is returned even to a core of another major version: its abi_version lets that core
  // name both versions in its refusal, which says more than a bare NULL.
  (void)max_abi_version;
  return host_adapter::table();
}
