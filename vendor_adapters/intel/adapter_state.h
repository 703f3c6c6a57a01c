// What every file of the Intel adapter shares: the state between initialize() and shutdown() (one context per
// driver; each device's default stream, kernels, streams and allocations; the pinned host allocations), the
// opaque handles of adapter.h and failure reporting (fail, reported, guarded: adapter_support/abi_boundary.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi_boundary.h"
#include "../spirv_shell/device_records.h"
#include "command_list.h"
#include "devices.h"
#include "event_pool.h"
#include "handles.h"
#include "level_zero_api.h"
#include "ops.h"
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
  hal_spirv_shell::DeviceRecords records;  // the streams created on it, its allocations

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
      for (hal_stream_t s : d->records.take_streams()) {
        s->stream.synchronize(&ignored);
        delete s;
      }
      for (auto& [ptr, size] : d->records.take_allocations()) ze->zeMemFree(d->context(), ptr);
    }
    for (auto& [ptr, p] : pinned) ze->zeMemFree(p.context, ptr);
  }
};

// Between the first initialize() and the last shutdown(); never destroyed at exit. The driver was loaded after
// this library, so its static objects are destroyed before this library's: a destructor calling into it then
// (the null driver showed it) corrupts the heap. The end of the process frees everything anyway.
extern State* g_state;

// Make and drop g_state, for the SPIR-V shell's counted initialize() and shutdown() (../spirv_shell/lifecycle.cpp):
// the loader, the devices discovered, a context per driver and each device's default stream; then all of it.
hal_status_t open_state();
void close_state();

hal_status_t fail(hal_status_t status, std::string message);

// Passes SUCCESS and NOT_READY through; anything else keeps `error` as the thread's message.
hal_status_t reported(hal_status_t status, const std::string& error);

// Waits for every stream of the device: the default one and each created one.
hal_status_t synchronize_all(Device& d);

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

inline const LevelZeroApi& ze() { return *g_state->ze; }
inline Device& dev(int32_t device) { return *g_state->devices[device]; }
inline Stream& stream_of(int32_t device, hal_stream_t stream) {
  return stream != nullptr ? stream->stream : *dev(device).default_stream;
}

}  // namespace hal_level_zero
