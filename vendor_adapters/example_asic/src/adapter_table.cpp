// example_asic: a plugin adapter for a simulated ASIC, built outside torch_hal against
// include/torch_hal/adapter.h alone. It is the worked example of vendor_adapters/example_asic/README.md.
//
// The simulated chip has its own memory (a fixed-size arena per device, reported as NOT host-accessible,
// so torch_hal moves data with memcpy_async and runs non-native ops through its CPU fallback), in-order
// streams, events with timing, and native float32 kernels for ADD, MUL, RELU and MATMUL.
//
// Execution model: a command runs to completion when it is submitted, in submission order. That is a
// valid in-order stream (a later command of the stream never starts before an earlier one ends), so
// stream and event queries are always complete, waits are already satisfied, and an event's time is the
// moment everything submitted before it on its stream had finished.
//
// Environment:
//   EXAMPLE_ASIC_DEVICES  number of simulated chips (default 1)
//   EXAMPLE_ASIC_MEMORY   memory of each chip: bytes, or with a K/M/G suffix such as 512M (default 512M)
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "device_arena.h"
#include "kernels.h"
#include "torch_hal/adapter.h"

// The opaque handles of adapter.h. A stream remembers its device; an event, when it was reached.
struct hal_stream_impl {
  int32_t device;
};
struct hal_event_impl {
  bool timing;
  bool recorded = false;
  std::chrono::steady_clock::time_point reached{};
};

namespace example_asic {
namespace {

struct State {
  std::vector<std::unique_ptr<DeviceArena>> devices;
};

std::mutex g_lifecycle_mutex;
std::unique_ptr<State> g_state;  // between the first initialize() and the last shutdown()
int g_initializations = 0;
thread_local std::string t_last_error;

hal_status_t fail(hal_status_t status, std::string message) {
  t_last_error = "example_asic: " + std::move(message);
  return status;
}

DeviceArena& arena(int32_t device) { return *g_state->devices[device]; }

// No C++ exception may cross the C ABI.
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, std::string(what) + ": out of host memory");
  } catch (const std::exception& e) {
    return fail(HAL_STATUS_INTERNAL_ERROR, std::string(what) + ": " + e.what());
  }
}

std::string range_text(const void* p, uint64_t size) {
  char text[64];
  std::snprintf(text, sizeof(text), "[%p, +%llu bytes)", p, static_cast<unsigned long long>(size));
  return text;
}

// Device-side ranges are checked on every copy: a pointer that is not this chip's memory is refused
// with its address, as a real DMA engine's fault would be reported.
hal_status_t check_device_range(int32_t device, const void* p, uint64_t size, const char* what) {
  if (size == 0 || arena(device).contains(p, size)) return HAL_STATUS_SUCCESS;
  return fail(HAL_STATUS_INVALID_ARGUMENT, std::string(what) + ": " + range_text(p, size) +
                                               " is not inside an allocation of device " + std::to_string(device));
}

// Settings are plain digits: strtoul alone would also take " 8M", "+8M" and, wrapped around, "-1".
bool starts_with_digit(const char* text) { return std::isdigit(static_cast<unsigned char>(*text)) != 0; }

bool parse_bytes(const char* text, uint64_t* out) {
  if (!starts_with_digit(text)) return false;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || value == 0) return false;
  uint64_t scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm') scale = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g') scale = 1ull << 30, ++end;
  if (*end != '\0' || value > (1ull << 46) / scale) return false;  // at most 64 TiB of address space
  *out = value * scale;
  return true;
}

// ---- lifecycle ---------------------------------------------------------------------------------

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  long count = 1;
  if (const char* env = std::getenv("EXAMPLE_ASIC_DEVICES")) {
    char* end = nullptr;
    count = std::strtol(env, &end, 10);
    if (!starts_with_digit(env) || *end != '\0' || count > 64) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("EXAMPLE_ASIC_DEVICES='") + env + "' is not a device count between 0 and 64");
    }
  }
  uint64_t memory = 512ull << 20;
  if (const char* env = std::getenv("EXAMPLE_ASIC_MEMORY")) {
    if (!parse_bytes(env, &memory)) {
      return fail(HAL_STATUS_INVALID_ARGUMENT,
                  std::string("EXAMPLE_ASIC_MEMORY='") + env + "' is not a size: use bytes or a K/M/G suffix, e.g. 512M");
    }
  }
  return guarded("initialize", [&]() -> hal_status_t {
    auto state = std::make_unique<State>();
    for (long i = 0; i < count; ++i) state->devices.push_back(std::make_unique<DeviceArena>(memory));
    g_state = std::move(state);
    g_initializations = 1;
    return HAL_STATUS_SUCCESS;
  });
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  g_state.reset();  // unmaps every chip's memory
}

const char* get_last_error() { return t_last_error.c_str(); }

