// What every file of example_asic shares: the state between initialize() and shutdown() (one memory arena per
// chip), the opaque handles of adapter.h, and failure reporting: fail() keeps this thread's message for
// get_last_error(), guarded() keeps C++ exceptions from crossing the C ABI.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "device_arena.h"
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

struct State {
  std::vector<std::unique_ptr<DeviceArena>> devices;
};

extern std::unique_ptr<State> g_state;  // between the first initialize() and the last shutdown()
extern thread_local std::string t_last_error;

hal_status_t fail(hal_status_t status, std::string message);

inline DeviceArena& arena(int32_t device) { return *g_state->devices[device]; }

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

}  // namespace example_asic