// ---- discovery ---------------------------------------------------------------------------------

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_device_properties(int32_t device, hal_device_properties_t* props) {
  hal_device_properties_t p{};
  p.struct_size = sizeof(p);
  std::snprintf(p.name, sizeof(p.name), "Example ASIC (simulated)");
  std::snprintf(p.vendor, sizeof(p.vendor), "custom_asic");
  std::snprintf(p.arch_name, sizeof(p.arch_name), "example-asic-v1");
  std::snprintf(p.uuid, sizeof(p.uuid), "a51c0000-0000-4000-8000-%012d", static_cast<int>(device));
  p.total_memory_bytes = arena(device).capacity();
  p.compute_units = 1;
  p.max_threads_per_block = 1;
  // Not host-accessible: its memory is the chip's own; the core must copy, never dereference.
  p.flags = 0;
  // Fill no more than the caller's struct holds: a core built against an older minor may pass less.
  const uint32_t size = props->struct_size < sizeof(p) ? props->struct_size : static_cast<uint32_t>(sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

hal_status_t get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  *total_bytes = arena(device).capacity();
  *free_bytes = *total_bytes - arena(device).used();
  return HAL_STATUS_SUCCESS;
}

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    void* p = arena(device).allocate(size);
    if (!p) {
      return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY,
                  "device " + std::to_string(device) + " has no free range of " + std::to_string(size) + " bytes (" +
                      std::to_string(arena(device).used()) + " of " + std::to_string(arena(device).capacity()) +
                      " bytes in use; EXAMPLE_ASIC_MEMORY sets the size)");
    }
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_device(int32_t device, void* ptr) {
  if (arena(device).free(ptr)) return HAL_STATUS_SUCCESS;
  return fail(HAL_STATUS_INVALID_ARGUMENT,
              "free_device: " + range_text(ptr, 0) + " is not an allocation of device " + std::to_string(device));
}

// Pinned host memory: what the chip's DMA engine would read from. Here, aligned host memory.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  const uint64_t bytes = (size + DeviceArena::kAlignment - 1) / DeviceArena::kAlignment * DeviceArena::kAlignment;
  void* p = bytes >= size ? std::aligned_alloc(DeviceArena::kAlignment, bytes ? bytes : DeviceArena::kAlignment) : nullptr;
  if (!p) return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, "malloc_host: no " + std::to_string(size) + " bytes of RAM left");
  *ptr = p;
  return HAL_STATUS_SUCCESS;
}

hal_status_t free_host(void* ptr) {
  std::free(ptr);
  return HAL_STATUS_SUCCESS;
}

// ---- commands (run at submission, in order; see the top of this file) ---------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t /*stream*/) {
  if (hal_status_t st = check_device_range(device, ptr, size, "memset_async")) return st;
  std::memset(ptr, value, size);
  return HAL_STATUS_SUCCESS;
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t /*stream*/) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (kind != HAL_COPY_DEVICE_TO_HOST) {
    if (hal_status_t st = check_device_range(device, dst, size, "memcpy_async (destination)")) return st;
  }
  if (kind != HAL_COPY_HOST_TO_DEVICE) {
    if (hal_status_t st = check_device_range(device, src, size, "memcpy_async (source)")) return st;
  }
  std::memmove(dst, src, size);  // device to device may overlap
  return HAL_STATUS_SUCCESS;
}

hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t /*stream*/) {
  if (hal_status_t st = check_device_range(dst_device, dst, size, "memcpy_peer_async (destination)")) return st;
  if (hal_status_t st = check_device_range(src_device, src, size, "memcpy_peer_async (source)")) return st;
  std::memcpy(dst, src, size);  // two chips' memories never overlap
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    *stream = new hal_stream_impl{device};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_destroy(int32_t /*device*/, hal_stream_t stream) {
  if (!stream) return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  delete stream;
  return HAL_STATUS_SUCCESS;
}

// Every command finished when it was submitted: nothing is ever pending.
hal_status_t stream_synchronize(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t stream_query(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t stream_wait_event(int32_t, hal_stream_t, hal_event_t) { return HAL_STATUS_SUCCESS; }
hal_status_t device_synchronize(int32_t) { return HAL_STATUS_SUCCESS; }

hal_status_t event_create(int32_t /*device*/, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    *event = new hal_event_impl{(flags & HAL_EVENT_FLAG_TIMING) != 0};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t /*device*/, hal_event_t event, hal_stream_t /*stream*/) {
  event->recorded = true;
  event->reached = std::chrono::steady_clock::now();
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_query(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }
hal_status_t event_synchronize(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (!start->recorded || !end->recorded) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  *ms = std::chrono::duration<float, std::milli>(end->reached - start->reached).count();
  return HAL_STATUS_SUCCESS;
}

// ---- native kernels ----------------------------------------------------------------------------

hal_status_t op_supported(int32_t /*device*/, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  return kernel_supported(op, tensors, num_tensors);
}

hal_status_t launch_op(int32_t device, hal_op_t op, hal_stream_t /*stream*/, const hal_tensor_t* inputs,
                       int32_t num_inputs, hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars) {
  return guarded("launch_op", [&]() -> hal_status_t {
    std::string error;
    DeviceArena& memory = arena(device);
    const hal_status_t st = run_kernel(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars,
                                       [&memory](const void* p, uint64_t n) { return memory.contains(p, n); }, &error);
    return st == HAL_STATUS_SUCCESS ? st : fail(st, error);
  });
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "example_asic";
    a.description = "Example ASIC plugin: a simulated chip with its own memory and native float32 kernels";
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
    a.op_supported = op_supported;
    a.launch_op = launch_op;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace example_asic

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  // Returned even to a core of another major version: its abi_version lets that core name both
  // versions in its refusal.
  (void)max_abi_version;
  return example_asic::table();
}
